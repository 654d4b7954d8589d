//! kiln's persistent content-addressed store.
//!
//! Results of cached queries are stored under `<root>/objects/<2 hex>/<62 hex>`, named by a
//! [`Key`]: the SHA-256 of (build id, query kind, digests of the inputs). Values are any
//! `serde` type, encoded by [`codec`] (bincode) with a header (magic, format version, checksum).
//! A corrupted or truncated entry is a miss (logged with `tracing::warn!` and deleted), so the
//! caller recomputes and overwrites it. Writes are atomic (temp file + rename). The store has a
//! size cap: entries are evicted least-recently-used first, recency being the file mtime,
//! which a hit refreshes.
//!
//! A store may have a [`remote::Remote`] tier (Bazel HTTP cache or REAPI gRPC): a local
//! miss asks the remote, and a verified remote hit is written to the local store; every
//! local write is also uploaded. Remote faults (unreachable server, poisoned blob) are
//! misses, logged and counted.
//!
//! Architecture invariant: the cache knows nothing about compiler types; it stores serde
//! values under opaque digests.

pub mod codec;
pub mod remote;

use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

/// SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The name of a cache entry: the SHA-256 of a length-prefixed preimage, and that
/// preimage's length (a REAPI digest names both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key([u8; 32], u64);

impl Key {
    /// Key of the result of query `kind` over inputs with the given digests, computed by the
    /// kiln build `build_id`. Every component is length-prefixed, so distinct tuples never
    /// collide by concatenation.
    pub fn new(build_id: &str, kind: &str, input_digests: &[&[u8]]) -> Key {
        let mut h = Sha256::new();
        let mut len = 0u64;
        for part in [build_id.as_bytes(), kind.as_bytes()]
            .into_iter()
            .chain(input_digests.iter().copied())
        {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part);
            len += 8 + part.len() as u64;
        }
        Key(h.finalize().into(), len)
    }

    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Length of the hashed preimage.
    pub fn preimage_len(&self) -> u64 {
        self.1
    }
}

/// Totals over the entries on disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DiskStats {
    pub entries: u64,
    pub bytes: u64,
    pub cap_bytes: u64,
}

/// What one store handle has seen since it was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    pub hits: u64,
    pub misses: u64,
    pub corrupt: u64,
    pub writes: u64,
    pub evictions: u64,
    /// Local misses served by the remote tier (verified, then written locally).
    pub remote_hits: u64,
    /// Local misses the remote tier did not have either.
    pub remote_misses: u64,
    /// Remote entries that failed verification (poisoned or malformed): misses.
    pub remote_rejected: u64,
    /// Entries uploaded to the remote tier.
    pub remote_uploads: u64,
    /// Remote operations that failed in transport (misses / lost uploads).
    pub remote_errors: u64,
}

/// Result of a garbage collection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct GcReport {
    pub removed: u64,
    pub freed_bytes: u64,
    pub remaining: DiskStats,
}

/// Default size cap: 1 GiB.
pub const DEFAULT_CAP_BYTES: u64 = 1 << 30;

/// A handle on a store directory. Cheap operations; safe to share between threads and
/// between processes (entries are written by rename, readers verify checksums).
#[derive(Debug)]
pub struct Store {
    root: PathBuf,
    cap_bytes: u64,
    written_since_gc: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
    corrupt: AtomicU64,
    writes: AtomicU64,
    evictions: AtomicU64,
    remote: Option<remote::Remote>,
    remote_hits: AtomicU64,
    remote_misses: AtomicU64,
    remote_rejected: AtomicU64,
    remote_uploads: AtomicU64,
    remote_errors: AtomicU64,
}

impl Store {
    /// Open (creating) the store at `root` with a size cap in bytes.
    pub fn open(root: impl Into<PathBuf>, cap_bytes: u64) -> std::io::Result<Store> {
        let root = root.into();
        fs::create_dir_all(root.join("objects"))?;
        Ok(Store {
            root,
            cap_bytes,
            written_since_gc: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            corrupt: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
            remote: None,
            remote_hits: AtomicU64::new(0),
            remote_misses: AtomicU64::new(0),
            remote_rejected: AtomicU64::new(0),
            remote_uploads: AtomicU64::new(0),
            remote_errors: AtomicU64::new(0),
        })
    }

