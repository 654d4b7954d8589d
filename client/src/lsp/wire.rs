//! The base protocol's framing (`Content-Length: N` header lines, an empty line, N bytes of
//! JSON), read here rather than by `lsp-server`, whose reader allocates the announced
//! length before reading it (a `Content-Length` of 2^63 panics, 1.5e9 commits 1.5 GB) and
//! gives up on the first malformed header.
//!
//! Everything read is bounded: a header line is kept up to [`MAX_LINE`] bytes, a message
//! block has at most [`MAX_HEADERS`] header lines, and a body is read as it arrives (never
//! allocated from the number announced) up to the reader's limit; a longer body is read
//! and dropped. A message that cannot be framed is a [`Frame::Lost`], with the reason, and
//! the reader goes on with the next one: after a header block without a usable length, a
//! line carrying `Content-Length:` after other bytes (the usual shape of a body followed
//! by the next message's header) starts the next message there.

use std::io::{self, BufRead, Read};

/// Longest header line kept (longer ones are read to their end and are not headers).
pub const MAX_LINE: usize = 4096;
/// Most header lines in one message's header block.
pub const MAX_HEADERS: usize = 64;

const CONTENT_LENGTH: &[u8] = b"content-length:";

/// What the next bytes of the stream hold.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A message body (not yet known to be UTF-8 or JSON); `skipped` says why bytes before
    /// its header were not a message.
    Body {
        body: Vec<u8>,
        skipped: Option<String>,
    },
    /// Bytes that did not frame a message (a header block without a usable
    /// `Content-Length`, a body over the limit, one cut off by the end of the stream).
    Lost(String),
    /// The end of the stream, between messages.
    End,
}

/// Reads frames from `input`, bodies up to `max` bytes.
pub struct Reader<R> {
    input: R,
    max: u64,
    /// A header line found inside a line of other bytes, to be read first.
    pending: Option<Vec<u8>>,
}

/// One line, without its `\n` (and `\r`); `long` when it was cut at [`MAX_LINE`], then
/// with its last [`TAIL`] bytes in `tail` (where a header glued to a long body would be).
struct Line {
    bytes: Vec<u8>,
    long: bool,
    tail: Vec<u8>,
}

/// Bytes kept of the end of a long line.
const TAIL: usize = 64;

impl<R: BufRead> Reader<R> {
    pub fn new(input: R, max: u64) -> Reader<R> {
        Reader {
            input,
            max,
            pending: None,
        }
    }

