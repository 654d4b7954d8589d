//! `kiln build -j N` / `--jobs N`: at most N inputs compiled at once, and the same outputs,
//! diagnostics and summary line for any N (in process and through the daemon, which gets
//! the count with each request); `-j 0` and a count that is not a number are refused as
//! usage errors; `jobs` in `kiln.toml` is read, and a flag wins over it.

mod cli;

use cli::{Daemon, kiln, ok, tree_bytes};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data")
        .join(rel)
}

/// `src/` of several inputs of every flow: BLIF netlists, one with a warning (an undriven
/// net) and one with an error, APS designs, one with an error, and a Handshake design.
fn populate(src: &Path) {
    let copies = [
        ("blif/bench/C17.blif", "a_c17.blif"),
        ("blif/bench/C880.blif", "b/c880.blif"),
        ("blif/bench/alu3.blif", "b/alu3.blif"),
        ("blif/bench/s298.blif", "c/s298.blif"),
        ("blif/bench/i2c_master_hier.blif", "c/i2c.blif"),
        ("blif/edge/undriven.blif", "d/undriven.blif"),
        ("aps/flow_burst_add.mlir", "e/burst.mlir"),
        ("aps/diag/undefined_value.mlir", "e/undefined.mlir"),
        ("handshake/export_gcd.mlir", "f/gcd.mlir"),
    ];
    for (from, to) in copies {
        let to = src.join(to);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(data(from), &to).unwrap_or_else(|e| panic!("{from}: {e}"));
    }
    let bad = ".model bad\n.inputs a\n.outputs y\n.names a y\n2 1\n.end\n";
    fs::write(src.join("d/bad.blif"), bad).unwrap();
}

/// What one build shows: its exit code, its stderr (the workspace's path and the summary
/// line's time replaced), and the files it wrote.
#[derive(Debug, PartialEq)]
struct Seen {
    code: Option<i32>,
    stderr: String,
    files: Vec<(PathBuf, Vec<u8>)>,
}

/// `kiln build src -o out` with `args` in a fresh workspace: in process, or through the
/// workspace's daemon (started by a first build, whose output is not the one compared).
fn build(daemon: bool, args: &[&str], toml: Option<&str>) -> Seen {
    let d = Daemon::new();
    populate(&d.ws().join("src"));
    if let Some(toml) = toml {
        fs::write(d.ws().join("kiln.toml"), toml).unwrap();
    }
    let lib = data("handshake/library");
    let run = |out: &str| {
        let mut c: Command = if daemon { d.kiln() } else { d.kiln_no_daemon() };
        c.args(["build", "src", "-o", out, "--blif-lib"])
            .arg(&lib)
            .args(args);
        c.output().expect("kiln runs")
    };
    if daemon {
        // The daemon's start is announced once; a build of another output directory.
        run("warm");
    }
    let out = run("out");
    let ws = d.ws().display().to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).replace(&ws, "WS");
    Seen {
        code: out.status.code(),
        stderr: without_times(&stderr),
        files: outputs(&d.ws().join("out")),
    }
}

/// The files below `dir` but the writer's own (`.kiln-spare`, which a daemon's writer
/// fills ahead of a rewrite).
fn outputs(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = tree_bytes(dir);
    let own = |p: &Path| {
        p.components()
            .any(|c| c.as_os_str().as_encoded_bytes().starts_with(b".kiln-"))
    };
    files.retain(|(p, _)| !own(p));
    files
}

