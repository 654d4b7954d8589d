//! Which floating-point ops have a built-in unit, and their latencies (Dynamatic's): what
//! marking a circuit needs to know about them ([`super::mark`]), apart from how the units are
//! built ([`super::float`]).

use crate::mlir::ast::Attribute;
use serde::{Deserialize, Serialize};

/// The float arithmetic with a built-in unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
    /// `maximumf`: IEEE 754-2019 maximum (a NaN operand gives NaN, `-0 < +0`).
    Max,
    /// `minimumf`, likewise.
    Min,
}

impl FloatOp {
    pub const ALL: [FloatOp; 6] = [
        FloatOp::Add,
        FloatOp::Sub,
        FloatOp::Mul,
        FloatOp::Div,
        FloatOp::Max,
        FloatOp::Min,
    ];

    pub fn kind(self) -> &'static str {
        ["addf", "subf", "mulf", "divf", "maximumf", "minimumf"][self as usize]
    }

    pub(crate) fn from_kind(k: &str) -> Option<FloatOp> {
        FloatOp::ALL.iter().copied().find(|o| o.kind() == k)
    }
}

/// `arith.cmpf` predicates, in MLIR's numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum FCmpPred {
    False,
    Oeq,
    Ogt,
    Oge,
    Olt,
    Ole,
    One,
    Ord,
    Ueq,
    Ugt,
    Uge,
    Ult,
    Ule,
    Une,
    Uno,
    True,
}

impl FCmpPred {
    pub const ALL: [FCmpPred; 16] = [
        FCmpPred::False,
        FCmpPred::Oeq,
        FCmpPred::Ogt,
        FCmpPred::Oge,
        FCmpPred::Olt,
        FCmpPred::Ole,
        FCmpPred::One,
        FCmpPred::Ord,
        FCmpPred::Ueq,
        FCmpPred::Ugt,
        FCmpPred::Uge,
        FCmpPred::Ult,
        FCmpPred::Ule,
        FCmpPred::Une,
        FCmpPred::Uno,
        FCmpPred::True,
    ];

    pub fn as_str(self) -> &'static str {
        [
            "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
            "ule", "une", "uno", "true",
        ][self as usize]
    }

    /// By name (keyword or string) or by MLIR's number.
    pub(crate) fn parse(a: &Attribute) -> Option<FCmpPred> {
        match a {
            Attribute::Integer { value, .. } => {
                FCmpPred::ALL.get(usize::try_from(*value).ok()?).copied()
            }
            _ => {
                let s = a.as_str()?;
                FCmpPred::ALL.iter().copied().find(|p| p.as_str() == s)
            }
        }
    }
}

/// The FloPoCo architectures of Dynamatic's `addf.vhd`/`mulf.vhd`: (width, `internal_delay`,
/// latency = the `delay_buffer` size + 1 = the core's pipeline stages).
const ARCHS: [(FloatOp, u32, &str, u32); 19] = [
    (FloatOp::Add, 64, "2_705000", 12),
    (FloatOp::Add, 64, "5_091333", 7),
    (FloatOp::Add, 64, "9_068000", 2),
    (FloatOp::Add, 32, "2_798000", 36),
    (FloatOp::Add, 32, "2_922000", 10),
    (FloatOp::Add, 32, "3_649333", 6),
    (FloatOp::Mul, 32, "2_034000", 26),
    (FloatOp::Mul, 32, "2_783000", 4),
    (FloatOp::Mul, 32, "2_875333", 2),
    (FloatOp::Mul, 64, "2_046000", 56),
    (FloatOp::Mul, 64, "2_758000", 6),
    (FloatOp::Mul, 64, "4_242333", 3),
    (FloatOp::Div, 64, "4_345000", 63),
    (FloatOp::Div, 64, "4_398000", 36),
    (FloatOp::Div, 64, "6_859333", 20),
    (FloatOp::Div, 64, "16_008000", 6),
    (FloatOp::Div, 32, "3_812000", 15),
    (FloatOp::Div, 32, "6_629333", 9),
    (FloatOp::Div, 32, "14_152000", 2),
];

/// The latency (cycles) of Dynamatic's FloPoCo unit for `op` on `width` bits: `addf`,
/// `mulf` and `divf` by the architecture `internal_delay` names, `subf` fixed (9 on f32, 12
/// on f64); `maximumf`/`minimumf` 1 (their Verilog template's `delay_buffer` of one stage).
/// `Err` says why there is none (a width other than 32 and 64, an unknown architecture).
pub fn latency(op: FloatOp, width: u32, internal_delay: Option<&str>) -> Result<u32, String> {
    if width != 32 && width != 64 {
        return Err(format!(
            "{} on {width} bits has no built-in unit (f32 and f64 only)",
            op.kind()
        ));
    }
    match op {
        FloatOp::Sub => return Ok(if width == 32 { 9 } else { 12 }),
        FloatOp::Max | FloatOp::Min => return Ok(1),
        _ => {}
    }
    let Some(delay) = internal_delay else {
        return Err(format!(
            "{} without `internal_delay`: Dynamatic picks the FloPoCo architecture by it",
            op.kind()
        ));
    };
    let known: Vec<&str> = (ARCHS.iter())
        .filter(|a| a.0 == op && a.1 == width)
        .map(|a| a.2)
        .collect();
    ARCHS
        .iter()
        .find(|a| a.0 == op && a.1 == width && a.2 == delay)
        .map(|a| a.3)
        .ok_or_else(|| {
            format!(
                "{} on f{width}: `internal_delay = \"{delay}\"` names no FloPoCo architecture of Dynamatic's library (known: {})",
                op.kind(),
                known.join(", ")
            )
        })
}

