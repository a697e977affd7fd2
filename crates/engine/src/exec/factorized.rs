//! `FactorizedCount`: the number of paths of a chain of expansions, computed per node.
//!
//! Two hops `(a)-[r1]-(b)-[r2]-(c)` are a sum over middle nodes `b` of (qualifying hops into
//! `b`) × (qualifying hops out of `b`), less the pairs where both hops are one relationship
//! when the pattern forbids that: the relationships found on both of `b`'s lists (a self-loop
//! for `->` `->`, any relationship into `b` for `->` `<-`), counted as often as the two lists
//! hold them. Other lengths carry a count of paths per node from one hop to the next (the
//! planner takes them only when no two hops can meet on one relationship). Grouped by keys
//! on one chain node, the count of each node there is the paths carried to it from the first
//! node times those carried to it back from the last (for two hops grouped at the middle,
//! the middle's own corrected product), and the nodes' counts are summed per key.
//!
//! A variable-length hop carries the counts one relationship at a time through nodes nothing
//! is asked of, adding up each length it allows. Where relationships that must differ could
//! be one (longer chains, variable-length hops), the planner lists the ways they could meet
//! as chain nodes they would make one node; before counting, each must be ruled out by two of
//! those nodes' labels that no node carries together, or the row-at-a-time plan counts
//! instead.
//!
//! Everything is read through the transaction's own adjacency and property reads, so the
//! count is what the row-at-a-time plan would count in the same transaction. A node's
//! predicate is evaluated once per node and remembered.

use std::ops::Range;
use std::sync::Arc;

use quiver_storage::{Direction, LabelId, NodeId, RelId, RelTypeId};
use quiver_value::{HashKey, Value};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::expand::resolve_types;
use super::parallel::{self, Chunks};
use super::{BoxCursor, Cursor, Cx};
use crate::error::Result;
use crate::eval::graph_fns::node_value;
use crate::eval::{PropertyTest, truthy, value_bytes};
use crate::ir::{ChainCountSpec, Expr, PlanNode, Row};

/// Bytes a remembered predicate answer or a per-node path count is counted as holding
/// (hash map entry and its share of empty buckets).
const ENTRY_BYTES: usize = 32;

/// Node ids remembered densely beyond twice the node count (ids of deleted nodes leave gaps).
const DENSE_SLACK: u64 = 1024;

/// An end whose predicate keeps at most one node in this many seeds the middle nodes from
/// its neighbours instead of visiting every node.
const SEED_FRACTION: usize = 16;

pub(crate) struct FactorizedCount {
    spec: Arc<ChainCountSpec>,
    input: BoxCursor,
    /// The row-at-a-time plan, for when the data does not rule out the ways the paths'
    /// relationships could meet.
    fallback: Arc<PlanNode>,
    /// The fallback's cursor, once it counts instead.
    instead: Option<BoxCursor>,
    /// The groups counted for the current input row, yielded one per call.
    groups: std::vec::IntoIter<(Key, u128)>,
    /// Bytes counted for `groups`: given back when the last is yielded or the cursor resets.
    held: usize,
}

impl FactorizedCount {
    pub fn new(spec: Arc<ChainCountSpec>, input: BoxCursor, fallback: Arc<PlanNode>) -> Self {
        FactorizedCount {
            spec,
            input,
            fallback,
            instead: None,
            groups: Vec::new().into_iter(),
            held: 0,
        }
    }
}

impl Cursor for FactorizedCount {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        if let Some(instead) = &mut self.instead {
            return instead.next(cx, row);
        }
        loop {
            if let Some((key, n)) = self.groups.next() {
                let keys = self.spec.group.iter().flat_map(|g| &g.keys);
                for ((slot, _), value) in keys.zip(key) {
                    row[*slot] = value.0;
                }
                row[self.spec.out] = count_value(n);
                return Ok(true);
            }
            cx.release(std::mem::take(&mut self.held));
            if !self.input.next(cx, row)? {
                return Ok(false);
            }
            let mut run = Run::new(&self.spec);
            let counted = run.count(cx, row);
            cx.release(run.held - run.groups_held);
            self.held = run.groups_held;
            if !counted? {
                cx.release(std::mem::take(&mut self.held));
                let mut instead = super::build(&self.fallback, cx)?;
                let found = instead.next(cx, row);
                self.instead = Some(instead);
                return found;
            }
            if self.spec.group.is_none() {
                row[self.spec.out] = count_value(run.total);
                return Ok(true);
            }
            self.groups = run.groups.into_iter().collect::<Vec<_>>().into_iter();
        }
    }

    fn reset(&mut self) {
        self.groups = Vec::new().into_iter();
        self.instead = None;
        self.input.reset();
    }
}

fn count_value(n: u128) -> Value {
    Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

/// A group's key: the values of the grouping keys, inline for up to two.
type Key = SmallVec<[HashKey; 2]>;

/// One evaluation of the count: the remembered predicate answers and the bytes they hold.
struct Run<'s> {
    spec: &'s ChainCountSpec,
    /// Per chain node, then for the counted predicate: whether each node seen so far
    /// satisfies it.
    passes: Vec<Known>,
    /// Per chain node: whether its predicate is a label test alone, answered for every node
    /// below the dense bound by [`Run::answer_label_tests`].
    answered: Vec<bool>,
    /// Per chain node: whether its answers below the dense bound came from a scan of its
    /// required label (so a node not answered there carries the label).
    scanned: Vec<bool>,
    /// Per chain node: whether its predicate, a label alone, holds of every node the count
    /// reaches there, by the store's counts ([`Run::imply_labels`]): it is never asked.
    implied: Vec<bool>,
    /// The labels scanned in this run.
    labels: FxHashMap<LabelId, LabelSet>,
    held: usize,
    buf: Vec<(RelId, NodeId)>,
    /// Node ids below this are remembered in dense vectors rather than hash maps.
    dense: u64,
    /// The paths counted, without grouping keys.
    total: u128,
    /// The paths counted per group, with grouping keys.
    groups: FxHashMap<Key, u128>,
    /// The part of `held` that `groups` holds.
    groups_held: usize,
}

