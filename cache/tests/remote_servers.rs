//! The remote tier against real servers, named by environment variables:
//! `KILN_TEST_REMOTE_HTTP` (e.g. nginx with WebDAV PUT) and `KILN_TEST_REMOTE_GRPC`
//! (e.g. BuildGrid), with `KILN_TEST_REMOTE_CA` (a PEM file) and `KILN_TEST_REMOTE_HEADER`
//! (`NAME=VALUE`) for servers behind TLS and authentication. `scripts/bazel_test.sh` starts
//! them on loopback and runs these tests with `--ignored`; without the variables they fail
//! rather than pass vacuously.
//!
//! Each test writes entries through a store with an empty local directory A (uploading
//! them), then reads them through a second store with an empty directory B: every lookup
//! must be a remote hit with equal values, including one entry larger than a REAPI batch
//! (ByteStream over gRPC).

use kiln_cache::remote::{Options, Remote, headers};
use kiln_cache::{Key, Store};
use std::sync::Arc;

fn server(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| panic!("{var} must name a running server"))
}

/// Deterministic pseudo-random bytes (xorshift), incompressible enough to be honest.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Default options with the CA and header the environment names, if any.
fn options() -> Options {
    let ca = std::env::var_os("KILN_TEST_REMOTE_CA").map(|p| std::fs::read(p).unwrap());
    let header = std::env::var("KILN_TEST_REMOTE_HEADER").ok();
    Options {
        ca_pem: ca.map(Arc::from),
        headers: headers::parse_all(header.as_deref()).unwrap(),
        ..Options::default()
    }
}

fn round_trip(url: &str) {
    let dir = tempfile::tempdir().unwrap();
    let open = |name: &str| {
        Store::open(dir.path().join(name), u64::MAX)
            .unwrap()
            .with_remote(Remote::connect_with(url, options()).unwrap())
    };
    // A unique build id per run: the server may hold entries from earlier runs.
    let run = format!(
        "test-{}-{:?}",
        std::process::id(),
        std::time::SystemTime::now()
    );
    let sizes = [0usize, 100, 70_000, 5 * 1024 * 1024];
    let entries: Vec<(Key, Vec<u8>)> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            (
                Key::new(&run, "blob", &[&[i as u8]]),
                bytes(i as u64 + 7, n),
            )
        })
        .collect();

    let a = open("a");
    for (k, v) in &entries {
        assert_eq!(a.get::<Vec<u8>>(k), None, "fresh key already cached");
        a.put(k, v).unwrap();
    }
    let ca = a.counters();
    assert_eq!(ca.remote_misses, entries.len() as u64);
    assert_eq!(ca.remote_uploads, entries.len() as u64, "{ca:?}");
    assert_eq!(ca.remote_errors, 0, "{ca:?}");

    let b = open("b");
    for (k, v) in &entries {
        assert_eq!(
            b.get::<Vec<u8>>(k).as_ref(),
            Some(v),
            "remote value differs"
        );
    }
    let cb = b.counters();
    assert_eq!(cb.remote_hits, entries.len() as u64, "{cb:?}");
    assert_eq!(
        (cb.hits, cb.remote_rejected, cb.remote_errors),
        (0, 0, 0),
        "{cb:?}"
    );
    // Remote hits were kept locally: a third read is a local hit.
    for (k, v) in &entries {
        assert_eq!(b.get::<Vec<u8>>(k).as_ref(), Some(v));
    }
    assert_eq!(b.counters().hits, entries.len() as u64);
}

#[test]
#[ignore = "needs a server: run by scripts/bazel_test.sh"]
fn http_cache_round_trip() {
    round_trip(&server("KILN_TEST_REMOTE_HTTP"));
}

#[test]
#[ignore = "needs a server: run by scripts/bazel_test.sh"]
fn grpc_cache_round_trip() {
    round_trip(&server("KILN_TEST_REMOTE_GRPC"));
}
