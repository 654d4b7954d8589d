//! `kiln synth-report CIRCUIT.mlir --blif-lib DIR`: per op, how Handshake → Synth implements
//! it (library file / built-in generator / opaque subckt fallback), with totals.

use super::synth::{HandshakeArgs, prepare};
use crate::io::{self, Failure};
use compiler::handshake;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Handshake MLIR files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub handshake: HandshakeArgs,
}

pub fn run(args: Args) -> Result<(), Failure> {
    for f in &args.files {
        let text = io::read_source(f)?;
        let (front, library) = prepare(f, &text, &args.handshake)?;
        let rows = handshake::report(&front.circuit, &front.marks, &library.units);
        println!("{}:", f.display());
        print!("{}", handshake::report_text(&rows));
    }
    Ok(())
}
