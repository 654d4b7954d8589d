//! `kiln build` through the workspace's daemon: started on first use, outputs byte-identical
//! to `--no-daemon` on APS, Handshake and BLIF inputs, a daemon of another build restarted, a
//! killed daemon replaced, the in-process fallback when no daemon can start, and located
//! diagnostics that leave previous outputs intact.
//!
//! Each test has its own workspace, runtime and cache directories, and stops its daemon (by
//! `kiln shutdown`, then by pid) when it ends, even on failure.

mod cli;

use cli::kill;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data")
        .join(rel)
}

/// The shared workspace and daemon, and the daemons this test started itself.
struct Env {
    daemon: cli::Daemon,
    /// Daemons this test started itself (`kiln daemon` in the foreground).
    children: Vec<Child>,
}

impl Env {
    fn new() -> Env {
        Env {
            daemon: cli::Daemon::new(),
            children: Vec::new(),
        }
    }
}

impl std::ops::Deref for Env {
    type Target = cli::Daemon;

    fn deref(&self) -> &cli::Daemon {
        &self.daemon
    }
}

impl Drop for Env {
    /// The test's own daemons are killed; the workspace's daemon then stops as its
    /// [`cli::Daemon`] drops.
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The stderr of a successful command, without the status lines a build ends with
/// (`Built ...`, and `Started kiln daemon ...` when it started one).
fn ok(out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let status = |l: &str| {
        let l = l.trim_start();
        l.starts_with("Built ") || l.starts_with("Started kiln daemon ")
    };
    err.lines()
        .filter(|l| !status(l))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn files(dir: &Path, names: &[&str]) -> Vec<Vec<u8>> {
    names
        .iter()
        .map(|n| fs::read(dir.join(n)).unwrap_or_else(|e| panic!("{n}: {e}")))
        .collect()
}

const APS_OUT: &[&str] = &["flow_burst_add.cmt2.mlir", "flow_burst_add.rules.json"];
const HS_OUT: &[&str] = &[
    "export_gcd.synth.mlir",
    "export_gcd.aig",
    "export_gcd.blif",
    "export_gcd.hier.blif",
];

#[test]
fn daemon_and_in_process_builds_are_byte_identical() {
    let env = Env::new();
    assert_eq!(env.daemon_pid(), None);
    let aps = data("aps/flow_burst_add.mlir");
    let aps = aps.to_str().unwrap();
    cli::gen_aps(&env.ws().join("gen.mlir"), 12, 3);
    let hs = data("handshake/export_gcd.mlir");
    let lib = data("handshake/library");
    let blif = data("daemon/blif_lib/mux/2/2/1/mux.blif");
    let blif = blif.to_str().unwrap();
    let hs_args = |out: &str, extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["build", hs.to_str().unwrap(), "--blif-lib"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.push(lib.to_str().unwrap().into());
        v.extend(["--out-dir", out].map(String::from));
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    for (out, extra) in [("d", &[][..]), ("n", &["--no-daemon"][..])] {
        let mut aps_args = vec!["build", aps, "--out-dir", out, "--emit", "sv"];
        aps_args.extend(extra);
        let err = ok(&env.run(&aps_args));
        assert!(err.is_empty(), "nothing on stderr: {err}");
        let mut gen_args = vec!["build", "gen.mlir", "--out-dir", out];
        gen_args.extend(extra);
        ok(&env.run(&gen_args));
        let a = hs_args(out, extra);
        ok(&env
            .kiln()
            .args(&a)
            .args(["--synth-dialect", "dynamatic"])
            .output()
            .unwrap());
        let mut blif_args = vec!["build", blif, "--out-dir", out];
        blif_args.extend(extra);
        ok(&env.run(&blif_args));
        if out == "d" {
            assert!(env.daemon_pid().is_some(), "kiln build started a daemon");
        }
    }
    let (d, n) = (env.ws().join("d"), env.ws().join("n"));
    let mut aps_names = APS_OUT.to_vec();
    aps_names.push("flow_burst_add.sv");
    assert_eq!(files(&d, &aps_names), files(&n, &aps_names));
    let gen_names = ["gen.cmt2.mlir", "gen.rules.json"];
    assert_eq!(files(&d, &gen_names), files(&n, &gen_names));
    assert_eq!(files(&d, HS_OUT), files(&n, HS_OUT));
    assert_eq!(files(&d, &["mux.aig"]), files(&n, &["mux.aig"]));
    // `kiln synth` (its own in-process path) writes the same Handshake outputs.
    let s = env.ws().join("s");
    ok(&env
        .kiln()
        .arg("synth")
        .arg(&hs)
        .arg("--blif-lib")
        .arg(&lib)
        .args(["--synth-dialect", "dynamatic", "--out-dir"])
        .arg(&s)
        .output()
        .unwrap());
    assert_eq!(files(&d, HS_OUT), files(&s, HS_OUT));
    assert!(String::from_utf8_lossy(&files(&d, HS_OUT)[0]).contains("synth.latch"));
}

#[test]
fn errors_are_located_and_keep_previous_outputs() {
    let env = Env::new();
    let src = env.ws().join("flow_burst_add.mlir");
    fs::copy(data("aps/flow_burst_add.mlir"), &src).unwrap();
    ok(&env.run(&["build", "flow_burst_add.mlir", "--out-dir", "out"]));
    let before = files(&env.ws().join("out"), APS_OUT);
    let text = fs::read_to_string(&src).unwrap();
    let line = text.lines().position(|l| l.contains("tor.addi")).unwrap() + 1;
    fs::write(&src, text.replacen("tor.addi", "tor.nosuchop", 1)).unwrap();
    for extra in [None, Some("--no-daemon")] {
        let mut args = vec!["build", "flow_burst_add.mlir", "--out-dir", "out"];
        args.extend(extra);
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        let loc = format!("flow_burst_add.mlir:{line}:");
        assert!(err.starts_with(&loc), "{err}");
        assert!(err.contains(": error: "), "{err}");
        assert!(err.contains("tor.nosuchop"), "source line shown: {err}");
        assert!(!err.contains("/ws/"), "the path as given: {err}");
    }
    assert_eq!(files(&env.ws().join("out"), APS_OUT), before);
}

/// Start `kiln daemon` in the foreground with extra environment; wait until it answers.
fn start_daemon(env: &mut Env, vars: &[(&str, &str)]) -> u32 {
    let child = env
        .kiln()
        .arg("daemon")
        .envs(vars.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    env.children.push(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while env.daemon_pid() != Some(pid) {
        assert!(Instant::now() < deadline, "daemon {pid} never answered");
        std::thread::sleep(Duration::from_millis(20));
    }
    pid
}

#[test]
fn a_daemon_of_another_build_is_restarted() {
    let mut env = Env::new();
    let stale = start_daemon(
        &mut env,
        &[("KILN_DAEMON_ANNOUNCE_BUILD_ID", "stale-build")],
    );
    assert_eq!(env.status().unwrap()["build_id"], "stale-build");
    let aps = data("aps/flow_burst_add.mlir");
    let err = ok(&env.run(&["build", aps.to_str().unwrap(), "--out-dir", "out"]));
    assert!(err.is_empty(), "{err}");
    let status = env.status().expect("a daemon runs");
    assert_ne!(status["pid"].as_u64(), Some(stale as u64));
    assert_ne!(status["build_id"], "stale-build");
    // The stale daemon was asked to stop and did.
    let child = &mut env.children[0];
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "stale daemon still running");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        files(&env.ws().join("out"), APS_OUT).len(),
        APS_OUT.len(),
        "outputs written"
    );
}

#[test]
fn a_killed_daemon_is_replaced() {
    let env = Env::new();
    let aps = data("aps/flow_burst_add.mlir");
    let aps = aps.to_str().unwrap();
    ok(&env.run(&["build", aps, "--out-dir", "a"]));
    let first = env.daemon_pid().unwrap();
    kill(first);
    let err = ok(&env.run(&["build", aps, "--out-dir", "b"]));
    assert!(err.is_empty(), "{err}");
    let second = env.daemon_pid().unwrap();
    assert_ne!(first, second);
    assert_eq!(
        files(&env.ws().join("a"), APS_OUT),
        files(&env.ws().join("b"), APS_OUT)
    );
}

#[test]
fn no_daemon_and_fallback_build_in_process() {
    let env = Env::new();
    let aps = data("aps/flow_burst_add.mlir");
    let aps = aps.to_str().unwrap();
    let err = ok(&env.run(&["build", aps, "--out-dir", "n", "--no-daemon"]));
    assert!(err.is_empty(), "{err}");
    assert_eq!(env.daemon_pid(), None, "--no-daemon starts no daemon");
    let out = env
        .kiln()
        .args(["build", aps, "--out-dir", "f"])
        .env("KILN_DAEMON_EXE", "/nonexistent/kiln")
        .output()
        .unwrap();
    let err = ok(&out);
    assert_eq!(err.matches("building in process").count(), 1, "{err}");
    assert!(err.contains("/nonexistent/kiln"), "{err}");
    assert_eq!(env.daemon_pid(), None);
    assert_eq!(
        files(&env.ws().join("n"), APS_OUT),
        files(&env.ws().join("f"), APS_OUT)
    );
}

/// The daemon's writer prepares the spares of large outputs: after the cold build a spare
/// holding the output appears beside it, and the next edit rewrites that
/// very file in place (the output is then its inode) with the bytes an in-process build
/// of the edited source writes.
#[test]
fn the_first_edit_after_a_cold_build_rewrites_a_prepared_spare() {
    use std::os::unix::fs::MetadataExt;
    let env = Env::new();
    let src = cli::gen_aps(&env.ws().join("gen.mlir"), 40, 5);
    ok(&env.run(&["build", "gen.mlir", "--out-dir", "d"]));
    let out = env.ws().join("d/gen.cmt2.mlir");
    let spare = env.ws().join("d/.kiln-spare/gen.cmt2.mlir.spare");
    let cold = fs::read(&out).unwrap();
    assert!(
        cold.len() >= 1 << 20,
        "a large output: {} bytes",
        cold.len()
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while fs::read(&spare).ok().as_ref() != Some(&cold) {
        assert!(Instant::now() < deadline, "no spare was prepared");
        std::thread::sleep(Duration::from_millis(20));
    }
    let spare_ino = fs::metadata(&spare).unwrap().ino();
    let text = fs::read_to_string(&src).unwrap();
    let f = text.find("tor.func @f20(").unwrap();
    let k = f + text[f..].find("tor.addi").unwrap();
    fs::write(&src, format!("{}tor.subi  {}", &text[..k], &text[k + 8..])).unwrap();
    ok(&env.run(&["build", "gen.mlir", "--out-dir", "d"]));
    assert_eq!(
        fs::metadata(&out).unwrap().ino(),
        spare_ino,
        "rewritten in place"
    );
    assert_eq!(
        fs::read(&spare).unwrap(),
        cold,
        "the cold version is the spare now"
    );
    ok(&env.run(&["build", "gen.mlir", "--out-dir", "n", "--no-daemon"]));
    let names = ["gen.cmt2.mlir", "gen.rules.json"];
    assert_eq!(
        files(&env.ws().join("d"), &names),
        files(&env.ws().join("n"), &names)
    );
    assert!(
        !env.ws().join("n/.kiln-spare").exists(),
        "none for one-shot builds"
    );
}

/// Asking only for outputs an input's flow does not make is an error, not a silent no-op:
/// a build-system action `--kind synth` on an APS design fails with exit code 1.
#[test]
fn asking_only_for_outputs_an_input_does_not_make_is_an_error() {
    let env = Env::new();
    let aps = data("aps/flow_burst_add.mlir");
    let err = cli::fails(
        env.kiln()
            .args(["worker", "--no-daemon", "--out-dir", "w", "--kind", "synth"])
            .arg(&aps),
    );
    assert!(
        err.contains("flow_burst_add.mlir: error: none of the requested outputs"),
        "{err}"
    );
    assert!(!env.ws().join("w").exists(), "nothing written");
}
