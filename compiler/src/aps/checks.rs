//! Whole-function checks of an APS function, made before it is segmented (and before the
//! TOR interpreter runs it, so that every engine rejects what the build rejects):
//!
//! - [`slot_limit`]: the function's slots and control ops against [`Limit::Slots`], before
//!   anything is sized by them;
//! - [`scopes`]: MLIR's scoping of SSA value names. A name visible in an enclosing region
//!   (the design's constants, the function's arguments, values of enclosing blocks) cannot
//!   be defined again: a value of a loop body named like one outside it would otherwise
//!   replace the outer one after the loop. MLIR lets sibling regions reuse a name; kiln
//!   keeps a function's values by their names (registers, widths, constants), so a name
//!   defined in two sibling regions is an error of its own (MLIR's printers never write
//!   one: they number a function's values once).
//! - [`responses`]: RoCC's one response per command. Counted over the paths through the
//!   function as written (conditions are not evaluated): two `aps.writerf` on one path, one
//!   in a loop body, or one on some paths only are errors; none at all is an instruction
//!   without a destination register (RoCC `xd = 0`), as APS-MLIR lowers a function without
//!   `aps.writerf` to one returning nothing: a warning, since a core that issues it with a
//!   destination waits for a response that never comes.
//! - [`bursts`]: DMA requests the SoC's engine can perform (channel, tiling, alignment of a
//!   constant start), and a warning where the rounded-up length moves more bytes than the
//!   elements named (`docs/soc.md`, A7 and A26).
//! - [`loop_bounds`]: a `tor.for` whose bounds and step are constants and whose last
//!   iteration is followed by an induction value outside its type (the inclusive bound is
//!   the type's maximum, or the step jumps past it): such a loop ends only by the overflow
//!   rule of [`super::interp`] (the induction variable never wraps), after up to 2^w
//!   iterations, which is never what was meant.

use super::context::{DesignContext, type_width};
use super::segment::{is_structural, operand_name, starttime};
use crate::diag::{Code, Diagnostic, Span};
use crate::fxhash::FxHashMap;
use crate::limits::{Limit, Limits};
use crate::mlir::ast::{Operation, Region};
use crate::rules::{mask, sext};
use std::collections::BTreeSet;

/// The regions' ops of `op`, region by region.
fn region_ops(op: &Operation) -> impl Iterator<Item = &[Operation]> {
    (op.regions.iter())
        .flat_map(|r| &r.blocks)
        .map(|b| b.ops.as_slice())
}

/// The function's slots (distinct `starttime`s of each run of straight-line ops) plus its
/// loops and conditionals must not exceed `limits.max_slots`: each is at least one rule,
/// registers and control states. The error is at the op that passes the limit.
pub(crate) fn slot_limit(func: &Operation, name: &str, limits: &Limits) -> Result<(), Diagnostic> {
    let mut c = SlotCount {
        n: 0,
        max: u64::from(limits.max_slots),
        over: None,
    };
    for ops in region_ops(func) {
        c.container(ops);
    }
    if c.n <= c.max {
        return Ok(());
    }
    Err(Diagnostic::error(
        c.over.unwrap_or(func.span),
        format!(
            "function `@{name}` has {} slots, loops and conditionals: {}",
            c.n,
            Limit::Slots.exceeded(c.n, c.max)
        ),
    )
    .with_code(Code::LimitExceeded))
}

struct SlotCount {
    n: u64,
    max: u64,
    /// The op that made the count pass `max`.
    over: Option<Span>,
}

impl SlotCount {
    fn add(&mut self, at: Span) {
        self.n += 1;
        if self.n == self.max + 1 {
            self.over = Some(at);
        }
    }

    fn container(&mut self, ops: &[Operation]) {
        let mut times: BTreeSet<i64> = BTreeSet::new();
        for op in ops {
            match op.name.as_str() {
                "tor.for" | "tor.if" => {
                    times.clear();
                    self.add(op.span);
                    for inner in region_ops(op) {
                        self.container(inner);
                    }
                }
                n if is_structural(n) => {}
                _ => {
                    if let Ok(t) = starttime(op)
                        && times.insert(t)
                    {
                        self.add(op.span);
                    }
                }
            }
        }
    }
}

/// MLIR's scoping of value names (see the module documentation): `redefinition of SSA value
/// '%x'` at the second definition, with a note at the first.
pub(crate) fn scopes(ctx: &DesignContext, func: &Operation) -> Result<(), Diagnostic> {
    let mut s = Scopes::default();
    for name in ctx.constants.keys() {
        s.names.insert(name.as_str(), None);
    }
    s.op_regions(func)
}

