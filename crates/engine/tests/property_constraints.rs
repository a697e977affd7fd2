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

// Vector property type constraints (Neo4j 2025.10): `VECTOR<coordinate type>(dimension)`.

const EMBEDDING: &str =
    "CREATE CONSTRAINT doc_embedding FOR (d:Doc) REQUIRE d.embedding IS :: VECTOR<FLOAT32>(3)";

fn vector_constrained(db: &Database) {
    rows(db, EMBEDDING);
    rows(
        db,
        "CREATE CONSTRAINT contains_embedding FOR ()-[r:CONTAINS]->() \
         REQUIRE r.embedding IS :: VECTOR<INT8>(2)",
    );
}

/// A constrained vector of the right type is stored; each wrong one fails naming both types.
fn check_vectors_enforced(db: &Database) {
    rows(
        db,
        "CREATE (:Doc {embedding: vector([1, 2, 3], 3, FLOAT32)})\
         -[:CONTAINS {embedding: vector([1, 2], 2, INTEGER8)}]->(:Doc)",
    );
    for (value, actual) in [
        ("vector([1, 2], 2, FLOAT32)", "VECTOR<FLOAT32 NOT NULL>(2)"),
        ("vector([1, 2, 3], 3, FLOAT)", "VECTOR<FLOAT NOT NULL>(3)"),
        ("[1.0, 2.0, 3.0]", "LIST<FLOAT NOT NULL>"),
        ("'[1.0, 2.0, 3.0]'", "STRING"),
    ] {
        let (code, message) = fail(db, &format!("CREATE (:Doc {{embedding: {value}}})"));
        assert_eq!(code, VALIDATION, "{value}");
        assert!(
            message.starts_with("Node(")
                && message.ends_with(&format!(
                    "with label `Doc` required the property `embedding` to be of type \
                     `VECTOR<FLOAT32 NOT NULL>(3)`, but was of type `{actual}`"
                )),
            "{message}"
        );
    }
    let (code, message) = fail(
        db,
        "CREATE ()-[:CONTAINS {embedding: vector([1, 2], 2, INTEGER16)}]->()",
    );
    assert_eq!(code, VALIDATION);
    assert!(
        message.starts_with("Relationship(")
            && message.ends_with(
                "with type `CONTAINS` required the property `embedding` to be of type \
                 `VECTOR<INTEGER8 NOT NULL>(2)`, but was of type `VECTOR<INTEGER16 NOT NULL>(2)`"
            ),
        "{message}"
    );
}

#[test]
fn a_vector_of_the_constrained_type_is_stored_and_any_other_value_refused() {
    let db = Database::open_in_memory(EngineConfig::default());
    vector_constrained(&db);
    check_vectors_enforced(&db);
    assert_eq!(
        rows(&db, "MATCH (d:Doc) RETURN count(d.embedding), count(d)"),
        vec![vec![Value::Int(1), Value::Int(2)]]
    );
}

#[test]
fn a_vector_of_another_dimension_is_refused_by_the_constraint_set_later() {
    let db = Database::open_in_memory(EngineConfig::default());
    rows(
        &db,
        "CREATE (:Doc {embedding: vector([1, 2, 3], 3, FLOAT32)})",
    );
    rows(&db, EMBEDDING);
    let (code, message) = fail(
        &db,
        "MATCH (d:Doc) SET d.embedding = vector([1, 2, 3, 4], 4, FLOAT32)",
    );
    assert_eq!(code, VALIDATION);
    assert!(
        message.ends_with("but was of type `VECTOR<FLOAT32 NOT NULL>(4)`"),
        "{message}"
    );
    assert_eq!(
        rows(&db, "MATCH (d:Doc) RETURN size(d.embedding)"),
        vec![vec![Value::Int(3)]]
    );
}

#[test]
fn a_vector_type_constraint_over_a_vector_of_another_type_is_not_created() {
    let db = Database::open_in_memory(EngineConfig::default());
    rows(&db, "CREATE (:Doc {embedding: vector([1, 2, 3], 3, INT8)})");
    let (code, message) = fail(&db, EMBEDDING);
    assert_eq!(code, "Neo.ClientError.Schema.ConstraintCreationFailed");
    assert!(
        message.contains(
            "required the property `embedding` to be of type `VECTOR<FLOAT32 NOT NULL>(3)`, \
             but was of type `VECTOR<INTEGER8 NOT NULL>(3)`"
        ),
        "{message}"
    );
    assert!(names(&db).is_empty());
}

#[test]
fn show_constraints_prints_a_vector_type_as_neo4j_does_and_its_statement_recreates_it() {
    let db = Database::open_in_memory(EngineConfig::default());
    rows(
        &db,
        "CREATE CONSTRAINT node_vector_constraint FOR (n:Movie) \
         REQUIRE n.embedding IS :: VECTOR<INT32>(42)",
    );
    let show = "SHOW CONSTRAINTS YIELD name, type, entityType, propertyType, createStatement";
    let statement = "CREATE CONSTRAINT `node_vector_constraint` FOR (n:`Movie`) \
                     REQUIRE (n.`embedding`) IS :: VECTOR<INTEGER32 NOT NULL>(42)";
    let shown = vec![vec![
        Value::from("node_vector_constraint"),
        Value::from("NODE_PROPERTY_TYPE"),
        Value::from("NODE"),
        Value::from("VECTOR<INTEGER32 NOT NULL>(42)"),
        Value::from(statement),
    ]];
    assert_eq!(rows(&db, show), shown);
    rows(&db, "DROP CONSTRAINT node_vector_constraint");
    rows(&db, statement);
    assert_eq!(rows(&db, show), shown);
    // The alias names the same type: the same constraint again does nothing.
    rows(
        &db,
        "CREATE CONSTRAINT node_vector_constraint IF NOT EXISTS FOR (n:Movie) \
         REQUIRE n.embedding IS :: VECTOR<INTEGER32>(42)",
    );
    assert_eq!(rows(&db, show), shown);
}

