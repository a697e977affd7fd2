//! Connection experiments: what does it cost the server to hold connections that do nothing
//! (`idle`), queries that stay open (`slow`), and clients that never finish the handshake
//! (`slowloris`) — and which side runs out first.
//!
//! Every client error is classified by which side ran out (see [`crate::classify`]), and every
//! mode reads the server's own counters before and after, so a client that hit its own wall
//! (descriptors, ephemeral ports) is never reported as a server ceiling.

pub mod idle;
pub mod slow;
pub mod slowloris;

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::classify::ErrorCounts;
use crate::client::{Connection, Credentials, Dialer};
use crate::load::open;

/// Connections dialled at once: enough to open thousands quickly, few enough not to overflow
/// the accept queue and turn a measurement of holding into one of the backlog.
pub const DIAL_CONCURRENCY_DEFAULT: usize = 256;

/// A figure the lab could not read (an unknown server, no `/proc` access) prints as `unknown`.
fn or_unknown<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "unknown".to_owned(), |value| value.to_string())
}

/// The report lines the modes that hold opened connections share: what was offered, held and
/// failed, and which side each error came from.
fn held_lines(
    mode: &str,
    offered: usize,
    held: usize,
    failed: u64,
    errors: &ErrorCounts,
    client_side_errors: u64,
    server_side_errors: u64,
) -> Vec<String> {
    vec![
        format!("{mode}.offered={offered}"),
        format!("# {mode}.held={held}"),
        format!("# {mode}.failed={failed}"),
        format!("# {mode}.errors={}", errors.summary()),
        format!("# {mode}.errors_by_side=client:{client_side_errors} server:{server_side_errors}"),
    ]
}

/// N authenticated connections, opened with bounded concurrency.
pub struct Opened {
    pub connections: Vec<Connection>,
    pub errors: ErrorCounts,
    pub elapsed: Duration,
}

pub async fn open_many(
    dialer: &Arc<Dialer>,
    n: usize,
    credentials: Option<&Credentials>,
    connect_timeout: Duration,
    concurrency: usize,
) -> Opened {
    let t0 = Instant::now();
    let gate = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut tasks = JoinSet::new();
    for _ in 0..n {
        let dialer = Arc::clone(dialer);
        let gate = Arc::clone(&gate);
        let credentials = credentials.cloned();
        tasks.spawn(async move {
            let _permit = gate.acquire_owned().await;
            open(&dialer, credentials.as_ref(), false, connect_timeout).await
        });
    }
    let mut connections = Vec::with_capacity(n);
    let mut errors = ErrorCounts::default();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(Ok(conn)) => connections.push(conn),
            Ok(Err(e)) => errors.add(e.class()),
            Err(_) => errors.add(crate::classify::ErrorClass::Other),
        }
    }
    Opened {
        connections,
        errors,
        elapsed: t0.elapsed(),
    }
}

/// Bytes per connection, or `None` when either reading is missing or nothing was held.
pub fn per_connection(before: Option<u64>, after: Option<u64>, held: usize) -> Option<i64> {
    let (before, after) = (before?, after?);
    (held > 0).then(|| (after as i64 - before as i64) / held as i64)
}
