//! A production-shaped HTTPS conversion webhook for Cluster API MachinePools (and, to show a
//! provider's setup, the example provider's FooMachinePool: one webhook, several kinds).
//!
//! * `POST /convert`: `apiextensions.k8s.io/v1` ConversionReview in, ConversionReview out
//!   (400 for an unreadable review, 408 for a body sent too slowly, 413 above the body limit,
//!   503 when a conversion exceeds the request timeout).
//! * `GET /healthz`, `GET /readyz`.
//! * TLS from PEM files (as cert-manager mounts them), reloaded when they change.
//! * Graceful shutdown when the `shutdown` future completes (SIGTERM in `main`).
//!
//! Slow and idle clients cannot starve it (see `README.md` for the limits and why): at most
//! `max_connections` connections are open at once, counted from the end of their TLS
//! handshake; at most `max_handshakes` handshakes run at once, and when they are all taken a
//! new connection takes the slot of the handshake sending the fewest bytes per second; a
//! response not read within `response_write_timeout` (a zero flow-control window, a full TCP
//! window) has its connection closed, sooner when conversions wait for the memory it holds,
//! and holds only its own size of the conversion memory budget meanwhile; the TLS
//! handshake, the first request, the
//! request headers and the request body each have a timeout, and a connection on which
//! nothing moves is closed (HTTP/1.1 and HTTP/2 alike); HTTP/2 flow-control windows are small,
//! so a connection holds little unread data; request bodies held in memory share one byte
//! budget (a connection waits for its share; the body timeout still runs); a body announced
//! larger than the limit is refused with 413 before it is sent (`Expect: 100-continue` gets no
//! `100`); at most `max_concurrent_conversions` conversions run at once, plus one for small
//! reviews (which have a lane of their own: an eighth of the conversion memory budget, so
//! they never queue behind large ones), each on a blocking thread so large reviews never
//! stall the async executor.

pub mod cli;
mod connection;
mod eviction;
mod handshake;
mod holders;
pub mod live;
mod metrics;
pub mod metrics_server;
mod process_metrics;
mod response;
mod tls_errors;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum_server::Handle;
use axum_server::tls_rustls::{RustlsAcceptor, RustlsConfig};
use capi_machinepool_conversion::{
    ChainResolver, ConverterSet, CrdResolver, ObjectConverter, machine_pool_converter, review,
};
use http_body_util::BodyExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tracing::{debug, info, warn};

/// Server settings.
#[derive(Clone)]
pub struct Config {
    /// Address to listen on (`127.0.0.1:0` picks a free port).
    pub addr: std::net::SocketAddr,
    /// PEM certificate chain.
    pub cert: PathBuf,
    /// PEM private key.
    pub key: PathBuf,
    /// Provider CRDs whose contract labels resolve reference apiVersions: the offline
    /// source, asked after `live_crds`.
    pub crds: Vec<PathBuf>,
    /// The cluster's CRDs, watched ([`live::LiveCrds::watch`]): asked first. The webhook is
    /// ready (`/readyz`) once their first list is in.
    pub live_crds: Option<live::LiveCrds>,
    /// Largest accepted request body.
    pub max_body_bytes: usize,
    /// Longest time a conversion may take.
    pub request_timeout: Duration,
    /// How often the certificate files are checked for changes.
    pub reload_interval: Duration,
    /// Limits on slow and idle clients.
    pub limits: Limits,
    /// Where Prometheus metrics are served (`GET /metrics`); `None`: not served. Plain HTTP
    /// unless `metrics_auth` is given.
    pub metrics_addr: Option<std::net::SocketAddr>,
    /// `Some`: metrics are served over HTTPS with the serving certificate, each request
    /// authenticated (TokenReview) and authorized (SubjectAccessReview) through this client
    /// ([`metrics_server`]).
    pub metrics_auth: Option<kube::Client>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("addr", &self.addr)
            .field("cert", &self.cert)
            .field("key", &self.key)
            .field("crds", &self.crds)
            .field("live_crds", &self.live_crds)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("request_timeout", &self.request_timeout)
            .field("reload_interval", &self.reload_interval)
            .field("limits", &self.limits)
            .field("metrics_addr", &self.metrics_addr)
            .field("metrics_secure", &self.metrics_auth.is_some())
            .finish()
    }
}

