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

/// [`to_json`] assembled from pieces: `rules_json` holds comma-joined JSON texts of rules
/// (each as [`rules_json`] gives them).
pub fn json_from_parts(circuit_without_rules: &Circuit, rules_json: &[String]) -> String {
    let j = |v: &dyn erased::Ser| v.json();
    let head = format!(
        "{{\"name\":{},\"instances\":{},\"rules\":[",
        j(&circuit_without_rules.name),
        j(&circuit_without_rules.instances)
    );
    let tail = format!(
        "],\"precedence\":{},\"schedule\":{}}}\n",
        j(&circuit_without_rules.precedence),
        j(&circuit_without_rules.schedule)
    );
    let body: usize = rules_json.iter().map(|r| r.len() + 1).sum();
    let mut out = String::with_capacity(head.len() + body + tail.len());
    out.push_str(&head);
    for (i, r) in rules_json.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(r);
    }
    out.push_str(&tail);
    out
}

/// JSON of each rule, comma-joined (the inside of the `rules` array of [`to_json`]).
pub fn rules_json(rules: &[Rule]) -> String {
    rules
        .iter()
        .map(|r| serde_json::to_string(r).unwrap_or_default())
        .collect::<Vec<_>>()
        .join(",")
}

mod erased {
    pub trait Ser {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Ser for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap_or_default()
        }
    }
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
    let mut out = cmt2_header(&circuit.name, &circuit.instances);
    for rule in &circuit.rules {
        emit_rule(&mut out, rule);
    }
    out.push_str(&cmt2_footer(&circuit.precedence));
    out
}

/// Everything of [`emit_cmt2`] before the first rule.
pub fn cmt2_header(name: &str, instances: &[Instance]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// kiln: rules for `{name}`");
    out.push_str("cmt2.circuit {\n");
    let mut modules: BTreeMap<String, &Instance> = BTreeMap::new();
    for inst in instances {
        modules.entry(module_name(inst)).or_insert(inst);
    }
    for (name, inst) in &modules {
        emit_extern(&mut out, name, inst);
    }
    out.push_str("  cmt2.module @main(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {\n");
    for inst in instances {
        let _ = writeln!(
            out,
            "    cmt2.instance @{} = @{}(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []",
            inst.name,
            module_name(inst)
        );
    }
    out
}

/// The rules of [`emit_cmt2`], in order.
pub fn cmt2_rules(rules: &[Rule]) -> String {
    let mut out = String::new();
    for rule in rules {
        emit_rule(&mut out, rule);
    }
    out
}