/// The names visible at a point: each with its definition (`None`: a design constant), and
/// the names each open region defined (removed when it closes); every name the function
/// defined so far.
#[derive(Default)]
struct Scopes<'a> {
    names: FxHashMap<&'a str, Option<Span>>,
    open: Vec<Vec<&'a str>>,
    all: FxHashMap<&'a str, Span>,
}

impl<'a> Scopes<'a> {
    fn define(&mut self, name: &'a str, at: Span) -> Result<(), Diagnostic> {
        if let Some(first) = self.names.get(name) {
            let d = Diagnostic::error(at, format!("redefinition of SSA value '{name}'"))
                .with_code(Code::Redefinition);
            return Err(match first {
                Some(first) => d.with_related(*first, "previously defined here"),
                None => d.with_note(format!(
                    "'{name}' is a constant of the design (`tor.design`), visible in every function"
                )),
            });
        }
        if let Some(first) = self.all.insert(name, at) {
            return Err(Diagnostic::error(
                at,
                format!(
                    "SSA value '{name}' is defined elsewhere in this function too (out of scope here, which MLIR allows): kiln names a function's values by their SSA names, so each is defined once per function; rename one"
                ),
            )
            .with_code(Code::Redefinition)
            .with_related(first, "the other definition"));
        }
        self.names.insert(name, Some(at));
        if let Some(frame) = self.open.last_mut() {
            frame.push(name);
        }
        Ok(())
    }

    /// An op's regions (each a scope of its own), then its results: in MLIR an op's
    /// results are defined once the op is complete, so its regions do not see them.
    fn op(&mut self, op: &'a Operation) -> Result<(), Diagnostic> {
        self.op_regions(op)?;
        for r in &op.results {
            self.define(&r.name, r.span)?;
        }
        Ok(())
    }

    fn op_regions(&mut self, op: &'a Operation) -> Result<(), Diagnostic> {
        for r in &op.regions {
            self.region(r)?;
        }
        Ok(())
    }

    fn region(&mut self, r: &'a Region) -> Result<(), Diagnostic> {
        self.open.push(Vec::new());
        let mut result = Ok(());
        'blocks: for b in &r.blocks {
            for a in &b.args {
                result = self.define(&a.name, a.span);
                if result.is_err() {
                    break 'blocks;
                }
            }
            for op in &b.ops {
                result = self.op(op);
                if result.is_err() {
                    break 'blocks;
                }
            }
        }
        for name in self.open.pop().unwrap_or_default() {
            self.names.remove(name);
        }
        result
    }
}

/// What the code of a container does about the command's response, over its paths.
#[derive(Clone, Copy, Default)]
struct Resp {
    /// An `aps.writerf` on some path.
    some: Option<Span>,
    /// Every path has one.
    all: bool,
    /// Where a path goes without one (when `some` is set and `all` is not).
    gap: Option<Span>,
}

/// RoCC's one response per command (see the module documentation): `Ok(Some(warning))`
/// when the function sends none.
pub(crate) fn responses(func: &Operation, name: &str) -> Result<Option<Diagnostic>, Diagnostic> {
    let mut r = Resp::default();
    for ops in region_ops(func) {
        r = seq(name, r, container(name, ops)?)?;
    }
    match r {
        Resp { some: None, .. } => Ok(Some(
            Diagnostic::warning(
                func.span,
                format!(
                    "function `@{name}` sends no response (no `aps.writerf`): issue its instruction without a destination register (RoCC xd = 0); a core that waits for rd would wait forever"
                ),
            )
            .with_code(Code::NoResponse),
        )),
        Resp {
            some: Some(at),
            all: false,
            gap,
        } => Err(Diagnostic::error(
            gap.unwrap_or(func.span),
            format!(
                "a path through `@{name}` sends no response: its command would get none (`aps.writerf` is on other paths only)"
            ),
        )
        .with_code(Code::ResponseCount)
        .with_related(at, "the response other paths send")),
        _ => Ok(None),
    }
}

