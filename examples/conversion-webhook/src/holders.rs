//! What connections hold of the server's budgets, so that the connections that hold it
//! without moving can be closed when others need it.
//!
//! Two kinds of holding are registered ([`Holders`], one ledger each):
//!
//! * **Responses handed to the connection but not yet written.** A client may stop reading:
//!   an HTTP/1.1 client that leaves its TCP window full, an HTTP/2 client that advertises a
//!   flow-control window of 0 (RFC 9113 §5.2 lets a receiver do so) while it keeps the
//!   connection alive with PINGs. Its responses stay in memory and keep their share of the
//!   conversion memory budget. The server closes the connection of a response unsent for the
//!   write timeout, and, while a conversion waits for memory, of any response unsent for
//!   [`STALL_GRACE`] on a connection that wrote less than [`PROGRESS_BYTES`] meanwhile (the API
//!   server reads a response as soon as it comes).
//! * **Small request bodies being read** (the small bodies' share of the body budget): while
//!   a small body waits for budget, the connections reading a small body for [`STALL_GRACE`]
//!   or longer are closed (the API server sends a small body at once).
//!
//! Closing a connection drops its streams, bodies and responses, which gives their budget
//! back.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::time::Instant;
use tracing::warn;

use crate::connection::ConnInfo;
#[cfg(doc)]
use crate::connection::PROGRESS_BYTES;

/// While others wait for the budget it holds, a response unsent this long on a connection
/// that made no progress for as long is taken as not read, and a small body read this long as
/// trickled.
pub const STALL_GRACE: Duration = Duration::from_millis(250);

#[derive(Debug)]
struct Entry {
    id: u64,
    since: Instant,
    bytes: usize,
    conn: Weak<ConnInfo>,
}

/// One kind of holding, over all connections.
#[derive(Debug, Default)]
pub struct Holders {
    entries: Mutex<Vec<Entry>>,
    next: AtomicU64,
}

/// A holding's place in [`Holders`], given up when it is dropped (the response written, the
/// body read, or either dropped with its connection).
#[derive(Debug)]
pub struct Registered {
    ledger: Arc<Holders>,
    id: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut entries = self
            .ledger
            .entries
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(i) = entries.iter().position(|e| e.id == self.id) {
            entries.swap_remove(i);
        }
    }
}

impl Holders {
    /// Registers a holding of `bytes` by `conn`, from now.
    pub fn register(self: &Arc<Self>, conn: &Arc<ConnInfo>, bytes: usize) -> Registered {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Entry {
                id,
                since: Instant::now(),
                bytes,
                conn: Arc::downgrade(conn),
            });
        Registered {
            ledger: Arc::clone(self),
            id,
        }
    }

    /// Closes the connections with a holding registered `older_than` ago or longer (and, with
    /// `idle`, that made no progress for `older_than` either); how many holdings they had.
    pub fn close_stalled(&self, older_than: Duration, idle: bool, why: &'static str) -> usize {
        let now = Instant::now();
        // Chosen under the lock, closed and logged after it (the holdings' drops take it).
        let stalled: Vec<(Arc<ConnInfo>, Duration, usize)> = {
            let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            entries
                .iter()
                .filter(|e| now.saturating_duration_since(e.since) >= older_than)
                .filter_map(|e| Some((e.conn.upgrade()?, e)))
                .filter(|(conn, _)| !conn.is_aborted())
                .filter(|(conn, _)| !idle || conn.since_progress() >= older_than)
                .map(|(conn, e)| (conn, now.saturating_duration_since(e.since), e.bytes))
                .collect()
        };
        for (conn, held, bytes) in &stalled {
            warn!(
                held_ms = held.as_millis() as u64,
                bytes, why, "closing a connection that holds a budget without moving"
            );
            conn.abort();
        }
        stalled.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_written_response_leaves_and_an_unread_one_closes_its_connection() {
        let ledger = Arc::new(Holders::default());
        let reader = Arc::new(ConnInfo::new(10));
        let stalled = Arc::new(ConnInfo::new(10));
        let written = ledger.register(&reader, 100);
        let _unread = ledger.register(&stalled, 100);
        drop(written);
        assert_eq!(
            ledger
                .entries
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .len(),
            1
        );
        // Not yet past the grace: nothing closed.
        assert_eq!(
            ledger.close_stalled(Duration::from_secs(60), false, "test"),
            0
        );
        assert!(!stalled.is_aborted());
        assert_eq!(ledger.close_stalled(Duration::ZERO, true, "test"), 1);
        assert!(stalled.is_aborted());
        assert!(!reader.is_aborted());
    }
}
