//! The store: arenas, tokens, schema, watermarks, the snapshot registry and the commit lock.

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

use event_listener::{Event, EventListener, Listener};
use parking_lot::{Mutex, RwLock};

use crate::arena::{Arena, Bitmap, Table};
use crate::commit_log::CommitLog;
use crate::counts::Counts;
use crate::error::Result;
use crate::gc::GcBatch;
use crate::graph::{NodeRec, RelRec};
use crate::ids::{LabelId, PropKeyId, REL_TYPES_MAX, RelTypeId, TOKENS_MAX};
use crate::mvcc::TX_ID_BASE;
use crate::schema::{IndexInfo, IndexState, Schema};
use crate::security::Security;
use crate::tokens::TokenTable;

/// Labels are capped because each label in use owns a bitmap over the node id space.
pub const LABELS_MAX: u32 = 1 << 16;

pub(crate) struct CommitSlot {
    pub log: Option<Arc<dyn CommitLog>>,
    /// The newest ticket the log handed out: tickets follow the commit order.
    pub last_ticket: Option<crate::commit_log::DurabilityTicket>,
    /// The newest commit time stamped or replayed, in Unix microseconds (0: none yet).
    pub last_commit_micros: i64,
}

impl CommitSlot {
    /// The time for the commit being numbered now: the wall clock, but never earlier than
    /// the previous commit's, so commit times follow commit numbers even when the clock
    /// steps back.
    pub fn stamp_commit_time(&mut self) -> i64 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
        self.last_commit_micros = self.last_commit_micros.max(now);
        self.last_commit_micros
    }
}

/// The in-memory graph store. Share it as `Arc<Storage>`; every method takes `&self`.
pub struct Storage {
    pub(crate) nodes: Table<NodeRec>,
    pub(crate) rels: Table<RelRec>,
    pub(crate) next_node: AtomicU64,
    pub(crate) next_rel: AtomicU64,
    pub(crate) labels: TokenTable,
    pub(crate) types: TokenTable,
    pub(crate) keys: TokenTable,
    label_bits: Arena<OnceLock<Bitmap>, 8, 8, 0>,
    pub(crate) schema: RwLock<Arc<Schema>>,
    /// Users and roles (see [`crate::Security`]); replaced whole at commit.
    pub(crate) security: RwLock<Arc<Security>>,
    /// The vector and full-text indexes, copy-on-write like the schema (see `derived`).
    pub(crate) derived: RwLock<Arc<Vec<crate::derived::DerivedIndex>>>,
    /// Commits on their way to the full-text indexes (see `fulltext::pending`).
    pub(crate) fulltext_pending: Arc<crate::fulltext::Pending>,
    /// Property existence and type constraints, copy-on-write (see `constraints`).
    pub(crate) property_constraints: RwLock<crate::spec::PropertyConstraints>,
    /// Changes whenever the schema does, to a value no store in this process has had (see
    /// [`Storage::schema_epoch`]).
    schema_epoch: AtomicU64,
    pub(crate) counts: Counts,
    /// Serialises commit numbering, log appends and publication.
    pub(crate) commit: Mutex<CommitSlot>,
    pub(crate) has_log: AtomicBool,
    /// The capture mode ([`crate::Capture`]'s code): what commits log of their changes.
    pub(crate) capture: std::sync::atomic::AtomicU8,
    /// The commit log read back, for change data capture (see [`crate::History`]).
    pub(crate) history: RwLock<Option<std::sync::Weak<dyn crate::change::History>>>,
    /// The newest commit number handed out.
    pub(crate) last_committed: AtomicU64,
    /// The newest commit new readers see; equal to `last_committed` unless a durability
    /// policy holds readers back to what is on disk.
    pub(crate) visible: AtomicU64,
    /// Notified after every advance of `visible`: what [`Storage::wait_visible`] and
    /// [`VisibleWait`] sleep on, so no waiter polls.
    visible_advanced: Event,
    pub(crate) follow_commits: AtomicBool,
    next_txid: AtomicU64,
    /// Live snapshots (start commit number -> how many transactions hold it).
    registry: Mutex<BTreeMap<u64, usize>>,
    pub(crate) gc_queue: Mutex<VecDeque<GcBatch>>,
    pub(crate) gc_lock: Mutex<()>,
    pub(crate) live_deltas: AtomicI64,
    pub(crate) deltas: crate::mvcc::DeltaPool,
}

