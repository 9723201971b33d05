//! Which of two clients is closed first when a newcomer needs room: the one moving the fewest
//! bytes per second, a newcomer only when no older one remains. The TLS handshake budget
//! ([`crate::handshake`]) and the connection cap ([`crate::connection`]) both choose this way.

use std::time::Duration;

use tokio::time::Instant;

/// How long a newcomer is safe from being closed for a newer one while an older one remains:
/// the time a client has to send its ClientHello, or its first request.
pub const NEWCOMER_GRACE: Duration = Duration::from_millis(250);

/// What the choice reads of a client: when it started and the bytes it moved since.
#[derive(Clone, Copy, Debug)]
pub struct Moved {
    /// When the handshake or connection started.
    pub started: Instant,
    /// Bytes it moved since.
    pub bytes: u64,
}

/// Whether `a` is closed before `b`: one past its [`NEWCOMER_GRACE`] before one within it;
/// among those past it, the fewer bytes per second, then the older; among those within it,
/// the older.
pub fn closed_first(a: Moved, b: Moved, now: Instant) -> bool {
    let a_age = now.saturating_duration_since(a.started);
    let b_age = now.saturating_duration_since(b.started);
    match (a_age >= NEWCOMER_GRACE, b_age >= NEWCOMER_GRACE) {
        (true, false) => true,
        (false, true) => false,
        (false, false) => a.started < b.started,
        (true, true) => {
            let a_rate = u128::from(a.bytes) * b_age.as_nanos();
            let b_rate = u128::from(b.bytes) * a_age.as_nanos();
            a_rate < b_rate || (a_rate == b_rate && a.started < b.started)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slowest_goes_first_and_newcomers_last() {
        let now = Instant::now();
        let ago = |ms: u64| Moved {
            started: now.checked_sub(Duration::from_millis(ms)).unwrap_or(now),
            bytes: 0,
        };
        // A slowloris: 3 bytes in 3 s; a client that sent its ClientHello (300 bytes) and is
        // waiting for its Finished 400 ms in.
        let trickling = Moved {
            bytes: 3,
            ..ago(3000)
        };
        let hello = Moved {
            bytes: 300,
            ..ago(400)
        };
        assert!(closed_first(trickling, hello, now));
        assert!(!closed_first(hello, trickling, now));
        // A newcomer with no byte yet is safe while an older one remains.
        let newcomer = ago(1);
        assert!(closed_first(trickling, newcomer, now));
        assert!(!closed_first(newcomer, trickling, now));
        // Among newcomers the oldest goes first.
        assert!(closed_first(ago(100), newcomer, now));
    }
}
