//! Shared harness of the SystemVerilog backend tests: build a file's circuit, run the rule
//! simulator, emit the RTL and its testbench, run Icarus Verilog, and compare responses
//! (with their cycles), CPU memory, banks, registers and the cycle count.
#![allow(dead_code)]

use compiler::rules::sim::{self, Command, SimConfig};
use compiler::rules::sv::{self, TbConfig};
use compiler::rules::{Circuit, sv::ident};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as Proc;

/// All functions of a module merged into one circuit, as `kiln build` does.
pub fn file_circuit(name: &str, text: &str) -> Circuit {
    let m = compiler::mlir::parse(text).unwrap_or_else(|d| panic!("{}", d.render(name, text)));
    let cs = compiler::aps::build_module(&m).unwrap_or_else(|d| panic!("{}", d.render(name, text)));
    compiler::aps::build_file_circuit(name, cs)
}

/// What the RTL run produced.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RtlRun {
    pub responses: Vec<(u32, u32, u64)>,
    pub cycles: u64,
    pub cpu_mem: BTreeMap<u32, u8>,
    pub banks: BTreeMap<String, Vec<u128>>,
    pub regs: BTreeMap<String, u128>,
    pub status: String,
    pub errors: u64,
}

pub fn scratch_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kiln-sv-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Write the design, testbench and inputs into `dir`; compile with `iverilog -g2012`.
pub fn prepare(dir: &Path, c: &Circuit, cmds: &[Command], mem: &BTreeMap<u32, u8>) {
    let (text, info) = sv::emit_sv_with_info(c).expect("emit sv");
    let tb = sv::testbench(c, &info, &TbConfig::default());
    std::fs::write(dir.join("dut.sv"), &text).unwrap();
    std::fs::write(dir.join("tb.sv"), tb).unwrap();
    let mut hex = String::new();
    for (a, v) in mem {
        hex.push_str(&format!("@{a:x} {v:02x}\n"));
    }
    std::fs::write(dir.join("mem.hex"), hex).unwrap();
    let cmd_text: String = cmds
        .iter()
        .map(|c| format!("{} {} {} {}\n", c.id, c.rs1, c.rs2, c.rd))
        .collect();
    std::fs::write(dir.join("cmds.txt"), cmd_text).unwrap();
    let out = Proc::new("iverilog")
        .args(["-g2012", "-o", "sim.vvp", "tb.sv", "dut.sv"])
        .current_dir(dir)
        .output()
        .expect("run iverilog");
    assert!(
        out.status.success(),
        "iverilog failed in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn run(dir: &Path) -> RtlRun {
    let out = Proc::new("vvp")
        .args(["-n", "sim.vvp"])
        .current_dir(dir)
        .output()
        .expect("run vvp");
    assert!(out.status.success(), "vvp failed in {}", dir.display());
    parse(&std::fs::read_to_string(dir.join("out.txt")).unwrap())
}

fn parse(text: &str) -> RtlRun {
    let mut r = RtlRun::default();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let n = |i: usize| f[i].parse::<u64>().unwrap();
        let h = |i: usize| u128::from_str_radix(f[i], 16).unwrap();
        match f.first().copied() {
            Some("resp") => r.responses.push((n(1) as u32, n(2) as u32, n(3))),
            Some("cycles") => r.cycles = f[1].parse::<i64>().unwrap().max(0) as u64,
            Some("status") => r.status = f[1].to_string(),
            Some("errors") => r.errors = n(1),
            Some("mem") => {
                r.cpu_mem.insert(n(1) as u32, n(2) as u8);
            }
            Some("bank") => r.banks.entry(f[1].to_string()).or_default().push(h(3)),
            Some("reg") => {
                r.regs.insert(f[1].to_string(), h(2));
            }
            _ => {}
        }
    }
    r
}

/// Check an RTL run against the rule simulator's result.
pub fn check(tag: &str, want: &sim::SimResult, got: &RtlRun) {
    assert_eq!(got.status, "ok", "{tag}: RTL run status");
    assert_eq!(
        got.errors, 0,
        "{tag}: CPU memory accesses outside the window"
    );
    let resp: Vec<(u32, u32, u64)> = want
        .responses
        .iter()
        .map(|r| (r.rd, r.value, r.cycle))
        .collect();
    assert_eq!(got.responses, resp, "{tag}: responses (rd, value, cycle)");
    assert_eq!(got.cycles, want.cycles, "{tag}: cycle count");
    let nz: BTreeMap<u32, u8> = want
        .cpu_mem
        .iter()
        .filter(|(_, v)| **v != 0)
        .map(|(a, v)| (*a, *v))
        .collect();
    assert_eq!(got.cpu_mem, nz, "{tag}: CPU memory");
    for (b, data) in &want.banks {
        assert_eq!(got.banks.get(&ident(b)), Some(data), "{tag}: bank {b}");
    }
    assert_eq!(got.regs, want.regs, "{tag}: registers");
}

/// Simulate, run the RTL and compare; `None` when Icarus Verilog is not installed.
pub fn compare(c: &Circuit, cmds: &[Command], mem: BTreeMap<u32, u8>, tag: &str) -> Option<RtlRun> {
    let want = sim::simulate(c, cmds, mem.clone(), &SimConfig::default())
        .unwrap_or_else(|e| panic!("{tag}: rule simulator: {e}"));
    if !crate::common::have_tool("iverilog") {
        return None;
    }
    let dir = scratch_dir(tag);
    prepare(&dir, c, cmds, &mem);
    let got = run(&dir);
    check(tag, &want, &got);
    let _ = std::fs::remove_dir_all(&dir);
    Some(got)
}

/// `yosys synth -top top` with `check -assert`; fails on latches. Returns the cell count.
pub fn yosys_synth(dir: &Path, file: &str, top: &str) -> u64 {
    let script = format!("read_verilog -sv {file}; synth -top {top}; check -assert; stat");
    let out = Proc::new("yosys")
        .args(["-p", &script])
        .current_dir(dir)
        .output()
        .expect("run yosys");
    let log = String::from_utf8_lossy(&out.stdout).to_string();
    std::fs::write(dir.join("yosys.log"), &log).unwrap();
    assert!(
        out.status.success(),
        "yosys failed ({}): {}\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr),
        log.lines().rev().take(30).collect::<Vec<_>>().join("\n")
    );
    assert!(!log.contains("$dlatch") && !log.contains("Latch inferred"), "latch inferred");
    assert!(!log.contains("multiple conflicting drivers"), "multiple drivers");
    let stat = log.rsplit("=== design hierarchy ===").next().unwrap_or(&log);
    stat.lines()
        .filter_map(|l| l.trim().strip_prefix("Number of cells:"))
        .filter_map(|v| v.trim().parse::<u64>().ok())
        .last()
        .expect("cell count in yosys stat")
}
