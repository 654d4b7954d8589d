//! `kiln build`, `kiln sim`, `kiln graph` and `kiln gen aps` end to end.

mod cli;

use cli::{example, kiln, ok};

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
    for engine in ["tor", "rules"] {
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
        assert_eq!(v["responses"], serde_json::json!([{"value": 42}]));
        let c: Vec<i64> = (0..16).map(|i| (i + 1) + (101 + i)).collect();
        assert_eq!(v["cpu_mem"][0], serde_json::json!({"addr": 4096, "i32": c}));
        assert_eq!(v.get("cycles").is_some(), engine == "rules");
    }
}

#[test]
fn bad_input_is_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.mlir");
    std::fs::write(&f, "module {\n  tor.design @d {\n    tor.func @f(%arg0: i5, ...) attributes {opcode = 1 : i32} {\n      %0 = tor.addi %arg0 %arg0 : (i5, i5) -> i5\n      tor.return\n    }\n  }\n}\n").unwrap();
    let out = kiln()
        .arg("build")
        .arg(&f)
        .arg("--out-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.mlir:4:7: error: `tor.addi` has no `starttime`"),
        "{err}"
    );
}

#[test]
fn gen_then_graph() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.mlir");
    ok(kiln()
        .args(["gen", "aps", "--functions", "2", "--seed", "5", "-o"])
        .arg(&g));
    let dot = dir.path().join("g.dot");
    ok(kiln()
        .arg("graph")
        .arg(&g)
        .args(["--func", "f1", "-o"])
        .arg(&dot));
    let text = std::fs::read_to_string(&dot).unwrap();
    assert!(text.starts_with("digraph \"f1\""));
    assert!(text.contains("inst44_block_0_slot_0_rule"));
}
