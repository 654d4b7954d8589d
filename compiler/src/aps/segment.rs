//! BlockHandler: per-function segmentation into a block tree, with the function's state
//! machine: where every value lives and how control goes from each slot to the next.
//!
//! A *container* is an op list run as a unit: the function body, a loop body, an `if`
//! branch. It is split by control flow into sub-blocks (`block_N` straight-line,
//! `loop_N` for `tor.for`, `if_N` for `tor.if`; `tor.while` is rejected). A straight-line
//! block's *slots* are its distinct `starttime`s, one rule each (BBHandler), except slots
//! that only wait (see [`super::control`]).
//!
//! Storage: a non-pipelined function runs one command at a time, one slot after the other,
//! so a value needs one register, written where it is computed: every value used outside
//! the slot that computes it (by a later slot, another block, or a control step: loop
//! bounds, iteration values, conditions, yields) lives in `<block>_reg<k>` (the command's
//! register fields in `<P>arg<k>`); induction variables in `<loop>_iv`, iteration values
//! and loop results in `<loop>_iter<k>`, `if` results in `<if>_res<k>`. Inside a pipelined
//! loop iterations overlap: values crossing its stages travel in FIFOs (its handler's).
//!
//! Control: the program counter `<P>pc` and one [`Tree`] per place a rule ends: after each
//! block's last slot, the start rule (`<P>start_rule`, when the function does not begin
//! with straight-line code), each loop's head rule, each pipelined loop's last stage. The
//! program-counter codes are numbered here, once for the function, from every target the
//! trees can reach, so each block's handler runs from that block alone.
//!
//! The function's arguments are the command's register fields (`%arg0` rs1, `%arg1` rs2,
//! `%arg2` rd), available where the command is taken; `aps.readrf %argK` reads the
//! register's *data* from the command and does not use the argument as a value.

use super::checks;
use super::context::{DesignContext, const_value, type_width};
use super::control::{Target, Tree, Walker};
use super::style::Style;
use crate::diag::{Diagnostic, Span};
use crate::limits::Limits;
use crate::mlir::ast::{Attribute, Operation};
use crate::rules::{Instance, InstanceKind};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

mod blocks;
pub use blocks::*;

/// Name of value `k` of a result group.
pub(crate) fn result_names(op: &Operation) -> Vec<String> {
    let mut out = Vec::new();
    for r in &op.results {
        if r.count <= 1 {
            out.push(r.name.to_string());
        } else {
            out.extend((0..r.count).map(|i| format!("{}#{i}", r.name)));
        }
    }
    out
}

pub(crate) fn operand_name(o: &crate::mlir::ast::Operand) -> String {
    match o.index {
        Some(i) => format!("{}#{i}", o.name),
        None => o.name.to_string(),
    }
}

pub(crate) fn collect(op: &Operation, defined: &mut BTreeSet<String>, used: &mut BTreeSet<String>) {
    // `aps.readrf %argK` reads register K's data from the command: no value use.
    if op.name != "aps.readrf" {
        used.extend(op.operands.iter().map(operand_name));
    }
    for s in &op.successors {
        used.extend(s.args.iter().map(operand_name));
    }
    for r in &op.regions {
        for b in &r.blocks {
            defined.extend(b.args.iter().map(|a| a.name.to_string()));
            for inner in &b.ops {
                defined.extend(result_names(inner));
                collect(inner, defined, used);
            }
        }
    }
}

pub(crate) fn is_structural(name: &str) -> bool {
    matches!(
        name,
        "arith.constant"
            | "memref.get_global"
            | "tor.timegraph"
            | "tor.succ"
            | "tor.return"
            | "tor.yield"
    )
}

/// Ops whose only effect is to wait: a slot of nothing else has no rule.
fn is_wait(name: &str) -> bool {
    matches!(
        name,
        "aps.itfc.burst_load_collect" | "aps.itfc.burst_store_collect" | "aps.itfc.store_collect"
    )
}

/// The DMA channel of a burst request: its `tl_channel` attribute (the scheduler's
/// colouring of the `tl` resource), 0 when absent.
pub(crate) fn dma_channel(op: &Operation) -> Result<u8, Diagnostic> {
    let Some(a) = op.attr("tl_channel") else {
        return Ok(0);
    };
    match a.as_int() {
        Some(c) if (0..crate::rules::DMA_CHANNELS as i128).contains(&c) => Ok(c as u8),
        _ => Err(Diagnostic::error(
            op.span,
            format!(
                "`tl_channel` must be a DMA channel of the SoC, 0 to {}",
                crate::rules::DMA_CHANNELS - 1
            ),
        )),
    }
}

