//! Diagnostics as the CLI shows them (issue #17, item 9): JSON lines with the documented
//! schema for every malformed sample, codes that `kiln explain` knows, colour only when
//! asked or on a terminal, long lines cut around the span, binary input never shown, and
//! one closing line.

mod cli;

use cli::{Daemon, example, kiln, ok};
use compiler::diag::Code;
use std::fs;
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data")
        .join(rel)
}

/// Every malformed sample of `tests/data`: the MLIR and BLIF ones, the APS diagnostics,
/// the hostile inputs.
fn malformed_samples() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["mlir/malformed", "blif/malformed", "aps/diag", "hostile"] {
        for e in fs::read_dir(data(dir)).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "mlir" || x == "blif") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(out.len() > 60, "{}", out.len());
    out
}

/// Check one JSON diagnostic against the documented schema and the file it names.
fn check_schema(v: &serde_json::Value, sample: &Path, text: &str) {
    let o = v
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"));
    assert_eq!(o["file"], sample.display().to_string(), "{v}");
    let lines: Vec<&str> = text.split('\n').collect();
    let inside = |line: &serde_json::Value, col: &serde_json::Value| {
        let (l, c) = (
            line.as_u64().unwrap() as usize,
            col.as_u64().unwrap() as usize,
        );
        assert!(
            l >= 1 && l <= lines.len(),
            "line {l} outside {sample:?}: {v}"
        );
        let chars = lines[l - 1].chars().count();
        assert!(
            c >= 1 && c <= chars + 1,
            "col {c} outside line {l} of {sample:?}: {v}"
        );
        (l, c)
    };
    let start = inside(&o["line"], &o["col"]);
    let end = inside(&o["end"]["line"], &o["end"]["col"]);
    assert!(start <= end, "{v}");
    assert!(
        ["error", "warning", "note"].contains(&o["severity"].as_str().unwrap()),
        "{v}"
    );
    let code = o["code"].as_str().unwrap_or_else(|| panic!("no code: {v}"));
    assert!(Code::parse(code).is_some(), "unknown code {code}");
    assert!(!o["message"].as_str().unwrap().is_empty());
    assert!(o["notes"].is_array(), "{v}");
    for r in o
        .get("related")
        .and_then(|r| r.as_array())
        .into_iter()
        .flatten()
    {
        inside(&r["line"], &r["col"]);
    }
}

/// The acceptance criterion: `kiln build X --message-format json` on every malformed
/// sample yields valid JSON lines, each inside the file, with a known code; exit 1 with an
/// error among them, or exit 0 with none. In process and through the daemon alike.
#[test]
fn json_diagnostics_of_every_malformed_sample() {
    let d = Daemon::new();
    for (i, sample) in malformed_samples().iter().enumerate() {
        let text = String::from_utf8_lossy(&fs::read(sample).unwrap()).into_owned();
        let mut cmd = match i % 4 {
            0 => d.kiln(),
            _ => kiln(),
        };
        let out = cmd
            .arg("build")
            .arg(sample)
            .args(["--message-format", "json", "-o"])
            .arg(d.ws().join("out"))
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).expect("UTF-8");
        let mut errors = 0;
        for line in stdout.lines() {
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{sample:?}: not JSON ({e}): {line}"));
            check_schema(&v, sample, &text);
            errors += usize::from(v["severity"] == "error");
        }
        match out.status.code() {
            Some(1) => assert!(errors > 0, "{sample:?}: exit 1 without an error line"),
            Some(0) => assert_eq!(errors, 0, "{sample:?}"),
            other => panic!("{sample:?}: exit {other:?}"),
        }
    }
}

/// Human diagnostics carry the code, end with one closing line, and have colour only when
/// asked (stderr is not a terminal here); `kiln explain` knows every code shown.
#[test]
fn human_diagnostics_codes_colour_and_closing_line() {
    let sample = data("mlir/malformed/bad_token.mlir");
    let out = kiln().arg("build").arg(&sample).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains('\x1b'), "{err}");
    assert!(err.contains(":3:25: error: unexpected character"), "{err}");
    assert!(err.contains("[E0101]"), "{err}");
    let last = err.lines().last().unwrap();
    assert_eq!(
        last,
        format!(
            "error: could not build `{}` (1 error, 0 warnings)",
            sample.display()
        )
    );
    let out = kiln()
        .args(["--color", "always", "build"])
        .arg(&sample)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("\x1b[1;31merror\x1b[0m"));

    let out = ok(kiln().args(["explain", "E0101"]));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("E0101: MLIR syntax error"));
    assert_eq!(
        kiln()
            .args(["explain", "E9999"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
    let list = String::from_utf8(ok(kiln().arg("explain")).stdout).unwrap();
    assert_eq!(list.lines().count(), Code::ALL.len());
}

/// A 3,000-character source line is cut around the span; the caret stays under it.
#[test]
fn long_lines_are_cut_around_the_span() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("long.mlir");
    let pad = "x".repeat(1500);
    fs::write(
        &p,
        format!(
            "module {{\n  %0 = \"a.b\"() {{s = \"{pad}\", t = `, u = \"{pad}\"}} : () -> i32\n}}\n"
        ),
    )
    .unwrap();
    let out = kiln().arg("build").arg(&p).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.lines().all(|l| l.chars().count() < 200), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    let caret = lines[2].find('^').unwrap();
    assert_eq!(&lines[1][caret..caret + 1], "`", "{err}");
    assert!(
        lines[1].contains("...") && lines[1].ends_with("..."),
        "{err}"
    );
}

/// A binary file given as input is one message about the file: nothing of it is printed.
#[test]
fn binary_input_is_never_shown() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("program.mlir");
    fs::copy(env!("CARGO_BIN_EXE_kiln"), &p).unwrap();
    for format in ["human", "json"] {
        let out = kiln()
            .arg("build")
            .arg(&p)
            .args(["--message-format", format])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let all = [out.stdout, out.stderr].concat();
        let text = String::from_utf8(all).expect("UTF-8 only");
        assert!(text.len() < 1000, "{text}");
        assert!(
            text.chars().all(|c| c == '\n' || !c.is_control()),
            "{text:?}"
        );
        assert!(
            text.contains("binary file") && text.contains("E0001"),
            "{text}"
        );
    }
}

/// `-v` says where a build's time went and what was written; the daemon's build what it
/// recompiled.
#[test]
fn verbose_build_shows_what_it_did() {
    let d = Daemon::new();
    fs::copy(example(), d.ws().join("src/a.mlir")).unwrap();
    let out = ok(d.kiln().args(["build", "src/a.mlir", "-v"]));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("Started kiln daemon"), "{err}");
    assert!(err.contains("[daemon]; compiled 1 function"), "{err}");
    assert!(err.contains("timing read"), "{err}");
    assert!(err.contains("wrote "), "{err}");
}
