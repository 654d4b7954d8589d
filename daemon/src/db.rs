//! The salsa database: inputs, tracked queries and the persistent-cache hook.
//!
//! Inputs are MLIR source files (`SourceFile`: path, text) and BLIF files (`BlifFile`, set
//! with high durability). Every query below takes its item by symbol and
//! reads only that item's own text (see [`crate::items`]), so an edit recomputes only what
//! reads the changed text: salsa's early cutoff stops at the first query whose value did not
//! change. Query bodies are `compiler` functions; the kinds marked *cached* also go through
//! the persistent store, keyed by the digests of the texts they read, so that a restarted
//! daemon serves them from disk.

use crate::counters::Counters;
use crate::items::{self, Item};
use crate::split;
use compiler::aig::{Aig, Lowered};
use compiler::aps::{BlockRules, DesignContext, Segmentation};
use compiler::blif::Model;
use compiler::diag::Diagnostic;
use compiler::diag::Span;
use compiler::mlir::ast::Operation;
use compiler::rules::Circuit;
use kiln_cache::{Key, Store};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// State shared by every clone of a database and read (never tracked) by query bodies.
#[derive(Debug)]
pub struct Runtime {
    pub counters: Counters,
    pub store: Option<Store>,
    /// What this process last wrote where (to skip re-reading unchanged outputs).
    pub written: crate::driver::OutputLog,
    /// The last results of each build's jobs (see `driver::ComputeMemo`).
    pub computed: crate::driver::ComputeMemo,
    /// The last assembly of each APS file (see [`aps_outputs`]).
    pub aps: ApsMemo,
    /// The last split of each APS file, with the generation of the text it split (see
    /// [`mlir_split`]).
    pub splits: std::sync::Mutex<std::collections::HashMap<SourceFile, (u64, Arc<split::Split>)>>,
    /// Inputs whose queries `prewarm` has evaluated on this database.
    pub prewarmed: std::sync::Mutex<std::collections::HashSet<salsa::Id>>,
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
                written: Default::default(),
                computed: Default::default(),
                aps: Default::default(),
                splits: Default::default(),
                prewarmed: Default::default(),
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
    /// Which text this is and how it differs from the one before (set with every text).
    pub edit: TextEdit,
}

/// A source text's generation (unique per text set in a workspace) and, when the workspace
/// compared it with the text it replaced, what the two share at each end: [`mlir_split`]
/// re-splits from that instead of comparing the two files again. Only a hint for speed:
/// the split is the same either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TextEdit {
    pub generation: u64,
    /// The generation of the replaced text, and the ends it shares with this one.
    pub since: Option<(u64, split::Common)>,
}

/// One BLIF file (set with high durability: library files change rarely, so salsa skips
/// re-validating what depends only on them).
#[salsa::input(debug)]
pub struct BlifFile {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub text: String,
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
// MLIR (APS flow): design context, and functions keyed by symbol.

/// The file split lexically into its `tor.func` items and the rest (the design context).
/// Re-split from the last split of the same file when there is one (see
/// [`split::resplit`]: equal to a split from scratch, in time proportional to the edit),
/// with the workspace's comparison of the two texts when it was against that split's text.
#[salsa::tracked(returns(ref))]
pub fn mlir_split(db: &dyn KilnDb, file: SourceFile) -> split::Split {
    db.runtime().counters.executed("mlir_items");
    let text = file.text(db);
    let edit = file.edit(db);
    let memo = &db.runtime().splits;
    let last = memo
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&file)
        .cloned();
    let split = match last {
        Some((generation, last)) => {
            // The workspace's comparison holds only against the text the last split is of.
            let common = edit
                .since
                .and_then(|(base, common)| (base == generation).then_some(common));
            split::resplit(&last, text, common)
        }
        None => split::split_functions(text),
    };
    memo.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(file, (edit.generation, Arc::new(split.clone())));
    split
}

/// The file with its functions cut out: unchanged by any edit inside a function, so
/// [`design_context`] (a parse of it) is cut off here. Its spans map to the file with
/// [`split::Split::to_file`].
#[salsa::tracked(returns(ref))]
pub fn context_text(db: &dyn KilnDb, file: SourceFile) -> Arc<String> {
    mlir_split(db, file).context.clone()
}

/// Where each function symbol first occurs in [`mlir_split`]'s list.
#[salsa::tracked(returns(ref))]
pub fn function_index(db: &dyn KilnDb, file: SourceFile) -> BTreeMap<String, usize> {
    let mut index = BTreeMap::new();
    for (i, item) in mlir_split(db, file).functions.iter().enumerate() {
        index.entry(item.symbol.clone()).or_insert(i);
    }
    index
}

/// Design-level facts (memory map, globals, constants), from the file without its
/// functions. Unchanged by edits inside functions or comments after the design header.
/// An error's span is in [`context_text`]: see [`context_error`].
#[salsa::tracked(returns(ref))]
pub fn design_context(db: &dyn KilnDb, file: SourceFile) -> Result<DesignContext, Diagnostic> {
    db.runtime().counters.executed("context");
    let module =
        compiler::mlir::parse_with(context_text(db, file).as_str(), &crate::input::limits())?;
    compiler::aps::design_context(&module)
}

