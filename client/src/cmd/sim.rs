//! `kiln sim FILE.mlir --func NAME --engine tor|rules|cmt2|rtl --rs1 N --rs2 N [--rd N]
//! [--cpu-mem MEM.json] [--json] [--trace|--trace-json]`: run one APS instruction on the TOR interpreter, the rule
//! simulator, the rule simulator on the circuit read back from its CMT2 text, or the
//! generated RTL under Icarus Verilog.
//!
//! Output (`--json`), the same shape for every engine: `{"responses":[{"rd":R,"value":V}],
//! "cpu_mem":[{"addr":A,"i32":[...]}], "cycles":C}` (`cycles` for the timed engines).
//! `cpu_mem` lists every word that was initialised or written (a written 0 included), as
//! runs of consecutive words. `MEM.json` uses the same segment list for the initial CPU
//! memory. FILE may also be a `.cmt2.mlir` that `kiln build` wrote (engine `cmt2` only):
//! the function's instruction identity is then taken from the file.

use crate::io::{self, Failure};
use compiler::aps;
use compiler::flow::Flow;
use compiler::rules::{
    self,
    sim::{self, Command, SimConfig},
};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::PathBuf;

impl Engine {
    fn name(self) -> &'static str {
        match self {
            Engine::Tor => "tor",
            Engine::Rules => "rules",
            Engine::Cmt2 => "cmt2",
            Engine::Rtl => "rtl",
            Engine::Verilator => "verilator",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    Tor,
    Rules,
    /// The rule simulator on the circuit read back from the emitted CMT2 text.
    Cmt2,
    /// The generated SystemVerilog under Icarus Verilog (see `rtl.rs`).
    Rtl,
    /// The generated SystemVerilog, Verilated, driven through the SoC port convention's
    /// ports by kiln's harness (see `verilator.rs`; built once per design and cached).
    Verilator,
}

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln sim examples/aps/flow_burst_add.mlir --func flow_burst_add --rs1 0x1000 --rs2 0x2000
  kiln sim design.mlir --func f --engine tor --json         the untimed reference
  kiln sim out/design.cmt2.mlir --func f --engine cmt2      the emitted CMT2, read back
  kiln sim design.mlir --func f --engine rtl --cpu-mem mem.json   Icarus Verilog
  kiln sim design.mlir --func f --engine verilator        Verilator, through the SoC ports")]
pub struct Args {
    /// An APS MLIR file (or a `.cmt2.mlir` that `kiln build` wrote, with `--engine cmt2`).
    pub file: PathBuf,
    /// The `tor.func` to run.
    #[arg(long = "func")]
    pub func: String,
    #[arg(long, value_enum, default_value = "rules")]
    pub engine: Engine,
    /// The architecture of the function's rules: `fsm` (one program-counter state machine)
    /// or `fifo` (per-slot rules, cross-slot and token FIFOs, input distribution)
    /// [default: `style` of kiln.toml, else fsm]
    #[arg(long, value_name = "STYLE", value_parser = parse_style)]
    pub style: Option<aps::Style>,
    /// Value of rs1 (decimal or 0x-hex).
    #[arg(long, value_parser = parse_u32, default_value = "0")]
    pub rs1: u32,
    #[arg(long, value_parser = parse_u32, default_value = "0")]
    pub rs2: u32,
    /// The destination register of the command (0..31); responses name it.
    #[arg(long, value_parser = parse_rd, default_value = "1")]
    pub rd: u32,
    /// Initial CPU memory: `[{"addr":A,"i32":[...]}]`.
    #[arg(long)]
    pub cpu_mem: Option<PathBuf>,
    /// Idle cycles of the DMA engine before each request's first beat (the reference
    /// environment's engine moves one 8-byte beat per cycle).
    #[arg(long, default_value_t = 0)]
    pub dma_latency: u32,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Print what the rule simulator did, cycle by cycle, before the result: each rule that
    /// fired and its effects (commands, responses, FIFOs, registers, banks, DMA, CPU memory)
    /// and the DMA beats at clock edges (engines `rules` and `cmt2`)
    #[arg(long, conflicts_with = "trace_json")]
    pub trace: bool,
    /// `--trace` as JSON Lines: one object per event (`{"cycle":C,"event":"fire","rule":R}`)
    #[arg(long)]
    pub trace_json: bool,
    /// Write the run's waveforms to this VCD file: every register, FIFO count and head,
    /// rule `will_fire` and RoCC/DMA/CPU-memory port activity, cycle by cycle, by function;
    /// the same signals and values from every timed engine (`rules`, `cmt2`, `rtl`)
    #[arg(long, value_name = "FILE")]
    pub vcd: Option<PathBuf>,
    /// Try every rule every cycle (no index of the rules by their guards): the same
    /// results, for measuring the index (`kiln bench aps --slots`).
    #[arg(long, hide = true)]
    pub every_rule: bool,
}

pub(crate) fn parse_u32(s: &str) -> Result<u32, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).map_err(|e| e.to_string()),
        None => s.parse::<i64>().map_err(|e| e.to_string()).and_then(|v| {
            if (-(1i64 << 31)..(1i64 << 32)).contains(&v) {
                Ok(v as u32)
            } else {
                Err("out of range".into())
            }
        }),
    };
    r.map_err(|e| format!("`{s}`: {e}"))
}

