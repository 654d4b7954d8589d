//! Cycle-level simulator of a rule [`Circuit`]: guarded atomic actions, at most one firing
//! per rule per cycle, rules tried in the circuit's schedule order.
//!
//! A rule fires when its guard holds and every method its body calls (on the path taken)
//! is ready; its effects then become part of the cycle. FIFO semantics follow the STL
//! `FIFO1_PUSH`/`FIFO2_I` modules: `deq` needs a committed element, `enq` needs room after
//! this cycle's dequeues, and enqueued data becomes visible at the next cycle. Registers and
//! bank writes commit at the clock edge (reads see old values).
//!
//! The interfaces are modelled as the RTL of [`super::sv`] implements them, so that both
//! agree cycle for cycle:
//! - RoCC: one command port and one response port. Commands are presented in order; the
//!   port takes one when the top's one-entry command register is empty or a rule takes the
//!   register's command in the same cycle (so the port's ready never depends on its
//!   enable), and the rules see it from the next cycle. The value `cmd` shows the
//!   register's command (rules test its `(opcode, funct7)` in their guards) and `cmd_deq`
//!   takes it. At most one response is sent per cycle. Arbitration is the rule order: the
//!   first rule in the schedule whose guard holds takes the command, the first rule calling
//!   `resp_from_user` sends its response; later rules calling the same methods in that
//!   cycle are not ready (they do not fire and retry the next cycle). A command's accept
//!   cycle is the port's.
//! - DMA (the SoC's engine, outside the top: the reference environment of `docs/soc.md`):
//!   a request fired in cycle `c` is queued on its channel at the edge (ready while the
//!   channel holds fewer than 16); one burst engine takes the oldest queued request when
//!   idle and, after `dma_latency` idle cycles, drives one 8-byte beat per cycle at the
//!   tiled scratchpad addresses ([`crate::aps::memory::beat_addresses`]): a
//!   `cpu_to_isax` beat is a `burst_write` (the elements it covers written at the edge,
//!   after the rules' writes to the same word), an `isax_to_cpu` beat a `burst_read_0`
//!   (the committed state latched) then a `burst_read_1` (the latched 8 bytes written to
//!   CPU memory). `poll_for_idle_chN` is the state at the start of the cycle: nothing of
//!   channel `N` queued or moving. A 64-byte load fired in `c` moves in `c+1..c+8`, its
//!   channel polls idle from `c+9`.
//! - CPU memory (HellaCache convention, `docs/soc.md`): rules put up to `L` requests per
//!   cycle into the top's request queue ([`super::schedule::mem_lanes`],
//!   [`super::schedule::mem_req_depth`] entries; room counts the dequeue of an entry
//!   queued before this cycle). The port sends the queue's head, or with an empty queue
//!   the first request of this cycle (bypassing the queue), one per cycle (the reference
//!   environment is always ready). A
//!   load gets a tag, its entry in the response buffer, and is accepted only while the
//!   buffer has room for every load in flight ([`super::schedule::mem_resp_entries`]).
//!   A rule is ready on the port for all its sites at once, counted before it fires
//!   ([`super::schedule::MemSites`]): lanes, queue room and buffer room for every request
//!   site after earlier rules' requests, and the responses it may take arrived, whichever
//!   of its branches it takes.
//!   The environment answers the request fired in cycle `c` in cycle `c + 1` (a load
//!   with memory as `c` starts; a store writes at the end of `c`, after the rules' bank
//!   writes and before the DMA's CPU writes, and its acknowledgement is dropped). Rules
//!   consume responses in request order, from the buffer or from the port in the cycle
//!   a response arrives.
//!
//! The run ends when nothing can fire and no transfer is in flight: with every FIFO empty
//! and every command consumed it is a success, otherwise a deadlock naming the rules that
//! hold pending work ([`deadlock`]).
//!
//! A rule that stores a CPU-memory word and then loads or stores the same word (4-byte
//! aligned) is a hazard when it fires: within one slot, reads see the memory before the
//! slot, so the load would not see the store. The run stops with [`SimError::Hazard`].

use super::dispatch::Dispatch;
use super::trace::{Event, Traced};
use super::waves::Waves;

mod env;
mod record;
mod types;

pub use types::*;

use super::schedule::MemSites;
use super::{Circuit, DmaEntry, Expr, InstanceKind, Stmt, eval_prim, mask};
use crate::fxhash::FxHashMap;
use record::Probe;
use std::collections::{BTreeMap, HashMap, VecDeque};

struct Fifo {
    items: VecDeque<u128>,
    pending: Vec<u128>,
    depth: usize,
}

struct Reg {
    value: u128,
    pending: Option<u128>,
    width: u32,
}

struct Bank {
    data: Vec<u128>,
    width: u32,
    pending: Vec<(usize, u128)>,
    latch: u128,
    latch_pending: Option<u128>,
}

/// A DMA request as the top made it.
#[derive(Clone, Debug)]
pub(super) struct Request {
    pub(super) to_isax: bool,
    pub(super) channel: u8,
    pub(super) cpu_addr: u32,
    pub(super) isax_addr: u32,
    /// `2^length` bytes.
    pub(super) length: u32,
    pub(super) stride_x: u8,
    pub(super) stride_y: u8,
}