/// [`design_context`]'s error, with its span in the file.
pub fn context_error(db: &dyn KilnDb, file: SourceFile) -> Option<Diagnostic> {
    let d = design_context(db, file).as_ref().err()?;
    Some(mlir_split(db, file).to_file(d.clone()))
}

/// The text of the function `symbol` (exactly as written), or `None` when the file has no
/// such function. Unchanged when other parts of the file change, so its dependents are not
/// re-executed.
#[salsa::tracked(returns(ref))]
pub fn function_text(db: &dyn KilnDb, file: SourceFile, symbol: String) -> Option<Item> {
    db.runtime().counters.executed("function_text");
    let i = *function_index(db, file).get(&symbol)?;
    mlir_split(db, file).functions.get(i).map(|i| Item {
        offset: 0,
        ..i.clone()
    })
}

fn function_digest(db: &dyn KilnDb, file: SourceFile, symbol: &str) -> Option<[u8; 32]> {
    function_text(db, file, symbol.to_string())
        .as_ref()
        .map(|i| kiln_cache::digest(i.text.as_bytes()))
}

/// Digest of the file's design context (part of the persistent cache keys of its
/// functions' queries): computed once per context, not once per function and block.
#[salsa::tracked]
fn context_digest(db: &dyn KilnDb, file: SourceFile) -> [u8; 32] {
    let ctx = design_context(db, file).as_ref().ok();
    kiln_cache::digest(serde_json::to_string(&ctx).unwrap_or_default().as_bytes())
}

/// The function parsed on its own: spans relative to its first byte. Only run when a
/// segmentation is not in the persistent cache.
#[salsa::tracked(returns(ref))]
pub fn function_op(
    db: &dyn KilnDb,
    file: SourceFile,
    symbol: String,
) -> Option<Result<Operation, Diagnostic>> {
    let item = function_text(db, file, symbol).as_ref()?;
    db.runtime().counters.executed("parse");
    Some(
        compiler::mlir::parse_with(&item.text, &crate::input::limits()).and_then(|module| {
            module
                .ops
                .into_iter()
                .next()
                .ok_or_else(|| Diagnostic::error(Span::point(0), "empty function item"))
        }),
    )
}

/// The function's block tree, FIFOs and ports. *Cached* (`segmentation`).
#[salsa::tracked(returns(ref))]
pub fn segmentation(
    db: &dyn KilnDb,
    file: SourceFile,
    symbol: String,
) -> Option<Result<Segmentation, Diagnostic>> {
    let f = function_digest(db, file, &symbol)?;
    let ctx = match design_context(db, file) {
        Ok(c) => c,
        Err(d) => return Some(Err(d.clone())),
    };
    let c = *context_digest(db, file);
    // The function is parsed only when the result is not in the persistent cache.
    Some(cached(
        db,
        "segmentation",
        &[&f, &c],
        || match function_op(db, file, symbol.clone()).as_ref() {
            Some(Ok(op)) => compiler::aps::segment_function(ctx, op),
            Some(Err(d)) => Err(d.clone()),
            None => Err(Diagnostic::error(Span::point(0), "function vanished")),
        },
    ))
}

/// The rules of block `block` of function `symbol`. *Cached* (`handler`).
#[salsa::tracked(returns(ref))]
pub fn block_rules(
    db: &dyn KilnDb,
    file: SourceFile,
    symbol: String,
    block: usize,
) -> Result<BlockRules, Diagnostic> {
    let missing = || Diagnostic::error(Span::point(0), format!("no function `@{symbol}`"));
    let ctx = design_context(db, file).as_ref().map_err(Clone::clone)?;
    let f = function_digest(db, file, &symbol).ok_or_else(missing)?;
    let c = *context_digest(db, file);
    cached(
        db,
        "handler",
        &[&f, &c, &(block as u64).to_le_bytes()],
        || {
            let seg = segmentation(db, file, symbol.clone())
                .as_ref()
                .ok_or_else(missing)?
                .as_ref()
                .map_err(Clone::clone)?;
            compiler::aps::handle_block(ctx, seg, block)
        },
    )
}

/// The function's circuit, assembled from its segmentation and block rules.
#[salsa::tracked(returns(ref))]
pub fn function_circuit(
    db: &dyn KilnDb,
    file: SourceFile,
    symbol: String,
) -> Option<Result<Circuit, Diagnostic>> {
    let seg = match segmentation(db, file, symbol.clone()).as_ref()? {
        Ok(s) => s,
        Err(d) => return Some(Err(d.clone())),
    };
    let mut blocks = Vec::with_capacity(seg.blocks.len());
    for id in 0..seg.blocks.len() {
        match block_rules(db, file, symbol.clone(), id) {
            Ok(b) => blocks.push(b.clone()),
            Err(d) => return Some(Err(d.clone())),
        }
    }
    db.runtime().counters.executed("assemble");
    let ctx = design_context(db, file).as_ref().ok()?;
    Some(Ok(compiler::aps::assemble(ctx, seg, &blocks)))
}

