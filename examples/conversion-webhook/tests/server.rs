//! Starts the webhook on 127.0.0.1 with a certificate generated here, and talks to it over TLS.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::{connector, write_cert};

use conversion_webhook::{Config, Limits, Running, start};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::pki_types::ServerName;

struct Server {
    running: Running,
    stop: Option<oneshot::Sender<()>>,
    connector: TlsConnector,
    dir: PathBuf,
}

async fn server(name: &str, max_body_bytes: usize) -> Server {
    server_with_timeout(name, max_body_bytes, Duration::from_secs(10)).await
}

async fn server_with_timeout(
    name: &str,
    max_body_bytes: usize,
    request_timeout: Duration,
) -> Server {
    server_with(name, max_body_bytes, request_timeout, Limits::default()).await
}

async fn server_with(
    name: &str,
    max_body_bytes: usize,
    request_timeout: Duration,
    limits: Limits,
) -> Server {
    let dir =
        std::env::temp_dir().join(format!("conversion-webhook-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cert = write_cert(&dir);
    let crds = capi_test_support::partial_tree("corpus/providers/capi-provider-scaleway");
    let (tx, rx) = oneshot::channel();
    let config = Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        cert: dir.join("tls.crt"),
        key: dir.join("tls.key"),
        crds: vec![crds],
        live_crds: None,
        max_body_bytes,
        request_timeout,
        reload_interval: Duration::from_millis(100),
        metrics_addr: Some("127.0.0.1:0".parse().unwrap()),
        metrics_auth: None,
        limits,
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
    async fn tls(&self) -> tokio_rustls::client::TlsStream<TcpStream> {
        let tcp = TcpStream::connect(self.running.addr).await.unwrap();
        self.connector
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
            .unwrap()
    }

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

    /// Posts a ConversionReview of `objects` to `desired` to `/convert`.
    async fn convert(&self, desired: &str, objects: Vec<Value>) -> (u16, Vec<u8>) {
        self.request("POST", "/convert", review(desired, objects))
            .await
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
    let (status, body) = s.convert("cluster.x-k8s.io/v1beta1", vec![pool()]).await;
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
        .convert("cluster.x-k8s.io/v1beta2", vec![spoke.clone()])
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
    let (status, body) = s.convert("cluster.x-k8s.io/v1alpha4", vec![pool()]).await;
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
    let (status, _) = s.convert("cluster.x-k8s.io/v1beta1", objects).await;
    assert_eq!(status, 503);
    assert_eq!(s.request("GET", "/healthz", vec![]).await.0, 200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_shared_converter_serves_two_kinds() {
    let s = server("kinds", 1024 * 1024).await;
    let foo = json!({"apiVersion": "infrastructure.foo.example.com/v1alpha1", "kind": "FooMachinePool",
        "metadata": {"name": "p", "namespace": "default"}, "spec": {"providerIDList": ["foo://1"]},
        "status": {"ready": true, "replicas": 1}});
    let (status, body) = s
        .convert("infrastructure.foo.example.com/v1beta1", vec![foo])
        .await;
    assert_eq!(status, 200);
    let out: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(out["response"]["result"]["status"], "Success", "{out}");
    assert_eq!(
        out["response"]["convertedObjects"][0]["status"]["initialization"]["provisioned"],
        true
    );
    let (_, body) = s.convert("cluster.x-k8s.io/v1beta1", vec![pool()]).await;
    let out: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(out["response"]["result"]["status"], "Success", "{out}");
    s.stop().await;
}

/// Reads until the server closes the connection; how long it took.
async fn closed_within<S: tokio::io::AsyncRead + Unpin>(
    stream: &mut S,
    limit: Duration,
) -> Option<Duration> {
    use tokio::io::AsyncReadExt;
    let started = std::time::Instant::now();
    let mut buf = [0u8; 4096];
    let read_all = async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(limit, read_all)
        .await
        .ok()
        .map(|()| started.elapsed())
}

/// Slow clients (headers trickled, bodies trickled, idle connections) are closed after their
/// timeouts, and a normal client is served meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_idle_clients_are_closed_and_others_served() {
    use tokio::io::AsyncWriteExt;
    let limits = Limits {
        handshake_timeout: Duration::from_millis(500),
        idle_timeout: Duration::from_millis(800),
        header_read_timeout: Duration::from_millis(800),
        body_read_timeout: Duration::from_millis(1500),
        body_budget_bytes: 64 * 1024,
        max_concurrent_conversions: 2,
        ..Limits::default()
    };
    let s = server_with("slow", 3 * 1024 * 1024, Duration::from_secs(10), limits).await;
    let mut slow = Vec::new();
    for i in 0..20 {
        let mut tls = s.tls().await;
        match i % 3 {
            // Slowloris: a header line, then nothing.
            0 => tls.write_all(b"POST /convert HTTP/1.1\r\nhost: localhost\r\n").await.unwrap(),
            // A 3 MB body announced, a few bytes sent.
            1 => tls
                .write_all(b"POST /convert HTTP/1.1\r\nhost: localhost\r\ncontent-length: 3000000\r\n\r\n{\"apiVersion\"")
                .await
                .unwrap(),
            // Connected, TLS done, nothing sent.
            _ => {}
        }
        tls.flush().await.unwrap();
        slow.push(tls);
    }
    // A raw TCP connection that never starts TLS.
    let mut raw = TcpStream::connect(s.running.addr).await.unwrap();
    // A normal client is served while the slow ones hang.
    let started = std::time::Instant::now();
    let (status, _) = s.convert("cluster.x-k8s.io/v1beta1", vec![pool()]).await;
    assert_eq!(status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    for (i, tls) in slow.iter_mut().enumerate() {
        let closed = closed_within(tls, Duration::from_secs(5)).await;
        assert!(closed.is_some(), "slow connection {i} still open");
    }
    assert!(
        closed_within(&mut raw, Duration::from_secs(5))
            .await
            .is_some(),
        "handshake never timed out"
    );
    assert_eq!(s.request("GET", "/healthz", vec![]).await.0, 200);
    s.stop().await;
}

/// A trickled body gets 408 after the body timeout, and the byte budget is given back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trickled_body_gets_408() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let limits = Limits {
        body_read_timeout: Duration::from_millis(500),
        body_budget_bytes: 16 * 1024,
        ..Limits::default()
    };
    let s = server_with("trickle", 3 * 1024 * 1024, Duration::from_secs(10), limits).await;
    let mut tls = s.tls().await;
    tls.write_all(b"POST /convert HTTP/1.1\r\nhost: localhost\r\ncontent-length: 100000\r\n\r\n")
        .await
        .unwrap();
    // 32 KB: more than the whole budget, so this connection also waits for budget.
    tls.write_all(&vec![b' '; 32 * 1024]).await.unwrap();
    tls.flush().await.unwrap();
    let mut response = vec![0u8; 256];
    let n = tokio::time::timeout(Duration::from_secs(5), tls.read(&mut response))
        .await
        .unwrap()
        .unwrap();
    let head = String::from_utf8_lossy(&response[..n]).to_string();
    assert!(head.starts_with("HTTP/1.1 408"), "{head}");
    // The budget is free again: a normal review goes through.
    let (status, _) = s.convert("cluster.x-k8s.io/v1beta1", vec![pool()]).await;
    assert_eq!(status, 200);
    s.stop().await;
}

/// `GET /metrics` on the metrics port (plain HTTP).
async fn metrics(addr: std::net::SocketAddr) -> String {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
        .await
        .unwrap();
    tokio::spawn(conn);
    let req = hyper::Request::get("/metrics")
        .header("host", "localhost")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    assert_eq!(resp.status(), 200);
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8(body.to_vec()).unwrap()
}

/// Issue 52: each failed conversion is counted by its reason (and logged with it and the
/// object's identity: the message names the object), next to requests by status, a latency
/// histogram and the requests in flight (controller-runtime's names, issue 63), on a port of
/// its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conversions_are_counted_by_status_and_failure_reason() {
    let s = server("metrics", 1 << 20).await;
    let metrics_addr = s.running.metrics_addr.unwrap();
    // Converted.
    let (status, _) = s.convert("cluster.x-k8s.io/v1beta1", vec![pool()]).await;
    assert_eq!(status, 200);
    // A kind whose CRD is not known: a Failure result naming the object.
    let mut unknown = pool();
    unknown["spec"]["template"]["spec"]["infrastructureRef"]["kind"] = json!("NoSuchMachinePool");
    let (status, body) = s.convert("cluster.x-k8s.io/v1beta1", vec![unknown]).await;
    assert_eq!(status, 200);
    let body = String::from_utf8(body).unwrap();
    assert!(
        body.contains(r#""reason":"ConversionFailed""#) && body.contains("MachinePool default/mp"),
        "{body}"
    );
    // Not a review.
    let (status, _) = s.request("POST", "/convert", b"{".to_vec()).await;
    assert_eq!(status, 400);
    let text = metrics(metrics_addr).await;
    for line in [
        "controller_runtime_webhook_requests_total{webhook=\"/convert\",code=\"200\"} 2",
        "controller_runtime_webhook_requests_total{webhook=\"/convert\",code=\"400\"} 1",
        "conversion_webhook_conversion_failures_total{reason=\"BadRequest\"} 1",
        "conversion_webhook_conversion_failures_total{reason=\"ConversionFailed\"} 1",
        "controller_runtime_webhook_latency_seconds_count{webhook=\"/convert\"} 3",
        "controller_runtime_webhook_requests_in_flight{webhook=\"/convert\"} 0",
    ] {
        assert!(text.contains(&format!("{line}\n")), "{line}\n{text}");
    }
    s.stop().await;
}
