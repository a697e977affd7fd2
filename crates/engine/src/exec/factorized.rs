//! `FactorizedCount`: the number of paths of a chain of expansions, computed per node.
//!
//! Two hops `(a)-[r1]-(b)-[r2]-(c)` are a sum over middle nodes `b` of (qualifying hops into
//! `b`) × (qualifying hops out of `b`), less the pairs where both hops are one relationship
//! when the pattern forbids that: the relationships found on both of `b`'s lists (a self-loop
//! for `->` `->`, any relationship into `b` for `->` `<-`), counted as often as the two lists
//! hold them. Other lengths carry a count of paths per node from one hop to the next (the
//! planner takes them only when no two hops can meet on one relationship).
//!
//! Everything is read through the transaction's own adjacency and property reads, so the
//! count is what the row-at-a-time plan would count in the same transaction. A node's
//! predicate is evaluated once per node and remembered.

use std::collections::hash_map::Entry;
use std::sync::Arc;

use quiver_storage::{Direction, NodeId, RelId, RelTypeId};
use quiver_value::Value;
use rustc_hash::FxHashMap;

use super::expand::resolve_types;
use super::{BoxCursor, Cursor, Cx};
use crate::error::Result;
use crate::eval::graph_fns::node_value;
use crate::eval::truthy;
use crate::ir::{ChainCountSpec, Row};

/// Bytes a remembered predicate answer or a per-node path count is counted as holding
/// (hash map entry and its share of empty buckets).
const ENTRY_BYTES: usize = 32;

/// An end whose predicate keeps at most one node in this many seeds the middle nodes from
/// its neighbours instead of visiting every node.
const SEED_FRACTION: usize = 16;

pub(crate) struct FactorizedCount {
    spec: Arc<ChainCountSpec>,
    input: BoxCursor,
}

impl FactorizedCount {
    pub fn new(spec: Arc<ChainCountSpec>, input: BoxCursor) -> Self {
        FactorizedCount { spec, input }
    }
}

impl Cursor for FactorizedCount {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        if !self.input.next(cx, row)? {
            return Ok(false);
        }
        let mut run = Run::new(&self.spec);
        let counted = run.count(cx, row);
        cx.release(run.held);
        let n = counted?;
        row[self.spec.out] = Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
        Ok(true)
    }

    fn reset(&mut self) {
        self.input.reset();
    }
}

/// One evaluation of the count: the remembered predicate answers and the bytes they hold.
struct Run<'s> {
    spec: &'s ChainCountSpec,
    /// Per chain node: whether each node seen so far satisfies its predicate.
    passes: Vec<FxHashMap<u64, bool>>,
    held: usize,
    buf: Vec<(RelId, NodeId)>,
}

impl<'s> Run<'s> {
    fn new(spec: &'s ChainCountSpec) -> Self {
        Run {
            spec,
            passes: vec![FxHashMap::default(); spec.nodes.len()],
            held: 0,
            buf: Vec::new(),
        }
    }

    fn hold(&mut self, cx: &mut Cx, bytes: usize) -> Result<()> {
        cx.reserve(bytes, "a factorized count's per-node state")?;
        self.held += bytes;
        Ok(())
    }

    /// Whether `node` satisfies the predicate of chain node `at`.
    fn passes(&mut self, cx: &mut Cx, row: &mut Row, at: usize, node: NodeId) -> Result<bool> {
        let Some(chain_node) = self.spec.nodes.get(at) else {
            return Ok(false);
        };
        let Some(predicate) = &chain_node.predicate else {
            return Ok(true);
        };
        if let Some(known) = self.passes[at].get(&node.0) {
            return Ok(*known);
        }
        row[chain_node.slot] = node_value(node);
        let pass = truthy(&predicate.eval(row, cx)?)?;
        self.passes[at].insert(node.0, pass);
        self.hold(cx, ENTRY_BYTES)?;
        Ok(pass)
    }

    /// The relationships of `node` in `dir` of `types` into `buf`, counted as db hits.
    fn expand(
        &mut self,
        cx: &mut Cx,
        node: NodeId,
        dir: Direction,
        types: &[RelTypeId],
    ) -> Result<()> {
        self.buf.clear();
        cx.tx.expand_into(node, dir, types, &mut self.buf)?;
        cx.db_hits += self.buf.len() as u64 + 1;
        Ok(())
    }

    fn count(&mut self, cx: &mut Cx, row: &mut Row) -> Result<u128> {
        let mut types = Vec::with_capacity(self.spec.hops.len());
        for hop in &self.spec.hops {
            let mut resolved = Vec::new();
            if resolve_types(&hop.types, cx, &mut resolved).is_none() {
                return Ok(0);
            }
            types.push(resolved);
        }
        if self.spec.hops.len() == 2 {
            self.two_hops(cx, row, &types)
        } else {
            self.hop_by_hop(cx, row, &types)
        }
    }

