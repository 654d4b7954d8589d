//! BLIF model → AIG, one model at a time.
//!
//! [`lower_model`] lowers ONE model given the already-lowered AIGs of the models it
//! instantiates. Nets are resolved on demand by an iterative depth-first walk (no recursion,
//! so 25k-level netlists do not overflow the stack). A `.subckt` output pin is resolved by
//! copying only the cone of that child output into the parent, after resolving just the
//! parent nets wired to the child inputs in that cone's support: dependencies are tracked per
//! output pin, so a net that leaves an instance and comes back into another input of the same
//! instance is not a loop unless the child really connects them combinationally.
//!
//! Each instance's latches are created up front (named `<instance>/<child latch name>`, the
//! instance being its `.cname` or `<model>_<k>` for the k-th `.subckt` line) and their next
//! states are copied at the end. Latches are cut points, so only purely combinational
//! cycles are loops; those are errors, with the cycle in a note. Nets without a driver read
//! as constant 0 and are reported (in [`Lowered::undriven`] and as warnings).
//!
//! [`lower_file`] lowers every model of a file bottom-up (children first); `.subckt` of an
//! unknown model and recursive instantiation are errors.

use super::{Aig, Lit, Node, sop};
use crate::blif::{BlifFile, Model, Net, Subckt};
use crate::diag::{Diagnostic, Span};
use crate::fxhash::FxHashMap;
use crate::limits::{Limit, Limits};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One lowered model: its AIG (cleaned up, AIGER-ordered), warnings, undriven net names.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Lowered {
    pub aig: Aig,
    pub warnings: Vec<Diagnostic>,
    /// Nets that had no driver and were read as constant 0, in first-use order.
    pub undriven: Vec<String>,
}

/// All models of one file, lowered; `top` is the first model.
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

/// Lower every model of `file` bottom-up, under the default [`Limits`].
pub fn lower_file(file: &BlifFile) -> Result<LoweredFile, Diagnostic> {
    lower_file_with(file, &Limits::DEFAULT)
}

/// Lower `file`: every model is checked and lowered once on its own, its instances kept as
/// boxes ([`BoxModel`]), children first; then the top model is flattened by instantiating
/// those per-model AIGs top-down ([`super::hier::flatten`]). The cost is linear in the text
/// plus the flattened output, whatever the depth of the hierarchy. The hierarchy's depth is
/// checked against `limits.max_depth` before anything is lowered, and each model's flattened
/// size bound (its instances' bounds plus its own covers) against `limits.max_nodes`, so a
/// hierarchy that doubles at every level is refused instead of exhausting memory.
///
/// `models` holds the top model only; its warnings and undriven nets are those of every
/// model, in model-name order.
pub fn lower_file_with(file: &BlifFile, limits: &Limits) -> Result<LoweredFile, Diagnostic> {
    let mut by_name: BTreeMap<&str, &Model> = BTreeMap::new();
    for m in &file.models {
        if by_name.insert(&m.name, m).is_some() {
            return Err(Diagnostic::error(
                m.span,
                format!("model `{}` is defined twice", m.name),
            ));
        }
    }
    let order = topological(file, &by_name, limits)?;
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut boxes: Vec<BoxModel> = Vec::with_capacity(order.len());
    let mut diags: BTreeMap<&str, (Vec<Diagnostic>, Vec<String>)> = BTreeMap::new();
    let top = &file.models[0];
    let instantiated: std::collections::BTreeSet<&str> = (file.models.iter())
        .flat_map(|m| m.subckts.iter().map(|s| s.model.name.as_str()))
        .collect();
    for m in order {
        let bound = size_bound(m, &index, &boxes);
        limits
            .check(Limit::Nodes, bound)
            .map_err(|e| Diagnostic::error(m.span, format!("model `{}`: {e}", m.name)))?;
        let (b, warnings, undriven) =
            lower_box(m, &index, &boxes, instantiated.contains(m.name.as_str()))?;
        diags.insert(&m.name, (warnings, undriven));
        index.insert(&m.name, boxes.len());
        boxes.push(b);
    }
    let root = index[top.name.as_str()];
    let aig = super::hier::flatten(boxes, root, &top.name)?;
    let mut warnings = Vec::new();
    let mut undriven = Vec::new();
    for (_, (w, u)) in diags {
        warnings.extend(w);
        undriven.extend(u);
    }
    let mut models = BTreeMap::new();
    models.insert(
        top.name.clone(),
        Lowered {
            aig,
            warnings,
            undriven,
        },
    );
    Ok(LoweredFile {
        top: top.name.clone(),
        models,
    })
}

