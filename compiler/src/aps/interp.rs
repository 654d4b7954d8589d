//! TOR interpreter: the untimed reference semantics of a scheduled APS function.
//!
//! Ops run sequentially in program order (schedule attributes are ignored). State: the
//! scratchpad banks (initialised from `memref.global`, `uninitialized` reads as 0), global
//! registers, byte-addressed CPU memory and the register-file response. Integer arithmetic
//! wraps at the result width; signed predicates and `shrsi` are signed. `tor.for` runs
//! `iv = lb; while (step < 0 ? iv >= ub : iv <= ub) { body; iv += step }` (inclusive upper
//! bound, zero-trip when the condition fails at entry; signed comparisons); a step of 0 is a
//! run-time error. The induction variable never wraps: the loop also ends when `iv + step`
//! is outside its type's signed range (so `0 to INT_MAX step 1` ends after 2^31 iterations
//! instead of running forever; with constant bounds such a loop is rejected before it runs,
//! see [`super::checks`]). A loop whose trip count exceeds the remaining step budget fails
//! at once, before its first iteration.
//!
//! Before running, the function gets the build's whole-function checks (value scoping, one
//! response per command, loop bounds), so the interpreter rejects what a build rejects.
//! Bursts move `roundUpPow2(elem_bytes × length)` bytes, cyclic bank layout from the memory
//! map.
//!
//! The schedule is consulted for one check: within one slot (same `starttime` in one run
//! of a straight-line block) the hardware's reads see the memory before the slot, so a
//! CPU-memory store followed by a load or store of the same word in that slot is a
//! run-time error (a hazard), reported at the second access with a note at the store.

use super::context::{DesignContext, type_width};
use super::memory::{beat_addresses, beat_elements, dma_length, strides};
use super::segment::{operand_name, result_names};
use crate::diag::{Code, Diagnostic};
use crate::mlir::ast::{Attribute, Operation};
use crate::rules::sim::{bank_index, read_bytes, read_word, write_bytes, write_word};
use crate::rules::{mask, sext};
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterpResult {
    pub responses: Vec<u32>,
    pub cpu_mem: BTreeMap<u32, u8>,
    pub banks: BTreeMap<String, Vec<u128>>,
    pub globals: BTreeMap<String, u128>,
    /// Iterations run by each `tor.for`, by the byte offset of the op in the source.
    pub(crate) loop_iterations: BTreeMap<u32, u64>,
    /// The command's CSR write-backs in program order: (lane, value).
    pub csr_sets: Vec<(String, u32)>,
}

struct Machine<'a> {
    ctx: &'a DesignContext,
    env: HashMap<String, (u128, u32)>,
    banks: BTreeMap<String, Vec<u128>>,
    globals: BTreeMap<String, u128>,
    cpu_mem: BTreeMap<u32, u8>,
    responses: Vec<u32>,
    args: Vec<String>,
    rs: [u32; 2],
    fuel: u64,
    bank_names: HashMap<String, String>,
    /// The memory map as the DMA engine's beats decode it.
    dma_entries: Vec<crate::rules::DmaEntry>,
    /// Run of a straight-line block (a new one after every control-flow op) and the
    /// current slot in it, with the CPU words stored in that slot.
    segment: u64,
    slot: Option<(u64, i128)>,
    stored: HashMap<u32, crate::diag::Span>,
    loop_iterations: BTreeMap<u32, u64>,
    /// The CSR lanes' values as the command started (what it latched), by lane name.
    csrs: BTreeMap<String, u32>,
    csr_sets: Vec<(String, u32)>,
}

/// Run function `func` once with `rs1`/`rs2`; `max_steps` bounds the executed ops. CSR
/// lanes start from their reset values.
pub fn run(
    ctx: &DesignContext,
    func: &Operation,
    rs1: u32,
    rs2: u32,
    cpu_mem: BTreeMap<u32, u8>,
    max_steps: u64,
) -> Result<InterpResult, Diagnostic> {
    let mut csrs = reset_csrs(ctx);
    run_with_csrs(ctx, func, rs1, rs2, cpu_mem, &mut csrs, max_steps)
}

/// Each CSR lane's value after reset, by lane name.
pub fn reset_csrs(ctx: &DesignContext) -> BTreeMap<String, u32> {
    (ctx.csrs.iter())
        .map(|l| (l.name.clone(), l.init & l.mask))
        .collect()
}

