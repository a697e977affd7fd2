//! Procedure families written against the engine's procedure API
//! ([`quiver_engine::procedures`]): APOC's procedures ([`apoc`]), vector search
//! (`db.index.vector.*`, `db.create.set*VectorProperty`), full-text search
//! (`db.index.fulltext.*`) and Graph Data Science's graph catalog and algorithms (`gds.*`,
//! [`gds`]).
//!
//! The engine knows none of them: the assembly that opens a database adds them with
//! [`register`]. A procedure here reaches the graph only through its
//! [`ProcedureContext`](quiver_engine::ProcedureContext): the caller's storage transaction,
//! nested statements in that transaction or in transactions of their own, the caller's limits
//! (cancel flag, deadline, memory) and who calls.

mod apoc;
mod fulltext;
mod gds;
mod vector;

use std::sync::Arc;

use quiver_engine::{Database, Procedure};

pub use vector::NEAREST_NEIGHBOURS_MAX;

/// Every procedure of this crate, each instance serving every call. Called once per
/// database: the `gds.*` procedures of one call share one graph catalog.
pub fn all() -> Vec<Arc<dyn Procedure>> {
    let mut p = Vec::new();
    apoc::register(&mut p);
    vector::register(&mut p);
    fulltext::register(&mut p);
    gds::register(&mut p);
    p
}

/// Adds every procedure of this crate to `db`.
pub fn register(db: &Database) {
    db.register_procedures(all());
}
