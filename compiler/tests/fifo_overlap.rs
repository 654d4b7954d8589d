//! Overlapping commands (`aps::fifo::plan_locks`, the memory locks of both styles):
//! commands of one instruction stream through a fifo-style function where its dataflow
//! allows it, state kept across firings (a memory resource, a loop, an `if`) holds one
//! command at a time, and a later command, of any instruction, sees every store of an
//! earlier one. The sequential reference
//! is the TOR interpreter with state kept from command to command (`interp::run_in`); the
//! rule simulator, the CMT2 read-back and the RTL (Icarus) must give the same responses,
//! and the timed engines the same cycles.

mod common;
mod sv_common;

use compiler::aps::{self, Style, interp};
use compiler::limits::Limits;
use compiler::rules::sim::{self, Command, SimConfig, SimResult};
use compiler::rules::{self, Circuit, InstanceKind};
use std::collections::BTreeMap;

fn design() -> (compiler::mlir::ast::ModuleAst, String) {
    let text = std::fs::read_to_string(common::data("aps/overlap.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    (m, text)
}

/// Function `name` of `tests/data/aps/overlap.mlir` in `style`.
fn circuit(m: &compiler::mlir::ast::ModuleAst, name: &str, style: Style) -> Circuit {
    let ctx = aps::design_context(m).unwrap();
    let f = aps::function_named(m, name).unwrap();
    aps::build_function_styled(&ctx, f, &Limits::DEFAULT, style)
        .unwrap()
        .0
}

/// The sequential reference's responses for `cmds` ((rs1, rs2) of function `name`).
fn tor(m: &compiler::mlir::ast::ModuleAst, name: &str, regs: &[(u32, u32)]) -> Vec<u32> {
    let ctx = aps::design_context(m).unwrap();
    let f = aps::function_named(m, name).unwrap();
    let mut state = interp::State::reset(&ctx, BTreeMap::new());
    let mut out = Vec::new();
    for &(rs1, rs2) in regs {
        let r = interp::run_in(&ctx, f, rs1, rs2, &mut state, 1_000_000).unwrap();
        out.extend(r.responses);
    }
    out
}

/// Rules, CMT2 read-back and RTL on one stream; returns the rule simulator's run.
fn timed(tag: &str, c: &Circuit, cmds: &[Command]) -> SimResult {
    let cfg = SimConfig::default();
    let r = sim::simulate(c, cmds, BTreeMap::new(), &cfg).unwrap();
    let text = rules::emit_cmt2(c);
    let back = rules::read_cmt2(&text).unwrap_or_else(|d| panic!("{tag}: {}", d.message));
    let b = sim::simulate(&back, cmds, BTreeMap::new(), &cfg).unwrap();
    assert_eq!(r, b, "{tag}: rules and cmt2 differ");
    sv_common::compare(c, cmds, BTreeMap::new(), tag);
    r
}

fn values(r: &SimResult) -> Vec<u32> {
    r.responses.iter().map(|x| x.value).collect()
}

fn locks(c: &Circuit) -> Vec<&str> {
    (c.instances.iter())
        .filter(|i| {
            (i.name.contains("_lock_b") || i.name.starts_with("kiln_lock_"))
                && matches!(i.kind, InstanceKind::Reg { .. })
        })
        .map(|i| i.name.as_str())
        .collect()
}

/// Twenty commands of each function, both styles: every engine gives the sequential
/// responses. `@acc` hits one bank word every time and `@gacc` one global register, so
/// each command reads the previous one's store (without the fifo style's locks the rule
/// simulator answers 160, 175, 190 for the last three `@acc` commands instead of 523, 580,
/// 640: the loads overtake the stores).
#[test]
fn overlapping_commands_keep_sequential_results() {
    let (m, _) = design();
    for name in ["acc", "gacc", "chain"] {
        let regs: Vec<(u32, u32)> = (0..20u32)
            .map(|i| {
                if name == "acc" {
                    (0, i + 1)
                } else {
                    (i, i + 1)
                }
            })
            .collect();
        let want = tor(&m, name, &regs);
        assert_eq!(want.len(), 20);
        for style in Style::ALL {
            let c = circuit(&m, name, style);
            let cmds: Vec<Command> = (regs.iter())
                .map(|&(a, b)| common::command(&c, a, b, 3))
                .collect();
            let tag = format!("overlap_{name}_{style:?}").to_lowercase();
            let r = timed(&tag, &c, &cmds);
            assert_eq!(values(&r), want, "{tag}: responses");
        }
    }
}

/// The fifo style overlaps where the dataflow allows it: `@chain` (no state) takes a
/// command per cycle once the pipeline is full, far faster than the state machine; `@acc`
/// and `@gacc` hold their memory resource (its design-level lock) from the command's take
/// to its store, `@chain` has no lock.
#[test]
fn stateless_functions_stream_and_stateful_spans_lock() {
    let (m, _) = design();
    let chain = circuit(&m, "chain", Style::Fifo);
    assert!(locks(&chain).is_empty(), "{:?}", locks(&chain));
    for name in ["acc", "gacc"] {
        let c = circuit(&m, name, Style::Fifo);
        assert_eq!(locks(&c).len(), 1, "{name}: {:?}", locks(&c));
    }
    let cmds = |c: &Circuit| -> Vec<Command> {
        (0..20u32)
            .map(|i| common::command(c, i, i + 1, 3))
            .collect()
    };
    let fifo = sim::simulate(
        &chain,
        &cmds(&chain),
        BTreeMap::new(),
        &SimConfig::default(),
    )
    .unwrap();
    let fsm_c = circuit(&m, "chain", Style::Fsm);
    let fsm = sim::simulate(
        &fsm_c,
        &cmds(&fsm_c),
        BTreeMap::new(),
        &SimConfig::default(),
    )
    .unwrap();
    let gaps = |r: &SimResult| -> Vec<u64> {
        r.responses
            .windows(2)
            .map(|w| w[1].cycle - w[0].cycle)
            .collect()
    };
    // One response per cycle in the fifo style; one per command latency in the fsm.
    assert!(gaps(&fifo).iter().all(|&g| g == 1), "{:?}", gaps(&fifo));
    assert!(gaps(&fsm).iter().all(|&g| g >= 6), "{:?}", gaps(&fsm));
    assert!(
        4 * fifo.cycles < fsm.cycles,
        "{} vs {}",
        fifo.cycles,
        fsm.cycles
    );
}

/// A stream of 40 commands of four instructions that read each other's stores (`@peek`
/// reads the bank word `@acc` writes and the register `@gacc` writes) and a stateless one
/// between them: every engine, both styles, gives the sequential responses.
#[test]
fn mixed_instructions_see_each_others_stores() {
    let (m, text) = design();
    let ctx = aps::design_context(&m).unwrap();
    let mut calls: Vec<(&str, u32, u32)> = Vec::new();
    for i in 0..8u32 {
        calls.extend([
            ("acc", 1, i + 1),
            ("peek", 1, 0),
            ("gacc", i, 0),
            ("peek", 1, 0),
            ("chain", i, 2),
        ]);
    }
    let mut state = interp::State::reset(&ctx, BTreeMap::new());
    let mut want = Vec::new();
    for &(f, rs1, rs2) in &calls {
        let op = aps::function_named(&m, f).unwrap();
        want.extend(
            interp::run_in(&ctx, op, rs1, rs2, &mut state, 1_000_000)
                .unwrap()
                .responses,
        );
    }
    for style in Style::ALL {
        let circuits: Vec<Circuit> = aps::functions(&m)
            .into_iter()
            .map(|f| {
                aps::build_function_styled(&ctx, f, &Limits::DEFAULT, style)
                    .unwrap()
                    .0
            })
            .collect();
        let c = aps::build_file_circuit("overlap", circuits);
        let cmds: Vec<Command> = (calls.iter())
            .map(|&(f, rs1, rs2)| {
                let i = (c.instructions.iter()).find(|i| i.function == f).unwrap();
                Command {
                    opcode: i.opcode,
                    funct7: i.funct7,
                    rs1,
                    rs2,
                    rd: 3,
                }
            })
            .collect();
        let tag = format!("overlap_mixed_{style:?}").to_lowercase();
        let r = timed(&tag, &c, &cmds);
        assert_eq!(values(&r), want, "{tag}: responses");
    }
    let _ = text;
}
