//! `kiln aig FILE_OR_DIR... [-o OUT_DIR] [--format aig|aag|blif] [--top MODEL] [-j N]
//! [--stats] [--json]`.
//!
//! Lowers every model of every BLIF file (directories are walked for `*.blif`, and the tree
//! is mirrored under OUT_DIR) and writes the top model's AIG: the first model, or `--top`'s. Files are processed by a pool of
//! `--jobs` threads ([`compiler::par`]); results are reported in input order. Warnings are printed and do not
//! change the exit code; any input error makes the command exit 1. A run ends as `kiln
//! build`'s does: on success one summary line on stderr (`Lowered 3 files in 4.1 ms; 2
//! warnings`, none with `-q`), on failure the closing line (`could not lower 1 of 3 inputs`).

use crate::diagnostics;
use crate::io::{self, Failure};
use compiler::aig::{self, Aig};
use compiler::blif;
use compiler::diag::{self, Code, Diagnostic, Located};
use compiler::flow::Flow;
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

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
#[command(after_help = "Examples:
  kiln aig design.blif                          out/design.aig
  kiln aig netlists/ -o aig --format aag        every .blif below, tree mirrored
  kiln aig top.blif --stats                     PI/PO/latch/AND/level counts
  kiln aig cells.blif --top alu                 model alu as the top, not the first
  kiln aig lib/ --json | jq .stats              one JSON object per file")]
