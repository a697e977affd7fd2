//! Bulk loading: filling a store no transaction can see yet, and replaying the log into a
//! store no transaction has open.
//!
//! The transactional write path pays for the readers it might have: every change pushes a
//! boxed undo delta onto the entity's chain, stamped with its transaction's cell, and queues
//! garbage collection to cut the chain again once no snapshot needs it. A snapshot being
//! loaded, an offline import and the log replayed at recovery have no readers, so here every
//! entity is written as its one committed version: no chain at all, which is exactly what
//! garbage collection would have left behind.
//!
//! - [`Storage::bulk_load`] opens a [`BulkLoad`] on an empty store. It takes nodes and
//!   relationships under ids the caller chooses (snapshots and redo records name ids; an
//!   importer numbers densely from 0, or reserves ranges with
//!   [`BulkLoad::reserve_node_ids`]), and indexes and uniqueness constraints, which are built
//!   once at the end. [`BulkLoad::finish`] then publishes everything as one commit number.
//!   [`BulkLoad::section`] hands out `Send` loaders so several threads can load at once.
//! - [`Storage::apply_redo_unobserved`] replays one redo record in place, with no undo deltas
//!   and no garbage collection, while no transaction is open (recovery). Cluster followers,
//!   which serve readers while they replay, keep [`Storage::apply_redo`]. A run of records,
//!   as recovery reads them, goes through [`Storage::apply_redo_run_unobserved`] (in
//!   `log_replay`): published once, its work split among threads by the entity it writes.
//!
//! Neither path can be rolled back: on an error the store holds part of the work and must be
//! discarded, which is what recovery and an import do anyway.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use quiver_value::Value;

use crate::arena::{Bitmap, Grouped, Slot, Table};
use crate::codec::check_storable;
use crate::counts::CountKey;
use crate::error::{EntityKind, Error, Result};
use crate::graph::{
    AdjEntry, ENTITY_BYTES_MAX, Encoded, NodeRec, PropValue, RelRec, put_prop_refs,
};
use crate::ids::{ENTITY_IDS_MAX, LabelId, NodeId, PropKeyId, RelId, RelTypeId};
use crate::redo::{NamesRef, PropsRef, RedoRecord, RedoRecordRef};
use crate::schema::{IndexDef, IndexKind, IndexSpec, Schema};
use crate::storage::Storage;
use crate::tokens::distinct_ids;

/// What a finished bulk load published.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BulkSummary {
    /// The one commit number the loaded graph carries.
    pub commit: u64,
    pub nodes: u64,
    pub relationships: u64,
    /// Indexes and uniqueness constraints built.
    pub indexes: usize,
}

/// Count changes gathered by one loader and published once: a shared counter per entity
/// would make parallel loaders contend on every write.
#[derive(Default)]
pub(crate) struct Tally {
    counts: FxHashMap<CountKey, i64>,
    pub(crate) nodes: u64,
    pub(crate) rels: u64,
}

impl Tally {
    pub(crate) fn add(&mut self, key: CountKey, delta: i64) {
        *self.counts.entry(key).or_insert(0) += delta;
    }

    pub(crate) fn merge(&mut self, other: Tally) {
        for (k, d) in other.counts {
            self.add(k, d);
        }
        self.nodes += other.nodes;
        self.rels += other.rels;
    }

    fn changes(&self) -> Vec<(CountKey, i64)> {
        self.counts
            .iter()
            .filter(|(_, d)| **d != 0)
            .map(|(k, d)| (*k, *d))
            .collect()
    }
}

/// An index or constraint asked for during a load, built at [`BulkLoad::finish`].
struct PendingIndex {
    name: String,
    spec: IndexSpec,
}

/// A load into an empty store that no transaction can see until [`BulkLoad::finish`]
/// publishes it (see the module docs).
///
/// Load every node before the relationships that name it. Until `finish`, the store must
/// not be handed to readers: what is loaded is not yet numbered by any commit, and a
/// relationship's adjacency entries are gathered by its loader (in buckets of node ids) and
/// written by `finish`, each node's block once with all its entries, on every core; a
/// loader holding more than `PENDING_ADJ_MAX` entries writes them early. A load that fails,
/// or is dropped unfinished, leaves a store to discard.
pub struct BulkLoad<'a> {
    storage: &'a Storage,
    loader: Loader,
    /// What finished sections counted.
    sections: Mutex<Tally>,
    /// The adjacency entries finished sections gathered, written by `finish`.
    pending: Mutex<Vec<PendingAdj>>,
    indexes: Vec<PendingIndex>,
    /// The nodes loaded so far: where a relationship's ends are checked.
    loaded: Bitmap,
}

/// A `Send` loader over one [`BulkLoad`], for one thread: loads into the same store and hands
/// its counts to the load when dropped.
pub struct BulkSection<'l, 'a> {
    load: &'l BulkLoad<'a>,
    loader: Loader,
}

/// What one thread's loader keeps between ops: its counts, its names and the adjacency
/// entries it has yet to write. The load and each section have one.
#[derive(Default)]
struct Loader {
    tally: Tally,
    names: NameCache,
    adj: PendingAdj,
}

