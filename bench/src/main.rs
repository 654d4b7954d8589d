//! `kiln-bench`: kiln's benchmarks and its random workload generator, apart from the `kiln`
//! binary they measure.
//!
//! Each benchmark drives `kiln` as a child process — the `kiln` next to this executable
//! (`cargo build --release --workspace` builds both into `target/release/`), or with
//! `--kiln BIN` where a benchmark takes one — and measures it from outside: wall and CPU
//! time and the child's own peak RSS ([`common::measure`]), or the daemon's and the
//! language server's latency through their protocols. Where a benchmark breaks a build
//! down phase by phase (`aps`, `parse`, `qor`'s simulation), it calls the compiler's and
//! the daemon's libraries in this process, under the allocator `kiln` uses.
//!
//! `kiln-bench gen aps` writes the generated APS modules the benchmarks and tests build
//! (`compiler::aps::workload`). Results and how they were measured: `docs/bench.md`.

mod aig;
mod aps;
mod common;
mod daemon;
#[path = "gen.rs"]
mod generate;
mod lsp;
mod parse;
mod qor;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// The allocator `kiln` uses, so that in-process phases cost here what they cost there.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EXAMPLES: &str = "Examples:
  kiln-bench aig --abc --runs 5         BLIF to AIGER against ABC, in the same run
  kiln-bench daemon --runs 31           cold build, no-op and one-function edit latency
  kiln-bench aps --kiln ./kiln-before   another binary's cold build, for a before/after
  kiln-bench gen aps --functions 512 --seed 1 -o big.mlir

The `kiln` measured is the one next to kiln-bench (target/release/kiln after
`cargo build --release --workspace`), or --kiln BIN where a benchmark takes it.";

#[derive(Parser)]
#[command(
    name = "kiln-bench",
    version,
    about = "kiln's benchmarks (per area) and workload generator",
    after_help = EXAMPLES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// MLIR parsing throughput in MB/s.
    Parse(parse::ParseArgs),
    /// Daemon latency: cold build, warm no-op, one-function and one-BLIF-file edits.
    Daemon(daemon::Args),
    /// BLIF→AIG: `kiln aig` vs ABC (`--abc`) on blif_bench and the Dynamatic library.
    Aig(aig::AigArgs),
    /// Cold `kiln build` of a generated APS module, with an in-process phase breakdown.
    Aps(aps::Args),
    /// Editor latency: `didChange` → `publishDiagnostics` through `kiln lsp`.
    Lsp(lsp::Args),
    /// Generated hardware: cycles per APS instruction (slot, DMA, overhead), per loop
    /// iteration, and yosys cells; `--kiln BEFORE` for a before/after table.
    Qor(qor::Args),
    /// Generate a random workload (`aps`).
    Gen(generate::Args),
    /// Lower one BLIF file in this process, printing its read/parse/lower/write phase
    /// times on stderr (profiling; not a timed run).
    #[command(hide = true)]
    AigPhases { input: PathBuf, out: PathBuf },
}

fn main() {
    // Tables piped into `head` end the process quietly, as other command-line tools do.
    // SAFETY: restoring SIGPIPE's default action at start-up, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let result = match Cli::parse().command {
        Command::Parse(args) => parse::run(args),
        Command::Daemon(args) => daemon::run(args),
        Command::Aig(args) => aig::run(args),
        Command::Aps(args) => aps::run(args),
        Command::Lsp(args) => lsp::run(args),
        Command::Qor(args) => qor::run(args),
        Command::Gen(args) => generate::run(args),
        Command::AigPhases { input, out } => aig::phases(&input, &out),
    };
    if let Err(failure) = result {
        let message = failure.message;
        if !message.is_empty() {
            eprint!("{message}");
            if !message.ends_with('\n') {
                eprintln!();
            }
        }
        std::process::exit(failure.code);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn grammar_is_consistent() {
        Cli::command().debug_assert();
    }
}
