//! Confining a persistent worker's paths to its directory (the worker's cwd: Bazel's
//! execroot, a sandbox below it, Buck2's project root), unless `--allow-outside-execroot`.
//!
//! A path is judged twice. On its text, with `.` and `..` applied: `../x`, `sub/../../x`
//! and absolute paths elsewhere lead out. Then by resolution, following symbolic links as
//! the kernel does: with `openat2(RESOLVE_BENEATH)` where the kernel has it (Linux 5.6+),
//! else by canonicalising and comparing component by component, so that `esc/o`, where
//! `esc` is a link in the directory pointing elsewhere, leads out too. A path that does not
//! exist yet (an output directory to be made) is judged by its deepest existing ancestor;
//! a dangling link on the way is refused (creating through it would land wherever it
//! points).
//!
//! Outputs are written to the resolved location. Inputs are read where the build system
//! put them: a file it declared in the request (Bazel lists every input of an action) or a
//! directory holding one may be a link anywhere — Bazel's execroot links the source tree
//! in and its sandboxes link every input — while any other input must resolve inside.

use std::collections::BTreeSet;
use std::io;
use std::path::{Component, Path, PathBuf};

/// The inputs a request declares, as absolute paths with `.` and `..` applied.
#[derive(Debug, Clone, Default)]
pub struct Declared(BTreeSet<PathBuf>);

impl Declared {
    /// The declared paths `paths`, relative to `base` (or absolute).
    pub fn new<'a>(base: &Path, paths: impl IntoIterator<Item = &'a str>) -> Declared {
        Declared(
            paths
                .into_iter()
                .map(|p| lexical(&resolve(base, Path::new(p))))
                .collect(),
        )
    }

    /// Whether `path` (lexical, absolute) is declared or a directory above a declared path.
    fn covers(&self, path: &Path) -> bool {
        // Paths order component by component, so a directory's descendants follow it.
        self.0
            .range(path.to_path_buf()..)
            .next()
            .is_some_and(|d| d.starts_with(path))
    }
}

/// What the request does with a path.
#[derive(Debug, Clone, Copy)]
pub enum Access<'a> {
    /// Reads it: a declared input (or a directory of them) is accepted wherever it leads.
    Read(&'a Declared),
    /// Writes below it (an output directory, a sandbox): it must resolve inside.
    Write,
    /// One of the declared inputs themselves (their digests): judged on the text only.
    Declared,
}

