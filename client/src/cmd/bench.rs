//! `kiln bench <area>`: benchmarks, one variant per area.
//!
//! `kiln bench parse [FILE] [--mb N]`: MLIR parsing throughput (see `bench_parse`).
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
    /// MLIR parsing throughput in MB/s.
    Parse(super::bench_parse::ParseArgs),
    /// Daemon latency: cold build, warm no-op, one-function and one-BLIF-file edits.
    Daemon(super::bench_daemon::Args),
    /// BLIF→AIG: kiln vs ABC (`--abc`) on blif_bench and the Dynamatic library.
    Aig(AigArgs),
    /// Cold `kiln build` of a generated APS module, with an in-process phase breakdown.
    Aps(super::bench_aps::Args),
    /// Editor latency: `didChange` → `publishDiagnostics` through `kiln lsp`.
    Lsp(super::bench_lsp::Args),
    /// Generated hardware: cycles per APS instruction (slot, DMA, overhead), per loop
    /// iteration, and yosys cells; `--kiln BEFORE` for a before/after table.
    Qor(super::bench_qor::Args),
    /// Lower one file or directory and write AIGER (the measured child process of `bench aig`).
    #[command(hide = true)]
    AigOne {
        input: PathBuf,
        out: PathBuf,
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// Print the read/parse/lower/write phase times of a single file on stderr.
        #[arg(long)]
        phases: bool,
        /// Write `OUT/<k>.aig` for the k-th file instead of mirroring the tree (as the ABC
        /// script does).
        #[arg(long)]
        flat: bool,
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
    /// Skip the single-file runs.
    #[arg(long)]
    pub no_files: bool,
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
        Bench::Parse(args) => super::bench_parse::run(args),
        Bench::Daemon(args) => super::bench_daemon::run(args),
        Bench::Aig(args) => bench_aig(args),
        Bench::Aps(args) => super::bench_aps::run(args),
        Bench::Lsp(args) => super::bench_lsp::run(args),
        Bench::Qor(args) => super::bench_qor::run(args),
        Bench::AigOne {
            input,
            out,
            phases: true,
            ..
        } => phases(&input, &out),
        Bench::AigOne {
            input,
            out,
            jobs,
            flat,
            ..
        } => aig_one(&input, &out, jobs, flat),
    }
}

fn aig_one(input: &Path, out: &Path, jobs: usize, flat: bool) -> Result<(), Failure> {
    let jobs_list = if input.is_dir() {
        let mut list = aigcmd::collect_jobs(&[input.to_path_buf()], out, Format::Aig)?;
        if flat {
            for (k, j) in list.iter_mut().enumerate() {
                j.output = out.join(format!("{k}.aig"));
            }
        }
        list
    } else {
        vec![Job {
            input: input.to_path_buf(),
            output: out.to_path_buf(),
        }]
    };
    let outcomes = aigcmd::run_pool(&jobs_list, jobs, |j| {
        aigcmd::lower_one(j, Format::Aig, false)
    });
    let failed = outcomes.iter().filter(|o| o.failed).count();
    if failed > 0 {
        return Err(Failure::input(format!("{failed} file(s) failed")));
    }
    Ok(())
}

/// One file, phase by phase (for profiling; not used by the timed runs).
fn phases(input: &Path, out: &Path) -> Result<(), Failure> {
    let t0 = Instant::now();
    let text = crate::io::read_source(input)?;
    let t1 = Instant::now();
    let parsed =
        compiler::blif::parse(&text).map_err(|d| Failure::diagnostics(&[d], "input", &text))?;
    let t2 = Instant::now();
    let lowered = compiler::aig::lower_file(&parsed.file)
        .map_err(|d| Failure::diagnostics(&[d], "input", &text))?;
    let t3 = Instant::now();
    let bytes = compiler::aig::write_aiger_binary(&lowered.top().aig);
    crate::io::write_atomic(out, &bytes)?;
    let t4 = Instant::now();
    let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
    eprintln!(
        "read {:.1} ms, parse {:.1} ms, lower {:.1} ms, write {:.1} ms",
        ms(t0, t1),
        ms(t1, t2),
        ms(t2, t3),
        ms(t3, t4)
    );
    Ok(())
}

