//! The daemon process: gRPC (tonic) over a Unix socket in the daemon directory.
//!
//! Lifecycle: take the pid file's exclusive lock (a second daemon for the same workspace
//! exits at once), bind the socket, write the info file, serve until `Shutdown`, an idle
//! timeout, SIGTERM/SIGINT, or the info file no longer naming this process. Logs go to
//! `daemon.log` in the daemon directory (`RUST_LOG` filter, text or JSON lines).
//!
//! Concurrency: the master [`Workspace`] sits behind a mutex held only while inputs are
//! synced from disk; each request computes on a clone of the database. Writing an input
//! cancels clones that are computing (`salsa::Cancelled`), which then retry on the new
//! revision.

use crate::db::{Db, Runtime};
use crate::driver::{self, BuildSpec, Workspace};
use crate::paths::{self, DaemonDir, Info};
use crate::proto;
use crate::proto::kiln_server::{Kiln, KilnServer};
use fs4::fs_std::FileExt;
use std::io::{Seek, Write};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_stream::wrappers::{ReceiverStream, UnixListenerStream};
use tonic::{Request, Response, Status};

/// The kiln version, compared by clients together with [`crate::db::build_id`].
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Debug, Clone)]
pub struct Options {
    pub workspace: PathBuf,
    pub runtime_dir: Option<PathBuf>,
    pub cache_dir: PathBuf,
    pub idle_timeout: Duration,
    pub log_json: bool,
    pub cache_cap_bytes: u64,
    /// Remote cache tier behind the local store (`http://…` or `grpc://…`).
    pub remote_cache: Option<String>,
    pub remote_options: kiln_cache::remote::Options,
}

struct State {
    ws: Mutex<Workspace>,
    runtime: Arc<Runtime>,
    started: Instant,
    last_activity_ms: AtomicU64,
    in_flight: AtomicUsize,
    builds: AtomicU64,
    retries: AtomicU64,
    shutdown: tokio::sync::Notify,
    info: Info,
    dir: DaemonDir,
    idle_timeout: Duration,
}

impl State {
    fn touch(&self) {
        let ms = self.started.elapsed().as_millis() as u64;
        self.last_activity_ms.store(ms, Ordering::Relaxed);
    }

    fn idle_for(&self) -> Duration {
        let now = self.started.elapsed().as_millis() as u64;
        Duration::from_millis(now.saturating_sub(self.last_activity_ms.load(Ordering::Relaxed)))
    }

