//! The APS flow for one file: `<stem>.cmt2.mlir` and `<stem>.rules.json` (and, when asked,
//! `<stem>.sv`) of a scheduled TOR/APS module.
//!
//! The file is split lexically into its design context and its `tor.func` items
//! ([`crate::mlir::split`]); the context gives the [`DesignContext`] every function reads;
//! each function is then parsed, segmented, handled block by block, assembled and emitted on
//! its own ([`function`]), so functions build in parallel here and one at a time (cached) in
//! a daemon. A file's outputs are its functions' emitted rules between a header and a footer
//! computed from the functions' frames (circuits without rules but for their bank calls,
//! [`frame_of`]; [`Frame`]), laid out by [`layout`]:
//! byte for byte the emitters of [`crate::rules::emit`] on the merged circuit.
//!
//! Errors: an error in the design context is the file's only error (every function reads
//! the context); otherwise every failing function reports its first error. Any error
//! suppresses the outputs. A symbol defined by two functions is an error.

use super::{Outcome, OutputKind, Piece};
use crate::aps::{self, DesignContext, Style};
use crate::diag::{Code, Diagnostic, Span};
use crate::limits::Limits;
use crate::mlir::ast::Operation;
use crate::mlir::items::Item;
use crate::mlir::split::split_functions;
use crate::rules::{self, Circuit};
use std::borrow::Cow;

/// Design-level facts from a design context's text (the file with its functions cut out);
/// an error's span is in that text (see [`crate::mlir::split::Split::to_file`]).
pub fn design_context(context: &str, limits: &Limits) -> Result<DesignContext, Diagnostic> {
    design_context_with(context, limits, None)
}

/// [`design_context`] under the SoC's CSR configuration, when there is one (its lanes).
pub fn design_context_with(
    context: &str,
    limits: &Limits,
    csr: Option<&aps::csr::CsrConfig>,
) -> Result<DesignContext, Diagnostic> {
    let module = crate::mlir::parse_with(context, limits)?;
    aps::design_context_with(&module, csr)
}

/// A function item parsed on its own: spans relative to its first byte.
pub fn parse_function(text: &str, limits: &Limits) -> Result<Operation, Diagnostic> {
    let module = crate::mlir::parse_with(text, limits)?;
    module
        .ops
        .into_iter()
        .next()
        .ok_or_else(|| Diagnostic::error(Span::point(0), "empty function item"))
}

/// One function's share of its file's outputs: its frame ([`frame_of`], for the file's
/// header and footer) and its rules as CMT2 and as JSON (comma-joined; empty when the
/// function has no rules), and the warnings about it (spans relative to the function).
/// Position-independent: equal for equal function texts. `P` holds the texts (a daemon
/// keeps them as shared bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emitted<P = String> {
    pub frame: Circuit,
    pub cmt2: P,
    pub json: P,
    pub warnings: Vec<Diagnostic>,
}

/// Emit one function's circuit. The texts are kept long (a file's outputs, a daemon's
/// memos), so they are stored at their exact size: the emitters reserve an upper estimate.
pub fn emit(circuit: &Circuit) -> Emitted {
    let exact = |mut s: String| {
        s.shrink_to_fit();
        s
    };
    Emitted {
        frame: frame_of(circuit),
        cmt2: exact(rules::emit::cmt2_rules(&circuit.instances, &circuit.rules)),
        json: exact(rules::json::rules_json(&circuit.rules)),
        warnings: Vec::new(),
    }
}

/// A function's circuit without its rules but for their bank calls
/// ([`rules::port_skeleton`]: the banks' ports): what its file's header, footer and checks
/// need of it ([`emit`]'s `frame`).
pub fn frame_of(circuit: &Circuit) -> Circuit {
    Circuit {
        name: circuit.name.clone(),
        instructions: circuit.instructions.clone(),
        instances: circuit.instances.clone(),
        rules: rules::port_skeleton(circuit),
        precedence: circuit.precedence.clone(),
        schedule: circuit.schedule.clone(),
    }
}

/// A function item's circuit: parsed, segmented, each block handled, assembled (the steps a
/// daemon caches one by one: [`parse_function`], [`aps::segment_function_with`],
/// [`aps::handle_block`], [`aps::assemble`]); with the warnings about the function.
pub fn circuit(
    ctx: &DesignContext,
    text: &str,
    limits: &Limits,
) -> Result<(Circuit, Vec<Diagnostic>), Diagnostic> {
    circuit_styled(ctx, text, limits, Style::Fsm)
}

/// [`circuit`] in `style`.
pub fn circuit_styled(
    ctx: &DesignContext,
    text: &str,
    limits: &Limits,
    style: Style,
) -> Result<(Circuit, Vec<Diagnostic>), Diagnostic> {
    aps::build_function_styled(ctx, &parse_function(text, limits)?, limits, style)
}

/// What an APS file's outputs hold besides its functions' rules: the CMT2 header and
/// footer and the JSON head and tail, all from the merged frames ([`frame_of`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame<P = String> {
    pub(crate) cmt2_header: P,
    pub(crate) cmt2_footer: P,
    pub(crate) json_head: P,
    pub(crate) json_tail: P,
}

