//! `kiln build --emit sv` and `kiln sim --engine rtl` end to end.

mod cli;
#[path = "../../compiler/tests/common/mod.rs"]
mod common;
#[path = "../../tests/support/hostile.rs"]
mod support;

use cli::{aps_data, example, kiln, ok};

#[test]
fn emit_sv_writes_identical_stem_sv() {
    let dir = tempfile::tempdir().unwrap();
    let mut texts = Vec::new();
    for sub in ["a", "b"] {
        ok(kiln()
            .arg("build")
            .arg(example())
            .arg("--out-dir")
            .arg(dir.path().join(sub))
            .args(["--emit", "sv"]));
        texts
            .push(std::fs::read_to_string(dir.path().join(sub).join("flow_burst_add.sv")).unwrap());
    }
    assert_eq!(texts[0], texts[1]);
    assert!(texts[0].contains("module main ("));
    assert!(texts[0].contains("// Static schedule"));
}

/// `--top NAME` names the SystemVerilog top, in process and through the daemon alike; a
/// name that is no SystemVerilog module name is an error that writes nothing.
#[test]
fn top_names_the_sv_module() {
    let d = cli::Daemon::new();
    let mut texts = Vec::new();
    for (sub, daemon) in [("a", false), ("b", true)] {
        let mut c = if daemon { d.kiln() } else { d.kiln_no_daemon() };
        ok(c.arg("build")
            .arg(example())
            .arg("--out-dir")
            .arg(d.root().join(sub))
            .args(["--emit", "sv", "--top", "isax_top"]));
        texts.push(std::fs::read_to_string(d.root().join(sub).join("flow_burst_add.sv")).unwrap());
    }
    assert_eq!(texts[0], texts[1]);
    assert!(texts[0].contains("module isax_top ("));
    assert!(!texts[0].contains("module main ("));
    for (sub, daemon) in [("c", false), ("e", true)] {
        let mut c = if daemon { d.kiln() } else { d.kiln_no_daemon() };
        let out = c
            .arg("build")
            .arg(example())
            .arg("--out-dir")
            .arg(d.root().join(sub))
            .args(["--emit", "sv", "--top", "module"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("`module` is not a SystemVerilog module name"),
            "{err}"
        );
        assert!(!d.root().join(sub).join("flow_burst_add.sv").exists());
    }
}

#[test]
fn sim_engine_rtl_agrees_with_rules() {
    if !common::have_tool("iverilog") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("mem.json");
    std::fs::write(
        &mem,
        r#"[{"addr":4096,"i32":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]},
            {"addr":8192,"i32":[10,20,30,40,50,60,70,80,90,100,110,120,130,140,150,160]}]"#,
    )
    .unwrap();
    let run = |engine: &str| {
        let out = ok(kiln()
            .arg("sim")
            .arg(example())
            .args(["--func", "flow_burst_add", "--engine", engine])
            .args(["--rs1", "0x1000", "--rs2", "0x2000", "--json", "--cpu-mem"])
            .arg(&mem));
        String::from_utf8(out.stdout).unwrap()
    };
    let rtl = run("rtl");
    assert_eq!(rtl, run("rules"));
    assert_eq!(rtl, run("cmt2"));
    assert!(rtl.contains("\"value\":42"), "{rtl}");
    assert!(rtl.contains("11,22,33"), "{rtl}");
    assert!(rtl.contains("\"cycles\":46"), "{rtl}");
    // Level 0: the Verilated top driven by kiln's harness through the SoC ports.
    if common::have_tool("verilator") {
        assert_eq!(rtl, run("verilator"));
    }
}

