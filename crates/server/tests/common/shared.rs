//! What the server's integration tests and the HTTP API's share (the HTTP API's include this
//! file by its path): a configuration on ephemeral ports, a node run as `quiver serve` runs it,
//! a parsed HTTP reply, and waiting for a condition.

use std::time::Duration;

use quiver_node::Node;
use quiver_server::ShutdownTrigger;
use quiver_server::config::{Config, Layer};
use quiver_server::shutdown::ShutdownReport;
use tokio::task::JoinHandle;

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

/// Runs `node`, ready from here as `quiver serve` is once it prints its addresses: the trigger
/// that stops it, and the task that ends with its shutdown report.
pub fn run(node: Node) -> (ShutdownTrigger, JoinHandle<ShutdownReport>) {
    let trigger = node.trigger();
    let run = node.run();
    (trigger, tokio::spawn(async move { run.await.report }))
}

/// Stops a node [`run`] started: pulls `trigger`, then waits up to 30 s for `task`'s report.
pub async fn stop(trigger: ShutdownTrigger, task: JoinHandle<ShutdownReport>) -> ShutdownReport {
    trigger.shutdown();
    tokio::time::timeout(Duration::from_secs(30), task)
        .await
        .expect("server stops within 30 s")
        .expect("server task")
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
        header(&self.headers, name)
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("JSON body ({e}): {}", self.text()))
    }
}

/// The value of the header `name` (in any case) among `headers`.
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_str())
}

/// A response's head, without the blank line ending it: its status and its headers.
pub fn parse_head(head: &[u8]) -> Option<(u16, Vec<(String, String)>)> {
    let head = String::from_utf8_lossy(head);
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key.trim().to_owned(), value.trim().to_owned()))
        .collect();
    Some((status, headers))
}

/// Where `needle` first stands in `haystack`.
pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
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
