//! A limit on the bytes one print of this module may write, scoped to the current thread.
//!
//! A ConversionReview handler cannot pass a size limit through every converter, yet the
//! converters print with this module ([`super::to_vec`], [`super::to_raw_value`]); within
//! [`with_output_limit`], every such print stops (with an error) as soon as it would pass the
//! limit, before its buffer grows further, so an oversized output never exists whole.

use std::cell::Cell;
use std::io;

thread_local! {
    static LIMIT: Cell<Option<usize>> = const { Cell::new(None) };
    static HIT: Cell<bool> = const { Cell::new(false) };
}

/// A print within [`with_output_limit`] would have written more than the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the printed JSON would exceed the limit of {limit} bytes")]
pub struct OutputLimitExceeded {
    /// The limit, in bytes.
    pub limit: usize,
}

/// Restores the enclosing scope's limit, also when `f` unwinds.
struct Scope {
    previous: Option<usize>,
    previous_hit: bool,
}

impl Drop for Scope {
    fn drop(&mut self) {
        LIMIT.with(|l| l.set(self.previous));
        HIT.with(|h| h.set(self.previous_hit));
    }
}

/// Runs `f` with every print of this module on this thread limited to `limit` bytes each;
/// `Err` when one of them reached the limit (whatever `f` made of that print's error).
///
/// ```
/// use capi_machinepool_api::wire;
/// let small = wire::with_output_limit(20, || wire::to_string("<<<")).unwrap();
/// assert_eq!(small.unwrap(), r#""\u003c\u003c\u003c""#);
/// let big = wire::with_output_limit(20, || wire::to_string("<<<<<<<<"));
/// assert_eq!(big.unwrap_err().limit, 20);
/// ```
///
/// # Errors
/// [`OutputLimitExceeded`] when a print within `f` would have passed `limit`.
pub fn with_output_limit<R>(limit: usize, f: impl FnOnce() -> R) -> Result<R, OutputLimitExceeded> {
    let scope = Scope {
        previous: LIMIT.with(|l| l.replace(Some(limit))),
        previous_hit: HIT.with(|h| h.replace(false)),
    };
    let result = f();
    let hit = HIT.with(Cell::get);
    drop(scope);
    if hit {
        Err(OutputLimitExceeded { limit })
    } else {
        Ok(result)
    }
}

/// The limit of the current scope, if any.
pub(super) fn current() -> Option<usize> {
    LIMIT.with(Cell::get)
}

/// Records that the limit was reached; the error a print returns.
#[cold]
fn exceeded(limit: usize) -> io::Error {
    HIT.with(|h| h.set(true));
    io::Error::other(OutputLimitExceeded { limit })
}

/// A buffer that refuses to take more than `limit` bytes after `start`.
pub(super) struct Bounded<'a> {
    pub(super) out: &'a mut Vec<u8>,
    /// Where this print starts in `out` (the limit counts the bytes after it).
    pub(super) start: usize,
    pub(super) limit: usize,
}

impl io::Write for Bounded<'_> {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    // `serde_json` writes through `write_all`, a few bytes at a time: this is its hot path.
    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if buf.len() > self.limit.saturating_sub(self.out.len() - self.start) {
            return Err(exceeded(self.limit));
        }
        self.out.extend_from_slice(buf);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Counts the bytes written, failing past `limit`.
pub(super) struct Counter {
    pub(super) written: usize,
    pub(super) limit: usize,
}

impl io::Write for Counter {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written += buf.len();
        if self.written > self.limit {
            return Err(exceeded(self.limit));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
