//! The rule IR: an explicit, serializable description of a rule-based circuit.
//!
//! A [`Circuit`] is a set of [`Instance`]s (FIFOs with width and depth, registers, scratchpad
//! banks, and the RoCC / DMA / CPU-memory interfaces), a set of guarded atomic [`Rule`]s whose
//! bodies are flat SSA lists of expressions and method calls on instances, and a declared
//! schedule (a total order used by the simulator and the emitters) plus the precedence pairs
//! the generator asks for.
//!
//! Method catalogue (the contract between generators, simulator and emitters):
//! - `Fifo`: `enq(data)`, `deq() -> data` (no `first`/`notEmpty`: a rule that deqs an empty
//!   FIFO cannot fire; an enq is allowed in the cycle of a deq; enqueued data is visible the
//!   next cycle).
//! - `Reg`: `read() -> v` (value at the start of the cycle), `write(v)` (commits at the edge).
//! - `Bank`: `read(addr) -> data` (combinational), `read_0(addr)` + `read_1() -> data` (one
//!   cycle later), `write(addr, data)`; addresses are [`bank_addr_width`] bits. Every call
//!   site of `read`, `read_0` and `write` drives a port of its own ([`bank_ports`]).
//! - `Rocc`: value `cmd() -> bundle` (the command in the top's command register, 96-bit,
//!   see [`rocc_field`]; ready while the register holds one and no rule took it this cycle), `cmd_deq() -> bundle` (takes it),
//!   `resp_from_user(rd, data)`. A rule that starts an instruction tests the command's
//!   `(opcode, funct7)` in its guard and takes it in its body.
//! - `Dma`: the SoC's DMA engine as the top calls it (`docs/soc.md`): per channel `N` of
//!   [`DMA_CHANNELS`] the requests `cpu_to_isax_chN` / `isax_to_cpu_chN(cpu_addr, isax_addr,
//!   length, stride_x, stride_y)` (`2^length` bytes, ready while the channel takes requests;
//!   one per method and cycle) and the value `poll_for_idle_chN() -> 1` (ready only while
//!   nothing of channel `N` is queued or moving). The engine moves the data through the
//!   top's scratchpad burst ports, decoded with `entries`.
//! - `MemPort`: `load_req(addr)`, `load_resp() -> data`, `store_req(addr, data)`.
//! - `Fault`: `raise()` (a run-time error, e.g. a loop step of 0 at run time).
//!
//! [`signature`] gives every method's argument and result widths; generators pass
//! arguments of exactly these widths, and the emitters and readers check them.
//!
//! Architecture invariant: everything here is plain owned data with deterministic order
//! (`Vec`s in generation order), so equal inputs give byte-identical emitted text.

pub(crate) mod cmt2_lib;
pub(crate) mod cmt2_read;
mod dispatch;
mod dot;
pub mod emit;
pub mod json;
pub(crate) mod mlir_text;
pub mod schedule;
pub mod sim;
pub mod sv;
pub mod trace;
pub mod waves;

pub use cmt2_read::read_cmt2;
pub use dot::to_dot;
pub use emit::emit_cmt2;
pub use json::to_json;

use serde::{Deserialize, Serialize};

/// A rule-local SSA variable.
pub type Var = u32;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Circuit {
    pub name: String,
    /// The custom instructions the circuit implements (one per APS function).
    pub instructions: Vec<Instruction>,
    pub instances: Vec<Instance>,
    pub rules: Vec<Rule>,
    /// Same-cycle ordering pairs `(a, b)`: `a` is scheduled before `b`.
    pub precedence: Vec<(String, String)>,
    /// Total order in which rules are tried each cycle (consumers before producers).
    pub schedule: Vec<String>,
}

/// A RISC-V custom instruction: its function and its identity `(opcode, funct7)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Instruction {
    pub function: String,
    pub opcode: u32,
    pub funct7: u32,
}

/// The four major opcodes RISC-V reserves for custom instructions (custom-0..3).
pub(crate) const CUSTOM_OPCODES: [u32; 4] = [0x0b, 0x2b, 0x5b, 0x7b];

