//! Rule simulator semantics on hand-built circuits: FIFO timing (enqueued data visible the
//! next cycle, enq allowed in the cycle of a deq), one firing per rule per cycle, register
//! commit at the edge, DMA latency, and deadlock detection naming the stuck rules.

use compiler::rules::sim::{self, Command, SimConfig, SimError};
use compiler::rules::{BodyBuilder, Circuit, Instance, InstanceKind, Rule};
use std::collections::BTreeMap;

fn fifo(name: &str) -> Instance {
    Instance {
        name: name.into(),
        kind: InstanceKind::Fifo {
            width: 32,
            depth: 1,
        },
    }
}

fn rule(name: &str, b: BodyBuilder) -> Rule {
    Rule {
        name: name.into(),
        origin: "t".into(),
        guard: None,
        body: b.stmts,
    }
}

/// cmd → a → b → response: three rules, each hop costs one cycle.
fn pipeline() -> Circuit {
    let mut start = BodyBuilder::new();
    let cmd = start.call_value("rocc", "cmd_to_user_7", vec![], 96);
    let rs1 = start.prim(compiler::rules::PrimOp::Bits { lo: 32 }, vec![cmd], 32);
    start.call("a", "enq", vec![rs1]);
    let mut mid = BodyBuilder::new();
    let x = mid.call_value("a", "deq", vec![], 32);
    let one = mid.konst(1, 32);
    let y = mid.prim(compiler::rules::PrimOp::Add, vec![x, one], 32);
    mid.call("b", "enq", vec![y]);
    let mut end = BodyBuilder::new();
    let z = end.call_value("b", "deq", vec![], 32);
    let rd = end.konst(5, 5);
    end.call("rocc", "resp_from_user", vec![rd, z]);
    Circuit {
        name: "p".into(),
        instances: vec![
            Instance {
                name: "rocc".into(),
                kind: InstanceKind::Rocc,
            },
            fifo("a"),
            fifo("b"),
        ],
        rules: vec![rule("start", start), rule("mid", mid), rule("end", end)],
        precedence: vec![],
        schedule: vec!["end".into(), "mid".into(), "start".into()],
    }
}

#[test]
fn fifo_hops_take_one_cycle_each() {
    let cmds = [
        Command {
            id: 7,
            rs1: 41,
            rs2: 0,
            rd: 0,
        },
        Command {
            id: 7,
            rs1: 9,
            rs2: 0,
            rd: 0,
        },
    ];
    let r = sim::simulate(&pipeline(), &cmds, BTreeMap::new(), &SimConfig::default()).unwrap();
    let got: Vec<(u32, u64)> = r.responses.iter().map(|x| (x.value, x.cycle)).collect();
    // Second command follows one cycle behind: deq and enq of a full FIFO in one cycle.
    assert_eq!(got, vec![(42, 2), (10, 3)]);
    assert_eq!(r.cycles, 4);
}

#[test]
fn deadlock_names_the_stuck_rule() {
    let mut c = pipeline();
    // `end` now also needs a FIFO nobody fills.
    c.instances.push(fifo("never"));
    let mut end = BodyBuilder::new();
    let z = end.call_value("b", "deq", vec![], 32);
    end.call_value("never", "deq", vec![], 32);
    let rd = end.konst(5, 5);
    end.call("rocc", "resp_from_user", vec![rd, z]);
    c.rules[2] = rule("end", end);
    let e = sim::simulate(
        &c,
        &[Command {
            id: 7,
            rs1: 1,
            rs2: 0,
            rd: 0,
        }],
        BTreeMap::new(),
        &SimConfig::default(),
    )
    .unwrap_err();
    assert_eq!(
        e,
        SimError::Deadlock {
            cycle: 2,
            stuck: vec!["end".into()]
        }
    );
}

#[test]
fn register_writes_commit_at_the_edge_and_dma_blocks_polls() {
    let mut b = BodyBuilder::new();
    b.call_value("rocc", "cmd_to_user_1", vec![], 96);
    let v = b.konst(3, 8);
    b.call("r", "write", vec![v]);
    let old = b.call_value("r", "read", vec![], 8);
    b.call("f", "enq", vec![old]);
    let (a, i, l) = (b.konst(0, 32), b.konst(0, 32), b.konst(6, 4));
    b.call("dma", "cpu_to_isax", vec![a, i, l]);
    let mut w = BodyBuilder::new();
    w.call_value("dma", "poll_for_idle", vec![], 1);
    let x = w.call_value("f", "deq", vec![], 8);
    let now = w.call_value("r", "read", vec![], 8);
    let s = w.prim(compiler::rules::PrimOp::Add, vec![x, now], 32);
    let rd = w.konst(0, 5);
    w.call("rocc", "resp_from_user", vec![rd, s]);
    let c = Circuit {
        name: "r".into(),
        instances: vec![
            Instance {
                name: "rocc".into(),
                kind: InstanceKind::Rocc,
            },
            Instance {
                name: "r".into(),
                kind: InstanceKind::Reg { width: 8, init: 10 },
            },
            Instance {
                name: "f".into(),
                kind: InstanceKind::Fifo { width: 8, depth: 1 },
            },
            Instance {
                name: "dma".into(),
                kind: InstanceKind::Dma {
                    latency: 0,
                    entries: vec![],
                },
            },
        ],
        rules: vec![rule("a", b), rule("b", w)],
        precedence: vec![],
        schedule: vec!["b".into(), "a".into()],
    };
    let cfg = SimConfig {
        dma_latency: 16,
        ..SimConfig::default()
    };
    let r = sim::simulate(
        &c,
        &[Command {
            id: 1,
            rs1: 0,
            rs2: 0,
            rd: 0,
        }],
        BTreeMap::new(),
        &cfg,
    )
    .unwrap();
    // Old value 10 seen in the writing cycle, new value 3 later; the poll waits 16 cycles.
    assert_eq!(r.responses[0].value, 13);
    assert_eq!(r.responses[0].cycle, 16);
}
