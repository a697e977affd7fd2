//! The Bolt listener before the session: handshake replies, the slowloris deadline, and admission.

mod common;

use std::time::Duration;

use common::{closed_within, config, eventually, start, start_with_bolt_slots_taken};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const MAGIC: [u8; 4] = [0x60, 0x60, 0xB0, 0x17];

fn legacy_preamble() -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&[0, 8, 8, 5, 0, 2, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0]);
    bytes
}

fn manifest_preamble() -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&[0, 0, 1, 0xFF, 0, 8, 8, 5, 0, 2, 4, 4, 0, 0, 0, 3]);
    bytes
}

#[tokio::test]
async fn legacy_handshake_agrees_on_the_newest_common_version() {
    let server = start(config(|_| {}), None).await;
    let mut stream = TcpStream::connect(server.bolt).await.expect("connect");
    stream.write_all(&legacy_preamble()).await.expect("write");
    let mut reply = [0u8; 4];
    stream.read_exact(&mut reply).await.expect("reply");
    assert_eq!(reply, [0, 0, 8, 5]);
    server.stop().await;
}

#[tokio::test]
async fn manifest_reply_arrives_in_one_piece() {
    let server = start(config(|_| {}), None).await;
    let mut stream = TcpStream::connect(server.bolt).await.expect("connect");
    stream.write_all(&manifest_preamble()).await.expect("write");
    let mut reply = vec![0u8; 64];
    let read = stream.read(&mut reply).await.expect("reply");
    reply.truncate(read);
    assert_eq!(&reply[..4], &[0, 0, 1, 0xFF]);
    let ranges = usize::from(reply[4]);
    assert_eq!(
        reply.len(),
        4 + 1 + ranges * 4 + 1,
        "manifest split across writes: {reply:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_dribbled_preamble_is_closed_at_the_handshake_deadline() {
    let server = start(config(|layer| layer.handshake_timeout_ms = Some(300)), None).await;
    let mut dribbler = TcpStream::connect(server.bolt).await.expect("connect");
    let start_time = std::time::Instant::now();
    for byte in legacy_preamble().into_iter().take(19) {
        if dribbler.write_all(&[byte]).await.is_err() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        if start_time.elapsed() > Duration::from_millis(600) {
            break;
        }
    }
    assert!(
        closed_within(&mut dribbler, Duration::from_secs(2))
            .await
            .is_some()
    );
    let mut silent = TcpStream::connect(server.bolt).await.expect("connect");
    let waited = closed_within(&mut silent, Duration::from_secs(2))
        .await
        .expect("silent client closed");
    assert!(
        waited >= Duration::from_millis(200),
        "closed after {waited:?}"
    );
    assert!(eventually(|| server.metrics.bolt.timed_out.get() == 2).await);
    assert!(eventually(|| server.metrics.bolt.active.get() == 0).await);
    assert_eq!(server.metrics.bolt.closed.get(), 2);
    server.stop().await;
}

#[tokio::test]
async fn garbage_instead_of_a_handshake_is_closed_and_the_server_keeps_serving() {
    let server = start(config(|_| {}), None).await;
    let mut stream = TcpStream::connect(server.bolt).await.expect("connect");
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .expect("write");
    assert!(
        closed_within(&mut stream, Duration::from_secs(2))
            .await
            .is_some()
    );
    let mut good = TcpStream::connect(server.bolt).await.expect("connect");
    good.write_all(&legacy_preamble()).await.expect("write");
    let mut reply = [0u8; 4];
    good.read_exact(&mut reply).await.expect("reply");
    assert_eq!(reply, [0, 0, 8, 5]);
    server.stop().await;
}

#[tokio::test]
async fn past_max_connections_clients_are_refused_and_counted() {
    let (server, held) = start_with_bolt_slots_taken().await;
    let mut refused = TcpStream::connect(server.bolt).await.expect("connect");
    refused.write_all(&legacy_preamble()).await.expect("write");
    // The refusal completes the handshake, then closes.
    let mut reply = [0u8; 4];
    refused
        .read_exact(&mut reply)
        .await
        .expect("handshake reply");
    assert_eq!(reply, [0, 0, 8, 5]);
    assert!(
        closed_within(&mut refused, Duration::from_secs(2))
            .await
            .is_some()
    );
    assert_eq!(server.metrics.bolt.rejected.get(), 1);
    assert_eq!(server.metrics.bolt.accepted.get(), 3);
    drop(held);
    server.stop().await;
}
