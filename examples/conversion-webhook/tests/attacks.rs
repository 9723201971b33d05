//! Attacks run side by side with a well-behaved client (issue 50, hostile round four): the
//! webhook binary as its own process on loopback, an attack class against it, and a client
//! sending a one-object ConversionReview on a new TLS connection every 100 ms, as the API
//! server would when it reads a MachinePool at its other version. The client must get its
//! converted object (99% or more, p99 under 1 s) while the attack runs, and the server's peak
//! RSS stays under the Deployment's 128 Mi. Every loop is bounded in count and time; the
//! attackers stop and the server is killed at the end of each test.
//!
//! The attacks run one at a time (a lock): each needs the two cores to itself to be judged.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::process::{MEMORY_LIMIT_KB, Webhook};
use common::{hold_until_closed, pool_with_lt, review_to_v1beta1};
use http_body_util::Full;
use hyper::body::Bytes;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One attack at a time.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A v1beta2 MachinePool as the API server stores it, asked for at v1beta1: a 517-byte review
/// like the attack's.
fn review() -> Vec<u8> {
    br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"8f3c","desiredAPIVersion":"cluster.x-k8s.io/v1beta1","objects":[{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"MachinePool","metadata":{"name":"workers","namespace":"default","uid":"2b0f","resourceVersion":"1"},"spec":{"clusterName":"c1","replicas":3,"template":{"spec":{"clusterName":"c1","version":"v1.33.0","bootstrap":{"dataSecretName":"bootstrap"},"infrastructureRef":{"apiGroup":"infrastructure.cluster.x-k8s.io","kind":"DockerMachinePool","name":"workers"}}}}}]}}"#.to_vec()
}

/// The webhook with CAPD's CRDs (v1.11.0, from `tests/fixtures/providers`), which resolve
/// the review's DockerMachinePool reference, and `args`.
fn webhook(name: &str, args: &[&str]) -> Webhook {
    let crds = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/providers/capd-v1.11.0/crds.yaml"
    );
    let mut all = vec!["--crds", crds];
    all.extend_from_slice(args);
    Webhook::start(name, &all)
}

/// What the well-behaved client saw: each request's latency, `None` when it failed.
struct Served {
    latencies: Vec<Option<Duration>>,
}

impl Served {
    fn success(&self) -> f64 {
        let ok = self.latencies.iter().filter(|l| l.is_some()).count();
        ok as f64 / self.latencies.len().max(1) as f64
    }

    /// The 99th percentile latency, a failed request counting as infinitely slow.
    fn p99(&self) -> Duration {
        let mut all: Vec<Duration> = self
            .latencies
            .iter()
            .map(|l| l.unwrap_or(Duration::MAX))
            .collect();
        all.sort();
        let i = (all.len() * 99).div_ceil(100).saturating_sub(1);
        all.get(i).copied().unwrap_or(Duration::MAX)
    }

    /// Success at least 99% and p99 under 1 s.
    fn assert_served(&self, attack: &str) {
        let (success, p99) = (self.success(), self.p99());
        eprintln!(
            "{attack}: well-behaved client {} requests, success {:.1}%, p99 {p99:?}",
            self.latencies.len(),
            success * 100.0
        );
        assert!(self.latencies.len() >= 90, "{attack}: too few requests");
        assert!(success >= 0.99, "{attack}: success {:.1}%", success * 100.0);
        assert!(p99 < Duration::from_secs(1), "{attack}: p99 {p99:?}");
    }
}

