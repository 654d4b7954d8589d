//! BLIF model → AIG, one model at a time, `.subckt` instances kept as boxes.
//!
//! [`lower_box`] lowers ONE model given the [`Interface`]s of the models it instantiates
//! (their pins, which inputs each output and the latches depend on, their flattened size):
//! an instance output becomes an extra input of the model's AIG, an instance input an extra
//! output ([`ModelBox`]). Nets are resolved on demand by an iterative depth-first walk (no
//! recursion, so 25k-level netlists do not overflow the stack); an instance output depends
//! on the parent nets wired to the inputs in its support only, so a net that leaves an
//! instance and comes back into another input of the same instance is not a loop unless
//! the child really connects them combinationally. Latches are cut points, so only purely
//! combinational cycles are loops; those are errors, with the cycle in a note. Nets without
//! a driver read as constant 0 and are reported (in [`BoxLowered::undriven`] and as
//! warnings).
//!
//! [`interface`] derives what a parent needs of a lowered model; [`super::flatten`]
//! ([`super::hier`]) instantiates the boxes of a hierarchy top-down into one AIG. Lowering
//! model by model (the daemon, one query per model) and [`lower_file`] (every model of a
//! parsed file, children first; `.subckt` of an unknown model and recursive instantiation
//! are errors) run the same three steps, so they write the same bytes.

use super::{Aig, Lit, sop};
use crate::blif::{BlifFile, Model, Net, Subckt};
use crate::diag::{Code, Diagnostic, Span};
use crate::fxhash::FxHashMap;
use crate::limits::{Limit, Limits};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::hier::{Interface, ModelBox, Sub};

/// One lowered model: its AIG (cleaned up, AIGER-ordered), warnings, undriven net names.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Lowered {
    pub aig: Aig,
    pub warnings: Vec<Diagnostic>,
    /// Nets that had no driver and were read as constant 0, in first-use order.
    pub undriven: Vec<String>,
}

/// All models of one file, lowered; `top` is the first model, or the one asked for.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LoweredFile {
    pub top: String,
    pub models: BTreeMap<String, Lowered>,
}

impl LoweredFile {
    pub fn top(&self) -> &Lowered {
        &self.models[&self.top]
    }
}

/// A model lowered as a box, with its warnings and undriven nets.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BoxLowered {
    pub model: ModelBox,
    pub warnings: Vec<Diagnostic>,
    /// Nets that had no driver and were read as constant 0, in first-use order.
    pub undriven: Vec<String>,
}

/// The interface of the model the `k`-th `.subckt` (instance) of a model instantiates
/// (`None`: no such model).
pub type Children<'c> = dyn Fn(usize) -> Option<&'c Interface> + 'c;

/// Lower every model of `file` bottom-up, under the default [`Limits`].
pub fn lower_file(file: &BlifFile) -> Result<LoweredFile, Diagnostic> {
    lower_file_with(file, &Limits::DEFAULT)
}

/// Lower `file`: every model is checked ([`check_size`]) and lowered once on its own
/// ([`lower_box`]), children first; then the top model is flattened ([`super::flatten`]). The cost
/// is linear in the text plus the flattened output, whatever the depth of the hierarchy,
/// which is checked against `limits.max_depth` before anything is lowered.
///
/// `models` holds the top model only; its warnings and undriven nets are those of every
/// model, in model-name order.
pub fn lower_file_with(file: &BlifFile, limits: &Limits) -> Result<LoweredFile, Diagnostic> {
    lower_models(Models::Borrowed(&file.models), None, limits)
}

/// [`lower_file_with`], dropping each parsed model once it is lowered (for a file of many
/// models, the peak memory is then that of the lowered models, not of both), with model
/// `top` as the top instead of the first (an unknown `top` is an error, [`Code::UnknownTop`]).
/// Without `top`, a first model that another model instantiates is lowered as the top with
/// a warning ([`crate::blif::first_instantiated_warning`]).
pub fn lower_file_owned(
    file: BlifFile,
    top: Option<&str>,
    limits: &Limits,
) -> Result<LoweredFile, Diagnostic> {
    lower_models(Models::Owned(file.models), top, limits)
}

/// The models of a file being lowered: borrowed, or owned and dropped once lowered.
enum Models<'a> {
    Borrowed(&'a [Model]),
    Owned(Vec<Model>),
}

