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
    #[arg(long = "func", required_unless_present = "commands")]
    pub func: Option<String>,
    /// A stream of commands and CPU CSR writes (JSON): `[{"func": "f", "rs1": 1, "rs2": 2,
    /// "rd": 3}, {"csr": "cfg", "value": 7}, ...]` (rs1, rs2 0 and rd 1 when absent); a
    /// CSR write happens after the command before it fired, before the next one is taken.
    /// In place of --func/--rs1/--rs2/--rd
    #[arg(long, value_name = "FILE", conflicts_with = "func")]
    pub commands: Option<PathBuf>,
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
    /// The SoC's CSR list (`aps_config.yaml`, `csrs: [{id, name, mask, init}]`): the
    /// design's CSR lanes, in its order (without it: one lane per CSR global)
    #[arg(long, value_name = "FILE")]
    pub aps_config: Option<PathBuf>,
    /// The value of a CSR lane (its `aps_config` name, or the CSR global's) when the
    /// command is issued, as the CPU's `csrw` would leave it (masked); repeatable
    #[arg(long = "csr", value_name = "NAME=VALUE", value_parser = parse_csr)]
    pub csr: Vec<(String, u32)>,
    /// Try every rule every cycle (no index of the rules by their guards): the same
    /// results, for measuring the index (`kiln-bench aps --slots`).
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

