//! Text emitters of the lowered design: Synth MLIR (CIRCT or Dynamatic flavour) and the
//! self-contained hierarchical BLIF used for verification.
//!
//! Synth MLIR is one flat `hw.module` whose ports are the 1-bit signals (bracketed names are
//! given as quoted explicit port names). CIRCT flavour: `synth.aig.and_inv`, `hw.constant`,
//! latches as `seq.compreg` on `seq.to_clock %clk` with `seq.initial` values — what
//! `circt-opt` parses. Dynamatic flavour (HEAD spelling): `synth.and_inv` and
//! `synth.latch %d init N`. Opaque units become `hw.instance`s of `hw.module.extern`s (CIRCT)
//! or `synth.subckt` ops (Dynamatic).
//!
//! The hierarchical BLIF has a top model that instantiates each unit with `.subckt`, followed
//! by each used model once under a unique name: library files verbatim (only the `.model`
//! line renamed), generated units written from their AIG. Opaque units are cut points, as in
//! the flat AIG: their inputs are top outputs `<op>.<pin>` and their outputs top inputs.

use super::build::{Impl, NetName, SynthOutput};
use super::net::{Init, Lit, Net, Node};
use crate::chunks::Chunks;
use crate::diag::Diagnostic;
use crate::flow::Piece;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

/// Which Synth spelling to emit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Dialect {
    /// CIRCT: `synth.aig.and_inv`, `seq.compreg`.
    #[default]
    Circt,
    /// Dynamatic: `synth.and_inv`, `synth.latch`, `synth.subckt`.
    Dynamatic,
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// SSA names of the flat net's nodes: `%i<k>` (input k), `%l<k>` (latch k), `%n<node>`
/// (an AND), written when needed rather than held as strings.
struct Names {
    ssa: Vec<Ssa>,
}

#[derive(Clone, Copy)]
enum Ssa {
    None,
    Input(usize),
    Latch(usize),
    And,
}

impl Names {
    fn new(net: &Net) -> Names {
        let mut ssa = vec![Ssa::None; net.nodes.len()];
        for (k, (_, node)) in net.inputs.iter().enumerate() {
            ssa[*node] = Ssa::Input(k);
        }
        for (k, &node) in net.latches.iter().enumerate() {
            ssa[node] = Ssa::Latch(k);
        }
        for (v, n) in net.nodes.iter().enumerate() {
            if matches!(n, Node::And(..)) {
                ssa[v] = Ssa::And;
            }
        }
        Names { ssa }
    }

    /// The value of `l`: `%false`/`%true` for the constants, else the node's name (`l`
    /// must then be uncomplemented).
    fn value(&self, l: Lit) -> Value {
        Value {
            node: l.node(),
            ssa: self.ssa.get(l.node()).copied().unwrap_or(Ssa::None),
            neg: l.is_neg(),
        }
    }

    /// Operand text for an and_inv: `[not ]%x`.
    fn operand(&self, l: Lit) -> Operand {
        Operand {
            value: self.value(Lit::from_node(l.node(), false)),
            not: l.is_neg(),
        }
    }
}

#[derive(Clone, Copy)]
struct Value {
    node: usize,
    ssa: Ssa,
    neg: bool,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.node == 0 {
            return f.write_str(if self.neg { "%true" } else { "%false" });
        }
        match self.ssa {
            Ssa::Input(k) => write!(f, "%i{k}"),
            Ssa::Latch(k) => write!(f, "%l{k}"),
            Ssa::And => write!(f, "%n{}", self.node),
            Ssa::None => Ok(()),
        }
    }
}

struct Operand {
    value: Value,
    not: bool,
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.not {
            f.write_str("not ")?;
        }
        self.value.fmt(f)
    }
}

/// The SSA value of a literal in the module body: complemented non-constant literals get an
/// inverter (`%inv<node>`), written into the body before its first use.
struct Values<'n> {
    names: &'n Names,
    and_op: &'static str,
    inverted: Vec<bool>,
}

impl Values<'_> {
    /// Writes the value of `l` to `out`, after its inverter (into `body`) when it needs one.
    fn write(&mut self, l: Lit, body: &mut impl fmt::Write) -> String {
        let mut out = String::new();
        self.append(l, body, &mut out);
        out
    }

    fn append(&mut self, l: Lit, body: &mut impl fmt::Write, out: &mut String) {
        if !l.is_neg() || l.node() == 0 {
            let _ = write!(out, "{}", self.names.value(l));
            return;
        }
        if !std::mem::replace(&mut self.inverted[l.node()], true) {
            let operand = self.names.operand(l);
            let _ = writeln!(
                body,
                "    %inv{} = {} {operand} : i1",
                l.node(),
                self.and_op
            );
        }
        let _ = write!(out, "%inv{}", l.node());
    }
}

/// The design as Synth MLIR text.
pub fn synth_mlir(out: &SynthOutput, dialect: Dialect) -> String {
    let mut text = Chunks::new();
    write_synth_mlir(out, dialect, &mut text);
    text.into_string()
}