/// [`run`] as one command of a stream: `csrs` holds the CSR lanes' values (Rocket's CSR
/// file) as the command fires, which its `aps.readcsr`s read throughout; its
/// `aps.writecsr`s are applied to `csrs` (`value & mask`) when it ends. The scratchpad
/// banks and global registers start from their initial values.
pub fn run_with_csrs(
    ctx: &DesignContext,
    func: &Operation,
    rs1: u32,
    rs2: u32,
    cpu_mem: BTreeMap<u32, u8>,
    csrs: &mut BTreeMap<String, u32>,
    max_steps: u64,
) -> Result<InterpResult, Diagnostic> {
    let mut kept = Kept::default();
    run_kept(ctx, func, rs1, rs2, cpu_mem, csrs, &mut kept, max_steps)
}

/// What the hardware keeps from one command to the next besides CPU memory and CSRs: the
/// scratchpad banks and global registers. Empty, each starts from its `memref.global`
/// initial value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kept {
    pub banks: BTreeMap<String, Vec<u128>>,
    pub globals: BTreeMap<String, u128>,
}

/// [`run_with_csrs`] as the next command of a stream whose earlier commands left the banks
/// and global registers `kept` (updated to what this command leaves).
#[allow(clippy::too_many_arguments)]
pub fn run_kept(
    ctx: &DesignContext,
    func: &Operation,
    rs1: u32,
    rs2: u32,
    cpu_mem: BTreeMap<u32, u8>,
    csrs: &mut BTreeMap<String, u32>,
    kept: &mut Kept,
    max_steps: u64,
) -> Result<InterpResult, Diagnostic> {
    let entry = func
        .regions
        .first()
        .and_then(|r| r.blocks.first())
        .ok_or_else(|| Diagnostic::error(func.span, "`tor.func` without a body"))?;
    let name = match func.attr("sym_name") {
        Some(Attribute::String(s)) => s.to_string(),
        Some(Attribute::SymbolRef(p)) => p.join("::"),
        _ => String::new(),
    };
    super::checks::scopes(ctx, func)?;
    super::checks::loop_bounds(ctx, func)?;
    super::checks::responses(func, &name)?;
    super::checks::bursts(ctx, func)?;
    let mut m = Machine {
        ctx,
        env: HashMap::new(),
        banks: BTreeMap::new(),
        globals: BTreeMap::new(),
        cpu_mem,
        responses: Vec::new(),
        args: entry.args.iter().map(|a| a.name.to_string()).collect(),
        rs: [rs1, rs2],
        fuel: max_steps,
        bank_names: HashMap::new(),
        dma_entries: ctx.dma_entries(),
        segment: 0,
        slot: None,
        stored: HashMap::new(),
        loop_iterations: BTreeMap::new(),
        csrs: csrs.clone(),
        csr_sets: Vec::new(),
    };
    for (name, (v, w)) in &ctx.constants {
        m.env.insert(name.clone(), (*v, *w));
    }
    for g in ctx.globals.values() {
        if g.shape.is_empty() {
            let v = kept.globals.get(&g.name).copied();
            m.globals.insert(
                g.name.clone(),
                v.unwrap_or_else(|| g.init.first().copied().unwrap_or(0)),
            );
        } else if let Some(data) = kept.banks.get(&g.name) {
            m.banks.insert(g.name.clone(), data.clone());
        } else {
            let mut data = vec![0u128; g.depth() as usize];
            for (d, v) in data.iter_mut().zip(&g.init) {
                *d = *v;
            }
            m.banks.insert(g.name.clone(), data);
        }
    }
    m.exec_ops(&entry.ops)?;
    kept.banks.clone_from(&m.banks);
    kept.globals.clone_from(&m.globals);
    for (lane, v) in &m.csr_sets {
        if let Some(l) = ctx.csrs.iter().find(|l| &l.name == lane) {
            let old = csrs.get(lane).copied().unwrap_or(0);
            csrs.insert(lane.clone(), (v & l.mask) | (old & !l.mask));
        }
    }
    Ok(InterpResult {
        responses: m.responses,
        cpu_mem: m.cpu_mem,
        banks: m.banks,
        globals: m.globals,
        loop_iterations: m.loop_iterations,
        csr_sets: m.csr_sets,
    })
}

