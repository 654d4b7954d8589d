//! The segmentation's data: the block tree (positions, containers, loops, slots), the
//! value table, the program-counter codes and the function's [`Segmentation`].

use super::*;

pub(crate) type BlockId = usize;

/// Where a block sits: piece `index` of container `branch` (0: the body or `then`, 1:
/// `else`) of block `owner`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Position {
    pub(crate) owner: BlockId,
    pub(crate) branch: usize,
    pub index: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Container {
    pub prefix: String,
    pub children: Vec<BlockId>,
    /// The `tor.yield` operands (iteration values of a loop body, results of a branch).
    pub(crate) yields: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LoopInfo {
    pub loop_name: String,
    pub(crate) iv: String,
    pub width: u32,
    pub(crate) lb: String,
    pub(crate) ub: String,
    pub(crate) step: String,
    pub(crate) inits: Vec<String>,
    /// The body's iteration-value arguments.
    pub(crate) iters: Vec<String>,
    pub results: Vec<String>,
    /// `Some(ii)`: pipelined, a new iteration every `ii` cycles.
    pub pipeline: Option<u32>,
    /// The induction variable (pipelined: the next iteration's).
    pub(crate) iv_reg: String,
    pub(crate) iter_regs: Vec<String>,
    /// Pipelined: 1 while iterations remain to be started; the initiation-interval counter.
    pub(crate) issue_reg: Option<String>,
    pub(crate) ii_reg: Option<String>,
    /// The fault raised by a run-time step of 0 (steps that are not constants).
    pub(crate) step_fault: Option<String>,
    /// Bounds or step are known only at run time, so `iv + step` may overflow and the
    /// hardware checks it (with constants, [`crate::aps::checks`] rejected a loop that would).
    pub(crate) may_overflow: bool,
    /// The head rule's transition, when some path reaches it.
    pub(crate) head: Option<Tree>,
    /// Pipelined: the last stage's transition after the last iteration.
    pub(crate) exit: Option<Tree>,
}

/// One time step of a straight-line block.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SlotInfo {
    pub(crate) time: i64,
    /// Nothing but collects: no rule; its wait guards the next slot that runs.
    pub(crate) wait_only: bool,
    /// It waits for the DMA (a burst collect).
    pub(crate) polls: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BlockKind {
    Function {
        body: Container,
        /// The start rule's transition, when the body does not begin with straight-line
        /// code (the start rule takes the command).
        start: Option<Tree>,
    },
    Basic {
        ops: Vec<Operation>,
        slots: Vec<SlotInfo>,
        /// The transition after the last slot (none for the body of a pipelined loop).
        exit: Option<Tree>,
        /// The pipelined loop whose body this is.
        pipeline: Option<BlockId>,
    },
    Loop {
        info: Box<LoopInfo>,
        body: Container,
    },
    If {
        cond: String,
        then_c: Container,
        else_c: Option<Container>,
        results: Vec<String>,
        res_regs: Vec<String>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BlockInfo {
    pub(crate) id: BlockId,
    pub name: String,
    pub(crate) parent: Option<BlockId>,
    pub at: Option<Position>,
    pub span: Span,
    pub kind: BlockKind,
}

/// Function-wide value facts used by the handlers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ValueTable {
    pub(crate) widths: BTreeMap<String, u32>,
    /// Design-level and function-local constants: (value masked to width, width).
    pub(crate) consts: BTreeMap<String, (u128, u32)>,
    /// `memref.get_global` results → global symbol.
    pub globals: BTreeMap<String, String>,
    /// Function arguments (register indices: rs1, rs2, rd), in order.
    pub args: Vec<String>,
    /// `aps.spm.load_req` tokens → bank symbol.
    pub(crate) req_banks: BTreeMap<String, String>,
    /// `aps.itfc.burst_{load,store}_req` tokens → DMA channel (`tl_channel`, default 0).
    pub(crate) dma_channels: BTreeMap<String, u8>,
    /// The register holding each value used outside the slot that computes it.
    pub regs: BTreeMap<String, String>,
    /// `aps.readcsr` results → the CSR global read: values of the command (latched when
    /// it fired), available where the command is taken, whatever the op's slot.
    pub(crate) csr_reads: Vec<(String, String)>,
}

impl ValueTable {
    pub(crate) fn is_virtual(&self, v: &str) -> bool {
        self.consts.contains_key(v)
            || self.globals.contains_key(v)
            || self.widths.get(v).is_some_and(|w| *w == 0)
    }

    /// The DMA channels the function's bursts use, ascending (channel 0 when none does).
    pub(crate) fn channels_used(&self) -> Vec<u8> {
        let used: BTreeSet<u8> = self.dma_channels.values().copied().collect();
        match used.is_empty() {
            true => vec![0],
            false => used.into_iter().collect(),
        }
    }

    /// The command field argument `v` stands for (`rs1`, `rs2`, `rd`), if it is one.
    pub(crate) fn arg_field(&self, v: &str) -> Option<&'static str> {
        let k = self.args.iter().position(|a| a == v)?;
        ["rs1", "rs2", "rd"].get(k).copied()
    }
}

/// The function's program counter and the code of each state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct Control {
    pub(crate) pc: String,
    pub(crate) width: u32,
    /// `(target, waited, code)`, sorted by `(target, waited)` (so looked up by binary
    /// search: a function looks up a code per slot); `(Idle, false)` is 0.
    pub(crate) codes: Vec<(Target, bool, u32)>,
}

