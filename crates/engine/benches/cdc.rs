//! What change data capture costs and how soon a change can be read, in `group` durability
//! through Cypher:
//!
//! 1. **Commit cost**: 16 writers, each committing one small Cypher write at a time (a node
//!    created, then a property of it updated), with capture `OFF`, `DIFF` and `FULL`:
//!    commits per second and the process's CPU time per commit, each mode against `OFF`.
//! 2. **Lag**: with `FULL` capture, 8 writers commit while one reader polls
//!    `db.cdc.query($from)` from the last identifier it saw; for every change, the time from
//!    its commit (its `txCommitTime`) to the poll that returned it. Each change must come back
//!    exactly once.
//!
//! `cargo bench -p quiver-engine --bench cdc` (`QUIVER_BENCH_SECS`, `QUIVER_BENCH_DIR`,
//! `QUIVER_CDC_POLL_MS`: the reader's pause between polls that found nothing, default 10).

#[path = "../../durability/benches/common/mod.rs"]
mod common;
#[path = "../../storage/benches/common/mod.rs"]
mod social;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::{bench_dir, env_u64, per_sec, round};
use quiver_engine::{Capture, Database, EngineConfig, Mode};
use quiver_value::{Map, Value};

const WRITERS: i64 = 16;
const LAG_WRITERS: i64 = 8;

fn params(entries: &[(&str, Value)]) -> Map {
    entries
        .iter()
        .map(|(k, v)| (Arc::from(*k), v.clone()))
        .collect()
}

fn open(name: &str, capture: Capture) -> (tempfile::TempDir, Arc<Database>) {
    let dir = bench_dir(name);
    let db = Database::open_with(
        dir.path(),
        Mode::Group,
        quiver_engine::DurabilityOptions::default(),
        EngineConfig::default(),
    )
    .expect("open");
    db.storage().set_capture(capture);
    db.execute("CREATE INDEX event_id FOR (e:Event) ON (e.id)", Map::new())
        .expect("index");
    (dir, db)
}

/// One writer's work until `stop`: create a node, then update it; returns its commits.
fn write(db: &Database, writer: i64, stop: &AtomicBool) -> u64 {
    let mut commits = 0;
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let id = writer * 1_000_000_000 + n;
        n += 1;
        db.execute(
            "CREATE (:Event {id: $id, writer: $w, payload: 'a small payload'})",
            params(&[("id", Value::Int(id)), ("w", Value::Int(writer))]),
        )
        .expect("create");
        db.execute(
            "MATCH (e:Event {id: $id}) SET e.seen = $n",
            params(&[("id", Value::Int(id)), ("n", Value::Int(n))]),
        )
        .expect("update");
        commits += 2;
    }
    commits
}

fn commit_cost() {
    println!("## Commit cost: {WRITERS} writers, group durability, create then update");
    println!();
    println!("| capture | commits/s | CPU µs/commit | commits/s vs OFF | CPU vs OFF |");
    println!("|---|---:|---:|---:|---:|");
    let mut base: Option<(f64, f64)> = None;
    for capture in [Capture::Off, Capture::Diff, Capture::Full] {
        let (_dir, db) = open("cdc-cost", capture);
        let stop = AtomicBool::new(false);
        let cpu = social::process_cpu_secs();
        let started = Instant::now();
        let commits: u64 = std::thread::scope(|scope| {
            let writers: Vec<_> = (0..WRITERS)
                .map(|w| {
                    let (db, stop) = (&db, &stop);
                    scope.spawn(move || write(db, w, stop))
                })
                .collect();
            std::thread::sleep(round());
            stop.store(true, Ordering::Relaxed);
            writers.into_iter().map(|w| w.join().expect("writer")).sum()
        });
        let elapsed = started.elapsed();
        let cpu = social::process_cpu_secs() - cpu;
        let rate = per_sec(commits, elapsed);
        let cpu_per = cpu * 1e6 / commits.max(1) as f64;
        let (rate_ratio, cpu_ratio) = match base {
            None => {
                base = Some((rate, cpu_per));
                (1.0, 1.0)
            }
            Some((r, c)) => (rate / r, cpu_per / c),
        };
        println!("| {capture} | {rate:.0} | {cpu_per:.1} | {rate_ratio:.2}× | {cpu_ratio:.2}× |");
        db.close().expect("close");
    }
    println!();
}

fn micros_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

fn datetime_micros(v: &Value) -> i64 {
    match v {
        Value::DateTime(dt) => dt.seconds * 1_000_000 + i64::from(dt.nanos / 1_000),
        other => panic!("not a date-time: {other:?}"),
    }
}

fn lag() {
    let poll_pause = Duration::from_millis(env_u64("QUIVER_CDC_POLL_MS", 10));
    let (_dir, db) = open("cdc-lag", Capture::Full);
    let from = db
        .execute("CALL db.cdc.current() YIELD id RETURN id", Map::new())
        .expect("current")
        .rows[0][0]
        .clone();
    let stop = AtomicBool::new(false);
    let finished = AtomicBool::new(false);
    let written = AtomicU64::new(0);
    let (lags, seen, polls) = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..LAG_WRITERS)
            .map(|w| {
                let (db, stop, written) = (&db, &stop, &written);
                scope.spawn(move || written.fetch_add(write(db, w, stop), Ordering::Relaxed))
            })
            .collect();
        let reader = scope.spawn(|| {
            let mut cursor = from.clone();
            let mut lags = Vec::new();
            let mut seen = HashSet::new();
            let mut polls = 0u64;
            let mut drained = false;
            while !drained {
                // Every writer had ended before this poll began: an empty one is the end.
                let done = finished.load(Ordering::Acquire);
                let rows = db
                    .execute(
                        "CALL db.cdc.query($from) YIELD id, metadata RETURN id, metadata",
                        params(&[("from", cursor.clone())]),
                    )
                    .expect("query")
                    .rows;
                polls += 1;
                let now = micros_now();
                for row in &rows {
                    let Value::Map(metadata) = &row[1] else {
                        panic!("no metadata");
                    };
                    let committed = datetime_micros(metadata.get("txCommitTime").expect("time"));
                    lags.push(now - committed);
                    assert!(seen.insert(format!("{:?}", row[0])), "a change came twice");
                    cursor = row[0].clone();
                }
                if rows.is_empty() {
                    drained = done;
                    std::thread::sleep(poll_pause);
                }
            }
            (lags, seen.len(), polls)
        });
        std::thread::sleep(round());
        stop.store(true, Ordering::Relaxed);
        for w in writers {
            w.join().expect("writer");
        }
        finished.store(true, Ordering::Release);
        reader.join().expect("reader")
    });
    let written = written.load(Ordering::Relaxed);
    // A create and an update: two changes per two commits.
    assert_eq!(seen as u64, written, "every committed change, exactly once");
    let mut lags = lags;
    lags.sort_unstable();
    let at = |q: f64| lags[((lags.len() - 1) as f64 * q) as usize] as f64 / 1000.0;
    println!(
        "## Lag: {LAG_WRITERS} writers, FULL capture, one reader polling (pause {} ms when idle)",
        poll_pause.as_millis()
    );
    println!();
    println!("| changes | polls | lag p50 | lag p99 | lag max |");
    println!("|---:|---:|---:|---:|---:|");
    println!(
        "| {seen} | {polls} | {:.1} ms | {:.1} ms | {:.1} ms |",
        at(0.5),
        at(0.99),
        at(1.0)
    );
    db.close().expect("close");
}

fn main() {
    commit_cost();
    lag();
}
