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
//! "Unchanged since" is what the daemon's watcher says: before a build computes, the
//! changes below its output directory ([`Writer::invalidate`]) make every output the
//! writer remembers there unverified (and the job results holding them no longer on
//! disk), whichever build of the daemon reads them, so a deleted file, or a directory
//! deleted and made again, is written by the next build that has it. An unverified output
//! is checked with one `stat` against what was written; without a watcher every output
//! is.
//!
//! Every file is written in a directory opened once ([`dir`]), never through a link
//! another user can plant there; an output that is not a regular file (a device, a FIFO, a
//! socket) is never renamed over: a build refuses it, and a file named on the command line
//! ([`write_atomic`]) is written through when it is a character device or a FIFO, as a
//! shell redirection writes it.
//!
//! Outputs are regenerable, so they are not fsynced: the rename keeps readers from seeing a
//! partial file, and a crash at worst loses an output the next build writes again. A write
//! that fails (a full disk) removes what it created before it returns; the temp files and
//! spare claims a crashed writer leaves are removed by the next process that writes in
//! their directory ([`sweep`]).

mod dir;
mod spare;
pub(crate) mod sweep;
mod unnamed;

use crate::compute::{Computed, JobResult, Output};
use crate::db::{OutputBytes, same_part};
use crate::report::OutputFile;
use crate::spec::BuildSpec;
use crate::watcher::RootMarks;
use crate::workspace::Stamp;
use bytes::Bytes;
use dir::Dir;
use rustix::fs::FileType;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::fs;
use std::io::{Read, Write};
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

/// How a `Writer` uses spares for large outputs (the process that owns it chooses).
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
pub(crate) struct WriteTimes {
    pub(crate) hash: Duration,
    pub(crate) write: Duration,
}

/// The files of a report and how many unchanged ones it leaves out.
#[derive(Debug, Default)]
pub(crate) struct WrittenFiles {
    pub(crate) files: Vec<OutputFile>,
    pub(crate) unchanged_omitted: u64,
}

/// Writes builds' outputs, remembering what it wrote.
#[derive(Debug)]
pub(crate) struct Writer {
    log: OutputLog,
    spares: Spares,
}

impl Writer {
    pub(crate) fn new(spares: Spares) -> Writer {
        Writer {
            log: OutputLog::default(),
            spares,
        }
    }

    /// Write every output of `computed` atomically (only when its bytes change) and list
    /// them. Outputs are split between the available cores when one is large (an APS
    /// file's two large outputs write in parallel). `spec.digests`: fill in SHA-256
    /// digests; `spec.changed_only`: list the written files only (and count the others).
    pub(crate) fn write(
        &self,
        computed: &Computed,
        spec: &BuildSpec,
        times: &mut WriteTimes,
    ) -> Result<WrittenFiles, WriteError> {
        let results: Vec<&Arc<JobResult>> = computed.results().collect();
        let skip: Vec<bool> = results
            .iter()
            .map(|r| r.on_disk.load(Ordering::Acquire))
            .collect();
        let todo: Vec<&Output> = results
            .iter()
            .zip(&skip)
            .filter(|(_, s)| !**s)
            .flat_map(|(r, _)| r.outputs.iter())
            .collect();
        let dirs = Dirs::new(&spec.out_dir);
        let mut checked = self
            .write_in_threads(&todo, &dirs, spec, times)?
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

    /// Before a build into `root` computes: what the watcher saw change below `root` since
    /// the last build into it (`Unknown`: anything) is no longer known to be on disk as
    /// written. Call it in the order the marks were taken (under the workspace's lock).
    pub(crate) fn invalidate(&self, root: &Path, marks: &RootMarks) {
        self.log.invalidate(root, marks);
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
        dirs: &Dirs,
        spec: &BuildSpec,
        times: &mut WriteTimes,
    ) -> Result<Vec<Checked>, WriteError> {
        let big = todo.iter().any(|o| o.bytes.len() > 1 << 20);
        let threads = if big { compiler::par::cores() } else { 1 };
        // After a failed write no further output is started (as a sequential write stops).
        let failed = std::sync::atomic::AtomicBool::new(false);
        let write = |o: &&Output| {
            if failed.load(std::sync::atomic::Ordering::Relaxed) {
                return None;
            }
            let mut t = WriteTimes::default();
            let r = self.write_output(o, dirs, spec, &mut t);
            if r.is_err() {
                failed.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            Some((r, t))
        };
        let results = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            compiler::par::map(threads, todo, write)
        }))
        .map_err(|_| WriteError::Panicked)?;
        let mut files = Vec::with_capacity(todo.len());
        let mut first_error = None;
        for (r, t) in results.into_iter().flatten() {
            times.hash += t.hash;
            times.write += t.write;
            match r {
                Ok(c) => files.push(c),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(files),
        }
    }

