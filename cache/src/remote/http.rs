//! Bazel's HTTP cache protocol: `GET/PUT <base>/ac/<hash>` carries a serialized
//! `ActionResult`, `GET/PUT <base>/cas/<hash>` a blob. 200 = found, 404 = absent, any 2xx
//! answers a PUT. Plain HTTP/1.1 (hyper); no TLS in this build.

use super::Fault;
use super::pb::reapi::{ActionResult, Digest};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use prost::Message;

#[derive(Clone)]
pub struct HttpCache {
    /// `http://host:port[/prefix]`, without a trailing slash.
    base: String,
    client: Client<HttpConnector, Full<Bytes>>,
}

impl HttpCache {
    pub fn new(url: &str) -> Result<HttpCache, String> {
        let base = url.trim_end_matches('/').to_string();
        base.parse::<hyper::Uri>()
            .map_err(|e| format!("remote cache `{url}`: {e}"))?;
        Ok(HttpCache {
            base,
            client: Client::builder(TokioExecutor::new()).build_http(),
        })
    }

    pub async fn get_action_result(&self, d: &Digest) -> Result<Option<ActionResult>, Fault> {
        let Some(bytes) = self.get(&format!("ac/{}", d.hash)).await? else {
            return Ok(None);
        };
        ActionResult::decode(bytes.as_slice())
            .map(Some)
            .map_err(|e| Fault::Rejected(format!("undecodable action result {}: {e}", d.hash)))
    }

    pub async fn read_blob(&self, d: &Digest) -> Result<Option<Vec<u8>>, Fault> {
        self.get(&format!("cas/{}", d.hash)).await
    }

    pub async fn write_blob(&self, d: &Digest, data: Vec<u8>) -> Result<(), Fault> {
        self.put(&format!("cas/{}", d.hash), data).await
    }

    pub async fn update_action_result(&self, d: &Digest, ar: &ActionResult) -> Result<(), Fault> {
        self.put(&format!("ac/{}", d.hash), ar.encode_to_vec())
            .await
    }

    async fn get(&self, path: &str) -> Result<Option<Vec<u8>>, Fault> {
        let (status, body) = self.send(Method::GET, path, Vec::new()).await?;
        match status {
            StatusCode::OK => Ok(Some(body)),
            StatusCode::NOT_FOUND => Ok(None),
            s => Err(Fault::Transport(format!("GET {}/{path}: {s}", self.base))),
        }
    }

    async fn put(&self, path: &str, body: Vec<u8>) -> Result<(), Fault> {
        let (status, _) = self.send(Method::PUT, path, body).await?;
        if status.is_success() {
            return Ok(());
        }
        Err(Fault::Transport(format!(
            "PUT {}/{path}: {status}",
            self.base
        )))
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Vec<u8>,
    ) -> Result<(StatusCode, Vec<u8>), Fault> {
        let uri = format!("{}/{path}", self.base);
        let req = Request::builder()
            .method(method.clone())
            .uri(&uri)
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| Fault::Transport(format!("{method} {uri}: {e}")))?;
        let resp = self
            .client
            .request(req)
            .await
            .map_err(|e| Fault::Transport(format!("{method} {uri}: {e}")))?;
        let status = resp.status();
        let body = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| Fault::Transport(format!("{method} {uri}: {e}")))?
            .to_bytes();
        Ok((status, body.to_vec()))
    }
}
