//! Centrality: PageRank and ArticleRank, degree, closeness and betweenness.

use std::collections::{BinaryHeap, VecDeque};

use rayon::prelude::*;

use crate::{Control, Graph, Interrupted};

/// What PageRank and ArticleRank compute.
#[derive(Clone, Debug)]
pub struct RankConfig {
    /// The chance of following a relationship rather than jumping: each node keeps
    /// `1 - damping_factor` of its own and receives `damping_factor` of its in-neighbours'
    /// shares.
    pub damping_factor: f64,
    /// The most iterations run.
    pub max_iterations: usize,
    /// The run has converged when no score changed by this much or more in an iteration.
    pub tolerance: f64,
    /// A personalised run jumps only to these nodes; empty jumps to every node.
    pub source_nodes: Vec<u32>,
    /// ArticleRank rather than PageRank: a node's share is divided by its out-degree plus the
    /// graph's average out-degree, so nodes with few relationships pass on less.
    pub article_rank: bool,
}

impl Default for RankConfig {
    fn default() -> Self {
        RankConfig {
            damping_factor: 0.85,
            max_iterations: 20,
            tolerance: 1e-7,
            source_nodes: Vec::new(),
            article_rank: false,
        }
    }
}

/// Scores of an iterative centrality, with how the iteration ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranks {
    pub scores: Vec<f64>,
    pub ran_iterations: usize,
    pub did_converge: bool,
}

/// PageRank (or ArticleRank) as Neo4j's Graph Data Science computes it: scores are not
/// normalised to sum to one. Every node starts at `1 - d`; each iteration sets
/// `score(v) = (1 - d) + d * Σ score(u) * w(u, v) / W(u)` over `v`'s in-neighbours `u`, where
/// `W(u)` is the total weight of `u`'s outgoing relationships (plus the average of those
/// totals for ArticleRank). A node with no outgoing relationships passes nothing on. Scores
/// are pulled in parallel from the incoming adjacency.
pub fn page_rank(
    graph: &Graph,
    config: &RankConfig,
    control: &Control<'_>,
) -> Result<Ranks, Interrupted> {
    let n = graph.node_count();
    let d = config.damping_factor;
    let mut base = vec![0.0; n];
    if config.source_nodes.is_empty() {
        base.fill(1.0 - d);
    } else {
        for s in &config.source_nodes {
            if let Some(b) = base.get_mut(*s as usize) {
                *b = 1.0 - d;
            }
        }
    }
    let mut out_weight = vec![0.0; n];
    control.fill(&mut out_weight, |v| {
        graph.out_weighted(v as u32).map(|(_, w)| w).sum()
    })?;
    if config.article_rank && n > 0 {
        let average = out_weight.iter().sum::<f64>() / n as f64;
        for w in &mut out_weight {
            *w += average;
        }
    }
    control.install(|| graph.prepare_incoming());
    let mut scores = base.clone();
    let mut share = vec![0.0; n];
    let mut next = vec![0.0; n];
    let mut ran_iterations = 0;
    let mut did_converge = false;
    while ran_iterations < config.max_iterations {
        control.check()?;
        control.fill(&mut share, |u| {
            if out_weight[u] > 0.0 {
                scores[u] / out_weight[u]
            } else {
                0.0
            }
        })?;
        control.fill(&mut next, |v| {
            let pulled: f64 = graph
                .incoming_weighted(v as u32)
                .map(|(u, w)| share[u as usize] * w)
                .sum();
            base[v] + d * pulled
        })?;
        ran_iterations += 1;
        let change = control.install(|| {
            next.par_iter()
                .zip(scores.par_iter())
                .map(|(a, b)| (a - b).abs())
                .reduce(|| 0.0, f64::max)
        });
        std::mem::swap(&mut scores, &mut next);
        if change < config.tolerance {
            did_converge = true;
            break;
        }
    }
    Ok(Ranks {
        scores,
        ran_iterations,
        did_converge,
    })
}

/// Which relationships a node's degree counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Orientation {
    /// Outgoing ones.
    #[default]
    Natural,
    /// Incoming ones.
    Reverse,
    /// Both; in an undirected graph, each relationship once.
    Undirected,
}

