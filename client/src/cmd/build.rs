//! `kiln build FILE.mlir --out-dir DIR`: compile a design with the flow its content selects.
//!
//! Dispatch is on content ([`compiler::flow::Flow::detect`]): a module with a `tor.design`
//! goes to the APS flow, which writes `DIR/<stem>.cmt2.mlir` and `DIR/<stem>.rules.json`
//! (and `<stem>.sv` with `--emit sv`); a module with a `handshake.func` goes to Handshake →
//! Synth, which writes `<stem>.synth.mlir`, `.aig`, `.blif` and `.hier.blif` from the
//! `--blif-lib` library (the outputs of `kiln synth`).
//!
//! The build goes through the workspace's daemon (started on first use; see
//! `daemon_client`); `--no-daemon`, or a daemon that cannot be used, builds in this process
//! through the compiler's flows; `--remote-cache` runs the cached query pipeline in process
//! on the layered store. All write byte-identical outputs.

use crate::daemon_client;
use crate::io::Failure;
use kiln_daemon::spec::HandshakeSpec;
use std::path::Path;
use std::path::PathBuf;

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
    /// Then say why each query executed (`kiln why`).
    #[arg(long)]
    pub explain: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    if let Some(url) = args.remote.url() {
        return super::build_cached::run(&args, url);
    }
    let kinds: Vec<String> = match args.emit {
        Some(super::rtl::Emit::Sv) => ["cmt2", "rules-json", "sv"].map(String::from).to_vec(),
        None => Vec::new(),
    };
    let mut spec = daemon_client::spec(std::slice::from_ref(&args.file), &kinds, &args.out_dir)?;
    spec.handshake = handshake_spec(&args.file, &args.handshake);
    // The command reports diagnostics only: the daemon need not list unchanged files.
    spec.changed_only = true;
    let mut report = daemon_client::build(&spec, args.no_daemon);
    if args.explain {
        super::why::print_after_build(args.no_daemon);
    }
    // Name the input as the user did (the spec carries it absolute).
    let (absolute, given) = (
        spec.inputs[0].display().to_string(),
        args.file.display().to_string(),
    );
    for m in report
        .diagnostics
        .iter_mut()
        .flat_map(|d| d.messages.iter_mut())
    {
        if m.path == absolute {
            m.path = given.clone();
        }
    }
    daemon_client::report(&report)
}

/// The Handshake options of a build. The library is resolved here (`--blif-lib`,
/// `kiln.toml`, `$KILN_BLIF_LIB`: the client's view); when none is found the spec has
/// none, and a Handshake input then fails with the same message `kiln synth` gives.
pub fn handshake_spec(file: &Path, args: &super::synth::HandshakeArgs) -> HandshakeSpec {
    HandshakeSpec {
        blif_lib: super::synth::library_dir(file, args)
            .ok()
            .map(|l| daemon_client::absolute(&l)),
        path_table: args.path_table.as_deref().map(daemon_client::absolute),
        dialect: args.synth_dialect.into(),
        naming: args.naming.into(),
    }
}
