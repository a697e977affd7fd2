//! A writing query is carried out when it is run, as Neo4j carries out writing queries at
//! Bolt's RUN: its errors come from `run`, its rows wait to be pulled (in whatever slices the
//! client asks for), and nothing it wrote is committed before the transaction commits — an
//! auto-commit one at the end of its pull, an explicit one at COMMIT. A reading query still
//! runs as it is pulled.

use std::sync::Arc;

use quiver_engine::{Database, EngineConfig, PullState, TxOptions};
use quiver_status::Status;
use quiver_value::{Map, Value};

fn db() -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig::default());
    db.execute(
        "CREATE CONSTRAINT p_k FOR (p:P) REQUIRE p.k IS UNIQUE",
        Map::new(),
    )
    .unwrap();
    db.execute("CREATE (:P {k: 1})", Map::new()).unwrap();
    db
}

fn count(db: &Database, query: &str) -> i64 {
    db.execute(query, Map::new()).unwrap().rows[0][0]
        .as_int()
        .unwrap()
}

#[test]
fn a_writing_query_fails_at_run_with_or_without_columns() {
    let db = db();
    for auto_commit in [true, false] {
        for duplicate in ["CREATE (:P {k: 1})", "CREATE (p:P {k: 1}) RETURN p.k AS k"] {
            let opts = if auto_commit {
                TxOptions::auto_commit()
            } else {
                TxOptions::default()
            };
            let mut tx = db.begin(opts).unwrap();
            let error = tx.run(duplicate, Map::new()).unwrap_err();
            assert_eq!(
                error.status_code(),
                Status::ConstraintValidationFailed,
                "{duplicate} (auto-commit: {auto_commit})"
            );
        }
    }
    assert_eq!(count(&db, "MATCH (p:P) RETURN count(p)"), 1);
}

#[test]
fn a_reading_query_still_fails_as_it_is_pulled() {
    let db = db();
    let mut tx = db.begin(TxOptions::auto_commit()).unwrap();
    let q = tx
        .run("UNWIND [1, 0] AS x RETURN 1 / x AS y", Map::new())
        .unwrap();
    let mut rows = Vec::new();
    assert!(tx.pull(q, -1, &mut rows).is_err());
}

#[test]
fn the_rows_of_a_writing_query_are_pulled_in_slices_after_it_ran() {
    let db = db();
    let mut tx = db.begin(TxOptions::auto_commit()).unwrap();
    let q = tx
        .run(
            "UNWIND range(1, 5) AS i CREATE (:N {i: i}) RETURN i",
            Map::new(),
        )
        .unwrap();
    let mut rows = Vec::new();
    assert!(matches!(
        tx.pull(q, 2, &mut rows).unwrap(),
        PullState::HasMore
    ));
    assert!(matches!(
        tx.pull(q, 2, &mut rows).unwrap(),
        PullState::HasMore
    ));
    let PullState::Done(summary) = tx.pull(q, -1, &mut rows).unwrap() else {
        panic!("the last row ends it");
    };
    let expected: Vec<Vec<Value>> = (1..=5).map(|i| vec![Value::Int(i)]).collect();
    assert_eq!(rows, expected);
    assert!(
        summary.commit.is_some(),
        "the auto-commit committed at its end"
    );
    assert_eq!(count(&db, "MATCH (n:N) RETURN count(n)"), 5);
}

#[test]
fn what_a_writing_query_did_at_run_is_not_committed_before_its_transaction_is() {
    let db = db();
    // Explicit: rolled back after the run.
    let mut tx = db.begin(TxOptions::default()).unwrap();
    tx.run("CREATE (:N {i: 1}) RETURN 1 AS one", Map::new())
        .unwrap();
    tx.rollback().unwrap();
    // Auto-commit: dropped after the run, its result never pulled.
    let mut tx = db.begin(TxOptions::auto_commit()).unwrap();
    tx.run("CREATE (:N {i: 2})", Map::new()).unwrap();
    assert_eq!(count(&db, "MATCH (n:N) RETURN count(n)"), 0, "not yet");
    drop(tx);
    assert_eq!(count(&db, "MATCH (n:N) RETURN count(n)"), 0);
    // Discarding a writing query's kept rows ends it like pulling them.
    let mut tx = db.begin(TxOptions::auto_commit()).unwrap();
    let q = tx
        .run(
            "UNWIND range(1, 3) AS i CREATE (:N {i: i}) RETURN i",
            Map::new(),
        )
        .unwrap();
    assert!(matches!(tx.discard(q, -1).unwrap(), PullState::Done(_)));
    assert_eq!(count(&db, "MATCH (n:N) RETURN count(n)"), 3);
}
