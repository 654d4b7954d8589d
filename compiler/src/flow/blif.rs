//! The BLIF flow for one file: `<stem>.aig` (binary AIGER) and `<stem>.aag` (ASCII) of its
//! top (first) model, lowered together with the models it instantiates.
//!
//! The file is split lexically into its models ([`crate::blif::models`]); each model is
//! parsed on its own ([`parse_model`]) and lowered with its instances as boxes, given the
//! interfaces of the models it instantiates ([`children`], then [`lower`] and
//! [`interface`]); the top model's box is then flattened with the boxes below it
//! ([`flatten`]). So a daemon lowers (and caches) one model at a time, an edit of one model
//! relowers it and the models whose instances' interfaces changed, and only the top is ever
//! flattened. Models are lowered children first, in the order [`post_order`] gives, and
//! models that instantiate themselves are found for a whole file at once ([`cycles`]): every
//! step is iterative and linear in the size of the hierarchy, whatever its depth. [`build`]
//! composes the same steps for a whole file. Only the top model's cone is lowered; every
//! model's reader warnings are reported.

use super::{Outcome, OutputKind, whole};
use crate::aig::{self, Aig, BoxLowered, Interface, Lowered, ModelBox};
use crate::blif::Model;
use crate::diag::{Code, Diagnostic, Span};
use crate::fxhash::FxHashMap;
use crate::limits::{Limit, Limits};
use crate::mlir::items::Item;
use std::collections::BTreeMap;
use std::ops::Deref;
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

/// The models a model instantiates, in `.subckt` order (repeated as often as instantiated).
pub fn instances(model: &Model) -> Vec<String> {
    model.subckts.iter().map(|s| s.model.name.clone()).collect()
}

/// Longest instantiation cycle shown in a diagnostic, in models.
const SHOWN: usize = 12;

