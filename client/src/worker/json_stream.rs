//! The JSON transport's stream cut into one top-level value per request. Bazel writes
//! requests as compact JSON objects back to back with no separator, so a value ends where
//! its brackets balance (outside strings). Cutting before decoding lets the worker answer
//! a malformed request and go on with the next one, where a streaming decoder stops at the
//! first error. Everything is bounded: a value longer than the limit is read to its end
//! and dropped, and bytes outside any object are skipped as one run.

use std::io::{self, BufRead};

/// What the stream holds next.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    /// The bytes of one bracketed value (an object, or an array: not a request).
    Value(Vec<u8>),
    /// Bytes outside any object or array (up to the next bracket or blank): why skipped.
    Junk(String),
    /// A value longer than the limit, read and dropped: its length.
    Oversized(u64),
    /// The end of the stream, between values.
    End,
}

/// Reads values from `input`, each up to `max` bytes.
pub struct Splitter<R> {
    input: R,
    max: u64,
}

/// Where the scan of a bracketed value is.
#[derive(Default)]
struct Scan {
    depth: u64,
    in_string: bool,
    escaped: bool,
    len: u64,
}

impl Scan {
    /// Take `b`; whether the value ends with it.
    fn step(&mut self, b: u8) -> bool {
        self.len += 1;
        if self.in_string {
            match (self.escaped, b) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.in_string = false,
                _ => {}
            }
            return false;
        }
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                return self.depth == 0;
            }
            _ => {}
        }
        false
    }
}

impl<R: BufRead> Splitter<R> {
    pub fn new(input: R, max: u64) -> Splitter<R> {
        Splitter { input, max }
    }

    /// The next value. `Err` when a read fails or the stream ends inside a value (its
    /// framing is lost for good).
    pub fn next(&mut self) -> io::Result<Next> {
        // Whitespace between values.
        loop {
            let buf = self.input.fill_buf()?;
            let Some(&first) = buf.first() else {
                return Ok(Next::End);
            };
            if !first.is_ascii_whitespace() {
                break;
            }
            let n = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
            self.input.consume(n);
        }
        let first = self.input.fill_buf()?[0];
        if first != b'{' && first != b'[' {
            return self.junk();
        }
        let mut scan = Scan::default();
        let mut value = Vec::new();
        loop {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "the stream ended inside a request, after {} bytes",
                        scan.len
                    ),
                ));
            }
            let mut used = buf.len();
            let mut done = false;
            for (i, &b) in buf.iter().enumerate() {
                if scan.step(b) {
                    used = i + 1;
                    done = true;
                    break;
                }
            }
            if scan.len <= self.max {
                value.extend_from_slice(&buf[..used]);
            } else {
                value = Vec::new();
            }
            self.input.consume(used);
            if done {
                return Ok(match scan.len <= self.max {
                    true => Next::Value(value),
                    false => Next::Oversized(scan.len),
                });
            }
        }
    }

    /// A run of bytes up to the next bracket or whitespace.
    fn junk(&mut self) -> io::Result<Next> {
        let mut shown = Vec::new();
        let mut len = 0u64;
        loop {
            let buf = self.input.fill_buf()?;
            let end = buf
                .iter()
                .position(|&b| b == b'{' || b == b'[' || b.is_ascii_whitespace());
            let used = end.unwrap_or(buf.len());
            let room = 40usize.saturating_sub(shown.len());
            shown.extend_from_slice(&buf[..used.min(room)]);
            len += used as u64;
            self.input.consume(used);
            if end.is_some() || used == 0 {
                break;
            }
        }
        let text = String::from_utf8_lossy(&shown);
        let more = if len > shown.len() as u64 { "…" } else { "" };
        Ok(Next::Junk(format!(
            "{len} bytes that are not a JSON request (`{}{more}`)",
            text.escape_debug()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], max: u64) -> (Vec<Next>, Option<io::Error>) {
        let mut s = Splitter::new(input, max);
        let mut out = Vec::new();
        loop {
            match s.next() {
                Ok(Next::End) => return (out, None),
                Ok(n) => out.push(n),
                Err(e) => return (out, Some(e)),
            }
        }
    }

    fn value(s: &str) -> Next {
        Next::Value(s.as_bytes().to_vec())
    }

    #[test]
    fn values_back_to_back_with_brackets_in_strings() {
        let input = br#"{"a":"}{\"x"}{"b":[1,{"c":2}]} [3]
{}"#;
        let (v, e) = all(input, 100);
        assert!(e.is_none());
        assert_eq!(
            v,
            [
                value(r#"{"a":"}{\"x"}"#),
                value(r#"{"b":[1,{"c":2}]}"#),
                value("[3]"),
                value("{}")
            ]
        );
    }

    #[test]
    fn junk_oversized_and_truncated_values() {
        let (v, e) = all(b"tru 12 {\"a\":1} {\"big\":\"0123456789\"} {}", 12);
        assert!(e.is_none());
        assert!(
            matches!(&v[0], Next::Junk(w) if w.contains("`tru`")),
            "{v:?}"
        );
        assert!(matches!(&v[1], Next::Junk(_)), "{v:?}");
        assert_eq!(v[2], value("{\"a\":1}"));
        assert_eq!(v[3], Next::Oversized(20));
        assert_eq!(v[4], value("{}"));
        let (v, e) = all(b"{} {\"requestId\": tru", 100);
        assert_eq!(v, [value("{}")]);
        assert_eq!(e.unwrap().kind(), io::ErrorKind::UnexpectedEof);
        // A stray closing bracket is junk of its own; the object after it is read.
        let (v, _) = all(b"}{\"a\":1}", 100);
        assert!(matches!(&v[0], Next::Junk(_)), "{v:?}");
        assert_eq!(v[1], value("{\"a\":1}"));
    }
}
