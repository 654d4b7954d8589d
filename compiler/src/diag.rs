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
//! Every diagnostic that reaches a user carries a stable [`Code`] ([`codes`]: one table,
//! with an explanation per code). Resolved against its file it is a [`Located`], which is
//! also available as one JSON object ([`Located::to_json`], the schema of
//! `--message-format json`) and renders for terminals with colour and long lines cut
//! around the span ([`render`]).

pub mod codes;
pub mod lint;
pub mod render;

pub use codes::Code;
use serde::{Deserialize, Serialize};

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
    pub(crate) fn to(self, other: Span) -> Span {
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
    /// The stable code of this kind of problem; `None` until the flow that reports it
    /// gives its family code ([`Diagnostic::or_code`]).
    pub code: Option<Code>,
    pub message: String,
    /// Where in the source the problem is; `None` for whole-input problems.
    pub span: Option<Span>,
    /// Extra lines printed after the source excerpt (`note: ...`).
    pub notes: Vec<String>,
    /// Notes about other places in the same source (e.g. the first of two conflicting
    /// definitions), each rendered with its own source excerpt.
    pub related: Vec<Related>,
}

/// A token (a run of characters without white space) of more characters than this is
/// shortened in a message.
const MAX_TOKEN: usize = 200;
/// What a shortened token keeps: its first and last characters.
const TOKEN_HEAD: usize = 120;
const TOKEN_TAIL: usize = 40;
/// A message of more bytes than this (its tokens shortened) is cut.
const MAX_MESSAGE: usize = 4096;
/// What a cut message ends with, then its length.
const ELLIPSIS: &str = "…";

/// `message` as every diagnostic carries it: a name taken from the input can be of any
/// length, and a message repeats it on one line (a terminal's, an editor's), so a token
/// longer than [`MAX_TOKEN`] characters is shortened to its first and last characters
/// around an ellipsis, followed by its length (`'aaa…aaa' (10000000 bytes)`), and a message
/// still longer than [`MAX_MESSAGE`] bytes is cut with an ellipsis and its length, as
/// source excerpts are cut ([`render`]). Shortening a shortened message changes nothing.
pub fn shorten(message: String) -> String {
    if message.len() <= MAX_TOKEN {
        return message;
    }
    let mut out = String::with_capacity(message.len().min(MAX_MESSAGE + 64));
    let mut rest = message.as_str();
    while !rest.is_empty() && out.len() <= MAX_MESSAGE {
        let blank = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        out.push_str(&rest[..blank]);
        let end = rest[blank..]
            .find(char::is_whitespace)
            .map_or(rest.len(), |e| blank + e);
        shorten_token(&rest[blank..end], &mut out);
        rest = &rest[end..];
    }
    if out.len() <= MAX_MESSAGE && rest.is_empty() {
        return out;
    }
    let suffix = format!("{ELLIPSIS} ({} bytes in all)", message.len());
    let mut keep = MAX_MESSAGE.min(out.len()) - suffix.len();
    while !out.is_char_boundary(keep) {
        keep -= 1;
    }
    out.truncate(keep);
    out.push_str(&suffix);
    out
}

