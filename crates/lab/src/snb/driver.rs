//! The driver: the Interactive mix scheduled as LDBC's driver schedules it, run over Bolt.
//!
//! - **Updates** come from the update stream in the order they are due. An update due at
//!   simulation time `t` is started at `(t − start) × tcr` of wall time after the run starts
//!   (the time compression ratio: 0.001 runs a simulated day in 86.4 s). An update does not
//!   start before every earlier update it depends on (every one due at or before its
//!   `depends_on`) has completed: what it refers to exists when it runs.
//! - **Complex reads** are interleaved by frequency: one IC*i* after every `freq[i]` updates,
//!   scheduled at that update's time, its parameters taken in turn from the curated lists.
//! - **Short reads** follow a complex read as a random walk over the ids its answer holds: each
//!   step runs one person read (IS1–IS3) and one message read (IS4–IS7) and goes on with a
//!   probability that falls by [`Mix::walk_decay`] at every step. They are not scheduled (they
//!   start when the read before them ends), so they take no part in the on-time ratio.
//! - A scheduled operation is **on time** when it starts within `late_tolerance` of its
//!   scheduled time (LDBC: one second); a run whose on-time ratio is below 95% is not valid.
//!
//! Operations are taken by `connections` Bolt connections from one queue, each one an
//! auto-commit query. A transient failure (a lock wait, a deadlock) is retried up to
//! [`RETRIES`] times, as drivers do; any other failure is counted against its kind.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use quiver_value::{Map, Value};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use tokio::sync::{mpsc, watch};

use super::datagen;
use super::ops::{Class, Kind, Operation, Scheduled};
use super::queries;
use crate::client::{ClientError, Connection, Credentials, Dialer};
use crate::error::LabError;
use crate::latency::{Latencies, Percentiles};

/// Least time queued operations are still started after the run's duration (at least the
/// duration itself).
const GRACE_MIN: Duration = Duration::from_secs(30);
/// Attempts after the first for an operation that fails with a transient error.
pub const RETRIES: usize = 3;

/// The complex reads' frequencies: updates between two of each (IC1 … IC14), the
/// Interactive v1 configuration's for scale factor 1.
pub const FREQUENCIES_SF1: [u32; 14] = [26, 37, 69, 36, 57, 129, 87, 45, 157, 30, 16, 44, 19, 49];

/// What the mix holds and how fast it runs.
#[derive(Clone, Debug, Serialize)]
pub struct Mix {
    /// Wall time per simulated time (0.001: a simulated day in 86.4 s).
    pub tcr: f64,
    /// Scheduled work stops being started after this much wall time.
    pub duration: Duration,
    /// Updates between two complex reads of each kind, IC1 … IC14.
    pub frequencies: [u32; 14],
    /// Whether complex reads are followed by short-read walks.
    pub short_reads: bool,
    /// A walk's first step is taken with probability `walk_decay`, each next one with the
    /// probability before it times `walk_decay`.
    pub walk_decay: f64,
    /// How late a scheduled operation may start and still be on time.
    pub late_tolerance: Duration,
    /// Seed of the walks' choices.
    pub seed: u64,
}

impl Default for Mix {
    fn default() -> Mix {
        Mix {
            tcr: 0.001,
            duration: Duration::from_secs(60),
            frequencies: FREQUENCIES_SF1,
            short_reads: true,
            walk_decay: 0.8,
            late_tolerance: Duration::from_secs(1),
            seed: 42,
        }
    }
}

/// The curated parameters and the update stream, as the generator wrote them.
#[derive(Debug, Default)]
pub struct Inputs {
    /// Complex and short reads' parameters, by kind.
    pub params: BTreeMap<Kind, Vec<Operation>>,
    /// The updates, in the order they are due.
    pub updates: Vec<Scheduled>,
}

impl Inputs {
    /// The generator's parameters and the updates of its stream due within `sim_span` of the
    /// first, checked: in the order they are due, each depending on nothing later than itself.
    pub fn read(dir: &Path, sim_span: Option<i64>) -> Result<Inputs, LabError> {
        let params = datagen::read_params(dir)?;
        let updates = datagen::read_updates(dir, sim_span)?;
        for (n, pair) in updates.windows(2).enumerate() {
            if pair[0].due > pair[1].due {
                return Err(LabError::Snb(format!(
                    "update {} is due before the one ahead of it",
                    n + 2
                )));
            }
        }
        if let Some(bad) = updates
            .iter()
            .position(|u| u.op.kind().class() != Class::Update || u.depends_on > u.due)
        {
            return Err(LabError::Snb(format!(
                "update {} is not an update, or depends on its own future",
                bad + 1
            )));
        }
        Ok(Inputs { params, updates })
    }
}

