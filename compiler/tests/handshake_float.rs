//! The built-in float units (`compiler::handshake::float`) against Rust's `f32`/`f64`:
//! each data path (`float::core`) on at least 100,000 operand pairs per unit and precision
//! (special values crossed, random bit patterns, nearby exponents, rounding ties,
//! cancellations, subnormals, values near overflow), evaluated 64 vectors at a time with
//! `Net::eval64`, bit for bit; a NaN result must be the canonical quiet NaN. Then the
//! handshake: each unit cycle by cycle against a model of Dynamatic's FloPoCo wrapper, a
//! token stream with back-pressure, and (with yosys and ABC) the wrapper proved equal to
//! Dynamatic's own `join_type`, `delay_buffer` and `oehb_dataless`.

mod common;

use common::Rng;

use compiler::handshake::builtin::generate;
use compiler::handshake::float::{self, FCmpPred, FloatCast, FloatOp};
use compiler::handshake::mark::Builtin;
use compiler::handshake::net::Net;
use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

/// At least this many vectors per unit and precision (in CI: about 3 s for all units).
const VECTORS: usize = 100_000;

/// The long run's (`--ignored`): ten times as many, other seeds.
const LONG: usize = 1_000_000;

#[derive(Clone, Copy)]
struct Fmt {
    width: u32,
    exp: u32,
    man: u32,
}

const F32: Fmt = Fmt {
    width: 32,
    exp: 8,
    man: 23,
};
const F64: Fmt = Fmt {
    width: 64,
    exp: 11,
    man: 52,
};

impl Fmt {
    fn mask(self) -> u64 {
        if self.width == 64 {
            u64::MAX
        } else {
            (1 << self.width) - 1
        }
    }

    fn bias(self) -> u64 {
        (1 << (self.exp - 1)) - 1
    }

    fn max_exp(self) -> u64 {
        (1 << self.exp) - 1
    }

    fn make(self, sign: u64, exp: u64, frac: u64) -> u64 {
        ((sign & 1) << (self.width - 1))
            | ((exp & self.max_exp()) << self.man)
            | (frac & ((1 << self.man) - 1))
    }

    fn canonical_nan(self) -> u64 {
        self.make(0, self.max_exp(), 1 << (self.man - 1))
    }

    fn specials(self) -> Vec<u64> {
        let m = self.man;
        let top = self.max_exp();
        let mut v = Vec::new();
        for s in 0..2 {
            v.extend([
                self.make(s, 0, 0),                          // zero
                self.make(s, 0, 1),                          // smallest subnormal
                self.make(s, 0, 2),                          //
                self.make(s, 0, (1 << m) - 1),               // largest subnormal
                self.make(s, 0, 1 << (m - 1)),               //
                self.make(s, 1, 0),                          // smallest normal
                self.make(s, 1, 1),                          //
                self.make(s, self.bias(), 0),                // 1
                self.make(s, self.bias(), 1),                // 1 + ulp
                self.make(s, self.bias() - 1, (1 << m) - 1), // 1 - ulp/2
                self.make(s, self.bias() + 1, 1 << (m - 1)), // 3
                self.make(s, top - 1, (1 << m) - 1),         // largest finite
                self.make(s, top - 1, (1 << m) - 2),         //
                self.make(s, top - 1, 0),                    //
                self.make(s, top, 0),                        // infinity
                self.make(s, top, 1 << (m - 1)),             // quiet NaN
                self.make(s, top, 1),                        // signalling NaN
                self.make(s, top, (1 << m) - 1),             // NaN with payload
            ]);
        }
        v
    }

    fn random_frac(self, rng: &mut Rng) -> u64 {
        match rng.below(4) {
            // Few bits set: exact sums and ties.
            0 => 1 << rng.below(u64::from(self.man)),
            1 => (1 << self.man) - 1 - (rng.next() & 7),
            _ => rng.next(),
        }
    }
}

/// The operand pairs for `fmt` (and `op`, to aim cancellations and products): specials
/// crossed, then mixtures until `VECTORS`.
fn vectors(fmt: Fmt, op: Option<FloatOp>, seed: u64) -> Vec<(u64, u64)> {
    vectors_n(fmt, op, seed, VECTORS)
}

