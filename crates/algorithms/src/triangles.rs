//! Triangles and the local clustering coefficient, over an undirected graph taken as simple:
//! parallel relationships count once and self-loops not at all.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::{Control, Graph, Interrupted};

/// Each node's triangles, `None` for a node left out because it has more than `max_degree`
/// distinct neighbours (its triangles are not counted for anyone), and the graph's total.
#[derive(Clone, Debug, PartialEq)]
pub struct Triangles {
    pub per_node: Vec<Option<u64>>,
    pub total: u64,
}

/// Counts triangles: nodes are ranked by degree (then index) and each triangle is found once,
/// from its lowest-ranked node, by intersecting the sorted lists of higher-ranked neighbours
/// of its two lower-ranked nodes. Ranking by degree keeps hubs' long lists out of most
/// intersections (O(m^1.5) work); nodes are taken in parallel.
pub fn triangles(
    graph: &Graph,
    max_degree: Option<u64>,
    control: &Control<'_>,
) -> Result<Triangles, Interrupted> {
    let simple = simple_neighbours(graph, control)?;
    let n = simple.len();
    let kept: Vec<bool> = simple
        .iter()
        .map(|s| max_degree.is_none_or(|m| s.len() as u64 <= m))
        .collect();
    let rank = |v: u32| (simple[v as usize].len(), v);
    // Each kept node's kept neighbours that rank above it, sorted by index.
    let mut higher: Vec<Vec<u32>> = vec![Vec::new(); n];
    control.fill(&mut higher, |u| {
        if !kept[u] {
            return Vec::new();
        }
        let ru = rank(u as u32);
        simple[u]
            .iter()
            .copied()
            .filter(|&v| kept[v as usize] && rank(v) > ru)
            .collect()
    })?;
    let counts: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let total: u64 = control
        .blocks(n, |range| {
            let mut found = 0u64;
            for u in range {
                let hu = &higher[u];
                for &v in hu {
                    let hv = &higher[v as usize];
                    let (mut i, mut j) = (0, 0);
                    while i < hu.len() && j < hv.len() {
                        match hu[i].cmp(&hv[j]) {
                            std::cmp::Ordering::Less => i += 1,
                            std::cmp::Ordering::Greater => j += 1,
                            std::cmp::Ordering::Equal => {
                                found += 1;
                                for x in [u as u32, v, hu[i]] {
                                    counts[x as usize].fetch_add(1, Ordering::Relaxed);
                                }
                                i += 1;
                                j += 1;
                            }
                        }
                    }
                }
            }
            found
        })?
        .into_iter()
        .sum();
    let per_node = counts
        .into_iter()
        .zip(kept)
        .map(|(c, k)| k.then(|| c.into_inner()))
        .collect();
    Ok(Triangles { per_node, total })
}

/// Each node's local clustering coefficient: its triangles over the pairs of its distinct
/// neighbours, `2t / (d (d - 1))`; zero for a node with fewer than two neighbours and for a
/// node left out of the triangle count.
pub fn local_clustering(
    graph: &Graph,
    triangles: &Triangles,
    control: &Control<'_>,
) -> Result<Vec<f64>, Interrupted> {
    let simple = simple_neighbours(graph, control)?;
    let mut out = vec![0.0; simple.len()];
    control.fill(&mut out, |v| {
        let d = simple[v].len() as f64;
        match triangles.per_node[v] {
            Some(t) if d >= 2.0 => 2.0 * t as f64 / (d * (d - 1.0)),
            _ => 0.0,
        }
    })?;
    Ok(out)
}

/// Each node's distinct neighbours other than itself, sorted.
fn simple_neighbours(graph: &Graph, control: &Control<'_>) -> Result<Vec<Vec<u32>>, Interrupted> {
    let n = graph.node_count();
    control.install(|| {
        (0..n as u32)
            .into_par_iter()
            .map(|u| {
                if u.is_multiple_of(4096) {
                    control.check()?;
                }
                let mut list: Vec<u32> = graph
                    .both_weighted(u)
                    .map(|(v, _)| v)
                    .filter(|&v| v != u)
                    .collect();
                list.sort_unstable();
                list.dedup();
                Ok(list)
            })
            .collect()
    })
}
