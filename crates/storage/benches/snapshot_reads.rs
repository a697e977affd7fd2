//! Snapshot reads with and without one writer committing in a loop beside them.
//!
//! A read is a transaction doing 100 point reads (a property and an out-expand of a random
//! node). The writer commits small transactions that update `name` on random nodes, so readers
//! meet fresh version chains. Criterion times both cases; the figure of interest is the ratio.

mod common;

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quiver_storage::{Direction, NodeId};
use quiver_value::Value;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const READS_PER_TX: usize = 100;

fn read_tx(g: &common::Social, rng: &mut StdRng, buf: &mut Vec<(quiver_storage::RelId, NodeId)>) {
    let tx = g.db.begin_read();
    for _ in 0..READS_PER_TX {
        let n = g.nodes[rng.random_range(0..g.nodes.len())];
        black_box(tx.node_property(n, g.name).unwrap());
        buf.clear();
        tx.expand_into(n, Direction::Out, &[], buf).unwrap();
        black_box(&buf);
    }
    tx.commit().unwrap();
}

fn start_writer(
    g: &Arc<common::Social>,
) -> (Arc<AtomicBool>, Arc<AtomicU64>, thread::JoinHandle<()>) {
    let stop = Arc::new(AtomicBool::new(false));
    let commits = Arc::new(AtomicU64::new(0));
    let (g2, s2, c2) = (g.clone(), stop.clone(), commits.clone());
    let h = thread::spawn(move || {
        let mut rng = StdRng::seed_from_u64(3);
        let mut i = 0u64;
        while !s2.load(Ordering::Relaxed) {
            let tx = g2.db.begin_write();
            for _ in 0..10 {
                let n = g2.nodes[rng.random_range(0..g2.nodes.len())];
                i += 1;
                if tx
                    .set_node_property(n, g2.name, Value::from(format!("w{i}")))
                    .is_err()
                {
                    break;
                }
            }
            tx.commit().unwrap();
            c2.fetch_add(1, Ordering::Relaxed);
        }
    });
    (stop, commits, h)
}

/// Reads per wall-second and per CPU-second of the reading thread.
fn reads_per_sec(g: &common::Social, secs: f64) -> (f64, f64) {
    let mut rng = StdRng::seed_from_u64(1);
    let mut buf = Vec::new();
    let (t, c) = (std::time::Instant::now(), common::thread_cpu_secs());
    let mut n = 0u64;
    while t.elapsed().as_secs_f64() < secs {
        read_tx(g, &mut rng, &mut buf);
        n += READS_PER_TX as u64;
    }
    (
        n as f64 / t.elapsed().as_secs_f64(),
        n as f64 / (common::thread_cpu_secs() - c),
    )
}

fn bench(c: &mut Criterion) {
    let n = common::nodes_from_env(1_000_000).min(200_000);
    let g = Arc::new(common::build(n, 42).0);

    // A direct side-by-side figure, alternating rounds to spread machine noise.
    let (mut alone, mut beside, mut commits_total) = ((0.0, 0.0), (0.0, 0.0), 0);
    for _ in 0..3 {
        let a = reads_per_sec(&g, 1.0);
        let (stop, commits, h) = start_writer(&g);
        let b = reads_per_sec(&g, 1.0);
        stop.store(true, Ordering::Relaxed);
        h.join().unwrap();
        commits_total += commits.load(Ordering::Relaxed);
        alone = (alone.0 + a.0, alone.1 + a.1);
        beside = (beside.0 + b.0, beside.1 + b.1);
    }
    println!(
        "snapshot_reads: {n} nodes | reads/s alone {:.0} | with writer {:.0} | ratio {:.2} | \
         per reader CPU-second: alone {:.0}, with writer {:.0}, ratio {:.2} | \
         writer commits/s {:.0}",
        alone.0 / 3.0,
        beside.0 / 3.0,
        beside.0 / alone.0,
        alone.1 / 3.0,
        beside.1 / 3.0,
        beside.1 / alone.1,
        commits_total as f64 / 3.0
    );

    let mut group = c.benchmark_group("snapshot_reads");
    group.throughput(Throughput::Elements(READS_PER_TX as u64));
    let mut rng = StdRng::seed_from_u64(5);
    let mut buf = Vec::new();
    group.bench_function("no_writer", |b| b.iter(|| read_tx(&g, &mut rng, &mut buf)));
    let (stop, _, h) = start_writer(&g);
    group.bench_function("with_writer", |b| {
        b.iter(|| read_tx(&g, &mut rng, &mut buf));
    });
    stop.store(true, Ordering::Relaxed);
    h.join().unwrap();
    group.finish();
}

criterion_group!(benches, bench);

criterion_main!(benches);
