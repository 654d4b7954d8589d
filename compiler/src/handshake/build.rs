//! Phase 4: choose an implementation per op and stitch the units into one flat AIG.
//!
//! Each op is implemented by its library unit (when the file was found, is not blackboxed
//! and has exactly the op's pins), else by a built-in generator, else it stays an opaque
//! subcircuit: its output pins become primary inputs `<op>.<pin>` of the flat AIG and its input
//! pins primary outputs `<op>.<pin>` (cut points), with a warning naming the op and the path
//! that was looked for.
//!
//! Nets are named by their driver: a top input keeps its port name; an op output pin is
//! `<op>.<pin>`. Units are bound to nets by pin name, so the library's pin order does not
//! matter. Every channel must have exactly one consumer (after fork materialisation).

use super::builtin;
use super::circuit::{Circuit, OpNode};
use super::extras;
use super::managers::{self, Manager};
use super::mark::{Builtin, UnitRef};
use super::net::{CompactError, Lit, Net};
use super::nets::{Consumers, Nets};
pub use super::nets::{NetName, Sym, Syms};
use super::signals::{Signal, signals};
use crate::diag::{Code, Diagnostic};
use crate::fxhash::FxHashMap;
use crate::limits::{Limit, Limits};
use serde::{Deserialize, Serialize};
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A library unit after BLIF → AIG lowering.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LibUnit {
    /// `.model` name in the file.
    pub model: String,
    pub net: Net,
    /// Nets read as constant 0 because nothing drives them (blackboxed units).
    pub undriven: Vec<String>,
}

/// How one op is implemented.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Impl {
    Library {
        path: String,
    },
    /// A Verilog template synthesized for the op's parameters (key:
    /// [`super::rtl::Template::key`]; `about`: its file and parameters).
    Template {
        key: String,
        about: String,
    },
    Builtin(Builtin),
    /// Channels with extra signals: the units `inner` (the op's units without extras, see
    /// [`super::managers::inner_nodes`]) inside a generated wrapper that moves the extras.
    Managed {
        manager: Manager,
        inner: Vec<Impl>,
    },
    Subckt {
        looked_for: Option<String>,
        reason: String,
    },
}

impl Impl {
    /// Where the op's logic comes from: a managed op's from its first inner unit (a
    /// `non_spec` is all built-in).
    pub fn label(&self) -> &'static str {
        match self {
            Impl::Library { .. } => "library",
            Impl::Template { .. } => "template",
            Impl::Builtin(_) => "built-in",
            Impl::Managed { inner, .. } => inner.first().map_or("built-in", Impl::label),
            Impl::Subckt { .. } => "subckt",
        }
    }

    /// What implements the op, in words (`synth-report`, the editor's hover).
    pub fn describe(&self) -> String {
        match self {
            Impl::Library { path } => format!("library   {path}"),
            Impl::Template { about, .. } => format!("template  {about}, synthesized by yosys"),
            Impl::Builtin(b) => format!("built-in  {}", b.model_name()),
            Impl::Managed { manager, inner } => {
                let parts: Vec<String> = (inner.iter())
                    .map(|i| {
                        i.describe()
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect();
                match parts.is_empty() {
                    true => format!("built-in  {}", manager.about()),
                    false => format!(
                        "{} + {} signal manager for its extra signals",
                        parts.join(" + "),
                        manager.name()
                    ),
                }
            }
            Impl::Subckt { looked_for, reason } => match looked_for {
                Some(p) => format!("subckt    (looked for {p}: {reason})"),
                None => format!("subckt    ({reason})"),
            },
        }
    }
}

/// One op instance of the flat design.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Instance {
    /// Unique instance name (the op's `handshake.name`, made unique).
    pub name: String,
    pub kind: String,
    pub imp: Impl,
    /// Unique model name for the hierarchical netlist (empty for subckts).
    pub model: String,
    /// (pin, net) for each input pin, in the unit's pin order.
    pub inputs: Vec<(Sym, NetName)>,
    /// (pin, net) for each output pin, in the unit's pin order.
    pub outputs: Vec<(Sym, NetName)>,
}

