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
    SourceFile, TextEdit, UnitSource,
};
use crate::marks::RootMarks;
use crate::proto;
use crate::split;
use compiler::diag::{self, Severity};
use salsa::{Durability, Setter};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
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
    /// Known SHA-256 digests of input files (see [`crate::digests`]).
    pub input_digests: crate::digests::Given,
    /// Fill in each output's SHA-256 in the reply (hashing costs time on big outputs).
    pub digests: bool,
    /// List only the files this build wrote (the reply counts the others).
    pub changed_only: bool,
    /// Prepare spares for large outputs written for the first time (see
    /// [`crate::spare::prepare`]).
    pub spares_ahead: bool,
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
            input_digests: crate::digests::from_proto(req)?,
            digests: req.digests,
            changed_only: req.changed_only,
            spares_ahead: req.spares_ahead,
        })
    }

    pub fn to_proto(&self) -> proto::BuildRequest {
        let s = |p: &PathBuf| p.to_string_lossy().into_owned();
        let mut req = proto::BuildRequest {
            inputs: self.inputs.iter().map(s).collect(),
            output_kinds: self.kinds.iter().map(|k| k.name().to_string()).collect(),
            out_dir: s(&self.out_dir),
            digests: self.digests,
            changed_only: self.changed_only,
            spares_ahead: self.spares_ahead,
            ..Default::default()
        };
        self.handshake.fill_proto(&mut req);
        req.input_digests = crate::digests::to_proto(&self.input_digests);
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
        if input.is_dir() {
            out.extend(dir_jobs(input, &spec.out_dir));
        } else {
            out.push(file_job(input, &spec.out_dir));
        }
    }
    out
}

fn file_job(input: &Path, out_dir: &Path) -> Job {
    let stem = input.file_stem().unwrap_or_default();
    Job {
        input: input.to_path_buf(),
        base: out_dir.join(stem),
    }
}

/// The jobs of the `.mlir`/`.blif` files below `dir`, sorted by input path, with the tree
/// mirrored under `out_dir`.
fn dir_jobs(dir: &Path, out_dir: &Path) -> Vec<Job> {
    let mut found = Vec::new();
    walk(dir, &mut found);
    found.sort();
    found
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(dir).unwrap_or(&f).with_extension("");
            Job {
                base: out_dir.join(rel),
                input: f,
            }
        })
        .collect()
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

/// An input as read from disk: its database handle, or why it could not be read. Source
/// and BLIF files carry the generation of their text (see [`Workspace`]): equal handles
/// with equal generations have equal texts, so the last build's results of the file can be
/// reused without asking the database (see [`ComputeMemo`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Loaded {
    Mlir(SourceFile, u64),
    Handshake(HandshakeJob),
    Blif(BlifFile, u64),
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
    /// Change marks of watched directories (in the daemon); `None`: stat everything.
    marks: Option<crate::marks::Marks>,
    /// The resolved jobs of each (input directory, output directory) at the last build.
    dirs: BTreeMap<(PathBuf, PathBuf), Arc<Vec<JobInput>>>,
    sources: BTreeMap<PathBuf, (SourceFile, Option<Stamp>, u64)>,
    blifs: BTreeMap<PathBuf, (BlifFile, Option<Stamp>, u64)>,
    handshake_jobs: BTreeMap<PathBuf, HandshakeJob>,
    digests: crate::digests::Digests,
    /// The last text generation handed out: every text set on an input gets a new one.
    generation: u64,
    /// The buffer of the source text last replaced (salsa hands it back): the next source
    /// read goes into memory that is already mapped, instead of a fresh allocation.
    recycled: Vec<u8>,
}

/// A job with its input's database handle.
type JobInput = (Job, Loaded);

/// The inputs of one build, resolved to database handles (valid for any clone of the db).
#[derive(Debug, Clone)]
pub struct Resolved {
    pub(crate) inputs: Vec<Arc<Vec<(Job, Loaded)>>>,
    /// What may have changed in the output directory since the last build.
    output_marks: RootMarks,
}

impl Workspace {
    pub fn new(db: Db) -> Workspace {
        Workspace {
            db,
            sources: BTreeMap::new(),
            blifs: BTreeMap::new(),
            handshake_jobs: BTreeMap::new(),
            generation: 0,
            marks: None,
            dirs: BTreeMap::new(),
            digests: Default::default(),
            recycled: Vec::new(),
        }
    }

    /// Use the file watcher's change marks for input and output directories (see
    /// [`crate::marks`]), so that builds of big directories stat only what changed.
    pub fn watch_directories(&mut self) {
        self.marks = crate::marks::Marks::new();
    }

