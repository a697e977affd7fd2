//! The graph a server serves: the query engine, and the durability layer that decides when a
//! commit may be acknowledged and when a bookmark's commit is visible.
//!
//! Every wait here is asynchronous and holds no lock: a committer in `group` or `sync` mode
//! parks its connection task on the durable watermark while the log writer syncs, and the
//! runtime worker serves other connections meanwhile.

use std::sync::Arc;
use std::time::Duration;

use quiver_durability::Durability;
use quiver_engine::Database;
use tokio::time::Instant;

/// Why a wait on the store failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// The commit happened in memory but the log could not make it durable.
    #[error("the commit could not be made durable: {0}")]
    NotDurable(#[source] quiver_durability::Error),
    /// A bookmark's commit did not become visible in time.
    #[error("commit {commit} did not become visible within {waited_ms} ms")]
    BookmarkTimeout { commit: u64, waited_ms: u64 },
}

/// First pause while polling for visibility; doubled up to [`VISIBILITY_POLL_MAX`].
const VISIBILITY_POLL_MIN: Duration = Duration::from_millis(1);
const VISIBILITY_POLL_MAX: Duration = Duration::from_millis(20);

/// The engine and, for a server with a data directory, its durability.
pub struct Graph {
    db: Arc<Database>,
    durability: Option<Arc<Durability>>,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("durability", &self.durability)
            .finish_non_exhaustive()
    }
}

impl Graph {
    /// `durability`: the handle [`Durability::open`] returned with the store `db` runs on;
    /// `None` for an in-memory server. The server's procedures (those tools read literally on
    /// connect) are registered on `db`.
    pub fn new(db: Arc<Database>, durability: Option<Arc<Durability>>) -> Graph {
        crate::procedures::register(&db);
        Graph { db, durability }
    }

    pub fn database(&self) -> &Arc<Database> {
        &self.db
    }

    pub fn durability(&self) -> Option<&Arc<Durability>> {
        self.durability.as_ref()
    }

    /// The newest commit a write transaction begun now may read: its results may leave the
    /// server only once this is durable.
    pub fn write_horizon(&self) -> u64 {
        if self.durability.is_some() {
            self.db.storage().last_committed()
        } else {
            0
        }
    }

    /// Resolves once commit `commit` may be acknowledged (its record is on disk, in the modes
    /// that promise it; at once in buffered mode and in memory).
    pub async fn acknowledge(&self, commit: u64) -> Result<(), GraphError> {
        match &self.durability {
            Some(durability) if commit > 0 => durability
                .durable(commit)
                .await
                .map_err(GraphError::NotDurable),
            _ => Ok(()),
        }
    }

    /// Whether new readers already see commit `commit`.
    pub fn is_visible(&self, commit: u64) -> bool {
        self.db.storage().visible_watermark() >= commit
    }

    /// Resolves once new readers see commit `commit` (what a bookmark promises), or fails at
    /// `deadline`.
    pub async fn visible(&self, commit: u64, deadline: Instant) -> Result<(), GraphError> {
        if self.is_visible(commit) {
            return Ok(());
        }
        let started = Instant::now();
        let timeout = || GraphError::BookmarkTimeout {
            commit,
            waited_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        };
        // In the durable modes a commit becomes visible when its sync completes: wait for that
        // first (no polling), then for the watermark to be published.
        if let Some(durability) = &self.durability
            && commit <= self.db.storage().last_committed()
        {
            match tokio::time::timeout_at(deadline, durability.durable(commit)).await {
                Ok(Ok(())) => {}
                Ok(Err(error)) => return Err(GraphError::NotDurable(error)),
                Err(_) => return Err(timeout()),
            }
        }
        let mut pause = VISIBILITY_POLL_MIN;
        while !self.is_visible(commit) {
            if Instant::now() + pause > deadline {
                return Err(timeout());
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(VISIBILITY_POLL_MAX);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use quiver_engine::EngineConfig;
    use quiver_value::Map;

    use super::*;

    #[tokio::test]
    async fn an_in_memory_commit_is_visible_at_once_and_a_future_one_times_out() {
        let db = Database::open_in_memory(EngineConfig::default());
        db.execute("CREATE ()", Map::new()).expect("create");
        let graph = Graph::new(db, None);
        let last = graph.database().storage().last_committed();
        assert!(last > 0);
        graph
            .visible(last, Instant::now() + Duration::from_secs(1))
            .await
            .expect("visible");
        graph.acknowledge(last).await.expect("acknowledged");
        let waited = graph
            .visible(last + 10, Instant::now() + Duration::from_millis(30))
            .await;
        assert!(matches!(
            waited,
            Err(GraphError::BookmarkTimeout { commit, .. }) if commit == last + 10
        ));
    }

    #[tokio::test]
    async fn a_durable_commit_is_acknowledged_and_becomes_visible() {
        let dir = tempfile::tempdir().expect("dir");
        let (storage, durability) = Durability::open(
            dir.path(),
            quiver_durability::Mode::Group,
            quiver_durability::Options::default(),
        )
        .expect("open");
        let db = Database::with_storage(storage, EngineConfig::default());
        let graph = Graph::new(Arc::clone(&db), Some(Arc::new(durability)));
        let result = db.execute("CREATE ()", Map::new()).expect("create");
        let commit = result.summary.commit.expect("auto-commit").commit;
        graph.acknowledge(commit).await.expect("durable");
        graph
            .visible(commit, Instant::now() + Duration::from_secs(5))
            .await
            .expect("visible");
    }
}