/// Everything of [`emit_cmt2`] after the last rule.
pub fn cmt2_footer(precedence: &[(String, String)]) -> String {
    let prec: Vec<String> = precedence
        .iter()
        .map(|(a, b)| format!("[@{a}, @{b}]"))
        .collect();
    format!("  }} {{precedence = [{}]}}\n}}\n", prec.join(", "))
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
                for l in line.lines() {
                    let _ = writeln!(out, "{pad}{l}");
                }
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

/// One primitive as FIRRTL ops: widening ops (`add`, `sub`, `mul`, `dshl`, `pad`) are
/// followed by `bits` back to the result width; signed ops go through `asSInt`/`asUInt`.
fn prim_text(
    var: u32,
    op: PrimOp,
    args: &[u32],
    width: u32,
    widths: &BTreeMap<u32, u32>,
) -> String {
    let w = |x: u32| widths.get(&x).copied().unwrap_or(1).max(1);
    let a = args.first().copied().unwrap_or(0);
    let b = args.get(1).copied().unwrap_or(0);
    let (wa, wb) = (w(a), w(b));
    let u = |n: u32| ty(n);
    let si = |n: u32| format!("!firrtl.sint<{}>", n.max(1));
    let mut lines = Vec::new();
    let mut tmp = 0;
    let mut fresh = || {
        tmp += 1;
        format!("%v{var}_{tmp}")
    };
    let trunc = |lines: &mut Vec<String>, src: &str, src_w: u32| {
        lines.push(format!(
            "%v{var} = firrtl.bits {src} {} to 0 : ({}) -> {}",
            width.max(1) - 1,
            u(src_w),
            u(width)
        ));
    };
    match op {
        PrimOp::Add | PrimOp::Sub | PrimOp::Mul | PrimOp::And | PrimOp::Or | PrimOp::Xor => {
            // FIRRTL widens add/sub by one bit and mul to the sum of widths; bitwise ops take
            // the wider operand. The result is truncated back to the op's width.
            let (name, rw) = match op {
                PrimOp::Add => ("add", wa.max(wb) + 1),
                PrimOp::Sub => ("sub", wa.max(wb) + 1),
                PrimOp::Mul => ("mul", wa + wb),
                PrimOp::And => ("and", wa.max(wb)),
                PrimOp::Or => ("or", wa.max(wb)),
                _ => ("xor", wa.max(wb)),
            };
            let t = fresh();
            lines.push(format!(
                "{t} = firrtl.{name} %v{a}, %v{b} : ({}, {}) -> {}",
                u(wa),
                u(wb),
                u(rw)
            ));
            trunc(&mut lines, &t, rw);
        }
        PrimOp::Shl | PrimOp::ShrU => {
            let (name, rw) = if op == PrimOp::Shl {
                ("dshl", wa + (1u32 << wb.min(5)) - 1)
            } else {
                ("dshr", wa)
            };
            let t = fresh();
            lines.push(format!(
                "{t} = firrtl.{name} %v{a}, %v{b} : ({}, {}) -> {}",
                u(wa),
                u(wb),
                u(rw)
            ));
            trunc(&mut lines, &t, rw);
        }
        PrimOp::ShrS => {
            let (s, t, r) = (fresh(), fresh(), fresh());
            lines.push(format!(
                "{s} = firrtl.asSInt %v{a} : ({}) -> {}",
                u(wa),
                si(wa)
            ));
            lines.push(format!(
                "{t} = firrtl.dshr {s}, %v{b} : ({}, {}) -> {}",
                si(wa),
                u(wb),
                si(wa)
            ));
            lines.push(format!(
                "{r} = firrtl.asUInt {t} : ({}) -> {}",
                si(wa),
                u(wa)
            ));
            trunc(&mut lines, &r, wa);
        }
        PrimOp::Eq | PrimOp::Ne | PrimOp::Ult | PrimOp::Ule | PrimOp::Ugt | PrimOp::Uge => {
            let name = match op {
                PrimOp::Eq => "eq",
                PrimOp::Ne => "neq",
                PrimOp::Ult => "lt",
                PrimOp::Ule => "leq",
                PrimOp::Ugt => "gt",
                _ => "geq",
            };
            lines.push(format!(
                "%v{var} = firrtl.{name} %v{a}, %v{b} : ({}, {}) -> {}",
                u(wa),
                u(wb),
                u(1)
            ));
        }
        PrimOp::Slt | PrimOp::Sle | PrimOp::Sgt | PrimOp::Sge => {
            let name = match op {
                PrimOp::Slt => "lt",
                PrimOp::Sle => "leq",
                PrimOp::Sgt => "gt",
                _ => "geq",
            };
            let (x, y) = (fresh(), fresh());
            lines.push(format!(
                "{x} = firrtl.asSInt %v{a} : ({}) -> {}",
                u(wa),
                si(wa)
            ));
            lines.push(format!(
                "{y} = firrtl.asSInt %v{b} : ({}) -> {}",
                u(wb),
                si(wb)
            ));
            lines.push(format!(
                "%v{var} = firrtl.{name} {x}, {y} : ({}, {}) -> {}",
                si(wa),
                si(wb),
                u(1)
            ));
        }
        PrimOp::Mux => {
            let c = args.get(2).copied().unwrap_or(0);
            let wc = w(c);
            let rw = wb.max(wc);
            let t = fresh();
            lines.push(format!(
                "{t} = firrtl.mux(%v{a}, %v{b}, %v{c}) : ({}, {}, {}) -> {}",
                u(wa),
                u(wb),
                u(wc),
                u(rw)
            ));
            trunc(&mut lines, &t, rw);
        }
        PrimOp::Bits { lo } => {
            lines.push(format!(
                "%v{var} = firrtl.bits %v{a} {} to {lo} : ({}) -> {}",
                lo + width.max(1) - 1,
                u(wa),
                u(width)
            ));
        }
        PrimOp::ZExt => {
            let t = fresh();
            lines.push(format!(
                "{t} = firrtl.pad %v{a}, {width} : ({}) -> {}",
                u(wa),
                u(width.max(wa))
            ));
            trunc(&mut lines, &t, width.max(wa));
        }
        PrimOp::SExt => {
            let (s, p, r) = (fresh(), fresh(), fresh());
            let pw = width.max(wa);
            lines.push(format!(
                "{s} = firrtl.asSInt %v{a} : ({}) -> {}",
                u(wa),
                si(wa)
            ));
            lines.push(format!(
                "{p} = firrtl.pad {s}, {width} : ({}) -> {}",
                si(wa),
                si(pw)
            ));
            lines.push(format!(
                "{r} = firrtl.asUInt {p} : ({}) -> {}",
                si(pw),
                u(pw)
            ));
            trunc(&mut lines, &r, pw);
        }
    }
    lines.join("\n")
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