/// The request the burst engine runs.
struct Active {
    req: Request,
    /// The scratchpad address of each beat.
    addrs: Vec<u32>,
    beat: usize,
    /// Idle cycles left before the first beat.
    wait: u32,
    /// `isax_to_cpu`: the beat's `burst_read_0` fired; `burst_read_1` is next.
    read: bool,
}

/// Requests a DMA engine's channel queue holds before its `ready` drops (APS's fake DMA).
const DMA_QUEUE: usize = 16;

/// The SoC's DMA engine (the reference environment of `docs/soc.md`): a queue per
/// channel, one burst engine for all of them taking the oldest request, and the top's
/// scratchpad burst ports it drives (decoded with `entries`).
struct Dma {
    latency: u32,
    entries: Vec<DmaEntry>,
    /// Per channel: `(sequence number, request)`, oldest first.
    queues: Vec<VecDeque<(u64, Request)>>,
    seq: u64,
    active: Option<Active>,
    /// The beat the last `burst_read_0` read (`burst_read_1`'s result).
    latch: u128,
    /// The requests fired this cycle (one per method, i.e. per direction and channel: a
    /// port of the top); queued at the clock edge.
    fired: Vec<Request>,
}

/// One CPU-memory request as the rules issue it (a word at `addr & ~3`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MemReq {
    pub(crate) load: bool,
    pub(crate) addr: u32,
    /// Store data (0 for a load).
    pub(crate) data: u32,
    /// A load's tag: its entry in the response buffer (0 for a store).
    pub(crate) tag: u32,
}

/// The [`MemSites`] of a rule on port slot `idx` (none when it has no site there).
fn mem_sites_of(sites: &[(usize, MemSites)], idx: usize) -> MemSites {
    (sites.iter())
        .find(|(i, _)| *i == idx)
        .map_or_else(MemSites::default, |(_, n)| *n)
}

/// A CPU-memory port as the top implements it (HellaCache convention): a request queue
/// the rules fill (at most `lanes` per cycle) whose head goes out on the port, one per
/// cycle; a response buffer of `size` entries indexed by tag; and the reference
/// environment's answer to the request of the previous cycle.
struct MemPort {
    lanes: u32,
    depth: u32,
    size: u32,
    /// The request queue (entries enqueued this cycle are in `enq` until the edge).
    queue: VecDeque<MemReq>,
    enq: Vec<MemReq>,
    /// Arrived load responses by tag, not yet consumed.
    buf: Vec<Option<u32>>,
    /// The tag of the oldest load not consumed, the next tag to allocate, and the loads
    /// allocated and not consumed at the start of the cycle.
    head: u32,
    alloc: u32,
    used: u32,
    /// Loads issued and responses consumed so far this cycle.
    loads: u32,
    taken: u32,
    /// The response presented in this cycle (`hella_resp`): tag, is a load, data.
    arriving: Option<(u32, bool, u32)>,
}

enum Slot {
    Fifo(Fifo),
    Reg(Reg),
    Bank(Bank),
    Rocc,
    Dma(Dma),
    MemPort(MemPort),
    Csr(Csr),
    Fault(String),
}

/// A CSR lane: Rocket's CSR file's value, the copy latched when the command register took
/// its command, and a write-back this cycle.
struct Csr {
    mask: u32,
    value: u32,
    latched: u32,
    pending: Option<u32>,
}

struct State {
    slots: Vec<Slot>,
    /// The slots with effects to commit at the clock edge (FIFO enqueues, register, bank
    /// and latch writes), each at least once: the edge visits these, not every instance.
    touched: Vec<usize>,
    /// The DMA engines and CPU-memory ports (what the edge updates every cycle).
    io: Vec<usize>,
    names: Vec<String>,
    index: FxHashMap<String, usize>,
    /// Commands the CPU has yet to present (the head is presented).
    cmds: VecDeque<Command>,
    /// The top's command register: the command the port took, until a rule takes it.
    cmd_reg: Option<Command>,
    /// Each instruction's function and the slot of its program-counter register.
    circuit_pcs: Vec<(String, usize)>,
    responses: Vec<Response>,
    accepted: Vec<u64>,
    cpu_mem: BTreeMap<u32, u8>,
    cycle: u64,
    /// A rule took the command register's command / a response was sent in this cycle
    /// (one each).
    cmd_taken: bool,
    resp_sent: bool,
    /// The CSR lanes' slots, in lane order, and the CPU's writes yet to happen.
    csrs: Vec<usize>,
    csr_writes: Vec<CsrWrite>,
    csr_sets: Vec<CsrSet>,
}

