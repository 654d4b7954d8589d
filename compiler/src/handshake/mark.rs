//! Phase 1, mark: which library file (and which built-in generator) implements each op.
//!
//! The op's parameters (widths, sizes, buffer type and slots, comparison predicate, constant
//! value) are computed here; the [`PathTable`] turns the variant key and parameters into a
//! path relative to the library directory. The library is not read: whether the file exists
//! and is usable is decided later ([`super::resolve`]), by the caller that owns the IO.

use super::circuit::{Circuit, OpNode, PortSpec, PortType};
pub use super::float_ops::{FCmpPred, FloatCast, FloatOp};
use super::managers::{self, Manager};
use super::table::{PathTable, expand};
use crate::diag::{Code, Diagnostic, Span};
use crate::limits::{Limit, Limits};
use crate::mlir::ast::{Attribute, Operation, Type};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Integer comparison predicates (arith numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum CmpPred {
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Sge,
    Ult,
    Ule,
    Ugt,
    Uge,
}

impl CmpPred {
    pub const ALL: [CmpPred; 10] = [
        CmpPred::Eq,
        CmpPred::Ne,
        CmpPred::Slt,
        CmpPred::Sle,
        CmpPred::Sgt,
        CmpPred::Sge,
        CmpPred::Ult,
        CmpPred::Ule,
        CmpPred::Ugt,
        CmpPred::Uge,
    ];

    pub fn as_str(self) -> &'static str {
        [
            "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
        ][self as usize]
    }

    fn parse(a: &Attribute) -> Option<CmpPred> {
        match a {
            Attribute::Integer { value, .. } => {
                CmpPred::ALL.get(usize::try_from(*value).ok()?).copied()
            }
            _ => {
                let s = a.as_str()?;
                CmpPred::ALL.iter().copied().find(|p| p.as_str() == s)
            }
        }
    }
}

/// Binary operators with a built-in generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Shl,
    ShrU,
    ShrS,
}

impl BinOp {
    pub const ALL: [BinOp; 8] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::ShrU,
        BinOp::ShrS,
    ];

    pub fn kind(self) -> &'static str {
        [
            "addi", "subi", "andi", "ori", "xori", "shli", "shrui", "shrsi",
        ][self as usize]
    }

    fn from_kind(k: &str) -> Option<BinOp> {
        BinOp::ALL.iter().copied().find(|b| b.kind() == k)
    }
}

/// A unit kiln can generate itself (AIG built in code, see [`super::builtin`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Builtin {
    /// `value` as the two's-complement bit pattern of `width` bits.
    Constant {
        width: u32,
        value: i128,
    },
    Cmp {
        pred: CmpPred,
        width: u32,
    },
    Binary {
        op: BinOp,
        width: u32,
    },
    Ext {
        signed: bool,
        from: u32,
        to: u32,
    },
    Trunc {
        from: u32,
        to: u32,
    },
    Select {
        width: u32,
    },
    Join {
        n: u32,
    },
    Not {
        width: u32,
    },
    /// Dynamatic's `init` (1 bit): `token` first, then the input's tokens; the first
    /// token is offered from reset until taken.
    Init {
        token: bool,
    },
    /// Dynamatic's `spec_v2_repeating_init` (1 bit): a 1 first, and again after each 0
    /// it passes on.
    RepeatingInit,
    /// Dynamatic's `spec_v2_resolver`: joins the actual condition (`ins[0]`) and the one
    /// speculation generated (`ins[1]`) and outputs whether speculation is idle, a state
    /// bit (1 after reset) that a transfer clears when idle on actual 0 and generated 1,
    /// and sets when not idle on generated 0.
    Resolver,
    /// Dynamatic's `passer` (speculation): `data` and `ctrl` joined; the token goes on to
    /// `result` when `ctrl` is 1 and is dropped when it is 0.
    Passer {
        width: u32,
    },
    /// A FIFO of `slots` entries (`elastic_fifo_inner`); `transparent` adds the bypass of
    /// `tfifo` (FIFO_BREAK_NONE), otherwise it breaks valid and data (FIFO_BREAK_DV).
    Fifo {
        slots: u32,
        width: u32,
        transparent: bool,
    },
    /// IEEE-754 `addf`/`subf`/`mulf`/`divf` on f32 or f64 with Dynamatic's FloPoCo unit's
    /// `latency`, or `maximumf`/`minimumf` (latency 1), see [`super::float`].
    Float {
        op: FloatOp,
        width: u32,
        latency: u32,
    },
    /// `cmpf` on f32 (latency 0) or f64 (latency 1), see [`super::float`].
    CmpF {
        pred: FCmpPred,
        width: u32,
        latency: u32,
    },
    /// `negf`, `extf`, `truncf`, `sitofp`, `uitofp`, `fptosi` from `from` to `to` bits,
    /// see [`super::float`].
    FloatCast {
        op: FloatCast,
        from: u32,
        to: u32,
        latency: u32,
    },
}