/// An upper bound on the AIG nodes of `m` once flattened: its instances' bounds, plus a few
/// nodes per cover literal, latch and input.
fn size_bound(m: &Model, index: &BTreeMap<&str, usize>, boxes: &[BoxModel]) -> u64 {
    let children: u64 = m
        .subckts
        .iter()
        .map(|s| {
            index
                .get(s.model.name.as_str())
                .map_or(0, |&i| boxes[i].flat)
        })
        .fold(0u64, u64::saturating_add);
    let own = 2 * (m.planes.len() + m.covers.len() + m.conns.len()) as u64;
    children
        .saturating_add(own)
        .saturating_add((m.inputs.len() + m.latches.len() + 1) as u64)
}

/// One model lowered on its own, its `.subckt` instances left as boxes: the AIG has the
/// model's inputs followed by one input per instance output it uses (`pseudo`), and the
/// model's outputs followed by, for each instance `k` from `in_base[k]`, one output per
/// input of the instance's model (constant 0 where unconnected or never needed).
pub(super) struct BoxModel {
    pub aig: Aig,
    pub n_in: usize,
    pub n_out: usize,
    /// Extra input `n_in + t` is output `pin` of instance `inst`.
    pub pseudo: Vec<(u32, u32)>,
    /// Per instance: its model (index into the boxes), the first of its input outputs, and
    /// the prefix of its latch names.
    pub subs: Vec<(usize, usize, String)>,
    /// Per output (of the model): the model inputs it depends on combinationally, through
    /// instances too (sorted); only for models some other model instantiates.
    pub out_support: Vec<Vec<u32>>,
    /// The model inputs any latch of the model or of its instances depends on.
    pub latch_support: Vec<u32>,
    /// An upper bound on the ANDs and latches of the model flattened (its own plus its
    /// instances' bounds).
    pub flat: u64,
}

fn lower_box(
    model: &Model,
    index: &BTreeMap<&str, usize>,
    boxes: &[BoxModel],
    instantiated: bool,
) -> Result<(BoxModel, Vec<Diagnostic>, Vec<String>), Diagnostic> {
    let lookup = |name: &str| index.get(name).map(|&i| Child::Boxed(&boxes[i]));
    let mut l = Lowerer::run(model, &lookup)?;
    let (warnings, undriven) = l.undriven_report();
    let n_in = model.inputs.len();
    let n_out = model.outputs.len();
    let mut subs = Vec::with_capacity(model.subckts.len());
    for (k, s) in model.subckts.iter().enumerate() {
        let Child::Boxed(b) = l.instances[k].child else {
            unreachable!("lower_box instantiates boxes only")
        };
        let first = l.g.outputs().len();
        for i in 0..b.n_in {
            let lit = match l.instances[k].inputs[i] {
                Some(net) if l.lits[net as usize] < IN_PROGRESS => Lit(l.lits[net as usize]),
                _ => Lit::FALSE,
            };
            l.g.add_output("", lit);
        }
        let prefix = match &s.instance {
            Some(n) => format!("{n}/"),
            None => format!("{}_{k}/", s.model.name),
        };
        subs.push((index[s.model.name.as_str()], first, prefix));
    }
    let pseudo = std::mem::take(&mut l.pseudo);
    let aig = std::mem::replace(&mut l.g, Aig::new("")).into_cleanup();
    // Flattened, the model holds its own ANDs and latches and its instances' (its inputs
    // and the instances' inputs are the parent's nets).
    let own = (aig.and_count() + aig.latches().len()) as u64;
    let flat = (subs.iter().map(|s| boxes[s.0].flat)).fold(own, u64::saturating_add);
    let mut b = BoxModel {
        aig,
        n_in,
        n_out,
        pseudo,
        subs,
        out_support: Vec::new(),
        latch_support: Vec::new(),
        flat,
    };
    if instantiated {
        super::hier::supports(&mut b, boxes);
    }
    Ok((b, warnings, undriven))
}

