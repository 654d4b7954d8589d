//! Leftovers of interrupted writes: the temp files of [`super::write_atomic`]
//! (`.<output>.tmp.<pid>.<n>`) and the spare claims (`.kiln-spare/<output>.<pid>.<n>.claim`)
//! of writers that died before renaming them (`kill -9`, a full disk). A process sweeps an
//! output directory (and its `.kiln-spare/`) once, before it first writes there ([`once`]),
//! and notes whether it was new (absent or empty): an output there is most likely absent,
//! so the writer links it at once and looks for an old file only when the name is taken.
//!
//! Output directories are shared: two daemons, a daemon and a one-shot build, or processes
//! in two containers may write into one. So a leftover is removed only when
//! - its name is one of kiln's own (nothing else is touched);
//! - the pid in its name is no process of this pid namespace;
//! - no process holds a lock on it: a writer locks each temp file and claim it creates while
//!   it writes ([`hold`]), which covers a live writer of another pid namespace, whose pid
//!   means nothing here; a claim being rewritten carries a lease, which refuses the open;
//! - it was last changed more than [`MIN_AGE`] ago (between a writer's create and its lock
//!   there is a moment without either).

use super::dir::Dir;
use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Leftovers younger than this are left alone.
pub(crate) const MIN_AGE: Duration = Duration::from_secs(2);

/// The directories this process has swept, each with whether it is new: absent or empty
/// when first seen, and no name found taken in it since.
static SEEN: Mutex<Option<HashMap<PathBuf, bool>>> = Mutex::new(None);

fn seen() -> MutexGuard<'static, Option<HashMap<PathBuf, bool>>> {
    SEEN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sweep `dir` and its spares unless this process did already. Returns whether `dir` is
/// new: an output there is then most likely absent, and is written without looking first.
pub(crate) fn once(dir: &Dir) -> bool {
    {
        let mut seen = seen();
        let seen = seen.get_or_insert_with(HashMap::new);
        if let Some(&new) = seen.get(dir.path()) {
            return new;
        }
        seen.insert(dir.path().to_path_buf(), false);
    }
    let (_, empty) = sweep_dir(dir);
    if let Some(spares) = dir.spares(false) {
        sweep_dir(&spares);
    }
    if empty && let Some(seen) = seen().as_mut() {
        seen.insert(dir.path().to_path_buf(), true);
    }
    empty
}

/// A name in `dir` was found taken: `dir` is no longer new (see [`once`]).
pub(crate) fn taken(dir: &Path) {
    if let Some(new) = seen().as_mut().and_then(|s| s.get_mut(dir)) {
        *new = false;
    }
}

/// Lock `f`, a temp file or claim this process is writing, until it is closed: the mark
/// of a live writer that [`once`] respects.
pub(crate) fn hold(f: &fs::File) {
    use fs4::fs_std::FileExt;
    let _ = f.try_lock_exclusive();
}

/// Remove the leftovers of dead writers in an open directory: how many, and whether it
/// holds nothing else.
fn sweep_dir(dir: &Dir) -> (usize, bool) {
    let Ok(entries) = rustix::fs::Dir::read_from(dir.fd()) else {
        return (0, false);
    };
    let (mut removed, mut kept) = (0, 0);
    for e in entries {
        let Ok(e) = e else {
            kept += 1;
            break;
        };
        let name = OsStr::from_bytes(e.file_name().to_bytes());
        if name == "." || name == ".." {
            continue;
        }
        let abandoned = writer_of(&name.to_string_lossy())
            .is_some_and(|pid| pid != std::process::id() && !alive(pid));
        if abandoned && remove_if_abandoned(dir, name) {
            removed += 1;
        } else {
            kept += 1;
        }
    }
    if removed > 0 {
        tracing::info!(dir = %dir.path().display(), removed, "removed leftovers of interrupted writes");
    }
    (removed, kept == 0)
}

/// The pid of the writer that named a file so: `.<output>.tmp.<pid>.<n>` or
/// `<output>.<pid>.<n>.claim`.
fn writer_of(name: &str) -> Option<u32> {
    let numbered = |s: &str| -> Option<(String, u32)> {
        let mut it = s.rsplitn(3, '.');
        let n = it.next()?;
        let pid = it.next()?;
        let rest = it.next()?;
        n.parse::<u64>().ok()?;
        Some((rest.to_string(), pid.parse().ok()?))
    };
    if let Some(stem) = name.strip_suffix(".claim") {
        return numbered(stem)
            .filter(|(rest, _)| !rest.is_empty())
            .map(|p| p.1);
    }
    let (rest, pid) = numbered(name.strip_prefix('.')?)?;
    rest.strip_suffix(".tmp")
        .filter(|output| !output.is_empty())
        .map(|_| pid)
}

