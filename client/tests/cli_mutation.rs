//! A mutation campaign over the CLI: the samples, mutated with a fixed seed (byte flips,
//! line deletions and duplications, truncations, interesting numbers and widths, stray
//! brackets, swapped op names), and special files, run through `kiln parse`,
//! `kiln build --no-daemon`, `kiln aig` and `kiln synth`. Every run must end by itself
//! within the time limit with exit code 0, 1 or 2 (never a signal: no panic, abort or
//! stack overflow), and every failing run must say where: a `file:line:col: error` or a
//! file-level `file: error`.
//!
//! `KILN_MUTATION_RUNS` (default 5000) and `KILN_MUTATION_SEED` change the campaign; failing
//! inputs are kept under `target/mutation-failures/` with the command that failed.

#[path = "mutation_common/mod.rs"]
mod mutation;
#[path = "../../tests/support/hostile.rs"]
mod support;

use mutation::Rng;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const TIME_LIMIT: Duration = Duration::from_secs(20);

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cmd {
    Parse,
    Build,
    Aig,
    Synth,
}

struct Sample {
    cmd: Cmd,
    ext: &'static str,
    text: Vec<u8>,
}

/// The seed inputs: each group's files, run with each of its commands.
const SAMPLES: &[(&[Cmd], &str, &[&str])] = &[
    (
        &[Cmd::Parse],
        "mlir",
        &[
            "tests/data/mlir/handshake/export_minimal.mlir",
            "tests/data/mlir/handshake/test_Dialect_Handshake_ops.mlir",
            "tests/data/mlir/handshake/test_Dialect_Handshake_types.mlir",
            "tests/data/mlir/aps/circt-cmt2_test_Dialect_Cmt2_gcd.mlir",
            "tests/data/mlir/aps/tests_test_mlir_test_tor_schedule_pass_flow_tor_if_nested.mlir",
            "tests/data/hostile/wide_attr.mlir",
        ],
    ),
    (
        &[Cmd::Build, Cmd::Parse],
        "mlir",
        &[
            "tests/data/aps/flow_burst_add.mlir",
            "tests/data/aps/features.mlir",
        ],
    ),
    (
        &[Cmd::Aig],
        "blif",
        &[
            "tests/data/blif/edge/covers.blif",
            "tests/data/blif/edge/latches.blif",
            "tests/data/blif/edge/subckt.blif",
            "tests/data/blif/edge/pin_loop_hier.blif",
        ],
    ),
    (
        &[Cmd::Synth],
        "mlir",
        &[
            "tests/data/handshake/export_gcd.mlir",
            "tests/data/handshake/export_gcd_ftd.mlir",
            "tests/data/hostile/trunci_wider.mlir",
        ],
    ),
];

fn samples() -> Vec<Sample> {
    let read = |rel: &str| std::fs::read(repo(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let mut out = Vec::new();
    for &(cmds, ext, files) in SAMPLES {
        for rel in files {
            for &cmd in cmds {
                out.push(Sample {
                    cmd,
                    ext,
                    text: read(rel),
                });
            }
        }
    }
    out
}

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "65536",
    "65537",
    "2147483647",
    "2147483648",
    "4294967296",
    "16777215",
    "9223372036854775807",
    "99999999999999999999999",
];
const WIDTHS: &[&str] = &[
    "0", "1", "2", "7", "33", "64", "1024", "1025", "16777215", "99999999",
];
const JUNK: &[&str] = &[
    "{", "}", "(", ")", "<", ">", "[", "]", "%", "\"", ":", ",", "=", "#", "^bb0", "//", "\\",
    "\n", "\0", "\u{ff}",
];

/// Start offsets of the runs of ASCII digits in `t`, with their ends.
fn digit_runs(t: &[u8]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if t[i].is_ascii_digit() {
            let s = i;
            while i < t.len() && t[i].is_ascii_digit() {
                i += 1;
            }
            v.push((s, i));
        } else {
            i += 1;
        }
    }
    v
}

fn line_starts(t: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            t.iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .filter(|&i| i < t.len())
        .collect()
}

fn line_at(t: &[u8], starts: &[usize], k: usize) -> (usize, usize) {
    let s = starts[k];
    let e = starts.get(k + 1).copied().unwrap_or(t.len());
    (s, e)
}

