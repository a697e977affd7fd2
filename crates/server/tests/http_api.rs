//! The API seam: authentication, body limits, pass-through, panics and the connection limit.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use common::{closed_within, config, eventually, get, read_reply, request, start};
use http::Response;
use http_body_util::Full;
use quiver_server::http_listener::ApiHandler;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// Echoes the body, and the peer address the server attached, as `x-peer`.
fn echo() -> ApiHandler {
    ApiHandler::from_fn(|request: http::Request<Bytes>| async move {
        let peer = request
            .extensions()
            .get::<SocketAddr>()
            .map(ToString::to_string)
            .unwrap_or_default();
        assert!(request.uri().path() != "/boom", "handler bug");
        let mut response = Response::new(Full::new(request.into_body()));
        response
            .headers_mut()
            .insert("x-peer", peer.parse().expect("header value"));
        response
    })
}

fn post(path: &str, body: &str, authorization: Option<&str>) -> String {
    let auth = authorization.map_or(String::new(), |value| format!("Authorization: {value}\r\n"));
    format!(
        "POST {path} HTTP/1.1\r\nHost: t\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn requests_reach_the_handler_with_body_and_peer() {
    let server = start(config(|_| {}), Some(echo())).await;
    let reply = request(
        server.http,
        &post("/db/neo4j/tx/commit", "{\"statements\":[]}", None),
    )
    .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.text(), "{\"statements\":[]}");
    assert!(
        reply
            .header("x-peer")
            .unwrap_or("")
            .starts_with("127.0.0.1:")
    );
    server.stop().await;
}

/// Requests with bodies on one keep-alive connection, each sent once the connection idles
/// without hyper's state, then two pipelined in one write (the second's body in the same
/// segment as the first's head).
#[tokio::test]
async fn keep_alive_requests_with_bodies_are_answered_after_the_connection_idles() {
    let server = start(config(|_| {}), Some(echo())).await;
    let metrics = &server.metrics;
    let mut stream = TcpStream::connect(server.http).await.expect("connect");
    for body in ["{\"n\":1}", "{\"n\":2}"] {
        assert!(
            eventually(
                || metrics.http.active.get() == 1 && metrics.http_connections_serving.get() == 0
            )
            .await,
            "the idle connection kept hyper's state"
        );
        stream
            .write_all(post("/db/neo4j/tx/commit", body, None).as_bytes())
            .await
            .expect("write");
        let reply = read_reply(&mut stream).await.expect("reply");
        assert_eq!((reply.status, reply.text().as_str()), (200, body));
    }
    let pipelined = [
        post("/db/neo4j/tx/commit", "{\"n\":3}", None),
        post("/db/neo4j/tx/commit", "{\"n\":4}", None),
    ]
    .concat();
    stream.write_all(pipelined.as_bytes()).await.expect("write");
    let replies = common::read_replies(&mut stream, 2).await;
    for (reply, body) in replies.iter().zip(["{\"n\":3}", "{\"n\":4}"]) {
        assert_eq!((reply.status, reply.text().as_str()), (200, body));
    }
    assert!(eventually(|| metrics.http_connections_serving.get() == 0).await);
    assert_eq!(metrics.http.accepted.get(), 1);
    drop(stream);
    assert_eq!(server.stop().await.tasks_left, 0);
}

#[tokio::test]
async fn basic_auth_is_required_when_enabled() {
    let server = start(
        config(|layer| layer.auth = Some("neo4j/secret-password".parse().expect("spec"))),
        Some(echo()),
    )
    .await;
    let missing = request(server.http, &post("/db/neo4j/tx/commit", "{}", None)).await;
    assert_eq!(missing.status, 401);
    assert_eq!(
        missing.header("www-authenticate"),
        Some("Basic realm=\"Neo4j\"")
    );
    assert_eq!(
        missing.json()["errors"][0]["code"],
        "Neo.ClientError.Security.Unauthorized"
    );
    // neo4j:wrong
    let wrong = request(
        server.http,
        &post("/db/neo4j/tx/commit", "{}", Some("Basic bmVvNGo6d3Jvbmc=")),
    )
    .await;
    assert_eq!(wrong.status, 401);
    // neo4j:secret-password
    let right = request(
        server.http,
        &post(
            "/db/neo4j/tx/commit",
            "{}",
            Some("Basic bmVvNGo6c2VjcmV0LXBhc3N3b3Jk"),
        ),
    )
    .await;
    assert_eq!(right.status, 200, "{}", right.text());
    // Discovery and operations endpoints need no credentials.
    assert_eq!(get(server.http, "/").await.status, 200);
    assert_eq!(get(server.http, "/health/live").await.status, 200);
    assert!(server.metrics.auth_failures.get() >= 2);
    server.stop().await;
}

