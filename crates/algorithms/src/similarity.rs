//! Similarity: node similarity (the Jaccard similarity of nodes' sets of out-neighbours) and
//! k-nearest neighbours by node properties, each node's most similar others.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::control::BLOCK;
use crate::{Control, Graph, Interrupted};

/// What node similarity keeps.
#[derive(Clone, Debug)]
pub struct SimilarityConfig {
    /// The most similar nodes kept per node.
    pub top_k: usize,
    /// Pairs less similar than this are dropped.
    pub similarity_cutoff: f64,
    /// Nodes with fewer distinct out-neighbours than this are not compared.
    pub degree_cutoff: usize,
}

impl Default for SimilarityConfig {
    fn default() -> Self {
        SimilarityConfig {
            top_k: 10,
            similarity_cutoff: 1e-42,
            degree_cutoff: 1,
        }
    }
}

/// A node, another and their similarity.
pub type Pair = (u32, u32, f64);

/// For each node, its `top_k` most similar other nodes by Jaccard similarity of distinct
/// out-neighbours, `|N(a) ∩ N(b)| / |N(a) ∪ N(b)|`; only pairs sharing a neighbour are
/// considered. Pairs come by first node, then by similarity (highest first), then by second
/// node; each unordered pair appears once from each side when it is in both top lists.
/// Intersections are counted through the neighbours' incoming lists, nodes in parallel.
pub fn node_similarity(
    graph: &Graph,
    config: &SimilarityConfig,
    control: &Control<'_>,
) -> Result<Vec<Pair>, Interrupted> {
    let n = graph.node_count();
    let distinct = |list: &[u32]| {
        let mut l = list.to_vec();
        l.dedup();
        l
    };
    let mut out_sets: Vec<Vec<u32>> = vec![Vec::new(); n];
    control.fill(&mut out_sets, |u| distinct(graph.out(u as u32)))?;
    let compared: Vec<bool> = out_sets
        .iter()
        .map(|s| !s.is_empty() && s.len() >= config.degree_cutoff)
        .collect();
    let mut in_sets: Vec<Vec<u32>> = vec![Vec::new(); n];
    control.install(|| graph.prepare_incoming());
    control.fill(&mut in_sets, |w| {
        let mut l: Vec<u32> = graph
            .incoming(w as u32)
            .iter()
            .copied()
            .filter(|v| compared[*v as usize])
            .collect();
        l.dedup();
        l
    })?;
    let per_node: Vec<Vec<Pair>> = control.install(|| {
        (0..n)
            .into_par_iter()
            .map_init(HashMap::new, |shared: &mut HashMap<u32, u32>, u| {
                if u.is_multiple_of(BLOCK) {
                    control.check()?;
                }
                if !compared[u] {
                    return Ok(Vec::new());
                }
                shared.clear();
                for &w in &out_sets[u] {
                    for &v in &in_sets[w as usize] {
                        if v as usize != u {
                            *shared.entry(v).or_insert(0) += 1;
                        }
                    }
                }
                let du = out_sets[u].len() as f64;
                let mut pairs: Vec<Pair> = shared
                    .iter()
                    .map(|(&v, &c)| {
                        let c = f64::from(c);
                        let dv = out_sets[v as usize].len() as f64;
                        (u as u32, v, c / (du + dv - c))
                    })
                    .filter(|p| p.2 >= config.similarity_cutoff)
                    .collect();
                pairs.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.1.cmp(&b.1)));
                pairs.truncate(config.top_k);
                Ok(pairs)
            })
            .collect::<Result<Vec<_>, Interrupted>>()
    })?;
    Ok(per_node.into_iter().flatten().collect())
}

/// How two nodes' property values are compared by [`knn`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Numbers: `1 / (1 + |a - b|)`.
    Absolute,
    /// Lists: the cosine of the angle between them (zero when either is all zeros).
    Cosine,
    /// Lists: `1 / (1 + euclidean distance)`.
    Euclidean,
    /// Lists: Pearson's correlation (zero when either is constant).
    Pearson,
}

impl Metric {
    /// The similarity of `a` and `b` (a number is a list of one).
    pub fn similarity(self, a: &[f64], b: &[f64]) -> f64 {
        match self {
            Metric::Absolute => 1.0 / (1.0 + (a[0] - b[0]).abs()),
            Metric::Euclidean => {
                let d: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
                1.0 / (1.0 + d.sqrt())
            }
            Metric::Cosine => {
                let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
                let na = a.iter().map(|x| x * x).sum::<f64>().sqrt();
                let nb = b.iter().map(|x| x * x).sum::<f64>().sqrt();
                if na == 0.0 || nb == 0.0 {
                    0.0
                } else {
                    dot / (na * nb)
                }
            }
            Metric::Pearson => {
                let n = a.len().min(b.len()) as f64;
                if n == 0.0 {
                    return 0.0;
                }
                let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
                let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
                let va = a.iter().map(|x| (x - ma) * (x - ma)).sum::<f64>().sqrt();
                let vb = b.iter().map(|y| (y - mb) * (y - mb)).sum::<f64>().sqrt();
                if va == 0.0 || vb == 0.0 {
                    0.0
                } else {
                    cov / (va * vb)
                }
            }
        }
    }
}

/// One property's values per node (a number as a list of one) and how they are compared.
#[derive(Clone, Debug)]
pub struct Feature {
    pub values: Vec<Vec<f64>>,
    pub metric: Metric,
}

/// The `top_k` most similar other nodes of every node by its properties (the mean of each
/// feature's similarity), pairs below `cutoff` dropped; by first node, then similarity
/// (highest first), then second node. Exact: every pair is compared, nodes in parallel, so
/// the work grows with the square of the node count.
pub fn knn(
    features: &[Feature],
    top_k: usize,
    cutoff: f64,
    control: &Control<'_>,
) -> Result<Vec<Pair>, Interrupted> {
    let n = features.first().map_or(0, |f| f.values.len());
    let similarity = |a: usize, b: usize| {
        features
            .iter()
            .map(|f| f.metric.similarity(&f.values[a], &f.values[b]))
            .sum::<f64>()
            / features.len().max(1) as f64
    };
    let per_node: Vec<Vec<Pair>> = control.install(|| {
        (0..n)
            .into_par_iter()
            .map(|u| {
                if u.is_multiple_of(64) {
                    control.check()?;
                }
                let mut pairs: Vec<Pair> = (0..n)
                    .filter(|&v| v != u)
                    .map(|v| (u as u32, v as u32, similarity(u, v)))
                    .filter(|p| p.2 >= cutoff)
                    .collect();
                pairs.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.1.cmp(&b.1)));
                pairs.truncate(top_k);
                Ok(pairs)
            })
            .collect::<Result<Vec<_>, Interrupted>>()
    })?;
    Ok(per_node.into_iter().flatten().collect())
}
