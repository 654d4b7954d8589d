//! Per-block rule generation: BBHandler (slot rules), LoopHandler (entry/next rules),
//! IfHandler (dispatch/join rules) and the container rules of seed 003 (input distribution,
//! empty-block coordination, function start).
//!
//! BBHandler: one rule `<block>_slot_<t>_rule` per distinct `starttime` t. The first slot
//! dequeues the block token (or takes the RoCC command) and every block input once: inputs
//! used in the first slot go to the rule-local map, inputs used in later slots are enqueued
//! into `<block>_fifo_s<first>_s<t>_v<k>` (seed 002, patterns 3–5). A value produced in slot
//! p and used in slot c > p travels in `<block>_fifo_s<p>_s<c>_v<k>`, one FIFO per (value,
//! consumer slot); block outputs are enqueued in the producing slot. Slots are chained by
//! `<block>_token_fifo_s<t>`; the last slot enqueues the block's output token. Precedence
//! puts later slots before earlier ones.
//!
//! LoopHandler: loop state in registers (`<loop>_cur_reg`, `_ub_reg`, `_step_reg`),
//! live-ins in `<loop>_input_state_reg_<k>`. `<loop>_entry_rule` tests the trip condition
//! before the first iteration (zero-trip loops skip the body); `<loop>_next_rule` adds the
//! step and continues while `iv ≤ ub` (`iv ≥ ub` for a negative step, signed, inclusive
//! upper bound as `scf-to-tor` produces). Iteration values (`iter_args`) travel to the body
//! with the induction variable; yielded values come back through `<loop>_yield_fifo_<k>`
//! and leave as loop results. A step known only at run time is tested in the entry rule: 0
//! raises the fault `<loop>_step_zero` (a run-time error the hardware signals).

use super::context::DesignContext;
use super::ops;
use super::segment::{BlockInfo, BlockKind, Container, LoopInfo, Port, Segmentation, TokenIn};
use crate::diag::{Diagnostic, Span};
use crate::mlir::ast::{Attribute, Operation};
use crate::rules::{BodyBuilder, Instance, InstanceKind, PrimOp, Rule, Var};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BlockRules {
    pub block: String,
    pub rules: Vec<Rule>,
    /// Block-internal instances (cross-slot FIFOs, slot token FIFOs, loop registers).
    pub instances: Vec<Instance>,
    pub precedence: Vec<(String, String)>,
}

impl BlockRules {
    fn fifo(&mut self, name: &str, width: u32) {
        self.instances.push(Instance {
            name: name.into(),
            kind: InstanceKind::Fifo {
                width: width.max(1),
                depth: 1,
            },
        });
    }
    fn reg(&mut self, name: &str, width: u32) {
        self.instances.push(Instance {
            name: name.into(),
            kind: InstanceKind::Reg {
                width: width.max(1),
                init: 0,
            },
        });
    }
    fn rule(&mut self, name: String, origin: &str, cx: RuleCx) {
        self.rules.push(Rule {
            name,
            origin: origin.to_string(),
            guard: cx.guard,
            body: cx.b.stmts,
        });
    }
}

/// Rule-building state: the body, and the rule-local value map (`localMap`).
pub(crate) struct RuleCx<'a> {
    pub seg: &'a Segmentation,
    pub ctx: &'a DesignContext,
    pub b: BodyBuilder,
    pub local: BTreeMap<String, Var>,
    /// The RoCC command bundle, when this rule took it.
    pub cmd: Option<Var>,
    /// The rule's guard (statements and result), when it has one.
    pub guard: Option<(Vec<crate::rules::Stmt>, Var)>,
}

