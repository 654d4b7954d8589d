//! Why each query of the last build executed (`kiln why`, `kiln build --explain`).
//!
//! Three sources, joined when a build ends ([`Explain::finish`]):
//! - salsa's execution events: every `WillExecute` of a tracked function is one
//!   [`Execution`] (the query is named by its salsa ingredient);
//! - the query bodies: the first thing each body does is [`note`] its subject (file,
//!   function, block or model), which lands on the execution its event just opened on this
//!   thread (salsa runs a body right after its event, on the same thread), and a cached
//!   kind's store lookup adds its outcome (hit, key absent, entry corrupt, evicted, remote
//!   rejection);
//! - the input layer: each text it set, with the changed byte range and the functions it
//!   touched ([`Explain::changed`]), and the inputs this database had never seen.
//!
//! Always on, so kept cheap and bounded: one push under a lock per execution, only while a
//! build runs, at most [`MAX_EXECUTIONS`] per build, and only the last build is kept.
//! Queries that other requests (an editor's analysis) run during a build are included.

use crate::db::KilnDb;
use compiler::mlir::items::Item;
use compiler::mlir::split::Common;
use kiln_cache::Miss;
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Executions recorded per build, at most (the rest are counted).
pub const MAX_EXECUTIONS: usize = 1 << 18;

/// What a query is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    pub file: PathBuf,
    /// The function (APS) or model (BLIF).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// A block of the function.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<usize>,
}

impl Subject {
    pub fn file(file: &Path) -> Subject {
        Subject {
            file: file.to_path_buf(),
            item: None,
            block: None,
        }
    }

    pub fn item(file: &Path, item: &str) -> Subject {
        Subject {
            item: Some(item.to_string()),
            ..Subject::file(file)
        }
    }
}

/// A persistent-cache lookup of a cached kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheOutcome {
    Hit,
    Miss(Miss),
}

/// One text the input layer set on an input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub file: PathBuf,
    /// The bytes of the new text that differ from the old one (`start..end`; the old text
    /// had other bytes, maybe another number, between the same common prefix and suffix).
    pub range: Range<usize>,
    /// The functions or models whose text changed (APS, BLIF).
    pub items: Vec<String>,
}

/// Why a query executed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    /// Its input's text changed (in its function or model, when it has one).
    InputChanged {
        file: PathBuf,
        #[serde(skip_serializing_if = "Option::is_none")]
        item: Option<String>,
        range: Range<usize>,
    },
    /// The daemon runs another kiln build than the one that last used the cache: nothing
    /// computed before can be reused.
    BuildIdChanged { was: String, now: String },
    /// The input is new to this daemon (first build of it since the daemon started).
    NewInput,
    /// Something it reads changed (another file, an option), not its own text.
    Dependency,
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::InputChanged { file, item, range } => {
                write!(f, "input changed: {}", file.display())?;
                if let Some(i) = item {
                    write!(f, " @{i}")?;
                }
                write!(f, " bytes {}..{}", range.start, range.end)
            }
            Reason::BuildIdChanged { was, now } => {
                write!(f, "build id changed (was {was}, now {now})")
            }
            Reason::NewInput => write!(f, "first build of this input in this daemon"),
            Reason::Dependency => write!(f, "a file or option it reads changed"),
        }
    }
}

/// One re-executed query of the last build, explained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The query (salsa's name of the tracked function).
    pub query: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<Subject>,
    pub reason: Reason,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheOutcome>,
}

impl Entry {
    /// One line: `query  file @item block N: reason[; cache ...]`.
    pub fn line(&self) -> String {
        let mut s = format!("{:<16}", self.query);
        if let Some(sub) = &self.subject {
            s.push_str(&format!(" {}", sub.file.display()));
            if let Some(i) = &sub.item {
                s.push_str(&format!(" @{i}"));
            }
            if let Some(b) = sub.block {
                s.push_str(&format!(" block {b}"));
            }
        }
        s.push_str(&format!(": {}", self.reason));
        match self.cache {
            Some(CacheOutcome::Hit) => s.push_str("; served from the persistent cache"),
            Some(CacheOutcome::Miss(m)) => s.push_str(&format!("; {}", m.describe())),
            None => {}
        }
        s
    }
}

/// The explanation of one build.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explanation {
    /// The input texts set by the build.
    pub changes: Vec<Change>,
    pub entries: Vec<Entry>,
    /// Executions not recorded (over [`MAX_EXECUTIONS`]).
    pub dropped: u64,
    /// Each output file of the build and the input it is made from.
    pub outputs: Vec<(PathBuf, PathBuf)>,
}

