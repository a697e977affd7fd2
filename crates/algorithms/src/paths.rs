//! Traversals and shortest paths along outgoing relationships.

use std::collections::{BTreeMap, BinaryHeap, HashSet, VecDeque};

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
    search(graph, source, target, &Blocked::default(), control)
}

/// What a search may not step on: nodes, and relationships by their ends.
#[derive(Default)]
struct Blocked {
    nodes: HashSet<u32>,
    steps: HashSet<(u32, u32)>,
}

/// An estimate of the cost from a node to the target, for A*.
pub type Heuristic<'h> = &'h (dyn Fn(u32) -> f64 + Sync);

/// A* from `source` to `target`: Dijkstra's search taking nodes in order of cost so far plus
/// `heuristic`'s estimate of the rest. With an estimate that never exceeds the true cost (and
/// obeys the triangle inequality) the path is a cheapest one, found settling fewer nodes.
pub fn a_star(
    graph: &Graph,
    source: u32,
    target: u32,
    heuristic: Heuristic<'_>,
    control: &Control<'_>,
) -> Result<Vec<Path>, Interrupted> {
    guided(
        graph,
        source,
        Some(target),
        &Blocked::default(),
        Some(heuristic),
        control,
    )
}

/// Haversine distance between two points given in degrees, in nautical miles: the estimate
/// Graph Data Science's A* uses.
pub fn haversine_nautical_miles(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    const EARTH_RADIUS_NM: f64 = 3440.065;
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dp = (lat2 - lat1).to_radians();
    let dl = (lon2 - lon1).to_radians();
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_NM * a.sqrt().min(1.0).asin()
}

/// Dijkstra's search avoiding `blocked`.
fn search(
    graph: &Graph,
    source: u32,
    target: Option<u32>,
    blocked: &Blocked,
    control: &Control<'_>,
) -> Result<Vec<Path>, Interrupted> {
    guided(graph, source, target, blocked, None, control)
}

