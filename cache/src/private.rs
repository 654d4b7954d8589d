//! Private directories and files: a directory only this user can enter (0700, owned by
//! this user, not reached through a symbolic link) and files only this user can read
//! (0600). Used for the cache and the daemon's runtime directory.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Create `dir` with mode 0700, or verify an existing one, without following a symbolic
/// link at `dir`: it must be a directory (not a link to one), owned by this user, with mode
/// exactly 0700. Anything else is refused with the reason; nothing is changed on a
/// directory this call did not create (a planted link's target keeps its mode), except
/// that with `tighten` an existing directory of this user's (not a link) that grants
/// others access is set to 0700 (an earlier version created the cache that way). Missing
/// parents are created (with the default mode: they may be shared, like a temp dir).
pub fn create_private_dir(dir: &Path, tighten: bool) -> io::Result<()> {
    let created = match fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => true,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = dir.parent() {
                fs::create_dir_all(parent)?;
            }
            match fs::DirBuilder::new().mode(0o700).create(dir) {
                Ok(()) => true,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
                Err(e) => return Err(e),
            }
        }
        Err(e) => return Err(e),
    };
    let refuse = |why: String| {
        io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "refusing private directory {}: {why}; remove it (or set XDG_RUNTIME_DIR to a directory of your own) and retry",
                dir.display()
            ),
        )
    };
    if fs::symlink_metadata(dir)?.file_type().is_symlink() {
        return Err(refuse("it is a symbolic link".into()));
    }
    // Opened without following a link (one planted since the check fails here).
    let file = match fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir)
    {
        Ok(f) => f,
        Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
            return Err(refuse(
                "it is not a directory (or is a symbolic link)".into(),
            ));
        }
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    let uid = unsafe { libc::geteuid() };
    if meta.uid() != uid {
        return Err(refuse(format!(
            "it is owned by uid {}, not by this user (uid {uid})",
            meta.uid()
        )));
    }
    let mode = meta.permissions().mode() & 0o7777;
    if mode != 0o700 {
        let tightenable = tighten && mode & 0o700 == 0o700;
        if !(created || tightenable) {
            return Err(refuse(format!("its mode is {mode:04o}, not 0700")));
        }
        // Ours: just made (the umask may have cleared bits of 0700), or to be tightened.
        file.set_permissions(fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Create `path` exclusively (it must not exist), mode 0600, for writing.
pub fn create_private_file(path: &Path) -> io::Result<fs::File> {
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_link_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("victim");
        fs::create_dir(&target).unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o755)).unwrap();
        let link = dir.path().join("kiln-0");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        for tighten in [false, true] {
            let e = create_private_dir(&link, tighten).unwrap_err().to_string();
            assert!(e.contains("symbolic link"), "{e}");
        }
        let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
    }

    #[test]
    fn modes_are_checked_and_only_tightened_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("a/b/private");
        create_private_dir(&d, false).unwrap();
        assert_eq!(
            fs::metadata(&d).unwrap().permissions().mode() & 0o7777,
            0o700
        );
        fs::set_permissions(&d, fs::Permissions::from_mode(0o755)).unwrap();
        let e = create_private_dir(&d, false).unwrap_err().to_string();
        assert!(e.contains("0755"), "{e}");
        assert_eq!(
            fs::metadata(&d).unwrap().permissions().mode() & 0o777,
            0o755
        );
        create_private_dir(&d, true).unwrap();
        assert_eq!(
            fs::metadata(&d).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let f = create_private_file(&d.join("f")).unwrap();
        assert_eq!(f.metadata().unwrap().permissions().mode() & 0o777, 0o600);
    }
}