fn int_attr(op: &Operation, name: &str) -> Option<i128> {
    op.attr(name).and_then(Attribute::as_int)
}

/// The `starttime` of an op in a straight-line block.
pub(crate) fn starttime(op: &Operation) -> Result<i64, Diagnostic> {
    match op.attr("starttime") {
        Some(Attribute::Integer { value, .. }) => i64::try_from(*value)
            .map_err(|_| Diagnostic::error(op.span, "`starttime` out of range")),
        _ => Err(Diagnostic::error(
            op.span,
            format!("`{}` has no `starttime` attribute", op.name),
        )),
    }
}

/// The most cycles between two iterations a pipelined loop may ask for.
const MAX_II: i128 = 1 << 16;

/// `Some(ii)` when loop `op` is pipelined: a `pipeline` attribute (true, unit or a non-zero
/// integer) and/or an initiation interval `II` (default 1).
fn pipeline_attr(op: &Operation) -> Result<Option<u32>, Diagnostic> {
    let at = |name: &str| op.attrs.iter().find(|a| a.name == name);
    let on = match at("pipeline").map(|a| &a.value) {
        None => None,
        Some(Attribute::Unit) => Some(true),
        Some(Attribute::Bool(b)) => Some(*b),
        Some(Attribute::Integer { value, .. }) => Some(*value != 0),
        Some(_) => {
            let a = at("pipeline").map_or(op.span, |a| a.span);
            return Err(Diagnostic::error(
                a,
                "`pipeline` must be a boolean (or unit) attribute",
            ));
        }
    };
    let ii = match at("II").or_else(|| at("ii")) {
        None => None,
        Some(a) => match a.value.as_int() {
            Some(v) if (1..=MAX_II).contains(&v) => Some(v as u32),
            _ => {
                return Err(Diagnostic::error(
                    a.span,
                    format!("the initiation interval `II` must be an integer from 1 to {MAX_II}"),
                ));
            }
        },
    };
    Ok(match (on, ii) {
        (Some(false), _) => None,
        (Some(true), ii) => Some(ii.unwrap_or(1)),
        (None, Some(ii)) => Some(ii),
        (None, None) => None,
    })
}

struct Builder {
    seg: Segmentation,
}

