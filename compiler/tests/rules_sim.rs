//! Rule simulator semantics on hand-built circuits: FIFO timing (enqueued data visible the
//! next cycle, enq allowed in the cycle of a deq), one firing per rule per cycle, register
//! commit at the edge, DMA latency and beat timing, one RoCC command and one response per
//! cycle in rule order, and deadlock detection naming the stuck rules.

//! The circuits of the interface tests also run as RTL (Icarus Verilog, when installed) and
//! must agree with the simulator cycle for cycle.

mod common;
mod sv_common;

use common::{fifo, rocc, rule};
use compiler::rules::sim::{self, Command, SimConfig, SimError};
use compiler::rules::{BodyBuilder, Circuit, Instance, InstanceKind, Rule, Var};
use std::collections::BTreeMap;

/// A rule with a guard.
fn guarded(name: &str, guard: (Vec<compiler::rules::Stmt>, Var), b: BodyBuilder) -> Rule {
    Rule {
        guard: Some(guard),
        ..rule(name, b)
    }
}

/// cmd → a → b → response: three rules, each hop costs one cycle.
fn pipeline() -> Circuit {
    let mut mid = BodyBuilder::new();
    let x = mid.call_value("a", "deq", vec![], 32);
    let one = mid.konst(1, 32);
    let y = mid.prim(compiler::rules::PrimOp::Add, vec![x, one], 32);
    mid.call("b", "enq", vec![y]);
    let mut end = BodyBuilder::new();
    let z = end.call_value("b", "deq", vec![], 32);
    common::respond(&mut end, 5, z);
    Circuit {
        name: "p".into(),
        instructions: vec![],
        instances: vec![rocc(), fifo("a"), fifo("b")],
        rules: vec![
            common::cmd_to_fifos("start", 7, 32, &["a"]),
            rule("mid", mid),
            rule("end", end),
        ],
        precedence: vec![],
        schedule: vec!["end".into(), "mid".into(), "start".into()],
    }
}

#[test]
fn fifo_hops_take_one_cycle_each() {
    let cmds = [
        Command {
            opcode: 7,
            funct7: 0,
            rs1: 41,
            rs2: 0,
            rd: 0,
        },
        Command {
            opcode: 7,
            funct7: 0,
            rs1: 9,
            rs2: 0,
            rd: 0,
        },
    ];
    let r = sim::simulate(&pipeline(), &cmds, BTreeMap::new(), &SimConfig::default()).unwrap();
    let got: Vec<(u32, u64)> = r.responses.iter().map(|x| (x.value, x.cycle)).collect();
    // The command register takes the first command in cycle 0 (rules see it from cycle
    // 1). The second follows one cycle behind: deq and enq of a full FIFO in one cycle.
    assert_eq!(got, vec![(42, 3), (10, 4)]);
    assert_eq!(r.cycles, 5);
}