impl Drop for Storage {
    fn drop(&mut self) {
        self.fulltext_pending.close();
    }
}

/// A future resolving once the visible watermark reaches a commit (see
/// [`Storage::visible_wait`]). Runtime-agnostic: it is woken by the advance itself.
pub struct VisibleWait {
    storage: Arc<Storage>,
    target: u64,
    listener: Option<EventListener>,
}

impl Future for VisibleWait {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        loop {
            if this.storage.visible_watermark() >= this.target {
                return Poll::Ready(());
            }
            match this.listener.as_mut() {
                // Listen first, then look again (the loop): an advance in between is seen.
                None => this.listener = Some(this.storage.visible_advanced.listen()),
                Some(listener) => match Pin::new(listener).poll(cx) {
                    Poll::Ready(()) => this.listener = None,
                    Poll::Pending => return Poll::Pending,
                },
            }
        }
    }
}

impl std::fmt::Debug for VisibleWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VisibleWait")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// Figures for tests, metrics and the memory benchmark.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StorageStats {
    pub live_deltas: i64,
    pub index_entries: usize,
    pub label_bits: u64,
    pub gc_pending_batches: usize,
    pub count_history: usize,
    pub live_snapshots: usize,
}

impl Storage {
    /// The users and roles as last committed. A transaction that changes them passes this
    /// `Arc` back as its base, so a concurrent change is detected at commit.
    pub fn security(&self) -> Arc<Security> {
        self.security.read().clone()
    }

    /// Sets the catalogue outside any transaction: for loading a snapshot, where it is a
    /// creation like the schema's.
    pub fn load_security(&self, security: Security) {
        *self.security.write() = Arc::new(security);
    }

    pub fn new() -> Arc<Storage> {
        Arc::new(Storage {
            nodes: Table::new(),
            rels: Table::new(),
            next_node: AtomicU64::new(0),
            next_rel: AtomicU64::new(0),
            labels: TokenTable::new("label", LABELS_MAX),
            types: TokenTable::new("relationship type", REL_TYPES_MAX),
            keys: TokenTable::new("property key", TOKENS_MAX),
            label_bits: Arena::new(),
            schema: RwLock::new(Arc::new(Schema::default())),
            security: RwLock::new(Arc::new(Security::default())),
            property_constraints: RwLock::default(),
            derived: RwLock::new(Arc::new(Vec::new())),
            fulltext_pending: Arc::default(),
            schema_epoch: AtomicU64::new(fresh_schema_epoch()),
            counts: Counts::default(),
            commit: Mutex::new(CommitSlot {
                log: None,
                last_ticket: None,
                last_commit_micros: 0,
            }),
            has_log: AtomicBool::new(false),
            capture: std::sync::atomic::AtomicU8::new(0),
            history: RwLock::new(None),
            last_committed: AtomicU64::new(0),
            visible: AtomicU64::new(0),
            visible_advanced: Event::new(),
            follow_commits: AtomicBool::new(true),
            next_txid: AtomicU64::new(TX_ID_BASE + 1),
            registry: Mutex::new(BTreeMap::new()),
            gc_queue: Mutex::new(VecDeque::new()),
            gc_lock: Mutex::new(()),
            live_deltas: AtomicI64::new(0),
            deltas: crate::mvcc::DeltaPool::new(),
        })
    }

    /// The newest commit time this store stamped or replayed, in Unix microseconds; `None`
    /// before any (a fresh store, or one recovered from records without times).
    pub fn last_commit_time(&self) -> Option<i64> {
        let micros = self.commit.lock().last_commit_micros;
        (micros != 0).then_some(micros)
    }

    /// Remembers a replayed commit's time, so the next commit stamped here is not earlier.
    pub(crate) fn note_commit_time(&self, micros: i64) {
        let mut slot = self.commit.lock();
        slot.last_commit_micros = slot.last_commit_micros.max(micros);
    }

    /// The installed commit log, if any: what the engine asks to wait for acknowledgements.
    pub fn commit_log(&self) -> Option<Arc<dyn CommitLog>> {
        self.commit.lock().log.clone()
    }

