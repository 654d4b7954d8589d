//! `kiln-bench daemon [--library DIR] [--runs N]`: the daemon's latency figures.
//!
//! In a fresh workspace (own runtime and cache directories, so everything starts cold) it
//! measures, through the same client calls `kiln build` makes (connect, `Status` handshake,
//! `Build`): the cold build of a generated 512-function APS module, the warm no-op round
//! trip, a one-function edit (write + build, end to end: the first after the cold build on
//! its own, then the steady state once the cold build's writeback is done), and, with a
//! BLIF library (default: the shared Dynamatic library when present), a one-file library
//! edit. It also checks that the daemon's outputs equal a cold in-process build byte for
//! byte (by digest), and measures the floor of the edit: writing the same output bytes
//! with a plain temp file + rename per file (one thread each, as the daemon does), and
//! hashing them.
//!
//! Timed builds send what `kiln build` sends (no digests, changed files only). The daemon
//! is the `kiln` next to `kiln-bench`, started as `kiln daemon` in that workspace; this
//! process talks to it through the daemon crate's client, and builds in process through
//! its one-shot build ([`kiln_daemon::oneshot`]), as `kiln build --no-daemon` does. The
//! figures and what the daemon does to reach them are discussed in `docs/bench.md`.

use crate::common::{EDIT_CYCLE, Failure, fail, first_cycle_op, kiln_binary, ms, shared_dir};
use kiln_daemon::client::{Connector, build_via_daemon};
use kiln_daemon::report::{BuildReport, OutputFile};
use kiln_daemon::request::BuildSpec;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// BLIF library directory to copy and edit (default: the shared Dynamatic library).
    #[arg(long)]
    pub library: Option<PathBuf>,
    /// Repetitions of each warm measurement (median reported).
    #[arg(long, default_value_t = 50)]
    pub runs: usize,
    /// Functions in the generated APS module (at most 512: 4 custom opcodes × 128 funct7).
    #[arg(long, default_value_t = 512)]
    pub functions: usize,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let root = tempfile::tempdir().map_err(fail)?;
    let ws = root.path().join("ws");
    std::fs::create_dir_all(&ws).map_err(fail)?;
    let exe = kiln_binary(None)?;
    let mut c = Connector::in_base(Some(&root.path().join("run")), &ws, exe).map_err(fail)?;
    c.daemon_args.push("--cache-dir".into());
    c.daemon_args
        .push(root.path().join("cache").to_string_lossy().into_owned());
    let result = bench(&args, &c, &ws);
    stop(&c);
    result
}

