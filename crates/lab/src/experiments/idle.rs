//! `--mode idle`: hold N connections after handshake and authentication, doing nothing, and
//! read the server's cost of holding them from the server's side: its resident memory, its
//! live connections, its descriptors and tasks.
//!
//! Once authenticated, each connection is reduced to its bare socket (no buffer, no task and
//! no reactor registration on the client side), so in process the growth of the resident set
//! is the server's, not the lab's.

use super::or_unknown;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::{open_to, per_connection};
use crate::classify::{ErrorCounts, Side};
use crate::client::Dialer;
use crate::counters::ServerCounters;
use crate::target::Target;

#[derive(Clone, Debug, Serialize)]
pub struct IdleReport {
    pub offered: usize,
    pub held: usize,
    pub failed: u64,
    pub errors: ErrorCounts,
    pub client_side_errors: u64,
    pub server_side_errors: u64,
    pub open_elapsed_ns: u64,
    pub hold_ms: u64,
    pub server_rss_before: Option<u64>,
    pub server_rss_held: Option<u64>,
    pub server_rss_per_conn: Option<i64>,
    pub server_fds_held: Option<u64>,
    pub server_tasks_held: Option<u64>,
    pub server_threads_held: Option<u64>,
    pub server_active_held: Option<i64>,
    pub counters: Option<ServerCounters>,
    pub settled: Option<bool>,
}

pub async fn run(
    target: &Target,
    dialer: &Arc<Dialer>,
    offered: usize,
    hold: Duration,
    connect_timeout: Duration,
) -> IdleReport {
    // Warm the allocator and the code paths with a first batch that is then closed, so the
    // reading compares like with like.
    let warm = open_to(target, dialer, offered.min(64), connect_timeout).await;
    for c in warm.connections {
        c.close().await;
    }
    let before_counters = target.counters.settle(0).await.map(|(c, _)| c);
    let before = target.probe.sample();
    let opened = open_to(target, dialer, offered, connect_timeout).await;
    let held: Vec<std::net::TcpStream> = opened
        .connections
        .into_iter()
        .filter_map(|c| c.into_stream().into_std().ok())
        .collect();
    tokio::time::sleep(hold).await;
    let during = target.probe.sample();
    let during_counters = target.counters.read().await;
    let n = held.len();
    drop(held);
    let after = target.counters.settled_since(before_counters).await;
    IdleReport {
        offered,
        held: n,
        failed: opened.errors.total(),
        client_side_errors: opened.errors.by_side(Side::Client),
        server_side_errors: opened.errors.by_side(Side::Server),
        errors: opened.errors,
        open_elapsed_ns: opened.elapsed.as_nanos() as u64,
        hold_ms: hold.as_millis() as u64,
        server_rss_before: before.rss_bytes,
        server_rss_held: during.rss_bytes,
        server_rss_per_conn: per_connection(before.rss_bytes, during.rss_bytes, n),
        server_fds_held: during.open_fds,
        server_tasks_held: during.tasks,
        server_threads_held: during.threads,
        server_active_held: during_counters.map(|c| c.active),
        counters: after.map(|a| a.0),
        settled: after.map(|a| a.1),
    }
}

impl IdleReport {
    pub fn lines(&self) -> Vec<String> {
        let mut lines = super::held_lines(
            "idle",
            self.offered,
            self.held,
            self.failed,
            &self.errors,
            self.client_side_errors,
            self.server_side_errors,
        );
        lines.extend([
            format!(
                "# idle.open_elapsed={}",
                crate::report::fmt_ns(self.open_elapsed_ns)
            ),
            format!("# idle.hold_ms={}", self.hold_ms),
            format!("# server.rss_before={}", or_unknown(self.server_rss_before)),
            format!("# server.rss_held={}", or_unknown(self.server_rss_held)),
            format!(
                "# server.rss_per_idle_conn_bytes={}",
                or_unknown(self.server_rss_per_conn)
            ),
            format!(
                "# server.active_held={}",
                or_unknown(self.server_active_held)
            ),
            format!(
                "# server.open_fds_held={}",
                or_unknown(self.server_fds_held)
            ),
            format!("# server.tasks_held={}", or_unknown(self.server_tasks_held)),
            format!(
                "# server.threads_held={}",
                or_unknown(self.server_threads_held)
            ),
        ]);
        if let Some(c) = &self.counters {
            for (k, v) in c.lines("counters.bolt.server") {
                lines.push(format!("# {k}={v}"));
            }
        }
        if let Some(s) = self.settled {
            lines.push(format!("# counters_settled={s}"));
        }
        lines
    }
}
