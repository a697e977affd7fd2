//! `--protocol http`: seed 002's four experiments against the HTTP listener.
//!
//! - `load` (throughput): N keep-alive connections each send the count query to the
//!   transactional endpoint, one after another, every answer checked.
//! - `idle`: N connections each make one authenticated request and then hold the socket
//!   doing nothing (the keep-alive ceiling and its memory); `--idle-after` makes that request
//!   a health probe, or none at all (connections that never speak).
//! - `slow`: N requests that each sleep in the server (`apoc.util.sleep`) held in flight at once.
//! - `slowloris`: N clients send a request line and one header, then another header every
//!   `--drip-ms`, never the blank line; the server's header deadline must reclaim them.
//!
//! Every mode reports the seed's three numbers from the server's own HTTP counters (accepted
//! total, active, in flight), read while the experiment holds its connections, and classifies
//! every client error by which side ran out (descriptors, ephemeral ports, memory).
//!
//! The client speaks HTTP/1.1 by hand over raw sockets, as the seed's does: a pooled HTTP client
//! reuses connections faster than they are dialled, so it cannot hold exactly N.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::{DIAL_CONCURRENCY_DEFAULT, or_unknown, per_connection};
use crate::args::IdleAfter;
use crate::classify::{ErrorClass, ErrorCounts, Side, Stage, classify_io};
use crate::client::{Credentials, Dialer};
use crate::latency::{Latencies, Percentiles};
use crate::sampler::Probe;

/// Largest response the client reads whole.
const RESPONSE_BYTES_MAX: usize = 1 << 20;
/// How often the live counters are read while the slow requests are held.
const SAMPLE_INTERVAL: Duration = Duration::from_millis(250);
/// The count query's path and statement (seed 004's transactional endpoint).
const COMMIT_PATH: &str = "/db/neo4j/tx/commit";
/// The request of `--idle-after probe`.
const PROBE_REQUEST: &[u8] = b"GET /health/live HTTP/1.1\r\nHost: quiver-lab\r\n\r\n";

/// Seed 002's three numbers, and two more, from the server's HTTP counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Live {
    /// Every connection ever accepted (only grows).
    pub accepted_total: u64,
    /// Open now: idle keep-alive or busy.
    pub active: i64,
    /// Requests in the service now.
    pub in_flight: i64,
    pub closed_total: u64,
    /// Closed by a deadline (header, keep-alive, body, write stall).
    pub timed_out_total: u64,
}

/// Where the live counters come from.
#[derive(Clone)]
pub enum LiveSource {
    InProcess(Arc<dyn Fn() -> Live + Send + Sync>),
    /// A separate Quiver's `GET /stats`, on the listener under test.
    Stats(SocketAddr),
}

impl LiveSource {
    pub async fn read(&self) -> Option<Live> {
        match self {
            LiveSource::InProcess(read) => Some(read()),
            LiveSource::Stats(addr) => {
                let reply = tokio::time::timeout(
                    Duration::from_secs(5),
                    exchange_once(
                        *addr,
                        "GET /stats HTTP/1.1\r\nHost: quiver-lab\r\nConnection: close\r\n\r\n",
                    ),
                )
                .await
                .ok()?
                .ok()?;
                let json: serde_json::Value = serde_json::from_slice(&reply.body).ok()?;
                let http = json.get("http")?;
                let u = |key: &str| http.get(key).and_then(serde_json::Value::as_u64);
                let i = |key: &str| http.get(key).and_then(serde_json::Value::as_i64);
                Some(Live {
                    accepted_total: u("accepted_total")?,
                    active: i("active")?,
                    in_flight: i("in_flight")?,
                    closed_total: u("closed_total").unwrap_or(0),
                    timed_out_total: u("timed_out_total").unwrap_or(0),
                })
            }
        }
    }
}

/// An HTTP listener to drive.
#[derive(Clone)]
pub struct HttpTarget {
    pub label: String,
    pub addr: SocketAddr,
    /// `Basic …`, when the server authenticates.
    pub authorization: Option<String>,
    pub live: LiveSource,
    pub probe: Probe,
}

