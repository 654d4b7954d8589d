//! Built-in AIG generators for units whose library file is missing, blackboxed (data
//! outputs undriven) or wrong for the op's attributes (the library fixes `cmpi` to `ult` and
//! `constant` to 1), and the data FIFOs (`tfifo`, `elastic_fifo_inner`) the library lacks.
//!
//! Every generated unit has the port names and handshake behaviour of the library units
//! (Appendix A of the notes): binary operators and `select` join their inputs (result valid
//! = AND of input valids; each input's ready = result ready AND the other valids), unary
//! units pass valid and ready through (`trunci` is ready also while its input is not valid, as
//! in the library). All but the FIFOs are combinational; `clk` and `rst` are inputs so the
//! interface matches the library (the FIFOs reset synchronously on `rst`, like the library's
//! units). `select` joins all three inputs (the library's selector additionally discards the
//! unselected token early with antitokens). The FIFOs follow Dynamatic's `elastic_fifo_inner`
//! (circular buffer, Full/Empty flags, memory not written during reset) and `tfifo` (bypass
//! while empty); they are checked against the regenerated units with `dsec`. The float units
//! (`addf`, `subf`, `mulf`, `divf`, `cmpf`, `maximumf`, `minimumf`, `negf`, `extf`,
//! `truncf`, `sitofp`, `uitofp`, `fptosi`) are [`super::float`]'s, with the handshake and
//! latency of Dynamatic's units.

use super::mark::{BinOp, Builtin, CmpPred, ports};
use super::net::{Lit, Net, add};
use super::signals::{SigKind, signals};

/// The generated unit: a compacted [`Net`] with named ports.
pub fn generate(b: &Builtin) -> Net {
    if let Builtin::Fifo {
        slots,
        width,
        transparent,
    } = *b
    {
        return fifo(slots as usize, width as usize, transparent);
    }
    if let Builtin::Float { .. } | Builtin::CmpF { .. } | Builtin::FloatCast { .. } = b {
        return super::float::unit(b);
    }
    match *b {
        Builtin::Init { token } => return init(Some(token)),
        Builtin::RepeatingInit => return init(None),
        Builtin::Resolver => return resolver(),
        _ => {}
    }
    let (ins, outs) = ports(b);
    let (isig, osig) = signals(&ins, &outs, true);
    let mut net = Net::new();
    let lits: Vec<Lit> = isig.iter().map(|s| net.input(s.name.clone())).collect();
    // Group input literals per port: data bits and valid (inputs), ready (outputs).
    let data = |port: usize| -> Vec<Lit> {
        isig.iter()
            .zip(&lits)
            .filter(|(s, _)| {
                s.port == super::signals::PortRef::Input(port) && matches!(s.kind, SigKind::Data(_))
            })
            .map(|(_, l)| *l)
            .collect()
    };
    let valid_in: Vec<Lit> = (0..ins.len())
        .map(|p| {
            find(
                &isig,
                &lits,
                super::signals::PortRef::Input(p),
                SigKind::Valid,
            )
        })
        .collect();
    let ready_out = find(
        &isig,
        &lits,
        super::signals::PortRef::Output(0),
        SigKind::Ready,
    );
    let result = body(b, &mut net, &(0..ins.len()).map(data).collect::<Vec<_>>());
    // A passer's join is ready for a token it drops (`ctrl` = 0) whatever `result` does,
    // and offers only the tokens it passes (Dynamatic's passer generator).
    let (ready_out, pass) = match b {
        Builtin::Passer { .. } => {
            let ctrl = data(1).first().copied().unwrap_or(Lit::FALSE);
            (net.or(!ctrl, ready_out), ctrl)
        }
        _ => (ready_out, Lit::TRUE),
    };
    // Join: output valid = AND of input valids; input i ready = out ready AND others' valids.
    let joined = net.and_all(&valid_in);
    let out_valid = net.and(joined, pass);
    let mut readies = Vec::new();
    for i in 0..ins.len() {
        let mut terms: Vec<Lit> = valid_in
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, l)| *l)
            .collect();
        terms.push(ready_out);
        readies.push(net.and_all(&terms));
    }
    // The library's `trunci` is ready whenever it holds no token: !ins_valid | outs_ready.
    if let Builtin::Trunc { .. } = b {
        readies[0] = net.or(!valid_in[0], ready_out);
    }
    for s in &osig {
        let l = match (s.port, s.kind) {
            (super::signals::PortRef::Input(p), SigKind::Ready) => readies[p],
            (_, SigKind::Data(bit)) => result[bit as usize],
            (_, SigKind::Valid) => out_valid,
            _ => Lit::FALSE,
        };
        net.output(s.name.clone(), l);
    }
    net.compact().unwrap_or(net)
}

