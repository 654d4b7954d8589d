//! `kiln synth CIRCUIT.mlir --blif-lib DIR --out-dir OUT`: Handshake → Synth.
//!
//! Writes `OUT/<stem>.synth.mlir`, `OUT/<stem>.aig` (binary AIGER with symbols),
//! `OUT/<stem>.blif` (flat) and `OUT/<stem>.hier.blif` (top model + each used unit model once).
//! The library directory comes from `--blif-lib`, else `blif_lib` in the nearest `kiln.toml`
//! (searched upwards from the input's directory, relative to that file), else `$KILN_BLIF_LIB`.
//! The compiler's Handshake flow ([`compiler::flow::handshake`]) does the work; this command
//! reads the input, the path table and each library file the design uses (once each).

use crate::io::{self, Failure};
use compiler::flow::handshake::{self as flow, Front, Library, LibraryFile, Options};
use compiler::handshake::{Dialect, Naming};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum DialectArg {
    /// CIRCT Synth (`synth.aig.and_inv`, `seq.compreg`).
    Circt,
    /// Dynamatic Synth (`synth.and_inv`, `synth.latch`).
    Dynamatic,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum NamingArg {
    /// Top ports from `argNames`/`resNames`.
    ArgNames,
    /// Top ports `in<i>`/`out<j>` (the original pass).
    InOut,
}

/// The Handshake options (shared with `kiln build`).
#[derive(Clone, Debug, clap::Args)]
pub struct HandshakeArgs {
    /// Directory of the per-unit BLIF library.
    #[arg(long, value_name = "DIR")]
    pub blif_lib: Option<PathBuf>,
    /// Path-table override file (`key = template` lines).
    #[arg(long, value_name = "FILE")]
    pub path_table: Option<PathBuf>,
    /// Spelling of the emitted Synth MLIR.
    #[arg(long, value_enum, default_value = "circt")]
    pub synth_dialect: DialectArg,
    /// Naming of the top module's ports.
    #[arg(long, value_enum, default_value = "arg-names")]
    pub naming: NamingArg,
}

#[derive(clap::Args)]
pub struct Args {
    /// A Handshake MLIR file with one `handshake.func`.
    pub file: PathBuf,
    #[command(flatten)]
    pub handshake: HandshakeArgs,
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out_dir: PathBuf,
}

impl From<DialectArg> for Dialect {
    fn from(d: DialectArg) -> Dialect {
        match d {
            DialectArg::Circt => Dialect::Circt,
            DialectArg::Dynamatic => Dialect::Dynamatic,
        }
    }
}

impl From<NamingArg> for Naming {
    fn from(n: NamingArg) -> Naming {
        match n {
            NamingArg::ArgNames => Naming::ArgNames,
            NamingArg::InOut => Naming::InOut,
        }
    }
}

pub fn run(args: Args) -> Result<(), Failure> {
    let shown = args.file.display().to_string();
    let text = io::read_source(&args.file)?;
    let (front, library) = prepare(&args.file, &text, &args.handshake)?;
    let outcome = flow::back(&front, library, args.handshake.synth_dialect.into());
    let mut messages: String = outcome.elsewhere.iter().map(|m| m.render()).collect();
    messages.push_str(&compiler::diag::render_all(
        &outcome.diagnostics,
        &shown,
        &text,
    ));
    if outcome.has_errors() {
        return Err(Failure::input(messages));
    }
    eprint!("{messages}");
    let stem = args
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    for (kind, pieces) in &outcome.outputs {
        let path = args.out_dir.join(format!("{stem}.{}", kind.suffix()));
        io::write_atomic_parts(&path, pieces)?;
    }
    Ok(())
}

/// The flow's options (the path table read and checked).
fn options(args: &HandshakeArgs) -> Result<Options, Failure> {
    let path_table = match &args.path_table {
        None => None,
        Some(file) => Some((file.display().to_string(), io::read_source(file)?)),
    };
    Ok(Options {
        dialect: args.synth_dialect.into(),
        naming: args.naming.into(),
        path_table,
        limits: kiln_daemon::input::limits(),
    })
}

/// The design's front (parsed, analysed, marked) and the library units it uses, each
/// library file read and lowered once.
pub fn prepare(path: &Path, text: &str, args: &HandshakeArgs) -> Result<(Front, Library), Failure> {
    let shown = path.display().to_string();
    let front = flow::front(text, &options(args)?).map_err(|e| match e {
        flow::FrontError::Input(d) => Failure::diagnostics(&[d], &shown, text),
        flow::FrontError::PathTable(l) => Failure::input(l.render()),
    })?;
    let lib = library_dir(path, args)?;
    let mut read = |rel: &str| {
        let file = lib.join(rel);
        let shown = file.display().to_string();
        match kiln_daemon::input::read(&file).map(String::from_utf8) {
            Err(_) => LibraryFile::Missing,
            Ok(Err(_)) => LibraryFile::NotUtf8 { shown },
            Ok(Ok(text)) => LibraryFile::Text { shown, text },
        }
    };
    let library = flow::load(&front, &mut read);
    Ok((front, library))
}

/// `--blif-lib`, else `blif_lib` of the nearest `kiln.toml`, else `$KILN_BLIF_LIB`.
pub fn library_dir(input: &Path, args: &HandshakeArgs) -> Result<PathBuf, Failure> {
    if let Some(d) = &args.blif_lib {
        return Ok(d.clone());
    }
    let start = input
        .canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."));
    for dir in start.ancestors() {
        let toml = dir.join("kiln.toml");
        if let Ok(text) = std::fs::read_to_string(&toml)
            && let Some(v) = toml_string(&text, "blif_lib")
        {
            return Ok(dir.join(v));
        }
    }
    if let Some(v) = std::env::var_os("KILN_BLIF_LIB") {
        return Ok(PathBuf::from(v));
    }
    Err(Failure {
        message: "error: no BLIF library: pass --blif-lib DIR, set `blif_lib` in kiln.toml or $KILN_BLIF_LIB"
            .into(),
        code: 2,
    })
}

/// The string value of a top-level `key = "value"` line of a TOML file (before any table).
fn toml_string(text: &str, key: &str) -> Option<String> {
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            return None;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        if k.trim() == key {
            let v = v.split('#').next()?.trim();
            return Some(v.trim_matches('"').to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_key_is_read_before_tables() {
        let t = "# c\nblif_lib = \"../lib\" # x\n[other]\nblif_lib = \"no\"\n";
        assert_eq!(toml_string(t, "blif_lib").as_deref(), Some("../lib"));
        assert_eq!(toml_string("[a]\nblif_lib = \"x\"\n", "blif_lib"), None);
    }
}