fn container(name: &str, ops: &[Operation]) -> Result<Resp, Diagnostic> {
    let mut acc = Resp::default();
    for op in ops {
        let r = match op.name.as_str() {
            "aps.writerf" => Resp {
                some: Some(op.span),
                all: true,
                gap: None,
            },
            "tor.if" => {
                let branch = |k: usize| -> Result<(Resp, Span), Diagnostic> {
                    let Some(r) = op.regions.get(k) else {
                        return Ok((Resp::default(), op.span));
                    };
                    let mut acc = Resp::default();
                    for b in &r.blocks {
                        acc = seq(name, acc, container(name, &b.ops)?)?;
                    }
                    Ok((acc, r.span))
                };
                let ((t, then_span), (e, else_span)) = (branch(0)?, branch(1)?);
                let gap = |r: Resp, at: Span| (!r.all).then(|| r.gap.unwrap_or(at));
                let all = t.all && e.all;
                Resp {
                    some: t.some.or(e.some),
                    all,
                    gap: if all {
                        None
                    } else {
                        gap(t, then_span).or(gap(e, else_span))
                    },
                }
            }
            _ if !op.regions.is_empty() => {
                // A loop body (or any other region) may run any number of times.
                for ops in region_ops(op) {
                    if let Some(at) = container(name, ops)?.some {
                        return Err(Diagnostic::error(
                            at,
                            format!(
                                "`aps.writerf` inside `{}`: it would answer `@{name}`'s command once per run of the region, not once",
                                op.name
                            ),
                        )
                        .with_code(Code::ResponseCount)
                        .with_related(op.span, "the region is here"));
                    }
                }
                Resp::default()
            }
            _ => Resp::default(),
        };
        acc = seq(name, acc, r)?;
    }
    Ok(acc)
}

/// `a` then `b`: a path through both with a response in each is an error.
fn seq(name: &str, a: Resp, b: Resp) -> Result<Resp, Diagnostic> {
    if let (Some(first), Some(second)) = (a.some, b.some) {
        return Err(Diagnostic::error(
            second,
            format!(
                "a second `aps.writerf` on a path through `@{name}`: its command would get two responses (RoCC answers a command once)"
            ),
        )
        .with_code(Code::ResponseCount)
        .with_related(first, "the first response on this path"));
    }
    let all = a.all || b.all;
    Ok(Resp {
        some: a.some.or(b.some),
        all,
        gap: if all { None } else { a.gap.or(b.gap) },
    })
}

/// Loops with constant bounds and step that end only when the induction variable would
/// overflow (see the module documentation).
pub(crate) fn loop_bounds(ctx: &DesignContext, func: &Operation) -> Result<(), Diagnostic> {
    let mut consts: FxHashMap<String, (u128, u32)> = FxHashMap::default();
    consts.extend(ctx.constants.iter().map(|(k, v)| (k.clone(), *v)));
    walk_loops(func, &mut consts)
}

fn walk_loops(
    op: &Operation,
    consts: &mut FxHashMap<String, (u128, u32)>,
) -> Result<(), Diagnostic> {
    for ops in region_ops(op) {
        for inner in ops {
            if inner.name == "arith.constant"
                && let (Some(r), Some(ty), Some(v)) = (
                    inner.results.first(),
                    inner.result_types.first(),
                    super::context::const_value(inner),
                )
            {
                let w = type_width(ty).max(1);
                consts.insert(r.name.to_string(), (mask(v as u128, w), w));
            }
            if inner.name == "tor.for" {
                check_loop(inner, consts)?;
            }
            walk_loops(inner, consts)?;
        }
    }
    Ok(())
}

fn check_loop(op: &Operation, consts: &FxHashMap<String, (u128, u32)>) -> Result<(), Diagnostic> {
    let Some(iv) = op
        .regions
        .first()
        .and_then(|r| r.blocks.first())
        .and_then(|b| b.args.first())
    else {
        return Ok(());
    };
    let w = type_width(&iv.ty).max(1);
    let value = |k: usize| {
        let o = op.operands.get(k)?;
        consts
            .get(&operand_name(o))
            .map(|(v, _)| sext(mask(*v, w), w))
    };
    let (Some(lb), Some(ub), Some(step)) = (value(0), value(1), value(2)) else {
        return Ok(());
    };
    let Some(last) = last_iteration(lb, ub, step) else {
        return Ok(());
    };
    let (min, max) = signed_range(w);
    let next = last.checked_add(step);
    if next.is_some_and(|n| (min..=max).contains(&n)) {
        return Ok(());
    }
    let iterations = last.abs_diff(lb) / step.unsigned_abs() + 1;
    Err(Diagnostic::error(
        op.span,
        format!(
            "this loop reaches its bound only by overflowing `{}` (i{w}): from {lb} by {step} to {ub} inclusive, the value after {last} is outside i{w}; it would run {iterations} iterations and stop at the overflow",
            iv.name
        ),
    )
    .with_code(Code::LoopOverflow)
    .with_note(
        "the induction variable of `tor.for` never wraps: a loop ends when its next value would overflow; give the loop a bound it reaches"
    ))
}

/// The last induction value of a loop `lb..=ub` by `step` (signed; `None`: no iteration
/// or a step of 0, which segmentation reports).
pub(crate) fn last_iteration(lb: i128, ub: i128, step: i128) -> Option<i128> {
    let forward = (step > 0 && lb <= ub) || (step < 0 && lb >= ub);
    if !forward {
        return None;
    }
    // Both differences have the step's sign, so the quotient is the whole steps taken.
    lb.checked_add(ub.checked_sub(lb)?.checked_div(step)?.checked_mul(step)?)
}

