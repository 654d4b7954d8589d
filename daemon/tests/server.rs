//! The daemon as a process: builds over gRPC equal in-process builds; restart from the
//! persistent cache recomputes nothing; a truncated cache entry is recomputed; `kill -9`
//! is survived by the next build, and the leftovers of dead writers are swept; concurrent
//! clients; idle shutdown; stale daemon files.
//!
//! Every test has its own workspace, runtime directory and cache directory, and stops its
//! daemon (by pid) when it ends.

mod common;

use common::{Env, in_process, tree};
use kiln_daemon::client::build_via_daemon;
use kiln_daemon::report::BuildReport;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn counts(reply: &BuildReport) -> BTreeMap<String, (u64, u64)> {
    reply
        .counts
        .iter()
        .map(|(kind, c)| (kind.to_string(), (c.executions, c.cache_hits)))
        .collect()
}

fn outputs(reply: &BuildReport) -> Vec<(PathBuf, Option<[u8; 32]>)> {
    let mut v: Vec<_> = reply
        .files
        .iter()
        .map(|f| (f.path.clone(), f.sha256))
        .collect();
    v.sort();
    v
}

fn sample_inputs(env: &Env) -> Vec<PathBuf> {
    let mlir = env.ws().join("src/flow_burst_add.mlir");
    fs::copy(common::data("aps/flow_burst_add.mlir"), &mlir).unwrap();
    let lib = env.ws().join("lib");
    common::copy_tree(&common::data("daemon/blif_lib"), &lib);
    vec![mlir, lib]
}

