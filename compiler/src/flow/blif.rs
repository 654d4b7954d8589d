//! The BLIF flow for one file: `<stem>.aig` (binary AIGER) and `<stem>.aag` (ASCII) of its
//! top (first) model, lowered together with the models it instantiates.
//!
//! The file is split lexically into its models ([`crate::blif::models`]); each model is
//! parsed on its own ([`parse_model`]) and lowered given its children's AIGs
//! ([`children`], then [`crate::aig::lower_model`]), so that a daemon lowers (and caches)
//! one model at a time and an edit of one model relowers it and the models above it.
//! [`build`] composes the same steps for a whole file. Only the top model's cone is
//! lowered; every model's reader warnings are reported.

use super::{Outcome, OutputKind, whole};
use crate::aig::{self, Aig, Lowered};
use crate::blif::Model;
use crate::diag::{Code, Diagnostic, Span};
use crate::mlir::items::Item;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// The models of a BLIF text, split lexically (each with its exact text).
pub fn models(text: &str) -> Vec<Item> {
    crate::blif::models::split(text)
}

/// A model's text parsed on its own: the model and the reader's warnings (spans relative
/// to the model's text).
pub fn parse_model(text: &str) -> Result<(Model, Vec<Diagnostic>), Diagnostic> {
    let parsed = crate::blif::parse(text)?;
    let warnings = parsed.warnings;
    parsed
        .file
        .models
        .into_iter()
        .next()
        .map(|m| (m, warnings))
        .ok_or_else(|| Diagnostic::error(Span::point(0), "empty model"))
}

