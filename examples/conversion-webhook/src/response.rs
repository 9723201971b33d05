//! A response body that keeps its memory accounted until it is written.
//!
//! The converted review is handed to the connection in slices of [`CHUNK_BYTES`]: hyper's
//! HTTP/1.1 writer copies a whole chunk into its own buffer when the connection cannot
//! write vectors (TLS), so one large chunk would leave the review as an untracked copy as
//! soon as hyper took it. In slices, the review stays here (holding its share of the memory
//! budget and its place among the unsent responses) until its last slice is taken.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Frame, SizeHint};
use tokio::sync::OwnedSemaphorePermit;

use crate::holders::Registered;

/// The most a connection takes of a response at once.
pub const CHUNK_BYTES: usize = 64 * 1024;

/// The review's bytes with what they hold: their share of the conversion memory budget (their
/// own size) and their place among the unsent responses, both given back when the last
/// slice is dropped.
struct Held {
    bytes: Vec<u8>,
    _memory: OwnedSemaphorePermit,
    _unsent: Option<Registered>,
}

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

/// The body of a converted review, sent in slices of [`CHUNK_BYTES`].
pub struct HeldBody {
    rest: Bytes,
}

impl HeldBody {
    /// `bytes`, holding `memory` and `unsent` until written.
    pub fn new(bytes: Vec<u8>, memory: OwnedSemaphorePermit, unsent: Option<Registered>) -> Self {
        Self {
            rest: Bytes::from_owner(Held {
                bytes,
                _memory: memory,
                _unsent: unsent,
            }),
        }
    }
}

impl http_body::Body for HeldBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if self.rest.is_empty() {
            // Dropping the last (empty) view gives back what the review held.
            self.rest = Bytes::new();
            return Poll::Ready(None);
        }
        let n = self.rest.len().min(CHUNK_BYTES);
        let chunk = self.rest.split_to(n);
        if self.rest.is_empty() {
            self.rest = Bytes::new();
        }
        Poll::Ready(Some(Ok(Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.rest.len() as u64)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use http_body::Body as _;
    use http_body_util::BodyExt;
    use tokio::sync::Semaphore;

    use super::*;

    #[tokio::test]
    async fn the_body_comes_in_slices_and_gives_its_memory_back_after_the_last() {
        let budget = Arc::new(Semaphore::new(1000));
        let memory = Arc::clone(&budget).acquire_many_owned(300).await.unwrap();
        let bytes: Vec<u8> = (0..CHUNK_BYTES * 2 + 10).map(|i| (i % 251) as u8).collect();
        let mut body = HeldBody::new(bytes.clone(), memory, None);
        assert_eq!(body.size_hint().exact(), Some(bytes.len() as u64));
        let mut got = Vec::new();
        let mut sizes = Vec::new();
        while let Some(frame) = body.frame().await {
            // Every slice but the last leaves the review held.
            assert_eq!(budget.available_permits(), 700);
            let data = frame.unwrap().into_data().unwrap();
            sizes.push(data.len());
            got.extend_from_slice(&data);
        }
        assert_eq!(sizes, vec![CHUNK_BYTES, CHUNK_BYTES, 10]);
        assert_eq!(got, bytes);
        assert!(body.is_end_stream());
        assert_eq!(budget.available_permits(), 1000);
    }
}
