//! The CLI's contract (issue #17): wrong input fails loudly and leaves nothing half-done,
//! one behaviour per command daemon or not, one grammar for outputs, a closed pipe ends
//! quietly, help that documents itself. Each test names the numbered item it covers.

mod cli;

use cli::{Daemon, example, kiln, ok};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data")
        .join(rel)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("kiln runs")
}

/// `out` ended with exit code `code`, and its stderr says each of `says`.
fn exits(out: &Output, code: i32, says: &[&str], what: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{what}: {err}");
    for s in says {
        assert!(err.contains(s), "{what}: no `{s}` in {err}");
    }
}

/// Files below `dir`, relative, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            match e.file_type().unwrap().is_dir() {
                true => stack.push(p),
                false => out.push(p.strip_prefix(dir).unwrap().to_path_buf()),
            }
        }
    }
    out.sort();
    out
}

// ---- 1. fail loudly -------------------------------------------------------------------

/// Item 1: a library path that is not a directory is exit 1 with nothing written, for
/// `synth` and `build`, whichever way the path is given.
#[test]
fn a_library_that_is_not_a_directory_fails() {
    let dir = tempfile::tempdir().unwrap();
    let gcd = data("handshake/export_gcd.mlir");
    for via in ["flag", "env", "toml"] {
        for command in ["synth", "build"] {
            let out_dir = dir.path().join(format!("out-{via}-{command}"));
            let mut cmd = kiln();
            cmd.current_dir(dir.path())
                .arg(command)
                .arg(&gcd)
                .arg("-o")
                .arg(&out_dir);
            match via {
                "flag" => drop(cmd.args(["--blif-lib", "/nonexistent"])),
                "env" => drop(cmd.env("KILN_BLIF_LIB", "/nonexistent")),
                _ => {
                    fs::write(dir.path().join("kiln.toml"), "blif_lib = '/nonexistent'\n").unwrap()
                }
            }
            let out = run(&mut cmd);
            let _ = fs::remove_file(dir.path().join("kiln.toml"));
            exits(&out, 1, &["[E0402]"], &format!("{via} {command}"));
            assert!(files(&out_dir).is_empty(), "{via} {command} wrote outputs");
        }
    }
}

/// Item 1: a library directory in which none of the design's units is found is exit 1
/// (daemon or not, and `synth`), with nothing written.
#[test]
fn a_library_without_any_of_the_designs_units_fails() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("lib");
    fs::create_dir_all(empty.join("unrelated")).unwrap();
    let gcd = data("handshake/export_gcd.mlir");
    let daemon = Daemon::new();
    for (name, mut cmd) in [
        ("synth", kiln()),
        ("build --no-daemon", kiln()),
        ("build", daemon.kiln()),
    ] {
        let command = name.split(' ').next().unwrap();
        let out_dir = dir.path().join(name.replace(' ', "_"));
        let out = run(cmd
            .arg(command)
            .arg(&gcd)
            .arg("--blif-lib")
            .arg(&empty)
            .arg("-o")
            .arg(&out_dir));
        exits(&out, 1, &["[E0403]"], name);
        assert!(files(&out_dir).is_empty(), "{name} wrote outputs");
    }
}

/// Item 1: `kiln.toml` is TOML: a literal string (`'lib'`) names the library, relative to
/// the file, found from a subdirectory of the workspace.
#[test]
fn kiln_toml_is_read_as_toml() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(data("handshake/library"), dir.path().join("my lib")).unwrap();
    fs::write(
        dir.path().join("kiln.toml"),
        "# units\nblif_lib = 'my lib'\nout_dir = \"o\"\n",
    )
    .unwrap();
    let sub = dir.path().join("src/deep");
    fs::create_dir_all(&sub).unwrap();
    fs::copy(data("handshake/export_gcd.mlir"), sub.join("gcd.mlir")).unwrap();
    ok(kiln().current_dir(&sub).args(["synth", "gcd.mlir"]));
    assert!(
        dir.path().join("o/gcd.aig").exists(),
        "{:?}",
        files(dir.path())
    );
    fs::write(
        dir.path().join("kiln.toml"),
        "blif_lib = 'my lib'\n[limits]\nmax_bogus = 1\n",
    )
    .unwrap();
    let out = run(kiln().current_dir(&sub).args(["synth", "gcd.mlir"]));
    exits(&out, 2, &["kiln.toml:3:1: error:"], "bad kiln.toml");
}