/// The models `name` instantiates, if it instantiates itself (directly or not): the cycle.
/// `subckts(m)` lists the models `m` instantiates (`None`: no such model, or it does not
/// parse). An iterative search, so a cyclic netlist cannot recurse without end.
pub fn instantiation_cycle(
    name: &str,
    mut subckts: impl FnMut(&str) -> Option<Vec<String>>,
) -> Option<Vec<String>> {
    let mut stack: Vec<(String, Vec<String>)> = vec![(name.to_string(), vec![name.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((m, path)) = stack.pop() {
        let Some(children) = subckts(&m) else {
            continue;
        };
        for child in children {
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

/// The error of a model that instantiates itself.
pub fn cycle_error(name: &str, model: &Model, cycle: &[String]) -> Diagnostic {
    Diagnostic::error(
        model.span,
        format!("model `{name}` instantiates itself: {}", cycle.join(" -> ")),
    )
    .with_code(Code::RecursiveModel)
}

/// The AIGs of the models `model` instantiates, each once: `exists(m)` says whether the
/// file defines `m`, `lowered(m)` lowers it. An unknown or failing child is an error at the
/// instantiation.
pub fn children(
    model: &Model,
    exists: impl Fn(&str) -> bool,
    mut lowered: impl FnMut(&str) -> Result<Aig, Diagnostic>,
) -> Result<BTreeMap<String, Aig>, Diagnostic> {
    let mut children = BTreeMap::new();
    for s in &model.subckts {
        let child = &s.model.name;
        if children.contains_key(child) {
            continue;
        }
        if !exists(child) {
            return Err(
                Diagnostic::error(s.model.span, format!("unknown model `{child}`"))
                    .with_code(Code::UnknownModel),
            );
        }
        let aig = lowered(child).map_err(|d| {
            let e = Diagnostic::error(s.span, format!("in model `{child}`: {}", d.message));
            Diagnostic { code: d.code, ..e }
        })?;
        children.insert(child.clone(), aig);
    }
    Ok(children)
}

/// The outcome of a file from its models, each one's parse (by index, the first definition
/// of its name), and its top model's lowering: every model's reader warnings, then the
/// top's lowering warnings or error, all with file-relative spans; the top's AIG as the
/// outputs.
pub fn outcome(
    models: &[Item],
    parsed_warnings: impl Fn(&Item) -> Vec<Diagnostic>,
    top: Option<Result<&Lowered, &Diagnostic>>,
) -> Outcome {
    let (Some(first), Some(top)) = (models.first(), top) else {
        let d = Diagnostic::error(Span::point(0), "no model in file").with_code(Code::NoModel);
        return Outcome::failed(vec![d]);
    };
    let mut diagnostics = Vec::new();
    for m in models {
        let shift = m.offset as i64;
        diagnostics.extend(parsed_warnings(m).into_iter().map(|w| w.shifted(shift)));
    }
    let shift = first.offset as i64;
    match top {
        Ok(l) => {
            diagnostics.extend(l.warnings.iter().map(|w| w.clone().shifted(shift)));
            Outcome {
                outputs: outputs(&l.aig),
                diagnostics,
                elsewhere: Vec::new(),
            }
        }
        // Errors inside a child model are reported at the instantiation in the top.
        Err(e) => {
            diagnostics.push(e.clone().shifted(shift));
            Outcome::failed(diagnostics)
        }
    }
}

/// The outputs of a top model's AIG: binary and ASCII AIGER.
pub fn outputs(g: &Aig) -> Vec<(OutputKind, Vec<super::Piece>)> {
    vec![
        whole(OutputKind::Aig, aig::write_aiger_binary(g)),
        whole(OutputKind::Aag, aig::write_aag(g).into_bytes()),
    ]
}

/// The whole flow for one file.
pub fn build(text: &str) -> Outcome {
    let models = models(text);
    let mut file = File {
        models: &models,
        parsed: BTreeMap::new(),
        lowered: BTreeMap::new(),
    };
    let top = models.first().map(|m| file.lower(&m.symbol));
    for m in &models {
        file.parse(&m.symbol);
    }
    let warnings = |m: &Item| match file.parsed.get(&m.symbol).and_then(Option::as_deref) {
        Some(Ok((_, w))) => w.clone(),
        _ => Vec::new(),
    };
    outcome(&models, warnings, top.as_ref().map(|r| r.as_ref()))
}

type Parsed = Result<(Model, Vec<Diagnostic>), Diagnostic>;

/// The first model of a BLIF text lowered with the models it instantiates (spans relative
/// to the model's text), and the model's item; `None` when the text has no model.
pub fn lower_first(text: &str) -> Option<(Item, Result<Lowered, Diagnostic>)> {
    let models = models(text);
    let first = models.first()?.clone();
    let mut file = File {
        models: &models,
        parsed: BTreeMap::new(),
        lowered: BTreeMap::new(),
    };
    let lowered = file.lower(&first.symbol);
    Some((first, lowered))
}

/// One file's models, parsed and lowered on demand (each once).
struct File<'a> {
    models: &'a [Item],
    parsed: BTreeMap<String, Option<Rc<Parsed>>>,
    lowered: BTreeMap<String, Result<Lowered, Diagnostic>>,
}

impl File<'_> {
    /// Model `name` parsed (its first definition), `None` when there is none.
    fn parse(&mut self, name: &str) -> Option<Rc<Parsed>> {
        if !self.parsed.contains_key(name) {
            let item = self.models.iter().find(|m| m.symbol == name);
            let parsed = item.map(|m| Rc::new(parse_model(&m.text)));
            self.parsed.insert(name.to_string(), parsed);
        }
        self.parsed.get(name).cloned().flatten()
    }

    fn subckts(&mut self, name: &str) -> Option<Vec<String>> {
        match &*self.parse(name)? {
            Ok((m, _)) => Some(m.subckts.iter().map(|s| s.model.name.clone()).collect()),
            Err(_) => None,
        }
    }

    /// Model `name` lowered, children first.
    fn lower(&mut self, name: &str) -> Result<Lowered, Diagnostic> {
        if let Some(r) = self.lowered.get(name) {
            return r.clone();
        }
        let r = self.lower_uncached(name);
        self.lowered.insert(name.to_string(), r.clone());
        r
    }

    fn lower_uncached(&mut self, name: &str) -> Result<Lowered, Diagnostic> {
        let Some(parsed) = self.parse(name) else {
            return Err(Diagnostic::error(
                Span::point(0),
                format!("no model `{name}`"),
            ));
        };
        let (model, _) = parsed.as_ref().as_ref().map_err(Clone::clone)?;
        if let Some(cycle) = instantiation_cycle(name, |m| self.subckts(m)) {
            return Err(cycle_error(name, model, &cycle));
        }
        let models = self.models;
        let exists = |c: &str| models.iter().any(|m| m.symbol == c);
        let children = children(model, exists, |c| self.lower(c).map(|l| l.aig))?;
        aig::lower_model(model, &children)
    }
}