/// The models of a file (`names`, in file order) that instantiate themselves, directly or
/// through others, each with an instantiation cycle of its recursion (starting at the model
/// when it is on that cycle; at most [`SHOWN`] models long, `…` marking the cut).
/// `instances(m)` lists the models `m` instantiates (`None`: no such model, or it does not
/// parse). Strongly connected components, iteratively: linear in the models and instances.
pub fn cycles(
    names: &[&str],
    mut instances: impl FnMut(&str) -> Option<Vec<String>>,
) -> BTreeMap<String, Vec<String>> {
    let mut index: FxHashMap<&str, usize> = FxHashMap::default();
    for (i, n) in names.iter().enumerate() {
        index.entry(n).or_insert(i);
    }
    let adj: Vec<Vec<usize>> = (names.iter().enumerate())
        .map(|(i, n)| match index[n] == i {
            true => (instances(n).unwrap_or_default().iter())
                .filter_map(|c| index.get(c.as_str()).copied())
                .collect(),
            false => Vec::new(),
        })
        .collect();
    let n = names.len();
    const UNSET: usize = usize::MAX;
    let (mut order, mut low, mut on) = (vec![UNSET; n], vec![0; n], vec![false; n]);
    let mut scc = vec![UNSET; n];
    let (mut stack, mut calls, mut next) = (Vec::new(), Vec::new(), 0);
    let mut out = BTreeMap::new();
    for root in 0..n {
        if order[root] != UNSET {
            continue;
        }
        calls.push((root, 0));
        while let Some(&mut (v, ref mut e)) = calls.last_mut() {
            if *e == 0 && order[v] == UNSET {
                (order[v], low[v], on[v]) = (next, next, true);
                next += 1;
                stack.push(v);
            }
            if let Some(&w) = adj[v].get(*e) {
                *e += 1;
                if order[w] == UNSET {
                    calls.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(p, _)) = calls.last() {
                low[p] = low[p].min(low[v]);
            }
            if low[v] != order[v] {
                continue;
            }
            let mut members = Vec::new();
            while let Some(w) = stack.pop() {
                on[w] = false;
                scc[w] = v;
                members.push(w);
                if w == v {
                    break;
                }
            }
            if members.len() > 1 || adj[v].contains(&v) {
                let cycle = witness(&adj, &scc, v);
                for &m in &members {
                    let shown = shown_cycle(&cycle, m, names);
                    out.insert(names[m].to_string(), shown);
                }
            }
        }
    }
    out
}

/// A cycle through `v` inside its strongly connected component (breadth first: shortest).
fn witness(adj: &[Vec<usize>], scc: &[usize], v: usize) -> Vec<usize> {
    let mut from: FxHashMap<usize, usize> = FxHashMap::default();
    let mut queue = std::collections::VecDeque::from([v]);
    while let Some(u) = queue.pop_front() {
        for &w in &adj[u] {
            if w == v {
                let mut path = vec![u];
                while let Some(&p) = from.get(path.last().unwrap_or(&v)) {
                    path.push(p);
                }
                if path.last() != Some(&v) {
                    path.push(v);
                }
                path.reverse();
                return path;
            }
            if scc[w] == scc[v] && w != v && !from.contains_key(&w) {
                from.insert(w, u);
                queue.push_back(w);
            }
        }
    }
    vec![v]
}

/// `cycle` (model indices, closing back on its first) as shown for model `m`: from `m`
/// when `m` is on it, cut to [`SHOWN`] models.
fn shown_cycle(cycle: &[usize], m: usize, names: &[&str]) -> Vec<String> {
    let start = cycle.iter().position(|&c| c == m).unwrap_or(0);
    let len = cycle.len();
    let mut shown: Vec<String> = (0..len.min(SHOWN))
        .map(|k| names[cycle[(start + k) % len]].to_string())
        .collect();
    if len > SHOWN {
        shown.push("…".to_string());
    }
    shown.push(names[cycle[start]].to_string());
    shown
}

/// The error of a model that instantiates itself.
pub fn cycle_error(name: &str, model: &Model, cycle: &[String]) -> Diagnostic {
    let how = match cycle.first() {
        Some(first) if first == name => "instantiates itself",
        _ => "instantiates itself, through the cycle",
    };
    Diagnostic::error(
        model.span,
        format!("model `{name}` {how}: {}", cycle.join(" -> ")),
    )
    .with_code(Code::RecursiveModel)
}

/// The models below `top` and `top` itself, each once, every model after the models it
/// instantiates (but on an instantiation cycle, which [`cycles`] reports). `instances(m)`
/// as for [`cycles`]. Iterative; a hierarchy deeper than `max_depth` is refused when the
/// walk first goes past it, before the models below are parsed.
pub fn post_order(
    top: &str,
    mut instances: impl FnMut(&str) -> Option<Vec<String>>,
    max_depth: u64,
) -> Result<Vec<String>, TooDeep> {
    let mut seen: BTreeMap<String, ()> = BTreeMap::new();
    let mut order = Vec::new();
    seen.insert(top.to_string(), ());
    let mut stack: Vec<(String, Vec<String>)> = vec![(
        top.to_string(),
        instances(top)
            .unwrap_or_default()
            .into_iter()
            .rev()
            .collect(),
    )];
    loop {
        // The depth of a child of the model on top of the stack.
        let depth = stack.len() as u64;
        let Some((parent, todo)) = stack.last_mut() else {
            break;
        };
        match todo.pop() {
            Some(child) => {
                if seen.contains_key(&child) {
                    continue;
                }
                if depth > max_depth {
                    return Err(TooDeep {
                        parent: parent.clone(),
                        child,
                        depth,
                    });
                }
                seen.insert(child.clone(), ());
                let kids = instances(&child).unwrap_or_default();
                stack.push((child, kids.into_iter().rev().collect()));
            }
            None => {
                if let Some((m, _)) = stack.pop() {
                    order.push(m);
                }
            }
        }
    }
    Ok(order)
}

/// A hierarchy deeper than the limit: `parent` instantiates `child` at `depth` (the top
/// is at depth 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooDeep {
    pub parent: String,
    pub child: String,
    pub depth: u64,
}

impl TooDeep {
    const WHAT: &str = "model hierarchy depth";

    /// Whether `d` refuses a hierarchy for its depth. Such a file's models below the limit
    /// were never parsed, and are not parsed for their warnings either: the refusal is
    /// quick whatever the file's size.
    pub fn refused(d: &Diagnostic) -> bool {
        d.code == Some(Code::LimitExceeded) && d.message.starts_with(TooDeep::WHAT)
    }

