//! `VECTOR` values through the engine: a vector parameter stored as a property survives the
//! commit log's replay and a snapshot, equality finds it through a property index, and the
//! vector functions answer.

use std::sync::Arc;

use quiver_engine::{Database, Mode};
use quiver_value::{CoordinateType, Map, Value, Vector};

fn params(entries: &[(&str, Value)]) -> Map {
    entries
        .iter()
        .map(|(k, v)| (Arc::from(*k), v.clone()))
        .collect()
}

fn embeddings() -> Vec<(i64, Value)> {
    CoordinateType::ALL
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let coordinates: Vec<Value> = (0..16).map(|c| Value::Int(c * 3 - 20)).collect();
            (
                i as i64,
                Value::vector(Vector::from_values(&coordinates, *t).unwrap()),
            )
        })
        .collect()
}

fn read_back(db: &Database) -> Vec<(i64, Value)> {
    db.execute(
        "MATCH (d:Doc) RETURN d.id AS id, d.embedding AS v ORDER BY id",
        Map::new(),
    )
    .expect("read")
    .rows
    .into_iter()
    .map(|row| (row[0].as_int().expect("id"), row[1].clone()))
    .collect()
}

#[test]
fn vector_properties_survive_the_log_and_a_snapshot() {
    let dir = tempfile::tempdir().expect("dir");
    let db = Database::open(dir.path(), Mode::Group).expect("open");
    for (id, v) in embeddings() {
        db.execute(
            "CREATE (:Doc {id: $id, embedding: $v})",
            params(&[("id", Value::Int(id)), ("v", v)]),
        )
        .expect("create");
    }
    assert_eq!(read_back(&db), embeddings());
    // Dropped without a clean close: the reopened store replays the log.
    drop(db);
    let db = Database::open(dir.path(), Mode::Group).expect("reopen");
    assert_eq!(read_back(&db), embeddings());
    // A clean close writes a snapshot, which the next open loads.
    db.close().expect("close");
    let db = Database::open(dir.path(), Mode::Group).expect("reopen from the snapshot");
    assert_eq!(read_back(&db), embeddings());
    db.close().expect("close");
}

#[test]
fn an_index_finds_a_vector_by_equality() {
    let db = Database::open_in_memory(quiver_engine::EngineConfig::default());
    db.execute(
        "CREATE INDEX doc_embedding FOR (d:Doc) ON (d.embedding)",
        Map::new(),
    )
    .expect("index");
    for (id, v) in embeddings() {
        db.execute(
            "CREATE (:Doc {id: $id, embedding: $v})",
            params(&[("id", Value::Int(id)), ("v", v)]),
        )
        .expect("create");
    }
    let (id, wanted) = embeddings().remove(4);
    let rows = db
        .execute(
            "MATCH (d:Doc) WHERE d.embedding = $v RETURN d.id",
            params(&[("v", wanted)]),
        )
        .expect("seek")
        .rows;
    assert_eq!(rows, vec![vec![Value::Int(id)]]);
}

#[test]
fn the_functions_answer_for_vectors() {
    let db = Database::open_in_memory(quiver_engine::EngineConfig::default());
    let rows = db
        .execute(
            "WITH vector([3, 4], 2, FLOAT32) AS v
             RETURN valueType(v), size(v), toFloatList(v),
                    vector.similarity.euclidean(v, v), v.x",
            Map::new(),
        )
        .map(|r| r.rows);
    // Property access on a vector is not Cypher: the query fails by type.
    assert!(rows.is_err());
    let rows = db
        .execute(
            "WITH vector([3, 4], 2, FLOAT32) AS v
             RETURN valueType(v), size(v), toFloatList(v), vector.similarity.euclidean(v, v)",
            Map::new(),
        )
        .expect("functions")
        .rows;
    assert_eq!(
        rows,
        vec![vec![
            Value::from("VECTOR<FLOAT32>(2) NOT NULL"),
            Value::Int(2),
            Value::from(vec![Value::Float(3.0), Value::Float(4.0)]),
            Value::Float(1.0),
        ]]
    );
}