impl Storage {
    /// Opens a bulk load. Refused ([`Error::BulkLoadRefused`]) unless the store is empty
    /// (nothing committed, no entity id handed out, no schema) and no transaction is open.
    pub fn bulk_load(&self) -> Result<BulkLoad<'_>> {
        let refuse = |reason| Err(Error::BulkLoadRefused(reason));
        if self.last_committed() != 0
            || self.next_node.load(Ordering::Acquire) != 0
            || self.next_rel.load(Ordering::Acquire) != 0
        {
            return refuse("the store is not empty");
        }
        // A property constraint counts as schema: a bulk load checks no constraint but
        // uniqueness, so a store with one is refused rather than loaded unchecked.
        if !self.schema().is_empty() || !self.property_constraint_defs().is_empty() {
            return refuse("the store has a schema");
        }
        if self.live_snapshots() != 0 {
            return refuse("a transaction is open");
        }
        Ok(BulkLoad {
            storage: self,
            loader: Loader::default(),
            sections: Mutex::new(Tally::default()),
            pending: Mutex::new(Vec::new()),
            indexes: Vec::new(),
            loaded: Bitmap::new(),
        })
    }

    /// Replays a redo record in place, for a store no transaction is looking at (recovery):
    /// each change is made as committed, with no undo delta and no garbage collection, and the
    /// record's commit number is published. Records that change the schema, rare and small, go
    /// through [`Storage::apply_redo`].
    ///
    /// Refused ([`Error::BulkLoadRefused`]) while a transaction is open. The record is not
    /// atomic here: on an error the store holds part of it and must be discarded.
    pub fn apply_redo_unobserved(self: &Arc<Self>, record: &RedoRecord) -> Result<()> {
        let bytes = record.encode();
        let (decoded, _) = RedoRecordRef::decode(&bytes)?;
        self.apply_redo_ref_unobserved(&decoded)
    }

    /// [`Storage::apply_redo_unobserved`] for a record decoded in place, as recovery reads the
    /// log: names are looked up and values copied into blobs as they are encoded, with no
    /// `Value` built unless an index needs it.
    pub fn apply_redo_ref_unobserved(self: &Arc<Self>, record: &RedoRecordRef<'_>) -> Result<()> {
        let one = crate::log_replay::ReplaySplit::threads(1);
        self.apply_redo_run_unobserved(std::slice::from_ref(record), one)
            .map_err(|stopped| stopped.error)
    }

    /// Numbers what was written as `commit` and lets readers see it.
    pub(crate) fn publish_unobserved(&self, commit: u64, tally: &Tally) {
        let _slot = self.commit.lock();
        // Nothing here went through a commit's write set: the derived indexes rebuild on
        // next use. Marked under the commit lock, which a full-text rebuild also takes, so no
        // rebuild reads the store between the mark and the publication and clears the mark
        // without this commit.
        self.derived_stale();
        self.counts.publish(commit, tally.changes());
        self.last_committed.store(commit, Ordering::Release);
        if self.follow_commits.load(Ordering::Acquire) {
            self.publish_visible(commit);
        }
        // No snapshot older than this commit exists to read the history.
        self.counts.trim(self.oldest_snapshot());
    }

    pub(crate) fn live_node(&self, id: u64) -> Result<Slot<'_, NodeRec>> {
        let slot = self
            .nodes
            .get(id)
            .ok_or_else(|| Error::node_not_found(id))?;
        if !slot.lock().is_live() {
            return Err(Error::node_not_found(id));
        }
        Ok(slot)
    }

    pub(crate) fn delete_node_unobserved(
        &self,
        schema: &Schema,
        tally: &mut Tally,
        id: u64,
    ) -> Result<()> {
        let slot = self.live_node(id)?;
        let mut g = slot.lock();
        if g.has_relationships() {
            return Err(Error::DeleteConnectedNode { id });
        }
        for l in g.labels()? {
            if let Some(bits) = self.label_bitmap_if_any(l) {
                bits.clear(id);
            }
            index_entries(schema.on_label(l), || g.props(), id, false)?;
            tally.add(CountKey::Label(l), -1);
        }
        g.clear();
        tally.add(CountKey::Nodes, -1);
        Ok(())
    }

    pub(crate) fn delete_rel_unobserved(
        &self,
        schema: &Schema,
        tally: &mut Tally,
        id: u64,
    ) -> Result<()> {
        let slot = self.rels.get(id).ok_or_else(|| Error::rel_not_found(id))?;
        let (start, ty) = {
            let r = slot.lock();
            if !r.is_live() {
                return Err(Error::rel_not_found(id));
            }
            index_entries(schema.on_type(r.ty()), || Ok(r.props.bytes()), id, false)?;
            (r.start(), r.ty())
        };
        let end = self
            .rel_end(start, id, ty)
            .ok_or_else(|| Error::rel_not_found(id))?;
        let mut labels = (SmallVec::new(), SmallVec::new());
        if let Some(s) = self.nodes.get(start) {
            let mut g = s.lock();
            g.adj_remove(true, AdjEntry::new(id, end, ty));
            labels.0 = g.labels()?;
        }
        if let Some(e) = self.nodes.get(end) {
            let mut g = e.lock();
            g.adj_remove(false, AdjEntry::new(id, start, ty));
            labels.1 = g.labels()?;
        }
        slot.lock().clear();
        tally.add(CountKey::Rels, -1);
        tally.add(CountKey::Type(ty), -1);
        let ends = (labels.0.as_slice(), labels.1.as_slice());
        crate::counts::rel_counts(ends, ty, start == end, -1, |key, d| tally.add(key, d));
        Ok(())
    }

    pub(crate) fn set_node_prop_unobserved(
        &self,
        schema: &Schema,
        id: u64,
        key: u32,
        value: Option<Encoded<'_>>,
    ) -> Result<()> {
        let slot = self.live_node(id)?;
        let mut g = slot.lock();
        let labels = g.labels()?;
        let indexed: SmallVec<[&Arc<IndexDef>; 2]> = schema
            .defs
            .iter()
            .filter(|d| !d.relationship && d.keys.contains(&key) && labels.contains(&d.token))
            .collect();
        let before = keys_in(&indexed, || g.props())?;
        g.set_prop_encoded(key, value, false)?;
        move_entries(&indexed, before, || g.props(), id)
    }

    /// Adds or removes a label, counting the change in `tally`.
    pub(crate) fn set_label_unobserved(
        &self,
        schema: &Schema,
        tally: &mut Tally,
        id: u64,
        label: u32,
        add: bool,
    ) -> Result<()> {
        let slot = self.live_node(id)?;
        let mut g = slot.lock();
        let mut labels = g.labels()?;
        if labels.contains(&label) == add {
            return Ok(());
        }
        if add {
            labels.push(label);
            if let Some(bits) = self.label_bitmap(label) {
                bits.set(id);
            }
        } else {
            labels.retain(|l| *l != label);
            if let Some(bits) = self.label_bitmap_if_any(label) {
                bits.clear(id);
            }
        }
        g.set_labels(&labels)?;
        index_entries(schema.on_label(label), || g.props(), id, add)?;
        let delta = if add { 1 } else { -1 };
        crate::counts::label_counts(&g, label, delta, |key, d| tally.add(key, d));
        tally.add(CountKey::Label(label), delta);
        Ok(())
    }

    pub(crate) fn set_rel_prop_unobserved(
        &self,
        schema: &Schema,
        id: u64,
        key: u32,
        value: Option<Encoded<'_>>,
    ) -> Result<()> {
        let slot = self.rels.get(id).ok_or_else(|| Error::rel_not_found(id))?;
        let mut r = slot.lock();
        if !r.is_live() {
            return Err(Error::rel_not_found(id));
        }
        let indexed: SmallVec<[&Arc<IndexDef>; 2]> = schema
            .on_type(r.ty())
            .filter(|d| d.keys.contains(&key))
            .collect();
        let before = keys_in(&indexed, || Ok(r.props.bytes()))?;
        r.props.set_encoded(key, value)?;
        move_entries(&indexed, before, || Ok(r.props.bytes()), id)
    }
}

