//! [`Style::Fifo`]: the dataflow architecture of BBHandler and BlockHandler, on the block
//! tree of [`super::segment`].
//!
//! BlockHandler ([`plan`]): the sub-blocks of a container are chained by 1-bit token FIFOs
//! `<P>token_fifo_b<i>_b<i+1>`. A value defined in sub-block i and used in sub-block j > i
//! (at any depth) travels in `<P>fifo_b<i>_b<j>_v<k>`, one FIFO per consumer block. A
//! container's inputs (the values its parent sends: only those some sub-block or `tor.yield`
//! needs) are dequeued once by `<P>input_distribution`, which sends each to a
//! `<P>dist_to_block<j>_fifo_v<k>` per consuming sub-block and starts the first sub-block
//! through `<P>dist_token_fifo`; a container without inputs has no distribution rule (0
//! extra cycles). `tor.yield` values leave through exit FIFOs the parent names. The function
//! body's first block takes the RoCC command (or `<P>start_rule` when it is a loop or `if`).
//!
//! BBHandler ([`handle_block`]): one rule `<block>_slot_<t>_rule` per distinct `starttime`
//! t, chained by `<block>_token_fifo_s<t>`. The first slot dequeues the block token (or takes
//! the command) and every block input once: inputs used in the first slot go to the rule's
//! local map, inputs used later into cross-slot FIFOs. A value produced in slot p and used
//! in slot c > p travels in `<block>_fifo_s<p>_s<c>[_<k>]` (the k-th such value of the pair
//! from 1), one FIFO per (value, consumer slot); the rule-local map (`localMap`) holds what
//! a slot computed or dequeued.
//!
//! LoopHandler: `<loop>_entry_rule` (trip test before the first iteration) and
//! `<loop>_next_rule` (yields back, step, trip test), loop state in `<loop>_cur_reg`,
//! `_ub_reg`, `_step_reg` and live-ins in `<loop>_input_state_reg_<k>`; the body's inputs
//! in `<loop>_loop_to_body_fifo_<k>`. IfHandler: `<if>_dispatch_rule` and a join rule per
//! branch. Pipelined loops run their iterations one after the other in this style.
//!
//! Commands of one instruction overlap ([`plan_locks`]): a command enters while earlier ones
//! are in later slots; cross-slot FIFOs hold one value per slot they span, and the scopes
//! that keep state across firings (top-level loops and `if`s, spans of memory accesses)
//! take one command at a time.

use super::context::DesignContext;
use super::control::{next_iteration, trip_cond};
use super::handlers::{BlockRules, RuleCx, op_slots};
use super::locks::{Locks, plan_locks, take_locks, without_writes};
use super::ops;
use super::segment::{
    BlockId, BlockInfo, BlockKind, Container, LoopInfo, Segmentation, collect, operand_name,
    result_names,
};
use super::style::Style;
use crate::diag::Diagnostic;
use crate::mlir::ast::Operation;
use crate::rules::{Instance, InstanceKind, PrimOp, Var};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Port {
    pub value: String,
    pub fifo: String,
    pub width: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TokenIn {
    Fifo(String),
    /// The function's first block: a RoCC command starts it.
    #[default]
    Rocc,
}

/// A block's token and value ports.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BlockPorts {
    pub token_in: TokenIn,
    pub token_out: Option<String>,
    pub inputs: Vec<Port>,
    pub outputs: Vec<Port>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Exit {
    pub value: String,
    /// `None` for a virtual value (materialised where it is needed).
    pub fifo: Option<String>,
}

/// Seed 003's input distribution of a container.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Distribution {
    pub rule: String,
    pub token_fifo: String,
    /// For each container input (in order), the FIFOs it is copied into.
    pub routes: Vec<Vec<String>>,
}

/// The rule that takes the command when the function's first block cannot.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Start {
    pub rule: String,
    pub token_fifo: String,
    pub outputs: Vec<Port>,
}

/// A container's ports (function body, loop body, `if` branch).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ContainerPorts {
    pub prefix: String,
    pub token_in: TokenIn,
    pub token_out: Option<String>,
    pub inputs: Vec<Port>,
    pub dist: Option<Distribution>,
    pub exits: Vec<Exit>,
    pub start: Option<Start>,
}

/// The dataflow plan of a function: per block its ports, per block its containers' ports
/// (by branch), and the cross-block FIFOs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Plan {
    pub blocks: Vec<BlockPorts>,
    pub containers: Vec<Vec<ContainerPorts>>,
    pub locks: Locks,
}

