//! `kiln-bench qor [--kiln BEFORE] [--styles fsm,fifo]`: quality of the generated hardware —
//! how many cycles each APS instruction takes on the rule simulator and where they go, how
//! many cycles 100 back-to-back commands take (throughput), how many rules, registers and
//! FIFOs the rule IR instantiates, and how large the synthesised design is — for the seed
//! example (`examples/aps/flow_burst_add.mlir`), its pipelined variant, the APS test
//! programs (`tests/data/aps/*.mlir`) and a generated corpus (`compiler::aps::workload`,
//! `--functions`, `--seed`), in each rule style side by side.
//!
//! Each binary (the `kiln` next to `kiln-bench`; with `--kiln`, also an older one, the
//! "before" columns) builds
//! every program as `kiln build FILE --emit sv --style S` in a child process, once per
//! style. Its rules JSON is read back and simulated here: one command per instruction, with
//! a cycle trace ([`compiler::aps::qor`]): cycles split into slot, DMA-busy and overhead
//! cycles, and per loop cycles and slot firings per iteration (iterations from the TOR
//! interpreter); then 100 commands of each instruction back to back, and 100 commands
//! taking the instructions in turn (the total cycles of each stream). The SystemVerilog
//! goes through `yosys synth` (cell count, given up after `--yosys-timeout`), the seed
//! example through the binary's own `kiln sim --engine rtl` (cycles, which must equal the
//! rule simulator's). Rules are told apart by name, so any kiln version's outputs can be
//! measured (one without `--style` builds nothing here).

use crate::common::{Failure, kiln_binary, read_text, scratch_dir, write};
use compiler::aps::{self, Style, qor, workload};
use compiler::rules::sim::{self, Command as Cmd, SimConfig};
use compiler::rules::{self, Circuit, InstanceKind};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Commands per stream of the throughput figures.
const STREAM: usize = 100;

#[derive(clap::Args)]
pub struct Args {
    /// The "before" binary (e.g. a copy of main's `kiln`): measured beside the `kiln` next
    /// to `kiln-bench`.
    #[arg(long)]
    pub kiln: Option<PathBuf>,
    /// Functions in the generated corpus (at most 512).
    #[arg(long, default_value_t = 64)]
    pub functions: usize,
    /// Seed of the generated corpus.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The rule styles measured, side by side (each binary builds every program in each).
    #[arg(long, value_delimiter = ',', value_parser = parse_style, default_value = "fsm,fifo")]
    pub styles: Vec<Style>,
    /// The repository checkout holding `examples/aps` and `tests/data/aps`.
    #[arg(long, default_value = ".")]
    pub repo: PathBuf,
    /// Skip yosys (cell counts).
    #[arg(long)]
    pub no_yosys: bool,
    /// Give up one design's `yosys synth` after this many seconds (its cells: `timeout`).
    #[arg(long, default_value_t = 600)]
    pub yosys_timeout: u64,
    /// Skip the RTL runs of the seed example (Icarus Verilog).
    #[arg(long)]
    pub no_rtl: bool,
}

/// One input program and how its instructions are called.
struct Program {
    name: String,
    path: PathBuf,
    /// The corpus: commands and CPU memory of `workload`; else rs1/rs2 below, memory empty.
    generated: Option<u64>,
    rs: (u32, u32),
    /// RTL cycles are reported for it.
    seed_example: bool,
}

/// One column: a binary building in one style.
struct Column {
    label: String,
    bin: PathBuf,
    style: Style,
}

/// A design's `yosys synth` cell count.
#[derive(Clone, Copy)]
enum Cells {
    Count(u64),
    Timeout,
    Failed,
}

/// The cycles of a stream, or why it has none.
type Cycles = Result<u64, String>;

/// What one binary made of one program in one style.
#[derive(Default)]
struct Measured {
    reports: Vec<Result<qor::Report, String>>,
    /// Cycles of [`STREAM`] commands of each instruction back to back.
    streams: Vec<Cycles>,
    /// Cycles of [`STREAM`] commands taking the instructions in turn.
    mixed: Option<Cycles>,
    /// Rules, registers, FIFOs of the rule IR.
    counts: Option<(u64, u64, u64)>,
    cells: Option<Cells>,
    rtl: Vec<(String, Option<u64>)>,
}