    /// Read the spec's inputs from disk (skipping files whose size, times and inode are
    /// unchanged); set the salsa inputs whose text changed.
    pub fn sync(&mut self, spec: &BuildSpec) -> Resolved {
        self.digests.begin(&spec.input_digests);
        let mut inputs = Vec::with_capacity(spec.inputs.len());
        for input in &spec.inputs {
            if input.is_dir() {
                inputs.push(self.sync_dir(input, spec));
            } else {
                let job = file_job(input, &spec.out_dir);
                let loaded = self.load(&job.input, spec);
                inputs.push(Arc::new(vec![(job, loaded)]));
            }
        }
        let output_marks = self.take_marks(&spec.out_dir);
        Resolved {
            inputs,
            output_marks,
        }
    }

    fn take_marks(&mut self, root: &Path) -> RootMarks {
        self.marks
            .as_mut()
            .map_or(RootMarks::Unknown, |m| m.take(root))
    }

    /// An input file's database handle (a Handshake file becomes its job).
    fn load(&mut self, path: &Path, spec: &BuildSpec) -> Loaded {
        match self.sync_input(path) {
            Loaded::Mlir(f, _) if *db::mlir_flow(&self.db, f) == Flow::Handshake => {
                Loaded::Handshake(self.sync_handshake(path, f, &spec.handshake))
            }
            other => other,
        }
    }

    /// The jobs of an input directory: the last build's, with only the files the watcher
    /// marked re-read; or, without trustworthy marks, every file walked and stat'ed.
    fn sync_dir(&mut self, dir: &Path, spec: &BuildSpec) -> Arc<Vec<(Job, Loaded)>> {
        let key = (dir.to_path_buf(), spec.out_dir.clone());
        let marks = self.take_marks(dir);
        if let (RootMarks::Changed(changed), Some(last)) = (&marks, self.dirs.get(&key)) {
            let last = last.clone();
            if changed.is_empty() {
                return last;
            }
            self.db.counters().executed("dir_resync");
            if let Some(v) = self.resync_marked(&last, changed, spec) {
                let v = Arc::new(v);
                self.dirs.insert(key, v.clone());
                return v;
            }
        }
        self.db.counters().executed("dir_scan");
        let jobs = dir_jobs(dir, &spec.out_dir);
        let v: Vec<(Job, Loaded)> = jobs
            .into_iter()
            .map(|job| {
                let loaded = self.load(&job.input, spec);
                (job, loaded)
            })
            .collect();
        let v = Arc::new(v);
        self.dirs.insert(key, v.clone());
        v
    }

    /// `last` with the marked files re-read; `None` when the set of files may have changed
    /// (a marked input file is gone, or a marked path is a new input file or a directory).
    fn resync_marked(
        &mut self,
        last: &[(Job, Loaded)],
        changed: &BTreeSet<PathBuf>,
        spec: &BuildSpec,
    ) -> Option<Vec<(Job, Loaded)>> {
        let mut v = last.to_vec();
        for p in changed {
            match v.binary_search_by(|(j, _)| j.input.as_path().cmp(p)) {
                Ok(i) => {
                    if !p.is_file() {
                        return None;
                    }
                    v[i].1 = self.load(p, spec);
                }
                Err(_) => {
                    let gone_dir = !p.exists() && p.extension().is_none();
                    if is_blif(p) || is_mlir(p) || p.is_dir() || gone_dir {
                        return None;
                    }
                }
            }
        }
        Some(v)
    }

    fn sync_input(&mut self, path: &Path) -> Loaded {
        if let Some(loaded) = self.by_digest(path) {
            return loaded;
        }
        let stamp = fs::metadata(path).ok().map(|m| Stamp::of(&m));
        // A given digest not verified yet overrides the stamp: the file is read and checked.
        if stamp.is_some() && !self.digests.is_given(path) {
            if let Some((f, s, g)) = self.sources.get(path)
                && *s == stamp
            {
                return Loaded::Mlir(*f, *g);
            }
            if let Some((f, s, g)) = self.blifs.get(path)
                && *s == stamp
            {
                return Loaded::Blif(*f, *g);
            }
        }
        if let Some(&(f, _, g)) = self.sources.get(path) {
            return self.resync_source(path, f, g, stamp);
        }
        let text = match read_text(path) {
            Ok(t) => t,
            Err(msg) => return Loaded::Unreadable(msg),
        };
        if let Err(msg) = self.digests.check(path, text.as_bytes()) {
            return Loaded::Unreadable(msg);
        }
        if is_blif(path) {
            let (f, g) = self.sync_blif(path, text, stamp);
            Loaded::Blif(f, g)
        } else {
            let (f, g) = self.sync_mlir(path, text, stamp);
            Loaded::Mlir(f, g)
        }
    }

    /// The handle of a file whose given digest was verified by an earlier read: no stat, no
    /// read.
    fn by_digest(&mut self, path: &Path) -> Option<Loaded> {
        if !self.digests.is_known(path) {
            return None;
        }
        let loaded = match (self.sources.get(path), self.blifs.get(path)) {
            (Some((f, _, g)), _) => Loaded::Mlir(*f, *g),
            (None, Some((f, _, g))) => Loaded::Blif(*f, *g),
            (None, None) => return None,
        };
        self.db.counters().executed("input_digest_reused");
        Some(loaded)
    }

