//! Every kernel against a slow, obviously correct oracle, on generated graphs with self-loops,
//! parallel relationships and disconnected parts; and the same answer on one thread as on
//! four.

// The oracles index dense matrices by node, as written on paper.
#![allow(clippy::needless_range_loop)]

use std::collections::VecDeque;

use proptest::prelude::*;
use quiver_algorithms::centrality::{self, Orientation, RankConfig};
use quiver_algorithms::community::{self, LeidenConfig, LouvainConfig};
use quiver_algorithms::components;
use quiver_algorithms::embeddings::{self, FastRpConfig};
use quiver_algorithms::paths::{self, Traversal};
use quiver_algorithms::similarity::{self, SimilarityConfig};
use quiver_algorithms::triangles;
use quiver_algorithms::{Control, Graph, GraphBuilder, unlimited};

type Edges = Vec<(u32, u32, f64)>;

fn build(n: usize, edges: &Edges, weighted: bool, undirected: bool) -> Graph {
    let mut b = GraphBuilder::new(n, weighted, undirected);
    for &(s, t, w) in edges {
        b.add(s, t, w);
    }
    b.build()
}

/// Up to 24 nodes and 60 relationships: small enough for cubic oracles, dense enough for
/// self-loops and parallel relationships to come up often.
fn graphs() -> impl Strategy<Value = (usize, Edges)> {
    (1usize..24).prop_flat_map(|n| {
        let edge = (0..n as u32, 0..n as u32, 1u32..10).prop_map(|(s, t, w)| (s, t, f64::from(w)));
        (Just(n), prop::collection::vec(edge, 0..60))
    })
}

fn four_threads() -> Control<'static> {
    Control::new(4, &|| Ok(()))
}

/// Adjacency as a dense matrix of relationship counts, `undirected` adding both ways.
fn matrix(n: usize, edges: &Edges, undirected: bool) -> Vec<Vec<u32>> {
    let mut m = vec![vec![0u32; n]; n];
    for &(s, t, _) in edges {
        m[s as usize][t as usize] += 1;
        if undirected {
            m[t as usize][s as usize] += 1;
        }
    }
    m
}

fn reachable(n: usize, edges: &Edges, from: usize) -> Vec<Option<u32>> {
    let m = matrix(n, edges, false);
    let mut dist = vec![None; n];
    dist[from] = Some(0);
    let mut queue = VecDeque::from([from]);
    while let Some(u) = queue.pop_front() {
        for v in 0..n {
            if m[u][v] > 0 && dist[v].is_none() {
                dist[v] = Some(dist[u].unwrap_or(0) + 1);
                queue.push_back(v);
            }
        }
    }
    dist
}

