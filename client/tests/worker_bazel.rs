//! `kiln worker --persistent_worker` driven like Bazel: length-delimited protobuf and
//! concatenated JSON, singleplex and multiplex, cancel, sandbox_dir, bad input.

#[path = "worker_common/mod.rs"]
mod common;

use common::bazel::WorkResponse;
use common::{OUTPUTS, Ws, action, cancel, finish, recv, request, send, tree};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

fn spawn(ws: &Ws, extra: &[&str], delay_ms: Option<u64>) -> (Child, ChildStdin, ChildStdout) {
    let args: Vec<&str> = ["--no-daemon"].iter().chain(extra).copied().collect();
    common::spawn_persistent(ws, &args, delay_ms, Stdio::inherit())
}

#[test]
fn proto_singleplex_serves_several_requests_in_one_process() {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, &[], None);
    send(&mut stdin, &request(0, action("out1")));
    let r1 = recv(&mut stdout);
    assert_eq!(
        (r1.exit_code, r1.request_id, r1.was_cancelled),
        (0, 0, false),
        "{}",
        r1.output
    );
    send(&mut stdin, &request(0, action("out2")));
    let r2 = recv(&mut stdout);
    assert_eq!(r2.exit_code, 0, "{}", r2.output);
    let (t1, t2) = (tree(&ws.dir().join("out1")), tree(&ws.dir().join("out2")));
    let names: Vec<_> = t1
        .iter()
        .map(|(p, _)| p.to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, OUTPUTS);
    assert_eq!(t1, t2);
    // Bad input: exit code 1 and a located diagnostic in `output`, the worker lives on.
    send(
        &mut stdin,
        &request(
            0,
            vec!["--out-dir".into(), "out3".into(), "src/bad.mlir".into()],
        ),
    );
    let r3 = recv(&mut stdout);
    assert_eq!(r3.exit_code, 1);
    assert!(r3.output.contains("bad.mlir:3:1: error"), "{}", r3.output);
    send(&mut stdin, &request(0, vec!["--bogus".into()]));
    assert_eq!(recv(&mut stdout).exit_code, 2);
    finish(child, stdin);
}

#[test]
fn proto_multiplex_echoes_ids_and_cancels() {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, &[], Some(400));
    for id in 1..=3 {
        send(&mut stdin, &request(id, action(&format!("m{id}"))));
    }
    // Cancel request 2 while it is held.
    send(&mut stdin, &cancel(2));
    let mut got: Vec<WorkResponse> = (0..3).map(|_| recv(&mut stdout)).collect();
    got.sort_by_key(|r| r.request_id);
    assert_eq!(
        got.iter().map(|r| r.request_id).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert!(got[1].was_cancelled);
    assert!(!got[0].was_cancelled && !got[2].was_cancelled);
    assert_eq!((got[0].exit_code, got[2].exit_code), (0, 0));
    assert_eq!(tree(&ws.dir().join("m1")), tree(&ws.dir().join("m3")));
    // Exactly one response per request: nothing more arrives before EOF.
    drop(stdin);
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    assert!(
        rest.is_empty(),
        "extra bytes after the last response: {rest:?}"
    );
    let mut child = child;
    assert!(child.wait().unwrap().success());
}

#[test]
fn proto_paths_resolve_against_sandbox_dir() {
    let ws = Ws::new();
    let sandbox = ws.dir().join("sandbox/1");
    std::fs::create_dir_all(sandbox.join("src")).unwrap();
    for f in ["burst.mlir", "mux.blif"] {
        std::fs::copy(ws.dir().join("src").join(f), sandbox.join("src").join(f)).unwrap();
    }
    let (child, mut stdin, mut stdout) = spawn(&ws, &[], None);
    let mut req = request(5, action("out"));
    req.sandbox_dir = "sandbox/1".into();
    send(&mut stdin, &req);
    let r = recv(&mut stdout);
    assert_eq!((r.exit_code, r.request_id), (0, 5), "{}", r.output);
    assert_eq!(tree(&sandbox.join("out")).len(), 3);
    assert!(!ws.dir().join("out").exists());
    finish(child, stdin);
}