// ---- 2. watch builds what build builds ------------------------------------------------

/// Item 2: `kiln watch` takes `build`'s options: a Handshake design builds with the
/// library sent to the daemon; `--emit` adds to the defaults; an unknown kind is a usage
/// error (exit 2), not a raw RPC error; the exit code is the last build's.
#[test]
fn watch_takes_builds_options_and_exits_with_the_last_builds_status() {
    let d = Daemon::new();
    let src = d.ws().join("src");
    fs::copy(data("handshake/export_gcd.mlir"), src.join("gcd.mlir")).unwrap();
    let lib = data("handshake/library");
    let out = d.run_args(
        &["watch", "src/gcd.mlir", "--max-events", "1", "--blif-lib"],
        &[&lib],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(d.ws().join("out/gcd.hier.blif").exists());

    fs::copy(example(), src.join("aps.mlir")).unwrap();
    let out = d.run(&["watch", "src/aps.mlir", "--emit", "sv", "--max-events", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    for ext in ["cmt2.mlir", "rules.json", "sv"] {
        assert!(d.ws().join(format!("out/aps.{ext}")).exists(), "{ext}");
    }

    let out = d.run(&[
        "watch",
        "src/aps.mlir",
        "--emit",
        "synth",
        "--max-events",
        "1",
    ]);
    exits(&out, 2, &["--emit"], "--emit synth");
    assert!(!stderr(&out).contains("status:"), "{}", stderr(&out));

    fs::write(src.join("bad.mlir"), "tor.design @d {\n  %x = \n}\n").unwrap();
    let out = d.run(&["watch", "src/bad.mlir", "--max-events", "1"]);
    exits(&out, 1, &["could not build"], "a failed last build");
}

// ---- 3. a build never reads its own outputs ---------------------------------------------

/// Item 3 (the scan's share): an output directory inside an input directory, and the
/// writer's `.kiln-*` entries, are not inputs: building the tree twice gives the same
/// outputs and exit 0, daemon or not.
#[test]
fn building_a_directory_never_reads_its_own_outputs() {
    let d = Daemon::new();
    let src = d.ws().join("src");
    fs::copy(example(), src.join("a.mlir")).unwrap();
    fs::create_dir_all(src.join(".kiln-spare")).unwrap();
    fs::write(src.join(".kiln-spare/x.mlir"), "garbage").unwrap();
    for name in ["in process", "daemon"] {
        for round in 0..2 {
            let mut cmd = match name {
                "daemon" => d.kiln(),
                _ => d.kiln_no_daemon(),
            };
            let out = run(cmd.args(["build", "src", "-o", "src/out"]));
            assert!(
                out.status.success(),
                "{name} round {round}: {}",
                stderr(&out)
            );
        }
        let outputs = files(&src.join("out"));
        assert_eq!(
            outputs,
            [PathBuf::from("a.cmt2.mlir"), PathBuf::from("a.rules.json")],
            "{name}"
        );
        fs::remove_dir_all(src.join("out")).unwrap();
    }
}

// ---- 4. one behaviour, daemon or not -------------------------------------------------------

/// Item 4: the daemon and `--no-daemon` accept the same inputs (MLIR, BLIF, directories,
/// several at once) and answer with the same exit code, the same diagnostics (as JSON
/// lines) and the same outputs.
#[test]
fn daemon_and_in_process_builds_agree() {
    let d = Daemon::new();
    let src = d.ws().join("src");
    fs::copy(example(), src.join("aps.mlir")).unwrap();
    fs::copy(
        data("blif/malformed/double_driver.blif"),
        src.join("bad.blif"),
    )
    .unwrap();
    let two_errors = fs::read_to_string(example())
        .unwrap()
        .replacen("tor.addi", "tor.bogus", 2);
    fs::write(d.ws().join("two.mlir"), two_errors).unwrap();
    std::os::unix::fs::symlink(data("daemon/blif_lib"), d.ws().join("lib")).unwrap();
    let cases: [(&[&str], i32); 5] = [
        (&["src/aps.mlir"], 0),
        (&["src/bad.blif"], 1),
        (&["lib"], 0),
        (&["src", "lib"], 1),
        (&["two.mlir"], 1),
    ];
    for (i, (inputs, code)) in cases.into_iter().enumerate() {
        let build = |mut cmd: Command, out: String| {
            let out = out.as_str();
            let o =
                run(cmd
                    .arg("build")
                    .args(inputs)
                    .args(["-o", out, "--message-format", "json"]));
            let json: Vec<String> = String::from_utf8(o.stdout.clone())
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect();
            (o.status.code(), json, cli::tree_bytes(&d.ws().join(out)))
        };
        let daemon = build(d.kiln(), format!("out-daemon-{i}"));
        let oneshot = build(d.kiln_no_daemon(), format!("out-oneshot-{i}"));
        assert_eq!(daemon.0, Some(code), "{inputs:?}: {:?}", daemon.1);
        assert_eq!(daemon.1.is_empty(), code == 0, "{inputs:?}: {:?}", daemon.1);
        assert_eq!(
            daemon.2.is_empty(),
            inputs == ["src/bad.blif"] || inputs == ["two.mlir"]
        );
        assert_eq!(daemon, oneshot, "{inputs:?}");
    }
}

// ---- 5. collisions and symlink loops ----------------------------------------------------

/// Item 5: two inputs that would write one output are errors (exit 1) and neither result
/// is written, for `aig` and `build`.
#[test]
fn output_name_collisions_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["a", "b"] {
        fs::create_dir_all(dir.path().join(sub)).unwrap();
        fs::copy(
            data("blif/bench/C17.blif"),
            dir.path().join(sub).join("addi.blif"),
        )
        .unwrap();
    }
    for command in ["aig", "build"] {
        let out_dir = dir.path().join(format!("out-{command}"));
        let out = run(kiln()
            .current_dir(dir.path())
            .args([command, "a/addi.blif", "b/addi.blif", "-o"])
            .arg(&out_dir));
        exits(&out, 1, &["[E0007]"], command);
        assert!(
            files(&out_dir).is_empty(),
            "{command}: {:?}",
            files(&out_dir)
        );
    }
}

/// Item 5: a symbolic link back to an ancestor under an input directory is reported once
/// (exit 1) and not followed: no nested copies of the tree.
#[test]
fn symlink_loops_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    fs::create_dir_all(tree.join("sub")).unwrap();
    fs::copy(example(), tree.join("sub/a.mlir")).unwrap();
    std::os::unix::fs::symlink("..", tree.join("sub/loop")).unwrap();
    let blif = dir.path().join("blifs");
    fs::create_dir_all(&blif).unwrap();
    fs::copy(
        data("daemon/blif_lib/addi/4/addi.blif"),
        blif.join("x.blif"),
    )
    .unwrap();
    std::os::unix::fs::symlink(".", blif.join("again")).unwrap();
    for (command, input) in [("build", &tree), ("aig", &blif)] {
        let out_dir = dir.path().join(format!("out-{command}"));
        let out = run(kiln().arg(command).arg(input).arg("-o").arg(&out_dir));
        exits(&out, 1, &[], command);
        assert_eq!(
            stderr(&out).matches("[E0010]").count(),
            1,
            "{command}: {}",
            stderr(&out)
        );
        let written = files(&out_dir);
        assert!(written.len() <= 2, "{command}: {written:?}");
        assert!(
            written.iter().all(|p| p.components().count() <= 2),
            "{written:?}"
        );
    }
}

// ---- 6. synth-report and synth --func ---------------------------------------------------

/// Item 6: `synth-report` reports every file, the bad ones' errors included, and exits 1.
#[test]
fn synth_report_reports_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.mlir");
    fs::write(&bad, "handshake.func @f(%a: i32) {\n").unwrap();
    let gcd = data("handshake/export_gcd.mlir");
    let out = run(kiln()
        .arg("synth-report")
        .args([&gcd, &bad, &gcd])
        .arg("--blif-lib")
        .arg(data("handshake/library")));
    exits(
        &out,
        1,
        &["bad.mlir:", "could not report on 1 of 3 inputs"],
        "synth-report",
    );
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(text.matches("export_gcd.mlir:").count(), 2, "{text}");
}

