//! The one output writer of the project: every output file kiln writes changes by one
//! atomic rename (or, when new, appears by one link of a complete unnamed file), so readers
//! only ever see whole files, and a file that already holds the bytes is not written again.
//!
//! [`write_atomic`] writes one file (temp file in the same directory + rename; a file that
//! does not exist yet is written unnamed and then linked, see [`unnamed`]). A
//! [`Writer`] writes a build's outputs and remembers what it wrote ([`OutputLog`]): an
//! output whose parts are those last written (the same shared parts, or equal bytes part
//! by part) and whose file is unchanged since is neither rewritten nor re-read, so change
//! detection needs no hashing; SHA-256 digests, when a request asks for them, resume from
//! the state before the first changed part. Large outputs are double-buffered through a
//! *spare* (the version before last, rewritten in place and swapped in; see [`spare`]),
//! a detail of this module that its users choose only as a [`Spares`] setting.
//!
//! Outputs are regenerable, so they are not fsynced: the rename keeps readers from seeing a
//! partial file, and a crash at worst loses an output the next build writes again. The
//! temp files and spare claims a crashed writer leaves are removed by the next process
//! that writes in their directory ([`sweep`]).

mod spare;
pub mod sweep;
mod unnamed;

use crate::compute::{Computed, JobResult, Output};
use crate::db::{OutputBytes, same_part};
use crate::inputs::Stamp;
use crate::report::OutputFile;
use crate::spec::BuildSpec;
use crate::watcher::RootMarks;
use bytes::Bytes;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

/// Outputs at least this large are double-buffered through a spare.
pub const LARGE: usize = spare::MIN_LEN;

/// Why an output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("internal error: an output thread panicked")]
    Panicked,
}

impl WriteError {
    /// The error as a message about the file it concerns.
    pub fn located(&self) -> compiler::diag::Located {
        use compiler::diag::{Located, Severity};
        match self {
            WriteError::Io { path, source } => Located::file(
                path.display().to_string(),
                Severity::Error,
                source.to_string(),
            ),
            WriteError::Panicked => Located::file("kiln", Severity::Error, self.to_string()),
        }
    }
}

/// How a [`Writer`] uses spares for large outputs (the process that owns it chooses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spares {
    /// Rewrite a large output through its spare when it has one (an earlier rewrite left
    /// it); a process that writes once and exits gains nothing from more.
    OnRewrite,
    /// Also make a spare in the background when a large output is written for the first
    /// time, so that even the first rebuild after it rewrites in place (a daemon, whose
    /// users edit and rebuild).
    Ahead,
}

/// Time spent hashing and writing outputs.
#[derive(Debug, Default, Clone, Copy)]
pub struct WriteTimes {
    pub hash: Duration,
    pub write: Duration,
}

/// The files of a report and how many unchanged ones it leaves out.
#[derive(Debug, Default)]
pub struct WrittenFiles {
    pub files: Vec<OutputFile>,
    pub unchanged_omitted: u64,
}

/// Writes builds' outputs, remembering what it wrote.
#[derive(Debug)]
pub struct Writer {
    log: OutputLog,
    spares: Spares,
}

impl Writer {
    pub fn new(spares: Spares) -> Writer {
        Writer {
            log: OutputLog::default(),
            spares,
        }
    }