/// Limits on connections and memory (see the example's README for the reasoning).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// TLS handshake.
    pub handshake_timeout: Duration,
    /// From the end of the handshake to a complete first request head, and between requests
    /// on a kept-alive connection (idle connections are closed).
    pub idle_timeout: Duration,
    /// Reading the request headers.
    pub header_read_timeout: Duration,
    /// Reading the request body (the API server sends it at once).
    pub body_read_timeout: Duration,
    /// Total bytes of request bodies held at once, over all connections.
    pub body_budget_bytes: usize,
    /// Conversions running at once (small reviews, [`SMALL_LANE_SHARE`], have one more).
    pub max_concurrent_conversions: usize,
    /// Connections open at once, counted from the end of their TLS handshake (over the cap,
    /// a new connection waits while the slowest open one is closed for it).
    pub max_connections: usize,
    /// HTTP/2 flow-control window of a connection and of each stream: the most a client can
    /// send that is not yet read.
    pub h2_window_bytes: u32,
    /// HTTP/2 streams open at once on one connection.
    pub h2_max_concurrent_streams: u32,
    /// Largest response body: a review whose converted objects would pass it is answered
    /// with a `Failure` result (code 422) naming the limit.
    pub max_response_bytes: usize,
    /// Memory that conversions in flight may use together, their responses included until
    /// sent (a response holds its own size); each conversion is admitted with its estimated
    /// cost ([`conversion_cost`]), from the small reviews' lane (an eighth,
    /// [`SMALL_LANE_SHARE`]) when the cost fits it.
    pub conversion_memory_bytes: usize,
    /// A connection is asked to close (after its response in flight; HTTP/2: GOAWAY) this
    /// long after it was opened, and closed outright a request's time later.
    pub max_connection_age: Duration,
    /// A connection is asked to close after this many requests.
    pub max_requests_per_connection: u64,
    /// How long a connection over `max_connections` waits (first come, first served) for a
    /// slot, while the slowest open connection is closed for it.
    pub connection_queue_timeout: Duration,
    /// TLS handshakes in progress at once; when all are taken, a new connection takes the
    /// slot of the handshake sending the fewest bytes per second.
    pub max_handshakes: usize,
    /// A response not written this long after it was ready has its connection closed.
    pub response_write_timeout: Duration,
}

/// Measured peak memory of one conversion per byte of request body, over the worst inputs
/// found (README, "Limits and why"): a string of `<` converted down (each `<` is 13 bytes of
/// response, `\u003c` in the object and `\\u003c` in its conversion-data annotation) peaks
/// at up to 31 bytes a body byte, tens of thousands of minimal objects at up to 20. An upper
/// bound for every review of a given size.
pub const CONVERSION_BYTES_PER_BODY_BYTE: usize = 32;

/// Memory of a conversion that does not depend on its body (buffers, allocator slack).
pub const CONVERSION_BASE_BYTES: usize = 1 << 20;

/// The memory a conversion of a `body_len`-byte review is admitted with, out of a budget of
/// `budget` bytes: the measured worst case for a body of that size, at most the measured worst
/// case of any conversion whose response stays within `max_response_bytes` (the converted
/// objects and the printed response, 2.5 times the limit: a conversion that passes the limit
/// stops there), and at most the whole budget (such a conversion runs alone).
///
/// ```
/// use conversion_webhook::conversion_cost;
/// let mib = 1 << 20;
/// assert_eq!(conversion_cost(10_000, 16 * mib, 48 * mib), 320_000 + mib);
/// assert_eq!(conversion_cost(3 * mib, 16 * mib, 48 * mib), 41 * mib);
/// assert_eq!(conversion_cost(3 * mib, 16 * mib, 32 * mib), 32 * mib);
/// ```
#[must_use]
pub fn conversion_cost(body_len: usize, max_response_bytes: usize, budget: usize) -> usize {
    let by_response = max_response_bytes
        .saturating_mul(5)
        .saturating_div(2)
        .saturating_add(CONVERSION_BASE_BYTES);
    body_len
        .saturating_mul(CONVERSION_BYTES_PER_BODY_BYTE)
        .saturating_add(CONVERSION_BASE_BYTES)
        .min(by_response)
        .min(budget)
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            handshake_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(5),
            body_read_timeout: Duration::from_secs(10),
            body_budget_bytes: 24 << 20,
            max_concurrent_conversions: 2,
            max_connections: 128,
            h2_window_bytes: 64 * 1024,
            h2_max_concurrent_streams: 8,
            max_response_bytes: 16 << 20,
            conversion_memory_bytes: 48 << 20,
            max_connection_age: Duration::from_secs(300),
            max_requests_per_connection: 1000,
            connection_queue_timeout: Duration::from_secs(5),
            max_handshakes: 1024,
            response_write_timeout: Duration::from_secs(10),
        }
    }
}

