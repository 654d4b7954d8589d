//! Output directories, opened once and then used by descriptor: every file the writer
//! creates, renames, links, reads back or removes is named relative to an open directory
//! (`openat`, `renameat2`, `linkat`, `unlinkat`), never by a path walked again, and never
//! through a symbolic link another user can plant.
//!
//! Output directories may be shared (a 0777 build directory, a sandbox another process
//! reuses): whoever can write there can plant links where kiln writes. So
//! - a directory is opened component by component, and a symbolic link on the way is
//!   followed only when it is this user's, or belongs to the owner of the directory that
//!   holds it (who could change that directory anyway): the kernel's rule for links in
//!   sticky shared directories (`fs.protected_symlinks`), applied to every directory.
//!   Another user's link is refused with its path. A path without links is opened with one
//!   `openat2(RESOLVE_NO_SYMLINKS)`; missing directories are made on the way;
//! - `.kiln-spare` must be a directory of this user's that no one else may write to (kiln
//!   makes it 0700, and tightens one of its own); a link, another user's directory or
//!   anything else is ignored with one warning, and large outputs are written without
//!   spares there;
//! - every file is created new (`O_CREAT|O_EXCL`, which never follows a link, or an unnamed
//!   `O_TMPFILE`) and opened for reading or rewriting with `O_NOFOLLOW`.

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags};
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The name of the spares' directory in an output directory.
pub(crate) const SPARES: &str = ".kiln-spare";

/// An open output directory.
#[derive(Debug)]
pub(crate) struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

/// This process's effective user.
fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC);

impl Dir {
    /// The directory at `path`, made with its parents when missing; a link on the way is
    /// followed only when it is this user's or its directory's owner's (see the module
    /// docs).
    pub(crate) fn open(path: &Path) -> io::Result<Dir> {
        use rustix::fs::ResolveFlags;
        use rustix::io::Errno;
        let no_links = ResolveFlags::NO_SYMLINKS;
        let direct = rustix::fs::openat2(rustix::fs::CWD, path, DIR_FLAGS, Mode::empty(), no_links);
        match direct {
            Ok(fd) => {
                return Ok(Dir {
                    fd,
                    path: path.to_path_buf(),
                });
            }
            // A link on the way, a missing directory, or no `openat2` (kernels before 5.6,
            // some sandboxes): component by component.
            Err(
                Errno::LOOP
                | Errno::NOENT
                | Errno::NOSYS
                | Errno::PERM
                | Errno::INVAL
                | Errno::XDEV,
            ) => {}
            Err(e) => return Err(e.into()),
        }
        let start = match path.has_root() {
            true => "/",
            false => ".",
        };
        let fd = rustix::fs::openat(rustix::fs::CWD, start, DIR_FLAGS, Mode::empty())?;
        let mut dir = Dir {
            fd,
            path: PathBuf::from(start),
        };
        for c in path.components() {
            dir = match c {
                std::path::Component::Normal(name) => dir.subdir(name)?,
                std::path::Component::ParentDir => Dir {
                    fd: rustix::fs::openat(&dir.fd, "..", DIR_FLAGS, Mode::empty())?,
                    path: dir.path.join(".."),
                },
                _ => continue,
            };
        }
        dir.path = path.to_path_buf();
        Ok(dir)
    }

