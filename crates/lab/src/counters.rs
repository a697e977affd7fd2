//! The server's own counters, read around every window.
//!
//! A refused connection looks, from the client, like any other network failure; the server's
//! `accepted / rejected / closed` triple is the authority. In process the lab reads the same
//! atomics the server's `/metrics` encodes; against a separate Quiver it reads `GET /stats`
//! on the HTTP listener; a peer server exposes nothing, and the report says so.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Largest `/stats` response read.
const STATS_BYTES_MAX: u64 = 1 << 20;
/// How long a window waits for the server to notice its closed connections.
pub const SETTLE_TIMEOUT: Duration = Duration::from_secs(3);
const SETTLE_POLL: Duration = Duration::from_millis(10);
const STATS_TIMEOUT: Duration = Duration::from_secs(5);

/// One reading of the Bolt and transaction counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerCounters {
    pub accepted: u64,
    pub rejected: u64,
    pub refusals_dropped: u64,
    pub closed: u64,
    pub panics: u64,
    pub timed_out: u64,
    /// Gauges: the value at the reading, not a delta.
    pub active: i64,
    pub in_flight: i64,
    pub messages: u64,
    pub tx_opened: u64,
    pub tx_committed: u64,
    pub tx_rolled_back: u64,
    pub tx_abandoned: u64,
    pub tx_active: i64,
}

impl ServerCounters {
    /// Totals as the difference `self - before`; gauges as read now.
    pub fn since(&self, before: &ServerCounters) -> ServerCounters {
        ServerCounters {
            accepted: self.accepted.saturating_sub(before.accepted),
            rejected: self.rejected.saturating_sub(before.rejected),
            refusals_dropped: self
                .refusals_dropped
                .saturating_sub(before.refusals_dropped),
            closed: self.closed.saturating_sub(before.closed),
            panics: self.panics.saturating_sub(before.panics),
            timed_out: self.timed_out.saturating_sub(before.timed_out),
            active: self.active,
            in_flight: self.in_flight,
            messages: self.messages.saturating_sub(before.messages),
            tx_opened: self.tx_opened.saturating_sub(before.tx_opened),
            tx_committed: self.tx_committed.saturating_sub(before.tx_committed),
            tx_rolled_back: self.tx_rolled_back.saturating_sub(before.tx_rolled_back),
            tx_abandoned: self.tx_abandoned.saturating_sub(before.tx_abandoned),
            tx_active: self.tx_active,
        }
    }

    /// The report's `counters.bolt.server.*` lines, in a fixed order.
    pub fn lines(&self, prefix: &str) -> Vec<(String, String)> {
        let p = |name: &str| format!("{prefix}.{name}");
        vec![
            (p("conn.accepted"), self.accepted.to_string()),
            (p("conn.rejected"), self.rejected.to_string()),
            (p("conn.closed"), self.closed.to_string()),
            (p("conn.panics"), self.panics.to_string()),
            (p("conn.timed_out"), self.timed_out.to_string()),
            (p("messages"), self.messages.to_string()),
        ]
    }

    pub fn tx_lines(&self, prefix: &str) -> Vec<(String, String)> {
        let p = |name: &str| format!("{prefix}.{name}");
        vec![
            (p("tx.opened"), self.tx_opened.to_string()),
            (
                p("tx.closed"),
                (self.tx_committed + self.tx_rolled_back).to_string(),
            ),
            (p("tx.committed"), self.tx_committed.to_string()),
            (p("tx.rolled_back"), self.tx_rolled_back.to_string()),
            (p("tx.abandoned"), self.tx_abandoned.to_string()),
        ]
    }
}

/// Reads the counters of the in-process server.
pub type Reader = Arc<dyn Fn() -> ServerCounters + Send + Sync>;

/// Where the counters come from.
#[derive(Clone)]
pub enum CounterSource {
    InProcess(Reader),
    /// A separate Quiver's HTTP listener (`GET /stats`).
    Http(SocketAddr),
    /// A peer that exposes none.
    Unavailable,
}

impl std::fmt::Debug for CounterSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CounterSource::InProcess(_) => f.write_str("InProcess"),
            CounterSource::Http(addr) => write!(f, "Http({addr})"),
            CounterSource::Unavailable => f.write_str("Unavailable"),
        }
    }
}

impl CounterSource {
    pub async fn read(&self) -> Option<ServerCounters> {
        match self {
            CounterSource::InProcess(read) => Some(read()),
            CounterSource::Http(addr) => tokio::time::timeout(STATS_TIMEOUT, fetch_stats(*addr))
                .await
                .ok()
                .flatten(),
            CounterSource::Unavailable => None,
        }
    }

    pub fn is_available(&self) -> bool {
        !matches!(self, CounterSource::Unavailable)
    }

    /// What changed since `before` once the server is back at `before`'s live connections:
    /// the difference, and whether it got back in time. `None` without either reading.
    pub async fn settled_since(
        &self,
        before: Option<ServerCounters>,
    ) -> Option<(ServerCounters, bool)> {
        let before = before?;
        self.settle(before.active)
            .await
            .map(|(after, settled)| (after.since(&before), settled))
    }