/// The fifo-style segmentation from the state machine's: the same block tree, checks and
/// value table; FIFOs and token chains in place of the registers and the program counter
/// (the loops' step faults stay).
pub(crate) fn plan(mut seg: Segmentation) -> Result<Segmentation, Diagnostic> {
    let n = seg.blocks.len();
    let mut p = Planner {
        seg: &seg,
        plan: Plan {
            blocks: vec![BlockPorts::default(); n],
            containers: vec![Vec::new(); n],
            locks: Locks::default(),
        },
        fifos: Vec::new(),
        depths: BTreeMap::new(),
    };
    let body = match seg.blocks.first().map(|b| &b.kind) {
        Some(BlockKind::Function { body, .. }) => body,
        _ => return Err(Diagnostic::error(seg.span, "function without a body")),
    };
    let end = end_token(&seg);
    let c = p.container(
        0,
        body,
        Vec::new(),
        TokenIn::Rocc,
        Some(end.clone()),
        &|_| String::new(),
    )?;
    p.plan.containers[0].push(c);
    p.plan.locks = plan_locks(&seg, &body.children, &p.plan.blocks, end);
    let (plan, fifos, depths) = (p.plan, p.fifos, p.depths);
    seg.values.regs.clear();
    seg.instances.retain(|i| {
        matches!(i.kind, InstanceKind::Fault { .. }) || seg.mem_locks.contains(&i.name)
    });
    for r in &plan.locks.regs {
        seg.instances.push(Instance {
            name: r.clone(),
            kind: InstanceKind::Reg { width: 1, init: 0 },
        });
    }
    for g in csr_globals(&seg) {
        seg.instances.push(Instance {
            name: csr_reg(&seg, &g),
            kind: InstanceKind::Reg { width: 32, init: 0 },
        });
    }
    seg.instances
        .extend(fifos.into_iter().map(|(name, width)| Instance {
            kind: InstanceKind::Fifo {
                width,
                depth: depths.get(&name).copied().unwrap_or(1).max(1),
            },
            name,
        }));
    seg.style = Style::Fifo;
    seg.fifo = Some(Box::new(plan));
    Ok(seg)
}

struct Planner<'a> {
    seg: &'a Segmentation,
    plan: Plan,
    fifos: Vec<(String, u32)>,
    /// FIFOs deeper than 1.
    depths: BTreeMap<String, u32>,
}

/// Values a block uses from outside it (virtual ones included).
fn free_uses(seg: &Segmentation, id: BlockId) -> BTreeSet<String> {
    match &seg.blocks[id].kind {
        BlockKind::Basic { ops, .. } => {
            let (mut d, mut u) = (BTreeSet::new(), BTreeSet::new());
            for op in ops {
                d.extend(result_names(op));
                collect(op, &mut d, &mut u);
            }
            u.retain(|v| !d.contains(v));
            u
        }
        BlockKind::Loop { info, body } => {
            let mut u = container_uses(seg, body);
            u.remove(&info.iv);
            for it in &info.iters {
                u.remove(it);
            }
            u.extend([info.lb.clone(), info.ub.clone(), info.step.clone()]);
            u.extend(info.inits.iter().cloned());
            u
        }
        BlockKind::If {
            cond,
            then_c,
            else_c,
            ..
        } => {
            let mut u = container_uses(seg, then_c);
            if let Some(e) = else_c {
                u.extend(container_uses(seg, e));
            }
            u.insert(cond.clone());
            u
        }
        BlockKind::Function { body, .. } => container_uses(seg, body),
    }
}

/// Values a block defines for the blocks after it.
fn defs(seg: &Segmentation, id: BlockId) -> Vec<String> {
    match &seg.blocks[id].kind {
        BlockKind::Basic { ops, .. } => ops.iter().flat_map(result_names).collect(),
        BlockKind::Loop { info, .. } => info.results.clone(),
        BlockKind::If { results, .. } => results.clone(),
        BlockKind::Function { .. } => Vec::new(),
    }
}

/// Values a container uses from outside it (its yields included).
fn container_uses(seg: &Segmentation, c: &Container) -> BTreeSet<String> {
    let mut u: BTreeSet<String> = c.yields.iter().cloned().collect();
    let mut d = BTreeSet::new();
    for &child in &c.children {
        u.extend(free_uses(seg, child));
        d.extend(defs(seg, child));
    }
    u.retain(|v| !d.contains(v));
    u
}