/// The search of Dijkstra and A*: nodes settled in order of cost so far (plus the estimate of
/// the rest, for A*), a node's first settling being its cheapest.
fn guided(
    graph: &Graph,
    source: u32,
    target: Option<u32>,
    blocked: &Blocked,
    heuristic: Option<Heuristic<'_>>,
    control: &Control<'_>,
) -> Result<Vec<Path>, Interrupted> {
    let estimate = |v: u32| heuristic.map_or(0.0, |h| h(v));
    let n = graph.node_count();
    let mut cost = vec![f64::INFINITY; n];
    let mut previous = vec![u32::MAX; n];
    let mut settled = vec![false; n];
    let mut heap = BinaryHeap::from([Settle {
        cost: estimate(source),
        node: source,
    }]);
    cost[source as usize] = 0.0;
    let mut order = Vec::new();
    while let Some(Settle { node: u, .. }) = heap.pop() {
        let ui = u as usize;
        if settled[ui] {
            continue;
        }
        let c = cost[ui];
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
            if blocked.nodes.contains(&v) || blocked.steps.contains(&(u, v)) {
                continue;
            }
            if !settled[vi] && alt < cost[vi] {
                cost[vi] = alt;
                previous[vi] = u;
                heap.push(Settle {
                    cost: alt + estimate(v),
                    node: v,
                });
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

/// Yen's `k` shortest loopless paths from `source` to `target`, cheapest first (equal costs
/// in order of their node sequences). Each next path leaves a found one at some node (the spur)
/// after the same first steps (the root), by the cheapest way that avoids the root's nodes and
/// every step the found paths with that root took from the spur.
pub fn yens(
    graph: &Graph,
    source: u32,
    target: u32,
    k: usize,
    control: &Control<'_>,
) -> Result<Vec<Path>, Interrupted> {
    let mut found: Vec<Path> = search(graph, source, Some(target), &Blocked::default(), control)?;
    let mut candidates: Vec<Path> = Vec::new();
    while found.len() < k {
        let Some(last) = found.last().cloned() else {
            break;
        };
        for j in 0..last.nodes.len().saturating_sub(1) {
            control.check()?;
            let root = &last.nodes[..=j];
            let spur = last.nodes[j];
            let mut blocked = Blocked::default();
            blocked.nodes.extend(root[..j].iter().copied());
            for p in &found {
                if p.nodes.len() > j + 1 && p.nodes[..=j] == *root {
                    blocked.steps.insert((p.nodes[j], p.nodes[j + 1]));
                }
            }
            let Some(spur_path) = search(graph, spur, Some(target), &blocked, control)?.pop()
            else {
                continue;
            };
            let base = last.costs[j];
            let mut nodes = root[..j].to_vec();
            nodes.extend(&spur_path.nodes);
            let mut costs = last.costs[..j].to_vec();
            costs.extend(spur_path.costs.iter().map(|c| base + c));
            let candidate = Path { nodes, costs };
            if !candidates
                .iter()
                .chain(&found)
                .any(|p| p.nodes == candidate.nodes)
            {
                candidates.push(candidate);
            }
        }
        let Some(next) = candidates
            .iter()
            .enumerate()
            .min_by(|(_, a), (_, b)| {
                a.total_cost()
                    .total_cmp(&b.total_cost())
                    .then_with(|| a.nodes.cmp(&b.nodes))
            })
            .map(|(i, _)| i)
        else {
            break;
        };
        found.push(candidates.swap_remove(next));
    }
    Ok(found)
}

/// Shortest path costs from `source` by delta-stepping, relaxing many nodes at once: nodes wait
/// in buckets of width `delta` by their cost so far, each bucket's nodes relax their
/// relationships in parallel until the bucket stays empty, then the next bucket. Relationships
/// with a negative or NaN weight are not followed. Gives the paths Dijkstra gives in cost, in
/// order of cost then node index (each path along the first cheapest steps found breadth-first
/// from the source).
pub fn delta_stepping(
    graph: &Graph,
    source: u32,
    delta: f64,
    control: &Control<'_>,
) -> Result<Vec<Path>, Interrupted> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    let n = graph.node_count();
    // Costs as the bits of non-negative floats, whose order the bits keep.
    let cost: Vec<AtomicU64> = (0..n)
        .map(|_| AtomicU64::new(f64::INFINITY.to_bits()))
        .collect();
    cost[source as usize].store(0f64.to_bits(), Ordering::Relaxed);
    let read = |v: u32| f64::from_bits(cost[v as usize].load(Ordering::Relaxed));
    let bucket_of = |c: f64| (c / delta) as u64;
    // Only the buckets that hold nodes exist: costs far apart over a small delta would
    // otherwise ask for a vast array.
    let mut buckets: BTreeMap<u64, Vec<u32>> = BTreeMap::from([(0, vec![source])]);
    while let Some((current, mut frontier)) = buckets.pop_first() {
        loop {
            control.check()?;
            frontier.sort_unstable();
            frontier.dedup();
            frontier.retain(|&u| bucket_of(read(u)) == current);
            if frontier.is_empty() {
                break;
            }
            let cost = &cost;
            let improved: Vec<(u32, f64)> = control.install(|| {
                frontier
                    .par_iter()
                    .flat_map_iter(|&u| {
                        let cu = read(u);
                        graph
                            .out_weighted(u)
                            .filter(|(_, w)| *w >= 0.0)
                            .filter_map(move |(v, w)| {
                                let next = cu + w;
                                let before =
                                    cost[v as usize].fetch_min(next.to_bits(), Ordering::Relaxed);
                                (next.to_bits() < before).then_some((v, next))
                            })
                            .collect::<Vec<_>>()
                    })
                    .collect()
            });
            // Nodes improved into this bucket are relaxed again before the next bucket.
            frontier = Vec::new();
            for (v, c) in improved {
                let b = bucket_of(c).max(current);
                if b == current {
                    frontier.push(v);
                } else {
                    buckets.entry(b).or_default().push(v);
                }
            }
        }
    }
    // Paths along tight steps (cost so far plus weight equals the cost reached), found
    // breadth-first from the source so each node is given one predecessor, without cycles.
    let mut previous = vec![u32::MAX; n];
    let mut placed = vec![false; n];
    placed[source as usize] = true;
    let mut queue = VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        let cu = read(u);
        for (v, w) in graph.out_weighted(u) {
            if !placed[v as usize] && w >= 0.0 && cu + w == read(v) {
                placed[v as usize] = true;
                previous[v as usize] = u;
                queue.push_back(v);
            }
        }
    }
    let mut reached: Vec<u32> = (0..n as u32).filter(|v| placed[*v as usize]).collect();
    reached.sort_by(|a, b| read(*a).total_cmp(&read(*b)).then(a.cmp(b)));
    Ok(reached
        .into_iter()
        .map(|t| {
            let mut nodes = vec![t];
            let mut at = t;
            while at != source {
                at = previous[at as usize];
                nodes.push(at);
            }
            nodes.reverse();
            let costs = nodes.iter().map(|v| read(*v)).collect();
            Path { nodes, costs }
        })
        .collect())
}
