//! APOC's procedures, implemented natively under APOC's names, signatures and result columns:
//! the ones tools call (`apoc.merge.node`, `apoc.periodic.iterate`, `apoc.cypher.run`, ...).
//!
//! - Procedures that write or run Cypher do it through the engine's nested statements
//!   ([`quiver_engine::procedures::nested`]): a statement runs inside the calling query's
//!   transaction (or, for `apoc.periodic.*`, each batch in a transaction of its own) through
//!   the same planner and write path as a client's query, so constraint checks, indexes and
//!   update counters are the ones `CREATE` and `MERGE` keep. `apoc.merge.node` is a `MERGE`
//!   statement built from its arguments, as APOC builds one.
//! - A bad argument fails with `Neo.ClientError.Procedure.ProcedureCallFailed` naming the
//!   procedure and the argument.
//!
//! APOC's functions and its metadata procedures (`apoc.meta.*`) are the engine's.

mod path;
mod refactor;
mod run;
mod virtuals;
mod write;

use std::sync::Arc;

use quiver_engine::procedures::Procedure;

/// Adds the APOC procedures.
pub(crate) fn register(p: &mut Vec<Arc<dyn Procedure>>) {
    for procedure in write::procedures()
        .into_iter()
        .chain(run::procedures())
        .chain(path::procedures())
        .chain(refactor::procedures())
        .chain(virtuals::procedures())
    {
        p.push(Arc::new(procedure));
    }
}
