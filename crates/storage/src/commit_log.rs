//! The seam where durability plugs into the commit path.
//!
//! The storage engine writes no files. A commit hands its redo record to the installed
//! [`CommitLog`] while holding the commit lock (so the log's order is the commit order), gets a
//! [`DurabilityTicket`] back, publishes the commit, and releases every lock; whoever tells the
//! client then waits on the ticket ([`CommitLog::wait`], or [`CommitLog::wait_async`] on an
//! executor), so a wait for the disk never holds anything readers or writers need.
//!
//! What "acknowledged" means is the log's business: on disk in the local log's `group` and
//! `sync` modes, at once in its `buffered` mode, and on a majority of replicas for a replicated
//! log. Whatever it means, the log also decides what readers see: it advances the store's
//! visible watermark ([`crate::Storage::advance_visible`]) only over acknowledged commits, and
//! the store wakes whoever waits for that watermark.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use crate::Storage;
use crate::redo::RedoRecord;

/// A position in the log whose acknowledgement can be awaited: the commit number (a replicated
/// log names its log index the same way). Tickets grow with the commit order, and a log
/// acknowledges in that order, so a wait for one covers every earlier ticket too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DurabilityTicket(pub u64);

/// Why a log cannot acknowledge a ticket.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LogError {
    /// The log stopped acknowledging (a disk fault): the ticket is not, and will not become,
    /// acknowledged. The text names the cause in the words a client is shown.
    #[error("{0}")]
    Failed(String),
}

/// Why a log did not take a record: the commit is rolled back and nothing of it is logged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AppendError {
    /// The log takes no writes now: after a disk fault, or on a cluster member that does not
    /// lead, is recovering or hands leadership over. The text names the cause in the words a
    /// client is shown.
    #[error("{0}")]
    Refused(String),
    /// The record is larger than one log record may be.
    #[error("a commit of {bytes} bytes exceeds the log's record limit of {limit} bytes")]
    TooLarge { bytes: usize, limit: usize },
    /// The log was closed, or its member is stopping: it takes no record again.
    #[error("{0}")]
    Closed(&'static str),
}

/// A wait for a ticket that an executor polls. Boxed and `Send`, so storage names no runtime
/// and a connection task can hold it across an `.await`.
pub type AcknowledgeWait = Pin<Box<dyn Future<Output = Result<(), LogError>> + Send>>;

/// A commit log: the one owner of what "acknowledged" means.
///
/// The waiting methods have defaults for a log whose append is its acknowledgement (an
/// in-memory capture, a test double): every ticket is acknowledged at once and writes are
/// never refused.
pub trait CommitLog: Send + Sync {
    /// Appends a record; called in commit order under the commit lock, so it must not wait
    /// for the disk. An error aborts the commit (the transaction is rolled back).
    fn append(&self, record: &RedoRecord) -> Result<DurabilityTicket, AppendError>;

    /// Blocks the calling thread until `ticket` is acknowledged, or fails naming why it never
    /// will be. Holds no storage lock; must not be called from an async executor's thread.
    fn wait(&self, ticket: DurabilityTicket) -> Result<(), LogError> {
        let _ = ticket;
        Ok(())
    }

    /// [`CommitLog::wait`] as a future, for executors: it parks the task, never the thread.
    fn wait_async(self: Arc<Self>, ticket: DurabilityTicket) -> AcknowledgeWait {
        let _ = ticket;
        Box::pin(std::future::ready(Ok(())))
    }

    /// Why no write can commit now (a disk fault), in the words a client is shown; `None`
    /// while writes are accepted. Reads go on regardless.
    fn writes_refused(&self) -> Option<String> {
        None
    }

    /// Why this log's member does not lead, in the words a client is shown; `None` on a log
    /// that takes writes here (every single-node log). A replicated log says it before a write
    /// does any work, so the client is told to go to the leader (Neo4j's `NotALeader`) rather
    /// than that its commit failed.
    fn not_leader(&self) -> Option<String> {
        None
    }
}

/// A store that is replaced whole while its database runs: a cluster member's, when a
/// snapshot is installed or an unreplicated tail discarded. Whoever reads through it takes the
/// store now and holds it for one unit of work (a transaction keeps the store it began on);
/// its visibility waits follow the store across a replacement, which only the handle sees.
pub trait StoreHandle: Send + Sync {
    /// The store now.
    fn storage(&self) -> Arc<Storage>;

    /// Resolves once new readers of the store then current see `commit`. Has no deadline of
    /// its own: race it against the executor's timer.
    fn visible_wait(self: Arc<Self>, commit: u64) -> Pin<Box<dyn Future<Output = ()> + Send>>;

    /// Blocks until new readers of the store then current see `commit`, or until `deadline`;
    /// returns whether they do.
    fn wait_visible(&self, commit: u64, deadline: Instant) -> bool;
}
