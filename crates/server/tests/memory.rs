//! Server memory per idle, authenticated Bolt connection, measured in process (ignored: a
//! measurement, not a check). Run with
//! `cargo test --release -p quiver-server --test memory -- --ignored --nocapture`.
//!
//! The clients are bare sockets (no heap of their own), so the growth of the process's resident
//! set while they sit idle is the server's cost for holding them.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::{config, eventually, start};

/// Connections opened; the process holds both ends, so twice this many descriptors.
const CONNECTIONS: usize = 5_000;

/// Handshake (legacy slot for 5.4), HELLO {user_agent}, LOGON {scheme: "none"}, pre-encoded.
fn login_bytes() -> Vec<u8> {
    let mut bytes = vec![
        0x60, 0x60, 0xB0, 0x17, 0, 0, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    let hello: &[u8] = &[
        0xB1, 0x01, 0xA1, 0x8A, b'u', b's', b'e', b'r', b'_', b'a', b'g', b'e', b'n', b't', 0x81,
        b'q',
    ];
    let logon: &[u8] = &[
        0xB1, 0x6A, 0xA1, 0x86, b's', b'c', b'h', b'e', b'm', b'e', 0x84, b'n', b'o', b'n', b'e',
    ];
    for message in [hello, logon] {
        bytes.extend_from_slice(&(message.len() as u16).to_be_bytes());
        bytes.extend_from_slice(message);
        bytes.extend_from_slice(&[0, 0]);
    }
    bytes
}

/// This process's resident set in bytes, 0 where it cannot be read.
fn resident_bytes() -> u64 {
    common::resident::resident_bytes("self").unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run explicitly with --ignored --nocapture"]
async fn memory_per_idle_authenticated_bolt_connection() {
    let server = start(
        config(|layer| layer.max_connections = Some(CONNECTIONS as u32 + 16)),
        None,
    )
    .await;
    let addr = server.bolt;
    let login = login_bytes();
    // Warm up the allocator, runtime and code paths with a first batch that is then closed.
    let warm = tokio::task::spawn_blocking({
        let login = login.clone();
        move || open(addr, &login, 200)
    })
    .await
    .expect("warm-up");
    drop(warm);
    assert!(eventually(|| server.metrics.bolt.active.get() == 0).await);

    let before = resident_bytes();
    let held = tokio::task::spawn_blocking(move || open(addr, &login, CONNECTIONS))
        .await
        .expect("open connections");
    assert!(eventually(|| server.metrics.bolt.active.get() == CONNECTIONS as i64).await);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = resident_bytes();
    let per_connection = after.saturating_sub(before) / CONNECTIONS as u64;
    println!(
        "{CONNECTIONS} idle authenticated Bolt connections: resident set {before} -> {after} bytes, {per_connection} bytes each"
    );
    drop(held);
    server.stop().await;
}

/// Opens `count` connections and logs each in, reading the three replies.
fn open(addr: std::net::SocketAddr, login: &[u8], count: usize) -> Vec<TcpStream> {
    let mut streams = Vec::with_capacity(count);
    let mut reply = [0u8; 512];
    for _ in 0..count {
        let mut stream = TcpStream::connect(addr).expect("connect");
        stream.write_all(login).expect("login");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        // Version (4 bytes), HELLO's SUCCESS and LOGON's SUCCESS: read until LOGON's arrived.
        let mut got = 0;
        while got < 4 || !ends_with_two_messages(&reply[4..got]) {
            let read = stream.read(&mut reply[got..]).expect("read replies");
            assert!(read > 0, "closed during login");
            got += read;
        }
        streams.push(stream);
    }
    streams
}

/// Whether `bytes` holds two complete chunked messages.
fn ends_with_two_messages(bytes: &[u8]) -> bool {
    let mut at = 0;
    let mut messages = 0;
    while at + 2 <= bytes.len() {
        let len = usize::from(u16::from_be_bytes([bytes[at], bytes[at + 1]]));
        at += 2 + len;
        if len == 0 {
            messages += 1;
        }
    }
    messages >= 2 && at == bytes.len()
}
