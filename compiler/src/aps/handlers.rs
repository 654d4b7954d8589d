//! Per-block rule generation: BBHandler (slot rules of straight-line blocks), the stages of
//! pipelined loops, and the few control rules (start, loop head, initiation interval).
//!
//! BBHandler: one rule `<block>_slot_<t>_rule` per distinct `starttime` t that does more
//! than wait ([`super::control`]). It fires when the program counter holds its code (the
//! first slot of the function instead takes a command while the function is idle); a
//! waited entry first polls the DMA. Operands come from the rule itself, constants, the
//! command (first slot) or the registers of [`super::segment`]; results used elsewhere are
//! written to their registers. The last rule slot of a block ends with the block's exit
//! transition, the others with a jump to the block's next rule slot. Precedence puts later
//! slots before earlier ones.
//!
//! Pipelined loop (`pipeline` attribute or `II`): each slot of the body is a stage.
//! Stage 0 starts an iteration while `<loop>_issue` is set (every `II` cycles): it takes
//! the induction variable from `<loop>_iv`, steps it and tests the next one; the last
//! iteration clears `issue`. Each stage hands a token (1: the last iteration) to the next
//! through `<block>_token_fifo_s<t>`; values crossing stages travel in
//! `<block>_fifo_s<p>_s<c>_v<k>` FIFOs deep enough for one iteration per `II` cycles.
//! The last stage, on the last iteration, runs the loop's exit transition.
//!
//! Loop iterations of non-pipelined loops have no rule of their own: entry, next
//! iteration and exit are steps of the transitions. A loop whose body can finish an
//! iteration without a slot has a head rule `<loop>_head_rule` (one cycle for such an
//! iteration). A function that begins with a loop or `if` takes its command in
//! `<P>start_rule`.

use super::context::DesignContext;
use super::control::{self, Env, Leaf, Target, Tree};
use super::ops;
use super::segment::{BlockInfo, BlockKind, LoopInfo, Segmentation, SlotInfo};
use crate::diag::{Diagnostic, Span};
use crate::mlir::ast::Operation;
use crate::rules::{BodyBuilder, Instance, InstanceKind, PrimOp, Rule, Stmt, Var};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BlockRules {
    pub(crate) block: String,
    pub rules: Vec<Rule>,
    /// Block-internal instances (the FIFOs between the stages of a pipelined loop).
    pub instances: Vec<Instance>,
    pub precedence: Vec<(String, String)>,
}

impl BlockRules {
    pub(crate) fn fifo(&mut self, name: &str, width: u32, depth: u32) {
        self.instances.push(Instance {
            name: name.into(),
            kind: InstanceKind::Fifo {
                width: width.max(1),
                depth: depth.max(1),
            },
        });
    }
    pub(crate) fn rule(&mut self, name: String, origin: &str, cx: RuleCx) {
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
    pub(crate) seg: &'a Segmentation,
    pub(crate) ctx: &'a DesignContext,
    pub(crate) b: BodyBuilder,
    pub(crate) local: BTreeMap<String, Var>,
    /// The RoCC command bundle, when this rule took it.
    pub(crate) cmd: Option<Var>,
    /// The rule's guard (statements and result), when it has one.
    pub guard: Option<(Vec<Stmt>, Var)>,
    /// The fifo style's locks this rule takes (set when the rule closes).
    pub(crate) taken: Vec<String>,
}

impl<'a> RuleCx<'a> {
    pub(crate) fn new(seg: &'a Segmentation, ctx: &'a DesignContext) -> RuleCx<'a> {
        RuleCx {
            seg,
            ctx,
            b: BodyBuilder::new(),
            local: BTreeMap::new(),
            cmd: None,
            guard: None,
            taken: Vec::new(),
        }
    }

    pub(crate) fn width(&self, v: &str) -> u32 {
        if let Some((_, w)) = self.seg.values.consts.get(v) {
            return *w;
        }
        self.seg.values.widths.get(v).copied().unwrap_or(32).max(1)
    }

