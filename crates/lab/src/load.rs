//! One measured window: connections opened, held at the barrier, units fired and checked.
//!
//! Two client dimensions, and only one of them reaches the server's connection limit:
//! - **pooled** (`--connections 0`): `--sessions` concurrent sessions share a pool that opens a
//!   connection only when none is idle, as a driver's pool does; how many sockets that makes
//!   is the pool's business, so this mode cannot drive the server to its limit;
//! - **connection mode** (`--connections N`): exactly N sockets, all held at the
//!   [`Barrier`](crate::barrier::Barrier) until every offered connection has resolved, each then
//!   working through its share of the units with `--sessions` sessions in turn (a RESET between
//!   sessions, as a driver sends when a session hands its connection back).
//!
//! `mixed` is connection mode with two roles: `--writers` and `--readers`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use tokio::sync::Notify;
use tokio::task::JoinSet;

use crate::barrier::{Barrier, Ticket};
use crate::classify::ErrorCounts;
use crate::client::{ClientError, Connection, Credentials, Dialer};
use crate::latency::Latencies;
use crate::sampler::{Probe, Sample};
use crate::workload::{Plan, Role, Unit, UnitKind};

/// How much work a window does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// This many units in all, split evenly over the connections (or sessions).
    Units(u64),
    /// Every connection works until this much time has passed since the barrier opened.
    Time(Duration),
}

/// How the client talks to the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientShape {
    Pooled { sessions: usize, pool_max: usize },
    Connections { connections: usize, sessions: usize },
    Mixed { writers: usize, readers: usize },
}

/// Everything a window needs besides the target.
#[derive(Clone, Debug)]
pub struct WindowSpec {
    pub shape: ClientShape,
    pub budget: Budget,
    pub plan: Plan,
    /// Most time one unit may take; a unit past it counts as a server timeout and its
    /// connection is dropped (it cannot be resynchronised).
    pub request_timeout: Duration,
    /// Most time dialling, handshake and authentication may take together.
    pub connect_timeout: Duration,
    pub credentials: Option<Credentials>,
    pub manifest: bool,
}

/// What one window observed.
#[derive(Clone, Debug, Default)]
pub struct WindowOutcome {
    /// Connection mode: from the first dial until the barrier opened. Pooled: time spent
    /// opening pool connections, summed.
    pub connect_elapsed: Duration,
    /// From the barrier opening to the last unit's end.
    pub elapsed: Duration,
    /// Connection mode only (0 in pooled mode: the pool decides).
    pub conn_offered: u64,
    pub conn_established: u64,
    pub conn_failed: u64,
    /// Connections the pool opened (pooled mode).
    pub pool_opened: u64,
    pub units_owed: u64,
    pub units_ok: u64,
    pub units_failed: u64,
    /// Units never attempted because their connection failed or died.
    pub units_lost: u64,
    pub reads_ok: u64,
    pub writes_ok: u64,
    pub rows_ok: u64,
    pub rows_bad: u64,
    pub latencies: Latencies,
    pub read_latencies: Latencies,
    pub write_latencies: Latencies,
    pub errors: ErrorCounts,
    /// Sampled the moment the barrier opened: every connection live.
    pub at_peak: Sample,
    /// The `server` agent the first connection announced.
    pub server_agent: Option<String>,
}

impl WindowOutcome {
    pub fn throughput(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.units_ok as f64 / secs
        } else {
            0.0
        }
    }

    fn absorb(&mut self, t: TaskTally) {
        self.units_owed += t.owed;
        self.units_ok += t.ok;
        self.units_failed += t.failed;
        self.units_lost += t.lost;
        self.reads_ok += t.reads_ok;
        self.writes_ok += t.writes_ok;
        self.rows_ok += t.rows_ok;
        self.rows_bad += t.rows_bad;
        self.latencies.merge(&t.latencies);
        self.read_latencies.merge(&t.read_latencies);
        self.write_latencies.merge(&t.write_latencies);
        self.errors.merge(&t.errors);
        if self.server_agent.is_none() {
            self.server_agent = t.server_agent;
        }
    }
}

