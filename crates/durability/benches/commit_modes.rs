//! Commit throughput by mode against the disk's own limit.
//!
//! The physical limit is a raw loop appending a record-sized write and calling `fdatasync`,
//! measured in the same run on the same disk (before and after the modes, averaged, since a
//! shared disk drifts). Goals: `sync` with one writer reaches ≥ 0.9 of the raw rate; `group`
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
    fsyncs: u64,
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
        fsyncs: after.fsyncs - before.fsyncs,
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is not supported here.
    let secs = round();
    let opts = Options {
        snapshot_background: false,
        snapshot_on_close: false,
        ..Options::default()
    };
    // One record of the small commit is ~90 bytes framed; measure the raw loop with the same.
    let record_bytes = 96;
    println!(
        "commit throughput, {} s rounds, record ~{record_bytes} bytes",
        secs.as_secs()
    );
    let raw_a = raw_fdatasync(secs, record_bytes);
    println!("raw append+fdatasync        {raw_a:>10.0} /s");
    let rows: Vec<(&str, Mode, usize, Options)> = vec![
        ("sync, 1 writer", Mode::Sync, 1, opts.clone()),
        ("group, 1 writer", Mode::Group, 1, opts.clone()),
        ("group, 32 writers", Mode::Group, 32, opts.clone()),
        (
            "group, 32 writers, no window",
            Mode::Group,
            32,
            Options {
                group_window: Duration::ZERO,
                ..opts.clone()
            },
        ),
        ("sync, 32 writers", Mode::Sync, 32, opts.clone()),
        ("buffered, 32 writers", Mode::Buffered, 32, opts.clone()),
    ];
    let mut results = Vec::new();
    for (name, mode, writers, o) in rows {
        let r = mode_run(mode, writers, secs, o);
        println!(
            "{name:<28}{:>10.0} /s   mean commits/fsync {:>6.1}   fsyncs {}",
            r.commits_per_sec, r.mean_batch, r.fsyncs
        );
        results.push((name, r));
    }
    let raw_b = raw_fdatasync(secs, record_bytes);
    println!("raw append+fdatasync (again){raw_b:>10.0} /s");
    let raw = f64::midpoint(raw_a, raw_b);
    println!();
    println!("| run | commits/s | × raw fsync rate ({raw:.0}/s) | commits per fsync |");
    println!("|---|---:|---:|---:|");
    for (name, r) in &results {
        println!(
            "| {name} | {:.0} | {:.2} | {:.1} |",
            r.commits_per_sec,
            r.commits_per_sec / raw,
            r.mean_batch
        );
    }
}
