//! Parallel execution of one query: an aggregation whose input is a pipeline over one scan
//! runs on several threads at once.
//!
//! The scan is cut into morsels, ranges of node ids handed out one at a time from a shared
//! counter, so a worker that drew dense or well-connected nodes simply draws fewer morsels.
//! Each worker builds its own copy of the pipeline from the plan, with the scan replaced by a
//! [`MorselScan`] drawing from the shared counter, and aggregates what its copy makes into
//! groups of its own (counted against its share of the query's memory); the groups are merged
//! into the first worker's when all are done. The calling thread is the first worker; the
//! others are helper threads lent by a [`HelperPool`], which bounds the helpers all queries
//! have at once: when the pool has none free, a query runs on its own thread alone.
//!
//! A pipeline is split only when every operator between the aggregation and the scan handles
//! each row on its own (expands, filters, projections, unwinds, and the read-only subqueries
//! of apply operators), the scan reads the argument row only, and every aggregate can be
//! merged exactly from partial results (`count`, `sum`, `avg`, `min`, `max`, none `DISTINCT`).
//! The workers read through the query's transaction and share its cancellation flag and
//! deadline, so `TERMINATE TRANSACTION` and timeouts stop all of them.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use quiver_storage::{LabelId, NodeCursor};

use super::{BoxCursor, Cursor, Cx};
use crate::error::{Error, Result};
use crate::eval::graph_fns::node_value;
use crate::ir::{AggKind, AggSpec, Op, PlanNode, Row};
use crate::tokens::Token;

/// Morsels each worker draws on average: enough that a worker held up by a few dense
/// nodes is made up for by the others drawing more.
const MORSELS_PER_WORKER: u64 = 16;

/// The most node ids in one morsel: small enough to spread a skewed scan, large enough that
/// drawing one (an atomic add and a cursor) is nothing beside its rows.
const MORSEL_IDS_MAX: u64 = 4096;

/// Helper threads queries may borrow, shared by every query that holds the pool: a query
/// that wants `n` workers borrows up to `n - 1` helpers and runs with what it got.
#[derive(Clone, Debug)]
pub struct HelperPool(Arc<Helpers>);

#[derive(Debug)]
struct Helpers {
    free: AtomicUsize,
    size: usize,
    /// Helpers lent since the pool was made.
    lent: AtomicU64,
}

impl HelperPool {
    /// A pool of `size` helper threads.
    pub fn new(size: usize) -> HelperPool {
        HelperPool(Arc::new(Helpers {
            free: AtomicUsize::new(size),
            size,
            lent: AtomicU64::new(0),
        }))
    }

    /// The machine's pool, which every database without a pool of its own shares: one helper
    /// per core beyond the first, so queries never run on more threads than there are cores
    /// beyond the threads that started them.
    pub fn machine() -> HelperPool {
        static MACHINE: std::sync::OnceLock<HelperPool> = std::sync::OnceLock::new();
        MACHINE
            .get_or_init(|| {
                let cores = std::thread::available_parallelism().map_or(1, usize::from);
                HelperPool::new(cores.saturating_sub(1))
            })
            .clone()
    }

    /// Helpers the pool holds when none are lent.
    pub fn size(&self) -> usize {
        self.0.size
    }

    /// Helpers lent since the pool was made, each time counted once.
    pub fn lent(&self) -> u64 {
        self.0.lent.load(Ordering::Relaxed)
    }

    /// Borrows up to `wanted` helpers: as many as are free, perhaps none. They go back when
    /// the loan is dropped.
    fn borrow(&self, wanted: usize) -> Loan {
        let mut free = self.0.free.load(Ordering::Relaxed);
        loop {
            let n = wanted.min(free);
            if n == 0 {
                return Loan {
                    pool: self.clone(),
                    n: 0,
                };
            }
            match self.0.free.compare_exchange_weak(
                free,
                free - n,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    self.0.lent.fetch_add(n as u64, Ordering::Relaxed);
                    return Loan {
                        pool: self.clone(),
                        n,
                    };
                }
                Err(now) => free = now,
            }
        }
    }
}

