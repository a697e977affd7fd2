//! Schema changes: recorded by the transaction, applied at commit under the commit lock.
//!
//! Applying an index publishes it first and populates it second: every write that takes the
//! node lock after publication maintains the index itself, and population visits each node
//! under that same lock, so no write falls between the two.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use quiver_value::Value;

use crate::error::{Error, Result};
use crate::gc::may_have_label;
use crate::graph::prop_get;
use crate::ids::{LabelId, PropKeyId};
use crate::index::{equal, key_of};
use crate::mvcc::{self, Undo, View};
use crate::read;
use crate::redo::RedoOp;
use crate::schema::{IndexDef, Schema};
use crate::storage::Storage;
use crate::txn::{SchemaOp, Transaction, TxState};
use crate::vector::{VectorConfig, VectorIndexDef, VectorSpec};

/// The definitions a commit's schema changes created, so a failed log append can take them
/// back.
#[derive(Default)]
pub(crate) struct Applied {
    pub indexes: Vec<Arc<IndexDef>>,
    pub vectors: Vec<Arc<VectorIndexDef>>,
}

impl Applied {
    pub(crate) fn unpublish(&self, tx: &Transaction) {
        for def in &self.indexes {
            tx.unpublish(def);
        }
        let storage = &tx.inner.storage;
        storage
            .vectors
            .write()
            .retain(|d| !self.vectors.iter().any(|c| Arc::ptr_eq(c, d)));
    }
}

impl Transaction {
    fn default_name(&self, prefix: &str, label: u32, key: u32) -> Result<String> {
        let s = &self.inner.storage;
        Ok(format!(
            "{prefix}_{}_{}",
            s.labels.name_or_err(label)?,
            s.keys.name_or_err(key)?
        ))
    }

    fn record_create(
        &self,
        label: LabelId,
        key: PropKeyId,
        name: Option<&str>,
        unique: bool,
    ) -> Result<()> {
        let mut st = self.schema_write()?;
        let name = match name {
            Some(n) => n.to_string(),
            None => {
                self.default_name(if unique { "constraint" } else { "index" }, label.0, key.0)?
            }
        };
        let schema = self.inner.storage.schema();
        if schema.by_name(&name).is_some()
            || schema.find_kind(label.0, key.0, unique).is_some()
            || self.inner.storage.vector_def(&name).is_some()
            || self.inner.storage.fulltext_by_name(&name).is_some()
        {
            return Err(Error::SchemaRuleExists { name });
        }
        st.schema_ops.push(SchemaOp::Create {
            name,
            label: label.0,
            key: key.0,
            unique,
        });
        Ok(())
    }

    /// Creates a property index on `(:label).key`, applied at commit.
    pub fn create_index(&self, label: LabelId, key: PropKeyId, name: Option<&str>) -> Result<()> {
        self.record_create(label, key, name, false)
    }

    /// Creates a uniqueness constraint on `(:label).key`, applied at commit; the commit fails
    /// with [`Error::ConstraintCreationFailed`] if existing data violates it.
    pub fn create_unique_constraint(
        &self,
        label: LabelId,
        key: PropKeyId,
        name: Option<&str>,
    ) -> Result<()> {
        self.record_create(label, key, name, true)
    }

