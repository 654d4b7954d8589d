//! One module per subcommand; [`run`] dispatches.

use crate::io::Failure;
use clap::Subcommand;

pub mod aig;
pub mod bench;
pub mod bench_aps;
pub mod bench_daemon;
pub mod bench_parse;
pub mod bench_qor;
pub mod build;
pub mod build_cached;
pub mod cache;
pub mod daemon;
#[path = "gen.rs"]
pub mod generate;
pub mod graph;
pub mod parse;
pub mod rtl;
pub mod shutdown;
pub mod sim;
pub mod stats;
pub mod status;
pub mod synth;
pub mod synth_report;
pub mod watch;
pub mod worker;

#[derive(Subcommand)]
pub enum Command {
    /// Parse MLIR files and print a summary, the generic form, or JSON.
    Parse(parse::Args),
    /// Compile a design by content: APS (`tor.design`) to CMT2 MLIR and rules JSON,
    /// Handshake (`handshake.func`) to Synth MLIR, AIGER and BLIF.
    Build(build::Args),
    /// Run one APS instruction on the TOR interpreter or the rule simulator.
    Sim(sim::Args),
    /// Graphviz view of one function's rules and FIFOs.
    Graph(graph::Args),
    /// Generate a random workload (`aps`).
    Gen(generate::Args),
    /// Lower BLIF files to AIGs (AIGER binary/ASCII or 2-input BLIF).
    Aig(aig::Args),
    /// Handshake → Synth: lower a handshake.func to a flat AIG (Synth MLIR, AIGER, BLIF).
    Synth(synth::Args),
    /// Per op of a handshake.func: library unit, built-in generator or subckt fallback.
    SynthReport(synth_report::Args),
    /// Benchmarks, per area.
    #[command(subcommand)]
    Bench(bench::Bench),
    /// Run the workspace's daemon in the foreground.
    Daemon(daemon::Args),
    /// Show the workspace's daemon (version, build, pid, socket).
    Status(status::Args),
    /// Query executions and cache hits per query kind, from the daemon.
    Stats(stats::Args),
    /// Stop the workspace's daemon.
    Shutdown(shutdown::Args),
    /// The persistent cache: statistics and garbage collection.
    #[command(subcommand)]
    Cache(cache::Cache),
    /// Build, then rebuild on every change, through the daemon.
    Watch(watch::Args),
    /// Build-system worker: Bazel (`--persistent_worker`), Buck2 (`--buck2`) or one-shot.
    Worker(worker::Args),
}

pub fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Parse(args) => parse::run(args),
        Command::Build(args) => build::run(args),
        Command::Sim(args) => sim::run(args),
        Command::Graph(args) => graph::run(args),
        Command::Gen(args) => generate::run(args),
        Command::Aig(args) => aig::run(args),
        Command::Synth(args) => synth::run(args),
        Command::SynthReport(args) => synth_report::run(args),
        Command::Bench(b) => bench::run(b),
        Command::Daemon(a) => daemon::run(a),
        Command::Status(a) => status::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Shutdown(a) => shutdown::run(a),
        Command::Cache(c) => cache::run(c),
        Command::Watch(a) => watch::run(a),
        Command::Worker(a) => worker::run(a),
    }
}