/// Helpers borrowed from a pool, given back when dropped.
struct Loan {
    pool: HelperPool,
    n: usize,
}

impl Drop for Loan {
    fn drop(&mut self) {
        self.pool.0.free.fetch_add(self.n, Ordering::AcqRel);
    }
}

/// How an aggregation's input may be split among workers: the scan at its bottom.
#[derive(Debug)]
pub(crate) struct Split {
    /// The scan's plan node, which each worker's copy of the pipeline replaces.
    leaf: Arc<PlanNode>,
    slot: usize,
    label: Option<Arc<Token>>,
}

/// Whether an aggregation of `aggs` over `input` may run on several workers: `Some` with the
/// scan they share when every operator down to a scan handles each row on its own.
pub(crate) fn split(input: &Arc<PlanNode>, aggs: &[AggSpec]) -> Option<Split> {
    if !aggs.iter().all(mergeable) {
        return None;
    }
    let mut node = input;
    loop {
        node = match &node.op {
            Op::AllNodes { input, slot } if matches!(input.op, Op::Once) => {
                return Some(Split {
                    leaf: node.clone(),
                    slot: *slot,
                    label: None,
                });
            }
            Op::LabelScan { input, slot, label } if matches!(input.op, Op::Once) => {
                return Some(Split {
                    leaf: node.clone(),
                    slot: *slot,
                    label: Some(label.clone()),
                });
            }
            Op::Expand { input, .. }
            | Op::VarExpand { input, .. }
            | Op::ShortestPath { input, .. }
            | Op::Filter { input, .. }
            | Op::Project { input, .. }
            | Op::Unwind { input, .. } => input,
            Op::Optional { input, inner, .. }
            | Op::SemiApply { input, inner, .. }
            | Op::Apply { input, inner } => {
                if !reads_only(inner) {
                    return None;
                }
                input
            }
            _ => return None,
        };
    }
}

/// Whether an aggregate's partial results merge into exactly what one pass would give.
fn mergeable(spec: &AggSpec) -> bool {
    !spec.distinct
        && matches!(
            spec.kind,
            AggKind::CountStar
                | AggKind::Count
                | AggKind::Sum
                | AggKind::Avg
                | AggKind::Min
                | AggKind::Max
        )
}

/// Whether a subquery's plan only reads (so workers may run copies of it side by side).
fn reads_only(plan: &PlanNode) -> bool {
    let reads = matches!(
        plan.op,
        Op::Once
            | Op::AllNodes { .. }
            | Op::LabelScan { .. }
            | Op::IndexSeek { .. }
            | Op::SchemaIndexSeek { .. }
            | Op::NodeById { .. }
            | Op::NodeCount { .. }
            | Op::RelCount { .. }
            | Op::ChainCount { .. }
            | Op::Expand { .. }
            | Op::VarExpand { .. }
            | Op::ShortestPath { .. }
            | Op::PathSearch { .. }
            | Op::Filter { .. }
            | Op::Project { .. }
            | Op::Aggregate { .. }
            | Op::Distinct { .. }
            | Op::Sort { .. }
            | Op::Top { .. }
            | Op::Skip { .. }
            | Op::Limit { .. }
            | Op::Unwind { .. }
            | Op::Optional { .. }
            | Op::SemiApply { .. }
            | Op::Apply { .. }
            | Op::Union { .. }
    );
    reads && plan.op.children().iter().all(|c| reads_only(c))
}

impl Split {
    /// Workers worth running for the scan as the transaction sees it (see [`worth`]): 1
    /// when its label has never been used.
    fn workers(&self, cx: &Cx) -> Result<usize> {
        let nodes = match &self.label {
            None => cx.tx.count_nodes()?,
            Some(label) => match label.label(&cx.storage) {
                Some(label) => cx.tx.count_label(label)?,
                None => return Ok(1),
            },
        };
        Ok(worth(cx, nodes))
    }
}