impl HttpTarget {
    pub fn authorization_of(credentials: Option<&Credentials>) -> Option<String> {
        credentials.map(|c| {
            let pair = format!("{}:{}", c.principal, c.password);
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            )
        })
    }

    /// A request to the transactional endpoint running `statement`.
    fn commit_request(&self, statement: &str) -> Vec<u8> {
        let body = serde_json::json!({ "statements": [{ "statement": statement }] }).to_string();
        let auth = self
            .authorization
            .as_ref()
            .map_or(String::new(), |value| format!("Authorization: {value}\r\n"));
        format!(
            "POST {COMMIT_PATH} HTTP/1.1\r\nHost: quiver-lab\r\n{auth}Content-Type: application/json\r\nAccept: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    }
}

/// One response, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Vec<u8>,
}

/// Sends `request` on a connection of its own and reads the answer.
async fn exchange_once(addr: SocketAddr, request: &str) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.write_all(request.as_bytes()).await?;
    let mut buffer = Vec::new();
    read_reply(&mut stream, &mut buffer).await
}

fn protocol_error(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned())
}

/// Reads one response (`Content-Length` or chunked) from `stream`; `buffer` carries bytes read
/// past it to the next call.
pub async fn read_reply(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> std::io::Result<Reply> {
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = find(buffer, b"\r\n\r\n") {
            break at;
        }
        if buffer.len() > RESPONSE_BYTES_MAX {
            return Err(protocol_error("response head too large"));
        }
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| protocol_error("no status"))?;
    let header = |name: &str| {
        head.split("\r\n")
            .filter_map(|line| line.split_once(':'))
            .find(|(key, _)| key.trim() == name)
            .map(|(_, value)| value.trim().to_owned())
    };
    buffer.drain(..head_end + 4);
    let body = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        let mut body = Vec::new();
        loop {
            let line_end = loop {
                if let Some(at) = find(buffer, b"\r\n") {
                    break at;
                }
                let read = stream.read(&mut chunk).await?;
                if read == 0 {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                buffer.extend_from_slice(&chunk[..read]);
            };
            let size_text = String::from_utf8_lossy(&buffer[..line_end]).into_owned();
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| protocol_error("bad chunk size"))?;
            while buffer.len() < line_end + 2 + size + 2 {
                let read = stream.read(&mut chunk).await?;
                if read == 0 {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                buffer.extend_from_slice(&chunk[..read]);
            }
            body.extend_from_slice(&buffer[line_end + 2..line_end + 2 + size]);
            buffer.drain(..line_end + 2 + size + 2);
            if size == 0 {
                break body;
            }
            if body.len() > RESPONSE_BYTES_MAX {
                return Err(protocol_error("response too large"));
            }
        }
    } else {
        let length: usize = header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        if length > RESPONSE_BYTES_MAX {
            return Err(protocol_error("response too large"));
        }
        while buffer.len() < length {
            let read = stream.read(&mut chunk).await?;
            if read == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            buffer.extend_from_slice(&chunk[..read]);
        }
        buffer.drain(..length).collect()
    };
    Ok(Reply { status, body })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// An answer to the count query is right when it is a 200 carrying the expected count and no
/// error.
fn count_is(reply: &Reply, expected: i64) -> bool {
    if reply.status != 200 {
        return false;
    }
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(&reply.body) else {
        return false;
    };
    let no_errors = json
        .get("errors")
        .and_then(serde_json::Value::as_array)
        .is_some_and(Vec::is_empty);
    let value = json
        .pointer("/results/0/data/0/row/0")
        .and_then(serde_json::Value::as_i64);
    no_errors && value == Some(expected)
}

fn class_of(stage: Stage, error: &std::io::Error) -> ErrorClass {
    classify_io(stage, error)
}

/// The figures every mode reports.
#[derive(Clone, Debug, Default, Serialize)]
pub struct HttpReport {
    pub mode: String,
    /// `idle`: what each connection did before it was held.
    pub idle_after: Option<&'static str>,
    pub offered: usize,
    /// Connections that did what the mode asks (held, answered, reclaimed).
    pub succeeded: usize,
    pub errors: ErrorCounts,
    pub client_side_errors: u64,
    pub server_side_errors: u64,
    pub live_before: Option<Live>,
    /// While the connections are held (slow: the reading with the most in flight).
    pub live_held: Option<Live>,
    pub live_after: Option<Live>,
    pub server_rss_before: Option<u64>,
    pub server_rss_held: Option<u64>,
    pub server_rss_per_conn: Option<i64>,
    pub server_fds_held: Option<u64>,
    /// load: requests answered and checked, and their rate.
    pub requests_ok: u64,
    pub requests_per_s: Option<f64>,
    /// load: request latency; slowloris: time from connect to the server's close.
    pub latency: Option<Percentiles>,
    pub elapsed_ms: u64,
    /// Which side ran out first, in words.
    pub verdict: String,
}

impl HttpReport {
    fn finish(&mut self) {
        self.client_side_errors = self.errors.by_side(Side::Client);
        self.server_side_errors = self.errors.by_side(Side::Server);
        self.verdict = if self.errors.total() == 0 {
            "nothing ran out".to_owned()
        } else if self.client_side_errors >= self.server_side_errors {
            format!(
                "the client ran out first ({}): not a server ceiling",
                self.errors.summary()
            )
        } else {
            format!("the server gave out ({})", self.errors.summary())
        };
    }

    pub fn lines(&self) -> Vec<String> {
        let m = &self.mode;
        let live = |l: &Option<Live>| {
            l.map_or_else(
                || "unknown".to_owned(),
                |l| {
                    format!(
                        "accepted_total={} active={} in_flight={} timed_out_total={}",
                        l.accepted_total, l.active, l.in_flight, l.timed_out_total
                    )
                },
            )
        };
        let mut lines = vec![format!("http.{m}.offered={}", self.offered)];
        lines.extend(
            self.idle_after
                .map(|after| format!("config.idle_after={after}")),
        );
        lines.extend([
            format!("# http.{m}.succeeded={}", self.succeeded),
            format!("# http.{m}.errors={}", self.errors.summary()),
            format!(
                "# http.{m}.errors_by_side=client:{} server:{}",
                self.client_side_errors, self.server_side_errors
            ),
            format!("# http.{m}.server_before {}", live(&self.live_before)),
            format!("# http.{m}.server_held {}", live(&self.live_held)),
            format!("# http.{m}.server_after {}", live(&self.live_after)),
            format!("# http.{m}.elapsed_ms={}", self.elapsed_ms),
        ]);
        if self.mode == "load" {
            lines.push(format!("# http.load.requests_ok={}", self.requests_ok));
            if let Some(rate) = self.requests_per_s {
                lines.push(format!("# http.load.requests_per_s={rate:.0}"));
            }
        }
        if let Some(p) = &self.latency {
            let f = crate::report::fmt_ns;
            let what = if self.mode == "slowloris" {
                "reclaimed_after"
            } else {
                "latency"
            };
            lines.push(format!(
                "# http.{m}.{what} p50={} p99={} max={}",
                f(p.p50_ns),
                f(p.p99_ns),
                f(p.max_ns)
            ));
        }
        lines.extend([
            format!("# server.rss_before={}", or_unknown(self.server_rss_before)),
            format!("# server.rss_held={}", or_unknown(self.server_rss_held)),
            format!(
                "# server.rss_per_conn_bytes={}",
                or_unknown(self.server_rss_per_conn)
            ),
            format!(
                "# server.open_fds_held={}",
                or_unknown(self.server_fds_held)
            ),
            format!("# http.{m}.verdict={}", self.verdict),
        ]);
        lines
    }
}

/// Opens a connection (at most [`DIAL_CONCURRENCY_DEFAULT`] dialling at once, through `gate`)
/// and has one request answered on it (none, when `request` is empty). The gate covers the
/// dial alone: the slow mode's requests must all be in flight together. The answer must be a
/// 200 holding the count `expected`, or any 200 when `expected` is `None`.
async fn open_answered(
    dialer: &Dialer,
    gate: Arc<Semaphore>,
    request: &[u8],
    expected: Option<i64>,
) -> Result<TcpStream, ErrorClass> {
    let permit = gate.acquire_owned().await;
    let dialed = dialer.dial().await;
    drop(permit);
    let mut stream = dialed.map_err(|e| e.class())?;
    if request.is_empty() {
        return Ok(stream);
    }
    stream
        .write_all(request)
        .await
        .map_err(|e| class_of(Stage::Query, &e))?;
    let mut buffer = Vec::new();
    let reply = read_reply(&mut stream, &mut buffer).await.map_err(|e| {
        match class_of(Stage::Query, &e) {
            ErrorClass::Other if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                ErrorClass::ServerClosed
            }
            class => class,
        }
    })?;
    if reply.status == 503 {
        return Err(ErrorClass::ServerRefusal);
    }
    let answered = match expected {
        Some(expected) => count_is(&reply, expected),
        None => reply.status == 200,
    };
    if !answered {
        return Err(ErrorClass::ServerError);
    }
    Ok(stream)
}

