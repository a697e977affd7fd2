//! Owned cursors: scans that hold a handle to their transaction rather than a borrow, so the
//! engine can keep one across many pulls (a Bolt client fetching rows in batches).
//!
//! A cursor reads at the view of the moment it was opened: writes the transaction makes at
//! later commands do not show up in it. It fetches candidates in batches, holding a lock only
//! while copying one batch, and fails with [`Error::TransactionClosed`] once its transaction
//! has ended.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::error::Result;
use crate::ids::{NodeId, RelId};
use crate::mvcc::View;
use crate::read;
use crate::redo::RedoOp;
use crate::restriction::{self, Restriction};
use crate::schema::CompositeQuery;
use crate::schema::IndexDef;
use crate::storage::Storage;
use crate::txn::TxInner;

/// Candidates examined per refill.
pub const CURSOR_BATCH: usize = 512;

pub(crate) enum NodeSource {
    /// Ids from `next` up to (not including) `end`.
    All {
        next: u64,
        end: u64,
    },
    /// Ids carrying `label` from `next` up to (not including) `end`.
    Label {
        label: u32,
        next: Option<u64>,
        end: u64,
    },
    Index(IndexScan),
}

/// A seek through a property index, node or relationship: the index's entries in key order,
/// each confirmed against the cursor's view.
pub(crate) struct IndexScan {
    def: Arc<IndexDef>,
    query: CompositeQuery,
    ranges: Vec<(Box<[u8]>, Option<Box<[u8]>>)>,
    range: usize,
    resume: Option<(Box<[u8]>, u64)>,
}

impl IndexScan {
    pub(crate) fn new(def: Arc<IndexDef>, query: CompositeQuery) -> Self {
        let ranges = query.key_ranges();
        IndexScan {
            def,
            query,
            ranges,
            range: 0,
            resume: None,
        }
    }

    /// Appends the next batch of confirmed ids to `out`; returns whether the scan is over.
    fn refill(&mut self, storage: &Storage, view: &View, out: &mut Vec<u64>) -> Result<bool> {
        let Some((start, end)) = self.ranges.get(self.range) else {
            return Ok(true);
        };
        let mut entries = Vec::with_capacity(CURSOR_BATCH);
        let more = self.def.data.collect(
            start,
            end.as_deref(),
            self.resume.as_ref(),
            CURSOR_BATCH,
            &mut entries,
        );
        for (key, id) in &entries {
            if !self.query.key_may_match(key) {
                continue;
            }
            // An entity is reported under the key of the values its view sees, so that
            // entries for its other versions do not report it twice.
            let Some(values) = storage.entity_values(&self.def, *id, Some(view))? else {
                continue;
            };
            if self.def.key_of_values(&values).as_ref() != Some(key) {
                continue;
            }
            if let Some(values) = values.into_iter().collect::<Option<Vec<_>>>()
                && self.query.matches(&values)
            {
                out.push(*id);
            }
        }
        if more {
            self.resume = entries.last().cloned();
        } else {
            self.range += 1;
            self.resume = None;
        }
        Ok(self.range >= self.ranges.len())
    }
}

/// The ids a cursor fetched and has yet to hand out, from `pos` on, and whether its
/// source is spent.
struct Batch<T> {
    ids: Vec<T>,
    pos: usize,
    done: bool,
}

impl<T> Default for Batch<T> {
    fn default() -> Self {
        Batch {
            ids: Vec::new(),
            pos: 0,
            done: false,
        }
    }
}

/// A cursor that fetches ids in batches: what the node and relationship cursors share.
trait Batched {
    type Id: Copy;

    fn batch(&mut self) -> &mut Batch<Self::Id>;

    /// Fetches the next batch in place of the last one, marking the source spent at its end.
    fn refill(&mut self) -> Result<()>;
}

/// A batched cursor's iteration: the next id fetched, fetching until the source is spent;
/// an error ends the cursor.
fn next_batched<C: Batched>(cursor: &mut C) -> Option<Result<C::Id>> {
    loop {
        let batch = cursor.batch();
        if let Some(id) = batch.ids.get(batch.pos) {
            let id = *id;
            batch.pos += 1;
            return Some(Ok(id));
        }
        if batch.done {
            return None;
        }
        if let Err(e) = cursor.refill() {
            cursor.batch().done = true;
            return Some(Err(e));
        }
    }
}

