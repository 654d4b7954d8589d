//! A build engine around one database: the input layer (`Workspace`), the compute step's
//! memos (`Memos`) and the output writer (`Writer`). The daemon serves every request
//! with one [`Builder`]; a process that needs the cached query pipeline itself (a build on
//! a remote cache, tests counting query executions) makes its own.
//!
//! A build syncs the inputs under the workspace's lock (the only writer of salsa inputs),
//! computes on a clone of the database, and writes. Writing an input cancels clones that are
//! computing (`salsa::Cancelled`): a cancelled build syncs again and retries.

pub use crate::writer::{LARGE, Spares, WriteError, write_atomic};

use crate::compute::{self, Computed, GroupResults, Memos};
use crate::counters::{self, Snapshot};
use crate::db::{Db, Runtime};
use crate::report::{BuildReport, Times};
use crate::spec::BuildSpec;
use crate::spec::HandshakeSpec;
use crate::watcher::Watcher;
use crate::why::Explanation;
use crate::workspace::{Overlay, OverlayChange, OverlayError, Workspace};
use crate::writer::{WriteTimes, Writer};
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The state of incremental builds: inputs, database, memos, writer.
pub struct Builder {
    workspace: Mutex<Workspace>,
    runtime: Arc<Runtime>,
    memos: Memos,
    writer: Writer,
    builds: AtomicU64,
    retries: AtomicU64,
    /// Why the queries of the last build executed, and its results (each output's input,
    /// looked up only when asked: listing them on every build was 40% of a no-op library
    /// build's instructions).
    last: Mutex<(Arc<Explanation>, Vec<GroupResults>)>,
    /// The threads of [`Builder::write_behind`].
    behind: Mutex<Vec<std::thread::JoinHandle<()>>>,
}

impl Builder {
    /// A builder whose cached queries use `store`; with a `watcher`, input and output
    /// directories are re-read only where it marked changes.
    pub fn new(
        store: Option<kiln_cache::Store>,
        watcher: Option<Arc<Watcher>>,
        spares: Spares,
    ) -> Builder {
        Builder::on(Db::new(store), watcher, spares)
    }

    /// A builder on `db`.
    pub fn on(db: Db, watcher: Option<Arc<Watcher>>, spares: Spares) -> Builder {
        Builder {
            runtime: db.shared_runtime(),
            workspace: Mutex::new(Workspace::new(db, watcher)),
            memos: Memos::default(),
            writer: Writer::new(spares),
            builds: AtomicU64::new(0),
            retries: AtomicU64::new(0),
            last: Mutex::default(),
            behind: Mutex::default(),
        }
    }

    /// A builder for this process alone: no watcher, spares only on rewrites.
    pub fn in_process(store: Option<kiln_cache::Store>) -> Builder {
        Builder::new(store, None, Spares::OnRewrite)
    }

