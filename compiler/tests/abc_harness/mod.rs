//! ABC (`berkeley-abc`) as an equivalence oracle, batched.
//!
//! ABC exits 0 even when circuits differ or a command fails, so verdicts come from stdout
//! only. Many checks run in one ABC process via a script (`-f`): each check is preceded by
//! `echo KILN_CASE <i>`, so the output splits per case; ABC keeps going after a NOT EQUIVALENT
//! verdict (the `abc_does_not_stop_on_not_equivalent` test checks that) but aborts the script
//! on a command error and may crash, so cases of a chunk without a verdict are re-run one per
//! process. Chunks run on two threads.
#![allow(dead_code)]

use compiler::aig::{self, Aig};
use compiler::blif::{self, Init};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `cec ref ours`: inputs, outputs and latches matched by name.
    Cec,
    /// `miter ref ours; dprove`: sequential check, only PI/PO names must match.
    Dprove,
}

#[derive(Clone, Debug)]
pub struct Case {
    pub reference: PathBuf,
    pub ours: PathBuf,
    pub mode: Mode,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Equivalent,
    /// Anything else, with ABC's output for the case.
    Failed(String),
}

fn command(case: &Case) -> String {
    let (r, o) = (case.reference.display(), case.ours.display());
    match case.mode {
        Mode::Cec => format!("cec {r} {o}"),
        Mode::Dprove => format!("miter {r} {o}; dprove -T 120"),
    }
}

/// Split ABC's stdout into per-case outputs by the `KILN_CASE <i>` markers.
fn split(stdout: &str, n: usize) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = vec![None; n];
    let mut cur: Option<usize> = None;
    for line in stdout.lines() {
        if let Some(rest) = line.trim().strip_prefix("KILN_CASE ") {
            cur = rest.trim().parse().ok().filter(|&i: &usize| i < n);
            if let Some(i) = cur {
                out[i] = Some(String::new());
            }
            continue;
        }
        if let Some(i) = cur
            && let Some(s) = out[i].as_mut()
        {
            s.push_str(line);
            s.push('\n');
        }
    }
    out
}

/// The verdict in one case's output, or `None` when it has none (ABC stopped or crashed).
fn verdict(text: &str, mode: Mode) -> Option<Verdict> {
    let eq = text.lines().any(|l| match mode {
        Mode::Cec => l.starts_with("Networks are equivalent"),
        Mode::Dprove => l.starts_with("Networks are equivalent"),
    });
    let bad = ["NOT EQUIVALENT", "not equivalent", "UNDECIDED", "failed", "Error", "Cannot", "rror"];
    if eq && !bad.iter().any(|b| text.contains(b)) {
        return Some(Verdict::Equivalent);
    }
    if bad.iter().any(|b| text.contains(b)) || eq {
        return Some(Verdict::Failed(text.to_string()));
    }
    None
}

/// Run one ABC script; returns stdout (lossy) and whether ABC exited normally.
fn run_abc(script: &str, dir: &Path, timeout: Duration) -> (String, bool) {
    let path = dir.join(format!("script_{}.abc", std::process::id() as u128 * 1_000_000 + nanos()));
    if std::fs::write(&path, script).is_err() {
        return (String::new(), false);
    }
    let out_path = path.with_extension("out");
    let Ok(out_file) = std::fs::File::create(&out_path) else {
        return (String::new(), false);
    };
    let child = Command::new("berkeley-abc")
        .arg("-f")
        .arg(&path)
        .current_dir(dir)
        .stdout(out_file)
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return (String::new(), false);
    };
    let start = Instant::now();
    let ok = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.success(),
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break false;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break false,
        }
    };
    let bytes = std::fs::read(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&out_path);
    (String::from_utf8_lossy(&bytes).into_owned(), ok)
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() % 1_000_000)
}

fn script(cases: &[&Case]) -> String {
    let mut s = String::new();
    for (i, c) in cases.iter().enumerate() {
        s.push_str(&format!("echo KILN_CASE {i}\n{}\n", command(c)));
    }
    s.push_str(&format!("echo KILN_CASE {}\n", cases.len()));
    s
}

