//! `kiln synth` and `kiln synth-report` on the gcd circuit with its library units from
//! tests/data/handshake.

use std::path::{Path, PathBuf};
mod cli;
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use cli::{fails, kiln, ok};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("tests/data/handshake")
        .join(rel)
}

#[test]
fn synth_writes_the_four_outputs_deterministically() {
    let dir = tempfile::tempdir().unwrap();
    let run = |dialect: &str| {
        ok(kiln()
            .arg("synth")
            .arg(data("export_gcd.mlir"))
            .arg("--blif-lib")
            .arg(data("library"))
            .arg("--out-dir")
            .arg(dir.path())
            .args(["--synth-dialect", dialect]));
        ["synth.mlir", "aig", "blif", "hier.blif"]
            .map(|ext| std::fs::read(dir.path().join(format!("export_gcd.{ext}"))).unwrap())
    };
    let first = run("circt");
    let second = run("circt");
    assert!(first == second, "outputs differ between runs");
    let mlir = String::from_utf8(first[0].clone()).unwrap();
    assert!(mlir.contains("hw.module @\"gcd\"(in %i0 \"a[0]\" : i1"));
    assert!(mlir.contains("seq.compreg"));
    assert!(first[1].starts_with(b"aig "));
    let dynamatic = run("dynamatic");
    assert!(String::from_utf8_lossy(&dynamatic[0]).contains("synth.latch"));
}

#[test]
fn synth_report_lists_every_op() {
    let out = ok(kiln()
        .arg("synth-report")
        .arg(data("export_gcd.mlir"))
        .arg("--blif-lib")
        .arg(data("library")));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("fork0"), "{text}");
    assert!(
        text.contains("library   fork_dataless/3/fork_dataless.blif"),
        "{text}"
    );
    assert!(text.contains("built-in  kiln_cmpi_eq_w32"), "{text}");
    let total = text.lines().last().unwrap();
    assert!(total.ends_with(" 0 subckt fallback"), "{total}");
}

/// No library is an input error of the design (exit 1, code E0401), as in `kiln build`.
#[test]
fn missing_library_is_an_error() {
    let err = fails(
        kiln()
            .current_dir(std::env::temp_dir())
            .arg("synth")
            .arg(data("export_gcd.mlir")),
    );
    assert!(
        err.contains("--blif-lib") && err.contains("[E0401]"),
        "{err}"
    );
}

#[test]
fn input_errors_are_located() {
    let (dir, f) = cli::temp_file(
        "bad.mlir",
        "handshake.func @f(%x: !handshake.channel<i2>) -> (!handshake.channel<i2>) {\n  end %x, %x : <i2>, <i2>\n}\n",
    );
    let err = fails(
        kiln()
            .arg("synth")
            .arg(&f)
            .arg("--blif-lib")
            .arg(data("library"))
            .arg("--out-dir")
            .arg(dir.path()),
    );
    assert!(err.contains("bad.mlir:"), "{err}");
    assert!(err.contains("2 consumers"), "{err}");
}

/// A library unit is lowered under the build's limits whichever way the build runs: through
/// the daemon (its per-model queries) and in process (`flow::handshake::unit`) warn about
/// the same units over `--max-nodes`, ignore them alike and end alike (the same bytes, or
/// the same error when the design itself exceeds the limit), for a limit under the
/// smallest unit, two between units and one under the largest only.
#[test]
fn daemon_and_in_process_builds_lower_library_units_under_the_same_limits() {
    let env = cli::Daemon::new();
    let input = data("export_gcd.mlir");
    let lib = data("library");
    for (nodes, unit) in [
        (60, "addi"),
        (200, "cond_br"),
        (1000, "tehb"),
        (2000, "shli"),
    ] {
        let build = |mut cmd: std::process::Command, out: &str| {
            let out_dir = env.root().join(out);
            let o = cmd
                .arg("build")
                .arg(&input)
                .arg("--blif-lib")
                .arg(&lib)
                .args(["--max-nodes", &nodes.to_string(), "-o"])
                .arg(&out_dir)
                .output()
                .unwrap();
            let diagnostics: Vec<String> = String::from_utf8_lossy(&o.stderr)
                .lines()
                .filter(|l| l.contains("warning:") || l.contains("error:"))
                .map(str::to_string)
                .collect();
            (o.status.code(), diagnostics, cli::tree_bytes(&out_dir))
        };
        let daemon = build(env.kiln(), &format!("d{nodes}"));
        let local = build(env.kiln_no_daemon(), &format!("n{nodes}"));
        let over = format!("model `{unit}`:");
        assert!(
            local
                .1
                .iter()
                .any(|w| w.contains(&over) && w.contains("[W0405]")),
            "{nodes}: {:?}",
            local.1
        );
        assert_eq!(daemon.0, local.0, "{nodes}: exit codes");
        assert_eq!(daemon.1, local.1, "{nodes}");
        assert_eq!(local.2.is_empty(), local.0 != Some(0), "{nodes}");
        assert!(daemon.2 == local.2, "{nodes}: outputs differ");
    }
}

