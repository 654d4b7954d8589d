//! An open document as the language server keeps it: its text, its line starts, and the
//! conversion between the editor's positions (line and column in the negotiated encoding:
//! UTF-16 code units by default, UTF-8 bytes when the editor offers it) and the byte
//! offsets the daemon speaks.

use lsp_types::{Position, Range};
use std::ops::Range as Bytes;

/// How columns are counted (LSP `positionEncoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// One document's text and its line index.
#[derive(Debug, Clone)]
pub struct Text {
    pub text: String,
    line_starts: Vec<usize>,
}

impl Text {
    pub fn new(text: String) -> Text {
        let mut t = Text {
            text,
            line_starts: Vec::new(),
        };
        t.index();
        t
    }

    fn index(&mut self) {
        self.line_starts.clear();
        self.line_starts.push(0);
        let lines = memchr::memchr_iter(b'\n', self.text.as_bytes()).map(|i| i + 1);
        self.line_starts.extend(lines);
    }

    /// Replace `range` (bytes) by `new`.
    pub fn replace(&mut self, range: Bytes<usize>, new: &str) {
        self.text.replace_range(range, new);
        self.index();
    }

    /// The line `line` (0-based) without its terminator; empty past the end.
    fn line(&self, line: usize) -> (usize, &str) {
        let Some(&start) = self.line_starts.get(line) else {
            return (self.text.len(), "");
        };
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |e| e - 1);
        let s = &self.text[start..end.max(start)];
        (start, s.strip_suffix('\r').unwrap_or(s))
    }

    /// The byte offset of `pos` (clamped to its line and to a character boundary).
    pub fn offset(&self, pos: Position, enc: Encoding) -> usize {
        let (start, line) = self.line(pos.line as usize);
        let want = pos.character as usize;
        let col = match enc {
            Encoding::Utf8 => {
                let mut c = want.min(line.len());
                while !line.is_char_boundary(c) {
                    c -= 1;
                }
                c
            }
            Encoding::Utf16 => {
                let mut units = 0;
                let mut bytes = line.len();
                for (i, ch) in line.char_indices() {
                    if units >= want {
                        bytes = i;
                        break;
                    }
                    units += ch.len_utf16();
                }
                bytes
            }
        };
        start + col
    }

    /// The position of byte `offset` (clamped to the text and to a character boundary).
    pub fn position(&self, offset: usize, enc: Encoding) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let before = &self.text[self.line_starts[line]..offset];
        let character = match enc {
            Encoding::Utf8 => before.len(),
            Encoding::Utf16 => before.encode_utf16().count(),
        };
        Position::new(line as u32, character as u32)
    }

    /// The editor's range of bytes `r`.
    pub fn range(&self, r: Bytes<usize>, enc: Encoding) -> Range {
        Range::new(self.position(r.start, enc), self.position(r.end, enc))
    }

    /// The bytes of the editor's range `r`.
    pub fn bytes(&self, r: Range, enc: Encoding) -> Bytes<usize> {
        let start = self.offset(r.start, enc);
        start..self.offset(r.end, enc).max(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_and_utf8_columns_after_non_ascii() {
        // 'é' is 2 bytes / 1 UTF-16 unit; '𝄞' is 4 bytes / 2 units.
        let t = Text::new("// é𝄞 x\n%a = y\n".to_string());
        let x = t.text.find('x').unwrap();
        assert_eq!(t.position(x, Encoding::Utf16), Position::new(0, 7));
        assert_eq!(t.position(x, Encoding::Utf8), Position::new(0, 10));
        assert_eq!(t.offset(Position::new(0, 7), Encoding::Utf16), x);
        assert_eq!(t.offset(Position::new(0, 10), Encoding::Utf8), x);
        // Inside a surrogate pair or a multi-byte char: the char's start.
        assert_eq!(
            t.offset(Position::new(0, 6), Encoding::Utf16),
            t.text.find('𝄞').unwrap() + 4
        );
        assert_eq!(
            t.offset(Position::new(0, 5), Encoding::Utf8),
            t.text.find('𝄞').unwrap()
        );
        assert_eq!(
            t.offset(Position::new(1, 99), Encoding::Utf16),
            t.text.len() - 1
        );
        assert_eq!(
            t.position(t.text.len(), Encoding::Utf16),
            Position::new(2, 0)
        );
    }
}
