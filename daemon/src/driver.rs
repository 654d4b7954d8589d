//! From inputs to output files: the one code path shared by the daemon and by in-process
//! (`--no-daemon`) builds, so both produce byte-identical outputs.
//!
//! A [`Workspace`] owns the salsa database and the input handles. [`Workspace::sync`] reads
//! the request's files from disk and updates only the inputs whose text changed;
//! [`compute`] runs the queries on a database (a clone, in the daemon) and returns the
//! output texts; [`write_outputs`] writes them atomically, only when their bytes change.

use crate::counters;
use crate::db::{self, BlifFile, Db, KilnDb, OutputBytes, OutputKind, SourceFile};
use crate::proto;
use compiler::diag::{self, Diagnostic, Severity};
use salsa::{Durability, Setter};
use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// What to build (paths absolute, or relative to the process's directory). Inputs are
/// `.mlir` / `.blif` files, or directories searched recursively for both (their tree is
/// mirrored under `out_dir`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildSpec {
    pub inputs: Vec<PathBuf>,
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
            kinds,
            out_dir: PathBuf::from(&req.out_dir),
        })
    }

    pub fn to_proto(&self) -> proto::BuildRequest {
        let s = |p: &PathBuf| p.to_string_lossy().into_owned();
        proto::BuildRequest {
            inputs: self.inputs.iter().map(s).collect(),
            output_kinds: self.kinds.iter().map(|k| k.name().to_string()).collect(),
            out_dir: s(&self.out_dir),
        }
    }
}

/// One source file of a build and where its outputs go (`<base>.<suffix>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub input: PathBuf,
    pub base: PathBuf,
}

/// Expand directories (recursively, sorted) and name each file's outputs.
pub fn jobs(spec: &BuildSpec) -> Vec<Job> {
    let mut out = Vec::new();
    for input in &spec.inputs {
        if !input.is_dir() {
            let stem = input.file_stem().unwrap_or_default();
            out.push(Job {
                input: input.clone(),
                base: spec.out_dir.join(stem),
            });
            continue;
        }
        let mut found = Vec::new();
        walk(input, &mut found);
        found.sort();
        for f in found {
            let rel = f.strip_prefix(input).unwrap_or(&f).with_extension("");
            out.push(Job {
                base: spec.out_dir.join(rel),
                input: f,
            });
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() {
            walk(&p, out);
        } else if is_blif(&p) || is_mlir(&p) {
            out.push(p);
        }
    }
}

pub fn is_blif(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "blif")
}

pub fn is_mlir(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "mlir")
}

/// An input as read from disk: its database handle, or why it could not be read.
#[derive(Debug, Clone)]
enum Loaded {
    Mlir(SourceFile),
    Blif(BlifFile),
    Unreadable(String),
}

/// What the file looked like when last read; unchanged metadata means unchanged text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    len: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
}

impl Stamp {
    fn of(meta: &fs::Metadata) -> Stamp {
        Stamp {
            len: meta.len(),
            mtime_ns: meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
            ctime_ns: meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
            ino: meta.ino(),
        }
    }
}

/// The database and the handles of every input it has seen.
pub struct Workspace {
    pub db: Db,
    sources: BTreeMap<PathBuf, (SourceFile, Option<Stamp>)>,
    blifs: BTreeMap<PathBuf, (BlifFile, Option<Stamp>)>,
}

/// The inputs of one build, resolved to database handles (valid for any clone of the db).
#[derive(Debug, Clone)]
pub struct Resolved {
    inputs: Vec<(Job, Loaded)>,
}

impl Workspace {
    pub fn new(db: Db) -> Workspace {
        Workspace {
            db,
            sources: BTreeMap::new(),
            blifs: BTreeMap::new(),
        }
    }

    /// Read the spec's inputs from disk (skipping files whose size, times and inode are
    /// unchanged); set the salsa inputs whose text changed.
    pub fn sync(&mut self, spec: &BuildSpec) -> Resolved {
        let inputs = jobs(spec)
            .into_iter()
            .map(|job| {
                let loaded = self.sync_input(&job.input);
                (job, loaded)
            })
            .collect();
        Resolved { inputs }
    }

    fn sync_input(&mut self, path: &Path) -> Loaded {
        let stamp = fs::metadata(path).ok().map(|m| Stamp::of(&m));
        if stamp.is_some() {
            if let Some((f, s)) = self.sources.get(path)
                && *s == stamp
            {
                return Loaded::Mlir(*f);
            }
            if let Some((f, s)) = self.blifs.get(path)
                && *s == stamp
            {
                return Loaded::Blif(*f);
            }
        }
        let text = match read_text(path) {
            Ok(t) => t,
            Err(msg) => return Loaded::Unreadable(msg),
        };
        if is_blif(path) {
            Loaded::Blif(self.sync_blif(path, text, stamp))
        } else {
            Loaded::Mlir(self.sync_mlir(path, text, stamp))
        }
    }

