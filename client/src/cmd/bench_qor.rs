//! `kiln bench qor [--kiln BEFORE]`: quality of the generated hardware — how many cycles
//! each APS instruction takes on the rule simulator and where they go, and how large the
//! SystemVerilog is — for the seed example (`examples/aps/flow_burst_add.mlir`), its
//! pipelined variant, the APS test programs (`tests/data/aps/*.mlir`) and a generated
//! corpus (`compiler::aps::workload`, `--functions`, `--seed`).
//!
//! Each binary (this one; with `--kiln`, also an older one, the "before" column) builds
//! every program as `kiln build FILE --emit sv` in a child process. Its rules JSON is read
//! back and simulated here, one command per instruction, with a cycle trace
//! ([`compiler::aps::qor`]): cycles split into slot, DMA-busy and overhead cycles, and per
//! loop cycles and slot firings per iteration (iterations from the TOR interpreter). The
//! SystemVerilog goes through `yosys synth` (cell count), the seed example through the
//! binary's own `kiln sim --engine rtl` (cycles, which must equal the rule simulator's).
//! Rules are told apart by name, so any kiln version's outputs can be measured.

use crate::io::Failure;
use compiler::aps::{self, qor, workload};
use compiler::rules::sim::{self, Command as Cmd, SimConfig};
use compiler::rules::{self, Circuit};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(clap::Args)]
pub struct Args {
    /// The "before" binary (e.g. a copy of main's `kiln`): measured next to this one.
    #[arg(long)]
    pub kiln: Option<PathBuf>,
    /// Functions in the generated corpus (at most 512).
    #[arg(long, default_value_t = 64)]
    pub functions: usize,
    /// Seed of the generated corpus.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The repository checkout holding `examples/aps` and `tests/data/aps`.
    #[arg(long, default_value = ".")]
    pub repo: PathBuf,
    /// Skip yosys (cell counts).
    #[arg(long)]
    pub no_yosys: bool,
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
    /// Cell counts and RTL cycles are reported for it.
    seed_example: bool,
}

/// What one binary made of one program.
#[derive(Default)]
struct Measured {
    reports: Vec<Result<qor::Report, String>>,
    cells: Option<u64>,
    rtl: Vec<(String, Option<u64>)>,
}

pub fn run(args: Args) -> Result<(), Failure> {
    if args.functions == 0 || args.functions > workload::MAX_FUNCTIONS {
        return Err(Failure::usage(format!(
            "--functions must be 1..={}",
            workload::MAX_FUNCTIONS
        )));
    }
    let tmp = super::bench::scratch_dir(true)?;
    let programs = programs(&args, tmp.path())?;
    let me = std::env::current_exe().map_err(|e| Failure::input(e.to_string()))?;
    let mut bins: Vec<(&str, PathBuf)> = Vec::new();
    if let Some(k) = &args.kiln {
        bins.push(("before", k.clone()));
    }
    bins.push(("after", me));
    let yosys = !args.no_yosys && have("yosys");
    let rtl = !args.no_rtl && have("iverilog");
    let mut results: Vec<Vec<Measured>> = Vec::new();
    for (label, bin) in &bins {
        eprintln!("measuring {label}: {}", bin.display());
        let mut per = Vec::new();
        for p in &programs {
            let out = tmp.path().join(label).join(&p.name);
            per.push(measure(bin, p, &out, yosys, rtl)?);
        }
        results.push(per);
    }
    print_tables(&bins, &programs, &results);
    Ok(())
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
    crate::io::write_atomic_unsynced(&corpus, text.as_bytes())?;
    out.push(Program {
        name: format!("corpus ({} functions, seed {})", args.functions, args.seed),
        path: corpus,
        generated: Some(args.seed),
        rs: (workload::RS1, workload::RS2),
        seed_example: true,
    });
    Ok(out)
}