pub(crate) fn parse_style(s: &str) -> Result<aps::Style, String> {
    s.parse()
}

pub(crate) fn parse_rd(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(v) if v < 32 => Ok(v),
        _ => Err(format!("`{s}`: a register number 0..31")),
    }
}

pub(crate) fn read_mem(path: &std::path::Path) -> Result<BTreeMap<u32, u8>, Failure> {
    let text = io::read_source(path)?;
    let bad = |m: String| Failure::input(format!("{}: error: {m}", path.display()));
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let mut mem = BTreeMap::new();
    for seg in v
        .as_array()
        .ok_or_else(|| bad("expected a list of segments".into()))?
    {
        let addr = seg["addr"]
            .as_u64()
            .ok_or_else(|| bad("segment without `addr`".into()))? as u32;
        let words = seg["i32"]
            .as_array()
            .ok_or_else(|| bad("segment without `i32`".into()))?;
        for (i, w) in words.iter().enumerate() {
            let w = w.as_i64().ok_or_else(|| bad("non-integer word".into()))?;
            sim::write_word(&mut mem, addr.wrapping_add(4 * i as u32), w as u32);
        }
    }
    Ok(mem)
}

/// CPU memory as runs of consecutive aligned words.
fn mem_segments(mem: &BTreeMap<u32, u8>) -> serde_json::Value {
    let words: std::collections::BTreeSet<u32> = mem.keys().map(|a| a & !3).collect();
    let mut segs: Vec<(u32, Vec<i32>)> = Vec::new();
    for a in words {
        let w = sim::read_word(mem, a) as i32;
        match segs.last_mut() {
            Some((start, ws)) if *start + 4 * ws.len() as u32 == a => ws.push(w),
            _ => segs.push((a, vec![w])),
        }
    }
    json!(
        segs.into_iter()
            .map(|(a, ws)| json!({"addr": a, "i32": ws}))
            .collect::<Vec<_>>()
    )
}

