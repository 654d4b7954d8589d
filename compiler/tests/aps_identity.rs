//! Instruction identity `(opcode, funct7)`, the response's `rd`, and the run-time checks,
//! across the engines: the TOR interpreter, the rule simulator and the RTL (Icarus Verilog,
//! required under CI).

mod common;
mod sv_common;

use common::{fifo, rocc, rule};
use compiler::aps::{self, interp};
use compiler::flow::{self, OutputKind};
use compiler::limits::Limits;
use compiler::rules::sim::{self, Command, SimConfig, SimError};
use compiler::rules::{BodyBuilder, Circuit};
use std::collections::{BTreeMap, HashSet};

fn load(file: &str) -> (String, compiler::mlir::ast::ModuleAst) {
    let text = std::fs::read_to_string(common::data(file)).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    (text, m)
}

/// Names defined in one CMT2 module body must be unique: collect `@name`s that start a
/// definition (instances, declarations, rules, methods).
fn defined_symbols(cmt2: &str) -> Vec<String> {
    let main = &cmt2[cmt2.find("cmt2.module @main").unwrap()..];
    main.lines()
        .map(str::trim_start)
        .filter(|l| {
            [
                "cmt2.instance @",
                "cmt2.interface.decl @",
                "cmt2.rule @",
                "cmt2.method @",
            ]
            .iter()
            .any(|p| l.starts_with(p))
        })
        .map(|l| {
            l.split_whitespace()
                .nth(1)
                .unwrap()
                .split('(')
                .next()
                .unwrap()
                .to_string()
        })
        .collect()
}

fn unique(what: &str, names: &[String]) {
    let mut seen = HashSet::new();
    for n in names {
        assert!(seen.insert(n), "{what}: `{n}` twice");
    }
}

/// Two functions under opcode 43 (funct7 1 and 2) build into one file with no repeated
/// symbol in the CMT2, the rules JSON or the SystemVerilog; Icarus compiles the `.sv`; and
/// the interpreter, the rule simulator and the RTL agree for both, with both commands in
/// flight together.
#[test]
fn two_functions_share_an_opcode() {
    let (text, m) = load("aps/identities.mlir");
    let out = flow::aps::build(&text, "identities", None, &Limits::DEFAULT);
    assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
    let cmt2 = out.text(OutputKind::Cmt2).unwrap();
    let syms = defined_symbols(&cmt2);
    unique("CMT2", &syms);
    assert!(syms.iter().any(|s| s.starts_with("@inst2b01_")));
    assert!(syms.iter().any(|s| s.starts_with("@inst2b02_")));
    let json: serde_json::Value =
        serde_json::from_str(&out.text(OutputKind::RulesJson).unwrap()).unwrap();
    let names = |key: &str| -> Vec<String> {
        json[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap().to_string())
            .collect()
    };
    unique("JSON instances", &names("instances"));
    unique("JSON rules", &names("rules"));
    let circuits = aps::build_module(&m).unwrap();
    let file = aps::build_file_circuit("identities", circuits.clone());
    // The top module's signals (primitive modules have their own scopes).
    let sv = compiler::rules::sv::emit_sv_parts(&file, "main")
        .unwrap()
        .top;
    let decls: Vec<String> = sv
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("logic "))
        .flat_map(|l| {
            l.trim_end_matches(';')
                .rsplit(']')
                .next()
                .unwrap()
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
        })
        .collect();
    unique("SV signals", &decls);
    // Each function alone: interpreter = rules = RTL.
    let ctx = aps::design_context(&m).unwrap();
    let mut mem = BTreeMap::new();
    sim::write_word(&mut mem, 0x100, 0);
    for (f, c) in aps::functions(&m).into_iter().zip(&circuits) {
        let want = interp::run(&ctx, f, 10, 0x100, mem.clone(), 10_000).unwrap();
        let cmd = common::command(c, 10, 0x100, 9);
        let got = sim::simulate(
            c,
            std::slice::from_ref(&cmd),
            mem.clone(),
            &SimConfig::default(),
        )
        .unwrap();
        let values: Vec<u32> = got.responses.iter().map(|r| r.value).collect();
        assert_eq!(values, want.responses, "{}", c.name);
        assert_eq!(got.cpu_mem, want.cpu_mem, "{}", c.name);
        assert_eq!(got.responses[0].rd, 9);
        sv_common::compare(c, &[cmd], mem.clone(), &c.name);
    }
    // Both in one file, commands interleaved: routed by funct7.
    let cmds: Vec<Command> = [(1, 3), (2, 4), (1, 5)]
        .iter()
        .map(|&(f7, rd)| Command {
            opcode: 0x2b,
            funct7: f7,
            rs1: 10,
            rs2: 0x100,
            rd,
        })
        .collect();
    let r = sim::simulate(&file, &cmds, mem.clone(), &SimConfig::default()).unwrap();
    let got: Vec<(u32, u32)> = r.responses.iter().map(|x| (x.rd, x.value)).collect();
    // @sum: 7 + 10 + 256 = 273, then 273 + 266 = 539; @store2: 11 + 12.
    assert_eq!(got, vec![(3, 273), (4, 23), (5, 539)]);
    sv_common::compare(&file, &cmds, mem, "identities_file");
}