impl Instruction {
    /// The name part identifying the instruction: `(opcode << 8) | funct7` as 4 hex digits
    /// (`2b01` for opcode 0x2b, funct7 1).
    pub(crate) fn id(opcode: u32, funct7: u32) -> String {
        format!("{:02x}{:02x}", opcode & 0x7f, funct7 & 0x7f)
    }

    /// The register holding the instruction's program counter (0: idle, between commands).
    pub fn pc_register(&self) -> String {
        format!("inst{}_pc", Self::id(self.opcode, self.funct7))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Instance {
    pub name: String,
    pub kind: InstanceKind,
}

/// Serialized externally tagged (`{"fifo": {"width": 32, "depth": 1}}`): the cache codec
/// (bincode) is not self-describing and cannot read internally tagged enums back.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstanceKind {
    Fifo {
        width: u32,
        depth: u32,
    },
    Reg {
        width: u32,
        init: u128,
    },
    /// One scratchpad bank (a `memref.global` of rank 1).
    Bank {
        width: u32,
        depth: u32,
        init: Vec<u128>,
    },
    /// The RoCC command/response adapter.
    Rocc,
    /// The SoC's DMA engine (outside the top) and the top's scratchpad burst ports,
    /// which decode a beat's address with the memory map `entries`.
    Dma {
        entries: Vec<DmaEntry>,
    },
    /// The CPU memory port (hellacache adapter).
    MemPort,
    /// A CSR lane of the SoC (`csr_<name>`): `latched()` is the lane's value latched when
    /// the command being taken fired, `set(v)` writes it back (Rocket's CSR file stores
    /// `v & mask` from the next cycle; `init` after reset, both environment facts).
    Csr {
        /// The Rocket CSR address (what software uses; the top never sees it).
        id: u32,
        mask: u32,
        init: u32,
    },
    /// A run-time error the hardware signals to the SoC (a top-level output): `raise()`
    /// reports `message`.
    Fault {
        message: String,
    },
}

/// One `aps.mem_entry` as the DMA engine sees it: the scratchpad address range
/// `[base, base + size)` spread over `banks` (instance names).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DmaEntry {
    pub name: String,
    pub base: u32,
    pub size: u32,
    pub elem_bytes: u32,
    pub banks: Vec<String>,
    pub cyclic: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rule {
    pub name: String,
    /// The segment (block) the rule belongs to, for graphs and reports.
    pub origin: String,
    /// Guard statements and the 1-bit result; `None` is the constant-true guard: the rule's
    /// readiness then follows from the methods its body calls.
    pub guard: Option<(Vec<Stmt>, Var)>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stmt {
    Let {
        var: Var,
        width: u32,
        expr: Expr,
    },
    Call {
        result: Option<(Var, u32)>,
        inst: String,
        method: String,
        args: Vec<Var>,
    },
    If {
        cond: Var,
        then_body: Vec<Stmt>,
        else_body: Vec<Stmt>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expr {
    Const(u128),
    Prim(PrimOp, Vec<Var>),
}

/// Primitive operations. Results are truncated to the `Let`'s width; comparisons give 1 bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrimOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    /// Shift amounts at or above the operand width give 0.
    Shl,
    ShrU,
    /// Arithmetic shift; amounts at or above the width give the sign fill.
    ShrS,
    Eq,
    Ne,
    Ult,
    Ule,
    Ugt,
    Uge,
    Slt,
    Sle,
    Sgt,
    Sge,
    /// `mux(cond, a, b)`.
    Mux,
    /// Bits `[lo, lo + width)` of the operand.
    Bits {
        lo: u32,
    },
    ZExt,
    SExt,
}

/// Bit positions `(lo, width)` of the fields of the RoCC command bundle.
pub(crate) fn rocc_field(name: &str) -> (u32, u32) {
    match name {
        "rs2data" => (0, 32),
        "rs1data" => (32, 32),
        "opcode" => (64, 7),
        "rd" => (74, 5),
        "rs2" => (79, 5),
        "rs1" => (84, 5),
        // `funct7`
        _ => (89, 7),
    }
}

/// Address bits of a bank of `depth` elements (at least 1).
pub(crate) fn bank_addr_width(depth: u32) -> u32 {
    (32 - depth.saturating_sub(1).leading_zeros()).max(1)
}

/// A method's argument and result widths, and whether it is a value method (no enable:
/// it only reads state).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Signature {
    pub args: Vec<u32>,
    pub(crate) result: Option<u32>,
    pub value: bool,
}

/// The signature of `method` on an instance of `kind`; `None` for an unknown method.
pub(crate) fn signature(kind: &InstanceKind, method: &str) -> Option<Signature> {
    let sig = |args: &[u32], result: Option<u32>, value: bool| Signature {
        args: args.to_vec(),
        result,
        value,
    };
    Some(match (kind, method) {
        (InstanceKind::Fifo { width, .. }, "enq") => sig(&[*width], None, false),
        (InstanceKind::Fifo { width, .. }, "deq") => sig(&[], Some(*width), false),
        (InstanceKind::Reg { width, .. }, "read") => sig(&[], Some(*width), true),
        (InstanceKind::Reg { width, .. }, "write") => sig(&[*width], None, false),
        (InstanceKind::Bank { width, depth, .. }, m) => {
            let aw = bank_addr_width(*depth);
            match m {
                "read" => sig(&[aw], Some(*width), false),
                "read_0" => sig(&[aw], None, false),
                "read_1" => sig(&[], Some(*width), true),
                "write" => sig(&[aw, *width], None, false),
                _ => return None,
            }
        }
        (InstanceKind::Rocc, "cmd") => sig(&[], Some(96), true),
        (InstanceKind::Rocc, "cmd_deq") => sig(&[], Some(96), false),
        (InstanceKind::Rocc, "resp_from_user") => sig(&[5, 32], None, false),
        (InstanceKind::Dma { .. }, m) => match dma_method(m)? {
            DmaMethod::Request { .. } => sig(&[32, 32, 4, 8, 8], None, false),
            DmaMethod::Poll { .. } => sig(&[], Some(1), true),
        },
        (InstanceKind::MemPort, "load_req") => sig(&[32], None, false),
        (InstanceKind::MemPort, "store_req") => sig(&[32, 32], None, false),
        (InstanceKind::MemPort, "load_resp") => sig(&[], Some(32), false),
        (InstanceKind::Csr { .. }, "latched") => sig(&[], Some(32), true),
        (InstanceKind::Csr { .. }, "set") => sig(&[32], None, false),
        (InstanceKind::Fault { .. }, "raise") => sig(&[], None, false),
        _ => return None,
    })
}

/// The methods of `kind`, in catalogue order.
pub(crate) fn methods(kind: &InstanceKind) -> &'static [&'static str] {
    match kind {
        InstanceKind::Fifo { .. } => &["enq", "deq"],
        InstanceKind::Reg { .. } => &["read", "write"],
        InstanceKind::Bank { .. } => &["read", "read_0", "read_1", "write"],
        InstanceKind::Rocc => &["cmd", "cmd_deq", "resp_from_user"],
        InstanceKind::Dma { .. } => &DMA_METHODS,
        InstanceKind::MemPort => &["load_req", "store_req", "load_resp"],
        InstanceKind::Csr { .. } => &["latched", "set"],
        InstanceKind::Fault { .. } => &["raise"],
    }
}

/// The DMA channels of the SoC (APS's DMA engine has two; unused ones are tied off).
pub const DMA_CHANNELS: u8 = 2;

/// A method of the `Dma` instance, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmaMethod {
    /// `cpu_to_isax_ch<channel>` (`to_isax`) or `isax_to_cpu_ch<channel>`.
    Request { to_isax: bool, channel: u8 },
    /// `poll_for_idle_ch<channel>`.
    Poll { channel: u8 },
}

