//! Parallel evaluation of a build's independent queries before the compute step's
//! sequential walk ([`crate::compute::compute`]).
//!
//! The per-function queries of an APS file (segmentation, handler output per block,
//! assembly, emission: [`db::aps::function_emitted`]) and each BLIF file's outputs
//! ([`db::blif::blif_outputs`], built from per-model AIG queries) do not depend on one another.
//! Salsa databases clone into handles that run queries concurrently and share memos, so
//! one handle per core (or per job of the request's `jobs`) takes work items off a shared
//! counter; the walk that follows then finds every value memoized and assembles the
//! outputs in source order, so outputs are the same bytes whatever the interleaving. Query
//! executions are also the same: each query runs once (salsa makes a second caller wait
//! for the first).
//!
//! Only inputs this database has not prewarmed before are evaluated: a cold build of a
//! file gains from both cores, while an edit recomputes a function or two and goes
//! straight to the walk. A cancelled (or panicking) worker stops quietly: the walk meets
//! the same cancellation (or failure) and handles it as without prewarming.
//!
//! Assumes queries are pure functions of their inputs (true of every `db` query).

use crate::db::{self, BlifFile, Db, SourceFile};
use crate::spec::Flow;
use crate::workspace::Loaded;
use compiler::fxhash::FxHashSet;
use std::panic::AssertUnwindSafe;
use std::sync::Mutex;

/// One unit of parallel work.
#[derive(Clone)]
enum Item {
    /// An APS file's design-level queries (split, context), needed by all its functions.
    Aps(SourceFile),
    Function(SourceFile, String),
    Blif(BlifFile),
}

/// The inputs whose queries [`prewarm_inputs`] has evaluated on a database.
#[derive(Debug, Default)]
pub(crate) struct Prewarmed(Mutex<FxHashSet<salsa::Id>>);

/// Evaluate the independent queries of the inputs among `loaded` not seen before, on
/// `jobs` threads, 0: every core up to 8 (the compute step passes the jobs it is about to
/// query and the request's `jobs`).
pub(crate) fn prewarm_inputs<'a>(
    db: &Db,
    seen: &Prewarmed,
    loaded: impl Iterator<Item = &'a Loaded>,
    jobs: usize,
) {
    let files = new_inputs(seen, loaded);
    if files.len() < 2 && !files.iter().any(|i| matches!(i, Item::Aps(_))) {
        return;
    }
    let items = expand(db, files);
    // One thread: the items run here, in the walk's stead (same work, same counts).
    let threads = match jobs {
        0 => compiler::par::cores().min(8),
        n => n.min(compiler::par::MAX_JOBS),
    }
    .clamp(1, items.len().max(1));
    run(db, &items, threads, work);
}

/// Run `check` on the functions `symbols` of APS file `file` on every core (up to 8), each
/// thread on a database handle of its own: an editor's freshly opened document, whose
/// analysis then finds them memoized ([`crate::ide`] passes its checks: segmentation and
/// block rules, no emission, store writes left for the write-behind). With one thread the
/// checks run here, before the analysis walk (the same work). A cancellation stops them all.
pub(crate) fn prewarm_checks(
    db: &Db,
    file: SourceFile,
    symbols: &[String],
    check: fn(&Db, SourceFile, String),
) {
    let threads = compiler::par::cores().min(8);
    run(db, symbols, threads, |db, symbol| {
        check(db, file, symbol.clone())
    });
}

/// The MLIR (APS) and BLIF inputs not prewarmed before on this database.
fn new_inputs<'a>(seen: &Prewarmed, loaded: impl Iterator<Item = &'a Loaded>) -> Vec<Item> {
    // An Fx set: with SipHash, this check was 15% of a no-op library build.
    let mut seen = seen.0.lock().unwrap_or_else(|e| e.into_inner());
    let mut out = Vec::new();
    for loaded in loaded {
        let (item, id) = match loaded {
            Loaded::Mlir(f, _) => (Item::Aps(*f), salsa::plumbing::AsId::as_id(f)),
            Loaded::Blif(f, _) => (Item::Blif(*f), salsa::plumbing::AsId::as_id(f)),
            _ => continue,
        };
        if seen.insert(id) {
            out.push(item);
        }
    }
    out
}

