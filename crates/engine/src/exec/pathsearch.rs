//! Path search over a path program: quantified path patterns (`((a)-[r]->(b)){1,3}`), and
//! for a path selector (`SHORTEST k`, `ANY k`, `ALL SHORTEST`, `SHORTEST k GROUPS`) or
//! `ACYCLIC` the whole path pattern.
//!
//! A program ([`PathStep`]) is the pattern as a linear automaton: node tests, hops, and a
//! group's `Enter`/`Leave` around its body. A search state is the product of a graph node and
//! a program position (with the iteration count of the group it is in); its bindings are a
//! linked list shared by the states that extend it, so branching copies nothing.
//!
//! - Without a selector the search is depth-first and yields every match lazily. Every match
//!   is a trail: a relationship appears once on the path and not at all among the
//!   relationships the rest of the pattern bound (Neo4j's DIFFERENT RELATIONSHIPS), which
//!   also keeps an unbounded quantifier finite.
//! - With a selector it is breadth-first over the product of the graph and the program, level
//!   by hop count, so paths come shortest first; each end node keeps the paths its selector
//!   wants. A product state is expanded only as often as a selector can still use it (k times
//!   for `SHORTEST k`/`ANY k`, at its first depth for `ALL SHORTEST`, at its k first depths
//!   for `SHORTEST k GROUPS`), which bounds the search by the product's size rather than the
//!   number of paths, and the search stops as soon as a bound end node has its paths.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use quiver_storage::{NodeId, RelId, RelTypeId};
use quiver_value::Value;

use super::expand::{excluded, next_start, node_in, resolve_types};
use super::{BoxCursor, Cursor, Cx};
use crate::error::{Error, Result};
use crate::eval::graph_fns::{node_value, rel_value};
use crate::eval::truthy;
use crate::ir::{PathSearchSpec, PathStep, Row, Selection};

/// No variable: a hop whose relationship nobody reads.
const NO_VAR: u32 = u32::MAX;

/// One binding of a search, newest first.
struct Link {
    prev: Option<Arc<Link>>,
    /// The variable bound, or [`NO_VAR`] for a hop kept only for the path.
    var: u32,
    /// The element: a node, or a relationship (then `to` is the node it reached).
    id: u64,
    rel: bool,
    to: u64,
}

#[derive(Clone)]
struct State {
    node: u64,
    pc: usize,
    /// Iterations of the current group completed.
    count: u32,
    hops: u32,
    link: Option<Arc<Link>>,
}

/// What one state counts against the query's memory.
const STATE_BYTES: usize = std::mem::size_of::<State>() + std::mem::size_of::<Link>() + 16;

fn links(mut at: Option<&Arc<Link>>) -> impl Iterator<Item = &Link> {
    std::iter::from_fn(move || {
        let link = at?;
        at = link.prev.as_ref();
        Some(&**link)
    })
}

pub(crate) struct PathSearch {
    spec: Arc<PathSearchSpec>,
    input: BoxCursor,
    /// The relationship types of each hop, resolved per input row (`None`: no such type).
    types: Vec<Option<Vec<RelTypeId>>>,
    scratch: Vec<RelTypeId>,
    /// Depth-first: the states still to extend for the current input row.
    stack: Vec<State>,
    /// Selected paths of the current input row, still to hand out (last first).
    found: Vec<State>,
    start: u64,
    /// The current input row, copied in again at each call that goes on with it (between
    /// two calls the row is the consumer's: a batched Expand above writes its own rows in).
    start_row: Row,
    /// Bytes counted for `stack`, given back when the row is done.
    held: usize,
    buf: Vec<(RelId, NodeId)>,
    seen: Vec<bool>,
    /// Per step, the iteration count beyond which states are alike: the group's minimum
    /// when it is unbounded (more iterations change nothing ahead), else none.
    caps: Vec<u32>,
}

impl PathSearch {
    pub fn new(spec: Arc<PathSearchSpec>, input: BoxCursor) -> Self {
        let mut caps = vec![u32::MAX; spec.steps.len() + 1];
        for (i, step) in spec.steps.iter().enumerate() {
            if let PathStep::Enter { exit, .. } = step
                && let Some(PathStep::Leave { min, max, .. }) = spec.steps.get(exit - 1)
                && *max == u32::MAX
            {
                for cap in caps.iter_mut().take(*exit).skip(i + 1) {
                    *cap = *min;
                }
            }
        }
        PathSearch {
            caps,
            spec,
            input,
            types: Vec::new(),
            scratch: Vec::new(),
            stack: Vec::new(),
            found: Vec::new(),
            start: 0,
            start_row: Row::new(),
            held: 0,
            buf: Vec::new(),
            seen: Vec::new(),
        }
    }

