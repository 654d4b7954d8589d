//! Zero-overhead control: what happens between one slot and the next slot to run.
//!
//! A function runs as one state machine: a program-counter register `<P>pc` names the
//! slot whose rule may fire next (0: idle, waiting for a command), and every slot rule ends
//! by choosing its successor in the same firing. Between two slots lie zero or more
//! control steps taken in zero time: leaving a block, entering a loop (its state written,
//! the trip test of the first iteration), the next iteration of a loop (iteration values
//! from the body's yields, the induction variable stepped and tested), the branch of an
//! `if`, the join of its results. A [`Tree`] is these steps from one point of the program to
//! every slot that can run next, with the decisions between them; the segmentation
//! computes one per place a rule ends ([`Walker`]) and the handlers emit it as
//! straight-line logic in that rule ([`emit`], [`finish`]): conditions and values as
//! expressions, one write per register, the program counter last.
//!
//! Three targets are not slots: the head rule of a loop whose body can finish an iteration
//! without running any slot (an empty body, a zero-trip inner loop, an `if` without else) —
//! a second zero-slot iteration cannot be taken in zero time, so it costs the head rule's
//! cycle; the running state of a pipelined loop (its stages fire on their own); idle.
//!
//! A slot that only waits (burst and store collects, no other op) has no rule of its own:
//! its wait (the DMA idle) guards the next slot to run, which is then entered *waited*
//! (its own program-counter code, under which it also polls the DMA).

use super::handlers::RuleCx;
use super::segment::{BlockId, BlockInfo, BlockKind, Container, LoopInfo};
use crate::diag::{Diagnostic, Span};
use crate::rules::{PrimOp, Var};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where control can go: the states of a function's program counter.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Target {
    /// Waiting for a command.
    Idle,
    /// The slot at `time` of basic block `block`.
    Slot { block: BlockId, time: i64 },
    /// The head rule of loop `block` (the next iteration after one that ran no slot).
    Head(BlockId),
    /// Pipelined loop `block` is running.
    Run(BlockId),
}

/// The control steps from one point of a function to the next slot.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Tree {
    /// Continue at `target`; `waited`: the DMA must be idle first.
    Goto { target: Target, waited: bool },
    /// Enter loop `l`: `go` when its first iteration runs, else `skip`.
    Enter {
        l: BlockId,
        go: Box<Tree>,
        skip: Box<Tree>,
    },
    /// An iteration of loop `l` is done: `go` when the next one runs, else `exit`.
    Next {
        l: BlockId,
        go: Box<Tree>,
        exit: Box<Tree>,
    },
    /// The `if` block `i`: `then` when its condition holds, else `other`.
    Branch {
        i: BlockId,
        then: Box<Tree>,
        other: Box<Tree>,
    },
    /// Branch `branch` (0 then, 1 else) of `if` block `i` is done (its results are set).
    Join {
        i: BlockId,
        branch: usize,
        next: Box<Tree>,
    },
}

impl Tree {
    /// Every `(target, waited)` the tree can reach.
    pub(crate) fn targets(&self, out: &mut Vec<(Target, bool)>) {
        match self {
            Tree::Goto { target, waited } => out.push((target.clone(), *waited)),
            Tree::Enter { go, skip: b, .. }
            | Tree::Next { go, exit: b, .. }
            | Tree::Branch {
                then: go, other: b, ..
            } => {
                go.targets(out);
                b.targets(out);
            }
            Tree::Join { next, .. } => next.targets(out),
        }
    }
}

/// Trees bigger than this (in nodes) stop expanding further loop iterations inline: the
/// next iteration goes through the loop's head rule (one cycle) instead.
const BUDGET: usize = 256;
/// A tree may not grow beyond this (chains of `if`s taken in zero time).
const HARD_CAP: usize = 4096;

/// Builds [`Tree`]s over a function's block tree.
pub(crate) struct Walker<'a> {
    blocks: &'a [BlockInfo],
    /// Loops whose next iteration this path already passed (their body ran no slot since).
    continuing: Vec<BlockId>,
    nodes: usize,
    span: Span,
}

