//! The compressed sparse row adjacency every kernel reads, and its builder.

use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

/// How parallel relationships (same source, same target) are kept when a graph is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Aggregation {
    /// Every relationship is kept.
    #[default]
    None,
    /// One of them is kept, the one with the smallest weight.
    Single,
    /// One, weighted with the sum of their weights.
    Sum,
    /// One, weighted with the smallest of their weights.
    Min,
    /// One, weighted with the largest of their weights.
    Max,
    /// One, weighted with how many there were.
    Count,
}

/// One direction of adjacency: node `i`'s neighbours are `targets[offsets[i]..offsets[i+1]]`,
/// sorted, their weights beside them when the graph is weighted.
#[derive(Clone, Debug)]
struct Csr {
    offsets: Vec<usize>,
    targets: Vec<u32>,
    weights: Option<Vec<f64>>,
    /// Each relationship's type, as a small number the caller gave, when it gave them.
    types: Option<Vec<u16>>,
}

impl Csr {
    fn bytes(&self) -> usize {
        self.offsets.len() * size_of::<usize>()
            + self.targets.len() * size_of::<u32>()
            + self
                .weights
                .as_ref()
                .map_or(0, |w| w.len() * size_of::<f64>())
    }

    /// The adjacency with every relationship turned around.
    fn transpose(&self, n: usize) -> Csr {
        let mut edges = Vec::with_capacity(self.targets.len());
        for source in 0..n {
            for i in self.offsets[source]..self.offsets[source + 1] {
                let w = self.weights.as_ref().map_or(1.0, |w| w[i]);
                let t = self.types.as_ref().map_or(0, |t| t[i]);
                edges.push((self.targets[i], source as u32, w, t));
            }
        }
        build_csr(
            n,
            edges,
            self.weights.is_some(),
            self.types.is_some(),
            Aggregation::None,
        )
    }
}

/// An immutable graph over nodes `0..node_count()`: outgoing adjacency, the incoming
/// adjacency built on first need (an undirected graph's is its outgoing one), and optional
/// weights. Safe to read from many threads. Cloning shares the adjacency.
#[derive(Clone, Debug)]
pub struct Graph {
    adjacency: Arc<Adjacency>,
    /// Whether kernels see the stored weights; without them every relationship weighs one.
    use_weights: bool,
}

#[derive(Debug)]
struct Adjacency {
    nodes: usize,
    out: Csr,
    incoming: OnceLock<Csr>,
    undirected: bool,
}

impl Graph {
    /// The number of nodes.
    pub fn node_count(&self) -> usize {
        self.adjacency.nodes
    }

    /// The number of stored relationships: an undirected graph stores each one twice, once
    /// from each end.
    pub fn relationship_count(&self) -> usize {
        self.adjacency.out.targets.len()
    }

    /// Whether every relationship was stored from both of its ends.
    pub fn is_undirected(&self) -> bool {
        self.adjacency.undirected
    }

    /// Whether relationships carry weights (unweighted ones weigh 1).
    pub fn is_weighted(&self) -> bool {
        self.use_weights && self.adjacency.out.weights.is_some()
    }

    /// The same graph with every relationship weighing one; shares the adjacency.
    pub fn unweighted(&self) -> Graph {
        Graph {
            adjacency: self.adjacency.clone(),
            use_weights: false,
        }
    }

    /// The neighbours `node` has relationships to, sorted.
    pub fn out(&self, node: u32) -> &[u32] {
        let n = node as usize;
        &self.adjacency.out.targets
            [self.adjacency.out.offsets[n]..self.adjacency.out.offsets[n + 1]]
    }

    /// The weights of [`Graph::out`]'s relationships, `None` for an unweighted graph.
    pub fn out_weights(&self, node: u32) -> Option<&[f64]> {
        let n = node as usize;
        self.adjacency
            .out
            .weights
            .as_ref()
            .filter(|_| self.use_weights)
            .map(|w| &w[self.adjacency.out.offsets[n]..self.adjacency.out.offsets[n + 1]])
    }

