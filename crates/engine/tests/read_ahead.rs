//! Operators that read their input ahead (a batched `Expand` copies its read-ahead rows into
//! the row it hands up) must not change what the operators below them bind: a path operator
//! that emits several rows for one input row binds each of them to that row.

use quiver_engine::{Database, EngineConfig};
use quiver_value::{Map, Value};

/// Two components joined by `:U`, {0, 2} and {1, 3}, with self-loops and parallel
/// relationships enough that the paths of one start span several of the expand's batches; only
/// node 0 has relationships out to the `:T|U` expand of the second `MATCH`.
fn graph() -> std::sync::Arc<Database> {
    let db = Database::open_in_memory(EngineConfig {
        factorized_counts: false,
        ..EngineConfig::default()
    });
    db.execute(
        "CREATE (:B {id: 0}), ({id: 1}), ({id: 2}), (:A:B {id: 3}), (:A {id: 4})",
        Map::new(),
    )
    .expect("nodes");
    for (from, to, ty) in [
        (2, 0, "T"),
        (1, 0, "T"),
        (2, 1, "T"),
        (0, 0, "U"),
        (0, 4, "T"),
        (0, 2, "U"),
        (1, 1, "T"),
        (1, 3, "U"),
        (1, 3, "U"),
        (1, 1, "U"),
        (4, 0, "T"),
        (0, 0, "U"),
    ] {
        let q = format!("MATCH (a {{id: {from}}}), (b {{id: {to}}}) CREATE (a)-[:{ty}]->(b)");
        db.execute(&q, Map::new())
            .unwrap_or_else(|e| panic!("{q}: {e}"));
    }
    db
}

fn rows(db: &Database, q: &str) -> Vec<String> {
    let mut rows: Vec<String> = db
        .execute(q, Map::new())
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .rows
        .iter()
        .map(|r| format!("{r:?}"))
        .collect();
    rows.sort();
    rows
}

/// The `(b, a)` rows both queries answer: only paths whose `b` is node 0, to either end of
/// its component.
fn starting_at_node_zero() -> Vec<String> {
    [(0, 0), (0, 2)]
        .iter()
        .map(|&(b, a)| format!("{:?}", vec![Value::Int(b), Value::Int(a)]))
        .collect()
}

#[test]
fn a_variable_length_expand_under_a_batched_expand_keeps_each_path_s_start() {
    let db = graph();
    // Every `b` reached from the second component has no relationship out, so only paths
    // that start at node 0 survive the second MATCH, whatever the expand above read ahead.
    let got = rows(
        &db,
        "MATCH (a)-[:U*1..3]-(b:B) MATCH (b)-[:T|U]->(c) RETURN DISTINCT b.id AS b, a.id AS a",
    );
    assert_eq!(got, starting_at_node_zero());
}

#[test]
fn a_shortest_path_under_a_batched_expand_keeps_each_path_s_start() {
    let db = graph();
    let got = rows(
        &db,
        "MATCH p = ANY SHORTEST (a)-[:U]-{1,3}(b:B) MATCH (b)-[:T|U]->(c) \
         RETURN DISTINCT b.id AS b, a.id AS a",
    );
    assert_eq!(got, starting_at_node_zero());
}
