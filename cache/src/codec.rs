//! The one place that knows the on-disk encoding of cache entries.
//!
//! An entry is `MAGIC (8 bytes) | format version (u32 LE) | payload encoding (u8) |
//! payload length (u64 LE) | SHA-256 of the payload (32 bytes) | payload`. The payload is
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
pub const FORMAT_VERSION: u32 = 3;
const HEADER_LEN: usize = 8 + 4 + 1 + 8 + 32;
const BINCODE: u8 = 0;

/// Why bytes could not be decoded as an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodecError {
    Truncated { len: usize },
    BadMagic,
    Version(u32),
    Encoding(u8),
    Length { declared: u64, actual: usize },
    Checksum,
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
            CodecError::Payload(e) => write!(f, "undecodable payload: {e}"),
        }
    }
}

/// Encode `value` as a complete entry (header + bincode payload).
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, CodecError> {
    let payload = bincode::serde::encode_to_vec(value, bincode::config::standard())
        .map_err(|e| CodecError::Payload(e.to_string()))?;
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(BINCODE);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&payload));
    out.extend_from_slice(&payload);
    Ok(out)
}

/// Decode a complete entry, verifying magic, version, length and checksum.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
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
    if Sha256::digest(payload).as_slice() != &bytes[21..53] {
        return Err(CodecError::Checksum);
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

    fn sample() -> BTreeMap<String, Vec<u32>> {
        BTreeMap::from([("a".into(), vec![1, 2, 300]), ("b".into(), vec![])])
    }

    #[test]
    fn round_trip() {
        let bytes = encode(&sample()).unwrap();
        assert_eq!(&bytes[..8], MAGIC);
        let back: BTreeMap<String, Vec<u32>> = decode(&bytes).unwrap();
        assert_eq!(back, sample());
    }

    #[test]
    fn every_truncation_is_rejected() {
        let bytes = encode(&sample()).unwrap();
        for n in 0..bytes.len() {
            let r: Result<BTreeMap<String, Vec<u32>>, _> = decode(&bytes[..n]);
            assert!(r.is_err(), "prefix of {n} bytes accepted");
        }
    }

    #[test]
    fn every_single_bit_flip_is_rejected() {
        let bytes = encode(&sample()).unwrap();
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            let r: Result<BTreeMap<String, Vec<u32>>, _> = decode(&b);
            assert!(r.is_err(), "flip at byte {i} accepted");
        }
    }

    #[test]
    fn other_version_is_rejected() {
        let mut bytes = encode(&1u8).unwrap();
        bytes[8] = 99;
        assert_eq!(decode::<u8>(&bytes), Err(CodecError::Version(99)));
    }
}