    fn write_output(
        &self,
        o: &Output,
        dirs: &Dirs,
        spec: &BuildSpec,
        times: &mut WriteTimes,
    ) -> Result<Checked, WriteError> {
        let sha256 = self.digest_if(spec.digests, o, times);
        let t = Instant::now();
        let seq = self.log.seq();
        let written = match self.log.known(&o.path) {
            Some(last) if same_bytes(&last, &o.bytes) => false,
            known => {
                let write = || {
                    let dir = dirs.get(&o.path)?;
                    let new_dir = sweep::once(&dir);
                    self.replace(&dir, &o.path, &o.bytes, known.as_ref(), new_dir)
                };
                let (w, stamp) = match write() {
                    // The directory was removed after it was opened: once more, made again.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        dirs.forget();
                        write()
                    }
                    r => r,
                }
                .map_err(|source| WriteError::Io {
                    path: o.path.clone(),
                    source,
                })?;
                self.log.record(&o.path, &o.bytes, stamp, seq);
                w
            }
        };
        times.write += t.elapsed();
        Ok((written, sha256))
    }

    /// Write `bytes` to `path` (in `dir`) atomically, unless the file holds them already
    /// (checked by reading it when `replaced`, the bytes it is known to hold, is unknown);
    /// whether it was written, and the stamp of the file that holds them. Large outputs go
    /// through a spare, others through a fresh temp file. `new_dir`: the directory is new
    /// ([`sweep::once`]).
    fn replace(
        &self,
        dir: &Dir,
        path: &Path,
        bytes: &OutputBytes,
        replaced: Option<&OutputBytes>,
        new_dir: bool,
    ) -> std::io::Result<(bool, Option<Stamp>)> {
        if !spare::eligible(dir, path, bytes) {
            let before = match replaced {
                Some(_) => Before::Differs,
                None => Before::in_dir(new_dir),
            };
            let written = write_parts(dir, path, &bytes.parts, before, Special::Refuse)?;
            if self.spares == Spares::Ahead {
                spare::prepare(dir, path, bytes, &self.log.spares);
            }
            return Ok(written);
        }
        if replaced.is_none()
            && let Existing::Holds(stamp) = existing(dir, name_of(path)?, &bytes.parts)
        {
            return Ok((false, Some(stamp)));
        }
        match spare::write(dir, path, bytes, replaced, &self.log.spares) {
            Ok((_, stamp)) => Ok((true, stamp)),
            Err(e) => {
                // The output is untouched: write it the plain way.
                tracing::debug!(path = %path.display(), error = %e, "spare write failed");
                write_parts(dir, path, &bytes.parts, Before::Differs, Special::Refuse)
            }
        }
    }
}

/// Whether an output was written, and its digest (if asked for).
type Checked = (bool, Option<[u8; 32]>);

/// The directories a build writes into, each opened once: the output directory as named,
/// the directories below it without following another user's link ([`dir`]).
struct Dirs<'a> {
    root: &'a Path,
    open: Mutex<HashMap<PathBuf, Arc<Dir>>>,
}

