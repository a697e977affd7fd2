//! The context a running query evaluates in: its transaction, parameters, limits and
//! counters, and the cursor interface every operator (and every subquery expression) runs
//! through.
//!
//! It lives beside the evaluator rather than in the executor because expressions need it too:
//! a subquery expression opens a cursor tree through [`Cx::open`], which the executor supplies
//! when it creates the context, so evaluation never names the executor.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use quiver_storage::{Storage, Transaction as StorageTx};
use quiver_value::{FunctionContext, Map, Node, Relationship, Value};

use crate::error::{Error, Result};
use crate::ir::{PlanNode, Row};
use crate::memory::{CHUNK_BYTES, SLACK_BYTES, TxWrites};
use crate::state::DatabaseState;
use crate::summary::{Counters, OperatorProfile};

/// Builds the cursor tree of a plan (the executor's `build`).
pub(crate) type OpenPlan = fn(&Arc<PlanNode>, &Cx) -> Result<BoxCursor>;

/// Loop iterations between checks of the deadline and the cancel flag.
const TICKS_PER_CHECK: u32 = 1024;

/// Bytes of writes a query counts locally before it adds them to its transaction's account
/// and checks the limits: small beside any limit worth setting, large enough that a write
/// load checks about once per few hundred writes.
pub(crate) const WRITE_FLUSH_BYTES: usize = 64 << 10;

/// What the memory errors name when the transaction's writes pass a limit.
const WRITES: &str = "the transaction's uncommitted writes";

/// What one change to an existing entity (a property set or removed, a label added or
/// removed, a relationship or a node deleted) adds to a transaction's state besides the values
/// it writes: the storage's undo delta (a 64-byte box in the entity's version chain, holding
/// the old value when there is one), the redo operation naming the change (about 48 bytes
/// when a commit log is installed) and the entity's slot in the touched lists and stale-entry
/// items (about 16).
pub(crate) const CHANGE_WRITE_BYTES: usize = 128;

/// What creating a node adds besides its labels and property values: a change (the
/// `Created` delta and its redo operation) and the node's record (its 16-byte block handle and
/// the block's header of counts and offsets, about 48 bytes).
pub(crate) const NODE_WRITE_BYTES: usize = CHANGE_WRITE_BYTES + 64;

/// What each label written adds: its id in the node's block and redo operation, and its
/// entry in the label index a rollback has to clean.
pub(crate) const LABEL_WRITE_BYTES: usize = 16;

/// What creating a relationship adds besides its property values: a change, its 24-byte
/// record, and at each end a 12-byte adjacency entry with its own `EdgeAdded` delta.
pub(crate) const REL_WRITE_BYTES: usize = CHANGE_WRITE_BYTES + 24 + 2 * (12 + 64);

