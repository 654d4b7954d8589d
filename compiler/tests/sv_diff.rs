//! Differential test of the SystemVerilog backend: on 50 generated programs (fixed seeds,
//! one function each) the RTL under Icarus Verilog and the rule simulator agree on every
//! response and its cycle, CPU memory, bank contents, registers and the cycle count.
//! Each design is compiled once; two designs run at a time.

mod common;
mod sv_common;

use compiler::aps::{self, workload};
use compiler::mlir::ast::Attribute;
use compiler::rules::sim::{self, Command, SimConfig};
use std::collections::BTreeMap;
use sv_common::*;

/// One generated program: (tag, circuit, command, memory).
fn program(seed: u64) -> (String, compiler::rules::Circuit, Command, BTreeMap<u32, u8>) {
    let text = workload::generate(1, seed);
    let m = compiler::mlir::parse(&text).unwrap();
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)[0];
    let circuit = aps::build_function(&ctx, f).unwrap();
    let opcode = f.attr("opcode").and_then(Attribute::as_int).unwrap() as u32;
    let cmd = Command {
        id: opcode,
        rs1: workload::RS1,
        rs2: workload::RS2,
        rd: 3,
    };
    (
        format!("seed{seed}"),
        circuit,
        cmd,
        workload::cpu_memory(seed),
    )
}

fn check_seed(seed: u64) -> u64 {
    let (tag, circuit, cmd, mem) = program(seed);
    let want = sim::simulate(
        &circuit,
        std::slice::from_ref(&cmd),
        mem.clone(),
        &SimConfig::default(),
    )
    .unwrap_or_else(|e| panic!("{tag}: rule simulator: {e}"));
    let dir = scratch_dir(&tag);
    prepare(&dir, &circuit, &[cmd], &mem, 2 * want.cycles + 1000);
    let got = run(&dir);
    check(&tag, &want, &got);
    let _ = std::fs::remove_dir_all(&dir);
    want.cycles
}

#[test]
fn sv_rtl_matches_rule_sim_50_programs() {
    if !common::have_tool("iverilog") {
        return;
    }
    let seeds: Vec<u64> = (0..50).collect();
    let halves: Vec<Vec<u64>> = seeds.chunks(25).map(|c| c.to_vec()).collect();
    let cycles: Vec<u64> = std::thread::scope(|s| {
        let hs: Vec<_> = halves
            .iter()
            .map(|h| s.spawn(move || h.iter().map(|&k| check_seed(k)).collect::<Vec<_>>()))
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(cycles.len(), 50);
    eprintln!(
        "sv_diff: 50 programs agree, {} simulated cycles in total",
        cycles.iter().sum::<u64>()
    );
}

#[test]
#[ignore = "long run: cargo test --release --test sv_diff -- --ignored"]
fn sv_rtl_matches_rule_sim_long() {
    if !common::have_tool("iverilog") {
        return;
    }
    let seeds: Vec<u64> = (1000..1300).collect();
    let halves: Vec<Vec<u64>> = seeds.chunks(150).map(|c| c.to_vec()).collect();
    std::thread::scope(|s| {
        for h in &halves {
            s.spawn(move || {
                h.iter().for_each(|&k| {
                    check_seed(k);
                })
            });
        }
    });
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
        let (tag, circuit, _, _) = program(seed);
        let dir = scratch_dir(&format!("ys{tag}"));
        let text = compiler::rules::sv::emit_sv(&circuit).unwrap();
        std::fs::write(dir.join("d.sv"), text).unwrap();
        let top = compiler::rules::sv::ident(&circuit.name);
        let cells = yosys_synth(&dir, "d.sv", &top);
        eprintln!("{tag}: {cells} cells");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
