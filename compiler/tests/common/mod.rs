//! Helpers shared by the integration tests: where the repository's test data and the
//! optional `../shared` corpus live, and whether external oracle tools are required.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (parent of `compiler/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A BLIF file whose first model (`leaf`) is instantiated by the second (`top`, the root
/// ABC and yosys lower): the BLIF rule keeps `leaf` as the top, with a warning.
pub const LEAF_FIRST: &str = "\
.model leaf
.inputs u v
.outputs w
.names u v w
11 1
.end
.model top
.inputs a b
.outputs y
.subckt leaf u=a v=b w=t
.names t y
0 1
.end
";

/// `tests/data/<rel>` inside the repository.
pub fn data(rel: &str) -> PathBuf {
    repo_root().join("tests/data").join(rel)
}

/// True under CI (`CI=true`) or when `KILN_REQUIRE_EXTERNAL=1`: then a missing oracle tool
/// or a missing `../shared` corpus fails the test instead of skipping it.
pub fn strict() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
        || std::env::var("KILN_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1")
}

/// The shared corpus (`$KILN_SHARED_DIR`, else `../shared` beside the checkout).
/// `None` (test skipped, with a message) when absent outside CI; a panic under CI.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("KILN_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared"));
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        !strict(),
        "shared corpus {} is required under CI",
        dir.display()
    );
    eprintln!("skipping: shared corpus {} not present", dir.display());
    None
}

/// The shared corpus, when it is present and `tool` can be run (else the test is skipped,
/// or fails under CI, as [`shared_dir`] and [`have_tool`] say).
pub fn shared_dir_with(tool: &str) -> Option<PathBuf> {
    shared_dir().filter(|_| have_tool(tool))
}

/// Whether `tool` can be run. Under CI a missing tool is a failure, not a skip.
pub fn have_tool(tool: &str) -> bool {
    let ok = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok || !strict(),
        "required tool `{tool}` is not installed (CI must install it)"
    );
    if !ok {
        eprintln!("skipping: `{tool}` not installed");
    }
    ok
}

/// The command of the circuit's first instruction (its opcode and funct7).
pub fn command(
    c: &compiler::rules::Circuit,
    rs1: u32,
    rs2: u32,
    rd: u32,
) -> compiler::rules::sim::Command {
    let i = c
        .instructions
        .first()
        .expect("the circuit implements an instruction");
    compiler::rules::sim::Command {
        opcode: i.opcode,
        funct7: i.funct7,
        rs1,
        rs2,
        rd,
    }
}

/// The command generated function `n` answers (its identity), with the workload's rs1/rs2.
pub fn generated_command(n: usize, rd: u32) -> compiler::rules::sim::Command {
    let (opcode, funct7) = compiler::aps::workload::identity(n);
    compiler::rules::sim::Command {
        opcode,
        funct7,
        rs1: compiler::aps::workload::RS1,
        rs2: compiler::aps::workload::RS2,
        rd,
    }
}

/// Start taking the command of opcode `op` (funct7 0) in `b`: the guard that tests the
/// presented command (returned, for the rule) and the body's `cmd_deq` (its bundle).
pub fn take_cmd(
    b: &mut compiler::rules::BodyBuilder,
    op: u32,
) -> (
    (Vec<compiler::rules::Stmt>, compiler::rules::Var),
    compiler::rules::Var,
) {
    use compiler::rules::PrimOp;
    let body = std::mem::take(&mut b.stmts);
    let c = b.call_value("rocc", "cmd", vec![], 96);
    let got = b.prim(PrimOp::Bits { lo: 64 }, vec![c], 7);
    let want = b.konst(op as u128, 7);
    let g = b.prim(PrimOp::Eq, vec![got, want], 1);
    let guard = std::mem::replace(&mut b.stmts, body);
    let x = b.call_value("rocc", "cmd_deq", vec![], 96);
    ((guard, g), x)
}

/// Respond to the CPU in `b`: register `rd` gets `v`.
pub fn respond(b: &mut compiler::rules::BodyBuilder, rd: u128, v: compiler::rules::Var) {
    let rd = b.konst(rd, 5);
    b.call("rocc", "resp_from_user", vec![rd, v]);
}

/// A body that takes a 32-bit value from FIFO `fifo` and responds with it in register `rd`.
pub fn responder(fifo: &str, rd: u128) -> compiler::rules::BodyBuilder {
    let mut b = compiler::rules::BodyBuilder::new();
    let v = b.call_value(fifo, "deq", vec![], 32);
    respond(&mut b, rd, v);
    b
}

/// The RoCC port's instance, `rocc`, for hand-built circuits.
pub fn rocc() -> compiler::rules::Instance {
    compiler::rules::Instance {
        name: "rocc".into(),
        kind: compiler::rules::InstanceKind::Rocc,
    }
}

/// A 32-bit FIFO of depth 1 named `name`, for hand-built circuits.
pub fn fifo(name: &str) -> compiler::rules::Instance {
    compiler::rules::Instance {
        name: name.into(),
        kind: compiler::rules::InstanceKind::Fifo {
            width: 32,
            depth: 1,
        },
    }
}

/// An unguarded rule named `name` with the body built in `b`.
pub fn rule(name: &str, b: compiler::rules::BodyBuilder) -> compiler::rules::Rule {
    compiler::rules::Rule {
        name: name.into(),
        origin: "t".into(),
        guard: None,
        body: b.stmts,
    }
}

