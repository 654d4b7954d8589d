//! Emitters for the rule IR: CMT2 MLIR text (the syntax of circt-cmt2's `test/Dialect/Cmt2`
//! samples), JSON, and Graphviz DOT (rules, FIFOs and the blocks they belong to).
//!
//! All three are pure functions of the circuit; iteration follows the circuit's `Vec`
//! order, so equal circuits give byte-identical text.

use super::{Circuit, Expr, Instance, InstanceKind, PrimOp, Rule, Stmt};
use std::collections::BTreeMap;
use std::fmt::Write as _;

pub fn to_json(circuit: &Circuit) -> String {
    let mut s = serde_json::to_string(circuit).unwrap_or_default();
    s.push('\n');
    s
}

fn ty(width: u32) -> String {
    format!("!firrtl.uint<{}>", width.max(1))
}

fn module_name(inst: &Instance) -> String {
    match &inst.kind {
        InstanceKind::Fifo { width, depth } if *depth <= 1 => format!("FIFO1_PUSH_w{width}"),
        InstanceKind::Fifo { width, depth } => format!("FIFO{depth}_I_w{width}"),
        InstanceKind::Reg { width, init } => format!("Reg_width{width}_init{init}"),
        InstanceKind::Bank { width, depth, .. } => format!("Mem1r1w_w{width}_d{depth}"),
        InstanceKind::Rocc => "RoCCAdapter".into(),
        InstanceKind::Dma { .. } => "BurstDMAController".into(),
        InstanceKind::MemPort => "MemoryTranslator".into(),
    }
}

/// CMT2 MLIR: one `cmt2.circuit` with an extern declaration per primitive module and a
/// `main` module holding the instances, rules and precedence.
pub fn emit_cmt2(circuit: &Circuit) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// kiln: rules for `{}`", circuit.name);
    out.push_str("cmt2.circuit {\n");
    let mut modules: BTreeMap<String, &Instance> = BTreeMap::new();
    for inst in &circuit.instances {
        modules.entry(module_name(inst)).or_insert(inst);
    }
    for (name, inst) in &modules {
        emit_extern(&mut out, name, inst);
    }
    out.push_str("  cmt2.module @main(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {\n");
    for inst in &circuit.instances {
        let _ = writeln!(
            out,
            "    cmt2.instance @{} = @{}(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []",
            inst.name,
            module_name(inst)
        );
    }
    for rule in &circuit.rules {
        emit_rule(&mut out, rule);
    }
    let prec: Vec<String> = circuit
        .precedence
        .iter()
        .map(|(a, b)| format!("[@{a}, @{b}]"))
        .collect();
    let _ = writeln!(out, "  }} {{precedence = [{}]}}", prec.join(", "));
    out.push_str("}\n");
    out
}

fn emit_extern(out: &mut String, name: &str, inst: &Instance) {
    let methods: Vec<(&str, bool)> = match &inst.kind {
        InstanceKind::Fifo { .. } => vec![("enq", false), ("deq", false)],
        InstanceKind::Reg { .. } => vec![("read", true), ("write", false)],
        InstanceKind::Bank { .. } => {
            vec![
                ("read", true),
                ("read_0", false),
                ("read_1", true),
                ("write", false),
            ]
        }
        InstanceKind::Rocc => vec![("resp_from_user", false)],
        InstanceKind::Dma { .. } => {
            vec![
                ("cpu_to_isax", false),
                ("isax_to_cpu", false),
                ("poll_for_idle", true),
            ]
        }
        InstanceKind::MemPort => vec![
            ("load_req", false),
            ("store_req", false),
            ("load_resp", false),
        ],
    };
    let _ = writeln!(
        out,
        "  cmt2.module.extern.firrtl @{name} : @{name}(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {{"
    );
    out.push_str("    cmt2.bind.bare %clk, @clock : !firrtl.clock\n");
    out.push_str("    cmt2.bind.bare %rst, @reset : !firrtl.uint<1>\n");
    for (m, is_value) in methods {
        let kind = if is_value { "value" } else { "method" };
        let _ = writeln!(
            out,
            "    cmt2.bind.{kind} @{m} : () -> ()[enable = \"{m}_enable\", ready = \"{m}_ready\", arguments = [], results = []]"
        );
    }
    out.push_str("  }\n");
}

fn emit_rule(out: &mut String, rule: &Rule) {
    let _ = writeln!(out, "    cmt2.rule @{} () -> () {{", rule.name);
    let mut widths = BTreeMap::new();
    match &rule.guard {
        Some((stmts, result)) => {
            emit_stmts(out, stmts, &mut widths, 6);
            let _ = writeln!(out, "      cmt2.return %v{result} : !firrtl.uint<1>");
        }
        None => {
            out.push_str("      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>\n");
            out.push_str("      cmt2.return %c1_ui1 : !firrtl.uint<1>\n");
        }
    }
    out.push_str("    } {\n");
    emit_stmts(out, &rule.body, &mut widths, 6);
    out.push_str("      cmt2.return\n    }\n");
}

