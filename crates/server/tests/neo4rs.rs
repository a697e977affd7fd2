//! Neo4j's Rust driver, neo4rs, against a real server: its error paths end at once.
//!
//! neo4rs's `Graph::run` pipelines DISCARD behind RUN and treats any failure of that DISCARD as
//! transient, retrying the whole statement with backoff for up to a minute. Quiver used to carry
//! out a writing statement when its result was pulled or discarded, so a uniqueness violation
//! answered the DISCARD: `run()` of a duplicate then hung for the minute of retries instead of
//! failing. A writing statement is now carried out at RUN, as Neo4j carries out writing
//! statements, so the violation answers the RUN and the driver gives up at once. Each call below is bounded by [`PROMPTLY`], far below the driver's retry minute and far
//! above a loopback round trip.

// The driver's futures are some 17 KB each; a test awaits a handful, once.
#![allow(clippy::large_futures)]

mod common;

use std::future::Future;
use std::time::Duration;

use common::{config, start};
use neo4rs::{ConfigBuilder, Error, Graph, query};

/// How long any call may take: generous for a busy machine, a sixth of neo4rs's retry time.
const PROMPTLY: Duration = Duration::from_secs(10);

const UNIQUE_VIOLATION: &str = "Neo.ClientError.Schema.ConstraintValidationFailed";
const SYNTAX_ERROR: &str = "Neo.ClientError.Statement.SyntaxError";

/// A driver with a single pooled connection, so every call after the first reuses the
/// connection a failure happened on.
fn driver(server: &common::Running) -> Graph {
    let config = ConfigBuilder::default()
        .uri(format!("bolt://{}", server.bolt))
        .user("neo4j")
        .password("unused: authentication is off")
        .max_connections(1)
        .build()
        .expect("driver configuration");
    Graph::connect(config).expect("driver")
}

/// Awaits `call`, failing the test if it takes longer than [`PROMPTLY`].
async fn promptly<T>(what: &str, call: impl Future<Output = T>) -> T {
    tokio::time::timeout(PROMPTLY, call)
        .await
        .unwrap_or_else(|_| panic!("{what} still pending after {PROMPTLY:?}"))
}

/// The error of a call that must fail (streams have no `Debug`, so no `expect_err`).
fn failed<T>(what: &str, outcome: Result<T, Error>) -> Error {
    match outcome {
        Ok(_) => panic!("{what} succeeded"),
        Err(error) => error,
    }
}

/// The Neo4j status code of a driver error.
fn code_of(error: &Error) -> String {
    match error {
        Error::Neo4j(neo4j) => neo4j.code().to_owned(),
        other => panic!("not a server error: {other:?}"),
    }
}

/// A graph with a uniqueness constraint on `:P(k)` and one node `(:P {k: 1})`.
async fn with_one_unique_node(graph: &Graph) {
    promptly(
        "CREATE CONSTRAINT",
        graph.run(query(
            "CREATE CONSTRAINT p_k FOR (p:P) REQUIRE p.k IS UNIQUE",
        )),
    )
    .await
    .expect("constraint created");
    promptly("first CREATE", graph.run(query("CREATE (:P {k: 1})")))
        .await
        .expect("first node");
}

/// How many `:P` nodes have `k = value`, read through the same single connection.
async fn count_of(graph: &Graph, value: i64) -> i64 {
    let mut rows = promptly(
        "count",
        graph.execute(query("MATCH (p:P {k: $k}) RETURN count(p) AS c").param("k", value)),
    )
    .await
    .expect("count query");
    let row = promptly("count row", rows.next())
        .await
        .expect("count row")
        .expect("one row");
    row.get::<i64>("c").expect("an integer count")
}

#[tokio::test]
async fn a_unique_violation_through_run_fails_at_once_and_the_connection_goes_on() {
    let server = start(config(|_| {}), None).await;
    let graph = driver(&server);
    with_one_unique_node(&graph).await;
    let duplicates = [
        "CREATE (:P {k: 1})",
        "CREATE (:P {k: 1})",
        "CREATE (p:P {k: 1}) RETURN p",
        "MATCH (p:P {k: 1}) CREATE (:P {k: p.k}) RETURN count(*) AS made",
    ];
    for duplicate in duplicates {
        let error = promptly("duplicate run()", graph.run(query(duplicate)))
            .await
            .expect_err("a duplicate fails");
        assert_eq!(code_of(&error), UNIQUE_VIOLATION, "{duplicate}");
    }
    assert_eq!(count_of(&graph, 1).await, 1, "nothing more was written");
    promptly(
        "run() after the failures",
        graph.run(query("CREATE (:P {k: 2})")),
    )
    .await
    .expect("the connection works on");
    assert_eq!(count_of(&graph, 2).await, 1);
    server.stop().await;
}