/// `token` appended to `out`, shortened if longer than [`MAX_TOKEN`] characters: the
/// characters around the name (quotes, brackets, punctuation) are kept, and its length in
/// bytes follows its closing quote.
fn shorten_token(token: &str, out: &mut String) {
    if token.len() <= MAX_TOKEN || token.chars().count() <= MAX_TOKEN {
        out.push_str(token);
        return;
    }
    let around = |c: char| "'\"`()[]{}<>,.:;".contains(c);
    let core = token.trim_matches(around);
    let lead = token.len() - token.trim_start_matches(around).len();
    let (lead, core, trail) = match (lead, token.len() - lead - core.len()) {
        (l, t) if l <= 4 && t <= 4 => (&token[..l], core, &token[l + core.len()..]),
        // Not quotes around a name: the token is cut as it is.
        _ => ("", token, ""),
    };
    let closers = trail.len() - trail.trim_start_matches(|c| "'\"`)]}>".contains(c)).len();
    let head: String = core.chars().take(TOKEN_HEAD).collect();
    let tail_from = core
        .char_indices()
        .rev()
        .nth(TOKEN_TAIL - 1)
        .map_or(0, |(i, _)| i);
    out.push_str(lead);
    out.push_str(&head);
    out.push_str(ELLIPSIS);
    out.push_str(&core[tail_from..]);
    out.push_str(&trail[..closers]);
    out.push_str(&format!(" ({} bytes)", core.len()));
    out.push_str(&trail[closers..]);
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
            code: None,
            message: shorten(message.into()),
            span: Some(span),
            notes: Vec::new(),
            related: Vec::new(),
        }
    }

    pub(crate) fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            code: None,
            message: shorten(message.into()),
            span: Some(span),
            notes: Vec::new(),
            related: Vec::new(),
        }
    }

    /// An error that refers to no particular place (e.g. "no functions in input").
    pub fn global_error(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code: None,
            message: shorten(message.into()),
            span: None,
            notes: Vec::new(),
            related: Vec::new(),
        }
    }

    /// The diagnostic with code `code`.
    pub fn with_code(mut self, code: Code) -> Diagnostic {
        self.code = Some(code);
        self
    }

    /// The diagnostic with code `code` unless it has one already (a family's default).
    pub fn or_code(mut self, code: Code) -> Diagnostic {
        self.code.get_or_insert(code);
        self
    }

    pub(crate) fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(shorten(note.into()));
        self
    }

    /// Add a note about another place of the same source, shown with its source line.
    pub(crate) fn with_related(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.related.push(Related {
            span,
            message: shorten(message.into()),
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
    /// each located note the same way, then the plain notes ([`Located::render`]).
    pub fn render(&self, path: &str, text: &str) -> String {
        self.locate(path, text).render()
    }

    /// The diagnostic resolved against `text`, the contents of the file at `path`: its
    /// position and source line are taken now, so the text is no longer needed.
    pub fn locate(&self, path: &str, text: &str) -> Located {
        let index = (self.span.is_some() || !self.related.is_empty()).then(|| LineIndex::new(text));
        self.locate_in(path, text, index.as_ref())
    }

    fn locate_in(&self, path: &str, text: &str, index: Option<&LineIndex>) -> Located {
        let at = |span: Span| Some(Box::new(At::of(index?, text, span)));
        // Messages are shortened again here: a flow may have changed one after it was made.
        let related = self.related.iter().map(|r| Located {
            path: path.to_string(),
            severity: Severity::Note,
            code: None,
            message: shorten(r.message.clone()),
            at: at(r.span),
            notes: Vec::new(),
            related: Vec::new(),
        });
        Located {
            path: path.to_string(),
            severity: self.severity,
            code: self.code,
            message: shorten(self.message.clone()),
            at: self.span.and_then(at),
            notes: self.notes.iter().cloned().map(shorten).collect(),
            related: related.collect(),
        }
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
    /// The stable code of this kind of problem (see [`codes`]).
    pub code: Option<Code>,
    pub message: String,
    /// Where in the file; `None` for problems with the whole file (it cannot be read, an
    /// option does not apply to it).
    pub at: Option<Box<At>>,
    pub notes: Vec<String>,
    /// Notes about other places in the same file, each shown with its source line
    /// (severity [`Severity::Note`]).
    pub related: Vec<Located>,
}

/// A position in a file, with the line it is on, and where the span ends.
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
    /// The 1-based line and column (in characters) just after the span; the start for an
    /// empty span.
    pub end_line: usize,
    pub end_col: usize,
}

impl At {
    /// The position of `span` in `text`.
    fn of(index: &LineIndex, text: &str, span: Span) -> At {
        let pos = index.position(text, span.start as usize);
        let end = index.position(text, span.end as usize);
        At {
            line: pos.line,
            col: pos.col,
            byte_col: pos.byte_col,
            len: span.len(),
            line_text: index.line_text(text, pos.line).to_string(),
            end_line: end.line,
            end_col: end.col,
        }
    }
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
            code: None,
            message: shorten(message.into()),
            at: None,
            notes: Vec::new(),
            related: Vec::new(),
        }
    }

    /// The message with code `code`.
    pub fn with_code(mut self, code: Code) -> Located {
        self.code = Some(code);
        self
    }

    /// The message with code `code` unless it has one already (a family's default).
    pub fn or_code(mut self, code: Code) -> Located {
        self.code.get_or_insert(code);
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `path:line:col: severity: message`, the source line and a caret (`path: severity:
    /// message` without a position), then the related notes the same way, then the notes.
    /// The plain form, without code or colour, which build-system logs keep; terminals get
    /// [`render::Style`].
    pub fn render(&self) -> String {
        render::Style::PLAIN.render(self)
    }

    /// The machine-readable form, one JSON object (the schema of `--message-format json`):
    ///
    /// `{"file", "line", "col", "end": {"line", "col"}, "severity", "code", "message",
    /// "notes": [..], "related": [{"file", "line", "col", "end", "message"}]}`
    ///
    /// Lines and columns are 1-based, columns in characters; `end` is just after the span.
    /// A message about the whole file is at line 1, column 1. `code` is `null` for a
    /// message no flow has coded (none should reach a user).
    pub fn to_json(&self) -> serde_json::Value {
        let (line, col, end_line, end_col) = match &self.at {
            Some(a) => (a.line, a.col, a.end_line, a.end_col),
            None => (1, 1, 1, 1),
        };
        let mut v = serde_json::json!({
            "file": self.path,
            "line": line,
            "col": col,
            "end": {"line": end_line, "col": end_col},
            "severity": self.severity.as_str(),
            "code": self.code.map(Code::as_str),
            "message": self.message,
            "notes": self.notes,
        });
        if !self.related.is_empty() {
            let related: Vec<serde_json::Value> = self
                .related
                .iter()
                .map(|r| {
                    let mut j = r.to_json();
                    if let Some(o) = j.as_object_mut() {
                        o.retain(|k, _| {
                            matches!(k.as_str(), "file" | "line" | "col" | "end" | "message")
                        });
                    }
                    j
                })
                .collect();
            v["related"] = related.into();
        }
        v
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
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
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
/// byte-identical to the input. A binary file (a NUL byte among its first 8,000 bytes, as
/// git decides) is one error about the whole file, so that none of it is ever shown.
pub fn decode_utf8(bytes: &[u8]) -> Result<&str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let head = &bytes[..bytes.len().min(8000)];
        let d = match memchr::memchr(0, head) {
            Some(nul) => Diagnostic::global_error(format!(
                "binary file, not text (NUL byte at offset {nul}, invalid UTF-8 at offset {at})"
            )),
            None => Diagnostic::error(
                Span::new(at, at + 1),
                format!("invalid UTF-8 byte 0x{:02x} in input", bytes[at]),
            ),
        };
        d.with_code(Code::InvalidUtf8)
    })
}