fn emit_stmts(out: &mut String, stmts: &[Stmt], widths: &mut BTreeMap<u32, u32>, indent: usize) {
    let pad = " ".repeat(indent);
    for stmt in stmts {
        match stmt {
            Stmt::Let { var, width, expr } => {
                widths.insert(*var, *width);
                let line = match expr {
                    Expr::Const(c) => format!("%v{var} = firrtl.constant {c} : {}", ty(*width)),
                    Expr::Prim(op, args) => prim_text(*var, *op, args, *width, widths),
                };
                let _ = writeln!(out, "{pad}{line}");
            }
            Stmt::Call {
                result,
                inst,
                method,
                args,
            } => {
                let arg_list: Vec<String> = args.iter().map(|a| format!("%v{a}")).collect();
                let arg_tys: Vec<String> = args
                    .iter()
                    .map(|a| ty(widths.get(a).copied().unwrap_or(1)))
                    .collect();
                match result {
                    Some((var, width)) => {
                        widths.insert(*var, *width);
                        let _ = writeln!(
                            out,
                            "{pad}%v{var} = cmt2.call @{inst} @{method}({}) : ({}) -> {}",
                            arg_list.join(", "),
                            arg_tys.join(", "),
                            ty(*width)
                        );
                    }
                    None => {
                        let _ = writeln!(
                            out,
                            "{pad}cmt2.call @{inst} @{method}({}) : ({}) -> ()",
                            arg_list.join(", "),
                            arg_tys.join(", ")
                        );
                    }
                }
            }
            Stmt::If {
                cond,
                then_body,
                else_body,
            } => {
                let _ = writeln!(out, "{pad}cmt2.if %v{cond} {{");
                emit_stmts(out, then_body, widths, indent + 2);
                let _ = writeln!(out, "{pad}}} else {{");
                emit_stmts(out, else_body, widths, indent + 2);
                let _ = writeln!(out, "{pad}}}");
            }
        }
    }
}

fn prim_text(
    var: u32,
    op: PrimOp,
    args: &[u32],
    width: u32,
    widths: &BTreeMap<u32, u32>,
) -> String {
    let a: Vec<String> = args.iter().map(|x| format!("%v{x}")).collect();
    let tys: Vec<String> = args
        .iter()
        .map(|x| ty(widths.get(x).copied().unwrap_or(1)))
        .collect();
    let name = match op {
        PrimOp::Add => "kiln.add",
        PrimOp::Sub => "kiln.sub",
        PrimOp::Mul => "kiln.mul",
        PrimOp::And => "firrtl.and",
        PrimOp::Or => "firrtl.or",
        PrimOp::Xor => "firrtl.xor",
        PrimOp::Shl => "firrtl.dshl",
        PrimOp::ShrU => "firrtl.dshr",
        PrimOp::ShrS => "kiln.ashr",
        PrimOp::Eq => "firrtl.eq",
        PrimOp::Ne => "firrtl.neq",
        PrimOp::Ult => "firrtl.lt",
        PrimOp::Ule => "firrtl.leq",
        PrimOp::Ugt => "firrtl.gt",
        PrimOp::Uge => "firrtl.geq",
        PrimOp::Slt => "kiln.slt",
        PrimOp::Sle => "kiln.sle",
        PrimOp::Sgt => "kiln.sgt",
        PrimOp::Sge => "kiln.sge",
        PrimOp::Mux => "firrtl.mux",
        PrimOp::Bits { lo } => {
            return format!(
                "%v{var} = firrtl.bits {} {} to {lo} : ({}) -> {}",
                a.join(", "),
                lo + width - 1,
                tys.join(", "),
                ty(width)
            );
        }
        PrimOp::ZExt => "firrtl.pad",
        PrimOp::SExt => "kiln.sext",
    };
    format!(
        "%v{var} = {name} {} : ({}) -> {}",
        a.join(", "),
        tys.join(", "),
        ty(width)
    )
}

/// Graphviz DOT: one cluster per block (rule origin), rules as boxes, FIFOs as ellipses,
/// an edge rule → FIFO for every `enq` and FIFO → rule for every `deq`.
pub fn to_dot(circuit: &Circuit) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", circuit.name);
    out.push_str("  rankdir=LR;\n  node [fontsize=10];\n");
    let mut by_origin: BTreeMap<&str, Vec<&Rule>> = BTreeMap::new();
    for r in &circuit.rules {
        by_origin.entry(r.origin.as_str()).or_default().push(r);
    }
    for (i, (origin, rules)) in by_origin.iter().enumerate() {
        let _ = writeln!(out, "  subgraph cluster_{i} {{\n    label=\"{origin}\";");
        for r in rules {
            let _ = writeln!(out, "    \"{}\" [shape=box];", r.name);
        }
        out.push_str("  }\n");
    }
    for inst in &circuit.instances {
        if let InstanceKind::Fifo { width, .. } = inst.kind {
            let _ = writeln!(
                out,
                "  \"{}\" [shape=ellipse, label=\"{}\\nw{width}\"];",
                inst.name, inst.name
            );
        }
    }
    let mut edges = Vec::new();
    for r in &circuit.rules {
        collect_edges(&r.body, &r.name, circuit, &mut edges);
    }
    for e in edges {
        let _ = writeln!(out, "  {e}");
    }
    out.push_str("}\n");
    out
}

fn collect_edges(stmts: &[Stmt], rule: &str, c: &Circuit, out: &mut Vec<String>) {
    for s in stmts {
        match s {
            Stmt::Call { inst, method, .. } => {
                let is_fifo = matches!(
                    c.instance(inst),
                    Some(Instance {
                        kind: InstanceKind::Fifo { .. },
                        ..
                    })
                );
                if !is_fifo {
                    continue;
                }
                let e = if method == "enq" {
                    format!("\"{rule}\" -> \"{inst}\";")
                } else {
                    format!("\"{inst}\" -> \"{rule}\";")
                };
                if !out.contains(&e) {
                    out.push(e);
                }
            }
            Stmt::If {
                then_body,
                else_body,
                ..
            } => {
                collect_edges(then_body, rule, c, out);
                collect_edges(else_body, rule, c, out);
            }
            _ => {}
        }
    }
}
