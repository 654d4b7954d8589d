//! Worker shims for build systems: one action = one kiln build of explicit inputs.
//!
//! The shims hold no compiler state. An action's arguments (after `@flagfile` expansion)
//! name the inputs, the output directory and the output kinds; paths are resolved against
//! the action's base directory (the worker's cwd, or Bazel's `sandbox_dir`). The build goes
//! to the workspace's running daemon when one answers (or is started with
//! `--start-daemon`), else runs in this process on a fresh database; both go through the
//! daemon's driver, so outputs are byte-identical either way.
//!
//! - [`bazel`]: Bazel's persistent-worker protocol on stdin/stdout (proto or JSON).
//! - [`buck2`]: Buck2's `worker.Worker` gRPC service on `$WORKER_SOCKET`.
//! - [`run_oneshot`]: the same arguments run once (sandboxed or remote actions).

pub mod bazel;
pub mod buck2;
pub mod direct;

use crate::daemon_client;
use clap::Parser;
use kiln_daemon::proto;
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
    /// Handshake → Synth); default: the flow's own.
    #[arg(long = "kind")]
    pub kinds: Vec<String>,
    /// The per-unit BLIF library of a `synth` action.
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

/// The SHA-256 digests among a Bazel request's inputs, for the `.mlir` and `.blif` files,
/// with paths resolved against `base`. Bazel sends the lowercase hex of its digest (SHA-256
/// by default) as the bytes; 32 raw bytes are taken as the digest itself. Other digests
/// (other lengths: MD5, SHA-1, none for directories) are left out, so those files are read
/// as without one. With `--digest_function=blake3` (also 64 hex digits) pass
/// `--input-digests=ignore`.
pub fn input_digests(
    inputs: &[pb::bazel::Input],
    base: &Path,
    policy: DaemonPolicy,
) -> Vec<proto::InputDigest> {
    if policy.ignore_digests {
        return Vec::new();
    }
    let sha256 = |d: &[u8]| -> Option<String> {
        if d.len() == 32 {
            return Some(d.iter().map(|b| format!("{b:02x}")).collect());
        }
        let text = std::str::from_utf8(d).ok()?;
        kiln_daemon::digests::parse_hex(text)?;
        Some(text.to_ascii_lowercase())
    };
    inputs
        .iter()
        .filter(|i| {
            let p = Path::new(&i.path);
            kiln_daemon::driver::is_mlir(p) || kiln_daemon::driver::is_blif(p)
        })
        .filter_map(|i| {
            Some(proto::InputDigest {
                path: resolve(base, Path::new(&i.path))
                    .to_string_lossy()
                    .into_owned(),
                sha256: sha256(&i.digest)?,
            })
        })
        .collect()
}

/// Run one action whose arguments are already expanded, with paths relative to `base`;
/// `digests` are the build system's digests of input files (absolute paths).
pub fn run_action(
    args: &[String],
    base: &Path,
    policy: DaemonPolicy,
    digests: &[proto::InputDigest],
) -> Outcome {
    let parsed = match ActionArgs::try_parse_from(args) {
        Ok(p) => p,
        Err(e) => return Outcome::usage(e.to_string()),
    };
    let inputs: Vec<PathBuf> = parsed.inputs.iter().map(|p| resolve(base, p)).collect();
    let out_dir = resolve(base, &parsed.out_dir);
    let (direct, pipeline): (Vec<String>, Vec<String>) = parsed
        .kinds
        .iter()
        .cloned()
        .partition(|k| direct::KINDS.contains(&k.as_str()));
    test_delay();
    let mut result = Outcome {
        exit_code: 0,
        output: String::new(),
    };
    // Only direct kinds asked for: the pipeline has nothing to do (no kinds = its defaults).
    if !pipeline.is_empty() || direct.is_empty() {
        let req = proto::BuildRequest {
            inputs: inputs
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect(),
            output_kinds: pipeline,
            out_dir: out_dir.to_string_lossy().into_owned(),
            input_digests: digests.to_vec(),
            ..Default::default()
        };
        let no_daemon = parsed.no_daemon || policy.never;
        result = match build(req, no_daemon, policy.start) {
            Ok(r) => outcome(&r),
            Err(msg) => return Outcome::usage(msg),
        };
    }
    if result.exit_code != 0 || direct.is_empty() {
        return result;
    }
    if let Err(msg) = verify_digests(digests) {
        return Outcome {
            exit_code: 1,
            output: result.output + &msg,
        };
    }
    let blif_lib = parsed.blif_lib.as_deref().map(|l| resolve(base, l));
    let d = direct::build(&inputs, &direct, &out_dir, blif_lib);
    Outcome {
        exit_code: d.exit_code,
        output: result.output + &d.output,
    }
}

/// The direct kinds read their inputs here, not in the daemon: check the given digests
/// against the files (the same check and diagnostic as the daemon's).
fn verify_digests(digests: &[proto::InputDigest]) -> Result<(), String> {
    if digests.is_empty() {
        return Ok(());
    }
    let req = proto::BuildRequest {
        input_digests: digests.to_vec(),
        ..Default::default()
    };
    let mut check = kiln_daemon::digests::Digests::default();
    check.begin(&kiln_daemon::digests::from_proto(&req)?);
    for d in digests {
        let path = Path::new(&d.path);
        let bytes = kiln_daemon::input::read(path).map_err(|e| {
            format!(
                "{}: error: {e}
",
                d.path
            )
        })?;
        check.check(path, &bytes)?;
    }
    Ok(())
}

/// Build through a daemon if allowed and reachable, else in process.
fn build(
    req: proto::BuildRequest,
    no_daemon: bool,
    start: bool,
) -> Result<proto::BuildReply, String> {
    let in_process =
        |req: &proto::BuildRequest| daemon_client::build_in_process(req).map_err(|f| f.message);
    if no_daemon {
        return in_process(&req);
    }
    if start {
        return daemon_client::build(req, false).map_err(|f| f.message);
    }
    match via_running_daemon(req.clone()) {
        Some(r) => Ok(r),
        None => in_process(&req),
    }
}

/// The build on the workspace's running daemon; `None` when none answers.
fn via_running_daemon(req: proto::BuildRequest) -> Option<proto::BuildReply> {
    let connector = daemon_client::connector().ok()?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()?;
    rt.block_on(async {
        let mut client = connector.connect_existing().await?;
        client.build(req).await.ok().map(|r| r.into_inner())
    })
}

/// The exit code and user text of a build reply.
pub fn outcome(reply: &proto::BuildReply) -> Outcome {
    let mut output = String::new();
    for d in &reply.diagnostics {
        output.push_str(&d.rendered);
        if !d.rendered.ends_with('\n') {
            output.push('\n');
        }
    }
    Outcome {
        exit_code: if reply.ok { 0 } else { 1 },
        output,
    }
}

/// One-shot: expand flagfiles against the cwd and run the action once.
pub fn run_oneshot(args: &[String], policy: DaemonPolicy) -> Outcome {
    let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    match expand_flagfiles(args, &base) {
        Ok(expanded) => run_action(&expanded, &base, policy, &[]),
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