impl<'a> RuleCx<'a> {
    pub fn new(seg: &'a Segmentation, ctx: &'a DesignContext) -> RuleCx<'a> {
        RuleCx {
            seg,
            ctx,
            b: BodyBuilder::new(),
            local: BTreeMap::new(),
            cmd: None,
            guard: None,
        }
    }

    pub fn width(&self, v: &str) -> u32 {
        if let Some((_, w)) = self.seg.values.consts.get(v) {
            return *w;
        }
        self.seg.values.widths.get(v).copied().unwrap_or(32).max(1)
    }

    /// A value from the local map, else a materialised constant.
    pub fn value(&mut self, v: &str, span: Span) -> Result<Var, Diagnostic> {
        if let Some(x) = self.local.get(v) {
            return Ok(*x);
        }
        if let Some((c, w)) = self.seg.values.consts.get(v).copied() {
            let x = self.b.konst(c, w);
            self.local.insert(v.to_string(), x);
            return Ok(x);
        }
        Err(Diagnostic::error(
            span,
            format!("value `{v}` is not available here"),
        ))
    }

    pub fn take_token(&mut self, t: &TokenIn) {
        match t {
            TokenIn::Fifo(f) => {
                self.b.call_value(f, "deq", vec![], 1);
            }
            TokenIn::Rocc => {
                // Guard: the presented command is this instruction's (opcode, funct7).
                let body = std::mem::take(&mut self.b.stmts);
                let (opcode, funct7) = (self.seg.opcode, self.seg.funct7);
                let cmd = self.b.call_value("rocc_adapter", "cmd", vec![], 96);
                let mut test = |field: &str, want: u32| {
                    let (lo, w) = crate::rules::rocc_field(field);
                    let got = self.b.prim(PrimOp::Bits { lo }, vec![cmd], w);
                    let k = self.b.konst(want as u128, w);
                    self.b.prim(PrimOp::Eq, vec![got, k], 1)
                };
                let op = test("opcode", opcode);
                let f7 = test("funct7", funct7);
                let g = self.b.prim(PrimOp::And, vec![op, f7], 1);
                let guard = std::mem::replace(&mut self.b.stmts, body);
                self.guard = Some((guard, g));
                let cmd = self.b.call_value("rocc_adapter", "cmd_deq", vec![], 96);
                self.cmd = Some(cmd);
            }
        }
    }

    /// The value of function argument `v` (a register field of the command this rule took).
    pub fn command_value(&mut self, v: &str) -> Option<Var> {
        if let Some(x) = self.local.get(v) {
            return Some(*x);
        }
        let cmd = self.cmd?;
        let field = self.seg.values.arg_field(v)?;
        let (lo, w) = crate::rules::rocc_field(field);
        let x = self.b.prim(PrimOp::Bits { lo }, vec![cmd], w);
        let x = self.fit(x, w, self.width(v));
        self.local.insert(v.to_string(), x);
        Some(x)
    }

    pub fn give_token(&mut self, t: &Option<String>) {
        if let Some(f) = t {
            let one = self.b.konst(1, 1);
            self.b.call(f, "enq", vec![one]);
        }
    }

    pub fn deq_ports(&mut self, ports: &[Port]) -> Vec<Var> {
        ports
            .iter()
            .map(|p| {
                let x = self.b.call_value(&p.fifo, "deq", vec![], p.width);
                self.local.insert(p.value.clone(), x);
                x
            })
            .collect()
    }

    /// Zero-extend or truncate `x` (of width `from`) to `to` bits.
    pub fn fit(&mut self, x: Var, from: u32, to: u32) -> Var {
        match from.cmp(&to) {
            std::cmp::Ordering::Equal => x,
            std::cmp::Ordering::Less => self.b.prim(PrimOp::ZExt, vec![x], to),
            std::cmp::Ordering::Greater => self.b.prim(PrimOp::Bits { lo: 0 }, vec![x], to),
        }
    }
}

pub fn handle_block(
    ctx: &DesignContext,
    seg: &Segmentation,
    id: usize,
) -> Result<BlockRules, Diagnostic> {
    let b = seg
        .blocks
        .get(id)
        .ok_or_else(|| Diagnostic::global_error(format!("no block {id} in `{}`", seg.func)))?;
    let mut out = BlockRules {
        block: b.name.clone(),
        ..BlockRules::default()
    };
    match &b.kind {
        BlockKind::Function { body } => container_rules(ctx, seg, b, body, &mut out)?,
        BlockKind::Basic { ops } => basic_rules(ctx, seg, b, ops, &mut out)?,
        BlockKind::Loop { info, body } => {
            loop_rules(ctx, seg, b, info, body, &mut out)?;
            container_rules(ctx, seg, b, body, &mut out)?;
        }
        BlockKind::If {
            cond,
            then_c,
            else_c,
            results,
        } => {
            if_rules(
                ctx,
                seg,
                b,
                cond,
                then_c,
                else_c.as_ref(),
                results,
                &mut out,
            )?;
            container_rules(ctx, seg, b, then_c, &mut out)?;
            if let Some(e) = else_c {
                container_rules(ctx, seg, b, e, &mut out)?;
            }
        }
    }
    Ok(out)
}

