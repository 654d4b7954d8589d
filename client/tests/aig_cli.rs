//! `kiln aig`: directory walking and mirroring, formats, stats/JSON, exit codes, diagnostics.

mod cli;
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

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

/// A first model that another model instantiates is still the top (BLIF's rule), with a
/// warning that names the root and `--top`; `--top` lowers the root, with no warning and
/// the bytes of the file with the root written first; an unknown `--top` exits 1 (E0308);
/// `kiln build` (the model-by-model flow) warns the same way.
#[test]
fn top_picks_the_model_and_a_first_model_instantiated_warns() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cells.blif");
    std::fs::write(&file, common::LEAF_FIRST).unwrap();
    let out = dir.path().join("out");
    let o = cli::ok(aig(std::slice::from_ref(&file), &out).arg("--stats"));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(
            "cells.blif:1:1: warning: the first model `leaf` is lowered as the top, but another \
             model instantiates it; the root of its hierarchy is `top` [W0306]"
        ) && stderr.contains("lower it with `--top top`"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("pi=2 po=1 latch=0 and=1"));

    let o = cli::ok(aig(std::slice::from_ref(&file), &out).args(["--top", "top"]));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("warning"), "{stderr}");
    let root_first = dir.path().join("root_first.blif");
    let (leaf, top) = common::LEAF_FIRST.split_at(common::LEAF_FIRST.find(".model top").unwrap());
    std::fs::write(&root_first, format!("{top}{leaf}")).unwrap();
    cli::ok(&mut aig(std::slice::from_ref(&root_first), &out));
    assert_eq!(
        std::fs::read(out.join("cells.aig")).unwrap(),
        std::fs::read(out.join("root_first.aig")).unwrap()
    );

    let stderr = cli::fails(aig(std::slice::from_ref(&file), &out).args(["--top", "nope"]));
    assert!(
        stderr.contains(
            "cells.blif: error: no model `nope` to lower as the top (`--top`); the file defines \
             `leaf`, `top` [E0308]"
        ),
        "{stderr}"
    );
}

/// `kiln build --top` on BLIF, through the daemon and in process: the root's AIG, the
/// bytes `kiln aig --top` writes, no warning; without `--top`, the W0306 warning; an
/// unknown `--top` exits 1 (E0308); a second model asked for after the first reuses the
/// daemon's per-model results.
#[test]
fn build_top_through_the_daemon_and_in_process() {
    let d = cli::Daemon::new();
    let src = d.ws().join("src");
    std::fs::write(src.join("cells.blif"), common::LEAF_FIRST).unwrap();
    let reference = tempfile::tempdir().unwrap();
    cli::ok(
        aig(&[src.join("cells.blif")], reference.path())
            .args(["--top", "top"])
            .args(["--format", "aig"]),
    );
    let want = std::fs::read(reference.path().join("cells.aig")).unwrap();
    for (via, mut kiln) in [("daemon", d.kiln()), ("in process", d.kiln_no_daemon())] {
        let out = d.root().join(format!("out-{}", via.len()));
        let o = cli::ok(kiln.args(["build", "src/cells.blif", "-o"]).arg(&out));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(stderr.contains("[W0306]"), "{via}: {stderr}");
        assert_eq!(stderr.contains("[daemon]"), via == "daemon", "{stderr}");
        let first = std::fs::read(out.join("cells.aig")).unwrap();
        assert_ne!(first, want, "{via}");
        let mut kiln = match via {
            "daemon" => d.kiln(),
            _ => d.kiln_no_daemon(),
        };
        let o = cli::ok(
            kiln.args(["build", "src/cells.blif", "--top", "top", "-o"])
                .arg(&out),
        );
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!stderr.contains("warning"), "{via}: {stderr}");
        assert_eq!(std::fs::read(out.join("cells.aig")).unwrap(), want, "{via}");
        let mut kiln = match via {
            "daemon" => d.kiln(),
            _ => d.kiln_no_daemon(),
        };
        let stderr = cli::fails(
            kiln.args(["build", "src/cells.blif", "--top", "nope", "-o"])
                .arg(&out),
        );
        assert!(
            stderr.contains("no model `nope` to lower as the top (`--top`)")
                && stderr.contains("[E0308]"),
            "{via}: {stderr}"
        );
    }
}

