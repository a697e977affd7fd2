//! A burst of connections far past the limit: nearly every refused client reads a clear refusal
//! (Bolt's transient FAILURE after a completed handshake, HTTP's 503 with `Retry-After`) instead of
//! a reset, because refusals are driven by one refuser per listener rather than a task each.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{config, eventually, start};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinSet;

/// Clients in the burst, each refused.
const BURST_CONNECTIONS: usize = 2000;
/// Connections admitted before the burst, filling every slot.
const ADMITTED: u32 = 4;
/// The share of refused clients that must read the refusal.
const READABLE_SHARE_MIN: f64 = 0.99;
/// How long one client may take to connect and read its refusal: generous, so a loaded machine
/// slows the test down rather than failing it.
const CLIENT_DEADLINE: Duration = Duration::from_secs(60);

/// Legacy preamble offering 5.0–5.8 and 4.4.
const BOLT_PREAMBLE: [u8; 20] = [
    0x60, 0x60, 0xB0, 0x17, 0, 8, 8, 5, 0, 0, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0,
];
const SERVICE_UNAVAILABLE: &[u8] = b"Neo.TransientError.General.ServiceUnavailable";

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// Connects, sends `opening`, reads to the end; whether what came back satisfies `readable`.
async fn refused_client(
    addr: SocketAddr,
    opening: &'static [u8],
    readable: fn(&[u8]) -> bool,
) -> bool {
    let attempt = async {
        let mut stream = TcpStream::connect(addr).await.ok()?;
        stream.write_all(opening).await.ok()?;
        let mut reply = Vec::new();
        stream.read_to_end(&mut reply).await.ok()?;
        Some(readable(&reply))
    };
    matches!(
        tokio::time::timeout(CLIENT_DEADLINE, attempt).await,
        Ok(Some(true))
    )
}

fn bolt_refusal_is_readable(reply: &[u8]) -> bool {
    reply.len() > 4 && reply[..2] == [0, 0] && reply[3] == 5 && contains(reply, SERVICE_UNAVAILABLE)
}

fn http_refusal_is_readable(reply: &[u8]) -> bool {
    reply.starts_with(b"HTTP/1.1 503")
        && contains(reply, b"retry-after: 1\r\n")
        && contains(reply, SERVICE_UNAVAILABLE)
}

/// Launches the whole burst at once and returns how many read a clear refusal.
async fn burst(addr: SocketAddr, opening: &'static [u8], readable: fn(&[u8]) -> bool) -> usize {
    let mut clients = JoinSet::new();
    for _ in 0..BURST_CONNECTIONS {
        clients.spawn(refused_client(addr, opening, readable));
    }
    let mut read = 0;
    while let Some(outcome) = clients.join_next().await {
        if outcome.expect("client task") {
            read += 1;
        }
    }
    read
}

fn assert_readable_share(protocol: &str, read: usize) {
    #[allow(clippy::cast_precision_loss)]
    let share = read as f64 / BURST_CONNECTIONS as f64;
    assert!(
        share >= READABLE_SHARE_MIN,
        "{protocol}: {read} of {BURST_CONNECTIONS} refused clients read the refusal"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bolt_burst_past_the_limit_reads_its_refusals() {
    let server = start(
        config(|layer| {
            layer.max_connections = Some(ADMITTED);
            layer.admin_reserved_connections = Some(0);
            layer.handshake_timeout_ms = Some(120_000);
            layer.refusal_timeout_ms = Some(60_000);
        }),
        None,
    )
    .await;
    let mut held = Vec::new();
    for _ in 0..ADMITTED {
        held.push(TcpStream::connect(server.bolt).await.expect("connect"));
    }
    assert!(eventually(|| server.metrics.bolt.active.get() == i64::from(ADMITTED)).await);
    let read = burst(server.bolt, &BOLT_PREAMBLE, bolt_refusal_is_readable).await;
    assert_readable_share("Bolt", read);
    let rejected = server.metrics.bolt.rejected.get();
    assert_eq!(rejected, BURST_CONNECTIONS as u64);
    // Counted after the refuser's pass, which may end after the client saw the close.
    assert!(eventually(|| server.metrics.bolt.refusals_written.get() >= read as u64).await);
    drop(held);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_burst_past_the_limit_reads_its_503s() {
    let server = start(
        config(|layer| {
            layer.http_max_connections = Some(ADMITTED);
            layer.http_keep_alive_timeout_ms = Some(120_000);
            layer.http_header_read_timeout_ms = Some(120_000);
            layer.refusal_timeout_ms = Some(60_000);
        }),
        None,
    )
    .await;
    let mut held = Vec::new();
    for _ in 0..ADMITTED {
        held.push(TcpStream::connect(server.http).await.expect("connect"));
    }
    assert!(eventually(|| server.metrics.http.active.get() == i64::from(ADMITTED)).await);
    let read = burst(
        server.http,
        b"GET /health/live HTTP/1.1\r\nhost: quiver\r\n\r\n",
        http_refusal_is_readable,
    )
    .await;
    assert_readable_share("HTTP", read);
    assert_eq!(server.metrics.http.rejected.get(), BURST_CONNECTIONS as u64);
    // Counted after the refuser's pass, which may end after the client saw the close.
    assert!(eventually(|| server.metrics.http.refusals_written.get() >= read as u64).await);
    drop(held);
    server.stop().await;
}

/// A driver speaking the manifest handshake is refused after it chose a version: the manifest,
/// then (after the choice) HELLO's SUCCESS and the FAILURE in that version's format, then the end.
#[tokio::test]
async fn a_manifest_client_reads_the_refusal_after_its_choice() {
    let server = start(
        config(|layer| {
            layer.max_connections = Some(1);
            layer.admin_reserved_connections = Some(0);
            layer.handshake_timeout_ms = Some(60_000);
        }),
        None,
    )
    .await;
    let held = TcpStream::connect(server.bolt).await.expect("connect");
    assert!(eventually(|| server.metrics.bolt.active.get() == 1).await);
    let mut refused = TcpStream::connect(server.bolt).await.expect("connect");
    let mut preamble = BOLT_PREAMBLE;
    preamble[4..8].copy_from_slice(&[0, 0, 1, 0xFF]);
    refused.write_all(&preamble).await.expect("write preamble");
    let mut head = [0u8; 4];
    refused.read_exact(&mut head).await.expect("manifest");
    assert_eq!(head, [0, 0, 1, 0xFF]);
    let mut count = [0u8; 1];
    refused.read_exact(&mut count).await.expect("range count");
    let mut rest = vec![0u8; usize::from(count[0]) * 4 + 1];
    refused.read_exact(&mut rest).await.expect("ranges");
    // 5.4, no capabilities.
    refused.write_all(&[0, 0, 4, 5, 0]).await.expect("choice");
    let mut reply = Vec::new();
    tokio::time::timeout(CLIENT_DEADLINE, refused.read_to_end(&mut reply))
        .await
        .expect("in time")
        .expect("read");
    assert!(contains(&reply, b"bolt-refused"), "{reply:?}");
    assert!(contains(&reply, SERVICE_UNAVAILABLE), "{reply:?}");
    assert!(contains(&reply, b"limit of 1 connections"), "{reply:?}");
    assert!(eventually(|| server.metrics.bolt.refusals_written.get() == 1).await);
    drop(held);
    server.stop().await;
}