    fn sync_mlir(&mut self, path: &Path, text: String, stamp: Option<Stamp>) -> SourceFile {
        if let Some((f, s)) = self.sources.get_mut(path) {
            *s = stamp;
            let f = *f;
            if f.text(&self.db) != &text {
                f.set_text(&mut self.db).to(text);
            }
            return f;
        }
        let f = SourceFile::new(&self.db, path.to_path_buf(), text);
        self.sources.insert(path.to_path_buf(), (f, stamp));
        f
    }

    fn sync_blif(&mut self, path: &Path, text: String, stamp: Option<Stamp>) -> BlifFile {
        if let Some((f, s)) = self.blifs.get_mut(path) {
            *s = stamp;
            let f = *f;
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
        self.blifs.insert(path.to_path_buf(), (f, stamp));
        f
    }
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
    pub bytes: OutputBytes,
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
    for (job, loaded) in &resolved.inputs {
        let display = job.input.display().to_string();
        let (file_outputs, text) = match loaded {
            Loaded::Unreadable(msg) => {
                out.diagnostics.push(proto::FileDiagnostics {
                    path: display,
                    rendered: msg.clone(),
                    errors: 1,
                });
                continue;
            }
            Loaded::Mlir(f) => (db::mlir_outputs(db, *f), f.text(db)),
            Loaded::Blif(f) => (db::blif_outputs(db, *f), f.text(db)),
        };
        if !file_outputs.diagnostics.is_empty() {
            out.diagnostics
                .push(render(&display, text, &file_outputs.diagnostics));
        }
        let default_kinds: &[OutputKind] = if is_blif(&job.input) {
            &[OutputKind::Aig]
        } else {
            &[OutputKind::Cmt2, OutputKind::RulesJson]
        };
        for (kind, bytes) in &file_outputs.outputs {
            let kind = *kind;
            let wanted = if spec.kinds.is_empty() {
                default_kinds.contains(&kind)
            } else {
                spec.kinds.contains(&kind)
            };
            if wanted {
                let mut name = job.base.clone().into_os_string();
                name.push(format!(".{}", kind.suffix()));
                out.outputs.push(Output {
                    path: PathBuf::from(name),
                    kind,
                    bytes: bytes.clone(),
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

/// What this process last wrote to each output path: the bytes' digest and the file's
/// stamp just after writing. An output whose digest and on-disk stamp are unchanged is not
/// re-read (it cannot differ unless someone else wrote the file, which changes its stamp).
#[derive(Debug, Default)]
pub struct OutputLog(std::sync::Mutex<BTreeMap<PathBuf, ([u8; 32], Stamp)>>);

impl OutputLog {
    fn unchanged(&self, path: &Path, sha256: &[u8; 32]) -> bool {
        let log = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let Some((digest, stamp)) = log.get(path) else {
            return false;
        };
        digest == sha256 && fs::metadata(path).is_ok_and(|m| Stamp::of(&m) == *stamp)
    }

    fn record(&self, path: &Path, sha256: [u8; 32]) {
        if let Ok(m) = fs::metadata(path) {
            let mut log = self.0.lock().unwrap_or_else(|e| e.into_inner());
            log.insert(path.to_path_buf(), (sha256, Stamp::of(&m)));
        }
    }
}

/// Write every output atomically (only when its bytes change) and describe the result.
pub fn write_outputs(
    computed: &Computed,
    log: &OutputLog,
) -> Result<Vec<proto::OutputFile>, String> {
    computed
        .outputs
        .iter()
        .map(|o| {
            let sha = o.bytes.sha256;
            let written = if log.unchanged(&o.path, &sha) {
                false
            } else {
                let w = write_atomic(&o.path, &o.bytes.bytes)
                    .map_err(|e| format!("{}: error: {e}", o.path.display()))?;
                log.record(&o.path, sha);
                w
            };
            Ok(proto::OutputFile {
                path: o.path.to_string_lossy().into_owned(),
                kind: o.kind.name().to_string(),
                sha256: kiln_cache::hex(&sha),
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
    reply(computed, &ws.db.runtime().written, &before, &after, start)
}

/// Assemble the reply: write outputs, attach diagnostics and the counter delta.
pub fn reply(
    computed: Computed,
    log: &OutputLog,
    before: &counters::Snapshot,
    after: &counters::Snapshot,
    start: Instant,
) -> proto::BuildReply {
    let mut diagnostics = computed.diagnostics.clone();
    let files = match write_outputs(&computed, log) {
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
