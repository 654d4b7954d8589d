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
use super::circuit::{Circuit, OpNode, PortSpec, ValueRef};
use super::mark::{Builtin, UnitRef};
use super::net::{CompactError, Lit, Net};
use super::signals::{PortRef, SigKind, Signal, signals};
use crate::diag::{Code, Diagnostic};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

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
    Builtin(Builtin),
    Subckt {
        looked_for: Option<String>,
        reason: String,
    },
}

impl Impl {
    pub fn label(&self) -> &'static str {
        match self {
            Impl::Library { .. } => "library",
            Impl::Builtin(_) => "built-in",
            Impl::Subckt { .. } => "subckt",
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
    pub inputs: Vec<(String, String)>,
    /// (pin, net) for each output pin, in the unit's pin order.
    pub outputs: Vec<(String, String)>,
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
    pub(crate) output_nets: Vec<(String, String)>,
    /// Generated models used (model name → AIG).
    pub(crate) builtins: BTreeMap<String, Net>,
    /// Library models used: unique model name → library path.
    pub(crate) library_models: BTreeMap<String, String>,
    pub warnings: Vec<Diagnostic>,
}

/// Chooses the implementation of `m` given the lowered library unit at its path (if read).
pub(crate) fn choose(m: &UnitRef, node: &OpNode, lib: Option<&LibUnit>) -> Impl {
    let (ins, outs) = signals(&node.inputs, &node.outputs, true);
    if m.extras {
        return subckt(m, "its channels carry extra signals, which no unit has");
    }
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
    if let Some(b) = &m.builtin {
        let net = builtin::generate(b);
        if unit_mismatch(&net, &ins, &outs, &[]).is_none() {
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

/// Why `unit` cannot implement an op with these signals, if it cannot.
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
    for s in outs {
        if unit.output_index(&s.name).is_none() {
            return Some(format!("has no output `{}`", s.name));
        }
        if undriven.contains(&s.name) {
            return Some(format!("is blackboxed (output `{}` is undriven)", s.name));
        }
    }
    None
}

/// Builds the flat design. `units` holds the lowered library unit of each path that was
/// found (each path lowered once by the caller).
pub fn build(
    circuit: &Circuit,
    marks: &[UnitRef],
    units: &BTreeMap<String, LibUnit>,
) -> Result<SynthOutput, Diagnostic> {
    check_consumers(circuit)?;
    let names = unique_names(circuit);
    let mut b = Builder {
        net: Net::new(),
        ..Builder::default()
    };
    let (top_in, top_out) = signals(&circuit.args, &circuit.results, true);
    // Top inputs drive nets of their own name.
    for s in &top_in {
        let l = b.net.input(s.name.clone());
        b.drive(&s.name, l)?;
    }
    let mut warnings = circuit.warnings.clone();
    let mut instances = Vec::new();
    let mut builtins = BTreeMap::new();
    let mut library_models = BTreeMap::new();
    let mut cut_outputs = Vec::new();
    for (i, node) in circuit.ops.iter().enumerate() {
        let m = marks
            .get(i)
            .ok_or_else(|| Diagnostic::error(node.span, "no mark for this op"))?;
        let lib = m.path.as_ref().and_then(|p| units.get(p));
        let imp = choose(m, node, lib);
        let inst_name = &names[i];
        let (ins, outs) = signals(&node.inputs, &node.outputs, true);
        let net_of = |s: &Signal| input_net(circuit, &names, i, s);
        let generated;
        let (unit, model) = match &imp {
            Impl::Library { path } => {
                let u = &units[path];
                let model = model_name(&u.model, path);
                library_models.insert(model.clone(), path.clone());
                (&u.net, model)
            }
            Impl::Builtin(bi) => {
                generated = builtins
                    .entry(bi.model_name())
                    .or_insert_with(|| builtin::generate(bi))
                    .clone();
                (&generated, bi.model_name())
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
                let mut inst_in = Vec::new();
                for s in &ins {
                    let n = net_of(s);
                    cut_outputs.push((format!("{inst_name}.{}", s.name), n.clone()));
                    inst_in.push((s.name.clone(), n));
                }
                let mut inst_out = Vec::new();
                for s in &outs {
                    let n = format!("{inst_name}.{}", s.name);
                    let l = b.net.input(n.clone());
                    b.drive(&n, l)?;
                    inst_out.push((s.name.clone(), n));
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
        let by_name: BTreeMap<&str, &Signal> = ins.iter().map(|s| (s.name.as_str(), s)).collect();
        let mut inst_in = Vec::new();
        let mut lits = Vec::new();
        for (pin, _) in &unit.inputs {
            let s = by_name[pin.as_str()];
            let n = net_of(s);
            lits.push(b.wire(&n));
            inst_in.push((pin.clone(), n));
        }
        let results = b.net.instantiate(unit, &lits);
        let mut inst_out = Vec::new();
        for ((pin, _), l) in unit.outputs.iter().zip(results) {
            let n = format!("{inst_name}.{pin}");
            b.drive(&n, l)?;
            inst_out.push((pin.clone(), n));
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
    let mut output_nets = Vec::new();
    for s in &top_out {
        let n = top_output_net(circuit, &names, s);
        let l = b.wire(&n);
        b.net.output(s.name.clone(), l);
        output_nets.push((s.name.clone(), n));
    }
    for (name, n) in &cut_outputs {
        let l = b.wire(n);
        b.net.output(name.clone(), l);
    }
    let flat = b.net.compact().map_err(|e| b.compact_error(e, circuit))?;
    Ok(SynthOutput {
        name: circuit.name.clone(),
        flat,
        top_inputs: top_in.len(),
        top_outputs: top_out.len(),
        instances,
        output_nets,
        builtins,
        library_models,
        warnings,
    })
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

#[derive(Default)]
struct Builder {
    net: Net,
    wires: BTreeMap<String, Lit>,
    names: BTreeMap<usize, String>,
}

impl Builder {
    fn wire(&mut self, name: &str) -> Lit {
        if let Some(&l) = self.wires.get(name) {
            return l;
        }
        let l = self.net.wire();
        self.wires.insert(name.to_string(), l);
        self.names.insert(l.node(), name.to_string());
        l
    }

    fn drive(&mut self, name: &str, src: Lit) -> Result<(), Diagnostic> {
        let w = self.wire(name);
        if !self.net.drive(w, src) {
            return Err(Diagnostic::global_error(format!(
                "net `{name}` has two drivers"
            )));
        }
        Ok(())
    }

    fn compact_error(&self, e: CompactError, circuit: &Circuit) -> Diagnostic {
        match e {
            CompactError::Undriven(n) => {
                let name = self.names.get(&n).map_or("?", String::as_str);
                Diagnostic::error(
                    circuit.end_span,
                    format!("in `{}`: net `{name}` is not driven", circuit.name),
                )
            }
            CompactError::Loop(nodes) => {
                // The named nets on the cycle are unit pins: they name the ops involved.
                let mut nets: Vec<&str> = nodes
                    .iter()
                    .rev()
                    .filter_map(|n| self.names.get(n).map(String::as_str))
                    .collect();
                nets.dedup();
                Diagnostic::error(
                    circuit.end_span,
                    format!(
                        "in `{}`: combinational loop through {}",
                        circuit.name,
                        nets.iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(" → ")
                    ),
                )
                .with_note("a cycle of channels needs a buffer that breaks ready as well as valid")
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

/// The net of input signal `s` of op `i`: forward signals come from the operand's producer,
/// backward ones (ready of an output port) from the result's consumer.
fn input_net(circuit: &Circuit, names: &[String], i: usize, s: &Signal) -> String {
    match (s.port, s.kind) {
        (PortRef::Global, _) => s.name.clone(),
        (PortRef::Input(p), kind) => {
            let v = circuit.ops[i].operands[p];
            producer_net(circuit, names, v, kind)
        }
        (PortRef::Output(p), kind) => {
            let v = ValueRef::Result { op: i, index: p };
            consumer_net(circuit, names, v, kind)
        }
    }
}

/// Net of a forward signal of value `v`.
fn producer_net(circuit: &Circuit, names: &[String], v: ValueRef, kind: SigKind) -> String {
    let (ports, base, prefix): (&[PortSpec], usize, String) = match v {
        ValueRef::Arg(a) => (&circuit.args, a, String::new()),
        ValueRef::Result { op, index } => {
            (&circuit.ops[op].outputs, index, format!("{}.", names[op]))
        }
    };
    format!("{prefix}{}", signal_name(&ports[base], kind))
}

/// Net of a backward signal of value `v` (driven by its single consumer).
fn consumer_net(circuit: &Circuit, names: &[String], v: ValueRef, kind: SigKind) -> String {
    for (c, op) in circuit.ops.iter().enumerate() {
        if let Some(p) = op.operands.iter().position(|&o| o == v) {
            return format!("{}.{}", names[c], signal_name(&op.inputs[p], kind));
        }
    }
    if let Some(j) = circuit.end_operands.iter().position(|&o| o == v) {
        return signal_name(&circuit.results[j], kind);
    }
    String::new()
}

fn top_output_net(circuit: &Circuit, names: &[String], s: &Signal) -> String {
    match s.port {
        PortRef::Input(a) => consumer_net(circuit, names, ValueRef::Arg(a), s.kind),
        PortRef::Output(j) => producer_net(circuit, names, circuit.end_operands[j], s.kind),
        PortRef::Global => s.name.clone(),
    }
}

/// The name of the signal of `kind` of bundled port `p`.
fn signal_name(p: &PortSpec, kind: SigKind) -> String {
    let (i, o) = signals(std::slice::from_ref(p), &[], false);
    i.into_iter()
        .chain(o)
        .find(|s| s.kind == kind)
        .map_or_else(|| p.name.clone(), |s| s.name)
}

/// Every value has exactly one consumer.
fn check_consumers(circuit: &Circuit) -> Result<(), Diagnostic> {
    let mut uses: BTreeMap<ValueRef, Vec<String>> = BTreeMap::new();
    for op in &circuit.ops {
        for v in &op.operands {
            uses.entry(*v).or_default().push(format!("`{}`", op.name));
        }
    }
    for v in &circuit.end_operands {
        uses.entry(*v)
            .or_default()
            .push("the terminator".to_string());
    }
    let describe = |v: ValueRef| match v {
        ValueRef::Arg(a) => (
            format!("argument {a} of `{}`", circuit.name),
            circuit.end_span,
        ),
        ValueRef::Result { op, index } => (
            format!("result {index} of op `{}`", circuit.ops[op].name),
            circuit.ops[op].span,
        ),
    };
    let all =
        (0..circuit.args.len())
            .map(ValueRef::Arg)
            .chain(circuit.ops.iter().enumerate().flat_map(|(op, n)| {
                (0..n.outputs.len()).map(move |index| ValueRef::Result { op, index })
            }));
    for v in all {
        let users = uses.get(&v).map_or(&[][..], Vec::as_slice);
        if users.len() == 1 {
            continue;
        }
        let (what, span) = describe(v);
        let msg = if users.is_empty() {
            format!("{what} has no consumer; every channel needs exactly one (add a sink)")
        } else {
            format!(
                "{what} has {} consumers ({}); every channel needs exactly one (add a fork)",
                users.len(),
                users.join(", ")
            )
        };
        return Err(Diagnostic::error(span, msg));
    }
    Ok(())
}

/// One line of the coverage report: how an op is implemented.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReportRow {
    pub op: String,
    pub kind: String,
    pub key: String,
    pub imp: Impl,
}

/// Library / built-in / fallback per op, without building the design.
pub fn report(
    circuit: &Circuit,
    marks: &[UnitRef],
    units: &BTreeMap<String, LibUnit>,
) -> Vec<ReportRow> {
    circuit
        .ops
        .iter()
        .zip(marks)
        .map(|(node, m)| ReportRow {
            op: node.name.clone(),
            kind: node.kind.clone(),
            key: m.key.clone(),
            imp: choose(m, node, m.path.as_ref().and_then(|p| units.get(p))),
        })
        .collect()
}

/// Counts of (library, built-in, subckt) rows.
pub fn counts(rows: &[ReportRow]) -> (usize, usize, usize) {
    let n = |l: &str| rows.iter().filter(|r| r.imp.label() == l).count();
    (n("library"), n("built-in"), n("subckt"))
}

/// The report as text: one line per op, then the totals.
pub fn report_text(rows: &[ReportRow]) -> String {
    let mut out = String::new();
    for r in rows {
        let what = match &r.imp {
            Impl::Library { path } => format!("library   {path}"),
            Impl::Builtin(b) => format!("built-in  {}", b.model_name()),
            Impl::Subckt { looked_for, reason } => match looked_for {
                Some(p) => format!("subckt    (looked for {p}: {reason})"),
                None => format!("subckt    ({reason})"),
            },
        };
        out.push_str(&format!("{:<24} {:<16} {what}\n", r.op, r.kind));
    }
    let (l, b, s) = counts(rows);
    out.push_str(&format!(
        "total {}: {l} library, {b} built-in, {s} subckt fallback\n",
        rows.len()
    ));
    out
}
