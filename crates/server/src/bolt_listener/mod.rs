//! The Bolt listener's protocol: handshake under the handshake deadline, then the session.

mod handshake;
mod refusal;
mod session;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use quiver_bolt::Version;
use quiver_placement::{Placement, QueryPool};

pub use handshake::{Agreed, HandshakeError, handshake};
pub use refusal::{BoltRefusal, EncodeError};
pub use session::{BoltSession, End, SessionStart};

use crate::auth::UserStore;
use crate::buffers::BufferPool;
use crate::deadline::{Interrupted, opening_deadline};
use crate::graph::Graph;
use crate::listener::{Connection, Protocol};
use crate::metrics::Metrics;
use crate::refuser::RefusalScript;
use crate::websocket::{self, WsLimits, WsUnopened};

/// State shared by every Bolt connection.
#[derive(Debug)]
pub struct BoltShared {
    pub metrics: Arc<Metrics>,
    pub users: Arc<UserStore>,
    /// Handshake and authentication must be complete this long after accept.
    pub handshake_timeout: Duration,
    /// A connection silent this long between requests is closed.
    pub idle_timeout: Duration,
    /// The Bolt connection limit, named in refusals.
    pub connections_max: u32,
    /// Largest message after de-chunking.
    pub message_bytes_max: u64,
    /// Source of `connection_id`s.
    pub connection_ids: AtomicU64,
    /// The open connections, for `dbms.listConnections()`.
    pub connections: Arc<crate::connections::Connections>,
    /// The graph queries run against; without one, RUN and BEGIN are refused as unavailable.
    pub graph: Option<Arc<Graph>>,
    /// The server's databases, when it keeps several: sessions choose among them by name.
    pub databases: Option<Arc<crate::databases::Databases>>,
    /// Where long query work runs.
    pub pool: Arc<QueryPool>,
    /// Whether a step of work runs inline or on the pool.
    pub placement: Placement,
    /// Advertised as `connection.recv_timeout_seconds`.
    pub recv_timeout: Duration,
    /// Where queries that ended are reported, when there is a query log.
    pub query_log: Option<Arc<crate::query_log::QueryLog>>,
    /// Which transactions are traced, when tracing is on.
    pub trace: Option<quiver_telemetry::Policy>,
    /// Longest wait for a bookmark's commit.
    pub bookmark_timeout: Duration,
    /// An open transaction whose client is silent this long is rolled back.
    pub idle_transaction_timeout: Option<Duration>,
    /// Time limit of a transaction whose client sets none.
    pub transaction_timeout: Option<Duration>,
    /// Read and write buffers, lent to a connection only while it has bytes to decode or
    /// replies to write.
    pub buffers: BufferPool,
}

impl BoltShared {
    pub fn next_connection_id(&self) -> u64 {
        self.connection_ids.fetch_add(1, Ordering::Relaxed)
    }

    /// The read timeout hint in whole seconds, rounded up (at least 1).
    pub fn recv_timeout_seconds(&self) -> i64 {
        let seconds = self.recv_timeout.as_millis().div_ceil(1000).max(1);
        i64::try_from(seconds).unwrap_or(i64::MAX)
    }

    /// Keep-alives during long work go out four times per advertised read timeout, so one
    /// delayed by a busy machine still arrives in time.
    pub fn keep_alive_interval(&self) -> Duration {
        let advertised =
            Duration::from_secs(u64::try_from(self.recv_timeout_seconds()).unwrap_or(1));
        (advertised / 4).max(Duration::from_millis(100))
    }
}

/// The Bolt protocol on a listener.
#[derive(Debug)]
pub struct BoltProtocol {
    pub shared: Arc<BoltShared>,
    /// What clients past the limit are told, encoded once.
    pub refusal: Arc<BoltRefusal>,
}

impl Protocol for BoltProtocol {
    async fn serve(self: Arc<Self>, connection: Connection) {
        let Connection {
            stream,
            peer,
            accepted_at,
            reserved_slot,
            shutdown,
        } = connection;
        let deadline = opening_deadline(accepted_at, self.shared.handshake_timeout);
        // A browser driver opens with a WebSocket upgrade; the upgrade shares the opening
        // deadline with the Bolt handshake inside it.
        let limits = WsLimits::for_bolt(self.shared.message_bytes_max);
        let mut stream = match Box::pin(websocket::open(stream, limits, deadline, &shutdown)).await
        {
            Ok(stream) => stream,
            Err(error) => {
                if matches!(error, WsUnopened::Interrupted(Interrupted::Deadline)) {
                    self.shared.metrics.bolt.timed_out.inc();
                }
                tracing::debug!(%peer, %error, "Bolt connection not opened");
                return;
            }
        };
        if stream.is_websocket() {
            self.shared.metrics.bolt.websocket_upgrades.inc();
        }
        // Boxed: the handshake's state is needed for a moment, the session's for hours, and an
        // inline handshake would make every idle connection's future as large as both.
        let agreed = match Box::pin(handshake(
            &mut stream,
            &Version::SUPPORTED,
            deadline,
            &shutdown,
        ))
        .await
        {
            Ok(agreed) => agreed,
            Err(HandshakeError::Interrupted(Interrupted::Deadline)) => {
                self.shared.metrics.bolt.timed_out.inc();
                tracing::debug!(%peer, "Bolt handshake deadline passed");
                return;
            }
            Err(error) => {
                tracing::debug!(%peer, %error, "Bolt handshake ended");
                return;
            }
        };
        let start = SessionStart {
            stream,
            peer,
            shutdown,
            version: agreed.version,
            leftover: agreed.leftover,
            reserved_slot,
            auth_deadline: deadline,
        };
        let session = BoltSession::new(start, Arc::clone(&self.shared));
        let end = session.run().await;
        if end == End::TimedOut {
            self.shared.metrics.bolt.timed_out.inc();
        }
        tracing::debug!(%peer, ?end, "Bolt session ended");
    }

    fn refusal(&self) -> Arc<dyn RefusalScript> {
        Arc::clone(&self.refusal) as Arc<dyn RefusalScript>
    }
}
