//! Differential tests of the SystemVerilog backend: on generated programs (fixed seeds) the
//! RTL under Icarus Verilog and the rule simulator agree on the cycle every command is
//! accepted, every response with its cycle, CPU memory, bank contents, registers and the
//! cycle count.
//! - 50 one-function programs, one command each;
//! - 50 multi-function programs (2–3 functions merged into one circuit as `kiln build`
//!   does, sharing the RoCC port, DMA engine, CPU-memory port, banks and globals), each
//!   given `functions + 2` commands queued at once, so several commands are in flight and
//!   the one-command/one-response-per-cycle arbitration, the shared DMA and the memory
//!   lanes are exercised. Event-driven RTL simulation of these designs costs tens of
//!   milliseconds per cycle, so CI takes the first 50 seeds whose simulated run is at most
//!   [`MULTI_MAX_CYCLES`] cycles (a fixed, deterministic selection); the ignored long run
//!   has no cap.
//!
//! Designs are compiled in batches (one `iverilog` call and one `vvp` run per batch, two
//! batches in parallel).

mod common;
mod sv_common;

use compiler::aps::{self, workload};
use compiler::rules::sim::SimResult;
use sv_common::*;

/// One-function program `seed` with one command.
fn single(seed: u64) -> Case {
    let text = workload::generate(1, seed);
    let m = compiler::mlir::parse(&text).unwrap();
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)[0];
    let circuit = aps::build_function(&ctx, f).unwrap();
    let cmd = common::command(&circuit, workload::RS1, workload::RS2, 3);
    Case {
        tag: format!("seed{seed}"),
        circuit,
        cmds: vec![cmd],
        mem: workload::cpu_memory(seed),
    }
}

/// Multi-function program `seed`: 2 or 3 functions (opcodes 43, 44, 45) and `functions + 2`
/// commands in a seed-dependent order that calls every function at least once; command
/// `k` writes `rd = k + 1`.
fn multi(seed: u64) -> Case {
    let functions = 2 + (seed % 2) as usize;
    let text = workload::generate(functions, seed);
    let circuit = file_circuit(&format!("multi{seed}"), &text);
    let mut order: Vec<u32> = (0..functions as u32).collect();
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for i in (1..order.len()).rev() {
        order.swap(i, (next() % (i as u64 + 1)) as usize);
    }
    order.push((next() % functions as u64) as u32);
    order.push((next() % functions as u64) as u32);
    let cmds = order
        .iter()
        .enumerate()
        .map(|(k, f)| common::generated_command(*f as usize, k as u32 + 1))
        .collect();
    Case {
        tag: format!("multi{seed}"),
        circuit,
        cmds,
        mem: workload::cpu_memory(seed),
    }
}

/// Most commands accepted but not yet answered at any cycle of a run.
fn max_in_flight(r: &SimResult) -> usize {
    r.accepted
        .iter()
        .map(|&t| {
            let accepted = r.accepted.iter().filter(|&&a| a <= t).count();
            let answered = r.responses.iter().filter(|x| x.cycle < t).count();
            accepted.saturating_sub(answered)
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn sv_rtl_matches_rule_sim_50_programs() {
    if !common::have_tool("iverilog") {
        return;
    }
    let cases: Vec<Case> = (0..50).map(single).collect();
    let results = compare_batches("single", cases);
    assert_eq!(results.len(), 50);
    eprintln!(
        "sv_diff: 50 one-function programs agree, {} simulated cycles in total",
        results.iter().map(|r| r.cycles).sum::<u64>()
    );
}

/// Longest rule-simulator run (cycles) of a multi-function program in the CI selection.
const MULTI_MAX_CYCLES: u64 = 300;

fn sim_cycles(c: &Case) -> u64 {
    compiler::rules::sim::simulate(&c.circuit, &c.cmds, c.mem.clone(), &Default::default())
        .unwrap_or_else(|e| panic!("{}: rule simulator: {e}", c.tag))
        .cycles
}

#[test]
fn sv_rtl_matches_rule_sim_50_multi_function_programs() {
    if !common::have_tool("iverilog") {
        return;
    }
    let cases: Vec<Case> = (0..)
        .map(multi)
        .filter(|c| sim_cycles(c) <= MULTI_MAX_CYCLES)
        .take(50)
        .collect();
    let commands: usize = cases.iter().map(|c| c.cmds.len()).sum();
    let results = compare_batches("multi", cases);
    assert_eq!(results.len(), 50);
    for r in &results {
        assert_eq!(
            r.accepted.len(),
            r.responses.len(),
            "one response per command"
        );
    }
    let overlapped = results.iter().filter(|r| max_in_flight(r) >= 2).count();
    eprintln!(
        "sv_diff: 50 multi-function programs ({commands} commands) agree, {} simulated cycles in total, {overlapped} with several commands in flight",
        results.iter().map(|r| r.cycles).sum::<u64>()
    );
    assert!(
        overlapped >= 25,
        "only {overlapped} of 50 programs had several commands in flight"
    );
}

#[test]
#[ignore = "long run: cargo test --release --test sv_diff -- --ignored"]
fn sv_rtl_matches_rule_sim_long() {
    if !common::have_tool("iverilog") {
        return;
    }
    let cases: Vec<Case> = (1000..1150)
        .map(single)
        .chain((1000..1150).map(multi))
        .collect();
    let results = compare_batches("long", cases);
    assert_eq!(results.len(), 300);
}

/// yosys accepts generated designs that use every interface (memory lanes, bursts, split
/// bank reads) without latches.
#[test]
#[ignore = "slow: yosys on several generated designs"]
fn sv_generated_designs_synthesize() {
    if !common::have_tool("yosys") {
        return;
    }
    for seed in [1u64, 2, 3] {
        let Case { tag, circuit, .. } = single(seed);
        let dir = scratch_dir(&format!("ys{tag}"));
        let text = compiler::rules::sv::emit_sv(&circuit, "main").unwrap();
        std::fs::write(dir.join("d.sv"), text).unwrap();
        let top = "main";
        let cells = yosys_synth(&dir, "d.sv", top);
        eprintln!("{tag}: {cells} cells");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