/// Everything a running query needs besides its row.
pub(crate) struct Cx {
    pub tx: Arc<StorageTx>,
    pub storage: Arc<Storage>,
    pub params: Vec<Value>,
    pub fctx: FunctionContext,
    pub counters: Counters,
    pub shared: Arc<DatabaseState>,
    /// The transaction's id in the database's registry (`SHOW TRANSACTIONS`).
    pub tx_id: u64,
    pub cancel: Arc<AtomicBool>,
    pub deadline: Option<Instant>,
    pub time_limit_ms: u64,
    /// Bytes the query holds now (buffers, accumulators), by the estimates of
    /// [`value_bytes`] and [`held_bytes`].
    pub memory_bytes: usize,
    /// The most `memory_bytes` has been.
    pub memory_peak_bytes: usize,
    /// [`crate::EngineConfig::query_memory_bytes_max`].
    pub memory_bytes_max: usize,
    /// Room taken from the database's [`crate::memory::MemoryPool`], in whole chunks: while
    /// what the query holds fits in it, counting touches nothing shared.
    pub memory_reserved_bytes: usize,
    /// What the transaction's writes hold, across all its queries: the transaction puts its
    /// own account here when it makes the context (one made without counts into its own).
    pub writes: Arc<TxWrites>,
    /// Bytes this query's writes added that `writes` has not been told of yet: it is told
    /// once they reach [`WRITE_FLUSH_BYTES`] and when the query ends.
    pub write_pending_bytes: usize,
    pub var_length_hops_max: u32,
    /// Per operator id when profiling.
    pub profile: Option<Vec<OperatorProfile>>,
    /// Store reads so far (PROFILE's db hits): a node or relationship a scan or expand
    /// produced, a property, label or type read. Counted always (an add is cheaper than a
    /// branch on profiling); profiling attributes the increase to the operator that caused it.
    pub db_hits: u64,
    /// Nodes whose deletion waits for their relationships to go (checked when the DELETE
    /// clause has seen all its rows).
    pub pending_deletes: Vec<u64>,
    /// Where the row `LOAD CSV` handed on last came from (`linenumber()`, `file()`).
    pub load_csv: Option<CsvPosition>,
    /// Builds cursors for a subquery expression's plan.
    pub open: OpenPlan,
    /// Units of work since the last cancellation and deadline check.
    pub ticks: u32,
    /// Who runs the query, resolved when it started (unrestricted unless the transaction
    /// names an authenticated user).
    pub subject: Arc<crate::security::Subject>,
    /// What the subject may find and read, when not everything: `tx` is then a handle that
    /// hides the rest. `None` (no restriction, nothing to pay) for most users.
    pub visibility: Option<Arc<crate::security::visibility::Visibility>>,
    /// User and role changes the query made, reported to the audit sink once committed.
    pub audit: Arc<parking_lot::Mutex<Vec<crate::security::AuditEvent>>>,
    /// While this context is one worker of a parallel aggregation: the scan its pipeline
    /// draws morsels of (`crate::exec::parallel`), and which worker it is.
    pub morsels: Option<(Arc<crate::exec::parallel::Morsels>, usize)>,
}

impl Cx {
    /// The users, roles and privileges as this query sees them: its own transaction's
    /// (with its uncommitted changes), or those of the database that keeps them for this one.
    pub fn security(&self) -> Arc<quiver_storage::Security> {
        if self.shared.borrows_security() {
            self.shared.security()
        } else {
            self.tx.security()
        }
    }

    /// Runs the query as `subject`: when some of the graph is hidden from them, the query
    /// reads through a handle on its transaction that hides it (see
    /// [`crate::security::visibility`]); otherwise through the transaction itself.
    pub fn set_subject(&mut self, subject: Arc<crate::security::Subject>) {
        self.visibility = subject.visibility(&self.storage);
        self.subject = subject;
        let tx = self.tx.clone();
        self.tx = self.restrict(tx);
    }

    /// Reads and writes through `tx` from now on (restricted as the subject's reads are):
    /// the transaction used so far is handed back.
    pub fn replace_tx(&mut self, tx: Arc<StorageTx>) -> Arc<StorageTx> {
        let tx = self.restrict(tx);
        std::mem::replace(&mut self.tx, tx)
    }

    fn restrict(&self, tx: Arc<StorageTx>) -> Arc<StorageTx> {
        match &self.visibility {
            Some(visibility) => Arc::new(tx.restricted(visibility.clone())),
            None => tx,
        }
    }

    /// The id of `token`, creating the name if it is new; a user without the `publisher`
    /// role may not create names, so that fails `Forbidden` before anything uses it.
    pub fn token_id(&self, token: &crate::tokens::Token) -> Result<u32> {
        if let Some(id) = token.get(&self.storage) {
            return Ok(id);
        }
        self.may_create_token(token.kind, &token.name)?;
        token.get_or_create(&self.storage)
    }

    /// The id of label `name` given at run time (`$(expr)`), creating it if new, under the
    /// same rule as [`Cx::token_id`].
    pub fn label_id(&self, name: &str) -> Result<quiver_storage::LabelId> {
        if let Some(id) = self.storage.label_id(name) {
            return Ok(id);
        }
        self.may_create_token(crate::tokens::TokenKind::Label, name)?;
        Ok(self.storage.get_or_create_label(name)?)
    }