/// Effects of one tentative firing.
#[derive(Default)]
struct Tx {
    deqs: Vec<usize>,
    enqs: Vec<(usize, u128)>,
    reg_writes: Vec<(usize, u128)>,
    bank_writes: Vec<(usize, usize, u128)>,
    latch_writes: Vec<(usize, u128)>,
    /// DMA requests: (slot, request).
    dma_requests: Vec<(usize, Request)>,
    cmd_taken: bool,
    responses: Vec<(u32, u32)>,
    /// CPU-memory requests in issue order; the port of each consumed load response.
    mem_reqs: Vec<(usize, MemReq)>,
    mem_resp_taken: Vec<usize>,
    /// The first access of a stored CPU word in this firing: (word address, is a load).
    hazard: Option<(u32, bool)>,
    /// The message of a raised fault.
    fault: Option<String>,
    /// CSR write-backs: (slot, value).
    csr_sets: Vec<(usize, u32)>,
}

/// One element a DMA beat moves (or the beat a `burst_read_0` latches), applied at the
/// clock edge.
enum BeatWrite {
    Latch {
        slot: usize,
        value: u128,
    },
    Bank {
        slot: usize,
        index: usize,
        value: u128,
    },
    Cpu {
        addr: u32,
        bytes: u32,
        value: u128,
    },
}

/// A call (or a guard) that could not happen this cycle: the rule does not fire.
struct Blocked;

/// A rule's variables while it is tried (kept across tries: a fresh table per try would
/// allocate and grow once per rule and cycle).
type Vars = FxHashMap<u32, (u128, u32)>;

/// At most this many arguments are read by any method or primitive (see
/// [`super::signature`], [`eval_prim`]); more are ignored, as before.
const MAX_ARGS: usize = 5;

/// What happened in each cycle of a run (cycle 0 first), for quality-of-results reports
/// (`kiln-bench qor`, [`crate::aps::qor`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Per cycle: the rules that fired, as indices into the circuit's `rules`.
    pub fired: Vec<Vec<u32>>,
    /// Per cycle: a DMA transfer was in flight (some engine not idle).
    pub(crate) dma_busy: Vec<bool>,
    /// Every firing and its effects, when recorded ([`simulate_recorded`]).
    pub events: Vec<Traced>,
    /// The signals of [`super::waves`], cycle by cycle, when recorded.
    pub waves: Waves,
    detail: bool,
}

pub fn simulate(
    circuit: &Circuit,
    cmds: &[Command],
    cpu_mem: BTreeMap<u32, u8>,
    cfg: &SimConfig,
) -> Result<SimResult, SimError> {
    run(circuit, cmds, cpu_mem, cfg, None)
}

/// [`simulate`], recording every firing and its effects in `trace.events` (`kiln sim
/// --trace`); what happened before an error is recorded too.
pub fn simulate_recorded(
    circuit: &Circuit,
    cmds: &[Command],
    cpu_mem: BTreeMap<u32, u8>,
    cfg: &SimConfig,
    trace: &mut Trace,
) -> Result<SimResult, SimError> {
    trace.detail = true;
    run(circuit, cmds, cpu_mem, cfg, Some(trace))
}

/// [`simulate`], also recording the rules fired and the DMA's state in every cycle.
pub fn simulate_traced(
    circuit: &Circuit,
    cmds: &[Command],
    cpu_mem: BTreeMap<u32, u8>,
    cfg: &SimConfig,
) -> Result<(SimResult, Trace), SimError> {
    let mut trace = Trace::default();
    let r = run(circuit, cmds, cpu_mem, cfg, Some(&mut trace))?;
    Ok((r, trace))
}

