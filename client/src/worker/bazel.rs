//! Bazel's persistent-worker protocol on stdin/stdout.
//!
//! Proto transport: varint-length-delimited `WorkRequest`s in, `WorkResponse`s out. JSON
//! transport: proto3 JSON objects (camelCase) written back to back with no separator, so
//! they are read with a streaming decoder; unknown fields are ignored. Every request runs
//! on its own thread (multiplex: `request_id` is echoed) as a [`Flight`]. Each request gets
//! exactly one response, and nothing is written for it after that response:
//! - a `cancel` answers with `was_cancelled` at once when the build has not started
//!   writing (it then writes nothing), else once its writes are done;
//! - a request whose id is already in flight, whose digests are malformed or whose paths
//!   lead out of the worker's directory gets an error response (exit code 2);
//! - a frame that does not decode as a request (or whose fields have the wrong types)
//!   gets an error response (exit code 2) with the request id read from it where it can
//!   be and no request with that id is in flight, else 0 (the singleplex id: Bazel, which
//!   sends only well-formed requests, never sees one), and the worker goes on with the
//!   next frame; so does a frame over
//!   [`MAX_FRAME`](super::frame::MAX_FRAME), which is read and dropped, and, in
//!   JSON, bytes outside any object;
//! - only a stream that ends inside a frame (its framing lost, Bazel gone) ends the worker
//!   with exit code 1, after every request in flight got an error response (the same rule
//!   as a cancel for when). The end of the stream between frames ends it with 0, once every
//!   request in flight is answered.
//!
//! Only responses go to stdout. The inputs' digests go to the build (see
//! [`super::input_digests`]); `--worker_verbose` (Bazel 5+ sends it as `verbosity`) makes
//! each response say how many were used, `--log-requests` logs it.

use super::confine::{Access, Declared, confined};
use super::flight::{End, Flight, Stop, Stopped};
use super::frame::{self, MAX_FRAME, Next};
use super::json_stream::{self, Splitter};
use super::pb::bazel::{WorkRequest, WorkResponse};
use super::{DaemonPolicy, Given, Outcome};
use base64::Engine;
use prost::Message;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{self, Write};
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

/// The id of a JSON request whose other fields do not decode.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct JsonId {
    request_id: i32,
}

/// The id of a proto request whose other fields do not decode (unknown fields, strings
/// that are not UTF-8 among them, are skipped as bytes).
#[derive(Clone, PartialEq, prost::Message)]
struct ProtoId {
    #[prost(int32, tag = "3")]
    request_id: i32,
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

impl JsonRequest {
    /// The request, or its id and why it is malformed (a digest that is not base64).
    fn decode(self) -> Result<WorkRequest, (i32, String)> {
        let mut inputs = Vec::with_capacity(self.inputs.len());
        for i in self.inputs {
            let digest = base64::engine::general_purpose::STANDARD
                .decode(i.digest.as_bytes())
                .map_err(|e| {
                    let why = format!("error: {}: input digest is not base64: {e}", i.path);
                    (self.request_id, why)
                })?;
            inputs.push(super::pb::bazel::Input {
                path: i.path,
                digest,
            });
        }
        Ok(WorkRequest {
            arguments: self.arguments,
            inputs,
            request_id: self.request_id,
            cancel: self.cancel,
            verbosity: self.verbosity,
            sandbox_dir: self.sandbox_dir,
        })
    }
}

/// Serializes responses onto stdout and tracks the requests in flight.
struct Responder {
    protocol: Protocol,
    out: Mutex<io::Stdout>,
    in_flight: Mutex<BTreeMap<i32, Arc<Flight>>>,
}

/// The response of a request that was stopped.
fn stopped(request_id: i32, why: Stop) -> WorkResponse {
    match why {
        Stop::Cancelled => WorkResponse {
            request_id,
            was_cancelled: true,
            ..Default::default()
        },
        Stop::Failed(msg) => response(request_id, 1, format!("error: kiln worker: {msg}\n")),
    }
}

/// A response with `exit_code` and `output` (the build's own, or why it failed).
fn response(request_id: i32, exit_code: i32, output: String) -> WorkResponse {
    WorkResponse {
        exit_code,
        output,
        request_id,
        was_cancelled: false,
    }
}

impl Responder {
    fn flights(&self) -> std::sync::MutexGuard<'_, BTreeMap<i32, Arc<Flight>>> {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new flight for request `id`; `None` when a request with that id is in flight.
    fn admit(&self, id: i32) -> Option<Arc<Flight>> {
        let mut flights = self.flights();
        if flights.contains_key(&id) {
            return None;
        }
        let flight = Arc::new(Flight::default());
        flights.insert(id, flight.clone());
        Some(flight)
    }

