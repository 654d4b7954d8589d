//! The clients' side of the wire.

use super::convert::*;
use super::*;

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
        Some(Client(
            KilnClient::new(channel)
                .max_decoding_message_size(super::server::message_cap())
                .max_encoding_message_size(super::server::message_cap()),
        ))
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
        self.watch_debounced(spec, None).await
    }

    /// [`Self::watch`], rebuilding once changes stopped for `debounce` (`None`: the
    /// daemon's default; at most [`MAX_DEBOUNCE_MS`]).
    pub async fn watch_debounced(
        &mut self,
        spec: &BuildSpec,
        debounce: Option<Duration>,
    ) -> Result<impl tokio_stream::Stream<Item = Result<WatchEvent, RpcError>>, RpcError> {
        use tokio_stream::StreamExt;
        let request = proto::BuildRequest {
            watch_debounce_ms: debounce
                .map_or(0, |d| (d.as_millis() as u64).clamp(1, MAX_DEBOUNCE_MS)),
            ..spec_to_proto(spec)
        };
        let stream = self.0.watch(request).await?.into_inner();
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
            hints: r
                .hints
                .iter()
                .map(|h| Hint {
                    at: usize::try_from(h.at).unwrap_or(usize::MAX),
                    label: h.label.clone(),
                    tooltip: h.tooltip.clone(),
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
