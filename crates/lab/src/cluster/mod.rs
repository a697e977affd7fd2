//! `quiver lab --cluster N --rolling-restart | --kill-leader`: a cluster of `quiver serve`
//! members on loopback under routed write load, disrupted on purpose, then checked on every
//! member for each acknowledged write, exactly once.
//!
//! - `--rolling-restart` stops every member in turn with SIGTERM, restarts it, and waits until
//!   it is ready (`/health/ready`) and caught up (applied the leader's commit index) before
//!   the next.
//! - `--kill-leader` kills the current leader with SIGKILL, `--rounds` times, restarting it
//!   as a follower after each failover.
//!
//! With `--cluster-tls` the members speak mutual TLS to one another, with a CA and member
//! certificates the run makes ([`certs`]); the same run without it measures what TLS costs.
//!
//! Every connection is a [`client::writer`]: unique keys at a steady rate, routed the way a
//! `neo4j://` driver routes. Once the load stops, one last write on the leader gives a
//! bookmark later than every acknowledged write, and each member is read at that bookmark.

pub mod certs;
pub mod client;
pub mod members;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::{Duration, Instant};

use quiver_bolt::Request;
use quiver_bolt::message::{AccessMode, RunExtra};
use quiver_value::{Map, Value};
use serde::Serialize;
use tokio::task::JoinSet;

use self::client::{Shared, WriterLog};
use self::members::{Member, MemberSpec};
use crate::args::LabArgs;
use crate::artifacts::{self, html};
use crate::client::{Connection, Dialer};
use crate::error::LabError;
use crate::host::Host;

/// How long the members may take to elect a leader, come back ready, or catch up.
const SETTLE_DEADLINE: Duration = Duration::from_secs(120);
/// Between two looks at a polled condition.
const POLL: Duration = Duration::from_millis(50);
/// Between two samples of the open connections and the leader.
const SAMPLE: Duration = Duration::from_millis(250);
/// After the load stops, how long a writer still retrying may go on before it gives up.
const DRAIN: Duration = Duration::from_secs(20);
/// Starts of a restarted member that exits before it is ready, before the run gives up.
const STARTS_MAX: u32 = 5;
/// Descriptors the lab keeps for itself beyond one per connection.
const FDS_SPARE: u64 = 512;

const CAVEAT: &str = "The members, and the client driving them, are processes on this one host \
and share its cores: reconnect and failover times include waiting for CPU.";

/// Everything a cluster run measured.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ClusterReport {
    pub experiment: String,
    pub members: usize,
    /// Whether the members spoke mutual TLS to one another (`--cluster-tls`).
    pub cluster_tls: bool,
    /// `:Person` nodes seeded before the load (`--seed-target`; 0 without), so that restarts
    /// are timed at that store size.
    pub seeded_nodes: usize,
    pub seeded_relationships: usize,
    pub connections: usize,
    pub source_addrs: usize,
    pub write_interval_ms: u64,
    pub acknowledged: u64,
    pub lost: u64,
    pub duplicates: u64,
    pub never_acknowledged: u64,
    pub already_applied: u64,
    /// Every FAILURE code the writers were answered, and how often.
    pub failures: HashMap<String, u64>,
    /// Failures no retry would change.
    pub unexpected_failures: u64,
    pub clients_resumed: usize,
    pub reconnects: usize,
    pub reconnect_p50_ms: u64,
    pub reconnect_p95_ms: u64,
    pub reconnect_max_ms: u64,
    pub ready_ms: Vec<u64>,
    pub ready_max_ms: u64,
    pub leader_changes: u64,
    pub failover_ms: Vec<u64>,
    pub members_verified: usize,
    /// When the last disruption was over (its member back and caught up), since the start.
    pub disrupted_until_ms: u64,
    pub fd_note: String,
    pub elapsed_ms: u64,
    /// Acknowledged writes per second, second by second since the load began.
    pub writes_per_s: Vec<u64>,
    /// (seconds since the load began, connections open to a writer).
    pub open_connections: Vec<(f64, i64)>,
    /// (seconds since the load began, what happened).
    pub events: Vec<(f64, String)>,
    pub passed: bool,
}

