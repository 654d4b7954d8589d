//! The daemon's one file watcher (notify: inotify on Linux). It serves two readers:
//!
//! - builds, through change *marks*: which paths below a root (an input or output directory,
//!   watched recursively from its first build on) changed since the root's last build, so a
//!   build of a big library stats only those ([`Watcher::take`]). Before trusting a root's
//!   marks a build synchronises with the watcher through a cookie file, as Watchman does: it
//!   creates `.kiln-cookie-*` in the root and waits until the watcher reports it; inotify
//!   delivers a directory's events in order, so every change made before the cookie has then
//!   been seen. A root whose watch failed or overflowed, or whose cookie came late, is not
//!   trusted: the build stats everything below it (always correct, only slower), after
//!   which it is trusted again.
//! - `Watch` streams, through subscriptions ([`Watcher::subscribe`]): every changed path
//!   below the directories a stream watches, so it can rebuild once a burst of changes is
//!   over ([`Subscription::next_batch`]).
//!
//! Reads are not changes: open, read and close events are ignored (a build's own reads of
//! its inputs would otherwise mark them all).

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a build waits for its cookie before falling back to stat.
const COOKIE_TIMEOUT: Duration = Duration::from_millis(500);

const COOKIE_PREFIX: &str = ".kiln-cookie-";

/// What a build may assume about a root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum RootMarks {
    /// Only these paths below the root may have changed since the last build.
    Changed(BTreeSet<PathBuf>),
    /// Anything may have changed: stat everything (the root is trusted afterwards).
    #[default]
    Unknown,
}

/// A change a subscription reports.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Change {
    Path(PathBuf),
    /// Events were lost (an overflow, a watcher error): anything may have changed.
    Unknown,
}

/// The watcher and what it has seen.
pub struct Watcher {
    notify: Mutex<RecommendedWatcher>,
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled on every event (builds wait here for their cookies).
    seen: Condvar,
}

#[derive(Default)]
struct State {
    /// Directories watched, and whether recursively.
    watched: BTreeMap<PathBuf, bool>,
    /// Roots whose marks builds take; `true` once a full scan happened since their marks
    /// were last unreliable.
    roots: BTreeMap<PathBuf, bool>,
    dirty: BTreeSet<PathBuf>,
    cookies_seen: BTreeSet<PathBuf>,
    cookie_seq: u64,
    subscribers: Vec<mpsc::Sender<Change>>,
}

