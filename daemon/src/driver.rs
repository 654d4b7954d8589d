//! From inputs to output files: the one code path shared by the daemon and by in-process
//! (`--no-daemon`) builds, so both produce byte-identical outputs.
//!
//! A [`Workspace`] owns the salsa database and the input handles. [`Workspace::sync`] reads
//! the request's files from disk and updates only the inputs whose text changed;
//! [`compute`] runs the queries on a database (a clone, in the daemon) and returns the
//! output texts; [`write_outputs`] writes them atomically, only when their bytes change.

use crate::counters;
use crate::db::{
    self, BlifFile, Db, Flow, HandshakeJob, HandshakeOpts, KilnDb, OutputBytes, OutputKind,
    SourceFile, UnitSource,
};
use crate::proto;
use compiler::diag::{self, Severity};
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
    pub handshake: HandshakeSpec,
}

/// Options for Handshake inputs (absolute paths).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandshakeSpec {
    pub blif_lib: Option<PathBuf>,
    pub path_table: Option<PathBuf>,
    pub dialect: compiler::handshake::Dialect,
    pub naming: compiler::handshake::Naming,
}

impl HandshakeSpec {
    fn from_proto(req: &proto::BuildRequest) -> Result<HandshakeSpec, String> {
        use compiler::handshake::{Dialect, Naming};
        let path = |s: &str| (!s.is_empty()).then(|| PathBuf::from(s));
        let dialect = match req.synth_dialect.as_str() {
            "" | "circt" => Dialect::Circt,
            "dynamatic" => Dialect::Dynamatic,
            d => return Err(format!("unknown synth dialect `{d}`")),
        };
        let naming = match req.naming.as_str() {
            "" | "arg-names" => Naming::ArgNames,
            "in-out" => Naming::InOut,
            n => return Err(format!("unknown naming `{n}`")),
        };
        Ok(HandshakeSpec {
            blif_lib: path(&req.blif_lib),
            path_table: path(&req.path_table),
            dialect,
            naming,
        })
    }

