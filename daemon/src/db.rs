//! The salsa database: inputs, tracked queries and the persistent-cache hook.
//!
//! Inputs are source files (`SourceFile`: path, text) and the BLIF library (`Library`, a set
//! of `BlifFile`s set with high durability). Every query below takes its item by symbol and
//! reads only that item's own text (see [`crate::items`]), so an edit recomputes only what
//! reads the changed text: salsa's early cutoff stops at the first query whose value did not
//! change. Query bodies are `compiler` functions; the kinds marked *cached* also go through
//! the persistent store, keyed by the digests of the texts they read, so that a restarted
//! daemon serves them from disk.

use crate::counters::Counters;
use crate::items::{self, Item};
use compiler::diag::Diagnostic;
use compiler::mlir::ast::ModuleAst;
use kiln_cache::{Key, Store};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::PathBuf;
use std::sync::Arc;

/// State shared by every clone of a database and read (never tracked) by query bodies.
#[derive(Debug)]
pub struct Runtime {
    pub counters: Counters,
    pub store: Option<Store>,
}

#[salsa::db]
pub trait KilnDb: salsa::Database {
    fn runtime(&self) -> &Runtime;
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
    pub fn new(store: Option<Store>) -> Db {
        Db {
            storage: salsa::Storage::new(None),
            runtime: Arc::new(Runtime {
                counters: Counters::default(),
                store,
            }),
        }
    }

    /// The shared runtime (counters, store), usable without holding a database handle:
    /// a live clone would block input writes until dropped.
    pub fn shared_runtime(&self) -> Arc<Runtime> {
        self.runtime.clone()
    }

    pub fn counters(&self) -> &Counters {
        &self.runtime.counters
    }

    pub fn store(&self) -> Option<&Store> {
        self.runtime.store.as_ref()
    }
}

/// A source file given to `Build` (MLIR).
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub text: String,
}

/// One BLIF file of the library or of the inputs.
#[salsa::input(debug)]
pub struct BlifFile {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub text: String,
}

/// The BLIF library: every file whose models inputs may instantiate. Set with high
/// durability: it changes rarely, so salsa skips re-validating what only depends on it.
#[salsa::input(debug)]
pub struct Library {
    #[returns(ref)]
    pub files: Vec<BlifFile>,
}

/// Digest of the running kiln build, part of every persistent cache key: a different
/// compiler may compute different results from the same inputs.
pub fn build_id() -> &'static str {
    env!("KILN_BUILD_ID")
}

/// Run `compute` unless the store holds the result of `kind` over inputs with these digests.
/// Counts an execution or a cache hit.
pub fn cached<T: Serialize + DeserializeOwned>(
    db: &dyn KilnDb,
    kind: &'static str,
    digests: &[&[u8]],
    compute: impl FnOnce() -> T,
) -> T {
    let rt = db.runtime();
    let Some(store) = rt.store.as_ref() else {
        rt.counters.executed(kind);
        return compute();
    };
    let key = Key::new(build_id(), kind, digests);
    if let Some(v) = store.get::<T>(&key) {
        rt.counters.cache_hit(kind);
        return v;
    }
    rt.counters.executed(kind);
    let v = compute();
    if let Err(e) = store.put(&key, &v) {
        tracing::warn!(kind, error = %e, "cannot write cache entry");
    }
    v
}

// ---------------------------------------------------------------------------------------
// MLIR: items keyed by symbol.

/// The top-level symbol-defining operations of a file, in source order.
#[salsa::tracked(returns(ref))]
pub fn mlir_items(db: &dyn KilnDb, file: SourceFile) -> Vec<Item> {
    db.runtime().counters.executed("mlir_items");
    items::mlir_items(file.text(db))
}

/// The text of the function `symbol` (exactly as written), or `None` when the file has no
/// such item. Unchanged when other parts of the file change, so its dependents are not
/// re-executed.
#[salsa::tracked(returns(ref))]
pub fn function_text(db: &dyn KilnDb, file: SourceFile, symbol: String) -> Option<String> {
    db.runtime().counters.executed("function_text");
    mlir_items(db, file)
        .iter()
        .find(|i| i.symbol == symbol)
        .map(|i| i.text.clone())
}

// ---------------------------------------------------------------------------------------
// BLIF: models keyed by name.

/// The models of one BLIF file, split lexically.
#[salsa::tracked(returns(ref))]
pub fn blif_models(db: &dyn KilnDb, file: BlifFile) -> Vec<Item> {
    db.runtime().counters.executed("blif_models");
    items::blif_models(file.text(db))
}

/// The text of model `name`: the first definition in the library (in file order).
#[salsa::tracked(returns(ref))]
pub fn model_text(db: &dyn KilnDb, library: Library, name: String) -> Option<String> {
    db.runtime().counters.executed("model_text");
    library.files(db).iter().find_map(|f| {
        blif_models(db, *f)
            .iter()
            .find(|m| m.symbol == name)
            .map(|m| m.text.clone())
    })
}

/// The function `symbol` parsed on its own: an op tree whose spans are relative to the
/// function's first byte (so moving the function does not change it). *Cached* (`parse`).
#[salsa::tracked(returns(ref))]
pub fn function_ast(
    db: &dyn KilnDb,
    file: SourceFile,
    symbol: String,
) -> Option<Result<ModuleAst, Diagnostic>> {
    let text = function_text(db, file, symbol).as_ref()?;
    let digest = kiln_cache::digest(text.as_bytes());
    Some(cached(db, "parse", &[&digest], || {
        compiler::mlir::parse(text)
    }))
}

/// What a file produces: output texts by kind, and diagnostics with file-relative spans.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub struct FileOutputs {
    pub outputs: Vec<(OutputKind, String)>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Kinds of output files, named `<stem>.<suffix>` in the output directory.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
pub enum OutputKind {
    /// Every function in MLIR generic form (`<stem>.generic.mlir`).
    Generic,
}

impl OutputKind {
    pub const ALL: &[OutputKind] = &[OutputKind::Generic];

    pub fn name(self) -> &'static str {
        match self {
            OutputKind::Generic => "generic",
        }
    }

    pub fn suffix(self) -> &'static str {
        match self {
            OutputKind::Generic => "generic.mlir",
        }
    }

    pub fn parse(name: &str) -> Option<OutputKind> {
        OutputKind::ALL.iter().copied().find(|k| k.name() == name)
    }
}

/// The outputs of an MLIR file: per-function results assembled in source order.
#[salsa::tracked(returns(ref))]
pub fn mlir_outputs(db: &dyn KilnDb, file: SourceFile) -> FileOutputs {
    db.runtime().counters.executed("emit");
    let mut generic = String::new();
    let mut diagnostics = Vec::new();
    for item in mlir_items(db, file) {
        match function_ast(db, file, item.symbol.clone()) {
            Some(Ok(ast)) => generic.push_str(&compiler::mlir::print(ast)),
            Some(Err(d)) => diagnostics.push(d.clone().shifted(item.offset as i64)),
            None => {}
        }
    }
    FileOutputs {
        outputs: vec![(OutputKind::Generic, generic)],
        diagnostics,
    }
}
