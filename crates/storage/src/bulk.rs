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
//!   which serve readers while they replay, keep [`Storage::apply_redo`].
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

use crate::arena::{Grouped, Slot, Table};
use crate::codec::check_storable;
use crate::constraints::PropertyConstraintSpec;
use crate::counts::CountKey;
use crate::error::{EntityKind, Error, Result};
use crate::fulltext::FulltextSpec;
use crate::graph::{
    AdjEntry, ENTITY_BYTES_MAX, Encoded, NodeRec, PropValue, RelRec, put_prop_refs,
};
use crate::ids::{ENTITY_IDS_MAX, LabelId, NodeId, PropKeyId, RelId, RelTypeId};
use crate::redo::{NamesRef, PropsRef, RawValue, RedoOpRef, RedoRecord, RedoRecordRef};
use crate::replay::{RedoSink, SchemaIndexRef};
use crate::schema::{IndexDef, IndexKind, IndexSpec, Schema};
use crate::security::Security;
use crate::storage::Storage;
use crate::tokens::distinct_ids;
use crate::vector::VectorConfig;

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
struct Tally {
    counts: FxHashMap<CountKey, i64>,
    nodes: u64,
    rels: u64,
}

impl Tally {
    fn add(&mut self, key: CountKey, delta: i64) {
        *self.counts.entry(key).or_insert(0) += delta;
    }

    fn merge(&mut self, other: Tally) {
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
/// relationship's adjacency entries are gathered by its loader and written in sorted batches
/// (each node's block rewritten once per batch rather than grown once per entry), the last
/// batch when a section is dropped or the load finishes. A load that
/// fails, or is dropped unfinished, leaves a store to discard.
pub struct BulkLoad<'a> {
    storage: &'a Storage,
    loader: Loader,
    /// What finished sections gathered.
    sections: Mutex<Tally>,
    indexes: Vec<PendingIndex>,
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
            indexes: Vec::new(),
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
        let last = self.last_committed();
        if record.commit <= last {
            return Err(Error::Replay(format!(
                "commit {} is not newer than the store's {last}",
                record.commit
            )));
        }
        if record.ops.iter().any(RedoOpRef::is_schema) {
            return self.apply_redo_ref(record);
        }
        // The full-text worker reads under a snapshot of its own; the indexes are marked
        // for a rebuild when the record is published.
        self.derived_quiesce();
        if self.live_snapshots() != 0 {
            return Err(Error::BulkLoadRefused("a transaction is open"));
        }
        if self.gc_pending() {
            // Chains left by earlier transactional writes: with no snapshot open, a pass cuts
            // them all, so every entity below is its one committed version.
            self.gc();
        }
        let schema = self.schema();
        let unique = schema.has_constraints();
        let mut sink = Unobserved {
            storage: self,
            schema: &schema,
            tally: Tally::default(),
            touched: Touched::default(),
        };
        for op in &record.ops {
            op.apply_to(&mut sink)?;
        }
        let Unobserved {
            tally, mut touched, ..
        } = sink;
        if unique {
            for ids in [&mut touched.nodes, &mut touched.rels] {
                ids.sort_unstable();
                ids.dedup();
            }
            // Index entries are exact here (every entity is one version), so the index
            // names every candidate.
            let touched = (&touched.nodes[..], &touched.rels[..]);
            self.check_constraints_over(&schema, touched, None)?;
        }
        self.publish_unobserved(record.commit, &tally);
        Ok(())
    }

    /// Numbers what was written as `commit` and lets readers see it.
    fn publish_unobserved(&self, commit: u64, tally: &Tally) {
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

    fn live_node(&self, id: u64) -> Result<Slot<'_, NodeRec>> {
        let slot = self
            .nodes
            .get(id)
            .ok_or_else(|| Error::node_not_found(id))?;
        if !slot.lock().is_live() {
            return Err(Error::node_not_found(id));
        }
        Ok(slot)
    }

