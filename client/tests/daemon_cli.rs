//! The daemon through the `kiln` command: `watch` under 1,000 rapid edits converges to a
//! cold in-process build of the final sources; `status`, `stats --json`, `shutdown`,
//! `cache stats|gc`. Each test has its own workspace, runtime and cache directories.

mod cli;

use cli::Daemon;
use kiln_daemon::request::BuildSpec;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data")
        .join(rel)
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Start `kiln watch` and wait for its first status line.
fn start_watch(env: &Daemon, paths: &[&str]) -> (Child, std::sync::mpsc::Receiver<String>) {
    let mut child = env
        .kiln()
        .arg("watch")
        .args(paths)
        .args(["--out-dir", "out"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("first watch event");
    assert!(first.starts_with("[0] ok"), "{first}");
    (child, rx)
}

fn write_by_rename(path: &Path, text: &str, i: usize) {
    let name = path.file_name().unwrap().to_string_lossy();
    let tmp = path.with_file_name(format!(".{name}.swp{i}"));
    fs::write(&tmp, text).unwrap();
    fs::rename(&tmp, path).unwrap();
}

fn tree_bytes(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.file_name().unwrap().to_string_lossy().starts_with('.') {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.push((rel, fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn watch_converges_after_1000_rapid_edits() {
    let env = Daemon::new();
    let mlir = env.ws().join("src/flow_burst_add.mlir");
    fs::copy(data("aps/flow_burst_add.mlir"), &mlir).unwrap();
    copy_tree(&data("daemon/blif_lib"), &env.ws().join("lib"));
    let blif = env.ws().join("lib/addi/4/addi.blif");
    let mlir_text = fs::read_to_string(&mlir).unwrap();
    let blif_text = fs::read_to_string(&blif).unwrap();
    let (mut watch, _rx) = start_watch(&env, &["src/flow_burst_add.mlir", "lib"]);

    let row = blif_text.find("\n1").unwrap();
    for i in 0..1000 {
        let (path, text) = if i % 2 == 0 {
            let op = if i % 4 == 0 { "tor.subi" } else { "tor.addi" };
            let t = mlir_text.replacen("tor.addi", op, 1);
            (&mlir, format!("// edit {i}\n{t}"))
        } else {
            let bit = if i % 3 == 0 { "0" } else { "1" };
            let t = format!("{}\n{bit}{}", &blif_text[..row], &blif_text[row + 2..]);
            (&blif, format!("# edit {i}\n{t}"))
        };
        if i % 3 == 0 {
            write_by_rename(path, &text, i);
        } else {
            fs::write(path, &text).unwrap();
        }
    }

    let cold = env.ws().join("cold");
    let spec = BuildSpec {
        inputs: vec![mlir.clone(), env.ws().join("lib")],
        out_dir: cold.clone(),
        kinds: Vec::new(),
        ..Default::default()
    };
    let reply = kiln_daemon::oneshot::build(&spec);
    assert!(reply.ok(), "{}", reply.rendered());
    let expected = tree_bytes(&cold);
    assert_eq!(expected.len(), 8);
    let deadline = Instant::now() + Duration::from_secs(60);
    while tree_bytes(&env.ws().join("out")) != expected {
        assert!(
            Instant::now() < deadline,
            "watch outputs never matched the final sources"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    watch.kill().unwrap();
    let _ = watch.wait();
}

#[test]
fn status_stats_shutdown_and_cache_commands() {
    let env = Daemon::new();
    let out = env.run(&["status"]);
    assert_eq!(out.status.code(), Some(1), "no daemon yet");

    fs::copy(
        data("aps/flow_burst_add.mlir"),
        env.ws().join("src/flow_burst_add.mlir"),
    )
    .unwrap();
    let out = env.run(&["watch", "src", "--out-dir", "out", "--max-events", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(env.ws().join("out/flow_burst_add.cmt2.mlir").exists());
    assert!(env.ws().join("out/flow_burst_add.rules.json").exists());

    assert!(env.daemon_pid().is_some());
    let out = env.run(&["stats", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["queries"]["segmentation"]["executions"], 1);
    assert_eq!(v["builds"], 1);

    let out = env.run(&["shutdown"]);
    assert!(out.status.success());
    assert_eq!(env.daemon_pid(), None);

    let out = env.run(&["cache", "stats", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["entries"].as_u64().unwrap() > 0);
    let out = env.run(&["cache", "gc", "--max-bytes", "0"]);
    assert!(out.status.success());
    let out = env.run(&["cache", "stats", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["entries"], 0);
}
