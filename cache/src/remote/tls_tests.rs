//! The tier over TLS with an auth header, against in-process servers on loopback that
//! present a freshly generated self-signed certificate and refuse any request without
//! `authorization: Bearer <TOKEN>`: a Bazel HTTP cache (HTTP/1.1) and a REAPI cache (gRPC,
//! HTTP/2, the crate's test-only server stubs). For each: a request without the header,
//! or with a wrong one, is refused by the server; with it, entries round-trip between two
//! stores; without the CA (system roots) the handshake fails before any request; and the
//! token appears in no log line, everything from `TRACE` up captured.

use super::pb::reapi::action_cache_server::{ActionCache, ActionCacheServer};
use super::pb::reapi::content_addressable_storage_server::{
    ContentAddressableStorage, ContentAddressableStorageServer,
};
use super::pb::reapi::{
    ActionResult, BatchReadBlobsRequest, BatchReadBlobsResponse, BatchUpdateBlobsRequest,
    BatchUpdateBlobsResponse, FindMissingBlobsRequest, FindMissingBlobsResponse,
    GetActionResultRequest, UpdateActionResultRequest, batch_read_blobs_response,
    batch_update_blobs_response,
};
use super::{Fault, Options, Remote, headers};
use crate::{Key, Store};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::collections::BTreeMap;
use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tonic::Status;

const TOKEN: &str = "kiln-tls-test-token-5f2c9a";
const AUTH: &str = "Authorization=Bearer kiln-tls-test-token-5f2c9a";

/// Every log line of this test process, from `TRACE` up.
fn log() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOG: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOG.get_or_init(|| {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let sink = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || Sink(sink.clone()))
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("one global subscriber");
        buf
    })
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn logged() -> String {
    String::from_utf8_lossy(&log().lock().unwrap()).into_owned()
}

/// A loopback server: its address, what it refused and served, and its runtime.
struct Server {
    addr: SocketAddr,
    cert_pem: String,
    refused: Arc<AtomicU64>,
    served: Arc<AtomicU64>,
    _rt: tokio::runtime::Runtime,
}

/// Accept TLS connections (certificate for 127.0.0.1, ALPN `alpn`) and hand each to `serve`,
/// which counts in `refused` and `served`.
fn start<F, Fut>(alpn: &[u8], (refused, served): Counters, serve: F) -> Server
where
    F: Fn(tokio_rustls::server::TlsStream<tokio::net::TcpStream>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.signing_key.serialize_der()));
    let mut config = ServerConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.cert.der().clone()], key)
    .unwrap();
    config.alpn_protocols = vec![alpn.to_vec()];
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let serve = Arc::new(serve);
    rt.spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, serve) = (acceptor.clone(), serve.clone());
            tokio::spawn(async move {
                if let Ok(tls) = acceptor.accept(tcp).await {
                    serve(tls).await;
                }
            });
        }
    });
    Server {
        addr,
        cert_pem: cert.cert.pem(),
        refused,
        served,
        _rt: rt,
    }
}

/// Requests refused, requests served.
type Counters = (Arc<AtomicU64>, Arc<AtomicU64>);

fn authorized(value: Option<&[u8]>) -> bool {
    value == Some(format!("Bearer {TOKEN}").as_bytes())
}

type Objects = Arc<Mutex<BTreeMap<String, Vec<u8>>>>;

/// A Bazel HTTP cache over HTTPS (GET/PUT of `/ac/…` and `/cas/…`) behind the token.
fn https_cache() -> Server {
    let objects: Objects = Arc::default();
    let counters: Counters = Default::default();
    let (r, s) = counters.clone();
    start(b"http/1.1", counters, move |tls| {
        let (objects, r, s) = (objects.clone(), r.clone(), s.clone());
        async move {
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let (objects, r, s) = (objects.clone(), r.clone(), s.clone());
                async move {
                    let reply = |code: StatusCode, body: Vec<u8>| {
                        let mut resp = Response::new(Full::new(Bytes::from(body)));
                        *resp.status_mut() = code;
                        Ok::<_, hyper::Error>(resp)
                    };
                    let auth = req.headers().get("authorization").map(|v| v.as_bytes());
                    if !authorized(auth) {
                        r.fetch_add(1, Ordering::Relaxed);
                        return reply(StatusCode::UNAUTHORIZED, Vec::new());
                    }
                    s.fetch_add(1, Ordering::Relaxed);
                    let path = req.uri().path().to_string();
                    if req.method() == Method::PUT {
                        let body = req.into_body().collect().await?.to_bytes();
                        objects.lock().unwrap().insert(path, body.to_vec());
                        return reply(StatusCode::OK, Vec::new());
                    }
                    match objects.lock().unwrap().get(&path) {
                        Some(b) => reply(StatusCode::OK, b.clone()),
                        None => reply(StatusCode::NOT_FOUND, Vec::new()),
                    }
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(tls), service)
                .await;
        }
    })
}

