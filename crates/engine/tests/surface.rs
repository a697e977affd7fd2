//! What a Cypher user sees of the engine beyond plain reads and writes: EXPLAIN and PROFILE,
//! the plan cache, error positions, running transactions, long operator chains, and the
//! explicit errors of what Quiver does not support.

use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_engine::{Database, EngineConfig, PlanDescription, PullState, TxOptions};
use quiver_value::{Map, Value};

mod common;

use common::violation;

fn db() -> Arc<Database> {
    Database::open_in_memory(EngineConfig::default())
}

fn params(entries: &[(&str, Value)]) -> Map {
    entries
        .iter()
        .map(|(k, v)| (Arc::from(*k), v.clone()))
        .collect()
}

fn operators(plan: &PlanDescription, out: &mut Vec<String>) {
    out.push(plan.operator.clone());
    for child in &plan.children {
        operators(child, out);
    }
}

#[test]
fn explain_shows_the_plan_without_running() {
    let db = db();
    db.execute(
        "UNWIND range(1, 100) AS i CREATE (:Person {name: 'p' + toString(i)})",
        Map::new(),
    )
    .unwrap();
    db.execute("CREATE INDEX FOR (p:Person) ON (p.name)", Map::new())
        .unwrap();
    let r = db
        .execute(
            "EXPLAIN MATCH (p:Person {name: 'Ann'})-[:KNOWS]->(f) RETURN f.name AS name",
            Map::new(),
        )
        .unwrap();
    assert!(r.rows.is_empty());
    assert_eq!(&*r.columns[0], "name");
    let plan = r.summary.plan.expect("EXPLAIN has a plan");
    assert!(plan.profile.is_none(), "EXPLAIN does not measure");
    let mut ops = Vec::new();
    operators(&plan, &mut ops);
    assert!(ops.iter().any(|o| o == "NodeIndexSeek"), "{ops:?}");
    assert!(ops.iter().any(|o| o.starts_with("Expand")), "{ops:?}");
    let r = db
        .execute("EXPLAIN CREATE (:Person {name: 'new'})", Map::new())
        .unwrap();
    assert_eq!(r.summary.stats.nodes_created, 0);
    let r = db
        .execute("MATCH (p:Person) RETURN count(p) AS c", Map::new())
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(100)]], "EXPLAIN ran nothing");
}

#[test]
fn profile_counts_rows_and_time_per_operator() {
    let db = db();
    db.execute(
        "UNWIND range(1, 30) AS i CREATE (:P {i: i})-[:R]->(:Q {i: i})",
        Map::new(),
    )
    .unwrap();
    let r = db
        .execute(
            "PROFILE MATCH (p:P)-[:R]->(q) WHERE p.i % 3 = 0 RETURN q.i AS i",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows.len(), 10);
    let plan = r.summary.plan.expect("PROFILE has a plan");
    let text = plan.render();
    // Every operator carries its measured rows and time.
    fn check(p: &PlanDescription) {
        assert!(p.profile.is_some(), "{} unmeasured", p.operator);
        p.children.iter().for_each(check);
    }
    check(&plan);
    // The root produced the rows the client received.
    assert_eq!(plan.profile.map(|p| p.rows), Some(10), "{text}");
    assert!(text.contains(" rows, "), "{text}");
    assert!(text.contains(" us)"), "{text}");
    // The scan below the filter saw all 30 persons.
    let mut scan = &plan;
    while scan.operator != "NodeByLabelScan" {
        scan = scan.children.first().expect("a label scan");
    }
    assert_eq!(scan.profile.map(|p| p.rows), Some(30), "{text}");
}