impl<'s> Run<'s> {
    fn new(spec: &'s ChainCountSpec) -> Self {
        Run {
            spec,
            passes: (0..=spec.nodes.len()).map(|_| Known::default()).collect(),
            answered: vec![false; spec.nodes.len()],
            scanned: vec![false; spec.nodes.len()],
            implied: vec![false; spec.nodes.len()],
            labels: FxHashMap::default(),
            held: 0,
            buf: Vec::new(),
            dense: 0,
            total: 0,
            groups: FxHashMap::default(),
            groups_held: 0,
        }
    }

    /// Adds `n` paths through `node` (the chain node the keys read, when there are keys): all
    /// of them, and those counted.
    fn tally(&mut self, cx: &mut Cx, row: &mut Row, node: NodeId, n: Paths) -> Result<()> {
        let (all, n) = n;
        let Some(group) = &self.spec.group else {
            self.total += n;
            return Ok(());
        };
        if all == 0 {
            return Ok(());
        }
        row[self.spec.nodes[group.at].slot] = node_value(node);
        let mut key = Key::new();
        for (_, k) in &group.keys {
            key.push(HashKey(k.eval(row, cx)?));
        }
        if let Some(counted) = self.groups.get_mut(&key) {
            *counted += n;
            return Ok(());
        }
        let bytes = key.iter().map(|k| value_bytes(&k.0)).sum::<usize>() + ENTRY_BYTES;
        self.hold(cx, bytes)?;
        self.groups_held += bytes;
        self.groups.insert(key, n);
        Ok(())
    }

    fn hold(&mut self, cx: &mut Cx, bytes: usize) -> Result<()> {
        cx.reserve(bytes, "a factorized count's per-node state")?;
        self.held += bytes;
        Ok(())
    }

    /// Answers each chain node's label test from a scan of the label, so the nodes' records
    /// are not read one by one for it: nodes without the label fail, and nodes with it pass
    /// when the label is the whole predicate. The rest of a predicate is asked during the
    /// scan when it tests the node's own properties and cannot fail (each record is read
    /// while the scan has it at hand, in id order); otherwise it is evaluated when asked.
    fn answer_label_tests(&mut self, cx: &mut Cx, row: &mut Row) -> Result<()> {
        let spec = self.spec;
        for (at, node) in spec.nodes.iter().enumerate() {
            let Some((label, alone)) = node.required_label() else {
                continue;
            };
            if self.implied[at] {
                self.answered[at] = true;
                continue;
            }
            self.hold(cx, self.dense as usize)?;
            let Some(label) = label.label(&cx.storage) else {
                self.passes[at].dense = vec![1u8; self.dense as usize];
                self.answered[at] = true;
                continue;
            };
            if let Some(rest) = node
                .after_label
                .as_ref()
                .filter(|rest| !alone && rest.is_infallible_test_of(node.slot))
            {
                self.passes[at].dense = self.scan_testing(cx, row, label, node.slot, rest)?;
                self.answered[at] = true;
                self.scanned[at] = true;
                continue;
            }
            let has = &self.label_set(cx, row, label)?.has;
            // With more to the predicate, a node with the label is still to be evaluated.
            let dense = if alone {
                has.clone()
            } else {
                has.iter().map(|k| if *k == 2 { 0 } else { 1 }).collect()
            };
            self.answered[at] = alone;
            self.scanned[at] = true;
            self.passes[at].dense = dense;
        }
        Ok(())
    }

    /// A scan of `label` asking `test` of each node it finds (bound at `slot`) as it finds
    /// it: per node id below the dense bound, 2 where the node carries the label and passes,
    /// 1 elsewhere.
    fn scan_testing(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        label: LabelId,
        slot: usize,
        test: &Expr,
    ) -> Result<Vec<u8>> {
        let mut answers = vec![1u8; self.dense as usize];
        let dense = answers.len();
        // Comparisons of the node's properties read each property once per node.
        let compared = PropertyTest::of(test, slot, row, cx)?;
        let passing = self.scan_label(cx, row, label, |cx, row, n| {
            if (n.0 as usize) >= dense {
                return Ok(false);
            }
            if let Some(compared) = &compared {
                return compared.passes(cx, n);
            }
            row[slot] = node_value(n);
            truthy(&test.eval(row, cx)?)
        })?;
        for n in passing {
            answers[n as usize] = 2;
        }
        Ok(answers)
    }

    /// The nodes visible here that carry `label`, scanned once per run.
    fn label_set(&mut self, cx: &mut Cx, row: &mut Row, label: LabelId) -> Result<&LabelSet> {
        if !self.labels.contains_key(&label) {
            let mut set = LabelSet {
                has: vec![1u8; self.dense as usize],
                beyond: Vec::new(),
            };
            for n in self.scan_label(cx, row, label, |_, _, _| Ok(true))? {
                match set.has.get_mut(n as usize) {
                    Some(k) => *k = 2,
                    None => set.beyond.push(n),
                }
            }
            self.hold(cx, set.has.len() + set.beyond.len() * 8)?;
            self.labels.insert(label, set);
        }
        Ok(&self.labels[&label])
    }