fn run_chunk(cases: &[&Case], dir: &Path, timeout: Duration) -> Vec<Verdict> {
    let (stdout, _) = run_abc(&script(cases), dir, timeout);
    let parts = split(&stdout, cases.len());
    let mut out = Vec::with_capacity(cases.len());
    for (i, c) in cases.iter().enumerate() {
        let v = parts[i].as_deref().and_then(|t| verdict(t, c.mode));
        out.push(match v {
            Some(v) => v,
            None if cases.len() == 1 => {
                Verdict::Failed(format!("no verdict (ABC crashed or timed out):\n{}", parts[i].clone().unwrap_or_default()))
            }
            None => run_chunk(&[c], dir, timeout).remove(0),
        });
    }
    out
}

/// Check all cases, `chunk` per ABC process, on two threads. Results in case order.
pub fn check_all(cases: &[Case], chunk: usize, dir: &Path, timeout: Duration) -> Vec<Verdict> {
    let chunks: Vec<Vec<&Case>> = cases.chunks(chunk.max(1)).map(|c| c.iter().collect()).collect();
    let results: Mutex<BTreeMap<usize, Vec<Verdict>>> = Mutex::new(BTreeMap::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(c) = chunks.get(i) else { break };
                    let v = run_chunk(c, dir, timeout);
                    results.lock().unwrap().insert(i, v);
                }
            });
        }
    });
    results.into_inner().unwrap().into_values().flatten().collect()
}

/// Parse and lower a BLIF file; the top model's AIG and the undriven net names of all models.
pub fn lower_path(path: &Path) -> Result<(Aig, Vec<String>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let parsed = blif::parse(&text).map_err(|d| d.render(&path.display().to_string(), &text))?;
    let lowered = aig::lower_file(&parsed.file).map_err(|d| d.render(&path.display().to_string(), &text))?;
    let undriven = lowered.models.values().flat_map(|l| l.undriven.clone()).collect();
    Ok((lowered.top().aig.clone(), undriven))
}

/// The BLIF text cut before `.exdc` (ABC's `cec` asserts on EXDC networks).
pub fn care_network(text: &str) -> String {
    match text.find("\n.exdc") {
        Some(at) => format!("{}\n.end\n", &text[..at]),
        None => text.to_string(),
    }
}

/// Latch inits as ABC reads them: `ref.aig` written by ABC (`write_aiger -s`), read back;
/// compared by name with ours (2 and 3 both mean "uninitialized" in AIGER). Returns the
/// mismatches.
pub fn init_mismatches(reference: &Path, ours: &Aig, dir: &Path) -> Result<Vec<String>, String> {
    if ours.latches().is_empty() {
        return Ok(Vec::new());
    }
    let out = dir.join(format!("abcref_{}.aig", nanos()));
    let cmd = format!("read_blif {}; strash; write_aiger -s {}", reference.display(), out.display());
    let o = Command::new("berkeley-abc").args(["-c", &cmd]).output().map_err(|e| e.to_string())?;
    let bytes = std::fs::read(&out).map_err(|e| format!("ABC wrote no AIG: {e}\n{}", String::from_utf8_lossy(&o.stdout)))?;
    let _ = std::fs::remove_file(&out);
    let theirs = aig::read_aiger(&bytes).map_err(|d| d.message)?;
    let norm = |i: Init| if i == Init::DontCare { Init::Unknown } else { i };
    let abc: BTreeMap<&str, Init> = theirs.latches().iter().map(|l| (l.name.as_str(), norm(l.init))).collect();
    let mut bad = Vec::new();
    for l in ours.latches() {
        match abc.get(l.name.as_str()) {
            Some(&i) if i == norm(l.init) => {}
            other => bad.push(format!("latch {}: ours {:?}, ABC {other:?}", l.name, l.init)),
        }
    }
    Ok(bad)
}