/// Adds (`add`) or removes entity `id`'s entries under each of `defs`, keyed by the
/// properties `props` reads (only once there is an index to key). The entity is its one
/// committed version, so its entries are exact.
pub(crate) fn index_entries<'d, 'p>(
    defs: impl IntoIterator<Item = &'d Arc<IndexDef>>,
    props: impl Fn() -> Result<&'p [u8]>,
    id: u64,
    add: bool,
) -> Result<()> {
    for def in defs {
        if let Some(k) = def.key_in(props()?)? {
            if add {
                def.data.insert(k, id);
            } else {
                def.data.remove(&k, id);
            }
        }
    }
    Ok(())
}

/// The keys the properties `props` reads hold under each of `indexed`: what
/// [`move_entries`] moves an entity's entries from once one of its properties changes.
fn keys_in<'p>(
    indexed: &[&Arc<IndexDef>],
    props: impl Fn() -> Result<&'p [u8]>,
) -> Result<SmallVec<[Option<Box<[u8]>>; 2]>> {
    indexed.iter().map(|d| d.key_in(props()?)).collect()
}

/// Moves entity `id`'s entries under each of `indexed` from the key `before` holds (see
/// [`keys_in`]) to the one the properties `props` reads now hold.
fn move_entries<'p>(
    indexed: &[&Arc<IndexDef>],
    before: SmallVec<[Option<Box<[u8]>>; 2]>,
    props: impl Fn() -> Result<&'p [u8]>,
    id: u64,
) -> Result<()> {
    for (def, old) in indexed.iter().zip(before) {
        if let Some(k) = old {
            def.data.remove(&k, id);
        }
        if let Some(k) = def.key_in(props()?)? {
            def.data.insert(k, id);
        }
    }
    Ok(())
}

/// The entities a replayed record changed, for the constraint check after it.
#[derive(Default)]
pub(crate) struct Touched {
    pub(crate) nodes: Vec<u64>,
    pub(crate) rels: Vec<u64>,
}

/// Properties as a loader encodes them: borrowed, keyed by token id.
type Props<'v> = SmallVec<[(u32, &'v Value); 8]>;

fn checked_props<'v>(storage: &Storage, props: &'v [(PropKeyId, Value)]) -> Result<Props<'v>> {
    let mut out = Props::with_capacity(props.len());
    for (k, v) in props {
        if v.is_null() {
            continue;
        }
        storage.keys.check(k.0)?;
        check_storable(v)?;
        out.push((k.0, v));
    }
    Ok(out)
}

pub(crate) fn capacity(kind: EntityKind) -> Error {
    Error::CapacityExceeded {
        what: match kind {
            EntityKind::Node => "node ids",
            EntityKind::Relationship => "relationship ids",
        },
        limit: ENTITY_IDS_MAX,
    }
}

/// Writes the record `rec` builds as the one committed version of entity `id` of `table`,
/// whose segment it allocates, and moves `next` past `id`. Refused where `id` is taken
/// (`vacant` tells a free record).
pub(crate) fn put_committed<R: Grouped>(
    table: &Table<R>,
    next: &AtomicU64,
    id: u64,
    vacant: fn(&R) -> bool,
    rec: impl FnOnce() -> Result<R>,
) -> Result<()> {
    let kind = R::KIND;
    let slot = table.get_or_alloc(id).ok_or(capacity(kind))?;
    let rec = rec()?;
    {
        let mut g = slot.lock();
        if !vacant(&g) || g.chain().is_some() {
            return Err(Error::EntityExists { kind, id });
        }
        *g = rec;
    }
    next.fetch_max(id + 1, Ordering::AcqRel);
    Ok(())
}

/// Writes a node as committed under `id`; `labels` hold no duplicates, `props` no nulls.
/// A bulk load marks it in `loaded`, where its relationships look for their ends.
pub(crate) fn load_node<V: PropValue>(
    storage: &Storage,
    tally: &mut Tally,
    loaded: Option<&Bitmap>,
    id: u64,
    labels: &[u32],
    props: SmallVec<[(u32, V); 8]>,
) -> Result<()> {
    if id >= ENTITY_IDS_MAX {
        return Err(capacity(EntityKind::Node));
    }
    let rec = || NodeRec::committed_refs(labels, props);
    let (nodes, next) = (&storage.nodes, &storage.next_node);
    put_committed(nodes, next, id, NodeRec::is_vacant, rec)?;
    if let Some(loaded) = loaded {
        loaded.set(id);
    }
    for l in labels {
        if let Some(bits) = storage.label_bitmap(*l) {
            bits.set(id);
        }
        tally.add(CountKey::Label(*l), 1);
    }
    tally.add(CountKey::Nodes, 1);
    tally.nodes += 1;
    Ok(())
}

/// A relationship's properties encoded as its record holds them, refused past
/// [`ENTITY_BYTES_MAX`].
pub(crate) fn relationship_blob<V: PropValue>(props: SmallVec<[(u32, V); 8]>) -> Result<Vec<u8>> {
    let mut blob = Vec::new();
    put_prop_refs(&mut blob, props);
    if blob.len() > ENTITY_BYTES_MAX {
        return Err(Error::ValueTooLarge {
            bytes: blob.len(),
            limit: ENTITY_BYTES_MAX,
        });
    }
    Ok(blob)
}

