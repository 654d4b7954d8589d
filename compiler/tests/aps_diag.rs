//! Malformed and unsupported inputs give located diagnostics, never a panic.
//!
//! Each file in `tests/data/aps/diag/` starts with `// expect: LINE:COL: MESSAGE-PART`.
//! A second test deletes every line of `flow_burst_add` in turn and checks the flow still
//! answers with a result or a diagnostic (no panic).

mod common;

use compiler::aps;
use compiler::diag::Diagnostic;

fn flow(text: &str) -> Result<Vec<compiler::rules::Circuit>, Diagnostic> {
    let m = compiler::mlir::parse(text)?;
    aps::build_module(&m)
}

#[test]
fn diagnostics_corpus() {
    let dir = common::data("aps/diag");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 10);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let expect = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// expect: "))
            .unwrap();
        let (pos, msg) = expect.split_at(expect.find(": ").unwrap());
        let d = flow(&text).expect_err(&path.display().to_string());
        let rendered = d.render("f", &text);
        let head = format!("f:{pos}: error: ");
        assert!(
            rendered.starts_with(&head),
            "{}: {rendered}",
            path.display()
        );
        assert!(
            rendered.lines().next().unwrap().contains(&msg[2..]),
            "{}: {rendered}",
            path.display()
        );
    }
}

#[test]
fn deleting_any_line_never_panics() {
    let text = std::fs::read_to_string(common::data("aps/flow_burst_add.mlir")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut errors = 0;
    for skip in 0..lines.len() {
        let cut = without_line(&lines, skip);
        match flow(&cut) {
            Err(_) => errors += 1,
            Ok(circuits) => run_engines(&cut, &circuits),
        }
    }
    // Most single-line deletions break an SSA use or the structure.
    assert!(
        errors > lines.len() / 2,
        "{errors} of {} deletions rejected",
        lines.len()
    );
}

/// `lines` without line `skip`, each ended by a newline.
fn without_line(lines: &[&str], skip: usize) -> String {
    lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != skip)
        .map(|(_, l)| format!("{l}\n"))
        .collect()
}

fn cmd2(i: &compiler::rules::Instruction) -> compiler::rules::sim::Command {
    compiler::rules::sim::Command {
        opcode: i.opcode,
        funct7: i.funct7,
        rs1: 0x1000,
        rs2: 0x2000,
        rd: 1,
    }
}

/// Both engines on a mutated program: any result or error is fine, a panic is not.
fn run_engines(text: &str, circuits: &[compiler::rules::Circuit]) {
    use compiler::rules::sim::{self, SimConfig};
    let m = compiler::mlir::parse(text).unwrap();
    let ctx = aps::design_context(&m).unwrap();
    for (f, c) in aps::functions(&m).into_iter().zip(circuits) {
        let _ = aps::interp::run(&ctx, f, 0x1000, 0x2000, Default::default(), 100_000);
        let cfg = SimConfig {
            max_cycles: 10_000,
            ..SimConfig::default()
        };
        let Some(i) = c.instructions.first() else {
            continue;
        };
        let _ = sim::simulate(c, &[cmd2(i)], Default::default(), &cfg);
        // The CMT2 text reads back and runs the same.
        let text = compiler::rules::emit_cmt2(c);
        let back = compiler::rules::read_cmt2(&text)
            .unwrap_or_else(|d| panic!("{}", d.render("cmt2", &text)));
        let _ = sim::simulate(&back, &[cmd2(i)], Default::default(), &cfg);
    }
}

#[test]
fn deleting_lines_of_generated_programs_never_panics() {
    for seed in 0..3 {
        let text = aps::workload::generate(2, seed);
        let lines: Vec<&str> = text.lines().collect();
        for skip in (0..lines.len()).step_by(3) {
            let cut = without_line(&lines, skip);
            if let Ok(circuits) = flow(&cut) {
                run_engines(&cut, &circuits);
            }
        }
    }
}

/// A same-slot hazard names both accesses: the error at the second, a located note at the
/// store.
#[test]
fn hazard_shows_both_places() {
    for (file, second, first) in [
        (
            "aps/diag/hazard_raw_bank.mlir",
            "f:13:7: error:",
            "f:12:7: note:",
        ),
        (
            "aps/diag/hazard_waw_global.mlir",
            "f:13:7: error:",
            "f:12:7: note:",
        ),
    ] {
        let text = std::fs::read_to_string(common::data(file)).unwrap();
        let r = flow(&text).unwrap_err().render("f", &text);
        assert!(r.starts_with(second), "{r}");
        assert!(r.contains(first), "{r}");
        assert_eq!(r.lines().filter(|l| l.contains(" | ")).count(), 4, "{r}");
    }
}
