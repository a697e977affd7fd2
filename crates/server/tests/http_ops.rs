//! The HTTP listener's operations endpoints, over real sockets.

mod common;

use std::time::Duration;

use common::{config, eventually, get, start};
use quiver_server::health::Readiness;

#[tokio::test]
async fn health_metrics_and_stats_answer() {
    let server = start(config(|_| {}), None).await;

    let live = get(server.http, "/health/live").await;
    assert_eq!(live.status, 200);
    assert_eq!(live.json()["status"], "live");

    let ready = get(server.http, "/health/ready").await;
    assert_eq!(ready.status, 200, "{}", ready.text());

    let metrics = get(server.http, "/metrics").await;
    assert_eq!(metrics.status, 200);
    assert!(
        metrics
            .header("content-type")
            .unwrap_or("")
            .contains("openmetrics")
    );
    let text = metrics.text();
    for name in [
        "quiver_bolt_connections_accepted_total",
        "quiver_http_connections_accepted_total",
        "quiver_transactions_abandoned_total",
        "quiver_query_latency_seconds_bucket",
    ] {
        assert!(text.contains(name), "missing {name}");
    }

    let stats = get(server.http, "/stats").await;
    assert_eq!(stats.status, 200);
    let stats = stats.json();
    // This request's own connection is active and its request in flight while /stats is built.
    assert!(
        stats["http"]["accepted_total"].as_u64() >= Some(4),
        "{stats}"
    );
    assert!(stats["http"]["active"].as_i64() >= Some(1), "{stats}");
    assert!(stats["http"]["in_flight"].as_i64() >= Some(1), "{stats}");
    assert_eq!(stats["bolt"]["active"], 0);
    // The durability mode the server runs with (the console's server panel shows it).
    assert_eq!(stats["durability"], "buffered", "{stats}");

    let report = server.stop().await;
    assert_eq!(report.tasks_left, 0);
}

#[tokio::test]
async fn readiness_follows_the_life_cycle() {
    let server = start(config(|_| {}), None).await;
    server.health.set(Readiness::Recovering);
    let ready = get(server.http, "/health/ready").await;
    assert_eq!(ready.status, 503);
    assert_eq!(ready.json()["status"], "recovering");
    server.health.set(Readiness::Ready);
    assert_eq!(get(server.http, "/health/ready").await.status, 200);
    server.stop().await;
}

#[tokio::test]
async fn wrong_method_and_unknown_paths_get_json_errors() {
    let server = start(config(|_| {}), None).await;
    let reply = common::request(
        server.http,
        "POST /metrics HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n",
    )
    .await;
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("GET, HEAD"));
    let reply = get(server.http, "/db/neo4j/tx/commit").await;
    assert_eq!(reply.status, 404);
    assert_eq!(
        reply.json()["errors"][0]["code"],
        "Neo.ClientError.Request.Invalid"
    );
    server.stop().await;
}

/// Between requests, and before the first, a keep-alive connection waits on its bare socket,
/// without hyper's state; the requests that follow are served all the same, one at a time or
/// pipelined.
#[tokio::test]
async fn keep_alive_serves_several_requests_on_one_connection() {
    use tokio::io::AsyncWriteExt;
    let server = start(config(|_| {}), None).await;
    let metrics = &server.metrics;
    let mut stream = tokio::net::TcpStream::connect(server.http)
        .await
        .expect("connect");
    assert!(eventually(|| metrics.http.active.get() == 1).await);
    assert_eq!(metrics.http_connections_serving.get(), 0);
    let probe: &[u8] = b"GET /health/live HTTP/1.1\r\nHost: t\r\n\r\n";
    for _ in 0..3 {
        stream.write_all(probe).await.expect("write");
        let reply = common::read_reply(&mut stream).await.expect("reply");
        assert_eq!(reply.status, 200);
        assert!(
            eventually(|| metrics.http_connections_serving.get() == 0).await,
            "the idle connection kept hyper's state"
        );
    }
    // Three requests in one write: all answered, in order, and the connection idles again.
    let pipelined = [
        probe,
        b"GET /health/ready HTTP/1.1\r\nHost: t\r\n\r\n",
        probe,
    ]
    .concat();
    stream.write_all(&pipelined).await.expect("write");
    let replies = common::read_replies(&mut stream, 3).await;
    let statuses: Vec<_> = replies
        .iter()
        .map(|reply| (reply.status, reply.json()["status"].clone()))
        .collect();
    assert_eq!(
        statuses,
        [
            (200, "live".into()),
            (200, "ready".into()),
            (200, "live".into())
        ]
    );
    assert!(eventually(|| metrics.http_connections_serving.get() == 0).await);
    assert_eq!(metrics.http.accepted.get(), 1);
    assert_eq!(metrics.http.active.get(), 1);
    tokio::time::sleep(Duration::from_millis(10)).await;
    server.stop().await;
}

#[tokio::test]
async fn metrics_and_stats_can_require_credentials() {
    let server = start(
        config(|layer| {
            layer.auth = Some("neo4j/secret-password".parse().expect("spec"));
            layer.metrics_auth = Some(true);
        }),
        None,
    )
    .await;
    for path in ["/metrics", "/stats"] {
        let refused = get(server.http, path).await;
        assert_eq!(refused.status, 401, "{path}");
        // neo4j:secret-password
        let with = common::request(
            server.http,
            &format!(
                "GET {path} HTTP/1.1\r\nhost: x\r\nauthorization: Basic bmVvNGo6c2VjcmV0LXBhc3N3b3Jk\r\n\r\n"
            ),
        )
        .await;
        assert_eq!(with.status, 200, "{path}: {}", with.text());
    }
    // Health stays open to probes.
    assert_eq!(get(server.http, "/health/live").await.status, 200);
    server.stop().await;
}
