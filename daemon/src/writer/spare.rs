//! Double-buffered output files. A large output is not written to a fresh temp file: the
//! version before last, kept as a *spare*, is rewritten in place (from the first byte that
//! changed, when its content is known) and swapped in with one atomic
//! `renameat2(RENAME_EXCHANGE)`; the version it replaces becomes the next spare.
//!
//! Why: a fresh file costs page allocation and clearing for every byte (and freeing the
//! replaced file's pages); overwriting a file whose pages are cached is a memory copy. For
//! the ~80 MB outputs of a 1,000-function APS file that is the difference between most of
//! an edit's latency and a few milliseconds. Readers still only ever see whole files: the
//! output path switches between complete versions with one rename, as with temp + rename.
//!
//! A spare is reused only when no one else can observe the rewrite:
//! - it is claimed first by renaming it to a name unique to this writer, so two writers
//!   (threads or processes) never write the same file;
//! - it must be a regular file of this user with exactly one link (no hard link kept by a
//!   build system's cache or a user);
//! - this process must get a write lease on it, which Linux grants only when no other open
//!   file description of it exists (a reader, or a mapping, still holding that older
//!   version), and holds while writing (an `open` meanwhile waits for the lease's release).
//!   The kernel tells a lease holder of such an `open` with a signal; the lease is set to
//!   send `SIGURG`, which a process ignores unless it handles it, and is not taken when
//!   this process does (no signal disposition is ever changed).
//!
//! Otherwise the spare is unlinked (readers keep their copy) and a new one written whole.
//!
//! An output written for the first time has no spare, so the first edit after a cold build
//! would write a whole new file. A writer set to [`super::Spares::Ahead`] (the daemon's)
//! makes a spare for such an output on a background thread ([`prepare`]), off the
//! request's path: a copy written to a claim, moved to the spare's name only if none
//! appeared meanwhile (`RENAME_NOREPLACE`), and recorded with what it holds — both under
//! the log's lock, under which [`write`] also takes the record and claims the spare, so a
//! writer sees either no spare or a recorded one.
//! Which bytes a spare holds is trusted only while its inode, size and mtime are those
//! recorded after it was set aside; anything else rewrites it whole. Spares live in
//! `.kiln-spare/` beside the outputs (named `<output>.spare`, never `.mlir`/`.blif`), only
//! for outputs of at least [`MIN_LEN`] bytes, and only on Linux; they can be deleted at any
//! time.

use crate::db::OutputBytes;
use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Outputs smaller than this are written to a fresh temp file (a spare would only double
/// the files of an output directory for no measurable gain).
pub const MIN_LEN: usize = 1 << 20;

/// What this process knows of the spares it set aside: the bytes each holds, and the
/// identity of the file they are in. Cheap to clone (shared with [`prepare`]'s threads).
#[derive(Debug, Default, Clone)]
pub struct SpareLog(Arc<Shared>);

#[derive(Debug, Default)]
struct Shared {
    known: Mutex<HashMap<PathBuf, Known>>,
}

#[derive(Debug)]
struct Known {
    bytes: OutputBytes,
    ino: u64,
    len: u64,
    mtime_ns: i128,
}

/// How an output was written (for tests and logs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The spare was rewritten from this byte offset on (0: whole) and swapped in.
    Spare { from: u64 },
    /// A new file was written whole (no usable spare) and swapped in.
    Fresh,
    /// The file system cannot exchange files: a new file was renamed over the output.
    Renamed,
}

