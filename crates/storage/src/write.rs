//! Write operations of a transaction.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use quiver_value::Value;

use crate::arena::{Grouped, Locked, Pair, Table};
use crate::codec::check_storable;
use crate::constraints::PropertyConstraintSpec;
use crate::counts::CountKey;
use crate::error::{EntityKind, Error, Result};
use crate::fulltext::FulltextSpec;
use crate::gc::GcItem;
use crate::graph::{AdjEntry, ENTITY_BYTES_MAX, NodeRec, RelRec, put_props};
use crate::ids::{ENTITY_IDS_MAX, LabelId, NodeId, PropKeyId, RelId, RelTypeId};
use crate::mvcc::Undo;
use crate::redo::{NamesRef, PropsRef, RawValue, RedoOp, RedoRecord, RedoRecordRef};
use crate::replay::{RedoSink, SchemaIndexRef};
use crate::schema::IndexDef;
use crate::security::Security;
use crate::storage::Storage;
use crate::txn::{Transaction, TxState};
use crate::vector::VectorConfig;

fn checked_props(props: &[(PropKeyId, Value)]) -> Result<Vec<(u32, Value)>> {
    let mut out = Vec::with_capacity(props.len());
    for (k, v) in props {
        if v.is_null() {
            continue;
        }
        check_storable(v)?;
        out.push((k.0, v.clone()));
    }
    Ok(out)
}

impl Transaction {
    fn prop_names(&self, props: &[(u32, Value)]) -> Result<Vec<(Arc<str>, Value)>> {
        let keys = &self.inner.storage.keys;
        props
            .iter()
            .map(|(k, v)| Ok((keys.name_or_err(*k)?, v.clone())))
            .collect()
    }

    fn label_name(&self, l: u32) -> Result<Arc<str>> {
        self.inner.storage.labels.name_or_err(l)
    }

    fn key_name(&self, k: u32) -> Result<Arc<str>> {
        self.inner.storage.keys.name_or_err(k)
    }

    fn count_change(&self, st: &mut TxState, key: CountKey, delta: i64) {
        st.counts.add(key, self.command(), delta);
    }

    /// Takes the next id from `next`, or records an `explicit` (replayed) one there; refused
    /// past the id space, the capacity error naming `what`.
    fn alloc_id(next: &AtomicU64, explicit: Option<u64>, what: &'static str) -> Result<u64> {
        let id = match explicit {
            // Replayed ids come from a file: check before doing arithmetic on them.
            Some(id) if id < ENTITY_IDS_MAX => {
                next.fetch_max(id + 1, Ordering::AcqRel);
                id
            }
            Some(id) => id,
            None => next.fetch_add(1, Ordering::AcqRel),
        };
        if id >= ENTITY_IDS_MAX {
            return Err(capacity(what));
        }
        Ok(id)
    }

