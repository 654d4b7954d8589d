//! kiln's persistent content-addressed store.
//!
//! Results of cached queries are named by a [`Key`]: the SHA-256 of (build id, query kind,
//! digests of the inputs). Values are any `serde` type, encoded by [`codec`] (bincode) with a
//! header (magic, format version, checksum). Entries are stored many to a file, in
//! [`pack`] files under `<root>/packs/`, written whole (temp file + rename) by a writer
//! thread off the caller's path; an in-memory index (built from the packs' indexes at open)
//! locates them. A corrupted or truncated entry is a miss (logged with `tracing::warn!` and
//! dropped from the index), so the caller recomputes it and a later pack holds it again.
//! The store has a size cap: packs are evicted least-recently-used first, recency being the
//! pack's mtime, which a hit refreshes (at most once a minute per pack).
//!
//! A store may have a [`remote::Remote`] tier (Bazel HTTP cache or REAPI gRPC): a local
//! miss asks the remote, and a verified remote hit is written to the local store; every
//! local write is also uploaded. Remote faults (unreachable server, poisoned blob) are
//! misses, counted and logged; a build ends with the tier's one notice line about them
//! ([`Store::remote_notice`]).
//!
//! Architecture invariant: the cache knows nothing about compiler types; it stores serde
//! values under opaque digests.

pub mod codec;
pub mod pack;
pub mod private;
pub mod remote;

use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

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

/// Why a lookup found no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Miss {
    /// No entry under the key (never stored, or stored by another kiln build).
    Absent,
    /// The entry was there but did not decode (torn, flipped bits, another type).
    Corrupt,
    /// The entry was removed by a size-cap collection.
    Evicted,
    /// The remote tier had an entry that failed verification.
    RemoteRejected,
}

impl Miss {
    /// How reports say it.
    pub fn describe(self) -> &'static str {
        match self {
            Miss::Absent => "cache key absent",
            Miss::Corrupt => "cache entry corrupt",
            Miss::Evicted => "cache entry evicted",
            Miss::RemoteRejected => "remote cache entry rejected",
        }
    }
}

/// Keys of evicted entries remembered (to explain a later miss), at most.
const EVICTED_KEYS: usize = 1 << 16;

/// Result of a garbage collection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct GcReport {
    pub removed: u64,
    pub freed_bytes: u64,
    pub remaining: DiskStats,
}

/// Default size cap: 1 GiB.
pub const DEFAULT_CAP_BYTES: u64 = 1 << 30;

/// Largest pack the writer produces (smaller for small caps, so eviction stays fine-grained).
const MAX_PACK_BYTES: u64 = 8 << 20;
/// Bytes waiting for the writer beyond which `put` writes them itself (the queue's bound).
const MAX_PENDING_BYTES: u64 = 64 << 20;
/// How long the writer lets entries gather before writing them.
const WRITER_TICK: Duration = Duration::from_millis(50);
/// How often a miss may look for packs written by other processes.
const REFRESH_EVERY: Duration = Duration::from_secs(1);
/// How often a hit refreshes its pack's mtime (the LRU recency).
const TOUCH_EVERY: Duration = Duration::from_secs(60);

/// A handle on a store directory, safe to share between threads and between processes
/// (packs are written whole by rename and never modified; readers verify checksums).
///
/// `put` queues the encoded entry; a writer thread packs queued entries into pack files
/// off the caller's path. Queued entries are served by `get` at once. [`Store::flush`]
/// writes everything queued; dropping the store flushes too.
pub struct Store {
    inner: Arc<Inner>,
    writer: Option<std::thread::JoinHandle<()>>,
    remote: Option<remote::Remote>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("root", &self.inner.root)
            .field("cap_bytes", &self.inner.cap_bytes)
            .field("remote", &self.remote)
            .finish()
    }
}

/// Where an indexed entry lies.
#[derive(Debug, Clone, Copy)]
struct Loc {
    pack: usize,
    offset: u64,
    len: u64,
}

