//! One-shot builds: a spec's jobs run through the compiler's flows directly
//! ([`compiler::flow`]), in this process, with no database and nothing kept afterwards. What
//! `kiln build --no-daemon`, a build-system action run once, and a client whose daemon
//! cannot start do: the fastest cold build, with the daemon's jobs, outputs, messages and
//! writer, so its files are byte for byte the daemon's. Inputs are compiled on up to
//! `spec.jobs` threads ([`par::map`]), their results kept in input order; an APS file's
//! functions on its share of them (all of them when it is the only input).

use crate::build::finish;
use crate::compute::{Computed, JobResult, job_result, sv_not_aps, unreadable, without_collisions};
use crate::counters::Counters;
use crate::db::FileOutputs;
use crate::digests::Digests;
use crate::report::{BuildReport, Times};
use crate::spec::{self, BuildSpec, Flow, HandshakeSpec, Job, OutputKind, is_blif};
use crate::workspace::read_text;
use crate::writer::{Spares, Writer};
use compiler::flow;
use compiler::flow::handshake::{Front, Library, LibraryFile, Options};
use compiler::limits::Limits;
use compiler::par;
use std::sync::Arc;
use std::time::Instant;

/// Build `spec` in this process.
pub fn build(spec: &BuildSpec) -> BuildReport {
    build_gated(spec, || true).unwrap_or_default()
}

/// [`build`], asking `may_write` once, after computing and before anything is written:
/// `false` stops the build with nothing written (`None`). A build-system worker stops a
/// cancelled request this way.
pub fn build_gated(spec: &BuildSpec, may_write: impl FnOnce() -> bool) -> Option<BuildReport> {
    let start = Instant::now();
    let jobs = spec::jobs(spec);
    let threads = par::jobs_or_cores(spec.jobs);
    // Each input's share of the threads: an APS file builds its functions on it.
    let share = (threads / threads.min(jobs.len()).max(1)).max(1);
    let ran = par::map(threads, &jobs, |job| {
        let mut digests = Digests::default();
        digests.begin(&spec.input_digests);
        let mut times = Times::default();
        let result = run_job(spec, job, share, &mut digests, &mut times);
        (Arc::new(result), times)
    });
    let mut times = Times::default();
    let mut results = Vec::with_capacity(ran.len());
    for (result, t) in ran {
        times.sync += t.sync;
        times.compute += t.compute;
        results.push(result);
    }
    let computed = Computed {
        groups: vec![Arc::new(results)],
    };
    if !may_write() {
        return None;
    }
    let writer = Writer::new(Spares::OnRewrite);
    let counts = Counters::default().snapshot();
    let computed = without_collisions(computed, None);
    Some(finish(&writer, computed, spec, counts, start, times))
}

fn run_job(
    spec: &BuildSpec,
    job: &Job,
    threads: usize,
    digests: &mut Digests,
    times: &mut Times,
) -> JobResult {
    if let Some(e) = &job.error {
        return unreadable(job, (**e).clone());
    }
    let t = Instant::now();
    let text = read_text(&job.input, spec.limits().max_input_size, digests);
    times.sync += t.elapsed();
    let text = match text {
        Ok(t) => t,
        Err(e) => return unreadable(job, e),
    };
    let t = Instant::now();
    let flow = Flow::detect(&job.input, &text);
    let outputs: FileOutputs = match flow {
        Flow::Aps => {
            let sv = spec.kinds.contains(&OutputKind::Sv).then(|| spec.sv_top());
            let (stem, limits) = (job.stem(), spec.limits());
            let options = flow::aps::Options {
                threads,
                sv_top: sv,
                limits,
                style: spec.style,
                csr: spec.aps_config.as_ref(),
            };
            flow::aps::build_with(&text, &stem, &options).into()
        }
        Flow::Handshake if spec.kinds.contains(&OutputKind::Sv) => {
            FileOutputs::failed(vec![sv_not_aps()])
        }
        Flow::Handshake => handshake(spec, &text, digests).into(),
        Flow::Blif => {
            flow::blif::build_top(&text, spec.top.as_deref(), spec.flat_blif(), &spec.limits())
                .into()
        }
        Flow::Unknown => FileOutputs::failed(vec![flow::unknown(&text)]),
    };
    let result = job_result(spec, job, flow, outputs, &text);
    times.compute += t.elapsed();
    result
}

/// A Handshake input, its library files read as the daemon reads them (given digests
/// checked; a file that cannot be read as UTF-8 is a unit ignored with a warning).
fn handshake(spec: &BuildSpec, text: &str, digests: &mut Digests) -> flow::Outcome {
    let opts = spec.handshake.options(spec.limits());
    match prepared(&spec.handshake, &opts, text, digests) {
        Ok((front, library)) => flow::handshake::back(&front, library, opts.dialect, &opts.limits),
        Err(failed) => failed,
    }
}

/// A Handshake design's front (parsed, analysed, marked) and the library units it uses,
/// read as a build reads them, under `limits`; or the outcome of a design that cannot be
/// built (its errors). What `kiln synth-report` reports on.
pub fn handshake_front(
    spec: &HandshakeSpec,
    limits: Limits,
    text: &str,
) -> Result<(Front, Library), flow::Outcome> {
    prepared(spec, &spec.options(limits), text, &mut Digests::default())
}

fn prepared(
    spec: &HandshakeSpec,
    opts: &Options,
    text: &str,
    digests: &mut Digests,
) -> Result<(Front, Library), flow::Outcome> {
    let front = flow::handshake::front(text, opts).map_err(flow::handshake::front_failed)?;
    let Some(lib) = &spec.blif_lib else {
        return Err(flow::Outcome::failed(vec![flow::handshake::no_library()]));
    };
    let mut read = |rel: &str| {
        let full = lib.join(rel);
        if !full.is_file() {
            return LibraryFile::Missing;
        }
        let shown = full.display().to_string();
        match read_text(&full, opts.limits.max_input_size, digests) {
            Ok(text) if is_blif(&full) => LibraryFile::Text { shown, text },
            _ => LibraryFile::NotUtf8 { shown },
        }
    };
    let mut library = flow::handshake::load(&front, &mut read, &opts.limits);
    if let Some(dir) = &spec.rtl_lib {
        crate::rtl::load(&front, dir, &mut library, &opts.limits)
            .map_err(|d| flow::Outcome::failed(vec![d]))?;
    }
    Ok((front, library))
}