/// [`synth_mlir`] as an output's pieces.
pub(crate) fn synth_mlir_pieces(out: &SynthOutput, dialect: Dialect) -> Vec<Piece> {
    let mut text = Chunks::new();
    write_synth_mlir(out, dialect, &mut text);
    text.into_pieces()
}

/// The design as Synth MLIR text, written in one pass to `text`.
fn write_synth_mlir(out: &SynthOutput, dialect: Dialect, text: &mut impl fmt::Write) {
    let net = &out.flat;
    let names = Names::new(net);
    let and_op = match dialect {
        Dialect::Circt => "synth.aig.and_inv",
        Dialect::Dynamatic => "synth.and_inv",
    };
    let mut values = Values {
        names: &names,
        and_op,
        inverted: vec![false; net.nodes.len()],
    };
    let _ = text.write_str("module {\n");
    let opaque = || (out.instances.iter()).filter(|i| matches!(i.imp, Impl::Subckt { .. }));
    if dialect == Dialect::Circt {
        for inst in opaque() {
            let ext = format!("kiln_opaque_{}", inst.name);
            let ports: Vec<String> = inst
                .inputs
                .iter()
                .enumerate()
                .map(|(k, (p, _))| format!("in %p{k} {} : i1", quote(out.sym(*p))))
                .chain(
                    inst.outputs
                        .iter()
                        .map(|(p, _)| format!("out {} : i1", quote(out.sym(*p)))),
                )
                .collect();
            let _ = writeln!(
                text,
                "  hw.module.extern @{}({})",
                quote(&ext),
                ports.join(", ")
            );
        }
    }
    let mut ports: Vec<String> = net.inputs[..out.top_inputs]
        .iter()
        .enumerate()
        .map(|(k, (n, _))| format!("in %i{k} {} : i1", quote(n)))
        .collect();
    ports.extend(
        net.outputs[..out.top_outputs]
            .iter()
            .map(|(n, _)| format!("out {} : i1", quote(n))),
    );
    let _ = writeln!(
        text,
        "  hw.module @{}({}) {{",
        quote(&out.name),
        ports.join(", ")
    );
    drop(ports);
    let body = text;
    let _ = body.write_str("    %false = hw.constant false\n    %true = hw.constant true\n");
    let clk = net.input_index("clk").map(|k| format!("%i{k}"));
    if dialect == Dialect::Circt && !net.latches.is_empty() {
        let clk = clk.clone().unwrap_or_else(|| "%false".into());
        let _ = writeln!(body, "    %clock = seq.to_clock {clk}");
        for (v, k) in [(false, 0), (true, 1)] {
            let _ = writeln!(
                body,
                "    %init{k} = seq.initial() {{\n      %c{k} = hw.constant {v}\n      seq.yield %c{k} : i1\n    }} : () -> !seq.immutable<i1>"
            );
        }
    }
    for &node in &net.latches {
        let Node::Latch { next, init } = net.nodes[node] else {
            continue;
        };
        let d = values.write(next, body);
        let name = names.value(Lit::from_node(node, false));
        let _ = match dialect {
            Dialect::Circt => {
                let init = match init {
                    Init::One => " initial %init1",
                    Init::Zero => " initial %init0",
                    Init::DontCare => "",
                };
                writeln!(body, "    {name} = seq.compreg {d}, %clock{init} : i1")
            }
            Dialect::Dynamatic => {
                let init = match init {
                    Init::Zero => 0,
                    Init::One => 1,
                    Init::DontCare => 2,
                };
                writeln!(body, "    {name} = synth.latch {d} init {init} : i1")
            }
        };
    }
    for (v, n) in net.nodes.iter().enumerate() {
        if let Node::And(a, b) = *n {
            let _ = writeln!(
                body,
                "    %n{v} = {and_op} {}, {} : i1",
                names.operand(a),
                names.operand(b)
            );
        }
    }
    // Opaque units: their outputs are the cut-point inputs, their inputs the cut-point outputs.
    let mut cut_in = out.top_inputs;
    let mut cut_out = out.top_outputs;
    for inst in opaque() {
        let args: Vec<String> = (0..inst.inputs.len())
            .map(|k| values.write(net.outputs[cut_out + k].1, body))
            .collect();
        let results: Vec<String> = (0..inst.outputs.len())
            .map(|k| format!("%i{}", cut_in + k))
            .collect();
        let ones = |n: usize| vec!["i1"; n].join(", ");
        let lhs = if results.is_empty() {
            String::new()
        } else {
            format!("{} = ", results.join(", "))
        };
        match dialect {
            Dialect::Circt => {
                let ext = format!("kiln_opaque_{}", inst.name);
                let ins: Vec<String> = inst
                    .inputs
                    .iter()
                    .zip(&args)
                    .map(|((p, _), a)| format!("{}: {a}: i1", quote(out.sym(*p))))
                    .collect();
                let outs: Vec<String> = inst
                    .outputs
                    .iter()
                    .map(|(p, _)| format!("{}: i1", quote(out.sym(*p))))
                    .collect();
                let _ = writeln!(
                    body,
                    "    {lhs}hw.instance {} @{}({}) -> ({})",
                    quote(&inst.name),
                    quote(&ext),
                    ins.join(", "),
                    outs.join(", ")
                );
            }
            Dialect::Dynamatic => {
                let _ = writeln!(
                    body,
                    "    {lhs}synth.subckt {} ({}) : ({}) -> ({})",
                    quote(&format!("{}_{}", inst.kind, inst.name)),
                    args.join(", "),
                    ones(args.len()),
                    ones(results.len())
                );
            }
        }
        cut_in += inst.outputs.len();
        cut_out += inst.inputs.len();
    }
    let mut results = String::new();
    for (k, (_, l)) in net.outputs[..out.top_outputs].iter().enumerate() {
        if k > 0 {
            results.push_str(", ");
        }
        values.append(*l, body, &mut results);
    }
    if out.top_outputs == 0 {
        let _ = body.write_str("    hw.output\n");
    } else {
        let _ = writeln!(
            body,
            "    hw.output {results} : {}",
            vec!["i1"; out.top_outputs].join(", ")
        );
    }
    let _ = body.write_str("  }\n}\n");
}

