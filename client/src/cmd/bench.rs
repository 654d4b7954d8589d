//! `kiln bench ...`: throughput benchmarks (release builds), reported as MB/s.
//!
//! `kiln bench parse [FILE] [--mb N]`: parse FILE (or a synthetic TOR program of at least N
//! MB built from the APS sample's op forms) several times and report the best throughput, by
//! wall-clock time and by the thread's CPU time (which a busy machine does not inflate).

use crate::io::{self, Failure};
use compiler::mlir;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Subcommand)]
pub enum BenchCommand {
    /// MLIR parsing throughput.
    Parse(ParseArgs),
}

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

pub fn run(command: BenchCommand) -> Result<(), Failure> {
    match command {
        BenchCommand::Parse(args) => bench_parse(args),
    }
}

fn bench_parse(args: ParseArgs) -> Result<(), Failure> {
    let (name, text) = match &args.file {
        Some(path) => (path.display().to_string(), io::read_source(path)?),
        None => (
            format!("synthetic TOR program ({} MB requested)", args.mb),
            mlir::synthetic::tor_program(args.mb << 20),
        ),
    };
    let mut best = f64::INFINITY;
    let mut best_cpu = f64::INFINITY;
    let mut ops = 0;
    for _ in 0..args.runs.max(1) {
        let cpu_start = thread_cpu_seconds();
        let start = Instant::now();
        let modules =
            mlir::parse_split(&text).map_err(|diags| Failure::diagnostics(&diags, &name, &text))?;
        best = best.min(start.elapsed().as_secs_f64());
        if let (Some(a), Some(b)) = (cpu_start, thread_cpu_seconds()) {
            best_cpu = best_cpu.min(b - a);
        }
        ops = mlir::summarize(&modules).total_ops;
        drop(modules);
    }
    let mb = text.len() as f64 / (1 << 20) as f64;
    let mut line = format!(
        "parse {name}: {mb:.1} MB, {ops} ops, best of {} runs: wall {:.1} ms = {:.0} MB/s",
        args.runs.max(1),
        best * 1e3,
        mb / best
    );
    if best_cpu.is_finite() && best_cpu > 0.0 {
        line += &format!(", cpu {:.1} ms = {:.0} MB/s", best_cpu * 1e3, mb / best_cpu);
    }
    println!("{line}");
    Ok(())
}

/// CPU time of the calling thread (Linux `/proc/thread-self/schedstat`, in ns), which
/// excludes the time spent waiting for a core on a busy machine.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}