#[tokio::test]
async fn a_unique_violation_through_execute_fails_at_once_and_the_connection_goes_on() {
    let server = start(config(|_| {}), None).await;
    let graph = driver(&server);
    with_one_unique_node(&graph).await;
    let outcome = promptly(
        "duplicate execute()",
        graph.execute(query("CREATE (p:P {k: 1}) RETURN p.k AS k")),
    )
    .await;
    let error = failed("the duplicate's RUN", outcome);
    assert_eq!(code_of(&error), UNIQUE_VIOLATION);
    assert_eq!(count_of(&graph, 1).await, 1);
    server.stop().await;
}

#[tokio::test]
async fn a_syntax_error_fails_at_once_through_run_and_execute() {
    let server = start(config(|_| {}), None).await;
    let graph = driver(&server);
    let error = promptly("run()", graph.run(query("CREATE (n:P {k: 1")))
        .await
        .expect_err("not Cypher");
    assert_eq!(code_of(&error), SYNTAX_ERROR);
    let outcome = promptly("execute()", graph.execute(query("RETURN 1 +"))).await;
    let error = failed("not Cypher", outcome);
    assert_eq!(code_of(&error), SYNTAX_ERROR);
    assert_eq!(count_of(&graph, 1).await, 0);
    server.stop().await;
}

#[tokio::test]
async fn a_failed_statement_dooms_its_explicit_transaction_which_rolls_back() {
    let server = start(config(|_| {}), None).await;
    let graph = driver(&server);
    with_one_unique_node(&graph).await;

    // The failing statement, then ROLLBACK: everything the transaction wrote is gone.
    let mut txn = promptly("BEGIN", graph.start_txn()).await.expect("begin");
    promptly("first statement", txn.run(query("CREATE (:P {k: 2})")))
        .await
        .expect("a new key");
    let error = promptly(
        "duplicate in a transaction",
        txn.run(query("CREATE (:P {k: 1})")),
    )
    .await
    .expect_err("a duplicate fails");
    assert_eq!(code_of(&error), UNIQUE_VIOLATION);
    // The transaction is already over on the server: its ROLLBACK is IGNORED, which neo4rs
    // reports as an error; either way it must answer.
    let _ = promptly("ROLLBACK", txn.rollback()).await;
    assert_eq!(
        count_of(&graph, 2).await,
        0,
        "the first statement rolled back"
    );

    // The failing statement, then COMMIT: the commit must not succeed, nor write anything.
    let mut txn = promptly("BEGIN", graph.start_txn()).await.expect("begin");
    promptly("first statement", txn.run(query("CREATE (:P {k: 3})")))
        .await
        .expect("a new key");
    let error = promptly("syntax error in a transaction", txn.run(query("CREATE (")))
        .await
        .expect_err("not Cypher");
    assert_eq!(code_of(&error), SYNTAX_ERROR);
    promptly("COMMIT", txn.commit())
        .await
        .expect_err("a failed transaction does not commit");
    assert_eq!(count_of(&graph, 3).await, 0, "nothing of it committed");

    // And through execute(), whose RUN is sent alone inside a transaction.
    let mut txn = promptly("BEGIN", graph.start_txn()).await.expect("begin");
    let outcome = promptly(
        "duplicate execute()",
        txn.execute(query("CREATE (:P {k: 1})")),
    )
    .await;
    let error = failed("the duplicate's RUN", outcome);
    assert_eq!(code_of(&error), UNIQUE_VIOLATION);
    drop(txn);

    // The connection the transactions ran on works on.
    let mut txn = promptly("BEGIN", graph.start_txn()).await.expect("begin");
    promptly("statement", txn.run(query("CREATE (:P {k: 4})")))
        .await
        .expect("a new key");
    promptly("COMMIT", txn.commit()).await.expect("committed");
    assert_eq!(count_of(&graph, 4).await, 1);
    assert_eq!(count_of(&graph, 1).await, 1);
    server.stop().await;
}
