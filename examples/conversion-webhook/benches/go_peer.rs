//! The Go webhook a provider would otherwise run, as the peer: controller-runtime's conversion
//! handler over Cluster API v1.14.2's MachinePool converter (`tests/go/webhook`, upstream's
//! packages only), against ours on the same review bytes (realistic ~18 KB MachinePools from
//! `capi-machinepool-conversion/benches/inputs/realistic.rs`, reviews of 1, 10 and 100
//! objects, both directions):
//!
//! 1. the converted objects compared byte for byte first (the envelopes differ in form only);
//! 2. in process: our `review::handle_bytes` (criterion, and interleaved rounds against Go's
//!    handler timed by the Go program itself on an `httptest` recorder);
//! 3. over HTTPS: both servers as processes on loopback, 8 connections posting the same
//!    review back to back over HTTP/1.1 (Go as Cluster API ships it: HTTP/2 off) and HTTP/2,
//!    in turns; requests per second, p50/p99 latency, the servers' peak RSS (VmHWM).
//!
//! `cargo bench -p conversion-webhook --bench go_peer` measures (a few minutes;
//! `GO_PEER_SHAPES=up 1,down 100` limits the reviews, `GO_PEER_SECONDS` sets each load run's
//! length); under `cargo
//! test --all-targets` (CI) every step runs briefly, so the comparison cannot rot. Without Go
//! it prints `skipped: no Go toolchain` (`CAPI_REQUIRE_GO=1`: a failure). The figures are in
//! `docs/performance.md`.
#![allow(clippy::unwrap_used, clippy::panic, clippy::cast_precision_loss)]

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../../../crates/capi-machinepool-conversion/benches/inputs/realistic.rs"]
mod realistic;

use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use capi_machinepool_conversion::{StaticResolver, machine_pool_converter, review};
use criterion::{BenchmarkId, Criterion, Throughput};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};

/// The references of the realistic objects: `group/Kind=apiVersion`, for both webhooks.
const MAP: [(&str, &str, &str); 2] = [
    (
        "bootstrap.cluster.x-k8s.io",
        "KubeadmConfig",
        "bootstrap.cluster.x-k8s.io/v1beta2",
    ),
    (
        "infrastructure.cluster.x-k8s.io",
        "AzureMachinePool",
        "infrastructure.cluster.x-k8s.io/v1beta1",
    ),
];

/// The same references as CRD metadata with their contract labels, for our webhook's
/// `--crds`.
fn crds_yaml() -> String {
    MAP.iter()
        .map(|(group, kind, api_version)| {
            let version = api_version.rsplit('/').next().unwrap_or_default();
            format!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: {}, labels: {{cluster.x-k8s.io/v1beta2: {version}}}}}\n",
                capi_contract::naming::crd_name(group, kind)
            )
        })
        .collect::<Vec<_>>()
        .join("---\n")
}

const UP: &str = "cluster.x-k8s.io/v1beta2";
const DOWN: &str = "cluster.x-k8s.io/v1beta1";

/// One review measured.
struct Shape {
    name: String,
    objects: usize,
    body: Vec<u8>,
}

fn shapes() -> Vec<Shape> {
    let mut out = Vec::new();
    for (direction, object, desired) in [
        ("up", realistic::v1beta1 as fn(usize) -> Value, UP),
        ("down", realistic::v1beta2, DOWN),
    ] {
        for n in [1, 10, 100] {
            let objects: Vec<Value> = (0..n).map(object).collect();
            // As the API server lays a review out.
            let body = format!(
                r#"{{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{{"uid":"bench","desiredAPIVersion":"{desired}","objects":{}}}}}"#,
                serde_json::to_string(&objects).unwrap()
            );
            out.push(Shape {
                name: format!("{direction} {n}"),
                objects: n,
                body: body.into_bytes(),
            });
        }
    }
    out
}

/// True under `cargo bench`; `cargo test --all-targets` runs every step briefly.
fn benchmarking() -> bool {
    std::env::args().any(|a| a == "--bench")
}

fn map_args() -> Vec<String> {
    MAP.iter()
        .flat_map(|(g, k, v)| ["--map".to_owned(), format!("{g}/{k}={v}")])
        .collect()
}

/// Runs the Go program in `mode` with `input` on stdin: its stdout.
fn go_run(bin: &Path, mode: &str, extra: &[String], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(bin)
        .arg(mode)
        .args(map_args())
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the Go webhook failed in {mode}");
    out.stdout
}

