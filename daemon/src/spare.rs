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
//!
//! Otherwise the spare is unlinked (readers keep their copy) and a new one written whole.
//!
//! An output written for the first time has no spare, so the first edit after a cold build
//! would write a whole new file. For builds that ask (`BuildRequest.spares_ahead`: the
//! CLI's, whose outputs get edited; not a build system's, which deletes outputs before an
//! action) a spare is made for such an output on a background thread ([`prepare`]), off
//! the request's path: a copy written to a claim, moved to the spare's name only if none
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
    /// Spare directories this process has swept of claims left by dead writers.
    swept: Mutex<std::collections::HashSet<PathBuf>>,
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

    /// Once per directory: remove the claims of writers that died between claiming a
    /// spare and setting it aside again (`<output>.<pid>.<n>.claim` of a pid that is gone).
    fn sweep(&self, dir: &Path) {
        if !self
            .0
            .swept
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(dir.to_path_buf())
        {
            return;
        }
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".claim") else {
                continue;
            };
            let pid = stem.rsplit('.').nth(1).and_then(|p| p.parse::<u32>().ok());
            let gone = pid.is_some_and(|p| {
                p != std::process::id() && !Path::new(&format!("/proc/{p}")).exists()
            });
            if gone {
                let _ = fs::remove_file(e.path());
            }
        }
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
    log.sweep(&dir);
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
    log.sweep(&dir);
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
    crate::driver::write_all_parts(&mut f, &bytes.parts)?;
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
    let k = crate::driver::first_change(&old.parts, &new.parts);
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
        crate::driver::write_all_parts(&mut f, &bytes.parts[start..])?;
        f.set_len(bytes.len() as u64)?;
        Ok(Some(from))
    }

    /// A write lease on an open file, released on drop (declare it after the file, so
    /// that it drops first).
    struct Lease(std::os::fd::RawFd);

    impl Lease {
        fn take(f: &fs::File) -> Option<Lease> {
            ignore_sigio();
            let fd = f.as_raw_fd();
            // SAFETY: fcntl on a valid open descriptor with integer arguments.
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

    /// A lease's holder is signalled (SIGIO, whose default action terminates the
    /// process) when another process opens the file; the open then waits until the lease
    /// is released. This process never uses SIGIO otherwise: ignore it unless someone
    /// installed a handler.
    fn ignore_sigio() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: querying and then setting a signal disposition with valid pointers.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(libc::SIGIO, std::ptr::null(), &mut old) == 0
                    && old.sa_sigaction == libc::SIG_DFL
                {
                    libc::signal(libc::SIGIO, libc::SIG_IGN);
                }
            }
        });
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
mod tests {
    use super::*;
    use std::io::Read;
    use std::sync::Arc;

    /// An output of `n` parts of 256 KiB, part `i` filled with `fill(i)`.
    fn output(n: usize, fill: impl Fn(usize) -> u8) -> OutputBytes {
        let parts = (0..n)
            .map(|i| Arc::from(vec![fill(i); 256 << 10].into_boxed_slice()))
            .collect();
        OutputBytes::from_parts(parts)
    }

