//! The query path over raw Bolt sockets: auto-commit and explicit transactions, result streams,
//! failures and RESET, bookmarks, access modes, timeouts, metadata and the counters.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::bolt::{BoltClient, begin, code, int, pull, run, run_in, text};
use common::{config, eventually, start};
use quiver_bolt::message::{AccessMode, Auth, TxExtra};
use quiver_bolt::{Request, Response, Version};
use quiver_value::{Map, Value};

const V58: &[Version] = &[Version::V5_8];
const V54: &[Version] = &[Version::V5_4];
const V44: &[Version] = &[Version::V4_4];

/// A query that computes for a good while (a nine-million-row cross product), checking for
/// cancellation as it goes.
pub const LONG_QUERY: &str = "UNWIND range(1, 3000) AS a UNWIND range(1, 3000) AS b WITH a, b WHERE a + b < 0 RETURN count(*) AS c";

async fn client(server: &common::Running, versions: &[Version]) -> BoltClient {
    // The manifest handshake offers Bolt 5 only.
    let manifest = versions.iter().all(|v| *v >= Version::V5_0);
    let mut client = BoltClient::connect(server.bolt, versions, manifest).await;
    client.login(Auth::none()).await.expect("logged in");
    client
}

fn params(pairs: &[(&str, Value)]) -> Map {
    pairs
        .iter()
        .map(|(k, v)| (Arc::from(*k), v.clone()))
        .collect()
}

fn bookmark_of(meta: &Map) -> String {
    text(meta, "bookmark").expect("a bookmark")
}

#[tokio::test]
async fn auto_commit_run_and_pull_report_fields_records_and_summary() {
    let server = start(config(|_| {}), None).await;
    for versions in [V58, V54, V44] {
        let mut client = client(&server, versions).await;
        let (head, rows, summary) = client.query("RETURN 1 AS x, 'two' AS y").await;
        let Some(Value::List(fields)) = head.get("fields") else {
            panic!("no fields in {head:?}");
        };
        assert_eq!(fields.len(), 2);
        assert!(head.contains_key("t_first"));
        assert_eq!(rows, vec![vec![Value::Int(1), Value::from("two")]]);
        assert_eq!(text(&summary, "type").as_deref(), Some("r"));
        assert_eq!(text(&summary, "db").as_deref(), Some("neo4j"));
        assert!(bookmark_of(&summary).starts_with("quiver:bookmark:v1:"));
        assert!(summary.contains_key("t_last"));
        if client.version >= Version::V5_6 {
            assert!(summary.contains_key("statuses"), "{summary:?}");
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn pull_with_n_reports_has_more_and_discard_ends_the_stream() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server, V58).await;
    client
        .send(&[
            run("UNWIND range(1, 10) AS i RETURN i"),
            pull(3, -1),
            pull(4, -1),
        ])
        .await;
    client.expect_success().await;
    let (rows, meta) = client.records().await;
    assert_eq!(rows.len(), 3);
    assert_eq!(meta.get("has_more"), Some(&Value::Bool(true)));
    let (rows, meta) = client.records().await;
    assert_eq!(
        rows.iter().map(|r| int(&r[0])).collect::<Vec<_>>(),
        [4, 5, 6, 7]
    );
    assert_eq!(meta.get("has_more"), Some(&Value::Bool(true)));
    client.send(&[Request::Discard { n: -1, qid: -1 }]).await;
    let (rows, summary) = client.records().await;
    assert!(rows.is_empty());
    assert!(summary.contains_key("bookmark"));
    // A write's summary carries its statistics.
    let (_, _, summary) = client.query("CREATE (:T {v: 1}), (:T {v: 2})").await;
    assert_eq!(text(&summary, "type").as_deref(), Some("w"));
    let Some(Value::Map(stats)) = summary.get("stats") else {
        panic!("no stats in {summary:?}");
    };
    assert_eq!(stats.get("nodes-created"), Some(&Value::Int(2)));
    assert_eq!(stats.get("labels-added"), Some(&Value::Int(2)));
    server.stop().await;
}

#[tokio::test]
async fn large_results_stream_in_small_and_whole_pulls() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server, V58).await;
    client
        .send(&[run(
            "UNWIND range(1, 50000) AS i RETURN i, 'row ' + toString(i) AS s",
        )])
        .await;
    client.expect_success().await;
    let mut seen = 0i64;
    loop {
        client.send(&[pull(1000, -1)]).await;
        let (rows, meta) = client.records().await;
        for row in &rows {
            seen += 1;
            assert_eq!(int(&row[0]), seen);
        }
        if meta.get("has_more") != Some(&Value::Bool(true)) {
            break;
        }
        assert_eq!(rows.len(), 1000);
    }
    assert_eq!(seen, 50_000);
    let (_, rows, _) = client.query("UNWIND range(1, 200000) AS i RETURN i").await;
    assert_eq!(rows.len(), 200_000);
    assert_eq!(int(&rows[199_999][0]), 200_000);
    server.stop().await;
}

