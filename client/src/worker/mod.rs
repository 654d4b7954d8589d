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
//!
//! Requests of the persistent protocols come from a long-running build system, so their
//! paths are confined to the base directory (by their text and by resolution: `..`,
//! absolute paths and symbolic links leading out of it are refused, see [`confine`]) unless
//! `--allow-outside-execroot` says otherwise, and each runs as a [`flight::Flight`], which
//! a cancel stops without anything written after its answer.

pub mod bazel;
pub mod buck2;
pub mod confine;
pub mod flight;
mod frame;
mod json_stream;

use crate::daemon_client;
use clap::Parser;
use compiler::diag::Located;
use confine::{Access, Declared, confined};
use flight::Flight;
use kiln_daemon::report::BuildReport;
use kiln_daemon::request::{BuildSpec, OutputKind};
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
    /// Refuse paths that lead out of a request's base directory (see [`confine`]).
    pub confine: bool,
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
    /// The top: an APS input's SystemVerilog module name (default `main`), a BLIF input's
    /// model to lower.
    #[arg(long)]
    pub top: Option<String>,
    /// The architecture of an APS input's rules: `fsm` (default) or `fifo`.
    #[arg(long, value_parser = crate::cmd::sim::parse_style)]
    pub style: Option<compiler::aps::Style>,
    /// The SoC's CSR list (`aps_config.yaml`): an APS input's CSR lanes.
    #[arg(long)]
    pub aps_config: Option<PathBuf>,
    /// Build in this process even when a daemon runs.
    #[arg(long)]
    pub no_daemon: bool,
    /// Lint levels (`--allow/--warn/--deny CODE`), as `kiln build` takes them; the
    /// worker's `kiln.toml` does not apply (an action says all it needs).
    #[command(flatten)]
    pub lints: crate::cmd::args::LintArgs,
}

/// What one action produced: the exit code and the text for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub exit_code: i32,
    pub output: String,
}

impl Outcome {
    /// A request that cannot run as given (exit code 2); `msg` ends with a newline.
    fn usage(msg: impl Into<String>) -> Outcome {
        let mut output = msg.into();
        if !output.is_empty() && !output.ends_with('\n') {
            output.push('\n');
        }
        Outcome {
            exit_code: 2,
            output,
        }
    }
}

/// Expand `@file` arguments (one argument per line, Bazel's "multiline" format); with
/// `confine`, a flag file must lie below `base` (or be one of the `declared` inputs).
pub fn expand_flagfiles(
    args: &[String],
    base: &Path,
    confine: bool,
    declared: &Declared,
) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for a in args {
        let Some(file) = a.strip_prefix('@') else {
            out.push(a.clone());
            continue;
        };
        let path = confined(base, Path::new(file), confine, Access::Read(declared))?;
        let bytes = kiln_daemon::input::read(&path)
            .map_err(|e| format!("error: {}: {e}", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("error: {}: flag file is not UTF-8", path.display()))?;
        out.extend(text.lines().filter(|l| !l.is_empty()).map(str::to_string));
    }
    Ok(out)
}

/// The digests a build system gives for an action's input files, by absolute path.
pub type Digests = BTreeMap<PathBuf, [u8; 32]>;

/// What a build system tells about a request's inputs besides its arguments.
#[derive(Debug, Default)]
pub struct Given {
    /// Their digests (see [`input_digests`]).
    pub digests: Digests,
    /// Their paths (see [`confine`]).
    pub declared: Declared,
}

/// The SHA-256 digests among a Bazel request's inputs, for the `.mlir` and `.blif` files,
/// with paths resolved against `base` (and confined to it with `policy.confine`). Bazel
/// sends the lowercase hex of its digest (SHA-256 by default) as the bytes; 32 raw bytes
/// that are not hex are taken as the digest itself. The hex of other digest functions (32,
/// 40, 96 or 128 digits: MD5, SHA-1, SHA-384, SHA-512) and empty digests (directories) are
/// left out, so those files are read as without one; anything else is a malformed request.
/// With `--digest_function=blake3` (also 64 hex digits) pass `--input-digests=ignore`, which
/// leaves every digest unread.
pub fn input_digests(
    inputs: &[pb::bazel::Input],
    base: &Path,
    policy: DaemonPolicy,
) -> Result<Digests, String> {
    let mut out = Digests::new();
    if policy.ignore_digests {
        return Ok(out);
    }
    for i in inputs {
        let p = Path::new(&i.path);
        let path = confined(base, p, policy.confine, Access::Declared)?;
        let sha256 = sha256_of(&i.digest).map_err(|why| {
            format!(
                "error: {}: input digest {why} (`--input-digests=ignore` leaves digests unread)",
                i.path
            )
        })?;
        let source = kiln_daemon::request::is_mlir(p) || kiln_daemon::request::is_blif(p);
        if let (true, Some(d)) = (source, sha256) {
            out.insert(path, d);
        }
    }
    Ok(out)
}

/// The SHA-256 a request's digest gives, `None` for a well-formed digest that is not one
/// (see [`input_digests`]), or why it is malformed.
fn sha256_of(d: &[u8]) -> Result<Option<[u8; 32]>, String> {
    let hex = d.iter().all(u8::is_ascii_hexdigit);
    match (d.len(), hex) {
        (0, _) => Ok(None),
        (64, true) => Ok(std::str::from_utf8(d)
            .ok()
            .and_then(kiln_daemon::request::parse_hex)),
        (32 | 40 | 96 | 128, true) => Ok(None),
        (32, false) => Ok(<[u8; 32]>::try_from(d).ok()),
        (n, _) => Err(format!(
            "of {n} bytes is malformed: neither the hex digits of a digest nor 32 raw bytes"
        )),
    }
}

