//! `kiln stats [--json]`: query executions and persistent-cache hits per query kind since
//! the daemon started, and cache totals. Exits 1 when no daemon runs.

use crate::daemon_client::{self, fail};
use crate::io::Failure;
use kiln_daemon::proto;

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let c = daemon_client::connector().map_err(fail)?;
    let rt = daemon_client::runtime()?;
    let stats = rt.block_on(async {
        let mut client = daemon_client::existing(&c).await?;
        client
            .stats(proto::StatsRequest {})
            .await
            .ok()
            .map(|r| r.into_inner())
    });
    let Some(s) = stats else {
        return Err(Failure::input("kiln daemon: not running"));
    };
    if args.json {
        let queries: serde_json::Map<String, serde_json::Value> = s
            .counts
            .iter()
            .map(|q| {
                let v = serde_json::json!({"executions": q.executions, "cache_hits": q.cache_hits});
                (q.kind.clone(), v)
            })
            .collect();
        let v = serde_json::json!({
            "queries": queries,
            "builds": s.builds,
            "cancelled_retries": s.cancelled_retries,
            "cache": {"entries": s.cache_entries, "bytes": s.cache_bytes, "hits": s.cache_hits,
                      "misses": s.cache_misses, "corrupt": s.cache_corrupt},
            "remote": {"url": s.remote_url, "hits": s.remote_hits, "misses": s.remote_misses,
                       "rejected": s.remote_rejected, "uploads": s.remote_uploads,
                       "errors": s.remote_errors},
        });
        println!("{v}");
        return Ok(());
    }
    println!("{:<16} {:>12} {:>12}", "query", "executions", "cache hits");
    for q in &s.counts {
        println!("{:<16} {:>12} {:>12}", q.kind, q.executions, q.cache_hits);
    }
    println!(
        "builds {}, cancelled and retried {}; cache: {} entries, {} bytes, {} hits, {} misses, {} corrupt",
        s.builds,
        s.cancelled_retries,
        s.cache_entries,
        s.cache_bytes,
        s.cache_hits,
        s.cache_misses,
        s.cache_corrupt
    );
    if !s.remote_url.is_empty() {
        println!(
            "remote {}: {} hits, {} misses, {} rejected, {} uploads, {} errors",
            s.remote_url,
            s.remote_hits,
            s.remote_misses,
            s.remote_rejected,
            s.remote_uploads,
            s.remote_errors
        );
    }
    Ok(())
}