/// Two commands of one instruction queued at once: the instruction runs one command at a
/// time (its values and control live in registers), each response carrying its own
/// command's rd.
#[test]
fn rd_travels_with_its_command() {
    let (_, m) = load("aps/flow_burst_add.mlir");
    let c = aps::build_module(&m).unwrap().remove(0);
    let mut mem = BTreeMap::new();
    for i in 0..16u32 {
        for (base, k) in [(0x1000, 1), (0x2000, 10), (0x3000, 100), (0x4000, 1000)] {
            sim::write_word(&mut mem, base + 4 * i, k * (i + 1));
        }
    }
    let cmds = [
        common::command(&c, 0x1000, 0x2000, 3),
        common::command(&c, 0x3000, 0x4000, 7),
    ];
    let r = sim::simulate(&c, &cmds, mem.clone(), &SimConfig::default()).unwrap();
    // The command register takes the second command when the first one leaves it (cycle
    // 1); the instruction starts it the cycle after the first one's last slot, so both take
    // as long (the first one's time includes the register's cycle).
    assert_eq!(r.accepted, vec![0, 1], "{r:?}");
    assert_eq!(r.responses[1].cycle, 2 * r.responses[0].cycle, "{r:?}");
    let rds: Vec<u32> = r.responses.iter().map(|x| x.rd).collect();
    assert_eq!(rds, vec![3, 7]);
    for i in 0..16u32 {
        assert_eq!(sim::read_word(&r.cpu_mem, 0x1000 + 4 * i), 11 * (i + 1));
        assert_eq!(sim::read_word(&r.cpu_mem, 0x3000 + 4 * i), 1100 * (i + 1));
    }
    sv_common::compare(&c, &cmds, mem, "rd_in_flight");
}

/// The same identity twice: an error at the second function naming both, with the first
/// shown as a note.
#[test]
fn repeated_identity_is_an_error_naming_both() {
    let (text, m) = load("aps/diag/same_identity.mlir");
    let d = aps::build_module(&m).unwrap_err();
    let r = d.render("f", &text);
    assert!(r.contains("`@f` and `@g`"), "{r}");
    assert!(r.starts_with("f:11:5: error:"), "{r}");
    assert!(r.contains("f:5:5: note: `@f` is defined here"), "{r}");
    // The file's flow: no outputs, the same error with its note at the first function.
    let out = flow::aps::build(&text, "f", None, &Limits::DEFAULT);
    assert!(out.outputs.is_empty());
    let r = compiler::diag::render_all(&out.diagnostics, "f", &text);
    assert!(
        r.starts_with("f:11:5: error:") && r.contains("`@f` and `@g`"),
        "{r}"
    );
    assert!(r.contains("f:5:5: note: `@f` is defined here"), "{r}");
}

/// Opcodes outside custom-0..3 build, with a warning per function.
#[test]
fn non_custom_opcode_is_a_warning() {
    let (text, _) = load("aps/diag/same_identity.mlir");
    let text = text.replacen("opcode = 43", "opcode = 1", 1);
    let out = flow::aps::build(&text, "w", None, &Limits::DEFAULT);
    assert!(out.output(OutputKind::Cmt2).is_some());
    assert_eq!(out.diagnostics.len(), 1);
    assert!(!out.diagnostics[0].is_error());
    assert!(out.diagnostics[0].message.contains("not a custom opcode"));
}

/// A function and globals named after SystemVerilog keywords: the RTL compiles (Icarus)
/// and agrees with the rule simulator and the interpreter.
#[test]
fn keyword_names_compile() {
    let (_, m) = load("aps/keywords.mlir");
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)[0];
    let c = aps::build_function(&ctx, f).unwrap();
    assert_eq!(c.name, "dist");
    let sv = compiler::rules::sv::emit_sv(&c, "main").unwrap();
    assert!(sv.contains("module main ("), "the top module is `main`");
    let want = interp::run(&ctx, f, 3, 0, BTreeMap::new(), 1000).unwrap();
    assert_eq!(want.responses, vec![45]);
    sv_common::compare(
        &c,
        &[common::command(&c, 3, 0, 1)],
        BTreeMap::new(),
        "keywords",
    );
}

