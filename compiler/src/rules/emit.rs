//! The CMT2 MLIR emitter for the rule IR (the syntax of circt-cmt2's `test/Dialect/Cmt2`
//! samples); the rules JSON is [`super::json`], Graphviz DOT [`super::dot`].
//!
//! A pure function of the circuit; iteration follows the circuit's `Vec` order, so equal
//! circuits give byte-identical text.

use super::mlir_text::{mlir_str, push_mlir_str, push_sym, sym};
use super::{Circuit, Expr, Instance, InstanceKind, PrimOp, Rule, Stmt, cmt2_lib};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// An upper estimate of the bytes one rule takes in either output: reserving it up front
/// avoids re-copying large buffers as they grow (capacity never written is never touched).
pub(crate) fn rule_capacity(rule: &Rule) -> usize {
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

/// Appends text pieces to a `String` without intermediate allocations.
struct W<'a>(&'a mut String);

impl W<'_> {
    fn s(&mut self, text: &str) -> &mut Self {
        self.0.push_str(text);
        self
    }

    fn n(&mut self, v: u32) -> &mut Self {
        self.0.push_str(itoa::Buffer::new().format(v));
        self
    }

    /// `%v<var>`.
    fn v(&mut self, var: u32) -> &mut Self {
        self.s("%v").n(var)
    }

    /// `!firrtl.uint<w>` (at least one bit).
    fn u(&mut self, width: u32) -> &mut Self {
        self.s("!firrtl.uint<").n(width.max(1)).s(">")
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

/// A library module the file defines or declares.
#[derive(Clone, Debug, PartialEq, Eq)]
enum LibDef {
    Reg {
        width: u32,
        init: u128,
    },
    Wire {
        width: u32,
    },
    Bank {
        width: u32,
        depth: u32,
        init: Vec<u128>,
        /// The union of the ports of the instances it backs.
        ports: Vec<super::BankPort>,
    },
    Fifo {
        width: u32,
        depth: u32,
    },
    /// The command register behind a `Rocc` instance ([`cmt2_lib::ROCC_CMD_MODULE`]).
    RoccCmd,
    /// The queues behind a `MemPort` instance ([`cmt2_lib::HELLA_MEM`]), with a port per
    /// call site in firing order.
    HellaMem {
        ports: Vec<super::BankPort>,
    },
}

/// The library a circuit's instances need: module definitions by name, and each
/// instance's module (`None` for an interface declaration).
struct Library {
    defs: BTreeMap<String, LibDef>,
    module_of: Vec<Option<String>>,
}

/// Initial contents without trailing zeros (equal contents share a bank module).
fn trimmed(init: &[u128]) -> &[u128] {
    let n = init.iter().rposition(|v| *v != 0).map_or(0, |i| i + 1);
    &init[..n]
}

fn library(instances: &[Instance], rules: &[Rule], schedule: &[String]) -> Library {
    // The rules' ports of each bank, then the DMA engine's burst lanes.
    let mut bank_ports = super::bank_ports(instances, rules);
    for (bank, port) in super::burst_ports(instances) {
        bank_ports.entry(bank).or_default().push(port);
    }
    // The ports each bank module has so far (a module backs the banks of one shape).
    let mut port_sets: std::collections::HashMap<
        String,
        crate::fxhash::FxHashSet<&super::BankPort>,
    > = Default::default();
    let mut defs = BTreeMap::new();
    let mut module_of = Vec::with_capacity(instances.len());
    let mut inits: Vec<(u32, u32, Vec<u128>)> = Vec::new();
    // Most instances are FIFOs and registers of a few shapes: name each shape once.
    let mut fifos: std::collections::HashMap<(u32, u32), String> = Default::default();
    let mut regs: std::collections::HashMap<(u32, u128), String> = Default::default();
    for inst in instances {
        let (name, def) = match &inst.kind {
            InstanceKind::Fifo { width, depth } => {
                let (w, d) = ((*width).max(1), (*depth).max(1));
                if let Some(n) = fifos.get(&(w, d)) {
                    module_of.push(Some(n.clone()));
                    continue;
                }
                for (n, part) in cmt2_lib::fifo_parts(w, d) {
                    let def = match part {
                        cmt2_lib::LibPart::Reg { width, init } => LibDef::Reg { width, init },
                        cmt2_lib::LibPart::Wire { width } => LibDef::Wire { width },
                    };
                    defs.entry(n).or_insert(def);
                }
                let n = cmt2_lib::fifo_name(w, d);
                fifos.insert((w, d), n.clone());
                (n, LibDef::Fifo { width: w, depth: d })
            }
            InstanceKind::Reg { width, init } => {
                let w = (*width).max(1);
                let init = super::mask(*init, w);
                if let Some(n) = regs.get(&(w, init)) {
                    module_of.push(Some(n.clone()));
                    continue;
                }
                let n = cmt2_lib::reg_name(w, init);
                regs.insert((w, init), n.clone());
                (n, LibDef::Reg { width: w, init })
            }
            InstanceKind::Bank { width, depth, init } => {
                let (w, d) = ((*width).max(1), (*depth).max(1));
                let t: Vec<u128> = trimmed(init)
                    .iter()
                    .take(d as usize)
                    .map(|v| super::mask(*v, w))
                    .collect();
                let t = trimmed(&t).to_vec();
                let k = if t.is_empty() {
                    None
                } else {
                    let key = (w, d, t.clone());
                    Some(inits.iter().position(|x| *x == key).unwrap_or_else(|| {
                        inits.push(key);
                        inits.len() - 1
                    }))
                };
                let name = cmt2_lib::bank_name(w, d, k);
                let def = defs.entry(name.clone()).or_insert(LibDef::Bank {
                    width: w,
                    depth: d,
                    init: t,
                    ports: Vec::new(),
                });
                if let LibDef::Bank { ports, .. } = def {
                    let seen = port_sets.entry(name.clone()).or_default();
                    for p in bank_ports.get(inst.name.as_str()).into_iter().flatten() {
                        if seen.insert(p) {
                            ports.push(p.clone());
                        }
                    }
                }
                module_of.push(Some(name));
                continue;
            }
            InstanceKind::Rocc => (cmt2_lib::ROCC_CMD_MODULE.to_string(), LibDef::RoccCmd),
            InstanceKind::MemPort => {
                let ports = bank_ports
                    .get(inst.name.as_str())
                    .cloned()
                    .unwrap_or_default();
                (
                    cmt2_lib::HELLA_MEM.to_string(),
                    LibDef::HellaMem {
                        ports: super::mem_ports(ports, schedule),
                    },
                )
            }
            InstanceKind::Csr { .. } => {
                // A declaration, and its latch register.
                defs.entry(cmt2_lib::csr_latch_module())
                    .or_insert(LibDef::Reg { width: 32, init: 0 });
                module_of.push(None);
                continue;
            }
            InstanceKind::Dma { .. } => {
                // A declaration, and the register of the burst read's second phase.
                defs.entry(cmt2_lib::burst_q_module())
                    .or_insert(LibDef::Reg { width: 64, init: 0 });
                module_of.push(None);
                continue;
            }
            _ => {
                module_of.push(None);
                continue;
            }
        };
        defs.entry(name.clone()).or_insert(def);
        module_of.push(Some(name));
    }
    // A module's burst lanes after every rule's port (its writes land last).
    for def in defs.values_mut() {
        if let LibDef::Bank { ports, .. } = def {
            ports.sort_by_key(cmt2_lib::is_burst);
        }
    }
    Library { defs, module_of }
}

/// CMT2 MLIR: one `cmt2.circuit` holding the interfaces of the SoC side, the library
/// modules ([`cmt2_lib`]) and a `main` module with the instances, rules and the schedule
/// as `precedence`, and one `firrtl.circuit` with the FIRRTL modules behind the externs.
pub fn emit_cmt2(circuit: &Circuit) -> String {
    let rules: usize = circuit.rules.iter().map(rule_capacity).sum();
    let mut out = String::with_capacity(header_capacity(&circuit.instances) + rules);
    write_cmt2_header(
        &mut out,
        &circuit.name,
        &circuit.instances,
        &circuit.rules,
        &circuit.schedule,
    );
    write_cmt2_rules(&mut out, &circuit.instances, &circuit.rules);
    write_cmt2_footer(&mut out, circuit);
    out
}

fn header_capacity(instances: &[Instance]) -> usize {
    8192 + instances.iter().map(|i| 160 + i.name.len()).sum::<usize>()
}

/// Everything of [`emit_cmt2`] before the first rule; `rules` may be the circuit's
/// [`super::port_skeleton`] (the ports are all it takes of them), `schedule` is the
/// circuit's.
pub(crate) fn cmt2_header(
    name: &str,
    instances: &[Instance],
    rules: &[Rule],
    schedule: &[String],
) -> String {
    let mut out = String::with_capacity(header_capacity(instances));
    write_cmt2_header(&mut out, name, instances, rules, schedule);
    out
}

/// Append [`cmt2_header`] to `out`.
pub(crate) fn write_cmt2_header(
    out: &mut String,
    name: &str,
    instances: &[Instance],
    rules: &[Rule],
    schedule: &[String],
) {
    let _ = writeln!(out, "// kiln: rules for `{name}`");
    out.push_str("module {\n  cmt2.circuit {\n");
    let lib = library(instances, rules, schedule);
    if instances.iter().any(|i| i.kind == InstanceKind::Rocc) {
        out.push_str(&cmt2_lib::rocc_resp_interface());
    }
    for i in instances {
        if let InstanceKind::Csr { .. } = i.kind {
            out.push_str(&cmt2_lib::csr_interface(&i.name));
        }
    }
    let mem = instances.iter().find(|i| i.kind == InstanceKind::MemPort);
    if mem.is_some() {
        out.push_str(&cmt2_lib::hella_cmd_interface());
    }
    for probe in [
        InstanceKind::Dma {
            entries: Vec::new(),
        },
        InstanceKind::Fault {
            message: String::new(),
        },
    ] {
        let used = instances
            .iter()
            .any(|i| std::mem::discriminant(&i.kind) == std::mem::discriminant(&probe));
        if used {
            out.push_str(&cmt2_lib::interface_text(&probe));
        }
    }
    for (n, def) in &lib.defs {
        match def {
            LibDef::Reg { width, .. } => out.push_str(&cmt2_lib::reg_extern(n, *width)),
            LibDef::Wire { width } => out.push_str(&cmt2_lib::wire_extern(n, *width)),
            LibDef::Bank {
                width,
                depth,
                ports,
                ..
            } => out.push_str(&cmt2_lib::bank_extern(n, *width, *depth, ports)),
            LibDef::RoccCmd => out.push_str(&cmt2_lib::rocc_cmd_extern()),
            LibDef::HellaMem { ports } => out.push_str(&cmt2_lib::hella_mem_extern(ports)),
            LibDef::Fifo { .. } => {}
        }
    }
    for def in lib.defs.values() {
        if let LibDef::Fifo { width, depth } = def {
            out.push_str(&cmt2_lib::fifo_module(*width, *depth));
        }
    }
    out.push_str("    cmt2.module @main(%clk: !firrtl.clock, %rst: !firrtl.uint<1>) {\n");
    for (inst, module) in instances.iter().zip(&lib.module_of) {
        match module {
            Some(m) => {
                let _ = writeln!(
                    out,
                    "      cmt2.instance {} = @{m}(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>",
                    sym(&inst.name)
                );
                if let Some((decl, itf)) = cmt2_lib::soc_decl(&inst.kind) {
                    let _ = writeln!(out, "      cmt2.interface.decl @{decl} : @{itf}");
                }
            }
            None => {
                let itf = match inst.kind {
                    InstanceKind::Csr { .. } => cmt2_lib::csr_interface_name(&inst.name),
                    _ => cmt2_lib::interface_name(&inst.kind)
                        .unwrap_or_default()
                        .to_string(),
                };
                let _ = write!(
                    out,
                    "      cmt2.interface.decl {} : @{itf}",
                    sym(&inst.name)
                );
                if let InstanceKind::Dma { entries } = &inst.kind {
                    out.push(' ');
                    out.push_str(&cmt2_lib::dma_attrs(entries));
                    let _ = write!(
                        out,
                        "\n      cmt2.instance {} = @{}(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>",
                        sym(cmt2_lib::BURST_Q),
                        cmt2_lib::burst_q_module()
                    );
                }
                if let InstanceKind::Fault { message } = &inst.kind {
                    out.push_str(" {kiln.message = ");
                    out.push_str(&mlir_str(message));
                    out.push('}');
                }
                if let InstanceKind::Csr { id, mask, init } = &inst.kind {
                    let _ = write!(
                        out,
                        " {{kiln.id = {id} : i64, kiln.init = {init} : i64, kiln.mask = {mask} : i64}}"
                    );
                }
                out.push('\n');
                if let InstanceKind::Csr { .. } = inst.kind {
                    let _ = writeln!(
                        out,
                        "      cmt2.instance {} = @{}(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>",
                        sym(&cmt2_lib::csr_latch(&inst.name)),
                        cmt2_lib::csr_latch_module()
                    );
                }
            }
        }
    }
    if instances
        .iter()
        .any(|i| matches!(i.kind, InstanceKind::Dma { .. }))
    {
        for (_, text) in cmt2_lib::burst_methods(instances) {
            out.push_str(&text);
        }
    }
    if let Some((_, text)) = cmt2_lib::top_rocc_cmd(instances) {
        out.push_str(&text);
    }
    if let Some(m) = mem {
        out.push_str(&cmt2_lib::hella_resp_method(&m.name));
        for (_, text) in cmt2_lib::hella_rules(&m.name) {
            out.push_str(&text);
        }
    }
}

/// The rules of [`emit_cmt2`], in order (`instances`: the circuit's, to tell banks).
pub(crate) fn cmt2_rules(instances: &[Instance], rules: &[Rule]) -> String {
    let mut out = String::with_capacity(rules.iter().map(rule_capacity).sum());
    write_cmt2_rules(&mut out, instances, rules);
    out
}

/// Append [`cmt2_rules`] to `out`.
pub(crate) fn write_cmt2_rules(out: &mut String, instances: &[Instance], rules: &[Rule]) {
    let banks = super::ported_names(instances);
    let glue: crate::fxhash::FxHashMap<&str, &InstanceKind> = instances
        .iter()
        .filter(|i| matches!(i.kind, InstanceKind::Rocc | InstanceKind::Csr { .. }))
        .map(|i| (i.name.as_str(), &i.kind))
        .collect();
    let mut widths = Widths::default();
    for rule in rules {
        widths.dense.clear();
        widths.sparse.clear();
        let mut cx = RuleCx {
            rule: &rule.name,
            banks: &banks,
            glue: &glue,
            ports: super::PortCounter::default(),
        };
        emit_rule(out, rule, &mut widths, &mut cx);
    }
}

/// What a rule's call sites need: which instances are banks, and the ports taken so far.
struct RuleCx<'a> {
    rule: &'a str,
    banks: &'a crate::fxhash::FxHashSet<&'a str>,
    /// The instances whose calls the convention names differently ([`cmt2_lib::glue_call`]).
    glue: &'a crate::fxhash::FxHashMap<&'a str, &'a InstanceKind>,
    ports: super::PortCounter<'a>,
}

