//! The webhook's operations as a Cluster API operator expects them (issue 63): failed TLS
//! handshakes in the log, and metrics served over HTTPS to the callers the API server
//! authenticates (TokenReview) and authorizes (SubjectAccessReview), here a small fake of
//! those two APIs on loopback (the tests' apiextensions-apiserver serves neither). The
//! CRD-watch signals and the metric names against the real API server are in
//! `tests/e2e/tests/webhook_operations.rs`.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::process::Webhook;
use common::{connector, write_cert};
use conversion_webhook::{Config, Limits, start};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::ServerName;

/// A client that does not trust the server's certificate ends the handshake: the server
/// logs it at WARN with the client's address and the reason, at most a line a second with
/// the count of those not logged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_the_client_rejects_is_logged_with_its_address() {
    let server = Webhook::start("handshake-log", &[]);
    let other = tempdir("handshake-log-other");
    let untrusted = connector(write_cert(&other));
    let mut ports = Vec::new();
    for _ in 0..10 {
        let tcp = TcpStream::connect(server.addr).await.unwrap();
        ports.push(tcp.local_addr().unwrap().port());
        let name = ServerName::try_from("localhost").unwrap();
        assert!(untrusted.connect(name, tcp).await.is_err());
    }
    // One more after the second is over: logged, with the count of those held back.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    ports.push(tcp.local_addr().unwrap().port());
    let name = ServerName::try_from("localhost").unwrap();
    assert!(untrusted.connect(name, tcp).await.is_err());
    let mut lines = Vec::new();
    for _ in 0..50 {
        lines = server.logged_handshake_errors();
        if lines.len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!((2..=3).contains(&lines.len()), "{lines:#?}");
    let first = &lines[0];
    assert_eq!(first["level"], "WARN", "{first}");
    let peer: SocketAddr = first["fields"]["peer"].as_str().unwrap().parse().unwrap();
    assert!(
        peer.ip().is_loopback() && ports.contains(&peer.port()),
        "{first}"
    );
    let error = first["fields"]["error"].as_str().unwrap();
    assert!(
        error.contains("alert"),
        "the client's alert is the reason: {first}"
    );
    let message = first["fields"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("TLS handshake error from {peer}: ")),
        "{first}"
    );
    let suppressed: u64 = lines
        .iter()
        .map(|l| l["fields"]["suppressed"].as_u64().unwrap())
        .sum();
    assert_eq!(suppressed + lines.len() as u64, 11, "{lines:#?}");
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("webhook-ops-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What the fake API server was asked: the SubjectAccessReviews' specs.
type Asked = Arc<Mutex<Vec<Value>>>;

/// A fake of the API server's TokenReview and SubjectAccessReview on loopback (plain HTTP):
/// the token `prometheus-token` is the ServiceAccount `monitoring/prometheus`, allowed `get`
/// on `/metrics`; `alice-token` is the user `alice`, allowed nothing; any other token is not
/// authenticated.
async fn fake_api_server() -> (SocketAddr, Asked) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let asked: Asked = Arc::default();
    let log = Arc::clone(&asked);
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                continue;
            };
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(
                    move |request: hyper::Request<hyper::body::Incoming>| {
                        let log = Arc::clone(&log);
                        async move {
                            let path = request.uri().path().to_owned();
                            let body = request.into_body().collect().await.unwrap().to_bytes();
                            let review: Value = serde_json::from_slice(&body).unwrap();
                            let answer = review_answer(&path, review, &log);
                            Ok::<_, std::convert::Infallible>(hyper::Response::new(Full::new(
                                Bytes::from(answer.to_string()),
                            )))
                        }
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(tcp), service)
                    .await;
            });
        }
    });
    (addr, asked)
}

