//! The APS flow as queries, one per step of [`compiler::flow::aps`]: the design context
//! once per file, then per function (by symbol) its text, parse, segmentation, the rules of
//! each block, its circuit and its emitted rules; per file the outputs laid out from them.
//!
//! Functions are keyed by symbol and read only their own text (position-independent), so
//! an edit inside one function re-executes only that function's queries, and the design
//! context (the file without its functions) is unchanged by any edit inside a function.

use super::note;
use super::{FileOutputs, KilnDb, OutputBytes, SourceFile, cached_shared, executed};
use crate::counters::Kind;
use crate::why::Subject;
use bytes::Bytes;
use compiler::aps::{BlockRules, DesignContext, Segmentation, Style};
use compiler::diag::{Diagnostic, Span};
use compiler::flow::{self, Flow, aps::Frame};
use compiler::mlir::ast::Operation;
use compiler::mlir::items::Item;
use compiler::rules::Circuit;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The file with its functions cut out: unchanged by any edit inside a function, so
/// [`design_context`] (a parse of it) is cut off here. Its spans map to the file with
/// [`compiler::mlir::split::Split::to_file`].
#[salsa::tracked(returns(ref))]
pub(crate) fn context_text(db: &dyn KilnDb, file: SourceFile) -> Arc<String> {
    note(db, || Subject::file(file.path(db)));
    file.split(db).context.clone()
}

/// Which flow the file goes to ([`Flow::detect`]: lexical, and for an APS file decided by
/// the design header near its top, so re-deciding after an edit costs next to nothing).
#[salsa::tracked]
pub(crate) fn mlir_flow(db: &dyn KilnDb, file: SourceFile) -> Flow {
    note(db, || Subject::file(file.path(db)));
    Flow::detect(file.path(db), file.text(db))
}

/// The outcome of an MLIR file no flow accepts.
#[salsa::tracked(returns(ref))]
pub(crate) fn unknown_flow_outputs(db: &dyn KilnDb, file: SourceFile) -> FileOutputs {
    note(db, || Subject::file(file.path(db)));
    FileOutputs::failed(vec![flow::unknown(file.text(db))])
}

/// Where each function symbol first occurs in the file's list of functions.
#[salsa::tracked(returns(ref))]
pub(crate) fn function_index(db: &dyn KilnDb, file: SourceFile) -> BTreeMap<String, usize> {
    note(db, || Subject::file(file.path(db)));
    let mut index = BTreeMap::new();
    for (i, item) in file.split(db).functions.iter().enumerate() {
        index.entry(item.symbol.clone()).or_insert(i);
    }
    index
}

/// Design-level facts (memory map, globals, constants), from the file without its
/// functions. An error's span is in [`context_text`]: see [`context_error`].
#[salsa::tracked(returns(ref))]
pub(crate) fn design_context(
    db: &dyn KilnDb,
    file: SourceFile,
) -> Result<DesignContext, Diagnostic> {
    note(db, || Subject::file(file.path(db)));
    executed(db, Kind::Context);
    let csr = super::Settings::get(db).csr_config(db).as_ref();
    flow::aps::design_context_with(context_text(db, file), &super::limits(db), csr)
}

/// [`design_context`]'s error, with its span in the file.
pub(crate) fn context_error(db: &dyn KilnDb, file: SourceFile) -> Option<Diagnostic> {
    let d = design_context(db, file).as_ref().err()?;
    Some(file.split(db).to_file(d.clone()))
}

/// The text of the function `symbol` (exactly as written), or `None` when the file has no
/// such function. Unchanged when other parts of the file change, so its dependents are not
/// re-executed.
#[salsa::tracked(returns(ref))]
pub(crate) fn function_text(db: &dyn KilnDb, file: SourceFile, symbol: String) -> Option<Item> {
    note(db, || Subject::item(file.path(db), &symbol));
    executed(db, Kind::FunctionText);
    let i = *function_index(db, file).get(&symbol)?;
    file.split(db).functions.get(i).map(|i| Item {
        offset: 0,
        ..i.clone()
    })
}

/// Digest of the function `symbol`'s text (part of the persistent cache keys of its
/// queries): computed once per text, not once per query and block.
#[salsa::tracked(returns(copy))]
fn function_digest(db: &dyn KilnDb, file: SourceFile, symbol: String) -> Option<[u8; 32]> {
    note(db, || Subject::item(file.path(db), &symbol));
    function_text(db, file, symbol)
        .as_ref()
        .map(|i| kiln_cache::digest(i.text.as_bytes()))
}

/// Digest of the file's design context (part of the persistent cache keys of its
/// functions' queries): computed once per context, not once per function and block.
#[salsa::tracked]
fn context_digest(db: &dyn KilnDb, file: SourceFile) -> [u8; 32] {
    note(db, || Subject::file(file.path(db)));
    let ctx = design_context(db, file).as_ref().ok();
    kiln_cache::digest(serde_json::to_string(&ctx).unwrap_or_default().as_bytes())
}

