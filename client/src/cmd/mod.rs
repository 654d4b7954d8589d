//! One module per subcommand; [`run`] dispatches.

use crate::io::Failure;
use clap::Subcommand;

pub mod bench;
pub mod parse;

#[derive(Subcommand)]
pub enum Command {
    /// Parse MLIR files and print a summary, the generic form, or JSON.
    Parse(parse::Args),
    /// Throughput benchmarks.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

pub fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Parse(args) => parse::run(args),
        Command::Bench(command) => bench::run(command),
    }
}
