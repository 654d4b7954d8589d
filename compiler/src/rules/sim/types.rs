//! What a simulation takes and gives: its configuration, the commands presented to the
//! RoCC port, the responses, the result of a run and its errors.

use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Idle cycles of the DMA engine before each request's first beat (APS's fake DMA:
    /// 0).
    pub dma_latency: u32,
    pub max_cycles: u64,
    /// Try in a cycle only the rules whose guard can hold ([`super::dispatch`]); `false`
    /// tries every rule every cycle (the same results, for measuring the index).
    pub dispatch: bool,
    /// The CPU's writes of CSR lanes (`csrw`), each before a command of the stream.
    pub csr_writes: Vec<CsrWrite>,
}

/// A CPU write (`csrw`) of a CSR lane: Rocket's CSR file holds `value & mask` once the
/// command before it in program order has fired (before command 0: from reset), so command
/// `before` and later latch it, earlier commands keep what they latched.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CsrWrite {
    pub before: usize,
    /// The lane's name (ports `csr_<lane>_*`).
    pub lane: String,
    pub value: u32,
}

/// A write-back of a CSR lane by the hardware (`set_enable` with `sdata`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsrSet {
    pub lane: String,
    pub value: u32,
    pub cycle: u64,
}

impl Default for SimConfig {
    fn default() -> SimConfig {
        SimConfig {
            dma_latency: 0,
            max_cycles: 5_000_000,
            dispatch: true,
            csr_writes: Vec::new(),
        }
    }
}

/// One RoCC command: taken by the rule whose guard accepts its `(opcode, funct7)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub opcode: u32,
    pub funct7: u32,
    pub rs1: u32,
    pub rs2: u32,
    pub rd: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    pub rd: u32,
    pub value: u32,
    pub cycle: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimResult {
    pub responses: Vec<Response>,
    /// The cycle each command was accepted, in command order.
    pub accepted: Vec<u64>,
    pub cpu_mem: BTreeMap<u32, u8>,
    pub banks: BTreeMap<String, Vec<u128>>,
    pub regs: BTreeMap<String, u128>,
    /// Cycles from the first command to the last rule firing (inclusive).
    pub cycles: u64,
    /// The hardware's CSR write-backs, in cycle order.
    pub csr_sets: Vec<CsrSet>,
    /// Each CSR lane's value at the end (Rocket's CSR file).
    pub csrs: BTreeMap<String, u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    Deadlock {
        cycle: u64,
        stuck: Vec<String>,
    },
    Timeout {
        cycles: u64,
    },
    /// A rule raised a fault (a run-time error the hardware signals).
    Fault {
        cycle: u64,
        rule: String,
        message: String,
    },
    /// A rule stored CPU-memory word `addr` and then accessed it again in one firing.
    Hazard {
        cycle: u64,
        rule: String,
        addr: u32,
        load: bool,
    },
    Malformed(String),
}

impl SimError {
    /// The diagnostic code of the error.
    pub fn code(&self) -> crate::diag::Code {
        use crate::diag::Code;
        match self {
            SimError::Deadlock { .. } => Code::Deadlock,
            SimError::Timeout { .. } => Code::NoQuiescence,
            SimError::Fault { .. } => Code::RunTimeError,
            SimError::Hazard { .. } => Code::CpuMemoryHazard,
            SimError::Malformed(_) => Code::Aps,
        }
    }
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Deadlock { cycle, stuck } => {
                write!(
                    f,
                    "deadlock at cycle {cycle}: stuck rules {}",
                    stuck.join(", ")
                )
            }
            SimError::Timeout { cycles } => write!(f, "no quiescence within {cycles} cycles"),
            SimError::Fault {
                cycle,
                rule,
                message,
            } => write!(
                f,
                "run-time error at cycle {cycle} in rule `{rule}`: {message}"
            ),
            SimError::Hazard {
                cycle,
                rule,
                addr,
                load,
            } => write!(
                f,
                "CPU-memory hazard at cycle {cycle}: rule `{rule}` stores word {addr:#x} and then {} it in the same slot (the {} would not see the store)",
                if *load { "loads" } else { "stores" },
                if *load { "load" } else { "second store" },
            ),
            SimError::Malformed(m) => write!(f, "malformed circuit: {m}"),
        }
    }
}
