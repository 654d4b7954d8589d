//! The Synth MLIR that `kiln synth` writes is accepted by CIRCT itself: parsed and verified by
//! CIRCT's parser and op verifiers (the `pycde` wheel's bindings; `scripts/circt_check.py`),
//! for the gcd example and, when the shared corpus is present, every Handshake sample that
//! synthesizes. A deliberately broken copy must be rejected, so the check cannot pass vacuously.

#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// CIRCT's Python: `$KILN_CIRCT_PYTHON`, else the venv `scripts/setup.sh` creates.
/// `None` (skipped) when missing outside CI; a failure under CI.
fn circt_python() -> Option<PathBuf> {
    let python = std::env::var_os("KILN_CIRCT_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo_root().join("target/circt-venv/bin/python"));
    let usable = Command::new(&python)
        .args(["-c", "import pycde.circt"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        usable || !common::strict(),
        "CIRCT bindings (pycde) missing at {}: run scripts/setup.sh",
        python.display()
    );
    if !usable {
        eprintln!("skipping: CIRCT bindings (pycde) not installed");
        return None;
    }
    Some(python)
}

/// Runs `kiln synth` (CIRCT spelling) on `input`; the written `.synth.mlir`, or `None` when
/// the circuit is rejected with a diagnostic.
fn synth(input: &Path, lib: &Path, out: &Path) -> Option<PathBuf> {
    let status = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .env_remove("KILN_BLIF_LIB")
        .env("KILN_NO_DAEMON", "1")
        .arg("synth")
        .arg(input)
        .arg("--blif-lib")
        .arg(lib)
        .arg("--out-dir")
        .arg(out)
        .output()
        .unwrap();
    let stem = input.file_stem().unwrap().to_str().unwrap();
    status
        .status
        .success()
        .then(|| out.join(format!("{stem}.synth.mlir")))
}

/// CIRCT's verdict per file: `(path, error message or None)`.
fn circt_check(python: &Path, files: &[PathBuf]) -> Vec<(String, Option<String>)> {
    let out = Command::new(python)
        .arg(common::repo_root().join("scripts/circt_check.py"))
        .args(files)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let verdicts: Vec<_> = stdout
        .lines()
        .filter_map(|line| {
            if let Some(path) = line.strip_prefix("ok ") {
                return Some((path.to_string(), None));
            }
            let rest = line.strip_prefix("error ")?;
            let (path, msg) = rest.split_once(".mlir: ")?;
            Some((format!("{path}.mlir"), Some(msg.to_string())))
        })
        .collect();
    assert_eq!(
        verdicts.len(),
        files.len(),
        "one verdict per file expected:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    verdicts
}

#[test]
fn circt_accepts_the_emitted_synth_mlir() {
    let Some(python) = circt_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let gcd = common::data("handshake/export_gcd.mlir");
    let mut files = vec![synth(&gcd, &common::data("handshake/library"), dir.path()).unwrap()];
    if let Some(shared) = common::shared_dir() {
        let lib = shared.join("dynamatic_blif/library");
        let mut samples: Vec<PathBuf> = std::fs::read_dir(shared.join("handshake_examples"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
            .collect();
        samples.sort();
        let out = dir.path().join("shared");
        files.extend(samples.iter().filter_map(|s| synth(s, &lib, &out)));
        // 28 of the 40 samples synthesize; the rest are rejected with diagnostics (tested
        // in compiler/tests/handshake_synth.rs): combinational loops, several or no
        // `handshake.func`s, and six single-unit designs whose one unit the library lacks
        // (`E0403`).
        assert!(
            files.len() > 28,
            "only {} circuits synthesized",
            files.len()
        );
    }
    // A negative control: an unknown Synth op must be rejected.
    let broken = dir.path().join("broken.synth.mlir");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains("synth.aig.and_inv"));
    std::fs::write(
        &broken,
        text.replacen("synth.aig.and_inv", "synth.aig.and_nope", 1),
    )
    .unwrap();
    files.push(broken.clone());

    let verdicts = circt_check(&python, &files);
    let (control, circuits) = verdicts.split_last().unwrap();
    assert!(
        control.1.is_some(),
        "CIRCT accepted a file with an unknown op"
    );
    let rejected: Vec<_> = circuits.iter().filter(|(_, e)| e.is_some()).collect();
    assert!(rejected.is_empty(), "CIRCT rejected: {rejected:#?}");
    eprintln!(
        "CIRCT parsed and verified {} Synth MLIR files",
        circuits.len()
    );
}
