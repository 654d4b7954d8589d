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
            "cmt2.call @inst2b00_block_0_reg0 @write(%v30) : (!firrtl.uint<32>) -> ()",
            "cmt2.call @inst2b00_block_0_reg0 @write(%v30) : (!firrtl.uint<31>) -> ()",
            "::@write` is `(!firrtl.uint<32>) -> ()`",
        ),
        (
            "result type FIRRTL does not infer",
            "%v8_1 = firrtl.add %v7, %v6 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<33>",
            "%v8_1 = firrtl.add %v7, %v6 : (!firrtl.uint<32>, !firrtl.uint<32>) -> !firrtl.uint<34>",
            "has result type",
        ),
        (
            "undefined value",
            "cmt2.call @inst2b00_block_0_reg0 @write(%v30)",
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

/// The banks' port methods a CMT2 text declares and calls: per (bank instance, IR method),
/// the ports its module's extern declares and the call sites in `main` (port names).
#[derive(Default, Debug)]
struct Ports {
    declared: BTreeMap<(String, String), Vec<String>>,
    called: BTreeMap<(String, String), Vec<String>>,
}

/// [`Ports`] of a text, from its lines: `cmt2.instance @b = @Bank_...`, the bank modules'
/// `cmt2.bind.method @<m>.<rule>.<k>` and the calls `cmt2.call @b @<m>.<rule>.<k>(`.
fn bank_ports(text: &str) -> Ports {
    let mut module_of: BTreeMap<String, String> = BTreeMap::new();
    let mut binds: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut calls: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let l = line.trim_start();
        if let Some(rest) = l.strip_prefix("cmt2.module.extern.firrtl @") {
            let name = rest.split(' ').next().unwrap();
            current = name.starts_with("Bank_").then(|| name.to_string());
        } else if let Some(rest) = l.strip_prefix("cmt2.bind.method @") {
            if let Some(m) = &current {
                let port = rest.split(' ').next().unwrap();
                binds.entry(m.clone()).or_default().push(port.to_string());
            }
        } else if let Some(rest) = l.strip_prefix("cmt2.instance @") {
            let (inst, module) = rest.split_once(" = @").unwrap();
            let module = module.split('(').next().unwrap();
            if module.starts_with("Bank_") {
                module_of.insert(inst.to_string(), module.to_string());
            }
        } else if let Some(at) = l.find("cmt2.call @") {
            let rest = &l[at + "cmt2.call @".len()..];
            let (inst, rest) = rest.split_once(" @").unwrap();
            let port = rest.split('(').next().unwrap();
            calls.push((inst.to_string(), port.to_string()));
        }
    }
    let method = |port: &str| port.split('.').next().unwrap().to_string();
    let mut out = Ports::default();
    for (inst, module) in &module_of {
        for p in binds.get(module).into_iter().flatten() {
            if p.contains('.') {
                out.declared
                    .entry((inst.clone(), method(p)))
                    .or_default()
                    .push(p.clone());
            }
        }
    }
    for (inst, port) in calls {
        // `read_1` reads the latch.
        if module_of.contains_key(&inst) && port != "read_1" {
            out.called
                .entry((inst, method(&port)))
                .or_default()
                .push(port);
        }
    }
    out
}

