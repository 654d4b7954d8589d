//! The CMT2 output: it follows circt-cmt2's grammar (checked by kiln's strict reader, which
//! rejects what circt-cmt2 rejects), it is self-contained, kiln's own MLIR parser accepts it,
//! and the circuit read back from the text simulates exactly like the circuit it was
//! written from (responses, CPU memory, banks, registers, command acceptance and cycles).

mod common;

use compiler::aps::{self, workload};
use compiler::flow::{self, OutputKind};
use compiler::limits::Limits;
use compiler::rules::sim::{self, Command, SimConfig};
use compiler::rules::{self, Circuit};
use std::collections::BTreeMap;

/// The text parses with kiln's MLIR parser and prints back to an equal tree.
fn generic_parse(tag: &str, text: &str) {
    let m =
        compiler::mlir::parse(text).unwrap_or_else(|d| panic!("{tag}: {}", d.render(tag, text)));
    let printed = compiler::mlir::print(&m);
    let again = compiler::mlir::parse(&printed)
        .unwrap_or_else(|d| panic!("{tag} (printed): {}", d.render(tag, &printed)));
    assert_eq!(
        compiler::mlir::print(&again),
        printed,
        "{tag}: generic form round trip"
    );
}

/// The circuit's CMT2 text, read back.
fn read_back(tag: &str, c: &Circuit) -> (String, Circuit) {
    let text = rules::emit_cmt2(c);
    let back =
        rules::read_cmt2(&text).unwrap_or_else(|d| panic!("{tag}: {}", d.render(tag, &text)));
    (text, back)
}

/// Simulate both circuits on `cmds`; they must agree on everything, and fire the same rules
/// with the same effects cycle by cycle (the first differing event is reported).
fn same_run(tag: &str, a: &Circuit, b: &Circuit, cmds: &[Command], mem: BTreeMap<u32, u8>) {
    let cfg = SimConfig::default();
    let (mut ta, mut tb) = (sim::Trace::default(), sim::Trace::default());
    let x = sim::simulate_recorded(a, cmds, mem.clone(), &cfg, &mut ta);
    let y = sim::simulate_recorded(b, cmds, mem, &cfg, &mut tb);
    if let Some(k) =
        (0..ta.events.len().max(tb.events.len())).find(|&k| ta.events.get(k) != tb.events.get(k))
    {
        panic!(
            "{tag}: rules and cmt2 traces differ at event {k}: {:?} vs {:?}",
            ta.events.get(k),
            tb.events.get(k)
        );
    }
    assert_eq!(x, y, "{tag}: rules and cmt2 runs differ");
}

/// Instances with bank contents in one form (trailing zeros dropped: a bank starts at 0).
fn instances(c: &Circuit) -> Vec<rules::Instance> {
    let mut out = c.instances.clone();
    for i in &mut out {
        if let rules::InstanceKind::Bank { init, .. } = &mut i.kind {
            while init.last() == Some(&0) {
                init.pop();
            }
        }
    }
    out
}

