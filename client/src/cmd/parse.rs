//! `kiln parse FILE... [--emit summary|mlir|json]`: parse MLIR files (chunk by chunk when
//! they contain `// -----` separators) and print a summary, the generic form, or the tree
//! as JSON (to stdout, or with `-o FILE` atomically to a file). Any parse error: all
//! diagnostics shown, nothing written, exit code 1.

use crate::diagnostics;
use crate::io::{self, Failure};
use compiler::mlir::{self, ast::ModuleAst};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// Functions and op counts per dialect.
    Summary,
    /// The generic form (chunks separated by `// -----`).
    Mlir,
    /// One JSON object per file and line: `{"file": ..., "modules": [tree, ...]}`.
    Json,
}

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln parse design.mlir                       functions and op counts
  kiln parse design.mlir --emit mlir -o -      the generic form on stdout
  kiln parse a.mlir b.mlir --emit json -o tree.json")]
pub struct Args {
    /// MLIR files to parse.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// What to print.
    #[arg(long, value_enum, default_value = "summary")]
    pub emit: Emit,
    /// Write the output to this file (atomically; untouched if unchanged); `-` or none:
    /// standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let mut parsed = Vec::new();
    let mut tally = diagnostics::Tally::default();
    let mut failed = 0;
    for path in &args.files {
        let text = match io::read_source(path) {
            Ok(t) => t,
            Err(f) => {
                tally.show_all(&f.located);
                failed += 1;
                continue;
            }
        };
        match mlir::parse_split_with(&text, &kiln_daemon::input::limits()) {
            Ok(modules) => parsed.push((path.display().to_string(), modules)),
            Err(diags) => {
                let name = path.display().to_string();
                tally.show_all(&compiler::diag::locate_all(&diags, &name, &text));
                failed += 1;
            }
        }
    }
    tally.close("parse", &diagnostics::inputs_failed(&args.files, failed))?;
    let mut out = String::new();
    for (name, modules) in &parsed {
        match args.emit {
            Emit::Summary => write_summary(&mut out, name, modules),
            Emit::Mlir => write_mlir(&mut out, modules),
            Emit::Json => write_json(&mut out, name, modules)?,
        }
    }
    let output = args.output.unwrap_or_else(|| PathBuf::from("-"));
    io::write_output(&output, out.as_bytes())
}

fn write_summary(out: &mut String, name: &str, modules: &[ModuleAst]) {
    let s = mlir::summarize(modules);
    let _ = writeln!(
        out,
        "{name}: {} function(s), {} op(s)",
        s.functions.len(),
        s.total_ops
    );
    for (kind, sym) in &s.functions {
        let _ = writeln!(out, "  {kind} @{sym}");
    }
    let counts: Vec<String> = s
        .ops_per_dialect
        .iter()
        .map(|(d, n)| format!("{d} {n}"))
        .collect();
    let _ = writeln!(out, "  ops: {}", counts.join(", "));
}

fn write_mlir(out: &mut String, modules: &[ModuleAst]) {
    for (i, m) in modules.iter().enumerate() {
        if i > 0 {
            out.push_str("// -----\n");
        }
        out.push_str(&mlir::print(m));
    }
}

fn write_json(out: &mut String, name: &str, modules: &[ModuleAst]) -> Result<(), Failure> {
    let doc = serde_json::json!({ "file": name, "modules": modules });
    let text = serde_json::to_string(&doc)
        .map_err(|e| Failure::input(format!("{name}: error: cannot encode JSON: {e}")))?;
    out.push_str(&text);
    out.push('\n');
    Ok(())
}
