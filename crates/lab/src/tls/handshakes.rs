//! `--mode handshakes`: how fast a server opens connections. N clients each open a connection
//! (TCP, TLS when the target is `bolt+s`/`bolt+ssc`, the Bolt handshake, HELLO and LOGON), close
//! it politely (GOODBYE) and open the next, until the time is up. The rate is whole openings a
//! second; failures are classified by side like every other client error. Against a separate
//! Quiver whose HTTP address is known, the server's own TLS handshake counters are read around
//! the run, so a handshake the client thought done but the server counted failed shows.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::task::JoinSet;

use crate::classify::{ErrorCounts, Side};
use crate::client::{Credentials, Dialer};
use crate::counters::{CounterSource, fetch_stats_response};
use crate::latency::{Latencies, Percentiles};
use crate::load::open;
use crate::report::fmt_ns;
use crate::target::Target;

/// How a handshake run is shaped.
#[derive(Clone, Debug)]
pub struct HandshakeSpec {
    /// Clients opening connections one after another, at once.
    pub clients: usize,
    pub duration: Duration,
    pub connect_timeout: Duration,
    pub manifest: bool,
    /// Whether the clients resume TLS sessions (the dialler's configuration says; reported).
    pub resumed: bool,
}

/// The server's TLS counters on its Bolt listener, from `GET /stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ServerTlsCounters {
    pub handshakes: u64,
    pub failures: u64,
}

impl ServerTlsCounters {
    fn since(self, before: ServerTlsCounters) -> ServerTlsCounters {
        ServerTlsCounters {
            handshakes: self.handshakes.saturating_sub(before.handshakes),
            failures: self.failures.saturating_sub(before.failures),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct HandshakeReport {
    pub clients: usize,
    pub tls: bool,
    pub resumed: bool,
    pub elapsed_ns: u64,
    /// Connections opened, authenticated and closed.
    pub opened: u64,
    pub failed: u64,
    pub errors: ErrorCounts,
    pub client_side_errors: u64,
    pub server_side_errors: u64,
    pub per_s: f64,
    /// From the first byte of connect to HELLO's (or LOGON's) SUCCESS.
    pub open_latency: Percentiles,
    /// The server's count over the run; `None` when the target's counters cannot be read.
    pub server_tls: Option<ServerTlsCounters>,
}

/// One client's share of the run.
#[derive(Default)]
struct ClientTally {
    opened: u64,
    errors: ErrorCounts,
    latencies: Latencies,
}

async fn client(
    dialer: Arc<Dialer>,
    credentials: Option<Credentials>,
    spec: HandshakeSpec,
    until: Instant,
) -> ClientTally {
    let mut tally = ClientTally::default();
    while Instant::now() < until {
        let started = Instant::now();
        match open(
            &dialer,
            credentials.as_ref(),
            spec.manifest,
            spec.connect_timeout,
        )
        .await
        {
            Ok(conn) => {
                tally.latencies.record(started.elapsed());
                conn.close().await;
                tally.opened += 1;
            }
            Err(e) => {
                tally.errors.add(e.class());
                // A refused or failing server is not hammered in a tight loop.
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
    tally
}

/// The server's Bolt TLS counters, when the target is a separate Quiver with a known HTTP
/// address (the in-process server speaks no TLS).
pub async fn server_tls_counters(target: &Target) -> Option<ServerTlsCounters> {
    let CounterSource::Http(addr) = target.counters else {
        return None;
    };
    parse_tls_counters(&fetch_stats_response(addr).await?)
}

/// Reads `bolt.tls_handshakes_total` and `bolt.tls_handshake_failures_total` from a whole
/// `/stats` response.
pub fn parse_tls_counters(response: &[u8]) -> Option<ServerTlsCounters> {
    let split = response.windows(4).position(|w| w == b"\r\n\r\n")?;
    if !response.starts_with(b"HTTP/1.1 200") {
        return None;
    }
    let json: serde_json::Value = serde_json::from_slice(response.get(split + 4..)?).ok()?;
    let bolt = json.get("bolt")?;
    Some(ServerTlsCounters {
        handshakes: bolt.get("tls_handshakes_total")?.as_u64()?,
        failures: bolt.get("tls_handshake_failures_total")?.as_u64()?,
    })
}

/// Runs `spec.clients` clients against `target` for `spec.duration`.
pub async fn run(target: &Target, dialer: &Arc<Dialer>, spec: &HandshakeSpec) -> HandshakeReport {
    let before = server_tls_counters(target).await;
    let started = Instant::now();
    let until = started + spec.duration;
    let mut tasks = JoinSet::new();
    for _ in 0..spec.clients.max(1) {
        tasks.spawn(client(
            Arc::clone(dialer),
            target.credentials.clone(),
            spec.clone(),
            until,
        ));
    }
    let mut opened = 0;
    let mut errors = ErrorCounts::default();
    let mut latencies = Latencies::new();
    while let Some(done) = tasks.join_next().await {
        if let Ok(tally) = done {
            opened += tally.opened;
            errors.merge(&tally.errors);
            latencies.merge(&tally.latencies);
        }
    }
    let elapsed = started.elapsed();
    // The server counts a handshake when it ends; the last clients' closes may still be on
    // their way, but every handshake finished before its connection was opened.
    let after = server_tls_counters(target).await;
    HandshakeReport {
        clients: spec.clients.max(1),
        tls: dialer.is_tls(),
        resumed: spec.resumed && dialer.is_tls(),
        elapsed_ns: elapsed.as_nanos() as u64,
        opened,
        failed: errors.total(),
        client_side_errors: errors.by_side(Side::Client),
        server_side_errors: errors.by_side(Side::Server),
        errors,
        per_s: opened as f64 / elapsed.as_secs_f64().max(f64::MIN_POSITIVE),
        open_latency: latencies.percentiles(),
        server_tls: before.zip(after).map(|(b, a)| a.since(b)),
    }
}

impl HandshakeReport {
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![
            format!("handshakes.clients={}", self.clients),
            format!("handshakes.tls={}", self.tls),
            format!("handshakes.tls_resumed={}", self.resumed),
            format!("# handshakes.opened={}", self.opened),
            format!("# handshakes.failed={}", self.failed),
            format!("# handshakes.per_s={:.1}", self.per_s),
            format!("# handshakes.elapsed={}", fmt_ns(self.elapsed_ns)),
            format!("# handshakes.errors={}", self.errors.summary()),
            format!(
                "# handshakes.errors_by_side=client:{} server:{}",
                self.client_side_errors, self.server_side_errors
            ),
            format!(
                "# handshakes.open_p50={} p99={} max={}",
                fmt_ns(self.open_latency.p50_ns),
                fmt_ns(self.open_latency.p99_ns),
                fmt_ns(self.open_latency.max_ns)
            ),
        ];
        lines.push(match self.server_tls {
            Some(s) => format!(
                "# server.tls_handshakes={} server.tls_handshake_failures={}",
                s.handshakes, s.failures
            ),
            None => "# server.tls_handshakes=unknown (give --target-http of a separate Quiver)"
                .to_owned(),
        });
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_give_the_tls_counters() {
        let body = r#"{"bolt":{"tls_handshakes_total":12,"tls_handshake_failures_total":1}}"#;
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        assert_eq!(
            parse_tls_counters(response.as_bytes()),
            Some(ServerTlsCounters {
                handshakes: 12,
                failures: 1
            })
        );
        assert_eq!(parse_tls_counters(b"HTTP/1.1 401 No\r\n\r\n{}"), None);
    }
}