    /// The label and type counts of everything in the store, from each node's labels and
    /// adjacency (its self-loops from its outgoing list): a bulk load's, counted once its
    /// relationships are all in, on every core.
    fn label_type_tally(&self) -> Result<Tally> {
        let end = self.next_node.load(Ordering::Acquire);
        let threads = std::thread::available_parallelism().map_or(1, usize::from) as u64;
        let per = end.div_ceil(threads).max(1);
        let count = |ids: Range<u64>| -> Result<Tally> {
            let mut tally = Tally::default();
            for id in ids {
                let Some(slot) = self.nodes.get(id) else {
                    continue;
                };
                let g = slot.lock();
                if !g.is_live() {
                    continue;
                }
                for label in g.labels()? {
                    crate::counts::label_counts(&g, label, 1, |key, d| tally.add(key, d));
                }
                for entry in g.adj(true).iter().filter(|e| e.nbr() == id) {
                    tally.add(CountKey::SelfLoops(entry.ty()), 1);
                }
            }
            Ok(tally)
        };
        let parts: Vec<Result<Tally>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let ids = (t * per).min(end)..((t + 1) * per).min(end);
                    scope.spawn(move || count(ids))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        let mut tally = Tally::default();
        for part in parts {
            tally.merge(part?);
        }
        Ok(tally)
    }