/// Item 6: `synth --func` picks one `handshake.func` of several; without it, several are
/// an error that says how to choose.
#[test]
fn synth_func_chooses_among_several() {
    let dir = tempfile::tempdir().unwrap();
    let gcd = fs::read_to_string(data("handshake/export_gcd.mlir")).unwrap();
    let two = format!("{gcd}\n{}", gcd.replace("@gcd", "@gcd_copy"));
    fs::write(dir.path().join("two.mlir"), two).unwrap();
    let lib = data("handshake/library");
    let out = run(kiln()
        .current_dir(dir.path())
        .args(["synth", "two.mlir", "--blif-lib"])
        .arg(&lib));
    exits(&out, 1, &["--func"], "two functions");
    ok(kiln()
        .current_dir(dir.path())
        .args(["synth", "two.mlir", "--func", "gcd_copy", "--blif-lib"])
        .arg(&lib));
    let mlir = fs::read_to_string(dir.path().join("out/two.synth.mlir")).unwrap();
    assert!(mlir.contains("gcd_copy"), "{mlir}");
    let out = run(kiln()
        .current_dir(dir.path())
        .args(["synth", "two.mlir", "--func", "nope", "--blif-lib"])
        .arg(&lib));
    exits(&out, 1, &["@gcd, @gcd_copy"], "an unknown function");
}