/// What a file produces: output bytes by kind, and diagnostics with file-relative spans.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileOutputs {
    pub outputs: Vec<(OutputKind, OutputBytes)>,
    pub diagnostics: Vec<Diagnostic>,
    /// Messages about other files, already rendered: (text, is an error).
    pub rendered: Vec<(String, bool)>,
}

/// An output file's bytes as a sequence of shared parts: an APS file's CMT2 is its header,
/// one part per function and its footer, so that an edit neither re-emits nor copies the
/// parts of unchanged functions (salsa hands back the same `Arc`s). The driver hashes and
/// writes the parts (see `driver::OutputLog`).
#[derive(Clone, Debug)]
pub struct OutputBytes {
    pub parts: Arc<Vec<Arc<[u8]>>>,
}

impl OutputBytes {
    /// One part.
    pub fn new(bytes: Vec<u8>) -> OutputBytes {
        OutputBytes::from_parts(vec![Arc::from(bytes)])
    }

    pub fn from_parts(parts: Vec<Arc<[u8]>>) -> OutputBytes {
        OutputBytes {
            parts: Arc::new(parts),
        }
    }

    pub fn len(&self) -> usize {
        self.parts.iter().map(|p| p.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes in one buffer.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len());
        self.parts.iter().for_each(|p| v.extend_from_slice(p));
        v
    }
}

/// Equal parts: the same shared part (no byte comparison), or equal bytes. Outputs split
/// differently into parts compare unequal, which only costs a rewrite of equal bytes
/// (that the driver then skips).
impl PartialEq for OutputBytes {
    fn eq(&self, other: &OutputBytes) -> bool {
        Arc::ptr_eq(&self.parts, &other.parts)
            || (self.parts.len() == other.parts.len()
                && self
                    .parts
                    .iter()
                    .zip(other.parts.iter())
                    .all(|(a, b)| Arc::ptr_eq(a, b) || a == b))
    }
}

impl Eq for OutputBytes {}

/// Kinds of output files, named `<stem>.<suffix>` in the output directory.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
pub enum OutputKind {
    /// CMT2 MLIR of the file's merged circuit (`<stem>.cmt2.mlir`).
    Cmt2,
    /// The rule IR as JSON (`<stem>.rules.json`).
    RulesJson,
    /// Binary AIGER of a BLIF file's top model (`<stem>.aig`).
    Aig,
    /// ASCII AIGER (`<stem>.aag`).
    Aag,
    /// SystemVerilog of an APS file's merged circuit (`<stem>.sv`), only when asked for.
    Sv,
    /// Synth MLIR of a Handshake circuit (`<stem>.synth.mlir`).
    SynthMlir,
    /// Flat BLIF of a Handshake circuit (`<stem>.blif`).
    FlatBlif,
    /// Hierarchical BLIF of a Handshake circuit: top + each used unit once (`<stem>.hier.blif`).
    HierBlif,
}

impl OutputKind {
    pub const ALL: &[OutputKind] = &[
        OutputKind::Cmt2,
        OutputKind::RulesJson,
        OutputKind::Aig,
        OutputKind::Aag,
        OutputKind::Sv,
        OutputKind::SynthMlir,
        OutputKind::FlatBlif,
        OutputKind::HierBlif,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OutputKind::Cmt2 => "cmt2",
            OutputKind::RulesJson => "rules-json",
            OutputKind::Aig => "aig",
            OutputKind::Aag => "aag",
            OutputKind::Sv => "sv",
            OutputKind::SynthMlir => "synth-mlir",
            OutputKind::FlatBlif => "blif",
            OutputKind::HierBlif => "hier-blif",
        }
    }

    pub fn suffix(self) -> &'static str {
        match self {
            OutputKind::Cmt2 => "cmt2.mlir",
            OutputKind::RulesJson => "rules.json",
            OutputKind::Aig => "aig",
            OutputKind::Aag => "aag",
            OutputKind::Sv => "sv",
            OutputKind::SynthMlir => "synth.mlir",
            OutputKind::FlatBlif => "blif",
            OutputKind::HierBlif => "hier.blif",
        }
    }

    pub fn parse(name: &str) -> Option<OutputKind> {
        OutputKind::ALL.iter().copied().find(|k| k.name() == name)
    }
}

/// A function's part of its file's outputs: its circuit without rules (for the file's
/// header and footer) and its rules as CMT2 and JSON text (position-independent).
#[derive(Debug, PartialEq, Eq)]
pub struct Emitted {
    pub frame: Circuit,
    pub cmt2: Arc<[u8]>,
    /// Comma-joined JSON of the rules; empty when the function has none.
    pub json: Arc<[u8]>,
}

