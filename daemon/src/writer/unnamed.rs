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

use std::path::Path;

/// What [`write`] did.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Unnamed {
    /// The file was written and linked to its name.
    Linked,
    /// Not written: the name is taken (by another writer since it was found absent, or
    /// it was only believed absent).
    Taken,
    /// Not written: unnamed files are not available here.
    Declined,
}

/// Write the concatenation of `parts` to `path`, found or believed absent, through an
/// unnamed file in `dir` (the directory of `path`).
#[cfg(target_os = "linux")]
pub(super) fn write<P: AsRef<[u8]>>(
    dir: &Path,
    path: &Path,
    parts: &[P],
) -> std::io::Result<Unnamed> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::io::AsRawFd;
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
    // A missing directory, no permission, ...: the usual way reports (or mends) it.
    let mut f = match create(dir) {
        Ok(f) => f,
        Err(e) => return unavailable(e.raw_os_error()),
    };
    super::write_all_parts(&mut f, parts)?;
    let Ok(to) = CString::new(path.as_os_str().as_bytes()) else {
        return Ok(Unnamed::Declined);
    };
    if link(f.as_raw_fd(), &to) {
        return Ok(Unnamed::Linked);
    }
    match errno() {
        Some(libc::EEXIST) => Ok(Unnamed::Taken),
        Some(libc::ENOENT) if !Path::new("/proc/self/fd").exists() => {
            UNAVAILABLE.store(true, Ordering::Relaxed);
            Ok(Unnamed::Declined)
        }
        errno => unavailable(errno),
    }
}

/// A new unnamed file in `dir`, open for writing (mode 0666 less the umask, as a named one).
#[cfg(target_os = "linux")]
fn create(dir: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_TMPFILE)
        .mode(0o666)
        .open(dir)
}

/// Give the open unnamed file `fd` the name `to`: by its descriptor (`AT_EMPTY_PATH`, which
/// kernels before 6.10 allow only with `CAP_DAC_READ_SEARCH`), else through `/proc`. False
/// with `errno` set when it failed.
#[cfg(target_os = "linux")]
fn link(fd: std::os::unix::io::RawFd, to: &std::ffi::CStr) -> bool {
    use std::sync::atomic::{AtomicBool, Ordering};
    /// Set once linking by descriptor was refused: later links go through `/proc` at once.
    static BY_PROC: AtomicBool = AtomicBool::new(false);
    if !BY_PROC.load(Ordering::Relaxed) {
        // SAFETY: `to` is a NUL-terminated string that lives across the call.
        let r = unsafe {
            libc::linkat(
                fd,
                c"".as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                libc::AT_EMPTY_PATH,
            )
        };
        if r == 0 {
            return true;
        }
        if !matches!(errno(), Some(libc::EPERM | libc::ENOENT | libc::EINVAL)) {
            return false;
        }
        BY_PROC.store(true, Ordering::Relaxed);
    }
    link_by_proc(fd, to)
}

/// [`link`] through `/proc/self/fd`.
#[cfg(target_os = "linux")]
fn link_by_proc(fd: std::os::unix::io::RawFd, to: &std::ffi::CStr) -> bool {
    let Ok(from) = std::ffi::CString::new(format!("/proc/self/fd/{fd}")) else {
        return false;
    };
    // SAFETY: both arguments are NUL-terminated strings that live across the call.
    let r = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    r == 0
}

/// The error number of the last failed call.
#[cfg(target_os = "linux")]
fn errno() -> Option<i32> {
    std::io::Error::last_os_error().raw_os_error()
}

#[cfg(not(target_os = "linux"))]
pub(super) fn write<P: AsRef<[u8]>>(
    _dir: &Path,
    _path: &Path,
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
        let p = dir.path().join("out.aig");
        let got = write(dir.path(), &p, &[&b"head "[..], b"tail"]).unwrap();
        // tmpfs and ext4 have unnamed files; a file system without them declines.
        if got == Unnamed::Linked {
            assert_eq!(std::fs::read(&p).unwrap(), b"head tail");
        }
        std::fs::write(&p, b"theirs").unwrap();
        assert!(matches!(
            write(dir.path(), &p, &[b"mine"]).unwrap(),
            Unnamed::Taken | Unnamed::Declined
        ));
        assert_eq!(std::fs::read(&p).unwrap(), b"theirs");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temp name is left: {names:?}");
    }

    #[test]
    fn an_unnamed_file_is_named_through_proc_too() {
        use std::io::Write;
        use std::os::unix::io::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let Ok(mut f) = create(dir.path()) else {
            return; // a file system without unnamed files
        };
        f.write_all(b"by proc").unwrap();
        let p = dir.path().join("named");
        let to = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        assert!(
            link_by_proc(f.as_raw_fd(), &to),
            "{}",
            std::io::Error::last_os_error()
        );
        assert_eq!(std::fs::read(&p).unwrap(), b"by proc");
        assert!(!link_by_proc(f.as_raw_fd(), &to));
        assert_eq!(errno(), Some(libc::EEXIST));
    }
}
