//! A Bolt connection after the handshake: the message loop.
//!
//! Reads are two-phase (wait for readability without a buffer, then read into one), so an idle
//! connection holds no read or write buffer at all: per-connection memory at rest is the task, the
//! socket and this struct. Replies to everything already buffered (a pipelined batch) are encoded
//! into one write buffer and written with one flush (a large reply is written whenever
//! [`FLUSH_BYTES`] have gathered).
//!
//! Until the query engine is wired in, the session serves the handshake, authentication (HELLO,
//! LOGON, LOGOFF), RESET, TELEMETRY, ROUTE and GOODBYE, and answers RUN and BEGIN with a transient
//! `DatabaseUnavailable` FAILURE: it never pretends to run a query.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::BytesMut;
use quiver_bolt::chunk::Dechunker;
use quiver_bolt::message::{Auth, encode_ignored};
use quiver_bolt::meta::{self, Failure, HelloSuccess, Role, RoutingTable};
use quiver_bolt::state::{Admitted, Decision, Outcome, Session};
use quiver_bolt::{Codec, Request, Version};
use quiver_value::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::BoltShared;
use crate::auth::{Credentials, Principal};
use crate::deadline::{Interrupted, Until, race};
use crate::metrics::IntGauge;
use crate::shutdown::ShutdownSignal;

/// Bytes read from the socket at a time.
pub const READ_CHUNK_BYTES: usize = 8 * 1024;
/// An outbox holding this much is written out before more replies are encoded.
pub const FLUSH_BYTES: usize = 64 * 1024;
/// The database name reported to drivers (Quiver serves one graph).
pub const DATABASE: &str = "neo4j";
/// How long drivers may cache the single-node routing table.
pub const ROUTING_TTL_SECONDS: i64 = 300;

pub const UNAUTHORIZED: &str = "Neo.ClientError.Security.Unauthorized";
pub const REQUEST_INVALID: &str = "Neo.ClientError.Request.Invalid";
pub const DATABASE_UNAVAILABLE: &str = "Neo.TransientError.General.DatabaseUnavailable";
pub const SERVICE_UNAVAILABLE: &str = "Neo.TransientError.General.ServiceUnavailable";
pub const DATABASE_NOT_FOUND: &str = "Neo.ClientError.Database.DatabaseNotFound";

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
    stream: TcpStream,
    peer: SocketAddr,
    shared: Arc<BoltShared>,
    shutdown: ShutdownSignal,
    version: Version,
    /// 4.4's `patch_bolt: ["utc"]` was acknowledged. (The codec itself is rebuilt per message: it
    /// holds a `&dyn ZoneResolver` that is not `Sync`, so it cannot live across an await.)
    utc_patch: bool,
    protocol: Session,
    dechunker: Dechunker,
    /// Empty (unallocated) while idle.
    read_buffer: BytesMut,
    /// Replies to the current batch; grows as needed and is released (unallocated) once flushed,
    /// so an idle connection holds no write buffer.
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
}

impl BoltSession {
    pub fn new(
        stream: TcpStream,
        peer: SocketAddr,
        shared: Arc<BoltShared>,
        shutdown: ShutdownSignal,
        version: Version,
        leftover: BytesMut,
        reserved_slot: bool,
        auth_deadline: Instant,
    ) -> BoltSession {
        let connection_number = shared.next_connection_id();
        let message_bytes_max = usize::try_from(shared.message_bytes_max).unwrap_or(usize::MAX);
        BoltSession {
            stream,
            peer,
            shared,
            shutdown,
            version,
            utc_patch: false,
            protocol: Session::new(version),
            dechunker: Dechunker::new(message_bytes_max),
            read_buffer: leftover,
            outbox: BytesMut::new(),
            principal: None,
            reserved_slot,
            auth_deadline,
            authenticated_once: false,
            connection_number,
            routing_address: None,
            closing: false,
        }
    }

    /// Serves the connection to its end.
    pub async fn run(mut self) -> End {
        loop {
            while !self.closing {
                match self.dechunker.decode(&mut self.read_buffer) {
                    Ok(Some(message)) => {
                        self.shared.metrics.bolt_messages.inc();
                        let in_flight = InFlight::start(&self.shared.metrics.bolt.in_flight);
                        // Boxed: a request's state is large and short-lived; inline, every idle
                        // connection would carry room for it.
                        Box::pin(self.handle(&message)).await;
                        drop(in_flight);
                        if self.outbox.len() >= FLUSH_BYTES {
                            if let Err(end) = self.flush().await {
                                return end;
                            }
                        }
                    }
                    Ok(None) => break,
                    Err(error) => {
                        self.fail(error.status_code(), &error.to_string());
                        self.closing = true;
                    }
                }
            }
            if let Err(end) = self.flush().await {
                return end;
            }
            if self.closing {
                let _ = self.stream.shutdown().await;
                return End::Finished;
            }
            if let Err(end) = self.read_more().await {
                return end;
            }
        }
    }

