//! `kiln build INPUT... [-o DIR]`: compile designs with the flow their content selects.
//!
//! Dispatch is on content ([`compiler::flow::Flow::detect`]): a module with a `tor.design`
//! goes to the APS flow, which writes `DIR/<stem>.cmt2.mlir` and `DIR/<stem>.rules.json`
//! (and `<stem>.sv` with `--emit sv`); a module with a `handshake.func` goes to Handshake →
//! Synth, which writes `<stem>.synth.mlir`, `.aig`, `.blif` and `.hier.blif` from the
//! `--blif-lib` library (the outputs of `kiln synth`); a `.blif` file to BLIF → AIG.
//! Directories are searched for `.mlir` and `.blif` files, their tree mirrored below DIR.
//!
//! The build goes through the workspace's daemon (started on first use; see
//! `daemon_client`); `--no-daemon`, or a daemon that cannot be used, builds in this process
//! through the compiler's flows; `--remote-cache` runs the cached query pipeline in process
//! on the layered store. All accept the same inputs and write byte-identical outputs; a
//! success ends with one summary line (`Built 2 outputs (2 written) in 4.1 ms [daemon]`).

use super::args::BuildInputs;
use crate::daemon_client::{self, Via};
use crate::diagnostics;
use crate::io::Failure;
use kiln_daemon::report::BuildReport;
use kiln_daemon::request::BuildSpec;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln build examples/aps/flow_burst_add.mlir                 out/flow_burst_add.cmt2.mlir, .rules.json
  kiln build design.mlir -o build --emit sv                   also build/design.sv
  kiln build gcd.mlir --blif-lib ../shared/dynamatic_blif/library
  kiln build netlists/ -o aig                                 every .blif/.mlir below, tree mirrored
  kiln build x.mlir --message-format json                     diagnostics as JSON lines on stdout")]
pub struct BuildArgs {
    #[command(flatten)]
    pub target: BuildInputs,
    /// Build through the cached query pipeline with this remote cache tier behind the local
    /// cache: `http://HOST:PORT[/PREFIX]` or `grpc://HOST:PORT[/INSTANCE]`.
    #[command(flatten)]
    pub remote: super::args::RemoteArgs,
    /// Build in this process instead of through the workspace's daemon.
    #[arg(long)]
    pub no_daemon: bool,
    /// Then say why each query executed (`kiln why`).
    #[arg(long)]
    pub explain: bool,
}

pub fn run(args: BuildArgs) -> Result<(), Failure> {
    let target = &args.target;
    if let Some(url) = args.remote.url() {
        if target.inputs.len() != 1 {
            return Err(Failure::usage(
                "error: --remote-cache builds one input file at a time",
            ));
        }
        let spec = target.spec()?;
        let (report, cache) = super::build_cached::build(&spec, &args.remote, url)?;
        return finish_with(&spec, &target.inputs, &report, Via::Cached, Some(&cache));
    }
    let mut spec = target.spec()?;
    // The command reports diagnostics only: the daemon need not list unchanged files.
    spec.changed_only = true;
    let (report, via) = daemon_client::build_via(&spec, args.no_daemon);
    if args.explain {
        super::why::print_after_build(args.no_daemon);
    }
    finish(&spec, &target.inputs, &report, via)
}

/// Show a build's diagnostics (each input named as the user named it) and, when it
/// succeeded, one summary line.
pub fn finish(
    spec: &BuildSpec,
    given: &[PathBuf],
    report: &BuildReport,
    via: Via,
) -> Result<(), Failure> {
    finish_with(spec, given, report, via, None)
}

/// [`finish`] for a command that showed the messages its own way (`kiln aig --json`) and
/// counted them in `tally`.
pub fn finish_counted(
    given: &[PathBuf],
    report: &BuildReport,
    via: Via,
    tally: diagnostics::Tally,
) -> Result<(), Failure> {
    close(given, report, via, None, tally)
}

/// [`finish`], the summary line ending with `extra` (a cached build's cache activity).
fn finish_with(
    spec: &BuildSpec,
    given: &[PathBuf],
    report: &BuildReport,
    via: Via,
    extra: Option<&str>,
) -> Result<(), Failure> {
    let tally = show(spec, given, report);
    close(given, report, via, extra, tally)
}

/// The closing line of a build whose messages `tally` counted: the failure, or the summary.
fn close(
    given: &[PathBuf],
    report: &BuildReport,
    via: Via,
    extra: Option<&str>,
    tally: diagnostics::Tally,
) -> Result<(), Failure> {
    tally.close("build", &diagnostics::inputs_named(given))?;
    let mut line = summary(report, via, &tally);
    if let Some(extra) = extra {
        line.push_str("; ");
        line.push_str(extra);
    }
    diagnostics::status("Built", &line);
    detail(report);
    Ok(())
}