    fn next_generation(&mut self) -> u64 {
        self.generation += 1;
        self.generation
    }

    /// A source file seen for the first time.
    fn sync_mlir(&mut self, path: &Path, text: String, stamp: Option<Stamp>) -> (SourceFile, u64) {
        let g = self.next_generation();
        let edit = TextEdit {
            generation: g,
            since: None,
        };
        let f = SourceFile::new(&self.db, path.to_path_buf(), text, edit);
        self.sources.insert(path.to_path_buf(), (f, stamp, g));
        (f, g)
    }

    /// A known source file read again (its stamp changed, or it was marked). An edit of a
    /// large file touches a few bytes of it, so the work here is kept to one read and one
    /// comparison: the file goes into the recycled buffer, is compared with the current
    /// text at both ends ([`split::Common`], handed on to the re-split with the text, see
    /// [`db::mlir_split`]), and only the bytes between the common ends are checked as
    /// UTF-8 — the rest equals the current text, which is valid.
    fn resync_source(
        &mut self,
        path: &Path,
        f: SourceFile,
        g: u64,
        stamp: Option<Stamp>,
    ) -> Loaded {
        let mut bytes = std::mem::take(&mut self.recycled);
        bytes.clear();
        let read = crate::input::read_into(path, &mut bytes, crate::input::limits().max_input_size);
        if let Err(e) = read {
            return Loaded::Unreadable(format!("{}: error: {e}\n", path.display()));
        }
        if let Err(msg) = self.digests.check(path, &bytes) {
            return Loaded::Unreadable(msg);
        }
        let old = f.text(&self.db);
        let common = split::Common::of(old.as_bytes(), &bytes);
        if common.prefix == bytes.len() && bytes.len() == old.len() {
            self.recycled = bytes;
            self.sources.insert(path.to_path_buf(), (f, stamp, g));
            return Loaded::Mlir(f, g);
        }
        let text = match text_around(old, bytes, common) {
            Ok(text) => text,
            Err(bytes) => return Loaded::Unreadable(utf8_error(path, bytes)),
        };
        let generation = self.next_generation();
        let edit = TextEdit {
            generation,
            since: Some((g, common)),
        };
        self.recycled = f.set_text(&mut self.db).to(text).into_bytes();
        f.set_edit(&mut self.db).to(edit);
        self.sources
            .insert(path.to_path_buf(), (f, stamp, generation));
        Loaded::Mlir(f, generation)
    }

    fn sync_blif(&mut self, path: &Path, text: String, stamp: Option<Stamp>) -> (BlifFile, u64) {
        if let Some(&(f, _, g)) = self.blifs.get(path) {
            let mut g = g;
            if f.text(&self.db) != &text {
                f.set_text(&mut self.db)
                    .with_durability(Durability::HIGH)
                    .to(text);
                g = self.next_generation();
            }
            self.blifs.insert(path.to_path_buf(), (f, stamp, g));
            return (f, g);
        }
        let f = BlifFile::builder(path.to_path_buf(), text)
            .durability(Durability::HIGH)
            .new(&self.db);
        let g = self.next_generation();
        self.blifs.insert(path.to_path_buf(), (f, stamp, g));
        (f, g)
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
            path_table: spec.path_table.as_ref().map(|p| {
                let text = crate::input::read(p)
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok());
                (p.clone(), text.unwrap_or_default())
            }),
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
                Loaded::Blif(f, _) => units.insert(rel, UnitSource::File(f)),
                _ => units.insert(rel, UnitSource::NotUtf8),
            };
        }
        if job.units(&self.db) != &units {
            job.set_units(&mut self.db).to(units);
        }
        job
    }
}

/// The file as text (validated once: inputs can be large), or its located UTF-8 error.
fn read_text(path: &Path) -> Result<String, String> {
    let bytes =
        crate::input::read(path).map_err(|e| format!("{}: error: {e}\n", path.display()))?;
    String::from_utf8(bytes).map_err(|e| utf8_error(path, e.into_bytes()))
}

/// The located error of a file that is not UTF-8.
fn utf8_error(path: &Path, bytes: Vec<u8>) -> String {
    match diag::decode_utf8(&bytes) {
        Err(d) => d.render(
            &path.display().to_string(),
            &String::from_utf8_lossy(&bytes),
        ),
        Ok(_) => format!("{}: error: invalid UTF-8\n", path.display()),
    }
}