/// One operation of the schedule.
#[derive(Clone, Debug)]
struct Planned {
    /// Wall time after the run's start.
    at: Duration,
    op: Operation,
    /// Updates: its place in the stream, and how many of the stream's first updates must have
    /// completed before it starts.
    update: Option<(u64, u64)>,
}

/// The run's schedule: every update due within `mix.duration` of wall time, and the complex
/// reads interleaved among them.
fn plan(inputs: &Inputs, mix: &Mix) -> Vec<Planned> {
    let Some(first) = inputs.updates.first() else {
        return Vec::new();
    };
    let start = first.due;
    let wall = |due: i64| Duration::from_secs_f64(((due - start).max(0) as f64 * mix.tcr) / 1e3);
    let updates: Vec<&Scheduled> = inputs
        .updates
        .iter()
        .take_while(|u| wall(u.due) <= mix.duration)
        .collect();
    let mut planned = Vec::with_capacity(updates.len() * 2);
    for (seq, update) in updates.iter().enumerate() {
        let before = updates.partition_point(|u| u.due <= update.depends_on);
        planned.push(Planned {
            at: wall(update.due),
            op: update.op.clone(),
            update: Some((seq as u64, before.min(seq) as u64)),
        });
    }
    for (i, &freq) in mix.frequencies.iter().enumerate() {
        let kind = Kind::ALL[i];
        let Some(params) = inputs.params.get(&kind).filter(|p| !p.is_empty()) else {
            continue;
        };
        let freq = freq.max(1) as usize;
        for (k, after) in (freq - 1..updates.len()).step_by(freq).enumerate() {
            planned.push(Planned {
                at: wall(updates[after].due),
                op: params[k % params.len()].clone(),
                update: None,
            });
        }
    }
    // Stable: an update stays before a read scheduled at the same time.
    planned.sort_by_key(|p| p.at);
    planned
}

/// Which updates have completed: the length of the stream's completed prefix, watched.
struct Completion {
    beyond: Mutex<(u64, BTreeSet<u64>)>,
    prefix: watch::Sender<u64>,
}

impl Completion {
    fn new() -> Completion {
        Completion {
            beyond: Mutex::new((0, BTreeSet::new())),
            prefix: watch::channel(0).0,
        }
    }

    fn complete(&self, seq: u64) {
        let mut state = self.beyond.lock();
        let (prefix, beyond) = &mut *state;
        beyond.insert(seq);
        while beyond.remove(prefix) {
            *prefix += 1;
        }
        self.prefix.send_replace(*prefix);
    }

    async fn wait_for(&self, count: u64) {
        let mut rx = self.prefix.subscribe();
        // The sender lives as long as `self`, so the wait ends only when the prefix is reached.
        let _ = rx.wait_for(|&prefix| prefix >= count).await;
    }
}

/// What one kind of operation did.
#[derive(Clone, Debug, Default)]
struct KindTally {
    latencies: Latencies,
    failures: u64,
    rows: u64,
    first_failure: Option<String>,
}

/// One connection's tallies, merged at the end.
#[derive(Debug)]
struct Tally {
    kinds: Vec<KindTally>,
    scheduled: u64,
    on_time: u64,
    retries: u64,
    /// Scheduled operations still queued when the grace ended.
    not_started: u64,
    /// Updates acknowledged by the server.
    acknowledged: Vec<Operation>,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            kinds: vec![KindTally::default(); Kind::ALL.len()],
            scheduled: 0,
            on_time: 0,
            retries: 0,
            not_started: 0,
            acknowledged: Vec::new(),
        }
    }

    fn merge(&mut self, other: Tally) {
        for (mine, theirs) in self.kinds.iter_mut().zip(other.kinds) {
            mine.latencies.merge(&theirs.latencies);
            mine.failures += theirs.failures;
            mine.rows += theirs.rows;
            if mine.first_failure.is_none() {
                mine.first_failure = theirs.first_failure;
            }
        }
        self.scheduled += other.scheduled;
        self.on_time += other.on_time;
        self.retries += other.retries;
        self.not_started += other.not_started;
        self.acknowledged.extend(other.acknowledged);
    }
}

/// One kind's figures in the report.
#[derive(Clone, Debug, Serialize)]
pub struct KindReport {
    pub kind: &'static str,
    pub latency: Percentiles,
    pub failures: u64,
    pub mean_rows: f64,
    pub first_failure: Option<String>,
}