/// Show a build's diagnostics, each input named as the user named it.
pub fn show(spec: &BuildSpec, given: &[PathBuf], report: &BuildReport) -> diagnostics::Tally {
    let mut tally = diagnostics::Tally::default();
    let shown = AsGiven::new(spec, given);
    for m in report.diagnostics.iter().flat_map(|d| &d.messages) {
        tally.show(&shown.message(m.clone()));
    }
    tally
}

/// Inputs' paths as the user named them: an input of the spec (absolute) as given, a file
/// found below an input directory below the directory as given (`netlists/a/x.blif`);
/// any other path as it is. Made once per build; a path is looked up with its ancestors,
/// whatever the number of inputs.
pub(super) struct AsGiven<'a> {
    inputs: std::collections::HashMap<&'a std::ffi::OsStr, &'a std::path::Path>,
}

impl<'a> AsGiven<'a> {
    pub(super) fn new(spec: &'a BuildSpec, given: &'a [PathBuf]) -> AsGiven<'a> {
        let pairs = spec.inputs.iter().zip(given);
        AsGiven {
            inputs: pairs.map(|(a, g)| (a.as_os_str(), g.as_path())).collect(),
        }
    }

    pub(super) fn path(&self, path: &str) -> String {
        let p = std::path::Path::new(path);
        let shown = p.ancestors().find_map(|a| {
            let g = self.inputs.get(a.as_os_str())?;
            let rest = p.strip_prefix(a).ok()?;
            Some(match rest.as_os_str().is_empty() {
                true => g.display().to_string(),
                false => g.join(rest).display().to_string(),
            })
        });
        shown.unwrap_or_else(|| path.to_string())
    }

    pub(super) fn message(&self, mut m: compiler::diag::Located) -> compiler::diag::Located {
        m.path = self.path(&m.path);
        for r in &mut m.related {
            r.path = self.path(&r.path);
        }
        m
    }
}

/// `3 outputs (1 written) in 4.1 ms [daemon]; compiled 1 function, 2 models; 1 warning`.
fn summary(report: &BuildReport, via: Via, tally: &diagnostics::Tally) -> String {
    let written = report.files.iter().filter(|f| f.written).count();
    let total = report.files.len() + report.unchanged_omitted as usize;
    let mut line = format!(
        "{} ({written} written) in {:.1} ms [{via}]",
        diagnostics::plural(total, "output"),
        report.times.total.as_secs_f64() * 1e3,
    );
    let compiled = compiled(report);
    if !compiled.is_empty() {
        line.push_str(&format!("; compiled {}", compiled.join(", ")));
    }
    if tally.warnings > 0 {
        line.push_str(&format!(
            "; {}",
            diagnostics::plural(tally.warnings, "warning")
        ));
    }
    let allowed = report.allowed() as usize;
    if allowed > 0 {
        line.push_str(&format!(
            "; {} allowed",
            diagnostics::plural(allowed, "warning")
        ));
    }
    line
}

/// What the daemon recompiled, by unit: functions (segmented), models (lowered),
/// Handshake designs (built); empty for an in-process build, which counts nothing.
fn compiled(report: &BuildReport) -> Vec<String> {
    let executed = |kind: &str| report.counts.get(kind).map_or(0, |c| c.executions as usize);
    [
        ("segmentation", "function"),
        ("aig", "model"),
        ("handshake_emit", "Handshake design"),
    ]
    .iter()
    .filter(|(kind, _)| executed(kind) > 0)
    .map(|(kind, unit)| diagnostics::plural(executed(kind), unit))
    .collect()
}

/// `-v`: where the time went and every query kind that ran.
fn detail(report: &BuildReport) {
    let t = &report.times;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    diagnostics::detail(&format!(
        "      timing read {:.1} ms, compute {:.1} ms, hash {:.1} ms, write {:.1} ms",
        ms(t.sync),
        ms(t.compute),
        ms(t.hash),
        ms(t.write)
    ));
    let ran: Vec<String> = report
        .counts
        .iter()
        .filter(|(_, c)| c.executions + c.cache_hits > 0)
        .map(|(k, c)| format!("{k} {} (+{} cached)", c.executions, c.cache_hits))
        .collect();
    if !ran.is_empty() {
        diagnostics::detail(&format!("     queries {}", ran.join(", ")));
    }
    for f in report.files.iter().filter(|f| f.written) {
        diagnostics::detail(&format!("       wrote {}", f.path.display()));
    }
}