/// One task's share of a window.
#[derive(Debug, Default)]
struct TaskTally {
    owed: u64,
    ok: u64,
    failed: u64,
    lost: u64,
    reads_ok: u64,
    writes_ok: u64,
    rows_ok: u64,
    rows_bad: u64,
    latencies: Latencies,
    read_latencies: Latencies,
    write_latencies: Latencies,
    errors: ErrorCounts,
    established: bool,
    server_agent: Option<String>,
    /// When this task finished its work.
    finished: Option<Instant>,
}

impl TaskTally {
    /// Runs one unit and books it. `Err` means the connection is gone.
    async fn unit(
        &mut self,
        conn: &mut Connection,
        unit: &Unit,
        timeout: Duration,
    ) -> Result<(), ClientError> {
        let t0 = Instant::now();
        let result = tokio::time::timeout(timeout, conn.run_unit(unit))
            .await
            .unwrap_or(Err(ClientError::Timeout {
                stage: crate::classify::Stage::Query,
            }));
        let latency = t0.elapsed();
        let outcome = match result {
            Ok(o) => o,
            Err(e) => {
                self.failed += 1;
                self.errors.add(e.class());
                return Err(e);
            }
        };
        self.rows_ok += outcome.rows_ok;
        self.rows_bad += outcome.rows_bad;
        if let Some(code) = &outcome.failure {
            self.failed += 1;
            self.errors.add(crate::classify::classify_failure(
                crate::classify::Stage::Query,
                code,
            ));
            return Ok(());
        }
        if outcome.rows_bad > 0 {
            self.failed += 1;
            return Ok(());
        }
        self.ok += 1;
        self.latencies.record(latency);
        match unit.kind {
            UnitKind::Read => {
                self.reads_ok += 1;
                self.read_latencies.record(latency);
            }
            UnitKind::Write => {
                self.writes_ok += 1;
                self.write_latencies.record(latency);
            }
        }
        Ok(())
    }
}

/// Dials and authenticates one connection within the connect timeout.
pub async fn open(
    dialer: &Dialer,
    credentials: Option<&Credentials>,
    manifest: bool,
    timeout: Duration,
) -> Result<Connection, ClientError> {
    tokio::time::timeout(timeout, async {
        let stream = dialer.open_stream().await?;
        Connection::open(stream, credentials, manifest).await
    })
    .await
    .unwrap_or(Err(ClientError::Timeout {
        stage: crate::classify::Stage::Connect,
    }))
}

/// Splits `total` units over `parts` as evenly as possible.
pub fn share(total: u64, parts: usize, index: usize) -> u64 {
    let parts = parts.max(1) as u64;
    let index = index as u64;
    total / parts + u64::from(index < total % parts)
}

/// Runs one window against `dialer`'s target. `probe` is sampled when the barrier opens.
pub async fn run_window(spec: &WindowSpec, dialer: &Arc<Dialer>, probe: &Probe) -> WindowOutcome {
    match spec.shape {
        ClientShape::Pooled { sessions, pool_max } => {
            run_pooled(spec, dialer, sessions.max(1), pool_max.max(1)).await
        }
        ClientShape::Connections {
            connections,
            sessions,
        } => {
            let roles = (0..connections)
                .map(|index| Role::Uniform { index })
                .collect();
            run_connections(spec, dialer, probe, roles, sessions.max(1)).await
        }
        ClientShape::Mixed { writers, readers } => {
            let roles = (0..writers)
                .map(|index| Role::Writer { index })
                .chain((0..readers).map(|index| Role::Reader { index }))
                .collect();
            run_connections(spec, dialer, probe, roles, 1).await
        }
    }
}

