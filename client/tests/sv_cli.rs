//! `kiln build --emit sv` and `kiln sim --engine rtl` end to end.

use std::path::PathBuf;
use std::process::Command;

fn kiln() -> Command {
    // In process: these tests share no workspace daemon (see build_daemon.rs for that path).
    let mut c = Command::new(env!("CARGO_BIN_EXE_kiln"));
    c.env("KILN_NO_DAEMON", "1");
    c
}

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/aps/flow_burst_add.mlir")
}

fn have(tool: &str) -> bool {
    let ok = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .is_ok_and(|o| o.status.success());
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(ok || !ci, "`{tool}` is required under CI");
    ok
}

#[test]
fn emit_sv_writes_identical_stem_sv() {
    let dir = tempfile::tempdir().unwrap();
    let mut texts = Vec::new();
    for sub in ["a", "b"] {
        let out = kiln()
            .arg("build")
            .arg(example())
            .arg("--out-dir")
            .arg(dir.path().join(sub))
            .args(["--emit", "sv"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        texts
            .push(std::fs::read_to_string(dir.path().join(sub).join("flow_burst_add.sv")).unwrap());
    }
    assert_eq!(texts[0], texts[1]);
    assert!(texts[0].contains("module flow_burst_add ("));
    assert!(texts[0].contains("// Static schedule"));
}

#[test]
fn sim_engine_rtl_agrees_with_rules() {
    if !have("iverilog") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("mem.json");
    std::fs::write(
        &mem,
        r#"[{"addr":4096,"i32":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]},
            {"addr":8192,"i32":[10,20,30,40,50,60,70,80,90,100,110,120,130,140,150,160]}]"#,
    )
    .unwrap();
    let run = |engine: &str| {
        let out = kiln()
            .arg("sim")
            .arg(example())
            .args(["--func", "flow_burst_add", "--engine", engine])
            .args(["--rs1", "0x1000", "--rs2", "0x2000", "--json", "--cpu-mem"])
            .arg(&mem)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let rtl = run("rtl");
    assert_eq!(rtl, run("rules"));
    assert!(rtl.contains("\"value\":42"), "{rtl}");
    assert!(rtl.contains("11,22,33"), "{rtl}");
}
