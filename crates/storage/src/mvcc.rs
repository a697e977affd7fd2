//! Version chains: undo deltas, commit cells and the visibility rule.
//!
//! Writers change an entity in place and push an undo delta onto its chain (newest first). Each
//! delta points at its transaction's [`TxCell`], which holds the transaction id until commit and
//! the commit number after: publishing a commit is one atomic store that flips every delta of
//! the transaction at once. A reader that meets a delta it must not see applies the delta's undo
//! to its copy of the entity; the first delta it may see ends the walk, since everything older
//! is older still.
//!
//! Deltas are recycled rather than freed: garbage collection and rollback hand the boxes they
//! cut to a [`DeltaPool`], and writers take their boxes from it in batches, so that a write
//! burst in steady state calls the allocator for no delta at all. (A malloc and a free per
//! change were a third of the build time, and the freed deltas fragmented the heap beside
//! the growing adjacency blocks.)

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use event_listener::{Event, Listener};
use parking_lot::Mutex;

use quiver_value::Value;

use crate::graph::AdjEntry;

/// Transaction ids start here, above every commit number, so one comparison of a cell against a
/// snapshot also says "uncommitted".
pub(crate) const TX_ID_BASE: u64 = 1 << 63;

/// A transaction's commit timestamp cell, shared by all its deltas.
///
/// It also says when the transaction ended (committed or rolled back), so that a writer that
/// met one of its uncommitted deltas can wait for it ([`WriterWait`]). The event allocates
/// nothing until someone listens, so a transaction nobody waits for pays one flag store.
pub(crate) struct TxCell {
    ts: AtomicU64,
    ended: AtomicBool,
    on_end: Event,
}

impl TxCell {
    pub(crate) fn new(txid: u64) -> Arc<Self> {
        Arc::new(TxCell {
            ts: AtomicU64::new(txid),
            ended: AtomicBool::new(false),
            on_end: Event::new(),
        })
    }

    pub(crate) fn get(&self) -> u64 {
        self.ts.load(Ordering::Acquire)
    }

    pub(crate) fn publish(&self, commit: u64) {
        self.ts.store(commit, Ordering::Release);
    }

    /// Marks the transaction ended and wakes its waiters. Called once its commit is published
    /// (and the store's last commit advanced past it) or its rollback has undone every change,
    /// so a waiter that begins anew after the wake sees the entity free.
    pub(crate) fn end(&self) {
        self.ended.store(true, Ordering::SeqCst);
        self.on_end.notify(usize::MAX);
    }

    fn has_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }
}

/// The transaction holding an uncommitted change that another writer met (see
/// `Transaction::conflicting_writer`), to wait for its end. Holds nothing of the store: the
/// holder's changes stay its own, and a waiter holding this keeps only a few bytes alive.
#[derive(Clone)]
pub struct WriterWait {
    cell: Arc<TxCell>,
}

impl std::fmt::Debug for WriterWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriterWait")
            .field("ended", &self.cell.has_ended())
            .finish_non_exhaustive()
    }
}

impl WriterWait {
    pub(crate) fn new(cell: Arc<TxCell>) -> Self {
        WriterWait { cell }
    }

    /// Whether the holder has committed or rolled back.
    pub fn has_ended(&self) -> bool {
        self.cell.has_ended()
    }

    /// Blocks until the holder ends or `deadline` passes; returns whether it ended. Sleeps on
    /// the holder's own event, never polls.
    pub fn wait_until(&self, deadline: Instant) -> bool {
        loop {
            if self.has_ended() {
                return true;
            }
            let listener = self.cell.on_end.listen();
            // An end between the first check and `listen` would be missed without this one.
            if self.has_ended() {
                return true;
            }
            if listener.wait_deadline(deadline).is_none() {
                return self.has_ended();
            }
        }
    }
}

/// What a reader needs to decide visibility: the snapshot, its own transaction, and the command
/// within it (its own changes made at earlier commands are visible, later ones are not).
#[derive(Clone, Copy, Debug)]
pub(crate) struct View {
    pub snapshot: u64,
    pub txid: u64,
    pub command: u32,
}

impl View {
    #[inline]
    pub(crate) fn sees(&self, d: &Delta) -> bool {
        let ts = d.cell.get();
        if ts == self.txid {
            d.command < self.command
        } else {
            ts <= self.snapshot
        }
    }
}

/// How to undo one change. Each variant names the change made; undoing it restores the state
/// before.
#[derive(Debug)]
pub(crate) enum Undo {
    /// The entity was created: before, it did not exist.
    Created,
    /// The entity was deleted: before, it existed.
    Deleted,
    /// The property was set or removed: before, it was `old`.
    Property {
        key: u32,
        old: Option<Value>,
    },
    LabelAdded(u32),
    LabelRemoved(u32),
    EdgeAdded {
        out: bool,
        entry: AdjEntry,
    },
    EdgeRemoved {
        out: bool,
        entry: AdjEntry,
    },
}