/// The result of Handshake → Synth.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SynthOutput {
    pub name: String,
    /// The flat AIG: inputs = top inputs (+ cut points), outputs = top outputs (+ cut points).
    pub flat: Net,
    /// Number of real top-level inputs/outputs (the rest are subckt cut points).
    pub(crate) top_inputs: usize,
    pub(crate) top_outputs: usize,
    pub instances: Vec<Instance>,
    /// Top outputs and the net that drives each (for the hierarchical netlist).
    pub(crate) output_nets: Vec<(String, NetName)>,
    /// The pin and port names of the nets and instances.
    pub syms: Syms,
    /// Generated models used (model name → AIG).
    pub(crate) builtins: BTreeMap<String, Net>,
    /// Library models used: unique model name → library path.
    pub(crate) library_models: BTreeMap<String, String>,
    pub warnings: Vec<Diagnostic>,
}

impl SynthOutput {
    /// The name of `net`.
    pub fn net_name(&self, net: NetName) -> impl fmt::Display + '_ {
        net.show(&self.instances, &self.syms)
    }

    /// The text of pin or port name `s`.
    pub fn sym(&self, s: Sym) -> &str {
        self.syms.text(s)
    }
}

impl AsRef<str> for Instance {
    fn as_ref(&self) -> &str {
        &self.name
    }
}

/// Chooses the implementation of `m` given the lowered library unit at its path (if read)
/// and its synthesized template unit (if made): the library file, else the template, else a
/// built-in generator. Built-in units are generated once per design (`generated`, by their
/// parameters).
pub(crate) fn choose(
    m: &UnitRef,
    node: &OpNode,
    units: &BTreeMap<String, LibUnit>,
    generated: &mut BTreeMap<Builtin, Net>,
) -> Impl {
    if m.extras {
        let Some(mg) = &m.managed else {
            let why = m.no_path.as_deref();
            return subckt(m, why.unwrap_or("its channels carry extra signals"));
        };
        let mut inner = Vec::new();
        for (im, n) in mg.inner.iter().zip(managers::inner_nodes(node, mg.manager)) {
            match choose(im, &n, units, generated) {
                Impl::Subckt { looked_for, reason } => {
                    let reason = format!(
                        "its channels carry extra signals, and the {} signal manager's unit has no AIG: {reason}",
                        mg.manager.name()
                    );
                    return Impl::Subckt { looked_for, reason };
                }
                imp => inner.push(imp),
            }
        }
        return Impl::Managed {
            manager: mg.manager,
            inner,
        };
    }
    let lib = m.path.as_ref().and_then(|p| units.get(p));
    let tpl = m.template.as_ref().and_then(|k| units.get(k));
    let (ins, outs) = signals(&node.inputs, &node.outputs, true);
    let mut why = m.no_path.clone().unwrap_or_default();
    if let Some(path) = &m.path {
        match lib {
            None => why = format!("`{path}` not found in the library"),
            Some(u) => match unit_mismatch(&u.net, &ins, &outs, &u.undriven) {
                None => return Impl::Library { path: path.clone() },
                Some(reason) => why = format!("`{path}` {reason}"),
            },
        }
    }
    match (&m.template, tpl) {
        (Some(key), Some(u)) => match unit_mismatch(&u.net, &ins, &outs, &u.undriven) {
            None => {
                let about = m.template_about.clone().unwrap_or_else(|| key.clone());
                return Impl::Template {
                    key: key.clone(),
                    about,
                };
            }
            Some(reason) => why = format!("{why}; template `{key}` {reason}"),
        },
        (Some(key), None) => {
            why =
                format!("{why}; Verilog template `{key}` not synthesized (no --rtl-lib, or W0411)")
        }
        (None, _) => {}
    }
    if let Some(b) = &m.builtin {
        let net = generated
            .entry(b.clone())
            .or_insert_with(|| builtin::generate(b));
        if unit_mismatch(net, &ins, &outs, &[]).is_none() {
            return Impl::Builtin(b.clone());
        }
    }
    subckt(m, &why)
}

fn subckt(m: &UnitRef, reason: &str) -> Impl {
    Impl::Subckt {
        looked_for: m.path.clone(),
        reason: reason.to_string(),
    }
}