/// The function parsed on its own: spans relative to its first byte. Only run when a
/// segmentation is not in the persistent cache.
#[salsa::tracked(returns(ref))]
pub(crate) fn function_op(
    db: &dyn KilnDb,
    file: SourceFile,
    symbol: String,
) -> Option<Result<Operation, Diagnostic>> {
    note(db, || Subject::item(file.path(db), &symbol));
    let item = function_text(db, file, symbol).as_ref()?;
    executed(db, Kind::Parse);
    Some(flow::aps::parse_function(&item.text, &super::limits(db)))
}

/// A cache key's parts with the style's: none for the default style (its keys are as
/// before styles).
fn styled<'a>(parts: &[&'a [u8]], style: Style) -> Vec<&'a [u8]> {
    let mut out = parts.to_vec();
    if style != Style::Fsm {
        out.push(style.name().as_bytes());
    }
    out
}

/// The function's block tree, FIFOs and ports in `style`. *Cached* (`segmentation`; shared
/// with a store write left for later: [`super::cached_shared`]).
#[salsa::tracked(returns(ref))]
pub(crate) fn segmentation(
    db: &dyn KilnDb,
    file: SourceFile,
    symbol: String,
    style: Style,
) -> Option<Arc<Result<Segmentation, Diagnostic>>> {
    let noted = note(db, || Subject::item(file.path(db), &symbol));
    let f = function_digest(db, file, symbol.clone())?;
    let ctx = match design_context(db, file) {
        Ok(c) => c,
        Err(d) => return Some(Arc::new(Err(d.clone()))),
    };
    let c = *context_digest(db, file);
    // The database's limits (a request's, else the process's) decide the result: a limit
    // error, or a result a lower limit refuses.
    let settings = super::Settings::get(db);
    let limits = settings.limits(db);
    let l = settings.limits_digest(db);
    // The function is parsed only when the result is not in the persistent cache.
    Some(cached_shared(
        db,
        noted,
        Kind::Segmentation,
        &styled(&[&f, &c, &l], style),
        || match function_op(db, file, symbol.clone()).as_ref() {
            Some(Ok(op)) => compiler::aps::segment_function_styled(ctx, op, &limits, style),
            Some(Err(d)) => Err(d.clone()),
            None => Err(Diagnostic::error(Span::point(0), "function vanished")),
        },
    ))
}

/// The rules of block `block` of function `symbol` in `style`. *Cached* (`handler`; shared
/// as [`segmentation`]).
#[salsa::tracked(returns(ref))]
pub(crate) fn block_rules(
    db: &dyn KilnDb,
    file: SourceFile,
    symbol: String,
    block: usize,
    style: Style,
) -> Arc<Result<BlockRules, Diagnostic>> {
    let noted = note(db, || Subject {
        block: Some(block),
        ..Subject::item(file.path(db), &symbol)
    });
    let missing = || Diagnostic::error(Span::point(0), format!("no function `@{symbol}`"));
    let ctx = match design_context(db, file) {
        Ok(c) => c,
        Err(d) => return Arc::new(Err(d.clone())),
    };
    let Some(f) = function_digest(db, file, symbol.clone()) else {
        return Arc::new(Err(missing()));
    };
    let c = *context_digest(db, file);
    let block_key = (block as u64).to_le_bytes();
    cached_shared(
        db,
        noted,
        Kind::Handler,
        &styled(&[&f, &c, &block_key], style),
        || {
            let seg = segmentation(db, file, symbol.clone(), style)
                .as_deref()
                .ok_or_else(missing)?
                .as_ref()
                .map_err(Clone::clone)?;
            compiler::aps::handle_block(ctx, seg, block)
        },
    )
}

/// The function's circuit in `style`, assembled from its segmentation and block rules.
#[salsa::tracked(returns(ref))]
pub(crate) fn function_circuit(
    db: &dyn KilnDb,
    file: SourceFile,
    symbol: String,
    style: Style,
) -> Option<Result<Circuit, Diagnostic>> {
    note(db, || Subject::item(file.path(db), &symbol));
    let seg = match segmentation(db, file, symbol.clone(), style).as_deref()? {
        Ok(s) => s,
        Err(d) => return Some(Err(d.clone())),
    };
    let mut blocks = Vec::with_capacity(seg.blocks.len());
    for id in 0..seg.blocks.len() {
        match &**block_rules(db, file, symbol.clone(), id, style) {
            Ok(b) => blocks.push(b.clone()),
            Err(d) => return Some(Err(d.clone())),
        }
    }
    executed(db, Kind::Assemble);
    let ctx = design_context(db, file).as_ref().ok()?;
    Some(Ok(compiler::aps::assemble_owned(ctx, seg, blocks)))
}

/// A function's share of its file's outputs, its texts shared.
pub(crate) type Emitted = flow::aps::Emitted<Bytes>;

