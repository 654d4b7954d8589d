//! Shared helpers for the daemon tests: generated APS modules and spec construction.
#![allow(dead_code)]

use kiln_daemon::client::DaemonStats;
use kiln_daemon::client::{Connector, build_via_daemon};
use kiln_daemon::report::BuildReport;
use kiln_daemon::request::BuildSpec;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[path = "tree.rs"]
mod tree_of;
#[allow(unused_imports)] // not every test binary compares trees
pub use tree_of::tree;

/// `tests/data/<rel>` at the repository root.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data")
        .join(rel)
}

/// An APS module with `n` copies of `flow_burst_add` (`@f0` … `@f{n-1}`, distinct
/// opcode/funct7), separated by comment lines.
pub fn generated_module(n: usize) -> String {
    let base = std::fs::read_to_string(data("aps/flow_burst_add.mlir")).unwrap();
    let start = base.find("    tor.func @flow_burst_add").unwrap();
    let body_end = find_func_end(&base, start);
    let func = &base[start..body_end];
    let mut funcs = String::new();
    for i in 0..n {
        let f = func
            .replace("@flow_burst_add", &format!("@f{i}"))
            .replace("funct7 = 0 : i32", &format!("funct7 = {} : i32", i % 128))
            .replace(
                "opcode = 43 : i32",
                // RISC-V custom-0..3 (0x0b, 0x2b, 0x5b, 0x7b): 4 × 128 identities.
                &format!("opcode = {} : i32", [43, 11, 91, 123][(i / 128) % 4]),
            );
        funcs.push_str(&format!("    // function {i}\n{f}\n"));
    }
    format!("{}{}{}", &base[..start], funcs, &base[body_end + 1..])
}

/// `text` with the first `tor.addi` of function `@symbol` renamed `tor.subi` (a valid edit
/// of that function only), and the offset of the renamed op.
pub fn rename_op(text: &str, symbol: &str) -> (String, usize) {
    replace_in_function(text, symbol, "tor.addi", "tor.subi")
}

/// `text` with the first `from` at or after the start of function `@symbol` replaced by
/// `to`, and the offset of the replacement.
pub fn replace_in_function(text: &str, symbol: &str, from: &str, to: &str) -> (String, usize) {
    let f = text.find(&format!("tor.func @{symbol}(")).unwrap();
    let k = f + text[f..].find(from).unwrap();
    let edited = format!("{}{to}{}", &text[..k], &text[k + from.len()..]);
    (edited, k)
}

fn find_func_end(text: &str, start: usize) -> usize {
    let mut depth = 0;
    for (i, c) in text[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    // The function's attribute dict closes at depth 0 too: stop only at the
                    // body's closing brace, which ends a line.
                    let rest = &text[start + i + 1..];
                    if rest.starts_with('\n') && text[..start + i].ends_with("    ") {
                        return start + i + 1;
                    }
                }
            }
            _ => {}
        }
    }
    panic!("unterminated function")
}

/// The shared corpus (`../shared` or `$KILN_SHARED_DIR`): `None` outside CI when absent;
/// under `CI=true` its absence is a failure.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("KILN_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    if dir.is_dir() {
        return Some(dir);
    }
    let strict = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
        || std::env::var("KILN_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1");
    assert!(
        !strict,
        "shared corpus {} is required under CI",
        dir.display()
    );
    eprintln!("skipping: shared corpus {} not present", dir.display());
    None
}

/// Copy a directory tree.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Executions of `kind` in a counter snapshot (0 when it never ran).
pub fn count(s: &kiln_daemon::report::Snapshot, kind: &str) -> u64 {
    s.get(kind).map_or(0, |c| c.executions)
}

/// Build `spec` with `ws`, which must succeed: the queries that build executed (its
/// report's counts).
pub fn build_counted(
    ws: &kiln_daemon::build::Builder,
    spec: &BuildSpec,
) -> kiln_daemon::report::Snapshot {
    let reply = ws.build(spec);
    assert!(reply.ok(), "{}", reply.rendered());
    reply.counts
}

