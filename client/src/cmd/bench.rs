//! `kiln bench <area>`: benchmarks, one variant per area.
//!
//! `kiln bench aig [--abc]` measures BLIF→AIGER (read + parse + lower + write binary AIGER) on
//! the big files of the shared `blif_bench/` and on the whole Dynamatic unit library, and with
//! `--abc` the same job done by `berkeley-abc -c "read_blif F; strash; write_aiger out.aig"`
//! in the same run. Every measurement is a child process (kiln runs itself as
//! `kiln bench aig-one`), timed by wall clock, with peak RSS from `wait4`'s rusage, so both
//! tools are measured the same way, start-up included. The median of `--runs` runs is shown.

use crate::cmd::aig::{self as aigcmd, Format, Job};
use crate::io::Failure;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

#[derive(clap::Subcommand)]
pub enum Bench {
    /// BLIF→AIG: kiln vs ABC (`--abc`) on blif_bench and the Dynamatic library.
    Aig(AigArgs),
    /// Lower one file or directory and write AIGER (the measured child process of `bench aig`).
    #[command(hide = true)]
    AigOne {
        input: PathBuf,
        out: PathBuf,
        #[arg(long, default_value_t = 1)]
        jobs: usize,
    },
}

#[derive(clap::Args)]
pub struct AigArgs {
    /// Also run ABC on the same inputs.
    #[arg(long)]
    pub abc: bool,
    /// The shared corpus (default: $KILN_SHARED_DIR or ../shared).
    #[arg(long)]
    pub shared: Option<PathBuf>,
    /// Runs per measurement (median reported).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Worker threads for the library run (kiln).
    #[arg(long, default_value_t = 2)]
    pub jobs: usize,
    /// Skip the Dynamatic library run.
    #[arg(long)]
    pub no_library: bool,
}

const FILES: &[&str] = &[
    "epfl/hyp.blif",
    "yosys_hier/vga_lcd_flat.blif",
    "yosys_hier/wb_conmax_flat.blif",
    "epfl/div.blif",
    "epfl/multiplier.blif",
];

pub fn run(b: Bench) -> Result<(), Failure> {
    match b {
        Bench::Aig(args) => bench_aig(args),
        Bench::AigOne { input, out, jobs } => aig_one(&input, &out, jobs),
    }
}

fn aig_one(input: &Path, out: &Path, jobs: usize) -> Result<(), Failure> {
    let jobs_list = if input.is_dir() {
        aigcmd::collect_jobs(&[input.to_path_buf()], out, Format::Aig)?
    } else {
        vec![Job {
            input: input.to_path_buf(),
            output: out.to_path_buf(),
        }]
    };
    let outcomes = aigcmd::run_pool(&jobs_list, jobs, |j| aigcmd::lower_one(j, Format::Aig));
    let failed = outcomes.iter().filter(|o| o.failed).count();
    if failed > 0 {
        return Err(Failure::input(format!("{failed} file(s) failed")));
    }
    Ok(())
}

/// Wall seconds and peak RSS (KB) of one child process; fails on a non-zero exit.
fn measure(cmd: &mut Command) -> Result<(f64, u64), Failure> {
    let start = Instant::now();
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Failure::input(format!("cannot run {cmd:?}: {e}")))?;
    let mut status = 0;
    // SAFETY: rusage is plain old data; wait4 fills it for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: pid is our child, status and ru are valid out-pointers.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    let secs = start.elapsed().as_secs_f64();
    if r != pid || !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Err(Failure::input(format!(
            "{cmd:?} failed (wait status {status})"
        )));
    }
    Ok((secs, ru.ru_maxrss as u64))
}

/// Median wall time and maximum peak RSS over `runs` runs.
fn measure_runs(runs: usize, mut make: impl FnMut() -> Command) -> Result<(f64, u64), Failure> {
    let mut times = Vec::new();
    let mut rss = 0;
    for _ in 0..runs.max(1) {
        let (t, r) = measure(&mut make())?;
        times.push(t);
        rss = rss.max(r);
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], rss))
}