/// The converted objects of a response, as the bytes each was written with.
fn converted(response: &[u8]) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Review<'a> {
        #[serde(borrow)]
        response: Response<'a>,
    }
    #[derive(serde::Deserialize)]
    struct Response<'a> {
        #[serde(borrow, rename = "convertedObjects")]
        converted: Vec<&'a RawValue>,
        result: Value,
    }
    let review: Review<'_> = serde_json::from_slice(response).unwrap();
    assert_eq!(review.response.result["status"], "Success");
    review
        .response
        .converted
        .iter()
        .map(|o| o.get().to_owned())
        .collect()
}

/// Step 1: the converted objects are Go's, byte for byte.
fn same_bytes(go: &Path, ours: &dyn Fn(&[u8]) -> Vec<u8>, shapes: &[Shape]) {
    for shape in shapes {
        let theirs = converted(&go_run(go, "convert", &[], &shape.body));
        let mine = converted(&ours(&shape.body));
        assert_eq!(theirs.len(), shape.objects);
        assert!(
            theirs == mine,
            "{}: the converted objects differ from Go's",
            shape.name
        );
    }
    eprintln!(
        "go_peer: converted objects byte-identical to Go's on {} reviews",
        shapes.len()
    );
}

/// Step 2: in process, interleaved: Go's handler timed by the Go program, ours here.
fn in_process(
    go: &Path,
    ours: &dyn Fn(&[u8]) -> Vec<u8>,
    shapes: &[Shape],
) -> Vec<(String, f64, f64)> {
    let rounds = if benchmarking() { 5 } else { 1 };
    let mut rows = Vec::new();
    for shape in shapes {
        let iterations = if benchmarking() {
            (4000 / shape.objects).max(40)
        } else {
            5
        };
        let mut go_ns = Vec::new();
        let mut our_ns = Vec::new();
        for _ in 0..rounds {
            let answer: Value = serde_json::from_slice(&go_run(
                go,
                "time",
                &["--iterations".to_owned(), iterations.to_string()],
                &shape.body,
            ))
            .unwrap();
            go_ns.push(answer["ns_per_op"].as_f64().unwrap());
            black_box(ours(&shape.body));
            let start = Instant::now();
            for _ in 0..iterations {
                black_box(ours(black_box(&shape.body)));
            }
            our_ns.push(start.elapsed().as_nanos() as f64 / iterations as f64);
        }
        let (g, r) = (median(&mut go_ns), median(&mut our_ns));
        eprintln!(
            "go_peer in process {:>8}: Go {:>10.1} µs, ours {:>9.1} µs, Go/ours {:>5.2}, ours {:>6.1} MB/s",
            shape.name,
            g / 1e3,
            r / 1e3,
            g / r,
            shape.body.len() as f64 / r * 1e3
        );
        rows.push((shape.name.clone(), g, r));
    }
    rows
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The Go server: where it listens and its process.
struct Server {
    addr: SocketAddr,
    child: Child,
}

/// CPU time process `pid` used so far (user and system), in seconds (USER_HZ is 100 on every
/// Linux this runs on).
fn cpu_seconds(pid: u32) -> f64 {
    common::process::cpu_ticks_of(pid) as f64 / 100.0
}

fn peak_rss_mb(pid: u32) -> f64 {
    common::process::peak_rss_kb_of(pid) as f64 / 1024.0
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_go(bin: &Path, dir: &Path, http2: bool) -> Server {
    let mut args = vec!["--cert-dir".to_owned(), dir.display().to_string()];
    if http2 {
        args.push("--http2".to_owned());
    }
    let mut child = Command::new(bin)
        .arg("serve")
        .args(map_args())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    Server {
        addr: v["addr"].as_str().unwrap().parse().unwrap(),
        child,
    }
}

/// Ours, as the webhook tests start it (its own certificate, which the Go server is given
/// too), resolving references from `crds`; `GO_PEER_OURS_ARGS` adds flags (to try limits).
fn start_ours(name: &str, crds: &Path) -> common::process::Webhook {
    let extra = std::env::var("GO_PEER_OURS_ARGS").unwrap_or_default();
    let mut args = vec!["--crds", crds.to_str().unwrap(), "--no-metrics"];
    args.extend(extra.split_whitespace());
    common::process::Webhook::start(name, &args)
}

/// One load run's result.
struct Load {
    requests: u64,
    elapsed: Duration,
    latencies: Vec<Duration>,
    /// Connections opened again after a response that announced the close
    /// (`Connection: close`, or an HTTP/2 GOAWAY that let the request finish).
    reconnects: u64,
    /// Requests sent that got no response (the connection closed under them), and
    /// connections found closed before a request without an announced close.
    lost: u64,
}

impl Load {
    fn per_second(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    fn percentile(&mut self, p: f64) -> Duration {
        self.latencies.sort();
        let i = ((self.latencies.len() as f64 - 1.0) * p).round() as usize;
        self.latencies[i]
    }
}

/// A client connection, either protocol.
enum Sender {
    H1(hyper::client::conn::http1::SendRequest<Full<Bytes>>),
    H2(hyper::client::conn::http2::SendRequest<Full<Bytes>>),
}

impl Sender {
    async fn connect(addr: SocketAddr, connector: &tokio_rustls::TlsConnector, h2: bool) -> Self {
        let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        tcp.set_nodelay(true).unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        let tls = TokioIo::new(connector.connect(name, tcp).await.unwrap());
        if h2 {
            let (sender, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), tls)
                .await
                .unwrap();
            tokio::spawn(conn);
            Self::H2(sender)
        } else {
            let (sender, conn) = hyper::client::conn::http1::handshake(tls).await.unwrap();
            tokio::spawn(conn);
            Self::H1(sender)
        }
    }

    async fn send(
        &mut self,
        request: hyper::Request<Full<Bytes>>,
    ) -> hyper::Result<hyper::Response<hyper::body::Incoming>> {
        match self {
            Self::H1(s) => s.send_request(request).await,
            Self::H2(s) => s.send_request(request).await,
        }
    }

    /// Whether the connection can take a request (hyper saw it closed otherwise).
    async fn ready(&mut self) -> bool {
        match self {
            Self::H1(s) => s.ready().await.is_ok(),
            Self::H2(s) => s.ready().await.is_ok(),
        }
    }
}

/// `connections` clients posting `body` back to back for `duration` (HTTP/2 when `h2`).
async fn load(
    addr: SocketAddr,
    cert: CertificateDer<'static>,
    h2: bool,
    body: Bytes,
    connections: usize,
    duration: Duration,
) -> Load {
    let alpn: &[&[u8]] = if h2 { &[b"h2"] } else { &[b"http/1.1"] };
    let connector = common::connector_with_alpn(cert, alpn);
    let start = Instant::now();
    let deadline = start + duration;
    let mut tasks = Vec::new();
    for _ in 0..connections {
        let connector = connector.clone();
        let body = body.clone();
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let (mut reconnects, mut lost) = (0u64, 0u64);
            // HTTP/2 takes the authority from the URI, HTTP/1.1 from the Host header.
            let uri = if h2 {
                "https://localhost/convert"
            } else {
                "/convert"
            };
            let mut sender = None;
            while Instant::now() < deadline {
                // A connection the server closed after announcing it (ours does after 1000
                // requests, as configured by default) is opened again, as the API server's
                // pool does; one closed without notice is counted as lost.
                let current = match sender.as_mut() {
                    Some(s) => s,
                    None => sender.insert(Sender::connect(addr, &connector, h2).await),
                };
                if !current.ready().await {
                    lost += 1;
                    sender = None;
                    continue;
                }
                let request = hyper::Request::post(uri)
                    .header("host", "localhost")
                    .header("content-type", "application/json")
                    .body(Full::new(body.clone()))
                    .unwrap();
                let sent = Instant::now();
                let Ok(resp) = current.send(request).await else {
                    lost += 1;
                    sender = None;
                    continue;
                };
                assert_eq!(resp.status(), 200);
                let announced = resp
                    .headers()
                    .get("connection")
                    .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"close"));
                black_box(resp.into_body().collect().await.unwrap().to_bytes());
                latencies.push(sent.elapsed());
                if announced {
                    reconnects += 1;
                    sender = None;
                }
            }
            (latencies, reconnects, lost)
        }));
    }
    let (mut latencies, mut reconnects, mut lost) = (Vec::new(), 0, 0);
    for t in tasks {
        let (l, r, x) = t.await.unwrap();
        latencies.extend(l);
        reconnects += r;
        lost += x;
    }
    Load {
        requests: latencies.len() as u64,
        elapsed: start.elapsed(),
        latencies,
        reconnects,
        lost,
    }
}

