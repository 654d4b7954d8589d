//! The daemon's side of the wire: a [`Service`] answering calls.

use super::convert::*;
use super::*;

/// What the daemon does for each call (blocking calls run on tokio's blocking threads).
pub(crate) trait Service: Send + Sync + 'static {
    /// Marks the daemon busy until the guard is dropped.
    fn busy(self: &Arc<Self>) -> Box<dyn Send>;
    fn status(&self) -> DaemonStatus;
    fn build(&self, spec: &BuildSpec) -> BuildReport;
    /// Build, then rebuild on every change once changes stopped for `debounce` (`None`:
    /// the daemon's default), until `events` is closed.
    fn watch(
        &self,
        spec: &BuildSpec,
        debounce: Option<Duration>,
        events: &Events,
    ) -> Result<(), WatchError>;
    fn stats(&self) -> DaemonStats;
    fn shutdown(&self);
    /// The last build's explanation, filtered (see [`Explanation::filtered`]); with
    /// [`Explanation::unknown`] set when the last build does not know `target`.
    fn why(&self, target: Option<&str>) -> Explanation;
    /// An editor's change to an open document, and its diagnostics.
    fn analyze(&self, doc: &DocumentChange) -> Result<Analysis, OverlayError>;
    /// What is at `offset` of the open document `path` (`None`: not open).
    fn navigate(&self, path: &Path, offset: usize) -> Option<Navigation>;
    fn outline(&self, path: &Path) -> Option<Outline>;
    fn close(&self, path: &Path);
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
        .add_service(KilnServer::new(Adapter(service)).max_decoding_message_size(message_cap()))
        .serve_with_incoming_shutdown(UnixListenerStream::new(listener), stop)
        .await
}

/// The largest message either side decodes: an input as large as the input limit (an
/// editor's unsaved buffer travels whole) with room for the rest of the request. tonic's
/// default of 4 MiB refused any buffer over it before the daemon could judge it.
pub(crate) fn message_cap() -> usize {
    let input = crate::input::limits().max_input_size;
    usize::try_from(input)
        .unwrap_or(usize::MAX)
        .saturating_add(1 << 20)
}

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
        let debounce = match req.get_ref().watch_debounce_ms {
            0 => None,
            ms => Some(Duration::from_millis(ms.min(MAX_DEBOUNCE_MS))),
        };
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let (busy, service) = (self.0.busy(), self.0.clone());
        tokio::task::spawn_blocking(move || {
            let _busy = busy;
            let events = Events { tx };
            if let Err(e) = service.watch(&spec, debounce, &events) {
                let _ = events
                    .tx
                    .blocking_send(Err(Status::internal(e.to_string())));
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
            hints: o
                .hints
                .iter()
                .map(|h| proto::Hint {
                    at: h.at as u64,
                    label: h.label.clone(),
                    tooltip: h.tooltip.clone(),
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