    fn fill_proto(&self, req: &mut proto::BuildRequest) {
        use compiler::handshake::{Dialect, Naming};
        let s = |p: &Option<PathBuf>| {
            p.as_ref()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        req.blif_lib = s(&self.blif_lib);
        req.path_table = s(&self.path_table);
        req.synth_dialect = match self.dialect {
            Dialect::Circt => "circt",
            Dialect::Dynamatic => "dynamatic",
        }
        .into();
        req.naming = match self.naming {
            Naming::ArgNames => "arg-names",
            Naming::InOut => "in-out",
        }
        .into();
    }
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
            handshake: HandshakeSpec::from_proto(req)?,
        })
    }

    pub fn to_proto(&self) -> proto::BuildRequest {
        let s = |p: &PathBuf| p.to_string_lossy().into_owned();
        let mut req = proto::BuildRequest {
            inputs: self.inputs.iter().map(s).collect(),
            output_kinds: self.kinds.iter().map(|k| k.name().to_string()).collect(),
            out_dir: s(&self.out_dir),
            ..Default::default()
        };
        self.handshake.fill_proto(&mut req);
        req
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
    Handshake(HandshakeJob),
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
    handshake_jobs: BTreeMap<PathBuf, HandshakeJob>,
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
            handshake_jobs: BTreeMap::new(),
        }
    }

    /// Read the spec's inputs from disk (skipping files whose size, times and inode are
    /// unchanged); set the salsa inputs whose text changed.
    pub fn sync(&mut self, spec: &BuildSpec) -> Resolved {
        let inputs = jobs(spec)
            .into_iter()
            .map(|job| {
                let loaded = match self.sync_input(&job.input) {
                    Loaded::Mlir(f) if *db::mlir_flow(&self.db, f) == Flow::Handshake => {
                        Loaded::Handshake(self.sync_handshake(&job.input, f, &spec.handshake))
                    }
                    other => other,
                };
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

impl Workspace {
    /// The Handshake job of `path`: options (with the path table read), then the library
    /// files the circuit's marks name, read (or skipped by stamp) like any input.
    fn sync_handshake(
        &mut self,
        path: &Path,
        file: SourceFile,
        spec: &HandshakeSpec,
    ) -> HandshakeJob {
        let opts = HandshakeOpts {
            lib_dir: spec.blif_lib.clone(),
            path_table: spec
                .path_table
                .as_ref()
                .map(|p| (p.clone(), fs::read_to_string(p).unwrap_or_default())),
            dialect: spec.dialect,
            naming: spec.naming,
        };
        let job = match self.handshake_jobs.get(path) {
            Some(j) => *j,
            None => {
                let j = HandshakeJob::new(&self.db, file, opts.clone(), BTreeMap::new());
                self.handshake_jobs.insert(path.to_path_buf(), j);
                j
            }
        };
        if *job.file(&self.db) != file {
            job.set_file(&mut self.db).to(file);
        }
        if job.opts(&self.db) != &opts {
            job.set_opts(&mut self.db).to(opts.clone());
        }
        let paths = match (db::handshake_front(&self.db, job), &opts.lib_dir) {
            (Ok(front), Some(_)) => front.library_paths.clone(),
            _ => Vec::new(),
        };
        let mut units = BTreeMap::new();
        for rel in paths {
            let Some(dir) = &opts.lib_dir else { break };
            let full = dir.join(&rel);
            if !full.is_file() {
                continue;
            }
            match self.sync_input(&full) {
                Loaded::Blif(f) => units.insert(rel, UnitSource::File(f)),
                _ => units.insert(rel, UnitSource::NotUtf8),
            };
        }
        if job.units(&self.db) != &units {
            job.set_units(&mut self.db).to(units);
        }
        job
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
            Loaded::Mlir(f) => (mlir_file_outputs(db, spec, *f), f.text(db)),
            Loaded::Handshake(j) => (handshake_file_outputs(db, spec, *j), j.file(db).text(db)),
            Loaded::Blif(f) => (db::blif_outputs(db, *f).clone(), f.text(db)),
        };
        if !file_outputs.diagnostics.is_empty() || !file_outputs.rendered.is_empty() {
            out.diagnostics.push(render(&display, text, &file_outputs));
        }
        let default_kinds: &[OutputKind] = match loaded {
            Loaded::Blif(_) => &[OutputKind::Aig],
            Loaded::Handshake(_) => &[
                OutputKind::SynthMlir,
                OutputKind::Aig,
                OutputKind::FlatBlif,
                OutputKind::HierBlif,
            ],
            _ => &[OutputKind::Cmt2, OutputKind::RulesJson],
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

/// An MLIR file's outputs by flow: APS (plus `<stem>.sv` when asked for), or the error
/// of a file no flow accepts.
fn mlir_file_outputs(db: &Db, spec: &BuildSpec, f: SourceFile) -> db::FileOutputs {
    // Handshake files arrive as `Loaded::Handshake` jobs (see `Workspace::sync`).
    if *db::mlir_flow(db, f) != Flow::Aps {
        return db::unknown_flow_outputs(db, f).clone();
    }
    let mut outs = db::mlir_outputs(db, f).clone();
    if !spec.kinds.contains(&OutputKind::Sv) || !outs.diagnostics.is_empty() {
        return outs;
    }
    match db::mlir_sv(db, f) {
        Ok(sv) => outs.outputs.push((OutputKind::Sv, sv.clone())),
        Err(d) => {
            outs.outputs.clear();
            outs.diagnostics.push(d.clone());
        }
    }
    outs
}

fn handshake_file_outputs(db: &Db, spec: &BuildSpec, job: HandshakeJob) -> db::FileOutputs {
    if spec.kinds.contains(&OutputKind::Sv) {
        let msg = format!(
            "{}: error: --emit sv applies to APS designs only\n",
            job.file(db).path(db).display()
        );
        return db::FileOutputs {
            rendered: vec![(msg, true)],
            ..Default::default()
        };
    }
    db::handshake_outputs(db, job).clone()
}

/// A file's messages as one block: warnings about other files, then the file's own
/// diagnostics (with source lines), then errors about other files.
fn render(path: &str, text: &str, outs: &db::FileOutputs) -> proto::FileDiagnostics {
    let diags = &outs.diagnostics;
    let mut rendered = String::new();
    for (r, _) in outs.rendered.iter().filter(|(_, e)| !e) {
        rendered.push_str(r);
        if !r.ends_with('\n') {
            rendered.push('\n');
        }
    }
    rendered.push_str(&diag::render_all(diags, path, text));
    for (r, _) in outs.rendered.iter().filter(|(_, e)| *e) {
        rendered.push_str(r);
    }
    let errors = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count()
        + outs.rendered.iter().filter(|(_, e)| *e).count();
    proto::FileDiagnostics {
        path: path.to_string(),
        rendered,
        errors: errors as u32,
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