    /// Waits for more bytes, racing the right deadline and shutdown.
    async fn read_more(&mut self) -> Result<(), End> {
        if self.read_buffer.is_empty() {
            // Idle connections keep no buffer (the dechunker keeps its own partial message).
            self.read_buffer = BytesMut::new();
        }
        let deadline = if self.authenticated_once {
            Instant::now() + self.shared.idle_timeout
        } else {
            self.auth_deadline
        };
        // An idle connection may be closed when draining starts; one with an open transaction is
        // left to commit or roll back until the server stops.
        let until = if self.protocol.in_transaction() {
            Until::Stop
        } else {
            Until::Drain
        };
        loop {
            match race(self.stream.readable(), deadline, &self.shutdown, until).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Err(End::Io),
                Err(Interrupted::Deadline) => return Err(End::TimedOut),
                Err(Interrupted::Draining | Interrupted::Stopped) => return Err(End::Shutdown),
            }
            self.read_buffer.reserve(READ_CHUNK_BYTES);
            match self.stream.try_read_buf(&mut self.read_buffer) {
                Ok(0) => return Err(End::Finished),
                Ok(_) => return Ok(()),
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(_) => return Err(End::Io),
            }
        }
    }

    /// Writes every pending reply in one write and frees the outbox.
    async fn flush(&mut self) -> Result<(), End> {
        if self.outbox.is_empty() {
            return Ok(());
        }
        let bytes = std::mem::take(&mut self.outbox);
        match race(
            self.stream.write_all(&bytes),
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
        }
    }

    fn codec(&self) -> Codec<'static> {
        let codec = Codec::new(self.version);
        if self.utc_patch {
            codec.with_utc_patch()
        } else {
            codec
        }
    }

    fn outbox(&mut self) -> &mut BytesMut {
        &mut self.outbox
    }

    /// Queues a FAILURE in the connection's version's format.
    fn fail(&mut self, code: &str, message: &str) {
        let version = self.version;
        let failure = Failure {
            code,
            message,
            position: None,
        };
        if let Err(error) = failure.encode(self.outbox(), version) {
            tracing::warn!(peer = %self.peer, %error, "cannot encode a FAILURE; closing");
            self.closing = true;
        }
    }

    fn succeed_empty(&mut self) {
        meta::encode_success_empty(self.outbox());
    }

    async fn handle(&mut self, message: &[u8]) {
        let decoded = Request::decode(message, &self.codec());
        let request = match decoded {
            Ok(request) => request,
            Err(error) => {
                // The state machine cannot be told about a request it never saw, so an undecodable
                // message ends the connection, with the reason.
                tracing::debug!(peer = %self.peer, %error, "undecodable Bolt message");
                self.fail(error.status_code(), &error.to_string());
                self.closing = true;
                return;
            }
        };
        match self.protocol.admit(&request) {
            Decision::Process(admitted) => {
                let outcome = self.process(admitted, request).await;
                self.protocol.complete(outcome);
                if self.protocol.is_defunct() {
                    self.closing = true;
                }
            }
            Decision::Ignore => encode_ignored(self.outbox()),
            Decision::Fail { code, message } => self.fail(code, &message),
            Decision::Violation { code, message } => {
                self.fail(code, &message);
                self.closing = true;
            }
            Decision::Close => self.closing = true,
        }
    }

    async fn process(&mut self, admitted: Admitted, request: Request) -> Outcome {
        match (admitted, request) {
            (Admitted::Hello, Request::Hello { extra }) => {
                self.routing_address =
                    extra
                        .routing
                        .as_ref()
                        .and_then(|routing| match routing.get("address") {
                            Some(Value::String(address)) if !address.is_empty() => {
                                Some(address.to_string())
                            }
                            _ => None,
                        });
                let utc_patch = self.version < Version::V5_0
                    && extra.patch_bolt.iter().any(|patch| patch == "utc");
                self.utc_patch = utc_patch;
                if let Some(auth) = extra.auth {
                    // 4.4 and 5.0 authenticate in HELLO.
                    if !Box::pin(self.authenticate(auth)).await {
                        return Outcome::Failure;
                    }
                }
                let connection_id = format!("bolt-{}", self.connection_number);
                let hello = HelloSuccess {
                    server: meta::SERVER_AGENT,
                    connection_id: &connection_id,
                    recv_timeout_seconds: None,
                    telemetry_enabled: false,
                    ssr_enabled: false,
                    utc_patch,
                };
                let version = self.version;
                let encoded = hello.encode(self.outbox(), version);
                self.encoded(encoded)
            }
            (Admitted::Logon, Request::Logon { auth }) => {
                if Box::pin(self.authenticate(auth)).await {
                    self.succeed_empty();
                    Outcome::Success
                } else {
                    Outcome::Failure
                }
            }
            (Admitted::Logoff, _) => {
                self.principal = None;
                self.succeed_empty();
                Outcome::Success
            }
            (Admitted::Telemetry | Admitted::Reset, _) => {
                self.succeed_empty();
                Outcome::Success
            }
            (Admitted::Route, Request::Route { routing, extra, .. }) => {
                if let Some(db) = extra.db.as_deref().filter(|db| !is_known_database(db)) {
                    self.fail(
                        DATABASE_NOT_FOUND,
                        &format!("Database does not exist: {db}"),
                    );
                    return Outcome::Failure;
                }
                let address = match routing.get("address") {
                    Some(Value::String(address)) if !address.is_empty() => address.to_string(),
                    _ => self.advertised_address(),
                };
                self.routing_table(&address)
            }
            (Admitted::Run { .. } | Admitted::Begin, _) => {
                let message = if self.shutdown.is_draining() {
                    "The server is shutting down."
                } else {
                    "Quiver is running without a query engine: queries cannot be run yet."
                };
                self.fail(DATABASE_UNAVAILABLE, message);
                Outcome::Failure
            }
            (admitted, request) => {
                // The state machine only admits these inside a stream or transaction, which this
                // session never opens; answer rather than trust that.
                tracing::warn!(peer = %self.peer, ?admitted, request = request.name(), "request without a handler");
                self.fail(
                    REQUEST_INVALID,
                    &format!("{} is not available.", request.name()),
                );
                Outcome::Failure
            }
        }
    }

    fn encoded(&mut self, encoded: Result<(), quiver_bolt::Error>) -> Outcome {
        match encoded {
            Ok(()) => Outcome::Success,
            Err(error) => {
                self.fail(error.status_code(), &error.to_string());
                Outcome::Failure
            }
        }
    }

    fn routing_table(&mut self, address: &str) -> Outcome {
        let addresses = [address.to_owned()];
        let servers = [
            (Role::Write, &addresses[..]),
            (Role::Read, &addresses[..]),
            (Role::Route, &addresses[..]),
        ];
        let table = RoutingTable {
            ttl_seconds: ROUTING_TTL_SECONDS,
            db: DATABASE,
            servers: &servers,
        };
        let encoded = table.encode(self.outbox());
        self.encoded(encoded)
    }

    /// The address this client reached us at: always reachable by it, unlike a wildcard bind.
    fn advertised_address(&self) -> String {
        self.routing_address.clone().unwrap_or_else(|| {
            self.stream
                .local_addr()
                .map_or_else(|_| "localhost:7687".to_owned(), |addr| addr.to_string())
        })
    }

    /// Checks credentials (racing the authentication deadline); on failure queues the FAILURE.
    async fn authenticate(&mut self, auth: Auth) -> bool {
        let credentials = match auth.scheme.as_str() {
            "none" => Credentials::None,
            "basic" => Credentials::Basic {
                principal: auth.principal.unwrap_or_default(),
                password: auth.credentials.unwrap_or_default(),
            },
            other => Credentials::Other(other.to_owned()),
        };
        let users = Arc::clone(&self.shared.users);
        let verdict = race(
            users.authenticate(self.peer.ip(), credentials),
            self.auth_deadline,
            &self.shutdown,
            Until::Stop,
        )
        .await;
        let principal = match verdict {
            Ok(Ok(principal)) => principal,
            Ok(Err(error)) => {
                tracing::debug!(peer = %self.peer, %error, "Bolt authentication failed");
                self.fail(error.neo4j_code(), &error.to_string());
                return false;
            }
            Err(_) => {
                self.fail(UNAUTHORIZED, "Authentication did not complete in time.");
                return false;
            }
        };
        if self.reserved_slot && !principal.admin {
            self.shared.metrics.bolt.rejected.inc();
            let message = format!(
                "The server is at its limit of {} connections; the remaining ones are reserved for administrators.",
                self.shared.connections_max
            );
            self.fail(SERVICE_UNAVAILABLE, &message);
            return false;
        }
        self.principal = Some(principal);
        self.authenticated_once = true;
        true
    }
}

/// Counts a message as in flight until dropped, so a session cut mid-message (the server stopping)
/// still gives its count back.
struct InFlight(IntGauge);

impl InFlight {
    fn start(gauge: &IntGauge) -> InFlight {
        gauge.inc();
        InFlight(gauge.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.dec();
    }
}

fn is_known_database(name: &str) -> bool {
    name.eq_ignore_ascii_case(DATABASE) || name.eq_ignore_ascii_case("system")
}