/// The function's rules emitted once per change of the function (not per file build).
#[salsa::tracked(returns(ref))]
pub fn function_emitted(
    db: &dyn KilnDb,
    file: SourceFile,
    symbol: String,
) -> Option<Result<Arc<Emitted>, Diagnostic>> {
    let circuit = match function_circuit(db, file, symbol).as_ref()? {
        Ok(c) => c,
        Err(d) => return Some(Err(d.clone())),
    };
    db.runtime().counters.executed("emit_function");
    let frame = Circuit {
        name: circuit.name.clone(),
        instructions: circuit.instructions.clone(),
        instances: circuit.instances.clone(),
        rules: Vec::new(),
        precedence: circuit.precedence.clone(),
        schedule: circuit.schedule.clone(),
    };
    Some(Ok(Arc::new(Emitted {
        frame,
        cmt2: Arc::from(compiler::rules::emit::cmt2_rules(&circuit.rules).into_bytes()),
        json: Arc::from(compiler::rules::emit::rules_json(&circuit.rules).into_bytes()),
    })))
}

/// The outputs of an APS file: the per-function parts in source order between a header and
/// a footer computed from the merged circuit without rules (named after the file's stem).
/// Byte for byte `compiler::aps::build_file`. Any error suppresses the outputs of the file.
#[salsa::tracked(returns(ref))]
pub fn mlir_outputs(db: &dyn KilnDb, file: SourceFile) -> FileOutputs {
    db.runtime().counters.executed("emit");
    if let Some(d) = context_error(db, file) {
        // Every function depends on the context: its error is the only one.
        return FileOutputs {
            diagnostics: vec![d],
            ..FileOutputs::default()
        };
    }
    let mut diagnostics = Vec::new();
    let mut parts = Vec::new();
    let mut items = Vec::new();
    for item in &mlir_split(db, file).functions {
        match function_emitted(db, file, item.symbol.clone()) {
            Some(Ok(e)) => {
                parts.push(e.clone());
                items.push(item);
            }
            Some(Err(d)) => diagnostics.push(d.clone().shifted(item.offset as i64)),
            None => {}
        }
    }
    if !diagnostics.is_empty() {
        return FileOutputs {
            diagnostics,
            ..FileOutputs::default()
        };
    }
    // Instruction identities: a repeated one is an error, a non-custom opcode a warning.
    let diagnostics = identity_diagnostics(&items, &parts);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return FileOutputs {
            diagnostics,
            ..FileOutputs::default()
        };
    }
    let stem = file
        .path(db)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    FileOutputs {
        outputs: join_aps(&frame_parts(&stem, &parts), &parts),
        diagnostics,
        rendered: Vec::new(),
    }
}

/// The checks of [`compiler::aps::identity_diagnostics`] on a file's functions (each
/// function's diagnostics at its text in the file).
fn identity_diagnostics(items: &[&Item], parts: &[Arc<Emitted>]) -> Vec<Diagnostic> {
    let ids: Vec<(compiler::rules::Instruction, Span)> = items
        .iter()
        .zip(parts)
        .flat_map(|(it, e)| {
            let span = Span::new(it.offset, it.offset + it.text.len());
            e.frame.instructions.iter().map(move |i| (i.clone(), span))
        })
        .collect();
    compiler::aps::identity_diagnostics(&ids)
}

/// What an APS file's outputs hold besides the functions' rules: the CMT2 header and
/// footer and the JSON head and tail, all from the merged circuit without rules. O(number
/// of functions) to compute: [`aps_outputs`] reuses it while no function's frame changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameParts {
    cmt2_header: Arc<[u8]>,
    cmt2_footer: Arc<[u8]>,
    json_head: Arc<[u8]>,
    json_tail: Arc<[u8]>,
}

fn frame_parts(stem: &str, parts: &[Arc<Emitted>]) -> FrameParts {
    let frame =
        compiler::aps::build_file_circuit(stem, parts.iter().map(|e| e.frame.clone()).collect());
    let shared = |s: &str| -> Arc<[u8]> { Arc::from(s.as_bytes()) };
    // `json_from_parts` with no rules is head + tail; the head ends at the `"rules":[` key
    // (a bare quote cannot occur inside a JSON string, so the first match is the key).
    let empty = compiler::rules::emit::json_from_parts(&frame, &[]);
    let cut = empty
        .find("\"rules\":[")
        .map_or(0, |i| i + "\"rules\":[".len());
    FrameParts {
        cmt2_header: shared(&compiler::rules::emit::cmt2_header(stem, &frame.instances)),
        cmt2_footer: shared(&compiler::rules::emit::cmt2_footer(&frame)),
        json_head: shared(&empty[..cut]),
        json_tail: shared(&empty[cut..]),
    }
}

