//! `kiln`: the command-line front end.
//!
//! The client is thin: it parses arguments, reads inputs, calls the `compiler` library
//! and prints or writes the results. Exit codes: 0 success, 1 input errors (diagnostics on
//! stderr), 2 usage errors (from clap, or a bad `kiln.toml`).
//!
//! Before the arguments are parsed, the nearest `kiln.toml` is read ([`config`]); standard
//! output and error are written through [`io`] (never a panic on a closed pipe), and
//! diagnostics shown through [`diagnostics`].

#![deny(clippy::print_stdout, clippy::print_stderr)]

/// `print!` through [`io::print_out`]: a closed pipe ends the process quietly.
macro_rules! out {
    ($($t:tt)*) => { $crate::io::print_out(&format!($($t)*)) };
}

/// `println!` through [`io::print_out`].
macro_rules! outln {
    ($($t:tt)*) => { $crate::io::print_out(&format!("{}\n", format_args!($($t)*))) };
}

/// `eprintln!` through [`io::print_err`] (never panics).
macro_rules! errln {
    ($($t:tt)*) => { $crate::io::print_err(&format!("{}\n", format_args!($($t)*))) };
}

mod cli;
mod cmd;
mod config;
mod daemon_client;
mod diagnostics;
mod io;
mod limits;
mod lsp;
mod progress;
mod size;
// The build-system worker speaks its protocols on standard output itself.
#[allow(clippy::print_stdout, clippy::print_stderr)]
mod worker;

use clap::Parser;

/// mimalloc reuses freed memory without glibc's consolidation passes, which dominate the
/// cost of building and dropping large op trees (see `kiln-bench parse`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Transparent huge pages off for this process. mimalloc asks for them on its arenas, and a
/// 2 MiB page is resident as soon as one byte of it is touched: with them, a small BLIF→AIG
/// run is resident at twice its size (13 MB instead of 7 at start-up), for no measurable
/// gain in time (see `kiln-bench aig`).
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integer arguments and only sets a process flag.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

fn main() {
    no_huge_pages();
    let cwd = std::env::current_dir().unwrap_or_default();
    // Before any thread: the `[remote]` table becomes the environment the flags read.
    let found = config::load(&cwd);
    if let Ok(found) = &found {
        config::apply_remote(found);
    }
    let cli = cli::Cli::parse();
    diagnostics::init(&cli.output);
    let result = found.and_then(|found| {
        let limits = limits::resolve(&cli.limits, found);
        kiln_daemon::input::set_limits(limits);
        cmd::run(cli.command)
    });
    if let Err(failure) = result {
        let mut tally = diagnostics::Tally::default();
        tally.show_all(&failure.located);
        let message = failure.message;
        if !message.is_empty() {
            io::print_err(&message);
            if !message.ends_with('\n') {
                io::print_err("\n");
            }
        }
        std::process::exit(failure.code);
    }
}
