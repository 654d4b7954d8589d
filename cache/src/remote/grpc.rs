//! REAPI v2 over gRPC: `ActionCache.GetActionResult` / `UpdateActionResult`,
//! `ContentAddressableStorage.FindMissingBlobs` / `BatchUpdateBlobs` / `BatchReadBlobs`,
//! and `ByteStream.Read` / `Write` for blobs larger than a batch may carry (the limit is the
//! server's `max_batch_total_size_bytes`, asked once through `Capabilities`, capped below
//! gRPC's 4 MiB default message size). HTTP/2, over TLS for `grpcs://` ([`super::tls`]);
//! the URL's path is the instance name; the [`Options::headers`] are every call's metadata.
//!
//! Unary calls must answer within [`Options::first_byte_timeout`] (connecting included);
//! messages are bounded by gRPC's 4 MiB decoding limit, and a `ByteStream.Read` by the
//! blob's digest size.

use super::pb::google::bytestream::byte_stream_client::ByteStreamClient;
use super::pb::google::bytestream::{ReadRequest, WriteRequest};
use super::pb::reapi::action_cache_client::ActionCacheClient;
use super::pb::reapi::batch_update_blobs_request;
use super::pb::reapi::capabilities_client::CapabilitiesClient;
use super::pb::reapi::content_addressable_storage_client::ContentAddressableStorageClient;
use super::pb::reapi::{
    ActionResult, BatchReadBlobsRequest, BatchUpdateBlobsRequest, Digest, FindMissingBlobsRequest,
    GetActionResultRequest, GetCapabilitiesRequest, UpdateActionResultRequest,
};
use super::tls::{self, Security};
use super::{Fault, Options, error_chain};
use hyper::HeaderMap;
use std::error::Error as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::OnceCell;
use tonic::Code;
use tonic::metadata::MetadataMap;
use tonic::transport::{Channel, Endpoint};

/// Largest batch we send or request, whatever the server announces (gRPC's default
/// message limit is 4 MiB; leave room for the envelope).
const BATCH_CAP: i64 = 4 * 1024 * 1024 - 64 * 1024;
/// ByteStream chunk size.
const CHUNK: usize = 1024 * 1024;

#[derive(Clone)]
pub struct GrpcCache {
    instance: String,
    channel: Channel,
    max_batch: Arc<OnceCell<i64>>,
    first_byte: Duration,
    headers: HeaderMap,
}

impl GrpcCache {
    /// `rest` is the URL after `grpc://` or `grpcs://`: `host:port[/instance]`.
    pub fn new(
        scheme: &str,
        rest: &str,
        security: Security<'_>,
        options: &Options,
    ) -> Result<GrpcCache, String> {
        let (authority, instance) = rest.split_once('/').unwrap_or((rest, ""));
        let http = match security {
            Security::Plain => "http",
            Security::Tls { .. } => "https",
        };
        let endpoint = Endpoint::from_shared(format!("{http}://{authority}"))
            .map_err(|e| format!("{scheme}://{rest}: {e}"))?
            .connect_timeout(options.connect_timeout)
            .timeout(options.deadline);
        let channel = match security {
            Security::Plain => endpoint.connect_lazy(),
            Security::Tls { .. } => endpoint.connect_with_connector_lazy(tls::connector(
                security,
                true,
                options.connect_timeout,
            )?),
        };
        Ok(GrpcCache {
            instance: instance.trim_end_matches('/').to_string(),
            channel,
            max_batch: Arc::new(OnceCell::new()),
            first_byte: options.first_byte_timeout,
            headers: options.headers.clone(),
        })
    }

