//! Emitters for the rule IR: CMT2 MLIR text (the syntax of circt-cmt2's `test/Dialect/Cmt2`
//! samples), JSON, and Graphviz DOT (rules, FIFOs and the blocks they belong to).
//!
//! All three are pure functions of the circuit; iteration follows the circuit's `Vec`
//! order, so equal circuits give byte-identical text.

use super::{Circuit, Expr, Instance, InstanceKind, PrimOp, Rule, Stmt};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The circuit as compact JSON (serde's shape of [`Circuit`]) and a final newline.
pub fn to_json(circuit: &Circuit) -> String {
    let (head, tail) = json_head_tail(circuit);
    let mut out = Vec::with_capacity(json_capacity(circuit));
    out.extend_from_slice(head.as_bytes());
    write_rules_json(&mut out, &circuit.rules);
    out.extend_from_slice(tail.as_bytes());
    String::from_utf8(out).unwrap_or_default()
}

/// What [`to_json`] writes before the first rule and after the last one; the rules go in
/// between, comma-separated.
pub fn json_head_tail(circuit_without_rules: &Circuit) -> (String, String) {
    let c = circuit_without_rules;
    let mut head = Vec::with_capacity(64 + 96 * c.instances.len());
    head.extend_from_slice(b"{\"name\":");
    let _ = serde_json::to_writer(&mut head, &c.name);
    head.extend_from_slice(b",\"instances\":");
    let _ = serde_json::to_writer(&mut head, &c.instances);
    head.extend_from_slice(b",\"rules\":[");
    let names: usize = c.schedule.iter().map(|n| n.len() + 3).sum::<usize>()
        + c.precedence
            .iter()
            .map(|(a, b)| a.len() + b.len() + 8)
            .sum::<usize>();
    let mut tail = Vec::with_capacity(64 + names);
    tail.extend_from_slice(b"],\"precedence\":");
    let _ = serde_json::to_writer(&mut tail, &c.precedence);
    tail.extend_from_slice(b",\"schedule\":");
    let _ = serde_json::to_writer(&mut tail, &c.schedule);
    tail.extend_from_slice(b"}\n");
    let text = |v: Vec<u8>| String::from_utf8(v).unwrap_or_default();
    (text(head), text(tail))
}

/// JSON of each rule, comma-joined (the inside of the `rules` array of [`to_json`]).
pub fn rules_json(rules: &[Rule]) -> String {
    let mut out = Vec::with_capacity(rules.iter().map(rule_capacity).sum());
    write_rules_json(&mut out, rules);
    String::from_utf8(out).unwrap_or_default()
}

/// Append the JSON of each rule, comma-joined, to `out`: byte for byte what `serde_json`
/// writes for [`Rule`] (checked by tests), without going through serde's data model.
pub fn write_rules_json(out: &mut Vec<u8>, rules: &[Rule]) {
    for (i, r) in rules.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        rule_json(out, r);
    }
}

fn rule_json(out: &mut Vec<u8>, r: &Rule) {
    out.extend_from_slice(b"{\"name\":");
    json_str(out, &r.name);
    out.extend_from_slice(b",\"origin\":");
    json_str(out, &r.origin);
    out.extend_from_slice(b",\"guard\":");
    match &r.guard {
        None => out.extend_from_slice(b"null"),
        Some((stmts, var)) => {
            out.push(b'[');
            stmts_json(out, stmts);
            out.push(b',');
            json_u128(out, u128::from(*var));
            out.push(b']');
        }
    }
    out.extend_from_slice(b",\"body\":");
    stmts_json(out, &r.body);
    out.push(b'}');
}

/// A JSON array of `items`, each written by `item`.
fn list_json<T>(out: &mut Vec<u8>, items: &[T], item: impl Fn(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        item(out, x);
    }
    out.push(b']');
}

fn stmts_json(out: &mut Vec<u8>, stmts: &[Stmt]) {
    list_json(out, stmts, stmt_json);
}

fn vars_json(out: &mut Vec<u8>, vars: &[u32]) {
    list_json(out, vars, |out, v| json_u128(out, u128::from(*v)));
}