impl Explanation {
    /// The entries about `target`: an output file (the queries of its input), an input
    /// file, or a function or model (`@f`, `f`); everything when `None`.
    pub fn filtered(&self, target: Option<&str>) -> Explanation {
        let Some(t) = target else {
            return self.clone();
        };
        let name = t.strip_prefix('@').unwrap_or(t);
        let path = Path::new(t);
        let input = self
            .outputs
            .iter()
            .find(|(o, _)| o == path || o.ends_with(path))
            .map(|(_, i)| i.clone());
        let keep = |s: &Subject| match &input {
            Some(i) => s.file == *i,
            None => s.file == path || s.file.ends_with(path) || s.item.as_deref() == Some(name),
        };
        Explanation {
            entries: self
                .entries
                .iter()
                .filter(|e| e.subject.as_ref().is_some_and(keep))
                .cloned()
                .collect(),
            ..self.clone()
        }
    }

    /// The human form: the changes, then one line per entry.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for c in &self.changes {
            out.push_str(&format!(
                "changed: {} bytes {}..{}",
                c.file.display(),
                c.range.start,
                c.range.end
            ));
            if !c.items.is_empty() {
                let items: Vec<String> = c.items.iter().map(|i| format!("@{i}")).collect();
                out.push_str(&format!(" ({})", items.join(", ")));
            }
            out.push('\n');
        }
        if self.entries.is_empty() {
            out.push_str("no query executed\n");
        }
        for e in &self.entries {
            out.push_str(&e.line());
            out.push('\n');
        }
        if self.dropped > 0 {
            out.push_str(&format!("({} more not recorded)\n", self.dropped));
        }
        out
    }
}

/// An execution as recorded (resolved into an [`Entry`] when the build ends).
#[derive(Debug)]
struct Execution {
    key: salsa::DatabaseKeyIndex,
    subject: Option<Subject>,
    cache: Option<CacheOutcome>,
}

#[derive(Debug, Default)]
struct Log {
    executions: Vec<Execution>,
    dropped: u64,
    changes: Vec<Change>,
    /// Inputs this database saw for the first time during the build.
    new_inputs: BTreeSet<PathBuf>,
}

/// The recorder shared by every clone of a database (in its [`crate::db::Runtime`]).
#[derive(Debug, Default)]
pub struct Explain {
    log: Mutex<Log>,
    /// Builds running; executions are recorded only meanwhile.
    active: AtomicUsize,
    /// Bumped by every [`Explain::begin`]: a slot of an older log is stale.
    epoch: AtomicU64,
    /// Set once, when the store recorded another build id than this daemon's.
    build_id_change: Option<(String, String)>,
}

/// Recording while a build runs (see [`Explain::begin`]).
pub struct Recording<'a>(&'a Explain);

impl Drop for Recording<'_> {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The execution this thread's salsa event opened: (recorder, epoch, index).
type Slot = (usize, u64, usize);

thread_local! {
    static CURRENT: Cell<Option<Slot>> = const { Cell::new(None) };
}

/// A noted execution, for a cached kind to add its lookup's outcome to.
#[derive(Debug, Clone, Copy)]
pub struct Noted(Option<Slot>);

impl Explain {
    /// A recorder; `build_id_change` is `(was, now)` when the cache was last used by
    /// another kiln build.
    pub fn new(build_id_change: Option<(String, String)>) -> Explain {
        Explain {
            build_id_change,
            ..Explain::default()
        }
    }

    fn id(&self) -> usize {
        self as *const Explain as usize
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// salsa's event callback.
    pub fn event(&self, event: salsa::Event) {
        let salsa::EventKind::WillExecute { database_key } = event.kind else {
            return;
        };
        if self.active.load(Ordering::Relaxed) == 0 {
            CURRENT.set(None);
            return;
        }
        let epoch = self.epoch.load(Ordering::Relaxed);
        let mut log = self.lock();
        if log.executions.len() >= MAX_EXECUTIONS {
            log.dropped += 1;
            CURRENT.set(None);
            return;
        }
        log.executions.push(Execution {
            key: database_key,
            subject: None,
            cache: None,
        });
        CURRENT.set(Some((self.id(), epoch, log.executions.len() - 1)));
    }

    /// A build starts: forget the last one (unless another build is still running), and
    /// record until the guard is dropped.
    pub fn begin(&self) -> Recording<'_> {
        if self.active.fetch_add(1, Ordering::Relaxed) == 0 {
            self.epoch.fetch_add(1, Ordering::Relaxed);
            *self.lock() = Log::default();
        }
        Recording(self)
    }

