//! Lint levels (`-A/-W/-D CODE`, `kiln.toml`'s `[lints]`) and inputs of the wrong kind,
//! through the daemon and in process: an allowed warning is counted in the summary only,
//! a denied one fails its input and leaves its previous outputs intact, flags win over the
//! file and later flags over earlier ones; a Verilog file or a BLIF netlist with another
//! name is recognised by its content.

mod cli;
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use cli::{Daemon, fails, kiln, ok};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn undriven() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/blif/edge/undriven.blif")
}

fn stderr(cmd: &mut Command) -> (Option<i32>, String) {
    let out = cmd.output().expect("kiln runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), err)
}

/// The lint levels through one way of building (`daemon`: the workspace's daemon, so the
/// levels cross the RPC; else in process).
fn levels_apply(daemon: bool) {
    let d = Daemon::new();
    let src = d.ws().join("src/n.blif");
    fs::copy(undriven(), &src).unwrap();
    let run = |args: &[&str]| {
        let mut c = if daemon { d.kiln() } else { d.kiln_no_daemon() };
        c.arg("build").arg(&src).args(["-o", "out"]).args(args);
        stderr(&mut c)
    };
    let aig = d.ws().join("out/n.aig");

    let (code, err) = run(&[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("warning: net `nowhere` has no driver") && err.contains("[W0300]"));
    assert!(err.contains("; 1 warning\n"), "{err}");
    let built = fs::read(&aig).unwrap();

    // Allowed: not shown, counted.
    let (code, err) = run(&["-A", "W0300"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("W0300"), "{err}");
    assert!(err.contains("; 1 warning allowed"), "{err}");
    assert_eq!(err.lines().count(), 1, "the summary line only: {err}");

    // Denied: an error with a note naming the flag; the output is not rewritten.
    fs::write(&aig, b"previous").unwrap();
    let (code, err) = run(&["--deny", "W0300"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("error: net `nowhere` has no driver"), "{err}");
    assert!(
        err.contains("`-D W0300` makes this warning an error"),
        "{err}"
    );
    assert_eq!(
        fs::read(&aig).unwrap(),
        b"previous",
        "a failed input writes nothing"
    );
    let (code, err) = run(&["-D", "warnings"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("`-D W0300` implied by `-D warnings`"), "{err}");

    // A code's own level wins over `warnings`; a later flag over an earlier one.
    let (code, err) = run(&["-D", "warnings", "-A", "W0300"]);
    assert_eq!(
        (code, err.contains("1 warning allowed")),
        (Some(0), true),
        "{err}"
    );
    let (code, err) = run(&["-A", "W0300", "-D", "W0300"]);
    assert_eq!(code, Some(1), "{err}");
    let (code, err) = run(&["-D", "W0300", "-W", "W0300"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(fs::read(&aig).unwrap(), built);

    // `[lints]` in kiln.toml, under the flags.
    fs::write(d.ws().join("kiln.toml"), "[lints]\nW0300 = \"deny\"\n").unwrap();
    let (code, err) = run(&[]);
    assert_eq!(code, Some(1), "{err}");
    let (code, err) = run(&["-W", "W0300"]);
    assert_eq!(code, Some(0), "{err}");
    fs::write(d.ws().join("kiln.toml"), "[lints]\nwarnings = \"allow\"\n").unwrap();
    let (code, err) = run(&[]);
    assert_eq!(
        (code, err.contains("1 warning allowed")),
        (Some(0), true),
        "{err}"
    );
}

#[test]
fn lint_levels_through_the_daemon() {
    levels_apply(true);
}

#[test]
fn lint_levels_in_process() {
    levels_apply(false);
}

#[test]
fn errors_and_unknown_codes_have_no_level() {
    for (flag, code, says) in [
        ("-A", "E0101", "is an error code"),
        ("-D", "W9999", "unknown lint `W9999`"),
        ("--warn", "bogus", "unknown lint `bogus`"),
    ] {
        let out = kiln()
            .args(["build", "x.blif", flag, code])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{err}");
    }
    let (dir, _) = cli::temp_file("kiln.toml", "[lints]\nW0300 = \"forbid\"\n");
    let out = kiln()
        .current_dir(dir.path())
        .args(["build", "x.blif"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("kiln.toml:2:") && err.contains("unknown lint level `forbid`"));
}

#[test]
fn inputs_are_recognised_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    fs::write(
        p("top.v"),
        "// a counter\nmodule top(input a, output b);\nendmodule\n",
    )
    .unwrap();
    fs::write(p("notes.txt"), "hello world\n").unwrap();
    fs::write(p("net.txt"), fs::read(undriven()).unwrap()).unwrap();
    fs::write(p("f.mlir"), "module {\n  func.func @f() { return }\n}\n").unwrap();
    let out = p("out");
    let build = |f: &str| {
        let mut c = kiln();
        c.arg("build").arg(p(f)).arg("-o").arg(&out);
        c
    };
    let err = fails(&mut build("top.v"));
    assert!(
        err.contains("top.v:2:1: error: no flow accepts this input: it looks like Verilog")
            && err.contains("`module top(input a, output b);`")
            && err.contains("[E0005]"),
        "{err}"
    );
    assert!(!err.contains("expected '{'"), "{err}");
    let err = fails(&mut build("notes.txt"));
    assert!(
        err.contains("neither MLIR nor BLIF (`hello world`)"),
        "{err}"
    );
    let err = fails(&mut build("f.mlir"));
    assert!(err.contains("it holds func.func"), "{err}");
    ok(&mut build("net.txt"));
    assert!(
        out.join("net.aig").is_file(),
        "a BLIF netlist named .txt is lowered"
    );
}

/// The stock Dynamatic library (shared corpus): its warnings allowed, a build prints the
/// summary line only; one of its codes denied, the build fails.
#[test]
fn the_dynamatic_librarys_warnings_allowed_or_denied() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let lib = shared.join("dynamatic_blif/library");
    let dir = tempfile::tempdir().unwrap();
    let build = |args: &[&str]| {
        let mut c = kiln();
        c.arg("build")
            .arg(&lib)
            .arg("-o")
            .arg(dir.path())
            .args(args);
        stderr(&mut c)
    };
    let (code, err) = build(&[]);
    assert_eq!(code, Some(0), "{err}");
    let codes: std::collections::BTreeSet<&str> = err
        .lines()
        .filter(|l| l.contains(": warning: "))
        .filter_map(|l| l.rsplit_once(" [")?.1.strip_suffix(']'))
        .collect();
    assert!(!codes.is_empty(), "the library warns: {err}");
    let mut allow = Vec::new();
    for c in &codes {
        allow.extend(["-A", c]);
    }
    let (code, err) = build(&allow);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(err.lines().count(), 1, "the summary line only: {err}");
    assert!(err.contains("warnings allowed"), "{err}");
    let first = codes.iter().next().unwrap();
    let (code, err) = build(&["-D", first]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains(&format!("`-D {first}` makes this warning an error")));
}

/// A build-system action takes the levels too (the Bazel and Buck2 rules' `lints`
/// attribute becomes `--allow/--warn/--deny CODE`).
#[test]
fn a_worker_action_takes_lint_levels() {
    let dir = tempfile::tempdir().unwrap();
    let action = |level: &str| {
        let mut c = kiln();
        c.current_dir(dir.path())
            .args(["worker", "--no-daemon", "--out-dir", "o", "--kind", "aig"])
            .arg(undriven())
            .args([level, "W0300"]);
        stderr(&mut c)
    };
    let (code, err) = action("--deny");
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("`-D W0300` makes this warning an error"),
        "{err}"
    );
    assert!(!dir.path().join("o/undriven.aig").exists());
    let (code, err) = action("--allow");
    assert_eq!(code, Some(0), "{err}");
    assert!(
        !err.contains("W0300") && !err.contains("no driver"),
        "{err}"
    );
    assert!(dir.path().join("o/undriven.aig").is_file());
}
