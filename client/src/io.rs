//! File IO at the edge: reading sources (with located UTF-8 errors), writing outputs
//! through the project's one atomic writer (only when their bytes change; `-` is standard
//! output), and printing to standard output and error without ever panicking: a closed
//! pipe (`kiln status | head -1`) ends the process quietly.

use compiler::diag::{self, Code, Diagnostic, Located, Severity};
use std::io::Write as _;
use std::path::Path;

/// A failed command: the diagnostics and the message to print on stderr, and the exit code.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub code: i32,
    /// Shown as the `--message-format` says, before `message`.
    pub located: Vec<Located>,
}

impl Failure {
    /// An input error (exit code 1).
    pub fn input(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 1,
            located: Vec::new(),
        }
    }

    /// A usage error (exit code 2).
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            code: 2,
            ..Failure::input(message)
        }
    }

    /// Input errors as diagnostics (exit code 1).
    pub fn located(located: Vec<Located>) -> Failure {
        Failure {
            located,
            ..Failure::input("")
        }
    }

    /// Diagnostics resolved against the text they refer to (exit code 1).
    pub fn diagnostics(diags: &[Diagnostic], path: &str, text: &str) -> Failure {
        Failure::located(diag::locate_all(diags, path, text))
    }

    /// A failure whose messages were already shown.
    pub fn reported(code: i32) -> Failure {
        Failure {
            code,
            ..Failure::input("")
        }
    }
}

/// An error about the file `path` as a whole.
pub fn file_error(path: &Path, code: Code, message: impl Into<String>) -> Located {
    Located::file(path.display().to_string(), Severity::Error, message).with_code(code)
}

/// Read a source file as UTF-8; invalid bytes give a `path:line:col` diagnostic. Only
/// regular files are read, up to the input size limit; `-` is standard input
/// ([`kiln_daemon::input`]).
pub fn read_source(path: &Path) -> Result<String, Failure> {
    let bytes = kiln_daemon::input::read(path)
        .map_err(|e| Failure::located(vec![file_error(path, e.code(), e.to_string())]))?;
    String::from_utf8(bytes).map_err(|e| {
        // The one check on the common path; the diagnostic only for text that failed it.
        let bytes = e.into_bytes();
        let d: Vec<_> = diag::decode_utf8(&bytes).err().into_iter().collect();
        Failure::diagnostics(
            &d,
            &path.display().to_string(),
            &String::from_utf8_lossy(&bytes),
        )
    })
}

/// Write `text` to standard output; a closed pipe ends the process quietly with exit code
/// 0 (the reader has what it wanted), any other error with exit code 1.
pub fn print_out(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        print_err(&format!("error: writing to standard output: {e}\n"));
        std::process::exit(1);
    }
}

/// Write `text` to standard error; errors are ignored (there is nowhere left to report them).
pub fn print_err(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Where a command writes one file: a path, or standard output for `-`.
pub fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// Write one output file (`-`: standard output) atomically; nothing when the file already
/// holds these bytes.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    if is_stdout(path) {
        let mut out = std::io::stdout().lock();
        return match out.write_all(bytes).and_then(|()| out.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::input(format!(
                "error: writing to standard output: {e}"
            ))),
            _ => Ok(()),
        };
    }
    write_atomic(path, bytes).map(|_| ())
}

/// Write `bytes` to `path` atomically; nothing when the file already holds them. Returns
/// whether the file was written.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<bool, Failure> {
    write_atomic_parts(path, &[bytes])
}

/// Write the concatenation of `parts` to `path` through the project's one writer
/// ([`kiln_daemon::build::write_atomic`]: temp file + rename, no fsync, as outputs are
/// regenerable); nothing when the file already holds these bytes.
pub fn write_atomic_parts<P: AsRef<[u8]>>(path: &Path, parts: &[P]) -> Result<bool, Failure> {
    kiln_daemon::build::write_atomic(path, parts)
        .map_err(|e| Failure::located(vec![e.located().or_code(Code::WriteFailed)]))
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
        let m = &e.located[0];
        assert_eq!(m.code, Some(Code::InvalidUtf8));
        assert!(
            m.render().contains("bad.mlir:2:3: error: invalid UTF-8"),
            "{}",
            m.render()
        );
    }
}
