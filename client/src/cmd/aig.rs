//! `kiln aig FILE_OR_DIR... -o OUT_DIR [--format aig|aag|blif] [--jobs N] [--stats] [--json]`.
//!
//! Lowers every model of every BLIF file (directories are walked for `*.blif`, and the tree
//! is mirrored under OUT_DIR) and writes the top model's AIG. Files are processed by a pool of
//! `--jobs` threads; results are reported in input order. Warnings are printed and do not
//! change the exit code; any input error makes the command exit 1.

use crate::io::{self, Failure};
use compiler::aig::{self, Aig};
use compiler::blif;
use compiler::diag::{self, Diagnostic};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Aig,
    Aag,
    Blif,
}

impl Format {
    fn extension(self) -> &'static str {
        match self {
            Format::Aig => "aig",
            Format::Aag => "aag",
            Format::Blif => "blif",
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// BLIF files, or directories to search for `*.blif`.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output directory (the input tree is mirrored below it).
    #[arg(short, long)]
    pub out: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "aig")]
    pub format: Format,
    /// Worker threads (default: available cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Print PI/PO/latch/AND/level counts per file.
    #[arg(long)]
    pub stats: bool,
    /// Print one JSON object per file on stdout (stats and diagnostics).
    #[arg(long)]
    pub json: bool,
}

/// One input file and where its output goes.
pub struct Job {
    pub input: PathBuf,
    pub output: PathBuf,
}

/// What lowering one file produced.
pub struct Outcome {
    pub stats: Option<Stats>,
    /// Rendered diagnostics (warnings, or the error).
    pub rendered: String,
    pub json_diags: Vec<serde_json::Value>,
    pub failed: bool,
}

#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Stats {
    pub pi: usize,
    pub po: usize,
    pub latches: usize,
    pub ands: usize,
    pub levels: u32,
}

impl Stats {
    pub fn of(g: &Aig) -> Stats {
        Stats {
            pi: g.inputs().len(),
            po: g.outputs().len(),
            latches: g.latches().len(),
            ands: g.and_count(),
            levels: g.depth(),
        }
    }
}