    fn may_create_token(&self, kind: crate::tokens::TokenKind, name: &str) -> Result<()> {
        let what = match kind {
            crate::tokens::TokenKind::Label => "label",
            crate::tokens::TokenKind::RelType => "relationship type",
            crate::tokens::TokenKind::PropKey => "property key",
        };
        self.subject.require(
            crate::security::privilege::Abilities::of(&[
                crate::security::privilege::Ability::NameManagement,
            ]),
            &format!("Creating the new {what} '{name}' (name management)"),
        )
    }
}

impl Cx {
    /// A context for a helper worker of this query's parallel aggregation: the same
    /// transaction, parameters, user, deadline and cancellation flag, counting its memory
    /// on its own against `memory_bytes_max` (its share of the query's room) and the same
    /// pool, and drawing a scan's morsels from `morsels` when it runs a pipeline. Its db hits are added to this
    /// context's when it is done; it writes nothing.
    pub fn fork(
        &self,
        memory_bytes_max: usize,
        morsels: Option<(Arc<crate::exec::parallel::Morsels>, usize)>,
    ) -> Cx {
        Cx {
            tx: self.tx.clone(),
            storage: self.storage.clone(),
            params: self.params.clone(),
            fctx: self.fctx.clone(),
            counters: Counters::default(),
            shared: self.shared.clone(),
            tx_id: self.tx_id,
            cancel: self.cancel.clone(),
            deadline: self.deadline,
            time_limit_ms: self.time_limit_ms,
            memory_bytes: 0,
            memory_peak_bytes: 0,
            memory_bytes_max,
            memory_reserved_bytes: 0,
            writes: self.writes.clone(),
            write_pending_bytes: 0,
            var_length_hops_max: self.var_length_hops_max,
            profile: None,
            db_hits: 0,
            pending_deletes: Vec::new(),
            load_csv: None,
            open: self.open,
            ticks: 0,
            subject: self.subject.clone(),
            visibility: self.visibility.clone(),
            audit: self.audit.clone(),
            morsels,
        }
    }
}

impl Cx {
    /// Counts one unit of work; every so often checks for cancellation and the deadline.
    #[inline]
    pub fn tick(&mut self) -> Result<()> {
        self.ticks += 1;
        if self.ticks >= TICKS_PER_CHECK {
            self.ticks = 0;
            self.check()?;
        }
        Ok(())
    }