/// The opaque ops of the 20 `export_*` samples of the shared corpus with Dynamatic's BLIF
/// library and Verilog templates: only LSQs (each saying why: Dynamatic builds them with
/// its LSQ generator, not a template) and `spec_v2_resolver`, the cut point of a
/// combinational loop its design has. Channels with extra signals are built with their
/// signal managers, and `spec_subdiag_fast`'s `speculator` is generated. Any other opaque
/// op is a regression.
#[test]
fn the_samples_are_opaque_only_in_lsqs_and_a_loops_cut() {
    let Some(shared) = common::shared_dir_with("yosys") else {
        return;
    };
    let mut samples: Vec<PathBuf> = std::fs::read_dir(shared.join("handshake_examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("export_") && name.ends_with(".mlir")
        })
        .collect();
    samples.sort();
    assert_eq!(samples.len(), 20);
    let out = ok(kiln()
        .arg("synth-report")
        .args(&samples)
        .arg("--blif-lib")
        .arg(shared.join("dynamatic_blif/library"))
        .arg("--rtl-lib")
        .arg(shared.join("dynamatic_rtl/data/verilog")));
    let text = String::from_utf8_lossy(&out.stdout);
    let (mut lsqs, mut cut, mut other) = (0, 0, Vec::new());
    let (mut managed, mut speculators) = (0, 0);
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if line.contains("signal manager for its extra signals") {
            managed += 1;
        }
        if f.get(1..4) == Some(&["speculator", "built-in", "speculator"][..]) {
            speculators += 1;
        }
        if f.get(2) != Some(&"subckt") {
            continue;
        }
        match f[1] {
            "lsq" => {
                assert!(
                    line.contains("Dynamatic builds each with its Python LSQ generator"),
                    "{line}"
                );
                lsqs += 1;
            }
            "spec_v2_resolver" => {
                assert!(line.contains("closes a combinational loop"), "{line}");
                cut += 1;
            }
            kind => other.push(kind.to_string()),
        }
    }
    assert_eq!((lsqs, cut), (18, 1), "{text}");
    assert!(other.is_empty(), "{other:?}\n{text}");
    assert_eq!(speculators, 1, "{text}");
    // `spec_subdiag_fast`'s ops with extras (of its 80: not the generated `speculator` and
    // three `spec_save_commit`s, its 3 memory controllers and 24 other ops without extras).
    assert_eq!(managed, 49, "{text}");
}

/// `kiln synth` is `kiln build` of one Handshake design: an APS design or a BLIF netlist is
/// refused before any build (exit 1, the input named, code E0408, nothing written), where
/// `kiln build` would have built it.
#[test]
fn synth_builds_handshake_designs_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for input in [
        root.join("tests/data/aps/bank_three_reads.mlir"),
        root.join("tests/data/blif/edge/covers.blif"),
    ] {
        let err = fails(
            kiln()
                .arg("synth")
                .arg(&input)
                .arg("--blif-lib")
                .arg(data("library"))
                .arg("-o")
                .arg(dir.path()),
        );
        let want = format!("{}: error: no handshake.func with a body", input.display());
        assert!(err.contains(&want) && err.contains("[E0408]"), "{err}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{err}");
    }
}
