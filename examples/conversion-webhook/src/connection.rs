//! Connections: a cap on how many are open at once (each holds TLS buffers, HTTP/1 read
//! buffers or HTTP/2 flow-control windows outside the body budget), an idle timeout that
//! closes a connection on which no byte moved for a while, whatever its protocol (HTTP/2
//! connections have no idle timeout of their own), a maximum age and a maximum number of
//! requests per connection, and a fair queue for connections over the cap.
//!
//! Over the cap, a new connection waits (first come, first served, at most `queue_timeout`)
//! and asks the oldest open connection to close gracefully: an HTTP/1.1 connection closes
//! after its response in flight (at once when idle), an HTTP/2 connection gets a GOAWAY and
//! closes when its streams are done; a connection that never sent a request is closed at
//! once, unless it was admitted less than a second ago (its first request is on its way).
//! So clients that keep every slot busy (`GET /healthz` every few seconds, or HTTP/2 PINGs)
//! cannot keep a new client (the API server) out.

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
    /// The connection's reader, woken to close a connection that never sent a request.
    waker: Mutex<Option<Waker>>,
    /// When the connection was admitted.
    opened: Instant,
}

impl ConnInfo {
    /// Counts a request on the connection (keeping the server's handle to close it); asks
    /// for a graceful close when it is the connection's last.
    pub fn request(&self, shutdown: Option<&ConnectionShutdown>) {
        let n = self.requests.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(handle) = shutdown {
            let mut slot = self.shutdown.lock().unwrap_or_else(|e| e.into_inner());
            if slot.is_none() {
                *slot = Some(handle.clone());
            }
        }
        if let Some(handle) = shutdown
            && (n >= self.max_requests || self.closing.load(Ordering::Relaxed))
        {
            handle.graceful_shutdown();
        }
    }

    /// Asks the connection to close: after its response in flight when a request was seen,
    /// else at once.
    fn close(&self) {
        self.closing.store(true, Ordering::Relaxed);
        let handle = self
            .shutdown
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match handle {
            Some(handle) => handle.graceful_shutdown(),
            None => {
                let waker = self.waker.lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some(waker) = waker {
                    waker.wake();
                }
            }
        }
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

/// How long a connection that has not sent a request yet is safe from eviction: the time a
/// client admitted from the queue has to send its first request. Without it, clients that
/// reconnect at once when closed evicted each other in turn, and a new client admitted
/// between them was closed before its first request.
const FIRST_REQUEST_GRACE: Duration = Duration::from_secs(1);

/// How often a waiting connection that could not evict one (every open connection in its
/// first-request grace) tries again.
const EVICTION_RETRY: Duration = Duration::from_millis(100);

/// Asks the oldest open connection that is not closing yet, and has sent a request or was
/// opened over [`FIRST_REQUEST_GRACE`] ago, to close; closed and closing entries are dropped
/// from the list on the way. Whether one was asked.
fn evict_oldest(open: &Mutex<VecDeque<Weak<ConnInfo>>>) -> bool {
    let mut open = open.lock().unwrap_or_else(|e| e.into_inner());
    open.retain(|w| {
        w.upgrade()
            .is_some_and(|info| !info.closing.load(Ordering::Relaxed))
    });
    let evictable = open.iter().position(|w| {
        w.upgrade().is_some_and(|info| {
            info.requests.load(Ordering::Relaxed) > 0
                || info.opened.elapsed() >= FIRST_REQUEST_GRACE
        })
    });
    if let Some(info) = evictable
        .and_then(|i| open.remove(i))
        .and_then(|w| w.upgrade())
    {
        info!(
            graceful = info.has_handle(),
            "closing the oldest connection for a waiting one"
        );
        info.close();
        return true;
    }
    false
}

type Accepted<S, V> = Pin<Box<dyn Future<Output = io::Result<(S, V)>> + Send>>;

impl<I, S, A> Accept<I, S> for Limited<A>
where
    I: Send + 'static,
    S: Send + 'static,
    A: Accept<I, S> + Clone + Send + Sync + 'static,
    A::Future: Send + 'static,
    A::Stream: Send + 'static,
    A::Service: Send + 'static,
{
    type Stream = Guarded<A::Stream>;
    type Service = WithConn<A::Service>;
    type Future = Accepted<Self::Stream, Self::Service>;

    fn accept(&self, stream: I, service: S) -> Self::Future {
        let this = self.clone();
        let permit = Arc::clone(&self.permits).try_acquire_owned();
        Box::pin(async move {
            let permit = match permit {
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
                    let mut evicted = evict_oldest(&this.open);
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
                                evicted = evict_oldest(&this.open);
                            }
                        }
                    }
                }
            };
            let (stream, service) = this.inner.accept(stream, service).await?;
            let info = Arc::new(ConnInfo {
                requests: AtomicU64::new(0),
                max_requests: this.limits.max_requests.max(1),
                shutdown: Mutex::new(None),
                closing: AtomicBool::new(false),
                waker: Mutex::new(None),
                opened: Instant::now(),
            });
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

    fn active(&mut self) {
        let idle = self.idle;
        self.deadline.as_mut().reset(Instant::now() + idle);
    }

    /// An error when the connection must close now (idle, past its grace after its maximum
    /// age, or asked to close before any request); else registers for the next deadline.
    fn must_close(&mut self, cx: &mut Context<'_>) -> Option<io::Error> {
        if self.info.closing.load(Ordering::Relaxed) && !self.info.has_handle() {
            return Some(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "connection closed for a waiting one",
            ));
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
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    self.active();
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
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            self.active();
        }
        written
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