struct AppState {
    converter: Arc<ConverterSet>,
    ready: AtomicBool,
    timeout: Duration,
    max_body_bytes: usize,
    body_read_timeout: Duration,
    body_budget: Arc<Semaphore>,
    /// The small bodies' share of the body budget ([`SMALL_BODY_BYTES`]).
    small_body_budget: Arc<Semaphore>,
    small_bodies: Arc<holders::Holders>,
    max_response_bytes: usize,
    /// Reviews that cost at most `small.bytes` (the API server's usual reviews, kilobytes).
    small: Lane,
    /// The others.
    large: Lane,
    unsent: Arc<holders::Holders>,
    metrics: Arc<metrics::Metrics>,
}

/// A review's failure reason as a metrics label: the reasons the conversion library writes,
/// any other as `Other` (a label must not take arbitrary values).
fn failure_label(reason: &str) -> &'static str {
    match reason {
        "ConversionFailed" => "ConversionFailed",
        "BadRequest" => "BadRequest",
        "InternalError" => "InternalError",
        _ => "Other",
    }
}

/// Conversions admitted side by side: a share of the conversion memory budget and of the
/// conversion threads. Small reviews have a lane of their own, so they never queue behind
/// large conversions (or behind the memory that large responses nobody reads still hold).
struct Lane {
    memory: Arc<Semaphore>,
    bytes: usize,
    slots: Arc<Semaphore>,
}

impl Lane {
    fn new(bytes: usize, slots: usize) -> Self {
        let bytes = permits_for(bytes.max(1)) as usize;
        Self {
            memory: Arc::new(Semaphore::new(bytes)),
            bytes,
            slots: Arc::new(Semaphore::new(slots.max(1))),
        }
    }
}

/// The share of the conversion memory budget kept for small reviews (an eighth).
pub const SMALL_LANE_SHARE: usize = 8;

/// Semaphore permits for `bytes` (a semaphore counts at most `u32::MAX`).
fn permits_for(bytes: usize) -> u32 {
    u32::try_from(bytes).unwrap_or(u32::MAX)
}

/// Why a body was not read.
enum BodyError {
    TooLarge,
    Broken,
}

/// A body announced at most this long is read from the small bodies' share of the body
/// budget (an eighth of it, [`SMALL_LANE_SHARE`]), so it never queues behind large bodies.
pub const SMALL_BODY_BYTES: u64 = 64 * 1024;

/// Where a body's bytes are taken from as they arrive.
struct BodyLane<'a> {
    budget: &'a Arc<Semaphore>,
    /// For small bodies: their readers, closed when stalled while others wait.
    small: Option<(
        &'a Arc<holders::Holders>,
        Option<&'a Arc<connection::ConnInfo>>,
    )>,
}

impl BodyLane<'_> {
    /// `n` bytes of the lane's budget; while a small body waits, the connections reading a
    /// small body for [`holders::STALL_GRACE`] or longer are closed (checked every tenth of a
    /// second).
    async fn take(&self, n: u32) -> Result<OwnedSemaphorePermit, BodyError> {
        let wait = Arc::clone(self.budget).acquire_many_owned(n);
        tokio::pin!(wait);
        loop {
            tokio::select! {
                permit = &mut wait => return permit.map_err(|_| BodyError::Broken),
                () = tokio::time::sleep(Duration::from_millis(100)), if self.small.is_some() => {
                    if let Some((readers, _)) = self.small {
                        readers.close_stalled(holders::STALL_GRACE, false, "small bodies wait for budget");
                    }
                }
            }
        }
    }
}

