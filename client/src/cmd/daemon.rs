//! `kiln daemon [--workspace DIR] [--idle-timeout SECS] [--log-format text|json]`: run the
//! workspace's daemon in the foreground (clients normally start it on first use).

use crate::daemon_client;
use crate::io::Failure;
use kiln_daemon::server::{Options, ServerError};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `kiln daemon` (the foreground server).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Workspace the daemon serves (default: current directory).
    #[arg(long)]
    pub workspace: Option<PathBuf>,
    /// Exit after this many seconds without requests.
    #[arg(long, default_value_t = 3 * 3600)]
    pub idle_timeout: u64,
    /// Log line format in `daemon.log`.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Size cap of the persistent cache, in bytes.
    #[arg(long, default_value_t = kiln_cache::DEFAULT_CAP_BYTES)]
    pub cache_cap: u64,
    /// Persistent cache directory (default: $KILN_CACHE_DIR, $XDG_CACHE_HOME/kiln, ~/.cache/kiln).
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Base of the per-workspace daemon directories (default: $XDG_RUNTIME_DIR/kiln).
    #[arg(long)]
    pub runtime_dir: Option<PathBuf>,
    #[command(flatten)]
    pub remote_options: super::args::RemoteOptionArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

impl Args {
    /// The server's options: these flags over the defaults of [`Options::new`].
    fn options(&self, workspace: PathBuf) -> Result<Options, ServerError> {
        let mut o = Options::new(workspace);
        o.runtime_dir = self.runtime_dir.clone();
        if let Some(dir) = &self.cache_dir {
            o.cache_dir = dir.clone();
        }
        o.idle_timeout = Duration::from_secs(self.idle_timeout);
        o.log_json = self.log_format == LogFormat::Json;
        o.cache_cap_bytes = self.cache_cap;
        o.with_remote(&self.remote_options.settings())
    }
}

pub const EXAMPLES: &str = "Examples:
  kiln daemon                          in the foreground (clients start one on first use)
  kiln daemon --idle-timeout 600 --log-format json
  kiln daemon --remote-cache grpc://cache:8980   a remote tier behind the persistent cache";

pub fn run(args: Args) -> Result<(), Failure> {
    let workspace = (args.workspace.clone()).unwrap_or_else(daemon_client::workspace);
    args.options(workspace)
        .and_then(kiln_daemon::server::run)
        .map_err(daemon_client::fail)
}
