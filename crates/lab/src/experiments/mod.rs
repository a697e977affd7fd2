//! Connection experiments: what does it cost the server to hold connections that do nothing
//! (`idle`), queries that stay open (`slow`), and clients that never finish the handshake
//! (`slowloris`) — and which side runs out first.
//!
//! Every client error is classified by which side ran out (see [`crate::classify`]), and every
//! mode reads the server's own counters before and after, so a client that hit its own wall
//! (descriptors, ephemeral ports) is never reported as a server ceiling.

pub mod http;
pub mod idle;
pub mod slow;
pub mod slowloris;

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::classify::ErrorCounts;
use crate::client::{Connection, Credentials, Dialer};
use crate::load::open;
use crate::target::Target;

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

/// `n` connections to `target` with its credentials, dialled at the default concurrency.
pub async fn open_to(
    target: &Target,
    dialer: &Arc<Dialer>,
    n: usize,
    connect_timeout: Duration,
) -> Opened {
    let credentials = target.credentials.as_ref();
    open_many(
        dialer,
        n,
        credentials,
        connect_timeout,
        DIAL_CONCURRENCY_DEFAULT,
    )
    .await
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

/// Descriptors kept free for everything else a lab process opens (the runtime, `/proc` reads,
/// the counters' connections).
pub const FDS_SPARE: u64 = 256;

/// How many connections this host lets the lab hold at once, and what bounds it.
#[derive(Clone, Debug)]
pub struct Ceiling {
    pub offered: usize,
    /// What the experiment will open: `offered`, or less when the host cannot hold that many.
    pub reachable: usize,
    /// The descriptor limit and ephemeral ports, in words.
    pub note: String,
}

impl Ceiling {
    /// The ceiling for holding `offered` connections from `source_addrs` loopback addresses.
    /// The soft descriptor limit is raised to the hard one first; in process each connection
    /// costs two descriptors (the lab's end and the server's), against a separate server one.
    /// Each source address has its own ephemeral ports towards the one server address.
    pub fn of(offered: usize, in_process: bool, source_addrs: usize) -> Ceiling {
        let per_connection: u64 = if in_process { 2 } else { 1 };
        let needed = offered as u64 * per_connection + FDS_SPARE;
        let fd_note = crate::procfs::raise_fd_limit(needed);
        let by_fds = crate::procfs::fd_limits().map(|(soft, _)| {
            usize::try_from(soft.saturating_sub(FDS_SPARE) / per_connection).unwrap_or(usize::MAX)
        });
        let ports = crate::procfs::sysctl("/proc/sys/net/ipv4/ip_local_port_range")
            .and_then(|range| ephemeral_port_count(&range));
        let by_ports = ports.map(|p| p.saturating_mul(source_addrs.max(1)));
        let reachable = [Some(offered), by_fds, by_ports]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(offered);
        let mut note = format!(
            "{fd_note}; {} per connection{}",
            per_connection,
            if in_process { " in process" } else { "" }
        );
        if let Some(p) = ports {
            let _ = write!(
                note,
                "; {p} ephemeral ports x {} source addresses",
                source_addrs.max(1)
            );
        }
        if reachable < offered {
            let bound = if by_fds == Some(reachable) {
                "the descriptor limit"
            } else {
                "the ephemeral ports"
            };
            let _ = write!(
                note,
                "; {bound} allows {reachable} of the {offered} offered: holding {reachable}"
            );
        }
        Ceiling {
            offered,
            reachable,
            note,
        }
    }

    pub fn line(&self) -> String {
        format!(
            "# ceiling.reachable={} offered={} ({})",
            self.reachable, self.offered, self.note
        )
    }
}

/// Ports in `ip_local_port_range`'s "first last".
fn ephemeral_port_count(range: &str) -> Option<usize> {
    let mut bounds = range.split_whitespace().map(str::parse::<usize>);
    let (first, last) = (bounds.next()?.ok()?, bounds.next()?.ok()?);
    (last >= first).then(|| last - first + 1)
}

/// Bytes per connection, or `None` when either reading is missing or nothing was held.
pub fn per_connection(before: Option<u64>, after: Option<u64>, held: usize) -> Option<i64> {
    let (before, after) = (before?, after?);
    (held > 0).then(|| (after as i64 - before as i64) / held as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_ranges_parse() {
        assert_eq!(ephemeral_port_count("32768\t60999"), Some(28_232));
        assert_eq!(ephemeral_port_count("1024 1024"), Some(1));
        assert_eq!(ephemeral_port_count("9 1"), None);
        assert_eq!(ephemeral_port_count("nonsense"), None);
    }

    #[test]
    fn a_ceiling_never_exceeds_what_was_offered() {
        let ceiling = Ceiling::of(10, false, 1);
        assert_eq!(ceiling.reachable, 10);
        assert!(ceiling.line().contains("offered=10"));
    }
}
