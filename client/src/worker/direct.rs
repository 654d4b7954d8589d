//! Action kinds the daemon's query pipeline does not have, built directly in the shim by
//! the same client functions `kiln build` uses (so outputs are byte-identical to it):
//! - `sv`: `<stem>.sv`, SystemVerilog of an APS design (`kiln build --emit sv`);
//! - `synth`: Handshake → Synth (`kiln synth`): `<stem>.synth.mlir`, `.aig`, `.blif` and
//!   `.hier.blif`, with the unit library named by `--blif-lib`.
//!
//! Paths arrive resolved against the action's base directory.

use super::Outcome;
use crate::cmd::{rtl, synth};
use crate::io::{self, Failure};
use std::path::{Path, PathBuf};

/// Kinds served here rather than by the pipeline.
pub const KINDS: &[&str] = &["sv", "synth"];

/// Build the direct `kinds` of every input into `out_dir`.
pub fn build(
    inputs: &[PathBuf],
    kinds: &[String],
    out_dir: &Path,
    blif_lib: Option<PathBuf>,
) -> Outcome {
    let mut output = String::new();
    for input in inputs {
        for kind in kinds {
            let result = match kind.as_str() {
                "sv" => sv(input, out_dir),
                _ => handshake(input, out_dir, blif_lib.clone()),
            };
            if let Err(f) = result {
                output.push_str(&f.message);
                if !output.ends_with('\n') {
                    output.push('\n');
                }
                return Outcome {
                    exit_code: f.code,
                    output,
                };
            }
        }
    }
    Outcome {
        exit_code: 0,
        output,
    }
}

fn sv(input: &Path, out_dir: &Path) -> Result<(), Failure> {
    let text = io::read_source(input)?;
    let shown = input.display().to_string();
    let module = compiler::mlir::parse_with(&text, &kiln_daemon::input::limits())
        .map_err(|d| Failure::diagnostics(&[d], &shown, &text))?;
    rtl::emit_sv_file(&module, &stem(input), out_dir)
}

fn handshake(input: &Path, out_dir: &Path, blif_lib: Option<PathBuf>) -> Result<(), Failure> {
    let text = io::read_source(input)?;
    let args = synth::HandshakeArgs {
        blif_lib,
        path_table: None,
        synth_dialect: synth::DialectArg::Circt,
        naming: synth::NamingArg::ArgNames,
    };
    synth::build_handshake(input, &text, &args, out_dir)
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into())
}
