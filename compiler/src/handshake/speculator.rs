//! Dynamatic's `speculator` (its VHDL generator `speculation/speculator.py`, which has no
//! Verilog template or BLIF unit), the central unit of a speculative loop, generated whole
//! from the parts that generator instantiates:
//!
//! - a 2-way eager fork of the data input (`ins` with its `spec`): one copy to the core, one
//!   to the predictor;
//! - the **predictor**: it keeps the last real value it saw (`data_reg`, 1 after reset) and
//!   offers it when the dataless `trigger` arrives; its offer (`data_out`) is a register
//!   that takes `data_reg` at each handshake, so a prediction is the value held from the
//!   handshake before (1 after reset). The offer's `spec` is the trigger's;
//! - the **FIFO of predictions** (`fifoDepth` slots, Dynamatic's `predFifo`: a write only
//!   while not full, `Full`/`Empty` flags set as a lone write or read reaches the other
//!   pointer);
//! - the **core** (`specgenCore`), a six-state machine (PASS, SPEC, NO_CMP, CMP_CORRECT,
//!   CMP_WRONG, KILL). In PASS it sends a prediction while no real value is there (code
//!   `000`, the prediction goes out with `spec` = 1 and into the FIFO), compares an arriving
//!   real value with the FIFO's oldest prediction (`010` correct, `101` correct while a new
//!   prediction goes out, `011` wrong: the real value goes out with `spec` = 0), or passes
//!   it on when nothing was predicted (`001`). It waits in the other states until the code
//!   is taken; after a wrong prediction, KILL sends `100` for each prediction left in the
//!   FIFO and swallows speculative data and triggers until a real one of each is there;
//! - a 5-way eager fork of the 3-bit code and five decoders turning it into the unit's
//!   channels: the data output's valid, `saveCtrl` (1: drop the saved token, 0: resend),
//!   `commitCtrl` and `SCIsMisspec` (0: pass, 1: discard) and the save-commit commands
//!   `SCSaveCtrl` / `SCCommitCtrl` (`spec_save_commit`'s codes).
//!
//! Every process is built as the generator writes it, the priorities of its `if` chains
//! included. Two choices: registers reset synchronously by `rst` (the predictor's reset is
//! asynchronous in the VHDL, which differs only while `rst` is high), and the op's
//! `defaultValue` and `constant` attributes are not read, as the generator reads neither
//! (the first prediction is 1, later ones follow the real values).

use super::builtin::Ring;
use super::net::{Init, Lit, Net};
use super::spec_save::{pointer, read};

/// The unit's inputs.
pub(crate) struct Ports<'a> {
    pub ins: &'a [Lit],
    pub ins_valid: Lit,
    pub ins_spec: Lit,
    pub trigger_valid: Lit,
    pub trigger_spec: Lit,
    /// The readies of the six outputs, in result order: `dataOut`, `saveCtrl`,
    /// `commitCtrl`, `SCSaveCtrl`, `SCCommitCtrl`, `SCIsMisspec`.
    pub ready: [Lit; 6],
    pub rst: Lit,
}

/// One output channel: its data bits (bit 0 first) and valid.
pub(crate) struct Channel {
    pub data: Vec<Lit>,
    pub valid: Lit,
}

/// What the unit drives.
pub(crate) struct Outputs {
    /// The six outputs in result order (see [`Ports::ready`]).
    pub results: [Channel; 6],
    pub outs_spec: Lit,
    pub ins_ready: Lit,
    pub trigger_ready: Lit,
}

/// Dynamatic's eager fork (`fork_dataless`: one `eager_fork_register_block` per output)
/// of `n` outputs: its transmit latches, 1 after reset.
struct EagerFork {
    transmit: Vec<Lit>,
}

impl EagerFork {
    fn new(net: &mut Net, n: usize) -> EagerFork {
        EagerFork {
            transmit: (0..n).map(|_| net.latch(Init::One)).collect(),
        }
    }

    /// The outputs' valids for input valid `v`.
    fn valids(&self, net: &mut Net, v: Lit) -> Vec<Lit> {
        self.transmit.iter().map(|&t| net.and(t, v)).collect()
    }

    /// The fork's `ins_ready` given its outputs' readies; sets the latches' next state.
    fn ready(&self, net: &mut Net, v: Lit, readies: &[Lit], rst: Lit) -> Lit {
        let keep: Vec<Lit> = (self.transmit.iter().zip(readies))
            .map(|(&t, &r)| net.and(!r, t))
            .collect();
        let none_kept = net.and_all(&keep.iter().map(|&k| !k).collect::<Vec<_>>());
        let backpressure = net.and(v, !none_kept);
        for (&t, &k) in self.transmit.iter().zip(&keep) {
            let d = net.or(k, !backpressure);
            let d = net.or(d, rst);
            net.set_next(t, d);
        }
        none_kept
    }
}

