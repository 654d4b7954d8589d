//! `kiln why` and `kiln build --explain` through a daemon: after an edit of one function,
//! the explanation names that function's queries and the changed bytes, as text and JSON.

mod cli;
#[path = "../../daemon/tests/common/mod.rs"]
mod common;

use cli::Daemon;

#[test]
fn why_names_the_edited_function_and_its_bytes() {
    let env = Daemon::new();
    let text = common::generated_module(6);
    let src = env.ws().join("m.mlir");
    std::fs::write(&src, &text).unwrap();
    let out = env.run(&["build", "m.mlir", "--out-dir", "out"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let (edited, k) = common::rename_op(&text, "f3");
    std::fs::write(&src, &edited).unwrap();
    let out = env.run(&["build", "m.mlir", "--out-dir", "out", "--explain"]);
    assert!(out.status.success());
    let explained = String::from_utf8_lossy(&out.stderr);
    let bytes = format!("bytes {}..{}", k + 4, k + 7);
    assert!(explained.contains(&format!("@f3 {bytes}")), "{explained}");
    assert!(explained.contains("segmentation"), "{explained}");

    let out = env.run(&["why", "@f3", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let entries = v["entries"].as_array().unwrap();
    assert!(!entries.is_empty());
    for e in entries {
        assert_eq!(e["subject"]["item"], "f3", "{e}");
        assert_eq!(e["reason"]["kind"], "input_changed", "{e}");
        assert_eq!(e["reason"]["range"]["start"], k + 4);
        assert_eq!(e["reason"]["range"]["end"], k + 7);
    }
    let out = env.run(&["why", "out/m.cmt2.mlir"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("function_op") && text.contains("@f3"),
        "{text}"
    );
    assert!(!text.contains("@f2"), "{text}");
}