/// One review on a new connection: its latency when the object came back converted.
async fn convert_once(w: &Webhook) -> Option<Duration> {
    let started = Instant::now();
    let answer = tokio::time::timeout(Duration::from_secs(5), w.try_post_review(review())).await;
    match answer {
        Ok(Ok((200, body))) => {
            let text = String::from_utf8_lossy(&body);
            let converted = text.contains(r#""status":"Success""#)
                && text.contains(r#""apiVersion":"cluster.x-k8s.io/v1beta1""#);
            if !converted {
                eprintln!("not converted: {text}");
            }
            converted.then(|| started.elapsed())
        }
        other => {
            eprintln!("not served after {:?}: {other:?}", started.elapsed());
            None
        }
    }
}

/// The well-behaved client: a review every 100 ms for `duration`, each on its own
/// connection whether or not the ones before were answered (the API server's requests do
/// not wait for each other).
async fn well_behaved(w: &Arc<Webhook>, duration: Duration) -> Served {
    let until = Instant::now() + duration;
    let mut requests = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    while Instant::now() < until {
        tick.tick().await;
        let w = Arc::clone(w);
        requests.push(tokio::spawn(async move { convert_once(&w).await }));
    }
    let mut latencies = Vec::new();
    for request in requests {
        latencies.push(request.await.ok().flatten());
    }
    Served { latencies }
}

/// Attackers that stop when dropped.
struct Attack {
    stop: Arc<AtomicBool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    /// Connections the attackers made.
    connections: Arc<AtomicUsize>,
}

impl Attack {
    fn new() -> Self {
        Self {
            stop: Arc::new(AtomicBool::new(false)),
            tasks: Vec::new(),
            connections: Arc::new(AtomicUsize::new(0)),
        }
    }

    fn spawn<F, Fut>(&mut self, attacker: F)
    where
        F: FnOnce(Arc<AtomicBool>, Arc<AtomicUsize>) -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let task = attacker(Arc::clone(&self.stop), Arc::clone(&self.connections));
        self.tasks.push(tokio::spawn(task));
    }
}

impl Drop for Attack {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Runs `attack` for 2 s, then the well-behaved client for `duration` while it goes on;
/// checks the client was served and the server's memory.
async fn judged(w: &Arc<Webhook>, name: &str, attack: &Attack, duration: Duration) {
    tokio::time::sleep(Duration::from_secs(2)).await;
    let cpu = w.cpu_ticks();
    let served = well_behaved(w, duration).await;
    eprintln!(
        "{name}: server CPU {} ticks over {duration:?}",
        w.cpu_ticks() - cpu
    );
    let peak = w.peak_rss_kb();
    eprintln!(
        "{name}: {} attacking connections; server peak RSS {peak} kB",
        attack.connections.load(Ordering::Relaxed)
    );
    served.assert_served(name);
    assert!(peak < MEMORY_LIMIT_KB, "{name}: peak RSS {peak} kB");
}

/// HTTP/2 zero-window stall: 8 connections, each opening 8 streams with a review, advertise
/// a stream flow-control window of 0 (no response can be written, RFC 9113 §5.2) and send a
/// PING every second, reconnecting when closed. Before: about 33 KB stopped every conversion
/// (each stalled response held its conversion's whole memory estimate). Now a response holds
/// its own size while unsent, small reviews have their own lane, and a response unsent for
/// the write timeout (here 3 s) has its connection closed. About 15 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http2_zero_window_streams_do_not_stop_conversion() {
    let _one = ONE_AT_A_TIME.lock().await;
    let w = Arc::new(webhook("zero-window", &["--write-timeout-seconds", "3"]));
    let mut attack = Attack::new();
    let stalled = Arc::new(AtomicUsize::new(0));
    for _ in 0..8 {
        let w = Arc::clone(&w);
        let stalled = Arc::clone(&stalled);
        attack.spawn(move |stop, connections| async move {
            while !stop.load(Ordering::Relaxed) {
                let Ok(tls) = w.tls(&[b"h2"]).await else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                connections.fetch_add(1, Ordering::Relaxed);
                let Ok((sender, conn)) =
                    hyper::client::conn::http2::Builder::new(TokioExecutor::new())
                        .timer(TokioTimer::new())
                        .initial_stream_window_size(0)
                        .keep_alive_interval(Duration::from_secs(1))
                        .keep_alive_while_idle(true)
                        .handshake::<_, Full<Bytes>>(TokioIo::new(tls))
                        .await
                else {
                    continue;
                };
                let conn = tokio::spawn(conn);
                let mut held = Vec::new();
                for _ in 0..8 {
                    let mut sender = sender.clone();
                    let stalled = Arc::clone(&stalled);
                    held.push(tokio::spawn(async move {
                        let req = hyper::Request::post("https://localhost/convert")
                            .header("content-type", "application/json")
                            .body(Full::new(Bytes::from(review())))
                            .unwrap();
                        // The head arrives; the body never can: it is held unread.
                        if let Ok(resp) = sender.send_request(req).await {
                            stalled.fetch_add(1, Ordering::Relaxed);
                            tokio::time::sleep(Duration::from_secs(60)).await;
                            drop(resp);
                        }
                    }));
                }
                hold_until_closed(conn, &stop).await;
                for h in held {
                    h.abort();
                }
            }
        });
    }
    judged(&w, "HTTP/2 zero window", &attack, Duration::from_secs(12)).await;
    let stalled = stalled.load(Ordering::Relaxed);
    let connections = attack.connections.load(Ordering::Relaxed);
    // The attack really stalled responses, and its connections were closed for it (3 s write
    // timeout over 14 s: every connection at least twice).
    assert!(stalled >= 64, "only {stalled} stalled responses");
    assert!(
        connections >= 16,
        "only {connections} attacking connections"
    );
}

/// A ClientHello, as a real client sends it first.
fn client_hello(w: &Webhook) -> Vec<u8> {
    let mut roots = tokio_rustls::rustls::RootCertStore::empty();
    roots.add(w.cert.clone()).unwrap();
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let config = tokio_rustls::rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut client = tokio_rustls::rustls::ClientConnection::new(
        Arc::new(config),
        "localhost".try_into().unwrap(),
    )
    .unwrap();
    let mut hello = Vec::new();
    client.write_tls(&mut hello).unwrap();
    hello
}

/// TLS handshake slowloris: 600 TCP clients send a ClientHello at 1 byte a second and
/// reconnect when closed. Before: the well-behaved client got 63-69% of its answers
/// (handshakes took connection slots). Now handshakes have a budget of their own (1024 by
/// default; 256 here, so the attack overfills it) and a new connection takes the slot of
/// the handshake sending the fewest bytes a second. About 14 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_slowloris_does_not_keep_new_connections_out() {
    let _one = ONE_AT_A_TIME.lock().await;
    let w = Arc::new(webhook("slowloris", &["--max-handshakes", "512"]));
    let hello = Arc::new(client_hello(&w));
    let mut attack = Attack::new();
    for _ in 0..600 {
        let addr = w.addr;
        let hello = Arc::clone(&hello);
        attack.spawn(move |stop, connections| async move {
            while !stop.load(Ordering::Relaxed) {
                let Ok(mut tcp) = TcpStream::connect(addr).await else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                connections.fetch_add(1, Ordering::Relaxed);
                for byte in hello.iter() {
                    if stop.load(Ordering::Relaxed) || tcp.write_all(&[*byte]).await.is_err() {
                        break;
                    }
                    // A byte a second, or the end when the server closed the connection.
                    let mut buf = [0u8; 64];
                    let read = tokio::time::timeout(Duration::from_secs(1), tcp.read(&mut buf));
                    if read.await.is_ok() {
                        break;
                    }
                }
            }
        });
    }
    judged(&w, "TLS slowloris", &attack, Duration::from_secs(10)).await;
    // Every attacker got in, and the overflow was closed for newcomers.
    let connections = attack.connections.load(Ordering::Relaxed);
    assert!(
        connections > 600,
        "only {connections} attacking connections"
    );
}