    /// One build: sync under the lock, compute on a clone (again when cancelled), write.
    pub fn build(&self, spec: &BuildSpec) -> BuildReport {
        let start = Instant::now();
        let before = self.runtime.counters.snapshot();
        let _recording = self.runtime.explain.begin();
        loop {
            let t = Instant::now();
            let (db, resolved) = {
                let mut ws = self.workspace.lock().unwrap_or_else(|e| e.into_inner());
                let resolved = ws.sync(spec);
                // In the order the marks were taken: what changed below the output
                // directory is checked again, whichever build wrote it.
                self.writer
                    .invalidate(&spec.out_dir, &resolved.output_marks);
                (ws.db.clone(), resolved)
            };
            let sync = t.elapsed();
            let computed = salsa::Cancelled::catch(AssertUnwindSafe(|| {
                compute::compute(&db, &self.memos, spec, &resolved)
            }));
            let compute = t.elapsed() - sync;
            match computed {
                Ok(computed) => {
                    let explained = self.runtime.explain.finish(&db);
                    drop(db);
                    *self.last.lock().unwrap_or_else(|e| e.into_inner()) =
                        (Arc::new(explained), computed.groups.clone());
                    self.builds.fetch_add(1, Ordering::Relaxed);
                    let after = self.runtime.counters.snapshot();
                    let times = Times {
                        sync,
                        compute,
                        ..Times::default()
                    };
                    let counts = counters::diff(&before, &after);
                    // What went wrong with the remote tier: one line per build, whatever
                    // the server sent (details at debug level).
                    if let Some(notice) = self.store().and_then(|s| s.remote_notice()) {
                        tracing::warn!("{notice}");
                    }
                    return finish(&self.writer, computed, spec, counts, start, times);
                }
                Err(c) => {
                    drop(db);
                    tracing::debug!(reason = ?c, "build cancelled by an input change; retrying");
                    self.retries.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }

    /// Apply an editor's change to the overlay of `path` (see [`crate::workspace`]), then run
    /// `f` on it, on a clone of the database (again when cancelled by another input write).
    pub(crate) fn edit_overlay<R>(
        &self,
        path: &Path,
        version: i32,
        change: OverlayChange,
        handshake: &HandshakeSpec,
        f: impl Fn(&Db, Overlay) -> R,
    ) -> Result<R, OverlayError> {
        let overlay = self.lock().set_overlay(path, version, change, handshake)?;
        Ok(self.on_clone(|db| f(db, overlay)))
    }

    /// Do the persistent store's writes editors' analyses left for later (their values
    /// shared with the memos: [`crate::db::without_stores`]) on a thread of its own; whether
    /// any were left.
    pub(crate) fn write_behind(&self) -> bool {
        if !self.runtime.has_deferred() {
            return false;
        }
        let runtime = self.runtime.clone();
        let spawned = std::thread::Builder::new()
            .name("kiln-write-behind".into())
            .spawn(move || runtime.write_deferred());
        match spawned {
            Ok(h) => {
                let mut behind = self.behind.lock().unwrap_or_else(|e| e.into_inner());
                behind.retain(|h| !h.is_finished());
                behind.push(h);
            }
            // Here, then.
            Err(_) => self.runtime.write_deferred(),
        }
        true
    }

    /// Wait for the writes [`Builder::write_behind`] started (before the store is flushed
    /// at exit).
    pub(crate) fn wait_writes_behind(&self) {
        let behind = std::mem::take(&mut *self.behind.lock().unwrap_or_else(|e| e.into_inner()));
        for h in behind {
            let _ = h.join();
        }
    }

    /// `f` on the overlay of `path`, if an editor has it open.
    pub(crate) fn with_overlay<R>(&self, path: &Path, f: impl Fn(&Db, Overlay) -> R) -> Option<R> {
        let overlay = self.lock().overlay(path)?;
        Some(self.on_clone(|db| f(db, overlay)))
    }

    /// The editor closed `path`.
    pub(crate) fn close_overlay(&self, path: &Path) {
        self.lock().close_overlay(path);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Workspace> {
        self.workspace.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `f` on a clone of the database, again when an input write cancels it.
    fn on_clone<R>(&self, f: impl Fn(&Db) -> R) -> R {
        loop {
            let db = self.lock().db.clone();
            match salsa::Cancelled::catch(AssertUnwindSafe(|| f(&db))) {
                Ok(r) => return r,
                Err(_) => self.retries.fetch_add(1, Ordering::Relaxed),
            };
        }
    }

    /// Why the queries of the last build executed, with each output of the build and the
    /// input it is made from.
    pub fn explanation(&self) -> Explanation {
        let (explained, groups) = self.last.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let results = groups.iter().flat_map(|g| g.iter());
        let outputs = results
            .flat_map(|r| r.outputs.iter().map(|o| (o.path.clone(), r.input.clone())))
            .collect();
        Explanation {
            outputs,
            ..Arc::unwrap_or_clone(explained)
        }
    }

    /// The functions or models of each of `inputs` (those it read).
    pub(crate) fn items(
        &self,
        inputs: impl IntoIterator<Item = std::path::PathBuf>,
    ) -> Vec<(std::path::PathBuf, Vec<String>)> {
        let ws = self.lock();
        inputs
            .into_iter()
            .filter_map(|i| Some((ws.items(&i)?, i)))
            .map(|(items, i)| (i, items))
            .collect()
    }

    /// Query executions and cache hits since this builder started.
    pub(crate) fn counters(&self) -> Snapshot {
        self.runtime.counters.snapshot()
    }

    pub fn store(&self) -> Option<&kiln_cache::Store> {
        self.runtime.store.as_ref()
    }

    /// Builds done, and builds cancelled by an input change and retried.
    pub(crate) fn builds(&self) -> (u64, u64) {
        (
            self.builds.load(Ordering::Relaxed),
            self.retries.load(Ordering::Relaxed),
        )
    }
}

/// Write `computed` and make the report (shared by every kind of build).
pub(crate) fn finish(
    writer: &Writer,
    computed: Computed,
    spec: &BuildSpec,
    counts: Snapshot,
    start: Instant,
    mut times: Times,
) -> BuildReport {
    let mut diagnostics: Vec<_> = computed.reports().cloned().collect();
    let mut written = WriteTimes::default();
    let files = match writer.write(&computed, spec, &mut written) {
        Ok(f) => f,
        Err(e) => {
            let message = e.located().or_code(compiler::diag::Code::WriteFailed);
            diagnostics.push(crate::report::FileReport {
                path: message.path.clone(),
                messages: vec![message],
                ..Default::default()
            });
            Default::default()
        }
    };
    times.hash = written.hash;
    times.write = written.write;
    times.total = start.elapsed();
    BuildReport {
        files: files.files,
        unchanged_omitted: files.unchanged_omitted,
        diagnostics,
        counts,
        times,
    }
}

#[cfg(test)]
mod tests;
