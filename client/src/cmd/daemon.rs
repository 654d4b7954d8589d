//! `kiln daemon [--workspace DIR] [--idle-timeout SECS] [--log-format text|json]`: run the
//! workspace's daemon in the foreground (clients normally start it on first use).

use crate::daemon_client;
use crate::io::Failure;

pub type Args = kiln_daemon::server::Args;

pub const EXAMPLES: &str = "Examples:
  kiln daemon                          in the foreground (clients start one on first use)
  kiln daemon --idle-timeout 600 --log-format json
  kiln daemon --remote-cache grpc://cache:8980   a remote tier behind the persistent cache";

pub fn run(mut args: Args) -> Result<(), Failure> {
    if args.workspace.is_none() {
        args.workspace = Some(daemon_client::workspace());
    }
    args.options()
        .and_then(kiln_daemon::server::run)
        .map_err(daemon_client::fail)
}
