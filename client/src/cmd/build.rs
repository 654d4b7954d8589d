//! `kiln build FILE.mlir --out-dir DIR`: compile a design with the flow its content selects.
//!
//! Dispatch is on content, in the daemon's driver (`kiln_daemon::driver`): a module whose
//! design context has `tor.design` goes to the APS flow, which writes `DIR/<stem>.cmt2.mlir`
//! and `DIR/<stem>.rules.json` (and `<stem>.sv` with `--emit sv`); a module with a
//! `handshake.func` goes to Handshake → Synth, which writes `<stem>.synth.mlir`, `.aig`,
//! `.blif` and `.hier.blif` from the `--blif-lib` library (the outputs of `kiln synth`).
//!
//! The build goes through the workspace's daemon (started on first use; see
//! `daemon_client`), or runs the same driver in this process when the daemon cannot be used.
//! `--no-daemon` builds the whole file directly with the compiler (`run_direct`), and
//! `--remote-cache` runs the driver in process on the layered store. All write
//! byte-identical outputs.

use crate::daemon_client;
use crate::io::{self, Failure};
use compiler::aps;
use compiler::mlir::ast::ModuleAst;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The MLIR input.
    pub file: PathBuf,
    /// Where outputs go (created if missing).
    #[arg(long, default_value = "out")]
    pub out_dir: PathBuf,
    /// Options of the Handshake → Synth flow.
    #[command(flatten)]
    pub handshake: super::synth::HandshakeArgs,
    /// Also write `<stem>.sv` (SystemVerilog of the rule circuit).
    #[arg(long, value_enum)]
    pub emit: Option<super::rtl::Emit>,
    /// Build through the cached query pipeline with this remote cache tier behind the local
    /// cache: `http://HOST:PORT[/PREFIX]` or `grpc://HOST:PORT[/INSTANCE]`.
    #[command(flatten)]
    pub remote: super::build_cached::RemoteArgs,
    /// Build in this process instead of through the workspace's daemon.
    #[arg(long)]
    pub no_daemon: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    if let Some(url) = args.remote.url() {
        return super::build_cached::run(&args, url);
    }
    if daemon_client::no_daemon_requested(args.no_daemon) {
        return run_direct(args);
    }
    let kinds: Vec<String> = match args.emit {
        Some(super::rtl::Emit::Sv) => ["cmt2", "rules-json", "sv"].map(String::from).to_vec(),
        None => Vec::new(),
    };
    let mut req = daemon_client::request(std::slice::from_ref(&args.file), &kinds, &args.out_dir);
    handshake_options(&mut req, &args.file, &args.handshake);
    // The command reports diagnostics only: the daemon need not list unchanged files.
    req.changed_only = true;
    // The user edits and rebuilds: large outputs get their spares ready (daemon only).
    req.spares_ahead = true;
    let absolute = req.inputs[0].clone();
    let mut reply = daemon_client::build(req, args.no_daemon)?;
    // Name the input as the user did (the request carries it absolute).
    let given = args.file.display().to_string();
    for d in &mut reply.diagnostics {
        d.rendered = d.rendered.replace(&absolute, &given);
    }
    daemon_client::report(&reply)
}

/// The flows `kiln build` knows, chosen from the parsed input.
enum Flow {
    Aps,
    Handshake,
}

fn select_flow(module: &ModuleAst) -> Option<Flow> {
    if aps::is_aps_module(module) {
        return Some(Flow::Aps);
    }
    let mut has_handshake = false;
    compiler::mlir::walk(&module.ops, &mut |op| {
        has_handshake |= op.name == "handshake.func"
    });
    has_handshake.then_some(Flow::Handshake)
}

/// `--no-daemon`: the whole file in this process through the compiler's parallel file
/// build, without the query pipeline (byte-identical outputs; the fastest cold build).
fn run_direct(args: Args) -> Result<(), Failure> {
    let path = args.file.display().to_string();
    let text = io::read_source(&args.file)?;
    let module = compiler::mlir::parse_with(&text, &kiln_daemon::input::limits())
        .map_err(|d| Failure::diagnostics(&[d], &path, &text))?;
    let stem = args
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    match select_flow(&module) {
        Some(Flow::Aps) => {
            let warnings = build_aps(&module, &stem, &args.out_dir)
                .map_err(|d| Failure::diagnostics(&[d], &path, &text))??;
            eprint!("{}", compiler::diag::render_all(&warnings, &path, &text));
            if args.emit == Some(super::rtl::Emit::Sv) {
                super::rtl::emit_sv_file(&module, &stem, &args.out_dir)?;
            }
            // The process ends after this command: freeing the op tree node by node would
            // only cost time.
            std::mem::forget(module);
            Ok(())
        }
        Some(Flow::Handshake) if args.emit.is_some() => Err(Failure {
            message: format!("{path}: error: --emit sv applies to APS designs only"),
            code: 2,
        }),
        Some(Flow::Handshake) => {
            super::synth::build_handshake(&args.file, &text, &args.handshake, &args.out_dir)
        }
        None => Err(Failure::input(format!(
            "{path}: error: no flow accepts this input (expected a module with `tor.design` or a `handshake.func`)"
        ))),
    }
}

/// The APS flow: one circuit per function, merged into one file. Returns the warnings.
fn build_aps(
    module: &ModuleAst,
    stem: &str,
    out_dir: &Path,
) -> Result<Result<Vec<compiler::diag::Diagnostic>, Failure>, compiler::diag::Diagnostic> {
    let out = aps::build_file(module, stem)?;
    Ok(write_aps(&out, stem, out_dir).map(|()| out.warnings))
}

/// Write `<stem>.cmt2.mlir` and `<stem>.rules.json`, one thread each, piece by piece.
/// Without fsync, as the daemon's driver writes them: they are regenerable, and the
/// temp file + rename still keeps readers from ever seeing a partial file.
pub fn write_aps(out: &aps::FileOutputs, stem: &str, out_dir: &Path) -> Result<(), Failure> {
    let write = |suffix: &str, parts: &[String]| {
        let parts: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
        let path = out_dir.join(format!("{stem}.{suffix}"));
        io::write_atomic_parts(&path, &parts, false).map(|_| ())
    };
    std::thread::scope(|s| {
        let json = s.spawn(|| write("rules.json", &out.json));
        let cmt2 = write("cmt2.mlir", &out.cmt2);
        let json = json
            .join()
            .unwrap_or_else(|_| Err(Failure::input("internal error: a writer thread panicked")));
        cmt2.and(json)
    })
}

/// The Handshake options of the request. The library is resolved here (`--blif-lib`,
/// `kiln.toml`, `$KILN_BLIF_LIB`: the client's view); when none is found the request has
/// none, and a Handshake input then fails with the same message `kiln synth` gives.
fn handshake_options(
    req: &mut kiln_daemon::proto::BuildRequest,
    file: &Path,
    args: &super::synth::HandshakeArgs,
) {
    let abs = |p: &Path| {
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .to_string_lossy()
            .into_owned()
    };
    if let Ok(lib) = super::synth::library_dir(file, args) {
        req.blif_lib = abs(&lib);
    }
    if let Some(t) = &args.path_table {
        req.path_table = abs(t);
    }
    req.synth_dialect = match args.synth_dialect {
        super::synth::DialectArg::Circt => "circt",
        super::synth::DialectArg::Dynamatic => "dynamatic",
    }
    .into();
    req.naming = match args.naming {
        super::synth::NamingArg::ArgNames => "arg-names",
        super::synth::NamingArg::InOut => "in-out",
    }
    .into();
}