/// Everything of [`emit_cmt2`] after the last rule, from the circuit without its rules:
/// `main`'s attributes (the circuit's name, its instructions, the schedule as a chain of
/// `precedence` pairs) and the FIRRTL modules of the library.
pub(crate) fn cmt2_footer(frame: &Circuit) -> String {
    let names: usize = frame.schedule.iter().map(|a| 2 * a.len() + 8).sum();
    let mut out = String::with_capacity(4096 + names);
    write_cmt2_footer(&mut out, frame);
    out
}

/// Append [`cmt2_footer`] to `out`.
pub(crate) fn write_cmt2_footer(out: &mut String, frame: &Circuit) {
    out.push_str("    } {kiln.circuit = ");
    out.push_str(&mlir_str(&frame.name));
    out.push_str(", kiln.instructions = [");
    for (i, ins) in frame.instructions.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str("{function = ");
        out.push_str(&mlir_str(&ins.function));
        let _ = write!(
            out,
            ", funct7 = {} : i32, opcode = {} : i32}}",
            ins.funct7, ins.opcode
        );
    }
    out.push_str("], precedence = [");
    // With a CPU-memory port, its glue rules open and close the chain.
    let hella = frame
        .instances
        .iter()
        .any(|i| i.kind == InstanceKind::MemPort);
    let chain = (hella.then_some(cmt2_lib::HELLA_SEND).into_iter())
        .chain(frame.schedule.iter().map(String::as_str))
        .chain(hella.then_some(cmt2_lib::HELLA_BYPASS));
    let mut prev: Option<&str> = None;
    for (i, name) in chain.enumerate() {
        if let Some(p) = prev {
            if i > 1 {
                out.push_str(", ");
            }
            out.push('[');
            push_sym(out, p);
            out.push_str(", ");
            push_sym(out, name);
            out.push(']');
        }
        prev = Some(name);
    }
    out.push_str("]}\n  }\n");
    let lib = library(&frame.instances, &frame.rules, &frame.schedule);
    let firrtl: Vec<(&String, &LibDef)> = lib
        .defs
        .iter()
        .filter(|(_, d)| !matches!(d, LibDef::Fifo { .. }))
        .collect();
    if let Some((first, _)) = firrtl.first() {
        let _ = writeln!(out, "  firrtl.circuit \"{first}\" {{");
        for (n, def) in &firrtl {
            match def {
                LibDef::Reg { width, init } => {
                    out.push_str(&cmt2_lib::reg_firrtl(n, *width, *init))
                }
                LibDef::Wire { width } => out.push_str(&cmt2_lib::wire_firrtl(n, *width)),
                LibDef::Bank {
                    width,
                    depth,
                    init,
                    ports,
                } => out.push_str(&cmt2_lib::bank_firrtl(n, *width, *depth, init, ports)),
                LibDef::RoccCmd => out.push_str(&cmt2_lib::rocc_cmd_firrtl()),
                LibDef::HellaMem { ports } => out.push_str(&cmt2_lib::hella_mem_firrtl(ports)),
                LibDef::Fifo { .. } => {}
            }
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
}

fn emit_rule<'a>(out: &mut String, rule: &'a Rule, widths: &mut Widths, cx: &mut RuleCx<'a>) {
    out.push_str("      cmt2.rule ");
    push_sym(out, &rule.name);
    out.push_str("() -> () attributes {kiln.origin = ");
    push_mlir_str(out, &rule.origin);
    out.push_str("} {\n");
    match &rule.guard {
        Some((stmts, result)) => {
            emit_stmts(out, stmts, widths, 8, cx);
            W(out)
                .s("        cmt2.return ")
                .v(*result)
                .s(" : !firrtl.uint<1>\n");
        }
        None => {
            out.push_str("        %true = firrtl.constant 1 : !firrtl.uint<1>\n");
            out.push_str("        cmt2.return %true : !firrtl.uint<1>\n");
        }
    }
    out.push_str("      } {\n");
    emit_stmts(out, &rule.body, widths, 8, cx);
    out.push_str("        cmt2.return\n      }\n");
}

