//! The remote tier of the cache: one cache entry per action, shared between machines.
//!
//! A kiln cache entry maps onto the Bazel/REAPI model as one action with one output file:
//! the action digest is the entry's [`Key`] (the SHA-256 of its length-prefixed preimage,
//! whose length is the digest's size), and the `ActionResult` names one output,
//! [`ENTRY_PATH`], whose CAS blob is the key followed by the encoded entry (see
//! [`crate::codec`]). Two protocols carry it, each in the clear or over TLS
//! ([`tls`]):
//! - [`http`]: Bazel's HTTP cache protocol (`GET/PUT <base>/ac/<hash>` with a serialized
//!   `ActionResult`, `<base>/cas/<hash>` with the blob), e.g. nginx with WebDAV PUT
//!   (`http://`, `https://`);
//! - [`grpc`]: REAPI v2 gRPC (`ActionCache`, `ContentAddressableStorage`, `ByteStream` for
//!   blobs larger than a batch), e.g. BuildGrid (`grpc://`, `grpcs://`).
//!
//! [`Options::headers`] (API keys, bearer tokens: [`headers`]) go on every HTTP request and
//! into every call's gRPC metadata. They are credentials: never logged, never in an error,
//! and a URL carrying credentials (`https://user:pass@host`) is refused for the same reason.
//!
//! Reads are verified: the action result must name exactly one blob; the blob's SHA-256
//! and size must match its digest and it must start with the requested key; with a signing
//! key ([`Options::signing`], see [`sign`]) its HMAC-SHA-256 tag must verify. Anything else
//! is a *rejected* entry — logged with `tracing::warn!` and treated as a miss, so the caller
//! recomputes and uploads a good entry. Transport errors are misses too. Each is logged
//! (`tracing::debug!`) and tallied; what a user hears is one line per build
//! ([`Remote::take_notice`]): the outage that began, and how many entries were rejected.
//!
//! Nothing a server sends is trusted to be finite: a blob body is read up to the size its
//! digest states (a larger one is rejected as soon as it is larger), an action result up to
//! [`Options::max_action_result`], and a digest's stated size is checked against
//! [`Options::max_blob`] before anything is allocated for it. Time is bounded three ways:
//! connecting ([`Options::connect_timeout`]), the response's first byte
//! ([`Options::first_byte_timeout`]) and the whole operation ([`Options::deadline`],
//! `--remote-timeout`). The first time-out — or [`MAX_STRIKES`] consecutive transport
//! errors — switches the tier off for [`COOL_DOWN`] (a one-shot build: the rest of the
//! build) and ends the operations in flight at once, so a server that accepts connections
//! and never answers costs a build one first-byte time-out. `Options::upload = false`
//! (`--remote-upload=false`) makes the client read-only. An outage is told once, in the
//! notice of the build in which it began, and not again until it ends (at the next
//! success); rejected entries are counted in each build's notice.
//!
//! Calls are synchronous for the caller: each runs on the tier's own small tokio runtime,
//! so the store can be used from plain threads and from inside another runtime's blocking
//! tasks alike.
//!
//! Architecture invariant: keys and blobs depend only on the build id and input digests,
//! never on paths or the machine, so an entry written on one machine is a hit on another.

pub mod grpc;
pub mod headers;
pub mod http;
pub mod sign;
pub mod tls;
#[cfg(test)]
mod tls_tests;

use crate::Key;
use hyper::HeaderMap;
use sha2::{Digest as _, Sha256};
use std::future::Future;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Generated REAPI (subset), ByteStream and `google.rpc.Status` types and clients, nested
/// like their packages (the generated code refers to other packages by relative path).
#[allow(clippy::all)]
pub mod pb {
    pub mod build {
        pub mod bazel {
            pub mod remote {
                pub mod execution {
                    pub mod v2 {
                        tonic::include_proto!("build.bazel.remote.execution.v2");
                    }
                }
            }
        }
    }
    pub mod google {
        pub mod rpc {
            tonic::include_proto!("google.rpc");
        }
        pub mod bytestream {
            tonic::include_proto!("google.bytestream");
        }
    }
    pub use build::bazel::remote::execution::v2 as reapi;
}

use pb::reapi::{ActionResult, Digest, OutputFile};

/// The path of a kiln entry's one output in its `ActionResult`.
pub const ENTRY_PATH: &str = "kiln-cache-entry";
/// Consecutive transport errors after which the remote tier is switched off.
pub const MAX_STRIKES: u32 = 3;
/// How long a switched-off tier stays off.
pub const COOL_DOWN: Duration = Duration::from_secs(60);