    /// One build: sync inputs under the lock, compute on a clone, retry when cancelled.
    fn build(&self, spec: &BuildSpec) -> proto::BuildReply {
        let start = Instant::now();
        let before = self.runtime.counters.snapshot();
        loop {
            let t = Instant::now();
            let (db, resolved) = {
                let mut ws = self.ws.lock().unwrap_or_else(|e| e.into_inner());
                let resolved = ws.sync(spec);
                (ws.db.clone(), resolved)
            };
            let sync = t.elapsed();
            let result =
                salsa::Cancelled::catch(AssertUnwindSafe(|| driver::compute(&db, spec, &resolved)));
            drop(db);
            let phases = driver::Phases {
                sync,
                compute: t.elapsed() - sync,
            };
            match result {
                Ok(computed) => {
                    self.builds.fetch_add(1, Ordering::Relaxed);
                    let after = self.runtime.counters.snapshot();
                    let log = &self.runtime.written;
                    return driver::reply(computed, spec, log, &before, &after, start, phases);
                }
                Err(c) => {
                    tracing::debug!(reason = ?c, "build cancelled by an input change; retrying");
                    self.retries.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
}

/// Keeps `in_flight` up to date (idle shutdown never interrupts a request or a watch).
struct Activity(Arc<State>);

impl Activity {
    fn new(state: &Arc<State>) -> Activity {
        state.in_flight.fetch_add(1, Ordering::Relaxed);
        state.touch();
        Activity(state.clone())
    }
}

impl Drop for Activity {
    fn drop(&mut self) {
        self.0.touch();
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

struct Service(Arc<State>);

#[tonic::async_trait]
impl Kiln for Service {
    async fn status(
        &self,
        _req: Request<proto::StatusRequest>,
    ) -> Result<Response<proto::StatusReply>, Status> {
        let _a = Activity::new(&self.0);
        let s = &self.0;
        Ok(Response::new(proto::StatusReply {
            version: s.info.version.clone(),
            build_id: s.info.build_id.clone(),
            pid: s.info.pid,
            socket: s.info.socket.to_string_lossy().into_owned(),
            daemon_dir: s.dir.dir.to_string_lossy().into_owned(),
            uptime_ms: s.started.elapsed().as_millis() as u64,
            idle_timeout_secs: s.idle_timeout.as_secs(),
        }))
    }

    async fn build(
        &self,
        req: Request<proto::BuildRequest>,
    ) -> Result<Response<proto::BuildReply>, Status> {
        let activity = Activity::new(&self.0);
        let spec = BuildSpec::from_proto(req.get_ref()).map_err(Status::invalid_argument)?;
        let state = self.0.clone();
        let reply = tokio::task::spawn_blocking(move || {
            let _a = activity;
            state.build(&spec)
        })
        .await
        .map_err(|e| Status::internal(format!("build failed: {e}")))?;
        Ok(Response::new(reply))
    }

    type WatchStream = ReceiverStream<Result<proto::WatchEvent, Status>>;

    async fn watch(
        &self,
        req: Request<proto::BuildRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        let activity = Activity::new(&self.0);
        let spec = BuildSpec::from_proto(req.get_ref()).map_err(Status::invalid_argument)?;
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let state = self.0.clone();
        tokio::task::spawn_blocking(move || {
            let _a = activity;
            if let Err(e) = crate::watch::watch_loop(&spec, &tx, |s| state.build(s)) {
                let _ = tx.blocking_send(Err(Status::internal(e)));
            }
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn stats(
        &self,
        _req: Request<proto::StatsRequest>,
    ) -> Result<Response<proto::StatsReply>, Status> {
        let _a = Activity::new(&self.0);
        let s = &self.0;
        let snap = s.runtime.counters.snapshot();
        let (disk, cache) = match s.runtime.store.as_ref() {
            Some(st) => (st.stats().unwrap_or_default(), st.counters()),
            None => Default::default(),
        };
        Ok(Response::new(proto::StatsReply {
            counts: driver::to_proto_counts(&snap),
            cache_entries: disk.entries,
            cache_bytes: disk.bytes,
            cache_hits: cache.hits,
            cache_misses: cache.misses,
            cache_corrupt: cache.corrupt,
            builds: s.builds.load(Ordering::Relaxed),
            cancelled_retries: s.retries.load(Ordering::Relaxed),
            remote_url: s
                .runtime
                .store
                .as_ref()
                .and_then(|st| st.remote())
                .map(|r| r.url().to_string())
                .unwrap_or_default(),
            remote_hits: cache.remote_hits,
            remote_misses: cache.remote_misses,
            remote_rejected: cache.remote_rejected,
            remote_uploads: cache.remote_uploads,
            remote_errors: cache.remote_errors,
        }))
    }

    async fn shutdown(
        &self,
        _req: Request<proto::ShutdownRequest>,
    ) -> Result<Response<proto::ShutdownReply>, Status> {
        tracing::info!("shutdown requested");
        self.0.shutdown.notify_one();
        Ok(Response::new(proto::ShutdownReply {}))
    }
}

/// The build id this daemon announces in `Status` and its info file: its own, unless
/// `KILN_DAEMON_ANNOUNCE_BUILD_ID` says otherwise (to make a running daemon look like one of
/// another build, e.g. to test that clients restart it). Cache keys always use the real one.
fn announced_build_id() -> String {
    std::env::var("KILN_DAEMON_ANNOUNCE_BUILD_ID")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| crate::db::build_id().to_string())
}

fn watching(mut ws: Workspace) -> Workspace {
    ws.watch_directories();
    ws
}

/// Run the daemon in the foreground until it is told to stop.
pub fn run(opts: Options) -> Result<(), String> {
    let dir = DaemonDir::for_workspace(opts.runtime_dir.as_deref(), &opts.workspace)
        .map_err(|e| e.to_string())?;
    let mut pid_file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(dir.pid_file())
        .map_err(|e| format!("{}: {e}", dir.pid_file().display()))?;
    if !pid_file.try_lock_exclusive().map_err(|e| e.to_string())? {
        return Err(format!(
            "a kiln daemon is already running for {} (pid file {})",
            dir.workspace.display(),
            dir.pid_file().display()
        ));
    }
    init_logging(&dir.log_file(), opts.log_json)?;
    pid_file.set_len(0).map_err(|e| e.to_string())?;
    pid_file.rewind().map_err(|e| e.to_string())?;
    writeln!(pid_file, "{}", std::process::id()).map_err(|e| e.to_string())?;

    let remote = opts.remote_cache.as_deref();
    let remote = remote.map(|u| (u, opts.remote_options.clone()));
    let store = paths::open_store(&opts.cache_dir, opts.cache_cap_bytes, remote)
        .inspect_err(|e| tracing::warn!(error = %e, "persistent cache unavailable"))
        .ok();
    let db = Db::new(store);
    let info = Info {
        version: VERSION.to_string(),
        build_id: announced_build_id(),
        pid: std::process::id(),
        socket: dir.socket(),
    };
    let state = Arc::new(State {
        runtime: db.shared_runtime(),
        ws: Mutex::new(watching(Workspace::new(db))),
        started: Instant::now(),
        last_activity_ms: AtomicU64::new(0),
        in_flight: AtomicUsize::new(0),
        builds: AtomicU64::new(0),
        retries: AtomicU64::new(0),
        shutdown: tokio::sync::Notify::new(),
        info,
        dir: dir.clone(),
        idle_timeout: opts.idle_timeout,
    });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let result = rt.block_on(serve(state.clone()));
    // Queued cache entries reach disk before the next daemon can start and read them.
    if let Some(Err(e)) = state.runtime.store.as_ref().map(|s| s.flush()) {
        tracing::warn!(error = %e, "cannot write queued cache entries");
    }
    if dir.read_info().is_some_and(|i| i.pid == std::process::id()) {
        let _ = std::fs::remove_file(dir.info_file());
        let _ = std::fs::remove_file(dir.socket());
    }
    tracing::info!("daemon stopped");
    drop(pid_file);
    result
}

async fn serve(state: Arc<State>) -> Result<(), String> {
    let socket = state.dir.socket();
    let _ = std::fs::remove_file(&socket);
    let listener = tokio::net::UnixListener::bind(&socket)
        .map_err(|e| format!("{}: {e}", socket.display()))?;
    state
        .dir
        .write_info(&state.info)
        .map_err(|e| e.to_string())?;
    tracing::info!(socket = %socket.display(), pid = state.info.pid, build_id = %state.info.build_id, "daemon listening");
    let stop = stop_signal(state.clone());
    tonic::transport::Server::builder()
        .add_service(KilnServer::new(Service(state.clone())))
        .serve_with_incoming_shutdown(UnixListenerStream::new(listener), stop)
        .await
        .map_err(|e| e.to_string())
}

/// Resolves when the daemon should stop: Shutdown, a signal, idle timeout, or when the info
/// file names another process (a newer daemon took over the directory).
async fn stop_signal(state: Arc<State>) {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let check = Duration::from_millis(500).min(state.idle_timeout.max(Duration::from_millis(50)));
    loop {
        tokio::select! {
            _ = state.shutdown.notified() => return,
            _ = tokio::signal::ctrl_c() => return,
            _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending().await } } => return,
            _ = tokio::time::sleep(check) => {
                if state.in_flight.load(Ordering::Relaxed) == 0 && state.idle_for() >= state.idle_timeout {
                    tracing::info!(idle_secs = state.idle_timeout.as_secs(), "idle timeout");
                    return;
                }
                if state.dir.read_info().is_none_or(|i| i.pid != state.info.pid) {
                    tracing::warn!("info file replaced or removed; exiting");
                    return;
                }
            }
        }
    }
}

/// Log to `path` (appending), filtered by `RUST_LOG` (default `info,salsa=warn`: salsa logs
/// every query execution at `info`, tens of thousands of lines per cold build), as text or
/// JSON lines.
fn init_logging(path: &Path, json: bool) -> Result<(), String> {
    use tracing_subscriber::EnvFilter;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,salsa=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(Mutex::new(file));
    let result = if json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
    if let Err(e) = result {
        // Already initialised (e.g. in tests running a daemon in-process): keep that one.
        eprintln!("kiln daemon: logging not initialised: {e}");
    }
    Ok(())
}

/// Arguments of `kiln daemon` (the foreground server), shared by every binary that can run
/// the daemon.
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
    /// Remote cache tier behind the local cache: `http://HOST:PORT[/PREFIX]` (Bazel HTTP
    /// cache protocol) or `grpc://HOST:PORT[/INSTANCE]` (REAPI).
    #[arg(long, env = "KILN_REMOTE_CACHE")]
    pub remote_cache: Option<String>,
    #[command(flatten)]
    pub remote_options: crate::remote_args::RemoteOptionArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

impl Args {
    pub fn options(&self) -> Result<Options, String> {
        let remote_cache = self.remote_cache.clone().filter(|u| !u.is_empty());
        if let Some(url) = &remote_cache {
            kiln_cache::remote::Remote::connect(url)?; // reject a malformed URL up front
        }
        let workspace = match &self.workspace {
            Some(w) => w.clone(),
            None => std::env::current_dir().map_err(|e| e.to_string())?,
        };
        Ok(Options {
            workspace,
            runtime_dir: self.runtime_dir.clone(),
            cache_dir: self.cache_dir.clone().unwrap_or_else(paths::cache_dir),
            idle_timeout: Duration::from_secs(self.idle_timeout),
            log_json: self.log_format == LogFormat::Json,
            cache_cap_bytes: self.cache_cap,
            remote_cache,
            remote_options: self.remote_options.options()?,
        })
    }
}