/// [`vectors`], `n` of them.
fn vectors_n(fmt: Fmt, op: Option<FloatOp>, seed: u64, n: usize) -> Vec<(u64, u64)> {
    let mut rng = Rng(seed);
    let sp = fmt.specials();
    let mut v: Vec<(u64, u64)> = sp
        .iter()
        .flat_map(|&a| sp.iter().map(move |&b| (a, b)))
        .collect();
    let (m, bias, top) = (u64::from(fmt.man), fmt.bias(), fmt.max_exp());
    let mul = op == Some(FloatOp::Mul);
    let div = op == Some(FloatOp::Div);
    let flip = if op == Some(FloatOp::Sub) {
        0
    } else {
        1 << (fmt.width - 1)
    };
    while v.len() < n {
        let a = rng.next() & fmt.mask();
        let sign = rng.next();
        let pair = match rng.below(8) {
            // Random bit patterns.
            0 => (a, rng.next() & fmt.mask()),
            // One operand special.
            1 => (a, sp[rng.below(sp.len() as u64) as usize]),
            // Nearby exponents (alignment, guard/round/sticky, ties).
            2 => {
                let ea = 1 + rng.below(top - 1);
                let eb = ea.saturating_sub(rng.below(m + 5));
                let x = fmt.make(sign, ea, fmt.random_frac(&mut rng));
                (x, fmt.make(sign >> 1, eb, fmt.random_frac(&mut rng)))
            }
            // Cancellation: a + (-a), or a few low bits changed (a - a for subf).
            3 => {
                let low = if rng.below(4) == 0 {
                    0
                } else {
                    rng.next() & 0xff
                };
                (a, a ^ low ^ flip)
            }
            // Subnormals and the smallest normals.
            4 => {
                let x = fmt.make(sign, rng.below(3), rng.next());
                let y = fmt.make(sign >> 1, rng.below(3), rng.next());
                (x, y)
            }
            // Near overflow.
            5 => {
                let x = fmt.make(sign, top - 1 - rng.below(3), fmt.random_frac(&mut rng));
                let y = fmt.make(sign >> 1, top - 1 - rng.below(3), fmt.random_frac(&mut rng));
                (x, y)
            }
            // Products around the subnormal and overflow boundaries.
            6 if mul => {
                let ea = 1 + rng.below(top - 1);
                let target = if rng.below(2) == 0 {
                    // ea + eb - bias near 0 (subnormal products).
                    rng.below(m + 6)
                } else {
                    top - 3 + rng.below(5)
                };
                let eb = (target + bias).saturating_sub(ea).min(top - 1);
                let x = fmt.make(sign, ea, fmt.random_frac(&mut rng));
                (x, fmt.make(sign >> 1, eb, fmt.random_frac(&mut rng)))
            }
            // Quotients around the subnormal and overflow boundaries, and exact quotients.
            6 | 7 if div => {
                let eb = 1 + rng.below(top - 1);
                let target = match rng.below(3) {
                    0 => rng.below(m + 6),
                    1 => top - 3 + rng.below(5),
                    _ => 1 + rng.below(top - 1),
                };
                let ea = (target + eb).saturating_sub(bias).clamp(1, top - 1);
                let y = fmt.make(sign >> 1, eb, fmt.random_frac(&mut rng));
                let x = fmt.make(sign, ea, fmt.random_frac(&mut rng));
                if rng.below(3) == 0 {
                    // x = y * k exactly (k a small integer), or the product rounded.
                    (exact_multiple(fmt, y, 1 + rng.below(64)), y)
                } else {
                    (x, y)
                }
            }
            // Exact halves: a + b with b half an ulp of a (ties to even).
            _ => {
                let ea = (m + 2) + rng.below(top - m - 3);
                let x = fmt.make(sign, ea, rng.next());
                let k = m + 1 - rng.below(2);
                let frac = if rng.below(2) == 0 { 0 } else { rng.next() };
                (x, fmt.make(sign >> 1, ea - k, frac))
            }
        };
        v.push(pair);
    }
    v
}

/// `y * k` in `fmt` (rounded as Rust rounds it).
fn exact_multiple(fmt: Fmt, y: u64, k: u64) -> u64 {
    if fmt.width == 32 {
        u64::from((f32::from_bits(y as u32) * k as f32).to_bits())
    } else {
        (f64::from_bits(y) * k as f64).to_bits()
    }
}

/// `net` (inputs `lhs[..]` then `rhs[..]`) on every pair, 64 at a time: the result words.
fn run_core(net: &Net, fmt: Fmt, pairs: &[(u64, u64)]) -> Vec<u64> {
    let w = fmt.width as usize;
    run_net(net, &[w, w], pairs)
}

/// `net` with operands of `widths` (one or two) on every pair (the second word unused by a
/// one-operand net), 64 at a time: the result words.
fn run_net(net: &Net, widths: &[usize], pairs: &[(u64, u64)]) -> Vec<u64> {
    let w = widths[0];
    let n: usize = widths.iter().sum();
    assert_eq!(net.inputs.len(), n);
    let mut out = Vec::with_capacity(pairs.len());
    for chunk in pairs.chunks(64) {
        let mut ins = vec![0u64; n];
        for (k, &(a, b)) in chunk.iter().enumerate() {
            for (i, word) in ins.iter_mut().enumerate() {
                let bit = if i < w { a >> i } else { b >> (i - w) };
                *word |= (bit & 1) << k;
            }
        }
        let (o, _) = net.eval64(&ins, &[]);
        for k in 0..chunk.len() {
            let v =
                (o.iter().enumerate()).fold(0u64, |acc, (i, word)| acc | (((word >> k) & 1) << i));
            out.push(v);
        }
    }
    out
}

/// IEEE 754-2019 `maximum` (`max`) or `minimum` of non-NaN operands, by hand (Rust's
/// `f32::maximum` is unstable): `-0 < +0`, otherwise as `<`.
fn extremum<T: PartialOrd + Copy>(x: T, y: T, x_neg: bool, y_neg: bool, max: bool) -> T {
    let less = if x == y { x_neg && !y_neg } else { x < y };
    if less == max { y } else { x }
}

