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

use super::build::{Impl, SynthOutput};
use super::net::{Init, Lit, Net, Node};
use crate::diag::Diagnostic;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

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

/// SSA names of the flat net's nodes.
struct Names {
    names: Vec<String>,
}

impl Names {
    fn new(net: &Net) -> Names {
        let mut names = vec![String::new(); net.nodes.len()];
        for (k, (_, node)) in net.inputs.iter().enumerate() {
            names[*node] = format!("%i{k}");
        }
        for (k, &node) in net.latches.iter().enumerate() {
            names[node] = format!("%l{k}");
        }
        for (v, n) in net.nodes.iter().enumerate() {
            if matches!(n, Node::And(..)) {
                names[v] = format!("%n{v}");
            }
        }
        Names { names }
    }

    /// Operand text for an and_inv: `[not ]%x`.
    fn operand(&self, l: Lit) -> String {
        let base = self.value(Lit::from_node(l.node(), false));
        if l.is_neg() {
            format!("not {base}")
        } else {
            base
        }
    }

    fn value(&self, l: Lit) -> String {
        if l.node() == 0 {
            return if l.is_neg() {
                "%true".into()
            } else {
                "%false".into()
            };
        }
        debug_assert!(!l.is_neg());
        self.names[l.node()].clone()
    }
}

/// The design as Synth MLIR text.
pub fn synth_mlir(out: &SynthOutput, dialect: Dialect) -> String {
    let net = &out.flat;
    let names = Names::new(net);
    let and_op = match dialect {
        Dialect::Circt => "synth.aig.and_inv",
        Dialect::Dynamatic => "synth.and_inv",
    };
    let mut body = String::new();
    let mut decls = String::new();
    body.push_str("    %false = hw.constant false\n    %true = hw.constant true\n");
    // A value for a literal: complemented non-constant literals get an inverter.
    let mut inverted: BTreeMap<usize, String> = BTreeMap::new();
    let mut value_of = |l: Lit, body: &mut String| -> String {
        if !l.is_neg() || l.node() == 0 {
            return names.value(l);
        }
        inverted
            .entry(l.node())
            .or_insert_with(|| {
                let v = format!("%inv{}", l.node());
                let _ = writeln!(body, "    {v} = {and_op} {} : i1", names.operand(l));
                v
            })
            .clone()
    };
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
        let d = value_of(next, &mut body);
        let name = &names.names[node];
        let line = match dialect {
            Dialect::Circt => {
                let init = match init {
                    Init::One => " initial %init1",
                    Init::Zero => " initial %init0",
                    Init::DontCare => "",
                };
                format!("    {name} = seq.compreg {d}, %clock{init} : i1\n")
            }
            Dialect::Dynamatic => {
                let init = match init {
                    Init::Zero => 0,
                    Init::One => 1,
                    Init::DontCare => 2,
                };
                format!("    {name} = synth.latch {d} init {init} : i1\n")
            }
        };
        body.push_str(&line);
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
    for inst in &out.instances {
        if !matches!(inst.imp, Impl::Subckt { .. }) {
            continue;
        }
        let args: Vec<String> = (0..inst.inputs.len())
            .map(|k| value_of(net.outputs[cut_out + k].1, &mut body))
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
                let ports: Vec<String> = inst
                    .inputs
                    .iter()
                    .enumerate()
                    .map(|(k, (p, _))| format!("in %p{k} {} : i1", quote(p)))
                    .chain(
                        inst.outputs
                            .iter()
                            .map(|(p, _)| format!("out {} : i1", quote(p))),
                    )
                    .collect();
                let _ = writeln!(
                    decls,
                    "  hw.module.extern @{}({})",
                    quote(&ext),
                    ports.join(", ")
                );
                let ins: Vec<String> = inst
                    .inputs
                    .iter()
                    .zip(&args)
                    .map(|((p, _), a)| format!("{}: {a}: i1", quote(p)))
                    .collect();
                let outs: Vec<String> = inst
                    .outputs
                    .iter()
                    .map(|(p, _)| format!("{}: i1", quote(p)))
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
    let results: Vec<String> = net.outputs[..out.top_outputs]
        .iter()
        .map(|(_, l)| value_of(*l, &mut body))
        .collect();
    let mut text = String::from("module {\n");
    text.push_str(&decls);
    let _ = writeln!(
        text,
        "  hw.module @{}({}) {{",
        quote(&out.name),
        ports.join(", ")
    );
    text.push_str(&body);
    if results.is_empty() {
        text.push_str("    hw.output\n");
    } else {
        let _ = writeln!(
            text,
            "    hw.output {} : {}",
            results.join(", "),
            vec!["i1"; results.len()].join(", ")
        );
    }
    text.push_str("  }\n}\n");
    text
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
    let net = &out.flat;
    let mut text = format!("# hierarchical netlist of `{}` written by kiln\n", out.name);
    let _ = write!(text, ".model {}\n.inputs", out.name);
    for (n, _) in &net.inputs {
        let _ = write!(text, " {n}");
    }
    text.push_str("\n.outputs");
    for (n, _) in &net.outputs {
        let _ = write!(text, " {n}");
    }
    text.push('\n');
    let mut buffers: Vec<(String, String)> = out
        .output_nets
        .iter()
        .filter(|(port, n)| port != n)
        .map(|(port, n)| (n.clone(), port.clone()))
        .collect();
    for inst in &out.instances {
        if matches!(inst.imp, Impl::Subckt { .. }) {
            for (pin, n) in &inst.inputs {
                buffers.push((n.clone(), format!("{}.{pin}", inst.name)));
            }
            continue;
        }
        let _ = write!(text, ".subckt {}", inst.model);
        for (pin, n) in inst.inputs.iter().chain(&inst.outputs) {
            let _ = write!(text, " {pin}={n}");
        }
        text.push('\n');
    }
    for (src, dst) in buffers {
        let _ = write!(text, ".names {src} {dst}\n1 1\n");
    }
    text.push_str(".end\n");
    for (model, path) in &out.library_models {
        let lib = lib_texts.get(path).ok_or_else(|| {
            Diagnostic::global_error(format!("library text of `{path}` was not provided"))
        })?;
        let renamed = rename_model(lib, model)
            .map_err(|e| Diagnostic::global_error(format!("library file `{path}` {e}")))?;
        text.push('\n');
        text.push_str(&renamed);
    }
    for (model, unit) in &out.builtins {
        text.push('\n');
        text.push_str(&write_model(unit, model));
    }
    Ok(text)
}