/// Writes a relationship as committed under `id` between two nodes the load holds
/// (`loaded`), its adjacency entries gathered in `pending` for a later write.
fn load_relationship<V: PropValue>(
    storage: &Storage,
    tally: &mut Tally,
    (pending, loaded): (&mut PendingAdj, &Bitmap),
    id: u64,
    (start, end): (u64, u64),
    ty: u32,
    props: SmallVec<[(u32, V); 8]>,
) -> Result<()> {
    if id >= ENTITY_IDS_MAX {
        return Err(capacity(EntityKind::Relationship));
    }
    let blob = relationship_blob(props)?;
    let (e_out, e_in) = (AdjEntry::new(id, end, ty), AdjEntry::new(id, start, ty));
    // Both ends are checked before anything is written, so a dangling relationship fails
    // leaving no half of itself behind. A bulk load deletes nothing, so a node it loaded is
    // live: the bitmap answers without touching the node's block, which the later write does
    // once for all of its entries.
    for node in [start, end] {
        if !loaded.contains(node) {
            return Err(Error::node_not_found(node));
        }
    }
    let rec = || Ok(RelRec::committed(start, ty, &blob));
    let (rels, next) = (&storage.rels, &storage.next_rel);
    put_committed(rels, next, id, RelRec::is_vacant, rec)?;
    // The label and type counts of the entries are counted as they are written
    // (`write_pending`); a self-loop's here.
    if start == end {
        tally.add(CountKey::SelfLoops(ty), 1);
    }
    pending.push(start, end, e_out, e_in);
    if pending.len >= PENDING_ADJ_MAX {
        tally.merge(pending.write(storage, 1)?);
    }
    tally.add(CountKey::Rels, 1);
    tally.add(CountKey::Type(ty), 1);
    tally.rels += 1;
    Ok(())
}

/// Node ids per bucket of gathered adjacency entries: a bucket's nodes are written together,
/// their entries sorted by a counting pass over this many slots.
const ADJ_BUCKET_BITS: u32 = 16;
const ADJ_BUCKET_NODES: usize = 1 << ADJ_BUCKET_BITS;

/// One gathered adjacency entry: its node's place in its bucket and its direction, packed as
/// `offset << 1 | out`, and the entry.
#[derive(Clone, Copy)]
struct Pending {
    at: u32,
    entry: AdjEntry,
}

const _: () = assert!(std::mem::size_of::<Pending>() == 16);

/// Adjacency entries a loader has yet to write, in buckets of [`ADJ_BUCKET_NODES`] node ids.
/// Gathering costs a sequential append per entry; the write ([`PendingAdj::write`]) then
/// goes through the nodes in id order, each node's block written once with all its entries,
/// instead of one random visit per entry.
#[derive(Default)]
struct PendingAdj {
    buckets: Vec<Vec<Pending>>,
    len: usize,
}

/// Adjacency entries one loader gathers before writing them (16 bytes each, so 256 MiB): a
/// load of up to 8 M relationships per loader is written once, at its end, and a larger one
/// in a few passes, each block rewritten once per pass. Unit tests write every few entries,
/// so their loads take the early path too.
const PENDING_ADJ_MAX: usize = if cfg!(test) { 6 } else { 1 << 24 };

impl PendingAdj {
    fn push(&mut self, start: u64, end: u64, e_out: AdjEntry, e_in: AdjEntry) {
        for (node, out, entry) in [(start, 1, e_out), (end, 0, e_in)] {
            let bucket = (node >> ADJ_BUCKET_BITS) as usize;
            if bucket >= self.buckets.len() {
                self.buckets.resize_with(bucket + 1, Vec::new);
            }
            let at = ((node as u32) & (ADJ_BUCKET_NODES as u32 - 1)) << 1 | out;
            if let Some(b) = self.buckets.get_mut(bucket) {
                b.push(Pending { at, entry });
            }
        }
        self.len += 2;
    }

    /// Writes this loader's entries (see [`write_pending`]) and starts again empty.
    fn write(&mut self, storage: &Storage, threads: usize) -> Result<Tally> {
        let parts = [std::mem::take(self)];
        write_pending(storage, &parts, threads)
    }
}

/// Writes the entries several loaders gathered into their nodes' blocks, a bucket at a time
/// on up to `threads` threads (buckets hold disjoint nodes, so threads never meet on a
/// node): the bucket's entries are sorted by node and direction in one counting pass, then
/// each node's block is written afresh once with its new entries merged in
/// (`NodeRec::adj_insert_sorted`). Returns the label and type counts the entries add.
fn write_pending(storage: &Storage, parts: &[PendingAdj], threads: usize) -> Result<Tally> {
    let buckets = parts.iter().map(|p| p.buckets.len()).max().unwrap_or(0);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || -> Result<Tally> {
        let mut tally = Tally::default();
        let mut scratch = BucketScratch::default();
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= buckets {
                return Ok(tally);
            }
            let lists = parts.iter().filter_map(|p| p.buckets.get(b));
            let base = (b as u64) << ADJ_BUCKET_BITS;
            scratch.write(storage, base, lists, &mut tally)?;
        }
    };
    let threads = threads.clamp(1, buckets.max(1));
    if threads == 1 {
        return work();
    }
    std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut tally = work()?;
        for h in others {
            let part = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            tally.merge(part?);
        }
        Ok(tally)
    })
}

/// One writing thread's buffers, kept from bucket to bucket.
#[derive(Default)]
struct BucketScratch {
    /// Per `at` slot, first the count of its entries, then where its run ends in `sorted`.
    ends: Vec<u32>,
    sorted: Vec<AdjEntry>,
}

impl BucketScratch {
    /// Writes one bucket's entries, gathered in `lists`, into the nodes from `base` on.
    fn write<'p>(
        &mut self,
        storage: &Storage,
        base: u64,
        lists: impl Iterator<Item = &'p Vec<Pending>> + Clone,
        tally: &mut Tally,
    ) -> Result<()> {
        let total: usize = lists.clone().map(Vec::len).sum();
        if total == 0 {
            return Ok(());
        }
        let slots = 2 * ADJ_BUCKET_NODES;
        self.ends.clear();
        self.ends.resize(slots, 0);
        let mut last = 0;
        for p in lists.clone().flatten() {
            let at = p.at as usize;
            if let Some(n) = self.ends.get_mut(at) {
                *n += 1;
            }
            last = last.max(at);
        }
        // Through the last node's outgoing slot, which holds its run's end too.
        let last = last | 1;
        // Counts to starts (exclusive prefix sums); the scatter below moves each start to
        // its run's end.
        let mut sum = 0u32;
        for n in &mut self.ends[..=last] {
            let count = *n;
            *n = sum;
            sum += count;
        }
        self.sorted.clear();
        self.sorted.resize(total, AdjEntry::new(0, 0, 0));
        for p in lists.flatten() {
            if let Some(n) = self.ends.get_mut(p.at as usize)
                && let Some(slot) = self.sorted.get_mut(*n as usize)
            {
                *slot = p.entry;
                *n += 1;
            }
        }
        let mut from = 0usize;
        for node in 0..=last / 2 {
            let inc_end = self.ends.get(2 * node).map_or(from, |e| *e as usize);
            let out_end = self.ends.get(2 * node + 1).map_or(inc_end, |e| *e as usize);
            if out_end == from {
                continue;
            }
            let (inc, out) = self.sorted[from..out_end].split_at_mut(inc_end - from);
            from = out_end;
            for list in [&mut *inc, &mut *out] {
                if !list.is_sorted_by_key(|e| e.key()) {
                    list.sort_unstable_by_key(|e| e.key());
                }
            }
            // Every end was checked loaded when its relationship was, and nothing removes
            // nodes during a load.
            let Some(slot) = storage.nodes.get(base + node as u64) else {
                continue;
            };
            let mut g = slot.lock();
            g.adj_insert_sorted(out, inc);
            for label in g.labels()? {
                for (list, out) in [(&*out, true), (&*inc, false)] {
                    for_type_runs(list, |ty, n| {
                        tally.add(CountKey::LabelType { label, ty, out }, n);
                    });
                }
            }
        }
        Ok(())
    }
}

