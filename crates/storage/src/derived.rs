//! Derived indexes: the vector and full-text indexes, kept beside the store from its committed
//! state rather than inside its version chains.
//!
//! Property indexes (range, text, point) live in the store's own structures and change with
//! each write, so a transaction's own index entries roll back with it. The derived indexes
//! instead follow commits: they are told what a commit touched and re-read it. Every path that
//! changes data or schema reaches them through this one registry:
//!
//! | path | hook |
//! | --- | --- |
//! | a commit, before the commit lock | [`Storage::derived_before_commit`]: vector graphs take the committing transaction's vectors |
//! | a commit, under the commit lock | [`Storage::derived_committed`]: full-text indexes queue it for their worker |
//! | bulk load, recovery, replayed commits without a transaction | [`Storage::derived_quiesce`], then [`Storage::derived_stale`] under the commit lock as the load is published: each is rebuilt from the store on its next search |
//! | DDL (and its take-back when the log refuses a commit) | [`Storage::publish_derived`], [`Storage::unpublish_derived`] |
//! | a snapshot's schema section, the rules new schema is judged against | [`DerivedIndex::create_op`], [`DerivedIndex::rule`] |
//!
//! A new family is one more [`DerivedIndex`] variant: the compiler then asks for its arm in
//! each hook.

use std::sync::Arc;

use crate::Result;
use crate::fulltext::FulltextIndex;
use crate::mvcc::View;
use crate::redo::RedoOp;
use crate::rules::Rule;
use crate::storage::Storage;
use crate::vector::VectorIndexDef;

/// One published derived index.
#[derive(Clone)]
pub(crate) enum DerivedIndex {
    Vector(Arc<VectorIndexDef>),
    Fulltext(Arc<FulltextIndex>),
}

impl DerivedIndex {
    pub(crate) fn name(&self) -> &str {
        match self {
            DerivedIndex::Vector(def) => &def.name,
            DerivedIndex::Fulltext(index) => &index.spec.name,
        }
    }

