//! The embedded API as the server and the lab use it: transactions, streaming pulls, several
//! open queries, counters, errors with Neo4j codes, limits and cancellation.

use std::sync::Arc;
use std::time::Duration;

use quiver_engine::{AccessMode, Database, EngineConfig, Phase, PullState, QueryType, TxOptions};
use quiver_value::{Map, Value};

fn params(entries: &[(&str, Value)]) -> Map {
    entries
        .iter()
        .map(|(k, v)| (Arc::from(*k), v.clone()))
        .collect()
}

fn db() -> Arc<Database> {
    Database::open_in_memory(EngineConfig::default())
}

fn ints(rows: &[Vec<Value>]) -> Vec<i64> {
    rows.iter().map(|r| r[0].as_int().unwrap()).collect()
}

#[test]
fn create_match_return_with_counters() {
    let db = db();
    let r = db
        .execute(
            "CREATE (a:Person {name: 'Ann', age: 30})-[:KNOWS {since: 2020}]->(b:Person {name: 'Bob'})",
            Map::new(),
        )
        .unwrap();
    assert!(r.rows.is_empty());
    let s = r.summary.stats;
    assert_eq!(s.nodes_created, 2);
    assert_eq!(s.relationships_created, 1);
    assert_eq!(s.labels_added, 2);
    assert_eq!(s.properties_set, 4);
    assert!(s.contains_updates());
    assert_eq!(r.summary.query_type, QueryType::Write);
    assert!(r.summary.commit.is_some());

    let r = db
        .execute(
            "MATCH (a:Person)-[k:KNOWS]->(b) RETURN a.name AS a, b.name AS b, k.since AS since",
            Map::new(),
        )
        .unwrap();
    assert_eq!(&*r.columns[0], "a");
    assert_eq!(
        r.rows,
        vec![vec![
            Value::from("Ann"),
            Value::from("Bob"),
            Value::Int(2020)
        ]]
    );
    assert_eq!(r.summary.query_type, QueryType::Read);
}

#[test]
fn nodes_leave_materialised() {
    let db = db();
    db.execute("CREATE (:A:B {x: 1})", Map::new()).unwrap();
    let r = db.execute("MATCH (n) RETURN n", Map::new()).unwrap();
    let Value::Node(n) = &r.rows[0][0] else {
        panic!("not a node: {:?}", r.rows[0][0]);
    };
    let data = n.data.as_ref().expect("materialised");
    assert_eq!(data.labels.len(), 2);
    assert_eq!(data.properties.get("x"), Some(&Value::Int(1)));
}

#[test]
fn pull_streams_in_batches_and_queries_interleave() {
    let db = db();
    let mut tx = db.begin(TxOptions::default()).unwrap();
    let a = tx
        .run("UNWIND range(1, 10) AS i RETURN i", Map::new())
        .unwrap();
    let b = tx
        .run("UNWIND range(100, 102) AS i RETURN i", Map::new())
        .unwrap();
    let mut rows = Vec::new();
    assert!(matches!(
        tx.pull(a, 3, &mut rows).unwrap(),
        PullState::HasMore
    ));
    assert_eq!(ints(&rows), vec![1, 2, 3]);
    rows.clear();
    assert!(matches!(
        tx.pull(b, -1, &mut rows).unwrap(),
        PullState::Done(_)
    ));
    assert_eq!(ints(&rows), vec![100, 101, 102]);
    rows.clear();
    assert!(matches!(
        tx.pull(a, 100, &mut rows).unwrap(),
        PullState::Done(_)
    ));
    assert_eq!(ints(&rows), (4..=10).collect::<Vec<_>>());
    tx.commit().unwrap();
}

#[test]
fn a_huge_result_is_computed_lazily() {
    let db = db();
    let mut tx = db.begin(TxOptions::read()).unwrap();
    // Ten billion rows: only what is pulled is ever computed.
    let q = tx
        .run(
            "UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b RETURN a * b AS x",
            Map::new(),
        )
        .unwrap();
    let mut rows = Vec::new();
    assert!(matches!(
        tx.pull(q, 5, &mut rows).unwrap(),
        PullState::HasMore
    ));
    assert_eq!(ints(&rows), vec![1, 2, 3, 4, 5]);
    assert!(matches!(tx.discard(q, -1).unwrap(), PullState::Done(_)));
    tx.rollback().unwrap();
}

#[test]
fn explicit_transactions_see_their_writes_and_roll_back() {
    let db = db();
    let mut tx = db.begin(TxOptions::default()).unwrap();
    let q = tx.run("CREATE (:T {v: 1})", Map::new()).unwrap();
    let mut rows = Vec::new();
    tx.pull(q, -1, &mut rows).unwrap();
    let q = tx
        .run("MATCH (t:T) RETURN count(t) AS c", Map::new())
        .unwrap();
    tx.pull(q, -1, &mut rows).unwrap();
    assert_eq!(rows, vec![vec![Value::Int(1)]]);
    tx.rollback().unwrap();
    let r = db
        .execute("MATCH (t:T) RETURN count(t) AS c", Map::new())
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(0)]]);
}

