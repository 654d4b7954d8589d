//! The flows as whole functions: one input's text in, its output files' bytes and its
//! diagnostics out. This is the front door of the crate for anything that builds files.
//!
//! - [`aps`]: scheduled TOR/APS MLIR → CMT2 MLIR and rules JSON (and SystemVerilog);
//! - [`handshake`]: a Dynamatic `handshake.func` → Synth MLIR, AIGER, flat and
//!   hierarchical BLIF, from a per-unit BLIF library the caller reads;
//! - [`blif`]: BLIF → AIGER (binary and ASCII).
//!
//! Each flow is assembled from the same per-function, per-block and per-model steps that a
//! build daemon runs as separate cached queries (the steps are public in each flow's
//! module), so that a whole-file build and an incremental one cannot drift apart: the
//! daemon composes the steps with memoization in between, [`aps::build`] and the others
//! compose them directly. Which flow an input belongs to is decided here only
//! ([`Flow::detect`]).
//!
//! Architecture invariant: like the rest of the crate, flows do no IO. Where a flow needs
//! other files (a Handshake design's library units) the caller hands in their texts.

pub mod aps;
pub mod blif;
pub mod handshake;

use crate::diag::{Code, Diagnostic, Located, Severity};
use std::borrow::Cow;

/// The flow an input goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flow {
    /// A module with a `tor.design`.
    Aps,
    /// A module with a `handshake.func` (and no `tor.design`).
    Handshake,
    /// A BLIF netlist (by its `.blif` name).
    Blif,
    /// MLIR that no flow accepts, or a text that is neither MLIR nor BLIF.
    Unknown,
}

impl Flow {
    /// The flow of the file named `name` with contents `text`: `.blif` files, and texts
    /// that look like BLIF whatever their name ([`Looks::of`]), are BLIF; a text that looks
    /// like neither MLIR nor BLIF (Verilog, say) is no flow's; other (MLIR) texts are APS
    /// when they mention `tor.design`, else Handshake when they mention `handshake.func`.
    ///
    /// The test is lexical, so it is cheap: for an APS design the search stops at the
    /// design's header, near the top of the file, however large the file is.
    pub fn detect(name: &std::path::Path, text: &str) -> Flow {
        if is_blif(name) {
            return Flow::Blif;
        }
        match Looks::of(text).0 {
            Looks::Blif => return Flow::Blif,
            Looks::Verilog | Looks::Other => return Flow::Unknown,
            Looks::Mlir => {}
        }
        if text.contains("tor.design") {
            Flow::Aps
        } else if text.contains("handshake.func") {
            Flow::Handshake
        } else {
            Flow::Unknown
        }
    }

    /// The family code of this flow's diagnostics of `severity` that were given no code
    /// of their own where they were made ([`crate::diag::codes`]).
    pub fn code(self, severity: Severity) -> Code {
        let warning = severity != Severity::Error;
        match (self, warning) {
            (Flow::Aps, false) => Code::Aps,
            (Flow::Aps, true) => Code::ApsWarning,
            (Flow::Blif, false) => Code::Blif,
            (Flow::Blif, true) => Code::BlifWarning,
            (Flow::Handshake, false) => Code::Handshake,
            (Flow::Handshake, true) => Code::HandshakeWarning,
            (Flow::Unknown, _) => Code::NoFlow,
        }
    }

    /// `d` with this flow's family code unless it has a code.
    pub fn coded(self, d: Diagnostic) -> Diagnostic {
        let code = self.code(d.severity);
        d.or_code(code)
    }

    /// `m` with this flow's family code unless it has a code.
    pub fn coded_located(self, m: Located) -> Located {
        let code = self.code(m.severity);
        m.or_code(code)
    }

    /// The outputs a build of this flow writes when none are asked for.
    pub fn default_kinds(self) -> &'static [OutputKind] {
        match self {
            Flow::Aps | Flow::Unknown => &[OutputKind::Cmt2, OutputKind::RulesJson],
            Flow::Handshake => &[
                OutputKind::SynthMlir,
                OutputKind::Aig,
                OutputKind::FlatBlif,
                OutputKind::HierBlif,
            ],
            Flow::Blif => &[OutputKind::Aig],
        }
    }
}