/// Reads the body, taking its size from its lane's byte budget as it arrives; the permits
/// are held until the response is built.
async fn read_body(
    body: Body,
    lane: BodyLane<'_>,
    max: usize,
) -> Result<(Vec<u8>, Vec<OwnedSemaphorePermit>), BodyError> {
    let mut body = body;
    let mut bytes = Vec::new();
    let mut permits = Vec::new();
    loop {
        // A small body holding budget is registered while it waits for the network (and only
        // then: time spent waiting for budget is not the client's), so that a connection that
        // trickles it can be closed when others need the budget.
        let frame = {
            let _waiting = match lane.small {
                Some((readers, Some(conn))) if !bytes.is_empty() => {
                    Some(readers.register(conn, bytes.len()))
                }
                _ => None,
            };
            body.frame().await
        };
        let Some(frame) = frame else { break };
        let frame = frame.map_err(|_| BodyError::Broken)?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        if bytes.len() + data.len() > max {
            return Err(BodyError::TooLarge);
        }
        let n = u32::try_from(data.len()).map_err(|_| BodyError::TooLarge)?;
        permits.push(lane.take(n).await?);
        bytes.extend_from_slice(&data);
    }
    Ok((bytes, permits))
}

fn text(status: StatusCode, message: &'static str) -> Response {
    (status, message).into_response()
}

/// The length a request announces (`Content-Length`), if any.
fn announced_length(request: &Request) -> Option<u64> {
    request
        .headers()
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// `cost` bytes of `lane`'s memory. While they are not free, connections that leave a
/// response unread past [`holders::STALL_GRACE`] without progress are closed (checked every
/// tenth of a second, as more may stall), which gives their responses' memory back; the wait
/// keeps its place in the queue all along.
async fn conversion_memory(
    lane: &Lane,
    unsent: &holders::Holders,
    cost: usize,
) -> Option<OwnedSemaphorePermit> {
    let wait = Arc::clone(&lane.memory).acquire_many_owned(permits_for(cost));
    tokio::pin!(wait);
    loop {
        tokio::select! {
            permit = &mut wait => return permit.ok(),
            () = tokio::time::sleep(Duration::from_millis(100)) => {
                unsent.close_stalled(holders::STALL_GRACE, true, "conversions wait for memory");
            }
        }
    }
}

/// Answers `/convert`, counting the request in the metrics and logging why a conversion
/// failed.
async fn convert(State(state): State<Arc<AppState>>, request: Request) -> Response {
    let started = std::time::Instant::now();
    let _in_flight = state.metrics.start();
    let conn = request
        .extensions()
        .get::<Arc<connection::ConnInfo>>()
        .cloned();
    // A connection aborted while its request waits (for body budget, memory, a conversion
    // slot) ends the request at once; hyper then finds the connection closed.
    let (response, failure) = match &conn {
        Some(info) => tokio::select! {
            answered = answer(&state, conn.as_ref(), request, started) => answered,
            () = info.aborted() => refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "connection closed by the server",
                "ConnectionAborted",
            ),
        },
        None => answer(&state, None, request, started).await,
    };
    state
        .metrics
        .observe(response.status().as_u16(), started.elapsed(), failure);
    response
}

/// A refusal before any review: its HTTP status, its text and the reason counted in the
/// metrics.
fn refused(
    status: StatusCode,
    message: &'static str,
    reason: &'static str,
) -> (Response, Option<&'static str>) {
    (text(status, message), Some(reason))
}

