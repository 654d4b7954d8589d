//! `kiln worker --persistent_worker` against a misbehaving or hostile client: a frame that
//! is not a request (garbage, a huge length, bytes outside any JSON object) is answered and
//! the worker goes on; a stream cut inside a frame ends the worker only after every request
//! in flight was answered; a cancelled request writes nothing after its cancel response; a
//! duplicate request id, a malformed digest and paths leading out of the worker's
//! directory (`..`, absolute, or through a symbolic link; proto and JSON) get error
//! responses.

#[path = "worker_common/mod.rs"]
mod common;

use common::bazel::Input;
use common::{Ws, action, cancel, finish, json_session, names, recv, request, send, tree};
use prost::Message;
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

/// A stream that ends inside a frame while a request is in flight: the frames before are
/// answered (`malformed` of them with id 0, exit code 2), the request in flight gets an
/// error response (not silence), then the worker exits 1 naming the fault, and the request
/// writes nothing.
fn broken_stream_answers_the_request_in_flight(bytes: &[u8], malformed: usize, fault: &str) {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, &[]);
    send(&mut stdin, &request(1, action("inflight")));
    stdin.write_all(bytes).unwrap();
    drop(stdin);
    for _ in 0..malformed {
        let r = recv(&mut stdout);
        assert_eq!((r.request_id, r.exit_code), (0, 2), "{}", r.output);
    }
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
fn huge_varint_is_answered_then_the_cut_stream_answers_the_request_in_flight() {
    // A 9-byte varint saying 2^63 - 1: refused before anything is allocated for it, and
    // answered; its body (skipped) is cut off by the end of the stream.
    let huge = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
    broken_stream_answers_the_request_in_flight(&huge, 1, "over the");
    // A truncated frame: its length promises more than ever comes.
    broken_stream_answers_the_request_in_flight(&[40, 1, 2, 3], 0, "worker:");
}

