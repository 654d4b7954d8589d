//! Text written in chunks of bounded size: a large output (a netlist of hundreds of
//! megabytes) is never one buffer that doubles as it grows, which would hold up to twice
//! the text and copy it at each doubling. The chunks become the output's pieces
//! ([`crate::flow::Piece`]), which writers write in order.

use crate::flow::Piece;
use std::borrow::Cow;
use std::fmt;

/// A chunk is closed once it holds this many bytes (a write never splits).
const CHUNK: usize = 1 << 20;

/// A text being written, as closed chunks and the open one.
#[derive(Debug, Default)]
pub(crate) struct Chunks {
    done: Vec<String>,
    open: String,
}

impl Chunks {
    pub(crate) fn new() -> Chunks {
        Chunks::default()
    }

    /// The text as pieces, in order.
    pub(crate) fn into_pieces(mut self) -> Vec<Piece> {
        if !self.open.is_empty() || self.done.is_empty() {
            self.done.push(self.open);
        }
        (self.done.into_iter())
            .map(|c| Cow::Owned(c.into_bytes()))
            .collect()
    }

    /// The text as one string (for callers that want it whole).
    pub(crate) fn into_string(self) -> String {
        if self.done.is_empty() {
            return self.open;
        }
        let len = self.done.iter().map(String::len).sum::<usize>() + self.open.len();
        let mut text = String::with_capacity(len);
        for chunk in self.done {
            text.push_str(&chunk);
        }
        text.push_str(&self.open);
        text
    }
}

impl fmt::Write for Chunks {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.open.len() + s.len() > CHUNK && !self.open.is_empty() {
            let full = std::mem::replace(&mut self.open, String::with_capacity(CHUNK));
            self.done.push(full);
        }
        self.open.push_str(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    #[test]
    fn chunks_join_to_the_text_written() {
        let mut c = Chunks::new();
        let mut whole = String::new();
        for i in 0..300_000 {
            let _ = writeln!(c, "line {i} é");
            let _ = writeln!(whole, "line {i} é");
        }
        let pieces = c.into_pieces();
        assert!(pieces.len() > 3 && pieces.iter().all(|p| p.len() <= CHUNK));
        assert_eq!(pieces.concat(), whole.as_bytes());
        let mut c = Chunks::new();
        let _ = write!(c, "{whole}");
        assert_eq!(c.into_string(), whole);
        assert_eq!(Chunks::new().into_pieces().concat(), b"");
    }
}
