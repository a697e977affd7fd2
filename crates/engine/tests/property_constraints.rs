//! Property existence and property type constraints: Neo4j's messages, the check at commit in
//! an explicit transaction, and the definitions surviving a log replay and a snapshot.

use std::sync::Arc;

use quiver_engine::{Database, EngineConfig, Mode, TxOptions};
use quiver_value::{Map, Value};

fn rows(db: &Database, query: &str) -> Vec<Vec<Value>> {
    db.execute(query, Map::new())
        .unwrap_or_else(|e| panic!("{query}: {e}"))
        .rows
}

fn fail(db: &Database, query: &str) -> (String, String) {
    let e = db
        .execute(query, Map::new())
        .err()
        .unwrap_or_else(|| panic!("{query} succeeded"));
    (e.status_code().to_string(), e.message())
}

const VALIDATION: &str = "Neo.ClientError.Schema.ConstraintValidationFailed";

fn constrained(db: &Database) {
    rows(
        db,
        "CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL",
    );
    rows(
        db,
        "CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER | STRING",
    );
    rows(
        db,
        "CREATE CONSTRAINT knows_since FOR ()-[k:KNOWS]-() REQUIRE k.since IS NOT NULL",
    );
}

fn names(db: &Database) -> Vec<Value> {
    let mut names: Vec<Value> = rows(db, "SHOW CONSTRAINTS YIELD name")
        .into_iter()
        .map(|mut r| r.remove(0))
        .collect();
    names.sort_by_key(|v| format!("{v:?}"));
    names
}

fn check_enforced(db: &Database) {
    let (code, message) = fail(db, "CREATE (:Person {age: 3})");
    assert_eq!(code, VALIDATION);
    assert!(
        message.starts_with("Node(")
            && message.ends_with("with label `Person` must have the property `name`"),
        "{message}"
    );
    let (code, message) = fail(db, "CREATE (:Person {name: 'Ann', age: 1.5})");
    assert_eq!(code, VALIDATION);
    assert!(
        message.ends_with(
            "with label `Person` required the property `age` to be of type `STRING | INTEGER`, \
             but was of type `FLOAT`"
        ),
        "{message}"
    );
    let (code, message) = fail(db, "CREATE ()-[:KNOWS]->()");
    assert_eq!(code, VALIDATION);
    assert!(
        message.starts_with("Relationship(")
            && message.ends_with("with type `KNOWS` must have the property `since`"),
        "{message}"
    );
}

#[test]
fn violations_name_the_entity_as_neo4j_does() {
    let db = Database::open_in_memory(EngineConfig::default());
    constrained(&db);
    check_enforced(&db);
    rows(
        &db,
        "CREATE (:Person {name: 'Ann', age: 'x'})-[:KNOWS {since: 1}]->(:Person {name: 'Bob'})",
    );
    assert_eq!(
        rows(&db, "MATCH (n) RETURN count(n)"),
        vec![vec![Value::Int(2)]]
    );
}

#[test]
fn creation_over_violating_data_names_an_offender() {
    let db = Database::open_in_memory(EngineConfig::default());
    rows(&db, "CREATE (:Person {name: 'Ann'}), (:Person {age: 1})");
    let (code, message) = fail(
        &db,
        "CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL",
    );
    assert_eq!(code, "Neo.ClientError.Schema.ConstraintCreationFailed");
    assert!(
        message.contains("must have the property `name`"),
        "{message}"
    );
    let (_, message) = fail(
        &db,
        "CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS :: INTEGER",
    );
    assert!(message.contains("but was of type `STRING`"), "{message}");
    assert!(names(&db).is_empty());
}

/// As in Neo4j, an explicit transaction is checked when it commits: a statement may leave a
/// node without its property for a later statement of the same transaction to set.
#[test]
fn an_explicit_transaction_is_checked_at_commit() {
    let db = Database::open_in_memory(EngineConfig::default());
    constrained(&db);
    let mut tx = db.begin(TxOptions::default()).unwrap();
    let q = tx.run("CREATE (:Person {age: 1})", Map::new()).unwrap();
    tx.pull(q, -1, &mut Vec::new()).unwrap();
    let q = tx
        .run("MATCH (p:Person) SET p.name = 'Ann'", Map::new())
        .unwrap();
    tx.pull(q, -1, &mut Vec::new()).unwrap();
    tx.commit().unwrap();

    let mut tx = db.begin(TxOptions::default()).unwrap();
    let q = tx
        .run("MATCH (p:Person) REMOVE p.name", Map::new())
        .unwrap();
    tx.pull(q, -1, &mut Vec::new()).unwrap();
    let e = tx.commit().expect_err("the commit fails");
    assert_eq!(e.status_code().to_string(), VALIDATION);
    assert_eq!(
        rows(&db, "MATCH (p:Person) RETURN p.name"),
        vec![vec![Value::from("Ann")]]
    );
}

fn open(dir: &std::path::Path) -> Arc<Database> {
    Database::open(dir, Mode::Group).expect("open")
}

#[test]
fn constraints_survive_log_replay_and_snapshots_and_drop() {
    let dir = tempfile::tempdir().expect("dir");
    let all = vec![
        Value::from("knows_since"),
        Value::from("person_age"),
        Value::from("person_name"),
    ];
    {
        let db = open(dir.path());
        constrained(&db);
        drop(db);
    }
    {
        // Replayed from the log.
        let db = open(dir.path());
        assert_eq!(names(&db), all);
        check_enforced(&db);
        db.close().expect("close");
    }
    {
        // Loaded from the snapshot the clean close wrote.
        let db = open(dir.path());
        assert_eq!(names(&db), all);
        check_enforced(&db);
        assert_eq!(
            rows(
                &db,
                "SHOW CONSTRAINTS YIELD name, propertyType WHERE name = 'person_age'"
            ),
            vec![vec![
                Value::from("person_age"),
                Value::from("STRING | INTEGER")
            ]]
        );
        rows(&db, "DROP CONSTRAINT person_name");
        drop(db);
    }
    {
        // The drop replayed from the log over the snapshot.
        let db = open(dir.path());
        assert_eq!(
            names(&db),
            vec![Value::from("knows_since"), Value::from("person_age")]
        );
        rows(&db, "CREATE (:Person {age: 1})");
        db.close().expect("close");
    }
}