#[test]
fn deadlock_names_the_stuck_rule() {
    let mut c = pipeline();
    // `end` now also needs a FIFO nobody fills.
    c.instances.push(fifo("never"));
    let mut end = BodyBuilder::new();
    let z = end.call_value("b", "deq", vec![], 32);
    end.call_value("never", "deq", vec![], 32);
    common::respond(&mut end, 5, z);
    c.rules[2] = rule("end", end);
    let e = sim::simulate(
        &c,
        &[Command {
            opcode: 7,
            funct7: 0,
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
            cycle: 3,
            stuck: vec!["end".into()]
        }
    );
    // `kiln sim` prints it with its code.
    assert_eq!(e.code(), compiler::diag::Code::Deadlock);
    assert_eq!(e.code().as_str(), "E0206");
}

#[test]
fn register_writes_commit_at_the_edge_and_dma_blocks_polls() {
    let mut b = BodyBuilder::new();
    let (g, _) = common::take_cmd(&mut b, 1);
    let v = b.konst(3, 8);
    b.call("r", "write", vec![v]);
    let old = b.call_value("r", "read", vec![], 8);
    b.call("f", "enq", vec![old]);
    let (a, i, l) = (b.konst(0, 32), b.konst(0, 32), b.konst(6, 4));
    let (sx, sy) = (b.konst(0, 8), b.konst(0, 8));
    b.call("dma", "cpu_to_isax_ch0", vec![a, i, l, sx, sy]);
    let mut w = BodyBuilder::new();
    w.call_value("dma", "poll_for_idle_ch0", vec![], 1);
    let x = w.call_value("f", "deq", vec![], 8);
    let now = w.call_value("r", "read", vec![], 8);
    let s = w.prim(compiler::rules::PrimOp::Add, vec![x, now], 32);
    common::respond(&mut w, 0, s);
    let c = Circuit {
        name: "r".into(),
        instructions: vec![],
        instances: vec![
            rocc(),
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
                kind: InstanceKind::Dma { entries: vec![] },
            },
        ],
        rules: vec![guarded("a", g, b), rule("b", w)],
        precedence: vec![],
        schedule: vec!["b".into(), "a".into()],
    };
    let cfg = SimConfig::default();
    let r = sim::simulate(
        &c,
        &[Command {
            opcode: 1,
            funct7: 0,
            rs1: 0,
            rs2: 0,
            rd: 0,
        }],
        BTreeMap::new(),
        &cfg,
    )
    .unwrap();
    // Old value 10 seen in the writing cycle, new value 3 later. The command register takes
    // the command in cycle 0, the request fires in cycle 1, its 8 beats move in cycles
    // 2..9: the poll is ready from cycle 10.
    assert_eq!(r.responses[0].value, 13);
    assert_eq!(r.responses[0].cycle, 10);
}

fn cmd(id: u32) -> Command {
    Command {
        opcode: id,
        funct7: 0,
        rs1: 0,
        rs2: 0,
        rd: id,
    }
}

/// Circuit `c`: the rules `ra` and `rb` respond with what they take from FIFO `fa` (in
/// register 1) and `fb` (in register 2), beside the rules `more`; scheduled as `schedule`.
fn two_responders(more: Vec<Rule>, schedule: &[&str]) -> Circuit {
    let mut rules = vec![
        rule("ra", common::responder("fa", 1)),
        rule("rb", common::responder("fb", 2)),
    ];
    rules.extend(more);
    Circuit {
        name: "c".into(),
        instructions: vec![],
        instances: vec![rocc(), fifo("fa"), fifo("fb")],
        rules,
        precedence: vec![],
        schedule: schedule.iter().map(|s| s.to_string()).collect(),
    }
}

/// Two rules that could each take a command: the RoCC port accepts one command per cycle
/// into the command register (cycles 0 and 1), so the second waits a cycle even though a
/// different rule takes it.
#[test]
fn one_command_accepted_per_cycle() {
    let c = two_responders(
        vec![
            common::cmd_to_fifos("a", 7, 0, &["fa"]),
            common::cmd_to_fifos("b", 8, 0, &["fb"]),
        ],
        &["ra", "rb", "a", "b"],
    );
    let r = sim::simulate(
        &c,
        &[cmd(7), cmd(8)],
        BTreeMap::new(),
        &SimConfig::default(),
    )
    .unwrap();
    assert_eq!(r.accepted, vec![0, 1]);
    let got: Vec<(u32, u64)> = r.responses.iter().map(|x| (x.rd, x.cycle)).collect();
    assert_eq!(got, vec![(1, 2), (2, 3)]);
    sv_common::compare(&c, &[cmd(7), cmd(8)], BTreeMap::new(), "one_cmd");
}

/// Two rules ready to respond in the same cycle: the first in the schedule sends, the
/// other is not ready (does not fire) and sends the next cycle.
#[test]
fn one_response_per_cycle_in_rule_order() {
    let c = two_responders(
        vec![common::cmd_to_fifos("a", 7, 0, &["fa", "fb"])],
        &["rb", "ra", "a"],
    );
    let r = sim::simulate(&c, &[cmd(7)], BTreeMap::new(), &SimConfig::default()).unwrap();
    let got: Vec<(u32, u64)> = r.responses.iter().map(|x| (x.rd, x.cycle)).collect();
    assert_eq!(got, vec![(2, 2), (1, 3)]);
    assert_eq!(r.cycles, 4);
    sv_common::compare(&c, &[cmd(7)], BTreeMap::new(), "one_resp");
}

