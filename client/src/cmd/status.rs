//! `kiln status [--json]`: the running daemon's version, build id, pid, socket and uptime.
//! Exits 1 when no daemon runs for this workspace (none is started).

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
    let status = rt.block_on(async {
        let mut client = daemon_client::existing(&c).await?;
        client
            .status(proto::StatusRequest {
                client_version: kiln_daemon::server::VERSION.into(),
                client_build_id: kiln_daemon::db::build_id().into(),
            })
            .await
            .ok()
            .map(|r| r.into_inner())
    });
    let Some(s) = status else {
        return Err(Failure::input(format!(
            "kiln daemon: not running (workspace {})",
            c.dir.workspace.display()
        )));
    };
    let matches = s.build_id == kiln_daemon::db::build_id();
    if args.json {
        let v = serde_json::json!({
            "version": s.version, "build_id": s.build_id, "pid": s.pid, "socket": s.socket,
            "daemon_dir": s.daemon_dir, "uptime_ms": s.uptime_ms,
            "idle_timeout_secs": s.idle_timeout_secs, "matches_client": matches,
        });
        println!("{v}");
        return Ok(());
    }
    println!(
        "kiln daemon {} (build {}{}), pid {}, up {:.1}s, idle timeout {}s\nsocket {}",
        s.version,
        s.build_id,
        if matches {
            ""
        } else {
            ", differs from this client"
        },
        s.pid,
        s.uptime_ms as f64 / 1000.0,
        s.idle_timeout_secs,
        s.socket
    );
    Ok(())
}