    /// The error at the `.subckt` of `parent` (its parse, if it has one) that instantiates
    /// `child`, its span shifted by `shift` (where `parent` starts relative to the text the
    /// error is about).
    pub fn error(&self, parent: Option<&Model>, shift: i64, limits: &Limits) -> Diagnostic {
        let subckt = parent.and_then(|m| m.subckts.iter().find(|s| s.model.name == self.child));
        let span = subckt.map_or(Span::point(0), |s| s.model.span);
        Limit::Depth
            .exceeded_at(self.depth, limits.max_depth.into(), span, TooDeep::WHAT)
            .shifted(shift)
    }
}

/// The interfaces of the models `model` instantiates, each once: `exists(m)` says whether
/// the file defines `m`, `interface(m)` gives its interface (its models all lowered
/// before). An unknown or failing child is an error at the instantiation, which names the
/// innermost model that failed.
pub fn children<I: Deref<Target = Interface>>(
    model: &Model,
    exists: impl Fn(&str) -> bool,
    mut interface: impl FnMut(&str) -> Result<I, Diagnostic>,
) -> Result<BTreeMap<String, I>, Diagnostic> {
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
        let i = interface(child).map_err(|d| {
            // Already about a model further down: the message stays as it is, so that a
            // deep hierarchy does not nest one prefix per level.
            let message = match d.message.starts_with(IN_MODEL) {
                true => d.message,
                false => format!("{IN_MODEL}{child}`: {}", d.message),
            };
            Diagnostic {
                code: d.code,
                ..Diagnostic::error(s.span, message)
            }
        })?;
        children.insert(child.clone(), i);
    }
    Ok(children)
}

const IN_MODEL: &str = "in model `";

/// `model` lowered as a box ([`aig::lower_box`]) given its children's interfaces, after its
/// size is checked against `limits`.
pub fn lower<I: Deref<Target = Interface>>(
    model: &Model,
    children: &BTreeMap<String, I>,
    limits: &Limits,
) -> Result<BoxLowered, Diagnostic> {
    let lookup = |k: usize| children.get(&model.subckts[k].model.name).map(|i| &**i);
    aig::check_size(model, &lookup, limits)?;
    aig::lower_box(model, &lookup)
}

/// The interface of lowered model `b` ([`aig::interface`]).
pub fn interface<I: Deref<Target = Interface>>(
    b: &ModelBox,
    children: &BTreeMap<String, I>,
) -> Interface {
    let models: Vec<&str> = b.instantiated().collect();
    aig::interface(b, &|k: usize| children.get(models[k]).map(|i| &**i))
}

/// The top model `top` flattened with the boxes below it (`boxes(m)`: model `m`'s box),
/// with its own warnings and undriven nets.
pub fn flatten<'b>(
    top: &'b BoxLowered,
    boxes: &dyn Fn(&str) -> Option<&'b ModelBox>,
) -> Result<Lowered, Diagnostic> {
    let aig = match top.model.is_flat() {
        true => top.model.clone().into_flat().unwrap_or_default(),
        false => aig::flatten(&top.model, boxes)?,
    };
    Ok(Lowered {
        aig,
        warnings: top.warnings.clone(),
        undriven: top.undriven.clone(),
    })
}

