//! Why each query of the last build executed (`kiln why`, `kiln build --explain`).
//!
//! Three sources, joined when a build ends (`Explain::finish`):
//! - salsa's execution events: every `WillExecute` of a tracked function is one
//!   `Execution` (the query is named by its salsa ingredient);
//! - the query bodies: the first thing each body does is `note` its subject (file,
//!   function, block or model), which lands on the execution its event just opened on this
//!   thread (salsa runs a body right after its event, on the same thread), and a cached
//!   kind's store lookup adds its outcome (hit, key absent, entry corrupt, evicted, remote
//!   rejection);
//! - the input layer: each text it set, with the changed byte range and the functions it
//!   touched (`Explain::changed`), and the inputs this database had never seen.
//!
//! Always on, so kept cheap and bounded: one push under a lock per execution, only while a
//! build runs, at most `MAX_EXECUTIONS` per build, and only the last build is kept.
//! Queries that other requests (an editor's analysis) run during a build are included.

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
pub(crate) const MAX_EXECUTIONS: usize = 1 << 18;

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
    pub(crate) fn file(file: &Path) -> Subject {
        Subject {
            file: file.to_path_buf(),
            item: None,
            block: None,
        }
    }

    pub(crate) fn item(file: &Path, item: &str) -> Subject {
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

/// A 1-based line and column (in characters) of an input's text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

impl Pos {
    /// The position of byte `offset` of `text`, as diagnostics locate it (a column in
    /// characters; an offset inside a character is that character's), without indexing
    /// every line of the text.
    pub(crate) fn of(text: &str, offset: usize) -> Pos {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text.as_bytes()[..offset];
        let start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        Pos {
            line: memchr::memchr_iter(b'\n', before).count() + 1,
            col: text[start..offset].chars().count() + 1,
        }
    }
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
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
    /// Where `range` starts and ends in the new text.
    #[serde(default)]
    pub start: Pos,
    #[serde(default)]
    pub end: Pos,
}

impl Change {
    /// `text` (the new text of `file`) differs from the old one in `range`, which meets
    /// `items`.
    pub(crate) fn new(file: &Path, text: &str, range: Range<usize>, items: Vec<String>) -> Change {
        Change {
            file: file.to_path_buf(),
            start: Pos::of(text, range.start),
            end: Pos::of(text, range.end),
            range,
            items,
        }
    }
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
        /// Where `range` starts in the new text.
        #[serde(default)]
        start: Pos,
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
            Reason::InputChanged { file, start, .. } => {
                write!(f, "edited at {}:{start}", file.display())
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
    /// One line: `file @function block N [query]: reason[; cache ...]` (a BLIF file's
    /// items are `model NAME`).
    pub fn line(&self) -> String {
        let mut s = String::new();
        if let Some(sub) = &self.subject {
            s.push_str(&format!("{} ", sub.file.display()));
            if let Some(i) = &sub.item {
                s.push_str(&format!("{} ", item_name(&sub.file, i)));
            }
            if let Some(b) = sub.block {
                s.push_str(&format!("block {b} "));
            }
        }
        s.push_str(&format!("[{}]: {}", self.query, self.reason));
        match self.cache {
            Some(CacheOutcome::Hit) => s.push_str("; served from the persistent cache"),
            Some(CacheOutcome::Miss(m)) => s.push_str(&format!("; {}", m.describe())),
            None => {}
        }
        s
    }

    /// The order of entries in the human form: edited ones first.
    fn rank(&self) -> u8 {
        match self.reason {
            Reason::InputChanged { .. } => 0,
            Reason::BuildIdChanged { .. } | Reason::NewInput => 1,
            Reason::Dependency => 2,
        }
    }
}

/// How an item of `file` is named to people: `@f` in MLIR, `model m` in BLIF.
fn item_name(file: &Path, item: &str) -> String {
    if is_blif(file) {
        format!("model {item}")
    } else {
        format!("@{item}")
    }
}

fn is_blif(file: &Path) -> bool {
    file.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("blif"))
}

/// `1 edit`, `2 edits` (`queries` for `query`).
fn count(n: usize, thing: &str) -> String {
    match (n, thing) {
        (1, _) => format!("1 {thing}"),
        (_, "query") => format!("{n} queries"),
        _ => format!("{n} {thing}s"),
    }
}

/// At most `max` of `names`, then how many more.
fn some_of(names: &[String], max: usize) -> String {
    let mut s = names[..names.len().min(max)].join(", ");
    if names.len() > max {
        s.push_str(&format!(" and {} more", names.len() - max));
    }
    s
}

/// Names of functions or models listed in a summary, at most.
const NAMES: usize = 5;

/// A target the last build does not know (not an output, input, function or model of it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unknown {
    pub target: String,
    /// What the last build knows, a few of each kind (`inputs m.mlir, ...`).
    pub known: Vec<String>,
}

