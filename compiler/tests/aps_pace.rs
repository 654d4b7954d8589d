//! The generated hardware runs at the schedule's pace: every cycle of an instruction runs
//! one of its slots or waits for the DMA, except for the documented control cycles (the
//! cycle the command register takes the command, a start rule when a function begins with
//! a loop or `if`, a head rule for a loop iteration that ran no slot). So an iteration of a non-pipelined loop costs exactly the
//! slots it runs plus its DMA waits — checked loop by loop on the generated corpus and the
//! test programs, against the TOR interpreter's iteration counts.

mod common;

use compiler::aps::{self, qor, workload};
use compiler::rules::Circuit;
use compiler::rules::sim::{self, Command, SimConfig};
use std::collections::BTreeMap;

/// Control rules that may cost a cycle of their own.
fn control_rule(name: &str) -> bool {
    name.ends_with("_head_rule") || name.ends_with("start_rule")
}

/// Run `circuit`'s instruction `f` once; check the breakdown; return its report.
fn check(
    tag: &str,
    ctx: &aps::DesignContext,
    f: &compiler::mlir::ast::Operation,
    circuit: &Circuit,
    rs: (u32, u32),
    mem: BTreeMap<u32, u8>,
) -> qor::Report {
    let ins = &circuit.instructions[0];
    let run = aps::interp::run(ctx, f, rs.0, rs.1, mem.clone(), 10_000_000)
        .unwrap_or_else(|d| panic!("{tag}: {}", d.message));
    let seg = aps::segment_function(ctx, f).unwrap();
    let loops = qor::loops(&seg, &run);
    let cmd = Command {
        opcode: ins.opcode,
        funct7: ins.funct7,
        rs1: rs.0,
        rs2: rs.1,
        rd: 1,
    };
    let (r, trace) = sim::simulate_traced(circuit, &[cmd], mem, &SimConfig::default())
        .unwrap_or_else(|e| panic!("{tag}: {e}"));
    let report = qor::report(circuit, ins, &r, &trace, &loops);
    let pipelined: Vec<&str> = (seg.blocks.iter())
        .filter_map(|b| match &b.kind {
            aps::segment::BlockKind::Loop { info, .. } if info.pipeline.is_some() => {
                Some(info.loop_name.as_str())
            }
            _ => None,
        })
        .collect();
    // Overhead cycles: the command register's cycle and the control rules' own firings.
    let control_firings: u64 = trace
        .fired
        .iter()
        .flatten()
        .filter(|&&i| control_rule(&circuit.rules[i as usize].name))
        .count() as u64;
    assert!(
        report.total.overhead <= control_firings + 1,
        "{tag}: {} overhead cycles, {control_firings} control-rule firings: {report:?}",
        report.total.overhead
    );
    let heads: Vec<&str> = circuit
        .rules
        .iter()
        .map(|r| r.name.as_str())
        .filter(|n| control_rule(n))
        .collect();
    let firings = |name: &str| -> u64 {
        let Some(k) = circuit.rules.iter().position(|r| r.name == name) else {
            return 0;
        };
        trace
            .fired
            .iter()
            .flatten()
            .filter(|&&i| i as usize == k)
            .count() as u64
    };
    for l in report
        .loops
        .iter()
        .filter(|l| !pipelined.contains(&l.name.as_str()))
    {
        // Cycles of the loop = slot firings + DMA waits + head-rule firings (its own and
        // its nested loops'; none when no body can finish an iteration without a slot).
        assert_eq!(
            l.cycles.cycles,
            l.slot_firings + l.cycles.dma + l.control_firings,
            "{tag}: loop {} ({} iterations): {l:?}",
            l.name,
            l.iterations
        );
        let nested_heads = heads.iter().any(|h| h.starts_with(&format!("{}_", l.name)));
        if !nested_heads {
            assert_eq!(l.control_firings, 0, "{tag}: loop {}", l.name);
        }
        // A head firing is an iteration that ran no slot: at most one per iteration.
        let own = firings(&format!("{}_head_rule", l.name));
        assert!(
            own <= l.iterations,
            "{tag}: loop {}: {own} head firings for {} iterations",
            l.name,
            l.iterations
        );
    }
    report
}