impl Builtin {
    /// A stable name for the generated model (`addi_w8`, `cmpi_slt_w32`, ...).
    pub fn model_name(&self) -> String {
        match self {
            Builtin::Constant { width, value } => {
                let v = if *value < 0 {
                    format!("m{}", value.unsigned_abs())
                } else {
                    value.to_string()
                };
                format!("kiln_constant_w{width}_v{v}")
            }
            Builtin::Cmp { pred, width } => format!("kiln_cmpi_{}_w{width}", pred.as_str()),
            Builtin::Binary { op, width } => format!("kiln_{}_w{width}", op.kind()),
            Builtin::Ext { signed, from, to } => {
                format!(
                    "kiln_{}_{from}_{to}",
                    if *signed { "extsi" } else { "extui" }
                )
            }
            Builtin::Trunc { from, to } => format!("kiln_trunci_{from}_{to}"),
            Builtin::Select { width } => format!("kiln_select_w{width}"),
            Builtin::Join { n } => format!("kiln_join_n{n}"),
            Builtin::Not { width } => format!("kiln_not_w{width}"),
            Builtin::Passer { width } => format!("kiln_passer_w{width}"),
            Builtin::Init { token } => format!("kiln_init_t{}", u8::from(*token)),
            Builtin::RepeatingInit => "kiln_repeating_init".to_string(),
            Builtin::Resolver => "kiln_spec_v2_resolver".to_string(),
            Builtin::Float { op, width, latency } => {
                format!("kiln_{}_w{width}_l{latency}", op.kind())
            }
            Builtin::CmpF {
                pred,
                width,
                latency,
            } => format!("kiln_cmpf_{}_w{width}_l{latency}", pred.as_str()),
            Builtin::FloatCast {
                op,
                from,
                to,
                latency,
            } => format!("kiln_{}_{from}_{to}_l{latency}", op.kind()),
            Builtin::Fifo {
                slots,
                width,
                transparent,
            } => format!(
                "kiln_{}_s{slots}_w{width}",
                if *transparent {
                    "tfifo"
                } else {
                    "elastic_fifo_inner"
                }
            ),
        }
    }
}

/// Why an LSQ stays opaque. Dynamatic's `rtl-config-verilog.json` has no template for
/// `handshake.lsq` but a generator, `tools/backend/lsq-generator-python/lsq-generator.py`,
/// run per LSQ on a JSON of its access groups and queue depths; it is not among the
/// templates (`data/verilog`) nor the BLIF library, so kiln has nothing to lower.
const LSQ_WHY: &str = "an LSQ: Dynamatic builds each with its Python LSQ generator (rtl-config-verilog.json: `lsq-generator-python`), not from a Verilog template or a BLIF library unit, so kiln keeps it as a black box";