fn find(
    sigs: &[super::signals::Signal],
    lits: &[Lit],
    port: super::signals::PortRef,
    kind: SigKind,
) -> Lit {
    sigs.iter()
        .zip(lits)
        .find(|(s, _)| s.port == port && s.kind == kind)
        .map_or(Lit::FALSE, |(_, l)| *l)
}

/// Dynamatic's `init` (`token` = `Some(t)`: `t` once, from reset until taken, then
/// the input's tokens) or `spec_v2_repeating_init` (`None`: a 1 from reset, and again after
/// each 0 that goes out). One flag latch, set by reset; ports `clk rst ins ins_valid
/// outs_ready` → `outs outs_valid ins_ready`.
fn init(token: Option<bool>) -> Net {
    use super::net::Init;
    let mut net = Net::new();
    let _clk = net.input("clk");
    let rst = net.input("rst");
    let ins = net.input("ins");
    let ins_valid = net.input("ins_valid");
    let outs_ready = net.input("outs_ready");
    let first = net.latch(Init::One);
    let lit = |b: bool| if b { Lit::TRUE } else { Lit::FALSE };
    let outs = net.mux(first, lit(token.unwrap_or(true)), ins);
    let outs_valid = net.or(first, ins_valid);
    let ins_ready = net.and(!first, outs_ready);
    let next = match token {
        // Cleared whenever the consumer is ready (the token is taken, or none is pending).
        Some(_) => net.and(first, !outs_ready),
        // On a transfer: emit a 1 next after a 0.
        None => {
            let fire = net.and(outs_valid, outs_ready);
            net.mux(fire, !outs, first)
        }
    };
    let d = net.mux(rst, Lit::TRUE, next);
    net.set_next(first, d);
    net.output("outs", outs);
    net.output("outs_valid", outs_valid);
    net.output("ins_ready", ins_ready);
    net.compact().unwrap_or(net)
}

/// Dynamatic's `spec_v2_resolver` ([`Builtin::Resolver`]): a join of the actual and the
/// generated condition whose token is the `idle` state bit.
fn resolver() -> Net {
    use super::net::Init;
    let mut net = Net::new();
    let _clk = net.input("clk");
    let rst = net.input("rst");
    let actual = net.input("ins[0]");
    let actual_valid = net.input("ins_valid[0]");
    let generated = net.input("ins[1]");
    let generated_valid = net.input("ins_valid[1]");
    let outs_ready = net.input("outs_ready");
    let idle = net.latch(Init::One);
    let outs_valid = net.and(actual_valid, generated_valid);
    let transfer = net.and(outs_valid, outs_ready);
    let leave = net.and(!actual, generated);
    let next = net.mux(idle, !leave, !generated);
    let kept = net.mux(transfer, next, idle);
    let d = net.mux(rst, Lit::TRUE, kept);
    net.set_next(idle, d);
    let ready0 = net.and(outs_ready, generated_valid);
    let ready1 = net.and(outs_ready, actual_valid);
    net.output("ins_ready[0]", ready0);
    net.output("ins_ready[1]", ready1);
    net.output("outs", idle);
    net.output("outs_valid", outs_valid);
    net.compact().unwrap_or(net)
}

/// One-hot rotation: slot i+1 takes slot i.
fn rotate(v: &[Lit]) -> Vec<Lit> {
    (0..v.len())
        .map(|i| v[(i + v.len() - 1) % v.len()])
        .collect()
}

