//! `kiln watch INPUT... [-o DIR] [build options] [--max-events N]`: build, then rebuild on
//! every change (through the daemon), printing one status line per build and the
//! diagnostics of each. It takes every option of `kiln build` (Handshake designs included:
//! the library is resolved here and sent to the daemon), and its exit code is that of its
//! last build.

use super::args::BuildInputs;
use crate::daemon_client::{self, fail};
use crate::diagnostics;
use crate::io::Failure;
use kiln_daemon::rpc::WatchEvent;
use kiln_daemon::spec::BuildSpec;
use std::path::PathBuf;
use tokio_stream::StreamExt;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln watch src/ -o out                       rebuild on every save, until interrupted
  kiln watch gcd.mlir --blif-lib ../shared/dynamatic_blif/library
  kiln watch design.mlir --emit sv --max-events 1    one build, then exit with its status")]
pub struct Args {
    #[command(flatten)]
    pub target: BuildInputs,
    /// Stop after this many builds (default: run until interrupted).
    #[arg(long, value_name = "N")]
    pub max_events: Option<u64>,
    /// After each build, say why each query executed (`kiln why`).
    #[arg(long)]
    pub explain: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let spec = args.target.spec()?;
    let c = daemon_client::connector()?;
    let rt = daemon_client::runtime()?;
    let last_ok = rt.block_on(async {
        let mut client = c.ensure().await.map_err(fail)?;
        let explainer = client.clone();
        let stream = client.watch(&spec).await.map_err(fail)?;
        let mut stream = std::pin::pin!(stream);
        let mut seen = 0u64;
        let mut last_ok = true;
        while let Some(event) = stream.next().await {
            let event = event.map_err(fail)?;
            last_ok = show_event(&event, &spec, &args.target.inputs);
            if args.explain {
                super::why::print_explained(explainer.clone().why(None).await);
            }
            seen += 1;
            if args.max_events.is_some_and(|m| seen >= m) {
                break;
            }
        }
        Ok::<bool, Failure>(last_ok)
    })?;
    match last_ok {
        true => Ok(()),
        false => Err(Failure::reported(1)),
    }
}

/// One build's status line (stdout) and diagnostics; whether it succeeded.
fn show_event(e: &WatchEvent, spec: &BuildSpec, given: &[PathBuf]) -> bool {
    let b = &e.report;
    let written = b.files.iter().filter(|f| f.written).count();
    let execs: Vec<String> = b
        .counts
        .iter()
        .filter(|(_, c)| c.executions > 0)
        .map(|(kind, c)| format!("{kind}={}", c.executions))
        .collect();
    let changed: Vec<String> = e.changed.iter().map(|p| p.display().to_string()).collect();
    outln!(
        "[{}] {} {} files ({} written) in {:.1} ms; executed: {}{}",
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
        if changed.is_empty() {
            String::new()
        } else {
            format!("; changed: {}", changed.join(" "))
        }
    );
    let tally = super::build::show(spec, given, b);
    tally
        .close("build", &diagnostics::inputs_named(given))
        .is_ok()
}
