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
//!   build system's cache or a user), opened without following a link, in a spares'
//!   directory only this user may write to ([`super::dir::Dir::spares`]);
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
//! time. A write that fails (a full disk) removes the claim it made before it returns.

use super::dir::Dir;
use crate::db::OutputBytes;
use crate::workspace::Stamp;
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Outputs smaller than this are written to a fresh temp file (a spare would only double
/// the files of an output directory for no measurable gain).
pub(crate) const MIN_LEN: usize = 1 << 20;

/// What this process knows of the spares it set aside: the bytes each holds, and the
/// identity of the file they are in. Cheap to clone (shared with [`prepare`]'s threads).
#[derive(Debug, Default, Clone)]
pub(crate) struct SpareLog(Arc<Shared>);

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
pub(crate) enum Written {
    /// The spare was rewritten from this byte offset on (0: whole) and swapped in.
    Spare { from: u64 },
    /// A new file was written whole (no usable spare) and swapped in.
    Fresh,
    /// The file system cannot exchange files: a new file was renamed over the output.
    Renamed,
}

/// The name of `path`'s file (an output's name in its directory).
fn name_of(path: &Path) -> io::Result<&OsStr> {
    path.file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "an output path without a name"))
}

fn spare_name(name: &OsStr) -> OsString {
    let mut s = name.to_os_string();
    s.push(".spare");
    s
}

