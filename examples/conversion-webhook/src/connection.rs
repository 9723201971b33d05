//! Connections: a cap on how many are open at once (each holds TLS buffers, HTTP/1 read
//! buffers or HTTP/2 flow-control windows outside the body budget), an idle timeout that
//! closes a connection on which no byte moved for a while, whatever its protocol (HTTP/2
//! connections have no idle timeout of their own), a maximum age and a maximum number of
//! requests per connection, and a fair queue for connections over the cap.
//!
//! Over the cap, a new connection waits (first come, first served, at most `queue_timeout`)
//! for the slot of an open connection closed for it: among those with no conversion in
//! flight, the one that moved the fewest bytes per second since it was admitted (ties: the
//! oldest), a connection admitted less than [`NEWCOMER_GRACE`](crate::eviction::NEWCOMER_GRACE) ago only when no older one
//! remains (its request is on its way). The API server sends a request at once and reads
//! the answer at once; clients that trickle a body, hold a flow-control window full, or keep
//! a slot busy with small requests or HTTP/2 PINGs move little, and clients reconnecting at
//! once when closed push out each other before a newcomer. So they cannot keep a new client
//! (the API server) out.
//!
//! A connection asks for its slot once its TLS handshake is over (handshakes have their own
//! budget, [`crate::handshake`]), so clients stalling in the handshake hold no slot. A
//! connection can also be closed outright ([`ConnInfo::abort`]): the server does so when a
//! response on it stays unsent too long ([`crate::holders`]).

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use axum_server::ConnectionShutdown;
use axum_server::accept::Accept;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};
use tracing::{info, warn};

use crate::eviction::{Moved, closed_first};
use crate::handshake::HandshakeSlot;

/// Connection limits (see the README for the values).
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Closed after this long without a byte read or written.
    pub idle: Duration,
    /// Asked to close (gracefully) after this long.
    pub max_age: Duration,
    /// After a graceful close was asked, closed outright this much later.
    pub grace: Duration,
    /// Asked to close (gracefully) after this many requests.
    pub max_requests: u64,
    /// How long a connection over the cap waits for a slot.
    pub queue_timeout: Duration,
}

/// What the acceptor and the request handlers share about one connection.
#[derive(Debug)]
pub struct ConnInfo {
    requests: AtomicU64,
    max_requests: u64,
    /// The server's handle to close the connection after its response in flight, known
    /// from the connection's first request.
    shutdown: Mutex<Option<ConnectionShutdown>>,
    /// Asked to close: gracefully when `shutdown` is known, else at the next poll.
    closing: AtomicBool,
    /// Its requests are HTTP/1 (known from the first): a close is announced on the next
    /// response (`Connection: close`) instead of closing an idle connection under a
    /// request the client may be sending.
    http1: AtomicBool,
    /// The connection's reader, woken to close a connection that never sent a request.
    waker: Mutex<Option<Waker>>,
    /// When the connection was admitted.
    opened: Instant,
    /// Closed outright: its next read or write fails.
    aborted: AtomicBool,
    /// Wakes the request handlers of an aborted connection.
    aborted_notify: tokio::sync::Notify,
    /// Bytes written since the connection last made [`PROGRESS_BYTES`] of progress.
    written: AtomicU64,
    /// When it last did (milliseconds after `opened`).
    progressed_ms: AtomicU64,
    /// Bytes read and written since the connection was admitted.
    moved: AtomicU64,
    /// Conversions of its requests admitted and not yet answered.
    converting: AtomicU64,
}

/// A conversion in flight on a connection: the connection is busy on the server's side,
/// however idle it looks on the wire.
#[derive(Debug)]
pub struct Converting(Arc<ConnInfo>);

