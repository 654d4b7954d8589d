//! The wire: `proto/kiln.proto` (package `kiln.v1`, gRPC over the daemon's Unix socket).
//! This is the only module that knows the generated types: the server side ([`serve`])
//! answers calls with a [`Service`], the client side ([`Client`]) makes them, and both
//! convert to and from the plain types of [`crate::spec`], [`crate::report`] and this
//! module at the edge.

use crate::counters::{Count, Kind, Snapshot};
use crate::digests::{hex, parse_hex};
use crate::explain::Explanation;
use crate::ide::{Analysis, Hover, Lens, Navigation, Outline, OutlineItem, OutlineKind};
use crate::inputs::{Edit, OverlayChange, OverlayError};
use crate::report::{BuildReport, FileReport, OutputFile, Times};
use crate::spec::{
    self, BuildSpec, HandshakeSpec, OutputKind, SpecError, dialect_name, naming_name,
};
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

// ---------------------------------------------------------------------------------------
// Server side.

/// What the daemon does for each call (blocking calls run on tokio's blocking threads).
pub(crate) trait Service: Send + Sync + 'static {
    /// Marks the daemon busy until the guard is dropped.
    fn busy(self: &Arc<Self>) -> Box<dyn Send>;
    fn status(&self) -> DaemonStatus;
    fn build(&self, spec: &BuildSpec) -> BuildReport;
    /// Build, then rebuild on every change, until `events` is closed.
    fn watch(&self, spec: &BuildSpec, events: &Events) -> Result<(), String>;
    fn stats(&self) -> DaemonStats;
    fn shutdown(&self);
    /// The last build's explanation, filtered (see [`Explanation::filtered`]).
    fn why(&self, target: Option<&str>) -> Explanation;
    /// An editor's change to an open document, and its diagnostics.
    fn analyze(&self, doc: &DocumentChange) -> Result<Analysis, OverlayError>;
    /// What is at `offset` of the open document `path` (`None`: not open).
    fn navigate(&self, path: &Path, offset: usize) -> Option<Navigation>;
    fn outline(&self, path: &Path) -> Option<Outline>;
    fn close(&self, path: &Path);
}

/// An editor's change to an open document (`Analyze`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentChange {
    pub path: PathBuf,
    pub version: i32,
    pub change: OverlayChange,
    pub handshake: HandshakeSpec,
}

/// The sending end of a `Watch` stream.
pub(crate) struct Events {
    tx: tokio::sync::mpsc::Sender<Result<proto::WatchEvent, Status>>,
}

impl Events {
    /// Send one event; `false` when the client is gone.
    pub(crate) fn send(&self, event: WatchEvent) -> bool {
        let event = proto::WatchEvent {
            seq: event.seq,
            changed: event.changed.iter().map(|p| display(p)).collect(),
            build: Some(report_to_proto(event.report)),
        };
        self.tx.blocking_send(Ok(event)).is_ok()
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

/// Serve `service` on `listener` until `stop` resolves.
pub(crate) async fn serve<S: Service>(
    listener: tokio::net::UnixListener,
    service: Arc<S>,
    stop: impl std::future::Future<Output = ()>,
) -> Result<(), tonic::transport::Error> {
    tonic::transport::Server::builder()
        .initial_stream_window_size(WINDOW)
        .initial_connection_window_size(WINDOW)
        .add_service(KilnServer::new(Adapter(service)))
        .serve_with_incoming_shutdown(UnixListenerStream::new(listener), stop)
        .await
}

/// HTTP/2 flow-control window of both ends. The peers share a machine, so a reply (a
/// library's diagnostics can be hundreds of KB) goes in one write instead of waiting for
/// a window update every 64 KiB.
const WINDOW: u32 = 8 << 20;

struct Adapter<S>(Arc<S>);

impl<S: Service> Adapter<S> {
    /// `f` on a blocking thread, the daemon marked busy meanwhile.
    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&S) -> T + Send + 'static,
    ) -> Result<T, Status> {
        let (busy, service) = (self.0.busy(), self.0.clone());
        tokio::task::spawn_blocking(move || {
            let _busy = busy;
            f(&service)
        })
        .await
        .map_err(|e| Status::internal(format!("call failed: {e}")))
    }
}