pub(crate) struct Delta {
    pub cell: Arc<TxCell>,
    pub command: u32,
    pub undo: Undo,
    pub next: Option<Box<Delta>>,
}

impl Drop for Delta {
    /// Chains can be long after a write burst; dropping them iteratively keeps the stack flat.
    fn drop(&mut self) {
        let mut next = self.next.take();
        while let Some(mut d) = next {
            next = d.next.take();
        }
    }
}

pub(crate) type Chain = Option<Box<Delta>>;

/// Delta boxes ready for reuse, each holding no undo and no successor.
pub(crate) type Spare = Vec<Box<Delta>>;

/// Most spare deltas the pool keeps: a few large write transactions' worth (64 bytes each);
/// beyond it, freed deltas go back to the allocator.
const DELTA_POOL_MAX: usize = 1 << 16;
/// How many deltas a writer takes from the pool at once, so the pool's lock is taken once per
/// this many changes.
const DELTA_REFILL: usize = 1024;

/// The store's spare deltas, shared by every writer and by garbage collection.
pub(crate) struct DeltaPool {
    free: Mutex<Spare>,
}

impl DeltaPool {
    pub(crate) fn new() -> Self {
        DeltaPool {
            free: Mutex::new(Vec::new()),
        }
    }

    /// Moves up to a batch of spare deltas into a writer's own spares.
    pub(crate) fn refill(&self, spare: &mut Spare) {
        let mut free = self.free.lock();
        let at = free.len().saturating_sub(DELTA_REFILL);
        spare.extend(free.drain(at..));
    }

    /// Takes back freed deltas (leaving `freed` empty), keeping at most `DELTA_POOL_MAX`.
    pub(crate) fn give(&self, freed: &mut Spare) {
        if freed.is_empty() {
            return;
        }
        let mut free = self.free.lock();
        let room = DELTA_POOL_MAX.saturating_sub(free.len());
        let keep = freed.len().min(room);
        free.extend(freed.drain(..keep));
        drop(free);
        freed.clear();
    }

    /// Returns every spare delta to the allocator.
    pub(crate) fn release(&self) {
        *self.free.lock() = Vec::new();
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.free.lock().len()
    }
}

/// Pushes a delta on top of a chain, in a spare box when there is one.
pub(crate) fn push(
    chain: &mut Chain,
    cell: &Arc<TxCell>,
    command: u32,
    undo: Undo,
    spare: &mut Spare,
) {
    let d = Delta {
        cell: cell.clone(),
        command,
        undo,
        next: chain.take(),
    };
    *chain = Some(match spare.pop() {
        Some(mut b) => {
            *b = d;
            b
        }
        None => Box::new(d),
    });
}

/// Empties a cut-off delta for reuse and keeps its box.
fn recycle(mut d: Box<Delta>, freed: &mut Spare) {
    d.next = None;
    d.undo = Undo::Created;
    freed.push(d);
}

/// The undos a view must apply, newest first.
pub(crate) fn invisible<'a>(chain: &'a Chain, view: &View) -> impl Iterator<Item = &'a Undo> {
    let view = *view;
    let mut cur = chain.as_deref();
    std::iter::from_fn(move || {
        let d = cur?;
        if view.sees(d) {
            cur = None;
            return None;
        }
        cur = d.next.as_deref();
        Some(&d.undo)
    })
}

/// Every delta still on the chain, newest first (garbage collection and index checks).
pub(crate) fn all(chain: &Chain) -> impl Iterator<Item = &Undo> {
    let mut cur = chain.as_deref();
    std::iter::from_fn(move || {
        let d = cur?;
        cur = d.next.as_deref();
        Some(&d.undo)
    })
}

/// Whether transaction `txid` with snapshot `snapshot` may write an entity with this chain:
/// first updater wins, so a newer or uncommitted delta from anyone else is a conflict.
pub(crate) fn writable(chain: &Chain, txid: u64, snapshot: u64) -> bool {
    match chain {
        None => true,
        Some(d) => {
            let ts = d.cell.get();
            ts == txid || ts <= snapshot
        }
    }
}

