//! What a build reports: the files it wrote or found up to date, each input's messages as
//! typed diagnostics ([`Located`]: rendered only at the edge, by the CLI, a worker shim or
//! an editor), the query counts and where the time went.

pub use crate::counters::{Count, Snapshot};

use compiler::diag::{Diagnostic, Located, Severity};
use compiler::flow::Flow;
use compiler::flow::OutputKind;
use std::path::PathBuf;
use std::time::Duration;

/// The outcome of one build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildReport {
    pub files: Vec<OutputFile>,
    /// Unchanged files left out of `files` (specs with `changed_only`).
    pub unchanged_omitted: u64,
    /// The messages of each input that has any, in input order.
    pub diagnostics: Vec<FileReport>,
    /// Query executions and persistent-cache hits caused by this build.
    pub counts: Snapshot,
    pub times: Times,
}

impl BuildReport {
    /// Warnings the build's lint levels allowed.
    pub fn allowed(&self) -> u64 {
        self.diagnostics.iter().map(|d| u64::from(d.allowed)).sum()
    }

    /// Whether the build had no errors.
    pub fn ok(&self) -> bool {
        self.diagnostics.iter().all(|d| d.errors() == 0)
    }

    /// Every message, rendered (`path:line:col: severity: message`, source line, caret).
    pub fn rendered(&self) -> String {
        self.diagnostics.iter().map(FileReport::rendered).collect()
    }

    /// A report of a build that failed as a whole (e.g. its outputs could not be written).
    pub fn failure(message: Located) -> BuildReport {
        BuildReport {
            diagnostics: vec![FileReport {
                path: message.path.clone(),
                messages: vec![message],
                ..FileReport::default()
            }],
            ..BuildReport::default()
        }
    }
}

/// One output file of a build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    pub path: PathBuf,
    pub kind: OutputKind,
    /// SHA-256 of the file's bytes (specs with `digests`).
    pub sha256: Option<[u8; 32]>,
    /// False when the file already held these bytes.
    pub written: bool,
}

/// The messages about one input: warnings about other files it uses, then its own
/// diagnostics, then errors about other files. A build reports the inputs that have any
/// messages; a spec with `per_file` reports every input, with what it made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileReport {
    pub path: String,
    pub messages: Vec<Located>,
    /// Warnings the build's lint levels allowed (left out of `messages`).
    pub allowed: u32,
    /// The outputs the input made (specs with `per_file`; none when it failed).
    pub outputs: Vec<PathBuf>,
    /// The figures of the AIG it made: a BLIF netlist's top model or a Handshake design
    /// (specs with `per_file`).
    pub stats: Option<compiler::aig::Stats>,
}

impl FileReport {
    pub fn errors(&self) -> usize {
        self.messages.iter().filter(|m| m.is_error()).count()
    }

    pub fn rendered(&self) -> String {
        self.messages.iter().map(Located::render).collect()
    }
}

/// Where a build's time went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Times {
    pub total: Duration,
    /// Reading inputs (a one-shot build's: summed over its jobs' threads).
    pub sync: Duration,
    /// Running the flows (assembly included; a one-shot build's: summed over its jobs'
    /// threads).
    pub compute: Duration,
    /// Hashing outputs (specs with `digests`).
    pub hash: Duration,
    /// Writing outputs (compare, temp file, rename).
    pub write: Duration,
}

/// The messages of an input at `path` with text `text`, in report order: warnings about
/// other files, its own diagnostics, errors about other files (what a build reports, and
/// an editor shows), each with a code: `flow`'s family code where the step gave none.
pub(crate) fn messages(
    path: &str,
    flow: Flow,
    elsewhere: Vec<Located>,
    own: &[Diagnostic],
    text: &str,
) -> Vec<Located> {
    let (errors, warnings): (Vec<Located>, Vec<Located>) = elsewhere
        .into_iter()
        .partition(|m| m.severity == Severity::Error);
    let own = compiler::diag::locate_all(own, path, text);
    (warnings.into_iter().chain(own).chain(errors))
        .map(|m| flow.coded_located(m))
        .collect()
}