/// One to three mutations of `t`.
fn mutate(rng: &mut Rng, t: &[u8]) -> Vec<u8> {
    let mut t = t.to_vec();
    for _ in 0..1 + rng.below(3) {
        if t.is_empty() {
            break;
        }
        let at = rng.below(t.len());
        match rng.below(9) {
            0 => t[at] = rng.next() as u8,
            1 => {
                let starts = line_starts(&t);
                let (s, e) = line_at(&t, &starts, rng.below(starts.len()));
                t.drain(s..e);
            }
            2 => {
                let starts = line_starts(&t);
                let (s, e) = line_at(&t, &starts, rng.below(starts.len()));
                let line = t[s..e].to_vec();
                let n = 1 + rng.below(3);
                for _ in 0..n {
                    t.splice(s..s, line.iter().copied());
                }
            }
            3 => t.truncate(at),
            4 | 5 => {
                let runs = digit_runs(&t);
                if runs.is_empty() {
                    continue;
                }
                let (s, e) = *rng.pick(&runs);
                // A width after `i`, else a count or value.
                let is_width = s > 0 && t[s - 1] == b'i';
                let n = if is_width {
                    rng.pick(WIDTHS)
                } else {
                    rng.pick(NUMBERS)
                };
                t.splice(s..e, n.bytes());
            }
            6 => {
                let j = rng.pick(JUNK);
                t.splice(at..at, j.bytes());
            }
            7 => {
                // Swap two lines.
                let starts = line_starts(&t);
                let a = line_at(&t, &starts, rng.below(starts.len()));
                let b = line_at(&t, &starts, rng.below(starts.len()));
                let (a, b) = if a.0 <= b.0 { (a, b) } else { (b, a) };
                if a.1 <= b.0 {
                    let mut v = t[..a.0].to_vec();
                    v.extend_from_slice(&t[b.0..b.1]);
                    v.extend_from_slice(&t[a.1..b.0]);
                    v.extend_from_slice(&t[a.0..a.1]);
                    v.extend_from_slice(&t[b.1..]);
                    t = v;
                }
            }
            _ => {
                // Copy a random word over another (op names, SSA names, keywords).
                let words: Vec<(usize, usize)> = {
                    let mut w = Vec::new();
                    let mut i = 0;
                    while i < t.len() {
                        if t[i].is_ascii_alphabetic() {
                            let s = i;
                            while i < t.len()
                                && (t[i].is_ascii_alphanumeric() || t[i] == b'_' || t[i] == b'.')
                            {
                                i += 1;
                            }
                            w.push((s, i));
                        } else {
                            i += 1;
                        }
                    }
                    w
                };
                if words.len() < 2 {
                    continue;
                }
                let (fs, fe) = *rng.pick(&words);
                let word = t[fs..fe].to_vec();
                let (s, e) = *rng.pick(&words);
                t.splice(s..e, word);
            }
        }
    }
    t
}

fn args(cmd: Cmd, input: &Path, out: &Path) -> Vec<String> {
    let i = input.display().to_string();
    let o = out.display().to_string();
    let lib = repo("tests/data/handshake/library").display().to_string();
    let v: Vec<&str> = match cmd {
        Cmd::Parse => vec!["parse", &i],
        Cmd::Build => vec!["build", "--no-daemon", "--out-dir", &o, &i],
        Cmd::Aig => vec!["aig", "--out", &o, &i],
        Cmd::Synth => vec!["synth", "--blif-lib", &lib, "--out-dir", &o, &i],
    };
    v.into_iter().map(String::from).collect()
}

/// Whether `stderr` locates its error: `input:line:col: error` or `input: error`.
fn located(stderr: &str, input: &Path) -> bool {
    let p = input.display().to_string();
    stderr.lines().any(|l| {
        let Some(rest) = l.strip_prefix(&p) else {
            return false;
        };
        if rest.starts_with(": error") {
            return true;
        }
        let mut parts = rest.splitn(4, ':');
        let (_, line, col, tail) = (parts.next(), parts.next(), parts.next(), parts.next());
        let num = |s: Option<&str>| {
            s.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        };
        num(line) && num(col) && tail.is_some_and(|t| t.starts_with(" error"))
    })
}

#[derive(Default, Debug)]
struct Tally {
    runs: usize,
    by_code: [usize; 3],
    signals: usize,
    /// Other exit codes (101: a panic).
    other_codes: usize,
    timeouts: usize,
    unlocated: usize,
    slowest: Duration,
    failures: Vec<String>,
}