    /// Forget request `id` if `flight` is (still) its flight.
    fn land(&self, id: i32, flight: &Arc<Flight>) {
        let mut flights = self.flights();
        if flights.get(&id).is_some_and(|f| Arc::ptr_eq(f, flight)) {
            flights.remove(&id);
        }
    }

    /// Stop request `id` (unknown: nothing to do); answer it if its build writes nothing.
    fn stop(&self, id: i32, why: Stop) {
        let Some(flight) = self.flights().get(&id).cloned() else {
            return;
        };
        if flight.stop(why.clone()) == Stopped::Now {
            self.land(id, &flight);
            self.send(&stopped(id, why));
        }
    }

    /// Stop every request in flight (the request stream broke).
    fn stop_all(&self, why: &str) {
        let ids: Vec<i32> = self.flights().keys().copied().collect();
        for id in ids {
            self.stop(id, Stop::Failed(why.to_string()));
        }
    }

    /// The build of request `id` returned `outcome` (`None`: stopped before writing).
    fn end(&self, id: i32, flight: &Arc<Flight>, outcome: Option<Outcome>) {
        let resp = match (flight.end(), outcome) {
            (End::Own, Some(o)) => response(id, o.exit_code, o.output),
            (End::Own, None) => response(id, 1, "error: kiln worker: no result\n".into()),
            (End::Stop(why), _) => stopped(id, why),
            (End::Silent, _) => return,
        };
        self.land(id, flight);
        self.send(&resp);
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

/// A request's thread and its flight.
type Running = (std::thread::JoinHandle<()>, Arc<Flight>);

/// Serve requests from stdin until it closes. A frame that cannot be read or decoded
/// stops every request in flight (see the module docs) and is returned as the error.
pub fn serve(protocol: Protocol, policy: DaemonPolicy) -> io::Result<()> {
    let responder = Arc::new(Responder {
        protocol,
        out: Mutex::new(io::stdout()),
        in_flight: Mutex::new(BTreeMap::new()),
    });
    let cwd = std::env::current_dir()?;
    let mut running = Vec::new();
    let read = read_requests(protocol, |req| {
        if let Some(r) = dispatch(&responder, req, &cwd, policy) {
            running.push(r);
        }
    });
    if let Err(e) = &read {
        responder.stop_all(&format!(
            "the request stream broke ({e}); request abandoned"
        ));
    }
    // Stopped builds write nothing more: the process may end under them.
    for (handle, flight) in running {
        if !flight.is_stopped() {
            let _ = handle.join();
        }
    }
    read
}

/// A request, or the id to answer and why the frame is not one.
type Decoded = Result<WorkRequest, (i32, String)>;

/// Read requests from stdin, each given to `submit` (a malformed one as an error answer
/// for its id), until the end of the input, or an error when it ends inside a frame.
fn read_requests(protocol: Protocol, mut submit: impl FnMut(Decoded)) -> io::Result<()> {
    let mut stdin = io::stdin().lock();
    let malformed = |why: String| {
        errln!("kiln worker: {why}");
        Err((0, format!("error: kiln worker: {why}")))
    };
    match protocol {
        Protocol::Proto => loop {
            match frame::next_frame(&mut stdin, MAX_FRAME)? {
                Next::End => return Ok(()),
                Next::Frame(buf) => submit(decode_proto(&buf)),
                Next::BadLength => submit(malformed("a frame length of more than 10 bytes".into())),
                Next::Oversized(len) => {
                    let why =
                        format!("a frame of {len} bytes, over the {MAX_FRAME}-byte limit; skipped");
                    submit(malformed(why));
                    frame::skip(&mut stdin, len)?;
                }
            }
        },
        Protocol::Json => {
            let mut values = Splitter::new(stdin, MAX_FRAME);
            loop {
                match values.next()? {
                    json_stream::Next::End => return Ok(()),
                    json_stream::Next::Value(v) => submit(decode_json(&v)),
                    json_stream::Next::Junk(why) => submit(malformed(why)),
                    json_stream::Next::Oversized(len) => submit(malformed(format!(
                        "a request of {len} bytes, over the {MAX_FRAME}-byte limit; skipped"
                    ))),
                }
            }
        }
    }
}

/// A proto frame as a request, or its id (0 when unreadable) and why it is not one.
fn decode_proto(buf: &[u8]) -> Decoded {
    WorkRequest::decode(buf).map_err(|e| {
        let id = ProtoId::decode(buf).map_or(0, |p| p.request_id);
        let why = format!("a frame that is not a WorkRequest ({e})");
        errln!("kiln worker: request {id}: {why}");
        (id, format!("error: kiln worker: {why}"))
    })
}

/// A JSON value as a request, or its id (0 when unreadable) and why it is not one.
fn decode_json(value: &[u8]) -> Decoded {
    if value.first() != Some(&b'{') {
        // serde would take an array's elements as the fields in order.
        let why = "a JSON array, not a WorkRequest object";
        errln!("kiln worker: {why}");
        return Err((0, format!("error: kiln worker: {why}")));
    }
    match serde_json::from_slice::<JsonRequest>(value) {
        Ok(req) => req.decode(),
        Err(e) => {
            let id = serde_json::from_slice::<JsonId>(value).map_or(0, |j| j.request_id);
            let why = format!("a value that is not a WorkRequest ({e})");
            errln!("kiln worker: request {id}: {why}");
            Err((id, format!("error: kiln worker: {why}")))
        }
    }
}

/// Start a request on its own thread, answer a cancel, or refuse a malformed request.
fn dispatch(
    responder: &Arc<Responder>,
    req: Result<WorkRequest, (i32, String)>,
    cwd: &Path,
    policy: DaemonPolicy,
) -> Option<Running> {
    let refuse =
        |id: i32, why: String| responder.send(&response(id, 2, Outcome::usage(why).output));
    let req = match req {
        Ok(r) => r,
        Err((id, why)) => {
            // The id of a broken frame answers it only while no request with that id is in
            // flight (the frame may have been that request's cancel): else id 0 does.
            let in_flight = responder.flights().contains_key(&id);
            refuse(if in_flight { 0 } else { id }, why);
            return None;
        }
    };
    let id = req.request_id;
    if req.cancel {
        responder.stop(id, Stop::Cancelled);
        return None;
    }
    let Some(flight) = responder.admit(id) else {
        refuse(
            id,
            format!("error: kiln worker: request {id} is already in flight"),
        );
        return None;
    };
    let responder = Arc::clone(responder);
    let cwd = cwd.to_path_buf();
    let mine = flight.clone();
    let handle = std::thread::spawn(move || {
        let outcome = run(&req, &cwd, policy, &mine);
        responder.end(id, &mine, outcome);
    });
    Some((handle, flight))
}

/// Run one request as `flight` (`None`: stopped before anything was written).
fn run(req: &WorkRequest, cwd: &Path, policy: DaemonPolicy, flight: &Flight) -> Option<Outcome> {
    let prepared = base_dir(cwd, &req.sandbox_dir, policy.confine).and_then(|base| {
        let given = Given {
            digests: super::input_digests(&req.inputs, &base, policy)?,
            declared: Declared::new(&base, req.inputs.iter().map(|i| i.path.as_str())),
        };
        Ok((base, given))
    });
    let (base, given) = match prepared {
        Ok(p) => p,
        Err(why) => return Some(Outcome::usage(why)),
    };
    let digests = &given.digests;
    let mut outcome = super::run_action(&req.arguments, &base, policy, &given, flight)?;
    if policy.log_requests {
        eprintln!(
            "kiln worker: request {}: exit {}, {} input digests (SHA-256) passed to the build",
            req.request_id,
            outcome.exit_code,
            digests.len()
        );
    }
    // `--worker_verbose` (verbosity 10, newer Bazel): say how many digests were used.
    if req.verbosity >= 10 {
        outcome.output.push_str(&format!(
            "kiln worker: {} input digests (SHA-256) passed to the build\n",
            digests.len()
        ));
    }
    Some(outcome)
}

/// Paths in a request are relative to `sandbox_dir` (itself relative to the cwd, and
/// confined to it with `confine`) when set.
fn base_dir(cwd: &Path, sandbox_dir: &str, confine: bool) -> Result<PathBuf, String> {
    match sandbox_dir.is_empty() {
        true => Ok(cwd.to_path_buf()),
        false => confined(cwd, Path::new(sandbox_dir), confine, Access::Write),
    }
}
