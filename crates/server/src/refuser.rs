//! Refusing clients past the connection limit without a task or an allocation per socket.
//!
//! A flood is exactly when a refusal must be cheap: a task per refused socket (its future, its
//! buffers, its timer) turned each refusal into a few kilobytes and a wake-up of its own, so the
//! number written at once had to be capped low and most of a burst was reset without a word. Here
//! one [`Refuser`] per listener drives every refused socket of that listener: the accept loop hands
//! it the socket (in a queue whose room is reserved up front), and the refuser task reads the
//! little the protocol needs (the Bolt preamble, a manifest choice), writes a reply encoded once
//! at start ([`RefusalScript`]), shuts its write side, reads and discards what the client still
//! sends (so the close is not a reset that destroys the unread reply), and closes. Every socket has
//! a deadline (`--refusal-timeout-ms` after accept); one timer serves them all.
//!
//! How many refused sockets are held at once is bounded by the admission's refusal budget
//! (`--refusals-in-flight-max`); what a held socket costs is its descriptor and a fixed-size
//! entry in a vector sized for the budget when the listener starts.
//!
//! On a listener with TLS on, a client that opens with a TLS handshake record is refused inside
//! TLS: the refuser completes the handshake (with the configuration new connections get), then
//! runs the same script over the session and ends it with a close_notify, so a driver reads the
//! FAILURE (or the 503) instead of bytes that are not TLS. A TLS session costs tens of kilobytes
//! and a handshake's CPU, so at most [`TLS_REFUSALS_HELD_MAX`] are held at once; past that a TLS
//! client is closed without a word, as when the refusal budget is spent. A plain client on such a
//! listener gets the clear refusal it can read.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_rustls::TlsAcceptor;

use crate::admission::RefusalPermit;
use crate::shutdown::ShutdownSignal;
use crate::tls::{HANDSHAKE_RECORD, TlsFront};

/// Most bytes of a client's opening a script looks at (the Bolt preamble is the longest).
pub const OPENING_BYTES_MAX: usize = 20;

/// Once the server drains, how much longer a held refusal may take.
const DRAIN_GRACE: Duration = Duration::from_secs(1);

/// Bytes read and discarded per read while draining a refused socket; one buffer per refuser.
const DRAIN_CHUNK_BYTES: usize = 4096;

/// Most refused sockets held inside TLS at once (each holds a TLS session, tens of kilobytes,
/// where a plain one holds a descriptor): enough to answer a driver's pool that overshoots the
/// limit, few enough that a flood of TLS clients costs a bounded amount of memory.
pub const TLS_REFUSALS_HELD_MAX: usize = 256;

/// What the refuser does next with a refused socket, given what the client sent so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Read more of the client's opening (at most [`OPENING_BYTES_MAX`] in one round).
    Read,
    /// Write the reply numbered `reply` ([`RefusalScript::reply`]). If `last`, the write side is
    /// then shut and the socket drained; otherwise a new round of reading begins.
    Reply { reply: usize, last: bool },
    /// Nothing sensible can be said: close now.
    Close,
}

/// A protocol's refusal, encoded once: a pure function from what the client sent to the next step.
pub trait RefusalScript: Send + Sync + std::fmt::Debug + 'static {
    /// The step for `round` (0 first, one more after each reply that is not the last) given the
    /// bytes read in this round.
    fn step(&self, round: u8, received: &[u8]) -> Step;

    /// The bytes of reply number `reply`, as returned by [`RefusalScript::step`].
    fn reply(&self, reply: usize) -> &[u8];

    /// Most bytes read and discarded after the reply before closing.
    fn drain_bytes_max(&self) -> usize;
}

/// A refused socket's stream: plain, in its TLS handshake, or inside TLS. The TLS states are
/// boxed so that an entry stays small for the many plain refusals.
enum RefusedStream {
    Plain(TcpStream),
    Handshaking(Box<tokio_rustls::Accept<TcpStream>>),
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
    /// The handshake failed; the socket is gone.
    Gone,
}

impl std::fmt::Debug for RefusedStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RefusedStream::Plain(_) => "Plain",
            RefusedStream::Handshaking(_) => "Handshaking",
            RefusedStream::Tls(_) => "Tls",
            RefusedStream::Gone => "Gone",
        })
    }
}

fn not_open() -> std::io::Error {
    std::io::Error::from(std::io::ErrorKind::NotConnected)
}