/// What `/convert` answers: the response, and the reason counted when the conversion
/// failed (the review's `result.reason`, or why no review was answered).
type Answer = (Response, Option<&'static str>);

/// The response to `/convert` on the connection `conn`, and the reason when the conversion
/// failed: the body read within its budget and time ([`receive`]), then converted within
/// the memory budget and the conversion timeout ([`convert_review`]).
async fn answer(
    state: &Arc<AppState>,
    conn: Option<&Arc<connection::ConnInfo>>,
    request: Request,
    started: std::time::Instant,
) -> Answer {
    let (body, _budget) = match receive(state, conn, request).await {
        Ok(received) => received,
        Err(refusal) => return refusal,
    };
    convert_review(state, conn, body, started).await
}

/// Reads the request's body from its lane of the body budget, within the size limit and the
/// body timeout; the bytes and the budget they hold until the response is built.
async fn receive(
    state: &Arc<AppState>,
    conn: Option<&Arc<connection::ConnInfo>>,
    request: Request,
) -> Result<(Vec<u8>, Vec<OwnedSemaphorePermit>), Answer> {
    // Refused before the body is read: with `Expect: 100-continue` no `100` is sent, and the
    // client learns at once instead of after sending (or after the body timeout).
    let announced = announced_length(&request);
    if announced.is_some_and(|n| n > state.max_body_bytes as u64) {
        return Err(refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request body too large",
            "BodyTooLarge",
        ));
    }
    let lane = if announced.is_some_and(|n| n <= SMALL_BODY_BYTES) {
        BodyLane {
            budget: &state.small_body_budget,
            small: Some((&state.small_bodies, conn)),
        }
    } else {
        BodyLane {
            budget: &state.body_budget,
            small: None,
        }
    };
    let read = read_body(request.into_body(), lane, state.max_body_bytes);
    match tokio::time::timeout(state.body_read_timeout, read).await {
        Ok(Ok(read)) => Ok(read),
        Ok(Err(BodyError::TooLarge)) => Err(refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request body too large",
            "BodyTooLarge",
        )),
        Ok(Err(BodyError::Broken)) => Err(refused(
            StatusCode::BAD_REQUEST,
            "request body broken",
            "BodyBroken",
        )),
        Err(_) => {
            warn!(
                timeout_ms = state.body_read_timeout.as_millis() as u64,
                "request body too slow"
            );
            Err(refused(
                StatusCode::REQUEST_TIMEOUT,
                "request body not received in time",
                "BodyTimeout",
            ))
        }
    }
}

/// Converts one review: admitted by memory first (its estimated cost, held until its
/// response is sent), then one conversion per permit, both within the conversion timeout;
/// the response holds its own size of the budget until it is written.
async fn convert_review(
    state: &Arc<AppState>,
    conn: Option<&Arc<connection::ConnInfo>>,
    body: Vec<u8>,
    started: std::time::Instant,
) -> Answer {
    // Admitted by memory first (its estimated cost, held until its response is sent), then
    // one conversion per permit; both within the conversion timeout. The handler itself is
    // pure and synchronous, so it runs on a blocking thread and a large review never stalls
    // the async executor.
    let cost = conversion_cost(body.len(), state.max_response_bytes, state.large.bytes);
    let lane = if cost <= state.small.bytes {
        &state.small
    } else {
        &state.large
    };
    let max_response = state.max_response_bytes;
    let converter = Arc::clone(&state.converter);
    let _converting = conn.map(connection::ConnInfo::converting);
    let conversion = async {
        let memory = conversion_memory(lane, &state.unsent, cost).await?;
        let permit = Arc::clone(&lane.slots).acquire_owned().await.ok()?;
        // A small review (at most SMALL_BODY_BYTES, a few hundred microseconds of CPU) is
        // converted on the async worker itself: handing it to a blocking thread and back
        // cost more than the conversion (a futex wake each way, measured by
        // benches/go_peer.rs). Larger ones go to the blocking pool.
        let inline = body.len() <= SMALL_BODY_BYTES as usize;
        let convert = move || {
            let _permit = permit;
            review::handle_bytes_within(converter.as_ref(), &body, max_response)
        };
        let response = if inline {
            Ok(convert())
        } else {
            tokio::task::spawn_blocking(convert).await
        };
        Some((response, memory))
    };
    match tokio::time::timeout(state.timeout, conversion).await {
        Ok(Some((Ok(response), memory))) => respond(state, conn, response, memory, cost, started),
        Ok(None) => refused(
            StatusCode::SERVICE_UNAVAILABLE,
            "shutting down",
            "ShuttingDown",
        ),
        Ok(Some((Err(e), _))) => {
            warn!(error = %e, "conversion task failed");
            refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "conversion failed",
                "InternalError",
            )
        }
        Err(_) => {
            warn!(
                timeout_ms = state.timeout.as_millis() as u64,
                "conversion timed out"
            );
            refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "conversion timed out",
                "Timeout",
            )
        }
    }
}

