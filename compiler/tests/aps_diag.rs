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

/// The diagnostics of the function-wide checks: each fixture's error, from the build and
/// alike from the TOR interpreter (every engine rejects what the build rejects).
const FUNCTION_CHECKS: &[&str] = &[
    "redefinition_in_loop",
    "redefinition_in_branch",
    "redefinition_in_block",
    "redefinition_of_argument",
    "redefinition_of_design_constant",
    "name_reused_in_sibling_loops",
    "writerf_twice",
    "writerf_after_branches",
    "writerf_on_some_paths",
    "writerf_in_loop",
    "loop_bound_at_type_max",
    "loop_step_past_type_max",
];

#[test]
fn the_interpreter_rejects_what_the_build_rejects() {
    for name in FUNCTION_CHECKS {
        let text = std::fs::read_to_string(common::data(&format!("aps/diag/{name}.mlir"))).unwrap();
        let built = flow(&text).expect_err(name).render("f", &text);
        let m = compiler::mlir::parse(&text).unwrap();
        let ctx = aps::design_context(&m).unwrap();
        let f = aps::functions(&m)[0];
        // A small budget: a loop that wraps would spend it, not end.
        let ran = aps::interp::run(&ctx, f, 5, 0, Default::default(), 100_000)
            .expect_err(name)
            .render("f", &text);
        assert_eq!(
            ran.lines().next(),
            built.lines().next(),
            "{name}: {ran}\n{built}"
        );
    }
}

/// A value redefined inside a loop is MLIR's `redefinition of SSA value`, with a located
/// note at the definition it would hide.
#[test]
fn a_redefinition_notes_the_first_definition() {
    for (file, note) in [
        (
            "redefinition_in_loop",
            "f:9:7: note: previously defined here",
        ),
        (
            "redefinition_in_branch",
            "f:9:7: note: previously defined here",
        ),
        (
            "name_reused_in_sibling_loops",
            "f:10:9: note: the other definition",
        ),
    ] {
        let text = std::fs::read_to_string(common::data(&format!("aps/diag/{file}.mlir"))).unwrap();
        let d = flow(&text).unwrap_err();
        assert_eq!(d.code, Some(compiler::diag::Code::Redefinition), "{file}");
        let r = d.render("f", &text);
        assert!(r.contains(note), "{file}: {r}");
    }
    let text = std::fs::read_to_string(common::data(
        "aps/diag/redefinition_of_design_constant.mlir",
    ))
    .unwrap();
    let r = flow(&text).unwrap_err().render("f", &text);
    assert!(r.contains("is a constant of the design"), "{r}");
}

/// A function without `aps.writerf` is an instruction without a destination register: it
/// builds, with a warning at the function.
#[test]
fn an_instruction_without_a_response_builds_with_a_warning() {
    let text = "module {
  tor.design @d {
    %c1_i32 = arith.constant 1 : i32
    tor.func @store_only(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 0 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %1 = tor.addi %0 %c1_i32 on (1 to 2) : (i32, i32) -> i32
      \"aps.globalstore\"(%1) {global = @g, starttime = 2 : i32, endtime = 3 : i32} : (i32) -> ()
      tor.return
    }
    memref.global @g : memref<i32> = dense<0>
  }
}
";
    let out = compiler::flow::aps::build(text, "w", None, &Default::default());
    assert!(!out.has_errors(), "{:?}", out.diagnostics);
    assert_eq!(out.outputs.len(), 2);
    let [w] = out.diagnostics.as_slice() else {
        panic!("{:?}", out.diagnostics)
    };
    assert_eq!(w.code, Some(compiler::diag::Code::NoResponse));
    let r = w.render("f", text);
    assert!(
        r.starts_with("f:4:5: warning: function `@store_only` sends no response"),
        "{r}"
    );
    assert!(r.contains("RoCC xd = 0"), "{r}");
}

/// A burst whose element count is not a power of two moves the rounded-up length (the DMA
/// length field is `log2` of the bytes): it builds with W0213 naming the extra bytes, and
/// every engine moves them.
#[test]
fn a_rounded_up_burst_is_a_warning() {
    let text = std::fs::read_to_string(common::data("aps/diag/burst_channel.mlir"))
        .unwrap()
        .replace("tl_channel = 2 : i32, ", "")
        .replace("%c2_i32 {starttime = 1", "%c3_i32 {starttime = 1")
        .replace(
            "%c2_i32 = arith.constant 2 : i32",
            "%c2_i32 = arith.constant 2 : i32\n    %c3_i32 = arith.constant 3 : i32",
        );
    let out = compiler::flow::aps::build(&text, "w", None, &Default::default());
    assert!(!out.has_errors(), "{:?}", out.diagnostics);
    let [w] = out.diagnostics.as_slice() else {
        panic!("{:?}", out.diagnostics)
    };
    assert_eq!(w.code, Some(compiler::diag::Code::BurstRounded));
    assert!(
        w.message
            .contains("names 3 elements of 4 bytes (12 bytes) but moves 16"),
        "{}",
        w.message
    );
}