/// `idle`: N keep-alive connections held doing nothing, each after `after`.
pub async fn idle(
    target: &HttpTarget,
    dialer: &Arc<Dialer>,
    offered: usize,
    hold: Duration,
    expected: i64,
    after: IdleAfter,
) -> HttpReport {
    let request = Arc::new(match after {
        IdleAfter::Nothing => Vec::new(),
        IdleAfter::Probe => PROBE_REQUEST.to_vec(),
        IdleAfter::Commit => target.commit_request(crate::workload::COUNT_QUERY),
    });
    let expected = (after == IdleAfter::Commit).then_some(expected);
    // Warm the allocator and code paths with a first batch that is then closed.
    let warm = open_set(dialer, &request, offered.min(64), expected).await;
    drop(warm);
    let mut report = HttpReport {
        mode: "idle".to_owned(),
        idle_after: Some(after.name()),
        offered,
        ..HttpReport::default()
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    report.live_before = target.live.read().await;
    let before = target.probe.sample();
    let started = Instant::now();
    let (held, errors) = open_set(dialer, &request, offered, expected).await;
    report.errors = errors;
    // Into plain sockets: no task, buffer or reactor registration of the lab's while held.
    let held: Vec<std::net::TcpStream> =
        held.into_iter().filter_map(|s| s.into_std().ok()).collect();
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    report.succeeded = held.len();
    tokio::time::sleep(hold).await;
    let during = target.probe.sample();
    report.live_held = target.live.read().await;
    report.server_rss_before = before.rss_bytes;
    report.server_rss_held = during.rss_bytes;
    report.server_rss_per_conn = per_connection(before.rss_bytes, during.rss_bytes, held.len());
    report.server_fds_held = during.open_fds;
    drop(held);
    tokio::time::sleep(Duration::from_millis(500)).await;
    report.live_after = target.live.read().await;
    report.finish();
    report
}

async fn open_set(
    dialer: &Arc<Dialer>,
    request: &Arc<Vec<u8>>,
    n: usize,
    expected: Option<i64>,
) -> (Vec<TcpStream>, ErrorCounts) {
    let gate = Arc::new(Semaphore::new(DIAL_CONCURRENCY_DEFAULT));
    let mut tasks = JoinSet::new();
    for _ in 0..n {
        let (dialer, gate, request) = (Arc::clone(dialer), Arc::clone(&gate), Arc::clone(request));
        tasks.spawn(async move { open_answered(&dialer, gate, &request, expected).await });
    }
    let mut held = Vec::with_capacity(n);
    let mut errors = ErrorCounts::default();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(Ok(stream)) => held.push(stream),
            Ok(Err(class)) => errors.add(class),
            Err(_) => errors.add(ErrorClass::Other),
        }
    }
    (held, errors)
}

