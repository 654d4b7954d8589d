//! Built-in IEEE-754 floating-point units: `cmpf` (all sixteen `arith.cmpf` predicates),
//! `addf`, `subf`, `mulf`, `divf`, `maximumf` and `minimumf` on f32 and f64, and the
//! one-operand `negf`, `extf` (f32 → f64), `truncf` (f64 → f32), `sitofp`/`uitofp` (i32/i64
//! → f32/f64) and `fptosi` (f32/f64 → i32/i64) ([`FloatCast`]).
//!
//! Arithmetic is IEEE-754 binary32/binary64 with round-to-nearest-even, subnormal operands
//! and results (no flush to zero), signed zeros (`x + (-x)` is `+0`, `-0 + -0` is `-0`) and
//! infinities (`inf - inf`, `0 * inf`, `0 / 0` and `inf / inf` are NaN). `maximumf` and
//! `minimumf` are IEEE 754-2019 `maximum`/`minimum` (as MLIR's `arith.maximumf`): a NaN
//! operand gives NaN, `-0 < +0`. `fptosi` rounds toward zero and saturates (NaN by its sign
//! bit, see [`FloatCast::FpToSi`]). NaN rule: any NaN result is the canonical quiet NaN (f32
//! `0x7fc00000`, f64 `0x7ff8000000000000`), whatever the operands' payloads, except `negf`,
//! which flips the sign bit of any operand (as Rust's `-x`). The data path is checked bit for
//! bit against Rust's `f32`/`f64` (NaN results as "is the canonical pattern") by
//! `compiler/tests/handshake_float.rs`.
//!
//! Handshake: the two-operand units have the ports of Dynamatic's FloPoCo wrappers
//! (`arith/flopoco/{addf,subf,mulf,divf,cmpf}.vhd`: `clk rst lhs lhs_valid rhs rhs_valid
//! result_ready` → `result result_valid lhs_ready rhs_ready`) and their timing: a
//! `join_type` of the two inputs, a `delay_buffer` of `latency - 1` valid stages and an
//! `oehb_dataless` output stage, every stage enabled by the oehb's ready
//! (`!result_valid | result_ready`), as is the FloPoCo core's data pipeline (`ce`). Here the
//! core is combinational and its result enters a `latency`-deep register pipeline with the
//! same enable, so `result` shows, at every cycle, the core's function of the operands
//! present at the enabled cycle `latency` enables earlier, as the template does (the
//! registers start at 0; the FloPoCo registers have no reset, and `result_valid` is low
//! until they hold a token). Latency 0 (`cmpf` on f32) is the join alone, combinational.
//! The latency is Dynamatic's: `addf`/`mulf`/`divf` take the FloPoCo architecture named by
//! the op's `internal_delay` ([`latency`]), `subf` has one fixed core per width (9 and 12
//! cycles), `cmpf` is 0 cycles on f32 and 1 on f64. `maximumf`/`minimumf` follow their
//! Verilog templates: the join and a one-stage `delay_buffer` enabled by `result_ready`, no
//! oehb (latency 1). The one-operand units (`ins ins_valid outs_ready` → `outs outs_valid
//! ins_ready`) follow theirs ([`cast_latency`]): `negf`, `extf` and `truncf` pass valid and
//! ready through (combinational), the conversions have the FloPoCo timing of latency 5
//! without the join.
pub use super::float_ops::{FCmpPred, FloatCast, FloatOp, cast_latency, cmpf_latency, latency};
use super::mark::Builtin;
use super::net::{Init, Lit, Net};
use super::signals::{PortRef, SigKind, signals};

/// Exponent and fraction widths.
#[derive(Clone, Copy)]
struct Format {
    exp: usize,
    man: usize,
}

impl Format {
    fn of(width: u32) -> Format {
        if width == 64 {
            Format { exp: 11, man: 52 }
        } else {
            Format { exp: 8, man: 23 }
        }
    }

    fn width(self) -> usize {
        self.exp + self.man + 1
    }
}

/// The combinational data path of a float built-in: inputs `lhs[i]`, `rhs[i]`, outputs
/// `result[i]` (one bit for `cmpf`). Empty for other built-ins.
pub fn core(b: &Builtin) -> Net {
    let mut net = Net::new();
    if unit_latency(b).is_none() {
        return net;
    }
    let (ins, outs) = super::mark::ports(b);
    let ops: Vec<Vec<Lit>> = (ins.iter())
        .map(|p| {
            (0..p.ty.width)
                .map(|i| net.input(format!("{}[{i}]", p.name)))
                .collect()
        })
        .collect();
    let r = function(b, &mut net, &ops[0], ops.get(1).map_or(&[], |v| v));
    for (i, l) in r.into_iter().enumerate() {
        net.output(format!("{}[{i}]", outs[0].name), l);
    }
    net.compact().unwrap_or(net)
}