    /// Σ over middle nodes of (in × out − shared relationships).
    fn two_hops(&mut self, cx: &mut Cx, row: &mut Row, types: &[Vec<RelTypeId>]) -> Result<u128> {
        let spec = self.spec;
        let (first, second) = (&spec.hops[0], &spec.hops[1]);
        let (back, forth) = (reversed(first.dir), second.dir);
        let unique = second.distinct_from_previous;
        let mut total: u128 = 0;
        let mut shared_rels: Vec<u64> = Vec::new();
        for middle in self.middles(cx, row, types)? {
            cx.tick()?;
            if !self.passes(cx, row, 1, middle)? {
                continue;
            }
            self.expand(cx, middle, back, &types[0])?;
            shared_rels.clear();
            let mut ins: u128 = 0;
            for i in 0..self.buf.len() {
                let (rel, end) = self.buf[i];
                if self.passes(cx, row, 0, end)? {
                    ins += 1;
                    if unique {
                        shared_rels.push(rel.0);
                    }
                }
            }
            if ins == 0 {
                continue;
            }
            shared_rels.sort_unstable();
            self.expand(cx, middle, forth, &types[1])?;
            let (mut outs, mut shared): (u128, u128) = (0, 0);
            for i in 0..self.buf.len() {
                let (rel, end) = self.buf[i];
                if self.passes(cx, row, 2, end)? {
                    outs += 1;
                    if unique {
                        let lo = shared_rels.partition_point(|r| *r < rel.0);
                        let hi = shared_rels.partition_point(|r| *r <= rel.0);
                        shared += (hi - lo) as u128;
                    }
                }
            }
            total += ins * outs - shared;
        }
        Ok(total)
    }

    /// The middle nodes worth visiting: all of them, or, when an end's predicate keeps few
    /// nodes (a lookup), only the neighbours of the nodes it keeps, so a count from one
    /// person walks that person's neighbourhood rather than the graph.
    fn middles(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        types: &[Vec<RelTypeId>],
    ) -> Result<Vec<NodeId>> {
        let spec = self.spec;
        let mut all = Vec::new();
        for node in cx.tx.scan_nodes()? {
            all.push(node?);
            cx.tick()?;
        }
        self.hold(cx, std::mem::size_of_val(all.as_slice()))?;
        for (end, toward) in [(0, spec.hops[0].dir), (2, reversed(spec.hops[1].dir))] {
            if spec.nodes[end].predicate.is_none() {
                continue;
            }
            let mut kept = Vec::new();
            for &node in &all {
                cx.tick()?;
                if self.passes(cx, row, end, node)? {
                    kept.push(node);
                    if kept.len() > all.len() / SEED_FRACTION {
                        break;
                    }
                }
            }
            if kept.len() > all.len() / SEED_FRACTION {
                continue;
            }
            let hop = if end == 0 { 0 } else { 1 };
            let mut middles = Vec::new();
            for node in kept {
                self.expand(cx, node, toward, &types[hop])?;
                middles.extend(self.buf.iter().map(|(_, m)| *m));
            }
            middles.sort_unstable_by_key(|m| m.0);
            middles.dedup();
            self.hold(cx, std::mem::size_of_val(middles.as_slice()))?;
            return Ok(middles);
        }
        Ok(all)
    }

    /// Path counts per node, carried from the first node to the last one hop at a time.
    fn hop_by_hop(&mut self, cx: &mut Cx, row: &mut Row, types: &[Vec<RelTypeId>]) -> Result<u128> {
        let mut paths: FxHashMap<u64, u128> = FxHashMap::default();
        let mut paths_bytes = 0;
        for node in cx.tx.scan_nodes()? {
            let node = node?;
            cx.tick()?;
            if self.passes(cx, row, 0, node)? {
                paths.insert(node.0, 1);
                paths_bytes += ENTRY_BYTES;
                self.hold(cx, ENTRY_BYTES)?;
            }
        }
        let spec = self.spec;
        for (i, hop) in spec.hops.iter().enumerate() {
            let mut next: FxHashMap<u64, u128> = FxHashMap::default();
            let mut next_bytes = 0;
            for (&node, &n) in &paths {
                cx.tick()?;
                self.expand(cx, NodeId(node), hop.dir, &types[i])?;
                for j in 0..self.buf.len() {
                    let end = self.buf[j].1;
                    if !self.passes(cx, row, i + 1, end)? {
                        continue;
                    }
                    match next.entry(end.0) {
                        Entry::Occupied(mut e) => *e.get_mut() += n,
                        Entry::Vacant(e) => {
                            e.insert(n);
                            next_bytes += ENTRY_BYTES;
                            self.hold(cx, ENTRY_BYTES)?;
                        }
                    }
                }
            }
            cx.release(paths_bytes);
            self.held -= paths_bytes;
            paths = next;
            paths_bytes = next_bytes;
        }
        Ok(paths.values().sum())
    }
}

fn reversed(dir: Direction) -> Direction {
    match dir {
        Direction::Out => Direction::In,
        Direction::In => Direction::Out,
        Direction::Both => Direction::Both,
    }
}
