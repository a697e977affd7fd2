//! Parser throughput on representative queries: the front end runs on every request that
//! misses the plan cache, so its cost per query is part of query latency.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const QUERIES: &[(&str, &str)] = &[
    (
        "point_lookup",
        "MATCH (n:Person {id: $id}) RETURN n.name AS name",
    ),
    (
        "two_hop",
        "MATCH (a:Person {name: $name})-[:KNOWS]->(b)-[:KNOWS]->(c) \
         WHERE c <> a AND NOT (a)-[:KNOWS]->(c) \
         RETURN c.name AS name, count(*) AS mutual ORDER BY mutual DESC LIMIT 10",
    ),
    (
        "generated",
        "CALL { MATCH (this:Movie) WHERE this.title = $param0 \
         WITH this { .title, actors: [(this)<-[:ACTED_IN]-(a:Actor) | a { .name }] } AS this \
         RETURN this } RETURN collect(this) AS data",
    ),
    (
        "write",
        "UNWIND $rows AS row MERGE (p:Person {id: row.id}) \
         ON CREATE SET p.created = timestamp(), p += row.props \
         ON MATCH SET p.seen = coalesce(p.seen, 0) + 1 \
         WITH p, row FOREACH (t IN row.tags | MERGE (tag:Tag {name: t}) MERGE (p)-[:TAGGED]->(tag))",
    ),
];

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    for (name, query) in QUERIES {
        group.throughput(Throughput::Bytes(query.len() as u64));
        group.bench_function(*name, |b| {
            b.iter(|| quiver_cypher::parse(black_box(query)).expect("benchmark query parses"));
        });
    }
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