/// Rust's result bits of `op` (NaN as `None`).
fn reference(op: FloatOp, fmt: Fmt, a: u64, b: u64) -> Option<u64> {
    let signs = (a >> (fmt.width - 1) == 1, b >> (fmt.width - 1) == 1);
    let max = op == FloatOp::Max;
    if fmt.width == 32 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let r = match op {
            FloatOp::Add => x + y,
            FloatOp::Sub => x - y,
            FloatOp::Mul => x * y,
            FloatOp::Div => x / y,
            _ if x.is_nan() || y.is_nan() => f32::NAN,
            _ => extremum(x, y, signs.0, signs.1, max),
        };
        (!r.is_nan()).then_some(u64::from(r.to_bits()))
    } else {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let r = match op {
            FloatOp::Add => x + y,
            FloatOp::Sub => x - y,
            FloatOp::Mul => x * y,
            FloatOp::Div => x / y,
            _ if x.is_nan() || y.is_nan() => f64::NAN,
            _ => extremum(x, y, signs.0, signs.1, max),
        };
        (!r.is_nan()).then_some(r.to_bits())
    }
}

/// Rust's result bits of the one-operand `op` from `from` to `to` bits on `a` (a NaN
/// result as `None`, but `negf` keeps the payload); `fptosi` of a NaN saturates by its
/// sign bit (Dynamatic's `fptosi.v`), otherwise Rust's `as`.
fn cast_reference(op: FloatCast, from: u32, to: u32, a: u64) -> Option<u64> {
    let fp = |bits: u64, w: u32| -> f64 {
        if w == 32 {
            f64::from(f32::from_bits(bits as u32))
        } else {
            f64::from_bits(bits)
        }
    };
    // A value to `to` bits: f32 rounds once from the exact value (f64 here holds it exactly
    // for f32 sources; f64 → f32 is one `as`).
    let pack = |v: f64| -> Option<u64> {
        match (v.is_nan(), to) {
            (true, _) => None,
            (_, 32) => Some(u64::from((v as f32).to_bits())),
            _ => Some(v.to_bits()),
        }
    };
    let mask = |v: u64| if to == 64 { v } else { v & 0xffff_ffff };
    match op {
        FloatCast::Neg => Some(a ^ (1 << (from - 1))),
        FloatCast::Ext | FloatCast::Trunc => pack(fp(a, from)),
        FloatCast::SiToFp | FloatCast::UiToFp => {
            let bits = match (op, from, to) {
                (FloatCast::SiToFp, 32, 32) => u64::from((a as u32 as i32 as f32).to_bits()),
                (FloatCast::SiToFp, 32, _) => (a as u32 as i32 as f64).to_bits(),
                (FloatCast::SiToFp, _, 32) => u64::from((a as i64 as f32).to_bits()),
                (FloatCast::SiToFp, _, _) => (a as i64 as f64).to_bits(),
                (_, 32, 32) => u64::from((a as u32 as f32).to_bits()),
                (_, 32, _) => (a as u32 as f64).to_bits(),
                (_, _, 32) => u64::from((a as f32).to_bits()),
                _ => (a as f64).to_bits(),
            };
            Some(bits)
        }
        FloatCast::FpToSi => {
            let v = fp(a, from);
            let neg = a >> (from - 1) == 1;
            let r = match (v.is_nan(), to) {
                (true, 32) => i64::from(if neg { i32::MIN } else { i32::MAX }),
                (true, _) => {
                    if neg {
                        i64::MIN
                    } else {
                        i64::MAX
                    }
                }
                (_, 32) => i64::from(v as i32),
                _ => v as i64,
            };
            Some(mask(r as u64))
        }
    }
}

fn compare_reference(pred: FCmpPred, fmt: Fmt, a: u64, b: u64) -> bool {
    let (x, y) = if fmt.width == 32 {
        (
            f64::from(f32::from_bits(a as u32)),
            f64::from(f32::from_bits(b as u32)),
        )
    } else {
        (f64::from_bits(a), f64::from_bits(b))
    };
    let uno = x.is_nan() || y.is_nan();
    match pred {
        FCmpPred::False => false,
        FCmpPred::Oeq => x == y,
        FCmpPred::Ogt => x > y,
        FCmpPred::Oge => x >= y,
        FCmpPred::Olt => x < y,
        FCmpPred::Ole => x <= y,
        FCmpPred::One => !uno && x != y,
        FCmpPred::Ord => !uno,
        FCmpPred::Ueq => uno || x == y,
        FCmpPred::Ugt => uno || x > y,
        FCmpPred::Uge => uno || x >= y,
        FCmpPred::Ult => uno || x < y,
        FCmpPred::Ule => uno || x <= y,
        FCmpPred::Une => x != y,
        FCmpPred::Uno => uno,
        FCmpPred::True => true,
    }
}

/// How many of `results` are zeros, subnormals, infinities, NaNs and normals.
fn census(fmt: Fmt, results: &[u64]) -> BTreeMap<&'static str, usize> {
    let mut census = BTreeMap::new();
    for &r in results {
        let e = (r >> fmt.man) & fmt.max_exp();
        let frac = r & ((1 << fmt.man) - 1);
        let class = match (e, frac) {
            (0, 0) => "zero",
            (0, _) => "subnormal",
            (x, 0) if x == fmt.max_exp() => "infinity",
            (x, _) if x == fmt.max_exp() => "NaN",
            _ => "normal",
        };
        *census.entry(class).or_insert(0usize) += 1;
    }
    census
}

fn check_arith(op: FloatOp) {
    check_arith_n(op, VECTORS, 0);
}

