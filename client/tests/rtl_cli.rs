//! Units synthesized from Verilog templates (`--rtl-lib`): `kiln synth-report` says which
//! op's unit came from a template, `kiln synth` and `kiln build` (one-shot and daemon) build
//! with it, a template yosys rejects is a warning (`W0411`) and a built-in takes over, no
//! yosys is an error (`E0412`), a template directory that is none is `E0413`. Inputs:
//! `tests/data/rtl` (a stand-in `join_type` template, see its PROVENANCE.md).

mod cli;

use cli::{Daemon, fails, kiln, ok};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../compiler/tests/common/mod.rs"]
mod common;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data")
        .join(rel)
}

fn report(rtl: &str) -> std::process::Output {
    kiln()
        .arg("synth-report")
        .arg(data("rtl/join3.mlir"))
        .arg("--blif-lib")
        .arg(data("handshake/library"))
        .arg("--rtl-lib")
        .arg(data(rtl))
        .output()
        .unwrap()
}

#[test]
fn synth_report_names_the_template_unit() {
    if !common::have_tool("yosys") {
        return;
    }
    let out = report("rtl/verilog");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("join0                    join             template  handshake/join.v (SIZE=3), synthesized by yosys"),
        "{stdout}"
    );
    assert!(
        stdout.contains("library   tehb_dataless/tehb_dataless.blif"),
        "{stdout}"
    );
    assert!(stdout.ends_with("total 2: 1 library, 1 template, 0 built-in, 0 subckt fallback\n"));
    // Without --rtl-lib the join is the built-in's.
    let out = ok(kiln()
        .arg("synth-report")
        .arg(data("rtl/join3.mlir"))
        .arg("--blif-lib")
        .arg(data("handshake/library")));
    assert!(String::from_utf8_lossy(&out.stdout).contains("built-in  kiln_join_n3"));
}

#[test]
fn a_template_yosys_rejects_is_a_warning_and_the_built_in_takes_over() {
    if !common::have_tool("yosys") {
        return;
    }
    let out = report("rtl/broken");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("[W0411]"), "{stderr}");
    assert!(stderr.contains("yosys failed"), "{stderr}");
    assert!(stdout.contains("built-in  kiln_join_n3"), "{stdout}");
}

#[test]
fn no_yosys_is_an_error_not_a_fallback() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in ["synth-report", "synth", "build"] {
        let mut c = kiln();
        c.arg(cmd)
            .arg(data("rtl/join3.mlir"))
            .arg("--blif-lib")
            .arg(data("handshake/library"))
            .arg("--rtl-lib")
            .arg(data("rtl/verilog"))
            .env("KILN_YOSYS", dir.path().join("no-yosys"));
        if cmd != "synth-report" {
            c.arg("--out-dir").arg(dir.path());
        }
        let stderr = fails(&mut c);
        assert!(
            stderr.contains("yosys was not found (PATH, $KILN_YOSYS): 1 op need")
                && stderr.contains("[E0412]"),
            "{cmd}: {stderr}"
        );
    }
    assert!(!dir.path().join("join3.aig").exists());
}

#[test]
fn a_template_directory_that_is_none_is_e0413() {
    let stderr = fails(
        kiln()
            .arg("synth-report")
            .arg(data("rtl/join3.mlir"))
            .arg("--blif-lib")
            .arg(data("handshake/library"))
            .arg("--rtl-lib")
            .arg(data("rtl/nowhere")),
    );
    assert!(
        stderr.contains("the RTL template directory does not exist (from --rtl-lib) [E0413]"),
        "{stderr}"
    );
    // `$KILN_RTL_LIB` names it too.
    let stderr = fails(
        kiln()
            .arg("synth-report")
            .arg(data("rtl/join3.mlir"))
            .arg("--blif-lib")
            .arg(data("handshake/library"))
            .env("KILN_RTL_LIB", data("rtl/join3.mlir")),
    );
    assert!(
        stderr.contains("is not a directory (from $KILN_RTL_LIB) [E0413]"),
        "{stderr}"
    );
}

