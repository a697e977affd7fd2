//! In-process queries per second on the seed social graph (100,000 persons by default;
//! `QUIVER_BENCH_PERSONS` overrides): count, lookups by indexed property and by id, one-hop
//! expand with aggregation, friend-of-friend, two-hop count. Each iteration is a whole
//! auto-commit query: compile (from the plan cache), run, collect the rows.

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "social.rs"]
mod social;

fn persons() -> usize {
    std::env::var("QUIVER_BENCH_PERSONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

fn queries(c: &mut Criterion) {
    let graph = social::generate(persons());
    let db = social::load(&graph);
    let mut group = c.benchmark_group("cypher");
    group.sample_size(20);
    for q in social::QUERIES {
        let mut i = 0usize;
        group.bench_function(q.name, |b| {
            b.iter(|| {
                i += 1;
                social::run(&db, q, social::params(q, &graph, i))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, queries);
criterion_main!(benches);
