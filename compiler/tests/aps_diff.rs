//! Differential test: on generated programs (fixed seeds) the TOR interpreter and the rule
//! simulator agree on every response, every CPU memory byte, every bank word and every
//! global register, and no run deadlocks. `aps_diff_long` (ignored) runs 1,000 seeds.

mod common;

use compiler::aps::{self, interp, workload};
use compiler::rules::sim::{self, SimConfig};

/// Run one seed; returns the number of functions checked.
fn check_seed(seed: u64, functions: usize) -> usize {
    check_text(seed, &workload::generate(functions, seed))
}

/// Check every function of generated module `text` (CPU memory of `seed`).
fn check_text(seed: u64, text: &str) -> usize {
    let m = compiler::mlir::parse(text)
        .unwrap_or_else(|d| panic!("seed {seed}: {}", d.render("gen", text)));
    let ctx = aps::design_context(&m)
        .unwrap_or_else(|d| panic!("seed {seed}: {}", d.render("gen", text)));
    let mut n = 0;
    for f in aps::functions(&m) {
        let circuit = aps::build_function(&ctx, f)
            .unwrap_or_else(|d| panic!("seed {seed}: {}", d.render("gen", text)));
        let mem = workload::cpu_memory(seed);
        let want = interp::run(
            &ctx,
            f,
            workload::RS1,
            workload::RS2,
            mem.clone(),
            10_000_000,
        )
        .unwrap_or_else(|d| panic!("seed {seed}: {}", d.render("gen", text)));
        let cmd = common::command(&circuit, workload::RS1, workload::RS2, 3);
        let got = sim::simulate(&circuit, &[cmd], mem, &SimConfig::default())
            .unwrap_or_else(|e| panic!("seed {seed} {}: {e}", circuit.name));
        let values: Vec<u32> = got.responses.iter().map(|r| r.value).collect();
        assert_eq!(
            values, want.responses,
            "seed {seed} {}: responses",
            circuit.name
        );
        assert_eq!(
            got.cpu_mem, want.cpu_mem,
            "seed {seed} {}: CPU memory",
            circuit.name
        );
        for (bank, data) in &want.banks {
            assert_eq!(
                got.banks.get(bank),
                Some(data),
                "seed {seed} {}: bank {bank}",
                circuit.name
            );
        }
        for (g, v) in &want.globals {
            assert_eq!(
                got.regs.get(&format!("glbl_reg_{g}")),
                Some(v),
                "seed {seed} {}: global {g}",
                circuit.name
            );
        }
        n += 1;
    }
    n
}

#[test]
fn aps_diff_200_seeds() {
    let n: usize = (0..200).map(|s| check_seed(s, 3)).sum();
    assert_eq!(n, 600);
}

/// Programs with pipelined loops: overlapping iterations compute what the sequential
/// semantics does (the generator keeps every bank and global to one stage).
#[test]
fn aps_diff_pipelined_loops_100_seeds() {
    let opts = workload::Options {
        pipelined_loops: true,
    };
    let mut n = 0;
    let mut piped = 0;
    for seed in 0..100 {
        let text = workload::generate_with(3, seed, opts);
        piped += text.matches("pipeline = true").count();
        n += check_text(seed, &text);
    }
    assert_eq!(n, 300);
    assert!(piped > 50, "only {piped} pipelined loops");
}

#[test]
#[ignore = "long run: cargo test --release --test aps_diff -- --ignored"]
fn aps_diff_long() {
    let n: usize = (1000..2000).map(|s| check_seed(s, 3)).sum();
    assert_eq!(n, 3000, "every function of every seed was checked");
}