fn stmt_json(out: &mut Vec<u8>, s: &Stmt) {
    match s {
        Stmt::Let { var, width, expr } => {
            out.extend_from_slice(b"{\"let\":{\"var\":");
            json_u128(out, u128::from(*var));
            out.extend_from_slice(b",\"width\":");
            json_u128(out, u128::from(*width));
            out.extend_from_slice(b",\"expr\":");
            match expr {
                Expr::Const(c) => {
                    out.extend_from_slice(b"{\"const\":");
                    json_u128(out, *c);
                    out.push(b'}');
                }
                Expr::Prim(op, args) => {
                    out.extend_from_slice(b"{\"prim\":[");
                    prim_json(out, *op);
                    out.push(b',');
                    vars_json(out, args);
                    out.extend_from_slice(b"]}");
                }
            }
            out.extend_from_slice(b"}}");
        }
        Stmt::Call {
            result,
            inst,
            method,
            args,
        } => {
            out.extend_from_slice(b"{\"call\":{\"result\":");
            match result {
                None => out.extend_from_slice(b"null"),
                Some((var, width)) => {
                    out.push(b'[');
                    json_u128(out, u128::from(*var));
                    out.push(b',');
                    json_u128(out, u128::from(*width));
                    out.push(b']');
                }
            }
            out.extend_from_slice(b",\"inst\":");
            json_str(out, inst);
            out.extend_from_slice(b",\"method\":");
            json_str(out, method);
            out.extend_from_slice(b",\"args\":");
            vars_json(out, args);
            out.extend_from_slice(b"}}");
        }
        Stmt::If {
            cond,
            then_body,
            else_body,
        } => {
            out.extend_from_slice(b"{\"if\":{\"cond\":");
            json_u128(out, u128::from(*cond));
            out.extend_from_slice(b",\"then_body\":");
            stmts_json(out, then_body);
            out.extend_from_slice(b",\"else_body\":");
            stmts_json(out, else_body);
            out.extend_from_slice(b"}}");
        }
    }
}

/// serde's `snake_case` names of the unit variants; `Bits` is a struct variant.
fn prim_json(out: &mut Vec<u8>, op: PrimOp) {
    let name: &[u8] = match op {
        PrimOp::Add => b"\"add\"",
        PrimOp::Sub => b"\"sub\"",
        PrimOp::Mul => b"\"mul\"",
        PrimOp::And => b"\"and\"",
        PrimOp::Or => b"\"or\"",
        PrimOp::Xor => b"\"xor\"",
        PrimOp::Shl => b"\"shl\"",
        PrimOp::ShrU => b"\"shr_u\"",
        PrimOp::ShrS => b"\"shr_s\"",
        PrimOp::Eq => b"\"eq\"",
        PrimOp::Ne => b"\"ne\"",
        PrimOp::Ult => b"\"ult\"",
        PrimOp::Ule => b"\"ule\"",
        PrimOp::Ugt => b"\"ugt\"",
        PrimOp::Uge => b"\"uge\"",
        PrimOp::Slt => b"\"slt\"",
        PrimOp::Sle => b"\"sle\"",
        PrimOp::Sgt => b"\"sgt\"",
        PrimOp::Sge => b"\"sge\"",
        PrimOp::Mux => b"\"mux\"",
        PrimOp::Bits { lo } => {
            out.extend_from_slice(b"{\"bits\":{\"lo\":");
            json_u128(out, u128::from(lo));
            out.extend_from_slice(b"}}");
            return;
        }
        PrimOp::ZExt => b"\"z_ext\"",
        PrimOp::SExt => b"\"s_ext\"",
    };
    out.extend_from_slice(name);
}

fn json_u128(out: &mut Vec<u8>, mut v: u128) {
    let mut buf = [0u8; 39];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// A JSON string; names rarely need escapes, and those that do go through `serde_json`.
fn json_str(out: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        return;
    }
    let _ = serde_json::to_writer(&mut *out, s);
}