/// How the tier talks to its server: time-outs, size caps, read-only, signing, TLS trust,
/// headers.
#[derive(Clone, Debug)]
pub struct Options {
    /// Establishing a connection.
    pub connect_timeout: Duration,
    /// From sending a request to the first byte of its response (connecting included).
    pub first_byte_timeout: Duration,
    /// One whole operation (lookup + download, or upload): `--remote-timeout`.
    pub deadline: Duration,
    /// Upload computed entries (`false`: read-only client, `--remote-upload=false`).
    pub upload: bool,
    /// Sign uploaded entries and accept only entries whose tag verifies.
    pub signing: Option<sign::SigningKey>,
    /// Largest action-result body read (its size is stated by nothing).
    pub max_action_result: u64,
    /// Largest blob a digest may state.
    pub max_blob: u64,
    /// PEM certificates trusted instead of the system's roots (`https://`, `grpcs://` only).
    pub ca_pem: Option<Arc<[u8]>>,
    /// Sent with every request (values marked sensitive: see [`headers`]).
    pub headers: HeaderMap,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            connect_timeout: Duration::from_secs(2),
            first_byte_timeout: Duration::from_secs(2),
            deadline: Duration::from_secs(5),
            upload: true,
            signing: None,
            max_action_result: 1 << 20,
            max_blob: 1 << 30,
            ca_pem: None,
            headers: HeaderMap::new(),
        }
    }
}

/// Why a remote read gave nothing usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The server could not be reached or answered with an error.
    Transport(String),
    /// The server did not answer (or finish) in time: the tier is switched off.
    TimedOut(String),
    /// The server answered, but with something that fails verification (poisoned blob,
    /// wrong key, malformed action result).
    Rejected(String),
    /// Not asked: the tier is switched off after failing.
    Off,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Transport(m) => write!(f, "transport: {m}"),
            Fault::TimedOut(m) => write!(f, "timed out: {m}"),
            Fault::Rejected(m) => write!(f, "rejected: {m}"),
            Fault::Off => f.write_str("switched off"),
        }
    }
}

/// The REAPI digest (SHA-256 hex, size) of `bytes`.
pub fn blob_digest(bytes: &[u8]) -> Digest {
    Digest {
        hash: crate::hex(&Sha256::digest(bytes)),
        size_bytes: bytes.len() as i64,
    }
}

/// The action digest under which the entry for `key` is cached.
pub fn action_digest(key: &Key) -> Digest {
    Digest {
        hash: key.to_hex(),
        size_bytes: key.preimage_len() as i64,
    }
}

/// The CAS blob of an entry: the key, then the encoded entry.
pub fn make_blob(key: &Key, entry: &[u8]) -> Vec<u8> {
    let mut blob = Vec::with_capacity(32 + entry.len());
    blob.extend_from_slice(key.as_bytes());
    blob.extend_from_slice(entry);
    blob
}