/// `new` as text, given that it shares `common` with the valid text `old`: only the bytes
/// between the shared ends (widened to `old`'s character boundaries) are checked. `new`
/// back when it is not UTF-8.
fn text_around(old: &str, new: Vec<u8>, common: split::Common) -> Result<String, Vec<u8>> {
    let p = common.prefix.min(old.len()).min(new.len());
    let q = common.suffix.min(old.len() - p).min(new.len() - p);
    // `new[..start]` equals `old[..start]`, a string; likewise the tail from `end` on.
    let start = (0..=p)
        .rev()
        .find(|&k| old.is_char_boundary(k))
        .unwrap_or(0);
    let old_end = (old.len() - q..=old.len())
        .find(|&k| old.is_char_boundary(k))
        .unwrap_or(old.len());
    let end = new.len() - (old.len() - old_end);
    if std::str::from_utf8(&new[start..end]).is_err() {
        return Err(new);
    }
    // SAFETY: `new` is three strings end to end: `new[..start]` (equal to a prefix of
    // `old` ending at a character boundary), `new[start..end]` (checked just above) and
    // `new[end..]` (equal to a suffix of `old` starting at a character boundary). A
    // concatenation of valid UTF-8 strings is valid UTF-8.
    Ok(unsafe { String::from_utf8_unchecked(new) })
}

/// One output file to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub path: PathBuf,
    pub kind: OutputKind,
    pub bytes: OutputBytes,
}

/// What one job (input file) produces: its outputs and its rendered diagnostics.
#[derive(Debug, Default)]
pub struct JobResult {
    pub outputs: Vec<Output>,
    pub diagnostics: Option<proto::FileDiagnostics>,
    /// Every output is on disk as this process last wrote or checked it, and nothing this
    /// process wrote since replaced one (see [`OutputLog`]): a later build that hands back
    /// this same result skips its outputs unless the watcher marked their paths.
    on_disk: std::sync::atomic::AtomicBool,
}

/// The results of one entry of `BuildSpec::inputs` (a file, or a directory's files).
pub type GroupResults = Arc<Vec<Arc<JobResult>>>;

/// The outputs and rendered diagnostics of a build, by input entry and job.
#[derive(Debug, Clone, Default)]
pub struct Computed {
    pub groups: Vec<GroupResults>,
    /// What may have changed in the output directory since the last build.
    pub output_marks: RootMarks,
}

impl Computed {
    pub fn outputs(&self) -> impl Iterator<Item = &Output> {
        self.groups
            .iter()
            .flat_map(|g| g.iter())
            .flat_map(|r| r.outputs.iter())
    }

    pub fn diagnostics(&self) -> impl Iterator<Item = &proto::FileDiagnostics> {
        self.groups
            .iter()
            .flat_map(|g| g.iter())
            .filter_map(|r| r.diagnostics.as_ref())
    }
}

/// The last results of each (build spec, input entry): a build whose entry resolves to
/// the same jobs reuses them whole (a no-op is O(1) per entry), and one whose entry
/// changed reuses the result of every source or BLIF job whose handle and text
/// generation are unchanged, so a one-file edit in a library of thousands of files asks
/// the database about one file. Valid because such a job's outputs are a function of its
/// text and the spec alone (Handshake jobs also read library files: never reused).
#[derive(Debug, Default)]
pub struct ComputeMemo {
    last: std::sync::Mutex<Vec<MemoEntry>>,
}

#[derive(Debug)]
struct MemoEntry {
    spec: BuildSpec,
    groups: Vec<(Arc<Vec<JobInput>>, GroupResults)>,
}

/// Specs remembered (most recent first); older ones are recomputed through the database.
const MEMO_SPECS: usize = 8;

impl ComputeMemo {
    fn lookup(&self, spec: &BuildSpec) -> Vec<(Arc<Vec<JobInput>>, GroupResults)> {
        let last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        last.iter()
            .find(|e| same_outputs(&e.spec, spec))
            .map(|e| e.groups.clone())
            .unwrap_or_default()
    }

    fn store(&self, spec: &BuildSpec, groups: Vec<(Arc<Vec<JobInput>>, GroupResults)>) {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        last.retain(|e| !same_outputs(&e.spec, spec));
        last.insert(
            0,
            MemoEntry {
                spec: spec.clone(),
                groups,
            },
        );
        last.truncate(MEMO_SPECS);
    }
}

/// Whether two specs compute the same results (reply options aside).
fn same_outputs(a: &BuildSpec, b: &BuildSpec) -> bool {
    a.inputs == b.inputs
        && a.kinds == b.kinds
        && a.out_dir == b.out_dir
        && a.handshake == b.handshake
}

/// Run the queries for every input. Pure with respect to the filesystem; may unwind with
/// `salsa::Cancelled` when another thread writes an input.
pub fn compute(db: &Db, spec: &BuildSpec, resolved: &Resolved) -> Computed {
    crate::prewarm::prewarm(db, resolved);
    let memo = &db.runtime().computed;
    let last = memo.lookup(spec);
    let mut groups = Vec::with_capacity(resolved.inputs.len());
    for (g, jobs) in resolved.inputs.iter().enumerate() {
        let last = last.get(g);
        // A Handshake job also reads library files, which may have changed although the
        // entry's own files did not.
        let handshake = || jobs.iter().any(|(_, l)| matches!(l, Loaded::Handshake(_)));
        let results = match last {
            Some((lj, lr)) if Arc::ptr_eq(lj, jobs) && !handshake() => lr.clone(),
            _ => Arc::new(
                jobs.iter()
                    .enumerate()
                    .map(|(i, (job, loaded))| {
                        let reusable = matches!(loaded, Loaded::Mlir(..) | Loaded::Blif(..));
                        if let Some((lj, lr)) = last
                            && reusable
                            && lj.get(i).is_some_and(|(j, l)| j == job && l == loaded)
                        {
                            return lr[i].clone();
                        }
                        Arc::new(job_result(db, spec, job, loaded))
                    })
                    .collect(),
            ),
        };
        groups.push(results);
    }
    let stored = resolved.inputs.iter().cloned().zip(groups.iter().cloned());
    memo.store(spec, stored.collect());
    Computed {
        groups,
        output_marks: resolved.output_marks.clone(),
    }
}

