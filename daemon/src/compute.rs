//! The compute step: a build's resolved jobs → their outputs and messages, through the
//! database ([`compute`]) or, in a one-shot process, through the compiler's flows directly
//! ([`crate::oneshot`]); both end in [`job_result`], so a job's result has one shape.
//!
//! [`Memos`] is what the step remembers across builds, beside the database (queries never
//! read it): each spec's last results, reused whole when an input entry resolves to the
//! same jobs (a no-op is O(1) per entry) and per job when a source or BLIF file's handle and
//! text generation are unchanged (so a one-file edit in a library of thousands of files asks
//! the database about one file); the last assembly of each APS file ([`crate::assembly`]);
//! the inputs already prewarmed ([`crate::prewarm`]). Reuse is valid because such a job's
//! outputs are a function of its text and the spec alone (Handshake jobs also read library
//! files: never reused).

use crate::assembly::ApsMemo;
use crate::db::handshake::{HandshakeJob, handshake_outputs};
use crate::db::{Db, FileOutputs, OutputBytes, SourceFile, aps, blif};
use crate::report::{FileReport, messages};
use crate::spec::{BuildSpec, Flow, Job, OutputKind};
use crate::workspace::{JobInput, Loaded, Resolved};
use compiler::diag::{Code, Diagnostic, Located, Severity};
use compiler::fxhash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// One output file to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Output {
    pub(crate) path: PathBuf,
    pub(crate) kind: OutputKind,
    pub(crate) bytes: OutputBytes,
}

/// What one job (input file) produces: its outputs and its messages.
#[derive(Debug, Default)]
pub(crate) struct JobResult {
    /// The job's input file.
    pub(crate) input: PathBuf,
    pub(crate) outputs: Vec<Output>,
    pub(crate) report: Option<FileReport>,
    /// Every output is on disk as this process last wrote or checked it, nothing this
    /// process wrote since replaced one and the watcher saw no change of one (kept by the
    /// writer): a later build that hands back this same result skips its outputs.
    pub(crate) on_disk: AtomicBool,
}

/// The results of one entry of `BuildSpec::inputs` (a file, or a directory's files).
pub(crate) type GroupResults = Arc<Vec<Arc<JobResult>>>;

/// The outputs and messages of a build, by input entry and job.
#[derive(Debug, Clone, Default)]
pub(crate) struct Computed {
    pub(crate) groups: Vec<GroupResults>,
}

impl Computed {
    pub(crate) fn results(&self) -> impl Iterator<Item = &Arc<JobResult>> {
        self.groups.iter().flat_map(|g| g.iter())
    }

    pub(crate) fn reports(&self) -> impl Iterator<Item = &FileReport> {
        self.results().filter_map(|r| r.report.as_ref())
    }
}

/// What the compute step remembers across builds (see the module docs). Measured with the
/// per-spec results switched off, in the same run (`kiln-bench daemon --runs 30`, the
/// 8,786-file Dynamatic library; docs/bench.md, "What each shortcut buys"): no-op 9.6 ms with
/// them, 57.0 ms without; one-file comment edit 7.9 / 84.1 ms; logic edit 10.0 / 67.3 ms. A
/// salsa query over the whole spec would be validated input by input on every revision,
/// which is the cost this avoids.
#[derive(Debug, Default)]
pub(crate) struct Memos {
    last: Mutex<Vec<MemoEntry>>,
    pub(crate) aps: ApsMemo,
    /// Inputs whose queries [`crate::prewarm`] has evaluated.
    pub(crate) prewarmed: crate::prewarm::Prewarmed,
    /// The last results [`without_collisions`] found free of collisions.
    collision_free: Mutex<Vec<GroupResults>>,
}

#[derive(Debug)]
struct MemoEntry {
    spec: BuildSpec,
    groups: Vec<(Arc<Vec<JobInput>>, GroupResults)>,
}

/// Specs remembered (most recent first); older ones are recomputed through the database.
const MEMO_SPECS: usize = 8;

impl Memos {
    fn lookup(&self, spec: &BuildSpec) -> Vec<(Arc<Vec<JobInput>>, GroupResults)> {
        let last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        last.iter()
            .find(|e| e.spec.same_outputs(spec))
            .map(|e| e.groups.clone())
            .unwrap_or_default()
    }

