//! One module per subcommand; [`run`] dispatches.

use crate::io::Failure;
use clap::Subcommand;

pub mod aig;
pub mod bench;
pub mod bench_parse;
pub mod build;
#[path = "gen.rs"]
pub mod generate;
pub mod graph;
pub mod parse;
pub mod sim;
pub mod synth;
pub mod synth_report;

#[derive(Subcommand)]
pub enum Command {
    /// Parse MLIR files and print a summary, the generic form, or JSON.
    Parse(parse::Args),
    /// Compile a design (APS: a module with `tor.design`) to CMT2 MLIR and rules JSON.
    Build(build::Args),
    /// Run one APS instruction on the TOR interpreter or the rule simulator.
    Sim(sim::Args),
    /// Graphviz view of one function's rules and FIFOs.
    Graph(graph::Args),
    /// Generate a random workload (`aps`).
    Gen(generate::Args),
    /// Lower BLIF files to AIGs (AIGER binary/ASCII or 2-input BLIF).
    Aig(aig::Args),
    /// Benchmarks, per area.
    #[command(subcommand)]
    Bench(bench::Bench),
    /// Handshake → Synth: lower a handshake.func to a flat AIG (Synth MLIR, AIGER, BLIF).
    Synth(synth::Args),
    /// Per op of a handshake.func: library unit, built-in generator or subckt fallback.
    SynthReport(synth_report::Args),
}

pub fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Parse(args) => parse::run(args),
        Command::Build(args) => build::run(args),
        Command::Sim(args) => sim::run(args),
        Command::Graph(args) => graph::run(args),
        Command::Gen(args) => generate::run(args),
        Command::Aig(args) => aig::run(args),
        Command::Bench(b) => bench::run(b),
        Command::Synth(args) => synth::run(args),
        Command::SynthReport(args) => synth_report::run(args),
    }
}
