//! The daemon process: gRPC (tonic) over a Unix socket in the daemon directory.
//!
//! Lifecycle: take the pid file's exclusive lock (a second daemon for the same workspace
//! exits at once), bind the socket, write the info file, serve until `Shutdown`, an idle
//! timeout, SIGTERM/SIGINT, or the info file no longer naming this process. Logs go to
//! `daemon.log` in the daemon directory (`RUST_LOG` filter, text or JSON lines).
//!
//! Every request is served by one [`Builder`] (see there for concurrency and cancellation);
//! the wire is `crate::rpc`'s. `Watch` streams rebuild when the daemon's one file watcher
//! (`crate::watcher`) reports a relevant change, after a quiet period (`DEBOUNCE` or
//! the request's): a change of an input, never one in the output directory or of kiln's own
//! files, and never one made before the last build read its inputs (each build is preceded
//! by a mark of the stream). A failed build that an input changed during or within the
//! quiet period after is not sent: it read a file being written, and the stream builds
//! again once the file settled. A stream's CSR configuration file (`aps_config_path`) is
//! watched like an input and read before each build: one that does not read fails that
//! build with its located messages, outputs untouched.

pub use crate::db::build_id;
pub use crate::remote_args::RemoteSettings;

use crate::build::Builder;
use crate::ide::{self, Analysis, Ide};
use crate::paths::{self, DaemonDir, Info};
use crate::report::{BuildReport, FileReport};
use crate::rpc::{self, DaemonStats, DaemonStatus, Events, WatchEvent};
use crate::spec::{BuildSpec, is_blif, is_mlir, not_an_input};
use crate::watcher::{Batch, WatchError, Watcher};
use crate::workspace::OverlayError;
use crate::writer::Spares;
use compiler::diag::Located;
use fs4::fs_std::FileExt;
use std::collections::BTreeSet;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The kiln version, compared by clients together with [`crate::db::build_id`].
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Quiet period before a burst of changes triggers a rebuild of a `Watch` stream, unless
/// the request asks for another.
pub(crate) const DEBOUNCE: Duration = Duration::from_millis(150);

#[derive(Debug, Clone)]
pub struct Options {
    pub workspace: PathBuf,
    pub runtime_dir: Option<PathBuf>,
    pub cache_dir: PathBuf,
    pub idle_timeout: Duration,
    pub log_json: bool,
    pub cache_cap_bytes: u64,
    /// Remote cache tier behind the local store (`http[s]://…` or `grpc[s]://…`).
    pub remote_cache: Option<String>,
    pub remote_options: kiln_cache::remote::Options,
}