    fn leftovers(path: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(spare_dir(path))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn rewrites_the_spare_from_the_first_changed_part() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.cmt2.mlir");
        let log = SpareLog::default();
        let v0 = output(8, |_| b'0');
        fs::write(&path, v0.to_vec()).unwrap();
        let v1 = output(8, |i| b'a' + i as u8);
        assert!(eligible(&path, &v1));
        assert_eq!(write(&path, &v1, Some(&v0), &log).unwrap(), Written::Fresh);
        assert_eq!(fs::read(&path).unwrap(), v1.to_vec());
        // The spare holds v0 (known): v2 differs from it everywhere.
        let v2 = OutputBytes::from_parts({
            let mut p = v1.parts.to_vec();
            p[5] = Arc::from(vec![b'x'; 300 << 10].into_boxed_slice());
            p
        });
        assert_eq!(
            write(&path, &v2, Some(&v1), &log).unwrap(),
            Written::Spare { from: 0 }
        );
        assert_eq!(fs::read(&path).unwrap(), v2.to_vec());
        // The spare holds v1 (known, sharing parts 0..5 with v3): written from part 5 on.
        let v3 = OutputBytes::from_parts({
            let mut p = v1.parts[..5].to_vec();
            p.push(Arc::from(vec![b'y'; 100 << 10].into_boxed_slice()));
            p
        });
        assert_eq!(
            write(&path, &v3, Some(&v2), &log).unwrap(),
            Written::Spare {
                from: 5 * (256 << 10)
            }
        );
        assert_eq!(fs::read(&path).unwrap(), v3.to_vec());
        assert_eq!(leftovers(&path), ["big.cmt2.mlir.spare"]);
        // The spare is v2, whole.
        let spare = spare_dir(&path).join("big.cmt2.mlir.spare");
        assert_eq!(fs::read(&spare).unwrap(), v2.to_vec());
        // Unknown content (another process, or a restart): written whole, still in place.
        let fresh_log = SpareLog::default();
        assert_eq!(
            write(&path, &v1, None, &fresh_log).unwrap(),
            Written::Spare { from: 0 }
        );
        assert_eq!(fs::read(&path).unwrap(), v1.to_vec());
    }