/// Each node's degree: the number (or, for a weighted graph, the total weight) of its
/// relationships in `orientation`.
pub fn degree(
    graph: &Graph,
    orientation: Orientation,
    control: &Control<'_>,
) -> Result<Vec<f64>, Interrupted> {
    let mut out = vec![0.0; graph.node_count()];
    let sum = |it: &mut dyn Iterator<Item = (u32, f64)>| it.map(|(_, w)| w).sum::<f64>();
    match orientation {
        Orientation::Natural => {
            control.fill(&mut out, |v| sum(&mut graph.out_weighted(v as u32)))?;
        }
        Orientation::Reverse => {
            control.install(|| graph.prepare_incoming());
            control.fill(&mut out, |v| sum(&mut graph.incoming_weighted(v as u32)))?;
        }
        Orientation::Undirected => {
            control.install(|| graph.prepare_incoming());
            control.fill(&mut out, |v| sum(&mut graph.both_weighted(v as u32)))?;
        }
    }
    Ok(out)
}

/// Closeness centrality over outgoing relationships, unweighted: for a node reaching `r - 1`
/// others at total distance `D`, `(r - 1) / D` (zero when it reaches none). With
/// `wasserman_faust` the score is scaled by `(r - 1) / (n - 1)`, so nodes in small components
/// do not score as high as the centre of the whole graph.
pub fn closeness(
    graph: &Graph,
    wasserman_faust: bool,
    control: &Control<'_>,
) -> Result<Vec<f64>, Interrupted> {
    let n = graph.node_count();
    let mut out = vec![0.0; n];
    control.install(|| {
        out.par_iter_mut().enumerate().try_for_each_init(
            || (vec![u32::MAX; n], VecDeque::new()),
            |(dist, queue), (s, score)| {
                control.check()?;
                dist.fill(u32::MAX);
                dist[s] = 0;
                queue.push_back(s as u32);
                let (mut reached, mut total) = (0u64, 0u64);
                while let Some(u) = queue.pop_front() {
                    let du = dist[u as usize];
                    for &v in graph.out(u) {
                        if dist[v as usize] == u32::MAX {
                            dist[v as usize] = du + 1;
                            reached += 1;
                            total += u64::from(du + 1);
                            queue.push_back(v);
                        }
                    }
                }
                if total > 0 {
                    let mut c = reached as f64 / total as f64;
                    if wasserman_faust {
                        c *= reached as f64 / (n - 1) as f64;
                    }
                    *score = c;
                }
                Ok(())
            },
        )
    })?;
    Ok(out)
}

/// Betweenness centrality by Brandes' algorithm from every node (in parallel): the number of
/// shortest paths between other nodes that pass through each node, shared among equally
/// short paths. Shortest means fewest relationships, or least total weight for a weighted
/// graph. In an undirected graph each path is found from both of its ends, so the sums are
/// halved.
pub fn betweenness(graph: &Graph, control: &Control<'_>) -> Result<Vec<f64>, Interrupted> {
    let sources: Vec<u32> = (0..graph.node_count() as u32).collect();
    betweenness_from(graph, &sources, control)
}

/// Betweenness counted from `sources` only (a sample, for large graphs): the same sums over
/// fewer sources, not scaled up. Sources are split into a fixed number of parts summed apart
/// and then in order, so the floating-point sums are the same on any number of threads.
pub fn betweenness_from(
    graph: &Graph,
    sources: &[u32],
    control: &Control<'_>,
) -> Result<Vec<f64>, Interrupted> {
    const PARTS: usize = 16;
    let n = graph.node_count();
    let weighted = graph.is_weighted();
    let parts: Vec<Vec<f64>> = control.install(|| {
        (0..PARTS)
            .into_par_iter()
            .map(|part| {
                let mut acc = vec![0.0; n];
                let mut b = Brandes::new(n);
                for &s in sources.iter().skip(part).step_by(PARTS) {
                    control.check()?;
                    b.run(graph, s, weighted);
                    b.accumulate(&mut acc, s);
                }
                Ok(acc)
            })
            .collect::<Result<Vec<_>, Interrupted>>()
    })?;
    let mut totals = vec![0.0; n];
    for part in parts {
        for (t, x) in totals.iter_mut().zip(part) {
            *t += x;
        }
    }
    let divisor = if graph.is_undirected() { 2.0 } else { 1.0 };
    Ok(totals.into_iter().map(|t| t / divisor).collect())
}

