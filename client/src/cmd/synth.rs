//! `kiln synth CIRCUIT.mlir [--func NAME] --blif-lib DIR [-o OUT]`: Handshake → Synth.
//!
//! Writes `OUT/<stem>.synth.mlir`, `OUT/<stem>.aig` (binary AIGER with symbols),
//! `OUT/<stem>.blif` (flat) and `OUT/<stem>.hier.blif` (top model + each used unit model once).
//! The library directory comes from `--blif-lib`, else `blif_lib` in the nearest `kiln.toml`
//! (searched upwards from the working directory, relative to that file), else
//! `$KILN_BLIF_LIB`; it must be a directory, and hold at least one of the design's units.
//! The compiler's Handshake flow ([`compiler::flow::handshake`]) does the work; this command
//! reads the input, the path table and each library file the design uses (once each).

use super::args::{HandshakeArgs, library_dir, rtl_dir};
use crate::diagnostics;
use crate::io::{self, Failure};
use compiler::diag::Located;
use compiler::flow::Flow;
use compiler::flow::handshake::{self as flow, Front, Library, LibraryFile, Options};
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
    pub out: super::args::OutDir,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let start = std::time::Instant::now();
    let out_dir = args.out.resolve()?;
    let shown = args.file.display().to_string();
    let text = io::read_source(&args.file)?;
    let outcome = match prepare(&text, &args.handshake, args.func.as_deref())? {
        Ok((front, library)) => {
            let limits = kiln_daemon::input::limits();
            flow::back(
                &front,
                library,
                args.handshake.synth_dialect.into(),
                &limits,
            )
        }
        Err(failed) => failed,
    };
    let mut tally = diagnostics::Tally::default();
    tally.show_all(&messages(&outcome, &shown, &text));
    tally.close("synthesize", &format!("`{shown}`"))?;
    let stem = args
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let mut written = 0;
    for (kind, pieces) in &outcome.outputs {
        let path = out_dir.join(format!("{stem}.{}", kind.suffix()));
        written += usize::from(io::write_atomic_parts(&path, pieces)?);
    }
    let line = format!(
        "{} ({written} written) in {:.1} ms [in process]",
        diagnostics::plural(outcome.outputs.len(), "output"),
        start.elapsed().as_secs_f64() * 1e3
    );
    diagnostics::status("Built", &line);
    Ok(())
}

/// An outcome's messages, located and coded: those about library files, then the design's.
pub fn messages(outcome: &compiler::flow::Outcome, shown: &str, text: &str) -> Vec<Located> {
    let own = compiler::diag::locate_all(&outcome.diagnostics, shown, text);
    (outcome.elsewhere.iter().cloned().chain(own))
        .map(|m| Flow::Handshake.coded_located(m))
        .collect()
}

/// The flow's options (the path table read and checked).
fn options(args: &HandshakeArgs, func: Option<&str>) -> Result<Options, Failure> {
    let path_table = match &args.path_table {
        None => None,
        Some(file) => Some((file.display().to_string(), io::read_source(file)?)),
    };
    Ok(Options {
        dialect: args.synth_dialect.into(),
        naming: args.naming.into(),
        path_table,
        limits: kiln_daemon::input::limits(),
        func: func.map(str::to_string),
    })
}

/// The design's front (parsed, analysed, marked) and the library units it uses, each
/// library file read and lowered once; or the outcome of a design that cannot be built
/// (its errors, no library). `Err`: the library or the path table cannot be used at all.
pub fn prepare(
    text: &str,
    args: &HandshakeArgs,
    func: Option<&str>,
) -> Result<Result<(Front, Library), compiler::flow::Outcome>, Failure> {
    let lib = library_dir(args)?;
    let front = match flow::front(text, &options(args, func)?) {
        Ok(f) => f,
        Err(e) => return Ok(Err(flow::front_failed(e))),
    };
    let Some(lib) = lib else {
        return Ok(Err(compiler::flow::Outcome::failed(vec![
            flow::no_library(),
        ])));
    };
    let mut read = |rel: &str| {
        let file = lib.join(rel);
        let shown = file.display().to_string();
        match kiln_daemon::input::read(&file).map(String::from_utf8) {
            Err(_) => LibraryFile::Missing,
            Ok(Err(_)) => LibraryFile::NotUtf8 { shown },
            Ok(Ok(text)) => LibraryFile::Text { shown, text },
        }
    };
    let limits = kiln_daemon::input::limits();
    let mut library = flow::load(&front, &mut read, &limits);
    if let Some(dir) = rtl_dir(args)?
        && let Err(d) = kiln_daemon::rtl::load(&front, &dir, &mut library, &limits)
    {
        return Ok(Err(compiler::flow::Outcome::failed(vec![d])));
    }
    Ok(Ok((front, library)))
}