/// The outcome of the file `text` from its models, each one's warnings (`parsed_warnings`:
/// its reader's, and when the top lowered, its own lowering warnings if it is below the
/// top; relative to its text), and its top model's lowering (with the top's index in
/// `models`): every model's warnings in file order, then the top's lowering warnings or
/// error, all with file-relative spans; the top's AIG as the outputs ([`outputs`]). A file without a model, or with a
/// model defined twice, is refused as the whole-file reader refuses it.
pub fn outcome(
    text: &str,
    models: &[Item],
    parsed_warnings: impl Fn(&Item) -> Vec<Diagnostic>,
    top: Option<(usize, Result<&Lowered, &Diagnostic>)>,
    flat_blif: bool,
) -> Outcome {
    let Some((first, top)) = top.and_then(|(i, top)| Some((models.get(i)?, top))) else {
        return Outcome::failed(vec![crate::blif::no_model(text)]);
    };
    if let Some(d) = defined_twice(models) {
        return Outcome::failed(vec![d]);
    }
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
                outputs: outputs(&l.aig, flat_blif),
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

/// The first model defined a second time, as an error at its second `.model` line (a
/// file's models are known by their names; the whole-file reader refuses it alike).
fn defined_twice(models: &[Item]) -> Option<Diagnostic> {
    let mut seen = FxHashMap::default();
    let again = models
        .iter()
        .find(|m| seen.insert(m.symbol.as_str(), ()).is_some())?;
    let at = again.text.find(".model").unwrap_or(0);
    let end = again.text[at..]
        .find(['\n', '\r'])
        .map_or(again.text.len(), |e| at + e);
    let span = Span::new(again.offset + at, again.offset + end);
    Some(Diagnostic::error(
        span,
        format!("model `{}` is defined twice", again.symbol),
    ))
}

/// The warning of a file whose first model (`first`, its parse) another model
/// instantiates, naming the roots of the hierarchy above it
/// ([`crate::blif::first_instantiated_warning`]); its span is relative to the first
/// model's text. `instances(m)` as for [`cycles`].
pub fn first_instantiated(
    models: &[Item],
    first: Option<&Model>,
    instances: impl FnMut(&str) -> Option<Vec<String>>,
) -> Option<Diagnostic> {
    let first = first?;
    let names: Vec<&str> = models.iter().map(|m| m.symbol.as_str()).collect();
    let roots = crate::blif::roots_above_first(&names, instances);
    (!roots.is_empty()).then(|| crate::blif::first_instantiated_warning(first, &roots))
}

/// The outputs of a top model's AIG: binary and ASCII AIGER, and with `flat_blif` the
/// flat BLIF (`<stem>.blif`, made only when asked for: `kiln aig --format blif`).
pub fn outputs(g: &Aig, flat_blif: bool) -> Vec<(OutputKind, Vec<super::Piece>)> {
    let mut out = vec![
        whole(OutputKind::Aig, aig::write_aiger_binary(g)),
        whole(OutputKind::Aag, aig::write_aag(g).into_bytes()),
    ];
    if flat_blif {
        out.push(whole(OutputKind::FlatBlif, aig::write_blif(g).into_bytes()));
    }
    out
}

/// The whole flow for one file.
pub fn build(text: &str, limits: &Limits) -> Outcome {
    build_top(text, None, false, limits)
}

/// The index in `models` of the model to lower as the top: `top`'s first definition, else
/// the first model; an unknown `top` is an error ([`crate::blif::unknown_top`]).
pub fn top_index(models: &[Item], top: Option<&str>) -> Result<usize, Diagnostic> {
    match top {
        None => Ok(0),
        Some(top) => models.iter().position(|m| m.symbol == top).ok_or_else(|| {
            let names: Vec<&str> = models.iter().map(|m| m.symbol.as_str()).collect();
            crate::blif::unknown_top(top, &names)
        }),
    }
}

/// The whole flow for one file, with model `top` as the top (else the first model), the
/// flat BLIF among the outputs with `flat_blif`.
///
/// A file that reads and lowers without a single message, or a flat netlist (one model)
/// that lowers, takes the whole-file lowering ([`aig::lower_file_owned`]: one parse, each
/// model's arrays dropped once it is lowered), which on a 100,000-model hierarchy is 3
/// times as fast and takes 40% of the memory of the per-model steps (`docs/bench.md`).
/// Every other file takes the per-model steps, whose messages are the daemon's, so the
/// outcome is the daemon's whichever way it is made. Why the two agree on a clean file:
/// the whole-file lowering lowers every model, so when it succeeds so does every model of
/// the top's cone; it then has no reader warning, no lowering warning in any model and no
/// first-model warning, so the per-model steps have none either; and both flatten the same
/// boxes. On a flat netlist the one model is the file, read by the same reader. A test
/// compares the two ways on every test file.
pub fn build_top(text: &str, top: Option<&str>, flat_blif: bool, limits: &Limits) -> Outcome {
    match whole_file(text, top, limits) {
        Some((g, diagnostics)) => Outcome {
            outputs: outputs(&g, flat_blif),
            diagnostics,
            elsewhere: Vec::new(),
        },
        None => by_model(text, top, flat_blif, limits),
    }
}

/// The top model's AIG and the file's warnings when the whole file reads and lowers at
/// once, and its messages are those of the per-model steps by construction: it has no
/// message at all, or it has one model (a flat netlist), whose reader warnings and then
/// lowering warnings are the file's, in that order, as the per-model steps give them.
fn whole_file(text: &str, top: Option<&str>, limits: &Limits) -> Option<(Aig, Vec<Diagnostic>)> {
    let parsed = crate::blif::parse(text).ok()?;
    let one = parsed.file.models.len() == 1;
    if parsed.file.models.is_empty() || !one && !parsed.warnings.is_empty() {
        return None;
    }
    let mut diagnostics = parsed.warnings;
    let mut lowered = aig::lower_file_owned(parsed.file, top, limits).ok()?;
    let top = lowered.models.remove(&lowered.top)?;
    let quiet = top.warnings.is_empty() && top.undriven.is_empty();
    if !one && !quiet {
        return None;
    }
    diagnostics.extend(top.warnings);
    Some((top.aig, diagnostics))
}

/// [`build_top`] by the per-model steps: the daemon's queries without the database.
fn by_model(text: &str, top: Option<&str>, flat_blif: bool, limits: &Limits) -> Outcome {
    let models = models(text);
    let t = match top_index(&models, top) {
        Ok(t) => t,
        Err(e) => return Outcome::failed(vec![e]),
    };
    let mut file = File::new(&models);
    let top_lowered = models.get(t).map(|m| (t, file.lower(&m.symbol, limits)));
    let mut root = None;
    if !matches!(&top_lowered, Some((_, Err(d))) if TooDeep::refused(d)) {
        for m in &models {
            file.parse(&m.symbol);
        }
        let first = models.first().and_then(|m| file.parse(&m.symbol));
        let first = first
            .as_deref()
            .and_then(|p| p.as_ref().ok())
            .map(|(m, _)| m);
        if top.is_none() {
            root = first_instantiated(&models, first, |m| file.instances(m));
        }
    }
    let lowered = matches!(&top_lowered, Some((_, Ok(_))));
    let warnings = |m: &Item| {
        let mut w = match file.parsed.get(&m.symbol).and_then(Option::as_deref) {
            Some(Ok((_, w))) => w.clone(),
            _ => Vec::new(),
        };
        if std::ptr::eq(m, &models[0]) {
            w.extend(root.clone());
        }
        if lowered && let Some(below) = file.below.get(&m.symbol) {
            w.extend(below.iter().cloned());
        }
        w
    };
    let top = top_lowered.as_ref().map(|(t, r)| (*t, r.as_ref()));
    outcome(text, &models, warnings, top, flat_blif)
}

type Parsed = Result<(Model, Vec<Diagnostic>), Diagnostic>;

/// The first model of a BLIF text lowered with the models it instantiates (spans relative
/// to the model's text), and the model's item; `None` when the text has no model.
pub fn lower_first(text: &str, limits: &Limits) -> Option<(Item, Result<Lowered, Diagnostic>)> {
    let models = models(text);
    let first = models.first()?.clone();
    let lowered = File::new(&models).lower(&first.symbol, limits);
    Some((first, lowered))
}

/// One file's models, parsed on demand (each once).
struct File<'a> {
    models: &'a [Item],
    /// Model name → its first definition.
    index: FxHashMap<&'a str, usize>,
    parsed: BTreeMap<String, Option<Rc<Parsed>>>,
    /// The lowering warnings of each model lowered below the top.
    below: BTreeMap<String, Vec<Diagnostic>>,
}

