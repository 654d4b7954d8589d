//! `kiln graph FILE.mlir --func NAME -o OUT.dot|OUT.svg`: Graphviz view of one function's
//! rules, FIFOs and blocks (SVG through `dot -Tsvg` when Graphviz is installed).

use crate::io::{self, Failure};
use compiler::{aps, rules};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

#[derive(clap::Args)]
pub struct Args {
    pub file: PathBuf,
    #[arg(long = "func")]
    pub func: String,
    /// Output path; `.svg` renders through `dot`.
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let path = args.file.display().to_string();
    let text = io::read_source(&args.file)?;
    let fail = |d| Failure::diagnostics(&[d], &path, &text);
    let module = compiler::mlir::parse_with(&text, &kiln_daemon::input::limits()).map_err(fail)?;
    let ctx = aps::design_context(&module).map_err(fail)?;
    let func = aps::function_named(&module, &args.func)
        .ok_or_else(|| Failure::input(format!("{path}: error: no function `@{}`", args.func)))?;
    let dot = rules::to_dot(&aps::build_function(&ctx, func).map_err(fail)?);
    let bytes = if args.output.extension().is_some_and(|e| e == "svg") {
        render_svg(&dot)?
    } else {
        dot.into_bytes()
    };
    io::write_atomic(&args.output, &bytes)?;
    Ok(())
}

fn render_svg(dot: &str) -> Result<Vec<u8>, Failure> {
    let fail = |e: std::io::Error| {
        Failure::input(format!(
            "error: running `dot -Tsvg`: {e} (is Graphviz installed?)"
        ))
    };
    let mut child = Command::new("dot")
        .arg("-Tsvg")
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
            "error: `dot -Tsvg` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(out.stdout)
}