/// The latency of a float built-in; `None` for the others.
fn unit_latency(b: &Builtin) -> Option<u32> {
    match *b {
        Builtin::Float { latency, .. }
        | Builtin::CmpF { latency, .. }
        | Builtin::FloatCast { latency, .. } => Some(latency),
        _ => None,
    }
}

/// The result bits of `b` on operand bits `a`, `c`.
fn function(b: &Builtin, net: &mut Net, a: &[Lit], c: &[Lit]) -> Vec<Lit> {
    match *b {
        Builtin::Float { op, width, .. } => {
            let f = Format::of(width);
            match op {
                FloatOp::Add => add_core(net, f, a, c, false),
                FloatOp::Sub => add_core(net, f, a, c, true),
                FloatOp::Mul => mul_core(net, f, a, c),
                FloatOp::Div => div_core(net, f, a, c),
                FloatOp::Max => max_core(net, f, a, c, true),
                FloatOp::Min => max_core(net, f, a, c, false),
            }
        }
        Builtin::CmpF { pred, width, .. } => vec![cmp_core(net, Format::of(width), pred, a, c)],
        Builtin::FloatCast { op, from, to, .. } => cast_core(net, op, from, to, a),
        _ => Vec::new(),
    }
}

/// The handshake unit of a float built-in (see the module comment); ports named by
/// [`super::mark::ports`].
pub(crate) fn unit(b: &Builtin) -> Net {
    handshake(b, |net, a, c| function(b, net, a, c))
}

/// The handshake of the float unit `b` around the core `lhs ^ rhs` (`!ins` for a
/// one-operand unit, whose widths must then be equal) instead of the arithmetic: the
/// wrapper alone, for a proof against Dynamatic's `join_type`, `delay_buffer` and `oehb`
/// (see the tests).
pub fn shell(b: &Builtin) -> Net {
    handshake(b, |net, a, c| {
        if c.is_empty() {
            a.iter().map(|&x| !x).collect()
        } else {
            a.iter().zip(c).map(|(&x, &y)| net.xor(x, y)).collect()
        }
    })
}

/// The unit with the ports of `b`, the join, valid pipeline and oehb of its latency around
/// the combinational `core`. `maximumf`/`minimumf` have no oehb: every stage is enabled by
/// `result_ready` alone (their templates). A one-operand unit has no join (its valid goes
/// in, its ready is the enable) and its data registers are reset, as in `sitofp.v`,
/// `uitofp.v` and `fptosi.v`.
fn handshake(b: &Builtin, core: impl FnOnce(&mut Net, &[Lit], &[Lit]) -> Vec<Lit>) -> Net {
    let latency = unit_latency(b).unwrap_or(0);
    let oehb = !matches!(
        b,
        Builtin::Float {
            op: FloatOp::Max | FloatOp::Min,
            ..
        }
    );
    let (ins, outs) = super::mark::ports(b);
    let (isig, osig) = signals(&ins, &outs, true);
    let mut net = Net::new();
    let lits: Vec<Lit> = isig.iter().map(|s| net.input(s.name.clone())).collect();
    let get = |port: PortRef, kind: SigKind| {
        (isig.iter().zip(&lits))
            .find(|(s, _)| s.port == port && s.kind == kind)
            .map_or(Lit::FALSE, |(_, l)| *l)
    };
    let data = |port: usize| -> Vec<Lit> {
        (isig.iter().zip(&lits))
            .filter(|(s, _)| s.port == PortRef::Input(port) && matches!(s.kind, SigKind::Data(_)))
            .map(|(_, l)| *l)
            .collect()
    };
    let (lhs, rhs) = (data(0), data(1));
    let lv = get(PortRef::Input(0), SigKind::Valid);
    let rv = if ins.len() > 1 {
        get(PortRef::Input(1), SigKind::Valid)
    } else {
        Lit::TRUE
    };
    let ready = get(PortRef::Output(0), SigKind::Ready);
    let rst = get(PortRef::Global, SigKind::Rst);
    let value = core(&mut net, &lhs, &rhs);
    let join_valid = net.and(lv, rv);
    let (result, valid, en) = if latency == 0 {
        (value, join_valid, ready)
    } else {
        // oehb_dataless: its valid register, and its ready, which enables every stage.
        let ov = oehb.then(|| net.latch(Init::Zero));
        let en = match ov {
            Some(ov) => net.or(!ov, ready),
            None => ready,
        };
        // delay_buffer of latency - 1 stages (none for latency 1; latency without the
        // oehb), cleared by reset.
        let mut v = join_valid;
        for _ in u32::from(oehb)..latency {
            let q = net.latch(Init::Zero);
            let held = net.mux(en, v, q);
            let d = net.and(!rst, held);
            net.set_next(q, d);
            v = q;
        }
        let valid = match ov {
            Some(ov) => {
                let keep = net.and(!ready, ov);
                let set = net.or(v, keep);
                let d = net.and(!rst, set);
                net.set_next(ov, d);
                ov
            }
            None => v,
        };
        // The core's pipeline: `latency` stages of the result, enabled; reset in the
        // one-operand units only.
        let clear = if ins.len() == 1 { rst } else { Lit::FALSE };
        let mut cur = value;
        for _ in 0..latency {
            cur = cur
                .iter()
                .map(|&x| {
                    let q = net.latch(Init::Zero);
                    let d = net.mux(en, x, q);
                    let d = net.and(!clear, d);
                    net.set_next(q, d);
                    q
                })
                .collect();
        }
        (cur, valid, en)
    };
    let lhs_ready = net.and(rv, en);
    let rhs_ready = net.and(lv, en);
    for s in &osig {
        let l = match (s.port, s.kind) {
            (PortRef::Input(0), SigKind::Ready) => lhs_ready,
            (PortRef::Input(_), SigKind::Ready) => rhs_ready,
            (_, SigKind::Data(bit)) => result.get(bit as usize).copied().unwrap_or(Lit::FALSE),
            (_, SigKind::Valid) => valid,
            _ => Lit::FALSE,
        };
        net.output(s.name.clone(), l);
    }
    net.compact().unwrap_or(net)
}

