//! `WorkRequest.inputs[].digest` through the Bazel worker protocol: Bazel sends the hex
//! SHA-256 of each input (as bytes; base64 of them in JSON). A file whose bytes do not
//! match is rejected with a diagnostic, in process and in the daemon; the daemon does not
//! re-read a file whose digest it has verified (counter `input_digest_reused`).

#[path = "worker_common/mod.rs"]
mod common;

use common::bazel::{Input, WorkRequest, WorkResponse};
use common::{Ws, action, finish, tree};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

const INPUTS: [&str; 2] = ["src/burst.mlir", "src/mux.blif"];

fn spawn(ws: &Ws, daemon: &str, extra: &[&str]) -> (Child, ChildStdin, ChildStdout) {
    let args: Vec<&str> = [daemon].iter().chain(extra).copied().collect();
    common::spawn_persistent(ws, &args, None, Stdio::inherit())
}

/// Bazel's digest of `rel`: the lowercase hex SHA-256 of its bytes, as bytes.
fn digest_of(ws: &Ws, rel: &str) -> Vec<u8> {
    let bytes = std::fs::read(ws.dir().join(rel)).unwrap();
    let hex: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    hex.into_bytes()
}

/// A request for `action(out)` whose inputs carry `digests` (path, digest bytes).
fn request(out: &str, digests: &[(&str, Vec<u8>)]) -> WorkRequest {
    WorkRequest {
        arguments: action(out),
        inputs: digests
            .iter()
            .map(|(p, d)| Input {
                path: p.to_string(),
                digest: d.clone(),
            })
            .collect(),
        ..Default::default()
    }
}

fn good(ws: &Ws) -> Vec<(&'static str, Vec<u8>)> {
    INPUTS.iter().map(|p| (*p, digest_of(ws, p))).collect()
}

fn call(stdin: &mut ChildStdin, stdout: &mut ChildStdout, req: &WorkRequest) -> WorkResponse {
    common::send(stdin, req);
    common::recv(stdout)
}

/// A digest that is well-formed but belongs to other bytes.
fn wrong() -> Vec<u8> {
    "ab".repeat(32).into_bytes()
}

fn assert_rejected(r: &WorkResponse, file: &str) {
    assert_eq!(r.exit_code, 1, "{}", r.output);
    assert!(
        r.output.contains(&format!(
            "{file}: error: the file does not match the digest"
        )) && r.output.contains(&"ab".repeat(32)),
        "{}",
        r.output
    );
}

#[test]
fn in_process_matching_digests_build_and_a_mismatch_is_rejected() {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, "--no-daemon", &[]);
    let r = call(&mut stdin, &mut stdout, &request("plain", &[]));
    assert_eq!(r.exit_code, 0, "{}", r.output);
    let r = call(&mut stdin, &mut stdout, &request("digests", &good(&ws)));
    assert_eq!(r.exit_code, 0, "{}", r.output);
    assert_eq!(
        tree(&ws.dir().join("plain")),
        tree(&ws.dir().join("digests"))
    );
    let mut bad = good(&ws);
    bad[1].1 = wrong();
    let r = call(&mut stdin, &mut stdout, &request("bad", &bad));
    assert_rejected(&r, "mux.blif");
    // Raw 32-byte digests are accepted too; the hex digits of other digest functions (here
    // an MD5's, 32 of them, and so not taken as 32 raw bytes) are ignored.
    let raw: Vec<u8> = Sha256::digest(std::fs::read(ws.dir().join(INPUTS[0])).unwrap()).to_vec();
    let other = vec![
        (INPUTS[0], raw),
        (INPUTS[1], "0123abcd".repeat(4).into_bytes()),
    ];
    let r = call(&mut stdin, &mut stdout, &request("raw", &other));
    assert_eq!(r.exit_code, 0, "{}", r.output);
    finish(child, stdin);
}

#[test]
fn ignore_flag_leaves_digests_unchecked() {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, "--no-daemon", &["--input-digests=ignore"]);
    let mut bad = good(&ws);
    bad[1].1 = wrong();
    let r = call(&mut stdin, &mut stdout, &request("out", &bad));
    assert_eq!(r.exit_code, 0, "{}", r.output);
    finish(child, stdin);
}