/// An upper estimate of the bytes one rule takes in either output: reserving it up front
/// avoids re-copying large buffers as they grow (capacity never written is never touched).
pub fn rule_capacity(rule: &Rule) -> usize {
    let guard = rule.guard.as_ref().map_or(0, |(g, _)| stmts_capacity(g));
    160 + 2 * (rule.name.len() + rule.origin.len()) + guard + stmts_capacity(&rule.body)
}

fn stmts_capacity(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| match s {
            Stmt::Let { .. } => 480,
            Stmt::Call {
                inst, method, args, ..
            } => 120 + inst.len() + 2 * method.len() + 40 * args.len(),
            Stmt::If {
                then_body,
                else_body,
                ..
            } => 120 + stmts_capacity(then_body) + stmts_capacity(else_body),
        })
        .sum()
}

fn json_capacity(c: &Circuit) -> usize {
    let head: usize = c.instances.iter().map(|i| 96 + i.name.len()).sum();
    let tail: usize = c.schedule.iter().map(|n| n.len() + 3).sum::<usize>()
        + c.precedence
            .iter()
            .map(|(a, b)| a.len() + b.len() + 8)
            .sum::<usize>();
    head + tail + c.rules.iter().map(rule_capacity).sum::<usize>()
}

/// Appends text pieces to a `String` without intermediate allocations.
struct W<'a>(&'a mut String);