/// The hold-out shapes of a bank read by more calls in one cycle than one port serves: a
/// rule reading one bank three times (`bank_three_reads.mlir`), and two stages of an II=1
/// pipelined loop reading one bank in the same cycle (`bank_reads_pipelined.mlir`). The
/// CMT2 text declares a port per call site, each called once, so the declared ports cover
/// the calls; the SystemVerilog bank has the same read ports (and the DMA engine's lanes);
/// and the read-back circuit runs like the original.
#[test]
fn bank_ports_cover_the_calls() {
    let mut mem = BTreeMap::new();
    for i in 0..16u32 {
        sim::write_word(&mut mem, 0x1000 + 4 * i, i + 1);
        sim::write_word(&mut mem, 0x2000 + 4 * i, 101 + i);
    }
    for (file, rule, reads) in [
        (
            "aps/bank_three_reads.mlir",
            "inst2b00_loop_1_loop_block_0_slot_6_rule",
            3,
        ),
        (
            "aps/bank_reads_pipelined.mlir",
            "inst2b00_loop_1_loop_block_0_slot_7_rule",
            1,
        ),
    ] {
        let text = std::fs::read_to_string(common::data(file)).unwrap();
        assert_eq!(check_file(file, &text, &mem, 0x1000, 0x2000), 1);
        let out = flow::aps::build(&text, "t", Some(rules::sv::DEFAULT_TOP), &Limits::DEFAULT);
        let cmt2 = out.text(OutputKind::Cmt2).unwrap();
        let ports = bank_ports(&cmt2);
        assert!(!ports.called.is_empty(), "{file}: no bank calls found");
        for (key, calls) in &ports.called {
            let declared = ports.declared.get(key).cloned().unwrap_or_default();
            assert!(
                declared.len() >= calls.len(),
                "{file}: {key:?}: {} calls, {} ports",
                calls.len(),
                declared.len()
            );
            let mut once = calls.clone();
            once.sort();
            once.dedup();
            assert_eq!(
                once.len(),
                calls.len(),
                "{file}: {key:?}: a port called twice"
            );
            for c in calls {
                assert!(declared.contains(c), "{file}: {key:?}: `{c}` not declared");
            }
        }
        // The shape itself: `mem_a_0` read by `reads` calls of `rule`, and (pipelined) by
        // two rules of the loop that fire in one cycle.
        let key = ("mem_a_0".to_string(), "read".to_string());
        let reads_of = |r: &str| {
            ports.called[&key]
                .iter()
                .filter(|p| p.starts_with(&format!("read.{r}.")))
                .count()
        };
        assert_eq!(reads_of(rule), reads, "{file}: {:?}", ports.called[&key]);
        let rules: std::collections::BTreeSet<&str> = ports.called[&key]
            .iter()
            .map(|p| p.split('.').nth(1).unwrap())
            .filter(|r| !r.starts_with("burst_"))
            .collect();
        assert!(rules.len() >= 2 || reads == 3, "{file}: {rules:?}");
        if reads == 1 {
            // The rules reading `mem_a_0` do fire in one cycle.
            let m = compiler::mlir::parse(&text).unwrap();
            let c = aps::build_module(&m).unwrap().remove(0);
            let (mut t, cmd) = (
                sim::Trace::default(),
                common::command(&c, 0x1000, 0x2000, 7),
            );
            sim::simulate_recorded(&c, &[cmd], mem.clone(), &SimConfig::default(), &mut t).unwrap();
            let index = |r: &str| c.rules.iter().position(|x| x.name == r).unwrap() as u32;
            let both: Vec<u32> = rules.iter().map(|r| index(r)).collect();
            assert!(
                t.fired.iter().any(|f| both.iter().all(|r| f.contains(r))),
                "{file}: {rules:?} never fire in one cycle"
            );
        }
        // The SystemVerilog bank: the same read ports, the DMA lanes reaching it among
        // them (the burst read's ports in the CMT2).
        let sv = out.text(OutputKind::Sv).unwrap();
        let comment = sv
            .lines()
            .find(|l| l.contains("// scratchpad bank mem_a_0 "))
            .unwrap();
        let sv_reads: usize = comment
            .rsplit(", ")
            .next()
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        let cmt2_reads = ports.declared[&key].len()
            + ports
                .declared
                .get(&("mem_a_0".to_string(), "read_0".to_string()))
                .map_or(0, Vec::len);
        let lanes = sv.matches("_rd0 = mem_a_0__rdata[").count();
        let burst = ports.declared[&key]
            .iter()
            .filter(|p| p.contains(".burst_read_0."))
            .count();
        assert!(lanes > 0, "{file}: no DMA lane reaches mem_a_0");
        assert_eq!(burst, lanes, "{file}: burst read ports of mem_a_0");
        assert_eq!(sv_reads, cmt2_reads, "{file}: {comment}");
    }
}

