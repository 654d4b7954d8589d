//! `kiln parse FILE... [--emit summary|mlir|json]`: parse MLIR files (chunk by chunk when
//! they contain `// -----` separators) and print a summary, the generic form, or the tree
//! as JSON (to stdout, or with `-o FILE` atomically to a file). Any parse error: all diagnostics on stderr, nothing on stdout, exit code 1.

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
pub struct Args {
    /// MLIR files to parse.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// What to print.
    #[arg(long, value_enum, default_value = "summary")]
    pub emit: Emit,
    /// Write the output to this file (atomically; untouched if unchanged) instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let mut parsed = Vec::new();
    let mut errors = String::new();
    for path in &args.files {
        let text = match io::read_source(path) {
            Ok(t) => t,
            Err(f) => {
                errors.push_str(&f.message);
                continue;
            }
        };
        match mlir::parse_split_with(&text, &kiln_daemon::input::limits()) {
            Ok(modules) => parsed.push((path.display().to_string(), modules)),
            Err(diags) => {
                let name = path.display().to_string();
                errors.push_str(&Failure::diagnostics(&diags, &name, &text).message);
            }
        }
    }
    if !errors.is_empty() {
        return Err(Failure::input(errors));
    }
    let mut out = String::new();
    for (name, modules) in &parsed {
        match args.emit {
            Emit::Summary => write_summary(&mut out, name, modules),
            Emit::Mlir => write_mlir(&mut out, modules),
            Emit::Json => write_json(&mut out, name, modules)?,
        }
    }
    match &args.output {
        Some(path) => io::write_atomic(path, out.as_bytes()).map(|_| ()),
        None => {
            print_stdout(&out);
            Ok(())
        }
    }
}

/// Write to stdout; a closed pipe (`kiln parse ... | head`) is not an error.
pub fn print_stdout(text: &str) {
    use std::io::Write as _;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
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
