//! What to build: a [`BuildSpec`] (the request, in plain Rust) and the [`Job`]s it expands
//! to. This is the one place that turns a request into jobs: the daemon's incremental builds
//! and one-shot builds in a process both start here.
//!
//! Output kinds and flows are the compiler's ([`compiler::flow`]): a job's outputs are the
//! kinds the spec asks for among those its flow produces, or the flow's defaults.

use crate::digests;
use compiler::diag::lint::Lints;
use compiler::diag::{Code, Located, Severity};
pub use compiler::flow::{Flow, OutputKind, is_blif, is_mlir};
use compiler::handshake::{Dialect, Naming};
use compiler::limits::Limits;
use std::path::{Path, PathBuf};

/// What to build (paths absolute, or relative to the process's directory). Inputs are
/// `.mlir` / `.blif` files, or directories searched recursively for both (their tree is
/// mirrored under `out_dir`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildSpec {
    pub inputs: Vec<PathBuf>,
    /// Output kinds; empty: each input's flow's defaults.
    pub kinds: Vec<OutputKind>,
    pub out_dir: PathBuf,
    pub handshake: HandshakeSpec,
    /// Known SHA-256 digests of input files (see `crate::digests`).
    pub input_digests: digests::Given,
    /// Fill in each output's SHA-256 in the report (hashing costs time on big outputs).
    pub digests: bool,
    /// List only the files this build wrote (the report counts the others).
    pub changed_only: bool,
    /// The resource limits of the build (the caller's flags and `kiln.toml`); `None`: the
    /// process's own ([`crate::input::limits`]).
    pub limits: Option<Limits>,
    /// What the build does with each warning code (`-A/-W/-D`, `[lints]`).
    pub lints: Lints,
    /// The top: for BLIF inputs the model to lower (`None`: each file's first model); for
    /// an APS input's SystemVerilog the top module's name (`None`: `main`).
    pub top: Option<String>,
    /// At most this many inputs compiled at once (`-j`); 0: the builder's default (all
    /// cores). Results are the same for any number.
    pub jobs: usize,
    /// The architecture of APS inputs' rules (`--style`, `style` of kiln.toml).
    pub style: compiler::aps::Style,
    /// The SoC's CSR list (`--aps-config`, `aps_config` of kiln.toml): APS inputs' CSR
    /// lanes; `None`: one lane per CSR global.
    pub aps_config: Option<compiler::aps::csr::CsrConfig>,
    /// The file of the CSR configuration (absolute), for `Watch`: read before each build
    /// (in place of `aps_config`) and watched like an input; `None` for other requests.
    pub aps_config_path: Option<PathBuf>,
    /// Directories yield their `.blif` files only, not their `.mlir` ones (`kiln aig`).
    pub blif_only: bool,
    /// Report every input, with or without messages, with the outputs it made and the
    /// figures of its AIG ([`crate::report::FileReport`]; `kiln aig --stats`, `--json`).
    pub per_file: bool,
}

impl BuildSpec {
    /// Whether two specs compute the same results (reporting and scheduling options aside).
    pub(crate) fn same_outputs(&self, other: &BuildSpec) -> bool {
        self.inputs == other.inputs
            && self.kinds == other.kinds
            && self.out_dir == other.out_dir
            && self.handshake == other.handshake
            && self.limits() == other.limits()
            && self.lints == other.lints
            && self.top == other.top
            && self.style == other.style
            && self.aps_config == other.aps_config
            && self.aps_config_path == other.aps_config_path
            && self.blif_only == other.blif_only
            && self.per_file == other.per_file
    }

    /// The name of an APS input's SystemVerilog top module.
    pub(crate) fn sv_top(&self) -> &str {
        self.top
            .as_deref()
            .unwrap_or(compiler::rules::sv::DEFAULT_TOP)
    }

    /// The limits the build runs under.
    pub(crate) fn limits(&self) -> Limits {
        self.limits.unwrap_or_else(crate::input::limits)
    }