/// Why `unit` cannot implement an op with these signals, if it cannot. Looked up in sets,
/// so a wide unit costs its pins' count (times a logarithm), not its square.
fn unit_mismatch(
    unit: &Net,
    ins: &[Signal],
    outs: &[Signal],
    undriven: &[String],
) -> Option<String> {
    let in_names: BTreeSet<&str> = ins.iter().map(|s| s.name.as_str()).collect();
    if let Some((p, _)) = unit
        .inputs
        .iter()
        .find(|(p, _)| !in_names.contains(p.as_str()))
    {
        return Some(format!("has input `{p}`, which the op does not have"));
    }
    let unit_outs: BTreeSet<&str> = unit.outputs.iter().map(|(n, _)| n.as_str()).collect();
    let undriven: BTreeSet<&str> = undriven.iter().map(String::as_str).collect();
    for s in outs {
        if !unit_outs.contains(s.name.as_str()) {
            return Some(format!("has no output `{}`", s.name));
        }
        if undriven.contains(s.name.as_str()) {
            return Some(format!("is blackboxed (output `{}` is undriven)", s.name));
        }
    }
    None
}

/// Builds the flat design under the default [`Limits`] ([`build_with`]).
pub fn build(
    circuit: &Circuit,
    marks: &[UnitRef],
    units: &BTreeMap<String, LibUnit>,
) -> Result<SynthOutput, Diagnostic> {
    build_with(circuit, marks, units, &Limits::DEFAULT)
}

/// Builds the flat design. `units` holds the lowered library unit of each path that was
/// found (each path lowered once by the caller). Linear in the design: each op's cost is
/// its unit's size and pins. The design's AIG nodes (its units' nodes, summed) are checked
/// against `limits` before each op is built.
pub fn build_with(
    circuit: &Circuit,
    marks: &[UnitRef],
    units: &BTreeMap<String, LibUnit>,
    limits: &Limits,
) -> Result<SynthOutput, Diagnostic> {
    let mut cut = BTreeMap::new();
    loop {
        match build_cut(circuit, marks, units, limits, &cut)? {
            Ok(out) => return Ok(out),
            Err(Looped { error, path, ops }) => {
                // Cut the loop at the first unit on it that kiln built itself, once.
                let pick = ops.into_iter().find(|op| !cut.contains_key(op));
                match pick {
                    Some(op) if cut.len() < MAX_CUTS => {
                        let reason = format!(
                            "its logic closes a combinational loop of the design ({path}), which an AIG cannot hold; it is the cut point"
                        );
                        cut.insert(op, reason);
                    }
                    _ => return Err(error),
                }
            }
        }
    }
}

/// Loops a design may have cut open at units kiln built before it is refused.
const MAX_CUTS: usize = 64;

/// A build that met a combinational loop: the error, the loop's nets (shown), and the ops
/// on it whose unit kiln built (a built-in generator, or a signal manager's wrapper), in
/// loop order.
struct Looped {
    error: Diagnostic,
    path: String,
    ops: Vec<usize>,
}