/// A build of `input` into `<dir>/out` with the default output kinds.
pub fn spec(input: &Path, dir: &Path) -> kiln_daemon::request::BuildSpec {
    kiln_daemon::request::BuildSpec {
        inputs: vec![input.to_path_buf()],
        out_dir: dir.join("out"),
        ..Default::default()
    }
}

/// A fresh directory holding one [`generated_module`] input, and the spec that builds it
/// into the directory's `out/`.
pub struct Generated {
    pub dir: tempfile::TempDir,
    pub src: PathBuf,
    pub text: String,
    pub spec: kiln_daemon::request::BuildSpec,
}

/// `name` in a fresh directory holding `generated_module(n)`.
pub fn generated_input(name: &str, n: usize) -> Generated {
    input(name, generated_module(n))
}

/// `name` in a fresh directory holding `text`.
pub fn input(name: &str, text: String) -> Generated {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(name);
    fs::write(&src, &text).unwrap();
    let spec = spec(&src, dir.path());
    Generated {
        dir,
        src,
        text,
        spec,
    }
}

impl Generated {
    /// An in-process builder that has built the input once (cold), which succeeded.
    pub fn built(&self) -> kiln_daemon::build::Builder {
        let ws = kiln_daemon::build::Builder::in_process(None);
        assert!(ws.build(&self.spec).ok());
        ws
    }
}

/// A workspace with its own daemon (the `kiln-daemon` binary), runtime and cache
/// directories; the daemon is killed by pid when it is dropped.
pub struct Env {
    pub root: tempfile::TempDir,
    pub connector: Connector,
}

impl Env {
    pub fn new(extra: &[&str]) -> Env {
        let root = tempfile::tempdir().unwrap();
        let ws = root.path().join("ws");
        fs::create_dir_all(ws.join("src")).unwrap();
        // `option_env!`: this module is also included by the client's tests, which have no
        // daemon binary and only use `generated_module`.
        let exe = match option_env!("CARGO_BIN_EXE_kiln-daemon") {
            Some(p) => PathBuf::from(p),
            None => panic!("`Env` is for the daemon's tests, which have its binary"),
        };
        let mut connector = Connector::in_base(Some(&root.path().join("run")), &ws, exe).unwrap();
        connector.daemon_args.push("--cache-dir".into());
        connector
            .daemon_args
            .push(root.path().join("cache").to_string_lossy().into_owned());
        connector
            .daemon_args
            .extend(extra.iter().map(|s| s.to_string()));
        Env { root, connector }
    }

    pub fn ws(&self) -> PathBuf {
        self.root.path().join("ws")
    }

    pub fn cache_dir(&self) -> PathBuf {
        self.root.path().join("cache")
    }

    pub fn request(&self, inputs: &[PathBuf], out: &str) -> BuildSpec {
        BuildSpec {
            inputs: inputs.to_vec(),
            out_dir: self.ws().join(out),
            kinds: Vec::new(),
            digests: true,
            ..Default::default()
        }
    }

    pub fn build(&self, req: &BuildSpec) -> BuildReport {
        build_via_daemon(&self.connector, req).expect("daemon build")
    }

    pub fn pid(&self) -> Option<u32> {
        self.connector.dir.read_info().map(|i| i.pid)
    }

    pub fn shutdown(&self) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            if let Some(mut c) = self.connector.connect_existing().await {
                let _ = c.shutdown().await;
            }
            self.connector
                .wait_until_gone(Duration::from_secs(20))
                .await
                .unwrap();
        });
    }

    pub fn stats(&self) -> DaemonStats {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut c = self.connector.connect_existing().await.unwrap();
            c.stats().await.unwrap()
        })
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        if let Some(pid) = self.pid() {
            let _ = std::process::Command::new("kill")
                .arg("-9")
                .arg(pid.to_string())
                .status();
        }
    }
}

/// The same build, cold, in this process (into `out`): the one-shot build, through the
/// compiler's flows.
pub fn in_process(inputs: &[PathBuf], out: &Path) -> BuildReport {
    let spec = BuildSpec {
        inputs: inputs.to_vec(),
        out_dir: out.to_path_buf(),
        kinds: Vec::new(),
        digests: true,
        ..Default::default()
    };
    kiln_daemon::oneshot::build(&spec)
}