    /// Whether BLIF inputs make their flat BLIF (`<stem>.blif`, no BLIF input's default):
    /// when the spec asks for it and for none of a Handshake design's own outputs. A spec
    /// that adds a kind to every flow's defaults (`kiln build --emit aag`) carries the
    /// Handshake defaults, `blif` among them, which no BLIF input asked for; `kiln aig
    /// --format blif` and a worker's `--kind blif` ask for it alone.
    pub(crate) fn flat_blif(&self) -> bool {
        let handshake_only = [OutputKind::SynthMlir, OutputKind::HierBlif];
        self.kinds.contains(&OutputKind::FlatBlif)
            && !self.kinds.iter().any(|k| handshake_only.contains(k))
    }

    /// Whether a job of `flow` writes output `kind`.
    pub(crate) fn wants(&self, flow: Flow, kind: OutputKind) -> bool {
        match self.kinds.is_empty() {
            true => flow.default_kinds().contains(&kind),
            false => self.kinds.contains(&kind),
        }
    }
}

/// A request that cannot be turned into a spec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("unknown output kind `{0}`")]
    Kind(String),
    #[error("unknown synth dialect `{0}`")]
    Dialect(String),
    #[error("unknown naming `{0}`")]
    Naming(String),
    #[error("a CSR configuration that does not read: {0}")]
    ApsConfig(String),
    #[error("unknown style `{0}` (fsm, fifo)")]
    Style(String),
    #[error("input digest of {0} is not a hex SHA-256")]
    Digest(String),
}

/// Output kinds by name (`cmt2`, `rules-json`, ...).
pub fn parse_kinds(names: &[String]) -> Result<Vec<OutputKind>, SpecError> {
    names
        .iter()
        .map(|k| OutputKind::parse(k).ok_or_else(|| SpecError::Kind(k.clone())))
        .collect()
}

const DIALECTS: [(&str, Dialect); 2] =
    [("circt", Dialect::Circt), ("dynamatic", Dialect::Dynamatic)];
const NAMINGS: [(&str, Naming); 2] = [("arg-names", Naming::ArgNames), ("in-out", Naming::InOut)];

/// `circt` (also the default, empty) or `dynamatic`.
pub(crate) fn parse_dialect(name: &str) -> Result<Dialect, SpecError> {
    by_name(&DIALECTS, name).ok_or_else(|| SpecError::Dialect(name.to_string()))
}

pub(crate) fn dialect_name(d: Dialect) -> &'static str {
    name_of(&DIALECTS, d)
}

/// `arg-names` (also the default, empty) or `in-out`.
pub(crate) fn parse_naming(name: &str) -> Result<Naming, SpecError> {
    by_name(&NAMINGS, name).ok_or_else(|| SpecError::Naming(name.to_string()))
}

pub(crate) fn naming_name(n: Naming) -> &'static str {
    name_of(&NAMINGS, n)
}

/// The value named `name` in `table`; the empty name is the first entry (the default).
pub(crate) fn by_name<T: Copy>(table: &[(&str, T)], name: &str) -> Option<T> {
    match name {
        "" => table.first().map(|e| e.1),
        _ => table.iter().find(|e| e.0 == name).map(|e| e.1),
    }
}

pub(crate) fn name_of<T: PartialEq>(table: &[(&'static str, T)], value: T) -> &'static str {
    table.iter().find(|e| e.1 == value).map_or("", |e| e.0)
}

/// Options for Handshake inputs (absolute paths).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandshakeSpec {
    pub blif_lib: Option<PathBuf>,
    /// Dynamatic's Verilog templates (`data/verilog`), synthesized by yosys.
    pub rtl_lib: Option<PathBuf>,
    pub path_table: Option<PathBuf>,
    pub dialect: Dialect,
    pub naming: Naming,
    /// The `handshake.func` to build when a file has several (`None`: its only one).
    pub func: Option<String>,
}

impl HandshakeSpec {
    /// The flow's options under `limits`, with the path table read (an unreadable table is
    /// an empty one, a table over the input size limit too).
    pub(crate) fn options(&self, limits: Limits) -> compiler::flow::handshake::Options {
        compiler::flow::handshake::Options {
            dialect: self.dialect,
            naming: self.naming,
            path_table: self.path_table.as_ref().map(|p| {
                let text = crate::input::read_bounded_file(p, limits.max_input_size)
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok());
                (p.display().to_string(), text.unwrap_or_default())
            }),
            limits,
            func: self.func.clone(),
        }
    }
}

/// One source file of a build and where its outputs go (`<base>.<suffix>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Job {
    pub(crate) input: PathBuf,
    pub(crate) base: PathBuf,
    /// Why the input cannot be built, found before it is read (a symbolic link loop, a
    /// directory that cannot be listed): the job's only message.
    pub(crate) error: Option<Box<Located>>,
}