/// `path` if absolute, else joined onto `base`.
pub fn resolve(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// `path` resolved against `base`, and confined to it when `on` (see the module docs): the
/// path to use, or the error message. The path used is the one judged: with `.` and `..`
/// applied to its text (so `esc/../x` means `x`, whatever `esc` links to), and for
/// [`Access::Write`] resolved.
pub fn confined(base: &Path, path: &Path, on: bool, access: Access) -> Result<PathBuf, String> {
    confine_with(base, path, on, access, true)
}

/// [`confined`], asking the kernel (`openat2`) only when `kernel`.
fn confine_with(
    base: &Path,
    path: &Path,
    on: bool,
    access: Access,
    kernel: bool,
) -> Result<PathBuf, String> {
    let full = resolve(base, path);
    if !on {
        return Ok(full);
    }
    let out = |how: &str| {
        format!(
            "error: {}: the path leads out of the worker's directory {}{how} (`--allow-outside-execroot` allows it)",
            path.display(),
            base.display()
        )
    };
    let (text, base_text) = (lexical(&full), lexical(base));
    let Ok(rel) = text.strip_prefix(&base_text) else {
        return Err(out(""));
    };
    match access {
        Access::Declared => return Ok(text),
        Access::Read(declared) if declared.covers(&text) => return Ok(text),
        Access::Read(_) | Access::Write => {}
    }
    match beneath(base, rel, kernel) {
        Ok(real) => Ok(match access {
            Access::Write => real,
            _ => text,
        }),
        Err(Escape::Out) => Err(out(" through a symbolic link")),
        Err(Escape::Dangling(link)) => Err(format!(
            "error: {}: {} is a dangling symbolic link (a directory made through it could be anywhere)",
            path.display(),
            link.display()
        )),
        Err(Escape::Io(e)) => Err(format!(
            "error: {}: cannot resolve the path in {}: {e}",
            path.display(),
            base.display()
        )),
    }
}

/// Why a path is not beneath its base.
#[derive(Debug)]
enum Escape {
    /// Resolving it leaves the base.
    Out,
    /// Its first missing component is a link to nothing.
    Dangling(PathBuf),
    Io(io::Error),
}

/// The real location of `rel` (relative, without `..`) below `base`: its deepest existing
/// ancestor resolved, with the missing components appended.
fn beneath(base: &Path, rel: &Path, kernel: bool) -> Result<PathBuf, Escape> {
    let real_base = std::fs::canonicalize(base).map_err(Escape::Io)?;
    let parts: Vec<&std::ffi::OsStr> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p),
            _ => None,
        })
        .collect();
    // A component found missing can be made before it is looked at again (another request
    // of the worker creating the same output directory): then the path is resolved again.
    for _ in 0..4 {
        // The longest prefix that exists.
        let mut n = parts.len();
        let real_prefix = loop {
            let prefix: PathBuf = parts[..n].iter().collect();
            if kernel && kernel::escapes(base, &prefix)? {
                return Err(Escape::Out);
            }
            match std::fs::canonicalize(real_base.join(&prefix)) {
                Ok(real) => break real,
                Err(e) if n > 0 && missing(&e) => n -= 1,
                Err(e) => return Err(Escape::Io(e)),
            }
        };
        // Component by component (`Path::starts_with`): `/a/bc` is not below `/a/b`.
        if !real_prefix.starts_with(&real_base) {
            return Err(Escape::Out);
        }
        if let Some(first) = parts.get(n) {
            match real_prefix.join(first).symlink_metadata() {
                // A link that resolves to nothing.
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(Escape::Dangling(
                        base.join(parts[..=n].iter().collect::<PathBuf>()),
                    ));
                }
                // Made since it was found missing: resolve again.
                Ok(_) => continue,
                Err(_) => {}
            }
        }
        return Ok(parts[n..].iter().fold(real_prefix, |p, c| p.join(c)));
    }
    Err(Escape::Io(io::Error::other(
        "the path kept changing while it was resolved",
    )))
}

/// A path that does not exist (or goes through a file).
fn missing(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR)
}

/// `openat2(RESOLVE_BENEATH)`: the kernel's own answer to whether resolving a path from a
/// directory leaves it, in one atomic walk.
mod kernel {
    use super::{Escape, missing};
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    use std::path::Path;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Cleared once the kernel says it has no `openat2` (or a filter forbids it).
    static AVAILABLE: AtomicBool = AtomicBool::new(true);

    /// Whether `rel` resolved from `base` leaves it; `false` also when it does not exist
    /// (its ancestors are judged then) and where `openat2` is not available (the caller's
    /// comparison of canonical paths decides).
    pub(super) fn escapes(base: &Path, rel: &Path) -> Result<bool, Escape> {
        if !AVAILABLE.load(Ordering::Relaxed) {
            return Ok(false);
        }
        let dir = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC)
            .open(base)
            .map_err(Escape::Io)?;
        let name = match rel.as_os_str().is_empty() {
            true => std::ffi::CString::new("."),
            false => std::ffi::CString::new(rel.as_os_str().as_bytes()),
        }
        .map_err(|e| Escape::Io(io::Error::new(io::ErrorKind::InvalidInput, e)))?;
        // SAFETY: `open_how` is plain integers, for which all zeroes is a valid value.
        let mut how: libc::open_how = unsafe { std::mem::zeroed() };
        how.flags = (libc::O_PATH | libc::O_CLOEXEC) as u64;
        how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
        // SAFETY: `name` is a NUL-terminated string and `how` a valid `open_how` of the
        // size passed; both outlive the call. A non-negative result is a new descriptor.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir.as_raw_fd(),
                name.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if fd >= 0 {
            // SAFETY: the kernel returned a new descriptor that nothing else owns.
            drop(unsafe { OwnedFd::from_raw_fd(fd as i32) });
            return Ok(false);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EXDEV) => Ok(true),
            Some(libc::ENOSYS | libc::EPERM | libc::EINVAL | libc::E2BIG) => {
                AVAILABLE.store(false, Ordering::Relaxed);
                Ok(false)
            }
            // Resolution restarted by a concurrent rename: the comparison decides.
            Some(libc::EAGAIN) => Ok(false),
            _ if missing(&e) => Ok(false),
            _ => Err(Escape::Io(e)),
        }
    }
}