// ---- 7. a closed pipe ---------------------------------------------------------------------

/// Run `cmd` with its standard output a pipe nobody reads any more (`| head -1` after
/// its line): every write fails with EPIPE.
fn into_closed_pipe(cmd: &mut Command) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    cmd.stdout(writer).stderr(Stdio::piped()).output().unwrap()
}

/// Item 7: `kiln status | head -1` (and `stats`, `explain`, `parse`, `sim`) end quietly when
/// the reader has closed the pipe: exit 0, no panic.
#[test]
fn a_closed_pipe_ends_quietly() {
    let d = Daemon::new();
    fs::copy(example(), d.ws().join("src/a.mlir")).unwrap();
    ok(d.kiln().args(["build", "src/a.mlir"]));
    let sim = [
        "sim",
        "src/a.mlir",
        "--func",
        "flow_burst_add",
        "--rs1",
        "4096",
        "--rs2",
        "8192",
    ];
    for args in [
        &["status"][..],
        &["status", "--json"],
        &["stats"],
        &["explain"],
        &["parse", "src/a.mlir", "--emit", "mlir"],
        &sim,
    ] {
        let out = into_closed_pipe(d.kiln().args(args));
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
    // And the real thing, racing the reader.
    for i in 0..20 {
        let mut child = d
            .kiln()
            .arg("status")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(line.starts_with("kiln daemon"), "{line}");
        assert_eq!(out.status.code(), Some(0), "run {i}: {}", stderr(&out));
    }
}

// ---- 10. one grammar -------------------------------------------------------------------------

/// Item 10: `build` ends with a summary line; `build` and `synth` write to the same
/// default directory (`out`, or `out_dir` of kiln.toml); `-o -` is standard output for
/// commands that write one file; `graph -o x.png` is a PNG, an unknown extension an error.
#[test]
fn one_grammar_for_outputs() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(example(), dir.path().join("a.mlir")).unwrap();
    let out = ok(kiln().current_dir(dir.path()).args(["build", "a.mlir"]));
    let err = stderr(&out);
    assert!(err.contains("Built 2 outputs (2 written) in "), "{err}");
    assert!(err.contains("[in process]"), "{err}");
    assert!(dir.path().join("out/a.cmt2.mlir").exists());
    ok(kiln()
        .current_dir(dir.path())
        .arg("synth")
        .arg(data("handshake/export_gcd.mlir"))
        .arg("--blif-lib")
        .arg(data("handshake/library")));
    assert!(dir.path().join("out/export_gcd.aig").exists());

    let out = ok(kiln()
        .current_dir(dir.path())
        .args(["parse", "a.mlir", "--emit", "mlir", "-o", "-"]));
    assert!(String::from_utf8_lossy(&out.stdout).contains("tor.design"));
    let out = run(kiln()
        .current_dir(dir.path())
        .args(["build", "a.mlir", "-o", "-"]));
    exits(&out, 2, &["--out-dir names a directory"], "build -o -");

    let func = ["--func", "flow_burst_add"];
    ok(kiln()
        .current_dir(dir.path())
        .args(["graph", "a.mlir"])
        .args(func)
        .args(["-o", "g.png"]));
    assert!(
        fs::read(dir.path().join("g.png"))
            .unwrap()
            .starts_with(b"\x89PNG")
    );
    let out = run(kiln()
        .current_dir(dir.path())
        .args(["graph", "a.mlir"])
        .args(func)
        .args(["-o", "g.txt"]));
    exits(&out, 2, &["unknown graph format `txt`"], "graph -o g.txt");
    let out = ok(kiln()
        .current_dir(dir.path())
        .args(["graph", "a.mlir"])
        .args(func)
        .args(["-o", "-"]));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("digraph"));

    let out = ok(kiln()
        .current_dir(dir.path())
        .args(["build", "a.mlir", "-q"]));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

