//! A cluster member: its Raft node, its replicated commit log and the store both serve.
//!
//! The member knows no database: whoever assembles a server opens the engine's database over
//! [`Member::store`] (the store handle, replaced whole on a snapshot install) and
//! [`Member::log`] (the commit log, which refuses writes where this member does not lead).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::cluster::{Cluster, ClusterConfig, ClusterError, Role, Status};
use crate::members::MemberChanges;
use crate::replicated::{ReplicatedLog, follow_leadership, propose};
use crate::state_machine::{Applier, StorageApplier};
use crate::types::{NodeId, Raft};

/// A running cluster member (see the module docs).
pub struct Member {
    store: Arc<StorageApplier>,
    log: Arc<ReplicatedLog>,
    id: NodeId,
    raft: Raft,
    cluster: tokio::sync::Mutex<Option<Cluster>>,
    status: Mutex<Status>,
    /// Membership changes (apart from the handle above, which a handover holds for a while).
    changes: MemberChanges,
}

impl std::fmt::Debug for Member {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Member")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Member {
    /// Starts a member: opens its Raft log and snapshots under `config.data_dir`, loads the
    /// store and joins (or initializes) the cluster. Must run inside a multi-threaded Tokio
    /// runtime.
    pub async fn start(
        config: ClusterConfig,
        listener: tokio::net::TcpListener,
    ) -> Result<Arc<Member>, ClusterError> {
        let id = config.id;
        let (log, queue) = ReplicatedLog::new(id);
        let applier = StorageApplier::with_commit_log(log.clone());
        let _ = log.applier.set(Arc::downgrade(&applier));
        let cluster = Cluster::start_on(config, listener, Some(applier.clone())).await?;
        let raft = cluster.raft().clone();
        log.recovered(Applier::last_commit(&*applier));
        tokio::spawn(propose(log.clone(), raft.clone(), queue));
        tokio::spawn(follow_leadership(log.clone(), raft.clone(), id));
        let status = cluster.status();
        let changes = cluster.member_changes().clone();
        Ok(Arc::new(Member {
            changes,
            store: applier,
            log,
            id,
            raft,
            cluster: tokio::sync::Mutex::new(Some(cluster)),
            status: Mutex::new(status),
        }))
    }

    /// The member's store, replaced whole on a snapshot install or a discarded tail: what
    /// the database reads and writes through.
    pub fn store(&self) -> &Arc<StorageApplier> {
        &self.store
    }

    /// The member's commit log: what the database commits to.
    pub fn log(&self) -> &Arc<ReplicatedLog> {
        &self.log
    }

    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The Raft listener's address.
    pub fn raft_addr(&self) -> Option<SocketAddr> {
        self.cluster
            .try_lock()
            .ok()
            .and_then(|c| c.as_ref().map(Cluster::local_addr))
    }

    /// Installs what is told, for every entry this member proposes as leader, how long it took
    /// from the proposal to its commit by a majority (its append latency). Once only: a second
    /// observer is ignored.
    pub fn observe_appends(&self, observer: impl Fn(Duration) + Send + Sync + 'static) {
        let _ = self.log.append_observer.set(Box::new(observer));
    }

    /// This member's state (role, term, indexes, lag, members), as Raft's metrics show it.
    pub fn status(&self) -> Status {
        // A handover holds the handle for a while: the last status seen stands in meanwhile.
        if let Ok(cluster) = self.cluster.try_lock() {
            match cluster.as_ref() {
                Some(cluster) => {
                    let status = cluster.status();
                    *self.status.lock() = status.clone();
                    return status;
                }
                None => {
                    let mut status = self.status.lock().clone();
                    status.role = Role::Shutdown;
                    return status;
                }
            }
        }
        self.status.lock().clone()
    }

    /// Why this member takes no write now (see [`crate::replicated`]).
    pub fn not_leader(&self) -> Option<String> {
        quiver_storage::CommitLog::not_leader(&*self.log)
    }

    /// Stops taking writes and, on the leader, hands leadership to the most up-to-date voter
    /// (waiting at most `timeout`): what a graceful stop does first, so the cluster does not
    /// sit through an election timeout. Returns whether leadership was handed over.
    pub async fn hand_over(&self, timeout: Duration) -> bool {
        self.log.stepping_down.store(true, Ordering::Release);
        let status = self.status();
        if status.role != Role::Leader {
            return false;
        }
        let Some(to) = status.handover_target() else {
            return false;
        };
        let started = Instant::now();
        let guard = self.cluster.lock().await;
        let Some(cluster) = guard.as_ref() else {
            return false;
        };
        match cluster.transfer_leadership(to, timeout).await {
            Ok(()) => {
                tracing::info!(
                    to,
                    waited_ms = started.elapsed().as_millis() as u64,
                    "leadership handed over"
                );
                true
            }
            Err(error) => {
                tracing::warn!(to, %error, "leadership handover failed");
                false
            }
        }
    }

    /// Stops Raft (the log is durable at every acknowledgement; there is nothing to flush).
    pub async fn stop(&self) -> Result<(), ClusterError> {
        self.log.stepping_down.store(true, Ordering::Release);
        let cluster = self.cluster.lock().await.take();
        match cluster {
            Some(cluster) => cluster.stop().await,
            None => Ok(()),
        }
    }

    /// Adds member `id`, whose Raft listener is at `raft_addr`, to the cluster: on the leader
    /// only, one change at a time; it catches up as a learner, then votes (see
    /// [`crate::members`]).
    pub async fn add_member(&self, id: NodeId, raft_addr: &str) -> Result<(), ClusterError> {
        self.changes.add(id, raft_addr).await
    }

    /// Removes member `id` from the cluster for good (its id is never reused): on the leader
    /// only, one change at a time.
    pub async fn remove_member(&self, id: NodeId) -> Result<(), ClusterError> {
        self.changes.remove(id).await
    }

    /// The Raft handle, for what this type does not wrap.
    pub fn raft(&self) -> &Raft {
        &self.raft
    }
}
