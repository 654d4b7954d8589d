//! `kiln aig FILE_OR_DIR... [-o OUT_DIR] [--format aig|aag|blif] [--top MODEL] [-j N]
//! [--stats] [--json] [--daemon]`.
//!
//! Lowers every model of every BLIF file (directories are walked for `*.blif`, and the tree
//! is mirrored under OUT_DIR) and writes the top model's AIG: the first model, or `--top`'s.
//!
//! The command is `kiln build` of BLIF inputs: the same build request, its flags mapped
//! onto it (`--format` is the one output kind, `--top` and `-j` the build's, directories
//! yield their `.blif` files only, `--stats`/`--json` ask for a report of every input with
//! its AIG's figures). It builds in this process (the fastest cold build of BLIF, which is
//! what this command is for), or through the workspace's daemon with `--daemon`; either
//! way its files and messages are those of `kiln build`, and a run ends as `kiln build`'s
//! does: on success one summary line on stderr (`Built 3 outputs (3 written) in 4.1 ms [in
//! process]`, none with `-q`), on failure the closing line (`could not build 3 inputs`).
//! Warnings are printed and do not change the exit code; any input error makes the command
//! exit 1.

use super::args::LintArgs;
use super::build::AsGiven;
use crate::daemon_client;
use crate::diagnostics;
use crate::io::Failure;
use compiler::diag::Located;
use compiler::flow::OutputKind;
use kiln_daemon::report::FileReport;
use kiln_daemon::request::BuildSpec;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Aig,
    Aag,
    Blif,
}

impl Format {
    fn kind(self) -> OutputKind {
        match self {
            Format::Aig => OutputKind::Aig,
            Format::Aag => OutputKind::Aag,
            Format::Blif => OutputKind::FlatBlif,
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
    /// Output format (`blif`: the top model flattened, as a BLIF netlist).
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
    /// Print one JSON object per file on stdout (outputs, stats and diagnostics).
    #[arg(long)]
    pub json: bool,
    /// Build through the workspace's daemon (cached, incremental) instead of in this
    /// process.
    #[arg(long)]
    pub daemon: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let spec = spec(&args)?;
    let (report, via) = daemon_client::build_via(&spec, !args.daemon);
    let given = &args.inputs;
    let shown = AsGiven::new(&spec, given);
    if !args.json {
        if args.stats {
            for file in &report.diagnostics {
                stats_line(&shown, file);
            }
        }
        return super::build::finish(&spec, given, &report, via);
    }
    let mut tally = diagnostics::Tally::default();
    for file in &report.diagnostics {
        outln!("{}", json(&shown, file));
        file.messages.iter().for_each(|m| tally.count(m));
    }
    super::build::finish_counted(given, &report, via, tally)
}

/// The build request of `args`.
fn spec(args: &Args) -> Result<BuildSpec, Failure> {
    let out = args.out.resolve()?;
    let mut spec = daemon_client::spec_of(&args.inputs, vec![args.format.kind()], &out);
    spec.top = args.top.clone();
    spec.jobs = args
        .jobs
        .or_else(|| crate::config::get().jobs())
        .unwrap_or(0);
    spec.lints = LintArgs::default().resolved();
    spec.blif_only = true;
    spec.per_file = args.stats || args.json;
    spec.changed_only = true;
    Ok(spec)
}

/// `netlists/a.blif: pi=3 po=2 latch=0 and=12 lev=4`, for an input that made an AIG.
fn stats_line(shown: &AsGiven, file: &FileReport) {
    if let Some(s) = file.stats {
        outln!(
            "{}: pi={} po={} latch={} and={} lev={}",
            shown.path(&file.path),
            s.pi,
            s.po,
            s.latches,
            s.ands,
            s.levels
        );
    }
}

/// One input's JSON object: `file`, `output` (its one output, `null` when it failed),
/// `ok`, `stats` (`null` without an AIG) and `diagnostics`.
fn json(shown: &AsGiven, file: &FileReport) -> serde_json::Value {
    let messages: Vec<serde_json::Value> = (file.messages.iter())
        .map(|m| Located::to_json(&shown.message(m.clone())))
        .collect();
    serde_json::json!({
        "file": shown.path(&file.path),
        "output": file.outputs.first().map(|p| p.display().to_string()),
        "ok": file.errors() == 0,
        "stats": file.stats,
        "diagnostics": messages,
    })
}