/// The six states, one latch each (one-hot), PASS after reset.
struct States {
    pass: Lit,
    spec: Lit,
    no_cmp: Lit,
    cmp_correct: Lit,
    cmp_wrong: Lit,
    kill: Lit,
}

/// The 3-bit codes of the core (`control_outs`).
const SPEC: u8 = 0b000;
const NO_CMP: u8 = 0b001;
const CMP_CORRECT: u8 = 0b010;
const RESEND: u8 = 0b011;
const KILL: u8 = 0b100;
const CORRECT_SPEC: u8 = 0b101;

/// `word` (bit 0 first) when `sel`, else all 0.
fn gated(net: &mut Net, sel: Lit, word: &[Lit]) -> Vec<Lit> {
    word.iter().map(|&b| net.and(sel, b)).collect()
}

/// The constant `code` as three literals, bit 0 first.
fn code_lits(code: u8) -> [Lit; 3] {
    [0, 1, 2].map(|b| match code >> b & 1 {
        1 => Lit::TRUE,
        _ => Lit::FALSE,
    })
}

/// The OR over `cases` of `when` AND its code: the code chosen by exclusive conditions.
fn choose(net: &mut Net, cases: &[(Lit, u8)]) -> [Lit; 3] {
    let mut acc = [Lit::FALSE; 3];
    for &(when, code) in cases {
        let g = gated(net, when, &code_lits(code));
        acc = [0, 1, 2].map(|b| net.or(acc[b], g[b]));
    }
    acc
}