/// `op` on `n` vectors per precision, the seeds changed by `salt`.
fn check_arith_n(op: FloatOp, n: usize, salt: u64) {
    for (fmt, seed) in [(F32, 0x1234_5678_9abc_def1), (F64, 0x0fed_cba9_8765_4321)] {
        let t = Instant::now();
        let b = Builtin::Float {
            op,
            width: fmt.width,
            latency: 1,
        };
        let net = float::core(&b);
        let pairs = vectors_n(fmt, Some(op), seed ^ op as u64 ^ salt, n);
        let got = run_core(&net, fmt, &pairs);
        let census = census(fmt, &got);
        let mut bad = Vec::new();
        for (&(a, c), &r) in pairs.iter().zip(&got) {
            let ok = match reference(op, fmt, a, c) {
                Some(want) => r == want,
                None => r == fmt.canonical_nan(),
            };
            if !ok && bad.len() < 10 {
                bad.push(format!(
                    "{a:#x} {} {c:#x}: kiln {r:#x}, rust {:x?}",
                    op.kind(),
                    reference(op, fmt, a, c)
                ));
            }
        }
        println!(
            "{} f{}: {} vectors, {} ANDs, {:?}, results {census:?}",
            op.kind(),
            fmt.width,
            pairs.len(),
            net.num_ands(),
            t.elapsed()
        );
        for class in ["zero", "subnormal", "infinity", "NaN", "normal"] {
            assert!(census.get(class).is_some_and(|&n| n >= 100), "{census:?}");
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}

#[test]
fn addf_matches_rust() {
    check_arith(FloatOp::Add);
}

#[test]
fn subf_matches_rust() {
    check_arith(FloatOp::Sub);
}

#[test]
fn mulf_matches_rust() {
    check_arith(FloatOp::Mul);
}

#[test]
fn divf_matches_rust() {
    check_arith(FloatOp::Div);
}

#[test]
fn maximumf_minimumf_match_ieee_754_2019() {
    check_arith(FloatOp::Max);
    check_arith(FloatOp::Min);
}

fn fmt_of(width: u32) -> Fmt {
    if width == 32 { F32 } else { F64 }
}

/// Operands of the one-operand `op` from `from` bits: for an integer source, the powers of
/// two and their neighbours, random words of every length and the rounding ties of the
/// target; for a float source, the specials and [`vectors`]' mixtures, and the exponents
/// where the result changes form (f32's range and ties at bit 29 for `truncf`, 0 to the
/// integer's width for `fptosi`).
fn cast_inputs(op: FloatCast, from: u32, to: u32, seed: u64, n: usize) -> Vec<u64> {
    let mut rng = Rng(seed);
    let mask = if from == 64 {
        u64::MAX
    } else {
        (1 << from) - 1
    };
    if matches!(op, FloatCast::SiToFp | FloatCast::UiToFp) {
        let man = u64::from(fmt_of(to).man);
        let mut v: Vec<u64> = (0..u64::from(from))
            .flat_map(|k| [0u64, 1, 2, u64::MAX, u64::MAX - 1].map(|d| (1u64 << k).wrapping_add(d)))
            .flat_map(|x| [x & mask, x.wrapping_neg() & mask])
            .collect();
        while v.len() < n {
            let len = 1 + rng.below(u64::from(from));
            let x = match rng.below(3) {
                0 => rng.next() & mask,
                1 => (rng.next() | 1 << 63) >> (64 - len),
                // A tie (or just above) below the target's man + 1 bits.
                _ if len > man + 2 => {
                    let low = len - man - 1;
                    let head = (rng.next() | 1 << 63) >> (64 - len) >> low << low;
                    head | 1 << (low - 1) | u64::from(rng.below(4) == 0)
                }
                _ => rng.next() >> (64 - len),
            };
            let neg = op == FloatCast::SiToFp && rng.below(2) == 0;
            v.push(if neg {
                x.wrapping_neg() & mask
            } else {
                x & mask
            });
        }
        return v;
    }
    let g = fmt_of(from);
    let mut v: Vec<u64> = vectors_n(g, None, seed, n.div_ceil(2))
        .into_iter()
        .flat_map(|(a, b)| [a, b])
        .take(n)
        .collect();
    let bias = g.bias();
    for x in v.iter_mut().skip(2 * g.specials().len().pow(2)).step_by(2) {
        let sign = rng.next();
        *x = match op {
            // f32's exponent range (subnormals, overflow) and ties at bit 29.
            FloatCast::Trunc => {
                let e = 1023 - 127 - 26 + rng.below(256 + 30);
                let frac = match rng.below(3) {
                    0 => (rng.next() >> 29 << 29) | 1 << 28,
                    1 => (rng.next() >> 29 << 29) | 1 << 28 | 1,
                    _ => rng.next(),
                };
                g.make(sign, e, frac)
            }
            // |x| from below 1 to past the integer range.
            FloatCast::FpToSi => {
                let e = bias - 2 + rng.below(u64::from(to) + 4);
                g.make(sign, e, g.random_frac(&mut rng))
            }
            _ => *x,
        };
    }
    v
}

fn check_cast(op: FloatCast, from: u32, to: u32) {
    check_cast_n(op, from, to, VECTORS, 0);
}

/// The one-operand `op` on `n` operands, the seed changed by `salt`.
fn check_cast_n(op: FloatCast, from: u32, to: u32, n: usize, salt: u64) {
    let t = Instant::now();
    let b = Builtin::FloatCast {
        op,
        from,
        to,
        latency: float::cast_latency(op, from, to).unwrap(),
    };
    let net = float::core(&b);
    let seed = 0x2545_f491_4f6c_dd1d ^ (op as u64) << 8 ^ u64::from(from + 2 * to);
    let vals = cast_inputs(op, from, to, seed ^ salt, n);
    let pairs: Vec<(u64, u64)> = vals.iter().map(|&a| (a, 0)).collect();
    let got = run_net(&net, &[from as usize], &pairs);
    let nan = fmt_of(to).canonical_nan();
    let mut bad = Vec::new();
    for (&a, &r) in vals.iter().zip(&got) {
        let want = cast_reference(op, from, to, a);
        if want.unwrap_or(nan) != r && bad.len() < 10 {
            bad.push(format!(
                "{} {from}->{to} {a:#x}: kiln {r:#x}, rust {want:x?}",
                op.kind()
            ));
        }
    }
    let float_out = op != FloatCast::FpToSi;
    let classes = if float_out {
        census(fmt_of(to), &got)
    } else {
        let top = 1u64 << (to - 1);
        let mut c = BTreeMap::new();
        for &r in &got {
            let class = match r {
                0 => "zero",
                x if x == top || x == top - 1 => "saturated",
                _ => "other",
            };
            *c.entry(class).or_insert(0usize) += 1;
        }
        c
    };
    println!(
        "{} {from}->{to}: {} vectors, {} ANDs, {:?}, results {classes:?}",
        op.kind(),
        vals.len(),
        net.num_ands(),
        t.elapsed()
    );
    assert!(vals.len() >= n);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let want: &[&str] = match op {
        FloatCast::Trunc => &["zero", "subnormal", "infinity", "NaN", "normal"],
        FloatCast::FpToSi => &["zero", "saturated", "other"],
        _ => &[],
    };
    for class in want {
        assert!(classes.get(class).is_some_and(|&n| n >= 100), "{classes:?}");
    }
}

#[test]
fn negf_extf_truncf_match_rust() {
    check_cast(FloatCast::Neg, 32, 32);
    check_cast(FloatCast::Neg, 64, 64);
    check_cast(FloatCast::Ext, 32, 64);
    check_cast(FloatCast::Trunc, 64, 32);
}

#[test]
fn int_float_conversions_match_rust() {
    for (from, to) in [(32, 32), (32, 64), (64, 32), (64, 64)] {
        check_cast(FloatCast::SiToFp, from, to);
        check_cast(FloatCast::UiToFp, from, to);
        check_cast(FloatCast::FpToSi, from, to);
    }
}

/// Every arithmetic and one-operand unit on [`LONG`] vectors per precision, other seeds
/// than CI's: `cargo test --release --test handshake_float -- --ignored --nocapture`.
#[test]
#[ignore]
fn long_run_every_unit() {
    for op in FloatOp::ALL {
        check_arith_n(op, LONG, 0x5eed_0001);
    }
    for (op, from, to) in [
        (FloatCast::Neg, 32, 32),
        (FloatCast::Neg, 64, 64),
        (FloatCast::Ext, 32, 64),
        (FloatCast::Trunc, 64, 32),
    ] {
        check_cast_n(op, from, to, LONG, 0x5eed_0002);
    }
    for (from, to) in [(32, 32), (32, 64), (64, 32), (64, 64)] {
        for op in [FloatCast::SiToFp, FloatCast::UiToFp, FloatCast::FpToSi] {
            check_cast_n(op, from, to, LONG, 0x5eed_0003);
        }
    }
}

#[test]
fn cmpf_matches_rust() {
    for (fmt, seed) in [(F32, 0x5151_5151_2323_2323), (F64, 0x7777_1111_3333_9999)] {
        let t = Instant::now();
        let mut pairs = vectors(fmt, None, seed);
        // Equal operands and equal magnitudes of either sign.
        for i in 0..pairs.len() / 8 {
            let a = pairs[i].0;
            pairs[i].1 = if i % 2 == 0 {
                a
            } else {
                a ^ (1 << (fmt.width - 1))
            };
        }
        for pred in FCmpPred::ALL {
            let b = Builtin::CmpF {
                pred,
                width: fmt.width,
                latency: 0,
            };
            let net = float::core(&b);
            let got = run_core(&net, fmt, &pairs);
            for (&(a, c), &r) in pairs.iter().zip(&got) {
                let want = compare_reference(pred, fmt, a, c);
                assert_eq!(
                    r == 1,
                    want,
                    "{a:#x} {} {c:#x} f{}",
                    pred.as_str(),
                    fmt.width
                );
            }
        }
        println!(
            "cmpf f{}: 16 predicates x {} vectors, {:?}",
            fmt.width,
            pairs.len(),
            t.elapsed()
        );
    }
}

/// The value a unit computes on (`lhs`, `rhs`), as the template's core would.
fn unit_value(b: &Builtin, a: u64, c: u64) -> u64 {
    match *b {
        Builtin::Float { op, width, .. } => {
            let fmt = if width == 32 { F32 } else { F64 };
            reference(op, fmt, a, c).unwrap_or(fmt.canonical_nan())
        }
        Builtin::CmpF { pred, width, .. } => {
            let fmt = if width == 32 { F32 } else { F64 };
            u64::from(compare_reference(pred, fmt, a, c))
        }
        Builtin::FloatCast { op, from, to, .. } => {
            let mask = if from == 64 {
                u64::MAX
            } else {
                (1 << from) - 1
            };
            cast_reference(op, from, to, a & mask).unwrap_or(fmt_of(to).canonical_nan())
        }
        _ => unreachable!(),
    }
}

fn latency_of(b: &Builtin) -> usize {
    match *b {
        Builtin::Float { latency, .. }
        | Builtin::CmpF { latency, .. }
        | Builtin::FloatCast { latency, .. } => latency as usize,
        _ => 0,
    }
}

/// `maximumf`/`minimumf`: their template has no oehb.
fn has_oehb(b: &Builtin) -> bool {
    !matches!(
        b,
        Builtin::Float {
            op: FloatOp::Max | FloatOp::Min,
            ..
        }
    )
}

fn unary(b: &Builtin) -> bool {
    matches!(b, Builtin::FloatCast { .. })
}

/// Dynamatic's FloPoCo wrapper as read from its templates: `join_type`, a `delay_buffer`
/// of `latency - 1` stages, `oehb_dataless`, the core's data pipeline of `latency` stages,
/// all enabled by the oehb's ready; the data registers are not reset. The one-operand
/// templates (`sitofp.v`, `uitofp.v`, `fptosi.v`) are the same without the join (their
/// data registers also reset, which shows only while `outs_valid` is low: the model leaves
/// it out, `conv_shell.v` has it);
/// `maximumf.v`/`minimumf.v` have a `delay_buffer` of `latency` stages enabled by
/// `result_ready` and no oehb (their core, `my_maxf`, is not in the corpus: its result is
/// taken to be registered once with the same enable).
struct Template {
    b: Builtin,
    lat: usize,
    has_oehb: bool,
    unary: bool,
    valid: Vec<bool>,
    oehb: bool,
    data: Vec<u64>,
}

/// One cycle's inputs and outputs of a unit.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pins {
    result: u64,
    result_valid: bool,
    lhs_ready: bool,
    rhs_ready: bool,
}

impl Template {
    fn new(b: &Builtin) -> Template {
        let lat = latency_of(b);
        Template {
            b: b.clone(),
            lat,
            has_oehb: has_oehb(b),
            unary: unary(b),
            valid: vec![false; lat.saturating_sub(usize::from(has_oehb(b)))],
            oehb: false,
            data: vec![0; lat],
        }
    }

    /// The outputs for these inputs, then the clock edge.
    fn step(&mut self, rst: bool, a: u64, lv: bool, c: u64, rv: bool, ready: bool) -> Pins {
        let value = unit_value(&self.b, a, c);
        let rv = rv || self.unary;
        let join = lv && rv;
        let (en, pins) = if self.lat == 0 {
            (ready, (value, join))
        } else if self.has_oehb {
            (!self.oehb || ready, (self.data[self.lat - 1], self.oehb))
        } else {
            (ready, (self.data[self.lat - 1], self.valid[self.lat - 1]))
        };
        let out = Pins {
            result: pins.0,
            result_valid: pins.1,
            lhs_ready: rv && en,
            rhs_ready: lv && en && !self.unary,
        };
        if self.lat > 0 {
            let buff = self.valid.last().copied().unwrap_or(join);
            self.oehb = self.has_oehb && !rst && (buff || (!ready && self.oehb));
            if rst {
                self.valid.iter_mut().for_each(|v| *v = false);
            } else if en && !self.valid.is_empty() {
                self.valid.rotate_right(1);
                if let Some(v) = self.valid.first_mut() {
                    *v = join;
                }
            }
            if en {
                self.data.rotate_right(1);
                self.data[0] = value;
            }
        }
        out
    }
}

/// A generated unit, run cycle by cycle with [`Net::eval`] from its latches' initial values.
struct Sim {
    net: Net,
    state: Vec<bool>,
    width: usize,
}

impl Sim {
    fn new(b: &Builtin) -> Sim {
        let net = generate(b);
        // The unit's latches all start at 0 (as the template's registers that reset does).
        let state = vec![false; net.latches.len()];
        let width = match *b {
            Builtin::Float { width, .. } | Builtin::CmpF { width, .. } => width as usize,
            Builtin::FloatCast { from, .. } => from as usize,
            _ => 0,
        };
        Sim { net, state, width }
    }

    fn step(&mut self, rst: bool, a: u64, lv: bool, c: u64, rv: bool, ready: bool) -> Pins {
        let bit = |v: u64, i: usize| i < 64 && (v >> i) & 1 == 1;
        let ins: Vec<bool> = (self.net.inputs.iter())
            .map(|(name, _)| match name.as_str() {
                "lhs_valid" | "ins_valid" => lv,
                "rhs_valid" => rv,
                "result_ready" | "outs_ready" => ready,
                "rst" => rst,
                "clk" => false,
                n => {
                    let (port, i) = n.trim_end_matches(']').split_once('[').unwrap();
                    let i: usize = i.parse().unwrap();
                    assert!(i < self.width);
                    bit(if port == "rhs" { c } else { a }, i)
                }
            })
            .collect();
        let (outs, next) = self.net.eval(&ins, &self.state);
        self.state = next;
        let mut p = Pins {
            result: 0,
            result_valid: false,
            lhs_ready: false,
            rhs_ready: false,
        };
        for ((name, _), &v) in self.net.outputs.iter().zip(&outs) {
            match name.as_str() {
                "result_valid" | "outs_valid" => p.result_valid = v,
                "lhs_ready" | "ins_ready" => p.lhs_ready = v,
                "rhs_ready" => p.rhs_ready = v,
                "result" => p.result |= u64::from(v),
                n => {
                    let (_, i) = n.trim_end_matches(']').split_once('[').unwrap();
                    let i: usize = i.parse().unwrap();
                    p.result |= u64::from(v) << i;
                }
            }
        }
        p
    }
}

/// The units of the samples' latencies and the edge cases (latency 0, 1, 2, 36).
fn handshake_units() -> Vec<Builtin> {
    let f = |op, width, delay: Option<&str>| Builtin::Float {
        op,
        width,
        latency: float::latency(op, width, delay).unwrap(),
    };
    vec![
        f(FloatOp::Add, 32, Some("2_922000")),
        f(FloatOp::Add, 32, Some("2_798000")),
        f(FloatOp::Sub, 32, None),
        f(FloatOp::Mul, 32, Some("2_875333")),
        f(FloatOp::Add, 64, Some("9_068000")),
        f(FloatOp::Sub, 64, None),
        Builtin::CmpF {
            pred: FCmpPred::Oge,
            width: 32,
            latency: 0,
        },
        Builtin::CmpF {
            pred: FCmpPred::Ult,
            width: 64,
            latency: 1,
        },
        f(FloatOp::Div, 32, Some("14_152000")),
        f(FloatOp::Div, 64, Some("16_008000")),
        f(FloatOp::Max, 32, None),
        f(FloatOp::Min, 64, None),
        cast(FloatCast::Neg, 32, 32),
        cast(FloatCast::Trunc, 64, 32),
        cast(FloatCast::SiToFp, 32, 32),
        cast(FloatCast::FpToSi, 64, 32),
    ]
}

fn cast(op: FloatCast, from: u32, to: u32) -> Builtin {
    Builtin::FloatCast {
        op,
        from,
        to,
        latency: float::cast_latency(op, from, to).unwrap(),
    }
}

/// Every output at every cycle equals the template model's, for random inputs (valids,
/// operands, back-pressure, resets), from reset.
#[test]
fn units_run_cycle_by_cycle_as_the_flopoco_wrapper() {
    for b in handshake_units() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ latency_of(&b) as u64);
        let mut sim = Sim::new(&b);
        let mut model = Template::new(&b);
        let fmt = if sim.width == 32 { F32 } else { F64 };
        for cycle in 0..3000 {
            let rst = cycle == 0 || rng.below(500) == 0;
            let (a, c) = (rng.next() & fmt.mask(), rng.next() & fmt.mask());
            let (lv, rv, ready) = (rng.below(4) != 0, rng.below(4) != 0, rng.below(3) != 0);
            let want = model.step(rst, a, lv, c, rv, ready);
            let got = sim.step(rst, a, lv, c, rv, ready);
            // The data registers start unknown in the template: compare data once valid.
            let same = got.result_valid == want.result_valid
                && got.lhs_ready == want.lhs_ready
                && got.rhs_ready == want.rhs_ready
                && (!want.result_valid || got.result == want.result);
            assert!(same, "{b:?} cycle {cycle}: kiln {got:?}, template {want:?}");
        }
    }
}

