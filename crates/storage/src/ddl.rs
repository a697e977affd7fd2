//! Schema changes: recorded by the transaction, applied at commit under the commit lock.
//!
//! Applying an index publishes it first and populates it second: every write that takes the
//! node lock after publication maintains the index itself, and population visits each node
//! under that same lock, so no write falls between the two.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use quiver_value::Value;

use crate::derived::DerivedIndex;
use crate::error::{Error, Result};
use crate::gc::may_have_label;
use crate::ids::{LabelId, PropKeyId};
use crate::index::equal;
use crate::mvcc::View;
use crate::read;
use crate::redo::RedoOp;
use crate::rules::{Judge, Rule, RuleKind, refuse};
use crate::schema::{IndexDef, Schema};
use crate::schema::{IndexKind, IndexSpec};
use crate::storage::Storage;
use crate::txn::{SchemaOp, Transaction, TxState};
use crate::vector::{VectorConfig, VectorIndexDef, VectorSpec};

/// What a commit's schema changes published and took out, so a failure later in the commit
/// (another schema op, the log refusing the record) can put the schema back as it was.
#[derive(Default)]
pub(crate) struct Applied {
    indexes: Vec<Arc<IndexDef>>,
    dropped_indexes: Vec<Arc<IndexDef>>,
    derived: Vec<DerivedIndex>,
    dropped_derived: Vec<DerivedIndex>,
    properties: Vec<Arc<crate::spec::PropertyConstraint>>,
    dropped_properties: Vec<Arc<crate::spec::PropertyConstraint>>,
}

impl Applied {
    /// Takes back what the commit published and publishes again what it took out.
    pub(crate) fn take_back(self, tx: &Transaction) {
        let storage = &tx.inner.storage;
        for def in &self.indexes {
            tx.unpublish(def);
        }
        for def in self.dropped_indexes {
            tx.publish(def);
        }
        for index in &self.derived {
            storage.unpublish_derived(index);
        }
        for index in self.dropped_derived {
            storage.publish_derived(index);
        }
        for c in &self.properties {
            storage.unpublish_property_constraint(c);
        }
        for c in self.dropped_properties {
            tx.restore_property_constraint(c);
        }
    }
}

impl Transaction {
    /// Neo4j's default name shape: `index_` or `constraint_`, then the label or type and the
    /// keys, joined by `_`.
    fn default_name(&self, spec: &IndexSpec) -> Result<String> {
        let s = &self.inner.storage;
        let prefix = if spec.kind.is_constraint() {
            "constraint"
        } else {
            match spec.kind {
                IndexKind::Text => "text_index",
                IndexKind::Point => "point_index",
                _ => "index",
            }
        };
        let token = s.label_or_type(spec.relationship, spec.token)?;
        let mut name = format!("{prefix}_{token}");
        for k in &spec.keys {
            name.push('_');
            name.push_str(&s.keys.name_or_err(*k)?);
        }
        Ok(name)
    }

    /// Records an index or constraint to create at commit. A constraint's commit fails with
    /// [`Error::ConstraintCreationFailed`] if existing data violates it.
    pub fn create_schema_index(&self, spec: IndexSpec, name: Option<&str>) -> Result<()> {
        let mut st = self.schema_write()?;
        let s = &self.inner.storage;
        if spec.keys.is_empty() {
            return Err(Error::InvalidSchema(
                "an index needs at least one property key",
            ));
        }
        for (i, k) in spec.keys.iter().enumerate() {
            s.keys.check(*k)?;
            if spec.keys[..i].contains(k) {
                return Err(Error::InvalidSchema("a property key is named twice"));
            }
        }
        if spec.relationship {
            s.types.check(spec.token)?;
        } else {
            s.labels.check(spec.token)?;
        }
        let name = match name {
            Some(n) => n.to_string(),
            None => self.default_name(&spec)?,
        };
        s.check_new_rule(
            &s.index_rule(&name, &spec)?,
            &st.schema_ops,
            Judge::of(self.inner.replay),
        )?;
        st.schema_ops.push(SchemaOp::Create { name, spec });
        Ok(())
    }

