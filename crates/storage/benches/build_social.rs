//! Building the social graph through the embedded API: nodes/s, relationships/s, and resident
//! bytes per node and per relationship (RSS delta).
//!
//! The full-size build (`QUIVER_BENCH_NODES`, default 1,000,000) runs once and prints its
//! figures; criterion then times repeated builds of a small graph.

mod common;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn full_build() {
    let n = common::nodes_from_env(1_000_000);
    let (g, f) = common::build(n, 42);
    let rels = g.rels as f64;
    println!(
        "build_social: {n} nodes, {} rels | nodes/s {:.0} (per CPU-second {:.0}) | \
         rels/s {:.0} (per CPU-second {:.0}) | bytes/node {:.1} | bytes/rel {:.1}",
        g.rels,
        n as f64 / f.node_secs,
        n as f64 / f.node_cpu_secs,
        rels / f.rel_secs,
        rels / f.rel_cpu_secs,
        f.node_rss as f64 / n as f64,
        f.rel_rss as f64 / rels,
    );
    let tx = g.db.begin_read();
    assert_eq!(tx.count_label(g.person).unwrap(), n as u64);
    assert_eq!(tx.count_rels_of_type(g.knows).unwrap(), g.rels as u64);
}

fn bench(c: &mut Criterion) {
    let n = 20_000;
    let mut group = c.benchmark_group("build_social");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("20k_nodes_with_edges", |b| {
        b.iter(|| common::build(n, 7));
    });
    group.finish();
}

criterion_group!(benches, bench);

criterion_main!(full_build, benches);
