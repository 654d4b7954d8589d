//! `kiln why`'s explanations: after an edit of one function, exactly that function's
//! queries with the changed byte range; after a build-id change, every entry says so; after
//! a corrupted cache entry, that entry's query says so.

mod common;

use kiln_daemon::build::Builder;
use kiln_daemon::build::Spares;
use kiln_daemon::request::BuildSpec;
use kiln_daemon::testing::Db;
use kiln_daemon::why::{CacheOutcome, Reason};
use std::fs;
use std::path::PathBuf;

fn builder(cache: &std::path::Path, build_id: &str) -> Builder {
    let store = kiln_cache::Store::open(cache, kiln_cache::DEFAULT_CAP_BYTES).unwrap();
    Builder::on(
        Db::with_build_id(Some(store), build_id),
        None,
        Spares::OnRewrite,
    )
}

#[test]
fn an_edit_of_one_function_explains_exactly_its_queries_and_the_byte_range() {
    let n = 64;
    let g = common::generated_input("big.mlir", n);
    let ws = g.built();
    let cold = ws.explanation();
    assert!(cold.entries.iter().all(|e| e.reason == Reason::NewInput));
    assert!(cold.entries.len() > n, "{}", cold.entries.len());

    let (edited, k) = common::rename_op(&g.text, "f40");
    fs::write(&g.src, &edited).unwrap();
    assert!(ws.build(&g.spec).ok());
    let e = ws.explanation();
    // "tor.addi" → "tor.subi": bytes k+4..k+7 differ ("add" / "sub").
    let range = k + 4..k + 7;
    assert_eq!(e.changes.len(), 1, "{e:?}");
    assert_eq!(e.changes[0].range, range);
    assert_eq!(e.changes[0].items, vec!["f40".to_string()]);
    let items: std::collections::BTreeSet<_> = e
        .entries
        .iter()
        .filter_map(|x| x.subject.as_ref()?.item.clone())
        .collect();
    assert_eq!(items, ["f40".to_string()].into(), "{}", e.render());
    for q in [
        "function_text",
        "function_op",
        "segmentation",
        "block_rules",
    ] {
        assert!(
            e.entries.iter().any(|x| x.query == q),
            "{q}: {}",
            e.render()
        );
    }
    for x in &e.entries {
        let Reason::InputChanged {
            file,
            item,
            range: r,
            start,
        } = &x.reason
        else {
            panic!("{}", x.line());
        };
        assert_eq!((file, r), (&g.src, &range), "{}", x.line());
        assert_eq!(start, &e.changes[0].start, "{}", x.line());
        let own = x.subject.as_ref().and_then(|s| s.item.clone());
        assert_eq!(item, &own, "{}", x.line());
    }
    // Located as diagnostics are: 1-based line and column of the first changed byte.
    let before = &edited[..range.start];
    let line = before.matches('\n').count() + 1;
    let col = range.start - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    assert_eq!(
        (e.changes[0].start.line, e.changes[0].start.col),
        (line, col)
    );
    let text = e.render();
    let src = g.src.display();
    assert!(
        text.starts_with(&format!(
            "{} queries re-ran because of 1 edit in 1 file: function @f40 ({src})\n",
            e.entries.len()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "@f40 [segmentation]: edited at {src}:{line}:{col}"
        )),
        "{text}"
    );
    // Filtering by function or output keeps the function's entries.
    let by_fn = e.filtered(Some("@f40"));
    assert!(!by_fn.entries.is_empty());
    assert!(
        by_fn
            .entries
            .iter()
            .all(|x| x.subject.as_ref().unwrap().item.as_deref() == Some("f40"))
    );
    let out = g.dir.path().join("out/big.cmt2.mlir");
    assert_eq!(
        e.filtered(Some(out.to_str().unwrap())).entries.len(),
        e.entries.len()
    );
}

/// `m.mlir` of `n` generated functions in a fresh directory, built once under build id
/// `build-a` into the persistent cache `<dir>/cache` (flushed): the directory, the spec
/// and the cache directory.
fn built_once(n: usize) -> (tempfile::TempDir, BuildSpec, PathBuf) {
    let common::Generated { dir, spec, .. } = common::generated_input("m.mlir", n);
    let cache = dir.path().join("cache");
    let ws = builder(&cache, "build-a");
    assert!(ws.build(&spec).ok());
    ws.store().unwrap().flush().unwrap();
    (dir, spec, cache)
}

#[test]
fn after_a_build_id_change_every_entry_says_so() {
    let (_dir, spec, cache) = built_once(8);
    // The same build id again: no change to report.
    {
        let ws = builder(&cache, "build-a");
        assert!(ws.build(&spec).ok());
        let e = ws.explanation();
        assert!(
            e.entries.iter().all(|x| x.reason == Reason::NewInput),
            "{}",
            e.render()
        );
        assert!(e.entries.iter().any(|x| x.cache == Some(CacheOutcome::Hit)));
    }
    let ws = builder(&cache, "build-b");
    assert!(ws.build(&spec).ok());
    let e = ws.explanation();
    assert!(!e.entries.is_empty());
    let changed = Reason::BuildIdChanged {
        was: "build-a".into(),
        now: "build-b".into(),
    };
    for x in &e.entries {
        assert_eq!(x.reason, changed, "{}", x.line());
        assert!(
            x.line()
                .contains("build id changed (was build-a, now build-b)")
        );
        assert_ne!(x.cache, Some(CacheOutcome::Hit), "{}", x.line());
    }
    let misses = e.entries.iter().filter(|x| x.cache.is_some()).count();
    assert!(misses >= 8, "every cached query missed: {}", e.render());
}

#[test]
fn a_corrupted_cache_entry_is_named_by_its_query() {
    let (_dir, spec, cache) = built_once(4);
    // Flip the last byte of one entry of the largest pack (a loaded machine may see the
    // store's background flush write a second pack during the build: each key is in one).
    let mut packs: Vec<_> = fs::read_dir(cache.join("packs"))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let file = fs::File::open(&path).unwrap();
            let size = file.metadata().unwrap().len();
            let records = kiln_cache::pack::read(&file, size).unwrap().records;
            (records.len(), path, records)
        })
        .collect();
    packs.sort_by_key(|p| p.0);
    let (_, pack, records) = packs.pop().expect("a pack");
    assert!(!records.is_empty(), "{pack:?}");
    let victim = records[records.len() / 2];
    let mut bytes = fs::read(&pack).unwrap();
    bytes[(victim.offset + victim.len - 1) as usize] ^= 0x55;
    fs::write(&pack, &bytes).unwrap();

    let ws = builder(&cache, "build-a");
    assert!(ws.build(&spec).ok());
    let e = ws.explanation();
    let corrupt: Vec<_> = e
        .entries
        .iter()
        .filter(|x| x.cache == Some(CacheOutcome::Miss(kiln_cache::Miss::Corrupt)))
        .collect();
    assert_eq!(corrupt.len(), 1, "{}", e.render());
    let line = corrupt[0].line();
    assert!(line.contains("cache entry corrupt"), "{line}");
    assert!(
        ["segmentation", "block_rules"].contains(&corrupt[0].query.as_str()),
        "{line}"
    );
    assert!(
        corrupt[0].subject.as_ref().unwrap().item.is_some(),
        "{line}"
    );
    // Every other cached query was served from the cache.
    let others = e.entries.iter().filter(|x| x.cache.is_some()).count();
    let hits = e
        .entries
        .iter()
        .filter(|x| x.cache == Some(CacheOutcome::Hit))
        .count();
    assert_eq!(hits + 1, others, "{}", e.render());
}
