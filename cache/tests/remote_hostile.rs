//! The remote tier against hostile servers on loopback: one that accepts connections and
//! never answers (a blackhole), one that streams an endless body, and one whose entries an
//! attacker re-keyed. Each server is a small HTTP/1.1 responder on a std thread.

#[path = "../../tests/support/hostile.rs"]
mod support;

use kiln_cache::remote::sign::SigningKey;
use kiln_cache::remote::{self, Fault, Options, Remote};
use kiln_cache::{Key, Store};
use std::collections::BTreeMap;
use std::io::Write;
use std::net::TcpListener;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{blackhole, http_ok, http_server, peak_kib, read_http_request, reset_peak};

fn key(i: u32) -> Key {
    Key::new("hostile-test", "kind", &[&i.to_le_bytes()])
}

#[test]
fn a_blackholing_server_costs_a_build_one_short_time_out() {
    let url = format!("http://127.0.0.1:{}", blackhole());
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), u64::MAX)
        .unwrap()
        .with_remote(Remote::connect(&url).unwrap());
    // A build's lookups from several threads at once, then more lookups and uploads.
    let t = Instant::now();
    std::thread::scope(|s| {
        for th in 0..4u32 {
            let store = &store;
            s.spawn(move || {
                for i in 0..25 {
                    let k = key(th * 100 + i);
                    assert_eq!(store.get::<u32>(&k), None);
                    store.put(&k, &i).unwrap();
                }
            });
        }
    });
    let cost = t.elapsed();
    eprintln!("blackhole: 100 lookups + 100 uploads on 4 threads cost {cost:?}");
    assert!(cost <= Duration::from_secs(5), "{cost:?}");
    assert!(store.remote().unwrap().is_disabled());
    let c = store.counters();
    assert_eq!(c.remote_hits, 0);
    assert!(c.remote_errors >= 1);
}

/// Bytes the endless server managed to send.
static SENT: AtomicU64 = AtomicU64::new(0);

/// A server whose action result names a 1 KiB blob and whose blob body never ends
/// (no `Content-Length`, the connection streams zeros), or whose action result is endless.
fn endless(endless_ac: bool) -> String {
    http_server(move |mut s, path| {
        if path.contains("/ac/") && !endless_ac {
            let ar = remote::make_action_result(&remote::pb::reapi::Digest {
                hash: "ab".repeat(32),
                size_bytes: 1024,
            });
            return http_ok(&mut s, &prost::Message::encode_to_vec(&ar));
        }
        let _ = write!(s, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
        let chunk = vec![0u8; 64 * 1024];
        while s.write_all(&chunk).is_ok() {
            SENT.fetch_add(chunk.len() as u64, Ordering::Relaxed);
        }
    })
}

#[test]
fn an_endless_body_is_cut_off_at_its_bound() {
    for endless_ac in [false, true] {
        let url = endless(endless_ac);
        let r = Remote::connect(&url).unwrap();
        let base = peak_kib();
        reset_peak();
        let t = Instant::now();
        let got = r.get(&key(1));
        let peak = peak_kib();
        eprintln!(
            "endless {} body: {:?} after {:?}; peak RSS {} KiB (before: {} KiB); server sent {} KiB",
            if endless_ac { "action-result" } else { "blob" },
            got,
            t.elapsed(),
            peak,
            base,
            SENT.load(Ordering::Relaxed) / 1024
        );
        assert!(matches!(got, Err(Fault::Rejected(_))), "{got:?}");
        // The bound is 1 KiB (blob) or 1 MiB (action result); allow for the runtime's
        // buffers, nowhere near the gigabytes an unbounded read reaches.
        assert!(peak < base + 64 * 1024, "peak {peak} KiB from {base} KiB");
        assert!(t.elapsed() < Duration::from_secs(5));
    }
}

type Objects = Arc<Mutex<BTreeMap<String, Vec<u8>>>>;

/// An in-memory Bazel HTTP cache (GET/PUT), one request per connection.
fn honest_server() -> (String, Objects, Arc<AtomicU64>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let objects: Objects = Arc::default();
    let puts = Arc::new(AtomicU64::new(0));
    let (o, p) = (objects.clone(), puts.clone());
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let Some((method, path, body)) = read_http_request(&s) else {
                continue;
            };
            let mut s = s;
            let mut map = o.lock().unwrap();
            if method == "PUT" {
                p.fetch_add(1, Ordering::Relaxed);
                map.insert(path, body);
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
            } else if let Some(b) = map.get(&path) {
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    b.len()
                );
                let _ = s.write_all(b);
            } else {
                let _ = write!(
                    s,
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
            }
        }
    });
    (url, objects, puts)
}