fn run(
    circuit: &Circuit,
    cmds: &[Command],
    cpu_mem: BTreeMap<u32, u8>,
    cfg: &SimConfig,
    mut trace: Option<&mut Trace>,
) -> Result<SimResult, SimError> {
    let mut st = State::new(circuit, cmds, cpu_mem, cfg)?;
    let order: Vec<&super::Rule> = schedule_order(circuit)?;
    // Index of each scheduled rule in `circuit.rules` (for the trace).
    let index: Vec<u32> = match trace {
        Some(_) => {
            let at: HashMap<*const super::Rule, u32> = (circuit.rules.iter())
                .enumerate()
                .map(|(i, r)| (r as *const super::Rule, i as u32))
                .collect();
            order.iter().map(|r| at[&(*r as *const _)]).collect()
        }
        None => Vec::new(),
    };
    let dispatch = if cfg.dispatch {
        Dispatch::new(&order, |name| st.reg_index(name))
    } else {
        Dispatch::every_rule(order.len())
    };
    let detail = trace.as_deref().is_some_and(|t| t.detail);
    if let Some(t) = trace.as_deref_mut()
        && detail
    {
        let names: Vec<&str> = order.iter().map(|r| r.name.as_str()).collect();
        t.waves.signals = super::waves::signals(circuit, &names);
    }
    let mem_sites: Vec<Vec<(usize, MemSites)>> = {
        let instances = circuit.instance_index();
        (order.iter())
            .map(|r| {
                let sites = super::schedule::mem_sites(&instances, r);
                (sites.into_iter())
                    .filter_map(|(name, n)| Some((*st.index.get(&name)?, n)))
                    .collect()
            })
            .collect()
    };
    let mut tried = Vec::with_capacity(order.len());
    let mut vars = Vars::default();
    let mut last_fire = 0u64;
    let mut any_fired = false;
    loop {
        if st.cycle >= cfg.max_cycles {
            return Err(SimError::Timeout {
                cycles: cfg.max_cycles,
            });
        }
        if let Some(t) = trace.as_deref_mut() {
            t.fired.push(Vec::new());
            t.dma_busy.push(st.dma_busy());
        }
        let mut fired = false;
        let mut probe = match trace.as_deref() {
            Some(t) if detail => Some(Probe::start(&st, &t.waves.signals, order.len())),
            _ => None,
        };
        dispatch.candidates(|i| st.reg_value(i), &mut tried);
        for &k in &tried {
            let rule = order[k];
            if let Ok(tx) = st.try_rule(rule, &mem_sites[k], &mut vars) {
                if let Some(p) = probe.as_mut() {
                    p.fired(k, &tx);
                }
                if let Some(t) = trace.as_deref_mut() {
                    if let Some(cycle) = t.fired.last_mut() {
                        cycle.push(index[k]);
                    }
                    if t.detail {
                        st.record(rule, &tx, &mut t.events);
                    }
                }
                if let Some(message) = tx.fault {
                    return Err(SimError::Fault {
                        cycle: st.cycle,
                        rule: rule.name.clone(),
                        message,
                    });
                }
                if let Some((addr, load)) = tx.hazard {
                    return Err(SimError::Hazard {
                        cycle: st.cycle,
                        rule: rule.name.clone(),
                        addr,
                        load,
                    });
                }
                st.apply(tx);
                fired = true;
            }
        }
        if fired {
            last_fire = st.cycle;
            any_fired = true;
        }
        if let Some(t) = trace.as_deref_mut()
            && t.detail
        {
            if let Some(p) = probe.take() {
                let row = p.row(&st, &t.waves.signals);
                t.waves.rows.push(row);
            }
            let elements = (st.dma_beats().iter())
                .filter(|b| !matches!(b, BeatWrite::Latch { .. }))
                .count();
            if elements > 0 {
                t.events.push(Traced {
                    cycle: st.cycle,
                    event: Event::DmaBeats { elements },
                });
            }
        }
        let busy = st.end_of_cycle();
        if !fired && !busy {
            return st.finish(&order, if any_fired { last_fire + 1 } else { 0 });
        }
        st.cycle += 1;
    }
}

fn schedule_order(circuit: &Circuit) -> Result<Vec<&super::Rule>, SimError> {
    let order = super::schedule::rule_order(circuit).map_err(SimError::Malformed)?;
    Ok(order.into_iter().map(|i| &circuit.rules[i]).collect())
}

impl State {
    fn new(
        circuit: &Circuit,
        cmds: &[Command],
        cpu_mem: BTreeMap<u32, u8>,
        cfg: &SimConfig,
    ) -> Result<State, SimError> {
        let lanes = super::schedule::mem_lanes(circuit);
        let mut slots = Vec::new();
        let mut names = Vec::new();
        let mut index = FxHashMap::default();
        let mut io = Vec::new();
        for inst in &circuit.instances {
            let slot = match &inst.kind {
                InstanceKind::Fifo { depth, .. } => Slot::Fifo(Fifo {
                    items: VecDeque::new(),
                    pending: Vec::new(),
                    depth: (*depth).max(1) as usize,
                }),
                InstanceKind::Reg { width, init } => Slot::Reg(Reg {
                    value: *init,
                    pending: None,
                    width: *width,
                }),
                InstanceKind::Bank { width, depth, init } => {
                    let mut data = vec![0u128; *depth as usize];
                    for (d, v) in data.iter_mut().zip(init) {
                        *d = mask(*v, *width);
                    }
                    Slot::Bank(Bank {
                        data,
                        width: *width,
                        pending: Vec::new(),
                        latch: 0,
                        latch_pending: None,
                    })
                }
                InstanceKind::Rocc => Slot::Rocc,
                InstanceKind::Dma { entries } => Slot::Dma(Dma {
                    latency: cfg.dma_latency,
                    entries: entries.clone(),
                    queues: vec![VecDeque::new(); super::DMA_CHANNELS as usize],
                    seq: 0,
                    active: None,
                    latch: 0,
                    fired: Vec::new(),
                }),
                InstanceKind::Fault { message } => Slot::Fault(message.clone()),
                InstanceKind::Csr { mask, init, .. } => Slot::Csr(Csr {
                    mask: *mask,
                    value: init & mask,
                    latched: 0,
                    pending: None,
                }),
                InstanceKind::MemPort => {
                    let l = lanes.get(&inst.name).copied().unwrap_or(1);
                    let size = super::schedule::mem_resp_entries(l);
                    Slot::MemPort(MemPort {
                        lanes: l,
                        depth: super::schedule::mem_req_depth(l),
                        size,
                        queue: VecDeque::new(),
                        enq: Vec::new(),
                        buf: vec![None; size as usize],
                        head: 0,
                        alloc: 0,
                        used: 0,
                        loads: 0,
                        taken: 0,
                        arriving: None,
                    })
                }
            };
            if index.insert(inst.name.clone(), slots.len()).is_some() {
                return Err(SimError::Malformed(format!(
                    "duplicate instance `{}`",
                    inst.name
                )));
            }
            names.push(inst.name.clone());
            if matches!(slot, Slot::Dma(_) | Slot::MemPort(_)) {
                io.push(slots.len());
            }
            slots.push(slot);
        }
        let circuit_pcs = (circuit.instructions.iter())
            .filter_map(|i| {
                let slot = *index.get(&i.pc_register())?;
                matches!(slots[slot], Slot::Reg(_)).then(|| (i.function.clone(), slot))
            })
            .collect();
        let csrs = (0..slots.len())
            .filter(|&i| matches!(slots[i], Slot::Csr(_)))
            .collect();
        let mut st = State {
            slots,
            touched: Vec::new(),
            io,
            names,
            index,
            cmds: cmds.iter().cloned().collect(),
            cmd_reg: None,
            circuit_pcs,
            responses: Vec::new(),
            accepted: Vec::new(),
            cpu_mem,
            cycle: 0,
            cmd_taken: false,
            resp_sent: false,
            csrs,
            csr_writes: cfg.csr_writes.clone(),
            csr_sets: Vec::new(),
        };
        if let Some(w) =
            (st.csr_writes.iter()).find(|w| !st.index.contains_key(&csr_slot_name(&w.lane)))
        {
            return Err(SimError::Malformed(format!(
                "the design has no CSR lane `{}`",
                w.lane
            )));
        }
        st.cpu_csr_writes(0);
        Ok(st)
    }