    /// `(neighbour, weight)` for each outgoing relationship of `node`.
    pub fn out_weighted(&self, node: u32) -> impl Iterator<Item = (u32, f64)> + '_ {
        weighted(self.out(node), self.out_weights(node))
    }

    /// The types of [`Graph::out`]'s relationships, `None` for a graph built untyped.
    pub fn out_types(&self, node: u32) -> Option<&[u16]> {
        let n = node as usize;
        let offsets = &self.adjacency.out.offsets;
        self.adjacency
            .out
            .types
            .as_ref()
            .map(|t| &t[offsets[n]..offsets[n + 1]])
    }

    /// The graph of the relationships whose type `keep` holds (all of them for an untyped
    /// graph), sharing nothing with this one; the same nodes, orientation and weights.
    pub fn with_types(&self, keep: &[bool]) -> Graph {
        let out = &self.adjacency.out;
        let Some(types) = &out.types else {
            return self.clone();
        };
        let mut edges = Vec::new();
        for source in 0..self.adjacency.nodes {
            for i in out.offsets[source]..out.offsets[source + 1] {
                if keep.get(types[i] as usize).copied().unwrap_or(false) {
                    let w = out.weights.as_ref().map_or(1.0, |w| w[i]);
                    edges.push((source as u32, out.targets[i], w, types[i]));
                }
            }
        }
        // Stored both ways already: built as directed lists, marked undirected after.
        Graph {
            adjacency: Arc::new(Adjacency {
                nodes: self.adjacency.nodes,
                out: build_csr(
                    self.adjacency.nodes,
                    edges,
                    out.weights.is_some(),
                    true,
                    Aggregation::None,
                ),
                incoming: OnceLock::new(),
                undirected: self.adjacency.undirected,
            }),
            use_weights: self.use_weights,
        }
    }

    /// The number of outgoing relationships of `node`.
    pub fn out_degree(&self, node: u32) -> usize {
        let n = node as usize;
        self.adjacency.out.offsets[n + 1] - self.adjacency.out.offsets[n]
    }

    fn incoming_csr(&self) -> &Csr {
        if self.adjacency.undirected {
            return &self.adjacency.out;
        }
        self.adjacency
            .incoming
            .get_or_init(|| self.adjacency.out.transpose(self.adjacency.nodes))
    }

    /// The neighbours with relationships to `node`, sorted.
    pub fn incoming(&self, node: u32) -> &[u32] {
        let csr = self.incoming_csr();
        let n = node as usize;
        &csr.targets[csr.offsets[n]..csr.offsets[n + 1]]
    }

    /// `(neighbour, weight)` for each relationship into `node`.
    pub fn incoming_weighted(&self, node: u32) -> impl Iterator<Item = (u32, f64)> + '_ {
        let csr = self.incoming_csr();
        let n = node as usize;
        let range = csr.offsets[n]..csr.offsets[n + 1];
        weighted(
            &csr.targets[range.clone()],
            csr.weights
                .as_ref()
                .filter(|_| self.use_weights)
                .map(|w| &w[range]),
        )
    }

    /// Builds the incoming adjacency now rather than on first need (it is built once).
    pub fn prepare_incoming(&self) {
        let _ = self.incoming_csr();
    }

    /// `(neighbour, weight)` of every relationship of `node` either way: the outgoing ones,
    /// then (for a directed graph) the incoming ones.
    pub fn both_weighted(&self, node: u32) -> impl Iterator<Item = (u32, f64)> + '_ {
        let incoming = (!self.adjacency.undirected)
            .then(|| self.incoming_weighted(node))
            .into_iter()
            .flatten();
        self.out_weighted(node).chain(incoming)
    }

    /// The bytes the adjacency holds.
    pub fn size_in_bytes(&self) -> usize {
        size_of::<Adjacency>()
            + self.adjacency.out.bytes()
            + self.adjacency.incoming.get().map_or(0, Csr::bytes)
    }

    /// What the incoming adjacency will take when built, so a caller can count it up front.
    pub fn incoming_size_in_bytes(&self) -> usize {
        if self.adjacency.undirected || self.adjacency.incoming.get().is_some() {
            0
        } else {
            self.adjacency.out.bytes()
        }
    }
}

fn weighted<'g>(
    targets: &'g [u32],
    weights: Option<&'g [f64]>,
) -> impl Iterator<Item = (u32, f64)> + 'g {
    targets
        .iter()
        .enumerate()
        .map(move |(i, t)| (*t, weights.map_or(1.0, |w| w[i])))
}

