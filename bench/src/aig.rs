//! `kiln bench <area>`: benchmarks, one variant per area.
//!
//! `kiln bench parse [FILE] [--mb N]`: MLIR parsing throughput (see `bench_parse`).
//!
//! `kiln bench aig [--abc]` measures BLIF→AIGER (read + parse + lower + write binary AIGER) on
//! the big files of the shared `blif_bench/`, on generated model hierarchies (chains of 10k,
//! 40k and 100k models, each instantiating the next) and on the whole Dynamatic unit library,
//! and with `--abc` the same job done by `berkeley-abc -c "read_blif F; strash; write_aiger
//! out.aig"` in the same run (not on the chains: ABC's hierarchical reader overflows a buffer
//! on them). Every measurement is a child process (kiln runs itself as `kiln bench aig-one`),
//! timed by wall clock, with CPU time from `wait4`'s rusage and the peak RSS of the process
//! itself (see [`measure`]), so both tools are measured the same way, start-up included.
//! The median of `--runs` runs is shown.

use crate::cmd::aig::{self as aigcmd, Format, Job};
use crate::io::Failure;
use std::os::unix::process::CommandExt;
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
        /// INPUT lists the input files, one path a line (as the ABC script does); implies
        /// `--flat`.
        #[arg(long)]
        list: bool,
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
            list,
            ..
        } => aig_one(&input, &out, jobs, flat, list),
    }
}

fn aig_one(input: &Path, out: &Path, jobs: usize, flat: bool, list: bool) -> Result<(), Failure> {
    if list || input.is_dir() {
        crate::purge_freed_memory_at_once();
    }
    let mut failed = 0;
    if list {
        // Each file's job made when it is lowered, as ABC reads its script a line at a
        // time: only the list's text and its line index are held (a `Job` each was 0.8 MB).
        let text = crate::io::read_source(input)?;
        let lines: Vec<(usize, &str)> = text.lines().enumerate().collect();
        let lower = |&(k, line): &(usize, &str)| {
            let job = Job {
                input: PathBuf::from(line),
                output: out.join(format!("{k}.aig")),
            };
            aigcmd::lower_one(&job, Format::Aig, None, false)
        };
        compiler::par::for_each(jobs, &lines, lower, |_, o| failed += o.failed as usize);
    } else {
        let jobs_list = jobs_of(input, out, flat)?;
        let lower = |j: &Job| aigcmd::lower_one(j, Format::Aig, None, false);
        compiler::par::for_each(jobs, &jobs_list, lower, |_, o| failed += o.failed as usize);
    }
    if failed > 0 {
        return Err(Failure::input(format!("{failed} file(s) failed")));
    }
    Ok(())
}

/// The jobs of `kiln bench aig-one` on a directory (outputs mirrored, or numbered when
/// `flat`) or one file.
fn jobs_of(input: &Path, out: &Path, flat: bool) -> Result<Vec<Job>, Failure> {
    Ok(if input.is_dir() {
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
    })
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
///
/// The peak RSS is the child's own: its `VmHWM` read at its exit, where the child stops
/// for its tracer (`PTRACE_O_TRACEEXIT`). `wait4`'s `ru_maxrss` will not do: at `exec` the
/// kernel keeps the peak of the memory the child had before, which for a spawned child is
/// its parent's (a 40 MB parent makes `/bin/true` a 40 MB process), so every child of
/// this bench would count the bench's own peak.
fn measure(cmd: &mut Command) -> Result<Sample, Failure> {
    // SAFETY: runs in the forked child before exec; PTRACE_TRACEME takes no pointers and
    // only asks to be traced by the parent (which then sees the exec and the exit).
    unsafe {
        cmd.pre_exec(|| match libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) {
            -1 => Err(std::io::Error::last_os_error()),
            _ => Ok(()),
        });
    }
    let start = Instant::now();
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Failure::input(format!("cannot run {cmd:?}: {e}")))?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain old data; wait4 fills it for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let mut peak = None;
    loop {
        // SAFETY: pid is our child, status and ru are valid out-pointers.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r != pid {
            return Err(Failure::input(format!("{cmd:?}: wait4 failed")));
        }
        if !libc::WIFSTOPPED(status) {
            break;
        }
        let event = status >> 16;
        let mut deliver = 0;
        if event == libc::PTRACE_EVENT_EXIT {
            peak = vm_hwm(pid);
        } else if libc::WSTOPSIG(status) == libc::SIGTRAP && peak.is_none() && event == 0 {
            // The stop after exec: be told of the exit, and kill the child if we die.
            let opts = libc::PTRACE_O_TRACEEXIT | libc::PTRACE_O_EXITKILL;
            // SAFETY: PTRACE_SETOPTIONS on our stopped tracee takes the options as data.
            unsafe { libc::ptrace(libc::PTRACE_SETOPTIONS, pid, 0, opts) };
        } else {
            deliver = libc::WSTOPSIG(status);
        }
        // SAFETY: PTRACE_CONT on our stopped tracee; data is the signal to deliver.
        unsafe { libc::ptrace(libc::PTRACE_CONT, pid, 0, deliver) };
    }
    let secs = start.elapsed().as_secs_f64();
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Err(Failure::input(format!(
            "{cmd:?} failed (wait status {status})"
        )));
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Ok(Sample {
        wall: secs,
        cpu: tv(ru.ru_utime) + tv(ru.ru_stime),
        rss: peak.ok_or_else(|| Failure::input(format!("{cmd:?}: no peak RSS at exit")))?,
    })
}

