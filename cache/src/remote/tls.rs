//! TLS for the remote tier (`https://`, `grpcs://`): rustls with the *ring* provider,
//! trusting either the system's root certificates (`rustls-native-certs`: the OS store, or
//! `SSL_CERT_FILE` / `SSL_CERT_DIR`) or, instead of them, the certificates of one PEM file
//! ([`super::Options::ca_pem`], `--remote-ca`). One connector serves both protocols: HTTP/1.1
//! for the Bazel HTTP cache, HTTP/2 (ALPN `h2`) for gRPC.

use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// A TCP connector that speaks TLS for `https` URIs.
pub type Connector = HttpsConnector<HttpConnector>;

/// How a connection is secured.
#[derive(Clone, Copy, Debug)]
pub enum Security<'a> {
    /// Plain TCP (`http://`, `grpc://`).
    Plain,
    /// TLS, trusting the system's roots, or only these PEM certificates.
    Tls { ca_pem: Option<&'a [u8]> },
}

/// The certificates a TLS connection trusts: those in `ca_pem`, else the system's.
pub fn roots(ca_pem: Option<&[u8]>) -> Result<RootCertStore, String> {
    match ca_pem {
        Some(pem) => pem_roots(pem),
        None => system_roots().clone(),
    }
}

fn pem_roots(pem: &[u8]) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(pem) {
        let cert = cert.map_err(|e| format!("unreadable PEM: {e}"))?;
        roots
            .add(cert)
            .map_err(|e| format!("unusable CA certificate: {e}"))?;
    }
    if roots.is_empty() {
        return Err("no certificate in the PEM file".into());
    }
    Ok(roots)
}

/// The system's roots, loaded once per process.
fn system_roots() -> &'static Result<RootCertStore, String> {
    static ROOTS: OnceLock<Result<RootCertStore, String>> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        let mut roots = RootCertStore::empty();
        roots.add_parsable_certificates(found.certs);
        if roots.is_empty() {
            let why = found.errors.first().map(|e| format!(" ({e})")).unwrap_or_default();
            return Err(format!(
                "no system root certificates found{why}: install the CA certificates, set SSL_CERT_FILE, or give the cache's CA with --remote-ca"
            ));
        }
        Ok(roots)
    })
}

/// A connector for one protocol (`http2`: gRPC, else HTTP/1.1); with [`Security::Plain`] it
/// never speaks TLS and loads no certificates.
pub fn connector(
    security: Security<'_>,
    http2: bool,
    connect_timeout: Duration,
) -> Result<Connector, String> {
    let mut tcp = HttpConnector::new();
    tcp.enforce_http(false);
    tcp.set_nodelay(true);
    tcp.set_connect_timeout(Some(connect_timeout));
    let roots = match security {
        Security::Plain => RootCertStore::empty(),
        Security::Tls { ca_pem } => roots(ca_pem)?,
    };
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS configuration: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
    let builder = HttpsConnectorBuilder::new().with_tls_config(config);
    let builder = match security {
        Security::Plain => builder.https_or_http(),
        Security::Tls { .. } => builder.https_only(),
    };
    Ok(match http2 {
        true => builder.enable_http2().wrap_connector(tcp),
        false => builder.enable_http1().wrap_connector(tcp),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pem_without_certificates_is_refused() {
        assert!(pem_roots(b"").is_err());
        assert!(pem_roots(b"not a certificate\n").is_err());
        let garbage = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        assert!(pem_roots(garbage).is_err());
    }
}