impl Models<'_> {
    fn all(&self) -> &[Model] {
        match self {
            Models::Borrowed(m) => m,
            Models::Owned(m) => m,
        }
    }

    /// Model `i` is lowered: its arrays are no longer needed.
    fn done(&mut self, i: usize) {
        if let Models::Owned(m) = self {
            m[i] = Model::default();
        }
    }
}

fn lower_models(
    mut models: Models,
    top: Option<&str>,
    limits: &Limits,
) -> Result<LoweredFile, Diagnostic> {
    let all = models.all();
    let n = all.len();
    let t = match top {
        None => 0,
        Some(top) => match all.iter().position(|m| m.name == top) {
            Some(t) => t,
            None => {
                let names: Vec<&str> = all.iter().map(|m| m.name.as_str()).collect();
                return Err(crate::blif::unknown_top(top, &names));
            }
        },
    };
    let root_warning = match (top, all.first()) {
        (None, Some(first)) => {
            let names: Vec<&str> = all.iter().map(|m| m.name.as_str()).collect();
            let by_name: FxHashMap<&str, &Model> =
                all.iter().rev().map(|m| (m.name.as_str(), m)).collect();
            let roots = crate::blif::roots_above_first(&names, |m| {
                by_name
                    .get(m)
                    .map(|m| m.subckts.iter().map(|s| s.model.name.clone()).collect())
            });
            (!roots.is_empty()).then(|| crate::blif::first_instantiated_warning(first, &roots))
        }
        _ => None,
    };
    let mut index: FxHashMap<&str, u32> = FxHashMap::default();
    index.reserve(n);
    for (i, m) in all.iter().enumerate() {
        if index.insert(&m.name, i as u32).is_some() {
            return Err(Diagnostic::error(
                m.span,
                format!("model `{}` is defined twice", m.name),
            ));
        }
    }
    // The model each `.subckt` instantiates, resolved once: model `i`'s from `first[i]`;
    // how many `.subckt`s instantiate each model (its interface is dropped after the last).
    let mut first = Vec::with_capacity(n + 1);
    let mut kids = Vec::new();
    let mut uses = vec![0u32; n];
    for m in all {
        first.push(kids.len() as u32);
        for s in &m.subckts {
            let k = index.get(s.model.name.as_str()).copied().unwrap_or(NONE);
            if k != NONE {
                uses[k as usize] += 1;
            }
            kids.push(k);
        }
    }
    first.push(kids.len() as u32);
    drop(index);
    let top_name = all.get(t).map(|m| m.name.clone()).unwrap_or_default();
    let order = topological(all, &first, &kids, limits)?;
    let mut ifaces: Vec<Option<Interface>> = (0..n).map(|_| None).collect();
    let mut boxes: Vec<Option<ModelBox>> = (0..n).map(|_| None).collect();
    let mut noisy: Vec<(String, Vec<Diagnostic>, Vec<String>)> = Vec::new();
    let mut scratch = super::hier::Scratch::default();
    for i in order {
        let i = i as usize;
        let m = &models.all()[i];
        let mine = &kids[first[i] as usize..first[i + 1] as usize];
        let children = |k: usize| ifaces.get(mine[k] as usize)?.as_ref();
        check_size(m, &children, limits)?;
        let b = lower_box(m, &children)?;
        if uses[i] > 0 {
            ifaces[i] = Some(interface_in(&b.model, &children, &mut scratch));
        }
        for &k in mine.iter().filter(|&&k| k != NONE) {
            uses[k as usize] -= 1;
            if uses[k as usize] == 0 {
                ifaces[k as usize] = None;
            }
        }
        if !b.warnings.is_empty() || !b.undriven.is_empty() {
            noisy.push((m.name.clone(), b.warnings, b.undriven));
        }
        boxes[i] = Some(b.model);
        models.done(i);
    }
    drop(ifaces);
    drop(models);
    let mut warnings: Vec<Diagnostic> = root_warning.into_iter().collect();
    let mut undriven = Vec::new();
    noisy.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, w, u) in noisy {
        warnings.extend(w);
        undriven.extend(u);
    }
    let aig = match boxes.get_mut(t).and_then(Option::take) {
        Some(b) if b.is_flat() => b.aig,
        Some(b) => {
            boxes[t] = Some(b);
            let tree = super::hier::Tree {
                top: t as u32,
                boxes: (boxes.iter())
                    .map(|b| b.as_ref().expect("every model is lowered"))
                    .collect(),
                kids,
                first,
            };
            super::hier::flatten_tree(tree)?
        }
        None => unreachable!("the top model is lowered"),
    };
    let mut lowered = BTreeMap::new();
    lowered.insert(
        top_name.clone(),
        Lowered {
            aig,
            warnings,
            undriven,
        },
    );
    Ok(LoweredFile {
        top: top_name,
        models: lowered,
    })
}

