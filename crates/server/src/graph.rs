//! The graph a server serves: the engine's database, with the server's procedures registered.
//!
//! The database owns every wait a connection needs (when a commit may be acknowledged, when a
//! bookmark's commit is visible, whether writes are refused): the session awaits
//! [`Database::durable`] and [`Database::visible`], futures that park its task and hold no
//! lock, so a connection never blocks a runtime thread on a disk.

use std::sync::Arc;

use quiver_engine::Database;

/// The database a server serves (in memory, or over a data directory it owns).
#[derive(Debug)]
pub struct Graph {
    db: Arc<Database>,
}

impl Graph {
    /// The server's procedures (those tools read literally on connect) are registered on `db`.
    pub fn new(db: Arc<Database>) -> Graph {
        crate::procedures::register(&db);
        Graph { db }
    }

    pub fn database(&self) -> &Arc<Database> {
        &self.db
    }
}
