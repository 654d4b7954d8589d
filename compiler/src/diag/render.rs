//! Rendering a [`Located`] as text: `path:line:col: severity: message`, the source line
//! with a gutter, and a caret under the span; then the related notes the same way, then the
//! plain notes.
//!
//! One renderer, two uses: [`Style::PLAIN`] is the form build-system logs and tests keep
//! (no code, no colour, whole lines); a terminal gets the code after the message
//! (`[E0101]`, as compilers append their flags), ANSI colour, and lines longer than the
//! terminal cut around the span (the plain form cuts only lines of more than 4,096
//! characters). Control characters of the source line are always shown as
//! U+FFFD, so that no input can send escape sequences to a terminal.

use super::{At, Located, Severity};
use std::fmt::Write as _;

/// How to render diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// ANSI colours (a terminal that has not asked for none).
    pub color: bool,
    /// Append the code to the first line (` [E0101]`).
    pub codes: bool,
    /// Show at most this many characters of a source line, around the span.
    pub width: Option<usize>,
}

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const GUTTER: &str = "\x1b[1;34m";
/// The longest source line the plain form shows whole; a longer one (a generated netlist's,
/// a hostile input's) is cut around the span, as a terminal's lines are.
const LONGEST_LINE: usize = 4096;
/// What a cut line shows in place of the characters left out.
const CUT: &str = "...";

impl Style {
    /// The plain form (see the module documentation).
    pub const PLAIN: Style = Style {
        color: false,
        codes: false,
        width: None,
    };

    /// `m` rendered in this style, ending with a newline.
    pub fn render(&self, m: &Located) -> String {
        let mut out = String::new();
        self.write(&mut out, m);
        out
    }

    fn write(&self, out: &mut String, m: &Located) {
        let severity = m.severity.as_str();
        let (path, message) = (&m.path, &m.message);
        let place = match &m.at {
            Some(at) => format!("{path}:{}:{}:", at.line, at.col),
            None => format!("{path}:"),
        };
        let code = match m.code.filter(|_| self.codes) {
            Some(c) => format!(" [{c}]"),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "{} {}{}",
            self.paint(BOLD, &place),
            self.paint(colour(m.severity), severity),
            self.paint(BOLD, &format!(": {message}{code}"))
        );
        if let Some(at) = &m.at {
            self.excerpt(out, at, m.severity);
        }
        for r in &m.related {
            self.write(out, r);
        }
        for note in &m.notes {
            let _ = writeln!(
                out,
                "{}: {note}",
                self.paint(colour(Severity::Note), "note")
            );
        }
    }

    /// ` N | line` and `   | ^~~` under the span.
    fn excerpt(&self, out: &mut String, at: &At, severity: Severity) {
        let line: Vec<char> = at
            .line_text
            .trim_end_matches(['\r', '\n'])
            .chars()
            .map(|c| {
                if c.is_control() && c != '\t' {
                    '\u{fffd}'
                } else {
                    c
                }
            })
            .collect();
        let caret = at.line_text[..at.byte_col.min(at.line_text.len())]
            .chars()
            .count()
            .min(line.len());
        let line_rest = at.line_text.len().saturating_sub(at.byte_col);
        let marks = at.len.clamp(1, line_rest.max(1)).min(81);
        let (start, end) = self.window(line.len(), caret);
        let mut shown = String::new();
        let mut under = String::new();
        if start > 0 {
            shown.push_str(CUT);
            under.push_str(&" ".repeat(CUT.len()));
        }
        shown.extend(&line[start..end]);
        under.extend(
            line[start..caret]
                .iter()
                .map(|&c| if c == '\t' { '\t' } else { ' ' }),
        );
        if end < line.len() {
            shown.push_str(CUT);
        }
        let marks = match self.width.is_some() || line.len() > LONGEST_LINE {
            true => marks.min((end + 1).saturating_sub(caret).max(1)),
            false => marks,
        };
        let gutter = at.line.to_string();
        let bar = self.paint(GUTTER, "|");
        let _ = writeln!(out, " {} {bar} {shown}", self.paint(GUTTER, &gutter));
        let carets = "^".to_string() + &"~".repeat(marks - 1);
        let _ = writeln!(
            out,
            " {} {bar} {under}{}",
            " ".repeat(gutter.len()),
            self.paint(colour(severity), &carets)
        );
    }

