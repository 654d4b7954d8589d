//! Prewarming: the parallel evaluation before the compute step's walk does the
//! per-function and per-BLIF-file work once, the walk re-executes none of it, and the
//! outputs are those of the whole-file flow.

mod common;

use common::count;
use kiln_daemon::compute::{self, Memos};
use kiln_daemon::counters;
use kiln_daemon::db::Db;
use kiln_daemon::inputs::Workspace;
use kiln_daemon::prewarm;
use kiln_daemon::spec::OutputKind;
use std::fs;

#[test]
fn the_walk_reuses_what_prewarm_computed_and_outputs_match_the_whole_file_flow() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("gen.mlir");
    let n = 60;
    let text = compiler::aps::workload::generate(n, 3);
    fs::write(&src, &text).unwrap();
    let spec = common::spec(&src, dir.path());
    let mut ws = Workspace::new(Db::new(None), None);
    let memos = Memos::default();
    let resolved = ws.sync(&spec);
    prewarm::prewarm(&ws.db, &memos, &resolved);
    let warmed = ws.db.counters().snapshot();
    assert_eq!(count(&warmed, "segmentation"), n as u64, "{warmed:?}");
    assert_eq!(count(&warmed, "emit_function"), n as u64, "{warmed:?}");
    assert_eq!(
        count(&warmed, "emit_frame"),
        0,
        "the file is assembled by the walk"
    );

    let computed = compute::compute(&ws.db, &memos, &spec, &resolved);
    let walk = counters::diff(&warmed, &ws.db.counters().snapshot());
    for kind in [
        "parse",
        "segmentation",
        "handler",
        "assemble",
        "emit_function",
    ] {
        assert_eq!(
            count(&walk, kind),
            0,
            "{kind} re-executed by the walk: {walk:?}"
        );
    }
    assert_eq!(count(&walk, "emit_frame"), 1, "{walk:?}");

    let whole = compiler::flow::aps::build(&text, "gen", None, &compiler::limits::Limits::DEFAULT);
    for kind in [OutputKind::Cmt2, OutputKind::RulesJson] {
        let o = computed.outputs().find(|o| o.kind == kind).unwrap();
        let expected = whole.output(kind).unwrap().concat();
        assert!(o.bytes.to_vec() == expected, "{kind:?} differs");
    }

    // Inputs already prewarmed are not evaluated again (an edit goes straight to the walk).
    let before = ws.db.counters().snapshot();
    prewarm::prewarm(&ws.db, &memos, &resolved);
    let again = counters::diff(&before, &ws.db.counters().snapshot());
    assert!(again.values().all(|c| c.executions == 0), "{again:?}");
}