async fn run_connections(
    spec: &WindowSpec,
    dialer: &Arc<Dialer>,
    probe: &Probe,
    roles: Vec<Role>,
    sessions: usize,
) -> WindowOutcome {
    let offered = roles.len();
    let barrier = Barrier::new(offered);
    let stop = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let mut tasks = JoinSet::new();
    for (index, role) in roles.into_iter().enumerate() {
        let owed = match spec.budget {
            Budget::Units(total) => Some(share(total, offered, index)),
            Budget::Time(_) => None,
        };
        let ticket = barrier.ticket();
        let spec = spec.clone();
        let dialer = Arc::clone(dialer);
        let stop = Arc::clone(&stop);
        tasks.spawn(connection_task(
            spec, dialer, ticket, role, owed, sessions, stop,
        ));
    }
    // The peak: every offered connection resolved, the live ones about to start.
    barrier.wait().await;
    let opened = barrier.released_at().unwrap_or_else(Instant::now);
    let at_peak = probe.sample();
    if let Budget::Time(duration) = spec.budget {
        let stop = Arc::clone(&stop);
        tokio::spawn(async move {
            tokio::time::sleep(duration).await;
            stop.store(true, Ordering::Relaxed);
        });
    }
    let mut outcome = WindowOutcome {
        connect_elapsed: opened.duration_since(t0),
        conn_offered: offered as u64,
        at_peak,
        ..WindowOutcome::default()
    };
    let mut last_finish = opened;
    while let Some(joined) = tasks.join_next().await {
        let Ok(tally) = joined else {
            // A panicked task: its work is unaccounted for, which verification will show.
            outcome.conn_failed += 1;
            continue;
        };
        if tally.established {
            outcome.conn_established += 1;
        } else {
            outcome.conn_failed += 1;
        }
        if let Some(f) = tally.finished {
            last_finish = last_finish.max(f);
        }
        outcome.absorb(tally);
    }
    outcome.elapsed = last_finish.duration_since(opened);
    outcome
}

async fn connection_task(
    spec: WindowSpec,
    dialer: Arc<Dialer>,
    ticket: Ticket,
    role: Role,
    owed: Option<u64>,
    sessions: usize,
    stop: Arc<AtomicBool>,
) -> TaskTally {
    let mut tally = TaskTally {
        owed: owed.unwrap_or(0),
        ..TaskTally::default()
    };
    let mut conn = match open(
        &dialer,
        spec.credentials.as_ref(),
        spec.manifest,
        spec.connect_timeout,
    )
    .await
    {
        Ok(conn) => conn,
        Err(e) => {
            tally.errors.add(e.class());
            tally.lost = tally.owed;
            ticket.fail();
            return tally;
        }
    };
    tally.established = true;
    tally.server_agent = Some(conn.server_agent().to_owned());
    let units = spec.plan.units(role, conn.version());
    ticket.arrive_and_wait().await;
    if units.is_empty() {
        tally.lost = tally.owed;
        tally.finished = Some(Instant::now());
        return tally;
    }
    let mut done = 0u64;
    let mut alive = true;
    'sessions: for session in 0..sessions {
        let session_owed = owed.map(|o| share(o, sessions, session));
        let mut n = 0u64;
        loop {
            match session_owed {
                Some(limit) if n >= limit => break,
                None if stop.load(Ordering::Relaxed) => break 'sessions,
                _ => {}
            }
            let unit = &units[(done as usize) % units.len()];
            if tally
                .unit(&mut conn, unit, spec.request_timeout)
                .await
                .is_err()
            {
                alive = false;
                break 'sessions;
            }
            n += 1;
            done += 1;
        }
        if session + 1 < sessions
            && let Err(e) = conn.reset().await
        {
            tally.errors.add(e.class());
            alive = false;
            break;
        }
    }
    tally.finished = Some(Instant::now());
    if owed.is_some() {
        tally.lost = tally.owed.saturating_sub(tally.ok + tally.failed);
    } else {
        // A time budget owes whatever was attempted.
        tally.owed = tally.ok + tally.failed;
    }
    if alive {
        conn.close().await;
    }
    tally
}

/// The pool of pooled mode: connections are opened on demand and handed back after each unit.
struct Pool {
    idle: Mutex<Vec<Connection>>,
    /// Connections opened over the window.
    opened: AtomicU64,
    /// Connections alive now (idle or lent out).
    live: AtomicU64,
    returned: Notify,
    connect_nanos: AtomicU64,
    max: usize,
}