    fn resolve(&mut self, cx: &Cx) {
        self.types.clear();
        for step in &self.spec.steps {
            self.types.push(match step {
                PathStep::Hop { types, .. } => resolve_types(types, cx, &mut self.scratch)
                    .map(|()| std::mem::take(&mut self.scratch)),
                _ => None,
            });
        }
    }

    /// Writes the bindings of `link` (newest first) into their scratch slots, each
    /// variable's newest only.
    fn restore(&mut self, link: Option<&Arc<Link>>, row: &mut Row) {
        self.seen.clear();
        self.seen.resize(self.spec.vars.len(), false);
        for l in links(link) {
            let Some(var) = self.spec.vars.get(l.var as usize) else {
                continue;
            };
            if !std::mem::replace(&mut self.seen[l.var as usize], true) {
                row[var.scratch] = if l.rel {
                    rel_value(RelId(l.id))
                } else {
                    node_value(NodeId(l.id))
                };
            }
        }
    }

    fn checks_hold(
        &mut self,
        checks: &[crate::ir::Expr],
        restore: bool,
        link: Option<&Arc<Link>>,
        row: &mut Row,
        cx: &mut Cx,
    ) -> Result<bool> {
        if checks.is_empty() {
            return Ok(true);
        }
        if restore {
            self.restore(link, row);
        }
        for check in checks {
            if !truthy(&check.eval(row, cx)?)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether `rel` may extend the path of `state`: not on it, not bound elsewhere in the
    /// pattern, and (acyclic) not back to a node of it.
    fn may_use(&self, state: &State, rel: RelId, to: u64, row: &Row) -> bool {
        let spec = &*self.spec;
        if excluded(rel.0, row, &spec.exclude, &spec.exclude_lists) {
            return false;
        }
        for l in links(state.link.as_ref()) {
            if l.rel && (l.id == rel.0 || (spec.acyclic && l.to == to)) {
                return false;
            }
        }
        !(spec.acyclic && to == self.start)
    }

    /// The states one step on from `state`; `Ok(true)` when `state` is a whole match.
    fn step(
        &mut self,
        state: State,
        row: &mut Row,
        cx: &mut Cx,
        hops_out: &mut Vec<State>,
        same_out: &mut Vec<State>,
    ) -> Result<Option<State>> {
        let spec = self.spec.clone();
        let Some(step) = spec.steps.get(state.pc) else {
            if spec.into && node_in(row, spec.to)? != Some(state.node) {
                return Ok(None);
            }
            if let Some(filter) = &spec.filter {
                self.bind(&state, row);
                if let Some((slot, path)) = &spec.filter_path {
                    row[*slot] = path.eval(row, cx)?;
                }
                if !truthy(&filter.eval(row, cx)?)? {
                    return Ok(None);
                }
            }
            return Ok(Some(state));
        };
        match step {
            PathStep::Node {
                var,
                checks,
                restore,
            } => {
                let v = &spec.vars[*var];
                row[v.scratch] = node_value(NodeId(state.node));
                let link = if v.keep {
                    Some(Arc::new(Link {
                        prev: state.link.clone(),
                        var: *var as u32,
                        id: state.node,
                        rel: false,
                        to: state.node,
                    }))
                } else {
                    state.link.clone()
                };
                if self.checks_hold(checks, *restore, link.as_ref(), row, cx)? {
                    same_out.push(State {
                        pc: state.pc + 1,
                        link,
                        ..state
                    });
                }
            }
            PathStep::Hop {
                var,
                dir,
                checks,
                restore,
                ..
            } => self.hop(&state, (*var, *dir), (checks, *restore), row, cx, hops_out)?,
            PathStep::Enter { min, exit } => {
                same_out.push(State {
                    pc: state.pc + 1,
                    count: 0,
                    link: state.link.clone(),
                    ..state
                });
                if *min == 0 {
                    same_out.push(State {
                        pc: *exit,
                        count: 0,
                        ..state
                    });
                }
            }
            PathStep::Leave {
                min,
                max,
                body,
                checks,
            } => {
                if !self.checks_hold(checks, true, state.link.as_ref(), row, cx)? {
                    return Ok(None);
                }
                let count = state.count + 1;
                if count < *max {
                    same_out.push(State {
                        pc: *body,
                        count,
                        link: state.link.clone(),
                        ..state
                    });
                }
                if count >= *min {
                    same_out.push(State {
                        pc: state.pc + 1,
                        count: 0,
                        ..state
                    });
                }
            }
        }
        Ok(None)
    }

    /// The states one relationship on from `state`, for a hop binding `var`.
    fn hop(
        &mut self,
        state: &State,
        (var, dir): (usize, quiver_storage::Direction),
        (checks, restore): (&[crate::ir::Expr], bool),
        row: &mut Row,
        cx: &mut Cx,
        out: &mut Vec<State>,
    ) -> Result<()> {
        let spec = self.spec.clone();
        let Some(Some(types)) = self.types.get(state.pc) else {
            return Ok(());
        };
        let v = &spec.vars[var];
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        cx.tx
            .expand_into(NodeId(state.node), dir, types, &mut buf)?;
        for &(rel, nbr) in &buf {
            cx.tick()?;
            if !self.may_use(state, rel, nbr.0, row) {
                continue;
            }
            row[v.scratch] = rel_value(rel);
            let link = Some(Arc::new(Link {
                prev: state.link.clone(),
                var: if v.keep { var as u32 } else { NO_VAR },
                id: rel.0,
                rel: true,
                to: nbr.0,
            }));
            if !self.checks_hold(checks, restore, link.as_ref(), row, cx)? {
                continue;
            }
            // A depth-first stack holds one path's branches; a breadth-first level holds many
            // paths, each counted.
            if spec.selection != Selection::All {
                cx.reserve(STATE_BYTES, "a path search")?;
                self.held += STATE_BYTES;
            }
            out.push(State {
                node: nbr.0,
                pc: state.pc + 1,
                count: state.count,
                hops: state.hops + 1,
                link,
            });
        }
        self.buf = buf;
        Ok(())
    }

    /// Writes a match into the row.
    fn bind(&self, state: &State, row: &mut Row) {
        let spec = &*self.spec;
        let mut lists: Vec<Option<Vec<Value>>> =
            spec.vars.iter().map(|v| v.group.then(Vec::new)).collect();
        let mut rels = Vec::new();
        for l in links(state.link.as_ref()) {
            let value = if l.rel {
                rel_value(RelId(l.id))
            } else {
                node_value(NodeId(l.id))
            };
            if l.rel {
                rels.push(value.clone());
            }
            let Some(var) = spec.vars.get(l.var as usize) else {
                continue;
            };
            match &mut lists[l.var as usize] {
                Some(list) => list.push(value),
                None => {
                    if let Some(out) = var.out {
                        row[out] = value;
                    }
                }
            }
        }
        // Collected newest first: reversed unless the program ran from the right end.
        if !spec.reversed {
            rels.reverse();
        }
        row[spec.rels] = Value::from(rels);
        for (var, list) in spec.vars.iter().zip(lists) {
            if let (Some(out), Some(mut list)) = (var.out, list) {
                if !spec.reversed {
                    list.reverse();
                }
                row[out] = Value::from(list);
            }
        }
        if !spec.into {
            row[spec.to] = node_value(NodeId(state.node));
        }
    }

    /// Breadth-first, keeping what the selector wants per end node.
    fn select(&mut self, first: State, row: &mut Row, cx: &mut Cx) -> Result<Vec<State>> {
        let selection = self.spec.selection;
        let target = if self.spec.into {
            node_in(row, self.spec.to)?
        } else {
            None
        };
        // End node -> (paths kept, distinct lengths kept).
        let mut ends: FxHashMap<u64, (u64, Vec<u32>)> = FxHashMap::default();
        // (node, step, iterations) -> (expansions, distinct depths).
        let mut states: FxHashMap<(u64, usize, u32), (u64, Vec<u32>)> = FxHashMap::default();
        let mut kept = Vec::new();
        let mut level = vec![first];
        let mut depth = 0u32;
        let hops_max = cx.var_length_hops_max;
        while !level.is_empty() && depth <= hops_max {
            let mut next = Vec::new();
            let mut same = Vec::new();
            while let Some(state) = level.pop() {
                cx.tick()?;
                if let Some(done) = self.step(state, row, cx, &mut next, &mut same)? {
                    let (paths, lengths) = ends.entry(done.node).or_default();
                    let keep = match selection {
                        Selection::All => true,
                        Selection::Any(k) | Selection::Shortest(k) => *paths < k,
                        Selection::AllShortest => lengths.first().is_none_or(|l| *l == depth),
                        Selection::ShortestGroups(k) => {
                            lengths.contains(&depth) || (lengths.len() as u64) < k
                        }
                    };
                    if keep {
                        *paths += 1;
                        if !lengths.contains(&depth) {
                            lengths.push(depth);
                        }
                        kept.push(done);
                    }
                }
                level.append(&mut same);
            }
            if let Some(target) = target
                && let Some((paths, lengths)) = ends.get(&target)
            {
                let done = match selection {
                    Selection::All => false,
                    Selection::Any(k) | Selection::Shortest(k) => *paths >= k,
                    Selection::AllShortest => !lengths.is_empty(),
                    Selection::ShortestGroups(k) => lengths.len() as u64 >= k,
                };
                if done {
                    break;
                }
            }
            depth += 1;
            // A product state is worth extending only as often as a selector can use it;
            // not so under a filter of whole paths, which may refuse the ones that came first.
            let filtered = self.spec.filter.is_some();
            next.retain(|s| {
                if filtered {
                    return true;
                }
                let capped = s.count.min(self.caps.get(s.pc).copied().unwrap_or(0));
                let (visits, depths) = states.entry((s.node, s.pc, capped)).or_default();
                let keep = match selection {
                    Selection::All => true,
                    Selection::Any(k) | Selection::Shortest(k) => *visits < k,
                    Selection::AllShortest => depths.first().is_none_or(|d| *d == depth),
                    Selection::ShortestGroups(k) => {
                        depths.contains(&depth) || (depths.len() as u64) < k
                    }
                };
                if keep {
                    *visits += 1;
                    if !depths.contains(&depth) {
                        depths.push(depth);
                    }
                }
                keep
            });
            level = next;
        }
        Ok(kept)
    }
}

impl Cursor for PathSearch {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let spec = self.spec.clone();
        let mut hops = Vec::new();
        let mut same = Vec::new();
        if !self.found.is_empty() || !self.stack.is_empty() {
            row.clone_from(&self.start_row);
        }
        loop {
            if let Some(done) = self.found.pop() {
                self.bind(&done, row);
                return Ok(true);
            }
            let Some(state) = self.stack.pop() else {
                let to = spec.into.then_some(spec.to);
                let next = next_start(&mut self.input, &mut self.held, spec.from, to, cx, row)?;
                let Some(from) = next else {
                    return Ok(false);
                };
                self.resolve(cx);
                self.start = from;
                self.start_row.clone_from(row);
                let first = State {
                    node: from,
                    pc: 0,
                    count: 0,
                    hops: 0,
                    link: None,
                };
                if spec.selection == Selection::All {
                    self.stack.push(first);
                } else {
                    let held = cx.memory_bytes;
                    let found = self.select(first, row, cx);
                    cx.release(cx.memory_bytes.saturating_sub(held));
                    self.held = 0;
                    self.found = found?;
                    self.found.reverse();
                }
                continue;
            };
            if state.hops > cx.var_length_hops_max {
                self.stack.clear();
                return Err(Error::runtime(
                    crate::error::code::ARGUMENT_ERROR,
                    None,
                    format!(
                        "A quantified path pattern exceeded {} hops",
                        cx.var_length_hops_max
                    ),
                ));
            }
            hops.clear();
            same.clear();
            let done = self.step(state, row, cx, &mut hops, &mut same)?;
            // Last pushed is tried first: hops after the same-level states keeps the walk
            // depth-first.
            self.stack.append(&mut same);
            self.stack.append(&mut hops);
            if let Some(done) = done {
                self.bind(&done, row);
                return Ok(true);
            }
        }
    }

    fn reset(&mut self) {
        self.stack.clear();
        self.found.clear();
        self.input.reset();
    }
}
