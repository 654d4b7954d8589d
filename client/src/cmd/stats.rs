//! `kiln stats [--json]`: query executions and persistent-cache hits per query kind since
//! the daemon started, and cache totals. Exits 1 when no daemon runs.

use crate::daemon_client;
use crate::io::Failure;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln stats                   query executions and cache hits since the daemon started
  kiln stats --json | jq .cache")]
pub struct Args {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let (_, stats) = daemon_client::ask_existing(|mut d| async move { d.stats().await.ok() })?;
    let Some(s) = stats else {
        return Err(Failure::input("kiln daemon: not running"));
    };
    let c = &s.cache;
    if args.json {
        let queries: serde_json::Map<String, serde_json::Value> = s
            .counts
            .iter()
            .map(|(kind, q)| {
                let v = serde_json::json!({"executions": q.executions, "cache_hits": q.cache_hits});
                (kind.to_string(), v)
            })
            .collect();
        let v = serde_json::json!({
            "queries": queries,
            "builds": s.builds,
            "cancelled_retries": s.cancelled_retries,
            "cache": {"entries": s.cache_entries, "bytes": s.cache_bytes, "hits": c.hits,
                      "misses": c.misses, "corrupt": c.corrupt},
            "remote": {"url": s.remote_url.clone().unwrap_or_default(), "hits": c.remote_hits,
                       "misses": c.remote_misses, "rejected": c.remote_rejected,
                       "uploads": c.remote_uploads, "errors": c.remote_errors},
        });
        outln!("{v}");
        return Ok(());
    }
    outln!("{:<16} {:>12} {:>12}", "query", "executions", "cache hits");
    for (kind, q) in &s.counts {
        outln!("{:<16} {:>12} {:>12}", kind, q.executions, q.cache_hits);
    }
    outln!(
        "builds {}, cancelled and retried {}; cache: {} entries, {}, {} hits, {} misses, {} corrupt",
        s.builds,
        s.cancelled_retries,
        s.cache_entries,
        crate::size::show(s.cache_bytes),
        c.hits,
        c.misses,
        c.corrupt
    );
    if let Some(url) = &s.remote_url {
        outln!(
            "remote {url}: {} hits, {} misses, {} rejected, {} uploads, {} errors",
            c.remote_hits,
            c.remote_misses,
            c.remote_rejected,
            c.remote_uploads,
            c.remote_errors
        );
    }
    Ok(())
}