/// One job through the database.
fn job_result(db: &Db, spec: &BuildSpec, job: &Job, loaded: &Loaded) -> JobResult {
    let display = job.input.display().to_string();
    let (file_outputs, text) = match loaded {
        Loaded::Unreadable(msg) => {
            return JobResult {
                diagnostics: Some(proto::FileDiagnostics {
                    path: display,
                    rendered: msg.clone(),
                    errors: 1,
                }),
                ..JobResult::default()
            };
        }
        Loaded::Mlir(f, _) => (mlir_file_outputs(db, spec, *f), f.text(db)),
        Loaded::Handshake(j) => (handshake_file_outputs(db, spec, *j), j.file(db).text(db)),
        Loaded::Blif(f, _) => (db::blif_outputs(db, *f).clone(), f.text(db)),
    };
    let mut out = JobResult::default();
    if !file_outputs.diagnostics.is_empty() || !file_outputs.rendered.is_empty() {
        out.diagnostics = Some(render(&display, text, &file_outputs));
    }
    let default_kinds: &[OutputKind] = match loaded {
        Loaded::Blif(..) => &[OutputKind::Aig],
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
    out
}

/// An MLIR file's outputs by flow: APS (plus `<stem>.sv` when asked for), or the error
/// of a file no flow accepts.
fn mlir_file_outputs(db: &Db, spec: &BuildSpec, f: SourceFile) -> db::FileOutputs {
    // Handshake files arrive as `Loaded::Handshake` jobs (see `Workspace::sync`).
    if *db::mlir_flow(db, f) != Flow::Aps {
        return db::unknown_flow_outputs(db, f).clone();
    }
    let mut outs = db::aps_outputs(db, f);
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

/// What this process knows of each output path: the bytes it last wrote there (shared
/// parts) with the file's stamp just after the write, and, for clients that ask for
/// digests, the SHA-256 state of the parts it last hashed (midstates at every part
/// boundary, so that an edit re-hashes only from the first changed part). Change detection
/// needs no digest: an output whose parts are those last written (the same shared parts, or
/// equal bytes part by part) and whose file is unchanged since is neither rewritten nor
/// re-read (it cannot differ unless someone else wrote the file, which changes its stamp).
#[derive(Debug, Default)]
pub struct OutputLog {
    hashed: std::sync::Mutex<BTreeMap<PathBuf, Hashed>>,
    written: std::sync::Mutex<std::collections::HashMap<PathBuf, Logged>>,
    spares: crate::spare::SpareLog,
}

/// An output as last written or checked, and the job result it was checked for.
#[derive(Debug)]
struct Logged {
    bytes: OutputBytes,
    stamp: Stamp,
    owner: std::sync::Weak<JobResult>,
}

#[derive(Debug)]
struct Hashed {
    parts: std::sync::Arc<Vec<std::sync::Arc<[u8]>>>,
    /// `mids[i]`: the hasher state after parts `0..i`.
    mids: Vec<Sha256>,
    sha256: [u8; 32],
}

/// Whether `a` and `b` hold the same bytes: compared part by part (shared parts without a
/// byte compare) when their parts have the same lengths, else as whole texts.
fn same_bytes(a: &OutputBytes, b: &OutputBytes) -> bool {
    if Arc::ptr_eq(&a.parts, &b.parts) {
        return true;
    }
    let aligned = a.parts.len() == b.parts.len()
        && a.parts
            .iter()
            .zip(b.parts.iter())
            .all(|(x, y)| x.len() == y.len());
    if aligned {
        return a == b;
    }
    a.len() == b.len() && a.to_vec() == b.to_vec()
}

/// Index of the first part that differs (shared parts are equal without a byte compare).
pub(crate) fn first_change(old: &[std::sync::Arc<[u8]>], new: &[std::sync::Arc<[u8]>]) -> usize {
    old.iter()
        .zip(new)
        .position(|(a, b)| !(std::sync::Arc::ptr_eq(a, b) || a == b))
        .unwrap_or(old.len().min(new.len()))
}

impl OutputLog {
    /// The spares of large outputs (see [`crate::spare`]).
    pub fn spares(&self) -> &crate::spare::SpareLog {
        &self.spares
    }

    /// SHA-256 of `bytes`, resuming from the state before the first part that changed since
    /// the last call for `path`.
    fn digest(&self, path: &Path, bytes: &OutputBytes) -> [u8; 32] {
        let lock = || self.hashed.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = lock().get(path)
            && std::sync::Arc::ptr_eq(&h.parts, &bytes.parts)
        {
            return h.sha256;
        }
        let last = lock().remove(path);
        let (start, mut hasher, mut mids) = match last {
            Some(mut h) => {
                let same = std::sync::Arc::ptr_eq(&h.parts, &bytes.parts);
                let k = if same {
                    h.parts.len()
                } else {
                    first_change(&h.parts, &bytes.parts)
                };
                if k == h.parts.len() && k == bytes.parts.len() {
                    let sha = h.sha256;
                    h.parts = bytes.parts.clone();
                    lock().insert(path.to_path_buf(), h);
                    return sha;
                }
                let state = h.mids.get(k).cloned().unwrap_or_default();
                h.mids.truncate(k);
                (k, state, h.mids)
            }
            None => (0, Sha256::default(), Vec::new()),
        };
        for part in &bytes.parts[start..] {
            mids.push(hasher.clone());
            hasher.update(part);
        }
        let sha256: [u8; 32] = hasher.finalize().into();
        let hashed = Hashed {
            parts: bytes.parts.clone(),
            mids,
            sha256,
        };
        lock().insert(path.to_path_buf(), hashed);
        sha256
    }

    /// The bytes the file at `path` is known to hold (`None`: not written by us, or
    /// changed since). `unmarked`: the watcher saw no change of `path` since the last
    /// build, so its stamp need not be checked.
    fn known(&self, path: &Path, unmarked: bool) -> Option<OutputBytes> {
        let (last, stamp) = {
            let log = self.written.lock().unwrap_or_else(|e| e.into_inner());
            let l = log.get(path)?;
            (l.bytes.clone(), l.stamp)
        };
        if !unmarked {
            let meta = fs::metadata(path).ok()?;
            if Stamp::of(&meta) != stamp {
                return None;
            }
        }
        Some(last)
    }

    /// `path` now holds `bytes`: the result that last held it there is no longer on disk.
    fn record(&self, path: &Path, bytes: &OutputBytes) {
        let stamp = fs::metadata(path).ok().map(|m| Stamp::of(&m));
        let mut log = self.written.lock().unwrap_or_else(|e| e.into_inner());
        let Some(stamp) = stamp else {
            if let Some(old) = log.remove(path) {
                old.disown();
            }
            return;
        };
        let new = Logged {
            bytes: bytes.clone(),
            stamp,
            owner: std::sync::Weak::new(),
        };
        if let Some(old) = log.insert(path.to_path_buf(), new) {
            old.disown();
        }
    }

    /// After every output of `result` was written or found on disk: mark it on disk,
    /// unless another build of this process replaced one of its files meanwhile.
    fn settle(&self, result: &Arc<JobResult>) {
        let mut log = self.written.lock().unwrap_or_else(|e| e.into_inner());
        for o in &result.outputs {
            let Some(l) = log.get_mut(&o.path) else {
                return;
            };
            if !same_bytes(&l.bytes, &o.bytes) {
                return;
            }
            l.bytes = o.bytes.clone();
            if !std::ptr::eq(l.owner.as_ptr(), Arc::as_ptr(result)) {
                l.disown();
                l.owner = Arc::downgrade(result);
            }
        }
        result.on_disk.store(true, Ordering::Release);
    }
}

impl Logged {
    fn disown(&self) {
        if let Some(owner) = self.owner.upgrade() {
            owner.on_disk.store(false, Ordering::Release);
        }
    }
}

/// Whether the watcher marked neither `path` nor a directory above it.
fn untouched(marks: &RootMarks, path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let RootMarks::Changed(changed) = marks else {
        return false;
    };
    if changed.is_empty() {
        return true;
    }
    if changed.len() > 16 {
        return !path.ancestors().any(|a| changed.contains(a));
    }
    let p = path.as_os_str().as_bytes();
    !changed.iter().any(|m| {
        let m = m.as_os_str().as_bytes();
        p.starts_with(m) && (p.len() == m.len() || p[m.len()] == b'/')
    })
}

/// Time spent hashing and writing outputs.
#[derive(Debug, Default, Clone, Copy)]
pub struct WriteTimes {
    pub hash: std::time::Duration,
    pub write: std::time::Duration,
}

/// The files of a reply and how many unchanged ones it leaves out.
#[derive(Debug, Default)]
pub struct WrittenFiles {
    pub files: Vec<proto::OutputFile>,
    pub unchanged_omitted: u64,
}

/// Write every output atomically (only when its bytes change) and describe the result.
/// Outputs are split between the available cores (an APS file's two large outputs write
/// in parallel); `times` sums the threads' times. `spec.digests`: fill in SHA-256 digests;
/// `spec.changed_only`: list the written files only (and count the others).
pub fn write_outputs(
    computed: &Computed,
    spec: &BuildSpec,
    log: &OutputLog,
    times: &mut WriteTimes,
) -> Result<WrittenFiles, String> {
    let marks = &computed.output_marks;
    let results: Vec<&Arc<JobResult>> = computed.groups.iter().flat_map(|g| g.iter()).collect();
    let skip: Vec<bool> = results
        .iter()
        .map(|r| {
            r.on_disk.load(Ordering::Acquire) && r.outputs.iter().all(|o| untouched(marks, &o.path))
        })
        .collect();
    let todo: Vec<&Output> = results
        .iter()
        .zip(&skip)
        .filter(|(_, s)| !**s)
        .flat_map(|(r, _)| r.outputs.iter())
        .collect();
    let mut checked = write_in_threads(&todo, computed, spec, log, times)?.into_iter();
    for (r, _) in results.iter().zip(&skip).filter(|(_, s)| !**s) {
        log.settle(r);
    }
    let mut out = WrittenFiles::default();
    let all = results
        .iter()
        .zip(&skip)
        .flat_map(|(r, s)| r.outputs.iter().map(move |o| (o, *s)));
    for (o, skipped) in all {
        let (written, sha256) = match skipped {
            true => (false, skipped_digest(o, spec.digests, log, times)),
            false => checked
                .next()
                .ok_or("internal error: an output was not checked")?,
        };
        if spec.changed_only && !written {
            out.unchanged_omitted += 1;
            continue;
        }
        out.files.push(proto::OutputFile {
            path: o.path.to_string_lossy().into_owned(),
            kind: o.kind.name().to_string(),
            sha256,
            written,
        });
    }
    Ok(out)
}

/// Whether an output was written, and its digest (empty unless asked for).
type Checked = (bool, String);

/// The digest of a skipped output, if asked for.
fn skipped_digest(o: &Output, digests: bool, log: &OutputLog, times: &mut WriteTimes) -> String {
    if !digests {
        return String::new();
    }
    let t = Instant::now();
    let sha = kiln_cache::hex(&log.digest(&o.path, &o.bytes));
    times.hash += t.elapsed();
    sha
}

/// [`write_output`] of each of `todo`, in order, on up to one thread per core when some
/// output is big (many small ones would only contend on the log).
fn write_in_threads(
    todo: &[&Output],
    computed: &Computed,
    spec: &BuildSpec,
    log: &OutputLog,
    times: &mut WriteTimes,
) -> Result<Vec<Checked>, String> {
    let big = todo.iter().any(|o| o.bytes.len() > 1 << 20);
    let threads = match big {
        true => crate::cores(),
        false => 1,
    };
    let per = todo.len().div_ceil(threads).max(1);
    let marks = &computed.output_marks;
    let run = |chunk: &[&Output]| {
        let mut t = WriteTimes::default();
        let r: Result<Vec<_>, String> = chunk
            .iter()
            .map(|o| write_output(o, marks, spec, log, &mut t))
            .collect();
        (r, t)
    };
    if threads == 1 {
        let (r, t) = run(todo);
        times.hash += t.hash;
        times.write += t.write;
        return r;
    }
    let results: Vec<(Result<Vec<Checked>, String>, WriteTimes)> = std::thread::scope(|s| {
        let handles: Vec<_> = todo
            .chunks(per)
            .map(|chunk| s.spawn(move || run(chunk)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    let e = Err("internal error: an output thread panicked".to_string());
                    (e, WriteTimes::default())
                })
            })
            .collect()
    });
    let mut files = Vec::with_capacity(todo.len());
    for (r, t) in results {
        times.hash += t.hash;
        times.write += t.write;
        files.extend(r?);
    }
    Ok(files)
}

