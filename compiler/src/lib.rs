//! kiln's compiler: pure, synchronous functions from owned inputs to owned outputs.
//!
//! Architecture invariant: nothing in this crate does IO, spawns threads that outlive a call,
//! or knows about salsa, tokio or the filesystem. Every public pass is a deterministic function
//! whose output is `Eq + Hash + serde`, so that the daemon can use it as a query body and cache
//! its result. Errors are [`diag::Diagnostic`]s with byte spans into the input text.
//!
//! The public API, by intent:
//! - [`flow`] is the front door: per flow, one function from an input's text to its output
//!   files and diagnostics, and the per-function, per-block and per-model steps it is made
//!   of (which a daemon caches one by one). Flow detection and the output kinds live there.
//! - [`diag`]: diagnostics as data, located against their file and rendered at the edge.
//! - [`mlir`] and [`blif`]: the readers (and the lexical splitters beside them), usable and
//!   tested on their own.
//! - [`aps`], [`rules`], [`handshake`] and [`aig`]: the passes and their IRs, public for the
//!   daemon's finer-grained queries, the simulators and the tests.
//! - Generators of inputs for tests and benchmarks (`aps::workload`, `mlir::synthetic`,
//!   `blif::generate`)
//!   exist only with the `generators` feature.
//! - [`par`]: the one parallel map (scoped threads that end with the call), for the APS
//!   flow's functions and the daemon's and client's independent items.

#![warn(unreachable_pub)]

pub mod aig;
pub mod aps;
pub mod blif;
pub(crate) mod chunks;
pub mod diag;
pub mod flow;
pub mod fxhash;
pub mod handshake;
pub mod highlight;
pub mod ide;
pub mod limits;
pub mod mlir;
pub mod par;
pub mod rules;
