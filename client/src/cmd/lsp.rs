//! `kiln lsp`: the language server on stdin/stdout (see [`crate::lsp`]).

use crate::io::Failure;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln lsp                                     an editor's language server command (stdin/stdout)
  kiln lsp --blif-lib ../shared/dynamatic_blif/library    Handshake documents with this library")]
pub struct Args {
    /// Handshake documents: the BLIF library (else `blif_lib` in `kiln.toml` near the
    /// document, else `$KILN_BLIF_LIB`) and the Verilog templates (`--rtl-lib`, else
    /// `rtl_lib`, else `$KILN_RTL_LIB`), as for `kiln build`.
    #[command(flatten)]
    pub handshake: super::args::HandshakeArgs,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let handshake = args.handshake;
    crate::lsp::run(Box::new(move |path| {
        super::args::editor_handshake_spec(path, &handshake)
    }))
}
