//! Bolt over WebSocket on the Bolt listener, as browser drivers speak it: the upgrade, a session
//! inside binary messages however they cut the chunks, the size limit, the opening deadline for a
//! dribbled upgrade, the refusal past the connection limit, pings and closes, and `wss` through
//! the listener's TLS.

mod common;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use common::bolt::{BoltClient, pull, run};
use common::certs::TestPki;
use common::ws::WsBytes;
use common::{closed_within, config, eventually, start, start_with_bolt_slots_taken};
use futures_util::{SinkExt, StreamExt};
use quiver_bolt::message::Auth;
use quiver_bolt::{Codec, Request, Response, Version};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::{self, Message};

const V58: &[Version] = &[Version::V5_8, Version::V5_4, Version::V5_0];

/// Upgrades `stream` as a browser does, and opens Bolt inside.
async fn bolt_over_websocket<S>(stream: S) -> BoltClient<WsBytes<S>>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let (socket, response) = tokio_tungstenite::client_async("ws://localhost:7687/", stream)
        .await
        .expect("WebSocket upgrade");
    assert_eq!(response.status(), 101);
    BoltClient::over(WsBytes::new(socket), V58, true).await
}

async fn query_one<S: AsyncRead + AsyncWrite + Unpin>(client: &mut BoltClient<S>) {
    client.send(&[run("RETURN 1 AS one"), pull(-1, -1)]).await;
    client.expect_success().await;
    let Some(Response::Record(row)) = client.recv().await else {
        panic!("no record");
    };
    assert_eq!(row, vec![quiver_value::Value::Int(1)]);
    client.expect_success().await;
}

fn encode(version: Version, requests: &[Request]) -> Vec<u8> {
    let codec = Codec::new(version);
    let mut out = Vec::new();
    for request in requests {
        request.encode(&mut out, &codec).expect("encode");
    }
    out
}

#[tokio::test]
async fn a_websocket_carries_a_bolt_session_counted_like_plain_bolt() {
    let server = start(config(|_| {}), None).await;
    let socket = TcpStream::connect(server.bolt).await.expect("connect");
    let mut client = bolt_over_websocket(socket).await;
    assert_eq!(client.version, Version::V5_8);
    client.login(Auth::none()).await.expect("logged in");
    query_one(&mut client).await;
    assert_eq!(server.metrics.bolt.websocket_upgrades.get(), 1);
    assert_eq!(server.metrics.bolt.accepted.get(), 1);
    assert!(server.metrics.bolt_messages.get() >= 4);
    // Plain Bolt on the same port is untouched.
    let mut plain = BoltClient::connect(server.bolt, V58, true).await;
    plain.login(Auth::none()).await.expect("logged in");
    query_one(&mut plain).await;
    assert_eq!(server.metrics.bolt.websocket_upgrades.get(), 1);
    server.stop().await;
}

#[tokio::test]
async fn message_boundaries_mean_nothing_to_bolt() {
    let server = start(config(|_| {}), None).await;
    let socket = TcpStream::connect(server.bolt).await.expect("connect");
    let mut client = bolt_over_websocket(socket).await;
    client.login(Auth::none()).await.expect("logged in");
    // One Bolt message cut into a WebSocket message per byte.
    let bytes = encode(client.version, &[run("RETURN 'split' AS s"), pull(-1, -1)]);
    for byte in &bytes {
        client
            .stream
            .socket
            .send(Message::Binary(Bytes::copy_from_slice(&[*byte])))
            .await
            .expect("send");
    }
    client.expect_success().await;
    assert!(matches!(client.recv().await, Some(Response::Record(_))));
    client.expect_success().await;
    // Three queries' six messages in one WebSocket message, then a message cut mid-chunk.
    let mut batch = Vec::new();
    for _ in 0..3 {
        batch.extend(encode(client.version, &[run("RETURN 1"), pull(-1, -1)]));
    }
    let tail = encode(client.version, &[run("RETURN 2"), pull(-1, -1)]);
    let (head, rest) = tail.split_at(5);
    batch.extend_from_slice(head);
    client
        .stream
        .socket
        .send(Message::Binary(batch.into()))
        .await
        .expect("send batch");
    client
        .stream
        .socket
        .send(Message::Binary(Bytes::copy_from_slice(rest)))
        .await
        .expect("send rest");
    for _ in 0..4 {
        client.expect_success().await;
        assert!(matches!(client.recv().await, Some(Response::Record(_))));
        client.expect_success().await;
    }
    server.stop().await;
}

