//! Starts a real Quiver server with the HTTP API on 127.0.0.1:0 and speaks raw HTTP/1.1 to it.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;

use quiver_engine::Database;
use quiver_http::{ApiConfig, HttpApi};
use quiver_node::{NodeBuilder, Store};
use quiver_server::ShutdownTrigger;
use quiver_server::config::Config;
use quiver_server::metrics::Metrics;
use quiver_server::shutdown::ShutdownReport;
use quiver_storage::{CommitLog, Storage};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

#[path = "../../../server/tests/common/shared.rs"]
mod shared;

pub use shared::{Reply, config as server_config, eventually};
use shared::{find, header, parse_head};

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
        shared::stop(self.trigger, self.task).await
    }

    pub fn client(&self) -> Client {
        Client::new(self.http)
    }
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
    let (trigger, task) = shared::run(node);
    Running {
        http,
        metrics,
        api,
        db,
        trigger,
        task,
    }
}

/// A server with the default configuration and the HTTP API configured by `api_config`.
pub async fn start_api(api_config: ApiConfig) -> Running {
    start(server_config(|_| {}), api_config).await
}

/// A server with the default configuration over a store whose commit log is `log`, and the
/// log, for the test to steer.
pub async fn start_logging_to<L: CommitLog + 'static>(log: L) -> (Running, Arc<L>) {
    let log = Arc::new(log);
    let commit_log = Arc::clone(&log) as Arc<dyn CommitLog>;
    let server = start_with(
        server_config(|_| {}),
        ApiConfig::default(),
        Some(commit_log),
    )
    .await;
    (server, log)
}

pub async fn start_default() -> Running {
    start(server_config(|_| {}), ApiConfig::default()).await
}

/// What the API's tests read from a reply, besides what every reply has.
impl Reply {
    /// The first row of the first result, in the transactional API's format.
    pub fn first_row(&self) -> serde_json::Value {
        self.json()["results"][0]["data"][0]["row"].clone()
    }

    /// The rows of a Query API answer.
    pub fn values(&self) -> serde_json::Value {
        self.json()["data"]["values"].clone()
    }

    /// The bookmark of the commit the reply reports.
    pub fn bookmark(&self) -> String {
        self.json()["lastBookmarks"][0]
            .as_str()
            .expect("bookmark")
            .to_owned()
    }

    /// Asserts the reply's status, and that its errors are one, with `code`.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(self.status, status, "{}", self.text());
        self.assert_error_code(code);
    }

    /// Asserts that the reply's errors are one, with `code`.
    #[track_caller]
    pub fn assert_error_code(&self, code: &str) {
        assert_eq!(self.error_codes(), [code], "{}", self.text());
    }

    /// The id of the Query API transaction the reply names.
    pub fn query_tx_id(&self) -> String {
        self.json()["transaction"]["id"]
            .as_str()
            .expect("an id")
            .to_owned()
    }

    /// The path of the transaction a `201 Created` names in its `Location`.
    pub fn tx_path(&self) -> String {
        self.header("location")
            .expect("Location")
            .trim_start_matches("http://quiver.test:7474")
            .to_owned()
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

    /// Posts `body` to `path` as JSON, with `headers` besides the content type.
    pub async fn post_with(&mut self, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        let mut all = vec![("Content-Type", "application/json")];
        all.extend_from_slice(headers);
        self.send("POST", path, &all, body).await
    }

    /// Posts a one-statement transactional body with `query` to `path`: a transaction's
    /// begin, next statements or commit.
    pub async fn run_at(&mut self, path: &str, query: &str) -> Reply {
        self.post(path, &statement(query)).await
    }

    /// Runs `query` in a one-shot transaction of the transactional API.
    pub async fn commit(&mut self, query: &str) -> Reply {
        self.post("/db/neo4j/tx/commit", &statement(query)).await
    }

    /// [`Client::commit`] with `headers` besides the JSON content type.
    pub async fn commit_with(&mut self, headers: &[(&str, &str)], query: &str) -> Reply {
        self.post_with("/db/neo4j/tx/commit", headers, &statement(query))
            .await
    }

    /// Runs `query` in a one-shot transaction of Query API v2.
    pub async fn query_v2(&mut self, query: &str) -> Reply {
        self.post("/db/neo4j/query/v2", &query_body(query)).await
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
    let (status, headers) = parse_head(&buffer[..head_end])?;
    buffer.drain(..head_end + 4);
    let chunked =
        header(&headers, "transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
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
        let length: usize = header(&headers, "content-length")
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

/// A one-statement transactional body.
pub fn statement(text: &str) -> String {
    serde_json::json!({"statements": [{"statement": text}]}).to_string()
}

/// A Query API body with one statement.
pub fn query_body(text: &str) -> String {
    serde_json::json!({ "statement": text }).to_string()
}