/// [`build_with`] with the ops of `cut` kept opaque (with the reason given).
fn build_cut(
    circuit: &Circuit,
    marks: &[UnitRef],
    units: &BTreeMap<String, LibUnit>,
    limits: &Limits,
    cut: &BTreeMap<usize, String>,
) -> Result<Result<SynthOutput, Looped>, Diagnostic> {
    let mut nets = Nets {
        circuit,
        consumers: Consumers::of(circuit)?,
        syms: Syms::default(),
    };
    if u32::try_from(circuit.ops.len()).is_err() {
        return Err(Diagnostic::global_error("more than 2^32 ops in one design"));
    }
    let names = unique_names(circuit);
    let mut b = Builder {
        net: Net::new(),
        wires: FxHashMap::default(),
        names: &names,
    };
    let (top_in, top_out) = signals(&circuit.args, &circuit.results, true);
    // Top inputs drive nets of their own name.
    for s in &top_in {
        let l = b.net.input(s.name.clone());
        b.drive(nets.port(&s.name), l, &nets.syms)?;
    }
    let mut warnings = circuit.warnings.clone();
    let mut instances = Vec::with_capacity(circuit.ops.len());
    let mut builtins = BTreeMap::new();
    let mut library_models = BTreeMap::new();
    let mut cut_outputs = Vec::new();
    let mut generated = BTreeMap::new();
    let mut kiln_built = Vec::with_capacity(circuit.ops.len());
    let mut nodes = b.net.nodes.len() as u64;
    for (i, node) in circuit.ops.iter().enumerate() {
        let m = marks
            .get(i)
            .ok_or_else(|| Diagnostic::error(node.span, "no mark for this op"))?;
        let imp = match cut.get(&i) {
            Some(reason) => Impl::Subckt {
                looked_for: None,
                reason: reason.clone(),
            },
            None => choose(m, node, units, &mut generated),
        };
        kiln_built.push(matches!(imp, Impl::Builtin(_) | Impl::Managed { .. }));
        let inst_name = &names[i];
        let (ins, outs) = signals(&node.inputs, &node.outputs, true);
        let (unit, model) = match &imp {
            Impl::Library { .. } | Impl::Template { .. } => {
                let (net, model, path) = unit_of(&imp, units, &generated);
                library_models.insert(model.clone(), path.to_string());
                (net, model)
            }
            Impl::Builtin(bi) => {
                let unit = (builtins.entry(bi.model_name()))
                    .or_insert_with(|| generated.get(bi).cloned().unwrap_or_default());
                (&*unit, bi.model_name())
            }
            Impl::Managed { manager, inner } => {
                let parts: Vec<(&Net, String, &str)> = inner
                    .iter()
                    .map(|u| unit_of(u, units, &generated))
                    .collect();
                let names: Vec<String> = parts.iter().map(|(_, m, _)| m.clone()).collect();
                let model = extras::model_name(node, *manager, &names);
                let unit = match builtins.entry(model.clone()) {
                    Entry::Occupied(e) => e.into_mut(),
                    Entry::Vacant(e) => {
                        let nets: Vec<&Net> = parts.iter().map(|(n, _, _)| *n).collect();
                        let net = extras::wrap(node, *manager, &nets).map_err(|why| {
                            Diagnostic::error(
                                node.span,
                                format!(
                                    "internal error: the {} signal manager of `{inst_name}` {why}",
                                    manager.name()
                                ),
                            )
                            .with_code(Code::Internal)
                        })?;
                        e.insert(net)
                    }
                };
                (&*unit, model)
            }
            Impl::Subckt { looked_for, reason } => {
                let looked = looked_for
                    .as_deref()
                    .map_or(String::new(), |p| format!(" (looked for `{p}`)"));
                warnings.push(Diagnostic::warning(
                    node.span,
                    format!(
                        "op `{inst_name}` ({}) has no AIG{looked}: {reason}; kept as an opaque synth.subckt",
                        node.kind
                    ),
                ).with_code(Code::OpaqueUnit));
                let mut inst_in = Vec::with_capacity(ins.len());
                for s in &ins {
                    let n = nets.input(i, s);
                    cut_outputs.push((format!("{inst_name}.{}", s.name), n));
                    inst_in.push((nets.syms.sym(&s.name), n));
                }
                let mut inst_out = Vec::with_capacity(outs.len());
                for s in &outs {
                    let l = b.net.input(format!("{inst_name}.{}", s.name));
                    let n = nets.pin(i, &s.name);
                    b.drive(n, l, &nets.syms)?;
                    inst_out.push((nets.syms.sym(&s.name), n));
                }
                instances.push(Instance {
                    name: inst_name.clone(),
                    kind: node.kind.clone(),
                    imp: imp.clone(),
                    model: String::new(),
                    inputs: inst_in,
                    outputs: inst_out,
                });
                continue;
            }
        };
        nodes = nodes.saturating_add(unit.nodes.len() as u64);
        limits.check_at(Limit::Nodes, nodes, node.span, "AIG nodes of the design")?;
        let by_name: BTreeMap<&str, &Signal> = ins.iter().map(|s| (s.name.as_str(), s)).collect();
        let mut inst_in = Vec::with_capacity(unit.inputs.len());
        let mut lits = Vec::with_capacity(unit.inputs.len());
        for (pin, _) in &unit.inputs {
            let n = nets.input(i, by_name[pin.as_str()]);
            lits.push(b.wire(n));
            inst_in.push((nets.syms.sym(pin), n));
        }
        let results = b.net.instantiate(unit, &lits);
        let mut inst_out = Vec::with_capacity(unit.outputs.len());
        for ((pin, _), l) in unit.outputs.iter().zip(results) {
            let n = nets.pin(i, pin);
            b.drive(n, l, &nets.syms)?;
            inst_out.push((nets.syms.sym(pin), n));
        }
        instances.push(Instance {
            name: inst_name.clone(),
            kind: node.kind.clone(),
            imp,
            model,
            inputs: inst_in,
            outputs: inst_out,
        });
    }
    let mut output_nets = Vec::with_capacity(top_out.len());
    for s in &top_out {
        let n = nets.top_output(s);
        let l = b.wire(n);
        b.net.output(s.name.clone(), l);
        output_nets.push((s.name.clone(), n));
    }
    for (name, n) in cut_outputs {
        let l = b.wire(n);
        b.net.output(name, l);
    }
    b.check_names_distinct(&nets.syms)?;
    let flat = match b.net.compact() {
        Ok(flat) => flat,
        Err(e) => {
            let (error, path, on_loop) = b.compact_error(e, circuit, &nets.syms);
            let ops = on_loop.into_iter().filter(|&op| kiln_built[op]).collect();
            return Ok(Err(Looped { error, path, ops }));
        }
    };
    drop(b);
    Ok(Ok(SynthOutput {
        name: circuit.name.clone(),
        flat,
        top_inputs: top_in.len(),
        top_outputs: top_out.len(),
        instances,
        output_nets,
        syms: nets.syms,
        builtins,
        library_models,
        warnings,
    }))
}