    /// A value: computed in this rule, a constant, a field of the command this rule took,
    /// or read from its register.
    pub(crate) fn value(&mut self, v: &str, span: Span) -> Result<Var, Diagnostic> {
        if let Some(x) = self.local.get(v) {
            return Ok(*x);
        }
        if let Some((c, w)) = self.seg.values.consts.get(v).copied() {
            let x = self.b.konst(c, w);
            self.local.insert(v.to_string(), x);
            return Ok(x);
        }
        if let Some(x) = self.command_value(v) {
            return Ok(x);
        }
        if let Some(reg) = self.seg.values.regs.get(v) {
            let x = self.b.call_value(reg, "read", vec![], self.width(v));
            self.local.insert(v.to_string(), x);
            return Ok(x);
        }
        Err(Diagnostic::error(
            span,
            format!("value `{v}` is not available here"),
        ))
    }

    /// The value of function argument `v` (a register field of the command this rule took).
    pub(crate) fn command_value(&mut self, v: &str) -> Option<Var> {
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

    /// Zero-extend or truncate `x` (of width `from`) to `to` bits.
    pub(crate) fn fit(&mut self, x: Var, from: u32, to: u32) -> Var {
        match from.cmp(&to) {
            std::cmp::Ordering::Equal => x,
            std::cmp::Ordering::Less => self.b.prim(PrimOp::ZExt, vec![x], to),
            std::cmp::Ordering::Greater => self.b.prim(PrimOp::Bits { lo: 0 }, vec![x], to),
        }
    }

    /// Fire while the program counter holds one of `entries` (`(code, waited)`); with
    /// `command`, only while a command of this instruction waits, which the rule takes. A
    /// waited entry first waits for the DMA to be idle.
    fn enter_at(&mut self, entries: &[(u32, bool)], command: bool) {
        let pc = self.seg.control.pc.clone();
        let w = self.seg.control.width;
        let body = std::mem::take(&mut self.b.stmts);
        let now = self.b.call_value(&pc, "read", vec![], w);
        let mut g = None;
        for (code, _) in entries {
            let k = self.b.konst(*code as u128, w);
            let e = self.b.prim(PrimOp::Eq, vec![now, k], 1);
            g = Some(match g {
                Some(x) => self.b.prim(PrimOp::Or, vec![x, e], 1),
                None => e,
            });
        }
        let mut g = g.unwrap_or_else(|| self.b.konst(0, 1));
        if command {
            // The presented command is this instruction's (opcode, funct7).
            let (opcode, funct7) = (self.seg.opcode, self.seg.funct7);
            let cmd = self.b.call_value("rocc_adapter", "cmd", vec![], 96);
            for (field, want) in [("opcode", opcode), ("funct7", funct7)] {
                let (lo, fw) = crate::rules::rocc_field(field);
                let got = self.b.prim(PrimOp::Bits { lo }, vec![cmd], fw);
                let k = self.b.konst(want as u128, fw);
                let eq = self.b.prim(PrimOp::Eq, vec![got, k], 1);
                g = self.b.prim(PrimOp::And, vec![g, eq], 1);
            }
            // The memory resources it accesses are free (the command holds them until
            // the function is idle again: `control::finish`).
            for l in &self.seg.mem_locks {
                let now = self.b.call_value(l, "read", vec![], 1);
                let zero = self.b.konst(0, 1);
                let free = self.b.prim(PrimOp::Eq, vec![now, zero], 1);
                g = self.b.prim(PrimOp::And, vec![g, free], 1);
            }
        }
        let guard = std::mem::replace(&mut self.b.stmts, body);
        self.guard = Some((guard, g));
        if command {
            let cmd = self.b.call_value("rocc_adapter", "cmd_deq", vec![], 96);
            self.cmd = Some(cmd);
        }
        self.wait_if(entries, |(code, waited)| waited.then_some(code));
    }

    /// Poll the DMA under the entries `waited_code` picks (all of them: unconditionally).
    fn wait_if(
        &mut self,
        entries: &[(u32, bool)],
        waited_code: impl Fn((u32, bool)) -> Option<u32>,
    ) {
        let waited: Vec<u32> = entries.iter().filter_map(|e| waited_code(*e)).collect();
        if waited.is_empty() {
            return;
        }
        let channels = self.seg.values.channels_used();
        if waited.len() == entries.len() {
            for &channel in &channels {
                let m = crate::rules::DmaMethod::Poll { channel }.name();
                self.b.call_value("dma", m, vec![], 1);
            }
            return;
        }
        let (pc, w) = (self.seg.control.pc.clone(), self.seg.control.width);
        let now = self.b.call_value(&pc, "read", vec![], w);
        let mut c = None;
        for code in waited {
            let k = self.b.konst(code as u128, w);
            let e = self.b.prim(PrimOp::Eq, vec![now, k], 1);
            c = Some(match c {
                Some(x) => self.b.prim(PrimOp::Or, vec![x, e], 1),
                None => e,
            });
        }
        if let Some(c) = c {
            self.b.if_else(
                c,
                |bb| {
                    for &channel in &channels {
                        let m = crate::rules::DmaMethod::Poll { channel }.name();
                        bb.call_value("dma", m, vec![], 1);
                    }
                },
                |_| {},
            );
        }
    }

    /// Write the function's arguments and the CSR values it reads (latched when the
    /// command fired) used elsewhere to their registers (command taken).
    fn keep_arguments(&mut self) -> Result<(), Diagnostic> {
        for (v, g) in &self.seg.values.csr_reads {
            if let Some(reg) = self.seg.values.regs.get(v) {
                let (_, lane) = super::csr::lane_of_global(&self.ctx.csrs, g).ok_or_else(|| {
                    Diagnostic::error(
                        self.seg.span,
                        format!(
                            "`@{g}` is not a CSR global (a `memref.global` with `csr_address`)"
                        ),
                    )
                })?;
                let x = self.b.call_value(&lane.instance(), "latched", vec![], 32);
                let w = self.width(v);
                let x = self.fit(x, 32, w);
                self.b.call(reg, "write", vec![x]);
            }
        }
        for a in &self.seg.values.args {
            if let Some(reg) = self.seg.values.regs.get(a) {
                let x = self.command_value(a).ok_or_else(|| {
                    Diagnostic::error(
                        self.seg.span,
                        format!("argument `{a}` is not a register field (rs1, rs2, rd)"),
                    )
                })?;
                self.b.call(reg, "write", vec![x]);
            }
        }
        Ok(())
    }

    /// Emit `tree` (taken under `path`) and close the rule's writes.
    fn transition(&mut self, tree: &Tree) -> Result<(), Diagnostic> {
        let mut leaves = Vec::new();
        control::emit(self, tree, None, &Env::default(), &mut leaves)?;
        control::finish(self, &leaves);
        Ok(())
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
    if let Some(plan) = &seg.fifo {
        return super::fifo::handle_block(ctx, seg, plan, b);
    }
    let mut out = BlockRules {
        block: b.name.clone(),
        ..BlockRules::default()
    };
    match &b.kind {
        BlockKind::Function {
            start: Some(tree), ..
        } => {
            let mut cx = RuleCx::new(seg, ctx);
            cx.enter_at(&seg.control.entries(&Target::Idle), true);
            cx.keep_arguments()?;
            cx.transition(tree)?;
            out.rule(format!("{}start_rule", seg.prefix), &b.name, cx);
        }
        BlockKind::Basic {
            ops,
            slots,
            exit,
            pipeline: None,
        } => basic_rules(ctx, seg, b, ops, slots, exit.as_ref(), &mut out)?,
        BlockKind::Basic {
            ops,
            slots,
            pipeline: Some(l),
            ..
        } => {
            let BlockKind::Loop { info, .. } = &seg.blocks[*l].kind else {
                return Err(Diagnostic::error(b.span, "pipelined block outside a loop"));
            };
            stage_rules(ctx, seg, b, ops, slots, *l, info, &mut out)?;
        }
        BlockKind::Loop { info, .. } => loop_rules(ctx, seg, b, info, &mut out)?,
        BlockKind::If { .. } | BlockKind::Function { start: None, .. } => {}
    }
    Ok(out)
}

/// The slot of each op, with the checks that values are produced before their use and
/// that no slot has a same-slot hazard.
pub(crate) fn op_slots(seg: &Segmentation, ops: &[Operation]) -> Result<Vec<i64>, Diagnostic> {
    let mut slot_of = Vec::with_capacity(ops.len());
    for op in ops {
        slot_of.push(super::segment::starttime(op)?);
    }
    check_hazards(seg, ops, &slot_of)?;
    // Where each value of this block becomes available: (slot, op index).
    let mut avail: BTreeMap<String, (i64, usize)> = BTreeMap::new();
    for (i, op) in ops.iter().enumerate() {
        for r in super::segment::result_names(op) {
            avail.entry(r).or_insert((slot_of[i], i));
        }
    }
    for (i, op) in ops.iter().enumerate() {
        if op.name == "aps.readrf" {
            continue;
        }
        let s = slot_of[i];
        for o in &op.operands {
            let v = super::segment::operand_name(o);
            if let Some(&(p, at)) = avail.get(&v)
                && (p > s || (p == s && at >= i))
            {
                return Err(Diagnostic::error(
                    o.span,
                    format!("value `{v}` is used in slot {s} before it is produced (slot {p})"),
                ));
            }
        }
    }
    Ok(slot_of)
}

/// The indices of a block's ops by slot, in op order within a slot: each slot's rule reads
/// only its own ops (scanning every op per slot would grow with the square of the slots).
fn ops_by_slot(slot_of: &[i64]) -> BTreeMap<i64, Vec<usize>> {
    let mut by: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (i, &t) in slot_of.iter().enumerate() {
        by.entry(t).or_default().push(i);
    }
    by
}

/// Generate the ops `at` (one slot's) into the rule; `command`: the rule took the command.
fn slot_ops(
    cx: &mut RuleCx,
    ops: &[Operation],
    at: &[usize],
    command: bool,
) -> Result<(), Diagnostic> {
    for &i in at {
        ops::generate(cx, &ops[i], command)?;
    }
    Ok(())
}

/// Write the values computed by the ops `at` (one slot's) that are used elsewhere to their
/// registers.
fn keep_results(cx: &mut RuleCx, ops: &[Operation], at: &[usize]) {
    for &i in at {
        // A CSR read's register is filled where the command is taken (`keep_arguments`).
        if ops::is_csr_read(&ops[i]) {
            continue;
        }
        for r in super::segment::result_names(&ops[i]) {
            if let (Some(reg), Some(&x)) = (cx.seg.values.regs.get(&r), cx.local.get(&r)) {
                let reg = reg.clone();
                cx.b.call(&reg, "write", vec![x]);
            }
        }
    }
}

/// BBHandler: the slot rules of a straight-line block of the state machine.
fn basic_rules(
    ctx: &DesignContext,
    seg: &Segmentation,
    b: &BlockInfo,
    ops: &[Operation],
    slots: &[SlotInfo],
    exit: Option<&Tree>,
    out: &mut BlockRules,
) -> Result<(), Diagnostic> {
    let slot_of = op_slots(seg, ops)?;
    let by_slot = ops_by_slot(&slot_of);
    let command_block = seg.command_block() == Some(b.id);
    let rule_slots: Vec<(usize, &SlotInfo)> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.wait_only)
        .collect();
    for (n, &(k, slot)) in rule_slots.iter().enumerate() {
        let mut cx = RuleCx::new(seg, ctx);
        let command = command_block && k == 0;
        let target = if command {
            Target::Idle
        } else {
            Target::Slot {
                block: b.id,
                time: slot.time,
            }
        };
        cx.enter_at(&seg.control.entries(&target), command);
        if command {
            cx.keep_arguments()?;
        }
        let at = by_slot.get(&slot.time).map_or(&[][..], Vec::as_slice);
        slot_ops(&mut cx, ops, at, command)?;
        keep_results(&mut cx, ops, at);
        let next = match rule_slots.get(n + 1) {
            Some(&(j, s)) => Tree::Goto {
                target: Target::Slot {
                    block: b.id,
                    time: s.time,
                },
                waited: slots[k + 1..j].iter().any(|w| w.polls),
            },
            None => exit.cloned().ok_or_else(|| {
                Diagnostic::error(b.span, format!("block `{}` has no exit", b.name))
            })?,
        };
        cx.transition(&next)?;
        out.rule(format!("{}_slot_{}_rule", b.name, slot.time), &b.name, cx);
    }
    later_before_earlier(
        b,
        &rule_slots.iter().map(|(_, s)| s.time).collect::<Vec<_>>(),
        out,
    );
    Ok(())
}

/// Precedence: later slots before earlier ones (a stage drains before the one feeding it).
/// Each slot is declared before the one just earlier: precedence is transitive, so the chain
/// orders every pair of the block's slots in as many pairs as it has slots (all pairs would
/// grow with the square of the slots).
fn later_before_earlier(b: &BlockInfo, times: &[i64], out: &mut BlockRules) {
    for pair in times.windows(2) {
        out.precedence.push((
            format!("{}_slot_{}_rule", b.name, pair[1]),
            format!("{}_slot_{}_rule", b.name, pair[0]),
        ));
    }
}

/// The stages of pipelined loop `l` (its body `b`).
#[allow(clippy::too_many_arguments)]
fn stage_rules(
    ctx: &DesignContext,
    seg: &Segmentation,
    b: &BlockInfo,
    ops: &[Operation],
    slots: &[SlotInfo],
    l: usize,
    info: &LoopInfo,
    out: &mut BlockRules,
) -> Result<(), Diagnostic> {
    let slot_of = op_slots(seg, ops)?;
    let times: Vec<i64> = slots.iter().map(|s| s.time).collect();
    // `times` is sorted (a block's slots are in time order).
    let stage = |t: i64| times.binary_search(&t).unwrap_or(0);
    let ii = info.pipeline.unwrap_or(1).max(1);
    // Values made in one stage and used in a later one (the induction variable is made
    // by stage 0): one FIFO per (value, consuming stage), enqueued where it is made.
    let mut made: BTreeMap<String, usize> = BTreeMap::new();
    made.insert(info.iv.clone(), 0);
    for (op, &t) in ops.iter().zip(&slot_of) {
        for r in super::segment::result_names(op) {
            made.entry(r).or_insert(stage(t));
        }
    }
    let mut xfer: BTreeMap<(String, usize), String> = BTreeMap::new();
    let mut send: BTreeMap<usize, Vec<(String, String)>> = BTreeMap::new();
    let mut pair_count: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for (op, &t) in ops.iter().zip(&slot_of) {
        if op.name == "aps.readrf" {
            continue;
        }
        let c = stage(t);
        for o in &op.operands {
            let v = super::segment::operand_name(o);
            let Some(&p) = made.get(&v) else { continue };
            if p >= c || xfer.contains_key(&(v.clone(), c)) || seg.values.is_virtual(&v) {
                continue;
            }
            let k = pair_count.entry((p, c)).or_default();
            let fifo = format!("{}_fifo_s{}_s{}_v{k}", b.name, times[p], times[c]);
            *k += 1;
            let w = seg.values.widths.get(&v).copied().unwrap_or(32);
            // One iteration every `ii` cycles, `c − p` stages apart.
            out.fifo(&fifo, w, ((c - p) as u32).div_ceil(ii));
            xfer.insert((v.clone(), c), fifo.clone());
            send.entry(p).or_default().push((v, fifo));
        }
    }
    // The FIFOs each stage dequeues, by value (what the FIFOs are keyed by).
    let mut recv: BTreeMap<usize, Vec<(&String, &String)>> = BTreeMap::new();
    for ((v, c), fifo) in &xfer {
        recv.entry(*c).or_default().push((v, fifo));
    }
    let by_slot = ops_by_slot(&slot_of);
    let last_stage = times.len() - 1;
    let run_entries = seg.control.entries(&Target::Run(l));
    let waited_run = run_entries.iter().any(|(_, w)| *w);
    let run_code = seg.control.code(&Target::Run(l), false);
    let issue = info.issue_reg.clone().unwrap_or_default();
    for (k, &t) in times.iter().enumerate() {
        let mut cx = RuleCx::new(seg, ctx);
        let mut env = Env::default();
        let last = if k == 0 {
            // Issue: while iterations remain (and the interval has passed).
            let body = std::mem::take(&mut cx.b.stmts);
            let on = cx.b.call_value(&issue, "read", vec![], 1);
            let mut g = on;
            if let Some(r) = &info.ii_reg {
                let w = seg.reg_width(r);
                let n = cx.b.call_value(r, "read", vec![], w);
                let zero = cx.b.konst(0, w);
                let z = cx.b.prim(PrimOp::Eq, vec![n, zero], 1);
                g = cx.b.prim(PrimOp::And, vec![g, z], 1);
            }
            let guard = std::mem::replace(&mut cx.b.stmts, body);
            cx.guard = Some((guard, g));
            cx.wait_if(&run_entries, |(code, waited)| waited.then_some(code));
            let w = info.width;
            let iv = cx.b.call_value(&info.iv_reg, "read", vec![], w);
            cx.local.insert(info.iv.clone(), iv);
            let ub = Env::default().get(&mut cx, &info.ub, w, b.span)?;
            let step = Env::default().get(&mut cx, &info.step, w, b.span)?;
            let (next, more) = control::next_iteration(&mut cx, info, iv, ub, step);
            env.writes.push((info.iv_reg.clone(), next));
            env.writes.push((issue.clone(), more));
            if let Some(r) = &info.ii_reg {
                let wr = seg.reg_width(r);
                let n = cx.b.konst((ii - 1) as u128, wr);
                env.writes.push((r.clone(), n));
            }
            let zero = cx.b.konst(0, 1);
            cx.b.prim(PrimOp::Eq, vec![more, zero], 1)
        } else {
            cx.b.call_value(
                &format!("{}_token_fifo_s{}", b.name, times[k - 1]),
                "deq",
                vec![],
                1,
            )
        };
        for &(v, fifo) in recv.get(&k).into_iter().flatten() {
            let w = cx.width(v);
            let x = cx.b.call_value(fifo, "deq", vec![], w);
            cx.local.insert(v.clone(), x);
        }
        let at = by_slot.get(&t).map_or(&[][..], Vec::as_slice);
        slot_ops(&mut cx, ops, at, false)?;
        for (v, fifo) in send.get(&k).into_iter().flatten() {
            let x = cx.value(v, b.span)?;
            cx.b.call(fifo, "enq", vec![x]);
        }
        if k < last_stage {
            let f = format!("{}_token_fifo_s{t}", b.name);
            out.fifo(&f, 1, 1);
            cx.b.call(&f, "enq", vec![last]);
        }
        // The program counter: the running state once the first iteration has waited;
        // after the last iteration, the loop's exit.
        let settle = (k == 0 && waited_run).then_some(run_code).flatten();
        let mut leaves = Vec::new();
        if k == last_stage {
            let exit = info.exit.as_ref().ok_or_else(|| {
                Diagnostic::error(
                    b.span,
                    format!("pipelined loop `{}` has no exit", info.loop_name),
                )
            })?;
            control::emit(&mut cx, exit, Some(last), &env, &mut leaves)?;
            let zero = cx.b.konst(0, 1);
            let more = cx.b.prim(PrimOp::Eq, vec![last, zero], 1);
            leaves.push(Leaf {
                path: Some(more),
                code: settle,
                writes: env.writes.clone(),
            });
        } else {
            leaves.push(Leaf {
                path: None,
                code: settle,
                writes: env.writes.clone(),
            });
        }
        control::finish(&mut cx, &leaves);
        out.rule(format!("{}_slot_{t}_rule", b.name), &b.name, cx);
    }
    later_before_earlier(b, &times, out);
    Ok(())
}

/// A loop's own rules: the head rule (an iteration after one that ran no slot) and, for a
/// pipelined loop with an interval above 1, the interval counter.
fn loop_rules(
    ctx: &DesignContext,
    seg: &Segmentation,
    b: &BlockInfo,
    info: &LoopInfo,
    out: &mut BlockRules,
) -> Result<(), Diagnostic> {
    if let Some(tree) = &info.head {
        let mut cx = RuleCx::new(seg, ctx);
        cx.enter_at(&seg.control.entries(&Target::Head(b.id)), false);
        cx.transition(tree)?;
        out.rule(format!("{}_head_rule", info.loop_name), &b.name, cx);
    }
    if let Some(r) = &info.ii_reg {
        let mut cx = RuleCx::new(seg, ctx);
        let w = seg.reg_width(r);
        let n = cx.b.call_value(r, "read", vec![], w);
        let zero = cx.b.konst(0, w);
        let busy = cx.b.prim(PrimOp::Ne, vec![n, zero], 1);
        let guard = std::mem::take(&mut cx.b.stmts);
        cx.guard = Some((guard, busy));
        let n = cx.b.call_value(r, "read", vec![], w);
        let one = cx.b.konst(1, w);
        let less = cx.b.prim(PrimOp::Sub, vec![n, one], w);
        cx.b.call(r, "write", vec![less]);
        out.rule(format!("{}_ii_rule", info.loop_name), &b.name, cx);
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
            // One write-back port per CSR lane; reads see the latched value, no hazard.
            "aps.writecsr" | "aps.write_csr" => (ops::global_symbol(op).ok(), true),
            _ => (None, false),
        };
        let Some(t) = target else { continue };
        let what = if op.name.starts_with("aps.global") {
            "global register"
        } else if op.name.starts_with("aps.write") {
            "CSR"
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