/// Fills index `def` from a bulk load's entities: their keys gathered on up to `threads`
/// threads, each over its own id range, and handed to the index at once, which builds its
/// tree from them in one pass. Every entity is its one committed version and a node carries
/// a label exactly when the label's bitmap says so, so no version or label is read.
fn populate(storage: &Storage, def: &IndexDef, threads: usize) -> Result<()> {
    type Entries = Vec<(Box<[u8]>, u64)>;
    let labelled = if def.relationship {
        None
    } else {
        match storage.label_bitmap_if_any(def.token) {
            Some(bits) => Some(bits),
            None => return Ok(()),
        }
    };
    let end = if def.relationship {
        storage.next_rel.load(Ordering::Acquire)
    } else {
        storage.next_node.load(Ordering::Acquire)
    };
    let part = |ids: Range<u64>| -> Result<Entries> {
        let mut out = Entries::new();
        match labelled {
            None => {
                let mut held = None;
                for id in ids {
                    let Some(slot) = storage.rels.get(id) else {
                        continue;
                    };
                    let r = slot.lock_into(&mut held);
                    if r.is_vacant() || r.ty() != def.token {
                        continue;
                    }
                    if let Some(k) = def.key_in(r.props.bytes())? {
                        out.push((k, id));
                    }
                }
            }
            Some(bits) => {
                let mut held = None;
                for id in ids.filter(|id| bits.contains(*id)) {
                    let Some(slot) = storage.nodes.get(id) else {
                        continue;
                    };
                    if let Some(k) = def.key_in(slot.lock_into(&mut held).props()?)? {
                        out.push((k, id));
                    }
                }
            }
        }
        out.sort_unstable();
        Ok(out)
    };
    let threads = threads.max(1) as u64;
    let per = end.div_ceil(threads).max(1);
    let ranges = (0..threads).map(|t| (t * per).min(end)..((t + 1) * per).min(end));
    let parts: Vec<Result<Entries>> = std::thread::scope(|scope| {
        let handles: Vec<_> = ranges.map(|ids| scope.spawn(move || part(ids))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut entries = Entries::new();
    for p in parts {
        entries.append(&mut p?);
    }
    def.data.extend(entries);
    Ok(())
}

/// Calls `f` with each type in `list` (sorted by type) and how many entries have it.
fn for_type_runs(list: &[AdjEntry], mut f: impl FnMut(u32, i64)) {
    let mut rest = list;
    while let Some(first) = rest.first() {
        let ty = first.ty();
        let n = rest.partition_point(|e| e.ty() == ty);
        f(ty, n as i64);
        rest = &rest[n..];
    }
}

/// Token ids by name, kept by one loader: the store's tables take a shared lock per lookup,
/// which loaders on several threads would contend on for every name of every op.
#[derive(Default)]
pub(crate) struct NameCache {
    labels: FxHashMap<Box<str>, u32>,
    keys: FxHashMap<Box<str>, u32>,
    types: FxHashMap<Box<str>, u32>,
}

/// Which table a cached name belongs to.
#[derive(Clone, Copy)]
pub(crate) enum Token {
    Label,
    Key,
    Type,
}

impl NameCache {
    pub(crate) fn id(&mut self, storage: &Storage, token: Token, name: &str) -> Result<u32> {
        let (map, table) = match token {
            Token::Label => (&mut self.labels, &storage.labels),
            Token::Key => (&mut self.keys, &storage.keys),
            Token::Type => (&mut self.types, &storage.types),
        };
        if let Some(id) = map.get(name) {
            return Ok(*id);
        }
        let id = table.get_or_create(name)?;
        map.insert(name.into(), id);
        Ok(id)
    }

    fn props<'a>(
        &mut self,
        storage: &Storage,
        props: PropsRef<'a>,
    ) -> Result<SmallVec<[(u32, Encoded<'a>); 8]>> {
        props
            .iter()
            .map(|(k, v)| Ok((self.id(storage, Token::Key, k)?, Encoded(v.bytes()))))
            .collect()
    }
}

/// What the loaders of one load write into: the store, and the nodes the load holds so far.
#[derive(Clone, Copy)]
struct Target<'s> {
    storage: &'s Storage,
    loaded: &'s Bitmap,
}

impl Loader {
    /// [`BulkLoad::node`] into `to`.
    fn node(
        &mut self,
        to: Target<'_>,
        id: NodeId,
        labels: &[LabelId],
        props: &[(PropKeyId, Value)],
    ) -> Result<()> {
        let labels = to.storage.labels.checked_distinct(labels)?;
        let props = checked_props(to.storage, props)?;
        let loaded = Some(to.loaded);
        load_node(to.storage, &mut self.tally, loaded, id.0, &labels, props)
    }

    /// [`BulkLoad::relationship`] into `to`.
    fn relationship(
        &mut self,
        to: Target<'_>,
        id: RelId,
        (start, end): (NodeId, NodeId),
        rel_type: RelTypeId,
        props: &[(PropKeyId, Value)],
    ) -> Result<()> {
        to.storage.types.check(rel_type.0)?;
        let props = checked_props(to.storage, props)?;
        self.load_relationship(to, id, (start, end), rel_type.0, props)
    }

    /// A node from a redo record's creation: names resolved through the loader's cache,
    /// values copied as they are encoded.
    fn node_from_redo(
        &mut self,
        to: Target<'_>,
        id: NodeId,
        labels: NamesRef<'_>,
        props: PropsRef<'_>,
    ) -> Result<()> {
        let (storage, names) = (to.storage, &mut self.names);
        let ls = distinct_ids(labels.iter(), |l| names.id(storage, Token::Label, l))?;
        let props = self.names.props(storage, props)?;
        load_node(storage, &mut self.tally, Some(to.loaded), id.0, &ls, props)
    }

    /// A relationship from a redo record's creation (see [`Loader::node_from_redo`]).
    fn relationship_from_redo(
        &mut self,
        to: Target<'_>,
        id: RelId,
        (start, end): (NodeId, NodeId),
        (rel_type, props): (&str, PropsRef<'_>),
    ) -> Result<()> {
        let ty = self.names.id(to.storage, Token::Type, rel_type)?;
        let props = self.names.props(to.storage, props)?;
        self.load_relationship(to, id, (start, end), ty, props)
    }

    /// Loads a relationship of a checked type with checked properties, its adjacency entries
    /// gathered for a later write.
    fn load_relationship<V: PropValue>(
        &mut self,
        to: Target<'_>,
        id: RelId,
        (start, end): (NodeId, NodeId),
        ty: u32,
        props: SmallVec<[(u32, V); 8]>,
    ) -> Result<()> {
        let later = (&mut self.adj, to.loaded);
        let ends = (start.0, end.0);
        load_relationship(to.storage, &mut self.tally, later, id.0, ends, ty, props)
    }
}

/// Takes `n` ids from `next` at once; refused past the id space.
fn reserve(next: &AtomicU64, n: u64, kind: EntityKind) -> Result<Range<u64>> {
    next.fetch_update(Ordering::AcqRel, Ordering::Acquire, |first| {
        first.checked_add(n).filter(|end| *end <= ENTITY_IDS_MAX)
    })
    .map(|first| first..first + n)
    .map_err(|_| capacity(kind))
}

impl<'a> BulkLoad<'a> {
    /// The store being loaded: its tokens (`get_or_create_label` and the others) are what
    /// the ids given to the loader name.
    pub fn storage(&self) -> &'a Storage {
        self.storage
    }

    /// Loads a node under `id` as committed. Refused if `id` is taken; null properties are
    /// skipped and a repeated key keeps its last value, as in `create_node`.
    pub fn node(
        &mut self,
        id: NodeId,
        labels: &[LabelId],
        props: &[(PropKeyId, Value)],
    ) -> Result<()> {
        let to = Target {
            storage: self.storage,
            loaded: &self.loaded,
        };
        self.loader.node(to, id, labels, props)
    }

    /// Loads a relationship under `id` as committed. Both ends must be loaded already.
    pub fn relationship(
        &mut self,
        id: RelId,
        start: NodeId,
        end: NodeId,
        rel_type: RelTypeId,
        props: &[(PropKeyId, Value)],
    ) -> Result<()> {
        let to = Target {
            storage: self.storage,
            loaded: &self.loaded,
        };
        self.loader
            .relationship(to, id, (start, end), rel_type, props)
    }

    /// Loads a node as a redo record's `CreateNode` describes it (a snapshot's, say): names
    /// resolved here and kept for the next op, values copied as encoded. As [`BulkLoad::node`]
    /// otherwise.
    pub fn node_from_redo(
        &mut self,
        id: NodeId,
        labels: NamesRef<'_>,
        props: PropsRef<'_>,
    ) -> Result<()> {
        let to = Target {
            storage: self.storage,
            loaded: &self.loaded,
        };
        self.loader.node_from_redo(to, id, labels, props)
    }

    /// Loads a relationship as a redo record's `CreateRelationship` describes it (see
    /// [`BulkLoad::node_from_redo`]).
    pub fn relationship_from_redo(
        &mut self,
        id: RelId,
        start: NodeId,
        end: NodeId,
        rel_type: &str,
        props: PropsRef<'_>,
    ) -> Result<()> {
        let to = Target {
            storage: self.storage,
            loaded: &self.loaded,
        };
        let ends = (start, end);
        self.loader
            .relationship_from_redo(to, id, ends, (rel_type, props))
    }

    /// One past the highest node id loaded or reserved: the next free id for a loader that
    /// numbers densely from 0.
    pub fn next_node_id(&self) -> NodeId {
        NodeId(self.storage.next_node.load(Ordering::Acquire))
    }

    /// One past the highest relationship id loaded or reserved.
    pub fn next_rel_id(&self) -> RelId {
        RelId(self.storage.next_rel.load(Ordering::Acquire))
    }

    /// Takes `n` consecutive node ids no other loader will be given by this call, for
    /// sections that number their own nodes.
    pub fn reserve_node_ids(&self, n: u64) -> Result<Range<u64>> {
        reserve(&self.storage.next_node, n, EntityKind::Node)
    }

    /// Takes `n` consecutive relationship ids (see [`BulkLoad::reserve_node_ids`]).
    pub fn reserve_rel_ids(&self, n: u64) -> Result<Range<u64>> {
        reserve(&self.storage.next_rel, n, EntityKind::Relationship)
    }

    /// Asks for a property index on `(:label).key`, built by [`BulkLoad::finish`].
    pub fn create_index(
        &mut self,
        label: LabelId,
        key: PropKeyId,
        name: Option<&str>,
    ) -> Result<()> {
        self.create_schema_index(IndexSpec::on_label_key(label, key, IndexKind::Range), name)
    }

    /// Asks for a uniqueness constraint on `(:label).key`: `finish` fails with
    /// [`Error::ConstraintCreationFailed`] if the loaded data violates it.
    pub fn create_unique_constraint(
        &mut self,
        label: LabelId,
        key: PropKeyId,
        name: Option<&str>,
    ) -> Result<()> {
        self.create_schema_index(IndexSpec::on_label_key(label, key, IndexKind::Unique), name)
    }

    /// Asks for any index or constraint (see [`Transaction::create_schema_index`]), built by
    /// [`BulkLoad::finish`], which fails if the loaded data violates a constraint.
    pub fn create_schema_index(&mut self, spec: IndexSpec, name: Option<&str>) -> Result<()> {
        if spec.keys.is_empty() {
            return Err(Error::InvalidSchema(
                "an index needs at least one property key",
            ));
        }
        let name = match name {
            Some(n) => n.to_string(),
            // The names a transaction gives, so a loaded store reads like a built one.
            None => {
                let s = self.storage;
                let token = s.label_or_type(spec.relationship, spec.token)?;
                let mut name = format!(
                    "{}_{token}",
                    if spec.kind.is_constraint() {
                        "constraint"
                    } else {
                        "index"
                    }
                );
                for k in &spec.keys {
                    name.push('_');
                    name.push_str(&s.keys.name_or_err(*k)?);
                }
                name
            }
        };
        let rule = self.storage.index_rule(&name, &spec)?;
        crate::rules::refuse(&self.rules()?, &rule, crate::rules::Judge::NameOnly)?;
        self.indexes.push(PendingIndex { name, spec });
        Ok(())
    }

    /// The rules the store holds and those the load has been asked for. A load's rules come
    /// from a snapshot, judged when they were made, so a new one is judged by its name alone
    /// (see `rules`).
    fn rules(&self) -> Result<Vec<crate::rules::Rule>> {
        let mut rules = self.storage.rules()?;
        for p in &self.indexes {
            rules.push(self.storage.index_rule(&p.name, &p.spec)?);
        }
        Ok(rules)
    }

    /// Defines a vector index (see [`Transaction::create_vector_index`]); its graph is built
    /// from the store at its first search, after the load.
    pub fn create_vector_index(
        &mut self,
        name: &str,
        relationship: bool,
        (token, key): (&str, &str),
        with_properties: &[&str],
        config: crate::vector::VectorConfig,
    ) -> Result<()> {
        let s = self.storage;
        let token = if relationship {
            s.types.get_or_create(token)?
        } else {
            s.labels.get_or_create(token)?
        };
        let key = s.keys.get_or_create(key)?;
        let with_keys = with_properties
            .iter()
            .map(|k| s.keys.get_or_create(k))
            .collect::<Result<Vec<_>>>()?;
        let rule = s.vector_rule(name, relationship, token, key)?;
        crate::rules::refuse(&self.rules()?, &rule, crate::rules::Judge::NameOnly)?;
        s.publish_derived(crate::derived::DerivedIndex::Vector(Arc::new(
            crate::vector::VectorIndexDef::new(
                name.to_string(),
                relationship,
                token,
                (key, with_keys),
                config,
            ),
        )));
        Ok(())
    }

    /// A loader for another thread. Sections load into the same store; their counts and the
    /// adjacency entries they gathered join the load's when they are dropped, so drop them
    /// (end their threads) before `finish`, which the borrow checker enforces.
    pub fn section(&self) -> BulkSection<'_, 'a> {
        BulkSection {
            load: self,
            loader: Loader::default(),
        }
    }

    /// What this load's loaders write into.
    fn target(&self) -> Target<'_> {
        Target {
            storage: self.storage,
            loaded: &self.loaded,
        }
    }

    /// Writes the adjacency entries gathered so far (every node's block once, on every
    /// core), builds the indexes and constraints, then publishes the whole load as `commit`
    /// (at least 1): readers see it from that commit on, and write transactions start there.
    pub fn finish(self, commit: u64) -> Result<BulkSummary> {
        if commit == 0 {
            return Err(Error::BulkLoadRefused("commit 0 is the empty store's"));
        }
        let BulkLoad {
            storage,
            loader: Loader { mut tally, adj, .. },
            sections,
            pending,
            indexes,
            loaded,
        } = self;
        drop(loaded);
        tally.merge(sections.into_inner());
        let mut pending = pending.into_inner();
        pending.push(adj);
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        tally.merge(write_pending(storage, &pending, threads)?);
        drop(pending);
        let mut defs = Vec::with_capacity(indexes.len());
        for p in indexes {
            let def = Arc::new(IndexDef::new(p.name, &p.spec));
            populate(storage, &def, threads)?;
            if def.unique() {
                storage.verify_constraint(&def, None)?;
            }
            def.online.store(true, Ordering::Release);
            defs.push(def);
        }
        let built = defs.len();
        if !defs.is_empty() {
            *storage.schema.write() = Arc::new(Schema { defs });
            storage.schema_replaced();
        }
        storage.publish_unobserved(commit, &tally);
        Ok(BulkSummary {
            commit,
            nodes: tally.nodes,
            relationships: tally.rels,
            indexes: built,
        })
    }
}

impl BulkSection<'_, '_> {
    /// [`BulkLoad::node`] from this section's thread.
    pub fn node(
        &mut self,
        id: NodeId,
        labels: &[LabelId],
        props: &[(PropKeyId, Value)],
    ) -> Result<()> {
        self.loader.node(self.load.target(), id, labels, props)
    }

    /// [`BulkLoad::relationship`] from this section's thread.
    pub fn relationship(
        &mut self,
        id: RelId,
        start: NodeId,
        end: NodeId,
        rel_type: RelTypeId,
        props: &[(PropKeyId, Value)],
    ) -> Result<()> {
        let ends = (start, end);
        self.loader
            .relationship(self.load.target(), id, ends, rel_type, props)
    }

    /// [`BulkLoad::node_from_redo`] from this section's thread.
    pub fn node_from_redo(
        &mut self,
        id: NodeId,
        labels: NamesRef<'_>,
        props: PropsRef<'_>,
    ) -> Result<()> {
        self.loader
            .node_from_redo(self.load.target(), id, labels, props)
    }

    /// [`BulkLoad::relationship_from_redo`] from this section's thread.
    pub fn relationship_from_redo(
        &mut self,
        id: RelId,
        start: NodeId,
        end: NodeId,
        rel_type: &str,
        props: PropsRef<'_>,
    ) -> Result<()> {
        let ends = (start, end);
        self.loader
            .relationship_from_redo(self.load.target(), id, ends, (rel_type, props))
    }

    /// [`BulkLoad::reserve_node_ids`].
    pub fn reserve_node_ids(&self, n: u64) -> Result<Range<u64>> {
        self.load.reserve_node_ids(n)
    }

    /// [`BulkLoad::reserve_rel_ids`].
    pub fn reserve_rel_ids(&self, n: u64) -> Result<Range<u64>> {
        self.load.reserve_rel_ids(n)
    }
}

impl Drop for BulkSection<'_, '_> {
    fn drop(&mut self) {
        let tally = std::mem::take(&mut self.loader.tally);
        self.load.sections.lock().merge(tally);
        let adj = std::mem::take(&mut self.loader.adj);
        if adj.len > 0 {
            self.load.pending.lock().push(adj);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>() {}

    #[test]
    fn sections_are_send() {
        assert_send::<BulkSection<'_, '_>>();
    }

    #[test]
    fn a_load_is_refused_on_a_store_in_use() {
        let s = Storage::new();
        let l = s.get_or_create_label("L").unwrap();
        let tx = s.begin_read();
        assert!(matches!(s.bulk_load(), Err(Error::BulkLoadRefused(_))));
        drop(tx);
        let tx = s.begin_write();
        tx.create_node(&[l], &[]).unwrap();
        tx.commit().unwrap();
        assert!(matches!(s.bulk_load(), Err(Error::BulkLoadRefused(_))));
    }

    #[test]
    fn a_load_publishes_one_commit_with_no_deltas() {
        let s = Storage::new();
        let l = s.get_or_create_label("L").unwrap();
        let k = s.get_or_create_property_key("k").unwrap();
        let t = s.get_or_create_rel_type("T").unwrap();
        let mut load = s.bulk_load().unwrap();
        load.node(NodeId(0), &[l, l], &[(k, Value::Int(1))])
            .unwrap();
        load.node(NodeId(2), &[], &[(k, Value::Null)]).unwrap();
        assert!(matches!(
            load.node(NodeId(2), &[], &[]),
            Err(Error::EntityExists { .. })
        ));
        assert!(matches!(
            load.relationship(RelId(0), NodeId(0), NodeId(1), t, &[]),
            Err(Error::EntityNotFound { .. })
        ));
        load.relationship(RelId(0), NodeId(0), NodeId(2), t, &[])
            .unwrap();
        assert_eq!(load.next_node_id(), NodeId(3));
        assert_eq!(load.reserve_node_ids(2).unwrap(), 3..5);
        std::thread::scope(|scope| {
            let mut section = load.section();
            scope.spawn(move || section.node(NodeId(3), &[l], &[]).unwrap());
        });
        load.create_unique_constraint(l, k, None).unwrap();
        let summary = load.finish(7).unwrap();
        assert_eq!(
            summary,
            BulkSummary {
                commit: 7,
                nodes: 3,
                relationships: 1,
                indexes: 1
            }
        );
        assert_eq!(s.last_committed(), 7);
        assert_eq!(s.stats().live_deltas, 0);
        let r = s.begin_read();
        assert_eq!(r.count_label(l).unwrap(), 2);
        assert_eq!(r.count_nodes().unwrap(), 3);
        assert_eq!(r.count_rels_of_type(t).unwrap(), 1);
        assert!(r.has_index(l, k));
        assert_eq!(s.constraints()[0].name, "constraint_L_k");
    }

    /// Loaders that hold more than `PENDING_ADJ_MAX` entries (a handful in unit tests) write
    /// them early and again at the end: each node's entries merge in order, counted once.
    #[test]
    fn adjacency_written_in_several_passes_reads_as_built() {
        let (built, loaded) = (Storage::new(), Storage::new());
        let tokens = |s: &Storage| {
            let l = [
                s.get_or_create_label("A").unwrap(),
                s.get_or_create_label("B").unwrap(),
            ];
            let t = [
                s.get_or_create_rel_type("R").unwrap(),
                s.get_or_create_rel_type("S").unwrap(),
            ];
            (l, t)
        };
        let ((la, ta), (lb, tb)) = (tokens(&built), tokens(&loaded));
        let ends = |i: u64| ((i * 7) % 10, (i * 3 + 1) % 10);
        let tx = built.begin_write();
        for i in 0..10 {
            tx.create_node(&[la[(i % 2) as usize]], &[]).unwrap();
        }
        for i in 0..60u64 {
            let (a, b) = ends(i);
            tx.create_relationship(NodeId(a), NodeId(b), ta[(i % 2) as usize], &[])
                .unwrap();
        }
        tx.commit().unwrap();
        let mut load = loaded.bulk_load().unwrap();
        for i in 0..10 {
            load.node(NodeId(i), &[lb[(i % 2) as usize]], &[]).unwrap();
        }
        std::thread::scope(|scope| {
            let mut section = load.section();
            scope.spawn(move || {
                for i in (0..60u64).filter(|i| i % 2 == 0) {
                    let (a, b) = ends(i);
                    section
                        .relationship(RelId(i), NodeId(a), NodeId(b), tb[0], &[])
                        .unwrap();
                }
            });
        });
        for i in (0..60u64).filter(|i| i % 2 == 1) {
            let (a, b) = ends(i);
            load.relationship(RelId(i), NodeId(a), NodeId(b), tb[1], &[])
                .unwrap();
        }
        load.finish(built.last_committed()).unwrap();
        let (ra, rb) = (built.begin_read(), loaded.begin_read());
        let ops = |r: &crate::Transaction| -> Vec<String> {
            r.export()
                .unwrap()
                .map(|op| format!("{:?}", op.unwrap()))
                .collect()
        };
        assert_eq!(ops(&ra), ops(&rb));
        for (l, t) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            for dir in [crate::Direction::Out, crate::Direction::In] {
                assert_eq!(
                    ra.count_rels_by_label(la[l], ta[t], dir).unwrap(),
                    rb.count_rels_by_label(lb[l], tb[t], dir).unwrap()
                );
            }
            assert_eq!(
                ra.count_self_loops(ta[t]).unwrap(),
                rb.count_self_loops(tb[t]).unwrap()
            );
        }
        for n in 0..10 {
            for dir in [crate::Direction::Out, crate::Direction::In] {
                let a = ra.expand(NodeId(n), dir, &[]).unwrap();
                assert_eq!(a, rb.expand(NodeId(n), dir, &[]).unwrap());
            }
        }
    }

    #[test]
    fn a_constraint_the_data_breaks_fails_the_load() {
        let s = Storage::new();
        let l = s.get_or_create_label("L").unwrap();
        let k = s.get_or_create_property_key("k").unwrap();
        let mut load = s.bulk_load().unwrap();
        load.node(NodeId(0), &[l], &[(k, Value::Int(1))]).unwrap();
        load.node(NodeId(1), &[l], &[(k, Value::Float(1.0))])
            .unwrap();
        load.create_unique_constraint(l, k, Some("c")).unwrap();
        assert!(matches!(
            load.finish(1),
            Err(Error::ConstraintCreationFailed { .. })
        ));
    }
}
