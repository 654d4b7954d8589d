//! Dynamatic's `spec_save_commit` (its VHDL generator `speculation/spec_save_commit.py`,
//! which has no Verilog template or BLIF unit): a FIFO of `depth` tokens with three
//! pointers, `Tail` (the next write), `Curr` (the next token to send on) and `Head` (the
//! oldest token not yet committed), steered by a 3-bit command on `ctrl`:
//!
//! - `000` pass: send the token at `Curr` (or the arriving one when `Curr` is at `Tail`)
//!   with `spec` = 1;
//! - `001` kill: drop the token at `Head` (when `Head` is `Curr`, only if the FIFO is not
//!   empty, and `Curr` moves with it);
//! - `011` pass-kill: pass, and drop `Head` with it;
//! - `010` resend: send the token at `Head` again with `spec` = 0 and drop it;
//! - `100` no compare: send the token at `Head` (or the arriving one when empty) with
//!   `spec` = 0 and drop it.
//!
//! The input is ready while the FIFO is not full; the token's own `spec` is not read. The
//! flags `Full`, `Empty` and `CurrEmpty` and the pointers update as the generator's
//! processes do (`Full` is set when a write brings `Tail + 2` to `Head`), all reset
//! synchronously by `rst`. Pointers are one-hot here, so each comparison of the generator
//! (`Head = Curr`, `Tail + 2 = Head`, ...) is one AND-OR over the slots.

use super::builtin::{flag, same_slot as same};
use super::net::{Init, Lit, Net};

/// The unit's signals in a net: inputs given, outputs returned.
pub(crate) struct Ports<'a> {
    pub ins: &'a [Lit],
    pub ins_valid: Lit,
    /// The 3-bit command, bit 0 first.
    pub ctrl: [Lit; 3],
    pub ctrl_valid: Lit,
    pub outs_ready: Lit,
    pub rst: Lit,
}

/// What the unit drives.
pub(crate) struct Outputs {
    pub outs: Vec<Lit>,
    pub outs_valid: Lit,
    pub outs_spec: Lit,
    pub ins_ready: Lit,
    pub ctrl_ready: Lit,
}

/// A one-hot pointer of `depth` latches, slot 0 after reset.
pub(super) fn pointer(net: &mut Net, depth: usize) -> Vec<Lit> {
    (0..depth)
        .map(|k| net.latch(if k == 0 { Init::One } else { Init::Zero }))
        .collect()
}

/// `p` moved on by `steps` slots.
fn ahead(p: &[Lit], steps: usize) -> Vec<Lit> {
    (0..p.len())
        .map(|k| p[(k + p.len() - steps % p.len()) % p.len()])
        .collect()
}

/// The word at one-hot `p` of `mem`.
pub(super) fn read(net: &mut Net, mem: &[Vec<Lit>], p: &[Lit], width: usize) -> Vec<Lit> {
    (0..width)
        .map(|b| {
            let mut acc = Lit::FALSE;
            for (slot, &sel) in mem.iter().zip(p) {
                let bit = net.and(sel, slot[b]);
                acc = net.or(acc, bit);
            }
            acc
        })
        .collect()
}

/// `p` moved on by one slot when `en`, back to slot 0 on `rst`.
fn step(net: &mut Net, p: &[Lit], en: Lit, rst: Lit) {
    let next = ahead(p, 1);
    for (k, (&q, &n)) in p.iter().zip(&next).enumerate() {
        let moved = net.mux(en, n, q);
        let reset = if k == 0 { Lit::TRUE } else { Lit::FALSE };
        let d = net.mux(rst, reset, moved);
        net.set_next(q, d);
    }
}

