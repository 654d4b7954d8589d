//! Loops whose induction variable would overflow (`tests/data/aps/loop_overflow.mlir`):
//! with a bound or step known only at run time, each loop ends when its next induction
//! value would leave the variable's type, and the four engines agree: the TOR interpreter,
//! the rule simulator, the simulator on the circuit read back from its CMT2 text, and the
//! RTL under Icarus Verilog (cycle for cycle with the simulator). Before, the variable
//! wrapped and every engine ran until its step or cycle budget ("no quiescence").
//! With constant bounds the same loops are rejected (`tests/data/aps/diag/loop_*.mlir`).

mod common;
mod sv_common;

use compiler::aps::{self, interp};
use compiler::rules::sim::{self, SimConfig};
use std::collections::BTreeMap;

/// (function, rs1, the response: the iteration count, or the last induction value).
const CASES: &[(&str, u32, u32)] = &[
    // 2147483640..=2147483647: the value after INT32_MAX overflows.
    ("up_to_max", 2_147_483_640, 8),
    // 0, 2^30; 2^31 is not an i32.
    ("step_past_max", 1 << 30, 2),
    // -2147483645 down to INT32_MIN.
    ("down_to_min", 0x8000_0003, 4),
    // i8 from 125 to 127.
    ("narrow", 125, 3),
    // i8 from -56 (200 truncated) to 127.
    ("narrow", 200, 184),
    // Pipelined: stores 2147483645, 2147483646, 2147483647, then stops issuing.
    ("pipelined", 2_147_483_645, 2_147_483_647),
];

#[test]
fn overflowing_loops_end_alike_in_every_engine() {
    let text = std::fs::read_to_string(common::data("aps/loop_overflow.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap_or_else(|d| panic!("{}", d.render("lo", &text)));
    let ctx = aps::design_context(&m).unwrap();
    for &(name, rs1, want) in CASES {
        let f = aps::function_named(&m, name).unwrap();
        let tag = format!("{name} rs1={rs1}");
        // A budget far below the wrapping loops' 2^31 iterations: they must not be needed.
        let r = interp::run(&ctx, f, rs1, 0, BTreeMap::new(), 100_000)
            .unwrap_or_else(|d| panic!("{tag}: {}", d.render("lo", &text)));
        assert_eq!(r.responses, [want], "{tag}: TOR interpreter");

        let circuit = aps::build_function(&ctx, f).unwrap();
        let cmd = common::command(&circuit, rs1, 0, 1);
        let cfg = SimConfig {
            max_cycles: 100_000,
            ..SimConfig::default()
        };
        let got = sim::simulate(&circuit, std::slice::from_ref(&cmd), BTreeMap::new(), &cfg)
            .unwrap_or_else(|e| panic!("{tag}: rule simulator: {e}"));
        let values: Vec<u32> = got.responses.iter().map(|r| r.value).collect();
        assert_eq!(values, [want], "{tag}: rule simulator");

        let cmt2 = compiler::rules::emit_cmt2(&circuit);
        let back = compiler::rules::read_cmt2(&cmt2)
            .unwrap_or_else(|d| panic!("{tag}: {}", d.render("cmt2", &cmt2)));
        let again = sim::simulate(&back, std::slice::from_ref(&cmd), BTreeMap::new(), &cfg)
            .unwrap_or_else(|e| panic!("{tag}: CMT2 read back: {e}"));
        assert_eq!(again, got, "{tag}: CMT2 read back");

        if let Some(rtl) =
            sv_common::compare(&circuit, &[cmd], BTreeMap::new(), &format!("lo-{name}"))
        {
            assert_eq!(rtl.responses.len(), 1, "{tag}: RTL");
            assert_eq!(rtl.responses[0].1, want, "{tag}: RTL");
        }
    }
}

/// A loop that would run longer than the interpreter's budget fails at its entry, not
/// after the budget is spent.
#[test]
fn the_interpreter_refuses_a_loop_beyond_its_budget_at_once() {
    let text = std::fs::read_to_string(common::data("aps/loop_overflow.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::function_named(&m, "up_to_max").unwrap();
    // From 0: 2^31 iterations.
    let d = interp::run(&ctx, f, 0, 0, BTreeMap::new(), 100_000_000).unwrap_err();
    assert!(
        d.message.contains("2147483648 iterations"),
        "{}",
        d.render("lo", &text)
    );
}
