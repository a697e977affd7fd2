//! Per-connection deadlines for HTTP/1, enforced inside the socket wrapper hyper reads through.
//!
//! hyper 1 has one knob, `header_read_timeout`, and it also runs while a keep-alive connection waits
//! for its next request, so "idle for a minute" and "dribbling headers for ten seconds" cannot be told
//! apart. Here the connection's phase decides which deadline a pending read is held to:
//!
//! | phase | entered when                                  | a pending read must progress by |
//! |-------|-----------------------------------------------|---------------------------------|
//! | Head  | accept; first byte after an idle period       | phase start + header read       |
//! | Busy  | a request reached the service                 | (none: body reads are timed by the service) |
//! | Idle  | the last response body was dropped            | phase start + keep-alive        |
//!
//! Writes that make no progress (a client that stops reading its response) are held to a stall
//! deadline in every phase. A fired deadline turns into a `TimedOut` I/O error, which makes hyper
//! close the connection.
//!
//! A wrapper made with [`WatchedIo::handing_over`] does not wait out the idle phase at all: a read
//! that would wait while the connection is idle ends hyper's connection instead (it reads the end
//! of the stream), so the listener takes the socket back and waits for the next request without
//! hyper's buffers (see `HttpProtocol::serve`). Bytes hyper had read but not parsed then (the
//! start of a pipelined request whose head arrived split) go back with the socket and are handed
//! to the next wrapper as its [`WatchedIo::with_prefix`], which reads them before the socket.
//!
//! hyper reads only when its state machine asks to. A request without a body (a health probe, a
//! `GET`) leaves it reading for the client's next bytes while the response is still being
//! written; that read waits, and once the response is out hyper does not read again: it waits
//! for the socket, with its buffers. So a read that had to wait while a request was in the
//! service is remembered, and the flush that finds the connection idle afterwards wakes the
//! task once: hyper polls its read again, which now hands over.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

const HEAD: u8 = 0;
const IDLE: u8 = 1;

/// Deadlines of one HTTP connection.
#[derive(Clone, Copy, Debug)]
pub struct WatchLimits {
    pub header_read: Duration,
    pub keep_alive: Duration,
    pub write_stall: Duration,
}

/// Shared between the socket wrapper and the service; atomics because hyper requires both to be
/// `Send`, though they run on the connection's one task.
#[derive(Debug)]
pub struct Activity {
    origin: Instant,
    /// HEAD or IDLE while no request is in the service.
    phase: AtomicU8,
    /// Milliseconds after `origin` the phase began.
    phase_since_ms: AtomicU64,
    /// Requests in the service whose response body is not yet dropped.
    busy: AtomicU32,
    /// Set when a deadline closed the connection, so it is counted once as timed out.
    timed_out: AtomicBool,
}

impl Activity {
    pub fn new(origin: Instant) -> Arc<Activity> {
        Arc::new(Activity {
            origin,
            phase: AtomicU8::new(HEAD),
            phase_since_ms: AtomicU64::new(0),
            busy: AtomicU32::new(0),
            timed_out: AtomicBool::new(false),
        })
    }

    /// A request entered the service.
    pub fn request_started(&self) {
        self.busy.fetch_add(1, Ordering::AcqRel);
    }

    /// A response body was dropped (fully written, or abandoned).
    pub fn request_finished(&self) {
        if self.busy.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.enter(IDLE);
        }
    }

    /// True once a deadline fired on this connection.
    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Acquire)
    }

    /// Marks the connection as closed by a deadline (also used by the body-read deadline).
    pub fn mark_timed_out(&self) {
        self.timed_out.store(true, Ordering::Release);
    }

    fn enter(&self, phase: u8) {
        let since = self.origin.elapsed().as_millis() as u64;
        self.phase_since_ms.store(since, Ordering::Release);
        self.phase.store(phase, Ordering::Release);
    }

    fn bytes_arrived(&self) {
        if self.busy.load(Ordering::Acquire) == 0 && self.phase.load(Ordering::Acquire) == IDLE {
            self.enter(HEAD);
        }
    }

    /// The start of a request's head is already read (held back across a handover): the header
    /// deadline applies from now, not the keep-alive one.
    pub fn head_started(&self) {
        if self.busy.load(Ordering::Acquire) == 0 {
            self.enter(HEAD);
        }
    }

    /// Idle between requests: nothing in the service and no byte of a next request read.
    fn is_idle(&self) -> bool {
        self.busy.load(Ordering::Acquire) == 0 && self.phase.load(Ordering::Acquire) == IDLE
    }

    /// When a read waiting now must have made progress: `None` while a request is in the
    /// service (its body reads are timed there).
    pub fn read_deadline(&self, limits: &WatchLimits) -> Option<Instant> {
        if self.busy.load(Ordering::Acquire) > 0 {
            return None;
        }
        let since =
            self.origin + Duration::from_millis(self.phase_since_ms.load(Ordering::Acquire));
        let allowed = if self.phase.load(Ordering::Acquire) == HEAD {
            limits.header_read
        } else {
            limits.keep_alive
        };
        Some(since + allowed)
    }
}