    /// Add a remote tier behind the local store.
    pub fn with_remote(mut self, remote: remote::Remote) -> Store {
        self.remote = Some(remote);
        self
    }

    pub fn remote(&self) -> Option<&remote::Remote> {
        self.remote.as_ref()
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Path of the entry for `key`.
    pub fn entry_path(&self, key: &Key) -> PathBuf {
        let h = key.to_hex();
        self.root.join("objects").join(&h[..2]).join(&h[2..])
    }

    /// The value stored under `key`, or `None` (absent, unreadable or corrupt entry). A
    /// local miss asks the remote tier, if any.
    pub fn get<T: DeserializeOwned>(&self, key: &Key) -> Option<T> {
        self.get_local(key).or_else(|| self.get_remote(key))
    }

    fn get_local<T: DeserializeOwned>(&self, key: &Key) -> Option<T> {
        let path = self.entry_path(key);
        let Ok(bytes) = fs::read(&path) else {
            self.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        match codec::decode(&bytes) {
            Ok(v) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                touch(&path);
                Some(v)
            }
            Err(e) => {
                tracing::warn!(entry = %path.display(), error = %e, "corrupt cache entry; treating as a miss");
                self.corrupt.fetch_add(1, Ordering::Relaxed);
                self.misses.fetch_add(1, Ordering::Relaxed);
                let _ = fs::remove_file(&path);
                None
            }
        }
    }

    /// The remote tier's entry for `key`, decoded and written to the local store.
    fn get_remote<T: DeserializeOwned>(&self, key: &Key) -> Option<T> {
        let remote = self.remote.as_ref()?;
        let bytes = match remote.get(key) {
            Ok(Some(b)) => b,
            Ok(None) => {
                self.remote_misses.fetch_add(1, Ordering::Relaxed);
                return None;
            }
            Err(f) => {
                self.remote_fault(remote, key, &f);
                return None;
            }
        };
        let value = match codec::decode(&bytes) {
            Ok(v) => v,
            Err(e) => {
                self.remote_fault(remote, key, &remote::Fault::Rejected(e.to_string()));
                return None;
            }
        };
        self.remote_hits.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(key = %key.to_hex(), url = remote.url(), "remote cache hit");
        match write_atomic(&self.entry_path(key), &bytes) {
            Ok(()) => {
                self.writes.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => tracing::warn!(error = %e, "cannot store a remote cache hit locally"),
        }
        Some(value)
    }

    fn remote_fault(&self, remote: &remote::Remote, key: &Key, fault: &remote::Fault) {
        match fault {
            remote::Fault::Rejected(why) => {
                self.remote_rejected.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(key = %key.to_hex(), url = remote.url(), %why, "remote cache entry rejected; treating as a miss");
            }
            remote::Fault::Transport(why) => {
                self.remote_errors.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(key = %key.to_hex(), url = remote.url(), %why, "remote cache unavailable");
            }
        }
    }

    /// Store `value` under `key` (atomically). Runs a collection when the bytes written since
    /// the last one exceed a tenth of the cap.
    pub fn put<T: Serialize + DeserializeOwned>(
        &self,
        key: &Key,
        value: &T,
    ) -> std::io::Result<()> {
        let bytes = codec::encode(value).map_err(|e| std::io::Error::other(e.to_string()))?;
        let path = self.entry_path(key);
        write_atomic(&path, &bytes)?;
        self.writes.fetch_add(1, Ordering::Relaxed);
        self.upload(key, &bytes);
        let since = self
            .written_since_gc
            .fetch_add(bytes.len() as u64, Ordering::Relaxed)
            + bytes.len() as u64;
        if since > self.cap_bytes / 10 {
            self.written_since_gc.store(0, Ordering::Relaxed);
            self.gc()?;
        }
        Ok(())
    }

    /// Upload an encoded entry to the remote tier (failures are logged and counted: the
    /// local result stands).
    fn upload(&self, key: &Key, bytes: &[u8]) {
        let Some(remote) = self.remote.as_ref() else {
            return;
        };
        match remote.put(key, bytes) {
            Ok(()) => {
                self.remote_uploads.fetch_add(1, Ordering::Relaxed);
            }
            Err(f) => self.remote_fault(remote, key, &f),
        }
    }

    pub fn counters(&self) -> Counters {
        Counters {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            corrupt: self.corrupt.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            remote_hits: self.remote_hits.load(Ordering::Relaxed),
            remote_misses: self.remote_misses.load(Ordering::Relaxed),
            remote_rejected: self.remote_rejected.load(Ordering::Relaxed),
            remote_uploads: self.remote_uploads.load(Ordering::Relaxed),
            remote_errors: self.remote_errors.load(Ordering::Relaxed),
        }
    }

    /// Count entries and bytes on disk.
    pub fn stats(&self) -> std::io::Result<DiskStats> {
        let entries = self.entries()?;
        Ok(DiskStats {
            entries: entries.len() as u64,
            bytes: entries.iter().map(|e| e.1).sum(),
            cap_bytes: self.cap_bytes,
        })
    }

    /// Evict least-recently-used entries until the store fits in its cap; also removes
    /// leftover temp files.
    pub fn gc(&self) -> std::io::Result<GcReport> {
        self.gc_to(self.cap_bytes)
    }

    /// Evict least-recently-used entries until at most `target_bytes` remain.
    pub fn gc_to(&self, target_bytes: u64) -> std::io::Result<GcReport> {
        let mut entries = self.entries()?;
        entries.sort_by_key(|e| e.2);
        let mut total: u64 = entries.iter().map(|e| e.1).sum();
        let mut report = GcReport::default();
        for (path, size, _) in &entries {
            if total <= target_bytes {
                break;
            }
            if fs::remove_file(path).is_ok() {
                total -= size;
                report.removed += 1;
                report.freed_bytes += size;
            }
        }
        self.evictions.fetch_add(report.removed, Ordering::Relaxed);
        report.remaining = DiskStats {
            entries: entries.len() as u64 - report.removed,
            bytes: total,
            cap_bytes: self.cap_bytes,
        };
        Ok(report)
    }

    /// (path, size, mtime) of every entry; stale temp files are removed on the way.
    fn entries(&self) -> std::io::Result<Vec<(PathBuf, u64, SystemTime)>> {
        let mut out = Vec::new();
        for shard in fs::read_dir(self.root.join("objects"))? {
            let shard = shard?;
            if !shard.file_type()?.is_dir() {
                continue;
            }
            for entry in fs::read_dir(shard.path())? {
                let entry = entry?;
                let meta = entry.metadata()?;
                let name = entry.file_name();
                if name.to_string_lossy().starts_with('.') {
                    remove_stale_temp(&entry.path(), &meta);
                    continue;
                }
                let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                out.push((entry.path(), meta.len(), mtime));
            }
        }
        Ok(out)
    }
}

/// Temp files older than an hour belong to writers that died.
fn remove_stale_temp(path: &Path, meta: &fs::Metadata) {
    let old = meta
        .modified()
        .ok()
        .and_then(|m| m.elapsed().ok())
        .is_some_and(|age| age.as_secs() > 3600);
    if old {
        let _ = fs::remove_file(path);
    }
}

/// Record a use for LRU: set the mtime to now.
fn touch(path: &Path) {
    if let Ok(f) = fs::File::options().append(true).open(path) {
        let _ = f.set_modified(SystemTime::now());
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.{}.{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let mut f = fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    drop(f);
    fs::rename(&tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn store(cap: u64) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(dir.path().join("cache"), cap).unwrap();
        (dir, s)
    }

    #[test]
    fn keys_depend_on_every_component() {
        let a = Key::new("b1", "aig", &[b"x", b"y"]);
        assert_eq!(a, Key::new("b1", "aig", &[b"x", b"y"]));
        assert_ne!(a, Key::new("b2", "aig", &[b"x", b"y"]));
        assert_ne!(a, Key::new("b1", "seg", &[b"x", b"y"]));
        assert_ne!(a, Key::new("b1", "aig", &[b"xy"]));
        assert_ne!(a, Key::new("b1", "aig", &[b"y", b"x"]));
    }

    #[test]
    fn put_get_and_counters() {
        let (_d, s) = store(DEFAULT_CAP_BYTES);
        let k = Key::new("b", "k", &[b"1"]);
        assert_eq!(s.get::<String>(&k), None);
        s.put(&k, &"hello".to_string()).unwrap();
        assert_eq!(s.get::<String>(&k).as_deref(), Some("hello"));
        let c = s.counters();
        assert_eq!((c.hits, c.misses, c.writes, c.corrupt), (1, 1, 1, 0));
        let st = s.stats().unwrap();
        assert_eq!(st.entries, 1);
        assert!(st.bytes > 5);
    }

    #[test]
    fn truncated_entry_is_a_logged_miss_and_recomputable() {
        let (_d, s) = store(DEFAULT_CAP_BYTES);
        let k = Key::new("b", "k", &[b"1"]);
        s.put(&k, &vec![7u64; 100]).unwrap();
        let p = s.entry_path(&k);
        let len = fs::metadata(&p).unwrap().len();
        fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(len / 2)
            .unwrap();
        assert_eq!(s.get::<Vec<u64>>(&k), None);
        assert_eq!(s.counters().corrupt, 1);
        assert!(!p.exists(), "corrupt entry removed");
        s.put(&k, &vec![7u64; 100]).unwrap();
        assert_eq!(s.get::<Vec<u64>>(&k), Some(vec![7u64; 100]));
    }

    #[test]
    fn corrupted_byte_is_a_miss() {
        let (_d, s) = store(DEFAULT_CAP_BYTES);
        let k = Key::new("b", "k", &[b"1"]);
        s.put(&k, &"payload".to_string()).unwrap();
        let p = s.entry_path(&k);
        let mut bytes = fs::read(&p).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        fs::write(&p, bytes).unwrap();
        assert_eq!(s.get::<String>(&k), None);
        assert_eq!(s.counters().corrupt, 1);
    }

    #[test]
    fn wrong_type_is_a_miss_not_a_panic() {
        let (_d, s) = store(DEFAULT_CAP_BYTES);
        let k = Key::new("b", "k", &[b"1"]);
        s.put(&k, &vec!["a".to_string(); 3]).unwrap();
        assert_eq!(s.get::<(u64, u64, u64, u64, u64)>(&k), None);
    }

    #[test]
    fn gc_evicts_least_recently_used_first() {
        let (_d, s) = store(u64::MAX);
        let keys: Vec<Key> = (0..4u8).map(|i| Key::new("b", "k", &[&[i]])).collect();
        for (i, k) in keys.iter().enumerate() {
            s.put(k, &vec![i as u8; 1000]).unwrap();
            let t = SystemTime::now() - Duration::from_secs(100 - i as u64 * 10);
            fs::File::options()
                .append(true)
                .open(s.entry_path(k))
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
        // Use the oldest entry: it becomes the most recent.
        assert!(s.get::<Vec<u8>>(&keys[0]).is_some());
        let per = fs::metadata(s.entry_path(&keys[0])).unwrap().len();
        let report = s.gc_to(per * 2).unwrap();
        assert_eq!(report.removed, 2);
        assert_eq!(report.remaining.entries, 2);
        assert!(s.entry_path(&keys[0]).exists());
        assert!(s.entry_path(&keys[3]).exists());
        assert!(!s.entry_path(&keys[1]).exists());
        assert!(!s.entry_path(&keys[2]).exists());
    }

    #[test]
    fn put_enforces_the_cap() {
        let (_d, s) = store(5_000);
        for i in 0..50u32 {
            s.put(&Key::new("b", "k", &[&i.to_le_bytes()]), &vec![0u8; 500])
                .unwrap();
        }
        assert!(s.stats().unwrap().bytes <= 5_000);
        assert!(s.counters().evictions > 0);
    }
}
