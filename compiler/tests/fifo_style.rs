//! `--style fifo` (the dataflow architecture of seeds 002 and 003): every engine agrees as in
//! the state machine style — TOR interpreter = rule simulator = CMT2 read-back = Icarus RTL —
//! on generated functions, the seed example and the test programs; the seed example's rules
//! have the seeds' FIFOs, and a distribution rule only where sub-blocks need an input.

mod common;
mod sv_common;

use compiler::aps::{self, Style, workload};
use compiler::flow::{self, OutputKind};
use compiler::limits::Limits;
use compiler::rules::Circuit;
use compiler::rules::sim::{self, SimConfig, SimResult};
use std::collections::BTreeMap;
use sv_common::Case;

fn fifo_circuit(
    tag: &str,
    ctx: &aps::DesignContext,
    f: &compiler::mlir::ast::Operation,
) -> Circuit {
    aps::build_function_styled(ctx, f, &Limits::DEFAULT, Style::Fifo)
        .unwrap_or_else(|d| panic!("{tag}: {}", d.message))
        .0
}

/// Every function of `text` in fifo style through tor, rules and cmt2; its RTL cases.
fn check_text(
    tag: &str,
    text: &str,
    rs: (u32, u32),
    mem: &BTreeMap<u32, u8>,
    cases: &mut Vec<Case>,
) -> usize {
    let m = compiler::mlir::parse(text).unwrap_or_else(|d| panic!("{tag}: {}", d.message));
    let ctx = aps::design_context(&m).unwrap_or_else(|d| panic!("{tag}: {}", d.message));
    let mut n = 0;
    for f in aps::functions(&m) {
        let c = fifo_circuit(tag, &ctx, f);
        let t = format!("{tag}/{}", c.name);
        let got = common::tor_equals_rules(&t, &ctx, f, &c, rs, mem);
        let cmd = common::command(&c, rs.0, rs.1, 3);
        common::cmt2_runs_as(&t, &c, std::slice::from_ref(&cmd), mem, &got);
        cases.push(Case {
            tag: t.replace(['/', '.'], "_"),
            circuit: c,
            cmds: vec![cmd],
            mem: mem.clone(),
        });
        n += 1;
    }
    n
}

fn seed_memory() -> BTreeMap<u32, u8> {
    let mut mem = BTreeMap::new();
    for i in 0..16u32 {
        sim::write_word(&mut mem, 0x1000 + 4 * i, i + 1);
        sim::write_word(&mut mem, 0x2000 + 4 * i, 101 + i);
    }
    mem
}

/// tor = rules = cmt2 = rtl in fifo style: 40 generated functions, 10 with pipelined loops
/// (run one iteration after the other in this style), the seed example and every test
/// program.
#[test]
fn fifo_style_engines_agree() {
    let mut cases = Vec::new();
    let mut n = 0;
    for seed in 0..40 {
        let text = workload::generate(1, seed);
        let mem = workload::cpu_memory(seed);
        let rs = (workload::RS1, workload::RS2);
        n += check_text(&format!("gen{seed}"), &text, rs, &mem, &mut cases);
    }
    for seed in 0..10 {
        let opts = workload::Options {
            pipelined_loops: true,
        };
        let text = workload::generate_with(1, seed, opts);
        let mem = workload::cpu_memory(seed);
        let rs = (workload::RS1, workload::RS2);
        n += check_text(&format!("pipe{seed}"), &text, rs, &mem, &mut cases);
    }
    let seed = std::fs::read_to_string(common::data("aps/flow_burst_add.mlir")).unwrap();
    n += check_text("seed", &seed, (0x1000, 0x2000), &seed_memory(), &mut cases);
    for (file, rs1, rs2) in [
        ("aps/features.mlir", 6, 3),
        ("aps/identities.mlir", 10, 0x100),
        ("aps/keywords.mlir", 3, 0),
        ("aps/bank_three_reads.mlir", 0, 0),
        ("aps/bank_reads_pipelined.mlir", 0, 0),
        ("aps/loads2.mlir", 0x1000, 0x2000),
        ("aps/flow_burst_add_pipelined.mlir", 0x1000, 0x2000),
        ("aps/step_runtime.mlir", 5, 2),
    ] {
        let text = std::fs::read_to_string(common::data(file)).unwrap();
        n += check_text(file, &text, (rs1, rs2), &seed_memory(), &mut cases);
    }
    assert!(n >= 58, "{n} functions");
    if common::have_tool("iverilog") {
        let results = sv_common::compare_batches("fifo", cases);
        eprintln!("fifo_style: {n} functions agree in tor, rules, cmt2 and rtl");
        assert_eq!(results.len(), n);
    }
}

