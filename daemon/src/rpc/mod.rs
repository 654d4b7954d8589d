//! The wire: `proto/kiln.proto` (package `kiln.v1`, gRPC over the daemon's Unix socket).
//! This is the only module that knows the generated types: the server side ([`serve`])
//! answers calls with a [`Service`], the client side ([`Client`]) makes them, and both
//! convert to and from the plain types of [`crate::spec`], [`crate::report`] and this
//! module at the edge.

use crate::counters::{Count, Kind, Snapshot};
use crate::digests::{hex, parse_hex};
use crate::ide::{
    Analysis, DocumentChange, Hint, Hover, Lens, Navigation, Outline, OutlineItem, OutlineKind,
};
use crate::report::{BuildReport, FileReport, OutputFile, Times};
use crate::spec::{
    self, BuildSpec, HandshakeSpec, OutputKind, SpecError, dialect_name, naming_name,
};
use crate::watcher::WatchError;
use crate::why::Explanation;
use crate::workspace::{Edit, OverlayChange, OverlayError};
use compiler::diag::{At, Code, Located, Severity};
use proto::kiln_client::KilnClient;
use proto::kiln_server::{Kiln, KilnServer};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio_stream::wrappers::{ReceiverStream, UnixListenerStream};
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Response, Status};

mod client;
mod convert;
mod server;

pub use client::Client;
pub(crate) use server::{Events, Service, serve};

mod proto {
    tonic::include_proto!("kiln.v1");
}

/// What a daemon says about itself (`Status`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DaemonStatus {
    pub version: String,
    pub build_id: String,
    pub pid: u32,
    pub socket: PathBuf,
    pub daemon_dir: PathBuf,
    pub uptime: Duration,
    pub idle_timeout: Duration,
}

/// Totals since a daemon started (`Stats`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DaemonStats {
    pub counts: Snapshot,
    pub cache: kiln_cache::Counters,
    pub cache_entries: u64,
    pub cache_bytes: u64,
    pub builds: u64,
    pub cancelled_retries: u64,
    /// The remote cache tier's URL, if there is one.
    pub remote_url: Option<String>,
}

/// One rebuild of a `Watch` stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchEvent {
    pub seq: u64,
    /// The paths whose change triggered this rebuild (empty for the first build).
    pub changed: Vec<PathBuf>,
    pub report: BuildReport,
}

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RpcError {
    /// The daemon refused the request (it would refuse it again).
    #[error("{0}")]
    Rejected(String),
    /// The call did not complete (the daemon went away, an internal error).
    #[error("{0}")]
    Failed(String),
}

impl From<Status> for RpcError {
    fn from(s: Status) -> RpcError {
        match s.code() {
            tonic::Code::InvalidArgument => RpcError::Rejected(s.message().to_string()),
            _ => RpcError::Failed(s.to_string()),
        }
    }
}

/// HTTP/2 flow-control window of both ends. The peers share a machine, so a reply (a
/// library's diagnostics can be hundreds of KB) goes in one write instead of waiting for
/// a window update every 64 KiB.
const WINDOW: u32 = 8 << 20;

/// The longest quiet period a `Watch` stream waits for (ms): longer requests are cut to it.
pub const MAX_DEBOUNCE_MS: u64 = 60_000;