/// A 64-byte DMA load requested in cycle 1 (the command register took the command in
/// cycle 0): the engine takes it in cycle 2 and moves 8 beats of 8 bytes in cycles 2..9,
/// each visible the cycle after; `poll_for_idle_ch0` is ready from cycle 10.
#[test]
fn dma_beats_move_one_per_cycle_from_the_cycle_after_the_request() {
    let banks: Vec<String> = (0..4).map(|k| format!("m_{k}")).collect();
    let mut instances = vec![
        rocc(),
        Instance {
            name: "dma".into(),
            kind: InstanceKind::Dma {
                entries: vec![compiler::rules::DmaEntry {
                    name: "m".into(),
                    base: 0,
                    size: 64,
                    elem_bytes: 4,
                    banks: banks.clone(),
                    cyclic: true,
                }],
            },
        },
        fifo("go"),
    ];
    for (name, init) in [("t", 0u128), ("seen0", 0), ("seen15", 0)] {
        instances.push(Instance {
            name: name.into(),
            kind: InstanceKind::Reg { width: 32, init },
        });
    }
    for b in &banks {
        instances.push(Instance {
            name: b.clone(),
            kind: InstanceKind::Bank {
                width: 32,
                depth: 4,
                init: vec![],
            },
        });
    }
    let mut start = BodyBuilder::new();
    let (gs, _) = common::take_cmd(&mut start, 7);
    let (cpu, isax, len) = (
        start.konst(0x100, 32),
        start.konst(0, 32),
        start.konst(6, 4),
    );
    let (sx, sy) = (start.konst(0, 8), start.konst(0, 8));
    start.call("dma", "cpu_to_isax_ch0", vec![cpu, isax, len, sx, sy]);
    // A cycle counter that records when elements 0 (beat 0) and 15 (beat 7) first appear.
    let mut w = BodyBuilder::new();
    let t = w.call_value("t", "read", vec![], 32);
    let limit = w.konst(20, 32);
    let guard = w.prim(compiler::rules::PrimOp::Ult, vec![t, limit], 1);
    let guard_stmts = std::mem::take(&mut w.stmts);
    let one = w.konst(1, 32);
    let t1 = w.prim(compiler::rules::PrimOp::Add, vec![t, one], 32);
    w.call("t", "write", vec![t1]);
    for (reg, bank, off) in [("seen0", "m_0", 0u128), ("seen15", "m_3", 3)] {
        let i = w.konst(off, 2);
        let v = w.call_value(bank, "read", vec![i], 32);
        let s = w.call_value(reg, "read", vec![], 32);
        let zero = w.konst(0, 32);
        let arrived = w.prim(compiler::rules::PrimOp::Ne, vec![v, zero], 1);
        let unseen = w.prim(compiler::rules::PrimOp::Eq, vec![s, zero], 1);
        let first = w.prim(compiler::rules::PrimOp::And, vec![arrived, unseen], 1);
        w.if_else(first, |b| b.call(reg, "write", vec![t]), |_| {});
    }
    let mut fin = BodyBuilder::new();
    fin.call_value("dma", "poll_for_idle_ch0", vec![], 1);
    fin.call_value("go", "deq", vec![], 32);
    let rd = fin.konst(1, 5);
    let z = fin.konst(0, 32);
    fin.call("rocc", "resp_from_user", vec![rd, z]);
    let tok = start.konst(1, 32);
    start.call("go", "enq", vec![tok]);
    let mut watch = rule("watch", w);
    watch.guard = Some((guard_stmts, guard));
    let c = Circuit {
        name: "d".into(),
        instructions: vec![],
        instances,
        rules: vec![rule("fin", fin), watch, guarded("start", gs, start)],
        precedence: vec![],
        schedule: vec!["fin".into(), "watch".into(), "start".into()],
    };
    let mut mem = BTreeMap::new();
    for i in 0..16u32 {
        sim::write_word(&mut mem, 0x100 + 4 * i, 100 + i);
    }
    let r = sim::simulate(&c, &[cmd(7)], mem.clone(), &SimConfig::default()).unwrap();
    sv_common::compare(&c, &[cmd(7)], mem, "dma_beats");
    assert_eq!(r.regs["seen0"], 3, "beat 0 moves in cycle 2");
    assert_eq!(r.regs["seen15"], 10, "beat 7 moves in cycle 9");
    assert_eq!(r.responses[0].cycle, 10, "idle again at cycle 10");
    assert_eq!(r.banks["m_1"], vec![101, 105, 109, 113]);
}