    /// The next frame. `Err` only for a failing read of the stream itself.
    pub fn next(&mut self) -> io::Result<Frame> {
        let mut length: Option<Result<u64, String>> = None;
        let mut junk: Option<String> = None;
        let mut headers = 0;
        loop {
            let line = match self.pending.take() {
                Some(bytes) => Line {
                    bytes,
                    long: false,
                    tail: Vec::new(),
                },
                None => match self.line()? {
                    Some(l) => l,
                    None if headers == 0 && junk.is_none() => return Ok(Frame::End),
                    None => return Ok(Frame::Lost("the stream ended inside a header".into())),
                },
            };
            if line.bytes.is_empty() && !line.long {
                if headers == 0 && junk.is_none() {
                    continue; // blank lines between messages
                }
                break;
            }
            // A header glued after other bytes (a body whose length was wrong, then the next
            // message) starts the next message there, whatever the bytes before look like.
            let after = |b: &[u8], from: usize| find_ci(b, CONTENT_LENGTH).filter(|&at| at >= from);
            let glued = match line.long {
                false => after(&line.bytes, 1).map(|at| line.bytes[at..].to_vec()),
                true => after(&line.tail, 0).map(|at| line.tail[at..].to_vec()),
            };
            match header(&line).filter(|_| glued.is_none()) {
                Some((name, value)) => {
                    headers += 1;
                    if name.eq_ignore_ascii_case(b"content-length") {
                        length = Some(parse_length(value));
                    }
                    // Other headers (`Content-Type`, any extension) carry nothing needed.
                }
                None => {
                    // Not a header: bytes of a message whose framing was lost. A header
                    // glued to their end starts the next message.
                    if let Some(next) = glued {
                        self.pending = Some(next);
                        headers = 0;
                        length = None;
                    }
                    junk.get_or_insert_with(|| describe_junk(&line));
                }
            }
            if headers > MAX_HEADERS {
                return Ok(Frame::Lost(format!(
                    "more than {MAX_HEADERS} header lines in one message"
                )));
            }
        }
        let len = match length {
            Some(Ok(n)) => n,
            Some(Err(why)) => return Ok(Frame::Lost(why)),
            None => {
                let why = junk.unwrap_or_else(|| "a message without `Content-Length`".into());
                return Ok(Frame::Lost(why));
            }
        };
        if len > self.max {
            let read = io::copy(&mut (&mut self.input).take(len), &mut io::sink())?;
            let over = compiler::limits::Limit::InputSize.exceeded(len, self.max);
            let cut = if read < len {
                ", cut off by the end of the stream"
            } else {
                ""
            };
            return Ok(Frame::Lost(format!("a message of {over}; skipped{cut}")));
        }
        // Read as it arrives: the buffer grows with the bytes, not with the announcement.
        let mut body = Vec::new();
        let mut chunk = [0u8; 64 * 1024];
        let mut rest = (&mut self.input).take(len);
        loop {
            match rest.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => body.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if (body.len() as u64) < len {
            return Ok(Frame::Lost(format!(
                "the stream ended after {} of the {len} bytes of a message",
                body.len()
            )));
        }
        Ok(Frame::Body {
            body,
            skipped: junk,
        })
    }

    /// The next line (at most [`MAX_LINE`] bytes kept); `None` at the end of the stream.
    fn line(&mut self) -> io::Result<Option<Line>> {
        let mut bytes = Vec::new();
        let mut tail = Vec::new();
        let mut long = false;
        let mut any = false;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                break;
            }
            any = true;
            let (chunk, done) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..i], Some(i + 1)),
                None => (buf, None),
            };
            let room = MAX_LINE.saturating_sub(bytes.len());
            bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if chunk.len() > room {
                long = true;
                tail.extend_from_slice(&chunk[room..]);
                let cut = tail.len().saturating_sub(TAIL);
                tail.drain(..cut);
            }
            let used = done.unwrap_or(buf.len());
            self.input.consume(used);
            if done.is_some() {
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        for b in [&mut bytes, &mut tail] {
            if b.last() == Some(&b'\r') {
                b.pop();
            }
        }
        Ok(Some(Line { bytes, long, tail }))
    }
}

/// `Name: value` of a header line: the name a token of letters, digits and `-`.
fn header(line: &Line) -> Option<(&[u8], &[u8])> {
    if line.long {
        return None;
    }
    let colon = memchr::memchr(b':', &line.bytes)?;
    let (name, value) = (&line.bytes[..colon], &line.bytes[colon + 1..]);
    let token = |b: &u8| b.is_ascii_alphanumeric() || *b == b'-';
    (!name.is_empty() && name.iter().all(token)).then_some((name, value.trim_ascii()))
}

/// A `Content-Length` value: decimal digits only.
fn parse_length(value: &[u8]) -> Result<u64, String> {
    let text = String::from_utf8_lossy(value);
    let shown: String = text.chars().take(40).collect();
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return Err(format!(
            "`Content-Length: {shown}` is not a length in bytes"
        ));
    }
    text.parse()
        .map_err(|_| format!("`Content-Length: {shown}` is too large"))
}

/// Where `needle` (lowercase ASCII) starts in `hay`, ignoring ASCII case.
fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