/// CMT2 = header + each function's rules + footer; JSON = head + the functions' rules
/// joined by commas + tail. O(number of functions) pointer copies: no text is copied.
fn join_aps(frame: &FrameParts, parts: &[Arc<Emitted>]) -> Vec<(OutputKind, OutputBytes)> {
    let mut cmt2 = Vec::with_capacity(parts.len() + 2);
    cmt2.push(frame.cmt2_header.clone());
    cmt2.extend(parts.iter().map(|e| e.cmt2.clone()));
    cmt2.push(frame.cmt2_footer.clone());
    let comma: Arc<[u8]> = Arc::from(&b","[..]);
    let mut json = Vec::with_capacity(2 * parts.len() + 2);
    json.push(frame.json_head.clone());
    for e in parts.iter().filter(|e| !e.json.is_empty()) {
        if json.len() > 1 {
            json.push(comma.clone());
        }
        json.push(e.json.clone());
    }
    json.push(frame.json_tail.clone());
    vec![
        (OutputKind::Cmt2, OutputBytes::from_parts(cmt2)),
        (OutputKind::RulesJson, OutputBytes::from_parts(json)),
    ]
}

/// The last assembly of each APS file (by path), shared by every clone of a database.
#[derive(Debug, Default)]
pub struct ApsMemo {
    files: std::sync::Mutex<std::collections::HashMap<PathBuf, Arc<ApsAssembly>>>,
}

type AssembledFunction = (Arc<str>, Arc<str>, Arc<Emitted>);

/// One APS file's outputs as last assembled by [`aps_outputs`], with what they were
/// assembled from.
#[derive(Debug)]
pub struct ApsAssembly {
    context: DesignContext,
    /// Each function in source order: symbol, exact text, emitted rules.
    functions: Vec<AssembledFunction>,
    frame: FrameParts,
    outputs: Vec<(OutputKind, OutputBytes)>,
}

/// [`mlir_outputs`] assembled in O(changed functions): a function whose text and the
/// design context are those of the last assembly of this file keeps its emitted rules
/// (the database is not asked about it, so unchanged functions cost neither validation nor
/// copies), and the header and footer are reused while every function's frame is
/// unchanged. Equal byte for byte to [`mlir_outputs`], which serves every case this does
/// not (errors, repeated symbols, the first build of a file).
pub fn aps_outputs(db: &dyn KilnDb, file: SourceFile) -> FileOutputs {
    let fallback = || mlir_outputs(db, file).clone();
    let Ok(context) = design_context(db, file) else {
        return fallback();
    };
    let split = mlir_split(db, file);
    if function_index(db, file).len() != split.functions.len() {
        return fallback();
    }
    let path = file.path(db);
    let memo = &db.runtime().aps;
    let last = {
        let files = memo.files.lock().unwrap_or_else(|e| e.into_inner());
        files.get(path).cloned()
    };
    let last = last.filter(|l| l.context == *context);
    let old: std::collections::HashMap<&str, &AssembledFunction> = last
        .iter()
        .flat_map(|l| l.functions.iter())
        .map(|f| (&*f.0, f))
        .collect();
    let mut functions = Vec::with_capacity(split.functions.len());
    for item in &split.functions {
        if let Some(f) = old.get(item.symbol.as_str())
            && (Arc::ptr_eq(&f.1, &item.text) || f.1 == item.text)
        {
            functions.push((*f).clone());
            continue;
        }
        let Some(Ok(e)) = function_emitted(db, file, item.symbol.clone()) else {
            return fallback();
        };
        functions.push((
            Arc::from(item.symbol.as_str()),
            item.text.clone(),
            e.clone(),
        ));
    }
    let parts: Vec<Arc<Emitted>> = functions.iter().map(|(_, _, e)| e.clone()).collect();
    // Identity errors and warnings are reported by the full path.
    let items: Vec<&Item> = split.functions.iter().collect();
    if !identity_diagnostics(&items, &parts).is_empty() {
        return fallback();
    }
    let unchanged = |l: &ApsAssembly| {
        l.functions.len() == parts.len()
            && l.functions
                .iter()
                .zip(&parts)
                .all(|(a, b)| Arc::ptr_eq(&a.2, b))
    };
    if let Some(l) = last.as_ref().filter(|l| unchanged(l)) {
        // Edits outside the functions that keep the design context (comments): the last
        // outputs, whose shared parts the driver recognises without comparing bytes.
        return FileOutputs {
            outputs: l.outputs.clone(),
            ..FileOutputs::default()
        };
    }
    let same_frames = last.as_ref().is_some_and(|l| {
        l.functions.len() == parts.len()
            && l.functions
                .iter()
                .zip(&parts)
                .all(|((_, _, a), b)| Arc::ptr_eq(a, b) || a.frame == b.frame)
    });
    let frame = match (&last, same_frames) {
        (Some(l), true) => l.frame.clone(),
        _ => {
            db.runtime().counters.executed("emit_frame");
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            frame_parts(&stem, &parts)
        }
    };
    let outputs = join_aps(&frame, &parts);
    let assembly = ApsAssembly {
        context: context.clone(),
        functions,
        frame,
        outputs: outputs.clone(),
    };
    let mut files = memo.files.lock().unwrap_or_else(|e| e.into_inner());
    files.insert(path.clone(), Arc::new(assembly));
    FileOutputs {
        outputs,
        diagnostics: Vec::new(),
        rendered: Vec::new(),
    }
}