enum Piece<'a> {
    Basic(Vec<&'a Operation>),
    Ctl(&'a Operation),
}

/// Segment one `tor.func` into its block tree, under the default limits.
pub fn segment_function(ctx: &DesignContext, func: &Operation) -> Result<Segmentation, Diagnostic> {
    segment_function_with(ctx, func, &Limits::DEFAULT)
}

/// [`segment_function_with`] in `style`: in [`Style::Fifo`] the block tree (and every
/// check) of the state machine, with the dataflow plan of [`super::fifo`] in place of its
/// registers and program counter.
pub fn segment_function_styled(
    ctx: &DesignContext,
    func: &Operation,
    limits: &Limits,
    style: Style,
) -> Result<Segmentation, Diagnostic> {
    let seg = segment_function_with(ctx, func, limits)?;
    match style {
        Style::Fsm => Ok(seg),
        Style::Fifo => super::fifo::plan(seg),
    }
}

/// Segment one `tor.func` into its block tree; its slots are checked against `limits`
/// first, then the whole-function checks of [`super::checks`].
pub fn segment_function_with(
    ctx: &DesignContext,
    func: &Operation,
    limits: &Limits,
) -> Result<Segmentation, Diagnostic> {
    if func.name != "tor.func" {
        return Err(Diagnostic::error(
            func.span,
            format!("expected `tor.func`, found `{}`", func.name),
        ));
    }
    let name = match func.attr("sym_name") {
        Some(Attribute::String(s)) => s.to_string(),
        Some(Attribute::SymbolRef(p)) => p.join("::"),
        _ => return Err(Diagnostic::error(func.span, "`tor.func` without a name")),
    };
    checks::slot_limit(func, &name, limits)?;
    checks::scopes(ctx, func)?;
    checks::loop_bounds(ctx, func)?;
    let mut warnings = Vec::from_iter(checks::responses(func, &name)?);
    warnings.extend(checks::bursts(ctx, func)?);
    let opcode = int_attr(func, "opcode").ok_or_else(|| {
        Diagnostic::error(
            func.span,
            format!("function `@{name}` has no `opcode` attribute"),
        )
    })?;
    let funct7 = int_attr(func, "funct7").unwrap_or(0);
    if !(0..128).contains(&opcode) || !(0..128).contains(&funct7) {
        return Err(Diagnostic::error(
            func.span,
            format!(
                "function `@{name}`: opcode {opcode} / funct7 {funct7} is not a RISC-V instruction identity (both are 7-bit fields)"
            ),
        ));
    }
    let entry = func
        .regions
        .first()
        .and_then(|r| r.blocks.first())
        .ok_or_else(|| Diagnostic::error(func.span, "`tor.func` without a body"))?;
    let prefix = format!(
        "inst{}_",
        crate::rules::Instruction::id(opcode as u32, funct7 as u32)
    );
    let mut values = ValueTable {
        consts: ctx.constants.clone(),
        args: entry.args.iter().map(|a| a.name.to_string()).collect(),
        ..ValueTable::default()
    };
    for a in &entry.args {
        values
            .widths
            .insert(a.name.to_string(), type_width(&a.ty).max(1));
    }
    for op in &entry.ops {
        scan_values(op, &mut values)?;
    }
    let seg = Segmentation {
        func: name,
        span: func.span,
        prefix: prefix.clone(),
        opcode: opcode as u32,
        funct7: funct7 as u32,
        blocks: Vec::new(),
        values,
        control: Control::default(),
        instances: Vec::new(),
        warnings,
        style: Style::Fsm,
        fifo: None,
        mem_locks: Vec::new(),
        mem_lock_of: BTreeMap::new(),
    };
    let mut b = Builder { seg };
    let root = b.alloc(
        None,
        None,
        func.span,
        prefix.trim_end_matches('_').to_string(),
    );
    let defined: BTreeSet<String> = b.seg.values.args.iter().cloned().collect();
    let body = b.container(root, 0, prefix.clone(), &entry.ops, &[], &defined)?;
    b.seg.blocks[root].kind = BlockKind::Function { body, start: None };
    // The slot that takes the command always has a rule.
    if let Some(first) = b.seg.command_block()
        && let BlockKind::Basic { slots, .. } = &mut b.seg.blocks[first].kind
        && let Some(s) = slots.first_mut()
    {
        s.wait_only = false;
    }
    b.registers();
    b.control()?;
    let mut seg = b.seg;
    seg.mem_lock_of = super::locks::memory_locks(ctx, &seg);
    seg.mem_locks = (seg.mem_lock_of.values().cloned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    for l in &seg.mem_locks {
        seg.instances.push(Instance {
            name: l.clone(),
            kind: InstanceKind::Reg { width: 1, init: 0 },
        });
    }
    Ok(seg)
}

fn scan_values(op: &Operation, t: &mut ValueTable) -> Result<(), Diagnostic> {
    let names = result_names(op);
    for (n, ty) in names.iter().zip(&op.result_types) {
        t.widths.insert(n.clone(), type_width(ty));
    }
    match op.name.as_str() {
        "arith.constant" => {
            if let (Some(n), Some(ty)) = (names.first(), op.result_types.first()) {
                let w = type_width(ty).max(1);
                let v = const_value(op)
                    .ok_or_else(|| Diagnostic::error(op.span, "unsupported constant value"))?;
                t.consts
                    .insert(n.clone(), (crate::rules::mask(v as u128, w), w));
            }
        }
        "memref.get_global" => {
            let g = match op.attr("name") {
                Some(Attribute::SymbolRef(p)) => p.last().cloned(),
                Some(Attribute::String(s)) => Some(s.to_string()),
                _ => None,
            }
            .ok_or_else(|| Diagnostic::error(op.span, "`memref.get_global` without a symbol"))?;
            if let Some(n) = names.first() {
                t.globals.insert(n.clone(), g);
            }
        }
        "aps.spm.load_req" => {
            if let (Some(n), Some(bank)) = (names.first(), op.operands.first()) {
                let bank = t
                    .globals
                    .get(&operand_name(bank))
                    .cloned()
                    .unwrap_or_default();
                t.req_banks.insert(n.clone(), bank);
            }
        }
        "aps.readcsr" | "aps.read_csr" => {
            if let (Some(n), Ok(g)) = (names.first(), super::ops::global_symbol(op)) {
                t.csr_reads.push((n.clone(), g));
            }
        }
        "aps.itfc.burst_load_req" | "aps.itfc.burst_store_req" => {
            let channel = dma_channel(op)?;
            if let Some(n) = names.first() {
                t.dma_channels.insert(n.clone(), channel);
            }
        }
        _ => {}
    }
    for r in &op.regions {
        for b in &r.blocks {
            for a in &b.args {
                t.widths.insert(a.name.to_string(), type_width(&a.ty));
            }
            for inner in &b.ops {
                scan_values(inner, t)?;
            }
        }
    }
    Ok(())
}

impl Builder {
    fn alloc(
        &mut self,
        parent: Option<BlockId>,
        at: Option<Position>,
        span: Span,
        name: String,
    ) -> BlockId {
        let id = self.seg.blocks.len();
        self.seg.blocks.push(BlockInfo {
            id,
            name,
            parent,
            at,
            span,
            kind: BlockKind::Basic {
                ops: Vec::new(),
                slots: Vec::new(),
                exit: None,
                pipeline: None,
            },
        });
        id
    }

    fn width(&self, v: &str) -> u32 {
        self.seg.values.widths.get(v).copied().unwrap_or(32).max(1)
    }

    fn is_virtual(&self, v: &str) -> bool {
        self.seg.values.is_virtual(v)
    }

    /// Build container `branch` of block `owner`; `defined` are the values visible from
    /// the enclosing scopes.
    fn container(
        &mut self,
        owner: BlockId,
        branch: usize,
        prefix: String,
        ops: &[Operation],
        yields: &[(String, Span)],
        defined: &BTreeSet<String>,
    ) -> Result<Container, Diagnostic> {
        let pieces = split(ops)?;
        let mut defined = defined.clone();
        let mut children = Vec::with_capacity(pieces.len());
        for (n, p) in pieces.iter().enumerate() {
            let (label, span, list): (&str, Span, Vec<&Operation>) = match p {
                Piece::Basic(ops) => ("block", ops[0].span, ops.clone()),
                Piece::Ctl(op) if op.name == "tor.for" => ("loop", op.span, vec![*op]),
                Piece::Ctl(op) => ("if", op.span, vec![*op]),
            };
            // Values defined and used inside the same piece are checked by its handler.
            let (mut inside, mut used) = (BTreeSet::new(), BTreeSet::new());
            for op in &list {
                inside.extend(result_names(op));
                collect(op, &mut inside, &mut used);
            }
            for v in used.iter().filter(|v| !inside.contains(*v)) {
                if self.is_virtual(v) || defined.contains(v) {
                    continue;
                }
                let at = list.iter().find_map(|op| use_span(op, v)).unwrap_or(span);
                return Err(Diagnostic::error(
                    at,
                    format!("value `{v}` is not defined before this use"),
                ));
            }
            let at = Position {
                owner,
                branch,
                index: n,
            };
            let id = self.alloc(Some(owner), Some(at), span, format!("{prefix}{label}_{n}"));
            let kind = match p {
                Piece::Basic(ops) => BlockKind::Basic {
                    ops: ops.iter().map(|o| (*o).clone()).collect(),
                    slots: slots(ops)?,
                    exit: None,
                    pipeline: None,
                },
                Piece::Ctl(op) if op.name == "tor.for" => self.loop_kind(id, op, &defined)?,
                Piece::Ctl(op) => self.if_kind(id, op, &defined)?,
            };
            self.seg.blocks[id].kind = kind;
            for op in &list {
                defined.extend(result_names(op));
            }
            children.push(id);
        }
        for (v, span) in yields {
            if !self.is_virtual(v) && !defined.contains(v) {
                return Err(Diagnostic::error(
                    *span,
                    format!("yielded value `{v}` is not available"),
                ));
            }
        }
        Ok(Container {
            prefix,
            children,
            yields: yields.iter().map(|(v, _)| v.clone()).collect(),
        })
    }

    fn loop_kind(
        &mut self,
        id: BlockId,
        op: &Operation,
        defined: &BTreeSet<String>,
    ) -> Result<BlockKind, Diagnostic> {
        let loop_name = format!("{}_loop", self.seg.blocks[id].name);
        let body = op
            .regions
            .first()
            .and_then(|r| r.blocks.first())
            .ok_or_else(|| Diagnostic::error(op.span, "`tor.for` without a body"))?;
        if op.operands.len() < 3 {
            return Err(Diagnostic::error(
                op.span,
                "`tor.for` needs lower bound, upper bound and step",
            ));
        }
        let iv = body.args.first().ok_or_else(|| {
            Diagnostic::error(op.span, "`tor.for` body has no induction variable")
        })?;
        let iters: Vec<String> = body
            .args
            .iter()
            .skip(1)
            .map(|a| a.name.to_string())
            .collect();
        let inits: Vec<String> = op.operands[3..].iter().map(operand_name).collect();
        if inits.len() != iters.len() {
            return Err(Diagnostic::error(
                op.span,
                format!(
                    "`tor.for` has {} iter_args but {} initial values",
                    iters.len(),
                    inits.len()
                ),
            ));
        }
        let results = result_names(op);
        let yields = yield_values(body);
        if yields.len() != iters.len() || results.len() != iters.len() {
            return Err(Diagnostic::error(
                op.span,
                "`tor.for` iter_args, yielded values and results must have the same count",
            ));
        }
        let pipeline = pipeline_attr(op)?;
        if pipeline.is_some() {
            check_pipelined(op, body)?;
        }
        let step = &op.operands[2];
        let step_const = self.seg.values.consts.get(&operand_name(step)).copied();
        if let Some((v, w)) = step_const
            && crate::rules::mask(v, w.min(type_width(&iv.ty).max(1))) == 0
        {
            return Err(Diagnostic::error(
                step.span,
                "loop step is 0: the loop would never end",
            ));
        }
        let mut inner = defined.clone();
        inner.insert(iv.name.to_string());
        inner.extend(iters.iter().cloned());
        let c = self.container(id, 0, format!("{loop_name}_"), &body.ops, &yields, &inner)?;
        if pipeline.is_some() {
            // Every slot of a pipelined body is a stage (none is folded into another).
            for &child in &c.children {
                if let BlockKind::Basic {
                    pipeline, slots, ..
                } = &mut self.seg.blocks[child].kind
                {
                    *pipeline = Some(id);
                    slots.iter_mut().for_each(|s| s.wait_only = false);
                }
            }
        }
        let info = LoopInfo {
            iv_reg: format!("{loop_name}_iv"),
            iter_regs: (0..iters.len())
                .map(|k| format!("{loop_name}_iter{k}"))
                .collect(),
            issue_reg: pipeline.map(|_| format!("{loop_name}_issue")),
            ii_reg: pipeline
                .filter(|ii| *ii > 1)
                .map(|_| format!("{loop_name}_ii")),
            step_fault: step_const
                .is_none()
                .then(|| format!("{loop_name}_step_zero")),
            may_overflow: [&op.operands[0], &op.operands[1], step]
                .iter()
                .any(|o| !self.seg.values.consts.contains_key(&operand_name(o))),
            loop_name,
            iv: iv.name.to_string(),
            width: type_width(&iv.ty).max(1),
            lb: operand_name(&op.operands[0]),
            ub: operand_name(&op.operands[1]),
            step: operand_name(step),
            inits,
            iters,
            results,
            pipeline,
            head: None,
            exit: None,
        };
        Ok(BlockKind::Loop {
            info: Box::new(info),
            body: c,
        })
    }

    fn if_kind(
        &mut self,
        id: BlockId,
        op: &Operation,
        defined: &BTreeSet<String>,
    ) -> Result<BlockKind, Diagnostic> {
        let name = self.seg.blocks[id].name.clone();
        let cond = op
            .operands
            .first()
            .map(operand_name)
            .ok_or_else(|| Diagnostic::error(op.span, "`tor.if` without a condition"))?;
        let results = result_names(op);
        if !results.is_empty() && op.regions.len() < 2 {
            return Err(Diagnostic::error(
                op.span,
                "`tor.if` with results needs an else region",
            ));
        }
        let mut branches = Vec::new();
        for (k, (r, tag)) in op.regions.iter().zip(["then", "else"]).enumerate() {
            let empty = crate::mlir::ast::Block {
                label: None,
                args: Vec::new(),
                ops: Vec::new(),
                span: r.span,
            };
            let block = r.blocks.first().unwrap_or(&empty);
            let yields = yield_values(block);
            if yields.len() != results.len() {
                return Err(Diagnostic::error(
                    r.span,
                    format!(
                        "`tor.if` {tag} region yields {} values for {} results",
                        yields.len(),
                        results.len()
                    ),
                ));
            }
            let c = self.container(
                id,
                k,
                format!("{name}_{tag}_"),
                &block.ops,
                &yields,
                defined,
            )?;
            branches.push(c);
        }
        let mut it = branches.into_iter();
        let then_c = it
            .next()
            .ok_or_else(|| Diagnostic::error(op.span, "`tor.if` without a then region"))?;
        let else_c = it.next();
        Ok(BlockKind::If {
            cond,
            then_c,
            else_c,
            res_regs: (0..results.len())
                .map(|k| format!("{name}_res{k}"))
                .collect(),
            results,
        })
    }

    fn reg(&mut self, name: &str, width: u32) {
        self.seg.instances.push(Instance {
            name: name.to_string(),
            kind: InstanceKind::Reg {
                width: width.max(1),
                init: 0,
            },
        });
    }

    /// Decide which values live in registers and declare them, with the loops' and `if`s'
    /// registers and faults.
    fn registers(&mut self) {
        // Where each value is computed and where it is used: (block, slot); `None` for the
        // place the command is taken (its arguments).
        type Site = Option<(BlockId, i64)>;
        let command_site: Site =
            self.seg
                .command_block()
                .and_then(|b| match &self.seg.blocks[b].kind {
                    BlockKind::Basic { slots, .. } => slots.first().map(|s| (b, s.time)),
                    _ => None,
                });
        let mut def: BTreeMap<String, Site> = BTreeMap::new();
        for a in &self.seg.values.args {
            def.insert(a.clone(), command_site);
        }
        let mut far: BTreeSet<String> = BTreeSet::new();
        let mut uses: Vec<(String, Site)> = Vec::new();
        let mut in_pipeline: BTreeSet<String> = BTreeSet::new();
        for b in &self.seg.blocks {
            match &b.kind {
                BlockKind::Basic { ops, pipeline, .. } => {
                    for op in ops {
                        let Ok(t) = starttime(op) else { continue };
                        let site = Some((b.id, t));
                        if super::ops::is_csr_read(op) {
                            // The command's value: defined where the command is taken.
                            for r in result_names(op) {
                                def.insert(r, command_site);
                            }
                            continue;
                        }
                        for r in result_names(op) {
                            if pipeline.is_some() {
                                in_pipeline.insert(r.clone());
                            }
                            def.insert(r, site);
                        }
                        if op.name != "aps.readrf" {
                            for o in &op.operands {
                                uses.push((operand_name(o), site));
                            }
                        }
                    }
                }
                BlockKind::Loop { info, body } => {
                    far.extend([info.lb.clone(), info.ub.clone(), info.step.clone()]);
                    far.extend(info.inits.iter().cloned());
                    far.extend(body.yields.iter().cloned());
                }
                BlockKind::If {
                    cond,
                    then_c,
                    else_c,
                    ..
                } => {
                    far.insert(cond.clone());
                    far.extend(then_c.yields.iter().cloned());
                    far.extend(else_c.iter().flat_map(|c| c.yields.iter().cloned()));
                }
                BlockKind::Function { .. } => {}
            }
        }
        for (v, site) in &uses {
            if def.get(v).is_some_and(|d| d != site) {
                far.insert(v.clone());
            }
        }
        // Registers in definition order per block: args first, then each block's values.
        let mut per_block: BTreeMap<BlockId, Vec<String>> = BTreeMap::new();
        for b in &self.seg.blocks {
            if let BlockKind::Basic { ops, .. } = &b.kind {
                let list = per_block.entry(b.id).or_default();
                for op in ops {
                    list.extend(result_names(op));
                }
            }
        }
        let pc = format!("{}pc", self.seg.prefix);
        self.seg.control.pc = pc;
        let mut regs = BTreeMap::new();
        let mut decls: Vec<(String, u32)> = Vec::new();
        for (k, a) in self.seg.values.args.iter().enumerate() {
            if far.contains(a) {
                let name = format!("{}arg{k}", self.seg.prefix);
                decls.push((name.clone(), self.width(a)));
                regs.insert(a.clone(), name);
            }
        }
        for (b, vals) in &per_block {
            let mut k = 0;
            for v in vals {
                if !far.contains(v) || self.is_virtual(v) || in_pipeline.contains(v) {
                    continue;
                }
                let name = format!("{}_reg{k}", self.seg.blocks[*b].name);
                k += 1;
                decls.push((name.clone(), self.width(v)));
                regs.insert(v.clone(), name);
            }
        }
        let mut faults = Vec::new();
        for b in &self.seg.blocks {
            match &b.kind {
                BlockKind::Loop { info, .. } => {
                    if info.pipeline.is_none() {
                        regs.insert(info.iv.clone(), info.iv_reg.clone());
                    }
                    decls.push((info.iv_reg.clone(), info.width));
                    for ((it, r), reg) in info.iters.iter().zip(&info.results).zip(&info.iter_regs)
                    {
                        regs.insert(it.clone(), reg.clone());
                        regs.insert(r.clone(), reg.clone());
                        decls.push((reg.clone(), self.width(it)));
                    }
                    if let Some(r) = &info.issue_reg {
                        decls.push((r.clone(), 1));
                    }
                    if let (Some(r), Some(ii)) = (&info.ii_reg, info.pipeline) {
                        decls.push((r.clone(), bits(ii - 1)));
                    }
                    if let Some(f) = &info.step_fault {
                        faults.push(f.clone());
                    }
                }
                BlockKind::If {
                    results, res_regs, ..
                } => {
                    for (r, reg) in results.iter().zip(res_regs) {
                        regs.insert(r.clone(), reg.clone());
                        decls.push((reg.clone(), self.width(r)));
                    }
                }
                _ => {}
            }
        }
        self.seg.values.regs = regs;
        for (name, w) in decls {
            self.reg(&name, w);
        }
        for f in faults {
            self.seg.instances.push(Instance {
                name: f,
                kind: InstanceKind::Fault {
                    message: "loop step is 0 at run time: the loop would never end".into(),
                },
            });
        }
    }

    /// The transitions, the program counter's codes and its register.
    fn control(&mut self) -> Result<(), Diagnostic> {
        let blocks = self.seg.blocks.clone();
        let mut w = Walker::new(&blocks, self.seg.span);
        let mut targets: Vec<(Target, bool)> = vec![(Target::Idle, false)];
        let mut exits: Vec<(BlockId, Tree)> = Vec::new();
        let mut loop_exits: Vec<(BlockId, Tree)> = Vec::new();
        for b in &blocks {
            match &b.kind {
                BlockKind::Basic {
                    slots,
                    pipeline: None,
                    ..
                } => {
                    let Some(last) = slots.iter().rposition(|s| !s.wait_only) else {
                        continue;
                    };
                    let trailing = slots[last + 1..].iter().any(|s| s.polls);
                    let t = w.after(b.id, trailing)?;
                    t.targets(&mut targets);
                    exits.push((b.id, t));
                    // Slot to slot inside the block.
                    let mut waited = false;
                    for s in slots.iter().skip_while(|s| s.wait_only).skip(1) {
                        if s.wait_only {
                            waited |= s.polls;
                            continue;
                        }
                        targets.push((
                            Target::Slot {
                                block: b.id,
                                time: s.time,
                            },
                            waited,
                        ));
                        waited = false;
                    }
                }
                BlockKind::Loop { info, .. } if info.pipeline.is_some() => {
                    let t = w.after(b.id, false)?;
                    t.targets(&mut targets);
                    loop_exits.push((b.id, t));
                }
                _ => {}
            }
        }
        let start = match self.seg.command_block() {
            Some(_) => None,
            None => {
                let t = w.start(0)?;
                t.targets(&mut targets);
                Some(t)
            }
        };
        // Head rules, until no new one is reached.
        let mut heads: BTreeMap<BlockId, Tree> = BTreeMap::new();
        loop {
            let new: Vec<BlockId> = targets
                .iter()
                .filter_map(|(t, _)| match t {
                    Target::Head(l) if !heads.contains_key(l) => Some(*l),
                    _ => None,
                })
                .collect();
            if new.is_empty() {
                break;
            }
            for l in new {
                let t = w.head(l, false)?;
                t.targets(&mut targets);
                heads.insert(l, t);
            }
        }
        for (id, t) in exits {
            if let BlockKind::Basic { exit, .. } = &mut self.seg.blocks[id].kind {
                *exit = Some(t);
            }
        }
        for (id, t) in loop_exits {
            if let BlockKind::Loop { info, .. } = &mut self.seg.blocks[id].kind {
                info.exit = Some(t);
            }
        }
        for (id, t) in heads {
            if let BlockKind::Loop { info, .. } = &mut self.seg.blocks[id].kind {
                info.head = Some(t);
            }
        }
        if let BlockKind::Function { start: s, .. } = &mut self.seg.blocks[0].kind {
            *s = start;
        }
        let mut set: BTreeSet<(Target, bool)> = targets.into_iter().collect();
        // A pipelined loop entered waited settles in its plain running state.
        let runs: Vec<Target> = (set.iter())
            .filter(|(t, w)| *w && matches!(t, Target::Run(_)))
            .map(|(t, _)| t.clone())
            .collect();
        set.extend(runs.into_iter().map(|t| (t, false)));
        let mut codes = vec![(Target::Idle, false, 0)];
        for (t, waited) in set {
            if t == Target::Idle && !waited {
                continue;
            }
            let c = codes.len() as u32;
            codes.push((t, waited, c));
        }
        self.seg.control.width = bits(codes.len() as u32 - 1);
        self.seg.control.codes = codes;
        let (pc, width) = (self.seg.control.pc.clone(), self.seg.control.width);
        self.seg.instances.insert(
            0,
            Instance {
                name: pc,
                kind: InstanceKind::Reg { width, init: 0 },
            },
        );
        Ok(())
    }
}

/// Bits to hold `n` (at least 1).
fn bits(n: u32) -> u32 {
    (32 - n.leading_zeros()).max(1)
}

/// A pipelined loop's body is straight-line code without iteration values.
fn check_pipelined(op: &Operation, body: &crate::mlir::ast::Block) -> Result<(), Diagnostic> {
    if let Some(init) = op.operands.get(3) {
        return Err(Diagnostic::error(
            init.span,
            "a pipelined loop cannot carry iteration values (`iter_args`): its iterations overlap; drop `pipeline` or keep the value in a global register",
        ));
    }
    if let Some(inner) = body
        .ops
        .iter()
        .find(|o| matches!(o.name.as_str(), "tor.for" | "tor.if" | "tor.while"))
    {
        return Err(Diagnostic::error(
            inner.span,
            format!(
                "`{}` inside a pipelined loop: a pipelined loop's body must be straight-line code",
                inner.name
            ),
        ));
    }
    if !body.ops.iter().any(|o| !is_structural(&o.name)) {
        return Err(Diagnostic::error(
            op.span,
            "a pipelined loop needs at least one operation in its body",
        ));
    }
    Ok(())
}

/// The slots of a straight-line block's ops, in time order.
fn slots(ops: &[&Operation]) -> Result<Vec<SlotInfo>, Diagnostic> {
    let mut by_time: BTreeMap<i64, (bool, bool)> = BTreeMap::new();
    for op in ops {
        let t = starttime(op)?;
        let e = by_time.entry(t).or_insert((true, false));
        e.0 &= is_wait(&op.name);
        e.1 |= op.name.starts_with("aps.itfc.burst_");
    }
    let out: Vec<SlotInfo> = by_time
        .into_iter()
        .map(|(time, (wait_only, polls))| SlotInfo {
            time,
            wait_only,
            polls,
        })
        .collect();
    Ok(out)
}

/// The span of the first use of value `v` in `op` (operands, then nested regions).
fn use_span(op: &Operation, v: &str) -> Option<Span> {
    if op.name != "aps.readrf"
        && let Some(o) = op.operands.iter().find(|o| operand_name(o) == v)
    {
        return Some(o.span);
    }
    op.regions
        .iter()
        .flat_map(|r| &r.blocks)
        .flat_map(|b| &b.ops)
        .find_map(|inner| use_span(inner, v))
}

fn yield_values(block: &crate::mlir::ast::Block) -> Vec<(String, Span)> {
    block
        .ops
        .iter()
        .rev()
        .find(|o| o.name == "tor.yield")
        .map(|y| {
            y.operands
                .iter()
                .map(|o| (operand_name(o), o.span))
                .collect()
        })
        .unwrap_or_default()
}

fn split(ops: &[Operation]) -> Result<Vec<Piece<'_>>, Diagnostic> {
    let mut pieces = Vec::new();
    let mut cur: Vec<&Operation> = Vec::new();
    for op in ops {
        match op.name.as_str() {
            "tor.while" => {
                return Err(Diagnostic::error(
                    op.span,
                    "`tor.while` is not supported (only `tor.for` loops with bounds)",
                ));
            }
            "scf.for" | "scf.if" | "scf.while" => {
                return Err(Diagnostic::error(
                    op.span,
                    format!(
                        "`{}` must be lowered to TOR before rule generation",
                        op.name
                    ),
                ));
            }
            "tor.for" | "tor.if" => {
                if !cur.is_empty() {
                    pieces.push(Piece::Basic(std::mem::take(&mut cur)));
                }
                pieces.push(Piece::Ctl(op));
            }
            n if is_structural(n) => {}
            _ => cur.push(op),
        }
    }
    if !cur.is_empty() {
        pieces.push(Piece::Basic(cur));
    }
    Ok(pieces)
}
