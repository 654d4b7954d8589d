//! `kiln worker --persistent_worker` against a misbehaving or hostile client: a huge frame
//! length and garbage after a valid request end the worker only after every request in
//! flight was answered; a cancelled request writes nothing after its cancel response; a
//! duplicate request id, a malformed digest and paths leading out of the worker's
//! directory get error responses.

#[path = "worker_common/mod.rs"]
mod common;

use common::bazel::Input;
use common::{Ws, action, cancel, finish, recv, request, send, tree};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

/// Requests are held this long before they build, so they are in flight when the test
/// acts.
const HOLD_MS: u64 = 400;

fn spawn(ws: &Ws, extra: &[&str]) -> (Child, ChildStdin, ChildStdout) {
    let args: Vec<&str> = ["--no-daemon"].iter().chain(extra).copied().collect();
    common::spawn_persistent(ws, &args, Some(HOLD_MS), Stdio::piped())
}

/// The worker's exit code and stderr once it ended, and that nothing follows on stdout.
fn ended(mut child: Child, mut stdout: ChildStdout) -> (Option<i32>, String) {
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "bytes after the last response: {rest:?}");
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code(), err)
}

/// A broken stream while a request is in flight: that request gets an error response
/// (not silence), then the worker exits 1 naming the fault, and the request writes nothing.
fn broken_stream_answers_the_request_in_flight(bytes: &[u8], fault: &str) {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, &[]);
    send(&mut stdin, &request(1, action("inflight")));
    stdin.write_all(bytes).unwrap();
    drop(stdin);
    let r = recv(&mut stdout);
    assert_eq!((r.request_id, r.exit_code), (1, 1), "{}", r.output);
    assert!(!r.was_cancelled);
    assert!(r.output.contains("request stream broke"), "{}", r.output);
    let (code, err) = ended(child, stdout);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains(fault), "{err}");
    std::thread::sleep(Duration::from_millis(HOLD_MS + 300));
    assert!(
        !ws.dir().join("inflight").exists(),
        "an abandoned request wrote"
    );
}

#[test]
fn huge_varint_answers_the_request_in_flight_then_exits() {
    // A 9-byte varint saying 2^63 - 1: refused before anything is allocated for it.
    let huge = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
    broken_stream_answers_the_request_in_flight(&huge, "over the");
}

#[test]
fn garbage_after_a_valid_request_answers_it_then_exits() {
    // A 5-byte frame that is no WorkRequest (an unterminated field key).
    let garbage = [5, 0xff, 0xff, 0xff, 0xff, 0xff];
    broken_stream_answers_the_request_in_flight(&garbage, "worker:");
    // A truncated frame: its length promises more than ever comes.
    broken_stream_answers_the_request_in_flight(&[40, 1, 2, 3], "worker:");
}

#[test]
fn json_garbage_after_a_valid_request_answers_it_then_exits() {
    let ws = Ws::new();
    let (child, mut stdin, stdout) = spawn(&ws, &["--worker-protocol", "json"]);
    let args = serde_json::to_string(&action("inflight")).unwrap();
    let text = format!("{{\"arguments\":{args},\"requestId\":3}} {{\"requestId\": tru");
    stdin.write_all(text.as_bytes()).unwrap();
    drop(stdin);
    let mut out = String::new();
    let mut stdout = stdout;
    stdout.read_to_string(&mut out).unwrap();
    let r: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(r["requestId"], 3, "{out}");
    assert_eq!(r["exitCode"], 1, "{out}");
    assert!(
        r["output"]
            .as_str()
            .unwrap()
            .contains("request stream broke")
    );
    let mut child = child;
    assert_eq!(child.wait().unwrap().code(), Some(1));
    assert!(!ws.dir().join("inflight").exists());
}

#[test]
fn a_cancelled_request_writes_nothing_after_its_cancel_response() {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, &[]);
    send(&mut stdin, &request(1, action("cancelled")));
    send(&mut stdin, &request(2, action("kept")));
    let started = Instant::now();
    send(&mut stdin, &cancel(1));
    let r = recv(&mut stdout);
    assert_eq!((r.request_id, r.was_cancelled), (1, true), "{}", r.output);
    assert!(
        started.elapsed() < Duration::from_millis(HOLD_MS),
        "answered at once: {:?}",
        started.elapsed()
    );
    let r = recv(&mut stdout);
    assert_eq!((r.request_id, r.exit_code), (2, 0), "{}", r.output);
    // The worker lives on; the cancelled request's build had every chance to write.
    std::thread::sleep(Duration::from_millis(HOLD_MS + 1000));
    assert!(
        !ws.dir().join("cancelled").exists(),
        "written after its cancel"
    );
    assert_eq!(tree(&ws.dir().join("kept")).len(), 3);
    // A cancel of a request already answered changes nothing.
    send(&mut stdin, &cancel(2));
    drop(stdin);
    let (code, err) = ended(child, stdout);
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn a_duplicate_request_id_in_flight_gets_an_error_response() {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, &[]);
    send(&mut stdin, &request(7, action("first")));
    send(&mut stdin, &request(7, action("second")));
    let r = recv(&mut stdout);
    assert_eq!((r.request_id, r.exit_code), (7, 2), "{}", r.output);
    assert!(
        r.output.contains("request 7 is already in flight"),
        "{}",
        r.output
    );
    let r = recv(&mut stdout);
    assert_eq!((r.request_id, r.exit_code), (7, 0), "{}", r.output);
    assert!(ws.dir().join("first").exists());
    assert!(!ws.dir().join("second").exists(), "the duplicate ran");
    // Once answered, the id may be used again.
    send(&mut stdin, &request(7, action("third")));
    let r = recv(&mut stdout);
    assert_eq!((r.request_id, r.exit_code), (7, 0), "{}", r.output);
    drop(stdin);
    assert_eq!(ended(child, stdout).0, Some(0));
}