/// The function's rules in `style`, emitted once per change of the function (not per file
/// build).
#[salsa::tracked(returns(ref))]
pub(crate) fn function_emitted(
    db: &dyn KilnDb,
    file: SourceFile,
    symbol: String,
    style: Style,
) -> Option<Result<Arc<Emitted>, Diagnostic>> {
    note(db, || Subject::item(file.path(db), &symbol));
    let circuit = match function_circuit(db, file, symbol.clone(), style).as_ref()? {
        Ok(c) => c,
        Err(d) => return Some(Err(d.clone())),
    };
    let warnings = match segmentation(db, file, symbol, style).as_deref()? {
        Ok(s) => s.warnings.clone(),
        Err(d) => return Some(Err(d.clone())),
    };
    executed(db, Kind::EmitFunction);
    let e = flow::aps::emit(circuit);
    Some(Ok(Arc::new(Emitted {
        frame: e.frame,
        cmt2: Bytes::from(e.cmt2.into_bytes()),
        json: Bytes::from(e.json.into_bytes()),
        warnings,
    })))
}

/// The file's header and footer pieces from its functions' frames.
pub(crate) fn frame(stem: &str, functions: &[Arc<Emitted>]) -> Frame<Bytes> {
    let frames = functions.iter().map(|e| e.frame.clone()).collect();
    Frame::of(stem, frames).map(|s| Bytes::from(s.into_bytes()))
}

/// The file's two outputs from its frame and its functions' pieces (no bytes copied).
pub(crate) fn layout(
    frame: Frame<Bytes>,
    functions: &[Arc<Emitted>],
) -> Vec<(flow::OutputKind, OutputBytes)> {
    let pieces = functions.iter().map(|e| (e.cmt2.clone(), e.json.clone()));
    flow::aps::layout(frame, pieces, Bytes::from_static(b","))
        .into_iter()
        .map(|(k, parts)| (k, OutputBytes::from_parts(parts)))
        .collect()
}

/// The name of the merged circuit: the file's stem.
pub(crate) fn stem(db: &dyn KilnDb, file: SourceFile) -> String {
    file.path(db)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The outputs of an APS file ([`flow::aps::build`], assembled from the per-function
/// queries). Any error suppresses the outputs of the file.
#[salsa::tracked(returns(ref))]
pub(crate) fn mlir_outputs(db: &dyn KilnDb, file: SourceFile, style: Style) -> FileOutputs {
    note(db, || Subject::file(file.path(db)));
    executed(db, Kind::Emit);
    let emitted = |item: &Item| function_emitted(db, file, item.symbol.clone(), style).clone();
    let (parts, diagnostics) = match checked_functions(db, file, emitted) {
        Ok(checked) => checked,
        Err(diagnostics) => return FileOutputs::failed(diagnostics),
    };
    executed(db, Kind::EmitFrame);
    FileOutputs {
        outputs: layout(frame(&stem(db, file), &parts), &parts),
        diagnostics,
        ..FileOutputs::default()
    }
}

/// A function's emitted rules, or its first error (relative to the function).
pub(crate) type FunctionResult = Option<Result<Arc<Emitted>, Diagnostic>>;

/// A file's functions' emitted rules and the warnings about them, or the file's errors.
pub(crate) type Checked = flow::aps::Checked<Arc<Emitted>>;

/// An APS file's functions' emitted rules (each from `emitted`) and the warnings about
/// them, or the file's errors: [`flow::aps::check`] on the file's design context and
/// functions. What a build and an editor report alike.
pub(crate) fn checked_functions(
    db: &dyn KilnDb,
    file: SourceFile,
    mut emitted: impl FnMut(&Item) -> FunctionResult,
) -> Checked {
    let functions = &file.split(db).functions;
    flow::aps::check(context_error(db, file), functions, |_, item| emitted(item))
}

/// [`flow::aps::identities`] of a file's functions and their emitted frames.
pub(crate) fn identities(functions: &[Item], parts: &[Arc<Emitted>]) -> Vec<Diagnostic> {
    flow::aps::identities(functions.iter().zip(parts.iter().map(|e| &e.frame)))
}

/// `<stem>.sv` of an APS file: the same merged circuit as [`mlir_outputs`], as
/// SystemVerilog with top module `top`. Only computed when a build asks for it.
#[salsa::tracked(returns(ref))]
pub(crate) fn mlir_sv(
    db: &dyn KilnDb,
    file: SourceFile,
    top: String,
    style: Style,
) -> Result<OutputBytes, Diagnostic> {
    note(db, || Subject::file(file.path(db)));
    executed(db, Kind::EmitSv);
    if let Some(d) = context_error(db, file) {
        return Err(d);
    }
    let mut circuits = Vec::new();
    for item in &file.split(db).functions {
        match function_circuit(db, file, item.symbol.clone(), style) {
            Some(Ok(c)) => circuits.push(c.clone()),
            Some(Err(d)) => return Err(d.clone().shifted(item.offset as i64)),
            None => {}
        }
    }
    let text = flow::aps::sv(&stem(db, file), &top, circuits)?;
    Ok(OutputBytes::new(text.into_bytes()))
}