    /// Fails if the query was cancelled or ran out of time.
    pub fn check(&self) -> Result<()> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(Error::Terminated(
                "the transaction was terminated".to_owned(),
            ));
        }
        if let Some(d) = self.deadline
            && Instant::now() >= d
        {
            return Err(Error::TimedOut {
                limit_ms: self.time_limit_ms,
            });
        }
        Ok(())
    }

    /// Counts `bytes` the query now holds (`what` names the buffer, for the error); fails past
    /// the query's limit or when the server's pool has no room for it.
    #[inline]
    pub fn reserve(&mut self, bytes: usize, what: &'static str) -> Result<()> {
        self.memory_bytes = self.memory_bytes.saturating_add(bytes);
        self.memory_peak_bytes = self.memory_peak_bytes.max(self.memory_bytes);
        if self.memory_bytes <= self.memory_reserved_bytes {
            return Ok(());
        }
        self.cover(self.memory_bytes, what)
    }

    /// Checks that a value of `bytes` being built (a concatenated string, a list) fits beside
    /// what the query holds, without counting it as held: the row holds it only until the
    /// next one replaces it.
    #[inline]
    pub fn transient(&mut self, bytes: usize, what: &'static str) -> Result<()> {
        let total = self.memory_bytes.saturating_add(bytes);
        if total <= self.memory_reserved_bytes {
            return Ok(());
        }
        self.cover(total, what)
    }

    /// Counts `bytes` the query no longer holds; hands back pool room well beyond its needs.
    #[inline]
    pub fn release(&mut self, bytes: usize) {
        self.memory_bytes = self.memory_bytes.saturating_sub(bytes);
        if self.memory_reserved_bytes - self.memory_bytes.min(self.memory_reserved_bytes)
            > SLACK_BYTES
        {
            self.shrink();
        }
    }

    /// Grows the pool reservation to cover `total` bytes, in whole chunks, or fails naming
    /// the limit that refused it. On failure nothing more is taken; what was taken stays
    /// until the query ends.
    #[cold]
    fn cover(&mut self, total: usize, what: &'static str) -> Result<()> {
        if total.saturating_add(self.writes.held_bytes()) > self.memory_bytes_max {
            return Err(Error::MemoryLimit {
                limit_bytes: self.memory_bytes_max,
                what,
            });
        }
        let wanted = total
            .div_ceil(CHUNK_BYTES)
            .saturating_mul(CHUNK_BYTES)
            .min(self.memory_bytes_max)
            .max(total);
        let more = wanted - self.memory_reserved_bytes;
        if !self.shared.memory.try_reserve(more) {
            return Err(Error::MemoryPool {
                limit_bytes: self.shared.memory.max_bytes,
                what,
            });
        }
        self.memory_reserved_bytes = wanted;
        Ok(())
    }

    /// Counts `bytes` the transaction's state grew by with a write: a plain addition until
    /// [`WRITE_FLUSH_BYTES`] have gathered, then a check of the transaction's writes and
    /// what this query holds against the query's limit and of the writes' room in the pool.
    /// Past either, the query fails (and with it the transaction, whose writes go).
    #[inline]
    pub fn count_write(&mut self, bytes: usize) -> Result<()> {
        self.write_pending_bytes = self.write_pending_bytes.saturating_add(bytes);
        if self.write_pending_bytes < WRITE_FLUSH_BYTES {
            return Ok(());
        }
        self.flush_writes()
    }

    /// Adds the writes counted locally to the transaction's account and checks the limits.
    #[cold]
    fn flush_writes(&mut self) -> Result<()> {
        let held = self
            .writes
            .add(std::mem::take(&mut self.write_pending_bytes));
        if held.saturating_add(self.memory_bytes) > self.memory_bytes_max {
            return Err(Error::MemoryLimit {
                limit_bytes: self.memory_bytes_max,
                what: WRITES,
            });
        }
        if !self.writes.cover(&self.shared.memory) {
            return Err(Error::MemoryPool {
                limit_bytes: self.shared.memory.max_bytes,
                what: WRITES,
            });
        }
        Ok(())
    }

    /// Hands back pool room down to one chunk above what the query holds.
    #[cold]
    fn shrink(&mut self) {
        let keep = self
            .memory_bytes
            .div_ceil(CHUNK_BYTES)
            .saturating_add(1)
            .saturating_mul(CHUNK_BYTES)
            .min(self.memory_reserved_bytes);
        self.shared
            .memory
            .release(self.memory_reserved_bytes - keep);
        self.memory_reserved_bytes = keep;
    }

    /// Counts the query's parameters, held for as long as it runs (a client's list of a
    /// million maps is the query's as much as one it builds).
    pub fn count_params(&mut self) -> Result<()> {
        let bytes = self.params.iter().map(value_bytes).sum::<usize>();
        self.reserve(bytes, "the query's parameters")
    }

    /// Makes the transaction's writes so far visible to its later reads.
    pub fn advance(&self) -> Result<()> {
        self.tx.advance_command()?;
        Ok(())
    }
}

/// A query's pool room goes back when its context goes: when it ends, fails or is cancelled.
/// Its writes stay the transaction's: what it counted locally joins the transaction's
/// account (the pool room for it is taken when there is some; the transaction's next check
/// takes it otherwise). A context whose account no transaction shares (a nested statement
/// run in a batch transaction of its own) gives the account's room back too: whoever ran its
/// batch commits or rolls it back, and either way its writes are no longer pending.
impl Drop for Cx {
    fn drop(&mut self) {
        if self.write_pending_bytes > 0 {
            self.writes
                .add(std::mem::take(&mut self.write_pending_bytes));
            let _ = self.writes.cover(&self.shared.memory);
        }
        if Arc::strong_count(&self.writes) == 1 {
            self.writes.clear(&self.shared.memory);
        }
        self.shared.memory.release(self.memory_reserved_bytes);
        self.memory_reserved_bytes = 0;
    }
}

