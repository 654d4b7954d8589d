//! `kiln synth CIRCUIT.mlir --blif-lib DIR --out-dir OUT`: Handshake → Synth.
//!
//! Writes `OUT/<stem>.synth.mlir`, `OUT/<stem>.aig` (binary AIGER with symbols),
//! `OUT/<stem>.blif` (flat) and `OUT/<stem>.hier.blif` (top model + each used unit model once).
//! The library directory comes from `--blif-lib`, else `blif_lib` in the nearest `kiln.toml`
//! (searched upwards from the input's directory, relative to that file), else `$KILN_BLIF_LIB`.
//! The client reads and lowers each distinct library file once; the compiler does the rest.

use crate::io::{self, Failure};
use compiler::diag::{self, Diagnostic};
use compiler::handshake::{self, Circuit, Dialect, LibUnit, Naming, PathTable, UnitRef, aig_io};
use std::collections::BTreeMap;
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

pub fn run(args: Args) -> Result<(), Failure> {
    let text = io::read_source(&args.file)?;
    build_handshake(&args.file, &text, &args.handshake, &args.out_dir)
}

/// The lowered design and what it was built from.
pub struct Prepared {
    pub circuit: Circuit,
    pub marks: Vec<UnitRef>,
    pub units: BTreeMap<String, LibUnit>,
    pub texts: BTreeMap<String, String>,
    /// Problems reading or lowering library files (warnings).
    pub notes: Vec<String>,
}

/// Parse, analyse, mark, and read + lower each library file used (once per path).
pub fn prepare(path: &Path, text: &str, args: &HandshakeArgs) -> Result<Prepared, Failure> {
    let shown = path.display().to_string();
    let fail = |d: Diagnostic| Failure::diagnostics(&[d], &shown, text);
    let module = compiler::mlir::parse_with(text, &kiln_daemon::input::limits()).map_err(fail)?;
    let func = handshake::find_func(&module.ops).map_err(fail)?;
    let naming = match args.naming {
        NamingArg::ArgNames => Naming::ArgNames,
        NamingArg::InOut => Naming::InOut,
    };
    let circuit = handshake::analyze(func, naming).map_err(fail)?;
    let table = path_table(args)?;
    let limits = kiln_daemon::input::limits();
    let marks =
        handshake::mark::mark_circuit_with(func, &circuit, &table, &limits).map_err(fail)?;
    let lib = library_dir(path, args)?;
    let mut units = BTreeMap::new();
    let mut texts = BTreeMap::new();
    let mut notes = Vec::new();
    for rel in handshake::library_paths(&marks) {
        let file = lib.join(&rel);
        let Ok(bytes) = kiln_daemon::input::read(&file) else {
            continue;
        };
        let Ok(unit_text) = String::from_utf8(bytes) else {
            notes.push(format!("{}: not UTF-8; unit ignored", file.display()));
            continue;
        };
        match aig_io::lower_library_unit(&unit_text) {
            Ok(u) => {
                units.insert(rel.clone(), u);
                texts.insert(rel, unit_text);
            }
            Err(d) => notes.push(d.render(&file.display().to_string(), &unit_text)),
        }
    }
    Ok(Prepared {
        circuit,
        marks,
        units,
        texts,
        notes,
    })
}

/// `kiln build` entry for Handshake inputs: writes the four outputs into `out_dir`.
pub fn build_handshake(
    path: &Path,
    text: &str,
    args: &HandshakeArgs,
    out_dir: &Path,
) -> Result<(), Failure> {
    let shown = path.display().to_string();
    let p = prepare(path, text, args)?;
    for n in &p.notes {
        eprint!("warning: {n}");
    }
    let out = handshake::build(&p.circuit, &p.marks, &p.units)
        .map_err(|d| Failure::diagnostics(&[d], &shown, text))?;
    eprint!("{}", diag::render_all(&out.warnings, &shown, text));
    let dialect = match args.synth_dialect {
        DialectArg::Circt => Dialect::Circt,
        DialectArg::Dynamatic => Dialect::Dynamatic,
    };
    let hier =
        aig_io::hier_blif(&out, &p.texts).map_err(|d| Failure::diagnostics(&[d], &shown, text))?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let outputs: [(String, Vec<u8>); 4] = [
        (
            format!("{stem}.synth.mlir"),
            handshake::emit::synth_mlir(&out, dialect).into_bytes(),
        ),
        (format!("{stem}.aig"), aig_io::flat_aiger(&out)),
        (format!("{stem}.blif"), aig_io::flat_blif(&out).into_bytes()),
        (format!("{stem}.hier.blif"), hier.into_bytes()),
    ];
    for (name, bytes) in outputs {
        io::write_atomic(&out_dir.join(name), &bytes)?;
    }
    Ok(())
}

fn path_table(args: &HandshakeArgs) -> Result<PathTable, Failure> {
    let Some(file) = &args.path_table else {
        return Ok(PathTable::default());
    };
    let text = io::read_source(file)?;
    PathTable::with_overrides(&text)
        .map_err(|d| Failure::diagnostics(&[d], &file.display().to_string(), &text))
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
