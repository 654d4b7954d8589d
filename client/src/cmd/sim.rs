//! `kiln sim FILE.mlir --func NAME --engine tor|rules --rs1 N --rs2 N [--cpu-mem MEM.json]
//! [--json]`: run one APS instruction on the TOR interpreter or the rule simulator.
//!
//! Output (`--json`): `{"responses":[{"value":V}], "cpu_mem":[{"addr":A,"i32":[...]}],
//! "cycles":C}` (`cycles` only for the rule engine). `MEM.json` uses the same segment list
//! for the initial CPU memory.

use crate::io::{self, Failure};
use compiler::aps;
use compiler::mlir::ast::Attribute;
use compiler::rules::sim::{self, Command, SimConfig};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    Tor,
    Rules,
    /// The generated SystemVerilog under Icarus Verilog (see `rtl.rs`).
    Rtl,
}

#[derive(clap::Args)]
pub struct Args {
    pub file: PathBuf,
    /// The `tor.func` to run.
    #[arg(long = "func")]
    pub func: String,
    #[arg(long, value_enum, default_value = "rules")]
    pub engine: Engine,
    /// Value of rs1 (decimal or 0x-hex).
    #[arg(long, value_parser = parse_u32, default_value = "0")]
    pub rs1: u32,
    #[arg(long, value_parser = parse_u32, default_value = "0")]
    pub rs2: u32,
    /// Initial CPU memory: `[{"addr":A,"i32":[...]}]`.
    #[arg(long)]
    pub cpu_mem: Option<PathBuf>,
    /// DMA cycles per 64-byte burst.
    #[arg(long, default_value_t = 16)]
    pub dma_latency: u32,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

fn parse_u32(s: &str) -> Result<u32, String> {
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

fn read_mem(path: &std::path::Path) -> Result<BTreeMap<u32, u8>, Failure> {
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
    let fail = |d| Failure::diagnostics(&[d], &path, &text);
    let module = compiler::mlir::parse_with(&text, &kiln_daemon::input::limits()).map_err(fail)?;
    let ctx = aps::design_context(&module).map_err(fail)?;
    let func = aps::function_named(&module, &args.func)
        .ok_or_else(|| Failure::input(format!("{path}: error: no function `@{}`", args.func)))?;
    let mem = match &args.cpu_mem {
        Some(p) => read_mem(p)?,
        None => BTreeMap::new(),
    };
    let (values, mem, cycles) = match args.engine {
        Engine::Rtl => {
            super::rtl::run_rtl(&ctx, func, args.rs1, args.rs2, mem, args.dma_latency, fail)
                .map(|(v, m, c)| (v, m, Some(c)))?
        }
        Engine::Tor => {
            let r =
                aps::interp::run(&ctx, func, args.rs1, args.rs2, mem, 100_000_000).map_err(fail)?;
            (r.responses, r.cpu_mem, None)
        }
        Engine::Rules => {
            let circuit = aps::build_function(&ctx, func).map_err(fail)?;
            let id = func.attr("opcode").and_then(Attribute::as_int).unwrap_or(0) as u32;
            let cmd = Command {
                id,
                rs1: args.rs1,
                rs2: args.rs2,
                rd: 1,
            };
            let cfg = SimConfig {
                dma_latency: args.dma_latency,
                ..SimConfig::default()
            };
            let r = sim::simulate(&circuit, &[cmd], mem, &cfg).map_err(|e| {
                Failure::input(format!(
                    "{path}: error: rule simulation of `@{}`: {e}",
                    args.func
                ))
            })?;
            (
                r.responses.iter().map(|x| x.value).collect(),
                r.cpu_mem,
                Some(r.cycles),
            )
        }
    };
    let mut out = json!({
        "responses": values.iter().map(|v| json!({"value": *v as i32})).collect::<Vec<_>>(),
        "cpu_mem": mem_segments(&mem),
    });
    if let Some(c) = cycles {
        out["cycles"] = json!(c);
    }
    if args.json {
        println!("{out}");
    } else {
        for v in &values {
            println!("response: {}", *v as i32);
        }
        if let Some(c) = cycles {
            println!("cycles: {c}");
        }
    }
    Ok(())
}
