//! Both rule styles at scale: tor = rules = cmt2 = rtl on 320 generated functions per
//! style, and command streams of more than 20 commands (mixed instructions,
//! repeated instructions, memory handed from one command to a later one) on every engine.

mod common;
mod sv_common;

use compiler::aps::{self, Style, interp, workload};
use compiler::limits::Limits;
use compiler::rules::Circuit;
use compiler::rules::sim::{self, Command, SimConfig, SimResult};
use std::collections::BTreeMap;
use sv_common::Case;

/// Generated modules `(seed, pipelined loops)`, [`PER_MODULE`] functions each: 320
/// functions, 80 of them from the generator with pipelined loops.
const MODULES: [(u64, bool); 4] = [(301, false), (302, false), (303, false), (304, true)];
const PER_MODULE: usize = 80;

/// Function `f` in `style`.
fn styled(ctx: &aps::DesignContext, f: &compiler::mlir::ast::Operation, style: Style) -> Circuit {
    aps::build_function_styled(ctx, f, &Limits::DEFAULT, style)
        .unwrap_or_else(|d| panic!("{style}: {}", d.message))
        .0
}

/// tor = rules = cmt2 on every function of the generated modules in `style`, and the RTL
/// of every function (Icarus batches, [`sv_common::compare_batches`]) equals the rule
/// simulator's run cycle for cycle.
fn generated_functions_agree(style: Style) {
    let mut cases = Vec::new();
    let mut n = 0;
    for (seed, pipelined_loops) in MODULES {
        let text = workload::generate_with(PER_MODULE, seed, workload::Options { pipelined_loops });
        let m = compiler::mlir::parse(&text).unwrap_or_else(|d| panic!("{seed}: {}", d.message));
        let ctx = aps::design_context(&m).unwrap_or_else(|d| panic!("{seed}: {}", d.message));
        let mem = workload::cpu_memory(seed);
        let (rs1, rs2) = (workload::RS1, workload::RS2);
        for f in aps::functions(&m) {
            let c = styled(&ctx, f, style);
            let tag = format!("{style}/{seed}/{}", c.name);
            let got = common::tor_equals_rules(&tag, &ctx, f, &c, (rs1, rs2), &mem);
            let cmd = common::command(&c, rs1, rs2, 3);
            common::cmt2_runs_as(&tag, &c, std::slice::from_ref(&cmd), &mem, &got);
            cases.push(Case {
                tag: tag.replace(['/', '.'], "_"),
                circuit: c,
                cmds: vec![cmd],
                mem: mem.clone(),
            });
            n += 1;
        }
    }
    assert_eq!(n, MODULES.len() * PER_MODULE);
    if common::have_tool("iverilog") {
        let results = sv_common::compare_batches(&format!("scale-{style}"), cases);
        assert_eq!(results.len(), n);
        eprintln!("{style}: {n} functions agree in tor, rules, cmt2 and rtl");
    }
}

/// 320 generated functions (80 with pipelined loops) in the state machine style: tor =
/// rules = cmt2 = rtl on each (32 Icarus batches of 10). This file's four tests take
/// about 3 minutes together (release build, 2 cores); the fifo style's 320 alone, 150 s.
#[test]
fn fsm_generated_functions_agree_at_scale() {
    generated_functions_agree(Style::Fsm);
}

/// [`fsm_generated_functions_agree_at_scale`] in the fifo style.
#[test]
fn fifo_generated_functions_agree_at_scale() {
    generated_functions_agree(Style::Fifo);
}

