//! Transactions: their lifecycle, the view they read at, and commit and rollback.
//!
//! A transaction's methods take `&self`: the engine keeps it in an `Arc` and lets cursors own a
//! handle to it across many pulls. Writes serialise on the transaction's state lock, which is
//! always taken before any entity lock (commit and rollback follow the same order).

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU32, Ordering};

use parking_lot::{Mutex, MutexGuard};

use crate::arena::{Grouped, Locked, Slot, Table};
use crate::change::Capture;

use crate::commit_log::DurabilityTicket;
use crate::counts::OwnCounts;
use crate::error::{EntityKind, Error, Result};
use crate::gc::{GcBatch, GcItem};
use crate::graph::{NodeRec, RelRec};
use crate::mvcc::{self, TxCell, Undo, View};
use crate::read;
use crate::redo::{RedoOp, RedoRecord};
use crate::security::Security;
use crate::storage::Storage;

const ACTIVE: u8 = 0;
const COMMITTED: u8 = 1;
const ROLLED_BACK: u8 = 2;

/// What a successful commit reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommitInfo {
    /// The commit number (for a transaction that changed nothing, its snapshot).
    pub commit: u64,
    /// Present when a commit log took the record: wait on it for durability.
    pub ticket: Option<DurabilityTicket>,
    /// Whether anything was written.
    pub changed: bool,
}

pub(crate) enum SchemaOp {
    Create {
        name: String,
        spec: crate::schema::IndexSpec,
    },
    Drop {
        name: String,
        unique: bool,
    },
    CreateVector(crate::vector::VectorSpec),
    DropVector {
        name: String,
    },
    CreateFulltext(crate::fulltext::FulltextSpec),
    DropFulltext {
        name: String,
    },
    /// A property existence or type constraint (see `constraints`).
    CreateProperty(crate::spec::PropertyConstraintSpec),
    DropProperty {
        name: String,
    },
}

/// What a commit applied besides data: the index definitions it published and the security
/// catalogue it replaced.
struct Applied {
    schema: crate::ddl::Applied,
    security: Option<Arc<Security>>,
}

/// A transaction's new security catalogue.
pub(crate) struct PendingSecurity {
    /// The catalogue it was made from; `None` on replay, which sets it unconditionally.
    pub base: Option<Arc<Security>>,
    pub new: Arc<Security>,
}

#[derive(Default)]
pub(crate) struct TxState {
    pub touched_nodes: Vec<u64>,
    /// With [`Transaction::check_statements`]: every node changed since the last statement
    /// check (repeats included), so a statement's check reads only what it changed.
    pub statement_nodes: Option<Vec<u64>>,
    pub touched_rels: Vec<u64>,
    /// The relationships changed since the last statement check, like `statement_nodes`.
    pub statement_rels: Option<Vec<u64>>,
    pub redo: Vec<RedoOp>,
    pub counts: OwnCounts,
    /// Index entries and label bits this transaction's commit may make stale.
    pub stale_on_commit: Vec<GcItem>,
    /// Index entries and label bits a rollback leaves behind.
    pub stale_on_rollback: Vec<GcItem>,
    pub schema_ops: Vec<SchemaOp>,
    /// The users and roles this transaction commits, whole.
    pub security: Option<PendingSecurity>,
    /// Delta boxes taken from the store's pool, used before any is allocated.
    pub spare: mvcc::Spare,
    /// Who runs the transaction, for its change events (see [`crate::ChangeContext`]).
    pub context: Option<Box<crate::change::ChangeContext>>,
}

impl TxState {
    /// Whether the transaction changed nothing a commit logs: no entity, schema or security.
    fn unchanged(&self) -> bool {
        self.touched_nodes.is_empty()
            && self.touched_rels.is_empty()
            && self.schema_ops.is_empty()
            && self.security.is_none()
    }
}

pub(crate) struct TxInner {
    pub storage: Arc<Storage>,
    pub write: bool,
    pub replay: bool,
    /// Whether to build redo records (only when a commit log is installed).
    pub log: bool,
    pub snapshot: u64,
    pub txid: u64,
    pub cell: Arc<TxCell>,
    pub command: AtomicU32,
    pub status: AtomicU8,
    pub state: Mutex<TxState>,
}