    /// Write every output of `computed` atomically (only when its bytes change) and list
    /// them. Outputs are split between the available cores when one is large (an APS
    /// file's two large outputs write in parallel). `spec.digests`: fill in SHA-256
    /// digests; `spec.changed_only`: list the written files only (and count the others).
    pub fn write(
        &self,
        computed: &Computed,
        spec: &BuildSpec,
        times: &mut WriteTimes,
    ) -> Result<WrittenFiles, WriteError> {
        let marks = &computed.output_marks;
        let results: Vec<&Arc<JobResult>> = computed.results().collect();
        let skip: Vec<bool> = results
            .iter()
            .map(|r| {
                r.on_disk.load(Ordering::Acquire)
                    && r.outputs.iter().all(|o| untouched(marks, &o.path))
            })
            .collect();
        let todo: Vec<&Output> = results
            .iter()
            .zip(&skip)
            .filter(|(_, s)| !**s)
            .flat_map(|(r, _)| r.outputs.iter())
            .collect();
        let mut checked = self
            .write_in_threads(&todo, marks, spec, times)?
            .into_iter();
        for (r, _) in results.iter().zip(&skip).filter(|(_, s)| !**s) {
            self.log.settle(r);
        }
        let mut out = WrittenFiles::default();
        let all = results
            .iter()
            .zip(&skip)
            .flat_map(|(r, s)| r.outputs.iter().map(move |o| (o, *s)));
        for (o, skipped) in all {
            let (written, sha256) = match skipped {
                true => (false, self.digest_if(spec.digests, o, times)),
                false => checked.next().ok_or(WriteError::Panicked)?,
            };
            if spec.changed_only && !written {
                out.unchanged_omitted += 1;
                continue;
            }
            out.files.push(OutputFile {
                path: o.path.clone(),
                kind: o.kind,
                sha256,
                written,
            });
        }
        Ok(out)
    }

    /// The digest of an output, if asked for.
    fn digest_if(&self, digests: bool, o: &Output, times: &mut WriteTimes) -> Option<[u8; 32]> {
        if !digests {
            return None;
        }
        let t = Instant::now();
        let sha = self.log.digest(&o.path, &o.bytes);
        times.hash += t.elapsed();
        Some(sha)
    }

    /// [`Writer::write_output`] of each of `todo`, in order, on up to one thread per core
    /// when some output is big (many small ones would only contend on the log).
    fn write_in_threads(
        &self,
        todo: &[&Output],
        marks: &RootMarks,
        spec: &BuildSpec,
        times: &mut WriteTimes,
    ) -> Result<Vec<Checked>, WriteError> {
        let big = todo.iter().any(|o| o.bytes.len() > 1 << 20);
        let threads = if big { crate::cores() } else { 1 };
        let run = |chunk: &[&Output]| {
            let mut t = WriteTimes::default();
            let r: Result<Vec<_>, _> = chunk
                .iter()
                .map(|o| self.write_output(o, marks, spec, &mut t))
                .collect();
            (r, t)
        };
        let per = todo.len().div_ceil(threads).max(1);
        let results: Vec<(Result<Vec<Checked>, WriteError>, WriteTimes)> = match threads {
            1 => vec![run(todo)],
            _ => std::thread::scope(|s| {
                let handles: Vec<_> = todo.chunks(per).map(|c| s.spawn(move || run(c))).collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| (Err(WriteError::Panicked), WriteTimes::default()))
                    })
                    .collect()
            }),
        };
        let mut files = Vec::with_capacity(todo.len());
        for (r, t) in results {
            times.hash += t.hash;
            times.write += t.write;
            files.extend(r?);
        }
        Ok(files)
    }

    fn write_output(
        &self,
        o: &Output,
        marks: &RootMarks,
        spec: &BuildSpec,
        times: &mut WriteTimes,
    ) -> Result<Checked, WriteError> {
        let sha256 = self.digest_if(spec.digests, o, times);
        let t = Instant::now();
        let new_dir = sweep::once(parent(&o.path));
        let written = match self.log.known(&o.path, untouched(marks, &o.path)) {
            Some(last) if same_bytes(&last, &o.bytes) => false,
            known => {
                let w = self
                    .replace(&o.path, &o.bytes, known.as_ref(), new_dir)
                    .map_err(|source| WriteError::Io {
                        path: o.path.clone(),
                        source,
                    })?;
                self.log.record(&o.path, &o.bytes);
                w
            }
        };
        times.write += t.elapsed();
        Ok((written, sha256))
    }

    /// Write `bytes` to `path` atomically, unless the file holds them already (checked by
    /// reading it when `replaced`, the bytes it is known to hold, is unknown). Large outputs
    /// go through a spare, others through a fresh temp file. `new_dir`: the directory is
    /// new ([`sweep::once`]).
    fn replace(
        &self,
        path: &Path,
        bytes: &OutputBytes,
        replaced: Option<&OutputBytes>,
        new_dir: bool,
    ) -> std::io::Result<bool> {
        if !spare::eligible(path, bytes) {
            let before = match replaced {
                Some(_) => Before::Differs,
                None => Before::in_dir(new_dir),
            };
            let written = write_parts(path, &bytes.parts, before)?;
            if self.spares == Spares::Ahead {
                spare::prepare(path, bytes, &self.log.spares);
            }
            return Ok(written);
        }
        if replaced.is_none() && holds(path, &bytes.parts) {
            return Ok(false);
        }
        if let Err(e) = spare::write(path, bytes, replaced, &self.log.spares) {
            // The output is untouched: write it the plain way.
            tracing::debug!(path = %path.display(), error = %e, "spare write failed");
            return write_parts(path, &bytes.parts, Before::Differs);
        }
        Ok(true)
    }
}

