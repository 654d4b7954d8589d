//! Diagnostics shared by every kiln pass.
//!
//! A [`Diagnostic`] is plain data (severity, message, byte span, notes) so that it can be
//! the output of a cached query: it is `Eq + Hash + serde`, and it knows nothing about files
//! on disk. Rendering happens at the edge, against the source text it refers to:
//!
//! ```text
//! path/to/file.mlir:12:7: error: expected ',' in operand list
//!    12 |   %0 = tor.addi %a %b
//!       |       ^
//! ```
//!
//! The same data is available as JSON ([`Diagnostic::to_json`]) for tools.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// A half-open byte range `[start, end)` into one source text.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end.max(start) as u32,
        }
    }

    /// An empty span at `offset` (used for "expected X here" errors).
    pub fn point(offset: usize) -> Span {
        Span::new(offset, offset)
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The span shifted by `delta` bytes (used to rebase a function's spans).
    pub fn shifted(self, delta: i64) -> Span {
        let s = (self.start as i64 + delta).max(0) as u32;
        let e = (self.end as i64 + delta).max(0) as u32;
        Span { start: s, end: e }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One message about one place in one source text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// Where in the source the problem is; `None` for whole-input problems.
    pub span: Option<Span>,
    /// Extra lines printed after the source excerpt (`note: ...`).
    pub notes: Vec<String>,
    /// Notes about other places in the same source (e.g. the first of two conflicting
    /// definitions), each rendered with its own source excerpt.
    pub related: Vec<Related>,
}

/// A located note: `path:line:col: note: message` and the source line.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Related {
    pub span: Span,
    pub message: String,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span: Some(span),
            notes: Vec::new(),
            related: Vec::new(),
        }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            message: message.into(),
            span: Some(span),
            notes: Vec::new(),
            related: Vec::new(),
        }
    }

    /// An error that refers to no particular place (e.g. "no functions in input").
    pub fn global_error(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span: None,
            notes: Vec::new(),
            related: Vec::new(),
        }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Add a note about another place of the same source, shown with its source line.
    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.related.push(Related {
            span,
            message: message.into(),
        });
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Shift the span by `delta` bytes (for diagnostics computed on a sub-text).
    pub fn shifted(mut self, delta: i64) -> Diagnostic {
        self.span = self.span.map(|s| s.shifted(delta));
        for r in &mut self.related {
            r.span = r.span.shifted(delta);
        }
        self
    }

    /// Render as `path:line:col: severity: message`, the source line and a caret; then
    /// each located note the same way, then the plain notes.
    pub fn render(&self, path: &str, text: &str) -> String {
        self.render_at(path, &mut Locator::new(text))
    }

    fn render_at(&self, path: &str, at: &mut Locator) -> String {
        let mut out = String::new();
        let Some(span) = self.span else {
            let _ = writeln!(out, "{path}: {}: {}", self.severity.as_str(), self.message);
            self.render_notes(&mut out);
            return out;
        };
        excerpt(
            &mut out,
            at,
            path,
            span,
            self.severity.as_str(),
            &self.message,
        );
        for r in &self.related {
            excerpt(&mut out, at, path, r.span, "note", &r.message);
        }
        self.render_notes(&mut out);
        out
    }

    fn render_notes(&self, out: &mut String) {
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
    }

    /// The diagnostic resolved against `text`, the contents of the file at `path`: its
    /// position and source line are taken now, so the text is no longer needed.
    pub fn locate(&self, path: &str, text: &str) -> Located {
        let index = (self.span.is_some() || !self.related.is_empty()).then(|| LineIndex::new(text));
        let at = |span: Span| {
            let index = index.as_ref()?;
            let pos = index.position(text, span.start as usize);
            Some(Box::new(At {
                line: pos.line,
                col: pos.col,
                byte_col: pos.byte_col,
                len: span.len(),
                line_text: index.line_text(text, pos.line).to_string(),
            }))
        };
        let related = self.related.iter().map(|r| Located {
            path: path.to_string(),
            severity: Severity::Note,
            message: r.message.clone(),
            at: at(r.span),
            notes: Vec::new(),
            related: Vec::new(),
        });
        Located {
            path: path.to_string(),
            severity: self.severity,
            message: self.message.clone(),
            at: self.span.and_then(at),
            notes: self.notes.clone(),
            related: related.collect(),
        }
    }

    /// The machine-readable form: the fields of the rendered text as JSON.
    pub fn to_json(&self, path: &str, text: &str) -> serde_json::Value {
        self.to_json_at(path, &mut Locator::new(text))
    }

    fn to_json_at(&self, path: &str, at: &mut Locator) -> serde_json::Value {
        let located = self.span.map(|span| {
            let (pos, line) = at.locate(span.start as usize);
            (pos, line.trim_end_matches(['\r', '\n']).to_string())
        });
        serde_json::json!({
            "file": path,
            "severity": self.severity.as_str(),
            "message": self.message,
            "line": located.as_ref().map(|(p, _)| p.line),
            "col": located.as_ref().map(|(p, _)| p.col),
            "span": self.span.map(|s| [s.start, s.end]),
            "source_line": located.map(|(_, l)| l),
            "notes": self.notes,
            "related": self.related.iter().map(|r| {
                let (pos, _) = at.locate(r.span.start as usize);
                serde_json::json!({
                    "message": r.message,
                    "line": pos.line,
                    "col": pos.col,
                    "span": [r.span.start, r.span.end],
                })
            }).collect::<Vec<_>>(),
        })
    }
}