fn parse_csr(s: &str) -> Result<(String, u32), String> {
    let (n, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: expected NAME=VALUE"))?;
    Ok((n.to_string(), parse_u32(v)?))
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
    let stream = stream_of(&args)?;
    let cfg = SimConfig {
        dma_latency: args.dma_latency,
        dispatch: !args.every_rule,
        csr_writes: stream.csr_writes.clone(),
        ..SimConfig::default()
    };
    let what = stream.describe();
    let sim_failure = |e: sim::SimError| {
        let message = format!("rule simulation of {what}: {e}");
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
        check_csr_names(&stream, &path, &csr_lanes(&circuit))?;
        let cmds = stream.commands(&circuit, &path)?;
        let r = simulate(&args, &what, &circuit, &cmds, mem, &cfg, sim_failure)?;
        return report(&args, &Outcome::of_sim(&r));
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
    let style = style_or_config(args.style);
    let module = compiler::mlir::parse_with(&text, &limits).map_err(fail)?;
    let csr_config = csr_config(args.aps_config.as_deref())?;
    let ctx = aps::design_context_with(&module, csr_config.as_ref()).map_err(fail)?;
    let lanes: Vec<String> = ctx.csrs.iter().map(|l| l.name.clone()).collect();
    check_csr_names(&stream, &path, &lanes)?;
    // The functions the stream calls, each once, in order of first call.
    let mut funcs: Vec<&compiler::mlir::ast::Operation> = Vec::new();
    for name in &stream.funcs {
        let f = aps::function_named(&module, name)
            .ok_or_else(|| Failure::input(format!("{path}: error: no function `@{name}`")))?;
        if !funcs.iter().any(|g| std::ptr::eq(*g, f)) {
            funcs.push(f);
        }
    }
    let circuit = || -> Result<rules::Circuit, Failure> {
        let cs = (funcs.iter())
            .map(|f| aps::build_function_styled(&ctx, f, &limits, style).map(|(c, _)| c))
            .collect::<Result<Vec<_>, _>>()
            .map_err(fail)?;
        Ok(match cs.len() {
            1 => cs.into_iter().next().unwrap_or_default(),
            _ => aps::build_file_circuit(&stem(&args.file), cs),
        })
    };
    let outcome = match args.engine {
        Engine::Rtl => {
            let circuit = circuit()?;
            let cmds = stream.commands(&circuit, &path)?;
            let r = super::rtl::run_circuit(
                &circuit,
                &cmds,
                &stream.csr_writes,
                mem,
                args.dma_latency,
                args.vcd.is_some(),
            )
            .map_err(|e| match e {
                super::rtl::RtlError::Sim(e) => sim_failure(e),
                super::rtl::RtlError::Other(f) => f,
            })?;
            if let Some(w) = &r.waves {
                write_vcd(&args, &what, w)?;
            }
            Outcome::of_rtl(r)
        }
        Engine::Verilator => {
            let circuit = circuit()?;
            let cmds = stream.commands(&circuit, &path)?;
            let r = super::verilator::run_circuit(
                &circuit,
                &cmds,
                &stream.csr_writes,
                mem,
                args.dma_latency,
                cfg.max_cycles,
            )
            .map_err(|e| match e {
                super::rtl::RtlError::Sim(e) => sim_failure(e),
                super::rtl::RtlError::Other(f) => f,
            })?;
            Outcome::of_rtl(r)
        }
        Engine::Tor => {
            // Commands one after another, the CPU's CSR writes before each; the banks and
            // global registers kept from one command to the next, as the hardware keeps them.
            let mut state = aps::interp::State::reset(&ctx, BTreeMap::new());
            let mut out = Outcome {
                responses: Vec::new(),
                response_cycles: Vec::new(),
                cpu_mem: mem,
                cycles: None,
                csr_sets: Vec::new(),
                csrs: BTreeMap::new(),
            };
            for (k, c) in stream.regs.iter().enumerate() {
                for w in stream.csr_writes.iter().filter(|w| w.before == k) {
                    if let Some(l) = ctx.csrs.iter().find(|l| l.name == w.lane) {
                        let old = state.csrs.get(&w.lane).copied().unwrap_or(0);
                        (state.csrs).insert(w.lane.clone(), (w.value & l.mask) | (old & !l.mask));
                    }
                }
                let f = aps::function_named(&module, &stream.funcs[k]).ok_or_else(|| {
                    Failure::input(format!("{path}: error: no function `@{}`", stream.funcs[k]))
                })?;
                if k == 0 {
                    state.cpu_mem = std::mem::take(&mut out.cpu_mem);
                }
                let r = aps::interp::run_in(&ctx, f, c.0, c.1, &mut state, 100_000_000)
                    .map_err(fail)?;
                out.responses.extend(r.responses.iter().map(|v| (c.2, *v)));
                out.csr_sets
                    .extend(r.csr_sets.into_iter().map(|(l, v)| (l, v, None)));
            }
            out.cpu_mem = state.cpu_mem;
            out.csrs = state.csrs;
            out
        }
        Engine::Rules | Engine::Cmt2 => {
            let mut circuit = circuit()?;
            if args.engine == Engine::Cmt2 {
                let cmt2 = rules::emit_cmt2(&circuit);
                circuit = rules::read_cmt2(&cmt2).map_err(|d| {
                    Failure::input(format!(
                        "{path}: error: the CMT2 text of {what} does not read back:\n{}",
                        d.render("<cmt2>", &cmt2)
                    ))
                })?;
            }
            let cmds = stream.commands(&circuit, &path)?;
            let r = simulate(&args, &what, &circuit, &cmds, mem, &cfg, sim_failure)?;
            Outcome::of_sim(&r)
        }
    };
    report(&args, &outcome)
}

/// The file's stem: the merged circuit's name.
fn stem(p: &std::path::Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What the CPU does in a run: commands (function, rs1, rs2, rd) and CSR writes between
/// them (`--csr` ones before the first).
struct Stream {
    funcs: Vec<String>,
    regs: Vec<(u32, u32, u32)>,
    csr_writes: Vec<sim::CsrWrite>,
}

impl Stream {
    /// `@f` for one command, `N commands` for a stream (in messages).
    fn describe(&self) -> String {
        match self.funcs.as_slice() {
            [f] => format!("`@{f}`"),
            fs => format!("{} commands", fs.len()),
        }
    }

    /// The commands, each with its function's instruction identity in `circuit`.
    fn commands(&self, circuit: &rules::Circuit, path: &str) -> Result<Vec<Command>, Failure> {
        (self.funcs.iter().zip(&self.regs))
            .map(|(f, &(rs1, rs2, rd))| {
                let ins = (circuit.instructions.iter())
                    .find(|i| &i.function == f)
                    .ok_or_else(|| {
                        Failure::input(format!("{path}: error: no instruction `@{f}`"))
                    })?;
                Ok(Command {
                    opcode: ins.opcode,
                    funct7: ins.funct7,
                    rs1,
                    rs2,
                    rd,
                })
            })
            .collect()
    }
}

/// The run's stream: `--commands FILE`, or one command from `--func`, `--rs1`, `--rs2`,
/// `--rd`; `--csr` writes before the first command.
fn stream_of(args: &Args) -> Result<Stream, Failure> {
    let mut st = Stream {
        funcs: Vec::new(),
        regs: Vec::new(),
        csr_writes: (args.csr.iter())
            .map(|(lane, value)| sim::CsrWrite {
                before: 0,
                lane: lane.clone(),
                value: *value,
            })
            .collect(),
    };
    let Some(p) = &args.commands else {
        st.funcs.push(args.func.clone().unwrap_or_default());
        st.regs.push((args.rs1, args.rs2, args.rd));
        return Ok(st);
    };
    let text = io::read_source(p)?;
    let bad = |m: String| Failure::input(format!("{}: error: {m}", p.display()));
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let entries = v
        .as_array()
        .ok_or_else(|| bad("expected a list of commands and CSR writes".into()))?;
    for (i, e) in entries.iter().enumerate() {
        let num = |k: &str, default: u32| -> Result<u32, Failure> {
            match e.get(k) {
                None => Ok(default),
                Some(x) => x
                    .as_u64()
                    .and_then(|x| u32::try_from(x).ok())
                    .ok_or_else(|| bad(format!("entry {i}: `{k}` is not a 32-bit value"))),
            }
        };
        match (
            e.get("func").and_then(|f| f.as_str()),
            e.get("csr").and_then(|c| c.as_str()),
        ) {
            (Some(f), None) => {
                let rd = num("rd", 1)?;
                if rd > 31 {
                    return Err(bad(format!("entry {i}: `rd` is a register number 0..31")));
                }
                st.funcs.push(f.to_string());
                st.regs.push((num("rs1", 0)?, num("rs2", 0)?, rd));
            }
            (None, Some(lane)) => st.csr_writes.push(sim::CsrWrite {
                before: st.funcs.len(),
                lane: lane.to_string(),
                value: num("value", 0)?,
            }),
            _ => {
                return Err(bad(format!(
                    "entry {i}: expected {{\"func\": NAME, \"rs1\": .., \"rs2\": .., \"rd\": ..}} or {{\"csr\": LANE, \"value\": V}}"
                )));
            }
        }
    }
    if st.funcs.is_empty() {
        return Err(bad("no command".into()));
    }
    Ok(st)
}

/// What a run of any engine gives: responses `(rd, value)`, the final CPU memory, the
/// cycles (timed engines), the CSR write-backs `(lane, value, cycle)` and the lanes' final
/// values.
struct Outcome {
    responses: Vec<(u32, u32)>,
    /// The cycle of each response (timed engines).
    response_cycles: Vec<u64>,
    cpu_mem: BTreeMap<u32, u8>,
    cycles: Option<u64>,
    csr_sets: Vec<(String, u32, Option<u64>)>,
    csrs: BTreeMap<String, u32>,
}

impl Outcome {
    fn of_sim(r: &sim::SimResult) -> Outcome {
        Outcome {
            responses: responses(&r.responses),
            response_cycles: r.responses.iter().map(|x| x.cycle).collect(),
            cpu_mem: r.cpu_mem.clone(),
            cycles: Some(r.cycles),
            csr_sets: (r.csr_sets.iter())
                .map(|s| (s.lane.clone(), s.value, Some(s.cycle)))
                .collect(),
            csrs: r.csrs.clone(),
        }
    }

    fn of_rtl(r: super::rtl::RtlRun) -> Outcome {
        Outcome {
            responses: r.responses,
            response_cycles: r.response_cycles,
            cpu_mem: r.cpu_mem,
            cycles: Some(r.cycles),
            csr_sets: (r.csr_sets.into_iter())
                .map(|(l, v, c)| (l, v, Some(c)))
                .collect(),
            csrs: r.csrs,
        }
    }
}

/// The style of APS rules: `given` (`--style`), else `style` of kiln.toml, else fsm.
pub(crate) fn style_or_config(given: Option<aps::Style>) -> aps::Style {
    given
        .or_else(|| crate::config::get().style())
        .unwrap_or_default()
}

/// The CSR configuration's file: `given` (`--aps-config`), else `aps_config` of kiln.toml.
pub(crate) fn aps_config_file(given: Option<&std::path::Path>) -> Option<PathBuf> {
    given
        .map(std::path::Path::to_path_buf)
        .or_else(|| crate::config::get().aps_config())
}

/// The CSR configuration of [`aps_config_file`], read (`None` without a file).
pub(crate) fn csr_config(
    given: Option<&std::path::Path>,
) -> Result<Option<aps::csr::CsrConfig>, Failure> {
    aps_config_file(given)
        .map(|p| read_aps_config(&p))
        .transpose()
}

/// The CSR configuration in `path` (`--aps-config`); its errors located in that file.
pub(crate) fn read_aps_config(path: &std::path::Path) -> Result<aps::csr::CsrConfig, Failure> {
    kiln_daemon::input::aps_config(path, &path.display().to_string()).map_err(Failure::located)
}

/// The CSR lanes of a circuit (its `csr_<lane>` instances), in lane order.
fn csr_lanes(c: &rules::Circuit) -> Vec<String> {
    (c.instances.iter())
        .filter(|i| matches!(i.kind, rules::InstanceKind::Csr { .. }))
        .map(|i| i.name.trim_start_matches("csr_").to_string())
        .collect()
}

/// Every CSR write names a lane of the design.
fn check_csr_names(stream: &Stream, path: &str, lanes: &[String]) -> Result<(), Failure> {
    for n in stream.csr_writes.iter().map(|w| &w.lane) {
        if !lanes.contains(n) {
            let known = match lanes.is_empty() {
                true => "the design has no CSR lanes".to_string(),
                false => format!("its lanes: {}", lanes.join(", ")),
            };
            return Err(Failure::input(format!(
                "{path}: error: a CSR write of `{n}`: no such CSR lane ({known})"
            )));
        }
    }
    Ok(())
}

/// Run the rule simulator; with `--trace`/`--trace-json`, print what it did first, and with
/// `--vcd` write its waveforms (also when the run ends in an error: they show what led to
/// it). A run-time error becomes a failure through `sim_failure`.
fn simulate(
    args: &Args,
    what: &str,
    circuit: &rules::Circuit,
    cmds: &[Command],
    mem: BTreeMap<u32, u8>,
    cfg: &SimConfig,
    sim_failure: impl Fn(sim::SimError) -> Failure,
) -> Result<sim::SimResult, Failure> {
    if !args.trace && !args.trace_json && args.vcd.is_none() {
        return sim::simulate(circuit, cmds, mem, cfg).map_err(sim_failure);
    }
    let mut trace = sim::Trace::default();
    let r = sim::simulate_recorded(circuit, cmds, mem, cfg, &mut trace);
    write_vcd(args, what, &trace.waves)?;
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
fn write_vcd(args: &Args, what: &str, waves: &rules::waves::Waves) -> Result<(), Failure> {
    let Some(path) = &args.vcd else {
        return Ok(());
    };
    let comment = format!(
        "kiln sim --engine {} of {}",
        args.engine.name(),
        what.replace('`', "")
    );
    io::write_atomic(path, &rules::waves::to_vcd(waves, &comment)).map(|_| ())
}

fn responses(r: &[sim::Response]) -> Vec<(u32, u32)> {
    r.iter().map(|x| (x.rd, x.value)).collect()
}

/// Print the run's responses, CPU memory and cycles (JSON or text).
fn report(args: &Args, o: &Outcome) -> Result<(), Failure> {
    let mut out = json!({
        "responses": o.responses
            .iter()
            .map(|(rd, v)| json!({"rd": rd, "value": *v as i32}))
            .collect::<Vec<_>>(),
        "cpu_mem": mem_segments(&o.cpu_mem),
    });
    if let Some(c) = o.cycles {
        out["cycles"] = json!(c);
        out["response_cycles"] = json!(o.response_cycles);
    }
    // Designs with CSR lanes: the write-backs and each lane's final value.
    if !o.csrs.is_empty() {
        out["csr_writes"] = json!(
            (o.csr_sets.iter())
                .map(|(lane, v, c)| match c {
                    Some(c) => json!({"lane": lane, "value": v, "cycle": c}),
                    None => json!({"lane": lane, "value": v}),
                })
                .collect::<Vec<_>>()
        );
        out["csrs"] = json!(o.csrs);
    }
    if args.json {
        outln!("{out}");
    } else {
        for (k, (rd, v)) in o.responses.iter().enumerate() {
            match o.response_cycles.get(k) {
                Some(c) => outln!("response: x{rd} = {} (cycle {c})", *v as i32),
                None => outln!("response: x{rd} = {}", *v as i32),
            }
        }
        for (lane, v, c) in &o.csr_writes_text() {
            outln!("csr write: {lane} = {v:#x}{c}");
        }
        for (lane, v) in &o.csrs {
            outln!("csr: {lane} = {v:#x}");
        }
        if let Some(c) = o.cycles {
            outln!("cycles: {c}");
        }
    }
    Ok(())
}

impl Outcome {
    fn csr_writes_text(&self) -> Vec<(String, u32, String)> {
        (self.csr_sets.iter())
            .map(|(l, v, c)| {
                let at = c.map_or(String::new(), |c| format!(" (cycle {c})"));
                (l.clone(), *v, at)
            })
            .collect()
    }
}
