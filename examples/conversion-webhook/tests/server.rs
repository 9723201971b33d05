//! Starts the webhook on 127.0.0.1 with a certificate generated here, and talks to it over TLS.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use conversion_webhook::{Config, Running, start};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore};

struct Server {
    running: Running,
    stop: Option<oneshot::Sender<()>>,
    connector: TlsConnector,
    dir: PathBuf,
}

fn write_cert(dir: &std::path::Path) -> CertificateDer<'static> {
    let cert =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .unwrap();
    std::fs::write(dir.join("tls.crt"), cert.cert.pem()).unwrap();
    std::fs::write(dir.join("tls.key"), cert.signing_key.serialize_pem()).unwrap();
    cert.cert.der().clone()
}

fn connector(cert: CertificateDer<'static>) -> TlsConnector {
    let mut roots = RootCertStore::empty();
    roots.add(cert).unwrap();
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    TlsConnector::from(Arc::new(config))
}

async fn server(name: &str, max_body_bytes: usize) -> Server {
    server_with_timeout(name, max_body_bytes, Duration::from_secs(10)).await
}

async fn server_with_timeout(
    name: &str,
    max_body_bytes: usize,
    request_timeout: Duration,
) -> Server {
    let dir =
        std::env::temp_dir().join(format!("conversion-webhook-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cert = write_cert(&dir);
    let crds = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/corpus/providers/capi-provider-scaleway");
    let (tx, rx) = oneshot::channel();
    let config = Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        cert: dir.join("tls.crt"),
        key: dir.join("tls.key"),
        crds: vec![crds],
        max_body_bytes,
        request_timeout,
        reload_interval: Duration::from_millis(100),
    };
    let running = start(config, async move {
        let _ = rx.await;
    })
    .await
    .unwrap();
    Server {
        running,
        stop: Some(tx),
        connector: connector(cert),
        dir,
    }
}

impl Server {
    async fn request(&self, method: &str, path: &str, body: Vec<u8>) -> (u16, Vec<u8>) {
        let tcp = TcpStream::connect(self.running.addr).await.unwrap();
        let tls = self
            .connector
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
            .unwrap();
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
            .await
            .unwrap();
        tokio::spawn(conn);
        let req = hyper::Request::builder()
            .method(method)
            .uri(path)
            .header("host", "localhost")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body)))
            .unwrap();
        let resp = sender.send_request(req).await.unwrap();
        let status = resp.status().as_u16();
        let bytes = resp
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec();
        (status, bytes)
    }

    async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        tokio::time::timeout(Duration::from_secs(15), self.running.done)
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn review(desired: &str, objects: Vec<Value>) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "6d2f6a1e-0000-4000-8000-000000000001", "desiredAPIVersion": desired, "objects": objects}
    }))
    .unwrap()
}

fn pool() -> Value {
    json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
        "metadata": {"name": "mp", "namespace": "default"},
        "spec": {"clusterName": "c", "replicas": 2, "template": {"spec": {"clusterName": "c", "minReadySeconds": 7,
            "bootstrap": {"dataSecretName": "s"},
            "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "ScalewayManagedMachinePool", "name": "p"}}}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_conversion_reviews_over_tls() {
    let s = server("main", 1024 * 1024).await;
    assert_eq!(
        s.request("GET", "/healthz", vec![]).await,
        (200, b"ok".to_vec())
    );
    assert_eq!(s.request("GET", "/readyz", vec![]).await.0, 200);

    // Down to v1beta1: the reference version comes from the Scaleway CRD's contract label.
    let (status, body) = s
        .request(
            "POST",
            "/convert",
            review("cluster.x-k8s.io/v1beta1", vec![pool()]),
        )
        .await;
    assert_eq!(status, 200);
    let out: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        out["response"]["uid"],
        "6d2f6a1e-0000-4000-8000-000000000001"
    );
    assert_eq!(out["response"]["result"]["status"], "Success");
    let spoke = &out["response"]["convertedObjects"][0];
    assert_eq!(spoke["spec"]["minReadySeconds"], 7);
    assert_eq!(
        spoke["spec"]["template"]["spec"]["infrastructureRef"]["apiVersion"],
        "infrastructure.cluster.x-k8s.io/v1alpha2"
    );

    // And back up, lossless.
    let (_, body) = s
        .request(
            "POST",
            "/convert",
            review("cluster.x-k8s.io/v1beta2", vec![spoke.clone()]),
        )
        .await;
    let out: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(out["response"]["convertedObjects"][0], pool());

    // Malformed JSON: 400 with a Failure review, and the server keeps serving.
    let (status, body) = s.request("POST", "/convert", b"{not json".to_vec()).await;
    assert_eq!(status, 400);
    let out: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(out["response"]["result"]["status"], "Failure");

    // Wrong apiVersion/kind of the review.
    let wrong = serde_json::to_vec(&json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "x", "desiredAPIVersion": "v", "objects": []}})).unwrap();
    let (status, body) = s.request("POST", "/convert", wrong).await;
    assert_eq!(status, 400);
    assert!(String::from_utf8_lossy(&body).contains("unsupported review"));

    // Unknown desired version: a Failure review naming it (HTTP 200, as the API server expects).
    let (status, body) = s
        .request(
            "POST",
            "/convert",
            review("cluster.x-k8s.io/v1alpha4", vec![pool()]),
        )
        .await;
    assert_eq!(status, 200);
    let out: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(out["response"]["result"]["status"], "Failure");
    assert!(
        out["response"]["result"]["message"]
            .as_str()
            .unwrap()
            .contains("cluster.x-k8s.io/v1alpha4")
    );

    // Unknown route.
    assert_eq!(s.request("GET", "/nope", vec![]).await.0, 404);
    assert_eq!(s.request("GET", "/healthz", vec![]).await.0, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_body_is_413() {
    let s = server("limit", 4096).await;
    let big = review(
        "cluster.x-k8s.io/v1beta1",
        vec![json!({"padding": "x".repeat(10_000)})],
    );
    assert_eq!(s.request("POST", "/convert", big).await.0, 413);
    assert_eq!(s.request("GET", "/healthz", vec![]).await.0, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn certificate_is_reloaded_when_the_files_change() {
    let mut s = server("reload", 1024 * 1024).await;
    let new_cert = write_cert(&s.dir);
    // Clients trusting only the new certificate succeed once the server has reloaded it.
    s.connector = connector(new_cert);
    let mut ok = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let tcp = TcpStream::connect(s.running.addr).await.unwrap();
        if s.connector
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
            .is_ok()
        {
            ok = true;
            break;
        }
    }
    assert!(ok, "the new certificate was never served");
    assert_eq!(s.request("GET", "/healthz", vec![]).await.0, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_conversion_times_out_with_503() {
    let s = server_with_timeout("timeout", 64 * 1024 * 1024, Duration::from_millis(1)).await;
    let objects: Vec<Value> = (0..5000).map(|_| pool()).collect();
    let (status, _) = s
        .request(
            "POST",
            "/convert",
            review("cluster.x-k8s.io/v1beta1", objects),
        )
        .await;
    assert_eq!(status, 503);
    assert_eq!(s.request("GET", "/healthz", vec![]).await.0, 200);
    s.stop().await;
}