/// Whether the file named `name` with contents `text` is a BLIF netlist
/// ([`Flow::detect`]'s first question, answered from the name and the first token only).
pub fn reads_as_blif(name: &std::path::Path, text: &str) -> bool {
    is_blif(name) || Looks::of(text).0 == Looks::Blif
}

/// Whether a path names a BLIF input.
pub fn is_blif(p: &std::path::Path) -> bool {
    p.extension().is_some_and(|x| x == "blif")
}

/// Whether a path names an MLIR input (by its name; [`Flow::detect`] reads the text).
pub fn is_mlir(p: &std::path::Path) -> bool {
    p.extension().is_some_and(|x| x == "mlir")
}

/// What a text looks like, by its first token (blank lines and comments skipped), so
/// that a file is read by the right reader whatever its name, and one that no reader
/// takes is told so instead of getting another language's syntax error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Looks {
    /// An op (`module`, `func.func`, `"dialect.op"`, `%r = ...`), an alias (`#map =`,
    /// `!t =`) or file metadata (`{-#`); also an empty text.
    Mlir,
    /// A BLIF directive (`.model`, `.inputs`, `.names`, ...).
    Blif,
    /// A Verilog or SystemVerilog module, package, interface or compiler directive.
    Verilog,
    /// Anything else.
    Other,
}

impl Looks {
    /// What `text` looks like, and the byte range of the token that decided it.
    pub fn of(text: &str) -> (Looks, std::ops::Range<usize>) {
        let mut rest = text.trim_start_matches('\u{feff}');
        loop {
            let at = text.len() - rest.len();
            let t = rest.trim_start();
            let at = at + (rest.len() - t.len());
            if t.is_empty() {
                return (Looks::Mlir, at..at);
            }
            if t.starts_with("//") || (t.starts_with('#') && !mlir_alias(t)) {
                // MLIR and Verilog line comments; BLIF's `#` comments.
                rest = t.split_once('\n').map_or("", |(_, r)| r);
                continue;
            }
            if let Some(body) = t.strip_prefix("/*") {
                rest = body.split_once("*/").map_or("", |(_, r)| r);
                continue;
            }
            let word_len = t
                .find(|c: char| !(c.is_alphanumeric() || "_.$`'".contains(c)))
                .unwrap_or(t.len());
            let word = &t[..word_len.max(t.chars().next().map_or(0, char::len_utf8))];
            return (Looks::of_token(word, &t[word.len()..]), at..at + word.len());
        }
    }

    fn of_token(word: &str, after: &str) -> Looks {
        const VERILOG: [&str; 8] = [
            "macromodule",
            "endmodule",
            "interface",
            "package",
            "program",
            "primitive",
            "config",
            "timeunit",
        ];
        let first = word.chars().next().unwrap_or(' ');
        match first {
            '.' if word.len() > 1 => Looks::Blif,
            '`' => Looks::Verilog,
            '%' | '"' | '#' | '!' | '{' | '^' => Looks::Mlir,
            _ if word == "module" => {
                // MLIR: `module {`, `module @name`, `module attributes {`; Verilog:
                // `module name (`, `module name;`, `module name #(`.
                let next = after.trim_start();
                let ident = next
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '\\');
                if ident && !next.starts_with("attributes") {
                    Looks::Verilog
                } else {
                    Looks::Mlir
                }
            }
            _ if VERILOG.contains(&word) || after.starts_with('*') && word == "(" => Looks::Verilog,
            _ if first.is_alphabetic() && word.contains('.') => Looks::Mlir,
            _ => Looks::Other,
        }
    }
}

/// Whether a line starting with `#` is an MLIR attribute alias (`#map = ...`) rather than
/// a BLIF comment.
fn mlir_alias(line: &str) -> bool {
    let name = line[1..].trim_start_matches(|c: char| c.is_alphanumeric() || "_.$".contains(c));
    name.len() < line.len() - 1 && name.trim_start().starts_with('=')
}