impl Watcher {
    /// A watcher, or `None` (with a warning) when the system cannot watch files: builds
    /// then stat their inputs and `Watch` streams fail.
    pub fn new() -> Option<Arc<Watcher>> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            seen: Condvar::new(),
        });
        let sink = shared.clone();
        let notify = notify::recommended_watcher(move |e| sink.note(e))
            .map_err(|e| tracing::warn!(error = %e, "no file watcher; builds stat their inputs"))
            .ok()?;
        Some(Arc::new(Watcher {
            notify: Mutex::new(notify),
            shared,
        }))
    }

    /// Watch `dir` (recursively or not) from now on, unless it is already covered.
    fn watch(&self, dir: &Path, recursive: bool) -> notify::Result<()> {
        let covered = {
            let state = self.shared.lock();
            state.watched.get(dir).is_some_and(|r| *r || !recursive)
                || dir
                    .ancestors()
                    .skip(1)
                    .any(|a| state.watched.get(a) == Some(&true))
        };
        if covered {
            return Ok(());
        }
        let mode = match recursive {
            true => RecursiveMode::Recursive,
            false => RecursiveMode::NonRecursive,
        };
        let mut notify = self.notify.lock().unwrap_or_else(|e| e.into_inner());
        if self.shared.lock().watched.contains_key(dir) {
            // Watched non-recursively until now.
            let _ = notify.unwatch(dir);
        }
        notify.watch(dir, mode)?;
        self.shared
            .lock()
            .watched
            .insert(dir.to_path_buf(), recursive);
        Ok(())
    }

    /// The marks of `root` since the last call for it (watching it from now on if needed).
    pub fn take(&self, root: &Path) -> RootMarks {
        let is_root = self.shared.lock().roots.contains_key(root);
        if !is_root {
            if let Err(e) = self.watch(root, true) {
                tracing::debug!(root = %root.display(), error = %e, "not watched");
                return RootMarks::Unknown;
            }
            self.shared.lock().roots.insert(root.to_path_buf(), false);
        }
        let synced = self.sync_cookie(root);
        let mut state = self.shared.lock();
        if !synced {
            state.untrust_all();
        }
        let trusted = state.roots.insert(root.to_path_buf(), true) == Some(true);
        let below: Vec<PathBuf> = state
            .dirty
            .range(root.to_path_buf()..)
            .take_while(|p| p.starts_with(root))
            .cloned()
            .collect();
        for p in &below {
            state.dirty.remove(p);
        }
        match trusted {
            true => RootMarks::Changed(below.into_iter().collect()),
            false => RootMarks::Unknown,
        }
    }

    /// Create a cookie in `root` and wait until the watcher reports it.
    fn sync_cookie(&self, root: &Path) -> bool {
        let seq = {
            let mut state = self.shared.lock();
            state.cookie_seq += 1;
            state.cookie_seq
        };
        let cookie = root.join(format!("{COOKIE_PREFIX}{}-{seq}", std::process::id()));
        if std::fs::write(&cookie, b"").is_err() {
            return false;
        }
        let deadline = Instant::now() + COOKIE_TIMEOUT;
        let mut state = self.shared.lock();
        let seen = loop {
            if state.cookies_seen.remove(&cookie) {
                break true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break false;
            }
            state = match self.shared.seen.wait_timeout(state, left) {
                Ok((s, _)) => s,
                Err(e) => e.into_inner().0,
            };
        };
        drop(state);
        let _ = std::fs::remove_file(&cookie);
        seen
    }

    /// Report changes below `dirs` (each watched recursively or not) until the returned
    /// subscription is dropped.
    pub fn subscribe(&self, dirs: &[(PathBuf, bool)]) -> Result<Subscription, String> {
        for (dir, recursive) in dirs {
            self.watch(dir, *recursive)
                .map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let (tx, rx) = mpsc::channel();
        self.shared.lock().subscribers.push(tx);
        Ok(Subscription { rx })
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One event from notify's thread.
    fn note(&self, event: notify::Result<Event>) {
        let mut state = self.lock();
        state.note(event);
        drop(state);
        self.seen.notify_all();
    }
}

impl State {
    fn note(&mut self, event: notify::Result<Event>) {
        let event = match event {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(error = %e, "file watcher error; rescanning");
                return self.lost();
            }
        };
        if event.need_rescan() {
            return self.lost();
        }
        let read_only = matches!(
            event.kind,
            EventKind::Access(a) if a != notify::event::AccessKind::Close(notify::event::AccessMode::Write)
        );
        if read_only {
            return;
        }
        for p in event.paths {
            let cookie = p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(COOKIE_PREFIX));
            if cookie {
                self.cookies_seen.insert(p);
                continue;
            }
            self.publish(Change::Path(p.clone()));
            if self.roots.keys().any(|r| p.starts_with(r)) {
                self.dirty.insert(p);
            }
        }
    }

    fn lost(&mut self) {
        self.untrust_all();
        self.publish(Change::Unknown);
    }

    fn publish(&mut self, change: Change) {
        self.subscribers.retain(|s| s.send(change.clone()).is_ok());
    }

    fn untrust_all(&mut self) {
        self.roots.values_mut().for_each(|t| *t = false);
        self.dirty.clear();
    }
}

/// The changes a `Watch` stream waits for.
pub struct Subscription {
    rx: mpsc::Receiver<Change>,
}

/// What [`Subscription::next_batch`] saw.
#[derive(Debug, PartialEq, Eq)]
pub enum Batch {
    /// These relevant paths changed (empty: events were lost, rebuild to be safe).
    Changed(Vec<PathBuf>),
    /// `stop` said to stop before anything relevant changed.
    Stopped,
}

impl Subscription {
    /// Block until a relevant path changed, then until `quiet` passes without another
    /// relevant change; every `poll`, ask `stop` whether to give up.
    pub fn next_batch(
        &self,
        relevant: impl Fn(&Path) -> bool,
        quiet: Duration,
        poll: Duration,
        stop: impl Fn() -> bool,
    ) -> Batch {
        let mut changed = BTreeSet::new();
        let mut until: Option<Instant> = None;
        loop {
            let now = Instant::now();
            if until.is_some_and(|u| now >= u) {
                return Batch::Changed(changed.into_iter().collect());
            }
            let wait = until.map_or(poll, |u| (u - now).min(poll));
            match self.rx.recv_timeout(wait) {
                Ok(Change::Path(p)) if relevant(&p) => {
                    changed.insert(p);
                    until = Some(Instant::now() + quiet);
                }
                Ok(Change::Path(_)) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Ok(Change::Unknown) => until = Some(Instant::now() + quiet),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Batch::Stopped,
            }
            if stop() {
                return Batch::Stopped;
            }
        }
    }
}