impl<'a> Dirs<'a> {
    fn new(root: &'a Path) -> Dirs<'a> {
        Dirs {
            root,
            open: Mutex::default(),
        }
    }

    /// The directory of the output `path`, opened (and made) if needed.
    fn get(&self, path: &Path) -> std::io::Result<Arc<Dir>> {
        self.dir(parent(path))
    }

    /// The directory `dir`, opened (and made) if needed: one below the root from its
    /// parent's handle, so that each directory of a tree costs one `openat`.
    fn dir(&self, dir: &Path) -> std::io::Result<Arc<Dir>> {
        let lock = || self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = lock().get(dir) {
            return Ok(d.clone());
        }
        let below = dir != self.root && dir.starts_with(self.root);
        let opened = match (below, dir.parent(), dir.file_name()) {
            (true, Some(up), Some(name)) => self.dir(up)?.subdir(name)?,
            _ => Dir::open(dir)?,
        };
        let d = Arc::new(opened);
        lock().insert(dir.to_path_buf(), d.clone());
        Ok(d)
    }

    /// The directories are to be opened again (one was removed meanwhile).
    fn forget(&self) {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// Write `parts` (concatenated) to `path` atomically; nothing when the file already holds
/// these bytes. Returns whether the file was written. A character device or a FIFO at
/// `path` (or a link to one, or to an open descriptor in `/proc`: `/dev/stdout`) is
/// written through, as a shell redirection writes it; anything else that is not a regular
/// file or a link is refused.
pub fn write_atomic<P: AsRef<[u8]>>(path: &Path, parts: &[P]) -> Result<bool, WriteError> {
    let write = || {
        let dir = Dir::open(parent(path))?;
        let new_dir = sweep::once(&dir);
        let before = Before::in_dir(new_dir);
        write_parts(&dir, path, parts, before, Special::WriteThrough)
    };
    write().map(|w| w.0).map_err(|source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// What [`write_parts`] does with an output that is there and is neither a regular file
/// nor a link.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Special {
    /// Refuse it (a build's outputs: kiln names them, in directories others may share).
    Refuse,
    /// Write through a character device or a FIFO (a file named on the command line).
    WriteThrough,
}

/// The name of `path`'s file in its directory.
fn name_of(path: &Path) -> std::io::Result<&OsStr> {
    path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a file name (it ends in `..` or `/`)",
        )
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
/// is known to differ, one that holds `parts` already is left alone. Whether the file was
/// written, and the stamp of the file that holds `parts`. A failure leaves nothing behind.
fn write_parts<P: AsRef<[u8]>>(
    dir: &Dir,
    path: &Path,
    parts: &[P],
    before: Before,
    special: Special,
) -> std::io::Result<(bool, Option<Stamp>)> {
    let name = name_of(path)?;
    // Whether linking an unnamed file is still worth a try (not once it was declined).
    let mut link = true;
    if before == Before::Absent {
        // Link first; look only when that fails (a taken name: `dir` is no longer new).
        match unnamed::write(dir, name, parts)? {
            unnamed::Unnamed::Linked(f) => return Ok((true, stamp_of(&f))),
            unnamed::Unnamed::Taken => sweep::taken(dir.path()),
            unnamed::Unnamed::Declined => link = false,
        }
    }
    if before != Before::Differs {
        match existing(dir, name, parts) {
            Existing::Holds(stamp) => return Ok((false, Some(stamp))),
            Existing::Absent if link => {
                if let unnamed::Unnamed::Linked(f) = unnamed::write(dir, name, parts)? {
                    return Ok((true, stamp_of(&f)));
                }
            }
            Existing::Special(t) => return write_special(dir, name, parts, t, special),
            Existing::Link if special == Special::WriteThrough => {
                if let Some(t) = written_through(dir, name) {
                    return write_special(dir, name, parts, t, special);
                }
            }
            Existing::Absent | Existing::Differs | Existing::Link => {}
        }
    }
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let mut tries = 0;
    let (tmp, mut f) = loop {
        let mut tmp = std::ffi::OsString::from(".");
        tmp.push(name);
        // After a taken name (a leftover, or a name planted ahead), one no one can guess.
        let n = match tries {
            0 => SEQ.fetch_add(1, Ordering::Relaxed),
            _ => random_u64(),
        };
        tmp.push(format!(".tmp.{}.{n}", std::process::id()));
        match dir.create_new(&tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 8 => tries += 1,
            Err(e) => return Err(e),
        }
    };
    // Held (open and locked) until renamed: no sweep takes it for a leftover.
    sweep::hold(&f);
    let written = write_all_parts(&mut f, parts).and_then(|()| dir.rename_to(&tmp, dir, name));
    if written.is_err() {
        dir.discard(&tmp);
    }
    written?;
    Ok((true, stamp_of(&f)))
}

/// A number from the standard library's randomly keyed hasher (seeded from the system's
/// randomness once per process, and different on every call).
pub(crate) fn random_u64() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(std::time::Instant::now())
}

/// The stamp of an open file (after it was renamed or linked to its name).
fn stamp_of(f: &fs::File) -> Option<Stamp> {
    f.metadata().ok().map(|m| Stamp::of(&m))
}

/// What a link at an output's path leads to when it is written through rather than
/// replaced: a character device or a FIFO, or an open descriptor (`/dev/stdout` is a link
/// to `/proc/self/fd/1`, whatever that is).
fn written_through(dir: &Dir, name: &OsStr) -> Option<FileType> {
    let t = FileType::from_raw_mode(dir.stat(name).ok()?.st_mode);
    let to_proc = dir
        .read_link(name)
        .is_ok_and(|l| l.as_bytes().starts_with(b"/proc/"));
    match t {
        FileType::CharacterDevice | FileType::Fifo => Some(t),
        _ if to_proc || dir.in_proc() => Some(t),
        _ => None,
    }
}

/// Write `parts` to `name`, which is there and is not a regular file (of type `t`): through
/// it when it is a character device or a FIFO (or an open descriptor) and `special` allows,
/// else refused. Never renamed over, never chmod-ed.
fn write_special<P: AsRef<[u8]>>(
    dir: &Dir,
    name: &OsStr,
    parts: &[P],
    t: FileType,
    special: Special,
) -> std::io::Result<(bool, Option<Stamp>)> {
    let through = matches!(
        t,
        FileType::CharacterDevice | FileType::Fifo | FileType::RegularFile
    );
    if special == Special::WriteThrough && through {
        let mut f = dir.open_to_write_through(name)?;
        write_all_parts(&mut f, parts)?;
        return Ok((true, None));
    }
    let what = dir::kind_of(t);
    let message = match special {
        Special::Refuse => format!(
            "is {what}, not a regular file: kiln does not replace it (remove it, or write the outputs elsewhere)"
        ),
        Special::WriteThrough => format!(
            "is {what}: kiln writes a regular file, or through a character device or a FIFO"
        ),
    };
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        message,
    ))
}

/// The directory of `path` (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// What is at an output's name, against the bytes about to be written there.
#[derive(PartialEq, Eq)]
enum Existing {
    /// Nothing.
    Absent,
    /// A regular file that holds exactly these bytes (with its stamp).
    Holds(Stamp),
    /// A regular file with other bytes, or what could not be read.
    Differs,
    /// A symbolic link (not followed).
    Link,
    /// Something else: a device, a FIFO, a socket, a directory.
    Special(FileType),
}

/// What is at `name` in `dir`, against the concatenation of `parts` (a regular file read
/// only when its size matches; nothing else opened).
fn existing<P: AsRef<[u8]>>(dir: &Dir, name: &OsStr, parts: &[P]) -> Existing {
    let len: usize = parts.iter().map(|p| p.as_ref().len()).sum();
    let st = match dir.lstat(name) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Existing::Absent,
        Err(_) => return Existing::Differs,
        Ok(st) => st,
    };
    match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => {}
        FileType::Symlink => return Existing::Link,
        t => return Existing::Special(t),
    }
    if st.st_size as u64 != len as u64 {
        return Existing::Differs;
    }
    let flags = rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NONBLOCK;
    let Ok(mut f) = dir.open_nofollow(name, flags) else {
        return Existing::Differs;
    };
    let Ok(meta) = f.metadata() else {
        return Existing::Differs;
    };
    let mut existing = Vec::with_capacity(len);
    if !meta.is_file() || meta.len() != len as u64 || f.read_to_end(&mut existing).is_err() {
        return Existing::Differs;
    }
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
        true => Existing::Holds(Stamp::of(&meta)),
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

