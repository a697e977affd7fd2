//! The graph a server serves: the engine's database, with the server's procedures registered.
//!
//! The database owns every wait a connection needs (when a commit may be acknowledged, when a
//! bookmark's commit is visible, whether writes are refused): the session awaits
//! [`Database::durable`] and [`Database::visible`], futures that park its task and hold no
//! lock, so a connection never blocks a runtime thread on a disk.

use std::sync::Arc;

use quiver_engine::Database;

use crate::cluster::ClusterView;
use crate::replica::Replica;

/// The database a server serves (in memory, or over a data directory it owns).
#[derive(Debug)]
pub struct Graph {
    db: Arc<Database>,
    /// On a cluster member: its view of the cluster (routing, status, overview).
    cluster: Option<Arc<ClusterView>>,
}

impl Graph {
    /// The procedure families ([`quiver_procedures`]) and the server's own procedures (those
    /// tools read literally on connect) are registered on `db`, and the engine's blocking
    /// waits tell the runtime before they block one of its workers.
    pub fn new(db: Arc<Database>) -> Graph {
        quiver_engine::set_blocking_hook(quiver_placement::blocking);
        quiver_procedures::register(&db);
        crate::procedures::register(&db);
        Graph { db, cluster: None }
    }

    /// A cluster member's graph: its replica's database, with `dbms.cluster.overview()`.
    pub fn clustered(replica: Arc<Replica>, reads_on_leader: bool) -> Graph {
        let db = Arc::clone(replica.database());
        quiver_engine::set_blocking_hook(quiver_placement::blocking);
        quiver_procedures::register(&db);
        crate::procedures::register(&db);
        let view = Arc::new(ClusterView::new(replica, reads_on_leader));
        crate::cluster::register(&db, &view, tokio::runtime::Handle::current());
        Graph {
            db,
            cluster: Some(view),
        }
    }

    pub fn cluster(&self) -> Option<&Arc<ClusterView>> {
        self.cluster.as_ref()
    }

    pub fn database(&self) -> &Arc<Database> {
        &self.db
    }
}
