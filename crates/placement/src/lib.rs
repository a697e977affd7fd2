//! Where a query's work runs: inline on the connection's own task, or on the query pool. Bolt
//! (in `quiver-server`) and Neo4j's HTTP API (in `quiver-http`) both decide it here, with one
//! [`Policy`], one cost table type and one [`QueryPool`] that `quiver serve` shares between them.
//!
//! Why a crate of its own rather than the engine: the decision is about query execution, but
//! the pool hands results back to a tokio task (a oneshot channel the connection awaits while
//! it keeps watching its socket) and lends overflow jobs to the runtime's blocking threads, and
//! the policy is read from the server's configuration (serde). Putting both in the engine would
//! teach it about an async runtime it otherwise never sees, and the two halves belong together:
//! the pool is where the policy sends whatever it does not run inline. Neither `quiver-server`
//! nor `quiver-http` depends on the other, so the shared code sits below both.
//!
//! - [`policy`]: the per-text memory of how the last run went, and the inline budget;
//! - [`pool`]: the threads that run everything else.

pub mod policy;
pub mod pool;

/// The engine's blocking hook (`quiver_engine::set_blocking_hook`) for a server on a Tokio
/// runtime: a wait that blocks a worker of a multi-threaded runtime tells the runtime first
/// (`block_in_place`), so the worker's other tasks move on; any other thread (the query
/// pool's, a blocking thread) simply blocks.
pub fn blocking(wait: &mut dyn FnMut()) {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(wait);
        }
        _ => wait(),
    }
}

pub use policy::{COST_ENTRIES, INLINE_BUDGET, Place, Placement, Policy, TextKey};
pub use pool::{JobError, JobHandle, QUERY_THREADS_LIMIT, QueryPool};
