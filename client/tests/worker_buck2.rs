//! Plays Buck2 against `kiln worker --buck2`: spawns it with `WORKER_SOCKET`, connects
//! over the Unix socket, runs commands through `Execute` and `Exec`, cancels one (which then
//! writes nothing).

#[path = "worker_common/mod.rs"]
mod common;

use common::{Ws, action, tree};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use tonic::transport::{Channel, Endpoint};

mod pb {
    include!(concat!(env!("OUT_DIR"), "/worker.rs"));
}
use pb::worker_client::WorkerClient;
use pb::{ExecuteCancel, ExecuteCommand, ExecuteEvent, execute_event};

/// The worker process; killed by pid on drop.
struct Worker(Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(ws: &Ws, socket: &Path) -> Worker {
    let child = ws
        .kiln()
        .args(["worker", "--buck2", "--no-daemon"])
        .env("WORKER_SOCKET", socket)
        .env("KILN_WORKER_TEST_DELAY_MS", "300")
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    Worker(child)
}

/// Connect like Buck2: retry until the socket answers (Buck2 allows up to a minute).
async fn connect(socket: &Path) -> WorkerClient<Channel> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let ep = Endpoint::from_shared(format!("unix://{}", socket.display())).unwrap();
        if let Ok(ch) = ep.connect().await {
            return WorkerClient::new(ch);
        }
        assert!(Instant::now() < deadline, "worker never listened");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn command(args: Vec<String>) -> ExecuteCommand {
    ExecuteCommand {
        argv: args.into_iter().map(String::into_bytes).collect(),
        env: vec![],
        timeout_s: None,
    }
}

/// The legacy unary `Execute` of the action writing into `out`, which must succeed.
async fn execute_ok(client: &mut WorkerClient<Channel>, out: &str) {
    let r = client
        .execute(command(action(out)))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.exit_code, 0, "{}", r.stderr);
}

fn event(data: execute_event::Data) -> ExecuteEvent {
    ExecuteEvent { data: Some(data) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn buck2_execute_exec_and_cancel() {
    let ws = Ws::new();
    let socket = ws.root().join("buck2_worker.sock");
    let _worker = spawn(&ws, &socket);
    let mut client = connect(&socket).await;

    // Legacy unary Execute.
    execute_ok(&mut client, "b1").await;

    // Exec: a command, then the client half-closes and waits for the result.
    let events = tokio_stream::iter(vec![event(execute_event::Data::Command(command(action(
        "b2",
    ))))]);
    let r = client.exec(events).await.unwrap().into_inner();
    assert_eq!(r.exit_code, 0, "{}", r.stderr);
    assert_eq!(tree(&ws.dir().join("b1")), tree(&ws.dir().join("b2")));
    assert_eq!(tree(&ws.dir().join("b1")).len(), 3);

    // Exec with an @argfile and a bad input: exit code 1 and a located diagnostic.
    std::fs::write(ws.dir().join("bad.args"), "--out-dir\nb3\nsrc/bad.mlir\n").unwrap();
    let events = tokio_stream::iter(vec![event(execute_event::Data::Command(command(vec![
        "@bad.args".into(),
    ])))]);
    let r = client.exec(events).await.unwrap().into_inner();
    assert_eq!(r.exit_code, 1);
    assert!(r.stderr.contains("bad.mlir:3:1: error"), "{}", r.stderr);

    // Exec cancelled while the command is held: the cancelled response comes back well
    // before the command could have finished, and the worker keeps serving.
    let (tx, rx) = tokio::sync::mpsc::channel(2);
    tx.send(event(execute_event::Data::Command(command(action("b4")))))
        .await
        .unwrap();
    let started = Instant::now();
    let call = tokio::spawn({
        let mut c = client.clone();
        async move {
            c.exec(tokio_stream::wrappers::ReceiverStream::new(rx))
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    tx.send(event(execute_event::Data::Cancel(ExecuteCancel {})))
        .await
        .unwrap();
    let r = call.await.unwrap().unwrap().into_inner();
    assert_eq!(r.exit_code, 130, "{}", r.stderr);
    assert!(r.stderr.contains("cancelled"));
    assert!(
        started.elapsed() < Duration::from_millis(290),
        "{:?}",
        started.elapsed()
    );
    drop(tx);

    execute_ok(&mut client, "b5").await;
    assert_eq!(tree(&ws.dir().join("b1")), tree(&ws.dir().join("b5")));
    // The cancelled command, stopped before it wrote, never writes.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!ws.dir().join("b4").exists(), "written after its cancel");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn buck2_paths_through_links_out_of_the_project_are_refused() {
    let ws = Ws::new();
    let outside = ws.root().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, ws.dir().join("esc")).unwrap();
    std::fs::copy(ws.dir().join("src/burst.mlir"), outside.join("secret.mlir")).unwrap();
    let socket = ws.root().join("buck2_worker.sock");
    let _worker = spawn(&ws, &socket);
    let mut client = connect(&socket).await;
    let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    for a in [
        args(&["--out-dir", "esc/o", "src/burst.mlir"]),
        args(&["--out-dir", "o1", "esc/secret.mlir"]),
    ] {
        let r = client
            .execute(command(a.clone()))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(r.exit_code, 2, "{a:?}: {}", r.stderr);
        assert!(r.stderr.contains("through a symbolic link"), "{}", r.stderr);
    }
    let written: Vec<_> = std::fs::read_dir(&outside).unwrap().flatten().collect();
    assert_eq!(written.len(), 1, "written outside the project: {written:?}");
    assert!(!ws.dir().join("o1").exists());
}