/// The net of a library, template or built-in unit `imp` (chosen by [`choose`], which
/// generated its built-in), its model name, and its library path or template key.
fn unit_of<'a>(
    imp: &'a Impl,
    units: &'a BTreeMap<String, LibUnit>,
    generated: &'a BTreeMap<Builtin, Net>,
) -> (&'a Net, String, &'a str) {
    static EMPTY: std::sync::LazyLock<Net> = std::sync::LazyLock::new(Net::default);
    match imp {
        Impl::Library { path } => {
            let u = &units[path];
            (&u.net, model_name(&u.model, path), path)
        }
        Impl::Template { key, .. } => {
            let u = &units[key];
            (&u.net, format!("rtl_{}", model_name(&u.model, key)), key)
        }
        Impl::Builtin(b) => (generated.get(b).unwrap_or(&EMPTY), b.model_name(), ""),
        Impl::Managed { .. } | Impl::Subckt { .. } => (&EMPTY, String::new(), ""),
    }
}

/// `fork_type` from `fork_type/3/32/fork_type.blif` → `fork_type__3_32`: one model name per
/// library file, unique across the design.
pub fn model_name(model: &str, path: &str) -> String {
    let dirs: Vec<&str> = path.split('/').collect();
    let params: Vec<&str> = dirs
        .iter()
        .take(dirs.len().saturating_sub(1))
        .skip(1)
        .copied()
        .collect();
    let base = dirs.first().copied().unwrap_or(model);
    let mut name = if params.is_empty() {
        base.to_string()
    } else {
        format!("{base}__{}", params.join("_"))
    };
    name.retain(|c| c.is_ascii_alphanumeric() || c == '_');
    name
}

struct Builder<'n> {
    net: Net,
    /// The wire of each net named so far.
    wires: FxHashMap<NetName, Lit>,
    /// The instance name of each op.
    names: &'n [String],
}

