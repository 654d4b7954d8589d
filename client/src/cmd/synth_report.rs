//! `kiln synth-report CIRCUIT.mlir... --blif-lib DIR`: per op, how Handshake → Synth
//! implements it (library file / synthesized Verilog template / built-in generator / opaque
//! subckt fallback, with the reason), with totals; warnings about library files and
//! templates go to stderr.
//! Every file is reported: one that cannot be read or analysed shows its errors and the
//! others are still reported; the command then ends with exit code 1.

use super::args::{HandshakeArgs, checked_handshake_spec};
use crate::diagnostics::{self, Tally};
use crate::io::{self, Failure};
use compiler::flow::Flow;
use compiler::handshake;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln synth-report gcd.mlir --blif-lib ../shared/dynamatic_blif/library
  kiln synth-report ../shared/handshake_examples/*.mlir --blif-lib lib | grep subckt")]
pub struct Args {
    /// Handshake MLIR files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub handshake: HandshakeArgs,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let spec = checked_handshake_spec(&args.handshake)?;
    let limits = kiln_daemon::input::limits();
    let mut tally = Tally::default();
    let mut failed = 0;
    for f in &args.files {
        let shown = f.display().to_string();
        let text = match io::read_source(f) {
            Ok(t) => t,
            Err(e) => {
                tally.show_all(&e.located);
                failed += 1;
                continue;
            }
        };
        match kiln_daemon::oneshot::handshake_front(&spec, limits, &text) {
            Ok((front, library)) => {
                let notes = library.notes.iter().cloned();
                tally.show_all(
                    &notes
                        .map(|m| Flow::Handshake.coded_located(m))
                        .collect::<Vec<_>>(),
                );
                let rows = handshake::report(&front.circuit, &front.marks, &library.units);
                out!("{shown}:\n{}", handshake::report_text(&rows));
            }
            Err(why) => {
                tally.show_all(&messages(&why, &shown, &text));
                failed += 1;
            }
        }
    }
    tally.close(
        "report on",
        &diagnostics::inputs_failed(&args.files, failed),
    )
}

/// An outcome's messages, located and coded: those about library files, then the design's.
fn messages(
    outcome: &compiler::flow::Outcome,
    shown: &str,
    text: &str,
) -> Vec<compiler::diag::Located> {
    let own = compiler::diag::locate_all(&outcome.diagnostics, shown, text);
    (outcome.elsewhere.iter().cloned().chain(own))
        .map(|m| Flow::Handshake.coded_located(m))
        .collect()
}