/// What a run measured.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub mix: Mix,
    pub connections: usize,
    /// Wall time from the first operation's start to the last one's end.
    pub elapsed_s: f64,
    /// Operations completed (every class), per second of `elapsed_s`.
    pub ops_per_s: f64,
    pub operations: u64,
    pub scheduled: u64,
    pub on_time_ratio: f64,
    pub retries: u64,
    /// Scheduled operations never started: the server fell further behind than the grace.
    pub not_started: u64,
    pub failures: u64,
    pub kinds: Vec<KindReport>,
    /// Updates acknowledged (kept for the crash check, not serialised).
    #[serde(skip)]
    pub acknowledged: Vec<Operation>,
}

impl Report {
    /// A run is valid when nothing failed and at least 95% of scheduled operations started on
    /// time.
    pub fn valid(&self) -> bool {
        self.failures == 0 && self.not_started == 0 && self.on_time_ratio >= 0.95
    }
}

/// Runs the mix against `target` over `connections` connections.
pub async fn run(
    target: SocketAddr,
    credentials: Option<&Credentials>,
    connections: usize,
    inputs: &Inputs,
    mix: &Mix,
) -> Result<Report, LabError> {
    let planned = plan(inputs, mix);
    let mut conns = Vec::with_capacity(connections);
    for _ in 0..connections.max(1) {
        conns.push(connect(target, credentials).await?);
    }
    let completion = Arc::new(Completion::new());
    let closing = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::unbounded_channel::<Planned>();
    let rx = Arc::new(tokio::sync::Mutex::new(rx));
    let start = Instant::now() + Duration::from_millis(100);
    let mut workers = Vec::with_capacity(conns.len());
    for (index, conn) in conns.into_iter().enumerate() {
        let worker = Worker {
            conn,
            completion: completion.clone(),
            rng: SmallRng::seed_from_u64(mix.seed ^ (index as u64).wrapping_mul(0x9E37_79B9)),
            mix: mix.clone(),
            tally: Tally::new(),
            closing: closing.clone(),
        };
        workers.push(tokio::spawn(worker.run(rx.clone(), start)));
    }
    for planned in planned {
        tokio::time::sleep_until((start + planned.at).into()).await;
        if tx.send(planned).is_err() {
            break;
        }
    }
    drop(tx);
    // What is still queued when the grace ends is counted as not started, not run: the run
    // stops by itself however far behind its schedule the server fell.
    let grace_end = start + mix.duration + mix.duration.max(GRACE_MIN);
    let closer = {
        let closing = closing.clone();
        tokio::spawn(async move {
            tokio::time::sleep_until(grace_end.into()).await;
            closing.store(true, Ordering::Relaxed);
        })
    };
    let mut total = Tally::new();
    for worker in workers {
        let tally = worker
            .await
            .map_err(|e| LabError::Server(format!("a driver connection stopped: {e}")))??;
        total.merge(tally);
    }
    closer.abort();
    Ok(report(total, mix, connections, start.elapsed()))
}

/// An authenticated Bolt connection to `addr`.
pub async fn connect(
    addr: SocketAddr,
    credentials: Option<&Credentials>,
) -> Result<Connection, LabError> {
    let stream = Dialer::new(addr, 1, Duration::from_secs(10))
        .open_stream()
        .await
        .map_err(client_error)?;
    Connection::open(stream, credentials, false)
        .await
        .map_err(client_error)
}

fn client_error(error: ClientError) -> LabError {
    LabError::Server(error.to_string())
}

fn report(total: Tally, mix: &Mix, connections: usize, elapsed: Duration) -> Report {
    let operations: u64 = total.kinds.iter().map(|k| k.latencies.count()).sum();
    let failures: u64 = total.kinds.iter().map(|k| k.failures).sum();
    let kinds = Kind::ALL
        .iter()
        .zip(&total.kinds)
        .filter(|(_, t)| t.latencies.count() + t.failures > 0)
        .map(|(kind, t)| KindReport {
            kind: kind.name(),
            latency: t.latencies.percentiles(),
            failures: t.failures,
            mean_rows: t.rows as f64 / t.latencies.count().max(1) as f64,
            first_failure: t.first_failure.clone(),
        })
        .collect();
    let seconds = elapsed.as_secs_f64().max(1e-9);
    Report {
        mix: mix.clone(),
        connections,
        elapsed_s: seconds,
        ops_per_s: operations as f64 / seconds,
        operations,
        scheduled: total.scheduled,
        on_time_ratio: if total.scheduled == 0 {
            1.0
        } else {
            total.on_time as f64 / total.scheduled as f64
        },
        retries: total.retries,
        not_started: total.not_started,
        failures,
        kinds,
        acknowledged: total.acknowledged,
    }
}