/// Whether an output was written, and its digest (if asked for).
type Checked = (bool, Option<[u8; 32]>);

/// Write `parts` (concatenated) to `path` atomically; nothing when the file already holds
/// these bytes. Returns whether the file was written.
pub fn write_atomic<P: AsRef<[u8]>>(path: &Path, parts: &[P]) -> Result<bool, WriteError> {
    let new_dir = sweep::once(parent(path));
    write_parts(path, parts, Before::in_dir(new_dir)).map_err(|source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// What [`write_parts`] knows of the file at an output's path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Before {
    /// Nothing: it may hold the bytes already.
    Unknown,
    /// Most likely nothing: the path is in a new directory ([`sweep::once`]).
    Absent,
    /// Other bytes.
    Differs,
}

impl Before {
    /// What is known of an output's file before looking: in a new directory, most likely
    /// nothing; elsewhere, nothing at all.
    fn in_dir(new_dir: bool) -> Before {
        if new_dir {
            Before::Absent
        } else {
            Before::Unknown
        }
    }
}

/// Temp file in the same directory + rename, written with vectored writes; a file found
/// (or believed) absent is written unnamed and then linked ([`unnamed`]). Unless the file
/// is known to differ, one that holds `parts` already is left alone.
fn write_parts<P: AsRef<[u8]>>(path: &Path, parts: &[P], before: Before) -> std::io::Result<bool> {
    let dir = parent(path);
    // Whether linking an unnamed file is still worth a try (not once it was declined).
    let mut link = true;
    if before == Before::Absent {
        // Link first; look only when that fails (a taken name: `dir` is no longer new).
        match unnamed::write(dir, path, parts)? {
            unnamed::Unnamed::Linked => return Ok(true),
            unnamed::Unnamed::Taken => sweep::taken(dir),
            unnamed::Unnamed::Declined => link = false,
        }
    }
    if before != Before::Differs {
        match existing(path, parts) {
            Existing::Holds => return Ok(false),
            Existing::Absent if link => {
                if unnamed::write(dir, path, parts)? == unnamed::Unnamed::Linked {
                    return Ok(true);
                }
            }
            Existing::Absent | Existing::Differs => {}
        }
    }
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(
        ".{name}.tmp.{}.{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    // Create the directory only when needed (saves a stat per file on bulk writes).
    let mut f = match fs::File::create(&tmp) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            fs::create_dir_all(dir)?;
            fs::File::create(&tmp)?
        }
        r => r?,
    };
    // Held (open and locked) until renamed: no sweep takes it for a leftover.
    sweep::hold(&f);
    let written = write_all_parts(&mut f, parts).and_then(|()| fs::rename(&tmp, path));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    drop(f);
    written?;
    Ok(true)
}

