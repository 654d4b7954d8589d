//! The BLIF flow as queries ([`compiler::flow::blif`]): a file's models split lexically,
//! each model's text, parse and AIG (keyed by name, position-independent), the top model's
//! AIG, and the file's AIGER outputs.

use super::{BlifFile, FileOutputs, KilnDb, cached, executed};
use crate::counters::Kind;
use crate::explain::{Subject, note};
use compiler::aig::Lowered;
use compiler::blif::Model;
use compiler::diag::{Diagnostic, Span};
use compiler::flow::blif as flow;
use compiler::mlir::items::Item;

/// The models of one BLIF file, split lexically.
#[salsa::tracked(returns(ref))]
pub fn blif_models(db: &dyn KilnDb, file: BlifFile) -> Vec<Item> {
    note(db, || Subject::file(file.path(db)));
    executed(db, Kind::BlifModels);
    flow::models(file.text(db))
}

/// The text of model `name` (its first definition in the file), position-independent.
#[salsa::tracked(returns(ref))]
pub fn model_text(db: &dyn KilnDb, file: BlifFile, name: String) -> Option<String> {
    note(db, || Subject::item(file.path(db), &name));
    executed(db, Kind::ModelText);
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
    note(db, || Subject::item(file.path(db), &name));
    let text = model_text(db, file, name).as_ref()?;
    executed(db, Kind::BlifParse);
    Some(flow::parse_model(text))
}

/// The models `name` instantiates, if it instantiates itself (directly or not): the cycle.
#[salsa::tracked(returns(ref))]
pub fn instantiation_cycle(db: &dyn KilnDb, file: BlifFile, name: String) -> Option<Vec<String>> {
    note(db, || Subject::item(file.path(db), &name));
    // Each model's parse is read by its own query: no recursive queries, so a cyclic
    // netlist cannot become a salsa cycle.
    flow::instantiation_cycle(&name, |m| match model_parsed(db, file, m.to_string()) {
        Some(Ok((model, _))) => Some(model.subckts.iter().map(|s| s.model.name.clone()).collect()),
        _ => None,
    })
}

/// Model `name` lowered to an AIG, given its children's AIGs. *Cached* (`aig`), keyed by
/// the model's text and its children's AIGs.
#[salsa::tracked(returns(ref))]
pub fn model_aig(db: &dyn KilnDb, file: BlifFile, name: String) -> Result<Lowered, Diagnostic> {
    let noted = note(db, || Subject::item(file.path(db), &name));
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
        return Err(flow::cycle_error(&name, model, cycle));
    }
    let children = flow::children(
        model,
        |child| model_text(db, file, child.to_string()).is_some(),
        |child| {
            let lowered = model_aig(db, file, child.to_string());
            lowered
                .as_ref()
                .map(|l| l.aig.clone())
                .map_err(Clone::clone)
        },
    )?;
    let text = model_text(db, file, name)
        .as_ref()
        .map_or("", |t| t.as_str());
    let digest = kiln_cache::digest(text.as_bytes());
    let children_digest = kiln_cache::digest(
        serde_json::to_string(&children)
            .unwrap_or_default()
            .as_bytes(),
    );
    cached(db, noted, Kind::Aig, &[&digest, &children_digest], || {
        compiler::aig::lower_model(model, &children)
    })
}

/// The outputs of a BLIF file: its top model as binary and ASCII AIGER, with every
/// diagnostic (file-relative).
#[salsa::tracked(returns(ref))]
pub fn blif_outputs(db: &dyn KilnDb, file: BlifFile) -> FileOutputs {
    note(db, || Subject::file(file.path(db)));
    executed(db, Kind::EmitAig);
    let models = blif_models(db, file);
    let warnings = |m: &Item| match model_parsed(db, file, m.symbol.clone()) {
        Some(Ok((_, w))) => w.clone(),
        _ => Vec::new(),
    };
    let top = models
        .first()
        .map(|t| model_aig(db, file, t.symbol.clone()).as_ref());
    flow::outcome(models, warnings, top).into()
}