/// Start, distribution and empty-container coordination rules.
fn container_rules(
    ctx: &DesignContext,
    seg: &Segmentation,
    b: &BlockInfo,
    c: &Container,
    out: &mut BlockRules,
) -> Result<(), Diagnostic> {
    if let Some(start) = &c.start {
        let mut cx = RuleCx::new(seg, ctx);
        cx.take_token(&TokenIn::Rocc);
        for p in &start.outputs {
            let x = cx.command_value(&p.value).ok_or_else(|| {
                Diagnostic::error(b.span, format!("`{}` is not a command field", p.value))
            })?;
            cx.b.call(&p.fifo, "enq", vec![x]);
        }
        cx.give_token(&Some(start.token_fifo.clone()));
        out.rule(start.rule.clone(), &b.name, cx);
    }
    if c.children.is_empty() {
        let mut cx = RuleCx::new(seg, ctx);
        cx.take_token(&c.token_in);
        cx.deq_ports(&c.inputs);
        for e in &c.exits {
            if let Some(f) = &e.fifo {
                let x = cx.value(&e.value, b.span)?;
                cx.b.call(f, "enq", vec![x]);
            }
        }
        cx.give_token(&c.token_out);
        out.rule(format!("{}coord_rule", c.prefix), &b.name, cx);
        return Ok(());
    }
    if let Some(d) = &c.dist {
        let mut cx = RuleCx::new(seg, ctx);
        cx.take_token(&c.token_in);
        let vals = cx.deq_ports(&c.inputs);
        for (x, fifos) in vals.iter().zip(&d.routes) {
            for f in fifos {
                cx.b.call(f, "enq", vec![*x]);
            }
        }
        cx.give_token(&Some(d.token_fifo.clone()));
        out.rule(d.rule.clone(), &b.name, cx);
    }
    Ok(())
}

fn starttime(op: &Operation) -> Result<i64, Diagnostic> {
    match op.attr("starttime") {
        Some(Attribute::Integer { value, .. }) => i64::try_from(*value)
            .map_err(|_| Diagnostic::error(op.span, "`starttime` out of range")),
        _ => Err(Diagnostic::error(
            op.span,
            format!("`{}` has no `starttime` attribute", op.name),
        )),
    }
}

