//! `--mode slow`: N queries held in flight at once.
//!
//! Each connection opens a transaction, runs a query with a million-row result and pulls one
//! row: the server now holds an open transaction and a live cursor for it, and owes the rest
//! of the stream. Held that way for `--hold-ms`, then released with RESET. Compared with
//! `idle` at the same N, the difference is what an open query costs the server beyond an open
//! connection — without burning CPU, which would measure the executor instead.

use super::or_unknown;
use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_bolt::message::{Request, TxExtra};
use quiver_value::{Map, Value};
use serde::Serialize;
use tokio::task::JoinSet;

use super::{open_to, per_connection};
use crate::classify::{ErrorClass, ErrorCounts, Side, Stage, classify_failure};
use crate::client::{Connection, Dialer, Summary};
use crate::counters::ServerCounters;
use crate::target::Target;

/// The held query: rows are produced only as they are pulled.
pub const HELD_QUERY: &str = "UNWIND range(1, $rows) AS x RETURN x";
pub const HELD_ROWS: i64 = 1_000_000;

#[derive(Clone, Debug, Serialize)]
pub struct SlowReport {
    pub offered: usize,
    pub held: usize,
    pub failed: u64,
    pub errors: ErrorCounts,
    pub client_side_errors: u64,
    pub server_side_errors: u64,
    pub hold_ms: u64,
    /// One line per second while held: seconds, server active connections, open transactions.
    pub timeline: Vec<(u64, Option<i64>, Option<i64>)>,
    pub server_rss_before: Option<u64>,
    pub server_rss_held: Option<u64>,
    pub server_rss_per_held_query: Option<i64>,
    pub server_tasks_held: Option<u64>,
    pub server_tx_active_held: Option<i64>,
    pub released: usize,
    pub counters: Option<ServerCounters>,
}

async fn hold_one(mut conn: Connection) -> Result<Connection, ErrorClass> {
    let mut params = Map::new();
    params.insert("rows".into(), Value::Int(HELD_ROWS));
    let replies = conn
        .request(&[
            Request::Begin {
                extra: TxExtra::default(),
            },
            Request::Run {
                query: HELD_QUERY.to_owned(),
                params,
                extra: TxExtra::default(),
            },
            Request::Pull { n: 1, qid: -1 },
        ])
        .await
        .map_err(|e| e.class())?;
    for s in &replies.summaries {
        if let Summary::Failure { code } = s {
            return Err(classify_failure(Stage::Query, code));
        }
    }
    let held = replies.records == 1
        && matches!(
            replies.summaries.last(),
            Some(Summary::Success { has_more: true })
        );
    if held {
        Ok(conn)
    } else {
        Err(ErrorClass::Protocol)
    }
}

pub async fn run(
    target: &Target,
    dialer: &Arc<Dialer>,
    offered: usize,
    hold: Duration,
    connect_timeout: Duration,
) -> SlowReport {
    let before_counters = target.counters.settle(0).await.map(|(c, _)| c);
    let before = target.probe.sample();
    let opened = open_to(target, dialer, offered, connect_timeout).await;
    let mut errors = opened.errors;
    let mut tasks = JoinSet::new();
    for conn in opened.connections {
        tasks.spawn(hold_one(conn));
    }
    let mut held = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(Ok(conn)) => held.push(conn),
            Ok(Err(class)) => errors.add(class),
            Err(_) => errors.add(ErrorClass::Other),
        }
    }
    let t0 = Instant::now();
    let mut timeline = Vec::new();
    let mut during = target.probe.sample();
    let mut tx_active;
    loop {
        let c = target.counters.read().await;
        tx_active = c.map(|c| c.tx_active);
        timeline.push((t0.elapsed().as_secs(), c.map(|c| c.active), tx_active));
        let sample = target.probe.sample();
        during = during.max(sample);
        if t0.elapsed() >= hold {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1).min(hold)).await;
    }
    let n = held.len();
    let mut released = 0;
    let mut tasks = JoinSet::new();
    for mut conn in held {
        tasks.spawn(async move {
            let ok = conn.reset().await.is_ok();
            conn.close().await;
            ok
        });
    }
    while let Some(joined) = tasks.join_next().await {
        released += usize::from(matches!(joined, Ok(true)));
    }
    let counters = target
        .counters
        .settled_since(before_counters)
        .await
        .map(|(c, _)| c);
    SlowReport {
        offered,
        held: n,
        failed: errors.total(),
        client_side_errors: errors.by_side(Side::Client),
        server_side_errors: errors.by_side(Side::Server),
        errors,
        hold_ms: hold.as_millis() as u64,
        timeline,
        server_rss_before: before.rss_bytes,
        server_rss_held: during.rss_bytes,
        server_rss_per_held_query: per_connection(before.rss_bytes, during.rss_bytes, n),
        server_tasks_held: during.tasks,
        server_tx_active_held: tx_active,
        released,
        counters,
    }
}

impl SlowReport {
    pub fn lines(&self) -> Vec<String> {
        let mut lines = super::held_lines(
            "slow",
            self.offered,
            self.held,
            self.failed,
            &self.errors,
            self.client_side_errors,
            self.server_side_errors,
        );
        lines.extend([format!("# slow.hold_ms={}", self.hold_ms)]);
        for (t, active, tx) in &self.timeline {
            lines.push(format!(
                "# slow.t={t}s server.active={} server.tx_active={}",
                or_unknown(*active),
                or_unknown(*tx)
            ));
        }
        lines.extend([
            format!("# server.rss_before={}", or_unknown(self.server_rss_before)),
            format!("# server.rss_held={}", or_unknown(self.server_rss_held)),
            format!(
                "# server.rss_per_held_query_bytes={}",
                or_unknown(self.server_rss_per_held_query)
            ),
            format!("# server.tasks_held={}", or_unknown(self.server_tasks_held)),
            format!("# slow.released={}", self.released),
        ]);
        if let Some(c) = &self.counters {
            for (k, v) in c
                .lines("counters.bolt.server")
                .into_iter()
                .chain(c.tx_lines("counters.bolt.server"))
            {
                lines.push(format!("# {k}={v}"));
            }
        }
        lines
    }
}