impl<'a> File<'a> {
    fn new(models: &'a [Item]) -> File<'a> {
        let mut index = FxHashMap::default();
        for (i, m) in models.iter().enumerate() {
            index.entry(m.symbol.as_str()).or_insert(i);
        }
        File {
            models,
            index,
            parsed: BTreeMap::new(),
            below: BTreeMap::new(),
        }
    }

    /// Model `name` parsed (its first definition), `None` when there is none.
    fn parse(&mut self, name: &str) -> Option<Rc<Parsed>> {
        if !self.parsed.contains_key(name) {
            let item = self.index.get(name).map(|&i| &self.models[i]);
            let parsed = item.map(|m| Rc::new(parse_model(&m.text)));
            self.parsed.insert(name.to_string(), parsed);
        }
        self.parsed.get(name).cloned().flatten()
    }

    fn instances(&mut self, name: &str) -> Option<Vec<String>> {
        match &*self.parse(name)? {
            Ok((m, _)) => Some(instances(m)),
            Err(_) => None,
        }
    }

    /// The error of `deep`, relative to the text of model `top`.
    fn too_deep(&mut self, top: &str, deep: &TooDeep, limits: &Limits) -> Diagnostic {
        let offset = |m: &str| {
            self.index
                .get(m)
                .map_or(0, |&i| self.models[i].offset as i64)
        };
        let shift = offset(&deep.parent) - offset(top);
        let parsed = self.parse(&deep.parent);
        let parent = parsed
            .as_deref()
            .and_then(|p| p.as_ref().ok())
            .map(|(m, _)| m);
        deep.error(parent, shift, limits)
    }

    /// Model `name` lowered with the models below it, children first, and flattened.
    fn lower(&mut self, name: &str, limits: &Limits) -> Result<Lowered, Diagnostic> {
        let models = self.models;
        let order = post_order(name, |m| self.instances(m), limits.max_depth.into())
            .map_err(|deep| self.too_deep(name, &deep, limits))?;
        let names: Vec<&str> = models.iter().map(|m| m.symbol.as_str()).collect();
        let cycles = cycles(&names, |m| self.instances(m));
        let mut boxes: BTreeMap<String, Result<BoxLowered, Diagnostic>> = BTreeMap::new();
        let mut interfaces: BTreeMap<String, Result<Interface, Diagnostic>> = BTreeMap::new();
        for m in order {
            let Some(parsed) = self.parse(&m) else {
                let e = Diagnostic::error(Span::point(0), format!("no model `{m}`"));
                interfaces.insert(m.clone(), Err(e.clone()));
                boxes.insert(m, Err(e));
                continue;
            };
            let r = match (parsed.as_ref(), cycles.get(&m)) {
                (Err(e), _) => Err(e.clone()),
                (Ok((model, _)), Some(cycle)) => Err(cycle_error(&m, model, cycle)),
                (Ok((model, _)), None) => {
                    let exists = |c: &str| self.index.contains_key(c);
                    let interface_of = |c: &str| match interfaces.get(c) {
                        Some(Ok(i)) => Ok(i),
                        Some(Err(e)) => Err(e.clone()),
                        None => Err(Diagnostic::error(Span::point(0), format!("no model `{c}`"))),
                    };
                    children(model, exists, interface_of).and_then(|children| {
                        let b = lower(model, &children, limits)?;
                        let i = (m != name).then(|| interface(&b.model, &children));
                        Ok((b, i))
                    })
                }
            };
            match r {
                Ok((b, i)) => {
                    interfaces.insert(m.clone(), Ok(i.unwrap_or_default()));
                    if m != name && !b.warnings.is_empty() {
                        self.below.insert(m.clone(), b.warnings.clone());
                    }
                    boxes.insert(m, Ok(b));
                }
                Err(e) => {
                    interfaces.insert(m.clone(), Err(e.clone()));
                    boxes.insert(m, Err(e));
                }
            }
        }
        drop(interfaces);
        let top = boxes[name].as_ref().map_err(Clone::clone)?;
        flatten(top, &|m: &str| {
            boxes.get(m)?.as_ref().ok().map(|b| &b.model)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Every BLIF file of the test data, then hierarchies the data lacks: a chain, a model
    /// instantiated before its definition, an undriven net in a child, a deep chain under
    /// a tight depth limit, an unknown top.
    fn texts() -> Vec<(String, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/blif");
        let mut out = Vec::new();
        for dir in ["bench", "edge", "library", "malformed"] {
            let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "blif"))
                .collect();
            files.sort();
            for f in files {
                let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
                out.push((f.display().to_string(), text));
            }
        }
        let generated = [
            ("chain", crate::blif::generate::and_chain(40)),
            (
                "child first",
                ".model c\n.inputs a\n.outputs y\n.names a y\n0 1\n.end\n\
                 .model t\n.inputs a\n.outputs y\n.subckt c a=a y=y\n.end\n"
                    .to_string(),
            ),
            (
                "undriven in child",
                ".model t\n.inputs a\n.outputs y\n.subckt c a=a y=y\n.end\n\
                 .model c\n.inputs a\n.outputs y\n.names a n y\n11 1\n.end\n"
                    .to_string(),
            ),
            (
                "unused broken model",
                ".model t\n.inputs a\n.outputs y\n.names a y\n1 1\n.end\n\
                 .model u\n.inputs a\n.outputs y\n.subckt nowhere a=a y=y\n.end\n"
                    .to_string(),
            ),
        ];
        let flat = [
            (
                "flat, no .end, undriven",
                "# a comment\n\n.model t\n.inputs a b\n.outputs y z\n.names a n y\n11 1\n",
            ),
            (
                "flat, ignored directive, unconnected",
                ".model t\n.inputs a\n.outputs y\n.default_max_input_load 1\n.names a y\n1 1\n.end\n\n",
            ),
            (
                "flat, text after the model",
                ".model t\n.inputs a\n.outputs y\n.names a y\n1 1\n.end\n.names a b\n1 1\n",
            ),
        ];
        out.extend(generated.map(|(n, t)| (n.to_string(), t)));
        out.extend(flat.map(|(n, t)| (n.to_string(), t.to_string())));
        out
    }

    /// The whole-file fast path ([`build_top`]) and the per-model steps ([`by_model`]) give
    /// the same outcome, bytes and messages, on every file, for the first model, every
    /// named model and an unknown one as the top, with and without the flat BLIF, under
    /// the default limits and a depth limit of 3.
    #[test]
    fn the_fast_path_agrees_with_the_per_model_steps() {
        let mut tight = Limits::DEFAULT;
        tight.max_depth = 3;
        let (mut fast, mut total) = (0, 0);
        for (name, text) in texts() {
            let mut tops: Vec<Option<String>> = vec![None, Some("no_such_model".into())];
            tops.extend(models(&text).iter().take(6).map(|m| Some(m.symbol.clone())));
            for top in &tops {
                for limits in [&Limits::DEFAULT, &tight] {
                    for flat in [false, true] {
                        let a = build_top(&text, top.as_deref(), flat, limits);
                        let b = by_model(&text, top.as_deref(), flat, limits);
                        assert_eq!(a, b, "{name}, top {top:?}, flat {flat}");
                        total += 1;
                        fast += whole_file(&text, top.as_deref(), limits).is_some() as usize;
                    }
                }
            }
        }
        // Both paths are exercised.
        assert!(fast > 100 && fast < total, "{fast} of {total}");
    }

    #[test]
    fn the_flat_blif_is_made_only_when_asked_for() {
        let text = crate::blif::generate::and_chain(3);
        let kinds = |o: &Outcome| o.outputs.iter().map(|(k, _)| *k).collect::<Vec<_>>();
        let plain = build_top(&text, None, false, &Limits::DEFAULT);
        assert_eq!(kinds(&plain), [OutputKind::Aig, OutputKind::Aag]);
        let flat = build_top(&text, None, true, &Limits::DEFAULT);
        assert_eq!(
            kinds(&flat),
            [OutputKind::Aig, OutputKind::Aag, OutputKind::FlatBlif]
        );
        let blif = flat.text(OutputKind::FlatBlif).unwrap();
        assert!(blif.starts_with(".model m0\n"), "{blif}");
    }

    /// A warning inside a model below the top is reported at its own line, as the reader's
    /// warnings are; the top's own come after every model's.
    #[test]
    fn a_warning_below_the_top_is_at_its_line() {
        let text = ".model t\n.inputs a\n.outputs y z\n.subckt c a=a y=y\n.end\n\
                    .model c\n.inputs a\n.outputs y\n.names a n y\n11 1\n.end\n";
        let o = build_top(text, None, false, &Limits::DEFAULT);
        let at: Vec<(usize, &str)> = (o.diagnostics.iter())
            .map(|d| {
                let start = d.span.map_or(0, |s| s.start as usize);
                (text[..start].matches('\n').count() + 1, d.message.as_str())
            })
            .collect();
        assert_eq!(at.len(), 2, "{at:?}");
        assert!(at[0].0 == 9 && at[0].1.contains("`n`"), "{at:?}");
        assert!(at[1].0 == 3 && at[1].1.contains("`z`"), "{at:?}");
        assert!(!o.outputs.is_empty());
    }
}