impl RefusedStream {
    fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self {
            RefusedStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            RefusedStream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
            _ => Poll::Ready(Err(not_open())),
        }
    }

    fn poll_write(&mut self, cx: &mut Context<'_>, bytes: &[u8]) -> Poll<std::io::Result<usize>> {
        match self {
            RefusedStream::Plain(s) => Pin::new(s).poll_write(cx, bytes),
            RefusedStream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, bytes),
            _ => Poll::Ready(Err(not_open())),
        }
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self {
            RefusedStream::Plain(s) => Pin::new(s).poll_flush(cx),
            RefusedStream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
            _ => Poll::Ready(Err(not_open())),
        }
    }

    /// Over TLS: the close_notify and whatever of the reply rustls still holds, then the FIN.
    fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self {
            RefusedStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            RefusedStream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
            _ => Poll::Ready(Err(not_open())),
        }
    }
}

/// One refused socket as the refuser holds it.
#[derive(Debug)]
struct Refused {
    stream: RefusedStream,
    /// Counted in [`TLS_REFUSALS_HELD_MAX`] since its handshake began.
    in_tls: bool,
    deadline: Instant,
    _permit: RefusalPermit,
    phase: Phase,
    round: u8,
    received: u8,
    opening: [u8; OPENING_BYTES_MAX],
}

#[derive(Clone, Copy, Debug)]
enum Phase {
    /// On a listener with TLS on: waiting for the first byte, which says TLS or plain.
    Sniffing,
    Handshaking,
    Opening,
    Writing {
        reply: usize,
        last: bool,
        written: usize,
    },
    /// The last reply is written: flushing it (over TLS) and shutting the write side.
    Closing,
    Draining {
        drained: usize,
    },
}

/// The queue between a listener's accept loop and its refuser task.
#[derive(Debug)]
pub struct Refuser {
    inbox: Mutex<Inbox>,
    capacity: usize,
}

#[derive(Debug)]
struct Inbox {
    sockets: Vec<Refused>,
    waker: Option<Waker>,
    closed: bool,
}

/// What a refuser did, as counted by [`run`]'s caller.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RefuserTally {
    /// Replies written whole.
    pub written: u64,
    /// Sockets whose deadline passed before the reply was out.
    pub timed_out: u64,
}

impl Refuser {
    /// A queue for at most `capacity` refused sockets at once: the admission's refusal budget,
    /// whose permits travel with the sockets, so the queue never grows past what is reserved here.
    pub fn new(capacity: usize) -> Arc<Refuser> {
        Arc::new(Refuser {
            inbox: Mutex::new(Inbox {
                sockets: Vec::with_capacity(capacity),
                waker: None,
                closed: false,
            }),
            capacity,
        })
    }

