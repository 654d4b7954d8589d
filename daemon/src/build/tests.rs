//! An editor's analysis leaves the persistent store's writes for later: nothing is written
//! before its diagnostics, every function's segmentation and block rules once written
//! behind (from the memos), and a build on a fresh database over that store then computes
//! none of them and writes the same bytes as a build without a store.
//!
//! (Unit tests: an editor's analysis goes through [`Builder::edit_overlay`] and
//! [`Ide::analyze`], which are not part of the crate's face.)

use super::Builder;
use crate::counters::Snapshot;
use crate::ide::Ide;
use crate::spec::{BuildSpec, HandshakeSpec};
use crate::workspace::OverlayChange;
#[path = "../../tests/common/tree.rs"]
mod tree_of;
use std::fs;
use std::path::{Path, PathBuf};
use tree_of::tree;

/// Executions of `kind` in a counter snapshot (0 when it never ran).
fn count(s: &Snapshot, kind: &str) -> u64 {
    s.get(kind).map_or(0, |c| c.executions)
}

/// Build `spec` with `ws`, which must succeed: the queries that build executed.
fn build_counted(ws: &Builder, spec: &BuildSpec) -> Snapshot {
    let reply = ws.build(spec);
    assert!(reply.ok(), "{}", reply.rendered());
    reply.counts
}

/// A build of `input` into `<dir>/out` with the default output kinds.
fn spec(input: &Path, dir: &Path) -> BuildSpec {
    BuildSpec {
        inputs: vec![input.to_path_buf()],
        out_dir: dir.join("out"),
        ..Default::default()
    }
}

/// A fresh directory holding one input.
struct Input {
    dir: tempfile::TempDir,
    src: PathBuf,
    text: String,
}

/// `name` in a fresh directory holding `text`.
fn input(name: &str, text: String) -> Input {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(name);
    fs::write(&src, &text).unwrap();
    Input { dir, src, text }
}

fn open(cache: &Path) -> kiln_cache::Store {
    kiln_cache::Store::open(cache, kiln_cache::DEFAULT_CAP_BYTES).unwrap()
}

#[test]
fn an_editors_checks_are_written_behind_and_a_later_build_reads_them() {
    let n = 24;
    let g = input("gen.mlir", compiler::aps::workload::generate(n, 3));
    let (dir, src, text) = (&g.dir, &g.src, &g.text);
    let cache = dir.path().join("cache");

    let editor = Builder::in_process(Some(open(&cache)));
    let ide = Ide::default();
    let opened = OverlayChange::Full(text.clone());
    let analysis = editor
        .edit_overlay(src, 1, opened, &HandshakeSpec::default(), |db, o| {
            ide.analyze(db, src, o)
        })
        .unwrap();
    assert!(analysis.messages.is_empty(), "{:?}", analysis.messages);
    let store = editor.store().unwrap();
    assert_eq!(store.counters().writes, 0, "written before the diagnostics");
    let checked = editor.counters();
    assert_eq!(count(&checked, "segmentation"), n as u64, "{checked:?}");
    let blocks = count(&checked, "handler");

    assert!(editor.write_behind(), "the checks were left to write");
    editor.wait_writes_behind();
    assert_eq!(store.counters().writes, n as u64 + blocks);
    assert!(!editor.write_behind(), "nothing is left to write");
    let after = editor.counters();
    assert_eq!(
        count(&after, "segmentation") + count(&after, "handler"),
        n as u64 + blocks,
        "the write-behind executes nothing: {after:?}"
    );
    drop(editor);

    let built = dir.path().join("built");
    let builder = Builder::in_process(Some(open(&cache)));
    let counts = build_counted(&builder, &spec(src, &built));
    for kind in ["parse", "segmentation", "handler"] {
        assert_eq!(count(&counts, kind), 0, "{kind} executed: {counts:?}");
    }
    assert_eq!(counts["segmentation"].cache_hits, n as u64, "{counts:?}");
    assert_eq!(counts["handler"].cache_hits, blocks, "{counts:?}");

    let reference = dir.path().join("reference");
    build_counted(&Builder::in_process(None), &spec(src, &reference));
    let (built, reference) = (tree(&built.join("out")), tree(&reference.join("out")));
    assert!(!reference.is_empty());
    assert_eq!(
        built.keys().collect::<Vec<_>>(),
        reference.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &reference {
        assert!(built[name] == *bytes, "{} differs", name.display());
    }
}

#[test]
fn an_edit_before_the_write_behind_leaves_a_store_a_build_of_the_edit_reads() {
    let g = input("gen.mlir", compiler::aps::workload::generate(8, 2));
    let (dir, src, text) = (&g.dir, &g.src, &g.text);
    let cache = dir.path().join("cache");

    let editor = Builder::in_process(Some(open(&cache)));
    let ide = Ide::default();
    let analyze = |version, text: &str| {
        let change = OverlayChange::Full(text.to_string());
        editor
            .edit_overlay(src, version, change, &HandshakeSpec::default(), |db, o| {
                ide.analyze(db, src, o)
            })
            .unwrap()
    };
    analyze(1, text);
    // An edit of one function before the open's checks are written: the edited function is
    // written as it is checked, the others by the write-behind.
    let k = text.find("tor.addi").unwrap();
    let edited = format!("{}tor.subi{}", &text[..k], &text[k + "tor.addi".len()..]);
    assert!(analyze(2, &edited).messages.is_empty());
    let store = editor.store().unwrap();
    assert!(
        store.counters().writes > 0,
        "an edit's function is written as it is checked"
    );
    assert!(editor.write_behind());
    editor.wait_writes_behind();
    assert!(!editor.write_behind());
    drop(editor);

    fs::write(src, &edited).unwrap();
    let builder = Builder::in_process(Some(open(&cache)));
    let counts = build_counted(&builder, &spec(src, dir.path()));
    for kind in ["parse", "segmentation", "handler"] {
        assert_eq!(count(&counts, kind), 0, "{kind} executed: {counts:?}");
    }
}