/// The peak RSS (`VmHWM`, KB) of process `pid`.
fn vm_hwm(pid: libc::pid_t) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Median wall and CPU time and maximum peak RSS over `runs` runs.
pub(super) fn measure_runs(
    runs: usize,
    mut make: impl FnMut() -> Command,
) -> Result<Sample, Failure> {
    let mut all = measure_rounds(runs, 1, |_| make())?;
    Ok(all.remove(0))
}

/// [`measure_runs`] of the commands `make(0)` to `make(n - 1)`, in `runs` rounds where they
/// take turns: a drift of the machine's speed (a shared machine's moves by a third within
/// minutes) falls on all of them alike, and their ratios hold.
fn measure_rounds(
    runs: usize,
    n: usize,
    mut make: impl FnMut(usize) -> Command,
) -> Result<Vec<Sample>, Failure> {
    let mut samples = vec![Vec::new(); n];
    for _ in 0..runs.max(1) {
        for (i, samples) in samples.iter_mut().enumerate() {
            samples.push(measure(&mut make(i))?);
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Ok(samples
        .into_iter()
        .map(|samples: Vec<Sample>| Sample {
            wall: median(samples.iter().map(|s| s.wall).collect()),
            cpu: median(samples.iter().map(|s| s.cpu).collect()),
            rss: samples.iter().map(|s| s.rss).max().unwrap_or(0),
        })
        .collect())
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

/// The ops the edit benchmarks turn one into the next of, in a cycle.
pub(super) const EDIT_CYCLE: [&str; 3] = ["tor.addi", "tor.subi", "tor.muli"];

/// The first op of [`EDIT_CYCLE`] at or after byte `start` of `text`: its offset and its
/// index in the cycle.
pub(super) fn first_cycle_op(text: &str, start: usize) -> Option<(usize, usize)> {
    EDIT_CYCLE
        .iter()
        .enumerate()
        .filter_map(|(i, op)| text[start..].find(op).map(|k| (start + k, i)))
        .min()
}

/// A duration in milliseconds.
pub(super) fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
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
    println!("{LEGEND}");
    println!(
        "{:<34} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "input", "kiln s", "cpu s", "kiln MB", "abc s", "cpu s", "abc MB", "wall", "cpu", "mem"
    );
    for rel in FILES.iter().filter(|_| !args.no_files) {
        let file = shared.join("blif_bench").join(rel);
        let ours = || {
            let mut c = Command::new(&me);
            c.args(["bench", "aig-one"]).arg(&file).arg(&out);
            c
        };
        let script = format!(
            "read_blif {}; strash; write_aiger {}",
            file.display(),
            tmp.path().join("abc.aig").display()
        );
        let abc = || {
            let mut c = Command::new("berkeley-abc");
            c.args(["-c", &script]);
            c
        };
        if args.abc {
            let m = measure_rounds(args.runs, 2, |i| if i == 0 { ours() } else { abc() })?;
            print_row(rel, m[0], Some(m[1]));
        } else {
            print_row(rel, measure_runs(args.runs, ours)?, None);
        }
    }
    for n in CHAINS.iter().filter(|_| !args.no_files) {
        let file = tmp.path().join(format!("chain{n}.blif"));
        std::fs::write(&file, compiler::blif::generate::and_chain(*n))
            .map_err(|e| Failure::input(e.to_string()))?;
        let ours = measure_runs(args.runs, || {
            let mut c = Command::new(&me);
            c.args(["bench", "aig-one"]).arg(&file).arg(&out);
            c
        })?;
        print_row(&format!("chain of {n} models (generated)"), ours, None);
    }
    if !args.no_library {
        bench_library(&args, &shared, &me, tmp.path())?;
    }
    Ok(())
}

/// What the columns of `kiln bench aig` mean.
const LEGEND: &str = "\
kiln s / abc s: median wall time of a run (child process, start-up and output included);
cpu s: its user + system CPU time; kiln MB / abc MB: the largest peak RSS of the runs.
ratios are ABC / kiln: wall and cpu > 1 when kiln is faster, mem > 1 when kiln uses less
memory; the runs of a row (of all library rows) take turns with ABC's. Chains: model i
instantiates model i + 1 and ANDs its output with an input, one AND per level (ABC's
hierarchical reader overflows a buffer on them: kiln only). Library `list`: both tools
given the list of files, outputs in one directory; `walk`: `kiln aig DIR` (directories
walked, the tree mirrored) against the same ABC run.";

/// Model counts of the generated hierarchy chains.
const CHAINS: &[usize] = &[10_000, 40_000, 100_000];

fn bench_library(args: &AigArgs, shared: &Path, me: &Path, tmp: &Path) -> Result<(), Failure> {
    let lib = shared.join("dynamatic_blif/library");
    let files = aigcmd::collect_jobs(
        std::slice::from_ref(&lib),
        &tmp.join("kiln_lib"),
        Format::Aig,
    )?;
    // Both tools given the list of files (ABC in its script, kiln in a file), outputs
    // `<k>.aig` in one directory; then `kiln aig DIR` as users run it: the directory walked
    // and its tree mirrored (~9,600 directories read and made).
    let list = tmp.join("library.list");
    let paths: Vec<String> = files
        .iter()
        .map(|j| j.input.display().to_string())
        .collect();
    std::fs::write(&list, paths.join("\n")).map_err(|e| Failure::input(e.to_string()))?;
    let configs = [(1, false), (args.jobs, false), (1, true), (args.jobs, true)];
    let abc = args.abc.then(|| AbcLibrary::new(&files, tmp)).transpose()?;
    let mut run = 0;
    let commands = configs.len() + abc.is_some() as usize;
    let samples = measure_rounds(args.runs, commands, |i| {
        let Some(&(jobs, walk)) = configs.get(i) else {
            // Past kiln's configurations: ABC's run (counted only when there is ABC).
            return abc
                .as_ref()
                .map_or_else(|| Command::new("true"), AbcLibrary::command);
        };
        // A fresh output directory per run, so that no run skips unchanged outputs.
        run += 1;
        let mut c = Command::new(me);
        c.args(["bench", "aig-one"])
            .arg(if walk { &lib } else { &list })
            .arg(tmp.join(format!("kiln_lib{run}")));
        c.args(["--jobs", &jobs.to_string()]);
        if !walk {
            c.arg("--list");
        }
        c
    })?;
    let abc_sample = match &abc {
        Some(a) => Some(a.check(samples[configs.len()])?),
        None => None,
    };
    for (&(jobs, walk), &sample) in configs.iter().zip(&samples) {
        let how = if walk { "walk" } else { "list" };
        let label = format!("library {} files, {jobs}j, {how}", files.len());
        print_row(&label, sample, abc_sample);
    }
    Ok(())
}

/// One ABC process over the whole library (minus the logic-free black boxes ABC crashes on).
struct AbcLibrary {
    script: PathBuf,
    dir: PathBuf,
    files: usize,
}

impl AbcLibrary {
    fn new(files: &[Job], tmp: &Path) -> Result<AbcLibrary, Failure> {
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
        Ok(AbcLibrary {
            script: path,
            dir,
            files: n,
        })
    }

    fn command(&self) -> Command {
        let mut c = Command::new("berkeley-abc");
        c.arg("-f").arg(&self.script);
        c
    }

    /// `sample`, once ABC's outputs are all there.
    fn check(&self, sample: Sample) -> Result<Sample, Failure> {
        let written = std::fs::read_dir(&self.dir).map(|d| d.count()).unwrap_or(0);
        if written != self.files {
            return Err(Failure::input(format!(
                "ABC wrote {written} of {} library AIGs",
                self.files
            )));
        }
        println!("(ABC library script: {} files)", self.files);
        Ok(sample)
    }
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
