//! One APS function's bounds and checks, end to end. A function of 10,000 slots builds
//! (CMT2, rules JSON, SystemVerilog), simulates on every engine and draws within a 2 GiB
//! address space (memory grew with the square of the slots before: 10,000 slots aborted at
//! 8 GB); a function over the slot limit is a located error naming the limit's flag and
//! `kiln.toml` key, in every command; through the daemon such an input fails alone: the
//! daemon stays up and builds the next input. Peak RSS and output size per slot are
//! measured by `kiln-bench aps --slots` (docs/bench.md), not here. A function without
//! `aps.writerf` gets the same warning through the daemon and in process.

mod cli;

use cli::{Daemon, fails, kiln, ok, temp_file};
use std::os::unix::process::CommandExt;
use std::process::Command;

/// `cmd` with its address space limited to 2 GiB (as `prlimit --as=2G`).
fn in_2g(cmd: &mut Command) -> &mut Command {
    // SAFETY: runs in the forked child before exec; setrlimit takes a pointer to a valid
    // rlimit and touches nothing else.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 2 << 30,
                rlim_max: 2 << 30,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &lim) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        })
    }
}

/// The response line(s) of a `kiln sim` run.
fn responses(out: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("response:"))
        // The timed engines add the response's cycle; the values are compared.
        .map(|l| l.split(" (cycle ").next().unwrap_or(l).to_string())
        .collect()
}

#[test]
fn a_function_of_10000_slots_builds_simulates_and_draws_in_2_gib() {
    let text = compiler::aps::workload::slot_chain(10_000);
    let (dir, f) = temp_file("chain.mlir", &text);
    let out = dir.path().join("out");
    let mut build = kiln();
    build.arg("build").arg(&f).arg("--out-dir").arg(&out);
    build.args(["--emit", "sv"]);
    ok(in_2g(&mut build));
    // Linear in the slots: a few KB a slot each (the rules JSON was 30 KB a slot at 3,000;
    // now about 0.9 KB, the CMT2 1.1 KB and the SystemVerilog 4 KB).
    for (name, per_slot) in [
        ("chain.cmt2.mlir", 2_000),
        ("chain.rules.json", 2_000),
        ("chain.sv", 6_000),
    ] {
        let len = std::fs::metadata(out.join(name)).unwrap().len();
        assert!(len < 10_000 * per_slot, "{name}: {len} bytes");
    }
    let sim = |engine: &str, file: &std::path::Path| {
        let mut c = kiln();
        c.arg("sim").arg(file);
        c.args(["--func", "chain", "--engine", engine, "--rs1", "5"]);
        ok(in_2g(&mut c))
    };
    let want = responses(&sim("tor", &f));
    assert_eq!(want.len(), 1, "{want:?}");
    assert_eq!(responses(&sim("rules", &f)), want);
    assert_eq!(responses(&sim("cmt2", &out.join("chain.cmt2.mlir"))), want);
    let dot = dir.path().join("chain.dot");
    let mut graph = kiln();
    graph
        .arg("graph")
        .arg(&f)
        .args(["--func", "chain", "-o"])
        .arg(&dot);
    ok(in_2g(&mut graph));
    assert!(std::fs::metadata(&dot).unwrap().len() < 10_000 * 200);
}

#[test]
fn a_function_over_the_slot_limit_is_a_located_error_in_every_command() {
    // Slot t of the chain is on line 5 + t: slot 1,000 is the 1,001st.
    let (dir, f) = temp_file("chain.mlir", compiler::aps::workload::slot_chain(1_001));
    let out = dir.path().join("out");
    let commands: [&[&str]; 4] = [
        &["build", "--out-dir", out.to_str().unwrap()],
        &["sim", "--func", "chain"],
        &["sim", "--func", "chain", "--engine", "rtl"],
        &["graph", "--func", "chain", "-o", "-"],
    ];
    for args in commands {
        let err = fails(kiln().args(args).arg(&f).args(["--max-slots", "1000"]));
        let head = err.lines().next().unwrap_or_default();
        assert!(
            head.contains("chain.mlir:1005:7: error: "),
            "{args:?}: {err}"
        );
        assert!(
            head.contains("--max-slots") && head.contains("`max_slots`"),
            "{err}"
        );
        assert!(head.ends_with("[E0004]"), "{err}");
    }
    assert!(!out.exists(), "nothing is written");
    // At the limit: builds.
    ok(kiln()
        .args(["build", "--max-slots", "1001", "--out-dir"])
        .arg(&out)
        .arg(&f));
}