/// A diagnostic resolved against the file it is about: everything rendering needs, without
/// the file's text. This is what crosses crate and process boundaries (a daemon's reply, an
/// editor's diagnostics); it is rendered at the edge.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Located {
    /// The file, as the user named it.
    pub path: String,
    pub severity: Severity,
    pub message: String,
    /// Where in the file; `None` for problems with the whole file (it cannot be read, an
    /// option does not apply to it).
    pub at: Option<Box<At>>,
    pub notes: Vec<String>,
    /// Notes about other places in the same file, each shown with its source line
    /// (severity [`Severity::Note`]).
    pub related: Vec<Located>,
}

/// A position in a file, with the line it is on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct At {
    /// 1-based line and column (in characters).
    pub line: usize,
    pub col: usize,
    /// The byte offset of the position within its line.
    pub byte_col: usize,
    /// Bytes the diagnostic covers from there.
    pub len: usize,
    /// The line, with its terminator.
    pub line_text: String,
}

impl Located {
    /// A problem with the whole file at `path`.
    pub fn file(
        path: impl Into<String>,
        severity: Severity,
        message: impl Into<String>,
    ) -> Located {
        Located {
            path: path.into(),
            severity,
            message: message.into(),
            at: None,
            notes: Vec::new(),
            related: Vec::new(),
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The message's stable code, for tools (an editor's diagnostic code); none is
    /// assigned yet.
    pub fn code(&self) -> Option<&str> {
        None
    }

    /// `path:line:col: severity: message`, the source line and a caret (`path: severity:
    /// message` without a position), then the related notes the same way, then the notes.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let (path, severity, message) = (&self.path, self.severity.as_str(), &self.message);
        match &self.at {
            None => {
                let _ = writeln!(out, "{path}: {severity}: {message}");
            }
            Some(at) => {
                let pos = Position {
                    line: at.line,
                    col: at.col,
                    byte_col: at.byte_col,
                };
                write_excerpt(
                    &mut out,
                    path,
                    (pos, &at.line_text),
                    at.len,
                    severity,
                    message,
                );
            }
        }
        for r in &self.related {
            out.push_str(&r.render());
        }
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
        out
    }
}