fn bench(args: &Args, c: &Connector, ws: &Path) -> Result<(), Failure> {
    let t = Instant::now();
    build(c, &spec(&[], &ws.join("none")))?;
    println!("daemon start + first round trip: {:.1} ms", ms(t.elapsed()));

    let big = ws.join("big.mlir");
    let text = compiler::aps::workload::generate(args.functions, 1);
    std::fs::write(&big, &text).map_err(fail)?;
    let req = cli_request(std::slice::from_ref(&big), &ws.join("out"));
    let t = Instant::now();
    build(c, &req)?;
    let cold = t.elapsed();
    println!(
        "cold build, {} functions (daemon): {:.1} ms",
        args.functions,
        ms(cold)
    );

    let t = Instant::now();
    let mut in_proc_req = spec(std::slice::from_ref(&big), &ws.join("out-inproc"));
    in_proc_req.digests = true;
    let in_proc = kiln_daemon::oneshot::build(&in_proc_req);
    println!("cold build (in process): {:.1} ms", ms(t.elapsed()));
    let with_digests = BuildSpec {
        digests: true,
        changed_only: false,
        ..req.clone()
    };
    let daemon_files = build(c, &with_digests)?.files;
    let same = same_files(&daemon_files, &in_proc.files);
    println!("daemon and in-process outputs identical: {same}");

    let noop = median((0..args.runs.max(1)).map(|_| timed(|| build(c, &req))))?;
    println!("warm no-op round trip: p50 {:.2} ms", ms(noop.0));
    println!("{}", noop.1);

    let target = format!("tor.func @f{}(", args.functions / 2);
    let start = text
        .find(&target)
        .ok_or_else(|| fail("function not found"))?;
    let edit = |c: &Connector| edit_function(c, &big, start, &req);
    // The first edit after a cold build: the daemon prepared the large outputs' spares in
    // the background after writing them (without that, the edit would write them whole).
    let first = edit(c)?;
    println!(
        "first one-function edit after the cold build: {:.2} ms",
        ms(first.save + first.build)
    );
    edit(c)?;
    // The cold build left ~300 MB of dirty pages (outputs, cache packs): while the kernel
    // writes them back, a save of the source waits on the journal (~20 ms instead of ~3
    // for the first dozen edits). Measure the steady state of an edit session.
    // SAFETY: sync has no preconditions.
    unsafe { libc::sync() };
    let samples = (0..args.runs.max(1))
        .map(|_| edit(c))
        .collect::<Result<Vec<_>, _>>()?;
    let pct = |f: &dyn Fn(&Edit) -> Duration, q: f64| {
        let mut v: Vec<Duration> = samples.iter().map(f).collect();
        v.sort();
        v[((v.len() - 1) as f64 * q).round() as usize]
    };
    let total = |e: &Edit| e.save + e.build;
    let (end_to_end, save, after) = (
        pct(&total, 0.5),
        pct(&|e| e.save, 0.5),
        pct(&|e| e.build, 0.5),
    );
    println!(
        "one-function edit (write + build), after writeback: p50 {:.2} ms, p90 {:.2} ms, {:.0}x faster than the cold build",
        ms(end_to_end),
        ms(pct(&total, 0.9)),
        cold.as_secs_f64() / end_to_end.as_secs_f64(),
    );
    println!(
        "    of which writing the {:.1} MB source: p50 {:.2} ms; the build round trip after it: p50 {:.2} ms (p90 {:.2} ms), {:.0}x faster than the cold build",
        text.len() as f64 / 1e6,
        ms(save),
        ms(after),
        ms(pct(&|e| e.build, 0.9)),
        cold.as_secs_f64() / after.as_secs_f64(),
    );
    let replies: Vec<Sample> = samples.into_iter().map(|e| (e.build, e.reply)).collect();
    println!("{}", phases(&replies));
    // The outputs the edits left (rewritten in place in the spares) equal a cold build.
    let mut final_req = spec(std::slice::from_ref(&big), &ws.join("out-final"));
    final_req.digests = true;
    let cold_final = kiln_daemon::oneshot::build(&final_req);
    let after_edits = build(c, &with_digests)?.files;
    let same = same_files(&after_edits, &cold_final.files);
    println!("    outputs after the edits identical to a cold in-process build: {same}");
    let outs = ["big.cmt2.mlir", "big.rules.json"].map(|n| ws.join("out").join(n));
    floor(&outs, args.runs.max(1))?;

    let Some(lib) = args.library.clone().or_else(shared_library) else {
        println!("BLIF library edit: skipped (no --library and no shared Dynamatic library)");
        return Ok(());
    };
    bench_library(args, c, ws, &lib)
}