/// No model (an unknown `.subckt` model).
const NONE: u32 = u32::MAX;

/// Refuse `model` when its flattened size could exceed `limits.max_nodes`: its instances'
/// flattened bounds plus a few nodes per cover literal, latch and input of its own, checked
/// before it is lowered, so a hierarchy that doubles at every level is refused instead of
/// exhausting memory.
pub fn check_size(model: &Model, children: &Children, limits: &Limits) -> Result<(), Diagnostic> {
    let instances = (0..model.subckts.len())
        .map(|k| children(k).map_or(0, |c| c.flat))
        .fold(0u64, u64::saturating_add);
    let own = 2 * (model.planes.len() + model.covers.len() + model.conns.len()) as u64
        + (model.inputs.len() + model.latches.len() + 1) as u64;
    limits
        .check(Limit::Nodes, instances.saturating_add(own))
        .map_err(|e| Diagnostic::error(model.span, format!("model `{}`: {e}", model.name)))
}

/// Lower `model` with its instances as boxes, given the interfaces of the models it
/// instantiates.
pub(crate) fn lower_box(model: &Model, children: &Children) -> Result<BoxLowered, Diagnostic> {
    let mut l = Lowerer::run(model, children)?;
    let (mut warnings, undriven) = l.undriven_report();
    warnings.append(&mut l.unconnected);
    let mut subs = Vec::with_capacity(model.subckts.len());
    for (k, s) in model.subckts.iter().enumerate() {
        let inst = &l.instances[k];
        let first = l.g.outputs().len() as u32;
        let nets = &l.inst_inputs[inst.first_input as usize..][..inst.iface.inputs.len()];
        for &net in nets {
            let lit = match net {
                NO_NET => Lit::FALSE,
                net => match l.lits[net as usize] {
                    v if v < IN_PROGRESS => Lit(v),
                    _ => Lit::FALSE,
                },
            };
            l.g.add_output("", lit);
        }
        subs.push(Sub {
            model: s.model.name.clone(),
            first,
            prefix: instance_prefix(k, s),
        });
    }
    let Lowerer { g, pseudo, .. } = l;
    // The per-net arrays are gone before the cleanup copies the AIG.
    let aig = g.into_cleanup();
    Ok(BoxLowered {
        model: ModelBox {
            aig,
            n_in: model.inputs.len() as u32,
            n_out: model.outputs.len() as u32,
            pseudo,
            subs,
        },
        warnings,
        undriven,
    })
}

/// The warning of the `k`-th `.subckt` of a model, `s`, whose input pins `open` (quoted)
/// are connected to no net: they read as constant 0.
fn unconnected_warning(k: usize, s: &Subckt, open: &[String]) -> Diagnostic {
    const SHOWN: usize = 8;
    let inst = instance_prefix(k, s);
    let inst = inst.trim_end_matches('/');
    let model = &s.model.name;
    let mut names = open
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if open.len() > SHOWN {
        names.push_str(&format!(" and {} more", open.len() - SHOWN));
    }
    let message = match open.len() {
        1 => format!(
            "input pin {names} of instance `{inst}` (`.subckt {model}`) is not connected; \
             it reads as constant 0"
        ),
        n => format!(
            "{n} input pins of instance `{inst}` (`.subckt {model}`) are not connected; \
             they read as constant 0: {names}"
        ),
    };
    Diagnostic::warning(s.span, message).with_code(Code::UnconnectedPin)
}

/// The latch-name prefix of the `k`-th `.subckt` of a model: its `.cname`, or
/// `<model>_<k>`, then `/`.
fn instance_prefix(k: usize, s: &Subckt) -> String {
    match &s.instance {
        Some(n) => format!("{n}/"),
        None => format!("{}_{k}/", s.model.name),
    }
}