/// The directory of spares for `path`.
pub fn spare_dir(path: &Path) -> PathBuf {
    parent(path).join(".kiln-spare")
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn spare_path(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    spare_dir(path).join(format!("{name}.spare"))
}

fn claim_path(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    spare_dir(path).join(format!(
        "{name}.{}.{}.claim",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ))
}

fn mtime_ns(meta: &fs::Metadata) -> i128 {
    use std::os::unix::fs::MetadataExt;
    meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128
}

impl SpareLog {
    fn put(&self, path: &Path, known: Option<Known>) {
        let mut log = self.lock();
        match known {
            Some(k) => log.insert(path.to_path_buf(), k),
            None => log.remove(path),
        };
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Known>> {
        self.0.known.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Whether `bytes` for `path` go through a spare: large enough, on Linux, replacing an
/// existing regular file.
pub fn eligible(path: &Path, bytes: &OutputBytes) -> bool {
    cfg!(target_os = "linux")
        && bytes.len() >= MIN_LEN
        && fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// Replace the file at `path` (an existing regular file, see [`eligible`]) with `bytes`
/// atomically, through its spare. `replaced`: the bytes the file at `path` holds now, if
/// known — they become the spare's known content.
pub fn write(
    path: &Path,
    bytes: &OutputBytes,
    replaced: Option<&OutputBytes>,
    log: &SpareLog,
) -> io::Result<Written> {
    let dir = spare_dir(path);
    fs::create_dir_all(&dir)?;
    super::sweep::once(&dir);
    let spare = spare_path(path);
    let claim = claim_path(path);
    // Under the lock: a spare [`prepare`] sets aside is either not there yet or recorded.
    let (known, claimed) = {
        let mut log = log.lock();
        (log.remove(path), fs::rename(&spare, &claim))
    };
    let reused = match claimed {
        Ok(()) => sys::rewrite(&claim, bytes, known.as_ref())?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let how = match reused {
        Some(from) => Written::Spare { from },
        None => {
            remove_if_present(&claim)?;
            write_new(&claim, bytes)?;
            Written::Fresh
        }
    };
    match sys::exchange(&claim, path) {
        Ok(true) => {}
        Ok(false) => {
            fs::rename(&claim, path).inspect_err(|_| {
                let _ = fs::remove_file(&claim);
            })?;
            return Ok(Written::Renamed);
        }
        Err(e) => {
            let _ = fs::remove_file(&claim);
            return Err(e);
        }
    }
    // `claim` now holds the replaced version: set it aside as the spare.
    if fs::rename(&claim, &spare).is_err() {
        let _ = fs::remove_file(&claim);
        return Ok(how);
    }
    let known = match (replaced, fs::symlink_metadata(&spare)) {
        (Some(b), Ok(meta)) if meta.len() == b.len() as u64 => {
            use std::os::unix::fs::MetadataExt;
            Some(Known {
                bytes: b.clone(),
                ino: meta.ino(),
                len: meta.len(),
                mtime_ns: mtime_ns(&meta),
            })
        }
        _ => None,
    };
    log.put(path, known);
    Ok(how)
}

/// After `path` was written with `bytes` for the first time: make its spare on a
/// background thread, holding the same bytes, unless one exists (or the output is small,
/// or not on Linux). The handle is for tests; builds let the thread run.
pub fn prepare(
    path: &Path,
    bytes: &OutputBytes,
    log: &SpareLog,
) -> Option<std::thread::JoinHandle<()>> {
    if !cfg!(target_os = "linux") || bytes.len() < MIN_LEN {
        return None;
    }
    let (path, bytes, log) = (path.to_path_buf(), bytes.clone(), log.clone());
    let spawned = std::thread::Builder::new()
        .name("kiln-spare".into())
        .spawn(move || {
            let claim = claim_path(&path);
            if let Err(e) = set_aside_copy(&path, &claim, &bytes, &log) {
                let _ = fs::remove_file(&claim);
                tracing::debug!(path = %path.display(), error = %e, "spare not prepared");
            }
        });
    spawned.ok()
}

/// [`prepare`]'s work: `bytes` written to `claim`, then moved to the spare's name and
/// recorded, under the log's lock, unless a spare exists by then.
fn set_aside_copy(
    path: &Path,
    claim: &Path,
    bytes: &OutputBytes,
    log: &SpareLog,
) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let dir = spare_dir(path);
    let spare = spare_path(path);
    fs::create_dir_all(&dir)?;
    super::sweep::once(&dir);
    if fs::symlink_metadata(&spare).is_ok() {
        return Ok(());
    }
    let meta = write_new(claim, bytes)?.metadata()?;
    let mut known = log.lock();
    if !sys::rename_noreplace(claim, &spare)? {
        drop(known);
        return fs::remove_file(claim);
    }
    known.insert(
        path.to_path_buf(),
        Known {
            bytes: bytes.clone(),
            ino: meta.ino(),
            len: meta.len(),
            mtime_ns: mtime_ns(&meta),
        },
    );
    Ok(())
}

/// A new file at `path` (which must not exist) holding `bytes`.
fn write_new(path: &Path, bytes: &OutputBytes) -> io::Result<fs::File> {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    super::sweep::hold(&f);
    super::write_all_parts(&mut f, &bytes.parts)?;
    Ok(f)
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Byte offset of the first part of `new` that differs from `old` (parts compared as
/// [`OutputBytes`] compares them: shared parts without reading them).
fn first_difference(old: &OutputBytes, new: &OutputBytes) -> u64 {
    let k = super::first_change(&old.parts, &new.parts);
    new.parts[..k].iter().map(|p| p.len() as u64).sum()
}

#[cfg(target_os = "linux")]
mod sys {
    use super::{Known, first_difference, mtime_ns};
    use crate::db::OutputBytes;
    use std::ffi::CString;
    use std::fs;
    use std::io::{self, Seek, SeekFrom};
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    /// Rewrite the claimed spare at `claim` in place to hold `bytes`, when it may be
    /// (see the module docs); returns the offset written from, or `None` when it may not.
    pub(super) fn rewrite(
        claim: &Path,
        bytes: &OutputBytes,
        known: Option<&Known>,
    ) -> io::Result<Option<u64>> {
        let mut f = match fs::OpenOptions::new().write(true).open(claim) {
            Ok(f) => f,
            Err(_) => return Ok(None),
        };
        let meta = f.metadata()?;
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        if !meta.file_type().is_file() || meta.nlink() != 1 || meta.uid() != me {
            return Ok(None);
        }
        let Some(_lease) = Lease::take(&f) else {
            return Ok(None);
        };
        super::super::sweep::hold(&f);
        let from = match known {
            Some(k)
                if k.ino == meta.ino() && k.len == meta.len() && k.mtime_ns == mtime_ns(&meta) =>
            {
                first_difference(&k.bytes, bytes)
            }
            _ => 0,
        };
        f.seek(SeekFrom::Start(from))?;
        let mut skip = from;
        let mut start = 0;
        for p in bytes.parts.iter() {
            if skip < p.len() as u64 {
                break;
            }
            skip -= p.len() as u64;
            start += 1;
        }
        debug_assert_eq!(skip, 0, "the offset falls on a part boundary");
        super::super::write_all_parts(&mut f, &bytes.parts[start..])?;
        f.set_len(bytes.len() as u64)?;
        Ok(Some(from))
    }

    /// A write lease on an open file, released on drop (declare it after the file, so
    /// that it drops first).
    struct Lease(std::os::fd::RawFd);

    impl Lease {
        /// A write lease on `f`, whose break (another `open` of the file) is signalled
        /// with `SIGURG`; `None` when this process handles `SIGURG` (it would be woken for
        /// nothing) or the kernel declines the lease.
        fn take(f: &fs::File) -> Option<Lease> {
            if !sigurg_ignored() {
                return None;
            }
            let (fd, setsig) = (f.as_raw_fd(), F_SETSIG?);
            // SAFETY: fcntl on a valid open descriptor with integer arguments.
            if unsafe { libc::fcntl(fd, setsig, libc::SIGURG) } != 0 {
                return None;
            }
            // SAFETY: as above.
            let r = unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_WRLCK) };
            (r == 0).then_some(Lease(fd))
        }
    }

    impl Drop for Lease {
        fn drop(&mut self) {
            // SAFETY: as in `take`; the file outlives the lease.
            unsafe { libc::fcntl(self.0, libc::F_SETLEASE, libc::F_UNLCK) };
        }
    }

    /// `F_SETSIG` of `<asm-generic/fcntl.h>` (the `libc` crate exports it for few targets);
    /// elsewhere no lease is taken, so spares are written whole instead of in place.
    const F_SETSIG: Option<libc::c_int> = match cfg!(any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64",
        target_arch = "loongarch64"
    )) {
        true => Some(10),
        false => None,
    };

    /// Whether `SIGURG` has its default disposition (ignore) or is ignored: then the
    /// signal a lease break sends is discarded by the kernel. Only reads the disposition.
    pub(super) fn sigurg_ignored() -> bool {
        // SAFETY: a query (no new action) with a valid out-pointer.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGURG, std::ptr::null(), &mut old) == 0
                && (old.sa_sigaction == libc::SIG_DFL || old.sa_sigaction == libc::SIG_IGN)
        }
    }

    /// Atomically exchange the files at `a` and `b`; `Ok(false)` when the file system or
    /// kernel cannot.
    pub(super) fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
        let cannot = [libc::EINVAL, libc::ENOSYS, libc::EOPNOTSUPP, libc::ENOENT];
        rename2(a, b, libc::RENAME_EXCHANGE, &cannot)
    }

    /// Rename `a` to `b` unless `b` exists; `Ok(false)` when it does, or when the file
    /// system or kernel cannot rename that way.
    pub(super) fn rename_noreplace(a: &Path, b: &Path) -> io::Result<bool> {
        let cannot = [libc::EEXIST, libc::EINVAL, libc::ENOSYS, libc::EOPNOTSUPP];
        rename2(a, b, libc::RENAME_NOREPLACE, &cannot)
    }

    /// `renameat2(a, b, flags)`: `Ok(true)` when done, `Ok(false)` when it failed with one
    /// of the `declined` errors.
    fn rename2(a: &Path, b: &Path, flags: libc::c_uint, declined: &[i32]) -> io::Result<bool> {
        let a = CString::new(a.as_os_str().as_bytes())?;
        let b = CString::new(b.as_os_str().as_bytes())?;
        // SAFETY: two valid NUL-terminated paths relative to the working directory.
        let r = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                flags,
            )
        };
        if r == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(code) if declined.contains(&code) => Ok(false),
            _ => Err(e),
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    use super::Known;
    use crate::db::OutputBytes;
    use std::io;
    use std::path::Path;

    pub(super) fn rewrite(_: &Path, _: &OutputBytes, _: Option<&Known>) -> io::Result<Option<u64>> {
        Ok(None)
    }

    pub(super) fn exchange(_: &Path, _: &Path) -> io::Result<bool> {
        Ok(false)
    }

    pub(super) fn rename_noreplace(_: &Path, _: &Path) -> io::Result<bool> {
        Ok(false)
    }
}

#[cfg(all(test, target_os = "linux"))]
#[path = "spare_tests.rs"]
mod tests;
