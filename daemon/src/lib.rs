//! kiln's incremental daemon and the build machinery it shares with one-shot builds.
//!
//! A build goes through the same steps however it runs:
//! - [`spec`]: what to build ([`spec::BuildSpec`]) and the jobs it expands to;
//! - [`input`]: how any input file is opened and read (regular files only, bounded by the
//!   process's [`compiler::limits::Limits`]);
//! - [`inputs`]: files on disk → salsa inputs, re-reading only what changed (stamps,
//!   build-system digests, the [`watcher`]'s marks);
//! - [`db`] (the salsa database and its queries, one per step of [`compiler::flow`]) and
//!   [`compute`] (jobs → outputs and messages, with [`assembly`] and [`prewarm`]);
//!   [`oneshot`] runs the flows directly instead, for a process that builds once;
//! - [`writer`]: the one atomic output writer;
//! - [`report`]: what a build reports, diagnostics as data.
//!
//! [`build::Builder`] ties inputs, compute and writer together around one database; the
//! daemon ([`server`]) serves every request with one, over the wire of [`rpc`] (the only
//! module that knows the generated protocol types); [`client`] finds, starts and talks to
//! a workspace's daemon. [`remote_args`] holds the remote cache tier's settings.
//! Independent items run on `compiler::par`, the one parallel map.
//!
//! Architecture invariant: the compiler knows nothing of salsa; every query body here is a
//! call into `compiler` on owned values.

pub mod assembly;
pub mod build;
pub mod client;
pub mod compute;
pub mod counters;
pub mod db;
pub mod digests;
pub mod ide;
pub mod input;
pub mod inputs;
pub mod oneshot;
pub mod paths;
pub mod prewarm;
pub mod remote_args;
pub mod report;
pub mod rpc;
pub mod rtl;
pub mod server;
pub mod spec;
pub mod watcher;
pub mod why;
pub mod writer;
