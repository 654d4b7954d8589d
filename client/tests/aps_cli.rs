//! `kiln build`, `kiln sim` and `kiln graph` end to end, on examples, test programs and
//! generated modules.

mod cli;

use cli::{aps_data, example, kiln, ok};
use std::path::Path;

#[test]
fn build_twice_gives_identical_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["a", "b"] {
        ok(kiln()
            .arg("build")
            .arg(example())
            .arg("--out-dir")
            .arg(dir.path().join(sub)));
    }
    for f in ["flow_burst_add.cmt2.mlir", "flow_burst_add.rules.json"] {
        let a = std::fs::read(dir.path().join("a").join(f)).unwrap();
        let b = std::fs::read(dir.path().join("b").join(f)).unwrap();
        assert!(!a.is_empty());
        assert_eq!(a, b, "{f}");
    }
}

#[test]
fn sim_acceptance_on_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("mem.json");
    let a: Vec<i32> = (1..=16).collect();
    let b: Vec<i32> = (101..=116).collect();
    std::fs::write(
        &mem,
        serde_json::json!([{"addr": 4096, "i32": a}, {"addr": 8192, "i32": b}]).to_string(),
    )
    .unwrap();
    for engine in ["tor", "rules", "cmt2"] {
        let out = ok(kiln()
            .args(["sim"])
            .arg(example())
            .args([
                "--func",
                "flow_burst_add",
                "--engine",
                engine,
                "--rs1",
                "4096",
                "--rs2",
                "0x2000",
                "--json",
            ])
            .arg("--cpu-mem")
            .arg(&mem));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["responses"], serde_json::json!([{"rd": 1, "value": 42}]));
        let c: Vec<i64> = (0..16).map(|i| (i + 1) + (101 + i)).collect();
        assert_eq!(v["cpu_mem"][0], serde_json::json!({"addr": 4096, "i32": c}));
        assert_eq!(v.get("cycles").is_some(), engine != "tor");
    }
}

#[test]
fn bad_input_is_a_located_error() {
    let (dir, f) = cli::temp_file(
        "bad.mlir",
        "module {\n  tor.design @d {\n    tor.func @f(%arg0: i5, ...) attributes {opcode = 1 : i32} {\n      %0 = tor.addi %arg0 %arg0 : (i5, i5) -> i5\n      tor.return\n    }\n  }\n}\n",
    );
    let err = build_fails(&f, dir.path());
    assert!(
        err.contains("bad.mlir:4:7: error: `tor.addi` has no `starttime`"),
        "{err}"
    );
}

#[test]
fn gen_then_graph() {
    let dir = tempfile::tempdir().unwrap();
    let g = cli::gen_aps(&dir.path().join("g.mlir"), 2, 5);
    let dot = dir.path().join("g.dot");
    ok(kiln()
        .arg("graph")
        .arg(&g)
        .args(["--func", "f1", "-o"])
        .arg(&dot));
    let text = std::fs::read_to_string(&dot).unwrap();
    assert!(text.starts_with("digraph \"f1\""));
    // f1 is the second instruction of custom-1 (opcode 0x2b, funct7 1).
    assert!(text.contains("inst2b01_block_0_slot_0_rule"));
    assert!(!text.contains("_fifo_s"));
    // `--style fifo` draws the dataflow rules and their cross-slot FIFOs.
    ok(kiln()
        .arg("graph")
        .arg(&g)
        .args(["--func", "f1", "--style", "fifo", "-o"])
        .arg(&dot));
    let text = std::fs::read_to_string(&dot).unwrap();
    assert!(text.contains("inst2b01_block_0_slot_0_rule"));
    assert!(text.contains("inst2b01_block_0_fifo_s0_s1"), "{text}");
}

/// `kiln parse` accepts the CMT2 `kiln build` writes, and `kiln sim --engine cmt2` runs the
/// file itself, as the rule engine runs the source.
#[test]
fn built_cmt2_parses_and_simulates() {
    let dir = tempfile::tempdir().unwrap();
    let g = cli::gen_aps(&dir.path().join("g.mlir"), 3, 11);
    for input in [example(), g] {
        ok(kiln()
            .arg("build")
            .arg(&input)
            .arg("--out-dir")
            .arg(dir.path()));
        let stem = input.file_stem().unwrap().to_string_lossy().into_owned();
        let cmt2 = dir.path().join(format!("{stem}.cmt2.mlir"));
        let out = ok(kiln().arg("parse").arg(&cmt2));
        assert!(!out.stdout.is_empty());
        let funcs: Vec<String> = if stem == "g" {
            (0..3).map(|k| format!("f{k}")).collect()
        } else {
            vec!["flow_burst_add".into()]
        };
        for f in funcs {
            let sim = |file: &std::path::Path, engine: &str| {
                let out = ok(kiln()
                    .arg("sim")
                    .arg(file)
                    .args(["--func", &f, "--engine", engine, "--json"])
                    .args(["--rs1", "4096", "--rs2", "8192", "--rd", "4"]));
                String::from_utf8(out.stdout).unwrap()
            };
            assert_eq!(sim(&cmt2, "cmt2"), sim(&input, "rules"), "{stem} {f}");
        }
    }
}

