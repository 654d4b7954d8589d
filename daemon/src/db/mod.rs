//! The salsa database: inputs, tracked queries and the persistent-cache hook.
//!
//! Inputs are MLIR source files ([`SourceFile`]: path, text and its lexical split, both set
//! by the input layer, [`crate::workspace`]), BLIF files ([`BlifFile`], high durability) and
//! Handshake jobs ([`HandshakeJob`]: a source file, its options and its library files).
//! Every query takes its item by symbol and reads only that item's own text, so an edit
//! recomputes only what reads the changed text: salsa's early cutoff stops at the first
//! query whose value did not change. Query bodies are the steps of [`compiler::flow`]; the
//! kinds marked *cached* also go through the persistent store, keyed by the digests of the
//! texts they read, so that a restarted daemon serves them from disk.
//!
//! - [`aps`]: the APS chain, per function and per block;
//! - [`handshake`]: the Handshake front, library units, back;
//! - [`blif`]: per BLIF model.
//!
//! Architecture invariant: queries are pure functions of the inputs; the [`Runtime`] they
//! share holds only counters and the persistent store (no memo of its own, nothing a query
//! writes for another to read), with the store writes an editor's analysis left for later.

pub(crate) mod aps;
pub(crate) mod blif;
pub(crate) mod handshake;

use crate::counters::{Counters, Kind};
use crate::why::{CacheOutcome, Explain, Noted, Subject};
use bytes::Bytes;
use compiler::diag::{Diagnostic, Located};
use compiler::flow::OutputKind;
use compiler::limits::Limits;
use compiler::mlir::split::Split;
use kiln_cache::{Key, Store};
use salsa::Setter;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::cell::Cell;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// State shared by every clone of a database and read (never tracked) by query bodies.
#[derive(Debug)]
pub(crate) struct Runtime {
    pub(crate) counters: Counters,
    pub(crate) store: Option<Store>,
    /// The kiln build id in this database's cache keys ([`build_id`], but for tests).
    pub(crate) build_id: String,
    /// Why queries execute (see [`crate::why`]).
    pub(crate) explain: Explain,
    /// Store writes left for later ([`without_stores`]), done by [`Runtime::write_deferred`].
    deferred: Deferred,
}

/// A store write left for later: the entry's key and its value, shared with the memo that
/// holds it (no copy is made).
type Write = Box<dyn FnOnce(&Store) + Send>;

#[derive(Default)]
struct Deferred(Mutex<Vec<Write>>);

impl std::fmt::Debug for Deferred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Deferred({})", self.lock().len())
    }
}

impl Deferred {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Write>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Runtime {
    /// Whether store writes were left for later.
    pub(crate) fn has_deferred(&self) -> bool {
        !self.deferred.lock().is_empty()
    }

    /// Do the store writes left for later (encoding each value), in the order they were left.
    pub(crate) fn write_deferred(&self) {
        let writes = std::mem::take(&mut *self.deferred.lock());
        if let Some(store) = self.store.as_ref() {
            for write in writes {
                write(store);
            }
        }
    }
}

thread_local! {
    /// Whether this thread is inside [`without_stores`].
    static DEFERRING: Cell<bool> = const { Cell::new(false) };
}

/// Run `f` with the store's writes of the results its cached queries compute (those of
/// [`cached_shared`]) left for later ([`Runtime::write_deferred`]); their lookups are still
/// made. The values are unchanged (a write is a side effect of a query, never read by
/// another): an editor's analysis publishes its diagnostics before encoding them.
pub(crate) fn without_stores<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            DEFERRING.set(self.0);
        }
    }
    let _restore = Restore(DEFERRING.replace(true));
    f()
}

#[salsa::db]
pub(crate) trait KilnDb: salsa::Database {
    fn runtime(&self) -> &Runtime;
}

/// The first statement of a query body: the subject of the execution salsa just opened
/// ([`crate::why`]).
pub(crate) fn note(db: &dyn KilnDb, subject: impl FnOnce() -> Subject) -> Noted {
    db.runtime().explain.note(subject)
}