pub fn run(args: Args) -> Result<(), Failure> {
    if args.functions == 0 || args.functions > workload::MAX_FUNCTIONS {
        return Err(Failure::usage(format!(
            "--functions must be 1..={}",
            workload::MAX_FUNCTIONS
        )));
    }
    let me = kiln_binary(None)?;
    let tmp = scratch_dir(true)?;
    let programs = programs(&args, tmp.path())?;
    let mut bins: Vec<(&str, PathBuf)> = Vec::new();
    if let Some(k) = &args.kiln {
        bins.push(("before", k.clone()));
    }
    bins.push(("after", me));
    let mut styles = args.styles.clone();
    styles.dedup();
    let two = bins.len() > 1;
    let columns: Vec<Column> = (bins.iter())
        .flat_map(|(label, bin)| {
            styles.iter().map(move |&style| Column {
                label: match two {
                    true => format!("{label} {style}"),
                    false => style.to_string(),
                },
                bin: bin.clone(),
                style,
            })
        })
        .collect();
    let yosys = (!args.no_yosys && have("yosys")).then(|| Duration::from_secs(args.yosys_timeout));
    let rtl = !args.no_rtl && have("iverilog");
    let mut results: Vec<Vec<Measured>> = Vec::new();
    for (ci, col) in columns.iter().enumerate() {
        eprintln!("measuring {}: {}", col.label, col.bin.display());
        let mut per = Vec::new();
        for p in &programs {
            let out = tmp.path().join(format!("c{ci}")).join(&p.name);
            per.push(measure(col, p, &out, yosys, rtl)?);
        }
        results.push(per);
    }
    print_tables(&columns, &programs, &results);
    Ok(())
}

fn parse_style(s: &str) -> Result<Style, String> {
    s.parse()
}