/// `<stem>.sv` of an APS file: the same merged circuit as [`mlir_outputs`], as
/// SystemVerilog. Only computed when a build asks for it.
#[salsa::tracked(returns(ref))]
pub fn mlir_sv(db: &dyn KilnDb, file: SourceFile) -> Result<OutputBytes, Diagnostic> {
    db.runtime().counters.executed("emit_sv");
    if let Some(d) = context_error(db, file) {
        return Err(d);
    }
    let mut circuits = Vec::new();
    for item in &mlir_split(db, file).functions {
        match function_circuit(db, file, item.symbol.clone()) {
            Some(Ok(c)) => circuits.push(c.clone()),
            Some(Err(d)) => return Err(d.clone().shifted(item.offset as i64)),
            None => {}
        }
    }
    let stem = file
        .path(db)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let circuit = compiler::aps::build_file_circuit(&stem, circuits);
    let text = compiler::rules::sv::emit_sv(&circuit)?;
    Ok(OutputBytes::new(text.into_bytes()))
}

/// Which flow an MLIR file goes to, decided lexically (cheap, and unchanged by edits
/// inside functions): a `tor.design` in the design context is APS, else a
/// `handshake.func` anywhere is Handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flow {
    Aps,
    Handshake,
    Unknown,
}

#[salsa::tracked]
pub fn mlir_flow(db: &dyn KilnDb, file: SourceFile) -> Flow {
    if context_text(db, file).contains("tor.design") {
        return Flow::Aps;
    }
    if file.text(db).contains("handshake.func") {
        return Flow::Handshake;
    }
    Flow::Unknown
}

/// The outcome of an MLIR file no flow accepts: its parse error, else a plain error.
#[salsa::tracked(returns(ref))]
pub fn unknown_flow_outputs(db: &dyn KilnDb, file: SourceFile) -> FileOutputs {
    let diagnostic = match compiler::mlir::parse_with(file.text(db), &crate::input::limits()) {
        Err(d) => d,
        Ok(_) => Diagnostic::global_error(
            "no flow accepts this input (expected a module with `tor.design` or a `handshake.func`)",
        ),
    };
    FileOutputs {
        diagnostics: vec![diagnostic],
        ..FileOutputs::default()
    }
}

// ---------------------------------------------------------------------------------------
// Handshake → Synth: the circuit's front end, then one library unit per used BLIF file
// (built from that file's per-model AIG queries), then the synthesized outputs.

/// Options of a Handshake build (`kiln build --blif-lib ...`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct HandshakeOpts {
    /// The BLIF library directory, if one was given or found.
    pub lib_dir: Option<PathBuf>,
    /// Path-table override file and its text.
    pub path_table: Option<(PathBuf, String)>,
    pub dialect: compiler::handshake::Dialect,
    pub naming: compiler::handshake::Naming,
}

/// A library file as found for a Handshake build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnitSource {
    File(BlifFile),
    /// The file exists but is not UTF-8 (the unit is ignored, with a warning).
    NotUtf8,
}

/// One Handshake input with its options and the library files its ops use (set by the
/// driver after reading [`handshake_front`]'s library paths from disk).
#[salsa::input(debug)]
pub struct HandshakeJob {
    pub file: SourceFile,
    #[returns(ref)]
    pub opts: HandshakeOpts,
    /// Library path (relative to the library directory) → file; missing files are absent.
    #[returns(ref)]
    pub units: BTreeMap<String, UnitSource>,
}

/// The analysed circuit, its marks and the library files they use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Front {
    pub circuit: compiler::handshake::Circuit,
    pub marks: Vec<compiler::handshake::UnitRef>,
    pub library_paths: Vec<String>,
}

/// Why a Handshake front end failed: a diagnostic in the input, or a rendered error about
/// another file (the path table) or the options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrontError {
    Input(Diagnostic),
    Rendered(String),
}

/// Parse, analyse and mark the circuit: independent of the library files' contents.
#[salsa::tracked(returns(ref))]
pub fn handshake_front(db: &dyn KilnDb, job: HandshakeJob) -> Result<Front, FrontError> {
    use compiler::handshake;
    db.runtime().counters.executed("handshake_front");
    let opts = job.opts(db);
    let module = compiler::mlir::parse_with(job.file(db).text(db), &crate::input::limits())
        .map_err(FrontError::Input)?;
    let func = handshake::find_func(&module.ops).map_err(FrontError::Input)?;
    let circuit = handshake::analyze(func, opts.naming).map_err(FrontError::Input)?;
    let table = match &opts.path_table {
        None => handshake::PathTable::default(),
        Some((path, text)) => handshake::PathTable::with_overrides(text)
            .map_err(|d| FrontError::Rendered(d.render(&path.display().to_string(), text)))?,
    };
    let limits = crate::input::limits();
    let marks = handshake::mark::mark_circuit_with(func, &circuit, &table, &limits)
        .map_err(FrontError::Input)?;
    let library_paths = handshake::library_paths(&marks);
    Ok(Front {
        circuit,
        marks,
        library_paths,
    })
}