/// Item 10: `--emit` adds kinds in `build` as in `watch` (see the watch test).
#[test]
fn emit_adds_kinds_in_build() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(example(), dir.path().join("a.mlir")).unwrap();
    fs::copy(
        data("daemon/blif_lib/addi/4/addi.blif"),
        dir.path().join("b.blif"),
    )
    .unwrap();
    ok(kiln()
        .current_dir(dir.path())
        .args(["build", "a.mlir", "b.blif", "--emit", "sv", "--emit", "aag"]));
    let got = files(&dir.path().join("out"));
    let want: Vec<PathBuf> = ["a.cmt2.mlir", "a.rules.json", "a.sv", "b.aag", "b.aig"]
        .iter()
        .map(PathBuf::from)
        .collect();
    assert_eq!(got, want);
}

// ---- 12. help, sizes ---------------------------------------------------------------------

/// Item 12: sizes in human units in and out; help with examples and the environment;
/// completions and man pages generated from the grammar.
#[test]
fn help_sizes_completions_and_man_pages() {
    let dir = tempfile::tempdir().unwrap();
    let cache = |args: &[&str]| {
        ok(kiln()
            .env("KILN_CACHE_DIR", dir.path().join("cache"))
            .arg("cache")
            .args(args))
    };
    cache(&["gc", "--max-bytes", "1M"]);
    let out = cache(&["stats"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(" B (cap 1.0 GiB)"),
        "{:?}",
        out
    );
    ok(kiln()
        .args(["--max-input-size", "512K", "parse"])
        .arg(example()));
    let out = run(kiln()
        .args(["--max-input-size", "1K", "parse"])
        .arg(example()));
    exits(&out, 1, &["[E0004]"], "--max-input-size 1K");

    let help = String::from_utf8(ok(kiln().arg("--help")).stdout).unwrap();
    for section in [
        "Environment:",
        "KILN_BLIF_LIB",
        "NO_COLOR",
        "kiln.toml",
        "[remote]",
    ] {
        assert!(help.contains(section), "{section}");
    }
    for sub in [
        "build", "synth", "watch", "aig", "parse", "sim", "graph", "explain",
    ] {
        let h = String::from_utf8(ok(kiln().args(["help", sub])).stdout).unwrap();
        assert!(h.contains("Examples:\n  kiln "), "{sub}: {h}");
    }
    let bash = String::from_utf8(ok(kiln().args(["completions", "bash"])).stdout).unwrap();
    assert!(
        bash.contains("_kiln()") && bash.contains("--message-format"),
        "{bash}"
    );
    // `--emit` values complete (every output kind).
    assert!(
        bash.contains("compgen -W \"cmt2 rules-json aig aag sv synth-mlir blif hier-blif\""),
        "{bash}"
    );
    ok(kiln().args(["man", "-o"]).arg(dir.path().join("man")));
    let page = fs::read_to_string(dir.path().join("man/kiln.1")).unwrap();
    assert!(
        page.contains(".TH kiln 1") && page.contains("KILN_NO_DAEMON"),
        "{page}"
    );
    assert!(dir.path().join("man/kiln-build.1").exists());
}