    /// Whether `self` and `other` are the same published index (not merely equal ones).
    pub(crate) fn same(&self, other: &DerivedIndex) -> bool {
        match (self, other) {
            (DerivedIndex::Vector(a), DerivedIndex::Vector(b)) => Arc::ptr_eq(a, b),
            (DerivedIndex::Fulltext(a), DerivedIndex::Fulltext(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    pub(crate) fn as_vector(&self) -> Option<&Arc<VectorIndexDef>> {
        match self {
            DerivedIndex::Vector(def) => Some(def),
            DerivedIndex::Fulltext(_) => None,
        }
    }

    pub(crate) fn as_fulltext(&self) -> Option<&Arc<FulltextIndex>> {
        match self {
            DerivedIndex::Fulltext(index) => Some(index),
            DerivedIndex::Vector(_) => None,
        }
    }

    /// Marks the contents as missing what a path that bypasses commits changed: the index is
    /// rebuilt from the store before its next search.
    fn stale(&self) {
        match self {
            DerivedIndex::Vector(def) => def.mark_stale(),
            DerivedIndex::Fulltext(index) => index.mark_dirty(),
        }
    }

    /// The schema rule the index is, for judging new schema beside it.
    pub(crate) fn rule(&self, storage: &Storage) -> Result<Rule> {
        Ok(match self {
            DerivedIndex::Vector(def) => {
                storage.vector_rule(&def.name, def.relationship, def.token, def.key)?
            }
            DerivedIndex::Fulltext(index) => Rule::fulltext(&index.spec),
        })
    }

    /// The redo operation that creates the index again: a commit's log record, a snapshot's
    /// schema section.
    pub(crate) fn create_op(&self, storage: &Storage) -> Result<RedoOp> {
        Ok(match self {
            DerivedIndex::Vector(def) => RedoOp::CreateVectorIndex {
                name: def.name.clone(),
                relationship: def.relationship,
                token: storage.label_or_type(def.relationship, def.token)?,
                key: storage.keys.name_or_err(def.key)?,
                config: def.config,
                with_properties: def
                    .with_keys
                    .iter()
                    .map(|k| storage.keys.name_or_err(*k))
                    .collect::<Result<_>>()?,
            },
            DerivedIndex::Fulltext(index) => RedoOp::CreateFulltextIndex(index.spec.clone()),
        })
    }
}

impl Storage {
    /// The published derived indexes, in creation order.
    pub(crate) fn derived(&self) -> Arc<Vec<DerivedIndex>> {
        self.derived.read().clone()
    }

    pub(crate) fn derived_by_name(&self, name: &str) -> Option<DerivedIndex> {
        self.derived().iter().find(|d| d.name() == name).cloned()
    }

    /// Makes `index` visible to searches and to the commits that follow.
    pub(crate) fn publish_derived(&self, index: DerivedIndex) {
        let mut w = self.derived.write();
        let mut v: Vec<DerivedIndex> = (**w).clone();
        v.push(index);
        *w = Arc::new(v);
        drop(w);
        self.schema_replaced();
    }

    /// Takes `index` out: dropped, or created by a commit that did not happen.
    pub(crate) fn unpublish_derived(&self, index: &DerivedIndex) {
        let mut w = self.derived.write();
        let v: Vec<DerivedIndex> = w.iter().filter(|d| !d.same(index)).cloned().collect();
        *w = Arc::new(v);
        drop(w);
        self.schema_replaced();
    }

    /// A committing transaction's hook before the commit lock, with `view` its own: the
    /// vector graphs take the vectors of what it touched, so the graph work does not serialise
    /// commits, and before the commit is visible, so no reader of it misses a vector.
    pub(crate) fn derived_before_commit(&self, view: &View, nodes: &[u64], rels: &[u64]) {
        if nodes.is_empty() && rels.is_empty() {
            return;
        }
        for index in self.derived().iter() {
            match index {
                DerivedIndex::Vector(def) => {
                    let touched = if def.relationship { rels } else { nodes };
                    self.index_vectors(def, view, touched);
                }
                DerivedIndex::Fulltext(_) => {}
            }
        }
    }

    /// A commit's hook under the commit lock, once it has its number and before it is
    /// published: the full-text indexes queue what it touched for their worker. Returns
    /// whether the queue is past its bound, so the committer waits for room once it has left
    /// the commit lock ([`Storage::derived_room`]).
    pub(crate) fn derived_committed(
        self: &Arc<Self>,
        commit: u64,
        nodes: &[u64],
        rels: &[u64],
    ) -> bool {
        if nodes.is_empty() && rels.is_empty() {
            return false;
        }
        // Read under the commit lock: an index a DDL commit published just before this one
        // was filled from the store without this commit's changes, so it must get them here.
        let fulltext = self.derived().iter().any(|d| d.as_fulltext().is_some());
        fulltext && self.fulltext_pending.push(self, commit, nodes, rels)
    }

    /// Waits, outside the commit lock, until the full-text queue is back under its bound.
    pub(crate) fn derived_room(&self) {
        self.fulltext_pending.wait_room();
    }

    /// Waits until every queued commit has reached the indexes: before a path that changes
    /// data outside commits, so no worker reads while it does.
    pub(crate) fn derived_quiesce(&self) {
        self.fulltext_pending.wait_idle();
    }

    /// Marks every derived index as missing what a path that bypasses commits (a bulk load,
    /// recovery) changed: each is rebuilt from the store before its next search.
    pub(crate) fn derived_stale(&self) {
        for index in self.derived().iter() {
            index.stale();
        }
    }

    /// The derived indexes as creation ops, for a snapshot's schema section.
    pub(crate) fn derived_schema_ops(&self) -> Result<Vec<RedoOp>> {
        self.derived().iter().map(|d| d.create_op(self)).collect()
    }
}