/// One measured run: wall seconds, CPU seconds (user + system), peak RSS in KB.
#[derive(Clone, Copy)]
pub(super) struct Sample {
    pub wall: f64,
    pub cpu: f64,
    pub rss: u64,
}

/// Wall and CPU seconds and peak RSS of one child process; fails on a non-zero exit.
fn measure(cmd: &mut Command) -> Result<Sample, Failure> {
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
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Ok(Sample {
        wall: secs,
        cpu: tv(ru.ru_utime) + tv(ru.ru_stime),
        rss: ru.ru_maxrss as u64,
    })
}

/// Median wall and CPU time and maximum peak RSS over `runs` runs.
pub(super) fn measure_runs(
    runs: usize,
    mut make: impl FnMut() -> Command,
) -> Result<Sample, Failure> {
    let mut samples = Vec::new();
    for _ in 0..runs.max(1) {
        samples.push(measure(&mut make())?);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Ok(Sample {
        wall: median(samples.iter().map(|s| s.wall).collect()),
        cpu: median(samples.iter().map(|s| s.cpu).collect()),
        rss: samples.iter().map(|s| s.rss).max().unwrap_or(0),
    })
}

/// A temporary directory for inputs and outputs of measured runs: on tmpfs (`/dev/shm`)
/// when `tmpfs` is set and there is one, else in the system temporary directory.
pub(super) fn scratch_dir(tmpfs: bool) -> Result<tempfile::TempDir, Failure> {
    let shm = Path::new("/dev/shm");
    let tmp = if tmpfs && shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    };
    tmp.map_err(|e| Failure::input(e.to_string()))
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
    // Outputs of both tools go to tmpfs when there is one: on a disk file system, inode
    // allocation for thousands of new files dominates both tools' run time and varies with
    // the file system's history.
    let tmp = scratch_dir(true)?;
    println!("outputs in {}", tmp.path().display());
    let out = tmp.path().join("out.aig");
    println!(
        "{:<34} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "input", "kiln s", "cpu s", "MB", "abc s", "cpu s", "MB", "wall", "cpu", "mem"
    );
    for rel in FILES.iter().filter(|_| !args.no_files) {
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
    let abc = if args.abc {
        Some(abc_library(args.runs, &files, tmp)?)
    } else {
        None
    };
    let mut run = 0;
    // `flat` writes `<k>.aig` into one directory, as the ABC script does; `tree` mirrors the
    // library's directory tree (what `kiln aig` does), which adds ~9,600 mkdirs.
    for (jobs, flat) in [(1, true), (args.jobs, true), (1, false), (args.jobs, false)] {
        let ours = measure_runs(args.runs, || {
            // A fresh output directory per run, so that no run skips unchanged outputs.
            run += 1;
            let mut c = Command::new(me);
            c.args(["bench", "aig-one"])
                .arg(&lib)
                .arg(tmp.join(format!("kiln_lib{run}")));
            c.args(["--jobs", &jobs.to_string()]);
            if flat {
                c.arg("--flat");
            }
            c
        })?;
        let layout = if flat { "flat" } else { "tree" };
        let label = format!("library {} files, {jobs}j, {layout}", files.len());
        print_row(&label, ours, abc);
    }
    Ok(())
}

/// One ABC process over the whole library (minus the logic-free black boxes ABC crashes on).
fn abc_library(runs: usize, files: &[Job], tmp: &Path) -> Result<Sample, Failure> {
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

fn print_row(label: &str, ours: Sample, abc: Option<Sample>) {
    let mb = |kb: u64| kb as f64 / 1024.0;
    let mut line = format!(
        "{label:<34} {:>7.3} {:>7.3} {:>7.1}",
        ours.wall,
        ours.cpu,
        mb(ours.rss)
    );
    if let Some(a) = abc {
        line += &format!(
            " {:>7.3} {:>7.3} {:>7.1} {:>6.1}x {:>6.1}x {:>6.2}x",
            a.wall,
            a.cpu,
            mb(a.rss),
            a.wall / ours.wall,
            a.cpu / ours.cpu,
            a.rss as f64 / ours.rss as f64
        );
    }
    println!("{line}");
}
