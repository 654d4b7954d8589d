//! One module per subcommand; [`run`] dispatches.

use crate::io::Failure;
use clap::Subcommand;

pub mod bench;
pub mod build;
#[path = "gen.rs"]
pub mod generate;
pub mod graph;
pub mod parse;
pub mod rtl;
pub mod sim;

#[derive(Subcommand)]
pub enum Command {
    /// Parse MLIR files and print a summary, the generic form, or JSON.
    Parse(parse::Args),
    /// Throughput benchmarks.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Compile a design (APS: a module with `tor.design`) to CMT2 MLIR and rules JSON.
    Build(build::Args),
    /// Run one APS instruction on the TOR interpreter or the rule simulator.
    Sim(sim::Args),
    /// Graphviz view of one function's rules and FIFOs.
    Graph(graph::Args),
    /// Generate a random workload (`aps`).
    Gen(generate::Args),
}

pub fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Parse(args) => parse::run(args),
        Command::Bench(command) => bench::run(command),
        Command::Build(args) => build::run(args),
        Command::Sim(args) => sim::run(args),
        Command::Graph(args) => graph::run(args),
        Command::Gen(args) => generate::run(args),
    }
}