    /// The ids, in id order, of the nodes visible here that carry `label` and that `keep`
    /// keeps: the scan split among workers by id range when it is large enough.
    fn scan_label(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        label: LabelId,
        keep: impl Fn(&mut Cx, &mut Row, NodeId) -> Result<bool> + Sync,
    ) -> Result<Vec<u64>> {
        let bound = usize::try_from(cx.tx.node_id_bound()).unwrap_or(usize::MAX);
        let found = |run: &mut Run<'s>,
                     kept: &mut Vec<u64>,
                     cx: &mut Cx,
                     row: &mut Row,
                     ids: Range<usize>| {
            let before = kept.len();
            for n in cx
                .tx
                .scan_label_in(label, ids.start as u64..ids.end as u64)?
            {
                let n = n?;
                cx.tick()?;
                if keep(cx, row, n)? {
                    kept.push(n.0);
                }
            }
            run.hold(cx, (kept.len() - before) * 8)
        };
        let split = self.on_workers(cx, row, bound, |_, _| Ok(Vec::new()), found)?;
        let kept = match split {
            Some(workers) => {
                let mut parts: Vec<Vec<u64>> = workers.into_iter().map(|(_, kept)| kept).collect();
                // Chunks were drawn in id order; sorting puts the workers' ids back in it.
                let mut kept: Vec<u64> = parts.iter_mut().flat_map(std::mem::take).collect();
                kept.sort_unstable();
                kept
            }
            None => {
                let mut kept = Vec::new();
                found(self, &mut kept, cx, row, 0..bound)?;
                let bytes = kept.len() * 8;
                cx.release(bytes);
                self.held -= bytes;
                kept
            }
        };
        Ok(kept)
    }

    /// Whether `node` satisfies the predicate of chain node `at`. A node the label scan
    /// found carrying the predicate's required label is asked only the rest of it.
    fn passes(&mut self, cx: &mut Cx, row: &mut Row, at: usize, node: NodeId) -> Result<bool> {
        if self.implied.get(at) == Some(&true) {
            return Ok(true);
        }
        let spec = self.spec;
        let Some(chain_node) = spec.nodes.get(at) else {
            return Ok(false);
        };
        let scanned = self.scanned[at] && (node.0 as usize) < self.passes[at].dense.len();
        let predicate = match &chain_node.after_label {
            Some(rest) if scanned => Some(rest),
            _ => chain_node.predicate.as_ref(),
        };
        self.check(cx, row, at, chain_node.slot, predicate, node)
    }

    /// Whether the paths through `node` at chain node `at` are counted (1) or only make
    /// their group appear (0).
    fn counts(&mut self, cx: &mut Cx, row: &mut Row, at: usize, node: NodeId) -> Result<u128> {
        let spec = self.spec;
        let Some((_, predicate)) = spec.counted.as_ref().filter(|(c, _)| *c == at) else {
            return Ok(1);
        };
        let cache = spec.nodes.len();
        let slot = spec.nodes[at].slot;
        Ok(u128::from(self.check(
            cx,
            row,
            cache,
            slot,
            Some(predicate),
            node,
        )?))
    }

