//! Connections: a cap on how many are open at once (each holds TLS buffers, HTTP/1 read
//! buffers or HTTP/2 flow-control windows outside the body budget), and an idle timeout that
//! closes a connection on which no byte moved for a while, whatever its protocol (HTTP/2
//! connections have no idle timeout of their own).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum_server::accept::Accept;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};
use tracing::warn;

/// An acceptor that admits at most `permits` connections at once (a connection over the cap
/// is closed at once, before its TLS handshake) and closes idle ones.
#[derive(Clone, Debug)]
pub struct Limited<A> {
    inner: A,
    permits: Arc<Semaphore>,
    idle: Duration,
}

impl<A> Limited<A> {
    /// Wraps `inner`: at most `max_connections` at once, each closed after `idle` without
    /// traffic.
    pub fn new(inner: A, max_connections: usize, idle: Duration) -> Self {
        Self {
            inner,
            permits: Arc::new(Semaphore::new(max_connections.max(1))),
            idle,
        }
    }
}

type Accepted<S, V> = Pin<Box<dyn Future<Output = io::Result<(S, V)>> + Send>>;

impl<I, S, A> Accept<I, S> for Limited<A>
where
    A: Accept<I, S>,
    A::Future: Send + 'static,
    A::Stream: Send + 'static,
    A::Service: Send + 'static,
{
    type Stream = Guarded<A::Stream>;
    type Service = A::Service;
    type Future = Accepted<Self::Stream, Self::Service>;

    fn accept(&self, stream: I, service: S) -> Self::Future {
        let Ok(permit) = Arc::clone(&self.permits).try_acquire_owned() else {
            drop(stream);
            warn!("connection refused: connection limit reached");
            return Box::pin(async { Err(io::Error::other("connection limit reached")) });
        };
        let accepted = self.inner.accept(stream, service);
        let idle = self.idle;
        Box::pin(async move {
            let (stream, service) = accepted.await?;
            Ok((Guarded::new(stream, permit, idle), service))
        })
    }
}

/// A connection holding its permit, closed (a timed-out read) after `idle` without a byte
/// read or written.
#[derive(Debug)]
pub struct Guarded<S> {
    inner: S,
    _permit: OwnedSemaphorePermit,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl<S> Guarded<S> {
    fn new(inner: S, permit: OwnedSemaphorePermit, idle: Duration) -> Self {
        Self {
            inner,
            _permit: permit,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }

    fn active(&mut self) {
        let idle = self.idle;
        self.deadline.as_mut().reset(Instant::now() + idle);
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
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "connection idle",
                ))),
                Poll::Pending => Poll::Pending,
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