/// A socket whose reads and writes are held to the [`Activity`] deadlines.
pub struct WatchedIo<S> {
    inner: S,
    /// Read before `inner`: bytes of a request an earlier wrapper's reader took off the socket.
    prefix: bytes::Bytes,
    activity: Arc<Activity>,
    limits: WatchLimits,
    /// Made when a read or write first has to wait: most requests never need one.
    read_timer: Option<Pin<Box<Sleep>>>,
    read_armed: Option<Instant>,
    write_timer: Option<Pin<Box<Sleep>>>,
    write_armed: Option<Instant>,
    /// End hyper's connection at the first wait while idle, rather than waiting.
    hand_over: bool,
    handed_over: bool,
    /// The last read waited while a request was in the service: when the connection turns
    /// idle, hyper must be made to read again for the handover to happen.
    read_waited_busy: bool,
    /// Everything hyper wrote has been flushed (it flushes after writing the last of a
    /// response): a response whose body is queued but not yet written keeps the connection.
    flushed: bool,
}

impl<S> WatchedIo<S> {
    pub fn new(inner: S, activity: Arc<Activity>, limits: WatchLimits) -> WatchedIo<S> {
        WatchedIo {
            inner,
            prefix: bytes::Bytes::new(),
            activity,
            limits,
            read_timer: None,
            read_armed: None,
            write_timer: None,
            write_armed: None,
            hand_over: false,
            handed_over: false,
            read_waited_busy: false,
            flushed: true,
        }
    }

    /// A wrapper whose reader sees the end of the stream once the connection is idle and the
    /// socket has nothing more, so the caller gets the socket back from hyper.
    pub fn handing_over(inner: S, activity: Arc<Activity>, limits: WatchLimits) -> WatchedIo<S> {
        WatchedIo {
            hand_over: true,
            ..WatchedIo::new(inner, activity, limits)
        }
    }

    /// Reads `prefix` (bytes already taken off the socket) before the socket's own bytes.
    pub fn with_prefix(self, prefix: bytes::Bytes) -> WatchedIo<S> {
        WatchedIo { prefix, ..self }
    }

    /// Whether the end of the stream hyper read was the handover, not the client's.
    pub fn handed_over(&self) -> bool {
        self.handed_over
    }

    pub fn into_inner(self) -> S {
        self.inner
    }

    fn expired(&self, what: &str) -> io::Error {
        self.activity.mark_timed_out();
        io::Error::new(io::ErrorKind::TimedOut, format!("{what} deadline passed"))
    }
}

/// Arms `timer` for `deadline` (making it on first use, re-arming only when the deadline
/// moved) and reports whether it fired.
fn fired(
    timer: &mut Option<Pin<Box<Sleep>>>,
    armed: &mut Option<Instant>,
    deadline: Instant,
    cx: &mut Context<'_>,
) -> bool {
    let timer = timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
    if *armed != Some(deadline) {
        timer.as_mut().reset(deadline);
        *armed = Some(deadline);
    }
    timer.as_mut().poll(cx).is_ready()
}

