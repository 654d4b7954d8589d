//! Fuzz the worker protocol's framing: varint-length-delimited frames (a length is bounded
//! before anything is allocated for it, an oversized frame skipped), each decoded as a Bazel
//! `WorkRequest`. Any byte stream must end in frames, a clean end or an error, never a panic
//! or an abort.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../client/src/worker/frame.rs"]
#[allow(dead_code)]
mod frame;

/// `blaze.worker.WorkRequest` (proto/worker_protocol.proto), the fields kiln reads.
#[derive(Clone, PartialEq, prost::Message)]
struct WorkRequest {
    #[prost(string, repeated, tag = "1")]
    arguments: Vec<String>,
    #[prost(message, repeated, tag = "2")]
    inputs: Vec<Input>,
    #[prost(int32, tag = "3")]
    request_id: i32,
    #[prost(bool, tag = "4")]
    cancel: bool,
    #[prost(int32, tag = "5")]
    verbosity: i32,
    #[prost(string, tag = "6")]
    sandbox_dir: String,
}

#[derive(Clone, PartialEq, prost::Message)]
struct Input {
    #[prost(string, tag = "1")]
    path: String,
    #[prost(bytes = "vec", tag = "2")]
    digest: Vec<u8>,
}

fuzz_target!(|data: &[u8]| {
    let mut r = data;
    // A small bound, so the fuzzer also reaches the over-limit path (skipped, as the
    // worker does, to go on with the next frame).
    loop {
        match frame::next_frame(&mut r, 1 << 16) {
            Ok(frame::Next::Frame(buf)) => {
                assert!(buf.len() <= 1 << 16);
                if let Ok(req) = <WorkRequest as prost::Message>::decode(buf.as_slice()) {
                    let _ = prost::Message::encode_to_vec(&req);
                }
            }
            Ok(frame::Next::Oversized(len)) => {
                assert!(len > 1 << 16);
                if frame::skip(&mut r, len).is_err() {
                    break;
                }
            }
            Ok(frame::Next::BadLength) => {}
            Ok(frame::Next::End) | Err(_) => break,
        }
    }
});