/// `path:line:col: kind: message`, the source line and a caret under `span`.
fn excerpt(out: &mut String, at: &mut Locator, path: &str, span: Span, kind: &str, message: &str) {
    write_excerpt(
        out,
        path,
        at.locate(span.start as usize),
        span.len(),
        kind,
        message,
    );
}

/// The excerpt of `len` bytes at `pos` on `line_text` (with its terminator): the one
/// rendering of a located message, for [`Diagnostic::render`] and [`Located::render`].
fn write_excerpt(
    out: &mut String,
    path: &str,
    (pos, line_text): (Position, &str),
    len: usize,
    kind: &str,
    message: &str,
) {
    let _ = writeln!(out, "{path}:{}:{}: {kind}: {message}", pos.line, pos.col);
    let gutter = pos.line.to_string();
    let _ = writeln!(
        out,
        " {gutter} | {}",
        line_text.trim_end_matches(['\r', '\n'])
    );
    let caret_col = line_text
        .char_indices()
        .take_while(|(i, _)| *i < pos.byte_col)
        .map(|(_, c)| if c == '\t' { '\t' } else { ' ' })
        .collect::<String>();
    let line_rest = line_text.len().saturating_sub(pos.byte_col);
    let width = len.clamp(1, line_rest.max(1));
    let marks = "^".to_string() + &"~".repeat(width.saturating_sub(1).min(80));
    let _ = writeln!(out, " {} | {caret_col}{marks}", " ".repeat(gutter.len()));
}

/// Finds the line of a byte offset without indexing the whole text: lines are counted from
/// the previous lookup when it lies before (diagnostics mostly come in source order), so
/// locating a batch costs one pass over the text at most, and one lookup allocates nothing.
struct Locator<'a> {
    text: &'a str,
    /// The start of a line already located, and its 0-based number.
    line_start: usize,
    line: usize,
}

impl<'a> Locator<'a> {
    fn new(text: &'a str) -> Locator<'a> {
        Locator {
            text,
            line_start: 0,
            line: 0,
        }
    }

    /// The position of `offset` (clamped to the text) and the text of its line, including
    /// its line terminator.
    fn locate(&mut self, offset: usize) -> (Position, &'a str) {
        let text = self.text;
        let bytes = text.as_bytes();
        let offset = offset.min(text.len());
        if offset < self.line_start {
            (self.line_start, self.line) = (0, 0);
        }
        let gap = &bytes[self.line_start..offset];
        let line = self.line + memchr::memchr_iter(b'\n', gap).count();
        let start =
            memchr::memrchr(b'\n', gap).map_or(self.line_start, |i| self.line_start + i + 1);
        (self.line_start, self.line) = (start, line);
        let end = memchr::memchr(b'\n', &bytes[offset..]).map_or(text.len(), |i| offset + i + 1);
        let mut byte_col = offset - start;
        // Clamp to a char boundary so that a span inside a multi-byte char still renders.
        while !text.is_char_boundary(start + byte_col) {
            byte_col -= 1;
        }
        let col = text[start..start + byte_col].chars().count() + 1;
        let pos = Position {
            line: line + 1,
            col,
            byte_col,
        };
        (pos, &text[start..end])
    }
}

/// A 1-based line and column (in characters), plus the byte offset within the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub col: usize,
    pub byte_col: usize,
}

/// Maps byte offsets to line/column positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { line_starts }
    }

    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = offset.min(text.len());
        let line0 = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line0];
        let mut byte_col = offset - start;
        // Clamp to a char boundary so that a span inside a multi-byte char still renders.
        while !text.is_char_boundary(start + byte_col) {
            byte_col -= 1;
        }
        let col = text[start..start + byte_col].chars().count() + 1;
        Position {
            line: line0 + 1,
            col,
            byte_col,
        }
    }

    /// The text of 1-based line `line`, including its line terminator.
    pub fn line_text<'a>(&self, text: &'a str, line: usize) -> &'a str {
        let start = self.line_starts[line - 1];
        let end = self.line_starts.get(line).copied().unwrap_or(text.len());
        &text[start..end]
    }
}

