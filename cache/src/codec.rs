//! The one place that knows the on-disk encoding of cache entries.
//!
//! An entry is `MAGIC (8 bytes) | format version (u32 LE) | payload encoding (u8) |
//! payload length (u64 LE) | key (32 bytes) | SHA-256 of key and payload (32 bytes) |
//! payload`. The entry carries the key it was stored under, inside its checksum, and a read
//! checks it against the key asked for: an entry moved to another key (in a pack whose
//! index was rewritten, or in a remote blob) is corrupt, not a hit. The payload is
//! the value encoded with `bincode` 2 (serde path, standard configuration), the only
//! encoding. bincode is not self-describing: cached types must not use serde shapes that
//! need `deserialize_any` (internally tagged or untagged enums, flattening). The daemon's
//! tests round-trip every cached query kind through this codec to keep that true.
//!
//! Anything that does not match exactly — wrong magic, other version, unknown encoding,
//! short read, trailing bytes, checksum mismatch, undecodable payload — is a [`CodecError`],
//! which the store treats as a miss.

use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

/// First bytes of every entry.
pub const MAGIC: &[u8; 8] = b"KILNCACH";
/// Bumped whenever the entry layout or the payload codec changes.
pub const FORMAT_VERSION: u32 = 4;
const HEADER_LEN: usize = 8 + 4 + 1 + 8 + 32 + 32;
const BINCODE: u8 = 0;

/// Why bytes could not be decoded as an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodecError {
    Truncated {
        len: usize,
    },
    BadMagic,
    Version(u32),
    Encoding(u8),
    Length {
        declared: u64,
        actual: usize,
    },
    Checksum,
    /// The entry belongs to another key.
    Key,
    Payload(String),
}

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CodecError::Truncated { len } => write!(f, "truncated entry ({len} bytes)"),
            CodecError::BadMagic => write!(f, "bad magic"),
            CodecError::Version(v) => write!(f, "format version {v}, expected {FORMAT_VERSION}"),
            CodecError::Encoding(e) => write!(f, "unknown payload encoding {e}"),
            CodecError::Length { declared, actual } => {
                write!(f, "payload length {actual}, header says {declared}")
            }
            CodecError::Checksum => write!(f, "checksum mismatch"),
            CodecError::Key => write!(f, "entry stored under another key"),
            CodecError::Payload(e) => write!(f, "undecodable payload: {e}"),
        }
    }
}

/// SHA-256 of the key and the payload.
fn checksum(key: &[u8; 32], payload: &[u8]) -> [u8; 32] {
    Sha256::new()
        .chain_update(key)
        .chain_update(payload)
        .finalize()
        .into()
}

/// Encode `value` as a complete entry for `key` (header + bincode payload).
pub fn encode<T: Serialize>(key: &[u8; 32], value: &T) -> Result<Vec<u8>, CodecError> {
    let payload = bincode::serde::encode_to_vec(value, bincode::config::standard())
        .map_err(|e| CodecError::Payload(e.to_string()))?;
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(BINCODE);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(&checksum(key, &payload));
    out.extend_from_slice(&payload);
    Ok(out)
}

/// Decode a complete entry stored for `key`, verifying magic, version, length, key and
/// checksum.
pub fn decode<T: DeserializeOwned>(key: &[u8; 32], bytes: &[u8]) -> Result<T, CodecError> {
    if bytes.len() < HEADER_LEN {
        return Err(CodecError::Truncated { len: bytes.len() });
    }
    if &bytes[..8] != MAGIC {
        return Err(CodecError::BadMagic);
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(CodecError::Version(version));
    }
    let encoding = bytes[12];
    if encoding != BINCODE {
        return Err(CodecError::Encoding(encoding));
    }
    let declared = u64::from_le_bytes(bytes[13..21].try_into().expect("8 bytes"));
    let payload = &bytes[HEADER_LEN..];
    if declared != payload.len() as u64 {
        return Err(CodecError::Length {
            declared,
            actual: payload.len(),
        });
    }
    let (stored_key, sum) = (&bytes[21..53], &bytes[53..85]);
    if checksum(stored_key.try_into().expect("32 bytes"), payload) != sum {
        return Err(CodecError::Checksum);
    }
    if stored_key != key {
        return Err(CodecError::Key);
    }
    decode_payload(payload)
}

fn decode_payload<T: DeserializeOwned>(payload: &[u8]) -> Result<T, CodecError> {
    let (value, used) = bincode::serde::decode_from_slice(payload, bincode::config::standard())
        .map_err(|e| CodecError::Payload(e.to_string()))?;
    if used != payload.len() {
        return Err(CodecError::Payload(format!(
            "{} trailing bytes",
            payload.len() - used
        )));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    const K: [u8; 32] = [7; 32];

    fn sample() -> BTreeMap<String, Vec<u32>> {
        BTreeMap::from([("a".into(), vec![1, 2, 300]), ("b".into(), vec![])])
    }

    #[test]
    fn round_trip() {
        let bytes = encode(&K, &sample()).unwrap();
        assert_eq!(&bytes[..8], MAGIC);
        let back: BTreeMap<String, Vec<u32>> = decode(&K, &bytes).unwrap();
        assert_eq!(back, sample());
    }

    #[test]
    fn every_truncation_is_rejected() {
        let bytes = encode(&K, &sample()).unwrap();
        for n in 0..bytes.len() {
            let r: Result<BTreeMap<String, Vec<u32>>, _> = decode(&K, &bytes[..n]);
            assert!(r.is_err(), "prefix of {n} bytes accepted");
        }
    }

    #[test]
    fn every_single_bit_flip_is_rejected() {
        let bytes = encode(&K, &sample()).unwrap();
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            let r: Result<BTreeMap<String, Vec<u32>>, _> = decode(&K, &b);
            assert!(r.is_err(), "flip at byte {i} accepted");
        }
    }

    #[test]
    fn other_version_is_rejected() {
        let mut bytes = encode(&K, &1u8).unwrap();
        bytes[8] = 99;
        assert_eq!(decode::<u8>(&K, &bytes), Err(CodecError::Version(99)));
    }

    #[test]
    fn an_entry_read_under_another_key_is_rejected() {
        let bytes = encode(&K, &sample()).unwrap();
        let r: Result<BTreeMap<String, Vec<u32>>, _> = decode(&[8; 32], &bytes);
        assert_eq!(r, Err(CodecError::Key));
        // Rewriting the stored key breaks the checksum.
        let mut forged = bytes.clone();
        forged[21..53].copy_from_slice(&[8; 32]);
        let r: Result<BTreeMap<String, Vec<u32>>, _> = decode(&[8; 32], &forged);
        assert_eq!(r, Err(CodecError::Checksum));
    }
}
