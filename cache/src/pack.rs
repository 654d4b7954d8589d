//! Pack files: many cache entries in one file, so that a cold build creates a few files
//! instead of one per cached query result (file creation dominated cold builds).
//!
//! Layout: `PACK_MAGIC (8) | pack version (u32 LE) | records | index | trailer`.
//! A record is `key (32) | entry length (u64 LE) | entry`, the entry being a complete
//! [`crate::codec`] entry (its own magic, format version and checksum, verified on every
//! read). The index repeats `key (32) | offset (u64 LE) | length (u64 LE)` per record; the
//! trailer is `record count (u64 LE) | SHA-256 of the index (32) | INDEX_MAGIC (8)`.
//!
//! Packs are written whole (temp file + rename) and never modified, so a reader sees a
//! complete pack or none. A pack whose trailer does not verify (truncated, overwritten) is
//! scanned record by record from the start: the records before the first inconsistent one
//! are kept, the torn rest is reported (and counted as corrupt by the store).
//!
//! Opening a pack reads its header, trailer and index only, with bounded reads: a file
//! over [`MAX_PACK_LEN`] or an index over [`MAX_INDEX_LEN`] is implausible and skipped
//! (an error the store logs), and a scan reads record headers one at a time, never the
//! pack whole. Opening cost is bounded by the index, whatever the file's size or content.

use sha2::{Digest, Sha256};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

pub const PACK_MAGIC: &[u8; 8] = b"KILNPACK";
pub const INDEX_MAGIC: &[u8; 8] = b"KILNPIDX";
pub const PACK_VERSION: u32 = 1;
const HEADER_LEN: u64 = 12;
const RECORD_HEADER_LEN: u64 = 40;
const INDEX_ROW_LEN: u64 = 48;
const TRAILER_LEN: u64 = 48;
/// Largest pack opened (packs are written up to 8 MiB, or one large entry each).
pub const MAX_PACK_LEN: u64 = 1 << 30;
/// Largest index read (about 1.4 million records); also the bound on records scanned.
pub const MAX_INDEX_LEN: u64 = 64 << 20;

/// Where one entry lies in its pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub key: [u8; 32],
    /// Offset of the entry bytes (after the record header).
    pub offset: u64,
    pub len: u64,
}

/// The records of a pack, and why its tail was dropped when it was torn.
#[derive(Debug, Default)]
pub struct Contents {
    pub records: Vec<Record>,
    pub torn: Option<String>,
}

/// The bytes of a pack holding `entries` (in order), and their records.
pub fn encode(entries: &[([u8; 32], Arc<[u8]>)]) -> (Vec<u8>, Vec<Record>) {
    let body: usize = entries.iter().map(|e| e.1.len() + 40 + 48).sum();
    let mut out = Vec::with_capacity(body + 60);
    out.extend_from_slice(PACK_MAGIC);
    out.extend_from_slice(&PACK_VERSION.to_le_bytes());
    let mut records = Vec::with_capacity(entries.len());
    for (key, entry) in entries {
        out.extend_from_slice(key);
        out.extend_from_slice(&(entry.len() as u64).to_le_bytes());
        records.push(Record {
            key: *key,
            offset: out.len() as u64,
            len: entry.len() as u64,
        });
        out.extend_from_slice(entry);
    }
    let start = out.len();
    for r in &records {
        out.extend_from_slice(&r.key);
        out.extend_from_slice(&r.offset.to_le_bytes());
        out.extend_from_slice(&r.len.to_le_bytes());
    }
    let index_sum = Sha256::digest(&out[start..]);
    out.extend_from_slice(&(records.len() as u64).to_le_bytes());
    out.extend_from_slice(&index_sum);
    out.extend_from_slice(INDEX_MAGIC);
    (out, records)
}

/// The records of the pack in `file` (of `size` bytes): from its index when the trailer
/// verifies, else by scanning.
pub fn read(file: &File, size: u64) -> std::io::Result<Contents> {
    if size > MAX_PACK_LEN {
        return Err(std::io::Error::other(format!(
            "implausible pack: {size} bytes (packs are at most {MAX_PACK_LEN})"
        )));
    }
    if let Some(records) = read_index(file, size)? {
        return Ok(Contents {
            records,
            torn: None,
        });
    }
    Ok(scan_with(size, |buf, at| file.read_exact_at(buf, at)))
}

/// The index, or `None` when the header, trailer or index does not verify.
fn read_index(file: &File, size: u64) -> std::io::Result<Option<Vec<Record>>> {
    if size < HEADER_LEN + TRAILER_LEN {
        return Ok(None);
    }
    let mut head = [0u8; HEADER_LEN as usize];
    file.read_exact_at(&mut head, 0)?;
    if !header_ok(&head) {
        return Ok(None);
    }
    let mut trailer = [0u8; TRAILER_LEN as usize];
    file.read_exact_at(&mut trailer, size - TRAILER_LEN)?;
    if &trailer[40..] != INDEX_MAGIC {
        return Ok(None);
    }
    let n = u64_at(&trailer, 0);
    let Some(index_len) = n.checked_mul(INDEX_ROW_LEN) else {
        return Ok(None);
    };
    if index_len > size - HEADER_LEN - TRAILER_LEN || index_len > MAX_INDEX_LEN {
        return Ok(None);
    }
    let index_start = size - TRAILER_LEN - index_len;
    let mut index = vec![0u8; index_len as usize];
    file.read_exact_at(&mut index, index_start)?;
    if Sha256::digest(&index).as_slice() != &trailer[8..40] {
        return Ok(None);
    }
    let records: Vec<Record> = index
        .chunks_exact(INDEX_ROW_LEN as usize)
        .map(|row| Record {
            key: row[..32].try_into().expect("32 bytes"),
            offset: u64_at(row, 32),
            len: u64_at(row, 40),
        })
        .collect();
    let in_bounds = records
        .iter()
        .all(|r| r.offset >= HEADER_LEN && r.offset.saturating_add(r.len) <= index_start);
    Ok(in_bounds.then_some(records))
}

