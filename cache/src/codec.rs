//! The one place that knows the on-disk encoding of cache entries.
//!
//! An entry is `MAGIC (8 bytes) | format version (u32 LE) | payload encoding (u8) |
//! payload length (u64 LE) | SHA-256 of the payload (32 bytes) | payload`. The payload is
//! the value encoded with `bincode` 2 (serde path, standard configuration). bincode is not
//! self-describing, so serde features that need `deserialize_any` (internally tagged or
//! untagged enums, flattening) cannot be decoded from it: [`encode`] checks that the bincode
//! bytes decode, and otherwise stores the value as JSON (encoding 1), which can.
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
pub const FORMAT_VERSION: u32 = 2;
const HEADER_LEN: usize = 8 + 4 + 1 + 8 + 32;
const BINCODE: u8 = 0;
const JSON: u8 = 1;

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

/// Encode `value` as a complete entry (header + payload): bincode when the bincode bytes
/// decode back, else JSON when that decodes back, else an error (the value is not cacheable).
pub fn encode<T: Serialize + DeserializeOwned>(value: &T) -> Result<Vec<u8>, CodecError> {
    let config = bincode::config::standard();
    let type_name = std::any::type_name::<T>();
    let bin = if json_types().contains(type_name) {
        None
    } else {
        let bin = bincode::serde::encode_to_vec(value, config)
            .map_err(|e| CodecError::Payload(e.to_string()))?;
        Some(bin).filter(|b| decode_payload::<T>(BINCODE, b).is_ok())
    };
    let (encoding, payload) = if let Some(bin) = bin {
        (BINCODE, bin)
    } else {
        // Remember the type: its other values go straight to JSON.
        json_types().insert(type_name);
        let json = serde_json::to_vec(value).map_err(|e| CodecError::Payload(e.to_string()))?;
        // Some shapes decode from neither (serde buffers internally tagged enums in a form
        // that cannot hold `u128`): such values are not cacheable.
        decode_payload::<T>(JSON, &json).map_err(|e| {
            CodecError::Payload(format!(
                "value does not round-trip through bincode or JSON: {e}"
            ))
        })?;
        (JSON, json)
    };
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(encoding);
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
    if encoding != BINCODE && encoding != JSON {
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
    decode_payload(encoding, payload)
}

/// Types for which bincode could not decode a value once.
fn json_types() -> std::sync::MutexGuard<'static, std::collections::BTreeSet<&'static str>> {
    static TYPES: std::sync::Mutex<std::collections::BTreeSet<&'static str>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    TYPES.lock().unwrap_or_else(|e| e.into_inner())
}

fn decode_payload<T: DeserializeOwned>(encoding: u8, payload: &[u8]) -> Result<T, CodecError> {
    if encoding == JSON {
        return serde_json::from_slice(payload).map_err(|e| CodecError::Payload(e.to_string()));
    }
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

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(tag = "kind")]
    enum Tagged {
        A { x: u32 },
        B { y: String },
    }

    #[test]
    fn values_bincode_cannot_decode_go_as_json() {
        let v = vec![Tagged::A { x: 1 }, Tagged::B { y: "b".into() }];
        let bytes = encode(&v).unwrap();
        assert_eq!(bytes[12], JSON);
        assert_eq!(decode::<Vec<Tagged>>(&bytes).unwrap(), v);
        assert_eq!(encode(&sample()).unwrap()[12], BINCODE);
    }

    #[test]
    fn other_version_is_rejected() {
        let mut bytes = encode(&1u8).unwrap();
        bytes[8] = 99;
        assert_eq!(decode::<u8>(&bytes), Err(CodecError::Version(99)));
    }
}
