//! `kiln watch INPUT... [-o DIR] [build options] [--debounce MS] [--max-events N]`: build,
//! then rebuild on every change (through the daemon). The first build shows all its
//! diagnostics; each rebuild shows only what changed since the build before: its new
//! diagnostics, then one `fixed: …` line per diagnostic gone, then one status line (stdout)
//! last. A diagnostic is the same one while its file, severity, code, message, column and
//! source line are (lines added above it do not make it new). The daemon rebuilds once
//! the inputs were quiet for the debounce period, and builds again instead of reporting a
//! failure when an input changed during or just after the failed build (a file still being
//! written). It takes every option of `kiln build` (Handshake designs included: the library
//! is resolved here and sent to the daemon), and its exit code is that of its last build.
//! The CSR configuration (`--aps-config`, `aps_config` of kiln.toml) is watched like an
//! input and read again before each build; one that does not read fails that build with
//! its located errors, outputs untouched.

use super::args::BuildInputs;
use super::build::AsGiven;
use crate::daemon_client::{self, fail};
use crate::diagnostics::{self, MessageFormat, Tally};
use crate::io::Failure;
use compiler::diag::{Located, Severity};
use kiln_daemon::client::WatchEvent;
use kiln_daemon::request::BuildSpec;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;
use tokio_stream::StreamExt;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln watch src/ -o out                       rebuild on every save, until interrupted
  kiln watch gcd.mlir --blif-lib ../shared/dynamatic_blif/library
  kiln watch src/ --debounce 500               for an editor or tool that writes slowly
  kiln watch design.mlir --emit sv --max-events 1    one build, then exit with its status

Output: the first build's diagnostics; after each rebuild only the new ones and a
`fixed: FILE:LINE:COL: SEVERITY: MESSAGE [CODE]` line per one gone (at most 10 a
file, then `fixed: N more in FILE`); then the status line, last:
  [3] ok 22 files (1 written) in 41.0 ms; executed: ...; changed: a.mlir; 4 warnings (1 new, 2 fixed)
With --message-format json every build prints all its diagnostics as JSON lines.")]
pub struct Args {
    #[command(flatten)]
    pub target: BuildInputs,
    /// Stop after this many builds (default: run until interrupted).
    #[arg(long, value_name = "N")]
    pub max_events: Option<u64>,
    /// Rebuild once the inputs have not changed for this many milliseconds (1 to 60000).
    #[arg(long, value_name = "MS", default_value_t = 150,
          value_parser = clap::value_parser!(u64).range(1..=kiln_daemon::client::MAX_DEBOUNCE_MS))]
    pub debounce: u64,
    /// After each build, say why each query executed (`kiln why`).
    #[arg(long)]
    pub explain: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let spec = args.target.watch_spec()?;
    let c = daemon_client::connector()?;
    let rt = daemon_client::runtime()?;
    let debounce = Duration::from_millis(args.debounce);
    let given = Given {
        inputs: args.target.inputs.clone(),
        config: args.target.aps_config_file(),
    };
    let last = rt.block_on(async {
        let mut client = c.ensure().await.map_err(fail)?;
        let explainer = client.clone();
        let stream = client
            .watch_debounced(&spec, Some(debounce))
            .await
            .map_err(fail)?;
        let mut stream = std::pin::pin!(stream);
        let mut seen = 0u64;
        let mut shown = Shown::default();
        let mut last = (true, Tally::default());
        while let Some(event) = stream.next().await {
            let event = event.map_err(fail)?;
            let messages = shown.diagnostics(&event, &spec, &given);
            if args.explain {
                super::why::print_explained(explainer.clone().why(None).await);
            }
            status_line(&event, &messages);
            last = (event.report.ok(), messages.tally);
            seen += 1;
            if args.max_events.is_some_and(|m| seen >= m) {
                break;
            }
        }
        Ok::<_, Failure>(last)
    })?;
    match last {
        (true, _) => Ok(()),
        (false, tally) => {
            // The closing line of a failed last build (or exit 1 with no error shown).
            tally.close("build", &diagnostics::inputs_named(&args.target.inputs))?;
            Err(Failure::reported(1))
        }
    }
}

/// `m` with its paths as the user gave them: the inputs' (`inputs`, made once per event)
/// and the CSR configuration's.
fn as_given(m: Located, inputs: &AsGiven, spec: &BuildSpec, given: &Given) -> Located {
    let mut m = inputs.message(m);
    if let (Some(abs), Some(config)) = (&spec.aps_config_path, &given.config)
        && abs.as_os_str() == m.path.as_str()
    {
        m.path = config.display().to_string();
    }
    m
}

/// The paths the user gave: the inputs and the CSR configuration's file.
struct Given {
    inputs: Vec<PathBuf>,
    config: Option<PathBuf>,
}

/// What identifies a diagnostic across builds: its file, severity, code, message, and
/// column and source line (not its line number, which lines added above it change).
type Key = (String, Severity, String, String, Option<(usize, String)>);

fn key(m: &Located) -> Key {
    (
        m.path.clone(),
        m.severity,
        m.code.map(|c| c.to_string()).unwrap_or_default(),
        m.message.clone(),
        m.at.as_ref().map(|a| (a.col, a.line_text.clone())),
    )
}