/// Replaces the `.model` line of a single-model library BLIF text.
fn rename_model(text: &str, model: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len() + 32);
    let mut renamed = false;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with(".model") {
            if renamed {
                return Err("has more than one .model".into());
            }
            renamed = true;
            let _ = writeln!(out, ".model {model}");
            continue;
        }
        out.push_str(line);
    }
    if !renamed {
        return Err("has no .model line".into());
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

/// The hierarchical BLIF: the top model, then every used model once. `lib_texts` holds the
/// text of each library path used; `write_model` writes a generated unit as a BLIF model.
pub fn hier_blif(
    out: &SynthOutput,
    lib_texts: &BTreeMap<String, String>,
    write_model: &dyn Fn(&Net, &str) -> String,
) -> Result<String, Diagnostic> {
    let mut text = Chunks::new();
    write_hier_blif(out, lib_texts, write_model, &mut text)?;
    Ok(text.into_string())
}

/// [`hier_blif`] as an output's pieces.
pub(crate) fn hier_blif_pieces(
    out: &SynthOutput,
    lib_texts: &BTreeMap<String, String>,
    write_model: &dyn Fn(&Net, &str) -> String,
) -> Result<Vec<Piece>, Diagnostic> {
    let mut text = Chunks::new();
    write_hier_blif(out, lib_texts, write_model, &mut text)?;
    Ok(text.into_pieces())
}

fn write_hier_blif(
    out: &SynthOutput,
    lib_texts: &BTreeMap<String, String>,
    write_model: &dyn Fn(&Net, &str) -> String,
    text: &mut impl fmt::Write,
) -> Result<(), Diagnostic> {
    let net = &out.flat;
    let _ = writeln!(
        text,
        "# hierarchical netlist of `{}` written by kiln",
        out.name
    );
    let _ = write!(text, ".model {}\n.inputs", out.name);
    for (n, _) in &net.inputs {
        let _ = write!(text, " {n}");
    }
    let _ = text.write_str("\n.outputs");
    for (n, _) in &net.outputs {
        let _ = write!(text, " {n}");
    }
    let _ = text.write_char('\n');
    let (names, syms) = (&out.instances, &out.syms);
    let mut buffers: Vec<(NetName, String)> = out
        .output_nets
        .iter()
        .filter(|(port, n)| !n.is(port, names, syms))
        .map(|(port, n)| (*n, port.clone()))
        .collect();
    for inst in &out.instances {
        if matches!(inst.imp, Impl::Subckt { .. }) {
            for &(pin, n) in &inst.inputs {
                buffers.push((n, format!("{}.{}", inst.name, syms.text(pin))));
            }
            continue;
        }
        let _ = write!(text, ".subckt {}", inst.model);
        for &(pin, n) in inst.inputs.iter().chain(&inst.outputs) {
            let _ = write!(text, " {}={}", syms.text(pin), n.show(names, syms));
        }
        let _ = text.write_char('\n');
    }
    for (src, dst) in buffers {
        let _ = write!(text, ".names {} {dst}\n1 1\n", src.show(names, syms));
    }
    let _ = text.write_str(".end\n");
    for (model, path) in &out.library_models {
        let lib = lib_texts.get(path).ok_or_else(|| {
            Diagnostic::global_error(format!("library text of `{path}` was not provided"))
        })?;
        let renamed = rename_model(lib, model)
            .map_err(|e| Diagnostic::global_error(format!("library file `{path}` {e}")))?;
        let _ = write!(text, "\n{renamed}");
    }
    for (model, unit) in &out.builtins {
        let _ = write!(text, "\n{}", write_model(unit, model));
    }
    Ok(())
}