async fn run_pooled(
    spec: &WindowSpec,
    dialer: &Arc<Dialer>,
    sessions: usize,
    pool_max: usize,
) -> WindowOutcome {
    let pool = Arc::new(Pool {
        idle: Mutex::new(Vec::new()),
        opened: AtomicU64::new(0),
        live: AtomicU64::new(0),
        returned: Notify::new(),
        connect_nanos: AtomicU64::new(0),
        max: pool_max,
    });
    let next = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let total = match spec.budget {
        Budget::Units(total) => Some(total),
        Budget::Time(duration) => {
            let stop = Arc::clone(&stop);
            tokio::spawn(async move {
                tokio::time::sleep(duration).await;
                stop.store(true, Ordering::Relaxed);
            });
            None
        }
    };
    let t0 = Instant::now();
    let mut tasks = JoinSet::new();
    for session in 0..sessions {
        let spec = spec.clone();
        let dialer = Arc::clone(dialer);
        let pool = Arc::clone(&pool);
        let next = Arc::clone(&next);
        let stop = Arc::clone(&stop);
        tasks.spawn(async move {
            let mut tally = TaskTally::default();
            let role = Role::Uniform { index: session };
            let mut units: Option<(quiver_bolt::Version, Vec<Unit>)> = None;
            loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                match total {
                    Some(total) if k >= total => break,
                    None if stop.load(Ordering::Relaxed) => break,
                    _ => {}
                }
                tally.owed += 1;
                let Some(mut conn) = pool.borrow(&spec, &dialer, &mut tally).await else {
                    tally.lost += 1;
                    continue;
                };
                if units.as_ref().is_none_or(|(v, _)| *v != conn.version()) {
                    units = Some((conn.version(), spec.plan.units(role, conn.version())));
                }
                let Some(unit) = units.as_ref().and_then(|(_, u)| u.first()) else {
                    tally.lost += 1;
                    continue;
                };
                if tally
                    .unit(&mut conn, unit, spec.request_timeout)
                    .await
                    .is_ok()
                {
                    pool.give_back(conn);
                } else {
                    pool.live.fetch_sub(1, Ordering::Relaxed);
                    pool.returned.notify_one();
                }
            }
            tally.finished = Some(Instant::now());
            tally
        });
    }
    let mut outcome = WindowOutcome::default();
    let mut last = t0;
    while let Some(joined) = tasks.join_next().await {
        if let Ok(tally) = joined {
            if let Some(f) = tally.finished {
                last = last.max(f);
            }
            outcome.absorb(tally);
        }
    }
    outcome.elapsed = last.duration_since(t0);
    outcome.pool_opened = pool.opened.load(Ordering::Relaxed);
    outcome.connect_elapsed = Duration::from_nanos(pool.connect_nanos.load(Ordering::Relaxed));
    let idle: Vec<Connection> = std::mem::take(&mut *pool.idle.lock());
    for conn in idle {
        conn.close().await;
    }
    outcome
}

impl Pool {
    async fn borrow(
        &self,
        spec: &WindowSpec,
        dialer: &Dialer,
        tally: &mut TaskTally,
    ) -> Option<Connection> {
        // At the cap with none idle: wait for one to come back (or to die, freeing a place).
        loop {
            let returned = self.returned.notified();
            tokio::pin!(returned);
            returned.as_mut().enable();
            if let Some(conn) = self.idle.lock().pop() {
                return Some(conn);
            }
            let live = self.live.load(Ordering::Relaxed);
            if live < self.max as u64
                && self
                    .live
                    .compare_exchange(live, live + 1, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok()
            {
                break;
            }
            if live < self.max as u64 {
                continue;
            }
            returned.await;
        }
        let t0 = Instant::now();
        let opened = open(
            dialer,
            spec.credentials.as_ref(),
            spec.manifest,
            spec.connect_timeout,
        )
        .await;
        self.connect_nanos
            .fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
        match opened {
            Ok(conn) => {
                self.opened.fetch_add(1, Ordering::Relaxed);
                if tally.server_agent.is_none() {
                    tally.server_agent = Some(conn.server_agent().to_owned());
                }
                Some(conn)
            }
            Err(e) => {
                self.live.fetch_sub(1, Ordering::Relaxed);
                self.returned.notify_one();
                tally.errors.add(e.class());
                None
            }
        }
    }

    fn give_back(&self, conn: Connection) {
        self.idle.lock().push(conn);
        self.returned.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_and_differ_by_at_most_one() {
        for (total, parts) in [(2000u64, 4usize), (10, 3), (3, 10), (0, 5), (20000, 1024)] {
            let shares: Vec<u64> = (0..parts).map(|i| share(total, parts, i)).collect();
            assert_eq!(shares.iter().sum::<u64>(), total);
            let (min, max) = (shares.iter().min().unwrap(), shares.iter().max().unwrap());
            assert!(max - min <= 1);
        }
    }
}
