//! Where a daemon lives: a per-user, per-workspace directory with mode 0700 holding the
//! socket, the pid file (exclusively locked while the daemon runs), the info file, the
//! lifecycle lock taken by clients that start or stop a daemon, and the log.
//!
//! The base is `$XDG_RUNTIME_DIR/kiln`, else `<temp dir>/kiln-<uid>`; the workspace is
//! identified by a digest of its canonical path, short enough to keep the socket path under
//! the 108-byte `sun_path` limit. The persistent cache lives elsewhere ([`cache_dir`]): it
//! must survive logouts, which clear `XDG_RUNTIME_DIR`.

use serde::{Deserialize, Serialize};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct DaemonDir {
    pub dir: PathBuf,
    pub workspace: PathBuf,
}

/// What a running daemon says about itself (written once it listens).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Info {
    pub version: String,
    pub build_id: String,
    pub pid: u32,
    pub socket: PathBuf,
}

impl DaemonDir {
    /// The daemon directory of `workspace`, created with mode 0700, under `base` (default:
    /// `$XDG_RUNTIME_DIR/kiln`, else `<temp dir>/kiln-<uid>`).
    pub(crate) fn for_workspace(base: Option<&Path>, workspace: &Path) -> io::Result<DaemonDir> {
        let workspace = workspace
            .canonicalize()
            .unwrap_or_else(|_| workspace.to_path_buf());
        let digest = kiln_cache::digest(workspace.as_os_str().as_encoded_bytes());
        let base = match base {
            Some(b) => {
                create_private_dir(b)?;
                b.to_path_buf()
            }
            None => base_dir()?,
        };
        let dir = base.join(&kiln_cache::hex(&digest)[..16]);
        create_private_dir(&dir)?;
        Ok(DaemonDir { dir, workspace })
    }

    pub fn socket(&self) -> PathBuf {
        self.dir.join("sock")
    }
    pub(crate) fn pid_file(&self) -> PathBuf {
        self.dir.join("daemon.pid")
    }
    pub fn info_file(&self) -> PathBuf {
        self.dir.join("daemon.info")
    }
    pub(crate) fn lifecycle_lock(&self) -> PathBuf {
        self.dir.join("lifecycle.lock")
    }
    pub(crate) fn log_file(&self) -> PathBuf {
        self.dir.join("daemon.log")
    }

    pub fn read_info(&self) -> Option<Info> {
        let text = fs::read_to_string(self.info_file()).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Written through the project's one atomic writer: readers see the old file or the new.
    pub(crate) fn write_info(&self, info: &Info) -> io::Result<()> {
        let bytes = serde_json::to_vec_pretty(info).map_err(io::Error::other)?;
        crate::writer::write_atomic(&self.info_file(), &[bytes])
            .map(drop)
            .map_err(io::Error::other)
    }
}

fn base_dir() -> io::Result<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_RUNTIME_DIR").filter(|x| !x.is_empty()) {
        let base = PathBuf::from(x).join("kiln");
        if create_private_dir(&base).is_ok() {
            return Ok(base);
        }
    }
    let uid = unsafe { libc::geteuid() };
    let base = std::env::temp_dir().join(format!("kiln-{uid}"));
    create_private_dir(&base)?;
    Ok(base)
}

/// The runtime directory's checks: see [`kiln_cache::private::create_private_dir`]; an
/// existing directory of the wrong mode is refused, never changed.
fn create_private_dir(dir: &Path) -> io::Result<()> {
    kiln_cache::private::create_private_dir(dir, false)
}

/// The persistent cache directory: `$KILN_CACHE_DIR`, else `$XDG_CACHE_HOME/kiln`, else
/// `~/.cache/kiln`, else `<temp dir>/kiln-cache-<uid>`.
pub fn cache_dir() -> PathBuf {
    if let Some(x) = std::env::var_os("KILN_CACHE_DIR").filter(|x| !x.is_empty()) {
        return PathBuf::from(x);
    }
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(x).join("kiln");
    }
    if let Some(h) = std::env::var_os("HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(h).join(".cache/kiln");
    }
    let uid = unsafe { libc::geteuid() };
    std::env::temp_dir().join(format!("kiln-cache-{uid}"))
}

/// Why the persistent store could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {source}", dir.display())]
    Open {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Remote(#[from] kiln_cache::remote::ConnectError),
}

/// Open the persistent store at `dir` with a size cap, behind which `remote` (a remote
/// cache URL, see [`kiln_cache::remote::Remote`], with its options) is consulted on local
/// misses.
pub fn open_store(
    dir: &Path,
    cap_bytes: u64,
    remote: Option<(&str, kiln_cache::remote::Options)>,
) -> Result<kiln_cache::Store, StoreError> {
    let store = kiln_cache::Store::open(dir, cap_bytes).map_err(|source| StoreError::Open {
        dir: dir.to_path_buf(),
        source,
    })?;
    match remote.filter(|(u, _)| !u.is_empty()) {
        Some((url, options)) => {
            Ok(store.with_remote(kiln_cache::remote::Remote::connect_with(url, options)?))
        }
        None => Ok(store),
    }
}
