//! The Handshake → Synth flow as queries ([`compiler::flow::handshake`]): the circuit's
//! front (independent of the library), one library unit per used BLIF file (from that
//! file's per-model AIG query, so a unit is lowered once however many ops use it, and
//! cached on disk), and the back (the four outputs).

use super::note;
use super::{BlifFile, FileOutputs, KilnDb, SourceFile, cached_if, executed};
use crate::counters::Kind;
use crate::why::Subject;
use compiler::diag::{Diagnostic, Located};
use compiler::flow::handshake::{self as hs, Front, FrontError, Library, Options};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Options of a Handshake build (`kiln build --blif-lib ...`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct HandshakeOpts {
    /// The BLIF library directory, if one was given or found.
    pub(crate) lib_dir: Option<PathBuf>,
    /// Dynamatic's Verilog template directory, if one was given.
    pub(crate) rtl_dir: Option<PathBuf>,
    /// yosys, when found (`$KILN_YOSYS`, else PATH) and templates are in use.
    pub(crate) yosys: Option<PathBuf>,
    pub(crate) flow: Options,
}

impl HandshakeOpts {
    /// The options of `spec` with flow options `flow`; yosys looked for when the spec has a
    /// template directory.
    pub(crate) fn of(spec: &crate::spec::HandshakeSpec, flow: Options) -> HandshakeOpts {
        HandshakeOpts {
            lib_dir: spec.blif_lib.clone(),
            rtl_dir: spec.rtl_lib.clone(),
            yosys: spec.rtl_lib.as_ref().and_then(|_| crate::rtl::find_yosys()),
            flow,
        }
    }
}

/// One Verilog template's texts (its files', in order: path shown, text) and its
/// instantiation: what its synthesized unit is a function of.
#[salsa::input(debug)]
pub(crate) struct TemplateSource {
    #[returns(ref)]
    pub(crate) sources: Vec<(String, String)>,
    #[returns(ref)]
    pub(crate) template: compiler::handshake::rtl::Template,
}

/// A library file as found for a Handshake build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum UnitSource {
    File(BlifFile),
    /// The file exists but is not UTF-8 (the unit is ignored, with a warning).
    NotUtf8,
}

/// One Handshake input with its options and the library files its ops use (set by the
/// input layer after reading [`handshake_front`]'s library paths from disk).
#[salsa::input(debug)]
pub(crate) struct HandshakeJob {
    pub(crate) file: SourceFile,
    #[returns(ref)]
    pub(crate) opts: HandshakeOpts,
    /// Library path (relative to the library directory) → file; missing files are absent.
    #[returns(ref)]
    pub(crate) units: BTreeMap<String, UnitSource>,
    /// Template key → its sources, or why they cannot be read (with a template directory).
    #[returns(ref)]
    pub(crate) templates: BTreeMap<String, Result<TemplateSource, Located>>,
}

/// A template's unit: yosys's BLIF of it (run once per template texts and parameters) and
/// that BLIF lowered; or why yosys did not make one.
#[salsa::tracked(returns(ref))]
pub(crate) fn template_unit(
    db: &dyn KilnDb,
    src: TemplateSource,
    yosys: PathBuf,
) -> Result<(String, Result<compiler::handshake::LibUnit, Diagnostic>), Located> {
    let noted = note(db, || {
        Subject::file(std::path::Path::new(&src.template(db).key()))
    });
    let (sources, t) = (src.sources(db), src.template(db));
    // yosys's BLIF is kept in the persistent store, keyed by the texts, the wrapper and
    // the yosys used; a time-out is not kept.
    let texts: Vec<&str> = sources.iter().map(|(_, text)| text.as_str()).collect();
    let key = serde_json::to_string(&(texts, &t.wrapper, &yosys)).unwrap_or_default();
    let digest = kiln_cache::digest(key.as_bytes());
    let blif = cached_if(
        db,
        noted,
        Kind::TemplateUnit,
        &[&digest],
        || crate::rtl::synthesize_cached(&yosys, sources, t),
        |r: &Result<String, String>| !r.as_ref().is_err_and(|e| e.contains("timed out")),
    );
    let limits = super::limits(db);
    crate::rtl::unit_from(blif, t, &limits)
}

