//! The input layer: files on disk → salsa inputs. A [`Workspace`] owns the master database
//! and the handle of every input it has seen; [`Workspace::sync`] resolves a spec's jobs
//! and sets only the inputs whose contents changed.
//!
//! Work is kept proportional to what changed:
//! - a file whose size, times and inode are unchanged is not read (its *stamp*); a file
//!   whose build-system digest was verified before is not even stat'ed;
//! - in the daemon, an input directory is not walked unless the watcher marked something
//!   below it ([`crate::watcher`]);
//! - a known source file is read into the buffer of the text it last replaced (no fresh
//!   pages), compared with its current text once ([`Common`]), and re-split from its last
//!   split in time proportional to the edit ([`compiler::mlir::split::resplit`]); the split
//!   is set with the text, so the queries never see how it was obtained.
//!
//! Every text set gets a new generation number: equal handles with equal generations have
//! equal texts (what the compute step's memo relies on).

use crate::counters::Kind;
use crate::db::KilnDb;
use crate::db::handshake::{
    HandshakeJob, HandshakeOpts, TemplateSource, UnitSource, handshake_front,
};
use crate::db::{BlifFile, Db, SourceFile};
use crate::digests::Digests;
use crate::input;
use crate::spec::{BuildSpec, Flow, HandshakeSpec, Job, dir_jobs, is_blif, is_mlir, not_an_input};
use crate::watcher::{Reader, RootMarks, Watcher};
use crate::why::{self, Change, Explain};
use compiler::diag::{self, Located, Severity};
use compiler::mlir::split::{Common, resplit, split_functions};
use salsa::{Durability, Setter};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod overlay;
pub use overlay::{Edit, OverlayChange};
pub(crate) use overlay::{Overlay, OverlayError};

/// An input as read from disk: its database handle, or why it could not be read. Source
/// and BLIF files carry the generation of their text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Loaded {
    Mlir(SourceFile, u64),
    Handshake(HandshakeJob),
    Blif(BlifFile, u64),
    Unreadable(Located),
}

/// What the file looked like when last read; unchanged metadata means unchanged text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
}

impl Stamp {
    pub(crate) fn of(meta: &fs::Metadata) -> Stamp {
        Stamp {
            len: meta.len(),
            mtime_ns: meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
            ctime_ns: meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
            ino: meta.ino(),
        }
    }

    pub(crate) fn of_path(path: &Path) -> Option<Stamp> {
        fs::metadata(path).ok().map(|m| Stamp::of(&m))
    }

    /// Whether any later change of the file changes this stamp: its times lie a tick of the
    /// file system's clock in the past (file times tick with the kernel's coarse clock, at
    /// most 10 ms, or by whole seconds, two on FAT, where they keep no fraction). Taken
    /// within that tick, a stamp can survive a write of the same size just after the read
    /// (git's "racy clean" files), so it is not kept: the next build reads the file again.
    pub(crate) fn settled(&self) -> bool {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        let newest = self.mtime_ns.max(self.ctime_ns);
        let tick: i128 = match newest % 1_000_000_000 {
            0 => 2_000_000_000,
            _ => 50_000_000,
        };
        now - newest >= tick
    }
}

/// A job with its input's database handle. The job is shared: a resync copies the last
/// list with an `Arc` per job (no path is cloned), and compute recognises an unchanged job
/// by pointer.
pub(crate) type JobInput = (Arc<Job>, Loaded);

/// The inputs of one build, resolved to database handles (valid for any clone of the db).
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// Per entry of the spec's inputs: its jobs (one for a file, a directory's files).
    pub(crate) inputs: Vec<Arc<Vec<JobInput>>>,
    /// What may have changed in the output directory since the last build.
    pub(crate) output_marks: RootMarks,
}

/// The database and the handles of every input it has seen.
pub(crate) struct Workspace {
    pub(crate) db: Db,
    /// The watcher's change marks of input and output directories (in the daemon);
    /// `None`: stat everything.
    watcher: Option<Arc<Watcher>>,
    /// The resolved jobs of each (input directory, output directory, `blif_only`) at the
    /// last build.
    dirs: BTreeMap<(PathBuf, PathBuf, bool), Arc<Vec<JobInput>>>,
    sources: BTreeMap<PathBuf, (SourceFile, Option<Stamp>, u64)>,
    blifs: BTreeMap<PathBuf, (BlifFile, Option<Stamp>, u64)>,
    handshake_jobs: BTreeMap<PathBuf, HandshakeJob>,
    digests: Digests,
    /// The last text generation handed out: every text set on an input gets a new one.
    generation: u64,
    /// The buffer of the source text last replaced (salsa hands it back): the next source
    /// read goes into memory that is already mapped, instead of a fresh allocation.
    recycled: Vec<u8>,
    /// Editors' unsaved buffers, by path ([`overlay`]).
    overlays: BTreeMap<PathBuf, Overlay>,
}