/// An in-memory REAPI action cache and CAS.
#[derive(Clone, Default)]
struct Reapi {
    ac: Arc<Mutex<BTreeMap<String, ActionResult>>>,
    cas: Objects,
}

fn hash_of(d: &Option<super::pb::reapi::Digest>) -> String {
    d.as_ref().map(|d| d.hash.clone()).unwrap_or_default()
}

#[tonic::async_trait]
impl ActionCache for Reapi {
    async fn get_action_result(
        &self,
        req: tonic::Request<GetActionResultRequest>,
    ) -> Result<tonic::Response<ActionResult>, Status> {
        let hash = hash_of(&req.into_inner().action_digest);
        match self.ac.lock().unwrap().get(&hash) {
            Some(ar) => Ok(tonic::Response::new(ar.clone())),
            None => Err(Status::not_found("no action result")),
        }
    }

    async fn update_action_result(
        &self,
        req: tonic::Request<UpdateActionResultRequest>,
    ) -> Result<tonic::Response<ActionResult>, Status> {
        let req = req.into_inner();
        let ar = req.action_result.unwrap_or_default();
        let hash = hash_of(&req.action_digest);
        self.ac.lock().unwrap().insert(hash, ar.clone());
        Ok(tonic::Response::new(ar))
    }
}

#[tonic::async_trait]
impl ContentAddressableStorage for Reapi {
    async fn find_missing_blobs(
        &self,
        req: tonic::Request<FindMissingBlobsRequest>,
    ) -> Result<tonic::Response<FindMissingBlobsResponse>, Status> {
        let cas = self.cas.lock().unwrap();
        let missing = req.into_inner().blob_digests;
        let missing_blob_digests = missing
            .into_iter()
            .filter(|d| !cas.contains_key(&d.hash))
            .collect();
        Ok(tonic::Response::new(FindMissingBlobsResponse {
            missing_blob_digests,
        }))
    }

    async fn batch_update_blobs(
        &self,
        req: tonic::Request<BatchUpdateBlobsRequest>,
    ) -> Result<tonic::Response<BatchUpdateBlobsResponse>, Status> {
        let mut cas = self.cas.lock().unwrap();
        let responses = req
            .into_inner()
            .requests
            .into_iter()
            .map(|r| {
                cas.insert(hash_of(&r.digest), r.data);
                batch_update_blobs_response::Response {
                    digest: r.digest,
                    status: None,
                }
            })
            .collect();
        Ok(tonic::Response::new(BatchUpdateBlobsResponse { responses }))
    }

    async fn batch_read_blobs(
        &self,
        req: tonic::Request<BatchReadBlobsRequest>,
    ) -> Result<tonic::Response<BatchReadBlobsResponse>, Status> {
        let cas = self.cas.lock().unwrap();
        let responses = req
            .into_inner()
            .digests
            .into_iter()
            .map(|d| {
                let data = cas.get(&d.hash).cloned();
                batch_read_blobs_response::Response {
                    status: data.is_none().then(|| super::pb::google::rpc::Status {
                        code: tonic::Code::NotFound as i32,
                        ..Default::default()
                    }),
                    data: data.unwrap_or_default(),
                    digest: Some(d),
                }
            })
            .collect();
        Ok(tonic::Response::new(BatchReadBlobsResponse { responses }))
    }
}

/// A REAPI cache over gRPC with TLS behind the token.
fn grpcs_cache() -> Server {
    let counters: Counters = Default::default();
    let (r, s) = counters.clone();
    let check = move |req: tonic::Request<()>| {
        let auth = req.metadata().get("authorization").map(|v| v.as_bytes());
        if authorized(auth) {
            s.fetch_add(1, Ordering::Relaxed);
            Ok(req)
        } else {
            r.fetch_add(1, Ordering::Relaxed);
            Err(Status::unauthenticated("no valid token"))
        }
    };
    let reapi = Reapi::default();
    let routes = tonic::service::Routes::new(ActionCacheServer::with_interceptor(
        reapi.clone(),
        check.clone(),
    ))
    .add_service(ContentAddressableStorageServer::with_interceptor(
        reapi, check,
    ));
    start(b"h2", counters, move |tls| {
        let routes = routes.clone();
        async move {
            let service = hyper_util::service::TowerToHyperService::new(routes);
            let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(tls), service)
                .await;
        }
    })
}

