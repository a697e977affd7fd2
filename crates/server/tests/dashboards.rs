//! The Grafana dashboard (`deploy/grafana/quiver.json`) and the Prometheus alerting rules
//! (`deploy/prometheus/alerts.yml`) query only metrics a running server exports: every
//! `quiver_*` name in their expressions is a sample name of `/metrics`, on a single server and
//! on a cluster member.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use common::{config, get, start, start_with};
use quiver_node::{HttpService, NodeBuilder};
use serde_json::Value as Json;

fn deploy(file: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../deploy")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The `quiver_*` names in `expression`.
fn metric_names(expression: &str) -> BTreeSet<String> {
    let bytes = expression.as_bytes();
    let mut names = BTreeSet::new();
    let mut i = 0;
    while let Some(found) = expression[i..].find("quiver_") {
        let start = i + found;
        let starts_a_word =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        let end = bytes[start..]
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
            .map_or(bytes.len(), |p| start + p);
        if starts_a_word {
            names.insert(expression[start..end].to_owned());
        }
        i = end;
    }
    names
}

/// Every `expr` and templating `query` string in the dashboard.
fn dashboard_expressions(value: &Json, out: &mut Vec<String>) {
    match value {
        Json::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("expr" | "query", Json::String(text)) => out.push(text.clone()),
                    _ => dashboard_expressions(value, out),
                }
            }
        }
        Json::Array(items) => items
            .iter()
            .for_each(|item| dashboard_expressions(item, out)),
        _ => {}
    }
}

/// The alerting rules' `expr:` lines.
fn alert_expressions(yaml: &str) -> Vec<String> {
    yaml.lines()
        .filter_map(|line| line.trim_start().strip_prefix("expr:"))
        .map(|expr| expr.trim().to_owned())
        .collect()
}

/// The sample names of an OpenMetrics text.
fn exported(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split(['{', ' ']).next())
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn names_are_found_whole_in_expressions() {
    let names = metric_names(
        "histogram_quantile(0.99, rate(quiver_query_latency_seconds_bucket{a=\"b\"}[5m])) / my_quiver_x",
    );
    assert_eq!(
        names,
        BTreeSet::from(["quiver_query_latency_seconds_bucket".to_owned()])
    );
}

#[tokio::test]
async fn every_metric_the_dashboard_and_the_alerts_query_is_exported() {
    let server = start(config(|_| {}), None).await;
    let metrics = get(server.http, "/metrics").await;
    assert_eq!(metrics.status, 200);
    let queried = every_queried_metric_is_exported(&metrics.text());
    // The Raft log's figures are charted (a single server exports them at zero).
    assert!(
        queried.contains("quiver_raft_log_fsyncs_total"),
        "{queried:?}"
    );
    server.stop().await;
}

/// Checks that `text` (a `/metrics` answer) has every metric the dashboard and the alerting
/// rules query; returns their names.
fn every_queried_metric_is_exported(text: &str) -> BTreeSet<String> {
    let exported = exported(text);
    // The memory alert divides by the pool's limit, which the node sets.
    let limit = text
        .lines()
        .find_map(|line| line.strip_prefix("quiver_query_memory_pool_max_bytes "))
        .and_then(|value| value.trim().parse::<i64>().ok());
    assert!(limit.is_some_and(|limit| limit > 0), "{limit:?}");

    let dashboard: Json = serde_json::from_str(&deploy("grafana/quiver.json")).expect("JSON");
    let mut expressions = Vec::new();
    dashboard_expressions(&dashboard, &mut expressions);
    let alerts = alert_expressions(&deploy("prometheus/alerts.yml"));
    assert!(alerts.len() >= 5, "{alerts:?}");
    expressions.extend(alerts);

    let queried: BTreeSet<String> = expressions.iter().flat_map(|e| metric_names(e)).collect();
    // The dashboard covers connections, queries, transactions, memory and the cluster.
    assert!(queried.len() >= 20, "{queried:?}");
    let missing: Vec<&String> = queried.difference(&exported).collect();
    assert!(
        missing.is_empty(),
        "queried but not exported: {missing:?}\nexported: {exported:?}"
    );
    queried
}

/// A sample's value in the text `/metrics` serves.
fn sample(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("no sample {name} in\n{text}"))
}