#[salsa::db]
#[derive(Clone)]
pub struct Db {
    storage: salsa::Storage<Self>,
    runtime: Arc<Runtime>,
}

#[salsa::db]
impl salsa::Database for Db {}

#[salsa::db]
impl KilnDb for Db {
    fn runtime(&self) -> &Runtime {
        &self.runtime
    }
}

impl Db {
    /// A database whose cached query kinds read and write `store` (if any).
    pub(crate) fn new(store: Option<Store>) -> Db {
        Db::with_build_id(store, build_id())
    }

    /// A database whose cache keys name `build_id` (tests: another kiln build).
    pub fn with_build_id(store: Option<Store>, build_id: &str) -> Db {
        let change = store
            .as_ref()
            .and_then(|s| s.swap_build_id(build_id))
            .map(|was| (was, build_id.to_string()));
        let runtime = Arc::new(Runtime {
            counters: Counters::default(),
            store,
            build_id: build_id.to_string(),
            explain: Explain::new(change),
            deferred: Deferred::default(),
        });
        let events = runtime.clone();
        let callback = Box::new(move |e: salsa::Event| events.explain.event(e));
        let db = Db {
            storage: salsa::Storage::new(Some(callback)),
            runtime,
        };
        let limits = crate::input::limits();
        let _settings = Settings::builder(limits, limits_digest(&limits), None)
            .durability(salsa::Durability::HIGH)
            .new(&db);
        db
    }

    /// The limits the queries check against ([`Settings`]).
    pub(crate) fn limits(&self) -> Limits {
        Settings::get(self).limits(self)
    }

    /// Set the limits the queries check against; what depends on them is recomputed.
    pub(crate) fn set_limits(&mut self, limits: Limits) {
        let settings = Settings::get(self);
        if settings.limits(self) != limits {
            settings
                .set_limits(self)
                .with_durability(salsa::Durability::HIGH)
                .to(limits);
            settings
                .set_limits_digest(self)
                .with_durability(salsa::Durability::HIGH)
                .to(limits_digest(&limits));
        }
    }

    /// Set the SoC's CSR configuration APS designs are built under; the design contexts
    /// (and what depends on their lanes) are recomputed when it changes.
    pub(crate) fn set_csr_config(&mut self, csr: Option<compiler::aps::csr::CsrConfig>) {
        let settings = Settings::get(self);
        if *settings.csr_config(self) != csr {
            settings
                .set_csr_config(self)
                .with_durability(salsa::Durability::HIGH)
                .to(csr);
        }
    }

    /// The shared runtime (counters, store), usable without holding a database handle:
    /// a live clone would block input writes until dropped.
    pub(crate) fn shared_runtime(&self) -> Arc<Runtime> {
        self.runtime.clone()
    }

    pub(crate) fn counters(&self) -> &Counters {
        &self.runtime.counters
    }
}

/// What every query may depend on besides its inputs: the resource limits of the build
/// (a request's, else the process's own), one value per database.
#[salsa::input(singleton, debug)]
pub(crate) struct Settings {
    #[returns(copy)]
    pub(crate) limits: Limits,
    /// Digest of `limits`, part of the persistent cache keys of what they decide: computed
    /// once per setting, not once per query.
    #[returns(copy)]
    pub(crate) limits_digest: [u8; 32],
    /// The SoC's CSR configuration of the build (`--aps-config`): the APS designs' CSR
    /// lanes; part of their design context, so of the persistent cache keys.
    #[returns(ref)]
    pub(crate) csr_config: Option<compiler::aps::csr::CsrConfig>,
}

fn limits_digest(limits: &Limits) -> [u8; 32] {
    kiln_cache::digest(serde_json::to_string(limits).unwrap_or_default().as_bytes())
}

/// The resource limits the queries check against ([`Settings`]).
pub(crate) fn limits(db: &dyn KilnDb) -> Limits {
    Settings::get(db).limits(db)
}