/// Keeps the ids `keep` says yes to, in order; on an error `ids` is left as it was.
fn retain_ok<T: Copy>(ids: &mut Vec<T>, keep: impl Fn(T) -> Result<bool>) -> Result<()> {
    let mut kept = Vec::with_capacity(ids.len());
    for id in ids.iter() {
        if keep(*id)? {
            kept.push(*id);
        }
    }
    *ids = kept;
    Ok(())
}

/// A cursor over node ids.
pub struct NodeCursor {
    tx: Arc<TxInner>,
    restriction: Restriction,
    view: View,
    source: NodeSource,
    batch: Batch<NodeId>,
}

impl NodeCursor {
    pub(crate) fn new(tx: Arc<TxInner>, restriction: Restriction, source: NodeSource) -> Self {
        let view = tx.view();
        NodeCursor {
            tx,
            restriction,
            view,
            source,
            batch: Batch::default(),
        }
    }

    /// Appends up to `max` ids to `out`; returns how many. Zero means the scan is over.
    pub fn next_batch(&mut self, max: usize, out: &mut Vec<NodeId>) -> Result<usize> {
        let mut n = 0;
        while n < max {
            if self.batch.pos == self.batch.ids.len() {
                if self.batch.done {
                    break;
                }
                self.refill()?;
                continue;
            }
            let take = (max - n).min(self.batch.ids.len() - self.batch.pos);
            out.extend_from_slice(&self.batch.ids[self.batch.pos..self.batch.pos + take]);
            self.batch.pos += take;
            n += take;
        }
        Ok(n)
    }
}

impl Batched for NodeCursor {
    type Id = NodeId;

    fn batch(&mut self) -> &mut Batch<NodeId> {
        &mut self.batch
    }

    fn refill(&mut self) -> Result<()> {
        self.tx.check_active()?;
        self.batch.ids.clear();
        self.batch.pos = 0;
        let storage = self.tx.storage.clone();
        let view = self.view;
        match &mut self.source {
            NodeSource::All { next, end } => {
                let end = storage.next_node.load(Ordering::Acquire).min(*end);
                let stop = next.saturating_add(CURSOR_BATCH as u64).min(end);
                for id in *next..stop {
                    if let Some(slot) = storage.nodes.get(id)
                        && read::node_exists(&slot.lock(), &view)
                    {
                        self.batch.ids.push(NodeId(id));
                    }
                }
                *next = stop;
                self.batch.done = stop >= end;
            }
            NodeSource::Label { label, next, end } => {
                let Some(from) = next.filter(|from| from < end) else {
                    self.batch.done = true;
                    return Ok(());
                };
                let Some(bits) = storage.label_bitmap_if_any(*label) else {
                    self.batch.done = true;
                    return Ok(());
                };
                let mut cands = Vec::with_capacity(CURSOR_BATCH);
                *next = bits.collect_from(from, CURSOR_BATCH, &mut cands);
                if let Some(past) = cands.iter().position(|id| id >= end) {
                    cands.truncate(past);
                    *next = None;
                }
                // Candidates in id order: each group is locked once for all of its own.
                let mut held = None;
                for id in cands {
                    if let Some(slot) = storage.nodes.get(id)
                        && read::node_has_label(slot.lock_into(&mut held), &view, *label)?
                            == Some(true)
                    {
                        self.batch.ids.push(NodeId(id));
                    }
                }
                self.batch.done = next.is_none();
            }
            NodeSource::Index(scan) => {
                let mut ids = Vec::new();
                self.batch.done = scan.refill(&storage, &view, &mut ids)?;
                if let Some(r) = &self.restriction {
                    // A node found by a key its reader may not read is not found.
                    let keys = &scan.def.keys;
                    for id in ids {
                        let Some(slot) = storage.nodes.get(id) else {
                            continue;
                        };
                        if restriction::locked_node_found_by(&slot.lock(), &view, r.as_ref(), keys)?
                        {
                            self.batch.ids.push(NodeId(id));
                        }
                    }
                    return Ok(());
                }
                self.batch.ids.extend(ids.into_iter().map(NodeId));
                return Ok(());
            }
        }
        if let Some(r) = &self.restriction {
            retain_ok(&mut self.batch.ids, |id| {
                restriction::node_visible(&storage, &view, r.as_ref(), id.0)
            })?;
        }
        Ok(())
    }
}