fn describe_junk(line: &Line) -> String {
    let text = String::from_utf8_lossy(&line.bytes);
    let shown: String = text.chars().take(40).flat_map(char::escape_debug).collect();
    let more = if line.long || text.chars().count() > 40 {
        "…"
    } else {
        ""
    };
    format!("bytes that are not a message header (`{shown}{more}`)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], max: u64) -> Vec<Frame> {
        let mut r = Reader::new(input, max);
        let mut out = Vec::new();
        loop {
            let f = r.next().unwrap();
            if f == Frame::End {
                return out;
            }
            out.push(f);
        }
    }

    /// Whether `f` is a lost frame saying `why`.
    fn lost(f: &Frame, why: &str) -> bool {
        matches!(f, Frame::Lost(w) if w.contains(why))
    }

    /// Whether `f` is a body `b`, whatever was skipped before it.
    fn is_body(f: &Frame, b: &[u8]) -> bool {
        matches!(f, Frame::Body { body, .. } if body == b)
    }

    fn body(b: &str) -> Frame {
        Frame::Body {
            body: b.as_bytes().to_vec(),
            skipped: None,
        }
    }

    #[test]
    fn well_formed_messages_with_extra_headers() {
        let input = b"Content-Length: 2\r\n\r\n{}Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:3\r\nX-Extra: 1\r\n\r\n[1]\n\nContent-Length: 0\n\n";
        assert_eq!(frames(input, 100), [body("{}"), body("[1]"), body("")]);
    }

    #[test]
    fn lengths_over_the_limit_or_malformed_are_lost_and_reading_goes_on() {
        let f = frames(b"Content-Length: 9223372036854775808\r\n\r\nxx", 100);
        assert!(f.len() == 1 && lost(&f[0], "skipped, cut off"), "{f:?}");
        let f = frames(b"Content-Length: 99999999999999999999999\r\n\r\n{}", 100);
        assert!(lost(&f[0], "too large"), "{f:?}");
        // Over the limit but complete: skipped, and the next message is read.
        let f = frames(
            b"Content-Length: 5\r\n\r\nhelloContent-Length: 2\r\n\r\n{}",
            4,
        );
        assert!(lost(&f[0], "skipped") && f[1] == body("{}"), "{f:?}");
        // A negative length: the body is junk before the next header.
        let f = frames(
            b"Content-Length: -2\r\n\r\n{}Content-Length: 2\r\n\r\n[]",
            100,
        );
        assert!(
            lost(&f[0], "not a length") && is_body(&f[1], b"[]"),
            "{f:?}"
        );
        assert!(
            matches!(
                &f[1],
                Frame::Body {
                    skipped: Some(_),
                    ..
                }
            ),
            "{f:?}"
        );
    }

    #[test]
    fn a_missing_length_or_junk_resynchronises_on_the_next_header() {
        // The rest of a body that looks like a header, glued to the next message's.
        let f = frames(
            b"Content-Length: 1\r\n\r\n{file:///x}Content-Length: 2\r\n\r\n{}",
            100,
        );
        assert!(is_body(&f[1], b"{}"), "{f:?}");
        let f = frames(
            b"Content-Type: x\r\n\r\n{\"a\":1}Content-Length: 2\r\n\r\n{}",
            100,
        );
        assert!(lost(&f[0], "without") && is_body(&f[1], b"{}"), "{f:?}");
        // The same after a long rest of a body.
        let mut input = b"Content-Length: 1\r\n\r\n".to_vec();
        input.extend_from_slice(&vec![b'y'; 2 * MAX_LINE]);
        input.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
        let f = frames(&input, 100);
        assert!(is_body(&f[1], b"{}"), "{f:?}");
        // A long line of junk, then a blank line: lost; the next message is read.
        let mut input = vec![b'x'; 3 * MAX_LINE];
        input.extend_from_slice(b"\r\n\r\nContent-Length: 2\r\n\r\n{}");
        let f = frames(&input, 100);
        assert!(
            lost(&f[0], "not a message header") && f[1] == body("{}"),
            "{f:?}"
        );
    }

    #[test]
    fn truncations_are_lost_not_fatal() {
        let f = frames(b"Content-Length: 10\r\n\r\n{}", 100);
        assert!(f.len() == 1 && lost(&f[0], "2 of the 10"), "{f:?}");
        let f = frames(b"Content-Length: 10\r\n", 100);
        assert!(f.len() == 1 && lost(&f[0], "inside a header"), "{f:?}");
        let many = b"X-A: 1\r\n".repeat(MAX_HEADERS + 1);
        let f = frames(&many, 100);
        assert!(lost(&f[0], "header lines"), "{f:?}");
    }
}