/// `load`: N keep-alive connections sending the count query back to back for `duration`.
pub async fn load(
    target: &HttpTarget,
    dialer: &Arc<Dialer>,
    connections: usize,
    duration: Duration,
    expected: i64,
) -> HttpReport {
    let request = Arc::new(target.commit_request(crate::workload::COUNT_QUERY));
    let mut report = HttpReport {
        mode: "load".to_owned(),
        offered: connections,
        ..HttpReport::default()
    };
    report.live_before = target.live.read().await;
    let (streams, errors) = open_set(dialer, &request, connections, Some(expected)).await;
    report.errors = errors;
    report.succeeded = streams.len();
    let started = Instant::now();
    let until = started + duration;
    let mut tasks = JoinSet::new();
    for mut stream in streams {
        let request = Arc::clone(&request);
        tasks.spawn(async move {
            let mut latencies = Latencies::new();
            let mut buffer = Vec::new();
            let mut ok = 0u64;
            while Instant::now() < until {
                let sent = Instant::now();
                if let Err(e) = stream.write_all(&request).await {
                    return (latencies, ok, Some(class_of(Stage::Query, &e)));
                }
                match read_reply(&mut stream, &mut buffer).await {
                    Ok(reply) if count_is(&reply, expected) => {
                        latencies.record(sent.elapsed());
                        ok += 1;
                    }
                    Ok(_) => return (latencies, ok, Some(ErrorClass::ServerError)),
                    Err(e) => return (latencies, ok, Some(class_of(Stage::Query, &e))),
                }
            }
            (latencies, ok, None)
        });
    }
    let mut all = Latencies::new();
    let sampler = sample_peak(target.live.clone(), |l| l.active);
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok((latencies, ok, error)) => {
                all.merge(&latencies);
                report.requests_ok += ok;
                if let Some(class) = error {
                    report.errors.add(class);
                }
            }
            Err(_) => report.errors.add(ErrorClass::Other),
        }
    }
    let elapsed = started.elapsed();
    report.live_held = sampler.stop().await;
    report.elapsed_ms = elapsed.as_millis() as u64;
    report.requests_per_s = Some(report.requests_ok as f64 / elapsed.as_secs_f64().max(1e-9));
    report.latency = Some(all.percentiles());
    tokio::time::sleep(Duration::from_millis(300)).await;
    report.live_after = target.live.read().await;
    report.finish();
    report
}

