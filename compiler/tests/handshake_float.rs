//! The built-in float units (`compiler::handshake::float`) against Rust's `f32`/`f64`:
//! each data path (`float::core`) on at least 100,000 operand pairs per unit and precision
//! (special values crossed, random bit patterns, nearby exponents, rounding ties,
//! cancellations, subnormals, values near overflow), evaluated 64 vectors at a time with
//! `Net::eval64`, bit for bit; a NaN result must be the canonical quiet NaN. Then the
//! handshake: each unit cycle by cycle against a model of Dynamatic's FloPoCo wrapper, a
//! token stream with back-pressure, and (with yosys and ABC) the wrapper proved equal to
//! Dynamatic's own `join_type`, `delay_buffer` and `oehb_dataless`.

mod common;

use compiler::handshake::builtin::generate;
use compiler::handshake::float::{self, FCmpPred, FloatOp};
use compiler::handshake::mark::Builtin;
use compiler::handshake::net::Net;
use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

/// At least this many vectors per unit and precision.
const VECTORS: usize = 100_000;

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

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
    let mut rng = Rng(seed);
    let sp = fmt.specials();
    let mut v: Vec<(u64, u64)> = sp
        .iter()
        .flat_map(|&a| sp.iter().map(move |&b| (a, b)))
        .collect();
    let (m, bias, top) = (u64::from(fmt.man), fmt.bias(), fmt.max_exp());
    let mul = op == Some(FloatOp::Mul);
    let flip = if op == Some(FloatOp::Sub) {
        0
    } else {
        1 << (fmt.width - 1)
    };
    while v.len() < VECTORS {
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

/// `net` (inputs `lhs[..]` then `rhs[..]`) on every pair, 64 at a time: the result words.
fn run_core(net: &Net, fmt: Fmt, pairs: &[(u64, u64)]) -> Vec<u64> {
    let w = fmt.width as usize;
    assert_eq!(net.inputs.len(), 2 * w);
    let mut out = Vec::with_capacity(pairs.len());
    for chunk in pairs.chunks(64) {
        let mut ins = vec![0u64; 2 * w];
        for (k, &(a, b)) in chunk.iter().enumerate() {
            for i in 0..w {
                ins[i] |= ((a >> i) & 1) << k;
                ins[w + i] |= ((b >> i) & 1) << k;
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

/// Rust's result bits of `op` (NaN as `None`).
fn reference(op: FloatOp, fmt: Fmt, a: u64, b: u64) -> Option<u64> {
    if fmt.width == 32 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let r = match op {
            FloatOp::Add => x + y,
            FloatOp::Sub => x - y,
            FloatOp::Mul => x * y,
        };
        (!r.is_nan()).then_some(u64::from(r.to_bits()))
    } else {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let r = match op {
            FloatOp::Add => x + y,
            FloatOp::Sub => x - y,
            FloatOp::Mul => x * y,
        };
        (!r.is_nan()).then_some(r.to_bits())
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

fn check_arith(op: FloatOp) {
    for (fmt, seed) in [(F32, 0x1234_5678_9abc_def1), (F64, 0x0fed_cba9_8765_4321)] {
        let t = Instant::now();
        let b = Builtin::Float {
            op,
            width: fmt.width,
            latency: 1,
        };
        let net = float::core(&b);
        let pairs = vectors(fmt, Some(op), seed ^ op as u64);
        let got = run_core(&net, fmt, &pairs);
        let mut census = BTreeMap::new();
        for &r in &got {
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
        _ => unreachable!(),
    }
}

fn latency_of(b: &Builtin) -> usize {
    match *b {
        Builtin::Float { latency, .. } | Builtin::CmpF { latency, .. } => latency as usize,
        _ => 0,
    }
}

/// Dynamatic's FloPoCo wrapper as read from its templates: `join_type`, a `delay_buffer`
/// of `latency - 1` stages, `oehb_dataless`, the core's data pipeline of `latency` stages,
/// all enabled by the oehb's ready; the data registers are not reset.
struct Template {
    b: Builtin,
    lat: usize,
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
            valid: vec![false; lat.saturating_sub(1)],
            oehb: false,
            data: vec![0; lat],
        }
    }

    /// The outputs for these inputs, then the clock edge.
    fn step(&mut self, rst: bool, a: u64, lv: bool, c: u64, rv: bool, ready: bool) -> Pins {
        let value = unit_value(&self.b, a, c);
        let join = lv && rv;
        let (en, pins) = if self.lat == 0 {
            (ready, (value, join))
        } else {
            (!self.oehb || ready, (self.data[self.lat - 1], self.oehb))
        };
        let out = Pins {
            result: pins.0,
            result_valid: pins.1,
            lhs_ready: rv && en,
            rhs_ready: lv && en,
        };
        if self.lat > 0 {
            let buff = self.valid.last().copied().unwrap_or(join);
            self.oehb = !rst && (buff || (!ready && self.oehb));
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
            _ => 0,
        };
        Sim { net, state, width }
    }

    fn step(&mut self, rst: bool, a: u64, lv: bool, c: u64, rv: bool, ready: bool) -> Pins {
        let bit = |v: u64, i: usize| i < 64 && (v >> i) & 1 == 1;
        let ins: Vec<bool> = (self.net.inputs.iter())
            .map(|(name, _)| match name.as_str() {
                "lhs_valid" => lv,
                "rhs_valid" => rv,
                "result_ready" => ready,
                "rst" => rst,
                "clk" => false,
                n => {
                    let (port, i) = n.trim_end_matches(']').split_once('[').unwrap();
                    let i: usize = i.parse().unwrap();
                    assert!(i < self.width);
                    bit(if port == "lhs" { a } else { c }, i)
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
                "result_valid" => p.result_valid = v,
                "lhs_ready" => p.lhs_ready = v,
                "rhs_ready" => p.rhs_ready = v,
                "result" => p.result |= u64::from(v),
                n => {
                    let i: usize = n["result[".len()..n.len() - 1].parse().unwrap();
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
    ]
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
            assert!(p.lhs_ready && p.rhs_ready, "{b:?} cycle {cycle}");
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
/// Dynamatic's `join_type`, `delay_buffer` and `oehb_dataless` from the shared corpus.
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
    for (width, latency) in [(3u32, 1u32), (4, 2), (2, 5), (3, 10)] {
        let net = float::shell(width, latency);
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