fn have(tool: &str) -> bool {
    let ok = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: `{tool}` not found, its columns are left out");
    }
    ok
}
fn programs(args: &Args, tmp: &Path) -> Result<Vec<Program>, Failure> {
    let data = args.repo.join("tests/data/aps");
    let seed = args.repo.join("examples/aps/flow_burst_add.mlir");
    if !seed.is_file() || !data.is_dir() {
        return Err(Failure::usage(format!(
            "{} is not a kiln checkout (no examples/aps or tests/data/aps); see --repo",
            args.repo.display()
        )));
    }
    let example = |name: &str, path: PathBuf| Program {
        name: name.into(),
        path,
        generated: None,
        rs: (0x1000, 0x2000),
        seed_example: true,
    };
    let mut out = vec![example("flow_burst_add", seed)];
    let piped = data.join("flow_burst_add_pipelined.mlir");
    if piped.is_file() {
        out.push(example("flow_burst_add_pipelined", piped));
    }
    let mut tests: Vec<PathBuf> = std::fs::read_dir(&data)
        .map_err(|e| Failure::input(format!("{}: {e}", data.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .filter(|p| !p.to_string_lossy().contains("flow_burst_add"))
        .collect();
    tests.sort();
    for path in tests {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        out.push(Program {
            name,
            path,
            generated: None,
            rs: (3, 7),
            seed_example: false,
        });
    }
    let corpus = tmp.join("corpus.mlir");
    let text = workload::generate(args.functions, args.seed);
    write(&corpus, text.as_bytes())?;
    out.push(Program {
        name: format!("corpus ({} functions, seed {})", args.functions, args.seed),
        path: corpus,
        generated: Some(args.seed),
        rs: (workload::RS1, workload::RS2),
        seed_example: true,
    });
    Ok(out)
}

/// Build `p` with `col`'s binary in its style into `out`, simulate each instruction (one
/// command, then streams), count instances and cells, run the RTL.
fn measure(
    col: &Column,
    p: &Program,
    out: &Path,
    yosys: Option<Duration>,
    rtl: bool,
) -> Result<Measured, Failure> {
    let bin = &col.bin;
    let status = Command::new(bin)
        .arg("build")
        .arg(&p.path)
        .arg("--out-dir")
        .arg(out)
        .args(["--emit", "sv", "--style", col.style.name()])
        .env("KILN_NO_DAEMON", "1")
        .output()
        .map_err(|e| Failure::input(format!("cannot run {}: {e}", bin.display())))?;
    let stem = p
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let json = out.join(format!("{stem}.rules.json"));
    if !status.status.success() || !json.is_file() {
        // A program this binary does not build (e.g. a newer test) has no figures.
        eprintln!(
            "  {} ({}): no build ({})",
            p.name,
            col.label,
            String::from_utf8_lossy(&status.stderr)
                .lines()
                .next()
                .unwrap_or("")
        );
        return Ok(Measured::default());
    }
    let text = std::fs::read_to_string(&json)
        .map_err(|e| Failure::input(format!("{}: {e}", json.display())))?;
    let circuit: Circuit = serde_json::from_str(&text)
        .map_err(|e| Failure::input(format!("{}: {e}", json.display())))?;
    let source = read_text(&p.path)?;
    let reports = reports(&source, &circuit, p);
    let (streams, mixed) = streams(&circuit, p, &reports);
    let mut m = Measured {
        reports,
        streams,
        mixed,
        counts: Some(counts(&circuit)),
        ..Measured::default()
    };
    if let Some(limit) = yosys {
        let sv = out.join(format!("{stem}.sv"));
        // The top: `main` (the SoC convention's default), the circuit's name before it.
        let text = std::fs::read_to_string(&sv).unwrap_or_default();
        let top = match text.contains(&format!("module {}", rules::sv::DEFAULT_TOP)) {
            true => rules::sv::DEFAULT_TOP.to_string(),
            false => rules::sv::ident(&circuit.name),
        };
        m.cells = Some(cells(&sv, &top, limit));
    }
    if rtl && p.seed_example && p.generated.is_none() {
        for ins in &circuit.instructions {
            let cycles = rtl_cycles(bin, col.style, &p.path, &ins.function, p.rs);
            m.rtl.push((ins.function.clone(), cycles));
        }
    }
    Ok(m)
}

/// `c` without the rules of its other instructions: the same runs for commands of `ins`
/// (no other instruction's rule fires without its command), tried faster.
fn only(c: &Circuit, ins: &rules::Instruction) -> Circuit {
    let others: Vec<String> = (c.instructions.iter())
        .filter(|i| *i != ins)
        // `inst<id>_pc` without `pc`: the instruction's prefix.
        .map(|i| i.pc_register().trim_end_matches("pc").to_string())
        .collect();
    let keep = |n: &str| !others.iter().any(|p| n.starts_with(p.as_str()));
    Circuit {
        name: c.name.clone(),
        instructions: vec![ins.clone()],
        instances: c.instances.clone(),
        rules: c.rules.iter().filter(|r| keep(&r.name)).cloned().collect(),
        precedence: (c.precedence.iter())
            .filter(|(a, b)| keep(a) && keep(b))
            .cloned()
            .collect(),
        schedule: c.schedule.iter().filter(|r| keep(r)).cloned().collect(),
    }
}

/// Rules, registers and FIFOs of a circuit.
fn counts(c: &Circuit) -> (u64, u64, u64) {
    let of = |f: fn(&InstanceKind) -> bool| c.instances.iter().filter(|i| f(&i.kind)).count();
    (
        c.rules.len() as u64,
        of(|k| matches!(k, InstanceKind::Reg { .. })) as u64,
        of(|k| matches!(k, InstanceKind::Fifo { .. })) as u64,
    )
}

/// The command of instruction `ins` of program `p` (responding in `rd`).
fn command(ins: &rules::Instruction, p: &Program, rd: u32) -> Cmd {
    Cmd {
        opcode: ins.opcode,
        funct7: ins.funct7,
        rs1: p.rs.0,
        rs2: p.rs.1,
        rd,
    }
}

/// The cycles of [`STREAM`] commands of each instruction back to back, and of [`STREAM`]
/// commands taking the instructions in turn (programs of two or more instructions), for
/// the instructions whose one command ran (`reports`); a stream may take at most twice
/// [`STREAM`] times its slowest command's cycles.
fn streams(
    circuit: &Circuit,
    p: &Program,
    reports: &[Result<qor::Report, String>],
) -> (Vec<Cycles>, Option<Cycles>) {
    let mem = p.generated.map(workload::cpu_memory).unwrap_or_default();
    let run = |cmds: &[Cmd], one: u64| {
        let cfg = SimConfig {
            max_cycles: 2 * STREAM as u64 * one + 10_000,
            ..SimConfig::default()
        };
        sim::simulate(circuit, cmds, mem.clone(), &cfg)
            .map(|r| r.cycles)
            .map_err(|e| e.to_string())
    };
    let rd = |k: usize| 1 + (k % 31) as u32;
    let each: Vec<Cycles> = (circuit.instructions.iter().enumerate())
        .map(|(i, ins)| {
            let one = match reports.get(i) {
                Some(Ok(r)) => r.total.cycles,
                _ => return Err(format!("{}: no run of one command", ins.function)),
            };
            let cmds: Vec<Cmd> = (0..STREAM).map(|k| command(ins, p, rd(k))).collect();
            let cfg = SimConfig {
                max_cycles: 2 * STREAM as u64 * one + 10_000,
                ..SimConfig::default()
            };
            sim::simulate(&only(circuit, ins), &cmds, mem.clone(), &cfg)
                .map(|r| r.cycles)
                .map_err(|e| format!("{} ×{STREAM}: {e}", ins.function))
        })
        .collect();
    let n = circuit.instructions.len();
    let slowest = (reports.iter())
        .map(|r| r.as_ref().map(|r| r.total.cycles))
        .collect::<Result<Vec<u64>, _>>()
        .ok()
        .and_then(|v| v.into_iter().max());
    let mixed = slowest.filter(|_| n > 1).map(|one| {
        let cmds: Vec<Cmd> = (0..STREAM)
            .map(|k| command(&circuit.instructions[k % n], p, rd(k)))
            .collect();
        run(&cmds, one).map_err(|e| format!("{STREAM} commands in turn: {e}"))
    });
    (each, mixed)
}
/// One command per instruction of `circuit`, simulated with a trace.
fn reports(source: &str, circuit: &Circuit, p: &Program) -> Vec<Result<qor::Report, String>> {
    let module = match compiler::mlir::parse(source) {
        Ok(m) => m,
        Err(d) => return vec![Err(d.message)],
    };
    let ctx = match aps::design_context(&module) {
        Ok(c) => c,
        Err(d) => return vec![Err(d.message)],
    };
    let funcs = aps::functions(&module);
    circuit
        .instructions
        .iter()
        .enumerate()
        .map(|(n, ins)| {
            let f = aps::function_named(&module, &ins.function)
                .or_else(|| funcs.get(n).copied())
                .ok_or_else(|| format!("no function `{}`", ins.function))?;
            let (rs1, rs2) = p.rs;
            let mem = p.generated.map(workload::cpu_memory).unwrap_or_default();
            let run = aps::interp::run(&ctx, f, rs1, rs2, mem.clone(), 10_000_000)
                .map_err(|d| format!("{}: interpreter: {}", ins.function, d.message))?;
            let loops = aps::segment_function(&ctx, f)
                .map(|seg| qor::loops(&seg, &run))
                .unwrap_or_default();
            let cmd = command(ins, p, 1);
            let (r, trace) = sim::simulate_traced(circuit, &[cmd], mem, &SimConfig::default())
                .map_err(|e| format!("{}: {e}", ins.function))?;
            Ok(qor::report(circuit, ins, &r, &trace, &loops))
        })
        .collect()
}

/// `yosys synth` cell count of the design in `sv` (top `top`), given up after `limit`.
fn cells(sv: &Path, top: &str, limit: Duration) -> Cells {
    let log = sv.with_extension("yosys.log");
    let Ok(file) = std::fs::File::create(&log) else {
        return Cells::Failed;
    };
    // Run in the file's directory: yosys's script splits a path at spaces.
    let (Some(dir), Some(name)) = (sv.parent(), sv.file_name()) else {
        return Cells::Failed;
    };
    let script = format!(
        "read_verilog -sv {}; synth -top {top}; stat",
        name.to_string_lossy()
    );
    let child = Command::new("yosys")
        .args(["-p", &script])
        .current_dir(dir)
        .stdout(file)
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return Cells::Failed;
    };
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(100)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                eprintln!(
                    "  yosys on {}: gave up after {} s",
                    sv.display(),
                    limit.as_secs()
                );
                return Cells::Timeout;
            }
        }
    }
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    rules::sv::yosys_cells(&text).map_or(Cells::Failed, Cells::Count)
}

