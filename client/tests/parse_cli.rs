//! `kiln parse` as a user runs it: outputs, exit codes, diagnostics.

mod cli;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kiln(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .output()
        .expect("run kiln")
}

fn repo(rel: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    root.join(rel).display().to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `kiln parse FILE`: it must exit 1; its stderr.
fn parse_fails(file: &str) -> String {
    let o = kiln(&["parse", file]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    stderr(&o)
}

#[test]
fn summary_lists_functions_and_dialect_counts() {
    let aps = repo("examples/aps/flow_burst_add.mlir");
    let o = kiln(&["parse", &aps, &repo("examples/handshake/gcd.mlir")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("flow_burst_add.mlir: 1 function(s), 82 op(s)"),
        "{out}"
    );
    assert!(out.contains("  tor.func @flow_burst_add\n"), "{out}");
    assert!(
        out.contains("ops: aps 26, arith 5, builtin 1, memref 28, tor 22"),
        "{out}"
    );
    assert!(out.contains("  handshake.func @gcd\n"), "{out}");
}

#[test]
fn split_file_is_parsed_chunk_by_chunk() {
    let f = repo("tests/data/mlir/handshake/test_Dialect_Handshake_ops.mlir");
    let o = kiln(&["parse", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains(": 7 function(s)"), "{}", stdout(&o));
}

#[test]
fn mlir_output_is_generic_and_reparses_to_the_same_summary() {
    let dir = tempfile::tempdir().unwrap();
    let printed: PathBuf = dir.path().join("printed.mlir");
    let aps = repo("examples/aps/flow_burst_add.mlir");
    let o = kiln(&[
        "parse",
        "--emit",
        "mlir",
        "-o",
        printed.to_str().unwrap(),
        &aps,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&printed).unwrap();
    assert!(
        text.contains("\"tor.for\"(%c0_i32, %c3_i32, %c1_i32)"),
        "{text}"
    );
    let again = kiln(&["parse", printed.to_str().unwrap()]);
    let first = kiln(&["parse", &aps]);
    let body = |o: &Output| stdout(o).split_once(':').unwrap().1.to_string();
    assert_eq!(body(&again), body(&first));
}

#[test]
fn json_output_is_the_tree() {
    let o = kiln(&[
        "parse",
        "--emit",
        "json",
        &repo("examples/aps/flow_burst_add.mlir"),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["modules"][0]["ops"][0]["name"], "builtin.module");
}

#[test]
fn parse_errors_exit_1_with_location() {
    let f = repo("tests/data/mlir/malformed/unknown_op.mlir");
    let o = kiln(&["parse", &f]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "{f}:4:5: error: unknown operation 'foo.bar' in custom form"
        )),
        "{err}"
    );
    assert!(err.contains("    foo.bar %x : i32"), "{err}");
}

#[test]
fn sketch_files_are_rejected_with_location() {
    let f = repo(
        "tests/data/mlir/aps/LOWER_TO_CMT2_TOR_TO_CMT2_IMPLEMENTATION_planned_cmt2_sketch.mlir",
    );
    let err = parse_fails(&f);
    assert!(
        err.contains(":3:62: error: expected operation name"),
        "{err}"
    );
}

#[test]
fn invalid_utf8_exit_1_with_location() {
    let (_dir, f) = cli::temp_file(
        "bad.mlir",
        b"module {\n  %0 = arith.constant {dump = \"\xff\"} 0 : i32\n}\n",
    );
    let err = parse_fails(f.to_str().unwrap());
    assert!(
        err.contains("bad.mlir:2:32: error: invalid UTF-8 byte 0xff"),
        "{err}"
    );
}

#[test]
fn error_in_second_chunk_is_located_in_the_file() {
    let (_dir, f) = cli::temp_file(
        "split.mlir",
        "handshake.func @a() {\n  end\n}\n// -----\nhandshake.func @b() {\n  bogus\n}\n",
    );
    let err = parse_fails(f.to_str().unwrap());
    assert!(
        err.contains("split.mlir:6:3: error: unknown operation 'bogus'"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(kiln(&["parse"]).status.code(), Some(2));
    let aps = repo("examples/aps/flow_burst_add.mlir");
    assert_eq!(
        kiln(&["parse", "--emit", "xml", &aps]).status.code(),
        Some(2)
    );
}

#[test]
fn missing_file_exit_1() {
    let err = parse_fails("/nonexistent/x.mlir");
    assert!(err.contains("/nonexistent/x.mlir: error:"), "{err}");
}

/// The closing line says how many of the inputs failed, in the command's verb.
#[test]
fn closing_line_counts_the_inputs_that_failed() {
    let bad = repo("tests/data/mlir/malformed/unknown_op.mlir");
    let good = repo("examples/handshake/gcd.mlir");
    let o = kiln(&["parse", &good, &bad, &good]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.trim_end()
            .ends_with("error: could not parse 1 of 3 inputs (1 error, 0 warnings)"),
        "{err}"
    );
    let err = parse_fails(&bad);
    assert!(
        err.trim_end().ends_with(&format!(
            "error: could not parse `{bad}` (1 error, 0 warnings)"
        )),
        "{err}"
    );
}
