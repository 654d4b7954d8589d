//! Input digests a build request carries (`BuildRequest.input_digests`, filled by the
//! worker shims from a build system's `WorkRequest.inputs`).
//!
//! A digest is the SHA-256 of a file's bytes as the build system staged it. The workspace
//! keeps the digests it has verified against the bytes it read ([`Digests::known`]): when a
//! request names a file with a digest the workspace already verified for that path, the
//! file is neither stat'ed nor read (the build system's content key replaces the stamp).
//! When a file with a given digest is read, its bytes must match, else the input is
//! rejected with a diagnostic. Files without a digest behave as before (stamps).

use compiler::diag::{Located, Severity};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The digests one request gives, by absolute path.
pub(crate) type Given = Arc<BTreeMap<PathBuf, [u8; 32]>>;

/// 64 hex digits (either case) as 32 bytes.
pub fn parse_hex(s: &str) -> Option<[u8; 32]> {
    let bytes = s.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks(2).enumerate() {
        let hi = (pair[0] as char).to_digit(16)?;
        let lo = (pair[1] as char).to_digit(16)?;
        out[i] = (hi * 16 + lo) as u8;
    }
    Some(out)
}

pub(crate) fn hex(sha: &[u8; 32]) -> String {
    sha.iter().map(|b| format!("{b:02x}")).collect()
}

/// The current request's digests and those verified by earlier reads.
#[derive(Debug, Default)]
pub(crate) struct Digests {
    given: Given,
    known: BTreeMap<PathBuf, [u8; 32]>,
}

impl Digests {
    /// Start a request: its digests replace the previous request's.
    pub(crate) fn begin(&mut self, given: &Given) {
        self.given = given.clone();
    }

    /// Whether the request gives a digest for `path`.
    pub(crate) fn is_given(&self, path: &Path) -> bool {
        self.given.contains_key(path)
    }

    /// Whether `path`'s given digest is the one verified when the file was last read.
    pub(crate) fn is_known(&self, path: &Path) -> bool {
        match (self.given.get(path), self.known.get(path)) {
            (Some(g), Some(k)) => g == k,
            _ => false,
        }
    }

    /// Check freshly read bytes against the given digest (recording it as verified), or
    /// forget what was verified when the request gives none.
    pub(crate) fn check(&mut self, path: &Path, bytes: &[u8]) -> Result<(), Located> {
        let Some(expected) = self.given.get(path) else {
            self.known.remove(path);
            return Ok(());
        };
        let got: [u8; 32] = Sha256::digest(bytes).into();
        if got != *expected {
            self.known.remove(path);
            let message = format!(
                "the file does not match the digest the build system gave for it \
                 (expected sha256 {}, the file's is {}); was it modified during the build?",
                hex(expected),
                hex(&got)
            );
            let located = Located::file(path.display().to_string(), Severity::Error, message);
            return Err(located.with_code(compiler::diag::Code::DigestMismatch));
        }
        self.known.insert(path.to_path_buf(), got);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given(path: &str, bytes: &[u8]) -> Given {
        let sha: [u8; 32] = Sha256::digest(bytes).into();
        Arc::new(BTreeMap::from([(PathBuf::from(path), sha)]))
    }

    #[test]
    fn hex_round_trip_and_rejects() {
        let sha: [u8; 32] = Sha256::digest(b"x").into();
        assert_eq!(parse_hex(&hex(&sha)), Some(sha));
        assert_eq!(parse_hex(&hex(&sha).to_uppercase()), Some(sha));
        assert_eq!(parse_hex("abc"), None);
        assert_eq!(parse_hex(&"g".repeat(64)), None);
    }

    #[test]
    fn verified_digest_is_known_until_it_changes() {
        let mut d = Digests::default();
        let p = Path::new("/w/a.blif");
        d.begin(&given("/w/a.blif", b"one"));
        assert!(d.is_given(p) && !d.is_known(p));
        assert!(d.check(p, b"one").is_ok());
        assert!(d.is_known(p));
        d.begin(&given("/w/a.blif", b"two"));
        assert!(!d.is_known(p));
        let err = d.check(p, b"one").unwrap_err().render();
        assert!(err.contains("does not match the digest"), "{err}");
        d.begin(&Given::default());
        assert!(!d.is_given(p) && !d.is_known(p));
    }
}
