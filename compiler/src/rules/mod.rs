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
//!   cycle later), `write(addr, data)`.
//! - `Rocc`: `cmd_to_user_<id>() -> bundle` (96-bit, see [`rocc_field`]), `resp_from_user(rd, data)`.
//! - `Dma`: `cpu_to_isax(cpu_addr, isax_addr, log2_bytes)`, `isax_to_cpu(cpu_addr, isax_addr,
//!   log2_bytes)`, value `poll_for_idle() -> 1` (ready only while the engine is idle).
//! - `MemPort`: `load_req(addr)`, `load_resp() -> data`, `store_req(addr, data)`.
//!
//! Architecture invariant: everything here is plain owned data with deterministic order
//! (`Vec`s in generation order), so equal inputs give byte-identical emitted text.

pub mod emit;
pub(crate) mod schedule;
pub mod sim;
pub mod sv;

pub use emit::{emit_cmt2, to_dot, to_json};

use serde::{Deserialize, Serialize};

/// A rule-local SSA variable.
pub type Var = u32;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Circuit {
    pub name: String,
    pub instances: Vec<Instance>,
    pub rules: Vec<Rule>,
    /// Same-cycle ordering pairs `(a, b)`: `a` is scheduled before `b`.
    pub precedence: Vec<(String, String)>,
    /// Total order in which rules are tried each cycle (consumers before producers).
    pub schedule: Vec<String>,
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
    /// The burst DMA engine; `latency` cycles per started 64-byte burst.
    Dma {
        latency: u32,
        entries: Vec<DmaEntry>,
    },
    /// The CPU memory port (hellacache adapter).
    MemPort,
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
pub fn rocc_field(name: &str) -> (u32, u32) {
    match name {
        "rs2data" => (0, 32),
        "rs1data" => (32, 32),
        "opcode" => (64, 7),
        "rd" => (74, 5),
        "rs2" => (79, 5),
        "rs1" => (84, 5),
        _ => (89, 7),
    }
}

pub fn mask(v: u128, width: u32) -> u128 {
    if width >= 128 {
        v
    } else {
        v & ((1u128 << width) - 1)
    }
}

/// `v` (of `width` bits) sign-extended to i128.
pub fn sext(v: u128, width: u32) -> i128 {
    if width == 0 || width >= 128 {
        return v as i128;
    }
    let shift = 128 - width;
    ((v << shift) as i128) >> shift
}

/// Evaluate one primitive on operands with their widths; the result is masked to `width`.
pub fn eval_prim(op: PrimOp, args: &[(u128, u32)], width: u32) -> u128 {
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
            if b.0 >= a.1 as u128 {
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

fn shift(a: (u128, u32), b: (u128, u32), f: impl Fn(u128, u32) -> u128, over: u128) -> u128 {
    if b.0 >= a.1 as u128 {
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
        self.rules.extend(other.rules);
        self.precedence.extend(other.precedence);
        self.schedule.extend(other.schedule);
    }

    pub fn instance(&self, name: &str) -> Option<&Instance> {
        self.instances.iter().find(|i| i.name == name)
    }
}

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

    pub fn fresh(&mut self) -> Var {
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