#[test]
fn corpus_loops_cost_their_slots() {
    let mut total = qor::Breakdown::default();
    let (mut iterations, mut loops, mut with_heads) = (0, 0, 0);
    for seed in 0..40u64 {
        let text = workload::generate(4, seed);
        let m = compiler::mlir::parse(&text).unwrap();
        let ctx = aps::design_context(&m).unwrap();
        for (n, f) in aps::functions(&m).into_iter().enumerate() {
            let c = aps::build_function(&ctx, f).unwrap();
            let tag = format!("seed {seed} f{n}");
            let rs = (workload::RS1, workload::RS2);
            let r = check(&tag, &ctx, f, &c, rs, workload::cpu_memory(seed));
            total.add(&r.total);
            for l in &r.loops {
                iterations += l.iterations;
                loops += 1;
                with_heads += (l.control_firings > 0) as u64;
            }
        }
    }
    eprintln!(
        "aps_pace: 160 functions, {} cycles = {} slot + {} DMA + {} overhead; {loops} loops, {iterations} iterations, {with_heads} loops with head-rule cycles",
        total.cycles, total.slot, total.dma, total.overhead
    );
    assert!(iterations > 200, "the corpus runs loops: {iterations}");
}

#[test]
fn test_programs_loops_cost_their_slots() {
    for file in [
        "features",
        "step_runtime",
        "flow_burst_add",
        "flow_burst_add_pipelined",
    ] {
        let text = std::fs::read_to_string(common::data(&format!("aps/{file}.mlir"))).unwrap();
        let m = compiler::mlir::parse(&text).unwrap();
        let ctx = aps::design_context(&m).unwrap();
        for f in aps::functions(&m) {
            let c = aps::build_function(&ctx, f).unwrap();
            let tag = format!("{file} {}", c.name);
            for rs in [(0x1000, 0x2000), (3, 7), (1, 1)] {
                check(&tag, &ctx, f, &c, rs, BTreeMap::new());
            }
        }
    }
}

fn seed_cycles(file: &str) -> (u64, qor::Report) {
    let text = std::fs::read_to_string(common::data(&format!("aps/{file}.mlir"))).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)[0];
    let c = aps::build_function(&ctx, f).unwrap();
    let r = check(file, &ctx, f, &c, (0x1000, 0x2000), BTreeMap::new());
    (r.total.cycles, r)
}

/// The seed example at the pace of the schedule and the SoC's DMA engine: the command
/// register's cycle, two 64-byte loads (a request and 8 beats each), four iterations of
/// two slots, the 64-byte store (a request and 8 beats of two cycles) and the response
/// slot: 46 cycles (58 with the former 16-cycle bursts and no command register).
#[test]
fn flow_burst_add_at_the_schedules_pace() {
    let (cycles, r) = seed_cycles("flow_burst_add");
    assert_eq!(cycles, 46, "{r:?}");
    assert_eq!(r.total.overhead, 1, "the command register's cycle: {r:?}");
    let l = &r.loops[0];
    assert_eq!((l.iterations, l.cycles.cycles, l.slot_firings), (4, 8, 8));
}

/// Its loop pipelined (II = 1): one iteration started per cycle.
#[test]
fn flow_burst_add_pipelined_starts_an_iteration_per_cycle() {
    let (cycles, r) = seed_cycles("flow_burst_add_pipelined");
    assert!(cycles < 46, "{cycles}: {r:?}");
    assert_eq!(cycles, 43, "{r:?}");
    let l = &r.loops[0];
    // Four iterations of two stages overlap: 5 cycles.
    assert_eq!((l.iterations, l.cycles.cycles, l.slot_firings), (4, 5, 8));
}
