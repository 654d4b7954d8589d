//! The daemon's one file watcher (notify: inotify on Linux). It serves two readers:
//!
//! - builds, through change *marks*: which paths below a root (an input or output directory,
//!   watched recursively from its first build on) changed since a [`Reader`] last took the
//!   root's marks, so a build of a big library stats only those ([`Watcher::take`]). Each
//!   reader of a root gets every change once: the input directory of two builds with other
//!   output directories is two readers, and the outputs of every build into one directory
//!   are one (the writer, which keeps what it learns for all of them). Before trusting a
//!   root's marks a build synchronises with the watcher through a cookie file, as Watchman
//!   does: it creates `.kiln-cookie-*` in the root and waits until the watcher reports it;
//!   inotify delivers a directory's events in order, so every change made before the cookie
//!   has then been seen. A root whose watch failed or overflowed, whose cookie came late,
//!   or which is no longer the directory that was watched (deleted and re-created: its
//!   device, inode and birth time changed), is not trusted: the build stats everything
//!   below it (always correct, only slower), after which it is trusted again.
//! - `Watch` streams, through subscriptions ([`Watcher::subscribe`]): every changed path
//!   below the directories a stream watches, so it can rebuild once a burst of changes is
//!   over ([`Subscription::next_batch`]). A stream marks its changes with a cookie before
//!   each build ([`Watcher::mark`]); the changes delivered before the mark were made before
//!   the build read its inputs, so they are already built and the next batch skips them.
//!
//! Reads are not changes: open, read and close events are ignored (a build's own reads of
//! its inputs would otherwise mark them all). Neither are kiln's own files (cookies, spares:
//! a `.kiln-*` name below the watched directory).
//!
//! A watched directory that is deleted (or moved away) loses its inotify watch, as happens
//! to a source directory on a `git checkout`. Until it is watched again no root below it is
//! trusted (builds stat, without waiting for a cookie); a thread re-arms the watch as soon as
//! the directory exists again, after which everything below it is treated as changed once
//! (events between its creation and the new watch were not seen).

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a build waits for its cookie before falling back to stat.
const COOKIE_TIMEOUT: Duration = Duration::from_millis(500);

const COOKIE_PREFIX: &str = ".kiln-cookie-";

/// How often a lost directory is looked for, to watch it again.
const REARM_POLL: Duration = Duration::from_millis(25);

/// Paths a reader's marks hold at most; beyond, the reader is not trusted (and stats
/// everything once) instead of holding the changes of a root it no longer builds.
const MAX_MARKS: usize = 1 << 16;

/// Whether `rel`, a path relative to a watched or scanned directory, is kiln's own: a
/// `.kiln-*` file or directory, or below one.
pub(crate) fn is_kilns_own(rel: &Path) -> bool {
    rel.components()
        .any(|c| c.as_os_str().as_encoded_bytes().starts_with(b".kiln-"))
}

/// Who takes a root's marks: each reader gets every change once.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Reader {
    /// The writer, for the outputs of every build into the root.
    Outputs,
    /// The jobs of an input directory built into this output directory (of its `.blif`
    /// files only: `BuildSpec::blif_only`).
    Inputs(PathBuf, bool),
}

/// What a build may assume about a root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum RootMarks {
    /// Only these paths below the root may have changed since the last build.
    Changed(BTreeSet<PathBuf>),
    /// Anything may have changed: stat everything (the root is trusted afterwards).
    #[default]
    Unknown,
}

/// A change a subscription reports.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Change {
    /// A path changed; `true`: a directory was created or removed (with whatever it holds,
    /// whose own events may not all have been seen).
    Path(PathBuf, bool),
    /// Events were lost: below this directory (watched again after it was re-created), or
    /// anywhere (`None`: an overflow, a watcher error).
    Lost(Option<PathBuf>),
    /// A cookie: every change made before it was created was delivered before it.
    Cookie(PathBuf),
}

/// Why changes cannot be watched.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WatchError {
    #[error("no file watcher on this system")]
    Unavailable,
    #[error("{}: {source}", dir.display())]
    Dir { dir: PathBuf, source: notify::Error },
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
    /// Watched directories whose watch was lost (deleted or moved away), to watch again;
    /// `true` once the old watch was removed (a moved directory's still follows it).
    gone: BTreeMap<PathBuf, bool>,
    /// Roots whose marks builds take.
    roots: BTreeMap<PathBuf, Root>,
    cookies_seen: BTreeSet<PathBuf>,
    cookie_seq: u64,
    subscribers: Vec<mpsc::Sender<Change>>,
}