/// The `Dma` instance's methods, three per channel: the [`DmaMethod`]s by index
/// `3 · channel + (0: cpu_to_isax, 1: isax_to_cpu, 2: poll_for_idle)`.
const DMA_METHODS: [&str; 3 * DMA_CHANNELS as usize] = [
    "cpu_to_isax_ch0",
    "isax_to_cpu_ch0",
    "poll_for_idle_ch0",
    "cpu_to_isax_ch1",
    "isax_to_cpu_ch1",
    "poll_for_idle_ch1",
];

impl DmaMethod {
    fn index(self) -> usize {
        let (k, channel) = match self {
            DmaMethod::Request { to_isax, channel } => (usize::from(!to_isax), channel),
            DmaMethod::Poll { channel } => (2, channel),
        };
        3 * (channel.min(DMA_CHANNELS - 1) as usize) + k
    }

    pub fn name(self) -> &'static str {
        DMA_METHODS[self.index()]
    }
}

/// The DMA method named `m`, if it is one.
pub fn dma_method(m: &str) -> Option<DmaMethod> {
    let i = DMA_METHODS.iter().position(|x| *x == m)?;
    let channel = (i / 3) as u8;
    Some(match i % 3 {
        2 => DmaMethod::Poll { channel },
        k => DmaMethod::Request {
            to_isax: k == 0,
            channel,
        },
    })
}

