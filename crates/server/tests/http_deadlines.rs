//! Slowloris header dribblers, silent connections, idle keep-alives and slow bodies are reclaimed at
//! their deadlines while normal requests keep succeeding.

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::{Running, closed_within, config, connect_sending, eventually, get, read_reply, start};
use http::Response;
use http_body_util::Full;
use quiver_server::http_listener::ApiHandler;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

fn echo() -> ApiHandler {
    ApiHandler::from_fn(|request: http::Request<Bytes>| async move {
        Response::new(Full::new(request.into_body()))
    })
}

/// A server whose request heads must arrive within `header_ms`, and whose idle keep-alive
/// connections wait `keep_alive_ms`.
async fn start_with_deadlines(header_ms: u64, keep_alive_ms: u64) -> Running {
    let config = config(|layer| {
        layer.http_header_read_timeout_ms = Some(header_ms);
        layer.http_keep_alive_timeout_ms = Some(keep_alive_ms);
    });
    start(config, None).await
}

/// Waits up to 3 s for the server to close `stream`: how long that took.
async fn closed_by_the_server(stream: &mut TcpStream) -> Duration {
    closed_within(stream, Duration::from_secs(3))
        .await
        .expect("closed by the server")
}

#[tokio::test]
async fn header_dribbler_is_closed_at_the_header_deadline() {
    let server = start_with_deadlines(300, 5_000).await;
    let mut dribbler = TcpStream::connect(server.http).await.expect("connect");
    let dribble = tokio::spawn(async move {
        let mut written = 0;
        for byte in b"GET /health/live HTTP/1.1\r\nHost: slow\r\nX-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" {
            if dribbler.write_all(&[*byte]).await.is_err() {
                break;
            }
            written += 1;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        (dribbler, written)
    });
    // Normal requests keep succeeding meanwhile.
    for _ in 0..5 {
        assert_eq!(get(server.http, "/health/live").await.status, 200);
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    let (mut dribbler, written) = dribble.await.expect("dribble task");
    assert!(
        written < 40,
        "server let a dribbler send {written} bytes over {} ms",
        written * 50
    );
    assert!(
        closed_within(&mut dribbler, Duration::from_secs(2))
            .await
            .is_some()
    );
    assert!(eventually(|| server.metrics.http.timed_out.get() == 1).await);
    assert_eq!(server.stop().await.tasks_left, 0);
}

#[tokio::test]
async fn silent_connection_is_closed_at_the_header_deadline() {
    let server = start(
        config(|layer| layer.http_header_read_timeout_ms = Some(200)),
        None,
    )
    .await;
    let mut silent = TcpStream::connect(server.http).await.expect("connect");
    let waited = closed_by_the_server(&mut silent).await;
    assert!(
        waited >= Duration::from_millis(150),
        "closed after {waited:?}"
    );
    assert!(eventually(|| server.metrics.http.timed_out.get() == 1).await);
    assert!(eventually(|| server.metrics.http.active.get() == 0).await);
    server.stop().await;
}

#[tokio::test]
async fn idle_keep_alive_uses_its_own_longer_deadline() {
    let server = start_with_deadlines(200, 900).await;
    let mut stream = TcpStream::connect(server.http).await.expect("connect");
    let request = b"GET /health/live HTTP/1.1\r\nHost: t\r\n\r\n";
    stream.write_all(request).await.expect("write");
    assert_eq!(read_reply(&mut stream).await.expect("reply").status, 200);
    // Idle for longer than the header deadline, shorter than keep-alive: still open.
    tokio::time::sleep(Duration::from_millis(450)).await;
    stream.write_all(request).await.expect("write");
    assert_eq!(
        read_reply(&mut stream).await.expect("second reply").status,
        200
    );
    // Then idle past keep-alive: closed.
    // Closed at the keep-alive deadline.
    let waited = closed_by_the_server(&mut stream).await;
    assert!(
        waited >= Duration::from_millis(700),
        "closed after {waited:?}"
    );
    assert!(eventually(|| server.metrics.http.timed_out.get() == 1).await);
    server.stop().await;
}

#[tokio::test]
async fn slow_body_gets_408_and_the_connection_closes() {
    let server = start(
        config(|layer| layer.http_body_read_timeout_ms = Some(300)),
        Some(echo()),
    )
    .await;
    let mut stream = connect_sending(
        server.http,
        b"POST /db/neo4j/tx/commit HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n0123456789",
    )
    .await;
    let reply = read_reply(&mut stream).await.expect("408");
    assert_eq!(reply.status, 408);
    assert_eq!(reply.header("connection"), Some("close"));
    assert!(
        closed_within(&mut stream, Duration::from_secs(2))
            .await
            .is_some()
    );
    assert!(eventually(|| server.metrics.http.timed_out.get() == 1).await);
    // And the server keeps serving.
    assert_eq!(get(server.http, "/health/live").await.status, 200);
    server.stop().await;
}

#[tokio::test]
async fn a_client_that_stops_reading_is_cut_at_the_write_stall_deadline() {
    // A large streamed response to a client that never reads: the socket buffers fill, writes stall.
    let big = ApiHandler::from_fn(|_request: http::Request<Bytes>| async move {
        Response::new(Full::new(Bytes::from(vec![b'x'; 64 << 20])))
    });
    let server = start(
        config(|layer| layer.http_body_read_timeout_ms = Some(1000)),
        Some(big),
    )
    .await;
    let stream =
        connect_sending(server.http, b"GET /db/data/big HTTP/1.1\r\nHost: t\r\n\r\n").await;
    assert!(eventually(|| server.metrics.http.timed_out.get() == 1).await);
    assert!(eventually(|| server.metrics.http.active.get() == 0).await);
    assert!(eventually(|| server.metrics.http.in_flight.get() == 0).await);
    drop(stream);
    server.stop().await;
}

/// A request pipelined behind another whose head is cut where the connection goes idle: hyper
/// has read its start when the socket is taken back from it, and those bytes must reach the
/// next hyper connection, not be lost with a closed connection.
#[tokio::test]
async fn a_pipelined_head_split_at_the_handover_is_answered() {
    let server = start(config(|_| {}), None).await;
    let mut client = TcpStream::connect(server.http).await.expect("connect");
    let request = b"GET /health/live HTTP/1.1\r\nHost: pipelined\r\n\r\n";
    let (start_of_second, rest_of_second) = request.split_at(20);
    let mut first_write = request.to_vec();
    first_write.extend_from_slice(start_of_second);
    client.write_all(&first_write).await.expect("write");
    let first = read_reply(&mut client).await.expect("first answered");
    assert_eq!(first.status, 200);
    // The connection is idle now and its socket back with the listener, holding the start of
    // the second request.
    tokio::time::sleep(Duration::from_millis(200)).await;
    client.write_all(rest_of_second).await.expect("write");
    let second = read_reply(&mut client)
        .await
        .expect("second answered, not closed");
    assert_eq!(second.status, 200);
    // And the connection goes on.
    client.write_all(request).await.expect("write");
    assert_eq!(read_reply(&mut client).await.expect("third").status, 200);
    assert_eq!(server.metrics.http.timed_out.get(), 0);
    drop(client);
    assert_eq!(server.stop().await.tasks_left, 0);
}

/// The start of a head held across the handover is still held to the header deadline.
#[tokio::test]
async fn a_held_head_that_never_ends_is_closed_at_the_header_deadline() {
    let server = start_with_deadlines(300, 5_000).await;
    let mut bytes = b"GET /health/live HTTP/1.1\r\nHost: pipelined\r\n\r\n".to_vec();
    bytes.extend_from_slice(b"GET /health/live HTTP/1.1\r\nHo");
    let mut client = connect_sending(server.http, &bytes).await;
    assert_eq!(read_reply(&mut client).await.expect("answered").status, 200);
    let waited = closed_by_the_server(&mut client).await;
    assert!(
        waited < Duration::from_secs(2),
        "closed after {waited:?}, not at the header deadline"
    );
    assert!(eventually(|| server.metrics.http.timed_out.get() == 1).await);
    assert_eq!(server.stop().await.tasks_left, 0);
}
