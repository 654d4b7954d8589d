//! File IO at the edge: reading sources (with located UTF-8 errors) and writing outputs
//! atomically (temp file in the same directory, then rename), only when their bytes change.

use compiler::diag::{self, Diagnostic};
use std::fs;
use std::io::Write;
use std::path::Path;

/// A failed command: what to print on stderr, and the exit code.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub code: i32,
}

impl Failure {
    /// An input error (exit code 1).
    pub fn input(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 1,
        }
    }

    /// Diagnostics rendered against the text they refer to (exit code 1).
    pub fn diagnostics(diags: &[Diagnostic], path: &str, text: &str) -> Failure {
        Failure::input(diag::render_all(diags, path, text))
    }
}

/// Read a source file as UTF-8; invalid bytes give a `path:line:col` diagnostic. Only
/// regular files are read, up to the input size limit; `-` is standard input
/// ([`kiln_daemon::input`]).
pub fn read_source(path: &Path) -> Result<String, Failure> {
    let bytes = kiln_daemon::input::read(path)
        .map_err(|e| Failure::input(format!("{}: error: {e}", path.display())))?;
    match diag::decode_utf8(&bytes) {
        Ok(_) => Ok(String::from_utf8(bytes).expect("checked above")),
        Err(d) => {
            let lossy = String::from_utf8_lossy(&bytes);
            Err(Failure::diagnostics(
                &[d],
                &path.display().to_string(),
                &lossy,
            ))
        }
    }
}

/// Write `bytes` to `path` atomically; does nothing when the file already holds these bytes.
/// Returns whether the file was written.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<bool, Failure> {
    write_atomic_with(path, bytes, true)
}

/// [`write_atomic`] without `fsync`: still atomic for readers (temp file + rename), but not
/// durable across a crash. For bulk outputs that can be regenerated (thousands of AIGs), where
/// one fsync per file would dominate the run time.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> Result<bool, Failure> {
    write_atomic_with(path, bytes, false)
}

fn write_atomic_with(path: &Path, bytes: &[u8], sync: bool) -> Result<bool, Failure> {
    write_atomic_parts(path, &[bytes], sync)
}

/// Whether the file at `path` holds exactly the concatenation of `parts` (read only when
/// its size matches).
fn holds(path: &Path, parts: &[&[u8]]) -> bool {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    if !fs::metadata(path).is_ok_and(|m| m.len() == len as u64) {
        return false;
    }
    let Ok(existing) = fs::read(path) else {
        return false;
    };
    let mut rest = existing.as_slice();
    for p in parts {
        let Some((head, tail)) = rest.split_at_checked(p.len()) else {
            return false;
        };
        if head != *p {
            return false;
        }
        rest = tail;
    }
    rest.is_empty()
}

/// [`write_atomic`] of the concatenation of `parts`, written piece by piece (large outputs
/// are never copied into one buffer); `sync` adds an fsync before the rename.
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]], sync: bool) -> Result<bool, Failure> {
    let fail = |e: std::io::Error| Failure::input(format!("{}: error: {e}", path.display()));
    if holds(path, parts) {
        return Ok(false);
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    let tmp = dir.join(format!(".{name}.tmp.{}", PID.get_or_init(std::process::id)));
    // Create the directory only when needed (saves a stat per file on bulk writes).
    let mut f = match fs::File::create(&tmp) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            fs::create_dir_all(dir).map_err(fail)?;
            fs::File::create(&tmp).map_err(fail)?
        }
        r => r.map_err(fail)?,
    };
    for p in parts {
        f.write_all(p).map_err(fail)?;
    }
    if sync {
        f.sync_all().map_err(fail)?;
    }
    drop(f);
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        fail(e)
    })?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_skips_identical_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/out.txt");
        assert!(write_atomic(&p, b"one").unwrap());
        assert!(!write_atomic(&p, b"one").unwrap());
        assert!(write_atomic(&p, b"two").unwrap());
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let leftovers: Vec<_> = fs::read_dir(p.parent().unwrap()).unwrap().collect();
        assert_eq!(leftovers.len(), 1);
    }

    #[test]
    fn bad_utf8_reports_position() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bad.mlir");
        fs::write(&p, b"module {\n  \xc3\x28 }\n").unwrap();
        let e = read_source(&p).unwrap_err();
        assert_eq!(e.code, 1);
        assert!(
            e.message.contains("bad.mlir:2:3: error: invalid UTF-8"),
            "{}",
            e.message
        );
    }
}
