//! kiln's incremental daemon: a salsa database over source files and the BLIF library
//! ([`db`]), the driver from inputs to output files shared by daemon and in-process runs
//! ([`driver`]), and the gRPC server over a Unix socket ([`server`]).
//!
//! Architecture invariant: the compiler knows nothing of salsa; every query body here is a
//! call into `compiler` on owned values.

pub mod client;
pub mod counters;
pub mod db;
pub mod digests;
pub mod driver;
pub mod frame;
pub mod input;
pub mod items;
pub mod marks;
pub mod paths;
pub mod prewarm;
pub mod remote_args;
pub mod server;
pub mod spare;
pub mod split;
pub mod watch;

/// The number of threads worth running at once (asked of the OS once: it reads cgroup
/// files every time).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Generated gRPC types and stubs for `proto/kiln.proto` (package `kiln.v1`).
pub mod proto {
    tonic::include_proto!("kiln.v1");
}