impl<S: AsyncRead + Unpin> AsyncRead for WatchedIo<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.read_waited_busy = false;
        if !this.prefix.is_empty() && buf.remaining() > 0 {
            let taken = this.prefix.len().min(buf.remaining());
            buf.put_slice(&this.prefix.split_to(taken));
            this.activity.bytes_arrived();
            return Poll::Ready(Ok(()));
        }
        let filled = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > filled {
                    this.activity.bytes_arrived();
                }
                Poll::Ready(result)
            }
            Poll::Pending => {
                if this.hand_over
                    && this.flushed
                    && this.activity.is_idle()
                    && !this.activity.timed_out()
                {
                    this.handed_over = true;
                    return Poll::Ready(Ok(()));
                }
                this.read_waited_busy = this.hand_over && !this.activity.is_idle();
                if let Some(deadline) = this.activity.read_deadline(&this.limits)
                    && fired(&mut this.read_timer, &mut this.read_armed, deadline, cx)
                {
                    let what = if this.activity.phase.load(Ordering::Acquire) == HEAD {
                        "header read"
                    } else {
                        "keep-alive"
                    };
                    return Poll::Ready(Err(this.expired(what)));
                }
                Poll::Pending
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> WatchedIo<S> {
    /// Runs one write-side poll under the stall deadline. Only a poll that moved bytes
    /// (`progressed`) restarts the deadline: a flush that completes with nothing written, as a
    /// plain socket's always does, is no sign that the client reads.
    fn watch_write<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: impl FnOnce(Pin<&mut S>, &mut Context<'_>) -> Poll<io::Result<T>>,
        progressed: fn(&io::Result<T>) -> bool,
    ) -> Poll<io::Result<T>> {
        match poll(Pin::new(&mut self.inner), cx) {
            Poll::Ready(result) => {
                if progressed(&result) {
                    self.write_armed = None;
                }
                Poll::Ready(result)
            }
            Poll::Pending => {
                let deadline = match self.write_armed {
                    Some(deadline) => deadline,
                    None => Instant::now() + self.limits.write_stall,
                };
                if fired(&mut self.write_timer, &mut self.write_armed, deadline, cx) {
                    return Poll::Ready(Err(self.expired("write stall")));
                }
                Poll::Pending
            }
        }
    }
}

/// A write that took bytes (or failed: the error ends the connection anyway).
fn wrote(result: &io::Result<usize>) -> bool {
    !matches!(result, Ok(0))
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WatchedIo<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.flushed = false;
        this.watch_write(cx, |inner, cx| inner.poll_write(cx, buf), wrote)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.flushed = false;
        this.watch_write(cx, |inner, cx| inner.poll_write_vectored(cx, bufs), wrote)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let flushed = this.watch_write(cx, AsyncWrite::poll_flush, |_| false);
        if let Poll::Ready(Ok(())) = flushed {
            this.flushed = true;
            // Once per waiting read, so a hyper that does not read now cannot be woken in a loop.
            if this.read_waited_busy && this.activity.is_idle() {
                this.read_waited_busy = false;
                cx.waker().wake_by_ref();
            }
        }
        flushed
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(Pin::new(&mut this.inner).poll_shutdown(cx))?;
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: WatchLimits = WatchLimits {
        header_read: Duration::from_secs(10),
        keep_alive: Duration::from_secs(60),
        write_stall: Duration::from_secs(30),
    };

    #[tokio::test(start_paused = true)]
    async fn phases_choose_the_deadline() {
        let origin = Instant::now();
        let activity = Activity::new(origin);
        assert_eq!(
            activity.read_deadline(&LIMITS),
            Some(origin + LIMITS.header_read)
        );
        activity.request_started();
        assert_eq!(activity.read_deadline(&LIMITS), None);
        tokio::time::advance(Duration::from_secs(3)).await;
        activity.request_finished();
        let idle_deadline = activity
            .read_deadline(&LIMITS)
            .expect("idle has a deadline");
        assert!(idle_deadline >= origin + Duration::from_secs(3) + LIMITS.keep_alive);
        tokio::time::advance(Duration::from_secs(5)).await;
        activity.bytes_arrived();
        let head_deadline = activity
            .read_deadline(&LIMITS)
            .expect("head has a deadline");
        assert!(head_deadline >= origin + Duration::from_secs(8) + LIMITS.header_read);
        assert!(head_deadline < idle_deadline);
    }

    /// Counts the wakes of a task.
    #[derive(Default)]
    struct Wakes(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }

        fn wake_by_ref(self: &Arc<Self>) {
            self.0.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// hyper's read for the next request waits while it answers a request without a body; the
    /// flush that finds the connection idle afterwards wakes the task once, and the read hyper
    /// then makes hands the connection over.
    #[test]
    fn a_read_that_waited_while_busy_is_woken_to_hand_over() {
        let (client, server) = tokio::io::duplex(1024);
        let activity = Activity::new(Instant::now());
        let mut io = WatchedIo::handing_over(server, Arc::clone(&activity), LIMITS);
        let wakes = Arc::new(Wakes::default());
        let waker = std::task::Waker::from(Arc::clone(&wakes));
        let mut cx = Context::from_waker(&waker);
        let woken = || wakes.0.load(Ordering::Acquire);
        let mut byte = [0u8; 1];

        activity.request_started();
        let mut buf = ReadBuf::new(&mut byte);
        assert!(Pin::new(&mut io).poll_read(&mut cx, &mut buf).is_pending());
        let written = Pin::new(&mut io).poll_write(&mut cx, b"response");
        assert!(matches!(written, Poll::Ready(Ok(8))));
        activity.request_finished();
        let before = woken();
        assert!(matches!(
            Pin::new(&mut io).poll_flush(&mut cx),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(woken(), before + 1, "the idle flush wakes the task");
        assert!(matches!(
            Pin::new(&mut io).poll_flush(&mut cx),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(woken(), before + 1, "once");

        let mut buf = ReadBuf::new(&mut byte);
        assert!(matches!(
            Pin::new(&mut io).poll_read(&mut cx, &mut buf),
            Poll::Ready(Ok(()))
        ));
        assert!(buf.filled().is_empty());
        assert!(io.handed_over());
        drop(client);
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_peer_times_out_at_the_header_deadline() {
        use tokio::io::AsyncReadExt;
        let (client, server) = tokio::io::duplex(64);
        let activity = Activity::new(Instant::now());
        let mut io = WatchedIo::new(server, Arc::clone(&activity), LIMITS);
        let mut buf = [0u8; 8];
        let error = io.read(&mut buf).await.expect_err("deadline");
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert!(activity.timed_out());
        drop(client);
    }
}