// ---- Word-level helpers (bit vectors, least significant bit first) ----

fn consts(v: u64, n: usize) -> Vec<Lit> {
    (0..n)
        .map(|i| {
            if i < 64 && (v >> i) & 1 == 1 {
                Lit::TRUE
            } else {
                Lit::FALSE
            }
        })
        .collect()
}

fn zext(v: &[Lit], n: usize) -> Vec<Lit> {
    (0..n)
        .map(|i| v.get(i).copied().unwrap_or(Lit::FALSE))
        .collect()
}

fn any(net: &mut Net, v: &[Lit]) -> Lit {
    let n: Vec<Lit> = v.iter().map(|&l| !l).collect();
    !net.and_all(&n)
}

fn all(net: &mut Net, v: &[Lit]) -> Lit {
    net.and_all(v)
}

fn mux_w(net: &mut Net, s: Lit, t: &[Lit], f: &[Lit]) -> Vec<Lit> {
    t.iter().zip(f).map(|(&x, &y)| net.mux(s, x, y)).collect()
}

/// `a - b` modulo 2^n, and whether `a >= b` (unsigned).
fn sub_w(net: &mut Net, a: &[Lit], b: &[Lit]) -> (Vec<Lit>, Lit) {
    let nb: Vec<Lit> = b.iter().map(|&l| !l).collect();
    super::net::add(net, a, &nb, Lit::TRUE)
}

/// Unsigned `a < b`.
fn lt_u(net: &mut Net, a: &[Lit], b: &[Lit]) -> Lit {
    !sub_w(net, a, b).1
}

/// `v >> amount`, the bits shifted out ORed into bit 0 (sticky).
fn shr_sticky(net: &mut Net, v: &[Lit], amount: &[Lit]) -> Vec<Lit> {
    let n = v.len();
    let mut cur = v.to_vec();
    let mut sticky = Lit::FALSE;
    for (j, &s) in amount.iter().enumerate() {
        let dist = 1usize.checked_shl(j as u32).unwrap_or(usize::MAX);
        let (out, shifted): (Lit, Vec<Lit>) = if dist >= n {
            (any(net, &cur), vec![Lit::FALSE; n])
        } else {
            let o = any(net, &cur[..dist]);
            let sh = (0..n)
                .map(|i| cur.get(i + dist).copied().unwrap_or(Lit::FALSE))
                .collect();
            (o, sh)
        };
        let lost = net.and(s, out);
        sticky = net.or(sticky, lost);
        cur = mux_w(net, s, &shifted, &cur);
    }
    cur[0] = net.or(cur[0], sticky);
    cur
}

/// `v << amount` (zeros in).
fn shl(net: &mut Net, v: &[Lit], amount: &[Lit]) -> Vec<Lit> {
    let n = v.len();
    let mut cur = v.to_vec();
    for (j, &s) in amount.iter().enumerate() {
        let dist = 1usize.checked_shl(j as u32).unwrap_or(usize::MAX);
        let shifted: Vec<Lit> = (0..n)
            .map(|i| i.checked_sub(dist).map_or(Lit::FALSE, |k| cur[k]))
            .collect();
        cur = mux_w(net, s, &shifted, &cur);
    }
    cur
}