/// Two CPU loads in one slot (one request per cycle at the HellaCache port, responses
/// matched by tag), unaligned addresses: every timed engine (Verilator's when installed)
/// prints the same JSON, the interpreter the same responses and memory.
#[test]
fn engines_agree_on_two_loads_in_one_slot() {
    if !common::have_tool("iverilog") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("mem.json");
    std::fs::write(&mem, r#"[{"addr":256,"i32":[1000,234]}]"#).unwrap();
    let run = |engine: &str| {
        let out = ok(kiln()
            .arg("sim")
            .arg(aps_data("loads2.mlir"))
            .args(["--func", "load2", "--engine", engine, "--json"])
            .args(["--rs1", "0x102", "--rs2", "0x201", "--rd", "6", "--cpu-mem"])
            .arg(&mem));
        String::from_utf8(out.stdout).unwrap()
    };
    let rtl = run("rtl");
    assert_eq!(rtl, run("rules"));
    assert_eq!(rtl, run("cmt2"));
    if common::have_tool("verilator") {
        assert_eq!(rtl, run("verilator"));
    }
    assert!(rtl.contains(r#""value":766"#), "{rtl}");
    assert!(rtl.contains(r#"{"addr":512,"i32":[766]}"#), "{rtl}");
    let tor = run("tor");
    let strip = |s: &str| {
        let v: serde_json::Value = serde_json::from_str(s).unwrap();
        (v["responses"].clone(), v["cpu_mem"].clone())
    };
    assert_eq!(strip(&tor), strip(&rtl));
}

/// A shared temp dir (mode 1777) another user (made with `useradd`, when this runs as
/// root) prepared: for the next few thousand pids, `kiln-rtl-<pid>` (the name earlier
/// versions used) as a symbolic link to a directory of the victim's, or as a directory open
/// to all holding an `out.txt` link to the victim's file. The run succeeds in a fresh
/// private directory, writes nothing through the links and leaves nothing behind.
#[cfg(unix)]
#[test]
fn rtl_run_ignores_planted_temp_dirs() {
    use std::os::unix::fs::{PermissionsExt, lchown, symlink};
    if !common::have_tool("iverilog") {
        return;
    }
    let other = support::second_user();
    let tmp = tempfile::tempdir().unwrap();
    let victim = tempfile::tempdir().unwrap();
    let victims = victim.path().join("out.txt");
    std::fs::write(&victims, "victim's file\n").unwrap();
    let me = std::process::id();
    let planted: Vec<String> = (me..me + 3000).map(|p| format!("kiln-rtl-{p}")).collect();
    for (i, name) in planted.iter().enumerate() {
        let p = tmp.path().join(name);
        let mut made = vec![p.clone()];
        if i % 2 == 0 {
            symlink(victim.path(), &p).unwrap();
        } else {
            std::fs::create_dir(&p).unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o777)).unwrap();
            symlink(&victims, p.join("out.txt")).unwrap();
            made.push(p.join("out.txt"));
        }
        for m in made.iter().filter(|_| other.is_some()) {
            let (uid, gid) = other.unwrap();
            lchown(m, Some(uid), Some(gid)).unwrap();
        }
    }
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let out = ok(kiln()
        .env("TMPDIR", tmp.path())
        .arg("sim")
        .arg(example())
        .args(["--func", "flow_burst_add", "--engine", "rtl"])
        .args(["--rs1", "0x1000", "--rs2", "0x2000", "--json"]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"cycles\""));
    let victim_files: Vec<_> = std::fs::read_dir(victim.path()).unwrap().collect();
    assert_eq!(
        victim_files.len(),
        1,
        "nothing written through a planted link"
    );
    assert_eq!(
        std::fs::read_to_string(victim.path().join("out.txt")).unwrap(),
        "victim's file\n"
    );
    let left = std::fs::read_dir(tmp.path()).unwrap().count();
    assert_eq!(left, planted.len(), "the run's own directory is removed");
    for name in planted.iter().skip(1).step_by(2) {
        let inside: Vec<_> = std::fs::read_dir(tmp.path().join(name)).unwrap().collect();
        assert_eq!(
            inside.len(),
            1,
            "{name}: nothing added to a planted directory"
        );
    }
}

/// Names that are SystemVerilog keywords, two CPU stores in one cycle, and written zero
/// words: every engine prints the same JSON.
#[test]
fn engines_agree_on_keywords_and_two_stores() {
    if !common::have_tool("iverilog") {
        return;
    }
    for (file, func, rs1, rs2) in [
        ("keywords.mlir", "dist", "3", "0"),
        ("identities.mlir", "store2", "0xffffffff", "0x100"),
        ("identities.mlir", "sum", "3", "4"),
    ] {
        let run = |engine: &str| {
            let out = ok(kiln()
                .arg("sim")
                .arg(aps_data(file))
                .args(["--func", func, "--engine", engine, "--json"])
                .args(["--rs1", rs1, "--rs2", rs2, "--rd", "6"]));
            String::from_utf8(out.stdout).unwrap()
        };
        let rtl = run("rtl");
        assert_eq!(rtl, run("rules"), "{file} {func}");
        assert_eq!(rtl, run("cmt2"), "{file} {func}");
        let tor = run("tor");
        let strip = |s: &str| {
            let v: serde_json::Value = serde_json::from_str(s).unwrap();
            (v["responses"].clone(), v["cpu_mem"].clone())
        };
        assert_eq!(strip(&tor), strip(&rtl), "{file} {func}");
        if func == "store2" {
            // rs1 + 1 wraps to 0: a written zero word is listed like any other.
            assert!(rtl.contains(r#"{"addr":256,"i32":[0,1]}"#), "{rtl}");
        }
    }
}

/// Run-time errors (a loop step of 0 known only at run time, a CPU word stored and loaded in
/// one slot): every engine exits 1; the RTL reports what the rule engine reports, word for
/// word, and so does the engine that runs the CMT2 text.
#[test]
fn engines_agree_on_run_time_errors() {
    if !common::have_tool("iverilog") {
        return;
    }
    for (file, func, rs1, rs2, msg, code) in [
        (
            "step_runtime.mlir",
            "s",
            "0",
            "0",
            "loop step is 0 at run time",
            "E0208",
        ),
        (
            "cpu_hazard.mlir",
            "h",
            "0x100",
            "0x102",
            "CPU-memory hazard",
            "E0209",
        ),
    ] {
        let run = |engine: &str| {
            let out = kiln()
                .arg("sim")
                .arg(aps_data(file))
                .args(["--func", func, "--engine", engine, "--json"])
                .args(["--rs1", rs1, "--rs2", rs2])
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "{file} {engine}");
            assert!(out.stdout.is_empty(), "{file} {engine}");
            String::from_utf8(out.stderr).unwrap()
        };
        let rules = run("rules");
        assert!(rules.contains(msg), "{rules}");
        assert_eq!(run("rtl"), rules, "{file}");
        assert_eq!(run("cmt2"), rules, "{file}");
        let tor = run("tor");
        assert!(tor.contains(msg), "{tor}");
        // Coded like every diagnostic: `FILE...: error: ... [E02xx]`, in every engine.
        for (engine, err) in [("rules", &rules), ("tor", &tor)] {
            assert!(
                err.contains(": error: ") && err.contains(&format!("[{code}]")),
                "{file} {engine}: {err}"
            );
        }
    }
}

/// On a terminal (a pseudo-terminal from `script`), a build says it is working with a
/// spinner and clears it before its summary; through a pipe nothing of it appears.
#[test]
fn a_build_on_a_terminal_shows_a_spinner_and_a_pipe_does_not() {
    if !common::have_tool("script") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let design = cli::gen_aps(&dir.path().join("g16.mlir"), 16, 1);
    let command = format!(
        "{} build --no-daemon {} --emit sv -o {}",
        env!("CARGO_BIN_EXE_kiln"),
        design.display(),
        dir.path().join("tty").display()
    );
    let out = kiln_in_script(&command);
    assert!(
        out.contains("Building g16.mlir (0s)"),
        "no spinner on a terminal: {out:?}"
    );
    let summary = out.find(" 3 outputs (").expect("summary line");
    assert!(
        out.rfind("Building g16.mlir") < Some(summary),
        "the spinner after the summary: {out:?}"
    );
    let piped = kiln()
        .env("KILN_PROGRESS_DELAY_MS", "0")
        .arg("build")
        .arg(&design)
        .args(["--emit", "sv", "-o"])
        .arg(dir.path().join("pipe"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(
        piped.status.success() && !stderr.contains("Building"),
        "{stderr}"
    );
}

/// Run `command` under `script` (a pseudo-terminal), the spinner shown at once.
fn kiln_in_script(command: &str) -> String {
    let out = std::process::Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .env("KILN_PROGRESS_DELAY_MS", "0")
        .env("KILN_NO_DAEMON", "1")
        .env_remove("KILN_BLIF_LIB")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `--style fifo` (and `style` of kiln.toml) builds the seeds' dataflow architecture, in
/// process and through the daemon alike, the daemon keeping both styles' results apart;
/// `kiln sim --style fifo` runs it with the same results in every engine (56 cycles, the
/// state machine's 46).
#[test]
fn style_fifo_builds_and_every_engine_agrees() {
    let d = cli::Daemon::new();
    let build = |sub: &str, daemon: bool, style: Option<&str>| {
        let mut c = if daemon { d.kiln() } else { d.kiln_no_daemon() };
        std::fs::create_dir_all(d.ws()).unwrap();
        c.current_dir(d.ws())
            .arg("build")
            .arg(example())
            .arg("--out-dir")
            .arg(d.root().join(sub))
            .args(["--emit", "sv"]);
        if let Some(s) = style {
            c.args(["--style", s]);
        }
        let out = ok(&mut c);
        let out = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        let read = |ext: &str| {
            std::fs::read_to_string(d.root().join(sub).join(format!("flow_burst_add.{ext}")))
                .unwrap()
        };
        (read("cmt2.mlir") + &read("rules.json") + &read("sv"), out)
    };
    let (fsm, _) = build("fsm", true, None);
    let (fifo, _) = build("fifo", true, Some("fifo"));
    let (fsm_again, again) = build("fsm2", true, Some("fsm"));
    let (fifo_here, _) = build("fifo_here", false, Some("fifo"));
    assert_eq!(fsm, fsm_again);
    assert_eq!(fifo, fifo_here);
    assert!(!again.contains("compiled 1 function"), "{again}");
    assert!(fifo.contains("_fifo_s") && fifo.contains("input_distribution"));
    assert!(!fsm.contains("_fifo_s") && !fsm.contains("input_distribution"));
    std::fs::write(d.ws().join("kiln.toml"), "style = \"fifo\"\n").unwrap();
    let (toml, _) = build("toml", false, None);
    assert_eq!(toml, fifo);
    let mut engines = vec!["tor", "rules", "cmt2"];
    if common::have_tool("iverilog") {
        engines.push("rtl");
    }
    for engine in engines {
        let file = match engine {
            "cmt2" => d.root().join("fifo").join("flow_burst_add.cmt2.mlir"),
            _ => example(),
        };
        let out = ok(d
            .kiln_no_daemon()
            .args([
                "sim",
                "--func",
                "flow_burst_add",
                "--rs1",
                "0x1000",
                "--rs2",
                "0x2000",
            ])
            .args(["--style", "fifo", "--json", "--engine", engine])
            .arg(file));
        let out = String::from_utf8_lossy(&out.stdout);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["responses"][0]["value"], 42, "{engine}: {out}");
        if engine != "tor" {
            assert_eq!(v["cycles"], 56, "{engine}: {out}");
        }
    }
}