/// What a parent needs of the lowered model `b`, given the interfaces of the models `b`
/// instantiates.
pub fn interface(b: &ModelBox, children: &Children) -> Interface {
    interface_in(b, children, &mut super::hier::Scratch::default())
}

fn interface_in(b: &ModelBox, children: &Children, sc: &mut super::hier::Scratch) -> Interface {
    let ports = |p: &[super::Port]| p.iter().map(|p| p.name.clone()).collect();
    let kids: Vec<&Interface> = (0..b.subs.len())
        .map(|k| children(k).unwrap_or(&EMPTY))
        .collect();
    let (out_support, latch_support) = super::hier::supports(b, &kids, sc);
    let flat = (kids.iter().map(|c| c.flat)).fold(b.aig.nodes().len() as u64, u64::saturating_add);
    Interface {
        inputs: ports(&b.aig.inputs()[..b.n_in as usize]),
        outputs: ports(&b.aig.outputs()[..b.n_out as usize]),
        out_support,
        latch_support,
        flat,
    }
}

static EMPTY: Interface = Interface {
    inputs: Vec::new(),
    outputs: Vec::new(),
    out_support: Vec::new(),
    latch_support: Vec::new(),
    flat: 0,
};

/// Model indices in an order where every model comes after the models it instantiates
/// (model `i`'s `.subckt`s instantiate `kids[first[i]..first[i + 1]]`).
fn topological(
    models: &[Model],
    first: &[u32],
    kids: &[u32],
    limits: &Limits,
) -> Result<Vec<u32>, Diagnostic> {
    const NEW: u8 = 0;
    const ACTIVE: u8 = 1;
    const DONE: u8 = 2;
    let mut mark = vec![NEW; models.len()];
    let mut order = Vec::with_capacity(models.len());
    // (model, index of the next .subckt to visit)
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for root in 0..models.len() as u32 {
        if mark[root as usize] != NEW {
            continue;
        }
        stack.push((root, 0));
        mark[root as usize] = ACTIVE;
        while let Some((m, i)) = stack.pop() {
            let mine = &kids[first[m as usize] as usize..first[m as usize + 1] as usize];
            let Some(&child) = mine.get(i as usize) else {
                mark[m as usize] = DONE;
                order.push(m);
                continue;
            };
            stack.push((m, i + 1));
            if child == NONE {
                continue; // lower_box reports it
            }
            let s = &models[m as usize].subckts[i as usize];
            match mark[child as usize] {
                DONE => {}
                ACTIVE => {
                    let path: Vec<&str> = (stack.iter())
                        .map(|&(m, _)| models[m as usize].name.as_str())
                        .collect();
                    let child = &models[child as usize].name;
                    return Err(Diagnostic::error(
                        s.model.span,
                        format!("recursive model instantiation: `{child}` instantiates itself"),
                    )
                    .with_note(format!(
                        "instantiation chain: {} -> {child}",
                        path.join(" -> ")
                    ))
                    .with_code(Code::RecursiveModel));
                }
                _ => {
                    limits.check_at(
                        Limit::Depth,
                        stack.len() as u64,
                        s.model.span,
                        "model hierarchy depth",
                    )?;
                    mark[child as usize] = ACTIVE;
                    stack.push((child, 0));
                }
            }
        }
    }
    Ok(order)
}

#[derive(Clone, Copy, Debug)]
enum Driver {
    None,
    Input,
    Latch,
    Cover(u32),
    Conn(u32),
    /// Output `pin` of instance `inst`.
    SubOut {
        inst: u32,
        pin: u32,
    },
}

/// A [`Driver`] in four bytes (the per-net array is the lowering's largest): a 3-bit kind
/// and an index (of the cover, the `.conn`, or the instance output in
/// [`Lowerer::sub_outs`]).
#[derive(Clone, Copy)]
struct Packed(u32);

impl Packed {
    const NONE: Packed = Packed(0);
    /// The largest index that fits.
    const MAX: usize = (u32::MAX >> 3) as usize;

    fn new(kind: u32, index: usize) -> Packed {
        Packed((index as u32) << 3 | kind)
    }
}

const UNVISITED: u32 = u32::MAX;
const IN_PROGRESS: u32 = u32::MAX - 1;
/// An instance input connected to no net (reads 0).
const NO_NET: u32 = u32::MAX;

/// A `.subckt` instance during lowering.
struct Instance<'c> {
    iface: &'c Interface,
    /// Where the instance's inputs start in [`Lowerer::inst_inputs`].
    first_input: u32,
    span: Span,
}