/// The number of leading zeros of `v` (exact when `v` is not 0; all ones when it is).
fn lzc(net: &mut Net, v: &[Lit]) -> Vec<Lit> {
    let n = v.len();
    let bits = (usize::BITS - n.leading_zeros()) as usize;
    let mut cur = v.to_vec();
    let mut count = vec![Lit::FALSE; bits];
    for j in (0..bits).rev() {
        let dist = 1usize << j;
        let top = &cur[n.saturating_sub(dist)..];
        let z = !any(net, top);
        count[j] = z;
        if dist < n {
            let shifted: Vec<Lit> = (0..n)
                .map(|i| i.checked_sub(dist).map_or(Lit::FALSE, |k| cur[k]))
                .collect();
            cur = mux_w(net, z, &shifted, &cur);
        }
    }
    count
}

/// The fields of an operand.
struct Unpacked {
    sign: Lit,
    /// The exponent field.
    field: Vec<Lit>,
    /// The exponent field, 1 for subnormals and zero.
    exp: Vec<Lit>,
    /// The significand with its hidden bit (`man + 1` bits).
    sig: Vec<Lit>,
    nan: Lit,
    inf: Lit,
    zero: Lit,
}

fn unpack(net: &mut Net, f: Format, x: &[Lit]) -> Unpacked {
    let field = x[f.man..f.man + f.exp].to_vec();
    let frac = &x[..f.man];
    let normal = any(net, &field);
    let ones = all(net, &field);
    let frac_nz = any(net, frac);
    let mut exp = field.clone();
    exp[0] = net.or(exp[0], !normal);
    let mut sig = frac.to_vec();
    sig.push(normal);
    Unpacked {
        sign: x[f.width() - 1],
        nan: net.and(ones, frac_nz),
        inf: net.and(ones, !frac_nz),
        zero: net.and(!normal, !frac_nz),
        field,
        exp,
        sig,
    }
}

/// `sign` and the given exponent field and fraction, as a word.
fn word(sign: Lit, frac: &[Lit], field: &[Lit]) -> Vec<Lit> {
    let mut v = frac.to_vec();
    v.extend_from_slice(field);
    v.push(sign);
    v
}

fn infinity(f: Format, sign: Lit) -> Vec<Lit> {
    word(sign, &consts(0, f.man), &consts(u64::MAX, f.exp))
}

fn quiet_nan(f: Format) -> Vec<Lit> {
    let mut frac = consts(0, f.man);
    frac[f.man - 1] = Lit::TRUE;
    word(Lit::FALSE, &frac, &consts(u64::MAX, f.exp))
}

/// Rounds (to nearest, ties to even) the significand `s` of `man + 4` bits (hidden bit,
/// fraction, guard, round, sticky) with exponent field `field` (0 for a subnormal), and
/// packs it with `sign`; a carry out of the fraction goes into the exponent (to infinity
/// at the top).
fn round_pack(net: &mut Net, f: Format, sign: Lit, s: &[Lit], field: &[Lit]) -> Vec<Lit> {
    let (g, r, st, lsb) = (s[2], s[1], s[0], s[3]);
    let rs = net.or(r, st);
    let tail = net.or(rs, lsb);
    let up = net.and(g, tail);
    let mut packed = s[3..3 + f.man].to_vec();
    packed.extend_from_slice(field);
    let (rounded, _) = super::net::add(net, &packed, &vec![Lit::FALSE; packed.len()], up);
    let mut v = rounded;
    v.push(sign);
    v
}

