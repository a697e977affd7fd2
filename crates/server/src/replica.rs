//! A cluster member's database, composed above the engine: the engine's database opened over
//! the member's store handle and commit log.
//!
//! The engine knows no network. It sees the member only through its own seam: the store
//! handle (`quiver_storage::StoreHandle`, replaced whole on a snapshot install) and the commit
//! log (`quiver_storage::CommitLog`, whose `not_leader` is how leadership reaches it: a write
//! on a member that does not lead is refused with `Neo.ClientError.Cluster.NotALeader`).

use std::sync::Arc;

use quiver_cluster::{ClusterConfig, ClusterError, Member};
use quiver_engine::{Database, EngineConfig};

/// A cluster member and the database it serves.
#[derive(Debug)]
pub struct Replica {
    member: Arc<Member>,
    db: Arc<Database>,
}

impl Replica {
    /// Starts a member (see [`Member::start`]) and opens its database. Must run inside a
    /// multi-threaded Tokio runtime.
    pub async fn start(
        config: ClusterConfig,
        listener: tokio::net::TcpListener,
        engine: EngineConfig,
    ) -> Result<Arc<Replica>, ClusterError> {
        let member = Member::start(config, listener).await?;
        let db = Database::with_swappable_store(
            Arc::clone(member.store()) as _,
            Arc::clone(member.log()) as _,
            engine,
        );
        Ok(Arc::new(Replica { member, db }))
    }

    /// The member: its Raft node, status, handover and membership changes.
    pub fn member(&self) -> &Arc<Member> {
        &self.member
    }

    pub fn database(&self) -> &Arc<Database> {
        &self.db
    }
}