/// The error of an input no flow accepts: for a text that looks like neither MLIR nor
/// BLIF, what it looks like; for MLIR, its parse error, else what it holds instead of a
/// design.
pub fn unknown(text: &str) -> Diagnostic {
    const READS: &str = "kiln reads MLIR (a module with `tor.design` or a `handshake.func`) \
                         and BLIF";
    let (looks, token) = Looks::of(text);
    let span = crate::diag::Span::new(token.start, token.end);
    // The decisive token's line, cut to a few words.
    let line = text[token.start..].lines().next().unwrap_or("").trim_end();
    let found = match line.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    };
    match looks {
        Looks::Verilog => {
            return Diagnostic::error(
                span,
                format!(
                    "no flow accepts this input: it looks like Verilog or SystemVerilog \
                     (`{found}`), which kiln does not read"
                ),
            )
            .with_note(READS)
            .with_code(Code::NoFlow);
        }
        Looks::Other => {
            return Diagnostic::error(
                span,
                format!("no flow accepts this input: it is neither MLIR nor BLIF (`{found}`)"),
            )
            .with_note(READS)
            .with_code(Code::NoFlow);
        }
        Looks::Blif | Looks::Mlir => {}
    }
    match crate::mlir::parse(text) {
        Err(d) => d,
        Ok(module) => {
            let mut ops: Vec<&str> = Vec::new();
            let nested = module
                .ops
                .iter()
                .flat_map(|op| std::iter::once(op).chain(body(op)));
            for op in nested {
                let name = op.name.as_str();
                if name != "builtin.module" && !ops.contains(&name) && ops.len() < 6 {
                    ops.push(name);
                }
            }
            let held = match ops.as_slice() {
                [] => "it holds no operation".to_string(),
                names => format!("it holds {}", names.join(", ")),
            };
            Diagnostic::global_error(format!(
                "no flow accepts this input (expected a module with `tor.design` or a \
                 `handshake.func`; {held})"
            ))
            .with_code(Code::NoFlow)
        }
    }
}

/// The operations directly inside `op`'s regions.
fn body(op: &crate::mlir::ast::Operation) -> impl Iterator<Item = &crate::mlir::ast::Operation> {
    op.regions
        .iter()
        .flat_map(|r| r.blocks.iter().flat_map(|b| b.ops.iter()))
}

/// Kinds of output files, named `<stem>.<suffix>` beside each other.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum OutputKind {
    /// CMT2 MLIR of an APS file's merged circuit (`<stem>.cmt2.mlir`).
    Cmt2,
    /// The rule IR as JSON (`<stem>.rules.json`).
    RulesJson,
    /// Binary AIGER: a BLIF file's top model, or a Handshake design (`<stem>.aig`).
    Aig,
    /// ASCII AIGER of a BLIF file's top model (`<stem>.aag`).
    Aag,
    /// SystemVerilog of an APS file's merged circuit (`<stem>.sv`), only when asked for.
    Sv,
    /// Synth MLIR of a Handshake design (`<stem>.synth.mlir`).
    SynthMlir,
    /// Flat BLIF of a Handshake design (`<stem>.blif`).
    FlatBlif,
    /// Hierarchical BLIF of a Handshake design: top + each used unit once (`<stem>.hier.blif`).
    HierBlif,
}

impl OutputKind {
    pub const ALL: &[OutputKind] = &[
        OutputKind::Cmt2,
        OutputKind::RulesJson,
        OutputKind::Aig,
        OutputKind::Aag,
        OutputKind::Sv,
        OutputKind::SynthMlir,
        OutputKind::FlatBlif,
        OutputKind::HierBlif,
    ];