/// The HTTP response of a converted review (logged: a failure at warn with its reason and
/// object, a success at debug); until it is written it holds its own size of `memory`.
fn respond(
    state: &Arc<AppState>,
    conn: Option<&Arc<connection::ConnInfo>>,
    response: review::Response,
    mut memory: OwnedSemaphorePermit,
    cost: usize,
    started: std::time::Instant,
) -> Answer {
    match &response.failure {
        // The reason and the object's identity (the message names the object that
        // failed), as controller-runtime logs a failed conversion.
        Some(failure) => warn!(
            status = response.status,
            reason = %failure.reason,
            code = failure.code,
            // The message quotes the review (kinds, names, decode errors): escaped,
            // so no bidi override or terminal escape reaches the log raw.
            error = %capi_diagnostics::excerpt::printable(&failure.message),
            elapsed_us = started.elapsed().as_micros() as u64,
            "conversion failed"
        ),
        // Each review at debug level, as controller-runtime logs a successful
        // conversion; the metrics count them (an info line per review was a write
        // to standard output per request, a twentieth of the server's CPU).
        None => debug!(
            status = response.status,
            bytes = response.body.len(),
            cost,
            elapsed_us = started.elapsed().as_micros() as u64,
            "conversion review"
        ),
    }
    let reason = response.failure.as_ref().map(|f| failure_label(&f.reason));
    let code = StatusCode::from_u16(response.status).unwrap_or(StatusCode::OK);
    // Until it is written the response holds its own size of the budget, no more: a
    // client that does not read holds what it costs, not the conversion's estimate.
    let held = permits_for(response.body.capacity().max(1)) as usize;
    if held < memory.num_permits() {
        drop(memory.split(memory.num_permits() - held));
    }
    let registered = conn.map(|conn| state.unsent.register(conn, response.body.len()));
    let body = response::HeldBody::new(response.body, memory, registered);
    let response = (
        code,
        [(header::CONTENT_TYPE, "application/json")],
        Body::new(body),
    )
        .into_response();
    (response, reason)
}

async fn healthz() -> &'static str {
    "ok"
}

async fn readyz(State(state): State<Arc<AppState>>) -> Response {
    if state.ready.load(Ordering::Relaxed) {
        "ok".into_response()
    } else {
        text(StatusCode::SERVICE_UNAVAILABLE, "not ready")
    }
}

/// Counts the request on its connection, which is asked to close after its last one; on
/// HTTP/1 the response of a connection that closes after it says so (`Connection: close`),
/// whatever path produced it, so that a client never sends its next request into a closed
/// connection (hyper then closes once that response is written).
async fn count_request(request: Request, next: axum::middleware::Next) -> Response {
    let info = request
        .extensions()
        .get::<Arc<connection::ConnInfo>>()
        .cloned();
    let http1 = request.version() < axum::http::Version::HTTP_2;
    if let Some(info) = &info {
        info.request(
            request
                .extensions()
                .get::<axum_server::ConnectionShutdown>(),
            request.version(),
        );
    }
    let mut response = next.run(request).await;
    // Asked again after the handler: the connection may have reached its maximum age
    // while the request was converted.
    if http1 && info.is_some_and(|info| info.will_close()) {
        response.headers_mut().insert(
            header::CONNECTION,
            axum::http::HeaderValue::from_static("close"),
        );
    }
    response
}

fn app(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/convert", post(convert))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        // The body is read by `convert` itself, within its limit and the shared budget.
        .layer(DefaultBodyLimit::disable())
        .layer(axum::middleware::from_fn(count_request))
        .with_state(state)
}

/// What tells a certificate file changed: its modification time and a hash of its content
/// (a file rewritten within the file system's timestamp granularity keeps its time; a
/// certificate of the same algorithm keeps its length).
fn fingerprint(path: &PathBuf) -> Option<(SystemTime, u64)> {
    use std::hash::{Hash, Hasher};
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    let bytes = std::fs::read(path).ok()?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    Some((modified, hasher.finish()))
}