    /// A new entity's id (see [`Transaction::alloc_id`]) and its slot in `table`, locked:
    /// refused where a replayed id is taken (`vacant` tells a free record).
    fn new_slot<'s, R: Grouped>(
        table: &'s Table<R>,
        next: &AtomicU64,
        explicit: Option<u64>,
        what: &'static str,
        vacant: fn(&R) -> bool,
    ) -> Result<(u64, Locked<'s, R>)> {
        let id = Self::alloc_id(next, explicit, what)?;
        let slot = table.get_or_alloc(id).ok_or_else(|| capacity(what))?;
        let g = slot.lock();
        if !vacant(&g) || g.chain().is_some() {
            return Err(Error::Replay(format!("{} {id} already exists", R::KIND)));
        }
        Ok((id, g))
    }

    /// Adds index entries for the node's properties under the indexes on `labels` (`add`), or
    /// queues those entries as possibly stale once this transaction commits.
    fn index_node(
        &self,
        st: &mut TxState,
        rec: &NodeRec,
        id: u64,
        labels: &[u32],
        add: bool,
    ) -> Result<()> {
        let schema = self.inner.storage.schema();
        if schema.is_empty() {
            return Ok(());
        }
        let props = rec.props()?;
        for l in labels {
            for def in schema.on_label(*l) {
                if let Some(key) = def.key_in(props)? {
                    if add {
                        add_entry(st, def, key, id);
                    } else {
                        stale_entry(st, def, key, id);
                    }
                }
            }
        }
        Ok(())
    }

    pub fn create_node(&self, labels: &[LabelId], props: &[(PropKeyId, Value)]) -> Result<NodeId> {
        let mut st = self.data_write()?;
        self.create_node_in(&mut st, None, labels, props)
    }

    fn create_node_in(
        &self,
        st: &mut TxState,
        explicit: Option<u64>,
        labels: &[LabelId],
        props: &[(PropKeyId, Value)],
    ) -> Result<NodeId> {
        let storage = &self.inner.storage;
        let props = checked_props(props)?;
        let ls = storage.labels.checked_distinct(labels)?;
        for (k, _) in &props {
            storage.keys.check(*k)?;
        }
        let (nodes, next) = (&storage.nodes, &storage.next_node);
        let (id, mut g) = Self::new_slot(nodes, next, explicit, "node ids", NodeRec::is_vacant)?;
        g.init(&ls, &props)?;
        self.push_undo(st, &mut g, id, Undo::Created);
        for l in &ls {
            if let Some(bits) = storage.label_bitmap(*l) {
                bits.set(id);
            }
            st.stale_on_rollback.push(GcItem::LabelBit {
                label: *l,
                node: id,
            });
        }
        self.index_node(st, &g, id, &ls, true)?;
        drop(g);
        self.count_change(st, CountKey::Nodes, 1);
        for l in &ls {
            self.count_change(st, CountKey::Label(*l), 1);
        }
        if self.inner.log {
            let labels = ls
                .iter()
                .map(|l| self.label_name(*l))
                .collect::<Result<_>>()?;
            let props = self.prop_names(&props)?;
            st.redo.push(RedoOp::CreateNode { id, labels, props });
        }
        Ok(NodeId(id))
    }

    /// Node `id`, locked and checked writable by this transaction.
    fn writable_node(&self, id: u64) -> Result<Locked<'_, NodeRec>> {
        let g = self.inner.node_slot(id)?.lock();
        self.check_node_writable(&g, id)?;
        Ok(g)
    }

    /// Checks that property `key` may be set to `value` (`Null` removes it).
    fn check_property(&self, key: u32, value: &Value) -> Result<()> {
        if !value.is_null() {
            check_storable(value)?;
        }
        self.inner.storage.keys.check(key)?;
        Ok(())
    }

    /// Property `key` of entity `id`, locked in `g` and writable, set to `value` (`Null`
    /// removes it): `set` writes it and gives back the previous value. Unless it removed a
    /// property that was not there, the change's undo is pushed, `index` fixes the entity's
    /// index entries from the previous value, and the redo op is logged once `g` is released.
    fn change_property<R: Grouped>(
        &self,
        st: &mut TxState,
        mut g: Locked<'_, R>,
        (id, key): (u64, u32),
        value: Value,
        set: impl FnOnce(&mut R, Option<&Value>) -> Result<Option<Value>>,
        index: impl FnOnce(&mut TxState, &R, Option<&Value>) -> Result<()>,
    ) -> Result<Option<Value>> {
        let remove = value.is_null();
        let old = set(&mut g, (!remove).then_some(&value))?;
        if old.is_none() && remove {
            return Ok(None);
        }
        self.push_undo(
            st,
            &mut g,
            id,
            Undo::Property {
                key,
                old: old.clone(),
            },
        );
        index(st, &g, old.as_ref())?;
        drop(g);
        if self.inner.log {
            st.redo.push(self.property_redo(R::KIND, id, key, value)?);
        }
        Ok(old)
    }

    /// The redo op of a property change on entity `id`: a set, or a removal where `value`
    /// is `Null`.
    fn property_redo(&self, kind: EntityKind, id: u64, key: u32, value: Value) -> Result<RedoOp> {
        let key = self.key_name(key)?;
        Ok(match (kind, value.is_null()) {
            (EntityKind::Node, true) => RedoOp::RemoveNodeProperty { id, key },
            (EntityKind::Node, false) => RedoOp::SetNodeProperty { id, key, value },
            (EntityKind::Relationship, true) => RedoOp::RemoveRelationshipProperty { id, key },
            (EntityKind::Relationship, false) => RedoOp::SetRelationshipProperty { id, key, value },
        })
    }

    /// Sets a property (`Null` removes it); returns the previous value.
    pub fn set_node_property(
        &self,
        node: NodeId,
        key: PropKeyId,
        value: Value,
    ) -> Result<Option<Value>> {
        let mut st = self.data_write()?;
        self.set_node_property_in(&mut st, node.0, key.0, value)
    }

    pub fn remove_node_property(&self, node: NodeId, key: PropKeyId) -> Result<Option<Value>> {
        self.set_node_property(node, key, Value::Null)
    }

    fn set_node_property_in(
        &self,
        st: &mut TxState,
        id: u64,
        key: u32,
        value: Value,
    ) -> Result<Option<Value>> {
        self.check_property(key, &value)?;
        let g = self.writable_node(id)?;
        let set = |g: &mut NodeRec, new: Option<&Value>| g.set_prop(key, new);
        let index = |st: &mut TxState, g: &NodeRec, old: Option<&Value>| {
            let schema = self.inner.storage.schema();
            if schema.is_empty() {
                return Ok(());
            }
            let labels = g.labels()?;
            let defs = schema
                .defs
                .iter()
                .filter(|d| !d.relationship && labels.contains(&d.token));
            reindex(st, defs, id, g.props()?, key, old)
        };
        self.change_property(st, g, (id, key), value, set, index)
    }

    /// Adds a label; returns whether the node did not have it.
    pub fn add_label(&self, node: NodeId, label: LabelId) -> Result<bool> {
        let mut st = self.data_write()?;
        self.set_label_in(&mut st, node.0, label.0, true)
    }

    /// Removes a label; returns whether the node had it.
    pub fn remove_label(&self, node: NodeId, label: LabelId) -> Result<bool> {
        let mut st = self.data_write()?;
        self.set_label_in(&mut st, node.0, label.0, false)
    }

    fn set_label_in(&self, st: &mut TxState, id: u64, label: u32, add: bool) -> Result<bool> {
        let storage = &self.inner.storage;
        storage.labels.check(label)?;
        let mut g = self.writable_node(id)?;
        let mut labels = g.labels()?;
        if labels.contains(&label) == add {
            return Ok(false);
        }
        if add {
            labels.push(label);
            g.set_labels(&labels)?;
            self.push_undo(st, &mut g, id, Undo::LabelAdded(label));
            if let Some(bits) = storage.label_bitmap(label) {
                bits.set(id);
            }
            st.stale_on_rollback
                .push(GcItem::LabelBit { label, node: id });
            self.index_node(st, &g, id, &[label], true)?;
        } else {
            labels.retain(|l| *l != label);
            g.set_labels(&labels)?;
            self.push_undo(st, &mut g, id, Undo::LabelRemoved(label));
            st.stale_on_commit
                .push(GcItem::LabelBit { label, node: id });
            self.index_node(st, &g, id, &[label], false)?;
        }
        let delta = if add { 1 } else { -1 };
        crate::counts::label_counts(&g, label, delta, |key, d| self.count_change(st, key, d));
        drop(g);
        self.count_change(st, CountKey::Label(label), delta);
        if self.inner.log {
            st.redo.push(if add {
                RedoOp::AddLabel {
                    id,
                    label: self.label_name(label)?,
                }
            } else {
                RedoOp::RemoveLabel {
                    id,
                    label: self.label_name(label)?,
                }
            });
        }
        Ok(true)
    }

    /// Deletes a node that has no relationships.
    pub fn delete_node(&self, node: NodeId) -> Result<()> {
        let mut st = self.data_write()?;
        self.delete_node_in(&mut st, node.0)
    }

    fn delete_node_in(&self, st: &mut TxState, id: u64) -> Result<()> {
        let mut g = self.writable_node(id)?;
        if g.has_relationships() {
            return Err(Error::DeleteConnectedNode { id });
        }
        let labels = g.labels()?;
        self.push_undo(st, &mut g, id, Undo::Deleted);
        drop(g);
        self.count_change(st, CountKey::Nodes, -1);
        for l in &labels {
            self.count_change(st, CountKey::Label(*l), -1);
        }
        if self.inner.log {
            st.redo.push(RedoOp::DeleteNode { id });
        }
        Ok(())
    }

    /// Deletes a node and its relationships; returns how many relationships were deleted.
    pub fn detach_delete_node(&self, node: NodeId) -> Result<usize> {
        let mut st = self.data_write()?;
        let id = node.0;
        let rels: Vec<u64> = {
            let g = self.writable_node(id)?;
            let mut rels: Vec<u64> = g
                .adj(true)
                .iter()
                .chain(g.adj(false).iter())
                .map(AdjEntry::rel)
                .collect();
            rels.sort_unstable();
            rels.dedup();
            rels
        };
        for rel in &rels {
            self.delete_relationship_in(&mut st, *rel)?;
        }
        self.delete_node_in(&mut st, id)?;
        Ok(rels.len())
    }

    pub fn create_relationship(
        &self,
        start: NodeId,
        end: NodeId,
        rel_type: RelTypeId,
        props: &[(PropKeyId, Value)],
    ) -> Result<RelId> {
        let mut st = self.data_write()?;
        self.create_relationship_in(&mut st, None, start.0, end.0, rel_type.0, props)
    }

    fn create_relationship_in(
        &self,
        st: &mut TxState,
        explicit: Option<u64>,
        start: u64,
        end: u64,
        ty: u32,
        props: &[(PropKeyId, Value)],
    ) -> Result<RelId> {
        let storage = &self.inner.storage;
        storage.types.check(ty)?;
        let props = checked_props(props)?;
        for (k, _) in &props {
            storage.keys.check(*k)?;
        }
        let mut blob = Vec::new();
        put_props(&mut blob, &props);
        if blob.len() > ENTITY_BYTES_MAX {
            return Err(Error::ValueTooLarge {
                bytes: blob.len(),
                limit: ENTITY_BYTES_MAX,
            });
        }
        let start_slot = self.inner.node_slot(start)?;
        let end_slot = self.inner.node_slot(end)?;
        let mut pair = Pair::lock(start_slot, end_slot);
        self.check_node_writable(pair.start(), start)?;
        self.check_node_writable(pair.end(), end)?;
        let (rels, next) = (&storage.rels, &storage.next_rel);
        let what = "relationship ids";
        let (id, mut r) = Self::new_slot(rels, next, explicit, what, RelRec::is_vacant)?;
        *r = RelRec::committed(start, ty, &blob);
        self.push_undo(st, &mut r, id, Undo::Created);
        drop(r);
        for def in storage.schema().on_type(ty) {
            if let Some(key) = def.key_in(&blob)? {
                add_entry(st, def, key, id);
            }
        }
        self.link(st, pair, id, (start, end), ty, true)?;
        if self.inner.log {
            let props = self.prop_names(&props)?;
            st.redo.push(RedoOp::CreateRelationship {
                id,
                start,
                end,
                rel_type: storage.types.name_or_err(ty)?,
                props,
            });
        }
        Ok(RelId(id))
    }

    /// Adds (`add`) or removes relationship `id`'s entries in the adjacency of its locked
    /// ends, with each end's undo, then releases the ends and counts the change.
    fn link(
        &self,
        st: &mut TxState,
        mut pair: Pair<'_, NodeRec>,
        id: u64,
        (start, end): (u64, u64),
        ty: u32,
        add: bool,
    ) -> Result<()> {
        let labels = (pair.start().labels()?, pair.end().labels()?);
        for (out, node, other) in [(true, start, end), (false, end, start)] {
            let entry = AdjEntry::new(id, other, ty);
            let rec = if out { pair.start() } else { pair.end() };
            let undo = if add {
                rec.adj_insert(out, entry);
                Undo::EdgeAdded { out, entry }
            } else {
                rec.adj_remove(out, entry);
                Undo::EdgeRemoved { out, entry }
            };
            self.push_undo(st, rec, node, undo);
        }
        drop(pair);
        let delta = if add { 1 } else { -1 };
        self.count_change(st, CountKey::Rels, delta);
        self.count_change(st, CountKey::Type(ty), delta);
        let ends = (labels.0.as_slice(), labels.1.as_slice());
        crate::counts::rel_counts(ends, ty, start == end, delta, |key, d| {
            self.count_change(st, key, d);
        });
        Ok(())
    }

    pub fn delete_relationship(&self, rel: RelId) -> Result<()> {
        let mut st = self.data_write()?;
        self.delete_relationship_in(&mut st, rel.0)
    }

    fn delete_relationship_in(&self, st: &mut TxState, id: u64) -> Result<()> {
        let rel_slot = self.inner.rel_slot(id)?;
        let (start, ty) = {
            let r = rel_slot.lock();
            self.check_rel_writable(&r, id)?;
            (r.start(), r.ty())
        };
        let end = self
            .inner
            .storage
            .rel_end(start, id, ty)
            .ok_or_else(|| Error::rel_not_found(id))?;
        let start_slot = self.inner.node_slot(start)?;
        let end_slot = self.inner.node_slot(end)?;
        let mut pair = Pair::lock(start_slot, end_slot);
        let mut r = rel_slot.lock();
        self.check_rel_writable(&r, id)?;
        self.check_node_writable(pair.start(), start)?;
        self.check_node_writable(pair.end(), end)?;
        r.set_deleted(true);
        self.push_undo(st, &mut r, id, Undo::Deleted);
        drop(r);
        self.link(st, pair, id, (start, end), ty, false)?;
        if self.inner.log {
            st.redo.push(RedoOp::DeleteRelationship { id });
        }
        Ok(())
    }

    /// Sets a relationship property (`Null` removes it); returns the previous value.
    pub fn set_relationship_property(
        &self,
        rel: RelId,
        key: PropKeyId,
        value: Value,
    ) -> Result<Option<Value>> {
        let mut st = self.data_write()?;
        self.set_rel_property_in(&mut st, rel.0, key.0, value)
    }

    pub fn remove_relationship_property(
        &self,
        rel: RelId,
        key: PropKeyId,
    ) -> Result<Option<Value>> {
        self.set_relationship_property(rel, key, Value::Null)
    }

    fn set_rel_property_in(
        &self,
        st: &mut TxState,
        id: u64,
        key: u32,
        value: Value,
    ) -> Result<Option<Value>> {
        self.check_property(key, &value)?;
        let g = self.inner.rel_slot(id)?.lock();
        self.check_rel_writable(&g, id)?;
        let set = |r: &mut RelRec, new: Option<&Value>| r.props.set(key, new);
        let index = |st: &mut TxState, r: &RelRec, old: Option<&Value>| {
            let schema = self.inner.storage.schema();
            reindex(st, schema.on_type(r.ty()), id, r.props.bytes(), key, old)
        };
        self.change_property(st, g, (id, key), value, set, index)
    }
}

