//! The BLIF flow as queries ([`compiler::flow::blif`]): a file's models split lexically,
//! each model's text and parse, the models that instantiate themselves (per file), each
//! model lowered with its instances as boxes (keyed by its text and its children's
//! interfaces, position-independent) and its interface, a model flattened, and the file's
//! AIGER outputs.
//!
//! Models are asked for children first ([`model_aig`] walks the hierarchy in post-order),
//! so no query waits on a chain of others as deep as the hierarchy: neither computing nor
//! re-validating after an edit recurses deeper than one level, and the work is linear in
//! the size of the hierarchy.

use super::note;
use super::{BlifFile, FileOutputs, KilnDb, cached, executed};
use crate::counters::Kind;
use crate::why::Subject;
use compiler::aig::{BoxLowered, Interface, Lowered};
use compiler::blif::Model;
use compiler::diag::{Diagnostic, Span};
use compiler::flow::blif as flow;
use compiler::mlir::items::Item;
use std::collections::{BTreeMap, BTreeSet};

/// The models of one BLIF file, split lexically.
#[salsa::tracked(returns(ref))]
pub(crate) fn blif_models(db: &dyn KilnDb, file: BlifFile) -> Vec<Item> {
    note(db, || Subject::file(file.path(db)));
    executed(db, Kind::BlifModels);
    flow::models(file.text(db))
}

/// Model name → the index of its first definition in [`blif_models`].
#[salsa::tracked(returns(ref))]
pub(crate) fn model_index(db: &dyn KilnDb, file: BlifFile) -> BTreeMap<String, usize> {
    let mut index = BTreeMap::new();
    for (i, m) in blif_models(db, file).iter().enumerate() {
        index.entry(m.symbol.clone()).or_insert(i);
    }
    index
}

/// The text of model `name` (its first definition in the file), position-independent.
#[salsa::tracked(returns(ref))]
pub(crate) fn model_text(db: &dyn KilnDb, file: BlifFile, name: String) -> Option<String> {
    note(db, || Subject::item(file.path(db), &name));
    executed(db, Kind::ModelText);
    let i = *model_index(db, file).get(&name)?;
    Some(blif_models(db, file)[i].text.to_string())
}

/// Model `name` parsed on its own (spans relative to its `.model` line), with the reader's
/// warnings.
#[salsa::tracked(returns(ref))]
pub(crate) fn model_parsed(
    db: &dyn KilnDb,
    file: BlifFile,
    name: String,
) -> Option<Result<(Model, Vec<Diagnostic>), Diagnostic>> {
    note(db, || Subject::item(file.path(db), &name));
    let text = model_text(db, file, name).as_ref()?;
    executed(db, Kind::BlifParse);
    Some(flow::parse_model(text))
}

/// The models `name` instantiates (`None`: no such model, or it does not parse).
#[salsa::tracked(returns(ref))]
pub(crate) fn model_instances(
    db: &dyn KilnDb,
    file: BlifFile,
    name: String,
) -> Option<Vec<String>> {
    note(db, || Subject::item(file.path(db), &name));
    match model_parsed(db, file, name) {
        Some(Ok((model, _))) => Some(flow::instances(model)),
        _ => None,
    }
}

/// The models of the file that instantiate themselves, each with a cycle of its recursion.
#[salsa::tracked(returns(ref))]
pub(crate) fn blif_cycles(db: &dyn KilnDb, file: BlifFile) -> BTreeMap<String, Vec<String>> {
    note(db, || Subject::file(file.path(db)));
    let names: Vec<&str> = (blif_models(db, file).iter())
        .map(|m| m.symbol.as_str())
        .collect();
    flow::cycles(&names, |m| model_instances(db, file, m.to_string()).clone())
}

/// A cycle of the recursion of model `name`, if it instantiates itself (directly or not).
#[salsa::tracked(returns(ref))]
pub(crate) fn model_cycle(db: &dyn KilnDb, file: BlifFile, name: String) -> Option<Vec<String>> {
    blif_cycles(db, file).get(&name).cloned()
}

/// The interfaces of the models `model` instantiates.
fn children<'db>(
    db: &'db dyn KilnDb,
    file: BlifFile,
    model: &Model,
) -> Result<BTreeMap<String, &'db Interface>, Diagnostic> {
    let index = model_index(db, file);
    flow::children(
        model,
        |child| index.contains_key(child),
        |child| {
            model_interface(db, file, child.to_string())
                .as_ref()
                .map_err(Clone::clone)
        },
    )
}

/// Model `name` lowered with its instances as boxes, given its children's interfaces.
/// *Cached* (`aig`), keyed by the model's text and its children's interfaces.
#[salsa::tracked(returns(ref))]
pub(crate) fn model_box(
    db: &dyn KilnDb,
    file: BlifFile,
    name: String,
) -> Result<BoxLowered, Diagnostic> {
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
    if let Some(cycle) = model_cycle(db, file, name.clone()) {
        return Err(flow::cycle_error(&name, model, cycle));
    }
    let children = children(db, file, model)?;
    let limits = super::limits(db);
    let lookup = |k: usize| children.get(&model.subckts[k].model.name).copied();
    compiler::aig::check_size(model, &lookup, &limits)?;
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
        flow::lower(model, &children, &limits)
    })
}