impl Planner<'_> {
    fn width(&self, v: &str) -> u32 {
        self.seg.values.widths.get(v).copied().unwrap_or(32).max(1)
    }

    fn fifo(&mut self, name: &str, width: u32) {
        self.fifos.push((name.to_string(), width.max(1)));
    }

    /// Declare `fifo` carrying `v` into a block; returns the port.
    fn carry(&mut self, v: &str, fifo: String) -> Port {
        let width = self.width(v);
        self.fifo(&fifo, width);
        Port {
            value: v.to_string(),
            fifo,
            width,
        }
    }

    /// The ports of container `c` of block `owner` and of its sub-blocks (recursively):
    /// `inputs` are FIFOs the parent fills, `exit_fifo(k)` names the exit of yield k.
    fn container(
        &mut self,
        owner: BlockId,
        c: &Container,
        inputs: Vec<Port>,
        token_in: TokenIn,
        token_out: Option<String>,
        exit_fifo: &dyn Fn(usize) -> String,
    ) -> Result<ContainerPorts, Diagnostic> {
        let seg = self.seg;
        let prefix = c.prefix.clone();
        let ids = &c.children;
        let mut def_of: BTreeMap<String, usize> = BTreeMap::new();
        let mut uses: Vec<BTreeSet<String>> = Vec::with_capacity(ids.len());
        for (n, &id) in ids.iter().enumerate() {
            let mut u = free_uses(seg, id);
            u.retain(|v| !seg.values.is_virtual(v));
            uses.push(u);
            for v in defs(seg, id) {
                def_of.insert(v, n);
            }
        }
        let input_index: BTreeMap<&str, usize> = inputs
            .iter()
            .enumerate()
            .map(|(i, p)| (p.value.as_str(), i))
            .collect();
        let mut routes: Vec<Vec<String>> = vec![Vec::new(); inputs.len()];
        let mut block_in: Vec<Vec<Port>> = vec![Vec::new(); ids.len()];
        let mut block_out: Vec<Vec<Port>> = vec![Vec::new(); ids.len()];
        let mut pair_count: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        let mut dist_count: BTreeMap<usize, usize> = BTreeMap::new();
        let at_command = token_in == TokenIn::Rocc;
        let first_basic = ids
            .first()
            .is_some_and(|&f| matches!(seg.blocks[f].kind, BlockKind::Basic { .. }));
        let mut start_outputs: Vec<Port> = Vec::new();
        let mut start_count: BTreeMap<usize, usize> = BTreeMap::new();
        for (j, used) in uses.iter().enumerate() {
            for v in used {
                let command_value = at_command && seg.values.arg_field(v).is_some();
                if command_value && !def_of.contains_key(v) && !first_basic {
                    let k = start_count.entry(j).or_default();
                    let fifo = format!("{prefix}fifo_start_b{j}_v{k}");
                    *k += 1;
                    let port = self.carry(v, fifo);
                    block_in[j].push(port.clone());
                    start_outputs.push(port);
                    continue;
                }
                let def = def_of
                    .get(v)
                    .copied()
                    .or_else(|| command_value.then_some(0));
                if let Some(i) = def {
                    if i >= j {
                        continue;
                    }
                    let k = pair_count.entry((i, j)).or_default();
                    let fifo = format!("{prefix}fifo_b{i}_b{j}_v{k}");
                    *k += 1;
                    // A command per block in between may be on its way.
                    self.depths.insert(fifo.clone(), (j - i) as u32);
                    let port = self.carry(v, fifo);
                    block_in[j].push(port.clone());
                    block_out[i].push(port);
                } else if let Some(&x) = input_index.get(v.as_str()) {
                    let k = dist_count.entry(j).or_default();
                    let fifo = format!("{prefix}dist_to_block{j}_fifo_v{k}");
                    *k += 1;
                    let port = self.carry(v, fifo);
                    routes[x].push(port.fifo.clone());
                    block_in[j].push(port);
                } else {
                    return Err(Diagnostic::error(
                        seg.blocks[ids[j]].span,
                        format!("value `{v}` is not defined before this use"),
                    ));
                }
            }
        }
        let mut exits = Vec::new();
        for (k, v) in c.yields.iter().enumerate() {
            if seg.values.is_virtual(v) {
                exits.push(Exit {
                    value: v.clone(),
                    fifo: None,
                });
                continue;
            }
            let fifo = exit_fifo(k);
            let width = self.width(v);
            self.fifo(&fifo, width);
            if let Some(&i) = def_of.get(v) {
                block_out[i].push(Port {
                    value: v.clone(),
                    fifo: fifo.clone(),
                    width,
                });
            } else if let Some(&x) = input_index.get(v.as_str()) {
                routes[x].push(fifo.clone());
            } else {
                return Err(Diagnostic::error(
                    seg.blocks[owner].span,
                    format!("yielded value `{v}` is not available"),
                ));
            }
            exits.push(Exit {
                value: v.clone(),
                fifo: Some(fifo),
            });
        }
        let mut first_token = token_in.clone();
        let mut dist = None;
        let mut start = None;
        // Seed 003: a distribution rule only where sub-blocks need the container's inputs
        // (every input is needed by a sub-block or a yield).
        if !inputs.is_empty() && !ids.is_empty() {
            let token_fifo = format!("{prefix}dist_token_fifo");
            self.fifo(&token_fifo, 1);
            first_token = TokenIn::Fifo(token_fifo.clone());
            dist = Some(Distribution {
                rule: format!("{prefix}input_distribution"),
                token_fifo,
                routes,
            });
        }
        if at_command && !ids.is_empty() && !first_basic {
            let fifo = format!("{prefix}start_token_fifo");
            self.fifo(&fifo, 1);
            first_token = TokenIn::Fifo(fifo.clone());
            start = Some(Start {
                rule: format!("{prefix}start_rule"),
                token_fifo: fifo,
                outputs: start_outputs,
            });
        }
        for (n, &id) in ids.iter().enumerate() {
            let tin = match n {
                0 => first_token.clone(),
                _ => TokenIn::Fifo(format!("{prefix}token_fifo_b{}_b{n}", n - 1)),
            };
            let tout = if n + 1 == ids.len() {
                token_out.clone()
            } else {
                let f = format!("{prefix}token_fifo_b{n}_b{}", n + 1);
                self.fifo(&f, 1);
                Some(f)
            };
            self.plan.blocks[id] = BlockPorts {
                token_in: tin,
                token_out: tout,
                inputs: std::mem::take(&mut block_in[n]),
                outputs: std::mem::take(&mut block_out[n]),
            };
            match &seg.blocks[id].kind {
                BlockKind::Loop { info, body } => self.loop_body(id, info, body)?,
                BlockKind::If { then_c, else_c, .. } => {
                    let name = seg.blocks[id].name.clone();
                    for (branch, tag) in [(Some(then_c), "then"), (else_c.as_ref(), "else")] {
                        let Some(branch) = branch else { continue };
                        let cp = self.branch(id, &name, tag, branch)?;
                        self.plan.containers[id].push(cp);
                    }
                }
                _ => {}
            }
        }
        Ok(ContainerPorts {
            prefix,
            token_in,
            token_out,
            inputs,
            dist,
            exits,
            start,
        })
    }

    /// Input ports of a container: `first` (if the container needs them), then the other
    /// values it uses from outside, named by `name(k)`.
    fn inputs_of(
        &mut self,
        c: &Container,
        first: &[String],
        name: &dyn Fn(usize) -> String,
    ) -> Vec<Port> {
        let mut needed = container_uses(self.seg, c);
        needed.retain(|v| !self.seg.values.is_virtual(v));
        let mut vals: Vec<String> = first
            .iter()
            .filter(|v| needed.contains(*v))
            .cloned()
            .collect();
        for v in needed {
            if !vals.contains(&v) {
                vals.push(v);
            }
        }
        vals.iter()
            .enumerate()
            .map(|(k, v)| self.carry(v, name(k)))
            .collect()
    }

    fn loop_body(
        &mut self,
        id: BlockId,
        info: &LoopInfo,
        body: &Container,
    ) -> Result<(), Diagnostic> {
        let ln = info.loop_name.clone();
        let mut first = vec![info.iv.clone()];
        first.extend(info.iters.iter().cloned());
        let inputs = self.inputs_of(body, &first, &|k| format!("{ln}_loop_to_body_fifo_{k}"));
        let tin = format!("{ln}_token_entry_to_body");
        let tout = format!("{ln}_token_body_to_next");
        self.fifo(&tin, 1);
        self.fifo(&tout, 1);
        let c = self.container(id, body, inputs, TokenIn::Fifo(tin), Some(tout), &|k| {
            format!("{ln}_yield_fifo_{k}")
        })?;
        self.plan.containers[id].push(c);
        Ok(())
    }

    fn branch(
        &mut self,
        id: BlockId,
        name: &str,
        tag: &str,
        c: &Container,
    ) -> Result<ContainerPorts, Diagnostic> {
        let inputs = self.inputs_of(c, &[], &|k| format!("{name}_{tag}in{k}"));
        let tin = format!("{name}_{tag}tok");
        let tout = format!("{name}_{tag}done");
        self.fifo(&tin, 1);
        self.fifo(&tout, 1);
        self.container(id, c, inputs, TokenIn::Fifo(tin), Some(tout), &|k| {
            format!("{name}_{tag}res{k}")
        })
    }
}

