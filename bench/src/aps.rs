//! `kiln-bench aps [--functions N] [--seed S] [--runs R]`: cold `kiln build` of a generated
//! APS module (`compiler::aps::workload`, as `kiln-bench gen aps` writes it).
//!
//! Every timed build is a child process `kiln build FILE --out-dir DIR` (a fresh output
//! directory per run, so nothing is skipped as unchanged), measured like `kiln-bench aig`:
//! median wall and CPU (user + system) time, peak RSS of the child. The outputs of all runs
//! must be byte-identical. Children run with `KILN_NO_DAEMON=1`: a cold build is an
//! in-process one (a daemon would keep results across runs; `kiln-bench daemon` measures
//! the daemon's cold build). The `kiln` measured is the one next to `kiln-bench`; `--kiln
//! BIN` measures another binary's `kiln build` (before/after comparisons). `--build-arg`
//! passes extra arguments to `kiln build`.
//!
//! Then the same work is done in this process phase by phase, each phase on its own and on
//! one thread, so the numbers say where the time goes: parse, segmentation + handlers (all
//! functions' circuits), merge into the file circuit, CMT2 emission, JSON emission, write;
//! and, for comparison, the parallel whole-file flow `compiler::flow::aps::build` that
//! `kiln build --no-daemon` runs.
//! Inputs and outputs live on tmpfs when there is one.
//!
//! `kiln-bench aps --slots 1000,2000,4000,8000,10000`: how one function's cost grows with
//! its slots (`compiler::aps::workload::slot_chain`, as `kiln-bench gen aps --slots` writes
//! it).
//! For each count, child processes like the cold builds above: `kiln build`, `kiln build
//! --emit sv`, `kiln sim` on the rule simulator, on the CMT2 read back and on the TOR
//! interpreter, and `kiln graph`; a row each with peak RSS, output bytes and wall time, and
//! the RSS and output per slot (flat when they grow linearly). The rule simulator also runs
//! without its index of rules by guard (`--every-rule`), the anchor that index is measured
//! against (the `kiln` next to `kiln-bench` only). With `--kiln BIN` the commands are BIN's
//! (a command that fails, e.g. out of memory, is a row saying so).

use crate::common::{Failure, kiln_binary, measure_runs, scratch_dir, write, write_parts};
use compiler::flow::OutputKind;
use compiler::{aps, rules};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Functions in the generated module (at most 512: 4 custom opcodes × 128 funct7).
    #[arg(long, default_value_t = 512)]
    pub functions: usize,
    /// Seed of the generator.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Cold builds (median reported).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Extra argument for the measured `kiln build` (repeatable).
    #[arg(long, allow_hyphen_values = true)]
    pub build_arg: Vec<String>,
    /// The `kiln` binary whose `build` is measured (default: the one next to
    /// `kiln-bench`), e.g. an older build for a before/after comparison.
    #[arg(long)]
    pub kiln: Option<std::path::PathBuf>,
    /// Slot counts of one generated function (comma-separated): measure build, sim and
    /// graph per count instead of the module build.
    #[arg(long, value_delimiter = ',',
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub slots: Vec<u32>,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let tmp = scratch_dir(true)?;
    if !args.slots.is_empty() {
        return slot_sweep(&args, tmp.path());
    }
    let input = tmp.path().join("g.mlir");
    let text = aps::workload::generate(args.functions, args.seed);
    write(&input, text.as_bytes())?;
    println!(
        "input: {} functions, seed {}, {:.1} MB, in {}",
        args.functions,
        args.seed,
        mb(text.len()),
        tmp.path().display()
    );
    cold_builds(&args, &input, tmp.path())?;
    phases(&text, tmp.path())
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

/// `runs` cold child builds, each into a fresh directory; checks that all outputs agree.
fn cold_builds(args: &Args, input: &Path, tmp: &Path) -> Result<(), Failure> {
    let me = kiln_binary(args.kiln.as_deref())?;
    let mut run = 0;
    let sample = measure_runs(args.runs, || {
        run += 1;
        let mut c = Command::new(&me);
        c.arg("build")
            .arg(input)
            .arg("--out-dir")
            .arg(tmp.join(format!("out{run}")));
        // A cold build is an in-process one: a daemon would keep its results across the
        // runs (its cold build is measured by `kiln-bench daemon`).
        c.env("KILN_NO_DAEMON", "1");
        c.args(&args.build_arg);
        c
    })?;
    println!(
        "cold kiln build, median of {}: wall {:.3} s, cpu {:.3} s, peak RSS {:.0} MB",
        args.runs.max(1),
        sample.wall,
        sample.cpu,
        sample.rss as f64 / 1024.0
    );
    for name in ["g.cmt2.mlir", "g.rules.json"] {
        let first = read(&tmp.join("out1").join(name))?;
        for r in 2..=run {
            if read(&tmp.join(format!("out{r}")).join(name))? != first {
                return Err(Failure::input(format!(
                    "{name} differs between runs 1 and {r}"
                )));
            }
        }
        println!("  {name}: {:.1} MB, identical in all runs", mb(first.len()));
    }
    // `out1` stays: the in-process phases compare their outputs with it.
    for r in 2..=run {
        std::fs::remove_dir_all(tmp.join(format!("out{r}"))).ok();
    }
    Ok(())
}