/// A token stream with stalls on both inputs and back-pressure on the result: the results
/// come out in order, each the function of its operands; without stalls the first result
/// is valid `latency` cycles after the operands and one follows every cycle.
#[test]
fn token_streams_with_back_pressure() {
    for b in handshake_units() {
        let lat = latency_of(&b);
        let mut sim = Sim::new(&b);
        let fmt = if sim.width == 32 { F32 } else { F64 };
        let pairs = vectors(fmt, None, 0xabcdef ^ lat as u64);
        let pairs = &pairs[pairs.len() - 400..];
        let mut rng = Rng(0x1234 ^ lat as u64);
        let (mut lq, mut rq): (VecDeque<u64>, VecDeque<u64>) = pairs.iter().copied().unzip();
        let mut got = Vec::new();
        sim.step(true, 0, false, 0, false, true);
        let mut cycles = 0;
        while got.len() < pairs.len() {
            cycles += 1;
            assert!(cycles < 20 * pairs.len(), "{b:?}: stuck");
            let lv = !lq.is_empty() && rng.below(3) != 0;
            let rv = !rq.is_empty() && rng.below(3) != 0;
            let ready = rng.below(3) != 0;
            let (a, c) = (
                lq.front().copied().unwrap_or(0),
                rq.front().copied().unwrap_or(0),
            );
            let p = sim.step(false, a, lv, c, rv, ready);
            if lv && p.lhs_ready {
                lq.pop_front();
            }
            if rv && p.rhs_ready {
                rq.pop_front();
            }
            if p.result_valid && ready {
                got.push(p.result);
            }
        }
        let want: Vec<u64> = pairs.iter().map(|&(a, c)| unit_value(&b, a, c)).collect();
        assert_eq!(got, want, "{b:?}");
        // No stalls: token k goes in at cycle k and comes out at cycle k + latency.
        let mut sim = Sim::new(&b);
        sim.step(true, 0, false, 0, false, true);
        for cycle in 0..(lat + 20) {
            let (a, c) = pairs[cycle % pairs.len()];
            let p = sim.step(false, a, true, c, true, true);
            assert!(
                p.lhs_ready && (p.rhs_ready || unary(&b)),
                "{b:?} cycle {cycle}"
            );
            assert_eq!(p.result_valid, cycle >= lat, "{b:?} cycle {cycle}");
            if cycle >= lat {
                let (a, c) = pairs[(cycle - lat) % pairs.len()];
                assert_eq!(p.result, unit_value(&b, a, c), "{b:?} cycle {cycle}");
            }
        }
    }
}

