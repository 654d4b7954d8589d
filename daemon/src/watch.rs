//! `Watch`: rebuild whenever an input changes.
//!
//! The directories holding input files are watched non-recursively and input directories
//! (e.g. a BLIF library) recursively (notify + notify-debouncer-full), so that editor-style
//! atomic saves (write a temp file, rename it over the original), deletes, re-creates and
//! new files in input directories are all seen. Every rebuild re-reads the files from disk,
//! so the outcome never depends on which events were delivered, only on there being one
//! after the last change.

use crate::driver::{BuildSpec, is_blif, is_mlir};
use crate::proto;
use notify::RecursiveMode;
use notify_debouncer_full::{DebounceEventResult, new_debouncer};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;
use tonic::Status;

/// Quiet period before a burst of events triggers a rebuild.
pub const DEBOUNCE: Duration = Duration::from_millis(30);

/// Build once, then once per batch of relevant changes, sending one event per build, until
/// the receiver goes away.
pub fn watch_loop(
    spec: &BuildSpec,
    tx: &tokio::sync::mpsc::Sender<Result<proto::WatchEvent, Status>>,
    build: impl Fn(&BuildSpec) -> proto::BuildReply,
) -> Result<(), String> {
    let (etx, erx) = mpsc::channel::<DebounceEventResult>();
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |r| {
        let _ = etx.send(r);
    })
    .map_err(|e| e.to_string())?;
    for (dir, mode) in watched_dirs(spec) {
        debouncer
            .watch(&dir, mode)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let relevant = Relevance::new(spec);
    let mut seq = 0u64;
    let mut changed: Vec<String> = Vec::new();
    loop {
        let reply = build(spec);
        let event = proto::WatchEvent {
            seq,
            changed: std::mem::take(&mut changed),
            build: Some(reply),
        };
        if tx.blocking_send(Ok(event)).is_err() {
            return Ok(());
        }
        seq += 1;
        changed = wait_for_changes(&erx, &relevant, tx)?;
        if tx.is_closed() {
            return Ok(());
        }
    }
}

/// Block until at least one relevant path changed (drains what is queued); returns the
/// sorted changed paths. Returns early (empty) when the client is gone.
fn wait_for_changes(
    erx: &mpsc::Receiver<DebounceEventResult>,
    relevant: &Relevance,
    tx: &tokio::sync::mpsc::Sender<Result<proto::WatchEvent, Status>>,
) -> Result<Vec<String>, String> {
    let mut changed = BTreeSet::new();
    loop {
        match erx.recv_timeout(Duration::from_millis(200)) {
            Ok(Ok(events)) => {
                for ev in &events {
                    changed.extend(
                        ev.paths
                            .iter()
                            .filter(|p| relevant.matches(p))
                            .map(|p| p.to_string_lossy().into_owned()),
                    );
                }
            }
            Ok(Err(errors)) => {
                // Lost events (e.g. queue overflow): rebuild to be safe.
                tracing::warn!(?errors, "file watcher errors");
                changed.insert(String::new());
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err("watcher stopped".into()),
        }
        if tx.is_closed() {
            return Ok(Vec::new());
        }
        if !changed.is_empty() {
            changed.remove("");
            return Ok(changed.into_iter().collect());
        }
    }
}

fn watched_dirs(spec: &BuildSpec) -> BTreeSet<(PathBuf, RecursiveMode)> {
    let mut dirs = BTreeSet::new();
    for p in &spec.inputs {
        if p.is_dir() {
            dirs.insert((p.clone(), RecursiveMode::Recursive));
        } else if let Some(parent) = p.parent() {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            dirs.insert((parent.to_path_buf(), RecursiveMode::NonRecursive));
        }
    }
    dirs
}

/// Which changed paths matter: the input files, and `.mlir`/`.blif` files below input
/// directories (new ones included).
struct Relevance {
    files: BTreeSet<PathBuf>,
    dirs: Vec<PathBuf>,
}

impl Relevance {
    fn new(spec: &BuildSpec) -> Relevance {
        let (dirs, files): (Vec<PathBuf>, Vec<PathBuf>) =
            spec.inputs.iter().cloned().partition(|p| p.is_dir());
        let files = files.into_iter().collect();
        Relevance { files, dirs }
    }

    fn matches(&self, p: &Path) -> bool {
        self.files.contains(p)
            || ((is_blif(p) || is_mlir(p)) && self.dirs.iter().any(|d| p.starts_with(d)))
    }
}