/// Run one case; a failure is described (and its input kept) in `tally`.
fn run_case(cmd: Cmd, input: &Path, out: &Path, tally: &Mutex<Tally>, keep: &Path, id: usize) {
    let argv = args(cmd, input, out);
    let t = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(&argv)
        .env("KILN_NO_DAEMON", "1")
        .env_remove("KILN_BLIF_LIB")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kiln");
    let mut timed_out = false;
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            timed_out = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let o = child.wait_with_output().unwrap();
    let took = t.elapsed();
    let stderr = String::from_utf8_lossy(&o.stderr);
    let mut tl = tally.lock().unwrap();
    tl.runs += 1;
    tl.slowest = tl.slowest.max(took);
    let problem = if timed_out {
        tl.timeouts += 1;
        Some(format!("time-out after {TIME_LIMIT:?}"))
    } else {
        match o.status.code() {
            None => {
                tl.signals += 1;
                Some(format!("killed by a signal ({:?})", o.status))
            }
            Some(c @ 0..=2) => {
                tl.by_code[c as usize] += 1;
                if c != 0 && !located(&stderr, input) {
                    tl.unlocated += 1;
                    Some(format!("exit {c} without a located diagnostic"))
                } else {
                    None
                }
            }
            Some(c) => {
                tl.other_codes += 1;
                Some(format!(
                    "exit code {c}{}",
                    if c == 101 { " (a panic)" } else { "" }
                ))
            }
        }
    };
    if let Some(p) = problem
        && tl.failures.len() < 20
    {
        let kept = keep.join(format!(
            "case{id}.{}",
            input
                .extension()
                .map_or("in".into(), |e| e.to_string_lossy())
        ));
        let _ = std::fs::create_dir_all(keep);
        let _ = std::fs::copy(input, &kept);
        let tail: String = stderr.lines().take(6).collect::<Vec<_>>().join("\n");
        tl.failures.push(format!(
            "{p}: kiln {} (input kept as {})\n{tail}",
            argv.join(" "),
            kept.display()
        ));
    }
}

#[test]
fn mutated_inputs_never_crash_hang_or_go_unlocated() {
    let runs: usize = mutation::env_or("KILN_MUTATION_RUNS", 5000);
    let seed = mutation::seed();
    let samples = samples();
    let keep = repo("target/mutation-failures");
    let tally = Mutex::new(Tally::default());
    let next = AtomicUsize::new(0);
    let dir = tempfile::tempdir().unwrap();
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 4);
    let t = Instant::now();
    std::thread::scope(|s| {
        for w in 0..threads {
            let (samples, tally, next, keep) = (&samples, &tally, &next, &keep);
            let wdir = dir.path().join(format!("w{w}"));
            std::fs::create_dir_all(&wdir).unwrap();
            s.spawn(move || {
                loop {
                    let id = next.fetch_add(1, Ordering::Relaxed);
                    if id >= runs {
                        break;
                    }
                    // Each case's mutation depends only on the seed and its number.
                    let mut rng = Rng::for_case(seed, id as u64);
                    let sample = rng.pick(samples);
                    let input = wdir.join(format!("case.{}", sample.ext));
                    let _ = std::fs::remove_file(&input);
                    std::fs::write(&input, mutate(&mut rng, &sample.text)).unwrap();
                    run_case(sample.cmd, &input, &wdir.join("out"), tally, keep, id);
                }
            });
        }
    });
    // Special files: each command must refuse them at once with a file-level error.
    let fifo = dir.path().join("fifo.mlir");
    support::mkfifo(&fifo);
    let empty = dir.path().join("empty.mlir");
    std::fs::write(&empty, "").unwrap();
    let specials = [
        fifo.as_path(),
        Path::new("/dev/zero"),
        Path::new("/dev/urandom"),
        dir.path(),
        Path::new("/nonexistent/x.mlir"),
        empty.as_path(),
    ];
    for (k, input) in specials.iter().enumerate() {
        for cmd in [Cmd::Parse, Cmd::Build, Cmd::Aig, Cmd::Synth] {
            run_case(cmd, input, &dir.path().join("out"), &tally, &keep, runs + k);
        }
    }
    let tl = tally.into_inner().unwrap();
    eprintln!(
        "mutation campaign: {} runs in {:?} (seed {seed:#x}): exit 0: {}, exit 1: {}, exit 2: {}, panics/other codes: {}, signals: {}, time-outs: {}, unlocated: {}, slowest run {:?}",
        tl.runs,
        t.elapsed(),
        tl.by_code[0],
        tl.by_code[1],
        tl.by_code[2],
        tl.other_codes,
        tl.signals,
        tl.timeouts,
        tl.unlocated,
        tl.slowest
    );
    assert!(tl.runs >= runs, "{} runs", tl.runs);
    assert!(
        tl.failures.is_empty(),
        "{} failures, first ones:\n{}",
        tl.failures.len(),
        tl.failures.join("\n\n")
    );
}