impl Iterator for NodeCursor {
    type Item = Result<NodeId>;

    fn next(&mut self) -> Option<Self::Item> {
        next_batched(self)
    }
}

/// A cursor over relationship ids, optionally of some types.
pub struct RelCursor {
    tx: Arc<TxInner>,
    restriction: Restriction,
    view: View,
    types: Vec<u32>,
    next: u64,
    /// A seek through a relationship index instead of a scan.
    index: Option<IndexScan>,
    batch: Batch<RelId>,
}

impl RelCursor {
    pub(crate) fn new(tx: Arc<TxInner>, restriction: Restriction, types: Vec<u32>) -> Self {
        let view = tx.view();
        RelCursor {
            tx,
            restriction,
            view,
            types,
            next: 0,
            index: None,
            batch: Batch::default(),
        }
    }

    pub(crate) fn seek(tx: Arc<TxInner>, restriction: Restriction, scan: IndexScan) -> Self {
        let mut cursor = RelCursor::new(tx, restriction, Vec::new());
        cursor.index = Some(scan);
        cursor
    }
}

impl Batched for RelCursor {
    type Id = RelId;

    fn batch(&mut self) -> &mut Batch<RelId> {
        &mut self.batch
    }

    fn refill(&mut self) -> Result<()> {
        self.tx.check_active()?;
        self.batch.ids.clear();
        self.batch.pos = 0;
        let storage = &self.tx.storage;
        if let Some(scan) = &mut self.index {
            let mut ids = Vec::new();
            self.batch.done = scan.refill(storage, &self.view, &mut ids)?;
            if let Some(r) = &self.restriction {
                let keys = &scan.def.keys;
                let ty = scan.def.token;
                if !keys.iter().all(|k| r.rel_key_readable(ty, *k)) {
                    return Ok(());
                }
                for id in ids {
                    if restriction::rel_visible(storage, &self.view, r.as_ref(), id)? {
                        self.batch.ids.push(RelId(id));
                    }
                }
                return Ok(());
            }
            self.batch.ids.extend(ids.into_iter().map(RelId));
            return Ok(());
        }
        let end = storage.next_rel.load(Ordering::Acquire);
        let stop = self.next.saturating_add(CURSOR_BATCH as u64).min(end);
        for id in self.next..stop {
            if let Some(slot) = storage.rels.get(id) {
                let g = slot.lock();
                if (self.types.is_empty() || self.types.contains(&g.ty()))
                    && read::rel_exists(&g, &self.view)
                {
                    self.batch.ids.push(RelId(id));
                }
            }
        }
        self.next = stop;
        self.batch.done = stop >= end;
        if let Some(r) = &self.restriction {
            retain_ok(&mut self.batch.ids, |id| {
                restriction::rel_visible(storage, &self.view, r.as_ref(), id.0)
            })?;
        }
        Ok(())
    }
}

impl Iterator for RelCursor {
    type Item = Result<RelId>;

    fn next(&mut self) -> Option<Self::Item> {
        next_batched(self)
    }
}

enum ExportPhase {
    Schema,
    Nodes(u64),
    Rels(u64),
    Done,
}

/// The whole graph as its transaction's snapshot sees it, as redo ops that rebuild it:
/// schema first, then nodes, then relationships (what a snapshot file holds).
pub struct ExportCursor {
    tx: Arc<TxInner>,
    view: View,
    phase: ExportPhase,
    buf: std::collections::VecDeque<RedoOp>,
    /// For a cursor over one id range of one kind: the end of the range; it stops there.
    range_end: Option<u64>,
}

