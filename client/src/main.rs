//! `kiln`: the command-line front end.
//!
//! The client is thin: it parses arguments, reads inputs, calls the `compiler` library
//! and prints or writes the results. Exit codes: 0 success, 1 input errors (diagnostics on
//! stderr), 2 usage errors (from clap).

mod cmd;
mod daemon_client;
mod io;
mod limits;
mod worker;

use clap::Parser;

/// mimalloc reuses freed memory without glibc's consolidation passes, which dominate the
/// cost of building and dropping large op trees (see `kiln bench parse`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "kiln",
    version,
    about = "Incremental compiler for hardware design flows"
)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
    #[command(flatten)]
    limits: limits::LimitArgs,
}

fn main() {
    let cli = Cli::parse();
    let cwd = std::env::current_dir().unwrap_or_default();
    let limits = limits::resolve(&cli.limits, &cwd);
    match limits.and_then(|l| {
        kiln_daemon::input::set_limits(l);
        cmd::run(cli.command)
    }) {
        Ok(()) => {}
        Err(failure) => {
            eprint!("{}", failure.message);
            if !failure.message.ends_with('\n') {
                eprintln!();
            }
            std::process::exit(failure.code);
        }
    }
}