/// BBHandler.
fn basic_rules(
    ctx: &DesignContext,
    seg: &Segmentation,
    b: &BlockInfo,
    ops: &[Operation],
    out: &mut BlockRules,
) -> Result<(), Diagnostic> {
    let mut slot_of = Vec::with_capacity(ops.len());
    for op in ops {
        slot_of.push(starttime(op)?);
    }
    check_hazards(seg, ops, &slot_of)?;
    let slots: BTreeSet<i64> = slot_of.iter().copied().collect();
    let Some(&first) = slots.iter().next() else {
        return Err(Diagnostic::error(
            b.span,
            format!("block `{}` has no operations", b.name),
        ));
    };
    let last = *slots.iter().next_back().unwrap_or(&first);
    let takes_command = b.token_in == TokenIn::Rocc;
    // Values the first slot brings in: the block's input ports, and the command's fields
    // (the function's arguments) when this block takes the command.
    let mut entering: Vec<String> = b.inputs.iter().map(|p| p.value.clone()).collect();
    if takes_command {
        entering.extend(seg.values.args.iter().cloned());
    }
    // Where each value becomes available: (slot, op index); entering values at the first slot.
    let mut avail: BTreeMap<String, (i64, usize)> = BTreeMap::new();
    for v in &entering {
        avail.insert(v.clone(), (first, 0));
    }
    // Cross-slot FIFOs: (value, consumer slot) → fifo; per producer slot the enqueues.
    let mut xslot: BTreeMap<(String, i64), String> = BTreeMap::new();
    let mut produce: BTreeMap<(String, i64), Vec<String>> = BTreeMap::new();
    let mut pair_count: BTreeMap<(i64, i64), usize> = BTreeMap::new();
    for (i, op) in ops.iter().enumerate() {
        let s = slot_of[i];
        // `aps.readrf`'s operand names a register of the command, not a value.
        let operands = if op.name == "aps.readrf" {
            &[][..]
        } else {
            &op.operands[..]
        };
        for o in operands {
            let v = super::segment::operand_name(o);
            if seg.values.is_virtual(&v) {
                continue;
            }
            let Some(&(p, at)) = avail.get(&v) else {
                return Err(Diagnostic::error(
                    o.span,
                    format!("value `{v}` is not defined before this use"),
                ));
            };
            let entered = entering.contains(&v);
            if p > s || (p == s && !entered && at >= i) {
                return Err(Diagnostic::error(
                    o.span,
                    format!("value `{v}` is used in slot {s} before it is produced (slot {p})"),
                ));
            }
            if p < s && !xslot.contains_key(&(v.clone(), s)) {
                let k = pair_count.entry((p, s)).or_default();
                let fifo = format!("{}_fifo_s{p}_s{s}_v{k}", b.name);
                *k += 1;
                let w = seg.values.widths.get(&v).copied().unwrap_or(32);
                out.fifo(&fifo, w);
                xslot.insert((v.clone(), s), fifo.clone());
                produce.entry((v.clone(), p)).or_default().push(fifo);
            }
        }
        for r in super::segment::result_names(op) {
            avail.insert(r, (s, i));
        }
    }
    let slot_list: Vec<i64> = slots.iter().copied().collect();
    for (n, &s) in slot_list.iter().enumerate() {
        let mut cx = RuleCx::new(seg, ctx);
        if n == 0 {
            cx.take_token(&b.token_in);
            for p in &b.inputs {
                let x = cx.b.call_value(&p.fifo, "deq", vec![], p.width);
                cx.local.insert(p.value.clone(), x);
                for f in produce.get(&(p.value.clone(), s)).into_iter().flatten() {
                    cx.b.call(f, "enq", vec![x]);
                }
            }
            if takes_command {
                // Command fields used later in this block or by later blocks.
                for a in &seg.values.args {
                    let later = produce.get(&(a.clone(), s)).into_iter().flatten();
                    let outs = b.outputs.iter().filter(|p| &p.value == a).map(|p| &p.fifo);
                    let fifos: Vec<&String> = later.chain(outs).collect();
                    if fifos.is_empty() {
                        continue;
                    }
                    let x = cx.command_value(a).ok_or_else(|| {
                        Diagnostic::error(
                            seg.span,
                            format!("argument `{a}` is not a register field (rs1, rs2, rd)"),
                        )
                    })?;
                    for f in fifos {
                        cx.b.call(f, "enq", vec![x]);
                    }
                }
            }
        } else {
            cx.b.call_value(
                &format!("{}_token_fifo_s{}", b.name, slot_list[n - 1]),
                "deq",
                vec![],
                1,
            );
        }
        for (i, op) in ops.iter().enumerate().filter(|(i, _)| slot_of[*i] == s) {
            if op.name != "aps.readrf" {
                for o in &op.operands {
                    let v = super::segment::operand_name(o);
                    if cx.local.contains_key(&v) {
                        continue;
                    }
                    if let Some(f) = xslot.get(&(v.clone(), s)) {
                        let w = cx.width(&v);
                        let x = cx.b.call_value(f, "deq", vec![], w);
                        cx.local.insert(v, x);
                    } else if n == 0 && takes_command && seg.values.arg_field(&v).is_some() {
                        cx.command_value(&v);
                    }
                }
            }
            ops::generate(&mut cx, op, n == 0 && takes_command)?;
            for r in super::segment::result_names(op) {
                let Some(&x) = cx.local.get(&r) else { continue };
                for f in produce.get(&(r.clone(), s)).into_iter().flatten() {
                    cx.b.call(f, "enq", vec![x]);
                }
                for p in b.outputs.iter().filter(|p| p.value == r) {
                    cx.b.call(&p.fifo, "enq", vec![x]);
                }
            }
            let _ = i;
        }
        if s == last {
            cx.give_token(&b.token_out);
        } else {
            let f = format!("{}_token_fifo_s{s}", b.name);
            out.fifo(&f, 1);
            cx.give_token(&Some(f));
        }
        out.rule(format!("{}_slot_{s}_rule", b.name), &b.name, cx);
    }
    for (i, &a) in slot_list.iter().enumerate() {
        for &later in &slot_list[i + 1..] {
            out.precedence.push((
                format!("{}_slot_{later}_rule", b.name),
                format!("{}_slot_{a}_rule", b.name),
            ));
        }
    }
    Ok(())
}

