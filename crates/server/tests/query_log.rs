//! The query log over real sockets: what Bolt and HTTP queries write, the threshold, and
//! `dbms.setConfigValue` changing it while the server runs.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::bolt::{BoltClient, code, pull, run, run_in};
use common::{config, request};
use quiver_bolt::message::{Auth, TxExtra};
use quiver_bolt::{Response, Version};
use quiver_node::{Node, NodeBuilder};
use quiver_server::ShutdownTrigger;
use quiver_server::config::Layer;
use quiver_server::query_log::QueryLog;
use quiver_server::shutdown::ShutdownReport;
use quiver_value::{Map, Value};
use serde_json::Value as Json;
use tokio::task::JoinHandle;

struct Served {
    bolt: std::net::SocketAddr,
    http: std::net::SocketAddr,
    log: Arc<QueryLog>,
    trigger: ShutdownTrigger,
    task: JoinHandle<ShutdownReport>,
}

/// A node with the Neo4j HTTP API and a query log in `dir`, set by `tweak`.
async fn serve(dir: &Path, tweak: impl FnOnce(&mut Layer)) -> Served {
    let path = dir.join("query.log");
    let node: Node = NodeBuilder::new(config(|layer| {
        layer.query_log = Some(path);
        tweak(layer);
    }))
    .build()
    .await
    .expect("node");
    let log = Arc::clone(node.query_log().expect("a query log"));
    let (bolt, http) = (node.bolt_addr(), node.http_addr());
    let trigger = node.trigger();
    let run = node.run();
    let task = tokio::spawn(async move { run.await.report });
    Served {
        bolt,
        http,
        log,
        trigger,
        task,
    }
}

impl Served {
    /// The log's lines once everything reported so far is written.
    fn lines(&self) -> Vec<Json> {
        self.log.sync();
        std::fs::read_to_string(self.log.path())
            .expect("read the log")
            .lines()
            .map(|line| serde_json::from_str(line).expect("a JSON line"))
            .collect()
    }

    async fn bolt(&self) -> BoltClient {
        let mut client = BoltClient::connect(self.bolt, &[Version::V5_4], false).await;
        client.login(Auth::none()).await.expect("login");
        client
    }

    async fn stop(self) {
        self.trigger.shutdown();
        tokio::time::timeout(std::time::Duration::from_secs(30), self.task)
            .await
            .expect("the server stops within 30 s")
            .expect("the server task");
    }
}

/// Replies until the first FAILURE, returned.
async fn failure(client: &mut BoltClient) -> Map {
    loop {
        match client.recv().await {
            Some(Response::Failure(meta)) => return meta,
            Some(_) => {}
            None => panic!("the connection closed before a FAILURE"),
        }
    }
}

#[tokio::test]
async fn a_bolt_query_is_logged_once_with_its_rows_user_transaction_and_hidden_secrets() {
    let dir = tempfile::tempdir().expect("dir");
    let served = serve(dir.path(), |layer| layer.query_log_parameters = Some(true)).await;
    let mut client = served.bolt().await;
    let mut params = Map::new();
    params.insert(Arc::from("password"), Value::from("hunter2"));
    params.insert(Arc::from("n"), Value::from(5));
    let mut metadata = Map::new();
    metadata.insert(Arc::from("app"), Value::from("billing"));
    let extra = TxExtra {
        tx_metadata: Some(metadata),
        ..TxExtra::default()
    };
    client
        .send(&[
            run_in("UNWIND range(1, $n) AS x RETURN x", params, extra),
            pull(-1, -1),
        ])
        .await;
    client.expect_success().await;
    let (rows, _) = client.records().await;
    assert_eq!(rows.len(), 5);

    let lines = served.lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = &lines[0];
    assert_eq!(line["event"], "success");
    assert_eq!(line["query"], "UNWIND range(1, $n) AS x RETURN x");
    assert_eq!(line["rows"], 5);
    assert_eq!(line["database"], "neo4j");
    assert_eq!(line["queryParameters"]["n"], 5);
    assert_eq!(line["queryParameters"]["password"], "******");
    assert_eq!(line["annotationData"]["app"], "billing");
    let source = line["source"].as_str().unwrap_or_default();
    assert!(
        source.starts_with("bolt-session\tbolt\tclient/127.0.0.1:"),
        "{source}"
    );
    let transaction = line["transactionId"].as_str().unwrap_or_default();
    assert!(
        transaction.starts_with("neo4j-transaction-"),
        "{transaction}"
    );
    assert!(line["elapsedTimeMs"].is_u64());
    assert!(line["planning"].is_u64());
    // Its parameters, at least, were counted in its memory.
    assert!(line["allocatedBytes"].as_u64() > Some(0), "{line}");
    assert!(
        line.get("cpu").is_none(),
        "CPU time is measured only when asked for"
    );
    assert!(
        !std::fs::read_to_string(served.log.path())
            .unwrap_or_default()
            .contains("hunter2")
    );
    served.stop().await;
}

#[tokio::test]
async fn a_failed_bolt_query_is_logged_with_its_reason() {
    let dir = tempfile::tempdir().expect("dir");
    let served = serve(dir.path(), |_| {}).await;
    let mut client = served.bolt().await;
    client.send(&[run("RETURN 1/0"), pull(-1, -1)]).await;
    // The division fails when the record is computed: at RUN or at PULL.
    failure(&mut client).await;
    let lines = served.lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["event"], "fail");
    assert_eq!(lines[0]["query"], "RETURN 1/0");
    let reason = lines[0]["failureReason"].as_str().unwrap_or_default();
    assert!(reason.starts_with("Neo.ClientError."), "{reason}");
    served.stop().await;
}