/// A root: the directory watched for it, and its readers' marks.
#[derive(Default)]
struct Root {
    identity: Option<Identity>,
    readers: BTreeMap<Reader, Marks>,
}

/// A reader's marks of one root: `trusted` once a full scan happened since they were last
/// unreliable; `dirty`, the paths changed since the reader last took them.
#[derive(Default)]
struct Marks {
    trusted: bool,
    dirty: BTreeSet<PathBuf>,
}

/// Which directory a path names: a directory deleted and made again at the same path is
/// another (its inode and birth time differ; a reused inode number alone could match).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
    born: Option<std::time::SystemTime>,
}

impl Identity {
    fn of(dir: &Path) -> Option<Identity> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(dir).ok()?;
        Some(Identity {
            dev: m.dev(),
            ino: m.ino(),
            born: m.created().ok(),
        })
    }
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
        let watcher = Arc::new(Watcher {
            notify: Mutex::new(notify),
            shared,
        });
        let weak = Arc::downgrade(&watcher);
        let spawned = std::thread::Builder::new()
            .name("kiln-rearm".into())
            .spawn(move || rearm_loop(&weak));
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "no thread to re-arm lost watches");
        }
        Some(watcher)
    }

    /// Watch lost directories again once they exist; `false` when none is lost.
    fn rearm(&self) -> bool {
        let gone: Vec<(PathBuf, bool, bool)> = {
            let state = self.shared.lock();
            let recursive = |d: &PathBuf| state.watched.get(d).copied().unwrap_or(true);
            let gone = state.gone.iter();
            gone.map(|(d, unwatched)| (d.clone(), recursive(d), *unwatched))
                .collect()
        };
        let mut rearmed = Vec::new();
        for (dir, recursive, unwatched) in &gone {
            let mut notify = self.notify.lock().unwrap_or_else(|e| e.into_inner());
            if !unwatched {
                // A directory moved away is still watched where it went.
                let _ = notify.unwatch(dir);
                if let Some(u) = self.shared.lock().gone.get_mut(dir) {
                    *u = true;
                }
            }
            if !dir.is_dir() {
                continue;
            }
            let mode = match recursive {
                true => RecursiveMode::Recursive,
                false => RecursiveMode::NonRecursive,
            };
            match notify.watch(dir, mode) {
                Ok(()) => {
                    self.shared.lock().gone.remove(dir);
                    tracing::info!(dir = %dir.display(), "watching a re-created directory again");
                    rearmed.push(dir.clone());
                }
                Err(e) => {
                    tracing::debug!(dir = %dir.display(), error = %e, "not watched again yet")
                }
            }
        }
        if !rearmed.is_empty() {
            // Events between the directory's creation and its new watch were not seen.
            let mut state = self.shared.lock();
            state.untrust_all();
            for dir in rearmed {
                state.publish(Change::Lost(Some(dir)));
            }
            drop(state);
            self.shared.seen.notify_all();
        }
        !gone.is_empty()
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

    /// The marks of `root` since `reader` last took them (watching it from now on if
    /// needed). Below a lost directory nothing is trusted, and no cookie is waited for; a
    /// root that is another directory than the one watched is lost (and watched again).
    pub(crate) fn take(&self, root: &Path, reader: Reader) -> RootMarks {
        if self.shared.lock().is_gone(root) {
            return RootMarks::Unknown;
        }
        let now = Identity::of(root);
        let known = self.shared.lock().roots.get(root).map(|r| r.identity);
        match known {
            None => {
                if let Err(e) = self.watch(root, true) {
                    tracing::debug!(root = %root.display(), error = %e, "not watched");
                    return RootMarks::Unknown;
                }
                let r = Root {
                    identity: now,
                    readers: BTreeMap::new(),
                };
                self.shared.lock().roots.insert(root.to_path_buf(), r);
            }
            Some(was) if was != now => {
                self.shared.lock().replaced(root, now);
                return RootMarks::Unknown;
            }
            Some(_) => {}
        }
        let synced = self.cookie_in(root).is_some();
        let mut state = self.shared.lock();
        if !synced {
            state.untrust_all();
        }
        let Some(r) = state.roots.get_mut(root) else {
            return RootMarks::Unknown;
        };
        let marks = r.readers.entry(reader).or_default();
        let trusted = std::mem::replace(&mut marks.trusted, true);
        let below = std::mem::take(&mut marks.dirty);
        match trusted {
            true => RootMarks::Changed(below),
            false => RootMarks::Unknown,
        }
    }

    /// Create a cookie in `dir` and wait until the watcher reports it: the cookie, or
    /// `None` when it could not be made or came late.
    fn cookie_in(&self, dir: &Path) -> Option<PathBuf> {
        let seq = {
            let mut state = self.shared.lock();
            state.cookie_seq += 1;
            state.cookie_seq
        };
        let cookie = dir.join(format!("{COOKIE_PREFIX}{}-{seq}", std::process::id()));
        // A new file, never a link someone planted at the (predictable) name: with a name
        // taken the marks are simply not trusted.
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&cookie);
        if created.is_err() {
            return None;
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
        seen.then_some(cookie)
    }

    /// Mark every subscription's changes: a cookie in the first of `dirs` (watched, and
    /// not gone) that can hold one. Every change made before this call is delivered before
    /// the mark; `None` when no cookie could be made.
    pub(crate) fn mark(&self, dirs: &[PathBuf]) -> Option<PathBuf> {
        dirs.iter()
            .filter(|d| !self.shared.lock().is_gone(d))
            .find_map(|d| self.cookie_in(d))
    }

    /// Report changes below `dirs` (each watched recursively or not) until the returned
    /// subscription is dropped.
    pub(crate) fn subscribe(&self, dirs: &[(PathBuf, bool)]) -> Result<Subscription, WatchError> {
        for (dir, recursive) in dirs {
            self.watch(dir, *recursive)
                .map_err(|source| WatchError::Dir {
                    dir: dir.clone(),
                    source,
                })?;
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

/// The re-arm thread: while the watcher lives, watch lost directories again once they
/// exist (polled every [`REARM_POLL`] while some is lost; woken when one is lost).
fn rearm_loop(watcher: &std::sync::Weak<Watcher>) {
    loop {
        let Some(w) = watcher.upgrade() else {
            return;
        };
        let pending = w.rearm();
        let shared = w.shared.clone();
        drop(w);
        let state = shared.lock();
        let wait = match pending {
            true => REARM_POLL,
            // Nothing lost: wait until something is (a note wakes `seen`), checking now
            // and then that the watcher still lives.
            false => Duration::from_secs(1),
        };
        let state = match shared
            .seen
            .wait_timeout_while(state, wait, |s| pending || s.gone.is_empty())
        {
            Ok((s, _)) => s,
            Err(e) => e.into_inner().0,
        };
        drop(state);
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
        use notify::event::{
            AccessKind, AccessMode, CreateKind, ModifyKind, RemoveKind, RenameMode,
        };
        let read_only = matches!(
            event.kind,
            EventKind::Access(a) if a != AccessKind::Close(AccessMode::Write)
        );
        if read_only {
            return;
        }
        let dir = matches!(
            event.kind,
            EventKind::Create(CreateKind::Folder) | EventKind::Remove(RemoveKind::Folder)
        );
        // A watched directory deleted or moved away: its watch is gone.
        let gone = matches!(
            event.kind,
            EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(RenameMode::From))
        );
        for p in event.paths {
            let cookie = p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(COOKIE_PREFIX));
            if cookie {
                // Its creation is what orders it; its later events would only pile up.
                if matches!(event.kind, EventKind::Create(_)) {
                    self.cookies_seen.insert(p.clone());
                    self.publish(Change::Cookie(p));
                }
                continue;
            }
            if gone && self.watched.contains_key(&p) && !self.gone.contains_key(&p) {
                tracing::info!(dir = %p.display(), "a watched directory is gone");
                self.gone.insert(p.clone(), false);
                self.untrust_all();
            }
            // Below a gone directory events are stale (a moved directory's) or moot (the
            // directory is treated as changed whole once it is watched again).
            if self.is_kilns_own(&p) || self.is_gone(&p) {
                continue;
            }
            self.publish(Change::Path(p.clone(), dir));
            self.mark(&p);
        }
    }

    /// `p` changed: a mark for every reader of every root above it.
    fn mark(&mut self, p: &Path) {
        for a in p.ancestors() {
            let Some(root) = self.roots.get_mut(a) else {
                continue;
            };
            for marks in root.readers.values_mut().filter(|m| m.trusted) {
                marks.dirty.insert(p.to_path_buf());
                if marks.dirty.len() > MAX_MARKS {
                    marks.trusted = false;
                    marks.dirty = BTreeSet::new();
                }
            }
        }
    }

    /// `root` is found to be another directory than the one watched (now `identity`):
    /// its watch is lost, as when it is deleted, and it is watched again.
    fn replaced(&mut self, root: &Path, identity: Option<Identity>) {
        tracing::info!(dir = %root.display(), "a watched directory was replaced");
        if self.watched.contains_key(root) {
            self.gone.entry(root.to_path_buf()).or_insert(false);
        }
        if let Some(r) = self.roots.get_mut(root) {
            r.identity = identity;
        }
        self.untrust_all();
    }

    /// Whether `path` is kiln's own below the directory watched for it.
    fn is_kilns_own(&self, path: &Path) -> bool {
        let watched = path.ancestors().find(|a| self.watched.contains_key(*a));
        watched.is_some_and(|w| path.strip_prefix(w).is_ok_and(is_kilns_own))
    }

    /// Whether `path` is at or below a gone directory.
    fn is_gone(&self, path: &Path) -> bool {
        !self.gone.is_empty() && path.ancestors().any(|a| self.gone.contains_key(a))
    }

    fn lost(&mut self) {
        self.untrust_all();
        self.publish(Change::Lost(None));
    }

    fn publish(&mut self, change: Change) {
        self.subscribers.retain(|s| s.send(change.clone()).is_ok());
    }

    fn untrust_all(&mut self) {
        for marks in self.roots.values_mut().flat_map(|r| r.readers.values_mut()) {
            marks.trusted = false;
            marks.dirty = BTreeSet::new();
        }
    }
}

/// The changes a `Watch` stream waits for.
pub(crate) struct Subscription {
    rx: mpsc::Receiver<Change>,
}

/// What [`Subscription::next_batch`] saw.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Batch {
    /// These relevant paths changed (empty: events were lost, rebuild to be safe).
    Changed(Vec<PathBuf>),
    /// Nothing relevant changed before the `first_by` deadline.
    Quiet,
    /// `stop` said to stop before anything relevant changed.
    Stopped,
}