impl ExportCursor {
    pub(crate) fn new(tx: Arc<TxInner>) -> Self {
        let view = tx.view();
        ExportCursor {
            tx,
            view,
            phase: ExportPhase::Schema,
            buf: std::collections::VecDeque::new(),
            range_end: None,
        }
    }

    /// The nodes (or relationships) with ids in `range` only, so that several threads can
    /// export one snapshot, each its own range.
    pub(crate) fn range(tx: Arc<TxInner>, nodes: bool, range: std::ops::Range<u64>) -> Self {
        let view = tx.view();
        ExportCursor {
            tx,
            view,
            phase: if nodes {
                ExportPhase::Nodes(range.start)
            } else {
                ExportPhase::Rels(range.start)
            },
            buf: std::collections::VecDeque::new(),
            range_end: Some(range.end),
        }
    }

    fn refill(&mut self) -> Result<()> {
        self.tx.check_active()?;
        let storage = self.tx.storage.clone();
        let view = self.view;
        match self.phase {
            ExportPhase::Schema => {
                for def in &storage.schema().defs {
                    self.buf.push_back(storage.create_op(def)?);
                }
                self.buf.extend(storage.derived_schema_ops()?);
                self.buf.extend(storage.property_constraint_ops());
                self.phase = ExportPhase::Nodes(0);
            }
            ExportPhase::Nodes(next) => {
                let end = storage.next_node.load(Ordering::Acquire);
                let end = self.range_end.map_or(end, |r| r.min(end));
                let stop = next.saturating_add(CURSOR_BATCH as u64).min(end);
                for id in next..stop {
                    let Some(slot) = storage.nodes.get(id) else {
                        continue;
                    };
                    let (labels, props) = {
                        let g = slot.lock();
                        let Some(labels) = read::node_labels(&g, &view)? else {
                            continue;
                        };
                        (labels, read::node_props(&g, &view)?.unwrap_or_default())
                    };
                    let labels = labels
                        .iter()
                        .map(|l| storage.labels.name_or_err(*l))
                        .collect::<Result<_>>()?;
                    let props = props
                        .into_iter()
                        .map(|(k, v)| Ok((storage.keys.name_or_err(k)?, v)))
                        .collect::<Result<_>>()?;
                    self.buf.push_back(RedoOp::CreateNode { id, labels, props });
                }
                self.phase = if stop >= end && self.range_end.is_some() {
                    ExportPhase::Done
                } else if stop >= end {
                    ExportPhase::Rels(0)
                } else {
                    ExportPhase::Nodes(stop)
                };
            }
            ExportPhase::Rels(next) => {
                let end = storage.next_rel.load(Ordering::Acquire);
                let end = self.range_end.map_or(end, |r| r.min(end));
                let stop = next.saturating_add(CURSOR_BATCH as u64).min(end);
                for id in next..stop {
                    let Some(slot) = storage.rels.get(id) else {
                        continue;
                    };
                    let (start, ty, props) = {
                        let g = slot.lock();
                        if g.is_vacant() {
                            continue;
                        }
                        let Some(props) = read::rel_props(&g, &view)? else {
                            continue;
                        };
                        (g.start(), g.ty(), props)
                    };
                    let Some(end_node) = storage.rel_end(start, id, ty) else {
                        continue;
                    };
                    let props = props
                        .into_iter()
                        .map(|(k, v)| Ok((storage.keys.name_or_err(k)?, v)))
                        .collect::<Result<_>>()?;
                    self.buf.push_back(RedoOp::CreateRelationship {
                        id,
                        start,
                        end: end_node,
                        rel_type: storage.types.name_or_err(ty)?,
                        props,
                    });
                }
                self.phase = if stop >= end {
                    ExportPhase::Done
                } else {
                    ExportPhase::Rels(stop)
                };
            }
            ExportPhase::Done => {}
        }
        Ok(())
    }
}

impl Iterator for ExportCursor {
    type Item = Result<RedoOp>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(op) = self.buf.pop_front() {
                return Some(Ok(op));
            }
            if matches!(self.phase, ExportPhase::Done) {
                return None;
            }
            if let Err(e) = self.refill() {
                self.phase = ExportPhase::Done;
                return Some(Err(e));
            }
        }
    }
}
