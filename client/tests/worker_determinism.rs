//! The same action through every path produces byte-identical outputs: Bazel worker
//! (proto), Buck2 worker, one-shot with an @flagfile, one-shot through a daemon, and
//! one-shot in process (`--no-daemon`).

#[path = "worker_common/mod.rs"]
mod common;

use common::{OUTPUTS, Ws, action, tree};
use prost::Message;
use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

mod bazel {
    include!(concat!(env!("OUT_DIR"), "/blaze.worker.rs"));
}
mod buck2 {
    include!(concat!(env!("OUT_DIR"), "/worker.rs"));
}

fn oneshot(ws: &Ws, flags: &[&str], out: &str) {
    let flagfile = ws.dir().join(format!("{out}.params"));
    std::fs::write(&flagfile, action(out).join("\n")).unwrap();
    let o = ws
        .kiln()
        .arg("worker")
        .args(flags)
        .arg(format!("@{out}.params"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn bazel_worker(ws: &Ws, out: &str) {
    let mut child = ws
        .kiln()
        .args(["worker", "--no-daemon", "--persistent_worker"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let req = bazel::WorkRequest {
        arguments: action(out),
        ..Default::default()
    };
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(&req.encode_length_delimited_to_vec())
        .unwrap();
    drop(stdin);
    let mut bytes = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    assert!(child.wait().unwrap().success());
    let resp = bazel::WorkResponse::decode_length_delimited(bytes.as_slice()).unwrap();
    assert_eq!(resp.exit_code, 0, "{}", resp.output);
}

fn buck2_worker(ws: &Ws, out: &str) {
    let socket = ws.root().join("w.sock");
    let mut child = ws
        .kiln()
        .args(["worker", "--buck2", "--no-daemon"])
        .env("WORKER_SOCKET", &socket)
        .spawn()
        .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let r = rt.block_on(async {
        let mut client = connect(&socket).await;
        let cmd = buck2::ExecuteCommand {
            argv: action(out).into_iter().map(String::into_bytes).collect(),
            env: vec![],
            timeout_s: None,
        };
        client.execute(cmd).await.unwrap().into_inner()
    });
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(r.exit_code, 0, "{}", r.stderr);
}

async fn connect(socket: &Path) -> buck2::worker_client::WorkerClient<tonic::transport::Channel> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let ep = tonic::transport::Endpoint::from_shared(format!("unix://{}", socket.display()))
            .unwrap();
        if let Ok(ch) = ep.connect().await {
            return buck2::worker_client::WorkerClient::new(ch);
        }
        assert!(Instant::now() < deadline, "worker never listened");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[test]
fn every_path_writes_identical_bytes() {
    let ws = Ws::new();
    oneshot(&ws, &["--no-daemon"], "inproc");
    oneshot(&ws, &["--start-daemon"], "daemon");
    let status = ws.kiln().args(["status", "--json"]).output().unwrap();
    assert!(status.status.success(), "the daemon did not start");
    bazel_worker(&ws, "bazel");
    buck2_worker(&ws, "buck2");
    let reference = tree(&ws.dir().join("inproc"));
    let names: Vec<_> = reference
        .iter()
        .map(|(p, _)| p.to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, OUTPUTS);
    for other in ["daemon", "bazel", "buck2"] {
        assert_eq!(tree(&ws.dir().join(other)), reference, "{other} differs");
    }
}