#[test]
fn profile_counts_db_hits_per_operator_under_produce_results() {
    let db = db();
    db.execute("UNWIND range(1, 30) AS i CREATE (:P {i: i})", Map::new())
        .unwrap();
    let r = db
        .execute(
            "PROFILE MATCH (p:P) WHERE p.i > 20 RETURN p.i AS i",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows.len(), 10);
    let plan = r.summary.plan.expect("PROFILE has a plan");
    let text = plan.render();
    // Neo4j's root: the operator handing the rows to the client, named by the columns.
    assert_eq!(plan.operator, "ProduceResults", "{text}");
    assert_eq!(plan.details, "`i`", "{text}");
    assert_eq!(plan.profile.map(|p| p.rows), Some(10), "{text}");
    let find = |name: &str| {
        let mut at = &plan;
        while at.operator != name {
            at = at
                .children
                .first()
                .unwrap_or_else(|| panic!("no {name}: {text}"));
        }
        at.profile.expect("measured")
    };
    // The scan reads each of the 30 nodes once, the filter one property of each, the
    // projection one property of each of the 10 rows it sees: each its own hits only.
    assert_eq!(find("NodeByLabelScan").db_hits, 30, "{text}");
    assert_eq!(find("Filter").db_hits, 30, "{text}");
    assert_eq!(find("Projection").db_hits, 10, "{text}");
    assert_eq!(plan.total_db_hits(), 70, "{text}");
    assert!(text.contains(" db hits, "), "{text}");
    // The arguments drivers read: the root's name the planner, every operator's its figures.
    let root = plan.arguments(true);
    let arg = |args: &[(&str, Value)], key: &str| {
        args.iter()
            .find(|(k, _)| *k == key)
            .map_or_else(|| panic!("no {key}"), |(_, v)| v.clone())
    };
    assert_eq!(arg(&root, "planner"), Value::String("COST".into()));
    assert_eq!(arg(&root, "Rows"), Value::Int(10));
    let scan = plan.children[0].arguments(false);
    assert!(scan.iter().all(|(k, _)| *k != "planner"));
    // EXPLAIN has the same root, unmeasured.
    let r = db
        .execute("EXPLAIN MATCH (p:P) RETURN p", Map::new())
        .unwrap();
    let plan = r.summary.plan.expect("EXPLAIN has a plan");
    assert_eq!(plan.operator, "ProduceResults");
    assert!(plan.arguments(true).iter().all(|(k, _)| *k != "Rows"));
}

#[test]
fn a_repeated_query_skips_parse_and_plan() {
    let db = db();
    db.execute("UNWIND range(1, 20) AS i CREATE (:N {i: i})", Map::new())
        .unwrap();
    let query = "MATCH (n:N) WHERE n.i = $i RETURN n.i AS i";
    let (hits0, misses0) = db.plan_cache_stats();
    for i in 1..=10 {
        let r = db.execute(query, params(&[("i", Value::Int(i))])).unwrap();
        assert_eq!(r.rows, vec![vec![Value::Int(i)]]);
    }
    let (hits, misses) = db.plan_cache_stats();
    assert_eq!(misses - misses0, 1, "compiled once");
    assert_eq!(hits - hits0, 9, "then taken from the cache");
    // A schema change plans the query again (now with the index).
    db.execute("CREATE INDEX FOR (n:N) ON (n.i)", Map::new())
        .unwrap();
    let r = db
        .execute(&format!("PROFILE {query}"), params(&[("i", Value::Int(3))]))
        .unwrap();
    assert!(r.summary.plan.unwrap().render().contains("NodeIndexSeek"));
    let before = db.plan_cache_stats().1;
    db.execute(query, params(&[("i", Value::Int(4))])).unwrap();
    assert_eq!(
        db.plan_cache_stats().1,
        before + 1,
        "replanned after the schema change"
    );
    db.execute(query, params(&[("i", Value::Int(5))])).unwrap();
    assert_eq!(db.plan_cache_stats().1, before + 1);
}