/// What phase 1 decided for one op.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct UnitRef {
    /// Index into [`Circuit::ops`].
    pub op: usize,
    pub name: String,
    pub kind: String,
    /// The path-table key (`buffer.ONE_SLOT_BREAK_DV.dataless`, `cmpi.eq`, ...).
    pub key: String,
    pub(crate) params: BTreeMap<String, u64>,
    /// The library path (relative to the library directory), when the table has the key.
    pub path: Option<String>,
    /// Why there is no path.
    pub(crate) no_path: Option<String>,
    /// The built-in generator that can implement this op, if any.
    pub(crate) builtin: Option<Builtin>,
    /// The op has ports the library units do not have (extra signals): the library file,
    /// if any, cannot be used as is.
    pub(crate) extras: bool,
    /// For an op with extras: its signal manager and the units inside it
    /// ([`super::extras`]); `None` (with `no_path` saying why) when it has none.
    pub(crate) managed: Option<Managed>,
    /// The key of the Verilog template unit that can implement this op
    /// ([`super::rtl::Template::key`]), if any.
    pub template: Option<String>,
    /// That template's file and parameters, for reports.
    pub(crate) template_about: Option<String>,
    pub span: Span,
}

/// An op with extras: its manager and the marks of the units inside, in the order
/// [`managers::inner_nodes`] gives their ops.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Managed {
    pub manager: Manager,
    pub inner: Vec<UnitRef>,
}

/// Phase 1 over an analysed circuit. `func` must be the function `circuit` was built from.
pub fn mark_circuit(
    func: &Operation,
    circuit: &Circuit,
    table: &PathTable,
) -> Result<Vec<UnitRef>, Diagnostic> {
    mark_circuit_with(func, circuit, table, &Limits::DEFAULT)
}

/// [`mark_circuit`] with the counts of the ops (buffer slots) checked against `limits`.
pub fn mark_circuit_with(
    func: &Operation,
    circuit: &Circuit,
    table: &PathTable,
    limits: &Limits,
) -> Result<Vec<UnitRef>, Diagnostic> {
    let body = func
        .regions
        .first()
        .and_then(|r| r.blocks.first())
        .map(|b| b.ops.as_slice())
        .unwrap_or(&[]);
    let mut marks = Vec::new();
    for (i, node) in circuit.ops.iter().enumerate() {
        let op = body
            .get(i)
            .ok_or_else(|| Diagnostic::error(node.span, "op list does not match the function"))?;
        marks.push(match managers::has_extras(node) {
            true => mark_managed(i, node, op, table, limits)?,
            false => mark_op(i, node, op, table, limits)?,
        });
    }
    Ok(marks)
}

/// The mark of an op whose channels carry extras: named as the op without them, with no
/// unit of its own but its signal manager and the marks of the units inside it.
fn mark_managed(
    i: usize,
    node: &OpNode,
    op: &Operation,
    table: &PathTable,
    limits: &Limits,
) -> Result<UnitRef, Diagnostic> {
    let plain = mark_op(i, &managers::strip(node), op, table, limits)?;
    let mut m = UnitRef {
        path: None,
        builtin: None,
        extras: true,
        ..plain.clone()
    };
    let latency = match plain.builtin {
        Some(
            Builtin::Float { latency, .. }
            | Builtin::CmpF { latency, .. }
            | Builtin::FloatCast { latency, .. },
        ) => Some(latency),
        _ => None,
    };
    match managers::manager(node, latency, op, limits) {
        Ok(manager) => {
            let mut inner = Vec::new();
            for n in managers::inner_nodes(node, manager) {
                inner.push(mark_op(i, &n, op, table, limits)?);
            }
            m.no_path = None;
            m.managed = Some(Managed { manager, inner });
        }
        Err(why) => m.no_path = Some(why),
    }
    Ok(m)
}

