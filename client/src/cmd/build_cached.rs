//! `kiln build --remote-cache URL [--cache-dir DIR] FILE`: the build through the daemon's
//! cached query pipeline ([`kiln_daemon::build::Builder`]) in this process, on the persistent store at `--cache-dir` with
//! the remote tier behind it. Cached query results come from the local store, else from
//! the remote (verified, then kept locally); computed ones are written to both. APS MLIR and
//! BLIF inputs (the kinds the pipeline has); prints one summary line of cache activity on
//! stderr:
//! `kiln: cache: lookups N, local hits N, remote hits N, remote misses N, rejected N, uploads N, remote errors N`.

use super::build::Args;
use crate::daemon_client;
use crate::io::Failure;
use kiln_daemon::build::Builder;
use std::path::PathBuf;

/// The remote cache options of `kiln build`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct RemoteArgs {
    /// Remote cache tier (Bazel HTTP cache `http://HOST:PORT[/PREFIX]` or REAPI
    /// `grpc://HOST:PORT[/INSTANCE]`); builds through the cached query pipeline.
    #[arg(long, env = "KILN_REMOTE_CACHE")]
    pub remote_cache: Option<String>,
    /// Local cache directory in front of the remote (default: $KILN_CACHE_DIR,
    /// $XDG_CACHE_HOME/kiln, ~/.cache/kiln).
    #[arg(long, requires = "remote_cache")]
    pub cache_dir: Option<PathBuf>,
    #[command(flatten)]
    pub remote_options: kiln_daemon::remote_args::RemoteOptionArgs,
}

impl RemoteArgs {
    pub fn url(&self) -> Option<&str> {
        self.remote_cache.as_deref().filter(|u| !u.is_empty())
    }
}

pub fn run(args: &Args, url: &str) -> Result<(), Failure> {
    let usage = Failure::usage;
    let path = args.file.display().to_string();
    if args.emit.is_some() {
        return Err(usage(format!(
            "{path}: error: --emit sv is not available with --remote-cache"
        )));
    }
    if is_handshake(&args.file) {
        return Err(usage(format!(
            "{path}: error: --remote-cache builds APS MLIR and BLIF inputs; this is a Handshake design"
        )));
    }
    let dir = args
        .remote
        .cache_dir
        .clone()
        .unwrap_or_else(kiln_daemon::paths::cache_dir);
    let options = args
        .remote
        .remote_options
        .options()
        .map_err(|e| usage(format!("error: {e}")))?;
    let store =
        kiln_daemon::paths::open_store(&dir, kiln_cache::DEFAULT_CAP_BYTES, Some((url, options)))
            .map_err(|e| usage(format!("error: {e}")))?;
    let spec = daemon_client::spec(std::slice::from_ref(&args.file), &[], &args.out_dir)?;
    init_logging();
    let builder = Builder::in_process(Some(store));
    let report = builder.build(&spec);
    if let Some(store) = builder.store() {
        eprintln!("kiln: cache: {}", summary(&store.counters()));
    }
    daemon_client::report(&report)
}

/// One line of cache activity (parsed by scripts/bazel_test.sh).
fn summary(c: &kiln_cache::Counters) -> String {
    format!(
        "lookups {}, local hits {}, remote hits {}, remote misses {}, rejected {}, uploads {}, remote errors {}",
        c.hits + c.misses,
        c.hits,
        c.remote_hits,
        c.remote_misses,
        c.remote_rejected,
        c.remote_uploads,
        c.remote_errors
    )
}

/// Warnings (rejected remote entries, unreachable server) on stderr; `RUST_LOG` overrides.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

/// A Handshake design: this command builds APS MLIR and BLIF inputs only.
fn is_handshake(file: &std::path::Path) -> bool {
    use compiler::flow::Flow;
    kiln_daemon::input::read(file)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .is_some_and(|t| Flow::detect(file, &t) == Flow::Handshake)
}