pub fn run(args: Args) -> Result<(), Failure> {
    let path = args.file.display().to_string();
    let text = io::read_source(&args.file)?;
    let mem = match &args.cpu_mem {
        Some(p) => read_mem(p)?,
        None => BTreeMap::new(),
    };
    let cfg = SimConfig {
        dma_latency: args.dma_latency,
        dispatch: !args.every_rule,
        ..SimConfig::default()
    };
    let sim_failure = |e: sim::SimError| {
        let message = format!("rule simulation of `@{}`: {e}", args.func);
        Failure::located(vec![io::file_error(&args.file, e.code(), message)])
    };
    // A CMT2 file written by `kiln build`: the circuit of the whole file, read back.
    if text.contains("cmt2.circuit") && !text.contains("tor.design") {
        if args.engine != Engine::Cmt2 {
            return Err(Failure::input(format!(
                "{path}: error: a CMT2 file runs on `--engine cmt2` only"
            )));
        }
        let fail = |d| Failure::diagnostics(&[Flow::Aps.coded(d)], &path, &text);
        let circuit = rules::read_cmt2(&text).map_err(fail)?;
        let ins = circuit
            .instructions
            .iter()
            .find(|i| i.function == args.func)
            .ok_or_else(|| {
                Failure::input(format!("{path}: error: no instruction `@{}`", args.func))
            })?;
        let cmd = command(ins.opcode, ins.funct7, &args);
        let r = simulate(&args, &circuit, cmd, mem, &cfg, sim_failure)?;
        return report(&args, responses(&r.responses), &r.cpu_mem, Some(r.cycles));
    }
    if (args.trace || args.trace_json)
        && matches!(args.engine, Engine::Tor | Engine::Rtl | Engine::Verilator)
    {
        return Err(Failure::usage(
            "error: --trace and --trace-json record the rule simulator: engines `rules` and `cmt2`",
        ));
    }
    if args.vcd.is_some() && matches!(args.engine, Engine::Tor | Engine::Verilator) {
        return Err(Failure::usage(
            "error: --vcd needs a timed engine with waveforms: `rules`, `cmt2` or `rtl`",
        ));
    }
    let fail = |d| Failure::diagnostics(&[Flow::Aps.coded(d)], &path, &text);
    let limits = kiln_daemon::input::limits();
    let style = (args.style)
        .or_else(|| crate::config::get().style())
        .unwrap_or_default();
    let module = compiler::mlir::parse_with(&text, &limits).map_err(fail)?;
    let ctx = aps::design_context(&module).map_err(fail)?;
    let func = aps::function_named(&module, &args.func)
        .ok_or_else(|| Failure::input(format!("{path}: error: no function `@{}`", args.func)))?;
    let (values, mem, cycles) = match args.engine {
        Engine::Rtl => {
            let circuit = aps::build_function_styled(&ctx, func, &limits, style)
                .map(|(c, _)| c)
                .map_err(fail)?;
            let cmd = command_of(&circuit, &args);
            let (v, m, c, waves) =
                super::rtl::run_circuit(&circuit, &cmd, mem, args.dma_latency, args.vcd.is_some())
                    .map_err(|e| match e {
                        super::rtl::RtlError::Sim(e) => sim_failure(e),
                        super::rtl::RtlError::Other(f) => f,
                    })?;
            if let Some(w) = waves {
                write_vcd(&args, &w)?;
            }
            (v, m, Some(c))
        }
        Engine::Verilator => {
            let circuit = aps::build_function_styled(&ctx, func, &limits, style)
                .map(|(c, _)| c)
                .map_err(fail)?;
            let cmd = command_of(&circuit, &args);
            let (v, m, c, _) = super::verilator::run_circuit(
                &circuit,
                &cmd,
                mem,
                args.dma_latency,
                cfg.max_cycles,
            )
            .map_err(|e| match e {
                super::rtl::RtlError::Sim(e) => sim_failure(e),
                super::rtl::RtlError::Other(f) => f,
            })?;
            (v, m, Some(c))
        }
        Engine::Tor => {
            let r =
                aps::interp::run(&ctx, func, args.rs1, args.rs2, mem, 100_000_000).map_err(fail)?;
            let v = r.responses.iter().map(|v| (args.rd, *v)).collect();
            (v, r.cpu_mem, None)
        }
        Engine::Rules | Engine::Cmt2 => {
            let mut circuit = aps::build_function_styled(&ctx, func, &limits, style)
                .map(|(c, _)| c)
                .map_err(fail)?;
            if args.engine == Engine::Cmt2 {
                let cmt2 = rules::emit_cmt2(&circuit);
                circuit = rules::read_cmt2(&cmt2).map_err(|d| {
                    Failure::input(format!(
                        "{path}: error: the CMT2 text of `@{}` does not read back:\n{}",
                        args.func,
                        d.render("<cmt2>", &cmt2)
                    ))
                })?;
            }
            let cmd = command_of(&circuit, &args);
            let r = simulate(&args, &circuit, cmd, mem, &cfg, sim_failure)?;
            (responses(&r.responses), r.cpu_mem, Some(r.cycles))
        }
    };
    report(&args, values, &mem, cycles)
}