impl Frame {
    /// The frame of the file `stem` whose functions have these frames ([`frame_of`]).
    pub fn of(stem: &str, frames: Vec<Circuit>) -> Frame {
        let merged = merge(stem, frames);
        let (json_head, json_tail) = rules::json::json_head_tail(&merged);
        Frame {
            cmt2_header: rules::emit::cmt2_header(
                stem,
                &merged.instances,
                &merged.rules,
                &merged.schedule,
            ),
            cmt2_footer: rules::emit::cmt2_footer(&merged),
            json_head,
            json_tail,
        }
    }
}

impl<P> Frame<P> {
    pub fn map<Q>(self, mut f: impl FnMut(P) -> Q) -> Frame<Q> {
        Frame {
            cmt2_header: f(self.cmt2_header),
            cmt2_footer: f(self.cmt2_footer),
            json_head: f(self.json_head),
            json_tail: f(self.json_tail),
        }
    }
}

/// The two outputs of an APS file from their pieces: CMT2 = header, each function's rules,
/// footer; JSON = head, the functions' non-empty rule lists joined by `comma`, tail. Pieces
/// are moved (or, for shared pieces, their handles cloned), never their bytes copied.
pub fn layout<P: Clone + AsRef<[u8]>>(
    frame: Frame<P>,
    functions: impl IntoIterator<Item = (P, P)>,
    comma: P,
) -> Vec<(OutputKind, Vec<P>)> {
    let functions = functions.into_iter();
    let mut cmt2 = Vec::with_capacity(functions.size_hint().0 + 2);
    let mut json = Vec::with_capacity(2 * functions.size_hint().0 + 2);
    cmt2.push(frame.cmt2_header);
    json.push(frame.json_head);
    for (c, j) in functions {
        cmt2.push(c);
        if j.as_ref().is_empty() {
            continue;
        }
        if json.len() > 1 {
            json.push(comma.clone());
        }
        json.push(j);
    }
    cmt2.push(frame.cmt2_footer);
    json.push(frame.json_tail);
    vec![(OutputKind::Cmt2, cmt2), (OutputKind::RulesJson, json)]
}

/// A function symbol defined more than once is an error at each later definition (the
/// functions of a file are known by their symbols).
pub fn repeated_symbols(functions: &[Item]) -> Vec<Diagnostic> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for item in functions {
        if seen.insert(item.symbol.as_str()) {
            continue;
        }
        let at = item.offset + item.text.find('@').unwrap_or(0);
        let span = Span::new(at, at + 1 + item.symbol.len());
        out.push(
            Diagnostic::error(
                span,
                format!("function `@{}` is defined more than once", item.symbol),
            )
            .with_code(Code::DuplicateFunction),
        );
    }
    out
}

/// The instruction identities of a file's functions checked
/// ([`aps::identity_diagnostics`]), each function's at its item's text: a repeated
/// identity is an error (the file's outputs are suppressed), an opcode outside the custom
/// opcodes a warning. `functions`: each item with its circuit (or its circuit's frame).
pub fn identities<'a>(
    functions: impl IntoIterator<Item = (&'a Item, &'a Circuit)>,
) -> Vec<Diagnostic> {
    let ids: Vec<(rules::Instruction, Span)> = functions
        .into_iter()
        .flat_map(|(item, c)| {
            let span = Span::new(item.offset, item.offset + item.text.len());
            c.instructions.iter().map(move |i| (i.clone(), span))
        })
        .collect();
    aps::identity_diagnostics(&ids)
}

/// A file's circuit: its functions' circuits merged (shared instances once), named after
/// the file's stem. What the outputs describe.
pub fn merge(stem: &str, circuits: Vec<Circuit>) -> Circuit {
    aps::build_file_circuit(stem, circuits)
}

/// The merged circuit of a file's functions as SystemVerilog with top module `top`
/// ([`rules::sv::DEFAULT_TOP`] unless the build names another).
pub fn sv(stem: &str, top: &str, circuits: Vec<Circuit>) -> Result<String, Diagnostic> {
    rules::sv::emit_sv(&merge(stem, circuits), top)
}

/// The APS flow for one file (`stem` names the merged circuit): its two outputs, and its
/// `<stem>.sv` too when `sv_top` names that file's top module; the state-machine style,
/// lanes from the CSR globals, on all cores. See [`build_with`].
pub fn build(text: &str, stem: &str, sv_top: Option<&str>, limits: &Limits) -> Outcome {
    build_with(
        text,
        stem,
        &Options {
            sv_top,
            limits: *limits,
            ..Options::default()
        },
    )
}

/// How [`build_with`] builds an APS file.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options<'a> {
    /// At most this many threads (0: one per core); the same outcome for any number.
    pub threads: usize,
    /// Write `<stem>.sv` with this top module.
    pub sv_top: Option<&'a str>,
    /// Counts and widths in the text are checked against these.
    pub limits: Limits,
    /// The architecture of the rules.
    pub style: Style,
    /// The SoC's CSR configuration (the CSR lanes); `None`: one lane per CSR global.
    pub csr: Option<&'a aps::csr::CsrConfig>,
}