/// Two instructions sharing CPU memory and scratchpad bank `buf_0`: `@put` (funct7 0)
/// stores rs2 to the CPU word at rs1 and to `buf_0[0]` in slot `store`, and answers rs2;
/// `@get` (funct7 1) loads the CPU word at rs1 and `buf_0[0]` in its first slot and
/// answers their sum. Slots 1 and 2 of `@put` hold a multiply and an add of rs2, so that
/// with `store` 3 its stores come three cycles after it started.
fn handoff(store: u32) -> String {
    let (stored, next) = match store {
        1 => ("%1", 2),
        _ => ("%w", store + 1),
    };
    format!(
        r#"module {{
  aps.memorymap {{
    aps.mem_entry "buf" : banks([@buf_0, @buf_1, @buf_2, @buf_3]), base(0), size(64), count(4), cyclic(1)
    aps.mem_finish
  }}
  tor.design @handoff {{
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    memref.global @buf_0 : memref<4xi32> = uninitialized
    memref.global @buf_1 : memref<4xi32> = uninitialized
    memref.global @buf_2 : memref<4xi32> = uninitialized
    memref.global @buf_3 : memref<4xi32> = uninitialized
    memref.global @_cpu_memory : memref<1xi32> = uninitialized
    tor.func @put(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {{funct7 = 0 : i32, opcode = 43 : i32, scheduled = true}} {{
      %0 = aps.readrf %arg0 {{starttime = 0 : i32, endtime = 1 : i32}} : i5 -> i32
      %1 = aps.readrf %arg1 {{starttime = 0 : i32, endtime = 1 : i32}} : i5 -> i32
      %cpu = memref.get_global @_cpu_memory : memref<1xi32> {{starttime = 0 : i32, endtime = 1 : i32}}
      %b = memref.get_global @buf_0 : memref<4xi32> {{starttime = 0 : i32, endtime = 1 : i32}}
      %v = tor.muli %1 %c1_i32 on (1 to 2) : (i32, i32) -> i32
      %w = tor.addi %v %c0_i32 on (2 to 3) : (i32, i32) -> i32
      aps.memstore {stored}, %b[%c0_i32] {{starttime = {store} : i32, endtime = {next} : i32}} : i32, memref<4xi32>, i32
      %t = "aps.itfc.store_req"({stored}, %cpu, %0) {{starttime = {store} : i32, endtime = {next} : i32}} : (i32, memref<1xi32>, i32) -> none
      "aps.itfc.store_collect"(%t) {{starttime = {next} : i32, endtime = {after} : i32}} : (none) -> ()
      aps.writerf %arg2, %w {{starttime = {after} : i32, endtime = {last} : i32}} : i5, i32
      tor.return
    }}
    tor.func @get(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {{funct7 = 1 : i32, opcode = 43 : i32, scheduled = true}} {{
      %0 = aps.readrf %arg0 {{starttime = 0 : i32, endtime = 1 : i32}} : i5 -> i32
      %cpu = memref.get_global @_cpu_memory : memref<1xi32> {{starttime = 0 : i32, endtime = 1 : i32}}
      %b = memref.get_global @buf_0 : memref<4xi32> {{starttime = 0 : i32, endtime = 1 : i32}}
      %q = "aps.itfc.load_req"(%cpu, %0) {{starttime = 0 : i32, endtime = 1 : i32}} : (memref<1xi32>, i32) -> none
      %v = aps.memload %b[%c0_i32] {{starttime = 0 : i32, endtime = 1 : i32}} : memref<4xi32>, i32 -> i32
      %a = "aps.itfc.load_collect"(%q) {{starttime = 1 : i32, endtime = 2 : i32}} : (none) -> i32
      %s = tor.muli %a %c1_i32 on (2 to 3) : (i32, i32) -> i32
      %r = tor.addi %s %v on (2 to 3) : (i32, i32) -> i32
      aps.writerf %arg2, %r {{starttime = 3 : i32, endtime = 4 : i32}} : i5, i32
      tor.return
    }}
  }}
}}
"#,
        after = next + 1,
        last = next + 2,
    )
}

/// A module's functions in `style`, merged into one circuit as `kiln build` writes it.
fn file_circuit(
    name: &str,
    ctx: &aps::DesignContext,
    m: &compiler::mlir::ast::ModuleAst,
    style: Style,
) -> Circuit {
    let cs = aps::functions(m)
        .into_iter()
        .map(|f| styled(ctx, f, style))
        .collect();
    aps::build_file_circuit(name, cs)
}

/// The command of function `func` of circuit `c`.
fn call(c: &Circuit, func: &str, rs1: u32, rs2: u32, rd: u32) -> Command {
    let i = (c.instructions.iter())
        .find(|i| i.function == func)
        .unwrap_or_else(|| panic!("no instruction {func}"));
    Command {
        opcode: i.opcode,
        funct7: i.funct7,
        rs1,
        rs2,
        rd,
    }
}

