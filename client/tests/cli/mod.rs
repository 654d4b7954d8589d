//! What the end-to-end CLI tests share: the `kiln` binary run in process, the APS example,
//! running a command that must succeed, and a workspace with its own daemon ([`Daemon`],
//! for the tests of the daemon path: `build_daemon.rs`, `daemon_cli.rs`, `lsp.rs`, ...).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `kiln` with `KILN_NO_DAEMON=1` and no library or template directory (nor yosys) inherited
/// from the environment.
pub fn kiln() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kiln"));
    c.env("KILN_NO_DAEMON", "1")
        .env_remove("KILN_BLIF_LIB")
        .env_remove("KILN_RTL_LIB")
        .env_remove("KILN_YOSYS");
    c
}

/// Write at `path` the generated APS module of `functions` functions and `seed`
/// (`compiler::aps::workload::generate`: the bytes `kiln-bench gen aps --functions N --seed
/// S` writes); `path` back.
pub fn gen_aps(path: &Path, functions: usize, seed: u64) -> PathBuf {
    std::fs::write(path, compiler::aps::workload::generate(functions, seed)).unwrap();
    path.to_path_buf()
}

/// `examples/aps/flow_burst_add.mlir`.
pub fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/aps/flow_burst_add.mlir")
}

/// A file under `tests/data/aps/`.
pub fn aps_data(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/aps")
        .join(file)
}

/// Run `cmd`; it must exit 0 (its stderr is the failure message otherwise).
pub fn ok(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("kiln runs");
    assert!(
        out.status.success(),
        "{:?} failed: {}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Run `cmd`; it must exit 1 (an error of the input): its stderr.
pub fn fails(cmd: &mut Command) -> String {
    let out = cmd.output().expect("kiln runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{cmd:?}: {stderr}");
    stderr
}

/// A fresh directory holding one file, `name`, with `contents`; the directory and the file.
pub fn temp_file(name: &str, contents: impl AsRef<[u8]>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join(name);
    std::fs::write(&f, contents).unwrap();
    (dir, f)
}

/// A workspace with its own daemon runtime and cache directories (`ws/src` exists); the
/// daemon it may start is stopped when it drops (by `kiln shutdown`, then by pid: a failed
/// test must not leave a daemon behind).
pub struct Daemon {
    root: tempfile::TempDir,
}

impl Daemon {
    pub fn new() -> Daemon {
        let root = tempfile::tempdir().unwrap();
        for d in ["ws/src", "run", "cache"] {
            std::fs::create_dir_all(root.path().join(d)).unwrap();
        }
        Daemon { root }
    }

    /// The directory holding the workspace, runtime and cache directories.
    pub fn root(&self) -> &std::path::Path {
        self.root.path()
    }

    pub fn ws(&self) -> PathBuf {
        self.root.path().join("ws")
    }

    /// `kiln` in the workspace, through its daemon (this `kiln` itself, announcing its own
    /// build id).
    pub fn kiln(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_kiln"));
        c.env("KILN_WORKSPACE", self.ws())
            .env("XDG_RUNTIME_DIR", self.root.path().join("run"))
            .env("KILN_CACHE_DIR", self.root.path().join("cache"))
            .env_remove("KILN_NO_DAEMON")
            .env_remove("KILN_DAEMON_EXE")
            .env_remove("KILN_DAEMON_ANNOUNCE_BUILD_ID")
            .env_remove("KILN_BLIF_LIB")
            .env_remove("KILN_RTL_LIB")
            .env_remove("KILN_YOSYS")
            .current_dir(self.ws());
        c
    }

    /// `kiln` in the workspace, in process.
    pub fn kiln_no_daemon(&self) -> Command {
        let mut c = self.kiln();
        c.env("KILN_NO_DAEMON", "1");
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.kiln().args(args).output().expect("kiln runs")
    }

    /// `run` with some path arguments after the others.
    pub fn run_args(&self, args: &[&str], paths: &[&std::path::Path]) -> Output {
        self.kiln()
            .args(args)
            .args(paths)
            .output()
            .expect("kiln runs")
    }

    /// `kiln status --json`; none when no daemon answers.
    pub fn status(&self) -> Option<serde_json::Value> {
        let out = self.run(&["status", "--json"]);
        if !out.status.success() {
            return None;
        }
        Some(serde_json::from_slice(&out.stdout).unwrap())
    }

    pub fn daemon_pid(&self) -> Option<u32> {
        self.status()?["pid"].as_u64().map(|p| p as u32)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let pid = self.daemon_pid();
        let _ = self.run(&["shutdown"]);
        if let Some(pid) = pid.filter(|p| still_a_kiln_daemon(*p)) {
            kill(pid);
        }
    }
}

/// Whether process `pid` still runs `kiln daemon` (so a reused pid is never killed).
pub fn still_a_kiln_daemon(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|c| c.split(|b| *b == 0).any(|arg| arg == b"daemon"))
}

/// `kill -9 pid`.
pub fn kill(pid: u32) {
    let _ = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status();
}

/// Every file below `dir` with its bytes, by relative path (none: empty).
pub fn tree_bytes(dir: &std::path::Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.push((rel, std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}