#[test]
fn errors_carry_line_column_and_caret() {
    let db = db();
    let e = db
        .execute("MATCH (n)\nWHERE n.x = 1\nRETRUN n", Map::new())
        .unwrap_err();
    assert_eq!(e.status_code(), "Neo.ClientError.Statement.SyntaxError");
    let message = e.message();
    assert!(
        message.contains("line 3, column 1 (offset: 24)"),
        "{message}"
    );
    let mut lines = message.lines().skip(1);
    assert_eq!(lines.next(), Some("\"RETRUN n\""));
    assert_eq!(lines.next(), Some(" ^"));

    let e = db.execute("RETURN 1 AS a, b AS c", Map::new()).unwrap_err();
    assert_eq!(e.detail(), Some("UndefinedVariable"));
    assert!(e.message().contains("column 16"), "{}", e.message());

    let e = db
        .execute("RETURN 'a' + true AS x", Map::new())
        .unwrap_err();
    assert_eq!(e.detail(), Some("InvalidArgumentType"));

    let e = db.execute("RETURN $who AS who", Map::new()).unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.ClientError.Statement.ParameterMissing"
    );
}

#[test]
fn long_operator_chains_run_on_a_small_stack() {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let db = db();
            let sum = format!("RETURN 1{} AS x", " + 1".repeat(20_000));
            let r = db.execute(&sum, Map::new()).unwrap();
            assert_eq!(r.rows, vec![vec![Value::Int(20_001)]]);

            let filter = format!(
                "UNWIND range(1, 10) AS i WITH i WHERE i > 0{} RETURN count(*) AS c",
                " AND i <> 7".repeat(5_000)
            );
            let r = db.execute(&filter, Map::new()).unwrap();
            assert_eq!(r.rows, vec![vec![Value::Int(9)]]);

            db.execute("UNWIND range(1, 10) AS i CREATE (:N {i: i})", Map::new())
                .unwrap();
            let pushed = format!(
                "MATCH (n:N) WHERE n.i > 2{} RETURN count(n) AS c",
                " AND n.i < 9".repeat(5_000)
            );
            let r = db.execute(&pushed, Map::new()).unwrap();
            assert_eq!(r.rows, vec![vec![Value::Int(6)]]);

            // Left to right, as the nested operators would: strings stay strings.
            let r = db
                .execute("RETURN 'a' + 1 + 2 AS s, 10 - 2 - 3 AS d", Map::new())
                .unwrap();
            assert_eq!(r.rows, vec![vec![Value::from("a12"), Value::Int(5)]]);
            // Short-circuiting: once false, the rest of an AND chain is not evaluated.
            let r = db
                .execute(
                    "RETURN false AND 1 / 0 = 1 AND true AS f, true OR 1 / 0 = 1 OR false AS t",
                    Map::new(),
                )
                .unwrap();
            assert_eq!(r.rows, vec![vec![Value::Bool(false), Value::Bool(true)]]);
        })
        .unwrap()
        .join()
        .expect("no overflow");
}

#[test]
fn deep_nesting_fails_cleanly() {
    let db = db();
    let query = format!("RETURN {}1{} AS x", "(".repeat(5_000), ")".repeat(5_000));
    let e = db.execute(&query, Map::new()).unwrap_err();
    assert_eq!(e.status_code(), "Neo.ClientError.Statement.SyntaxError");
    assert!(e.message().contains("nested too deeply"), "{}", e.message());
}

#[test]
fn show_transactions_by_id_and_terminate_a_running_query() {
    let db = db();
    let a = db.begin(TxOptions::default()).unwrap();
    let b = db.begin(TxOptions::default()).unwrap();
    let r = db
        .execute(
            &format!("SHOW TRANSACTIONS '{}' YIELD transactionId", a.id()),
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::from(a.id().as_str())]]);
    let r = db
        .execute(
            "SHOW TRANSACTIONS $ids YIELD transactionId RETURN count(*) AS n",
            params(&[(
                "ids",
                Value::from(vec![
                    Value::from(a.id().as_str()),
                    Value::from(b.id().as_str()),
                ]),
            )]),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(2)]]);
    drop((a, b));

    // A query running on another thread stops when its transaction is terminated.
    let worker_db = db.clone();
    let (tx_id, rx_id) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let mut tx = worker_db.begin(TxOptions::read()).unwrap();
        tx_id.send(tx.id()).unwrap();
        let q = tx.run(
            "UNWIND range(1, 100000000) AS i WITH i WHERE i < 0 RETURN i",
            Map::new(),
        )?;
        let mut rows = Vec::new();
        tx.pull(q, -1, &mut rows)
            .map(|s| matches!(s, PullState::Done(_)))
    });
    let id = rx_id.recv().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let running = db
            .transactions()
            .into_iter()
            .any(|t| t.id == id && t.query.is_some());
        if running {
            break;
        }
        assert!(
            Instant::now() < deadline && !worker.is_finished(),
            "the query never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let r = db
        .execute(&format!("TERMINATE TRANSACTION '{id}'"), Map::new())
        .unwrap();
    assert_eq!(r.rows[0][1], Value::from("Transaction terminated."));
    let e = worker.join().unwrap().unwrap_err();
    assert_eq!(e.status_code(), "Neo.ClientError.Transaction.Terminated");
}

