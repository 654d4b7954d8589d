//! Varint-length-delimited frames (protobuf's `writeDelimitedTo` framing, Bazel's worker
//! protocol): the length is checked against a bound before anything is allocated for it.
//! Depends on `std` only (the fuzz target `worker_frames` includes this file).

use std::io::{self, BufRead, Read};

/// Largest frame read by default (a `WorkRequest` lists arguments and input digests).
pub const MAX_FRAME: u64 = 64 << 20;

/// The bytes of the next frame; `None` at a clean end of input. A length over `max`, a
/// varint longer than 10 bytes and a truncated frame are errors.
pub fn read_frame(r: &mut impl BufRead, max: u64) -> io::Result<Option<Vec<u8>>> {
    let mut len: u64 = 0;
    for shift in (0..64).step_by(7) {
        let mut byte = [0u8];
        if r.read(&mut byte)? == 0 {
            if shift == 0 {
                return Ok(None);
            }
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        len |= u64::from(byte[0] & 0x7f) << shift;
        if byte[0] & 0x80 == 0 {
            if len > max {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("frame of {len} bytes, over the {max}-byte limit"),
                ));
            }
            let mut buf = Vec::new();
            (&mut *r).take(len).read_to_end(&mut buf)?;
            if buf.len() as u64 != len {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            return Ok(Some(buf));
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidData,
        "varint too long",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_bounded_before_allocation() {
        let mut ok: &[u8] = &[3, b'a', b'b', b'c', 0];
        assert_eq!(read_frame(&mut ok, 10).unwrap(), Some(b"abc".to_vec()));
        assert_eq!(read_frame(&mut ok, 10).unwrap(), Some(Vec::new()));
        assert_eq!(read_frame(&mut ok, 10).unwrap(), None);
        // 2^63 - 1 in nine varint bytes: refused, nothing allocated.
        let mut huge: &[u8] = &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
        let e = read_frame(&mut huge, MAX_FRAME).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        let mut short: &[u8] = &[5, 1, 2];
        assert!(read_frame(&mut short, 10).is_err());
    }
}