impl<'a> Walker<'a> {
    pub(crate) fn new(blocks: &'a [BlockInfo], span: Span) -> Walker<'a> {
        Walker {
            blocks,
            continuing: Vec::new(),
            nodes: 0,
            span,
        }
    }

    fn node(&mut self, t: Tree) -> Result<Tree, Diagnostic> {
        self.nodes += 1;
        if self.nodes > HARD_CAP {
            return Err(Diagnostic::error(
                self.span,
                format!(
                    "the control flow between two slots has more than {HARD_CAP} steps (chains of `tor.if`s without slots between them)"
                ),
            ));
        }
        Ok(t)
    }

    /// The steps after block `b` (its last slot ran).
    pub(crate) fn after(&mut self, b: BlockId, waited: bool) -> Result<Tree, Diagnostic> {
        self.nodes = 0;
        self.after_block(b, waited)
    }

    /// The steps from the start of the function's body.
    pub(crate) fn start(&mut self, root: BlockId) -> Result<Tree, Diagnostic> {
        self.nodes = 0;
        self.enter(root, 0, 0, false)
    }

    /// The head rule of loop `l`: its next iteration, the one before ran no slot.
    pub(crate) fn head(&mut self, l: BlockId, waited: bool) -> Result<Tree, Diagnostic> {
        self.nodes = 0;
        self.continuing.clear();
        self.next(l, waited)
    }

    fn after_block(&mut self, b: BlockId, waited: bool) -> Result<Tree, Diagnostic> {
        match self.blocks[b].at {
            Some(at) => self.enter(at.owner, at.branch, at.index + 1, waited),
            None => self.node(Tree::Goto {
                target: Target::Idle,
                waited,
            }),
        }
    }

    /// Piece `index` of container `branch` of block `owner` starts.
    fn enter(
        &mut self,
        owner: BlockId,
        branch: usize,
        index: usize,
        waited: bool,
    ) -> Result<Tree, Diagnostic> {
        let Some(&c) = container(&self.blocks[owner], branch).and_then(|c| c.children.get(index))
        else {
            return self.leave(owner, branch, waited);
        };
        match &self.blocks[c].kind {
            BlockKind::Basic { slots, .. } => {
                let mut w = waited;
                for s in slots {
                    if s.wait_only {
                        w |= s.polls;
                        continue;
                    }
                    return self.node(Tree::Goto {
                        target: Target::Slot {
                            block: c,
                            time: s.time,
                        },
                        waited: w,
                    });
                }
                self.enter(owner, branch, index + 1, w)
            }
            BlockKind::Loop { info, .. } => {
                let go = if info.pipeline.is_some() {
                    self.node(Tree::Goto {
                        target: Target::Run(c),
                        waited,
                    })?
                } else {
                    self.enter(c, 0, 0, waited)?
                };
                let skip = self.enter(owner, branch, index + 1, waited)?;
                self.node(Tree::Enter {
                    l: c,
                    go: Box::new(go),
                    skip: Box::new(skip),
                })
            }
            BlockKind::If { else_c, .. } => {
                let then = self.enter(c, 0, 0, waited)?;
                let other = match else_c {
                    Some(_) => self.enter(c, 1, 0, waited)?,
                    None => self.enter(owner, branch, index + 1, waited)?,
                };
                self.node(Tree::Branch {
                    i: c,
                    then: Box::new(then),
                    other: Box::new(other),
                })
            }
            BlockKind::Function { .. } => self.leave(owner, branch, waited),
        }
    }

    /// Container `branch` of block `owner` is done.
    fn leave(&mut self, owner: BlockId, branch: usize, waited: bool) -> Result<Tree, Diagnostic> {
        match &self.blocks[owner].kind {
            BlockKind::Loop { info, .. } if info.pipeline.is_none() => {
                if self.continuing.contains(&owner) || self.nodes > BUDGET {
                    return self.node(Tree::Goto {
                        target: Target::Head(owner),
                        waited,
                    });
                }
                self.next(owner, waited)
            }
            BlockKind::If { .. } => {
                let next = self.after_block(owner, waited)?;
                self.node(Tree::Join {
                    i: owner,
                    branch,
                    next: Box::new(next),
                })
            }
            _ => self.after_block(owner, waited),
        }
    }

    fn next(&mut self, l: BlockId, waited: bool) -> Result<Tree, Diagnostic> {
        self.continuing.push(l);
        let both = self
            .enter(l, 0, 0, waited)
            .and_then(|go| Ok((go, self.after_block(l, waited)?)));
        self.continuing.retain(|x| *x != l);
        let (go, exit) = both?;
        self.node(Tree::Next {
            l,
            go: Box::new(go),
            exit: Box::new(exit),
        })
    }
}

/// Container `branch` of a block (0: function or loop body, `if` then; 1: `if` else).
pub(crate) fn container(b: &BlockInfo, branch: usize) -> Option<&Container> {
    match (&b.kind, branch) {
        (BlockKind::Function { body, .. }, 0) | (BlockKind::Loop { body, .. }, 0) => Some(body),
        (BlockKind::If { then_c, .. }, 0) => Some(then_c),
        (BlockKind::If { else_c, .. }, 1) => else_c.as_ref(),
        _ => None,
    }
}

/// One way a rule's transition ends: taken when `path` holds (`None`: always), it sets
/// the program counter to `code` (`None`: unchanged) and writes `writes` (in order; a later
/// write of a register replaces an earlier one).
pub(crate) struct Leaf {
    pub path: Option<Var>,
    pub code: Option<u32>,
    pub(crate) writes: Vec<(String, Var)>,
}

/// What a path through a tree has computed so far: values it defined (induction
/// variables, iteration values, results) and the register writes that persist them.
#[derive(Clone, Default)]
pub(crate) struct Env {
    pub(crate) bound: BTreeMap<String, Var>,
    pub(crate) writes: Vec<(String, Var)>,
}

impl Env {
    fn set(&mut self, reg: &str, value: &str, x: Var) {
        self.writes.push((reg.to_string(), x));
        self.bound.insert(value.to_string(), x);
    }

