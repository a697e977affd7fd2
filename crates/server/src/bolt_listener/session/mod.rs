//! A Bolt connection after the handshake: the message loop.
//!
//! Reads are two-phase (wait for readability without a buffer, then read into one), so an idle
//! connection holds no read or write buffer at all: per-connection memory at rest is the task, the
//! socket and this struct. Replies to everything already buffered (a pipelined batch) are encoded
//! into one write buffer and written with one flush; a large result is written whenever
//! [`FLUSH_BYTES`] have gathered.
//!
//! The submodules hold the rest of a session: authentication and routing (`login`), the query
//! path (`query`: RUN, PULL, DISCARD, BEGIN, COMMIT, ROLLBACK, RESET), the open transaction and its
//! counters (`tx`), where engine work runs and what the connection watches meanwhile (`work`),
//! and the translation of engine results into Bolt metadata (`reply`).

mod login;
mod query;
mod reply;
mod tx;
mod work;

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use bytes::BytesMut;
use quiver_bolt::chunk::{Dechunker, buffered_signatures};
use quiver_bolt::message::signature::RESET;
use quiver_bolt::message::{encode_ignored, peek_signature};
use quiver_bolt::meta::{self, Failure, Position};
use quiver_bolt::state::{Admitted, Decision, Outcome, Session, State};
use quiver_bolt::{Codec, Request, Version};
use quiver_status::Status;
use tokio::time::{Instant, Sleep};

use super::BoltShared;
use crate::auth::Principal;
use crate::connections::ConnectionEntry;
use crate::deadline::{Interrupted, Until, race_kept};
use crate::shutdown::ShutdownSignal;
use crate::tls::ClientStream;
use tx::OpenTx;

/// Bytes read from the socket at a time.
pub const READ_CHUNK_BYTES: usize = 8 * 1024;
/// An outbox holding this much is written out before more replies are encoded.
pub const FLUSH_BYTES: usize = 64 * 1024;
/// The database name reported to drivers (Quiver serves one graph).
pub use crate::routing::DATABASE;

/// How a session ended, for counting and logs.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    /// The client closed, said GOODBYE, or broke the protocol and was told why.
    Finished,
    /// The handshake/authentication or idle deadline passed.
    TimedOut,
    /// The server is draining or stopping.
    Shutdown,
    /// A socket error.
    Io,
}

/// One connection's session state.
pub struct BoltSession {
    stream: ClientStream,
    peer: SocketAddr,
    shared: Arc<BoltShared>,
    shutdown: ShutdownSignal,
    version: Version,
    /// The negotiated version's codec (with 4.4's UTC patch once acknowledged).
    codec: Codec<'static>,
    protocol: Session,
    dechunker: Dechunker,
    /// Lent by the listener's pool while it holds bytes; unallocated while idle.
    read_buffer: BytesMut,
    /// Replies to the current batch, lent by the pool when a message arrives and given back
    /// once flushed, so an idle connection holds no write buffer.
    outbox: BytesMut,
    /// Set by a successful authentication, cleared by LOGOFF.
    principal: Option<Principal>,
    /// Admitted into an administrator's slot: only an administrator may stay.
    reserved_slot: bool,
    /// Handshake and authentication must be done by then.
    auth_deadline: Instant,
    /// After the first successful authentication the idle deadline applies (also after LOGOFF).
    authenticated_once: bool,
    /// Formatted into `bolt-N` only when HELLO is answered: a long-lived string per connection
    /// would pin heap fragments for the connection's life.
    connection_number: u64,
    /// What the client called us (`routing.address` in HELLO), for the routing table.
    routing_address: Option<String>,
    /// Close once the pending replies are written.
    closing: bool,
    /// A keep-alive was cut short by a full socket buffer: its second byte goes out first.
    noop_half_sent: bool,
    /// RESETs spotted in the read buffer ahead of their turn and announced to the state machine.
    resets_announced: u32,
    /// Flushes so far: tells whether a request's replies are all still in the outbox.
    flushes: u64,
    /// Bytes arrived since the read buffer was last searched for RESETs.
    unscanned: bool,
    /// The open transaction: an auto-commit one while its result streams, or an explicit one.
    /// Boxed, so that a connection without one pays a pointer.
    tx: Option<Box<OpenTx>>,
    /// This connection in the server's list (`dbms.listConnections()`), left when dropped.
    listed: ConnectionEntry,
    /// The deadline of every wait on the socket, kept and moved rather than made per wait.
    timer: Pin<Box<Sleep>>,
    /// A message is being handled: counted in the in-flight gauge until it is answered (or the
    /// session is dropped mid-message).
    in_flight: bool,
}

