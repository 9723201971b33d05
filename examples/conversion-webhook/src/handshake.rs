//! TLS handshakes in progress: a budget of them, held apart from the connection cap, that
//! slow handshakes cannot fill.
//!
//! A connection takes a handshake slot when it is accepted and gives it back when its
//! handshake ends (done, failed or timed out); only then does it ask for a connection slot
//! ([`crate::connection`]). When every handshake slot is taken, a new connection takes the
//! slot of the handshake that has sent the fewest bytes per second so far (ties: the
//! oldest), which is closed; a handshake younger than [`NEWCOMER_GRACE`](crate::eviction::NEWCOMER_GRACE) is safe while an
//! older one remains (else the oldest goes). A client sends its whole ClientHello at once, so
//! a client trickling its handshake (a TLS slowloris, a byte a second) always has a lower
//! rate than one that is really handshaking, and clients reconnecting at once when closed
//! cannot push a newcomer out before its ClientHello arrives. At most 2 KiB of a handshake
//! count: a client padding its ClientHello buys no standing.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Waker};

use axum_server::accept::Accept;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Instant;
use tracing::debug;

use crate::eviction::{Moved, closed_first};

/// The most bytes of a handshake that count towards its rate.
const MAX_CREDITED_BYTES: u64 = 2048;

/// One handshake in progress: when it started and how many bytes it has sent.
#[derive(Debug)]
struct Progress {
    started: Instant,
    bytes: AtomicU64,
    evicted: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Progress {
    /// Closes the handshake: its next read fails.
    fn evict(&self) {
        self.evicted.store(true, Ordering::Relaxed);
        let waker = self.waker.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn moved(&self) -> Moved {
        Moved {
            started: self.started,
            // A client padding its ClientHello buys no standing: a real one is a few hundred
            // bytes, and no more than this counts.
            bytes: self.bytes.load(Ordering::Relaxed).min(MAX_CREDITED_BYTES),
        }
    }
}

/// The inner acceptor of the TLS acceptor: gives each accepted connection a handshake slot
/// and counts the bytes its handshake reads.
#[derive(Clone, Debug)]
pub struct Handshakes {
    slots: Arc<Mutex<Vec<Weak<Progress>>>>,
    max: usize,
}

impl Handshakes {
    /// At most `max` handshakes at once.
    pub fn new(max: usize) -> Self {
        Self {
            slots: Arc::new(Mutex::new(Vec::new())),
            max: max.max(1),
        }
    }

    /// A slot for a new handshake; when all are taken, the slowest handshake's.
    fn admit(&self) -> Arc<Progress> {
        let progress = Arc::new(Progress {
            started: Instant::now(),
            bytes: AtomicU64::new(0),
            evicted: AtomicBool::new(false),
            waker: Mutex::new(None),
        });
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.retain(|w| w.strong_count() > 0);
        if slots.len() >= self.max {
            let now = Instant::now();
            let live: Vec<(usize, Arc<Progress>)> = slots
                .iter()
                .enumerate()
                .filter_map(|(i, w)| Some((i, w.upgrade()?)))
                .collect();
            let victim =
                live.iter().fold(
                    None,
                    |best: Option<&(usize, Arc<Progress>)>, c| match best {
                        Some(b) if !closed_first(c.1.moved(), b.1.moved(), now) => Some(b),
                        _ => Some(c),
                    },
                );
            if let Some((i, victim)) = victim {
                debug!(
                    bytes = victim.bytes.load(Ordering::Relaxed),
                    age_ms = now.saturating_duration_since(victim.started).as_millis() as u64,
                    "closing the slowest TLS handshake for a new connection"
                );
                victim.evict();
                slots.swap_remove(*i);
            }
        }
        slots.push(Arc::downgrade(&progress));
        progress
    }
}

/// Accepted TCP connections get `TCP_NODELAY`: HTTP/2 writes a response's HEADERS and DATA
/// frames separately, and with Nagle's algorithm the second waits for the client's delayed
/// ACK (40 ms on Linux) on every small response.
impl<S> Accept<tokio::net::TcpStream, S> for Handshakes
where
    S: Send + 'static,
{
    type Stream = Counted<tokio::net::TcpStream>;
    type Service = S;
    type Future = std::future::Ready<io::Result<(Counted<tokio::net::TcpStream>, S)>>;

    fn accept(&self, stream: tokio::net::TcpStream, service: S) -> Self::Future {
        if let Err(e) = stream.set_nodelay(true) {
            return std::future::ready(Err(e));
        }
        let progress = Some(self.admit());
        std::future::ready(Ok((
            Counted {
                inner: stream,
                progress,
            },
            service,
        )))
    }
}

/// A connection whose handshake holds a slot: its reads are counted, and fail once the slot
/// was taken by a new connection.
#[derive(Debug)]
pub struct Counted<I> {
    inner: I,
    progress: Option<Arc<Progress>>,
}

impl<I> Counted<I> {
    /// The error of a handshake closed for a new connection (registering for the wake of a
    /// later eviction otherwise).
    fn evicted(&self, cx: &Context<'_>) -> Option<io::Error> {
        let progress = self.progress.as_ref()?;
        if progress.evicted.load(Ordering::Relaxed) {
            return Some(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "TLS handshake closed for a new connection",
            ));
        }
        *progress.waker.lock().unwrap_or_else(|e| e.into_inner()) = Some(cx.waker().clone());
        None
    }

    /// The handshake is over: its slot is given back.
    pub fn handshake_done(&mut self) {
        self.progress = None;
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for Counted<I> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(e) = self.evicted(cx) {
            return Poll::Ready(Err(e));
        }
        let before = buf.filled().len();
        let read = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Some(progress) = &self.progress {
            let n = (buf.filled().len() - before) as u64;
            progress.bytes.fetch_add(n, Ordering::Relaxed);
        }
        read
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Counted<I> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        // A client that reads nothing stalls the handshake in its writes: eviction is seen
        // there too.
        if let Some(e) = self.evicted(cx) {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(e) = self.evicted(cx) {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if let Some(e) = self.evicted(cx) {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// A stream whose TLS handshake may hold a handshake slot.
pub trait HandshakeSlot {
    /// Gives the slot back (the handshake is over).
    fn handshake_done(&mut self);
}

impl<I> HandshakeSlot for tokio_rustls::server::TlsStream<Counted<I>> {
    fn handshake_done(&mut self) {
        self.get_mut().0.handshake_done();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_budget_closes_the_slowest_and_admits_the_new_one() {
        let handshakes = Handshakes::new(2);
        let first = handshakes.admit();
        let second = handshakes.admit();
        assert!(!first.evicted.load(Ordering::Relaxed));
        // Both within their grace: the older goes.
        let third = handshakes.admit();
        assert!(first.evicted.load(Ordering::Relaxed));
        assert!(!second.evicted.load(Ordering::Relaxed));
        assert!(!third.evicted.load(Ordering::Relaxed));
        // A finished handshake gives its slot back: no one is closed.
        drop(second);
        let fourth = handshakes.admit();
        assert!(!third.evicted.load(Ordering::Relaxed));
        assert!(!fourth.evicted.load(Ordering::Relaxed));
    }
}
