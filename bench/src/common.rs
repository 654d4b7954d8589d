//! What the benchmarks share: the error they end with, the `kiln` binary they drive, the
//! measurement of a child process (wall, CPU, peak RSS), scratch directories, and the edit
//! cycle of the edit benchmarks. A leaf: it names no other module of the crate.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// A failed benchmark: the message to print on stderr, and the exit code.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub code: i32,
}

impl Failure {
    /// A failed run or a bad input (exit code 1).
    pub fn input(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 1,
        }
    }

    /// A usage error (exit code 2).
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            code: 2,
            ..Failure::input(message)
        }
    }

    /// Diagnostics on `text` (the file `path`), rendered.
    pub fn diagnostics(diags: &[compiler::diag::Diagnostic], path: &str, text: &str) -> Failure {
        Failure::input(compiler::diag::render_all(diags, path, text))
    }
}

/// Any error, as an input failure.
pub fn fail(e: impl std::fmt::Display) -> Failure {
    Failure::input(format!("error: {e}"))
}

/// The `kiln` binary a benchmark drives: `flag` (`--kiln BIN`, where the benchmark has it),
/// else the `kiln` next to this executable (`cargo build --release --workspace` puts them
/// side by side); refused when there is none.
pub fn kiln_binary(flag: Option<&Path>) -> Result<PathBuf, Failure> {
    if let Some(bin) = flag {
        return Ok(bin.to_path_buf());
    }
    let exe = std::env::current_exe().map_err(fail)?;
    let sibling = exe.with_file_name("kiln");
    if sibling.is_file() {
        return Ok(sibling);
    }
    Err(Failure::usage(format!(
        "error: kiln-bench drives the `kiln` binary next to it, and there is no {} \
         (build both: `cargo build --release --workspace`; benchmarks with --kiln BIN take \
         another one)",
        sibling.display()
    )))
}

/// Read a UTF-8 text file.
pub fn read_text(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path).map_err(|e| Failure::input(format!("{}: {e}", path.display())))
}

/// Write the concatenation of `parts` to `path` through the project's one writer
/// ([`kiln_daemon::build::write_atomic`], as `kiln` writes its outputs).
pub fn write_parts<P: AsRef<[u8]>>(path: &Path, parts: &[P]) -> Result<(), Failure> {
    kiln_daemon::build::write_atomic(path, parts)
        .map(|_| ())
        .map_err(fail)
}

/// [`write_parts`] of one buffer.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    write_parts(path, &[bytes])
}

/// One measured run: wall seconds, CPU seconds (user + system), peak RSS in KB.
#[derive(Clone, Copy)]
pub struct Sample {
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
pub fn measure(cmd: &mut Command) -> Result<Sample, Failure> {
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
pub fn measure_runs(runs: usize, mut make: impl FnMut() -> Command) -> Result<Sample, Failure> {
    let mut all = measure_rounds(runs, 1, |_| make())?;
    Ok(all.remove(0))
}

/// [`measure_runs`] of the commands `make(0)` to `make(n - 1)`, in `runs` rounds where they
/// take turns: a drift of the machine's speed (a shared machine's moves by a third within
/// minutes) falls on all of them alike, and their ratios hold.
pub fn measure_rounds(
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
pub fn scratch_dir(tmpfs: bool) -> Result<tempfile::TempDir, Failure> {
    let shm = Path::new("/dev/shm");
    let tmp = if tmpfs && shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    };
    tmp.map_err(|e| Failure::input(e.to_string()))
}

/// The ops the edit benchmarks turn one into the next of, in a cycle.
pub const EDIT_CYCLE: [&str; 3] = ["tor.addi", "tor.subi", "tor.muli"];

/// The first op of [`EDIT_CYCLE`] at or after byte `start` of `text`: its offset and its
/// index in the cycle.
pub fn first_cycle_op(text: &str, start: usize) -> Option<(usize, usize)> {
    EDIT_CYCLE
        .iter()
        .enumerate()
        .filter_map(|(i, op)| text[start..].find(op).map(|k| (start + k, i)))
        .min()
}

/// A duration in milliseconds.
pub fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The shared corpus: `arg`, else `$KILN_SHARED_DIR`, else `../shared`.
pub fn shared_dir(arg: Option<PathBuf>) -> PathBuf {
    arg.or_else(|| std::env::var_os("KILN_SHARED_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("../shared"))
}
