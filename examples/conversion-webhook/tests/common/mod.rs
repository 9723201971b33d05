//! A certificate made at test time and a TLS client trusting it, for the webhook's tests.
#![allow(dead_code, clippy::unwrap_used)]

pub mod process;

use std::sync::Arc;

use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::CertificateDer;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};

/// Writes `tls.crt` and `tls.key` for `localhost` into `dir`; the certificate.
pub fn write_cert(dir: &std::path::Path) -> CertificateDer<'static> {
    let cert =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .unwrap();
    std::fs::write(dir.join("tls.crt"), cert.cert.pem()).unwrap();
    std::fs::write(dir.join("tls.key"), cert.signing_key.serialize_pem()).unwrap();
    cert.cert.der().clone()
}

/// A TLS client trusting `cert`, offering the ALPN protocols given (none: HTTP/1.1).
pub fn connector_with_alpn(cert: CertificateDer<'static>, alpn: &[&[u8]]) -> TlsConnector {
    let mut roots = RootCertStore::empty();
    roots.add(cert).unwrap();
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    TlsConnector::from(Arc::new(config))
}

/// A TLS client trusting `cert` (HTTP/1.1).
pub fn connector(cert: CertificateDer<'static>) -> TlsConnector {
    connector_with_alpn(cert, &[])
}

/// A ConversionReview of `objects` (JSON texts) to v1beta1.
pub fn review_to_v1beta1(objects: &[String]) -> Vec<u8> {
    format!(
        r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{{"uid":"u","desiredAPIVersion":"cluster.x-k8s.io/v1beta1","objects":[{}]}}}}"#,
        objects.join(",")
    )
    .into_bytes()
}

/// A v1beta2 MachinePool whose `spec.clusterName` is `n` characters of `<` (13 bytes each in
/// the response to v1beta1: `\u003c` in the object and `\\u003c` in its conversion-data
/// annotation).
pub fn pool_with_lt(n: usize) -> String {
    format!(
        r#"{{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"MachinePool","metadata":{{"name":"mp"}},"spec":{{"clusterName":"{}"}}}}"#,
        "<".repeat(n)
    )
}

/// Holds a spawned client connection until the server closes it or `stop` is set, then
/// aborts it.
pub async fn hold_until_closed<T>(
    mut conn: tokio::task::JoinHandle<T>,
    stop: &std::sync::atomic::AtomicBool,
) {
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        if tokio::time::timeout(std::time::Duration::from_millis(100), &mut conn)
            .await
            .is_ok()
        {
            break;
        }
    }
    conn.abort();
}