/// `a + b` (`a - b` when `sub`).
fn add_core(net: &mut Net, f: Format, a: &[Lit], b: &[Lit], sub: bool) -> Vec<Lit> {
    let (w, m, e) = (f.width(), f.man, f.exp);
    let mut b = b.to_vec();
    b[w - 1] = b[w - 1].xor_neg(sub);
    let (ua, ub) = (unpack(net, f, a), unpack(net, f, &b));
    // x: the operand of larger magnitude.
    let swap = lt_u(net, &a[..w - 1], &b[..w - 1]);
    let pick = |net: &mut Net, t: &Unpacked, u: &Unpacked| Unpacked {
        sign: net.mux(swap, t.sign, u.sign),
        field: mux_w(net, swap, &t.field, &u.field),
        exp: mux_w(net, swap, &t.exp, &u.exp),
        sig: mux_w(net, swap, &t.sig, &u.sig),
        nan: Lit::FALSE,
        inf: net.mux(swap, t.inf, u.inf),
        zero: Lit::FALSE,
    };
    let x = pick(net, &ub, &ua);
    let y = pick(net, &ua, &ub);
    let eff_sub = net.xor(x.sign, y.sign);
    // Significands with guard, round and sticky bits: N = man + 4 bits.
    let n = m + 4;
    let widen =
        |s: &[Lit]| -> Vec<Lit> { consts(0, 3).into_iter().chain(s.iter().copied()).collect() };
    let mx = widen(&x.sig);
    let my = widen(&y.sig);
    let (d, _) = sub_w(net, &x.exp, &y.exp);
    let my = shr_sticky(net, &my, &d);
    let my: Vec<Lit> = my.iter().map(|&l| net.xor(l, eff_sub)).collect();
    let (s, c) = super::net::add(net, &mx, &my, eff_sub);
    let carry = net.and(c, !eff_sub);
    // Carry: one place right (the bit shifted out kept sticky), exponent + 1.
    let mut sc: Vec<Lit> = (0..n)
        .map(|i| if i + 1 < n { s[i + 1] } else { Lit::TRUE })
        .collect();
    sc[0] = net.or(s[0], s[1]);
    let (e_c, _) = super::net::add(net, &x.exp, &consts(0, e), Lit::TRUE);
    let overflow = all(net, &e_c);
    let overflow = net.and(carry, overflow);
    // No carry: left by min(leading zeros, exp - 1); the exponent field is 0 unless the
    // hidden bit is then set.
    let q = e + 1;
    let lz = zext(&lzc(net, &s), q);
    let (em1, _) = sub_w(net, &zext(&x.exp, q), &consts(1, q));
    let fewer = lt_u(net, &lz, &em1);
    let k = mux_w(net, fewer, &lz, &em1);
    let sl = shl(net, &s, &k);
    let (e_l, _) = sub_w(net, &zext(&x.exp, q), &k);
    let hidden = sl[n - 1];
    let field_l: Vec<Lit> = e_l[..e].iter().map(|&l| net.and(hidden, l)).collect();
    let sn = mux_w(net, carry, &sc, &sl);
    let field = mux_w(net, carry, &e_c, &field_l);
    // An exact zero is +0, or -0 when both operands are -0.
    let nz = any(net, &s);
    let exact_zero = net.and(!nz, !carry);
    let zero_sign = net.and(x.sign, !eff_sub);
    let sign = net.mux(exact_zero, zero_sign, x.sign);
    let r = round_pack(net, f, sign, &sn, &field);
    let r = mux_w(net, overflow, &infinity(f, sign), &r);
    let r = mux_w(net, x.inf, &infinity(f, x.sign), &r);
    let both_inf = net.and(ua.inf, ub.inf);
    let inf_diff = net.and(both_inf, eff_sub);
    let some_nan = net.or(ua.nan, ub.nan);
    let nan = net.or(some_nan, inf_diff);
    mux_w(net, nan, &quiet_nan(f), &r)
}

/// `a * b`.
fn mul_core(net: &mut Net, f: Format, a: &[Lit], b: &[Lit]) -> Vec<Lit> {
    let (m, e) = (f.man, f.exp);
    let (ua, ub) = (unpack(net, f, a), unpack(net, f, b));
    let sign = net.xor(ua.sign, ub.sign);
    // The product of the significands: 2m + 2 bits, value P * 2^(ea + eb - 2 bias - 2m).
    let p = multiply(net, &ua.sig, &ub.sig);
    // t = ea + eb - bias + 1 is the biased exponent of P read as 1.xxx.
    let q = e + 3;
    let bias = (1u64 << (e - 1)) - 1;
    let (sum, _) = super::net::add(net, &zext(&ua.exp, q), &zext(&ub.exp, q), Lit::FALSE);
    let (t, _) = sub_w(net, &sum, &consts(bias - 1, q));
    let r = finish(net, f, sign, &p, &t);
    let zero_w = word(sign, &consts(0, m), &consts(0, e));
    let some_zero = net.or(ua.zero, ub.zero);
    let r = mux_w(net, some_zero, &zero_w, &r);
    let some_inf = net.or(ua.inf, ub.inf);
    let r = mux_w(net, some_inf, &infinity(f, sign), &r);
    let some_nan = net.or(ua.nan, ub.nan);
    let zi_a = net.and(ua.zero, ub.inf);
    let zi_b = net.and(ub.zero, ua.inf);
    let zi = net.or(zi_a, zi_b);
    let nan = net.or(some_nan, zi);
    mux_w(net, nan, &quiet_nan(f), &r)
}