    /// The directory `rel` below `root` (opened as [`Dir::open`]): each directory below
    /// `root` opened without following another user's link, made when missing.
    #[cfg(test)]
    pub(crate) fn open_below(root: &Path, rel: &Path) -> io::Result<Dir> {
        use std::path::Component;
        let mut dir = Dir::open(root)?;
        for c in rel.components() {
            let Component::Normal(name) = c else {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{}: not a directory below {}",
                        rel.display(),
                        root.display()
                    ),
                ));
            };
            dir = dir.subdir(name)?;
        }
        Ok(dir)
    }

    /// The directory `name` in this one, made when missing; a link is followed only when
    /// it is this user's or this directory's owner's.
    pub(crate) fn subdir(&self, name: &OsStr) -> io::Result<Dir> {
        let path = self.path.join(name);
        let nofollow = DIR_FLAGS | OFlags::NOFOLLOW;
        let mut made = false;
        let fd = loop {
            match rustix::fs::openat(&self.fd, name, nofollow, Mode::empty()) {
                Ok(fd) => break fd,
                Err(rustix::io::Errno::NOENT) if !made => {
                    match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777)) {
                        Ok(()) | Err(rustix::io::Errno::EXIST) => made = true,
                        Err(e) => return Err(e.into()),
                    }
                }
                Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                    let st = rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW)?;
                    let link = FileType::from_raw_mode(st.st_mode) == FileType::Symlink;
                    if !link {
                        return Err(io::Error::new(
                            io::ErrorKind::NotADirectory,
                            format!("{}: not a directory", path.display()),
                        ));
                    }
                    let owner = rustix::fs::fstat(&self.fd)?.st_uid;
                    if st.st_uid != euid() && st.st_uid != owner {
                        return Err(io::Error::new(
                            io::ErrorKind::PermissionDenied,
                            format!(
                                "{}: a symbolic link of another user (uid {}): kiln does not write through it",
                                path.display(),
                                st.st_uid
                            ),
                        ));
                    }
                    break rustix::fs::openat(&self.fd, name, DIR_FLAGS, Mode::empty())?;
                }
                Err(e) => return Err(e.into()),
            }
        };
        Ok(Dir { fd, path })
    }

    /// The spares' directory in this one ([`SPARES`]), made (0700) when missing if `make`;
    /// `None` when it is absent (and not made), or not a directory of this user's that only
    /// this user may write to (said once per directory, in the log).
    pub(crate) fn spares(&self, make: bool) -> Option<Dir> {
        let nofollow = DIR_FLAGS | OFlags::NOFOLLOW;
        let refuse = |why: String| {
            static WARNED: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
            let path = self.path.join(SPARES);
            let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
            if warned.insert(path.clone()) {
                tracing::warn!(
                    dir = %path.display(),
                    "{why}: large outputs there are written without spares (remove it to use them)"
                );
            }
            None
        };
        let fd = match rustix::fs::openat(&self.fd, SPARES, nofollow, Mode::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOENT) if make => {
                match rustix::fs::mkdirat(&self.fd, SPARES, Mode::from_raw_mode(0o700)) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(_) => return None,
                }
                match rustix::fs::openat(&self.fd, SPARES, nofollow, Mode::empty()) {
                    Ok(fd) => fd,
                    Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                        return refuse("a symbolic link or not a directory".into());
                    }
                    Err(_) => return None,
                }
            }
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                return refuse("a symbolic link or not a directory".into());
            }
            Err(_) => return None,
        };
        let st = rustix::fs::fstat(&fd).ok()?;
        if st.st_uid != euid() {
            return refuse(format!("owned by uid {}, not by this user", st.st_uid));
        }
        // Ours: no one else may add or replace an entry (a umask may have left it open).
        if st.st_mode & 0o077 != 0 && rustix::fs::fchmod(&fd, Mode::from_raw_mode(0o700)).is_err() {
            return refuse("others may write to it".into());
        }
        Some(Dir {
            fd,
            path: self.path.join(SPARES),
        })
    }

    /// A second handle on the same directory (for a background thread).
    pub(crate) fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir {
            fd: self.fd.try_clone()?,
            path: self.path.clone(),
        })
    }

    /// The path the directory was opened at (for messages, and to recognise it).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// What is at `name` (a link is not followed).
    pub(crate) fn lstat(&self, name: &OsStr) -> io::Result<rustix::fs::Stat> {
        Ok(rustix::fs::statat(
            &self.fd,
            name,
            AtFlags::SYMLINK_NOFOLLOW,
        )?)
    }

    /// What `name` leads to, following a link.
    pub(crate) fn stat(&self, name: &OsStr) -> io::Result<rustix::fs::Stat> {
        Ok(rustix::fs::statat(&self.fd, name, AtFlags::empty())?)
    }

    /// A new file `name`, for writing (mode 0666 less the umask); fails when the name is
    /// taken, by anything (a link is not followed).
    pub(crate) fn create_new(&self, name: &OsStr) -> io::Result<File> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW;
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            flags | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )?;
        Ok(File::from(fd))
    }

    /// The file `name`, opened with `flags` and never through a link.
    pub(crate) fn open_nofollow(&self, name: &OsStr, flags: OFlags) -> io::Result<File> {
        self.open_existing(name, flags | OFlags::NOFOLLOW)
    }

    /// `name` opened for writing, following a link: a file the user named (a device, a
    /// FIFO) written through as a shell redirection writes it.
    pub(crate) fn open_to_write_through(&self, name: &OsStr) -> io::Result<File> {
        self.open_existing(name, OFlags::WRONLY | OFlags::NOCTTY | OFlags::TRUNC)
    }

    fn open_existing(&self, name: &OsStr, flags: OFlags) -> io::Result<File> {
        let fd = rustix::fs::openat(&self.fd, name, flags | OFlags::CLOEXEC, Mode::empty())?;
        Ok(File::from(fd))
    }

    /// A new unnamed file in this directory (`O_TMPFILE`), for writing.
    #[cfg(target_os = "linux")]
    pub(crate) fn unnamed(&self) -> io::Result<File> {
        let flags = OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, ".", flags, Mode::from_raw_mode(0o666))?;
        Ok(File::from(fd))
    }

    /// The link `name` points to.
    pub(crate) fn read_link(&self, name: &OsStr) -> io::Result<std::ffi::CString> {
        Ok(rustix::fs::readlinkat(&self.fd, name, Vec::new())?)
    }

    /// Rename `from` (in this directory) to `to` in `dir` (replacing what is there).
    pub(crate) fn rename_to(&self, from: &OsStr, dir: &Dir, to: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::renameat(&self.fd, from, &dir.fd, to)?)
    }

    /// `renameat2(from, dir/to, flags)`: `Ok(false)` when it failed with one of the
    /// `declined` errors (the file system or kernel cannot, or the name is taken).
    pub(crate) fn rename2(
        &self,
        from: &OsStr,
        dir: &Dir,
        to: &OsStr,
        flags: RenameFlags,
        declined: &[rustix::io::Errno],
    ) -> io::Result<bool> {
        match rustix::fs::renameat_with(&self.fd, from, &dir.fd, to, flags) {
            Ok(()) => Ok(true),
            Err(e) if declined.contains(&e) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Remove the file `name` (not a directory).
    pub(crate) fn unlink(&self, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())?)
    }

    /// Remove the file `name` when it is there; errors are ignored (a clean-up after a
    /// failure, which reports that failure).
    pub(crate) fn discard(&self, name: &OsStr) {
        let _ = rustix::fs::unlinkat(&self.fd, name, AtFlags::empty());
    }

    /// Whether this directory is in `/proc` (a process's descriptors, `/dev/fd`).
    pub(crate) fn in_proc(&self) -> bool {
        const PROC_SUPER_MAGIC: i64 = 0x9fa0;
        // `f_type` is an `i64` on some targets, narrower on others.
        #[allow(clippy::unnecessary_cast)]
        rustix::fs::fstatfs(&self.fd).is_ok_and(|s| s.f_type as i64 == PROC_SUPER_MAGIC)
    }
}

