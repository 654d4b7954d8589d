//! Locks of overlapping commands (see `ARCHITECTURE.md`, "overlapping commands keep
//! program order"): the design-level lock of each memory resource a function accesses
//! ([`memory_locks`], both styles) and the fifo style's function-level scopes
//! ([`plan_locks`]); how a rule takes them ([`take_locks`]) and writes each once
//! ([`without_writes`]).

use super::context::DesignContext;
use super::fifo::{BlockPorts, TokenIn, csr_globals, locks};
use super::handlers::RuleCx;
use super::ops;
use super::segment::{BlockId, BlockKind, Segmentation, operand_name};
use crate::mlir::ast::Operation;
use crate::rules::{PrimOp, Var};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The scopes of the function body that hold one command at a time ([`plan_locks`]): a
/// 1-bit register per scope, set by the rule that takes the token into its first
/// top-level block (the token in `acquire`'s key; `""` for the RoCC command) and cleared
/// by the rule that gives the token out of its last (the key of `release`; the function's
/// end is the token `end`, which no FIFO carries).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Locks {
    pub end: String,
    pub regs: Vec<String>,
    pub acquire: BTreeMap<String, Vec<String>>,
    pub release: BTreeMap<String, Vec<String>>,
}

/// Commands overlap in the fifo style: command k+1 enters the function while command k is
/// still in a later block, and values never mix because every FIFO keeps command order and
/// every rule serves one command per firing. What would break that order or the program's
/// memory semantics is state kept across firings; each piece of it gets a lock, which holds
/// one command at a time:
/// - each memory resource the function accesses (a scratchpad bank or global register by
///   symbol, CPU memory with the DMA engine as one): the design-level lock of
///   [`memory_lock`], taken with the command (commands are taken in program order, by
///   every instruction) and given back when the command leaves the last top-level block
///   that accesses the resource, so a later command, of any instruction, accesses it after
///   every access of an earlier one (a load sees the earlier command's stores);
/// - a top-level loop or `if` (loop state registers, branch joins that could reorder);
/// - the CSR latch registers, from the command's entry to the last block that reads them.
///
/// Function-level scopes with the same span share a lock.
pub(crate) fn plan_locks(
    seg: &Segmentation,
    top: &[BlockId],
    ports: &[BlockPorts],
    end: String,
) -> Locks {
    let mut locks = Locks {
        end,
        ..Locks::default()
    };
    // Memory resource → the last top-level block that accesses it.
    let mut last: BTreeMap<String, usize> = BTreeMap::new();
    let mut spans: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut csr_last: Option<usize> = None;
    let csrs = csr_globals(seg);
    for (n, &id) in top.iter().enumerate() {
        if matches!(
            seg.blocks[id].kind,
            BlockKind::Loop { .. } | BlockKind::If { .. }
        ) {
            spans.insert((n, n));
        }
        let mut ops = Vec::new();
        block_ops(seg, id, &mut ops);
        for op in ops {
            for r in op_resources(seg, op) {
                last.insert(r, n);
            }
            if is_csr_read(op) && ops::global_symbol(op).is_ok_and(|g| csrs.contains(&g)) {
                csr_last = Some(n);
            }
        }
    }
    if let Some(n) = csr_last {
        spans.insert((0, n));
    }
    // Per lock, the last block of any of its resources.
    let mut lock_last: BTreeMap<String, usize> = BTreeMap::new();
    for (r, n) in last {
        if let Some(l) = seg.mem_lock_of.get(&r) {
            let e = lock_last.entry(l.clone()).or_insert(n);
            *e = (*e).max(n);
        }
    }
    for (reg, n) in lock_last {
        locks
            .acquire
            .entry(String::new())
            .or_default()
            .push(reg.clone());
        if let Some(t) = &ports[top[n]].token_out {
            locks.release.entry(t.clone()).or_default().push(reg);
        }
    }
    for (first, last) in spans {
        let reg = format!("{}lock_b{first}_b{last}", seg.prefix);
        let key = match &ports[top[first]].token_in {
            TokenIn::Rocc => String::new(),
            TokenIn::Fifo(f) => f.clone(),
        };
        locks.acquire.entry(key).or_default().push(reg.clone());
        if let Some(t) = &ports[top[last]].token_out {
            locks
                .release
                .entry(t.clone())
                .or_default()
                .push(reg.clone());
        }
        locks.regs.push(reg);
    }
    locks
}

fn is_csr_read(op: &Operation) -> bool {
    matches!(op.name.as_str(), "aps.readcsr" | "aps.read_csr")
}

/// The design-level lock of memory resource `r` (a global's symbol, or `@cpu`): a 1-bit
/// register every function that accesses `r` shares. The banks of one memory-map entry
/// (an array partitioned into banks) share their entry's lock.
pub(crate) fn memory_lock(ctx: &DesignContext, r: &str) -> String {
    let r = (ctx.entries.iter())
        .find(|e| e.banks.iter().any(|b| b == r))
        .map_or_else(|| r.to_string(), |e| e.name.clone());
    let name: String = match r.as_str() {
        "@cpu" => "cpu_memory".into(),
        g => g
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect(),
    };
    format!("kiln_lock_{name}")
}