    /// The CPU's CSR writes before command `k` (Rocket's `csrw`: `value & mask`).
    fn cpu_csr_writes(&mut self, k: usize) {
        let writes: Vec<CsrWrite> = (self.csr_writes.iter())
            .filter(|w| w.before == k)
            .cloned()
            .collect();
        for w in writes {
            let Some(&i) = self.index.get(&csr_slot_name(&w.lane)) else {
                continue;
            };
            if let Slot::Csr(c) = &mut self.slots[i] {
                c.value = (w.value & c.mask) | (c.value & !c.mask);
            }
        }
    }

    /// The slot of register `name` (`None`: no such register).
    fn reg_index(&self, name: &str) -> Option<usize> {
        let i = *self.index.get(name)?;
        matches!(self.slots[i], Slot::Reg(_)).then_some(i)
    }

    /// The value of register slot `i` at the start of the cycle.
    fn reg_value(&self, i: usize) -> u128 {
        match &self.slots[i] {
            Slot::Reg(r) => r.value,
            _ => 0,
        }
    }

    /// Whether a DMA request is queued or moving in the current cycle.
    fn dma_busy(&self) -> bool {
        (self.io.iter()).any(|&i| matches!(&self.slots[i], Slot::Dma(d) if d.busy()))
    }

    /// Rule `rule` fired on this cycle's state after the rules before it, or `Blocked`;
    /// `sites` are its [`MemSites`] per CPU-memory port slot.
    fn try_rule(
        &self,
        rule: &super::Rule,
        sites: &[(usize, MemSites)],
        vars: &mut Vars,
    ) -> Result<Tx, Blocked> {
        let mut tx = Tx::default();
        vars.clear();
        if let Some((stmts, result)) = &rule.guard {
            self.exec(stmts, sites, vars, &mut tx)?;
            let g = vars.get(result).map(|v| v.0).unwrap_or(0);
            if g & 1 == 0 {
                return Err(Blocked);
            }
        }
        self.exec(&rule.body, sites, vars, &mut tx)?;
        Ok(tx)
    }