fn mark_op(
    i: usize,
    node: &OpNode,
    op: &Operation,
    table: &PathTable,
    limits: &Limits,
) -> Result<UnitRef, Diagnostic> {
    let width_in = |k: usize| node.inputs.get(k).map_or(0, |p| p.ty.width);
    let width_out = |k: usize| node.outputs.get(k).map_or(0, |p| p.ty.width);
    let mut params = BTreeMap::new();
    let mut set = |k: &str, v: u32| {
        params.insert(k.to_string(), u64::from(v));
    };
    let kind = node.kind.as_str();
    let mut key = kind.to_string();
    let mut builtin = None;
    let mut no_builtin: Option<String> = None;
    let w = match kind {
        "select" => width_out(0),
        "constant" | "source" => width_out(0),
        "cond_br" => width_in(1),
        "mux" => {
            set("N", node.inputs.len().saturating_sub(1) as u32);
            set("S", width_in(0));
            width_out(0)
        }
        "control_merge" => {
            set("N", node.inputs.len() as u32);
            set("I", width_out(1));
            width_out(0)
        }
        "merge" | "join" => {
            set("N", node.inputs.len() as u32);
            width_in(0)
        }
        "fork" | "lazy_fork" => {
            set("N", node.outputs.len() as u32);
            width_in(0)
        }
        "extsi" | "extui" | "trunci" => {
            set("IN", width_in(0));
            set("OUT", width_out(0));
            width_in(0)
        }
        "load" | "store" => {
            set("A", width_in(0));
            width_in(1)
        }
        _ => width_in(0),
    };
    set("W", w);
    match kind {
        "cmpi" => {
            let pred = op
                .attr("predicate")
                .and_then(CmpPred::parse)
                .ok_or_else(|| Diagnostic::error(op.span, "cmpi without a known predicate"))?;
            key = format!("cmpi.{}", pred.as_str());
            builtin = Some(Builtin::Cmp { pred, width: w });
        }
        "constant" => {
            let float = matches!(
                op.attr("value"),
                Some(
                    Attribute::Float { .. }
                        | Attribute::Integer {
                            ty: Some(Type::Float(_)),
                            ..
                        }
                )
            );
            if let Some(value) = constant_value(op, w) {
                if !float && (value == 1 || (w == 1 && value == -1)) {
                    key = "constant.1".to_string();
                }
                builtin = Some(Builtin::Constant { width: w, value });
            }
            if float || builtin.is_none() {
                key = "constant.float".to_string();
            }
        }
        "buffer" => {
            let (ty, slots) = buffer_type(op);
            limits
                .check(Limit::Results, u64::from(slots))
                .map_err(|m| {
                    Diagnostic::error(op.span, format!("buffer slots: {m}"))
                        .with_code(Code::LimitExceeded)
                })?;
            set("SLOTS", slots);
            if slots >= 1 && (ty == "FIFO_BREAK_NONE" || ty == "FIFO_BREAK_DV") {
                builtin = Some(Builtin::Fifo {
                    slots,
                    width: w,
                    transparent: ty == "FIFO_BREAK_NONE",
                });
            }
            key = format!("buffer.{ty}");
        }
        "extsi" | "extui" => {
            if width_out(0) <= width_in(0) {
                return Err(Diagnostic::error(
                    op.span,
                    format!(
                        "{kind}: the result (i{}) must be wider than the operand (i{})",
                        width_out(0),
                        width_in(0)
                    ),
                ));
            }
            builtin = Some(Builtin::Ext {
                signed: kind == "extsi",
                from: width_in(0),
                to: width_out(0),
            });
        }
        "trunci" => {
            if width_out(0) >= width_in(0) {
                return Err(Diagnostic::error(
                    op.span,
                    format!(
                        "trunci: the result (i{}) must be narrower than the operand (i{})",
                        width_out(0),
                        width_in(0)
                    ),
                ));
            }
            builtin = Some(Builtin::Trunc {
                from: width_in(0),
                to: width_out(0),
            })
        }
        "cmpf" => {
            let pred = op
                .attr("predicate")
                .and_then(FCmpPred::parse)
                .ok_or_else(|| Diagnostic::error(op.span, "cmpf without a known predicate"))?;
            key = format!("cmpf.{}", pred.as_str());
            match fpu_latency(op, super::float_ops::cmpf_latency(w)) {
                Ok(latency) => {
                    builtin = Some(Builtin::CmpF {
                        pred,
                        width: w,
                        latency,
                    })
                }
                Err(why) => no_builtin = Some(why),
            }
        }
        "addf" | "subf" | "mulf" | "divf" | "maximumf" | "minimumf" => {
            let fop = FloatOp::from_kind(kind).unwrap_or(FloatOp::Add);
            let delay = op.attr("internal_delay").and_then(Attribute::as_str);
            match fpu_latency(op, super::float_ops::latency(fop, w, delay)) {
                Ok(latency) => {
                    builtin = Some(Builtin::Float {
                        op: fop,
                        width: w,
                        latency,
                    })
                }
                Err(why) => no_builtin = Some(why),
            }
        }
        k if FloatCast::from_kind(k).is_some() => {
            let fop = FloatCast::from_kind(k).unwrap_or(FloatCast::Neg);
            let (from, to) = (width_in(0), width_out(0));
            match super::float_ops::cast_latency(fop, from, to) {
                Ok(latency) => {
                    builtin = Some(Builtin::FloatCast {
                        op: fop,
                        from,
                        to,
                        latency,
                    })
                }
                Err(why) => no_builtin = Some(why),
            }
        }
        "select" => builtin = Some(Builtin::Select { width: w }),
        "join" => {
            builtin = Some(Builtin::Join {
                n: node.inputs.len() as u32,
            })
        }
        "not" | "noti" => builtin = Some(Builtin::Not { width: w }),
        "passer" => builtin = Some(Builtin::Passer { width: w }),
        "init" if w == 1 && width_out(0) == 1 => {
            builtin = init_token(op).map(|token| Builtin::Init { token })
        }
        "spec_v2_repeating_init" if w == 1 && width_out(0) == 1 => {
            builtin = Some(Builtin::RepeatingInit)
        }
        "spec_v2_resolver"
            if node.inputs.len() == 2
                && node.outputs.len() == 1
                && (node.inputs.iter().chain(&node.outputs)).all(|p| p.ty.width == 1) =>
        {
            builtin = Some(Builtin::Resolver)
        }
        k => {
            if let Some(op) = BinOp::from_kind(k) {
                builtin = Some(Builtin::Binary { op, width: w });
            }
        }
    }
    if kind == "noti" {
        key = "not".to_string();
    }
    if w == 0 {
        key.push_str(".dataless");
    }
    let extras = managers::has_extras(node);
    let (path, mut no_path) = match table.get(&key) {
        Some(t) => match expand(t, &params) {
            Ok(p) => (Some(p), None),
            Err(e) => (None, Some(e)),
        },
        None if kind == "lsq" => (None, Some(LSQ_WHY.to_string())),
        None => (None, Some(format!("no path-table entry `{key}`"))),
    };
    if let Some(why) = no_builtin {
        no_path = Some(match no_path {
            Some(p) => format!("{p}; no built-in: {why}"),
            None => format!("no built-in: {why}"),
        });
    }
    Ok(UnitRef {
        op: i,
        name: node.name.clone(),
        kind: node.kind.clone(),
        key,
        params,
        path,
        no_path,
        builtin,
        extras,
        managed: None,
        template: None,
        template_about: None,
        span: node.span,
    })
}