    /// Creates a property index on `(:label).key`, applied at commit.
    pub fn create_index(&self, label: LabelId, key: PropKeyId, name: Option<&str>) -> Result<()> {
        let spec = IndexSpec::on_label_key(label, key, IndexKind::Range);
        self.create_schema_index(spec, name)
    }

    /// Creates a uniqueness constraint on `(:label).key`, applied at commit; the commit fails
    /// with [`Error::ConstraintCreationFailed`] if existing data violates it.
    pub fn create_unique_constraint(
        &self,
        label: LabelId,
        key: PropKeyId,
        name: Option<&str>,
    ) -> Result<()> {
        let spec = IndexSpec::on_label_key(label, key, IndexKind::Unique);
        self.create_schema_index(spec, name)
    }

    /// Creates a full-text index, applied (and filled from the store) at commit.
    pub fn create_fulltext_index(&self, spec: crate::fulltext::FulltextSpec) -> Result<()> {
        let mut st = self.schema_write()?;
        let storage = &self.inner.storage;
        // Options are checked first, as in Neo4j: a bad one fails even beside an equal index.
        if !crate::fulltext::analyzers::is_known(&spec.analyzer) {
            return Err(Error::Fulltext(
                crate::fulltext::FulltextError::UnknownAnalyzer {
                    name: spec.analyzer,
                },
            ));
        }
        storage.check_new_rule(
            &Rule::fulltext(&spec),
            &st.schema_ops,
            Judge::of(self.inner.replay),
        )?;
        st.schema_ops.push(SchemaOp::CreateFulltext(spec));
        Ok(())
    }

    fn record_drop(&self, name: &str, unique: bool) -> Result<()> {
        let mut st = self.schema_write()?;
        if !unique && self.inner.storage.fulltext_by_name(name).is_some() {
            st.schema_ops.push(SchemaOp::DropFulltext {
                name: name.to_string(),
            });
            return Ok(());
        }
        let schema = self.inner.storage.schema();
        match schema.by_name(name) {
            Some(d) if d.unique() == unique => {}
            _ => {
                return Err(Error::SchemaRuleNotFound {
                    name: name.to_string(),
                });
            }
        }
        st.schema_ops.push(SchemaOp::Drop {
            name: name.to_string(),
            unique,
        });
        Ok(())
    }

    pub fn drop_index(&self, name: &str) -> Result<()> {
        if self.inner.storage.vector_def(name).is_some() {
            let mut st = self.schema_write()?;
            st.schema_ops.push(SchemaOp::DropVector {
                name: name.to_string(),
            });
            return Ok(());
        }
        self.record_drop(name, false)
    }

    /// Creates a vector index over `key` of the nodes with label `token` (or, when
    /// `relationship`, of the relationships of type `token`), applied at commit; a search may
    /// filter on the keys `with` inside it. Its graph is built from the store at its first
    /// search (see `vector`).
    pub fn create_vector_index(
        &self,
        name: Option<&str>,
        relationship: bool,
        token: u32,
        (key, with): (PropKeyId, &[PropKeyId]),
        config: VectorConfig,
    ) -> Result<()> {
        let mut st = self.schema_write()?;
        let s = &self.inner.storage;
        let name = match name {
            Some(n) => n.to_string(),
            None => format!(
                "vector_{}_{}",
                s.label_or_type(relationship, token)?,
                s.keys.name_or_err(key.0)?
            ),
        };
        s.check_new_rule(
            &s.vector_rule(&name, relationship, token, key.0)?,
            &st.schema_ops,
            Judge::of(self.inner.replay),
        )?;
        st.schema_ops.push(SchemaOp::CreateVector(VectorSpec {
            name,
            relationship,
            token,
            key: key.0,
            with_keys: with.iter().map(|k| k.0).collect(),
            config,
        }));
        Ok(())
    }