/// The directory of `path` (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Whether the file at `path` holds exactly the concatenation of `parts` (read only when
/// its size matches).
fn holds<P: AsRef<[u8]>>(path: &Path, parts: &[P]) -> bool {
    existing(path, parts) == Existing::Holds
}

/// What is at an output's path, against the bytes about to be written there.
#[derive(PartialEq, Eq)]
enum Existing {
    /// Nothing.
    Absent,
    /// A file that holds exactly these bytes.
    Holds,
    /// Anything else (other bytes, or what could not be read).
    Differs,
}

/// What is at `path`, against the concatenation of `parts` (the file read only when its
/// size matches).
fn existing<P: AsRef<[u8]>>(path: &Path, parts: &[P]) -> Existing {
    let len: usize = parts.iter().map(|p| p.as_ref().len()).sum();
    match fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Existing::Absent,
        Ok(m) if m.len() == len as u64 => {}
        _ => return Existing::Differs,
    }
    let Ok(existing) = fs::read(path) else {
        return Existing::Differs;
    };
    let mut rest = &existing[..];
    for p in parts {
        let Some((head, tail)) = rest.split_at_checked(p.as_ref().len()) else {
            return Existing::Differs;
        };
        if head != p.as_ref() {
            return Existing::Differs;
        }
        rest = tail;
    }
    match rest.is_empty() {
        true => Existing::Holds,
        false => Existing::Differs,
    }
}

/// `write_all` for a list of parts, up to 1,024 (`IOV_MAX`) parts per `writev`.
fn write_all_parts<P: AsRef<[u8]>>(f: &mut fs::File, parts: &[P]) -> std::io::Result<()> {
    let mut bufs: Vec<std::io::IoSlice> = parts
        .iter()
        .map(AsRef::as_ref)
        .filter(|p| !p.is_empty())
        .map(std::io::IoSlice::new)
        .collect();
    let mut rest = &mut bufs[..];
    while !rest.is_empty() {
        let n = rest.len().min(1024);
        let written = f.write_vectored(&rest[..n])?;
        if written == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        std::io::IoSlice::advance_slices(&mut rest, written);
    }
    Ok(())
}

/// Whether the watcher marked neither `path` nor a directory above it.
fn untouched(marks: &RootMarks, path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let RootMarks::Changed(changed) = marks else {
        return false;
    };
    if changed.is_empty() {
        return true;
    }
    if changed.len() > 16 {
        return !path.ancestors().any(|a| changed.contains(a));
    }
    let p = path.as_os_str().as_bytes();
    !changed.iter().any(|m| {
        let m = m.as_os_str().as_bytes();
        p.starts_with(m) && (p.len() == m.len() || p[m.len()] == b'/')
    })
}

/// What this process knows of each output path: the bytes it last wrote there (shared
/// parts) with the file's stamp just after the write, and, for clients that ask for
/// digests, the SHA-256 state of the parts it last hashed (midstates at every part
/// boundary, so that an edit re-hashes only from the first changed part).
#[derive(Debug, Default)]
struct OutputLog {
    hashed: Mutex<BTreeMap<PathBuf, Hashed>>,
    written: Mutex<HashMap<PathBuf, Logged>>,
    spares: spare::SpareLog,
}

/// An output as last written or checked, and the job result it was checked for.
#[derive(Debug)]
struct Logged {
    bytes: OutputBytes,
    stamp: Stamp,
    owner: Weak<JobResult>,
}

#[derive(Debug)]
struct Hashed {
    parts: Arc<Vec<Bytes>>,
    /// `mids[i]`: the hasher state after parts `0..i`.
    mids: Vec<Sha256>,
    sha256: [u8; 32],
}

/// Whether `a` and `b` hold the same bytes: compared part by part (shared parts without a
/// byte compare) when their parts have the same lengths, else as whole texts.
fn same_bytes(a: &OutputBytes, b: &OutputBytes) -> bool {
    if Arc::ptr_eq(&a.parts, &b.parts) {
        return true;
    }
    let aligned = a.parts.len() == b.parts.len()
        && a.parts
            .iter()
            .zip(b.parts.iter())
            .all(|(x, y)| x.len() == y.len());
    if aligned {
        return a == b;
    }
    a.len() == b.len() && a.to_vec() == b.to_vec()
}

