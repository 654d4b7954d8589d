//! File IO at the edge: reading sources (with located UTF-8 errors) and writing outputs
//! through the project's one atomic writer, only when their bytes change.

use compiler::diag::{self, Diagnostic};
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

/// Write `bytes` to `path` atomically; nothing when the file already holds them. Returns
/// whether the file was written.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<bool, Failure> {
    write_atomic_parts(path, &[bytes])
}

/// [`write_atomic`], for bulk outputs (`kiln aig`): outputs are never fsynced anyway.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> Result<bool, Failure> {
    write_atomic(path, bytes)
}

/// Write the concatenation of `parts` to `path` through the project's one writer
/// ([`kiln_daemon::writer::write_atomic`]: temp file + rename, no fsync, as outputs are
/// regenerable); nothing when the file already holds these bytes.
pub fn write_atomic_parts<P: AsRef<[u8]>>(path: &Path, parts: &[P]) -> Result<bool, Failure> {
    kiln_daemon::writer::write_atomic(path, parts).map_err(|e| Failure::input(e.located().render()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

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