/// `slow`: N requests sleeping `hold` in the server, all in flight at once.
pub async fn slow(
    target: &HttpTarget,
    dialer: &Arc<Dialer>,
    offered: usize,
    hold: Duration,
) -> HttpReport {
    let statement = format!(
        "CALL apoc.util.sleep({}) RETURN {} AS c",
        hold.as_millis(),
        offered
    );
    let request = Arc::new(target.commit_request(&statement));
    let mut report = HttpReport {
        mode: "slow".to_owned(),
        offered,
        ..HttpReport::default()
    };
    report.live_before = target.live.read().await;
    let before = target.probe.sample();
    let started = Instant::now();
    let sampler = sample_peak(target.live.clone(), |l| l.in_flight);
    let (answered, errors) = open_set(
        dialer,
        &request,
        offered,
        Some(i64::try_from(offered).unwrap_or(i64::MAX)),
    )
    .await;
    report.live_held = sampler.stop().await;
    let during = target.probe.sample();
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    report.errors = errors;
    report.succeeded = answered.len();
    report.server_rss_before = before.rss_bytes;
    report.server_rss_held = during.rss_bytes;
    report.server_fds_held = during.open_fds;
    drop(answered);
    tokio::time::sleep(Duration::from_millis(300)).await;
    report.live_after = target.live.read().await;
    report.finish();
    report
}

/// Reads the live counters every [`SAMPLE_INTERVAL`] and keeps the reading where `key` peaked.
struct PeakSampler {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Option<Live>>,
}

