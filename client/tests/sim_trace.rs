//! `kiln sim --trace` / `--trace-json`: what the rule simulator did, cycle by cycle. The
//! seed example's trace (accept, the three DMA transfers and their beats, the loop's four
//! iterations, the response) is a golden file; the rule simulator and the CMT2 read back
//! trace alike, event by event; the JSON Lines agree with the result; a run-time error comes
//! after the trace that led to it; the untimed and RTL engines refuse the flag. `--vcd`
//! writes the same waveforms from the rule simulator, the CMT2 read back and the RTL (Icarus),
//! which the `vcd` crate reads back and GTKWave's reader (`vcd2fst`) accepts.

mod cli;
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use cli::{aps_data, example, kiln};
use expect_test::expect_file;
use std::process::Output;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `kiln sim` of the seed example with its CPU memory and `extra` flags.
fn sim_example(extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("mem.json");
    std::fs::write(
        &mem,
        r#"[{"addr":4096,"i32":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]},
            {"addr":8192,"i32":[10,20,30,40,50,60,70,80,90,100,110,120,130,140,150,160]}]"#,
    )
    .unwrap();
    kiln()
        .arg("sim")
        .arg(example())
        .args([
            "--func",
            "flow_burst_add",
            "--rs1",
            "0x1000",
            "--rs2",
            "0x2000",
        ])
        .arg("--cpu-mem")
        .arg(&mem)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn the_seed_examples_trace() {
    let out = sim_example(&["--trace"]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    expect_file!["../../tests/golden/flow_burst_add.trace.txt"].assert_eq(&text);
    let lines: Vec<&str> = text.lines().collect();
    // The command register takes the command in cycle 0; the instruction starts in cycle 1.
    assert!(lines[0].starts_with("[1] inst2b00_block_0_slot_0_rule: accept opcode 43 funct7 0"));
    assert_eq!(lines.iter().filter(|l| l.contains(" -> isax ")).count(), 2);
    assert_eq!(lines.iter().filter(|l| l.contains(" -> cpu ")).count(), 1);
    assert_eq!(lines.iter().filter(|l| l.contains("dma beats")).count(), 24);
    assert!(
        text.ends_with("respond x1 = 42\nresponse: x1 = 42 (cycle 45)\ncycles: 46\n"),
        "{text}"
    );
}

#[test]
fn rules_and_cmt2_read_back_trace_alike() {
    for flag in ["--trace", "--trace-json"] {
        let rules = sim_example(&[flag, "--engine", "rules"]);
        let cmt2 = sim_example(&[flag, "--engine", "cmt2"]);
        assert!(rules.status.success() && cmt2.status.success());
        assert_eq!(stdout(&rules), stdout(&cmt2), "{flag}");
    }
}

#[test]
fn trace_json_lines_agree_with_the_result() {
    let out = sim_example(&["--trace-json", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let values: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    let (result, events) = values.split_last().unwrap();
    assert!(
        events
            .iter()
            .all(|e| e["cycle"].is_u64() && e["event"].is_string())
    );
    let fired = events.iter().filter(|e| e["event"] == "fire").count();
    assert_eq!(fired, 13, "slot firings of the seed example");
    let responds: Vec<&serde_json::Value> =
        events.iter().filter(|e| e["event"] == "respond").collect();
    assert_eq!(responds.len(), 1);
    assert_eq!(responds[0]["value"], 42);
    assert_eq!(
        responds[0]["cycle"].as_u64().unwrap() + 1,
        result["cycles"].as_u64().unwrap()
    );
    let cycles: Vec<u64> = events
        .iter()
        .map(|e| e["cycle"].as_u64().unwrap())
        .collect();
    assert!(
        cycles.windows(2).all(|w| w[0] <= w[1]),
        "events in cycle order"
    );
}

#[test]
fn a_run_time_error_follows_its_trace() {
    let out = kiln()
        .arg("sim")
        .arg(aps_data("step_runtime.mlir"))
        .args(["--func", "s", "--rs1", "0", "--trace"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.starts_with("[1] inst7b04_block_0_slot_0_rule: accept opcode 123 funct7 4"),
        "{text}"
    );
    assert!(
        text.trim_end()
            .ends_with("fault: loop step is 0 at run time: the loop would never end"),
        "{text}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("[E0208]"), "{stderr}");
}

#[test]
fn untimed_and_rtl_engines_refuse_the_trace() {
    for engine in ["tor", "rtl"] {
        let out = kiln()
            .arg("sim")
            .arg(example())
            .args(["--func", "flow_burst_add", "--engine", engine, "--trace"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{engine}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("engines `rules` and `cmt2`"));
    }
}

#[test]
fn vcd_from_every_timed_engine_is_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let mut engines = vec!["rules", "cmt2"];
    if common::have_tool("iverilog") {
        engines.push("rtl");
    }
    let mut bodies = Vec::new();
    for engine in &engines {
        let vcd = dir.path().join(format!("{engine}.vcd"));
        let out = sim_example(&["--engine", engine, "--vcd", vcd.to_str().unwrap()]);
        assert!(out.status.success(), "{engine}: {out:?}");
        let bytes = std::fs::read(&vcd).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.contains(&format!("kiln sim --engine {engine} of @flow_burst_add")));
        // Everything after the comment (engine name) is the same in every engine.
        bodies.push(text[text.find("$timescale").unwrap()..].to_string());
        let signals = compiler::rules::waves::read_vcd(&bytes).unwrap();
        let get = |name: &str| {
            &signals
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("{engine}: no signal {name}"))
                .1
        };
        // 46 cycles, and the idle cycle that shows the run is over.
        assert_eq!(
            get("ports.rocc_cmd_fire").len(),
            47,
            "{engine}: a value per cycle"
        );
        assert_eq!(get("ports.rocc_resp_data")[45], 42);
        // No CPU loads or stores: the HellaCache request port never fires.
        assert_eq!(get("ports.hella_cmd_fire").iter().sum::<u128>(), 0);
        assert_eq!(get("ports.rocc_cmd_fire")[0], 1);
        assert_eq!(
            get("ports.dma_req_fire").iter().sum::<u128>(),
            3,
            "three DMA requests"
        );
        assert_eq!(*get("inst2b00.inst2b00_loop_1_loop_iv").last().unwrap(), 4);
        if common::have_tool("vcd2fst") {
            let fst = dir.path().join(format!("{engine}.fst"));
            let ok = std::process::Command::new("vcd2fst")
                .arg(&vcd)
                .arg(&fst)
                .output()
                .unwrap();
            assert!(
                ok.status.success() && fst.exists(),
                "{engine}: GTKWave's reader: {ok:?}"
            );
        }
    }
    assert!(
        bodies.windows(2).all(|w| w[0] == w[1]),
        "engines wrote different waves"
    );
    let tor = sim_example(&["--engine", "tor", "--vcd", "x.vcd"]);
    assert_eq!(tor.status.code(), Some(2));
}

/// `kiln graph --schedule`: the seed example's planned slots against one simulated command
/// (DOT text with the run's breakdown), rendered by Graphviz to a PNG of real size.
#[test]
fn schedule_picture_of_the_seed_example() {
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("mem.json");
    std::fs::write(
        &mem,
        r#"[{"addr":4096,"i32":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}]"#,
    )
    .unwrap();
    let graph = |out: &std::path::Path| {
        kiln()
            .arg("graph")
            .arg(example())
            .args(["--func", "flow_burst_add", "--schedule", "--rs1", "0x1000"])
            .args(["--rs2", "0x2000", "--cpu-mem"])
            .arg(&mem)
            .arg("-o")
            .arg(out)
            .output()
            .unwrap()
    };
    let dot = dir.path().join("s.dot");
    let out = graph(&dot);
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&dot).unwrap();
    assert!(
        text.contains("46 cycles = 13 with a slot firing + 32 waiting for DMA + 1 other; the schedule plans 13 slot cycles"),
        "{text}"
    );
    assert_eq!(
        text.matches(">plan<").count(),
        7,
        "one plan row per slot rule"
    );
    assert_eq!(text.matches(">run<").count(), 7);
    assert_eq!(
        text.matches("#bdbdbd").count(),
        32 + 1,
        "32 DMA cycles and the legend"
    );
    if !common::have_tool("dot") {
        return;
    }
    let png = dir.path().join("s.png");
    assert!(graph(&png).status.success());
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    let dim = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    let (w, h) = (dim(16), dim(20));
    assert!(
        w > 800 && h > 300 && bytes.len() > 10_000,
        "{w}x{h}, {} bytes",
        bytes.len()
    );
    let refused = kiln()
        .arg("graph")
        .arg(example())
        .args(["--func", "flow_burst_add", "--rs1", "1", "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "--rs1 needs --schedule");
}
