//! `kiln-bench` as a user runs it, on what needs no `kiln` beside it: `gen aps` (its limit,
//! standard output, the generator's bytes) and `parse` (a throughput line, usage errors).

use std::process::{Command, Output};

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiln-bench"))
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn gen_aps_writes_the_generator_s_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.mlir");
    let o = bench(&["gen", "aps", "--functions", "5", "--seed", "2", "-o"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "-o needs a file: {}",
        text(&o.stderr)
    );
    let o = Command::new(env!("CARGO_BIN_EXE_kiln-bench"))
        .args(["gen", "aps", "--functions", "5", "--seed", "2", "-o"])
        .arg(&g)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let want = compiler::aps::workload::generate(5, 2);
    assert_eq!(std::fs::read_to_string(&g).unwrap(), want);
}

#[test]
fn gen_aps_to_standard_output_writes_no_file_named_dash() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_kiln-bench"))
        .current_dir(dir.path())
        .args(["gen", "aps", "--functions", "2", "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("tor.func"));
    assert!(!dir.path().join("-").exists());
}

#[test]
fn gen_aps_holds_at_most_512_functions() {
    let o = bench(&["gen", "aps", "--functions", "513", "-o", "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("4 custom opcodes"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn parse_reports_throughput() {
    let o = bench(&["parse", "--mb", "1", "--runs", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("MB/s") && out.contains("ops"), "{out}");
    assert_eq!(bench(&["parse", "--mb", "x"]).status.code(), Some(2));
}