/// One source's shortest-path DAG, reused between sources.
struct Brandes {
    distance: Vec<f64>,
    paths: Vec<f64>,
    dependency: Vec<f64>,
    predecessors: Vec<Vec<u32>>,
    settled: Vec<bool>,
    /// The nodes reached from the source, in the order they were settled: every node the
    /// next source must reset.
    order: Vec<u32>,
}

impl Brandes {
    fn new(n: usize) -> Brandes {
        Brandes {
            distance: vec![f64::INFINITY; n],
            paths: vec![0.0; n],
            dependency: vec![0.0; n],
            predecessors: vec![Vec::new(); n],
            settled: vec![false; n],
            order: Vec::new(),
        }
    }

    /// Shortest paths from `s`: distances, path counts, predecessors, and the nodes in the
    /// order they were settled.
    fn run(&mut self, graph: &Graph, s: u32, weighted: bool) {
        for &v in &self.order {
            let v = v as usize;
            self.distance[v] = f64::INFINITY;
            self.paths[v] = 0.0;
            self.dependency[v] = 0.0;
            self.predecessors[v].clear();
            self.settled[v] = false;
        }
        self.order.clear();
        let si = s as usize;
        self.distance[si] = 0.0;
        self.paths[si] = 1.0;
        if weighted {
            let mut heap = BinaryHeap::new();
            heap.push(Settle { cost: 0.0, node: s });
            while let Some(Settle { cost, node: u }) = heap.pop() {
                let ui = u as usize;
                if cost > self.distance[ui] || self.settled[ui] {
                    continue;
                }
                self.settled[ui] = true;
                self.order.push(u);
                for (v, w) in graph.out_weighted(u) {
                    let vi = v as usize;
                    let alt = cost + w;
                    if alt < self.distance[vi] {
                        self.distance[vi] = alt;
                        self.paths[vi] = self.paths[ui];
                        self.predecessors[vi].clear();
                        self.predecessors[vi].push(u);
                        heap.push(Settle { cost: alt, node: v });
                    } else if alt == self.distance[vi] && v != u {
                        self.paths[vi] += self.paths[ui];
                        self.predecessors[vi].push(u);
                    }
                }
            }
        } else {
            let mut queue = VecDeque::new();
            queue.push_back(s);
            while let Some(u) = queue.pop_front() {
                let ui = u as usize;
                self.order.push(u);
                for &v in graph.out(u) {
                    let vi = v as usize;
                    if self.distance[vi].is_infinite() {
                        self.distance[vi] = self.distance[ui] + 1.0;
                        queue.push_back(v);
                    }
                    if self.distance[vi] == self.distance[ui] + 1.0 {
                        self.paths[vi] += self.paths[ui];
                        self.predecessors[vi].push(u);
                    }
                }
            }
        }
    }

    /// Adds each node's dependency on `s` to `acc`, walking the settled nodes backwards.
    fn accumulate(&mut self, acc: &mut [f64], s: u32) {
        for &w in self.order.iter().rev() {
            let wi = w as usize;
            for &v in &self.predecessors[wi] {
                let vi = v as usize;
                self.dependency[vi] +=
                    self.paths[vi] / self.paths[wi] * (1.0 + self.dependency[wi]);
            }
            if w != s {
                acc[wi] += self.dependency[wi];
            }
        }
    }
}

/// A node waiting in Dijkstra's queue; the heap pops the least cost, then the least index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Settle {
    pub(crate) cost: f64,
    pub(crate) node: u32,
}

impl Eq for Settle {}

impl Ord for Settle {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .cost
            .total_cmp(&self.cost)
            .then_with(|| other.node.cmp(&self.node))
    }
}

impl PartialOrd for Settle {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