/// Removes the transaction's own deltas from the top of the chain, newest first, handing each
/// undo to `apply` and each box to `freed`. Returns how many were removed.
pub(crate) fn pop_own(
    chain: &mut Chain,
    txid: u64,
    freed: &mut Spare,
    mut apply: impl FnMut(Undo),
) -> usize {
    let mut n = 0;
    while let Some(d) = chain.take() {
        if d.cell.get() != txid {
            *chain = Some(d);
            break;
        }
        let mut d = d;
        *chain = d.next.take();
        let undo = std::mem::replace(&mut d.undo, Undo::Created);
        apply(undo);
        recycle(d, freed);
        n += 1;
    }
    n
}

/// Cuts the chain at the first delta committed at or before `oldest` (no live snapshot can
/// need it or anything older), handing the cut boxes to `freed`. Returns how many deltas were
/// freed.
pub(crate) fn truncate(chain: &mut Chain, oldest: u64, freed: &mut Spare) -> usize {
    let mut cur = chain;
    loop {
        let cut = match cur.as_deref() {
            None => return 0,
            Some(d) => d.cell.get() <= oldest,
        };
        if cut {
            let mut n = 0;
            let mut rest = cur.take();
            while let Some(mut d) = rest {
                rest = d.next.take();
                recycle(d, freed);
                n += 1;
            }
            return n;
        }
        cur = match cur {
            Some(d) => &mut d.next,
            None => return 0,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibility_follows_snapshot_and_command() {
        let committed = TxCell::new(TX_ID_BASE + 1);
        committed.publish(5);
        let own = TxCell::new(TX_ID_BASE + 2);
        let mut chain: Chain = None;
        let mut spare = Spare::new();
        push(&mut chain, &committed, 0, Undo::LabelAdded(1), &mut spare);
        push(&mut chain, &own, 0, Undo::LabelAdded(2), &mut spare);
        push(&mut chain, &own, 1, Undo::LabelAdded(3), &mut spare);

        let at = |snapshot, txid, command| {
            let v = View {
                snapshot,
                txid,
                command,
            };
            invisible(&chain, &v)
                .map(|u| match u {
                    Undo::LabelAdded(l) => *l,
                    _ => 0,
                })
                .collect::<Vec<_>>()
        };
        // Another reader at snapshot 4 undoes everything; at 5 it sees the committed change.
        assert_eq!(at(4, TX_ID_BASE + 9, 0), vec![3, 2, 1]);
        assert_eq!(at(5, TX_ID_BASE + 9, 0), vec![3, 2]);
        // The owner at command 1 sees command 0's change only.
        assert_eq!(at(5, TX_ID_BASE + 2, 1), vec![3]);
        assert_eq!(at(5, TX_ID_BASE + 2, 2), Vec::<u32>::new());
        assert!(writable(&chain, TX_ID_BASE + 2, 5));
        assert!(!writable(&chain, TX_ID_BASE + 9, 5));

        let mut popped = Vec::new();
        assert_eq!(
            pop_own(&mut chain, TX_ID_BASE + 2, &mut spare, |u| popped.push(u)),
            2
        );
        assert!(writable(&chain, TX_ID_BASE + 9, 5));
        assert!(!writable(&chain, TX_ID_BASE + 9, 4));
        assert_eq!(truncate(&mut chain, 4, &mut spare), 0);
        assert_eq!(truncate(&mut chain, 5, &mut spare), 1);
        assert!(chain.is_none());
        // Every box came back, emptied, and the next pushes reuse them.
        assert_eq!(spare.len(), 3);
        assert!(
            spare
                .iter()
                .all(|d| d.next.is_none() && matches!(d.undo, Undo::Created))
        );
        push(&mut chain, &own, 0, Undo::LabelAdded(4), &mut spare);
        assert_eq!(spare.len(), 2);
    }

    #[test]
    fn the_pool_is_bounded_and_hands_out_batches() {
        let pool = DeltaPool::new();
        let cell = TxCell::new(1);
        let mut freed: Spare = (0..DELTA_POOL_MAX + 10)
            .map(|_| {
                Box::new(Delta {
                    cell: cell.clone(),
                    command: 0,
                    undo: Undo::Created,
                    next: None,
                })
            })
            .collect();
        pool.give(&mut freed);
        assert!(freed.is_empty());
        assert_eq!(pool.len(), DELTA_POOL_MAX);
        let mut spare = Spare::new();
        pool.refill(&mut spare);
        assert_eq!(spare.len(), DELTA_REFILL);
        assert_eq!(pool.len(), DELTA_POOL_MAX - DELTA_REFILL);
        pool.release();
        assert_eq!(pool.len(), 0);
    }

    #[test]
    fn long_chains_drop_without_recursion() {
        let cell = TxCell::new(1);
        let mut chain: Chain = None;
        let mut spare = Spare::new();
        for _ in 0..200_000 {
            push(&mut chain, &cell, 0, Undo::Created, &mut spare);
        }
        drop(chain);
    }
}
