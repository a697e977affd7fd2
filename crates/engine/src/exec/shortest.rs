//! `shortestPath` and `allShortestPaths` between two bound nodes, and GQL's `SHORTEST 1`,
//! `ANY` and `ALL SHORTEST` over one quantified relationship (`(a)-[:T]->+(b)`, `b` bound or
//! not): a breadth-first search that records, for every node reached, the relationships that
//! reached it first.
//!
//! A visited set is exact for these: a shortest walk never passes a node twice (cutting the
//! loop would make it shorter), so no path the selector wants goes through a node already
//! reached at a smaller depth. The planner sends only searches whose every test is on one
//! relationship at a time (its type, properties and inline WHERE) and whose minimum is 0 or
//! 1; anything else goes to the path search over the product of graph and pattern.
//!
//! Between two bound nodes a GQL selector searches from both ends, a level at a time from the
//! side with the smaller frontier, and stops at the first level where the two meet: on a
//! graph that fans out the two searches together reach far fewer nodes than one from either
//! end. `shortestPath` keeps the search from its start, so which of several equally short
//! paths it returns stays as it was.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use quiver_storage::{Direction, NodeId, RelId, RelTypeId};
use quiver_value::Value;

use super::expand::{excluded, node_in, resolve_types};
use super::{BoxCursor, Cursor, Cx};
use crate::error::Result;
use crate::eval::graph_fns::{node_value, rel_value};
use crate::eval::truthy;
use crate::ir::{Row, ShortestSpec};

/// The key under which a GQL search records its arrivals back at its start: a path from a
/// node to itself of at least one hop is a cycle, kept apart from the start's depth 0.
const BACK_TO_START: u64 = u64::MAX;

/// What a search keeps per node reached: its depth and the (relationship, previous node)
/// pairs that reached it at that depth (one unless every shortest path is wanted).
type Seen = FxHashMap<u64, (u32, Vec<(RelId, u64)>)>;

pub(crate) struct ShortestPath {
    spec: Arc<ShortestSpec>,
    input: BoxCursor,
    /// Paths found for the current input row: the end node and the relationships from the
    /// start.
    found: Vec<(u64, Vec<RelId>)>,
    types: Vec<RelTypeId>,
}

impl ShortestPath {
    pub fn new(spec: Arc<ShortestSpec>, input: BoxCursor) -> Self {
        ShortestPath {
            spec,
            input,
            found: Vec::new(),
            types: Vec::new(),
        }
    }
}

/// Every shortest path from `from` (just one per end unless `spec.all`): to `target` when it
/// is given, else to every node reached.
fn search(
    spec: &ShortestSpec,
    types: &[RelTypeId],
    from: u64,
    target: Option<u64>,
    row: &mut Row,
    cx: &mut Cx,
) -> Result<Vec<(u64, Vec<RelId>)>> {
    let cycles = spec.gql && spec.min >= 1;
    if target == Some(from) && !cycles {
        return Ok(if spec.min == 0 {
            vec![(from, Vec::new())]
        } else {
            Vec::new()
        });
    }
    if spec.gql
        && let Some(to) = target
        && to != from
    {
        return both_ends(spec, types, from, to, row, cx);
    }
    let goal = target.map(|t| if t == from { BACK_TO_START } else { t });
    let mut seen: Seen = FxHashMap::default();
    seen.insert(from, (0, Vec::new()));
    let mut frontier = vec![from];
    let mut buf = Vec::new();
    let mut depth = 0u32;
    let max = spec.max.min(cx.var_length_hops_max);
    let mut reached = false;
    while !frontier.is_empty() && depth < max && !reached {
        depth += 1;
        let mut next = Vec::new();
        for &node in &frontier {
            cx.tick()?;
            buf.clear();
            cx.tx.expand_into(NodeId(node), spec.dir, types, &mut buf)?;
            for &(rel, nbr) in &buf {
                if spec.gql && excluded(rel.0, row, &spec.exclude, &spec.exclude_lists) {
                    continue;
                }
                if let Some((slot, predicate)) = &spec.rel_filter {
                    row[*slot] = rel_value(rel);
                    if !truthy(&predicate.eval(row, cx)?)? {
                        continue;
                    }
                }
                let key = if cycles && nbr.0 == from {
                    // Back along the one relationship that reached `node` would use it twice:
                    // a match never does. (Only a node one hop out can have been reached by
                    // a relationship that also leads back to the start.)
                    if node != from
                        && seen
                            .get(&node)
                            .is_some_and(|(_, parents)| parents.iter().all(|(r, _)| *r == rel))
                    {
                        continue;
                    }
                    BACK_TO_START
                } else {
                    nbr.0
                };
                match seen.get_mut(&key) {
                    Some((d, parents)) => {
                        if *d == depth && spec.all {
                            parents.push((rel, node));
                        }
                    }
                    None => {
                        cx.reserve(48, "a shortest path search")?;
                        seen.insert(key, (depth, vec![(rel, node)]));
                        if key != BACK_TO_START {
                            next.push(nbr.0);
                        }
                        if Some(key) == goal {
                            reached = true;
                        }
                    }
                }
            }
        }
        frontier = next;
    }
    let ends: Vec<u64> = match goal {
        Some(goal) => {
            if !reached || depth < spec.min {
                return Ok(Vec::new());
            }
            vec![goal]
        }
        None => {
            // Every node reached is an end: by depth, then id, so the rows come shortest
            // first and in the same order every time.
            let mut ends: Vec<(u32, u64)> = seen
                .iter()
                .filter(|(node, (d, _))| {
                    *d >= spec.min && (*d > 0 || !cycles) && (**node != from || *d == 0)
                })
                .map(|(node, (d, _))| (*d, *node))
                .collect();
            ends.sort_unstable();
            ends.into_iter().map(|(_, node)| node).collect()
        }
    };
    let mut paths = Vec::new();
    for end in ends {
        walk_back(&seen, from, end, spec.all, cx, &mut paths)?;
    }
    Ok(paths)
}