/// A connection whose handshake agreed on a version: what a session starts from.
pub struct SessionStart {
    pub stream: ClientStream,
    pub peer: SocketAddr,
    pub shutdown: ShutdownSignal,
    pub version: Version,
    /// Bytes the client sent behind its handshake (pipelined requests).
    pub leftover: BytesMut,
    /// Admitted into an administrator's slot.
    pub reserved_slot: bool,
    /// Handshake and authentication must be done by then.
    pub auth_deadline: Instant,
}

impl BoltSession {
    pub fn new(start: SessionStart, shared: Arc<BoltShared>) -> BoltSession {
        let SessionStart {
            stream,
            peer,
            shutdown,
            version,
            leftover,
            reserved_slot,
            auth_deadline,
        } = start;
        let connection_number = shared.next_connection_id();
        let listed = shared
            .connections
            .open(connection_number, peer, stream.local_addr().ok());
        let message_bytes_max = usize::try_from(shared.message_bytes_max).unwrap_or(usize::MAX);
        // Requests pipelined behind the handshake move into a buffer of the pool, which the
        // session gives back when it has consumed them.
        let read_buffer = if leftover.is_empty() {
            BytesMut::new()
        } else {
            let mut buffer = shared.buffers.take();
            buffer.extend_from_slice(&leftover);
            buffer
        };
        BoltSession {
            stream,
            peer,
            shared,
            shutdown,
            version,
            codec: Codec::new(version),
            protocol: Session::new(version),
            dechunker: Dechunker::new(message_bytes_max),
            read_buffer,
            outbox: BytesMut::new(),
            principal: None,
            reserved_slot,
            auth_deadline,
            authenticated_once: false,
            connection_number,
            routing_address: None,
            closing: false,
            noop_half_sent: false,
            resets_announced: 0,
            flushes: 0,
            unscanned: true,
            tx: None,
            listed,
            timer: Box::pin(tokio::time::sleep_until(auth_deadline)),
            in_flight: false,
        }
    }

    /// Serves the connection to its end. A transaction still open then (the client left, the
    /// server stopped) is rolled back and counted as abandoned.
    pub async fn run(mut self) -> End {
        let end = self.serve().await;
        if let Some(tx) = self.tx.take() {
            Box::pin(self.abandon(tx)).await;
        }
        end
    }

    async fn serve(&mut self) -> End {
        loop {
            while !self.closing {
                match self.dechunker.decode(&mut self.read_buffer) {
                    Ok(Some(message)) => {
                        self.shared.metrics.bolt_messages.inc();
                        self.lend_outbox();
                        if peek_signature(&message) == Some(RESET) && self.resets_announced > 0 {
                            self.resets_announced -= 1;
                        }
                        self.shared.metrics.bolt.in_flight.inc();
                        self.in_flight = true;
                        // Boxed: a request's state is large and short-lived; inline, every idle
                        // connection would carry room for it.
                        let gone = Box::pin(self.handle(&message)).await;
                        self.shared.metrics.bolt.in_flight.dec();
                        self.in_flight = false;
                        if let Some(end) = gone {
                            return end;
                        }
                        if self.outbox.len() >= FLUSH_BYTES
                            && let Err(end) = self.flush().await
                        {
                            return end;
                        }
                    }
                    Ok(None) => break,
                    Err(error) => {
                        self.lend_outbox();
                        self.fail(error.status_code(), &error.to_string(), None);
                        self.closing = true;
                    }
                }
            }
            if let Err(end) = self.flush().await {
                return end;
            }
            // The batch is answered: the outbox goes back before the wait for the next one.
            self.shared.buffers.give(std::mem::take(&mut self.outbox));
            if self.closing {
                let _ = self.stream.shutdown().await;
                return End::Finished;
            }
            if let Err(end) = self.read_more().await {
                return end;
            }
        }
    }