#[test]
fn malformed_digests_get_error_responses() {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, &[]);
    let cases: [(&[u8], &str); 3] = [
        (b"abc", "input digest of 3 bytes is malformed"),
        (&[b'z'; 64], "input digest of 64 bytes is malformed"),
        (&[b'a'; 63], "input digest of 63 bytes is malformed"),
    ];
    for (i, (digest, says)) in cases.iter().enumerate() {
        let out = format!("d{i}");
        let mut req = request(i as i32 + 1, action(&out));
        req.inputs.push(Input {
            path: "src/burst.mlir".into(),
            digest: digest.to_vec(),
        });
        send(&mut stdin, &req);
        let r = recv(&mut stdout);
        assert_eq!(r.exit_code, 2, "{}", r.output);
        assert!(r.output.contains(says), "{}", r.output);
        assert!(r.output.contains("src/burst.mlir"), "{}", r.output);
        assert!(!ws.dir().join(&out).exists());
    }
    // Well-formed digests of other functions (SHA-1 hex) and none at all are accepted.
    let mut req = request(9, action("ok"));
    for (path, digest) in [("src/burst.mlir", vec![b'0'; 40]), ("src/mux.blif", vec![])] {
        req.inputs.push(Input {
            path: path.into(),
            digest,
        });
    }
    send(&mut stdin, &req);
    let r = recv(&mut stdout);
    assert_eq!(r.exit_code, 0, "{}", r.output);
    finish(child, stdin);
}

#[test]
fn json_digest_that_is_not_base64_gets_an_error_response() {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, &["--worker-protocol", "json"]);
    let args = serde_json::to_string(&action("j")).unwrap();
    let text = format!(
        "{{\"arguments\":{args},\"requestId\":4,\"inputs\":[{{\"path\":\"src/mux.blif\",\"digest\":\"!!\"}}]}}"
    );
    stdin.write_all(text.as_bytes()).unwrap();
    drop(stdin);
    let mut out = String::new();
    stdout.read_to_string(&mut out).unwrap();
    let r: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (r["requestId"].as_i64(), r["exitCode"].as_i64()),
        (Some(4), Some(2))
    );
    assert!(
        r["output"].as_str().unwrap().contains("not base64"),
        "{out}"
    );
    let mut child = child;
    assert!(child.wait().unwrap().success());
    assert!(!ws.dir().join("j").exists());
}

#[test]
fn paths_out_of_the_worker_directory_are_refused() {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, &[]);
    let escape = ws.root().join("escape");
    let inside = ws.dir().join("abs");
    let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let refused = [
        args(&["--out-dir", "../escape", "src/burst.mlir"]),
        args(&["--out-dir", "out/../../escape", "src/burst.mlir"]),
        args(&["--out-dir", escape.to_str().unwrap(), "src/burst.mlir"]),
        args(&["--out-dir", "o1", "../ws/src/../../escape.mlir"]),
        args(&["--out-dir", "o2", "/etc/hostname.mlir"]),
        args(&["--out-dir", "o3", "--blif-lib", "..", "src/burst.mlir"]),
    ];
    for (i, a) in refused.iter().enumerate() {
        send(&mut stdin, &request(i as i32, a.clone()));
        let r = recv(&mut stdout);
        assert_eq!(r.exit_code, 2, "{a:?}: {}", r.output);
        assert!(
            r.output.contains("leads out of the worker's directory"),
            "{}",
            r.output
        );
    }
    let mut sandboxed = request(20, action("s"));
    sandboxed.sandbox_dir = "../..".into();
    send(&mut stdin, &sandboxed);
    assert_eq!(recv(&mut stdout).exit_code, 2);
    let mut digest_path = request(21, action("dp"));
    digest_path.inputs.push(Input {
        path: "../../x.mlir".into(),
        digest: vec![],
    });
    send(&mut stdin, &digest_path);
    assert_eq!(recv(&mut stdout).exit_code, 2);
    assert!(!escape.exists(), "written outside the worker's directory");
    // Absolute paths below the worker's directory are the protocol's too.
    let a = args(&["--out-dir", inside.to_str().unwrap(), "src/burst.mlir"]);
    send(&mut stdin, &request(30, a));
    let r = recv(&mut stdout);
    assert_eq!(r.exit_code, 0, "{}", r.output);
    assert!(inside.join("burst.cmt2.mlir").exists());
    finish(child, stdin);

    // With the option, the same request is served.
    let (child, mut stdin, mut stdout) = spawn(&ws, &["--allow-outside-execroot"]);
    send(&mut stdin, &request(1, refused[0].clone()));
    let r = recv(&mut stdout);
    assert_eq!(r.exit_code, 0, "{}", r.output);
    assert!(escape.join("burst.cmt2.mlir").exists());
    finish(child, stdin);
}