#[tokio::test]
async fn an_oversized_message_ends_the_connection() {
    let server = start(
        config(|layer| layer.bolt_message_bytes_max = Some(64 * 1024)),
        None,
    )
    .await;
    let socket = TcpStream::connect(server.bolt).await.expect("connect");
    let mut client = bolt_over_websocket(socket).await;
    client.login(Auth::none()).await.expect("logged in");
    // Over the WebSocket limit (the Bolt limit and its slack) in one frame.
    let huge = vec![0u8; 64 * 1024 + quiver_server::websocket::MESSAGE_SLACK_BYTES + 1];
    let _ = client
        .stream
        .socket
        .send(Message::Binary(huge.into()))
        .await;
    client.expect_closed().await;
    // The server is fine.
    let socket = TcpStream::connect(server.bolt).await.expect("connect");
    let mut next = bolt_over_websocket(socket).await;
    next.login(Auth::none()).await.expect("logged in");
    query_one(&mut next).await;
    server.stop().await;
}

#[tokio::test]
async fn a_dribbled_upgrade_is_closed_at_the_opening_deadline() {
    let server = start(config(|layer| layer.handshake_timeout_ms = Some(300)), None).await;
    let mut dribbler = TcpStream::connect(server.bolt).await.expect("connect");
    let request =
        b"GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n";
    let started = std::time::Instant::now();
    for byte in request {
        if dribbler.write_all(&[*byte]).await.is_err()
            || started.elapsed() > Duration::from_millis(600)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let waited = closed_within(&mut dribbler, Duration::from_secs(2))
        .await
        .expect("the dribbler is closed");
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "{waited:?}"
    );
    assert!(eventually(|| server.metrics.bolt.timed_out.get() == 1).await);
    assert!(eventually(|| server.metrics.bolt.active.get() == 0).await);
    assert_eq!(server.metrics.bolt.websocket_upgrades.get(), 0);
    server.stop().await;
}

#[tokio::test]
async fn past_the_limit_a_websocket_client_reads_why() {
    let (server, held) = start_with_bolt_slots_taken().await;
    let refused = TcpStream::connect(server.bolt).await.expect("connect");
    let outcome = tokio_tungstenite::client_async("ws://localhost:7687/", refused).await;
    let Err(tungstenite::Error::Http(response)) = outcome else {
        panic!("expected an HTTP refusal, got {outcome:?}");
    };
    assert_eq!(response.status(), 503);
    let body = String::from_utf8(response.body().clone().unwrap_or_default()).expect("text");
    assert!(
        body.contains("Neo.TransientError.General.ServiceUnavailable"),
        "{body}"
    );
    assert!(body.contains("limit of 3 connections"), "{body}");
    assert!(eventually(|| server.metrics.bolt.refusals_written.get() == 1).await);
    drop(held);
    server.stop().await;
}

#[tokio::test]
async fn pings_are_answered_and_a_close_is_returned() {
    let server = start(config(|_| {}), None).await;
    let socket = TcpStream::connect(server.bolt).await.expect("connect");
    let mut client = bolt_over_websocket(socket).await;
    client.login(Auth::none()).await.expect("logged in");
    client
        .stream
        .socket
        .send(Message::Ping(Bytes::from_static(b"are you there")))
        .await
        .expect("ping");
    query_one(&mut client).await;
    // The pong came back ahead of the query's replies (the server answers at its next read).
    assert!(client.stream.pongs >= 1, "no pong");
    client.stream.socket.close(None).await.expect("close");
    // The server answers the close and ends the session.
    let rest = tokio::time::timeout(Duration::from_secs(5), client.stream.socket.next()).await;
    assert!(matches!(rest, Ok(None | Some(Err(_)))), "{rest:?}");
    assert!(eventually(|| server.metrics.bolt.active.get() == 0).await);
    server.stop().await;
}

#[tokio::test]
async fn wss_goes_through_the_listeners_tls() {
    let dir = tempfile::tempdir().expect("dir");
    let files = TestPki::generate().write(dir.path());
    let server = start(
        config(|layer| {
            layer.tls_cert = Some(files.server_cert.clone());
            layer.tls_key = Some(files.server_key.clone());
        }),
        None,
    )
    .await;
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(&files.ca).expect("CA file") {
        roots.add(cert.expect("CA certificate")).expect("add CA");
    }
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("versions")
    .with_root_certificates(roots)
    .with_no_client_auth();
    let socket = TcpStream::connect(server.bolt).await.expect("connect");
    let name = ServerName::try_from("localhost".to_owned()).expect("name");
    let stream = tokio_rustls::TlsConnector::from(Arc::new(tls))
        .connect(name, socket)
        .await
        .expect("TLS handshake");
    let mut client = bolt_over_websocket(stream).await;
    client.login(Auth::none()).await.expect("logged in");
    query_one(&mut client).await;
    assert_eq!(server.metrics.bolt.tls.handshakes.get(), 1);
    assert_eq!(server.metrics.bolt.websocket_upgrades.get(), 1);
    server.stop().await;
}