#[derive(Debug)]
struct Pack {
    path: PathBuf,
    file: Option<Arc<fs::File>>,
    records: u64,
    touched: Option<Instant>,
}

/// The index of the packs this handle knows.
#[derive(Debug, Default)]
struct Index {
    entries: HashMap<[u8; 32], Loc>,
    /// Pack id → pack; `None` once removed.
    packs: Vec<Option<Pack>>,
    by_name: HashMap<std::ffi::OsString, usize>,
    refreshed: Option<Instant>,
    /// Keys whose entries a collection removed (bounded by [`EVICTED_KEYS`]).
    evicted: std::collections::HashSet<[u8; 32]>,
}

/// Encoded entries waiting for the writer, in put order.
#[derive(Debug, Default)]
struct Pending {
    order: Vec<([u8; 32], Arc<[u8]>)>,
    latest: HashMap<[u8; 32], Arc<[u8]>>,
    bytes: u64,
}

#[derive(Debug, Default)]
struct Inner {
    root: PathBuf,
    cap_bytes: u64,
    index: Mutex<Index>,
    pending: Mutex<Pending>,
    wake: Condvar,
    /// Serializes pack writing (writer thread, `flush`, full queue).
    write_lock: Mutex<()>,
    stop: AtomicBool,
    written_since_gc: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
    corrupt: AtomicU64,
    writes: AtomicU64,
    evictions: AtomicU64,
    remote_hits: AtomicU64,
    remote_misses: AtomicU64,
    remote_rejected: AtomicU64,
    remote_uploads: AtomicU64,
    remote_errors: AtomicU64,
}