    /// Value `v` as this path sees it, fitted to `width` bits.
    pub(crate) fn get(
        &self,
        cx: &mut RuleCx,
        v: &str,
        width: u32,
        span: Span,
    ) -> Result<Var, Diagnostic> {
        let (x, from) = match self.bound.get(v) {
            Some(x) => (*x, cx.width(v)),
            None => (cx.value(v, span)?, cx.width(v)),
        };
        Ok(cx.fit(x, from, width))
    }
}

/// `path ∧ c` (`c` when there is no path condition).
fn and(cx: &mut RuleCx, path: Option<Var>, c: Var) -> Var {
    match path {
        Some(p) => cx.b.prim(PrimOp::And, vec![p, c], 1),
        None => c,
    }
}

fn not(cx: &mut RuleCx, c: Var) -> Var {
    let zero = cx.b.konst(0, 1);
    cx.b.prim(PrimOp::Eq, vec![c, zero], 1)
}

/// The continue condition `step < 0 ? iv >= ub : iv <= ub` (signed).
pub(crate) fn trip_cond(cx: &mut RuleCx, iv: Var, ub: Var, step: Var, w: u32) -> Var {
    let zero = cx.b.konst(0, w);
    let neg = cx.b.prim(PrimOp::Slt, vec![step, zero], 1);
    let down = cx.b.prim(PrimOp::Sge, vec![iv, ub], 1);
    let up = cx.b.prim(PrimOp::Sle, vec![iv, ub], 1);
    cx.b.prim(PrimOp::Mux, vec![neg, down, up], 1)
}

/// The next induction value `iv + step` of loop `info` and whether the loop goes on with
/// it: [`trip_cond`] of the next value and, when the loop may overflow (bounds or step
/// known only at run time), no signed overflow in `iv + step`: the induction variable never
/// wraps (as in [`crate::aps::interp`]), so a loop whose bound is the type's maximum ends.
pub(crate) fn next_iteration(
    cx: &mut RuleCx,
    info: &LoopInfo,
    iv: Var,
    ub: Var,
    step: Var,
) -> (Var, Var) {
    let w = info.width;
    let next = cx.b.prim(PrimOp::Add, vec![iv, step], w);
    let ok = trip_cond(cx, next, ub, step, w);
    if !info.may_overflow {
        return (next, ok);
    }
    // `iv + step` overflows when both operands' sign differs from the sum's.
    let a = cx.b.prim(PrimOp::Xor, vec![iv, next], w);
    let b = cx.b.prim(PrimOp::Xor, vec![step, next], w);
    let both = cx.b.prim(PrimOp::And, vec![a, b], w);
    let sign = cx.b.prim(PrimOp::Bits { lo: w - 1 }, vec![both], 1);
    let zero = cx.b.konst(0, 1);
    let fits = cx.b.prim(PrimOp::Eq, vec![sign, zero], 1);
    (next, cx.b.prim(PrimOp::And, vec![ok, fits], 1))
}

/// Emit `tree`, taken under `path`, into the rule being built: its computations as
/// straight-line expressions, its ends as `out`'s leaves.
pub(crate) fn emit(
    cx: &mut RuleCx,
    tree: &Tree,
    path: Option<Var>,
    env: &Env,
    out: &mut Vec<Leaf>,
) -> Result<(), Diagnostic> {
    let seg = cx.seg;
    match tree {
        Tree::Goto { target, waited } => {
            let code = seg.control.code(target, *waited).ok_or_else(|| {
                Diagnostic::error(
                    seg.span,
                    format!("no state for {target:?} in `{}`", seg.func),
                )
            })?;
            out.push(Leaf {
                path,
                code: Some(code),
                writes: env.writes.clone(),
            });
        }
        Tree::Enter { l, go, skip } => {
            let b = &seg.blocks[*l];
            let BlockKind::Loop { info, .. } = &b.kind else {
                return Err(Diagnostic::error(
                    b.span,
                    "loop entry of a block that is no loop",
                ));
            };
            let w = info.width;
            let lb = env.get(cx, &info.lb, w, b.span)?;
            let ub = env.get(cx, &info.ub, w, b.span)?;
            let step = env.get(cx, &info.step, w, b.span)?;
            if let Some(fault) = &info.step_fault {
                // A step known only at run time: 0 would never end the loop.
                let zero = cx.b.konst(0, w);
                let is_zero = cx.b.prim(PrimOp::Eq, vec![step, zero], 1);
                let c = and(cx, path, is_zero);
                let f = fault.clone();
                cx.b.if_else(c, |bb| bb.call(&f, "raise", vec![]), |_| {});
            }
            let mut inner = env.clone();
            inner.set(&info.iv_reg, &info.iv, lb);
            for (k, init) in info.inits.iter().enumerate() {
                let x = env.get(cx, init, cx.width(&info.iters[k]), b.span)?;
                inner.set(&info.iter_regs[k], &info.iters[k], x);
                inner.bound.insert(info.results[k].clone(), x);
            }
            let ok = trip_cond(cx, lb, ub, step, w);
            let go_path = and(cx, path, ok);
            let nok = not(cx, ok);
            let skip_path = and(cx, path, nok);
            let mut run = inner.clone();
            if let Some(issue) = &info.issue_reg {
                let one = cx.b.konst(1, 1);
                run.writes.push((issue.clone(), one));
            }
            emit(cx, go, Some(go_path), &run, out)?;
            emit(cx, skip, Some(skip_path), &inner, out)?;
        }
        Tree::Next { l, go, exit } => {
            let b = &seg.blocks[*l];
            let BlockKind::Loop { info, body } = &b.kind else {
                return Err(Diagnostic::error(
                    b.span,
                    "next iteration of a block that is no loop",
                ));
            };
            let w = info.width;
            let mut inner = env.clone();
            let ys: Vec<Var> = body
                .yields
                .iter()
                .zip(&info.iters)
                .map(|(y, it)| env.get(cx, y, cx.width(it), b.span))
                .collect::<Result<_, _>>()?;
            for (k, y) in ys.into_iter().enumerate() {
                inner.set(&info.iter_regs[k], &info.iters[k], y);
                inner.bound.insert(info.results[k].clone(), y);
            }
            let iv = env.get(cx, &info.iv, w, b.span)?;
            let ub = env.get(cx, &info.ub, w, b.span)?;
            let step = env.get(cx, &info.step, w, b.span)?;
            let (next, ok) = next_iteration(cx, info, iv, ub, step);
            inner.set(&info.iv_reg, &info.iv, next);
            let go_path = and(cx, path, ok);
            let nok = not(cx, ok);
            let exit_path = and(cx, path, nok);
            emit(cx, go, Some(go_path), &inner, out)?;
            emit(cx, exit, Some(exit_path), &inner, out)?;
        }
        Tree::Branch { i, then, other } => {
            let b = &seg.blocks[*i];
            let BlockKind::If { cond, .. } = &b.kind else {
                return Err(Diagnostic::error(
                    b.span,
                    "branch of a block that is no `if`",
                ));
            };
            let c = env.get(cx, cond, 1, b.span)?;
            let then_path = and(cx, path, c);
            let nc = not(cx, c);
            let else_path = and(cx, path, nc);
            emit(cx, then, Some(then_path), env, out)?;
            emit(cx, other, Some(else_path), env, out)?;
        }
        Tree::Join { i, branch, next } => {
            let b = &seg.blocks[*i];
            let BlockKind::If {
                results, res_regs, ..
            } = &b.kind
            else {
                return Err(Diagnostic::error(b.span, "join of a block that is no `if`"));
            };
            let yields = container(b, *branch)
                .map(|c| c.yields.clone())
                .unwrap_or_default();
            let mut inner = env.clone();
            for ((y, r), reg) in yields.iter().zip(results).zip(res_regs) {
                let x = env.get(cx, y, cx.width(r), b.span)?;
                inner.set(reg, r, x);
            }
            emit(cx, next, path, &inner, out)?;
        }
    }
    Ok(())
}

/// The rule's register writes from its leaves: for each register one write of the value
/// its taken leaf gives it (under the condition that some leaf writing it is taken), the
/// program counter's last.
pub(crate) fn finish(cx: &mut RuleCx, leaves: &[Leaf]) {
    // Registers in order of first write; per register the leaves' (path, value).
    let mut order: Vec<String> = Vec::new();
    let mut by_reg: BTreeMap<String, Vec<(Option<Var>, Var)>> = BTreeMap::new();
    for leaf in leaves {
        let mut last: BTreeMap<&str, Var> = BTreeMap::new();
        for (r, x) in &leaf.writes {
            last.insert(r, *x);
        }
        for (r, _) in &leaf.writes {
            if let Some(x) = last.remove(r.as_str()) {
                if !by_reg.contains_key(r) {
                    order.push(r.clone());
                }
                by_reg.entry(r.clone()).or_default().push((leaf.path, x));
            }
        }
    }
    let pc = cx.seg.control.pc.clone();
    let pcw = cx.seg.control.width;
    let codes: Vec<(Option<Var>, Var)> = leaves
        .iter()
        .filter_map(|l| l.code.map(|c| (l.path, c)))
        .map(|(p, c)| (p, cx.b.konst(c as u128, pcw)))
        .collect();
    for r in order {
        let ways = by_reg.remove(&r).unwrap_or_default();
        write_selected(cx, &r, &ways, leaves.len());
    }
    // The function's memory locks are held while it is not idle (code 0): set by the rule
    // that takes the command, cleared by a rule that returns to idle.
    let ends = leaves.iter().any(|l| l.code == Some(0));
    if !codes.is_empty() && !cx.seg.mem_locks.is_empty() && (ends || cx.cmd.is_some()) {
        let busy: Vec<(Option<Var>, Var)> = leaves
            .iter()
            .filter_map(|l| l.code.map(|c| (l.path, c != 0)))
            .map(|(p, b)| (p, cx.b.konst(b as u128, 1)))
            .collect();
        for l in cx.seg.mem_locks.clone() {
            write_selected(cx, &l, &busy, leaves.len());
        }
    }
    if !codes.is_empty() {
        write_selected(cx, &pc, &codes, leaves.len());
    }
}

/// `reg.write(v)` where `v` is the value of the taken way (values have the register's
/// width); unconditional when every leaf (of `all`) writes it.
fn write_selected(cx: &mut RuleCx, reg: &str, ways: &[(Option<Var>, Var)], all: usize) {
    let Some((_, last)) = ways.last() else { return };
    let w = cx.seg.reg_width(reg);
    let mut v = *last;
    for (p, x) in ways.iter().rev().skip(1) {
        let x = *x;
        if x == v {
            continue;
        }
        v = match p {
            Some(p) => cx.b.prim(PrimOp::Mux, vec![*p, x, v], w),
            None => x,
        };
    }
    let always = ways.len() == all || ways.iter().any(|(p, _)| p.is_none());
    if always {
        cx.b.call(reg, "write", vec![v]);
        return;
    }
    let mut en = None;
    for (p, _) in ways {
        if let Some(p) = p {
            en = Some(match en {
                Some(e) => cx.b.prim(PrimOp::Or, vec![e, *p], 1),
                None => *p,
            });
        }
    }
    let en = en.unwrap_or_else(|| cx.b.konst(1, 1));
    let r = reg.to_string();
    cx.b.if_else(en, |bb| bb.call(&r, "write", vec![v]), |_| {});
}