impl W<'_> {
    fn s(&mut self, text: &str) -> &mut Self {
        self.0.push_str(text);
        self
    }

    fn n(&mut self, mut v: u32) -> &mut Self {
        let mut buf = [0u8; 10];
        let mut i = buf.len();
        loop {
            i -= 1;
            buf[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.0
            .push_str(std::str::from_utf8(&buf[i..]).unwrap_or_default());
        self
    }

    /// `%v<var>`.
    fn v(&mut self, var: u32) -> &mut Self {
        self.s("%v").n(var)
    }

    /// `%v<var>_<k>`: the `k`-th temporary of a primitive lowered to several ops.
    fn t(&mut self, var: u32, k: u32) -> &mut Self {
        self.v(var).s("_").n(k)
    }

    /// `!firrtl.uint<w>` (at least one bit).
    fn u(&mut self, width: u32) -> &mut Self {
        self.s("!firrtl.uint<").n(width.max(1)).s(">")
    }

    /// `!firrtl.sint<w>` (at least one bit).
    fn si(&mut self, width: u32) -> &mut Self {
        self.s("!firrtl.sint<").n(width.max(1)).s(">")
    }

    fn pad(&mut self, indent: usize) -> &mut Self {
        const SPACES: &str = "                                ";
        let mut left = indent;
        while left > 0 {
            let k = left.min(SPACES.len());
            self.0.push_str(&SPACES[..k]);
            left -= k;
        }
        self
    }
}

/// Widths of a rule's variables as far as emitted (unknown: 0, printed as 1 bit). Variables
/// are dense small numbers (`BodyBuilder`), so a vector; huge ones go to a map.
#[derive(Default)]
struct Widths {
    dense: Vec<u32>,
    sparse: BTreeMap<u32, u32>,
}

impl Widths {
    const DENSE: u32 = 1 << 16;

    fn set(&mut self, var: u32, width: u32) {
        if var >= Self::DENSE {
            self.sparse.insert(var, width);
            return;
        }
        let i = var as usize;
        if i >= self.dense.len() {
            self.dense.resize(i + 1, 0);
        }
        self.dense[i] = width;
    }

    /// The width as printed (at least 1).
    fn get(&self, var: u32) -> u32 {
        let w = if var >= Self::DENSE {
            self.sparse.get(&var).copied()
        } else {
            self.dense.get(var as usize).copied()
        };
        w.unwrap_or(0).max(1)
    }
}

fn push_module_name(out: &mut String, inst: &Instance) {
    let mut w = W(out);
    match &inst.kind {
        InstanceKind::Fifo { width, depth } if *depth <= 1 => {
            w.s("FIFO1_PUSH_w").n(*width);
        }
        InstanceKind::Fifo { width, depth } => {
            w.s("FIFO").n(*depth).s("_I_w").n(*width);
        }
        InstanceKind::Reg { width, init } => {
            w.s("Reg_width").n(*width);
            let _ = write!(w.0, "_init{init}");
        }
        InstanceKind::Bank { width, depth, .. } => {
            w.s("Mem1r1w_w").n(*width).s("_d").n(*depth);
        }
        InstanceKind::Rocc => {
            w.s("RoCCAdapter");
        }
        InstanceKind::Dma { .. } => {
            w.s("BurstDMAController");
        }
        InstanceKind::MemPort => {
            w.s("MemoryTranslator");
        }
    }
}

/// CMT2 MLIR: one `cmt2.circuit` with an extern declaration per primitive module and a
/// `main` module holding the instances, rules and precedence.
pub fn emit_cmt2(circuit: &Circuit) -> String {
    let rules: usize = circuit.rules.iter().map(rule_capacity).sum();
    let mut out = String::with_capacity(header_capacity(&circuit.instances) + rules);
    write_cmt2_header(&mut out, &circuit.name, &circuit.instances);
    write_cmt2_rules(&mut out, &circuit.rules);
    write_cmt2_footer(&mut out, &circuit.precedence);
    out
}

fn header_capacity(instances: &[Instance]) -> usize {
    4096 + instances.iter().map(|i| 120 + i.name.len()).sum::<usize>()
}

/// Everything of [`emit_cmt2`] before the first rule.
pub fn cmt2_header(name: &str, instances: &[Instance]) -> String {
    let mut out = String::with_capacity(header_capacity(instances));
    write_cmt2_header(&mut out, name, instances);
    out
}

/// Append [`cmt2_header`] to `out`.
pub fn write_cmt2_header(out: &mut String, name: &str, instances: &[Instance]) {
    let _ = writeln!(out, "// kiln: rules for `{name}`");
    out.push_str("cmt2.circuit {\n");
    let mut modules: BTreeMap<String, &Instance> = BTreeMap::new();
    let mut module = String::new();
    for inst in instances {
        module.clear();
        push_module_name(&mut module, inst);
        if !modules.contains_key(module.as_str()) {
            modules.insert(module.clone(), inst);
        }
    }
    for (name, inst) in &modules {
        emit_extern(out, name, inst);
    }
    out.push_str("  cmt2.module @main(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {\n");
    for inst in instances {
        out.push_str("    cmt2.instance @");
        out.push_str(&inst.name);
        out.push_str(" = @");
        push_module_name(out, inst);
        out.push_str("(%clk, %rst) : !firrtl.clock, !firrtl.uint<1> with []\n");
    }
}

/// The rules of [`emit_cmt2`], in order.
pub fn cmt2_rules(rules: &[Rule]) -> String {
    let mut out = String::with_capacity(rules.iter().map(rule_capacity).sum());
    write_cmt2_rules(&mut out, rules);
    out
}

/// Append [`cmt2_rules`] to `out`.
pub fn write_cmt2_rules(out: &mut String, rules: &[Rule]) {
    let mut widths = Widths::default();
    for rule in rules {
        widths.dense.clear();
        widths.sparse.clear();
        emit_rule(out, rule, &mut widths);
    }
}

/// Everything of [`emit_cmt2`] after the last rule.
pub fn cmt2_footer(precedence: &[(String, String)]) -> String {
    let names: usize = precedence.iter().map(|(a, b)| a.len() + b.len() + 8).sum();
    let mut out = String::with_capacity(64 + names);
    write_cmt2_footer(&mut out, precedence);
    out
}

/// Append [`cmt2_footer`] to `out`.
pub fn write_cmt2_footer(out: &mut String, precedence: &[(String, String)]) {
    out.push_str("  } {precedence = [");
    for (i, (a, b)) in precedence.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        W(out).s("[@").s(a).s(", @").s(b).s("]");
    }
    out.push_str("]}\n}\n");
}

