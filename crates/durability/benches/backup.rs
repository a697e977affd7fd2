//! What an online backup costs the writers, and how fast backups and restores go, on a graph
//! of N nodes and 6.5·N relationships:
//!
//! 1. 16 writers commit small transactions in `group` durability, each waiting for its
//!    commit to be durable: commits per second and p99 commit latency, first with no backup
//!    running, then while full backups run one after another. The goal: ≥ 0.9× the
//!    throughput and ≤ 1.2× the p99 latency of without.
//! 2. The full backup's size and rate, and an incremental one's, in MiB/s.
//! 3. A restore of the chain into a new directory (MiB/s), and how long the restored
//!    directory takes to open, recovery included (goal at N = 1,000,000: ≤ 30 s).
//!
//! `cargo bench -p quiver-durability --bench backup` (`QUIVER_BACKUP_NODES`, default 100,000,
//! full size 1,000,000; `QUIVER_BENCH_SECS`, `QUIVER_BENCH_DIR`).

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{RELS_PER_TEN_NODES, bench_dir, build_graph, env_u64, round, small_commit};
use quiver_durability::backup::{BackupDir, Piece, RestoreUntil, restore};
use quiver_durability::{Durability, Mode, Options};
use quiver_storage::Storage;

const WRITERS: i64 = 16;

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// Each commit's end time and latency, from every writer, while `stop` is unset.
fn write(db: &Arc<Storage>, d: &Durability, stop: &AtomicBool) -> Vec<(Instant, Duration)> {
    std::thread::scope(|scope| {
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                scope.spawn(move || {
                    let mut done = Vec::new();
                    let mut n = 0;
                    while !stop.load(Ordering::Relaxed) {
                        let started = Instant::now();
                        let info = small_commit(db, w, n).expect("commit");
                        d.wait(&info).expect("durable");
                        let ended = Instant::now();
                        done.push((ended, ended - started));
                        n += 1;
                    }
                    done
                })
            })
            .collect();
        writers
            .into_iter()
            .flat_map(|w| w.join().expect("writer"))
            .collect()
    })
}

/// Commits per second and p99 latency of the commits that ended inside `windows`.
fn figures(commits: &[(Instant, Duration)], windows: &[(Instant, Instant)]) -> (f64, Duration) {
    let mut inside: Vec<Duration> = commits
        .iter()
        .filter(|(at, _)| windows.iter().any(|(a, b)| a <= at && at <= b))
        .map(|(_, latency)| *latency)
        .collect();
    let span: f64 = windows.iter().map(|(a, b)| (*b - *a).as_secs_f64()).sum();
    inside.sort_unstable();
    let p99 = inside
        .get((inside.len().saturating_sub(1) as f64 * 0.99) as usize)
        .copied()
        .unwrap_or_default();
    (inside.len() as f64 / span.max(1e-9), p99)
}

/// Writers for one round, with `during` running beside them on this thread (repeatedly,
/// until the round ends): the commits and the windows `during` ran in (the whole round when
/// it is `None`).
fn round_of_writes(
    db: &Arc<Storage>,
    d: &Durability,
    mut during: Option<&mut dyn FnMut()>,
) -> (Vec<(Instant, Duration)>, Vec<(Instant, Instant)>) {
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let writers = scope.spawn(|| write(db, d, &stop));
        // The writers get going before anything is measured.
        std::thread::sleep(Duration::from_millis(200));
        let started = Instant::now();
        let mut windows = Vec::new();
        match during.as_mut() {
            None => std::thread::sleep(round()),
            Some(f) => {
                while started.elapsed() < round() {
                    let a = Instant::now();
                    f();
                    windows.push((a, Instant::now()));
                }
            }
        }
        if windows.is_empty() {
            windows.push((started, Instant::now()));
        }
        stop.store(true, Ordering::Relaxed);
        (writers.join().expect("writers"), windows)
    })
}