/// Each diagnostic resolved against `text` ([`Diagnostic::locate`]), with one line index.
pub fn locate_all(diags: &[Diagnostic], path: &str, text: &str) -> Vec<Located> {
    let index = (!diags.is_empty()).then(|| LineIndex::new(text));
    diags
        .iter()
        .map(|d| d.locate_in(path, text, index.as_ref()))
        .collect()
}

/// Render a list of diagnostics, one after another (the plain form).
pub fn render_all(diags: &[Diagnostic], path: &str, text: &str) -> String {
    locate_all(diags, path, text)
        .iter()
        .map(Located::render)
        .collect()
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
    fn batch_locating_matches_one_by_one_in_any_order() {
        let text = "a\n\n  bé c\r\nlast";
        let spans = [(9, 10), (0, 1), (6, 7), (15, 17), (2, 2), (17, 17), (4, 5)];
        let diags: Vec<Diagnostic> = spans
            .iter()
            .map(|&(s, e)| Diagnostic::warning(Span::new(s, e), "m"))
            .collect();
        let one: String = diags.iter().map(|d| d.render("f", text)).collect();
        assert_eq!(render_all(&diags, "f", text), one);
        let located = locate_all(&diags, "f", text);
        let index = LineIndex::new(text);
        for (d, l) in diags.iter().zip(&located) {
            assert_eq!(*l, d.locate("f", text));
            let span = d.span.unwrap();
            let (pos, end) = (
                index.position(text, span.start as usize),
                index.position(text, span.end as usize),
            );
            let j = l.to_json();
            assert_eq!(
                (j["line"].as_u64(), j["col"].as_u64()),
                (Some(pos.line as u64), Some(pos.col as u64))
            );
            assert_eq!(
                (j["end"]["line"].as_u64(), j["end"]["col"].as_u64()),
                (Some(end.line as u64), Some(end.col as u64))
            );
        }
    }

    #[test]
    fn long_tokens_and_messages_are_shortened() {
        let name = "a".repeat(10_000_000);
        let m = shorten(format!("unknown operation '{name}'; see `{name}`: here"));
        assert!(m.len() < 500, "{} bytes", m.len());
        assert!(
            m.starts_with(&format!("unknown operation '{}…", "a".repeat(120))),
            "{m}"
        );
        assert!(
            m.contains(&format!("…{}' (10000000 bytes); see `", "a".repeat(40))),
            "{m}"
        );
        assert!(m.ends_with("` (10000000 bytes): here"), "{m}");
        assert_eq!(shorten(m.clone()), m);
        // Short tokens in a long message: the message is cut, with its length.
        let words = "word ".repeat(10_000);
        let m = shorten(words.clone());
        assert!(m.len() <= MAX_MESSAGE, "{}", m.len());
        assert!(
            m.ends_with(&format!("… ({} bytes in all)", words.len())),
            "{m}"
        );
        assert_eq!(shorten(m.clone()), m);
        // Multi-byte characters are cut on their boundaries.
        let wide = format!("x `{}` y", "é".repeat(5000));
        let m = shorten(wide);
        assert!(m.contains("é… (") || m.contains("…é"), "{m}");
        assert_eq!(shorten(m.clone()), m);
        let ok = "a message of normal length, with `names` in it".to_string();
        assert_eq!(shorten(ok.clone()), ok);
        // Every way a message reaches a user shortens it.
        let d = Diagnostic::error(Span::new(0, 1), format!("bad `{name}`"))
            .with_note(format!("note `{name}`"));
        let l = d.locate("f", "x\n");
        assert!(l.message.len() < 300 && l.notes[0].len() < 300, "{l:?}");
        assert!(l.to_json().to_string().len() < 1000);
        let f = Located::file("f", Severity::Error, format!("file `{name}`"));
        assert!(f.render().len() < 300);
    }

    #[test]
    fn json_has_the_documented_fields() {
        let text = "a\nbc\nd";
        let d = Diagnostic::error(Span::new(3, 6), "m")
            .with_code(Code::Syntax)
            .with_note("n")
            .with_related(Span::new(0, 1), "first here");
        let j = d.locate("p", text).to_json();
        let expected = serde_json::json!({
            "file": "p", "line": 2, "col": 2, "end": {"line": 3, "col": 2},
            "severity": "error", "code": "E0101", "message": "m", "notes": ["n"],
            "related": [{"file": "p", "line": 1, "col": 1, "end": {"line": 1, "col": 2},
                         "message": "first here"}],
        });
        assert_eq!(j, expected);
        let whole = Located::file("q", Severity::Warning, "w").to_json();
        assert_eq!(
            (whole["line"].as_u64(), whole["col"].as_u64()),
            (Some(1), Some(1))
        );
        assert!(whole["code"].is_null() && whole.get("related").is_none());
    }

    #[test]
    fn binary_input_is_one_message_about_the_file() {
        let bytes = b"\x7fELF\x02\x01\x01\0\0\0\0\xff\xfe";
        let e = decode_utf8(bytes).unwrap_err();
        assert_eq!((e.span, e.code), (None, Some(Code::InvalidUtf8)));
        assert!(e.message.starts_with("binary file"), "{}", e.message);
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
