//! `kiln why [OUTPUT|INPUT|FUNCTION] [--all] [--json]`: why each query of the daemon's last
//! build executed. First a summary (how many queries, because of which edits of which
//! functions or models), then the edits (`file:line:col`), then one line per query (its
//! file, function, block or model, its kind in brackets, and the reason: an edit, a
//! build-id change, a new input, a cache miss), at most [`MAX_LINES`] of them without
//! `--all`. An unknown target is an error (`E0012`); exits 1 when no daemon runs.
//! `kiln build --explain` and `kiln watch --explain` print the same after each build.

use crate::daemon_client::{self, fail};
use crate::io::{self, Failure};
use compiler::diag::{Code, Located, Severity};
use kiln_daemon::client::RpcError;
use kiln_daemon::why::Explanation;

/// Queries (and edits) listed in the human form without `--all`.
pub const MAX_LINES: usize = 50;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln why                       every query of the daemon's last build, and why it ran
  kiln why @f500                 one function's queries
  kiln why out/gcd.aig --json    what built one output, as JSON")]
pub struct Args {
    /// An output file, an input file, or a function or model (`@f500`); default: all.
    pub target: Option<String>,
    /// List every query (default: the first 50).
    #[arg(long)]
    pub all: bool,
    /// Print JSON (always every query).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let e = explanation(args.target.as_deref())?;
    if args.json {
        let json = serde_json::to_string_pretty(&e).map_err(fail)?;
        outln!("{json}");
        return Ok(());
    }
    let max = if args.all { usize::MAX } else { MAX_LINES };
    out!("{}", human(e, max, " (--all to list every one)"));
    Ok(())
}

/// The last build's explanation from the running daemon (about `target`, if given); an
/// error naming what the build knows when it does not know `target`.
fn explanation(target: Option<&str>) -> Result<Explanation, Failure> {
    let c = daemon_client::connector()?;
    let rt = daemon_client::runtime()?;
    let e = rt.block_on(async {
        let Some(mut client) = c.connect_existing().await else {
            return Err(Failure::input("kiln daemon: not running"));
        };
        client.why(target).await.map_err(fail)
    })?;
    match &e.unknown {
        Some(u) => {
            let mut m = Located::file(
                u.target.clone(),
                Severity::Error,
                "not an output, input, function or model of the daemon's last build",
            )
            .with_code(Code::UnknownSubject);
            let mut known = Explanation {
                unknown: Some(u.clone()),
                ..Explanation::default()
            };
            if let Ok(dir) = std::env::current_dir() {
                known.relative_to(&dir);
            }
            let known = known.unknown.map(|u| u.known).unwrap_or_default();
            m.notes.push(if known.is_empty() {
                "the last build has no inputs".to_string()
            } else {
                format!("the last build knows {}", known.join("; "))
            });
            Err(Failure::located(vec![m]))
        }
        None => Ok(e),
    }
}

/// The human form of `e`: paths relative to the current directory, at most `max` lines
/// of changes and of queries, then `hint`.
fn human(mut e: Explanation, max: usize, hint: &str) -> String {
    if let Ok(dir) = std::env::current_dir() {
        e.relative_to(&dir);
    }
    e.render_at_most(max, hint)
}

/// What `--explain` of `build` and `watch` prints of `e` (on stderr).
fn explained(e: Explanation) -> String {
    human(e, MAX_LINES, " (`kiln why --all` lists every one)")
}

/// `--explain` of `build` and `watch`: the explanation on stderr (after an in-process
/// build, which runs no queries, a note saying so).
pub fn print_after_build(no_daemon: bool) {
    if daemon_client::no_daemon_requested(no_daemon) {
        errln!("kiln: --explain: an in-process build runs no queries to explain");
        return;
    }
    match explanation(None) {
        Ok(e) => io::print_err(&explained(e)),
        Err(f) => errln!("kiln: --explain: {}", f.message),
    }
}

/// `--explain` of `watch`, given the daemon's answer.
pub fn print_explained(e: Result<Explanation, RpcError>) {
    match e {
        Ok(e) => io::print_err(&explained(e)),
        Err(e) => errln!("kiln: --explain: {e}"),
    }
}