/// The `value` of a `constant` of `width` bits as the integer its bits spell (booleans are
/// 0/1; an `f32`/`f64` value its IEEE-754 pattern, the decimal rounded to nearest even as
/// Rust's parser does, or a hexadecimal literal's bits); `None` for anything else (a
/// half-precision float, a float whose type is not the channel's width), which falls back
/// to a subcircuit.
fn constant_value(op: &Operation, width: u32) -> Option<i128> {
    match op.attr("value") {
        Some(Attribute::Integer {
            value,
            ty: Some(Type::Float(fw)),
        }) => (*fw == width && matches!(fw, 32 | 64) && *value >= 0 && *value >> fw == 0)
            .then_some(*value),
        Some(Attribute::Integer { value, .. }) => Some(*value),
        Some(Attribute::Bool(b)) => Some(i128::from(*b)),
        Some(Attribute::Float {
            text,
            ty: Some(Type::Float(fw)),
        }) if *fw == width => float_bits(text, *fw),
        _ => None,
    }
}

/// A float unit's latency, unless the op asks for the Vivado cores (`fpu_impl`), whose
/// latencies are not known here (FloPoCo, Dynamatic's default, otherwise).
fn fpu_latency(op: &Operation, latency: Result<u32, String>) -> Result<u32, String> {
    let vivado = match op.attr("fpu_impl") {
        Some(Attribute::Opaque(t)) => t.contains("vivado"),
        Some(a) => a.as_str().is_some_and(|t| t.contains("vivado")),
        None => false,
    };
    if vivado {
        return Err("`fpu_impl` is vivado: the built-in units time as the FloPoCo cores".into());
    }
    latency
}