/// `in 4.1 ms` → `in T ms`.
fn without_times(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find(" in ") {
        let (head, tail) = rest.split_at(at + 4);
        out.push_str(head);
        let digits = tail
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(tail.len());
        if digits > 0 && tail[digits..].starts_with(" ms") {
            out.push('T');
            rest = &tail[digits..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

/// The paths whose bytes differ between two trees, or that only one has.
fn differing<'a>(a: &'a [(PathBuf, Vec<u8>)], b: &'a [(PathBuf, Vec<u8>)]) -> Vec<&'a Path> {
    let (a, b): (BTreeMap<_, _>, BTreeMap<_, _>) = (
        a.iter().map(|(p, x)| (p.as_path(), x)).collect(),
        b.iter().map(|(p, x)| (p.as_path(), x)).collect(),
    );
    let mut out: Vec<&Path> = (a.iter())
        .filter(|(p, x)| b.get(*p) != Some(*x))
        .map(|(p, _)| *p)
        .collect();
    out.extend(b.keys().filter(|p| !a.contains_key(*p)));
    out
}

fn same_for_any_jobs(daemon: bool) {
    let one = build(daemon, &["-j", "1"], None);
    assert_eq!(one.code, Some(1), "two inputs have errors: {}", one.stderr);
    for needle in [
        "[W0300]",
        "d/bad.blif",
        "e/undefined.mlir",
        "could not build",
    ] {
        assert!(one.stderr.contains(needle), "{needle}: {}", one.stderr);
    }
    let names: Vec<String> = (one.files.iter())
        .map(|(p, _)| p.display().to_string())
        .collect();
    for built in [
        "a_c17.aig",
        "b/c880.aig",
        "d/undriven.aig",
        "e/burst.cmt2.mlir",
    ] {
        assert!(names.iter().any(|n| n == built), "{built}: {names:?}");
    }
    assert!(names.iter().any(|n| n.starts_with("f/gcd.")), "{names:?}");
    for args in [&["-j", "2"][..], &["--jobs", "3"], &["--jobs=64"], &[]] {
        let other = build(daemon, args, None);
        assert_eq!(other.code, one.code, "{args:?}");
        assert_eq!(other.stderr, one.stderr, "{args:?}");
        assert_eq!(
            differing(&other.files, &one.files),
            [] as [&Path; 0],
            "{args:?}"
        );
    }
}

#[test]
fn in_process_builds_are_the_same_for_any_number_of_jobs() {
    same_for_any_jobs(false);
}

#[test]
fn daemon_builds_are_the_same_for_any_number_of_jobs() {
    same_for_any_jobs(true);
}

/// Success too: the summary line is the same for any N, and `kiln.toml`'s `jobs` is read
/// (a value of 0 is a located usage error).
#[test]
fn summary_line_and_kiln_toml() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    for (from, to) in [
        ("blif/bench/C17.blif", "x.blif"),
        ("blif/bench/alu3.blif", "y/alu3.blif"),
        ("blif/edge/undriven.blif", "z.blif"),
    ] {
        let to = src.join(to);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(data(from), to).unwrap();
    }
    let lines = |out: &str, args: &[&str]| {
        let out = ok(kiln()
            .current_dir(dir.path())
            .args(["build", "src", "-o", out])
            .args(args));
        without_times(&String::from_utf8_lossy(&out.stderr))
    };
    let one = lines("one", &["-j1"]);
    let summary = "Built 3 outputs (3 written) in T ms [in process]; 2 warnings\n";
    assert!(one.ends_with(summary), "{one}");
    assert_eq!(lines("two", &["-j", "2"]), one);
    assert_eq!(lines("all", &[]), one);

    let d = Daemon::new();
    fs::write(d.ws().join("kiln.toml"), "jobs = 0\n").unwrap();
    let out = d.kiln_no_daemon().args(["build", "src"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("kiln.toml:1:") && err.contains("at least 1 job"),
        "{err}"
    );
    assert!(err.contains("[E0011]"), "{err}");
}

/// A `jobs` key in `kiln.toml` builds as the flag does; the flag wins over it.
#[test]
fn kiln_toml_jobs_builds_the_same() {
    let flag = build(false, &["-j", "2"], None);
    assert_eq!(build(false, &[], Some("jobs = 1\n")), flag);
    assert_eq!(build(false, &["-j", "2"], Some("jobs = 1\n")), flag);
}

/// `-j 0`, a negative or non-numeric count, and `-j` without a count are usage errors
/// (exit 2, clap's message naming the flag), before anything is built.
#[test]
fn zero_or_not_a_number_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(data("blif/bench/C17.blif"), dir.path().join("a.blif")).unwrap();
    for (args, says) in [
        (&["-j", "0"][..], "at least 1 job is needed"),
        (&["--jobs=0"], "at least 1 job is needed"),
        (&["-j", "two"], "expected a number of jobs"),
        (&["-j", "-1"], "unexpected argument '-1'"),
        (&["--jobs", "1.5"], "expected a number of jobs"),
        (&["-j"], "a value is required"),
    ] {
        let out = kiln()
            .current_dir(dir.path())
            .args(["build", "a.blif"])
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(
            err.contains("--jobs <N>") || args == ["-j", "-1"],
            "{args:?}: {err}"
        );
        assert!(!dir.path().join("out").exists(), "{args:?}: nothing built");
    }
    // `kiln aig` takes the same count with the same checks (it read 0 as 1).
    let zero = kiln()
        .current_dir(dir.path())
        .args(["aig", "a.blif", "--jobs", "0"])
        .output()
        .unwrap();
    assert_eq!(zero.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&zero.stderr).contains("at least 1 job is needed"));
    ok(kiln()
        .current_dir(dir.path())
        .args(["aig", "a.blif", "-j", "2", "-o", "aigs"]));
    assert!(dir.path().join("aigs/a.aig").exists());
}

/// `watch` takes `build`'s options, `-j` among them; help, completions and man pages,
/// made from the grammar, list it.
#[test]
fn watch_help_completions_and_man_pages_list_jobs() {
    for command in ["build", "watch"] {
        let out = ok(kiln().args([command, "--help"]));
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("-j, --jobs <N>"), "{command}: {help}");
    }
    let out = kiln()
        .args(["watch", "x.mlir", "-j", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let bash = ok(kiln().args(["completions", "bash"]));
    assert!(String::from_utf8_lossy(&bash.stdout).contains("--jobs"));
    let dir = tempfile::tempdir().unwrap();
    ok(kiln().args(["man", "-o"]).arg(dir.path()));
    for page in ["kiln-build.1", "kiln-watch.1"] {
        let man = fs::read_to_string(dir.path().join(page)).unwrap();
        assert!(man.contains(r"\fB\-j\fR, \fB\-\-jobs\fR"), "{page}");
    }
}
