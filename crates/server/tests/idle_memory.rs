//! What an idle, authenticated connection costs the server in heap, Bolt and HTTP alike, and
//! that its buffers are back in the pool while it idles.
//!
//! This test binary counts every allocation (`stats_alloc`), so the figure is the server's live
//! heap per held connection: its task, its socket's registration, its session and timer, its
//! entry in the connection list. The clients are blocking sockets with no heap of their own.
//! Kernel socket memory is not heap and not counted here (nor in the resident set);
//! `docs/PERFORMANCE.md` ("Idle connections") has the resident-set figures the lab measures.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use bytes::Bytes;
use common::{config, eventually, start};
use http::Response;
use http_body_util::Full;
use quiver_bolt::message::{Auth, HelloExtra};
use quiver_bolt::{Codec, Request, Version};
use quiver_server::config::AuthSpec;
use quiver_server::http_listener::ApiHandler;
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// The goal: an idle connection holds at most this much of the server's heap.
const IDLE_CONNECTION_BYTES_MAX: i64 = 4096;
/// Connections held per protocol.
const CONNECTIONS: usize = 400;
const PASSWORD: &str = "idle-password";

/// Live heap bytes of the process (see `crates/engine/tests/plan_cache.rs` for why the
/// reallocation figure is left out).
fn live() -> i64 {
    let stats = ALLOCATOR.stats();
    stats.bytes_allocated as i64 - stats.bytes_deallocated as i64
}

/// Handshake (5.4), HELLO and LOGON with basic credentials, then a RUN and PULL, pre-encoded.
fn bolt_script() -> Vec<u8> {
    let mut bytes = vec![
        0x60, 0x60, 0xB0, 0x17, 0, 0, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    let codec = Codec::new(Version::V5_4);
    let requests = [
        Request::Hello {
            extra: HelloExtra {
                user_agent: "idle-test/1".to_owned(),
                ..HelloExtra::default()
            },
        },
        Request::Logon {
            auth: Auth::basic("neo4j", PASSWORD),
        },
        common::bolt::run("RETURN 1 AS one"),
        common::bolt::pull(-1, -1),
    ];
    for request in &requests {
        request.encode(&mut bytes, &codec).expect("encode");
    }
    bytes
}

/// Chunked messages in `bytes` after the 4-byte version reply.
fn messages(bytes: &[u8]) -> usize {
    let (mut at, mut count) = (4, 0);
    while at + 2 <= bytes.len() {
        let len = usize::from(u16::from_be_bytes([bytes[at], bytes[at + 1]]));
        at += 2 + len;
        if len == 0 {
            count += 1;
        }
    }
    if at == bytes.len() { count } else { 0 }
}

/// Opens `count` connections, each logged in and answered (HELLO, LOGON, RUN, RECORD, PULL's
/// SUCCESS: five replies).
fn open_bolt(addr: SocketAddr, count: usize) -> Vec<TcpStream> {
    let script = bolt_script();
    (0..count)
        .map(|_| {
            let mut stream = TcpStream::connect(addr).expect("connect");
            stream.write_all(&script).expect("write");
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .expect("timeout");
            let mut reply = vec![0u8; 4096];
            let mut got = 0;
            while got < 4 || messages(&reply[..got]) < 5 {
                let read = stream.read(&mut reply[got..]).expect("read");
                assert!(read > 0, "closed while logging in");
                got += read;
            }
            stream
        })
        .collect()
}

/// Opens `count` keep-alive connections, each with one authenticated request answered.
fn open_http(addr: SocketAddr, count: usize) -> Vec<TcpStream> {
    let body = "{\"statements\":[]}";
    let request = format!(
        "POST /db/neo4j/tx/commit HTTP/1.1\r\nHost: t\r\nAuthorization: Basic bmVvNGo6aWRsZS1wYXNzd29yZA==\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    (0..count)
        .map(|_| {
            let mut stream = TcpStream::connect(addr).expect("connect");
            stream.write_all(request.as_bytes()).expect("write");
            stream
                .set_read_timeout(Some(Duration::from_secs(10)))
                .expect("timeout");
            let mut reply = Vec::new();
            let mut chunk = [0u8; 2048];
            while !reply.ends_with(body.as_bytes()) {
                let read = stream.read(&mut chunk).expect("read");
                assert!(read > 0, "closed before the reply");
                reply.extend_from_slice(&chunk[..read]);
            }
            assert!(reply.starts_with(b"HTTP/1.1 200"), "not answered");
            stream
        })
        .collect()
}

fn echo() -> ApiHandler {
    ApiHandler::from_fn(|request: http::Request<Bytes>| async move {
        Response::new(Full::new(request.into_body()))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_authenticated_connection_holds_no_buffer_and_little_heap() {
    let limit = u32::try_from(CONNECTIONS * 2).expect("small");
    let server = start(
        config(|layer| {
            layer.max_connections = Some(limit);
            layer.http_max_connections = Some(limit);
            layer.auth = Some(AuthSpec::Basic {
                user: "neo4j".to_owned(),
                password: PASSWORD.to_owned(),
            });
        }),
        Some(echo()),
    )
    .await;
    let (bolt, http) = (server.bolt, server.http);
    // Warm the runtime, the allocator and the credentials cache up with a batch that closes.
    let warm = tokio::task::spawn_blocking(move || (open_bolt(bolt, 32), open_http(http, 32)))
        .await
        .expect("warm-up");
    drop(warm);
    assert!(eventually(|| server.metrics.bolt.active.get() == 0).await);
    assert!(eventually(|| server.metrics.http.active.get() == 0).await);

    let before = live();
    let held = tokio::task::spawn_blocking(move || open_bolt(bolt, CONNECTIONS))
        .await
        .expect("open Bolt connections");
    assert!(eventually(|| server.metrics.bolt.active.get() == CONNECTIONS as i64).await);
    assert!(eventually(|| server.metrics.bolt.in_flight.get() == 0).await);
    // The last sessions give their buffers back just after their replies leave.
    assert!(
        eventually(|| server.metrics.bolt_buffers_lent.get() == 0).await,
        "idle Bolt connections still hold {} buffers",
        server.metrics.bolt_buffers_lent.get()
    );
    let bolt_each = (live() - before) / CONNECTIONS as i64;

    let before = live();
    let held_http = tokio::task::spawn_blocking(move || open_http(http, CONNECTIONS))
        .await
        .expect("open HTTP connections");
    assert!(eventually(|| server.metrics.http.active.get() == CONNECTIONS as i64).await);
    assert!(eventually(|| server.metrics.http.in_flight.get() == 0).await);
    let http_each = (live() - before) / CONNECTIONS as i64;
    println!("heap per idle authenticated connection: Bolt {bolt_each} B, HTTP {http_each} B");
    assert!(
        bolt_each <= IDLE_CONNECTION_BYTES_MAX,
        "an idle Bolt connection holds {bolt_each} B"
    );
    assert!(
        http_each <= IDLE_CONNECTION_BYTES_MAX,
        "an idle HTTP connection holds {http_each} B"
    );
    drop(held);
    drop(held_http);
    assert!(eventually(|| server.metrics.bolt.active.get() == 0).await);
    assert!(eventually(|| server.metrics.bolt_buffers_lent.get() == 0).await);
    server.stop().await;
}