    /// Hands a refused socket to the refuser task, to be answered by `deadline`. Returns the
    /// socket back if the refuser has stopped.
    pub fn push(
        &self,
        stream: TcpStream,
        deadline: Instant,
        permit: RefusalPermit,
    ) -> Result<(), TcpStream> {
        let waker = {
            let mut inbox = self.inbox.lock().unwrap_or_else(PoisonError::into_inner);
            if inbox.closed {
                return Err(stream);
            }
            inbox.sockets.push(Refused {
                stream: RefusedStream::Plain(stream),
                in_tls: false,
                deadline,
                _permit: permit,
                phase: Phase::Sniffing,
                round: 0,
                received: 0,
                opening: [0; OPENING_BYTES_MAX],
            });
            inbox.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// Moves what the accept loop queued into `held` and leaves `waker` to be woken by the next push.
    fn take(&self, held: &mut Vec<Refused>, waker: &Waker) {
        let mut inbox = self.inbox.lock().unwrap_or_else(PoisonError::into_inner);
        held.append(&mut inbox.sockets);
        match &inbox.waker {
            Some(stored) if stored.will_wake(waker) => {}
            _ => inbox.waker = Some(waker.clone()),
        }
    }

    /// Refuses no more sockets; those queued are closed. Done when the refuser task ends.
    pub fn close(&self) {
        let mut inbox = self.inbox.lock().unwrap_or_else(PoisonError::into_inner);
        inbox.closed = true;
        inbox.sockets.clear();
    }
}

/// Drives every socket handed to `refuser` until the listener stops: when draining begins and
/// nothing is held, or at once when the server stops. `tally` is called as refusals end. With
/// `tls` (the listener's TLS front), clients that open with a TLS handshake are refused inside TLS.
pub async fn run(
    refuser: Arc<Refuser>,
    script: Arc<dyn RefusalScript>,
    tls: Option<Arc<TlsFront>>,
    shutdown: ShutdownSignal,
    mut tally: impl FnMut(RefuserTally) + Send,
) {
    let mut held: Vec<Refused> = Vec::with_capacity(refuser.capacity);
    let mut sink = [0u8; DRAIN_CHUNK_BYTES];
    let mut io = Io {
        script: script.as_ref(),
        tls: tls.as_deref(),
        tls_held: 0,
    };
    let draining = shutdown.draining();
    let stopped = shutdown.stopped();
    let timer = tokio::time::sleep_until(Instant::now());
    tokio::pin!(draining, stopped, timer);
    let mut is_draining = false;
    poll_fn(|cx| {
        loop {
            if stopped.as_mut().poll(cx).is_ready() {
                return Poll::Ready(());
            }
            refuser.take(&mut held, cx.waker());
            let now = Instant::now();
            if !is_draining && draining.as_mut().poll(cx).is_ready() {
                is_draining = true;
                // Shutdown waits for this task: what is held gets a short last chance, not the
                // whole refusal deadline.
                let cut = now + DRAIN_GRACE;
                for refused in &mut held {
                    refused.deadline = refused.deadline.min(cut);
                }
            }
            let mut counts = RefuserTally::default();
            let mut index = 0;
            while index < held.len() {
                let refused = &mut held[index];
                let pending = if refused.deadline <= now {
                    if !matches!(refused.phase, Phase::Draining { .. }) {
                        counts.timed_out += 1;
                    }
                    false
                } else {
                    drive(refused, &mut io, &mut sink, &mut counts, cx).is_pending()
                };
                if pending {
                    index += 1;
                } else {
                    if held[index].in_tls {
                        io.tls_held -= 1;
                    }
                    held.swap_remove(index);
                }
            }
            if counts != RefuserTally::default() {
                tally(counts);
            }
            if is_draining && held.is_empty() {
                return Poll::Ready(());
            }
            let Some(earliest) = held.iter().map(|refused| refused.deadline).min() else {
                return Poll::Pending;
            };
            if timer.deadline() != earliest {
                timer.as_mut().reset(earliest);
            }
            if timer.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
        }
    })
    .await;
}

/// What [`drive`] needs besides the socket: the script, the TLS front, and how many held
/// sockets are in TLS now.
struct Io<'a> {
    script: &'a dyn RefusalScript,
    tls: Option<&'a TlsFront>,
    tls_held: usize,
}

/// [`Phase::Sniffing`]: a plain socket on a TLS listener whose first byte opens a TLS
/// handshake is taken into TLS (while fewer than [`TLS_REFUSALS_HELD_MAX`] are); anything
/// else is refused in clear. `Some` ends the drive with that answer; `None` goes on.
fn sniff(refused: &mut Refused, io: &mut Io<'_>, cx: &mut Context<'_>) -> Option<Poll<()>> {
    let (Some(front), RefusedStream::Plain(socket)) = (io.tls, &refused.stream) else {
        refused.phase = Phase::Opening;
        return None;
    };
    let mut first = [0u8; 1];
    let mut peeked = ReadBuf::new(&mut first);
    match socket.poll_peek(cx, &mut peeked) {
        Poll::Pending => return Some(Poll::Pending),
        Poll::Ready(Err(_) | Ok(0)) => return Some(Poll::Ready(())),
        Poll::Ready(Ok(_)) => {}
    }
    if first[0] != HANDSHAKE_RECORD {
        refused.phase = Phase::Opening;
        return None;
    }
    if io.tls_held >= TLS_REFUSALS_HELD_MAX {
        return Some(Poll::Ready(()));
    }
    let RefusedStream::Plain(socket) = std::mem::replace(&mut refused.stream, RefusedStream::Gone)
    else {
        return Some(Poll::Ready(()));
    };
    let accept = TlsAcceptor::from(front.tls.current()).accept(socket);
    refused.stream = RefusedStream::Handshaking(Box::new(accept));
    refused.in_tls = true;
    io.tls_held += 1;
    refused.phase = Phase::Handshaking;
    None
}

/// [`Phase::Handshaking`]: the refuser's side of the TLS handshake. `Some` ends the drive
/// with that answer; `None` goes on to the opening.
fn handshake(refused: &mut Refused, cx: &mut Context<'_>) -> Option<Poll<()>> {
    let RefusedStream::Handshaking(accept) = &mut refused.stream else {
        return Some(Poll::Ready(()));
    };
    match Pin::new(accept.as_mut()).poll(cx) {
        Poll::Pending => Some(Poll::Pending),
        Poll::Ready(Err(_)) => {
            // The socket went with the failed handshake.
            refused.stream = RefusedStream::Gone;
            Some(Poll::Ready(()))
        }
        Poll::Ready(Ok(tls)) => {
            refused.stream = RefusedStream::Tls(Box::new(tls));
            refused.phase = Phase::Opening;
            None
        }
    }
}

/// [`Phase::Draining`]: what the client still sends after the refusal is read and dropped
/// (up to `max` bytes), so closing does not reset the connection before the client reads
/// the refusal. `Some` ends the drive with that answer; `None` goes on.
fn drain(
    refused: &mut Refused,
    drained: usize,
    max: usize,
    sink: &mut [u8],
    cx: &mut Context<'_>,
) -> Option<Poll<()>> {
    if drained >= max {
        return Some(Poll::Ready(()));
    }
    let mut buffer = ReadBuf::new(sink);
    match refused.stream.poll_read(cx, &mut buffer) {
        Poll::Pending => Some(Poll::Pending),
        Poll::Ready(Err(_)) => Some(Poll::Ready(())),
        Poll::Ready(Ok(())) if buffer.filled().is_empty() => Some(Poll::Ready(())),
        Poll::Ready(Ok(())) => {
            refused.phase = Phase::Draining {
                drained: drained + buffer.filled().len(),
            };
            None
        }
    }
}

/// Advances one refused socket as far as it goes without blocking; ready once it can be closed.
fn drive(
    refused: &mut Refused,
    io: &mut Io<'_>,
    sink: &mut [u8],
    counts: &mut RefuserTally,
    cx: &mut Context<'_>,
) -> Poll<()> {
    let script = io.script;
    loop {
        match refused.phase {
            Phase::Sniffing => {
                if let Some(done) = sniff(refused, io, cx) {
                    return done;
                }
            }
            Phase::Handshaking => {
                if let Some(done) = handshake(refused, cx) {
                    return done;
                }
            }
            Phase::Opening => {
                let received = usize::from(refused.received);
                match script.step(refused.round, &refused.opening[..received]) {
                    Step::Close => return Poll::Ready(()),
                    Step::Reply { reply, last } => {
                        refused.phase = Phase::Writing {
                            reply,
                            last,
                            written: 0,
                        };
                    }
                    Step::Read => {
                        if received >= OPENING_BYTES_MAX {
                            return Poll::Ready(());
                        }
                        let mut buffer = ReadBuf::new(&mut refused.opening[received..]);
                        match refused.stream.poll_read(cx, &mut buffer) {
                            Poll::Pending => return Poll::Pending,
                            Poll::Ready(Err(_)) => return Poll::Ready(()),
                            Poll::Ready(Ok(())) => {
                                let read = buffer.filled().len();
                                if read == 0 {
                                    return Poll::Ready(());
                                }
                                // The buffer holds OPENING_BYTES_MAX, so the sum fits.
                                refused.received = refused
                                    .received
                                    .saturating_add(u8::try_from(read).unwrap_or(u8::MAX));
                            }
                        }
                    }
                }
            }
            Phase::Writing {
                reply,
                last,
                written,
            } => {
                let bytes = script.reply(reply);
                if written < bytes.len() {
                    match refused.stream.poll_write(cx, &bytes[written..]) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(Err(_) | Ok(0)) => return Poll::Ready(()),
                        Poll::Ready(Ok(sent)) => {
                            refused.phase = Phase::Writing {
                                reply,
                                last,
                                written: written + sent,
                            };
                        }
                    }
                } else if last {
                    counts.written += 1;
                    refused.phase = Phase::Closing;
                } else {
                    // Over TLS the reply may still sit in the session: out with it before
                    // waiting for the client's answer to it.
                    match refused.stream.poll_flush(cx) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(Err(_)) => return Poll::Ready(()),
                        Poll::Ready(Ok(())) => {}
                    }
                    refused.phase = Phase::Opening;
                    refused.round = refused.round.saturating_add(1);
                    refused.received = 0;
                }
            }
            Phase::Closing => {
                // A FIN after the reply (over TLS, a close_notify first): the client reads it,
                // then sees the end.
                match refused.stream.poll_shutdown(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Err(_)) => return Poll::Ready(()),
                    Poll::Ready(Ok(())) => refused.phase = Phase::Draining { drained: 0 },
                }
            }
            Phase::Draining { drained } => {
                if let Some(done) = drain(refused, drained, script.drain_bytes_max(), sink, cx) {
                    return done;
                }
            }
        }
    }
}
