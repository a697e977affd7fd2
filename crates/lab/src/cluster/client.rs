//! One routed writer: what a `neo4j://` driver does with a write session, over the lab's lean
//! connection. It asks a router (ROUTE) for the writer, writes there, and on NotALeader,
//! DatabaseUnavailable or a lost connection routes again and retries the same key after a
//! bounded backoff.
//!
//! Every key is unique to its writer, and the cluster holds a uniqueness constraint on it, so
//! a retry of a write that had in fact been applied fails with ConstraintValidationFailed
//! instead of writing twice: that answer means "already applied" and counts as acknowledged.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::{Duration, Instant};

use quiver_bolt::Request;
use quiver_bolt::message::{AccessMode, RouteExtra, RunExtra};
use quiver_value::{Map, Value};

use crate::client::{ClientError, Connection, Dialer};

/// The write every connection repeats, one new key each time.
pub const WRITE_QUERY: &str = "CREATE (:Item {key: $k})";
/// Keys of writer `w` are `w * KEYS_PER_WRITER + seq`.
pub const KEYS_PER_WRITER: i64 = 1_000_000_000;
/// First pause after a failed attempt; it doubles per failure up to [`BACKOFF_MAX`].
const BACKOFF_FIRST: Duration = Duration::from_millis(50);
/// Longest pause between two attempts: a driver's retry stays bounded.
const BACKOFF_MAX: Duration = Duration::from_secs(2);

const NOT_A_LEADER: &str = "Neo.ClientError.Cluster.NotALeader";
const CONSTRAINT_FAILED: &str = "Neo.ClientError.Schema.ConstraintValidationFailed";

/// What every writer shares with the run.
#[derive(Debug)]
pub struct Shared {
    /// Every member's Bolt address, member `i` at index `i`.
    pub members: Vec<SocketAddr>,
    /// One dialer per member, each rotating over the source addresses.
    pub dialers: Vec<Dialer>,
    pub started: Instant,
    pub interval: Duration,
    pub request_timeout: Duration,
    /// Set when the load stops; a writer still retrying keeps at it until `give_up`.
    pub stop: AtomicBool,
    pub give_up: AtomicBool,
    /// Connections open to a writer now.
    pub open: AtomicI64,
}

/// What one writer did.
#[derive(Debug, Default)]
pub struct WriterLog {
    /// Acknowledged keys, with when (since the start) and on which member.
    pub acked: Vec<Ack>,
    /// Keys tried whose outcome the writer never learned.
    pub never_acknowledged: u64,
    /// From the first failure of an interruption to the next acknowledged write.
    pub reconnects: Vec<Duration>,
    /// Retries answered "already applied".
    pub already_applied: u64,
    /// Every FAILURE code answered, retried or not.
    pub failures: Vec<String>,
    /// Failures no retry would change (a client error other than the routing answer).
    pub unexpected: u64,
}

#[derive(Clone, Copy, Debug)]
pub struct Ack {
    pub key: i64,
    pub at: Duration,
    pub member: usize,
}

/// How one attempt ended.
enum Attempt {
    Acked,
    /// The key was applied by an earlier attempt.
    AlreadyApplied,
    /// Route again and retry: not the leader, unavailable, or the connection is gone.
    Reroute,
    /// Route again and retry after a FAILURE with this code.
    Failed(String),
    /// A failure no retry will change.
    Unexpected(String),
}

/// Writes until the run stops; returns what it did.
pub async fn writer(shared: Arc<Shared>, id: usize) -> WriterLog {
    let mut log = WriterLog::default();
    let mut seq: i64 = 0;
    let mut conn: Option<(Connection, usize)> = None;
    let mut backoff = BACKOFF_FIRST;
    // Spread the writers over one interval so the load is steady rather than in waves: each
    // keeps its own phase from here on.
    let offset = shared.interval.mul_f64((id % 997) as f64 / 997.0);
    tokio::time::sleep(offset).await;
    let mut next_at = Instant::now();
    while !shared.stop.load(Ordering::Relaxed) {
        seq += 1;
        let key = id as i64 * KEYS_PER_WRITER + seq;
        let mut tries = 0u32;
        let mut interrupted: Option<Instant> = None;
        loop {
            if tries > 0 && shared.give_up.load(Ordering::Relaxed) {
                log.never_acknowledged += 1;
                close(&shared, conn.take()).await;
                return log;
            }
            if conn.is_none() {
                conn = connect_to_writer(&shared, id).await;
                if conn.is_some() {
                    shared.open.fetch_add(1, Ordering::Relaxed);
                }
            }
            let outcome = match conn.as_mut() {
                Some((c, _)) => attempt(c, key, tries > 0, shared.request_timeout).await,
                None => Attempt::Reroute,
            };
            match outcome {
                Attempt::Acked | Attempt::AlreadyApplied => {
                    if matches!(outcome, Attempt::AlreadyApplied) {
                        log.already_applied += 1;
                    }
                    let member = conn.as_ref().map_or(usize::MAX, |(_, m)| *m);
                    log.acked.push(Ack {
                        key,
                        at: shared.started.elapsed(),
                        member,
                    });
                    if let Some(since) = interrupted {
                        log.reconnects.push(since.elapsed());
                    }
                    backoff = BACKOFF_FIRST;
                    break;
                }
                Attempt::Reroute => {
                    interrupted.get_or_insert_with(Instant::now);
                    close(&shared, conn.take()).await;
                }
                Attempt::Failed(code) => {
                    interrupted.get_or_insert_with(Instant::now);
                    log.failures.push(code);
                    close(&shared, conn.take()).await;
                }
                Attempt::Unexpected(code) => {
                    interrupted.get_or_insert_with(Instant::now);
                    log.failures.push(code);
                    log.unexpected += 1;
                    close(&shared, conn.take()).await;
                }
            }
            tries += 1;
            tokio::time::sleep(jittered(backoff)).await;
            backoff = (backoff * 2).min(BACKOFF_MAX);
        }
        next_at += shared.interval;
        let now = Instant::now();
        if next_at < now {
            next_at = now;
        }
        tokio::time::sleep_until(next_at.into()).await;
    }
    close(&shared, conn.take()).await;
    log
}

