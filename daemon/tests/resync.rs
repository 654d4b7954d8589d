//! Re-reading an edited source: the workspace compares the new text with the current one
//! once and hands the common ends to the re-split. Through a chain of edits (invalid UTF-8
//! inside a multi-byte character next to unchanged ones, its repair, same-length edits,
//! edits of the design context and at the file's ends), every build equals a fresh
//! workspace's build of the same bytes: success, rendered diagnostics and output bytes.

mod common;

use kiln_daemon::build::Builder;
use kiln_daemon::report::BuildReport;
use std::fs;
use std::path::Path;

/// Save `bytes` as an editor does (temp file + rename: a new inode, so the stamp differs
/// even within one timestamp tick).
fn save(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, bytes).unwrap();
    fs::rename(&tmp, path).unwrap();
}

/// Build with `ws`, and with a fresh workspace into another directory; both must agree.
fn build_both(ws: &Builder, src: &Path, root: &Path, step: &str) -> BuildReport {
    let (out, fresh_out) = (root.join("out"), root.join("fresh"));
    let _ = fs::remove_dir_all(&fresh_out);
    let reply = ws.build(&common::spec(src, &out));
    let fresh = Builder::in_process(None).build(&common::spec(src, &fresh_out));
    assert_eq!(reply.ok(), fresh.ok(), "{step}: success differs");
    let rendered = |r: &BuildReport| {
        r.diagnostics
            .iter()
            .map(|d| d.rendered())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        rendered(&reply),
        rendered(&fresh),
        "{step}: diagnostics differ"
    );
    if reply.ok() {
        for (a, b) in reply.files.iter().zip(&fresh.files) {
            assert_eq!(
                fs::read(&a.path).unwrap(),
                fs::read(&b.path).unwrap(),
                "{step}: {} differs",
                a.path.display()
            );
        }
        assert_eq!(reply.files.len(), fresh.files.len(), "{step}");
    }
    reply
}

#[test]
fn edited_sources_build_as_a_fresh_workspace_builds_them() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("gen.mlir");
    let mut text = compiler::aps::workload::generate(6, 2);
    // Multi-byte characters inside a function body, in a comment.
    let f2 = text.find("tor.func @f2(").unwrap();
    let line = f2 + text[f2..].find('\n').unwrap() + 1;
    text.insert_str(line, "      // é€𝄞 ünïcödé €\n");
    save(&src, text.as_bytes());
    let ws = Builder::in_process(None);
    assert!(build_both(&ws, &src, dir.path(), "initial").ok());

    let euro = text.find('€').unwrap();
    let mut steps: Vec<(&str, Vec<u8>)> = Vec::new();
    // The second byte of "€" replaced: a truncated sequence inside the edit window.
    let mut broken = text.clone().into_bytes();
    broken[euro + 1] = b'A';
    steps.push(("invalid inside a character", broken));
    // Repaired, with another multi-byte character next to the unchanged ones.
    let repaired = format!("{}€€{}", &text[..euro], &text[euro + '€'.len_utf8()..]);
    steps.push(("repaired", repaired.clone().into_bytes()));
    // The same length: an arithmetic op of another function changed.
    let f3 = repaired.find("tor.func @f3(").unwrap();
    let add = f3 + repaired[f3..].find("tor.addi").unwrap();
    let same_len = format!("{}tor.subi{}", &repaired[..add], &repaired[add + 8..]);
    steps.push(("same length", same_len.clone().into_bytes()));
    // The design context: a comment at the top, with a multi-byte character.
    let context = format!("// top ∑\n{same_len}");
    steps.push(("design context", context.clone().into_bytes()));
    // A lone lead byte at the very end, then removed again.
    let mut tail = context.clone().into_bytes();
    tail.push(0xC3);
    steps.push(("invalid at the end", tail));
    steps.push(("end repaired", context.clone().into_bytes()));
    // A continuation byte alone at the very start.
    let mut head = context.clone().into_bytes();
    head.insert(0, 0x80);
    steps.push(("invalid at the start", head));
    steps.push(("unchanged after repair", context.clone().into_bytes()));
    steps.push(("no change", context.into_bytes()));

    for (step, bytes) in steps {
        save(&src, &bytes);
        let reply = build_both(&ws, &src, dir.path(), step);
        let valid = std::str::from_utf8(&bytes).is_ok();
        assert_eq!(reply.ok(), valid, "{step}");
        if !valid {
            let rendered = &reply.diagnostics[0].rendered();
            assert!(rendered.contains("gen.mlir:"), "{step}: {rendered}");
        }
    }
}