/// The action result that names `blob` as the entry's one output.
pub fn make_action_result(blob: &Digest) -> ActionResult {
    ActionResult {
        output_files: vec![OutputFile {
            path: ENTRY_PATH.to_string(),
            digest: Some(blob.clone()),
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// The digest of the entry blob an action result names, if it is well-formed.
pub fn entry_blob_digest(ar: &ActionResult) -> Result<Digest, Fault> {
    let [file] = ar.output_files.as_slice() else {
        return Err(Fault::Rejected(format!(
            "action result has {} output files, expected 1",
            ar.output_files.len()
        )));
    };
    if file.path != ENTRY_PATH || ar.exit_code != 0 {
        return Err(Fault::Rejected(format!(
            "action result names `{}` (exit code {})",
            file.path, ar.exit_code
        )));
    }
    let d = file
        .digest
        .clone()
        .ok_or_else(|| Fault::Rejected("output file without digest".into()))?;
    let hex_ok = d.hash.len() == 64 && d.hash.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex_ok || d.size_bytes < 32 {
        return Err(Fault::Rejected(format!(
            "bad blob digest {}/{}",
            d.hash, d.size_bytes
        )));
    }
    Ok(d)
}

/// Check a downloaded blob against its digest and the key it must carry; the entry bytes.
pub fn verify_blob(key: &Key, digest: &Digest, blob: &[u8]) -> Result<Vec<u8>, Fault> {
    let actual = blob_digest(blob);
    if actual.hash != digest.hash.to_ascii_lowercase() || actual.size_bytes != digest.size_bytes {
        return Err(Fault::Rejected(format!(
            "blob {}/{} has digest {}/{}",
            digest.hash, digest.size_bytes, actual.hash, actual.size_bytes
        )));
    }
    if blob.get(..32) != Some(key.as_bytes().as_slice()) {
        return Err(Fault::Rejected(format!(
            "blob {} belongs to another key",
            digest.hash
        )));
    }
    Ok(blob[32..].to_vec())
}

/// An error with its sources, `outer: inner: …` (a client error's own text is often only
/// its kind: the cause is in the chain).
pub(crate) fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let m = s.to_string();
        if !out.ends_with(&m) {
            out = format!("{out}: {m}");
        }
        source = s.source();
    }
    out
}

/// The protocol-specific half of the tier.
#[derive(Clone)]
enum Backend {
    Http(Arc<http::HttpCache>),
    Grpc(Arc<grpc::GrpcCache>),
}

impl Backend {
    async fn get_action_result(&self, d: Digest) -> Result<Option<ActionResult>, Fault> {
        match self {
            Backend::Http(h) => h.get_action_result(&d).await,
            Backend::Grpc(g) => g.get_action_result(d).await,
        }
    }

    async fn read_blob(&self, d: Digest) -> Result<Option<Vec<u8>>, Fault> {
        match self {
            Backend::Http(h) => h.read_blob(&d).await,
            Backend::Grpc(g) => g.read_blob(d).await,
        }
    }

    async fn write_blob(&self, d: Digest, data: Vec<u8>) -> Result<(), Fault> {
        match self {
            Backend::Http(h) => h.write_blob(&d, data).await,
            Backend::Grpc(g) => g.write_blob(d, data).await,
        }
    }

    async fn update_action_result(&self, d: Digest, ar: ActionResult) -> Result<(), Fault> {
        match self {
            Backend::Http(h) => h.update_action_result(&d, &ar).await,
            Backend::Grpc(g) => g.update_action_result(d, ar).await,
        }
    }

    /// The entry bytes cached for `key`, verified; `None` on a clean miss.
    async fn fetch(
        self,
        key: Key,
        signing: Option<sign::SigningKey>,
        max_blob: u64,
    ) -> Result<Option<Vec<u8>>, Fault> {
        let Some(ar) = self.get_action_result(action_digest(&key)).await? else {
            return Ok(None);
        };
        let digest = entry_blob_digest(&ar)?;
        if digest.size_bytes as u64 > max_blob {
            return Err(Fault::Rejected(format!(
                "blob {} states {} bytes, over the {max_blob}-byte cap",
                digest.hash, digest.size_bytes
            )));
        }
        let Some(blob) = self.read_blob(digest.clone()).await? else {
            return Ok(None);
        };
        let entry = verify_blob(&key, &digest, &blob)?;
        match signing {
            None => Ok(Some(entry)),
            Some(k) => match k.verify(&blob) {
                Some(signed) => Ok(Some(signed[32..].to_vec())),
                None => Err(Fault::Rejected(format!(
                    "blob {} is not signed with this client's key",
                    digest.hash
                ))),
            },
        }
    }

    /// Upload the blob, then the action result naming it (readers never see an action
    /// result whose blob is missing).
    async fn store(
        self,
        key: Key,
        entry: Vec<u8>,
        signing: Option<sign::SigningKey>,
    ) -> Result<(), Fault> {
        let mut blob = make_blob(&key, &entry);
        if let Some(k) = signing {
            blob = k.sign(blob);
        }
        let digest = blob_digest(&blob);
        self.write_blob(digest.clone(), blob).await?;
        self.update_action_result(action_digest(&key), make_action_result(&digest))
            .await
    }
}

/// The URL forms [`Remote::connect`] takes.
pub const URL_FORMS: &str =
    "http[s]://HOST[:PORT][/PREFIX] (Bazel HTTP cache) or grpc[s]://HOST[:PORT][/INSTANCE] (REAPI)";

/// Why [`Remote::connect`] refused a URL or its options.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("remote cache runtime: {0}")]
    Runtime(std::io::Error),
    /// Not quoted: the URL holds a password or token.
    #[error(
        "remote cache URL: credentials in the URL are refused (they would be logged); give them as a header, e.g. --remote-header 'Authorization=Basic BASE64'"
    )]
    Credentials,
    #[error("remote cache `{url}`: a CA certificate applies to https:// and grpcs:// caches only")]
    CaWithoutTls { url: String },
    #[error("remote cache `{url}`: expected {URL_FORMS}")]
    Scheme { url: String },
    /// The backend's client could not be set up (address, CA certificate, headers).
    #[error("remote cache `{url}`: {reason}")]
    Setup { url: String, reason: String },
}

