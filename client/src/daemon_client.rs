//! Talking to the workspace's daemon, or doing its work in this process.
//!
//! The client holds no state: each command finds (or starts) the daemon of its workspace
//! through [`kiln_daemon::client::Connector`] and sends it a [`BuildSpec`]; a build in
//! this process ([`build_in_process`]) runs the same jobs through the compiler's flows
//! ([`kiln_daemon::oneshot`]) with the same writer, so both produce byte-identical outputs.
//!
//! The workspace is `$KILN_WORKSPACE`, else the directory of the nearest `kiln.toml`
//! ([`crate::config`]), else the current directory.

use crate::io::Failure;
use kiln_daemon::client::{Connector, Unavailable};
use kiln_daemon::report::BuildReport;
use kiln_daemon::request::{BuildSpec, OutputKind};
use std::path::{Path, PathBuf};

/// The workspace this command belongs to.
pub fn workspace() -> PathBuf {
    std::env::var_os("KILN_WORKSPACE")
        .filter(|w| !w.is_empty())
        .map(PathBuf::from)
        .or_else(|| crate::config::get().root().map(Path::to_path_buf))
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// How to reach this workspace's daemon; it is started as `<exe> daemon`, where `<exe>` is
/// `$KILN_DAEMON_EXE` if set, else this executable.
pub fn connector() -> Result<Connector, Failure> {
    Connector::new(&workspace(), daemon_exe().map_err(fail)?).map_err(fail)
}

/// Ask the workspace's running daemon (none is started) with `ask`: none when no daemon
/// runs or it gives no answer. The connector comes back too, to name the workspace.
pub fn ask_existing<T, F>(
    ask: impl FnOnce(kiln_daemon::client::Client) -> F,
) -> Result<(Connector, Option<T>), Failure>
where
    F: std::future::Future<Output = Option<T>>,
{
    let c = connector()?;
    let rt = runtime()?;
    let answer = rt.block_on(async { ask(c.connect_existing().await?).await });
    Ok((c, answer))
}

fn daemon_exe() -> std::io::Result<PathBuf> {
    match std::env::var_os("KILN_DAEMON_EXE").filter(|e| !e.is_empty()) {
        Some(e) => Ok(PathBuf::from(e)),
        None => std::env::current_exe(),
    }
}

/// Build through the daemon (started if needed). `Err` says why the daemon could not do
/// it; the caller then calls [`build_in_process`].
pub fn build_via_daemon(spec: &BuildSpec) -> Result<BuildReport, Unavailable> {
    let c = Connector::new(&workspace(), daemon_exe().map_err(Unavailable::Runtime)?)?;
    kiln_daemon::client::build_via_daemon(&c, spec)
}

/// The same build in this process: its jobs through the compiler's flows (a cold build).
pub fn build_in_process(spec: &BuildSpec) -> BuildReport {
    kiln_daemon::oneshot::build(spec)
}

/// Whether the user asked for an in-process build: `--no-daemon`, or `$KILN_NO_DAEMON` set
/// and not `0`.
pub fn no_daemon_requested(flag: bool) -> bool {
    flag || std::env::var("KILN_NO_DAEMON").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Where a build ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    Daemon,
    InProcess,
    /// In process through the cached query pipeline (`--remote-cache`).
    Cached,
}

impl std::fmt::Display for Via {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Via::Daemon => "daemon",
            Via::InProcess => "in process",
            Via::Cached => "in process, cached",
        })
    }
}

/// Build via the daemon unless `no_daemon` (or `$KILN_NO_DAEMON` is set and not `0`); fall
/// back to in-process (with one note on stderr) when the daemon cannot be used.
pub fn build(spec: &BuildSpec, no_daemon: bool) -> BuildReport {
    build_via(spec, no_daemon).0
}

/// [`build`], and where it ran. A daemon this build started is said once on stderr. On a
/// terminal, a build that takes a while shows a spinner ([`crate::progress`]).
pub fn build_via(spec: &BuildSpec, no_daemon: bool) -> (BuildReport, Via) {
    let what = match spec.inputs.as_slice() {
        [one] => one.file_name().map_or_else(
            || one.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
        many => format!("{} inputs", many.len()),
    };
    if no_daemon_requested(no_daemon) {
        let report = crate::progress::while_running("Building", &what, || build_in_process(spec));
        return (report, Via::InProcess);
    }
    let was_running = connector().is_ok_and(|c| c.daemon_alive());
    match crate::progress::while_running("Building", &what, || build_via_daemon(spec)) {
        Ok(r) => {
            if !was_running {
                let ws = workspace();
                crate::diagnostics::status("Started", &format!("kiln daemon for {}", ws.display()));
            }
            (r, Via::Daemon)
        }
        Err(why) => {
            errln!("kiln: daemon unavailable ({why}); building in process");
            let report =
                crate::progress::while_running("Building", &what, || build_in_process(spec));
            (report, Via::InProcess)
        }
    }
}

/// A build spec from command-line paths (made absolute: the daemon's working directory is
/// not ours) and output kinds, under this process's limits (its flags and `kiln.toml`: a
/// daemon builds it under the same).
pub fn spec_of(inputs: &[PathBuf], kinds: Vec<OutputKind>, out_dir: &Path) -> BuildSpec {
    BuildSpec {
        inputs: inputs.iter().map(|p| absolute(p)).collect(),
        kinds,
        out_dir: absolute(out_dir),
        limits: Some(kiln_daemon::input::limits()),
        ..BuildSpec::default()
    }
}

/// `p` made absolute (against the current directory).
pub fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// A current-thread runtime for one command's calls.
pub fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    kiln_daemon::client::runtime().map_err(fail)
}

pub fn fail(e: impl std::fmt::Display) -> Failure {
    Failure::input(format!("error: {e}"))
}