/// Two commands of one instruction back to back: the second enters after the first has
/// left (the busy bit), with the state machine's results.
#[test]
fn fifo_style_takes_one_command_at_a_time() {
    let text = std::fs::read_to_string(common::data("aps/flow_burst_add.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    let ctx = aps::design_context(&m).unwrap();
    let f = aps::functions(&m)[0];
    let mut runs = Vec::new();
    for style in Style::ALL {
        let c = aps::build_function_styled(&ctx, f, &Limits::DEFAULT, style)
            .unwrap()
            .0;
        let cmds = [
            common::command(&c, 0x1000, 0x2000, 3),
            common::command(&c, 0x1000, 0x2000, 4),
        ];
        let r = sim::simulate(&c, &cmds, seed_memory(), &SimConfig::default()).unwrap();
        if style == Style::Fifo {
            common::cmt2_runs_as("two commands", &c, &cmds, &seed_memory(), &r);
            sv_common::compare(&c, &cmds, seed_memory(), "fifo_two_commands");
        }
        runs.push(r);
    }
    let values = |r: &SimResult| {
        r.responses
            .iter()
            .map(|x| (x.rd, x.value))
            .collect::<Vec<_>>()
    };
    assert_eq!(values(&runs[0]), values(&runs[1]));
    assert_eq!(runs[0].cpu_mem, runs[1].cpu_mem);
    // The second command starts after the first one's last rule: it takes as long again.
    let r = &runs[1].responses;
    assert!(r[1].cycle - r[0].cycle + 2 >= r[0].cycle, "{r:?}");
}

fn fifo_rules(text: &str) -> Circuit {
    let m = compiler::mlir::parse(text).unwrap_or_else(|d| panic!("{}", d.message));
    let ctx = aps::design_context(&m).unwrap();
    fifo_circuit("program", &ctx, aps::functions(&m)[0])
}

fn names<'a>(c: &'a Circuit, f: impl Fn(&str) -> bool + 'a) -> Vec<&'a str> {
    let i = c.instances.iter().map(|i| i.name.as_str());
    let r = c.rules.iter().map(|r| r.name.as_str());
    i.chain(r).filter(|n| f(n)).collect()
}

/// The seed example in fifo style (as `kiln build --style fifo` writes it): seed 002's
/// cross-slot FIFOs and token FIFOs, seed 003's distribution only in the loop body (whose
/// sub-blocks need the loop's inputs), none in the function body (no inputs); the state
/// machine's output has none of them.
#[test]
fn fifo_style_seed_example_has_the_seeds_fifos() {
    let text = std::fs::read_to_string(common::data("aps/flow_burst_add.mlir")).unwrap();
    let options = flow::aps::Options {
        style: Style::Fifo,
        ..flow::aps::Options::default()
    };
    let out = flow::aps::build_with(&text, "seed", &options);
    assert!(!out.has_errors());
    let cmt2 = out.text(OutputKind::Cmt2).unwrap();
    let c = fifo_rules(&text);
    let cross_slot = names(&c, |n| n.contains("_fifo_s") && !n.contains("token"));
    assert!(
        cross_slot.iter().all(|n| regex_like_seed_name(n)),
        "{cross_slot:?}"
    );
    assert!(!cross_slot.is_empty());
    for n in &cross_slot {
        assert!(cmt2.contains(n), "{n} in the CMT2 text");
    }
    let tokens = names(&c, |n| n.contains("token_fifo"));
    assert!(tokens.len() >= 3, "{tokens:?}");
    let dist = names(&c, |n| n.ends_with("input_distribution"));
    assert_eq!(dist.len(), 1, "{dist:?}");
    assert!(dist[0].contains("_loop_"), "{dist:?}");
    assert!(!names(&c, |n| n.contains("dist_to_block")).is_empty());
    let fsm = flow::aps::build(&text, "seed", None, &Limits::DEFAULT);
    let fsm = fsm.text(OutputKind::Cmt2).unwrap();
    assert!(!fsm.contains("_fifo_s") && !fsm.contains("input_distribution"));
}

/// `{block}_fifo_s{producer}_s{consumer}[_{count}]`, producer < consumer.
fn regex_like_seed_name(n: &str) -> bool {
    let Some((_, tail)) = n.rsplit_once("_fifo_s") else {
        return false;
    };
    let parts: Vec<&str> = tail.split('_').collect();
    let num = |s: &str| s.parse::<i64>().ok();
    match parts.as_slice() {
        [p, c] | [p, c, _] => {
            let (Some(p), Some(c)) = (num(p), c.strip_prefix('s').and_then(num)) else {
                return false;
            };
            p < c && parts.get(2).is_none_or(|k| num(k).is_some_and(|k| k >= 1))
        }
        _ => false,
    }
}

/// A loop body of two sub-blocks (a block and an `if`), both using `%0` (`USE_A`, `USE_B`).
const TWO_SUB_BLOCKS: &str = r#"
module {
  tor.design @two {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c3_i32 = arith.constant 3 : i32
    tor.func @f(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 0 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %r = tor.for %i = (%c0_i32 : i32) to (%c3_i32 : i32) step (%c1_i32 : i32) iter_args(%acc = %c0_i32 : i32) on (1 to 9) -> (i32) {
        %a = tor.addi USE_A on (2 to 3) : (i32, i32) -> i32
        %c = tor.cmpi slt %a %c3_i32 on (3 to 4) : (i32, i32) -> i1
        %y = tor.if %c on (4 to 7) -> (i32) then {
          %t = tor.addi USE_B on (5 to 6) : (i32, i32) -> i32
          tor.yield %t : i32
        } else {
          tor.yield %a : i32
        }
        tor.yield %y : i32
      }
      aps.writerf %arg2, %r {starttime = 10 : i32, endtime = 11 : i32} : i5, i32
      tor.return
    }
  }
}
"#;

/// Seed 003: an input that two sub-blocks of a loop body need is dequeued once by the
/// body's distribution rule into one FIFO per consuming sub-block; a body that needs no
/// input has no distribution rule (and costs no extra cycle).
#[test]
fn fifo_style_distributes_only_needed_inputs() {
    let both = TWO_SUB_BLOCKS
        .replace("USE_A", "%acc %0")
        .replace("USE_B", "%a %0");
    let c = fifo_rules(&both);
    let dist = names(&c, |n| n.ends_with("_loop_input_distribution"));
    assert_eq!(dist.len(), 1, "{dist:?}");
    let copies = names(&c, |n| n.contains("_loop_dist_to_block"));
    // %x to both sub-blocks, %acc to the first.
    assert!(copies.len() >= 3, "{copies:?}");
    assert!(copies.iter().any(|n| n.contains("dist_to_block0")));
    assert!(copies.iter().any(|n| n.contains("dist_to_block1")));
    let none = TWO_SUB_BLOCKS
        .replace("USE_A", "%c1_i32 %c3_i32")
        .replace("USE_B", "%a %c1_i32");
    let c = fifo_rules(&none);
    let dist = names(&c, |n| n.ends_with("_loop_input_distribution"));
    assert!(dist.is_empty(), "{dist:?}");
    // Both run as the interpreter says, in every engine.
    for (tag, text) in [("both", &both), ("none", &none)] {
        let mut cases = Vec::new();
        check_text(tag, text, (7, 0), &BTreeMap::new(), &mut cases);
        for case in cases {
            sv_common::compare(&case.circuit, &case.cmds, case.mem, &case.tag);
        }
    }
}