/// The morsels of one scan, drawn by every worker from one counter.
pub(crate) struct Morsels {
    /// The scan plan node whose cursors draw from here.
    leaf: Arc<PlanNode>,
    slot: usize,
    label: Option<LabelId>,
    /// The node ids' ranges.
    ids: Draws,
}

/// Ranges of `0..bound` handed out to workers: worker k's first is the k-th, so that every
/// worker has some of the work when there is enough of it however late its thread starts;
/// the rest go to whoever asks next.
pub(crate) struct Draws {
    next: AtomicU64,
    bound: u64,
    size: u64,
    /// Set when a worker fails: the others draw nothing more.
    stopped: AtomicBool,
}

impl Draws {
    /// Ranges of `0..bound` for `workers` workers, [`MORSELS_PER_WORKER`] each on average
    /// and none longer than [`MORSEL_IDS_MAX`].
    fn new(bound: u64, workers: usize) -> Draws {
        let workers = workers.max(1) as u64;
        let size = (bound / (workers * MORSELS_PER_WORKER)).clamp(1, MORSEL_IDS_MAX);
        Draws {
            next: AtomicU64::new(workers.saturating_mul(size)),
            bound,
            size,
            stopped: AtomicBool::new(false),
        }
    }

    /// The next range for a worker whose own first range is `first` until it has drawn it,
    /// until there are none.
    fn draw(&self, first: &mut Option<usize>) -> Option<Range<u64>> {
        if self.stopped.load(Ordering::Relaxed) {
            return None;
        }
        let start = match first.take() {
            Some(k) => (k as u64).saturating_mul(self.size),
            None => self.next.fetch_add(self.size, Ordering::Relaxed),
        };
        (start < self.bound).then(|| start..start.saturating_add(self.size).min(self.bound))
    }
}

impl Morsels {
    /// Whether `plan` is the scan whose morsels these are.
    pub fn replaces(&self, plan: &Arc<PlanNode>) -> bool {
        Arc::ptr_eq(&self.leaf, plan)
    }

    /// The scan's cursor in worker `worker`'s copy of the pipeline.
    pub fn cursor(self: &Arc<Self>, worker: usize) -> BoxCursor {
        Box::new(MorselScan {
            morsels: self.clone(),
            first: Some(worker),
            open: None,
        })
    }
}

/// A scan of the morsels a worker draws: the nodes of each range in id order.
struct MorselScan {
    morsels: Arc<Morsels>,
    /// The worker's own first morsel, until drawn.
    first: Option<usize>,
    open: Option<NodeCursor>,
}

impl Cursor for MorselScan {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        loop {
            cx.tick()?;
            if let Some(cursor) = &mut self.open
                && let Some(id) = cursor.next().transpose()?
            {
                cx.db_hits += 1;
                row[self.morsels.slot] = node_value(id);
                return Ok(true);
            }
            let Some(ids) = self.morsels.ids.draw(&mut self.first) else {
                self.open = None;
                return Ok(false);
            };
            self.open = Some(match self.morsels.label {
                Some(label) => cx.tx.scan_label_in(label, ids)?,
                None => cx.tx.scan_nodes_in(ids)?,
            });
        }
    }

    fn reset(&mut self) {
        self.open = None;
    }
}

/// What one worker made of its morsels: its groups, and the bytes counted for them.
pub(crate) struct Part<G> {
    pub groups: G,
    pub held: usize,
}