    /// Installs the commit log every later commit appends to. Transactions begun before keep
    /// the choice they began with (they record redo only when a log was present).
    pub fn set_commit_log(&self, log: Option<Arc<dyn CommitLog>>) {
        let mut slot = self.commit.lock();
        self.has_log.store(log.is_some(), Ordering::Release);
        slot.log = log;
        slot.last_ticket = None;
    }

    pub fn last_committed(&self) -> u64 {
        self.last_committed.load(Ordering::Acquire)
    }

    pub fn visible_watermark(&self) -> u64 {
        self.visible.load(Ordering::Acquire)
    }

    /// Whether a commit immediately becomes visible to new readers (the default). Durable
    /// modes turn this off and call [`Storage::advance_visible`] as fsyncs complete.
    pub fn set_readers_follow_commits(&self, follow: bool) {
        self.follow_commits.store(follow, Ordering::Release);
        if follow {
            self.advance_visible(self.last_committed());
        }
    }

    /// Lets new readers see every commit up to `commit` (capped at the last commit), and wakes
    /// whoever waits for a commit up to there.
    pub fn advance_visible(&self, commit: u64) {
        let commit = commit.min(self.last_committed());
        let before = self.visible.fetch_max(commit, Ordering::AcqRel);
        debug_assert!(
            before.max(commit) <= self.last_committed(),
            "the visible watermark passed the last commit"
        );
        if commit > before {
            self.visible_advanced.notify(usize::MAX);
        }
    }

    /// Publishes `commit` to readers at its commit (readers follow commits). Called under the
    /// commit lock, in commit order.
    pub(crate) fn publish_visible(&self, commit: u64) {
        self.visible.store(commit, Ordering::Release);
        self.visible_advanced.notify(usize::MAX);
    }

    /// Blocks until new readers see `commit`, or until `deadline`; returns whether they do.
    /// Sleeps until the watermark advances, never polls.
    pub fn wait_visible(&self, commit: u64, deadline: Instant) -> bool {
        loop {
            if self.visible_watermark() >= commit {
                return true;
            }
            let listener = self.visible_advanced.listen();
            // An advance between the check and `listen` would be missed without this one.
            if self.visible_watermark() >= commit {
                return true;
            }
            if listener.wait_deadline(deadline).is_none() {
                return self.visible_watermark() >= commit;
            }
        }
    }

    /// A future resolving once new readers see `commit`: [`Storage::wait_visible`] for
    /// executors, with no deadline of its own (race it against the executor's timer).
    pub fn visible_wait(self: &Arc<Self>, commit: u64) -> VisibleWait {
        VisibleWait {
            storage: Arc::clone(self),
            target: commit,
            listener: None,
        }
    }

    pub(crate) fn next_txid(&self) -> u64 {
        self.next_txid.fetch_add(1, Ordering::Relaxed)
    }

    /// Registers a snapshot and returns it; reading the watermark under the registry lock is
    /// what keeps garbage collection from freeing what the new snapshot needs.
    pub(crate) fn register(&self, write: bool) -> u64 {
        let mut r = self.registry.lock();
        let s = if write {
            self.last_committed()
        } else {
            self.visible_watermark()
        };
        *r.entry(s).or_insert(0) += 1;
        s
    }

    pub(crate) fn unregister(&self, snapshot: u64) {
        let mut r = self.registry.lock();
        if let Some(n) = r.get_mut(&snapshot) {
            *n -= 1;
            if *n == 0 {
                r.remove(&snapshot);
            }
        }
    }

    /// How many transactions hold a snapshot (bulk paths run only when none does).
    pub(crate) fn live_snapshots(&self) -> usize {
        self.registry.lock().values().sum()
    }

    /// Whether garbage collection has batches queued.
    pub(crate) fn gc_pending(&self) -> bool {
        !self.gc_queue.lock().is_empty()
    }

    /// The oldest snapshot any transaction holds or may yet take.
    pub(crate) fn oldest_snapshot(&self) -> u64 {
        let r = self.registry.lock();
        let v = self.visible_watermark();
        r.keys().next().map_or(v, |&k| k.min(v))
    }

    pub(crate) fn label_bitmap(&self, label: u32) -> Option<&Bitmap> {
        Some(
            self.label_bits
                .get_or_alloc(u64::from(label))?
                .get_or_init(Bitmap::new),
        )
    }