/// What this process knows of each output path: the bytes it last wrote there (shared
/// parts) with the file's stamp just after the write, and, for clients that ask for
/// digests, the SHA-256 state of the parts it last hashed (midstates at every part
/// boundary, so that an edit re-hashes only from the first changed part).
#[derive(Debug, Default)]
struct OutputLog {
    hashed: Mutex<BTreeMap<PathBuf, Hashed>>,
    written: Mutex<WrittenLog>,
    spares: spare::SpareLog,
}

/// The outputs written or checked, by path (sorted: a directory's are together), and how
/// many invalidations happened: a file checked or written while one happened is not
/// trusted until it is checked again.
#[derive(Debug, Default)]
struct WrittenLog {
    files: BTreeMap<PathBuf, Logged>,
    invalidations: u64,
}

/// An output as last written or checked, and the job result it was checked for.
#[derive(Debug)]
struct Logged {
    bytes: OutputBytes,
    stamp: Stamp,
    /// Nothing the watcher saw since it was written or checked touched it: it needs no
    /// `stat` (see [`Writer::invalidate`]).
    trusted: bool,
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

    fn lock(&self) -> std::sync::MutexGuard<'_, WrittenLog> {
        self.written.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The number of invalidations so far (taken before a file is written or checked).
    fn seq(&self) -> u64 {
        self.lock().invalidations
    }