/// The token the function body's last block gives when a command leaves (no FIFO carries
/// it; it releases the locks that end there).
fn end_token(seg: &Segmentation) -> String {
    format!("{}end", seg.prefix)
}

/// The register holding the value of CSR global `g` the command latched: the rule that
/// takes the command fills it, later slots read it (its lock spans the reads).
pub(crate) fn csr_reg(seg: &Segmentation, g: &str) -> String {
    format!("{}csr_{g}", seg.prefix)
}

/// The CSR globals the function reads, each once.
pub(crate) fn csr_globals(seg: &Segmentation) -> BTreeSet<String> {
    seg.values
        .csr_reads
        .iter()
        .map(|(_, g)| g.clone())
        .collect()
}

/// The locks of the function being handled.
pub(crate) fn locks(seg: &Segmentation) -> Option<&Locks> {
    seg.fifo.as_deref().map(|p| &p.locks)
}

/// Give token `t` (possibly from inside a branch): enqueue it (the function's end is no
/// FIFO), and clear the locks whose scope ends with it.
fn give_in(bb: &mut crate::rules::BodyBuilder, t: &str, locks: Option<&Locks>) {
    if locks.is_none_or(|l| l.end != t) {
        let one = bb.konst(1, 1);
        bb.call(t, "enq", vec![one]);
    }
    for r in locks.and_then(|l| l.release.get(t)).into_iter().flatten() {
        let zero = bb.konst(0, 1);
        bb.call(r, "write", vec![zero]);
    }
}

