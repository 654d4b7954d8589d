//! `kiln synth CIRCUIT.mlir [--func NAME] --blif-lib DIR [-o OUT] [--no-daemon]`: Handshake →
//! Synth.
//!
//! Writes `OUT/<stem>.synth.mlir`, `OUT/<stem>.aig` (binary AIGER with symbols),
//! `OUT/<stem>.blif` (flat) and `OUT/<stem>.hier.blif` (top model + each used unit model once).
//! The library directory comes from `--blif-lib`, else `blif_lib` in the nearest `kiln.toml`
//! (searched upwards from the working directory, relative to that file), else
//! `$KILN_BLIF_LIB`; it must be a directory, and hold at least one of the design's units.
//!
//! The command is `kiln build` of one Handshake design: the same build request (with
//! `--func` as its `handshake.func`, and the Handshake outputs as its kinds) through the
//! workspace's daemon, or in this process with `--no-daemon`, so its files, messages and
//! summary line are those of `kiln build` of the same file. An input that is not a
//! Handshake design is refused before the build (`kiln build` takes any design).

use super::args::{HandshakeArgs, LintArgs, OutDir, checked_handshake_spec};
use crate::daemon_client;
use crate::io::{self, Failure};
use compiler::diag::Code;
use compiler::flow::Flow;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln synth gcd.mlir --blif-lib ../shared/dynamatic_blif/library
                                     out/gcd.synth.mlir, gcd.aig, gcd.blif, gcd.hier.blif
  kiln synth kernels.mlir --func fir -o synth       one handshake.func of several
  berkeley-abc -c \"read -c out/gcd.hier.blif; strash; dsec out/gcd.aig\"   check it")]
pub struct Args {
    /// A Handshake MLIR file.
    pub file: PathBuf,
    /// The `handshake.func` to build, when the file has several.
    #[arg(long, value_name = "NAME")]
    pub func: Option<String>,
    #[command(flatten)]
    pub handshake: HandshakeArgs,
    #[command(flatten)]
    pub out: OutDir,
    /// Build in this process instead of through the workspace's daemon.
    #[arg(long)]
    pub no_daemon: bool,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let out_dir = args.out.resolve()?;
    let text = io::read_source(&args.file)?;
    let flow = Flow::detect(&args.file, &text);
    if flow != Flow::Handshake {
        let what = match flow {
            Flow::Aps => "an APS design",
            Flow::Blif => "a BLIF netlist",
            _ => "not a Handshake design",
        };
        let m = io::file_error(
            &args.file,
            Code::OneHandshakeFunc,
            format!(
                "no handshake.func with a body in the input ({what}; `kiln synth` builds Handshake designs, `kiln build` any design)"
            ),
        );
        return Err(Failure::located(vec![m]));
    }
    let given = [args.file];
    let kinds = Flow::Handshake.default_kinds().to_vec();
    let mut spec = daemon_client::spec_of(&given, kinds, &out_dir);
    spec.handshake = checked_handshake_spec(&args.handshake)?;
    spec.handshake.func = args.func;
    spec.lints = LintArgs::default().resolved();
    spec.changed_only = true;
    let (report, via) = daemon_client::build_via(&spec, args.no_daemon);
    super::build::finish(&spec, &given, &report, via)
}
