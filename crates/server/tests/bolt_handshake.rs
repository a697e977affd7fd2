//! A handshake Quiver cannot agree to is answered at once: `00 00 00 00` and the close, for a
//! client proposing only Bolt 3.0 or 4.0 (py2neo, old drivers), only versions nobody speaks, or
//! nothing at all; a client that does not open with Bolt's magic is closed without a word as
//! soon as its first bytes show it. Either way the connection ends well before any deadline the
//! server could otherwise have waited on.
//!
//! The server under test has its handshake and idle deadlines at 2 s, so a path that waited
//! for either would take at least 2 s; each answer is asserted within 1 s. That bound is the
//! code path's promise (the refusal is written and the socket closed as soon as the 20 bytes
//! are read, with nothing awaited in between), not the scheduler's: on loopback it takes well
//! under a millisecond, and 1 s leaves a busy machine room while staying clearly below 2 s.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{config, start};
use quiver_bolt::handshake::{MAGIC, MANIFEST_V1};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The server's handshake and idle deadlines: what a wait would cost.
const DEADLINE_MS: u64 = 2_000;
/// Comfortably above a loopback round trip, clearly below [`DEADLINE_MS`].
const ANSWERED_WITHIN: Duration = Duration::from_secs(1);

/// The 20-byte preamble proposing `slots` (padded with empty ones).
fn preamble(slots: &[[u8; 4]]) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    for slot in slots {
        bytes.extend_from_slice(slot);
    }
    bytes.resize(20, 0);
    bytes
}

/// Sends `opening`, then reads until the server closes; returns what it sent and how long the
/// close took from the write. Fails if the server is still silent after the deadline.
async fn answer_to(addr: SocketAddr, opening: &[u8]) -> (Vec<u8>, Duration) {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let started = Instant::now();
    stream.write_all(opening).await.expect("write opening");
    let mut answer = Vec::new();
    let mut buffer = [0u8; 64];
    let limit = Duration::from_millis(DEADLINE_MS * 3);
    loop {
        let read = tokio::time::timeout(limit, stream.read(&mut buffer))
            .await
            .expect("the server closes at the latest at its deadline");
        match read {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buffer[..n]),
        }
    }
    (answer, started.elapsed())
}

async fn server() -> common::Running {
    start(
        config(|layer| {
            layer.handshake_timeout_ms = Some(DEADLINE_MS);
            layer.idle_timeout_ms = Some(DEADLINE_MS);
        }),
        None,
    )
    .await
}

#[tokio::test]
async fn a_client_proposing_only_versions_quiver_does_not_speak_gets_zeros_and_the_close_at_once() {
    let server = server().await;
    let cases: [(&str, Vec<u8>); 6] = [
        ("only 3.0", preamble(&[[0, 0, 0, 3]])),
        ("only 4.0", preamble(&[[0, 0, 0, 4]])),
        ("4.0 then 3.0", preamble(&[[0, 0, 0, 4], [0, 0, 0, 3]])),
        (
            "4.0, 3.0, 2.0, 1.0",
            preamble(&[[0, 0, 0, 4], [0, 0, 0, 3], [0, 0, 0, 2], [0, 0, 0, 1]]),
        ),
        (
            "7.0, 5.5 and 5.9-5.9",
            preamble(&[[0, 0, 0, 7], [0, 0, 5, 5], [0, 0, 9, 5]]),
        ),
        ("no proposal at all", preamble(&[])),
    ];
    for (name, opening) in cases {
        let (answer, took) = answer_to(server.bolt, &opening).await;
        assert_eq!(answer, [0, 0, 0, 0], "{name}: the refusal, then the end");
        assert!(took < ANSWERED_WITHIN, "{name}: closed after {took:?}");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_client_without_bolts_magic_is_closed_as_soon_as_its_first_bytes_show_it() {
    let server = server().await;
    let cases: [(&str, Vec<u8>); 3] = [
        ("a whole preamble, magic off by one", {
            let mut bytes = preamble(&[[0, 4, 4, 4]]);
            bytes[3] = 0x18;
            bytes
        }),
        (
            "four bytes of a TLS ClientHello",
            vec![0x16, 0x03, 0x01, 0x00],
        ),
        ("one byte", vec![0x00]),
    ];
    for (name, opening) in cases {
        let (answer, took) = answer_to(server.bolt, &opening).await;
        assert!(answer.is_empty(), "{name}: {answer:?}");
        assert!(took < ANSWERED_WITHIN, "{name}: closed after {took:?}");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_manifest_client_choosing_no_version_is_closed_at_once() {
    let server = server().await;
    let mut stream = TcpStream::connect(server.bolt).await.expect("connect");
    stream
        .write_all(&preamble(&[MANIFEST_V1, [0, 8, 8, 5]]))
        .await
        .expect("write preamble");
    let mut head = [0u8; 4];
    stream.read_exact(&mut head).await.expect("manifest");
    assert_eq!(head, MANIFEST_V1);
    let started = Instant::now();
    // "None of those": version 0, no capabilities.
    stream
        .write_all(&[0, 0, 0, 0, 0])
        .await
        .expect("write choice");
    let mut rest = Vec::new();
    let read = tokio::time::timeout(
        Duration::from_millis(DEADLINE_MS * 3),
        stream.read_to_end(&mut rest),
    )
    .await
    .expect("closed at the latest at the deadline");
    let took = started.elapsed();
    assert!(read.is_ok(), "{read:?}");
    // The rest of the manifest (count, ranges, capabilities), then the end.
    assert!(!rest.is_empty());
    assert!(took < ANSWERED_WITHIN, "closed after {took:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_refused_client_past_the_connection_limit_is_answered_at_once_too() {
    let server = start(
        config(|layer| {
            layer.max_connections = Some(2);
            layer.admin_reserved_connections = Some(1);
            layer.handshake_timeout_ms = Some(DEADLINE_MS);
            layer.idle_timeout_ms = Some(DEADLINE_MS);
        }),
        None,
    )
    .await;
    // Both slots (the ordinary one and the administrators'), held by clients that have not
    // finished their handshakes.
    let mut holders = Vec::new();
    for _ in 0..2 {
        let mut holder = TcpStream::connect(server.bolt).await.expect("connect");
        holder.write_all(&MAGIC).await.expect("write magic");
        holders.push(holder);
    }
    assert!(
        common::eventually(|| server.metrics.bolt.active.get() == 2).await,
        "the slots are taken"
    );
    let (answer, took) = answer_to(server.bolt, &preamble(&[[0, 0, 0, 3]])).await;
    assert_eq!(answer, [0, 0, 0, 0]);
    assert!(took < ANSWERED_WITHIN, "closed after {took:?}");
    let (answer, took) = answer_to(server.bolt, &[0x16, 0x03, 0x01, 0x00]).await;
    assert!(answer.is_empty(), "{answer:?}");
    assert!(took < ANSWERED_WITHIN, "closed after {took:?}");
    drop(holders);
    server.stop().await;
}