/// An `init`'s first token: `initToken`, or `INITIAL_TOKEN` of `hw.parameters` (0 when
/// neither is given, as Dynamatic's default); `None` for a value that is not a bit, and for
/// the form whose parameters name a `BUFFER_TYPE` (an initial token held in a buffer slot:
/// another unit, not the generator's).
fn init_token(op: &Operation) -> Option<bool> {
    let params = match op.attr("hw.parameters") {
        Some(Attribute::Dict(d)) => d.as_slice(),
        _ => &[],
    };
    if params.iter().any(|a| a.name == "BUFFER_TYPE") {
        return None;
    }
    let given = op.attr("initToken").or_else(|| {
        params
            .iter()
            .find(|a| a.name == "INITIAL_TOKEN")
            .map(|a| &a.value)
    });
    match given {
        None => Some(false),
        Some(a) => match a.as_int() {
            Some(0) => Some(false),
            Some(1) => Some(true),
            _ => None,
        },
    }
}

/// The IEEE-754 bits of the decimal float literal `text` in `width` bits (32 or 64).
fn float_bits(text: &str, width: u32) -> Option<i128> {
    let t = text.trim();
    match width {
        32 => t.parse::<f32>().ok().map(|v| i128::from(v.to_bits())),
        64 => t.parse::<f64>().ok().map(|v| i128::from(v.to_bits())),
        _ => None,
    }
}

/// The buffer type and slot count, from any of the four syntaxes (notes §8.1).
pub(crate) fn buffer_type(op: &Operation) -> (String, u32) {
    let params = match op.attr("hw.parameters") {
        Some(Attribute::Dict(d)) => d.as_slice(),
        _ => &[],
    };
    let param = |n: &str| params.iter().find(|a| a.name == n).map(|a| &a.value);
    let slots = op
        .attr("numSlots")
        .or_else(|| param("NUM_SLOTS"))
        .and_then(Attribute::as_int)
        .and_then(|v| u32::try_from(v).ok())
        .unwrap_or(1);
    let explicit = op
        .attr("bufferType")
        .or_else(|| param("BUFFER_TYPE"))
        .and_then(|a| a.as_str().map(str::to_string));
    if let Some(t) = explicit {
        return (t, slots);
    }
    let timing = match param("TIMING") {
        Some(Attribute::Opaque(t)) => t.as_str(),
        Some(Attribute::String(t)) => t.as_str(),
        _ => "",
    };
    (timing_type(timing, slots).to_string(), slots)
}

