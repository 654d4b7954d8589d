//! One module per subcommand; [`run`] dispatches. Benchmarks and the workload generator
//! are not here: they are the `kiln-bench` binary (crate `bench/`), which runs `kiln`.

use crate::io::Failure;
use clap::Subcommand;

pub mod aig;
pub mod args;
pub mod build;
// The remote-cache build prints its summary itself.
#[allow(clippy::print_stdout, clippy::print_stderr)]
pub mod build_cached;
pub mod cache;
pub mod completions;
pub mod cosim;
pub mod daemon;
pub mod explain;
pub mod graph;
pub mod lsp;
pub mod parse;
pub mod rtl;
pub mod shutdown;
pub mod sim;
pub mod stats;
pub mod status;
pub mod synth;
pub mod synth_report;
pub mod verilator;
pub mod watch;
pub mod why;
#[allow(clippy::print_stdout, clippy::print_stderr)]
pub mod worker;

const WORKER_EXAMPLES: &str = "Examples:
  kiln worker --out-dir out --kind cmt2 design.mlir     one action, as a build system runs it
  kiln worker @action.flags                              the same from a flag file
  kiln worker --persistent_worker                        Bazel (rules_kiln sets this up)
  kiln worker --buck2                                    Buck2, on $WORKER_SOCKET";

#[derive(Subcommand)]
pub enum Command {
    /// Parse MLIR files and print a summary, the generic form, or JSON.
    Parse(parse::Args),
    /// Compile a design by content: APS (`tor.design`) to CMT2 MLIR and rules JSON,
    /// Handshake (`handshake.func`) to Synth MLIR, AIGER and BLIF.
    Build(build::BuildArgs),
    /// Run one APS instruction on the TOR interpreter or the rule simulator.
    Sim(sim::Args),
    /// Run a RISC-V program on Spike with its custom instructions on the design's hardware.
    Cosim(cosim::Args),
    /// Graphviz view of one function's rules and FIFOs.
    Graph(graph::Args),
    /// Lower BLIF files to AIGs (AIGER binary/ASCII or 2-input BLIF).
    Aig(aig::Args),
    /// Handshake → Synth: lower a handshake.func to a flat AIG (Synth MLIR, AIGER, BLIF).
    Synth(synth::Args),
    /// Per op of a handshake.func: library unit, built-in generator or subckt fallback.
    SynthReport(synth_report::Args),
    /// Run the workspace's daemon in the foreground.
    #[command(after_help = daemon::EXAMPLES)]
    Daemon(daemon::Args),
    /// Show the workspace's daemon (version, build, pid, socket).
    Status(status::Args),
    /// Query executions and cache hits per query kind, from the daemon.
    Stats(stats::Args),
    /// Stop the workspace's daemon.
    Shutdown(shutdown::Args),
    /// The persistent cache: statistics and garbage collection.
    #[command(subcommand, after_help = cache::EXAMPLES)]
    Cache(cache::Cache),
    /// Build, then rebuild on every change, through the daemon.
    Watch(watch::Args),
    /// Language server (LSP) on stdin/stdout, through the workspace's daemon.
    Lsp(lsp::Args),
    /// Why each query of the daemon's last build executed.
    Why(why::Args),
    /// Build-system worker: Bazel (`--persistent_worker`), Buck2 (`--buck2`) or one-shot.
    #[command(after_help = WORKER_EXAMPLES)]
    Worker(worker::Args),
    /// What a diagnostic code (`E0101`) means, its usual cause and fix.
    Explain(explain::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::Args),
    /// Write the man pages (kiln.1 and one per command).
    Man(completions::ManArgs),
}

pub fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Parse(args) => parse::run(args),
        Command::Build(args) => build::run(args),
        Command::Sim(args) => sim::run(args),
        Command::Cosim(args) => cosim::run(args),
        Command::Graph(args) => graph::run(args),
        Command::Aig(args) => aig::run(args),
        Command::Synth(args) => synth::run(args),
        Command::SynthReport(args) => synth_report::run(args),
        Command::Daemon(a) => daemon::run(a),
        Command::Status(a) => status::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Shutdown(a) => shutdown::run(a),
        Command::Cache(c) => cache::run(c),
        Command::Watch(a) => watch::run(a),
        Command::Worker(a) => worker::run(a),
        Command::Why(a) => why::run(a),
        Command::Lsp(a) => lsp::run(a),
        Command::Explain(a) => explain::run(a),
        Command::Completions(a) => completions::run(a),
        Command::Man(a) => completions::man(a),
    }
}
