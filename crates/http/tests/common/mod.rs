//! Starts a real Quiver server with the HTTP API on 127.0.0.1:0 and speaks raw HTTP/1.1 to it.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use quiver_engine::Database;
use quiver_http::{ApiConfig, HttpApi};
use quiver_node::{NodeBuilder, Store};
use quiver_server::ShutdownTrigger;
use quiver_server::config::{Config, Layer};
use quiver_server::metrics::Metrics;
use quiver_server::shutdown::ShutdownReport;
use quiver_storage::{CommitLog, Storage};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

pub struct Running {
    pub http: SocketAddr,
    pub metrics: Arc<Metrics>,
    pub api: HttpApi,
    pub db: Arc<Database>,
    pub trigger: ShutdownTrigger,
    pub task: JoinHandle<ShutdownReport>,
}

impl Running {
    pub async fn stop(self) -> ShutdownReport {
        self.trigger.shutdown();
        tokio::time::timeout(Duration::from_secs(30), self.task)
            .await
            .expect("server stops within 30 s")
            .expect("server task")
    }

    pub fn client(&self) -> Client {
        Client::new(self.http)
    }
}

/// A server configuration on ephemeral ports, in memory, adjusted by `tweak`.
pub fn server_config(tweak: impl FnOnce(&mut Layer)) -> Config {
    let mut layer = Layer {
        bolt_listen: Some("127.0.0.1:0".parse().expect("addr")),
        http_listen: Some("127.0.0.1:0".parse().expect("addr")),
        in_memory: Some(true),
        ..Layer::default()
    };
    tweak(&mut layer);
    Config::from_layer(layer).expect("valid test configuration")
}

pub async fn start(config: Config, api_config: ApiConfig) -> Running {
    start_with(config, api_config, None).await
}

/// [`start`] over a store with a commit log of the test's own (what the database waits on).
pub async fn start_with(
    config: Config,
    api_config: ApiConfig,
    commit_log: Option<Arc<dyn CommitLog>>,
) -> Running {
    let storage = Storage::new();
    storage.set_commit_log(commit_log);
    // The node `quiver serve` assembles: the same telemetry, one query pool for both listeners.
    let node = NodeBuilder::new(config)
        .store(Store::Storage(storage))
        .api_config(api_config)
        .build()
        .await
        .expect("node");
    let http = node.http_addr();
    let metrics = Arc::clone(node.metrics());
    let api = node.http_api().expect("the HTTP API").clone();
    let db = Arc::clone(node.database());
    let trigger = node.trigger();
    // Ready from here, as `quiver serve` is once it prints its addresses.
    let run = node.run();
    Running {
        http,
        metrics,
        api,
        db,
        trigger,
        task: tokio::spawn(async move { run.await.report }),
    }
}

pub async fn start_default() -> Running {
    start(server_config(|_| {}), ApiConfig::default()).await
}

/// A parsed HTTP response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Whether the body came chunked (streamed) rather than with a `Content-Length`.
    pub chunked: bool,
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
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("JSON body ({e}): {}", self.text()))
    }

    /// The `errors` array's codes.
    pub fn error_codes(&self) -> Vec<String> {
        self.json()["errors"]
            .as_array()
            .map(|errors| {
                errors
                    .iter()
                    .map(|e| e["code"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// One keep-alive connection.
pub struct Client {
    addr: SocketAddr,
    stream: Option<TcpStream>,
    buffer: Vec<u8>,
    pub headers: Vec<(String, String)>,
}

impl Client {
    pub fn new(addr: SocketAddr) -> Client {
        Client {
            addr,
            stream: None,
            buffer: Vec::new(),
            headers: Vec::new(),
        }
    }

    /// Adds a header to every later request.
    pub fn with_header(mut self, name: &str, value: &str) -> Client {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub async fn post(&mut self, path: &str, body: &str) -> Reply {
        self.send("POST", path, &[("Content-Type", "application/json")], body)
            .await
    }

    pub async fn get(&mut self, path: &str) -> Reply {
        self.send("GET", path, &[], "").await
    }

    pub async fn delete(&mut self, path: &str) -> Reply {
        self.send("DELETE", path, &[], "").await
    }

    pub async fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Reply {
        let mut request = format!("{method} {path} HTTP/1.1\r\nHost: quiver.test:7474\r\n");
        for (name, value) in self
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .chain(headers.iter().copied())
        {
            let _ = write!(request, "{name}: {value}\r\n");
        }
        let _ = write!(request, "Content-Length: {}\r\n\r\n{body}", body.len());
        if self.stream.is_none() {
            self.stream = Some(TcpStream::connect(self.addr).await.expect("connect"));
            self.buffer.clear();
        }
        let stream = self.stream.as_mut().expect("connected");
        stream
            .write_all(request.as_bytes())
            .await
            .expect("write request");
        let reply = read_reply(stream, &mut self.buffer)
            .await
            .expect("a complete reply");
        if reply
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"))
        {
            self.stream = None;
        }
        reply
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

async fn fill(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<()> {
    buffer.reserve(16 * 1024);
    let read = stream.read_buf(buffer).await.ok()?;
    (read > 0).then_some(())
}

/// Reads one response (Content-Length or chunked) from `stream`, keeping leftover bytes in
/// `buffer`.
pub async fn read_reply(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Reply> {
    let head_end = loop {
        if let Some(position) = find(buffer, b"\r\n\r\n") {
            break position;
        }
        fill(stream, buffer).await?;
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    buffer.drain(..head_end + 4);
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.clone())
    };
    let chunked = header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    let mut body = Vec::new();
    if chunked {
        loop {
            let line_end = loop {
                if let Some(position) = find(buffer, b"\r\n") {
                    break position;
                }
                fill(stream, buffer).await?;
            };
            let size_text = String::from_utf8_lossy(&buffer[..line_end]).into_owned();
            let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
            buffer.drain(..line_end + 2);
            while buffer.len() < size + 2 {
                fill(stream, buffer).await?;
            }
            body.extend_from_slice(&buffer[..size]);
            buffer.drain(..size + 2);
            if size == 0 {
                break;
            }
        }
    } else {
        let length: usize = header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        while buffer.len() < length {
            fill(stream, buffer).await?;
        }
        body = buffer.drain(..length).collect();
    }
    Some(Reply {
        status,
        headers,
        body,
        chunked,
    })
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

/// A one-statement transactional body.
pub fn statement(text: &str) -> String {
    serde_json::json!({"statements": [{"statement": text}]}).to_string()
}