/// The direction of a relationship walked from its other end.
fn reverse(dir: Direction) -> Direction {
    match dir {
        Direction::Out => Direction::In,
        Direction::In => Direction::Out,
        Direction::Both => Direction::Both,
    }
}

/// One search of [`both_ends`]: what it reached and the nodes of its last level.
struct Side {
    seen: Seen,
    frontier: Vec<u64>,
    depth: u32,
    dir: Direction,
}

impl Side {
    fn new(start: u64, dir: Direction) -> Side {
        let mut seen: Seen = FxHashMap::default();
        seen.insert(start, (0, Vec::new()));
        Side {
            seen,
            frontier: vec![start],
            depth: 0,
            dir,
        }
    }
}

/// The shortest paths from `from` to `to` (`from != to`), searched from both ends.
fn both_ends(
    spec: &ShortestSpec,
    types: &[RelTypeId],
    from: u64,
    to: u64,
    row: &mut Row,
    cx: &mut Cx,
) -> Result<Vec<(u64, Vec<RelId>)>> {
    let mut sides = [Side::new(from, spec.dir), Side::new(to, reverse(spec.dir))];
    let max = spec.max.min(cx.var_length_hops_max);
    let mut buf = Vec::new();
    // (length, node) where the searches met, the shortest kept.
    let mut met: Vec<(u32, u64)> = Vec::new();
    while met.is_empty()
        && sides[0].depth + sides[1].depth < max
        && !sides[0].frontier.is_empty()
        && !sides[1].frontier.is_empty()
    {
        let (this, other) = if sides[0].frontier.len() <= sides[1].frontier.len() {
            (0, 1)
        } else {
            (1, 0)
        };
        let depth = sides[this].depth + 1;
        let mut next = Vec::new();
        for node in std::mem::take(&mut sides[this].frontier) {
            cx.tick()?;
            buf.clear();
            cx.tx
                .expand_into(NodeId(node), sides[this].dir, types, &mut buf)?;
            for &(rel, nbr) in &buf {
                if excluded(rel.0, row, &spec.exclude, &spec.exclude_lists) {
                    continue;
                }
                if let Some((slot, predicate)) = &spec.rel_filter {
                    row[*slot] = rel_value(rel);
                    if !truthy(&predicate.eval(row, cx)?)? {
                        continue;
                    }
                }
                match sides[this].seen.get_mut(&nbr.0) {
                    Some((d, parents)) => {
                        if *d == depth && spec.all {
                            parents.push((rel, node));
                        }
                        continue;
                    }
                    None => {
                        cx.reserve(48, "a shortest path search")?;
                        sides[this].seen.insert(nbr.0, (depth, vec![(rel, node)]));
                        next.push(nbr.0);
                    }
                }
                if let Some((d, _)) = sides[other].seen.get(&nbr.0) {
                    met.push((depth + d, nbr.0));
                }
            }
        }
        sides[this].frontier = next;
        sides[this].depth = depth;
    }
    let Some(length) = met.iter().map(|(l, _)| *l).min() else {
        return Ok(Vec::new());
    };
    if length < spec.min || length > max {
        return Ok(Vec::new());
    }
    let mut paths = Vec::new();
    for (_, node) in met.into_iter().filter(|(l, _)| *l == length) {
        let heads = paths_to(&sides[0].seen, from, node, spec.all, cx)?;
        let tails = paths_to(&sides[1].seen, to, node, spec.all, cx)?;
        for head in &heads {
            for tail in &tails {
                let mut path = head.clone();
                path.extend(tail.iter().rev());
                paths.push((to, path));
            }
        }
        if !spec.all && !paths.is_empty() {
            paths.truncate(1);
            break;
        }
    }
    Ok(paths)
}

