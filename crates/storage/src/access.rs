//! The read API of a transaction: point reads, expands, counts, scans and index seeks, all at
//! the transaction's current view.

use std::sync::Arc;

use smallvec::SmallVec;

use quiver_value::graph::{NodeData, RelData};
use quiver_value::{Map, Node, Relationship, Value};

use crate::arena::{Grouped, Locked, Table};
use crate::counts::CountKey;
use crate::cursor::{ExportCursor, IndexScan, NodeCursor, NodeSource, RelCursor};
use crate::error::{Error, Result};
use crate::filter::PropTest;
use crate::graph::NodeRec;
use crate::ids::{Direction, LabelId, NodeId, PropKeyId, RelId, RelTypeId};
use crate::index::IndexQuery;
use crate::mvcc::View;
use crate::prefetch;
use crate::read;
use crate::restriction::{self, ReadRestriction};
use crate::schema::CompositeQuery;
use crate::storage::Storage;
use crate::txn::Transaction;

/// Nodes a batched expand asks the memory system for at once (see
/// [`Transaction::expand_batch`]): enough misses in flight to cover a memory latency, few
/// enough that their lines are still in the first-level cache when read.
pub(crate) const EXPAND_WINDOW: usize = 16;

/// Entries [`Transaction::expand_batch_where`] asks for relationship records of at once, a
/// window ahead of the one it tests.
pub(crate) const RELS_AHEAD: usize = 32;

/// The prefetch pipeline of a batched read over `nodes`, a window of [`EXPAND_WINDOW`] nodes
/// at a time (see [`Transaction::expand_batch`]).
struct Ahead<'a> {
    table: &'a Table<NodeRec>,
    nodes: &'a [NodeId],
    /// The blocks of the window being fetched: address and length, read under each node's
    /// lock and prefetched after it is let go.
    blocks: [(usize, usize); EXPAND_WINDOW],
}

impl<'a> Ahead<'a> {
    /// Starts the pipeline: the first window's groups, then its blocks, then the second
    /// window's groups.
    fn new(table: &'a Table<NodeRec>, nodes: &'a [NodeId]) -> Self {
        let mut ahead = Ahead {
            table,
            nodes,
            blocks: [(0, 0); EXPAND_WINDOW],
        };
        ahead.groups(0);
        ahead.blocks(0);
        ahead.groups(1);
        ahead
    }

    /// Node `i` is about to be read. At the start of a window, asks for the next window's
    /// blocks (its groups arrived while this one's were fetched) and the groups of the one
    /// after.
    #[inline]
    fn advance(&mut self, i: usize) {
        if i.is_multiple_of(EXPAND_WINDOW) {
            let w = i / EXPAND_WINDOW;
            self.blocks(w + 1);
            self.groups(w + 2);
        }
    }

    fn window(&self, w: usize) -> &'a [NodeId] {
        let from = (w * EXPAND_WINDOW).min(self.nodes.len());
        let to = (from + EXPAND_WINDOW).min(self.nodes.len());
        self.nodes.get(from..to).unwrap_or_default()
    }

    /// Prefetches the groups of window `w`, by address: no lock, no wait.
    fn groups(&self, w: usize) {
        for n in self.window(w) {
            if let Some(slot) = self.table.get(n.0) {
                slot.prefetch();
            }
        }
    }

    /// Reads the block addresses of window `w`, each under its node's lock, then prefetches
    /// them all with no lock between: a lock waits for the prefetches before it to be
    /// issued (and, with small pages, for their page walks), so the walks of one window run
    /// together instead of one per lock.
    fn blocks(&mut self, w: usize) {
        let window = self.window(w);
        for (span, n) in self.blocks.iter_mut().zip(window) {
            *span = self
                .table
                .get(n.0)
                .map_or((0, 0), |slot| slot.lock().block_span());
        }
        for &(at, len) in self.blocks.iter().take(window.len()) {
            prefetch::span(at, len);
        }
    }
}

fn dedup_types(types: &[RelTypeId]) -> SmallVec<[u32; 4]> {
    let mut out: SmallVec<[u32; 4]> = SmallVec::new();
    for t in types {
        if !out.contains(&t.0) {
            out.push(t.0);
        }
    }
    out
}

