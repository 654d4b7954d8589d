//! `kiln status [--json]`: the running daemon's version, build id, pid, socket and uptime.
//! Exits 1 when no daemon runs for this workspace (none is started).

use crate::daemon_client;
use crate::io::Failure;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln status                  version, build, pid, socket, uptime (exit 1: none runs)
  kiln status --json | jq .pid")]
pub struct Args {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let (c, status) = daemon_client::ask_existing(|mut d| async move { d.status().await.ok() })?;
    let Some(s) = status else {
        return Err(Failure::input(format!(
            "kiln daemon: not running (workspace {})",
            c.dir.workspace.display()
        )));
    };
    let matches = s.build_id == kiln_daemon::server::build_id();
    if args.json {
        let v = serde_json::json!({
            "version": s.version, "build_id": s.build_id, "pid": s.pid, "socket": s.socket,
            "daemon_dir": s.daemon_dir, "uptime_ms": s.uptime.as_millis() as u64,
            "idle_timeout_secs": s.idle_timeout.as_secs(), "matches_client": matches,
        });
        outln!("{v}");
        return Ok(());
    }
    outln!(
        "kiln daemon {} (build {}{}), pid {}, up {:.1}s, idle timeout {}s\nsocket {}",
        s.version,
        s.build_id,
        if matches {
            ""
        } else {
            ", differs from this client"
        },
        s.pid,
        s.uptime.as_secs_f64(),
        s.idle_timeout.as_secs(),
        s.socket.display()
    );
    Ok(())
}
