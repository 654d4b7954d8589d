//! `kiln worker`: the build-system worker shim (see [`crate::worker`]).
//!
//! `--persistent_worker` serves Bazel's worker protocol on stdin/stdout, `--buck2` serves
//! Buck2's on `$WORKER_SOCKET`; otherwise the arguments (with `@flagfile`s) run once.

use crate::io::Failure;
use crate::worker::{self, DaemonPolicy, bazel::Protocol};

#[derive(clap::Args)]
pub struct Args {
    /// Serve Bazel's persistent-worker protocol on stdin/stdout.
    #[arg(long = "persistent_worker")]
    pub persistent_worker: bool,
    /// Serve Buck2's worker protocol on the Unix socket `$WORKER_SOCKET`.
    #[arg(long, conflicts_with = "persistent_worker")]
    pub buck2: bool,
    /// Bazel's wire format (`requires-worker-protocol`).
    #[arg(long, value_enum, default_value = "proto")]
    pub worker_protocol: Protocol,
    /// Start the workspace's daemon if none runs (default: use a running one, else build
    /// in process).
    #[arg(long)]
    pub start_daemon: bool,
    /// Never use a daemon.
    #[arg(long, conflicts_with = "start_daemon")]
    pub no_daemon: bool,
    /// Bazel's per-input digests: `use` (SHA-256, Bazel's default digest function: the
    /// daemon skips re-reading inputs it verified under that digest and rejects a file that
    /// does not match) or `ignore` (for other digest functions such as BLAKE3).
    #[arg(long, value_enum, default_value = "use")]
    pub input_digests: InputDigests,
    /// Log one line per request on stderr, which Bazel keeps as the worker's log file
    /// (request id, exit code, input digests passed on) and Buck2 as the worker's `stderr`
    /// file (exit code, arguments).
    #[arg(long)]
    pub log_requests: bool,
    /// Accept paths in persistent-worker requests that lead out of the worker's directory
    /// (its cwd, Bazel's execroot or sandbox; Buck2's project root): `..` or absolute
    /// inputs, output directories, libraries and flag files. Refused by default.
    #[arg(long)]
    pub allow_outside_execroot: bool,
    /// One-shot action arguments: `[--out-dir DIR] [--kind K]... INPUT...` or `@flagfile`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// What the Bazel worker does with `WorkRequest.inputs[].digest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputDigests {
    Use,
    Ignore,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let policy = DaemonPolicy {
        never: args.no_daemon,
        start: args.start_daemon,
        ignore_digests: args.input_digests == InputDigests::Ignore,
        log_requests: args.log_requests,
        // One-shot arguments come from whoever runs the command, as for `kiln build`.
        confine: (args.persistent_worker || args.buck2) && !args.allow_outside_execroot,
    };
    if args.persistent_worker {
        return worker::bazel::serve(args.worker_protocol, policy)
            .map_err(|e| Failure::input(format!("error: worker: {e}")));
    }
    if args.buck2 {
        return worker::buck2::serve(policy)
            .map_err(|e| Failure::input(format!("error: worker: {e}")));
    }
    let outcome = worker::run_oneshot(&args.args, policy);
    if outcome.exit_code == 0 {
        eprint!("{}", outcome.output);
        return Ok(());
    }
    Err(Failure {
        code: outcome.exit_code,
        ..Failure::input(outcome.output)
    })
}
