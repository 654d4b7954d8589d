//! Handshake → Synth (seed 004): lowers one Dynamatic `handshake.func` to a flat
//! And-Inverter Graph by instantiating a per-unit BLIF library.
//!
//! Phases, each a pure function:
//! 1. [`mark`]: each op → the library path that implements it ([`table::PathTable`]) and the
//!    built-in generator that could replace it;
//! 2. unbundling ([`circuit`]): channels → data/valid/ready ports named as in the library;
//! 3. signal rewriting ([`signals`]): ready flips direction, data splits into bits, `clk` and
//!    `rst` are appended;
//! 4. AIG construction.
//!
//! The caller owns the IO: it reads and lowers each distinct library file once.

pub mod aig_io;
pub mod build;
pub mod builtin;
pub mod circuit;
pub mod emit;
pub mod extras;
pub mod float;
mod float_ops;
#[cfg(any(test, feature = "generators"))]
pub mod generate;
pub mod managers;
pub mod mark;
pub(crate) mod names;
pub mod net;
pub mod nets;
pub mod rtl;
pub(crate) mod signals;
mod spec_save;
mod speculator;
pub(crate) mod table;

pub(crate) use circuit::find_func_named;
pub use circuit::{Circuit, Naming, analyze, analyze_with, find_func};
pub use mark::{Builtin, UnitRef};
pub use table::PathTable;

use crate::diag::Diagnostic;
use crate::mlir::ast::Operation;

/// Phase 1 for `func`: one [`UnitRef`] per op of the body, in body order.
pub fn mark(func: &Operation, table: &PathTable) -> Result<Vec<UnitRef>, Diagnostic> {
    let circuit = analyze(func, Naming::ArgNames)?;
    mark::mark_circuit(func, &circuit, table)
}

pub use build::{
    Impl, Instance, LibUnit, ReportRow, SynthOutput, build, build_with, report, report_text,
};
pub use emit::Dialect;

/// The distinct library paths the marks refer to, the units inside signal managers
/// included (each to be read and lowered once).
pub fn library_paths(marks: &[UnitRef]) -> Vec<String> {
    let inner = marks
        .iter()
        .flat_map(|m| m.managed.iter().flat_map(|mg| &mg.inner));
    let set: std::collections::BTreeSet<&String> = (marks.iter().chain(inner))
        .filter_map(|m| m.path.as_ref())
        .collect();
    set.into_iter().cloned().collect()
}
