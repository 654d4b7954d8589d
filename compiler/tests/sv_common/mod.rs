//! Shared harness of the SystemVerilog backend tests: build a file's circuit, run the rule
//! simulator, emit the RTL and its testbench, run Icarus Verilog, and compare command
//! acceptance and responses (with their cycles), CPU memory, banks, registers and the cycle
//! count. [`compare_batch`] compiles many designs with one `iverilog` call and runs them in
//! one `vvp` process (one testbench module per design, files prefixed per design).
#![allow(dead_code)]

use compiler::rules::sim::{self, Command, SimConfig};
use compiler::rules::sv::{self, TbConfig};
use compiler::rules::{Circuit, sv::ident, waves};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as Proc;

/// All functions of a module merged into one circuit, as `kiln build` does.
pub fn file_circuit(name: &str, text: &str) -> Circuit {
    let m = compiler::mlir::parse(text).unwrap_or_else(|d| panic!("{}", d.render(name, text)));
    let cs = compiler::aps::build_module(&m).unwrap_or_else(|d| panic!("{}", d.render(name, text)));
    compiler::aps::build_file_circuit(name, cs)
}

pub use compiler::rules::sv::TbOutput as RtlRun;

pub fn scratch_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kiln-sv-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Write the design, testbench and inputs into `dir`; compile with `iverilog -g2012`.
/// The testbench gives up after `max_cycles` (a failed run, never a hang).
pub fn prepare(
    dir: &Path,
    c: &Circuit,
    cmds: &[Command],
    mem: &BTreeMap<u32, u8>,
    max_cycles: u64,
) {
    let cfg = TbConfig {
        max_cycles,
        waves: true,
        ..TbConfig::default()
    };
    prepare_with(dir, c, cmds, mem, &cfg);
}

/// [`prepare`] with a testbench configuration of the caller's.
pub fn prepare_with(
    dir: &Path,
    c: &Circuit,
    cmds: &[Command],
    mem: &BTreeMap<u32, u8>,
    cfg: &TbConfig,
) {
    let (text, info) = sv::emit_sv_with_info(c, sv::DEFAULT_TOP).expect("emit sv");
    let cfg = cfg.clone();
    let tb = sv::testbench(c, &info, &cfg);
    assert_eq!(
        tb,
        sv::testbench(c, &info, &cfg),
        "testbench is deterministic"
    );
    std::fs::write(dir.join("dut.sv"), &text).unwrap();
    std::fs::write(dir.join("tb.sv"), tb).unwrap();
    std::fs::write(dir.join("mem.hex"), sv::mem_hex(mem)).unwrap();
    std::fs::write(dir.join("cmds.txt"), sv::cmds_text(cmds, &[], &info)).unwrap();
    iverilog(dir, &["-o", "sim.vvp", "tb.sv", "dut.sv"]);
}

/// Compile with Icarus (SystemVerilog 2012) in `dir`; it must succeed.
fn iverilog(dir: &Path, args: &[&str]) {
    let out = Proc::new("iverilog")
        .arg("-g2012")
        .args(args)
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
    sv::parse_tb_output(&std::fs::read_to_string(dir.join("out.txt")).unwrap()).unwrap()
}

