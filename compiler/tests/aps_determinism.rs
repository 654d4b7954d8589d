//! Outputs are byte-identical across runs: two independent parses and builds of the same
//! input emit the same CMT2, JSON and DOT text.

mod common;

use compiler::flow::OutputKind;
use compiler::{aps, rules};

fn emit(text: &str) -> (String, String, String) {
    let m = compiler::mlir::parse(text).unwrap();
    let cs = aps::build_module(&m).unwrap();
    let dot = rules::to_dot(&cs[0]);
    let c = aps::build_file_circuit("x", cs);
    (rules::emit_cmt2(&c), rules::to_json(&c), dot)
}

#[test]
fn flow_burst_add_is_deterministic() {
    let text = std::fs::read_to_string(common::data("aps/flow_burst_add.mlir")).unwrap();
    let a = emit(&text);
    assert_eq!(a, emit(&text));
    assert!(a.0.contains("cmt2.rule @inst2b00_loop_1_loop_block_0_slot_6_rule"));
    // block_0 {0,1,2} (slot 4 only waits), body {6,7}, block_2 {11,12}: the loop has no
    // rule of its own, the virtual `memref.get_global`s of slot 9 need none.
    assert_eq!(a.0.matches("cmt2.rule @inst2b00_").count(), 7);
    let json: serde_json::Value = serde_json::from_str(&a.1).unwrap();
    assert_eq!(json["rules"].as_array().unwrap().len(), 7);
}

#[test]
fn generated_modules_are_deterministic() {
    for seed in 0..10 {
        let text = aps::workload::generate(4, seed);
        assert_eq!(emit(&text), emit(&text), "seed {seed}");
    }
}

#[test]
fn parallel_file_flow_equals_sequential_emitters() {
    for seed in [3, 4] {
        let text = aps::workload::generate(7, seed);
        let m = compiler::mlir::parse(&text).unwrap();
        let c = aps::build_file_circuit("g", aps::build_module(&m).unwrap());
        let out = compiler::flow::aps::build(&text, "g", None, &compiler::limits::Limits::DEFAULT);
        let whole = |k| String::from_utf8(out.output(k).unwrap().concat()).unwrap();
        assert_eq!(whole(OutputKind::Cmt2), rules::emit_cmt2(&c));
        assert_eq!(whole(OutputKind::RulesJson), rules::to_json(&c));
        for threads in [1, 2, 3, 64] {
            let options = compiler::flow::aps::Options {
                threads,
                sv_top: Some("main"),
                ..compiler::flow::aps::Options::default()
            };
            let on = compiler::flow::aps::build_with(&text, "g", &options);
            let with_sv = compiler::flow::aps::build(
                &text,
                "g",
                Some("main"),
                &compiler::limits::Limits::DEFAULT,
            );
            assert!(on == with_sv, "seed {seed}, {threads} threads");
        }
    }
}
