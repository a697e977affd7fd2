//! Commit throughput by mode against the disk's own limit.
//!
//! The physical limit is a raw loop appending a record-sized write and calling `fdatasync`,
//! measured in the same run on the same disk, interleaved with the modes round by round,
//! since a shared disk drifts. Goals: `sync` with one writer reaches ≥ 0.9 of the raw rate; `group`
//! with 32 writers reaches ≥ 10× it.
//!
//! `cargo bench -p quiver-durability --bench commit_modes` (`QUIVER_BENCH_SECS`,
//! `QUIVER_BENCH_DIR`).

mod common;

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::{bench_dir, per_sec, round, small_commit};
use quiver_durability::{Durability, Mode, Options};

/// Appends `record_bytes` and syncs, as fast as the disk allows.
fn raw_fdatasync(secs: Duration, record_bytes: usize) -> f64 {
    let dir = bench_dir("raw");
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.path().join("raw.log"))
        .expect("raw file");
    let record = vec![0x5au8; record_bytes];
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < secs {
        f.write_all(&record).expect("write");
        f.sync_data().expect("fdatasync");
        n += 1;
    }
    per_sec(n, start.elapsed())
}

struct ModeResult {
    commits_per_sec: f64,
    mean_batch: f64,
}

fn mode_run(mode: Mode, writers: usize, secs: Duration, options: Options) -> ModeResult {
    let dir = bench_dir("mode");
    let (db, d) = Durability::open(dir.path(), mode, options).expect("open");
    let d = Arc::new(d);
    // Warm the tokens so every measured commit is the same work.
    d.wait(&small_commit(&db, 0, 0).expect("commit"))
        .expect("wait");
    let before = d.stats();
    let stop = Arc::new(AtomicBool::new(false));
    let commits = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let threads: Vec<_> = (0..writers)
        .map(|w| {
            let (db, d, stop, commits) = (db.clone(), d.clone(), stop.clone(), commits.clone());
            std::thread::spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    let info = small_commit(&db, w as i64, n).expect("commit");
                    d.wait(&info).expect("wait");
                    n += 1;
                    commits.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    std::thread::sleep(secs);
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().expect("writer");
    }
    let elapsed = start.elapsed();
    let after = d.stats();
    let batches = after.commits_per_fsync.count - before.commits_per_fsync.count;
    let synced = after.commits_per_fsync.sum - before.commits_per_fsync.sum;
    ModeResult {
        commits_per_sec: per_sec(commits.load(Ordering::Relaxed), elapsed),
        mean_batch: if batches == 0 {
            0.0
        } else {
            synced as f64 / batches as f64
        },
    }
}

fn main() {
    let secs = round();
    let reps = common::env_u64("QUIVER_BENCH_REPS", 3);
    let opts = Options {
        snapshot_background: false,
        snapshot_on_close: false,
        ..Options::default()
    };
    // One record of the small commit is ~90 bytes framed; measure the raw loop with the same.
    let record_bytes = 96;
    println!(
        "commit throughput: {reps} interleaved rounds of {} s per row (a shared disk drifts, so every row sees the same mix of its moods); record ~{record_bytes} bytes",
        secs.as_secs()
    );
    let rows: Vec<(&str, Option<(Mode, usize, Options)>)> = vec![
        ("raw append+fdatasync", None),
        ("sync, 1 writer", Some((Mode::Sync, 1, opts.clone()))),
        ("group, 1 writer", Some((Mode::Group, 1, opts.clone()))),
        ("group, 32 writers", Some((Mode::Group, 32, opts.clone()))),
        (
            "group, 32 writers, 1 ms window",
            Some((
                Mode::Group,
                32,
                Options {
                    group_window: Duration::from_millis(1),
                    ..opts.clone()
                },
            )),
        ),
        ("sync, 32 writers", Some((Mode::Sync, 32, opts.clone()))),
        (
            "buffered, 32 writers",
            Some((Mode::Buffered, 32, opts.clone())),
        ),
    ];
    // Per row: sum of rates over rounds, sum of mean batch sizes.
    let mut sums = vec![(0.0f64, 0.0f64); rows.len()];
    for rep in 0..reps {
        for (i, (name, row)) in rows.iter().enumerate() {
            let (rate, batch) = match row {
                None => (raw_fdatasync(secs, record_bytes), 1.0),
                Some((mode, writers, o)) => {
                    let r = mode_run(*mode, *writers, secs, o.clone());
                    (r.commits_per_sec, r.mean_batch)
                }
            };
            println!("round {rep}: {name:<30}{rate:>10.0} /s   commits/fsync {batch:>7.1}");
            sums[i].0 += rate;
            sums[i].1 += batch;
        }
    }
    let n = reps.max(1) as f64;
    let raw = sums[0].0 / n;
    println!();
    println!("| run | commits/s | × raw fdatasync rate ({raw:.0}/s) | commits per fsync |");
    println!("|---|---:|---:|---:|");
    for ((name, _), (rate, batch)) in rows.iter().zip(&sums) {
        println!(
            "| {name} | {:.0} | {:.2} | {:.1} |",
            rate / n,
            rate / n / raw,
            batch / n
        );
    }
}
