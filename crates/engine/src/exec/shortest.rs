//! `shortestPath` and `allShortestPaths` between two bound nodes: a breadth-first search that
//! records, for every node reached, the relationships that reached it first.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use quiver_storage::{NodeId, RelId, RelTypeId};
use quiver_value::Value;

use super::expand::{node_in, resolve_types};
use super::{BoxCursor, Cursor, Cx};
use crate::error::Result;
use crate::eval::graph_fns::rel_value;
use crate::eval::truthy;
use crate::ir::{Row, ShortestSpec};

pub(crate) struct ShortestPath {
    spec: Arc<ShortestSpec>,
    input: BoxCursor,
    /// Paths found for the current input row, as relationship lists in pattern order.
    found: Vec<Vec<RelId>>,
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

/// Every shortest path from `from` to `to` (just one unless `spec.all`).
fn search(
    spec: &ShortestSpec,
    types: &[RelTypeId],
    from: u64,
    to: u64,
    row: &mut Row,
    cx: &mut Cx,
) -> Result<Vec<Vec<RelId>>> {
    if from == to {
        return Ok(if spec.min == 0 {
            vec![Vec::new()]
        } else {
            Vec::new()
        });
    }
    // node -> (depth, parents)
    let mut seen: FxHashMap<u64, (u32, Vec<(RelId, u64)>)> = FxHashMap::default();
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
                if let Some((slot, predicate)) = &spec.rel_filter {
                    row[*slot] = rel_value(rel);
                    if !truthy(&predicate.eval(row, cx)?)? {
                        continue;
                    }
                }
                match seen.get_mut(&nbr.0) {
                    Some((d, parents)) => {
                        if *d == depth && spec.all {
                            parents.push((rel, node));
                        }
                    }
                    None => {
                        cx.reserve(48, "a shortest path search")?;
                        seen.insert(nbr.0, (depth, vec![(rel, node)]));
                        next.push(nbr.0);
                        if nbr.0 == to {
                            reached = true;
                        }
                    }
                }
            }
        }
        frontier = next;
    }
    if !reached || depth < spec.min {
        return Ok(Vec::new());
    }
    // Walk the parent links back from `to`, branching at every node with several parents.
    let mut paths = Vec::new();
    let mut stack: Vec<(u64, Vec<RelId>)> = vec![(to, Vec::new())];
    while let Some((node, suffix)) = stack.pop() {
        cx.tick()?;
        if node == from {
            let mut p = suffix;
            p.reverse();
            paths.push(p);
            if !spec.all {
                break;
            }
            continue;
        }
        let Some((_, parents)) = seen.get(&node) else {
            continue;
        };
        for &(rel, parent) in parents {
            let mut s = suffix.clone();
            s.push(rel);
            stack.push((parent, s));
            if !spec.all {
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
            if let Some(path) = self.found.pop() {
                row[spec.rels] = Value::from(path.into_iter().map(rel_value).collect::<Vec<_>>());
                return Ok(true);
            }
            if !self.input.next(cx, row)? {
                return Ok(false);
            }
            let (Some(from), Some(to)) = (node_in(row, spec.from)?, node_in(row, spec.to)?) else {
                continue;
            };
            if resolve_types(&spec.types, cx, &mut self.types).is_none() {
                continue;
            }
            let types = std::mem::take(&mut self.types);
            // The search's visited set goes when it returns: what it counted goes with it.
            let held = cx.memory_bytes;
            let found = search(spec, &types, from, to, row, cx);
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
