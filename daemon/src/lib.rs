//! kiln's incremental daemon and the build machinery it shares with one-shot builds.
//!
//! # The face
//!
//! The daemon's public API is exactly what this file lists: the `pub mod`s and `pub use`s
//! below, for the `kiln` client (its commands, language server and build worker), the
//! `kiln-daemon` binary and this crate's integration tests. Every other module is private
//! and its items `pub(crate)`.
//! - [`request`]: what a client asks to build ([`request::BuildSpec`]) and the helpers it
//!   builds one with (output kinds, the input walk, input digests);
//! - [`report`]: what a build reports, diagnostics as data, with its query counts;
//! - [`build`]: the [`build::Builder`] (inputs, compute and writer around one database),
//!   its writer's spares policy and the atomic write every output goes through;
//! - [`oneshot`]: the same build, run directly through the compiler's flows, for a process
//!   that builds once;
//! - [`client`]: find, start and talk to a workspace's daemon (the [`client::Connector`]
//!   and the connection it gives, [`client::Client`], with its stats and watch events);
//! - [`server`]: the daemon's entry ([`server::run`]) and its [`server::Options`];
//! - [`ide`]: an editor's edits of a document and what the daemon answers (diagnostics,
//!   navigation, outline);
//! - [`why`]: the explanations of `kiln why`;
//! - [`input`]: how any input file is opened and read (regular files only, bounded by the
//!   process's [`input::limits`]);
//! - [`paths`]: the daemon's runtime directory, the cache directory and its store;
//! - [`rtl`]: RTL templates synthesised with yosys into library units;
//! - `testing` (hidden): what the integration tests reach below the face.
//!
//! # Inside
//!
//! A build goes through the same steps however it runs: `spec` (what to build and the jobs
//! it expands to); `inputs` (files on disk → salsa inputs, re-reading only what changed:
//! stamps, build-system digests, the `watcher`'s marks); `db` (the salsa database and its
//! queries, one per step of [`compiler::flow`]) and `compute` (jobs → outputs and
//! messages, with `assembly` and `prewarm`); `writer` (the one atomic output writer). The
//! daemon serves every request with one [`build::Builder`], over the wire of `rpc` (the
//! only module that knows the generated protocol types). `remote_args` holds the remote
//! cache tier's settings, `counters` the query counts, `digests` the input digests.
//! Independent items run on `compiler::par`, the one parallel map.
//!
//! Architecture invariant: the compiler knows nothing of salsa; every query body here is a
//! call into `compiler` on owned values.

pub mod build;
pub mod client;
pub mod ide;
pub mod input;
pub mod oneshot;
pub mod paths;
pub mod report;
pub mod rtl;
pub mod server;
pub mod why;

/// What a client asks to build, and the helpers it builds a request with.
pub mod request {
    pub use crate::digests::parse_hex;
    pub use crate::spec::{
        BuildSpec, Found, HandshakeSpec, OutputKind, SpecError, is_blif, is_mlir, parse_kinds, walk,
    };
}

/// What the integration tests reach below the face: a database of another build id (for
/// [`build::Builder::on`]) and the daemon's file watcher (for [`build::Builder::new`]).
#[doc(hidden)]
pub mod testing {
    pub use crate::db::Db;
    pub use crate::watcher::Watcher;
}

mod assembly;
mod compute;
mod counters;
mod db;
mod digests;
mod prewarm;
mod remote_args;
mod rpc;
mod spec;
mod watcher;
mod workspace;
mod writer;