/// Same-slot hazards: within one slot (one rule) reads see the state before the slot, so a
/// load after a store of the same bank or global register (read after write) would read
/// the old value where program order says the new one, and two stores (write after write)
/// cannot both happen. Both are errors, shown at the second access with a note at the
/// store. CPU-memory accesses are checked when they happen (addresses are run-time values).
fn check_hazards(seg: &Segmentation, ops: &[Operation], slot_of: &[i64]) -> Result<(), Diagnostic> {
    // Per slot: stored target → the store's span.
    let mut stored: BTreeMap<(i64, String), Span> = BTreeMap::new();
    for (op, &s) in ops.iter().zip(slot_of) {
        let bank = |i: usize| {
            op.operands
                .get(i)
                .and_then(|o| seg.values.globals.get(&super::segment::operand_name(o)))
                .cloned()
        };
        let (target, is_store) = match op.name.as_str() {
            "aps.memstore" => (bank(1), true),
            "aps.memload" | "aps.spm.load_req" => (bank(0), false),
            "aps.globalstore" => (ops::global_symbol(op).ok(), true),
            "aps.globalload" => (ops::global_symbol(op).ok(), false),
            _ => (None, false),
        };
        let Some(t) = target else { continue };
        let what = if op.name.starts_with("aps.global") {
            "global register"
        } else {
            "bank"
        };
        if let Some(first) = stored.get(&(s, t.clone())) {
            let kind = if is_store {
                "two stores to"
            } else {
                "a load after a store of"
            };
            let why = if is_store {
                "only one write per slot can happen"
            } else {
                "the load would read the value before the store"
            };
            return Err(Diagnostic::error(
                op.span,
                format!("hazard in slot {s}: {kind} {what} `@{t}` in the same slot ({why})"),
            )
            .with_related(*first, format!("the store in slot {s} is here")));
        }
        if is_store {
            stored.insert((s, t), op.span);
        }
    }
    Ok(())
}

/// The continue condition `step < 0 ? iv >= ub : iv <= ub` (signed).
fn trip_cond(cx: &mut RuleCx, iv: Var, ub: Var, step: Var, w: u32) -> Var {
    let zero = cx.b.konst(0, w);
    let neg = cx.b.prim(PrimOp::Slt, vec![step, zero], 1);
    let down = cx.b.prim(PrimOp::Sge, vec![iv, ub], 1);
    let up = cx.b.prim(PrimOp::Sle, vec![iv, ub], 1);
    cx.b.prim(PrimOp::Mux, vec![neg, down, up], 1)
}