/// Slow readers of large responses: 8 HTTP/1.1 clients post a review whose response is
/// about 8 MB (more than loopback's socket buffers hold) and never read it, again on a new
/// connection every 5 s. Their responses fill the large
/// conversions' memory; the well-behaved client's review has its own lane, and while a
/// conversion waits for memory, connections that do not read their response are closed.
/// About 15 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_readers_of_large_responses_do_not_stop_conversion() {
    let _one = ONE_AT_A_TIME.lock().await;
    let w = Arc::new(webhook("slow-reader", &[]));
    let body = review_to_v1beta1(&[pool_with_lt(600_000)]);
    let mut request = format!(
        "POST /convert HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);
    let request = Arc::new(request);
    let mut attack = Attack::new();
    for _ in 0..8 {
        let w = Arc::clone(&w);
        let request = Arc::clone(&request);
        attack.spawn(move |stop, connections| async move {
            while !stop.load(Ordering::Relaxed) {
                let Ok(mut tls) = w.tls(&[]).await else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                connections.fetch_add(1, Ordering::Relaxed);
                if tls.write_all(&request).await.is_err() || tls.flush().await.is_err() {
                    continue;
                }
                // Never read; a new connection (and another large response) after 5 s.
                tokio::time::sleep(Duration::from_secs(5)).await;
                drop(tls);
                if stop.load(Ordering::Relaxed) {
                    break;
                }
            }
        });
    }
    judged(&w, "slow readers", &attack, Duration::from_secs(10)).await;
}

