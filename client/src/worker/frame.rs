//! Varint-length-delimited frames (protobuf's `writeDelimitedTo` framing, Bazel's worker
//! protocol): the length is checked against a bound before anything is allocated for it,
//! and a frame over the bound can be skipped (read and dropped), so that a reader goes on
//! with the frame after it. Depends on `std` only (the fuzz target `worker_frames`
//! includes this file).

use std::io::{self, BufRead, Read};

/// Largest frame read by default (a `WorkRequest` lists arguments and input digests).
pub const MAX_FRAME: u64 = 64 << 20;

/// Longest varint: 10 bytes hold 64 bits.
const MAX_VARINT: usize = 10;

/// What the stream holds next.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    /// The bytes of one frame.
    Frame(Vec<u8>),
    /// A frame longer than the bound, not read yet: its length (see [`skip`]).
    Oversized(u64),
    /// A length prefix longer than 10 bytes, read to its last byte.
    BadLength,
    /// The end of the input, between frames.
    End,
}

/// The next frame, up to `max` bytes. A read error, or an end of input inside a frame
/// (`UnexpectedEof`), is an error: the framing is lost for good.
pub fn next_frame(r: &mut impl BufRead, max: u64) -> io::Result<Next> {
    let mut len: u64 = 0;
    let mut bytes = 0;
    loop {
        let mut byte = [0u8];
        if r.read(&mut byte)? == 0 {
            if bytes == 0 {
                return Ok(Next::End);
            }
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        // Bits past the 64th make the length larger than any bound.
        let bits = u64::from(byte[0] & 0x7f);
        len |= bits.checked_shl(7 * bytes as u32).unwrap_or(0);
        if bytes == 9 && bits > 1 {
            len = u64::MAX;
        }
        bytes += 1;
        if byte[0] & 0x80 != 0 {
            continue;
        }
        if bytes > MAX_VARINT {
            return Ok(Next::BadLength);
        }
        if len > max {
            return Ok(Next::Oversized(len));
        }
        // Read as it arrives: the buffer grows with the bytes, not with the length.
        let mut buf = Vec::new();
        (&mut *r).take(len).read_to_end(&mut buf)?;
        if buf.len() as u64 != len {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        return Ok(Next::Frame(buf));
    }
}

/// Read and drop the `len` bytes of an oversized frame; `UnexpectedEof` when the input
/// ends first.
pub fn skip(r: &mut impl BufRead, len: u64) -> io::Result<()> {
    let read = io::copy(&mut (&mut *r).take(len), &mut io::sink())?;
    match read == len {
        true => Ok(()),
        false => Err(io::ErrorKind::UnexpectedEof.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_bounded_before_allocation() {
        let mut ok: &[u8] = &[3, b'a', b'b', b'c', 0];
        assert_eq!(
            next_frame(&mut ok, 10).unwrap(),
            Next::Frame(b"abc".to_vec())
        );
        assert_eq!(next_frame(&mut ok, 10).unwrap(), Next::Frame(Vec::new()));
        assert_eq!(next_frame(&mut ok, 10).unwrap(), Next::End);
        // 2^63 - 1 in nine varint bytes: refused, nothing allocated.
        let mut huge: &[u8] = &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
        assert_eq!(
            next_frame(&mut huge, MAX_FRAME).unwrap(),
            Next::Oversized(i64::MAX as u64)
        );
        let mut short: &[u8] = &[5, 1, 2];
        assert!(next_frame(&mut short, 10).is_err());
    }

    #[test]
    fn oversized_frames_and_bad_lengths_are_skipped() {
        let mut r: &[u8] = &[4, 1, 2, 3, 4, 1, 9];
        assert_eq!(next_frame(&mut r, 3).unwrap(), Next::Oversized(4));
        skip(&mut r, 4).unwrap();
        assert_eq!(next_frame(&mut r, 3).unwrap(), Next::Frame(vec![9]));
        let mut cut: &[u8] = &[4, 1];
        assert_eq!(next_frame(&mut cut, 3).unwrap(), Next::Oversized(4));
        assert!(skip(&mut cut, 4).is_err());
        // Eleven bytes of length, then a frame.
        let mut long: Vec<u8> = vec![0x80; 10];
        long.extend_from_slice(&[0x01, 1, 7]);
        let mut r = long.as_slice();
        assert_eq!(next_frame(&mut r, 10).unwrap(), Next::BadLength);
        assert_eq!(next_frame(&mut r, 10).unwrap(), Next::Frame(vec![7]));
        // A tenth byte over 1 overflows 64 bits: larger than any bound.
        let mut over: Vec<u8> = vec![0x80; 9];
        over.push(0x02);
        assert_eq!(
            next_frame(&mut over.as_slice(), MAX_FRAME).unwrap(),
            Next::Oversized(u64::MAX)
        );
    }
}
