//! `verilator --lint-only -Wall` accepts kiln's SystemVerilog without a warning: the seed
//! example, every APS test program and generated designs (one function each, and 16
//! functions sharing the RoCC port, DMA engine, CPU-memory port and banks). The only waivers
//! are the ones the emitted file states in its header, each with its reason; every other
//! warning (widths, comparisons of an unsigned value with 0) is fixed in the emitter.

mod common;
mod sv_common;

use compiler::aps::workload;
use std::path::Path;
use sv_common::*;

/// Lint one design's SystemVerilog; the report names the first warnings.
fn lint(tag: &str, circuit: &compiler::rules::Circuit) {
    let sv =
        compiler::rules::sv::emit_sv(circuit, "main").unwrap_or_else(|e| panic!("{tag}: {e:?}"));
    let dir = scratch_dir(&format!("lint_{tag}"));
    let file = dir.join(format!("{tag}.sv"));
    std::fs::write(&file, &sv).unwrap();
    let out = std::process::Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module"])
        .arg(
            compiler::rules::sv::emit_sv_with_info(circuit, "main")
                .unwrap()
                .1
                .top,
        )
        .arg(&file)
        .current_dir(&dir)
        .output()
        .expect("run verilator");
    let log = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("%Warning") || l.starts_with("%Error"))
        .collect();
    assert!(
        out.status.success() && warnings.is_empty(),
        "{tag}: verilator -Wall: {} warning(s), e.g.\n{}",
        warnings.len(),
        warnings
            .iter()
            .take(12)
            .copied()
            .collect::<Vec<_>>()
            .join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn program(path: &Path) -> compiler::rules::Circuit {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    file_circuit(&name, &text)
}

#[test]
fn example_and_test_programs_lint_clean() {
    if !common::have_tool("verilator") {
        return;
    }
    lint(
        "flow_burst_add",
        &program(&common::repo_root().join("examples/aps/flow_burst_add.mlir")),
    );
    let dir = common::repo_root().join("tests/data/aps");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        // loop_overflow.mlir is a diagnostics fixture (its loop never ends), not a design.
        if path.extension().is_some_and(|e| e == "mlir")
            && path.file_stem().is_some_and(|s| s != "loop_overflow")
        {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            lint(&name, &program(&path));
            n += 1;
        }
    }
    assert!(n >= 6, "only {n} APS test programs in {}", dir.display());
}

#[test]
fn generated_designs_lint_clean() {
    if !common::have_tool("verilator") {
        return;
    }
    for seed in 1..=8 {
        let text = workload::generate(1, seed);
        lint(
            &format!("gen1_{seed}"),
            &file_circuit(&format!("gen1_{seed}"), &text),
        );
    }
    for seed in 1..=2 {
        let text = workload::generate(16, seed);
        lint(
            &format!("gen16_{seed}"),
            &file_circuit(&format!("gen16_{seed}"), &text),
        );
    }
}
