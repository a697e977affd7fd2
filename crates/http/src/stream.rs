//! Response bodies produced step by step on the query pool, as the client reads them.
//!
//! A request's work is a [`Produce`] state machine: each step runs on the query pool (the one
//! Bolt uses, see `quiver_placement`) and appends about one chunk of the document; only the
//! first step of a request known to be quick runs on the connection's task. The first step
//! decides the status. If the document is complete after it (the common case), the response
//! goes out whole with a `Content-Length`, which keep-alive clients such as ApacheBench
//! require. Otherwise the first chunk goes out at once and the next step starts only when hyper
//! asks for the next frame — that is, once the previous chunk was handed to the socket — so a
//! slow client slows the query down instead of filling memory, and no thread waits on a
//! client: between steps the state machine sits in the response body. A client that goes away
//! drops the body, and with it the state machine, whose `Drop` decides what happens to its
//! transaction.
//!
//! ```text
//! connection task          query pool
//!   respond ───────────────► step 1 ──► (status, first chunk, complete?)
//!   poll_frame ◄── chunk 1
//!   poll_frame ────────────► step 2 ──► chunk 2 ... ──► complete
//! ```

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use bytes::Bytes;
use http::StatusCode;
use hyper::body::{Body, Frame, SizeHint};
use quiver_placement::{JobHandle, Place, Placement, QueryPool, TextKey};

/// The status and headers a producer settled on in its first step.
#[derive(Debug, Clone)]
pub struct Head {
    pub status: StatusCode,
    pub content_type: &'static str,
    pub location: Option<String>,
    /// The Query API's `neo4j-cluster-affinity` header: which member holds the transaction.
    pub affinity: Option<String>,
}

/// A document written in steps.
pub trait Produce: Send + 'static {
    /// Appends the next part of the document to `out`, stopping once `out` holds at least
    /// `chunk_bytes` (or the document is complete); returns true when it is complete.
    fn produce(&mut self, out: &mut Vec<u8>, chunk_bytes: usize) -> bool;

    /// The status and headers, read after the first step.
    fn head(&self) -> Head;
}

type Stepped = (Box<dyn Produce>, Bytes, bool);

/// Runs one step on the query pool.
fn step(
    pool: &QueryPool,
    mut producer: Box<dyn Produce>,
    chunk_bytes: usize,
) -> JobHandle<Stepped> {
    pool.spawn(move || {
        let mut out = Vec::with_capacity(chunk_bytes.min(64 * 1024) + 1024);
        let complete = producer.produce(&mut out, chunk_bytes);
        (producer, Bytes::from(out), complete)
    })
}

/// Runs the first step on `pool` and builds the response around it (later steps run there
/// too). `None` when the step panicked.
pub async fn respond(
    producer: Box<dyn Produce>,
    chunk_bytes: usize,
    pool: &Arc<QueryPool>,
) -> Option<(Head, ResponseBody)> {
    let (producer, first, complete) = step(pool, producer, chunk_bytes).await.ok()?;
    Some(finish(producer, first, complete, chunk_bytes, pool))
}

/// As [`respond`], but the first step runs on the calling task when `placement` says so (the
/// request is known to be quick), and its duration is recorded either way. An inline first step
/// is bounded by `chunk_bytes`, not by the placement's time budget: the producer writes one
/// chunk and stops, and a request that took longer than the budget goes to the pool next time.
pub async fn respond_placed(
    mut producer: Box<dyn Produce>,
    chunk_bytes: usize,
    pool: &Arc<QueryPool>,
    placement: &Placement,
    key: TextKey,
) -> Option<(Head, ResponseBody)> {
    if let Place::Inline { .. } = placement.place(key) {
        let started = Instant::now();
        let mut out = Vec::with_capacity(chunk_bytes.min(64 * 1024) + 1024);
        // A panic is answered as one on the pool would be (with a 500); the producer is
        // dropped, which decides what becomes of its transaction.
        let complete = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            producer.produce(&mut out, chunk_bytes)
        }))
        .ok()?;
        placement.record(key, started.elapsed());
        return Some(finish(
            producer,
            Bytes::from(out),
            complete,
            chunk_bytes,
            pool,
        ));
    }
    let handle = pool.spawn(move || {
        let started = Instant::now();
        let mut out = Vec::with_capacity(chunk_bytes.min(64 * 1024) + 1024);
        let complete = producer.produce(&mut out, chunk_bytes);
        (producer, Bytes::from(out), complete, started.elapsed())
    });
    let (producer, first, complete, elapsed) = handle.await.ok()?;
    placement.record(key, elapsed);
    Some(finish(producer, first, complete, chunk_bytes, pool))
}

fn finish(
    producer: Box<dyn Produce>,
    first: Bytes,
    complete: bool,
    chunk_bytes: usize,
    pool: &Arc<QueryPool>,
) -> (Head, ResponseBody) {
    let head = producer.head();
    let body = if complete {
        drop(producer);
        ResponseBody::full(first)
    } else {
        ResponseBody {
            state: State::Streaming {
                ready: Some(first),
                producer: Some(producer),
                running: None,
                chunk_bytes,
                pool: Arc::clone(pool),
            },
        }
    };
    (head, body)
}