impl Storage {
    /// Replays a redo record (recovery). The record's commit number must be newer than the
    /// store's; ids are taken from the record.
    pub fn apply_redo(self: &Arc<Self>, record: &RedoRecord) -> Result<()> {
        let bytes = record.encode();
        let (decoded, _) = RedoRecordRef::decode(&bytes)?;
        self.apply_redo_ref(&decoded)
    }

    /// [`Storage::apply_redo`] for a record decoded in place: each op goes through a
    /// transaction, so readers may be open meanwhile.
    pub fn apply_redo_ref(self: &Arc<Self>, record: &RedoRecordRef<'_>) -> Result<()> {
        if record.commit <= self.last_committed() {
            return Err(Error::Replay(format!(
                "commit {} is not newer than the store's {}",
                record.commit,
                self.last_committed()
            )));
        }
        let tx = Transaction::begin_replay(self.clone());
        let mut replay = Replay::new(&tx);
        for op in &record.ops {
            if let Err(e) = op.apply_to(&mut replay) {
                let _ = tx.rollback();
                return Err(e);
            }
        }
        tx.commit_replay(record.commit)
    }
}

/// The transactional replayer: each op goes through the transaction's own write paths (undo
/// deltas, index maintenance, constraint checks), so readers may be open while it replays.
struct Replay<'t> {
    tx: &'t Transaction,
    storage: &'t Storage,
}