/// A source file given to a build (MLIR), with its lexical split into functions and design
/// context (the input layer keeps the split up to date as the text changes: see
/// [`crate::workspace`]).
#[salsa::input(debug)]
pub(crate) struct SourceFile {
    #[returns(ref)]
    pub(crate) path: PathBuf,
    #[returns(ref)]
    pub(crate) text: String,
    #[returns(ref)]
    pub(crate) split: Arc<Split>,
}

/// One BLIF file (set with high durability: library files change rarely, so salsa skips
/// re-validating what depends only on them).
#[salsa::input(debug)]
pub(crate) struct BlifFile {
    #[returns(ref)]
    pub(crate) path: PathBuf,
    #[returns(ref)]
    pub(crate) text: String,
}

/// Digest of the running kiln build, part of every persistent cache key: a different
/// compiler may compute different results from the same inputs.
pub fn build_id() -> &'static str {
    env!("KILN_BUILD_ID")
}

/// Run `compute` unless the store holds the result of `kind` over inputs with these digests.
/// Counts an execution or a cache hit, and tells the explanation of the execution `noted`.
pub(crate) fn cached<T: Serialize + DeserializeOwned>(
    db: &dyn KilnDb,
    noted: Noted,
    kind: Kind,
    digests: &[&[u8]],
    compute: impl FnOnce() -> T,
) -> T {
    cached_if(db, noted, kind, digests, compute, |_| true)
}

/// [`cached`], storing a computed result only when `keep` says it is a function of the
/// digests (not, say, a time-out).
pub(crate) fn cached_if<T: Serialize + DeserializeOwned>(
    db: &dyn KilnDb,
    noted: Noted,
    kind: Kind,
    digests: &[&[u8]],
    compute: impl FnOnce() -> T,
    keep: impl FnOnce(&T) -> bool,
) -> T {
    let (store, key) = match looked_up(db, noted, kind, digests) {
        Lookup::Hit(v) => return v,
        Lookup::NoStore => return compute(),
        Lookup::Miss(store, key) => (store, key),
    };
    let v = compute();
    if keep(&v) {
        put(store, kind, &key, &v);
    }
    v
}

/// [`cached`] for a result its query shares with the memo: inside [`without_stores`], its
/// write is left for later with the value shared, not copied.
pub(crate) fn cached_shared<T>(
    db: &dyn KilnDb,
    noted: Noted,
    kind: Kind,
    digests: &[&[u8]],
    compute: impl FnOnce() -> T,
) -> Arc<T>
where
    T: Serialize + DeserializeOwned + Send + Sync + 'static,
{
    let (store, key) = match looked_up(db, noted, kind, digests) {
        Lookup::Hit(v) => return Arc::new(v),
        Lookup::NoStore => return Arc::new(compute()),
        Lookup::Miss(store, key) => (store, key),
    };
    let v = Arc::new(compute());
    if DEFERRING.get() {
        let shared = v.clone();
        let write: Write = Box::new(move |store| put(store, kind, &key, &*shared));
        db.runtime().deferred.lock().push(write);
    } else {
        put(store, kind, &key, &*v);
    }
    v
}

enum Lookup<'a, T> {
    Hit(T),
    /// Not in the store (the execution is counted): the key to store the result under.
    Miss(&'a Store, Key),
    /// No store (the execution is counted).
    NoStore,
}

/// The store's entry of `kind` over these digests, counted and explained.
fn looked_up<'a, T: DeserializeOwned>(
    db: &'a dyn KilnDb,
    noted: Noted,
    kind: Kind,
    digests: &[&[u8]],
) -> Lookup<'a, T> {
    let rt = db.runtime();
    let Some(store) = rt.store.as_ref() else {
        rt.counters.executed(kind);
        return Lookup::NoStore;
    };
    let key = Key::new(&rt.build_id, kind.name(), digests);
    match store.lookup::<T>(&key) {
        Ok(v) => {
            rt.counters.cache_hit(kind);
            rt.explain.cache(noted, CacheOutcome::Hit);
            Lookup::Hit(v)
        }
        Err(miss) => {
            rt.explain.cache(noted, CacheOutcome::Miss(miss));
            rt.counters.executed(kind);
            Lookup::Miss(store, key)
        }
    }
}