/// Check an RTL run against the rule simulator's result.
pub fn check(tag: &str, want: &sim::SimResult, got: &RtlRun) {
    assert_eq!(got.status, "ok", "{tag}: RTL run status");
    assert_eq!(
        got.errors, 0,
        "{tag}: CPU memory accesses outside the window"
    );
    assert_eq!(
        got.accepted, want.accepted,
        "{tag}: command acceptance cycles"
    );
    let resp: Vec<(u32, u32, u64)> = want
        .responses
        .iter()
        .map(|r| (r.rd, r.value, r.cycle))
        .collect();
    assert_eq!(got.responses, resp, "{tag}: responses (rd, value, cycle)");
    assert_eq!(got.cycles, want.cycles, "{tag}: cycle count");
    // The testbench lists bytes that are non-zero or were written; the simulator lists
    // every byte initialised or written.
    for (a, v) in &got.cpu_mem {
        assert_eq!(
            want.cpu_mem.get(a),
            Some(v),
            "{tag}: CPU memory byte {a:#x}"
        );
    }
    for (a, v) in want.cpu_mem.iter().filter(|(_, v)| **v != 0) {
        assert_eq!(got.cpu_mem.get(a), Some(v), "{tag}: CPU memory byte {a:#x}");
    }
    assert!(
        got.pending.is_empty() && got.cmds_left == 0,
        "{tag}: RTL deadlock"
    );
    for (b, data) in &want.banks {
        assert_eq!(got.banks.get(&ident(b)), Some(data), "{tag}: bank {b}");
    }
    assert_eq!(got.regs, want.regs, "{tag}: registers");
}

/// The RTL's waveform lines of a testbench output agree with the rule simulator's waves
/// signal by signal, cycle by cycle (the first difference is the failure).
pub fn check_waves(tag: &str, want: &waves::Waves, tb_output: &str) {
    let got = waves::parse_tb_waves(tb_output, want.signals.clone())
        .unwrap_or_else(|e| panic!("{tag}: {e}"));
    assert!(!got.rows.is_empty(), "{tag}: the RTL printed no waveform");
    if let Some((signal, cycle, a, b)) = waves::first_difference(want, &got) {
        panic!("{tag}: waveforms differ at {signal}, cycle {cycle}: rules {a:x?}, rtl {b:x?}");
    }
}

/// Simulate, run the RTL and compare; `None` when Icarus Verilog is not installed.
pub fn compare(c: &Circuit, cmds: &[Command], mem: BTreeMap<u32, u8>, tag: &str) -> Option<RtlRun> {
    let mut trace = sim::Trace::default();
    let want = sim::simulate_recorded(c, cmds, mem.clone(), &SimConfig::default(), &mut trace)
        .unwrap_or_else(|e| panic!("{tag}: rule simulator: {e}"));
    if !crate::common::have_tool("iverilog") {
        return None;
    }
    let dir = scratch_dir(tag);
    prepare(&dir, c, cmds, &mem, 2 * want.cycles + 1000);
    let got = run(&dir);
    check(tag, &want, &got);
    check_waves(
        tag,
        &trace.waves,
        &std::fs::read_to_string(dir.join("out.txt")).unwrap(),
    );
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
    assert!(
        !log.contains("$dlatch") && !log.contains("Latch inferred"),
        "latch inferred"
    );
    assert!(
        !log.contains("multiple conflicting drivers"),
        "multiple drivers"
    );
    sv::yosys_cells(&log).expect("cell count in yosys stat")
}

/// One differential case: a circuit, its commands (all queued at cycle 0) and memory.
pub struct Case {
    pub tag: String,
    pub circuit: Circuit,
    pub cmds: Vec<Command>,
    pub mem: BTreeMap<u32, u8>,
}

