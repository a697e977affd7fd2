//! When a commit may be acknowledged and when a bookmark's commit is visible: the one owner of
//! both, over the store's [`CommitLog`] seam.
//!
//! A commit returns once its change is in memory and its record handed to the log; what
//! "acknowledged" means (on disk, on a majority of replicas) is the log's. Embedded callers get
//! it done for them ([`crate::Transaction::commit`], [`Database::execute`] block until it);
//! servers commit with [`crate::Transaction::commit_unacknowledged`] and await
//! [`Database::durable`] on their executor, so no runtime thread blocks on a disk. Readers see
//! only what the log acknowledged; the store wakes visibility waiters as that advances, so no
//! wait here polls.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use quiver_status::Status;
use quiver_storage::{CommitLog, DurabilityTicket, LogError};

use crate::bookmark::Bookmark;
use crate::database::Database;
use crate::state::Store;

/// Why a wait on the store failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WaitError {
    /// The commit happened in memory but the log cannot acknowledge it (a disk fault).
    #[error("the commit could not be made durable: {0}")]
    NotDurable(#[source] LogError),
    /// A bookmark's commit did not become visible by the deadline.
    #[error("commit {} did not become visible within {waited_ms} ms", bookmark.commit())]
    BookmarkTimeout { bookmark: Bookmark, waited_ms: u64 },
}

impl WaitError {
    /// The log's own words for a [`WaitError::NotDurable`], else the whole message.
    pub fn reason(&self) -> String {
        match self {
            WaitError::NotDurable(LogError::Failed(reason)) => reason.clone(),
            other => other.to_string(),
        }
    }
}

/// Milliseconds since `started`, for a [`WaitError::BookmarkTimeout`].
fn waited_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

impl Database {
    /// The store's commit log, if one is installed (none in memory).
    fn log(&self) -> Option<&Arc<dyn CommitLog>> {
        self.shared().log.as_ref()
    }

    /// Resolves once `ticket` is acknowledged (on disk in the `group` and `sync` modes; at
    /// once in `buffered` mode and in memory). Parks the task, never the thread: what a
    /// server awaits before it tells a client that a commit happened. Owns what it needs, so
    /// it may outlive the borrow of `self`.
    pub fn durable(
        &self,
        ticket: DurabilityTicket,
    ) -> impl Future<Output = Result<(), WaitError>> + Send + 'static {
        let log = self.log().cloned();
        async move {
            match log {
                Some(log) => log.wait_async(ticket).await.map_err(WaitError::NotDurable),
                None => Ok(()),
            }
        }
    }

    /// [`Database::durable`] for threads that may block (the HTTP API's, an embedding
    /// program's). Holds no lock while it waits.
    pub fn durable_blocking(&self, ticket: DurabilityTicket) -> Result<(), WaitError> {
        match self.log() {
            Some(log) => log.wait(ticket).map_err(WaitError::NotDurable),
            None => Ok(()),
        }
    }

    /// Why no write can commit now (a disk fault), in the words a client is shown. A
    /// write-mode request should then read at the acknowledged point like a read-mode one,
    /// since the newest commits in memory will never be acknowledged, and name this reason
    /// when it tries to write.
    pub fn writes_refused(&self) -> Option<String> {
        self.log().and_then(|log| log.writes_refused())
    }

    /// Why no write can commit here now, with the status a client is sent: on a cluster
    /// member that does not lead, `NotALeader` (drivers find the leader and retry); after a
    /// disk fault, `TransactionCommitFailed`. A write-mode request then reads like a read-mode
    /// one and fails with this at its first write, before doing any.
    pub fn write_refusal(&self) -> Option<(Status, String)> {
        if let Some(reason) = self.shared().not_leader() {
            return Some((Status::NotALeader, reason));
        }
        self.writes_refused()
            .map(|reason| (Status::TransactionCommitFailed, reason))
    }

    /// Whether new readers already see `bookmark`'s commit.
    pub fn is_visible(&self, bookmark: &Bookmark) -> bool {
        self.storage().visible_watermark() >= bookmark.commit()
    }

    /// Resolves once new readers see `bookmark`'s commit (what a bookmark promises), or fails
    /// if the log can never acknowledge it. Has no deadline of its own and names no runtime:
    /// the caller races it against its executor's timer and reports
    /// [`WaitError::BookmarkTimeout`] when the timer wins. Owns what it needs, so it may
    /// outlive the borrow of `self`.
    pub fn visible(
        &self,
        bookmark: &Bookmark,
    ) -> impl Future<Output = Result<(), WaitError>> + Send + 'static {
        let commit = bookmark.commit();
        let already = self.is_visible(bookmark);
        // A commit in memory becomes visible when the log acknowledges it: ask for that first
        // (it may start the sync, and it fails at once after a disk fault), then wait for the
        // readers' watermark, which the log advances and the store signals.
        let acknowledged = self
            .pending_ticket(bookmark)
            .filter(|_| !already)
            .map(|ticket| self.durable(ticket));
        let store = self.store_wait(commit);
        async move {
            if already {
                return Ok(());
            }
            if let Some(acknowledged) = acknowledged {
                acknowledged.await?;
            }
            store.await;
            Ok(())
        }
    }

    /// A wait for `commit` to be visible on the store: a cluster member's handle follows its
    /// store across a replacement (a snapshot install), which only the handle sees.
    fn store_wait(&self, commit: u64) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        match &self.shared().store {
            Store::Fixed(storage) => Box::pin(storage.visible_wait(commit)),
            Store::Swappable(handle) => Arc::clone(handle).visible_wait(commit),
        }
    }

    /// [`Database::visible`] for threads that may block, failing at `deadline`.
    pub fn visible_blocking(
        &self,
        bookmark: &Bookmark,
        deadline: Instant,
    ) -> Result<(), WaitError> {
        if self.is_visible(bookmark) {
            return Ok(());
        }
        let started = Instant::now();
        if let Some(ticket) = self.pending_ticket(bookmark) {
            // The log's wait has no deadline of its own; the acknowledgement of a commit in
            // memory is at most one sync away, unless the log failed (reported at once).
            self.durable_blocking(ticket)?;
        }
        let visible = match &self.shared().store {
            Store::Fixed(storage) => storage.wait_visible(bookmark.commit(), deadline),
            Store::Swappable(handle) => handle.wait_visible(bookmark.commit(), deadline),
        };
        if visible {
            Ok(())
        } else {
            Err(WaitError::BookmarkTimeout {
                bookmark: *bookmark,
                waited_ms: waited_ms(started),
            })
        }
    }

    /// The ticket to await before `bookmark` can be visible: its commit, when a log holds it
    /// in memory not yet acknowledged. A bookmark beyond the last commit names nothing the
    /// log holds yet; only the watermark can tell.
    fn pending_ticket(&self, bookmark: &Bookmark) -> Option<DurabilityTicket> {
        (self.log().is_some() && bookmark.commit() <= self.storage().last_committed())
            .then(|| DurabilityTicket(bookmark.commit()))
    }
}
