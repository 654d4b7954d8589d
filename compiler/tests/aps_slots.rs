//! One function's slots: its outputs grow linearly with them (they grew with the square
//! before: every slot rule declared precedence over every other slot of its block, and in
//! the SystemVerilog every register write listed every earlier writer and the schedule
//! comment every pair of rules), the slot limit is a located error naming its flag and
//! key, and the simulator's index of rules by guard changes no result. Sizes, not times:
//! time and memory are measured by `kiln-bench aps --slots`.

mod common;

use compiler::aps::{self, workload};
use compiler::diag::Code;
use compiler::flow::{OutputKind, aps as flow};
use compiler::limits::Limits;
use compiler::rules::sim::{self, SimConfig};

/// The byte size of each output of a `slots`-slot chain, and its DOT graph's.
fn sizes(slots: usize) -> [usize; 4] {
    let text = workload::slot_chain(slots);
    let out = flow::build(&text, "chain", Some("main"), &Limits::default());
    assert!(!out.has_errors(), "{:?}", out.diagnostics);
    let len = |k| {
        (out.output(k).unwrap().iter())
            .map(|p| p.len())
            .sum::<usize>()
    };
    let m = compiler::mlir::parse(&text).unwrap();
    let ctx = aps::design_context(&m).unwrap();
    let c = aps::build_function(&ctx, aps::functions(&m)[0]).unwrap();
    // Precedence: later slots before earlier ones, as a chain of neighbours.
    assert_eq!(c.precedence.len(), c.rules.len() - 1);
    let dot = compiler::rules::to_dot(&c).len();
    [
        len(OutputKind::Cmt2),
        len(OutputKind::RulesJson),
        len(OutputKind::Sv),
        dot,
    ]
}

#[test]
fn outputs_grow_linearly_with_the_slots_of_a_function() {
    let small = sizes(500);
    let large = sizes(2000);
    for (k, name) in ["CMT2", "rules JSON", "SystemVerilog", "DOT"]
        .iter()
        .enumerate()
    {
        // Four times the slots: about four times the bytes (the square: sixteen).
        let ratio = large[k] as f64 / small[k] as f64;
        assert!(
            (3.5..4.5).contains(&ratio),
            "{name}: {} → {} bytes, ×{ratio:.2}",
            small[k],
            large[k]
        );
    }
}

#[test]
fn a_function_over_the_slot_limit_is_a_located_error() {
    let limits = Limits {
        max_slots: 1000,
        ..Limits::default()
    };
    // Slot t of the chain is on line 5 + t: slot 1,000 (the response) is the 1,001st.
    let text = workload::slot_chain(1001);
    let out = flow::build(&text, "chain", None, &limits);
    let [d] = out.diagnostics.as_slice() else {
        panic!("{:?}", out.diagnostics)
    };
    assert!(out.outputs.is_empty());
    assert_eq!(d.code, Some(Code::LimitExceeded));
    let r = d.render("f", &text);
    assert!(
        r.starts_with("f:1005:7: error: function `@chain` has 1001 slots, loops and conditionals: 1001 exceeds the limit on slots of one APS function (1000)"),
        "{r}"
    );
    assert!(
        r.contains("--max-slots") && r.contains("`max_slots`"),
        "{r}"
    );
    // Loops and conditionals count too: an empty loop has no slot but a rule.
    let loops: String = (0..3)
        .map(|k| {
            format!(
                "      tor.for %i{k} = (%c1_i32 : i32) to (%c1_i32 : i32) step (%c1_i32 : i32) on ({} to {}) {{\n      }}\n",
                k + 1,
                k + 2
            )
        })
        .collect();
    let text = workload::slot_chain(1).replacen(
        "      aps.writerf",
        &format!("{loops}      aps.writerf"),
        1,
    );
    let tight = Limits {
        max_slots: 3,
        ..Limits::default()
    };
    let out = flow::build(&text, "loops", None, &tight);
    assert!(out.has_errors(), "{text}");
    assert!(
        !flow::build(&text, "loops", None, &Limits::default()).has_errors(),
        "{text}"
    );
    // At the limit: builds.
    let text = workload::slot_chain(1000);
    assert!(!flow::build(&text, "chain", None, &limits).has_errors());
}

/// The simulator tries only the rules whose guard can hold; trying every rule gives the
/// same run, cycle for cycle and rule for rule.
#[test]
fn the_guard_index_changes_no_simulation() {
    let every = SimConfig {
        dispatch: false,
        ..SimConfig::default()
    };
    let mut checked = 0;
    for (seed, opts) in (0..12).flat_map(|s| {
        [
            (s, workload::Options::default()),
            (
                s,
                workload::Options {
                    pipelined_loops: true,
                },
            ),
        ]
    }) {
        let text = workload::generate_with(3, seed, opts);
        let m = compiler::mlir::parse(&text).unwrap();
        let ctx = aps::design_context(&m).unwrap();
        let circuits: Vec<_> = (aps::functions(&m).into_iter())
            .map(|f| aps::build_function(&ctx, f).unwrap())
            .collect();
        let cmds: Vec<_> = (0..circuits.len())
            .map(|n| common::generated_command(n, 3))
            .collect();
        let merged = aps::build_file_circuit("g", circuits);
        let mem = workload::cpu_memory(seed);
        let fast = sim::simulate_traced(&merged, &cmds, mem.clone(), &SimConfig::default());
        let slow = sim::simulate_traced(&merged, &cmds, mem, &every);
        assert_eq!(fast, slow, "seed {seed}");
        checked += 1;
    }
    assert_eq!(checked, 24);
    // And on a long function, where it matters.
    let text = workload::slot_chain(300);
    let m = compiler::mlir::parse(&text).unwrap();
    let ctx = aps::design_context(&m).unwrap();
    let c = aps::build_function(&ctx, aps::functions(&m)[0]).unwrap();
    let cmd = common::command(&c, 5, 0, 1);
    let fast = sim::simulate_traced(
        &c,
        std::slice::from_ref(&cmd),
        Default::default(),
        &SimConfig::default(),
    );
    let slow = sim::simulate_traced(&c, &[cmd], Default::default(), &every);
    assert_eq!(fast, slow);
}
