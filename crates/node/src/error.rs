//! Why a node did not start.

use std::path::PathBuf;

use quiver_server::ServerError;
use quiver_server::auth::AuthError;

/// Why a node did not start. [`NodeError::is_configuration`] tells a configuration that cannot
/// work (`quiver serve` exits 2, as for a usage error) from a start that failed.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error("users: {0}")]
    Users(#[source] AuthError),
    #[error("audit log {}: {source}", path.display())]
    AuditLog {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("query log {}: {source}", path.display())]
    QueryLog {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The store did not open: recovery, the cluster member, or the initial user.
    #[error("{0}")]
    Store(String),
    #[error("cannot start the query threads: {0}")]
    Pool(#[source] std::io::Error),
    #[error(transparent)]
    Server(#[from] ServerError),
    /// A start-up task stopped before it finished (it panicked or the runtime shut down).
    #[error("{what} stopped: {source}")]
    Stopped {
        what: &'static str,
        #[source]
        source: tokio::task::JoinError,
    },
}

impl NodeError {
    /// Whether the configuration itself cannot work (users, audit or query log, listeners, TLS
    /// files),
    /// rather than a start that failed.
    pub fn is_configuration(&self) -> bool {
        matches!(
            self,
            NodeError::Users(_)
                | NodeError::AuditLog { .. }
                | NodeError::QueryLog { .. }
                | NodeError::Server(_)
        )
    }
}