impl<'t> Replay<'t> {
    fn new(tx: &'t Transaction) -> Self {
        Replay {
            tx,
            storage: &tx.inner.storage,
        }
    }

    fn key(&self, name: &str) -> Result<PropKeyId> {
        self.storage.get_or_create_property_key(name)
    }

    fn label(&self, name: &str) -> Result<LabelId> {
        self.storage.get_or_create_label(name)
    }

    fn props(&self, props: PropsRef<'_>) -> Result<Vec<(PropKeyId, Value)>> {
        props
            .iter()
            .map(|(k, v)| Ok((self.key(k)?, v.value()?)))
            .collect()
    }
}

/// A removed property replays as a set to null, as a transaction's own remove does.
fn value_or_null(value: Option<RawValue<'_>>) -> Result<Value> {
    value.map_or(Ok(Value::Null), RawValue::value)
}

impl RedoSink for Replay<'_> {
    fn create_node(&mut self, id: u64, labels: NamesRef<'_>, props: PropsRef<'_>) -> Result<()> {
        let mut st = self.tx.data_write()?;
        let labels = labels
            .iter()
            .map(|l| self.label(l))
            .collect::<Result<Vec<_>>>()?;
        self.tx
            .create_node_in(&mut st, Some(id), &labels, &self.props(props)?)?;
        Ok(())
    }

    fn delete_node(&mut self, id: u64) -> Result<()> {
        let mut st = self.tx.data_write()?;
        self.tx.delete_node_in(&mut st, id)
    }

    fn set_node_property(&mut self, id: u64, key: &str, value: Option<RawValue<'_>>) -> Result<()> {
        let mut st = self.tx.data_write()?;
        let value = value_or_null(value)?;
        self.tx
            .set_node_property_in(&mut st, id, self.key(key)?.0, value)?;
        Ok(())
    }

    fn set_label(&mut self, id: u64, label: &str, add: bool) -> Result<()> {
        let mut st = self.tx.data_write()?;
        self.tx
            .set_label_in(&mut st, id, self.label(label)?.0, add)?;
        Ok(())
    }

    fn create_relationship(
        &mut self,
        id: u64,
        (start, end): (u64, u64),
        rel_type: &str,
        props: PropsRef<'_>,
    ) -> Result<()> {
        let mut st = self.tx.data_write()?;
        let ty = self.storage.get_or_create_rel_type(rel_type)?;
        let props = self.props(props)?;
        self.tx
            .create_relationship_in(&mut st, Some(id), start, end, ty.0, &props)?;
        Ok(())
    }

    fn delete_relationship(&mut self, id: u64) -> Result<()> {
        let mut st = self.tx.data_write()?;
        self.tx.delete_relationship_in(&mut st, id)
    }

    fn set_relationship_property(
        &mut self,
        id: u64,
        key: &str,
        value: Option<RawValue<'_>>,
    ) -> Result<()> {
        let mut st = self.tx.data_write()?;
        let value = value_or_null(value)?;
        self.tx
            .set_rel_property_in(&mut st, id, self.key(key)?.0, value)?;
        Ok(())
    }

    fn create_index(&mut self, name: &str, label: &str, key: &str, unique: bool) -> Result<()> {
        let (label, key) = (self.label(label)?, self.key(key)?);
        if unique {
            self.tx.create_unique_constraint(label, key, Some(name))
        } else {
            self.tx.create_index(label, key, Some(name))
        }
    }

    fn create_schema_index(&mut self, name: &str, index: SchemaIndexRef<'_>) -> Result<()> {
        self.tx
            .create_schema_index(index.resolve(self.storage)?, Some(name))
    }

    fn create_vector_index(
        &mut self,
        name: &str,
        relationship: bool,
        (token, key): (&str, &str),
        with_properties: &[&str],
        config: VectorConfig,
    ) -> Result<()> {
        let token = if relationship {
            self.storage.get_or_create_rel_type(token)?.0
        } else {
            self.label(token)?.0
        };
        let with: Vec<PropKeyId> = with_properties
            .iter()
            .map(|k| self.key(k))
            .collect::<Result<_>>()?;
        self.tx.create_vector_index(
            Some(name),
            relationship,
            token,
            (self.key(key)?, &with),
            config,
        )
    }

    fn create_fulltext_index(&mut self, spec: FulltextSpec) -> Result<()> {
        self.tx.create_fulltext_index(spec)
    }

    fn create_property_constraint(&mut self, spec: PropertyConstraintSpec) -> Result<()> {
        self.tx.create_property_constraint(spec)
    }

    fn drop_index(&mut self, name: &str) -> Result<()> {
        self.tx.drop_index(name)
    }

    fn drop_constraint(&mut self, name: &str) -> Result<()> {
        self.tx.drop_constraint(name)
    }

    /// A logged catalogue is set whole, whatever the store had.
    fn security(&mut self, catalogue: Security) -> Result<()> {
        let mut st = self.tx.admin_write()?;
        st.security = Some(crate::txn::PendingSecurity {
            base: None,
            new: Arc::new(catalogue),
        });
        Ok(())
    }

    fn commit_time(&mut self, micros: i64) -> Result<()> {
        self.storage.note_commit_time(micros);
        Ok(())
    }
}