/// The output kinds of an action: the `--kind`s, with `synth` standing for Handshake's four.
fn kinds(names: &[String]) -> Result<Vec<OutputKind>, String> {
    let mut kinds = Vec::new();
    for name in names {
        match name.as_str() {
            "synth" => kinds.extend(compiler::flow::Flow::Handshake.default_kinds()),
            _ => kinds.extend(
                kiln_daemon::request::parse_kinds(std::slice::from_ref(name))
                    .map_err(|e| e.to_string())?,
            ),
        }
    }
    Ok(kinds)
}

/// Run one action whose arguments are already expanded, with paths relative to `base`;
/// `given` says what the build system told about its inputs. `None`: the request's
/// `flight` was stopped before anything was written (its stopper answers it).
pub fn run_action(
    args: &[String],
    base: &Path,
    policy: DaemonPolicy,
    given: &Given,
    flight: &Flight,
) -> Option<Outcome> {
    let spec = match action_spec(args, base, policy, given) {
        Ok(spec) => spec,
        Err(usage) => return Some(usage),
    };
    test_delay();
    if flight.is_stopped() {
        return None;
    }
    let no_daemon = spec.1 || policy.never;
    build(&spec.0, no_daemon, policy.start, flight).map(|r| outcome(&r))
}

/// The build of an action, and whether it asked for `--no-daemon`.
fn action_spec(
    args: &[String],
    base: &Path,
    policy: DaemonPolicy,
    given: &Given,
) -> Result<(BuildSpec, bool), Outcome> {
    let parsed = ActionArgs::try_parse_from(args).map_err(|e| Outcome::usage(e.to_string()))?;
    let kinds = kinds(&parsed.kinds).map_err(|e| Outcome::usage(format!("error: {e}")))?;
    let path = |p: &Path, access| confined(base, p, policy.confine, access).map_err(Outcome::usage);
    let read = |p: &Path| path(p, Access::Read(&given.declared));
    let inputs = parsed
        .inputs
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<PathBuf>, _>>()?;
    let library = crate::cmd::args::HandshakeArgs {
        blif_lib: parsed.blif_lib.as_deref().map(read).transpose()?,
        rtl_lib: None,
        path_table: None,
        synth_dialect: crate::cmd::args::DialectArg::Circt,
        naming: crate::cmd::args::NamingArg::ArgNames,
    };
    let aps_config = match (parsed.aps_config.as_deref()).map(read).transpose()? {
        // Its messages name the file as the action does.
        Some(p) => {
            let shown = parsed
                .aps_config
                .as_deref()
                .unwrap_or(&p)
                .display()
                .to_string();
            Some(
                kiln_daemon::input::aps_config(&p, &shown).map_err(|messages| {
                    Outcome::usage(messages.iter().map(Located::render).collect::<String>())
                })?,
            )
        }
        None => None,
    };
    let spec = BuildSpec {
        aps_config,
        handshake: crate::cmd::args::handshake_spec(&inputs[0], &library),
        out_dir: path(&parsed.out_dir, Access::Write)?,
        inputs,
        kinds,
        input_digests: std::sync::Arc::new(given.digests.clone()),
        // The worker's own limits (its flags and `kiln.toml`), also in a daemon.
        limits: Some(kiln_daemon::input::limits()),
        lints: parsed.lints.given(),
        top: parsed.top.clone(),
        style: parsed.style.unwrap_or_default(),
        ..BuildSpec::default()
    };
    Ok((spec, parsed.no_daemon))
}

/// Build through a daemon if allowed and running, else in process; `None` when `flight`
/// was stopped before anything was written. A daemon writes as it builds, so the request
/// counts as writing from the moment it is sent; a build in this process only once computed.
fn build(spec: &BuildSpec, no_daemon: bool, start: bool, flight: &Flight) -> Option<BuildReport> {
    let in_process = || kiln_daemon::oneshot::build_gated(spec, || flight.may_write());
    if no_daemon {
        return in_process();
    }
    if start {
        return flight
            .may_write()
            .then(|| daemon_client::build(spec, false));
    }
    let running = daemon_client::connector()
        .ok()
        .filter(|c| c.dir.read_info().is_some());
    let Some(c) = running else {
        return in_process();
    };
    if !flight.may_write() {
        return None;
    }
    let report = kiln_daemon::client::build_on_running(&c, spec);
    Some(report.unwrap_or_else(|| daemon_client::build_in_process(spec)))
}

/// The exit code and user text of a build report.
pub fn outcome(report: &BuildReport) -> Outcome {
    Outcome {
        exit_code: if report.ok() { 0 } else { 1 },
        output: report.rendered(),
    }
}

/// Expand flagfiles against `base` and run the action as `flight` (no inputs declared).
pub fn run_expanding(
    args: &[String],
    base: &Path,
    policy: DaemonPolicy,
    flight: &Flight,
) -> Option<Outcome> {
    let given = Given::default();
    match expand_flagfiles(args, base, policy.confine, &given.declared) {
        Ok(expanded) => run_action(&expanded, base, policy, &given, flight),
        Err(msg) => Some(Outcome::usage(msg)),
    }
}

/// One-shot: expand flagfiles against the cwd and run the action once.
pub fn run_oneshot(args: &[String], policy: DaemonPolicy) -> Outcome {
    let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let never_stopped = Flight::default();
    run_expanding(args, &base, policy, &never_stopped).unwrap_or_else(|| Outcome::usage(""))
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
