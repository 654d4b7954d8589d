//! `kiln build --remote-cache URL [--cache-dir DIR] FILE`: the build through the daemon's
//! cached query pipeline ([`kiln_daemon::build::Builder`]) in this process, on the persistent store at `--cache-dir` with
//! the remote tier behind it. Cached query results come from the local store, else from
//! the remote (verified, then kept locally); computed ones are written to both. Every kind
//! of input and output `kiln build` takes; its summary line ends with the cache's activity:
//! `Built 2 outputs (2 written) in 4.1 ms [in process, cached]; cache: lookups N, local hits
//! N, remote hits N, remote misses N, rejected N, uploads N, remote errors N`.

use crate::io::Failure;
use kiln_daemon::build::Builder;
use kiln_daemon::report::BuildReport;
use kiln_daemon::request::BuildSpec;
use tracing_subscriber::fmt::FmtContext;
use tracing_subscriber::fmt::format::{self, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// Build `spec` (one input) through the cached query pipeline with the remote tier at
/// `url`: the report, and one line of the cache's activity for the summary line.
pub fn build(
    spec: &BuildSpec,
    remote: &super::args::RemoteArgs,
    url: &str,
) -> Result<(BuildReport, String), Failure> {
    let usage = Failure::usage;
    let dir = remote
        .cache_dir
        .clone()
        .unwrap_or_else(kiln_daemon::paths::cache_dir);
    let options = remote
        .remote_options
        .settings()
        .options()
        .map_err(|e| usage(format!("error: {e}")))?;
    let store =
        kiln_daemon::paths::open_store(&dir, kiln_cache::DEFAULT_CAP_BYTES, Some((url, options)))
            .map_err(|e| usage(format!("error: {e}")))?;
    init_logging();
    let builder = Builder::in_process(Some(store));
    let report = builder.build(spec);
    let cache = builder
        .store()
        .map(|s| format!("cache: {}", summary(&s.counters())))
        .unwrap_or_default();
    Ok((report, cache))
}

/// The cache's activity (parsed by scripts/bazel_test.sh and client/tests/remote_cli.rs).
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

/// Warnings (the remote tier's one notice per build: an unavailable server, how many
/// entries were rejected) on stderr as `kiln: warning: …`; `RUST_LOG` overrides the filter
/// (`RUST_LOG=kiln_cache=debug` shows each rejected entry and failed operation).
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .event_format(Plain)
        .try_init();
}

/// One log event as `kiln: LEVEL: message fields`.
struct Plain;

impl<S, N> FormatEvent<S, N> for Plain
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut w: format::Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let level = match *event.metadata().level() {
            tracing::Level::ERROR => "error",
            tracing::Level::WARN => "warning",
            tracing::Level::INFO => "info",
            _ => "debug",
        };
        write!(w, "kiln: {level}: ")?;
        ctx.field_format().format_fields(w.by_ref(), event)?;
        writeln!(w)
    }
}