    /// The kind's name in requests (`--emit`, `--kind`).
    pub fn name(self) -> &'static str {
        match self {
            OutputKind::Cmt2 => "cmt2",
            OutputKind::RulesJson => "rules-json",
            OutputKind::Aig => "aig",
            OutputKind::Aag => "aag",
            OutputKind::Sv => "sv",
            OutputKind::SynthMlir => "synth-mlir",
            OutputKind::FlatBlif => "blif",
            OutputKind::HierBlif => "hier-blif",
        }
    }

    /// What follows `<stem>.` in the file name.
    pub fn suffix(self) -> &'static str {
        match self {
            OutputKind::Cmt2 => "cmt2.mlir",
            OutputKind::RulesJson => "rules.json",
            OutputKind::Aig => "aig",
            OutputKind::Aag => "aag",
            OutputKind::Sv => "sv",
            OutputKind::SynthMlir => "synth.mlir",
            OutputKind::FlatBlif => "blif",
            OutputKind::HierBlif => "hier.blif",
        }
    }

    pub fn parse(name: &str) -> Option<OutputKind> {
        OutputKind::ALL.iter().copied().find(|k| k.name() == name)
    }
}

/// A piece of an output file: outputs are kept as consecutive pieces so that large texts
/// are never copied into one buffer (writers write the pieces in order).
pub type Piece = Cow<'static, [u8]>;

/// What a flow makes of one input: its outputs, in a fixed order (none when there are
/// errors), the diagnostics in the input's own text (warnings included), and messages
/// about other files (a Handshake design's library units), already located.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome<P = Piece> {
    pub outputs: Vec<(OutputKind, Vec<P>)>,
    pub diagnostics: Vec<Diagnostic>,
    pub elsewhere: Vec<Located>,
}

impl<P> Outcome<P> {
    /// Only errors (and no outputs).
    pub fn failed(diagnostics: Vec<Diagnostic>) -> Outcome<P> {
        Outcome {
            outputs: Vec::new(),
            diagnostics,
            elsewhere: Vec::new(),
        }
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
            || self.elsewhere.iter().any(Located::is_error)
    }

    /// The bytes of output `kind`, if the flow produced it.
    pub fn output(&self, kind: OutputKind) -> Option<&[P]> {
        self.outputs
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, p)| p.as_slice())
    }

    /// Output `kind` as one text, if the flow produced it and it is UTF-8 (for tests and
    /// tools: writers write the pieces as they are).
    pub fn text(&self, kind: OutputKind) -> Option<String>
    where
        P: AsRef<[u8]>,
    {
        let pieces = self.output(kind)?;
        let bytes: Vec<u8> = pieces
            .iter()
            .flat_map(|p| p.as_ref().iter().copied())
            .collect();
        String::from_utf8(bytes).ok()
    }
}

/// One output as a single piece.
fn whole(kind: OutputKind, bytes: Vec<u8>) -> (OutputKind, Vec<Piece>) {
    (kind, vec![Cow::Owned(bytes)])
}

#[cfg(test)]
mod looks_tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn texts_are_told_apart_by_their_first_token() {
        for (text, looks) in [
            ("", Looks::Mlir),
            ("// c\nmodule {\n}\n", Looks::Mlir),
            ("module @m attributes {x} {\n}", Looks::Mlir),
            ("#map = affine_map<(d0) -> (d0)>\nmodule {}", Looks::Mlir),
            ("func.func @f() { return }", Looks::Mlir),
            ("%0 = \"a.b\"() : () -> i32", Looks::Mlir),
            ("# comment\n\n.model m\n.end\n", Looks::Blif),
            ("\u{feff}.names a\n1\n", Looks::Blif),
            ("/* x */ module top(a);", Looks::Verilog),
            ("`timescale 1ns/1ps\nmodule t;", Looks::Verilog),
            ("package p;", Looks::Verilog),
            ("(* keep *) module t;", Looks::Verilog),
            ("library ieee;", Looks::Other),
            ("\u{1}\u{2}", Looks::Other),
        ] {
            assert_eq!(Looks::of(text).0, looks, "{text:?}");
        }
    }

    #[test]
    fn a_blif_text_is_blif_whatever_its_name() {
        let blif = ".model m\n.inputs a\n.outputs a\n.end\n";
        assert_eq!(Flow::detect(Path::new("n.txt"), blif), Flow::Blif);
        assert_eq!(
            Flow::detect(Path::new("top.v"), "module top;"),
            Flow::Unknown
        );
        let d = unknown("\n  module top(a);\n");
        assert_eq!(d.code, Some(Code::NoFlow));
        assert_eq!(d.span, Some(crate::diag::Span::new(3, 9)));
    }
}
