//! `kiln aig`: directory walking and mirroring, formats, stats/JSON, exit codes, diagnostics.

mod cli;

use std::path::{Path, PathBuf};
use std::process::Command;

fn kiln() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kiln"))
}

/// `kiln aig INPUTS -o OUT`.
fn aig(inputs: &[PathBuf], out: &Path) -> Command {
    let mut c = kiln();
    c.arg("aig").args(inputs).arg("-o").arg(out);
    c
}

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/blif")
        .join(rel)
}

#[test]
fn lowers_a_directory_mirroring_the_tree() {
    let out = tempfile::tempdir().unwrap();
    let o = aig(&[data("edge"), data("library")], out.path())
        .arg("--stats")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("subckt.blif: pi=3 po=2 latch=0 and="),
        "{stdout}"
    );
    assert!(out.path().join("covers.aig").is_file());
    assert!(out.path().join("oehb_3.aig").is_file());
    // Warnings (undriven nets) are printed but do not fail the run.
    assert!(
        stderr.contains("undriven.blif:5:10: warning: net `nowhere` has no driver"),
        "{stderr}"
    );
    let bytes = std::fs::read(out.path().join("latches.aig")).unwrap();
    assert!(bytes.starts_with(b"aig "));
}

#[test]
fn formats_and_json() {
    let out = tempfile::tempdir().unwrap();
    for (fmt, head) in [("aag", "aag "), ("blif", ".model latches")] {
        let o = aig(&[data("edge/latches.blif")], out.path())
            .args(["--format", fmt, "--json", "--jobs", "1"])
            .output()
            .unwrap();
        assert!(o.status.success());
        let text = std::fs::read_to_string(out.path().join(format!("latches.{fmt}"))).unwrap();
        assert!(text.starts_with(head), "{text}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["stats"]["latches"], 7);
        assert_eq!(v["ok"], true);
    }
    // The written BLIF lowers again to the same counts.
    let again = tempfile::tempdir().unwrap();
    let o = aig(&[out.path().join("latches.blif")], again.path())
        .arg("--stats")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("pi=3 po=7 latch=7 and=6"));
}

#[test]
fn input_errors_exit_1_with_located_diagnostics() {
    let out = tempfile::tempdir().unwrap();
    let stderr = cli::fails(&mut aig(
        &[data("malformed/row_width.blif"), data("edge/covers.blif")],
        out.path(),
    ));
    assert!(
        stderr.contains("row_width.blif:6:1: error: cover row `111` has width 3"),
        "{stderr}"
    );
    // The good file is still written.
    assert!(out.path().join("covers.aig").is_file());
}

#[test]
fn usage_error_exits_2() {
    let o = kiln()
        .args(["aig", "x.blif", "--format", "png"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
