//! Communities: Louvain modularity optimisation, label propagation and k-core decomposition.
//!
//! All three read the graph as undirected: a directed relationship links its ends both ways.
//! Communities are named by their smallest node index, so names do not depend on the order
//! the work ran in.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::control::{BLOCK, mix};
use crate::{Control, Graph, Interrupted};

/// A symmetric weighted adjacency, parallel entries merged: `rows[i]` is `(j, w)` sorted by
/// `j`. Every relationship appears at both of its ends, a self-loop twice in its node's row.
struct Symmetric {
    rows: Vec<Vec<(u32, f64)>>,
}

impl Symmetric {
    fn of(graph: &Graph, control: &Control<'_>) -> Result<Symmetric, Interrupted> {
        graph.prepare_incoming();
        let rows = control.install(|| {
            (0..graph.node_count() as u32)
                .into_par_iter()
                .map(|u| {
                    if (u as usize).is_multiple_of(BLOCK) {
                        control.check()?;
                    }
                    Ok(merge(graph.both_weighted(u).collect()))
                })
                .collect::<Result<Vec<_>, Interrupted>>()
        })?;
        Ok(Symmetric { rows })
    }

    fn strength(&self, i: usize) -> f64 {
        self.rows[i].iter().map(|e| e.1).sum()
    }
}

/// Sorts entries by neighbour and adds up the weights of equal ones.
fn merge(mut row: Vec<(u32, f64)>) -> Vec<(u32, f64)> {
    row.sort_unstable_by_key(|e| e.0);
    let mut out: Vec<(u32, f64)> = Vec::with_capacity(row.len());
    for (j, w) in row {
        match out.last_mut() {
            Some(last) if last.0 == j => last.1 += w,
            _ => out.push((j, w)),
        }
    }
    out
}

/// What Louvain runs.
#[derive(Clone, Debug)]
pub struct LouvainConfig {
    /// The most levels (aggregations) run.
    pub max_levels: usize,
    /// The most passes over the nodes in one level.
    pub max_iterations: usize,
    /// A level (and a pass) ends when modularity rose by less than this.
    pub tolerance: f64,
}

impl Default for LouvainConfig {
    fn default() -> Self {
        LouvainConfig {
            max_levels: 10,
            max_iterations: 10,
            tolerance: 0.0001,
        }
    }
}

/// Louvain's result: each node's final community, its community after each level, and the
/// modularity after each level.
#[derive(Clone, Debug, PartialEq)]
pub struct Louvain {
    pub communities: Vec<u32>,
    pub levels: Vec<Vec<u32>>,
    pub modularities: Vec<f64>,
}

impl Louvain {
    /// The result whose communities are the last level's (each of `n` nodes its own when
    /// there are no levels).
    fn of_levels(n: usize, levels: Vec<Vec<u32>>, modularities: Vec<f64>) -> Louvain {
        let communities = levels
            .last()
            .cloned()
            .unwrap_or_else(|| (0..n as u32).collect());
        Louvain {
            communities,
            levels,
            modularities,
        }
    }
}

impl Louvain {
    /// The modularity of the final communities (zero for a graph with no relationships).
    pub fn modularity(&self) -> f64 {
        self.modularities.last().copied().unwrap_or(0.0)
    }
}