/// A claim's name, unique to this writer and not guessable by another user (who could
/// otherwise take it ahead and make spares fail).
fn claim_name(name: &OsStr) -> OsString {
    let mut s = name.to_os_string();
    let n = super::random_u64();
    s.push(format!(".{}.{n}.claim", std::process::id()));
    s
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

/// Whether `bytes` for `path` (in `dir`) go through a spare: large enough, on Linux,
/// replacing an existing regular file.
pub(crate) fn eligible(dir: &Dir, path: &Path, bytes: &OutputBytes) -> bool {
    cfg!(target_os = "linux")
        && bytes.len() >= MIN_LEN
        && name_of(path).is_ok_and(|n| {
            dir.lstat(n).is_ok_and(|st| {
                rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile
            })
        })
}

/// Replace the file at `path` in `dir` (an existing regular file, see [`eligible`]) with
/// `bytes` atomically, through its spare; with the stamp of the file written. `replaced`:
/// the bytes the file at `path` holds now, if known — they become the spare's known
/// content. Fails when `dir` has no usable spares' directory; a failed write removes the
/// claim it wrote and leaves the output as it was.
pub(crate) fn write(
    dir: &Dir,
    path: &Path,
    bytes: &OutputBytes,
    replaced: Option<&OutputBytes>,
    log: &SpareLog,
) -> io::Result<(Written, Option<Stamp>)> {
    let name = name_of(path)?;
    super::sweep::once(dir);
    let spares = dir
        .spares(true)
        .ok_or_else(|| io::Error::other("no usable spares' directory"))?;
    let (spare, claim) = (spare_name(name), claim_name(name));
    // Under the lock: a spare [`prepare`] sets aside is either not there yet or recorded.
    let (known, claimed) = {
        let mut log = log.lock();
        (log.remove(path), spares.rename_to(&spare, &spares, &claim))
    };
    let reused = match claimed {
        Ok(()) => sys::rewrite(&spares, &claim, bytes, known.as_ref())
            .inspect_err(|_| spares.discard(&claim))?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let (how, file) = match reused {
        Some((from, f)) => (Written::Spare { from }, f),
        None => {
            spares.discard(&claim);
            let f = write_new(&spares, &claim, bytes).inspect_err(|_| spares.discard(&claim))?;
            (Written::Fresh, f)
        }
    };
    let stamp = || file.metadata().ok().map(|m| Stamp::of(&m));
    match sys::exchange(&spares, &claim, dir, name) {
        Ok(true) => {}
        Ok(false) => {
            spares
                .rename_to(&claim, dir, name)
                .inspect_err(|_| spares.discard(&claim))?;
            return Ok((Written::Renamed, stamp()));
        }
        Err(e) => {
            spares.discard(&claim);
            return Err(e);
        }
    }
    let stamp = stamp();
    // `claim` now holds the replaced version: set it aside as the spare.
    if spares.rename_to(&claim, &spares, &spare).is_err() {
        spares.discard(&claim);
        return Ok((how, stamp));
    }
    let known = match (replaced, spares.lstat(&spare)) {
        (Some(b), Ok(st)) if st.st_size as u64 == b.len() as u64 => Some(Known {
            bytes: b.clone(),
            ino: st.st_ino,
            len: st.st_size as u64,
            mtime_ns: st.st_mtime as i128 * 1_000_000_000 + st.st_mtime_nsec as i128,
        }),
        _ => None,
    };
    log.put(path, known);
    Ok((how, stamp))
}

/// After `path` (in `dir`) was written with `bytes` for the first time: make its spare on
/// a background thread, holding the same bytes, unless one exists (or the output is small,
/// or not on Linux). The handle is for tests; builds let the thread run.
pub(crate) fn prepare(
    dir: &Dir,
    path: &Path,
    bytes: &OutputBytes,
    log: &SpareLog,
) -> Option<std::thread::JoinHandle<()>> {
    if !cfg!(target_os = "linux") || bytes.len() < MIN_LEN {
        return None;
    }
    let dir = dir.try_clone().ok()?;
    let (path, bytes, log) = (path.to_path_buf(), bytes.clone(), log.clone());
    let spawned = std::thread::Builder::new()
        .name("kiln-spare".into())
        .spawn(move || {
            if let Err(e) = set_aside_copy(&dir, &path, &bytes, &log) {
                tracing::debug!(path = %path.display(), error = %e, "spare not prepared");
            }
        });
    spawned.ok()
}

/// [`prepare`]'s work: `bytes` written to a claim, then moved to the spare's name and
/// recorded, under the log's lock, unless a spare exists by then. A failure removes the
/// claim.
fn set_aside_copy(dir: &Dir, path: &Path, bytes: &OutputBytes, log: &SpareLog) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let name = name_of(path)?;
    let Some(spares) = dir.spares(true) else {
        return Ok(());
    };
    super::sweep::once(dir);
    let (spare, claim) = (spare_name(name), claim_name(name));
    if spares.lstat(&spare).is_ok() {
        return Ok(());
    }
    let written = write_new(&spares, &claim, bytes).and_then(|f| f.metadata());
    let meta = written.inspect_err(|_| spares.discard(&claim))?;
    let mut known = log.lock();
    let noreplace = rustix::fs::RenameFlags::NOREPLACE;
    let cannot = [
        rustix::io::Errno::EXIST,
        rustix::io::Errno::INVAL,
        rustix::io::Errno::NOSYS,
        rustix::io::Errno::OPNOTSUPP,
    ];
    if !spares
        .rename2(&claim, &spares, &spare, noreplace, &cannot)
        .inspect_err(|_| spares.discard(&claim))?
    {
        drop(known);
        spares.discard(&claim);
        return Ok(());
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

/// A new file `name` in `dir` (which must not exist) holding `bytes`.
fn write_new(dir: &Dir, name: &OsStr, bytes: &OutputBytes) -> io::Result<fs::File> {
    let mut f = dir.create_new(name)?;
    super::sweep::hold(&f);
    super::write_all_parts(&mut f, &bytes.parts)?;
    Ok(f)
}

/// Byte offset of the first part of `new` that differs from `old` (parts compared as
/// [`OutputBytes`] compares them: shared parts without reading them).
fn first_difference(old: &OutputBytes, new: &OutputBytes) -> u64 {
    let k = super::first_change(&old.parts, &new.parts);
    new.parts[..k].iter().map(|p| p.len() as u64).sum()
}

#[cfg(target_os = "linux")]
mod sys {
    use super::super::dir::Dir;
    use super::{Known, first_difference, mtime_ns};
    use crate::db::OutputBytes;
    use std::ffi::OsStr;
    use std::fs;
    use std::io::{self, Seek, SeekFrom};
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;

    /// Rewrite the claimed spare `claim` (in `spares`) in place to hold `bytes`, when it
    /// may be (see the module docs; never through a link); returns the offset written from
    /// and the file, or `None` when it may not.
    pub(super) fn rewrite(
        spares: &Dir,
        claim: &OsStr,
        bytes: &OutputBytes,
        known: Option<&Known>,
    ) -> io::Result<Option<(u64, fs::File)>> {
        let mut f = match spares.open_nofollow(claim, rustix::fs::OFlags::WRONLY) {
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
        Ok(Some((from, f)))
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

    /// Atomically exchange `a` in `from` and `b` in `to`; `Ok(false)` when the file system
    /// or kernel cannot.
    pub(super) fn exchange(from: &Dir, a: &OsStr, to: &Dir, b: &OsStr) -> io::Result<bool> {
        use rustix::io::Errno;
        let cannot = [Errno::INVAL, Errno::NOSYS, Errno::OPNOTSUPP, Errno::NOENT];
        from.rename2(a, to, b, rustix::fs::RenameFlags::EXCHANGE, &cannot)
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    use super::super::dir::Dir;
    use super::Known;
    use crate::db::OutputBytes;
    use std::ffi::OsStr;
    use std::io;

    pub(super) fn rewrite(
        _: &Dir,
        _: &OsStr,
        _: &OutputBytes,
        _: Option<&Known>,
    ) -> io::Result<Option<(u64, std::fs::File)>> {
        Ok(None)
    }

    pub(super) fn exchange(_: &Dir, _: &OsStr, _: &Dir, _: &OsStr) -> io::Result<bool> {
        Ok(false)
    }
}

#[cfg(all(test, target_os = "linux"))]
#[path = "spare_tests.rs"]
mod tests;
