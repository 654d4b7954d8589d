//! `kiln build FILE.mlir --out-dir DIR`: compile a design with the flow its content selects.
//!
//! Dispatch is on content, in the daemon's driver (`kiln_daemon::driver`): a module whose
//! design context has `tor.design` goes to the APS flow, which writes `DIR/<stem>.cmt2.mlir`
//! and `DIR/<stem>.rules.json` (and `<stem>.sv` with `--emit sv`); a module with a
//! `handshake.func` goes to Handshake → Synth, which writes `<stem>.synth.mlir`, `.aig`,
//! `.blif` and `.hier.blif` from the `--blif-lib` library (the outputs of `kiln synth`).
//!
//! The build goes through the workspace's daemon (started on first use; see
//! `daemon_client`), or runs the same driver in this process with `--no-daemon` or when the
//! daemon cannot be used. Both write byte-identical outputs. This module only turns the
//! command line into a build request and the reply into diagnostics and an exit code.

use crate::daemon_client;
use crate::io::Failure;
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
    /// Build in this process instead of through the workspace's daemon.
    #[arg(long)]
    pub no_daemon: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let kinds: Vec<String> = match args.emit {
        Some(super::rtl::Emit::Sv) => ["cmt2", "rules-json", "sv"].map(String::from).to_vec(),
        None => Vec::new(),
    };
    let mut req = daemon_client::request(std::slice::from_ref(&args.file), &kinds, &args.out_dir);
    handshake_options(&mut req, &args.file, &args.handshake);
    let absolute = req.inputs[0].clone();
    let mut reply = daemon_client::build(req, args.no_daemon)?;
    // Name the input as the user did (the request carries it absolute).
    let given = args.file.display().to_string();
    for d in &mut reply.diagnostics {
        d.rendered = d.rendered.replace(&absolute, &given);
    }
    daemon_client::report(&reply)
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
