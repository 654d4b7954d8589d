//! From inputs to output files: the one code path shared by the daemon and by in-process
//! (`--no-daemon`) builds, so both produce byte-identical outputs.
//!
//! A [`Workspace`] owns the salsa database and the input handles. [`Workspace::sync`] reads
//! the request's files from disk and updates only the inputs whose text changed;
//! [`compute`] runs the queries on a database (a clone, in the daemon) and returns the
//! output texts; [`write_outputs`] writes them atomically, only when their bytes change.

use crate::counters;
use crate::db::{self, BlifFile, Db, Library, OutputKind, SourceFile};
use crate::proto;
use compiler::diag::{self, Diagnostic, Severity};
use salsa::{Durability, Setter};
use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// What to build (paths absolute, or relative to the process's directory).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildSpec {
    pub inputs: Vec<PathBuf>,
    pub libraries: Vec<PathBuf>,
    pub kinds: Vec<OutputKind>,
    pub out_dir: PathBuf,
}

impl BuildSpec {
    pub fn from_proto(req: &proto::BuildRequest) -> Result<BuildSpec, String> {
        let kinds = req
            .output_kinds
            .iter()
            .map(|k| OutputKind::parse(k).ok_or_else(|| format!("unknown output kind `{k}`")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(BuildSpec {
            inputs: req.inputs.iter().map(PathBuf::from).collect(),
            libraries: req.libraries.iter().map(PathBuf::from).collect(),
            kinds,
            out_dir: PathBuf::from(&req.out_dir),
        })
    }

    pub fn to_proto(&self) -> proto::BuildRequest {
        let s = |p: &PathBuf| p.to_string_lossy().into_owned();
        proto::BuildRequest {
            inputs: self.inputs.iter().map(s).collect(),
            libraries: self.libraries.iter().map(s).collect(),
            output_kinds: self.kinds.iter().map(|k| k.name().to_string()).collect(),
            out_dir: s(&self.out_dir),
        }
    }

    fn wants(&self, kind: OutputKind) -> bool {
        self.kinds.is_empty() || self.kinds.contains(&kind)
    }
}

/// An input as read from disk: its text, or why it could not be read.
#[derive(Debug, Clone)]
enum Loaded {
    Mlir(SourceFile),
    Unreadable(String),
}

/// The database and the handles of every input it has seen.
pub struct Workspace {
    pub db: Db,
    sources: BTreeMap<PathBuf, SourceFile>,
    blifs: BTreeMap<PathBuf, BlifFile>,
    library: Option<Library>,
}

/// The inputs of one build, resolved to database handles (valid for any clone of the db).
#[derive(Debug, Clone)]
pub struct Resolved {
    inputs: Vec<(PathBuf, Loaded)>,
    #[allow(dead_code)]
    library: Library,
}

impl Workspace {
    pub fn new(db: Db) -> Workspace {
        Workspace {
            db,
            sources: BTreeMap::new(),
            blifs: BTreeMap::new(),
            library: None,
        }
    }

    /// Read the spec's inputs and library from disk; set the salsa inputs whose text changed.
    pub fn sync(&mut self, spec: &BuildSpec) -> Resolved {
        let library = self.sync_library(spec);
        let inputs = spec
            .inputs
            .iter()
            .map(|p| (p.clone(), self.sync_input(p)))
            .collect();
        Resolved { inputs, library }
    }

    fn sync_input(&mut self, path: &Path) -> Loaded {
        let text = match read_text(path) {
            Ok(t) => t,
            Err(msg) => return Loaded::Unreadable(msg),
        };
        if let Some(f) = self.sources.get(path).copied() {
            if f.text(&self.db) != &text {
                f.set_text(&mut self.db).to(text);
            }
            return Loaded::Mlir(f);
        }
        let f = SourceFile::new(&self.db, path.to_path_buf(), text);
        self.sources.insert(path.to_path_buf(), f);
        Loaded::Mlir(f)
    }

    fn sync_library(&mut self, spec: &BuildSpec) -> Library {
        let mut files = Vec::new();
        for path in library_files(&spec.libraries) {
            let Ok(text) = read_text(&path) else { continue };
            files.push(self.sync_blif(&path, text));
        }
        match self.library {
            Some(lib) => {
                if lib.files(&self.db) != &files {
                    lib.set_files(&mut self.db)
                        .with_durability(Durability::HIGH)
                        .to(files);
                }
                lib
            }
            None => {
                let lib = Library::builder(files)
                    .durability(Durability::HIGH)
                    .new(&self.db);
                self.library = Some(lib);
                lib
            }
        }
    }

    fn sync_blif(&mut self, path: &Path, text: String) -> BlifFile {
        if let Some(f) = self.blifs.get(path).copied() {
            if f.text(&self.db) != &text {
                f.set_text(&mut self.db)
                    .with_durability(Durability::HIGH)
                    .to(text);
            }
            return f;
        }
        let f = BlifFile::builder(path.to_path_buf(), text)
            .durability(Durability::HIGH)
            .new(&self.db);
        self.blifs.insert(path.to_path_buf(), f);
        f
    }
}

/// `.blif` files named directly or found (non-recursively) in the given directories, sorted
/// within each directory so that model lookup is deterministic.
pub fn library_files(libraries: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for lib in libraries {
        if !lib.is_dir() {
            out.push(lib.clone());
            continue;
        }
        let Ok(rd) = fs::read_dir(lib) else { continue };
        let mut found: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "blif") && p.is_file())
            .collect();
        found.sort();
        out.extend(found);
    }
    out
}

