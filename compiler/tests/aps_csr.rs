//! Rocket custom CSRs (tests/data/aps/csr.mlir): the TOR interpreter, the rule simulator,
//! the CMT2 read-back and the RTL under Icarus agree on every instruction from a given CSR
//! state; on a stream with CPU `csrw`s between commands the timed engines agree cycle for
//! cycle, and a long command keeps the value it latched when it fired.

mod common;
mod sv_common;

use compiler::aps::Style;
use compiler::rules::sim::{self, Command, CsrWrite, SimConfig};
use compiler::rules::sv::{self, TbConfig};
use std::collections::BTreeMap;

fn design() -> (String, compiler::mlir::ast::ModuleAst) {
    let text = std::fs::read_to_string(common::data("aps/csr.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    (text, m)
}

fn cmd(funct7: u32, rs1: u32) -> Command {
    Command {
        opcode: 43,
        funct7,
        rs1,
        rs2: 0,
        rd: 1,
    }
}

fn write(before: usize, lane: &str, value: u32) -> CsrWrite {
    CsrWrite {
        before,
        lane: lane.into(),
        value,
    }
}

/// The Icarus run of `cmds` with the CPU writes `csr`, as the test harness of sv_diff runs
/// one.
fn rtl(
    c: &compiler::rules::Circuit,
    cmds: &[Command],
    csr: &[CsrWrite],
    tag: &str,
) -> sv::TbOutput {
    let dir = sv_common::scratch_dir(tag);
    let (text, info) = sv::emit_sv_with_info(c, sv::DEFAULT_TOP).unwrap();
    let tb = sv::testbench(c, &info, &TbConfig::default());
    std::fs::write(dir.join("dut.sv"), text).unwrap();
    std::fs::write(dir.join("tb.sv"), tb).unwrap();
    std::fs::write(dir.join("mem.hex"), "").unwrap();
    std::fs::write(dir.join("cmds.txt"), sv::cmds_text(cmds, csr, &info)).unwrap();
    let out = std::process::Command::new("iverilog")
        .args(["-g2012", "-o", "sim.vvp", "tb.sv", "dut.sv"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    sv_common::run(&dir)
}

/// The design's circuit in `style` (every function merged, as `kiln build` writes it).
fn circuit(m: &compiler::mlir::ast::ModuleAst, style: Style) -> compiler::rules::Circuit {
    let ctx = compiler::aps::design_context(m).unwrap();
    let cs = (compiler::aps::functions(m).into_iter())
        .map(|f| {
            compiler::aps::build_function_styled(&ctx, f, &compiler::limits::Limits::DEFAULT, style)
                .unwrap()
                .0
        })
        .collect();
    compiler::aps::build_file_circuit("csr", cs)
}

fn icarus() -> bool {
    let have = common::have_tool("iverilog");
    assert!(have || !common::strict(), "iverilog is required under CI");
    have
}

#[test]
fn every_engine_agrees_from_a_given_csr_state() {
    let (_, m) = design();
    let ctx = compiler::aps::design_context(&m).unwrap();
    let lanes: Vec<&str> = ctx.csrs.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(lanes, ["cfg", "status"], "lanes in ascending csr_address");
    for style in [Style::Fsm, Style::Fifo] {
        let circuit = circuit(&m, style);
        let read_back = compiler::rules::read_cmt2(&compiler::rules::emit_cmt2(&circuit)).unwrap();
        for (func, funct7) in [("scale", 8), ("status_add", 9), ("stamp", 10)] {
            for (cfg, status, rs1) in [
                (3u32, 0u32, 5u32),
                (0xdead_beef, 7, 0x8000_0001),
                (1, u32::MAX, 12),
            ] {
                let f = compiler::aps::function_named(&m, func).unwrap();
                let mut state = compiler::aps::interp::State::reset(&ctx, BTreeMap::new());
                state.csrs = [("cfg".to_string(), cfg), ("status".to_string(), status)].into();
                let tor =
                    compiler::aps::interp::run_in(&ctx, f, rs1, 0, &mut state, 1_000_000).unwrap();
                let tor_csrs = state.csrs;
                let csr = [write(0, "cfg", cfg), write(0, "status", status)];
                let sim_cfg = SimConfig {
                    csr_writes: csr.to_vec(),
                    ..SimConfig::default()
                };
                let cmds = [cmd(funct7, rs1)];
                let rules = sim::simulate(&circuit, &cmds, BTreeMap::new(), &sim_cfg).unwrap();
                let cmt2 = sim::simulate(&read_back, &cmds, BTreeMap::new(), &sim_cfg).unwrap();
                let tag = format!("{style:?} {func} cfg={cfg:#x} status={status:#x} rs1={rs1:#x}");
                let values: Vec<u32> = rules.responses.iter().map(|r| r.value).collect();
                assert_eq!(values, tor.responses, "{tag}: tor vs rules");
                assert_eq!(rules.csrs, tor_csrs, "{tag}: final CSRs, tor vs rules");
                let sets: Vec<(String, u32)> = rules
                    .csr_sets
                    .iter()
                    .map(|s| (s.lane.clone(), s.value))
                    .collect();
                assert_eq!(sets, tor.csr_sets, "{tag}: CSR writes");
                assert_eq!(rules, cmt2, "{tag}: rules vs cmt2");
                if icarus() {
                    let r = rtl(
                        &circuit,
                        &cmds,
                        &csr,
                        &format!("csr-{style:?}-{func}-{cfg}"),
                    );
                    assert_eq!(r.status, "ok", "{tag}");
                    let got: Vec<(u32, u32, u64)> = rules
                        .responses
                        .iter()
                        .map(|r| (r.rd, r.value, r.cycle))
                        .collect();
                    assert_eq!(r.responses, got, "{tag}: rtl responses");
                    let sets: Vec<(String, u32, u64)> = (rules.csr_sets.iter())
                        .map(|s| (s.lane.clone(), s.value, s.cycle))
                        .collect();
                    assert_eq!(r.csr_sets, sets, "{tag}: rtl CSR writes");
                    assert_eq!(r.csrs, rules.csrs, "{tag}: rtl final CSRs");
                }
            }
        }
    }
}

/// `scale` reads cfg when it fires and again in its loop (from the register its first rule
/// filled): the CPU writes cfg := 11 right after it fires, and it still answers with the
/// reset value 3 (5·3 + 4·3); `stamp`, issued after that write, latches 11 and answers it.
/// (Commands of different instructions overlap: the stream's answers are the timed
/// engines' own, which the untimed interpreter does not model.)
#[test]
fn a_long_command_keeps_its_latched_value() {
    let circuit = sv_common::file_circuit(
        "csr",
        &std::fs::read_to_string(common::data("aps/csr.mlir")).unwrap(),
    );
    let cmds = [cmd(8, 5), cmd(10, 9), cmd(9, 100), cmd(8, 2)];
    let csr = [write(1, "cfg", 11), write(3, "status", 1000)];
    let sim_cfg = SimConfig {
        csr_writes: csr.to_vec(),
        ..SimConfig::default()
    };
    let rules = sim::simulate(&circuit, &cmds, BTreeMap::new(), &sim_cfg).unwrap();
    let values: Vec<u32> = rules.responses.iter().map(|r| r.value).collect();
    // Responses in completion order: stamp (latched 11) and status_add (latched status 0,
    // before scale wrote it back) finish before the long scale (27: cfg = 3 throughout);
    // the last scale latched stamp's write-back cfg = 9 (2·9 + 4·9).
    assert_eq!(values, [11, 100, 27, 54], "{values:?}");
    let read_back = compiler::rules::read_cmt2(&compiler::rules::emit_cmt2(&circuit)).unwrap();
    assert_eq!(
        sim::simulate(&read_back, &cmds, BTreeMap::new(), &sim_cfg).unwrap(),
        rules
    );
    if icarus() {
        let r = rtl(&circuit, &cmds, &csr, "csr-stream");
        assert_eq!(r.status, "ok");
        let got: Vec<(u32, u32, u64)> = rules
            .responses
            .iter()
            .map(|r| (r.rd, r.value, r.cycle))
            .collect();
        assert_eq!(r.responses, got);
        assert_eq!(r.accepted, rules.accepted);
        assert_eq!(r.csrs, rules.csrs);
        let sets: Vec<(String, u32, u64)> = (rules.csr_sets.iter())
            .map(|s| (s.lane.clone(), s.value, s.cycle))
            .collect();
        assert_eq!(r.csr_sets, sets);
    }
}