/// `.default_max_input_load` is ignored like every timing directive; an unconnected
/// instance input warns with the pin and the instance; `.latch a q re` says the control is
/// missing.
#[test]
fn blif_edges_warn_or_fail_precisely() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let timing = write(
        "timing.blif",
        ".model t\n.inputs a\n.outputs y\n.default_max_input_load 3\n.max_input_load 2 a\n\
         .names a y\n1 1\n.end\n",
    );
    let pin = write(
        "pin.blif",
        ".model top\n.inputs a\n.outputs y\n.subckt leaf u=a w=y\n.cname u1\n.end\n\
         .model leaf\n.inputs u v\n.outputs w\n.names u v w\n11 1\n.end\n",
    );
    let out = dir.path().join("out");
    let o = cli::ok(&mut aig(&[timing, pin], &out));
    let stderr = String::from_utf8_lossy(&o.stderr);
    for want in [
        "timing.blif:4:1: warning: `.default_max_input_load` ignored (no effect on the logic) [W0305]",
        "timing.blif:5:1: warning: `.max_input_load` ignored (no effect on the logic) [W0305]",
        "pin.blif:4:1: warning: input pin `v` of instance `u1` (`.subckt leaf`) is not \
         connected; it reads as constant 0 [W0307]",
    ] {
        assert!(stderr.contains(want), "{want}\n{stderr}");
    }
    let latch = write(
        "latch.blif",
        ".model l\n.inputs a\n.outputs q\n.latch a q re\n.end\n",
    );
    let stderr = cli::fails(&mut aig(&[latch], &out));
    assert!(
        stderr.contains(
            "latch.blif:4:12: error: `.latch` of type `re` needs a control net after the type \
             (a clock, or `NIL`) [E0300]"
        ),
        "{stderr}"
    );
}

#[test]
fn a_run_ends_with_one_summary_line_on_stderr() {
    let out = tempfile::tempdir().unwrap();
    let inputs = [data("edge/latches.blif"), data("edge/undriven.blif")];
    let o = aig(&inputs, out.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.trim_start().starts_with("Lowered 2 files in ") && last.ends_with("; 1 warning"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("Lowered").count(), 1, "{stderr}");
    // `--json` and `--stats` keep stdout machine-readable: the summary is on stderr only.
    for mode in ["--json", "--stats"] {
        let o = aig(&inputs, out.path()).arg(mode).output().unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!stdout.contains("Lowered"), "{mode}: {stdout}");
        assert!(stderr.contains("Lowered 2 files"), "{mode}: {stderr}");
        if mode == "--json" {
            for line in stdout.lines() {
                serde_json::from_str::<serde_json::Value>(line).expect(line);
            }
        }
    }
    // `-q`: errors only, no summary.
    let o = aig(&inputs, out.path()).arg("-q").output().unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    // `--message-format json`: diagnostics on stdout, the summary on stderr as for `build`.
    let o = aig(&inputs, out.path())
        .args(["--message-format", "json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("\"W"), "{stdout}");
    assert!(!stdout.contains("Lowered"), "{stdout}");
    // A failure ends with the closing line, and no summary.
    let bad = data("malformed/row_width.blif");
    let stderr = cli::fails(&mut aig(&[inputs[0].clone(), bad], out.path()));
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: could not lower 1 of 2 inputs (1 error, "),
        "{stderr}"
    );
    assert!(!stderr.contains("Lowered"), "{stderr}");
}

/// `kiln aig` (the whole-file lowering, `aig::lower_file_owned`: kept for its speed and
/// memory on deep hierarchies, `docs/bench.md`) and `kiln build` (`flow::blif`'s per-model
/// steps) agree on every edge-case and malformed BLIF file of the test data, in process:
/// the same exit code, the same diagnostics by severity and code (an error inside a child
/// model is located at its own line by the one and at the top's instantiation by the
/// other) and, where it succeeds, the same ASCII AIGER.
#[test]
fn aig_and_build_agree_on_every_test_file() {
    let mut files: Vec<PathBuf> = ["edge", "malformed"]
        .iter()
        .flat_map(|d| std::fs::read_dir(data(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "blif"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    let diagnostics = |o: &std::process::Output| -> Vec<String> {
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter(|l| !l.starts_with("error: could not"))
            .filter_map(|l| {
                let severity = ["error:", "warning:"].into_iter().find(|s| l.contains(s))?;
                let code = l.rsplit_once('[').map_or("", |(_, c)| c);
                Some(format!("{severity} [{code}"))
            })
            .collect()
    };
    for f in &files {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let by_aig = aig(std::slice::from_ref(f), a.path())
            .args(["--format", "aag"])
            .output()
            .unwrap();
        let by_build = kiln()
            .env("KILN_NO_DAEMON", "1")
            .arg("build")
            .arg(f)
            .args(["--emit", "aag", "-o"])
            .arg(b.path())
            .output()
            .unwrap();
        let tag = f.display();
        assert_eq!(by_aig.status.code(), by_build.status.code(), "{tag}");
        assert_eq!(diagnostics(&by_aig), diagnostics(&by_build), "{tag}");
        if by_aig.status.success() {
            let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
            let read = |d: &Path| std::fs::read(d.join(format!("{stem}.aag"))).unwrap();
            assert!(read(a.path()) == read(b.path()), "{tag}: AIGER differs");
        }
    }
}
