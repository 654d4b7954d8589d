//! `kiln watch PATHS... --out-dir DIR [--emit KIND]... [--max-events N]`: build, then
//! rebuild on every change (through the daemon), printing one status line per rebuild and
//! the diagnostics of failed ones.

use crate::daemon_client::{self, fail};
use crate::io::Failure;
use kiln_daemon::rpc::WatchEvent;
use std::path::PathBuf;
use tokio_stream::StreamExt;

#[derive(clap::Args)]
pub struct Args {
    /// `.mlir`/`.blif` files, or directories to search for them.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output directory.
    #[arg(long, short)]
    pub out_dir: PathBuf,
    /// Output kinds (cmt2, rules-json, aig, aag); default per input type.
    #[arg(long = "emit")]
    pub kinds: Vec<String>,
    /// Stop after this many builds (default: run until interrupted).
    #[arg(long)]
    pub max_events: Option<u64>,
    /// After each build, say why each query executed (`kiln why`).
    #[arg(long)]
    pub explain: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let spec = daemon_client::spec(&args.paths, &args.kinds, &args.out_dir)?;
    let c = daemon_client::connector()?;
    let rt = daemon_client::runtime()?;
    rt.block_on(async {
        let mut client = c.ensure().await.map_err(fail)?;
        let explainer = client.clone();
        let stream = client.watch(&spec).await.map_err(fail)?;
        let mut stream = std::pin::pin!(stream);
        let mut seen = 0u64;
        while let Some(event) = stream.next().await {
            let event = event.map_err(fail)?;
            print_event(&event);
            if args.explain {
                super::why::print_explained(explainer.clone().why(None).await);
            }
            seen += 1;
            if args.max_events.is_some_and(|m| seen >= m) {
                break;
            }
        }
        Ok(())
    })
}

fn print_event(e: &WatchEvent) {
    let b = &e.report;
    let written = b.files.iter().filter(|f| f.written).count();
    let execs: Vec<String> = b
        .counts
        .iter()
        .filter(|(_, c)| c.executions > 0)
        .map(|(kind, c)| format!("{kind}={}", c.executions))
        .collect();
    let changed: Vec<String> = e.changed.iter().map(|p| p.display().to_string()).collect();
    println!(
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
    eprint!("{}", b.rendered());
}