#[tokio::test]
async fn explicit_transactions_hold_several_streams_and_commit_with_a_bookmark() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server, V58).await;
    client
        .send(&[
            begin(TxExtra::default()),
            run("UNWIND [1, 2, 3] AS i RETURN i"),
            run("CREATE (n:Item {v: 7}) RETURN n.v AS v"),
            pull(2, 0),
            pull(-1, 1),
            pull(-1, 0),
            Request::Commit,
        ])
        .await;
    let begun = client.expect_success().await;
    assert_eq!(text(&begun, "db").as_deref(), Some("neo4j"));
    let first = client.expect_success().await;
    assert_eq!(first.get("qid"), Some(&Value::Int(0)));
    let second = client.expect_success().await;
    assert_eq!(second.get("qid"), Some(&Value::Int(1)));
    let (rows, meta) = client.records().await;
    assert_eq!(rows.len(), 2);
    assert_eq!(meta.get("has_more"), Some(&Value::Bool(true)));
    let (rows, summary) = client.records().await;
    assert_eq!(rows, vec![vec![Value::Int(7)]]);
    assert!(
        !summary.contains_key("bookmark"),
        "only COMMIT names the bookmark"
    );
    let (rows, _) = client.records().await;
    assert_eq!(rows, vec![vec![Value::Int(3)]]);
    let committed = client.expect_success().await;
    assert!(bookmark_of(&committed).starts_with("quiver:bookmark:v1:"));
    let (_, rows, _) = client.query("MATCH (n:Item) RETURN n.v").await;
    assert_eq!(rows, vec![vec![Value::Int(7)]]);
    let snapshot = server.metrics.snapshot().transactions;
    assert_eq!(snapshot.active, 0);
    assert!(snapshot.committed_total >= 2);
    server.stop().await;
}

#[tokio::test]
async fn rollback_and_reset_undo_writes() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server, V58).await;
    client
        .send(&[
            begin(TxExtra::default()),
            run("CREATE (:Gone)"),
            pull(-1, -1),
            Request::Rollback,
        ])
        .await;
    client.expect_success().await;
    client.expect_success().await;
    client.records().await;
    client.expect_success().await;
    client
        .send(&[begin(TxExtra::default()), run("CREATE (:Gone)")])
        .await;
    client.expect_success().await;
    client.expect_success().await;
    client.send(&[Request::Reset]).await;
    client.expect_success().await;
    // A RESET pipelined behind work overtakes it: what came before is IGNORED.
    client
        .send(&[
            begin(TxExtra::default()),
            run("CREATE (:Gone)"),
            Request::Reset,
        ])
        .await;
    client.expect_ignored().await;
    client.expect_ignored().await;
    client.expect_success().await;
    let (_, rows, _) = client.query("MATCH (n:Gone) RETURN count(n)").await;
    assert_eq!(rows, vec![vec![Value::Int(0)]]);
    let snapshot = server.metrics.snapshot().transactions;
    assert_eq!(snapshot.active, 0);
    assert!(snapshot.rolled_back_total >= 2);
    server.stop().await;
}

#[tokio::test]
async fn a_failure_in_a_transaction_ignores_the_rest_until_reset() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server, V58).await;
    client
        .send(&[
            begin(TxExtra::default()),
            run("CREATE (:Half)"),
            run("RETURN 1 / 0"),
            pull(-1, -1),
            Request::Commit,
        ])
        .await;
    client.expect_success().await;
    client.expect_success().await;
    let (code, message) = loop {
        match client.recv().await {
            Some(Response::Success(_)) => {}
            Some(Response::Failure(meta)) => {
                break (
                    code(&meta).unwrap_or_default(),
                    text(&meta, "message").unwrap_or_default(),
                );
            }
            other => panic!("expected the division to fail, got {other:?}"),
        }
    };
    assert!(code.starts_with("Neo.ClientError."), "{code}: {message}");
    client.expect_ignored().await;
    client.send(&[Request::Reset]).await;
    client.expect_success().await;
    let (_, rows, _) = client.query("MATCH (n:Half) RETURN count(n)").await;
    assert_eq!(rows, vec![vec![Value::Int(0)]]);
    assert_eq!(server.metrics.snapshot().transactions.active, 0);
    server.stop().await;
}