/// kiln's wrapper (`float::shell`, the units' handshake around `lhs ^ rhs`) is Dynamatic's:
/// ABC `dsec` against yosys on `tests/data/handshake/flopoco_shell.v`, which instantiates
/// Dynamatic's `join_type`, `delay_buffer` and `oehb_dataless` from the shared corpus (with
/// `OEHB = 0`, the `maximumf`/`minimumf` form); the conversions' (`!ins` for the core) on
/// `conv_shell.v`, which instantiates Dynamatic's `delay_buffer` and `oehb` as `sitofp.v`.
#[test]
fn float_wrapper_matches_dynamatic_support_units() {
    let Some(shared) = common::shared_dir_with("berkeley-abc") else {
        return;
    };
    if !common::have_tool("yosys") {
        return;
    }
    let rtl = shared.join("dynamatic_rtl/data/verilog");
    let files = [
        rtl.join("handshake/join.v"),
        rtl.join("support/delay_buffer.v"),
        rtl.join("handshake/dataless/oehb.v"),
        common::data("handshake/flopoco_shell.v"),
    ];
    for f in &files {
        assert!(f.is_file(), "{}", f.display());
    }
    let tmp = tempfile::tempdir().unwrap();
    let conv = [
        rtl.join("support/delay_buffer.v"),
        rtl.join("handshake/dataless/oehb.v"),
        rtl.join("handshake/oehb.v"),
        common::data("handshake/conv_shell.v"),
    ];
    let units = [
        (
            float_unit(FloatOp::Max, 32),
            "flopoco_shell",
            &files[..],
            " -set OEHB 0",
        ),
        (
            float_unit(FloatOp::Min, 64),
            "flopoco_shell",
            &files[..],
            " -set OEHB 0",
        ),
        (cast(FloatCast::SiToFp, 32, 32), "conv_shell", &conv[..], ""),
        (cast(FloatCast::FpToSi, 64, 64), "conv_shell", &conv[..], ""),
    ];
    for (b, top, files, extra) in units {
        let net = float::shell(&b);
        let (width, lat) = (Sim::new(&b).width, latency_of(&b));
        let chparam = format!("chparam -set W {width} -set LATENCY {lat}{extra} {top}; ");
        let tag = b.model_name();
        let text = common::net_vs_verilog(&net, files, top, &chparam, tmp.path(), &tag);
        assert!(
            text.contains("Networks are equivalent") && !text.contains("NOT EQUIVALENT"),
            "{b:?}:\n{text}"
        );
    }
    for (width, latency) in [(3u32, 1u32), (4, 2), (2, 5), (3, 10)] {
        let net = float::shell(&Builtin::Float {
            op: FloatOp::Add,
            width,
            latency,
        });
        assert_eq!(net.latches.len(), (latency * (width + 1)) as usize);
        let chparam = format!("chparam -set W {width} -set LATENCY {latency} flopoco_shell; ");
        let tag = format!("{width}-{latency}");
        let text =
            common::net_vs_verilog(&net, &files, "flopoco_shell", &chparam, tmp.path(), &tag);
        assert!(
            text.contains("Networks are equivalent") && !text.contains("NOT EQUIVALENT"),
            "W={width} latency={latency}:\n{text}"
        );
    }
}