/// Louvain's method: nodes move, one at a time in index order, to the neighbouring community
/// that raises modularity most (ties to the smaller community), until a pass gains less than
/// the tolerance; then communities become the nodes of the next level. At the end single
/// nodes may move once more between the final communities (the last level is replaced when
/// that raises modularity). Deterministic.
pub fn louvain(
    graph: &Graph,
    config: &LouvainConfig,
    control: &Control<'_>,
) -> Result<Louvain, Interrupted> {
    let n = graph.node_count();
    let mut level = Symmetric::of(graph, control)?;
    let total: f64 = (0..n).map(|i| level.strength(i)).sum();
    // Each original node's community in the current level's nodes.
    let mut assignment: Vec<u32> = (0..n as u32).collect();
    let mut levels = Vec::new();
    let mut modularities = Vec::new();
    if total <= 0.0 {
        return Ok(Louvain {
            communities: assignment,
            levels,
            modularities,
        });
    }
    let mut previous = modularity(&level, &(0..n as u32).collect::<Vec<_>>(), total);
    for _ in 0..config.max_levels {
        control.check()?;
        let moving = Moving {
            max_iterations: config.max_iterations,
            tolerance: config.tolerance,
            resolution: 1.0,
        };
        let identity = (0..level.rows.len() as u32).collect();
        let community = local_moving(&level, total, &moving, identity, control)?;
        let q = modularity(&level, &community, total);
        let (dense, count) = renumber(&community);
        if count == level.rows.len() || q - previous < config.tolerance {
            if q > previous && count < level.rows.len() {
                assignment = assignment.iter().map(|c| dense[*c as usize]).collect();
                levels.push(name_by_smallest(&assignment));
                modularities.push(q);
            }
            break;
        }
        assignment = assignment.iter().map(|c| dense[*c as usize]).collect();
        levels.push(name_by_smallest(&assignment));
        modularities.push(q);
        previous = q;
        level = aggregate(&level, &dense, count);
    }
    // Polish: the final communities are coarse moves of whole groups; letting single nodes
    // move once more between them (at node level) often raises modularity further.
    if let Some(last) = levels.last().cloned() {
        let base = Symmetric::of(graph, control)?;
        let moving = Moving {
            max_iterations: config.max_iterations,
            tolerance: config.tolerance,
            resolution: 1.0,
        };
        let polished = local_moving(&base, total, &moving, last, control)?;
        let q = modularity(&base, &polished, total);
        if let (Some(level), Some(best)) = (levels.last_mut(), modularities.last_mut())
            && q - *best >= config.tolerance
        {
            *level = name_by_smallest(&polished);
            *best = q;
        }
    }
    Ok(Louvain::of_levels(n, levels, modularities))
}

/// What Leiden runs.
#[derive(Clone, Debug)]
pub struct LeidenConfig {
    /// The most levels (aggregations) run.
    pub max_levels: usize,
    /// The resolution: higher values give more, smaller communities.
    pub gamma: f64,
    /// A level ends when modularity rose by less than this.
    pub tolerance: f64,
    /// Orders the nodes of the refinement phase.
    pub seed: u64,
}

impl Default for LeidenConfig {
    fn default() -> Self {
        LeidenConfig {
            max_levels: 10,
            gamma: 1.0,
            tolerance: 0.0001,
            seed: 0,
        }
    }
}

/// The Leiden algorithm (Traag, Waltman and van Eck): Louvain's local moving, then a
/// refinement that splits each community into well-connected parts (a node joins a part of
/// its community only when both are well connected to the rest of it, choosing the part that
/// gains most; nodes visited in an order shuffled by the seed), and aggregation by the refined
/// parts, each starting the next level in its unrefined community. Every community it returns
/// is connected. `modularities` are Newman's modularity (resolution one) after each level.
pub fn leiden(
    graph: &Graph,
    config: &LeidenConfig,
    control: &Control<'_>,
) -> Result<Louvain, Interrupted> {
    /// The most runs, each starting from the communities the one before found.
    const RUNS: usize = 10;
    let n = graph.node_count();
    let level = Symmetric::of(graph, control)?;
    let total: f64 = (0..n).map(|i| level.strength(i)).sum();
    let mut best = Louvain {
        communities: (0..n as u32).collect(),
        levels: Vec::new(),
        modularities: Vec::new(),
    };
    if total <= 0.0 {
        return Ok(best);
    }
    // As Leiden's authors iterate it: each run starts from the last one's communities, until a
    // run no longer raises modularity.
    let mut start: Vec<u32> = (0..n as u32).collect();
    for run in 0..RUNS {
        let result = leiden_run(
            &level,
            total,
            config,
            std::mem::take(&mut start),
            run as u64,
            control,
        )?;
        let improved = best.modularities.is_empty()
            || result.modularity() >= best.modularity() + config.tolerance;
        if !improved {
            break;
        }
        start.clone_from(&result.communities);
        best = result;
    }
    Ok(best)
}