fn emit_stmts<'a>(
    out: &mut String,
    stmts: &'a [Stmt],
    widths: &mut Widths,
    indent: usize,
    cx: &mut RuleCx<'a>,
) {
    for stmt in stmts {
        match stmt {
            Stmt::Let { var, width, expr } => {
                match expr {
                    Expr::Const(c) => {
                        W(out).pad(indent).v(*var).s(" = firrtl.constant ");
                        let _ = write!(out, "{}", super::mask(*c, (*width).max(1)));
                        W(out).s(" : ").u(*width).s("\n");
                    }
                    Expr::Prim(op, args) => {
                        Prim {
                            out,
                            ind: indent,
                            var: *var,
                            next: 1,
                        }
                        .emit((*width).max(1), *op, args, widths);
                    }
                }
                widths.set(*var, *width);
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
                let port = cx
                    .banks
                    .contains(inst.as_str())
                    .then(|| {
                        let m = super::BANK_PORT_METHODS.into_iter().find(|m| m == method)?;
                        Some(cx.ports.next(cx.rule, inst, m).name())
                    })
                    .flatten();
                let glued =
                    (cx.glue.get(inst.as_str())).and_then(|k| cmt2_lib::glue_call(k, inst, method));
                let (callee, name) = match &glued {
                    Some((c, m)) => (c.as_str(), *m),
                    None => (inst.as_str(), port.as_deref().unwrap_or(method)),
                };
                w.s("cmt2.call ")
                    .s(&sym(callee))
                    .s(" ")
                    .s(&sym(name))
                    .s("(");
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
                W(out)
                    .pad(indent)
                    .s("cmt2.if ")
                    .v(*cond)
                    .s(" : ")
                    .u(widths.get(*cond))
                    .s(" {\n");
                emit_stmts(out, then_body, widths, indent + 2, cx);
                W(out).pad(indent + 2).s("cmt2.yield\n");
                if else_body.is_empty() {
                    W(out).pad(indent).s("}\n");
                } else {
                    W(out).pad(indent).s("} else {\n");
                    emit_stmts(out, else_body, widths, indent + 2, cx);
                    W(out).pad(indent + 2).s("cmt2.yield\n");
                    W(out).pad(indent).s("}\n");
                }
            }
        }
    }
}