pub(crate) fn mask(v: u128, width: u32) -> u128 {
    if width >= 128 {
        v
    } else {
        v & ((1u128 << width) - 1)
    }
}

/// `v` (of `width` bits) sign-extended to i128.
pub(crate) fn sext(v: u128, width: u32) -> i128 {
    if width == 0 || width >= 128 {
        return v as i128;
    }
    let shift = 128 - width;
    ((v << shift) as i128) >> shift
}

/// Evaluate one primitive on operands with their widths; the result is masked to `width`.
pub(crate) fn eval_prim(op: PrimOp, args: &[(u128, u32)], width: u32) -> u128 {
    let a = args.first().copied().unwrap_or((0, 1));
    let b = args.get(1).copied().unwrap_or((0, 1));
    let w = a.1.max(b.1);
    let r = match op {
        PrimOp::Add => a.0.wrapping_add(b.0),
        PrimOp::Sub => a.0.wrapping_sub(b.0),
        PrimOp::Mul => a.0.wrapping_mul(b.0),
        PrimOp::And => a.0 & b.0,
        PrimOp::Or => a.0 | b.0,
        PrimOp::Xor => a.0 ^ b.0,
        PrimOp::Shl => shift(a, b, |v, s| v << s, 0),
        PrimOp::ShrU => shift(a, b, |v, s| v >> s, 0),
        PrimOp::ShrS => {
            let fill = if sext(a.0, a.1) < 0 { u128::MAX } else { 0 };
            if b.0 >= a.1 as u128 || b.0 >= 128 {
                fill
            } else {
                (sext(a.0, a.1) >> b.0) as u128
            }
        }
        PrimOp::Eq => (a.0 == b.0) as u128,
        PrimOp::Ne => (a.0 != b.0) as u128,
        PrimOp::Ult => (a.0 < b.0) as u128,
        PrimOp::Ule => (a.0 <= b.0) as u128,
        PrimOp::Ugt => (a.0 > b.0) as u128,
        PrimOp::Uge => (a.0 >= b.0) as u128,
        PrimOp::Slt => (sext(a.0, w) < sext(b.0, w)) as u128,
        PrimOp::Sle => (sext(a.0, w) <= sext(b.0, w)) as u128,
        PrimOp::Sgt => (sext(a.0, w) > sext(b.0, w)) as u128,
        PrimOp::Sge => (sext(a.0, w) >= sext(b.0, w)) as u128,
        PrimOp::Mux => {
            let c = args.get(2).copied().unwrap_or((0, 1));
            if a.0 & 1 == 1 { b.0 } else { c.0 }
        }
        PrimOp::Bits { lo } => a.0.checked_shr(lo).unwrap_or(0),
        PrimOp::ZExt => a.0,
        PrimOp::SExt => sext(a.0, a.1) as u128,
    };
    mask(r, width)
}

/// `f(a, b)` for an amount below the operand width (and below 128, where every bit of the
/// kept result is shifted out anyway), else `over`.
fn shift(a: (u128, u32), b: (u128, u32), f: impl Fn(u128, u32) -> u128, over: u128) -> u128 {
    if b.0 >= a.1 as u128 || b.0 >= 128 {
        over
    } else {
        f(a.0, b.0 as u32)
    }
}

impl Circuit {
    /// Merge `other` into `self`: instances deduplicated by name (first wins), rules,
    /// precedence and schedule appended.
    pub fn merge(&mut self, other: Circuit) {
        let mut known: std::collections::HashSet<String> =
            self.instances.iter().map(|i| i.name.clone()).collect();
        for inst in other.instances {
            if known.insert(inst.name.clone()) {
                self.instances.push(inst);
            }
        }
        self.instructions.extend(other.instructions);
        self.rules.extend(other.rules);
        self.precedence.extend(other.precedence);
        self.schedule.extend(other.schedule);
    }