/// What a model instantiating `name` needs of it.
#[salsa::tracked(returns(ref))]
pub(crate) fn model_interface(
    db: &dyn KilnDb,
    file: BlifFile,
    name: String,
) -> Result<Interface, Diagnostic> {
    note(db, || Subject::item(file.path(db), &name));
    let b = model_box(db, file, name.clone())
        .as_ref()
        .map_err(Clone::clone)?;
    // A model that lowered has parsed; should that ever not hold, an error, not a panic.
    let Some(Ok((model, _))) = model_parsed(db, file, name.clone()) else {
        return Err(Diagnostic::global_error(format!(
            "model `{name}` has no parse"
        )));
    };
    Ok(flow::interface(&b.model, &children(db, file, model)?))
}

/// Model `name` flattened with the models below it. The models are lowered children
/// first, so that no query recurses through the hierarchy.
#[salsa::tracked(returns(ref))]
pub(crate) fn model_aig(
    db: &dyn KilnDb,
    file: BlifFile,
    name: String,
) -> Result<Lowered, Diagnostic> {
    note(db, || Subject::item(file.path(db), &name));
    let limits = super::limits(db);
    let instances = |m: &str| model_instances(db, file, m.to_string()).clone();
    let order = flow::post_order(&name, instances, limits.max_depth.into())
        .map_err(|deep| too_deep(db, file, &name, &deep, &limits))?;
    let index = model_index(db, file);
    for m in order {
        if m != name && index.contains_key(&m) && model_cycle(db, file, m.clone()).is_none() {
            let _ = model_interface(db, file, m);
        }
    }
    let top = model_box(db, file, name).as_ref().map_err(Clone::clone)?;
    flow::flatten(top, &|m: &str| {
        model_box(db, file, m.to_string())
            .as_ref()
            .ok()
            .map(|b| &b.model)
    })
}

/// The error of hierarchy `deep`, relative to the text of model `top`.
fn too_deep(
    db: &dyn KilnDb,
    file: BlifFile,
    top: &str,
    deep: &flow::TooDeep,
    limits: &compiler::limits::Limits,
) -> Diagnostic {
    let (models, index) = (blif_models(db, file), model_index(db, file));
    let offset = |m: &str| index.get(m).map_or(0, |&i| models[i].offset as i64);
    let shift = offset(&deep.parent) - offset(top);
    let parsed = model_parsed(db, file, deep.parent.clone());
    let parent = parsed
        .as_ref()
        .and_then(|p| p.as_ref().ok())
        .map(|(m, _)| m);
    deep.error(parent, shift, limits)
}

/// The outputs of a BLIF file: its top model (`top`, else the first) as binary and ASCII
/// AIGER (and flat BLIF with `flat_blif`), with every diagnostic (file-relative).
#[salsa::tracked(returns(ref))]
pub(crate) fn blif_outputs(
    db: &dyn KilnDb,
    file: BlifFile,
    top: Option<String>,
    flat_blif: bool,
) -> FileOutputs {
    note(db, || Subject::file(file.path(db)));
    executed(db, Kind::EmitAig);
    let models = blif_models(db, file);
    let t = match flow::top_index(models, top.as_deref()) {
        Ok(t) => t,
        Err(e) => return compiler::flow::Outcome::failed(vec![e]).into(),
    };
    let lowered = models
        .get(t)
        .map(|m| model_aig(db, file, m.symbol.clone()).as_ref());
    // A hierarchy refused for its depth is not parsed further for warnings.
    let deep = matches!(lowered, Some(Err(d)) if flow::TooDeep::refused(d));
    let root = match (deep || top.is_some(), models.first()) {
        (false, Some(first)) => {
            let parsed = model_parsed(db, file, first.symbol.clone());
            let first = parsed
                .as_ref()
                .and_then(|p| p.as_ref().ok())
                .map(|(m, _)| m);
            flow::first_instantiated(models, first, |m| {
                model_instances(db, file, m.to_string()).clone()
            })
        }
        _ => None,
    };
    // The models below a top that lowered: their own lowering warnings are reported too.
    let below: BTreeSet<String> = match lowered {
        Some(Ok(_)) => {
            let instances = |m: &str| model_instances(db, file, m.to_string()).clone();
            let limits = super::limits(db);
            let order = flow::post_order(&models[t].symbol, instances, limits.max_depth.into());
            let top = &models[t].symbol;
            (order.unwrap_or_default().into_iter())
                .filter(|m| m != top)
                .collect()
        }
        _ => BTreeSet::new(),
    };
    let warnings = |m: &Item| match deep {
        true => Vec::new(),
        false => {
            let mut w = match model_parsed(db, file, m.symbol.clone()) {
                Some(Ok((_, w))) => w.clone(),
                _ => Vec::new(),
            };
            if std::ptr::eq(m, &models[0]) {
                w.extend(root.clone());
            }
            if below.contains(&m.symbol)
                && let Ok(b) = model_box(db, file, m.symbol.clone())
            {
                w.extend(b.warnings.iter().cloned());
            }
            w
        }
    };
    let top = lowered.map(|l| (t, l));
    flow::outcome(file.text(db), models, warnings, top, flat_blif).into()
}