/// The finite value `p * 2^(t - bias - (p.len() - 1))` (`p` unsigned, at least `man + 3`
/// bits, its lowest bit may be a sticky bit; `t` signed, wide enough to hold it without
/// overflow) rounded to nearest even and packed with `sign`: normalised (left by its
/// leading zeros while the exponent stays at least 1, right with sticky bits into the
/// subnormals), infinity on overflow.
fn finish(net: &mut Net, f: Format, sign: Lit, p: &[Lit], t: &[Lit]) -> Vec<Lit> {
    let (m, e, q, pn) = (f.man, f.exp, t.len(), p.len());
    let t_neg = t[q - 1];
    // t >= 1: left by k = min(lz, t - 1), field = t - k when the hidden bit is then set.
    let lz = zext(&lzc(net, p), q);
    let (tm1, _) = sub_w(net, t, &consts(1, q));
    let tm1_pos = !tm1[q - 1];
    let fewer = lt_u(net, &lz, &tm1);
    let k = mux_w(net, fewer, &lz, &tm1);
    let pl = shl(net, p, &k);
    let (e_l, _) = sub_w(net, t, &k);
    // t < 1: right by 1 - t (sticky), subnormal.
    let (rsh, _) = sub_w(net, &consts(1, q), t);
    let pr = shr_sticky(net, p, &rsh);
    let norm = net.and(tm1_pos, !t_neg);
    let pv = mux_w(net, norm, &pl, &pr);
    let hidden = pv[pn - 1];
    let field_w: Vec<Lit> = e_l.iter().map(|&l| net.and(hidden, l)).collect();
    let field_w = mux_w(net, norm, &field_w, &consts(0, q));
    // Overflow: the field (before rounding) at or above all ones.
    let (_, ge) = sub_w(net, &field_w, &consts((1 << e) - 1, q));
    let overflow = net.and(ge, !field_w[q - 1]);
    // Round on man + 4 bits: the top man + 3 bits of P, and the rest as sticky.
    let low = pn - (m + 3);
    let sticky = any(net, &pv[..low]);
    let mut s = vec![sticky];
    s.extend_from_slice(&pv[low..]);
    let r = round_pack(net, f, sign, &s, &field_w[..e]);
    mux_w(net, overflow, &infinity(f, sign), &r)
}

/// The significand of `u` shifted left until its hidden bit is set, and its exponent less
/// the shift, on `q` bits (signed); meaningless for zero.
fn normalise(net: &mut Net, u: &Unpacked, q: usize) -> (Vec<Lit>, Vec<Lit>) {
    let lz = lzc(net, &u.sig);
    let sig = shl(net, &u.sig, &lz);
    let (exp, _) = sub_w(net, &zext(&u.exp, q), &zext(&lz, q));
    (sig, exp)
}

/// `a / b`: restoring division of the normalised significands, `man + 3` quotient bits
/// (hidden bit, fraction and guard bit of a quotient below 1; fewer fail the tests) and the
/// remainder as sticky, then [`finish`].
fn div_core(net: &mut Net, f: Format, a: &[Lit], b: &[Lit]) -> Vec<Lit> {
    let (m, e) = (f.man, f.exp);
    let (ua, ub) = (unpack(net, f, a), unpack(net, f, b));
    let sign = net.xor(ua.sign, ub.sign);
    let q = e + 3;
    let (sa, ea) = normalise(net, &ua, q);
    let (sb, eb) = normalise(net, &ub, q);
    // The quotient sa / sb in (1/2, 2), from its 2^0 bit down: `quo`, most significant first.
    let d = zext(&sb, m + 2);
    let mut r = zext(&sa, m + 2);
    let mut quo = Vec::new();
    for i in 0..m + 3 {
        if i > 0 {
            r.pop();
            r.insert(0, Lit::FALSE);
        }
        let (diff, ge) = sub_w(net, &r, &d);
        quo.push(ge);
        r = mux_w(net, ge, &diff, &r);
    }
    let mut p = vec![any(net, &r)];
    p.extend(quo.iter().rev());
    // The biased exponent of the 2^0 bit: ea - eb + bias.
    let bias = (1u64 << (e - 1)) - 1;
    let (t, _) = sub_w(net, &ea, &eb);
    let (t, _) = super::net::add(net, &t, &consts(bias, q), Lit::FALSE);
    let r = finish(net, f, sign, &p, &t);
    let zero = net.or(ua.zero, ub.inf);
    let r = mux_w(net, zero, &word(sign, &consts(0, m), &consts(0, e)), &r);
    let inf = net.or(ua.inf, ub.zero);
    let r = mux_w(net, inf, &infinity(f, sign), &r);
    let some_nan = net.or(ua.nan, ub.nan);
    let zz = net.and(ua.zero, ub.zero);
    let ii = net.and(ua.inf, ub.inf);
    let undefined = net.or(zz, ii);
    let nan = net.or(some_nan, undefined);
    mux_w(net, nan, &quiet_nan(f), &r)
}