/// Runs `work` on as many workers as the scan is worth and the pool lends, each over a copy
/// of `input` built with the scan drawing morsels; `None` when one worker is all it is worth
/// (the caller then runs the pipeline it already built). The first part is the calling
/// thread's, its bytes counted in `cx`; the helpers' parts come after, their bytes no longer
/// counted anywhere (their contexts are gone): the caller counts what it keeps of them.
pub(crate) fn run<G: Send>(
    cx: &mut Cx,
    row: &Row,
    input: &Arc<PlanNode>,
    split: &Split,
    work: impl Fn(&mut BoxCursor, &mut Cx, &mut Row) -> Result<Part<G>> + Sync,
) -> Result<Option<Vec<Part<G>>>> {
    let wanted = split.workers(cx)?;
    let label = match &split.label {
        Some(token) => match token.label(&cx.storage) {
            Some(label) => Some(label),
            None => return Ok(None),
        },
        None => None,
    };
    let bound = cx.tx.node_id_bound();
    let morsels = |workers: usize| Morsels {
        leaf: split.leaf.clone(),
        slot: split.slot,
        label,
        ids: Draws::new(bound, workers),
    };
    workers(cx, wanted, morsels, |cx, _, _| {
        let mut row = row.clone();
        let mut cursor = super::build(input, cx)?;
        work(&mut cursor, cx, &mut row)
    })
}

/// How many workers a share of work is worth: one per
/// [`crate::EngineConfig::parallel_scan_min`] units of it, at most
/// [`crate::EngineConfig::query_workers_max`]; 1 when the query is profiled (each
/// operator's figures would be one worker's).
pub(crate) fn worth(cx: &Cx, units: u64) -> usize {
    let config = &cx.shared.config;
    if config.query_workers_max < 2 || cx.profile.is_some() {
        return 1;
    }
    let wanted = usize::try_from(units / config.parallel_scan_min.max(1)).unwrap_or(usize::MAX);
    wanted.clamp(1, config.query_workers_max)
}

/// Runs `work` on up to `wanted` workers at once, as many as the pool lends helpers for: the
/// calling thread with `cx`, each helper with a context forked from it. Each may hold an
/// equal share of the memory the query has left; all draw their share of the work from
/// what `shared` makes for the number of workers there will be (handed to each), which
/// stops handing out work once one fails. `None`, without running anything, when no helper is free or one worker
/// is all the work is worth. The parts come in worker order, the calling thread's first:
/// its bytes counted in `cx`, the helpers' no longer counted (their contexts are gone).
pub(crate) fn workers<T: Send, S: Shared>(
    cx: &mut Cx,
    wanted: usize,
    shared: impl FnOnce(usize) -> S,
    work: impl Fn(&mut Cx, &S, usize) -> Result<T> + Sync,
) -> Result<Option<Vec<T>>> {
    if wanted < 2 {
        return Ok(None);
    }
    let loan = cx.shared.helpers.borrow(wanted - 1);
    if loan.n == 0 {
        return Ok(None);
    }
    let workers = loan.n + 1;
    let shared = Arc::new(shared(workers));
    let morsels = shared.morsels();
    let room = cx
        .memory_bytes_max
        .saturating_sub(cx.memory_bytes.saturating_add(cx.writes.held_bytes()));
    let share = room / workers;
    let helpers: Vec<Cx> = (1..workers)
        .map(|k| cx.fork(share, morsels.clone().map(|m| (m, k))))
        .collect();
    let limit = std::mem::replace(&mut cx.memory_bytes_max, cx.memory_bytes + share);
    let own = std::mem::replace(&mut cx.morsels, morsels.map(|m| (m, 0)));
    let work = &work;
    let from = shared.as_ref();
    let stop = |part: Result<T>| {
        if part.is_err() {
            shared.stop();
        }
        part
    };
    let (first, others) = std::thread::scope(|scope| {
        let handles: Vec<_> = helpers
            .into_iter()
            .enumerate()
            .map(|(k, mut hcx)| {
                scope.spawn(move || {
                    let part = stop(work(&mut hcx, from, k + 1));
                    (part, hcx.db_hits, hcx.memory_peak_bytes)
                })
            })
            .collect();
        let first = stop(work(cx, from, 0));
        let others: Vec<_> = handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    let e = Error::runtime(
                        quiver_status::Status::UnknownError,
                        None,
                        "a worker of a parallel query panicked",
                    );
                    (Err(e), 0, 0)
                })
            })
            .collect::<Vec<_>>();
        (first, others)
    });
    cx.morsels = own;
    cx.memory_bytes_max = limit;
    drop(loan);
    let mut parts = vec![first?];
    let mut peaks = 0usize;
    for (part, db_hits, peak) in others {
        cx.db_hits += db_hits;
        peaks = peaks.saturating_add(peak);
        parts.push(part?);
    }
    cx.memory_peak_bytes = cx
        .memory_peak_bytes
        .max(cx.memory_bytes.saturating_add(peaks));
    Ok(Some(parts))
}