impl Drop for Converting {
    fn drop(&mut self) {
        self.0.converting.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Writing this many bytes counts as progress: a client reading its response makes it in
/// milliseconds; an HTTP/2 client that holds a window of 0 and sends PINGs gets a few dozen
/// bytes of PING acknowledgements.
pub const PROGRESS_BYTES: u64 = 64 * 1024;

impl ConnInfo {
    /// A connection admitted now, asked to close after `max_requests` requests.
    pub fn new(max_requests: u64) -> Self {
        Self {
            requests: AtomicU64::new(0),
            max_requests: max_requests.max(1),
            shutdown: Mutex::new(None),
            closing: AtomicBool::new(false),
            http1: AtomicBool::new(false),
            waker: Mutex::new(None),
            opened: Instant::now(),
            aborted: AtomicBool::new(false),
            aborted_notify: tokio::sync::Notify::new(),
            written: AtomicU64::new(0),
            progressed_ms: AtomicU64::new(0),
            moved: AtomicU64::new(0),
            converting: AtomicU64::new(0),
        }
    }

    /// Marks a conversion in flight on the connection until the guard is dropped.
    pub fn converting(self: &Arc<Self>) -> Converting {
        self.converting.fetch_add(1, Ordering::Relaxed);
        Converting(Arc::clone(self))
    }

    fn millis_open(&self) -> u64 {
        u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// When it was admitted and the bytes it moved since.
    fn moved_since_open(&self) -> Moved {
        Moved {
            started: self.opened,
            bytes: self.moved.load(Ordering::Relaxed),
        }
    }

    /// `n` bytes were read or written.
    fn moved(&self, n: usize) {
        self.moved.fetch_add(n as u64, Ordering::Relaxed);
    }

    /// Counts `n` bytes written on the connection.
    fn wrote(&self, n: usize) {
        let total = self.written.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
        if total >= PROGRESS_BYTES {
            self.written.store(0, Ordering::Relaxed);
            self.progressed_ms
                .store(self.millis_open(), Ordering::Relaxed);
        }
    }

    /// How long since the connection last wrote [`PROGRESS_BYTES`] (since it was opened if
    /// it never did).
    pub fn since_progress(&self) -> Duration {
        let at = Duration::from_millis(self.progressed_ms.load(Ordering::Relaxed));
        self.opened.elapsed().saturating_sub(at)
    }

    /// Whether the connection was closed outright.
    pub fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::Relaxed)
    }

    /// Counts a request on the connection (keeping the server's handle to close it); asks
    /// for a graceful close when it is the connection's last.
    ///
    /// The graceful close alone does not announce itself on HTTP/1.1: a response produced
    /// within the poll that read its request (a small review converted inline) is written
    /// before the server's connection task sees the close, which then finds the connection
    /// idle and closes it without `Connection: close`. So the response path asks
    /// [`will_close`](Self::will_close) and sets the header itself (hyper closes the
    /// connection once that response is written).
    pub fn request(&self, shutdown: Option<&ConnectionShutdown>, version: axum::http::Version) {
        let n = self.requests.fetch_add(1, Ordering::Relaxed) + 1;
        if version < axum::http::Version::HTTP_2 {
            self.http1.store(true, Ordering::Relaxed);
        }
        if n >= self.max_requests {
            self.closing.store(true, Ordering::Relaxed);
        }
        if let Some(handle) = shutdown {
            let mut slot = self.shutdown.lock().unwrap_or_else(|e| e.into_inner());
            if slot.is_none() {
                *slot = Some(handle.clone());
            }
        }
        if let Some(handle) = shutdown
            && self.will_close()
        {
            handle.graceful_shutdown();
        }
    }

    /// Whether the connection closes after the response in flight: its last request was
    /// counted, it reached its maximum age, or it was closed outright.
    pub fn will_close(&self) -> bool {
        self.closing.load(Ordering::Relaxed) || self.is_aborted()
    }

    /// Asks the connection to close. HTTP/2: a graceful close (GOAWAY; streams in flight
    /// finish). HTTP/1: the next response says `Connection: close` and the connection closes
    /// after it; closing an idle HTTP/1 connection at once would race a request the client
    /// is sending, which it would find lost (Go does not retry a POST). A connection that
    /// sends no request within the grace is closed outright ([`Guarded`]). Before any
    /// request: closed at the next poll.
    fn close(&self) {
        self.closing.store(true, Ordering::Relaxed);
        if self.http1.load(Ordering::Relaxed) {
            return;
        }
        let handle = self
            .shutdown
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(handle) = handle {
            handle.graceful_shutdown();
        }
    }

    /// Closes the connection outright (streams and responses in flight are dropped): its
    /// next read, write or flush fails, and a request handler waiting on it
    /// ([`aborted`](Self::aborted)) returns.
    pub fn abort(&self) {
        self.aborted.store(true, Ordering::Relaxed);
        self.aborted_notify.notify_waiters();
        let waker = self.waker.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Resolves once the connection is aborted: a handler waiting for body budget, memory or
    /// its conversion stops waiting (hyper does not read a connection whose handler is not
    /// reading its body, so the connection would not notice the abort before).
    pub async fn aborted(&self) {
        let notified = self.aborted_notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if self.is_aborted() {
            return;
        }
        notified.await;
    }

    fn has_handle(&self) -> bool {
        self.shutdown
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }
}

/// An acceptor that admits at most `max_connections` connections at once, queues the ones
/// over the cap fairly, and closes idle, old and much-used ones.
#[derive(Clone, Debug)]
pub struct Limited<A> {
    inner: A,
    permits: Arc<Semaphore>,
    /// Room in the queue of connections waiting for a slot (as many as the cap).
    waiting: Arc<Semaphore>,
    /// Open connections, oldest first.
    open: Arc<Mutex<VecDeque<Weak<ConnInfo>>>>,
    limits: ConnectionLimits,
}

impl<A> Limited<A> {
    /// Wraps `inner` with `limits`.
    pub fn new(inner: A, limits: ConnectionLimits) -> Self {
        let cap = limits.max_connections.max(1);
        Self {
            inner,
            permits: Arc::new(Semaphore::new(cap)),
            waiting: Arc::new(Semaphore::new(cap)),
            open: Arc::new(Mutex::new(VecDeque::new())),
            limits,
        }
    }
}

/// How often a waiting connection that could not make room (every open connection has a
/// conversion in flight) tries again.
const EVICTION_RETRY: Duration = Duration::from_millis(100);

/// Makes room for a waiting connection: closes outright the open connection that comes
/// first by [`closed_first`] (the fewest bytes per second since it was admitted: a client
/// trickling its request body, waiting with its flow-control window full, sending only PINGs
/// or small requests, or idle) among those with no conversion in flight (the API server sends
/// its request at once and reads the answer at once; a connection closed between requests
/// costs it a new connection). Closed and closing entries are dropped from the list on the
/// way. Whether one was closed.
fn evict_for_waiting(open: &Mutex<VecDeque<Weak<ConnInfo>>>) -> bool {
    let mut open = open.lock().unwrap_or_else(|e| e.into_inner());
    open.retain(|w| {
        w.upgrade()
            .is_some_and(|info| !info.closing.load(Ordering::Relaxed) && !info.is_aborted())
    });
    let now = Instant::now();
    let mut victim: Option<(usize, Arc<ConnInfo>)> = None;
    for (i, w) in open.iter().enumerate() {
        let Some(info) = w.upgrade() else { continue };
        if info.converting.load(Ordering::Relaxed) > 0 {
            continue;
        }
        if victim.as_ref().is_none_or(|(_, best)| {
            closed_first(info.moved_since_open(), best.moved_since_open(), now)
        }) {
            victim = Some((i, info));
        }
    }
    let Some((i, info)) = victim else {
        return false;
    };
    open.remove(i);
    info!(
        age_ms = info.opened.elapsed().as_millis() as u64,
        bytes = info.moved.load(Ordering::Relaxed),
        "closing the slowest connection for a waiting one"
    );
    info.abort();
    true
}

type Accepted<S, V> = Pin<Box<dyn Future<Output = io::Result<(S, V)>> + Send>>;

impl<I, S, A> Accept<I, S> for Limited<A>
where
    I: Send + 'static,
    S: Send + 'static,
    A: Accept<I, S> + Clone + Send + Sync + 'static,
    A::Future: Send + 'static,
    A::Stream: HandshakeSlot + Send + 'static,
    A::Service: Send + 'static,
{
    type Stream = Guarded<A::Stream>;
    type Service = WithConn<A::Service>;
    type Future = Accepted<Self::Stream, Self::Service>;

    fn accept(&self, stream: I, service: S) -> Self::Future {
        let this = self.clone();
        let handshake = self.inner.accept(stream, service);
        Box::pin(async move {
            let (mut stream, service) = handshake.await?;
            stream.handshake_done();
            let permit = match Arc::clone(&this.permits).try_acquire_owned() {
                Ok(permit) => permit,
                Err(_) => {
                    let Ok(_queued) = Arc::clone(&this.waiting).try_acquire_owned() else {
                        drop(stream);
                        warn!("connection refused: connection limit and queue full");
                        return Err(io::Error::other("connection limit reached"));
                    };
                    // One eviction per waiting connection; while every open connection is
                    // in its first-request grace, try again as the grace runs out. The
                    // semaphore wait stays queued all along (first come, first served).
                    let mut evicted = evict_for_waiting(&this.open);
                    let wait = Arc::clone(&this.permits).acquire_owned();
                    tokio::pin!(wait);
                    let timeout = tokio::time::sleep(this.limits.queue_timeout);
                    tokio::pin!(timeout);
                    loop {
                        tokio::select! {
                            acquired = &mut wait => match acquired {
                                Ok(permit) => break permit,
                                Err(_) => return Err(io::Error::other("server shutting down")),
                            },
                            () = &mut timeout => {
                                warn!("connection refused: no slot within the queue timeout");
                                return Err(io::Error::other("connection limit reached"));
                            }
                            () = tokio::time::sleep(EVICTION_RETRY), if !evicted => {
                                evicted = evict_for_waiting(&this.open);
                            }
                        }
                    }
                }
            };
            let info = Arc::new(ConnInfo::new(this.limits.max_requests));
            {
                let mut open = this.open.lock().unwrap_or_else(|e| e.into_inner());
                if open.len() >= 2 * this.limits.max_connections.max(1) {
                    open.retain(|w| w.strong_count() > 0);
                }
                open.push_back(Arc::downgrade(&info));
            }
            let service = WithConn {
                inner: service,
                info: Arc::clone(&info),
            };
            Ok((Guarded::new(stream, permit, info, this.limits), service))
        })
    }
}

/// The connection's service: each request carries the connection's [`ConnInfo`] as an
/// extension.
#[derive(Clone, Debug)]
pub struct WithConn<S> {
    inner: S,
    info: Arc<ConnInfo>,
}

impl<S, B> tower_service::Service<axum::http::Request<B>> for WithConn<S>
where
    S: tower_service::Service<axum::http::Request<B>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: axum::http::Request<B>) -> Self::Future {
        request.extensions_mut().insert(Arc::clone(&self.info));
        self.inner.call(request)
    }
}

