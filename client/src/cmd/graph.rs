//! `kiln graph FILE.mlir --func NAME -o OUT.dot|OUT.svg|OUT.png|OUT.pdf|-`: Graphviz view of
//! one function's rules, FIFOs and blocks (rendered formats through Graphviz's `dot`); with
//! `--schedule`, the schedule picture of one simulated command ([`compiler::aps::chart`]).

use crate::io::{self, Failure};
use compiler::flow::Flow;
use compiler::{aps, rules};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln graph design.mlir --func f -o f.svg       rendered by Graphviz's dot
  kiln graph design.mlir --func f -o - | xdot -  the DOT text on stdout
  kiln graph design.mlir --func f --schedule --rs1 0x1000 --cpu-mem mem.json -o f.svg
                                                 planned slots against one simulated command")]
pub struct Args {
    /// An APS MLIR file.
    pub file: PathBuf,
    /// The `tor.func` to draw.
    #[arg(long = "func")]
    pub func: String,
    /// The file to write, its format from its extension: `.dot`/`.gv` (DOT text), or
    /// `.svg`, `.png`, `.pdf` (rendered by Graphviz's `dot`); `-`: DOT on standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// The architecture of the function's rules, as `kiln build --style` [default: `style`
    /// of kiln.toml, else fsm]
    #[arg(long, value_name = "STYLE", value_parser = super::sim::parse_style)]
    pub style: Option<aps::Style>,
    /// Draw the schedule instead: each slot's planned cycle beside the cycles the rule
    /// simulator fired it for one command (`--rs1`, `--rs2`, `--cpu-mem`), DMA waits and
    /// other overhead shaded
    #[arg(long)]
    pub schedule: bool,
    /// With `--schedule`: the command's rs1 value.
    #[arg(long, value_parser = super::sim::parse_u32, default_value = "0", requires = "schedule")]
    pub rs1: u32,
    /// With `--schedule`: the command's rs2 value.
    #[arg(long, value_parser = super::sim::parse_u32, default_value = "0", requires = "schedule")]
    pub rs2: u32,
    /// With `--schedule`: the initial CPU memory (as for `kiln sim`).
    #[arg(long, value_name = "MEM.json", requires = "schedule")]
    pub cpu_mem: Option<PathBuf>,
    /// With `--schedule`: the most cycles drawn (a last column counts the rest).
    #[arg(long, default_value_t = 300, requires = "schedule")]
    pub max_cycles: usize,
}

/// What `-o FILE` asks for: DOT text, or a format `dot -T` renders.
fn format_of(output: &Path) -> Result<Option<&'static str>, Failure> {
    if io::is_stdout(output) {
        return Ok(None);
    }
    let ext = output.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "dot" | "gv" => Ok(None),
        "svg" => Ok(Some("svg")),
        "png" => Ok(Some("png")),
        "pdf" => Ok(Some("pdf")),
        _ => Err(Failure::usage(format!(
            "error: {}: unknown graph format `{ext}` (use .dot, .gv, .svg, .png or .pdf, or - for DOT on stdout)",
            output.display()
        ))),
    }
}

pub fn run(args: Args) -> Result<(), Failure> {
    let format = format_of(&args.output)?;
    let path = args.file.display().to_string();
    let text = io::read_source(&args.file)?;
    let fail = |d| Failure::diagnostics(&[Flow::Aps.coded(d)], &path, &text);
    let limits = kiln_daemon::input::limits();
    let module = compiler::mlir::parse_with(&text, &limits).map_err(fail)?;
    let ctx = aps::design_context(&module).map_err(fail)?;
    let func = aps::function_named(&module, &args.func)
        .ok_or_else(|| Failure::input(format!("{path}: error: no function `@{}`", args.func)))?;
    let style = super::sim::style_or_config(args.style);
    let circuit = aps::build_function_styled(&ctx, func, &limits, style)
        .map(|(c, _)| c)
        .map_err(fail)?;
    let dot = match args.schedule {
        true => schedule(&args, &circuit)?,
        false => rules::to_dot(&circuit),
    };
    let bytes = match format {
        Some(f) => render(&dot, f)?,
        None => dot.into_bytes(),
    };
    io::write_output(&args.output, &bytes)
}

/// The schedule picture of one command of the function (`--schedule`).
fn schedule(args: &Args, circuit: &rules::Circuit) -> Result<String, Failure> {
    let mem = match &args.cpu_mem {
        Some(p) => super::sim::read_mem(p)?,
        None => Default::default(),
    };
    let (opcode, funct7) = circuit
        .instructions
        .first()
        .map_or((0, 0), |i| (i.opcode, i.funct7));
    let cmd = rules::sim::Command {
        opcode,
        funct7,
        rs1: args.rs1,
        rs2: args.rs2,
        rd: 1,
    };
    let (_, trace) =
        rules::sim::simulate_traced(circuit, &[cmd], mem, &rules::sim::SimConfig::default())
            .map_err(|e| {
                Failure::located(vec![io::file_error(
                    &args.file,
                    e.code(),
                    format!("rule simulation of `@{}`: {e}", args.func),
                )])
            })?;
    let title = format!(
        "@{} (opcode {opcode}, funct7 {funct7}), rs1 {:#x}, rs2 {:#x}",
        args.func, args.rs1, args.rs2
    );
    Ok(aps::chart::schedule_dot(
        circuit,
        &trace,
        &title,
        args.max_cycles,
    ))
}

/// `dot` rendered by Graphviz as `format`.
fn render(dot: &str, format: &str) -> Result<Vec<u8>, Failure> {
    let fail = |e: std::io::Error| {
        Failure::input(format!(
            "error: running `dot -T{format}`: {e} (is Graphviz installed?)"
        ))
    };
    let mut child = Command::new("dot")
        .arg(format!("-T{format}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(fail)?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(dot.as_bytes()).map_err(fail)?;
    }
    let out = child.wait_with_output().map_err(fail)?;
    if !out.status.success() {
        return Err(Failure::input(format!(
            "error: `dot -T{format}` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(out.stdout)
}