#[test]
fn subqueries_and_shortest_paths() {
    let db = db();
    db.execute(
        "CREATE (a:P {n: 'a'})-[:K]->(b:P {n: 'b'})-[:K]->(c:P {n: 'c'}), (a)-[:L]->(c)",
        Map::new(),
    )
    .unwrap();
    let r = db
        .execute(
            "MATCH (p:P) CALL (p) { MATCH (p)-[:K]->(f) RETURN f.n AS f } \
             RETURN p.n AS p, f ORDER BY p",
            Map::new(),
        )
        .unwrap();
    assert_eq!(
        r.rows,
        vec![
            vec![Value::from("a"), Value::from("b")],
            vec![Value::from("b"), Value::from("c")]
        ]
    );
    let r = db
        .execute(
            "MATCH (p:P) RETURN p.n AS p, COUNT { (p)-->() } AS out, \
             EXISTS { (p)<-[:K]-() } AS known, COLLECT { MATCH (p)-->(x) RETURN x.n ORDER BY x.n } AS to \
             ORDER BY p",
            Map::new(),
        )
        .unwrap();
    assert_eq!(
        r.rows[0],
        vec![
            Value::from("a"),
            Value::Int(2),
            Value::Bool(false),
            Value::from(vec![Value::from("b"), Value::from("c")])
        ]
    );
    let r = db
        .execute(
            "MATCH (a:P {n: 'a'}), (c:P {n: 'c'}) \
             MATCH p = shortestPath((a)-[*]->(c)) RETURN length(p) AS l",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(1)]]);
    let r = db
        .execute(
            "MATCH (a:P {n: 'a'}), (c:P {n: 'c'}) \
             MATCH p = allShortestPaths((a)-[:K*]->(c)) RETURN length(p) AS l",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(2)]]);
}

#[test]
fn call_in_transactions_commits_each_batch() {
    let db = db();
    let r = db
        .execute(
            "UNWIND range(1, 5) AS i CALL (i) { CREATE (:T {i: i}) } IN TRANSACTIONS OF 2 ROWS",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.summary.stats.nodes_created, 5);
    // The third batch fails: the two before it stay committed, nothing of it is left.
    let e = db
        .execute(
            "UNWIND [1, 2, 0, 4] AS i CALL (i) { CREATE (:F {v: 10 / i}) } IN TRANSACTIONS OF 1 ROW",
            Map::new(),
        )
        .unwrap_err();
    assert!(e.message().contains("/ by zero"), "{e}");
    let r = db
        .execute("MATCH (f:F) RETURN f.v AS v ORDER BY v", Map::new())
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(5)], vec![Value::Int(10)]]);
}