/// `spec_save_commit` of `depth` slots (at least 2) in `net`.
pub(crate) fn build(net: &mut Net, depth: usize, p: &Ports) -> Outputs {
    let width = p.ins.len();
    let (tail, head, curr) = (
        pointer(net, depth),
        pointer(net, depth),
        pointer(net, depth),
    );
    let full = net.latch(Init::Zero);
    let empty = net.latch(Init::One);
    let curr_empty = net.latch(Init::One);
    let mem: Vec<Vec<Lit>> = (0..depth)
        .map(|_| (0..width).map(|_| net.latch(Init::Zero)).collect())
        .collect();
    let tail_en = net.and(!full, p.ins_valid);
    // The command, decoded.
    let [c0, c1, c2] = p.ctrl;
    let is = |net: &mut Net, bits: [bool; 3]| {
        let lits: Vec<Lit> = [c0, c1, c2]
            .iter()
            .zip(bits)
            .map(|(&c, b)| c.xor_neg(!b))
            .chain([p.ctrl_valid])
            .collect();
        net.and_all(&lits)
    };
    let pass = is(net, [false, false, false]);
    let kill = is(net, [true, false, false]);
    let resend = is(net, [false, true, false]);
    let pass_kill = is(net, [true, true, false]);
    let no_cmp = is(net, [false, false, true]);
    // Sending the arriving token (bypass) needs it taken into the FIFO this cycle.
    let arriving = net.and(p.ins_valid, !full);
    let bypass_ok = net.and(p.outs_ready, arriving);
    let head_is_curr = same(net, &head, &curr);
    let at_curr = read(net, &mem, &curr, width);
    let at_head = read(net, &mem, &head, width);
    // Pass and pass-kill: from `Curr`, or bypass when `Curr` is at `Tail`.
    let passing = net.or(pass, pass_kill);
    let moved_pass = net.mux(curr_empty, bypass_ok, p.outs_ready);
    // No compare: from `Head`, or bypass when empty.
    let moved_nocmp = net.mux(empty, bypass_ok, p.outs_ready);
    let kill_ok = net.mux(head_is_curr, !empty, Lit::TRUE);
    let terms = [
        (passing, moved_pass),
        (kill, kill_ok),
        (resend, p.outs_ready),
        (no_cmp, moved_nocmp),
    ];
    let mut ctrl_ready = Lit::FALSE;
    for (when, r) in terms {
        let t = net.and(when, r);
        ctrl_ready = net.or(ctrl_ready, t);
    }
    // Curr moves on pass, pass-kill, no compare, and a kill at `Curr`.
    let curr_pass = net.and(passing, moved_pass);
    let curr_nocmp = net.and(no_cmp, moved_nocmp);
    let kill_curr = net.and_all(&[kill, head_is_curr, !empty]);
    let curr_en = net.or(curr_pass, curr_nocmp);
    let curr_en = net.or(curr_en, kill_curr);
    // Head moves on kill, pass-kill, resend and no compare.
    let head_kill = net.and(kill, kill_ok);
    let head_pk = net.and(pass_kill, moved_pass);
    let head_resend = net.and(resend, p.outs_ready);
    let head_en = net.or(head_kill, head_pk);
    let head_en = net.or(head_en, head_resend);
    let head_en = net.or(head_en, curr_nocmp);
    // The token sent and its valid.
    let pass_valid = net.mux(curr_empty, arriving, Lit::TRUE);
    let nocmp_valid = net.mux(empty, arriving, Lit::TRUE);
    let v_pass = net.and(passing, pass_valid);
    let v_nocmp = net.and(no_cmp, nocmp_valid);
    let outs_valid = net.or(v_pass, v_nocmp);
    let outs_valid = net.or(outs_valid, resend);
    let pass_data = (0..width)
        .map(|b| net.mux(curr_empty, p.ins[b], at_curr[b]))
        .collect::<Vec<_>>();
    let nocmp_data = (0..width)
        .map(|b| net.mux(empty, p.ins[b], at_head[b]))
        .collect::<Vec<_>>();
    let outs = (0..width)
        .map(|b| {
            let x = net.mux(no_cmp, nocmp_data[b], at_head[b]);
            net.mux(passing, pass_data[b], x)
        })
        .collect();
    // Sequential state.
    for (k, slot) in mem.iter().enumerate() {
        let we = net.and(tail_en, tail[k]);
        for (b, &q) in slot.iter().enumerate() {
            let d = net.mux(we, p.ins[b], q);
            net.set_next(q, d);
        }
    }
    // Full: a write alone bringing `Tail + 2` to `Head` sets it; a drop alone clears it.
    let tail2_head = same(net, &ahead(&tail, 2), &head);
    let write_only = net.and(tail_en, !head_en);
    let drop_only = net.and(!tail_en, head_en);
    let set_full = net.and(write_only, tail2_head);
    flag(net, full, set_full, drop_only, p.rst, Lit::FALSE);
    // Empty: a drop alone bringing `Head + 1` to `Tail` sets it; a write alone clears it.
    let head1_tail = same(net, &ahead(&head, 1), &tail);
    let set_empty = net.and(drop_only, head1_tail);
    flag(net, empty, set_empty, write_only, p.rst, Lit::TRUE);
    // CurrEmpty: the same with `Curr` for `Head`.
    let curr1_tail = same(net, &ahead(&curr, 1), &tail);
    let send_only = net.and(!tail_en, curr_en);
    let write_not_send = net.and(tail_en, !curr_en);
    let set_ce = net.and(send_only, curr1_tail);
    flag(net, curr_empty, set_ce, write_not_send, p.rst, Lit::TRUE);
    step(net, &tail, tail_en, p.rst);
    step(net, &head, head_en, p.rst);
    step(net, &curr, curr_en, p.rst);
    Outputs {
        outs,
        outs_valid,
        outs_spec: passing,
        ins_ready: !full,
        ctrl_ready,
    }
}