    /// Waits until the server's live connections (`active`) are back at `active_target`,
    /// i.e. it has noticed every connection the window closed. Returns the last reading and
    /// whether it settled.
    pub async fn settle(&self, active_target: i64) -> Option<(ServerCounters, bool)> {
        let deadline = tokio::time::Instant::now() + SETTLE_TIMEOUT;
        loop {
            let now = self.read().await?;
            if now.active <= active_target && now.in_flight <= 0 {
                return Some((now, true));
            }
            if tokio::time::Instant::now() >= deadline {
                return Some((now, false));
            }
            tokio::time::sleep(SETTLE_POLL).await;
        }
    }
}

async fn fetch_stats(addr: SocketAddr) -> Option<ServerCounters> {
    parse_stats_response(&fetch_stats_response(addr).await?)
}

/// The whole HTTP response to `GET /stats` on a separate Quiver's HTTP listener, within the
/// stats timeout; for readers of counters beyond [`ServerCounters`] (TLS handshakes).
pub async fn fetch_stats_response(addr: SocketAddr) -> Option<Vec<u8>> {
    tokio::time::timeout(STATS_TIMEOUT, stats_response(addr))
        .await
        .ok()
        .flatten()
}

async fn stats_response(addr: SocketAddr) -> Option<Vec<u8>> {
    let mut stream = TcpStream::connect(addr).await.ok()?;
    stream
        .write_all(b"GET /stats HTTP/1.1\r\nHost: quiver-lab\r\nConnection: close\r\n\r\n")
        .await
        .ok()?;
    let mut response = Vec::new();
    (&mut stream)
        .take(STATS_BYTES_MAX)
        .read_to_end(&mut response)
        .await
        .ok()?;
    Some(response)
}

/// Parses `/stats` (the server's `MetricsSnapshot` as JSON) out of a whole HTTP response.
pub fn parse_stats_response(response: &[u8]) -> Option<ServerCounters> {
    let split = response.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(response.get(..split)?).ok()?;
    if !head.starts_with("HTTP/1.1 200") && !head.starts_with("HTTP/1.0 200") {
        return None;
    }
    let json: serde_json::Value = serde_json::from_slice(response.get(split + 4..)?).ok()?;
    let u = |section: &str, key: &str| json.get(section)?.get(key)?.as_u64();
    let i = |section: &str, key: &str| json.get(section)?.get(key)?.as_i64();
    Some(ServerCounters {
        accepted: u("bolt", "accepted_total")?,
        rejected: u("bolt", "rejected_total")?,
        refusals_dropped: u("bolt", "refusals_dropped_total").unwrap_or(0),
        closed: u("bolt", "closed_total")?,
        panics: u("bolt", "panics_total").unwrap_or(0),
        timed_out: u("bolt", "timed_out_total").unwrap_or(0),
        active: i("bolt", "active")?,
        in_flight: i("bolt", "in_flight").unwrap_or(0),
        messages: u("bolt", "messages_total").unwrap_or(0),
        tx_opened: u("transactions", "opened_total")?,
        tx_committed: u("transactions", "committed_total")?,
        tx_rolled_back: u("transactions", "rolled_back_total")?,
        tx_abandoned: u("transactions", "abandoned_total")?,
        tx_active: i("transactions", "active").unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_subtract_totals_and_keep_gauges() {
        let before = ServerCounters {
            accepted: 10,
            closed: 9,
            active: 1,
            tx_opened: 5,
            ..ServerCounters::default()
        };
        let after = ServerCounters {
            accepted: 266,
            rejected: 128,
            closed: 265,
            active: 1,
            tx_opened: 5,
            ..ServerCounters::default()
        };
        let d = after.since(&before);
        assert_eq!(
            (d.accepted, d.rejected, d.closed, d.active),
            (256, 128, 256, 1)
        );
        assert_eq!(d.tx_opened, 0);
    }

    #[test]
    fn stats_json_parses() {
        let body = r#"{"bolt":{"accepted_total":4,"rejected_total":1,"refusals_dropped_total":0,
            "closed_total":4,"panics_total":0,"timed_out_total":2,"active":0,"in_flight":0,
            "messages_total":99},"http":{},"transactions":{"opened_total":7,"committed_total":6,
            "rolled_back_total":1,"abandoned_total":0,"active":0},"auth_failures_total":0}"#;
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        let c = parse_stats_response(response.as_bytes()).unwrap();
        assert_eq!(
            (c.accepted, c.rejected, c.timed_out, c.messages),
            (4, 1, 2, 99)
        );
        assert_eq!((c.tx_opened, c.tx_committed, c.tx_rolled_back), (7, 6, 1));
        assert!(parse_stats_response(b"HTTP/1.1 404 Not Found\r\n\r\n{}").is_none());
        assert!(parse_stats_response(b"nonsense").is_none());
    }
}