impl Control {
    pub(crate) fn code(&self, target: &Target, waited: bool) -> Option<u32> {
        self.codes
            .binary_search_by(|(t, w, _)| (t, *w).cmp(&(target, waited)))
            .ok()
            .map(|i| self.codes[i].2)
    }

    /// The codes under which `target` runs: `(code, waited)`.
    pub(crate) fn entries(&self, target: &Target) -> Vec<(u32, bool)> {
        let from = self.codes.partition_point(|(t, _, _)| t < target);
        self.codes[from..]
            .iter()
            .take_while(|(t, _, _)| t == target)
            .map(|(_, w, c)| (*c, *w))
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Segmentation {
    pub func: String,
    /// The `tor.func` (for diagnostics about the function as a whole).
    pub span: Span,
    /// `inst<id>_` with `id` = [`crate::rules::Instruction::id`], added once at the
    /// outermost level.
    pub prefix: String,
    pub opcode: u32,
    pub funct7: u32,
    pub blocks: Vec<BlockInfo>,
    pub values: ValueTable,
    pub(crate) control: Control,
    /// The function's registers and faults (block-internal FIFOs belong to the handlers).
    pub instances: Vec<Instance>,
    /// Warnings about the function (spans relative to it), reported with its outputs.
    pub warnings: Vec<Diagnostic>,
    /// The architecture of its rules.
    pub style: Style,
    /// [`Style::Fifo`]: the ports, FIFOs and token chain of every block.
    pub(crate) fifo: Option<Box<crate::aps::fifo::Plan>>,
    /// The design-level locks of the memory resources the function accesses
    /// ([`crate::aps::locks::memory_lock`]), in order; the rule that takes a command requires
    /// them free and holds them until the command is done with the resource.
    pub(crate) mem_locks: Vec<String>,
    /// The lock of each memory resource the function accesses (by global symbol, `@cpu`).
    pub(crate) mem_lock_of: BTreeMap<String, String>,
}

impl Segmentation {
    /// The width of register `name` of this function (1 if unknown).
    pub(crate) fn reg_width(&self, name: &str) -> u32 {
        self.instances
            .iter()
            .find(|i| i.name == name)
            .and_then(|i| match i.kind {
                InstanceKind::Reg { width, .. } => Some(width),
                _ => None,
            })
            .unwrap_or(1)
    }

    /// Whether the function's first block takes the command itself (else the start rule).
    pub(crate) fn command_block(&self) -> Option<BlockId> {
        let BlockKind::Function { body, .. } = &self.blocks.first()?.kind else {
            return None;
        };
        let first = *body.children.first()?;
        matches!(self.blocks[first].kind, BlockKind::Basic { .. }).then_some(first)
    }
}
