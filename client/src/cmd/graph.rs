//! `kiln graph FILE.mlir --func NAME -o OUT.dot|OUT.svg|OUT.png|OUT.pdf|-`: Graphviz view of
//! one function's rules, FIFOs and blocks (rendered formats through Graphviz's `dot`).

use crate::io::{self, Failure};
use compiler::flow::Flow;
use compiler::{aps, rules};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln graph design.mlir --func f -o f.svg       rendered by Graphviz's dot
  kiln graph design.mlir --func f -o - | xdot -  the DOT text on stdout")]
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
    let dot = rules::to_dot(&aps::build_function_with(&ctx, func, &limits).map_err(fail)?);
    let bytes = match format {
        Some(f) => render(&dot, f)?,
        None => dot.into_bytes(),
    };
    io::write_output(&args.output, &bytes)
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
