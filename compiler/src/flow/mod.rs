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
    /// MLIR that no flow accepts.
    Unknown,
}

impl Flow {
    /// The flow of the file named `name` with contents `text`: `.blif` files are BLIF;
    /// other (MLIR) texts are APS when they mention `tor.design`, else Handshake when they
    /// mention `handshake.func`.
    ///
    /// The test is lexical, so it is cheap: for an APS design the search stops at the
    /// design's header, near the top of the file, however large the file is.
    pub fn detect(name: &std::path::Path, text: &str) -> Flow {
        if is_blif(name) {
            return Flow::Blif;
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

/// Whether a path names a BLIF input.
pub fn is_blif(p: &std::path::Path) -> bool {
    p.extension().is_some_and(|x| x == "blif")
}

/// Whether a path names an MLIR input.
pub fn is_mlir(p: &std::path::Path) -> bool {
    p.extension().is_some_and(|x| x == "mlir")
}

/// The error of an MLIR input no flow accepts: its parse error, else a plain error.
pub fn unknown(text: &str) -> Diagnostic {
    match crate::mlir::parse(text) {
        Err(d) => d,
        Ok(_) => Diagnostic::global_error(
            "no flow accepts this input (expected a module with `tor.design` or a `handshake.func`)",
        )
        .with_code(Code::NoFlow),
    }
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