    /// Waits for more bytes, racing the right deadline and shutdown. An explicit transaction
    /// whose timeout passes meanwhile is rolled back at once (its locks and versions freed); the
    /// client learns of it at its next request.
    ///
    /// Bytes that arrived while the last batch was answered are read at once, without arming a
    /// timer or watching shutdown (a pipelining or busy client's every read); only a read that
    /// would wait races the deadlines.
    async fn read_more(&mut self) -> Result<(), End> {
        if self.shutdown.is_stopped() || (self.tx.is_none() && self.shutdown.is_draining()) {
            return Err(End::Shutdown);
        }
        if !self.authenticated_once && Instant::now() >= self.auth_deadline {
            return Err(End::TimedOut);
        }
        if self.try_read()? {
            return Ok(());
        }
        let idle_deadline = if self.authenticated_once {
            Instant::now() + self.shared.idle_timeout
        } else {
            self.auth_deadline
        };
        let silent_since = Instant::now();
        loop {
            // An idle connection may be closed when draining starts; one with an open transaction
            // is left to commit or roll back until the server stops.
            let until = if self.tx.is_some() {
                Until::Stop
            } else {
                Until::Drain
            };
            let tx_deadline = self.tx.as_ref().and_then(|tx| tx.pending_deadline());
            // An open transaction whose client is silent too long is ended like one past its
            // timeout, so its writes stop holding other writers out.
            let idle_tx = self
                .shared
                .idle_transaction_timeout
                .filter(|_| self.tx.as_ref().is_some_and(|tx| !tx.expired));
            let idle_tx_deadline = idle_tx.map(|idle| silent_since + idle);
            let deadline = [tx_deadline, idle_tx_deadline]
                .into_iter()
                .flatten()
                .fold(idle_deadline, Instant::min);
            let readable = race_kept(
                self.stream.readable(),
                self.timer.as_mut(),
                deadline,
                &self.shutdown,
                until,
            );
            match readable.await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Err(End::Io),
                Err(Interrupted::Deadline) if tx_deadline.is_some_and(|at| at <= deadline) => {
                    if let Some(tx) = self.tx.take() {
                        let tx = Box::pin(self.expire(tx)).await;
                        self.tx = Some(tx);
                    }
                    continue;
                }
                Err(Interrupted::Deadline) if idle_tx_deadline.is_some_and(|at| at <= deadline) => {
                    if let Some(mut tx) = self.tx.take() {
                        tx.idle_expired = idle_tx;
                        let tx = Box::pin(self.expire(tx)).await;
                        self.tx = Some(tx);
                    }
                    continue;
                }
                Err(Interrupted::Deadline) => return Err(End::TimedOut),
                Err(Interrupted::Draining | Interrupted::Stopped) => return Err(End::Shutdown),
            }
            if self.try_read()? {
                return Ok(());
            }
        }
    }

    /// Reads what the socket holds now into the read buffer, borrowed from the listener's pool
    /// for as long as it holds bytes. `Ok(false)`: nothing there yet (the buffer goes back).
    fn try_read(&mut self) -> Result<bool, End> {
        self.lend_read_buffer();
        let read = self.stream.try_read_buf(&mut self.read_buffer);
        if self.read_buffer.is_empty() {
            self.shared
                .buffers
                .give(std::mem::take(&mut self.read_buffer));
        }
        match read {
            Ok(0) => Err(End::Finished),
            Ok(_) => {
                self.unscanned = true;
                Ok(true)
            }
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => Ok(false),
            Err(_) => Err(End::Io),
        }
    }

    /// Writes every pending reply in one write. The emptied outbox stays with the session for
    /// the rest of the batch; the message loop gives it back before waiting for the client.
    ///
    /// A plain socket usually takes a batch's replies whole: they are written at once, and only
    /// a socket that is full (a client not reading) is waited on, under the deadline.
    async fn flush(&mut self) -> Result<(), End> {
        if self.noop_half_sent {
            // The rest of a keep-alive cut short must precede anything else on the wire.
            let mut bytes = self.shared.buffers.take();
            bytes.extend_from_slice(&[0]);
            bytes.extend_from_slice(&self.outbox);
            let replaced = std::mem::replace(&mut self.outbox, bytes);
            self.shared.buffers.give(replaced);
            self.noop_half_sent = false;
        }
        if self.outbox.is_empty() {
            return Ok(());
        }
        let mut bytes = std::mem::take(&mut self.outbox);
        self.flushes += 1;
        self.shared.metrics.bolt_flushes.inc();
        // A TLS stream's records must be flushed as well: the full path below does both.
        let written = if self.stream.is_tls() {
            Ok(0)
        } else {
            match self.stream.try_write(&bytes) {
                Ok(written) => Ok(written),
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => Ok(0),
                Err(_) => Err(End::Io),
            }
        };
        let outcome = match written {
            Ok(written) if written == bytes.len() => Ok(()),
            Ok(written) => match race_kept(
                self.stream.write_all(&bytes[written..]),
                self.timer.as_mut(),
                Instant::now() + self.shared.idle_timeout,
                &self.shutdown,
                Until::Stop,
            )
            .await
            {
                Ok(Ok(())) => Ok(()),
                Ok(Err(_)) => Err(End::Io),
                Err(Interrupted::Deadline) => Err(End::TimedOut),
                Err(_) => Err(End::Shutdown),
            },
            Err(end) => Err(end),
        };
        bytes.clear();
        self.outbox = bytes;
        outcome
    }

    /// Makes room in the read buffer for one socket read, borrowing it from the pool when the
    /// session holds none.
    fn lend_read_buffer(&mut self) {
        if self.read_buffer.capacity() == 0 {
            self.read_buffer = self.shared.buffers.take();
        } else {
            self.read_buffer.reserve(READ_CHUNK_BYTES);
        }
    }

    /// Lends the session an outbox from the pool when it holds none.
    fn lend_outbox(&mut self) {
        if self.outbox.capacity() == 0 {
            self.outbox = self.shared.buffers.take();
        }
    }

    /// Queues a FAILURE in the connection's version's format.
    fn fail(&mut self, code: Status, message: &str, position: Option<Position>) {
        let failure = Failure {
            code,
            message,
            position,
        };
        if let Err(error) = failure.encode(&mut self.outbox, self.version) {
            tracing::warn!(peer = %self.peer, %error, "cannot encode a FAILURE; closing");
            self.closing = true;
        }
    }

    fn succeed_empty(&mut self) {
        meta::encode_success_empty(&mut self.outbox);
    }

    /// Outcome of an encoding: a reply that cannot be encoded becomes a FAILURE.
    fn encoded(&mut self, encoded: Result<(), quiver_bolt::Error>) -> Outcome {
        match encoded {
            Ok(()) => Outcome::Success,
            Err(error) => {
                self.fail(error.status_code(), &error.to_string(), None);
                Outcome::Failure
            }
        }
    }

    /// Looks ahead in the read buffer for RESETs that have not had their turn. Each one found
    /// is announced to the state machine, which then IGNOREs everything before it; returns
    /// whether the session is now interrupted (so running work should stop).
    fn notice_resets(&mut self) -> bool {
        if !self.unscanned || self.dechunker.is_mid_message() {
            // Nothing new arrived (RESETs already counted leave the count as they are decoded),
            // or the buffer does not start at a message boundary.
            return self.protocol.state() == State::Interrupted;
        }
        self.unscanned = false;
        let buffered = buffered_signatures(&self.read_buffer)
            .filter(|signature| *signature == RESET)
            .count();
        let buffered = u32::try_from(buffered).unwrap_or(u32::MAX);
        while self.resets_announced < buffered {
            self.protocol.interrupt();
            self.resets_announced += 1;
        }
        self.protocol.state() == State::Interrupted
    }

    /// Decodes and answers one message. `Some` when the connection is gone (client left, server
    /// stopped) while the request ran.
    async fn handle(&mut self, message: &[u8]) -> Option<End> {
        // A RESET buffered behind this message overtakes it, as it would in Neo4j, which
        // interrupts as soon as a RESET is read off the socket.
        self.notice_resets();
        let request = match Request::decode(message, &self.codec) {
            Ok(request) => request,
            Err(error) => {
                tracing::debug!(peer = %self.peer, %error, "undecodable Bolt message");
                match self.protocol.reject(&error) {
                    Decision::Fail { code, message } => self.fail(code, &message, None),
                    Decision::Violation { code, message } => {
                        self.fail(code, &message, None);
                        self.closing = true;
                    }
                    Decision::Ignore => encode_ignored(&mut self.outbox),
                    Decision::Close | Decision::Process(_) => self.closing = true,
                }
                return None;
            }
        };
        match self.protocol.admit(&request) {
            Decision::Process(admitted) => {
                let mark = (self.outbox.len(), self.flushes);
                let (outcome, gone) = self.process(admitted, request).await;
                if gone.is_some() {
                    return gone;
                }
                if admitted != Admitted::Reset && self.protocol.state() == State::Interrupted {
                    // A RESET overtook this request: its reply is IGNORED, whatever it produced.
                    if self.flushes == mark.1 {
                        self.outbox.truncate(mark.0);
                    }
                    encode_ignored(&mut self.outbox);
                }
                self.protocol.complete(outcome);
                if self.protocol.is_defunct() {
                    self.closing = true;
                }
            }
            Decision::Ignore => encode_ignored(&mut self.outbox),
            Decision::Fail { code, message } => self.fail(code, &message, None),
            Decision::Violation { code, message } => {
                self.fail(code, &message, None);
                self.closing = true;
            }
            Decision::Close => self.closing = true,
        }
        None
    }

    async fn process(&mut self, admitted: Admitted, request: Request) -> (Outcome, Option<End>) {
        let outcome = match (admitted, request) {
            (Admitted::Hello, Request::Hello { extra }) => Box::pin(self.hello(extra)).await,
            (Admitted::Logon, Request::Logon { auth }) => Box::pin(self.logon(auth)).await,
            (Admitted::Logoff, _) => {
                self.principal = None;
                self.listed.set_user(None);
                self.succeed_empty();
                Outcome::Success
            }
            (Admitted::Telemetry, _) => {
                self.succeed_empty();
                Outcome::Success
            }
            (Admitted::Route, Request::Route { routing, extra, .. }) => {
                self.route(&routing, &extra)
            }
            (Admitted::Reset, _) => return self.reset().await,
            (
                Admitted::Run { qid },
                Request::Run {
                    query,
                    params,
                    extra,
                },
            ) => return self.run_query(qid, query, params, extra).await,
            (Admitted::Begin, Request::Begin { extra }) => return self.begin(extra).await,
            (Admitted::Commit, _) => return self.commit().await,
            (Admitted::Rollback, _) => return self.rollback().await,
            (Admitted::Pull { qid }, Request::Pull { n, .. }) => {
                return self.stream_records(qid, n, false).await;
            }
            (Admitted::Discard { qid }, Request::Discard { n, .. }) => {
                return self.stream_records(qid, n, true).await;
            }
            (admitted, request) => {
                // The state machine pairs each admitted kind with its own request; answer rather
                // than trust that.
                tracing::warn!(peer = %self.peer, ?admitted, request = request.name(), "request without a handler");
                self.fail(
                    Status::RequestInvalid,
                    &format!("{} is not available.", request.name()),
                    None,
                );
                Outcome::Failure
            }
        };
        (outcome, None)
    }
}

impl Drop for BoltSession {
    /// A session cut anywhere (its client gone mid-message, the server stopping) gives its
    /// buffers back and its message's in-flight count, so both gauges stay true.
    fn drop(&mut self) {
        if self.in_flight {
            self.shared.metrics.bolt.in_flight.dec();
        }
        self.shared
            .buffers
            .give(std::mem::take(&mut self.read_buffer));
        self.shared.buffers.give(std::mem::take(&mut self.outbox));
    }
}

use crate::routing::is_known_database;