/// Whether two one-hot vectors select the same slot.
pub(crate) fn same_slot(net: &mut Net, a: &[Lit], b: &[Lit]) -> Lit {
    let terms: Vec<Lit> = a.iter().zip(b).map(|(&x, &y)| !net.and(x, y)).collect();
    !net.and_all(&terms)
}

/// A latch vector updated to `next` when `en`, reset (synchronously, by `rst`) to `reset`.
fn register(net: &mut Net, q: &[Lit], next: &[Lit], en: Lit, rst: Lit, reset: &[bool]) {
    for ((&l, &n), &r) in q.iter().zip(next).zip(reset) {
        let held = net.mux(en, n, l);
        let d = net.mux(rst, if r { Lit::TRUE } else { Lit::FALSE }, held);
        net.set_next(l, d);
    }
}

/// The flag latch `q` set by `set`, cleared by `clear` (else kept), reset (synchronously, by
/// `rst`) to `reset`.
pub(crate) fn flag(net: &mut Net, q: Lit, set: Lit, clear: Lit, rst: Lit, reset: Lit) {
    let keep = net.and(q, !clear);
    let d = net.or(set, keep);
    let next = net.mux(rst, reset, d);
    net.set_next(q, next);
}

/// A circular buffer: one-hot `head` and `tail` pointers, `full` and `empty` flags and
/// `memory` words, as Dynamatic's `elastic_fifo_inner` and its speculator's `predFifo` keep
/// them (they differ only in their handshakes, which give the enables).
pub(crate) struct Ring {
    pub head: Vec<Lit>,
    pub tail: Vec<Lit>,
    pub full: Lit,
    pub empty: Lit,
    pub memory: Vec<Vec<Lit>>,
}

impl Ring {
    /// The state after a clock edge with enables `write_en` and `read_en` (each pointer
    /// moves on its own; all reset synchronously by `rst`). Full: set by a write without a
    /// read that fills the last slot, cleared by a read without a write; Empty
    /// symmetrically. Memory: the slot at `tail` takes `ins` on a write, except during
    /// reset.
    pub(crate) fn update(&self, net: &mut Net, write_en: Lit, read_en: Lit, ins: &[Lit], rst: Lit) {
        let (head, tail) = (&self.head, &self.tail);
        let one_hot0: Vec<bool> = (0..head.len()).map(|i| i == 0).collect();
        let (head_next, tail_next) = (rotate(head), rotate(tail));
        register(net, head, &head_next, read_en, rst, &one_hot0);
        register(net, tail, &tail_next, write_en, rst, &one_hot0);
        let only_write = net.and(write_en, !read_en);
        let only_read = net.and(read_en, !write_en);
        let fills = same_slot(net, &tail_next, head);
        let set_full = net.and(only_write, fills);
        flag(net, self.full, set_full, only_read, rst, Lit::FALSE);
        let drains = same_slot(net, &head_next, tail);
        let set_empty = net.and(only_read, drains);
        flag(net, self.empty, set_empty, only_write, rst, Lit::TRUE);
        let write_data = net.and(write_en, !rst);
        for (slot, word) in self.memory.iter().enumerate() {
            let we = net.and(write_data, tail[slot]);
            for (b, &l) in word.iter().enumerate() {
                let d = net.mux(we, ins[b], l);
                net.set_next(l, d);
            }
        }
    }
}