/// Records from the start of a pack up to the first one that does not fit (a torn tail).
pub fn scan(bytes: &[u8]) -> Contents {
    scan_with(bytes.len() as u64, |buf, at| {
        let at = at as usize;
        match bytes.get(at..at + buf.len()) {
            Some(b) => {
                buf.copy_from_slice(b);
                Ok(())
            }
            None => Err(std::io::ErrorKind::UnexpectedEof.into()),
        }
    })
}

/// [`scan`] of a pack of `size` bytes read through `read_at` (record headers only).
fn scan_with(size: u64, read_at: impl Fn(&mut [u8], u64) -> std::io::Result<()>) -> Contents {
    let mut head = [0u8; HEADER_LEN as usize];
    if size < HEADER_LEN || read_at(&mut head, 0).is_err() || !header_ok(&head) {
        return Contents {
            records: Vec::new(),
            torn: Some("bad pack header".into()),
        };
    }
    let mut records = Vec::new();
    let mut at = HEADER_LEN;
    // A record header and the entry magic after it.
    let mut rec = [0u8; RECORD_HEADER_LEN as usize + 8];
    while at < size {
        if records.len() as u64 >= MAX_INDEX_LEN / INDEX_ROW_LEN {
            return torn(records, at, "record (too many records)");
        }
        // The index starts where a record header would: it is recognised by its
        // trailer, so a complete pack whose index failed to verify still yields records.
        if size - at < RECORD_HEADER_LEN || read_at(&mut rec[..40], at).is_err() {
            return torn(records, at, "record header");
        }
        let key: [u8; 32] = rec[..32].try_into().expect("32 bytes");
        let len = u64_at(&rec, 32);
        let body = at + RECORD_HEADER_LEN;
        if body.saturating_add(len) > size {
            return torn(records, at, "record body");
        }
        let magic = len >= 8 && read_at(&mut rec[40..], body).is_ok();
        if !magic || &rec[40..] != crate::codec::MAGIC {
            // Not an entry: the index (or garbage) follows the last record.
            return Contents {
                records,
                torn: None,
            };
        }
        records.push(Record {
            key,
            offset: body,
            len,
        });
        at = body + len;
    }
    Contents {
        records,
        torn: None,
    }
}

fn torn(records: Vec<Record>, at: u64, what: &str) -> Contents {
    Contents {
        records,
        torn: Some(format!("torn {what} at byte {at}")),
    }
}

fn header_ok(head: &[u8]) -> bool {
    &head[..8] == PACK_MAGIC && head[8..12] == PACK_VERSION.to_le_bytes()
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn entries() -> Vec<([u8; 32], Arc<[u8]>)> {
        (0..5u8)
            .map(|i| {
                let e = crate::codec::encode(&[i; 32], &vec![i; 10 + i as usize]).unwrap();
                ([i; 32], Arc::from(e))
            })
            .collect()
    }

    fn file_of(bytes: &[u8]) -> (tempfile::NamedTempFile, u64) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        (f, bytes.len() as u64)
    }

    #[test]
    fn index_round_trip() {
        let (bytes, records) = encode(&entries());
        let (f, size) = file_of(&bytes);
        let c = read(f.as_file(), size).unwrap();
        assert_eq!(c.records, records);
        assert!(c.torn.is_none());
        for (r, (k, e)) in c.records.iter().zip(entries()) {
            assert_eq!(r.key, k);
            assert_eq!(
                &bytes[r.offset as usize..(r.offset + r.len) as usize],
                &e[..]
            );
        }
    }

    #[test]
    fn scan_agrees_with_the_index() {
        let (bytes, records) = encode(&entries());
        let c = scan(&bytes);
        assert_eq!(c.records, records);
        assert!(c.torn.is_none());
    }

    #[test]
    fn every_truncation_keeps_only_whole_records() {
        let (bytes, records) = encode(&entries());
        let end_of_records =
            (records.last().unwrap().offset + records.last().unwrap().len) as usize;
        for n in 0..bytes.len() {
            let (f, size) = file_of(&bytes[..n]);
            let c = read(f.as_file(), size).unwrap();
            assert!(
                c.records.iter().all(|r| r.offset + r.len <= n as u64),
                "record past the end at {n}"
            );
            let whole = records
                .iter()
                .filter(|r| r.offset + r.len <= n as u64)
                .count();
            assert_eq!(c.records.len(), whole, "prefix of {n} bytes");
            if n < end_of_records {
                assert!(c.torn.is_some() || n == records[whole.min(4)].offset as usize - 40);
            }
        }
    }
}