impl Job {
    /// The job of one input file.
    pub(crate) fn of_file(input: &Path, out_dir: &Path) -> Job {
        let stem = input.file_stem().unwrap_or_default();
        Job {
            input: input.to_path_buf(),
            base: out_dir.join(stem),
            error: None,
        }
    }

    /// The path of output `kind`.
    pub(crate) fn output(&self, kind: OutputKind) -> PathBuf {
        let mut name = self.base.clone().into_os_string();
        name.push(".");
        name.push(kind.suffix());
        PathBuf::from(name)
    }

    /// The name of the merged circuit of an APS input: its file stem.
    pub(crate) fn stem(&self) -> String {
        self.input
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// The jobs of every input of `spec`, in order (directories expanded, sorted).
pub(crate) fn jobs(spec: &BuildSpec) -> Vec<Job> {
    let mut out = Vec::new();
    for input in &spec.inputs {
        if input.is_dir() {
            out.extend(dir_jobs(input, &spec.out_dir, spec.blif_only));
        } else {
            out.push(Job::of_file(input, &spec.out_dir));
        }
    }
    out
}

/// The jobs of the `.mlir`/`.blif` files below `dir` (`.blif` files only with
/// `blif_only`; [`walk`]), sorted by input path, with the tree mirrored under `out_dir`.
pub(crate) fn dir_jobs(dir: &Path, out_dir: &Path, blif_only: bool) -> Vec<Job> {
    walk(dir, &[out_dir], |p| is_blif(p) || !blif_only && is_mlir(p))
        .into_iter()
        .map(|found| {
            let rel = found.path.strip_prefix(dir).unwrap_or(&found.path);
            Job {
                base: out_dir.join(rel.with_extension("")),
                input: found.path,
                error: found.error.map(Box::new),
            }
        })
        .collect()
}

/// Whether `path`, below the input directory `dir`, is left out of it: in the output
/// directory (when that lies below `dir`), or kiln's own (`.kiln-*`).
pub(crate) fn not_an_input(path: &Path, dir: &Path, out_dir: &Path) -> bool {
    let out_below = out_dir != dir && out_dir.starts_with(dir);
    (out_below && path.starts_with(out_dir))
        || path
            .strip_prefix(dir)
            .is_ok_and(crate::watcher::is_kilns_own)
}

/// A file found below an input directory, or a path below it that cannot be walked.
#[derive(Debug)]
pub struct Found {
    pub path: PathBuf,
    pub error: Option<Located>,
}

/// The files below `dir` whose paths `keep` accepts, sorted by path: the one directory walk
/// of the project (the daemon's scans, one-shot builds and `kiln aig` use it). Symbolic
/// links are followed; a link back to one of its own ancestors is reported (code `E0010`)
/// and not followed, as is a directory that cannot be listed. Left out: the directories in
/// `skip` (output directories inside the input tree: a build never reads its own outputs)
/// and every `.kiln-*` entry (the writer's spares and temporaries).
pub fn walk(dir: &Path, skip: &[&Path], keep: impl Fn(&Path) -> bool) -> Vec<Found> {
    let skipped = |p: &Path| {
        p.file_name()
            .is_some_and(|n| n.as_encoded_bytes().starts_with(b".kiln-"))
            || skip.contains(&p)
    };
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !skipped(e.path()));
    for entry in walker {
        match entry {
            Ok(e) if !e.file_type().is_dir() && keep(e.path()) => out.push(Found {
                path: e.into_path(),
                error: None,
            }),
            Ok(_) => {}
            Err(e) => {
                let Some(path) = e.path().map(Path::to_path_buf) else {
                    continue;
                };
                let message = match e.loop_ancestor() {
                    Some(a) => format!(
                        "symbolic link loop: this leads back to `{}`, which contains it; not followed",
                        a.display()
                    ),
                    None => format!(
                        "cannot walk: {}",
                        e.io_error()
                            .map_or_else(|| e.to_string(), ToString::to_string)
                    ),
                };
                let m = Located::file(path.display().to_string(), Severity::Error, message);
                out.push(Found {
                    path,
                    error: Some(m.with_code(Code::InputWalk)),
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}