    /// `message` as a request carrying the configured headers.
    fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut req = tonic::Request::new(message);
        *req.metadata_mut() = MetadataMap::from_headers(self.headers.clone());
        req
    }

    /// `call`'s answer within the first-byte time-out.
    async fn answer<T>(
        &self,
        rpc: &str,
        call: impl std::future::Future<Output = Result<T, tonic::Status>>,
    ) -> Result<Result<T, tonic::Status>, Fault> {
        tokio::time::timeout(self.first_byte, call)
            .await
            .map_err(|_| Fault::TimedOut(format!("{rpc}: no answer within {:?}", self.first_byte)))
    }

    pub async fn get_action_result(&self, d: Digest) -> Result<Option<ActionResult>, Fault> {
        let req = GetActionResultRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(d),
            ..Default::default()
        };
        let mut client = ActionCacheClient::new(self.channel.clone());
        match self
            .answer(
                "GetActionResult",
                client.get_action_result(self.request(req)),
            )
            .await?
        {
            Ok(r) => Ok(Some(r.into_inner())),
            Err(s) if s.code() == Code::NotFound => Ok(None),
            Err(s) => Err(transport("GetActionResult", &s)),
        }
    }

    pub async fn update_action_result(&self, d: Digest, ar: ActionResult) -> Result<(), Fault> {
        let req = UpdateActionResultRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(d),
            action_result: Some(ar),
        };
        let mut client = ActionCacheClient::new(self.channel.clone());
        self.answer(
            "UpdateActionResult",
            client.update_action_result(self.request(req)),
        )
        .await?
        .map(|_| ())
        .map_err(|s| transport("UpdateActionResult", &s))
    }

    pub async fn read_blob(&self, d: Digest) -> Result<Option<Vec<u8>>, Fault> {
        if d.size_bytes > self.max_batch().await {
            return self.bytestream_read(d).await;
        }
        let req = BatchReadBlobsRequest {
            instance_name: self.instance.clone(),
            digests: vec![d.clone()],
        };
        let resp = ContentAddressableStorageClient::new(self.channel.clone())
            .batch_read_blobs(self.request(req))
            .await
            .map_err(|s| transport("BatchReadBlobs", &s))?
            .into_inner();
        let Some(r) = resp
            .responses
            .into_iter()
            .find(|r| r.digest.as_ref() == Some(&d))
        else {
            return Err(Fault::Transport(format!(
                "BatchReadBlobs: no response for {}",
                d.hash
            )));
        };
        match r.status.map_or(0, |s| s.code) {
            0 => Ok(Some(r.data)),
            5 => Ok(None),
            c => Err(Fault::Transport(format!(
                "BatchReadBlobs {}: status {c}",
                d.hash
            ))),
        }
    }

    /// Upload `data` unless the server already has it.
    pub async fn write_blob(&self, d: Digest, data: Vec<u8>) -> Result<(), Fault> {
        let mut cas = ContentAddressableStorageClient::new(self.channel.clone());
        let find = cas.find_missing_blobs(self.request(FindMissingBlobsRequest {
            instance_name: self.instance.clone(),
            blob_digests: vec![d.clone()],
        }));
        let missing = self
            .answer("FindMissingBlobs", find)
            .await?
            .map_err(|s| transport("FindMissingBlobs", &s))?
            .into_inner()
            .missing_blob_digests;
        if missing.is_empty() {
            return Ok(());
        }
        if d.size_bytes > self.max_batch().await {
            return self.bytestream_write(d, data).await;
        }
        let resp = cas
            .batch_update_blobs(self.request(BatchUpdateBlobsRequest {
                instance_name: self.instance.clone(),
                requests: vec![batch_update_blobs_request::Request {
                    digest: Some(d.clone()),
                    data,
                }],
            }))
            .await
            .map_err(|s| transport("BatchUpdateBlobs", &s))?
            .into_inner();
        let code = resp
            .responses
            .iter()
            .find(|r| r.digest.as_ref() == Some(&d))
            .map(|r| r.status.as_ref().map_or(0, |s| s.code));
        match code {
            Some(0) => Ok(()),
            c => Err(Fault::Transport(format!(
                "BatchUpdateBlobs {}: status {c:?}",
                d.hash
            ))),
        }
    }

    async fn bytestream_read(&self, d: Digest) -> Result<Option<Vec<u8>>, Fault> {
        let req = ReadRequest {
            resource_name: read_resource(&self.instance, &d),
            read_offset: 0,
            read_limit: 0,
        };
        let mut client = ByteStreamClient::new(self.channel.clone());
        let mut stream = match self
            .answer("ByteStream.Read", client.read(self.request(req)))
            .await?
        {
            Ok(s) => s.into_inner(),
            Err(s) if s.code() == Code::NotFound => return Ok(None),
            Err(s) => return Err(transport("ByteStream.Read", &s)),
        };
        let size = usize::try_from(d.size_bytes).unwrap_or(0);
        let mut data = Vec::with_capacity(size.min(CHUNK));
        loop {
            match stream.message().await {
                Ok(Some(chunk)) => {
                    if data.len() + chunk.data.len() > size {
                        return Err(Fault::Rejected(format!(
                            "ByteStream.Read {}: more than the digest's {size} bytes",
                            d.hash
                        )));
                    }
                    data.extend_from_slice(&chunk.data)
                }
                Ok(None) => return Ok(Some(data)),
                Err(s) if s.code() == Code::NotFound => return Ok(None),
                Err(s) => return Err(transport("ByteStream.Read", &s)),
            }
        }
    }

    async fn bytestream_write(&self, d: Digest, data: Vec<u8>) -> Result<(), Fault> {
        let resource = write_resource(&self.instance, &upload_id(), &d);
        let chunks: Vec<WriteRequest> = data
            .chunks(CHUNK)
            .enumerate()
            .map(|(i, c)| WriteRequest {
                resource_name: if i == 0 {
                    resource.clone()
                } else {
                    String::new()
                },
                write_offset: (i * CHUNK) as i64,
                finish_write: (i + 1) * CHUNK >= data.len(),
                data: c.to_vec(),
            })
            .collect();
        let resp = ByteStreamClient::new(self.channel.clone())
            .write(self.request(tokio_stream::iter(chunks)))
            .await
            .map_err(|s| transport("ByteStream.Write", &s))?
            .into_inner();
        if resp.committed_size != d.size_bytes {
            return Err(Fault::Transport(format!(
                "ByteStream.Write {}: committed {} of {} bytes",
                d.hash, resp.committed_size, d.size_bytes
            )));
        }
        Ok(())
    }

    /// The batch size limit: the server's announcement (once), capped at [`BATCH_CAP`].
    async fn max_batch(&self) -> i64 {
        *self
            .max_batch
            .get_or_init(|| async {
                let req = GetCapabilitiesRequest {
                    instance_name: self.instance.clone(),
                };
                let mut client = CapabilitiesClient::new(self.channel.clone());
                let announced = self
                    .answer(
                        "GetCapabilities",
                        client.get_capabilities(self.request(req)),
                    )
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .and_then(|r| r.into_inner().cache_capabilities)
                    .map_or(0, |c| c.max_batch_total_size_bytes);
                if announced > 0 {
                    announced.min(BATCH_CAP)
                } else {
                    BATCH_CAP
                }
            })
            .await
    }
}