/// Per contender of one shape: the rounds' requests per second, p99 latencies (ms) and server
/// CPU per request (µs).
#[derive(Default)]
struct Measured {
    /// Announced reconnects over the rounds (none lost: a lost request fails the run).
    reconnects: u64,
    rates: Vec<f64>,
    p99_ms: Vec<f64>,
    cpu_us: Vec<f64>,
}

/// Step 3: over HTTPS, the two servers in turns.
fn over_https(go: &Path, crds: &Path, shapes: &[Shape], in_proc: &[(String, f64, f64)]) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // `GO_PEER_SECONDS=N`: each load run's length (for a profile of one shape).
    let seconds = std::env::var("GO_PEER_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok());
    let (duration, rounds) = if benchmarking() {
        (Duration::from_secs(seconds.unwrap_or(4)), 3)
    } else {
        (Duration::from_millis(300), 1)
    };
    for h2 in [false, true] {
        let protocol = if h2 { "HTTP/2" } else { "HTTP/1.1" };
        // Fresh servers per protocol, so each peak RSS is this protocol's.
        let our_server = start_ours(if h2 { "go-peer-h2" } else { "go-peer-h1" }, crds);
        let go_server = start_go(go, our_server.cert_dir(), h2);
        let contenders = [
            (go_server.addr, go_server.child.id()),
            (our_server.addr, our_server.pid()),
        ];
        for (shape, (_, _, our_ns)) in shapes.iter().zip(in_proc) {
            let body = Bytes::from(shape.body.clone());
            let mut go = Measured::default();
            let mut mine = Measured::default();
            for _ in 0..rounds {
                for ((addr, pid), measured) in contenders.into_iter().zip([&mut go, &mut mine]) {
                    let cpu = cpu_seconds(pid);
                    let mut result = runtime.block_on(load(
                        addr,
                        our_server.cert.clone(),
                        h2,
                        body.clone(),
                        8,
                        duration,
                    ));
                    // Issue 66: a request the server drops is a failure, not a reconnect.
                    assert_eq!(
                        result.lost, 0,
                        "{protocol} {}: {} request(s) lost ({} announced reconnects)",
                        shape.name, result.lost, result.reconnects
                    );
                    measured.reconnects += result.reconnects;
                    measured.rates.push(result.per_second());
                    measured
                        .p99_ms
                        .push(result.percentile(0.99).as_secs_f64() * 1e3);
                    measured
                        .cpu_us
                        .push((cpu_seconds(pid) - cpu) * 1e6 / result.requests.max(1) as f64);
                }
            }
            let (g, r) = (median(&mut go.rates), median(&mut mine.rates));
            let our_cpu = median(&mut mine.cpu_us);
            // What the in-process handler does on the same two cores, and what the server
            // would serve with both cores to itself (its CPU per request over TLS).
            let floor = 2.0 * 1e9 / our_ns;
            eprintln!(
                "go_peer {protocol:<8} {:>8}: Go {g:>8.0} req/s p99 {:>6.2} ms cpu {:>7.0} µs/req, ours {r:>8.0} req/s p99 {:>6.2} ms cpu {our_cpu:>7.0} µs/req, ours/Go {:>5.2}, ours/in-process(2 cores) {:>4.2}, in-process/server-cpu {:>4.2}, lost 0, reconnects Go {} ours {}",
                shape.name,
                median(&mut go.p99_ms),
                median(&mut go.cpu_us),
                median(&mut mine.p99_ms),
                r / g,
                r / floor,
                our_ns / 1e3 / our_cpu,
                go.reconnects,
                mine.reconnects,
            );
        }
        let (go_rss, our_rss) = (
            peak_rss_mb(go_server.child.id()),
            peak_rss_mb(our_server.pid()),
        );
        eprintln!(
            "go_peer {protocol:<8} peak RSS under load: Go {go_rss:.1} MB, ours {our_rss:.1} MB, ours/Go {:.2}",
            our_rss / go_rss
        );
    }
}