/// Run the rule simulator; with `--trace`/`--trace-json`, print what it did first, and with
/// `--vcd` write its waveforms (also when the run ends in an error: they show what led to
/// it). A run-time error becomes a failure through `sim_failure`.
fn simulate(
    args: &Args,
    circuit: &rules::Circuit,
    cmd: Command,
    mem: BTreeMap<u32, u8>,
    cfg: &SimConfig,
    sim_failure: impl Fn(sim::SimError) -> Failure,
) -> Result<sim::SimResult, Failure> {
    if !args.trace && !args.trace_json && args.vcd.is_none() {
        return sim::simulate(circuit, &[cmd], mem, cfg).map_err(sim_failure);
    }
    let mut trace = sim::Trace::default();
    let r = sim::simulate_recorded(circuit, &[cmd], mem, cfg, &mut trace);
    write_vcd(args, &trace.waves)?;
    if args.trace {
        io::print_out(&rules::trace::render(&trace.events));
    } else if args.trace_json {
        let mut out = String::new();
        for e in &trace.events {
            out.push_str(&serde_json::to_string(e).unwrap_or_default());
            out.push('\n');
        }
        io::print_out(&out);
    }
    r.map_err(sim_failure)
}

/// Write `--vcd FILE` (atomically).
fn write_vcd(args: &Args, waves: &rules::waves::Waves) -> Result<(), Failure> {
    let Some(path) = &args.vcd else {
        return Ok(());
    };
    let comment = format!("kiln sim --engine {} of @{}", args.engine.name(), args.func);
    io::write_atomic(path, &rules::waves::to_vcd(waves, &comment)).map(|_| ())
}

/// The command `kiln sim` sends: the instruction's identity and the given registers.
fn command(opcode: u32, funct7: u32, args: &Args) -> Command {
    Command {
        opcode,
        funct7,
        rs1: args.rs1,
        rs2: args.rs2,
        rd: args.rd,
    }
}

/// The command for the one instruction of a function's circuit.
fn command_of(circuit: &rules::Circuit, args: &Args) -> Command {
    let (op, f7) = circuit
        .instructions
        .first()
        .map_or((0, 0), |i| (i.opcode, i.funct7));
    command(op, f7, args)
}

fn responses(r: &[sim::Response]) -> Vec<(u32, u32)> {
    r.iter().map(|x| (x.rd, x.value)).collect()
}

/// Print the run's responses, CPU memory and cycles (JSON or text).
fn report(
    args: &Args,
    values: Vec<(u32, u32)>,
    mem: &BTreeMap<u32, u8>,
    cycles: Option<u64>,
) -> Result<(), Failure> {
    let mut out = json!({
        "responses": values
            .iter()
            .map(|(rd, v)| json!({"rd": rd, "value": *v as i32}))
            .collect::<Vec<_>>(),
        "cpu_mem": mem_segments(mem),
    });
    if let Some(c) = cycles {
        out["cycles"] = json!(c);
    }
    if args.json {
        outln!("{out}");
    } else {
        for (rd, v) in &values {
            outln!("response: x{rd} = {}", *v as i32);
        }
        if let Some(c) = cycles {
            outln!("cycles: {c}");
        }
    }
    Ok(())
}