#[test]
fn errors_carry_codes_details_and_phases() {
    let db = db();
    let e = db.execute("RETURN x", Map::new()).unwrap_err();
    assert_eq!(e.status_code(), "Neo.ClientError.Statement.SyntaxError");
    assert_eq!(e.detail(), Some("UndefinedVariable"));
    assert_eq!(e.phase(), Phase::CompileTime);

    let e = db.execute("RETURN $missing AS m", Map::new()).unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.ClientError.Statement.ParameterMissing"
    );

    let e = db.execute("RETURN 1 / 0 AS x", Map::new()).unwrap_err();
    assert_eq!(e.status_code(), "Neo.ClientError.Statement.ArithmeticError");
    assert_eq!(e.phase(), Phase::Runtime);

    db.execute("CREATE (a)-[:R]->(b)", Map::new()).unwrap();
    let e = db.execute("MATCH (n) DELETE n", Map::new()).unwrap_err();
    assert_eq!(e.detail(), Some("DeleteConnectedNode"));
    // The failed query left nothing behind.
    let r = db
        .execute("MATCH (n) RETURN count(n) AS c", Map::new())
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(2)]]);
}

#[test]
fn a_failed_transaction_refuses_further_work() {
    let db = db();
    let mut tx = db.begin(TxOptions::default()).unwrap();
    assert!(tx.run("RETURN 1 / 0 AS x", Map::new()).is_ok_and(|q| {
        let mut rows = Vec::new();
        tx.pull(q, -1, &mut rows).is_err()
    }));
    assert!(tx.is_failed());
    assert!(tx.run("RETURN 1 AS x", Map::new()).is_err());
    tx.rollback().unwrap();
}

#[test]
fn read_transactions_refuse_writes() {
    let db = db();
    let mut tx = db
        .begin(TxOptions {
            mode: AccessMode::Read,
            ..TxOptions::default()
        })
        .unwrap();
    let e = tx.run("CREATE ()", Map::new()).unwrap_err();
    assert_eq!(e.status_code(), "Neo.ClientError.Statement.AccessMode");
}

#[test]
fn parameters_and_the_plan_cache() {
    let db = db();
    db.execute("UNWIND range(1, 5) AS i CREATE (:N {i: i})", Map::new())
        .unwrap();
    for i in 1..=5 {
        let r = db
            .execute(
                "MATCH (n:N) WHERE n.i = $i RETURN n.i AS i",
                params(&[("i", Value::Int(i))]),
            )
            .unwrap();
        assert_eq!(r.rows, vec![vec![Value::Int(i)]]);
    }
    let (hits, _) = db.plan_cache_stats();
    assert!(hits >= 4, "{hits} hits");
}

#[test]
fn index_seeks_find_what_scans_find() {
    let db = db();
    db.execute(
        "UNWIND range(1, 200) AS i CREATE (:P {id: i, name: 'p' + toString(i)})",
        Map::new(),
    )
    .unwrap();
    let q = "MATCH (p:P) WHERE p.id >= 10 AND p.id < 20 RETURN count(p) AS c";
    let before = db.execute(q, Map::new()).unwrap().rows;
    db.execute("CREATE INDEX FOR (p:P) ON (p.id)", Map::new())
        .unwrap();
    db.execute("CREATE INDEX FOR (p:P) ON (p.name)", Map::new())
        .unwrap();
    let r = db.execute(&format!("PROFILE {q}"), Map::new()).unwrap();
    assert_eq!(r.rows, before);
    assert_eq!(r.rows, vec![vec![Value::Int(10)]]);
    let plan = r.summary.plan.expect("profile has a plan").render();
    assert!(plan.contains("NodeIndexSeek"), "{plan}");
    let r = db
        .execute("MATCH (p:P {name: 'p42'}) RETURN p.id AS id", Map::new())
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(42)]]);
    let r = db
        .execute(
            "MATCH (p:P) WHERE p.name STARTS WITH 'p19' RETURN count(*) AS c",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(11)]]);
}

#[test]
fn explain_does_not_run() {
    let db = db();
    let r = db.execute("EXPLAIN CREATE (:X)", Map::new()).unwrap();
    assert!(r.summary.plan.is_some());
    let r = db
        .execute("MATCH (x:X) RETURN count(x) AS c", Map::new())
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(0)]]);
}