/// `op` on `width` bits with the latency kiln gives it without `internal_delay`.
fn float_unit(op: FloatOp, width: u32) -> Builtin {
    Builtin::Float {
        op,
        width,
        latency: float::latency(op, width, None).unwrap(),
    }
}

/// Each new float op of `tests/data/handshake/float_ops.mlir` (divf, maximumf, minimumf,
/// negf, extf, truncf, sitofp, uitofp, fptosi) is a built-in unit (with no library, as
/// `kiln synth-report` shows them), with Dynamatic's latency in its name.
#[test]
fn float_ops_are_built_in() {
    use compiler::flow::handshake::{Options, front};
    use compiler::handshake::Impl;
    let text = std::fs::read_to_string(common::data("handshake/float_ops.mlir")).unwrap();
    let fr = front(&text, &Options::default()).unwrap();
    let rows = compiler::handshake::report(&fr.circuit, &fr.marks, &BTreeMap::new());
    let got: Vec<String> = (rows.iter())
        .filter(|r| r.kind != "end")
        .map(|r| match &r.imp {
            Impl::Builtin(b) => b.model_name(),
            other => format!("{}: {other:?}", r.op),
        })
        .collect();
    assert_eq!(
        got,
        [
            "kiln_divf_w32_l15",
            "kiln_maximumf_w32_l1",
            "kiln_minimumf_w64_l1",
            "kiln_negf_32_32_l0",
            "kiln_extf_32_64_l0",
            "kiln_truncf_64_32_l0",
            "kiln_sitofp_32_32_l5",
            "kiln_uitofp_64_64_l5",
            "kiln_fptosi_32_32_l5",
        ]
    );
}