fn main() {
    let Some(go) =
        capi_test_support::go_tool::build_go_tool("tests/go/webhook", ".", "capi-go-webhook")
    else {
        return;
    };
    let mut resolver = StaticResolver::new();
    for (g, k, v) in MAP {
        resolver.insert(g, k, v);
    }
    let converter = machine_pool_converter(resolver);
    let ours = |body: &[u8]| review::handle_bytes(&converter, body).body;
    // `GO_PEER_SHAPES=up 1,down 100`: only the reviews named (all by default).
    let only = std::env::var("GO_PEER_SHAPES").ok();
    let shapes: Vec<Shape> = shapes()
        .into_iter()
        .filter(|s| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|n| n == s.name))
        })
        .collect();

    if !benchmarking() {
        eprintln!(
            "go_peer: test mode (a short round of every step, unoptimized under cargo test): the figures below are not measurements"
        );
    }
    same_bytes(&go, &ours, &shapes);
    let in_proc = in_process(&go, &ours, &shapes);

    let dir: PathBuf = std::env::temp_dir().join(format!("go-peer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let crds = dir.join("crds.yaml");
    std::fs::write(&crds, crds_yaml()).unwrap();
    over_https(&go, &crds, &shapes, &in_proc);
    let _ = std::fs::remove_dir_all(&dir);

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("go_peer_ours_in_process");
    for shape in &shapes {
        group.throughput(Throughput::Bytes(shape.body.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(&shape.name),
            &shape.body,
            |b, body| {
                b.iter(|| ours(black_box(body)));
            },
        );
    }
    group.finish();
    c.final_summary();
}
