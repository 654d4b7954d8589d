//! Worker shims for build systems: one action = one kiln build of explicit inputs.
//!
//! The shims hold no compiler state. An action's arguments (after `@flagfile` expansion)
//! name the inputs, the output directory and the output kinds; paths are resolved against
//! the action's base directory (the worker's cwd, or Bazel's `sandbox_dir`). The build goes
//! to the workspace's running daemon when one answers (or is started with
//! `--start-daemon`), else runs in this process through the compiler's flows with the
//! daemon's jobs and writer, so outputs are byte-identical either way.
//!
//! - [`bazel`]: Bazel's persistent-worker protocol on stdin/stdout (proto or JSON).
//! - [`buck2`]: Buck2's `worker.Worker` gRPC service on `$WORKER_SOCKET`.
//! - [`run_oneshot`]: the same arguments run once (sandboxed or remote actions).

pub mod bazel;
pub mod buck2;

use crate::daemon_client;
use clap::Parser;
use kiln_daemon::report::BuildReport;
use kiln_daemon::spec::{BuildSpec, OutputKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Generated protocol types.
pub mod pb {
    pub mod bazel {
        include!(concat!(env!("OUT_DIR"), "/blaze.worker.rs"));
    }
    pub mod buck2 {
        include!(concat!(env!("OUT_DIR"), "/worker.rs"));
    }
}

/// How the shim reaches the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DaemonPolicy {
    /// Never use a daemon (in-process builds only).
    pub never: bool,
    /// Start the workspace's daemon when none runs (default: only use a running one).
    pub start: bool,
    /// Do not pass the build system's input digests on (see [`input_digests`]).
    pub ignore_digests: bool,
    /// Log one line per Bazel request on stderr (the worker's log file).
    pub log_requests: bool,
}

/// One action's arguments, as listed in the flagfile.
#[derive(Parser, Debug)]
#[command(name = "kiln-action", no_binary_name = true)]
pub struct ActionArgs {
    /// Input files (`.mlir`, `.blif`).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output directory.
    #[arg(long)]
    pub out_dir: PathBuf,
    /// Output kinds to emit (`cmt2`, `rules-json`, `aig`, `aag`, `sv`, and `synth` for
    /// the four outputs of Handshake → Synth); default: the flow's own.
    #[arg(long = "kind")]
    pub kinds: Vec<String>,
    /// The per-unit BLIF library of Handshake inputs.
    #[arg(long)]
    pub blif_lib: Option<PathBuf>,
    /// Build in this process even when a daemon runs.
    #[arg(long)]
    pub no_daemon: bool,
}

/// What one action produced: the exit code and the text for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub exit_code: i32,
    pub output: String,
}

impl Outcome {
    fn usage(msg: impl Into<String>) -> Outcome {
        Outcome {
            exit_code: 2,
            output: msg.into(),
        }
    }
}

/// Expand `@file` arguments (one argument per line, Bazel's "multiline" format).
pub fn expand_flagfiles(args: &[String], base: &Path) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for a in args {
        let Some(file) = a.strip_prefix('@') else {
            out.push(a.clone());
            continue;
        };
        let path = resolve(base, Path::new(file));
        let bytes = kiln_daemon::input::read(&path)
            .map_err(|e| format!("error: {}: {e}", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("error: {}: flag file is not UTF-8", path.display()))?;
        out.extend(text.lines().filter(|l| !l.is_empty()).map(str::to_string));
    }
    Ok(out)
}