#[tokio::test]
async fn a_server_on_a_data_directory_exports_its_commit_log_and_free_space() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = quiver_engine::Database::open_with(
        dir.path(),
        quiver_durability::Mode::Sync,
        quiver_durability::Options::default(),
        quiver_engine::EngineConfig::default(),
    )
    .expect("open a data directory");
    let server = start_with(
        config(|_| {}),
        None,
        std::sync::Arc::new(quiver_server::Graph::new(db)),
    )
    .await;
    let before = get(server.http, "/metrics").await.text();
    server
        .db
        .execute("CREATE (:Written {n: 1})", quiver_value::Map::new())
        .expect("a write");
    let after = get(server.http, "/metrics").await.text();
    // A commit in sync mode is on disk when it is acknowledged: one fsync at least, counted.
    assert!(
        sample(&after, "quiver_commit_log_fsyncs_total")
            > sample(&before, "quiver_commit_log_fsyncs_total")
    );
    assert!(sample(&after, "quiver_commit_log_durable_commit") >= 1.0);
    assert!(sample(&after, "quiver_commit_log_written_bytes_total") > 0.0);
    let available = sample(&after, "quiver_data_dir_available_bytes");
    let size = sample(&after, "quiver_data_dir_size_bytes");
    assert!(
        available > 0.0 && available <= size,
        "{available} of {size}"
    );
    server.stop().await;

    // A server in memory has no log and no directory: every figure is zero.
    let memory = start(config(|_| {}), None).await;
    let text = get(memory.http, "/metrics").await.text();
    assert_eq!(sample(&text, "quiver_data_dir_size_bytes"), 0.0);
    assert_eq!(sample(&text, "quiver_commit_log_fsyncs_total"), 0.0);
    memory.stop().await;
}

/// A cluster member of one, on loopback ports taken by binding port 0 and letting go (a member
/// advertises its Bolt and HTTP ports before binding them, so they cannot be 0), writes once:
/// its Raft log's fsyncs, bytes and entries rose on `/metrics`, and it exports every metric
/// the dashboard and the alerts query.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_member_exports_its_raft_log() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ports: Vec<std::net::SocketAddr> = (0..3)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .map(|l| l.local_addr().expect("its address"))
        .collect();
    let config = config(|layer| {
        layer.in_memory = Some(false);
        layer.data_dir = Some(dir.path().to_path_buf());
        layer.bolt_listen = Some(ports[0]);
        layer.http_listen = Some(ports[1]);
        layer.node_id = Some(1);
        layer.raft_listen = Some(ports[2]);
        layer.initial_members = Some(format!("1={}", ports[2]).parse().expect("members"));
    });
    let node = NodeBuilder::new(config)
        .http_service(HttpService::OperationsOnly)
        .build()
        .await
        .expect("a cluster member");
    let http = node.http_addr();
    let db = std::sync::Arc::clone(node.database());
    let trigger = node.trigger();
    let running = tokio::spawn(node.run());

    // Alone, it elects itself; it takes writes once its first entry of the term is applied.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while db.write_refusal().is_some() {
        assert!(std::time::Instant::now() < deadline, "the member never led");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let before = get(http, "/metrics").await.text();
    tokio::task::spawn_blocking(move || {
        db.execute("CREATE (:Written {n: 1})", quiver_value::Map::new())
            .expect("a write on the leader")
    })
    .await
    .expect("the write's task");
    let after = get(http, "/metrics").await.text();
    // Acknowledged once its entry is synced in the Raft log: one fsync more at least, counted
    // before the log reports the entry flushed.
    for name in [
        "quiver_raft_log_fsyncs_total{file=\"segment\"}",
        "quiver_raft_log_entries_appended_total",
        "quiver_raft_log_written_bytes_total",
    ] {
        assert!(sample(&after, name) > sample(&before, name), "{name}");
    }
    // Writes were taken once the member had applied its first entry of the term.
    assert!(sample(&after, "quiver_cluster_applied_index") >= 1.0);
    every_queried_metric_is_exported(&after);

    trigger.shutdown();
    tokio::time::timeout(std::time::Duration::from_secs(30), running)
        .await
        .expect("the member stops within 30 s")
        .expect("the member's task");
}
