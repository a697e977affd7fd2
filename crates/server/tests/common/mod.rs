//! Starts a real server on 127.0.0.1:0 and speaks raw HTTP/1.1 and Bolt bytes to it.

#![allow(dead_code)]

pub mod bolt;
pub mod certs;
pub mod resident;
mod shared;
pub mod ws;

use shared::find;
pub use shared::{Reply, config, eventually};

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use quiver_engine::{Database, EngineConfig};
use quiver_node::{HttpService, NodeBuilder, Store};
use quiver_server::config::Config;
use quiver_server::health::Health;
use quiver_server::http_listener::ApiHandler;
use quiver_server::metrics::Metrics;
use quiver_server::shutdown::ShutdownReport;
use quiver_server::{Graph, ShutdownTrigger};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

pub struct Running {
    pub bolt: SocketAddr,
    pub http: SocketAddr,
    pub metrics: Arc<Metrics>,
    pub health: Arc<Health>,
    pub db: Arc<Database>,
    pub trigger: ShutdownTrigger,
    pub task: JoinHandle<ShutdownReport>,
    /// The certificate and key, when TLS is on.
    pub tls: Option<Arc<quiver_server::tls::ServerTls>>,
}

impl Running {
    pub async fn stop(self) -> ShutdownReport {
        shared::stop(self.trigger, self.task).await
    }
}

pub async fn start(config: Config, api: Option<ApiHandler>) -> Running {
    let db = Database::open_in_memory(EngineConfig::default());
    start_with(config, api, Arc::new(Graph::new(db))).await
}

/// Starts the node `quiver serve` assembles over `graph`, its HTTP listener serving `api`
/// besides the operations endpoints.
pub async fn start_with(config: Config, api: Option<ApiHandler>, graph: Arc<Graph>) -> Running {
    let node = NodeBuilder::new(config)
        .store(Store::Graph(graph))
        .http_service(api.map_or(HttpService::OperationsOnly, HttpService::Handler))
        .build()
        .await
        .expect("node");
    let bolt = node.bolt_addr();
    let http = node.http_addr();
    let metrics = Arc::clone(node.metrics());
    let health = Arc::clone(node.health());
    let db = Arc::clone(node.database());
    let tls = node.tls();
    let (trigger, task) = shared::run(node);
    Running {
        bolt,
        http,
        metrics,
        health,
        db,
        trigger,
        task,
        tls,
    }
}

/// A server admitting three Bolt connections (one of them reserved for administrators), all
/// three taken by connections that stay silent before their handshakes; they are returned with
/// it, to hold until the test is done with the full server.
pub async fn start_with_bolt_slots_taken() -> (Running, Vec<TcpStream>) {
    let config = config(|layer| {
        layer.max_connections = Some(3);
        layer.admin_reserved_connections = Some(1);
        layer.handshake_timeout_ms = Some(10_000);
    });
    let server = start(config, None).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(TcpStream::connect(server.bolt).await.expect("connect"));
    }
    assert!(eventually(|| server.metrics.bolt.active.get() == 3).await);
    (server, held)
}

/// Reads one response (Content-Length framed) from `stream`.
pub async fn read_reply(stream: &mut TcpStream) -> Option<Reply> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(position) = find(&buffer, b"\r\n\r\n") {
            break position;
        }
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let (status, headers, length) = parse_head(&buffer[..head_end])?;
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..read]);
    }
    body.truncate(length);
    Some(Reply {
        status,
        headers,
        body,
        chunked: false,
    })
}

/// Reads `count` pipelined responses (Content-Length framed) from `stream`. Unlike
/// [`read_reply`], which drops what it read past its response, bytes of the next response read
/// with one are kept for it.
pub async fn read_replies(stream: &mut TcpStream, count: usize) -> Vec<Reply> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    let mut replies = Vec::new();
    while replies.len() < count {
        if let Some((reply, used)) = parse_reply(&bytes) {
            replies.push(reply);
            bytes.drain(..used);
            continue;
        }
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .expect("replies within 10 s")
            .expect("read");
        assert!(
            read > 0,
            "closed after {} of {count} replies",
            replies.len()
        );
        bytes.extend_from_slice(&chunk[..read]);
    }
    replies
}

/// One whole response at the start of `bytes`, and its length in bytes.
fn parse_reply(bytes: &[u8]) -> Option<(Reply, usize)> {
    let head_end = find(bytes, b"\r\n\r\n")?;
    let (status, headers, length) = parse_head(&bytes[..head_end])?;
    let body = bytes.get(head_end + 4..head_end + 4 + length)?.to_vec();
    Some((
        Reply {
            status,
            headers,
            body,
            chunked: false,
        },
        head_end + 4 + length,
    ))
}

/// A response's head, without the blank line ending it: its status, its headers, and the
/// length of the body that follows (none without a Content-Length).
fn parse_head(head: &[u8]) -> Option<(u16, Vec<(String, String)>, usize)> {
    let (status, headers) = shared::parse_head(head)?;
    let length = shared::header(&headers, "content-length")
        .and_then(|value| value.parse().ok())
        .unwrap_or(0);
    Some((status, headers, length))
}

/// A fresh connection to `addr` that has sent `bytes`.
pub async fn connect_sending(addr: SocketAddr, bytes: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(bytes).await.expect("write");
    stream
}

/// Sends `request` on a fresh connection and reads the reply.
pub async fn request(addr: SocketAddr, request: &str) -> Reply {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream
        .write_all(request.as_bytes())
        .await
        .expect("write request");
    read_reply(&mut stream).await.expect("a reply")
}

pub async fn get(addr: SocketAddr, path: &str) -> Reply {
    request(addr, &format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n")).await
}

/// Waits until the peer closes (read returns 0 or an error), up to `limit`; returns the time taken.
pub async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let start = std::time::Instant::now();
    let mut sink = [0u8; 1024];
    loop {
        match tokio::time::timeout_at(
            tokio::time::Instant::from_std(start) + limit,
            stream.read(&mut sink),
        )
        .await
        {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some(start.elapsed()),
            Ok(Ok(_)) => {}
        }
    }
}
