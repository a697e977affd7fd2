//! A commit log for the tests of what a database does with its log's answers: every record is
//! taken at once; it records the tickets it is asked to wait for, fails them while `failing`
//! is set, and refuses writes while `refusing` is. The HTTP tests include this file by path.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use quiver_storage::{AppendError, CommitLog, DurabilityTicket, LogError, RedoRecord};

/// A log that records the tickets it is asked about, fails them while `failing` is set, and
/// refuses writes while `refusing` is.
#[derive(Default)]
pub struct Recording {
    /// The last ticket waited for.
    pub last: AtomicU64,
    pub failing: AtomicBool,
    pub refusing: AtomicBool,
}

impl CommitLog for Recording {
    fn append(&self, record: &RedoRecord) -> Result<DurabilityTicket, AppendError> {
        Ok(DurabilityTicket(record.commit))
    }

    fn wait(&self, ticket: DurabilityTicket) -> Result<(), LogError> {
        self.last.store(ticket.0, Ordering::SeqCst);
        if self.failing.load(Ordering::SeqCst) {
            Err(LogError::Failed("the disk is gone".to_owned()))
        } else {
            Ok(())
        }
    }

    fn writes_refused(&self) -> Option<String> {
        self.refusing
            .load(Ordering::SeqCst)
            .then(|| "writes are refused after a disk fault: File too large".to_owned())
    }
}
