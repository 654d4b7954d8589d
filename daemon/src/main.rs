//! `kiln-daemon daemon [ARGS]`: the daemon alone, without the rest of the `kiln` command
//! (used by the daemon crate's own tests; users run `kiln daemon`).

use clap::Parser;

#[derive(Parser)]
#[command(name = "kiln-daemon", version)]
enum Cli {
    /// Run the daemon in the foreground.
    Daemon(kiln_daemon::server::Args),
}

fn main() {
    let Cli::Daemon(args) = Cli::parse();
    if let Err(e) = args.options().and_then(kiln_daemon::server::run) {
        eprintln!("kiln daemon: error: {e}");
        std::process::exit(1);
    }
}
