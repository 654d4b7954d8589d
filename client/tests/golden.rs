//! Golden outputs: what kiln writes for one small design per emitter, as files under
//! `tests/golden/`, so that a reviewer sees what a change did to them. A changed output fails
//! with a diff; `UPDATE_EXPECT=1 cargo test -p kiln-client --test golden` rewrites the files
//! (then review them with `git diff tests/golden`).
//!
//! | design | outputs |
//! |---|---|
//! | `tests/data/aps/step_runtime.mlir` (APS) | CMT2, rules JSON, SystemVerilog |
//! | `tests/data/golden/add32.mlir` (Handshake, the test library) | synth MLIR, hierarchical BLIF |
//! | `tests/data/blif/edge/subckt.blif` (BLIF) | AIGER text |
//! | `tests/data/aps/diag/burst_zero.mlir` | diagnostics, human and JSON |
//! | a two-function module through a daemon, one function edited | `kiln why` |
//!
//! Every command runs in the repository root with relative paths, so no output names a
//! machine's directories.

mod cli;

use cli::{Daemon, kiln};
use expect_test::{ExpectFile, expect_file};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `kiln build ARGS -o OUT` in the repository root; OUT is returned.
fn build(args: &[&str], tag: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = kiln()
        .current_dir(root())
        .arg("build")
        .args(args)
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{tag}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = dir.path().to_path_buf();
    (dir, path)
}

fn check(file: &Path, expect: ExpectFile) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    expect.assert_eq(&text);
}

#[test]
fn aps_cmt2_rules_json_and_systemverilog() {
    let (_keep, out) = build(
        &["tests/data/aps/step_runtime.mlir", "--emit", "sv"],
        "step_runtime",
    );
    check(
        &out.join("step_runtime.cmt2.mlir"),
        expect_file!["../../tests/golden/step_runtime.cmt2.mlir"],
    );
    check(
        &out.join("step_runtime.rules.json"),
        expect_file!["../../tests/golden/step_runtime.rules.json"],
    );
    check(
        &out.join("step_runtime.sv"),
        expect_file!["../../tests/golden/step_runtime.sv"],
    );
}

#[test]
fn handshake_synth_mlir_and_hierarchical_blif() {
    let (_keep, out) = build(
        &[
            "tests/data/golden/add32.mlir",
            "--blif-lib",
            "tests/data/handshake/library",
            "--emit",
            "synth-mlir",
            "--emit",
            "hier-blif",
        ],
        "add32",
    );
    check(
        &out.join("add32.synth.mlir"),
        expect_file!["../../tests/golden/add32.synth.mlir"],
    );
    check(
        &out.join("add32.hier.blif"),
        expect_file!["../../tests/golden/add32.hier.blif"],
    );
}

#[test]
fn blif_aiger_text() {
    let (_keep, out) = build(
        &["tests/data/blif/edge/subckt.blif", "--emit", "aag"],
        "subckt",
    );
    check(
        &out.join("subckt.aag"),
        expect_file!["../../tests/golden/subckt.aag"],
    );
}

#[test]
fn diagnostics_human_and_json() {
    let run = |extra: &[&str]| {
        let out = kiln()
            .current_dir(root())
            .args([
                "build",
                "tests/data/aps/diag/burst_zero.mlir",
                "--color",
                "never",
            ])
            .args(extra)
            .arg("-o")
            .arg(tempfile::tempdir().unwrap().path())
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stdout));
        text
    };
    expect_file!["../../tests/golden/burst_zero.stderr"].assert_eq(&run(&[]));
    expect_file!["../../tests/golden/burst_zero.json"]
        .assert_eq(&run(&["--message-format", "json"]));
}

#[test]
fn why_after_a_one_function_edit() {
    let env = Daemon::new();
    let module = "module {\n  tor.design @d {\n    tor.func @f(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 0 : i32, opcode = 43 : i32} {\n      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32\n      %1 = tor.addi %0, %0 {starttime = 1 : i32, endtime = 2 : i32} : (i32, i32) -> i32\n      aps.writerf %arg2, %1 {starttime = 2 : i32, endtime = 3 : i32} : i5, i32\n      tor.return\n    }\n    tor.func @g(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 1 : i32, opcode = 43 : i32} {\n      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32\n      aps.writerf %arg2, %0 {starttime = 1 : i32, endtime = 2 : i32} : i5, i32\n      tor.return\n    }\n  }\n}\n";
    std::fs::write(env.ws().join("m.mlir"), module).unwrap();
    let first = env.run(&["build", "m.mlir", "--out-dir", "out"]);
    assert!(first.status.success(), "{first:?}");
    std::fs::write(
        env.ws().join("m.mlir"),
        module.replace("tor.addi", "tor.subi"),
    )
    .unwrap();
    let again = env.run(&["build", "m.mlir", "--out-dir", "out"]);
    assert!(again.status.success(), "{again:?}");
    let why = env.run(&["why", "--color", "never"]);
    assert!(why.status.success(), "{why:?}");
    let mut text = String::from_utf8_lossy(&why.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&why.stderr));
    expect_file!["../../tests/golden/why_one_function.txt"].assert_eq(&text);
}