/// `maximum(a, b)` (`max`) or `minimum(a, b)`: a NaN operand gives NaN, `-0 < +0`.
fn max_core(net: &mut Net, f: Format, a: &[Lit], b: &[Lit], max: bool) -> Vec<Lit> {
    let w = f.width();
    let (ua, ub) = (unpack(net, f, a), unpack(net, f, b));
    let mag_lt = lt_u(net, &a[..w - 1], &b[..w - 1]);
    let mag_gt = lt_u(net, &b[..w - 1], &a[..w - 1]);
    let lt = ordered_less(net, ua.sign, ub.sign, mag_lt, mag_gt, Lit::FALSE);
    let r = mux_w(net, lt.xor_neg(!max), b, a);
    let nan = net.or(ua.nan, ub.nan);
    mux_w(net, nan, &quiet_nan(f), &r)
}

/// The one-operand units on `x`.
fn cast_core(net: &mut Net, op: FloatCast, from: u32, to: u32, x: &[Lit]) -> Vec<Lit> {
    let (g, f) = (Format::of(from), Format::of(to));
    let q = g.exp.max(f.exp) + 3;
    let bias = |f: Format| (1u64 << (f.exp - 1)) - 1;
    // `v` (unsigned) padded below to the `man + 3` bits `finish` rounds on.
    let pad = |v: &[Lit]| -> Vec<Lit> {
        let n = (f.man + 3).saturating_sub(v.len());
        consts(0, n).into_iter().chain(v.iter().copied()).collect()
    };
    match op {
        FloatCast::Neg => {
            let mut v = x.to_vec();
            v[g.width() - 1] = !v[g.width() - 1];
            v
        }
        FloatCast::Ext | FloatCast::Trunc => {
            let u = unpack(net, g, x);
            // t = exp - bias(from) + bias(to), the biased exponent of the hidden bit.
            let shift = consts(bias(f).wrapping_sub(bias(g)), q);
            let (t, _) = super::net::add(net, &zext(&u.exp, q), &shift, Lit::FALSE);
            let r = finish(net, f, u.sign, &pad(&u.sig), &t);
            let r = mux_w(net, u.inf, &infinity(f, u.sign), &r);
            mux_w(net, u.nan, &quiet_nan(f), &r)
        }
        FloatCast::SiToFp | FloatCast::UiToFp => {
            let n = x.len();
            let neg = if op == FloatCast::SiToFp {
                x[n - 1]
            } else {
                Lit::FALSE
            };
            // |x| on n bits (unsigned: 2^(n-1) for the most negative).
            let flipped: Vec<Lit> = x.iter().map(|&l| net.xor(l, neg)).collect();
            let (mag, _) = super::net::add(net, &flipped, &consts(0, n), neg);
            let t = consts(bias(f) + n as u64 - 1, q);
            finish(net, f, neg, &pad(&mag), &t)
        }
        FloatCast::FpToSi => float_to_int(net, g, x, to as usize),
    }
}

/// `x` as an `n`-bit signed integer, rounded toward zero ([`FloatCast::FpToSi`]'s rule).
fn float_to_int(net: &mut Net, g: Format, x: &[Lit], n: usize) -> Vec<Lit> {
    let q = g.exp + 3;
    let u = unpack(net, g, x);
    // The unbiased exponent e: |x| < 1 below 0, out of range (or infinite, NaN) from n - 1.
    let (e, _) = sub_w(net, &zext(&u.exp, q), &consts((1 << (g.exp - 1)) - 1, q));
    let small = e[q - 1];
    let (_, big) = sub_w(net, &e, &consts(n as u64 - 1, q));
    let big = net.and(big, !small);
    // |x| = sig * 2^(e - man): sig shifted left by e, the top n bits above the fraction.
    let amount = (usize::BITS - (n - 1).leading_zeros()) as usize;
    let wide = shl(net, &zext(&u.sig, g.man + 1 + n), &e[..amount]);
    let mag = &wide[g.man..g.man + n];
    let flipped: Vec<Lit> = mag.iter().map(|&l| net.xor(l, u.sign)).collect();
    let (v, _) = super::net::add(net, &flipped, &consts(0, n), u.sign);
    let v: Vec<Lit> = v.iter().map(|&l| net.and(l, !small)).collect();
    // Saturated: INT_MIN (sign set) or INT_MAX.
    let mut sat: Vec<Lit> = vec![!u.sign; n];
    sat[n - 1] = u.sign;
    mux_w(net, big, &sat, &v)
}

/// Unsigned array multiplier: `a * b` on `a.len() + b.len()` bits.
fn multiply(net: &mut Net, a: &[Lit], b: &[Lit]) -> Vec<Lit> {
    let n = a.len() + b.len();
    let mut acc = consts(0, n);
    for (j, &bj) in b.iter().enumerate() {
        let row: Vec<Lit> = (0..n)
            .map(|i| {
                i.checked_sub(j)
                    .and_then(|k| a.get(k))
                    .map_or(Lit::FALSE, |&ak| net.and(ak, bj))
            })
            .collect();
        acc = super::net::add(net, &acc, &row, Lit::FALSE).0;
    }
    acc
}