    /// The characters `[start, end)` of a line of `len` shown with the caret at `caret`.
    fn window(&self, len: usize, caret: usize) -> (usize, usize) {
        match self.width.unwrap_or(LONGEST_LINE) {
            w if len > w => {
                let start = caret.saturating_sub(w / 3).min(len - w);
                (start, start + w)
            }
            _ => (0, len),
        }
    }

    fn paint(&self, colour: &str, text: &str) -> String {
        match self.color {
            true => format!("{colour}{text}{RESET}"),
            false => text.to_string(),
        }
    }
}

fn colour(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "\x1b[1;31m",
        Severity::Warning => "\x1b[1;33m",
        Severity::Note => "\x1b[1;36m",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Code, Diagnostic, Span};

    fn human(width: usize) -> Style {
        Style {
            color: false,
            codes: true,
            width: Some(width),
        }
    }

    #[test]
    fn plain_form_is_unchanged_and_human_adds_the_code() {
        let text = "first line\n  second %x here\nthird";
        let at = text.find("%x").unwrap();
        let d = Diagnostic::error(Span::new(at, at + 2), "bad value").with_code(Code::Syntax);
        let l = d.locate("f.mlir", text);
        assert_eq!(
            l.render(),
            "f.mlir:2:10: error: bad value\n 2 |   second %x here\n   |          ^~\n"
        );
        assert_eq!(
            human(100).render(&l),
            "f.mlir:2:10: error: bad value [E0101]\n 2 |   second %x here\n   |          ^~\n"
        );
    }

    #[test]
    fn long_lines_are_cut_around_the_span() {
        let text = format!("{}BAD{}\n", "a".repeat(2000), "b".repeat(2000));
        let d = Diagnostic::error(Span::new(2000, 2003), "here");
        let r = human(60).render(&d.locate("f", &text));
        let lines: Vec<&str> = r.lines().collect();
        assert!(lines[1].len() < 80, "{}", lines[1]);
        assert!(
            lines[1].contains("...a") && lines[1].contains("BADb") && lines[1].ends_with("...")
        );
        let caret = lines[2].find('^').unwrap();
        assert_eq!(&lines[1][caret..caret + 3], "BAD", "{r}");
        assert!(lines[2].ends_with("^~~"), "{r}");
    }

    #[test]
    fn the_plain_form_cuts_only_very_long_lines() {
        let text = format!("{}BAD{}\n", "a".repeat(10_000_000), "b".repeat(10));
        let d = Diagnostic::error(Span::new(10_000_000, 10_000_003), "here");
        let r = Style::PLAIN.render(&d.locate("f", &text));
        let lines: Vec<&str> = r.lines().collect();
        assert!(
            lines[1].len() < 5000 && lines[1].contains("aBADb"),
            "{}",
            lines[1].len()
        );
        let caret = lines[2].find('^').unwrap();
        assert_eq!(&lines[1][caret..caret + 3], "BAD");
        let short = format!("{}x\n", "a".repeat(4000));
        let d = Diagnostic::error(Span::new(4000, 4001), "here");
        assert!(Style::PLAIN.render(&d.locate("f", &short)).contains(&short));
    }

    #[test]
    fn control_characters_never_reach_the_terminal() {
        let text = "ok \x1b[31mred\x07 x\n";
        let x = text.find(" x").unwrap() + 1;
        let d = Diagnostic::error(Span::new(x, x + 1), "m");
        let r = Style::PLAIN.render(&d.locate("f", text));
        assert!(!r.contains('\x1b') && !r.contains('\x07'), "{r:?}");
        let caret = r.lines().nth(2).unwrap().find('^').unwrap();
        assert_eq!(r.lines().nth(1).unwrap().chars().nth(caret), Some('x'));
    }

    #[test]
    fn colour_wraps_severity_and_gutter() {
        let d = Diagnostic::warning(Span::new(0, 1), "w");
        let style = Style {
            color: true,
            ..Style::PLAIN
        };
        let r = style.render(&d.locate("f", "x\n"));
        assert!(r.contains("\x1b[1;33mwarning\x1b[0m"), "{r:?}");
        assert!(r.contains("\x1b[1;34m1\x1b[0m"), "{r:?}");
    }
}