/// Each APS file's functions as items of their own (after their file's design-level
/// queries, on this thread); BLIF files as they are.
fn expand(db: &Db, files: Vec<Item>) -> Vec<Item> {
    let mut items = Vec::with_capacity(files.len());
    let caught = salsa::Cancelled::catch(AssertUnwindSafe(|| {
        for item in files {
            let Item::Aps(f) = item else {
                items.push(item);
                continue;
            };
            if *db::aps::mlir_flow(db, f) != Flow::Aps {
                continue;
            }
            let functions = &f.split(db).functions;
            items.extend(
                functions
                    .iter()
                    .map(|i| Item::Function(f, i.symbol.clone())),
            );
        }
    }));
    if caught.is_err() {
        items.clear();
    }
    items
}

/// Run `work` on each of `items` on `threads` database handles of their own
/// ([`compiler::par`]); a cancellation (a new input) stops them all.
fn run<T: Sync>(db: &Db, items: &[T], threads: usize, work: impl Fn(&Db, &T) + Sync) {
    let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
        compiler::par::for_each_with(threads, items, || db.clone(), work, |_, ()| {});
    }));
}

/// One item's queries.
fn work(db: &Db, item: &Item) {
    match item {
        Item::Aps(f) => {
            let _ = db::aps::design_context(db, *f);
        }
        Item::Function(f, symbol) => {
            let _ = db::aps::function_emitted(db, *f, symbol.clone(), compiler::aps::Style::Fsm);
        }
        Item::Blif(f) => {
            let _ = db::blif::blif_outputs(db, *f, None, false);
        }
    }
}

#[cfg(test)]
mod tests {
    // Prewarming: the parallel evaluation before the compute step's walk does the
    // per-function and per-BLIF-file work once, the walk re-executes none of it, and the
    // outputs are those of the whole-file flow.

    use super::prewarm_inputs;
    use crate::compute::{self, Memos};
    use crate::counters::{self, Snapshot};
    use crate::db::Db;
    use crate::spec::{BuildSpec, OutputKind};
    use crate::workspace::Resolved;
    use crate::workspace::Workspace;
    use std::fs;

    /// Executions of `kind` in a counter snapshot (0 when it never ran).
    fn count(s: &Snapshot, kind: &str) -> u64 {
        s.get(kind).map_or(0, |c| c.executions)
    }

    /// Evaluate the independent queries of `resolved`'s new inputs on every core.
    fn prewarm(db: &Db, memos: &Memos, resolved: &Resolved) {
        let loaded = resolved
            .inputs
            .iter()
            .flat_map(|v| v.iter().map(|(_, l)| l));
        prewarm_inputs(db, &memos.prewarmed, loaded, 0);
    }

    #[test]
    fn the_walk_reuses_what_prewarm_computed_and_outputs_match_the_whole_file_flow() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("gen.mlir");
        let n = 60;
        let text = compiler::aps::workload::generate(n, 3);
        fs::write(&src, &text).unwrap();
        let spec = BuildSpec {
            inputs: vec![src.clone()],
            out_dir: dir.path().join("out"),
            ..BuildSpec::default()
        };
        let mut ws = Workspace::new(Db::new(None), None);
        let memos = Memos::default();
        let resolved = ws.sync(&spec);
        prewarm(&ws.db, &memos, &resolved);
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

        let whole =
            compiler::flow::aps::build(&text, "gen", None, &compiler::limits::Limits::DEFAULT);
        for kind in [OutputKind::Cmt2, OutputKind::RulesJson] {
            let o = computed
                .results()
                .flat_map(|r| r.outputs.iter())
                .find(|o| o.kind == kind)
                .unwrap();
            let expected = whole.output(kind).unwrap().concat();
            assert!(o.bytes.to_vec() == expected, "{kind:?} differs");
        }

        // Inputs already prewarmed are not evaluated again (an edit goes straight to the walk).
        let before = ws.db.counters().snapshot();
        prewarm(&ws.db, &memos, &resolved);
        let again = counters::diff(&before, &ws.db.counters().snapshot());
        assert!(again.values().all(|c| c.executions == 0), "{again:?}");
    }
}