#[test]
fn json_concatenated_requests_without_separator() {
    let ws = Ws::new();
    let (child, mut stdin, stdout) = spawn(&ws, &["--worker-protocol", "json"], None);
    let args = serde_json::to_string(&action("j1")).unwrap();
    let args2 = serde_json::to_string(&action("j2")).unwrap();
    // Singleplex with an unknown field and an input digest (a SHA-1's hex digits, which
    // the worker leaves unused), then multiplex ids 7 and 8,
    // written back to back exactly as Bazel 4 does.
    let text = format!(
        "{{\"arguments\":{args},\"inputs\":[{{\"path\":\"src/burst.mlir\",\"digest\":\"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWYwMTIzNDU2Nw==\"}}],\"someFutureField\":{{\"x\":[1]}}}}\
         {{\"arguments\":{args2},\"requestId\":7}}\
         {{\"arguments\":[\"--out-dir\",\"j3\",\"src/bad.mlir\"],\"requestId\":8,\"verbosity\":10}}"
    );
    stdin.write_all(text.as_bytes()).unwrap();
    stdin.flush().unwrap();
    drop(stdin);
    let responses: Vec<serde_json::Value> = serde_json::Deserializer::from_reader(stdout)
        .into_iter::<serde_json::Value>()
        .map(Result::unwrap)
        .collect();
    let mut child = child;
    assert!(child.wait().unwrap().success());
    assert_eq!(responses.len(), 3, "{responses:?}");
    let by_id = |id: i64| {
        responses
            .iter()
            .find(|r| r.get("requestId").and_then(|v| v.as_i64()).unwrap_or(0) == id)
            .unwrap_or_else(|| panic!("no response for {id}: {responses:?}"))
    };
    assert!(by_id(0).get("exitCode").is_none(), "{:?}", by_id(0));
    assert!(by_id(7).get("exitCode").is_none());
    assert_eq!(by_id(8)["exitCode"], 1);
    assert!(
        by_id(8)["output"]
            .as_str()
            .unwrap()
            .contains("bad.mlir:3:1: error")
    );
    assert_eq!(tree(&ws.dir().join("j1")), tree(&ws.dir().join("j2")));
    assert_eq!(tree(&ws.dir().join("j1")).len(), 3);
}

