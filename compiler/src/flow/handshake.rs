//! The Handshake → Synth flow for one file: `<stem>.synth.mlir`, `<stem>.aig`,
//! `<stem>.blif` and `<stem>.hier.blif` of a Dynamatic `handshake.func`, built from a
//! per-unit BLIF library.
//!
//! Two phases around the library: [`front`] parses, analyses and marks the circuit (which
//! names the library files it needs, independent of their contents); the caller reads those
//! files and lowers each once ([`Library`]); [`back`] builds and emits the design. A daemon
//! caches the front, each unit (per BLIF model) and the back as separate queries;
//! [`synthesize`] runs them in a row for a caller that hands in a way to read the library.

use super::{Outcome, OutputKind, Piece, whole};
use crate::diag::{Code, Diagnostic, Located, Severity};
use crate::handshake::rtl::Template;
use crate::handshake::{self, Circuit, Dialect, LibUnit, Naming, PathTable, UnitRef, aig_io};
use crate::limits::Limits;
use std::collections::BTreeMap;

/// How a Handshake file is built.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    pub dialect: Dialect,
    pub naming: Naming,
    /// A path-table override file: its path (as shown to the user) and text.
    pub path_table: Option<(String, String)>,
    /// The counts and widths of the input are checked against these.
    pub limits: Limits,
    /// The `handshake.func` to build when the input has several (`@name` without the `@`).
    pub func: Option<String>,
}

/// The analysed circuit, its marks and the library files they use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Front {
    pub circuit: Circuit,
    pub marks: Vec<UnitRef>,
    /// Library paths (relative to the library directory), each once, sorted.
    pub library_paths: Vec<String>,
    /// The Verilog templates that can implement ops, by key (each parameter set once);
    /// used when a template directory is given ([`Library::add_template`]).
    pub templates: BTreeMap<String, Template>,
}

/// Why the front failed: an error in the input, or in the path-table file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrontError {
    Input(Diagnostic),
    PathTable(Box<Located>),
}

/// Phase 1: parse, analyse and mark the circuit (independent of the library's contents).
pub fn front(text: &str, opts: &Options) -> Result<Front, FrontError> {
    let module = crate::mlir::parse_with(text, &opts.limits).map_err(FrontError::Input)?;
    let func =
        handshake::find_func_named(&module.ops, opts.func.as_deref()).map_err(FrontError::Input)?;
    let circuit =
        handshake::analyze_with(func, opts.naming, &opts.limits).map_err(FrontError::Input)?;
    let table = match &opts.path_table {
        None => PathTable::default(),
        Some((path, table)) => PathTable::with_overrides(table).map_err(|d| {
            let located = d.or_code(Code::PathTable).locate(path, table);
            FrontError::PathTable(Box::new(located))
        })?,
    };
    let mut marks = handshake::mark::mark_circuit_with(func, &circuit, &table, &opts.limits)
        .map_err(FrontError::Input)?;
    let library_paths = handshake::library_paths(&marks);
    let mut templates = BTreeMap::new();
    let mut with_template = |m: &mut handshake::UnitRef, t: Option<handshake::rtl::Template>| {
        if let Some(t) = t {
            let key = t.key();
            m.template = Some(key.clone());
            m.template_about = Some(t.about());
            templates.entry(key).or_insert(t);
        }
    };
    for (m, node) in marks.iter_mut().zip(&circuit.ops) {
        with_template(m, handshake::rtl::template(&circuit, node));
        // The units inside a signal manager (extra signals) may be templates too.
        if let Some(mg) = &mut m.managed {
            let nodes = handshake::managers::inner_nodes(node, mg.manager);
            for (im, n) in mg.inner.iter_mut().zip(&nodes) {
                with_template(im, handshake::rtl::template(&circuit, n));
            }
        }
    }
    Ok(Front {
        circuit,
        marks,
        library_paths,
        templates,
    })
}

/// One library file lowered to its unit: the file's first model, with the models it
/// instantiates (the per-model steps of [`super::blif`], under `limits`); errors relative
/// to the file. Also the unit of a Verilog template, from the BLIF yosys wrote for it. (A
/// daemon caches the same steps per model: its `lib_unit` query.)
pub fn unit(text: &str, limits: &Limits) -> Result<LibUnit, Diagnostic> {
    let (first, lowered) = super::blif::lower_first(text, limits)
        .ok_or_else(|| Diagnostic::global_error("library file has no .model"))?;
    let lowered = lowered.map_err(|d| d.shifted(first.offset as i64))?;
    Ok(LibUnit {
        model: first.symbol,
        net: aig_io::from_aig(&lowered.aig),
        undriven: lowered.undriven,
    })
}

/// The library units a design uses, with their texts (for the hierarchical BLIF) and what
/// went wrong with the others (warnings: an op whose unit is missing is built otherwise).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Library {
    pub units: BTreeMap<String, LibUnit>,
    pub(crate) texts: BTreeMap<String, String>,
    pub notes: Vec<Located>,
    /// How many of the files looked for exist (usable or not).
    pub(crate) found: usize,
}

impl Library {
    /// The file at library path `rel` (shown to the user as `shown`) with text `text`,
    /// lowered to `lowered`.
    pub fn add(
        &mut self,
        rel: &str,
        shown: &str,
        text: &str,
        lowered: Result<LibUnit, Diagnostic>,
    ) {
        self.found += 1;
        match lowered {
            Ok(u) => {
                self.units.insert(rel.to_string(), u);
                self.texts.insert(rel.to_string(), text.to_string());
            }
            Err(d) => {
                let mut note = d.with_code(Code::LibraryFileIgnored).locate(shown, text);
                note.severity = Severity::Warning;
                note.notes.push("unit ignored".into());
                self.notes.push(note);
            }
        }
    }