fn shared_dir(arg: Option<PathBuf>) -> Result<PathBuf, Failure> {
    let dir = arg
        .or_else(|| std::env::var_os("KILN_SHARED_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("../shared"));
    if !dir.is_dir() {
        return Err(Failure::input(format!(
            "shared corpus {} not found (use --shared)",
            dir.display()
        )));
    }
    Ok(dir)
}

fn bench_aig(args: AigArgs) -> Result<(), Failure> {
    let shared = shared_dir(args.shared.clone())?;
    let me = std::env::current_exe().map_err(|e| Failure::input(e.to_string()))?;
    let tmp = tempfile::tempdir().map_err(|e| Failure::input(e.to_string()))?;
    let out = tmp.path().join("out.aig");
    println!(
        "{:<34} {:>9} {:>9} {:>9} {:>9} {:>7} {:>7}",
        "input", "kiln s", "kiln MB", "abc s", "abc MB", "speed", "mem"
    );
    for rel in FILES {
        let file = shared.join("blif_bench").join(rel);
        let ours = measure_runs(args.runs, || {
            let mut c = Command::new(&me);
            c.args(["bench", "aig-one"]).arg(&file).arg(&out);
            c
        })?;
        let abc = if args.abc {
            let script = format!(
                "read_blif {}; strash; write_aiger {}",
                file.display(),
                tmp.path().join("abc.aig").display()
            );
            Some(measure_runs(args.runs, || {
                let mut c = Command::new("berkeley-abc");
                c.args(["-c", &script]);
                c
            })?)
        } else {
            None
        };
        print_row(rel, ours, abc);
    }
    if !args.no_library {
        bench_library(&args, &shared, &me, tmp.path())?;
    }
    Ok(())
}

fn bench_library(args: &AigArgs, shared: &Path, me: &Path, tmp: &Path) -> Result<(), Failure> {
    let lib = shared.join("dynamatic_blif/library");
    let files = aigcmd::collect_jobs(
        std::slice::from_ref(&lib),
        &tmp.join("kiln_lib"),
        Format::Aig,
    )?;
    for jobs in [1, args.jobs] {
        let ours = measure_runs(args.runs, || {
            let mut c = Command::new(me);
            c.args(["bench", "aig-one"])
                .arg(&lib)
                .arg(tmp.join("kiln_lib"));
            c.args(["--jobs", &jobs.to_string()]);
            c
        })?;
        let abc = if args.abc && jobs == 1 {
            Some(abc_library(args.runs, &files, tmp)?)
        } else {
            None
        };
        let label = format!("library ({} files, {jobs} job(s))", files.len());
        print_row(&label, ours, abc);
    }
    Ok(())
}

/// One ABC process over the whole library (minus the logic-free black boxes ABC crashes on).
fn abc_library(runs: usize, files: &[Job], tmp: &Path) -> Result<(f64, u64), Failure> {
    let dir = tmp.join("abc_lib");
    std::fs::create_dir_all(&dir).map_err(|e| Failure::input(e.to_string()))?;
    let mut script = String::new();
    let mut n = 0;
    for (k, job) in files.iter().enumerate() {
        let text = std::fs::read_to_string(&job.input).unwrap_or_default();
        if !text.contains(".names") {
            continue; // blackboxed divsi/divui/muli units: no logic, ABC segfaults on them
        }
        n += 1;
        script.push_str(&format!(
            "read_blif {}\nstrash\nwrite_aiger {}\n",
            job.input.display(),
            dir.join(format!("{k}.aig")).display()
        ));
    }
    let path = tmp.join("abc_lib.script");
    std::fs::write(&path, script).map_err(|e| Failure::input(e.to_string()))?;
    let r = measure_runs(runs, || {
        let mut c = Command::new("berkeley-abc");
        c.arg("-f").arg(&path);
        c
    })?;
    let written = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
    if written != n {
        return Err(Failure::input(format!(
            "ABC wrote {written} of {n} library AIGs"
        )));
    }
    println!("(ABC library script: {n} files)");
    Ok(r)
}

fn print_row(label: &str, ours: (f64, u64), abc: Option<(f64, u64)>) {
    let mb = |kb: u64| kb as f64 / 1024.0;
    match abc {
        Some((t, r)) => println!(
            "{label:<34} {:>9.3} {:>9.1} {:>9.3} {:>9.1} {:>6.1}x {:>6.2}x",
            ours.0,
            mb(ours.1),
            t,
            mb(r),
            t / ours.0,
            r as f64 / ours.1 as f64
        ),
        None => println!("{label:<34} {:>9.3} {:>9.1}", ours.0, mb(ours.1)),
    }
}