/// Collects relationships and builds a [`Graph`].
#[derive(Debug)]
pub struct GraphBuilder {
    nodes: usize,
    weighted: bool,
    undirected: bool,
    aggregation: Aggregation,
    typed: bool,
    edges: Vec<(u32, u32, f64, u16)>,
}

impl GraphBuilder {
    /// A builder for a graph of `nodes` nodes. An `undirected` graph stores each relationship
    /// from both ends (a self-loop twice); a `weighted` one keeps the weights given.
    pub fn new(nodes: usize, weighted: bool, undirected: bool) -> GraphBuilder {
        GraphBuilder {
            nodes,
            weighted,
            undirected,
            aggregation: Aggregation::None,
            typed: false,
            edges: Vec::new(),
        }
    }

    /// Keeps the type each relationship is added with ([`GraphBuilder::add_typed`]), so the
    /// graph can be narrowed to some types ([`Graph::with_types`]).
    pub fn typed(mut self) -> GraphBuilder {
        self.typed = true;
        self
    }

    /// How parallel relationships are kept.
    pub fn aggregation(mut self, aggregation: Aggregation) -> GraphBuilder {
        self.aggregation = aggregation;
        self
    }

    /// Reserves room for `n` more relationships.
    pub fn reserve(&mut self, n: usize) {
        self.edges.reserve(n);
    }

    /// Adds a relationship; both ends must be below the node count.
    pub fn add(&mut self, source: u32, target: u32, weight: f64) {
        assert!(
            (source as usize) < self.nodes && (target as usize) < self.nodes,
            "relationship ({source}, {target}) outside a graph of {} nodes",
            self.nodes
        );
        self.edges.push((source, target, weight, 0));
    }

    /// Adds a relationship of type `ty` (a number the caller chooses); parallel relationships
    /// of different types are never aggregated together.
    pub fn add_typed(&mut self, source: u32, target: u32, weight: f64, ty: u16) {
        self.add(source, target, weight);
        if let Some(last) = self.edges.last_mut() {
            last.3 = ty;
        }
    }

    /// The graph, its adjacency lists sorted so every build of the same relationships is the
    /// same graph.
    pub fn build(self) -> Graph {
        let GraphBuilder {
            nodes,
            weighted,
            undirected,
            aggregation,
            typed,
            mut edges,
        } = self;
        if undirected {
            let n = edges.len();
            edges.reserve(n);
            for i in 0..n {
                let (s, t, w, ty) = edges[i];
                edges.push((t, s, w, ty));
            }
        }
        Graph {
            adjacency: Arc::new(Adjacency {
                nodes,
                out: build_csr(nodes, edges, weighted, typed, aggregation),
                incoming: OnceLock::new(),
                undirected,
            }),
            use_weights: weighted || aggregation == Aggregation::Count,
        }
    }
}