    pub(crate) fn label_bitmap_if_any(&self, label: u32) -> Option<&Bitmap> {
        self.label_bits.get(u64::from(label))?.get()
    }

    /// The end node of a relationship, looked up through its start node.
    pub(crate) fn rel_end(&self, start: u64, rel: u64, ty: u32) -> Option<u64> {
        crate::read::rel_end(&self.nodes.get(start)?.lock(), rel, ty)
    }

    pub(crate) fn schema(&self) -> Arc<Schema> {
        self.schema.read().clone()
    }

    /// Names the schema this store has now: it changes with every index or constraint created,
    /// brought online or dropped, however the change arrived (a transaction, a replayed or
    /// replicated record, a bulk load), and no two stores of the process ever share a value.
    /// What was planned under one epoch may be planned again under the next.
    pub fn schema_epoch(&self) -> u64 {
        self.schema_epoch.load(Ordering::Acquire)
    }

    /// Called after every change of the schema (see [`Storage::schema_epoch`]).
    pub(crate) fn schema_replaced(&self) {
        self.schema_epoch
            .store(fresh_schema_epoch(), Ordering::Release);
    }

    // ---- tokens ----

    pub fn label_id(&self, name: &str) -> Option<LabelId> {
        self.labels.id(name).map(LabelId)
    }

    pub fn get_or_create_label(&self, name: &str) -> Result<LabelId> {
        self.labels.get_or_create(name).map(LabelId)
    }

    pub fn label_name(&self, id: LabelId) -> Option<Arc<str>> {
        self.labels.name(id.0)
    }

    pub fn all_labels(&self) -> Vec<(LabelId, Arc<str>)> {
        self.labels
            .all()
            .into_iter()
            .map(|(i, n)| (LabelId(i), n))
            .collect()
    }

    pub fn rel_type_id(&self, name: &str) -> Option<RelTypeId> {
        self.types.id(name).map(RelTypeId)
    }

    pub fn get_or_create_rel_type(&self, name: &str) -> Result<RelTypeId> {
        self.types.get_or_create(name).map(RelTypeId)
    }

    pub fn rel_type_name(&self, id: RelTypeId) -> Option<Arc<str>> {
        self.types.name(id.0)
    }

    pub fn all_rel_types(&self) -> Vec<(RelTypeId, Arc<str>)> {
        self.types
            .all()
            .into_iter()
            .map(|(i, n)| (RelTypeId(i), n))
            .collect()
    }

    pub fn property_key_id(&self, name: &str) -> Option<PropKeyId> {
        self.keys.id(name).map(PropKeyId)
    }

    pub fn get_or_create_property_key(&self, name: &str) -> Result<PropKeyId> {
        self.keys.get_or_create(name).map(PropKeyId)
    }

    pub fn property_key_name(&self, id: PropKeyId) -> Option<Arc<str>> {
        self.keys.name(id.0)
    }

    pub fn all_property_keys(&self) -> Vec<(PropKeyId, Arc<str>)> {
        self.keys
            .all()
            .into_iter()
            .map(|(i, n)| (PropKeyId(i), n))
            .collect()
    }

    pub fn token_counts(&self) -> (usize, usize, usize) {
        (self.labels.len(), self.types.len(), self.keys.len())
    }

    // ---- schema ----

    /// `SHOW INDEXES`: every index, including those backing constraints.
    pub fn indexes(&self) -> Vec<IndexInfo> {
        self.schema()
            .defs
            .iter()
            .map(|d| {
                let (read_count, last_read_ms, tracked_since_ms) = d.reads.snapshot();
                let keys: Vec<Arc<str>> = d
                    .keys
                    .iter()
                    .map(|k| self.keys.name(*k).unwrap_or_else(|| "".into()))
                    .collect();
                IndexInfo {
                    name: d.name.clone(),
                    relationship: d.relationship,
                    label: self.token_name(d).unwrap_or_else(|_| "".into()),
                    key: keys.first().cloned().unwrap_or_else(|| "".into()),
                    keys,
                    kind: d.kind,
                    state: if d.is_online() {
                        IndexState::Online
                    } else {
                        IndexState::Populating
                    },
                    entries: d.data.len(),
                    read_count,
                    last_read_ms,
                    tracked_since_ms,
                }
            })
            .collect()
    }

