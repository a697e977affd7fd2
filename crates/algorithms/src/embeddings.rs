//! Node embeddings: FastRP, fast random projection.

use crate::control::mix;
use crate::{Control, Graph, Interrupted};

/// What FastRP computes.
#[derive(Clone, Debug)]
pub struct FastRpConfig {
    /// The length of each embedding.
    pub dimension: usize,
    /// One weight per iteration: iteration `i` averages the neighbours' vectors of iteration
    /// `i - 1` (the random vectors first), and the embedding adds up each iteration's
    /// normalised vectors by these weights.
    pub iteration_weights: Vec<f64>,
    /// The weight of a node's own random vector in its embedding.
    pub node_self_influence: f64,
    /// Each random vector is scaled by the node's degree to this power.
    pub normalization_strength: f64,
    /// Seeds the random vectors: equal seeds give equal embeddings.
    pub seed: u64,
}

impl Default for FastRpConfig {
    fn default() -> Self {
        FastRpConfig {
            dimension: 128,
            iteration_weights: vec![0.0, 1.0, 1.0],
            node_self_influence: 0.0,
            normalization_strength: 0.0,
            seed: 0,
        }
    }
}

/// Node `v`'s random vector: Achlioptas' sparse projection, each entry `√3` with chance 1/6,
/// `-√3` with chance 1/6 and zero otherwise, drawn from the seed, node and entry alone (so
/// any thread draws the same vector).
fn random_vector(seed: u64, v: u32, dimension: usize, scale: f64) -> Vec<f64> {
    let root3 = 3f64.sqrt() * scale;
    (0..dimension)
        .map(
            |i| match mix(seed ^ mix((u64::from(v) << 24) ^ i as u64)) % 6 {
                0 => root3,
                1 => -root3,
                _ => 0.0,
            },
        )
        .collect()
}

fn normalise(v: &mut [f64]) {
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm > 0.0 {
        for x in v.iter_mut() {
            *x /= norm;
        }
    }
}

/// FastRP (Chen et al.): random vectors averaged over neighbourhoods of growing radius along
/// outgoing relationships (weighted when the graph is), each radius normalised to unit length
/// and the radii added up by `iteration_weights`. Nodes are taken in parallel.
pub fn fast_rp(
    graph: &Graph,
    config: &FastRpConfig,
    control: &Control<'_>,
) -> Result<Vec<Vec<f64>>, Interrupted> {
    let n = graph.node_count();
    let d = config.dimension;
    let mut current: Vec<Vec<f64>> = vec![Vec::new(); n];
    control.fill(&mut current, |v| {
        let degree = graph.out_degree(v as u32) as f64;
        let scale = if config.normalization_strength == 0.0 || degree == 0.0 {
            1.0
        } else {
            degree.powf(config.normalization_strength)
        };
        random_vector(config.seed, v as u32, d, scale)
    })?;
    let mut embedding: Vec<Vec<f64>> = vec![Vec::new(); n];
    control.fill(&mut embedding, |v| {
        current[v]
            .iter()
            .map(|x| x * config.node_self_influence)
            .collect()
    })?;
    for &weight in &config.iteration_weights {
        let mut next: Vec<Vec<f64>> = vec![Vec::new(); n];
        control.fill(&mut next, |v| {
            let mut sum = vec![0.0; d];
            for (u, w) in graph.out_weighted(v as u32) {
                for (s, x) in sum.iter_mut().zip(&current[u as usize]) {
                    *s += w * x;
                }
            }
            normalise(&mut sum);
            sum
        })?;
        let mut added: Vec<Vec<f64>> = vec![Vec::new(); n];
        control.fill(&mut added, |v| {
            embedding[v]
                .iter()
                .zip(&next[v])
                .map(|(e, x)| e + weight * x)
                .collect()
        })?;
        embedding = added;
        current = next;
    }
    Ok(embedding)
}