    /// The input layer set `change`.
    pub fn changed(&self, change: Change) {
        if self.active.load(Ordering::Relaxed) > 0 {
            self.lock().changes.push(change);
        }
    }

    /// The input layer made a database input for `file`, new to this database.
    pub fn new_input(&self, file: &Path) {
        if self.active.load(Ordering::Relaxed) > 0 {
            self.lock().new_inputs.insert(file.to_path_buf());
        }
    }

    /// The execution this thread runs gets its subject (the first call of a query body).
    fn note(&self, subject: impl FnOnce() -> Subject) -> Noted {
        let Some(slot) = CURRENT.take().filter(|s| s.0 == self.id()) else {
            return Noted(None);
        };
        let mut log = self.lock();
        if self.epoch.load(Ordering::Relaxed) != slot.1 {
            return Noted(None);
        }
        if let Some(e) = log.executions.get_mut(slot.2) {
            e.subject = Some(subject());
        }
        Noted(Some(slot))
    }

    /// A cached kind's store lookup for the execution `noted`.
    pub fn cache(&self, noted: Noted, outcome: CacheOutcome) {
        let Some(slot) = noted.0 else { return };
        let mut log = self.lock();
        if self.epoch.load(Ordering::Relaxed) == slot.1
            && let Some(e) = log.executions.get_mut(slot.2)
        {
            e.cache = Some(outcome);
        }
    }

    /// The build ends: its explanation (queries named through `db`; the outputs are the
    /// builder's to fill in, see [`crate::build::Builder::explanation`]).
    pub fn finish(&self, db: &dyn salsa::Database) -> Explanation {
        let log = std::mem::take(&mut *self.lock());
        let changed: BTreeMap<&Path, &Change> =
            log.changes.iter().map(|c| (c.file.as_path(), c)).collect();
        let mut names: BTreeMap<salsa::IngredientIndex, String> = BTreeMap::new();
        let mut entries = Vec::with_capacity(log.executions.len());
        for e in &log.executions {
            let index = e.key.ingredient_index();
            let query = names
                .entry(index)
                .or_insert_with(|| db.ingredient_debug_name(index).into_owned())
                .clone();
            let reason = self.reason(e.subject.as_ref(), &changed, &log.new_inputs);
            entries.push(Entry {
                query,
                subject: e.subject.clone(),
                reason,
                cache: e.cache,
            });
        }
        Explanation {
            changes: log.changes.clone(),
            entries,
            dropped: log.dropped,
            outputs: Vec::new(),
        }
    }

    fn reason(
        &self,
        subject: Option<&Subject>,
        changed: &BTreeMap<&Path, &Change>,
        new_inputs: &BTreeSet<PathBuf>,
    ) -> Reason {
        let Some(s) = subject else {
            return Reason::Dependency;
        };
        if new_inputs.contains(&s.file) {
            return match &self.build_id_change {
                Some((was, now)) => Reason::BuildIdChanged {
                    was: was.clone(),
                    now: now.clone(),
                },
                None => Reason::NewInput,
            };
        }
        let Some(c) = changed.get(s.file.as_path()) else {
            return Reason::Dependency;
        };
        let item = s.item.as_ref().filter(|i| c.items.contains(i));
        if s.item.is_some() && item.is_none() {
            // Its own function or model did not change: something it reads did.
            return Reason::Dependency;
        }
        Reason::InputChanged {
            file: c.file.clone(),
            item: item.cloned(),
            range: c.range.clone(),
        }
    }
}

/// The bytes of a new text of `new_len` bytes that differ from an old one of `old_len`
/// bytes, given what they have in `common`.
pub fn changed_range(old_len: usize, new_len: usize, common: Common) -> Range<usize> {
    let start = common.prefix.min(old_len).min(new_len);
    let suffix = common.suffix.min(old_len - start).min(new_len - start);
    start..new_len - suffix
}

/// The items (functions, models) whose text meets `range` (an insertion at an item's edge
/// included).
pub fn touched(items: &[Item], range: &Range<usize>) -> Vec<String> {
    items
        .iter()
        .filter(|i| i.offset <= range.end && range.start <= i.offset + i.text.len())
        .map(|i| i.symbol.clone())
        .collect()
}

/// The first statement of a query body: the subject of the execution salsa just opened.
pub fn note(db: &dyn KilnDb, subject: impl FnOnce() -> Subject) -> Noted {
    db.runtime().explain.note(subject)
}
