//! Commits on their way to the full-text indexes, so that no writer waits on tantivy under
//! the commit lock.
//!
//! A commit hands what it touched to [`Pending`] under the commit lock (a queue push, so the
//! queue is in commit order) and goes on. A worker thread of the store, started with the first
//! full-text index's first commit, takes everything queued at once and re-indexes it in one
//! tantivy commit per index. A burst of commits thus costs one index commit, on the worker's
//! core rather than each writer's.
//!
//! What a search finds is unchanged: before a search of an index that is not eventually
//! consistent, the reader waits until no commit at or below its snapshot is still pending
//! ([`Pending::wait_reflects`]); `Pending` counts which commits the indexes already reflect.
//! Each batch re-reads the entities it touched at the newest committed state, under the
//! index's writer lock, so however batches interleave the index ends at the newest state, and
//! the worker holds a registered snapshot while it reads, so garbage collection keeps what it
//! reads. An index whose update fails is marked for a rebuild, as before.
//!
//! The queue is bounded: past [`PENDING_IDS_MAX`] queued ids a committing writer waits, once
//! it has released the commit lock, until the worker has caught up.

use std::collections::VecDeque;
use std::sync::{Arc, Weak};

use parking_lot::{Condvar, Mutex};

use crate::mvcc::View;
use crate::storage::Storage;

use super::FulltextEntity;

/// Entity ids queued for the indexes past which a writer waits for the worker: a bound on the
/// memory the queue holds (8 bytes an id), far above what one batch of commits touches.
pub(crate) const PENDING_IDS_MAX: usize = 1 << 20;

/// The nodes and relationships one commit touched.
struct Touched {
    commit: u64,
    nodes: Vec<u64>,
    rels: Vec<u64>,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Touched>,
    /// Ids in `queue`.
    queued_ids: usize,
    /// The lowest commit of the batch the worker is applying.
    applying: Option<u64>,
    /// Whether the worker thread runs.
    worker: bool,
    /// Set when the store is dropped: the worker stops.
    closed: bool,
}

impl State {
    /// Whether a commit at or below `snapshot` has not reached the indexes yet.
    fn holds_up_to(&self, snapshot: u64) -> bool {
        self.applying.is_some_and(|c| c <= snapshot)
            || self.queue.front().is_some_and(|t| t.commit <= snapshot)
    }
}

/// The queue of commits the full-text worker has yet to apply.
#[derive(Default)]
pub(crate) struct Pending {
    state: Mutex<State>,
    /// Wakes the worker: work queued, or the store closing.
    work: Condvar,
    /// Wakes readers and held-back writers: a batch applied.
    applied: Condvar,
}

impl Pending {
    /// Queues commit `commit`'s touched entities, starting the worker if it does not run yet.
    /// Called under the commit lock. Returns whether the queue is past its bound: the caller
    /// then waits with [`Pending::wait_room`] once it has released the commit lock. When no
    /// worker can be started the indexes are marked for a rebuild.
    pub(crate) fn push(
        self: &Arc<Self>,
        storage: &Arc<Storage>,
        commit: u64,
        nodes: &[u64],
        rels: &[u64],
    ) -> bool {
        let mut s = self.state.lock();
        if !s.worker && !s.closed {
            let (pending, weak) = (Arc::clone(self), Arc::downgrade(storage));
            let spawned = std::thread::Builder::new()
                .name("quiver-fulltext".to_owned())
                .spawn(move || pending.run(&weak));
            if spawned.is_err() {
                // The commit is not published yet, so it cannot be read here: the indexes
                // are rebuilt from the store by their next search instead.
                storage.fulltext_stale();
                return false;
            }
            s.worker = true;
        }
        s.queued_ids += nodes.len() + rels.len();
        s.queue.push_back(Touched {
            commit,
            nodes: nodes.to_vec(),
            rels: rels.to_vec(),
        });
        self.work.notify_one();
        s.queued_ids > PENDING_IDS_MAX
    }

    /// Waits until the queue is back under its bound.
    pub(crate) fn wait_room(&self) {
        let mut s = self.state.lock();
        while s.queued_ids > PENDING_IDS_MAX && s.worker {
            self.applied.wait(&mut s);
        }
    }

    /// Waits until every commit at or below `snapshot` has reached the indexes.
    pub(crate) fn wait_reflects(&self, snapshot: u64) {
        let mut s = self.state.lock();
        while s.holds_up_to(snapshot) && s.worker {
            self.applied.wait(&mut s);
        }
    }

    /// Waits until nothing is pending: before a path that changes data outside commits.
    pub(crate) fn wait_idle(&self) {
        self.wait_reflects(u64::MAX);
    }

    /// Stops the worker: the store is going away.
    pub(crate) fn close(&self) {
        let mut s = self.state.lock();
        s.closed = true;
        self.work.notify_all();
        self.applied.notify_all();
    }

    /// The worker: applies everything queued, a batch at a time, until the store closes.
    fn run(&self, storage: &Weak<Storage>) {
        loop {
            let batch: Vec<Touched> = {
                let mut s = self.state.lock();
                while s.queue.is_empty() && !s.closed {
                    self.work.wait(&mut s);
                }
                if s.closed {
                    s.worker = false;
                    s.queue.clear();
                    self.applied.notify_all();
                    return;
                }
                s.queued_ids = 0;
                s.applying = s.queue.front().map(|t| t.commit);
                s.queue.drain(..).collect()
            };
            if let Some(storage) = storage.upgrade() {
                // The last commit queued is published once its committer leaves the commit
                // lock: reading after taking it once reads every commit of the batch.
                drop(storage.commit.lock());
                let touched: Vec<(&[u64], &[u64])> = batch
                    .iter()
                    .map(|t| (t.nodes.as_slice(), t.rels.as_slice()))
                    .collect();
                storage.fulltext_apply(&touched);
            }
            let mut s = self.state.lock();
            s.applying = None;
            self.applied.notify_all();
        }
    }
}

impl Storage {
    /// Re-indexes, in every full-text index not marked for a rebuild, the entities some
    /// commits touched, as the newest committed state shows them, under a registered snapshot.
    pub(crate) fn fulltext_apply(&self, touched: &[(&[u64], &[u64])]) {
        let indexes = self.fulltext();
        if indexes.is_empty() {
            return;
        }
        let union = |ids: &mut dyn Iterator<Item = &[u64]>| {
            let mut ids: Vec<u64> = ids.flat_map(|i| i.iter().copied()).collect();
            ids.sort_unstable();
            ids.dedup();
            ids
        };
        let nodes = union(&mut touched.iter().map(|t| t.0));
        let rels = union(&mut touched.iter().map(|t| t.1));
        let snapshot = self.register(true);
        let view = View {
            snapshot,
            txid: 0,
            command: u32::MAX,
        };
        for index in &indexes {
            if index.is_dirty() {
                continue;
            }
            let ids = match index.spec.entity {
                FulltextEntity::Node => &nodes,
                FulltextEntity::Relationship => &rels,
            };
            if !ids.is_empty() && index.update(self, &view, ids).is_err() {
                index.mark_dirty();
            }
        }
        self.unregister(snapshot);
    }
}