/// Multiplex sandboxing (newer Bazel): each request's paths, its input digests' included,
/// are relative to its own `sandboxDir`. Each sandbox holds a different `mux.blif` (the
/// sample, and an AND gate), whose digest is given: resolved against the worker's
/// directory, it would not match.
#[test]
fn json_multiplex_requests_each_resolve_against_their_sandbox_dir() {
    use base64::Engine;
    use sha2::Digest;
    let ws = Ws::new();
    let mut digests = Vec::new();
    let and2 = b".model and2\n.inputs a b\n.outputs y\n.names a b y\n11 1\n.end\n".to_vec();
    let sample = std::fs::read(ws.dir().join("src/mux.blif")).unwrap();
    for (i, mux) in [(1, sample), (2, and2)] {
        let dir = ws.dir().join(format!("sandbox/{i}/src"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("mux.blif"), &mux).unwrap();
        let hex = format!("{:x}", sha2::Sha256::digest(&mux));
        digests.push(base64::engine::general_purpose::STANDARD.encode(hex));
    }
    let (child, mut stdin, stdout) = spawn(&ws, &["--worker-protocol", "json"], Some(200));
    let args = serde_json::json!(["--out-dir", "out", "src/mux.blif"]);
    for (i, digest) in [(1, &digests[0]), (2, &digests[1])] {
        let req = serde_json::json!({
            "arguments": args, "requestId": i, "sandboxDir": format!("sandbox/{i}"),
            "inputs": [{"path": "src/mux.blif", "digest": digest}],
        });
        stdin.write_all(req.to_string().as_bytes()).unwrap();
    }
    // A digest that matches neither file: the request fails, naming the input.
    let wrong = serde_json::json!({
        "arguments": args, "requestId": 3, "sandboxDir": "sandbox/1",
        "inputs": [{"path": "src/mux.blif", "digest": digests[1]}],
    });
    stdin.write_all(wrong.to_string().as_bytes()).unwrap();
    stdin.flush().unwrap();
    drop(stdin);
    let responses: Vec<serde_json::Value> = serde_json::Deserializer::from_reader(stdout)
        .into_iter::<serde_json::Value>()
        .map(Result::unwrap)
        .collect();
    let mut child = child;
    assert!(child.wait().unwrap().success());
    let by_id = |id: i64| {
        responses
            .iter()
            .find(|r| r["requestId"].as_i64() == Some(id))
            .unwrap_or_else(|| panic!("no response for {id}: {responses:?}"))
    };
    for id in [1, 2] {
        assert!(by_id(id).get("exitCode").is_none(), "{:?}", by_id(id));
        let out = tree(&ws.dir().join(format!("sandbox/{id}/out")));
        assert_eq!(out.len(), 1, "request {id}: {out:?}");
    }
    assert_ne!(
        tree(&ws.dir().join("sandbox/1/out")),
        tree(&ws.dir().join("sandbox/2/out")),
        "each request built its own sandbox's input"
    );
    assert!(
        !ws.dir().join("out").exists(),
        "nothing written outside the sandboxes"
    );
    assert_eq!(by_id(3)["exitCode"], 1, "{:?}", by_id(3));
    assert!(
        by_id(3)["output"].as_str().unwrap().contains("mux.blif"),
        "{:?}",
        by_id(3)
    );
}

/// `--style fifo` in an action's arguments builds the fifo-style rules (the Bazel/Buck2
/// `style` attribute); without it, the state machine.
#[test]
fn json_style_flag_selects_the_rules_architecture() {
    let ws = Ws::new();
    let req = |id: u32, out: &str, style: &[&str]| {
        let mut args = vec!["--out-dir".to_string(), out.to_string()];
        args.extend(style.iter().map(|s| s.to_string()));
        args.push("src/burst.mlir".into());
        serde_json::json!({ "arguments": args, "requestId": id }).to_string()
    };
    let text = req(1, "fsm", &[]) + &req(2, "fifo", &["--style", "fifo"]);
    let (answers, code) = common::json_session(&ws, &[], 0, &text);
    assert_eq!(code, Some(0), "{answers:?}");
    assert_eq!(answers.len(), 2, "{answers:?}");
    let read = |d: &str| {
        std::fs::read_to_string(ws.dir().join(d).join("burst.cmt2.mlir"))
            .unwrap_or_else(|e| panic!("{d}: {e}: {answers:?}"))
    };
    assert!(read("fifo").contains("input_distribution"));
    assert!(!read("fsm").contains("input_distribution"));
}

/// `--aps-config FILE` in an action's arguments (the Bazel/Buck2 `aps_config` attribute):
/// the file is a declared input resolved against the request's sandbox, read again by each
/// request (an edit between two requests of one worker gives the new lanes), in process and
/// through the daemon; one that does not read fails the request with its located error.
#[test]
fn proto_aps_config_is_an_input_of_each_request() {
    use common::bazel::Input;
    use sha2::{Digest, Sha256};
    let ws = Ws::new();
    let sandbox = ws.dir().join("sandbox/1");
    std::fs::create_dir_all(sandbox.join("src")).unwrap();
    std::fs::copy(common::data("aps/csr.mlir"), sandbox.join("src/csr.mlir")).unwrap();
    let config = sandbox.join("src/csr.yaml");
    let req = |id: i32, out: &str| {
        let args = [
            "--out-dir",
            out,
            "--kind",
            "sv",
            "--aps-config",
            "src/csr.yaml",
        ];
        let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        args.push("src/csr.mlir".into());
        let inputs = (["src/csr.mlir", "src/csr.yaml"].iter())
            .map(|p| Input {
                path: p.to_string(),
                digest: (Sha256::digest(std::fs::read(sandbox.join(p)).unwrap()).iter())
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
                    .into_bytes(),
            })
            .collect();
        bazel_req(id, args, inputs)
    };
    let lanes = |out: &str| -> Vec<String> {
        (std::fs::read_to_string(sandbox.join(out).join("csr.sv"))
            .unwrap()
            .lines())
        .filter_map(|l| l.trim().strip_prefix("input  logic [31:0] csr_"))
        .map(|l| l.trim_end_matches(",").to_string())
        .collect()
    };
    for (mode, daemon) in [("in-process", false), ("daemon", true)] {
        let args: &[&str] = if daemon {
            &["--start-daemon"]
        } else {
            &["--no-daemon"]
        };
        let (child, mut stdin, mut stdout) =
            common::spawn_persistent(&ws, args, None, Stdio::inherit());
        let mut call = |id: i32, out: String| {
            send(&mut stdin, &req(id, &out));
            recv(&mut stdout)
        };
        std::fs::write(
            &config,
            "csrs:\n  - {id: 0x810, name: scale}\n  - {id: 0x811, name: flags}\n",
        )
        .unwrap();
        let r = call(1, format!("{mode}/a"));
        assert_eq!(r.exit_code, 0, "{mode}: {}", r.output);
        assert_eq!(
            lanes(&format!("{mode}/a")),
            ["scale_value_res0", "flags_value_res0"],
            "{mode}"
        );
        std::fs::write(
            &config,
            "csrs:\n  - {id: 0x811, name: status}\n  - {id: 0x810, name: cfg}\n",
        )
        .unwrap();
        let r = call(2, format!("{mode}/b"));
        assert_eq!(r.exit_code, 0, "{mode}: {}", r.output);
        assert_eq!(
            lanes(&format!("{mode}/b")),
            ["status_value_res0", "cfg_value_res0"],
            "{mode}"
        );
        std::fs::write(
            &config,
            "csrs:\n  - {id: 0x810, name: a}\n  - {id: 0x810, name: b}\n",
        )
        .unwrap();
        let r = call(3, format!("{mode}/c"));
        assert_ne!(r.exit_code, 0, "{mode}: {}", r.output);
        assert!(
            r.output
                .starts_with("src/csr.yaml:3:5: error: a second CSR with id 0x810"),
            "{mode}: {}",
            r.output
        );
        assert!(!sandbox.join(mode).join("c").exists(), "{mode}");
        finish(child, stdin);
    }
}

/// A request in sandbox `sandbox/1` with these arguments and declared inputs.
fn bazel_req(
    id: i32,
    args: Vec<String>,
    inputs: Vec<common::bazel::Input>,
) -> common::bazel::WorkRequest {
    common::bazel::WorkRequest {
        sandbox_dir: "sandbox/1".into(),
        inputs,
        ..request(id, args)
    }
}
