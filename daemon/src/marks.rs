//! Change marks from the file watcher: which paths below watched roots changed since the
//! last build, so that a build of a big library stats only those instead of every file.
//!
//! Roots (input directories and output directories of builds) are watched recursively with
//! notify (inotify on Linux). Before a build trusts the marks of a root it synchronises with
//! the watcher through a cookie file, as Watchman does: it creates `.kiln-cookie-*` in the
//! root and waits until the watcher reports it. inotify delivers a directory's events in
//! order, so every change made before the cookie has then been seen. A root whose watch
//! failed, overflowed, or did not report the cookie in time is not trusted: the caller then
//! stats everything below it (always correct, only slower), after which it is trusted again.

use notify::{Event, RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a build waits for its cookie before falling back to stat.
const COOKIE_TIMEOUT: Duration = Duration::from_millis(500);

const COOKIE_PREFIX: &str = ".kiln-cookie-";

/// The watcher and the marks it has collected.
pub struct Marks {
    watcher: RecommendedWatcher,
    rx: mpsc::Receiver<notify::Result<Event>>,
    /// Watched roots; `true` once a full scan happened since marks were last unreliable.
    roots: BTreeMap<PathBuf, bool>,
    dirty: BTreeSet<PathBuf>,
    cookies_seen: BTreeSet<PathBuf>,
    seq: u64,
}

/// What a build may assume about a root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum RootMarks {
    /// Only these paths below the root may have changed since the last build.
    Changed(BTreeSet<PathBuf>),
    /// Anything may have changed: stat everything (the root is trusted afterwards).
    #[default]
    Unknown,
}

impl Marks {
    pub fn new() -> Option<Marks> {
        let (tx, rx) = mpsc::channel();
        let watcher = notify::recommended_watcher(move |e| {
            let _ = tx.send(e);
        })
        .map_err(|e| tracing::warn!(error = %e, "no file watcher; builds stat their inputs"))
        .ok()?;
        Some(Marks {
            watcher,
            rx,
            roots: BTreeMap::new(),
            dirty: BTreeSet::new(),
            cookies_seen: BTreeSet::new(),
            seq: 0,
        })
    }

    /// The marks of `root` since the last call for it (watching it from now on if needed).
    pub fn take(&mut self, root: &Path) -> RootMarks {
        if !self.roots.contains_key(root) {
            if let Err(e) = self.watcher.watch(root, RecursiveMode::Recursive) {
                tracing::debug!(root = %root.display(), error = %e, "not watched");
                return RootMarks::Unknown;
            }
            self.roots.insert(root.to_path_buf(), false);
        }
        if !self.sync_cookie(root) {
            self.untrust_all();
        }
        self.drain();
        let trusted = self.roots.insert(root.to_path_buf(), true) == Some(true);
        let below: Vec<PathBuf> = self
            .dirty
            .range(root.to_path_buf()..)
            .take_while(|p| p.starts_with(root))
            .cloned()
            .collect();
        for p in &below {
            self.dirty.remove(p);
        }
        if trusted {
            RootMarks::Changed(below.into_iter().collect())
        } else {
            RootMarks::Unknown
        }
    }

    /// Create a cookie in `root` and wait until the watcher reports it.
    fn sync_cookie(&mut self, root: &Path) -> bool {
        self.seq += 1;
        let cookie = root.join(format!(
            "{COOKIE_PREFIX}{}-{}",
            std::process::id(),
            self.seq
        ));
        if std::fs::write(&cookie, b"").is_err() {
            return false;
        }
        let deadline = Instant::now() + COOKIE_TIMEOUT;
        let seen = loop {
            if self.cookies_seen.remove(&cookie) {
                break true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(e) => self.note(e),
                Err(_) => break false,
            }
        };
        let _ = std::fs::remove_file(&cookie);
        seen
    }

    fn drain(&mut self) {
        while let Ok(e) = self.rx.try_recv() {
            self.note(e);
        }
    }

    fn note(&mut self, event: notify::Result<Event>) {
        let event = match event {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(error = %e, "file watcher error; rescanning");
                return self.untrust_all();
            }
        };
        if event.need_rescan() {
            return self.untrust_all();
        }
        // Opening, reading and closing change nothing (and the builds' own reads of the
        // inputs would otherwise mark them all).
        let read_only = matches!(
            event.kind,
            notify::EventKind::Access(a) if a != notify::event::AccessKind::Close(notify::event::AccessMode::Write)
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
            } else {
                self.dirty.insert(p);
            }
        }
    }

    fn untrust_all(&mut self) {
        self.roots.values_mut().for_each(|t| *t = false);
        self.dirty.clear();
    }
}