/// What the tier met since its last notice ([`Remote::take_notice`]).
#[derive(Debug, Default)]
struct Tally {
    /// Why the outage that began failed (none while an outage already told goes on).
    outage: Option<String>,
    rejected: u64,
    first_rejection: Option<String>,
}

/// A connection to a remote cache (`http[s]://host:port[/prefix]` or
/// `grpc[s]://host:port[/instance]`).
pub struct Remote {
    url: String,
    backend: Backend,
    runtime: Option<tokio::runtime::Runtime>,
    options: Options,
    strikes: AtomicU32,
    /// The current outage was reported (reset by a success).
    warned: AtomicBool,
    /// What the next notice tells.
    tally: Mutex<Tally>,
    /// Until when the tier is switched off.
    off_until: Mutex<Option<Instant>>,
    /// Raised when the tier is switched off: operations in flight end at once.
    off: tokio::sync::watch::Sender<bool>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote").field("url", &self.url).finish()
    }
}

impl Remote {
    /// Parse `url` and prepare the client with default [`Options`].
    pub fn connect(url: &str) -> Result<Remote, ConnectError> {
        Remote::connect_with(url, Options::default())
    }

    /// Parse `url` and prepare the client (connections are made on first use).
    pub fn connect_with(url: &str, options: Options) -> Result<Remote, ConnectError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("kiln-remote-cache")
            .enable_all()
            .build()
            .map_err(ConnectError::Runtime)?;
        let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
        if rest.split('/').next().is_some_and(|a| a.contains('@')) {
            return Err(ConnectError::Credentials);
        }
        let tls = matches!(scheme, "https" | "grpcs");
        if !tls && options.ca_pem.is_some() {
            return Err(ConnectError::CaWithoutTls { url: url.into() });
        }
        let security = match tls {
            true => tls::Security::Tls {
                ca_pem: options.ca_pem.as_deref(),
            },
            false => tls::Security::Plain,
        };
        let setup = |reason: String| ConnectError::Setup {
            url: url.into(),
            reason,
        };
        let backend = {
            let _guard = runtime.enter();
            match scheme {
                "grpc" | "grpcs" => Backend::Grpc(Arc::new(
                    grpc::GrpcCache::new(scheme, rest, security, &options).map_err(setup)?,
                )),
                "http" | "https" => Backend::Http(Arc::new(
                    http::HttpCache::new(url, security, &options).map_err(setup)?,
                )),
                _ => return Err(ConnectError::Scheme { url: url.into() }),
            }
        };
        Ok(Remote {
            url: url.to_string(),
            backend,
            runtime: Some(runtime),
            options,
            strikes: AtomicU32::new(0),
            warned: AtomicBool::new(false),
            tally: Mutex::default(),
            off_until: Mutex::new(None),
            off: tokio::sync::watch::channel(false).0,
        })
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Whether computed entries are uploaded (not a read-only client).
    pub fn uploads(&self) -> bool {
        self.options.upload
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Whether a time-out or repeated transport errors switched the tier off (for
    /// [`COOL_DOWN`]).
    pub fn is_disabled(&self) -> bool {
        let mut until = self.off_until.lock().unwrap_or_else(|e| e.into_inner());
        match *until {
            Some(t) if Instant::now() < t => true,
            Some(_) => {
                *until = None;
                self.strikes.store(0, Ordering::Relaxed);
                self.off.send_replace(false);
                false
            }
            None => false,
        }
    }

    /// The verified entry bytes cached for `key`; `Ok(None)` on a miss.
    pub fn get(&self, key: &Key) -> Result<Option<Vec<u8>>, Fault> {
        let o = &self.options;
        let fut = self
            .backend
            .clone()
            .fetch(*key, o.signing.clone(), o.max_blob);
        self.run(fut)
    }

    /// Upload the entry bytes for `key` (nothing for a read-only client).
    pub fn put(&self, key: &Key, entry: &[u8]) -> Result<(), Fault> {
        if !self.options.upload {
            return Ok(());
        }
        let signing = self.options.signing.clone();
        let fut = self.backend.clone().store(*key, entry.to_vec(), signing);
        self.run(fut)
    }

    /// Run `fut` on the tier's runtime within the deadline, ended early when the tier is
    /// switched off meanwhile; counts transport strikes.
    fn run<T: Send + 'static>(
        &self,
        fut: impl Future<Output = Result<T, Fault>> + Send + 'static,
    ) -> Result<T, Fault> {
        if self.is_disabled() {
            return Err(Fault::Off);
        }
        let Some(rt) = self.runtime.as_ref() else {
            return Err(Fault::Off);
        };
        let (tx, rx) = std::sync::mpsc::channel();
        let deadline = self.options.deadline;
        let mut off = self.off.subscribe();
        rt.spawn(async move {
            let r = tokio::select! {
                r = tokio::time::timeout(deadline, fut) => r.unwrap_or_else(|_| {
                    Err(Fault::TimedOut(format!("no result within {deadline:?}")))
                }),
                _ = off.wait_for(|off| *off) => Err(Fault::Off),
            };
            let _ = tx.send(r);
        });
        let result = rx
            .recv()
            .unwrap_or_else(|_| Err(Fault::Transport("remote task failed".into())));
        self.record(&result);
        result
    }

    /// An entry the server sent that failed verification (logged, tallied for the notice).
    pub fn reject(&self, why: &str) {
        tracing::debug!(url = %self.url, %why, "remote cache entry rejected; treated as a miss");
        let mut tally = self.tally();
        tally.rejected += 1;
        tally.first_rejection.get_or_insert_with(|| why.to_string());
    }

    fn tally(&self) -> std::sync::MutexGuard<'_, Tally> {
        self.tally.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The one line telling what went wrong since the last notice (an outage that began,
    /// entries rejected), or `None` when nothing did. A build takes it when it ends.
    pub fn take_notice(&self) -> Option<String> {
        let t = std::mem::take(&mut *self.tally());
        let rejected = (t.rejected > 0).then(|| {
            let what = if t.rejected == 1 { "entry" } else { "entries" };
            let first = t.first_rejection.as_deref().unwrap_or_default();
            format!(
                "{} {what} rejected and recomputed (first: {first})",
                t.rejected
            )
        });
        match (t.outage, rejected) {
            (None, None) => None,
            (Some(why), rejected) => Some(format!(
                "remote cache {} unavailable ({why}); building with the local cache only{}",
                self.url,
                rejected.map(|r| format!("; {r}")).unwrap_or_default()
            )),
            (None, Some(r)) => Some(format!("remote cache {}: {r}", self.url)),
        }
    }

    /// Count strikes and switch the tier off after too many; the first failure of an
    /// outage is the one the notice tells. A rejected entry is a server that answers, but
    /// not the end of an outage (only a success is).
    fn record<T>(&self, result: &Result<T, Fault>) {
        let (strikes, why) = match result {
            Err(Fault::Transport(why)) => (self.strikes.fetch_add(1, Ordering::Relaxed) + 1, why),
            Err(Fault::TimedOut(why)) => (MAX_STRIKES, why),
            Err(Fault::Off) => return,
            Err(Fault::Rejected(why)) => {
                self.strikes.store(0, Ordering::Relaxed);
                self.reject(why);
                return;
            }
            Ok(_) => {
                self.strikes.store(0, Ordering::Relaxed);
                self.warned.store(false, Ordering::Relaxed);
                return;
            }
        };
        tracing::debug!(url = %self.url, %why, "remote cache unavailable");
        if !self.warned.swap(true, Ordering::Relaxed) {
            self.tally().outage = Some(why.clone());
        }
        if strikes >= MAX_STRIKES {
            let mut until = self.off_until.lock().unwrap_or_else(|e| e.into_inner());
            if until.is_none() {
                *until = Some(Instant::now() + COOL_DOWN);
                self.off.send_replace(true);
                tracing::debug!(url = %self.url, strikes, cool_down = ?COOL_DOWN, "remote cache switched off");
            }
        }
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        // Never block (the store may be dropped inside another runtime).
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Key {
        Key::new("build", "kind", &[b"input"])
    }

    #[test]
    fn action_digest_is_the_digest_of_the_key_preimage() {
        let k = key();
        let d = action_digest(&k);
        let mut pre = Vec::new();
        for part in [&b"build"[..], b"kind", b"input"] {
            pre.extend_from_slice(&(part.len() as u64).to_le_bytes());
            pre.extend_from_slice(part);
        }
        assert_eq!(d, blob_digest(&pre));
    }

    #[test]
    fn a_good_blob_verifies_and_yields_the_entry() {
        let k = key();
        let blob = make_blob(&k, b"entry bytes");
        let ar = make_action_result(&blob_digest(&blob));
        let d = entry_blob_digest(&ar).unwrap();
        assert_eq!(verify_blob(&k, &d, &blob).unwrap(), b"entry bytes");
    }

    #[test]
    fn poisoned_blobs_are_rejected() {
        let k = key();
        let blob = make_blob(&k, b"entry bytes");
        let d = blob_digest(&blob);
        let mut bad = blob.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(matches!(verify_blob(&k, &d, &bad), Err(Fault::Rejected(_))));
        assert!(matches!(
            verify_blob(&k, &d, &blob[..blob.len() - 1]),
            Err(Fault::Rejected(_))
        ));
        // A consistent blob of another key (action cache pointing at the wrong entry).
        let other = Key::new("build", "kind", &[b"other"]);
        let blob2 = make_blob(&other, b"entry bytes");
        assert!(matches!(
            verify_blob(&k, &blob_digest(&blob2), &blob2),
            Err(Fault::Rejected(_))
        ));
    }

    #[test]
    fn malformed_action_results_are_rejected() {
        let good = make_action_result(&blob_digest(&make_blob(&key(), b"x")));
        let mut two = good.clone();
        two.output_files.push(two.output_files[0].clone());
        let mut renamed = good.clone();
        renamed.output_files[0].path = "other".into();
        let mut failed = good.clone();
        failed.exit_code = 1;
        let mut bad_hash = good.clone();
        bad_hash.output_files[0].digest.as_mut().unwrap().hash = "zz".into();
        for ar in [ActionResult::default(), two, renamed, failed, bad_hash] {
            assert!(matches!(entry_blob_digest(&ar), Err(Fault::Rejected(_))));
        }
    }

    #[test]
    fn urls_are_checked() {
        assert!(Remote::connect("ftp://x").is_err());
        assert!(Remote::connect("127.0.0.1:1").is_err());
        assert!(Remote::connect("http://127.0.0.1:1/prefix").is_ok());
        assert!(Remote::connect("grpc://127.0.0.1:1/instance").is_ok());
        let with_ca = || Options {
            ca_pem: Some(Arc::from(&b"-"[..])),
            ..Options::default()
        };
        let e = Remote::connect_with("http://127.0.0.1:1", with_ca()).unwrap_err();
        assert!(matches!(e, ConnectError::CaWithoutTls { .. }), "{e}");
        assert!(e.to_string().contains("https:// and grpcs://"), "{e}");
        assert!(Remote::connect_with("https://127.0.0.1:1", with_ca()).is_err());
    }

    #[test]
    fn urls_with_credentials_are_refused_unquoted() {
        for url in [
            "https://user:s3cr3t@cache.example:443/p",
            "grpcs://s3cr3t@cache.example",
        ] {
            let e = Remote::connect(url).unwrap_err().to_string();
            assert!(!e.contains("s3cr3t"), "{e}");
            assert!(e.contains("--remote-header"), "{e}");
        }
    }

    #[test]
    fn a_notice_is_one_line_per_build_telling_an_outage_once() {
        let r = Remote::connect("http://127.0.0.1:1/notice").unwrap();
        assert_eq!(r.take_notice(), None);
        for i in 0..1000 {
            r.reject(&format!("bad blob {i}"));
        }
        assert!(r.get(&key()).is_err());
        let n = r.take_notice().unwrap();
        assert!(
            n.starts_with("remote cache http://127.0.0.1:1/notice unavailable (")
                && n.ends_with("; 1000 entries rejected and recomputed (first: bad blob 0)"),
            "{n}"
        );
        assert_eq!(n.lines().count(), 1);
        // The outage goes on: not told again; a rejection alone is counted.
        let _ = r.get(&key());
        assert_eq!(r.take_notice(), None);
        r.reject("x");
        assert_eq!(
            r.take_notice().unwrap(),
            "remote cache http://127.0.0.1:1/notice: 1 entry rejected and recomputed (first: x)"
        );
    }

    #[test]
    fn an_unreachable_server_is_a_transport_fault_then_switched_off() {
        // Port 1 on loopback: connection refused at once.
        let r = Remote::connect("http://127.0.0.1:1").unwrap();
        for _ in 0..MAX_STRIKES {
            assert!(matches!(r.get(&key()), Err(Fault::Transport(_))));
        }
        assert!(r.is_disabled());
        assert!(matches!(r.put(&key(), b"e"), Err(Fault::Off)));
    }
}
