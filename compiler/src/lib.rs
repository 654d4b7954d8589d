//! kiln's compiler: pure, synchronous functions from owned inputs to owned outputs.
//!
//! Architecture invariant: nothing in this crate does IO, spawns threads that outlive a call,
//! or knows about salsa, tokio or the filesystem. Every public pass is a deterministic function
//! whose output is `Eq + Hash + serde`, so that the daemon can use it as a query body and cache
//! its result. Errors are [`diag::Diagnostic`]s with byte spans into the input text.

pub mod aig;
pub mod aps;
pub mod blif;
pub mod diag;
mod fxhash;
pub mod handshake;
pub mod limits;
pub mod mlir;
pub mod rules;