#[tokio::test]
async fn oversized_bodies_get_413() {
    let server = start(
        config(|layer| layer.http_body_bytes_max = Some(1024)),
        Some(echo()),
    )
    .await;
    let big = "x".repeat(2048);
    // Declared too large: refused before reading.
    let reply = request(server.http, &post("/db/neo4j/tx/commit", &big, None)).await;
    assert_eq!(reply.status, 413);
    assert_eq!(reply.header("connection"), Some("close"));
    // Chunked, too large only once read.
    let mut stream = TcpStream::connect(server.http).await.expect("connect");
    let chunk = "y".repeat(700);
    let chunked = format!(
        "POST /db/neo4j/tx/commit HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2bc\r\n{chunk}\r\n2bc\r\n{chunk}\r\n0\r\n\r\n"
    );
    stream.write_all(chunked.as_bytes()).await.expect("write");
    assert_eq!(read_reply(&mut stream).await.expect("reply").status, 413);
    // A body within the limit still passes.
    let reply = request(
        server.http,
        &post("/db/neo4j/tx/commit", &"z".repeat(1000), None),
    )
    .await;
    assert_eq!(reply.status, 200);
    server.stop().await;
}

#[tokio::test]
async fn a_panicking_handler_closes_its_connection_alone() {
    let server = start(config(|_| {}), Some(echo())).await;
    let mut victim = TcpStream::connect(server.http).await.expect("connect");
    victim
        .write_all(post("/boom", "{}", None).as_bytes())
        .await
        .expect("write");
    assert!(
        closed_within(&mut victim, Duration::from_secs(5))
            .await
            .is_some()
    );
    assert!(eventually(|| server.metrics.http.panics.get() == 1).await);
    assert!(eventually(|| server.metrics.http.in_flight.get() == 0).await);
    assert!(eventually(|| server.metrics.http.active.get() == 0).await);
    let reply = request(server.http, &post("/db/neo4j/tx/commit", "ok", None)).await;
    assert_eq!(reply.status, 200);
    assert_eq!(server.stop().await.tasks_left, 0);
}

#[tokio::test]
async fn past_the_connection_limit_clients_get_a_readable_503() {
    let server = start(config(|layer| layer.http_max_connections = Some(2)), None).await;
    let first = TcpStream::connect(server.http).await.expect("connect");
    let second = TcpStream::connect(server.http).await.expect("connect");
    assert!(eventually(|| server.metrics.http.active.get() == 2).await);
    let refused = get(server.http, "/health/live").await;
    assert_eq!(refused.status, 503);
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert_eq!(
        refused.json()["errors"][0]["code"],
        "Neo.TransientError.General.ServiceUnavailable"
    );
    assert!(refused.text().contains("limit of 2"));
    assert_eq!(server.metrics.http.rejected.get(), 1);
    drop(first);
    drop(second);
    assert!(eventually(|| server.metrics.http.active.get() == 0).await);
    assert_eq!(get(server.http, "/health/live").await.status, 200);
    server.stop().await;
}

#[tokio::test]
async fn past_the_refusal_budget_connections_are_just_closed() {
    let server = start(
        config(|layer| {
            layer.http_max_connections = Some(1);
            layer.refusals_in_flight_max = Some(0);
        }),
        None,
    )
    .await;
    let _holder = TcpStream::connect(server.http).await.expect("connect");
    assert!(eventually(|| server.metrics.http.active.get() == 1).await);
    let mut dropped = TcpStream::connect(server.http).await.expect("connect");
    assert!(
        closed_within(&mut dropped, Duration::from_secs(2))
            .await
            .is_some()
    );
    assert!(eventually(|| server.metrics.http.refusals_dropped.get() == 1).await);
    server.stop().await;
}
