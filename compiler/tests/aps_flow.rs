//! Acceptance of the APS flow on `flow_burst_add` (seed 000): segmentation shape, both
//! reference engines (TOR interpreter and rule simulator) on A = 1..16, B = 101..116.

mod common;

use compiler::aps::{self, segment::BlockKind};
use compiler::rules::sim::{self, Command, SimConfig};
use std::collections::BTreeMap;

fn load() -> (String, compiler::mlir::ast::ModuleAst) {
    let text = std::fs::read_to_string(common::data("aps/flow_burst_add.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap_or_else(|d| panic!("{}", d.render("f", &text)));
    (text, m)
}

const RS1: u32 = 0x1000;
const RS2: u32 = 0x2000;

fn cpu_mem() -> BTreeMap<u32, u8> {
    let mut mem = BTreeMap::new();
    for i in 0..16u32 {
        sim::write_word(&mut mem, RS1 + 4 * i, i + 1);
        sim::write_word(&mut mem, RS2 + 4 * i, 101 + i);
    }
    mem
}

fn check_c(mem: &BTreeMap<u32, u8>) {
    for i in 0..16u32 {
        assert_eq!(
            sim::read_word(mem, RS1 + 4 * i),
            (i + 1) + (101 + i),
            "C[{i}]"
        );
        assert_eq!(
            sim::read_word(mem, RS2 + 4 * i),
            101 + i,
            "B[{i}] unchanged"
        );
    }
}

/// rs1's value (`%0`, also used by the second slot) and the command's rd (`%arg2`, for the
/// response) cross from the first block to the last: they live in registers; the loop
/// needs only virtual values and its induction variable.
#[test]
fn three_top_level_blocks_and_rs1_and_rd_cross() {
    let (_, m) = load();
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)[0];
    let seg = aps::segment_function(&ctx, f).unwrap();
    let BlockKind::Function { body, .. } = &seg.blocks[0].kind else {
        panic!()
    };
    let kinds: Vec<&str> = body
        .children
        .iter()
        .map(|&c| match seg.blocks[c].kind {
            BlockKind::Basic { .. } => "block",
            BlockKind::Loop { .. } => "loop",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["block", "loop", "block"]);
    let names: Vec<&str> = body
        .children
        .iter()
        .map(|&c| seg.blocks[c].name.as_str())
        .collect();
    assert_eq!(
        names,
        ["inst2b00_block_0", "inst2b00_loop_1", "inst2b00_block_2"]
    );
    let regs: Vec<(&str, &str)> = seg
        .values
        .regs
        .iter()
        .map(|(v, r)| (v.as_str(), r.as_str()))
        .filter(|(_, r)| !r.starts_with("inst2b00_loop_1_loop_block_0_reg"))
        .collect();
    assert_eq!(
        regs,
        [
            ("%0", "inst2b00_block_0_reg0"),
            ("%1", "inst2b00_block_0_reg1"),
            ("%arg2", "inst2b00_arg2"),
            ("%arg3", "inst2b00_loop_1_loop_iv")
        ]
    );
    // The body's eight loads cross from its first slot to its second.
    assert_eq!(seg.values.regs.len(), 4 + 8);
}

#[test]
fn interpreter_adds_the_arrays() {
    let (_, m) = load();
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)[0];
    let r = aps::interp::run(&ctx, f, RS1, RS2, cpu_mem(), 1_000_000).unwrap();
    assert_eq!(r.responses, vec![42]);
    check_c(&r.cpu_mem);
}

#[test]
fn rule_simulator_adds_the_arrays() {
    let (_, m) = load();
    let circuits = aps::build_module(&m).unwrap();
    let cmd = Command {
        opcode: 43,
        funct7: 0,
        rs1: RS1,
        rs2: RS2,
        rd: 10,
    };
    let r = sim::simulate(&circuits[0], &[cmd], cpu_mem(), &SimConfig::default()).unwrap();
    assert_eq!(r.responses.len(), 1);
    assert_eq!(r.responses[0].value, 42);
    assert_eq!(r.responses[0].rd, 10);
    check_c(&r.cpu_mem);
    // The command register's cycle, the first load's request and its 8 beats, the second
    // load's request and its 8 beats, 8 loop cycles, the store's request and its 16 beat
    // cycles (read and collect per beat), the response: 46 cycles.
    eprintln!("flow_burst_add: {} cycles", r.cycles);
    assert!(
        r.cycles >= 1 + 9 + 9 + 16,
        "faster than the DMA allows: {}",
        r.cycles
    );
    assert_eq!(r.cycles, 46);
}