fn put<T: Serialize + DeserializeOwned>(store: &Store, kind: Kind, key: &Key, value: &T) {
    if let Err(e) = store.put(key, value) {
        tracing::warn!(kind = kind.name(), error = %e, "cannot write cache entry");
    }
}

/// Count one execution of `kind`.
fn executed(db: &dyn KilnDb, kind: Kind) {
    db.runtime().counters.executed(kind);
}

/// What a file produces: output bytes by kind, diagnostics in the file's text, and
/// messages about other files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FileOutputs {
    pub(crate) outputs: Vec<(OutputKind, OutputBytes)>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) elsewhere: Vec<Located>,
}

impl FileOutputs {
    pub(crate) fn failed(diagnostics: Vec<Diagnostic>) -> FileOutputs {
        FileOutputs {
            diagnostics,
            ..FileOutputs::default()
        }
    }
}

impl From<compiler::flow::Outcome> for FileOutputs {
    fn from(o: compiler::flow::Outcome) -> FileOutputs {
        FileOutputs {
            outputs: o
                .outputs
                .into_iter()
                .map(|(k, pieces)| (k, OutputBytes::from_pieces(pieces)))
                .collect(),
            diagnostics: o.diagnostics,
            elsewhere: o.elsewhere,
        }
    }
}

/// An output file's bytes as a sequence of shared parts: an APS file's CMT2 is its header,
/// one part per function and its footer, so that an edit neither re-emits nor copies the
/// parts of unchanged functions (salsa hands back the same parts). The writer writes the
/// parts in order and recognises shared ones without comparing bytes.
#[derive(Clone, Debug, Default)]
pub(crate) struct OutputBytes {
    pub(crate) parts: Arc<Vec<Bytes>>,
}

impl OutputBytes {
    /// One part.
    pub(crate) fn new(bytes: Vec<u8>) -> OutputBytes {
        OutputBytes::from_parts(vec![Bytes::from(bytes)])
    }

    pub(crate) fn from_parts(parts: Vec<Bytes>) -> OutputBytes {
        OutputBytes {
            parts: Arc::new(parts),
        }
    }

    /// The compiler's pieces, without copying their bytes.
    pub(crate) fn from_pieces(pieces: Vec<compiler::flow::Piece>) -> OutputBytes {
        let part = |p: compiler::flow::Piece| match p {
            std::borrow::Cow::Owned(v) => Bytes::from(v),
            std::borrow::Cow::Borrowed(s) => Bytes::from_static(s),
        };
        OutputBytes::from_parts(pieces.into_iter().map(part).collect())
    }

    pub(crate) fn len(&self) -> usize {
        self.parts.iter().map(|p| p.len()).sum()
    }

    /// The bytes in one buffer.
    pub(crate) fn to_vec(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len());
        self.parts.iter().for_each(|p| v.extend_from_slice(p));
        v
    }
}

/// Whether two parts are the same shared bytes (no byte comparison).
pub(crate) fn same_part(a: &Bytes, b: &Bytes) -> bool {
    a.as_ptr() == b.as_ptr() && a.len() == b.len()
}

/// Equal parts: the same shared part (no byte comparison), or equal bytes. Outputs split
/// differently into parts compare unequal, which only costs a rewrite of equal bytes
/// (that the writer then skips).
impl PartialEq for OutputBytes {
    fn eq(&self, other: &OutputBytes) -> bool {
        Arc::ptr_eq(&self.parts, &other.parts)
            || (self.parts.len() == other.parts.len()
                && self
                    .parts
                    .iter()
                    .zip(other.parts.iter())
                    .all(|(a, b)| same_part(a, b) || a == b))
    }
}

impl Eq for OutputBytes {}