/// The round-three floods, reconnecting: 150 HTTP/1.1 clients announce a 3 MB body and
/// trickle it, 150 HTTP/2 clients post a 3 MB body as fast as the flow-control windows let
/// them, more than the 128-connection cap together, each on a new connection 100 ms after
/// the server closed its last (round three's clients did not come back). A newcomer takes
/// the slot of the connection moving the fewest bytes a second, and small bodies have their
/// own share of the body budget. About 14 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_body_floods_do_not_stop_conversion() {
    let _one = ONE_AT_A_TIME.lock().await;
    let w = Arc::new(webhook("floods", &[]));
    let mut attack = Attack::new();
    let body = Bytes::from(vec![b' '; 3_000_000]);
    for i in 0..300 {
        let w = Arc::clone(&w);
        let http2 = i % 2 == 1;
        let body = body.clone();
        attack.spawn(move |stop, connections| async move {
            let mut first = true;
            while !stop.load(Ordering::Relaxed) {
                // Again 100 ms after the server closed the last connection.
                if !std::mem::take(&mut first) {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                let alpn: &[&[u8]] = if http2 { &[b"h2"] } else { &[] };
                let Ok(mut tls) = w.tls(alpn).await else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                connections.fetch_add(1, Ordering::Relaxed);
                if http2 {
                    let Ok((mut sender, conn)) =
                        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tls))
                            .await
                    else {
                        continue;
                    };
                    let conn = tokio::spawn(conn);
                    let req = hyper::Request::post("https://localhost/convert")
                        .body(Full::new(body.clone()))
                        .unwrap();
                    let _ = tokio::time::timeout(Duration::from_secs(30), sender.send_request(req)).await;
                    conn.abort();
                } else {
                    let head = b"POST /convert HTTP/1.1\r\nhost: localhost\r\ncontent-length: 3000000\r\n\r\n";
                    if tls.write_all(head).await.is_err() {
                        continue;
                    }
                    // 1 KB a second until the server closes the connection.
                    let chunk = [b' '; 1024];
                    while !stop.load(Ordering::Relaxed) {
                        if tls.write_all(&chunk).await.is_err() || tls.flush().await.is_err() {
                            break;
                        }
                        let mut buf = [0u8; 256];
                        // Anything read (a 408, the end): the server is done with it.
                        let read = tokio::time::timeout(Duration::from_secs(1), tls.read(&mut buf));
                        if read.await.is_ok() {
                            break;
                        }
                    }
                }
            }
        });
    }
    judged(&w, "slow-body floods", &attack, Duration::from_secs(10)).await;
}