    fn store(&self, spec: &BuildSpec, groups: Vec<(Arc<Vec<JobInput>>, GroupResults)>) {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        last.retain(|e| !e.spec.same_outputs(spec));
        let spec = spec.clone();
        last.insert(0, MemoEntry { spec, groups });
        last.truncate(MEMO_SPECS);
    }
}

/// Run the queries for every input. Pure with respect to the filesystem; may unwind with
/// `salsa::Cancelled` when another thread writes an input.
pub(crate) fn compute(db: &Db, memos: &Memos, spec: &BuildSpec, resolved: &Resolved) -> Computed {
    let last = memos.lookup(spec);
    let reused: Vec<Reuse> = (resolved.inputs.iter().enumerate())
        .map(|(g, jobs)| reuse(last.get(g), jobs))
        .collect();
    // Only the jobs about to be queried: a no-op or an edit walks no list twice.
    let fresh = (reused.iter().zip(&resolved.inputs))
        .filter_map(|(r, jobs)| match r {
            Reuse::Group(_) => None,
            Reuse::Jobs(v) => Some(v.iter().zip(jobs.iter())),
        })
        .flatten()
        .filter(|(r, _)| r.is_none())
        .map(|(_, (_, loaded))| loaded);
    crate::prewarm::prewarm_inputs(db, &memos.prewarmed, fresh, spec.jobs);
    let groups: Vec<GroupResults> = (reused.into_iter().zip(&resolved.inputs))
        .map(|(r, jobs)| match r {
            Reuse::Group(results) => results,
            Reuse::Jobs(v) => Arc::new(
                (v.into_iter().zip(jobs.iter()))
                    .map(|(r, (job, loaded))| {
                        r.unwrap_or_else(|| Arc::new(query_job(db, memos, spec, job, loaded)))
                    })
                    .collect(),
            ),
        })
        .collect();
    let stored = resolved.inputs.iter().cloned().zip(groups.iter().cloned());
    memos.store(spec, stored.collect());
    let computed = Computed { groups };
    without_collisions(computed, Some(&memos.collision_free))
}

/// What an input entry's last results give this build.
enum Reuse {
    /// All of them: the entry resolved to the same jobs.
    Group(GroupResults),
    /// Per job, its last result where its input is unchanged.
    Jobs(Vec<Option<Arc<JobResult>>>),
}

fn reuse(last: Option<&(Arc<Vec<JobInput>>, GroupResults)>, jobs: &Arc<Vec<JobInput>>) -> Reuse {
    // A Handshake job also reads library files, which may have changed although the
    // entry's own files did not.
    let handshake = || jobs.iter().any(|(_, l)| matches!(l, Loaded::Handshake(_)));
    match last {
        Some((lj, lr)) if Arc::ptr_eq(lj, jobs) && !handshake() => Reuse::Group(lr.clone()),
        _ => Reuse::Jobs(
            (jobs.iter().enumerate())
                .map(|(i, (job, loaded))| {
                    let (lj, lr) = last?;
                    let reusable = matches!(loaded, Loaded::Mlir(..) | Loaded::Blif(..));
                    let (j, l) = lj.get(i)?;
                    let same = (Arc::ptr_eq(j, job) || j == job) && l == loaded;
                    (reusable && same).then(|| lr[i].clone())
                })
                .collect(),
        ),
    }
}

/// One job through the database.
fn query_job(db: &Db, memos: &Memos, spec: &BuildSpec, job: &Job, loaded: &Loaded) -> JobResult {
    match loaded {
        Loaded::Unreadable(e) => unreadable(job, e.clone()),
        Loaded::Mlir(f, _) => {
            let (flow, outputs) = mlir_file_outputs(db, memos, spec, *f);
            job_result(spec, job, flow, outputs, f.text(db))
        }
        Loaded::Handshake(j) => {
            let outputs = handshake_file_outputs(db, spec, *j);
            job_result(spec, job, Flow::Handshake, outputs, j.file(db).text(db))
        }
        Loaded::Blif(f, _) => {
            let outputs = blif::blif_outputs(db, *f, spec.top.clone(), spec.flat_blif()).clone();
            job_result(spec, job, Flow::Blif, outputs, f.text(db))
        }
    }
}