/// A library file's unit: its first model's AIG (the per-model query [`model_aig`],
/// persistently cached), as a handshake net. Errors are file-relative.
#[salsa::tracked(returns(ref))]
pub fn lib_unit(
    db: &dyn KilnDb,
    file: BlifFile,
) -> Result<compiler::handshake::LibUnit, Diagnostic> {
    db.runtime().counters.executed("lib_unit");
    let first = blif_models(db, file)
        .first()
        .ok_or_else(|| Diagnostic::global_error("library file has no .model"))?;
    let lowered = model_aig(db, file, first.symbol.clone())
        .as_ref()
        .map_err(|d| d.clone().shifted(first.offset as i64))?;
    Ok(compiler::handshake::LibUnit {
        model: first.symbol.clone(),
        net: compiler::handshake::aig_io::from_aig(&lowered.aig),
        undriven: lowered.undriven.clone(),
    })
}

/// The four outputs of a Handshake circuit (`kiln synth`'s), with warnings.
#[salsa::tracked(returns(ref))]
pub fn handshake_outputs(db: &dyn KilnDb, job: HandshakeJob) -> FileOutputs {
    use compiler::handshake::{self, aig_io};
    db.runtime().counters.executed("handshake_emit");
    let failed = |diagnostics: Vec<Diagnostic>, rendered: Vec<(String, bool)>| FileOutputs {
        diagnostics,
        rendered,
        ..FileOutputs::default()
    };
    let front = match handshake_front(db, job) {
        Ok(f) => f,
        Err(FrontError::Input(d)) => return failed(vec![d.clone()], Vec::new()),
        Err(FrontError::Rendered(r)) => return failed(Vec::new(), vec![(r.clone(), true)]),
    };
    let opts = job.opts(db);
    let Some(lib_dir) = &opts.lib_dir else {
        let msg = "error: no BLIF library: pass --blif-lib DIR, set `blif_lib` in kiln.toml or $KILN_BLIF_LIB\n";
        return failed(Vec::new(), vec![(msg.to_string(), true)]);
    };
    let mut units = BTreeMap::new();
    let mut texts = BTreeMap::new();
    let mut rendered = Vec::new();
    let all = job.units(db);
    for rel in &front.library_paths {
        let shown = lib_dir.join(rel).display().to_string();
        match all.get(rel) {
            None => {}
            Some(UnitSource::NotUtf8) => {
                rendered.push((format!("warning: {shown}: not UTF-8; unit ignored"), false));
            }
            Some(UnitSource::File(f)) => match lib_unit(db, *f) {
                Ok(u) => {
                    units.insert(rel.clone(), u.clone());
                    texts.insert(rel.clone(), f.text(db).clone());
                }
                Err(d) => {
                    rendered.push((format!("warning: {}", d.render(&shown, f.text(db))), false))
                }
            },
        }
    }
    let out = match handshake::build(&front.circuit, &front.marks, &units) {
        Ok(o) => o,
        Err(d) => return failed(vec![d], rendered),
    };
    let hier = match aig_io::hier_blif(&out, &texts) {
        Ok(h) => h,
        Err(d) => return failed(vec![d], rendered),
    };
    FileOutputs {
        outputs: vec![
            (
                OutputKind::SynthMlir,
                OutputBytes::new(handshake::emit::synth_mlir(&out, opts.dialect).into_bytes()),
            ),
            (OutputKind::Aig, OutputBytes::new(aig_io::flat_aiger(&out))),
            (
                OutputKind::FlatBlif,
                OutputBytes::new(aig_io::flat_blif(&out).into_bytes()),
            ),
            (OutputKind::HierBlif, OutputBytes::new(hier.into_bytes())),
        ],
        diagnostics: out.warnings.clone(),
        rendered,
    }
}

// ---------------------------------------------------------------------------------------
// BLIF: models keyed by name, lowered one at a time.

/// The models of one BLIF file, split lexically.
#[salsa::tracked(returns(ref))]
pub fn blif_models(db: &dyn KilnDb, file: BlifFile) -> Vec<Item> {
    db.runtime().counters.executed("blif_models");
    items::blif_models(file.text(db))
}

/// The text of model `name` (its first definition in the file), position-independent.
#[salsa::tracked(returns(ref))]
pub fn model_text(db: &dyn KilnDb, file: BlifFile, name: String) -> Option<String> {
    db.runtime().counters.executed("model_text");
    blif_models(db, file)
        .iter()
        .find(|m| m.symbol == name)
        .map(|m| m.text.to_string())
}

/// Model `name` parsed on its own (spans relative to its `.model` line), with the reader's
/// warnings.
#[salsa::tracked(returns(ref))]
pub fn model_parsed(
    db: &dyn KilnDb,
    file: BlifFile,
    name: String,
) -> Option<Result<(Model, Vec<Diagnostic>), Diagnostic>> {
    let text = model_text(db, file, name).as_ref()?;
    db.runtime().counters.executed("blif_parse");
    Some(compiler::blif::parse(text).and_then(|p| {
        let warnings = p.warnings;
        p.file
            .models
            .into_iter()
            .next()
            .map(|m| (m, warnings))
            .ok_or_else(|| Diagnostic::error(Span::point(0), "empty model"))
    }))
}

