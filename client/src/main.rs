//! `kiln`: the command-line front end.
//!
//! The client is thin: it parses arguments, reads inputs, calls the `compiler` library
//! and prints or writes the results. Exit codes: 0 success, 1 input errors (diagnostics on
//! stderr), 2 usage errors (from clap).

mod cmd;
mod daemon_client;
mod io;
mod limits;
mod lsp;
mod worker;

use clap::Parser;

/// mimalloc reuses freed memory without glibc's consolidation passes, which dominate the
/// cost of building and dropping large op trees (see `kiln bench parse`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Transparent huge pages off for this process. mimalloc asks for them on its arenas, and a
/// 2 MiB page is resident as soon as one byte of it is touched: with them, a small BLIF→AIG
/// run is resident at twice its size (13 MB instead of 7 at start-up), for no measurable
/// gain in time (see `kiln bench aig`).
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integer arguments and only sets a process flag.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

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
    no_huge_pages();
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