fn emit_extern(out: &mut String, name: &str, inst: &Instance) {
    let methods: &[(&str, bool)] = match &inst.kind {
        InstanceKind::Fifo { .. } => &[("enq", false), ("deq", false)],
        InstanceKind::Reg { .. } => &[("read", true), ("write", false)],
        InstanceKind::Bank { .. } => &[
            ("read", true),
            ("read_0", false),
            ("read_1", true),
            ("write", false),
        ],
        InstanceKind::Rocc => &[("resp_from_user", false)],
        InstanceKind::Dma { .. } => &[
            ("cpu_to_isax", false),
            ("isax_to_cpu", false),
            ("poll_for_idle", true),
        ],
        InstanceKind::MemPort => &[
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
        let kind = if *is_value { "value" } else { "method" };
        let _ = writeln!(
            out,
            "    cmt2.bind.{kind} @{m} : () -> ()[enable = \"{m}_enable\", ready = \"{m}_ready\", arguments = [], results = []]"
        );
    }
    out.push_str("  }\n");
}

fn emit_rule(out: &mut String, rule: &Rule, widths: &mut Widths) {
    W(out).s("    cmt2.rule @").s(&rule.name).s(" () -> () {\n");
    match &rule.guard {
        Some((stmts, result)) => {
            emit_stmts(out, stmts, widths, 6);
            W(out)
                .s("      cmt2.return ")
                .v(*result)
                .s(" : !firrtl.uint<1>\n");
        }
        None => {
            out.push_str("      %c1_ui1 = firrtl.constant 1 : !firrtl.uint<1>\n");
            out.push_str("      cmt2.return %c1_ui1 : !firrtl.uint<1>\n");
        }
    }
    out.push_str("    } {\n");
    emit_stmts(out, &rule.body, widths, 6);
    out.push_str("      cmt2.return\n    }\n");
}

fn emit_stmts(out: &mut String, stmts: &[Stmt], widths: &mut Widths, indent: usize) {
    for stmt in stmts {
        match stmt {
            Stmt::Let { var, width, expr } => {
                widths.set(*var, *width);
                match expr {
                    Expr::Const(c) => {
                        W(out).pad(indent).v(*var).s(" = firrtl.constant ");
                        let _ = write!(out, "{c}");
                        W(out).s(" : ").u(*width).s("\n");
                    }
                    Expr::Prim(op, args) => {
                        emit_prim(out, indent, (*var, *width), *op, args, widths);
                    }
                }
            }
            Stmt::Call {
                result,
                inst,
                method,
                args,
            } => {
                let mut w = W(out);
                w.pad(indent);
                if let Some((var, _)) = result {
                    w.v(*var).s(" = ");
                }
                w.s("cmt2.call @").s(inst).s(" @").s(method).s("(");
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        w.s(", ");
                    }
                    w.v(*a);
                }
                w.s(") : (");
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        w.s(", ");
                    }
                    w.u(widths.get(*a));
                }
                w.s(") -> ");
                match result {
                    Some((var, width)) => {
                        w.u(*width).s("\n");
                        widths.set(*var, *width);
                    }
                    None => {
                        w.s("()\n");
                    }
                }
            }
            Stmt::If {
                cond,
                then_body,
                else_body,
            } => {
                W(out).pad(indent).s("cmt2.if ").v(*cond).s(" {\n");
                emit_stmts(out, then_body, widths, indent + 2);
                W(out).pad(indent).s("} else {\n");
                emit_stmts(out, else_body, widths, indent + 2);
                W(out).pad(indent).s("}\n");
            }
        }
    }
}