/// Neighbour sets of the simple undirected graph underneath.
fn simple(n: usize, edges: &Edges) -> Vec<Vec<bool>> {
    let mut m = vec![vec![false; n]; n];
    for &(s, t, _) in edges {
        if s != t {
            m[s as usize][t as usize] = true;
            m[t as usize][s as usize] = true;
        }
    }
    m
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn page_rank_matches_the_power_iteration_written_out((n, edges) in graphs(), weighted in any::<bool>()) {
        let g = build(n, &edges, weighted, false);
        let config = RankConfig { max_iterations: 40, tolerance: 0.0, ..RankConfig::default() };
        let got = centrality::page_rank(&g, &config, &four_threads()).unwrap();
        let d = 0.85;
        let w = |e: &(u32, u32, f64)| if weighted { e.2 } else { 1.0 };
        let mut out_weight = vec![0.0; n];
        for e in &edges { out_weight[e.0 as usize] += w(e); }
        let mut scores = vec![1.0 - d; n];
        for _ in 0..40 {
            let mut next = vec![1.0 - d; n];
            for e in &edges {
                next[e.1 as usize] += d * scores[e.0 as usize] * w(e) / out_weight[e.0 as usize];
            }
            scores = next;
        }
        prop_assert_eq!(got.ran_iterations, 40);
        for (a, b) in got.scores.iter().zip(&scores) {
            prop_assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        }
    }

    #[test]
    fn weakly_connected_components_match_breadth_first_search_either_way((n, edges) in graphs()) {
        let got = components::wcc(&build(n, &edges, false, false), None, &four_threads()).unwrap();
        let mut both = edges.clone();
        both.extend(edges.iter().map(|&(s, t, w)| (t, s, w)));
        for u in 0..n {
            let reach = reachable(n, &both, u);
            for v in 0..n {
                prop_assert_eq!(got[u] == got[v], reach[v].is_some());
            }
            let smallest = (0..n).find(|&v| reach[v].is_some()).unwrap() as u32;
            prop_assert_eq!(got[u], smallest);
        }
    }

    #[test]
    fn strongly_connected_components_are_mutual_reachability((n, edges) in graphs()) {
        let got = components::scc(&build(n, &edges, false, false), &unlimited()).unwrap();
        let reach: Vec<_> = (0..n).map(|u| reachable(n, &edges, u)).collect();
        for u in 0..n {
            for v in 0..n {
                let mutual = reach[u][v].is_some() && reach[v][u].is_some();
                prop_assert_eq!(got[u] == got[v], mutual, "{} {}", u, v);
            }
        }
    }

    #[test]
    fn triangles_and_clustering_match_counting_every_triple((n, edges) in graphs()) {
        let g = build(n, &edges, false, true);
        let t = triangles::triangles(&g, None, &four_threads()).unwrap();
        let lcc = triangles::local_clustering(&g, &t, &four_threads()).unwrap();
        let m = simple(n, &edges);
        let mut per_node = vec![0u64; n];
        let mut total = 0;
        for a in 0..n { for b in a + 1..n { for c in b + 1..n {
            if m[a][b] && m[b][c] && m[a][c] {
                total += 1;
                per_node[a] += 1; per_node[b] += 1; per_node[c] += 1;
            }
        }}}
        prop_assert_eq!(t.total, total);
        for v in 0..n {
            prop_assert_eq!(t.per_node[v], Some(per_node[v]));
            let d = m[v].iter().filter(|x| **x).count() as f64;
            let want = if d < 2.0 { 0.0 } else { 2.0 * per_node[v] as f64 / (d * (d - 1.0)) };
            prop_assert!((lcc[v] - want).abs() < 1e-12);
        }
    }

    #[test]
    fn degrees_count_relationships_in_the_orientation_asked((n, edges) in graphs()) {
        let g = build(n, &edges, true, false);
        let c = four_threads();
        let natural = centrality::degree(&g, Orientation::Natural, &c).unwrap();
        let reverse = centrality::degree(&g, Orientation::Reverse, &c).unwrap();
        let both = centrality::degree(&g, Orientation::Undirected, &c).unwrap();
        for v in 0..n as u32 {
            let out: f64 = edges.iter().filter(|e| e.0 == v).map(|e| e.2).sum();
            let inc: f64 = edges.iter().filter(|e| e.1 == v).map(|e| e.2).sum();
            prop_assert_eq!(natural[v as usize], out);
            prop_assert_eq!(reverse[v as usize], inc);
            prop_assert_eq!(both[v as usize], out + inc);
        }
    }

    #[test]
    fn dijkstra_costs_match_bellman_ford((n, edges) in graphs(), source in 0u32..24) {
        let source = source % n as u32;
        let g = build(n, &edges, true, false);
        let mut cost = vec![f64::INFINITY; n];
        cost[source as usize] = 0.0;
        for _ in 0..n {
            for &(s, t, w) in &edges {
                if cost[s as usize] + w < cost[t as usize] { cost[t as usize] = cost[s as usize] + w; }
            }
        }
        let all = paths::dijkstra(&g, source, None, &unlimited()).unwrap();
        prop_assert_eq!(all.len(), cost.iter().filter(|c| c.is_finite()).count());
        for p in &all {
            prop_assert_eq!(p.total_cost(), cost[p.target() as usize]);
            prop_assert_eq!(p.nodes[0], source);
            // Each step is a relationship, and the costs add up along it.
            for (i, pair) in p.nodes.windows(2).enumerate() {
                let step = edges.iter().filter(|e| e.0 == pair[0] && e.1 == pair[1]).map(|e| e.2).fold(f64::INFINITY, f64::min);
                prop_assert_eq!(p.costs[i] + step, p.costs[i + 1]);
            }
            let one = paths::dijkstra(&g, source, Some(p.target()), &unlimited()).unwrap();
            prop_assert_eq!(one[0].total_cost(), p.total_cost());
        }
    }

    #[test]
    fn yens_finds_the_k_cheapest_loopless_paths_in_order((n, edges) in graphs(), ends in (0u32..24, 0u32..24), k in 1usize..6) {
        let (source, target) = (ends.0 % n as u32, ends.1 % n as u32);
        let g = build(n, &edges, true, false);
        let got = paths::yens(&g, source, target, k, &unlimited()).unwrap();
        // Every loopless path by depth-first enumeration (small graphs), cheapest step per pair.
        let mut step = vec![vec![f64::INFINITY; n]; n];
        for &(s, t, w) in &edges { step[s as usize][t as usize] = step[s as usize][t as usize].min(w); }
        let mut all: Vec<(f64, Vec<u32>)> = Vec::new();
        let mut stack = vec![(vec![source], 0.0)];
        while let Some((path, cost)) = stack.pop() {
            let last = *path.last().unwrap() as usize;
            if last == target as usize { all.push((cost, path)); continue; }
            if all.len() > 5000 { break; }
            for v in 0..n {
                if step[last][v].is_finite() && !path.contains(&(v as u32)) {
                    let mut next = path.clone();
                    next.push(v as u32);
                    stack.push((next, cost + step[last][v]));
                }
            }
        }
        prop_assume!(all.len() <= 5000);
        let mut costs: Vec<f64> = all.iter().map(|p| p.0).collect();
        costs.sort_by(f64::total_cmp);
        costs.truncate(k);
        let mine: Vec<f64> = got.iter().map(paths::Path::total_cost).collect();
        prop_assert_eq!(mine, costs);
        for p in &got {
            prop_assert_eq!(p.nodes[0], source);
            prop_assert_eq!(p.target(), target);
            let mut seen = p.nodes.clone(); seen.sort_unstable(); seen.dedup();
            prop_assert_eq!(seen.len(), p.nodes.len(), "loopless");
        }
    }

    #[test]
    fn a_star_with_an_admissible_estimate_costs_what_dijkstra_costs((n, edges) in graphs(), ends in (0u32..24, 0u32..24)) {
        let (source, target) = (ends.0 % n as u32, ends.1 % n as u32);
        // Nodes placed on the equator up to 6 minutes of arc (6 nautical miles) apart, the
        // distance divided by 7: below 1, the least weight, so the estimate never overshoots a
        // step (it is consistent) and A* must find Dijkstra's cost.
        let position = |v: u32| f64::from(v % 7) / 60.0;
        let g = build(n, &edges, true, false);
        let estimate = |v: u32| {
            paths::haversine_nautical_miles(position(v), 0.0, position(target), 0.0) / 7.0
        };
        let a = paths::a_star(&g, source, target, &estimate, &unlimited()).unwrap();
        let d = paths::dijkstra(&g, source, Some(target), &unlimited()).unwrap();
        prop_assert_eq!(a.len(), d.len());
        if let (Some(a), Some(d)) = (a.first(), d.first()) {
            prop_assert!((a.total_cost() - d.total_cost()).abs() < 1e-9);
        }
    }

    #[test]
    fn delta_stepping_costs_what_dijkstra_costs((n, edges) in graphs(), source in 0u32..24, delta in 0.5f64..20.0) {
        let source = source % n as u32;
        let g = build(n, &edges, true, false);
        let stepped = paths::delta_stepping(&g, source, delta, &four_threads()).unwrap();
        let mut exact = paths::dijkstra(&g, source, None, &unlimited()).unwrap();
        exact.sort_by(|a, b| a.total_cost().total_cmp(&b.total_cost()).then(a.target().cmp(&b.target())));
        prop_assert_eq!(stepped.len(), exact.len());
        for (s, d) in stepped.iter().zip(&exact) {
            prop_assert_eq!(s.target(), d.target());
            prop_assert_eq!(s.total_cost(), d.total_cost());
            prop_assert_eq!(s.nodes[0], source);
            for (i, pair) in s.nodes.windows(2).enumerate() {
                let step = edges.iter().filter(|e| e.0 == pair[0] && e.1 == pair[1]).map(|e| e.2).fold(f64::INFINITY, f64::min);
                prop_assert_eq!(s.costs[i] + step, s.costs[i + 1]);
            }
        }
    }

    #[test]
    fn breadth_first_visits_what_is_reachable_nearest_first((n, edges) in graphs(), source in 0u32..24) {
        let source = source % n as u32;
        let g = build(n, &edges, false, false);
        let order = paths::bfs(&g, source, &Traversal::default(), &unlimited()).unwrap();
        let dist = reachable(n, &edges, source as usize);
        prop_assert_eq!(order.len(), dist.iter().filter(|d| d.is_some()).count());
        let depths: Vec<u32> = order.iter().map(|v| dist[*v as usize].unwrap()).collect();
        prop_assert!(depths.windows(2).all(|w| w[0] <= w[1]));
        let dfs = paths::dfs(&g, source, &Traversal::default(), &unlimited()).unwrap();
        let mut a = order.clone(); a.sort_unstable();
        let mut b = dfs.clone(); b.sort_unstable();
        prop_assert_eq!(a, b);
        let shallow = paths::bfs(&g, source, &Traversal { max_depth: Some(1), ..Traversal::default() }, &unlimited()).unwrap();
        prop_assert!(shallow.iter().all(|v| dist[*v as usize].unwrap() <= 1));
    }

    #[test]
    fn betweenness_matches_counting_shortest_paths_through_each_node((n, edges) in graphs()) {
        let g = build(n, &edges, false, false);
        let got = centrality::betweenness(&g, &four_threads()).unwrap();
        let m = matrix(n, &edges, false);
        // Shortest path counts by breadth-first search from every node.
        let mut dist = vec![vec![None; n]; n];
        let mut sigma = vec![vec![0f64; n]; n];
        for s in 0..n {
            dist[s] = reachable(n, &edges, s);
            let mut order: Vec<usize> = (0..n).filter(|v| dist[s][*v].is_some()).collect();
            order.sort_by_key(|v| dist[s][*v]);
            sigma[s][s] = 1.0;
            for &v in &order {
                for u in 0..n {
                    if m[u][v] > 0 && u != v && dist[s][u].is_some() && dist[s][u].unwrap() + 1 == dist[s][v].unwrap() {
                        sigma[s][v] += sigma[s][u] * f64::from(m[u][v]);
                    }
                }
            }
        }
        for v in 0..n {
            let mut want = 0.0;
            for s in 0..n { for t in 0..n {
                if s == v || t == v || s == t { continue; }
                if let (Some(sv), Some(vt), Some(st)) = (dist[s][v], dist[v][t], dist[s][t])
                    && sv + vt == st
                {
                    want += sigma[s][v] * sigma[v][t] / sigma[s][t];
                }
            }}
            prop_assert!((got[v] - want).abs() < 1e-9, "node {v}: {} vs {want}", got[v]);
        }
    }

    #[test]
    fn closeness_is_reached_nodes_over_total_distance((n, edges) in graphs()) {
        let g = build(n, &edges, false, false);
        let got = centrality::closeness(&g, false, &four_threads()).unwrap();
        for u in 0..n {
            let d = reachable(n, &edges, u);
            let reached = d.iter().filter(|x| x.is_some()).count() - 1;
            let total: u32 = d.iter().flatten().sum();
            let want = if total == 0 { 0.0 } else { reached as f64 / f64::from(total) };
            prop_assert!((got[u] - want).abs() < 1e-12);
        }
    }

    #[test]
    fn core_numbers_match_peeling_by_hand((n, edges) in graphs()) {
        let got = community::k_core(&build(n, &edges, false, true), &unlimited()).unwrap();
        let m = simple(n, &edges);
        let mut alive = vec![true; n];
        let mut core = vec![0u32; n];
        let mut k = 0;
        while alive.iter().any(|a| *a) {
            loop {
                let low: Vec<usize> = (0..n).filter(|&v| alive[v] && (0..n).filter(|&u| alive[u] && m[v][u]).count() as u32 <= k).collect();
                if low.is_empty() { break; }
                for v in low { alive[v] = false; core[v] = k; }
            }
            k += 1;
        }
        prop_assert_eq!(got, core);
    }

    #[test]
    fn louvain_reports_the_modularity_of_the_communities_it_returns((n, edges) in graphs()) {
        let g = build(n, &edges, true, true);
        let got = community::louvain(&g, &LouvainConfig::default(), &unlimited()).unwrap();
        let mut two_m = 0.0;
        let mut strength = vec![0.0; n];
        for &(s, t, w) in &edges { strength[s as usize] += w; strength[t as usize] += w; two_m += 2.0 * w; }
        if two_m > 0.0 && !got.modularities.is_empty() {
            let c = &got.communities;
            let mut q = 0.0;
            for &(s, t, w) in &edges { if c[s as usize] == c[t as usize] { q += 2.0 * w / two_m; } }
            for a in 0..n { for b in 0..n { if c[a] == c[b] { q -= strength[a] * strength[b] / (two_m * two_m); } } }
            prop_assert!((got.modularity() - q).abs() < 1e-9, "{} vs {q}", got.modularity());
            prop_assert!(q >= -1e-12);
        }
    }

    #[test]
    fn node_similarity_is_the_jaccard_index_of_out_neighbour_sets((n, edges) in graphs(), top_k in 1usize..5) {
        let g = build(n, &edges, false, false);
        let config = SimilarityConfig { top_k, ..SimilarityConfig::default() };
        let got = similarity::node_similarity(&g, &config, &four_threads()).unwrap();
        let sets: Vec<std::collections::BTreeSet<u32>> = (0..n as u32)
            .map(|u| edges.iter().filter(|e| e.0 == u).map(|e| e.1).collect())
            .collect();
        for u in 0..n {
            let mut want: Vec<(u32, f64)> = (0..n)
                .filter(|&v| v != u)
                .filter_map(|v| {
                    let shared = sets[u].intersection(&sets[v]).count();
                    (shared > 0).then(|| (v as u32, shared as f64 / sets[u].union(&sets[v]).count() as f64))
                })
                .collect();
            want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            want.truncate(top_k);
            let mine: Vec<(u32, f64)> = got.iter().filter(|p| p.0 as usize == u).map(|p| (p.1, p.2)).collect();
            prop_assert_eq!(mine.len(), want.len());
            for ((v, s), (wv, ws)) in mine.iter().zip(&want) {
                prop_assert_eq!(v, wv);
                prop_assert!((s - ws).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn leiden_returns_connected_communities_with_the_modularity_it_reports((n, edges) in graphs(), seed in any::<u64>()) {
        let g = build(n, &edges, true, true);
        let got = community::leiden(&g, &LeidenConfig { seed, ..LeidenConfig::default() }, &unlimited()).unwrap();
        let c = &got.communities;
        // Connected: within each community, every member reaches the smallest one.
        let m = matrix(n, &edges, true);
        for v in 0..n {
            let mut seen = vec![false; n];
            let mut stack = vec![v];
            seen[v] = true;
            while let Some(u) = stack.pop() {
                for w in 0..n {
                    if m[u][w] > 0 && !seen[w] && c[w] == c[v] { seen[w] = true; stack.push(w); }
                }
            }
            prop_assert!(seen[c[v] as usize], "node {v} does not reach its community's name {}", c[v]);
        }
        let mut two_m = 0.0;
        let mut strength = vec![0.0; n];
        for &(s, t, w) in &edges { strength[s as usize] += w; strength[t as usize] += w; two_m += 2.0 * w; }
        if two_m > 0.0 && !got.modularities.is_empty() {
            let mut q = 0.0;
            for &(s, t, w) in &edges { if c[s as usize] == c[t as usize] { q += 2.0 * w / two_m; } }
            for a in 0..n { for b in 0..n { if c[a] == c[b] { q -= strength[a] * strength[b] / (two_m * two_m); } } }
            prop_assert!((got.modularity() - q).abs() < 1e-9, "{} vs {q}", got.modularity());
        }
    }

    #[test]
    fn communities_never_span_two_components((n, edges) in graphs(), seed in any::<u64>()) {
        let g = build(n, &edges, true, false);
        let components = components::wcc(&g, None, &unlimited()).unwrap();
        let labels = community::label_propagation(&g, 10, None, seed, &unlimited()).unwrap();
        let louvain = community::louvain(&g, &LouvainConfig::default(), &unlimited()).unwrap();
        for c in [&labels.communities, &louvain.communities] {
            for a in 0..n {
                for b in 0..n {
                    if c[a] == c[b] {
                        prop_assert_eq!(components[a], components[b]);
                    }
                }
            }
        }
    }

    #[test]
    fn parallel_kernels_give_the_same_answer_on_one_thread_and_on_four((n, edges) in graphs()) {
        let g = build(n, &edges, true, false);
        let (one, four) = (unlimited(), four_threads());
        prop_assert_eq!(components::wcc(&g, None, &one).unwrap(), components::wcc(&g, None, &four).unwrap());
        let config = RankConfig::default();
        prop_assert_eq!(centrality::page_rank(&g, &config, &one).unwrap(), centrality::page_rank(&g, &config, &four).unwrap());
        let u = build(n, &edges, false, true);
        prop_assert_eq!(triangles::triangles(&u, None, &one).unwrap(), triangles::triangles(&u, None, &four).unwrap());
        prop_assert_eq!(centrality::betweenness(&g, &one).unwrap(), centrality::betweenness(&g, &four).unwrap());
    }
}

/// Two 5-cliques, nodes 0–4 and 5–9, joined by one relationship 4–5.
fn two_cliques() -> Graph {
    let mut edges = Vec::new();
    for base in [0u32, 5] {
        for a in 0..5 {
            for b in a + 1..5 {
                edges.push((base + a, base + b, 1.0));
            }
        }
    }
    edges.push((4, 5, 1.0));
    build(10, &edges, false, true)
}

#[test]
fn louvain_separates_two_cliques_joined_by_one_relationship() {
    let got = community::louvain(&two_cliques(), &LouvainConfig::default(), &unlimited()).unwrap();
    assert_eq!(got.communities, vec![0, 0, 0, 0, 0, 5, 5, 5, 5, 5]);
    assert!(got.modularity() > 0.4);
}

#[test]
fn leiden_separates_two_cliques_joined_by_one_relationship() {
    let got = community::leiden(&two_cliques(), &LeidenConfig::default(), &unlimited()).unwrap();
    assert_eq!(got.communities, vec![0, 0, 0, 0, 0, 5, 5, 5, 5, 5]);
    assert!((got.modularity() - 2.0 * (10.0 / 21.0 - 0.25)).abs() < 1e-9);
}

#[test]
fn label_propagation_finds_the_components_of_two_triangles() {
    let edges = vec![
        (0, 1, 1.0),
        (1, 2, 1.0),
        (2, 0, 1.0),
        (3, 4, 1.0),
        (4, 5, 1.0),
        (5, 3, 1.0),
    ];
    let got =
        community::label_propagation(&build(6, &edges, false, false), 10, None, 42, &unlimited())
            .unwrap();
    assert_eq!(got.communities, vec![0, 0, 0, 3, 3, 3]);
    assert!(got.did_converge);
}

#[test]
fn page_rank_on_a_cycle_converges_to_one_for_every_node() {
    let edges = vec![(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0)];
    let config = RankConfig {
        max_iterations: 200,
        ..RankConfig::default()
    };
    let got =
        centrality::page_rank(&build(3, &edges, false, false), &config, &unlimited()).unwrap();
    assert!(got.did_converge);
    assert!(got.ran_iterations < 200);
    assert!(
        got.scores.iter().all(|s| (s - 1.0).abs() < 1e-6),
        "{:?}",
        got.scores
    );
    let short = centrality::page_rank(
        &build(3, &edges, false, false),
        &RankConfig::default(),
        &unlimited(),
    )
    .unwrap();
    assert!(!short.did_converge);
    assert_eq!(short.ran_iterations, 20);
}

#[test]
fn haversine_distance_is_in_nautical_miles() {
    // One minute of arc along a meridian is one nautical mile.
    let d = paths::haversine_nautical_miles(0.0, 0.0, 1.0 / 60.0, 0.0);
    assert!((d - 1.0).abs() < 1e-3, "{d}");
    // A quarter of the equator.
    let q = paths::haversine_nautical_miles(0.0, 0.0, 0.0, 90.0);
    assert!((q - 5403.6).abs() < 1.0, "{q}");
}

#[test]
fn fast_rp_is_repeatable_by_seed_and_alike_for_alike_neighbourhoods() {
    // 0 and 1 point at the same nodes; 2 points elsewhere.
    let edges = vec![
        (0, 3, 1.0),
        (0, 4, 1.0),
        (1, 3, 1.0),
        (1, 4, 1.0),
        (2, 5, 1.0),
        (3, 4, 1.0),
        (4, 5, 1.0),
        (5, 3, 1.0),
    ];
    let g = build(6, &edges, false, false);
    let config = FastRpConfig {
        dimension: 64,
        seed: 7,
        ..FastRpConfig::default()
    };
    let a = embeddings::fast_rp(&g, &config, &four_threads()).unwrap();
    let b = embeddings::fast_rp(&g, &config, &unlimited()).unwrap();
    assert_eq!(
        a, b,
        "the same seed gives the same embeddings on any number of threads"
    );
    assert!(a.iter().all(|e| e.len() == 64));
    assert_eq!(a[0], a[1], "equal out-neighbourhoods give equal embeddings");
    assert_ne!(a[0], a[2]);
    // Two iterations of weight one, each of unit length: at most 2 long.
    assert!(
        a.iter()
            .all(|e| e.iter().map(|x| x * x).sum::<f64>().sqrt() <= 2.0 + 1e-9)
    );
    let other = embeddings::fast_rp(&g, &FastRpConfig { seed: 8, ..config }, &unlimited()).unwrap();
    assert_ne!(a, other, "another seed, other random vectors");
}

#[test]
fn knn_finds_the_nearest_values_by_each_metric() {
    use quiver_algorithms::similarity::{Feature, Metric};
    let numbers = Feature {
        values: vec![vec![1.0], vec![2.0], vec![10.0], vec![11.0]],
        metric: Metric::Absolute,
    };
    let pairs = similarity::knn(&[numbers], 1, 0.0, &four_threads()).unwrap();
    let nearest: Vec<(u32, u32)> = pairs.iter().map(|p| (p.0, p.1)).collect();
    assert_eq!(nearest, vec![(0, 1), (1, 0), (2, 3), (3, 2)]);
    assert!(pairs.iter().all(|p| (p.2 - 0.5).abs() < 1e-12));
    let c = Metric::Cosine.similarity(&[1.0, 0.0], &[1.0, 1.0]);
    assert!((c - 1.0 / 2f64.sqrt()).abs() < 1e-12);
    assert!((Metric::Euclidean.similarity(&[0.0, 0.0], &[3.0, 4.0]) - 1.0 / 6.0).abs() < 1e-12);
    assert!((Metric::Pearson.similarity(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]) - 1.0).abs() < 1e-12);
    assert_eq!(Metric::Cosine.similarity(&[0.0, 0.0], &[1.0, 1.0]), 0.0);
}

#[test]
fn a_cancelled_control_stops_page_rank() {
    let edges = vec![(0, 1, 1.0), (1, 0, 1.0)];
    let stop = Control::new(2, &|| Err(quiver_algorithms::Interrupted));
    assert!(
        centrality::page_rank(
            &build(2, &edges, false, false),
            &RankConfig::default(),
            &stop
        )
        .is_err()
    );
}
