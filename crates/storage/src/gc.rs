//! Garbage collection: freeing deltas, deleted entities and stale index entries once no live
//! snapshot can need them.
//!
//! Each commit queues a batch naming the entities it touched and the index entries or label
//! bits it may have made stale. A batch is processed once the oldest live snapshot has reached
//! its commit: chains are cut at the first delta that snapshot already sees, entities deleted
//! for good are cleared, and each stale item is removed unless some surviving version still
//! carries it (checked under the entity's lock, the same lock writers add entries under).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::arena::Locked;
use crate::graph::{NodeRec, RelRec};
use crate::mvcc::{self, Undo};
use crate::schema::{IndexDef, Schema};
use crate::storage::Storage;

pub(crate) enum GcItem {
    LabelBit {
        label: u32,
        node: u64,
    },
    Entry {
        def: Arc<IndexDef>,
        key: Box<[u8]>,
        /// The node, or the relationship when the index is over relationships.
        node: u64,
    },
}

pub(crate) struct GcBatch {
    pub ts: u64,
    pub nodes: Vec<u64>,
    pub rels: Vec<u64>,
    pub items: Vec<GcItem>,
}

/// What one pass reclaimed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GcStats {
    pub batches: usize,
    pub deltas_freed: usize,
    pub nodes_freed: usize,
    pub rels_freed: usize,
    pub items_removed: usize,
}

/// How many batches a collection piggy-backed on a commit may process, so that a commit's
/// latency stays bounded.
const COMMIT_GC_BATCHES_MAX: usize = 16;

/// Whether some surviving version of the node may carry `label`.
pub(crate) fn may_have_label(rec: &Locked<'_, NodeRec>, label: u32) -> bool {
    if rec.is_vacant() {
        return false;
    }
    rec.has_label(label).unwrap_or(true)
        || mvcc::all(rec.chain())
            .any(|u| matches!(u, Undo::LabelAdded(l) | Undo::LabelRemoved(l) if *l == label))
}

/// Whether some surviving version of the node may be indexed under `key` in `def`.
pub(crate) fn may_have_entry(rec: &Locked<'_, NodeRec>, def: &IndexDef, key: &[u8]) -> bool {
    if !may_have_label(rec, def.token) {
        return false;
    }
    let has = rec.has_label(def.token).unwrap_or(true);
    rec.props()
        .and_then(|p| def.version_keys(has, p, rec.chain()))
        .map_or(true, |keys| keys.iter().any(|k| k.as_ref() == key))
}

/// Whether some surviving version of the relationship may be indexed under `key` in `def`.
fn rel_may_have_entry(rec: &Locked<'_, RelRec>, def: &IndexDef, key: &[u8]) -> bool {
    if rec.is_vacant() || rec.ty() != def.token {
        return false;
    }
    def.version_keys(true, rec.props.bytes(), rec.chain())
        .map_or(true, |keys| keys.iter().any(|k| k.as_ref() == key))
}

impl Storage {
    /// Reclaims everything no live snapshot needs. Safe to call at any time from any thread.
    /// An explicit collection also returns the pool of spare deltas to the allocator.
    pub fn gc(&self) -> GcStats {
        let _running = self.gc_lock.lock();
        let stats = self.gc_locked(usize::MAX);
        self.deltas.release();
        stats
    }

    /// Called after commits: a bounded pass, skipped if another pass is running or nothing
    /// is due.
    pub(crate) fn gc_after_commit(&self) {
        let due = {
            let q = self.gc_queue.lock();
            q.front().map(|b| b.ts)
        };
        let Some(due) = due else { return };
        if due > self.oldest_snapshot() {
            return;
        }
        if let Some(_running) = self.gc_lock.try_lock() {
            self.gc_locked(COMMIT_GC_BATCHES_MAX);
        }
    }

    pub(crate) fn enqueue_gc(&self, batch: GcBatch) {
        if batch.nodes.is_empty() && batch.rels.is_empty() && batch.items.is_empty() {
            return;
        }
        self.gc_queue.lock().push_back(batch);
    }

    fn gc_locked(&self, batches_max: usize) -> GcStats {
        let oldest = self.oldest_snapshot();
        let mut stats = GcStats::default();
        let schema = self.schema();
        while stats.batches < batches_max {
            let batch = {
                let mut q = self.gc_queue.lock();
                match q.front() {
                    Some(b) if b.ts <= oldest => q.pop_front(),
                    _ => None,
                }
            };
            let Some(batch) = batch else { break };
            self.collect(batch, oldest, &schema, &mut stats);
            stats.batches += 1;
        }
        self.counts.trim(oldest);
        self.live_deltas
            .fetch_sub(stats.deltas_freed as i64, Ordering::Relaxed);
        stats
    }

    fn collect(&self, batch: GcBatch, oldest: u64, schema: &Schema, stats: &mut GcStats) {
        let mut freed = Vec::new();
        for id in batch.nodes {
            let Some(slot) = self.nodes.get(id) else {
                continue;
            };
            let mut g = slot.lock();
            // Read before truncating: the deletion is recorded by the chain head.
            let deleted = !g.is_vacant() && !g.is_live();
            let mut chain = g.take_chain();
            stats.deltas_freed += mvcc::truncate(&mut chain, oldest, &mut freed);
            let cut = chain.is_none();
            g.set_chain(chain);
            if deleted && cut {
                self.free_node(&mut g, id, schema);
                stats.nodes_freed += 1;
            }
        }
        for id in batch.rels {
            let Some(slot) = self.rels.get(id) else {
                continue;
            };
            let mut g = slot.lock();
            let mut chain = g.take_chain();
            stats.deltas_freed += mvcc::truncate(&mut chain, oldest, &mut freed);
            let cut = chain.is_none();
            g.set_chain(chain);
            if !g.is_vacant() && !g.is_live() && cut {
                for def in schema.on_type(g.ty()) {
                    if let Ok(Some(key)) = def.key_in(g.props.bytes()) {
                        def.data.remove(&key, id);
                    }
                }
                g.clear();
                stats.rels_freed += 1;
            }
        }
        self.deltas.give(&mut freed);
        for item in batch.items {
            match item {
                GcItem::LabelBit { label, node } => {
                    let Some(slot) = self.nodes.get(node) else {
                        continue;
                    };
                    let g = slot.lock();
                    if !may_have_label(&g, label)
                        && let Some(bits) = self.label_bitmap_if_any(label)
                    {
                        bits.clear(node);
                        stats.items_removed += 1;
                    }
                }
                GcItem::Entry { def, key, node } => {
                    let stale = if def.relationship {
                        self.rels
                            .get(node)
                            .is_none_or(|slot| !rel_may_have_entry(&slot.lock(), &def, &key))
                    } else {
                        self.nodes
                            .get(node)
                            .is_none_or(|slot| !may_have_entry(&slot.lock(), &def, &key))
                    };
                    if stale {
                        def.data.remove(&key, node);
                        stats.items_removed += 1;
                    }
                }
            }
        }
    }

    /// Clears a node deleted for good, with its label bits and index entries.
    fn free_node(&self, rec: &mut Locked<'_, NodeRec>, id: u64, schema: &Schema) {
        let labels = rec.labels().unwrap_or_default();
        let props = rec.props().unwrap_or_default();
        for l in &labels {
            if let Some(bits) = self.label_bitmap_if_any(*l) {
                bits.clear(id);
            }
            for def in schema.on_label(*l) {
                if let Ok(Some(key)) = def.key_in(props) {
                    def.data.remove(&key, id);
                }
            }
        }
        rec.clear();
    }
}