/// Structural facts of the read-back circuit: same name, instructions, instances (names and
/// kinds), rule names and order, and schedule.
fn same_structure(tag: &str, a: &Circuit, b: &Circuit) {
    assert_eq!(a.name, b.name, "{tag}: name");
    assert_eq!(a.instructions, b.instructions, "{tag}: instructions");
    assert_eq!(instances(a), instances(b), "{tag}: instances");
    let names = |c: &Circuit| {
        c.rules
            .iter()
            .map(|r| (r.name.clone(), r.origin.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(names(a), names(b), "{tag}: rules");
    assert_eq!(a.schedule, b.schedule, "{tag}: schedule");
}

/// Grammar facts circt-cmt2 insists on, checked on the text itself as well.
fn grammar_facts(tag: &str, text: &str) {
    for line in text.lines() {
        let l = line.trim_start();
        if l.starts_with("cmt2.bind.value") {
            assert!(
                !l.contains("enable"),
                "{tag}: a value bind with `enable`: {l}"
            );
        }
        if l.starts_with("cmt2.if ") {
            assert!(
                l.contains(" : !firrtl.uint<1> {"),
                "{tag}: `cmt2.if` without its condition type: {l}"
            );
        }
        if l.starts_with("cmt2.bind.") {
            assert!(
                !l.contains(": () -> () [") || l.contains("arguments = [], results = []"),
                "{tag}: {l}"
            );
        }
    }
    let ifs = text.matches("cmt2.if ").count();
    let elses = text.matches("} else {").count();
    assert_eq!(
        text.matches("cmt2.yield").count(),
        ifs + elses,
        "{tag}: one `cmt2.yield` per region"
    );
}

/// One APS file end to end: the file's CMT2 (as `kiln build` writes it) parses generically
/// and reads back; every function's circuit and the merged one simulate the same before
/// and after. Returns the number of functions checked.
fn check_file(tag: &str, text: &str, mem: &BTreeMap<u32, u8>, rs1: u32, rs2: u32) -> usize {
    let m =
        compiler::mlir::parse(text).unwrap_or_else(|d| panic!("{tag}: {}", d.render(tag, text)));
    let out = flow::aps::build(text, tag, None, &Limits::DEFAULT);
    let rendered = compiler::diag::render_all(&out.diagnostics, tag, text);
    assert!(!out.has_errors(), "{tag}: {rendered}");
    let file_text = out.text(OutputKind::Cmt2).unwrap();
    generic_parse(tag, &file_text);
    grammar_facts(tag, &file_text);
    let file_back = rules::read_cmt2(&file_text)
        .unwrap_or_else(|d| panic!("{tag}: {}", d.render(tag, &file_text)));
    let circuits = aps::build_module(&m).unwrap();
    let merged = aps::build_file_circuit(tag, circuits.clone());
    same_structure(tag, &merged, &file_back);
    let mut n = 0;
    for c in &circuits {
        let t = format!("{tag}/{}", c.name);
        let (_, back) = read_back(&t, c);
        same_structure(&t, c, &back);
        let cmd = common::command(c, rs1, rs2, 7);
        same_run(&t, c, &back, std::slice::from_ref(&cmd), mem.clone());
        // The function inside the whole file's circuit, too.
        same_run(
            &format!("{t} in file"),
            &merged,
            &file_back,
            &[cmd],
            mem.clone(),
        );
        n += 1;
    }
    n
}

#[test]
fn seed_example_reads_back_and_runs_the_same() {
    let text = std::fs::read_to_string(common::data("aps/flow_burst_add.mlir")).unwrap();
    let mut mem = BTreeMap::new();
    for i in 0..16u32 {
        sim::write_word(&mut mem, 0x1000 + 4 * i, i + 1);
        sim::write_word(&mut mem, 0x2000 + 4 * i, 101 + i);
    }
    assert_eq!(check_file("flow_burst_add", &text, &mem, 0x1000, 0x2000), 1);
}

#[test]
fn test_programs_read_back_and_run_the_same() {
    let mut n = 0;
    for (file, rs1, rs2) in [
        ("aps/features.mlir", 6, 3),
        ("aps/identities.mlir", 10, 0x100),
        ("aps/keywords.mlir", 3, 0),
    ] {
        let text = std::fs::read_to_string(common::data(file)).unwrap();
        n += check_file(file, &text, &BTreeMap::new(), rs1, rs2);
    }
    assert_eq!(n, 7);
}

/// The CI figure: 210 generated programs (70 modules of 3 functions).
#[test]
fn generated_programs_read_back_and_run_the_same() {
    let mut n = 0;
    for seed in 0..70 {
        let text = workload::generate(3, seed);
        let mem = workload::cpu_memory(seed);
        n += check_file(
            &format!("gen{seed}"),
            &text,
            &mem,
            workload::RS1,
            workload::RS2,
        );
    }
    assert_eq!(n, 210);
}

/// Two commands of the same instruction in flight, and commands of every instruction of a
/// file: the read-back circuit agrees on acceptance and response cycles too.
#[test]
fn concurrent_commands_agree() {
    for seed in 0..10 {
        let text = workload::generate(3, seed);
        let m = compiler::mlir::parse(&text).unwrap();
        let merged = aps::build_file_circuit("g", aps::build_module(&m).unwrap());
        let (_, back) = read_back("g", &merged);
        let cmds: Vec<Command> = [0usize, 0, 1, 2, 1]
            .iter()
            .enumerate()
            .map(|(k, f)| common::generated_command(*f, k as u32 + 1))
            .collect();
        same_run(
            &format!("seed {seed}"),
            &merged,
            &back,
            &cmds,
            workload::cpu_memory(seed),
        );
    }
}

/// A run-time fault (a loop step of 0 known only at run time) reads back as the same fault.
#[test]
fn faults_read_back() {
    let text = std::fs::read_to_string(common::data("aps/step_runtime.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    let c = aps::build_module(&m).unwrap().remove(0);
    let (_, back) = read_back("fault", &c);
    assert_eq!(instances(&c), instances(&back));
    let cmd = common::command(&c, 0, 0, 1);
    let e = sim::simulate(&back, &[cmd], BTreeMap::new(), &SimConfig::default()).unwrap_err();
    assert!(e.to_string().contains("loop step is 0 at run time"), "{e}");
    same_run(
        "fault",
        &c,
        &back,
        &[common::command(&c, 0, 0, 1)],
        BTreeMap::new(),
    );
    same_run(
        "no fault",
        &c,
        &back,
        &[common::command(&c, 2, 0, 1)],
        BTreeMap::new(),
    );
}

/// The reader rejects, with a located diagnostic, what circt-cmt2 would reject (and what
/// kiln's library forbids).
#[test]
fn reader_rejects_what_circt_cmt2_rejects() {
    let text = std::fs::read_to_string(common::data("aps/flow_burst_add.mlir")).unwrap();
    let good = flow::aps::build(&text, "flow_burst_add", None, &Limits::DEFAULT)
        .text(OutputKind::Cmt2)
        .unwrap();
    rules::read_cmt2(&good).unwrap();
    let cases: [(&str, &str, &str, &str); 12] = [
        (
            "enable in a value bind",
            "cmt2.bind.value @read_1 : () -> !firrtl.uint<32> [ready",
            "cmt2.bind.value @read_1 : () -> !firrtl.uint<32> [enable = \"read_1_enable\", ready",
            "has no `enable`",
        ),
        (
            "if without its condition type",
            " : !firrtl.uint<1> {\n          %v9 = cmt2.call",
            " {\n          %v9 = cmt2.call",
            "expected ':'",
        ),
        (
            "if region without yield",
            "          cmt2.yield\n        }\n",
            "        }\n",
            "must end with `cmt2.yield`",
        ),
        (
            "call of a method the instance lacks",
            "@rocc_adapter @cmd_deq()",
            "@rocc_adapter @cmd_to_user_43()",
            "has no method or value `@cmd_to_user_43`",
        ),
        (
            "instance of an undefined module",
            "= @Reg_w32_i0(%clk, %rst)",
            "= @FIFO1_PUSH_w32(%clk, %rst)",
            "is not defined",
        ),
        (
            "extern without its FIRRTL module",
            "    firrtl.module @Reg_w5_i0(",
            "    firrtl.module @Reg_w5_i0_gone(",
            "does not define",
        ),
        (
            "edited library module",
            "      firrtl.matchingconnect %read_data, %r : !firrtl.uint<5>",
            "      firrtl.matchingconnect %read_data, %init : !firrtl.uint<5>",
            "differs from kiln's library definition",
        ),
        (
            "argument of the wrong type",
            "cmt2.call @inst2b00_block_0_reg0 @write(%v14) : (!firrtl.uint<32>) -> ()",
            "cmt2.call @inst2b00_block_0_reg0 @write(%v14) : (!firrtl.uint<31>) -> ()",
            "::@write` is `(!firrtl.uint<32>) -> ()`",
        ),
        (
            "result type FIRRTL does not infer",
            "-> !firrtl.uint<33>",
            "-> !firrtl.uint<34>",
            "has result type",
        ),
        (
            "undefined value",
            "cmt2.call @inst2b00_block_0_reg0 @write(%v14)",
            "cmt2.call @inst2b00_block_0_reg0 @write(%v999)",
            "undefined value `%v999`",
        ),
        (
            "action method in a guard",
            "%v3 = cmt2.call @rocc_adapter @cmd() : () -> !firrtl.uint<96>",
            "%v3 = cmt2.call @rocc_adapter @cmd_deq() : () -> !firrtl.uint<96>",
            "value methods only",
        ),
        (
            "duplicate symbol",
            "cmt2.rule @inst2b00_block_0_slot_1_rule()",
            "cmt2.rule @inst2b00_block_0_slot_0_rule()",
            "redefinition of symbol",
        ),
    ];
    for (what, from, to, msg) in cases {
        assert!(
            good.contains(from),
            "{what}: sample text `{from}` not found"
        );
        let bad = good.replacen(from, to, 1);
        let d = rules::read_cmt2(&bad).expect_err(what);
        assert!(d.span.is_some(), "{what}: located");
        let rendered = d.render("f.cmt2.mlir", &bad);
        assert!(rendered.contains(msg), "{what}: {rendered}");
        assert!(rendered.starts_with("f.cmt2.mlir:"), "{what}: {rendered}");
    }
}

/// Truncating the text anywhere gives a diagnostic, never a panic.
#[test]
fn truncated_text_is_an_error() {
    let text = workload::generate(1, 3);
    let good = flow::aps::build(&text, "t", None, &Limits::DEFAULT)
        .text(OutputKind::Cmt2)
        .unwrap();
    for cut in (0..good.len()).step_by(97) {
        if good.is_char_boundary(cut) {
            assert!(rules::read_cmt2(&good[..cut]).is_err(), "cut at {cut}");
        }
    }
}