    pub(crate) fn instance(&self, name: &str) -> Option<&Instance> {
        self.instances.iter().find(|i| i.name == name)
    }

    /// The instances by name (the first of a name, as [`Circuit::instance`] finds it), for
    /// passes that look one up per call site: a search per call would grow with the
    /// product of call sites and instances.
    pub(crate) fn instance_index(&self) -> Instances<'_> {
        let mut index = crate::fxhash::FxHashMap::default();
        index.reserve(self.instances.len());
        for i in &self.instances {
            index.entry(i.name.as_str()).or_insert(i);
        }
        index
    }
}

/// A circuit's instances by name ([`Circuit::instance_index`]).
pub(crate) type Instances<'c> = crate::fxhash::FxHashMap<&'c str, &'c Instance>;

/// A helper to build rule bodies: fresh variables and statement lists.
#[derive(Default)]
pub struct BodyBuilder {
    next: Var,
    pub stmts: Vec<Stmt>,
}

impl BodyBuilder {
    pub fn new() -> BodyBuilder {
        BodyBuilder::default()
    }

    pub(crate) fn fresh(&mut self) -> Var {
        self.next += 1;
        self.next - 1
    }

    pub fn konst(&mut self, value: u128, width: u32) -> Var {
        let var = self.fresh();
        self.stmts.push(Stmt::Let {
            var,
            width,
            expr: Expr::Const(mask(value, width)),
        });
        var
    }

    pub fn prim(&mut self, op: PrimOp, args: Vec<Var>, width: u32) -> Var {
        let var = self.fresh();
        self.stmts.push(Stmt::Let {
            var,
            width,
            expr: Expr::Prim(op, args),
        });
        var
    }

    pub fn call(&mut self, inst: &str, method: &str, args: Vec<Var>) {
        self.stmts.push(Stmt::Call {
            result: None,
            inst: inst.to_string(),
            method: method.to_string(),
            args,
        });
    }

    pub fn call_value(&mut self, inst: &str, method: &str, args: Vec<Var>, width: u32) -> Var {
        let var = self.fresh();
        self.stmts.push(Stmt::Call {
            result: Some((var, width)),
            inst: inst.to_string(),
            method: method.to_string(),
            args,
        });
        var
    }

    /// Run `then_f` and `else_f` into the two arms of an `If` on `cond`.
    pub fn if_else(
        &mut self,
        cond: Var,
        then_f: impl FnOnce(&mut BodyBuilder),
        else_f: impl FnOnce(&mut BodyBuilder),
    ) {
        let outer = std::mem::take(&mut self.stmts);
        then_f(self);
        let then_body = std::mem::take(&mut self.stmts);
        else_f(self);
        let else_body = std::mem::replace(&mut self.stmts, outer);
        self.stmts.push(Stmt::If {
            cond,
            then_body,
            else_body,
        });
    }
}

/// The methods that take a port of their own at each call site: a bank's `read`, `read_0`
/// and `write` (a call drives the port's address and data, so two calls in one cycle need
/// two ports; `read_1` reads the latch and needs none), and the CPU-memory port's
/// `load_req`, `store_req` and `load_resp` (its `HellaMem` module decides a rule's
/// readiness from the ports of earlier rules, so each call site has one).
pub(crate) const BANK_PORT_METHODS: [&str; 6] = [
    "read",
    "read_0",
    "write",
    "load_req",
    "store_req",
    "load_resp",
];

/// The instances with a port per call site ([`BANK_PORT_METHODS`]), by name: banks and
/// CPU-memory ports.
pub(crate) fn ported_names(instances: &[Instance]) -> crate::fxhash::FxHashSet<&str> {
    instances
        .iter()
        .filter(|i| matches!(i.kind, InstanceKind::Bank { .. } | InstanceKind::MemPort))
        .map(|i| i.name.as_str())
        .collect()
}

/// One port of a bank or of a CPU-memory port: the `k`-th call of `method` on the instance
/// in rule `rule` (in the order [`bank_calls`] meets the calls). Named
/// `<method>.<rule>.<k>` in CMT2.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BankPort {
    pub method: &'static str,
    pub rule: String,
    pub k: u32,
}

