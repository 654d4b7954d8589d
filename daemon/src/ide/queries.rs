//! The queries behind an editor's features: name indexes per function, per Handshake file
//! and per BLIF model, and the `@symbols` of a file. Each reads one item's text, so an
//! edit rebuilds only the edited item's index.

use crate::db::aps::function_op;
use crate::db::blif::model_text;
use crate::db::{BlifFile, KilnDb, SourceFile, note};
use crate::why::Subject;
use compiler::ide::{self, NameIndex};
use std::sync::Arc;

/// The SSA values of function `symbol` (spans relative to the function).
#[salsa::tracked(returns(ref))]
pub fn function_values(
    db: &dyn KilnDb,
    file: SourceFile,
    symbol: String,
) -> Option<Arc<NameIndex>> {
    note(db, || Subject::item(file.path(db), &symbol));
    match function_op(db, file, symbol).as_ref()? {
        Ok(op) => Some(Arc::new(ide::values(op))),
        Err(_) => None,
    }
}

/// The SSA values of a whole MLIR file (Handshake files: one function, small).
#[salsa::tracked(returns(ref))]
pub fn file_values(db: &dyn KilnDb, file: SourceFile) -> Option<Arc<NameIndex>> {
    note(db, || Subject::file(file.path(db)));
    let module = compiler::mlir::parse_with(file.text(db), &crate::db::limits(db)).ok()?;
    let mut occurrences: Vec<_> = module
        .ops
        .iter()
        .flat_map(|op| ide::values(op).occurrences)
        .collect();
    occurrences.sort_by_key(|o| (o.span.start, o.span.end));
    Some(Arc::new(NameIndex { occurrences }))
}

/// The `@symbols` of a file (lexical, over the whole text: asked for on demand only).
#[salsa::tracked(returns(ref))]
pub fn file_symbols(db: &dyn KilnDb, file: SourceFile) -> Arc<NameIndex> {
    note(db, || Subject::file(file.path(db)));
    Arc::new(ide::symbols(file.text(db)))
}

/// The nets and models named in model `name` (spans relative to the model).
#[salsa::tracked(returns(ref))]
pub fn model_names(db: &dyn KilnDb, file: BlifFile, name: String) -> Option<Arc<NameIndex>> {
    note(db, || Subject::item(file.path(db), &name));
    let text = model_text(db, file, name).as_ref()?;
    let outputs = |child: &str| {
        let t = model_text(db, file, child.to_string()).as_ref()?;
        Some(ide::blif_outputs(t))
    };
    Some(Arc::new(ide::blif_names(text, &outputs)))
}
