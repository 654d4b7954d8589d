//! Shared helpers of the worker tests (included with `#[path]`; not a test on its own).
#![allow(dead_code)]

#[path = "../cli/mod.rs"]
mod cli;

use prost::Message;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

/// Bazel's worker protocol (`blaze.worker`).
pub mod bazel {
    include!(concat!(env!("OUT_DIR"), "/blaze.worker.rs"));
}
use bazel::{WorkRequest, WorkResponse};

pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data")
        .join(rel)
}

/// A private workspace with the APS and BLIF sample inputs under `src/`, plus private
/// runtime and cache directories for any daemon a test starts ([`cli::Daemon`]).
pub struct Ws {
    daemon: cli::Daemon,
}

impl Ws {
    pub fn new() -> Ws {
        let daemon = cli::Daemon::new();
        let src = daemon.ws().join("src");
        fs::copy(data("aps/flow_burst_add.mlir"), src.join("burst.mlir")).unwrap();
        fs::copy(
            data("daemon/blif_lib/mux/2/2/1/mux.blif"),
            src.join("mux.blif"),
        )
        .unwrap();
        fs::write(src.join("bad.mlir"), "module {\n  %0 = \n}\n").unwrap();
        Ws { daemon }
    }

    pub fn dir(&self) -> PathBuf {
        self.daemon.ws()
    }
}

impl std::ops::Deref for Ws {
    type Target = cli::Daemon;

    fn deref(&self) -> &cli::Daemon {
        &self.daemon
    }
}

/// Every file under `dir` with its bytes, sorted by relative path.
pub fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.push((rel, fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A JSON-protocol worker in `ws` (`--no-daemon`, each request held `delay_ms`) fed `text`,
/// then the end of its stdin: its answers and its exit code.
pub fn json_session(
    ws: &Ws,
    extra: &[&str],
    delay_ms: u64,
    text: &str,
) -> (Vec<serde_json::Value>, Option<i32>) {
    let args: Vec<&str> = ["--no-daemon", "--worker-protocol", "json"]
        .iter()
        .chain(extra)
        .copied()
        .collect();
    let (mut child, mut stdin, stdout) = spawn_persistent(ws, &args, Some(delay_ms), Stdio::null());
    stdin.write_all(text.as_bytes()).unwrap();
    drop(stdin);
    let answers = serde_json::Deserializer::from_reader(stdout)
        .into_iter::<serde_json::Value>()
        .map(Result::unwrap)
        .collect();
    (answers, child.wait().unwrap().code())
}

/// The action arguments building the two good inputs into `out`.
pub fn action(out: &str) -> Vec<String> {
    ["--out-dir", out, "src/burst.mlir", "src/mux.blif"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// The names the action writes.
pub const OUTPUTS: [&str; 3] = ["burst.cmt2.mlir", "burst.rules.json", "mux.aig"];

/// Write one length-delimited frame (already prefixed by its varint length) to a worker.
pub fn send_frame(stdin: &mut ChildStdin, frame: &[u8]) {
    stdin.write_all(frame).unwrap();
    stdin.flush().unwrap();
}

/// Read one length-delimited frame from a worker: its varint length, then the message bytes.
pub fn recv_frame(stdout: &mut ChildStdout) -> Vec<u8> {
    let mut len = 0usize;
    for shift in (0..35).step_by(7) {
        let mut b = [0u8];
        stdout.read_exact(&mut b).unwrap();
        len |= usize::from(b[0] & 0x7f) << shift;
        if b[0] & 0x80 == 0 {
            break;
        }
    }
    let mut buf = vec![0u8; len];
    stdout.read_exact(&mut buf).unwrap();
    buf
}

/// `kiln worker ARGS... --persistent_worker` in `ws`, stdin and stdout piped; each request
/// held `delay_ms` before it builds, when given.
pub fn spawn_persistent(
    ws: &Ws,
    args: &[&str],
    delay_ms: Option<u64>,
    stderr: Stdio,
) -> (Child, ChildStdin, ChildStdout) {
    let mut cmd = ws.kiln();
    cmd.arg("worker")
        .args(args)
        .arg("--persistent_worker")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr);
    if let Some(ms) = delay_ms {
        cmd.env("KILN_WORKER_TEST_DELAY_MS", ms.to_string());
    }
    let mut child = cmd.spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    (child, stdin, stdout)
}

/// A request with these arguments.
pub fn request(id: i32, args: Vec<String>) -> WorkRequest {
    WorkRequest {
        arguments: args,
        request_id: id,
        ..Default::default()
    }
}

/// The cancel of request `id`.
pub fn cancel(id: i32) -> WorkRequest {
    WorkRequest {
        request_id: id,
        cancel: true,
        ..Default::default()
    }
}

/// Send one request, length-delimited.
pub fn send(stdin: &mut ChildStdin, req: &WorkRequest) {
    send_frame(stdin, &req.encode_length_delimited_to_vec());
}

/// Read one response.
pub fn recv(stdout: &mut ChildStdout) -> WorkResponse {
    WorkResponse::decode(recv_frame(stdout).as_slice()).unwrap()
}

/// Close the worker's stdin; it must then exit 0.
pub fn finish(mut child: Child, stdin: ChildStdin) {
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "worker exited with {status}");
}