/// `path` with `.` and `..` components applied to its text (`..` at the root stays there).
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A worker directory `ws` with `src/a.mlir`, next to `outside/`; links planted in `ws`.
    fn tree() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().join("ws");
        let outside = t.path().join("outside");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(ws.join("src/a.mlir"), "").unwrap();
        std::fs::write(outside.join("secret.mlir"), "").unwrap();
        symlink(&outside, ws.join("esc")).unwrap();
        symlink("../outside", ws.join("rel")).unwrap();
        symlink("src", ws.join("inner")).unwrap();
        symlink(outside.join("nowhere"), ws.join("dangling")).unwrap();
        (t, ws, outside)
    }

    fn check(kernel: bool) {
        let (_t, ws, outside) = tree();
        let none = Declared::default();
        let at = |p: &str, a: Access| confine_with(&ws, Path::new(p), true, a, kernel);
        let write = |p: &str| at(p, Access::Write);
        let read = |p: &str, d: &Declared| at(p, Access::Read(d));
        for p in ["esc/o", "esc", "rel/o/p", "inner/../esc/o"] {
            let e = write(p).unwrap_err();
            assert!(
                e.contains("leads out of the worker's directory"),
                "{p}: {e}"
            );
        }
        assert!(write("dangling/o").unwrap_err().contains("dangling"));
        assert!(read("esc/secret.mlir", &none).is_err());
        let real_ws = std::fs::canonicalize(&ws).unwrap();
        assert_eq!(write("inner/new/o").unwrap(), real_ws.join("src/new/o"));
        assert_eq!(write("out/x").unwrap(), real_ws.join("out/x"));
        assert_eq!(write(".").unwrap(), real_ws);
        assert_eq!(read("src/a.mlir", &none).unwrap(), ws.join("src/a.mlir"));
        // The path used is the one judged: `esc/..` is the directory itself, not `outside/..`.
        assert_eq!(
            read("esc/../outside/secret.mlir", &none).unwrap(),
            ws.join("outside/secret.mlir")
        );
        assert_eq!(write("esc/../o").unwrap(), real_ws.join("o"));
        // Declared by the build system: read through its links, directories above included.
        let declared = Declared::new(&ws, ["esc/secret.mlir"]);
        assert_eq!(
            read("esc/secret.mlir", &declared).unwrap(),
            ws.join("esc/secret.mlir")
        );
        assert!(read("esc", &declared).is_ok());
        assert!(read("esc/other.mlir", &declared).is_err());
        assert!(at("esc/o", Access::Declared).is_ok());
        // Off: anything goes.
        assert!(confine_with(&ws, Path::new("esc/o"), false, Access::Write, kernel).is_ok());
        assert!(outside.join("secret.mlir").exists());
    }

    #[test]
    fn links_out_of_the_directory_are_refused_with_openat2() {
        check(true);
    }

    #[test]
    fn links_out_of_the_directory_are_refused_by_canonical_paths() {
        check(false);
    }

    #[test]
    fn declared_directories_cover_their_files_only() {
        let base = Path::new("/w");
        let d = Declared::new(base, ["lib/a/b.blif", "src/x.mlir"]);
        assert!(d.covers(Path::new("/w/lib")));
        assert!(d.covers(Path::new("/w/lib/a")));
        assert!(d.covers(Path::new("/w/src/x.mlir")));
        assert!(!d.covers(Path::new("/w/li")));
        assert!(!d.covers(Path::new("/w/lib/a0")));
        assert!(!d.covers(Path::new("/w/src/y.mlir")));
    }
}