/// Index maintenance after property `key` of entity `id` changed from `old` to what `props`
/// now hold: the new entry is added (and taken back if the transaction rolls back), the old
/// one queued as possibly stale once it commits, under every index of `defs` holding `key`.
fn reindex<'d>(
    st: &mut TxState,
    defs: impl Iterator<Item = &'d Arc<IndexDef>>,
    id: u64,
    props: &[u8],
    key: u32,
    old: Option<&Value>,
) -> Result<()> {
    for def in defs {
        let Some(i) = def.keys.iter().position(|k| *k == key) else {
            continue;
        };
        let mut values = def.values_in(props)?;
        if let Some(k) = def.key_of_values(&values) {
            add_entry(st, def, k, id);
        }
        values[i] = old.cloned();
        if let Some(k) = def.key_of_values(&values) {
            stale_entry(st, def, k, id);
        }
    }
    Ok(())
}

/// Adds entity `id`'s entry under `key` to the index, taken back if the transaction rolls back.
fn add_entry(st: &mut TxState, def: &Arc<IndexDef>, key: Box<[u8]>, id: u64) {
    def.data.insert(key.clone(), id);
    st.stale_on_rollback.push(GcItem::Entry {
        def: def.clone(),
        key,
        node: id,
    });
}

/// Queues entity `id`'s entry under `key` as possibly stale once the transaction commits.
fn stale_entry(st: &mut TxState, def: &Arc<IndexDef>, key: Box<[u8]>, id: u64) {
    st.stale_on_commit.push(GcItem::Entry {
        def: def.clone(),
        key,
        node: id,
    });
}

/// The error of an id past the id space, naming the kind of `what`.
fn capacity(what: &'static str) -> Error {
    Error::CapacityExceeded {
        what,
        limit: ENTITY_IDS_MAX,
    }
}