#[tonic::async_trait]
impl<S: Service> Kiln for Adapter<S> {
    async fn status(
        &self,
        _req: Request<proto::StatusRequest>,
    ) -> Result<Response<proto::StatusReply>, Status> {
        let _busy = self.0.busy();
        let s = self.0.status();
        Ok(Response::new(proto::StatusReply {
            version: s.version,
            build_id: s.build_id,
            pid: s.pid,
            socket: display(&s.socket),
            daemon_dir: display(&s.daemon_dir),
            uptime_ms: s.uptime.as_millis() as u64,
            idle_timeout_secs: s.idle_timeout.as_secs(),
        }))
    }

    async fn build(
        &self,
        req: Request<proto::BuildRequest>,
    ) -> Result<Response<proto::BuildReply>, Status> {
        let spec = spec_from_proto(req.get_ref()).map_err(invalid)?;
        let report = self.blocking(move |s| s.build(&spec)).await?;
        Ok(Response::new(report_to_proto(report)))
    }

    type WatchStream = ReceiverStream<Result<proto::WatchEvent, Status>>;

    async fn watch(
        &self,
        req: Request<proto::BuildRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        let spec = spec_from_proto(req.get_ref()).map_err(invalid)?;
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let (busy, service) = (self.0.busy(), self.0.clone());
        tokio::task::spawn_blocking(move || {
            let _busy = busy;
            let events = Events { tx };
            if let Err(e) = service.watch(&spec, &events) {
                let _ = events.tx.blocking_send(Err(Status::internal(e)));
            }
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn stats(
        &self,
        _req: Request<proto::StatsRequest>,
    ) -> Result<Response<proto::StatsReply>, Status> {
        let s = self.blocking(|s| s.stats()).await?;
        let c = &s.cache;
        Ok(Response::new(proto::StatsReply {
            counts: counts_to_proto(&s.counts),
            cache_entries: s.cache_entries,
            cache_bytes: s.cache_bytes,
            cache_hits: c.hits,
            cache_misses: c.misses,
            cache_corrupt: c.corrupt,
            builds: s.builds,
            cancelled_retries: s.cancelled_retries,
            remote_url: s.remote_url.unwrap_or_default(),
            remote_hits: c.remote_hits,
            remote_misses: c.remote_misses,
            remote_rejected: c.remote_rejected,
            remote_uploads: c.remote_uploads,
            remote_errors: c.remote_errors,
        }))
    }

    async fn shutdown(
        &self,
        _req: Request<proto::ShutdownRequest>,
    ) -> Result<Response<proto::ShutdownReply>, Status> {
        self.0.shutdown();
        Ok(Response::new(proto::ShutdownReply {}))
    }

    async fn why(
        &self,
        req: Request<proto::WhyRequest>,
    ) -> Result<Response<proto::WhyReply>, Status> {
        let target = req.into_inner().target;
        let e = self
            .blocking(move |s| s.why(Some(target.as_str()).filter(|t| !t.is_empty())))
            .await?;
        let json = serde_json::to_string(&e).map_err(|e| Status::internal(e.to_string()))?;
        Ok(Response::new(proto::WhyReply { json }))
    }

    async fn analyze(
        &self,
        req: Request<proto::AnalyzeRequest>,
    ) -> Result<Response<proto::AnalyzeReply>, Status> {
        let doc = document_from_proto(req.into_inner());
        let version = doc.version;
        let reply = match self.blocking(move |s| s.analyze(&doc)).await? {
            Ok(a) => proto::AnalyzeReply {
                version: a.version,
                messages: a
                    .messages
                    .into_iter()
                    .map(|m| message_to_proto(m, ""))
                    .collect(),
                stale: false,
            },
            Err(OverlayError::Stale(_)) => proto::AnalyzeReply {
                version,
                stale: true,
                ..Default::default()
            },
            Err(e) => return Err(Status::invalid_argument(e.to_string())),
        };
        Ok(Response::new(reply))
    }

    async fn navigate(
        &self,
        req: Request<proto::NavigateRequest>,
    ) -> Result<Response<proto::NavigateReply>, Status> {
        let r = req.into_inner();
        let path = PathBuf::from(r.path);
        let offset = r.offset as usize;
        let nav = self.blocking(move |s| s.navigate(&path, offset)).await?;
        let Some(nav) = nav else {
            return Ok(Response::new(proto::NavigateReply::default()));
        };
        let ranges = |v: &[Range<usize>]| v.iter().map(range_to_proto).collect();
        Ok(Response::new(proto::NavigateReply {
            open: true,
            range: nav.range.as_ref().map(range_to_proto),
            definitions: ranges(&nav.definitions),
            references: ranges(&nav.references),
            hover: nav
                .hover
                .as_ref()
                .map(|h| h.markdown.clone())
                .unwrap_or_default(),
            hover_range: nav.hover.as_ref().map(|h| range_to_proto(&h.range)),
        }))
    }

    async fn outline(
        &self,
        req: Request<proto::DocumentRequest>,
    ) -> Result<Response<proto::OutlineReply>, Status> {
        let path = PathBuf::from(req.into_inner().path);
        let outline = self.blocking(move |s| s.outline(&path)).await?;
        let Some(o) = outline else {
            return Ok(Response::new(proto::OutlineReply::default()));
        };
        Ok(Response::new(proto::OutlineReply {
            open: true,
            items: o.items.iter().map(outline_to_proto).collect(),
            lenses: o
                .lenses
                .iter()
                .map(|l| proto::Lens {
                    range: Some(range_to_proto(&l.range)),
                    title: l.title.clone(),
                })
                .collect(),
        }))
    }

    async fn close(
        &self,
        req: Request<proto::DocumentRequest>,
    ) -> Result<Response<proto::CloseReply>, Status> {
        let path = PathBuf::from(req.into_inner().path);
        self.blocking(move |s| s.close(&path)).await?;
        Ok(Response::new(proto::CloseReply {}))
    }
}

fn invalid(e: SpecError) -> Status {
    Status::invalid_argument(e.to_string())
}

// ---------------------------------------------------------------------------------------
// Client side.

/// A connection to a daemon.
#[derive(Debug, Clone)]
pub struct Client(KilnClient<Channel>);

impl Client {
    /// Connect to the daemon listening on `socket`, if one answers.
    pub async fn connect(socket: &Path) -> Option<Client> {
        let endpoint = Endpoint::from_shared(format!("unix://{}", socket.display())).ok()?;
        let channel = endpoint
            .connect_timeout(Duration::from_secs(2))
            .initial_stream_window_size(WINDOW)
            .initial_connection_window_size(WINDOW)
            .connect()
            .await
            .ok()?;
        Some(Client(KilnClient::new(channel)))
    }

    pub async fn status(&mut self) -> Result<DaemonStatus, RpcError> {
        let req = proto::StatusRequest {
            client_version: crate::server::VERSION.to_string(),
            client_build_id: crate::db::build_id().to_string(),
        };
        let s = self.0.status(req).await?.into_inner();
        Ok(DaemonStatus {
            version: s.version,
            build_id: s.build_id,
            pid: s.pid,
            socket: PathBuf::from(s.socket),
            daemon_dir: PathBuf::from(s.daemon_dir),
            uptime: Duration::from_millis(s.uptime_ms),
            idle_timeout: Duration::from_secs(s.idle_timeout_secs),
        })
    }

    pub async fn build(&mut self, spec: &BuildSpec) -> Result<BuildReport, RpcError> {
        let reply = self.0.build(spec_to_proto(spec)).await?.into_inner();
        Ok(report_from_proto(reply))
    }

    /// Build, then rebuild on every change: one event per build, until dropped.
    pub async fn watch(
        &mut self,
        spec: &BuildSpec,
    ) -> Result<impl tokio_stream::Stream<Item = Result<WatchEvent, RpcError>>, RpcError> {
        use tokio_stream::StreamExt;
        let stream = self.0.watch(spec_to_proto(spec)).await?.into_inner();
        Ok(stream.map(|e| {
            let e = e?;
            Ok(WatchEvent {
                seq: e.seq,
                changed: e.changed.iter().map(PathBuf::from).collect(),
                report: e.build.map(report_from_proto).unwrap_or_default(),
            })
        }))
    }

    pub async fn stats(&mut self) -> Result<DaemonStats, RpcError> {
        let s = self.0.stats(proto::StatsRequest {}).await?.into_inner();
        let cache = kiln_cache::Counters {
            hits: s.cache_hits,
            misses: s.cache_misses,
            corrupt: s.cache_corrupt,
            remote_hits: s.remote_hits,
            remote_misses: s.remote_misses,
            remote_rejected: s.remote_rejected,
            remote_uploads: s.remote_uploads,
            remote_errors: s.remote_errors,
            ..kiln_cache::Counters::default()
        };
        Ok(DaemonStats {
            counts: counts_from_proto(&s.counts),
            cache,
            cache_entries: s.cache_entries,
            cache_bytes: s.cache_bytes,
            builds: s.builds,
            cancelled_retries: s.cancelled_retries,
            remote_url: (!s.remote_url.is_empty()).then_some(s.remote_url),
        })
    }

    pub async fn shutdown(&mut self) -> Result<(), RpcError> {
        self.0.shutdown(proto::ShutdownRequest {}).await?;
        Ok(())
    }

    /// An editor's change to an open document: its diagnostics, or `None` when the edits
    /// were not based on the daemon's version (send the whole text).
    pub async fn analyze(&mut self, doc: &DocumentChange) -> Result<Option<Analysis>, RpcError> {
        let r = self.0.analyze(document_to_proto(doc)).await?.into_inner();
        if r.stale {
            return Ok(None);
        }
        Ok(Some(Analysis {
            version: r.version,
            messages: r
                .messages
                .into_iter()
                .map(|m| message_from_proto(m, ""))
                .collect(),
        }))
    }

    /// What is at byte `offset` of the open document `path` (`None`: not open).
    pub async fn navigate(
        &mut self,
        path: &Path,
        offset: usize,
    ) -> Result<Option<Navigation>, RpcError> {
        let req = proto::NavigateRequest {
            path: display(path),
            offset: offset as u64,
        };
        let r = self.0.navigate(req).await?.into_inner();
        if !r.open {
            return Ok(None);
        }
        let ranges = |v: &[proto::ByteRange]| v.iter().map(range_from_proto).collect();
        Ok(Some(Navigation {
            range: r.range.as_ref().map(range_from_proto),
            definitions: ranges(&r.definitions),
            references: ranges(&r.references),
            hover: (!r.hover.is_empty()).then(|| Hover {
                range: r
                    .hover_range
                    .as_ref()
                    .map(range_from_proto)
                    .unwrap_or_default(),
                markdown: r.hover,
            }),
        }))
    }

    /// The open document's outline and code lenses (`None`: not open).
    pub async fn outline(&mut self, path: &Path) -> Result<Option<Outline>, RpcError> {
        let req = proto::DocumentRequest {
            path: display(path),
        };
        let r = self.0.outline(req).await?.into_inner();
        if !r.open {
            return Ok(None);
        }
        Ok(Some(Outline {
            items: r.items.iter().map(outline_from_proto).collect(),
            lenses: r
                .lenses
                .iter()
                .map(|l| Lens {
                    range: l.range.as_ref().map(range_from_proto).unwrap_or_default(),
                    title: l.title.clone(),
                })
                .collect(),
        }))
    }

    /// The editor closed `path`.
    pub async fn close(&mut self, path: &Path) -> Result<(), RpcError> {
        let req = proto::DocumentRequest {
            path: display(path),
        };
        self.0.close(req).await?;
        Ok(())
    }

    /// Why each query of the last build executed (about `target`, if given).
    pub async fn why(&mut self, target: Option<&str>) -> Result<Explanation, RpcError> {
        let target = target.unwrap_or_default().to_string();
        let reply = self.0.why(proto::WhyRequest { target }).await?.into_inner();
        serde_json::from_str(&reply.json).map_err(|e| RpcError::Failed(e.to_string()))
    }
}

// ---------------------------------------------------------------------------------------
// Conversions.

fn display(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn spec_to_proto(spec: &BuildSpec) -> proto::BuildRequest {
    let opt = |p: &Option<PathBuf>| p.as_deref().map(display).unwrap_or_default();
    let h = &spec.handshake;
    proto::BuildRequest {
        inputs: spec.inputs.iter().map(|p| display(p)).collect(),
        output_kinds: spec.kinds.iter().map(|k| k.name().to_string()).collect(),
        out_dir: display(&spec.out_dir),
        blif_lib: opt(&h.blif_lib),
        path_table: opt(&h.path_table),
        synth_dialect: dialect_name(h.dialect).into(),
        naming: naming_name(h.naming).into(),
        input_digests: spec
            .input_digests
            .iter()
            .map(|(p, sha)| proto::InputDigest {
                path: display(p),
                sha256: hex(sha),
            })
            .collect(),
        digests: spec.digests,
        changed_only: spec.changed_only,
    }
}

fn spec_from_proto(req: &proto::BuildRequest) -> Result<BuildSpec, SpecError> {
    let path = |s: &str| (!s.is_empty()).then(|| PathBuf::from(s));
    let mut digests = std::collections::BTreeMap::new();
    for d in &req.input_digests {
        let sha = parse_hex(&d.sha256).ok_or_else(|| SpecError::Digest(d.path.clone()))?;
        digests.insert(PathBuf::from(&d.path), sha);
    }
    Ok(BuildSpec {
        inputs: req.inputs.iter().map(PathBuf::from).collect(),
        kinds: spec::parse_kinds(&req.output_kinds)?,
        out_dir: PathBuf::from(&req.out_dir),
        handshake: HandshakeSpec {
            blif_lib: path(&req.blif_lib),
            path_table: path(&req.path_table),
            dialect: spec::parse_dialect(&req.synth_dialect)?,
            naming: spec::parse_naming(&req.naming)?,
        },
        input_digests: Arc::new(digests),
        digests: req.digests,
        changed_only: req.changed_only,
    })
}

fn counts_to_proto(snap: &Snapshot) -> Vec<proto::QueryCount> {
    snap.iter()
        .map(|(k, c)| proto::QueryCount {
            kind: k.to_string(),
            executions: c.executions,
            cache_hits: c.cache_hits,
        })
        .collect()
}

/// Counts by kind; kinds this build does not know are left out.
fn counts_from_proto(counts: &[proto::QueryCount]) -> Snapshot {
    counts
        .iter()
        .filter_map(|q| {
            let kind = Kind::ALL.iter().find(|k| k.name() == q.kind)?;
            let count = Count {
                executions: q.executions,
                cache_hits: q.cache_hits,
            };
            Some((kind.name(), count))
        })
        .collect()
}

fn report_to_proto(r: BuildReport) -> proto::BuildReply {
    let us = |d: Duration| d.as_micros() as u64;
    let ok = r.ok();
    proto::BuildReply {
        files: r
            .files
            .iter()
            .map(|f| proto::OutputFile {
                path: display(&f.path),
                kind: f.kind.name().to_string(),
                sha256: f.sha256.as_ref().map(hex).unwrap_or_default(),
                written: f.written,
            })
            .collect(),
        diagnostics: r
            .diagnostics
            .into_iter()
            .map(|d| proto::FileDiagnostics {
                errors: d.errors() as u32,
                messages: d
                    .messages
                    .into_iter()
                    .map(|m| message_to_proto(m, &d.path))
                    .collect(),
                path: d.path,
            })
            .collect(),
        ok,
        counts: counts_to_proto(&r.counts),
        duration_us: us(r.times.total),
        sync_us: us(r.times.sync),
        compute_us: us(r.times.compute),
        hash_us: us(r.times.hash),
        write_us: us(r.times.write),
        unchanged_omitted: r.unchanged_omitted,
    }
}

fn report_from_proto(r: proto::BuildReply) -> BuildReport {
    let us = Duration::from_micros;
    BuildReport {
        files: r
            .files
            .iter()
            .filter_map(|f| {
                Some(OutputFile {
                    path: PathBuf::from(&f.path),
                    kind: OutputKind::parse(&f.kind)?,
                    sha256: parse_hex(&f.sha256),
                    written: f.written,
                })
            })
            .collect(),
        unchanged_omitted: r.unchanged_omitted,
        diagnostics: r
            .diagnostics
            .into_iter()
            .map(|d| FileReport {
                messages: d
                    .messages
                    .into_iter()
                    .map(|m| message_from_proto(m, &d.path))
                    .collect(),
                path: d.path,
            })
            .collect(),
        counts: counts_from_proto(&r.counts),
        times: Times {
            total: us(r.duration_us),
            sync: us(r.sync_us),
            compute: us(r.compute_us),
            hash: us(r.hash_us),
            write: us(r.write_us),
        },
    }
}

fn range_to_proto(r: &Range<usize>) -> proto::ByteRange {
    proto::ByteRange {
        start: r.start as u64,
        end: r.end as u64,
    }
}

fn range_from_proto(r: &proto::ByteRange) -> Range<usize> {
    r.start as usize..r.end.max(r.start) as usize
}

const OUTLINE_KINDS: [(&str, OutlineKind); 4] = [
    ("function", OutlineKind::Function),
    ("block", OutlineKind::Block),
    ("loop", OutlineKind::Loop),
    ("model", OutlineKind::Model),
];

fn outline_to_proto(o: &OutlineItem) -> proto::OutlineItem {
    proto::OutlineItem {
        name: o.name.clone(),
        kind: spec::name_of(&OUTLINE_KINDS, o.kind).to_string(),
        range: Some(range_to_proto(&o.range)),
        selection: Some(range_to_proto(&o.selection)),
        children: o.children.iter().map(outline_to_proto).collect(),
    }
}

fn outline_from_proto(o: &proto::OutlineItem) -> OutlineItem {
    OutlineItem {
        name: o.name.clone(),
        kind: spec::by_name(&OUTLINE_KINDS, &o.kind).unwrap_or(OutlineKind::Block),
        range: o.range.as_ref().map(range_from_proto).unwrap_or_default(),
        selection: o
            .selection
            .as_ref()
            .map(range_from_proto)
            .unwrap_or_default(),
        children: o.children.iter().map(outline_from_proto).collect(),
    }
}

fn document_to_proto(d: &DocumentChange) -> proto::AnalyzeRequest {
    let opt = |p: &Option<PathBuf>| p.as_deref().map(display).unwrap_or_default();
    let mut req = proto::AnalyzeRequest {
        path: display(&d.path),
        version: d.version,
        blif_lib: opt(&d.handshake.blif_lib),
        path_table: opt(&d.handshake.path_table),
        ..Default::default()
    };
    match &d.change {
        OverlayChange::Full(text) => {
            req.full = true;
            req.text = text.clone();
        }
        OverlayChange::Edits { base, edits } => {
            req.base_version = *base;
            req.edits = edits
                .iter()
                .map(|e| proto::TextEdit {
                    range: Some(range_to_proto(&e.range)),
                    text: e.text.clone(),
                })
                .collect();
        }
    }
    req
}

fn document_from_proto(r: proto::AnalyzeRequest) -> DocumentChange {
    let path = |s: &str| (!s.is_empty()).then(|| PathBuf::from(s));
    let change = match r.full {
        true => OverlayChange::Full(r.text),
        false => OverlayChange::Edits {
            base: r.base_version,
            edits: r
                .edits
                .into_iter()
                .map(|e| Edit {
                    range: e.range.as_ref().map(range_from_proto).unwrap_or_default(),
                    text: e.text,
                })
                .collect(),
        },
    };
    DocumentChange {
        path: PathBuf::from(&r.path),
        version: r.version,
        change,
        handshake: HandshakeSpec {
            blif_lib: path(&r.blif_lib),
            path_table: path(&r.path_table),
            ..HandshakeSpec::default()
        },
    }
}

/// A message of the file `file`: its path travels only when it is another file's (a
/// library unit's), which keeps a report of many messages small.
fn message_to_proto(m: Located, file: &str) -> proto::Message {
    proto::Message {
        path: if m.path == file {
            String::new()
        } else {
            m.path
        },
        severity: m.severity.as_str().to_string(),
        message: m.message,
        notes: m.notes,
        at: m.at.map(|a| proto::Position {
            line: a.line as u64,
            col: a.col as u64,
            byte_col: a.byte_col as u64,
            len: a.len as u64,
            line_text: a.line_text,
            end_line: a.end_line as u64,
            end_col: a.end_col as u64,
        }),
        related: m
            .related
            .into_iter()
            .map(|r| message_to_proto(r, file))
            .collect(),
        code: m.code.map_or_else(String::new, |c| c.as_str().to_string()),
    }
}

fn message_from_proto(m: proto::Message, file: &str) -> Located {
    let severity = match m.severity.as_str() {
        "warning" => Severity::Warning,
        "note" => Severity::Note,
        _ => Severity::Error,
    };
    Located {
        path: if m.path.is_empty() {
            file.to_string()
        } else {
            m.path
        },
        severity,
        code: Code::parse(&m.code),
        message: m.message,
        notes: m.notes,
        at: m.at.map(|a| {
            Box::new(At {
                line: a.line as usize,
                col: a.col as usize,
                byte_col: a.byte_col as usize,
                len: a.len as usize,
                line_text: a.line_text,
                end_line: a.end_line as usize,
                end_col: a.end_col as usize,
            })
        }),
        related: m
            .related
            .into_iter()
            .map(|r| message_from_proto(r, file))
            .collect(),
    }
}