/// Close a rule. A rule that takes a lock and (in some branch) gives it back in the same
/// firing writes it once: set unless it gave it back.
fn close(out: &mut BlockRules, name: String, origin: &str, mut cx: RuleCx) {
    let taken = std::mem::take(&mut cx.taken);
    for r in taken {
        let mut conds: Vec<Var> = Vec::new();
        let stmts = std::mem::take(&mut cx.b.stmts);
        let stmts = without_writes(stmts, &r, &[], &mut conds, &mut cx.b);
        // The conditions' statements go after the rule's (their operands are defined).
        let extra = std::mem::replace(&mut cx.b.stmts, stmts);
        cx.b.stmts.extend(extra);
        // Set = no branch gave it back.
        let mut set = cx.b.konst(1, 1);
        for c in conds {
            let zero = cx.b.konst(0, 1);
            let not = cx.b.prim(PrimOp::Eq, vec![c, zero], 1);
            set = cx.b.prim(PrimOp::And, vec![set, not], 1);
        }
        cx.b.call(&r, "write", vec![set]);
    }
    out.rule(name, origin, cx);
}

fn take_token(cx: &mut RuleCx, t: &TokenIn) {
    match t {
        TokenIn::Fifo(f) => {
            cx.b.call_value(f, "deq", vec![], 1);
            take_locks(cx, f);
        }
        TokenIn::Rocc => {
            // Guard: the presented command is this instruction's (opcode, funct7) and
            // the locks starting here are free.
            let body = std::mem::take(&mut cx.b.stmts);
            let (opcode, funct7) = (cx.seg.opcode, cx.seg.funct7);
            let cmd = cx.b.call_value("rocc_adapter", "cmd", vec![], 96);
            let mut g = None;
            for (field, want) in [("opcode", opcode), ("funct7", funct7)] {
                let (lo, fw) = crate::rules::rocc_field(field);
                let got = cx.b.prim(PrimOp::Bits { lo }, vec![cmd], fw);
                let k = cx.b.konst(want as u128, fw);
                let eq = cx.b.prim(PrimOp::Eq, vec![got, k], 1);
                g = Some(match g {
                    Some(x) => cx.b.prim(PrimOp::And, vec![x, eq], 1),
                    None => eq,
                });
            }
            let g = g.unwrap_or_else(|| cx.b.konst(1, 1));
            let guard = std::mem::replace(&mut cx.b.stmts, body);
            cx.guard = Some((guard, g));
            take_locks(cx, "");
            let cmd = cx.b.call_value("rocc_adapter", "cmd_deq", vec![], 96);
            cx.cmd = Some(cmd);
            // The CSR values the command latched, for the slots after this one.
            for g in csr_globals(cx.seg) {
                if let Some((_, lane)) = super::csr::lane_of_global(&cx.ctx.csrs, &g) {
                    let x = cx.b.call_value(&lane.instance(), "latched", vec![], 32);
                    cx.b.call(&csr_reg(cx.seg, &g), "write", vec![x]);
                }
            }
        }
    }
}

fn give_token(cx: &mut RuleCx, t: &Option<String>) {
    if let Some(f) = t {
        give_in(&mut cx.b, f, locks(cx.seg));
    }
}

fn deq_ports(cx: &mut RuleCx, ports: &[Port]) -> Vec<Var> {
    ports
        .iter()
        .map(|p| {
            let x = cx.b.call_value(&p.fifo, "deq", vec![], p.width);
            cx.local.insert(p.value.clone(), x);
            x
        })
        .collect()
}

/// The rules of block `b` (of `seg`) in the fifo style.
pub(crate) fn handle_block(
    ctx: &DesignContext,
    seg: &Segmentation,
    plan: &Plan,
    b: &BlockInfo,
) -> Result<BlockRules, Diagnostic> {
    let id = b.id;
    let ports = plan
        .blocks
        .get(id)
        .ok_or_else(|| Diagnostic::global_error(format!("no ports of block {id}")))?;
    let containers = plan.containers.get(id).map_or(&[][..], Vec::as_slice);
    let mut out = BlockRules {
        block: b.name.clone(),
        ..BlockRules::default()
    };
    match &b.kind {
        BlockKind::Function { .. } => {}
        BlockKind::Basic { ops, .. } => basic_rules(ctx, seg, b, ports, ops, &mut out)?,
        BlockKind::Loop { info, .. } => {
            let body = containers
                .first()
                .ok_or_else(|| Diagnostic::error(b.span, "loop without a body"))?;
            loop_rules(ctx, seg, b, ports, info, body, &mut out)?;
        }
        BlockKind::If { cond, results, .. } => {
            if_rules(ctx, seg, b, ports, cond, containers, results, &mut out)?;
        }
    }
    for c in containers {
        container_rules(ctx, seg, b, c, &mut out)?;
    }
    Ok(out)
}