/// Simulate every case with the rule simulator, compile all their RTL designs and
/// testbenches with ONE `iverilog` call, run them in ONE `vvp` process, and check each RTL
/// run against its simulation. Returns the simulator's results in case order. Each design
/// gets a unique top (`dut<k>`) and testbench (`kiln_tb_<k>`); primitive modules are
/// shared (their text is a function of their name, which is asserted).
pub fn compare_batch(batch: &str, cases: &[Case]) -> Vec<sim::SimResult> {
    let mut wants = Vec::new();
    let mut waves = Vec::new();
    let mut tops = String::new();
    let mut prims: BTreeMap<String, String> = BTreeMap::new();
    let mut tbs = String::new();
    let mut modules = Vec::new();
    let dir = scratch_dir(batch);
    for (k, case) in cases.iter().enumerate() {
        let mut trace = sim::Trace::default();
        let want = sim::simulate_recorded(
            &case.circuit,
            &case.cmds,
            case.mem.clone(),
            &SimConfig::default(),
            &mut trace,
        )
        .unwrap_or_else(|e| panic!("{}: rule simulator: {e}", case.tag));
        waves.push(trace.waves);
        let mut c = case.circuit.clone();
        c.name = format!("dut{k}");
        let parts = sv::emit_sv_parts(&c, &c.name).expect("emit sv");
        for (name, text) in parts.primitives {
            let prev = prims.entry(name.clone()).or_insert_with(|| text.clone());
            assert_eq!(*prev, text, "primitive {name} has one text per name");
        }
        tops.push_str(&parts.top);
        let cfg = TbConfig {
            max_cycles: 2 * want.cycles + 1000,
            module: format!("kiln_tb_{k}"),
            file_prefix: format!("c{k}_"),
            standalone: false,
            waves: true,
            ..TbConfig::default()
        };
        tbs.push_str(&sv::testbench(&c, &parts.info, &cfg));
        modules.push(cfg.module.clone());
        std::fs::write(dir.join(format!("c{k}_mem.hex")), sv::mem_hex(&case.mem)).unwrap();
        std::fs::write(
            dir.join(format!("c{k}_cmds.txt")),
            sv::cmds_text(&case.cmds, &[], &parts.info),
        )
        .unwrap();
        wants.push(want);
    }
    let mut text = tops;
    for p in prims.values() {
        text.push_str(p);
    }
    text.push_str(&tbs);
    text.push_str(&sv::batch_top(&modules));
    std::fs::write(dir.join("batch.sv"), text).unwrap();
    iverilog(&dir, &["-s", "kiln_batch", "-o", "sim.vvp", "batch.sv"]);
    let out = Proc::new("vvp")
        .args(["-n", "sim.vvp"])
        .current_dir(&dir)
        .output()
        .expect("run vvp");
    assert!(out.status.success(), "vvp failed in {}", dir.display());
    for (k, (case, want)) in cases.iter().zip(&wants).enumerate() {
        let text = std::fs::read_to_string(dir.join(format!("c{k}_out.txt")))
            .unwrap_or_else(|e| panic!("{}: no testbench output: {e}", case.tag));
        let got = sv::parse_tb_output(&text).unwrap();
        check(&case.tag, want, &got);
        check_waves(&case.tag, &waves[k], &text);
    }
    let _ = std::fs::remove_dir_all(&dir);
    wants
}

/// The most designs one Icarus batch holds. One `vvp` process's time grows faster than
/// its designs: 160 fifo-style designs in one batch had not finished after 20 minutes,
/// while 320 in 32 batches of 10 took 152 s on 2 cores.
const BATCH_CASES: usize = 10;

/// Run `cases` in batches of at most [`BATCH_CASES`], as many at once as the machine has
/// cores; results in case order.
pub fn compare_batches(name: &str, cases: Vec<Case>) -> Vec<sim::SimResult> {
    let chunks: Vec<(usize, &[Case])> = cases.chunks(BATCH_CASES).enumerate().collect();
    compiler::par::map(compiler::par::cores(), &chunks, |(i, c)| {
        compare_batch(&format!("{name}-b{i}"), c)
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Run a circuit whose rule simulation fails (deadlock, hazard, fault) in the RTL: the
/// failure the testbench reports, in the simulator's words; `None` when Icarus Verilog is
/// not installed.
pub fn run_failing(
    c: &Circuit,
    cmds: &[Command],
    mem: BTreeMap<u32, u8>,
    tag: &str,
    max_cycles: u64,
) -> Option<sim::SimError> {
    if !crate::common::have_tool("iverilog") {
        return None;
    }
    let dir = scratch_dir(tag);
    prepare(&dir, c, cmds, &mem, max_cycles);
    let got = run(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    Some(
        got.failure(c)
            .unwrap_or_else(|| panic!("{tag}: the RTL run did not fail: {got:?}")),
    )
}