    fn exec(
        &self,
        stmts: &[Stmt],
        sites: &[(usize, MemSites)],
        vars: &mut Vars,
        tx: &mut Tx,
    ) -> Result<(), Blocked> {
        for stmt in stmts {
            match stmt {
                Stmt::Let { var, width, expr } => {
                    let v = match expr {
                        Expr::Const(c) => mask(*c, *width),
                        Expr::Prim(op, args) => {
                            let mut a = [(0u128, 1u32); MAX_ARGS];
                            let n = args.len().min(MAX_ARGS);
                            for (slot, x) in a.iter_mut().zip(args) {
                                *slot = vars.get(x).copied().unwrap_or((0, 1));
                            }
                            eval_prim(*op, &a[..n], *width)
                        }
                    };
                    vars.insert(*var, (v, *width));
                }
                Stmt::Call {
                    result,
                    inst,
                    method,
                    args,
                } => {
                    let mut a = [0u128; MAX_ARGS];
                    let n = args.len().min(MAX_ARGS);
                    for (slot, x) in a.iter_mut().zip(args) {
                        *slot = vars.get(x).map(|v| v.0).unwrap_or(0);
                    }
                    let r = self.call(inst, method, &a[..n], sites, tx)?;
                    if let Some((var, width)) = result {
                        vars.insert(*var, (mask(r, *width), *width));
                    }
                }
                Stmt::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    let c = vars.get(cond).map(|v| v.0 & 1).unwrap_or(0);
                    let body = if c == 1 { then_body } else { else_body };
                    self.exec(body, sites, vars, tx)?;
                }
            }
        }
        Ok(())
    }

    fn call(
        &self,
        inst: &str,
        method: &str,
        args: &[u128],
        sites: &[(usize, MemSites)],
        tx: &mut Tx,
    ) -> Result<u128, Blocked> {
        let idx = *self.index.get(inst).ok_or(Blocked)?;
        let arg = |i: usize| args.get(i).copied().unwrap_or(0);
        let blocked = || Blocked;
        match (&self.slots[idx], method) {
            (Slot::Fifo(f), "deq") => {
                let taken = tx.deqs.iter().filter(|&&d| d == idx).count();
                let v = f.items.get(taken).copied().ok_or_else(blocked)?;
                tx.deqs.push(idx);
                Ok(v)
            }
            (Slot::Fifo(f), "enq") => {
                let taken = tx.deqs.iter().filter(|&&d| d == idx).count();
                let added = tx.enqs.iter().filter(|(d, _)| *d == idx).count();
                if f.items.len() - taken + f.pending.len() + added >= f.depth {
                    return Err(blocked());
                }
                tx.enqs.push((idx, arg(0)));
                Ok(0)
            }
            (Slot::Reg(r), "read") => Ok(r.value),
            (Slot::Reg(r), "write") => {
                if r.pending.is_some() || tx.reg_writes.iter().any(|(d, _)| *d == idx) {
                    return Err(blocked());
                }
                tx.reg_writes.push((idx, mask(arg(0), r.width)));
                Ok(0)
            }
            (Slot::Bank(b), "read") => Ok(bank_get(&b.data, arg(0))),
            (Slot::Bank(b), "read_0") => {
                tx.latch_writes.push((idx, bank_get(&b.data, arg(0))));
                Ok(0)
            }
            (Slot::Bank(b), "read_1") => Ok(b.latch),
            (Slot::Bank(b), "write") => {
                if let Some(i) = bank_index(arg(0), b.data.len()) {
                    tx.bank_writes.push((idx, i, mask(arg(1), b.width)));
                }
                Ok(0)
            }
            (Slot::Csr(c), "latched") => Ok(c.latched as u128),
            (Slot::Csr(c), "set") => {
                if c.pending.is_some() || tx.csr_sets.iter().any(|(d, _)| *d == idx) {
                    return Err(blocked());
                }
                tx.csr_sets.push((idx, arg(0) as u32));
                Ok(0)
            }
            (Slot::Rocc, "resp_from_user") => {
                if self.resp_sent || !tx.responses.is_empty() {
                    return Err(blocked());
                }
                tx.responses.push((arg(0) as u32, arg(1) as u32));
                Ok(0)
            }
            (Slot::Rocc, "cmd" | "cmd_deq") => {
                if self.cmd_taken || tx.cmd_taken {
                    return Err(blocked());
                }
                let c = self.cmd_reg.as_ref().ok_or_else(blocked)?;
                if method == "cmd_deq" {
                    tx.cmd_taken = true;
                }
                Ok(pack_cmd(c))
            }
            (Slot::Dma(d), m) => match super::dma_method(m) {
                Some(super::DmaMethod::Poll { channel }) => match d.idle(channel) {
                    true => Ok(1),
                    false => Err(blocked()),
                },
                Some(super::DmaMethod::Request { to_isax, channel }) => {
                    let queued = d.queues.get(channel as usize).map_or(0, VecDeque::len);
                    let same = |r: &Request| r.to_isax == to_isax && r.channel == channel;
                    let again = d.fired.iter().any(same)
                        || tx.dma_requests.iter().any(|(i, r)| *i == idx && same(r));
                    if queued >= DMA_QUEUE || again {
                        return Err(blocked());
                    }
                    let req = Request {
                        to_isax,
                        channel,
                        cpu_addr: arg(0) as u32,
                        isax_addr: arg(1) as u32,
                        length: (arg(2) & 0xf) as u32,
                        stride_x: arg(3) as u8,
                        stride_y: arg(4) as u8,
                    };
                    tx.dma_requests.push((idx, req));
                    Ok(0)
                }
                None => Err(blocked()),
            },
            (Slot::MemPort(p), "load_req" | "store_req") => {
                // The rule's readiness ([`MemSites`]): lanes for all its request sites after
                // earlier rules' requests, and room for them in the request queue after this
                // cycle's dequeue (the head goes out whenever the queue is not empty).
                let n = mem_sites_of(sites, idx);
                let mine = || tx.mem_reqs.iter().filter(|(i, _)| *i == idx);
                let (earlier, all) = (p.enq.len() as u32, n.reqs);
                let kept = (p.queue.len() - usize::from(p.head_fires())) as u32;
                if earlier + all > p.lanes || kept + earlier + all > p.depth {
                    return Err(blocked());
                }
                let word = arg(0) as u32 & !3;
                let load = method == "load_req";
                if tx.hazard.is_none() && mine().any(|(_, r)| !r.load && r.addr & !3 == word) {
                    tx.hazard = Some((word, load));
                }
                let mut req = MemReq {
                    load,
                    addr: arg(0) as u32,
                    data: if load { 0 } else { arg(1) as u32 },
                    tag: 0,
                };
                if load {
                    // Room in the response buffer for the loads in flight, earlier rules'
                    // loads and all the rule's load sites; the tag is the load's entry.
                    if p.used + p.loads + n.loads > p.size {
                        return Err(blocked());
                    }
                    let loads = p.loads + mine().filter(|(_, r)| r.load).count() as u32;
                    req.tag = p.wrap(p.alloc + loads);
                }
                tx.mem_reqs.push((idx, req));
                Ok(0)
            }
            (Slot::Fault(m), "raise") => {
                tx.fault.get_or_insert_with(|| m.clone());
                Ok(0)
            }
            (Slot::MemPort(p), "load_resp") => {
                // Responses are consumed in request order: the k-th of the cycle is tag
                // `head + k`, from the buffer or from the port in the cycle it arrives. The
                // rule is ready when the responses its sites may take, of those in flight
                // after earlier rules' (`taken`), have arrived.
                let own = tx.mem_resp_taken.iter().filter(|&&i| i == idx).count() as u32;
                if own == 0 {
                    // Once per firing: the rule's first response site decides for all.
                    let n = mem_sites_of(sites, idx);
                    let due = n.resps.min(p.used.saturating_sub(p.taken));
                    if !(0..due).all(|j| p.arrived(p.wrap(p.head + p.taken + j)).is_some()) {
                        return Err(blocked());
                    }
                }
                let k = p.taken + own;
                if k >= p.used {
                    // Only a hand-made circuit collects a load it never requested.
                    tx.fault
                        .get_or_insert_with(|| "a load response with no load in flight".into());
                    return Ok(0);
                }
                let v = p.arrived(p.wrap(p.head + k)).unwrap_or(0);
                tx.mem_resp_taken.push(idx);
                Ok(v as u128)
            }
            _ => Err(Blocked),
        }
    }

    fn apply(&mut self, tx: Tx) {
        for idx in tx.deqs {
            if let Slot::Fifo(f) = &mut self.slots[idx] {
                f.items.pop_front();
            }
        }
        for (idx, v) in tx.enqs {
            if let Slot::Fifo(f) = &mut self.slots[idx] {
                f.pending.push(v);
                self.touched.push(idx);
            }
        }
        for (idx, v) in tx.reg_writes {
            if let Slot::Reg(r) = &mut self.slots[idx] {
                r.pending = Some(v);
                self.touched.push(idx);
            }
        }
        for (idx, i, v) in tx.bank_writes {
            if let Slot::Bank(b) = &mut self.slots[idx] {
                b.pending.push((i, v));
                self.touched.push(idx);
            }
        }
        for (idx, v) in tx.latch_writes {
            if let Slot::Bank(b) = &mut self.slots[idx] {
                b.latch_pending = Some(v);
                self.touched.push(idx);
            }
        }
        for (idx, req) in tx.dma_requests {
            if let Slot::Dma(d) = &mut self.slots[idx] {
                d.fired.push(req);
            }
        }
        for (idx, v) in tx.csr_sets {
            if let Slot::Csr(c) = &mut self.slots[idx] {
                c.pending = Some(v);
                self.touched.push(idx);
                let lane = self.names[idx].strip_prefix("csr_").unwrap_or_default();
                self.csr_sets.push(CsrSet {
                    lane: lane.to_string(),
                    value: v,
                    cycle: self.cycle,
                });
            }
        }
        if tx.cmd_taken {
            self.cmd_taken = true;
        }
        for (rd, value) in tx.responses {
            self.resp_sent = true;
            self.responses.push(Response {
                rd,
                value,
                cycle: self.cycle,
            });
        }
        for idx in tx.mem_resp_taken {
            if let Slot::MemPort(p) = &mut self.slots[idx] {
                p.taken += 1;
            }
        }
        for (idx, req) in tx.mem_reqs {
            if let Slot::MemPort(p) = &mut self.slots[idx] {
                p.loads += u32::from(req.load);
                p.enq.push(req);
            }
        }
    }

    fn finish(&self, order: &[&super::Rule], cycles: u64) -> Result<SimResult, SimError> {
        let pending: Vec<&str> = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Slot::Fifo(f) if !f.items.is_empty()))
            .map(|(i, _)| self.names[i].as_str())
            .collect();
        let commands = self.cmds.len() + usize::from(self.cmd_reg.is_some());
        let stopped: Vec<(String, u128)> = (self.circuit_pcs.iter())
            .filter_map(|(function, slot)| match &self.slots[*slot] {
                Slot::Reg(r) if r.value != 0 => Some((function.clone(), r.value)),
                _ => None,
            })
            .collect();
        if let Some(e) = deadlock(order, &pending, commands, &stopped, self.cycle) {
            return Err(e);
        }
        let mut banks = BTreeMap::new();
        let mut regs = BTreeMap::new();
        for (i, s) in self.slots.iter().enumerate() {
            match s {
                Slot::Bank(b) => {
                    banks.insert(self.names[i].clone(), b.data.clone());
                }
                Slot::Reg(r) => {
                    regs.insert(self.names[i].clone(), r.value);
                }
                _ => {}
            }
        }
        let csrs = (self.csrs.iter())
            .filter_map(|&i| match &self.slots[i] {
                Slot::Csr(c) => Some((
                    self.names[i]
                        .strip_prefix("csr_")
                        .unwrap_or_default()
                        .to_string(),
                    c.value,
                )),
                _ => None,
            })
            .collect();
        Ok(SimResult {
            responses: self.responses.clone(),
            accepted: self.accepted.clone(),
            cpu_mem: self.cpu_mem.clone(),
            banks,
            regs,
            cycles,
            csr_sets: self.csr_sets.clone(),
            csrs,
        })
    }
}