/// The binary's own `kiln sim --engine rtl` cycles for one instruction.
fn rtl_cycles(bin: &Path, style: Style, file: &Path, func: &str, rs: (u32, u32)) -> Option<u64> {
    let out = Command::new(bin)
        .arg("sim")
        .arg(file)
        .args(["--func", func, "--engine", "rtl", "--json"])
        .args(["--style", style.name()])
        .args(["--rs1", &rs.0.to_string(), "--rs2", &rs.1.to_string()])
        .output()
        .ok()?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    v.get("cycles")?.as_u64()
}

fn ratio(a: u64, b: u64) -> String {
    if a == 0 {
        return "-".into();
    }
    format!("{:.2}", b as f64 / a as f64)
}

/// Column width of the per-instruction table.
const W: usize = 34;

fn print_tables(columns: &[Column], programs: &[Program], results: &[Vec<Measured>]) {
    println!(
        "cycles per instruction (rule simulator): one command: total = slot + dma + overhead; \
         {STREAM} commands of it back to back: total"
    );
    println!(
        "  {:<44} {}",
        "program / instruction",
        (columns.iter())
            .map(|c| format!(
                "{:>W$}",
                format!("{}: cyc = slot+dma+ovh | ×{STREAM}", c.label)
            ))
            .collect::<Vec<_>>()
            .join("")
    );
    for (pi, p) in programs.iter().enumerate() {
        if p.generated.is_some() {
            continue;
        }
        let n = results
            .iter()
            .map(|r| r[pi].reports.len())
            .max()
            .unwrap_or(0);
        for k in 0..n {
            let mut name = String::new();
            let mut cols = String::new();
            for r in results {
                let stream = match r[pi].streams.get(k) {
                    Some(Ok(c)) => c.to_string(),
                    Some(Err(e)) => {
                        eprintln!("  {}: {e}", p.name);
                        "error".into()
                    }
                    None => "-".into(),
                };
                match r[pi].reports.get(k) {
                    Some(Ok(q)) => {
                        name = format!("{} / {}", p.name, q.function);
                        let t = &q.total;
                        cols.push_str(&format!(
                            "{:>W$}",
                            format!(
                                "{} = {}+{}+{} | {stream}",
                                t.cycles, t.slot, t.dma, t.overhead
                            )
                        ));
                    }
                    Some(Err(e)) => {
                        name = format!("{} / {k}", p.name);
                        cols.push_str(&format!("{:>W$}", format!("error | {stream}")));
                        eprintln!("  {}: {e}", p.name);
                    }
                    None => cols.push_str(&format!("{:>W$}", "-")),
                }
            }
            println!("  {name:<44} {cols}");
        }
    }
    println!();
    println!(
        "totals (Σ over instructions; loops: Σ over every loop, nested loops also counted in their parents)"
    );
    println!(
        "  {:<36}{}",
        "",
        (columns.iter())
            .map(|c| format!("{:>12}", c.label))
            .collect::<String>()
    );
    let totals: Vec<Vec<(qor::Breakdown, Loops)>> = results
        .iter()
        .map(|r| r.iter().map(|m| totals(&m.reports)).collect())
        .collect();
    for (pi, p) in programs.iter().enumerate() {
        let row = |f: &dyn Fn(&(qor::Breakdown, Loops)) -> u64| -> Vec<u64> {
            totals.iter().map(|t| f(&t[pi])).collect()
        };
        println!("  {}", p.name);
        let line = |what: &str, v: Vec<u64>| {
            let cols: String = v.iter().map(|x| format!("{x:>12}")).collect();
            let change = match v.as_slice() {
                [a, b] => format!("  ×{}", ratio(*a, *b)),
                _ => String::new(),
            };
            println!("    {what:<34}{cols}{change}");
        };
        // A row some of whose columns have no figure (an error, a timeout).
        let line_or = |what: &str, v: Vec<Result<u64, &str>>| {
            if v.iter().all(|x| x.is_ok()) {
                return line(what, v.into_iter().map(|x| x.unwrap_or(0)).collect());
            }
            let cols: String = (v.iter())
                .map(|x| match x {
                    Ok(x) => format!("{x:>12}"),
                    Err(e) => format!("{e:>12}"),
                })
                .collect();
            println!("    {what:<34}{cols}");
        };
        line("cycles", row(&|t| t.0.cycles));
        line("  slot cycles", row(&|t| t.0.slot));
        line("  DMA-busy cycles", row(&|t| t.0.dma));
        line("  overhead cycles", row(&|t| t.0.overhead));
        let stream_sum = |m: &Measured| -> Result<u64, &'static str> {
            if m.streams.is_empty() {
                return Err("-");
            }
            (m.streams.iter())
                .map(|s| s.as_ref().copied().map_err(|_| "error"))
                .sum::<Result<u64, _>>()
        };
        line_or(
            &format!("cycles of {STREAM} commands each"),
            results.iter().map(|r| stream_sum(&r[pi])).collect(),
        );
        let per_command: Vec<String> = (results.iter().zip(&totals))
            .map(|(r, t)| match stream_sum(&r[pi]) {
                Ok(s) if t[pi].0.cycles > 0 => format!(
                    "{:>12}",
                    format!("{:.2}", s as f64 / (STREAM as u64 * t[pi].0.cycles) as f64)
                ),
                _ => format!("{:>12}", "-"),
            })
            .collect();
        println!(
            "    {:<34}{}",
            format!("  ÷ ({STREAM} × one command's)"),
            per_command.concat()
        );
        if results.iter().any(|r| r[pi].mixed.is_some()) {
            line_or(
                &format!("cycles of {STREAM} in turn"),
                (results.iter())
                    .map(|r| match &r[pi].mixed {
                        Some(Ok(c)) => Ok(*c),
                        Some(Err(e)) => {
                            eprintln!("  {}: {e}", p.name);
                            Err("error")
                        }
                        None => Err("-"),
                    })
                    .collect(),
            );
        }
        line("loop iterations", row(&|t| t.1.iterations));
        line("  cycles in loops", row(&|t| t.1.cycles));
        line("  slot firings in loops", row(&|t| t.1.slot_firings));
        line("  DMA-busy cycles in loops", row(&|t| t.1.dma));
        line("  overhead cycles in loops", row(&|t| t.1.overhead));
        let per_iter: Vec<String> = totals
            .iter()
            .map(|t| {
                let l = &t[pi].1;
                if l.iterations == 0 {
                    format!("{:>12}", "-")
                } else {
                    format!(
                        "{:>12}",
                        format!(
                            "{:.2}/{:.2}",
                            l.cycles as f64 / l.iterations as f64,
                            l.slot_firings as f64 / l.iterations as f64
                        )
                    )
                }
            })
            .collect();
        println!(
            "    {:<34}{}",
            "  cycles/slots per iteration",
            per_iter.concat()
        );
        let count = |f: fn(&(u64, u64, u64)) -> u64| -> Vec<Result<u64, &str>> {
            (results.iter())
                .map(|r| r[pi].counts.as_ref().map(f).ok_or("-"))
                .collect()
        };
        line_or("rules", count(|c| c.0));
        line_or("registers", count(|c| c.1));
        line_or("FIFOs", count(|c| c.2));
        if results.iter().any(|r| r[pi].cells.is_some()) {
            line_or(
                "yosys cells",
                (results.iter())
                    .map(|r| match r[pi].cells {
                        Some(Cells::Count(c)) => Ok(c),
                        Some(Cells::Timeout) => Err("timeout"),
                        Some(Cells::Failed) => Err("failed"),
                        None => Err("-"),
                    })
                    .collect(),
            );
        }
        let rtl_funcs: Vec<String> = (results.iter())
            .flat_map(|r| r[pi].rtl.iter().map(|x| x.0.clone()))
            .fold(Vec::new(), |mut v, f| {
                if !v.contains(&f) {
                    v.push(f);
                }
                v
            });
        for f in rtl_funcs {
            let v: Vec<Result<u64, &str>> = (results.iter())
                .map(|r| {
                    (r[pi].rtl.iter())
                        .find(|x| x.0 == f)
                        .and_then(|x| x.1)
                        .ok_or("-")
                })
                .collect();
            line_or(&format!("RTL cycles ({f})"), v);
        }
    }
}

/// Loop figures summed over a program's instructions.
#[derive(Default)]
struct Loops {
    iterations: u64,
    cycles: u64,
    slot_firings: u64,
    dma: u64,
    overhead: u64,
}

fn totals(reports: &[Result<qor::Report, String>]) -> (qor::Breakdown, Loops) {
    let mut b = qor::Breakdown::default();
    let mut l = Loops::default();
    // Every loop, nested ones too (their cycles count in their parents' as well).
    for r in reports.iter().filter_map(|r| r.as_ref().ok()) {
        b.add(&r.total);
        for lp in &r.loops {
            l.iterations += lp.iterations;
            l.cycles += lp.cycles.cycles;
            l.slot_firings += lp.slot_firings;
            l.dma += lp.cycles.dma;
            l.overhead += lp.cycles.overhead;
        }
    }
    (b, l)
}
