//! Writing an output that does not exist yet: an unnamed file (`O_TMPFILE`) in its
//! directory, linked to its name once written (`linkat`). Readers still see only whole
//! files, the directory gets one entry instead of a temp name's entry, rename and removal,
//! and a writer that dies leaves nothing behind (the kernel frees an unlinked file), so the
//! temp file needs no lock against [`super::sweep`].
//!
//! The file is named by its descriptor (`AT_EMPTY_PATH`), or through `/proc/self/fd` where
//! the kernel refuses that. Where there are no unnamed files (not Linux, a file system
//! without `O_TMPFILE`, neither way to name one) [`write`] says so and the caller writes the
//! usual way.

use super::dir::Dir;
use std::ffi::OsStr;
use std::fs::File;

/// What [`write`] did.
#[derive(Debug)]
pub(super) enum Unnamed {
    /// The file was written and linked to its name (still open, to take its stamp).
    Linked(File),
    /// Not written: the name is taken (by another writer since it was found absent, or
    /// it was only believed absent).
    Taken,
    /// Not written: unnamed files are not available here.
    Declined,
}

/// Write the concatenation of `parts` to `name` in `dir`, found or believed absent,
/// through an unnamed file in `dir`. A failed write leaves nothing behind.
#[cfg(target_os = "linux")]
pub(super) fn write<P: AsRef<[u8]>>(
    dir: &Dir,
    name: &OsStr,
    parts: &[P],
) -> std::io::Result<Unnamed> {
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Set once unnamed files failed in a way that will not change (no `/proc`, a kernel or
    /// file system without `O_TMPFILE`): later writes go the usual way at once.
    static UNAVAILABLE: AtomicBool = AtomicBool::new(false);
    if UNAVAILABLE.load(Ordering::Relaxed) {
        return Ok(Unnamed::Declined);
    }
    let unavailable = |errno: Option<i32>| {
        if matches!(errno, Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)) {
            UNAVAILABLE.store(true, Ordering::Relaxed);
        }
        Ok(Unnamed::Declined)
    };
    // No permission, a directory removed meanwhile, ...: the usual way reports it.
    let mut f = match dir.unnamed() {
        Ok(f) => f,
        Err(e) => return unavailable(e.raw_os_error()),
    };
    super::write_all_parts(&mut f, parts)?;
    match link(&f, dir, name) {
        Ok(()) => Ok(Unnamed::Linked(f)),
        Err(rustix::io::Errno::EXIST) => Ok(Unnamed::Taken),
        Err(rustix::io::Errno::NOENT) if !std::path::Path::new("/proc/self/fd").exists() => {
            UNAVAILABLE.store(true, Ordering::Relaxed);
            Ok(Unnamed::Declined)
        }
        Err(e) => unavailable(Some(e.raw_os_error())),
    }
}

/// Give the open unnamed file `f` the name `name` in `dir`: by its descriptor
/// (`AT_EMPTY_PATH`, which kernels before 6.10 allow only with `CAP_DAC_READ_SEARCH`),
/// else through `/proc`.
#[cfg(target_os = "linux")]
fn link(f: &File, dir: &Dir, name: &OsStr) -> rustix::io::Result<()> {
    use rustix::io::Errno;
    use std::sync::atomic::{AtomicBool, Ordering};
    /// Set once linking by descriptor was refused: later links go through `/proc` at once.
    static BY_PROC: AtomicBool = AtomicBool::new(false);
    if !BY_PROC.load(Ordering::Relaxed) {
        let empty = rustix::fs::AtFlags::EMPTY_PATH;
        match rustix::fs::linkat(f, "", dir.fd(), name, empty) {
            Err(Errno::PERM | Errno::NOENT | Errno::INVAL) => {
                BY_PROC.store(true, Ordering::Relaxed)
            }
            r => return r,
        }
    }
    link_by_proc(f, dir, name)
}

/// [`link`] through `/proc/self/fd`.
#[cfg(target_os = "linux")]
fn link_by_proc(f: &File, dir: &Dir, name: &OsStr) -> rustix::io::Result<()> {
    use std::os::fd::AsRawFd;
    let from = format!("/proc/self/fd/{}", f.as_raw_fd());
    let follow = rustix::fs::AtFlags::SYMLINK_FOLLOW;
    rustix::fs::linkat(rustix::fs::CWD, from.as_str(), dir.fd(), name, follow)
}

#[cfg(not(target_os = "linux"))]
pub(super) fn write<P: AsRef<[u8]>>(
    _dir: &Dir,
    _name: &OsStr,
    _parts: &[P],
) -> std::io::Result<Unnamed> {
    Ok(Unnamed::Declined)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn an_absent_file_is_linked_whole_and_an_existing_one_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let d = Dir::open(dir.path()).unwrap();
        let p = dir.path().join("out.aig");
        let name = OsStr::new("out.aig");
        let got = write(&d, name, &[&b"head "[..], b"tail"]).unwrap();
        // tmpfs and ext4 have unnamed files; a file system without them declines.
        if matches!(got, Unnamed::Linked(_)) {
            assert_eq!(std::fs::read(&p).unwrap(), b"head tail");
        }
        std::fs::write(&p, b"theirs").unwrap();
        assert!(matches!(
            write(&d, name, &[b"mine"]).unwrap(),
            Unnamed::Taken | Unnamed::Declined
        ));
        assert_eq!(std::fs::read(&p).unwrap(), b"theirs");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temp name is left: {names:?}");
    }

    #[test]
    fn an_unnamed_file_is_named_through_proc_too() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let d = Dir::open(dir.path()).unwrap();
        let Ok(mut f) = d.unnamed() else {
            return; // a file system without unnamed files
        };
        f.write_all(b"by proc").unwrap();
        let name = OsStr::new("named");
        link_by_proc(&f, &d, name).unwrap();
        assert_eq!(std::fs::read(dir.path().join("named")).unwrap(), b"by proc");
        assert_eq!(link_by_proc(&f, &d, name), Err(rustix::io::Errno::EXIST));
    }
}