    fn delete_node_unobserved(&self, schema: &Schema, tally: &mut Tally, id: u64) -> Result<()> {
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

    fn delete_rel_unobserved(&self, schema: &Schema, tally: &mut Tally, id: u64) -> Result<()> {
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

    fn set_node_prop_unobserved(
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
    fn set_label_unobserved(
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

    fn set_rel_prop_unobserved(
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

/// The unobserved loader: each op is made in place as committed, with no undo delta (see
/// [`Storage::apply_redo_ref_unobserved`]). Takes data only: a record that changes the schema
/// goes through the transactional replay.
struct Unobserved<'s> {
    storage: &'s Storage,
    schema: &'s Schema,
    tally: Tally,
    /// Nodes and relationships that may now break a constraint.
    touched: Touched,
}

impl Unobserved<'_> {
    fn key(&self, name: &str) -> Result<u32> {
        self.storage.keys.get_or_create(name)
    }

    fn encoded<'p>(&self, props: PropsRef<'p>) -> Result<SmallVec<[(u32, Encoded<'p>); 8]>> {
        props
            .iter()
            .map(|(k, v)| Ok((self.key(k)?, Encoded(v.bytes()))))
            .collect()
    }
}

impl RedoSink for Unobserved<'_> {
    fn create_node(&mut self, id: u64, labels: NamesRef<'_>, props: PropsRef<'_>) -> Result<()> {
        let storage = self.storage;
        let ls = distinct_ids(labels.iter(), |l| storage.labels.get_or_create(l))?;
        let props = self.encoded(props)?;
        load_node(storage, &mut self.tally, id, &ls, props)?;
        let slot = storage.live_node(id)?;
        let g = slot.lock();
        for l in &ls {
            index_entries(self.schema.on_label(*l), || g.props(), id, true)?;
        }
        self.touched.nodes.push(id);
        Ok(())
    }

    fn delete_node(&mut self, id: u64) -> Result<()> {
        self.storage
            .delete_node_unobserved(self.schema, &mut self.tally, id)
    }

    fn set_node_property(&mut self, id: u64, key: &str, value: Option<RawValue<'_>>) -> Result<()> {
        let value = value.map(|v| Encoded(v.bytes()));
        self.storage
            .set_node_prop_unobserved(self.schema, id, self.key(key)?, value)?;
        self.touched.nodes.push(id);
        Ok(())
    }

    fn set_label(&mut self, id: u64, label: &str, add: bool) -> Result<()> {
        let l = self.storage.labels.get_or_create(label)?;
        self.storage
            .set_label_unobserved(self.schema, &mut self.tally, id, l, add)?;
        if add {
            self.touched.nodes.push(id);
        }
        Ok(())
    }

    fn create_relationship(
        &mut self,
        id: u64,
        ends: (u64, u64),
        rel_type: &str,
        props: PropsRef<'_>,
    ) -> Result<()> {
        let storage = self.storage;
        let ty = storage.types.get_or_create(rel_type)?;
        let props = self.encoded(props)?;
        load_relationship(storage, &mut self.tally, None, id, ends, ty, props)?;
        if let Some(slot) = storage.rels.get(id) {
            let r = slot.lock();
            index_entries(self.schema.on_type(ty), || Ok(r.props.bytes()), id, true)?;
        }
        self.touched.rels.push(id);
        Ok(())
    }

    fn delete_relationship(&mut self, id: u64) -> Result<()> {
        self.storage
            .delete_rel_unobserved(self.schema, &mut self.tally, id)
    }

    fn set_relationship_property(
        &mut self,
        id: u64,
        key: &str,
        value: Option<RawValue<'_>>,
    ) -> Result<()> {
        let value = value.map(|v| Encoded(v.bytes()));
        self.storage
            .set_rel_prop_unobserved(self.schema, id, self.key(key)?, value)?;
        self.touched.rels.push(id);
        Ok(())
    }

    fn create_index(&mut self, _: &str, _: &str, _: &str, _: bool) -> Result<()> {
        Err(Error::MixedSchemaAndData)
    }

    fn create_schema_index(&mut self, _: &str, _: SchemaIndexRef<'_>) -> Result<()> {
        Err(Error::MixedSchemaAndData)
    }

    fn create_vector_index(
        &mut self,
        _: &str,
        _: bool,
        _: (&str, &str),
        _: &[&str],
        _: VectorConfig,
    ) -> Result<()> {
        Err(Error::MixedSchemaAndData)
    }

    fn create_fulltext_index(&mut self, _: FulltextSpec) -> Result<()> {
        Err(Error::MixedSchemaAndData)
    }

    fn create_property_constraint(&mut self, _: PropertyConstraintSpec) -> Result<()> {
        Err(Error::MixedSchemaAndData)
    }

    fn drop_index(&mut self, _: &str) -> Result<()> {
        Err(Error::MixedSchemaAndData)
    }

    fn drop_constraint(&mut self, _: &str) -> Result<()> {
        Err(Error::MixedSchemaAndData)
    }

    fn security(&mut self, _: Security) -> Result<()> {
        Err(Error::MixedSchemaAndData)
    }

    fn commit_time(&mut self, micros: i64) -> Result<()> {
        self.storage.note_commit_time(micros);
        Ok(())
    }
}

/// Adds (`add`) or removes entity `id`'s entries under each of `defs`, keyed by the
/// properties `props` reads (only once there is an index to key). The entity is its one
/// committed version, so its entries are exact.
fn index_entries<'d, 'p>(
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
struct Touched {
    nodes: Vec<u64>,
    rels: Vec<u64>,
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

fn capacity(kind: EntityKind) -> Error {
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
fn put_committed<R: Grouped>(
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
fn load_node<V: PropValue>(
    storage: &Storage,
    tally: &mut Tally,
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

/// Writes a relationship as committed under `id` between two live nodes.
fn load_relationship<V: PropValue>(
    storage: &Storage,
    tally: &mut Tally,
    pending: Option<&mut PendingAdj>,
    id: u64,
    (start, end): (u64, u64),
    ty: u32,
    props: SmallVec<[(u32, V); 8]>,
) -> Result<()> {
    if id >= ENTITY_IDS_MAX {
        return Err(capacity(EntityKind::Relationship));
    }
    let mut blob = Vec::new();
    put_prop_refs(&mut blob, props);
    if blob.len() > ENTITY_BYTES_MAX {
        return Err(Error::ValueTooLarge {
            bytes: blob.len(),
            limit: ENTITY_BYTES_MAX,
        });
    }
    // Both ends are checked before anything is written, so a dangling relationship fails
    // leaving no half of itself behind.
    let start_slot = storage.live_node(start)?;
    let end_slot = storage.live_node(end)?;
    let rec = || Ok(RelRec::committed(start, ty, &blob));
    let (rels, next) = (&storage.rels, &storage.next_rel);
    put_committed(rels, next, id, RelRec::is_vacant, rec)?;
    let (e_out, e_in) = (AdjEntry::new(id, end, ty), AdjEntry::new(id, start, ty));
    match pending {
        // The label and type counts of a bulk load are counted once it is all in
        // (`BulkLoad::finish`), from each node's labels and adjacency.
        Some(p) => p.push(storage, start, end, e_out, e_in),
        None => {
            // One endpoint lock at a time: loaders never wait on each other in a cycle.
            let start_labels = {
                let mut g = start_slot.lock();
                g.adj_insert(true, e_out);
                g.labels()?
            };
            let end_labels = {
                let mut g = end_slot.lock();
                g.adj_insert(false, e_in);
                g.labels()?
            };
            let ends = (start_labels.as_slice(), end_labels.as_slice());
            crate::counts::rel_counts(ends, ty, start == end, 1, |key, d| tally.add(key, d));
        }
    }
    tally.add(CountKey::Rels, 1);
    tally.add(CountKey::Type(ty), 1);
    tally.rels += 1;
    Ok(())
}

/// Adjacency entries a loader has yet to write: (node id, whether outgoing) packed as
/// `node << 1 | out`, and the entry.
#[derive(Default)]
struct PendingAdj {
    entries: Vec<(u64, AdjEntry)>,
}

/// Adjacency entries one loader gathers before writing them (24 bytes each, so 48 MiB): enough
/// that a section's nodes mostly get their entries in one or a few writes of their block,
/// few enough to bound what a load holds beyond the graph.
const PENDING_ADJ_MAX: usize = 1 << 21;

impl PendingAdj {
    fn push(&mut self, storage: &Storage, start: u64, end: u64, e_out: AdjEntry, e_in: AdjEntry) {
        self.entries.push((start << 1 | 1, e_out));
        self.entries.push((end << 1, e_in));
        if self.entries.len() + 2 > PENDING_ADJ_MAX {
            self.flush(storage);
        }
    }

    /// Writes the gathered entries in one sorted pass: node by node, each block rewritten
    /// once with all its new entries (see `NodeRec::adj_insert_sorted`).
    fn flush(&mut self, storage: &Storage) {
        let mut entries = std::mem::take(&mut self.entries);
        entries.sort_unstable_by_key(|(at, e)| (*at, e.key()));
        let mut rest = &entries[..];
        while let Some(&(first, _)) = rest.first() {
            let node = first >> 1;
            let n = rest.partition_point(|(at, _)| *at >> 1 == node);
            let (group, tail) = rest.split_at(n);
            rest = tail;
            let split = group.partition_point(|(at, _)| *at & 1 == 0);
            let inc: SmallVec<[AdjEntry; 16]> = group[..split].iter().map(|(_, e)| *e).collect();
            let out: SmallVec<[AdjEntry; 16]> = group[split..].iter().map(|(_, e)| *e).collect();
            // Every end was checked live when its relationship was loaded, and nothing removes
            // nodes during a load.
            if let Some(slot) = storage.nodes.get(node) {
                slot.lock().adj_insert_sorted(&out, &inc);
            }
        }
        entries.clear();
        self.entries = entries;
    }
}

/// Token ids by name, kept by one loader: the store's tables take a shared lock per lookup,
/// which loaders on several threads would contend on for every name of every op.
#[derive(Default)]
struct NameCache {
    labels: FxHashMap<Box<str>, u32>,
    keys: FxHashMap<Box<str>, u32>,
    types: FxHashMap<Box<str>, u32>,
}

/// Which table a cached name belongs to.
#[derive(Clone, Copy)]
enum Token {
    Label,
    Key,
    Type,
}

impl NameCache {
    fn id(&mut self, storage: &Storage, token: Token, name: &str) -> Result<u32> {
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

impl Loader {
    /// [`BulkLoad::node`] into `storage`.
    fn node(
        &mut self,
        storage: &Storage,
        id: NodeId,
        labels: &[LabelId],
        props: &[(PropKeyId, Value)],
    ) -> Result<()> {
        let labels = storage.labels.checked_distinct(labels)?;
        let props = checked_props(storage, props)?;
        load_node(storage, &mut self.tally, id.0, &labels, props)
    }

    /// [`BulkLoad::relationship`] into `storage`.
    fn relationship(
        &mut self,
        storage: &Storage,
        id: RelId,
        (start, end): (NodeId, NodeId),
        rel_type: RelTypeId,
        props: &[(PropKeyId, Value)],
    ) -> Result<()> {
        storage.types.check(rel_type.0)?;
        let props = checked_props(storage, props)?;
        self.load_relationship(storage, id, (start, end), rel_type.0, props)
    }

    /// A node from a redo record's creation: names resolved through the loader's cache,
    /// values copied as they are encoded.
    fn node_from_redo(
        &mut self,
        storage: &Storage,
        id: NodeId,
        labels: NamesRef<'_>,
        props: PropsRef<'_>,
    ) -> Result<()> {
        let names = &mut self.names;
        let ls = distinct_ids(labels.iter(), |l| names.id(storage, Token::Label, l))?;
        let props = self.names.props(storage, props)?;
        load_node(storage, &mut self.tally, id.0, &ls, props)
    }

    /// A relationship from a redo record's creation (see [`Loader::node_from_redo`]).
    fn relationship_from_redo(
        &mut self,
        storage: &Storage,
        id: RelId,
        (start, end): (NodeId, NodeId),
        (rel_type, props): (&str, PropsRef<'_>),
    ) -> Result<()> {
        let ty = self.names.id(storage, Token::Type, rel_type)?;
        let props = self.names.props(storage, props)?;
        self.load_relationship(storage, id, (start, end), ty, props)
    }

    /// Loads a relationship of a checked type with checked properties, its adjacency entries
    /// gathered for a later write.
    fn load_relationship<V: PropValue>(
        &mut self,
        storage: &Storage,
        id: RelId,
        (start, end): (NodeId, NodeId),
        ty: u32,
        props: SmallVec<[(u32, V); 8]>,
    ) -> Result<()> {
        let pending = Some(&mut self.adj);
        let ends = (start.0, end.0);
        load_relationship(storage, &mut self.tally, pending, id.0, ends, ty, props)
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
        self.loader.node(self.storage, id, labels, props)
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
        let ends = (start, end);
        self.loader
            .relationship(self.storage, id, ends, rel_type, props)
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
        self.loader.node_from_redo(self.storage, id, labels, props)
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
        let ends = (start, end);
        self.loader
            .relationship_from_redo(self.storage, id, ends, (rel_type, props))
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

    /// A loader for another thread. Sections load into the same store; their counts join
    /// the load's when they are dropped, so drop them (end their threads) before `finish`,
    /// which the borrow checker enforces.
    pub fn section(&self) -> BulkSection<'_, 'a> {
        BulkSection {
            load: self,
            loader: Loader::default(),
        }
    }

    /// Builds the indexes and constraints, then publishes the whole load as `commit` (at
    /// least 1): readers see it from that commit on, and write transactions start there.
    pub fn finish(self, commit: u64) -> Result<BulkSummary> {
        if commit == 0 {
            return Err(Error::BulkLoadRefused("commit 0 is the empty store's"));
        }
        let BulkLoad {
            storage,
            loader: Loader {
                mut tally, mut adj, ..
            },
            sections,
            indexes,
        } = self;
        adj.flush(storage);
        tally.merge(sections.into_inner());
        tally.merge(storage.label_type_tally()?);
        let mut defs = Vec::with_capacity(indexes.len());
        for p in indexes {
            let def = Arc::new(IndexDef::new(p.name, &p.spec));
            storage.populate(&def);
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
        self.loader.node(self.load.storage, id, labels, props)
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
            .relationship(self.load.storage, id, ends, rel_type, props)
    }

    /// [`BulkLoad::node_from_redo`] from this section's thread.
    pub fn node_from_redo(
        &mut self,
        id: NodeId,
        labels: NamesRef<'_>,
        props: PropsRef<'_>,
    ) -> Result<()> {
        self.loader
            .node_from_redo(self.load.storage, id, labels, props)
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
            .relationship_from_redo(self.load.storage, id, ends, (rel_type, props))
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
        self.loader.adj.flush(self.load.storage);
        let tally = std::mem::take(&mut self.loader.tally);
        self.load.sections.lock().merge(tally);
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
