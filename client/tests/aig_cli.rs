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
        last.trim_start()
            .starts_with("Built 2 outputs (2 written) in ")
            && last.ends_with(" [in process]; 1 warning"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("Built").count(), 1, "{stderr}");
    // `--json` and `--stats` keep stdout machine-readable: the summary is on stderr only.
    for mode in ["--json", "--stats"] {
        let o = aig(&inputs, out.path()).arg(mode).output().unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!stdout.contains("Built"), "{mode}: {stdout}");
        assert!(stderr.contains("Built 2 outputs"), "{mode}: {stderr}");
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
    assert!(!stdout.contains("Built"), "{stdout}");
    // A failure ends with the closing line, and no summary.
    let bad = data("malformed/row_width.blif");
    let stderr = cli::fails(&mut aig(&[inputs[0].clone(), bad], out.path()));
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: could not build 2 inputs (1 error, "),
        "{stderr}"
    );
    assert!(!stderr.contains("Built"), "{stderr}");
}

/// `kiln aig` in process (the one-shot build: the whole-file lowering for a file that
/// lowers without a message, the per-model steps otherwise) and through the daemon (the
/// per-model queries) agree on every edge-case and malformed BLIF file of the test data:
/// the same exit code, the same messages, line for line, and where it succeeds the same
/// ASCII AIGER. Each file as the only input, the malformed ones also as the top below
/// `--top`.
#[test]
fn in_process_and_daemon_agree_on_every_test_file() {
    let mut files: Vec<PathBuf> = ["edge", "malformed", "library"]
        .iter()
        .flat_map(|d| std::fs::read_dir(data(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "blif"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    let messages = |o: &std::process::Output| -> Vec<String> {
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter(|l| !l.trim_start().starts_with("Built ") && !l.contains("Started kiln"))
            .map(str::to_string)
            .collect()
    };
    let d = cli::Daemon::new();
    for f in &files {
        let (a, b) = (d.root().join("a"), d.root().join("b"));
        let args = |c: &mut Command| {
            c.arg("aig").arg(f).args(["--format", "aag", "-o"]);
        };
        let mut in_process = d.kiln_no_daemon();
        args(&mut in_process);
        let by_oneshot = in_process.arg(&a).output().unwrap();
        let mut daemon = d.kiln();
        args(&mut daemon);
        let by_daemon = daemon.arg(&b).arg("--daemon").output().unwrap();
        let tag = f.display();
        assert_eq!(by_oneshot.status.code(), by_daemon.status.code(), "{tag}");
        assert_eq!(messages(&by_oneshot), messages(&by_daemon), "{tag}");
        let stderr = String::from_utf8_lossy(&by_daemon.stderr);
        if by_oneshot.status.success() {
            assert!(stderr.contains("[daemon]"), "{tag}: {stderr}");
            let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
            let read = |d: &Path| std::fs::read(d.join(format!("{stem}.aag"))).unwrap();
            assert!(read(&a) == read(&b), "{tag}: AIGER differs");
        }
    }
}

/// A directory yields its `.blif` files only: an APS design beside a netlist is not built
/// (`kiln build` of the directory would build both).
#[test]
fn a_directory_yields_its_netlists_only() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::copy(data("edge/latches.blif"), src.join("latches.blif")).unwrap();
    let aps = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/aps/flow_burst_add.mlir");
    std::fs::copy(aps, src.join("burst.mlir")).unwrap();
    let out = dir.path().join("out");
    let o = cli::ok(aig(std::slice::from_ref(&src), &out).arg("--stats"));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(written, ["latches.aig"]);
}

/// The flat BLIF written beside its netlist would overwrite it: the input is refused
/// (E0007) and left as it was; elsewhere the same request succeeds.
#[test]
fn an_output_onto_its_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("latches.blif");
    let text = std::fs::read(data("edge/latches.blif")).unwrap();
    std::fs::write(&file, &text).unwrap();
    let stderr =
        cli::fails(aig(std::slice::from_ref(&file), dir.path()).args(["--format", "blif"]));
    assert!(
        stderr.contains("would overwrite an input of this build") && stderr.contains("[E0007]"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), text);
    let out = dir.path().join("out");
    cli::ok(aig(std::slice::from_ref(&file), &out).args(["--format", "blif"]));
    let flat = std::fs::read_to_string(out.join("latches.blif")).unwrap();
    assert!(flat.starts_with(".model latches\n"), "{flat}");
}

/// `--stats` and `--json` through the daemon print what they print in process: the
/// figures and each input's object (its output path aside, which names each run's
/// directory).
#[test]
fn stats_and_json_through_the_daemon() {
    let d = cli::Daemon::new();
    let inputs = [data("edge"), data("library")];
    for mode in ["--stats", "--json"] {
        let run = |mut kiln: Command, out: &str, how: &[&str]| {
            let o = cli::ok(
                kiln.arg("aig")
                    .args(&inputs)
                    .args([mode, "-o"])
                    .arg(d.root().join(out))
                    .args(how),
            );
            String::from_utf8_lossy(&o.stdout).replace(&format!("/{out}/"), "/OUT/")
        };
        let in_process = run(d.kiln_no_daemon(), "a", &[]);
        let daemon = run(d.kiln(), "b", &["--daemon"]);
        assert_eq!(in_process.lines().count(), 16, "{in_process}");
        assert_eq!(in_process, daemon, "{mode}");
    }
}