impl Subscription {
    /// Block until a relevant path changed, then until `quiet` passes without another
    /// relevant change; every `poll`, ask `stop` whether to give up. `relevant` is asked
    /// about each changed path, and whether a directory was created or removed there.
    /// With `first_by`, give up ([`Batch::Quiet`]) when nothing relevant changed by then.
    /// Changes delivered before the mark `after` (see [`Watcher::mark`]) are skipped; once
    /// the mark is seen `after` is cleared, so a next call does not wait for it again.
    pub(crate) fn next_batch(
        &self,
        relevant: impl Fn(&Path, bool) -> bool,
        quiet: Duration,
        poll: Duration,
        stop: impl Fn() -> bool,
        after: &mut Option<PathBuf>,
        first_by: Option<Instant>,
    ) -> Batch {
        let mut changed = BTreeSet::new();
        let mut until: Option<Instant> = None;
        loop {
            let now = Instant::now();
            if until.is_some_and(|u| now >= u) {
                return Batch::Changed(changed.into_iter().collect());
            }
            if until.is_none() && first_by.is_some_and(|f| now >= f) {
                return Batch::Quiet;
            }
            let wait = until.or(first_by).map_or(poll, |u| (u - now).min(poll));
            match self.rx.recv_timeout(wait) {
                Ok(Change::Cookie(c)) => {
                    if after.as_deref() == Some(c.as_path()) {
                        *after = None;
                    }
                }
                // Already built: made before the mark.
                Ok(_) if after.is_some() => {}
                Ok(Change::Path(p, dir)) if relevant(&p, dir) => {
                    changed.insert(p);
                    until = Some(Instant::now() + quiet);
                }
                Ok(Change::Path(..)) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Ok(Change::Lost(None)) => until = Some(Instant::now() + quiet),
                Ok(Change::Lost(Some(dir))) if relevant(&dir, true) => {
                    until = Some(Instant::now() + quiet)
                }
                Ok(Change::Lost(Some(_))) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return Batch::Stopped,
            }
            if stop() {
                return Batch::Stopped;
            }
        }
    }
}