/// The result of a job whose input cannot be read.
pub(crate) fn unreadable(job: &Job, e: Located) -> JobResult {
    JobResult {
        input: job.input.clone(),
        report: Some(FileReport {
            path: job.input.display().to_string(),
            messages: vec![e],
            ..FileReport::default()
        }),
        ..JobResult::default()
    }
}

/// An MLIR file's outputs by flow: APS (plus `<stem>.sv` when asked for), or the error
/// of a file no flow accepts. (Handshake files arrive as their jobs.)
fn mlir_file_outputs(
    db: &Db,
    memos: &Memos,
    spec: &BuildSpec,
    f: SourceFile,
) -> (Flow, FileOutputs) {
    let flow = *aps::mlir_flow(db, f);
    if flow != Flow::Aps {
        return (flow, aps::unknown_flow_outputs(db, f).clone());
    }
    let mut outs = memos.aps.outputs_styled(db, f, spec.style);
    if !spec.kinds.contains(&OutputKind::Sv) || !outs.diagnostics.is_empty() {
        return (flow, outs);
    }
    match aps::mlir_sv(db, f, spec.sv_top().to_string(), spec.style) {
        Ok(sv) => outs.outputs.push((OutputKind::Sv, sv.clone())),
        Err(d) => outs = FileOutputs::failed(vec![d.clone()]),
    }
    (flow, outs)
}

fn handshake_file_outputs(db: &Db, spec: &BuildSpec, job: HandshakeJob) -> FileOutputs {
    if spec.kinds.contains(&OutputKind::Sv) {
        return FileOutputs::failed(vec![sv_not_aps()]);
    }
    handshake_outputs(db, job).clone()
}

/// The error of an input none of whose outputs the spec asks for.
fn nothing_applies(spec: &BuildSpec, flow: Flow) -> String {
    let names = |kinds: &[OutputKind]| {
        let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
        names.join(", ")
    };
    let what = match flow {
        Flow::Aps => "an APS design",
        Flow::Handshake => "a Handshake design",
        Flow::Blif => "a BLIF netlist",
        Flow::Unknown => "an input no flow accepts",
    };
    format!(
        "none of the requested outputs ({}) is made from {what} (its outputs: {})",
        names(&spec.kinds),
        names(flow.default_kinds())
    )
}

/// The error of `--emit sv` on a design that is not APS.
pub(crate) fn sv_not_aps() -> Diagnostic {
    Diagnostic::global_error("--emit sv applies to APS designs only").with_code(Code::OutputNotMade)
}

/// A job's result from its flow's outputs: the kinds the spec wants, each at its path, and
/// its messages located against `text` (the input's text), each with a code (the flow's
/// family code where the step that made it gave none).
pub(crate) fn job_result(
    spec: &BuildSpec,
    job: &Job,
    flow: Flow,
    mut outputs: FileOutputs,
    text: &str,
) -> JobResult {
    let path = job.input.display().to_string();
    let elsewhere = std::mem::take(&mut outputs.elsewhere);
    let messages = messages(&path, flow, elsewhere, &outputs.diagnostics, text);
    let applied = spec.lints.apply(messages);
    let (mut messages, allowed) = (applied.messages, applied.allowed);
    if applied.denied > 0 {
        // A denied warning fails the input as an error does: nothing of it is written.
        outputs.outputs.clear();
    }
    let made = outputs.outputs.len();
    let stats = match spec.per_file {
        true => aig_stats(&outputs),
        false => None,
    };
    let outputs: Vec<Output> = outputs
        .outputs
        .into_iter()
        .filter(|(kind, _)| spec.wants(flow, *kind))
        .map(|(kind, bytes)| Output {
            path: job.output(kind),
            kind,
            bytes,
        })
        .collect();
    if made > 0 && outputs.is_empty() {
        let message = nothing_applies(spec, flow);
        let m = Located::file(path.clone(), Severity::Error, message);
        messages.push(m.with_code(Code::OutputNotMade));
    }
    let reported = spec.per_file || !messages.is_empty() || allowed > 0;
    let report = reported.then(|| FileReport {
        path,
        messages,
        allowed,
        outputs: match spec.per_file {
            true => outputs.iter().map(|o| o.path.clone()).collect(),
            false => Vec::new(),
        },
        stats,
    });
    JobResult {
        input: job.input.clone(),
        outputs,
        report,
        on_disk: AtomicBool::new(false),
    }
}