/// The memory resources function `seg` accesses, each with its lock.
pub(crate) fn memory_locks(ctx: &DesignContext, seg: &Segmentation) -> BTreeMap<String, String> {
    let mut rs: BTreeSet<String> = BTreeSet::new();
    for b in &seg.blocks {
        if let BlockKind::Basic { ops, .. } = &b.kind {
            for op in ops {
                rs.extend(op_resources(seg, op));
            }
        }
    }
    rs.into_iter()
        .map(|r| {
            let l = memory_lock(ctx, &r);
            (r, l)
        })
        .collect()
}

/// The operations of block `id` and of the blocks inside it.
fn block_ops<'s>(seg: &'s Segmentation, id: BlockId, out: &mut Vec<&'s Operation>) {
    match &seg.blocks[id].kind {
        BlockKind::Basic { ops, .. } => out.extend(ops.iter()),
        BlockKind::Loop { body, .. } => {
            for &c in &body.children {
                block_ops(seg, c, out);
            }
        }
        BlockKind::If { then_c, else_c, .. } => {
            for &c in then_c
                .children
                .iter()
                .chain(else_c.iter().flat_map(|e| &e.children))
            {
                block_ops(seg, c, out);
            }
        }
        BlockKind::Function { .. } => {}
    }
}

/// The memory resources operation `op` accesses (see [`plan_locks`]).
fn op_resources(seg: &Segmentation, op: &Operation) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    // A CPU-memory load or store names the CPU memory's global: that is `@cpu`.
    let cpu = matches!(op.name.as_str(), "aps.itfc.load_req" | "aps.itfc.store_req");
    for o in &op.operands {
        let n = operand_name(o);
        if let Some(g) = seg.values.globals.get(&n)
            && !cpu
        {
            out.insert(g.clone());
        }
        if let Some(g) = seg.values.req_banks.get(&n) {
            out.insert(g.clone());
        }
    }
    if op.name.starts_with("aps.itfc.") {
        out.insert("@cpu".into());
    }
    if matches!(op.name.as_str(), "aps.globalload" | "aps.globalstore")
        && let Ok(g) = ops::global_symbol(op)
    {
        out.insert(g);
    }
    out
}

/// `stmts` without their writes of register `reg`; the condition under which each removed
/// write happened (`path`: the enclosing branch conditions, true when empty) is pushed
/// onto `conds`, computed at the end of the rule.
pub(crate) fn without_writes(
    stmts: Vec<crate::rules::Stmt>,
    reg: &str,
    path: &[(Var, bool)],
    conds: &mut Vec<Var>,
    b: &mut crate::rules::BodyBuilder,
) -> Vec<crate::rules::Stmt> {
    use crate::rules::Stmt;
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        match s {
            Stmt::Call { inst, method, .. } if inst == reg && method == "write" => {
                conds.push(path_cond(path, b));
            }
            Stmt::If {
                cond,
                then_body,
                else_body,
            } => {
                let mut p = path.to_vec();
                p.push((cond, true));
                let then_body = without_writes(then_body, reg, &p, conds, b);
                p.pop();
                p.push((cond, false));
                let else_body = without_writes(else_body, reg, &p, conds, b);
                out.push(Stmt::If {
                    cond,
                    then_body,
                    else_body,
                });
            }
            other => out.push(other),
        }
    }
    out
}

/// The conjunction of a branch path's conditions (appended to `b`'s statements).
fn path_cond(path: &[(Var, bool)], b: &mut crate::rules::BodyBuilder) -> Var {
    let mut acc = b.konst(1, 1);
    for &(c, want) in path {
        let c = if want {
            c
        } else {
            let zero = b.konst(0, 1);
            b.prim(PrimOp::Eq, vec![c, zero], 1)
        };
        acc = b.prim(PrimOp::And, vec![acc, c], 1);
    }
    acc
}

/// Take the locks whose scope starts with the token `key` (see [`Locks`]): the rule's
/// guard requires them free, [`close`] sets them.
pub(crate) fn take_locks(cx: &mut RuleCx, key: &str) {
    let Some(regs) = locks(cx.seg).and_then(|l| l.acquire.get(key)).cloned() else {
        return;
    };
    let body = std::mem::take(&mut cx.b.stmts);
    let mut g = match cx.guard.take() {
        Some((stmts, g)) => {
            cx.b.stmts = stmts;
            Some(g)
        }
        None => None,
    };
    for r in &regs {
        let now = cx.b.call_value(r, "read", vec![], 1);
        let zero = cx.b.konst(0, 1);
        let free = cx.b.prim(PrimOp::Eq, vec![now, zero], 1);
        g = Some(match g {
            Some(x) => cx.b.prim(PrimOp::And, vec![x, free], 1),
            None => free,
        });
    }
    let guard = std::mem::replace(&mut cx.b.stmts, body);
    if let Some(g) = g {
        cx.guard = Some((guard, g));
    }
    cx.taken.extend(regs);
}