#[test]
fn call_in_transactions_on_error_continue_and_break_report_each_batch() {
    let db = db();
    let r = db
        .execute(
            "UNWIND [1, 0, 2] AS i \
             CALL (i) { CREATE (n:C {v: 10 / i}) RETURN n.v AS v } \
             IN TRANSACTIONS OF 1 ROW ON ERROR CONTINUE REPORT STATUS AS s \
             RETURN i, v, s.started AS started, s.committed AS committed, \
                    s.errorMessage IS NOT NULL AS failed, s.transactionId IS NOT NULL AS tx",
            Map::new(),
        )
        .unwrap();
    let t = Value::Bool(true);
    let f = Value::Bool(false);
    assert_eq!(
        r.rows,
        vec![
            vec![
                Value::Int(1),
                Value::Int(10),
                t.clone(),
                t.clone(),
                f.clone(),
                t.clone()
            ],
            vec![
                Value::Int(0),
                Value::Null,
                t.clone(),
                f.clone(),
                t.clone(),
                t.clone()
            ],
            vec![
                Value::Int(2),
                Value::Int(5),
                t.clone(),
                t.clone(),
                f.clone(),
                t.clone()
            ],
        ]
    );
    assert_eq!(r.summary.stats.nodes_created, 2);
    let r = db
        .execute(
            "UNWIND [1, 0, 2] AS i \
             CALL (i) { CREATE (:B {v: 10 / i}) } \
             IN TRANSACTIONS OF 1 ROW ON ERROR BREAK REPORT STATUS AS s \
             RETURN i, s.started AS started, s.committed AS committed",
            Map::new(),
        )
        .unwrap();
    assert_eq!(
        r.rows,
        vec![
            vec![Value::Int(1), t.clone(), t.clone()],
            vec![Value::Int(0), t.clone(), f.clone()],
            vec![Value::Int(2), f.clone(), f.clone()],
        ]
    );
    assert_eq!(r.summary.stats.nodes_created, 1);
}

#[test]
fn call_in_transactions_runs_only_in_an_auto_commit_transaction() {
    let db = db();
    let mut tx = db.begin(TxOptions::default()).unwrap();
    let e = tx
        .run(
            "UNWIND range(1, 3) AS i CALL (i) { CREATE (:T {i: i}) } IN TRANSACTIONS",
            Map::new(),
        )
        .unwrap_err();
    assert!(e.message().contains("implicit transaction"), "{e}");
    // Neo4j's code, which tools match with the message to send the query again on its own.
    assert_eq!(
        e.status_code().to_string(),
        "Neo.DatabaseError.Statement.ExecutionFailed"
    );
    for query in [
        "CALL { CALL { CREATE (:T) } IN TRANSACTIONS } IN TRANSACTIONS",
        "UNWIND [1] AS i CALL (i) { CREATE (:T) } IN TRANSACTIONS REPORT STATUS AS s RETURN s",
        "UNWIND [1] AS i CALL (i) { CREATE (:T) } IN TRANSACTIONS OF 0 ROWS",
    ] {
        assert!(db.execute(query, Map::new()).is_err(), "{query}");
    }
}

#[test]
fn unsupported_features_fail_by_name() {
    let db = db();
    for (query, name) in [
        // Property rules compare a property with a value, not with another property.
        (
            "GRANT MATCH {*} ON GRAPH * FOR (n:Person) WHERE n.open = n.shown TO reader",
            "property rule",
        ),
        (
            "MATCH REPEATABLE ELEMENTS p = (a)-[:R]-{1,2}(b) RETURN p",
            "REPEATABLE ELEMENTS",
        ),
        (
            "USE graph.byName('x') MATCH (n) RETURN n",
            "USE graph.byName",
        ),
        // Composite range indexes are supported; composite text indexes are not.
        (
            "CREATE TEXT INDEX FOR (n:A) ON (n.x, n.y)",
            "composite text and point indexes",
        ),
    ] {
        let e = db.execute(query, Map::new()).unwrap_err();
        assert_eq!(e.detail(), Some("UnsupportedFeature"), "{query}: {e}");
        assert!(e.message().contains(name), "{query}: {e}");
    }
}