#[test]
fn rtl_lib_in_kiln_toml_is_relative_to_it() {
    if !common::have_tool("yosys") {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let toml = format!(
        "blif_lib = '{}'\nrtl_lib = 'verilog'\n",
        data("handshake/library").display()
    );
    std::fs::write(ws.path().join("kiln.toml"), toml).unwrap();
    copy_dir(&data("rtl/verilog"), &ws.path().join("verilog"));
    let out = ok(kiln()
        .current_dir(ws.path())
        .arg("synth-report")
        .arg(data("rtl/join3.mlir")));
    assert!(String::from_utf8_lossy(&out.stdout).contains("template  handshake/join.v (SIZE=3)"));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// `kiln synth`, one-shot `kiln build` and a daemon's build write the same bytes, with the
/// template's model in the hierarchical BLIF; ABC proves that BLIF equal to the AIG; the
/// daemon synthesizes the template once, a rebuild not at all.
#[test]
fn every_build_path_writes_the_same_bytes_with_the_template() {
    if !common::have_tool("yosys") {
        return;
    }
    let d = Daemon::new();
    let (a, b, c) = (d.root().join("a"), d.root().join("b"), d.root().join("c"));
    let lib = |cmd: &mut Command| {
        cmd.arg(data("rtl/join3.mlir"))
            .arg("--blif-lib")
            .arg(data("handshake/library"))
            .arg("--rtl-lib")
            .arg(data("rtl/verilog"));
    };
    let mut synth = kiln();
    synth.arg("synth").arg("--out-dir").arg(&a);
    lib(&mut synth);
    ok(&mut synth);
    let mut oneshot = kiln();
    oneshot
        .arg("build")
        .arg("--no-daemon")
        .arg("--out-dir")
        .arg(&b);
    lib(&mut oneshot);
    ok(&mut oneshot);
    for _ in 0..2 {
        let mut daemon = d.kiln();
        daemon.arg("build").arg("--out-dir").arg(&c);
        lib(&mut daemon);
        ok(&mut daemon);
    }
    for ext in ["synth.mlir", "aig", "blif", "hier.blif"] {
        let read = |dir: &Path| std::fs::read(dir.join(format!("join3.{ext}"))).unwrap();
        assert!(
            read(&a) == read(&b) && read(&b) == read(&c),
            "join3.{ext} differs"
        );
    }
    let hier = std::fs::read_to_string(a.join("join3.hier.blif")).unwrap();
    assert!(hier.contains(".model rtl_join_type__3\n"), "{hier}");
    let counts = || {
        let stats = ok(d.kiln().arg("stats"));
        let stats = String::from_utf8_lossy(&stats.stdout).into_owned();
        let line = stats.lines().find(|l| l.starts_with("template_unit"));
        let n: Vec<String> = (line.unwrap_or("").split_whitespace().skip(1))
            .map(String::from)
            .collect();
        (n, stats)
    };
    let (n, stats) = counts();
    assert_eq!(
        n,
        ["1", "0"],
        "synthesized once, by the first build: {stats}"
    );
    // A new daemon finds yosys's BLIF in the persistent cache.
    ok(d.kiln().arg("shutdown"));
    let mut daemon = d.kiln();
    daemon.arg("build").arg("--out-dir").arg(&c);
    lib(&mut daemon);
    ok(&mut daemon);
    let (n, stats) = counts();
    assert_eq!(n, ["0", "1"], "a cache hit after the restart: {stats}");
    if common::have_tool("berkeley-abc") {
        let cmd = format!(
            "read -c {}; strash; dsec {}",
            a.join("join3.hier.blif").display(),
            a.join("join3.aig").display()
        );
        let o = Command::new("berkeley-abc")
            .args(["-c", &cmd])
            .current_dir(d.root())
            .output()
            .unwrap();
        let o = String::from_utf8_lossy(&o.stdout);
        assert!(o.contains("Networks are equivalent"), "{o}");
    }
}

/// The daemon's unit follows the template's text: an edited template is synthesized again
/// (with the same outputs when the logic is the same), an unchanged one is not; a template
/// directory that gains a broken file falls back with `W0411`.
#[test]
fn the_daemon_synthesizes_again_only_when_a_template_changes() {
    if !common::have_tool("yosys") {
        return;
    }
    let d = Daemon::new();
    let rtl = d.root().join("verilog");
    copy_dir(&data("rtl/verilog"), &rtl);
    let out = d.root().join("out");
    let build = || {
        let mut c = d.kiln();
        c.arg("build")
            .arg(data("rtl/join3.mlir"))
            .arg("--blif-lib")
            .arg(data("handshake/library"))
            .arg("--rtl-lib")
            .arg(&rtl)
            .arg("--out-dir")
            .arg(&out);
        let o = ok(&mut c);
        (
            std::fs::read(out.join("join3.aig")).unwrap(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let executed = || {
        let stats = ok(d.kiln().arg("stats"));
        let stats = String::from_utf8_lossy(&stats.stdout).into_owned();
        let line = stats.lines().find(|l| l.starts_with("template_unit"));
        line.and_then(|l| l.split_whitespace().nth(1))
            .map(str::to_string)
            .unwrap_or_default()
    };
    let (first, _) = build();
    assert_eq!(executed(), "1");
    assert_eq!(build().0, first);
    assert_eq!(
        executed(),
        "1",
        "an unchanged template is not synthesized again"
    );
    let join = rtl.join("handshake/join.v");
    let text = std::fs::read_to_string(&join).unwrap();
    std::fs::write(&join, format!("// edited\n{text}")).unwrap();
    assert_eq!(build().0, first, "the same logic");
    assert_eq!(executed(), "2", "an edited template is synthesized again");
    std::fs::write(&join, "module join_type (\n").unwrap();
    let (_, stderr) = build();
    assert!(stderr.contains("[W0411]"), "{stderr}");
    assert_eq!(executed(), "3");
}
