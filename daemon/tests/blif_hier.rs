//! A deep BLIF hierarchy through the daemon's per-model queries: the same bytes as the whole
//! file lowered at once, and an edit of the deepest model relowers that model only. Test
//! threads have 2 MiB stacks: a query recursing once per level of the hierarchy would
//! overflow them long before 20,000 levels.

mod common;

use common::count;
use compiler::blif::generate::and_chain;
use kiln_daemon::build::Builder;
use std::fs;

/// What `kiln aig` writes for a BLIF text: the whole file lowered at once.
fn whole_file_aig(text: &str) -> Vec<u8> {
    let parsed = compiler::blif::parse(text).unwrap();
    let lowered = compiler::aig::lower_file(&parsed.file).unwrap();
    compiler::aig::write_aiger_binary(&lowered.top().aig)
}

#[test]
fn a_deep_chain_through_the_daemon_equals_the_whole_file_and_edits_stay_local() {
    const N: usize = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("chain.blif");
    let text = and_chain(N);
    fs::write(&src, &text).unwrap();
    let spec = common::spec(&src, dir.path());
    let ws = Builder::in_process(None);
    let d = common::build_counted(&ws, &spec);
    assert_eq!(count(&d, "aig"), N as u64, "each model lowered once: {d:?}");
    let out = dir.path().join("out/chain.aig");
    let bytes = fs::read(&out).unwrap();
    assert_eq!(bytes, whole_file_aig(&text));
    let g = compiler::aig::read_aiger(&bytes).unwrap();
    assert_eq!((g.and_count(), g.depth() as usize), (N, N));

    // The deepest model's AND becomes `b & !c`: same interface, so no other model is
    // lowered again.
    let k = text.rfind("11 1").unwrap();
    let edited = format!("{}10 1{}", &text[..k], &text[k + 4..]);
    fs::write(&src, &edited).unwrap();
    let d = common::build_counted(&ws, &spec);
    assert_eq!(count(&d, "aig"), 1, "{d:?}");
    assert_eq!(fs::read(&out).unwrap(), whole_file_aig(&edited));
    assert_ne!(fs::read(&out).unwrap(), bytes);
}
