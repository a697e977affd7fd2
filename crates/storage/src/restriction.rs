//! A transaction's reads narrowed to what a reader may see: nodes and relationships a
//! [`ReadRestriction`] hides do not exist to scans, seeks, expands, counts and searches, and
//! properties it hides read as absent.
//!
//! What to hide is the embedder's to decide (the engine folds it from privileges); storage
//! only asks, per entity, with token ids, and hands over a way to read the node's own
//! properties as this transaction sees them now ([`NodeProperty`]), for rules that judge a
//! node by a property value. A restriction reads a property only when such a rule is about
//! the node; a rule by labels alone costs nothing more for it.
//!
//! A handle made by [`Transaction::restricted`] carries the restriction; the transaction's
//! own handle reads everything and pays one branch on an empty field for it. Counts under a
//! restriction are counted, not looked up: the count store counts everything.

use std::sync::Arc;

use crate::arena::Locked;
use crate::error::Result;
use crate::graph::NodeRec;
use crate::mvcc::View;
use crate::read;
use crate::storage::Storage;
use crate::txn::Transaction;
use quiver_value::Value;

/// Property `key` of the node being judged, as the reading transaction sees it now (`None`
/// when the node has none); every read of it looks at the node's record, whatever its
/// reader may read.
pub type NodeProperty<'a> = &'a dyn Fn(u32) -> Option<Value>;

/// What a restricted reader may find and read, asked with token ids.
pub trait ReadRestriction: Send + Sync + std::fmt::Debug {
    /// Whether a node with `labels` (and properties read through `property`) may be found.
    fn node_visible(&self, labels: &[u32], property: NodeProperty<'_>) -> bool;
    /// Whether relationships of type `ty` may be found (their two ends must be visible too).
    fn type_visible(&self, ty: u32) -> bool;
    /// Whether property `key` of a (visible) node with `labels` (and properties read through
    /// `property`) may be read.
    fn node_key_readable(&self, labels: &[u32], key: u32, property: NodeProperty<'_>) -> bool;
    /// Whether property `key` of a (visible) relationship of type `ty` may be read.
    fn rel_key_readable(&self, ty: u32, key: u32) -> bool;
}

/// A shared restriction, as handles and cursors hold it.
pub(crate) type Restriction = Option<Arc<dyn ReadRestriction>>;

impl Transaction {
    /// A handle on this transaction whose reads go through `restriction` (instead of any
    /// restriction this one has). It reads, writes, commits and rolls back the same
    /// transaction, and holds `self`'s unrestricted handle, so the transaction rolls back
    /// once the last of them is dropped active, as for one handle.
    #[must_use]
    pub fn restricted(
        self: &Arc<Transaction>,
        restriction: Arc<dyn ReadRestriction>,
    ) -> Transaction {
        Transaction {
            inner: self.inner.clone(),
            restriction: Some(restriction),
            base: Some(self.unrestricted()),
        }
    }

    /// The handle on this transaction that reads everything.
    pub fn unrestricted(self: &Arc<Transaction>) -> Arc<Transaction> {
        self.base.clone().unwrap_or_else(|| self.clone())
    }

    /// Whether `other` is a handle on the same transaction as this one.
    pub fn is_same_transaction(&self, other: &Transaction) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Whether this handle's reads are restricted.
    pub fn is_restricted(&self) -> bool {
        self.restriction.is_some()
    }
}

/// Property `key` of the locked node as `view` sees it; a record that cannot be read has
/// none.
pub(crate) fn locked_node_property(
    rec: &Locked<'_, NodeRec>,
    view: &View,
    key: u32,
) -> Option<Value> {
    read::node_prop(rec, view, key).ok().flatten().flatten()
}

/// Whether the locked node, as `view` sees it, exists and `r` lets it be found.
pub(crate) fn locked_node_visible(
    rec: &Locked<'_, NodeRec>,
    view: &View,
    r: &dyn ReadRestriction,
) -> Result<bool> {
    locked_node_found_by(rec, view, r, &[])
}

/// Whether the locked node, as `view` sees it, exists, `r` lets it be found, and each of
/// `keys` be read: what a search or seek by those keys may return.
pub(crate) fn locked_node_found_by(
    rec: &Locked<'_, NodeRec>,
    view: &View,
    r: &dyn ReadRestriction,
    keys: &[u32],
) -> Result<bool> {
    let property = |key| locked_node_property(rec, view, key);
    Ok(read::node_labels(rec, view)?.is_some_and(|labels| {
        r.node_visible(&labels, &property)
            && keys
                .iter()
                .all(|k| r.node_key_readable(&labels, *k, &property))
    }))
}

/// Whether node `node` exists at `view` and `r` lets it be found.
pub(crate) fn node_visible(
    storage: &Storage,
    view: &View,
    r: &dyn ReadRestriction,
    node: u64,
) -> Result<bool> {
    match storage.nodes.get(node) {
        Some(slot) => locked_node_visible(&slot.lock(), view, r),
        None => Ok(false),
    }
}

/// Whether relationship `rel` exists at `view` and `r` lets it be found: its type, and both
/// its ends.
pub(crate) fn rel_visible(
    storage: &Storage,
    view: &View,
    r: &dyn ReadRestriction,
    rel: u64,
) -> Result<bool> {
    let Some(slot) = storage.rels.get(rel) else {
        return Ok(false);
    };
    let (start, ty) = {
        let g = slot.lock();
        if !read::rel_exists(&g, view) {
            return Ok(false);
        }
        (g.start(), g.ty())
    };
    if !r.type_visible(ty) {
        return Ok(false);
    }
    let Some(end) = storage.rel_end(start, rel, ty) else {
        return Ok(false);
    };
    Ok(node_visible(storage, view, r, start)? && node_visible(storage, view, r, end)?)
}

/// Whether relationship `rel`, reached from a visible node, leads to a visible `neighbour`
/// over a type `r` lets be found.
pub(crate) fn step_visible(
    storage: &Storage,
    view: &View,
    r: &dyn ReadRestriction,
    rel: u64,
    neighbour: u64,
) -> Result<bool> {
    let Some(slot) = storage.rels.get(rel) else {
        return Ok(false);
    };
    let ty = slot.lock().ty();
    Ok(r.type_visible(ty) && node_visible(storage, view, r, neighbour)?)
}

impl Transaction {
    /// Keeps the search hits (node or relationship ids, as `relationship` says) this handle
    /// may see: a hit its restriction hides, or one indexed under a key it may not read, is
    /// dropped, so a search cannot tell of what a read would not find.
    pub(crate) fn keep_visible_hits(
        &self,
        relationship: bool,
        keys: &[u32],
        hits: &mut Vec<(u64, f64)>,
    ) -> Result<()> {
        let Some(r) = &self.restriction else {
            return Ok(());
        };
        let storage = &self.inner.storage;
        let view = self.inner.view();
        let mut kept = Vec::with_capacity(hits.len());
        for &(id, score) in hits.iter() {
            let readable = if relationship {
                let ty = storage.rels.get(id).map(|slot| slot.lock().ty());
                rel_visible(storage, &view, r.as_ref(), id)?
                    && ty.is_some_and(|ty| keys.iter().all(|k| r.rel_key_readable(ty, *k)))
            } else {
                match storage.nodes.get(id) {
                    Some(slot) => locked_node_found_by(&slot.lock(), &view, r.as_ref(), keys)?,
                    None => false,
                }
            };
            if readable {
                kept.push((id, score));
            }
        }
        *hits = kept;
        Ok(())
    }
}