/// Legacy `TIMING = #handshake<timing {D: 1, V: 1, R: 0}>` → buffer type.
fn timing_type(timing: &str, slots: u32) -> &'static str {
    let lat = |k: &str| {
        let pat = format!("{k}:");
        timing
            .find(&pat)
            .map(|at| &timing[at + pat.len()..])
            .and_then(|rest| {
                rest.trim_start()
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .and_then(|d| d.parse::<u32>().ok())
            })
            .unwrap_or(0)
    };
    let dv = lat("D") > 0 || lat("V") > 0;
    let r = lat("R") > 0;
    match (dv, r, slots > 1) {
        (true, true, _) => "ONE_SLOT_BREAK_DVR",
        (true, false, false) => "ONE_SLOT_BREAK_DV",
        (true, false, true) => "FIFO_BREAK_DV",
        (false, true, _) => "ONE_SLOT_BREAK_R",
        (false, false, true) => "FIFO_BREAK_NONE",
        (false, false, false) => "UNKNOWN",
    }
}

fn port(name: &str, width: u32) -> PortSpec {
    PortSpec {
        name: name.to_string(),
        ty: PortType::channel(width),
    }
}

/// The bundled ports of a built-in unit (same names as the library's).
pub(crate) fn ports(b: &Builtin) -> (Vec<PortSpec>, Vec<PortSpec>) {
    match *b {
        Builtin::Constant { width, .. } => (vec![port("ctrl", 0)], vec![port("outs", width)]),
        Builtin::Cmp { width, .. } => (
            vec![port("lhs", width), port("rhs", width)],
            vec![port("result", 1)],
        ),
        Builtin::Binary { width, .. } | Builtin::Float { width, .. } => (
            vec![port("lhs", width), port("rhs", width)],
            vec![port("result", width)],
        ),
        Builtin::CmpF { width, .. } => (
            vec![port("lhs", width), port("rhs", width)],
            vec![port("result", 1)],
        ),
        Builtin::Ext { from, to, .. }
        | Builtin::Trunc { from, to }
        | Builtin::FloatCast { from, to, .. } => (vec![port("ins", from)], vec![port("outs", to)]),
        Builtin::Not { width } => (vec![port("ins", width)], vec![port("outs", width)]),
        Builtin::Select { width } => (
            vec![
                port("condition", 1),
                port("trueValue", width),
                port("falseValue", width),
            ],
            vec![port("result", width)],
        ),
        Builtin::Join { n } => {
            let names = super::names::group_names("ins", n as usize);
            (
                names.iter().map(|s| port(s, 0)).collect(),
                vec![port("outs", 0)],
            )
        }
        Builtin::Fifo { width, .. } => (vec![port("ins", width)], vec![port("outs", width)]),
        Builtin::Passer { width } => (
            vec![port("data", width), port("ctrl", 1)],
            vec![port("result", width)],
        ),
        Builtin::Init { .. } | Builtin::RepeatingInit => {
            (vec![port("ins", 1)], vec![port("outs", 1)])
        }
        Builtin::Resolver => (
            vec![port("ins[0]", 1), port("ins[1]", 1)],
            vec![port("outs", 1)],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bits a constant with `value` spells in a channel of `width` bits.
    fn constant_bits(value: &str, width: u32) -> Option<i128> {
        let m = crate::mlir::parse(&format!("\"t.c\"() {{value = {value}}} : () -> ()")).unwrap();
        constant_value(&m.ops[0], width)
    }

    /// An `init`'s token from either spelling; the buffered form is not the generator's.
    #[test]
    fn init_tokens() {
        let token = |attrs: &str| {
            let m = crate::mlir::parse(&format!("\"t.i\"() {{{attrs}}} : () -> ()")).unwrap();
            init_token(&m.ops[0])
        };
        assert_eq!(token("initToken = 0 : ui1"), Some(false));
        assert_eq!(token("initToken = 1 : ui1"), Some(true));
        assert_eq!(token("x = 1"), Some(false));
        assert_eq!(
            token("hw.parameters = {INITIAL_TOKEN = 1 : i1}"),
            Some(true)
        );
        assert_eq!(
            token("hw.parameters = {INITIAL_TOKEN = 0 : i1, BUFFER_TYPE = \"ONE_SLOT_BREAK_DV\"}"),
            None
        );
        assert_eq!(token("initToken = 2 : ui2"), None);
    }

    /// Float constants are their IEEE-754 patterns (decimal literals rounded to nearest even,
    /// as Rust's parser rounds; hexadecimal literals as written); a half-precision value or
    /// a type that is not the channel's width has none.
    #[test]
    fn float_constants_are_their_bit_patterns() {
        let f32b = |v: f32| Some(i128::from(v.to_bits()));
        assert_eq!(constant_bits("1.000000e+00 : f32", 32), Some(0x3F80_0000));
        assert_eq!(constant_bits("-2.000000e+00 : f32", 32), Some(0xC000_0000));
        assert_eq!(constant_bits("3.70476198 : f32", 32), f32b(3.704_762));
        assert_eq!(constant_bits("0.000000e+00 : f32", 32), Some(0));
        assert_eq!(constant_bits("-0.000000e+00 : f32", 32), Some(0x8000_0000));
        // A decimal between two f32 values rounds to the nearer (ties to even).
        assert_eq!(constant_bits("16777217.0 : f32", 32), f32b(16_777_216.0));
        assert_eq!(
            constant_bits("1.000000e-01 : f64", 64),
            Some(0x3FB9_9999_9999_999A)
        );
        assert_eq!(constant_bits("0x7FC00000 : f32", 32), Some(0x7FC0_0000));
        assert_eq!(constant_bits("1.000000e+00 : f16", 16), None);
        assert_eq!(constant_bits("1.000000e+00 : f32", 64), None);
        assert_eq!(constant_bits("0x1FFFFFFFF : f32", 32), None);
        // Integers as before.
        assert_eq!(constant_bits("-3 : i8", 8), Some(-3));
    }

    /// `fpu_impl = vivado` keeps a float op opaque (its cores' latencies are unknown).
    #[test]
    fn vivado_floats_have_no_builtin() {
        let op = |attrs: &str| {
            let m = crate::mlir::parse(&format!("\"t.f\"() {{{attrs}}} : () -> ()")).unwrap();
            m.ops[0].clone()
        };
        let vivado = op("fpu_impl = #handshake<fpu_impl vivado>");
        let e = fpu_latency(&vivado, Ok(10)).unwrap_err();
        assert!(e.contains("vivado"), "{e}");
        let flopoco = op("fpu_impl = #handshake<fpu_impl flopoco>");
        assert_eq!(fpu_latency(&flopoco, Ok(10)), Ok(10));
        assert_eq!(fpu_latency(&op("x = 1"), Ok(2)), Ok(2));
    }

    #[test]
    fn timing_maps_to_types() {
        assert_eq!(
            timing_type("#handshake<timing {D: 1, V: 1, R: 0}>", 1),
            "ONE_SLOT_BREAK_DV"
        );
        assert_eq!(
            timing_type("#handshake<timing {R: 1}>", 1),
            "ONE_SLOT_BREAK_R"
        );
        assert_eq!(
            timing_type("#handshake<timing {R: 0}>", 4),
            "FIFO_BREAK_NONE"
        );
        assert_eq!(
            timing_type("#handshake<timing {D: 1, V: 1, R: 0}>", 3),
            "FIFO_BREAK_DV"
        );
    }

    #[test]
    fn predicates_parse_by_name_and_number() {
        assert_eq!(
            CmpPred::parse(&Attribute::Keyword("sle".into())),
            Some(CmpPred::Sle)
        );
        assert_eq!(
            CmpPred::parse(&Attribute::String("ult".into())),
            Some(CmpPred::Ult)
        );
        assert_eq!(
            CmpPred::parse(&Attribute::Integer { value: 1, ty: None }),
            Some(CmpPred::Ne)
        );
        assert_eq!(CmpPred::parse(&Attribute::Keyword("foo".into())), None);
    }
}
