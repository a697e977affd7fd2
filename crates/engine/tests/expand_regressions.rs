//! Expansions that once returned what the graph does not hold, each kept as the sentence of
//! what must hold.

use quiver_engine::{Database, EngineConfig};
use quiver_value::{Map, Value};

fn run(db: &Database, q: &str) -> Vec<Vec<Value>> {
    db.execute(q, Map::new())
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .rows
}

/// Two batched expands in a row: the upper one reads its input ahead and writes its own rows
/// into the shared row, so the lower one must not trust the row to still hold its input.
#[test]
fn an_expand_above_an_expand_binds_each_path_from_one_input_row() {
    let db = Database::open_in_memory(EngineConfig::default());
    for (i, labels) in ["", ":B", ":B", "", "", ":B"].iter().enumerate() {
        run(&db, &format!("CREATE (n{labels} {{id: {i}}})"));
    }
    for (from, to, ty) in [(0, 5, "U"), (2, 1, "U"), (2, 1, "T"), (5, 0, "U")] {
        run(
            &db,
            &format!("MATCH (a {{id: {from}}}), (b {{id: {to}}}) CREATE (a)-[:{ty}]->(b)"),
        );
    }
    let rows = run(
        &db,
        "MATCH (a)-[r0:U]-(b:B)-[r1:T]->(c:B) RETURN a.id, b.id, c.id ORDER BY a.id",
    );
    assert_eq!(
        rows,
        vec![vec![Value::Int(1), Value::Int(2), Value::Int(1)]]
    );
}
