//! Bazel's persistent-worker protocol on stdin/stdout.
//!
//! Proto transport: varint-length-delimited `WorkRequest`s in, `WorkResponse`s out. JSON
//! transport: proto3 JSON objects (camelCase) written back to back with no separator, so
//! they are read with a streaming decoder; unknown fields are ignored. Every request runs
//! on its own thread (multiplex: `request_id` is echoed); a `cancel` for an outstanding
//! request answers it at once with `was_cancelled` and drops the late result, so each
//! request gets exactly one response. Only responses go to stdout. The inputs' digests go
//! to the build (see [`super::input_digests`]); `--worker_verbose` (Bazel 5+ sends it as
//! `verbosity`) makes each response say how many were used, `--log-requests` logs it.

use super::pb::bazel::{WorkRequest, WorkResponse};
use super::{DaemonPolicy, Outcome};
use base64::Engine;
use prost::Message;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The wire format Bazel uses with this worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    Proto,
    Json,
}

/// A JSON `WorkRequest` (proto3 JSON mapping); unknown fields are ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct JsonRequest {
    arguments: Vec<String>,
    inputs: Vec<JsonInput>,
    request_id: i32,
    cancel: bool,
    verbosity: i32,
    sandbox_dir: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct JsonInput {
    path: String,
    /// The proto `bytes` field, base64 in JSON.
    digest: String,
}

/// A JSON `WorkResponse`; default values are omitted as in the proto3 JSON mapping.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonResponse<'a> {
    #[serde(skip_serializing_if = "is_zero")]
    exit_code: i32,
    #[serde(skip_serializing_if = "str::is_empty")]
    output: &'a str,
    #[serde(skip_serializing_if = "is_zero")]
    request_id: i32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    was_cancelled: bool,
}

fn is_zero(x: &i32) -> bool {
    *x == 0
}

impl From<JsonRequest> for WorkRequest {
    fn from(j: JsonRequest) -> WorkRequest {
        WorkRequest {
            arguments: j.arguments,
            inputs: j
                .inputs
                .into_iter()
                .map(|i| super::pb::bazel::Input {
                    path: i.path,
                    // Undecodable: no digest (the file is then read as without one).
                    digest: base64::engine::general_purpose::STANDARD
                        .decode(i.digest.as_bytes())
                        .unwrap_or_default(),
                })
                .collect(),
            request_id: j.request_id,
            cancel: j.cancel,
            verbosity: j.verbosity,
            sandbox_dir: j.sandbox_dir,
        }
    }
}

/// Serializes responses onto stdout and tracks outstanding requests.
struct Responder {
    protocol: Protocol,
    out: Mutex<io::Stdout>,
    outstanding: Mutex<BTreeSet<i32>>,
}

impl Responder {
    /// Send `resp` unless its request was already answered (cancelled).
    fn finish(&self, resp: WorkResponse) {
        let was_outstanding = self
            .outstanding
            .lock()
            .map(|mut o| o.remove(&resp.request_id))
            .unwrap_or(false);
        if was_outstanding {
            self.send(&resp);
        }
    }

    fn send(&self, resp: &WorkResponse) {
        let bytes = match self.protocol {
            Protocol::Proto => resp.encode_length_delimited_to_vec(),
            Protocol::Json => {
                let j = JsonResponse {
                    exit_code: resp.exit_code,
                    output: &resp.output,
                    request_id: resp.request_id,
                    was_cancelled: resp.was_cancelled,
                };
                let mut v = serde_json::to_vec(&j).unwrap_or_default();
                v.push(b'\n');
                v
            }
        };
        if let Ok(mut out) = self.out.lock() {
            // A closed stdout means Bazel is gone; nothing left to do but stop.
            if out.write_all(&bytes).and_then(|_| out.flush()).is_err() {
                std::process::exit(0);
            }
        }
    }
}

/// Serve requests from stdin until it closes.
pub fn serve(protocol: Protocol, policy: DaemonPolicy) -> io::Result<()> {
    let responder = Arc::new(Responder {
        protocol,
        out: Mutex::new(io::stdout()),
        outstanding: Mutex::new(BTreeSet::new()),
    });
    let cwd = std::env::current_dir()?;
    let stdin = io::stdin().lock();
    let mut handles = Vec::new();
    let mut submit = |req: WorkRequest| {
        if let Some(h) = dispatch(&responder, req, &cwd, policy) {
            handles.push(h);
        }
    };
    match protocol {
        Protocol::Proto => {
            let mut reader = io::BufReader::new(stdin);
            while let Some(req) = read_delimited(&mut reader)? {
                submit(req);
            }
        }
        Protocol::Json => {
            let stream = serde_json::Deserializer::from_reader(stdin).into_iter::<JsonRequest>();
            for req in stream {
                let req = req.map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
                submit(req.into());
            }
        }
    }
    for h in handles {
        let _ = h.join();
    }
    Ok(())
}

/// Start a request on its own thread, or answer a cancel.
fn dispatch(
    responder: &Arc<Responder>,
    req: WorkRequest,
    cwd: &Path,
    policy: DaemonPolicy,
) -> Option<std::thread::JoinHandle<()>> {
    if req.cancel {
        let resp = WorkResponse {
            request_id: req.request_id,
            was_cancelled: true,
            ..Default::default()
        };
        responder.finish(resp);
        return None;
    }
    if let Ok(mut o) = responder.outstanding.lock() {
        o.insert(req.request_id);
    }
    let base = base_dir(cwd, &req.sandbox_dir);
    let responder = Arc::clone(responder);
    Some(std::thread::spawn(move || {
        let digests = super::input_digests(&req.inputs, &base, policy);
        let Outcome {
            exit_code,
            mut output,
        } = super::run_action(&req.arguments, &base, policy, &digests);
        if policy.log_requests {
            eprintln!(
                "kiln worker: request {}: exit {exit_code}, {} input digests (SHA-256) passed to the build",
                req.request_id,
                digests.len()
            );
        }
        // `--worker_verbose` (verbosity 10, newer Bazel): say how many digests were used.
        if req.verbosity >= 10 {
            output.push_str(&format!(
                "kiln worker: {} input digests (SHA-256) passed to the build\n",
                digests.len()
            ));
        }
        responder.finish(WorkResponse {
            exit_code,
            output,
            request_id: req.request_id,
            was_cancelled: false,
        });
    }))
}

/// Paths in a request are relative to `sandbox_dir` (itself relative to the cwd) when set.
fn base_dir(cwd: &Path, sandbox_dir: &str) -> PathBuf {
    if sandbox_dir.is_empty() {
        cwd.to_path_buf()
    } else {
        super::resolve(cwd, Path::new(sandbox_dir))
    }
}

/// One varint-length-delimited message (length bounded before allocating); `None` at a
/// clean end of input.
fn read_delimited(r: &mut impl BufRead) -> io::Result<Option<WorkRequest>> {
    let Some(buf) = kiln_daemon::frame::read_frame(r, kiln_daemon::frame::MAX_FRAME)? else {
        return Ok(None);
    };
    WorkRequest::decode(buf.as_slice())
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}
