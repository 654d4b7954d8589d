//! Talking to the workspace's daemon, or doing its work in this process.
//!
//! The client holds no state: each command finds (or starts) the daemon of its workspace
//! through [`kiln_daemon::client::Connector`], and builds go through the same driver
//! ([`kiln_daemon::driver`]) in the daemon or here, so both produce byte-identical outputs.
//!
//! The workspace is `$KILN_WORKSPACE`, else the current directory.

use crate::io::Failure;
use kiln_daemon::client::{Connector, Fallback};
use kiln_daemon::db::Db;
use kiln_daemon::driver::{self, BuildSpec, Workspace};
use kiln_daemon::proto;
use std::path::PathBuf;

pub use kiln_daemon::client::Client;

/// The workspace this command belongs to.
pub fn workspace() -> PathBuf {
    std::env::var_os("KILN_WORKSPACE")
        .filter(|w| !w.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// How to reach this workspace's daemon; it is started as `<exe> daemon`, where `<exe>` is
/// `$KILN_DAEMON_EXE` if set, else this executable.
pub fn connector() -> Result<Connector, String> {
    let exe = match std::env::var_os("KILN_DAEMON_EXE").filter(|e| !e.is_empty()) {
        Some(e) => PathBuf::from(e),
        None => std::env::current_exe().map_err(|e| e.to_string())?,
    };
    Connector::new(&workspace(), exe)
}

/// Build through the daemon (started if needed). `Err(Fallback)` says why the daemon could
/// not do it; the caller then calls [`build_in_process`].
pub fn build_via_daemon(req: proto::BuildRequest) -> Result<proto::BuildReply, Fallback> {
    let c = connector().map_err(Fallback)?;
    kiln_daemon::client::build_via_daemon(&c, req)
}

/// The same build in this process, on a fresh database (no persistent cache: a cold build).
pub fn build_in_process(req: &proto::BuildRequest) -> Result<proto::BuildReply, Failure> {
    let mut spec = BuildSpec::from_proto(req).map_err(|e| Failure {
        message: format!("error: {e}"),
        code: 2,
    })?;
    // This process exits after the build: a spare prepared in the background would not
    // be finished, nor used.
    spec.spares_ahead = false;
    let mut ws = Workspace::new(Db::new(None));
    Ok(driver::build_in_process(&mut ws, &spec))
}

/// Whether the user asked for an in-process build: `--no-daemon`, or `$KILN_NO_DAEMON` set
/// and not `0`.
pub fn no_daemon_requested(flag: bool) -> bool {
    flag || std::env::var("KILN_NO_DAEMON").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Build via the daemon unless `no_daemon` (or `$KILN_NO_DAEMON` is set and not `0`); fall
/// back to in-process (with one note on stderr) when the daemon cannot be used.
pub fn build(req: proto::BuildRequest, no_daemon: bool) -> Result<proto::BuildReply, Failure> {
    if no_daemon_requested(no_daemon) {
        return build_in_process(&req);
    }
    match build_via_daemon(req.clone()) {
        Ok(r) => Ok(r),
        Err(Fallback(why)) => {
            eprintln!("kiln: daemon unavailable ({why}); building in process");
            build_in_process(&req)
        }
    }
}

/// Make a build request from command-line paths (made absolute: the daemon's working
/// directory is not ours).
pub fn request(
    inputs: &[PathBuf],
    kinds: &[String],
    out_dir: &std::path::Path,
) -> proto::BuildRequest {
    let abs = |p: &std::path::Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .to_string_lossy()
            .into_owned()
    };
    proto::BuildRequest {
        inputs: inputs.iter().map(|p| abs(p)).collect(),
        output_kinds: kinds.to_vec(),
        out_dir: abs(out_dir),
        ..Default::default()
    }
}

/// Print a reply's diagnostics on stderr; the exit status it calls for.
pub fn report(reply: &proto::BuildReply) -> Result<(), Failure> {
    let mut text = String::new();
    for d in &reply.diagnostics {
        text.push_str(&d.rendered);
        if !d.rendered.ends_with('\n') {
            text.push('\n');
        }
    }
    if !reply.ok {
        return Err(Failure::input(text));
    }
    eprint!("{text}");
    Ok(())
}

/// A current-thread runtime for one command's RPCs.
pub fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::input(format!("error: {e}")))
}

/// The running daemon, without starting one.
pub async fn existing(c: &Connector) -> Option<Client> {
    c.connect_existing().await
}

pub fn fail(e: impl std::fmt::Display) -> Failure {
    Failure::input(format!("error: {e}"))
}
