//! Work that must stop: a RESET overtaking a running query, a client leaving mid-query or
//! mid-transaction, the keep-alives a long query sends, small queries served while a heavy one
//! runs, and the drain at shutdown.

mod common;

use std::time::{Duration, Instant};

use common::bolt::{BoltClient, begin, int, pull, run, text};
use common::{config, eventually, start};
use quiver_bolt::message::{Auth, TxExtra};
use quiver_bolt::{Request, Response, Version};
use quiver_value::Value;
use tokio::io::AsyncReadExt;

const V58: &[Version] = &[Version::V5_8];

/// Computes for a good while (a cross product of millions of rows), checking for cancellation
/// as it goes.
const LONG_QUERY: &str = "UNWIND range(1, 6000) AS a UNWIND range(1, 6000) AS b WITH a, b WHERE a + b < 0 RETURN count(*) AS c";

async fn client(server: &common::Running) -> BoltClient {
    let mut client = BoltClient::connect(server.bolt, V58, true).await;
    client.login(Auth::none()).await.expect("logged in");
    client
}

/// Waits until the engine lists no transaction; returns how long that took.
async fn engine_idle_within(server: &common::Running, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if server.db.transactions().is_empty() {
            return Some(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_interrupts_a_running_query() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server).await;
    client.send(&[run(LONG_QUERY), pull(-1, -1)]).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(server.db.transactions().len(), 1, "the query is running");
    let sent = Instant::now();
    client.send(&[Request::Reset]).await;
    // RUN had succeeded before the RESET arrived; the interrupted PULL is IGNORED.
    client.expect_success().await;
    client.expect_ignored().await;
    client.expect_success().await;
    let took = sent.elapsed();
    assert!(took < Duration::from_secs(2), "RESET took {took:?}");
    assert!(server.db.transactions().is_empty());
    let (_, rows, _) = client.query("RETURN 1").await;
    assert_eq!(rows, vec![vec![Value::Int(1)]]);
    let tx = server.metrics.snapshot().transactions;
    assert_eq!(tx.active, 0);
    assert_eq!(tx.abandoned_total, 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_leaving_mid_query_has_its_work_cancelled_and_abandoned() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server).await;
    client.send(&[run(LONG_QUERY), pull(-1, -1)]).await;
    assert!(
        eventually(|| !server.db.transactions().is_empty()).await,
        "the query started"
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(client);
    let took = engine_idle_within(&server, Duration::from_secs(5))
        .await
        .expect("the work was cancelled");
    println!("cancelled {took:?} after the client closed");
    // The promise: a client-side timeout plus retry never finds the first attempt still running.
    assert!(
        took < Duration::from_millis(100),
        "cancelled after {took:?}"
    );
    assert!(eventually(|| server.metrics.transactions.abandoned.get() == 1).await);
    assert_eq!(server.metrics.transactions.active.get(), 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_leaving_mid_transaction_rolls_it_back_as_abandoned() {
    let server = start(config(|_| {}), None).await;
    let mut client = client(&server).await;
    client
        .send(&[
            begin(TxExtra::default()),
            run("CREATE (:Orphan)"),
            pull(-1, -1),
        ])
        .await;
    client.expect_success().await;
    client.expect_success().await;
    client.records().await;
    drop(client);
    assert!(
        engine_idle_within(&server, Duration::from_secs(5))
            .await
            .is_some()
    );
    assert!(eventually(|| server.metrics.transactions.abandoned.get() == 1).await);
    let mut other = self::client(&server).await;
    let (_, rows, _) = other.query("MATCH (n:Orphan) RETURN count(n)").await;
    assert_eq!(rows, vec![vec![Value::Int(0)]]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_queries_send_keep_alives_at_the_advertised_pace() {
    let server = start(
        config(|layer| layer.bolt_recv_timeout_ms = Some(1000)),
        None,
    )
    .await;
    let mut client = BoltClient::connect(server.bolt, V58, true).await;
    let hello = client.login(Auth::none()).await.expect("logged in");
    let Some(Value::Map(hints)) = hello.get("hints") else {
        panic!("no hints in {hello:?}");
    };
    assert_eq!(
        hints.get("connection.recv_timeout_seconds"),
        Some(&Value::Int(1))
    );
    client.send(&[run(LONG_QUERY), pull(-1, -1)]).await;
    // Raw bytes: every reply of the batch waits for the query, keep-alives do not.
    let mut first = [0u8; 2];
    let started = Instant::now();
    client.stream.read_exact(&mut first).await.expect("bytes");
    assert_eq!(first, [0, 0], "a NOOP chunk comes first");
    assert!(started.elapsed() < Duration::from_millis(900));
    drop(client);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_queries_are_served_while_heavy_ones_run() {
    let server = start(config(|layer| layer.query_threads = Some(1)), None).await;
    let mut heavy = Vec::new();
    for _ in 0..2 {
        let mut c = client(&server).await;
        c.send(&[run(LONG_QUERY), pull(-1, -1)]).await;
        heavy.push(c);
    }
    let mut small = client(&server).await;
    // Warm the text up so that it runs inline.
    small.query("RETURN 2 AS two").await;
    let started = Instant::now();
    for _ in 0..20 {
        let (_, rows, _) = small.query("RETURN 2 AS two").await;
        assert_eq!(int(&rows[0][0]), 2);
    }
    let took = started.elapsed();
    println!("20 small queries took {took:?} beside two heavy ones");
    assert!(
        !server.db.transactions().is_empty(),
        "the heavy queries were still running"
    );
    drop(heavy);
    assert!(
        engine_idle_within(&server, Duration::from_secs(10))
            .await
            .is_some()
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draining_refuses_new_work_and_lets_open_transactions_commit() {
    let server = start(config(|layer| layer.drain_timeout_ms = Some(5000)), None).await;
    let mut in_tx = client(&server).await;
    in_tx.send(&[begin(TxExtra::default())]).await;
    in_tx.expect_success().await;
    let mut streaming = client(&server).await;
    streaming
        .send(&[run("UNWIND range(1, 10) AS i RETURN i"), pull(2, -1)])
        .await;
    streaming.expect_success().await;
    streaming.records().await;
    let mut idle = client(&server).await;

    server.trigger.shutdown();
    // An idle connection is closed; the others may finish what they started.
    idle.expect_closed().await;
    in_tx
        .send(&[run("CREATE (:Late)"), pull(-1, -1), Request::Commit])
        .await;
    in_tx.expect_success().await;
    in_tx.records().await;
    let committed = in_tx.expect_success().await;
    assert!(text(&committed, "bookmark").is_some());
    streaming.send(&[pull(-1, -1), run("RETURN 1")]).await;
    let (rows, _) = streaming.records().await;
    assert_eq!(rows.len(), 8);
    let (code, _) = streaming.expect_failure().await;
    assert_eq!(code, "Neo.TransientError.General.DatabaseUnavailable");
    assert!(matches!(
        streaming.recv().await,
        None | Some(Response::Ignored)
    ));
    let report = tokio::time::timeout(Duration::from_secs(10), server.task)
        .await
        .expect("stopped")
        .expect("task");
    assert_eq!(report.tasks_left, 0);
    assert!(!report.forced, "{report:?}");
    assert_eq!(server.metrics.transactions.active.get(), 0);
}