/// One primitive as FIRRTL ops, one line each: widening ops (`add`, `sub`, `mul`, `dshl`,
/// `pad`) are followed by `bits` back to the result width; signed ops go through
/// `asSInt`/`asUInt`. `def` is the defined variable and its width.
fn emit_prim(
    out: &mut String,
    ind: usize,
    def: (u32, u32),
    op: PrimOp,
    args: &[u32],
    widths: &Widths,
) {
    let (var, width) = def;
    let a = args.first().copied().unwrap_or(0);
    let b = args.get(1).copied().unwrap_or(0);
    let (wa, wb) = (widths.get(a), widths.get(b));
    let mut w = W(out);
    // `%v<var> = firrtl.bits <src> <width-1> to 0 : (<src type>) -> <type>`.
    let trunc = |w: &mut W, src: u32, src_w: u32| {
        w.pad(ind).v(var).s(" = firrtl.bits ").t(var, src).s(" ");
        w.n(width.max(1) - 1)
            .s(" to 0 : (")
            .u(src_w)
            .s(") -> ")
            .u(width)
            .s("\n");
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
            binary(&mut w, ind, (var, 1), name, (a, wa), (b, wb), rw);
            trunc(&mut w, 1, rw);
        }
        PrimOp::Shl | PrimOp::ShrU => {
            let (name, rw) = if op == PrimOp::Shl {
                ("dshl", wa + (1u32 << wb.min(5)) - 1)
            } else {
                ("dshr", wa)
            };
            binary(&mut w, ind, (var, 1), name, (a, wa), (b, wb), rw);
            trunc(&mut w, 1, rw);
        }
        PrimOp::ShrS => {
            w.pad(ind).t(var, 1).s(" = firrtl.asSInt ").v(a);
            w.s(" : (").u(wa).s(") -> ").si(wa).s("\n");
            w.pad(ind)
                .t(var, 2)
                .s(" = firrtl.dshr ")
                .t(var, 1)
                .s(", ")
                .v(b);
            w.s(" : (").si(wa).s(", ").u(wb).s(") -> ").si(wa).s("\n");
            w.pad(ind).t(var, 3).s(" = firrtl.asUInt ").t(var, 2);
            w.s(" : (").si(wa).s(") -> ").u(wa).s("\n");
            trunc(&mut w, 3, wa);
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
            w.pad(ind)
                .v(var)
                .s(" = firrtl.")
                .s(name)
                .s(" ")
                .v(a)
                .s(", ")
                .v(b);
            w.s(" : (").u(wa).s(", ").u(wb).s(") -> ").u(1).s("\n");
        }
        PrimOp::Slt | PrimOp::Sle | PrimOp::Sgt | PrimOp::Sge => {
            let name = match op {
                PrimOp::Slt => "lt",
                PrimOp::Sle => "leq",
                PrimOp::Sgt => "gt",
                _ => "geq",
            };
            w.pad(ind).t(var, 1).s(" = firrtl.asSInt ").v(a);
            w.s(" : (").u(wa).s(") -> ").si(wa).s("\n");
            w.pad(ind).t(var, 2).s(" = firrtl.asSInt ").v(b);
            w.s(" : (").u(wb).s(") -> ").si(wb).s("\n");
            w.pad(ind)
                .v(var)
                .s(" = firrtl.")
                .s(name)
                .s(" ")
                .t(var, 1)
                .s(", ")
                .t(var, 2);
            w.s(" : (").si(wa).s(", ").si(wb).s(") -> ").u(1).s("\n");
        }
        PrimOp::Mux => {
            let c = args.get(2).copied().unwrap_or(0);
            let wc = widths.get(c);
            let rw = wb.max(wc);
            w.pad(ind)
                .t(var, 1)
                .s(" = firrtl.mux(")
                .v(a)
                .s(", ")
                .v(b)
                .s(", ")
                .v(c);
            w.s(") : (")
                .u(wa)
                .s(", ")
                .u(wb)
                .s(", ")
                .u(wc)
                .s(") -> ")
                .u(rw)
                .s("\n");
            trunc(&mut w, 1, rw);
        }
        PrimOp::Bits { lo } => {
            w.pad(ind).v(var).s(" = firrtl.bits ").v(a).s(" ");
            w.n(lo + width.max(1) - 1).s(" to ").n(lo);
            w.s(" : (").u(wa).s(") -> ").u(width).s("\n");
        }
        PrimOp::ZExt => {
            let pw = width.max(wa);
            w.pad(ind)
                .t(var, 1)
                .s(" = firrtl.pad ")
                .v(a)
                .s(", ")
                .n(width);
            w.s(" : (").u(wa).s(") -> ").u(pw).s("\n");
            trunc(&mut w, 1, pw);
        }
        PrimOp::SExt => {
            let pw = width.max(wa);
            w.pad(ind).t(var, 1).s(" = firrtl.asSInt ").v(a);
            w.s(" : (").u(wa).s(") -> ").si(wa).s("\n");
            w.pad(ind)
                .t(var, 2)
                .s(" = firrtl.pad ")
                .t(var, 1)
                .s(", ")
                .n(width);
            w.s(" : (").si(wa).s(") -> ").si(pw).s("\n");
            w.pad(ind).t(var, 3).s(" = firrtl.asUInt ").t(var, 2);
            w.s(" : (").si(pw).s(") -> ").u(pw).s("\n");
            trunc(&mut w, 3, pw);
        }
    }
}

