//! Graceful shutdown: stop accepting, readiness false, in-flight work finishes within the drain
//! deadline, and no connection task is left behind.

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::{closed_within, config, eventually, read_reply, start};
use http::Response;
use http_body_util::Full;
use quiver_server::health::Readiness;
use quiver_server::http_listener::ApiHandler;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// Answers after `delay`.
fn slow(delay: Duration) -> ApiHandler {
    ApiHandler::from_fn(move |_request: http::Request<Bytes>| async move {
        tokio::time::sleep(delay).await;
        Response::new(Full::new(Bytes::from_static(b"done")))
    })
}

const SLOW_REQUEST: &[u8] =
    b"POST /db/neo4j/tx/commit HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n";

#[tokio::test]
async fn in_flight_requests_finish_and_nothing_is_left() {
    let server = start(
        config(|layer| layer.drain_timeout_ms = Some(5_000)),
        Some(slow(Duration::from_millis(400))),
    )
    .await;
    let mut busy = TcpStream::connect(server.http).await.expect("connect");
    busy.write_all(SLOW_REQUEST).await.expect("write");
    let mut idle = TcpStream::connect(server.http).await.expect("connect");
    let mut bolt_idle = TcpStream::connect(server.bolt).await.expect("connect");
    assert!(eventually(|| server.metrics.http.in_flight.get() == 1).await);
    assert!(eventually(|| server.metrics.bolt.active.get() == 1).await);

    server.trigger.shutdown();
    assert_eq!(server.health.get(), Readiness::Draining);
    // Idle connections are closed at once, the busy one gets its answer.
    assert!(
        closed_within(&mut idle, Duration::from_secs(2))
            .await
            .is_some()
    );
    assert!(
        closed_within(&mut bolt_idle, Duration::from_secs(2))
            .await
            .is_some()
    );
    let reply = read_reply(&mut busy).await.expect("in-flight reply");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, b"done");

    let http = server.http;
    let report = tokio::time::timeout(Duration::from_secs(10), server.task)
        .await
        .expect("drained in time")
        .expect("server task");
    assert!(!report.forced, "{report:?}");
    assert_eq!(report.tasks_left, 0);
    assert!(
        TcpStream::connect(http).await.is_err(),
        "listener still open"
    );
}

#[tokio::test]
async fn stubborn_work_is_cut_at_the_drain_deadline() {
    let server = start(
        config(|layer| layer.drain_timeout_ms = Some(300)),
        Some(slow(Duration::from_secs(3600))),
    )
    .await;
    let mut busy = TcpStream::connect(server.http).await.expect("connect");
    busy.write_all(SLOW_REQUEST).await.expect("write");
    assert!(eventually(|| server.metrics.http.in_flight.get() == 1).await);
    let report = server.stop().await;
    assert!(report.forced);
    assert_eq!(report.tasks_left, 0);
    assert!(report.elapsed >= Duration::from_millis(300));
    assert!(
        closed_within(&mut busy, Duration::from_secs(2))
            .await
            .is_some()
    );
}
