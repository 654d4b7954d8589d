//! Prewarming: the parallel evaluation before the driver's walk does the per-function and
//! per-BLIF-file work once, the walk re-executes none of it, and the outputs are those of
//! the whole-file build.

mod common;

use common::count;
use kiln_daemon::counters;
use kiln_daemon::db::{Db, OutputKind};
use kiln_daemon::driver::{self, Workspace};
use kiln_daemon::prewarm;
use std::fs;

#[test]
fn the_walk_reuses_what_prewarm_computed_and_outputs_match_build_file() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("gen.mlir");
    let n = 60;
    let text = compiler::aps::workload::generate(n, 3);
    fs::write(&src, &text).unwrap();
    let spec = common::spec(&src, dir.path());
    let mut ws = Workspace::new(Db::new(None));
    let resolved = ws.sync(&spec);
    prewarm::prewarm(&ws.db, &resolved);
    let warmed = ws.db.counters().snapshot();
    assert_eq!(count(&warmed, "segmentation"), n as u64, "{warmed:?}");
    assert_eq!(count(&warmed, "emit_function"), n as u64, "{warmed:?}");
    assert_eq!(
        count(&warmed, "emit_frame"),
        0,
        "the file is assembled by the walk"
    );

    let computed = driver::compute(&ws.db, &spec, &resolved);
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

    let module = compiler::mlir::parse(&text).unwrap();
    let whole = compiler::aps::build_file(&module, "gen").unwrap();
    let output = |k: OutputKind| {
        let o = computed.outputs().find(|o| o.kind == k).unwrap();
        String::from_utf8(o.bytes.to_vec()).unwrap()
    };
    assert!(
        output(OutputKind::Cmt2) == whole.cmt2_text(),
        "cmt2 differs"
    );
    assert!(
        output(OutputKind::RulesJson) == whole.json_text(),
        "json differs"
    );

    // Inputs already prewarmed are not evaluated again (an edit goes straight to the walk).
    let before = ws.db.counters().snapshot();
    prewarm::prewarm(&ws.db, &resolved);
    let again = counters::diff(&before, &ws.db.counters().snapshot());
    assert!(again.values().all(|c| c.executions == 0), "{again:?}");
}