/// Databases are a server's: an embedded database, on its own, refuses to manage them by
/// the command's name rather than pretending.
#[test]
fn an_embedded_database_refuses_database_management_by_name() {
    let db = db();
    for (query, name) in [
        ("CREATE DATABASE other", "CREATE DATABASE"),
        ("STOP DATABASE neo4j", "STOP DATABASE"),
        ("CREATE ALIAS nick FOR DATABASE neo4j", "CREATE ALIAS"),
    ] {
        let e = db.execute(query, Map::new()).unwrap_err();
        assert_eq!(
            e.status_code(),
            quiver_status::Status::NotSystemDatabaseError,
            "{query}: {e}"
        );
        assert!(e.message().contains(name), "{query}: {e}");
    }
    let listed = db.execute("SHOW DATABASES YIELD name", Map::new()).unwrap();
    assert_eq!(listed.rows, vec![vec![quiver_value::Value::from("neo4j")]]);
}

/// `SHOW FUNCTIONS`, `SHOW PROCEDURES`, `SHOW DATABASES`, `SHOW USERS`, `SHOW ROLES` and
/// `SHOW PRIVILEGES` used to fail as unsupported: now they answer, in Neo4j's default columns.
#[test]
fn show_functions_procedures_and_databases_answer() {
    let db = db();
    for (query, first) in [
        ("SHOW FUNCTIONS", "name"),
        ("SHOW PROCEDURES", "name"),
        ("SHOW DATABASES", "name"),
        ("SHOW SETTINGS", "name"),
        ("SHOW CURRENT USER", "user"),
        ("SHOW USERS", "user"),
        ("SHOW ROLES", "role"),
        ("SHOW PRIVILEGES", "access"),
    ] {
        let result = db
            .execute(query, Map::new())
            .unwrap_or_else(|e| panic!("{query}: {e}"));
        assert_eq!(&*result.columns[0], first, "{query}");
    }
}

/// Label expressions and `USE` used to fail as unsupported: now the expressions run, and `USE`
/// of any database but `neo4j` fails as Neo4j fails for a database it does not have.
#[test]
fn label_expressions_run_and_use_names_the_one_database() {
    let db = db();
    db.execute("CREATE (:A), (:B), (:C)", Map::new()).unwrap();
    for query in [
        "MATCH (n) WHERE n:!A RETURN n",
        "MATCH (n:A|B) RETURN n",
        "USE neo4j MATCH (n:A|B) RETURN n",
    ] {
        let result = db.execute(query, Map::new()).unwrap();
        assert_eq!(result.rows.len(), 2, "{query}");
    }
    let e = db
        .execute("USE other MATCH (n) RETURN n", Map::new())
        .unwrap_err();
    assert_eq!(
        e.status_code(),
        quiver_status::Status::DatabaseNotFound,
        "{e}"
    );
    assert!(e.message().contains("other"), "{e}");
}

#[test]
fn constraint_violations_speak_cypher() {
    let db = db();
    db.execute(
        "CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS UNIQUE",
        Map::new(),
    )
    .unwrap();
    db.execute("CREATE (:Person {name: 'Ann'})", Map::new())
        .unwrap();
    let message = violation(&db, "CREATE (:Person {name: 'Ann'})");
    assert!(
        message.ends_with("already exists with label `Person` and property `name` = 'Ann'"),
        "{message}"
    );
    let e = db
        .execute("DROP CONSTRAINT no_such_rule", Map::new())
        .unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.ClientError.Schema.ConstraintDropFailed"
    );
    let e = db
        .execute("DROP INDEX no_such_rule", Map::new())
        .unwrap_err();
    assert_eq!(e.status_code(), "Neo.ClientError.Schema.IndexDropFailed");
    db.execute("DROP CONSTRAINT no_such_rule IF EXISTS", Map::new())
        .unwrap();
    let r = db
        .execute("SHOW CONSTRAINTS YIELD name", Map::new())
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::from("person_name")]]);
    let r = db
        .execute("SHOW INDEXES YIELD name, owningConstraint", Map::new())
        .unwrap();
    assert_eq!(
        r.rows,
        vec![vec![Value::from("person_name"), Value::from("person_name")]]
    );
}