    /// The unit of template `key`: the BLIF `blif` yosys wrote for it, lowered to
    /// `lowered`; or why it could not be made (`Err`: a warning; its ops are built
    /// otherwise). Found templates do not count as library files.
    pub fn add_template(
        &mut self,
        key: &str,
        made: Result<(String, Result<LibUnit, Diagnostic>), Located>,
    ) {
        let note = match made {
            Ok((blif, Ok(u))) => {
                self.units.insert(key.to_string(), u);
                self.texts.insert(key.to_string(), blif);
                return;
            }
            Ok((blif, Err(d))) => d.locate(&format!("{key} (synthesized)"), &blif),
            Err(l) => l,
        };
        let mut note = note.with_code(Code::TemplateFailed);
        note.severity = Severity::Warning;
        note.notes.push("template unit ignored".into());
        self.notes.push(note);
    }

    /// The file `shown` exists but is not UTF-8.
    pub fn not_utf8(&mut self, shown: &str) {
        self.found += 1;
        let note = Located::file(shown, Severity::Warning, "not UTF-8; unit ignored");
        self.notes.push(note.with_code(Code::LibraryFileIgnored));
    }
}

/// What a caller finds at a library path.
pub enum LibraryFile {
    Missing,
    NotUtf8 { shown: String },
    Text { shown: String, text: String },
}

/// The library units of `front`, read through `read` (each path once) and lowered under
/// `limits`.
pub fn load(front: &Front, read: &mut dyn FnMut(&str) -> LibraryFile, limits: &Limits) -> Library {
    let mut library = Library::default();
    for rel in &front.library_paths {
        match read(rel) {
            LibraryFile::Missing => {}
            LibraryFile::NotUtf8 { shown } => library.not_utf8(&shown),
            LibraryFile::Text { shown, text } => {
                let lowered = unit(&text, limits);
                library.add(rel, &shown, &text, lowered);
            }
        }
    }
    library
}

/// Phase 2: the design built from `front` and `library` under `limits`, as the four
/// outputs. A design that uses library files none of which exists is an error: the library
/// directory is almost certainly the wrong one, and every unit would be opaque.
pub fn back(front: &Front, library: Library, dialect: Dialect, limits: &Limits) -> Outcome {
    let failed = |d: Diagnostic, notes: Vec<Located>| Outcome {
        elsewhere: notes,
        ..Outcome::failed(vec![d])
    };
    if library.found == 0 && !front.library_paths.is_empty() {
        return failed(library_unused(&front.library_paths), library.notes);
    }
    let out = match handshake::build_with(&front.circuit, &front.marks, &library.units, limits) {
        Ok(o) => o,
        Err(d) => return failed(d, library.notes),
    };
    // The outputs are most of the memory: each is written in chunks (never one doubling
    // buffer), and the flat AIG (as an `Aig`, for its two forms) lives only while those
    // two are written.
    let flat = aig_io::to_aig(&out.flat, &out.name);
    let aiger = crate::aig::write_aiger_binary(&flat);
    let flat_blif = crate::aig::blif_out::write_blif_pieces(&flat);
    drop(flat);
    let synth = handshake::emit::synth_mlir_pieces(&out, dialect);
    let hier = match aig_io::hier_blif_pieces(&out, &library.texts) {
        Ok(h) => h,
        Err(d) => return failed(d, library.notes),
    };
    let outputs: Vec<(OutputKind, Vec<Piece>)> = vec![
        (OutputKind::SynthMlir, synth),
        whole(OutputKind::Aig, aiger),
        (OutputKind::FlatBlif, flat_blif),
        (OutputKind::HierBlif, hier),
    ];
    Outcome {
        outputs,
        diagnostics: out.warnings,
        elsewhere: library.notes,
    }
}

/// The error of a Handshake build without a library.
pub fn no_library() -> Diagnostic {
    Diagnostic::global_error(
        "no BLIF library: pass --blif-lib DIR, set `blif_lib` in kiln.toml or $KILN_BLIF_LIB",
    )
    .with_code(Code::NoLibrary)
}

/// The error of a library in which none of `paths` (the files a design uses) exists.
fn library_unused(paths: &[String]) -> Diagnostic {
    let shown: Vec<&str> = paths.iter().take(3).map(String::as_str).collect();
    let more = match paths.len() > shown.len() {
        true => format!(", and {} more", paths.len() - shown.len()),
        false => String::new(),
    };
    Diagnostic::global_error(format!(
        "none of the {} library files this design uses is in the BLIF library",
        paths.len()
    ))
    .with_code(Code::LibraryUnused)
    .with_note(format!("looked for {}{more}", shown.join(", ")))
    .with_note("--blif-lib must name the library's root (the directory of `addi/`, `buffer/`, ...)")
}

/// The whole flow for one file: [`front`], the library files read through `read` (`None`:
/// no library directory, an error), [`back`].
pub fn synthesize(
    text: &str,
    opts: &Options,
    read: Option<&mut dyn FnMut(&str) -> LibraryFile>,
) -> Outcome {
    let front = match front(text, opts) {
        Ok(f) => f,
        Err(e) => return front_failed(e),
    };
    let Some(read) = read else {
        return Outcome::failed(vec![no_library()]);
    };
    let library = load(&front, read, &opts.limits);
    back(&front, library, opts.dialect, &opts.limits)
}

/// The outcome of a failed front.
pub fn front_failed(e: FrontError) -> Outcome {
    match e {
        FrontError::Input(d) => Outcome::failed(vec![d]),
        FrontError::PathTable(l) => Outcome {
            elsewhere: vec![*l],
            ..Outcome::default()
        },
    }
}