/// The kind of a file that is neither a regular file nor a link, in words.
pub(crate) fn kind_of(t: FileType) -> &'static str {
    match t {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a directory",
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Unknown => "not a regular file",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn directories_below_the_root_are_made_and_links_of_this_user_followed() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        let d = Dir::open_below(&out, Path::new("a/b")).unwrap();
        assert!(out.join("a/b").is_dir());
        assert_eq!(d.path(), out.join("a/b"));
        // This user's own link is followed, as the kernel follows it.
        std::fs::create_dir(root.path().join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(root.path().join("elsewhere"), out.join("c")).unwrap();
        let c = Dir::open_below(&out, Path::new("c")).unwrap();
        c.create_new(OsStr::new("f")).unwrap();
        assert!(root.path().join("elsewhere/f").is_file());
        // A file where a directory should be.
        std::fs::write(out.join("file"), b"").unwrap();
        let e = Dir::open_below(&out, Path::new("file/x")).unwrap_err();
        assert!(e.to_string().contains("not a directory"), "{e}");
        assert!(Dir::open_below(&out, Path::new("../x")).is_err());
    }

    /// As root (CI): a link of another user, in a directory of a third, is not followed
    /// anywhere on a path; one of the directory's owner is.
    #[test]
    fn a_link_of_another_user_is_not_followed_on_the_way() {
        let root = tempfile::tempdir().unwrap();
        let shared = root.path().join("shared");
        let target = root.path().join("target");
        std::fs::create_dir(&shared).unwrap();
        std::fs::create_dir(&target).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let link = shared.join("out");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        // Another user's link (uids no one has), in a directory of a third.
        if std::os::unix::fs::lchown(&link, Some(4_000_001), None).is_err() {
            eprintln!("skipped: needs root to give a link to another user");
            return;
        }
        std::os::unix::fs::chown(&shared, Some(4_000_002), None).unwrap();
        for p in [link.clone(), link.join("sub"), link.join("sub/deeper")] {
            let e = Dir::open(&p).unwrap_err();
            assert_eq!(
                e.kind(),
                io::ErrorKind::PermissionDenied,
                "{}: {e}",
                p.display()
            );
            assert!(e.to_string().contains("uid 4000001"), "{e}");
        }
        assert!(std::fs::read_dir(&target).unwrap().next().is_none());
        // The directory's owner's link is followed (as the kernel follows it).
        std::os::unix::fs::lchown(&link, Some(4_000_002), None).unwrap();
        Dir::open(&link.join("sub")).unwrap();
        assert!(target.join("sub").is_dir());
    }

    #[test]
    fn spares_must_be_a_private_directory_of_this_user() {
        let root = tempfile::tempdir().unwrap();
        let d = Dir::open(root.path()).unwrap();
        assert!(d.spares(false).is_none());
        let s = d.spares(true).unwrap();
        let mode = std::fs::metadata(s.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        // One of ours that others may write to is tightened.
        std::fs::set_permissions(s.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(d.spares(false).is_some());
        let mode = std::fs::metadata(s.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        // A link is refused (and not followed: nothing is made where it points).
        std::fs::remove_dir(s.path()).unwrap();
        let target = root.path().join("target");
        std::fs::create_dir(&target).unwrap();
        std::os::unix::fs::symlink(&target, root.path().join(SPARES)).unwrap();
        assert!(d.spares(true).is_none());
        assert!(std::fs::read_dir(&target).unwrap().next().is_none());
        // So is a file.
        std::fs::remove_file(root.path().join(SPARES)).unwrap();
        std::fs::write(root.path().join(SPARES), b"").unwrap();
        assert!(d.spares(true).is_none());
    }

    #[test]
    fn new_files_never_follow_a_link() {
        let root = tempfile::tempdir().unwrap();
        let d = Dir::open(root.path()).unwrap();
        let target = root.path().join("target");
        std::fs::write(&target, b"keep").unwrap();
        std::os::unix::fs::symlink(&target, root.path().join("link")).unwrap();
        let e = d.create_new(OsStr::new("link")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert!(d.open_nofollow(OsStr::new("link"), OFlags::WRONLY).is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
    }
}
