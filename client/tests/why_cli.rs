//! `kiln why` and `kiln build --explain` through a daemon: after an edit of one function,
//! a summary naming that function, then its queries and the edit's `file:line:col`, as
//! text and JSON; after an edit every function reads, at most 50 queries unless `--all`;
//! an unknown target is an error naming what the last build knows.

mod cli;
#[path = "../../daemon/tests/common/mod.rs"]
mod common;

use cli::Daemon;
use std::process::Output;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A daemon with `m.mlir` of `n` generated functions built once; its text.
fn built(n: usize) -> (Daemon, String) {
    let env = Daemon::new();
    let text = common::generated_module(n);
    std::fs::write(env.ws().join("m.mlir"), &text).unwrap();
    let out = env.run(&["build", "m.mlir", "--out-dir", "out"]);
    assert!(out.status.success(), "{}", stderr(&out));
    (env, text)
}

/// The 1-based line and column of byte `k` of `text`.
fn line_col(text: &str, k: usize) -> (usize, usize) {
    let before = &text[..k];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

#[test]
fn why_summarizes_the_edited_function_and_locates_the_edit() {
    let (env, text) = built(6);
    let (edited, k) = common::rename_op(&text, "f3");
    std::fs::write(env.ws().join("m.mlir"), &edited).unwrap();
    let out = env.run(&["build", "m.mlir", "--out-dir", "out", "--explain"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let explained = stderr(&out);
    // "tor.addi" → "tor.subi": bytes k+4..k+7 differ ("add" / "sub").
    let (line, col) = line_col(&edited, k + 4);
    let first = explained.lines().next().unwrap_or_default();
    assert!(
        first.contains("queries re-ran because of 1 edit in 1 file: function @f3 (m.mlir)"),
        "{explained}"
    );
    assert!(
        explained.contains(&format!(
            "changed: m.mlir:{line}:{col}-{line}:{} (@f3)",
            col + 3
        )),
        "{explained}"
    );
    assert!(
        explained.contains(&format!(
            "m.mlir @f3 [segmentation]: edited at m.mlir:{line}:{col}"
        )),
        "{explained}"
    );
    assert!(!explained.contains("bytes"), "{explained}");

    let out = env.run(&["why", "@f3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("queries re-ran because of 1 edit")
    );
    assert!(
        text.contains("[function_op]") && text.contains("@f3"),
        "{text}"
    );
    assert!(!text.contains("@f2"), "{text}");

    let out = env.run(&["why", "@f3", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let entries = v["entries"].as_array().unwrap();
    assert!(!entries.is_empty());
    for e in entries {
        assert_eq!(e["subject"]["item"], "f3", "{e}");
        assert_eq!(e["reason"]["kind"], "input_changed", "{e}");
        assert_eq!(e["reason"]["range"]["start"], k + 4);
        assert_eq!(e["reason"]["range"]["end"], k + 7);
        assert_eq!(e["reason"]["start"]["line"], line);
        assert_eq!(e["reason"]["start"]["col"], col);
    }
    assert_eq!(v["changes"][0]["start"]["line"], line, "{v}");
    assert!(v.get("unknown").is_none(), "{v}");

    let out = env.run(&["why", "out/m.cmt2.mlir"]);
    let text = stdout(&out);
    assert!(
        text.contains("[function_op]") && text.contains("@f3"),
        "{text}"
    );
    assert!(!text.contains("@f2"), "{text}");
    // A known function no query of the last build was about: nothing to say, no error.
    let out = env.run(&["why", "@f2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().next(), Some("no query executed"), "{text}");
    assert!(!text.contains("[function_op]"), "{text}");
}

#[test]
fn why_of_an_unknown_target_fails_naming_what_the_build_knows() {
    let (env, _) = built(6);
    for target in ["@nope", "nope.mlir", "out/nope.aig"] {
        let out = env.run(&["why", target]);
        assert_eq!(out.status.code(), Some(1), "{target}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains("E0012"), "{err}");
        let first = format!("{target}: error: not an output, input, function or model");
        assert!(err.contains(&first), "{err}");
        assert!(err.contains("inputs m.mlir"), "{err}");
        assert!(err.contains("functions @f0, @f1, @f2 and 3 more"), "{err}");
        assert!(err.contains("outputs out/"), "{err}");
        assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    }
    let out = env.run(&["why", "@nope", "--json"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn an_edit_every_function_reads_is_capped_unless_all() {
    let n = 60;
    let (env, text) = built(n);
    // A constant of the design, outside every function: each function's queries re-run.
    let from = "%c16_i32 = arith.constant {dump = \"op_1\"} 16 : i32";
    assert!(text.contains(from));
    let edited = text.replacen(
        from,
        "%c16_i32 = arith.constant {dump = \"op_1\"} 17 : i32",
        1,
    );
    std::fs::write(env.ws().join("m.mlir"), &edited).unwrap();
    let out = env.run(&["build", "m.mlir", "--out-dir", "out", "--explain"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let explained = stderr(&out);
    assert!(
        explained
            .lines()
            .next()
            .unwrap_or_default()
            .contains("queries re-ran because of 1 edit in 1 file: m.mlir outside any function"),
        "{explained}"
    );
    let tail = "more (`kiln why --all` lists every one)";
    assert!(explained.contains(tail), "{explained}");
    // The summary, the change, 50 queries, the rest counted (then the build's status).
    let k = explained.lines().position(|l| l.contains(tail)).unwrap();
    assert_eq!(k + 1, 53, "{explained}");

    let out = env.run(&["why"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let capped = stdout(&out);
    assert_eq!(capped.lines().count(), 53, "{capped}");
    let last = capped.lines().last().unwrap();
    assert!(last.ends_with("more (--all to list every one)"), "{last}");
    let more: usize = last
        .trim_start_matches("… and ")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{last}"));

    let out = env.run(&["why", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let total = v["entries"].as_array().unwrap().len();
    assert!(total > n, "{total}");
    assert_eq!(more, total - 50);

    let out = env.run(&["why", "--all"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let all = stdout(&out);
    assert_eq!(all.lines().count(), 2 + total, "{all}");
    assert!(!all.contains("more"), "{all}");
    let summary = format!("{total} queries re-ran because of 1 edit in 1 file");
    assert!(all.starts_with(&summary), "{all}");
}