/// The deadlock a run that ended in `cycle` with FIFOs `pending` non-empty, `commands`
/// not taken, or functions `stopped` in the middle of a command (function, program
/// counter) represents (`None` for a clean end): the rules that would consume the pending
/// work (dequeue a non-empty FIFO, or take a command), in `order`, and the stopped
/// functions. Shared by the simulator and the RTL testbench's report.
pub(crate) fn deadlock(
    order: &[&super::Rule],
    pending: &[&str],
    commands: usize,
    stopped: &[(String, u128)],
    cycle: u64,
) -> Option<SimError> {
    if pending.is_empty() && commands == 0 && stopped.is_empty() {
        return None;
    }
    let stuck: Vec<String> = order
        .iter()
        .filter(|r| {
            deq_targets(&r.body).iter().any(|t| pending.contains(t))
                || (commands > 0 && calls_cmd(&r.body))
        })
        .map(|r| r.name.clone())
        .collect();
    let mut stuck: Vec<String> = if stuck.is_empty() {
        pending
            .iter()
            .map(|f| format!("(fifo {f} not drained)"))
            .collect()
    } else {
        stuck
    };
    stuck.extend((stopped.iter()).map(|(f, pc)| format!("(@{f} stopped at program counter {pc})")));
    Some(SimError::Deadlock { cycle, stuck })
}