/// A file's functions' emitted shares and the warnings about them (in the file's
/// positions), or the file's errors: what [`check`] returns.
pub type Checked<E> = Result<(Vec<E>, Vec<Diagnostic>), Vec<Diagnostic>>;

/// The one check of an APS file's functions, in this order: the design context's error
/// (`context_error`, already in the file's positions: every function reads the context, so
/// it is the file's only error), repeated symbols, each function's first error, the
/// instruction identities ([`identities`]). `emitted` gives each function's share (its
/// [`Emitted`], errors and warnings relative to the function; `None`: the function is left
/// out); it is asked in source order, and only once the checks before it passed. On
/// success: the shares in source order and the warnings, the functions' then the
/// identities'. A build ([`build_with`]), a daemon's queries and an editor all check
/// through here, so they report the same diagnostics in the same order.
pub fn check<P, E: AsRef<Emitted<P>>>(
    context_error: Option<Diagnostic>,
    functions: &[Item],
    mut emitted: impl FnMut(usize, &Item) -> Option<Result<E, Diagnostic>>,
) -> Checked<E> {
    if let Some(d) = context_error {
        return Err(vec![d]);
    }
    let repeated = repeated_symbols(functions);
    if !repeated.is_empty() {
        return Err(repeated);
    }
    let mut errors = Vec::new();
    let mut parts = Vec::with_capacity(functions.len());
    let mut warnings = Vec::new();
    for (i, item) in functions.iter().enumerate() {
        let at = item.offset as i64;
        match emitted(i, item) {
            Some(Ok(e)) => {
                warnings.extend(e.as_ref().warnings.iter().map(|w| w.clone().shifted(at)));
                parts.push(e);
            }
            Some(Err(d)) => errors.push(d.shifted(at)),
            None => {}
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let identities = identities(
        functions
            .iter()
            .zip(parts.iter().map(|e| &e.as_ref().frame)),
    );
    if identities.iter().any(Diagnostic::is_error) {
        return Err(identities);
    }
    warnings.extend(identities);
    Ok((parts, warnings))
}

impl<P> AsRef<Emitted<P>> for Emitted<P> {
    fn as_ref(&self) -> &Emitted<P> {
        self
    }
}

/// The APS flow for one file under `o`: functions are built on all cores (outputs in
/// source order), the fastest build of a whole file; checked by [`check`].
pub fn build_with(text: &str, stem: &str, o: &Options) -> Outcome {
    let (threads, sv_top, limits, style, csr) = (o.threads, o.sv_top, &o.limits, o.style, o.csr);
    let split = split_functions(text);
    let (ctx, context_error) = match design_context_with(&split.context, limits, csr) {
        Ok(c) => (Some(c), None),
        Err(d) => (None, Some(split.to_file(d))),
    };
    // A circuit is kept only for the SystemVerilog, else dropped on the thread that built
    // it (dropping them all on this thread made a cold build a fifth slower).
    let build = |item: &Item| {
        let ctx = ctx.as_ref()?;
        Some(
            circuit_styled(ctx, &item.text, limits, style).map(|(c, warnings)| {
                let e = Emitted {
                    warnings,
                    ..emit(&c)
                };
                (e, sv_top.is_some().then_some(c))
            }),
        )
    };
    // Built ahead, on all cores, unless the checks before the functions fail.
    let ahead = context_error.is_none() && repeated_symbols(&split.functions).is_empty();
    let threads = crate::par::jobs_or_cores(threads);
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match ahead {
        true => crate::par::map(threads, &split.functions, build),
        false => Vec::new(),
    }));
    let Ok(mut built) = built else {
        let d = Diagnostic::global_error("internal error: a build thread panicked")
            .with_code(Code::Internal);
        return Outcome::failed(vec![d]);
    };
    let mut circuits = Vec::new();
    let checked = check(context_error, &split.functions, |i, _| {
        let (e, c) = match built.get_mut(i)?.take()? {
            Ok(ec) => ec,
            Err(d) => return Some(Err(d)),
        };
        circuits.extend(c);
        Some(Ok(e))
    });
    let (emitted, diagnostics) = match checked {
        Ok(checked) => checked,
        Err(errors) => return Outcome::failed(errors),
    };
    let bytes = |s: String| -> Piece { Cow::Owned(s.into_bytes()) };
    let (frames, pieces): (Vec<Circuit>, Vec<(Piece, Piece)>) = emitted
        .into_iter()
        .map(|e| (e.frame, (bytes(e.cmt2), bytes(e.json))))
        .unzip();
    let frame = Frame::of(stem, frames);
    let mut outcome = Outcome {
        outputs: layout(frame.map(bytes), pieces, Cow::Borrowed(b",")),
        diagnostics,
        ..Outcome::default()
    };
    if let Some(top) = sv_top {
        match sv(stem, top, circuits) {
            Ok(text) => outcome.outputs.push((OutputKind::Sv, vec![bytes(text)])),
            Err(d) => return Outcome::failed(vec![d]),
        }
    }
    outcome
}