impl Store {
    /// Open (creating) the store at `root` with a size cap in bytes; indexes the packs
    /// already there (torn packs are logged and their damaged entries count as corrupt).
    pub fn open(root: impl Into<PathBuf>, cap_bytes: u64) -> std::io::Result<Store> {
        let root = root.into();
        private::create_private_dir(&root, true)?;
        private::create_private_dir(&root.join("packs"), true)?;
        let inner = Arc::new(Inner {
            root,
            cap_bytes,
            ..Inner::default()
        });
        inner.refresh(&mut inner.index.lock().unwrap_or_else(|e| e.into_inner()))?;
        let worker = inner.clone();
        let writer = std::thread::Builder::new()
            .name("kiln-cache-writer".into())
            .spawn(move || worker.run_writer())?;
        Ok(Store {
            inner,
            writer: Some(writer),
            remote: None,
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

    /// The remote tier's one line about what went wrong since the last notice (see
    /// [`remote::Remote::take_notice`]); a build takes it when it ends.
    pub fn remote_notice(&self) -> Option<String> {
        self.remote.as_ref()?.take_notice()
    }

    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    /// The pack file holding `key`'s entry and the entry's byte range in it (entries still
    /// queued have none: see [`Store::flush`]).
    pub fn entry_location(&self, key: &Key) -> Option<(PathBuf, std::ops::Range<u64>)> {
        let index = self.inner.lock_index();
        let loc = index.entries.get(key.as_bytes())?;
        let pack = index.packs.get(loc.pack)?.as_ref()?;
        Some((pack.path.clone(), loc.offset..loc.offset + loc.len))
    }

    /// The value stored under `key`, or `None` (absent, unreadable or corrupt entry). A
    /// local miss asks the remote tier, if any.
    pub fn get<T: DeserializeOwned>(&self, key: &Key) -> Option<T> {
        self.lookup(key).ok()
    }

    /// [`Store::get`], saying why there is no value.
    pub fn lookup<T: DeserializeOwned>(&self, key: &Key) -> Result<T, Miss> {
        match self.get_local(key) {
            Ok(v) => Ok(v),
            Err(local) => self
                .get_remote(key)
                .map_err(|remote| remote.unwrap_or(local)),
        }
    }

    /// The previous kiln build id recorded in this store, when it differs from `build_id`
    /// (which is recorded from now on); `None` when it is the same or there was none.
    pub fn swap_build_id(&self, build_id: &str) -> Option<String> {
        let path = self.inner.root.join("build-id");
        let previous = fs::read_to_string(&path).ok();
        if previous.as_deref() == Some(build_id) {
            return None;
        }
        if let Err(e) = write_atomic(&path, build_id.as_bytes()) {
            tracing::warn!(error = %e, "cannot record the build id in the cache");
        }
        previous.filter(|p| !p.is_empty())
    }

    fn get_local<T: DeserializeOwned>(&self, key: &Key) -> Result<T, Miss> {
        let inner = &self.inner;
        let queued = inner.lock_pending().latest.get(key.as_bytes()).cloned();
        if let Some(bytes) = queued {
            return inner.decoded(key, &bytes, None);
        }
        let Some((file, loc)) = inner.locate(key.as_bytes()) else {
            inner.misses.fetch_add(1, Ordering::Relaxed);
            return Err(inner.absent(key.as_bytes()));
        };
        let mut bytes = vec![0u8; loc.len as usize];
        if let Err(e) = file.read_exact_at(&mut bytes, loc.offset) {
            // Removed by another process's collection, or cut short.
            tracing::debug!(error = %e, "unreadable cache pack; treating as a miss");
            inner.forget(key.as_bytes(), loc.pack);
            inner.misses.fetch_add(1, Ordering::Relaxed);
            return Err(Miss::Evicted);
        }
        inner.decoded(key, &bytes, Some(loc.pack))
    }

    /// The remote tier's entry for `key`, decoded and queued for the local store.
    /// `Err(None)`: no remote tier, or it has no entry (the local reason stands).
    fn get_remote<T: DeserializeOwned>(&self, key: &Key) -> Result<T, Option<Miss>> {
        let remote = self.remote.as_ref().ok_or(None)?;
        let inner = &self.inner;
        let fault = |f: &remote::Fault| {
            self.remote_fault(remote, key, f);
            matches!(f, remote::Fault::Rejected(_)).then_some(Miss::RemoteRejected)
        };
        let bytes = match remote.get(key) {
            Ok(Some(b)) => b,
            Ok(None) => {
                inner.remote_misses.fetch_add(1, Ordering::Relaxed);
                return Err(None);
            }
            Err(f) => return Err(fault(&f)),
        };
        let value = match codec::decode(key.as_bytes(), &bytes) {
            Ok(v) => v,
            Err(e) => {
                remote.reject(&format!("undecodable entry: {e}"));
                return Err(fault(&remote::Fault::Rejected(e.to_string())));
            }
        };
        inner.remote_hits.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(key = %key.to_hex(), url = remote.url(), "remote cache hit");
        if let Err(e) = inner.enqueue(key, Arc::from(bytes)) {
            tracing::warn!(error = %e, "cannot store a remote cache hit locally");
        }
        Ok(value)
    }

    fn remote_fault(&self, remote: &remote::Remote, key: &Key, fault: &remote::Fault) {
        match fault {
            remote::Fault::Rejected(why) => {
                self.inner.remote_rejected.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(key = %key.to_hex(), url = remote.url(), %why, "remote cache entry rejected; treating as a miss");
            }
            // The tier tallies faults for its one notice per build (see `remote::Remote`).
            remote::Fault::Transport(_) | remote::Fault::TimedOut(_) | remote::Fault::Off => {
                self.inner.remote_errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Store `value` under `key`: encoded here, queued for the writer thread (which
    /// collects garbage when the bytes written since the last collection exceed a tenth
    /// of the cap). Visible to `get` at once; on disk after the writer's next pack or
    /// [`Store::flush`].
    pub fn put<T: Serialize + DeserializeOwned>(
        &self,
        key: &Key,
        value: &T,
    ) -> std::io::Result<()> {
        let bytes = codec::encode(key.as_bytes(), value)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let bytes: Arc<[u8]> = Arc::from(bytes);
        self.upload(key, &bytes);
        self.inner.enqueue(key, bytes)
    }

    /// Write every queued entry to disk (in packs) before returning.
    pub fn flush(&self) -> std::io::Result<()> {
        self.inner.write_pending()
    }

    /// Upload an encoded entry to the remote tier (failures are logged and counted: the
    /// local result stands).
    fn upload(&self, key: &Key, bytes: &[u8]) {
        let Some(remote) = self.remote.as_ref().filter(|r| r.uploads()) else {
            return;
        };
        match remote.put(key, bytes) {
            Ok(()) => {
                self.inner.remote_uploads.fetch_add(1, Ordering::Relaxed);
            }
            Err(f) => self.remote_fault(remote, key, &f),
        }
    }

    pub fn counters(&self) -> Counters {
        let i = &self.inner;
        Counters {
            hits: i.hits.load(Ordering::Relaxed),
            misses: i.misses.load(Ordering::Relaxed),
            corrupt: i.corrupt.load(Ordering::Relaxed),
            writes: i.writes.load(Ordering::Relaxed),
            evictions: i.evictions.load(Ordering::Relaxed),
            remote_hits: i.remote_hits.load(Ordering::Relaxed),
            remote_misses: i.remote_misses.load(Ordering::Relaxed),
            remote_rejected: i.remote_rejected.load(Ordering::Relaxed),
            remote_uploads: i.remote_uploads.load(Ordering::Relaxed),
            remote_errors: i.remote_errors.load(Ordering::Relaxed),
        }
    }

    /// Count entries and bytes on disk (after writing what is queued).
    pub fn stats(&self) -> std::io::Result<DiskStats> {
        self.flush()?;
        let units = self.inner.units()?;
        Ok(DiskStats {
            entries: units.iter().map(|u| u.entries).sum(),
            bytes: units.iter().map(|u| u.size).sum(),
            cap_bytes: self.inner.cap_bytes,
        })
    }

    /// Evict least-recently-used packs until the store fits in its cap; also removes
    /// leftover temp files.
    pub fn gc(&self) -> std::io::Result<GcReport> {
        self.flush()?;
        self.inner.gc_to(self.inner.cap_bytes)
    }

    /// Evict least-recently-used packs until at most `target_bytes` remain.
    pub fn gc_to(&self, target_bytes: u64) -> std::io::Result<GcReport> {
        self.flush()?;
        self.inner.gc_to(target_bytes)
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.inner.stop.store(true, Ordering::Relaxed);
        self.inner.wake.notify_all();
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
        if let Err(e) = self.inner.write_pending() {
            tracing::warn!(error = %e, "cannot write queued cache entries");
        }
    }
}

/// A unit of eviction: a pack (or an entry file of the earlier one-file-per-entry layout).
struct Unit {
    path: PathBuf,
    size: u64,
    mtime: SystemTime,
    entries: u64,
}

impl Inner {
    fn lock_index(&self) -> std::sync::MutexGuard<'_, Index> {
        self.index.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Decode an entry; a corrupt one is logged, counted and dropped from the index.
    fn decoded<T: DeserializeOwned>(
        &self,
        key: &Key,
        bytes: &[u8],
        pack: Option<usize>,
    ) -> Result<T, Miss> {
        match codec::decode(key.as_bytes(), bytes) {
            Ok(v) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Ok(v)
            }
            Err(e) => {
                tracing::warn!(key = %key.to_hex(), error = %e, "corrupt cache entry; treating as a miss");
                self.corrupt.fetch_add(1, Ordering::Relaxed);
                self.misses.fetch_add(1, Ordering::Relaxed);
                if let Some(p) = pack {
                    self.forget(key.as_bytes(), p);
                }
                Err(Miss::Corrupt)
            }
        }
    }

    /// Why a key the index does not hold is missing.
    fn absent(&self, key: &[u8; 32]) -> Miss {
        match self.lock_index().evicted.contains(key) {
            true => Miss::Evicted,
            false => Miss::Absent,
        }
    }

    /// The open pack and location of `key`, looking for other processes' new packs at
    /// most once per [`REFRESH_EVERY`]. Refreshes the pack's recency when due.
    fn locate(&self, key: &[u8; 32]) -> Option<(Arc<fs::File>, Loc)> {
        let mut index = self.lock_index();
        let loc = match index.entries.get(key) {
            Some(l) => *l,
            None => {
                if index.refreshed.is_some_and(|t| t.elapsed() < REFRESH_EVERY) {
                    return None;
                }
                if let Err(e) = self.refresh(&mut index) {
                    tracing::warn!(error = %e, "cannot list cache packs");
                }
                *index.entries.get(key)?
            }
        };
        let pack = index.packs.get_mut(loc.pack)?.as_mut()?;
        if pack.file.is_none() {
            pack.file = fs::File::open(&pack.path).ok().map(Arc::new);
        }
        let file = pack.file.clone()?;
        if pack.touched.is_none_or(|t| t.elapsed() >= TOUCH_EVERY) {
            pack.touched = Some(Instant::now());
            let _ = file.set_modified(SystemTime::now());
        }
        Some((file, loc))
    }

    /// Drop `key` from the index if it still points into pack `pack`.
    fn forget(&self, key: &[u8; 32], pack: usize) {
        let mut index = self.lock_index();
        if index.entries.get(key).is_some_and(|l| l.pack == pack) {
            index.entries.remove(key);
        }
    }

    /// Index the packs on disk this handle does not know yet.
    fn refresh(&self, index: &mut Index) -> std::io::Result<()> {
        index.refreshed = Some(Instant::now());
        for entry in fs::read_dir(self.root.join("packs"))? {
            let entry = entry?;
            let name = entry.file_name();
            if !name.to_string_lossy().ends_with(".pack") || index.by_name.contains_key(&name) {
                continue;
            }
            let path = entry.path();
            let Ok(file) = fs::File::open(&path) else {
                continue;
            };
            let size = file.metadata()?.len();
            let contents = match pack::read(&file, size) {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(pack = %path.display(), error = %e, "unreadable cache pack");
                    continue;
                }
            };
            if let Some(why) = &contents.torn {
                tracing::warn!(pack = %path.display(), %why, "torn cache pack; its damaged entry is a miss");
                self.corrupt.fetch_add(1, Ordering::Relaxed);
            }
            index.add_pack(name, path, Some(Arc::new(file)), &contents.records, None);
        }
        Ok(())
    }

    /// Queue an encoded entry; writes the queue itself when it is over its bound.
    fn enqueue(&self, key: &Key, bytes: Arc<[u8]>) -> std::io::Result<()> {
        self.writes.fetch_add(1, Ordering::Relaxed);
        let over = {
            let mut p = self.lock_pending();
            p.bytes += bytes.len() as u64;
            p.latest.insert(*key.as_bytes(), bytes.clone());
            p.order.push((*key.as_bytes(), bytes));
            p.bytes > MAX_PENDING_BYTES
        };
        if over {
            return self.write_pending();
        }
        Ok(())
    }

    /// The writer thread: every tick, pack what is queued, until the store is dropped.
    fn run_writer(&self) {
        loop {
            {
                let p = self.lock_pending();
                let (p, _) = self
                    .wake
                    .wait_timeout(p, WRITER_TICK)
                    .unwrap_or_else(|e| e.into_inner());
                if self.stop.load(Ordering::Relaxed) {
                    return;
                }
                if p.order.is_empty() {
                    continue;
                }
            }
            if let Err(e) = self.write_pending() {
                tracing::warn!(error = %e, "cannot write cache pack");
            }
        }
    }

    /// Write the queued entries as packs, index them, then take them off the queue.
    fn write_pending(&self) -> std::io::Result<()> {
        let _w = self.write_lock.lock().unwrap_or_else(|e| e.into_inner());
        let batch: Vec<([u8; 32], Arc<[u8]>)> = self.lock_pending().order.clone();
        if batch.is_empty() {
            return Ok(());
        }
        let limit = MAX_PACK_BYTES.min(self.cap_bytes / 16).max(1);
        let mut written = 0u64;
        let mut result = Ok(());
        let mut start = 0;
        while start < batch.len() {
            let mut end = start;
            let mut size = 0u64;
            while end < batch.len() && (end == start || size + batch[end].1.len() as u64 <= limit) {
                size += batch[end].1.len() as u64;
                end += 1;
            }
            if let Err(e) = self.write_pack(&batch[start..end]) {
                result = Err(e);
                break;
            }
            written += size;
            start = end;
        }
        // Entries that could not be written are dropped (misses later), not retried forever.
        self.dequeue(&batch);
        result?;
        let since = self.written_since_gc.fetch_add(written, Ordering::Relaxed) + written;
        if since > self.cap_bytes / 10 {
            self.written_since_gc.store(0, Ordering::Relaxed);
            self.gc_to(self.cap_bytes)?;
        }
        Ok(())
    }

    fn dequeue(&self, batch: &[([u8; 32], Arc<[u8]>)]) {
        let mut p = self.lock_pending();
        p.order.drain(..batch.len());
        for (key, bytes) in batch {
            p.bytes -= bytes.len() as u64;
            if p.latest.get(key).is_some_and(|b| Arc::ptr_eq(b, bytes)) {
                p.latest.remove(key);
            }
        }
    }

    /// One pack file (temp + rename), then its records in the index.
    fn write_pack(&self, entries: &[([u8; 32], Arc<[u8]>)]) -> std::io::Result<()> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let name = format!(
            "{nanos:x}-{}-{}.pack",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        );
        let (bytes, records) = pack::encode(entries);
        let path = self.root.join("packs").join(&name);
        write_atomic(&path, &bytes)?;
        let mut index = self.lock_index();
        index.add_pack(name.into(), path, None, &records, None);
        Ok(())
    }

    /// Packs and legacy entry files on disk; stale temp files are removed on the way.
    fn units(&self) -> std::io::Result<Vec<Unit>> {
        let mut out = Vec::new();
        {
            let mut index = self.lock_index();
            self.refresh(&mut index)?;
        }
        let index = self.lock_index();
        for entry in fs::read_dir(self.root.join("packs"))? {
            let entry = entry?;
            let meta = entry.metadata()?;
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                remove_stale_temp(&entry.path(), &meta);
                continue;
            }
            let Some(&id) = index.by_name.get(&name) else {
                continue;
            };
            let entries = index.packs[id].as_ref().map_or(0, |p| p.records);
            out.push(Unit {
                path: entry.path(),
                size: meta.len(),
                mtime: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                entries,
            });
        }
        drop(index);
        legacy_units(&self.root.join("objects"), &mut out)?;
        Ok(out)
    }

    fn gc_to(&self, target_bytes: u64) -> std::io::Result<GcReport> {
        let mut units = self.units()?;
        units.sort_by_key(|u| u.mtime);
        let mut total: u64 = units.iter().map(|u| u.size).sum();
        let mut entries: u64 = units.iter().map(|u| u.entries).sum();
        let mut report = GcReport::default();
        for u in &units {
            if total <= target_bytes {
                break;
            }
            if fs::remove_file(&u.path).is_ok() {
                self.lock_index().remove_pack(&u.path);
                total -= u.size;
                entries -= u.entries;
                report.removed += u.entries;
                report.freed_bytes += u.size;
            }
        }
        self.evictions.fetch_add(report.removed, Ordering::Relaxed);
        report.remaining = DiskStats {
            entries,
            bytes: total,
            cap_bytes: self.cap_bytes,
        };
        Ok(report)
    }
}

impl Index {
    fn add_pack(
        &mut self,
        name: std::ffi::OsString,
        path: PathBuf,
        file: Option<Arc<fs::File>>,
        records: &[pack::Record],
        touched: Option<Instant>,
    ) {
        let id = self.packs.len();
        self.packs.push(Some(Pack {
            path,
            file,
            records: records.len() as u64,
            touched,
        }));
        self.by_name.insert(name, id);
        for r in records {
            let loc = Loc {
                pack: id,
                offset: r.offset,
                len: r.len,
            };
            self.entries.insert(r.key, loc);
        }
    }

    fn remove_pack(&mut self, path: &Path) {
        let Some(name) = path.file_name() else {
            return;
        };
        let Some(id) = self.by_name.get(name).copied() else {
            return;
        };
        self.packs[id] = None;
        let evicted = &mut self.evicted;
        self.entries.retain(|k, l| {
            if l.pack != id {
                return true;
            }
            if evicted.len() >= EVICTED_KEYS {
                evicted.clear();
            }
            evicted.insert(*k);
            false
        });
    }
}

/// Entry files of the one-file-per-entry layout (`objects/<2 hex>/<62 hex>`): never read
/// any more, but counted and evicted like packs so that `kiln cache gc` reclaims them.
fn legacy_units(objects: &Path, out: &mut Vec<Unit>) -> std::io::Result<()> {
    let Ok(shards) = fs::read_dir(objects) else {
        return Ok(());
    };
    for shard in shards {
        let shard = shard?;
        if !shard.file_type()?.is_dir() {
            continue;
        }
        for entry in fs::read_dir(shard.path())? {
            let entry = entry?;
            let meta = entry.metadata()?;
            if entry.file_name().to_string_lossy().starts_with('.') {
                remove_stale_temp(&entry.path(), &meta);
                continue;
            }
            out.push(Unit {
                path: entry.path(),
                size: meta.len(),
                mtime: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                entries: 1,
            });
        }
    }
    Ok(())
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
    let mut f = private::create_private_file(&tmp)?;
    // A failed write (a full disk) removes its temp file at once.
    f.write_all(bytes)
        .and_then(|()| {
            drop(f);
            fs::rename(&tmp, path)
        })
        .inspect_err(|_| {
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

    /// Cut the pack holding `key` inside that entry, as a crash or a full disk would.
    fn tear(s: &Store, key: &Key) {
        s.flush().unwrap();
        let (pack, range) = s.entry_location(key).unwrap();
        fs::OpenOptions::new()
            .write(true)
            .open(&pack)
            .unwrap()
            .set_len(range.start + (range.end - range.start) / 2)
            .unwrap();
    }

    #[test]
    fn torn_pack_entry_is_a_logged_miss_and_recomputable() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("cache");
        let keys: Vec<Key> = (0..3u8).map(|i| Key::new("b", "k", &[&[i]])).collect();
        {
            let s = Store::open(&root, DEFAULT_CAP_BYTES).unwrap();
            for k in &keys {
                s.put(k, &vec![7u64; 100]).unwrap();
            }
            s.flush().unwrap();
            assert_eq!(s.stats().unwrap().entries, 3);
            tear(&s, &keys[2]);
        }
        let s = Store::open(&root, DEFAULT_CAP_BYTES).unwrap();
        assert_eq!(s.counters().corrupt, 1, "torn pack detected at open");
        assert_eq!(s.get::<Vec<u64>>(&keys[0]), Some(vec![7u64; 100]));
        assert_eq!(s.get::<Vec<u64>>(&keys[1]), Some(vec![7u64; 100]));
        assert_eq!(s.get::<Vec<u64>>(&keys[2]), None);
        s.put(&keys[2], &vec![7u64; 100]).unwrap();
        assert_eq!(s.get::<Vec<u64>>(&keys[2]), Some(vec![7u64; 100]));
        drop(s);
        let s = Store::open(&root, DEFAULT_CAP_BYTES).unwrap();
        assert_eq!(s.get::<Vec<u64>>(&keys[2]), Some(vec![7u64; 100]));
    }

    #[test]
    fn corrupted_byte_is_a_miss() {
        let (_d, s) = store(DEFAULT_CAP_BYTES);
        let k = Key::new("b", "k", &[b"1"]);
        s.put(&k, &"payload".to_string()).unwrap();
        s.flush().unwrap();
        let (p, range) = s.entry_location(&k).unwrap();
        let mut bytes = fs::read(&p).unwrap();
        bytes[range.end as usize - 1] ^= 1;
        fs::write(&p, bytes).unwrap();
        assert_eq!(s.get::<String>(&k), None);
        assert_eq!(s.counters().corrupt, 1);
        assert_eq!(s.entry_location(&k), None, "dropped from the index");
    }

    #[test]
    fn queued_entries_are_served_and_drop_flushes_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("cache");
        let keys: Vec<Key> = (0..500u32)
            .map(|i| Key::new("b", "k", &[&i.to_le_bytes()]))
            .collect();
        {
            let s = Store::open(&root, DEFAULT_CAP_BYTES).unwrap();
            for (i, k) in keys.iter().enumerate() {
                s.put(k, &(i as u64)).unwrap();
                assert_eq!(s.get::<u64>(k), Some(i as u64));
            }
        }
        let s = Store::open(&root, DEFAULT_CAP_BYTES).unwrap();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(s.get::<u64>(k), Some(i as u64));
        }
        assert_eq!(s.counters().hits, 500);
        let packs = fs::read_dir(root.join("packs")).unwrap().count();
        assert!(packs < 50, "{packs} packs for 500 small entries");
    }

    #[test]
    fn other_processes_packs_are_found_on_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("cache");
        let reader = Store::open(&root, DEFAULT_CAP_BYTES).unwrap();
        let k = Key::new("b", "k", &[b"1"]);
        let writer = Store::open(&root, DEFAULT_CAP_BYTES).unwrap();
        writer.put(&k, &5u32).unwrap();
        writer.flush().unwrap();
        std::thread::sleep(REFRESH_EVERY);
        assert_eq!(reader.get::<u32>(&k), Some(5));
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
            s.flush().unwrap();
            let t = SystemTime::now() - Duration::from_secs(100 - i as u64 * 10);
            fs::File::options()
                .append(true)
                .open(s.entry_location(k).unwrap().0)
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
        let pack = |k: &Key| s.entry_location(k).map(|l| l.0);
        let paths: Vec<PathBuf> = keys.iter().map(|k| pack(k).unwrap()).collect();
        assert_eq!(
            paths
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            4
        );
        // Use the oldest entry: it becomes the most recent.
        assert!(s.get::<Vec<u8>>(&keys[0]).is_some());
        let per = fs::metadata(&paths[0]).unwrap().len();
        let report = s.gc_to(per * 2).unwrap();
        assert_eq!(report.removed, 2);
        assert_eq!(report.remaining.entries, 2);
        assert!(paths[0].exists());
        assert!(paths[3].exists());
        assert!(!paths[1].exists());
        assert!(!paths[2].exists());
        assert_eq!(s.get::<Vec<u8>>(&keys[1]), None);
        assert_eq!(s.get::<Vec<u8>>(&keys[3]), Some(vec![3u8; 1000]));
    }

    #[test]
    fn put_enforces_the_cap() {
        let (_d, s) = store(5_000);
        for i in 0..50u32 {
            s.put(&Key::new("b", "k", &[&i.to_le_bytes()]), &vec![0u8; 500])
                .unwrap();
            s.flush().unwrap();
        }
        assert!(s.stats().unwrap().bytes <= 5_000);
        assert!(s.counters().evictions > 0);
    }
}