/// A rule named `name`, guarded on the command of opcode `op`, that takes the command and
/// enqueues its 32 bits from bit `lo` into each FIFO of `fifos`.
pub fn cmd_to_fifos(name: &str, op: u32, lo: u32, fifos: &[&str]) -> compiler::rules::Rule {
    let mut b = compiler::rules::BodyBuilder::new();
    let (guard, cmd) = take_cmd(&mut b, op);
    let x = b.prim(compiler::rules::PrimOp::Bits { lo }, vec![cmd], 32);
    for f in fifos {
        b.call(f, "enq", vec![x]);
    }
    compiler::rules::Rule {
        guard: Some(guard),
        ..rule(name, b)
    }
}

/// Output values of `g` for every input assignment (input 0 = least significant bit), latches
/// at 0.
pub fn truth(g: &compiler::aig::Aig) -> Vec<Vec<bool>> {
    let n = g.inputs().len();
    (0..1u32 << n)
        .map(|m| {
            let ins: Vec<bool> = (0..n).map(|i| m >> i & 1 == 1).collect();
            g.eval(&ins, &vec![false; g.latches().len()]).0
        })
        .collect()
}

/// The interpreter's results equal the simulator's on circuit `c` (one command).
pub fn tor_equals_rules(
    tag: &str,
    ctx: &compiler::aps::DesignContext,
    f: &compiler::mlir::ast::Operation,
    c: &compiler::rules::Circuit,
    rs: (u32, u32),
    mem: &std::collections::BTreeMap<u32, u8>,
) -> compiler::rules::sim::SimResult {
    let want = compiler::aps::interp::run(ctx, f, rs.0, rs.1, mem.clone(), 10_000_000)
        .unwrap_or_else(|d| panic!("{tag}: interpreter: {}", d.message));
    let cmd = command(c, rs.0, rs.1, 3);
    let got = compiler::rules::sim::simulate(
        c,
        &[cmd],
        mem.clone(),
        &compiler::rules::sim::SimConfig::default(),
    )
    .unwrap_or_else(|e| panic!("{tag}: rule simulator: {e}"));
    let values: Vec<u32> = got.responses.iter().map(|r| r.value).collect();
    assert_eq!(values, want.responses, "{tag}: responses");
    assert_eq!(got.cpu_mem, want.cpu_mem, "{tag}: CPU memory");
    for (bank, data) in &want.banks {
        assert_eq!(got.banks.get(bank), Some(data), "{tag}: bank {bank}");
    }
    for (g, v) in &want.globals {
        let r = got.regs.get(&format!("glbl_reg_{g}"));
        assert_eq!(r, Some(v), "{tag}: global {g}");
    }
    got
}

/// The circuit's CMT2 text, read back, runs `cmds` from `mem` as the rule simulator ran
/// the circuit itself (`rules`).
pub fn cmt2_runs_as(
    tag: &str,
    c: &compiler::rules::Circuit,
    cmds: &[compiler::rules::sim::Command],
    mem: &std::collections::BTreeMap<u32, u8>,
    rules: &compiler::rules::sim::SimResult,
) {
    let text = compiler::rules::emit_cmt2(c);
    let back = compiler::rules::read_cmt2(&text)
        .unwrap_or_else(|d| panic!("{tag}: {}", d.render(tag, &text)));
    let cfg = compiler::rules::sim::SimConfig::default();
    let run = compiler::rules::sim::simulate(&back, cmds, mem.clone(), &cfg);
    assert_eq!(run.as_ref(), Ok(rules), "{tag}: rules and cmt2 runs differ");
}

/// ABC's verdict (its standard output) on `net` against yosys's synthesis of the Verilog
/// `files` with top `top` (after `chparam`, e.g. `chparam -set W 3 top; `, or empty), both
/// written to BLIF in `dir` under `tag`: `cec` for a combinational net, `dsec` for one with
/// latches.
pub fn net_vs_verilog(
    net: &compiler::handshake::net::Net,
    files: &[PathBuf],
    top: &str,
    chparam: &str,
    dir: &Path,
    tag: &str,
) -> String {
    let reference = dir.join(format!("ref-{tag}.blif"));
    let reads: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let out = Command::new("yosys")
        .arg("-q")
        .arg("-p")
        .arg(format!(
            "read_verilog {}; {chparam}hierarchy -check -top {top}; proc; flatten; memory; opt -nodffe -nosdff; techmap; opt -nodffe -nosdff; abc -g AND; opt_clean; write_blif {}",
            reads.join(" "),
            reference.display()
        ))
        .output()
        .expect("run yosys");
    assert!(
        out.status.success(),
        "yosys: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = dir.join(format!("ours-{tag}.blif"));
    let cmd = if net.latches.is_empty() {
        "cec"
    } else {
        "dsec"
    };
    let aig = compiler::handshake::aig_io::to_aig(net, "unit");
    std::fs::write(&ours, compiler::aig::write_blif(&aig)).unwrap();
    let out = Command::new("berkeley-abc")
        .arg("-c")
        .arg(format!("{cmd} {} {}", reference.display(), ours.display()))
        .output()
        .expect("run berkeley-abc");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A small deterministic generator for randomised tests (xorshift64*; the seed must not be
/// 0).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