    pub fn drop_constraint(&self, name: &str) -> Result<()> {
        if self.drop_property_constraint(name)? {
            return Ok(());
        }
        self.record_drop(name, true)
    }

    pub(crate) fn unpublish(&self, def: &Arc<IndexDef>) {
        let storage = &self.inner.storage;
        let mut w = storage.schema.write();
        let mut s: Schema = (**w).clone();
        s.defs.retain(|d| !Arc::ptr_eq(d, def));
        *w = Arc::new(s);
        storage.schema_replaced();
    }

    fn publish(&self, def: Arc<IndexDef>) {
        let storage = &self.inner.storage;
        let mut w = storage.schema.write();
        let mut s: Schema = (**w).clone();
        s.defs.push(def);
        *w = Arc::new(s);
        storage.schema_replaced();
    }

    /// Creates, fills and publishes a full-text index, under the commit lock: no data commit
    /// falls between the fill and the publication, and every later one updates the index.
    fn apply_create_fulltext(
        &self,
        spec: &crate::fulltext::FulltextSpec,
        redo: &mut Vec<RedoOp>,
    ) -> Result<DerivedIndex> {
        let storage = &self.inner.storage;
        // Another commit may have made a rule this one's stands beside since it was recorded.
        storage.check_new_rule(&Rule::fulltext(spec), &[], Judge::of(self.inner.replay))?;
        let index = Arc::new(crate::fulltext::FulltextIndex::new(storage, spec.clone())?);
        let view = View {
            snapshot: storage.last_committed(),
            txid: self.inner.txid,
            command: u32::MAX,
        };
        index.rebuild(storage, &view)?;
        let index = DerivedIndex::Fulltext(index);
        storage.publish_derived(index.clone());
        if self.inner.log {
            redo.push(index.create_op(storage)?);
        }
        Ok(index)
    }

    /// Publishes a vector index created at commit (and logs it). Its graph is built from the
    /// store at its first search (see `vector`).
    fn apply_create_vector(
        &self,
        spec: &VectorSpec,
        redo: &mut Vec<RedoOp>,
    ) -> Result<DerivedIndex> {
        let storage = &self.inner.storage;
        let def = Arc::new(VectorIndexDef::new(
            spec.name.clone(),
            spec.relationship,
            spec.token,
            (spec.key, spec.with_keys.clone()),
            spec.config,
        ));
        storage.check_new_rule(
            &storage.vector_rule(&def.name, def.relationship, def.token, def.key)?,
            &[],
            Judge::of(self.inner.replay),
        )?;
        let index = DerivedIndex::Vector(def.clone());
        if self.inner.log {
            redo.push(index.create_op(storage)?);
        }
        storage.publish_derived(index.clone());
        def.start_built_if_empty(storage);
        Ok(index)
    }

    /// Takes a dropped vector or full-text index out at commit (and logs it).
    fn apply_drop_derived(
        &self,
        name: &str,
        vector: bool,
        redo: &mut Vec<RedoOp>,
    ) -> Result<DerivedIndex> {
        let storage = &self.inner.storage;
        let Some(index) = storage
            .derived_by_name(name)
            .filter(|d| d.as_vector().is_some() == vector)
        else {
            return Err(Error::SchemaRuleNotFound {
                name: name.to_string(),
            });
        };
        storage.unpublish_derived(&index);
        if self.inner.log {
            redo.push(RedoOp::DropIndex {
                name: name.to_string(),
            });
        }
        Ok(index)
    }