#[test]
fn vector_types_join_unions_in_neo4j_order() {
    let db = Database::open_in_memory(EngineConfig::default());
    rows(
        &db,
        "CREATE CONSTRAINT c FOR (d:Doc) \
         REQUIRE d.e IS :: LIST<FLOAT NOT NULL> | VECTOR<FLOAT32>(2) | VECTOR<INT8>(2) | STRING",
    );
    assert_eq!(
        rows(&db, "SHOW CONSTRAINTS YIELD propertyType"),
        vec![vec![Value::from(
            "STRING | VECTOR<INTEGER8 NOT NULL>(2) | VECTOR<FLOAT32 NOT NULL>(2) | \
             LIST<FLOAT NOT NULL>"
        )]]
    );
    rows(
        &db,
        "CREATE (:Doc {e: 'x'}), (:Doc {e: [1.5]}), (:Doc {e: vector([1, 2], 2, INT8)}), \
         (:Doc {e: vector([1, 2], 2, FLOAT32)})",
    );
    let (code, _) = fail(&db, "CREATE (:Doc {e: vector([1, 2], 2, INT16)})");
    assert_eq!(code, VALIDATION);
}

#[test]
fn a_vector_type_of_another_dimension_on_the_same_property_conflicts() {
    let db = Database::open_in_memory(EngineConfig::default());
    rows(&db, EMBEDDING);
    for other in ["VECTOR<FLOAT32>(4)", "VECTOR<FLOAT>(3)"] {
        let (code, message) = fail(
            &db,
            &format!("CREATE CONSTRAINT other FOR (d:Doc) REQUIRE d.embedding IS :: {other}"),
        );
        assert_eq!(code, "Neo.ClientError.Schema.ConstraintAlreadyExists");
        assert!(
            message.starts_with("Conflicting constraint already exists")
                && message.contains("propertyType=VECTOR<FLOAT32 NOT NULL>(3)"),
            "{message}"
        );
    }
}

#[test]
fn a_vector_type_needs_a_coordinate_type_and_a_dimension_a_vector_can_have() {
    let db = Database::open_in_memory(EngineConfig::default());
    let both = "Property type constraints for vectors need to define both coordinate type \
                and dimension.";
    for (ty, why) in [
        ("VECTOR<INTEGER>", both),
        ("VECTOR(3)", both),
        ("VECTOR", both),
        (
            "VECTOR<FLOAT32>(4097)",
            "The number of vector dimensions must be between 1 and 4096, but is 4097.",
        ),
    ] {
        let (code, message) = fail(
            &db,
            &format!("CREATE CONSTRAINT c FOR (d:Doc) REQUIRE d.e IS :: {ty}"),
        );
        assert_eq!(code, "Neo.ClientError.Statement.SyntaxError", "{ty}");
        assert!(
            message.starts_with(&format!(
                "Failed to create node property type constraint: Invalid property type `{ty}`. \
                 {why}"
            )),
            "{message}"
        );
    }
    for ty in [
        "VECTOR<FLOAT32>(0)",
        "VECTOR<FLOAT16>(3)",
        "VECTOR<FLOAT32>(99999999999)",
        "VECTOR<FLOAT32>(-1)",
        "LIST<VECTOR<FLOAT32>(3) NOT NULL>",
    ] {
        let (code, _) = fail(
            &db,
            &format!("CREATE CONSTRAINT c FOR (d:Doc) REQUIRE d.e IS :: {ty}"),
        );
        assert_eq!(code, "Neo.ClientError.Statement.SyntaxError", "{ty}");
    }
    assert!(names(&db).is_empty());
}

#[test]
fn a_vector_type_constraint_survives_log_replay_and_a_snapshot() {
    let dir = tempfile::tempdir().expect("dir");
    let all = vec![
        Value::from("contains_embedding"),
        Value::from("doc_embedding"),
    ];
    let types = "SHOW CONSTRAINTS YIELD name, propertyType ORDER BY name";
    let shown = vec![
        vec![
            Value::from("contains_embedding"),
            Value::from("VECTOR<INTEGER8 NOT NULL>(2)"),
        ],
        vec![
            Value::from("doc_embedding"),
            Value::from("VECTOR<FLOAT32 NOT NULL>(3)"),
        ],
    ];
    {
        let db = open(dir.path());
        vector_constrained(&db);
        drop(db);
    }
    {
        // Replayed from the log.
        let db = open(dir.path());
        assert_eq!(names(&db), all);
        assert_eq!(rows(&db, types), shown);
        check_vectors_enforced(&db);
        db.close().expect("close");
    }
    {
        // Loaded from the snapshot the clean close wrote.
        let db = open(dir.path());
        assert_eq!(rows(&db, types), shown);
        check_vectors_enforced(&db);
        assert_eq!(
            rows(&db, "MATCH (d:Doc) RETURN count(d.embedding)"),
            vec![vec![Value::Int(2)]]
        );
    }
}