impl Transaction {
    pub fn node_exists(&self, node: NodeId) -> Result<bool> {
        let nodes = &self.inner.storage.nodes;
        self.exists(nodes, node.0, restriction::node_visible, read::node_exists)
    }

    pub fn node_labels(&self, node: NodeId) -> Result<SmallVec<[LabelId; 4]>> {
        let view = self.inner.active_view()?;
        let slot = self.inner.node_slot(node.0)?;
        let labels = read::node_labels(&slot.lock(), &view)?;
        labels
            .map(|ls| ls.into_iter().map(LabelId).collect())
            .ok_or_else(|| Error::node_not_found(node.0))
    }

    pub fn node_has_label(&self, node: NodeId, label: LabelId) -> Result<bool> {
        let view = self.inner.active_view()?;
        let slot = self.inner.node_slot(node.0)?;
        let has = read::node_has_label(&slot.lock(), &view, label.0)?;
        has.ok_or_else(|| Error::node_not_found(node.0))
    }

    pub fn node_property(&self, node: NodeId, key: PropKeyId) -> Result<Option<Value>> {
        let view = self.inner.active_view()?;
        let g = self.inner.node_slot(node.0)?.lock();
        if let Some(r) = &self.restriction
            && let Some(labels) = read::node_labels(&g, &view)?
            && !r.node_key_readable(&labels, key.0, &|k| {
                restriction::locked_node_property(&g, &view, k)
            })
        {
            return Ok(None);
        }
        read::node_prop(&g, &view, key.0)?.ok_or_else(|| Error::node_not_found(node.0))
    }

    pub fn node_properties(&self, node: NodeId) -> Result<Vec<(PropKeyId, Value)>> {
        let view = self.inner.active_view()?;
        let g = self.inner.node_slot(node.0)?.lock();
        let mut props =
            read::node_props(&g, &view)?.ok_or_else(|| Error::node_not_found(node.0))?;
        if let Some(r) = &self.restriction {
            let labels = read::node_labels(&g, &view)?.unwrap_or_default();
            let property = |k| restriction::locked_node_property(&g, &view, k);
            props.retain(|(k, _)| r.node_key_readable(&labels, *k, &property));
        }
        Ok(props.into_iter().map(|(k, v)| (PropKeyId(k), v)).collect())
    }

    pub fn rel_exists(&self, rel: RelId) -> Result<bool> {
        let rels = &self.inner.storage.rels;
        self.exists(rels, rel.0, restriction::rel_visible, read::rel_exists)
    }