fn assert_same_bytes(a: &BuildReport, a_out: &Path, b: &BuildReport, b_out: &Path) {
    let rel = |r: &BuildReport, base: &Path| -> Vec<(PathBuf, Option<[u8; 32]>)> {
        let mut v: Vec<_> = r
            .files
            .iter()
            .map(|f| {
                let p = f.path.strip_prefix(base).unwrap().to_path_buf();
                (p, f.sha256)
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(rel(a, a_out), rel(b, b_out));
    for f in &a.files {
        let other = b_out.join(f.path.strip_prefix(a_out).unwrap());
        assert_eq!(fs::read(&f.path).unwrap(), fs::read(other).unwrap());
    }
}

/// Every handler output of `flow_burst_add` round-trips through the cache codec, so that a
/// restarted daemon serves all of them from disk.
#[test]
fn handler_outputs_round_trip_through_the_codec() {
    let text = fs::read_to_string(common::data("aps/flow_burst_add.mlir")).unwrap();
    let m = compiler::mlir::parse(&text).unwrap();
    let ctx = compiler::aps::design_context(&m).unwrap();
    let seg = compiler::aps::segment_function(&ctx, compiler::aps::functions(&m)[0]).unwrap();
    let bytes = kiln_cache::codec::encode(&[1; 32], &seg).unwrap();
    assert_eq!(
        kiln_cache::codec::decode::<compiler::aps::Segmentation>(&[1; 32], &bytes).unwrap(),
        seg
    );
    for b in 0..seg.blocks.len() {
        let rules = compiler::aps::handle_block(&ctx, &seg, b).unwrap();
        let bytes = kiln_cache::codec::encode(&[1; 32], &rules).unwrap();
        let back = kiln_cache::codec::decode(&[1; 32], &bytes).unwrap();
        assert_eq!(rules, back, "block {b}");
    }
}

#[test]
fn restart_serves_from_disk_and_outputs_match_in_process() {
    let env = Env::new(&[]);
    let inputs = sample_inputs(&env);
    let req = env.request(&inputs, "out");
    let first = env.build(&req);
    assert!(first.ok(), "{}", first.rendered());
    let c = counts(&first);
    assert_eq!(c["segmentation"].0, 1);
    assert_eq!(c["aig"].0, 6);

    let cold_out = env.ws().join("cold");
    let cold = in_process(&inputs, &cold_out);
    assert_same_bytes(&first, &env.ws().join("out"), &cold, &cold_out);

    // Warm no-op: nothing executes, nothing is rewritten.
    let again = env.build(&req);
    assert!(
        again
            .counts
            .values()
            .all(|c| c.executions == 0 && c.cache_hits == 0)
    );
    assert!(again.files.iter().all(|f| !f.written));
    assert_eq!(env.stats().builds, 2);

    let first_pid = env.pid().unwrap();
    env.shutdown();
    let restarted = env.build(&req);
    assert_ne!(env.pid().unwrap(), first_pid);
    let c = counts(&restarted);
    for kind in ["segmentation", "aig"] {
        assert_eq!(c[kind].0, 0, "{kind} executed after restart: {c:?}");
        assert!(c[kind].1 > 0, "{kind} not served from the cache: {c:?}");
    }
    assert_eq!(c["parse"].0, 0, "{c:?}");
    assert_eq!(
        c["handler"],
        (0, 5),
        "handler outputs not all served from disk: {c:?}"
    );
    assert_eq!(outputs(&restarted), outputs(&first));
    assert!(restarted.files.iter().all(|f| !f.written));
}

#[test]
fn truncated_cache_entry_is_detected_and_recomputed() {
    let env = Env::new(&[]);
    let inputs = sample_inputs(&env);
    let req = env.request(&inputs, "out");
    let first = env.build(&req);
    assert!(first.ok());
    env.shutdown();

    // Tear one entry: cut its pack in the middle of its last entry, as a crash would.
    let mut packs: Vec<PathBuf> = fs::read_dir(env.cache_dir().join("packs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pack"))
        .collect();
    packs.sort();
    let victim = &packs[packs.len() / 2];
    let file = fs::File::open(victim).unwrap();
    let size = file.metadata().unwrap().len();
    let last = *kiln_cache::pack::read(&file, size)
        .unwrap()
        .records
        .last()
        .unwrap();
    fs::OpenOptions::new()
        .write(true)
        .open(victim)
        .unwrap()
        .set_len(last.offset + last.len / 2)
        .unwrap();

    let second = env.build(&req);
    assert!(second.ok());
    let executed: u64 = second.counts.values().map(|c| c.executions).sum::<u64>();
    let cached_kinds_executed: u64 = second
        .counts
        .iter()
        .filter(|(kind, _)| ["segmentation", "handler", "aig"].contains(kind))
        .map(|(_, c)| c.executions)
        .sum();
    assert_eq!(cached_kinds_executed, 1, "{:?}", counts(&second));
    assert!(executed >= 1);
    assert_eq!(env.stats().cache.corrupt, 1);
    assert_eq!(outputs(&second), outputs(&first));
}

#[test]
fn kill_9_during_a_build_then_the_next_build_succeeds() {
    let env = Env::new(&[]);
    let big = env.ws().join("src/big.mlir");
    // The most instructions one design can hold (4 custom opcodes × 128 funct7).
    fs::write(&big, common::generated_module(512)).unwrap();
    let req = env.request(std::slice::from_ref(&big), "out");
    // Start the daemon, then kill it in the middle of a cold build.
    assert!(env.build(&env.request(&[], "none")).ok());
    let pid = env.pid().unwrap();
    let connector = env.connector.clone();
    let r2 = req.clone();
    let t = std::thread::spawn(move || build_via_daemon(&connector, &r2).is_ok());
    std::thread::sleep(Duration::from_millis(300));
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // The interrupted call retries once on a fresh daemon, or reports the failure.
    let _ = t.join().unwrap();
    let next = env.build(&req);
    assert!(next.ok(), "{}", next.rendered());
    assert_ne!(env.pid().unwrap(), pid);
    let cold_out = env.ws().join("cold");
    let cold = in_process(&[big], &cold_out);
    assert_same_bytes(&next, &env.ws().join("out"), &cold, &cold_out);
}

/// What a writer killed mid-write (or stopped by a full disk) leaves in an output
/// directory — a temp file, a claimed spare — is removed by the next daemon that writes
/// there, and by a one-shot build; what a live writer holds is not.
#[test]
fn leftovers_of_dead_writers_are_swept_by_the_next_writer() {
    let env = Env::new(&[]);
    let src = env.ws().join("src/flow_burst_add.mlir");
    fs::copy(common::data("aps/flow_burst_add.mlir"), &src).unwrap();
    let live = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let long_ago = std::time::SystemTime::now() - Duration::from_secs(600);
    let plant = |out: &Path| {
        fs::create_dir_all(out.join(".kiln-spare")).unwrap();
        // No process has pid 4194304 (above Linux's pid_max limit).
        let names = [
            ".flow_burst_add.cmt2.mlir.tmp.4194304.0",
            ".kiln-spare/flow_burst_add.cmt2.mlir.4194304.1.claim",
            &format!(".flow_burst_add.rules.json.tmp.{}.0", live.id()),
        ];
        names.map(|n| {
            let p = out.join(n);
            fs::write(&p, b"torn").unwrap();
            fs::File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
            p
        })
    };
    for (out, daemon) in [("out", true), ("oneshot", false)] {
        let dir = env.ws().join(out);
        let [temp, claim, held] = plant(&dir);
        let report = match daemon {
            true => env.build(&env.request(std::slice::from_ref(&src), out)),
            false => in_process(std::slice::from_ref(&src), &dir),
        };
        assert!(report.ok(), "{}", report.rendered());
        assert!(!temp.exists() && !claim.exists(), "{out}: leftovers stay");
        assert!(
            held.exists(),
            "{out}: a live writer's temp file was removed"
        );
    }
    let mut live = live;
    let _ = live.kill();
    let _ = live.wait();
}

#[test]
fn concurrent_clients_get_identical_outputs() {
    let env = Env::new(&[]);
    let inputs = sample_inputs(&env);
    let req = env.request(&inputs, "out");
    let reference = outputs(&env.build(&req));
    std::thread::scope(|s| {
        for _ in 0..16 {
            s.spawn(|| {
                for _ in 0..100 {
                    let r = env.build(&req);
                    assert!(r.ok());
                    assert_eq!(outputs(&r), reference);
                }
            });
        }
    });
    assert_eq!(env.stats().builds, 1 + 16 * 100);
}

#[test]
fn idle_daemon_exits_and_stale_files_are_cleaned() {
    let env = Env::new(&["--idle-timeout", "1"]);
    assert!(env.build(&env.request(&[], "none")).ok());
    let pid = env.pid().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while env.connector.daemon_alive() {
        assert!(
            Instant::now() < deadline,
            "daemon {pid} did not exit when idle"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Leave stale files behind, as a crashed daemon would: the next build replaces them.
    fs::write(env.connector.dir.socket(), b"").unwrap();
    fs::write(
        env.connector.dir.info_file(),
        r#"{"version":"0","build_id":"x","pid":1,"socket":"/nonexistent"}"#,
    )
    .unwrap();
    assert!(env.build(&env.request(&[], "none")).ok());
    assert_ne!(env.pid().unwrap(), 1);
}

/// A library directory built through the daemon, which re-reads only what its watcher
/// marked: in-place edits, editor-style atomic saves, new and deleted files, and outputs
/// changed behind its back all end in the outputs of a cold in-process build.
#[test]
fn watcher_marks_keep_directory_builds_exact() {
    let env = Env::new(&[]);
    let lib = env.ws().join("lib");
    common::copy_tree(&common::data("daemon/blif_lib"), &lib);
    let req = env.request(std::slice::from_ref(&lib), "out");
    let out = env.ws().join("out");
    let check = |what: &str| {
        let reply = env.build(&req);
        assert!(reply.ok(), "{what}: {}", reply.rendered());
        let cold = env.ws().join("cold");
        let _ = fs::remove_dir_all(&cold);
        assert!(in_process(std::slice::from_ref(&lib), &cold).ok());
        assert_eq!(tree(&out), tree(&cold), "{what}");
        reply
    };
    check("cold");
    let noop = check("no-op");
    assert!(
        noop.files.iter().all(|f| !f.written),
        "no-op writes nothing"
    );
    let scans = |r: &BuildReport| counts(r).get("dir_scan").map_or(0, |c| c.0);
    let marked = |r: &BuildReport| counts(r).get("dir_resync").map_or(0, |c| c.0);
    assert_eq!(
        (scans(&noop), marked(&noop)),
        (0, 0),
        "the no-op used the marks"
    );

    let victim = lib.join("addi/4/addi.blif");
    let text = fs::read_to_string(&victim).unwrap();
    let k = text.find("\n1").unwrap();
    let flipped = format!("{}\n0{}", &text[..k], &text[k + 2..]);
    fs::write(&victim, &flipped).unwrap();
    let r = check("in-place edit");
    assert_eq!(r.files.iter().filter(|f| f.written).count(), 1);
    assert_eq!(
        (scans(&r), marked(&r)),
        (0, 1),
        "an edit re-reads only the marked file"
    );

    let tmp = lib.join("addi/4/.addi.blif.swp");
    fs::write(&tmp, &text).unwrap();
    fs::rename(&tmp, &victim).unwrap();
    check("atomic save");

    fs::create_dir_all(lib.join("new/1")).unwrap();
    fs::write(lib.join("new/1/copy.blif"), &flipped).unwrap();
    check("new file in a new directory");
    fs::remove_file(lib.join("new/1/copy.blif")).unwrap();
    let _ = fs::remove_dir_all(out.join("new"));
    check("deleted file");

    // An output changed by someone else is rewritten by the next build.
    let first = out.join("addi/4/addi.aig");
    fs::write(&first, b"clobbered").unwrap();
    let r = check("clobbered output");
    assert!(r.files.iter().any(|f| f.written));
}
