//! The Bolt listener's protocol: handshake under the handshake deadline, then the session.

mod handshake;
mod refusal;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use quiver_bolt::Version;
use tokio::net::TcpStream;

pub use handshake::{Agreed, HandshakeError, handshake};

use crate::auth::UserStore;
use crate::deadline::Interrupted;
use crate::listener::{Connection, Protocol};
use crate::metrics::Metrics;

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
}

/// The Bolt protocol on a listener.
#[derive(Debug)]
pub struct BoltProtocol {
    pub shared: Arc<BoltShared>,
}

impl Protocol for BoltProtocol {
    async fn serve(self: Arc<Self>, connection: Connection) {
        let Connection {
            mut stream,
            peer,
            accepted_at,
            shutdown,
            ..
        } = connection;
        let deadline = accepted_at + self.shared.handshake_timeout;
        match handshake(&mut stream, &Version::SUPPORTED, deadline, &shutdown).await {
            Ok(agreed) => {
                // The message loop needs the query engine; until it is wired in, a session ends
                // right after the version is agreed rather than pretending to serve queries.
                tracing::debug!(%peer, version = %agreed.version, "Bolt handshake done; sessions are not served yet");
            }
            Err(HandshakeError::Interrupted(Interrupted::Deadline)) => {
                self.shared.metrics.bolt.timed_out.inc();
                tracing::debug!(%peer, "Bolt handshake deadline passed");
            }
            Err(error) => tracing::debug!(%peer, %error, "Bolt handshake ended"),
        }
    }

    async fn refuse(self: Arc<Self>, stream: TcpStream, peer: SocketAddr) {
        refusal::refuse(stream, self.shared.connections_max).await;
        tracing::debug!(%peer, "refused Bolt connection past the limit");
    }
}