/// One run of Leiden's levels from the `start` communities (named by node indices).
fn leiden_run(
    graph_level: &Symmetric,
    total: f64,
    config: &LeidenConfig,
    start: Vec<u32>,
    run: u64,
    control: &Control<'_>,
) -> Result<Louvain, Interrupted> {
    let n = graph_level.rows.len();
    let mut assignment: Vec<u32> = (0..n as u32).collect();
    let mut levels = Vec::new();
    let mut modularities = Vec::new();
    // Passes run until no node moves (each move raises the quality, so that comes), bounded
    // so a pathological graph cannot hold the level for ever.
    let moving = Moving {
        max_iterations: 100,
        tolerance: f64::NEG_INFINITY,
        resolution: config.gamma,
    };
    let mut level: Option<Symmetric> = None;
    let mut initial = start;
    let mut previous = f64::NEG_INFINITY;
    for round in 0..config.max_levels {
        control.check()?;
        let current = level.as_ref().unwrap_or(graph_level);
        let community = local_moving(current, total, &moving, initial, control)?;
        let q = modularity(current, &community, total);
        if q - previous < config.tolerance && round > 0 {
            break;
        }
        let partition: Vec<u32> = assignment.iter().map(|a| community[*a as usize]).collect();
        levels.push(name_by_smallest(&partition));
        modularities.push(q);
        previous = q;
        let refined = refine(
            current,
            &community,
            total,
            config,
            mix(run) ^ round as u64,
            control,
        )?;
        let (dense, count) = renumber(&refined);
        if count == current.rows.len() {
            break;
        }
        // Each refined part starts the next level in its community, named by the first part
        // of that community.
        let mut first_part: HashMap<u32, u32> = HashMap::new();
        let mut next_initial = vec![0u32; count];
        for (i, c) in community.iter().enumerate() {
            let part = dense[i];
            next_initial[part as usize] = *first_part.entry(*c).or_insert(part);
        }
        assignment = assignment.iter().map(|a| dense[*a as usize]).collect();
        let next = aggregate(current, &dense, count);
        level = Some(next);
        initial = next_initial;
    }
    Ok(Louvain::of_levels(n, levels, modularities))
}