/// The speculator for data `ins` and a FIFO of `depth` predictions (at least 1) in `net`.
pub(crate) fn build(net: &mut Net, depth: usize, p: &Ports) -> Outputs {
    let width = p.ins.len();
    let rst = p.rst;
    // State.
    let st = States {
        pass: net.latch(Init::One),
        spec: net.latch(Init::Zero),
        no_cmp: net.latch(Init::Zero),
        cmp_correct: net.latch(Init::Zero),
        cmp_wrong: net.latch(Init::Zero),
        kill: net.latch(Init::Zero),
    };
    let data_fork = EagerFork::new(net, 2);
    let one = |b: usize| if b == 0 { Init::One } else { Init::Zero };
    let data_reg: Vec<Lit> = (0..width).map(|b| net.latch(one(b))).collect();
    let data_out: Vec<Lit> = (0..width).map(|b| net.latch(one(b))).collect();
    let fifo = Ring {
        tail: pointer(net, depth),
        head: pointer(net, depth),
        full: net.latch(Init::Zero),
        empty: net.latch(Init::One),
        memory: (0..depth)
            .map(|_| (0..width).map(|_| net.latch(Init::Zero)).collect())
            .collect(),
    };
    let (full, empty) = (fifo.full, fifo.empty);
    let control_fork = EagerFork::new(net, 5);

    // The core's inputs.
    let fork_valid = data_fork.valids(net, p.ins_valid);
    let data_pv = fork_valid[0];
    let predict_pv = p.trigger_valid;
    let predict = &data_out;
    let fifo_not_empty = !empty;
    let fifo_not_full = !full;
    let fifo_ins = read(net, &fifo.memory, &fifo.head, width);
    let diff: Vec<Lit> = (p.ins.iter().zip(&fifo_ins))
        .map(|(&a, &b)| net.xor(a, b))
        .collect();
    let equal = net.and_all(&diff.iter().map(|&d| !d).collect::<Vec<_>>());

    // PASS: which case of the generator's `if` chain holds (they exclude each other).
    let case_spec = net.and_all(&[!data_pv, predict_pv, fifo_not_full]);
    let case_no_cmp = net.and(data_pv, !fifo_not_empty);
    let compared = net.and(data_pv, fifo_not_empty);
    let right = net.and(compared, equal);
    let case_correct_spec = net.and(right, predict_pv);
    let case_cmp_correct = net.and(right, !predict_pv);
    let case_resend = net.and(compared, !equal);
    let in_pass = |net: &mut Net, c: Lit| net.and(st.pass, c);
    let pass_spec = in_pass(net, case_spec);
    let pass_no_cmp = in_pass(net, case_no_cmp);
    let pass_correct_spec = in_pass(net, case_correct_spec);
    let pass_cmp_correct = in_pass(net, case_cmp_correct);
    let pass_resend = in_pass(net, case_resend);

    // The code and its valid.
    let code = choose(
        net,
        &[
            (pass_no_cmp, NO_CMP),
            (pass_correct_spec, CORRECT_SPEC),
            (pass_cmp_correct, CMP_CORRECT),
            (pass_resend, RESEND),
            (st.spec, SPEC),
            (st.no_cmp, NO_CMP),
            (st.cmp_correct, CMP_CORRECT),
            (st.cmp_wrong, RESEND),
            (st.kill, KILL),
        ],
    );
    // In PASS a code goes out in every case of the chain (a compare is right or wrong).
    let pass_valid = net.or(case_spec, case_no_cmp);
    let pass_valid = net.or(pass_valid, compared);
    let pass_valid = net.and(st.pass, pass_valid);
    let kill_valid = net.and(st.kill, fifo_not_empty);
    let waiting = net.or(st.spec, st.no_cmp);
    let waiting = net.or(waiting, st.cmp_correct);
    let waiting = net.or(waiting, st.cmp_wrong);
    let control_valid = net.or(pass_valid, waiting);
    let control_valid = net.or(control_valid, kill_valid);

    // The five decoders, fed by the code fork (outputs: branch, SC, commit, save, output).
    let is = |net: &mut Net, c: u8| {
        let bits: Vec<Lit> = (0..3).map(|b| code[b].xor_neg(c >> b & 1 == 0)).collect();
        net.and_all(&bits)
    };
    let [
        c_spec,
        c_no_cmp,
        c_cmp_correct,
        c_resend,
        c_kill,
        c_correct_spec,
    ] = [SPEC, NO_CMP, CMP_CORRECT, RESEND, KILL, CORRECT_SPEC].map(|c| is(net, c));
    let any =
        |net: &mut Net, lits: &[Lit]| !net.and_all(&lits.iter().map(|&l| !l).collect::<Vec<_>>());
    let [
        out_ready,
        save_ready,
        commit_ready,
        sc_save_ready,
        sc_commit_ready,
        branch_ready,
    ] = p.ready;
    let valid = control_fork.valids(net, control_valid);
    // decodeBranch and decodeCommit: 010 and 101 pass (0), 100 discards (1).
    let decided = any(net, &[c_cmp_correct, c_kill, c_correct_spec]);
    let branch_in_ready = net.mux(decided, branch_ready, Lit::TRUE);
    let branch = Channel {
        data: vec![net.and(valid[0], c_kill)],
        valid: net.and(valid[0], decided),
    };
    let commit_in_ready = net.mux(decided, commit_ready, Lit::TRUE);
    let commit = Channel {
        data: vec![net.and(valid[2], c_kill)],
        valid: net.and(valid[2], decided),
    };
    // decodeSC: 100 goes to the commit side as kill (001); the others to the save side
    // (000 pass, 001 → no compare 100, 010 → kill 001, 011 → resend 010, 101 → pass-kill
    // 011); 110 and 111 wait for the commit side's ready and go nowhere.
    let to_save = any(
        net,
        &[c_spec, c_no_cmp, c_cmp_correct, c_resend, c_correct_spec],
    );
    let sc_in_ready = net.mux(to_save, sc_save_ready, sc_commit_ready);
    let sc_code = choose(
        net,
        &[
            (c_no_cmp, 0b100),
            (c_cmp_correct, 0b001),
            (c_resend, 0b010),
            (c_correct_spec, 0b011),
        ],
    );
    let sc_save = Channel {
        data: gated(net, valid[1], &sc_code).to_vec(),
        valid: net.and(valid[1], to_save),
    };
    let sc_commit = Channel {
        data: vec![net.and(valid[1], c_kill), Lit::FALSE, Lit::FALSE],
        valid: net.and(valid[1], c_kill),
    };
    // decodeSave: 001, 010 and 101 drop the saved token (1), 011 resends it (0).
    let drop_saved = any(net, &[c_no_cmp, c_cmp_correct, c_correct_spec]);
    let saves = net.or(drop_saved, c_resend);
    let save_in_ready = net.mux(saves, save_ready, Lit::TRUE);
    let save = Channel {
        data: vec![net.and(valid[3], drop_saved)],
        valid: net.and(valid[3], saves),
    };
    // decodeOutput: the data output is valid on 000, 001, 011 and 101.
    let sends = any(net, &[c_spec, c_no_cmp, c_resend, c_correct_spec]);
    let output_in_ready = net.mux(sends, out_ready, Lit::TRUE);
    let outs_valid = net.and(valid[4], sends);
    let control_ready = control_fork.ready(
        net,
        control_valid,
        &[
            branch_in_ready,
            sc_in_ready,
            commit_in_ready,
            save_in_ready,
            output_in_ready,
        ],
        rst,
    );
    let cr = control_ready;

    // The core's readies and its FIFO write.
    let data_ready_pass = net.or(st.pass, st.no_cmp);
    let data_ready_pass = net.or(data_ready_pass, st.cmp_correct);
    let data_ready_pass = net.or(data_ready_pass, st.cmp_wrong);
    let data_r = net.and(data_ready_pass, cr);
    let data_r_kill = net.and(st.kill, p.ins_spec);
    let data_r = net.or(data_r, data_r_kill);
    let predict_pass = net.and_all(&[st.pass, !case_resend, fifo_not_full, cr]);
    let predict_spec = net.and(st.spec, cr);
    let predict_kill = net.and(st.kill, p.trigger_spec);
    let predict_r = net.or(predict_pass, predict_spec);
    let predict_r = net.or(predict_r, predict_kill);
    let fifo_r = net.and(st.pass, right);
    let fifo_r_kill = net.and(st.kill, cr);
    let fifo_r = net.or(fifo_r, fifo_r_kill);
    let fifo_v = net.or(pass_spec, pass_correct_spec);
    // The data output: the prediction (with `spec` = 1) or the real value.
    let predicted = net.or(pass_spec, pass_correct_spec);
    let predicted = net.or(predicted, st.spec);
    let outs: Vec<Lit> = (0..width)
        .map(|b| net.mux(predicted, predict[b], p.ins[b]))
        .collect();

    // The data fork: its second output (the predictor's) is always ready.
    let ins_ready = data_fork.ready(net, p.ins_valid, &[data_r, Lit::TRUE], rst);

    // The predictor.
    let take = net.and(predict_r, p.trigger_valid);
    for b in 0..width {
        let reset = if b == 0 { Lit::TRUE } else { Lit::FALSE };
        let d = net.mux(fork_valid[1], p.ins[b], data_reg[b]);
        let d = net.mux(rst, reset, d);
        net.set_next(data_reg[b], d);
        let d = net.mux(take, data_reg[b], data_out[b]);
        let d = net.mux(rst, reset, d);
        net.set_next(data_out[b], d);
    }

    // The FIFO of predictions: written while not full, read while not empty.
    let tail_en = net.and(!full, fifo_v);
    let head_en = net.and(!empty, fifo_r);
    fifo.update(net, tail_en, head_en, predict, rst);

    // The state machine.
    let leave_pass = net.or(case_spec, case_no_cmp);
    let leave_pass = net.or(leave_pass, right);
    let leave_pass = net.and(leave_pass, !cr);
    let leave_pass = net.or(leave_pass, case_resend);
    let stay_pass = net.and(st.pass, !leave_pass);
    let answered = net.or(st.spec, st.no_cmp);
    let answered = net.or(answered, st.cmp_correct);
    let answered = net.and(answered, cr);
    let killed = net.and_all(&[
        st.kill,
        !fifo_not_empty,
        data_pv,
        !p.ins_spec,
        predict_pv,
        !p.trigger_spec,
    ]);
    let to_pass = net.or(stay_pass, answered);
    let to_pass = net.or(to_pass, killed);
    let waits = |net: &mut Net, s: Lit, enter: Lit| {
        let stay = net.and(s, !cr);
        let enter = net.and_all(&[st.pass, enter, !cr]);
        net.or(stay, enter)
    };
    let to_spec = waits(net, st.spec, case_spec);
    let to_no_cmp = waits(net, st.no_cmp, case_no_cmp);
    let to_cmp_correct = waits(net, st.cmp_correct, right);
    let to_cmp_wrong = waits(net, st.cmp_wrong, case_resend);
    let wrong_told = net.and(st.cmp_wrong, cr);
    let resend_told = net.and_all(&[st.pass, case_resend, cr]);
    let kill_stays = net.and(st.kill, !killed);
    let to_kill = net.or(wrong_told, resend_told);
    let to_kill = net.or(to_kill, kill_stays);
    let d = net.or(to_pass, rst);
    net.set_next(st.pass, d);
    for (q, d) in [
        (st.spec, to_spec),
        (st.no_cmp, to_no_cmp),
        (st.cmp_correct, to_cmp_correct),
        (st.cmp_wrong, to_cmp_wrong),
        (st.kill, to_kill),
    ] {
        let d = net.and(d, !rst);
        net.set_next(q, d);
    }

    Outputs {
        results: [
            Channel {
                data: outs,
                valid: outs_valid,
            },
            save,
            commit,
            sc_save,
            sc_commit,
            branch,
        ],
        outs_spec: predicted,
        ins_ready,
        trigger_ready: predict_r,
    }
}