fn read_text(path: &Path) -> Result<String, String> {
    let bytes = fs::read(path).map_err(|e| format!("{}: error: {e}\n", path.display()))?;
    match diag::decode_utf8(&bytes) {
        Ok(_) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Err(d) => Err(d.render(
            &path.display().to_string(),
            &String::from_utf8_lossy(&bytes),
        )),
    }
}

/// One output file to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub path: PathBuf,
    pub kind: OutputKind,
    pub bytes: Vec<u8>,
}

/// The outputs and rendered diagnostics of a build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Computed {
    pub outputs: Vec<Output>,
    pub diagnostics: Vec<proto::FileDiagnostics>,
}

/// Run the queries for every input. Pure with respect to the filesystem; may unwind with
/// `salsa::Cancelled` when another thread writes an input.
pub fn compute(db: &Db, spec: &BuildSpec, resolved: &Resolved) -> Computed {
    let mut out = Computed::default();
    for (path, loaded) in &resolved.inputs {
        let display = path.display().to_string();
        let file = match loaded {
            Loaded::Unreadable(msg) => {
                out.diagnostics.push(proto::FileDiagnostics {
                    path: display,
                    rendered: msg.clone(),
                    errors: 1,
                });
                continue;
            }
            Loaded::Mlir(f) => *f,
        };
        let result = db::mlir_outputs(db, file);
        if !result.diagnostics.is_empty() {
            out.diagnostics
                .push(render(&display, file.text(db), &result.diagnostics));
        }
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        for (kind, text) in &result.outputs {
            if spec.wants(*kind) {
                out.outputs.push(Output {
                    path: spec.out_dir.join(format!("{stem}.{}", kind.suffix())),
                    kind: *kind,
                    bytes: text.clone().into_bytes(),
                });
            }
        }
    }
    out
}

fn render(path: &str, text: &str, diags: &[Diagnostic]) -> proto::FileDiagnostics {
    proto::FileDiagnostics {
        path: path.to_string(),
        rendered: diag::render_all(diags, path, text),
        errors: diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count() as u32,
    }
}

/// Write every output atomically (only when its bytes change) and describe the result.
pub fn write_outputs(computed: &Computed) -> Result<Vec<proto::OutputFile>, String> {
    computed
        .outputs
        .iter()
        .map(|o| {
            let written = write_atomic(&o.path, &o.bytes)
                .map_err(|e| format!("{}: error: {e}", o.path.display()))?;
            Ok(proto::OutputFile {
                path: o.path.to_string_lossy().into_owned(),
                kind: o.kind.name().to_string(),
                sha256: kiln_cache::hex(&kiln_cache::digest(&o.bytes)),
                written,
            })
        })
        .collect()
}

/// Temp file in the same directory + rename; nothing when the file already holds `bytes`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    if fs::read(path).is_ok_and(|existing| existing == bytes) {
        return Ok(false);
    }
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(
        ".{name}.tmp.{}.{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let mut f = fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    drop(f);
    fs::rename(&tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })?;
    Ok(true)
}

/// A whole build in this process on `ws`: sync, compute, write. The daemon does the same
/// steps, with the compute on a database clone and retries on cancellation.
pub fn build_in_process(ws: &mut Workspace, spec: &BuildSpec) -> proto::BuildReply {
    let start = Instant::now();
    let before = ws.db.counters().snapshot();
    let resolved = ws.sync(spec);
    let computed = compute(&ws.db, spec, &resolved);
    let after = ws.db.counters().snapshot();
    reply(computed, &before, &after, start)
}

/// Assemble the reply: write outputs, attach diagnostics and the counter delta.
pub fn reply(
    computed: Computed,
    before: &counters::Snapshot,
    after: &counters::Snapshot,
    start: Instant,
) -> proto::BuildReply {
    let mut diagnostics = computed.diagnostics.clone();
    let files = match write_outputs(&computed) {
        Ok(f) => f,
        Err(msg) => {
            diagnostics.push(proto::FileDiagnostics {
                path: String::new(),
                rendered: msg,
                errors: 1,
            });
            Vec::new()
        }
    };
    let ok = diagnostics.iter().all(|d| d.errors == 0);
    proto::BuildReply {
        files,
        diagnostics,
        ok,
        counts: to_proto_counts(&counters::diff(before, after)),
        duration_us: start.elapsed().as_micros() as u64,
    }
}

pub fn to_proto_counts(snap: &counters::Snapshot) -> Vec<proto::QueryCount> {
    snap.iter()
        .map(|(k, c)| proto::QueryCount {
            kind: k.to_string(),
            executions: c.executions,
            cache_hits: c.cache_hits,
        })
        .collect()
}