fn err(op: &Operation, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(op.span, msg.into())
}

impl Machine<'_> {
    fn get(&self, op: &Operation, i: usize) -> Result<(u128, u32), Diagnostic> {
        let o = op
            .operands
            .get(i)
            .ok_or_else(|| err(op, format!("`{}` is missing operand {i}", op.name)))?;
        self.env.get(&operand_name(o)).copied().ok_or_else(|| {
            Diagnostic::error(
                o.span,
                format!("value `{}` has no value here", operand_name(o)),
            )
        })
    }

    /// The lane of the CSR global an `aps.readcsr/writecsr` names.
    fn csr_lane(&self, op: &Operation) -> Result<String, Diagnostic> {
        let g = super::ops::global_symbol(op)?;
        super::csr::lane_of_global(&self.ctx.csrs, &g)
            .map(|(_, l)| l.name.clone())
            .ok_or_else(|| {
                err(
                    op,
                    format!("`@{g}` is not a CSR global (a `memref.global` with `csr_address`)"),
                )
            })
    }

    fn set(&mut self, op: &Operation, v: u128) {
        if let (Some(n), Some(t)) = (result_names(op).first(), op.result_types.first()) {
            let w = type_width(t).max(1);
            self.env.insert(n.clone(), (mask(v, w), w));
        }
    }

    fn global_of(&self, op: &Operation, i: usize) -> Result<String, Diagnostic> {
        let o = op
            .operands
            .get(i)
            .ok_or_else(|| err(op, "missing memref operand"))?;
        self.bank_names
            .get(&operand_name(o))
            .cloned()
            .ok_or_else(|| Diagnostic::error(o.span, "not a `memref.get_global` result"))
    }

    fn exec_ops(&mut self, ops: &[Operation]) -> Result<Vec<(u128, u32)>, Diagnostic> {
        self.segment += 1;
        for op in ops {
            if op.name == "tor.yield" {
                return (0..op.operands.len()).map(|i| self.get(op, i)).collect();
            }
            if let Some(t) = op.attr("starttime").and_then(Attribute::as_int) {
                let key = (self.segment, t);
                if self.slot != Some(key) {
                    self.slot = Some(key);
                    self.stored.clear();
                }
            }
            self.exec(op)?;
            if matches!(op.name.as_str(), "tor.for" | "tor.if") {
                self.segment += 1;
            }
        }
        Ok(Vec::new())
    }

    /// A CPU-memory access of word `addr` in the current slot; a store first records it.
    fn cpu_access(&mut self, op: &Operation, addr: u32, store: bool) -> Result<(), Diagnostic> {
        let word = addr & !3;
        if let Some(first) = self.stored.get(&word) {
            let what = if store { "stored again" } else { "loaded" };
            return Err(err(
                op,
                format!(
                    "CPU-memory hazard: word {word:#x} is stored and then {what} in the same slot (the {} would not see the store)",
                    if store { "second store" } else { "load" }
                ),
            )
            .with_code(Code::CpuMemoryHazard)
            .with_related(*first, "the store is here"));
        }
        if store {
            self.stored.insert(word, op.span);
        }
        Ok(())
    }

    fn exec(&mut self, op: &Operation) -> Result<(), Diagnostic> {
        if self.fuel == 0 {
            return Err(err(
                op,
                "no quiescence within the step limit (a loop that does not end?)",
            )
            .with_code(Code::NoQuiescence));
        }
        self.fuel -= 1;
        let name = op.name.as_str();
        match name {
            "tor.timegraph"
            | "tor.return"
            | "aps.itfc.burst_load_collect"
            | "aps.itfc.burst_store_collect"
            | "aps.itfc.store_collect" => {}
            "arith.constant" => {
                let v = super::context::const_value(op)
                    .ok_or_else(|| err(op, "unsupported constant"))?;
                self.set(op, v as u128);
            }
            "memref.get_global" => {
                let g = match op.attr("name") {
                    Some(Attribute::SymbolRef(p)) => p.last().cloned().unwrap_or_default(),
                    _ => return Err(err(op, "`memref.get_global` without a symbol")),
                };
                if let Some(n) = result_names(op).first() {
                    self.bank_names.insert(n.clone(), g);
                }
            }
            "tor.addi" | "arith.addi" => self.bin(op, |a, b, _| a.wrapping_add(b))?,
            "tor.subi" | "arith.subi" => self.bin(op, |a, b, _| a.wrapping_sub(b))?,
            "tor.muli" | "arith.muli" => self.bin(op, |a, b, _| a.wrapping_mul(b))?,
            "arith.andi" => self.bin(op, |a, b, _| a & b)?,
            "arith.ori" => self.bin(op, |a, b, _| a | b)?,
            "arith.xori" => self.bin(op, |a, b, _| a ^ b)?,
            "arith.shli" => self.bin(op, |a, b, w| if b >= w as u128 { 0 } else { a << b })?,
            "arith.shrui" => self.bin(op, |a, b, w| if b >= w as u128 { 0 } else { a >> b })?,
            "arith.shrsi" => self.bin(op, |a, b, w| {
                let s = sext(a, w);
                (if b >= w as u128 { s >> 127 } else { s >> b }) as u128
            })?,
            "tor.cmpi" | "arith.cmpi" => {
                let (a, w) = self.get(op, 0)?;
                let (b, _) = self.get(op, 1)?;
                let (sa, sb) = (sext(a, w), sext(b, w));
                let pred = match op.attr("predicate") {
                    Some(Attribute::Integer { value, .. }) => [
                        "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
                    ]
                    .get(*value as usize)
                    .copied()
                    .unwrap_or(""),
                    Some(a) => a.as_str().unwrap_or(""),
                    None => "",
                };
                let r = match pred {
                    "eq" => a == b,
                    "ne" => a != b,
                    "slt" => sa < sb,
                    "sle" => sa <= sb,
                    "sgt" => sa > sb,
                    "sge" => sa >= sb,
                    "ult" => a < b,
                    "ule" => a <= b,
                    "ugt" => a > b,
                    "uge" => a >= b,
                    _ => return Err(err(op, "unknown predicate")),
                };
                self.set(op, r as u128);
            }
            "arith.select" => {
                let (c, _) = self.get(op, 0)?;
                let (a, _) = self.get(op, 1)?;
                let (b, _) = self.get(op, 2)?;
                self.set(op, if c & 1 == 1 { a } else { b });
            }
            "arith.extui" | "arith.trunci" => {
                let (a, _) = self.get(op, 0)?;
                self.set(op, a);
            }
            "arith.extsi" => {
                let (a, w) = self.get(op, 0)?;
                self.set(op, sext(a, w) as u128);
            }
            "comb.extract" => {
                let (a, _) = self.get(op, 0)?;
                let lo = op
                    .attr("lowBit")
                    .or_else(|| op.attr("low_bit"))
                    .and_then(Attribute::as_int)
                    .unwrap_or(0);
                self.set(op, a.checked_shr(lo.clamp(0, 128) as u32).unwrap_or(0));
            }
            "aps.readrf" => {
                let o = op
                    .operands
                    .first()
                    .ok_or_else(|| err(op, "missing register"))?;
                let k = self.args.iter().position(|a| *a == o.name).unwrap_or(2);
                let v = *self
                    .rs
                    .get(k)
                    .ok_or_else(|| err(op, "readrf of a non-source register"))?;
                self.set(op, v as u128);
            }
            "aps.writerf" => {
                let (v, _) = self.get(op, 1)?;
                self.responses.push(v as u32);
            }
            "aps.memload" | "aps.spm.load_req" => {
                let g = self.global_of(op, 0)?;
                let (i, _) = self.get(op, 1)?;
                let data = self.banks.get(&g).ok_or_else(|| err(op, "not a bank"))?;
                let v = bank_index(i, data.len()).map(|k| data[k]).unwrap_or(0);
                if let (Some(n), true) = (result_names(op).first(), name == "aps.spm.load_req") {
                    self.env.insert(n.clone(), (v, 128));
                } else {
                    self.set(op, v);
                }
            }
            "aps.spm.load_collect" | "aps.itfc.load_collect" => {
                let (v, _) = self.get(op, 0)?;
                self.set(op, v);
            }
            "aps.memstore" => {
                let (v, _) = self.get(op, 0)?;
                let g = self.global_of(op, 1)?;
                let (i, _) = self.get(op, 2)?;
                let width = self.ctx.globals.get(&g).map(|x| x.width).unwrap_or(32);
                let data = self
                    .banks
                    .get_mut(&g)
                    .ok_or_else(|| err(op, "not a bank"))?;
                if let Some(k) = bank_index(i, data.len()) {
                    data[k] = mask(v, width);
                }
            }
            "aps.itfc.burst_load_req" | "aps.itfc.burst_store_req" => self.burst(op)?,
            "aps.itfc.load_req" => {
                let (a, _) = self.get(op, 1)?;
                self.cpu_access(op, a as u32, false)?;
                let v = read_word(&self.cpu_mem, a as u32);
                if let Some(n) = result_names(op).first() {
                    self.env.insert(n.clone(), (v as u128, 32));
                }
            }
            "aps.itfc.store_req" => {
                let (v, _) = self.get(op, 0)?;
                let (a, _) = self.get(op, 2)?;
                self.cpu_access(op, a as u32, true)?;
                write_word(&mut self.cpu_mem, a as u32, v as u32);
            }
            "aps.globalload" => {
                let g = super::ops::global_symbol(op)?;
                let v = *self
                    .globals
                    .get(&g)
                    .ok_or_else(|| err(op, "unknown global"))?;
                self.set(op, v);
            }
            "aps.globalstore" => {
                let g = super::ops::global_symbol(op)?;
                let (v, _) = self.get(op, 0)?;
                let width = self.ctx.globals.get(&g).map(|x| x.width).unwrap_or(32);
                self.globals.insert(g, mask(v, width));
            }
            "aps.readcsr" | "aps.read_csr" => {
                let lane = self.csr_lane(op)?;
                let v = self.csrs.get(&lane).copied().unwrap_or(0);
                self.set(op, v as u128);
            }
            "aps.writecsr" | "aps.write_csr" => {
                let lane = self.csr_lane(op)?;
                let (v, _) = self.get(op, 0)?;
                self.csr_sets.push((lane, v as u32));
            }
            "tor.for" => self.for_loop(op)?,
            "tor.if" => {
                let (c, _) = self.get(op, 0)?;
                let region = if c & 1 == 1 {
                    op.regions.first()
                } else {
                    op.regions.get(1)
                };
                let ys = match region.and_then(|r| r.blocks.first()) {
                    Some(b) => self.exec_ops(&b.ops)?,
                    None => Vec::new(),
                };
                for (n, y) in result_names(op).iter().zip(ys) {
                    self.env.insert(n.clone(), y);
                }
            }
            "tor.while" => return Err(err(op, "`tor.while` is not supported")),
            _ => return Err(err(op, format!("the interpreter does not know `{name}`"))),
        }
        Ok(())
    }

    fn bin(
        &mut self,
        op: &Operation,
        f: impl Fn(u128, u128, u32) -> u128,
    ) -> Result<(), Diagnostic> {
        let (a, w) = self.get(op, 0)?;
        let (b, _) = self.get(op, 1)?;
        self.set(op, f(a, b, w));
        Ok(())
    }

    fn for_loop(&mut self, op: &Operation) -> Result<(), Diagnostic> {
        let body = op
            .regions
            .first()
            .and_then(|r| r.blocks.first())
            .ok_or_else(|| err(op, "`tor.for` without body"))?;
        let iv = body
            .args
            .first()
            .ok_or_else(|| err(op, "`tor.for` without induction variable"))?;
        let w = type_width(&iv.ty).max(1);
        let (lb, _) = self.get(op, 0)?;
        let (ub, _) = self.get(op, 1)?;
        let (step, _) = self.get(op, 2)?;
        let (lb, ub, step) = (mask(lb, w), mask(ub, w), mask(step, w));
        let mut carried: Vec<(u128, u32)> = (3..op.operands.len())
            .map(|i| self.get(op, i))
            .collect::<Result<_, _>>()?;
        let go = |i: u128| {
            if sext(step, w) < 0 {
                sext(i, w) >= sext(ub, w)
            } else {
                sext(i, w) <= sext(ub, w)
            }
        };
        if step == 0 {
            return Err(
                err(op, "loop step is 0 at run time: the loop would never end")
                    .with_code(Code::RunTimeError),
            );
        }
        let (min, max) = super::checks::signed_range(w);
        let (slb, sub, sstep) = (sext(lb, w), sext(ub, w), sext(step, w));
        // The trip count, known at entry (the induction variable never wraps): a loop
        // longer than the remaining budget fails now rather than after the budget.
        if let Some(last) = super::checks::last_iteration(slb, sub, sstep) {
            let trips = last.abs_diff(slb) / sstep.unsigned_abs() + 1;
            // Each iteration takes a step, and one per op of the body (the yield aside).
            let per_trip = 1 + body.ops.iter().filter(|o| o.name != "tor.yield").count();
            if trips.saturating_mul(per_trip as u128) > u128::from(self.fuel) {
                return Err(err(
                    op,
                    format!(
                        "no quiescence within the step limit: the loop runs {trips} iterations, more than the {} steps left",
                        self.fuel
                    ),
                )
                .with_code(Code::NoQuiescence));
            }
        }
        let mut i = lb;
        while go(i) {
            if self.fuel == 0 {
                return Err(err(
                    op,
                    "no quiescence within the step limit (a loop that does not end?)",
                )
                .with_code(Code::NoQuiescence));
            }
            self.fuel -= 1;
            *self.loop_iterations.entry(op.span.start).or_default() += 1;
            self.env.insert(iv.name.to_string(), (i, w));
            for (a, v) in body.args.iter().skip(1).zip(&carried) {
                self.env.insert(a.name.to_string(), *v);
            }
            let ys = self.exec_ops(&body.ops)?;
            if !ys.is_empty() {
                carried = ys;
            }
            // The next value, unless it overflows the induction variable's type.
            match sext(i, w).checked_add(sstep) {
                Some(next) if (min..=max).contains(&next) => i = mask(next as u128, w),
                _ => break,
            }
        }
        for (n, v) in result_names(op).iter().zip(carried) {
            self.env.insert(n.clone(), v);
        }
        Ok(())
    }

    /// A burst as the SoC's DMA engine performs it: `2^length` bytes in 8-byte beats at
    /// the tiled scratchpad addresses, each beat decoded with the whole memory map (a
    /// rounded-up length moves the elements after the named ones too; bytes outside every
    /// entry read 0 and ignore writes).
    fn burst(&mut self, op: &Operation) -> Result<(), Diagnostic> {
        let n = op.operands.len();
        if n < 4 {
            return Err(err(op, "malformed burst"));
        }
        let load = op.name == "aps.itfc.burst_load_req";
        let (banks, start, cpu, len) = if load {
            (1..n - 2, n - 2, 0, n - 1)
        } else {
            (0..n - 3, n - 3, n - 2, n - 1)
        };
        let bank_names: Vec<String> = banks
            .map(|i| self.global_of(op, i))
            .collect::<Result<_, _>>()?;
        let entry = bank_names
            .first()
            .and_then(|b| self.ctx.entry_of_bank(b))
            .cloned()
            .ok_or_else(|| err(op, "burst banks are not in the memory map"))?;
        let eb = self.ctx.elem_bytes(&entry);
        let (length, _) = self.get(op, len)?;
        let (start, _) = self.get(op, start)?;
        let (cpu, _) = self.get(op, cpu)?;
        let log = dma_length(eb, length as u64).ok_or_else(|| err(op, "bad burst length"))?;
        let (sx, sy) = strides(op)?;
        let isax = entry.base.wrapping_add((start as u32).wrapping_mul(eb));
        let entries = &self.dma_entries;
        for (k, a) in beat_addresses(isax, log, sx, sy).into_iter().enumerate() {
            let cpu = (cpu as u32).wrapping_add(8 * k as u32);
            let mut beat = 0u128;
            for el in beat_elements(entries, a) {
                let e = &entries[el.entry];
                let Some(bank) = e.banks.get(el.bank as usize) else {
                    continue;
                };
                let width = self.ctx.globals.get(bank).map(|g| g.width).unwrap_or(32);
                let Some(data) = self.banks.get_mut(bank) else {
                    continue;
                };
                let Some(idx) = bank_index(el.offset as u128, data.len()) else {
                    continue;
                };
                if load {
                    let v = read_bytes(&self.cpu_mem, cpu.wrapping_add(el.byte), el.bytes);
                    data[idx] = mask(v, width);
                } else {
                    beat |= mask(data[idx], 8 * el.bytes) << (8 * el.byte);
                }
            }
            if !load {
                write_bytes(&mut self.cpu_mem, cpu, 8, beat);
            }
        }
        Ok(())
    }
}