fn bench_library(args: &Args, c: &Connector, ws: &Path, lib: &Path) -> Result<(), Failure> {
    let copy = ws.join("lib");
    copy_tree(lib, &copy)?;
    let req = cli_request(std::slice::from_ref(&copy), &ws.join("lib-out"));
    let t = Instant::now();
    let reply = build(c, &req)?;
    println!(
        "BLIF library cold build ({} files): {:.1} ms",
        reply.files.len() as u64 + reply.unchanged_omitted,
        ms(t.elapsed())
    );
    let noop = median((0..args.runs.max(1)).map(|_| timed(|| build(c, &req))))?;
    println!("BLIF library no-op round trip: p50 {:.2} ms", ms(noop.0));
    println!("{}", noop.1);
    let victim = first_blif(&copy).ok_or_else(|| fail("no BLIF file in the library"))?;
    let original = std::fs::read_to_string(&victim).map_err(fail)?;
    let edit = median((0..args.runs.max(1)).map(|i| {
        let text = format!("# edit {i}\n{original}");
        timed(|| {
            std::fs::write(&victim, &text).map_err(fail)?;
            build(c, &req)
        })
    }))?;
    println!(
        "one-file BLIF library edit, a comment (write + build): p50 {:.2} ms",
        ms(edit.0)
    );
    println!("{}", edit.1);
    // A logic edit: the first cover row starting with `1` flipped, and back, in turns;
    // each build lowers the file's model again and writes its AIG.
    let Some(k) = original.find("\n1") else {
        println!(
            "one-file BLIF library logic edit: skipped (no cover row in {})",
            victim.display()
        );
        return Ok(());
    };
    let flipped = format!("{}\n0{}", &original[..k], &original[k + 2..]);
    let mut aigs = Vec::new();
    let edit = median((0..args.runs.max(1)).map(|i| {
        let text = if i % 2 == 0 { &flipped } else { &original };
        let r = timed(|| {
            std::fs::write(&victim, text).map_err(fail)?;
            build(c, &req)
        });
        if let Ok((_, reply)) = &r {
            let n = reply.counts.get("aig");
            aigs.push(n.map_or(0, |q| q.executions + q.cache_hits));
        }
        r
    }))?;
    println!(
        "one-file BLIF library logic edit (write + build): p50 {:.2} ms; AIGs computed or loaded per build: {:?}",
        ms(edit.0),
        aigs
    );
    println!("{}", edit.1);
    Ok(())
}

/// Whether two builds' outputs have the same digests, file by file.
fn same_files(a: &[OutputFile], b: &[OutputFile]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.sha256 == b.sha256)
}

/// A build of `inputs` into `out_dir`, their default outputs, under the default limits
/// (as `kiln build` makes it: paths made absolute, the daemon's directory is not ours).
fn spec(inputs: &[PathBuf], out_dir: &Path) -> BuildSpec {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    BuildSpec {
        inputs: inputs.iter().map(|p| absolute(p)).collect(),
        out_dir: absolute(out_dir),
        limits: Some(kiln_daemon::input::limits()),
        ..BuildSpec::default()
    }
}

/// The spec `kiln build` sends for these inputs.
fn cli_request(inputs: &[PathBuf], out_dir: &Path) -> BuildSpec {
    BuildSpec {
        changed_only: true,
        ..spec(inputs, out_dir)
    }
}

/// References for an edit that rewrites `outputs`: their bytes written again to fresh files
/// with a plain temp file + rename each (one thread per file, no fsync: what the daemon did
/// before it kept spares, without any of its work), and their SHA-256 (what a client
/// asking for digests adds).
fn floor(outputs: &[PathBuf], runs: usize) -> Result<(), Failure> {
    let bytes: Vec<Vec<u8>> = outputs
        .iter()
        .map(|p| std::fs::read(p).map_err(fail))
        .collect::<Result<_, _>>()?;
    let total: usize = bytes.iter().map(Vec::len).sum();
    let write_once = || -> Result<Duration, Failure> {
        let t = Instant::now();
        std::thread::scope(|s| {
            let handles: Vec<_> = outputs
                .iter()
                .zip(&bytes)
                .map(|(p, b)| s.spawn(move || plain_write(p, b)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(fail("writer panicked"))))
                .collect::<Result<Vec<()>, Failure>>()
        })?;
        Ok(t.elapsed())
    };
    let mut writes = (0..runs)
        .map(|_| write_once())
        .collect::<Result<Vec<_>, _>>()?;
    writes.sort();
    let mut hashes: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            bytes.iter().for_each(|b| {
                std::hint::black_box(kiln_cache::digest(b));
            });
            t.elapsed()
        })
        .collect();
    hashes.sort();
    println!(
        "    reference: writing the same {:.1} MB to fresh files (temp + rename, a thread per file): p50 {:.2} ms; SHA-256 of them (one thread): p50 {:.2} ms",
        total as f64 / 1e6,
        ms(writes[writes.len() / 2]),
        ms(hashes[hashes.len() / 2])
    );
    Ok(())
}