/// Decode input bytes as UTF-8, or report the first invalid byte as a diagnostic.
///
/// The returned diagnostic's span points into the *valid prefix* rendering: the caller
/// renders it against `String::from_utf8_lossy(bytes)`, whose prefix up to the error is
/// byte-identical to the input.
pub fn decode_utf8(bytes: &[u8]) -> Result<&str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        Diagnostic::error(
            Span::new(at, at + 1),
            format!("invalid UTF-8 byte 0x{:02x} in input", bytes[at]),
        )
    })
}

/// Render a list of diagnostics, one after another.
pub fn render_all(diags: &[Diagnostic], path: &str, text: &str) -> String {
    let mut at = Locator::new(text);
    diags.iter().map(|d| d.render_at(path, &mut at)).collect()
}

/// [`Diagnostic::to_json`] of each diagnostic, in order.
pub fn to_json_all(diags: &[Diagnostic], path: &str, text: &str) -> Vec<serde_json::Value> {
    let mut at = Locator::new(text);
    diags.iter().map(|d| d.to_json_at(path, &mut at)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_line_col_and_caret() {
        let text = "first line\n  second %x here\nthird";
        let at = text.find("%x").unwrap();
        let d = Diagnostic::error(Span::new(at, at + 2), "bad value");
        let r = d.render("f.mlir", text);
        assert_eq!(
            r,
            "f.mlir:2:10: error: bad value\n 2 |   second %x here\n   |          ^~\n"
        );
    }

    #[test]
    fn position_counts_chars_not_bytes() {
        let text = "é = x\n";
        let at = text.find('=').unwrap();
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, at).col, 3);
    }

    #[test]
    fn span_at_eof_renders() {
        let text = "abc";
        let d = Diagnostic::error(Span::point(3), "unexpected end of input");
        assert!(
            d.render("x", text)
                .starts_with("x:1:4: error: unexpected end of input")
        );
    }

    #[test]
    fn batch_rendering_matches_one_by_one_in_any_order() {
        let text = "a\n\n  bé c\r\nlast";
        let spans = [(9, 10), (0, 1), (6, 7), (15, 17), (2, 2), (17, 17), (4, 5)];
        let diags: Vec<Diagnostic> = spans
            .iter()
            .map(|&(s, e)| Diagnostic::warning(Span::new(s, e), "m"))
            .collect();
        let one: String = diags.iter().map(|d| d.render("f", text)).collect();
        assert_eq!(render_all(&diags, "f", text), one);
        let json: Vec<_> = diags.iter().map(|d| d.to_json("f", text)).collect();
        assert_eq!(to_json_all(&diags, "f", text), json);
        let index = LineIndex::new(text);
        for (d, j) in diags.iter().zip(&json) {
            let pos = index.position(text, d.span.unwrap().start as usize);
            assert_eq!(
                (j["line"].as_u64(), j["col"].as_u64()),
                (Some(pos.line as u64), Some(pos.col as u64))
            );
            let line = index
                .line_text(text, pos.line)
                .trim_end_matches(['\r', '\n']);
            assert_eq!(j["source_line"], line);
        }
    }

    #[test]
    fn json_has_line_and_col() {
        let text = "a\nbc";
        let d = Diagnostic::error(Span::new(3, 4), "m");
        let j = d.to_json("p", text);
        assert_eq!(j["line"], 2);
        assert_eq!(j["col"], 2);
        assert_eq!(j["source_line"], "bc");
    }

    #[test]
    fn bad_utf8_is_located() {
        let bytes = b"ok\n\xffbad";
        let e = decode_utf8(bytes).unwrap_err();
        assert_eq!(e.span, Some(Span::new(3, 4)));
        let lossy = String::from_utf8_lossy(bytes);
        assert!(
            e.render("b", &lossy)
                .starts_with("b:2:1: error: invalid UTF-8")
        );
    }
}
