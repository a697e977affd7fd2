//! Why a cluster operation failed: one typed error for the member handle, its membership
//! changes and its replicated log, with the Raft core's errors sorted into what a caller acts on
//! (go to the leader, retry, or give up) rather than carried as text.

use std::time::Duration;

use openraft::error::{ClientWriteError, ForwardReason, RaftError};

use crate::log_store::LogError;
use crate::state_machine::ApplyError;
use crate::types::{Node, NodeId, TypeConfig};

/// Why a cluster operation failed.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// Writes go to the leader; this member is not it. The leader is named when known.
    #[error("not the leader; the leader is {}", leader.map_or("unknown".to_string(), |l| l.to_string()))]
    NotLeader {
        leader: Option<NodeId>,
        node: Option<Node>,
    },
    /// This member leads but holds no quorum lease: it was just elected, or it has not heard
    /// from a majority lately (it may be cut off). Nothing was appended; retry shortly.
    #[error("the leader holds no quorum lease yet; retry")]
    LeaseNotHeld,
    /// The entry was appended here but discarded when another leader's log won: it may or may
    /// not have committed elsewhere.
    #[error("the write's entry was discarded on a leader change; its outcome is unknown")]
    Discarded { leader: Option<NodeId> },
    /// The bytes handed to `client_write` are not redo records in commit order. Nothing was
    /// appended: an entry every member fails to apply would stop the whole cluster.
    #[error("not a redo record sequence: {0}")]
    InvalidRecord(#[from] RecordError),
    #[error("invalid cluster configuration: {0}")]
    Config(#[from] openraft::ConfigError),
    /// Another process (or member) holds the data directory.
    #[error("data directory: {0}")]
    Lock(quiver_durability::Error),
    #[error("raft log: {0}")]
    Log(#[from] LogError),
    #[error("state machine: {0}")]
    Apply(#[from] ApplyError),
    #[error("raft listener {addr}: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
    /// The Raft core failed in a way a caller cannot act on but to report it (a fatal error,
    /// a storage error under it); the core's own error is the source.
    #[error("raft: {0}")]
    Raft(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The member stopped while the operation waited on it.
    #[error("the member stopped")]
    Stopped,
    #[error("timed out after {0:?} waiting for {1}")]
    Timeout(Duration, String),
    /// Membership changes are made one at a time; another is under way on this member.
    #[error("another membership change is in progress; retry once it has ended")]
    ChangeInProgress,
    /// A removed member's id is never given again (the others may hold votes naming it).
    #[error(
        "member id {id} was removed from this cluster and is never reused; start the new member with another id"
    )]
    MemberRemoved { id: NodeId },
    #[error("member {id} is already a voter of this cluster")]
    MemberExists { id: NodeId },
    #[error("member {id} is not in this cluster's membership")]
    NoSuchMember { id: NodeId },
    /// A membership change that cannot be made as asked.
    #[error("{0}")]
    InvalidMember(String),
}

/// Why bytes handed to the replicated log are not redo records in commit order.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("no record")]
    Empty,
    #[error("at byte {at}: {source}")]
    Undecodable {
        at: usize,
        source: quiver_storage::Error,
    },
    #[error("commit {commit} follows commit {previous}")]
    OutOfOrder { commit: u64, previous: u64 },
}

impl ClusterError {
    /// The Raft core's `error`, kept as the source.
    pub(crate) fn raft(error: impl std::error::Error + Send + Sync + 'static) -> ClusterError {
        ClusterError::Raft(Box::new(error))
    }
}

impl From<RaftError<TypeConfig, ClientWriteError<TypeConfig>>> for ClusterError {
    fn from(e: RaftError<TypeConfig, ClientWriteError<TypeConfig>>) -> Self {
        match e {
            RaftError::APIError(ClientWriteError::ForwardToLeader(f))
                if f.reason == ForwardReason::LeaseExpired =>
            {
                ClusterError::LeaseNotHeld
            }
            RaftError::APIError(ClientWriteError::ForwardToLeader(f)) => ClusterError::NotLeader {
                leader: f.leader_id,
                node: f.leader_node,
            },
            RaftError::APIError(ClientWriteError::LogEntryDiscarded(f)) => {
                ClusterError::Discarded {
                    leader: f.leader_id,
                }
            }
            e => ClusterError::raft(e),
        }
    }
}