impl Workspace {
    /// A workspace on `db`; with a watcher, builds of big directories stat only what the
    /// watcher marked.
    pub(crate) fn new(db: Db, watcher: Option<Arc<Watcher>>) -> Workspace {
        Workspace {
            db,
            watcher,
            dirs: BTreeMap::new(),
            sources: BTreeMap::new(),
            blifs: BTreeMap::new(),
            handshake_jobs: BTreeMap::new(),
            digests: Digests::default(),
            generation: 0,
            recycled: Vec::new(),
            overlays: BTreeMap::new(),
        }
    }

    /// The functions (MLIR) or models (BLIF) of the input `path`, as last read.
    pub(crate) fn items(&self, path: &Path) -> Option<Vec<String>> {
        if let Some((f, ..)) = self.sources.get(path) {
            let split = f.split(&self.db);
            return Some(split.functions.iter().map(|i| i.symbol.clone()).collect());
        }
        let (f, ..) = self.blifs.get(path)?;
        let models = compiler::flow::blif::models(f.text(&self.db));
        Some(models.into_iter().map(|i| i.symbol).collect())
    }

    /// Read the spec's inputs from disk (skipping files whose size, times and inode are
    /// unchanged); set the salsa inputs whose text changed.
    pub(crate) fn sync(&mut self, spec: &BuildSpec) -> Resolved {
        self.db.set_limits(spec.limits());
        self.db.set_csr_config(spec.aps_config.clone());
        self.digests.begin(&spec.input_digests);
        let mut inputs = Vec::with_capacity(spec.inputs.len());
        for input in &spec.inputs {
            if input.is_dir() {
                inputs.push(self.sync_dir(input, spec));
            } else {
                let job = Job::of_file(input, &spec.out_dir);
                let loaded = self.load(&job.input, spec);
                inputs.push(Arc::new(vec![(Arc::new(job), loaded)]));
            }
        }
        let output_marks = self.take_marks(&spec.out_dir, Reader::Outputs);
        Resolved {
            inputs,
            output_marks,
        }
    }

    fn take_marks(&mut self, root: &Path, reader: Reader) -> RootMarks {
        self.watcher
            .as_ref()
            .map_or(RootMarks::Unknown, |w| w.take(root, reader))
    }

    /// An input file's database handle (a Handshake file becomes its job).
    fn load(&mut self, path: &Path, spec: &BuildSpec) -> Loaded {
        match self.sync_input(path) {
            Loaded::Mlir(f, _) if *crate::db::aps::mlir_flow(&self.db, f) == Flow::Handshake => {
                Loaded::Handshake(self.sync_handshake(path, f, &spec.handshake))
            }
            other => other,
        }
    }

    /// The jobs of an input directory: the last build's, with only the files the watcher
    /// marked re-read; or, without trustworthy marks, every file walked and stat'ed.
    fn sync_dir(&mut self, dir: &Path, spec: &BuildSpec) -> Arc<Vec<JobInput>> {
        let key = (dir.to_path_buf(), spec.out_dir.clone(), spec.blif_only);
        let marks = self.take_marks(dir, Reader::Inputs(spec.out_dir.clone(), spec.blif_only));
        if let (RootMarks::Changed(changed), Some(last)) = (&marks, self.dirs.get(&key)) {
            let last = last.clone();
            if changed.is_empty() {
                return last;
            }
            self.db.counters().executed(Kind::DirResync);
            if let Some(v) = self.resync_marked(&last, dir, changed, spec) {
                let v = Arc::new(v);
                self.dirs.insert(key, v.clone());
                return v;
            }
        }
        self.db.counters().executed(Kind::DirScan);
        let jobs = dir_jobs(dir, &spec.out_dir, spec.blif_only);
        let v: Vec<JobInput> = jobs
            .into_iter()
            .map(|job| {
                let loaded = match &job.error {
                    Some(e) => Loaded::Unreadable((**e).clone()),
                    None => self.load(&job.input, spec),
                };
                (Arc::new(job), loaded)
            })
            .collect();
        let v = Arc::new(v);
        self.dirs.insert(key, v.clone());
        v
    }