/// A pin of an instantiated model.
#[derive(Clone, Copy)]
enum Pin {
    In(u32),
    Out(u32),
}

/// Interfaces with more pins than this are searched through a hash map.
const SCAN_PINS: usize = 16;

struct Lowerer<'m, 'c> {
    model: &'m Model,
    g: Aig,
    drivers: Vec<Packed>,
    /// `(instance, output pin)` of each net an instance output drives.
    sub_outs: Vec<(u32, u32)>,
    /// Net → literal, or `UNVISITED` / `IN_PROGRESS`.
    lits: Vec<u32>,
    instances: Vec<Instance<'c>>,
    /// Per instance, per input of its model: the parent net (or `NO_NET`).
    inst_inputs: Vec<u32>,
    /// Pin name → pin, per large interface (by address).
    pins: FxHashMap<usize, FxHashMap<&'c str, Pin>>,
    /// Per output pin: the last instance (+ 1) that connected it.
    out_seen: Vec<u32>,
    undriven: Vec<u32>,
    /// The warnings of instances with input pins left unconnected, in `.subckt` order.
    unconnected: Vec<Diagnostic>,
    /// The instance output `(inst, pin)` of each extra input, in order.
    pseudo: Vec<(u32, u32)>,
    /// The walk of [`Lowerer::resolve`].
    stack: Vec<u32>,
}

/// The AND nodes a model's own covers need when each becomes a sum of products: one per
/// literal beyond the first in a cube, one per cube beyond the first (exact for gates).
fn and_estimate(m: &Model) -> usize {
    let rows: usize = m.covers.iter().map(|c| c.rows.max(1) as usize).sum();
    (m.fanins.len() + rows).saturating_sub(2 * m.covers.len()) + m.covers.len() / 8
}

impl<'m, 'c> Lowerer<'m, 'c> {
    /// Collect the drivers of `model` and lower every net it needs.
    fn run(model: &'m Model, children: &Children<'c>) -> Result<Self, Diagnostic> {
        let n = model.nets.len();
        let mut l = Lowerer {
            model,
            g: Aig::new(model.name.clone()),
            drivers: vec![Packed::NONE; n],
            sub_outs: Vec::new(),
            lits: vec![UNVISITED; n],
            instances: Vec::with_capacity(model.subckts.len()),
            inst_inputs: Vec::new(),
            pins: FxHashMap::default(),
            out_seen: Vec::new(),
            undriven: Vec::new(),
            unconnected: Vec::new(),
            pseudo: Vec::new(),
            stack: Vec::new(),
        };
        if (model.covers.len().max(model.conns.len())).max(model.pins.len()) > Packed::MAX {
            return Err(Diagnostic::error(
                model.span,
                format!("model `{}` has too many covers or pins", model.name),
            ));
        }
        l.g.reserve(and_estimate(model));
        l.collect_drivers(children)?;
        l.lower()?;
        Ok(l)
    }

    fn net(&mut self, net: Net) -> u32 {
        net.id
    }

    fn driver(&self, net: u32) -> Driver {
        let d = self.drivers[net as usize].0;
        let i = d >> 3;
        match d & 7 {
            0 => Driver::None,
            1 => Driver::Input,
            2 => Driver::Latch,
            3 => Driver::Cover(i),
            4 => Driver::Conn(i),
            _ => {
                let (inst, pin) = self.sub_outs[i as usize];
                Driver::SubOut { inst, pin }
            }
        }
    }

    /// Where `net` is first mentioned, in the order drivers are collected (then latch
    /// inputs): found again when a diagnostic needs it, instead of recorded for every net.
    fn first_mention(&self, net: u32) -> Option<Span> {
        let m = self.model;
        let mut refs = (m.inputs.iter())
            .chain(m.latches.iter().map(|l| &l.output))
            .chain(
                m.covers
                    .iter()
                    .flat_map(|c| std::iter::once(&c.output).chain(m.cover_inputs(c))),
            )
            .chain(m.conns.iter().flat_map(|(src, dst)| [dst, src]))
            .chain(m.pins.iter().map(|p| &p.actual))
            .chain(m.outputs.iter())
            .chain(m.latches.iter().map(|l| &l.input));
        refs.find(|n| n.id == net).map(|n| n.span)
    }