/// `path` if absolute, else joined onto `base`.
pub fn resolve(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// The digests a build system gives for an action's input files, by absolute path.
pub type Digests = BTreeMap<PathBuf, [u8; 32]>;

/// The SHA-256 digests among a Bazel request's inputs, for the `.mlir` and `.blif` files,
/// with paths resolved against `base`. Bazel sends the lowercase hex of its digest (SHA-256
/// by default) as the bytes; 32 raw bytes are taken as the digest itself. Other digests
/// (other lengths: MD5, SHA-1, none for directories) are left out, so those files are read
/// as without one. With `--digest_function=blake3` (also 64 hex digits) pass
/// `--input-digests=ignore`.
pub fn input_digests(inputs: &[pb::bazel::Input], base: &Path, policy: DaemonPolicy) -> Digests {
    if policy.ignore_digests {
        return Digests::new();
    }
    let sha256 = |d: &[u8]| -> Option<[u8; 32]> {
        if let Ok(raw) = <[u8; 32]>::try_from(d) {
            return Some(raw);
        }
        kiln_daemon::digests::parse_hex(std::str::from_utf8(d).ok()?)
    };
    inputs
        .iter()
        .filter(|i| {
            let p = Path::new(&i.path);
            kiln_daemon::spec::is_mlir(p) || kiln_daemon::spec::is_blif(p)
        })
        .filter_map(|i| Some((resolve(base, Path::new(&i.path)), sha256(&i.digest)?)))
        .collect()
}

/// The output kinds of an action: the `--kind`s, with `synth` standing for Handshake's four.
fn kinds(names: &[String]) -> Result<Vec<OutputKind>, String> {
    let mut kinds = Vec::new();
    for name in names {
        match name.as_str() {
            "synth" => kinds.extend(compiler::flow::Flow::Handshake.default_kinds()),
            _ => kinds.extend(
                kiln_daemon::spec::parse_kinds(std::slice::from_ref(name))
                    .map_err(|e| e.to_string())?,
            ),
        }
    }
    Ok(kinds)
}

/// Run one action whose arguments are already expanded, with paths relative to `base`;
/// `digests` are the build system's digests of input files (absolute paths).
pub fn run_action(
    args: &[String],
    base: &Path,
    policy: DaemonPolicy,
    digests: &Digests,
) -> Outcome {
    let parsed = match ActionArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return Outcome::usage(e.to_string()),
    };
    let kinds = match kinds(&parsed.kinds) {
        Ok(k) => k,
        Err(e) => return Outcome::usage(format!("error: {e}")),
    };
    let inputs: Vec<PathBuf> = parsed.inputs.iter().map(|p| resolve(base, p)).collect();
    let library = crate::cmd::synth::HandshakeArgs {
        blif_lib: parsed.blif_lib.as_deref().map(|l| resolve(base, l)),
        path_table: None,
        synth_dialect: crate::cmd::synth::DialectArg::Circt,
        naming: crate::cmd::synth::NamingArg::ArgNames,
    };
    let spec = BuildSpec {
        handshake: crate::cmd::build::handshake_spec(&inputs[0], &library),
        out_dir: resolve(base, &parsed.out_dir),
        inputs,
        kinds,
        input_digests: std::sync::Arc::new(digests.clone()),
        ..BuildSpec::default()
    };
    test_delay();
    let no_daemon = parsed.no_daemon || policy.never;
    outcome(&build(&spec, no_daemon, policy.start))
}

/// Build through a daemon if allowed and reachable, else in process.
fn build(spec: &BuildSpec, no_daemon: bool, start: bool) -> BuildReport {
    if no_daemon {
        return daemon_client::build_in_process(spec);
    }
    if start {
        return daemon_client::build(spec, false);
    }
    let running = daemon_client::connector()
        .ok()
        .and_then(|c| kiln_daemon::client::build_on_running(&c, spec));
    running.unwrap_or_else(|| daemon_client::build_in_process(spec))
}

/// The exit code and user text of a build report.
pub fn outcome(report: &BuildReport) -> Outcome {
    Outcome {
        exit_code: if report.ok() { 0 } else { 1 },
        output: report.rendered(),
    }
}

/// One-shot: expand flagfiles against the cwd and run the action once.
pub fn run_oneshot(args: &[String], policy: DaemonPolicy) -> Outcome {
    let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    match expand_flagfiles(args, &base) {
        Ok(expanded) => run_action(&expanded, &base, policy, &Digests::new()),
        Err(msg) => Outcome::usage(msg),
    }
}

/// `KILN_WORKER_TEST_DELAY_MS` holds every action that long before it builds, so protocol
/// tests can cancel a request that is still running.
fn test_delay() {
    let ms = std::env::var("KILN_WORKER_TEST_DELAY_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(ms) = ms {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}