/// Point `to`'s action result at the blob `from`'s entry, re-keyed: the blob rewritten to
/// start with `to`'s key (what anyone with write access to the cache can do).
fn rekey(objects: &Objects, from: &Key, to: &Key) {
    let mut map = objects.lock().unwrap();
    let ar_bytes = map[&format!("/ac/{}", from.to_hex())].clone();
    let ar: remote::pb::reapi::ActionResult = prost::Message::decode(ar_bytes.as_slice()).unwrap();
    let d = remote::entry_blob_digest(&ar).unwrap();
    let mut blob = map[&format!("/cas/{}", d.hash)].clone();
    blob[..32].copy_from_slice(to.as_bytes());
    let nd = remote::blob_digest(&blob);
    map.insert(format!("/cas/{}", nd.hash), blob);
    let nar = remote::make_action_result(&nd);
    map.insert(
        format!("/ac/{}", to.to_hex()),
        prost::Message::encode_to_vec(&nar),
    );
}

fn signed(key: &[u8]) -> Options {
    Options {
        signing: Some(SigningKey::new(key)),
        ..Options::default()
    }
}

#[test]
fn signed_mode_rejects_re_keyed_and_unsigned_entries() {
    let (url, objects, _) = honest_server();
    let dir = tempfile::tempdir().unwrap();
    let open = |name: &str, o: Options| {
        Store::open(dir.path().join(name), u64::MAX)
            .unwrap()
            .with_remote(Remote::connect_with(&url, o).unwrap())
    };
    // CI writes signed entries for keys 1 and 2.
    let ci = open("ci", signed(b"ci secret"));
    ci.put(&key(1), &111u32).unwrap();
    ci.put(&key(2), &222u32).unwrap();
    ci.flush().unwrap();
    let reader = open("reader", signed(b"ci secret"));
    assert_eq!(reader.get::<u32>(&key(1)), Some(111));
    // Someone with write access moves key 1's entry to key 3.
    ci.put(&key(3), &333u32).unwrap();
    rekey(&objects, &key(1), &key(3));
    let fresh = open("fresh", signed(b"ci secret"));
    assert_eq!(fresh.get::<u32>(&key(3)), None, "re-keyed entry served");
    assert_eq!(fresh.counters().remote_rejected, 1);
    // Without signing, the same forgery is served: what signing adds.
    let unsigned = open("unsigned", Options::default());
    assert_eq!(
        unsigned
            .remote()
            .unwrap()
            .get(&key(3))
            .unwrap()
            .map(|e| e.len()),
        Some(ci_entry_len(&objects, &key(3)))
    );
    // An unsigned entry, and one signed with another key, are rejected too.
    unsigned.put(&key(4), &444u32).unwrap();
    let other = open("other", signed(b"not the ci key"));
    other.put(&key(5), &555u32).unwrap();
    let checker = open("checker", signed(b"ci secret"));
    assert_eq!(checker.get::<u32>(&key(4)), None);
    assert_eq!(checker.get::<u32>(&key(5)), None);
    assert_eq!(checker.get::<u32>(&key(2)), Some(222));
    assert_eq!(checker.counters().remote_rejected, 2);
}

/// The length of the signed entry stored for `k` (blob minus key and tag).
fn ci_entry_len(objects: &Objects, k: &Key) -> usize {
    let map = objects.lock().unwrap();
    let ar: remote::pb::reapi::ActionResult =
        prost::Message::decode(map[&format!("/ac/{}", k.to_hex())].as_slice()).unwrap();
    let d = remote::entry_blob_digest(&ar).unwrap();
    map[&format!("/cas/{}", d.hash)].len() - 32
}

#[test]
fn a_read_only_client_uploads_nothing() {
    let (url, _, puts) = honest_server();
    let dir = tempfile::tempdir().unwrap();
    let ro = Options {
        upload: false,
        ..Options::default()
    };
    let store = Store::open(dir.path(), u64::MAX)
        .unwrap()
        .with_remote(Remote::connect_with(&url, ro).unwrap());
    assert_eq!(store.get::<u32>(&key(9)), None);
    store.put(&key(9), &9u32).unwrap();
    store.flush().unwrap();
    assert_eq!(puts.load(Ordering::Relaxed), 0);
    assert_eq!(store.counters().remote_uploads, 0);
    assert_eq!(store.counters().remote_misses, 1);
}
