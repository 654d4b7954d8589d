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
        let cut: String = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != skip)
            .map(|(_, l)| format!("{l}\n"))
            .collect();
        if flow(&cut).is_err() {
            errors += 1;
        }
    }
    // Most single-line deletions break an SSA use or the structure.
    assert!(
        errors > lines.len() / 2,
        "{errors} of {} deletions rejected",
        lines.len()
    );
}
