//! The seam where durability plugs into the commit path.
//!
//! The storage engine writes no files. A commit hands its redo record to the installed
//! [`CommitLog`] while holding the commit lock (so the log's order is the commit order), gets a
//! [`DurabilityTicket`] back, publishes the commit, and releases every lock; the server then
//! waits on the ticket, so a wait for fsync never holds anything readers or writers need.

use crate::redo::RedoRecord;

/// Identifies a commit whose durability can be awaited; it is the commit number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DurabilityTicket(pub u64);

pub trait CommitLog: Send + Sync {
    /// Appends a record; called in commit order under the commit lock, so it must not wait
    /// for the disk. An error aborts the commit (the transaction is rolled back).
    fn append(&self, record: &RedoRecord) -> Result<DurabilityTicket, String>;
}