/// The untimed reference of a stream: the commands one after another on the TOR
/// interpreter, CPU memory, scratchpad banks and global registers handed from each to the
/// next (as `kiln sim --engine tor --commands` runs them). Responses `(rd, value)`.
fn tor_stream(
    ctx: &aps::DesignContext,
    m: &compiler::mlir::ast::ModuleAst,
    c: &Circuit,
    cmds: &[Command],
    mem: &BTreeMap<u32, u8>,
) -> (Vec<(u32, u32)>, BTreeMap<u32, u8>) {
    let mut state = interp::State::reset(ctx, mem.clone());
    let mut responses = Vec::new();
    for cmd in cmds {
        let i = (c.instructions.iter())
            .find(|i| (i.opcode, i.funct7) == (cmd.opcode, cmd.funct7))
            .unwrap();
        let f = aps::function_named(m, &i.function).unwrap();
        let r = interp::run_in(ctx, f, cmd.rs1, cmd.rs2, &mut state, 10_000_000)
            .unwrap_or_else(|d| panic!("{}: interpreter: {}", i.function, d.message));
        responses.extend(r.responses.iter().map(|v| (cmd.rd, *v)));
    }
    (responses, state.cpu_mem)
}

/// Responses `(rd, value)` ordered by rd (the timed engines answer in cycle order).
fn by_rd(mut r: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    r.sort();
    r
}

/// The timed engines' run of a stream: rules, and cmt2 equal to it; the RTL case.
fn timed(tag: &str, c: &Circuit, cmds: &[Command], mem: &BTreeMap<u32, u8>) -> (SimResult, Case) {
    let cfg = SimConfig::default();
    let got = sim::simulate(c, cmds, mem.clone(), &cfg)
        .unwrap_or_else(|e| panic!("{tag}: rule simulator: {e}"));
    common::cmt2_runs_as(tag, c, cmds, mem, &got);
    let case = Case {
        tag: tag.replace(['/', '.'], "_"),
        circuit: c.clone(),
        cmds: cmds.to_vec(),
        mem: mem.clone(),
    };
    (got, case)
}

fn responses(r: &SimResult) -> Vec<(u32, u32)> {
    r.responses.iter().map(|x| (x.rd, x.value)).collect()
}

fn seed_memory() -> BTreeMap<u32, u8> {
    let mut mem = BTreeMap::new();
    for i in 0..16u32 {
        sim::write_word(&mut mem, 0x1000 + 4 * i, i + 1);
        sim::write_word(&mut mem, 0x2000 + 4 * i, 101 + i);
    }
    mem
}