/// The figures of the AIG among a flow's outputs (its binary AIGER, read back), if it made
/// one.
fn aig_stats(outputs: &FileOutputs) -> Option<compiler::aig::Stats> {
    let (_, bytes) = outputs
        .outputs
        .iter()
        .find(|(k, _)| *k == OutputKind::Aig)?;
    let g = compiler::aig::read_aiger(&bytes.to_vec()).ok()?;
    Some(compiler::aig::Stats::of(&g))
}

/// Whether `now` writes to the same paths as `then`, job by job (pointers first: most
/// results are the very same).
fn same_output_paths(then: &[GroupResults], now: &[GroupResults]) -> bool {
    let same_job = |a: &Arc<JobResult>, b: &Arc<JobResult>| {
        Arc::ptr_eq(a, b)
            || a.outputs.len() == b.outputs.len()
                && (a.outputs.iter().zip(&b.outputs))
                    .all(|(x, y)| x.path.as_os_str() == y.path.as_os_str())
    };
    let same_group = |a: &GroupResults, b: &GroupResults| {
        Arc::ptr_eq(a, b)
            || a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| same_job(x, y))
    };
    then.len() == now.len() && then.iter().zip(now).all(|(a, b)| same_group(a, b))
}

/// `computed` with every job that would write an output another job also writes (two
/// inputs with one stem, an input given twice, a Handshake `x.mlir` beside `x.blif`), or
/// an input of the build (`x.blif`'s flat BLIF written beside it), turned into an error of
/// that job, naming the other, and no outputs: neither result overwrites the other,
/// whichever order they come in, and no input is overwritten. Daemon and one-shot builds
/// alike.
pub(crate) fn without_collisions(
    computed: Computed,
    checked: Option<&Mutex<Vec<GroupResults>>>,
) -> Computed {
    // The same output paths, job by job, as results found free of collisions (a no-op, or
    // an edit that changed what is written but not where): the same answer, without the
    // 17,572 lookups of a library build (17% of a no-op's instructions, a third of an
    // edit's compute step).
    let mut checked = checked.map(|m| m.lock().unwrap_or_else(|e| e.into_inner()));
    if let Some(last) = &mut checked
        && same_output_paths(last, &computed.groups)
    {
        **last = computed.groups.clone();
        return computed;
    }
    // Keyed by the paths' bytes with the Fx hash: a `Path`'s hash walks its components,
    // and SipHash over 17,572 outputs was 29% of a no-op library build's instructions.
    let outputs = computed.results().map(|r| r.outputs.len()).sum();
    let mut first: FxHashMap<&OsStr, (usize, usize)> =
        FxHashMap::with_capacity_and_hasher(outputs, Default::default());
    // Per clashing job: the other job's input → the first output they share.
    let mut clashes: BTreeMap<(usize, usize), BTreeMap<&Path, &Path>> = BTreeMap::new();
    let mut overwrites: Vec<((usize, usize), &Path)> = Vec::new();
    let inputs: FxHashSet<&OsStr> = computed.results().map(|r| r.input.as_os_str()).collect();
    for (g, group) in computed.groups.iter().enumerate() {
        for (j, r) in group.iter().enumerate() {
            for o in &r.outputs {
                if inputs.contains(o.path.as_os_str()) {
                    overwrites.push(((g, j), &o.path));
                }
                let (g0, j0) = *first.entry(o.path.as_os_str()).or_insert((g, j));
                if (g0, j0) == (g, j) {
                    continue;
                }
                let other = &computed.groups[g0][j0];
                for (at, with) in [((g, j), other), ((g0, j0), r)] {
                    clashes
                        .entry(at)
                        .or_default()
                        .entry(&with.input)
                        .or_insert(&o.path);
                }
            }
        }
    }
    if clashes.is_empty() && overwrites.is_empty() {
        if let Some(last) = &mut checked {
            **last = computed.groups.clone();
        }
        return computed;
    }
    let error = |(g, j): (usize, usize), message: String| {
        let input = computed.groups[g][j].input.display().to_string();
        Located::file(input, Severity::Error, message).with_code(Code::OutputCollision)
    };
    let mut errors: BTreeMap<(usize, usize), Vec<Located>> = BTreeMap::new();
    for (at, others) in clashes {
        for (with, output) in others {
            let message = format!(
                "output `{}` would also be written from `{}`",
                output.display(),
                with.display()
            );
            errors.entry(at).or_default().push(error(at, message));
        }
    }
    for (at, output) in overwrites {
        let message = format!(
            "output `{}` would overwrite an input of this build; write the outputs elsewhere (-o DIR)",
            output.display()
        );
        errors.entry(at).or_default().push(error(at, message));
    }
    let mut groups = computed.groups.clone();
    for ((g, j), errors) in errors {
        let mut results: Vec<Arc<JobResult>> = groups[g].iter().cloned().collect();
        let old = &results[j];
        let mut messages = old
            .report
            .as_ref()
            .map_or_else(Vec::new, |r| r.messages.clone());
        messages.extend(errors);
        let path = old.input.display().to_string();
        results[j] = Arc::new(JobResult {
            input: old.input.clone(),
            report: Some(FileReport {
                path,
                messages,
                ..FileReport::default()
            }),
            ..JobResult::default()
        });
        groups[g] = Arc::new(results);
    }
    Computed { groups }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(input: &str, output: &str, bytes: &[u8]) -> Arc<JobResult> {
        Arc::new(JobResult {
            input: PathBuf::from(input),
            outputs: vec![Output {
                path: PathBuf::from(output),
                kind: OutputKind::Aig,
                bytes: OutputBytes::new(bytes.to_vec()),
            }],
            ..JobResult::default()
        })
    }

    fn check(memo: &Mutex<Vec<GroupResults>>, jobs: Vec<Arc<JobResult>>) -> Vec<Option<String>> {
        let computed = Computed {
            groups: vec![Arc::new(jobs)],
        };
        let checked = without_collisions(computed, Some(memo));
        (checked.results())
            .map(|r| r.report.as_ref().map(|f| f.messages[0].message.clone()))
            .collect()
    }

    /// The check a build skips (results writing where the last collision-free ones wrote)
    /// and the one it does not: a result whose output moved onto another's is caught,
    /// although the other result is the very same as last time.
    #[test]
    fn collisions_are_found_after_a_rebuild_that_reuses_results() {
        let memo = Mutex::new(Vec::new());
        let a = result("a.blif", "out/a.aig", b"a");
        let b = result("b.blif", "out/b.aig", b"b");
        assert_eq!(check(&memo, vec![a.clone(), b]), [None, None]);
        // b's text changed, not where it writes: the same answer, from the memo.
        let b2 = result("b.blif", "out/b.aig", b"b2");
        assert_eq!(check(&memo, vec![a.clone(), b2.clone()]), [None, None]);
        assert!(Arc::ptr_eq(&memo.lock().unwrap()[0][1], &b2));
        // b now writes a's output: both are errors, naming the other.
        let b3 = result("b.blif", "out/a.aig", b"b3");
        let found = check(&memo, vec![a.clone(), b3]);
        let expected = |other: &str| {
            Some(format!(
                "output `out/a.aig` would also be written from `{other}`"
            ))
        };
        assert_eq!(found, [expected("b.blif"), expected("a.blif")]);
        // The memo still holds the last results free of collisions.
        assert!(Arc::ptr_eq(&memo.lock().unwrap()[0][1], &b2));
        assert_eq!(check(&memo, vec![a, b2]), [None, None]);
    }

    /// An output onto an input of the build (the flat BLIF of `x.blif` written beside
    /// it) fails the job that would write it, and nothing of it is written.
    #[test]
    fn an_output_onto_an_input_is_refused() {
        let memo = Mutex::new(Vec::new());
        let a = result("d/a.blif", "d/a.blif", b"a");
        let b = result("d/b.blif", "out/b.aig", b"b");
        let found = check(&memo, vec![a, b]);
        let message = "output `d/a.blif` would overwrite an input of this build; write the \
                       outputs elsewhere (-o DIR)";
        assert_eq!(found, [Some(message.to_string()), None]);
        let computed = Computed {
            groups: vec![Arc::new(vec![result("x.blif", "x.blif", b"x")])],
        };
        let checked = without_collisions(computed, None);
        assert!(checked.results().all(|r| r.outputs.is_empty()));
    }
}
