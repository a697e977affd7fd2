//! Recovery time: a graph of N nodes and 6.5·N relationships in a snapshot, plus a log of
//! further commits after it, then the time `Durability::open` takes to come back.
//!
//! Full size is N = 1,000,000 with a 1 GiB log; the default is scaled down for a quick run:
//! `QUIVER_RECOVERY_NODES` (default 100,000) and `QUIVER_RECOVERY_LOG_MIB` (default 100).
//! `cargo bench -p quiver-durability --bench recovery`.
//!
//! `QUIVER_RECOVERY_KEEP=DIR` builds the data in `DIR` and keeps it; a later run with the same
//! `DIR` finds it there and only recovers it, so recovery alone can be repeated or profiled
//! (`perf record … target/release/deps/recovery-<hash> --bench`).

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use common::{Graph, bench_dir, build_graph, env_u64};
use quiver_durability::{Durability, Mode, Options};
use quiver_storage::Storage;
use quiver_value::Value;
use rand::Rng;

use common::RELS_PER_TEN_NODES;

fn main() {
    let nodes = env_u64("QUIVER_RECOVERY_NODES", 100_000);
    let log_bytes = env_u64("QUIVER_RECOVERY_LOG_MIB", 100) << 20;
    let rels = nodes * RELS_PER_TEN_NODES / 10;
    let opts = Options {
        snapshot_background: false,
        snapshot_on_close: false,
        segment_bytes_max: 256 << 20,
        ..Options::default()
    };
    let kept = std::env::var_os("QUIVER_RECOVERY_KEEP").map(std::path::PathBuf::from);
    let built_marker = kept.as_ref().map(|k| k.join("built"));
    if let Some(marker) = built_marker.as_ref().filter(|m| m.exists()) {
        println!(
            "recovering the data kept in {}",
            kept.as_ref().expect("kept").display()
        );
        report_recovery(marker.parent().expect("kept directory"), opts);
        return;
    }
    let temp;
    let dir: &Path = match &kept {
        Some(k) => {
            std::fs::create_dir_all(k).expect("kept directory");
            k
        }
        None => {
            temp = bench_dir("recovery");
            temp.path()
        }
    };
    let build = Instant::now();
    let (db, d) = Durability::open(dir, Mode::Buffered, opts.clone()).expect("open");
    let graph = build_graph(&db, nodes, rels);
    let snap = d.snapshot().expect("snapshot").expect("a snapshot");
    println!(
        "built {nodes} nodes and {rels} relationships in {:.1} s; snapshot {:.1} MiB written in {:.1} s",
        build.elapsed().as_secs_f64(),
        snap.bytes as f64 / f64::from(1 << 20),
        snap.duration.as_secs_f64()
    );
    log_after_snapshot(&db, &d, &graph, log_bytes);
    d.close().expect("close");
    drop(db);
    drop(graph);
    if let Some(marker) = &built_marker {
        std::fs::write(marker, b"").expect("marker");
    }
    report_recovery(dir, opts);
}

/// Small transactions after the snapshot that rename people and link them, until the log
/// holds `log_bytes`.
fn log_after_snapshot(db: &Arc<Storage>, d: &Durability, graph: &Graph, log_bytes: u64) {
    let Graph { name, knows, ids } = graph;
    let (name, knows) = (*name, *knows);
    let mut rng = rand::rng();
    let logged = Instant::now();
    let mut commits = 0u64;
    while d.stats().log_bytes_since_snapshot < log_bytes {
        for _ in 0..1000 {
            let tx = db.begin_write();
            for k in 0..8 {
                let a = ids[rng.random_range(0..ids.len())];
                tx.set_node_property(a, name, Value::from(format!("renamed {commits} {k}")))
                    .expect("set");
            }
            let a = ids[rng.random_range(0..ids.len())];
            let b = ids[rng.random_range(0..ids.len())];
            tx.create_relationship(a, b, knows, &[])
                .expect("relationship");
            tx.commit().expect("commit");
            commits += 1;
        }
        d.sync().expect("sync");
    }
    let stats = d.stats();
    println!(
        "logged {commits} commits, {:.1} MiB, in {:.1} s",
        stats.log_bytes_since_snapshot as f64 / f64::from(1 << 20),
        logged.elapsed().as_secs_f64()
    );
}

/// CPU seconds this process has used (user and system), from `/proc/self/stat`; `None` where
/// that file does not exist. Beside the wall clock it tells recovery's own work from waits
/// for a disk or for cores that other processes hold.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start past its closing ')'.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name; the
    // kernel counts them in USER_HZ, 100 on Linux.
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

/// Opens the directory again and prints how long recovery took, as a table row.
fn report_recovery(dir: &Path, opts: Options) {
    let start = Instant::now();
    let cpu_before = cpu_seconds();
    let (db, d) = Durability::open(dir, Mode::Group, opts).expect("recover");
    let took = start.elapsed();
    if let (Some(before), Some(after)) = (cpu_before, cpu_seconds()) {
        println!(
            "recovery used {:.2} CPU s in {:.2} s; snapshot {:.1} MiB loaded at {:.0} MiB/s",
            after - before,
            took.as_secs_f64(),
            d.recovery().snapshot_bytes as f64 / f64::from(1 << 20),
            d.recovery().snapshot_bytes as f64
                / f64::from(1 << 20)
                / d.recovery().snapshot_load.as_secs_f64().max(1e-9)
        );
    }
    let r = d.recovery();
    let read = db.begin_read();
    println!(
        "| nodes | relationships | snapshot ops | log MiB | log records | snapshot load s | log replay s | recovery s |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {} | {} | {} | {:.0} | {} | {:.2} | {:.2} | {:.2} |",
        read.count_nodes().expect("count"),
        read.count_rels().expect("count"),
        r.snapshot_ops,
        r.log_bytes_replayed as f64 / f64::from(1 << 20),
        r.records_replayed,
        r.snapshot_load.as_secs_f64(),
        r.duration.saturating_sub(r.snapshot_load).as_secs_f64(),
        took.as_secs_f64()
    );
}
