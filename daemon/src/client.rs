//! The client side of the daemon protocol: find the workspace's daemon, start one under the
//! lifecycle lock when there is none, restart a daemon of another version or build, and
//! connect over the Unix socket. Holds no state beyond one command's connection.
//!
//! A daemon is *stale* when its pid file is not locked (it died, e.g. `kill -9`): its
//! socket and info file are removed. It is *mismatched* when `Status` reports another
//! version or build id: it is asked to shut down, and the pid-file lock tells when it is
//! gone. Starting spawns `<exe> daemon --workspace W` in its own process group, with its
//! output in the daemon directory, then polls `Status` until it answers.

use crate::db::build_id;
use crate::paths::DaemonDir;
use crate::report::BuildReport;
use crate::server::VERSION;
use crate::spec::BuildSpec;
use fs4::fs_std::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub use crate::rpc::{Client, DaemonStats, DaemonStatus, MAX_DEBOUNCE_MS, RpcError, WatchEvent};
/// How long a client waits for a daemon it started to answer.
pub(crate) const START_TIMEOUT: Duration = Duration::from_secs(20);

/// Why no daemon could be reached.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start {}: {source}", exe.display())]
    Start {
        exe: PathBuf,
        source: std::io::Error,
    },
    #[error("the kiln daemon did not start within {}s (see {})", START_TIMEOUT.as_secs(), log.display())]
    Timeout { log: PathBuf },
    #[error("a kiln daemon still holds {} after {}s", pid_file.display(), waited.as_secs())]
    StillRunning { pid_file: PathBuf, waited: Duration },
}

fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> ConnectError + '_ {
    move |source| ConnectError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Why a build did not go through the daemon (the caller then builds in process).
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    #[error(transparent)]
    Connect(#[from] ConnectError),
    #[error(transparent)]
    Call(#[from] RpcError),
    #[error("cannot run the client: {0}")]
    Runtime(std::io::Error),
}

/// How to reach (and if needed start) the daemon of a workspace.
#[derive(Debug, Clone)]
pub struct Connector {
    pub dir: DaemonDir,
    /// The executable to start as `<exe> daemon --workspace W [extra args]`.
    pub exe: PathBuf,
    pub daemon_args: Vec<String>,
}

impl Connector {
    pub fn new(workspace: &Path, exe: PathBuf) -> Result<Connector, ConnectError> {
        Connector::in_base(None, workspace, exe)
    }

    /// Like [`Connector::new`] with the daemon directories under `base` (also passed to the
    /// daemons it starts).
    pub fn in_base(
        base: Option<&Path>,
        workspace: &Path,
        exe: PathBuf,
    ) -> Result<Connector, ConnectError> {
        let dir = DaemonDir::for_workspace(base, workspace).map_err(io_at(workspace))?;
        let mut daemon_args = Vec::new();
        if let Some(b) = base {
            daemon_args.push("--runtime-dir".to_string());
            daemon_args.push(b.to_string_lossy().into_owned());
        }
        Ok(Connector {
            dir,
            exe,
            daemon_args,
        })
    }

    /// Connect to the running daemon, if any answers (no version check).
    pub async fn connect_existing(&self) -> Option<Client> {
        let socket = self.dir.socket();
        if !socket.exists() {
            return None;
        }
        Client::connect(&socket).await
    }

    /// A connection to a daemon of this exact version and build, starting (or restarting)
    /// one if needed.
    pub async fn ensure(&self) -> Result<Client, ConnectError> {
        if let Some(c) = self.matching().await {
            return Ok(c);
        }
        let lock = self.lifecycle_lock()?;
        let result = self.ensure_locked().await;
        drop(lock);
        result
    }

    async fn ensure_locked(&self) -> Result<Client, ConnectError> {
        // Another client may have started one while we waited for the lock.
        if let Some(c) = self.matching().await {
            return Ok(c);
        }
        if let Some(mut c) = self.connect_existing().await {
            tracing::info!("restarting a daemon of another version or build");
            let _ = c.shutdown().await;
        }
        self.wait_until_gone(Duration::from_secs(10)).await?;
        let _ = std::fs::remove_file(self.dir.socket());
        let _ = std::fs::remove_file(self.dir.info_file());
        self.spawn()?;
        let deadline = Instant::now() + START_TIMEOUT;
        while Instant::now() < deadline {
            if let Some(c) = self.matching().await {
                return Ok(c);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Err(ConnectError::Timeout {
            log: self.dir.dir.join("daemon.out"),
        })
    }

    /// A connected client whose daemon reports our version and build id.
    async fn matching(&self) -> Option<Client> {
        let mut c = self.connect_existing().await?;
        let status = c.status().await.ok()?;
        (status.version == VERSION && status.build_id == build_id()).then_some(c)
    }

    /// Whether a daemon process holds the pid-file lock.
    pub fn daemon_alive(&self) -> bool {
        let Ok(f) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(self.dir.pid_file())
        else {
            return false;
        };
        match f.try_lock_exclusive() {
            Ok(true) => {
                let _ = FileExt::unlock(&f);
                false
            }
            _ => true,
        }
    }

    /// Wait until no daemon holds the pid-file lock.
    pub async fn wait_until_gone(&self, timeout: Duration) -> Result<(), ConnectError> {
        let deadline = Instant::now() + timeout;
        while self.daemon_alive() {
            if Instant::now() >= deadline {
                return Err(ConnectError::StillRunning {
                    pid_file: self.dir.pid_file(),
                    waited: timeout,
                });
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Ok(())
    }

    fn lifecycle_lock(&self) -> Result<std::fs::File, ConnectError> {
        let path = self.dir.lifecycle_lock();
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io_at(&path))?;
        f.lock_exclusive().map_err(io_at(&path))?;
        Ok(f)
    }

    fn spawn(&self) -> Result<(), ConnectError> {
        use std::os::unix::process::CommandExt;
        let out_path = self.dir.dir.join("daemon.out");
        let out = std::fs::File::create(&out_path).map_err(io_at(&out_path))?;
        let err = out.try_clone().map_err(io_at(&out_path))?;
        Command::new(&self.exe)
            .arg("daemon")
            .arg("--workspace")
            .arg(&self.dir.workspace)
            .args(&self.daemon_args)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0)
            .spawn()
            .map_err(|source| ConnectError::Start {
                exe: self.exe.clone(),
                source,
            })?;
        Ok(())
    }
}

/// A current-thread runtime for one command's calls.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// Build through the workspace's daemon (starting it if needed). A connection lost during
/// the build (the daemon died) is retried once with a fresh daemon.
pub fn build_via_daemon(
    connector: &Connector,
    spec: &BuildSpec,
) -> Result<BuildReport, Unavailable> {
    let rt = runtime().map_err(Unavailable::Runtime)?;
    rt.block_on(async {
        let mut last = None;
        for _ in 0..2 {
            let mut client = connector.ensure().await?;
            match client.build(spec).await {
                Ok(r) => return Ok(r),
                Err(e @ RpcError::Rejected(_)) => return Err(e.into()),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or(RpcError::Failed("no attempt".into())).into())
    })
}

/// Build on the workspace's running daemon, without starting one; `None` when none answers.
pub fn build_on_running(connector: &Connector, spec: &BuildSpec) -> Option<BuildReport> {
    let rt = runtime().ok()?;
    rt.block_on(async {
        let mut client = connector.connect_existing().await?;
        client.build(spec).await.ok()
    })
}