    /// The outputs below `root` that the watcher saw change (`Unknown`: all of them) are
    /// no longer trusted, nor are the results that hold them on disk.
    fn invalidate(&self, root: &Path, marks: &RootMarks) {
        let all = [root.to_path_buf()];
        let changed = match marks {
            RootMarks::Changed(c) if c.is_empty() => return,
            RootMarks::Changed(c) => c.iter().collect::<Vec<_>>(),
            RootMarks::Unknown => all.iter().collect(),
        };
        let mut log = self.lock();
        // Also when nothing is logged there yet: a write in flight records an untrusted file.
        log.invalidations += 1;
        for p in changed {
            let below = log.files.range_mut::<Path, _>((
                std::ops::Bound::Included(p.as_path()),
                std::ops::Bound::Unbounded,
            ));
            for (_, l) in below.take_while(|(q, _)| q.starts_with(p)) {
                l.trusted = false;
                l.disown();
            }
        }
    }

    /// The bytes the file at `path` is known to hold (`None`: not written by us, or
    /// changed since). An untrusted file is checked against the stamp taken when it was
    /// written (and trusted again when it matches).
    fn known(&self, path: &Path) -> Option<OutputBytes> {
        let (last, stamp, seq) = {
            let log = self.lock();
            let l = log.files.get(path)?;
            if l.trusted {
                return Some(l.bytes.clone());
            }
            (l.bytes.clone(), l.stamp, log.invalidations)
        };
        let now = fs::symlink_metadata(path).ok().map(|m| Stamp::of(&m));
        if now != Some(stamp) {
            return None;
        }
        let mut log = self.lock();
        if log.invalidations == seq
            && let Some(l) = log.files.get_mut(path)
            && l.stamp == stamp
        {
            l.trusted = true;
        }
        Some(last)
    }

    /// `path` now holds `bytes`, in the file of `stamp` (`None`: unknown), written or
    /// checked since invalidation `seq`: the result that last held it there is no longer
    /// on disk.
    fn record(&self, path: &Path, bytes: &OutputBytes, stamp: Option<Stamp>, seq: u64) {
        let mut log = self.lock();
        let Some(stamp) = stamp else {
            if let Some(old) = log.files.remove(path) {
                old.disown();
            }
            return;
        };
        let new = Logged {
            bytes: bytes.clone(),
            stamp,
            trusted: log.invalidations == seq,
            owner: Weak::new(),
        };
        if let Some(old) = log.files.insert(path.to_path_buf(), new) {
            old.disown();
        }
    }

    /// After every output of `result` was written or found on disk: mark it on disk,
    /// unless another build of this process replaced one of its files meanwhile, or one
    /// is not trusted.
    fn settle(&self, result: &Arc<JobResult>) {
        let mut log = self.lock();
        for o in &result.outputs {
            let Some(l) = log.files.get_mut(&o.path) else {
                return;
            };
            if !l.trusted || !same_bytes(&l.bytes, &o.bytes) {
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