/// LoopHandler: entry and next rules.
fn loop_rules(
    ctx: &DesignContext,
    seg: &Segmentation,
    b: &BlockInfo,
    info: &LoopInfo,
    body: &Container,
    out: &mut BlockRules,
) -> Result<(), Diagnostic> {
    let l = &info.loop_name;
    let w = info.width;
    let (cur_r, ub_r, step_r) = (
        format!("{l}_cur_reg"),
        format!("{l}_ub_reg"),
        format!("{l}_step_reg"),
    );
    for r in [&cur_r, &ub_r, &step_r] {
        out.reg(r, w);
    }
    let n_iter = info.inits.len();
    let live: Vec<&Port> = body.inputs.iter().skip(1 + n_iter).collect();
    for (k, p) in live.iter().enumerate() {
        out.reg(&format!("{l}_input_state_reg_{k}"), p.width);
    }
    let body_token = match &body.token_in {
        TokenIn::Fifo(f) => Some(f.clone()),
        TokenIn::Rocc => None,
    };
    // Entry.
    let mut cx = RuleCx::new(seg, ctx);
    cx.take_token(&b.token_in);
    cx.deq_ports(&b.inputs);
    let mut bound = Vec::new();
    for v in [&info.lb, &info.ub, &info.step] {
        let x = cx.value(v, b.span)?;
        let from = cx.width(v);
        bound.push(cx.fit(x, from, w));
    }
    let (lb, ub, step) = (bound[0], bound[1], bound[2]);
    if !seg.values.consts.contains_key(&info.step) {
        // A step known only at run time: 0 would never end the loop.
        let fault = format!("{l}_step_zero");
        out.instances.push(Instance {
            name: fault.clone(),
            kind: InstanceKind::Fault {
                message: "loop step is 0 at run time: the loop would never end".into(),
            },
        });
        let zero = cx.b.konst(0, w);
        let is_zero = cx.b.prim(PrimOp::Eq, vec![step, zero], 1);
        cx.b.if_else(is_zero, |bb| bb.call(&fault, "raise", vec![]), |_| {});
    }
    cx.b.call(&cur_r, "write", vec![lb]);
    cx.b.call(&ub_r, "write", vec![ub]);
    cx.b.call(&step_r, "write", vec![step]);
    let mut inits = Vec::new();
    for v in &info.inits {
        inits.push(cx.value(v, b.span)?);
    }
    let mut live_vals = Vec::new();
    for (k, p) in live.iter().enumerate() {
        let x = cx.value(&p.value, b.span)?;
        cx.b.call(&format!("{l}_input_state_reg_{k}"), "write", vec![x]);
        live_vals.push(x);
    }
    let go = trip_cond(&mut cx, lb, ub, step, w);
    let mut first_vals = vec![lb];
    first_vals.extend(inits.iter().copied());
    first_vals.extend(live_vals.iter().copied());
    emit_branch(&mut cx, go, body, &first_vals, &body_token, b, info, &inits);
    out.rule(format!("{l}_entry_rule"), &b.name, cx);
    // Next.
    let mut cx = RuleCx::new(seg, ctx);
    if let Some(t) = &body.token_out {
        cx.b.call_value(t, "deq", vec![], 1);
    }
    let mut ys = Vec::new();
    for e in &body.exits {
        let x = match &e.fifo {
            Some(f) => {
                let wd = cx.width(&e.value);
                cx.b.call_value(f, "deq", vec![], wd)
            }
            None => cx.value(&e.value, b.span)?,
        };
        ys.push(x);
    }
    let cur = cx.b.call_value(&cur_r, "read", vec![], w);
    let ub = cx.b.call_value(&ub_r, "read", vec![], w);
    let step = cx.b.call_value(&step_r, "read", vec![], w);
    let next = cx.b.prim(PrimOp::Add, vec![cur, step], w);
    let go = trip_cond(&mut cx, next, ub, step, w);
    let mut vals = vec![next];
    vals.extend(ys.iter().copied());
    for (k, p) in live.iter().enumerate() {
        vals.push(cx.b.call_value(&format!("{l}_input_state_reg_{k}"), "read", vec![], p.width));
    }
    let cur_name = cur_r.clone();
    cx.b.if_else(
        go,
        |bb| {
            bb.call(&cur_name, "write", vec![next]);
        },
        |_| {},
    );
    emit_branch(&mut cx, go, body, &vals, &body_token, b, info, &ys);
    out.rule(format!("{l}_next_rule"), &b.name, cx);
    Ok(())
}