/// The diagnostics of the last build shown, by identity (`None` before the first build).
#[derive(Default)]
struct Shown {
    last: Option<BTreeMap<Key, Vec<Located>>>,
}

/// How a build's diagnostics compare with the build's before it.
#[derive(Default)]
struct Messages {
    tally: Tally,
    new: usize,
    fixed: usize,
}

/// At most this many `fixed:` lines a file per build; the rest are counted.
const FIXED_LISTED: usize = 10;

impl Shown {
    /// Show `e`'s diagnostics: all of them for the first build (and in JSON), else those
    /// new since the last build, then those fixed.
    fn diagnostics(&mut self, e: &WatchEvent, spec: &BuildSpec, given: &Given) -> Messages {
        let inputs = AsGiven::new(spec, &given.inputs);
        let all: Vec<Located> = e
            .report
            .diagnostics
            .iter()
            .flat_map(|d| &d.messages)
            .map(|m| as_given(m.clone(), &inputs, spec, given))
            .collect();
        let mut now: BTreeMap<Key, Vec<Located>> = BTreeMap::new();
        for m in &all {
            now.entry(key(m)).or_default().push(m.clone());
        }
        let mut out = Messages::default();
        let json = diagnostics::options().format == MessageFormat::Json;
        match self.last.as_ref() {
            None => out.tally.show_all(&all),
            Some(before) => {
                // The n-th occurrence of a key is new when the build before had fewer.
                let mut seen: BTreeMap<Key, usize> = BTreeMap::new();
                for m in &all {
                    let k = key(m);
                    let had = before.get(&k).map_or(0, Vec::len);
                    let n = seen.entry(k).or_default();
                    *n += 1;
                    match *n > had {
                        true => {
                            out.new += 1;
                            out.tally.show(m);
                        }
                        false if json => out.tally.show(m),
                        false => out.tally.count(m),
                    }
                }
                let mut fixed: BTreeMap<&str, Vec<&Located>> = BTreeMap::new();
                for (k, was) in before {
                    let left = now.get(k).map_or(0, Vec::len);
                    for m in was.iter().skip(left) {
                        fixed.entry(m.path.as_str()).or_default().push(m);
                    }
                }
                for (path, gone) in fixed {
                    out.fixed += gone.len();
                    if !json {
                        show_fixed(path, &gone);
                    }
                }
            }
        }
        self.last = Some(now);
        out
    }
}

/// The `fixed:` lines of one file's diagnostics that are gone (stderr; `-q`: errors only).
fn show_fixed(path: &str, gone: &[&Located]) {
    let o = diagnostics::options();
    let gone: Vec<&&Located> = gone.iter().filter(|m| !o.quiet || m.is_error()).collect();
    let word = match o.style.color {
        true => "\x1b[1;32mfixed\x1b[0m",
        false => "fixed",
    };
    for m in gone.iter().take(FIXED_LISTED) {
        let place = match &m.at {
            Some(at) => format!("{}:{}:{}", m.path, at.line, at.col),
            None => m.path.clone(),
        };
        let code = m.code.map(|c| format!(" [{c}]")).unwrap_or_default();
        let severity = m.severity.as_str();
        errln!("{word}: {place}: {severity}: {}{code}", m.message);
    }
    if gone.len() > FIXED_LISTED {
        errln!("{word}: {} more in {path}", gone.len() - FIXED_LISTED);
    }
}

/// One build's status line (stdout), printed after its diagnostics:
/// `[3] ok 22 files (1 written) in 41.0 ms; executed: segmentation=1; changed: a.mlir;
/// 4 warnings (1 new, 2 fixed)`.
fn status_line(e: &WatchEvent, m: &Messages) {
    let b = &e.report;
    let written = b.files.iter().filter(|f| f.written).count();
    let execs: Vec<String> = b
        .counts
        .iter()
        .filter(|(_, c)| c.executions > 0)
        .map(|(kind, c)| format!("{kind}={}", c.executions))
        .collect();
    let changed: Vec<String> = e.changed.iter().map(|p| p.display().to_string()).collect();
    let mut line = format!(
        "[{}] {} {} files ({} written) in {:.1} ms; executed: {}",
        e.seq,
        if b.ok() { "ok" } else { "FAILED" },
        b.files.len(),
        written,
        b.times.total.as_secs_f64() * 1000.0,
        if execs.is_empty() {
            "nothing".to_string()
        } else {
            execs.join(" ")
        },
    );
    if !changed.is_empty() {
        line.push_str(&format!("; changed: {}", changed.join(" ")));
    }
    let mut counts = Vec::new();
    if m.tally.errors > 0 {
        counts.push(diagnostics::plural(m.tally.errors, "error"));
    }
    if m.tally.warnings > 0 {
        counts.push(diagnostics::plural(m.tally.warnings, "warning"));
    }
    let mut delta = Vec::new();
    if m.new > 0 {
        delta.push(format!("{} new", m.new));
    }
    if m.fixed > 0 {
        delta.push(format!("{} fixed", m.fixed));
    }
    if !counts.is_empty() || !delta.is_empty() {
        let counts = match counts.is_empty() {
            true => "no diagnostics".to_string(),
            false => counts.join(", "),
        };
        line.push_str(&format!("; {counts}"));
        if !delta.is_empty() {
            line.push_str(&format!(" ({})", delta.join(", ")));
        }
    }
    outln!("{line}");
}