impl BankPort {
    /// The port's method name in CMT2.
    pub(crate) fn name(&self) -> String {
        format!("{}.{}.{}", self.method, self.rule, self.k)
    }

    /// A port method name back into its port; `None` for other names.
    pub(crate) fn parse(name: &str) -> Option<BankPort> {
        let (method, rest) = name.split_once('.')?;
        let (rule, digits) = rest.rsplit_once('.')?;
        let method = BANK_PORT_METHODS.into_iter().find(|m| *m == method)?;
        let k: u32 = digits.parse().ok()?;
        (!rule.is_empty() && k.to_string() == digits).then(|| BankPort {
            method,
            rule: rule.to_string(),
            k,
        })
    }
}

/// The calls of a rule to a port method of a bank, as (instance, method), in the order
/// the emitters meet them: the guard, then the body, the then-arm of an `If` before its
/// else-arm.
pub(crate) fn bank_calls<'r>(
    rule: &'r Rule,
    is_bank: &dyn Fn(&str) -> bool,
) -> Vec<(&'r str, &'static str)> {
    fn walk<'r>(
        stmts: &'r [Stmt],
        is_bank: &dyn Fn(&str) -> bool,
        out: &mut Vec<(&'r str, &'static str)>,
    ) {
        for s in stmts {
            match s {
                Stmt::Call { inst, method, .. } if is_bank(inst) => {
                    if let Some(m) = BANK_PORT_METHODS.into_iter().find(|m| m == method) {
                        out.push((inst.as_str(), m));
                    }
                }
                Stmt::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    walk(then_body, is_bank, out);
                    walk(else_body, is_bank, out);
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    if let Some((g, _)) = &rule.guard {
        walk(g, is_bank, &mut out);
    }
    walk(&rule.body, is_bank, &mut out);
    out
}

/// Numbers the calls of one rule to each (bank, method): the `k` of each call's
/// [`BankPort`], in the order of [`bank_calls`].
#[derive(Default)]
pub(crate) struct PortCounter<'a> {
    seen: crate::fxhash::FxHashMap<(&'a str, &'static str), u32>,
}

impl<'a> PortCounter<'a> {
    /// The port of the next call of `method` on `bank` in `rule`.
    pub(crate) fn next(&mut self, rule: &str, bank: &'a str, method: &'static str) -> BankPort {
        let k = self.seen.entry((bank, method)).or_insert(0);
        *k += 1;
        BankPort {
            method,
            rule: rule.to_string(),
            k: *k - 1,
        }
    }
}

/// The scratchpad's burst ports (APS's `burst_write`, `burst_read_0`): names of the top
/// methods whose decode calls the banks' ports, as the [`BankPort::rule`] of those ports.
pub(crate) const BURST_WRITE: &str = "burst_write";
/// See [`BURST_WRITE`].
pub(crate) const BURST_READ: &str = "burst_read_0";

/// One lane of an 8-byte burst beat on one bank of a memory-map entry: the beat's bytes
/// `[lane·elem, (lane+1)·elem)` are element `(addr + lane·elem − base) / elem` of `entry`,
/// which lives in its `bank`-th bank (`name`). Every (entry, lane, bank) is a decode case
/// of both burst methods and a port of its own on the bank (`k`: the bank's count of
/// burst lanes before this one), so a beat reaching one bank in several lanes (bytes of a
/// byte array) has as many ports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BurstLane<'a> {
    pub entry: &'a DmaEntry,
    pub lane: u32,
    pub bank: u32,
    pub name: &'a str,
    pub width: u32,
    pub depth: u32,
    pub k: u32,
}