/// Streams of 24 to 32 commands issued back to back, in both styles, compared with the
/// TOR interpreter (tor = rules = cmt2 = rtl): commands overlap (of different instructions
/// in both styles, of one instruction in the fifo style where its dataflow allows), and the
/// memory locks keep every bank, register and CPU-memory access in program order:
/// - the seed example 24 times: each command adds the 16 words at rs2 to those at rs1 in
///   CPU memory, so every command reads what the one before it stored;
/// - each of 8 generated functions 4 times in a row (their banks and global registers are
///   handed from one command to the next);
/// - 32 commands of the 8 generated functions, mixed and repeated: they share the module's
///   banks and CPU memory;
/// - 24 commands of `@put` and `@get` in turn and repeated ([`handoff`], its stores in slot
///   1 or 3): every `@get` reads the CPU word and bank element the `@put` just before it
///   stored, also when `@put` stores late (a `@get` waits for `@put`'s memory locks).
fn streams_agree(style: Style) {
    let mut cases = Vec::new();
    // The seed example, 24 times.
    let text = std::fs::read_to_string(common::data("aps/flow_burst_add.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    let ctx = aps::design_context(&m).unwrap();
    let c = file_circuit("seed", &ctx, &m, style);
    let cmds: Vec<Command> = (0..24)
        .map(|k| call(&c, "flow_burst_add", 0x1000, 0x2000, 1 + k))
        .collect();
    let (want, want_mem) = tor_stream(&ctx, &m, &c, &cmds, &seed_memory());
    let (got, case) = timed(&format!("{style}/seed"), &c, &cmds, &seed_memory());
    assert_eq!(by_rd(responses(&got)), by_rd(want), "{style}: seed stream");
    assert_eq!(got.cpu_mem, want_mem, "{style}: seed stream, CPU memory");
    // rs1's first word after 24 commands: 1 + 24 × 101.
    assert_eq!(sim::read_word(&got.cpu_mem, 0x1000), 1 + 24 * 101);
    cases.push(case);

    // Generated functions: each 4 times in a row, then 32 mixed commands.
    let seed = 7;
    let text = workload::generate(8, seed);
    let m = compiler::mlir::parse(&text).unwrap();
    let ctx = aps::design_context(&m).unwrap();
    let c = file_circuit("gen8", &ctx, &m, style);
    let mem = workload::cpu_memory(seed);
    let (rs1, rs2) = (workload::RS1, workload::RS2);
    for (n, f) in aps::functions(&m).into_iter().enumerate() {
        // The function's own circuit (its RTL is smaller than the module's).
        let one = styled(&ctx, f, style);
        let four: Vec<Command> = (1..=4)
            .map(|rd| common::command(&one, rs1, rs2, rd))
            .collect();
        let four = four.as_slice();
        let tag = format!("{style}/gen8/f{n}x4");
        let (want, want_mem) = tor_stream(&ctx, &m, &one, four, &mem);
        let (got, case) = timed(&tag, &one, four, &mem);
        assert_eq!(by_rd(responses(&got)), by_rd(want), "{tag}");
        assert_eq!(got.cpu_mem, want_mem, "{tag}: CPU memory");
        cases.push(case);
    }
    let order = [
        0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 1, 1, 2, 2, 3, 3, 7, 6, 5, 4, 3, 2, 1, 0, 5, 5, 5, 2, 2, 2,
        7, 7,
    ];
    let mixed: Vec<Command> = (order.iter().enumerate())
        .map(|(k, f)| call(&c, &format!("f{f}"), rs1, rs2, 1 + k as u32 % 31))
        .collect();
    let (want, want_mem) = tor_stream(&ctx, &m, &c, &mixed, &mem);
    let (got, case) = timed(&format!("{style}/gen8/mixed"), &c, &mixed, &mem);
    assert_eq!(by_rd(responses(&got)), by_rd(want), "{style}: mixed stream");
    assert_eq!(got.cpu_mem, want_mem, "{style}: mixed stream, CPU memory");
    cases.push(case);

    // @put and @get.
    for store in [1, 3] {
        let text = handoff(store);
        let m = compiler::mlir::parse(&text).unwrap_or_else(|d| panic!("{}", d.message));
        let ctx = aps::design_context(&m).unwrap();
        let c = file_circuit("handoff", &ctx, &m, style);
        let mut cmds = Vec::new();
        for i in 0..8 {
            let a = 0x100 + 8 * i;
            let rd = 1 + 3 * i;
            cmds.push(call(&c, "put", a, 10 + i, rd));
            cmds.push(call(&c, "get", a, 0, rd + 1));
            cmds.push(call(&c, "put", a + 4, 100 + i, rd + 2));
        }
        let tag = format!("{style}/handoff{store}");
        let (want, want_mem) = tor_stream(&ctx, &m, &c, &cmds, &BTreeMap::new());
        let (got, case) = timed(&tag, &c, &cmds, &BTreeMap::new());
        assert_eq!(got.cpu_mem, want_mem, "{tag}: CPU memory");
        // The first @get: CPU word 10 plus bank element 10.
        assert_eq!(want[1], (2, 20), "{tag}");
        assert_eq!(by_rd(responses(&got)), by_rd(want), "{tag}");
        cases.push(case);
    }
    assert!(cases.iter().all(|c| c.cmds.len() >= 4));
    if common::have_tool("iverilog") {
        let n = cases.len();
        let results = sv_common::compare_batches(&format!("streams-{style}"), cases);
        assert_eq!(results.len(), n);
    }
}

#[test]
fn fsm_streams_agree() {
    streams_agree(Style::Fsm);
}

#[test]
fn fifo_streams_agree() {
    streams_agree(Style::Fifo);
}