/// A hand-edited text whose bank declares a port fewer than its rules call, or that binds
/// two calls to one port, is rejected at the call, with its code.
#[test]
fn reader_rejects_a_removed_port() {
    let text = std::fs::read_to_string(common::data("aps/bank_three_reads.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    let c = aps::build_module(&m).unwrap().remove(0);
    let good = rules::emit_cmt2(&c);
    rules::read_cmt2(&good).unwrap();
    let rule = "inst2b00_loop_1_loop_block_0_slot_6_rule";
    let third = format!("@mem_a_0 @read.{rule}.2(");
    assert!(good.contains(&third), "{good}");
    // The same circuit with the rule's third read of `mem_a_0` gone: its library declares
    // the bank's ports without `read.<rule>.2`.
    let mut fewer = c.clone();
    let r = fewer.rules.iter_mut().find(|r| r.name == rule).unwrap();
    let mut seen = 0;
    r.body.retain(|s| match s {
        rules::Stmt::Call { inst, method, .. } if inst == "mem_a_0" && method == "read" => {
            seen += 1;
            seen != 3
        }
        _ => true,
    });
    assert_eq!(seen, 3);
    let lib = rules::emit_cmt2(&fewer);
    assert!(!lib.contains(&format!("@read.{rule}.2 :")));
    // Its header and footer around the original rules: the text with one port removed.
    let split = |t: &str| {
        let a = t.find("      cmt2.rule ").unwrap();
        let b = t.find("    } {kiln.circuit = ").unwrap();
        (t[..a].to_string(), t[a..b].to_string(), t[b..].to_string())
    };
    let (head, _, foot) = split(&lib);
    let (_, body, _) = split(&good);
    let removed = format!("{head}{body}{foot}");
    // Two calls bound to one port.
    let shared = good.replacen(&third, &format!("@mem_a_0 @read.{rule}.1("), 1);
    for (what, bad, msg) in [
        ("port removed", removed, "which the module does not declare"),
        ("port shared", shared, "not to its own port"),
    ] {
        let d = rules::read_cmt2(&bad).expect_err(what);
        assert_eq!(
            d.code,
            Some(compiler::diag::Code::BankPortMissing),
            "{what}"
        );
        let rendered = d.render("f.cmt2.mlir", &bad);
        let line = bad[..d.span.unwrap().start as usize].lines().count();
        assert!(
            rendered.starts_with(&format!("f.cmt2.mlir:{line}:")),
            "{what}: {rendered}"
        );
        assert!(rendered.contains(": error: "), "{what}: {rendered}");
        assert!(
            rendered.contains("more often per cycle than its module has ports"),
            "{what}: {rendered}"
        );
        assert!(rendered.contains(msg), "{what}: {rendered}");
    }
}

/// The CPU-memory port's `HellaMem` module declares a port per call site, grouped by rule in
/// firing order (its readiness counts a rule's sites and earlier rules' enables): a text
/// whose module lacks a site's port, whose module is edited, or whose glue rules leave
/// the schedule is rejected.
#[test]
fn reader_rejects_a_cpu_memory_port_without_its_ports() {
    let text = std::fs::read_to_string(common::data("aps/loads2.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    let c = aps::build_module(&m).unwrap().remove(0);
    let good = rules::emit_cmt2(&c);
    let back = rules::read_cmt2(&good).unwrap();
    assert_eq!(back.instances, c.instances);
    assert_eq!(back.schedule, c.schedule);
    // Two loads in one rule: two request ports of that rule, two response ports.
    for port in ["@load_req.", "@load_resp."] {
        let n = good.matches(&format!("cmt2.bind.method {port}")).count();
        assert_eq!(n, 2, "{port}: {good}");
    }
    let rule = c
        .rules
        .iter()
        .find(|r| {
            let mut n = 0;
            fn count(s: &[rules::Stmt], n: &mut usize) {
                for s in s {
                    match s {
                        rules::Stmt::Call { method, .. } if method == "load_req" => *n += 1,
                        rules::Stmt::If {
                            then_body,
                            else_body,
                            ..
                        } => {
                            count(then_body, n);
                            count(else_body, n);
                        }
                        _ => {}
                    }
                }
            }
            count(&r.body, &mut n);
            n == 2
        })
        .expect("a rule with two loads")
        .name
        .clone();
    // The same circuit with the rule's second load gone: its module has one request port.
    let mut fewer = c.clone();
    let r = fewer.rules.iter_mut().find(|r| r.name == rule).unwrap();
    let mut seen = 0;
    r.body.retain(|s| match s {
        rules::Stmt::Call { method, .. } if method == "load_req" => {
            seen += 1;
            seen != 2
        }
        _ => true,
    });
    assert_eq!(seen, 2);
    let lib = rules::emit_cmt2(&fewer);
    let split = |t: &str| {
        let a = t.find("      cmt2.rule @inst").unwrap();
        let b = t.find("    } {kiln.circuit = ").unwrap();
        (t[..a].to_string(), t[a..b].to_string(), t[b..].to_string())
    };
    let (head, _, foot) = split(&lib);
    let (_, body, _) = split(&good);
    let removed = format!("{head}{body}{foot}");
    let d = rules::read_cmt2(&removed).expect_err("port removed");
    assert_eq!(d.code, Some(compiler::diag::Code::BankPortMissing));
    let rendered = d.render("f.cmt2.mlir", &removed);
    assert!(
        rendered.contains("more often per cycle than its module has ports")
            && rendered.contains("which the module does not declare"),
        "{rendered}"
    );
    // An edited module, a glue rule out of the chain, a misnamed request declaration.
    let lanes = good.replacen(
        "%lanes = firrtl.constant 2 :",
        "%lanes = firrtl.constant 3 :",
        1,
    );
    assert_ne!(lanes, good);
    let unchained = good.replacen("[@hella_send, ", "[@hella_bypass, ", 1);
    assert_ne!(unchained, good);
    let renamed = good.replace("@hella_cmd : @HellaCmd", "@hcmd : @HellaCmd");
    assert_ne!(renamed, good);
    for (what, bad, msg) in [
        (
            "module edited",
            lanes,
            "differs from kiln's library definition",
        ),
        ("glue unchained", unchained, "occurs twice in the chain"),
        (
            "declaration renamed",
            renamed,
            "the convention's port names",
        ),
    ] {
        let d = rules::read_cmt2(&bad).expect_err(what);
        let rendered = d.render("f.cmt2.mlir", &bad);
        assert!(rendered.contains(": error: "), "{what}: {rendered}");
        assert!(rendered.contains(msg), "{what}: {rendered}");
    }
}

/// The scratchpad's burst methods reach each bank's lanes on ports of their own: a text
/// whose bank modules lack them (the library of the same circuit without a memory map
/// around the original's top) is rejected at the burst method, with its code.
#[test]
fn reader_rejects_a_bank_without_its_burst_lanes() {
    let text = std::fs::read_to_string(common::data("aps/flow_burst_add.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    let c = aps::build_module(&m).unwrap().remove(0);
    let good = rules::emit_cmt2(&c);
    rules::read_cmt2(&good).unwrap();
    assert!(good.contains("cmt2.call @mem_a_0 @write.burst_write.0("));
    let mut bare = c.clone();
    for i in &mut bare.instances {
        if let rules::InstanceKind::Dma { entries } = &mut i.kind {
            entries.clear();
        }
    }
    let lib = rules::emit_cmt2(&bare);
    assert!(!lib.contains("burst_write.0 :"));
    // The bare library (CMT2 and FIRRTL modules) around the original `main`.
    let main = |t: &str| t.find("    cmt2.module @main(").unwrap();
    let firrtl = |t: &str| t.find("  firrtl.circuit").unwrap();
    let bad = format!(
        "{}{}{}",
        &lib[..main(&lib)],
        &good[main(&good)..firrtl(&good)],
        &lib[firrtl(&lib)..]
    );
    let d = rules::read_cmt2(&bad).expect_err("burst lanes removed");
    assert_eq!(d.code, Some(compiler::diag::Code::BankPortMissing));
    let rendered = d.render("f.cmt2.mlir", &bad);
    let line = bad[..d.span.unwrap().start as usize].lines().count();
    assert!(
        rendered.starts_with(&format!("f.cmt2.mlir:{line}:")),
        "{rendered}"
    );
    assert!(
        rendered.contains("lane 0 of `@burst_write` needs the port `@write.burst_write.0`"),
        "{rendered}"
    );
}

/// The SystemVerilog bank has the CMT2 bank's ports: per bank instance, its read ports
/// are the CMT2 calls of `read` and `read_0` (each its own port) plus one per DMA lane
/// reaching it, its write ports the calls of `write` plus the same lanes (an unused side
/// gets one idle port). On the test programs, the hold-out shapes and generated programs.
#[test]
fn sv_bank_ports_line_up_with_cmt2() {
    let mut files: Vec<(String, String)> = [
        "aps/flow_burst_add.mlir",
        "aps/flow_burst_add_pipelined.mlir",
        "aps/features.mlir",
        "aps/bank_three_reads.mlir",
        "aps/bank_reads_pipelined.mlir",
    ]
    .iter()
    .map(|f| {
        (
            f.to_string(),
            std::fs::read_to_string(common::data(f)).unwrap(),
        )
    })
    .collect();
    for seed in 0..12 {
        files.push((format!("gen{seed}"), workload::generate(3, seed)));
    }
    let mut banks = 0;
    for (tag, text) in &files {
        let out = flow::aps::build(text, "t", Some(rules::sv::DEFAULT_TOP), &Limits::DEFAULT);
        let rendered = compiler::diag::render_all(&out.diagnostics, tag, text);
        assert!(!out.has_errors(), "{tag}: {rendered}");
        let ports = bank_ports(&out.text(OutputKind::Cmt2).unwrap());
        let sv = out.text(OutputKind::Sv).unwrap();
        for line in sv.lines() {
            let Some(rest) = line.trim().strip_prefix("// scratchpad bank ") else {
                continue;
            };
            let name = rest.split(' ').next().unwrap();
            let count = |what: &str| -> usize {
                let before = rest.split(&format!(" {what} port(s)")).next().unwrap();
                before.rsplit(' ').next().unwrap().parse().unwrap()
            };
            let (sv_writes, sv_reads) = (count("write"), count("read"));
            let calls = |m: &str| {
                ports
                    .called
                    .get(&(name.to_string(), m.to_string()))
                    .map_or(0, Vec::len)
            };
            // The DMA lanes' slices of the bank's read data.
            let slice = format!("= {name}__rdata[");
            let lanes: std::collections::BTreeSet<&str> = sv
                .lines()
                .filter(|l| l.trim_start().starts_with("assign ") && !l.contains("_rule__"))
                .filter_map(|l| l.split_once(&slice).map(|x| x.1))
                .collect();
            let at_least_one = |n: usize| n.max(1);
            // The burst methods' calls are the DMA lanes.
            let burst = |m: &str| {
                ports
                    .called
                    .get(&(name.to_string(), m.to_string()))
                    .map_or(0, |v| v.iter().filter(|p| p.contains(".burst_")).count())
            };
            assert_eq!(burst("read"), lanes.len(), "{tag}: {line}");
            assert_eq!(burst("write"), lanes.len(), "{tag}: {line}");
            assert_eq!(
                sv_reads,
                at_least_one(calls("read") + calls("read_0")),
                "{tag}: {line}"
            );
            assert_eq!(sv_writes, at_least_one(calls("write")), "{tag}: {line}");
            banks += 1;
        }
    }
    assert!(banks > 50, "{banks} banks");
}