impl Builder<'_> {
    fn wire(&mut self, name: NetName) -> Lit {
        if let Some(&l) = self.wires.get(&name) {
            return l;
        }
        let l = self.net.wire();
        self.wires.insert(name, l);
        l
    }

    fn drive(&mut self, name: NetName, src: Lit, syms: &Syms) -> Result<(), Diagnostic> {
        let w = self.wire(name);
        if !self.net.drive(w, src) {
            return Err(Diagnostic::global_error(format!(
                "net `{}` has two drivers",
                name.show(self.names, syms)
            )));
        }
        Ok(())
    }

    /// Two nets whose names are the same text would be one net of the hierarchical
    /// netlist: the error of two drivers (every net has a driver). Only names with a `.`
    /// of their own (an op's, a top port's) can meet another net's `<op>.<pin>`, so the
    /// texts are compared only when some name has one.
    fn check_names_distinct(&self, syms: &Syms) -> Result<(), Diagnostic> {
        let dotted = |n: &NetName| matches!(n, NetName::Port(p) if syms.text(*p).contains('.'));
        if !self.names.iter().any(|n| n.contains('.')) && !self.wires.keys().any(dotted) {
            return Ok(());
        }
        let mut texts: Vec<String> = (self.wires.keys())
            .map(|n| n.show(self.names, syms).to_string())
            .collect();
        texts.sort_unstable();
        match texts.windows(2).find(|w| w[0] == w[1]) {
            Some(w) => Err(Diagnostic::global_error(format!(
                "net `{}` has two drivers",
                w[0]
            ))),
            None => Ok(()),
        }
    }

    /// The error of a failed compaction; for a loop also its nets (shown) and the ops whose
    /// pins are on it, in loop order.
    fn compact_error(
        &self,
        e: CompactError,
        circuit: &Circuit,
        syms: &Syms,
    ) -> (Diagnostic, String, Vec<usize>) {
        // Only on this path are nets looked up by node.
        let by_node: FxHashMap<usize, NetName> =
            self.wires.iter().map(|(&n, l)| (l.node(), n)).collect();
        let name = |node: usize| {
            let net = by_node.get(&node)?;
            Some(net.show(self.names, syms).to_string())
        };
        match e {
            CompactError::Undriven(n) => {
                let name = name(n).unwrap_or_else(|| "?".into());
                let d = Diagnostic::error(
                    circuit.end_span,
                    format!("in `{}`: net `{name}` is not driven", circuit.name),
                );
                (d, String::new(), Vec::new())
            }
            CompactError::Loop(nodes) => {
                // The named nets on the cycle are unit pins: they name the ops involved.
                let mut nets: Vec<String> = nodes.iter().rev().filter_map(|&n| name(n)).collect();
                nets.dedup();
                let mut ops: Vec<usize> = Vec::new();
                for n in nodes.iter().rev() {
                    if let Some(NetName::Pin { op, .. }) = by_node.get(n)
                        && !ops.contains(&(*op as usize))
                    {
                        ops.push(*op as usize);
                    }
                }
                let path = (nets.iter().map(|n| format!("`{n}`")))
                    .collect::<Vec<_>>()
                    .join(" → ");
                let d = Diagnostic::error(
                    circuit.end_span,
                    format!("in `{}`: combinational loop through {path}", circuit.name),
                )
                .with_note("a cycle of channels needs a buffer that breaks ready as well as valid");
                (d, path, ops)
            }
        }
    }
}

/// Op names made unique (`handshake.name`, or `<kind><i>`; duplicates get `_<i>`).
fn unique_names(circuit: &Circuit) -> Vec<String> {
    let mut seen = BTreeSet::new();
    circuit
        .ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let mut n = op.name.clone();
            if !seen.insert(n.clone()) {
                n = format!("{}_{i}", op.name);
                seen.insert(n.clone());
            }
            n
        })
        .collect()
}

/// One line of the coverage report: how an op is implemented.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReportRow {
    pub op: String,
    pub kind: String,
    pub key: String,
    pub imp: Impl,
}

/// Library / built-in / fallback per op, as the build chooses it (a unit that would close
/// a combinational loop is the cut point, see [`build_with`]).
pub fn report(
    circuit: &Circuit,
    marks: &[UnitRef],
    units: &BTreeMap<String, LibUnit>,
) -> Vec<ReportRow> {
    // What the build chose, loops cut open included; what `choose` says when the design
    // cannot be built.
    let built = build_with(circuit, marks, units, &Limits::DEFAULT).ok();
    let mut generated = BTreeMap::new();
    (circuit.ops.iter().zip(marks).enumerate())
        .map(|(i, (node, m))| ReportRow {
            op: node.name.clone(),
            kind: node.kind.clone(),
            key: m.key.clone(),
            imp: match built.as_ref().and_then(|b| b.instances.get(i)) {
                Some(inst) => inst.imp.clone(),
                None => choose(m, node, units, &mut generated),
            },
        })
        .collect()
}

/// Counts of (library, template, built-in, subckt) rows.
pub fn counts(rows: &[ReportRow]) -> (usize, usize, usize, usize) {
    let n = |l: &str| rows.iter().filter(|r| r.imp.label() == l).count();
    (n("library"), n("template"), n("built-in"), n("subckt"))
}

/// The report as text: one line per op, then the totals.
pub fn report_text(rows: &[ReportRow]) -> String {
    let mut out = String::new();
    for r in rows {
        let what = r.imp.describe();
        out.push_str(&format!("{:<24} {:<16} {what}\n", r.op, r.kind));
    }
    let (l, t, b, s) = counts(rows);
    out.push_str(&format!(
        "total {}: {l} library, {t} template, {b} built-in, {s} subckt fallback\n",
        rows.len()
    ));
    out
}