    /// `last` with the marked files re-read; `None` when the set of files may have changed
    /// (a marked input file is gone, or a marked path is a new input file or a directory).
    /// Marks in the output directory and on kiln's own files are not about inputs.
    fn resync_marked(
        &mut self,
        last: &[JobInput],
        dir: &Path,
        changed: &BTreeSet<PathBuf>,
        spec: &BuildSpec,
    ) -> Option<Vec<JobInput>> {
        let mut v = last.to_vec();
        for p in changed {
            if not_an_input(p, dir, &spec.out_dir) {
                continue;
            }
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
        let now = Stamp::of_path(path);
        // A given digest not verified yet overrides the stamp: the file is read and checked.
        if now.is_some() && !self.digests.is_given(path) {
            if let Some((f, s, g)) = self.sources.get(path)
                && *s == now
            {
                return Loaded::Mlir(*f, *g);
            }
            if let Some((f, s, g)) = self.blifs.get(path)
                && *s == now
            {
                return Loaded::Blif(*f, *g);
            }
        }
        let stamp = now.filter(Stamp::settled);
        if let Some(&(f, _, g)) = self.sources.get(path) {
            return self.resync_source(path, f, g, stamp);
        }
        let max = self.db.limits().max_input_size;
        let text = match read_text(path, max, &mut self.digests) {
            Ok(t) => t,
            Err(e) => return Loaded::Unreadable(e),
        };
        // By content: a BLIF netlist may have any name.
        if compiler::flow::reads_as_blif(path, &text) {
            self.sources.remove(path);
            let (f, g) = self.sync_blif(path, text, stamp);
            Loaded::Blif(f, g)
        } else {
            self.blifs.remove(path);
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
        self.db.counters().executed(Kind::InputDigestReused);
        Some(loaded)
    }

    fn explain(&self) -> &Explain {
        &self.db.runtime().explain
    }

    fn next_generation(&mut self) -> u64 {
        self.generation += 1;
        self.generation
    }

    /// A source file seen for the first time.
    fn sync_mlir(&mut self, path: &Path, text: String, stamp: Option<Stamp>) -> (SourceFile, u64) {
        let g = self.next_generation();
        self.db.counters().executed(Kind::MlirItems);
        let split = Arc::new(split_functions(&text));
        self.explain().new_input(path);
        let f = SourceFile::new(&self.db, path.to_path_buf(), text, split);
        self.sources.insert(path.to_path_buf(), (f, stamp, g));
        (f, g)
    }

    /// A known source file read again (its stamp changed, or it was marked). An edit of a
    /// large file touches a few bytes of it, so the work here is kept to one read and one
    /// comparison: the file goes into the recycled buffer, is compared with the current
    /// text at both ends ([`Common`]), and the common ends tell the re-split where to start
    /// and stop.
    fn resync_source(
        &mut self,
        path: &Path,
        f: SourceFile,
        g: u64,
        stamp: Option<Stamp>,
    ) -> Loaded {
        let mut bytes = std::mem::take(&mut self.recycled);
        bytes.clear();
        let read = input::read_into(path, &mut bytes, self.db.limits().max_input_size);
        if let Err(e) = read {
            return Loaded::Unreadable(io_error(path, &e));
        }
        if let Err(e) = self.digests.check(path, &bytes) {
            return Loaded::Unreadable(e);
        }
        let old = f.text(&self.db);
        let common = Common::of(old.as_bytes(), &bytes);
        if common.prefix == bytes.len() && bytes.len() == old.len() {
            self.recycled = bytes;
            self.sources.insert(path.to_path_buf(), (f, stamp, g));
            return Loaded::Mlir(f, g);
        }
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => return Loaded::Unreadable(utf8_error(path, e.as_bytes())),
        };
        if compiler::flow::reads_as_blif(path, &text) {
            // An MLIR input rewritten as a BLIF netlist.
            self.sources.remove(path);
            let (f, g) = self.sync_blif(path, text, stamp);
            return Loaded::Blif(f, g);
        }
        self.db.counters().executed(Kind::MlirItems);
        let split = Arc::new(resplit(f.split(&self.db), &text, Some(common)));
        let range = why::changed_range(old.len(), text.len(), common);
        self.explain().changed(|| {
            let items = why::touched(&split.functions, &range);
            Change::new(path, &text, range, items)
        });
        let generation = self.next_generation();
        self.recycled = f.set_text(&mut self.db).to(text).into_bytes();
        f.set_split(&mut self.db).to(split);
        self.sources
            .insert(path.to_path_buf(), (f, stamp, generation));
        Loaded::Mlir(f, generation)
    }

    fn sync_blif(&mut self, path: &Path, text: String, stamp: Option<Stamp>) -> (BlifFile, u64) {
        if let Some(&(f, _, g)) = self.blifs.get(path) {
            let mut g = g;
            let old = f.text(&self.db);
            if old != &text {
                let common = Common::of(old.as_bytes(), text.as_bytes());
                let range = why::changed_range(old.len(), text.len(), common);
                self.explain().changed(|| {
                    let models = compiler::flow::blif::models(&text);
                    let items = why::touched(&models, &range);
                    Change::new(path, &text, range, items)
                });
                f.set_text(&mut self.db)
                    .with_durability(Durability::HIGH)
                    .to(text);
                g = self.next_generation();
            }
            self.blifs.insert(path.to_path_buf(), (f, stamp, g));
            return (f, g);
        }
        self.explain().new_input(path);
        let f = BlifFile::builder(path.to_path_buf(), text)
            .durability(Durability::HIGH)
            .new(&self.db);
        let g = self.next_generation();
        self.blifs.insert(path.to_path_buf(), (f, stamp, g));
        (f, g)
    }

    /// The Handshake job of `path`: options (with the path table read), then the library
    /// files the circuit's marks name, read (or skipped by stamp) like any input.
    fn sync_handshake(
        &mut self,
        path: &Path,
        file: SourceFile,
        spec: &HandshakeSpec,
    ) -> HandshakeJob {
        let opts = HandshakeOpts::of(spec, spec.options(self.db.limits()));
        let job = match self.handshake_jobs.get(path) {
            Some(j) => *j,
            None => {
                let j = HandshakeJob::new(
                    &self.db,
                    file,
                    opts.clone(),
                    BTreeMap::new(),
                    BTreeMap::new(),
                );
                self.handshake_jobs.insert(path.to_path_buf(), j);
                j
            }
        };
        self.update_handshake(job, file, opts);
        job
    }

    /// Set `job`'s file and options, then its library files (those the circuit's marks
    /// name), read (or skipped by stamp) like any input.
    fn update_handshake(&mut self, job: HandshakeJob, file: SourceFile, opts: HandshakeOpts) {
        if *job.file(&self.db) != file {
            job.set_file(&mut self.db).to(file);
        }
        if job.opts(&self.db) != &opts {
            job.set_opts(&mut self.db).to(opts.clone());
        }
        let paths = match (handshake_front(&self.db, job), &opts.lib_dir) {
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
        self.update_templates(job, &opts);
    }

    /// Set `job`'s template sources: each template its front names, its files read from the
    /// template directory (small files, read on every sync; a source input changes only
    /// when its texts do).
    fn update_templates(&mut self, job: HandshakeJob, opts: &HandshakeOpts) {
        let templates = match (handshake_front(&self.db, job), &opts.rtl_dir) {
            (Ok(front), Some(dir)) => (front.templates.iter())
                .map(|(k, t)| (k.clone(), crate::rtl::read_sources(dir, t), t.clone()))
                .collect(),
            _ => Vec::new(),
        };
        let old = job.templates(&self.db).clone();
        let mut new = BTreeMap::new();
        for (key, read, t) in templates {
            let src = read.map(|sources| match old.get(&key) {
                Some(Ok(s)) if s.sources(&self.db) == &sources && s.template(&self.db) == &t => *s,
                Some(Ok(s)) => {
                    s.set_sources(&mut self.db).to(sources);
                    s.set_template(&mut self.db).to(t);
                    *s
                }
                _ => TemplateSource::new(&self.db, sources, t),
            });
            new.insert(key, src);
        }
        if old != new {
            job.set_templates(&mut self.db).to(new);
        }
    }
}

/// The file as text (validated once: inputs can be large), at most `max` bytes, then
/// checked against its given digest; or why it cannot be read.
pub(crate) fn read_text(path: &Path, max: u64, digests: &mut Digests) -> Result<String, Located> {
    let bytes = input::read_max(path, max).map_err(|e| io_error(path, &e))?;
    let text = String::from_utf8(bytes).map_err(|e| utf8_error(path, e.as_bytes()))?;
    digests.check(path, text.as_bytes())?;
    Ok(text)
}

/// A file that cannot be read.
pub(crate) fn io_error(path: &Path, e: &input::InputError) -> Located {
    Located::file(path.display().to_string(), Severity::Error, e.to_string()).with_code(e.code())
}

/// The located error of a file that is not UTF-8.
pub(crate) fn utf8_error(path: &Path, bytes: &[u8]) -> Located {
    let shown = path.display().to_string();
    match diag::decode_utf8(bytes) {
        Err(d) => d.locate(&shown, &String::from_utf8_lossy(bytes)),
        Ok(_) => Located::file(shown, Severity::Error, "invalid UTF-8")
            .with_code(compiler::diag::Code::InvalidUtf8),
    }
}