/// One primitive as FIRRTL ops, one line each, with exactly the IR's semantics: the
/// operation at FIRRTL's result width (which never loses bits), then the result fitted to
/// the `Let`'s width (`bits` to truncate, `pad` to extend). Signed ops go through
/// `asSInt`/`asUInt`; shifts by amounts at or beyond the operand width give 0 (or the
/// sign fill) as the IR says. Temporaries are `%v<var>_<k>`.
struct Prim<'a> {
    out: &'a mut String,
    ind: usize,
    var: u32,
    next: u32,
}

/// A FIRRTL value: its SSA name (`%v<var>` or the temporary `%v<var>_<k>`), width and
/// signedness.
#[derive(Clone, Copy)]
struct Val {
    var: u32,
    /// Temporary index; 0 for the variable itself.
    tmp: u32,
    width: u32,
    signed: bool,
}

impl W<'_> {
    fn val(&mut self, x: Val) -> &mut Self {
        self.v(x.var);
        if x.tmp > 0 {
            self.s("_").n(x.tmp);
        }
        self
    }

    /// `!firrtl.uint<w>` or `!firrtl.sint<w>`.
    fn ty(&mut self, width: u32, signed: bool) -> &mut Self {
        self.s(if signed {
            "!firrtl.sint<"
        } else {
            "!firrtl.uint<"
        })
        .n(width.max(1))
        .s(">")
    }
}

