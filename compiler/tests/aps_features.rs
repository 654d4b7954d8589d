//! Beyond the original generator: runtime loop bounds, zero-trip and descending loops,
//! nested loops with iteration values and results, `tor.if` with results and without else
//! (input distribution through several levels), globals and a signed shift — each checked
//! against hand-computed values on both engines.

mod common;

use compiler::aps;
use compiler::mlir::ast::Attribute;
use compiler::rules::sim::{self, SimConfig};
use std::collections::BTreeMap;

fn run_both(func: &str, rs1: i32, rs2: i32) -> (u32, u32) {
    let text = std::fs::read_to_string(common::data("aps/features.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap_or_else(|d| panic!("{}", d.render("f", &text)));
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)
        .into_iter()
        .find(|f| matches!(f.attr("sym_name"), Some(Attribute::String(s)) if s == func))
        .unwrap();
    let i = aps::interp::run(&ctx, f, rs1 as u32, rs2 as u32, BTreeMap::new(), 1_000_000).unwrap();
    let c = aps::build_function(&ctx, f).unwrap_or_else(|d| panic!("{}", d.render("f", &text)));
    let cmd = common::command(&c, rs1 as u32, rs2 as u32, 1);
    let r = sim::simulate(&c, &[cmd], BTreeMap::new(), &SimConfig::default())
        .unwrap_or_else(|e| panic!("{func}: {e}"));
    assert_eq!(i.responses.len(), 1);
    assert_eq!(r.responses.len(), 1);
    (i.responses[0], r.responses[0].value)
}

#[test]
fn runtime_bound_and_zero_trip() {
    assert_eq!(run_both("sum_to_n", 4, 0), (10, 10));
    assert_eq!(run_both("sum_to_n", 0, 0), (0, 0));
    assert_eq!(
        run_both("sum_to_n", -1, 0),
        (0, 0),
        "zero-trip: lb 0 > ub -1 (signed)"
    );
}

#[test]
fn descending_nested_loops_with_if_results() {
    assert_eq!(run_both("nested", 3, 7), (51, 51));
    assert_eq!(run_both("nested", -2, 7), (7, 7));
    assert_eq!(run_both("nested", 100, 0), (70, 70));
}

#[test]
fn if_without_else_and_signed_shift() {
    assert_eq!(run_both("global_if", 6, 0), (109, 109));
    assert_eq!(run_both("global_if", -6, 0), (97, 97));
}

/// Loops and `if`s have no rules of their own: entry, next iteration, exit, branch and
/// join are steps of the slot rules' transitions. Only the outer loop, whose body (the
/// inner loop) can finish an iteration without a slot, has a head rule.
#[test]
fn nested_control_lives_in_the_slot_rules() {
    let text = std::fs::read_to_string(common::data("aps/features.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)[1];
    let c = aps::build_function(&ctx, f).unwrap();
    let names: Vec<&str> = c.rules.iter().map(|r| r.name.as_str()).collect();
    let control: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !aps::qor::is_slot_rule(n))
        .collect();
    assert_eq!(control, ["inst0b02_loop_1_loop_head_rule"], "{names:?}");
}

/// Non-pipelined code keeps its values in registers: one command runs at a time, one slot
/// after the other, so no value needs a queue.
#[test]
fn values_live_in_registers() {
    assert_eq!(run_both("count", -2, 3), (30, 30));
    assert_eq!(run_both("count", 4, 3), (0, 0));
    let text = std::fs::read_to_string(common::data("aps/features.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    let ctx = aps::design_context(&m).unwrap();
    for f in aps::functions(&m) {
        let c = aps::build_function(&ctx, f).unwrap();
        let fifos: Vec<&str> = c
            .instances
            .iter()
            .filter(|i| matches!(i.kind, compiler::rules::InstanceKind::Fifo { .. }))
            .map(|i| i.name.as_str())
            .collect();
        assert!(fifos.is_empty(), "{}: {fifos:?}", c.name);
    }
}