/// One connection taking operations from the queue.
struct Worker {
    conn: Connection,
    completion: Arc<Completion>,
    rng: SmallRng,
    mix: Mix,
    tally: Tally,
    /// Set when the grace after the run's duration is over.
    closing: Arc<AtomicBool>,
}

/// What an operation's answer holds for a walk.
#[derive(Default)]
struct Found {
    persons: Vec<i64>,
    messages: Vec<i64>,
}

impl Worker {
    async fn run(
        mut self,
        rx: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Planned>>>,
        start: Instant,
    ) -> Result<Tally, LabError> {
        loop {
            let next = rx.lock().await.recv().await;
            let Some(planned) = next else { break };
            if self.closing.load(Ordering::Relaxed) {
                self.tally.scheduled += 1;
                self.tally.not_started += 1;
                continue;
            }
            if let Some((_, before)) = planned.update {
                self.completion.wait_for(before).await;
            }
            let began = Instant::now();
            self.tally.scheduled += 1;
            if began.saturating_duration_since(start + planned.at) <= self.mix.late_tolerance {
                self.tally.on_time += 1;
            }
            let found = self.execute(&planned.op).await?;
            if let Some((seq, _)) = planned.update {
                self.completion.complete(seq);
            }
            if let Some(found) = found
                && planned.op.kind().class() == Class::Complex
                && self.mix.short_reads
            {
                self.walk(found).await?;
            }
        }
        self.conn.close().await;
        Ok(self.tally)
    }

    /// Runs one operation (retrying transient failures) and records it. `None` when it failed.
    async fn execute(&mut self, op: &Operation) -> Result<Option<Found>, LabError> {
        let kind = op.kind();
        let statement = queries::statement(op);
        let began = Instant::now();
        let mut attempt = 0;
        loop {
            let exchanged = self
                .conn
                .query(statement.text, statement.params.clone())
                .await
                .map_err(client_error)?;
            let failure = exchanged.summaries.iter().find_map(|s| s.as_ref().err());
            match failure {
                None => {
                    let tally = &mut self.tally.kinds[kind as usize];
                    tally.latencies.record(began.elapsed());
                    tally.rows += exchanged.records.len() as u64;
                    if kind.class() == Class::Update {
                        self.tally.acknowledged.push(op.clone());
                    }
                    let fields = exchanged
                        .summaries
                        .first()
                        .and_then(|s| s.as_ref().ok())
                        .map(fields_of)
                        .unwrap_or_default();
                    return Ok(Some(found_in(kind, &fields, &exchanged.records)));
                }
                Some(ClientError::Failure { code, .. })
                    if code.starts_with("Neo.TransientError.") && attempt < RETRIES =>
                {
                    attempt += 1;
                    self.tally.retries += 1;
                }
                Some(error) => {
                    let tally = &mut self.tally.kinds[kind as usize];
                    tally.failures += 1;
                    tally.first_failure.get_or_insert_with(|| error.to_string());
                    return Ok(None);
                }
            }
        }
    }

    /// The short reads after a complex read: a person read and a message read per step, on
    /// ids the answers so far hold.
    async fn walk(&mut self, mut found: Found) -> Result<(), LabError> {
        let mut chance = self.mix.walk_decay;
        while self.rng.random_bool(chance.clamp(0.0, 1.0)) {
            let mut next = Found::default();
            if !found.persons.is_empty() {
                let person_id = found.persons[self.rng.random_range(0..found.persons.len())];
                let op = match self.rng.random_range(0..3) {
                    0 => Operation::Is1 { person_id },
                    1 => Operation::Is2 { person_id },
                    _ => Operation::Is3 { person_id },
                };
                if let Some(more) = self.execute(&op).await? {
                    next.persons.extend(more.persons);
                    next.messages.extend(more.messages);
                }
            }
            if !found.messages.is_empty() {
                let message_id = found.messages[self.rng.random_range(0..found.messages.len())];
                let op = match self.rng.random_range(0..4) {
                    0 => Operation::Is4 { message_id },
                    1 => Operation::Is5 { message_id },
                    2 => Operation::Is6 { message_id },
                    _ => Operation::Is7 { message_id },
                };
                if let Some(more) = self.execute(&op).await? {
                    next.persons.extend(more.persons);
                    next.messages.extend(more.messages);
                }
            }
            if next.persons.is_empty() && next.messages.is_empty() {
                break;
            }
            found = next;
            chance *= self.mix.walk_decay;
        }
        Ok(())
    }
}