fn write_output(
    o: &Output,
    marks: &RootMarks,
    spec: &BuildSpec,
    log: &OutputLog,
    times: &mut WriteTimes,
) -> Result<Checked, String> {
    let t = Instant::now();
    let sha256 = match spec.digests {
        true => kiln_cache::hex(&log.digest(&o.path, &o.bytes)),
        false => String::new(),
    };
    times.hash += t.elapsed();
    let t = Instant::now();
    let written = match log.known(&o.path, untouched(marks, &o.path)) {
        Some(last) if same_bytes(&last, &o.bytes) => false,
        known => {
            let w = write_replacing(&o.path, &o.bytes, known.as_ref(), spec.spares_ahead, log)
                .map_err(|e| format!("{}: error: {e}", o.path.display()))?;
            log.record(&o.path, &o.bytes);
            w
        }
    };
    times.write += t.elapsed();
    Ok((written, sha256))
}

/// Write `bytes` to `path` atomically, unless the file holds them already (checked by
/// reading it when `replaced`, the bytes it is known to hold, is unknown). Large outputs
/// go through a spare (see [`crate::spare`]), others through a fresh temp file; `ahead`:
/// a large output written for the first time gets its spare prepared in the background.
fn write_replacing(
    path: &Path,
    bytes: &OutputBytes,
    replaced: Option<&OutputBytes>,
    ahead: bool,
    log: &OutputLog,
) -> std::io::Result<bool> {
    if !crate::spare::eligible(path, bytes) {
        let written = write_parts_atomic(path, bytes, replaced.is_none())?;
        if ahead {
            crate::spare::prepare(path, bytes, &log.spares);
        }
        return Ok(written);
    }
    if replaced.is_none() && holds_bytes(path, bytes) {
        return Ok(false);
    }
    if let Err(e) = crate::spare::write(path, bytes, replaced, &log.spares) {
        // The output is untouched: write it the plain way.
        tracing::debug!(path = %path.display(), error = %e, "spare write failed");
        return write_parts_atomic(path, bytes, false);
    }
    Ok(true)
}