/// Dynamatic's `elastic_fifo_inner` (circular buffer with Head/Tail pointers, here one-hot,
/// and Full/Empty flags), wrapped as `tfifo` (a bypass while the FIFO is empty) when
/// `transparent`. Ports as the library's: `clk rst ins[..] ins_valid outs_ready` →
/// `outs[..] outs_valid ins_ready`.
fn fifo(slots: usize, width: usize, transparent: bool) -> Net {
    use super::net::Init;
    let mut net = Net::new();
    let _clk = net.input("clk");
    let rst = net.input("rst");
    let ins: Vec<Lit> = super::names::bit_names("ins", width as u32)
        .into_iter()
        .map(|n| net.input(n))
        .collect();
    let ins_valid = net.input("ins_valid");
    let outs_ready = net.input("outs_ready");
    let first = |i: usize| if i == 0 { Init::One } else { Init::Zero };
    let head: Vec<Lit> = (0..slots).map(|i| net.latch(first(i))).collect();
    let tail: Vec<Lit> = (0..slots).map(|i| net.latch(first(i))).collect();
    let full = net.latch(Init::Zero);
    let empty = net.latch(Init::One);
    let memory: Vec<Vec<Lit>> = (0..slots)
        .map(|_| (0..width).map(|_| net.latch(Init::Zero)).collect())
        .collect();
    // The inner FIFO's handshake, seen from the wrapper.
    let fifo_valid = !empty;
    let fifo_pvalid = if transparent {
        let t = net.or(!outs_ready, fifo_valid);
        net.and(ins_valid, t)
    } else {
        ins_valid
    };
    let fifo_ready = net.or(!full, outs_ready);
    let read_en = net.and(outs_ready, !empty);
    let write_en = net.and(fifo_pvalid, fifo_ready);
    let ring = Ring {
        head,
        tail,
        full,
        empty,
        memory,
    };
    ring.update(&mut net, write_en, read_en, &ins, rst);
    let (head, memory) = (&ring.head, &ring.memory);
    let fifo_out: Vec<Lit> = (0..width)
        .map(|b| {
            let terms: Vec<Lit> = (0..slots)
                .map(|s| !net.and(head[s], memory[s][b]))
                .collect();
            !net.and_all(&terms)
        })
        .collect();
    let (outs, outs_valid, ins_ready) = if transparent {
        let outs: Vec<Lit> = (0..width)
            .map(|b| net.mux(fifo_valid, fifo_out[b], ins[b]))
            .collect();
        let v = net.or(ins_valid, fifo_valid);
        let r = net.or(fifo_ready, outs_ready);
        (outs, v, r)
    } else {
        (fifo_out, fifo_valid, fifo_ready)
    };
    for (name, l) in super::names::bit_names("outs", width as u32)
        .into_iter()
        .zip(outs)
    {
        net.output(name, l);
    }
    net.output("outs_valid", outs_valid);
    net.output("ins_ready", ins_ready);
    net.compact().unwrap_or(net)
}

/// The data bits of the result, from the data bits of each input port.
fn body(b: &Builtin, net: &mut Net, d: &[Vec<Lit>]) -> Vec<Lit> {
    match *b {
        Builtin::Constant { width, value } => (0..width)
            .map(|i| {
                let bit = if i < 127 {
                    (value >> i) & 1 == 1
                } else {
                    value < 0
                };
                if bit { Lit::TRUE } else { Lit::FALSE }
            })
            .collect(),
        Builtin::Cmp { pred, .. } => vec![compare(net, pred, &d[0], &d[1])],
        Builtin::Binary { op, .. } => binary(net, op, &d[0], &d[1]),
        Builtin::Ext { signed, to, .. } => {
            let x = &d[0];
            let fill = if signed {
                x.last().copied().unwrap_or(Lit::FALSE)
            } else {
                Lit::FALSE
            };
            (0..to as usize)
                .map(|i| x.get(i).copied().unwrap_or(fill))
                .collect()
        }
        Builtin::Trunc { to, .. } => d[0].iter().take(to as usize).copied().collect(),
        Builtin::Not { .. } => d[0].iter().map(|&l| !l).collect(),
        Builtin::Select { .. } => {
            let c = d[0].first().copied().unwrap_or(Lit::FALSE);
            d[1].iter()
                .zip(&d[2])
                .map(|(&t, &f)| net.mux(c, t, f))
                .collect()
        }
        Builtin::Passer { .. } => d[0].clone(),
        Builtin::Join { .. }
        | Builtin::Fifo { .. }
        | Builtin::Init { .. }
        | Builtin::RepeatingInit
        | Builtin::Resolver
        | Builtin::Float { .. }
        | Builtin::CmpF { .. }
        | Builtin::FloatCast { .. } => Vec::new(),
    }
}

