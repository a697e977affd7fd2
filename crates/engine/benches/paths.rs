//! Quantified path patterns against the var-length forms they generalise, on a generated
//! graph: a grid of `QUIVER_BENCH_GRID` × `QUIVER_BENCH_GRID` nodes (30 by default) with
//! `:R` relationships right and down. Each pair of benchmarks asks the same question both
//! ways: every path of 1 to 4 hops from every node (`-[:R]->{1,4}` and `((x)-[:R]->(y)){1,4}`
//! against `-[:R*1..4]->`), and a shortest path across the grid (`SHORTEST 1` against
//! `shortestPath`).

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use quiver_engine::{Database, EngineConfig};
use quiver_value::{Map, Value};

fn side() -> usize {
    std::env::var("QUIVER_BENCH_GRID")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
}

fn grid(side: usize) -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig::default());
    let last = side - 1;
    let setup = [
        format!(
            "UNWIND range(0, {last}) AS x UNWIND range(0, {last}) AS y \
             CREATE (:G {{x: x, y: y, id: x * {side} + y}})"
        ),
        "CREATE INDEX FOR (n:G) ON (n.id)".to_string(),
        format!("MATCH (a:G) WHERE a.y < {last} MATCH (b:G {{id: a.id + 1}}) CREATE (a)-[:R]->(b)"),
        format!(
            "MATCH (a:G) WHERE a.x < {last} MATCH (b:G {{id: a.id + {side}}}) \
             CREATE (a)-[:R]->(b)"
        ),
    ];
    for q in setup {
        db.execute(&q, Map::new())
            .unwrap_or_else(|e| panic!("{q}: {e}"));
    }
    db
}

fn count(db: &Database, q: &str) -> i64 {
    let rows = db
        .execute(q, Map::new())
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .rows;
    match rows.first().and_then(|r| r.first()) {
        Some(Value::Int(n)) => *n,
        other => panic!("{q}: {other:?}"),
    }
}

fn paths(c: &mut Criterion) {
    let side = side();
    let db = grid(side);
    let far = side * side - 1;
    let pairs: [(&str, String); 5] = [
        (
            "var_length_1_4",
            "MATCH (:G)-[:R*1..4]->(b) RETURN count(*)".into(),
        ),
        (
            "quantified_relationship_1_4",
            "MATCH (:G)-[:R]->{1,4}(b) RETURN count(*)".into(),
        ),
        (
            "quantified_group_1_4",
            "MATCH (:G) ((x)-[:R]->(y)){1,4} (b) RETURN count(*)".into(),
        ),
        (
            "shortest_path",
            format!(
                "MATCH (a:G {{id: 0}}), (b:G {{id: {far}}}) \
                 MATCH p = shortestPath((a)-[:R*]->(b)) RETURN count(p)"
            ),
        ),
        (
            "shortest_1",
            format!(
                "MATCH (a:G {{id: 0}}), (b:G {{id: {far}}}) \
                 MATCH p = SHORTEST 1 (a)-[:R]->+(b) RETURN count(p)"
            ),
        ),
    ];
    // The forms agree before they are timed.
    assert_eq!(count(&db, &pairs[0].1), count(&db, &pairs[1].1));
    assert_eq!(count(&db, &pairs[0].1), count(&db, &pairs[2].1));
    assert_eq!(count(&db, &pairs[3].1), count(&db, &pairs[4].1));
    let mut group = c.benchmark_group("paths");
    group.sample_size(20);
    for (name, q) in &pairs {
        group.bench_function(*name, |b| b.iter(|| count(&db, q)));
    }
    group.finish();
}

criterion_group!(benches, paths);
criterion_main!(benches);