/// Whether a process `pid` exists in this pid namespace.
fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Remove `name` in `dir` if it is a regular file no one holds (see the module docs) and
/// it is old enough; whether it was removed.
fn remove_if_abandoned(dir: &Dir, name: &OsStr) -> bool {
    use fs4::fs_std::FileExt;
    use std::os::unix::fs::MetadataExt;
    let opened = dir.open_nofollow(
        name,
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NONBLOCK,
    );
    // Not a file we may open without waiting (a leased claim, a link): not ours to remove.
    let Ok(f) = opened else {
        return false;
    };
    let Ok(meta) = f.metadata() else {
        return false;
    };
    let old = meta
        .modified()
        .ok()
        .and_then(|m| m.elapsed().ok())
        .is_some_and(|age| age >= MIN_AGE);
    if !meta.file_type().is_file() || !old || !f.try_lock_exclusive().unwrap_or(false) {
        return false;
    }
    // Still the file at that name (not renamed away and replaced meanwhile).
    let same = dir.lstat(name).is_ok_and(|st| st.st_ino == meta.ino());
    same && dir.unlink(name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    /// Remove the leftovers of dead writers in `dir` (an existing directory); how many.
    fn sweep(dir: &Path) -> usize {
        Dir::open(dir).map_or(0, |d| sweep_dir(&d).0)
    }

    /// No process has this pid (above Linux's `pid_max` limit).
    const DEAD: u32 = 4_194_304;

    /// A file at `dir/name` last changed `age` ago.
    fn leftover(dir: &Path, name: &str, age: Duration) -> PathBuf {
        let p = dir.join(name);
        fs::write(&p, b"torn").unwrap();
        let f = fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(SystemTime::now() - age).unwrap();
        p
    }

    #[test]
    fn leftovers_of_dead_writers_go_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let old = 2 * MIN_AGE;
        let mut live = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let dead_temp = leftover(d, &format!(".x.aig.tmp.{DEAD}.3"), old);
        let dead_claim = leftover(d, &format!("x.aig.{DEAD}.0.claim"), old);
        let kept = [
            // A live writer: another process, this one, or one too young to judge.
            leftover(d, &format!(".y.aig.tmp.{}.1", live.id()), old),
            leftover(d, &format!(".y.aig.tmp.{}.2", std::process::id()), old),
            leftover(d, &format!(".z.aig.tmp.{DEAD}.1"), Duration::ZERO),
            // Not kiln's names.
            leftover(d, &format!(".notes.tmp.{DEAD}"), old),
            leftover(d, &format!("a.aig.{DEAD}.1"), old),
            leftover(d, "out.aig", old),
        ];
        // A writer whose pid means nothing here (another pid namespace) holds its lock.
        let held = leftover(d, &format!(".w.aig.tmp.{DEAD}.9"), old);
        let holder = fs::File::open(&held).unwrap();
        hold(&holder);
        // A link named like a temp file is not followed, nor removed.
        let target = leftover(d, "target", old);
        let link = d.join(format!(".l.aig.tmp.{DEAD}.1"));
        std::os::unix::fs::symlink(&target, &link).unwrap();

        assert_eq!(sweep(d), 2);
        assert!(!dead_temp.exists() && !dead_claim.exists());
        for p in kept.iter().chain([&held, &target]) {
            assert!(p.exists(), "{} removed", p.display());
        }
        assert!(link.symlink_metadata().is_ok());
        // Once its holder is gone, the lock no longer protects it.
        drop(holder);
        assert_eq!(sweep(d), 1);
        assert!(!held.exists());
        let _ = live.kill();
        let _ = live.wait();
    }

    #[test]
    fn only_kilns_own_names_are_leftovers() {
        assert_eq!(writer_of(".x.aig.tmp.123.4"), Some(123));
        assert_eq!(writer_of("x.cmt2.mlir.77.0.claim"), Some(77));
        for name in [
            "x.aig",
            ".x.aig",
            ".tmp.1.2",
            "..tmp.1.2",
            ".x.tmp.pid.2",
            ".x.tmp.1.two",
            ".x.notmp.1.2",
            ".1.2.claim",
            "x.1.claim",
            "x.a.1.claim",
        ] {
            assert_eq!(writer_of(name), None, "{name}");
        }
    }

    #[test]
    fn a_directory_is_new_when_absent_or_empty_at_first_sight_until_a_name_is_taken() {
        let root = tempfile::tempdir().unwrap();
        let (absent, empty, full) = (
            root.path().join("a"),
            root.path().join("e"),
            root.path().join("f"),
        );
        fs::create_dir(&empty).unwrap();
        fs::create_dir(&full).unwrap();
        fs::write(full.join("old.aig"), b"old").unwrap();
        let open = |d: &Path| Dir::open(d).unwrap();
        assert!(once(&open(&absent)) && once(&open(&empty)));
        assert!(!once(&open(&full)));
        // Later files do not change what was seen first; a taken name does.
        fs::write(empty.join("x.aig"), b"x").unwrap();
        assert!(once(&open(&empty)));
        taken(&empty);
        assert!(!once(&open(&empty)) && once(&open(&absent)));
    }

    #[test]
    fn outputs_in_a_new_directory_are_linked_first_and_unchanged_ones_left_alone() {
        use std::os::unix::fs::MetadataExt;
        let root = tempfile::tempdir().unwrap();
        let p = root.path().join("out/x.aig");
        fs::create_dir(root.path().join("out")).unwrap();
        assert!(crate::writer::write_atomic(&p, &[&b"one "[..], b"two"]).unwrap());
        let ino = fs::metadata(&p).unwrap().ino();
        // The same bytes again: the link finds the name taken, and the file is left alone.
        assert!(!crate::writer::write_atomic(&p, &[b"one two"]).unwrap());
        assert_eq!(fs::metadata(&p).unwrap().ino(), ino);
        assert!(!once(&Dir::open(p.parent().unwrap()).unwrap()));
        assert!(crate::writer::write_atomic(&p, &[b"three"]).unwrap());
        assert_eq!(fs::read(&p).unwrap(), b"three");
        let names = fs::read_dir(root.path().join("out")).unwrap().count();
        assert_eq!(names, 1, "one name, no temp file");
    }
}