/// What the workers of one parallel run draw their work from.
pub(crate) trait Shared: Send + Sync + 'static {
    /// No more work after this: a worker failed.
    fn stop(&self);
    /// The scan the workers' pipelines draw morsels of, if they run a pipeline.
    fn morsels(self: &Arc<Self>) -> Option<Arc<Morsels>> {
        None
    }
}

impl Shared for Morsels {
    fn stop(&self) {
        self.ids.stopped.store(true, Ordering::Relaxed);
    }

    fn morsels(self: &Arc<Self>) -> Option<Arc<Morsels>> {
        Some(self.clone())
    }
}

/// Chunks of a list of `len` items, drawn by every worker (see [`Draws`]).
pub(crate) struct Chunks(Draws);

impl Chunks {
    /// Chunks of `len` items for `workers` workers.
    pub fn new(len: usize, workers: usize) -> Chunks {
        Chunks(Draws::new(len as u64, workers))
    }

    /// The next chunk's indexes for a worker whose own first chunk is `first` until it has
    /// drawn it, until there are none.
    pub fn draw(&self, first: &mut Option<usize>) -> Option<Range<usize>> {
        let range = self.0.draw(first)?;
        Some(range.start as usize..range.end as usize)
    }
}

impl Shared for Chunks {
    fn stop(&self) {
        self.0.stopped.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_lends_what_it_has_and_takes_it_back() {
        let pool = HelperPool::new(3);
        let a = pool.borrow(2);
        let b = pool.borrow(5);
        let c = pool.borrow(1);
        assert_eq!((a.n, b.n, c.n), (2, 1, 0));
        drop(a);
        assert_eq!(pool.borrow(5).n, 2);
        drop(b);
        assert_eq!(pool.borrow(5).n, 3);
        assert_eq!(pool.lent(), 2 + 1 + 2 + 3);
    }

    /// Every worker's own first range goes to it whoever draws first; together the workers
    /// draw every id once; after a stop no one draws more.
    #[test]
    fn draws_cover_every_id_once_give_each_worker_its_first_and_stop_when_told() {
        let draws = Draws::new(10_001, 3);
        assert_eq!(draws.size, 208);
        let mut firsts = [Some(0), Some(1), Some(2)];
        let mut ids = Vec::new();
        // The last worker draws first, and more than its own share.
        for _ in 0..5 {
            ids.extend(draws.draw(&mut firsts[2]).expect("ranges left"));
        }
        assert_eq!(ids[..208], (416..624).collect::<Vec<_>>()[..]);
        while let Some(range) = draws.draw(&mut firsts[0]) {
            ids.extend(range);
            ids.extend(draws.draw(&mut firsts[1]).into_iter().flatten());
        }
        ids.sort_unstable();
        assert_eq!(ids, (0..10_001).collect::<Vec<_>>());
        let draws = Draws::new(2, 4);
        assert_eq!(draws.draw(&mut Some(3)), None);
        assert_eq!(draws.draw(&mut Some(1)), Some(1..2));
        draws.stopped.store(true, Ordering::Relaxed);
        assert_eq!(draws.draw(&mut Some(0)), None);
    }
}