    /// Applies the recorded schema changes; on failure, undoes the ones already applied.
    /// Returns what it applied (so a failed log append can take it back).
    pub(crate) fn apply_schema_ops(&self, st: &mut TxState) -> Result<Applied> {
        let storage = self.inner.storage.clone();
        let mut applied = Applied::default();
        let ops = std::mem::take(&mut st.schema_ops);
        let redo = &mut st.redo;
        let result = (|| -> Result<()> {
            for op in &ops {
                match op {
                    SchemaOp::CreateFulltext(spec) => {
                        applied
                            .derived
                            .push(self.apply_create_fulltext(spec, redo)?);
                    }
                    SchemaOp::CreateVector(spec) => {
                        applied.derived.push(self.apply_create_vector(spec, redo)?);
                    }
                    SchemaOp::DropFulltext { name } => {
                        let index = self.apply_drop_derived(name, false, redo)?;
                        applied.dropped_derived.push(index);
                    }
                    SchemaOp::DropVector { name } => {
                        let index = self.apply_drop_derived(name, true, redo)?;
                        applied.dropped_derived.push(index);
                    }
                    SchemaOp::CreateProperty(spec) => {
                        let c = self.apply_create_property(spec, redo)?;
                        applied.properties.push(c);
                    }
                    SchemaOp::DropProperty { name } => {
                        let c = self.apply_drop_property(name, redo)?;
                        applied.dropped_properties.push(c);
                    }
                    SchemaOp::Create { name, spec } => {
                        self.apply_create_index(name, spec, redo, &mut applied.indexes)?;
                    }
                    SchemaOp::Drop { name, unique } => {
                        let schema = storage.schema();
                        let def = match schema.by_name(name) {
                            Some(d) if d.unique() == *unique => d.clone(),
                            _ => {
                                return Err(Error::SchemaRuleNotFound { name: name.clone() });
                            }
                        };
                        self.unpublish(&def);
                        applied.dropped_indexes.push(def);
                        if self.inner.log {
                            redo.push(if *unique {
                                RedoOp::DropConstraint { name: name.clone() }
                            } else {
                                RedoOp::DropIndex { name: name.clone() }
                            });
                        }
                    }
                }
            }
            Ok(())
        })();
        match result {
            Ok(()) => Ok(applied),
            Err(e) => {
                applied.take_back(self);
                Err(e)
            }
        }
    }

    /// Publishes a property index or constraint, fills it and logs it. The definition is in
    /// `created` from the moment it is published, so a failure later in the commit takes it
    /// back.
    fn apply_create_index(
        &self,
        name: &str,
        spec: &IndexSpec,
        redo: &mut Vec<RedoOp>,
        created: &mut Vec<Arc<IndexDef>>,
    ) -> Result<()> {
        let storage = &self.inner.storage;
        storage.check_new_rule(
            &storage.index_rule(name, spec)?,
            &[],
            Judge::of(self.inner.replay),
        )?;
        let def = Arc::new(IndexDef::new(name.to_string(), spec));
        self.publish(def.clone());
        created.push(def.clone());
        storage.populate(&def);
        if def.unique() {
            let view = View {
                snapshot: storage.last_committed(),
                txid: self.inner.txid,
                command: u32::MAX,
            };
            storage.verify_constraint(&def, Some(&view))?;
        }
        def.online.store(true, Ordering::Release);
        storage.schema_replaced();
        if self.inner.log {
            redo.push(storage.create_op(&def)?);
        }
        Ok(())
    }
}

impl Storage {
    /// The ops that create every property index and constraint (for snapshot files).
    pub fn index_schema_ops(&self) -> Vec<RedoOp> {
        self.schema()
            .defs
            .iter()
            .filter_map(|d| self.create_op(d).ok())
            .collect()
    }

    /// The redo op that creates `def`: the original ops for a single-key node range index or
    /// uniqueness constraint (which older logs hold), `CreateSchemaIndex` for the rest.
    pub(crate) fn create_op(&self, def: &IndexDef) -> Result<RedoOp> {
        let name = def.name.clone();
        let token = self.token_name(def)?;
        let keys = self.key_names(def)?;
        Ok(match (def.relationship, keys.as_slice(), def.kind) {
            (false, [key], IndexKind::Range) => RedoOp::CreateIndex {
                name,
                label: token,
                key: key.clone(),
            },
            (false, [key], IndexKind::Unique) => RedoOp::CreateUniqueConstraint {
                name,
                label: token,
                key: key.clone(),
            },
            _ => RedoOp::CreateSchemaIndex {
                name,
                relationship: def.relationship,
                token,
                keys,
                kind: def.kind,
            },
        })
    }