pub struct Args {
    /// BLIF files, or directories to search for `*.blif`.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub out: super::args::OutDir,
    /// Output format.
    #[arg(long, value_enum, default_value = "aig")]
    pub format: Format,
    /// The model to lower as the top (default: the file's first model, as BLIF defines).
    #[arg(long, value_name = "MODEL")]
    pub top: Option<String>,
    /// Files lowered at once (default: `jobs` of kiln.toml, else available cores), as
    /// `kiln build -j`.
    #[arg(short = 'j', long, value_name = "N", value_parser = super::args::jobs)]
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
    /// Its diagnostics (warnings, or the error), located and coded.
    pub messages: Vec<Located>,
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
    let start = std::time::Instant::now();
    let out = args.out.resolve()?;
    let jobs = collect_jobs(&args.inputs, &out, args.format)?;
    if jobs.len() > 1 {
        crate::purge_freed_memory_at_once();
    }
    let threads = args
        .jobs
        .or_else(|| crate::config::get().jobs())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(jobs.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {wide_msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let mut tally = diagnostics::Tally::default();
    let mut failed = 0;
    let top = args.top.as_deref();
    let lower = |job: &Job| lower_one(job, args.format, top, args.json || args.stats);
    compiler::par::for_each(threads, &jobs, lower, |i, o| {
        match &bar {
            Some(b) => {
                b.inc(1);
                b.suspend(|| report(&jobs[i], &o, &args, &mut tally));
            }
            None => report(&jobs[i], &o, &args, &mut tally),
        }
        failed += o.failed as usize;
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let files: Vec<PathBuf> = jobs.iter().map(|j| j.input.clone()).collect();
    tally.close("lower", &diagnostics::inputs_failed(&files, failed))?;
    diagnostics::status("Lowered", &summary(jobs.len(), start.elapsed(), &tally));
    Ok(())
}

/// `3 files in 4.1 ms; 2 warnings`: the summary line of a run that lowered every file.
fn summary(files: usize, took: std::time::Duration, tally: &diagnostics::Tally) -> String {
    let mut line = format!(
        "{} in {:.1} ms",
        diagnostics::plural(files, "file"),
        took.as_secs_f64() * 1e3
    );
    if tally.warnings > 0 {
        line.push_str(&format!(
            "; {}",
            diagnostics::plural(tally.warnings, "warning")
        ));
    }
    line
}

/// Show what lowering `job` gave: its diagnostics, and its JSON or statistics line.
fn report(job: &Job, o: &Outcome, args: &Args, tally: &mut diagnostics::Tally) {
    if args.json {
        let diags: Vec<serde_json::Value> = o.messages.iter().map(Located::to_json).collect();
        let v = serde_json::json!({
            "file": job.input.display().to_string(),
            "output": job.output.display().to_string(),
            "ok": !o.failed,
            "stats": o.stats,
            "diagnostics": diags,
        });
        outln!("{v}");
        o.messages.iter().for_each(|m| tally.count(m));
        return;
    }
    tally.show_all(&o.messages);
    if args.stats
        && let Some(s) = o.stats
    {
        outln!(
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

/// The files named by `inputs` (directories walked for `*.blif` by the project's one
/// walker, [`kiln_daemon::request::walk`], sorted, the tree mirrored) and their outputs. Two
/// inputs that would write one output, and paths that cannot be walked (a symbolic link
/// loop), are errors before anything is lowered.
pub fn collect_jobs(inputs: &[PathBuf], out: &Path, format: Format) -> Result<Vec<Job>, Failure> {
    let mut jobs = Vec::new();
    let mut errors = Vec::new();
    let out_abs = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    for input in inputs {
        if !input.is_dir() {
            let name = input
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("out"));
            jobs.push(Job {
                output: out.join(name).with_extension(format.extension()),
                input: input.clone(),
            });
            continue;
        }
        let root = std::path::absolute(input).unwrap_or_else(|_| input.clone());
        let is_blif = |p: &Path| p.extension().is_some_and(|e| e == "blif");
        for found in kiln_daemon::request::walk(&root, &[&out_abs], is_blif) {
            let rel = found
                .path
                .strip_prefix(&root)
                .unwrap_or(&found.path)
                .to_path_buf();
            let shown = input.join(&rel);
            match found.error {
                Some(mut e) => {
                    e.path = shown.display().to_string();
                    errors.push(e);
                }
                None => jobs.push(Job {
                    output: out.join(rel).with_extension(format.extension()),
                    input: shown,
                }),
            }
        }
    }
    let mut first: HashMap<&Path, &Path> = HashMap::new();
    for job in &jobs {
        let by = *first.entry(&job.output).or_insert(&job.input);
        if by != job.input {
            let message = format!(
                "output `{}` would also be written from `{}`",
                job.output.display(),
                by.display()
            );
            errors.push(io::file_error(&job.input, Code::OutputCollision, message));
        }
    }
    match errors.is_empty() {
        true => Ok(jobs),
        false => Err(Failure::located(errors)),
    }
}

/// Read, parse, lower (with model `top` as the top, if given) and write one file; `detail`
/// adds the statistics (for `--stats` and `--json`).
pub fn lower_one(job: &Job, format: Format, top: Option<&str>, detail: bool) -> Outcome {
    let path = job.input.display().to_string();
    let text = match io::read_source(&job.input) {
        Ok(t) => t,
        Err(f) => {
            return Outcome {
                stats: None,
                messages: f.located,
                failed: true,
            };
        }
    };
    let mut diags: Vec<Diagnostic> = Vec::new();
    let result = lower_text(&text, top, &mut diags);
    let mut outcome = Outcome {
        stats: None,
        messages: diag::locate_all(&diags, &path, &text)
            .into_iter()
            .map(|m| Flow::Blif.coded_located(m))
            .collect(),
        failed: diags.iter().any(Diagnostic::is_error),
    };
    let Some(g) = result else {
        return outcome;
    };
    outcome.stats = detail.then(|| Stats::of(&g));
    // Regenerable bulk outputs: atomic but not fsynced (see io::write_atomic_unsynced).
    if let Err(f) = io::write_atomic_unsynced(&job.output, &encode(&g, format)) {
        outcome.messages.extend(f.located);
        outcome.failed = true;
    }
    outcome
}

/// Parse and lower a BLIF text (model `top` as the top, else the first); diagnostics are
/// appended to `diags`.
pub fn lower_text(text: &str, top: Option<&str>, diags: &mut Vec<Diagnostic>) -> Option<Aig> {
    let parsed = match blif::parse(text) {
        Ok(p) => p,
        Err(e) => {
            diags.push(e);
            return None;
        }
    };
    diags.extend(parsed.warnings);
    match aig::lower_file_owned(parsed.file, top, &kiln_daemon::input::limits()) {
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
