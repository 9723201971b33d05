//! Failed TLS handshakes, logged as Go's `http.Server` logs them for controller-runtime
//! (`http: TLS handshake error from ADDR: REASON`): at WARN, with the peer's address and the
//! reason, at most one line a second ([`LOG_INTERVAL`]); a line says how many failures were
//! not logged since the one before (`suppressed`). Each failure is counted in the metrics
//! (`conversion_webhook_tls_handshake_errors_total`).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum_server::accept::Accept;
use tracing::warn;

use crate::metrics::Metrics;

/// At most one line per this interval.
pub const LOG_INTERVAL: Duration = Duration::from_secs(1);

/// Lets through at most one event per interval and counts the others.
#[derive(Debug)]
pub struct RateLimiter {
    interval: Duration,
    state: Mutex<(Option<Instant>, u64)>,
}

impl RateLimiter {
    /// At most one event per `interval`.
    #[must_use]
    pub fn new(interval: Duration) -> Self {
        Self {
            interval,
            state: Mutex::new((None, 0)),
        }
    }

    /// An event at `now`: `Some(suppressed)`, the events held back since the last one let
    /// through, when this one is let through; `None` when it is held back.
    pub fn allow(&self, now: Instant) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let (last, suppressed) = &mut *state;
        match last {
            Some(at) if now.saturating_duration_since(*at) < self.interval => {
                *suppressed += 1;
                None
            }
            _ => {
                *last = Some(now);
                Some(std::mem::take(suppressed))
            }
        }
    }
}

/// An acceptor around the TLS acceptor that logs and counts its failed handshakes.
#[derive(Clone, Debug)]
pub struct LoggedHandshakes<A> {
    inner: A,
    limiter: Arc<RateLimiter>,
    metrics: Arc<Metrics>,
}

impl<A> LoggedHandshakes<A> {
    /// Wraps `inner`.
    pub fn new(inner: A, metrics: Arc<Metrics>) -> Self {
        Self {
            inner,
            limiter: Arc::new(RateLimiter::new(LOG_INTERVAL)),
            metrics,
        }
    }
}

impl<S, A> Accept<tokio::net::TcpStream, S> for LoggedHandshakes<A>
where
    A: Accept<tokio::net::TcpStream, S>,
    A::Future: Send + 'static,
{
    type Stream = A::Stream;
    type Service = A::Service;
    type Future = Pin<Box<dyn Future<Output = io::Result<(A::Stream, A::Service)>> + Send>>;

    fn accept(&self, stream: tokio::net::TcpStream, service: S) -> Self::Future {
        let peer = stream.peer_addr().ok();
        let handshake = self.inner.accept(stream, service);
        let limiter = Arc::clone(&self.limiter);
        let metrics = Arc::clone(&self.metrics);
        Box::pin(async move {
            let accepted = handshake.await;
            if let Err(e) = &accepted {
                metrics.handshake_failed();
                log_failure(&limiter, peer, e);
            }
            accepted
        })
    }
}

fn log_failure(limiter: &RateLimiter, peer: Option<SocketAddr>, error: &io::Error) {
    if let Some(suppressed) = limiter.allow(Instant::now()) {
        let peer = peer.map_or_else(|| "unknown".to_owned(), |p| p.to_string());
        warn!(
            peer = %peer,
            error = %error,
            suppressed,
            "TLS handshake error from {peer}: {error}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_a_second_with_the_count_of_the_others() {
        let limiter = RateLimiter::new(Duration::from_secs(1));
        let t0 = Instant::now();
        assert_eq!(limiter.allow(t0), Some(0));
        for ms in [1, 200, 999] {
            assert_eq!(limiter.allow(t0 + Duration::from_millis(ms)), None);
        }
        assert_eq!(limiter.allow(t0 + Duration::from_millis(1000)), Some(3));
        assert_eq!(limiter.allow(t0 + Duration::from_millis(1500)), None);
        assert_eq!(limiter.allow(t0 + Duration::from_secs(5)), Some(1));
    }
}