/// Build `p` with `bin` into `out`, simulate each instruction, count cells, run the RTL.
fn measure(
    bin: &Path,
    p: &Program,
    out: &Path,
    yosys: bool,
    rtl: bool,
) -> Result<Measured, Failure> {
    let status = Command::new(bin)
        .arg("build")
        .arg(&p.path)
        .arg("--out-dir")
        .arg(out)
        .args(["--emit", "sv"])
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
            "  {}: no build ({})",
            p.name,
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
    let source = crate::io::read_source(&p.path)?;
    let mut m = Measured {
        reports: reports(&source, &circuit, p),
        ..Measured::default()
    };
    if yosys && p.seed_example {
        m.cells = cells(
            &out.join(format!("{stem}.sv")),
            &rules::sv::ident(&circuit.name),
        );
    }
    if rtl && p.seed_example && p.generated.is_none() {
        for ins in &circuit.instructions {
            let cycles = rtl_cycles(bin, &p.path, &ins.function, p.rs);
            m.rtl.push((ins.function.clone(), cycles));
        }
    }
    Ok(m)
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
            let cmd = Cmd {
                opcode: ins.opcode,
                funct7: ins.funct7,
                rs1,
                rs2,
                rd: 1,
            };
            let (r, trace) = sim::simulate_traced(circuit, &[cmd], mem, &SimConfig::default())
                .map_err(|e| format!("{}: {e}", ins.function))?;
            Ok(qor::report(circuit, ins, &r, &trace, &loops))
        })
        .collect()
}

/// `yosys synth` cell count of the design in `sv` (top `top`).
fn cells(sv: &Path, top: &str) -> Option<u64> {
    let script = format!("read_verilog -sv {}; synth -top {top}; stat", sv.display());
    let out = Command::new("yosys").args(["-p", &script]).output().ok()?;
    rules::sv::yosys_cells(&String::from_utf8_lossy(&out.stdout))
}

/// The binary's own `kiln sim --engine rtl` cycles for one instruction.
fn rtl_cycles(bin: &Path, file: &Path, func: &str, rs: (u32, u32)) -> Option<u64> {
    let out = Command::new(bin)
        .arg("sim")
        .arg(file)
        .args(["--func", func, "--engine", "rtl", "--json"])
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

fn print_tables(bins: &[(&str, PathBuf)], programs: &[Program], results: &[Vec<Measured>]) {
    let labels: Vec<&str> = bins.iter().map(|b| b.0).collect();
    println!("cycles per instruction (one command, rule simulator): total = slot + dma + overhead");
    println!(
        "  {:<44} {}",
        "program / instruction",
        labels
            .iter()
            .map(|l| format!("{:>26}", format!("{l}: cyc = slot+dma+ovh")))
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
                match r[pi].reports.get(k) {
                    Some(Ok(q)) => {
                        name = format!("{} / {}", p.name, q.function);
                        let t = &q.total;
                        cols.push_str(&format!(
                            "{:>26}",
                            format!("{} = {}+{}+{}", t.cycles, t.slot, t.dma, t.overhead)
                        ));
                    }
                    Some(Err(e)) => {
                        name = format!("{} / {k}", p.name);
                        cols.push_str(&format!("{:>26}", "error"));
                        eprintln!("  {}: {e}", p.name);
                    }
                    None => cols.push_str(&format!("{:>26}", "-")),
                }
            }
            println!("  {name:<44} {cols}");
        }
    }
    println!();
    println!(
        "totals (Σ over instructions; loops: Σ over every loop, nested loops also counted in their parents)"
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
        line("cycles", row(&|t| t.0.cycles));
        line("  slot cycles", row(&|t| t.0.slot));
        line("  DMA-busy cycles", row(&|t| t.0.dma));
        line("  overhead cycles", row(&|t| t.0.overhead));
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
        let cells: Vec<Option<u64>> = results.iter().map(|r| r[pi].cells).collect();
        if cells.iter().any(Option::is_some) {
            line(
                "yosys cells",
                cells.iter().map(|c| c.unwrap_or(0)).collect(),
            );
        }
        for (k, (f, _)) in results
            .last()
            .map(|r| r[pi].rtl.clone())
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let v: Vec<u64> = results
                .iter()
                .map(|r| r[pi].rtl.get(k).and_then(|x| x.1).unwrap_or(0))
                .collect();
            line(&format!("RTL cycles ({f})"), v);
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
