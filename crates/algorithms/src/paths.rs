//! Traversals and shortest paths along outgoing relationships.

use std::collections::{BinaryHeap, VecDeque};

use crate::centrality::Settle;
use crate::control::BLOCK;
use crate::{Control, Graph, Interrupted};

/// Where a traversal stops.
#[derive(Clone, Debug, Default)]
pub struct Traversal {
    /// The traversal ends as soon as it visits one of these (which it includes).
    pub targets: Vec<u32>,
    /// Nodes further than this many relationships from the source are not visited.
    pub max_depth: Option<u64>,
}

/// Breadth-first from `source`: the nodes in the order they were visited, neighbours in
/// adjacency order.
pub fn bfs(
    graph: &Graph,
    source: u32,
    stop: &Traversal,
    control: &Control<'_>,
) -> Result<Vec<u32>, Interrupted> {
    let mut seen = vec![false; graph.node_count()];
    let mut queue = VecDeque::from([(source, 0u64)]);
    seen[source as usize] = true;
    let mut order = Vec::new();
    while let Some((u, depth)) = queue.pop_front() {
        if order.len().is_multiple_of(BLOCK) {
            control.check()?;
        }
        order.push(u);
        if stop.targets.contains(&u) {
            break;
        }
        if stop.max_depth.is_some_and(|m| depth >= m) {
            continue;
        }
        for &v in graph.out(u) {
            if !seen[v as usize] {
                seen[v as usize] = true;
                queue.push_back((v, depth + 1));
            }
        }
    }
    Ok(order)
}

/// Depth-first from `source`: the nodes in the order they were first visited, each node's
/// neighbours taken in adjacency order (the first neighbour's subtree before the second's).
pub fn dfs(
    graph: &Graph,
    source: u32,
    stop: &Traversal,
    control: &Control<'_>,
) -> Result<Vec<u32>, Interrupted> {
    let mut seen = vec![false; graph.node_count()];
    // (node, depth, position in its adjacency list)
    let mut walk = vec![(source, 0u64, 0usize)];
    seen[source as usize] = true;
    let mut order = vec![source];
    if stop.targets.contains(&source) {
        return Ok(order);
    }
    while let Some(top) = walk.last_mut() {
        let (u, depth, at) = *top;
        let neighbours = graph.out(u);
        if at >= neighbours.len() || stop.max_depth.is_some_and(|m| depth >= m) {
            walk.pop();
            continue;
        }
        top.2 += 1;
        let v = neighbours[at];
        if seen[v as usize] {
            continue;
        }
        if order.len().is_multiple_of(BLOCK) {
            control.check()?;
        }
        seen[v as usize] = true;
        order.push(v);
        if stop.targets.contains(&v) {
            break;
        }
        walk.push((v, depth + 1, 0));
    }
    Ok(order)
}

/// A shortest path: its nodes from the source and the cost accumulated at each.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    pub nodes: Vec<u32>,
    pub costs: Vec<f64>,
}

impl Path {
    pub fn target(&self) -> u32 {
        *self.nodes.last().expect("a path has its source")
    }

    pub fn total_cost(&self) -> f64 {
        *self.costs.last().expect("a path has its source")
    }
}

/// Dijkstra's shortest paths from `source` (weights as stored; an unweighted graph's weigh
/// one), in the order their ends were settled: cheapest first, ties by node index. With a
/// `target`, only the path to it (none when unreachable), and the search stops there.
pub fn dijkstra(
    graph: &Graph,
    source: u32,
    target: Option<u32>,
    control: &Control<'_>,
) -> Result<Vec<Path>, Interrupted> {
    let n = graph.node_count();
    let mut cost = vec![f64::INFINITY; n];
    let mut previous = vec![u32::MAX; n];
    let mut settled = vec![false; n];
    let mut heap = BinaryHeap::from([Settle {
        cost: 0.0,
        node: source,
    }]);
    cost[source as usize] = 0.0;
    let mut order = Vec::new();
    while let Some(Settle { cost: c, node: u }) = heap.pop() {
        let ui = u as usize;
        if settled[ui] || c > cost[ui] {
            continue;
        }
        if order.len().is_multiple_of(BLOCK) {
            control.check()?;
        }
        settled[ui] = true;
        order.push(u);
        if target == Some(u) {
            break;
        }
        for (v, w) in graph.out_weighted(u) {
            let vi = v as usize;
            let alt = c + w;
            if !settled[vi] && alt < cost[vi] {
                cost[vi] = alt;
                previous[vi] = u;
                heap.push(Settle { cost: alt, node: v });
            }
        }
    }
    let path_to = |t: u32| {
        let mut nodes = vec![t];
        let mut at = t;
        while at != source {
            at = previous[at as usize];
            nodes.push(at);
        }
        nodes.reverse();
        let costs = nodes.iter().map(|v| cost[*v as usize]).collect();
        Path { nodes, costs }
    };
    Ok(match target {
        Some(t) if settled[t as usize] => vec![path_to(t)],
        Some(_) => Vec::new(),
        None => order.into_iter().map(path_to).collect(),
    })
}