#[tokio::test]
async fn syntax_errors_carry_code_message_and_position() {
    let server = start(config(|_| {}), None).await;
    for versions in [V58, V54] {
        let mut client = client(&server, versions).await;
        client.send(&[run("RETURN 1 +"), pull(-1, -1)]).await;
        match client.recv().await {
            Some(Response::Failure(meta)) => {
                let code = text(&meta, "code").or_else(|| text(&meta, "neo4j_code"));
                assert_eq!(
                    code.as_deref(),
                    Some("Neo.ClientError.Statement.SyntaxError")
                );
                if client.version >= Version::V5_7 {
                    assert!(meta.contains_key("gql_status"), "{meta:?}");
                    let Some(Value::Map(record)) = meta.get("diagnostic_record") else {
                        panic!("no diagnostic record in {meta:?}");
                    };
                    assert!(record.contains_key("_position"), "{record:?}");
                }
            }
            other => panic!("expected FAILURE, got {other:?}"),
        }
        client.expect_ignored().await;
    }
    server.stop().await;
}

#[tokio::test]
async fn write_conflicts_are_transient_so_drivers_retry() {
    let server = start(config(|_| {}), None).await;
    let mut first = client(&server, V58).await;
    let mut second = client(&server, V58).await;
    first.query("CREATE (:Account {id: 1, balance: 0})").await;
    first
        .send(&[
            begin(TxExtra::default()),
            run("MATCH (a:Account {id: 1}) SET a.balance = 10"),
            pull(-1, -1),
        ])
        .await;
    first.expect_success().await;
    first.expect_success().await;
    first.records().await;
    second
        .send(&[
            run("MATCH (a:Account {id: 1}) SET a.balance = 20"),
            pull(-1, -1),
        ])
        .await;
    let failed = loop {
        match second.recv().await {
            Some(Response::Failure(meta)) => break meta,
            Some(Response::Success(_)) => {}
            other => panic!("expected a FAILURE, got {other:?}"),
        }
    };
    let code = common::bolt::code(&failed).expect("code");
    assert!(
        code.starts_with("Neo.TransientError.Transaction."),
        "{code}"
    );
    first.send(&[Request::Commit]).await;
    first.expect_success().await;
    server.stop().await;
}

#[tokio::test]
async fn read_mode_refuses_writes_with_neo4js_error() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server, V58).await;
    let read = TxExtra {
        mode: AccessMode::Read,
        ..TxExtra::default()
    };
    client
        .send(&[
            run_in("CREATE (:Nope)", Map::new(), read.clone()),
            pull(-1, -1),
        ])
        .await;
    let (code, _) = client.expect_failure().await;
    assert_eq!(code, "Neo.ClientError.Statement.AccessMode");
    client.expect_ignored().await;
    client.send(&[Request::Reset]).await;
    client.expect_success().await;
    client
        .send(&[begin(read), run("RETURN 5"), pull(-1, -1), Request::Commit])
        .await;
    client.expect_success().await;
    client.expect_success().await;
    let (rows, _) = client.records().await;
    assert_eq!(rows, vec![vec![Value::Int(5)]]);
    client.expect_success().await;
    server.stop().await;
}

#[tokio::test]
async fn bookmarks_order_sessions_and_bad_ones_are_refused() {
    let server = start(config(|layer| layer.bookmark_timeout_ms = Some(200)), None).await;
    let mut writer = client(&server, V58).await;
    let mut reader = client(&server, V58).await;
    let (_, _, summary) = writer.query("CREATE (:Seen)").await;
    let bookmark = bookmark_of(&summary);
    let after = TxExtra {
        bookmarks: vec![bookmark.clone()],
        ..TxExtra::default()
    };
    reader
        .send(&[
            run_in("MATCH (n:Seen) RETURN count(n)", Map::new(), after),
            pull(-1, -1),
        ])
        .await;
    reader.expect_success().await;
    let (rows, _) = reader.records().await;
    assert_eq!(rows, vec![vec![Value::Int(1)]]);
    let commit: u64 = bookmark
        .rsplit(':')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("commit number");
    let future = TxExtra {
        bookmarks: vec![format!("quiver:bookmark:v1:{}", commit + 1000)],
        ..TxExtra::default()
    };
    reader.send(&[begin(future)]).await;
    let (code, _) = reader.expect_failure().await;
    assert_eq!(code, "Neo.TransientError.Transaction.BookmarkTimeout");
    reader.send(&[Request::Reset]).await;
    reader.expect_success().await;
    let bogus = TxExtra {
        bookmarks: vec!["FB:not-ours".to_owned()],
        ..TxExtra::default()
    };
    reader.send(&[begin(bogus)]).await;
    let (code, _) = reader.expect_failure().await;
    assert_eq!(code, "Neo.ClientError.Transaction.InvalidBookmark");
    server.stop().await;
}