/// Temp file in the same directory + rename; nothing when the file already holds `bytes`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    write_parts_atomic(path, &OutputBytes::new(bytes.to_vec()), true)
}

/// [`write_atomic`] of parts, written with vectored writes. `compare`: check the existing
/// file first (skipped when the caller knows it differs).
fn write_parts_atomic(path: &Path, bytes: &OutputBytes, compare: bool) -> std::io::Result<bool> {
    if compare && holds_bytes(path, bytes) {
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
    write_all_parts(&mut f, &bytes.parts)?;
    drop(f);
    fs::rename(&tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })?;
    Ok(true)
}

/// Whether the file at `path` holds exactly `bytes` (size checked before reading).
fn holds_bytes(path: &Path, bytes: &OutputBytes) -> bool {
    if !fs::metadata(path).is_ok_and(|m| m.len() == bytes.len() as u64) {
        return false;
    }
    let Ok(existing) = fs::read(path) else {
        return false;
    };
    let mut rest = &existing[..];
    for p in bytes.parts.iter() {
        let Some((head, tail)) = rest.split_at_checked(p.len()) else {
            return false;
        };
        if head != &p[..] {
            return false;
        }
        rest = tail;
    }
    rest.is_empty()
}

/// `write_all` for a list of parts, up to 1,024 (`IOV_MAX`) parts per `writev`.
pub(crate) fn write_all_parts(
    f: &mut fs::File,
    parts: &[std::sync::Arc<[u8]>],
) -> std::io::Result<()> {
    let mut bufs: Vec<std::io::IoSlice> = parts
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| std::io::IoSlice::new(p))
        .collect();
    let mut rest = &mut bufs[..];
    while !rest.is_empty() {
        let n = rest.len().min(1024);
        let written = f.write_vectored(&rest[..n])?;
        if written == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        std::io::IoSlice::advance_slices(&mut rest, written);
    }
    Ok(())
}

