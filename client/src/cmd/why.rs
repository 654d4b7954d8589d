//! `kiln why [OUTPUT|INPUT|FUNCTION] [--json]`: why each query of the daemon's last build
//! executed — which input changed (file, function, byte range), a build-id change, a new
//! input, a cache miss (key absent, entry corrupt, evicted, remote rejection). Exits 1 when
//! no daemon runs. `kiln build --explain` and `kiln watch --explain` print the same after
//! each build.

use crate::daemon_client::{self, fail};
use crate::io::Failure;
use kiln_daemon::explain::Explanation;
use kiln_daemon::rpc::RpcError;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln why                       every query of the daemon's last build, and why it ran
  kiln why @f500                 one function's queries
  kiln why out/gcd.aig --json    what built one output, as JSON")]
pub struct Args {
    /// An output file, an input file, or a function or model (`@f500`); default: all.
    pub target: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    out!("{}", explanation(args.target.as_deref(), args.json)?);
    Ok(())
}

/// The last build's explanation from the running daemon, as text or JSON.
pub fn explanation(target: Option<&str>, json: bool) -> Result<String, Failure> {
    let c = daemon_client::connector()?;
    let rt = daemon_client::runtime()?;
    let e = rt.block_on(async {
        let Some(mut client) = c.connect_existing().await else {
            return Err(Failure::input("kiln daemon: not running"));
        };
        client.why(target).await.map_err(fail)
    })?;
    if json {
        return serde_json::to_string_pretty(&e)
            .map(|s| s + "\n")
            .map_err(fail);
    }
    Ok(e.render())
}

/// `--explain` of `build` and `watch`: the explanation on stderr (after an in-process
/// build, which runs no queries, a note saying so).
pub fn print_after_build(no_daemon: bool) {
    if daemon_client::no_daemon_requested(no_daemon) {
        errln!("kiln: --explain: an in-process build runs no queries to explain");
        return;
    }
    match explanation(None, false) {
        Ok(text) => crate::io::print_err(&text),
        Err(f) => errln!("kiln: --explain: {}", f.message),
    }
}

/// `--explain` of `watch`, given the daemon's answer.
pub fn print_explained(e: Result<Explanation, RpcError>) {
    match e {
        Ok(e) => crate::io::print_err(&e.render()),
        Err(e) => errln!("kiln: --explain: {e}"),
    }
}