#[test]
fn time_limits_and_cancellation_stop_queries() {
    let db = Database::open_in_memory(EngineConfig {
        query_time_max: Some(Duration::from_millis(50)),
        ..EngineConfig::default()
    });
    let e = db
        .execute(
            "UNWIND range(1, 100000000) AS i WITH i WHERE i < 0 RETURN i",
            Map::new(),
        )
        .unwrap_err();
    assert!(
        e.status_code().code().contains("TransactionTimedOut"),
        "{e}"
    );

    let db2 = Database::open_in_memory(EngineConfig::default());
    let mut tx = db2.begin(TxOptions::read()).unwrap();
    let handle = tx.cancel_handle();
    let q = tx
        .run(
            "UNWIND range(1, 100000000) AS i WITH i WHERE i < 0 RETURN i",
            Map::new(),
        )
        .unwrap();
    handle.cancel();
    let mut rows = Vec::new();
    let e = tx.pull(q, -1, &mut rows).unwrap_err();
    assert_eq!(e.status_code(), "Neo.ClientError.Transaction.Terminated");
}

#[test]
fn memory_limits_fail_cleanly() {
    let db = Database::open_in_memory(EngineConfig {
        query_memory_bytes_max: 1 << 20,
        ..EngineConfig::default()
    });
    let e = db
        .execute(
            "UNWIND range(1, 1000000) AS i RETURN collect(i) AS all",
            Map::new(),
        )
        .unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.TransientError.General.TransactionMemoryLimit"
    );
}

#[test]
fn procedures_answer_on_connect_queries() {
    let db = db();
    db.execute(
        "CREATE (:Person {name: 'a'})-[:KNOWS]->(:Robot)",
        Map::new(),
    )
    .unwrap();
    let r = db.execute("CALL db.labels()", Map::new()).unwrap();
    assert_eq!(
        r.rows,
        vec![vec![Value::from("Person")], vec![Value::from("Robot")]]
    );
    let r = db
        .execute(
            "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::from("KNOWS")]]);
    let r = db.execute("CALL db.ping()", Map::new()).unwrap();
    assert_eq!(r.rows, vec![vec![Value::Bool(true)]]);
    let r = db
        .execute("CALL dbms.components() YIELD name RETURN name", Map::new())
        .unwrap();
    assert_eq!(r.rows.len(), 1);
}

#[test]
fn show_and_terminate_transactions() {
    let db = db();
    let mut other = db.begin(TxOptions::default()).unwrap();
    let id = other.id();
    let r = db
        .execute(
            "SHOW TRANSACTIONS YIELD transactionId RETURN transactionId",
            Map::new(),
        )
        .unwrap();
    assert!(r.rows.iter().any(|row| row[0] == Value::from(id.as_str())));
    let r = db
        .execute(&format!("TERMINATE TRANSACTION '{id}'"), Map::new())
        .unwrap();
    assert_eq!(r.rows[0][1], Value::from("Transaction terminated."));
    assert!(other.run("RETURN 1 AS x", Map::new()).is_err());
}

#[test]
fn count_store_answers_counts() {
    let db = db();
    db.execute(
        "UNWIND range(1, 50) AS i CREATE (:Person)-[:KNOWS]->(:Person)",
        Map::new(),
    )
    .unwrap();
    let r = db
        .execute("PROFILE MATCH (n:Person) RETURN count(n) AS c", Map::new())
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(100)]]);
    let plan = r.summary.plan.unwrap().render();
    assert!(plan.contains("NodeCountFromCountStore"), "{plan}");
    let r = db
        .execute("MATCH ()-[r:KNOWS]->() RETURN count(r) AS c", Map::new())
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(50)]]);
}

/// A follower replays its leader's schema changes straight into the store, never through this
/// database: plans cached before the change are made again, so the new index is used.
#[test]
fn a_schema_change_replayed_into_the_store_replans_cached_queries() {
    let db = db();
    db.execute("UNWIND range(1, 50) AS i CREATE (:P {id: i})", Map::new())
        .unwrap();
    let query = "EXPLAIN MATCH (p:P {id: 7}) RETURN p";
    let plan = |db: &Database| {
        let r = db.execute(query, Map::new()).unwrap();
        format!("{:?}", r.summary.plan)
    };
    let before = plan(&db);
    assert!(!before.contains("NodeIndexSeek"), "{before}");
    let (_, misses) = db.plan_cache_stats();
    let storage = db.storage();
    let commit = storage.last_committed() + 1;
    storage
        .apply_redo(&quiver_storage::RedoRecord {
            commit,
            ops: vec![quiver_storage::RedoOp::CreateIndex {
                name: "p_id".to_owned(),
                label: Arc::from("P"),
                key: Arc::from("id"),
            }],
        })
        .unwrap();
    let after = plan(&db);
    assert_eq!(db.plan_cache_stats().1, misses + 1, "planned again");
    assert!(after.contains("NodeIndexSeek"), "{after}");
}
