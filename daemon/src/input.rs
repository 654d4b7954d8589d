//! Opening inputs: regular files only, read with a size limit, and the run's [`Limits`].
//!
//! A path given as an input may name a FIFO (whose open blocks until a writer appears and
//! whose reads never end), a character device (`/dev/zero`, `/dev/urandom`: endless), a
//! directory or a socket. Inputs are opened with `O_NONBLOCK` (so opening a FIFO returns at
//! once), checked with `fstat` on the open descriptor (no race with a rename between a
//! `stat` and the open), refused unless regular, and read up to the input size limit plus one
//! byte (a file that grows while it is read cannot exceed the limit either). Standard input
//! is read only where a command is given `-`, with the same limit.
//!
//! The CLI and the daemon both read their inputs through here. The limits themselves are
//! plain data ([`compiler::limits::Limits`]); this module keeps the process's value, set
//! once by the binary from its flags and `kiln.toml` ([`set_limits`]), so query bodies can
//! pass it to the compiler.

use compiler::limits::{Limit, Limits};
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;
use std::sync::OnceLock;

static LIMITS: OnceLock<Limits> = OnceLock::new();

/// Set the process's limits (the first call wins; later calls are ignored).
pub fn set_limits(limits: Limits) {
    let _ = LIMITS.set(limits);
}

/// The process's limits: what [`set_limits`] set, else the defaults.
pub fn limits() -> Limits {
    LIMITS.get().copied().unwrap_or(Limits::DEFAULT)
}

/// Why an input could not be read; `Display` is the message after `path: error: `.
#[derive(Debug)]
pub enum InputError {
    Io(io::Error),
    /// Not a regular file: what it is instead.
    NotRegular(&'static str),
    /// Larger than the input size limit (the message names the limit).
    TooLarge(String),
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::Io(e) => write!(f, "{e}"),
            InputError::NotRegular(what) => {
                write!(
                    f,
                    "not a regular file ({what}); inputs must be regular files"
                )
            }
            InputError::TooLarge(m) => write!(f, "input file size: {m}"),
        }
    }
}

impl InputError {
    /// The diagnostic code of the error.
    pub fn code(&self) -> compiler::diag::Code {
        use compiler::diag::Code;
        match self {
            InputError::TooLarge(_) => Code::LimitExceeded,
            InputError::Io(_) | InputError::NotRegular(_) => Code::Unreadable,
        }
    }
}

impl From<io::Error> for InputError {
    fn from(e: io::Error) -> InputError {
        InputError::Io(e)
    }
}

/// What `meta` is, when it is not a regular file.
fn kind_of(t: std::fs::FileType) -> Option<&'static str> {
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a file")
    }
}

/// Open `path` for reading if it is a regular file of at most `max` bytes; its size.
pub(crate) fn open_regular(path: &Path, max: u64) -> Result<(File, u64), InputError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let meta = file.metadata()?;
    if let Some(what) = kind_of(meta.file_type()) {
        return Err(InputError::NotRegular(what));
    }
    if meta.len() > max {
        return Err(InputError::TooLarge(
            Limit::InputSize.exceeded(meta.len(), max),
        ));
    }
    Ok((file, meta.len()))
}

/// The first chunk of a stream read; each next one is twice as large, up to [`MAX_CHUNK`].
const FIRST_CHUNK: u64 = 64 << 10;
const MAX_CHUNK: u64 = 16 << 20;

/// Append at most `max` bytes of the stream `reader` to `buf`; more is an error.
///
/// A stream (standard input, a pipe) has no size to check first, and may never end. It is
/// read in chunks of exact size, kept apart until its end, so that no buffer grows by
/// doubling past the limit: while reading, at most `max + 1` bytes are held (the one byte
/// that proves the stream too long), in chunks of at most [`MAX_CHUNK`]; a stream that
/// ends within the limit is then joined into `buf`.
fn read_bounded(mut reader: impl Read, buf: &mut Vec<u8>, max: u64) -> Result<(), InputError> {
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let mut total: u64 = 0;
    let mut size = FIRST_CHUNK;
    loop {
        let want = size.min(max.saturating_add(1) - total);
        let mut chunk = Vec::new();
        chunk
            .try_reserve_exact(usize::try_from(want).unwrap_or(usize::MAX))
            .map_err(|_| out_of_memory(total))?;
        let n = (&mut reader).take(want).read_to_end(&mut chunk)? as u64;
        total += n;
        if total > max {
            return Err(InputError::TooLarge(Limit::InputSize.exceeded(total, max)));
        }
        if n > 0 {
            chunks.push(chunk);
        }
        if n < want {
            break;
        }
        size = (size * 2).min(MAX_CHUNK);
    }
    buf.try_reserve_exact(total as usize)
        .map_err(|_| out_of_memory(total))?;
    for chunk in chunks {
        buf.extend_from_slice(&chunk);
    }
    Ok(())
}

/// The error of a stream whose first `read` bytes leave no memory for more.
fn out_of_memory(read: u64) -> InputError {
    InputError::Io(io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!("out of memory after {read} bytes"),
    ))
}