/// Start, distribution and empty-container rules.
fn container_rules(
    ctx: &DesignContext,
    seg: &Segmentation,
    b: &BlockInfo,
    c: &ContainerPorts,
    out: &mut BlockRules,
) -> Result<(), Diagnostic> {
    if let Some(start) = &c.start {
        let mut cx = RuleCx::new(seg, ctx);
        take_token(&mut cx, &TokenIn::Rocc);
        for p in &start.outputs {
            let x = cx.command_value(&p.value).ok_or_else(|| {
                Diagnostic::error(b.span, format!("`{}` is not a command field", p.value))
            })?;
            cx.b.call(&p.fifo, "enq", vec![x]);
        }
        give_token(&mut cx, &Some(start.token_fifo.clone()));
        close(out, start.rule.clone(), &b.name, cx);
    }
    let empty = match &b.kind {
        BlockKind::Function { body, .. } | BlockKind::Loop { body, .. } => body.children.is_empty(),
        BlockKind::If { then_c, else_c, .. } => {
            let tag_else = c.prefix.ends_with("_else_");
            match (tag_else, else_c) {
                (true, Some(e)) => e.children.is_empty(),
                _ => then_c.children.is_empty(),
            }
        }
        BlockKind::Basic { .. } => false,
    };
    if empty {
        let mut cx = RuleCx::new(seg, ctx);
        take_token(&mut cx, &c.token_in);
        deq_ports(&mut cx, &c.inputs);
        for e in &c.exits {
            if let Some(f) = &e.fifo {
                let x = cx.value(&e.value, b.span)?;
                cx.b.call(f, "enq", vec![x]);
            }
        }
        give_token(&mut cx, &c.token_out);
        close(out, format!("{}coord_rule", c.prefix), &b.name, cx);
        return Ok(());
    }
    if let Some(d) = &c.dist {
        let mut cx = RuleCx::new(seg, ctx);
        take_token(&mut cx, &c.token_in);
        let vals = deq_ports(&mut cx, &c.inputs);
        for (x, fifos) in vals.iter().zip(&d.routes) {
            for f in fifos {
                cx.b.call(f, "enq", vec![*x]);
            }
        }
        give_token(&mut cx, &Some(d.token_fifo.clone()));
        close(out, d.rule.clone(), &b.name, cx);
    }
    Ok(())
}

