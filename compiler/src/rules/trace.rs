//! What the rule simulator did, cycle by cycle (`kiln sim --trace`, `--trace-json`): each
//! rule that fired and its effects (RoCC commands taken and responses sent, FIFO dequeues
//! and enqueues, register and bank writes, DMA requests, CPU-memory loads, stores and load
//! responses), and the elements DMA beats moved at a clock edge. Recorded by
//! [`super::sim::simulate_recorded`], also when the run ends in an error (the trace then
//! shows what led to it).

use serde::Serialize;
use std::fmt::Write as _;

/// One event of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A rule fired; the events after it, up to the next `Fire` or the next cycle, are its
    /// effects (committed at the clock edge).
    Fire {
        rule: String,
    },
    /// The presented RoCC command was taken.
    Accept {
        opcode: u32,
        funct7: u32,
        rs1: u32,
        rs2: u32,
        rd: u32,
    },
    /// A RoCC response was sent.
    Respond {
        rd: u32,
        value: u32,
    },
    Deq {
        fifo: String,
    },
    Enq {
        fifo: String,
        value: String,
    },
    Write {
        reg: String,
        value: String,
    },
    BankWrite {
        bank: String,
        index: usize,
        value: String,
    },
    /// A bank's read latch took a value (a split read's first half).
    BankLatch {
        bank: String,
        value: String,
    },
    /// A DMA request fired (`to_isax`: CPU memory → scratchpad; `dma`: instance and
    /// channel).
    DmaStart {
        dma: String,
        to_isax: bool,
        cpu_addr: u32,
        isax_addr: u32,
        bytes: u32,
    },
    Load {
        port: String,
        addr: u32,
    },
    Store {
        port: String,
        addr: u32,
        value: u32,
    },
    /// A load's response was consumed.
    LoadResponse {
        port: String,
    },
    /// At the clock edge: DMA beats moved this many elements.
    DmaBeats {
        elements: usize,
    },
    /// The firing raised a run-time error (the run stops; its effects are not applied).
    Fault {
        message: String,
    },
}

/// An event and its cycle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Traced {
    pub cycle: u64,
    #[serde(flatten)]
    pub event: Event,
}

/// A value as `0x…` (values may be up to 128 bits wide: JSON numbers cannot hold them all).
pub(crate) fn hex(v: u128) -> String {
    format!("{v:#x}")
}

/// The compact text form: one line per firing (`[cycle] rule: effect; effect`) and one per
/// clock-edge event (`[cycle] dma beats: N element(s)`).
pub fn render(events: &[Traced]) -> String {
    let mut out = String::new();
    // Effects of the current firing line so far (`None`: no firing line is open).
    let mut effects: Option<usize> = None;
    for t in events {
        let effect = match &t.event {
            Event::Fire { rule } => {
                if effects.is_some() {
                    out.push('\n');
                }
                let _ = write!(out, "[{}] {rule}", t.cycle);
                effects = Some(0);
                continue;
            }
            Event::DmaBeats { elements } => {
                if effects.take().is_some() {
                    out.push('\n');
                }
                let _ = writeln!(out, "[{}] dma beats: {elements} element(s)", t.cycle);
                continue;
            }
            other => describe(other),
        };
        match effects {
            Some(0) => out.push_str(": "),
            Some(_) => out.push_str("; "),
            // An effect without a firing (not recorded by the simulator): its own line.
            None => {
                let _ = write!(out, "[{}] ", t.cycle);
            }
        }
        out.push_str(&effect);
        effects = Some(effects.map_or(1, |n| n + 1));
    }
    if effects.is_some() {
        out.push('\n');
    }
    out
}

/// One effect in words.
fn describe(e: &Event) -> String {
    match e {
        Event::Fire { rule } => format!("fire {rule}"),
        Event::DmaBeats { elements } => format!("dma beats: {elements} element(s)"),
        Event::Accept {
            opcode,
            funct7,
            rs1,
            rs2,
            rd,
        } => {
            format!("accept opcode {opcode} funct7 {funct7} (rs1 {rs1:#x}, rs2 {rs2:#x}, rd x{rd})")
        }
        Event::Respond { rd, value } => format!("respond x{rd} = {}", *value as i32),
        Event::Deq { fifo } => format!("deq {fifo}"),
        Event::Enq { fifo, value } => format!("enq {fifo} {value}"),
        Event::Write { reg, value } => format!("{reg} <= {value}"),
        Event::BankWrite { bank, index, value } => format!("{bank}[{index}] <= {value}"),
        Event::BankLatch { bank, value } => format!("{bank} latch <= {value}"),
        Event::DmaStart {
            dma,
            to_isax: true,
            cpu_addr,
            isax_addr,
            bytes,
        } => format!("{dma}: {bytes} bytes cpu {cpu_addr:#x} -> isax {isax_addr:#x}"),
        Event::DmaStart {
            dma,
            cpu_addr,
            isax_addr,
            bytes,
            ..
        } => format!("{dma}: {bytes} bytes isax {isax_addr:#x} -> cpu {cpu_addr:#x}"),
        Event::Load { port, addr } => format!("{port}: load {addr:#x}"),
        Event::Store { port, addr, value } => {
            format!("{port}: store {addr:#x} = {}", *value as i32)
        }
        Event::LoadResponse { port } => format!("{port}: load response taken"),
        Event::Fault { message } => format!("fault: {message}"),
    }
}
