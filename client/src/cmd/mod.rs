//! One module per subcommand; [`run`] dispatches.

use crate::io::Failure;
use clap::Subcommand;

pub mod aig;
pub mod bench;
pub mod parse;

#[derive(Subcommand)]
pub enum Command {
    /// Parse MLIR files and print a summary, the generic form, or JSON.
    Parse(parse::Args),
    /// Lower BLIF files to AIGs (AIGER binary/ASCII or 2-input BLIF).
    Aig(aig::Args),
    /// Benchmarks, per area.
    #[command(subcommand)]
    Bench(bench::Bench),
}

pub fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Parse(args) => parse::run(args),
        Command::Aig(args) => aig::run(args),
        Command::Bench(b) => bench::run(b),
    }
}