#[tokio::test]
async fn tx_timeout_terminates_idle_and_running_transactions() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server, V58).await;
    let short = TxExtra {
        tx_timeout_ms: Some(150),
        ..TxExtra::default()
    };
    client.send(&[begin(short.clone())]).await;
    client.expect_success().await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    // Rolled back while idle: the counters already say so.
    assert_eq!(server.metrics.snapshot().transactions.active, 0);
    client.send(&[run("RETURN 1")]).await;
    let (code, _) = client.expect_failure().await;
    assert_eq!(
        code,
        "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"
    );
    client.send(&[Request::Reset]).await;
    client.expect_success().await;
    // A query running past the timeout is terminated.
    let started = std::time::Instant::now();
    client
        .send(&[begin(short), run(LONG_QUERY), pull(-1, -1)])
        .await;
    client.expect_success().await;
    let failure = loop {
        match client.recv().await {
            Some(Response::Failure(meta)) => break meta,
            Some(Response::Success(_)) => {}
            other => panic!("expected a FAILURE, got {other:?}"),
        }
    };
    assert_eq!(
        common::bolt::code(&failure).as_deref(),
        Some("Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration")
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    server.stop().await;
}

#[tokio::test]
async fn tx_metadata_is_visible_in_show_transactions() {
    let server = start(config(|_| {}), None).await;
    let mut holder = client(&server, V58).await;
    let mut observer = client(&server, V58).await;
    let extra = TxExtra {
        tx_metadata: Some(params(&[("app", Value::from("billing"))])),
        ..TxExtra::default()
    };
    holder.send(&[begin(extra)]).await;
    holder.expect_success().await;
    let (_, rows, _) = observer
        .query("SHOW TRANSACTIONS YIELD transactionId, metaData RETURN metaData")
        .await;
    let found = rows.iter().any(
        |row| matches!(&row[0], Value::Map(m) if m.get("app") == Some(&Value::from("billing"))),
    );
    assert!(found, "metadata not shown in {rows:?}");
    holder.send(&[Request::Rollback]).await;
    holder.expect_success().await;
    server.stop().await;
}

#[tokio::test]
async fn parameters_reach_the_query() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server, V58).await;
    client
        .send(&[
            run_in(
                "RETURN $a + $b AS sum, $name AS name",
                params(&[
                    ("a", Value::Int(40)),
                    ("b", Value::Int(2)),
                    ("name", Value::from("q")),
                ]),
                TxExtra::default(),
            ),
            pull(-1, -1),
        ])
        .await;
    client.expect_success().await;
    let (rows, _) = client.records().await;
    assert_eq!(rows, vec![vec![Value::Int(42), Value::from("q")]]);
    client.send(&[run("RETURN $missing"), pull(-1, -1)]).await;
    let (code, _) = client.expect_failure().await;
    assert_eq!(code, "Neo.ClientError.Statement.ParameterMissing");
    server.stop().await;
}

#[tokio::test]
async fn counters_follow_every_transaction() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server, V58).await;
    let before = server.metrics.snapshot();
    client.query("RETURN 1").await;
    client.query("CREATE ()").await;
    client
        .send(&[begin(TxExtra::default()), Request::Rollback])
        .await;
    client.expect_success().await;
    client.expect_success().await;
    let after = server.metrics.snapshot();
    let tx = &after.transactions;
    assert_eq!(tx.opened_total - before.transactions.opened_total, 3);
    assert_eq!(tx.committed_total - before.transactions.committed_total, 2);
    assert_eq!(
        tx.rolled_back_total - before.transactions.rolled_back_total,
        1
    );
    assert_eq!(tx.active, 0);
    assert!(after.query_latency.count >= before.query_latency.count + 2);
    assert!(eventually(|| server.metrics.bolt.in_flight.get() == 0).await);
    server.stop().await;
}