/// A connection holding its permit, closed (a timed-out read) after `idle` without a byte
/// read or written, asked to close at its maximum age and closed outright `grace` later.
#[derive(Debug)]
pub struct Guarded<S> {
    inner: S,
    _permit: OwnedSemaphorePermit,
    info: Arc<ConnInfo>,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
    /// The maximum age, then (once the close was asked) the outright close.
    age: Pin<Box<Sleep>>,
    aged: bool,
    grace: Duration,
}

impl<S> Guarded<S> {
    fn new(
        inner: S,
        permit: OwnedSemaphorePermit,
        info: Arc<ConnInfo>,
        limits: ConnectionLimits,
    ) -> Self {
        Self {
            inner,
            _permit: permit,
            info,
            idle: limits.idle,
            deadline: Box::pin(tokio::time::sleep(limits.idle)),
            age: Box::pin(tokio::time::sleep(limits.max_age)),
            aged: false,
            grace: limits.grace,
        }
    }

    /// The error of an aborted connection (closed for a newcomer, or holding a budget without
    /// moving).
    fn aborted_error(&self) -> Option<io::Error> {
        self.info.is_aborted().then(|| {
            io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "connection closed by the server (stalled, or the slowest when a newcomer needed its slot)",
            )
        })
    }

    fn active(&mut self, n: usize) {
        self.info.moved(n);
        let idle = self.idle;
        self.deadline.as_mut().reset(Instant::now() + idle);
    }

    /// An error when the connection must close now (idle, past its grace after its maximum
    /// age, or asked to close before any request); else registers for the next deadline.
    fn must_close(&mut self, cx: &mut Context<'_>) -> Option<io::Error> {
        if let Some(e) = self.aborted_error() {
            return Some(e);
        }
        *self.info.waker.lock().unwrap_or_else(|e| e.into_inner()) = Some(cx.waker().clone());
        if self.deadline.as_mut().poll(cx).is_ready() {
            return Some(io::Error::new(io::ErrorKind::TimedOut, "connection idle"));
        }
        if self.age.as_mut().poll(cx).is_ready() {
            if self.aged || !self.info.has_handle() {
                return Some(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "connection past its maximum age",
                ));
            }
            self.aged = true;
            self.info.close();
            let grace = self.grace;
            self.age.as_mut().reset(Instant::now() + grace);
            let _ = self.age.as_mut().poll(cx);
        }
        None
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Guarded<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(e) = self.aborted_error() {
            return Poll::Ready(Err(e));
        }
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(result) => {
                let n = buf.filled().len() - before;
                if n > 0 {
                    self.active(n);
                }
                Poll::Ready(result)
            }
            Poll::Pending => match self.must_close(cx) {
                Some(e) => Poll::Ready(Err(e)),
                None => Poll::Pending,
            },
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Guarded<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if let Some(e) = self.aborted_error() {
            return Poll::Ready(Err(e));
        }
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        match written {
            Poll::Ready(Ok(n)) if n > 0 => {
                self.info.wrote(n);
                self.active(n);
            }
            // A reader that does not read: the idle and abort checks still run.
            Poll::Pending => {
                if let Some(e) = self.must_close(cx) {
                    return Poll::Ready(Err(e));
                }
            }
            _ => {}
        }
        written
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(e) = self.aborted_error() {
            return Poll::Ready(Err(e));
        }
        let flushed = Pin::new(&mut self.inner).poll_flush(cx);
        if flushed.is_pending()
            && let Some(e) = self.must_close(cx)
        {
            return Poll::Ready(Err(e));
        }
        flushed
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