/// Models in an order where every model comes after the models it instantiates.
fn topological<'a>(
    file: &'a BlifFile,
    by_name: &BTreeMap<&str, &'a Model>,
    limits: &Limits,
) -> Result<Vec<&'a Model>, Diagnostic> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Done,
    }
    let mut mark: BTreeMap<&str, Mark> = by_name.keys().map(|k| (*k, Mark::New)).collect();
    let mut order = Vec::new();
    for root in &file.models {
        if mark[root.name.as_str()] != Mark::New {
            continue;
        }
        // (model, index of the next .subckt to visit)
        let mut stack: Vec<(&Model, usize)> = vec![(root, 0)];
        mark.insert(&root.name, Mark::Active);
        while let Some((m, i)) = stack.pop() {
            let Some(s) = m.subckts.get(i) else {
                mark.insert(&m.name, Mark::Done);
                order.push(m);
                continue;
            };
            stack.push((m, i + 1));
            let Some(child) = by_name.get(s.model.name.as_str()) else {
                continue; // lower_model reports it, or the caller supplies it
            };
            match mark[child.name.as_str()] {
                Mark::Done => {}
                Mark::Active => {
                    let path: Vec<&str> = stack.iter().map(|(m, _)| m.name.as_str()).collect();
                    return Err(Diagnostic::error(
                        s.model.span,
                        format!(
                            "recursive model instantiation: `{}` instantiates itself",
                            child.name
                        ),
                    )
                    .with_note(format!(
                        "instantiation chain: {} -> {}",
                        path.join(" -> "),
                        child.name
                    )));
                }
                Mark::New => {
                    limits
                        .check(Limit::Depth, stack.len() as u64)
                        .map_err(|e| {
                            Diagnostic::error(s.model.span, format!("model hierarchy depth: {e}"))
                        })?;
                    mark.insert(&child.name, Mark::Active);
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

/// The lowered model a `.subckt` instantiates: flattened, or a box (its own logic only).
#[derive(Clone, Copy)]
enum Child<'c> {
    Flat(&'c Aig),
    Boxed(&'c BoxModel),
}

impl<'c> Child<'c> {
    fn inputs(self) -> &'c [super::Port] {
        match self {
            Child::Flat(g) => g.inputs(),
            Child::Boxed(b) => &b.aig.inputs()[..b.n_in],
        }
    }

    fn outputs(self) -> &'c [super::Port] {
        match self {
            Child::Flat(g) => g.outputs(),
            Child::Boxed(b) => &b.aig.outputs()[..b.n_out],
        }
    }
}

/// A `.subckt` instance during lowering.
struct Instance<'c> {
    child: Child<'c>,
    /// Child input index → parent net (None: unconnected, reads 0).
    inputs: Vec<Option<u32>>,
    /// Child variable → parent literal (`UNVISITED` when not copied yet; flat children).
    map: Vec<u32>,
    span: Span,
}

struct Lowerer<'m, 'c> {
    model: &'m Model,
    g: Aig,
    drivers: Vec<Packed>,
    /// `(instance, output pin)` of each net an instance output drives.
    sub_outs: Vec<(u32, u32)>,
    /// Net → literal, or `UNVISITED` / `IN_PROGRESS`.
    lits: Vec<u32>,
    instances: Vec<Instance<'c>>,
    /// Child AIG (by address) → per output: supporting child input indices.
    supports: FxHashMap<usize, Vec<Option<Vec<u32>>>>,
    /// Child AIG (by address) → visit marks for cone walks.
    marks: FxHashMap<usize, Marks>,
    undriven: Vec<u32>,
    /// Boxed children: the instance output `(inst, pin)` of each extra input, in order.
    pseudo: Vec<(u32, u32)>,
}

/// Lower ONE model, given the AIGs of the models it instantiates (by model name).
pub fn lower_model(model: &Model, children: &BTreeMap<String, Aig>) -> Result<Lowered, Diagnostic> {
    let lookup = |name: &str| children.get(name).map(Child::Flat);
    let l = Lowerer::run(model, &lookup)?;
    let (warnings, undriven) = l.undriven_report();
    let Lowerer { g, .. } = l;
    let mut aig = g.into_cleanup();
    if !model.subckts.is_empty() {
        // Node order as when the whole file is lowered at once.
        aig = super::hier::canonical(aig);
    }
    Ok(Lowered {
        aig,
        warnings,
        undriven,
    })
}

/// The AND nodes a model's own covers need when each becomes a sum of products: one per
/// literal beyond the first in a cube, one per cube beyond the first (exact for gates).
fn and_estimate(m: &Model) -> usize {
    let rows: usize = m.covers.iter().map(|c| c.rows.max(1) as usize).sum();
    (m.fanins.len() + rows).saturating_sub(2 * m.covers.len()) + m.covers.len() / 8
}

impl<'m, 'c> Lowerer<'m, 'c> {
    /// Collect the drivers of `model` and lower every net it needs.
    fn run(
        model: &'m Model,
        children: &dyn Fn(&str) -> Option<Child<'c>>,
    ) -> Result<Self, Diagnostic> {
        let n = model.nets.len();
        let mut l = Lowerer {
            model,
            g: Aig::new(model.name.clone()),
            drivers: vec![Packed::NONE; n],
            sub_outs: Vec::new(),
            lits: vec![UNVISITED; n],
            instances: Vec::new(),
            supports: FxHashMap::default(),
            marks: FxHashMap::default(),
            undriven: Vec::new(),
            pseudo: Vec::new(),
        };
        let pins: usize = model.subckts.iter().map(|s| s.pins.len()).sum();
        if model.covers.len().max(model.conns.len()).max(pins) > Packed::MAX {
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
            .chain(m.subckts.iter().flat_map(|s| s.pins.iter().map(|(_, a)| a)))
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

    fn collect_drivers(
        &mut self,
        children: &dyn Fn(&str) -> Option<Child<'c>>,
    ) -> Result<(), Diagnostic> {
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
            let Some(child) = children(&s.model.name) else {
                return Err(Diagnostic::error(
                    s.model.span,
                    format!("unknown model `{}`", s.model.name),
                ));
            };
            self.instance(k, s, child)?;
        }
        for &p in &m.outputs {
            self.net(p);
        }
        Ok(())
    }

    fn instance(&mut self, k: usize, s: &'m Subckt, child: Child<'c>) -> Result<(), Diagnostic> {
        let inst = self.instances.len() as u32;
        let pos_in: FxHashMap<&str, usize> = child
            .inputs()
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.as_str(), i))
            .collect();
        let mut pos_out: FxHashMap<&str, usize> = FxHashMap::default();
        for (i, p) in child.outputs().iter().enumerate() {
            pos_out.entry(p.name.as_str()).or_insert(i);
        }
        let mut inputs = vec![None; child.inputs().len()];
        let mut seen = FxHashMap::default();
        for (formal, actual) in &s.pins {
            if seen.insert(formal.name.as_str(), ()).is_some() {
                return Err(Diagnostic::error(
                    formal.span,
                    format!("pin `{}` is connected twice", formal.name),
                ));
            }
            if let Some(&i) = pos_in.get(formal.name.as_str()) {
                inputs[i] = Some(self.net(*actual));
            } else if let Some(&j) = pos_out.get(formal.name.as_str()) {
                self.drive(
                    *actual,
                    Driver::SubOut {
                        inst,
                        pin: j as u32,
                    },
                )?;
            } else {
                return Err(Diagnostic::error(
                    formal.span,
                    format!("model `{}` has no pin `{}`", s.model.name, formal.name),
                ));
            }
        }
        let prefix = match &s.instance {
            Some(n) => format!("{n}/"),
            None => format!("{}_{k}/", s.model.name),
        };
        let mut map = Vec::new();
        if let Child::Flat(child) = child {
            map = vec![UNVISITED; child.nodes().len()];
            map[0] = Lit::FALSE.0;
            for l in child.latches() {
                map[l.var as usize] = self.g.add_latch(format!("{prefix}{}", l.name), l.init).0;
            }
        }
        self.instances.push(Instance {
            child,
            inputs,
            map,
            span: s.span,
        });
        Ok(())
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
        for inst in 0..self.instances.len() {
            let child = match self.instances[inst].child {
                Child::Flat(g) => g,
                Child::Boxed(b) => {
                    // The latches are instantiated when the top is flattened; the nets
                    // they need are resolved here, as for a flat child.
                    for &i in &b.latch_support {
                        if let Some(net) = self.instances[inst].inputs[i as usize] {
                            self.resolve(net)?;
                        }
                    }
                    continue;
                }
            };
            let nexts: Vec<Lit> = child.latches().iter().map(|l| l.next).collect();
            let marks = self.marks.entry(child as *const Aig as usize).or_default();
            for i in cone_inputs(child, &nexts, marks) {
                if let Some(net) = self.instances[inst].inputs[i as usize] {
                    self.resolve(net)?;
                }
            }
            for l in child.latches() {
                let next = self.copy_cone(inst, l.next);
                let q = Lit(self.instances[inst].map[l.var as usize]);
                self.g.set_latch_next(q, next);
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

    /// Copy the cone of child literal `lit` (all its support inputs already resolved).
    fn copy_cone(&mut self, inst: usize, lit: Lit) -> Lit {
        let Child::Flat(child) = self.instances[inst].child else {
            unreachable!("only flat children are copied")
        };
        let mut todo = Vec::new();
        let mut stack = vec![lit.var()];
        while let Some(v) = stack.pop() {
            if self.instances[inst].map[v as usize] != UNVISITED {
                continue;
            }
            match child.node(v) {
                Node::And(a, b) => {
                    self.instances[inst].map[v as usize] = IN_PROGRESS;
                    todo.push(v);
                    stack.push(a.var());
                    stack.push(b.var());
                }
                Node::Input(i) => {
                    let parent = self.instances[inst].inputs[i as usize];
                    let l = parent.map_or(Lit::FALSE.0, |n| self.lits[n as usize]);
                    self.instances[inst].map[v as usize] = l;
                }
                Node::Latch(_) | Node::Const => {}
            }
        }
        todo.sort_unstable();
        for v in todo {
            if let Node::And(a, b) = child.node(v) {
                let map = &self.instances[inst].map;
                let fa = Lit(map[a.var() as usize]).xor(a.is_complemented());
                let fb = Lit(map[b.var() as usize]).xor(b.is_complemented());
                let r = self.g.add_and(fa, fb);
                self.instances[inst].map[v as usize] = r.0;
            }
        }
        Lit(self.instances[inst].map[lit.var() as usize]).xor(lit.is_complemented())
    }

    /// The support (child input indices) of output `pin` of `child`, cached per child AIG.
    fn support(&mut self, inst: usize, pin: u32) -> Vec<u32> {
        let child = match self.instances[inst].child {
            Child::Flat(g) => g,
            Child::Boxed(b) => return b.out_support[pin as usize].clone(),
        };
        let key = child as *const Aig as usize;
        let cached = self
            .supports
            .entry(key)
            .or_insert_with(|| vec![None; child.outputs().len()]);
        if let Some(s) = &cached[pin as usize] {
            return s.clone();
        }
        let marks = self.marks.entry(key).or_default();
        let s = cone_inputs(child, &[child.outputs()[pin as usize].lit], marks);
        if let Some(e) = self.supports.get_mut(&key) {
            e[pin as usize] = Some(s.clone());
        }
        s
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
                let inst = inst as usize;
                for i in self.support(inst, pin) {
                    if let Some(d) = self.instances[inst].inputs[i as usize] {
                        visit(d, &self.lits, stack)?;
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
        let mut stack = vec![root];
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
            Driver::SubOut { inst, pin } => match self.instances[inst as usize].child {
                Child::Flat(child) => {
                    self.copy_cone(inst as usize, child.outputs()[pin as usize].lit)
                }
                Child::Boxed(_) => {
                    self.pseudo.push((inst, pin));
                    self.g.add_input("")
                }
            },
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

    fn undriven_warnings(&self) -> Vec<Diagnostic> {
        const SHOWN: usize = 10;
        let mut out: Vec<Diagnostic> = self
            .undriven
            .iter()
            .take(SHOWN)
            .map(|&n| {
                Diagnostic::warning(
                    self.first_mention(n).unwrap_or(self.model.span),
                    format!(
                        "net `{}` has no driver; it reads as constant 0",
                        self.name(n)
                    ),
                )
            })
            .collect();
        if self.undriven.len() > SHOWN
            && let Some(last) = out.last_mut()
        {
            last.notes.push(format!(
                "{} more undriven nets read as constant 0",
                self.undriven.len() - SHOWN
            ));
        }
        out
    }
}

/// Visit marks for cone walks over one child AIG, reused across walks (epoch stamps).
#[derive(Default)]
pub(super) struct Marks {
    stamp: Vec<u32>,
    epoch: u32,
}

/// The input indices in the structural support of `lits` (latches are cut points), sorted.
pub(super) fn cone_inputs(g: &Aig, lits: &[Lit], marks: &mut Marks) -> Vec<u32> {
    if marks.stamp.len() != g.nodes().len() {
        marks.stamp = vec![0; g.nodes().len()];
        marks.epoch = 0;
    }
    marks.epoch += 1;
    let epoch = marks.epoch;
    let mut stack: Vec<u32> = lits.iter().map(|l| l.var()).collect();
    let mut out = Vec::new();
    while let Some(v) = stack.pop() {
        if std::mem::replace(&mut marks.stamp[v as usize], epoch) == epoch {
            continue;
        }
        match g.node(v) {
            Node::And(a, b) => {
                stack.push(a.var());
                stack.push(b.var());
            }
            Node::Input(i) => out.push(i),
            _ => {}
        }
    }
    out.sort_unstable();
    out
}
