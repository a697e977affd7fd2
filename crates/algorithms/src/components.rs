//! Connected components: weakly connected (relationships taken either way) and strongly
//! connected (each node reaching every other along relationships' directions).
//!
//! Both name a component by its smallest node index, so the names do not depend on the order
//! threads ran in.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::control::BLOCK;
use crate::{Control, Graph, Interrupted};

/// Weakly connected components by a concurrent union-find: every relationship (with weight
/// above `threshold`, when given) joins its ends' sets. A root is always linked under the
/// smaller root, so each component's final root is its smallest node.
pub fn wcc(
    graph: &Graph,
    threshold: Option<f64>,
    control: &Control<'_>,
) -> Result<Vec<u32>, Interrupted> {
    wcc_joined(graph, threshold, &[], control)
}

/// [`wcc`] with the pairs `joined` in one component whether or not relationships join them
/// (nodes that start out together, such as those sharing a seed).
pub fn wcc_joined(
    graph: &Graph,
    threshold: Option<f64>,
    joined: &[(u32, u32)],
    control: &Control<'_>,
) -> Result<Vec<u32>, Interrupted> {
    let n = graph.node_count();
    let parent: Vec<AtomicU32> = (0..n as u32).map(AtomicU32::new).collect();
    for &(a, b) in joined {
        union(&parent, a, b);
    }
    control.blocks(n, |range| {
        for u in range {
            for (v, w) in graph.out_weighted(u as u32) {
                if threshold.is_none_or(|t| w > t) {
                    union(&parent, u as u32, v);
                }
            }
        }
    })?;
    let mut out = vec![0u32; n];
    control.fill(&mut out, |v| find(&parent, v as u32))?;
    Ok(out)
}

/// The root of `x`'s set, halving the path on the way.
fn find(parent: &[AtomicU32], mut x: u32) -> u32 {
    loop {
        let p = parent[x as usize].load(Ordering::Acquire);
        if p == x {
            return x;
        }
        let grand = parent[p as usize].load(Ordering::Acquire);
        if grand != p {
            // Another thread may have moved x's parent meanwhile: the exchange then fails
            // harmlessly, since every parent pointer only ever moves to a smaller node in the
            // same set.
            let _ =
                parent[x as usize].compare_exchange(p, grand, Ordering::AcqRel, Ordering::Acquire);
        }
        x = grand;
    }
}

/// Joins the sets of `a` and `b`, linking the larger root under the smaller.
fn union(parent: &[AtomicU32], a: u32, b: u32) {
    let (mut a, mut b) = (a, b);
    loop {
        a = find(parent, a);
        b = find(parent, b);
        if a == b {
            return;
        }
        let (low, high) = if a < b { (a, b) } else { (b, a) };
        // Only a root may be linked: if `high` stopped being one, look again.
        if parent[high as usize]
            .compare_exchange(high, low, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            return;
        }
    }
}

/// Strongly connected components by Tarjan's algorithm, iteratively (no recursion, so deep
/// graphs do not overflow the stack). Sequential; checks the control every few thousand
/// nodes.
pub fn scc(graph: &Graph, control: &Control<'_>) -> Result<Vec<u32>, Interrupted> {
    const NONE: u32 = u32::MAX;
    let n = graph.node_count();
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut component = vec![NONE; n];
    // (node, position in its adjacency list) of the depth-first walk.
    let mut walk: Vec<(u32, usize)> = Vec::new();
    let mut next_index = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != NONE {
            continue;
        }
        walk.push((root, 0));
        index[root as usize] = next_index;
        low[root as usize] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(top) = walk.last_mut() {
            let (u, at) = *top;
            let ui = u as usize;
            let neighbours = graph.out(u);
            if at < neighbours.len() {
                top.1 += 1;
                let v = neighbours[at];
                let vi = v as usize;
                if index[vi] == NONE {
                    if (next_index as usize).is_multiple_of(BLOCK) {
                        control.check()?;
                    }
                    index[vi] = next_index;
                    low[vi] = next_index;
                    next_index += 1;
                    stack.push(v);
                    on_stack[vi] = true;
                    walk.push((v, 0));
                } else if on_stack[vi] {
                    low[ui] = low[ui].min(index[vi]);
                }
                continue;
            }
            walk.pop();
            if let Some(&(parent, _)) = walk.last() {
                let pi = parent as usize;
                low[pi] = low[pi].min(low[ui]);
            }
            if low[ui] == index[ui] {
                let start = stack
                    .iter()
                    .rposition(|&x| x == u)
                    .expect("a component's root is on the stack");
                let members = stack.split_off(start);
                let name = *members.iter().min().expect("a component has its root");
                for m in members {
                    on_stack[m as usize] = false;
                    component[m as usize] = name;
                }
            }
        }
    }
    Ok(component)
}

/// The number of distinct components in `components` and each one's size, by name.
pub fn sizes(components: &[u32]) -> std::collections::HashMap<u32, u64> {
    let mut sizes = std::collections::HashMap::new();
    for c in components {
        *sizes.entry(*c).or_insert(0) += 1;
    }
    sizes
}

/// Renames components to `0..count` in order of their smallest member (GDS's
/// `consecutiveIds`).
pub fn consecutive(components: &[u32]) -> Vec<u32> {
    let mut names = std::collections::HashMap::new();
    components
        .iter()
        .map(|c| {
            let next = names.len() as u32;
            *names.entry(*c).or_insert(next)
        })
        .collect()
}

/// Whether `a` and `b` put the same nodes together (names aside).
pub fn same_partition(a: &[u32], b: &[u32]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut ab = std::collections::HashMap::new();
    let mut ba = std::collections::HashMap::new();
    a.iter()
        .zip(b)
        .all(|(x, y)| *ab.entry(*x).or_insert(*y) == *y && *ba.entry(*y).or_insert(*x) == *x)
}