/// Phase times of a build, reported in the reply.
#[derive(Debug, Default, Clone, Copy)]
pub struct Phases {
    pub sync: std::time::Duration,
    pub compute: std::time::Duration,
}

/// A whole build in this process on `ws`: sync, compute, write. The daemon does the same
/// steps, with the compute on a database clone and retries on cancellation.
pub fn build_in_process(ws: &mut Workspace, spec: &BuildSpec) -> proto::BuildReply {
    let start = Instant::now();
    let before = ws.db.counters().snapshot();
    let resolved = ws.sync(spec);
    let sync = start.elapsed();
    let computed = compute(&ws.db, spec, &resolved);
    let phases = Phases {
        sync,
        compute: start.elapsed() - sync,
    };
    let after = ws.db.counters().snapshot();
    let log = &ws.db.runtime().written;
    reply(computed, spec, log, &before, &after, start, phases)
}

/// Assemble the reply: write outputs, attach diagnostics and the counter delta.
pub fn reply(
    computed: Computed,
    spec: &BuildSpec,
    log: &OutputLog,
    before: &counters::Snapshot,
    after: &counters::Snapshot,
    start: Instant,
    phases: Phases,
) -> proto::BuildReply {
    let mut diagnostics: Vec<_> = computed.diagnostics().cloned().collect();
    let mut times = WriteTimes::default();
    let written = match write_outputs(&computed, spec, log, &mut times) {
        Ok(f) => f,
        Err(msg) => {
            diagnostics.push(proto::FileDiagnostics {
                path: String::new(),
                rendered: msg,
                errors: 1,
            });
            WrittenFiles::default()
        }
    };
    let ok = diagnostics.iter().all(|d| d.errors == 0);
    let us = |d: std::time::Duration| d.as_micros() as u64;
    proto::BuildReply {
        files: written.files,
        unchanged_omitted: written.unchanged_omitted,
        diagnostics,
        ok,
        counts: to_proto_counts(&counters::diff(before, after)),
        duration_us: us(start.elapsed()),
        sync_us: us(phases.sync),
        compute_us: us(phases.compute),
        hash_us: us(times.hash),
        write_us: us(times.write),
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