    /// Creates a full-text index, applied (and filled from the store) at commit.
    pub fn create_fulltext_index(&self, spec: crate::fulltext::FulltextSpec) -> Result<()> {
        let mut st = self.schema_write()?;
        let storage = &self.inner.storage;
        if storage.schema().by_name(&spec.name).is_some()
            || storage.fulltext_by_name(&spec.name).is_some()
        {
            return Err(Error::SchemaRuleExists { name: spec.name });
        }
        if !crate::fulltext::analyzers::is_known(&spec.analyzer) {
            return Err(Error::Fulltext(
                crate::fulltext::FulltextError::UnknownAnalyzer {
                    name: spec.analyzer,
                },
            ));
        }
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
            Some(d) if d.unique == unique => {}
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
    /// `relationship`, of the relationships of type `token`), applied at commit. Its graph is
    /// built from the store at its first search (see `vector`).
    pub fn create_vector_index(
        &self,
        name: Option<&str>,
        relationship: bool,
        token: u32,
        key: PropKeyId,
        config: VectorConfig,
    ) -> Result<()> {
        let mut st = self.schema_write()?;
        let s = &self.inner.storage;
        let name = match name {
            Some(n) => n.to_string(),
            None => {
                let token_name = if relationship {
                    s.types.name_or_err(token)?
                } else {
                    s.labels.name_or_err(token)?
                };
                format!("vector_{token_name}_{}", s.keys.name_or_err(key.0)?)
            }
        };
        if s.vector_exists(&name, relationship, token, key.0) {
            return Err(Error::SchemaRuleExists { name });
        }
        st.schema_ops.push(SchemaOp::CreateVector(VectorSpec {
            name,
            relationship,
            token,
            key: key.0,
            config,
        }));
        Ok(())
    }

    pub fn drop_constraint(&self, name: &str) -> Result<()> {
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
        st: &mut TxState,
    ) -> Result<Arc<crate::fulltext::FulltextIndex>> {
        let storage = &self.inner.storage;
        if storage.schema().by_name(&spec.name).is_some()
            || storage.fulltext_by_name(&spec.name).is_some()
        {
            return Err(Error::SchemaRuleExists {
                name: spec.name.clone(),
            });
        }
        let index = Arc::new(crate::fulltext::FulltextIndex::new(storage, spec.clone())?);
        let view = View {
            snapshot: storage.last_committed(),
            txid: self.inner.txid,
            command: u32::MAX,
        };
        index.rebuild(storage, &view)?;
        storage.publish_fulltext(index.clone());
        if self.inner.log {
            st.redo.push(RedoOp::CreateFulltextIndex(spec.clone()));
        }
        Ok(index)
    }

    fn apply_drop_fulltext(
        &self,
        name: &str,
        st: &mut TxState,
    ) -> Result<Arc<crate::fulltext::FulltextIndex>> {
        let storage = &self.inner.storage;
        let Some(index) = storage.fulltext_by_name(name) else {
            return Err(Error::SchemaRuleNotFound {
                name: name.to_string(),
            });
        };
        storage.unpublish_fulltext(&index);
        if self.inner.log {
            st.redo.push(RedoOp::DropIndex {
                name: name.to_string(),
            });
        }
        Ok(index)
    }

    /// Applies the recorded schema changes; on failure, undoes the ones already applied.
    /// Returns the definitions it created (so a failed log append can take them back).
    pub(crate) fn apply_schema_ops(&self, st: &mut TxState) -> Result<Applied> {
        let storage = self.inner.storage.clone();
        let mut created: Vec<Arc<IndexDef>> = Vec::new();
        let mut dropped: Vec<Arc<IndexDef>> = Vec::new();
        let mut vectors_created: Vec<Arc<VectorIndexDef>> = Vec::new();
        let mut vectors_dropped: Vec<Arc<VectorIndexDef>> = Vec::new();
        let mut fulltext_created = Vec::new();
        let mut fulltext_dropped = Vec::new();
        let ops = std::mem::take(&mut st.schema_ops);
        let result = (|| -> Result<()> {
            for op in &ops {
                match op {
                    SchemaOp::CreateFulltext(spec) => {
                        fulltext_created.push(self.apply_create_fulltext(spec, st)?);
                    }
                    SchemaOp::DropFulltext { name } => {
                        fulltext_dropped.push(self.apply_drop_fulltext(name, st)?);
                    }
                    SchemaOp::Create {
                        name,
                        label,
                        key,
                        unique,
                    } => {
                        self.apply_create_index(
                            name,
                            (*label, *key),
                            *unique,
                            &mut st.redo,
                            &mut created,
                        )?;
                    }
                    SchemaOp::CreateVector(spec) => {
                        vectors_created.push(self.publish_vector(spec, &mut st.redo)?);
                    }
                    SchemaOp::DropVector { name } => {
                        vectors_dropped.push(self.unpublish_vector(name, &mut st.redo)?);
                    }
                    SchemaOp::Drop { name, unique } => {
                        let schema = storage.schema();
                        let def = match schema.by_name(name) {
                            Some(d) if d.unique == *unique => d.clone(),
                            _ => {
                                return Err(Error::SchemaRuleNotFound { name: name.clone() });
                            }
                        };
                        self.unpublish(&def);
                        dropped.push(def);
                        if self.inner.log {
                            st.redo.push(if *unique {
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
            Ok(()) => {
                st.fulltext_created = fulltext_created;
                Ok(Applied {
                    indexes: created,
                    vectors: vectors_created,
                })
            }
            Err(e) => {
                for index in &fulltext_created {
                    storage.unpublish_fulltext(index);
                }
                for index in fulltext_dropped {
                    storage.publish_fulltext(index);
                }
                for def in &created {
                    self.unpublish(def);
                }
                for def in dropped {
                    self.publish(def);
                }
                self.restore_vectors(&vectors_created, vectors_dropped);
                Err(e)
            }
        }
    }

    /// Publishes a property index or uniqueness constraint, fills it and logs it. The
    /// definition is in `created` from the moment it is published, so a failure later in
    /// the commit takes it back.
    fn apply_create_index(
        &self,
        name: &str,
        (label, key): (u32, u32),
        unique: bool,
        redo: &mut Vec<RedoOp>,
        created: &mut Vec<Arc<IndexDef>>,
    ) -> Result<()> {
        let storage = &self.inner.storage;
        let schema = storage.schema();
        if schema.by_name(name).is_some() || schema.find_kind(label, key, unique).is_some() {
            return Err(Error::SchemaRuleExists {
                name: name.to_string(),
            });
        }
        let def = Arc::new(IndexDef::new(name.to_string(), label, key, unique));
        self.publish(def.clone());
        created.push(def.clone());
        storage.populate(&def);
        if unique {
            self.verify_unique(&def)?;
        }
        def.online.store(true, Ordering::Release);
        storage.schema_replaced();
        if self.inner.log {
            let (l, k) = (
                storage.labels.name_or_err(label)?,
                storage.keys.name_or_err(key)?,
            );
            let name = name.to_string();
            redo.push(if unique {
                RedoOp::CreateUniqueConstraint {
                    name,
                    label: l,
                    key: k,
                }
            } else {
                RedoOp::CreateIndex {
                    name,
                    label: l,
                    key: k,
                }
            });
        }
        Ok(())
    }

    /// Takes back a failed commit's vector index changes.
    fn restore_vectors(&self, created: &[Arc<VectorIndexDef>], dropped: Vec<Arc<VectorIndexDef>>) {
        let mut vectors = self.inner.storage.vectors.write();
        vectors.retain(|d| !created.iter().any(|c| Arc::ptr_eq(c, d)));
        vectors.extend(dropped);
    }

    /// Publishes a vector index created at commit (and logs it).
    fn publish_vector(
        &self,
        spec: &VectorSpec,
        redo: &mut Vec<RedoOp>,
    ) -> Result<Arc<VectorIndexDef>> {
        let storage = &self.inner.storage;
        let def = VectorIndexDef::new(
            spec.name.clone(),
            spec.relationship,
            spec.token,
            spec.key,
            spec.config,
        );
        if storage.vector_exists(&def.name, def.relationship, def.token, def.key) {
            return Err(Error::SchemaRuleExists { name: def.name });
        }
        if self.inner.log {
            let token = if def.relationship {
                storage.types.name_or_err(def.token)?
            } else {
                storage.labels.name_or_err(def.token)?
            };
            redo.push(RedoOp::CreateVectorIndex {
                name: def.name.clone(),
                relationship: def.relationship,
                token,
                key: storage.keys.name_or_err(def.key)?,
                config: def.config,
            });
        }
        let def = Arc::new(def);
        storage.vectors.write().push(def.clone());
        def.start_built_if_empty(storage);
        storage.schema_replaced();
        Ok(def)
    }

    /// Takes a dropped vector index out at commit (and logs it).
    fn unpublish_vector(&self, name: &str, redo: &mut Vec<RedoOp>) -> Result<Arc<VectorIndexDef>> {
        let storage = &self.inner.storage;
        let Some(def) = storage.vector_def(name) else {
            return Err(Error::SchemaRuleNotFound {
                name: name.to_string(),
            });
        };
        storage.vectors.write().retain(|d| !Arc::ptr_eq(d, &def));
        storage.schema_replaced();
        if self.inner.log {
            redo.push(RedoOp::DropIndex {
                name: name.to_string(),
            });
        }
        Ok(def)
    }

    /// Fails if two nodes visible in the newest committed state share a value.
    fn verify_unique(&self, def: &IndexDef) -> Result<()> {
        let storage = &self.inner.storage;
        let view = View {
            snapshot: storage.last_committed(),
            txid: self.inner.txid,
            command: u32::MAX,
        };
        for (_, nodes) in def.data.duplicate_keys() {
            let mut values: Vec<(u64, Value)> = Vec::new();
            for id in nodes {
                let Some(slot) = storage.nodes.get(id) else {
                    continue;
                };
                let g = slot.lock();
                if read::node_has_label(&g, &view, def.label)? != Some(true) {
                    continue;
                }
                if let Some(v) = read::node_prop(&g, &view, def.key)?.flatten() {
                    values.push((id, v));
                }
            }
            for (i, (a, va)) in values.iter().enumerate() {
                if let Some((b, _)) = values[i + 1..].iter().find(|(_, vb)| equal(va, vb)) {
                    return Err(Error::ConstraintCreationFailed {
                        name: def.name.clone(),
                        reason: format!("nodes {a} and {b} share the value {va:?}"),
                    });
                }
            }
        }
        Ok(())
    }
}

impl Storage {
    /// Adds entries for every version of every node that may carry the index's label.
    pub(crate) fn populate(&self, def: &IndexDef) {
        let Some(bits) = self.label_bitmap_if_any(def.label) else {
            return;
        };
        let mut from = 0;
        let mut batch = Vec::new();
        loop {
            batch.clear();
            let next = bits.collect_from(from, 4096, &mut batch);
            for &id in &batch {
                let Some(slot) = self.nodes.get(id) else {
                    continue;
                };
                let g = slot.lock();
                if !may_have_label(&g, def.label) {
                    continue;
                }
                if let Ok(Some(v)) = g.props().and_then(|p| prop_get(p, def.key)) {
                    def.data.insert(key_of(&v), id);
                }
                for u in mvcc::all(g.chain()) {
                    if let Undo::Property { key, old: Some(v) } = u
                        && *key == def.key
                    {
                        def.data.insert(key_of(v), id);
                    }
                }
            }
            match next {
                Some(n) => from = n,
                None => break,
            }
        }
    }
}