/// The models `name` instantiates, if it instantiates itself (directly or not): the cycle.
#[salsa::tracked(returns(ref))]
pub fn instantiation_cycle(db: &dyn KilnDb, file: BlifFile, name: String) -> Option<Vec<String>> {
    // Iterative DFS over subckt names, reading each model's parse (no recursive queries, so
    // a cyclic netlist cannot become a salsa cycle).
    let mut stack: Vec<(String, Vec<String>)> = vec![(name.clone(), vec![name.clone()])];
    let mut seen = std::collections::BTreeSet::new();
    while let Some((m, path)) = stack.pop() {
        let Some(Ok((model, _))) = model_parsed(db, file, m.clone()) else {
            continue;
        };
        for s in &model.subckts {
            let child = s.model.name.clone();
            if child == name {
                let mut cycle = path.clone();
                cycle.push(child);
                return Some(cycle);
            }
            if seen.insert(child.clone()) {
                let mut p = path.clone();
                p.push(child.clone());
                stack.push((child, p));
            }
        }
    }
    None
}

/// Model `name` lowered to an AIG, given its children's AIGs. *Cached* (`aig`), keyed by
/// the model's text and its children's AIGs.
#[salsa::tracked(returns(ref))]
pub fn model_aig(db: &dyn KilnDb, file: BlifFile, name: String) -> Result<Lowered, Diagnostic> {
    let (model, _) = match model_parsed(db, file, name.clone()) {
        None => {
            return Err(Diagnostic::error(
                Span::point(0),
                format!("no model `{name}`"),
            ));
        }
        Some(r) => r.as_ref().map_err(Clone::clone)?,
    };
    if let Some(cycle) = instantiation_cycle(db, file, name.clone()) {
        return Err(Diagnostic::error(
            model.span,
            format!("model `{name}` instantiates itself: {}", cycle.join(" -> ")),
        ));
    }
    let mut children = BTreeMap::new();
    for s in &model.subckts {
        let child = &s.model.name;
        if children.contains_key(child) {
            continue;
        }
        if model_text(db, file, child.clone()).is_none() {
            return Err(Diagnostic::error(
                s.model.span,
                format!("unknown model `{child}`"),
            ));
        }
        let lowered = model_aig(db, file, child.clone())
            .as_ref()
            .map_err(|d| Diagnostic::error(s.span, format!("in model `{child}`: {}", d.message)))?;
        children.insert(child.clone(), lowered.aig.clone());
    }
    let text = model_text(db, file, name)
        .as_ref()
        .map_or("", |t| t.as_str());
    let digest = kiln_cache::digest(text.as_bytes());
    let children_digest = kiln_cache::digest(
        serde_json::to_string(&children)
            .unwrap_or_default()
            .as_bytes(),
    );
    cached(db, "aig", &[&digest, &children_digest], || {
        compiler::aig::lower_model(model, &children)
    })
}

/// The top (first) model's AIG of a BLIF file, with every diagnostic (file-relative).
#[salsa::tracked(returns(ref))]
pub fn blif_top(db: &dyn KilnDb, file: BlifFile) -> (Option<Aig>, Vec<Diagnostic>) {
    let models = blif_models(db, file);
    let Some(top) = models.first() else {
        let d = Diagnostic::error(Span::point(0), "no model in file");
        return (None, vec![d]);
    };
    let mut diags = Vec::new();
    for m in models {
        if let Some(Ok((_, warnings))) = model_parsed(db, file, m.symbol.clone()) {
            diags.extend(warnings.iter().map(|w| w.clone().shifted(m.offset as i64)));
        }
    }
    match model_aig(db, file, top.symbol.clone()) {
        Ok(l) => {
            diags.extend(
                l.warnings
                    .iter()
                    .map(|w| w.clone().shifted(top.offset as i64)),
            );
            (Some(l.aig.clone()), diags)
        }
        Err(e) => {
            // Errors inside a child model are reported at the instantiation in `top`.
            diags.push(e.clone().shifted(top.offset as i64));
            (None, diags)
        }
    }
}

/// The outputs of a BLIF file: its top model as binary and ASCII AIGER.
#[salsa::tracked(returns(ref))]
pub fn blif_outputs(db: &dyn KilnDb, file: BlifFile) -> FileOutputs {
    db.runtime().counters.executed("emit_aig");
    let (aig, diagnostics) = blif_top(db, file);
    let outputs = aig.as_ref().map_or_else(Vec::new, |g| {
        vec![
            (
                OutputKind::Aig,
                OutputBytes::new(compiler::aig::write_aiger_binary(g)),
            ),
            (
                OutputKind::Aag,
                OutputBytes::new(compiler::aig::write_aag(g).into_bytes()),
            ),
        ]
    });
    FileOutputs {
        outputs,
        diagnostics: diagnostics.clone(),
        rendered: Vec::new(),
    }
}