fn key(i: u32) -> Key {
    Key::new("tls-test", "kind", &[&i.to_le_bytes()])
}

/// The checks shared by both protocols; `refusal` is how the server's refusal reads.
fn needs_its_header_and_its_ca(scheme: &str, server: Server, refusal: &str) {
    log();
    let url = format!("{scheme}://{}", server.addr);
    let ca: Arc<[u8]> = Arc::from(server.cert_pem.as_bytes());
    let options = |headers: &[&str], ca: Option<&Arc<[u8]>>| Options {
        headers: headers::parse_all(headers.iter().copied()).unwrap(),
        ca_pem: ca.cloned(),
        ..Options::default()
    };
    let refused = || server.refused.load(Ordering::Relaxed);
    let served = || server.served.load(Ordering::Relaxed);

    // Without the header, and with a wrong one: the server refuses, nothing is stored; the
    // build's notice names the server (never the token).
    for headers in [&[][..], &["Authorization=Bearer wrong"][..]] {
        let before = refused();
        let r = Remote::connect_with(&url, options(headers, Some(&ca))).unwrap();
        let put = r.put(&key(0), b"entry");
        assert!(
            matches!(&put, Err(Fault::Transport(why)) if why.contains(refusal)),
            "{put:?}"
        );
        assert!(refused() > before, "the server saw no refused request");
        let notice = r.take_notice().unwrap_or_default();
        assert!(
            notice.contains(&url) && notice.contains("unavailable") && notice.contains(refusal),
            "{notice}"
        );
        assert!(!notice.contains(TOKEN), "{notice}");
    }
    assert_eq!(served(), 0);

    // With it: entries uploaded through one store are remote hits in another.
    let dir = tempfile::tempdir().unwrap();
    let store = |name: &str| {
        let remote = Remote::connect_with(&url, options(&[AUTH], Some(&ca))).unwrap();
        Store::open(dir.path().join(name), u64::MAX)
            .unwrap()
            .with_remote(remote)
    };
    let a = store("a");
    for i in 1..=3u32 {
        assert_eq!(a.get::<u32>(&key(i)), None);
        a.put(&key(i), &(i * 11)).unwrap();
    }
    assert_eq!(a.counters().remote_uploads, 3, "{:?}", a.counters());
    let b = store("b");
    for i in 1..=3u32 {
        assert_eq!(b.get::<u32>(&key(i)), Some(i * 11));
    }
    let c = b.counters();
    assert_eq!((c.remote_hits, c.remote_errors), (3, 0), "{c:?}");
    assert!(served() > 0);

    // With the header but trusting the system's roots: no request gets through.
    let before = (served(), refused());
    match Remote::connect_with(&url, options(&[AUTH], None)) {
        Ok(r) => {
            let got = r.get(&key(1));
            assert!(
                matches!(&got, Err(Fault::Transport(why)) if why.contains("certificate")),
                "{got:?}"
            );
        }
        Err(e) => assert!(e.to_string().contains("no system root certificates"), "{e}"),
    }
    assert_eq!((served(), refused()), before);

    // The token in no line of the log, at any level.
    let log = logged();
    assert!(log.contains(&url), "nothing logged about {url}");
    assert!(!log.contains(TOKEN), "the token was logged");
}

#[test]
fn https_cache_needs_its_header_and_its_ca() {
    needs_its_header_and_its_ca("https", https_cache(), "401 Unauthorized");
}

#[test]
fn grpcs_cache_needs_its_header_and_its_ca() {
    needs_its_header_and_its_ca("grpcs", grpcs_cache(), "Unauthenticated");
}

#[test]
fn an_outage_is_one_notice_and_no_warning_in_the_log() {
    log();
    // Refused at once on loopback port 1; a unique path tells this test's lines apart.
    let url = "http://127.0.0.1:1/one-warning";
    let r = Remote::connect(url).unwrap();
    for i in 0..10 {
        assert!(r.get(&key(i)).is_err());
        assert!(r.put(&key(i), b"e").is_err());
    }
    let notice = r.take_notice().unwrap();
    assert!(
        notice.contains(url) && notice.contains("refused"),
        "{notice}"
    );
    assert_eq!(r.take_notice(), None, "told once per outage");
    // The tier logs details at debug level only: the build's notice is the one warning.
    let log = logged();
    let warnings: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("WARN") && l.contains(url))
        .collect();
    assert!(warnings.is_empty(), "{warnings:#?}");
}