#[tokio::test]
async fn replies_are_batched_into_few_writes() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server, V58).await;
    let flushes = || server.metrics.bolt_flushes.get();
    // A pipelined batch (sent in one write): every reply goes out in one flush.
    let mut batch = Vec::new();
    for i in 0..10 {
        batch.push(run(&format!("RETURN {i} AS i")));
        batch.push(pull(-1, -1));
    }
    let before = flushes();
    client.send(&batch).await;
    for i in 0..10 {
        client.expect_success().await;
        let (rows, _) = client.records().await;
        assert_eq!(rows, vec![vec![Value::Int(i)]]);
    }
    assert_eq!(flushes() - before, 1, "one flush for the whole batch");
    // A large result: writes follow the bytes (each record here is under 16 bytes on the wire),
    // not the records.
    const ROWS: u64 = 200_000;
    let before = flushes();
    let (_, rows, _) = client
        .query(&format!("UNWIND range(1, {ROWS}) AS i RETURN i"))
        .await;
    assert_eq!(rows.len(), 200_000);
    let writes = flushes() - before;
    let bound = ROWS * 16 / 65_536 + 3;
    assert!(
        (2..=bound).contains(&writes),
        "{writes} writes for {ROWS} records (bound {bound})"
    );
    server.stop().await;
}

/// A plan operator's entry in a summary map.
fn plan_map(value: &Value) -> &Map {
    match value {
        Value::Map(m) => m,
        other => panic!("a plan operator is a map, got {other:?}"),
    }
}

fn children(plan: &Map) -> Vec<&Map> {
    match plan.get("children") {
        Some(Value::List(items)) => items.iter().map(plan_map).collect(),
        other => panic!("children is a list, got {other:?}"),
    }
}

#[tokio::test]
async fn explain_and_profile_put_their_plans_in_the_summary() {
    let server = start(config(|_| {}), None).await;
    for versions in [V58, V44] {
        let mut client = client(&server, versions).await;
        client
            .query("UNWIND range(1, 12) AS i CREATE (:Plan {i: i})")
            .await;
        let (_, rows, summary) = client
            .query("EXPLAIN MATCH (p:Plan) WHERE p.i > 8 RETURN p.i AS i")
            .await;
        assert!(rows.is_empty(), "EXPLAIN runs nothing");
        assert!(!summary.contains_key("profile"), "{summary:?}");
        let plan = plan_map(summary.get("plan").expect("a plan"));
        assert_eq!(
            text(plan, "operatorType").as_deref(),
            Some("ProduceResults")
        );
        let Some(Value::Map(args)) = plan.get("args") else {
            panic!("no args in {plan:?}");
        };
        assert_eq!(text(args, "planner").as_deref(), Some("COST"));
        assert!(matches!(args.get("EstimatedRows"), Some(Value::Float(_))));
        let Some(Value::List(identifiers)) = plan.get("identifiers") else {
            panic!("no identifiers in {plan:?}");
        };
        assert!(identifiers.contains(&Value::from("i")), "{identifiers:?}");
        assert!(!plan.contains_key("dbHits"), "EXPLAIN measures nothing");

        let (_, rows, summary) = client
            .query("PROFILE MATCH (p:Plan) WHERE p.i > 8 RETURN p.i AS i")
            .await;
        assert_eq!(rows.len(), 4);
        assert!(!summary.contains_key("plan"), "{summary:?}");
        let root = plan_map(summary.get("profile").expect("a profile"));
        assert_eq!(root.get("rows"), Some(&Value::Int(4)));
        for key in ["dbHits", "time", "pageCacheHits", "pageCacheMisses"] {
            assert!(
                matches!(root.get(key), Some(Value::Int(_))),
                "{key}: {root:?}"
            );
        }
        assert_eq!(root.get("pageCacheHitRatio"), Some(&Value::Float(0.0)));
        // Down the single chain to the scan: it read each of the 12 nodes once.
        let mut at = root;
        while text(at, "operatorType").as_deref() != Some("NodeByLabelScan") {
            at = children(at).first().copied().expect("a label scan below");
        }
        assert_eq!(at.get("rows"), Some(&Value::Int(12)));
        assert_eq!(at.get("dbHits"), Some(&Value::Int(12)));
        let Some(Value::Map(args)) = at.get("args") else {
            panic!("no args in {at:?}");
        };
        assert_eq!(args.get("Rows"), Some(&Value::Int(12)));
        assert_eq!(text(args, "Details").as_deref(), Some(":Plan"));
        client.query("MATCH (p:Plan) DELETE p").await;
    }
    server.stop().await;
}