/// What a value holds at its top level, in constant time: a string's or byte array's length,
/// a list's or map's slots. For values built step by step (an accumulator, a concatenation)
/// where walking every element each step would cost more than the step.
pub(crate) fn held_bytes(v: &Value) -> usize {
    const BASE: usize = std::mem::size_of::<Value>();
    match v {
        Value::String(s) => BASE + s.len(),
        Value::Bytes(b) => BASE + b.len(),
        Value::Vector(v) => BASE + v.heap_bytes(),
        Value::List(items) => BASE + items.len() * BASE,
        Value::Map(m) => BASE + m.len() * (BASE + 16),
        Value::Path(p) => BASE + (p.nodes.len() + p.relationships.len()) * 16,
        _ => BASE,
    }
}

/// An approximation of the heap a value holds, for memory limits. Nodes and relationships
/// count the labels and properties they carry once materialised (inside a query they carry
/// only their ids).
pub(crate) fn value_bytes(v: &Value) -> usize {
    const BASE: usize = std::mem::size_of::<Value>();
    match v {
        Value::String(s) => BASE + s.len(),
        Value::Bytes(b) => BASE + b.len(),
        Value::Vector(v) => BASE + v.heap_bytes(),
        Value::List(items) => BASE + items.iter().map(value_bytes).sum::<usize>(),
        Value::Map(m) => BASE + map_bytes(m),
        Value::Node(n) => BASE + node_data_bytes(n),
        Value::Relationship(r) => BASE + rel_data_bytes(r),
        Value::Path(p) => {
            BASE + (p.nodes.len() + p.relationships.len()) * 16
                + p.nodes.iter().map(node_data_bytes).sum::<usize>()
                + p.relationships.iter().map(rel_data_bytes).sum::<usize>()
        }
        _ => BASE,
    }
}

/// What a map's entries hold: each key's text and each value.
pub(crate) fn map_bytes(m: &Map) -> usize {
    m.iter()
        .map(|(k, v)| k.len() + value_bytes(v))
        .sum::<usize>()
}

/// What a materialised node's data holds (nothing for a node carrying only its id).
fn node_data_bytes(n: &Node) -> usize {
    n.data.as_deref().map_or(0, |d| {
        ENTITY_DATA_BYTES + d.labels.len() * 16 + map_bytes(&d.properties)
    })
}

/// What a materialised relationship's data holds (nothing for one carrying only its id).
fn rel_data_bytes(r: &Relationship) -> usize {
    r.data
        .as_deref()
        .map_or(0, |d| ENTITY_DATA_BYTES + map_bytes(&d.properties))
}

/// What a materialised entity's shared data block holds besides its labels and properties
/// (the reference counts and the collections' headers).
const ENTITY_DATA_BYTES: usize = 64;

/// What a stored row copy holds besides its values.
pub(crate) const ROW_OVERHEAD_BYTES: usize = 24;

/// The bytes a stored row copy holds.
pub(crate) fn row_bytes(values: &[Value]) -> usize {
    values.iter().map(value_bytes).sum::<usize>() + ROW_OVERHEAD_BYTES
}

/// A running operator.
pub(crate) trait Cursor: Send {
    /// Produces the next row into `row`; `false` when exhausted.
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool>;
    /// Re-arms the cursor to run again (for the next outer row of an apply).
    fn reset(&mut self);
}

pub(crate) type BoxCursor = Box<dyn Cursor>;

/// Where the row being handed on came from: `linenumber()` and `file()` read it.
#[derive(Clone, Debug)]
pub(crate) struct CsvPosition {
    /// The line the record begins on, counted from 1 (a header is line 1).
    pub line: i64,
    /// The file's path as opened.
    pub file: Arc<str>,
}