/// `if go { enq body inputs + body token } else { enq results + token out }`.
#[allow(clippy::too_many_arguments)]
fn emit_branch(
    cx: &mut RuleCx,
    go: Var,
    body: &Container,
    vals: &[Var],
    body_token: &Option<String>,
    b: &BlockInfo,
    info: &LoopInfo,
    results: &[Var],
) {
    let inputs: Vec<(String, Var)> = body
        .inputs
        .iter()
        .map(|p| p.fifo.clone())
        .zip(vals.iter().copied())
        .collect();
    let outs: Vec<(String, Var)> = info
        .results
        .iter()
        .zip(results)
        .flat_map(|(r, x)| {
            b.outputs
                .iter()
                .filter(move |p| &p.value == r)
                .map(move |p| (p.fifo.clone(), *x))
        })
        .collect();
    let token_out = b.token_out.clone();
    cx.b.if_else(
        go,
        |bb| {
            for (f, x) in &inputs {
                bb.call(f, "enq", vec![*x]);
            }
            if let Some(t) = body_token {
                let one = bb.konst(1, 1);
                bb.call(t, "enq", vec![one]);
            }
        },
        |bb| {
            for (f, x) in &outs {
                bb.call(f, "enq", vec![*x]);
            }
            if let Some(t) = &token_out {
                let one = bb.konst(1, 1);
                bb.call(t, "enq", vec![one]);
            }
        },
    );
}

/// IfHandler: dispatch rule and one join rule per branch.
#[allow(clippy::too_many_arguments)]
fn if_rules(
    ctx: &DesignContext,
    seg: &Segmentation,
    b: &BlockInfo,
    cond: &str,
    then_c: &Container,
    else_c: Option<&Container>,
    results: &[String],
    out: &mut BlockRules,
) -> Result<(), Diagnostic> {
    let mut cx = RuleCx::new(seg, ctx);
    cx.take_token(&b.token_in);
    cx.deq_ports(&b.inputs);
    let c = cx.value(cond, b.span)?;
    let cw = cx.width(cond);
    let c1 = cx.fit(c, cw, 1);
    let gather = |cx: &mut RuleCx, cont: &Container| -> Result<Vec<(String, Var)>, Diagnostic> {
        cont.inputs
            .iter()
            .map(|p| Ok((p.fifo.clone(), cx.value(&p.value, b.span)?)))
            .collect()
    };
    let then_in = gather(&mut cx, then_c)?;
    let else_in = match else_c {
        Some(e) => gather(&mut cx, e)?,
        None => Vec::new(),
    };
    let tok = |c: &Container| match &c.token_in {
        TokenIn::Fifo(f) => Some(f.clone()),
        TokenIn::Rocc => None,
    };
    let then_tok = tok(then_c);
    let else_tok = match else_c {
        Some(e) => tok(e),
        None => b.token_out.clone(),
    };
    cx.b.if_else(
        c1,
        |bb| {
            for (f, x) in &then_in {
                bb.call(f, "enq", vec![*x]);
            }
            if let Some(t) = &then_tok {
                let one = bb.konst(1, 1);
                bb.call(t, "enq", vec![one]);
            }
        },
        |bb| {
            for (f, x) in &else_in {
                bb.call(f, "enq", vec![*x]);
            }
            if let Some(t) = &else_tok {
                let one = bb.konst(1, 1);
                bb.call(t, "enq", vec![one]);
            }
        },
    );
    out.rule(format!("{}_dispatch_rule", b.name), &b.name, cx);
    for (cont, tag) in [(Some(then_c), "then"), (else_c, "else")] {
        let Some(cont) = cont else { continue };
        let mut cx = RuleCx::new(seg, ctx);
        if let Some(t) = &cont.token_out {
            cx.b.call_value(t, "deq", vec![], 1);
        }
        for (e, r) in cont.exits.iter().zip(results) {
            let x = match &e.fifo {
                Some(f) => {
                    let wd = cx.width(&e.value);
                    cx.b.call_value(f, "deq", vec![], wd)
                }
                None => cx.value(&e.value, b.span)?,
            };
            for p in b.outputs.iter().filter(|p| &p.value == r) {
                cx.b.call(&p.fifo, "enq", vec![x]);
            }
        }
        cx.give_token(&b.token_out);
        out.rule(format!("{}_{tag}_join_rule", b.name), &b.name, cx);
    }
    Ok(())
}