/// The in-process output must equal what `kiln build` wrote.
fn same_as_build(tmp: &Path, name: &str, bytes: &[u8]) -> Result<(), Failure> {
    if read(&tmp.join("out1").join(name))? != bytes {
        return Err(Failure::input(format!(
            "{name}: the in-process emitters differ from kiln build"
        )));
    }
    Ok(())
}

fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::input(format!("{}: {e}", path.display())))
}

/// A stopwatch that prints one line per phase: wall time and the process's CPU time
/// (user + system, all threads), which a busy machine inflates less than wall time.
struct Phases {
    last: Instant,
    last_cpu: f64,
}

impl Phases {
    fn start() -> Phases {
        Phases {
            last: Instant::now(),
            last_cpu: process_cpu_seconds(),
        }
    }

    fn lap(&mut self, what: &str, detail: String) {
        let (now, cpu) = (Instant::now(), process_cpu_seconds());
        println!(
            "  {what:<30} {:>8.1} {:>8.1}  {detail}",
            (now - self.last).as_secs_f64() * 1e3,
            (cpu - self.last_cpu) * 1e3
        );
        (self.last, self.last_cpu) = (now, cpu);
    }
}

/// User + system CPU seconds of this process so far.
fn process_cpu_seconds() -> f64 {
    // SAFETY: rusage is plain old data; getrusage fills it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid out-pointer.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0.0;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// The build's phases one after the other in this process (one thread each).
fn phases(text: &str, tmp: &Path) -> Result<(), Failure> {
    let fail = |d: compiler::diag::Diagnostic| Failure::diagnostics(&[d], "g.mlir", text);
    println!("in-process phases (sequential, one thread unless noted):");
    println!("  {:<30} {:>8} {:>8}", "phase", "wall ms", "cpu ms");
    let mut p = Phases::start();
    let module = compiler::mlir::parse(text).map_err(fail)?;
    p.lap("parse", format!("{:.1} MB", mb(text.len())));
    let circuits = aps::build_module(&module).map_err(fail)?;
    let rule_count: usize = circuits.iter().map(|c| c.rules.len()).sum();
    p.lap(
        "segmentation + handlers",
        format!("{} circuits, {rule_count} rules", circuits.len()),
    );
    let circuit = compiler::flow::aps::merge("g", circuits);
    p.lap("merge", format!("{} instances", circuit.instances.len()));
    let cmt2 = rules::emit_cmt2(&circuit);
    p.lap("emit CMT2", format!("{:.1} MB", mb(cmt2.len())));
    let json = rules::to_json(&circuit);
    p.lap("emit JSON", format!("{:.1} MB", mb(json.len())));
    let out = tmp.join("phases");
    write(&out.join("g.cmt2.mlir"), cmt2.as_bytes())?;
    write(&out.join("g.rules.json"), json.as_bytes())?;
    p.lap("write", String::new());
    same_as_build(tmp, "g.cmt2.mlir", cmt2.as_bytes())?;
    same_as_build(tmp, "g.rules.json", json.as_bytes())?;
    p.lap("(compare with kiln build)", String::new());
    drop((cmt2, json, circuit));
    p.lap("drop outputs and circuit", String::new());
    let fused = compiler::flow::aps::build(text, "g", None, &kiln_daemon::input::limits());
    if fused.has_errors() {
        return Err(Failure::diagnostics(&fused.diagnostics, "g.mlir", text));
    }
    p.lap(
        "flow::aps::build (parallel)",
        "split, context; per function parse, segmentation, handlers, emission".into(),
    );
    let whole = |kind| fused.output(kind).map(|p| p.concat()).unwrap_or_default();
    same_as_build(tmp, "g.cmt2.mlir", &whole(OutputKind::Cmt2))?;
    same_as_build(tmp, "g.rules.json", &whole(OutputKind::RulesJson))?;
    p.lap("(compare with kiln build)", String::new());
    let write = |kind: OutputKind| {
        let path = out.join(format!("g.{}", kind.suffix()));
        write_parts(&path, fused.output(kind).unwrap_or_default())
    };
    std::thread::scope(|s| {
        let write = &write;
        let json = s.spawn(move || write(OutputKind::RulesJson));
        let cmt2 = write(OutputKind::Cmt2);
        let json = json
            .join()
            .unwrap_or_else(|_| Err(Failure::input("a writer panicked")));
        cmt2.and(json)
    })?;
    p.lap(
        "write (the flow's pieces)",
        "two files on two threads".into(),
    );
    drop(fused);
    drop(module);
    p.lap("drop op tree", String::new());
    std::fs::remove_dir_all(&out).ok();
    Ok(())
}

/// The slot sweep (`--slots`, see the module documentation).
fn slot_sweep(args: &Args, tmp: &Path) -> Result<(), Failure> {
    let me = kiln_binary(args.kiln.as_deref())?;
    println!(
        "one function of N slots (workload::slot_chain), commands of {}; median of {} runs",
        me.display(),
        args.runs.max(1)
    );
    println!(
        "{:>7}  {:<24} {:>11} {:>10} {:>8} {:>11} {:>12}",
        "slots", "command", "peak RSS MB", "output MB", "wall s", "RSS KB/slot", "output B/slot"
    );
    for &n in &args.slots {
        let input = tmp.join(format!("chain{n}.mlir"));
        write(&input, aps::workload::slot_chain(n as usize).as_bytes())?;
        let out = tmp.join(format!("out{n}"));
        let cmt2 = out.join(format!("chain{n}.cmt2.mlir"));
        let dot = out.join("chain.dot");
        let kiln = |bin: &Path, a: &[&std::ffi::OsStr]| {
            let mut c = Command::new(bin);
            c.args(a).env("KILN_NO_DAEMON", "1");
            c
        };
        let os = |s: &str| std::ffi::OsStr::new(s).to_owned();
        let sim = |engine: &str, file: &Path| {
            vec![
                os("sim"),
                file.as_os_str().to_owned(),
                os("--func"),
                os("chain"),
                os("--engine"),
                os(engine),
                os("--rs1"),
                os("5"),
            ]
        };
        let build = vec![
            os("build"),
            input.as_os_str().to_owned(),
            os("--out-dir"),
            out.as_os_str().to_owned(),
        ];
        let mut rows: Vec<(&str, PathBuf, Vec<std::ffi::OsString>, Vec<PathBuf>)> = vec![
            (
                "build",
                me.clone(),
                build.clone(),
                vec![cmt2.clone(), out.join(format!("chain{n}.rules.json"))],
            ),
            (
                "build --emit sv",
                me.clone(),
                [build.clone(), vec![os("--emit"), os("sv")]].concat(),
                vec![out.join(format!("chain{n}.sv"))],
            ),
            ("sim (rules)", me.clone(), sim("rules", &input), vec![]),
            (
                "sim (cmt2 read back)",
                me.clone(),
                sim("cmt2", &cmt2),
                vec![],
            ),
            ("sim (tor)", me.clone(), sim("tor", &input), vec![]),
            (
                "graph",
                me.clone(),
                vec![
                    os("graph"),
                    input.as_os_str().to_owned(),
                    os("--func"),
                    os("chain"),
                    os("-o"),
                    dot.as_os_str().to_owned(),
                ],
                vec![dot.clone()],
            ),
        ];
        if args.kiln.is_none() {
            let mut every = sim("rules", &input);
            every.push(os("--every-rule"));
            rows.push(("sim (rules, every rule)", me.clone(), every, vec![]));
        }
        for (what, bin, argv, outputs) in rows {
            let argv: Vec<&std::ffi::OsStr> = argv.iter().map(|a| a.as_os_str()).collect();
            match measure_runs(args.runs, || kiln(&bin, &argv)) {
                Ok(sample) => {
                    let bytes: u64 = (outputs.iter())
                        .filter_map(|p| std::fs::metadata(p).ok())
                        .map(|m| m.len())
                        .sum();
                    println!(
                        "{n:>7}  {what:<24} {:>11.1} {:>10.2} {:>8.3} {:>11.1} {:>12.1}",
                        sample.rss as f64 / 1024.0,
                        mb(bytes as usize),
                        sample.wall,
                        sample.rss as f64 / f64::from(n),
                        bytes as f64 / f64::from(n),
                    );
                }
                Err(e) => println!("{n:>7}  {what:<24} failed: {}", e.message),
            }
        }
        std::fs::remove_dir_all(&out).ok();
        std::fs::remove_file(&input).ok();
    }
    Ok(())
}