/// `quiver lab --cluster N …`: the whole experiment; whether it passed.
pub fn run(args: &LabArgs) -> Result<bool, LabError> {
    let mut host = Host::probe(CAVEAT);
    let fd_note = crate::procfs::raise_fd_limit(args.connections as u64 + FDS_SPARE);
    let exe = match &args.exe {
        Some(e) => e.clone(),
        None => std::env::current_exe()?,
    };
    let root = std::env::temp_dir().join(format!("quiver-lab-cluster-{}", std::process::id()));
    std::fs::create_dir_all(&root).map_err(|e| LabError::artifact(&root, e))?;
    let outcome = run_in(args, &exe, &root, fd_note);
    let _ = std::fs::remove_dir_all(&root);
    let report = outcome?;
    host.finish();
    emit(args, &host, &report)?;
    Ok(report.passed)
}

fn run_in(
    args: &LabArgs,
    exe: &Path,
    root: &Path,
    fd_note: String,
) -> Result<ClusterReport, LabError> {
    let n = args.cluster.unwrap_or(3);
    let (specs, initial) = members::specs(root, n, args.cluster_tls)?;
    let max_connections = args.connections * 2 + 64;
    let mut running = specs
        .iter()
        .map(|s| Member::start(exe, s, &initial, max_connections))
        .collect::<Result<Vec<_>, _>>()?;
    let threads = args
        .client_threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get));
    let runtime = crate::run::client_runtime(threads)?;
    let mut report = runtime.block_on(drive(args, exe, &specs, &initial, &mut running))?;
    report.fd_note = fd_note;
    for m in &mut running {
        m.terminate();
    }
    Ok(report)
}