#[test]
fn an_input_over_the_slot_limit_fails_alone_and_the_daemon_stays_up() {
    let env = Daemon::new();
    let ws = env.ws();
    std::fs::write(ws.join("kiln.toml"), "[limits]\nmax_slots = 1000\n").unwrap();
    std::fs::write(
        ws.join("src/big.mlir"),
        compiler::aps::workload::slot_chain(1_001),
    )
    .unwrap();
    std::fs::write(
        ws.join("src/small.mlir"),
        compiler::aps::workload::slot_chain(20),
    )
    .unwrap();
    // A clean build first: the daemon is up.
    let first = env.run(&["build", "src/small.mlir", "--out-dir", "o1"]);
    assert!(first.status.success(), "{first:?}");
    let pid = env.daemon_pid().expect("a daemon serves the workspace");

    // The big input fails with the located limit error; the small one beside it builds.
    let both = env.run(&["build", "src/big.mlir", "src/small.mlir", "--out-dir", "o2"]);
    let err = String::from_utf8_lossy(&both.stderr);
    assert_eq!(both.status.code(), Some(1), "{err}");
    assert!(err.contains("big.mlir:1005:7: error: "), "{err}");
    assert!(err.contains("--max-slots"), "{err}");
    assert!(ws.join("o2/small.cmt2.mlir").exists(), "{err}");
    assert!(!ws.join("o2/big.cmt2.mlir").exists(), "{err}");

    // The same daemon builds the next input.
    let next = env.run(&["build", "src/small.mlir", "--out-dir", "o3"]);
    assert!(next.status.success(), "{next:?}");
    assert!(ws.join("o3/small.rules.json").exists());
    assert_eq!(env.daemon_pid(), Some(pid), "the daemon was not restarted");
}

#[test]
fn an_instruction_without_a_response_warns_alike_in_process_and_through_the_daemon() {
    let env = Daemon::new();
    let text = compiler::aps::workload::slot_chain(3).replace(
        "      aps.writerf %arg2, %v1 {starttime = 2 : i32, endtime = 3 : i32} : i5, i32\n",
        "",
    );
    assert!(!text.contains("writerf"));
    std::fs::write(env.ws().join("src/quiet.mlir"), &text).unwrap();
    let mut outputs = Vec::new();
    for daemon in [false, true] {
        let mut cmd = if daemon {
            env.kiln()
        } else {
            env.kiln_no_daemon()
        };
        let out = ok(cmd.args(["build", "src/quiet.mlir", "--out-dir", "o"]));
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        // (The first daemon build says first that it started the daemon.)
        let warning = (err.lines())
            .find(|l| l.contains(": warning: "))
            .unwrap_or_default()
            .to_string();
        assert!(
            warning.starts_with("src/quiet.mlir:4:5: warning: function `@chain` sends no response")
                && warning.ends_with("[W0204]"),
            "{err}"
        );
        outputs.push(warning);
    }
    assert_eq!(outputs[0], outputs[1]);
}

/// A request's own slot limit reaches the daemon's segmentation: a daemon started without
/// one refuses a function over `--max-slots` given to a later build (it checked the slot
/// limit against the process's limits, so a running daemon let it through).
#[test]
fn a_requests_slot_limit_reaches_a_running_daemon() {
    let env = Daemon::new();
    let ws = env.ws();
    std::fs::write(
        ws.join("small.mlir"),
        compiler::aps::workload::slot_chain(20),
    )
    .unwrap();
    std::fs::write(
        ws.join("big.mlir"),
        compiler::aps::workload::slot_chain(1_001),
    )
    .unwrap();
    let first = env.run(&["build", "small.mlir", "--out-dir", "o1"]);
    assert!(first.status.success(), "{first:?}");
    assert!(env.daemon_pid().is_some(), "a daemon serves the workspace");
    let over = env.run(&[
        "build",
        "big.mlir",
        "--max-slots",
        "1000",
        "--out-dir",
        "o2",
    ]);
    let err = String::from_utf8_lossy(&over.stderr);
    assert_eq!(over.status.code(), Some(1), "{err}");
    assert!(
        err.contains("big.mlir:1005:7: error: ") && err.contains("[E0004]"),
        "{err}"
    );
    let under = env.run(&[
        "build",
        "big.mlir",
        "--max-slots",
        "1001",
        "--out-dir",
        "o3",
    ]);
    assert!(under.status.success(), "{under:?}");
}
