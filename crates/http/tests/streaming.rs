//! Large results stream, slow and vanished clients are reclaimed, and none of it disturbs the
//! requests of others.

mod common;

use std::time::Duration;

use common::{Client, eventually, read_reply, server_config, start, start_default, statement};
use quiver_http::ApiConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn raw_post(path: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: quiver.test:7474\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_results_stream_in_chunks() {
    let server = start_default().await;
    let mut client = server.client();
    let rows = 200_000;
    let reply = client
        .post(
            "/db/neo4j/tx/commit",
            &statement(&format!("UNWIND range(1, {rows}) AS i RETURN i")),
        )
        .await;
    assert_eq!(reply.status, 200);
    assert!(
        reply.chunked,
        "a large result is streamed, not sized up front"
    );
    assert!(reply.header("content-length").is_none());
    let json = reply.json();
    let data = json["results"][0]["data"].as_array().expect("data");
    assert_eq!(data.len(), rows);
    assert_eq!(data[rows - 1]["row"], serde_json::json!([rows]));
    assert_eq!(json["errors"], serde_json::json!([]));

    let v2 = client
        .post(
            "/db/neo4j/query/v2",
            &serde_json::json!({"statement": format!("UNWIND range(1, {rows}) AS i RETURN i")})
                .to_string(),
        )
        .await;
    assert_eq!(v2.status, 202);
    assert!(v2.chunked);
    assert_eq!(
        v2.json()["data"]["values"].as_array().map(Vec::len),
        Some(rows)
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_leaving_mid_stream_abandons_its_transaction() {
    let server = start_default().await;
    let mut stream = TcpStream::connect(server.http).await.expect("connect");
    stream
        .write_all(
            raw_post(
                "/db/neo4j/tx/commit",
                &statement("UNWIND range(1, 10000000) AS i RETURN i"),
            )
            .as_bytes(),
        )
        .await
        .expect("write");
    let mut first = [0u8; 4096];
    let read = stream.read(&mut first).await.expect("read");
    assert!(read > 0);
    drop(stream);
    assert!(
        eventually(|| server.metrics.snapshot().transactions.abandoned_total == 1).await,
        "{:?}",
        server.metrics.snapshot().transactions
    );
    assert!(eventually(|| server.metrics.snapshot().transactions.active == 0).await);
    // Everyone else is served as usual.
    let reply = server
        .client()
        .post("/db/neo4j/tx/commit", &statement("RETURN 1 AS one"))
        .await;
    assert_eq!(
        reply.json()["results"][0]["data"][0]["row"],
        serde_json::json!([1])
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_holds_its_transaction_and_nothing_else() {
    let server = start_default().await;
    let mut client = server.client();
    let begun = client.post("/db/neo4j/tx", "").await;
    let path = begun
        .header("location")
        .expect("Location")
        .trim_start_matches("http://quiver.test:7474")
        .to_owned();

    // A request that never reads its (huge) response keeps the transaction checked out.
    let mut stalled = TcpStream::connect(server.http).await.expect("connect");
    stalled
        .write_all(
            raw_post(&path, &statement("UNWIND range(1, 10000000) AS i RETURN i")).as_bytes(),
        )
        .await
        .expect("write");
    tokio::time::sleep(Duration::from_millis(300)).await;

    let concurrent = client.post(&path, "").await;
    assert_eq!(concurrent.status, 404);
    assert_eq!(
        concurrent.error_codes(),
        ["Neo.ClientError.Transaction.TransactionAccessedConcurrently"]
    );
    let others = client
        .post("/db/neo4j/tx/commit", &statement("RETURN 2 AS two"))
        .await;
    assert_eq!(
        others.json()["results"][0]["data"][0]["row"],
        serde_json::json!([2])
    );

    // DELETE terminates it even while in use; the stalled request then ends.
    let deleted = client.delete(&path).await;
    assert_eq!(deleted.status, 200);
    drop(stalled);
    assert!(eventually(|| server.api.open_transactions() == 0).await);
    assert!(eventually(|| server.metrics.snapshot().transactions.active == 0).await);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_oversized_bodies_are_refused() {
    let config = server_config(|layer| {
        layer.http_body_read_timeout_ms = Some(300);
        layer.http_body_bytes_max = Some(4096);
    });
    let server = start(config, ApiConfig::default()).await;

    // Headers promise 200 bytes; the body dribbles and stalls.
    let mut slow = TcpStream::connect(server.http).await.expect("connect");
    slow.write_all(
        b"POST /db/neo4j/tx/commit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"statements\"",
    )
    .await
    .expect("write");
    let started = std::time::Instant::now();
    // Meanwhile a normal client is served.
    let mut client = server.client();
    let fine = client
        .post("/db/neo4j/tx/commit", &statement("RETURN 1"))
        .await;
    assert_eq!(fine.status, 200);
    let mut buffer = Vec::new();
    let reply = tokio::time::timeout(Duration::from_secs(5), read_reply(&mut slow, &mut buffer))
        .await
        .expect("answered before 5 s")
        .expect("a reply");
    assert_eq!(reply.status, 408);
    assert!(started.elapsed() >= Duration::from_millis(250));
    assert_eq!(reply.header("connection"), Some("close"));

    let mut big = Client::new(server.http);
    let body = statement(&format!("RETURN '{}'", "x".repeat(5000)));
    let refused = big.post("/db/neo4j/tx/commit", &body).await;
    assert_eq!(refused.status, 413);
    assert_eq!(refused.error_codes(), ["Neo.ClientError.Request.Invalid"]);

    let fine = client
        .post("/db/neo4j/tx/commit", &statement("RETURN 1"))
        .await;
    assert_eq!(fine.status, 200);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn header_dribblers_are_closed_while_the_api_serves() {
    let config = server_config(|layer| layer.http_header_read_timeout_ms = Some(300));
    let server = start(config, ApiConfig::default()).await;
    let mut dribbler = TcpStream::connect(server.http).await.expect("connect");
    dribbler
        .write_all(b"POST /db/neo4j/tx/commit HTTP/1.1\r\nHost: x\r\n")
        .await
        .expect("write");
    let mut client = server.client();
    for _ in 0..3 {
        let reply = client
            .post("/db/neo4j/tx/commit", &statement("RETURN 1"))
            .await;
        assert_eq!(reply.status, 200);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut sink = [0u8; 64];
    let closed = tokio::time::timeout(Duration::from_secs(3), dribbler.read(&mut sink))
        .await
        .expect("closed within 3 s");
    assert!(matches!(closed, Ok(0) | Err(_)));
    assert!(eventually(|| server.metrics.http.timed_out.get() >= 1).await);
    server.stop().await;
}