/// The range of a `w`-bit signed integer (`w` ≤ 128).
pub(crate) fn signed_range(w: u32) -> (i128, i128) {
    let w = w.clamp(1, 128);
    let max = if w == 128 {
        i128::MAX
    } else {
        (1i128 << (w - 1)) - 1
    };
    (-max - 1, max)
}

/// The DMA requests of `func` (see the module documentation): errors for what the engine
/// cannot perform, warnings for rounded-up lengths.
pub(crate) fn bursts(ctx: &DesignContext, func: &Operation) -> Result<Vec<Diagnostic>, Diagnostic> {
    let mut consts: FxHashMap<String, u128> = ctx
        .constants
        .iter()
        .map(|(k, v)| (k.clone(), v.0))
        .collect();
    let mut globals: FxHashMap<String, String> = FxHashMap::default();
    let mut warnings = Vec::new();
    walk_bursts(ctx, func, &mut consts, &mut globals, &mut warnings)?;
    Ok(warnings)
}

fn walk_bursts(
    ctx: &DesignContext,
    op: &Operation,
    consts: &mut FxHashMap<String, u128>,
    globals: &mut FxHashMap<String, String>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), Diagnostic> {
    for ops in region_ops(op) {
        for o in ops {
            let first = o.results.first().map(|r| r.name.to_string());
            match o.name.as_str() {
                "arith.constant" => {
                    if let (Some(n), Some(v)) = (first, super::context::const_value(o)) {
                        consts.insert(n, v as u128);
                    }
                }
                "memref.get_global" => {
                    let g = match o.attr("name") {
                        Some(crate::mlir::ast::Attribute::SymbolRef(p)) => p.last().cloned(),
                        _ => None,
                    };
                    if let (Some(n), Some(g)) = (first, g) {
                        globals.insert(n, g);
                    }
                }
                "aps.itfc.burst_load_req" | "aps.itfc.burst_store_req" => {
                    warnings.extend(burst(ctx, o, consts, globals)?);
                }
                _ => {}
            }
            walk_bursts(ctx, o, consts, globals, warnings)?;
        }
    }
    Ok(())
}

fn burst(
    ctx: &DesignContext,
    op: &Operation,
    consts: &FxHashMap<String, u128>,
    globals: &FxHashMap<String, String>,
) -> Result<Option<Diagnostic>, Diagnostic> {
    let shape = |e: Diagnostic| e.with_code(Code::BurstShape);
    super::segment::dma_channel(op).map_err(shape)?;
    super::memory::strides(op).map_err(shape)?;
    let n = op.operands.len();
    if n < 4 {
        return Ok(None);
    }
    let load = op.name == "aps.itfc.burst_load_req";
    let (bank, start, len) = if load {
        (1, n - 2, n - 1)
    } else {
        (0, n - 3, n - 1)
    };
    let konst = |i: usize| {
        op.operands
            .get(i)
            .and_then(|o| consts.get(&operand_name(o)))
    };
    let entry = (op.operands.get(bank))
        .and_then(|o| globals.get(&operand_name(o)))
        .and_then(|g| ctx.entry_of_bank(g));
    let (Some(entry), Some(&count)) = (entry, konst(len)) else {
        return Ok(None);
    };
    let eb = ctx.elem_bytes(entry);
    if let Some(&s) = konst(start) {
        let addr = entry.base as u128 + s * eb as u128;
        if !addr.is_multiple_of(8) {
            return Err(Diagnostic::error(
                op.operands[start].span,
                format!(
                    "the burst starts at scratchpad byte {addr} (entry `{}` at {} + element {s} of {eb} bytes): the DMA engine moves 8-byte aligned beats",
                    entry.name, entry.base
                ),
            )
            .with_code(Code::BurstShape));
        }
    }
    let Some(length) = super::memory::dma_length(eb, count as u64) else {
        return Ok(None);
    };
    let (named, moved) = (eb as u64 * count as u64, 1u64 << length);
    Ok((moved > named).then(|| {
        let what = match load {
            true => "the scratchpad elements after them (the next memory-map entry's too) are overwritten",
            false => "CPU memory after the buffer is written",
        };
        Diagnostic::warning(
            op.span,
            format!(
                "this burst names {count} elements of {eb} bytes ({named} bytes) but moves {moved} (the DMA length is a power of two, at least 8 bytes): {what}"
            ),
        )
        .with_code(Code::BurstRounded)
    }))
}