/// The body of every API response.
pub struct ResponseBody {
    state: State,
}

enum State {
    Full(Option<Bytes>),
    Streaming {
        ready: Option<Bytes>,
        /// Between steps; `None` while a step runs or after the last one.
        producer: Option<Box<dyn Produce>>,
        running: Option<JobHandle<Stepped>>,
        chunk_bytes: usize,
        /// Where the next steps run.
        pool: Arc<QueryPool>,
    },
    Done,
}

/// A producer step panicked: the document cannot be completed, so the connection is closed
/// rather than leave the client a truncated body that looks complete.
#[derive(Debug, thiserror::Error)]
#[error("the response could not be completed")]
pub struct StreamAborted;

impl ResponseBody {
    pub fn full(bytes: impl Into<Bytes>) -> ResponseBody {
        ResponseBody {
            state: State::Full(Some(bytes.into())),
        }
    }
}

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = StreamAborted;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, StreamAborted>>> {
        let this = &mut *self;
        loop {
            match &mut this.state {
                State::Full(bytes) => {
                    let bytes = bytes.take();
                    this.state = State::Done;
                    return Poll::Ready(
                        bytes.filter(|b| !b.is_empty()).map(|b| Ok(Frame::data(b))),
                    );
                }
                State::Done => return Poll::Ready(None),
                State::Streaming {
                    ready,
                    producer,
                    running,
                    chunk_bytes,
                    pool,
                } => {
                    if let Some(bytes) = ready.take()
                        && !bytes.is_empty()
                    {
                        return Poll::Ready(Some(Ok(Frame::data(bytes))));
                    }
                    if let Some(handle) = running {
                        let outcome = ready!(Pin::new(handle).poll(cx));
                        *running = None;
                        match outcome {
                            Ok((next, bytes, complete)) => {
                                if complete {
                                    drop(next);
                                    this.state = State::Full(Some(bytes));
                                } else {
                                    *producer = Some(next);
                                    *ready = Some(bytes);
                                }
                            }
                            Err(_) => {
                                this.state = State::Done;
                                return Poll::Ready(Some(Err(StreamAborted)));
                            }
                        }
                        continue;
                    }
                    match producer.take() {
                        Some(next) => *running = Some(step(pool, next, *chunk_bytes)),
                        None => this.state = State::Done,
                    }
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.state {
            State::Full(bytes) => bytes.as_ref().is_none_or(Bytes::is_empty),
            State::Streaming { .. } => false,
            State::Done => true,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.state {
            State::Full(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            State::Streaming { .. } => SizeHint::default(),
            State::Done => SizeHint::with_exact(0),
        }
    }
}

/// A document produced in one step by a closure (errors, rollbacks).
pub struct OneShot<F> {
    work: Option<F>,
    head: Head,
}

impl<F> OneShot<F>
where
    F: FnOnce(&mut Vec<u8>) -> Head + Send + 'static,
{
    pub fn new(work: F) -> OneShot<F> {
        OneShot {
            work: Some(work),
            head: Head {
                status: StatusCode::OK,
                content_type: crate::negotiate::JSON,
                location: None,
                affinity: None,
            },
        }
    }
}

impl<F> Produce for OneShot<F>
where
    F: FnOnce(&mut Vec<u8>) -> Head + Send + 'static,
{
    fn produce(&mut self, out: &mut Vec<u8>, _chunk_bytes: usize) -> bool {
        if let Some(work) = self.work.take() {
            self.head = work(out);
        }
        true
    }

    fn head(&self) -> Head {
        self.head.clone()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use http_body_util::BodyExt;
    use quiver_placement::Policy;

    use super::*;

    fn pool() -> Arc<QueryPool> {
        Arc::new(QueryPool::new(2).expect("query pool"))
    }

    /// Writes `total` digits in steps, recording how many steps ran and whether it was dropped
    /// before completing.
    struct Digits {
        written: usize,
        total: usize,
        steps: Arc<AtomicUsize>,
        dropped_early: Arc<AtomicBool>,
        panic_at_step: Option<usize>,
    }

    impl Produce for Digits {
        fn produce(&mut self, out: &mut Vec<u8>, chunk_bytes: usize) -> bool {
            let step = self.steps.fetch_add(1, Ordering::SeqCst);
            assert!(self.panic_at_step != Some(step), "planned panic");
            while self.written < self.total && out.len() < chunk_bytes {
                out.push(b'0' + (self.written % 10) as u8);
                self.written += 1;
            }
            self.written == self.total
        }

        fn head(&self) -> Head {
            Head {
                status: StatusCode::ACCEPTED,
                content_type: "text/plain",
                location: None,
                affinity: None,
            }
        }
    }

    impl Drop for Digits {
        fn drop(&mut self) {
            if self.written < self.total {
                self.dropped_early.store(true, Ordering::SeqCst);
            }
        }
    }

    fn digits(
        total: usize,
        panic_at_step: Option<usize>,
    ) -> (Box<Digits>, Arc<AtomicUsize>, Arc<AtomicBool>) {
        let steps = Arc::new(AtomicUsize::new(0));
        let dropped = Arc::new(AtomicBool::new(false));
        let producer = Box::new(Digits {
            written: 0,
            total,
            steps: Arc::clone(&steps),
            dropped_early: Arc::clone(&dropped),
            panic_at_step,
        });
        (producer, steps, dropped)
    }

    #[tokio::test]
    async fn small_documents_go_out_whole() {
        let (producer, steps, _) = digits(10, None);
        let (head, body) = respond(producer, 64, &pool()).await.expect("no panic");
        assert_eq!(head.status, StatusCode::ACCEPTED);
        assert_eq!(body.size_hint().exact(), Some(10));
        assert_eq!(steps.load(Ordering::SeqCst), 1);
        let bytes = body.collect().await.expect("complete").to_bytes();
        assert_eq!(&bytes[..], b"0123456789");
    }

    #[tokio::test]
    async fn large_documents_stream_a_step_per_chunk() {
        let (producer, steps, _) = digits(100, None);
        let (_, body) = respond(producer, 8, &pool()).await.expect("no panic");
        assert_eq!(body.size_hint().exact(), None);
        let bytes = body.collect().await.expect("complete").to_bytes();
        assert_eq!(bytes.len(), 100);
        assert_eq!(steps.load(Ordering::SeqCst), 13);
    }

    #[tokio::test]
    async fn no_step_runs_ahead_of_the_reader() {
        let (producer, steps, dropped) = digits(1000, None);
        let (_, mut body) = respond(producer, 8, &pool()).await.expect("no panic");
        let first = body.frame().await.expect("frame").expect("data");
        assert_eq!(first.into_data().map(|d| d.len()).ok(), Some(8));
        tokio::task::yield_now().await;
        assert_eq!(
            steps.load(Ordering::SeqCst),
            1,
            "nothing computed before it is asked for"
        );
        drop(body);
        assert!(
            dropped.load(Ordering::SeqCst),
            "dropping the body drops the producer"
        );
    }

    #[tokio::test]
    async fn a_panicking_step_aborts_the_body() {
        let (producer, _, _) = digits(100, Some(2));
        let (_, body) = respond(producer, 8, &pool())
            .await
            .expect("the first step succeeds");
        assert!(body.collect().await.is_err());
        let (producer, _, _) = digits(100, Some(0));
        assert!(respond(producer, 8, &pool()).await.is_none());
    }

    /// Records the thread its first step ran on.
    struct OnThread(Arc<parking_lot::Mutex<Option<std::thread::ThreadId>>>);

    impl Produce for OnThread {
        fn produce(&mut self, out: &mut Vec<u8>, _: usize) -> bool {
            *self.0.lock() = Some(std::thread::current().id());
            out.extend_from_slice(b"{}");
            true
        }

        fn head(&self) -> Head {
            Head {
                status: StatusCode::OK,
                content_type: "application/json",
                location: None,
                affinity: None,
            }
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_request_known_to_be_quick_runs_on_the_calling_task() {
        let pool = pool();
        let placement = Placement::with_budget(Policy::Adaptive, std::time::Duration::from_secs(5));
        let key = TextKey::of_parts(&[b"/db/neo4j/tx/commit", b"{}"]);
        let here = std::thread::current().id();
        let ran_on = Arc::new(parking_lot::Mutex::new(None));
        for expected_inline in [false, true, true] {
            let producer = Box::new(OnThread(Arc::clone(&ran_on)));
            let (head, body) = respond_placed(producer, 64, &pool, &placement, key)
                .await
                .expect("no panic");
            assert_eq!(head.status, StatusCode::OK);
            assert_eq!(body.size_hint().exact(), Some(2));
            assert_eq!(*ran_on.lock() == Some(here), expected_inline);
        }
        // Slow once: back to the pool (a zero budget makes every step slow).
        let strict = Placement::with_budget(Policy::Adaptive, std::time::Duration::ZERO);
        let producer = Box::new(OnThread(Arc::clone(&ran_on)));
        respond_placed(producer, 64, &pool, &strict, key)
            .await
            .expect("no panic");
        assert!(!strict.is_quick(key));
        assert_ne!(*ran_on.lock(), Some(here));
        // A panic in an inline step is answered like one on the pool.
        let (producer, _, _) = digits(100, Some(1));
        let key = TextKey::of_parts(&[b"/db/neo4j/tx/commit", b"panics"]);
        let (producer_quick, _, _) = digits(1, None);
        respond_placed(producer_quick, 8, &pool, &placement, key)
            .await
            .expect("no panic");
        assert!(placement.is_quick(key));
        let mut producer = producer;
        let mut scratch = Vec::new();
        assert!(
            !producer.produce(&mut scratch, 8),
            "step 0 runs; step 1 panics"
        );
        assert!(
            respond_placed(producer, 8, &pool, &placement, key)
                .await
                .is_none()
        );
    }
}
