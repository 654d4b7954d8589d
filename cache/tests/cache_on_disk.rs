//! The cache on disk against damage and other users: a huge sparse pack and a pack whose
//! index lies are skipped (logged) at open in bounded time and memory; two keys swapped in
//! a pack (index checksum recomputed) are detected as corrupt; the cache directory is 0700
//! with 0600 files, and a directory owned by another user is refused.

#[path = "../../tests/support/hostile.rs"]
mod support;

use kiln_cache::{Key, Store};
use sha2::{Digest, Sha256};
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::{peak_kib, reset_peak, second_user};

fn key(i: u32) -> Key {
    Key::new("disk-test", "kind", &[&i.to_le_bytes()])
}

fn packs(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(root.join("packs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pack"))
        .collect();
    v.sort();
    v
}

/// A pack's header (magic and version), as the store writes it.
fn pack_header() -> Vec<u8> {
    let mut h = kiln_cache::pack::PACK_MAGIC.to_vec();
    h.extend_from_slice(&kiln_cache::pack::PACK_VERSION.to_le_bytes());
    h
}

/// A fresh cache directory whose store holds `values[i]` under `key(i + 1)`, flushed and
/// closed: the temporary directory and the cache root in it.
fn cache_holding(values: &[u32]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("cache");
    let s = Store::open(&root, u64::MAX).unwrap();
    for (i, v) in (1..).zip(values) {
        s.put(&key(i), v).unwrap();
    }
    s.flush().unwrap();
    (dir, root)
}

#[test]
fn huge_and_lying_packs_are_skipped_at_open_in_bounded_time_and_memory() {
    let (_dir, root) = cache_holding(&[1]);
    // A 20 GiB sparse pack with a valid header.
    let huge = root.join("packs/0-huge.pack");
    let f = fs::File::create(&huge).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&f, &pack_header(), 0).unwrap();
    f.set_len(20 << 30).unwrap();
    // A 900 MiB sparse pack whose trailer claims 15 million records (a 720 MB index).
    let lying = root.join("packs/1-lying.pack");
    let f = fs::File::create(&lying).unwrap();
    let size: u64 = 900 << 20;
    f.set_len(size).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&f, &pack_header(), 0).unwrap();
    let mut trailer = 15_000_000u64.to_le_bytes().to_vec();
    trailer.extend_from_slice(&[0u8; 32]);
    trailer.extend_from_slice(kiln_cache::pack::INDEX_MAGIC);
    std::os::unix::fs::FileExt::write_all_at(&f, &trailer, size - 48).unwrap();
    drop(f);

    let base = peak_kib();
    reset_peak();
    let t = Instant::now();
    let s = Store::open(&root, u64::MAX).unwrap();
    let took = t.elapsed();
    let peak = peak_kib();
    eprintln!(
        "open with a 20 GiB sparse pack and a lying 900 MiB pack: {took:?}, peak RSS {peak} KiB (before {base} KiB)"
    );
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert!(peak < base + 100 * 1024, "peak {peak} KiB");
    // The good pack still serves; the bad ones are skipped, not deleted.
    assert_eq!(s.get::<u32>(&key(1)), Some(1));
    assert!(huge.exists() && lying.exists());
}

/// Swap the keys of the first two records of `pack`, in the records and the index, and
/// recompute the index checksum: a consistent pack that lies about what it holds.
fn swap_first_two_keys(pack: &Path) {
    let mut b = fs::read(pack).unwrap();
    let n = b.len();
    let count = u64::from_le_bytes(b[n - 48..n - 40].try_into().unwrap()) as usize;
    let index_start = n - 48 - count * 48;
    let row = |i: usize| index_start + i * 48;
    let off = |b: &[u8], i: usize| {
        u64::from_le_bytes(b[row(i) + 32..row(i) + 40].try_into().unwrap()) as usize
    };
    let (o0, o1) = (off(&b, 0) - 40, off(&b, 1) - 40);
    let k0: Vec<u8> = b[o0..o0 + 32].to_vec();
    let k1: Vec<u8> = b[o1..o1 + 32].to_vec();
    b[o0..o0 + 32].copy_from_slice(&k1);
    b[o1..o1 + 32].copy_from_slice(&k0);
    b[row(0)..row(0) + 32].copy_from_slice(&k1);
    b[row(1)..row(1) + 32].copy_from_slice(&k0);
    let sum = Sha256::digest(&b[index_start..n - 48]);
    b[n - 40..n - 8].copy_from_slice(&sum);
    fs::write(pack, b).unwrap();
}

#[test]
fn swapped_keys_in_a_pack_are_corrupt_not_hits() {
    let (_dir, root) = cache_holding(&[111, 222]);
    let [pack] = packs(&root).try_into().unwrap();
    swap_first_two_keys(&pack);
    let s = Store::open(&root, u64::MAX).unwrap();
    assert_eq!(s.get::<u32>(&key(1)), None);
    assert_eq!(s.get::<u32>(&key(2)), None);
    assert_eq!(s.counters().corrupt, 2);
}

#[test]
fn the_cache_is_private() {
    let (_dir, root) = cache_holding(&[1]);
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&root), 0o700);
    assert_eq!(mode(&root.join("packs")), 0o700);
    for p in packs(&root) {
        assert_eq!(mode(&p), 0o600, "{}", p.display());
    }
    // A cache directory created world-readable by an earlier version is tightened.
    fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
    Store::open(&root, u64::MAX).unwrap();
    assert_eq!(mode(&root), 0o700);
}

#[test]
fn a_cache_directory_owned_by_another_user_is_refused() {
    let Some((uid, gid)) = second_user() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("cache");
    fs::create_dir(&root).unwrap();
    fs::set_permissions(&root, fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::chown(&root, Some(uid), Some(gid)).unwrap();
    let e = Store::open(&root, u64::MAX).unwrap_err().to_string();
    assert!(e.contains(&format!("owned by uid {uid}")), "{e}");
    assert_eq!(fs::metadata(&root).unwrap().uid(), uid);
    assert_eq!(
        fs::metadata(&root).unwrap().permissions().mode() & 0o777,
        0o700
    );
}