fn binary(net: &mut Net, op: BinOp, a: &[Lit], b: &[Lit]) -> Vec<Lit> {
    match op {
        BinOp::Add => add(net, a, b, Lit::FALSE).0,
        BinOp::Sub => {
            let nb: Vec<Lit> = b.iter().map(|&l| !l).collect();
            add(net, a, &nb, Lit::TRUE).0
        }
        BinOp::And => a.iter().zip(b).map(|(&x, &y)| net.and(x, y)).collect(),
        BinOp::Or => a.iter().zip(b).map(|(&x, &y)| net.or(x, y)).collect(),
        BinOp::Xor => a.iter().zip(b).map(|(&x, &y)| net.xor(x, y)).collect(),
        BinOp::Shl => shift(net, a, b, ShiftKind::Left),
        BinOp::ShrU => shift(net, a, b, ShiftKind::RightLogical),
        BinOp::ShrS => shift(net, a, b, ShiftKind::RightArith),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum ShiftKind {
    Left,
    RightLogical,
    RightArith,
}

/// Barrel shifter; a shift amount ≥ width gives 0 (or the sign for arithmetic shifts).
fn shift(net: &mut Net, a: &[Lit], amount: &[Lit], kind: ShiftKind) -> Vec<Lit> {
    let w = a.len();
    let fill = match kind {
        ShiftKind::RightArith => a.last().copied().unwrap_or(Lit::FALSE),
        _ => Lit::FALSE,
    };
    let mut cur = a.to_vec();
    let mut overflow = Lit::FALSE;
    for (k, &s) in amount.iter().enumerate() {
        let dist = 1usize.checked_shl(k as u32).filter(|&d| d < w);
        let Some(dist) = dist else {
            overflow = net.or(overflow, s);
            continue;
        };
        let shifted: Vec<Lit> = (0..w)
            .map(|i| match kind {
                ShiftKind::Left => i.checked_sub(dist).map_or(Lit::FALSE, |j| cur[j]),
                _ => cur.get(i + dist).copied().unwrap_or(fill),
            })
            .collect();
        cur = (0..w).map(|i| net.mux(s, shifted[i], cur[i])).collect();
    }
    cur.iter().map(|&l| net.mux(overflow, fill, l)).collect()
}

/// Unsigned `a < b`: the borrow out of `a - b`.
fn less_unsigned(net: &mut Net, a: &[Lit], b: &[Lit]) -> Lit {
    let nb: Vec<Lit> = b.iter().map(|&l| !l).collect();
    let (_, carry) = add(net, a, &nb, Lit::TRUE);
    !carry
}

fn compare(net: &mut Net, pred: CmpPred, a: &[Lit], b: &[Lit]) -> Lit {
    // Signed comparisons are unsigned comparisons with the sign bits flipped.
    let flip = |x: &[Lit]| -> Vec<Lit> {
        let mut v = x.to_vec();
        if let Some(last) = v.last_mut() {
            *last = !*last;
        }
        v
    };
    let (sa, sb) = (flip(a), flip(b));
    match pred {
        CmpPred::Eq | CmpPred::Ne => {
            let eqs: Vec<Lit> = a.iter().zip(b).map(|(&x, &y)| !net.xor(x, y)).collect();
            let eq = net.and_all(&eqs);
            if pred == CmpPred::Eq { eq } else { !eq }
        }
        CmpPred::Ult => less_unsigned(net, a, b),
        CmpPred::Uge => !less_unsigned(net, a, b),
        CmpPred::Ugt => less_unsigned(net, b, a),
        CmpPred::Ule => !less_unsigned(net, b, a),
        CmpPred::Slt => less_unsigned(net, &sa, &sb),
        CmpPred::Sge => !less_unsigned(net, &sa, &sb),
        CmpPred::Sgt => less_unsigned(net, &sb, &sa),
        CmpPred::Sle => !less_unsigned(net, &sb, &sa),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: u64, w: u32) -> Vec<bool> {
        (0..w).map(|i| (v >> i) & 1 == 1).collect()
    }

    fn value(b: &[bool]) -> u64 {
        b.iter().enumerate().map(|(i, &x)| u64::from(x) << i).sum()
    }

    fn sext(v: u64, w: u32) -> i64 {
        ((v << (64 - w)) as i64) >> (64 - w)
    }

    /// Reference semantics of the data path.
    fn reference(b: &Builtin, a: u64, c: u64) -> u64 {
        let mask = |w: u32| if w >= 64 { u64::MAX } else { (1 << w) - 1 };
        match *b {
            Builtin::Binary { op, width: w } => {
                let r = match op {
                    BinOp::Add => a.wrapping_add(c),
                    BinOp::Sub => a.wrapping_sub(c),
                    BinOp::And => a & c,
                    BinOp::Or => a | c,
                    BinOp::Xor => a ^ c,
                    BinOp::Shl => {
                        if c >= u64::from(w) {
                            0
                        } else {
                            a << c
                        }
                    }
                    BinOp::ShrU => {
                        if c >= u64::from(w) {
                            0
                        } else {
                            a >> c
                        }
                    }
                    BinOp::ShrS => (sext(a, w) >> c.min(63)) as u64,
                };
                r & mask(w)
            }
            Builtin::Cmp { pred, width: w } => {
                let (sa, sc) = (sext(a, w), sext(c, w));
                u64::from(match pred {
                    CmpPred::Eq => a == c,
                    CmpPred::Ne => a != c,
                    CmpPred::Ult => a < c,
                    CmpPred::Ule => a <= c,
                    CmpPred::Ugt => a > c,
                    CmpPred::Uge => a >= c,
                    CmpPred::Slt => sa < sc,
                    CmpPred::Sle => sa <= sc,
                    CmpPred::Sgt => sa > sc,
                    CmpPred::Sge => sa >= sc,
                })
            }
            _ => unreachable!(),
        }
    }

    /// Exhaustive check of data, valid and ready of a two-input unit.
    fn check_binary(b: &Builtin, w: u32) {
        let net = generate(b);
        let names: Vec<&str> = net.inputs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names.len(), 2 * w as usize + 5, "{names:?}");
        for a in 0..(1u64 << w) {
            for c in 0..(1u64 << w) {
                for ctl in 0..8u64 {
                    let (lv, rv, rr) = (ctl & 1 == 1, ctl & 2 == 2, ctl & 4 == 4);
                    let mut inp = bits(a, w);
                    inp.push(lv);
                    inp.extend(bits(c, w));
                    inp.push(rv);
                    inp.extend([rr, false, false]);
                    let (out, _) = net.eval(&inp, &[]);
                    // outputs: lhs_ready rhs_ready result[..] result_valid
                    assert_eq!(out[0], rv && rr, "{b:?}");
                    assert_eq!(out[1], lv && rr, "{b:?}");
                    let rw = out.len() - 3;
                    assert_eq!(value(&out[2..2 + rw]), reference(b, a, c), "{b:?} {a} {c}");
                    assert_eq!(out[2 + rw], lv && rv);
                }
            }
        }
    }

    #[test]
    fn binary_operators_exhaustive() {
        for w in 1..=4 {
            for op in BinOp::ALL {
                check_binary(&Builtin::Binary { op, width: w }, w);
            }
        }
    }

    #[test]
    fn comparisons_exhaustive() {
        for w in 1..=4 {
            for pred in CmpPred::ALL {
                check_binary(&Builtin::Cmp { pred, width: w }, w);
            }
        }
    }

    #[test]
    fn casts_and_not_exhaustive() {
        for from in 1..=4u32 {
            for to in 1..=5u32 {
                let cases = [
                    (
                        Builtin::Ext {
                            signed: true,
                            from,
                            to,
                        },
                        to >= from,
                    ),
                    (
                        Builtin::Ext {
                            signed: false,
                            from,
                            to,
                        },
                        to >= from,
                    ),
                    (Builtin::Trunc { from, to }, to <= from),
                ];
                for (b, ok) in cases {
                    if !ok {
                        continue;
                    }
                    let net = generate(&b);
                    for x in 0..(1u64 << from) {
                        let mut inp = bits(x, from);
                        inp.extend([true, true, false, false]);
                        let (out, _) = net.eval(&inp, &[]);
                        let want = match b {
                            Builtin::Ext { signed: true, .. } => {
                                sext(x, from) as u64 & ((1 << to) - 1)
                            }
                            _ => x & ((1 << to) - 1),
                        };
                        assert_eq!(value(&out[1..1 + to as usize]), want, "{b:?} {x}");
                        assert!(out[0] && out[1 + to as usize]);
                        // Not valid, not ready downstream: only trunci is ready.
                        let mut idle = bits(x, from);
                        idle.extend([false, false, false, false]);
                        let (out, _) = net.eval(&idle, &[]);
                        assert_eq!(out[0], matches!(b, Builtin::Trunc { .. }), "{b:?}");
                    }
                }
            }
            let net = generate(&Builtin::Not { width: from });
            for x in 0..(1u64 << from) {
                let mut inp = bits(x, from);
                inp.extend([false, true, false, false]);
                let (out, _) = net.eval(&inp, &[]);
                assert_eq!(value(&out[1..1 + from as usize]), !x & ((1 << from) - 1));
                assert!(out[0] && !out[1 + from as usize]);
            }
        }
    }

    #[test]
    fn constant_select_join() {
        let net = generate(&Builtin::Constant {
            width: 4,
            value: -3,
        });
        let (out, _) = net.eval(&[true, false, false, false], &[]);
        // ctrl_ready outs[0..3] outs_valid
        assert_eq!(out, [false, true, false, true, true, true]);
        let net = generate(&Builtin::Select { width: 2 });
        for v in 0..128u64 {
            let c = v & 1 == 1;
            let t = (v >> 1) & 3;
            let f = (v >> 3) & 3;
            let ctl = v >> 5;
            let inp = vec![
                c,
                ctl & 1 == 1,
                t & 1 == 1,
                t & 2 == 2,
                true,
                f & 1 == 1,
                f & 2 == 2,
                true,
                ctl & 2 == 2,
                false,
                false,
            ];
            let (out, _) = net.eval(&inp, &[]);
            assert_eq!(value(&out[3..5]), if c { t } else { f });
            assert_eq!(out[5], ctl & 1 == 1);
            assert_eq!(out[0], ctl & 2 == 2);
        }
        let net = generate(&Builtin::Join { n: 3 });
        let names: Vec<&str> = net.outputs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["ins_ready[0]", "ins_ready[1]", "ins_ready[2]", "outs_valid"]
        );
        for v in 0..16u64 {
            let inp: Vec<bool> = (0..4)
                .map(|i| (v >> i) & 1 == 1)
                .chain([false, false])
                .collect();
            let (out, _) = net.eval(&inp, &[]);
            let all = inp[0] && inp[1] && inp[2];
            assert_eq!(out[3], all);
            assert_eq!(out[0], inp[1] && inp[2] && inp[3]);
        }
    }

    /// Pushes values through a 2-slot FIFO cycle by cycle (non-transparent and transparent).
    #[test]
    fn fifo_keeps_order_and_back_pressure() {
        use crate::handshake::net::{Init, Node};
        for transparent in [false, true] {
            let net = generate(&Builtin::Fifo {
                slots: 2,
                width: 2,
                transparent,
            });
            let mut state: Vec<bool> = net
                .latches
                .iter()
                .map(|&l| {
                    matches!(
                        net.nodes[l],
                        Node::Latch {
                            init: Init::One,
                            ..
                        }
                    )
                })
                .collect();
            // (data, ins_valid, outs_ready) → expected (outs, outs_valid, ins_ready)
            let mut step = |d: u64, v: bool, r: bool| {
                let inp = vec![false, false, d & 1 == 1, d & 2 == 2, v, r];
                let (o, next) = net.eval(&inp, &state);
                state = next;
                (value(&o[..2]), o[2], o[3])
            };
            if transparent {
                // Empty and ready downstream: the token passes through in the same cycle.
                assert_eq!(step(3, true, true), (3, true, true));
            }
            assert!(step(1, true, false).2);
            assert_eq!(step(2, true, false), (1, true, true));
            // Full: back-pressure.
            assert_eq!(step(3, true, false), (1, true, false));
            assert_eq!(step(0, false, true), (1, true, true));
            assert_eq!(step(0, false, true), (2, true, true));
            let (_, valid, ready) = step(0, false, true);
            assert!(!valid && ready);
        }
    }
}