/// The largest generated module (512 functions, every instruction identity) builds.
#[test]
fn a_module_of_512_generated_functions_builds() {
    let dir = tempfile::tempdir().unwrap();
    let g = cli::gen_aps(&dir.path().join("g.mlir"), 512, 0);
    ok(kiln().arg("build").arg(g).arg("--out-dir").arg(dir.path()));
}

/// One instruction identity for two functions: exit 1 naming both.
#[test]
fn same_identity_twice_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let err = build_fails(&aps_data("diag/same_identity.mlir"), dir.path());
    assert!(
        err.contains("functions `@f` and `@g` have the same instruction identity"),
        "{err}"
    );
    assert!(err.contains("note: `@f` is defined here"), "{err}");
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "no outputs"
    );
}

/// Same-slot read-after-write and write-after-write on a bank or a global, and a constant
/// loop step of 0: `kiln build` exits 1 and writes nothing; a hazard is reported at the
/// second access with the first one as a located note (both source lines shown).
#[test]
fn hazards_and_step_zero_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "hazard_raw_bank.mlir",
        "hazard_raw_global.mlir",
        "hazard_waw_bank.mlir",
        "hazard_waw_global.mlir",
        "step_zero.mlir",
    ] {
        let f = aps_data(&format!("diag/{file}"));
        let err = build_fails(&f, dir.path());
        let path = f.display().to_string();
        if file == "step_zero.mlir" {
            assert!(
                err.contains(&format!("{path}:13:61: error: loop step is 0")),
                "{err}"
            );
        } else {
            assert!(
                err.contains(&format!("{path}:13:7: error: hazard in slot")),
                "{err}"
            );
            assert!(err.contains(&format!("{path}:12:7: note:")), "{err}");
            let carets = err.lines().filter(|l| l.contains("| ") && l.contains('^'));
            assert_eq!(carets.count(), 2, "{file}: both spans underlined: {err}");
        }
    }
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "no outputs"
    );
}

/// A bank read three times in one rule: `kiln sim --engine cmt2` runs the built CMT2 file
/// like the source, and a hand edit binding the third read to the second's port exits 1
/// with E0210 at the call (`file:line:col: error:`).
#[test]
fn a_bank_port_called_twice_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let input = aps_data("bank_three_reads.mlir");
    ok(kiln()
        .arg("build")
        .arg(&input)
        .arg("--out-dir")
        .arg(dir.path()));
    let cmt2 = dir.path().join("bank_three_reads.cmt2.mlir");
    let sim = |file: &Path, engine: &str| {
        kiln()
            .arg("sim")
            .arg(file)
            .args(["--func", "flow_burst_add", "--engine", engine, "--json"])
            .args(["--rs1", "4096", "--rs2", "8192"])
            .output()
            .unwrap()
    };
    let good = sim(&cmt2, "cmt2");
    assert!(good.status.success());
    assert_eq!(good.stdout, sim(&input, "rules").stdout);
    let rule = "inst2b00_loop_1_loop_block_0_slot_6_rule";
    let text = std::fs::read_to_string(&cmt2).unwrap();
    let third = format!("@mem_a_0 @read.{rule}.2(");
    let line = text[..text.find(&third).unwrap()].lines().count();
    let bad = dir.path().join("bad.cmt2.mlir");
    std::fs::write(
        &bad,
        text.replacen(&third, &format!("@mem_a_0 @read.{rule}.1("), 1),
    )
    .unwrap();
    let out = sim(&bad, "cmt2");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let path = bad.display().to_string();
    assert!(
        err.contains(&format!("{path}:{line}:35: error: `@mem_a_0` is called more often per cycle than its module has ports")),
        "{err}"
    );
    assert!(err.contains("[E0210]"), "{err}");
}

/// `kiln build INPUT --out-dir DIR` must exit 1; its stderr.
fn build_fails(input: &Path, out_dir: &Path) -> String {
    cli::fails(kiln().arg("build").arg(input).arg("--out-dir").arg(out_dir))
}