/// The relationships from `origin` to `node` along the recorded parents (every way there
/// when `all`, else one), each in order from `origin`.
fn paths_to(
    seen: &Seen,
    origin: u64,
    node: u64,
    all: bool,
    cx: &mut Cx,
) -> Result<Vec<Vec<RelId>>> {
    parent_walks(seen, origin, node, all, cx, |_| true)
}

/// The paths to `end` along the recorded parents, branching at every node with several
/// (only the first unless `all`), appended to `paths` with the end node (the start itself
/// for [`BACK_TO_START`]).
fn walk_back(
    seen: &Seen,
    from: u64,
    end: u64,
    all: bool,
    cx: &mut Cx,
    paths: &mut Vec<(u64, Vec<RelId>)>,
) -> Result<()> {
    let end_node = if end == BACK_TO_START { from } else { end };
    // A cycle of two hops may have gone out and back along one relationship (when another
    // reached the same node too): not a match.
    let walks = parent_walks(seen, from, end, all, cx, |p| {
        !(p.len() == 2 && p[0] == p[1])
    })?;
    paths.extend(walks.into_iter().map(|p| (end_node, p)));
    Ok(())
}

/// The walks from `origin` to `node` along the recorded parents that `keep` accepts, each
/// in order from `origin`: every one when `all`, else the first kept. The one depth-first
/// walk behind [`paths_to`] and [`walk_back`].
fn parent_walks(
    seen: &Seen,
    origin: u64,
    node: u64,
    all: bool,
    cx: &mut Cx,
    keep: impl Fn(&[RelId]) -> bool,
) -> Result<Vec<Vec<RelId>>> {
    let mut paths = Vec::new();
    let mut stack: Vec<(u64, Vec<RelId>)> = vec![(node, Vec::new())];
    while let Some((at, suffix)) = stack.pop() {
        cx.tick()?;
        if at == origin {
            let mut p = suffix;
            p.reverse();
            if !keep(&p) {
                continue;
            }
            paths.push(p);
            if !all {
                break;
            }
            continue;
        }
        let Some((_, parents)) = seen.get(&at) else {
            continue;
        };
        for &(rel, parent) in parents {
            let mut s = suffix.clone();
            s.push(rel);
            stack.push((parent, s));
            if !all {
                break;
            }
        }
    }
    Ok(paths)
}

impl Cursor for ShortestPath {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let spec = &*self.spec;
        loop {
            if let Some((end, mut path)) = self.found.pop() {
                if spec.reversed {
                    path.reverse();
                }
                row[spec.rels] = Value::from(path.into_iter().map(rel_value).collect::<Vec<_>>());
                if !spec.into {
                    row[spec.to] = node_value(NodeId(end));
                }
                return Ok(true);
            }
            if !self.input.next(cx, row)? {
                return Ok(false);
            }
            let Some(from) = node_in(row, spec.from)? else {
                continue;
            };
            let target = if spec.into {
                match node_in(row, spec.to)? {
                    Some(to) => Some(to),
                    None => continue,
                }
            } else {
                None
            };
            if resolve_types(&spec.types, cx, &mut self.types).is_none() {
                // No relationship has the type: only the path of no hops, when it may be one.
                if spec.gql && spec.min == 0 && target.is_none_or(|t| t == from) {
                    self.found = vec![(from, Vec::new())];
                }
                continue;
            }
            let types = std::mem::take(&mut self.types);
            // The search's visited set goes when it returns: what it counted goes with it.
            let held = cx.memory_bytes;
            let found = search(spec, &types, from, target, row, cx);
            cx.release(cx.memory_bytes.saturating_sub(held));
            self.types = types;
            self.found = found?;
            self.found.reverse();
        }
    }

    fn reset(&mut self) {
        self.found.clear();
        self.input.reset();
    }
}