/// Between half and all of `backoff`, so retries after one outage do not arrive together.
fn jittered(backoff: Duration) -> Duration {
    backoff.mul_f64(0.5 + rand::random::<f64>() * 0.5)
}

async fn close(shared: &Shared, conn: Option<(Connection, usize)>) {
    if let Some((c, _)) = conn {
        shared.open.fetch_sub(1, Ordering::Relaxed);
        // A dead connection's GOODBYE may hang on a full buffer: bounded like any request.
        let _ = tokio::time::timeout(Duration::from_secs(1), c.close()).await;
    }
}

/// One write of `key`. On a retry, a constraint violation means an earlier attempt applied it.
async fn attempt(conn: &mut Connection, key: i64, retry: bool, timeout: Duration) -> Attempt {
    let params: Map = [(Arc::from("k"), Value::Int(key))].into_iter().collect();
    let requests = [
        Request::Run {
            query: WRITE_QUERY.to_owned(),
            params,
            extra: RunExtra {
                mode: AccessMode::Write,
                ..RunExtra::default()
            },
        },
        Request::Pull { n: -1, qid: -1 },
    ];
    let Ok(Ok(out)) = tokio::time::timeout(timeout, conn.exchange(&requests)).await else {
        return Attempt::Reroute;
    };
    match (out.summaries.first(), out.summaries.get(1)) {
        (Some(Ok(_)), Some(Ok(_))) => Attempt::Acked,
        (Some(Err(ClientError::Failure { code, .. })), _)
        | (_, Some(Err(ClientError::Failure { code, .. }))) => {
            if code == CONSTRAINT_FAILED && retry {
                Attempt::AlreadyApplied
            } else if code == NOT_A_LEADER
                || code.starts_with("Neo.TransientError.")
                || code.starts_with("Neo.DatabaseError.")
            {
                // A database error at commit (a leader stepping down) leaves the outcome
                // unknown: the retry settles it, the constraint keeping it from applying twice.
                Attempt::Failed(code.clone())
            } else {
                Attempt::Unexpected(code.clone())
            }
        }
        _ => Attempt::Reroute,
    }
}

/// Asks the routers in turn (starting from one of its own) for the writer, and opens a
/// connection there.
async fn connect_to_writer(shared: &Shared, id: usize) -> Option<(Connection, usize)> {
    let n = shared.members.len();
    for k in 0..n {
        let router = (id + k) % n;
        let Some(writer) = ask_writer(shared, router).await else {
            continue;
        };
        if let Some(conn) = open(shared, writer).await {
            return Some((conn, writer));
        }
    }
    None
}

async fn open(shared: &Shared, member: usize) -> Option<Connection> {
    let dialer = &shared.dialers[member];
    let opened = async {
        let stream = dialer.dial().await.ok()?;
        Connection::open(stream, None, false).await.ok()
    };
    tokio::time::timeout(shared.request_timeout, opened)
        .await
        .ok()
        .flatten()
}

/// The member a router names as WRITE, as an index into the members.
async fn ask_writer(shared: &Shared, router: usize) -> Option<usize> {
    let mut conn = open(shared, router).await?;
    let address = shared.members[router].to_string();
    let routing: Map = [(Arc::from("address"), Value::from(address))]
        .into_iter()
        .collect();
    let request = [Request::Route {
        routing,
        bookmarks: Vec::new(),
        extra: RouteExtra::default(),
    }];
    let out = tokio::time::timeout(shared.request_timeout, conn.exchange(&request)).await;
    let _ = tokio::time::timeout(Duration::from_secs(1), conn.close()).await;
    let Ok(Ok(out)) = out else { return None };
    let Some(Ok(meta)) = out.summaries.first() else {
        return None;
    };
    let Some(Value::Map(rt)) = meta.get("rt") else {
        return None;
    };
    let servers = rt.get("servers").and_then(Value::as_list)?;
    let writer = servers.iter().find_map(|s| {
        let Value::Map(s) = s else { return None };
        (s.get("role") == Some(&Value::from("WRITE")))
            .then(|| s.get("addresses").and_then(Value::as_list))
            .flatten()
            .and_then(|a| a.first().cloned())
    })?;
    let Value::String(writer) = writer else {
        return None;
    };
    shared
        .members
        .iter()
        .position(|m| m.to_string() == writer.as_ref())
}