/// The text after an op's operands: `bits`' `hi to lo`, `pad`'s width.
#[derive(Clone, Copy)]
enum Extra {
    None,
    Range(u32, u32),
    Pad(u32),
}

impl Prim<'_> {
    /// A temporary `%v<var>_<k>` defined by `op` with the given operands and result.
    fn op(&mut self, op: &str, args: &[Val], extra: Extra, width: u32, signed: bool) -> Val {
        let r = Val {
            var: self.var,
            tmp: self.next,
            width,
            signed,
        };
        self.next += 1;
        self.def(r, op, args, extra);
        r
    }

    /// `<r> = firrtl.<op> <args><extra> : (<arg types>) -> <r's type>`.
    fn def(&mut self, r: Val, op: &str, args: &[Val], extra: Extra) {
        let mut w = W(self.out);
        w.pad(self.ind).val(r).s(" = firrtl.").s(op);
        w.s(if op == "mux" { "(" } else { " " });
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                w.s(", ");
            }
            w.val(*a);
        }
        if op == "mux" {
            w.s(")");
        }
        match extra {
            Extra::None => {}
            Extra::Range(hi, lo) => {
                w.s(" ").n(hi).s(" to ").n(lo);
            }
            Extra::Pad(n) => {
                w.s(", ").n(n);
            }
        }
        w.s(" : (");
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                w.s(", ");
            }
            w.ty(a.width, a.signed);
        }
        w.s(") -> ").ty(r.width, r.signed).s("\n");
    }

    fn constant(&mut self, v: u128, width: u32) -> Val {
        let r = Val {
            var: self.var,
            tmp: self.next,
            width,
            signed: false,
        };
        self.next += 1;
        let mut w = W(self.out);
        w.pad(self.ind).val(r).s(" = firrtl.constant ");
        let _ = write!(w.0, "{v}");
        w.s(" : ").ty(width, false).s("\n");
        r
    }

    /// An unsigned value fitted to `width` bits (zero-extended or truncated).
    fn fit(&mut self, x: Val, width: u32) -> Val {
        if x.width > width {
            self.op("bits", &[x], Extra::Range(width - 1, 0), width, false)
        } else if x.width < width {
            self.op("pad", &[x], Extra::Pad(width), width, false)
        } else {
            x
        }
    }

    /// The `Let`'s own value, `%v<var>`.
    fn own(&self, width: u32) -> Val {
        Val {
            var: self.var,
            tmp: 0,
            width,
            signed: false,
        }
    }

    /// `%v<var>` defined by `op` when its result has the `Let`'s width, else a temporary
    /// fitted to it.
    fn result(&mut self, op: &str, args: &[Val], extra: Extra, rw: u32, width: u32) {
        if rw == width {
            let r = self.own(width);
            self.def(r, op, args, extra);
        } else {
            let r = self.op(op, args, extra, rw, false);
            self.finish(r, width);
        }
    }

    /// Define `%v<var>` as unsigned `x` fitted to `width`.
    fn finish(&mut self, x: Val, width: u32) {
        let r = self.own(width);
        if x.width >= width {
            self.def(r, "bits", &[x], Extra::Range(width - 1, 0));
        } else {
            self.def(r, "pad", &[x], Extra::Pad(width));
        }
    }

    fn emit(&mut self, width: u32, op: PrimOp, args: &[u32], widths: &Widths) {
        let arg = |i: usize| {
            let v = args.get(i).copied().unwrap_or(0);
            Val {
                var: v,
                tmp: 0,
                width: widths.get(v),
                signed: false,
            }
        };
        let (a, b) = (arg(0), arg(1));
        let signed = |p: &mut Prim, x: Val| p.op("asSInt", &[x], Extra::None, x.width, true);
        match op {
            PrimOp::Add | PrimOp::Sub | PrimOp::Mul | PrimOp::And | PrimOp::Or | PrimOp::Xor => {
                let (name, rw) = match op {
                    PrimOp::Add => ("add", a.width.max(b.width) + 1),
                    PrimOp::Sub => ("sub", a.width.max(b.width) + 1),
                    PrimOp::Mul => ("mul", a.width + b.width),
                    PrimOp::And => ("and", a.width.max(b.width)),
                    PrimOp::Or => ("or", a.width.max(b.width)),
                    _ => ("xor", a.width.max(b.width)),
                };
                self.result(name, &[a, b], Extra::None, rw, width);
            }
            PrimOp::Shl => {
                // Amounts below the operand width need at most `k` bits; any higher bit set
                // means an amount at or beyond the width (result 0).
                let k = (32 - a.width.saturating_sub(1).leading_zeros()).max(1);
                let (amt, over) = if b.width <= k {
                    (b, None)
                } else {
                    let lim = self.constant(a.width as u128, b.width);
                    let over = self.op("geq", &[b, lim], Extra::None, 1, false);
                    let amt = self.op("bits", &[b], Extra::Range(k - 1, 0), k, false);
                    (amt, Some(over))
                };
                let rw = a.width + (1u32 << amt.width.min(16)) - 1;
                let sh = self.op("dshl", &[a, amt], Extra::None, rw, false);
                let sh = self.fit(sh, width);
                match over {
                    Some(over) => {
                        let zero = self.constant(0, width);
                        self.result("mux", &[over, zero, sh], Extra::None, width, width);
                    }
                    None => self.finish(sh, width),
                }
            }
            PrimOp::ShrU => self.result("dshr", &[a, b], Extra::None, a.width, width),
            PrimOp::ShrS => {
                let sa = signed(self, a);
                let r = self.op("dshr", &[sa, b], Extra::None, a.width, true);
                let w = a.width.max(width);
                let r = if w > a.width {
                    self.op("pad", &[r], Extra::Pad(w), w, true)
                } else {
                    r
                };
                let u = self.op("asUInt", &[r], Extra::None, w, false);
                self.finish(u, width);
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
                self.result(name, &[a, b], Extra::None, 1, width);
            }
            PrimOp::Slt | PrimOp::Sle | PrimOp::Sgt | PrimOp::Sge => {
                let name = match op {
                    PrimOp::Slt => "lt",
                    PrimOp::Sle => "leq",
                    PrimOp::Sgt => "gt",
                    _ => "geq",
                };
                // The IR compares both operands as signed numbers of the wider width.
                let w = a.width.max(b.width);
                let (a, b) = (self.fit(a, w), self.fit(b, w));
                let (sa, sb) = (signed(self, a), signed(self, b));
                self.result(name, &[sa, sb], Extra::None, 1, width);
            }
            PrimOp::Mux => {
                let c = arg(2);
                let cond = self.fit(a, 1);
                let w = b.width.max(c.width);
                let (b, c) = (self.fit(b, w), self.fit(c, w));
                self.result("mux", &[cond, b, c], Extra::None, w, width);
            }
            PrimOp::Bits { lo } => {
                if lo >= a.width {
                    let z = self.constant(0, width);
                    self.finish(z, width);
                } else {
                    let hi = (lo + width - 1).min(a.width - 1);
                    let w = hi - lo + 1;
                    self.result("bits", &[a], Extra::Range(hi, lo), w, width);
                }
            }
            PrimOp::ZExt => {
                let w = a.width.max(width);
                self.result("pad", &[a], Extra::Pad(width), w, width);
            }
            PrimOp::SExt => {
                let w = a.width.max(width);
                let sa = signed(self, a);
                let r = self.op("pad", &[sa], Extra::Pad(width), w, true);
                let u = self.op("asUInt", &[r], Extra::None, w, false);
                self.finish(u, width);
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
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
    pub(crate) fn odd_rule() -> Rule {
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
    fn bank_port_names_parse_back() {
        for (method, rule, k) in [("read", "r", 0), ("read_0", "a.b c", 12), ("write", "é", 7)] {
            let p = super::super::BankPort {
                method,
                rule: rule.into(),
                k,
            };
            assert_eq!(super::super::BankPort::parse(&p.name()), Some(p));
        }
        for bad in [
            "read",
            "read.r",
            "read..0",
            "read.r.01",
            "read.r.+1",
            "dma_read.r.0",
            "read_1.r.0",
        ] {
            assert_eq!(super::super::BankPort::parse(bad), None, "{bad}");
        }
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