/// The explanation of one build.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explanation {
    /// The input texts set by the build.
    pub changes: Vec<Change>,
    pub entries: Vec<Entry>,
    /// Executions not recorded (over `MAX_EXECUTIONS`).
    pub dropped: u64,
    /// Each output file of the build and the input it is made from.
    pub outputs: Vec<(PathBuf, PathBuf)>,
    /// The target asked about, when the last build does not know it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown: Option<Unknown>,
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
        let input = self.output_input(path);
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

    /// The input of the output `path`, if it is one of the build's.
    fn output_input(&self, path: &Path) -> Option<PathBuf> {
        self.outputs
            .iter()
            .find(|(o, _)| o == path || o.ends_with(path))
            .map(|(_, i)| i.clone())
    }

    /// The inputs of the build: of its outputs, its changes and its entries.
    pub fn inputs(&self) -> BTreeSet<PathBuf> {
        let outputs = self.outputs.iter().map(|(_, i)| i.clone());
        let changed = self.changes.iter().map(|c| c.file.clone());
        let subjects = self
            .entries
            .iter()
            .filter_map(|e| Some(e.subject.as_ref()?.file.clone()));
        outputs.chain(changed).chain(subjects).collect()
    }

    /// `None` when `target` names an output, an input, or a function or model of the
    /// build (`items`: each input's functions or models); otherwise what the build knows.
    pub(crate) fn unknown(
        &self,
        target: &str,
        items: &[(PathBuf, Vec<String>)],
    ) -> Option<Unknown> {
        let path = Path::new(target);
        let name = target.strip_prefix('@').unwrap_or(target);
        let inputs = self.inputs();
        if self.output_input(path).is_some()
            || inputs.iter().any(|i| i == path || i.ends_with(path))
            || items
                .iter()
                .any(|(_, names)| names.iter().any(|n| n == name))
        {
            return None;
        }
        let few = |mut names: Vec<String>| {
            names.sort();
            names.dedup();
            some_of(&names, 3)
        };
        let mut known = Vec::new();
        if !self.outputs.is_empty() {
            let o = self.outputs.iter().map(|(o, _)| o.display().to_string());
            known.push(format!("outputs {}", few(o.collect())));
        }
        if !inputs.is_empty() {
            let i = inputs.iter().map(|i| i.display().to_string());
            known.push(format!("inputs {}", few(i.collect())));
        }
        let names = |blif: bool| -> Vec<String> {
            items
                .iter()
                .filter(|(f, _)| is_blif(f) == blif)
                .flat_map(|(f, n)| n.iter().map(|n| item_name(f, n)))
                .collect()
        };
        let functions = names(false);
        if !functions.is_empty() {
            known.push(format!("functions {}", few(functions)));
        }
        let models: Vec<String> = names(true)
            .into_iter()
            .map(|m| m.trim_start_matches("model ").to_string())
            .collect();
        if !models.is_empty() {
            known.push(format!("models {}", few(models)));
        }
        Some(Unknown {
            target: target.to_string(),
            known,
        })
    }

    /// Every path below `dir` made relative to it (for people, in `dir`).
    pub fn relative_to(&mut self, dir: &Path) {
        let rel = |p: &mut PathBuf| {
            if let Ok(r) = p.strip_prefix(dir)
                && !r.as_os_str().is_empty()
            {
                *p = r.to_path_buf();
            }
        };
        for c in &mut self.changes {
            rel(&mut c.file);
        }
        for e in &mut self.entries {
            if let Some(s) = &mut e.subject {
                rel(&mut s.file);
            }
            if let Reason::InputChanged { file, .. } = &mut e.reason {
                rel(file);
            }
        }
        for (o, i) in &mut self.outputs {
            rel(o);
            rel(i);
        }
        if let Some(u) = &mut self.unknown {
            let prefix = format!("{}/", dir.display());
            for k in &mut u.known {
                *k = k.replace(&prefix, "");
            }
        }
    }

    /// One line: how many queries ran and why (`3 queries re-ran because of 1 edit in 1
    /// file: function @f (m.mlir)`).
    pub fn summary(&self) -> String {
        let n = self.entries.len() + usize::try_from(self.dropped).unwrap_or(usize::MAX);
        if n == 0 {
            return "no query executed".to_string();
        }
        let queries = count(n, "query");
        let mut causes = Vec::new();
        let files: BTreeSet<&Path> = self.changes.iter().map(|c| c.file.as_path()).collect();
        if !self.changes.is_empty() {
            let what: Vec<String> = files.iter().map(|f| self.edited(f)).collect();
            causes.push(format!(
                "{} in {}: {}",
                count(self.changes.len(), "edit"),
                count(files.len(), "file"),
                some_of(&what, NAMES)
            ));
        }
        let new: BTreeSet<&Path> = self
            .entries
            .iter()
            .filter(|e| e.reason == Reason::NewInput)
            .filter_map(|e| Some(e.subject.as_ref()?.file.as_path()))
            .collect();
        if !new.is_empty() {
            causes.push(format!(
                "first build of {} in this daemon",
                count(new.len(), "input")
            ));
        }
        let rebuilt = self.entries.iter().find_map(|e| match &e.reason {
            Reason::BuildIdChanged { was, now } => Some((was, now)),
            _ => None,
        });
        if let Some((was, now)) = rebuilt {
            causes.push(format!("another kiln build (was {was}, now {now})"));
        }
        if causes.is_empty() {
            format!("{queries} ran because a file or option they read changed")
        } else if self.changes.is_empty() {
            format!("{queries} ran: {}", causes.join("; "))
        } else {
            format!("{queries} re-ran because of {}", causes.join("; "))
        }
    }

    /// What the build's changes of `file` edited: `functions @f, @g (m.mlir)`, `model m
    /// (x.blif)`, `m.mlir outside any function`.
    fn edited(&self, file: &Path) -> String {
        let mut items: Vec<&String> = self
            .changes
            .iter()
            .filter(|c| c.file == file)
            .flat_map(|c| &c.items)
            .collect();
        items.sort();
        items.dedup();
        let blif = is_blif(file);
        let kind = if blif { "model" } else { "function" };
        if items.is_empty() {
            return format!("{} outside any {kind}", file.display());
        }
        let names: Vec<String> = items
            .iter()
            .map(|i| if blif { i.to_string() } else { format!("@{i}") })
            .collect();
        let kind = if names.len() == 1 {
            kind.to_string()
        } else {
            format!("{kind}s")
        };
        format!("{kind} {} ({})", some_of(&names, NAMES), file.display())
    }

    /// The human form, everything: the summary, the changes, then one line per entry.
    pub fn render(&self) -> String {
        self.render_at_most(usize::MAX, "")
    }

    /// The human form with at most `max` changes and `max` entries (edited ones first),
    /// each followed by how many more and `hint` (how to list them all).
    pub fn render_at_most(&self, max: usize, hint: &str) -> String {
        let mut out = self.summary();
        out.push('\n');
        for c in self.changes.iter().take(max) {
            out.push_str(&format!(
                "changed: {}:{}-{}",
                c.file.display(),
                c.start,
                c.end
            ));
            if !c.items.is_empty() {
                let items: Vec<String> = c.items.iter().map(|i| item_name(&c.file, i)).collect();
                out.push_str(&format!(" ({})", some_of(&items, NAMES)));
            }
            out.push('\n');
        }
        let more = |n: usize, what: &str| format!("… and {n} more{what}{hint}\n");
        if self.changes.len() > max {
            let n = self.changes.len() - max;
            out.push_str(&more(n, if n == 1 { " change" } else { " changes" }));
        }
        let mut order: Vec<&Entry> = self.entries.iter().collect();
        order.sort_by_key(|e| e.rank());
        for e in order.iter().take(max) {
            out.push_str(&e.line());
            out.push('\n');
        }
        if self.entries.len() > max {
            out.push_str(&more(self.entries.len() - max, ""));
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
pub(crate) struct Explain {
    log: Mutex<Log>,
    /// Builds running; executions are recorded only meanwhile.
    active: AtomicUsize,
    /// Bumped by every [`Explain::begin`]: a slot of an older log is stale.
    epoch: AtomicU64,
    /// Set once, when the store recorded another build id than this daemon's.
    build_id_change: Option<(String, String)>,
}

/// Recording while a build runs (see [`Explain::begin`]).
pub(crate) struct Recording<'a>(&'a Explain);

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
pub(crate) struct Noted(Option<Slot>);

impl Explain {
    /// A recorder; `build_id_change` is `(was, now)` when the cache was last used by
    /// another kiln build.
    pub(crate) fn new(build_id_change: Option<(String, String)>) -> Explain {
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
    pub(crate) fn event(&self, event: salsa::Event) {
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
    pub(crate) fn begin(&self) -> Recording<'_> {
        if self.active.fetch_add(1, Ordering::Relaxed) == 0 {
            self.epoch.fetch_add(1, Ordering::Relaxed);
            *self.lock() = Log::default();
        }
        Recording(self)
    }

    /// The input layer set a text: `change` (made only while a build runs).
    pub(crate) fn changed(&self, change: impl FnOnce() -> Change) {
        if self.active.load(Ordering::Relaxed) > 0 {
            let change = change();
            self.lock().changes.push(change);
        }
    }

    /// The input layer made a database input for `file`, new to this database.
    pub(crate) fn new_input(&self, file: &Path) {
        if self.active.load(Ordering::Relaxed) > 0 {
            self.lock().new_inputs.insert(file.to_path_buf());
        }
    }

    /// The execution this thread runs gets its subject (the first call of a query body).
    pub(crate) fn note(&self, subject: impl FnOnce() -> Subject) -> Noted {
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
    pub(crate) fn cache(&self, noted: Noted, outcome: CacheOutcome) {
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
    pub(crate) fn finish(&self, db: &dyn salsa::Database) -> Explanation {
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
            unknown: None,
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
            start: c.start,
        }
    }
}

/// The bytes of a new text of `new_len` bytes that differ from an old one of `old_len`
/// bytes, given what they have in `common`.
pub(crate) fn changed_range(old_len: usize, new_len: usize, common: Common) -> Range<usize> {
    let start = common.prefix.min(old_len).min(new_len);
    let suffix = common.suffix.min(old_len - start).min(new_len - start);
    start..new_len - suffix
}

/// The items (functions, models) whose text meets `range` (an insertion at an item's edge
/// included).
pub(crate) fn touched(items: &[Item], range: &Range<usize>) -> Vec<String> {
    items
        .iter()
        .filter(|i| i.offset <= range.end && range.start <= i.offset + i.text.len())
        .map(|i| i.symbol.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::diag::LineIndex;

    #[test]
    fn positions_are_located_as_diagnostics_locate_them() {
        let text = "ab\n\u{e9}t\u{e9}\n\nxyz";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 2 {
            let p = index.position(text, offset);
            let want = Pos {
                line: p.line,
                col: p.col,
            };
            assert_eq!(Pos::of(text, offset), want, "{offset}");
        }
        assert_eq!(Pos::of(text, 4).to_string(), "2:1");
        assert_eq!(Pos::of(text, 5).to_string(), "2:2");
    }

    fn entry(query: &str, file: &str, item: Option<&str>, reason: Reason) -> Entry {
        Entry {
            query: query.into(),
            subject: Some(Subject {
                item: item.map(Into::into),
                ..Subject::file(Path::new(file))
            }),
            reason,
            cache: None,
        }
    }

    #[test]
    fn the_summary_names_edited_functions_and_models_and_new_inputs() {
        let change = |file: &str, items: &[&str]| Change {
            items: items.iter().map(|i| i.to_string()).collect(),
            ..Change::new(Path::new(file), "a\nbc", 3..4, Vec::new())
        };
        let edited = |file: &str| Reason::InputChanged {
            file: file.into(),
            item: None,
            range: 3..4,
            start: Pos { line: 2, col: 2 },
        };
        let e = Explanation {
            changes: vec![change("m.mlir", &["g", "f"]), change("x.blif", &["adder"])],
            entries: vec![
                entry("model_aig", "x.blif", Some("adder"), edited("x.blif")),
                entry("function_index", "n.mlir", None, Reason::NewInput),
                entry("segmentation", "m.mlir", Some("f"), edited("m.mlir")),
            ],
            ..Explanation::default()
        };
        let text = e.render_at_most(1, " (--all)");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "3 queries re-ran because of 2 edits in 2 files: functions @f, @g (m.mlir), \
                 model adder (x.blif); first build of 1 input in this daemon",
                "changed: m.mlir:2:2-2:3 (@g, @f)",
                "… and 1 more change (--all)",
                "x.blif model adder [model_aig]: edited at x.blif:2:2",
                "… and 2 more (--all)",
            ]
        );
        assert_eq!(e.render().lines().count(), 6);
        assert_eq!(Explanation::default().summary(), "no query executed");
    }

    #[test]
    fn an_unknown_target_gets_a_few_known_names_of_each_kind() {
        let e = Explanation {
            outputs: vec![("/w/out/m.aig".into(), "/w/m.mlir".into())],
            ..Explanation::default()
        };
        let items = [
            (
                "/w/m.mlir".into(),
                (0..5).map(|i| format!("f{i}")).collect(),
            ),
            ("/w/x.blif".into(), vec!["adder".to_string()]),
        ];
        for known in ["@f4", "f4", "adder", "out/m.aig", "m.mlir", "/w/m.mlir"] {
            assert_eq!(e.unknown(known, &items), None, "{known}");
        }
        let mut u = Explanation {
            unknown: e.unknown("@f9", &items),
            ..e.clone()
        };
        u.relative_to(Path::new("/w"));
        assert_eq!(
            u.unknown.unwrap().known,
            [
                "outputs out/m.aig",
                "inputs m.mlir",
                "functions @f0, @f1, @f2 and 2 more",
                "models adder",
            ]
        );
    }
}
