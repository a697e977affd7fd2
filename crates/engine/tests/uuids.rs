//! `UUID` values through the engine: a UUID parameter stored as a property survives the
//! commit log's replay and a snapshot, equality finds one through a property index, and the
//! UUID functions, `valueType`, `toString`, equality and ordering answer as documented.

use std::sync::Arc;

use quiver_engine::{Database, Mode};
use quiver_value::{Map, Uuid, Value};

fn params(entries: &[(&str, Value)]) -> Map {
    entries
        .iter()
        .map(|(k, v)| (Arc::from(*k), v.clone()))
        .collect()
}

fn ids() -> Vec<(i64, Value)> {
    (0..8)
        .map(|i| (i, Value::Uuid(Uuid::from_halves(i * 7 - 20, -i))))
        .collect()
}

fn read_back(db: &Database) -> Vec<(i64, Value)> {
    db.execute(
        "MATCH (d:Doc) RETURN d.n AS n, d.id AS id ORDER BY n",
        Map::new(),
    )
    .expect("read")
    .rows
    .into_iter()
    .map(|row| (row[0].as_int().expect("n"), row[1].clone()))
    .collect()
}

fn one_row(db: &Database, query: &str) -> Vec<Value> {
    let mut rows = db.execute(query, Map::new()).expect(query).rows;
    assert_eq!(rows.len(), 1, "{query}");
    rows.remove(0)
}

#[test]
fn uuid_properties_survive_the_log_and_a_snapshot() {
    let dir = tempfile::tempdir().expect("dir");
    let db = Database::open(dir.path(), Mode::Group).expect("open");
    for (n, id) in ids() {
        db.execute(
            "CREATE (:Doc {n: $n, id: $id})",
            params(&[("n", Value::Int(n)), ("id", id)]),
        )
        .expect("create");
    }
    db.execute(
        "CREATE (:Doc {n: 99, id: uuid('550e8400-e29b-41d4-a716-446655440000')})",
        Map::new(),
    )
    .expect("create from text");
    let mut expected = ids();
    expected.push((
        99,
        Value::Uuid(Uuid::parse("550e8400-e29b-41d4-a716-446655440000").unwrap()),
    ));
    assert_eq!(read_back(&db), expected);
    drop(db);
    let db = Database::open(dir.path(), Mode::Group).expect("reopen");
    assert_eq!(read_back(&db), expected);
    db.close().expect("close");
    let db = Database::open(dir.path(), Mode::Group).expect("reopen from the snapshot");
    assert_eq!(read_back(&db), expected);
    db.close().expect("close");
}

#[test]
fn an_index_finds_a_uuid_by_equality_and_not_its_text() {
    let db = Database::open_in_memory(quiver_engine::EngineConfig::default());
    db.execute("CREATE INDEX doc_id FOR (d:Doc) ON (d.id)", Map::new())
        .expect("index");
    for (n, id) in ids() {
        db.execute(
            "CREATE (:Doc {n: $n, id: $id})",
            params(&[("n", Value::Int(n)), ("id", id)]),
        )
        .expect("create");
    }
    let (n, wanted) = ids().remove(5);
    let Value::Uuid(u) = wanted else {
        unreachable!()
    };
    let rows = db
        .execute(
            "MATCH (d:Doc) WHERE d.id = $id RETURN d.n",
            params(&[("id", wanted.clone())]),
        )
        .expect("seek")
        .rows;
    assert_eq!(rows, vec![vec![Value::Int(n)]]);
    // A UUID is not equal to its text.
    let rows = db
        .execute(
            "MATCH (d:Doc) WHERE d.id = $id RETURN d.n",
            params(&[("id", Value::from(u.to_string()))]),
        )
        .expect("seek by text")
        .rows;
    assert!(rows.is_empty());
    let rows = db
        .execute(
            "MATCH (d:Doc) WHERE d.id = uuid($text) RETURN d.n",
            params(&[("text", Value::from(u.to_string()))]),
        )
        .expect("seek by uuid(text)")
        .rows;
    assert_eq!(rows, vec![vec![Value::Int(n)]]);
}

#[test]
fn the_functions_answer_for_uuids() {
    let db = Database::open_in_memory(quiver_engine::EngineConfig::default());
    let row = one_row(
        &db,
        "WITH uuid('550E8400-e29b-41d4-a716-446655440000') AS u
         RETURN valueType(u), toString(u), uuid.mostSignificantBits(u),
                uuid.leastSignificantBits(u), uuid(42, 42) = uuid(42, 42),
                u = toString(u), valueType(uuid()), valueType(randomUUID()),
                uuid(null), toString(uuid(42, 42))",
    );
    let u = Uuid::parse("550e8400-e29b-41d4-a716-446655440000").unwrap();
    assert_eq!(
        row,
        vec![
            Value::from("UUID NOT NULL"),
            Value::from("550e8400-e29b-41d4-a716-446655440000"),
            Value::Int(u.most_significant_bits()),
            Value::Int(u.least_significant_bits()),
            Value::Bool(true),
            Value::Bool(false),
            Value::from("UUID NOT NULL"),
            Value::from("STRING NOT NULL"),
            Value::Null,
            Value::from("00000000-0000-002a-0000-00000000002a"),
        ]
    );
    // UUIDs order as unsigned numbers, which is the order of their text.
    let row = one_row(
        &db,
        "UNWIND [uuid('80000000-0000-0000-0000-000000000000'),
                 uuid('7fffffff-ffff-ffff-ffff-ffffffffffff')] AS u
         WITH u ORDER BY u
         RETURN collect(toString(u)), uuid(1, 0) < uuid(2, 0)",
    );
    assert_eq!(
        row,
        vec![
            Value::from(vec![
                Value::from("7fffffff-ffff-ffff-ffff-ffffffffffff"),
                Value::from("80000000-0000-0000-0000-000000000000"),
            ]),
            Value::Bool(true),
        ]
    );
    // Malformed text and wrong argument types fail the query, they do not crash it.
    for bad in [
        "RETURN uuid('550e8400')",
        "RETURN uuid(1)",
        "RETURN uuid(1, 'x')",
        "RETURN uuid.mostSignificantBits('550e8400-e29b-41d4-a716-446655440000')",
    ] {
        assert!(db.execute(bad, Map::new()).is_err(), "{bad}");
    }
}