/// The rules in the simulator's order (the schedule, then rules it does not name).
pub(crate) fn rule_order(circuit: &Circuit) -> Result<Vec<&super::Rule>, SimError> {
    schedule_order(circuit)
}

fn deq_targets(stmts: &[Stmt]) -> Vec<&str> {
    let mut out = Vec::new();
    for s in stmts {
        match s {
            Stmt::Call { inst, method, .. } if method == "deq" => out.push(inst.as_str()),
            Stmt::If {
                then_body,
                else_body,
                ..
            } => {
                out.extend(deq_targets(then_body));
                out.extend(deq_targets(else_body));
            }
            _ => {}
        }
    }
    out
}

fn calls_cmd(stmts: &[Stmt]) -> bool {
    stmts
        .iter()
        .any(|s| matches!(s, Stmt::Call { method, .. } if method == "cmd_deq"))
}

/// Pack a command into the 96-bit bundle of [`super::rocc_field`].
pub(crate) fn pack_cmd(c: &Command) -> u128 {
    let (rd_lo, _) = super::rocc_field("rd");
    let (op_lo, _) = super::rocc_field("opcode");
    let (f7_lo, _) = super::rocc_field("funct7");
    (c.rs2 as u128)
        | ((c.rs1 as u128) << 32)
        | (((c.opcode & 0x7f) as u128) << op_lo)
        | (((c.rd & 0x1f) as u128) << rd_lo)
        | (((c.funct7 & 0x7f) as u128) << f7_lo)
}

/// The element index a bank access uses: the address truncated to the bank's address bits;
/// `None` when it falls beyond a non-power-of-two depth.
pub(crate) fn bank_index(addr: u128, depth: usize) -> Option<usize> {
    let pow = depth.next_power_of_two().max(1) as u128;
    let i = (addr % pow) as usize;
    (i < depth).then_some(i)
}

fn bank_get(data: &[u128], addr: u128) -> u128 {
    bank_index(addr, data.len()).map(|i| data[i]).unwrap_or(0)
}

pub(crate) fn read_bytes(mem: &BTreeMap<u32, u8>, addr: u32, n: u32) -> u128 {
    (0..n).fold(0u128, |acc, k| {
        acc | ((mem.get(&addr.wrapping_add(k)).copied().unwrap_or(0) as u128) << (8 * k))
    })
}

pub(crate) fn write_bytes(mem: &mut BTreeMap<u32, u8>, addr: u32, n: u32, v: u128) {
    for k in 0..n {
        mem.insert(addr.wrapping_add(k), (v >> (8 * k)) as u8);
    }
}

/// Word accesses of the CPU memory port are 4-byte aligned (low address bits ignored).
pub fn read_word(mem: &BTreeMap<u32, u8>, addr: u32) -> u32 {
    read_bytes(mem, addr & !3, 4) as u32
}

pub fn write_word(mem: &mut BTreeMap<u32, u8>, addr: u32, v: u32) {
    write_bytes(mem, addr & !3, 4, v as u128);
}

/// The instance of CSR lane `lane`.
fn csr_slot_name(lane: &str) -> String {
    format!("csr_{lane}")
}