fn review_answer(path: &str, mut review: Value, log: &Mutex<Vec<Value>>) -> Value {
    match path {
        "/apis/authentication.k8s.io/v1/tokenreviews" => {
            let user = match review["spec"]["token"].as_str() {
                Some("prometheus-token") => Some(json!({
                    "username": "system:serviceaccount:monitoring:prometheus",
                    "uid": "u-1",
                    "groups": ["system:serviceaccounts", "system:authenticated"]})),
                Some("alice-token") => {
                    Some(json!({"username": "alice", "groups": ["system:authenticated"]}))
                }
                _ => None,
            };
            review["status"] = match user {
                Some(user) => json!({"authenticated": true, "user": user}),
                None => json!({"authenticated": false}),
            };
        }
        "/apis/authorization.k8s.io/v1/subjectaccessreviews" => {
            log.lock().unwrap().push(review["spec"].clone());
            let spec = &review["spec"];
            let allowed = spec["user"] == "system:serviceaccount:monitoring:prometheus"
                && spec["nonResourceAttributes"] == json!({"path": "/metrics", "verb": "get"});
            review["status"] = json!({"allowed": allowed});
        }
        other => panic!("unexpected request to {other}"),
    }
    review
}

/// `GET /metrics` over TLS with `token` as bearer token: the status and the body.
async fn scrape(
    addr: SocketAddr,
    cert: &tokio_rustls::rustls::pki_types::CertificateDer<'static>,
    token: Option<&str>,
) -> (u16, String) {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let tls = connector(cert.clone()).connect(name, tcp).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .unwrap();
    tokio::spawn(conn);
    let mut request = hyper::Request::get("/metrics").header("host", "localhost");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let response = sender
        .send_request(request.body(Full::new(Bytes::new())).unwrap())
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// `--metrics-secure`: HTTPS with the serving certificate; no token or an unknown one is
/// 401, a user not allowed `get` on `/metrics` is 403, the scraper allowed it gets the
/// metrics; plain HTTP gets nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secure_metrics_need_a_token_the_api_server_authorizes() {
    let (api, asked) = fake_api_server().await;
    let client =
        kube::Client::try_from(kube::Config::new(format!("http://{api}").parse().unwrap()))
            .unwrap();
    let dir = tempdir("secure-metrics");
    let cert = write_cert(&dir);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let config = Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        cert: dir.join("tls.crt"),
        key: dir.join("tls.key"),
        crds: Vec::new(),
        live_crds: None,
        max_body_bytes: 1 << 20,
        request_timeout: Duration::from_secs(10),
        reload_interval: Duration::from_secs(3600),
        metrics_addr: Some("127.0.0.1:0".parse().unwrap()),
        metrics_auth: Some(client),
        limits: Limits::default(),
    };
    let running = start(config, async move {
        let _ = stopped.await;
    })
    .await
    .unwrap();
    let metrics = running.metrics_addr.unwrap();
    assert_eq!(scrape(metrics, &cert, None).await.0, 401);
    assert_eq!(scrape(metrics, &cert, Some("stolen")).await.0, 401);
    assert_eq!(scrape(metrics, &cert, Some("alice-token")).await.0, 403);
    let (status, text) = scrape(metrics, &cert, Some("prometheus-token")).await;
    assert_eq!(status, 200, "{text}");
    for name in [
        "# TYPE controller_runtime_webhook_requests_in_flight gauge",
        "# TYPE conversion_webhook_tls_handshake_errors_total counter",
        "# TYPE process_resident_memory_bytes gauge",
    ] {
        assert!(text.contains(name), "{name}\n{text}");
    }
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "{asked:#?}");
    assert_eq!(
        asked[1]["user"],
        "system:serviceaccount:monitoring:prometheus"
    );
    assert_eq!(asked[1]["uid"], "u-1");
    assert_eq!(
        asked[1]["groups"],
        json!(["system:serviceaccounts", "system:authenticated"])
    );
    // Plain HTTP on the secure port: no answer.
    let tcp = TcpStream::connect(metrics).await.unwrap();
    let plain = async {
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
            .await
            .ok()?;
        tokio::spawn(conn);
        let request = hyper::Request::get("/metrics")
            .header("host", "localhost")
            .body(Full::new(Bytes::new()))
            .ok()?;
        sender
            .send_request(request)
            .await
            .ok()
            .map(|r| r.status().as_u16())
    };
    let answered = tokio::time::timeout(Duration::from_secs(10), plain)
        .await
        .unwrap();
    assert_ne!(answered, Some(200));
    let _ = stop.send(());
    let _ = running.done.await;
}