#[tokio::test]
async fn an_http_statement_is_logged_like_a_bolt_query() {
    let dir = tempfile::tempdir().expect("dir");
    let served = serve(dir.path(), |_| {}).await;
    let body = r#"{"statements":[{"statement":"UNWIND range(1, 3) AS x RETURN x"}]}"#;
    let reply = request(
        served.http,
        &format!(
            "POST /db/neo4j/tx/commit HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let lines = served.lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = &lines[0];
    assert_eq!(line["query"], "UNWIND range(1, 3) AS x RETURN x");
    assert_eq!(line["rows"], 3);
    let source = line["source"].as_str().unwrap_or_default();
    assert!(
        source.starts_with("server-session\thttp\tclient/127.0.0.1:"),
        "{source}"
    );
    assert!(line.get("queryParameters").is_none());
    assert!(line["planning"].is_u64() && line["allocatedBytes"].is_u64());
    served.stop().await;
}

#[tokio::test]
async fn a_querys_cpu_time_is_logged_when_it_is_tracked() {
    let dir = tempfile::tempdir().expect("dir");
    let served = serve(dir.path(), |layer| layer.track_query_cpu_time = Some(true)).await;
    let mut client = served.bolt().await;
    client
        .send(&[
            run("UNWIND range(1, 3000000) AS x WITH x WHERE x % 7 = 0 RETURN count(*)"),
            pull(-1, -1),
        ])
        .await;
    client.expect_success().await;
    let _ = client.records().await;
    let lines = served.lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let (cpu, elapsed) = (lines[0]["cpu"].as_u64(), lines[0]["elapsedTimeMs"].as_u64());
    // Three million rows take well over a millisecond of CPU, and one thread's CPU time
    // cannot pass the time that went by.
    assert!(cpu >= Some(1), "{}", lines[0]);
    assert!(cpu <= elapsed.map(|ms| ms + 1), "{}", lines[0]);
    served.stop().await;
}

#[tokio::test]
async fn a_query_api_statement_is_logged_with_its_failure() {
    let dir = tempfile::tempdir().expect("dir");
    let served = serve(dir.path(), |_| {}).await;
    let post = |body: &str| {
        format!(
            "POST /db/neo4j/query/v2 HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let reply = request(
        served.http,
        &post(r#"{"statement":"UNWIND [1, 2] AS x RETURN x"}"#),
    )
    .await;
    assert!(reply.status < 300, "{}", reply.text());
    let reply = request(served.http, &post(r#"{"statement":"RETURN 1 +"}"#)).await;
    assert!(reply.status >= 400, "{}", reply.text());
    let lines = served.lines();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["query"], "UNWIND [1, 2] AS x RETURN x");
    assert_eq!(lines[0]["rows"], 2);
    assert_eq!(lines[0]["event"], "success");
    assert_eq!(lines[1]["event"], "fail");
    let reason = lines[1]["failureReason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("Neo.ClientError.Statement.SyntaxError"),
        "{reason}"
    );
    served.stop().await;
}

#[tokio::test]
async fn past_a_threshold_only_the_query_that_worked_that_long_is_logged() {
    let dir = tempfile::tempdir().expect("dir");
    let served = serve(dir.path(), |layer| layer.query_log_threshold_ms = Some(50)).await;
    let mut client = served.bolt().await;
    let slow = "UNWIND range(1, 3000000) AS x WITH x WHERE x % 3 = 0 RETURN count(x) AS c";
    let (_, rows, _) = client.query(slow).await;
    assert_eq!(rows.len(), 1);
    let (_, _, _) = client.query("RETURN 1").await;
    let lines = served.lines();
    let slow_lines: Vec<&Json> = lines.iter().filter(|l| l["query"] == slow).collect();
    assert_eq!(slow_lines.len(), 1, "{lines:?}");
    assert_eq!(slow_lines[0]["rows"], 1);
    // Whatever else was logged (a fast query the machine slowed) ran at least the threshold.
    for line in &lines {
        assert!(line["elapsedTimeMs"].as_u64().unwrap_or(0) >= 50, "{line}");
    }
    served.stop().await;
}

#[tokio::test]
async fn set_config_value_switches_the_log_and_refuses_bad_values() {
    let dir = tempfile::tempdir().expect("dir");
    let served = serve(dir.path(), |_| {}).await;
    let mut client = served.bolt().await;
    client
        .query("CALL dbms.setConfigValue('db.logs.query.enabled', 'OFF')")
        .await;
    client.query("RETURN 'unlogged'").await;
    client
        .query("CALL dbms.setConfigValue('db.logs.query.enabled', 'INFO')")
        .await;
    client.query("RETURN 'logged'").await;
    client
        .query("CALL dbms.setConfigValue('db.logs.query.threshold', '250ms')")
        .await;
    let (_, rows, _) = client
        .query("CALL dbms.listConfig('db.logs.query.threshold') YIELD value RETURN value")
        .await;
    assert_eq!(rows, vec![vec![Value::from("250ms")]]);

    client
        .send(&[
            run("CALL dbms.setConfigValue('db.logs.query.threshold', 'soon')"),
            pull(-1, -1),
        ])
        .await;
    let refused = failure(&mut client).await;
    assert_eq!(
        code(&refused).as_deref(),
        Some("Neo.ClientError.Statement.ArgumentError")
    );

    let texts: Vec<Json> = served
        .lines()
        .into_iter()
        .map(|line| line["query"].clone())
        .collect();
    assert!(
        !texts.contains(&Json::from("RETURN 'unlogged'")),
        "{texts:?}"
    );
    assert!(texts.contains(&Json::from("RETURN 'logged'")), "{texts:?}");
    served.stop().await;
}