    /// Whether entity `id` of `table` exists at this transaction's view: as the restriction
    /// lets it be seen (`visible`) where one applies, else as its record says (`exists`).
    fn exists<R: Grouped>(
        &self,
        table: &Table<R>,
        id: u64,
        visible: impl FnOnce(&Storage, &View, &dyn ReadRestriction, u64) -> Result<bool>,
        exists: impl FnOnce(&Locked<'_, R>, &View) -> bool,
    ) -> Result<bool> {
        let view = self.inner.active_view()?;
        if let Some(r) = &self.restriction {
            return visible(&self.inner.storage, &view, r.as_ref(), id);
        }
        Ok(table.get(id).is_some_and(|s| exists(&s.lock(), &view)))
    }

    /// Start node, end node and type.
    pub fn rel_endpoints(&self, rel: RelId) -> Result<(NodeId, NodeId, RelTypeId)> {
        let view = self.inner.active_view()?;
        let slot = self.inner.rel_slot(rel.0)?;
        let (start, ty) = {
            let g = slot.lock();
            if !read::rel_exists(&g, &view) {
                return Err(Error::rel_not_found(rel.0));
            }
            (g.start(), g.ty())
        };
        let end = self
            .inner
            .storage
            .rel_end(start, rel.0, ty)
            .ok_or_else(|| Error::rel_not_found(rel.0))?;
        Ok((NodeId(start), NodeId(end), RelTypeId(ty)))
    }

    pub fn rel_type(&self, rel: RelId) -> Result<RelTypeId> {
        Ok(self.rel_endpoints(rel)?.2)
    }

    pub fn rel_property(&self, rel: RelId, key: PropKeyId) -> Result<Option<Value>> {
        let view = self.inner.active_view()?;
        let g = self.inner.rel_slot(rel.0)?.lock();
        if let Some(r) = &self.restriction
            && !r.rel_key_readable(g.ty(), key.0)
        {
            return Ok(None);
        }
        read::rel_prop(&g, &view, key.0)?.ok_or_else(|| Error::rel_not_found(rel.0))
    }

    pub fn rel_properties(&self, rel: RelId) -> Result<Vec<(PropKeyId, Value)>> {
        let view = self.inner.active_view()?;
        let g = self.inner.rel_slot(rel.0)?.lock();
        let mut props = read::rel_props(&g, &view)?.ok_or_else(|| Error::rel_not_found(rel.0))?;
        if let Some(r) = &self.restriction {
            let ty = g.ty();
            props.retain(|(k, _)| r.rel_key_readable(ty, *k));
        }
        Ok(props.into_iter().map(|(k, v)| (PropKeyId(k), v)).collect())
    }

    /// The node's relationships in `dir` of `types` (empty = all) as (relationship, neighbour)
    /// pairs. Costs O(log degree + matching degree).
    pub fn expand(
        &self,
        node: NodeId,
        dir: Direction,
        types: &[RelTypeId],
    ) -> Result<Vec<(RelId, NodeId)>> {
        let mut out = Vec::new();
        self.expand_into(node, dir, types, &mut out)?;
        Ok(out)
    }

    /// As [`Transaction::expand`], appending to a buffer the caller reuses.
    pub fn expand_into(
        &self,
        node: NodeId,
        dir: Direction,
        types: &[RelTypeId],
        out: &mut Vec<(RelId, NodeId)>,
    ) -> Result<()> {
        let view = self.inner.active_view()?;
        let types = dedup_types(types);
        let slot = self.inner.node_slot(node.0)?;
        let from = out.len();
        if !read::node_expand(&slot.lock(), node.0, &view, dir, &types, out) {
            return Err(Error::node_not_found(node.0));
        }
        if let Some(r) = &self.restriction {
            let storage = &self.inner.storage;
            let mut kept = from;
            for i in from..out.len() {
                let (rel, neighbour) = out[i];
                if restriction::step_visible(storage, &view, r.as_ref(), rel.0, neighbour.0)? {
                    out[kept] = out[i];
                    kept += 1;
                }
            }
            out.truncate(kept);
        }
        Ok(())
    }

    /// Expands many nodes at once, appending `(index into nodes, relationship, neighbour)`.
    ///
    /// An expand's time is its cache misses: the node's group (lock and record share one),
    /// then its block. A lock is a full fence, so one-by-one expands take them in series.
    /// A batch is a pipeline instead, a window of [`EXPAND_WINDOW`] nodes at a time: while it
    /// reads one window, it has asked for the next window's blocks (addresses read under the
    /// nodes' locks, then prefetched) and the groups of the one after (prefetched by address,
    /// no lock). Prefetches issued together overlap; a lock does not wait for their data, only
    /// for them to be issued. Entries go straight
    /// into `out`, with no buffer per node and one check of the transaction per batch.
    /// Fails on the first node that does not exist.
    pub fn expand_batch(
        &self,
        nodes: &[NodeId],
        dir: Direction,
        types: &[RelTypeId],
        out: &mut Vec<(u32, RelId, NodeId)>,
    ) -> Result<()> {
        let view = self.inner.active_view()?;
        let types = dedup_types(types);
        let storage = &self.inner.storage;
        let from = out.len();
        let mut ahead = Ahead::new(&storage.nodes, nodes);
        for (i, n) in nodes.iter().enumerate() {
            ahead.advance(i);
            let slot = self.inner.node_slot(n.0)?;
            let i = i as u32;
            let g = slot.lock();
            if !read::node_expand_as(&g, n.0, &view, dir, &types, out, |r, m| (i, r, m)) {
                return Err(Error::node_not_found(n.0));
            }
        }
        if let Some(r) = &self.restriction {
            let mut kept = from;
            for i in from..out.len() {
                let (_, rel, neighbour) = out[i];
                if restriction::step_visible(storage, &view, r.as_ref(), rel.0, neighbour.0)? {
                    out[kept] = out[i];
                    kept += 1;
                }
            }
            out.truncate(kept);
        }
        Ok(())
    }

    /// As [`Transaction::expand_batch`], keeping only the relationships whose property passes
    /// `test`, each property as this transaction's view sees it.
    ///
    /// The properties are read after the batch's expand, in the order of `out`: a run of
    /// relationships in one group of records (a node's edges created together) is read under
    /// one lock, the records of the next [`RELS_AHEAD`] entries are prefetched, and a relationship with
    /// no change the view must undo is tested on its stored bytes in place. Returns how many
    /// relationships were tested (what the expand alone would have appended).
    pub fn expand_batch_where(
        &self,
        nodes: &[NodeId],
        dir: Direction,
        types: &[RelTypeId],
        test: &PropTest,
        out: &mut Vec<(u32, RelId, NodeId)>,
    ) -> Result<usize> {
        let from = out.len();
        self.expand_batch(nodes, dir, types, out)?;
        let tested = out.len() - from;
        let mut kept = from;
        if self.restriction.is_some() {
            // Each property through the restriction's check that its key may be read.
            for i in from..out.len() {
                let value = self.rel_property(out[i].1, test.key)?;
                if test.keeps(value.as_ref()) {
                    out[kept] = out[i];
                    kept += 1;
                }
            }
            out.truncate(kept);
            return Ok(tested);
        }
        let view = self.inner.active_view()?;
        let rels = &self.inner.storage.rels;
        // Records are asked for a window of entries at a time, with no lock between the
        // prefetches (see `Ahead::blocks`); a run of entries in one group asks for the
        // group's lines once.
        let mut ahead_group = 0;
        let mut prefetch = |window: &[(u32, RelId, NodeId)]| {
            for e in window {
                if let Some(slot) = rels.get(e.1.0) {
                    if slot.group_addr() == ahead_group {
                        slot.prefetch_record();
                    } else {
                        ahead_group = slot.group_addr();
                        slot.prefetch();
                    }
                }
            }
        };
        // Entries are only moved down (kept below `i`), so the length holds during the loop.
        let end = out.len();
        let window = |w: usize| {
            let at = (from + w * RELS_AHEAD).min(end);
            at..(at + RELS_AHEAD).min(end)
        };
        prefetch(&out[window(0)]);
        let mut held = None;
        for i in from..end {
            if (i - from).is_multiple_of(RELS_AHEAD) {
                prefetch(&out[window((i - from) / RELS_AHEAD + 1)]);
            }
            let slot = self.inner.rel_slot(out[i].1.0)?;
            if read::rel_prop_test(slot.lock_into(&mut held), &view, test)? {
                out[kept] = out[i];
                kept += 1;
            }
        }
        drop(held);
        out.truncate(kept);
        Ok(tested)
    }

    /// The number of relationships [`Transaction::expand`] would return.
    pub fn degree(&self, node: NodeId, dir: Direction, types: &[RelTypeId]) -> Result<usize> {
        if self.restriction.is_some() {
            return Ok(self.expand(node, dir, types)?.len());
        }
        let view = self.inner.active_view()?;
        let types = dedup_types(types);
        let slot = self.inner.node_slot(node.0)?;
        read::node_degree(&slot.lock(), node.0, &view, dir, &types)
            .ok_or_else(|| Error::node_not_found(node.0))
    }

    /// Brings the records of `nodes` toward the processor before they are read one by one:
    /// each run of nodes of one group of records under one lock (`Slot::lock_into`), the
    /// first byte of each record read with no lock in between, so that the memory system
    /// fetches the records of a group together instead of one after another (a lock is a
    /// full fence). Reads nothing a caller sees and changes nothing; nodes that do not exist
    /// are passed over. Worth it before reading many nodes in id order (their degrees, say).
    pub fn touch_nodes(&self, nodes: &[NodeId]) {
        let table = &self.inner.storage.nodes;
        let mut held = None;
        let mut warm = 0u8;
        for node in nodes {
            if let Some(slot) = table.get(node.0) {
                warm ^= slot.lock_into(&mut held).first_byte();
            }
        }
        std::hint::black_box(warm);
    }

    /// The number of relationships [`Transaction::expand`] would return whose neighbour
    /// `keep` keeps: a degree over the neighbours a test selects, without building the list.
    pub fn count_neighbours(
        &self,
        node: NodeId,
        dir: Direction,
        types: &[RelTypeId],
        mut keep: impl FnMut(NodeId) -> bool,
    ) -> Result<usize> {
        if self.restriction.is_some() {
            let out = self.expand(node, dir, types)?;
            return Ok(out.iter().filter(|(_, n)| keep(*n)).count());
        }
        let view = self.inner.active_view()?;
        let types = dedup_types(types);
        let slot = self.inner.node_slot(node.0)?;
        read::node_count_neighbours(&slot.lock(), node.0, &view, dir, &types, keep)
            .ok_or_else(|| Error::node_not_found(node.0))
    }

    /// The number of relationships of `types` (all when empty) from `node` to itself that
    /// [`Transaction::expand`] would return: what a degree counts twice, once each way.
    pub fn self_loops(&self, node: NodeId, types: &[RelTypeId]) -> Result<usize> {
        self.count_neighbours(node, Direction::Out, types, |n| n == node)
    }

    fn count(&self, key: CountKey) -> Result<u64> {
        if self.restriction.is_some() {
            return self.count_visible(key);
        }
        let view = self.inner.active_view()?;
        let committed = self.inner.storage.counts.get(key, view.snapshot);
        let own = self.inner.state.lock().counts.before(key, view.command);
        Ok(u64::try_from(committed + own).unwrap_or(0))
    }

    /// What `key` counts, counted entity by entity through this handle's restriction.
    fn count_visible(&self, key: CountKey) -> Result<u64> {
        let mut n = 0u64;
        match key {
            CountKey::Nodes => {
                for id in self.scan_nodes()? {
                    id?;
                    n += 1;
                }
            }
            CountKey::Label(label) => {
                for id in self.scan_label(LabelId(label))? {
                    id?;
                    n += 1;
                }
            }
            CountKey::Rels => {
                for id in self.scan_rels(&[])? {
                    id?;
                    n += 1;
                }
            }
            CountKey::Type(ty) => {
                for id in self.scan_rels(&[RelTypeId(ty)])? {
                    id?;
                    n += 1;
                }
            }
            CountKey::LabelType { label, ty, out } => {
                let dir = if out { Direction::Out } else { Direction::In };
                for id in self.scan_label(LabelId(label))? {
                    n += self.degree(id?, dir, &[RelTypeId(ty)])? as u64;
                }
            }
            CountKey::SelfLoops(ty) => {
                for id in self.scan_nodes()? {
                    n += self.self_loops(id?, &[RelTypeId(ty)])? as u64;
                }
            }
        }
        Ok(n)
    }

    /// `count(n)` in O(1).
    pub fn count_nodes(&self) -> Result<u64> {
        self.count(CountKey::Nodes)
    }

    /// `count(n:Label)` in O(1).
    pub fn count_label(&self, label: LabelId) -> Result<u64> {
        self.count(CountKey::Label(label.0))
    }

    pub fn count_rels(&self) -> Result<u64> {
        self.count(CountKey::Rels)
    }

    pub fn count_rels_of_type(&self, rel_type: RelTypeId) -> Result<u64> {
        self.count(CountKey::Type(rel_type.0))
    }

    /// The relationships of `rel_type` whose start (`Direction::Out`) or end
    /// (`Direction::In`) carries `label`, in O(1): Neo4j's `(:L)-[:T]->()` and
    /// `()-[:T]->(:L)` counts. `Direction::Both` counts each end that carries it.
    pub fn count_rels_by_label(
        &self,
        label: LabelId,
        rel_type: RelTypeId,
        dir: Direction,
    ) -> Result<u64> {
        let at = |out| {
            self.count(CountKey::LabelType {
                label: label.0,
                ty: rel_type.0,
                out,
            })
        };
        Ok(match dir {
            Direction::Out => at(true)?,
            Direction::In => at(false)?,
            Direction::Both => at(true)? + at(false)?,
        })
    }

    /// The relationships of `rel_type` from a node to itself, in O(1).
    pub fn count_self_loops(&self, rel_type: RelTypeId) -> Result<u64> {
        self.count(CountKey::SelfLoops(rel_type.0))
    }

    /// A cursor over the nodes `source` yields, as this transaction sees them.
    fn node_cursor(&self, source: NodeSource) -> NodeCursor {
        NodeCursor::new(self.inner.clone(), self.restriction.clone(), source)
    }

    /// Every node, in id order.
    pub fn scan_nodes(&self) -> Result<NodeCursor> {
        self.inner.check_active()?;
        Ok(self.node_cursor(NodeSource::All {
            next: 0,
            end: u64::MAX,
        }))
    }

    /// Nodes with ids in `ids`, in id order: one morsel of a scan that several workers share
    /// by id range.
    pub fn scan_nodes_in(&self, ids: std::ops::Range<u64>) -> Result<NodeCursor> {
        self.inner.check_active()?;
        Ok(self.node_cursor(NodeSource::All {
            next: ids.start,
            end: ids.end,
        }))
    }

    /// Nodes with a label and ids in `ids`, in id order (a morsel of a label's scan).
    pub fn scan_label_in(&self, label: LabelId, ids: std::ops::Range<u64>) -> Result<NodeCursor> {
        self.inner.check_active()?;
        Ok(self.node_cursor(NodeSource::Label {
            label: label.0,
            next: Some(ids.start),
            end: ids.end,
        }))
    }

    /// One past the highest node id ever given out: every node this transaction can see
    /// has an id below it (the bound of [`Transaction::scan_nodes_in`]'s ranges).
    pub fn node_id_bound(&self) -> u64 {
        self.inner
            .storage
            .next_node
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Nodes with a label, in id order.
    pub fn scan_label(&self, label: LabelId) -> Result<NodeCursor> {
        self.inner.check_active()?;
        Ok(self.node_cursor(NodeSource::Label {
            label: label.0,
            next: Some(0),
            end: u64::MAX,
        }))
    }

    /// Nodes with ids above `after`, in id order: resumes a scan by position, for callers
    /// that page through results without keeping a cursor.
    pub fn scan_nodes_after(&self, after: NodeId) -> Result<NodeCursor> {
        self.inner.check_active()?;
        Ok(self.node_cursor(NodeSource::All {
            next: after.0.saturating_add(1),
            end: u64::MAX,
        }))
    }

    /// Nodes with a label and ids above `after`, in id order.
    pub fn scan_label_after(&self, label: LabelId, after: NodeId) -> Result<NodeCursor> {
        self.inner.check_active()?;
        Ok(self.node_cursor(NodeSource::Label {
            label: label.0,
            next: after.0.checked_add(1),
            end: u64::MAX,
        }))
    }

    /// Every relationship (of `types`, empty = all), in id order.
    pub fn scan_rels(&self, types: &[RelTypeId]) -> Result<RelCursor> {
        self.inner.check_active()?;
        Ok(RelCursor::new(
            self.inner.clone(),
            self.restriction.clone(),
            dedup_types(types).to_vec(),
        ))
    }

    /// Whether an online index serves `(:label).key`.
    pub fn has_index(&self, label: LabelId, key: PropKeyId) -> bool {
        self.has_schema_index(false, label.0, &[key.0])
    }

    /// Whether an online range index (or constraint) serves exactly `keys`, in that order, of
    /// the nodes of label `token` or the relationships of type `token`.
    pub fn has_schema_index(&self, relationship: bool, token: u32, keys: &[u32]) -> bool {
        self.inner
            .storage
            .schema()
            .find(relationship, token, keys)
            .is_some()
    }

    /// Whether an online index over exactly `keys` of `token` (as in
    /// [`Transaction::has_schema_index`]) serves `query`: a range index or constraint, or a
    /// text or point index for what it holds (see [`crate::IndexKind::serves`]).
    pub fn has_index_for(
        &self,
        relationship: bool,
        token: u32,
        keys: &[u32],
        query: &CompositeQuery,
    ) -> bool {
        self.inner
            .storage
            .schema()
            .find_for(relationship, token, keys, query)
            .is_some()
    }

    /// Nodes with `label` whose `key` satisfies `query`, through the index on `(label, key)`.
    pub fn index_seek(
        &self,
        label: LabelId,
        key: PropKeyId,
        query: IndexQuery,
    ) -> Result<NodeCursor> {
        let query = CompositeQuery {
            prefix: Vec::new(),
            last: query,
        };
        self.node_index_seek(label.0, &[key.0], query)
    }

    /// The index a seek for `query` goes through, its read counted.
    fn seek_def(
        &self,
        relationship: bool,
        token: u32,
        keys: &[u32],
        query: &CompositeQuery,
    ) -> Result<std::sync::Arc<crate::schema::IndexDef>> {
        self.inner.check_active()?;
        let schema = self.inner.storage.schema();
        if let Some(def) = schema.find_for(relationship, token, keys, query) {
            def.reads.record();
            return Ok(def.clone());
        }
        let s = &self.inner.storage;
        let token = if relationship {
            s.types.name(token)
        } else {
            s.labels.name(token)
        };
        Err(Error::IndexNotFound {
            label: token.map(|n| n.to_string()).unwrap_or_default(),
            key: keys
                .iter()
                .map(|k| s.keys.name(*k).map(|n| n.to_string()).unwrap_or_default())
                .collect::<Vec<_>>()
                .join(", "),
        })
    }

    /// Nodes with label `label` whose `keys` satisfy `query` (equal to its prefix on the
    /// leading keys, its last query on the last), through the index over exactly those keys that suits it
    /// best (a range index, or a text or point index for what it serves; see
    /// [`crate::IndexKind::serves`]).
    pub fn node_index_seek(
        &self,
        label: u32,
        keys: &[u32],
        query: CompositeQuery,
    ) -> Result<NodeCursor> {
        let def = self.seek_def(false, label, keys, &query)?;
        Ok(self.node_cursor(NodeSource::Index(IndexScan::new(def, query))))
    }

    /// Relationships of type `rel_type` whose `keys` satisfy `query`, through the index on
    /// exactly those keys.
    pub fn rel_index_seek(
        &self,
        rel_type: u32,
        keys: &[u32],
        query: CompositeQuery,
    ) -> Result<RelCursor> {
        let def = self.seek_def(true, rel_type, keys, &query)?;
        Ok(RelCursor::seek(
            self.inner.clone(),
            self.restriction.clone(),
            IndexScan::new(def, query),
        ))
    }

    /// The whole graph at this transaction's snapshot, as redo ops (for snapshot files).
    pub fn export(&self) -> Result<ExportCursor> {
        self.inner.check_active()?;
        Ok(ExportCursor::new(self.inner.clone()))
    }

    /// The nodes with ids in `range` at this transaction's snapshot, as `CreateNode` ops: one
    /// part of [`Transaction::export`], for exporting with several threads.
    pub fn export_nodes(&self, range: std::ops::Range<u64>) -> Result<ExportCursor> {
        self.inner.check_active()?;
        Ok(ExportCursor::range(self.inner.clone(), true, range))
    }

    /// The relationships with ids in `range`, as `CreateRelationship` ops (see
    /// [`Transaction::export_nodes`]).
    pub fn export_relationships(&self, range: std::ops::Range<u64>) -> Result<ExportCursor> {
        self.inner.check_active()?;
        Ok(ExportCursor::range(self.inner.clone(), false, range))
    }

    /// One past the highest node id and relationship id handed out: the ranges
    /// [`Transaction::export_nodes`] and [`Transaction::export_relationships`] divide.
    pub fn id_bounds(&self) -> (u64, u64) {
        let s = &self.inner.storage;
        (
            s.next_node.load(std::sync::atomic::Ordering::Acquire),
            s.next_rel.load(std::sync::atomic::Ordering::Acquire),
        )
    }

    /// A node value with labels and properties filled in, ready to leave the server.
    pub fn materialize_node(&self, node: NodeId) -> Result<Node> {
        let storage = &self.inner.storage;
        let labels = self
            .node_labels(node)?
            .iter()
            .map(|l| storage.labels.name_or_err(l.0))
            .collect::<Result<Vec<Arc<str>>>>()?;
        let mut properties = Map::new();
        for (k, v) in self.node_properties(node)? {
            properties.insert(storage.keys.name_or_err(k.0)?, v);
        }
        Ok(Node {
            id: node.0,
            data: Some(Arc::new(NodeData { labels, properties })),
        })
    }

    /// A relationship value with type, endpoints and properties filled in.
    pub fn materialize_rel(&self, rel: RelId) -> Result<Relationship> {
        let storage = &self.inner.storage;
        let (start, end, ty) = self.rel_endpoints(rel)?;
        let mut properties = Map::new();
        for (k, v) in self.rel_properties(rel)? {
            properties.insert(storage.keys.name_or_err(k.0)?, v);
        }
        Ok(Relationship {
            id: rel.0,
            data: Some(Arc::new(RelData {
                start: start.0,
                end: end.0,
                rel_type: storage.types.name_or_err(ty.0)?,
                properties,
                ends: None,
            })),
        })
    }
}