/// `a pred b`.
fn cmp_core(net: &mut Net, f: Format, pred: FCmpPred, a: &[Lit], b: &[Lit]) -> Lit {
    let w = f.width();
    let (ua, ub) = (unpack(net, f, a), unpack(net, f, b));
    let unord = net.or(ua.nan, ub.nan);
    let both_zero = net.and(ua.zero, ub.zero);
    let same: Vec<Lit> = a.iter().zip(b).map(|(&x, &y)| !net.xor(x, y)).collect();
    let same = all(net, &same);
    let eq = net.or(same, both_zero);
    let mag_lt = lt_u(net, &a[..w - 1], &b[..w - 1]);
    let mag_gt = lt_u(net, &b[..w - 1], &a[..w - 1]);
    let (sa, sb) = (ua.sign, ub.sign);
    let lt = ordered_less(net, sa, sb, mag_lt, mag_gt, both_zero);
    let gt = ordered_less(net, sb, sa, mag_gt, mag_lt, both_zero);
    let le = net.or(lt, eq);
    let ge = net.or(gt, eq);
    let (base, unordered_true) = match pred {
        FCmpPred::False => return Lit::FALSE,
        FCmpPred::True => return Lit::TRUE,
        FCmpPred::Uno => return unord,
        FCmpPred::Ord => return !unord,
        FCmpPred::Oeq => (eq, false),
        FCmpPred::Ogt => (gt, false),
        FCmpPred::Oge => (ge, false),
        FCmpPred::Olt => (lt, false),
        FCmpPred::Ole => (le, false),
        FCmpPred::One => (!eq, false),
        FCmpPred::Ueq => (eq, true),
        FCmpPred::Ugt => (gt, true),
        FCmpPred::Uge => (ge, true),
        FCmpPred::Ult => (lt, true),
        FCmpPred::Ule => (le, true),
        FCmpPred::Une => (!eq, true),
    };
    if unordered_true {
        net.or(unord, base)
    } else {
        net.and(!unord, base)
    }
}

/// `a < b` for operands that are not NaN, by signs `sa`, `sb` and magnitudes (`lt`: |a| <
/// |b|, `gt`: |a| > |b|); `both_zero` makes `-0 < +0` false (IEEE comparison).
fn ordered_less(net: &mut Net, sa: Lit, sb: Lit, lt: Lit, gt: Lit, both_zero: Lit) -> Lit {
    let neg_pos = net.and(sa, !sb);
    let neg_pos = net.and(neg_pos, !both_zero);
    let both_pos = net.and(!sa, !sb);
    let pos = net.and(both_pos, lt);
    let both_neg = net.and(sa, sb);
    let neg = net.and(both_neg, gt);
    let t = net.or(neg_pos, pos);
    net.or(t, neg)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unit's ports are the FloPoCo wrapper's; latency l gives l result registers and
    /// l valid registers (l - 1 delay stages and the oehb).
    #[test]
    fn unit_ports_and_registers() {
        let b = Builtin::Float {
            op: FloatOp::Add,
            width: 32,
            latency: 10,
        };
        let net = unit(&b);
        assert_eq!(net.latches.len(), 10 * 33);
        let outs: Vec<&str> = net.outputs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(outs[..2], ["lhs_ready", "rhs_ready"]);
        assert_eq!(outs[2], "result[0]");
        assert_eq!(outs.last(), Some(&"result_valid"));
        let c = unit(&Builtin::CmpF {
            pred: FCmpPred::Olt,
            width: 32,
            latency: 0,
        });
        assert!(c.latches.is_empty());
        let outs: Vec<&str> = c.outputs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(outs, ["lhs_ready", "rhs_ready", "result", "result_valid"]);
        // One operand: no join; negf combinational, sitofp 5 stages of data and valid.
        let neg = unit(&Builtin::FloatCast {
            op: FloatCast::Neg,
            from: 32,
            to: 32,
            latency: 0,
        });
        assert!(neg.latches.is_empty() && neg.num_ands() == 0);
        let ins: Vec<&str> = neg.inputs.iter().map(|(n, _)| n.as_str()).collect();
        assert!(ins.contains(&"outs_ready") && ins.contains(&"ins[31]"));
        let outs: Vec<&str> = neg.outputs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!((outs[0], outs[33]), ("ins_ready", "outs_valid"));
        let conv = unit(&Builtin::FloatCast {
            op: FloatCast::SiToFp,
            from: 64,
            to: 32,
            latency: 5,
        });
        assert_eq!(conv.latches.len(), 5 * 33);
    }
}