#[test]
fn json_digests_are_base64_of_the_hex() {
    use base64::Engine;
    let ws = Ws::new();
    let (mut child, mut stdin, stdout) = spawn(&ws, "--no-daemon", &["--worker-protocol", "json"]);
    let b64 = |d: &[u8]| base64::engine::general_purpose::STANDARD.encode(d);
    let args = serde_json::to_string(&action("j")).unwrap();
    let ok = format!(
        "{{\"path\":\"src/burst.mlir\",\"digest\":\"{}\"}}",
        b64(&digest_of(&ws, "src/burst.mlir"))
    );
    let bad = format!(
        "{{\"path\":\"src/mux.blif\",\"digest\":\"{}\"}}",
        b64(&wrong())
    );
    let text = format!(
        "{{\"arguments\":{args},\"inputs\":[{ok}],\"requestId\":1}}\
         {{\"arguments\":{args},\"inputs\":[{ok},{bad}],\"requestId\":2}}"
    );
    stdin.write_all(text.as_bytes()).unwrap();
    drop(stdin);
    let responses: Vec<serde_json::Value> = serde_json::Deserializer::from_reader(stdout)
        .into_iter::<serde_json::Value>()
        .map(Result::unwrap)
        .collect();
    assert!(child.wait().unwrap().success());
    let by_id = |id: i64| {
        responses
            .iter()
            .find(|r| r["requestId"].as_i64() == Some(id))
            .unwrap_or_else(|| panic!("no response {id}: {responses:?}"))
    };
    assert!(by_id(1).get("exitCode").is_none(), "{:?}", by_id(1));
    assert_eq!(by_id(2)["exitCode"], 1);
    let out = by_id(2)["output"].as_str().unwrap();
    assert!(
        out.contains("mux.blif: error: the file does not match the digest"),
        "{out}"
    );
}

/// `input_digest_reused` executions in the daemon's `kiln stats --json`.
fn reused(ws: &Ws) -> u64 {
    let out = ws.kiln().args(["stats", "--json"]).output().unwrap();
    assert!(out.status.success(), "kiln stats");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["queries"]["input_digest_reused"]["executions"]
        .as_u64()
        .unwrap_or(0)
}

#[test]
fn daemon_skips_inputs_whose_digest_it_verified() {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, "--start-daemon", &[]);
    let first = good(&ws);
    let r = call(&mut stdin, &mut stdout, &request("d1", &first));
    assert_eq!(r.exit_code, 0, "{}", r.output);
    assert_eq!(
        reused(&ws),
        0,
        "first sight of the inputs: read and verified"
    );
    let r = call(&mut stdin, &mut stdout, &request("d2", &first));
    assert_eq!(r.exit_code, 0, "{}", r.output);
    assert_eq!(reused(&ws), 2, "both inputs served by digest");
    assert_eq!(tree(&ws.dir().join("d1")), tree(&ws.dir().join("d2")));

    // The daemon trusts a verified digest over the disk: the file is not even read.
    let mux = ws.dir().join("src/mux.blif");
    let original = std::fs::read(&mux).unwrap();
    std::fs::write(&mux, b"this is not BLIF\n").unwrap();
    let r = call(&mut stdin, &mut stdout, &request("d3", &first));
    assert_eq!(r.exit_code, 0, "{}", r.output);
    assert_eq!(reused(&ws), 4);
    assert_eq!(tree(&ws.dir().join("d1")), tree(&ws.dir().join("d3")));
    // A new digest makes it read the file, which must match.
    let mut stale = first.clone();
    stale[1].1 = wrong();
    let r = call(&mut stdin, &mut stdout, &request("d4", &stale));
    assert_rejected(&r, "mux.blif");
    std::fs::write(&mux, &original).unwrap();
    let r = call(&mut stdin, &mut stdout, &request("d5", &good(&ws)));
    assert_eq!(r.exit_code, 0, "{}", r.output);
    assert_eq!(tree(&ws.dir().join("d1")), tree(&ws.dir().join("d5")));
    finish(child, stdin);
}

#[test]
fn worker_verbose_reports_the_digests_used() {
    let ws = Ws::new();
    let (child, mut stdin, mut stdout) = spawn(&ws, "--no-daemon", &[]);
    let mut inputs = good(&ws);
    // The params file and the tool are inputs too; only sources' digests are passed on.
    inputs.push(("bazel-out/x/burst.params", "cd".repeat(32).into_bytes()));
    let mut req = request("v", &inputs);
    req.verbosity = 10;
    let r = call(&mut stdin, &mut stdout, &req);
    assert_eq!(r.exit_code, 0, "{}", r.output);
    assert!(
        r.output
            .contains("kiln worker: 2 input digests (SHA-256) passed to the build"),
        "{}",
        r.output
    );
    req.verbosity = 0;
    let r = call(&mut stdin, &mut stdout, &req);
    assert!(r.output.is_empty(), "{}", r.output);
    finish(child, stdin);
}
