//! The hot-path cost of query memory accounting: query shapes that count as they go
//! (aggregation with `collect`, `DISTINCT` over built strings, a sort, properties read from the
//! store and returned) run with the limits as configured by default and with both limits
//! effectively off (`usize::MAX`), each iteration a whole auto-commit query.
//!
//! Counting itself runs either way (it is not optional); what the two differ in is every check
//! against a limit and every chunk taken from the pool, which is what a limit costs.
//! `cargo bench -p quiver-engine --bench memory`.

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use quiver_engine::{Database, EngineConfig};
use quiver_value::{Map, Value};

/// The shapes measured, by name.
const QUERIES: &[(&str, &str)] = &[
    (
        "collect_by_group",
        "UNWIND range(1, 20000) AS i WITH i % 100 AS k, collect(i) AS l RETURN sum(size(l)) AS n",
    ),
    (
        "distinct_strings",
        "UNWIND range(1, 20000) AS i RETURN count(DISTINCT 'key-' + toString(i)) AS n",
    ),
    (
        "sort",
        "UNWIND range(1, 20000) AS i WITH i ORDER BY -i RETURN count(*) AS n",
    ),
    (
        "return_properties",
        "MATCH (n:P) RETURN n.name AS name, n.tags AS tags",
    ),
];

/// A database with 5,000 `:P` nodes, each a 40-byte name and a list of four strings.
fn database(config: EngineConfig) -> Arc<Database> {
    let db = Database::open_in_memory(config);
    db.execute(
        "UNWIND range(1, 5000) AS i \
         CREATE (:P {name: 'person-' + toString(i) + '-abcdefghijklmnopqrstuvwxyz', \
                     tags: ['a' + toString(i), 'b', 'c', 'd']})",
        Map::new(),
    )
    .expect("load");
    db
}

fn accounting(c: &mut Criterion) {
    let configured = database(EngineConfig::default());
    let off = database(EngineConfig {
        query_memory_bytes_max: usize::MAX,
        query_memory_total_bytes_max: usize::MAX,
        ..EngineConfig::default()
    });
    let mut group = c.benchmark_group("memory");
    group.sample_size(20);
    for (name, query) in QUERIES {
        for (limits, db) in [("configured", &configured), ("off", &off)] {
            group.bench_function(format!("{name}/{limits}"), |b| {
                b.iter(|| {
                    let r = db.execute(query, Map::new()).expect("query");
                    assert!(!matches!(
                        r.rows.first().and_then(|r| r.first()),
                        Some(Value::Null)
                    ));
                    r.rows.len()
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, accounting);
criterion_main!(benches);