/// Parse, analyse and mark the circuit: independent of the library files' contents.
#[salsa::tracked(returns(ref))]
pub(crate) fn handshake_front(db: &dyn KilnDb, job: HandshakeJob) -> Result<Front, FrontError> {
    note(db, || Subject::file(job.file(db).path(db)));
    executed(db, Kind::HandshakeFront);
    hs::front(job.file(db).text(db), &job.opts(db).flow)
}

/// A library file's unit: its first model's AIG (the per-model query
/// [`super::blif::model_aig`], persistently cached), as a handshake net. Errors are
/// file-relative.
#[salsa::tracked(returns(ref))]
pub(crate) fn lib_unit(
    db: &dyn KilnDb,
    file: BlifFile,
) -> Result<compiler::handshake::LibUnit, Diagnostic> {
    note(db, || Subject::file(file.path(db)));
    executed(db, Kind::LibUnit);
    let first = super::blif::blif_models(db, file)
        .first()
        .ok_or_else(|| Diagnostic::global_error("library file has no .model"))?;
    let lowered = super::blif::model_aig(db, file, first.symbol.clone())
        .as_ref()
        .map_err(|d| d.clone().shifted(first.offset as i64))?;
    Ok(compiler::handshake::LibUnit {
        model: first.symbol.clone(),
        net: compiler::handshake::aig_io::from_aig(&lowered.aig),
        undriven: lowered.undriven.clone(),
    })
}

/// The four outputs of a Handshake circuit (`kiln synth`'s), with warnings.
#[salsa::tracked(returns(ref))]
pub(crate) fn handshake_outputs(db: &dyn KilnDb, job: HandshakeJob) -> FileOutputs {
    note(db, || Subject::file(job.file(db).path(db)));
    executed(db, Kind::HandshakeEmit);
    let front = match handshake_front(db, job) {
        Ok(f) => f,
        Err(e) => return hs::front_failed(e.clone()).into(),
    };
    match library(db, job, front) {
        Ok(library) => {
            let opts = job.opts(db);
            hs::back(front, library, opts.flow.dialect, &opts.flow.limits).into()
        }
        Err(d) => FileOutputs::failed(vec![d]),
    }
}

/// What implements each op of the circuit (`synth-report`'s rows, loops cut open as the
/// build cuts them), for editors; none when the circuit cannot be built.
#[salsa::tracked(returns(ref))]
pub(crate) fn handshake_report(
    db: &dyn KilnDb,
    job: HandshakeJob,
) -> Option<Vec<compiler::handshake::ReportRow>> {
    note(db, || Subject::file(job.file(db).path(db)));
    let front = handshake_front(db, job).as_ref().ok()?;
    let library = library(db, job, front).ok()?;
    Some(compiler::handshake::report(
        &front.circuit,
        &front.marks,
        &library.units,
    ))
}

/// The units `front` uses, library files and template units, as a build takes them; why
/// there can be none (no library, or templates without yosys).
fn library(db: &dyn KilnDb, job: HandshakeJob, front: &Front) -> Result<Library, Diagnostic> {
    let opts = job.opts(db);
    let Some(lib_dir) = &opts.lib_dir else {
        return Err(hs::no_library());
    };
    let mut library = Library::default();
    let all = job.units(db);
    for rel in &front.library_paths {
        let shown = lib_dir.join(rel).display().to_string();
        match all.get(rel) {
            None => {}
            Some(UnitSource::NotUtf8) => library.not_utf8(&shown),
            Some(UnitSource::File(f)) => {
                let unit = lib_unit(db, *f).clone();
                library.add(rel, &shown, f.text(db), unit);
            }
        }
    }
    if opts.rtl_dir.is_some() && !front.templates.is_empty() {
        let Some(yosys) = &opts.yosys else {
            let ops = front.marks.iter().filter(|m| m.template.is_some()).count();
            return Err(crate::rtl::no_yosys(ops));
        };
        let sources = job.templates(db);
        for key in front.templates.keys() {
            let made = match sources.get(key) {
                Some(Ok(src)) => template_unit(db, *src, yosys.clone()).clone(),
                Some(Err(l)) => Err(l.clone()),
                None => continue,
            };
            library.add_template(key, made);
        }
    }
    Ok(library)
}