/// Leiden's refinement: within each community, nodes start alone and a node still alone joins
/// the well-connected part of its community it gains most by joining.
fn refine(
    level: &Symmetric,
    community: &[u32],
    total: f64,
    config: &LeidenConfig,
    round: u64,
    control: &Control<'_>,
) -> Result<Vec<u32>, Interrupted> {
    let n = level.rows.len();
    let gamma = config.gamma;
    let strength: Vec<f64> = (0..n).map(|i| level.strength(i)).collect();
    let mut community_total = vec![0.0; n];
    for (i, c) in community.iter().enumerate() {
        community_total[*c as usize] += strength[i];
    }
    let mut part: Vec<u32> = (0..n as u32).collect();
    let mut part_total = strength.clone();
    let mut part_size = vec![1u32; n];
    // Each part's relationship weight to the rest of its community.
    let mut outside: Vec<f64> = (0..n)
        .map(|i| {
            level.rows[i]
                .iter()
                .filter(|(j, _)| *j as usize != i && community[*j as usize] == community[i])
                .map(|e| e.1)
                .sum()
        })
        .collect();
    let mut order: Vec<u32> = (0..n as u32).collect();
    let round_seed = mix(config.seed ^ mix(round));
    for i in (1..n).rev() {
        let j = (mix(round_seed ^ i as u64) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let mut links = vec![0.0f64; n];
    let mut touched: Vec<u32> = Vec::new();
    for (at, &v) in order.iter().enumerate() {
        if at.is_multiple_of(BLOCK) {
            control.check()?;
        }
        let v = v as usize;
        if part[v] as usize != v || part_size[v] > 1 {
            continue;
        }
        let c = community[v];
        let kv = strength[v];
        let tot_c = community_total[c as usize];
        if outside[v] < gamma * kv * (tot_c - kv) / total {
            continue;
        }
        for p in touched.drain(..) {
            links[p as usize] = 0.0;
        }
        for &(j, w) in &level.rows[v] {
            let j = j as usize;
            if j != v && community[j] == c {
                let p = part[j];
                if links[p as usize] == 0.0 {
                    touched.push(p);
                }
                links[p as usize] += w;
            }
        }
        let mut best: Option<(u32, f64)> = None;
        for &p in &touched {
            let pi = p as usize;
            let tot_p = part_total[pi];
            if outside[pi] < gamma * tot_p * (tot_c - tot_p) / total {
                continue;
            }
            let gain = links[pi] - gamma * kv * tot_p / total;
            if gain >= 0.0 && best.is_none_or(|(b, g)| gain > g || (gain == g && p < b)) {
                best = Some((p, gain));
            }
        }
        if let Some((p, _)) = best {
            let pi = p as usize;
            outside[pi] = outside[pi] + outside[v] - 2.0 * links[pi];
            part[v] = p;
            part_total[pi] += kv;
            part_size[pi] += 1;
        }
    }
    Ok(part)
}

/// How the local moving phase runs: passes at most, the gain that ends it, the resolution.
struct Moving {
    max_iterations: usize,
    tolerance: f64,
    resolution: f64,
}

/// One level's local moving phase from the `initial` communities: each node's community
/// among the level's nodes.
fn local_moving(
    level: &Symmetric,
    total: f64,
    moving: &Moving,
    initial: Vec<u32>,
    control: &Control<'_>,
) -> Result<Vec<u32>, Interrupted> {
    let n = level.rows.len();
    let strength: Vec<f64> = (0..n).map(|i| level.strength(i)).collect();
    let mut community = initial;
    let mut tot = vec![0.0; n];
    for (i, c) in community.iter().enumerate() {
        tot[*c as usize] += strength[i];
    }
    // The weight from the node being moved to each neighbouring community: dense, with the
    // communities touched listed so clearing costs what filling did.
    let mut links = vec![0.0f64; n];
    let mut touched: Vec<u32> = Vec::new();
    let mut q = modularity(level, &community, total);
    for _ in 0..moving.max_iterations {
        let mut moved = false;
        for i in 0..n {
            if i.is_multiple_of(BLOCK) {
                control.check()?;
            }
            let own = community[i];
            for c in touched.drain(..) {
                links[c as usize] = 0.0;
            }
            for &(j, w) in &level.rows[i] {
                if j as usize != i {
                    let c = community[j as usize];
                    if links[c as usize] == 0.0 {
                        touched.push(c);
                    }
                    links[c as usize] += w;
                }
            }
            let k = strength[i];
            tot[own as usize] -= k;
            let gain = |c: u32| links[c as usize] - moving.resolution * tot[c as usize] * k / total;
            let mut best = own;
            let mut best_gain = gain(own);
            for &c in &touched {
                let g = gain(c);
                if g > best_gain || (g == best_gain && c < best && c != own && best != own) {
                    best = c;
                    best_gain = g;
                }
            }
            tot[best as usize] += k;
            if best != own {
                community[i] = best;
                moved = true;
            }
        }
        let next = modularity(level, &community, total);
        let gained = next - q;
        q = next;
        if !moved || gained < moving.tolerance {
            break;
        }
    }
    Ok(community)
}

/// Newman's modularity of `community` (names below the node count) over a symmetric
/// adjacency of total weight `total`.
fn modularity(level: &Symmetric, community: &[u32], total: f64) -> f64 {
    let n = level.rows.len();
    let mut inside = vec![0.0f64; n];
    let mut degree = vec![0.0f64; n];
    for (i, row) in level.rows.iter().enumerate() {
        let c = community[i] as usize;
        for &(j, w) in row {
            degree[c] += w;
            if community[j as usize] as usize == c {
                inside[c] += w;
            }
        }
    }
    inside
        .iter()
        .zip(&degree)
        .map(|(i, d)| i / total - (d / total).powi(2))
        .sum()
}

/// Communities renamed `0..count` in order of first appearance, and the count.
fn renumber(community: &[u32]) -> (Vec<u32>, usize) {
    let mut names = HashMap::new();
    let dense = community
        .iter()
        .map(|c| {
            let next = names.len() as u32;
            *names.entry(*c).or_insert(next)
        })
        .collect();
    (dense, names.len())
}

/// The next level: one node per community, relationships between communities summed
/// (those inside one become its self-loop).
fn aggregate(level: &Symmetric, dense: &[u32], count: usize) -> Symmetric {
    let mut rows: Vec<Vec<(u32, f64)>> = vec![Vec::new(); count];
    for (i, row) in level.rows.iter().enumerate() {
        let c = dense[i] as usize;
        rows[c].extend(row.iter().map(|&(j, w)| (dense[j as usize], w)));
    }
    Symmetric {
        rows: rows.into_iter().map(merge).collect(),
    }
}

/// Renames each community after its smallest member.
pub fn name_by_smallest(community: &[u32]) -> Vec<u32> {
    let mut smallest: HashMap<u32, u32> = HashMap::new();
    for (i, c) in community.iter().enumerate() {
        smallest.entry(*c).or_insert(i as u32);
    }
    community.iter().map(|c| smallest[c]).collect()
}

/// Label propagation's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Labels {
    pub communities: Vec<u32>,
    pub ran_iterations: usize,
    pub did_converge: bool,
}

/// Label propagation: every node starts with its own label (or its seed) and takes the label
/// of greatest total relationship weight among its neighbours, keeping its own when that is
/// among the greatest, until no label changes or `max_iterations` passes ran. Each pass visits
/// the nodes in an order shuffled by `seed`, and a tie between other labels goes to the one
/// `seed` ranks first: shuffling keeps one label from flooding the graph along index order,
/// and the seed keeps runs repeatable.
pub fn label_propagation(
    graph: &Graph,
    max_iterations: usize,
    seeds: Option<&[u32]>,
    seed: u64,
    control: &Control<'_>,
) -> Result<Labels, Interrupted> {
    let n = graph.node_count();
    let adjacency = Symmetric::of(graph, control)?;
    let mut label: Vec<u32> = match seeds {
        Some(s) => s.to_vec(),
        None => (0..n as u32).collect(),
    };
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut votes: HashMap<u32, f64> = HashMap::new();
    let mut ran_iterations = 0;
    let mut did_converge = false;
    while ran_iterations < max_iterations {
        ran_iterations += 1;
        let round = mix(seed ^ ran_iterations as u64);
        for i in (1..n).rev() {
            let j = (mix(round ^ i as u64) % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        let rank = |l: u32| mix(round ^ (u64::from(l) << 32));
        let mut changed = false;
        for (at, &v) in order.iter().enumerate() {
            if at.is_multiple_of(BLOCK) {
                control.check()?;
            }
            let i = v as usize;
            votes.clear();
            for &(j, w) in &adjacency.rows[i] {
                if j as usize != i {
                    *votes.entry(label[j as usize]).or_insert(0.0) += w;
                }
            }
            let Some(top) = votes.values().copied().reduce(f64::max) else {
                continue;
            };
            let own = label[i];
            if votes.get(&own) == Some(&top) {
                continue;
            }
            let best = votes
                .iter()
                .filter(|(_, w)| **w == top)
                .map(|(l, _)| *l)
                .min_by_key(|l| (rank(*l), *l))
                .unwrap_or(own);
            label[i] = best;
            changed = true;
        }
        if !changed {
            did_converge = true;
            break;
        }
    }
    let communities = if seeds.is_some() {
        label
    } else {
        name_by_smallest(&label)
    };
    Ok(Labels {
        communities,
        ran_iterations,
        did_converge,
    })
}

/// Each node's core number: the largest `k` such that it belongs to a subgraph where every
/// node has at least `k` distinct neighbours (self-loops and parallel relationships aside).
/// The bucket algorithm of Batagelj and Zaversnik, in O(relationships).
pub fn k_core(graph: &Graph, control: &Control<'_>) -> Result<Vec<u32>, Interrupted> {
    let n = graph.node_count();
    let adjacency = Symmetric::of(graph, control)?;
    let neighbours = |v: usize| {
        adjacency.rows[v]
            .iter()
            .map(|e| e.0)
            .filter(move |&u| u as usize != v)
    };
    let mut degree: Vec<u32> = (0..n).map(|v| neighbours(v).count() as u32).collect();
    let max = degree.iter().copied().max().unwrap_or(0) as usize;
    // Nodes sorted by degree, with where each degree's run starts.
    let mut start = vec![0usize; max + 2];
    for &d in &degree {
        start[d as usize + 1] += 1;
    }
    for d in 0..=max {
        start[d + 1] += start[d];
    }
    let mut next = start.clone();
    let mut order = vec![0u32; n];
    let mut position = vec![0usize; n];
    for v in 0..n {
        let d = degree[v] as usize;
        position[v] = next[d];
        order[next[d]] = v as u32;
        next[d] += 1;
    }
    for i in 0..n {
        if i.is_multiple_of(BLOCK) {
            control.check()?;
        }
        let v = order[i] as usize;
        for u in neighbours(v) {
            let u = u as usize;
            if degree[u] > degree[v] {
                // Move u to the front of its degree's run, then shrink its degree.
                let du = degree[u] as usize;
                let first = start[du];
                let w = order[first] as usize;
                if w != u {
                    order.swap(position[u], first);
                    position[w] = position[u];
                    position[u] = first;
                }
                start[du] += 1;
                degree[u] -= 1;
            }
        }
    }
    Ok(degree)
}