/// Why the daemon could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("a kiln daemon is already running for {} (pid file {})", workspace.display(), pid_file.display())]
    Running {
        workspace: PathBuf,
        pid_file: PathBuf,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Options(String),
    #[error(transparent)]
    Remote(#[from] kiln_cache::remote::ConnectError),
    #[error("serving: {0}")]
    Serve(#[from] tonic::transport::Error),
}

fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> ServerError + '_ {
    move |source| ServerError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The daemon's state: one builder for every request, the watcher, and its lifecycle.
struct State {
    builder: Builder,
    /// Editors' per-document memos.
    ide: Ide,
    watcher: Option<Arc<Watcher>>,
    started: Instant,
    last_activity_ms: AtomicU64,
    in_flight: AtomicUsize,
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

impl rpc::Service for State {
    fn busy(self: &Arc<Self>) -> Box<dyn Send> {
        Box::new(Activity::new(self))
    }

    fn status(&self) -> DaemonStatus {
        DaemonStatus {
            version: self.info.version.clone(),
            build_id: self.info.build_id.clone(),
            pid: self.info.pid,
            socket: self.info.socket.clone(),
            daemon_dir: self.dir.dir.clone(),
            uptime: self.started.elapsed(),
            idle_timeout: self.idle_timeout,
        }
    }

    fn build(&self, spec: &BuildSpec) -> BuildReport {
        self.builder.build(spec)
    }

    fn watch(
        &self,
        spec: &BuildSpec,
        debounce: Option<Duration>,
        events: &Events,
    ) -> Result<(), WatchError> {
        let debounce = debounce.unwrap_or(DEBOUNCE);
        let watcher = self.watcher.as_ref().ok_or(WatchError::Unavailable)?;
        let dirs = watched_dirs(spec);
        let subscription = watcher.subscribe(&dirs)?;
        let dirs: Vec<PathBuf> = dirs.into_iter().map(|(d, _)| d).collect();
        let relevant = Relevance::new(spec);
        let poll = Duration::from_millis(200);
        let next = |mark: &mut Option<PathBuf>, first_by| {
            subscription.next_batch(
                |p, dir| relevant.matches(p, dir),
                debounce,
                poll,
                || events.is_closed(),
                mark,
                first_by,
            )
        };
        let mut seq = 0;
        let mut changed = BTreeSet::new();
        loop {
            // Every change delivered before the mark is one this build reads.
            let mut mark = watcher.mark(&dirs);
            let report = match with_config(spec) {
                Ok(spec) => self.builder.build(&spec),
                Err(messages) => config_failure(messages),
            };
            // A failed build that an input changed during (or just after) read a file
            // still being written: build again once it settled instead of reporting it.
            if !report.ok() {
                match next(&mut mark, Some(Instant::now() + debounce)) {
                    Batch::Changed(c) => {
                        tracing::debug!(?c, "inputs changed during a failed build: again");
                        changed.extend(c);
                        continue;
                    }
                    Batch::Stopped => return Ok(()),
                    Batch::Quiet => {}
                }
            }
            if !events.send(WatchEvent {
                seq,
                changed: std::mem::take(&mut changed).into_iter().collect(),
                report,
            }) {
                return Ok(());
            }
            seq += 1;
            match next(&mut mark, None) {
                Batch::Changed(c) => changed.extend(c),
                Batch::Stopped => return Ok(()),
                // Not without a deadline.
                Batch::Quiet => {}
            }
        }
    }

    fn stats(&self) -> DaemonStats {
        let store = self.builder.store();
        let (disk, cache) = match store {
            Some(st) => (st.stats().unwrap_or_default(), st.counters()),
            None => Default::default(),
        };
        let (builds, cancelled_retries) = self.builder.builds();
        DaemonStats {
            counts: self.builder.counters(),
            cache,
            cache_entries: disk.entries,
            cache_bytes: disk.bytes,
            builds,
            cancelled_retries,
            remote_url: store
                .and_then(|st| st.remote())
                .map(|r| r.url().to_string()),
        }
    }

    fn shutdown(&self) {
        tracing::info!("shutdown requested");
        self.shutdown.notify_one();
    }

    fn why(&self, target: Option<&str>) -> crate::why::Explanation {
        let all = self.builder.explanation();
        let mut e = all.filtered(target);
        if let Some(t) = target
            && e.entries.is_empty()
        {
            e.unknown = all.unknown(t, &self.builder.items(all.inputs()));
        }
        e
    }

    fn analyze(&self, doc: &crate::ide::DocumentChange) -> Result<Analysis, OverlayError> {
        let change = doc.change.clone();
        let analysis =
            self.builder
                .edit_overlay(&doc.path, doc.version, change, &doc.handshake, |db, o| {
                    self.ide.analyze(db, &doc.path, o)
                });
        // The store's writes of what the analysis computed, once it is answered.
        self.builder.write_behind();
        analysis
    }

    fn navigate(&self, path: &Path, offset: usize) -> Option<ide::Navigation> {
        self.builder
            .with_overlay(path, |db, o| ide::navigate(db, o, offset))
    }

    fn outline(&self, path: &Path) -> Option<ide::Outline> {
        self.builder.with_overlay(path, ide::outline)
    }

    fn close(&self, path: &Path) {
        self.builder.close_overlay(path);
        self.ide.close(path);
    }
}

/// The directories a `Watch` stream watches: the input files' directories (not
/// recursively) and input directories (recursively).
fn watched_dirs(spec: &BuildSpec) -> Vec<(PathBuf, bool)> {
    let mut dirs = BTreeSet::new();
    for p in spec.inputs.iter().chain(&spec.aps_config_path) {
        if p.is_dir() {
            dirs.insert((p.clone(), true));
        } else if let Some(parent) = p.parent() {
            let parent = match parent.as_os_str().is_empty() {
                true => Path::new("."),
                false => parent,
            };
            dirs.insert((parent.to_path_buf(), false));
        }
    }
    dirs.into_iter().collect()
}

/// `spec` with the CSR configuration its file holds now (a `Watch` stream's
/// `aps_config_path`), or that file's messages when it does not read.
fn with_config(spec: &BuildSpec) -> Result<std::borrow::Cow<'_, BuildSpec>, Vec<Located>> {
    let Some(path) = &spec.aps_config_path else {
        return Ok(std::borrow::Cow::Borrowed(spec));
    };
    let config = crate::input::aps_config(path, &path.display().to_string())?;
    Ok(std::borrow::Cow::Owned(BuildSpec {
        aps_config: Some(config),
        ..spec.clone()
    }))
}

/// The report of a build that did not run: its CSR configuration's messages.
fn config_failure(messages: Vec<Located>) -> BuildReport {
    let path = messages.first().map(|m| m.path.clone()).unwrap_or_default();
    BuildReport {
        diagnostics: vec![FileReport {
            path,
            messages,
            ..FileReport::default()
        }],
        ..BuildReport::default()
    }
}

/// Which changed paths matter to a `Watch` stream: the input files (and the CSR
/// configuration file), directories created or
/// removed above them, and `.mlir`/`.blif` files (new ones included) and directories
/// created or removed below input directories, except in the output directory and kiln's
/// own.
struct Relevance {
    files: BTreeSet<PathBuf>,
    dirs: Vec<PathBuf>,
    out_dir: PathBuf,
}

impl Relevance {
    fn new(spec: &BuildSpec) -> Relevance {
        let (dirs, files): (Vec<PathBuf>, Vec<PathBuf>) =
            spec.inputs.iter().cloned().partition(|p| p.is_dir());
        let files = files
            .into_iter()
            .chain(spec.aps_config_path.clone())
            .collect();
        let out_dir = spec.out_dir.clone();
        Relevance {
            files,
            dirs,
            out_dir,
        }
    }

    /// Whether a change of `p` (`dir`: a directory created or removed) matters.
    fn matches(&self, p: &Path, dir: bool) -> bool {
        let input = dir || is_blif(p) || is_mlir(p);
        self.files.contains(p)
            || (dir && self.files.iter().any(|f| f.starts_with(p)))
            || (input
                && self
                    .dirs
                    .iter()
                    .any(|d| p.starts_with(d) && !not_an_input(p, d, &self.out_dir)))
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

/// Run the daemon in the foreground until it is told to stop.
pub fn run(opts: Options) -> Result<(), ServerError> {
    let workspace = &opts.workspace;
    let dir = DaemonDir::for_workspace(opts.runtime_dir.as_deref(), workspace)
        .map_err(io_at(workspace))?;
    let pid_path = dir.pid_file();
    let mut pid_file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&pid_path)
        .map_err(io_at(&pid_path))?;
    if !pid_file.try_lock_exclusive().map_err(io_at(&pid_path))? {
        return Err(ServerError::Running {
            workspace: dir.workspace.clone(),
            pid_file: pid_path,
        });
    }
    init_logging(&dir.log_file(), opts.log_json)?;
    pid_file.set_len(0).map_err(io_at(&pid_path))?;
    pid_file.rewind().map_err(io_at(&pid_path))?;
    writeln!(pid_file, "{}", std::process::id()).map_err(io_at(&pid_path))?;

    let remote = opts.remote_cache.as_deref();
    let remote = remote.map(|u| (u, opts.remote_options.clone()));
    let store = paths::open_store(&opts.cache_dir, opts.cache_cap_bytes, remote)
        .inspect_err(|e| tracing::warn!(error = %e, "persistent cache unavailable"))
        .ok();
    let watcher = Watcher::new();
    let info = Info {
        version: VERSION.to_string(),
        build_id: announced_build_id(),
        pid: std::process::id(),
        socket: dir.socket(),
    };
    let state = Arc::new(State {
        // The daemon's users edit and rebuild: large outputs get their spares ahead.
        builder: Builder::new(store, watcher.clone(), Spares::Ahead),
        ide: Ide::default(),
        watcher,
        started: Instant::now(),
        last_activity_ms: AtomicU64::new(0),
        in_flight: AtomicUsize::new(0),
        shutdown: tokio::sync::Notify::new(),
        info,
        dir: dir.clone(),
        idle_timeout: opts.idle_timeout,
    });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(io_at(Path::new("tokio runtime")))?;
    let result = rt.block_on(serve(state.clone()));
    // Queued cache entries reach disk before the next daemon can start and read them.
    state.builder.wait_writes_behind();
    if let Some(Err(e)) = state.builder.store().map(|s| s.flush()) {
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

async fn serve(state: Arc<State>) -> Result<(), ServerError> {
    let socket = state.dir.socket();
    let _ = std::fs::remove_file(&socket);
    let listener = tokio::net::UnixListener::bind(&socket).map_err(io_at(&socket))?;
    let info_file = state.dir.info_file();
    state
        .dir
        .write_info(&state.info)
        .map_err(io_at(&info_file))?;
    tracing::info!(socket = %socket.display(), pid = state.info.pid, build_id = %state.info.build_id, "daemon listening");
    let stop = stop_signal(state.clone());
    rpc::serve(listener, state, stop).await?;
    Ok(())
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
fn init_logging(path: &Path, json: bool) -> Result<(), ServerError> {
    use tracing_subscriber::EnvFilter;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io_at(path))?;
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

impl Options {
    /// The daemon of `workspace` with the defaults of `kiln daemon`: its runtime directory
    /// under `$XDG_RUNTIME_DIR/kiln`, the user's cache directory ([`paths::cache_dir`]),
    /// three idle hours, text logs, [`kiln_cache::DEFAULT_CAP_BYTES`], no remote tier.
    pub fn new(workspace: PathBuf) -> Options {
        Options {
            workspace,
            runtime_dir: None,
            cache_dir: paths::cache_dir(),
            idle_timeout: Duration::from_secs(3 * 3600),
            log_json: false,
            cache_cap_bytes: kiln_cache::DEFAULT_CAP_BYTES,
            remote_cache: None,
            remote_options: kiln_cache::remote::Options::default(),
        }
    }

    /// These options with the remote tier `remote` describes (none without a URL), checked
    /// up front: a malformed URL, or a CA given for a plain one, is an error here.
    pub fn with_remote(
        mut self,
        remote: &crate::remote_args::RemoteSettings,
    ) -> Result<Options, ServerError> {
        let url = remote.url.clone().filter(|u| !u.is_empty());
        let options = remote.options().map_err(ServerError::Options)?;
        if let Some(url) = &url {
            kiln_cache::remote::Remote::connect_with(url, options.clone())?;
        }
        self.remote_cache = url;
        self.remote_options = options;
        Ok(self)
    }
}