fn plain_write(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let tmp = path.with_extension("floor-tmp");
    std::fs::write(&tmp, bytes).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

fn build(c: &Connector, req: &BuildSpec) -> Result<BuildReport, Failure> {
    let r = build_via_daemon(c, req).map_err(fail)?;
    if !r.ok() {
        return Err(fail(format!("build failed:\n{}", r.rendered())));
    }
    Ok(r)
}

/// One timed build: wall time at the client, and the report (with the daemon's phases).
type Sample = (Duration, BuildReport);

fn timed(f: impl FnOnce() -> Result<BuildReport, Failure>) -> Result<Sample, Failure> {
    let t = Instant::now();
    let r = f()?;
    Ok((t.elapsed(), r))
}

/// The median wall time, and the median of each phase the daemon reports.
fn median(
    samples: impl Iterator<Item = Result<Sample, Failure>>,
) -> Result<(Duration, String), Failure> {
    let v = samples.collect::<Result<Vec<_>, _>>()?;
    let mut d: Vec<Duration> = v.iter().map(|s| s.0).collect();
    d.sort();
    Ok((d[d.len() / 2], phases(&v)))
}

/// The median of each phase the daemon reports.
fn phases(v: &[Sample]) -> String {
    let mid = |f: &dyn Fn(&Sample) -> Duration| {
        let mut d: Vec<Duration> = v.iter().map(f).collect();
        d.sort();
        d[d.len() / 2]
    };
    format!(
        "    daemon phases (p50): sync {:.2} ms, compute {:.2} ms, hash {:.2} ms, write {:.2} ms; daemon total {:.2} ms",
        ms(mid(&|s| s.1.times.sync)),
        ms(mid(&|s| s.1.times.compute)),
        ms(mid(&|s| s.1.times.hash)),
        ms(mid(&|s| s.1.times.write)),
        ms(mid(&|s| s.1.times.total)),
    )
}

/// One timed edit: the source saved, then built.
struct Edit {
    save: Duration,
    build: Duration,
    reply: BuildReport,
}

/// Turn the first arithmetic op of the function at `start` in `big` into the next of a
/// cycle of three, with one more space after it for each step of the cycle: no build's
/// text equals the one before last (which the daemon's double-buffered outputs would find
/// already written), and the function's length changes, as it does in real edits. Then
/// save the file (timed) and build it (timed).
fn edit_function(
    c: &Connector,
    big: &Path,
    start: usize,
    req: &BuildSpec,
) -> Result<Edit, Failure> {
    let current = std::fs::read_to_string(big).map_err(fail)?;
    let (k, op) = first_cycle_op(&current, start).ok_or_else(|| fail("no op"))?;
    let end = k + EDIT_CYCLE[op].len();
    let spaces = current[end..].bytes().take_while(|&b| b == b' ').count();
    let next = (op + 1) % EDIT_CYCLE.len();
    let edited = format!(
        "{}{}{}{}",
        &current[..k],
        EDIT_CYCLE[next],
        " ".repeat(1 + next),
        &current[end + spaces..]
    );
    let t = Instant::now();
    std::fs::write(big, &edited).map_err(fail)?;
    let save = t.elapsed();
    let t = Instant::now();
    let reply = build(c, req)?;
    Ok(Edit {
        save,
        build: t.elapsed(),
        reply,
    })
}

fn shared_library() -> Option<PathBuf> {
    let lib = shared_dir(None).join("dynamatic_blif/library");
    lib.is_dir().then_some(lib)
}

fn first_blif(dir: &Path) -> Option<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if let Some(f) = first_blif(&p) {
                return Some(f);
            }
        } else if p.extension().is_some_and(|x| x == "blif") {
            return Some(p);
        }
    }
    None
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(to).map_err(fail)?;
    for e in std::fs::read_dir(from).map_err(fail)? {
        let e = e.map_err(fail)?;
        let target = to.join(e.file_name());
        if e.file_type().map_err(fail)?.is_dir() {
            copy_tree(&e.path(), &target)?;
        } else {
            std::fs::copy(e.path(), target).map_err(fail)?;
        }
    }
    Ok(())
}

fn stop(c: &Connector) {
    let Ok(rt) = kiln_daemon::client::runtime() else {
        return;
    };
    rt.block_on(async {
        if let Some(mut client) = c.connect_existing().await {
            let _ = client.shutdown().await;
        }
        let _ = c.wait_until_gone(Duration::from_secs(20)).await;
    });
}