pub fn run(args: Args) -> Result<(), Failure> {
    crate::purge_freed_memory_at_once();
    let jobs = collect_jobs(&args.inputs, &args.out, args.format)?;
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(jobs.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {wide_msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let mut failed = 0;
    let lower = |job: &Job| lower_one(job, args.format, args.json || args.stats);
    run_pool(&jobs, threads, lower, |i, o| {
        if let Some(b) = &bar {
            b.inc(1);
            b.suspend(|| report(&jobs[i], &o, &args));
        } else {
            report(&jobs[i], &o, &args);
        }
        failed += o.failed as usize;
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if failed > 0 {
        return Err(Failure::input(format!(
            "{failed} of {} file(s) failed",
            jobs.len()
        )));
    }
    Ok(())
}

/// Print what lowering `job` gave: its diagnostics, and its JSON or statistics line.
fn report(job: &Job, o: &Outcome, args: &Args) {
    eprint!("{}", o.rendered);
    if args.json {
        let v = serde_json::json!({
            "file": job.input.display().to_string(),
            "output": job.output.display().to_string(),
            "ok": !o.failed,
            "stats": o.stats,
            "diagnostics": o.json_diags,
        });
        println!("{v}");
    } else if args.stats
        && let Some(s) = o.stats
    {
        println!(
            "{}: pi={} po={} latch={} and={} lev={}",
            job.input.display(),
            s.pi,
            s.po,
            s.latches,
            s.ands,
            s.levels
        );
    }
}

/// Run `f` over `items` on `threads` worker threads (on this thread when one); `sink` gets
/// each result in input order as soon as it and those before it are done, so that results
/// are not all kept.
pub fn run_pool<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
    mut sink: impl FnMut(usize, R),
) {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        for (i, item) in items.iter().enumerate() {
            sink(i, f(item));
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (tx, next, f) = (tx.clone(), &next, &f);
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    if tx.send((i, f(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut early = std::collections::BTreeMap::new();
        let mut due = 0;
        for (i, r) in rx {
            early.insert(i, r);
            while let Some(r) = early.remove(&due) {
                sink(due, r);
                due += 1;
            }
        }
    });
}

/// The files named by `inputs` (directories walked for `*.blif`, sorted) and their outputs.
pub fn collect_jobs(inputs: &[PathBuf], out: &Path, format: Format) -> Result<Vec<Job>, Failure> {
    let mut jobs = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut files = Vec::new();
            walk(input, &mut files)
                .map_err(|e| Failure::input(format!("{}: error: {e}", input.display())))?;
            files.sort();
            for f in files {
                let rel = f.strip_prefix(input).unwrap_or(&f).to_path_buf();
                jobs.push(Job {
                    output: out.join(rel).with_extension(format.extension()),
                    input: f,
                });
            }
        } else {
            let name = input
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("out"));
            jobs.push(Job {
                output: out.join(name).with_extension(format.extension()),
                input: input.clone(),
            });
        }
    }
    Ok(jobs)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        // The entry's type comes with the directory listing (no extra stat per file).
        let is_dir = entry.file_type().map_or_else(
            |_| path.is_dir(),
            |t| t.is_dir() || (t.is_symlink() && path.is_dir()),
        );
        if is_dir {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "blif") {
            out.push(path);
        }
    }
    Ok(())
}

/// Read, parse, lower and write one file; `detail` adds the statistics and the diagnostics
/// as JSON (for `--stats` and `--json`).
pub fn lower_one(job: &Job, format: Format, detail: bool) -> Outcome {
    let path = job.input.display().to_string();
    let text = match io::read_source(&job.input) {
        Ok(t) => t,
        Err(f) => {
            return Outcome {
                stats: None,
                rendered: f.message.clone(),
                json_diags: vec![
                    serde_json::json!({"file": path, "severity": "error", "message": f.message}),
                ],
                failed: true,
            };
        }
    };
    let mut diags: Vec<Diagnostic> = Vec::new();
    let result = lower_text(&text, &mut diags);
    let mut outcome = Outcome {
        stats: None,
        rendered: diag::render_all(&diags, &path, &text),
        json_diags: if detail {
            diag::to_json_all(&diags, &path, &text)
        } else {
            Vec::new()
        },
        failed: diags.iter().any(Diagnostic::is_error),
    };
    let Some(g) = result else {
        return outcome;
    };
    outcome.stats = detail.then(|| Stats::of(&g));
    // Regenerable bulk outputs: atomic but not fsynced (see io::write_atomic_unsynced).
    if let Err(f) = io::write_atomic_unsynced(&job.output, &encode(&g, format)) {
        outcome.rendered.push_str(&f.message);
        outcome.rendered.push('\n');
        outcome.failed = true;
    }
    outcome
}

/// Parse and lower a BLIF text; diagnostics are appended to `diags`.
pub fn lower_text(text: &str, diags: &mut Vec<Diagnostic>) -> Option<Aig> {
    let parsed = match blif::parse(text) {
        Ok(p) => p,
        Err(e) => {
            diags.push(e);
            return None;
        }
    };
    diags.extend(parsed.warnings);
    match aig::lower_file_owned(parsed.file, &kiln_daemon::input::limits()) {
        Ok(mut lowered) => {
            let top = lowered.top.clone();
            for l in lowered.models.values() {
                diags.extend(l.warnings.iter().cloned());
            }
            lowered.models.remove(&top).map(|l| l.aig)
        }
        Err(e) => {
            diags.push(e);
            None
        }
    }
}

pub fn encode(g: &Aig, format: Format) -> Vec<u8> {
    match format {
        Format::Aig => aig::write_aiger_binary(g),
        Format::Aag => aig::write_aag(g).into_bytes(),
        Format::Blif => aig::write_blif(g).into_bytes(),
    }
}