    /// `predicate` on `node` bound at `slot`, remembered in cache `cache`.
    fn check(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        cache: usize,
        slot: usize,
        predicate: Option<&Expr>,
        node: NodeId,
    ) -> Result<bool> {
        let Some(predicate) = predicate else {
            return Ok(true);
        };
        if let Some(known) = self.passes[cache].get(node) {
            return Ok(known);
        }
        row[slot] = node_value(node);
        let pass = truthy(&predicate.eval(row, cx)?)?;
        let bytes = self.passes[cache].insert(node, pass, self.dense);
        self.hold(cx, bytes)?;
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

    /// Counts the paths into `total` or `groups`; `false` when the data does not rule out
    /// a way two of their relationships could meet, and nothing was counted.
    fn count(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        // Node ids are dense from 0: a byte per id up to about the number of nodes is less
        // than a hash map entry per node visited.
        self.dense = cx.tx.count_nodes()?.saturating_mul(2) + DENSE_SLACK;
        if !self.meetings_ruled_out(cx, row)? {
            return Ok(false);
        }
        let mut types = Vec::with_capacity(self.spec.hops.len());
        for hop in &self.spec.hops {
            let mut resolved = Vec::new();
            if resolve_types(&hop.types, cx, &mut resolved).is_none() {
                return Ok(true);
            }
            types.push(resolved);
        }
        let last = self.spec.hops.len();
        let single = self.spec.hops.iter().all(|h| h.max == 1);
        if last == 2 && single {
            self.imply_labels(cx, &types)?;
        }
        self.answer_label_tests(cx, row)?;
        match self.spec.group.as_ref().map(|g| g.at) {
            None | Some(1) if last == 2 && single => self.two_hops(cx, row, &types)?,
            None => {
                let paths = self.carry(cx, row, &types, 0, last)?;
                self.total = paths.iter().map(|(_, (_, counted))| counted).sum();
            }
            Some(at) => self.through(cx, row, &types, at)?,
        }
        Ok(true)
    }

    /// Marks the chain nodes of two single hops whose label test the store's counts answer:
    /// every relationship of the types of a hop beside the node carries the label at the
    /// node's end (`(:L)-[:T]->()` counts all of `:T`), so every node the count reaches there
    /// over such a relationship carries it. An end is reached over its hop; a middle node
    /// over the first hop (its second side is counted only when the first has some) or over
    /// the second (without one its paths are none). Only for a predicate that is the label
    /// alone, and hops that name their types.
    fn imply_labels(&mut self, cx: &Cx, types: &[Vec<RelTypeId>]) -> Result<()> {
        let spec = self.spec;
        // (chain node, the hop beside it, whether the node is the hop's first)
        for (at, hop, first) in [(0, 0, true), (1, 0, false), (1, 1, true), (2, 1, false)] {
            let Some((label, true)) = spec.nodes[at].required_label() else {
                continue;
            };
            let Some(label) = label.label(&cx.storage) else {
                continue;
            };
            if self.implied[at] || types[hop].is_empty() {
                continue;
            }
            // The relationships' ends at the node: `(x)-[:T]->(y)` starts at x, ends at y.
            let ends: &[Direction] = match (spec.hops[hop].dir, first) {
                (Direction::Out, true) | (Direction::In, false) => &[Direction::Out],
                (Direction::In, true) | (Direction::Out, false) => &[Direction::In],
                (Direction::Both, _) => &[Direction::Out, Direction::In],
            };
            let mut every = true;
            for &ty in &types[hop] {
                let all = cx.tx.count_rels_of_type(ty)?;
                for &end in ends {
                    every &= cx.tx.count_rels_by_label(label, ty, end)? == all;
                }
            }
            self.implied[at] = every;
        }
        Ok(())
    }

    /// Whether every way the paths' relationships could meet is ruled out: each would make
    /// one node of two chain nodes whose required labels no node visible here carries
    /// together.
    fn meetings_ruled_out(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let spec = self.spec;
        let mut apart: FxHashMap<(usize, usize), bool> = FxHashMap::default();
        for meeting in &spec.meetings {
            let mut ruled_out = false;
            for &pair in meeting {
                let known = match apart.get(&pair) {
                    Some(known) => *known,
                    None => {
                        let known = self.labels_apart(cx, row, pair)?;
                        apart.insert(pair, known);
                        known
                    }
                };
                if known {
                    ruled_out = true;
                    break;
                }
            }
            if !ruled_out {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether no node carries both chain nodes' required labels.
    fn labels_apart(&mut self, cx: &mut Cx, row: &mut Row, (a, b): (usize, usize)) -> Result<bool> {
        let spec = self.spec;
        let (Some((a, _)), Some((b, _))) = (
            spec.nodes[a].required_label(),
            spec.nodes[b].required_label(),
        ) else {
            return Ok(false);
        };
        let (Some(a), Some(b)) = (a.label(&cx.storage), b.label(&cx.storage)) else {
            // A label no node has ever carried: no node carries both.
            return Ok(true);
        };
        if a == b {
            return Ok(false);
        }
        if let (Some(a), Some(b)) = (self.labels.get(&a), self.labels.get(&b)) {
            let both_dense = a.has.iter().zip(&b.has).any(|(x, y)| *x == 2 && *y == 2);
            // A label scan runs in id order, so `beyond` is sorted.
            let both_beyond = a.beyond.iter().any(|n| b.beyond.binary_search(n).is_ok());
            return Ok(!both_dense && !both_beyond);
        }
        // Otherwise the label with fewer nodes is scanned and each of its nodes asked for the
        // other: the larger one (people, against countries) is never read for this.
        let (fewer, more) = if cx.tx.count_label(a)? <= cx.tx.count_label(b)? {
            (a, b)
        } else {
            (b, a)
        };
        let both = self.scan_label(cx, row, fewer, |cx, _, n| {
            cx.tx.node_has_label(n, more).map_err(Into::into)
        })?;
        Ok(both.is_empty())
    }

    /// Paths counted per node at chain node `at`: the paths from the first node reaching it
    /// times the paths from it to the last.
    fn through(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        types: &[Vec<RelTypeId>],
        at: usize,
    ) -> Result<()> {
        let last = self.spec.hops.len();
        let before = self.carry(cx, row, types, 0, at)?;
        // Carrying from an end checks `at`'s predicate on arrival; from `at` itself it is the
        // start's check, so one side alone is enough when `at` is an end.
        let after = (at < last)
            .then(|| self.carry(cx, row, types, last, at))
            .transpose()?;
        let through = |node: u64, n: Paths| {
            let m = match &after {
                Some(after) => after.get(node),
                None => (1, 1),
            };
            (n.0 * m.0, n.1 * m.1)
        };
        let entries = self.entries(cx, &before)?;
        let split = self.on_workers(
            cx,
            row,
            entries.len(),
            |_, _| Ok(()),
            |run, (), cx, row, chunk| {
                for &(node, n) in &entries[chunk] {
                    cx.tick()?;
                    run.tally(cx, row, NodeId(node), through(node, n))?;
                }
                Ok(())
            },
        )?;
        match split {
            Some(workers) => {
                for (worker, ()) in workers {
                    self.absorb(cx, worker)?;
                }
            }
            None => {
                for &(node, n) in &entries {
                    cx.tick()?;
                    self.tally(cx, row, NodeId(node), through(node, n))?;
                }
            }
        }
        self.release_entries(cx, &entries);
        Ok(())
    }

    /// The path counts of `paths` as a list a worker can take chunks of, counted until
    /// [`Run::release_entries`].
    fn entries(&mut self, cx: &mut Cx, paths: &Carried) -> Result<Vec<(u64, Paths)>> {
        let entries: Vec<(u64, Paths)> = paths.iter().collect();
        self.hold(cx, std::mem::size_of_val(entries.as_slice()))?;
        Ok(entries)
    }

    fn release_entries(&mut self, cx: &mut Cx, entries: &[(u64, Paths)]) {
        let bytes = std::mem::size_of_val(entries);
        cx.release(bytes);
        self.held -= bytes;
    }

    /// Σ over middle nodes of (in × out − shared relationships): on several workers when
    /// there are enough middle nodes and the pool lends helpers, each counting chunks of the
    /// middle nodes into counts of its own, added up at the end.
    fn two_hops(&mut self, cx: &mut Cx, row: &mut Row, types: &[Vec<RelTypeId>]) -> Result<()> {
        let spec = self.spec;
        let (first, second) = (&spec.hops[0], &spec.hops[1]);
        let (back, forth) = (reversed(first.dir), second.dir);
        // Hops leaving the middle one in, one out can share only a self-loop of the middle.
        let loops_only = back != forth && back != Direction::Both && forth != Direction::Both;
        let unique = second.distinct_from_previous;
        let plan = TwoHops {
            types,
            back,
            forth,
            unique,
            loops_only,
            // When the hops can share only a self-loop (or nothing), each side is counted on
            // its own: an end nothing is asked of by the middle's degree, without its list.
            by_side: !unique || loops_only,
            loop_types: loop_types(cx, &types[0], &types[1])?,
        };
        let middles = self.middles(cx, row, types)?;
        let split = self.on_workers(
            cx,
            row,
            middles.len(),
            |_, _| Ok(Vec::new()),
            |run, shared_rels, cx, row, chunk| {
                run.middles_counted(cx, row, &middles[chunk], &plan, shared_rels)
            },
        )?;
        match split {
            Some(workers) => {
                for (worker, _) in workers {
                    self.absorb(cx, worker)?;
                }
            }
            None => {
                self.middles_counted(cx, row, &middles, &plan, &mut Vec::new())?;
            }
        }
        Ok(())
    }

    /// Runs `each` over chunks of the indexes `0..len` on several workers when there are
    /// enough of them and the pool lends helpers: each worker with a copy of this run (see
    /// [`Run::fork`]), of `row`, and a state `init` makes. `None`, having run nothing,
    /// otherwise. The workers' runs and states come back with nothing counted against any
    /// query (each worker gives back what it held when it is done): the caller counts what
    /// it keeps of them.
    fn on_workers<S: Send>(
        &self,
        cx: &mut Cx,
        row: &Row,
        len: usize,
        init: impl Fn(&mut Run<'s>, &mut Cx) -> Result<S> + Sync,
        each: impl Fn(&mut Run<'s>, &mut S, &mut Cx, &mut Row, Range<usize>) -> Result<()> + Sync,
    ) -> Result<Option<Vec<(Run<'s>, S)>>> {
        let wanted = parallel::worth(cx, len as u64);
        parallel::workers(
            cx,
            wanted,
            |workers| Chunks::new(len, workers),
            |cx, chunks, worker| {
                let mut run = self.fork(cx)?;
                let mut row = row.clone();
                let mut first = Some(worker);
                let done = init(&mut run, cx).and_then(|mut state| {
                    while let Some(chunk) = chunks.draw(&mut first) {
                        each(&mut run, &mut state, cx, &mut row, chunk)?;
                    }
                    Ok(state)
                });
                cx.release(std::mem::take(&mut run.held));
                run.groups_held = 0;
                done.map(|state| (run, state))
            },
        )
    }

    /// Adds a worker's counts to this run's, counting the groups this run did not have.
    fn absorb(&mut self, cx: &mut Cx, worker: Run<'s>) -> Result<()> {
        self.total += worker.total;
        for (key, n) in worker.groups {
            if let Some(counted) = self.groups.get_mut(&key) {
                *counted += n;
                continue;
            }
            let bytes = key.iter().map(|k| value_bytes(&k.0)).sum::<usize>() + ENTRY_BYTES;
            self.hold(cx, bytes)?;
            self.groups_held += bytes;
            self.groups.insert(key, n);
        }
        Ok(())
    }

    /// A worker's copy of the run: the answers known so far (the label scans' and the
    /// predicates asked while finding the middle nodes), counted against the worker's
    /// memory, and no counts yet.
    fn fork(&self, cx: &mut Cx) -> Result<Run<'s>> {
        let mut run = Run {
            passes: self.passes.clone(),
            answered: self.answered.clone(),
            scanned: self.scanned.clone(),
            implied: self.implied.clone(),
            dense: self.dense,
            ..Run::new(self.spec)
        };
        let bytes = run.passes.iter().map(Known::bytes).sum();
        run.hold(cx, bytes)?;
        Ok(run)
    }

    /// Counts the two-hop paths through each of `middles`, their records brought toward the
    /// processor [`TOUCH_AHEAD`] at a time before they are read.
    fn middles_counted(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        middles: &[NodeId],
        plan: &TwoHops<'_>,
        shared_rels: &mut Vec<(u64, u128)>,
    ) -> Result<()> {
        for window in middles.chunks(TOUCH_AHEAD) {
            cx.tx.touch_nodes(window);
            for &middle in window {
                self.middle(cx, row, middle, plan, shared_rels)?;
            }
        }
        Ok(())
    }

    /// Counts the two-hop paths through `middle`.
    fn middle(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        middle: NodeId,
        plan: &TwoHops<'_>,
        shared_rels: &mut Vec<(u64, u128)>,
    ) -> Result<()> {
        let TwoHops {
            types,
            back,
            forth,
            unique,
            loops_only,
            by_side,
            ..
        } = *plan;
        cx.tick()?;
        if !self.passes(cx, row, 1, middle)? {
            return Ok(());
        }
        if by_side {
            let (ins, ins_counted) = self.side(cx, row, middle, back, &types[0], 0)?;
            if ins == 0 {
                return Ok(());
            }
            let (outs, outs_counted) = self.side(cx, row, middle, forth, &types[1], 2)?;
            let (shared, shared_counted) = match &plan.loop_types {
                Some(loop_types) if unique => self.shared_loops(cx, row, middle, loop_types)?,
                _ => (0, 0),
            };
            let counted = self.counts(cx, row, 1, middle)?;
            let paths = (
                ins * outs - shared,
                counted * (ins_counted * outs_counted - shared_counted),
            );
            return self.tally(cx, row, middle, paths);
        }
        // The relationships into the middle, each with whether its far end is counted.
        self.expand(cx, middle, back, &types[0])?;
        shared_rels.clear();
        let (mut ins, mut ins_counted): Paths = (0, 0);
        for i in 0..self.buf.len() {
            let (rel, end) = self.buf[i];
            if self.passes(cx, row, 0, end)? {
                let counted = self.counts(cx, row, 0, end)?;
                ins += 1;
                ins_counted += counted;
                if unique && (!loops_only || end == middle) {
                    shared_rels.push((rel.0, counted));
                }
            }
        }
        if ins == 0 {
            return Ok(());
        }
        shared_rels.sort_unstable();
        self.expand(cx, middle, forth, &types[1])?;
        let (mut outs, mut outs_counted): Paths = (0, 0);
        let (mut shared, mut shared_counted): Paths = (0, 0);
        for i in 0..self.buf.len() {
            let (rel, end) = self.buf[i];
            if self.passes(cx, row, 2, end)? {
                let counted = self.counts(cx, row, 2, end)?;
                outs += 1;
                outs_counted += counted;
                if unique && !shared_rels.is_empty() {
                    let lo = shared_rels.partition_point(|r| r.0 < rel.0);
                    let hi = shared_rels.partition_point(|r| r.0 <= rel.0);
                    shared += (hi - lo) as u128;
                    let ins: u128 = shared_rels[lo..hi].iter().map(|r| r.1).sum();
                    shared_counted += ins * counted;
                }
            }
        }
        let counted = self.counts(cx, row, 1, middle)?;
        let paths = (
            ins * outs - shared,
            counted * (ins_counted * outs_counted - shared_counted),
        );
        self.tally(cx, row, middle, paths)
    }

    /// The hops from `middle` in `dir` of `types` to chain node `end` that pass its
    /// predicate, and those whose paths are counted: the middle's degree when nothing is
    /// asked of `end`, its neighbours counted in place when a label is all that is asked.
    fn side(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        middle: NodeId,
        dir: Direction,
        types: &[RelTypeId],
        end: usize,
    ) -> Result<Paths> {
        let spec = self.spec;
        let uncounted = spec.counted.as_ref().is_none_or(|(at, _)| *at != end);
        if uncounted && (spec.nodes[end].predicate.is_none() || self.implied[end]) {
            cx.db_hits += 1;
            let n = cx.tx.degree(middle, dir, types)? as u128;
            return Ok((n, n));
        }
        if uncounted && self.answered[end] {
            // A label test alone: the neighbours are counted against the label's answers
            // where they lie, unless one lies beyond them.
            let known = &self.passes[end].dense;
            let mut beyond = false;
            let n = cx.tx.count_neighbours(middle, dir, types, |far| {
                known.get(far.0 as usize).map_or_else(
                    || {
                        beyond = true;
                        false
                    },
                    |k| *k == 2,
                )
            })? as u128;
            if !beyond {
                cx.db_hits += 1;
                return Ok((n, n));
            }
        }
        self.expand(cx, middle, dir, types)?;
        let (mut n, mut counted): Paths = (0, 0);
        for i in 0..self.buf.len() {
            let far = self.buf[i].1;
            if self.passes(cx, row, end, far)? {
                n += 1;
                counted += self.counts(cx, row, end, far)?;
            }
        }
        Ok((n, counted))
    }

    /// The self-loops of `middle` of `types` that both hops could be (each once), and those
    /// whose paths are counted: a loop's ends are the middle itself, so both ends' predicates
    /// are asked of it.
    fn shared_loops(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        middle: NodeId,
        types: &[RelTypeId],
    ) -> Result<Paths> {
        let loops = cx.tx.self_loops(middle, types)? as u128;
        if loops == 0 || !self.passes(cx, row, 0, middle)? || !self.passes(cx, row, 2, middle)? {
            return Ok((0, 0));
        }
        let counted = self.counts(cx, row, 0, middle)? * self.counts(cx, row, 2, middle)?;
        Ok((loops, loops * counted))
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
            if spec.nodes[end].predicate.is_none() || self.implied[end] {
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

    /// Path counts per node at chain node `to`, carried one hop at a time from every node
    /// that satisfies chain node `from`'s predicate (walking the hops backwards when `to`
    /// comes first). The returned counts stay held until the run ends.
    fn carry(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        types: &[Vec<RelTypeId>],
        from: usize,
        to: usize,
    ) -> Result<Carried> {
        let mut start = Vec::new();
        for node in cx.tx.scan_nodes()? {
            let node = node?;
            cx.tick()?;
            if self.passes(cx, row, from, node)? {
                let counted = self.counts(cx, row, from, node)?;
                start.push((node.0, counted));
            }
        }
        let mut paths = Carried::new(self.dense_for(start.len()));
        for (node, counted) in start {
            paths.add(node, (1, counted));
        }
        self.hold(cx, paths.bytes())?;
        let spec = self.spec;
        let mut at = from;
        while at != to {
            // The hop between `at` and the next node, walked from `at`.
            let (hop, next_at, dir) = if at < to {
                (at, at + 1, spec.hops[at].dir)
            } else {
                (at - 1, at - 1, reversed(spec.hops[at - 1].dir))
            };
            let (min, max) = (spec.hops[hop].min, spec.hops[hop].max);
            if min == 1 && max == 1 {
                paths = self.step(cx, row, paths, dir, &types[hop], Some(next_at))?;
            } else {
                // One relationship at a time through nodes nothing is asked of, the walks of
                // each allowed length arriving at `next_at`.
                let mut arrived = Carried::new(self.dense_for(paths.len()));
                self.hold(cx, arrived.bytes())?;
                for length in 1..=max {
                    paths = self.step(cx, row, paths, dir, &types[hop], None)?;
                    if length >= min {
                        let before = arrived.bytes();
                        for (node, (n, counted)) in paths.iter() {
                            cx.tick()?;
                            if let Some(counted) =
                                self.arrive(cx, row, next_at, NodeId(node), counted)?
                            {
                                arrived.add(node, (n, counted));
                            }
                        }
                        self.hold(cx, arrived.bytes() - before)?;
                    }
                }
                self.drop_carried(cx, paths);
                paths = arrived;
            }
            at = next_at;
        }
        Ok(paths)
    }

    /// The path counts `paths` carried over one relationship in `dir` of `types`, arriving at
    /// chain node `arrive` (its predicate asked and its counted predicate applied), or at
    /// nodes nothing is asked of inside a variable-length hop. `paths` is given back.
    fn step(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        paths: Carried,
        dir: Direction,
        types: &[RelTypeId],
        arrive: Option<usize>,
    ) -> Result<Carried> {
        let dense = self.dense_for(paths.len());
        let entries = self.entries(cx, &paths)?;
        self.drop_carried(cx, paths);
        let fresh = |run: &mut Run<'s>, cx: &mut Cx| -> Result<Carried> {
            let next = Carried::new(dense);
            run.hold(cx, next.bytes())?;
            Ok(next)
        };
        let split = self.on_workers(
            cx,
            row,
            entries.len(),
            fresh,
            |run, next, cx, row, chunk| {
                for &(node, paths) in &entries[chunk] {
                    run.step_from(cx, row, next, node, paths, (dir, types, arrive))?;
                }
                Ok(())
            },
        )?;
        let next = match split {
            Some(workers) => {
                let mut parts = workers.into_iter().map(|(_, next)| next);
                let mut next = parts.next().unwrap_or_else(|| Carried::new(dense));
                for part in parts {
                    for (node, paths) in part.iter() {
                        next.add(node, paths);
                    }
                }
                self.hold(cx, next.bytes())?;
                next
            }
            None => {
                let mut next = fresh(self, cx)?;
                for &(node, paths) in &entries {
                    self.step_from(cx, row, &mut next, node, paths, (dir, types, arrive))?;
                }
                next
            }
        };
        self.release_entries(cx, &entries);
        Ok(next)
    }

    /// Carries the `paths` at `node` over its relationships in `dir` of `types` into `next`,
    /// arriving at chain node `arrive` (or at nodes nothing is asked of), counting what
    /// `next` grows by.
    fn step_from(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        next: &mut Carried,
        node: u64,
        (n, counted): Paths,
        (dir, types, arrive): (Direction, &[RelTypeId], Option<usize>),
    ) -> Result<()> {
        cx.tick()?;
        let before = next.bytes();
        self.expand(cx, NodeId(node), dir, types)?;
        for j in 0..self.buf.len() {
            let end = self.buf[j].1;
            let counted = match arrive {
                Some(at) => match self.arrive(cx, row, at, end, counted)? {
                    Some(counted) => counted,
                    None => continue,
                },
                None => counted,
            };
            next.add(end.0, (n, counted));
        }
        self.hold(cx, next.bytes() - before)
    }

    /// The counted share of paths arriving at chain node `at` through `node`, `counted` of
    /// them counted before it: `None` when `node` fails the chain node's predicate.
    fn arrive(
        &mut self,
        cx: &mut Cx,
        row: &mut Row,
        at: usize,
        node: NodeId,
        counted: u128,
    ) -> Result<Option<u128>> {
        if !self.passes(cx, row, at, node)? {
            return Ok(None);
        }
        Ok(Some(counted * self.counts(cx, row, at, node)?))
    }

    /// Gives back the bytes `paths` held.
    fn drop_carried(&mut self, cx: &mut Cx, paths: Carried) {
        let bytes = paths.bytes();
        cx.release(bytes);
        self.held -= bytes;
    }

    /// The dense bound for path counts carried from `n` nodes: dense when they are more than
    /// a sixteenth of the nodes (a slot per node id then costs less than a hash map), 0 (all
    /// in a hash map) otherwise.
    fn dense_for(&self, n: usize) -> u64 {
        if n as u64 * SEED_FRACTION as u64 > self.dense.saturating_sub(DENSE_SLACK) / 2 {
            self.dense
        } else {
            0
        }
    }
}

/// What a two-hop count decides once for all its middle nodes.
struct TwoHops<'t> {
    types: &'t [Vec<RelTypeId>],
    /// The first hop walked back from the middle, the second forth from it.
    back: Direction,
    forth: Direction,
    /// Whether the two hops must be different relationships.
    unique: bool,
    /// Whether the hops can share only a self-loop of the middle.
    loops_only: bool,
    /// Whether each side is counted on its own.
    by_side: bool,
    /// The types a self-loop both hops could be has.
    loop_types: Option<Vec<RelTypeId>>,
}

/// Path counts per node: a slot per node id below a bound, with the ids reached listed in
/// the order they were reached, and a hash map above the bound.
struct Carried {
    dense: Vec<Paths>,
    reached: Vec<u64>,
    sparse: FxHashMap<u64, Paths>,
}

impl Carried {
    fn new(dense: u64) -> Self {
        Carried {
            dense: vec![(0, 0); dense as usize],
            reached: Vec::new(),
            sparse: FxHashMap::default(),
        }
    }

    /// Adds `paths` (at least one) to `node`'s counts.
    fn add(&mut self, node: u64, paths: Paths) {
        let counts = match self.dense.get_mut(node as usize) {
            Some(counts) => {
                if counts.0 == 0 {
                    self.reached.push(node);
                }
                counts
            }
            None => self.sparse.entry(node).or_insert((0, 0)),
        };
        counts.0 += paths.0;
        counts.1 += paths.1;
    }

    fn get(&self, node: u64) -> Paths {
        match self.dense.get(node as usize) {
            Some(counts) => *counts,
            None => self.sparse.get(&node).copied().unwrap_or((0, 0)),
        }
    }

    fn len(&self) -> usize {
        self.reached.len() + self.sparse.len()
    }

    fn iter(&self) -> impl Iterator<Item = (u64, Paths)> + '_ {
        let dense = self.reached.iter().map(|n| (*n, self.dense[*n as usize]));
        dense.chain(self.sparse.iter().map(|(n, c)| (*n, *c)))
    }

    /// Bytes counted for the counts.
    fn bytes(&self) -> usize {
        self.dense.len() * std::mem::size_of::<Paths>()
            + self.reached.len() * 8
            + self.sparse.len() * ENTRY_BYTES
    }
}

/// The nodes carrying one label: a byte per node id below the dense bound (2 with the label,
/// 1 without), and the ids above it that carry it, in id order.
struct LabelSet {
    has: Vec<u8>,
    beyond: Vec<u64>,
}

/// Answers of one predicate, remembered per node: a byte per id for ids below the dense
/// bound (0 unknown, 1 false, 2 true), a hash map above it.
#[derive(Clone, Default)]
struct Known {
    dense: Vec<u8>,
    sparse: FxHashMap<u64, bool>,
}

impl Known {
    /// Bytes counted for the answers.
    fn bytes(&self) -> usize {
        self.dense.len() + self.sparse.len() * ENTRY_BYTES
    }

    fn get(&self, node: NodeId) -> Option<bool> {
        match self.dense.get(node.0 as usize) {
            Some(0) => None,
            Some(b) => Some(*b == 2),
            None => self.sparse.get(&node.0).copied(),
        }
    }

    /// Remembers `pass` for `node`; returns the bytes newly held.
    fn insert(&mut self, node: NodeId, pass: bool, dense: u64) -> usize {
        if node.0 < dense {
            let grown = if self.dense.is_empty() {
                self.dense = vec![0; dense as usize];
                dense as usize
            } else {
                0
            };
            self.dense[node.0 as usize] = if pass { 2 } else { 1 };
            return grown;
        }
        self.sparse.insert(node.0, pass);
        ENTRY_BYTES
    }
}

/// Middle nodes whose records are brought toward the processor together before they are
/// read one by one ([`quiver_storage::Transaction::touch_nodes`]): a few groups' worth, few
/// enough that their blocks are still in the cache when read.
const TOUCH_AHEAD: usize = 32;

/// Paths counted at a node: all of them, and those the counted predicate keeps.
type Paths = (u128, u128);

/// The types a self-loop both hops could be has ([`shared_loop_types`]): `None` also
/// when the store's counts show no self-loop of any of them.
fn loop_types(
    cx: &Cx,
    first: &[RelTypeId],
    second: &[RelTypeId],
) -> Result<Option<Vec<RelTypeId>>> {
    let Some(types) = shared_loop_types(first, second) else {
        return Ok(None);
    };
    if types.is_empty() {
        return Ok(Some(types));
    }
    for &ty in &types {
        if cx.tx.count_self_loops(ty)? > 0 {
            return Ok(Some(types));
        }
    }
    Ok(None)
}

/// The types a self-loop must have to be on both of a middle's lists, one hop's `first`
/// types in and the next's `second` out (empty: every type): `None` when no type is on both.
fn shared_loop_types(first: &[RelTypeId], second: &[RelTypeId]) -> Option<Vec<RelTypeId>> {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => Some(second.to_vec()),
        (false, true) => Some(first.to_vec()),
        (false, false) => {
            let both: Vec<RelTypeId> = first
                .iter()
                .filter(|t| second.contains(t))
                .copied()
                .collect();
            (!both.is_empty()).then_some(both)
        }
    }
}

fn reversed(dir: Direction) -> Direction {
    match dir {
        Direction::Out => Direction::In,
        Direction::In => Direction::Out,
        Direction::Both => Direction::Both,
    }
}