    /// The values of `def`'s keys an entity holds: in `view` when given (`None` if the view
    /// does not see it under the label or type), else in its newest physical state (`None`
    /// unless it is live there). A missing key is `None` inside.
    pub(crate) fn entity_values(
        &self,
        def: &IndexDef,
        id: u64,
        view: Option<&View>,
    ) -> Result<Option<Vec<Option<Value>>>> {
        if def.relationship {
            let Some(slot) = self.rels.get(id) else {
                return Ok(None);
            };
            let g = slot.lock();
            if g.is_vacant() || g.ty() != def.token {
                return Ok(None);
            }
            match view {
                None => g
                    .is_live()
                    .then(|| def.values_in(g.props.bytes()))
                    .transpose(),
                Some(view) => {
                    if !read::rel_exists(&g, view) {
                        return Ok(None);
                    }
                    let mut out = Vec::with_capacity(def.keys.len());
                    for k in &def.keys {
                        out.push(read::rel_prop(&g, view, *k)?.flatten());
                    }
                    Ok(Some(out))
                }
            }
        } else {
            let Some(slot) = self.nodes.get(id) else {
                return Ok(None);
            };
            let g = slot.lock();
            match view {
                None => {
                    if !g.is_live() || !g.has_label(def.token)? {
                        return Ok(None);
                    }
                    Ok(Some(def.values_in(g.props()?)?))
                }
                Some(view) => {
                    if read::node_has_label(&g, view, def.token)? != Some(true) {
                        return Ok(None);
                    }
                    let mut out = Vec::with_capacity(def.keys.len());
                    for k in &def.keys {
                        out.push(read::node_prop(&g, view, *k)?.flatten());
                    }
                    Ok(Some(out))
                }
            }
        }
    }

    /// Checks the uniqueness and key constraints over the given nodes and relationships,
    /// passing over those no longer live: each entity's values against the others its
    /// constraint's index names, as `view` sees them (`None`: the newest physical state).
    pub(crate) fn check_constraints_over(
        &self,
        schema: &Schema,
        (nodes, rels): (&[u64], &[u64]),
        view: Option<&View>,
    ) -> Result<()> {
        for (relationship, ids) in [(false, nodes), (true, rels)] {
            for &id in ids {
                let checks = if relationship {
                    let Some(slot) = self.rels.get(id) else {
                        continue;
                    };
                    let g = slot.lock();
                    if !g.is_live() {
                        continue;
                    }
                    schema.rel_constraints(g.ty(), g.props.bytes())?
                } else {
                    let Some(slot) = self.nodes.get(id) else {
                        continue;
                    };
                    let g = slot.lock();
                    if !g.is_live() {
                        continue;
                    }
                    schema.node_constraints(&g)?
                };
                for (def, values) in checks {
                    self.check_entity(def, id, &values, |other| {
                        self.entity_values(def, other, view)
                    })?;
                }
            }
        }
        Ok(())
    }

    /// Checks entity `id`, holding `values` under the keys of constraint `def`, against the
    /// others its index names, as `lookup` sees them: a missing key fails a key constraint,
    /// and another entity holding equal values fails either kind.
    pub(crate) fn check_entity(
        &self,
        def: &IndexDef,
        id: u64,
        values: &[Option<Value>],
        lookup: impl Fn(u64) -> Result<Option<Vec<Option<Value>>>>,
    ) -> Result<()> {
        let Some(complete) = values.iter().cloned().collect::<Option<Vec<Value>>>() else {
            if def.kind == IndexKind::Key {
                return Err(Error::KeyPropertyMissing {
                    relationship: def.relationship,
                    id,
                    label: self.token_name(def)?,
                    keys: self.key_names(def)?,
                });
            }
            return Ok(());
        };
        let Some(key) = def.key_of_values(values) else {
            return Ok(());
        };
        for other in def.data.nodes_with_key(&key) {
            if other == id {
                continue;
            }
            if let Some(vs) = lookup(other)?
                && let Some(vs) = vs.into_iter().collect::<Option<Vec<_>>>()
                && all_equal(&vs, &complete)
            {
                return Err(Error::ConstraintViolation {
                    relationship: def.relationship,
                    id: other,
                    label: self.token_name(def)?,
                    keys: self.key_names(def)?,
                    values: complete,
                });
            }
        }
        Ok(())
    }