#[test]
fn unwinding_a_range_streams_and_building_one_is_bounded() {
    let db = Database::open_in_memory(EngineConfig {
        query_memory_bytes_max: 1 << 20,
        ..EngineConfig::default()
    });
    let mut tx = db.begin(TxOptions::read()).unwrap();
    // A trillion rows: only those pulled are counted out.
    let q = tx
        .run(
            "UNWIND range(1, 1000000000000) AS i RETURN i * 2 AS x",
            Map::new(),
        )
        .unwrap();
    let mut rows = Vec::new();
    assert!(matches!(
        tx.pull(q, 3, &mut rows).unwrap(),
        PullState::HasMore
    ));
    assert_eq!(
        rows,
        vec![
            vec![Value::Int(2)],
            vec![Value::Int(4)],
            vec![Value::Int(6)]
        ]
    );
    tx.rollback().unwrap();
    let r = db
        .execute(
            "UNWIND range(10, 1, -3) AS i UNWIND range(1, i, 4) AS j RETURN collect(j) AS js",
            Map::new(),
        )
        .unwrap();
    assert_eq!(
        r.rows[0][0],
        Value::from(
            [1, 5, 9, 1, 5, 1, 1]
                .into_iter()
                .map(Value::Int)
                .collect::<Vec<_>>()
        )
    );
    let e = db
        .execute("UNWIND range(1, 5, 0) AS i RETURN i", Map::new())
        .unwrap_err();
    assert_eq!(e.status_code(), "Neo.ClientError.Statement.ArgumentError");
    // Building the list whole is held to the memory limit, before it is allocated.
    let e = db
        .execute("RETURN size(range(1, 50000000)) AS n", Map::new())
        .unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.TransientError.General.TransactionMemoryLimit"
    );
}

#[test]
fn expand_into_finds_the_same_relationships_from_either_end() {
    let db = db();
    db.execute(
        "CREATE (h:H), (a:A), (a)-[:R {k: 1}]->(h), (h)-[:R {k: 2}]->(a), (a)-[:R {k: 3}]->(a) \
         WITH h UNWIND range(1, 300) AS i CREATE (h)-[:R]->(:X)",
        Map::new(),
    )
    .unwrap();
    for (pattern, expected) in [
        // The hub has 301 relationships, `a` three: either end may be walked.
        ("(a)-[r:R]->(h)", vec![1]),
        ("(h)-[r:R]->(a)", vec![2]),
        ("(a)<-[r:R]-(h)", vec![2]),
        ("(a)-[r:R]-(h)", vec![1, 2]),
        ("(h)-[r]-(a)", vec![1, 2]),
    ] {
        let r = db
            .execute(
                &format!("PROFILE MATCH (a:A), (h:H) MATCH {pattern} RETURN r.k AS k ORDER BY k"),
                Map::new(),
            )
            .unwrap();
        let plan = r.summary.plan.unwrap().render();
        assert!(plan.contains("Expand(Into)"), "{plan}");
        let ks: Vec<i64> = r.rows.iter().map(|row| row[0].as_int().unwrap()).collect();
        assert_eq!(ks, expected, "{pattern}");
    }
    let r = db
        .execute(
            "MATCH (a:A) MATCH (a)-[r:R]->(a) RETURN r.k AS k",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(3)]]);
}

#[test]
fn a_transaction_timeout_stops_its_query() {
    let db = db();
    let mut tx = db
        .begin(TxOptions {
            timeout: Some(Duration::from_millis(50)),
            ..TxOptions::read()
        })
        .unwrap();
    let started = Instant::now();
    let q = tx
        .run(
            "UNWIND range(1, 100000000000) AS i WITH i WHERE i < 0 RETURN i",
            Map::new(),
        )
        .unwrap();
    let mut rows = Vec::new();
    let e = tx.pull(q, -1, &mut rows).unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"
    );
    assert!(e.message().contains("50 ms"), "{e}");
    // Checked every few thousand rows: the query stops soon after its limit.
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(tx.is_failed());
}