#[test]
fn garbage_frames_are_answered_and_the_worker_goes_on() {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, &[]);
    send(&mut stdin, &request(1, action("inflight")));
    // A 5-byte frame that is no WorkRequest (an unterminated field key), an empty frame
    // (a request without arguments), eleven bytes of length prefix, and a request whose
    // argument is not UTF-8 (its id is read all the same).
    stdin.write_all(&[5, 0xff, 0xff, 0xff, 0xff, 0xff]).unwrap();
    stdin.write_all(&[0]).unwrap();
    stdin.write_all(&[0x80; 10]).unwrap();
    stdin.write_all(&[0x00]).unwrap();
    let mut bad_utf8 = request(7, vec!["x".into()]).encode_to_vec();
    let at = bad_utf8.iter().position(|&b| b == b'x').unwrap();
    bad_utf8[at] = 0xff;
    stdin.write_all(&[bad_utf8.len() as u8]).unwrap();
    stdin.write_all(&bad_utf8).unwrap();
    send(&mut stdin, &request(2, action("after")));
    drop(stdin);
    let mut got = Vec::new();
    for _ in 0..6 {
        let r = recv(&mut stdout);
        got.push((r.request_id, r.exit_code));
    }
    got.sort();
    // The empty frame and the bad length prefix are answered as id 0; so is the garbage.
    assert_eq!(got, [(0, 2), (0, 2), (0, 2), (1, 0), (2, 0), (7, 2)]);
    let (code, err) = ended(child, stdout);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("not a WorkRequest"), "{err}");
    assert_eq!(tree(&ws.dir().join("inflight")).len(), 3);
    assert_eq!(tree(&ws.dir().join("after")).len(), 3);
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
fn json_garbage_between_requests_is_answered_and_the_worker_goes_on() {
    let ws = Ws::new();
    let args = |out: &str| serde_json::to_string(&action(out)).unwrap();
    let text = format!(
        "{{\"arguments\":{},\"requestId\":3}} tru {{\"requestId\":\"x\"}}[1]{{\"requestId\":4,\"arguments\":5}}\n{{\"arguments\":{},\"requestId\":6}}",
        args("first"),
        args("after")
    );
    let (answers, code) = json_session(&ws, &[], HOLD_MS, &text);
    let mut got: Vec<(i64, i64)> = answers
        .iter()
        .map(|v| {
            (
                v["requestId"].as_i64().unwrap_or(0),
                v["exitCode"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    got.sort();
    assert_eq!(got, [(0, 2), (0, 2), (0, 2), (3, 0), (4, 2), (6, 0)]);
    assert_eq!(code, Some(0));
    assert_eq!(tree(&ws.dir().join("after")).len(), 3);
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
    served_with_the_option(&ws, refused[0].clone(), &escape.join("burst.cmt2.mlir"));
}

/// With `--allow-outside-execroot`, a request of `args` succeeds and writes `written`.
fn served_with_the_option(ws: &Ws, args: Vec<String>, written: &std::path::Path) {
    let (child, mut stdin, mut stdout) = spawn(ws, &["--allow-outside-execroot"]);
    send(&mut stdin, &request(1, args));
    let r = recv(&mut stdout);
    assert_eq!(r.exit_code, 0, "{}", r.output);
    assert!(written.exists(), "{}", written.display());
    finish(child, stdin);
}

/// A link `esc` in the worker's directory to `outside/` (holding `secret.mlir`).
fn plant_link(ws: &Ws) -> std::path::PathBuf {
    let outside = ws.root().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, ws.dir().join("esc")).unwrap();
    std::fs::copy(ws.dir().join("src/burst.mlir"), outside.join("secret.mlir")).unwrap();
    outside
}

#[test]
fn links_out_of_the_worker_directory_are_refused() {
    let ws = Ws::new();
    let outside = plant_link(&ws);
    let (child, mut stdin, mut stdout) = spawn(&ws, &[]);
    let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let refused = [
        args(&["--out-dir", "esc/o", "src/burst.mlir"]),
        args(&["--out-dir", "esc", "src/burst.mlir"]),
        args(&["--out-dir", "o1", "esc/secret.mlir"]),
        args(&["--out-dir", "o2", "--blif-lib", "esc", "src/burst.mlir"]),
    ];
    for (i, a) in refused.iter().enumerate() {
        send(&mut stdin, &request(i as i32 + 1, a.clone()));
        let r = recv(&mut stdout);
        assert_eq!(r.exit_code, 2, "{a:?}: {}", r.output);
        assert!(r.output.contains("through a symbolic link"), "{}", r.output);
    }
    let mut sandboxed = request(10, action("s"));
    sandboxed.sandbox_dir = "esc".into();
    send(&mut stdin, &sandboxed);
    assert_eq!(recv(&mut stdout).exit_code, 2);
    // A declared input may be a link anywhere: Bazel's execroot and sandboxes link them in.
    let mut declared = request(11, args(&["--out-dir", "o3", "esc/secret.mlir"]));
    declared.inputs.push(Input {
        path: "esc/secret.mlir".into(),
        digest: vec![],
    });
    send(&mut stdin, &declared);
    let r = recv(&mut stdout);
    assert_eq!(r.exit_code, 0, "{}", r.output);
    assert!(ws.dir().join("o3/secret.cmt2.mlir").exists());
    finish(child, stdin);
    assert_eq!(names(&outside), ["secret.mlir"], "written outside");

    // The JSON protocol judges the same way.
    let text = format!(
        "{{\"arguments\":{},\"requestId\":5}}",
        serde_json::to_string(&refused[0]).unwrap()
    );
    let (answers, code) = json_session(&ws, &[], HOLD_MS, &text);
    let r = &answers[0];
    assert_eq!(
        (r["requestId"].as_i64(), r["exitCode"].as_i64()),
        (Some(5), Some(2)),
        "{r}"
    );
    assert_eq!((answers.len(), code), (1, Some(0)));
    assert_eq!(names(&outside), ["secret.mlir"], "written outside");

    // With the option, the link is followed.
    served_with_the_option(&ws, refused[0].clone(), &outside.join("o/burst.cmt2.mlir"));
}