impl TxInner {
    pub(crate) fn check_active(&self) -> Result<()> {
        if self.status.load(Ordering::Acquire) == ACTIVE {
            Ok(())
        } else {
            Err(Error::TransactionClosed)
        }
    }

    /// The view a read takes now; fails once the transaction has ended.
    pub(crate) fn active_view(&self) -> Result<View> {
        self.check_active()?;
        Ok(self.view())
    }

    pub(crate) fn view(&self) -> View {
        View {
            snapshot: self.snapshot,
            txid: self.txid,
            command: self.command.load(Ordering::Acquire),
        }
    }

    pub(crate) fn node_slot(&self, id: u64) -> Result<Slot<'_, NodeRec>> {
        self.storage
            .nodes
            .get(id)
            .ok_or_else(|| Error::node_not_found(id))
    }

    pub(crate) fn rel_slot(&self, id: u64) -> Result<Slot<'_, RelRec>> {
        self.storage
            .rels
            .get(id)
            .ok_or_else(|| Error::rel_not_found(id))
    }

    /// Ends the transaction, undoing its changes. Idempotent on an ended transaction.
    fn rollback_inner(&self) -> Result<()> {
        let mut st = self.state.lock();
        if self
            .status
            .compare_exchange(ACTIVE, ROLLED_BACK, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(Error::TransactionClosed);
        }
        self.undo_all(&mut st);
        self.storage.unregister(self.snapshot);
        self.cell.end();
        Ok(())
    }

    /// Pops this transaction's deltas off the chains of the entities `touched` in `table`,
    /// the last touched first, reverting each record with `undo`; returns how many it popped.
    fn pop_own<R: Grouped>(
        &self,
        table: &Table<R>,
        touched: &[u64],
        freed: &mut mvcc::Spare,
        mut undo: impl FnMut(&mut R, Undo),
    ) -> usize {
        let mut popped = 0;
        for &id in touched.iter().rev() {
            let Some(slot) = table.get(id) else {
                continue;
            };
            let mut g = slot.lock();
            let mut chain = g.take_chain();
            popped += mvcc::pop_own(&mut chain, self.txid, freed, |u| undo(&mut g, u));
            g.set_chain(chain);
        }
        popped
    }

    /// Reverts every change of the transaction in place and queues what it left in indexes.
    fn undo_all(&self, st: &mut TxState) {
        let mut popped = 0;
        let mut freed = std::mem::take(&mut st.spare);
        popped += self.pop_own(
            &self.storage.nodes,
            &st.touched_nodes,
            &mut freed,
            undo_node,
        );
        popped += self.pop_own(&self.storage.rels, &st.touched_rels, &mut freed, undo_rel);
        self.storage.deltas.give(&mut freed);
        self.storage
            .live_deltas
            .fetch_sub(popped as i64, Ordering::Relaxed);
        st.touched_nodes.clear();
        st.touched_rels.clear();
        st.redo.clear();
        st.stale_on_commit.clear();
        self.storage.enqueue_gc(GcBatch {
            ts: self.storage.last_committed(),
            nodes: Vec::new(),
            rels: Vec::new(),
            items: std::mem::take(&mut st.stale_on_rollback),
        });
    }
}

fn undo_node(rec: &mut NodeRec, u: Undo) {
    let ok = match u {
        Undo::Created => {
            rec.clear();
            Ok(())
        }
        // Popping the undo off the chain head is what revives the node.
        Undo::Deleted => Ok(()),
        Undo::Property { key, old } => rec.set_prop(key, old.as_ref()).map(|_| ()),
        Undo::LabelAdded(l) => rec.labels().and_then(|mut ls| {
            ls.retain(|x| *x != l);
            rec.set_labels(&ls)
        }),
        Undo::LabelRemoved(l) => rec.labels().and_then(|mut ls| {
            if !ls.contains(&l) {
                ls.push(l);
            }
            rec.set_labels(&ls)
        }),
        Undo::EdgeAdded { out, entry } => {
            rec.adj_remove(out, entry);
            Ok(())
        }
        Undo::EdgeRemoved { out, entry } => {
            rec.adj_insert(out, entry);
            Ok(())
        }
    };
    debug_assert!(ok.is_ok(), "undo of a node change failed: {ok:?}");
}