/// Counting-sorts `edges` by source, sorts each list by target (then type, then weight) in
/// parallel and merges parallel relationships of one type as `aggregation` says.
fn build_csr(
    nodes: usize,
    edges: Vec<(u32, u32, f64, u16)>,
    weighted: bool,
    typed: bool,
    aggregation: Aggregation,
) -> Csr {
    let mut offsets = vec![0usize; nodes + 1];
    for e in &edges {
        offsets[e.0 as usize + 1] += 1;
    }
    for i in 0..nodes {
        offsets[i + 1] += offsets[i];
    }
    let mut cursor = offsets.clone();
    let mut entries = vec![(0u32, 0u16, 0.0f64); edges.len()];
    for (s, t, w, ty) in edges {
        let at = &mut cursor[s as usize];
        entries[*at] = (t, ty, w);
        *at += 1;
    }
    // Each node's slice sorted on its own, in parallel.
    let mut slices: Vec<&mut [(u32, u16, f64)]> = Vec::with_capacity(nodes);
    let mut rest: &mut [(u32, u16, f64)] = &mut entries;
    for i in 0..nodes {
        let (head, tail) = rest.split_at_mut(offsets[i + 1] - offsets[i]);
        slices.push(head);
        rest = tail;
    }
    slices.par_iter_mut().for_each(|s| {
        s.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.total_cmp(&b.2)));
    });
    if aggregation != Aggregation::None {
        let mut kept = Vec::with_capacity(entries.len());
        let mut new_offsets = vec![0usize; nodes + 1];
        for i in 0..nodes {
            let list = &entries[offsets[i]..offsets[i + 1]];
            let mut j = 0;
            while j < list.len() {
                let mut k = j;
                while k < list.len() && list[k].0 == list[j].0 && list[k].1 == list[j].1 {
                    k += 1;
                }
                let run = &list[j..k];
                let w = match aggregation {
                    Aggregation::None | Aggregation::Single | Aggregation::Min => run[0].2,
                    Aggregation::Sum => run.iter().map(|p| p.2).sum(),
                    Aggregation::Max => run[run.len() - 1].2,
                    Aggregation::Count => run.len() as f64,
                };
                kept.push((list[j].0, list[j].1, w));
                j = k;
            }
            new_offsets[i + 1] = kept.len();
        }
        entries = kept;
        offsets = new_offsets;
    }
    let weights = (weighted || aggregation == Aggregation::Count)
        .then(|| entries.iter().map(|p| p.2).collect());
    let types = typed.then(|| entries.iter().map(|p| p.1).collect());
    Csr {
        offsets,
        targets: entries.into_iter().map(|p| p.0).collect(),
        weights,
        types,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(u32, u32, f64)], undirected: bool, agg: Aggregation) -> Graph {
        let mut b = GraphBuilder::new(n, true, undirected).aggregation(agg);
        for &(s, t, w) in edges {
            b.add(s, t, w);
        }
        b.build()
    }

    #[test]
    fn adjacency_lists_are_sorted_and_incoming_is_the_transpose() {
        let g = graph(
            3,
            &[(0, 2, 1.0), (0, 1, 2.0), (2, 1, 3.0)],
            false,
            Aggregation::None,
        );
        assert_eq!(g.out(0), &[1, 2]);
        assert_eq!(g.out_weights(0), Some(&[2.0, 1.0][..]));
        assert_eq!(g.incoming(1), &[0, 2]);
        assert_eq!(
            g.incoming_weighted(1).collect::<Vec<_>>(),
            vec![(0, 2.0), (2, 3.0)]
        );
        assert_eq!(g.relationship_count(), 3);
    }

    #[test]
    fn an_undirected_graph_stores_each_relationship_from_both_ends_and_a_self_loop_twice() {
        let g = graph(2, &[(0, 1, 1.0), (1, 1, 1.0)], true, Aggregation::None);
        assert_eq!(g.out(0), &[1]);
        assert_eq!(g.out(1), &[0, 1, 1]);
        assert_eq!(g.incoming(1), g.out(1));
        assert_eq!(g.relationship_count(), 4);
    }

    #[test]
    fn a_typed_graph_narrows_to_some_types_and_aggregates_each_type_apart() {
        let mut b = GraphBuilder::new(3, true, false)
            .typed()
            .aggregation(Aggregation::Sum);
        b.add_typed(0, 1, 1.0, 0);
        b.add_typed(0, 1, 2.0, 1);
        b.add_typed(0, 1, 4.0, 1);
        b.add_typed(1, 2, 8.0, 0);
        let g = b.build();
        assert_eq!(
            g.out_weighted(0).collect::<Vec<_>>(),
            vec![(1, 1.0), (1, 6.0)]
        );
        assert_eq!(g.out_types(0), Some(&[0, 1][..]));
        let only = g.with_types(&[false, true]);
        assert_eq!(only.out_weighted(0).collect::<Vec<_>>(), vec![(1, 6.0)]);
        assert!(only.out(1).is_empty());
        assert_eq!(only.incoming(1), &[0]);
    }

    #[test]
    fn aggregation_merges_parallel_relationships() {
        let edges = [(0, 1, 2.0), (0, 1, 5.0), (0, 1, 1.0), (0, 0, 4.0)];
        let weights = |agg| {
            graph(2, &edges, false, agg)
                .out_weighted(0)
                .collect::<Vec<_>>()
        };
        assert_eq!(weights(Aggregation::None).len(), 4);
        assert_eq!(weights(Aggregation::Sum), vec![(0, 4.0), (1, 8.0)]);
        assert_eq!(weights(Aggregation::Min), vec![(0, 4.0), (1, 1.0)]);
        assert_eq!(weights(Aggregation::Max), vec![(0, 4.0), (1, 5.0)]);
        assert_eq!(weights(Aggregation::Count), vec![(0, 1.0), (1, 3.0)]);
        assert_eq!(weights(Aggregation::Single).len(), 2);
    }
}
