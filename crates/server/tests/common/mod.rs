//! Starts a real server on 127.0.0.1:0 and speaks raw HTTP/1.1 and Bolt bytes to it.

#![allow(dead_code)]

pub mod bolt;
pub mod certs;
pub mod ws;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use quiver_engine::{Database, EngineConfig};
use quiver_node::{HttpService, NodeBuilder, Store};
use quiver_server::config::{Config, Layer};
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
        self.trigger.shutdown();
        tokio::time::timeout(Duration::from_secs(30), self.task)
            .await
            .expect("server stops within 30 s")
            .expect("server task")
    }
}

/// A configuration on ephemeral ports, in memory, adjusted by `tweak`.
pub fn config(tweak: impl FnOnce(&mut Layer)) -> Config {
    let mut layer = Layer {
        bolt_listen: Some("127.0.0.1:0".parse().expect("addr")),
        http_listen: Some("127.0.0.1:0".parse().expect("addr")),
        in_memory: Some(true),
        ..Layer::default()
    };
    tweak(&mut layer);
    Config::from_layer(layer).expect("valid test configuration")
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
    let trigger = node.trigger();
    let tls = node.tls();
    // Ready from here, as `quiver serve` is once it prints its addresses.
    let run = node.run();
    Running {
        bolt,
        http,
        metrics,
        health,
        db,
        trigger,
        tls,
        task: tokio::spawn(async move { run.await.report }),
    }
}

/// A parsed HTTP response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("JSON body")
    }
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
        },
        head_end + 4 + length,
    ))
}

/// A response's head, without the blank line ending it: its status, its headers, and the
/// length of the body that follows (none without a Content-Length).
fn parse_head(head: &[u8]) -> Option<(u16, Vec<(String, String)>, usize)> {
    let head = String::from_utf8_lossy(head);
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    Some((status, headers, length))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
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

/// Polls `condition` every 10 ms for up to 5 s.
pub async fn eventually(mut condition: impl FnMut() -> bool) -> bool {
    for _ in 0..500 {
        if condition() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    condition()
}