/// Two CPU-memory stores in one slot (two request lanes in one cycle): the RTL keeps both.
#[test]
fn two_cpu_stores_in_one_cycle() {
    let (_, m) = load("aps/identities.mlir");
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)[1];
    let c = aps::build_function(&ctx, f).unwrap();
    assert_eq!(
        compiler::rules::schedule::mem_lanes(&c)["hellacache_adapter"],
        2
    );
    let run = sv_common::compare(
        &c,
        &[common::command(&c, 10, 0x100, 1)],
        BTreeMap::new(),
        "two_stores",
    );
    if let Some(run) = run {
        assert_eq!(sim::read_word(&run.cpu_mem, 0x100), 11);
        assert_eq!(sim::read_word(&run.cpu_mem, 0x104), 12);
    }
}

/// Two CPU-memory loads in one slot (two request lanes, one request per cycle at the
/// HellaCache port, both responses matched by tag): the interpreter, the rule simulator,
/// the circuit read back from its CMT2 text and the RTL (waveforms included) agree.
#[test]
fn two_cpu_loads_in_one_slot_agree_across_engines() {
    let (_, m) = load("aps/loads2.mlir");
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)[0];
    let c = aps::build_function(&ctx, f).unwrap();
    assert_eq!(
        compiler::rules::schedule::mem_lanes(&c)["hellacache_adapter"],
        2
    );
    let mut mem = BTreeMap::new();
    sim::write_word(&mut mem, 0x100, 1000);
    sim::write_word(&mut mem, 0x104, 234);
    // Unaligned: the words at 0x100 and 0x104 all the same.
    let cmds = [
        common::command(&c, 0x100, 0x200, 1),
        common::command(&c, 0x102, 0x206, 2),
    ];
    let want = interp::run(&ctx, f, 0x100, 0x200, mem.clone(), 1000).unwrap();
    assert_eq!(want.responses, vec![766]);
    let r = sim::simulate(&c, &cmds, mem.clone(), &SimConfig::default()).unwrap();
    let values: Vec<u32> = r.responses.iter().map(|x| x.value).collect();
    assert_eq!(values, vec![766, 766]);
    assert_eq!(sim::read_word(&r.cpu_mem, 0x200), 766);
    assert_eq!(sim::read_word(&r.cpu_mem, 0x204), 766);
    let text = compiler::rules::emit_cmt2(&c);
    let back = compiler::rules::read_cmt2(&text).unwrap();
    let b = sim::simulate(&back, &cmds, mem.clone(), &SimConfig::default()).unwrap();
    assert_eq!(b, r, "CMT2 read back");
    if let Some(run) = sv_common::compare(&c, &cmds, mem, "two_loads") {
        assert_eq!(sim::read_word(&run.cpu_mem, 0x204), 766);
    }
}