fn undo_rel(rec: &mut RelRec, u: Undo) {
    match u {
        Undo::Created => rec.clear(),
        Undo::Deleted => rec.set_deleted(false),
        Undo::Property { key, old } => {
            let ok = rec.props.set(key, old.as_ref());
            debug_assert!(ok.is_ok());
        }
        _ => {}
    }
}

impl Drop for TxInner {
    fn drop(&mut self) {
        if self.status.load(Ordering::Acquire) == ACTIVE {
            let _ = self.rollback_inner();
        }
    }
}

/// A transaction over a [`Storage`]. Dropping an active transaction rolls it back.
pub struct Transaction {
    pub(crate) inner: Arc<TxInner>,
    /// What this handle's reads may see (see [`crate::ReadRestriction`]); `None` for all.
    pub(crate) restriction: crate::restriction::Restriction,
    /// For a restricted handle, the handle it restricts, kept alive by it: the one that
    /// rolls the transaction back when the last handle on it is dropped active.
    pub(crate) base: Option<Arc<Transaction>>,
}

impl Drop for Transaction {
    fn drop(&mut self) {
        if self.base.is_none() && self.inner.status.load(Ordering::Acquire) == ACTIVE {
            let _ = self.inner.rollback_inner();
        }
    }
}

impl std::fmt::Debug for Transaction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transaction")
            .field("snapshot", &self.inner.snapshot)
            .field("write", &self.inner.write)
            .field("command", &self.inner.command.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Storage {
    /// A read-only transaction at the visible watermark.
    pub fn begin_read(self: &Arc<Self>) -> Transaction {
        Transaction::begin(self.clone(), false)
    }

    /// A read-write transaction. Its snapshot is the last commit, so that its conflict checks
    /// are against the newest data rather than the (possibly older) durable watermark.
    pub fn begin_write(self: &Arc<Self>) -> Transaction {
        Transaction::begin(self.clone(), true)
    }
}

impl Transaction {
    pub(crate) fn begin(storage: Arc<Storage>, write: bool) -> Transaction {
        Self::begin_with(storage, write, false)
    }

    pub(crate) fn begin_replay(storage: Arc<Storage>) -> Transaction {
        Self::begin_with(storage, true, true)
    }

    fn begin_with(storage: Arc<Storage>, write: bool, replay: bool) -> Transaction {
        let snapshot = storage.register(write);
        let txid = storage.next_txid();
        let log = write && !replay && storage.has_log.load(Ordering::Acquire);
        Transaction {
            inner: Arc::new(TxInner {
                storage,
                write,
                replay,
                log,
                snapshot,
                txid,
                cell: TxCell::new(txid),
                command: AtomicU32::new(0),
                status: AtomicU8::new(ACTIVE),
                state: Mutex::new(TxState::default()),
            }),
            restriction: None,
            base: None,
        }
    }

    pub fn storage(&self) -> &Arc<Storage> {
        &self.inner.storage
    }

    /// The commit number this transaction reads as of.
    pub fn snapshot(&self) -> u64 {
        self.inner.snapshot
    }

    pub fn is_write(&self) -> bool {
        self.inner.write
    }

    pub fn is_active(&self) -> bool {
        self.inner.status.load(Ordering::Acquire) == ACTIVE
    }

    /// The current command. Reads see this transaction's changes made at earlier commands.
    pub fn command(&self) -> u32 {
        self.inner.command.load(Ordering::Acquire)
    }

    /// Whether the transaction has changed data, schema or security so far: whether its commit
    /// would log anything (a commit of nothing takes no commit number).
    pub fn has_changes(&self) -> bool {
        !self.inner.state.lock().unchanged()
    }

    /// Starts a new command: everything written so far becomes visible to later reads.
    pub fn advance_command(&self) -> Result<u32> {
        self.inner.check_active()?;
        Ok(self.inner.command.fetch_add(1, Ordering::AcqRel) + 1)
    }

    /// Locks the state for a write of any kind, failing if the transaction has ended or only
    /// reads.
    fn write_state(&self) -> Result<MutexGuard<'_, TxState>> {
        let tx = &*self.inner;
        if !tx.write {
            tx.check_active()?;
            return Err(Error::ReadOnlyTransaction);
        }
        let st = tx.state.lock();
        tx.check_active()?;
        Ok(st)
    }

    /// Locks the state for a data write after checking the transaction may write data.
    pub(crate) fn data_write(&self) -> Result<MutexGuard<'_, TxState>> {
        let st = self.write_state()?;
        if !st.schema_ops.is_empty() {
            return Err(Error::MixedSchemaAndData);
        }
        if st.security.is_some() {
            return Err(Error::MixedAdministrationAndData);
        }
        Ok(st)
    }

    /// Records `new` as the users and roles this transaction commits. `base` is the
    /// catalogue it was derived from ([`crate::Storage::security`]): if another commit
    /// replaced it meanwhile, the commit fails with [`Error::SecurityConflict`] rather than
    /// lose that change. Several calls in one transaction keep the first base.
    pub fn set_security(&self, base: &Arc<Security>, new: Security) -> Result<()> {
        let mut st = self.admin_write()?;
        let base = match st.security.take() {
            Some(pending) => pending.base,
            None => Some(base.clone()),
        };
        st.security = Some(PendingSecurity {
            base,
            new: Arc::new(new),
        });
        Ok(())
    }

    /// The catalogue as this transaction sees it: its own pending change, else the store's.
    pub fn security(&self) -> Arc<Security> {
        match &self.inner.state.lock().security {
            Some(pending) => pending.new.clone(),
            None => self.inner.storage.security(),
        }
    }

    pub(crate) fn admin_write(&self) -> Result<MutexGuard<'_, TxState>> {
        let st = self.write_state()?;
        if !st.touched_nodes.is_empty() || !st.touched_rels.is_empty() || !st.schema_ops.is_empty()
        {
            return Err(Error::MixedAdministrationAndData);
        }
        Ok(st)
    }

    pub(crate) fn schema_write(&self) -> Result<MutexGuard<'_, TxState>> {
        let st = self.write_state()?;
        if !st.touched_nodes.is_empty() || !st.touched_rels.is_empty() {
            return Err(Error::MixedSchemaAndData);
        }
        if st.security.is_some() {
            return Err(Error::MixedAdministrationAndData);
        }
        Ok(st)
    }

    pub fn rollback(&self) -> Result<()> {
        self.inner.rollback_inner()
    }

    pub fn commit(&self) -> Result<CommitInfo> {
        self.commit_at(None)
    }

    pub(crate) fn commit_replay(&self, commit: u64) -> Result<()> {
        self.commit_at(Some(commit)).map(|_| ())
    }

    /// Ends a transaction that wrote nothing (or only reads): no commit number is taken.
    fn commit_unchanged(&self) -> CommitInfo {
        let tx = &*self.inner;
        tx.status.store(COMMITTED, Ordering::Release);
        tx.cell.end();
        tx.storage.unregister(tx.snapshot);
        CommitInfo {
            commit: tx.snapshot,
            ticket: None,
            changed: false,
        }
    }

    fn commit_at(&self, forced: Option<u64>) -> Result<CommitInfo> {
        let tx = &*self.inner;
        let storage = &tx.storage;
        let mut st = tx.state.lock();
        tx.check_active()?;
        if !tx.write || (st.unchanged() && forced.is_none()) {
            return Ok(self.commit_unchanged());
        }
        let own = View {
            command: u32::MAX,
            ..tx.view()
        };
        storage.derived_before_commit(&own, &st.touched_nodes, &st.touched_rels);
        // Read before the commit lock: this transaction's write locks keep what it reads.
        let captured = self.captured(&st).inspect_err(|_| self.fail(&mut st))?;
        let mut slot = storage.commit.lock();
        let applied = match self.apply_catalogues(&mut st) {
            Ok(applied) => applied,
            Err(e) => {
                drop(slot);
                self.fail(&mut st);
                return Err(e);
            }
        };
        if let Err(e) = self.check_at_commit(&st, own) {
            drop(slot);
            self.fail(&mut st);
            return Err(e);
        }
        let last = storage.last_committed();
        let n = match forced {
            Some(n) if n > last => n,
            Some(n) => {
                drop(slot);
                self.fail(&mut st);
                return Err(Error::Replay(format!(
                    "commit {n} is not newer than {last}"
                )));
            }
            None => last + 1,
        };
        let mut ticket = None;
        let logged = (slot.log.is_some() && !tx.replay).then(|| slot.stamp_commit_time());
        if let (Some(log), Some(micros)) = (&slot.log, logged) {
            let mut ops = std::mem::take(&mut st.redo);
            ops.push(RedoOp::CommitTime { micros });
            ops.extend(captured);
            let record = RedoRecord { commit: n, ops };
            match log.append(&record) {
                Ok(t) => ticket = Some(t),
                Err(e) => {
                    self.take_back(applied);
                    drop(slot);
                    self.fail(&mut st);
                    return Err(Error::CommitLog(e));
                }
            }
        }
        if let Some(t) = ticket {
            debug_assert!(
                slot.last_ticket.is_none_or(|last| last < t),
                "the commit log handed out a ticket out of commit order"
            );
            slot.last_ticket = Some(t);
        }
        // Before the commit is published, so a reader that sees it waits for its indexes.
        let derived_full = storage.derived_committed(n, &st.touched_nodes, &st.touched_rels);
        tx.cell.publish(n);
        storage.counts.publish(n, st.counts.totals());
        storage
            .last_committed
            .store(n, std::sync::atomic::Ordering::Release);
        if storage.follow_commits.load(Ordering::Acquire) {
            storage.publish_visible(n);
        }
        drop(slot);
        if derived_full {
            storage.derived_room();
        }
        tx.status.store(COMMITTED, Ordering::Release);
        tx.cell.end();
        storage.unregister(tx.snapshot);
        storage.enqueue_gc(GcBatch {
            ts: n,
            nodes: std::mem::take(&mut st.touched_nodes),
            rels: std::mem::take(&mut st.touched_rels),
            items: std::mem::take(&mut st.stale_on_commit),
        });
        st.stale_on_rollback.clear();
        storage.deltas.give(&mut st.spare);
        drop(st);
        storage.gc_after_commit();
        Ok(CommitInfo {
            commit: n,
            ticket,
            changed: true,
        })
    }

    /// The commit-time constraint checks, under the commit lock: uniqueness and keys against
    /// their indexes, then property existence and types (not for a replayed commit, which
    /// its leader or the log's writer checked).
    fn check_at_commit(&self, st: &TxState, own: View) -> Result<()> {
        self.check_unique(st)?;
        let tx = &*self.inner;
        if tx.replay {
            return Ok(());
        }
        let storage = &tx.storage;
        storage.check_property_constraints(
            &View {
                snapshot: storage.last_committed(),
                ..own
            },
            &st.touched_nodes,
            &st.touched_rels,
        )
    }

    /// Applies the transaction's schema changes or its new security catalogue (a transaction
    /// has one or the other); returns what [`Transaction::take_back`] needs to undo them.
    fn apply_catalogues(&self, st: &mut TxState) -> Result<Applied> {
        let security = self.apply_security(st)?;
        match self.apply_schema_ops(st) {
            Ok(schema) => Ok(Applied { schema, security }),
            Err(e) => {
                self.take_back(Applied {
                    schema: crate::ddl::Applied::default(),
                    security,
                });
                Err(e)
            }
        }
    }

    /// Undoes [`Transaction::apply_catalogues`] after the log refused the commit.
    fn take_back(&self, applied: Applied) {
        applied.schema.take_back(self);
        if let Some(old) = applied.security {
            *self.inner.storage.security.write() = old;
        }
    }

    /// Swaps in the transaction's catalogue (under the commit lock) and logs it; returns the
    /// one it replaced, so a failed log append can put it back.
    fn apply_security(&self, st: &mut TxState) -> Result<Option<Arc<Security>>> {
        let Some(pending) = st.security.take() else {
            return Ok(None);
        };
        let storage = &self.inner.storage;
        let mut current = storage.security.write();
        if let Some(base) = &pending.base
            && !Arc::ptr_eq(base, &current)
        {
            return Err(Error::SecurityConflict);
        }
        let old = std::mem::replace(&mut *current, pending.new.clone());
        if self.inner.log {
            st.redo.push(RedoOp::Security {
                catalogue: pending.new,
            });
        }
        Ok(Some(old))
    }

    /// The change ops a logged commit adds under the store's capture mode (none when capture
    /// is off, and none on replay: a replayed record carries its own).
    fn captured(&self, st: &TxState) -> Result<Vec<RedoOp>> {
        let tx = &*self.inner;
        match tx.storage.capture() {
            Capture::Off => Ok(Vec::new()),
            _ if !tx.log || tx.replay => Ok(Vec::new()),
            capture => self.capture_changes(st, capture),
        }
    }

    /// Rolls back after a failed commit.
    fn fail(&self, st: &mut TxState) {
        let tx = &*self.inner;
        tx.status.store(ROLLED_BACK, Ordering::Release);
        tx.undo_all(st);
        tx.storage.unregister(tx.snapshot);
        tx.cell.end();
    }

    /// Checks every uniqueness constraint the transaction's nodes fall under, against the
    /// newest committed data plus this transaction's changes. Runs under the commit lock, so
    /// no other commit can slip a duplicate in between.
    fn check_unique(&self, st: &TxState) -> Result<()> {
        self.check_constraints(&st.touched_nodes, &st.touched_rels)
    }

    /// From now on, records the nodes each statement changes, for
    /// [`Transaction::check_statement`]. An explicit transaction turns it on, so a uniqueness
    /// violation fails the statement that causes it (as in Neo4j) rather than the commit; an
    /// auto-commit one has no use for it, its commit being its statement's end.
    pub fn check_statements(&self) {
        let mut st = self.inner.state.lock();
        if st.statement_nodes.is_none() {
            st.statement_nodes = Some(Vec::new());
        }
        if st.statement_rels.is_none() {
            st.statement_rels = Some(Vec::new());
        }
    }

    /// Checks the uniqueness constraints over the nodes changed since the last call, against
    /// the newest committed data plus this transaction's changes, and forgets them. A
    /// concurrent writer's uncommitted duplicate is not seen here: the check at commit, under
    /// the commit lock, stays the last line of defence.
    pub fn check_statement(&self) -> Result<()> {
        let mut st = self.inner.state.lock();
        let Some(nodes) = st.statement_nodes.as_mut() else {
            return Ok(());
        };
        let mut nodes = std::mem::take(nodes);
        let mut rels = st
            .statement_rels
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        for ids in [&mut nodes, &mut rels] {
            ids.sort_unstable();
            ids.dedup();
        }
        let result = self.check_constraints(&nodes, &rels);
        for ids in [&mut nodes, &mut rels] {
            ids.clear();
            ids.shrink_to(4096);
        }
        st.statement_nodes = Some(nodes);
        st.statement_rels = Some(rels);
        result
    }

    /// Checks the uniqueness and key constraints over the given nodes and relationships:
    /// each entity's values against the others the constraint's index names (as the newest
    /// committed data plus this transaction's changes show them), and, for a key, that every
    /// key property is there.
    fn check_constraints(&self, nodes: &[u64], rels: &[u64]) -> Result<()> {
        let tx = &*self.inner;
        let storage = &tx.storage;
        let schema = storage.schema();
        if !schema.has_constraints() {
            return Ok(());
        }
        let view = View {
            snapshot: storage.last_committed(),
            txid: tx.txid,
            command: u32::MAX,
        };
        storage.check_constraints_over(&schema, (nodes, rels), Some(&view))
    }

    /// The other transaction holding an uncommitted change to the entity, if one does: what a
    /// writer that met [`Error::WriteConflict`] there may wait for before it tries again at a
    /// fresh snapshot. `None` when the entity is free or its newest change is committed (a
    /// conflict with a commit newer than this snapshot, which waiting cannot change).
    pub fn conflicting_writer(&self, kind: EntityKind, id: u64) -> Option<mvcc::WriterWait> {
        let tx = &*self.inner;
        let head = |chain: &mvcc::Chain| {
            let d = chain.as_deref()?;
            let ts = d.cell.get();
            (ts >= mvcc::TX_ID_BASE && ts != tx.txid).then(|| mvcc::WriterWait::new(d.cell.clone()))
        };
        match kind {
            EntityKind::Node => head(tx.storage.nodes.get(id)?.lock().chain()),
            EntityKind::Relationship => head(tx.storage.rels.get(id)?.lock().chain()),
        }
    }

    pub(crate) fn is_own_head(&self, chain: &mvcc::Chain) -> bool {
        chain
            .as_deref()
            .is_some_and(|d| d.cell.get() == self.inner.txid)
    }

    /// Pushes an undo onto an entity's chain, stamped with this transaction's cell, recording
    /// the entity as touched the first time.
    pub(crate) fn push_undo<R: Grouped>(
        &self,
        st: &mut TxState,
        rec: &mut Locked<'_, R>,
        id: u64,
        undo: Undo,
    ) {
        let (touched, statement) = match R::KIND {
            EntityKind::Node => (&mut st.touched_nodes, &mut st.statement_nodes),
            EntityKind::Relationship => (&mut st.touched_rels, &mut st.statement_rels),
        };
        if !self.is_own_head(rec.chain()) {
            touched.push(id);
        }
        if let Some(ids) = statement {
            ids.push(id);
        }
        if st.spare.is_empty() {
            self.inner.storage.deltas.refill(&mut st.spare);
        }
        mvcc::push(
            rec.chain_mut(),
            &self.inner.cell,
            self.command(),
            undo,
            &mut st.spare,
        );
        self.inner
            .storage
            .live_deltas
            .fetch_add(1, Ordering::Relaxed);
    }

    /// First updater wins: fails unless this transaction may change the node now.
    pub(crate) fn check_node_writable(&self, rec: &Locked<'_, NodeRec>, id: u64) -> Result<()> {
        let exists = |view: &View| read::node_exists(rec, view);
        self.check_writable(rec, id, rec.is_vacant(), || rec.is_live(), exists)
    }

    pub(crate) fn check_rel_writable(&self, rec: &Locked<'_, RelRec>, id: u64) -> Result<()> {
        let exists = |view: &View| read::rel_exists(rec, view);
        self.check_writable(rec, id, rec.is_vacant(), || rec.is_live(), exists)
    }

    /// The writability check of either kind of entity: it is not `vacant`, no other writer
    /// changed it since this snapshot (`exists` says whether it exists at a view, which tells
    /// a conflict from a deletion), and it is `live` in the newest version.
    #[inline]
    fn check_writable<R: Grouped>(
        &self,
        rec: &Locked<'_, R>,
        id: u64,
        vacant: bool,
        live: impl FnOnce() -> bool,
        exists: impl FnOnce(&View) -> bool,
    ) -> Result<()> {
        let tx = &*self.inner;
        let kind = R::KIND;
        let not_found = Error::EntityNotFound { kind, id };
        if vacant {
            return Err(not_found);
        }
        if !mvcc::writable(rec.chain(), tx.txid, tx.snapshot) {
            let view = View {
                command: u32::MAX,
                ..tx.view()
            };
            return Err(if exists(&view) {
                Error::WriteConflict { kind, id }
            } else {
                not_found
            });
        }
        if !live() {
            return Err(not_found);
        }
        Ok(())
    }
}