/// The column names a RUN's SUCCESS names.
fn fields_of(meta: &Map) -> Vec<String> {
    match meta.get("fields") {
        Some(Value::List(fields)) => fields
            .iter()
            .filter_map(|f| match f {
                Value::String(s) => Some(s.to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The person and message ids in the columns `queries::result_ids` names for `kind`.
fn found_in(kind: Kind, fields: &[String], records: &[Vec<Value>]) -> Found {
    let (person_columns, message_columns) = queries::result_ids(kind);
    let index = |names: &[&str]| -> Vec<usize> {
        fields
            .iter()
            .enumerate()
            .filter(|(_, f)| names.contains(&f.as_str()))
            .map(|(i, _)| i)
            .collect()
    };
    let (persons_at, messages_at) = (index(person_columns), index(message_columns));
    let mut found = Found::default();
    for record in records {
        for &i in &persons_at {
            if let Some(Value::Int(id)) = record.get(i) {
                found.persons.push(*id);
            }
        }
        for &i in &messages_at {
            if let Some(Value::Int(id)) = record.get(i) {
                found.messages.push(*id);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn like(due: i64, depends_on: i64, person_id: i64) -> Scheduled {
        Scheduled {
            due,
            depends_on,
            op: Operation::Iu2 {
                person_id,
                post_id: 1,
                creation_date: due,
            },
        }
    }

    fn inputs(updates: Vec<Scheduled>) -> Inputs {
        let mut params = BTreeMap::new();
        params.insert(
            Kind::Ic13,
            vec![Operation::Ic13 {
                person1_id: 1,
                person2_id: 2,
            }],
        );
        Inputs { params, updates }
    }

    #[test]
    fn updates_are_scheduled_at_their_compressed_time_and_wait_only_for_what_they_need() {
        // A second of simulation per millisecond of wall time (tcr 0.001).
        let updates = vec![
            like(10_000, 0, 1),
            like(12_000, 10_000, 2),
            like(12_000, 0, 3),
            like(15_000, 12_000, 4),
        ];
        let mix = Mix {
            frequencies: [u32::MAX; 14],
            ..Mix::default()
        };
        let planned = plan(&inputs(updates), &mix);
        let at: Vec<u128> = planned.iter().map(|p| p.at.as_millis()).collect();
        assert_eq!(at, [0, 2, 2, 5]);
        let waits: Vec<(u64, u64)> = planned.iter().filter_map(|p| p.update).collect();
        // The second waits for the first; the third for nothing; the fourth for both updates
        // due at 12,000 and everything before them.
        assert_eq!(waits, [(0, 0), (1, 1), (2, 0), (3, 3)]);
    }

    #[test]
    fn an_update_never_waits_for_one_queued_after_it() {
        // Two updates due at the same time, the first depending on that time: it waits for
        // none queued after it, or the queue could stall.
        let planned = plan(
            &inputs(vec![like(5, 5, 1), like(5, 0, 2)]),
            &Mix {
                frequencies: [u32::MAX; 14],
                ..Mix::default()
            },
        );
        assert_eq!(planned[0].update, Some((0, 0)));
    }

    #[test]
    fn a_complex_read_follows_every_frequency_th_update_within_the_duration() {
        let updates = (0..10).map(|i| like(i * 1_000, 0, i)).collect();
        let mut frequencies = [u32::MAX; 14];
        frequencies[Kind::Ic13 as usize] = 3;
        let mix = Mix {
            frequencies,
            duration: Duration::from_millis(8),
            ..Mix::default()
        };
        let planned = plan(&inputs(updates), &mix);
        let reads: Vec<u128> = planned
            .iter()
            .filter(|p| p.update.is_none())
            .map(|p| p.at.as_millis())
            .collect();
        // Nine updates fall within 8 ms (due 0 … 8 s); a read after the 3rd, 6th and 9th.
        assert_eq!(planned.len() - reads.len(), 9);
        assert_eq!(reads, [2, 5, 8]);
    }

    #[test]
    fn completion_counts_the_prefix_done_whatever_the_order() {
        let completion = Completion::new();
        completion.complete(1);
        assert_eq!(*completion.prefix.borrow(), 0);
        completion.complete(0);
        assert_eq!(*completion.prefix.borrow(), 2);
        completion.complete(3);
        completion.complete(2);
        assert_eq!(*completion.prefix.borrow(), 4);
    }
}
