//! `kiln-bench parse [FILE] [--mb N]`: parse FILE (or a synthetic TOR program of at least N
//! MB built from the APS sample's op forms) several times and report the best and the median
//! throughput, by wall-clock time and by the thread's CPU time (which a busy machine does not
//! inflate). Only `parse_split` is timed: dropping the trees is not. The parser runs in
//! this process, under the allocator `kiln` uses (mimalloc).

use crate::common::{Failure, read_text};
use compiler::mlir;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct ParseArgs {
    /// Input to parse; a synthetic TOR program when absent.
    pub file: Option<PathBuf>,
    /// Size of the synthetic input in MB.
    #[arg(long, default_value_t = 16)]
    pub mb: usize,
    /// Timed repetitions (the best is reported).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
}

pub fn run(args: ParseArgs) -> Result<(), Failure> {
    let (name, text) = match &args.file {
        Some(path) => (path.display().to_string(), read_text(path)?),
        None => (
            format!("synthetic TOR program ({} MB requested)", args.mb),
            mlir::synthetic::tor_program(args.mb << 20),
        ),
    };
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut ops = 0;
    for _ in 0..args.runs.max(1) {
        let cpu_start = thread_cpu_seconds();
        let start = Instant::now();
        let modules =
            mlir::parse_split(&text).map_err(|diags| Failure::diagnostics(&diags, &name, &text))?;
        walls.push(start.elapsed().as_secs_f64());
        if let (Some(a), Some(b)) = (cpu_start, thread_cpu_seconds()) {
            cpus.push(b - a);
        }
        ops = mlir::summarize(&modules).total_ops;
        drop(modules);
    }
    let mb = text.len() as f64 / (1 << 20) as f64;
    let (best, median) = best_and_median(&mut walls);
    let (best_cpu, median_cpu) = best_and_median(&mut cpus);
    let mut line = format!(
        "parse {name}: {mb:.1} MB, {ops} ops, best of {} runs: wall {:.1} ms = {:.0} MB/s",
        args.runs.max(1),
        best * 1e3,
        mb / best
    );
    if best_cpu.is_finite() && best_cpu > 0.0 {
        line += &format!(", cpu {:.1} ms = {:.0} MB/s", best_cpu * 1e3, mb / best_cpu);
    }
    line += &format!("; median wall {:.0} MB/s", mb / median);
    if median_cpu.is_finite() && median_cpu > 0.0 {
        line += &format!(", cpu {:.0} MB/s", mb / median_cpu);
    }
    println!("{line}");
    Ok(())
}

/// The smallest and the median of `times` (infinite when empty).
fn best_and_median(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    if times.is_empty() {
        return (f64::INFINITY, f64::INFINITY);
    }
    (times[0], times[times.len() / 2])
}

/// CPU time of the calling thread (Linux `/proc/thread-self/schedstat`, in ns), which
/// excludes the time spent waiting for a core on a busy machine.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}