    #[test]
    fn a_spare_someone_holds_open_or_linked_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        let log = SpareLog::default();
        let versions: Vec<OutputBytes> =
            (0..5).map(|k| output(5, |i| (k * 10 + i) as u8)).collect();
        fs::write(&path, versions[0].to_vec()).unwrap();
        write(&path, &versions[1], Some(&versions[0]), &log).unwrap();
        // A reader opens the current version (1) and keeps reading it.
        let mut reader = fs::File::open(&path).unwrap();
        write(&path, &versions[2], Some(&versions[1]), &log).unwrap();
        // Version 1 is the spare now, but open: not rewritten.
        assert_eq!(
            write(&path, &versions[3], Some(&versions[2]), &log).unwrap(),
            Written::Fresh
        );
        let mut seen = Vec::new();
        reader.read_to_end(&mut seen).unwrap();
        assert_eq!(seen, versions[1].to_vec());
        assert_eq!(fs::read(&path).unwrap(), versions[3].to_vec());
        // A hard link to the spare (a cache keeping it): not rewritten either.
        let spare = spare_dir(&path).join("out.json.spare");
        let kept = dir.path().join("kept");
        fs::hard_link(&spare, &kept).unwrap();
        assert_eq!(
            write(&path, &versions[4], Some(&versions[3]), &log).unwrap(),
            Written::Fresh
        );
        assert_eq!(fs::read(&kept).unwrap(), versions[2].to_vec());
        assert_eq!(fs::read(&path).unwrap(), versions[4].to_vec());
        assert_eq!(leftovers(&path), ["out.json.spare"]);
    }

    #[test]
    fn a_spare_is_prepared_ahead_for_a_first_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.rules.json");
        let log = SpareLog::default();
        let v0 = output(8, |i| i as u8);
        fs::write(&path, v0.to_vec()).unwrap();
        prepare(&path, &v0, &log).unwrap().join().unwrap();
        assert_eq!(leftovers(&path), ["big.rules.json.spare"]);
        // The first edit rewrites the prepared spare from the first changed part.
        let v1 = OutputBytes::from_parts({
            let mut p = v0.parts.to_vec();
            p[6] = Arc::from(vec![b'e'; 100 << 10].into_boxed_slice());
            p
        });
        assert_eq!(
            write(&path, &v1, Some(&v0), &log).unwrap(),
            Written::Spare {
                from: 6 * (256 << 10)
            }
        );
        assert_eq!(fs::read(&path).unwrap(), v1.to_vec());
        // A spare exists now: nothing more is prepared.
        prepare(&path, &v1, &log).unwrap().join().unwrap();
        assert_eq!(leftovers(&path), ["big.rules.json.spare"]);
        assert_eq!(
            fs::read(spare_dir(&path).join("big.rules.json.spare")).unwrap(),
            v0.to_vec()
        );
    }

    /// A spare being prepared while writers replace the output: whichever wins, what the
    /// log records of a spare is what it holds, so every output is exact.
    #[test]
    fn preparing_while_writing_keeps_every_output_exact() {
        let versions: Vec<OutputBytes> = (0..6)
            .map(|k| {
                OutputBytes::from_parts(
                    (0..6)
                        .map(|i| {
                            let fill = if i < k {
                                b'a' + k as u8
                            } else {
                                b'0' + i as u8
                            };
                            Arc::from(vec![fill; (256 << 10) + k * 7].into_boxed_slice())
                        })
                        .collect(),
                )
            })
            .collect();
        for round in 0..12 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("o.mlir");
            let log = SpareLog::default();
            fs::write(&path, versions[0].to_vec()).unwrap();
            let mut prepared = prepare(&path, &versions[0], &log);
            if round % 3 == 0 {
                std::thread::sleep(std::time::Duration::from_micros(200 * round as u64));
            }
            for k in 1..versions.len() {
                write(&path, &versions[k], Some(&versions[k - 1]), &log).unwrap();
                let got = fs::read(&path).unwrap();
                assert_eq!(got, versions[k].to_vec(), "round {round}, v{k}");
                // Two writes raced the preparation; the rest follow it.
                if k == 2 {
                    prepared.take().unwrap().join().unwrap();
                }
            }
            assert!(leftovers(&path).iter().all(|n| n.ends_with(".spare")));
        }
    }

    #[test]
    fn claims_of_dead_writers_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("o.mlir");
        let v = output(5, |i| i as u8);
        fs::write(&path, v.to_vec()).unwrap();
        fs::create_dir_all(spare_dir(&path)).unwrap();
        // No process has pid 4194304 (above Linux's pid_max limit).
        let dead = spare_dir(&path).join("o.mlir.4194304.7.claim");
        let live = spare_dir(&path).join(format!("o.mlir.{}.999.claim", std::process::id()));
        fs::write(&dead, b"torn").unwrap();
        fs::write(&live, b"in use").unwrap();
        write(&path, &v, None, &SpareLog::default()).unwrap();
        assert!(!dead.exists());
        assert!(live.exists());
    }

    /// Writers in several threads and a reader: the reader only ever sees whole versions,
    /// and the file ends as one of them.
    #[test]
    fn concurrent_writers_and_a_reader_see_whole_versions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("o.mlir");
        let log = SpareLog::default();
        let versions: Vec<OutputBytes> =
            (0..4).map(|k| output(5, |i| (k * 16 + i) as u8)).collect();
        let whole: Vec<Vec<u8>> = versions.iter().map(|v| v.to_vec()).collect();
        fs::write(&path, &whole[0]).unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            let reader = s.spawn(|| {
                let mut reads = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let bytes = fs::read(&path).unwrap();
                    assert!(whole.contains(&bytes), "a torn or foreign read");
                    reads += 1;
                }
                reads
            });
            let writers: Vec<_> = (0..3)
                .map(|w| {
                    let (versions, log, path) = (&versions, &log, &path);
                    s.spawn(move || {
                        for k in 0..30 {
                            let v = &versions[(w + k) % versions.len()];
                            write(path, v, None, log).unwrap();
                        }
                    })
                })
                .collect();
            for w in writers {
                w.join().unwrap();
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            assert!(reader.join().unwrap() > 0);
        });
        assert!(whole.contains(&fs::read(&path).unwrap()));
        assert!(leftovers(&path).iter().all(|n| n.ends_with(".spare")));
    }
}