/// `<tmp> = firrtl.<name> %v<a>, %v<b> : (<ta>, <tb>) -> <result type>`.
fn binary(
    w: &mut W,
    ind: usize,
    tmp: (u32, u32),
    name: &str,
    (a, wa): (u32, u32),
    (b, wb): (u32, u32),
    rw: u32,
) {
    w.pad(ind)
        .t(tmp.0, tmp.1)
        .s(" = firrtl.")
        .s(name)
        .s(" ")
        .v(a)
        .s(", ")
        .v(b);
    w.s(" : (").u(wa).s(", ").u(wb).s(") -> ").u(rw).s("\n");
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::BodyBuilder;

    const PRIMS: [PrimOp; 23] = [
        PrimOp::Add,
        PrimOp::Sub,
        PrimOp::Mul,
        PrimOp::And,
        PrimOp::Or,
        PrimOp::Xor,
        PrimOp::Shl,
        PrimOp::ShrU,
        PrimOp::ShrS,
        PrimOp::Eq,
        PrimOp::Ne,
        PrimOp::Ult,
        PrimOp::Ule,
        PrimOp::Ugt,
        PrimOp::Uge,
        PrimOp::Slt,
        PrimOp::Sle,
        PrimOp::Sgt,
        PrimOp::Sge,
        PrimOp::Mux,
        PrimOp::Bits { lo: 7 },
        PrimOp::ZExt,
        PrimOp::SExt,
    ];

    /// A rule using every statement and primitive form, names that need JSON escapes, and
    /// the largest constant.
    fn odd_rule() -> Rule {
        let mut b = BodyBuilder::new();
        let x = b.konst(u128::MAX, 128);
        let y = b.konst(0, 1);
        for op in PRIMS {
            b.prim(op, vec![x, y, x], 17);
        }
        b.if_else(
            y,
            |t| t.call("q\"uote\\back\u{1}\n\u{7f}é", "enq", vec![x]),
            |e| {
                e.call_value("r", "deq", vec![], 3);
            },
        );
        let g = BodyBuilder::new();
        Rule {
            name: "rule\ttab".into(),
            origin: "ö".into(),
            guard: Some((g.stmts, 4_000_000_000)),
            body: b.stmts,
        }
    }

    #[test]
    fn hand_written_rule_json_is_serde_json() {
        let mut rules = vec![odd_rule()];
        for seed in 0..6 {
            let text = crate::aps::workload::generate(5, seed);
            let m = crate::mlir::parse(&text).unwrap();
            for c in crate::aps::build_module(&m).unwrap() {
                rules.extend(c.rules);
            }
        }
        for r in &rules {
            let mut ours = Vec::new();
            write_rules_json(&mut ours, std::slice::from_ref(r));
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                serde_json::to_string(r).unwrap()
            );
        }
        let c = Circuit {
            name: "n\"".into(),
            rules,
            precedence: vec![("a".into(), "b".into())],
            schedule: vec!["a".into()],
            ..Circuit::default()
        };
        assert_eq!(to_json(&c), serde_json::to_string(&c).unwrap() + "\n");
    }

    #[test]
    fn every_primitive_has_cmt2_text() {
        let text = emit_cmt2(&Circuit {
            rules: vec![odd_rule()],
            ..Circuit::default()
        });
        for name in [
            "firrtl.dshl",
            "firrtl.mux(",
            "firrtl.pad",
            "firrtl.asSInt",
            "cmt2.if",
        ] {
            assert!(text.contains(name), "{name}");
        }
        assert!(text.contains("firrtl.constant 340282366920938463463374607431768211455"));
    }
}