fn watch_certificates(
    tls: RustlsConfig,
    (cert, key): (PathBuf, PathBuf),
    every: Duration,
    metrics: Arc<metrics::Metrics>,
) {
    tokio::spawn(async move {
        let mut seen = (fingerprint(&cert), fingerprint(&key));
        loop {
            tokio::time::sleep(every).await;
            let now = (fingerprint(&cert), fingerprint(&key));
            if now == seen {
                continue;
            }
            match tls.reload_from_pem_file(&cert, &key).await {
                Ok(()) => {
                    info!(cert = %cert.display(), "reloaded TLS certificate");
                    metrics.certificate_reloaded(true);
                    seen = now;
                }
                // Keep serving with the old certificate; retry on the next tick (the files may be
                // half-written by the mounter).
                Err(e) => {
                    metrics.certificate_reloaded(false);
                    warn!(error = %e, "TLS certificate reload failed");
                }
            }
        }
    });
}

/// Closes, every second (or sooner for a short timeout), the connections holding a response
/// unsent for `write_timeout`; stops with the server.
fn close_unread_connections(unsent: &Arc<holders::Holders>, write_timeout: Duration) {
    let every = write_timeout.clamp(Duration::from_millis(100), Duration::from_secs(1));
    let unsent = Arc::downgrade(unsent);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            let Some(unsent) = unsent.upgrade() else {
                return;
            };
            unsent.close_stalled(write_timeout, false, "response write timeout");
        }
    });
}

/// The converters the webhook serves: MachinePool (its references resolved from the contract
/// labels of the cluster's CRDs when `live` is given, then of `crds`) and the example
/// provider's FooMachinePool. Built once, shared by every request.
///
/// # Errors
/// When the CRDs cannot be read.
pub fn converters(crds: &[PathBuf], live: Option<live::LiveCrds>) -> Result<ConverterSet, String> {
    let loaded = capi_manifests::load::load(crds, capi_manifests::Limits::default())
        .map_err(|e| capi_diagnostics::error_chain(&e))?;
    let offline = CrdResolver::from_documents(loaded.documents.iter().map(|d| &d.value));
    let mut resolver = ChainResolver::new();
    if let Some(live) = live {
        resolver = resolver.with(live);
    }
    let set = ConverterSet::new()
        .with(machine_pool_converter(resolver.with(offline)))
        .with(foo_provider::converter(CrdResolver::new()));
    info!(kinds = ?set.group_kinds(), "serving conversions");
    Ok(set)
}

