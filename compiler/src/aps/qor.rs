//! Quality of results of the generated hardware: where an instruction's cycles go on the
//! rule simulator, measured from a [`sim::Trace`] of one command.
//!
//! Every cycle from the one the command is accepted to the last firing of one of the
//! instruction's rules is one of
//! - a *slot* cycle: a slot rule of the instruction (`…_slot_<t>_rule`) fires;
//! - a *DMA* cycle: none does and a DMA transfer is in flight (the instruction waits for it);
//! - an *overhead* cycle: neither (only control rules fire, or nothing does).
//!
//! Per loop (its rules are those named `<loop>_…`, nested loops included), the cycles it
//! owns: a cycle in which one of its rules fires, or in which nothing of the instruction
//! fires and the last firing was one of its rules (a wait belongs to what started the
//! transfer: a loop whose first slot waits for a burst started before it does not own
//! that wait). With the
//! loop's iteration count from the TOR interpreter this gives cycles per iteration against
//! slot firings per iteration (the body's slot count on the path taken).
//!
//! Rules are told apart by name only, so circuits of any kiln version can be measured
//! (`kiln-bench qor --kiln OLD`).

use super::interp::InterpResult;
use super::segment::{BlockKind, Segmentation};
use crate::rules::sim::{SimResult, Trace};
use crate::rules::{Circuit, Instruction};

/// The cycles of one command of an instruction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    pub cycles: u64,
    pub slot: u64,
    pub dma: u64,
    pub overhead: u64,
}

impl Breakdown {
    pub fn add(&mut self, o: &Breakdown) {
        self.cycles += o.cycles;
        self.slot += o.slot;
        self.dma += o.dma;
        self.overhead += o.overhead;
    }
}

/// One loop's share of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopReport {
    pub name: String,
    /// Iterations (all activations together), from the TOR interpreter.
    pub iterations: u64,
    /// Cycles the loop owns, split like the instruction's.
    pub cycles: Breakdown,
    /// Firings of the loop's slot rules (more than its slot cycles when iterations overlap).
    pub slot_firings: u64,
    /// Firings of the loop's rules that are not slot rules.
    pub control_firings: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub function: String,
    pub total: Breakdown,
    pub loops: Vec<LoopReport>,
}

/// A slot rule (`<block>_slot_<t>_rule`): one time step of the schedule.
pub fn is_slot_rule(name: &str) -> bool {
    name.ends_with("_rule") && name.contains("_slot_")
}

/// The loops of a function (`<block>_loop` names) with the iterations the interpreter ran.
pub fn loops(seg: &Segmentation, run: &InterpResult) -> Vec<(String, u64)> {
    seg.blocks
        .iter()
        .filter_map(|b| match &b.kind {
            BlockKind::Loop { info, .. } => Some((
                info.loop_name.clone(),
                run.loop_iterations.get(&b.span.start).copied().unwrap_or(0),
            )),
            _ => None,
        })
        .collect()
}

/// The report of instruction `ins` from a run of one of its commands on `circuit`.
pub fn report(
    circuit: &Circuit,
    ins: &Instruction,
    result: &SimResult,
    trace: &Trace,
    loops: &[(String, u64)],
) -> Report {
    let prefix = format!("inst{}_", Instruction::id(ins.opcode, ins.funct7));
    let names: Vec<&str> = circuit.rules.iter().map(|r| r.name.as_str()).collect();
    // The instruction's firings per cycle.
    let fired: Vec<Vec<&str>> = trace
        .fired
        .iter()
        .map(|c| {
            c.iter()
                .filter_map(|&i| names.get(i as usize).copied())
                .filter(|n| n.starts_with(&prefix))
                .collect()
        })
        .collect();
    let start = result.accepted.first().copied().unwrap_or(0) as usize;
    let Some(end) = fired.iter().rposition(|c| !c.is_empty()) else {
        return Report {
            function: ins.function.clone(),
            ..Report::default()
        };
    };
    // Who each cycle belongs to: its firings, else the last cycle's before it.
    let mut owner: Vec<&[&str]> = vec![&[]; end + 1];
    for t in start..=end {
        owner[t] = if fired[t].is_empty() && t > start {
            owner[t - 1]
        } else {
            &fired[t]
        };
    }
    let kind = |t: usize| {
        if fired[t].iter().any(|n| is_slot_rule(n)) {
            0
        } else if trace.dma_busy.get(t).copied().unwrap_or(false) {
            1
        } else {
            2
        }
    };
    let count = |b: &mut Breakdown, t: usize| {
        b.cycles += 1;
        match kind(t) {
            0 => b.slot += 1,
            1 => b.dma += 1,
            _ => b.overhead += 1,
        }
    };
    let mut total = Breakdown::default();
    for t in start..=end {
        count(&mut total, t);
    }
    let loops = loops
        .iter()
        .map(|(name, iterations)| {
            let mine = format!("{name}_");
            let ours = |n: &str| n.starts_with(&mine);
            let mut l = LoopReport {
                name: name.clone(),
                iterations: *iterations,
                ..LoopReport::default()
            };
            for t in start..=end {
                if !owner[t].iter().any(|n| ours(n)) {
                    continue;
                }
                count(&mut l.cycles, t);
                // A slot cycle of another scope owned by this loop is overhead here.
                if kind(t) == 0 && !fired[t].iter().any(|n| ours(n) && is_slot_rule(n)) {
                    l.cycles.slot -= 1;
                    l.cycles.overhead += 1;
                }
                for n in fired[t].iter().filter(|n| ours(n)) {
                    if is_slot_rule(n) {
                        l.slot_firings += 1;
                    } else {
                        l.control_firings += 1;
                    }
                }
            }
            l
        })
        .collect();
    Report {
        function: ins.function.clone(),
        total,
        loops,
    }
}