    fn name(&self, net: u32) -> &'m str {
        &self.model.nets[net as usize]
    }

    fn drive(&mut self, net: Net, d: Driver) -> Result<u32, Diagnostic> {
        let id = self.net(net);
        if !matches!(self.driver(id), Driver::None) {
            let name = self.name(id);
            return Err(Diagnostic::error(
                net.span,
                format!("net `{name}` is driven more than once"),
            )
            .with_note(format!("it is already driven by {}", self.describe(id))));
        }
        self.drivers[id as usize] = match d {
            Driver::None => Packed::NONE,
            Driver::Input => Packed::new(1, 0),
            Driver::Latch => Packed::new(2, 0),
            Driver::Cover(c) => Packed::new(3, c as usize),
            Driver::Conn(c) => Packed::new(4, c as usize),
            Driver::SubOut { inst, pin } => {
                self.sub_outs.push((inst, pin));
                Packed::new(5, self.sub_outs.len() - 1)
            }
        };
        Ok(id)
    }

    fn describe(&self, net: u32) -> String {
        match self.driver(net) {
            Driver::None => "nothing".into(),
            Driver::Input => "a primary input (`.inputs`)".into(),
            Driver::Latch => "a `.latch`".into(),
            Driver::Cover(_) => "a `.names` cover".into(),
            Driver::Conn(_) => "a `.conn`".into(),
            // From the model (the instance may still be being connected).
            Driver::SubOut { inst, .. } => {
                let sub = self.model.subckts.get(inst as usize);
                format!(
                    "an output of `.subckt {}`",
                    sub.map_or("?", |s| s.model.name.as_str())
                )
            }
        }
    }

    fn collect_drivers(&mut self, children: &Children<'c>) -> Result<(), Diagnostic> {
        let m = self.model;
        for &p in &m.inputs {
            let id = self.drive(p, Driver::Input)?;
            self.lits[id as usize] = self.g.add_input(self.name(id)).0;
        }
        for l in &m.latches {
            let id = self.drive(l.output, Driver::Latch)?;
            self.lits[id as usize] = self.g.add_latch(self.name(id), l.init).0;
        }
        for (i, c) in m.covers.iter().enumerate() {
            self.drive(c.output, Driver::Cover(i as u32))?;
            for &n in m.cover_inputs(c) {
                self.net(n);
            }
        }
        for (i, &(src, dst)) in m.conns.iter().enumerate() {
            self.drive(dst, Driver::Conn(i as u32))?;
            self.net(src);
        }
        for (k, s) in m.subckts.iter().enumerate() {
            let Some(iface) = children(k) else {
                return Err(Diagnostic::error(
                    s.model.span,
                    format!("unknown model `{}`", s.model.name),
                )
                .with_code(Code::UnknownModel));
            };
            self.instance(s, iface)?;
        }
        for &p in &m.outputs {
            self.net(p);
        }
        Ok(())
    }

    fn instance(&mut self, s: &'m Subckt, iface: &'c Interface) -> Result<(), Diagnostic> {
        let inst = self.instances.len() as u32;
        let first_input = self.inst_inputs.len();
        self.inst_inputs
            .resize(first_input + iface.inputs.len(), NO_NET);
        if self.out_seen.len() < iface.outputs.len() {
            self.out_seen.resize(iface.outputs.len(), 0);
        }
        let m = self.model;
        for pin in m.subckt_pins(s) {
            let (formal, actual) = (m.formal(pin), pin.actual);
            let twice =
                || Diagnostic::error(pin.span, format!("pin `{formal}` is connected twice"));
            match self.pin(iface, formal) {
                Some(Pin::In(i)) => {
                    let slot = &mut self.inst_inputs[first_input + i as usize];
                    if *slot != NO_NET {
                        return Err(twice());
                    }
                    *slot = actual.id;
                }
                Some(Pin::Out(j)) => {
                    if std::mem::replace(&mut self.out_seen[j as usize], inst + 1) == inst + 1 {
                        return Err(twice());
                    }
                    self.drive(actual, Driver::SubOut { inst, pin: j })?;
                }
                None => {
                    return Err(Diagnostic::error(
                        pin.span,
                        format!("model `{}` has no pin `{formal}`", s.model.name),
                    ));
                }
            }
        }
        let open: Vec<String> = (iface.inputs.iter())
            .zip(&self.inst_inputs[first_input..])
            .filter(|&(_, &net)| net == NO_NET)
            .map(|(name, _)| format!("`{name}`"))
            .collect();
        if !open.is_empty() {
            self.unconnected
                .push(unconnected_warning(inst as usize, s, &open));
        }
        self.instances.push(Instance {
            iface,
            first_input: first_input as u32,
            span: s.span,
        });
        Ok(())
    }

    /// The pin `name` of `iface` (an input first; the first of equal outputs).
    fn pin(&mut self, iface: &'c Interface, name: &str) -> Option<Pin> {
        if iface.inputs.len() + iface.outputs.len() <= SCAN_PINS {
            if let Some(i) = iface.inputs.iter().position(|p| p == name) {
                return Some(Pin::In(i as u32));
            }
            let j = iface.outputs.iter().position(|p| p == name)?;
            return Some(Pin::Out(j as u32));
        }
        let map = self
            .pins
            .entry(iface as *const Interface as usize)
            .or_insert_with(|| {
                let mut map = FxHashMap::default();
                for (j, p) in iface.outputs.iter().enumerate().rev() {
                    map.insert(p.as_str(), Pin::Out(j as u32));
                }
                for (i, p) in iface.inputs.iter().enumerate() {
                    map.insert(p.as_str(), Pin::In(i as u32));
                }
                map
            });
        map.get(name).copied()
    }

    fn lower(&mut self) -> Result<(), Diagnostic> {
        let m = self.model;
        for &p in &m.outputs {
            let lit = self.resolve(p.id)?;
            self.g.add_output(self.name(p.id), lit);
        }
        for (i, l) in m.latches.iter().enumerate() {
            let id = self.net(l.input);
            let next = self.resolve(id)?;
            let q = self.g.latches()[i].var;
            self.g.set_latch_next(Lit::new(q, false), next);
        }
        // The instances' latches are instantiated when the top is flattened; the nets they
        // need are resolved here.
        for k in 0..self.instances.len() {
            let inst = &self.instances[k];
            let (iface, first) = (inst.iface, inst.first_input as usize);
            for &i in &iface.latch_support {
                match self.inst_inputs[first + i as usize] {
                    NO_NET => {}
                    net => {
                        self.resolve(net)?;
                    }
                }
            }
        }
        // Everything else, so that loops in logic no output uses are reported too.
        for id in 0..m.nets.len() as u32 {
            if matches!(self.driver(id), Driver::Cover(_) | Driver::Conn(_)) {
                self.resolve(id)?;
            }
        }
        Ok(())
    }

    /// Push the unvisited nets `net` depends on combinationally; a dependency that is in
    /// progress closes a loop.
    fn push_deps(&mut self, net: u32, stack: &mut Vec<u32>) -> Result<(), u32> {
        let visit = |d: u32, lits: &[u32], stack: &mut Vec<u32>| match lits[d as usize] {
            UNVISITED => {
                stack.push(d);
                Ok(())
            }
            IN_PROGRESS => Err(d),
            _ => Ok(()),
        };
        match self.driver(net) {
            Driver::None | Driver::Input | Driver::Latch => Ok(()),
            Driver::Cover(c) => {
                let m = self.model;
                for n in m.cover_inputs(&m.covers[c as usize]) {
                    visit(n.id, &self.lits, stack)?;
                }
                Ok(())
            }
            Driver::Conn(c) => visit(self.model.conns[c as usize].0.id, &self.lits, stack),
            Driver::SubOut { inst, pin } => {
                let inst = &self.instances[inst as usize];
                let inputs = &self.inst_inputs[inst.first_input as usize..];
                for &i in &inst.iface.out_support[pin as usize] {
                    match inputs[i as usize] {
                        NO_NET => {}
                        d => visit(d, &self.lits, stack)?,
                    }
                }
                Ok(())
            }
        }
    }

    /// The literal of `root`, computing every net it depends on first (iteratively).
    fn resolve(&mut self, root: u32) -> Result<Lit, Diagnostic> {
        if self.lits[root as usize] < IN_PROGRESS {
            return Ok(Lit(self.lits[root as usize]));
        }
        // The stack of the last walk, emptied, kept for its capacity.
        let mut stack = std::mem::take(&mut self.stack);
        stack.push(root);
        while let Some(&net) = stack.last() {
            match self.lits[net as usize] {
                UNVISITED => {
                    self.lits[net as usize] = IN_PROGRESS;
                    if let Err(back) = self.push_deps(net, &mut stack) {
                        return Err(self.loop_error(&stack, back));
                    }
                }
                IN_PROGRESS => {
                    let lit = self.compute(net);
                    self.lits[net as usize] = lit.0;
                    stack.pop();
                }
                _ => {
                    stack.pop();
                }
            }
        }
        self.stack = stack;
        Ok(Lit(self.lits[root as usize]))
    }

    /// The literal of `net`, whose dependencies are all computed.
    fn compute(&mut self, net: u32) -> Lit {
        match self.driver(net) {
            Driver::None => {
                self.undriven.push(net);
                Lit::FALSE
            }
            Driver::Input | Driver::Latch => Lit(self.lits[net as usize]),
            Driver::Cover(c) => {
                let m = self.model;
                let cover = &m.covers[c as usize];
                let inputs = m.cover_inputs(cover);
                // Small covers (the common case) avoid a heap allocation.
                let mut small = [Lit::FALSE; 8];
                let large: Vec<Lit>;
                let slice: &[Lit] = if inputs.len() <= small.len() {
                    for (k, n) in inputs.iter().enumerate() {
                        small[k] = Lit(self.lits[n.id as usize]);
                    }
                    &small[..inputs.len()]
                } else {
                    large = inputs
                        .iter()
                        .map(|n| Lit(self.lits[n.id as usize]))
                        .collect();
                    &large
                };
                sop::lower_cover(
                    &mut self.g,
                    slice,
                    m.cover_planes(cover),
                    cover.rows as usize,
                    cover.on_set,
                )
            }
            Driver::Conn(c) => Lit(self.lits[self.model.conns[c as usize].0.id as usize]),
            Driver::SubOut { inst, pin } => {
                self.pseudo.push((inst, pin));
                self.g.add_input("")
            }
        }
    }

    fn loop_error(&self, stack: &[u32], back: u32) -> Diagnostic {
        let from = stack.iter().position(|&n| n == back).unwrap_or(0);
        let mut path: Vec<&str> = stack[from..]
            .iter()
            .filter(|&&n| self.lits[n as usize] == IN_PROGRESS)
            .map(|&n| self.name(n))
            .collect();
        path.dedup();
        path.push(self.name(back));
        let span = self.driver_span(back);
        Diagnostic::error(
            span,
            format!("combinational loop through net `{}`", self.name(back)),
        )
        .with_note(format!("loop: {}", path.join(" -> ")))
    }

    fn driver_span(&self, net: u32) -> Span {
        match self.driver(net) {
            Driver::Cover(c) => self.model.covers[c as usize].span,
            Driver::Conn(c) => self.model.conns[c as usize].1.span,
            Driver::SubOut { inst, .. } => self.instances[inst as usize].span,
            _ => self.first_mention(net).unwrap_or(self.model.span),
        }
    }

    /// The undriven nets: their warnings and their names.
    fn undriven_report(&self) -> (Vec<Diagnostic>, Vec<String>) {
        let names = self
            .undriven
            .iter()
            .map(|&n| self.name(n).to_string())
            .collect();
        (self.undriven_warnings(), names)
    }

    /// One warning for the nets read without a driver, at the first one's first mention,
    /// naming up to eight of them: a model's undriven outputs are one fact, and a library
    /// of such units would otherwise print thousands of lines.
    fn undriven_warnings(&self) -> Vec<Diagnostic> {
        const SHOWN: usize = 8;
        let Some(&first) = self.undriven.first() else {
            return Vec::new();
        };
        let at = self.first_mention(first).unwrap_or(self.model.span);
        let message = match self.undriven.len() {
            1 => format!(
                "net `{}` has no driver; it reads as constant 0",
                self.name(first)
            ),
            n => {
                let names: Vec<String> = (self.undriven.iter().take(SHOWN))
                    .map(|&net| format!("`{}`", self.name(net)))
                    .collect();
                let more = match n > SHOWN {
                    true => format!(" and {} more", n - SHOWN),
                    false => String::new(),
                };
                format!(
                    "{n} nets have no driver; they read as constant 0: {}{more}",
                    names.join(", ")
                )
            }
        };
        vec![Diagnostic::warning(at, message).with_code(Code::BlifWarning)]
    }
}
