//! Times the kernels on a generated graph, on one thread and on every core:
//! `cargo run --release -p quiver-algorithms --example figures -- [nodes] [relationships per node]`.
//!
//! The graph is a preferential-attachment one (each new relationship's target drawn from the
//! ends of earlier relationships, so degrees follow a power law), the same for every run.

use std::time::Instant;

use quiver_algorithms::centrality::{self, RankConfig};
use quiver_algorithms::community::{self, LouvainConfig};
use quiver_algorithms::{Control, Graph, GraphBuilder, Interrupted, components, triangles};

/// SplitMix64: a small, well-spread generator, seeded.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn generate(nodes: usize, per_node: usize, undirected: bool) -> Graph {
    let mut random = Random(42);
    let mut ends: Vec<u32> = vec![0];
    let mut builder = GraphBuilder::new(nodes, false, undirected);
    builder.reserve(nodes * per_node);
    for source in 1..nodes as u32 {
        for _ in 0..per_node {
            let target = ends[random.below(ends.len() as u64) as usize];
            builder.add(source, target, 1.0);
            ends.push(target);
        }
        ends.push(source);
    }
    builder.build()
}

/// Runs a kernel and prints how long it took.
fn time<T>(what: &str, threads: usize, work: impl FnOnce() -> Result<T, Interrupted>) -> T {
    let started = Instant::now();
    let out = work().expect("the example's control never stops a kernel");
    println!(
        "{what:<28} {threads:>2} thread(s) {:>9.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let nodes: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let per_node: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let directed = time("build directed CSR", 1, || {
        Ok(generate(nodes, per_node, false))
    });
    let undirected = time("build undirected CSR", 1, || {
        Ok(generate(nodes, per_node, true))
    });
    println!(
        "{nodes} nodes, {} relationships ({} bytes directed, {} undirected)",
        directed.relationship_count(),
        directed.size_in_bytes(),
        undirected.size_in_bytes()
    );
    let mut threads = vec![1];
    if cores > 1 {
        threads.push(cores);
    }
    for &t in &threads {
        let control = Control::new(t, &|| Ok(()));
        let ranks = time("pageRank (20 iterations)", t, || {
            centrality::page_rank(
                &directed,
                &RankConfig {
                    tolerance: 0.0,
                    ..RankConfig::default()
                },
                &control,
            )
        });
        assert_eq!(ranks.ran_iterations, 20);
        time("wcc", t, || components::wcc(&directed, None, &control));
        time("triangleCount", t, || {
            triangles::triangles(&undirected, None, &control)
        });
        time("degree", t, || {
            centrality::degree(&directed, centrality::Orientation::Undirected, &control)
        });
    }
    let control = Control::new(cores, &|| Ok(()));
    time("scc", 1, || components::scc(&directed, &control));
    time("kcore", 1, || community::k_core(&undirected, &control));
    time("louvain", 1, || {
        community::louvain(&undirected, &LouvainConfig::default(), &control)
    });
}