/// An environment answering HellaCache loads out of order (a load with an even tag three
/// cycles late, so the second load of a slot is answered first): the top matches the
/// responses by tag and the RTL gives the reference environment's results (later).
#[test]
fn out_of_order_cpu_responses_are_matched_by_tag() {
    if !common::have_tool("iverilog") {
        return;
    }
    let (_, m) = load("aps/loads2.mlir");
    let ctx = aps::design_context(&m).unwrap();
    let c = aps::build_function(&ctx, aps::functions(&m)[0]).unwrap();
    let mut mem = BTreeMap::new();
    for (k, v) in [1000u32, 234, 50, 7].into_iter().enumerate() {
        sim::write_word(&mut mem, 0x100 + 4 * k as u32, v);
    }
    let cmds = [
        common::command(&c, 0x100, 0x200, 1),
        common::command(&c, 0x108, 0x204, 2),
        common::command(&c, 0x104, 0x208, 3),
    ];
    let want = sim::simulate(&c, &cmds, mem.clone(), &SimConfig::default()).unwrap();
    let values: Vec<u32> = want.responses.iter().map(|r| r.value).collect();
    assert_eq!(values, vec![766, 43, 184]);
    let dir = sv_common::scratch_dir("hella_out_of_order");
    let cfg = compiler::rules::sv::TbConfig {
        max_cycles: 1000,
        hella_delay: 3,
        ..Default::default()
    };
    sv_common::prepare_with(&dir, &c, &cmds, &mem, &cfg);
    let got = sv_common::run(&dir);
    assert_eq!(got.status, "ok");
    let resp: Vec<(u32, u32)> = got.responses.iter().map(|r| (r.0, r.1)).collect();
    assert_eq!(resp, vec![(1, 766), (2, 43), (3, 184)]);
    for (a, w) in [(0x200, 766), (0x204, 43), (0x208, 184)] {
        assert_eq!(sim::read_word(&got.cpu_mem, a), w);
    }
    assert!(got.cycles > want.cycles, "{} {}", got.cycles, want.cycles);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A deadlocked design: the rule simulator and the RTL report the same deadlock (the
/// stuck rule and the cycle), and neither answers.
#[test]
fn deadlock_is_reported_by_rtl_like_rules() {
    let mut end = BodyBuilder::new();
    let v = end.call_value("a", "deq", vec![], 32);
    end.call_value("never", "deq", vec![], 32);
    common::respond(&mut end, 1, v);
    let c = Circuit {
        name: "stuck".into(),
        instructions: vec![],
        instances: vec![rocc(), fifo("a"), fifo("never")],
        rules: vec![
            common::cmd_to_fifos("start", 0x0b, 32, &["a"]),
            rule("end", end),
        ],
        precedence: vec![],
        schedule: vec!["end".into(), "start".into()],
    };
    let cmd = Command {
        opcode: 0x0b,
        funct7: 0,
        rs1: 1,
        rs2: 0,
        rd: 1,
    };
    let want = fails_alike(&c, cmd, "deadlock");
    assert_eq!(
        want,
        SimError::Deadlock {
            cycle: 2,
            stuck: vec!["end".into()]
        }
    );
}

/// A rule storing a CPU word and then loading it in one slot: the interpreter reports the
/// hazard at the load (the store as a note), the rule simulator and the RTL at run time
/// with the same message.
#[test]
fn cpu_memory_hazard_is_a_run_time_error() {
    let (text, m) = load("aps/cpu_hazard.mlir");
    let text = text.as_str();
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)[0];
    let c = aps::build_function(&ctx, f).unwrap();
    // Different words: no hazard anywhere.
    assert!(interp::run(&ctx, f, 0x100, 0x200, BTreeMap::new(), 1000).is_ok());
    sv_common::compare(
        &c,
        &[common::command(&c, 0x100, 0x200, 1)],
        BTreeMap::new(),
        "no_hazard",
    );
    // The same word (0x102 and 0x100 share it).
    let d = interp::run(&ctx, f, 0x100, 0x102, BTreeMap::new(), 1000).unwrap_err();
    let r = d.render("h", text);
    assert!(r.contains("CPU-memory hazard: word 0x100"), "{r}");
    assert!(r.contains("note: the store is here"), "{r}");
    let cmd = common::command(&c, 0x100, 0x102, 1);
    let want = fails_alike(&c, cmd, "hazard");
    assert!(
        matches!(
            want,
            SimError::Hazard {
                addr: 0x100,
                load: true,
                ..
            }
        ),
        "{want}"
    );
}

/// A loop step of 0 known only at run time: the interpreter reports it at the loop, the
/// simulators as a fault of the loop's entry rule, with the same words.
#[test]
fn run_time_step_zero_is_an_error_in_every_engine() {
    let (text, m) = load("aps/step_runtime.mlir");
    let text = text.as_str();
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)[0];
    let c = aps::build_function(&ctx, f).unwrap();
    let d = interp::run(&ctx, f, 0, 0, BTreeMap::new(), 1000).unwrap_err();
    assert!(
        d.render("s", text)
            .starts_with("s:8:7: error: loop step is 0 at run time")
    );
    let cmd = common::command(&c, 0, 0, 1);
    let want = fails_alike(&c, cmd, "step0");
    assert!(
        matches!(&want, SimError::Fault { message, .. } if message.starts_with("loop step is 0 at run time")),
        "{want}"
    );
    // A step of 2 runs in all three.
    assert_eq!(
        interp::run(&ctx, f, 2, 0, BTreeMap::new(), 1000)
            .unwrap()
            .responses,
        vec![2]
    );
    sv_common::compare(
        &c,
        &[common::command(&c, 2, 0, 1)],
        BTreeMap::new(),
        "step2",
    );
}

/// Run `cmd` on the rule simulator and on the RTL (when Icarus is there): both must fail,
/// with the same error. Returns the rule simulator's error.
fn fails_alike(c: &Circuit, cmd: Command, tag: &str) -> SimError {
    let want = sim::simulate(
        c,
        std::slice::from_ref(&cmd),
        BTreeMap::new(),
        &SimConfig::default(),
    )
    .unwrap_err();
    if let Some(got) = sv_common::run_failing(c, &[cmd], BTreeMap::new(), tag, 100) {
        assert_eq!(got, want, "{tag}");
    }
    want
}