/// Read the regular file `path` into `buf` (appended), under the input size limit `max`.
///
/// A file is read up to the size it had when opened, with no probe for more: a regular
/// file's size is its length, and bytes appended while it is read belong to the next read.
/// A file that reports size 0 (most of `/proc`) is read to its end.
pub(crate) fn read_into(path: &Path, buf: &mut Vec<u8>, max: u64) -> Result<(), InputError> {
    let (mut file, len) = open_regular(path, max)?;
    if len == 0 {
        return read_bounded(file, buf, max);
    }
    // One `read` for the whole file (`read_to_end` reads in growing chunks and then asks
    // for more).
    let start = buf.len();
    buf.resize(start + len as usize, 0);
    let mut got = 0;
    while start + got < buf.len() {
        match file.read(&mut buf[start + got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                buf.truncate(start);
                return Err(e.into());
            }
        }
    }
    buf.truncate(start + got);
    Ok(())
}

/// The bytes of the regular file `path`, at most `max` of them.
pub fn read_bounded_file(path: &Path, max: u64) -> Result<Vec<u8>, InputError> {
    let mut buf = Vec::new();
    read_into(path, &mut buf, max)?;
    Ok(buf)
}

/// The bytes of the input `path` under the process's input size limit; `-` is standard
/// input.
pub fn read(path: &Path) -> Result<Vec<u8>, InputError> {
    read_max(path, limits().max_input_size)
}

/// The bytes of the input `path`, at most `max` of them; `-` is standard input.
pub(crate) fn read_max(path: &Path, max: u64) -> Result<Vec<u8>, InputError> {
    let mut buf = Vec::new();
    if path.as_os_str() == "-" {
        read_bounded(io::stdin().lock(), &mut buf, max)?;
    } else {
        read_into(path, &mut buf, max)?;
    }
    Ok(buf)
}

/// The SoC's CSR configuration in `path` (`aps_config.yaml`, `--aps-config`), read as an
/// input is (a regular file, under the input size limit, UTF-8); its errors located in that
/// file, which they name as `shown`.
pub fn aps_config(
    path: &Path,
    shown: &str,
) -> Result<compiler::aps::csr::CsrConfig, Vec<compiler::diag::Located>> {
    use compiler::diag::{self, Located, Severity};
    let bytes = read(path).map_err(|e| {
        vec![Located::file(shown, Severity::Error, e.to_string()).with_code(e.code())]
    })?;
    let text = match diag::decode_utf8(&bytes) {
        Ok(text) => text,
        Err(d) => {
            return Err(diag::locate_all(
                &[d],
                shown,
                &String::from_utf8_lossy(&bytes),
            ));
        }
    };
    compiler::aps::csr::parse_config(text)
        .map_err(|d| diag::locate_all(&[compiler::flow::Flow::Aps.coded(d)], shown, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn special_files_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let t = Instant::now();
        for (p, what) in [
            (fifo.as_path(), "a FIFO"),
            (Path::new("/dev/zero"), "a character device"),
            (Path::new("/dev/urandom"), "a character device"),
            (dir.path(), "a directory"),
        ] {
            match read_into(p, &mut Vec::new(), 1 << 20) {
                Err(InputError::NotRegular(w)) => assert_eq!(w, what, "{}", p.display()),
                other => panic!("{}: {other:?}", p.display()),
            }
        }
        assert!(t.elapsed() < Duration::from_secs(1));
    }

    #[test]
    fn files_are_read_whole_and_files_without_a_size_to_their_end() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("in.blif");
        let text: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &text).unwrap();
        let mut buf = b"kept ".to_vec();
        read_into(&p, &mut buf, 1 << 20).unwrap();
        assert_eq!(&buf[..5], b"kept ");
        assert_eq!(&buf[5..], &text[..]);
        // A regular file that reports size 0 and has content.
        let mut status = Vec::new();
        read_into(Path::new("/proc/self/status"), &mut status, 1 << 20).unwrap();
        assert!(String::from_utf8_lossy(&status).contains("VmRSS"));
        // An empty file.
        std::fs::write(&p, b"").unwrap();
        assert!(read_bounded_file(&p, 10).unwrap().is_empty());
    }

    #[test]
    fn the_size_limit_is_checked_before_reading_and_names_its_flag() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.mlir");
        std::fs::write(&p, vec![b'x'; 100]).unwrap();
        let mut buf = Vec::new();
        read_into(&p, &mut buf, 100).unwrap();
        assert_eq!(buf.len(), 100);
        let e = read_into(&p, &mut Vec::new(), 99).unwrap_err().to_string();
        assert!(e.contains("--max-input-size"), "{e}");
        // A stream longer than the limit is cut off after limit + 1 bytes.
        let e = read_bounded(io::repeat(0), &mut Vec::new(), 1000).unwrap_err();
        assert!(matches!(e, InputError::TooLarge(_)));
    }

    #[test]
    fn streams_are_read_whole_up_to_the_limit_in_chunks() {
        let first = FIRST_CHUNK as usize;
        for len in [0, 1, first - 1, first, first + 1, 3 * first + 7, 40 << 20] {
            let text: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
            let mut buf = b"kept".to_vec();
            read_bounded(&text[..], &mut buf, len as u64).unwrap();
            assert_eq!((&buf[..4], &buf[4..]), (&b"kept"[..], &text[..]), "{len}");
            if len > 0 {
                let e = read_bounded(&text[..], &mut Vec::new(), len as u64 - 1).unwrap_err();
                assert!(e.to_string().contains("--max-input-size"), "{len}: {e}");
            }
        }
        // An endless stream is refused after the limit and one byte, whatever the limit.
        let e = read_bounded(io::repeat(1), &mut Vec::new(), 50 << 20).unwrap_err();
        assert!(
            e.to_string().contains(&format!("{}", (50u64 << 20) + 1)),
            "{e}"
        );
    }
}