fn sample_peak(source: LiveSource, key: fn(&Live) -> i64) -> PeakSampler {
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let mut peak: Option<Live> = None;
        loop {
            if let Some(now) = source.read().await
                && peak.is_none_or(|p| key(&now) > key(&p))
            {
                peak = Some(now);
            }
            tokio::select! {
                _ = &mut stopped => return peak,
                () = tokio::time::sleep(SAMPLE_INTERVAL) => {}
            }
        }
    });
    PeakSampler { stop, task }
}

impl PeakSampler {
    async fn stop(self) -> Option<Live> {
        let _ = self.stop.send(());
        self.task.await.ok().flatten()
    }
}

/// What happened to one dribbling connection.
enum Fate {
    Reclaimed(Duration),
    Outlasted,
    Failed(ErrorClass),
}

/// `slowloris`: N clients that never finish a request head.
pub async fn slowloris(
    target: &HttpTarget,
    dialer: &Arc<Dialer>,
    offered: usize,
    drip: Duration,
    hold: Duration,
) -> HttpReport {
    let mut report = HttpReport {
        mode: "slowloris".to_owned(),
        offered,
        ..HttpReport::default()
    };
    report.live_before = target.live.read().await;
    let started = Instant::now();
    let until = started + hold;
    let gate = Arc::new(Semaphore::new(DIAL_CONCURRENCY_DEFAULT));
    let sampler = sample_peak(target.live.clone(), |l| l.active);
    let mut tasks = JoinSet::new();
    for _ in 0..offered {
        let (dialer, gate) = (Arc::clone(dialer), Arc::clone(&gate));
        tasks.spawn(async move {
            let permit = gate.acquire_owned().await;
            let mut stream = match dialer.dial().await {
                Ok(stream) => stream,
                Err(e) => return Fate::Failed(e.class()),
            };
            drop(permit);
            dribble(&mut stream, drip, until).await
        });
    }
    let mut after = Latencies::new();
    let mut outlasted = 0usize;
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(Fate::Reclaimed(t)) => {
                report.succeeded += 1;
                after.record(t);
            }
            Ok(Fate::Outlasted) => outlasted += 1,
            Ok(Fate::Failed(class)) => report.errors.add(class),
            Err(_) => report.errors.add(ErrorClass::Other),
        }
    }
    report.live_held = sampler.stop().await;
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    report.latency = (report.succeeded > 0).then(|| after.percentiles());
    tokio::time::sleep(Duration::from_millis(300)).await;
    report.live_after = target.live.read().await;
    report.finish();
    if outlasted > 0 {
        report.verdict = format!(
            "{outlasted} dribbling connections outlasted the experiment: the server has no header deadline shorter than --hold-ms"
        );
    }
    report
}

async fn dribble(stream: &mut TcpStream, drip: Duration, until: Instant) -> Fate {
    let connected = Instant::now();
    let mut sink = [0u8; 256];
    let mut next: &[u8] = b"GET /health/live HTTP/1.1\r\nHost: quiver-lab\r\n";
    let mut round = 0u32;
    loop {
        if let Err(e) = stream.write_all(next).await {
            return match class_of(Stage::Query, &e) {
                ErrorClass::ServerClosed | ErrorClass::Other => {
                    Fate::Reclaimed(connected.elapsed())
                }
                other => Fate::Failed(other),
            };
        }
        next = b"X-Dribble: 1\r\n";
        round += 1;
        let wait = tokio::time::sleep_until(tokio::time::Instant::from_std(
            (Instant::now() + drip).min(until),
        ));
        tokio::select! {
            read = stream.read(&mut sink) => {
                // The server answers a timed-out head with nothing or a 408, then closes.
                return match read {
                    Ok(_) => Fate::Reclaimed(connected.elapsed()),
                    Err(e) => match class_of(Stage::Query, &e) {
                        ErrorClass::ServerClosed | ErrorClass::Other => Fate::Reclaimed(connected.elapsed()),
                        other => Fate::Failed(other),
                    },
                };
            }
            () = wait => {
                if Instant::now() >= until {
                    let _ = round;
                    return Fate::Outlasted;
                }
            }
        }
    }
}