/// Polls `check` until it answers `Some`, or fails naming `what` at the deadline.
async fn eventually<T, F: Future<Output = Option<T>>>(
    what: &str,
    mut check: impl FnMut() -> F,
) -> Result<T, LabError> {
    let deadline = Instant::now() + SETTLE_DEADLINE;
    loop {
        if let Some(found) = check().await {
            return Ok(found);
        }
        if Instant::now() > deadline {
            return Err(LabError::Server(format!("timed out waiting for {what}")));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The member that leads and takes writes, among `alive`.
async fn writable_leader(specs: &[MemberSpec], alive: &[bool]) -> Option<usize> {
    for (i, s) in specs.iter().enumerate() {
        if alive[i]
            && members::status(s)
                .await
                .is_some_and(|st| st.writable_leader)
        {
            return Some(i);
        }
    }
    None
}

/// `member` has applied everything the leader had committed when this was asked.
async fn caught_up(specs: &[MemberSpec], member: usize) -> Result<(), LabError> {
    let alive = vec![true; specs.len()];
    let target = eventually("the leader's commit index", || async {
        let l = writable_leader(specs, &alive).await?;
        members::status(&specs[l]).await.map(|s| s.commit_index)
    })
    .await?;
    eventually("the restarted member to catch up", || async {
        members::status(&specs[member])
            .await
            .filter(|s| s.applied_index >= target)
            .map(|_| ())
    })
    .await
}

/// Restarts `member` and waits until it is ready: how long that took from its start.
async fn restart_and_wait(
    exe: &Path,
    specs: &[MemberSpec],
    initial: &str,
    max_connections: usize,
    member: usize,
) -> Result<(Member, Duration), LabError> {
    let started = Instant::now();
    let spec = &specs[member];
    let mut restarted = Member::start(exe, spec, initial, max_connections)?;
    let mut starts = 1;
    let deadline = Instant::now() + SETTLE_DEADLINE;
    while !members::is_ready(spec).await {
        // A fixed port another process holds for a moment (a peer's outgoing connection on
        // it) stops the start: start again, as an orchestrator would.
        if restarted.exited() && starts < STARTS_MAX {
            tokio::time::sleep(Duration::from_millis(500)).await;
            restarted = Member::start(exe, spec, initial, max_connections)?;
            starts += 1;
        }
        if Instant::now() > deadline {
            return Err(LabError::Server(format!(
                "member {} not ready after {starts} starts",
                spec.id
            )));
        }
        tokio::time::sleep(POLL).await;
    }
    let ready = started.elapsed();
    caught_up(specs, member).await?;
    Ok((restarted, ready))
}

/// Puts a restarted member back in its place and records when it was ready, ending the
/// disruption there.
fn welcome_back(
    member: usize,
    (restarted, ready): (Member, Duration),
    running: &mut [Member],
    specs: &[MemberSpec],
    shared: &Shared,
    report: &mut ClusterReport,
    what: &str,
) {
    running[member] = restarted;
    report.ready_ms.push(ready.as_millis() as u64);
    let since = shared.started.elapsed();
    report.events.push((
        since.as_secs_f64(),
        format!("member {} {what}", specs[member].id),
    ));
    report.disrupted_until_ms = since.as_millis() as u64;
}

/// What the run's background sampler saw.
#[derive(Default)]
struct Sampled {
    open: Vec<(f64, i64)>,
    leader_changes: u64,
}

/// Samples the open connections and the leader every [`SAMPLE`] until `stop`.
async fn sample(shared: Arc<Shared>, specs: Vec<MemberSpec>, stop: Arc<AtomicBool>) -> Sampled {
    let mut out = Sampled::default();
    let mut leader = None;
    while !stop.load(Ordering::Relaxed) {
        let t = shared.started.elapsed().as_secs_f64();
        out.open.push((t, shared.open.load(Ordering::Relaxed)));
        for s in &specs {
            if let Some(st) = members::status(s).await
                && let Some(l) = st.leader
            {
                if leader.is_some_and(|old| old != l) {
                    out.leader_changes += 1;
                }
                leader = Some(l);
                break;
            }
        }
        tokio::time::sleep(SAMPLE).await;
    }
    out
}

/// The disruptions, in order: each member restarted (rolling) or each leader killed.
async fn disrupt(
    args: &LabArgs,
    exe: &Path,
    specs: &[MemberSpec],
    initial: &str,
    running: &mut [Member],
    shared: &Shared,
    report: &mut ClusterReport,
) -> Result<Vec<(Duration, usize)>, LabError> {
    let max_connections = args.connections * 2 + 64;
    let settle = Duration::from_millis(args.settle_ms);
    let mut kills = Vec::new();
    let at = |shared: &Shared| shared.started.elapsed().as_secs_f64();
    if args.rolling_restart {
        for i in 0..specs.len() {
            report
                .events
                .push((at(shared), format!("SIGTERM member {}", specs[i].id)));
            let clean = tokio::task::block_in_place(|| running[i].terminate());
            if !clean {
                report.events.push((
                    at(shared),
                    format!("member {} did not exit cleanly", specs[i].id),
                ));
            }
            let back = restart_and_wait(exe, specs, initial, max_connections, i).await?;
            welcome_back(
                i,
                back,
                running,
                specs,
                shared,
                report,
                "ready and caught up",
            );
            tokio::time::sleep(settle).await;
        }
    } else {
        for _ in 0..args.rounds {
            let alive = vec![true; specs.len()];
            let leader = eventually("a writable leader", || writable_leader(specs, &alive)).await?;
            kills.push((shared.started.elapsed(), leader));
            report
                .events
                .push((at(shared), format!("SIGKILL leader {}", specs[leader].id)));
            tokio::task::block_in_place(|| running[leader].kill());
            let mut others = vec![true; specs.len()];
            others[leader] = false;
            eventually("a new writable leader", || writable_leader(specs, &others)).await?;
            let back = restart_and_wait(exe, specs, initial, max_connections, leader).await?;
            welcome_back(
                leader,
                back,
                running,
                specs,
                shared,
                report,
                "back and caught up",
            );
            tokio::time::sleep(settle).await;
        }
    }
    Ok(kills)
}

/// Opens a connection to `member`'s Bolt address.
async fn connect(spec: &MemberSpec) -> Result<Connection, LabError> {
    let failed = |detail: String| LabError::Target {
        target: spec.bolt.to_string(),
        detail,
    };
    let stream = tokio::net::TcpStream::connect(spec.bolt)
        .await
        .map_err(|e| failed(e.to_string()))?;
    Connection::open(stream, None, false)
        .await
        .map_err(|e| failed(e.to_string()))
}

/// One auto-commit query with `bookmarks`: its records and the bookmark it returned.
async fn query(
    spec: &MemberSpec,
    text: &str,
    bookmarks: Vec<String>,
    mode: AccessMode,
) -> Result<(Vec<Vec<Value>>, Option<String>), LabError> {
    let mut conn = connect(spec).await?;
    let out = conn
        .exchange(&[
            Request::Run {
                query: text.to_owned(),
                params: Map::new(),
                extra: RunExtra {
                    bookmarks,
                    mode,
                    ..RunExtra::default()
                },
            },
            Request::Pull { n: -1, qid: -1 },
        ])
        .await
        .map_err(|e| LabError::Target {
            target: spec.bolt.to_string(),
            detail: e.to_string(),
        })?;
    conn.close().await;
    if let Some(Err(e)) = out.summaries.iter().find(|s| s.is_err()) {
        return Err(LabError::Target {
            target: spec.bolt.to_string(),
            detail: format!("{text}: {e}"),
        });
    }
    let bookmark = out.summaries.last().and_then(|s| match s {
        Ok(meta) => match meta.get("bookmark") {
            Some(Value::String(b)) => Some(b.to_string()),
            _ => None,
        },
        Err(_) => None,
    });
    Ok((out.records, bookmark))
}

/// A write on the leader once the load has stopped: its bookmark is later than every
/// acknowledged write's.
async fn fence(specs: &[MemberSpec]) -> Result<String, LabError> {
    let alive = vec![true; specs.len()];
    eventually("a fence write on the leader", || async {
        let l = writable_leader(specs, &alive).await?;
        query(&specs[l], "CREATE (:Fence)", Vec::new(), AccessMode::Write)
            .await
            .ok()?
            .1
    })
    .await
}

/// Reads every member at `bookmark` and counts the acknowledged keys missing on any member
/// (lost) and the keys stored more than once on any member (duplicates).
async fn verify(
    specs: &[MemberSpec],
    bookmark: &str,
    logs: &[WriterLog],
    report: &mut ClusterReport,
) -> Result<(), LabError> {
    let mut lost = std::collections::HashSet::new();
    let mut duplicated = std::collections::HashSet::new();
    for spec in specs {
        let (rows, _) = query(
            spec,
            "MATCH (i:Item) RETURN i.key",
            vec![bookmark.to_owned()],
            AccessMode::Read,
        )
        .await?;
        let mut seen: HashMap<i64, u32> = HashMap::with_capacity(rows.len());
        for key in rows
            .iter()
            .filter_map(|r| r.first().and_then(Value::as_int))
        {
            *seen.entry(key).or_default() += 1;
        }
        duplicated.extend(seen.iter().filter(|(_, c)| **c > 1).map(|(k, _)| *k));
        for ack in logs.iter().flat_map(|l| &l.acked) {
            if !seen.contains_key(&ack.key) {
                lost.insert(ack.key);
            }
        }
        report.members_verified += 1;
    }
    report.lost = lost.len() as u64;
    report.duplicates = duplicated.len() as u64;
    Ok(())
}

/// Starts the load, disrupts, stops the load, verifies.
async fn drive(
    args: &LabArgs,
    exe: &Path,
    specs: &[MemberSpec],
    initial: &str,
    running: &mut [Member],
) -> Result<ClusterReport, LabError> {
    let mut report = ClusterReport {
        experiment: if args.rolling_restart {
            "rolling"
        } else {
            "failover"
        }
        .to_owned(),
        members: specs.len(),
        connections: args.connections,
        source_addrs: args.source_addrs,
        write_interval_ms: args.write_interval_ms,
        cluster_tls: args.cluster_tls,
        ..ClusterReport::default()
    };
    let alive = vec![true; specs.len()];
    let leader = eventually("a writable leader", || writable_leader(specs, &alive)).await?;
    eventually("every member ready", || async {
        for s in specs {
            if !members::is_ready(s).await {
                return None;
            }
        }
        Some(())
    })
    .await?;
    let connect_timeout = Duration::from_millis(args.connect_timeout_ms);
    if args.seed_target {
        // The lab's social graph, written through the leader like any client's data: restarts
        // then load and replay a store of that size.
        let social = crate::run::social_of(args);
        let url = crate::target::parse_url(&format!("bolt://{}", specs[leader].bolt))?;
        let target = crate::target::remote(&url, None, None, false);
        let dialer = Dialer::new(specs[leader].bolt, 1, connect_timeout);
        crate::target::seed_over_wire(&target, &dialer, &social).await?;
        report.seeded_nodes = social.people.len();
        report.seeded_relationships = social.edge_count();
    }
    query(
        &specs[leader],
        "CREATE CONSTRAINT item_key FOR (i:Item) REQUIRE i.key IS UNIQUE",
        Vec::new(),
        AccessMode::Write,
    )
    .await?;
    let shared = Arc::new(Shared {
        members: specs.iter().map(|s| s.bolt).collect(),
        dialers: specs
            .iter()
            .map(|s| Dialer::from_loopback_sources(s.bolt, 2, args.source_addrs, connect_timeout))
            .collect(),
        started: Instant::now(),
        interval: Duration::from_millis(args.write_interval_ms),
        request_timeout: Duration::from_millis(args.request_timeout_ms),
        stop: AtomicBool::new(false),
        give_up: AtomicBool::new(false),
        open: AtomicI64::new(0),
    });
    let sampler_stop = Arc::new(AtomicBool::new(false));
    let sampler = tokio::spawn(sample(
        Arc::clone(&shared),
        specs.to_vec(),
        Arc::clone(&sampler_stop),
    ));
    let mut writers = JoinSet::new();
    for id in 0..args.connections {
        writers.spawn(client::writer(Arc::clone(&shared), id));
    }
    tokio::time::sleep(Duration::from_millis(args.settle_ms)).await;
    let kills = disrupt(args, exe, specs, initial, running, &shared, &mut report).await;
    shared.stop.store(true, Ordering::Relaxed);
    let drain = tokio::time::sleep(DRAIN);
    tokio::pin!(drain);
    let mut logs = Vec::with_capacity(args.connections);
    loop {
        tokio::select! {
            joined = writers.join_next() => match joined {
                Some(Ok(log)) => logs.push(log),
                Some(Err(_)) => logs.push(WriterLog::default()),
                None => break,
            },
            () = &mut drain, if !shared.give_up.load(Ordering::Relaxed) => {
                shared.give_up.store(true, Ordering::Relaxed);
            }
        }
    }
    sampler_stop.store(true, Ordering::Relaxed);
    let sampled = sampler.await.unwrap_or_default();
    let kills = kills?;
    let disrupted_until = Duration::from_millis(report.disrupted_until_ms);
    summarise(&mut report, &logs, &sampled, &kills, disrupted_until);
    let bookmark = fence(specs).await?;
    verify(specs, &bookmark, &logs, &mut report).await?;
    report.passed = report.lost == 0
        && report.duplicates == 0
        && report.clients_resumed == args.connections
        && report.unexpected_failures == 0
        && report.members_verified == specs.len();
    Ok(report)
}

/// The `p`-th percentile (0..=100) of sorted `values`, nearest rank.
fn percentile(sorted: &[u64], p: u64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (sorted.len() as u64 * p).div_ceil(100).max(1) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn summarise(
    report: &mut ClusterReport,
    logs: &[WriterLog],
    sampled: &Sampled,
    kills: &[(Duration, usize)],
    disrupted_until: Duration,
) {
    report.acknowledged = logs.iter().map(|l| l.acked.len() as u64).sum();
    report.never_acknowledged = logs.iter().map(|l| l.never_acknowledged).sum();
    report.already_applied = logs.iter().map(|l| l.already_applied).sum();
    report.unexpected_failures = logs.iter().map(|l| l.unexpected).sum();
    for code in logs.iter().flat_map(|l| &l.failures) {
        *report.failures.entry(code.clone()).or_default() += 1;
    }
    report.clients_resumed = logs
        .iter()
        .filter(|l| l.acked.last().is_some_and(|a| a.at > disrupted_until))
        .count();
    let mut reconnects: Vec<u64> = logs
        .iter()
        .flat_map(|l| l.reconnects.iter().map(|d| d.as_millis() as u64))
        .collect();
    reconnects.sort_unstable();
    report.reconnects = reconnects.len();
    report.reconnect_p50_ms = percentile(&reconnects, 50);
    report.reconnect_p95_ms = percentile(&reconnects, 95);
    report.reconnect_max_ms = reconnects.last().copied().unwrap_or(0);
    report.ready_max_ms = report.ready_ms.iter().copied().max().unwrap_or(0);
    report.leader_changes = sampled.leader_changes;
    report.open_connections.clone_from(&sampled.open);
    let seconds = logs
        .iter()
        .flat_map(|l| l.acked.iter().map(|a| a.at.as_secs() as usize))
        .max()
        .map_or(0, |s| s + 1);
    let mut per_s = vec![0u64; seconds];
    for ack in logs.iter().flat_map(|l| &l.acked) {
        per_s[ack.at.as_secs() as usize] += 1;
    }
    report.writes_per_s = per_s;
    for (at, killed) in kills {
        let first = logs
            .iter()
            .flat_map(|l| &l.acked)
            .filter(|a| a.at > *at && a.member != *killed)
            .map(|a| a.at)
            .min();
        if let Some(first) = first {
            report
                .failover_ms
                .push(first.saturating_sub(*at).as_millis() as u64);
        }
    }
}

/// The report's facts, as `name=value` lines (headline facts bare, the rest after `#`).
pub fn lines(report: &ClusterReport) -> Vec<String> {
    let p = &report.experiment;
    let mut out = vec![
        format!("config.cluster={}", report.members),
        format!("config.cluster_tls={}", report.cluster_tls),
        format!("config.connections={}", report.connections),
        format!("config.seeded_nodes={}", report.seeded_nodes),
        format!(
            "config.seeded_relationships={}",
            report.seeded_relationships
        ),
        format!("config.source_addrs={}", report.source_addrs),
        format!("config.write_interval_ms={}", report.write_interval_ms),
        format!("{p}.acknowledged={}", report.acknowledged),
        format!("{p}.lost={}", report.lost),
        format!("{p}.duplicates={}", report.duplicates),
        format!("{p}.never_acknowledged={}", report.never_acknowledged),
        format!("{p}.clients_resumed={}", report.clients_resumed),
        format!("{p}.reconnect_p50_ms={}", report.reconnect_p50_ms),
        format!("{p}.reconnect_p95_ms={}", report.reconnect_p95_ms),
        format!("{p}.reconnect_max_ms={}", report.reconnect_max_ms),
        format!("{p}.ready_max_ms={}", report.ready_max_ms),
        format!("{p}.leader_changes={}", report.leader_changes),
    ];
    if !report.failover_ms.is_empty() {
        let mut sorted = report.failover_ms.clone();
        sorted.sort_unstable();
        out.push(format!("failover.p50_ms={}", percentile(&sorted, 50)));
        out.push(format!(
            "failover.max_ms={}",
            sorted.last().copied().unwrap_or(0)
        ));
    }
    out.push(format!("# {p}.reconnects={}", report.reconnects));
    out.push(format!("# {p}.already_applied={}", report.already_applied));
    out.push(format!(
        "# {p}.unexpected_failures={}",
        report.unexpected_failures
    ));
    out.push(format!("# {p}.failures={:?}", report.failures));
    out.push(format!(
        "# {p}.members_verified={}",
        report.members_verified
    ));
    out.push(format!("# {p}.ready_ms={:?}", report.ready_ms));
    out.push(format!("# {p}.writes_per_s={:?}", report.writes_per_s));
    out.push(format!("# {}", report.fd_note));
    for (t, e) in &report.events {
        out.push(format!("# at {t:.1}s: {e}"));
    }
    out.push(if report.passed {
        "# verify: every acknowledged write on every member exactly once; every client resumed"
            .to_owned()
    } else {
        "# verify: FAILED".to_owned()
    });
    out
}

/// Prints the facts and, with `--artifact-dir`, writes `metrics.json`, `host.json` and
/// `report.html`.
fn emit(args: &LabArgs, host: &Host, report: &ClusterReport) -> Result<(), LabError> {
    let mut text = lines(report);
    text.push(format!("# host.cores={}", host.cores));
    text.push(format!(
        "# host.loadavg_before={:?} after={:?}",
        host.loadavg_before, host.loadavg_after
    ));
    text.push(format!("# host.idle={} ({})", host.idle, host.idle_note));
    if let Some(dir) = &args.artifact_dir {
        write_artifacts(dir, host, report)?;
    }
    let mut stdout = std::io::stdout().lock();
    for l in text {
        let _ = writeln!(stdout, "{l}");
    }
    let _ = stdout.flush();
    Ok(())
}

fn write_artifacts(dir: &PathBuf, host: &Host, report: &ClusterReport) -> Result<(), LabError> {
    std::fs::create_dir_all(dir).map_err(|e| LabError::artifact(dir, e))?;
    let record = serde_json::json!({
        "schema": crate::rung::SCHEMA,
        "mode": format!("cluster-{}", report.experiment),
        "host": host,
        "cluster": report,
    });
    artifacts::write_json(&dir.join("metrics.json"), &record)?;
    artifacts::write_json(&dir.join("host.json"), host)?;
    artifacts::write_text(&dir.join("report.html"), &page(host, report))
}

/// `report.html`: writes/s and open connections over time, and the facts.
fn page(host: &Host, report: &ClusterReport) -> String {
    let title = format!("quiver lab: cluster {}", report.experiment);
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<!doctype html><html><head><meta charset="utf-8"><title>{0}</title><style>{1}</style></head><body><h1>{0}</h1><p class="note">{2}<br>{3}</p>"#,
        html::escape(&title),
        html::STYLE,
        html::escape(&host.note),
        html::escape(&host.idle_note)
    );
    if !report.passed {
        out.push_str(r#"<p class="fail">Verification FAILED.</p>"#);
    }
    let writes = html::Series {
        name: "writes/s".to_owned(),
        points: report
            .writes_per_s
            .iter()
            .enumerate()
            .map(|(s, w)| (s as f64, *w as f64))
            .collect(),
        dashed: false,
    };
    out.push_str(&html::line_chart(
        "Acknowledged writes per second",
        "seconds",
        "writes/s",
        &[writes],
        false,
        false,
    ));
    let open = html::Series {
        name: "open".to_owned(),
        points: report
            .open_connections
            .iter()
            .map(|(t, n)| (*t, *n as f64))
            .collect(),
        dashed: false,
    };
    out.push_str(&html::line_chart(
        "Connections open to a writer",
        "seconds",
        "connections",
        &[open],
        false,
        false,
    ));
    out.push_str("<table><tr><th>fact</th><th>value</th></tr>");
    for l in lines(report) {
        if let Some((k, v)) = l.split_once('=') {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td></tr>",
                html::escape(k),
                html::escape(v)
            );
        } else {
            let _ = write!(out, r#"<tr><td colspan="2">{}</td></tr>"#, html::escape(&l));
        }
    }
    out.push_str("</table></body></html>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50), 50);
        assert_eq!(percentile(&v, 95), 95);
        assert_eq!(percentile(&[7], 95), 7);
        assert_eq!(percentile(&[], 50), 0);
    }

    #[test]
    fn failover_is_kill_to_first_write_elsewhere() {
        let ack = |key, ms, member| client::Ack {
            key,
            at: Duration::from_millis(ms),
            member,
        };
        let logs = vec![WriterLog {
            acked: vec![ack(1, 100, 0), ack(2, 1_100, 0), ack(3, 2_500, 1)],
            reconnects: vec![Duration::from_millis(40)],
            ..WriterLog::default()
        }];
        let mut report = ClusterReport::default();
        let kills = [(Duration::from_secs(1), 0)];
        summarise(
            &mut report,
            &logs,
            &Sampled::default(),
            &kills,
            Duration::from_secs(2),
        );
        assert_eq!(report.failover_ms, vec![1_500]);
        assert_eq!(report.acknowledged, 3);
        assert_eq!(report.clients_resumed, 1);
        assert_eq!(report.writes_per_s, vec![1, 1, 1]);
        assert_eq!(report.reconnect_max_ms, 40);
    }
}