/// Index of the first part that differs (shared parts are equal without a byte compare).
fn first_change(old: &[Bytes], new: &[Bytes]) -> usize {
    old.iter()
        .zip(new)
        .position(|(a, b)| !(same_part(a, b) || a == b))
        .unwrap_or(old.len().min(new.len()))
}

impl OutputLog {
    /// SHA-256 of `bytes`, resuming from the state before the first part that changed since
    /// the last call for `path`.
    fn digest(&self, path: &Path, bytes: &OutputBytes) -> [u8; 32] {
        let lock = || self.hashed.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = lock().get(path)
            && Arc::ptr_eq(&h.parts, &bytes.parts)
        {
            return h.sha256;
        }
        let last = lock().remove(path);
        let (start, mut hasher, mut mids) = match last {
            Some(mut h) => {
                let k = first_change(&h.parts, &bytes.parts);
                if k == h.parts.len() && k == bytes.parts.len() {
                    let sha = h.sha256;
                    h.parts = bytes.parts.clone();
                    lock().insert(path.to_path_buf(), h);
                    return sha;
                }
                let state = h.mids.get(k).cloned().unwrap_or_default();
                h.mids.truncate(k);
                (k, state, h.mids)
            }
            None => (0, Sha256::default(), Vec::new()),
        };
        for part in &bytes.parts[start..] {
            mids.push(hasher.clone());
            hasher.update(part);
        }
        let sha256: [u8; 32] = hasher.finalize().into();
        let hashed = Hashed {
            parts: bytes.parts.clone(),
            mids,
            sha256,
        };
        lock().insert(path.to_path_buf(), hashed);
        sha256
    }

    /// The bytes the file at `path` is known to hold (`None`: not written by us, or
    /// changed since). `unmarked`: the watcher saw no change of `path` since the last
    /// build, so its stamp need not be checked.
    fn known(&self, path: &Path, unmarked: bool) -> Option<OutputBytes> {
        let (last, stamp) = {
            let log = self.written.lock().unwrap_or_else(|e| e.into_inner());
            let l = log.get(path)?;
            (l.bytes.clone(), l.stamp)
        };
        if !unmarked && Stamp::of_path(path)? != stamp {
            return None;
        }
        Some(last)
    }

    /// `path` now holds `bytes`: the result that last held it there is no longer on disk.
    fn record(&self, path: &Path, bytes: &OutputBytes) {
        let stamp = Stamp::of_path(path);
        let mut log = self.written.lock().unwrap_or_else(|e| e.into_inner());
        let Some(stamp) = stamp else {
            if let Some(old) = log.remove(path) {
                old.disown();
            }
            return;
        };
        let new = Logged {
            bytes: bytes.clone(),
            stamp,
            owner: Weak::new(),
        };
        if let Some(old) = log.insert(path.to_path_buf(), new) {
            old.disown();
        }
    }

    /// After every output of `result` was written or found on disk: mark it on disk,
    /// unless another build of this process replaced one of its files meanwhile.
    fn settle(&self, result: &Arc<JobResult>) {
        let mut log = self.written.lock().unwrap_or_else(|e| e.into_inner());
        for o in &result.outputs {
            let Some(l) = log.get_mut(&o.path) else {
                return;
            };
            if !same_bytes(&l.bytes, &o.bytes) {
                return;
            }
            l.bytes = o.bytes.clone();
            if !std::ptr::eq(l.owner.as_ptr(), Arc::as_ptr(result)) {
                l.disown();
                l.owner = Arc::downgrade(result);
            }
        }
        result.on_disk.store(true, Ordering::Release);
    }
}

impl Logged {
    fn disown(&self) {
        if let Some(owner) = self.owner.upgrade() {
            owner.on_disk.store(false, Ordering::Release);
        }
    }
}