/// The writers' table: commits per second and p99 latency with no backup, then while full
/// backups into `scratch` run one after another; returns those backups and their times.
fn cost_to_writers(db: &Arc<Storage>, d: &Durability, scratch: &Path) -> Vec<(Piece, Duration)> {
    let (quiet, quiet_windows) = round_of_writes(db, d, None);
    let (base_rate, base_p99) = figures(&quiet, &quiet_windows);
    let mut fulls: Vec<(Piece, Duration)> = Vec::new();
    let mut take = || {
        let dir = scratch.join(format!("full-{}", fulls.len()));
        let started = Instant::now();
        let piece = d.backup_full(&dir).expect("full backup");
        fulls.push((piece, started.elapsed()));
    };
    let (busy, busy_windows) = round_of_writes(db, d, Some(&mut take));
    let (rate, p99) = figures(&busy, &busy_windows);
    println!();
    println!("| writers (group, each waits for its commit) | commits/s | p99 commit latency |");
    println!("|---|---:|---:|");
    println!(
        "| no backup running | {base_rate:.0} | {:.2} ms |",
        base_p99.as_secs_f64() * 1e3
    );
    println!(
        "| during {} full backups | {rate:.0} ({:.2}×) | {:.2} ms ({:.2}×) |",
        fulls.len(),
        rate / base_rate,
        p99.as_secs_f64() * 1e3,
        p99.as_secs_f64() / base_p99.as_secs_f64().max(1e-9)
    );

    fulls
}

fn main() {
    let nodes = env_u64("QUIVER_BACKUP_NODES", 100_000);
    let rels = nodes * RELS_PER_TEN_NODES / 10;
    let data = bench_dir("backup-data");
    let scratch = bench_dir("backup-pieces");
    let opts = Options {
        snapshot_background: false,
        ..Options::default()
    };
    let built = Instant::now();
    {
        let (db, d) = Durability::open(data.path(), Mode::Buffered, opts.clone()).expect("open");
        build_graph(&db, nodes, rels);
        d.snapshot().expect("snapshot");
        d.close().expect("close");
    }
    println!(
        "built {nodes} nodes and {rels} relationships in {:.1} s",
        built.elapsed().as_secs_f64()
    );
    let (db, d) = Durability::open(data.path(), Mode::Group, opts).expect("open");

    let fulls = cost_to_writers(&db, &d, scratch.path());
    let (full, full_took) = fulls.last().cloned().expect("a full backup");
    let chain = scratch.path().join("chain");
    let mut backups = BackupDir::open(&chain).expect("chain");
    let keep = |backups: &mut BackupDir, piece: &Piece| {
        let mut file = std::fs::File::open(&piece.path).expect("piece");
        backups.keep(piece, &mut file, &mut |_| {}).expect("keep");
    };
    keep(&mut backups, &full);
    // Commits after the full backup, for an incremental one.
    let _ = round_of_writes(&db, &d, None);
    let started = Instant::now();
    let incremental = d
        .backup_since(
            full.last_commit,
            full.last_time,
            &scratch.path().join("incremental"),
        )
        .expect("incremental backup")
        .expect("commits since the full backup");
    let incremental_took = started.elapsed();
    keep(&mut backups, &incremental);
    d.close().expect("close");
    drop(db);

    let target = scratch.path().join("restored");
    let started = Instant::now();
    let report = restore(&backups, &target, RestoreUntil::End, &mut |_| {}).expect("restore");
    let restore_took = started.elapsed();
    let started = Instant::now();
    let (restored, reopened) =
        Durability::open(&target, Mode::Group, Options::default()).expect("open the restored");
    let open_took = started.elapsed();
    assert_eq!(restored.last_committed(), report.last_commit);
    drop(reopened);
    let chain_bytes = full.bytes + incremental.bytes;
    println!();
    println!("| step | MiB | seconds | MiB/s |");
    println!("|---|---:|---:|---:|");
    for (step, bytes, took) in [
        ("full backup", full.bytes, full_took),
        (
            "incremental backup (one round of writes)",
            incremental.bytes,
            incremental_took,
        ),
        ("restore of the chain", chain_bytes, restore_took),
    ] {
        println!(
            "| {step} | {:.1} | {:.2} | {:.0} |",
            mib(bytes),
            took.as_secs_f64(),
            mib(bytes) / took.as_secs_f64().max(1e-9)
        );
    }
    println!(
        "| the restored directory opened (recovery) | | {:.2} | |",
        open_took.as_secs_f64()
    );
}
