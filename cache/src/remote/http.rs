//! Bazel's HTTP cache protocol: `GET/PUT <base>/ac/<hash>` carries a serialized
//! `ActionResult`, `GET/PUT <base>/cas/<hash>` a blob. 200 = found, 404 = absent, any 2xx
//! answers a PUT. HTTP/1.1 (hyper), over TLS for `https://` ([`super::tls`]); the
//! [`Options::headers`] go with every request.
//!
//! Bodies are read up to a bound (a blob: its digest's size; an action result:
//! [`Options::max_action_result`]); a longer one is rejected as soon as it is longer (a
//! stated `Content-Length` over the bound before reading anything). The response headers
//! must arrive within [`Options::first_byte_timeout`] of sending the request.

use super::pb::reapi::{ActionResult, Digest};
use super::tls::{self, Connector, Security};
use super::{Fault, Options, error_chain};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::{HeaderMap, Method, Request, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use prost::Message;
use std::time::Duration;

/// Largest body read in answer to a PUT.
const PUT_REPLY_CAP: u64 = 64 * 1024;

#[derive(Clone)]
pub struct HttpCache {
    /// `http[s]://host:port[/prefix]`, without a trailing slash.
    base: String,
    client: Client<Connector, Full<Bytes>>,
    headers: HeaderMap,
    first_byte: Duration,
    max_action_result: u64,
}

impl HttpCache {
    pub fn new(url: &str, security: Security<'_>, options: &Options) -> Result<HttpCache, String> {
        let base = url.trim_end_matches('/').to_string();
        base.parse::<hyper::Uri>().map_err(|e| e.to_string())?;
        let connector = tls::connector(security, false, options.connect_timeout)?;
        Ok(HttpCache {
            base,
            client: Client::builder(TokioExecutor::new()).build(connector),
            headers: options.headers.clone(),
            first_byte: options.first_byte_timeout,
            max_action_result: options.max_action_result,
        })
    }

    pub async fn get_action_result(&self, d: &Digest) -> Result<Option<ActionResult>, Fault> {
        let cap = self.max_action_result;
        let Some(bytes) = self.get(&format!("ac/{}", d.hash), cap).await? else {
            return Ok(None);
        };
        ActionResult::decode(bytes.as_slice())
            .map(Some)
            .map_err(|e| Fault::Rejected(format!("undecodable action result {}: {e}", d.hash)))
    }

    pub async fn read_blob(&self, d: &Digest) -> Result<Option<Vec<u8>>, Fault> {
        let size = u64::try_from(d.size_bytes).unwrap_or(0);
        self.get(&format!("cas/{}", d.hash), size).await
    }

    pub async fn write_blob(&self, d: &Digest, data: Vec<u8>) -> Result<(), Fault> {
        self.put(&format!("cas/{}", d.hash), data).await
    }

    pub async fn update_action_result(&self, d: &Digest, ar: &ActionResult) -> Result<(), Fault> {
        self.put(&format!("ac/{}", d.hash), ar.encode_to_vec())
            .await
    }

    async fn get(&self, path: &str, cap: u64) -> Result<Option<Vec<u8>>, Fault> {
        let (status, body) = self.send(Method::GET, path, Vec::new(), cap).await?;
        match status {
            StatusCode::OK => Ok(Some(body)),
            StatusCode::NOT_FOUND => Ok(None),
            s => Err(Fault::Transport(format!("GET {}/{path}: {s}", self.base))),
        }
    }

    async fn put(&self, path: &str, body: Vec<u8>) -> Result<(), Fault> {
        let (status, _) = self.send(Method::PUT, path, body, PUT_REPLY_CAP).await?;
        if status.is_success() {
            return Ok(());
        }
        Err(Fault::Transport(format!(
            "PUT {}/{path}: {status}",
            self.base
        )))
    }

    /// One request; the response body read up to `cap` bytes (more: rejected).
    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Vec<u8>,
        cap: u64,
    ) -> Result<(StatusCode, Vec<u8>), Fault> {
        let uri = format!("{}/{path}", self.base);
        let mut req = Request::builder()
            .method(method.clone())
            .uri(&uri)
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| Fault::Transport(format!("{method} {uri}: {e}")))?;
        req.headers_mut().extend(self.headers.clone());
        let resp = tokio::time::timeout(self.first_byte, self.client.request(req))
            .await
            .map_err(|_| {
                Fault::TimedOut(format!(
                    "{method} {uri}: no response within {:?}",
                    self.first_byte
                ))
            })?
            .map_err(|e| Fault::Transport(format!("{method} {uri}: {}", error_chain(&e))))?;
        let status = resp.status();
        if !status.is_success() {
            return Ok((status, Vec::new()));
        }
        let too_long = || Fault::Rejected(format!("{method} {uri}: body longer than {cap} bytes"));
        let stated = resp
            .headers()
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if stated.is_some_and(|n| n > cap) {
            return Err(too_long());
        }
        let cap = usize::try_from(cap).unwrap_or(usize::MAX);
        let body = Limited::new(resp.into_body(), cap)
            .collect()
            .await
            .map_err(|e| {
                if e.downcast_ref::<LengthLimitError>().is_some() {
                    too_long()
                } else {
                    Fault::Transport(format!("{method} {uri}: {}", error_chain(&*e)))
                }
            })?
            .to_bytes();
        Ok((status, body.to_vec()))
    }
}
