//! `kiln build FILE.mlir --out-dir DIR`: compile a design with the flow its content selects.
//!
//! Dispatch is on content: a module containing `tor.design` goes to the APS flow, which
//! writes `DIR/<stem>.cmt2.mlir` and `DIR/<stem>.rules.json`. Each flow lives in its own
//! function so that another flow (Handshake) can plug in beside it.

use crate::io::{self, Failure};
use compiler::aps;
use compiler::mlir::ast::ModuleAst;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The MLIR input.
    pub file: PathBuf,
    /// Where outputs go (created if missing).
    #[arg(long, default_value = "out")]
    pub out_dir: PathBuf,
    /// Also write `<stem>.sv` (SystemVerilog of the rule circuit).
    #[arg(long, value_enum)]
    pub emit: Option<super::rtl::Emit>,
}

/// The flows `kiln build` knows, chosen from the parsed input.
enum Flow {
    Aps,
}

fn select_flow(module: &ModuleAst) -> Option<Flow> {
    aps::is_aps_module(module).then_some(Flow::Aps)
}

pub fn run(args: Args) -> Result<(), Failure> {
    let path = args.file.display().to_string();
    let text = io::read_source(&args.file)?;
    let module =
        compiler::mlir::parse(&text).map_err(|d| Failure::diagnostics(&[d], &path, &text))?;
    let stem = args
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    match select_flow(&module) {
        Some(Flow::Aps) => build_aps(&module, &stem, &args.out_dir)
            .map_err(|d| Failure::diagnostics(&[d], &path, &text)),
        None => Err(Failure::input(format!(
            "{path}: error: no flow accepts this input (expected a module with `tor.design`)"
        ))),
    }??;
    if args.emit == Some(super::rtl::Emit::Sv) {
        super::rtl::emit_sv_file(&module, &stem, &args.out_dir)?;
    }
    Ok(())
}

/// The APS flow: one circuit per function, merged into one file.
fn build_aps(
    module: &ModuleAst,
    stem: &str,
    out_dir: &Path,
) -> Result<Result<(), Failure>, compiler::diag::Diagnostic> {
    let out = aps::build_file(module, stem)?;
    let write = || -> Result<(), Failure> {
        io::write_atomic(
            &out_dir.join(format!("{stem}.cmt2.mlir")),
            out.cmt2.as_bytes(),
        )?;
        io::write_atomic(
            &out_dir.join(format!("{stem}.rules.json")),
            out.json.as_bytes(),
        )?;
        Ok(())
    };
    Ok(write())
}