/// The burst lanes of a circuit's memory map, entry by entry, lane by lane, bank by bank:
/// the order of the decode in both burst methods and of the lanes' ports on each bank.
/// Entries whose element is not 1, 2, 4 or 8 bytes have no lanes (the DMA engine moves
/// 8-byte beats), nor names that are not banks.
pub(crate) fn burst_lanes(instances: &[Instance]) -> Vec<BurstLane<'_>> {
    let shapes: std::collections::HashMap<&str, (u32, u32)> = instances
        .iter()
        .filter_map(|i| match i.kind {
            InstanceKind::Bank { width, depth, .. } => Some((i.name.as_str(), (width, depth))),
            _ => None,
        })
        .collect();
    let mut seen: std::collections::HashMap<&str, u32> = Default::default();
    let mut out = Vec::new();
    for inst in instances {
        let InstanceKind::Dma { entries } = &inst.kind else {
            continue;
        };
        for entry in entries {
            if !matches!(entry.elem_bytes, 1 | 2 | 4 | 8) {
                continue;
            }
            for lane in 0..8 / entry.elem_bytes {
                for (bank, name) in entry.banks.iter().enumerate() {
                    let Some(&(width, depth)) = shapes.get(name.as_str()) else {
                        continue;
                    };
                    let k = seen.entry(name.as_str()).or_insert(0);
                    out.push(BurstLane {
                        entry,
                        lane,
                        bank: bank as u32,
                        name,
                        width,
                        depth,
                        k: *k,
                    });
                    *k += 1;
                }
            }
        }
    }
    out
}

/// The banks' burst ports ([`burst_lanes`]): for each lane a `write` port of
/// [`BURST_WRITE`] and a `read` port of [`BURST_READ`], after the rules' ports.
pub(crate) fn burst_ports(instances: &[Instance]) -> Vec<(&str, BankPort)> {
    let mut out = Vec::new();
    for l in burst_lanes(instances) {
        for (method, rule) in [("write", BURST_WRITE), ("read", BURST_READ)] {
            out.push((
                l.name,
                BankPort {
                    method,
                    rule: rule.to_string(),
                    k: l.k,
                },
            ));
        }
    }
    out
}

/// Every bank's and CPU-memory port's ports: one per call site of a port method (the most
/// calls one cycle can make, as every rule may fire in the same cycle and a rule makes each
/// of its calls at most once), in rule order, then call order. The count the SystemVerilog
/// bank's ports follow too (its read ports add the DMA engine's lanes).
pub(crate) fn bank_ports<'c>(
    instances: &'c [Instance],
    rules: &'c [Rule],
) -> std::collections::BTreeMap<&'c str, Vec<BankPort>> {
    let banks = ported_names(instances);
    let is_bank = |n: &str| banks.contains(n);
    let mut out: std::collections::BTreeMap<&str, Vec<BankPort>> = Default::default();
    for r in rules {
        let mut count = PortCounter::default();
        for (bank, method) in bank_calls(r, &is_bank) {
            let port = count.next(&r.name, bank, method);
            out.entry(bank).or_default().push(port);
        }
    }
    out
}

/// A CPU-memory port's ports ([`bank_ports`]) in the order the rules fire in a cycle
/// (`schedule`, then the rules it does not name, in definition order): its `HellaMem`
/// module counts a rule's earlier rules by it.
pub(crate) fn mem_ports(mut ports: Vec<BankPort>, schedule: &[String]) -> Vec<BankPort> {
    let at: crate::fxhash::FxHashMap<&str, usize> = schedule
        .iter()
        .enumerate()
        .map(|(i, r)| (r.as_str(), i))
        .collect();
    // A stable sort: a rule's ports keep their order, unnamed rules theirs.
    ports.sort_by_key(|p| at.get(p.rule.as_str()).copied().unwrap_or(usize::MAX));
    ports
}

/// A circuit's rules reduced to what its ports depend on ([`bank_ports`]): each rule that
/// calls a bank's port method, with those calls only (arguments dropped, in
/// [`bank_calls`] order). What a file's CMT2 header and footer need of its rules.
pub fn port_skeleton(c: &Circuit) -> Vec<Rule> {
    let banks = ported_names(&c.instances);
    let is_bank = |n: &str| banks.contains(n);
    c.rules
        .iter()
        .filter_map(|r| {
            let calls = bank_calls(r, &is_bank);
            (!calls.is_empty()).then(|| Rule {
                name: r.name.clone(),
                origin: String::new(),
                guard: None,
                body: calls
                    .into_iter()
                    .map(|(inst, method)| Stmt::Call {
                        result: None,
                        inst: inst.to_string(),
                        method: method.to_string(),
                        args: Vec::new(),
                    })
                    .collect(),
            })
        })
        .collect()
}