/// A rule's readiness on the CPU-memory port counts all its request sites, taken or not
/// (`schedule::MemSites`: CMT2's atomic rules decide readiness before the rule fires, never
/// from its own calls). `all` stores three words (so the port has 3 lanes and a request
/// queue of 3); `one` stores one word on one branch and two on the other (3 sites). The
/// command register takes the command in cycle 0 and `start` shares it in cycle 1. In
/// cycle 2 `all` takes the three lanes (the first store goes out at once) and `one` waits;
/// in cycle 3 the queue keeps one store after its dequeue, and `one` needs room for its
/// three sites, so it stores in cycle 4 (a per-call count would have let it store in cycle
/// 3). The RTL agrees cycle for cycle.
#[test]
fn a_rule_is_ready_on_the_cpu_memory_port_for_all_its_request_sites() {
    use compiler::rules::PrimOp;
    let mut all = BodyBuilder::new();
    let x = all.call_value("fa", "deq", vec![], 32);
    for (addr, add) in [(0x100, 1), (0x104, 2), (0x120, 3)] {
        let a = all.konst(addr, 32);
        let k = all.konst(add, 32);
        let v = all.prim(PrimOp::Add, vec![x, k], 32);
        all.call("cpu", "store_req", vec![a, v]);
    }
    let mut one = BodyBuilder::new();
    let y = one.call_value("fb", "deq", vec![], 32);
    let odd = one.prim(PrimOp::Bits { lo: 0 }, vec![y], 1);
    let (a, b, d) = (
        one.konst(0x108, 32),
        one.konst(0x10c, 32),
        one.konst(0x110, 32),
    );
    one.if_else(
        odd,
        |t| t.call("cpu", "store_req", vec![a, y]),
        |e| {
            e.call("cpu", "store_req", vec![b, y]);
            e.call("cpu", "store_req", vec![d, y]);
        },
    );
    common::respond(&mut one, 1, y);
    let c = Circuit {
        name: "c".into(),
        instructions: vec![],
        instances: vec![
            rocc(),
            fifo("fa"),
            fifo("fb"),
            Instance {
                name: "cpu".into(),
                kind: InstanceKind::MemPort,
            },
        ],
        rules: vec![
            rule("all", all),
            rule("one", one),
            common::cmd_to_fifos("start", 7, 0, &["fa", "fb"]),
        ],
        precedence: vec![],
        schedule: vec!["all".into(), "one".into(), "start".into()],
    };
    let cmds = [Command {
        opcode: 7,
        funct7: 0,
        rs1: 0,
        rs2: 5,
        rd: 1,
    }];
    let mut trace = sim::Trace::default();
    let r = sim::simulate_recorded(
        &c,
        &cmds,
        BTreeMap::new(),
        &SimConfig::default(),
        &mut trace,
    )
    .unwrap();
    let fired = |rule: &str| -> Vec<usize> {
        let k = c.rules.iter().position(|r| r.name == rule).unwrap() as u32;
        (trace.fired.iter().enumerate())
            .filter(|(_, f)| f.contains(&k))
            .map(|(cycle, _)| cycle)
            .collect()
    };
    assert_eq!(fired("all"), vec![2]);
    assert_eq!(fired("one"), vec![4]);
    assert_eq!(sim::read_word(&r.cpu_mem, 0x100), 6);
    assert_eq!(sim::read_word(&r.cpu_mem, 0x104), 7);
    assert_eq!(sim::read_word(&r.cpu_mem, 0x120), 8);
    assert_eq!(
        sim::read_word(&r.cpu_mem, 0x108),
        5,
        "rs2 (the low word) is odd"
    );
    assert_eq!(sim::read_word(&r.cpu_mem, 0x10c), 0);
    assert_eq!(r.responses[0].cycle, 4);
    sv_common::compare(&c, &cmds, BTreeMap::new(), "mem_sites");
}