fn transport(rpc: &str, s: &tonic::Status) -> Fault {
    let detail = match s.source().map(error_chain) {
        Some(cause) if cause.contains(s.message()) => cause,
        Some(cause) => format!("{}: {cause}", s.message()),
        None => s.message().to_string(),
    };
    Fault::Transport(format!("{rpc}: {:?}: {detail}", s.code()))
}

fn prefix(instance: &str) -> String {
    if instance.is_empty() {
        String::new()
    } else {
        format!("{instance}/")
    }
}

/// `{instance/}blobs/{hash}/{size}`.
pub fn read_resource(instance: &str, d: &Digest) -> String {
    format!("{}blobs/{}/{}", prefix(instance), d.hash, d.size_bytes)
}

/// `{instance/}uploads/{uuid}/blobs/{hash}/{size}`.
pub fn write_resource(instance: &str, uuid: &str, d: &Digest) -> String {
    format!(
        "{}uploads/{uuid}/blobs/{}/{}",
        prefix(instance),
        d.hash,
        d.size_bytes
    )
}

/// A version-4-shaped UUID, unique per process and call (no randomness needed: it only
/// keeps concurrent uploads apart).
fn upload_id() -> String {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!(
        "{}-{nanos}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    );
    let mut b = crate::digest(seed.as_bytes());
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = crate::hex(&b[..16]);
    format!(
        "{}-{}-{}-{}-{}",
        &h[..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_names() {
        let d = Digest {
            hash: "ab".repeat(32),
            size_bytes: 7,
        };
        assert_eq!(read_resource("", &d), format!("blobs/{}/7", d.hash));
        assert_eq!(
            read_resource("main", &d),
            format!("main/blobs/{}/7", d.hash)
        );
        assert_eq!(
            write_resource("a/b", "u", &d),
            format!("a/b/uploads/u/blobs/{}/7", d.hash)
        );
    }

    #[test]
    fn upload_ids_are_uuid_v4_shaped_and_distinct() {
        let (a, b) = (upload_id(), upload_id());
        assert_ne!(a, b);
        let parts: Vec<&str> = a.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'));
    }
}