    /// `SHOW CONSTRAINTS`: the uniqueness and key constraints.
    pub fn constraints(&self) -> Vec<IndexInfo> {
        self.indexes()
            .into_iter()
            .filter(|i| i.kind.is_constraint())
            .collect()
    }

    // ---- housekeeping ----

    pub fn stats(&self) -> StorageStats {
        let label_bits = (0..self.labels.len() as u32)
            .filter_map(|l| self.label_bitmap_if_any(l))
            .map(Bitmap::count_ones)
            .sum();
        StorageStats {
            live_deltas: self.live_deltas.load(Ordering::Relaxed),
            index_entries: self.schema().defs.iter().map(|d| d.data.len()).sum(),
            label_bits,
            gc_pending_batches: self.gc_queue.lock().len(),
            count_history: self.counts.history_len(),
            live_snapshots: self.registry.lock().values().sum(),
        }
    }
}

/// A schema epoch never handed out before in this process.
fn fresh_schema_epoch() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn storage_and_transactions_are_shareable() {
        assert_send_sync::<Storage>();
        assert_send_sync::<crate::Transaction>();
    }

    #[test]
    fn a_visibility_waiter_wakes_on_the_advance_and_times_out_without_one() {
        use std::time::Duration;
        let s = Storage::new();
        s.last_committed.store(5, Ordering::Release);
        s.set_readers_follow_commits(false);
        let advancer = {
            let s = Arc::clone(&s);
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                s.advance_visible(3);
            })
        };
        let started = Instant::now();
        assert!(s.wait_visible(3, started + Duration::from_secs(30)));
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(45), "{waited:?}");
        assert!(waited < Duration::from_secs(10), "{waited:?}");
        advancer.join().expect("advancer");

        // No advance: the wait ends at its deadline, not before and not long after.
        let started = Instant::now();
        assert!(!s.wait_visible(4, started + Duration::from_millis(40)));
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(40), "{waited:?}");
        assert!(waited < Duration::from_secs(10), "{waited:?}");
    }

    /// Counts how often a future asked to be polled again.
    struct CountingWaker(AtomicU64);

    impl std::task::Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn an_async_visibility_waiter_is_woken_by_the_advance_itself() {
        let s = Storage::new();
        s.last_committed.store(5, Ordering::Release);
        s.set_readers_follow_commits(false);
        let counter = Arc::new(CountingWaker(AtomicU64::new(0)));
        let waker = std::task::Waker::from(Arc::clone(&counter));
        let mut cx = Context::from_waker(&waker);
        let mut wait = std::pin::pin!(s.visible_wait(4));
        assert!(wait.as_mut().poll(&mut cx).is_pending());
        s.advance_visible(2);
        assert_eq!(counter.0.load(Ordering::SeqCst), 1, "woken by an advance");
        assert!(wait.as_mut().poll(&mut cx).is_pending(), "2 is not 4 yet");
        assert_eq!(counter.0.load(Ordering::SeqCst), 1);
        s.advance_visible(4);
        assert_eq!(counter.0.load(Ordering::SeqCst), 2);
        assert!(wait.as_mut().poll(&mut cx).is_ready());
        // Readers that follow commits are woken by the commit's publication.
        let s = Storage::new();
        let mut wait = std::pin::pin!(s.visible_wait(1));
        assert!(wait.as_mut().poll(&mut cx).is_pending());
        s.begin_write().commit().expect("empty commit");
        let w = s.begin_write();
        let label = s.get_or_create_label("L").expect("label");
        w.create_node(&[label], &[]).expect("node");
        w.commit().expect("commit");
        assert_eq!(counter.0.load(Ordering::SeqCst), 3);
        assert!(wait.as_mut().poll(&mut cx).is_ready());
    }

    #[test]
    fn watermarks_and_registry() {
        let s = Storage::new();
        assert_eq!(s.register(false), 0);
        assert_eq!(s.oldest_snapshot(), 0);
        s.unregister(0);
        s.last_committed.store(5, Ordering::Release);
        s.set_readers_follow_commits(false);
        assert_eq!(s.visible_watermark(), 0);
        s.advance_visible(9);
        assert_eq!(s.visible_watermark(), 5);
        assert_eq!(s.register(true), 5);
        assert_eq!(s.oldest_snapshot(), 5);
    }
}