/// A running server: its address and a handle to stop it.
pub struct Running {
    /// The bound address.
    pub addr: std::net::SocketAddr,
    /// The bound address of the metrics endpoint, when served.
    pub metrics_addr: Option<std::net::SocketAddr>,
    /// Resolves when the server has stopped.
    pub done: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// The shared state of the handlers, sized from the configured limits.
fn app_state(config: &Config) -> Result<Arc<AppState>, String> {
    let limits = config.limits;
    Ok(Arc::new(AppState {
        converter: Arc::new(converters(&config.crds, config.live_crds.clone())?),
        ready: AtomicBool::new(false),
        timeout: config.request_timeout,
        max_body_bytes: config.max_body_bytes,
        body_read_timeout: limits.body_read_timeout,
        body_budget: Arc::new(Semaphore::new(
            limits.body_budget_bytes - limits.body_budget_bytes / SMALL_LANE_SHARE,
        )),
        small_body_budget: Arc::new(Semaphore::new(
            (limits.body_budget_bytes / SMALL_LANE_SHARE).max(SMALL_BODY_BYTES as usize),
        )),
        small_bodies: Arc::new(holders::Holders::default()),
        max_response_bytes: limits.max_response_bytes,
        small: Lane::new(limits.conversion_memory_bytes / SMALL_LANE_SHARE, 1),
        large: Lane::new(
            limits.conversion_memory_bytes - limits.conversion_memory_bytes / SMALL_LANE_SHARE,
            limits.max_concurrent_conversions,
        ),
        unsent: Arc::new(holders::Holders::default()),
        metrics: Arc::new(metrics::Metrics::new(config.live_crds.clone())),
    }))
}

/// The TLS acceptor with the handshake and connection limits.
fn acceptor(
    config: &Config,
    tls: RustlsConfig,
    metrics: Arc<metrics::Metrics>,
) -> connection::Limited<tls_errors::LoggedHandshakes<RustlsAcceptor<handshake::Handshakes>>> {
    let limits = config.limits;
    let acceptor = tls_errors::LoggedHandshakes::new(
        RustlsAcceptor::new(tls)
            .handshake_timeout(limits.handshake_timeout)
            .acceptor(handshake::Handshakes::new(limits.max_handshakes)),
        metrics,
    );
    // No byte may move for this long: longer than a request may take, so that a connection
    // waiting for its conversion's answer is not closed.
    let idle = limits
        .idle_timeout
        .max(config.request_timeout + limits.body_read_timeout);
    connection::Limited::new(
        acceptor,
        connection::ConnectionLimits {
            max_connections: limits.max_connections,
            idle,
            max_age: limits.max_connection_age,
            grace: config.request_timeout + limits.body_read_timeout,
            max_requests: limits.max_requests_per_connection,
            queue_timeout: limits.connection_queue_timeout,
        },
    )
}

/// Marks the server ready: at once with static CRDs, once the CRD watch has synced with
/// live ones.
fn become_ready(state: &Arc<AppState>, live_crds: Option<live::LiveCrds>) {
    match live_crds {
        Some(live) => {
            let state = Arc::clone(state);
            tokio::spawn(async move {
                live.synced().await;
                state.ready.store(true, Ordering::Relaxed);
                info!(
                    crds = live.len(),
                    "ready: reference versions resolve from the cluster's CRDs"
                );
            });
        }
        None => state.ready.store(true, Ordering::Relaxed),
    }
}

/// Starts the server; it stops gracefully (10 s for open connections) when `shutdown` completes.
///
/// # Errors
/// Unreadable certificate, key or CRDs, or an address that cannot be bound.
pub async fn start(
    config: Config,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<Running, String> {
    let tls = RustlsConfig::from_pem_file(&config.cert, &config.key)
        .await
        .map_err(|e| format!("cannot load TLS certificate {}: {e}", config.cert.display()))?;
    let limits = config.limits;
    let state = app_state(&config)?;
    let metrics_addr = match config.metrics_addr {
        Some(addr) => {
            let auth = config
                .metrics_auth
                .clone()
                .map(|client| metrics_server::MetricsAuth {
                    tls: tls.clone(),
                    client,
                });
            Some(metrics_server::serve(addr, Arc::clone(&state.metrics), auth).await?)
        }
        None => None,
    };
    close_unread_connections(&state.unsent, limits.response_write_timeout);
    watch_certificates(
        tls.clone(),
        (config.cert.clone(), config.key.clone()),
        config.reload_interval,
        Arc::clone(&state.metrics),
    );
    let handle: Handle<std::net::SocketAddr> = Handle::new();
    let stopper = handle.clone();
    tokio::spawn(async move {
        shutdown.await;
        info!("shutting down");
        stopper.graceful_shutdown(Some(Duration::from_secs(10)));
    });
    let mut server = axum_server::bind(config.addr)
        .acceptor(acceptor(&config, tls, Arc::clone(&state.metrics)))
        .handle(handle.clone())
        .first_request_timeout(limits.idle_timeout);
    let builder = server.http_builder();
    builder
        .http1()
        .header_read_timeout(limits.header_read_timeout)
        .max_buf_size(64 * 1024);
    builder
        .http2()
        .initial_stream_window_size(limits.h2_window_bytes)
        .initial_connection_window_size(limits.h2_window_bytes)
        .max_concurrent_streams(limits.h2_max_concurrent_streams)
        .max_header_list_size(16 * 1024)
        .max_send_buf_size(64 * 1024);
    let router = app(Arc::clone(&state));
    let done = tokio::spawn(async move { server.serve(router.into_make_service()).await });
    let addr = handle
        .listening()
        .await
        .ok_or_else(|| format!("cannot listen on {}", config.addr))?;
    become_ready(&state, config.live_crds);
    info!(%addr, "serving conversion reviews");
    Ok(Running {
        addr,
        metrics_addr,
        done,
    })
}