/// The latency of Dynamatic's FloPoCo `cmpf`: 0 on f32 (join only), 1 on f64 (an oehb).
pub fn cmpf_latency(width: u32) -> Result<u32, String> {
    match width {
        32 => Ok(0),
        64 => Ok(1),
        w => Err(format!(
            "cmpf on {w} bits has no built-in unit (f32 and f64 only)"
        )),
    }
}

/// The one-operand float units (`ins` → `outs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum FloatCast {
    /// The sign bit flipped (NaNs keep their payload, as Rust's `-x`). Dynamatic's
    /// `negf.v` declares `ins_ready` an input and `outs_ready` an output (swapped, a bug):
    /// here, as in `absf.v`, `outs_ready` is the input and `ins_ready` the output it drives.
    Neg,
    /// f32 → f64 (exact).
    Ext,
    /// f64 → f32, rounded to nearest even.
    Trunc,
    /// A signed integer → float, rounded to nearest even.
    SiToFp,
    /// An unsigned integer → float, rounded to nearest even.
    UiToFp,
    /// Float → signed integer, rounded toward zero; out of range saturates to the nearest
    /// bound and a NaN saturates by its sign bit (`INT_MAX`, or `INT_MIN` when set), as
    /// Dynamatic's `fptosi.v` (its `e > 30` case) does; Rust's `as` gives 0 for NaN.
    FpToSi,
}

impl FloatCast {
    pub const ALL: [FloatCast; 6] = [
        FloatCast::Neg,
        FloatCast::Ext,
        FloatCast::Trunc,
        FloatCast::SiToFp,
        FloatCast::UiToFp,
        FloatCast::FpToSi,
    ];

    pub fn kind(self) -> &'static str {
        ["negf", "extf", "truncf", "sitofp", "uitofp", "fptosi"][self as usize]
    }

    pub(crate) fn from_kind(k: &str) -> Option<FloatCast> {
        FloatCast::ALL.iter().copied().find(|o| o.kind() == k)
    }
}

/// The latency of the unit for `op` from `from` to `to` bits, as Dynamatic's Verilog
/// templates time it: 0 (combinational) for `negf`, `extf` and `truncf`, 5 for the
/// conversions (`delay_buffer` of 4 and an `oehb`). `Err` says why there is none: floats
/// are f32 or f64, integers i32 or i64.
pub fn cast_latency(op: FloatCast, from: u32, to: u32) -> Result<u32, String> {
    let fp = |w: u32| w == 32 || w == 64;
    let ok = match op {
        FloatCast::Neg => from == to && fp(from),
        FloatCast::Ext => (from, to) == (32, 64),
        FloatCast::Trunc => (from, to) == (64, 32),
        FloatCast::SiToFp | FloatCast::UiToFp | FloatCast::FpToSi => fp(from) && fp(to),
    };
    if !ok {
        return Err(format!(
            "{} from {from} to {to} bits has no built-in unit (f32/f64, i32/i64 only)",
            op.kind()
        ));
    }
    Ok(match op {
        FloatCast::Neg | FloatCast::Ext | FloatCast::Trunc => 0,
        _ => 5,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Latencies from Dynamatic's FloPoCo architectures; the reasons for the others.
    #[test]
    fn latencies_and_fallback_reasons() {
        assert_eq!(latency(FloatOp::Add, 32, Some("2_922000")), Ok(10));
        assert_eq!(latency(FloatOp::Mul, 32, Some("2_875333")), Ok(2));
        assert_eq!(latency(FloatOp::Mul, 64, Some("2_046000")), Ok(56));
        assert_eq!(latency(FloatOp::Sub, 32, Some("2_000000")), Ok(9));
        assert_eq!(latency(FloatOp::Sub, 64, None), Ok(12));
        assert_eq!(latency(FloatOp::Div, 32, Some("3_812000")), Ok(15));
        assert_eq!(latency(FloatOp::Div, 64, Some("4_345000")), Ok(63));
        assert_eq!(latency(FloatOp::Max, 64, None), Ok(1));
        assert_eq!(cmpf_latency(32), Ok(0));
        assert_eq!(cmpf_latency(64), Ok(1));
        assert_eq!(cast_latency(FloatCast::Neg, 64, 64), Ok(0));
        assert_eq!(cast_latency(FloatCast::Trunc, 64, 32), Ok(0));
        assert_eq!(cast_latency(FloatCast::SiToFp, 64, 32), Ok(5));
        let e = cast_latency(FloatCast::Ext, 16, 32).unwrap_err();
        assert!(e.contains("extf from 16 to 32 bits"), "{e}");
        assert!(cast_latency(FloatCast::FpToSi, 32, 8).is_err());
        let e = latency(FloatOp::Add, 16, Some("2_922000")).unwrap_err();
        assert!(
            e.contains("16 bits") && e.contains("f32 and f64 only"),
            "{e}"
        );
        let e = latency(FloatOp::Add, 64, Some("2_922000")).unwrap_err();
        assert!(e.contains("2_705000, 5_091333, 9_068000"), "{e}");
        let e = latency(FloatOp::Mul, 32, None).unwrap_err();
        assert!(e.contains("internal_delay"), "{e}");
        assert!(cmpf_latency(16).is_err());
    }

    #[test]
    fn predicates_parse_by_name_and_number() {
        assert_eq!(
            FCmpPred::parse(&Attribute::Keyword("oge".into())),
            Some(FCmpPred::Oge)
        );
        assert_eq!(
            FCmpPred::parse(&Attribute::Integer {
                value: 14,
                ty: None
            }),
            Some(FCmpPred::Uno)
        );
        assert_eq!(FCmpPred::parse(&Attribute::Keyword("slt".into())), None);
    }
}