/// BBHandler (seed 002).
fn basic_rules(
    ctx: &DesignContext,
    seg: &Segmentation,
    b: &BlockInfo,
    ports: &BlockPorts,
    ops: &[Operation],
    out: &mut BlockRules,
) -> Result<(), Diagnostic> {
    let slot_of = op_slots(seg, ops)?;
    let slots: BTreeSet<i64> = slot_of.iter().copied().collect();
    let (Some(&first), Some(&last)) = (slots.first(), slots.last()) else {
        return Err(Diagnostic::error(
            b.span,
            format!("block `{}` has no operations", b.name),
        ));
    };
    let takes_command = ports.token_in == TokenIn::Rocc;
    // Values the first slot brings in: the block's inputs and, when it takes the command,
    // the command's fields (the function's arguments).
    let mut entering: BTreeSet<String> = ports.inputs.iter().map(|p| p.value.clone()).collect();
    if takes_command {
        entering.extend(seg.values.args.iter().cloned());
    }
    let mut avail: BTreeMap<String, i64> = entering.iter().map(|v| (v.clone(), first)).collect();
    // Cross-slot FIFOs: (value, consumer slot) → FIFO; (value, producer slot) → FIFOs.
    let mut xslot: BTreeMap<(String, i64), String> = BTreeMap::new();
    let mut produce: BTreeMap<(String, i64), Vec<String>> = BTreeMap::new();
    let mut pair_count: BTreeMap<(i64, i64), usize> = BTreeMap::new();
    for (op, &s) in ops.iter().zip(&slot_of) {
        let operands = match op.name == "aps.readrf" {
            true => &[][..],
            false => &op.operands[..],
        };
        for o in operands {
            let v = operand_name(o);
            if seg.values.is_virtual(&v) {
                continue;
            }
            let Some(&p) = avail.get(&v) else {
                return Err(Diagnostic::error(
                    o.span,
                    format!("value `{v}` is not available here"),
                ));
            };
            if p < s && !xslot.contains_key(&(v.clone(), s)) {
                let k = pair_count.entry((p, s)).or_default();
                let fifo = match *k {
                    0 => format!("{}_fifo_s{p}_s{s}", b.name),
                    k => format!("{}_fifo_s{p}_s{s}_{k}", b.name),
                };
                *k += 1;
                let w = seg.values.widths.get(&v).copied().unwrap_or(32);
                // Deep enough for every command between the two slots (one per slot
                // rule after the producer's): overlapping commands stream through.
                let depth = slots.range(p + 1..=s).count() as u32;
                out.fifo(&fifo, w, depth.max(1));
                xslot.insert((v.clone(), s), fifo.clone());
                produce.entry((v, p)).or_default().push(fifo);
            }
        }
        for r in result_names(op) {
            avail.insert(r, s);
        }
    }
    let slot_list: Vec<i64> = slots.into_iter().collect();
    let mut at: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (i, &s) in slot_of.iter().enumerate() {
        at.entry(s).or_default().push(i);
    }
    for (n, &s) in slot_list.iter().enumerate() {
        let mut cx = RuleCx::new(seg, ctx);
        if n == 0 {
            take_token(&mut cx, &ports.token_in);
            for p in &ports.inputs {
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
                    let outs = (ports.outputs.iter())
                        .filter(|p| &p.value == a)
                        .map(|p| &p.fifo);
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
            let prev = format!("{}_token_fifo_s{}", b.name, slot_list[n - 1]);
            cx.b.call_value(&prev, "deq", vec![], 1);
        }
        for &i in at.get(&s).map_or(&[][..], Vec::as_slice) {
            let op = &ops[i];
            if op.name != "aps.readrf" {
                for o in &op.operands {
                    let v = operand_name(o);
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
            for r in result_names(op) {
                let Some(&x) = cx.local.get(&r) else { continue };
                for f in produce.get(&(r.clone(), s)).into_iter().flatten() {
                    cx.b.call(f, "enq", vec![x]);
                }
                for p in ports.outputs.iter().filter(|p| p.value == r) {
                    cx.b.call(&p.fifo, "enq", vec![x]);
                }
            }
        }
        if s == last {
            give_token(&mut cx, &ports.token_out);
        } else {
            let f = format!("{}_token_fifo_s{s}", b.name);
            out.fifo(&f, 1, 1);
            give_token(&mut cx, &Some(f));
        }
        close(out, format!("{}_slot_{s}_rule", b.name), &b.name, cx);
    }
    // Later slots before earlier ones, as a chain of neighbours.
    for pair in slot_list.windows(2) {
        out.precedence.push((
            format!("{}_slot_{}_rule", b.name, pair[1]),
            format!("{}_slot_{}_rule", b.name, pair[0]),
        ));
    }
    Ok(())
}

fn reg(out: &mut BlockRules, name: &str, width: u32) {
    out.instances.push(Instance {
        name: name.into(),
        kind: InstanceKind::Reg {
            width: width.max(1),
            init: 0,
        },
    });
}

/// The values a loop sends its body for an iteration: induction variable, iteration values
/// and live-ins, by name.
fn body_values(
    info: &LoopInfo,
    body: &ContainerPorts,
    iv: Var,
    iters: &[Var],
    live: &BTreeMap<String, Var>,
) -> Vec<(String, Var)> {
    body.inputs
        .iter()
        .filter_map(|p| {
            let x = if p.value == info.iv {
                Some(iv)
            } else if let Some(k) = info.iters.iter().position(|i| *i == p.value) {
                iters.get(k).copied()
            } else {
                live.get(&p.value).copied()
            };
            x.map(|x| (p.fifo.clone(), x))
        })
        .collect()
}

/// LoopHandler: entry and next rules.
#[allow(clippy::too_many_arguments)]
fn loop_rules(
    ctx: &DesignContext,
    seg: &Segmentation,
    b: &BlockInfo,
    ports: &BlockPorts,
    info: &LoopInfo,
    body: &ContainerPorts,
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
        reg(out, r, w);
    }
    let live: Vec<&Port> = (body.inputs.iter())
        .filter(|p| p.value != info.iv && !info.iters.contains(&p.value))
        .collect();
    let state = |k: usize| format!("{l}_input_state_reg_{k}");
    for (k, p) in live.iter().enumerate() {
        reg(out, &state(k), p.width);
    }
    let body_token = match &body.token_in {
        TokenIn::Fifo(f) => Some(f.clone()),
        TokenIn::Rocc => None,
    };
    // Entry.
    let mut cx = RuleCx::new(seg, ctx);
    take_token(&mut cx, &ports.token_in);
    deq_ports(&mut cx, &ports.inputs);
    let mut bound = Vec::new();
    for v in [&info.lb, &info.ub, &info.step] {
        let x = cx.value(v, b.span)?;
        let from = cx.width(v);
        bound.push(cx.fit(x, from, w));
    }
    let (lb, ub, step) = (bound[0], bound[1], bound[2]);
    if let Some(fault) = &info.step_fault {
        // A step known only at run time: 0 would never end the loop.
        let zero = cx.b.konst(0, w);
        let is_zero = cx.b.prim(PrimOp::Eq, vec![step, zero], 1);
        let f = fault.clone();
        cx.b.if_else(is_zero, |bb| bb.call(&f, "raise", vec![]), |_| {});
    }
    cx.b.call(&cur_r, "write", vec![lb]);
    cx.b.call(&ub_r, "write", vec![ub]);
    cx.b.call(&step_r, "write", vec![step]);
    let mut inits = Vec::new();
    for (k, v) in info.inits.iter().enumerate() {
        let x = cx.value(v, b.span)?;
        let from = cx.width(v);
        let to = cx.width(&info.iters[k]);
        inits.push(cx.fit(x, from, to));
    }
    let mut live_vals = BTreeMap::new();
    for (k, p) in live.iter().enumerate() {
        let x = cx.value(&p.value, b.span)?;
        cx.b.call(&state(k), "write", vec![x]);
        live_vals.insert(p.value.clone(), x);
    }
    let go = trip_cond(&mut cx, lb, ub, step, w);
    let sends = body_values(info, body, lb, &inits, &live_vals);
    branch(&mut cx, go, &sends, &body_token, b, ports, info, &inits);
    close(out, format!("{l}_entry_rule"), &b.name, cx);
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
    let (next, go) = next_iteration(&mut cx, info, cur, ub, step);
    let mut live_vals = BTreeMap::new();
    for (k, p) in live.iter().enumerate() {
        let x = cx.b.call_value(&state(k), "read", vec![], p.width);
        live_vals.insert(p.value.clone(), x);
    }
    let cur_name = cur_r.clone();
    cx.b.if_else(go, |bb| bb.call(&cur_name, "write", vec![next]), |_| {});
    let sends = body_values(info, body, next, &ys, &live_vals);
    branch(&mut cx, go, &sends, &body_token, b, ports, info, &ys);
    close(out, format!("{l}_next_rule"), &b.name, cx);
    Ok(())
}

/// `if go { enq body inputs + body token } else { enq results + token out }`.
#[allow(clippy::too_many_arguments)]
fn branch(
    cx: &mut RuleCx,
    go: Var,
    sends: &[(String, Var)],
    body_token: &Option<String>,
    b: &BlockInfo,
    ports: &BlockPorts,
    info: &LoopInfo,
    results: &[Var],
) {
    let outs: Vec<(String, Var)> = info
        .results
        .iter()
        .zip(results)
        .flat_map(|(r, x)| {
            ports
                .outputs
                .iter()
                .filter(move |p| &p.value == r)
                .map(move |p| (p.fifo.clone(), *x))
        })
        .collect();
    let _ = b;
    let locks = locks(cx.seg);
    let token_out = ports.token_out.clone();
    cx.b.if_else(
        go,
        |bb| {
            for (f, x) in sends {
                bb.call(f, "enq", vec![*x]);
            }
            if let Some(t) = body_token {
                give_in(bb, t, locks);
            }
        },
        |bb| {
            for (f, x) in &outs {
                bb.call(f, "enq", vec![*x]);
            }
            if let Some(t) = &token_out {
                give_in(bb, t, locks);
            }
        },
    );
}

/// IfHandler: the dispatch rule and one join rule per branch.
#[allow(clippy::too_many_arguments)]
fn if_rules(
    ctx: &DesignContext,
    seg: &Segmentation,
    b: &BlockInfo,
    ports: &BlockPorts,
    cond: &str,
    branches: &[ContainerPorts],
    results: &[String],
    out: &mut BlockRules,
) -> Result<(), Diagnostic> {
    let then_c = branches
        .first()
        .ok_or_else(|| Diagnostic::error(b.span, "`tor.if` without a then region"))?;
    let else_c = branches.get(1);
    let mut cx = RuleCx::new(seg, ctx);
    take_token(&mut cx, &ports.token_in);
    deq_ports(&mut cx, &ports.inputs);
    let c = cx.value(cond, b.span)?;
    let cw = cx.width(cond);
    let c1 = cx.fit(c, cw, 1);
    let gather =
        |cx: &mut RuleCx, cont: &ContainerPorts| -> Result<Vec<(String, Var)>, Diagnostic> {
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
    let tok = |c: &ContainerPorts| match &c.token_in {
        TokenIn::Fifo(f) => Some(f.clone()),
        TokenIn::Rocc => None,
    };
    let locks = locks(seg);
    let then_tok = tok(then_c);
    let else_tok = match else_c {
        Some(e) => tok(e),
        None => ports.token_out.clone(),
    };
    let send = |bb: &mut crate::rules::BodyBuilder, ins: &[(String, Var)], t: &Option<String>| {
        for (f, x) in ins {
            bb.call(f, "enq", vec![*x]);
        }
        if let Some(t) = t {
            give_in(bb, t, locks);
        }
    };
    cx.b.if_else(
        c1,
        |bb| send(bb, &then_in, &then_tok),
        |bb| send(bb, &else_in, &else_tok),
    );
    close(out, format!("{}_dispatch_rule", b.name), &b.name, cx);
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
            for p in ports.outputs.iter().filter(|p| &p.value == r) {
                cx.b.call(&p.fifo, "enq", vec![x]);
            }
        }
        give_token(&mut cx, &ports.token_out);
        close(out, format!("{}_{tag}_join_rule", b.name), &b.name, cx);
    }
    Ok(())
}
