//! What many databases on one server cost, in its data directory and in memory:
//!
//! 1. `CREATE DATABASE` of N databases one after another: the time each takes (p50, p99,
//!    max; goal ≤ 50 ms), and the process's resident memory, open file descriptors and
//!    threads before and after, per database (goal ≤ 1 MiB and no thread per database).
//! 2. A restart: how long the server takes to open again with every database, and that each
//!    is online.
//!
//! `cargo bench -p quiver-lab --bench databases` (`QUIVER_DATABASES`, default 1,000;
//! `QUIVER_BENCH_DIR` for the data directory).

use std::path::Path;
use std::time::{Duration, Instant};

use quiver_lab::procfs::{self, Pid};
use quiver_node::NodeBuilder;
use quiver_server::config::{Config, Layer};
use quiver_value::Map;

fn databases() -> usize {
    std::env::var("QUIVER_DATABASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000)
}

/// Resident memory (bytes), open file descriptors and threads of this process.
fn footprint() -> (u64, u64, u64) {
    (
        procfs::rss_bytes(Pid::This).unwrap_or(0),
        procfs::open_fds(Pid::This).unwrap_or(0),
        procfs::threads(Pid::This).unwrap_or(0),
    )
}

/// CPU time (user and system) this process has used.
fn cpu_time() -> Duration {
    procfs::process_cpu(Pid::This).unwrap_or_default()
}

fn config(dir: Option<&Path>) -> Config {
    Config::from_layer(Layer {
        bolt_listen: Some("127.0.0.1:0".parse().expect("address")),
        http_listen: Some("127.0.0.1:0".parse().expect("address")),
        data_dir: dir.map(Path::to_path_buf),
        in_memory: Some(dir.is_none()),
        ..Layer::default()
    })
    .expect("configuration")
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(at).map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

async fn run(label: &str, dir: Option<&Path>, n: usize) {
    let node = NodeBuilder::new(config(dir)).build().await.expect("node");
    let db = std::sync::Arc::clone(node.database());
    let (rss0, fds0, threads0) = footprint();
    let took = tokio::task::spawn_blocking(move || {
        let mut took = Vec::with_capacity(n);
        for i in 0..n {
            let started = Instant::now();
            db.execute(&format!("CREATE DATABASE db{i:05}"), Map::new())
                .expect("create");
            took.push(started.elapsed());
        }
        took
    })
    .await
    .expect("creates");
    let (rss1, fds1, threads1) = footprint();
    let mut sorted = took.clone();
    sorted.sort();
    let per = |before: u64, after: u64| (after.saturating_sub(before)) as f64 / n as f64;
    println!(
        "{label}: {n} databases created: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms, total {:.1} s",
        percentile(&sorted, 0.5),
        percentile(&sorted, 0.99),
        percentile(&sorted, 1.0),
        took.iter().sum::<Duration>().as_secs_f64()
    );
    println!(
        "{label}: per database: {:.0} KiB resident, {:.2} file descriptors, {:.2} threads \
         (process: {} → {} MiB, {fds0} → {fds1} fds, {threads0} → {threads1} threads)",
        per(rss0, rss1) / 1024.0,
        per(fds0, fds1),
        per(threads0, threads1),
        rss0 >> 20,
        rss1 >> 20,
    );
    // What the databases cost while nothing happens: CPU time over an idle interval.
    let idle = Duration::from_secs(5);
    let before = cpu_time();
    tokio::time::sleep(idle).await;
    let used = cpu_time().saturating_sub(before);
    println!(
        "{label}: idle for {} s with {n} databases: {:.0} ms of CPU ({:.1}% of one core)",
        idle.as_secs(),
        used.as_secs_f64() * 1e3,
        used.as_secs_f64() / idle.as_secs_f64() * 100.0
    );
    node.trigger().shutdown();
    let stopped = Instant::now();
    let report = node.run().await;
    println!(
        "{label}: closed in {:.1} s (clean: {})",
        stopped.elapsed().as_secs_f64(),
        report.closed
    );
    let Some(dir) = dir else {
        return;
    };
    let started = Instant::now();
    let node = NodeBuilder::new(config(Some(dir)))
        .build()
        .await
        .expect("node");
    let opened = started.elapsed();
    let db = std::sync::Arc::clone(node.database());
    let online = tokio::task::spawn_blocking(move || {
        db.execute(
            "SHOW DATABASES YIELD currentStatus WHERE currentStatus = 'online' RETURN count(*)",
            Map::new(),
        )
        .expect("show")
        .rows[0][0]
            .clone()
    })
    .await
    .expect("show");
    println!(
        "{label}: restarted with every database in {:.1} s; online: {online:?} of {}",
        opened.as_secs_f64(),
        n + 2
    );
    node.trigger().shutdown();
    node.run().await;
}

/// Each storage runs in a process of its own, so that what one freed does not hide what the
/// other takes.
fn main() {
    let n = databases();
    let Some(mode) = std::env::var_os("QUIVER_DATABASES_MODE") else {
        for mode in ["directory", "memory"] {
            let status = std::process::Command::new(std::env::current_exe().expect("bench"))
                .env("QUIVER_DATABASES_MODE", mode)
                .status()
                .expect("bench process");
            assert!(status.success(), "{mode}: {status}");
        }
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    if mode == "memory" {
        runtime.block_on(run("in memory", None, n));
        return;
    }
    let base = std::env::var_os("QUIVER_BENCH_DIR").map(std::path::PathBuf::from);
    let dir = match &base {
        Some(base) => tempfile::tempdir_in(base),
        None => tempfile::tempdir(),
    }
    .expect("directory");
    runtime.block_on(run("data directory", Some(&dir.path().join("data")), n));
}