    /// The name of the rule's label or relationship type.
    pub(crate) fn token_name(&self, def: &IndexDef) -> Result<Arc<str>> {
        self.label_or_type(def.relationship, def.token)
    }

    /// The name of label `token`, or of relationship type `token` when `relationship`.
    pub(crate) fn label_or_type(&self, relationship: bool, token: u32) -> Result<Arc<str>> {
        if relationship {
            self.types.name_or_err(token)
        } else {
            self.labels.name_or_err(token)
        }
    }

    pub(crate) fn key_names(&self, def: &IndexDef) -> Result<Vec<Arc<str>>> {
        def.keys.iter().map(|k| self.keys.name_or_err(*k)).collect()
    }

    /// Fails if data violates a constraint being created: two entities sharing values (seen
    /// in `view`, or physically for a bulk load), or, for a key, an entity lacking a key.
    pub(crate) fn verify_constraint(&self, def: &IndexDef, view: Option<&View>) -> Result<()> {
        let what = if def.relationship {
            "relationships"
        } else {
            "nodes"
        };
        for (_, ids) in def.data.duplicate_keys() {
            let mut values: Vec<(u64, Vec<Value>)> = Vec::new();
            for id in ids {
                if let Some(vs) = self.entity_values(def, id, view)?
                    && let Some(vs) = vs.into_iter().collect::<Option<Vec<_>>>()
                {
                    values.push((id, vs));
                }
            }
            for (i, (a, va)) in values.iter().enumerate() {
                if let Some((b, _)) = values[i + 1..].iter().find(|(_, vb)| all_equal(va, vb)) {
                    return Err(Error::ConstraintCreationFailed {
                        name: def.name.clone(),
                        reason: format!("{what} {a} and {b} share the values {va:?}"),
                    });
                }
            }
        }
        if def.kind == IndexKind::Key {
            for id in self.token_members(def) {
                if let Some(vs) = self.entity_values(def, id, view)?
                    && let Some(i) = vs.iter().position(Option::is_none)
                {
                    return Err(Error::ConstraintCreationFailed {
                        name: def.name.clone(),
                        reason: format!(
                            "{} {id} lacks the property `{}`",
                            &what[..what.len() - 1],
                            self.keys.name_or_err(def.keys[i])?
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// Every id that may be a node of the rule's label or a relationship of its type (a
    /// superset: callers check each).
    fn token_members(&self, def: &IndexDef) -> Vec<u64> {
        let mut out = Vec::new();
        if def.relationship {
            let end = self.next_rel.load(Ordering::Acquire);
            for id in 0..end {
                if let Some(slot) = self.rels.get(id) {
                    let g = slot.lock();
                    if !g.is_vacant() && g.ty() == def.token {
                        out.push(id);
                    }
                }
            }
        } else if let Some(bits) = self.label_bitmap_if_any(def.token) {
            let mut from = 0;
            loop {
                let next = bits.collect_from(from, 4096, &mut out);
                match next {
                    Some(n) => from = n,
                    None => break,
                }
            }
        }
        out
    }

    /// Adds entries for every version of every entity that may carry the index's label or
    /// type.
    pub(crate) fn populate(&self, def: &IndexDef) {
        if def.relationship {
            let end = self.next_rel.load(Ordering::Acquire);
            for id in 0..end {
                let Some(slot) = self.rels.get(id) else {
                    continue;
                };
                let g = slot.lock();
                if g.is_vacant() || g.ty() != def.token {
                    continue;
                }
                if let Ok(keys) = def.version_keys(true, g.props.bytes(), g.chain()) {
                    for k in keys {
                        def.data.insert(k, id);
                    }
                }
            }
            return;
        }
        let Some(bits) = self.label_bitmap_if_any(def.token) else {
            return;
        };
        bits.for_each(|id| {
            let Some(slot) = self.nodes.get(id) else {
                return;
            };
            let g = slot.lock();
            if !may_have_label(&g, def.token) {
                return;
            }
            let has = g.has_label(def.token).unwrap_or(false);
            if let Ok(keys) = g.props().and_then(|p| def.version_keys(has, p, g.chain())) {
                for k in keys {
                    def.data.insert(k, id);
                }
            }
        });
    }
}

/// Whether two value lists are equal item by item (Cypher equality).
pub(crate) fn all_equal(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| equal(x, y))
}

/// The store's schema rules, for [`crate::rules`] to judge a new one against.
impl Storage {
    /// Every index and constraint the store has published, of every kind.
    pub(crate) fn rules(&self) -> Result<Vec<Rule>> {
        let mut out = Vec::new();
        for def in &self.schema().defs {
            out.push(Rule {
                name: def.name.clone(),
                kind: RuleKind::Property(def.kind),
                relationship: def.relationship,
                tokens: vec![self.label_or_type(def.relationship, def.token)?],
                keys: self.key_names(def)?,
            });
        }
        for index in self.derived().iter() {
            out.push(index.rule(self)?);
        }
        for c in self.property_constraint_defs().iter() {
            out.push(Rule::property_constraint(&c.spec));
        }
        Ok(out)
    }

    /// Fails, in Neo4j's words, unless `new` may be made beside the published rules as a
    /// transaction's earlier schema changes `pending` leave them (see the module doc).
    pub(crate) fn check_new_rule(
        &self,
        new: &Rule,
        pending: &[SchemaOp],
        judge: Judge,
    ) -> Result<()> {
        let mut rules = self.rules()?;
        for op in pending {
            match op {
                SchemaOp::Create { name, spec } => rules.push(self.index_rule(name, spec)?),
                SchemaOp::CreateVector(spec) => rules.push(self.vector_rule(
                    &spec.name,
                    spec.relationship,
                    spec.token,
                    spec.key,
                )?),
                SchemaOp::CreateFulltext(spec) => rules.push(Rule::fulltext(spec)),
                SchemaOp::CreateProperty(spec) => rules.push(Rule::property_constraint(spec)),
                SchemaOp::Drop { name, .. }
                | SchemaOp::DropVector { name }
                | SchemaOp::DropFulltext { name }
                | SchemaOp::DropProperty { name } => rules.retain(|r| &r.name != name),
            }
        }
        refuse(&rules, new, judge)
    }

    /// The rule a property index or uniqueness or key constraint named `name` would be.
    pub(crate) fn index_rule(&self, name: &str, spec: &crate::schema::IndexSpec) -> Result<Rule> {
        Ok(Rule {
            name: name.to_string(),
            kind: RuleKind::Property(spec.kind),
            relationship: spec.relationship,
            tokens: vec![self.label_or_type(spec.relationship, spec.token)?],
            keys: spec
                .keys
                .iter()
                .map(|k| self.keys.name_or_err(*k))
                .collect::<Result<_>>()?,
        })
    }

    /// The rule a vector index named `name` over `key` of `token` would be.
    pub(crate) fn vector_rule(
        &self,
        name: &str,
        relationship: bool,
        token: u32,
        key: u32,
    ) -> Result<Rule> {
        Ok(Rule {
            name: name.to_string(),
            kind: RuleKind::Vector,
            relationship,
            tokens: vec![self.label_or_type(relationship, token)?],
            keys: vec![self.keys.name_or_err(key)?],
        })
    }
}
