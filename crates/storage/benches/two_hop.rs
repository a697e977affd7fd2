//! Two-hop expansion from random start nodes on the social graph: edges visited per second on
//! one core (both hops counted).

mod common;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quiver_storage::{Direction, NodeId, RelId};

const STARTS: usize = 1000;

fn bench(c: &mut Criterion) {
    let n = common::nodes_from_env(1_000_000);
    let (g, _) = common::build(n, 42);
    let starts = g.random_people(STARTS, 9);
    let tx = g.db.begin_read();
    let types = [g.knows];
    let two_hop = |buf1: &mut Vec<(RelId, NodeId)>, buf2: &mut Vec<(RelId, NodeId)>| {
        let mut edges = 0u64;
        for s in &starts {
            buf1.clear();
            tx.expand_into(*s, Direction::Out, &types, buf1).unwrap();
            edges += buf1.len() as u64;
            for (_, m) in buf1.iter() {
                buf2.clear();
                tx.expand_into(*m, Direction::Out, &types, buf2).unwrap();
                edges += buf2.len() as u64;
                black_box(&buf2);
            }
        }
        edges
    };
    // The second hop as one batched expand over the first hop's neighbours.
    let two_hop_batched = |buf1: &mut Vec<(RelId, NodeId)>,
                           mids: &mut Vec<NodeId>,
                           buf2: &mut Vec<(u32, RelId, NodeId)>| {
        let mut edges = 0u64;
        for s in &starts {
            buf1.clear();
            tx.expand_into(*s, Direction::Out, &types, buf1).unwrap();
            edges += buf1.len() as u64;
            mids.clear();
            mids.extend(buf1.iter().map(|(_, m)| *m));
            buf2.clear();
            tx.expand_batch(mids, Direction::Out, &types, buf2).unwrap();
            edges += buf2.len() as u64;
            black_box(&buf2);
        }
        edges
    };
    let (mut b1, mut b2) = (Vec::new(), Vec::new());
    let (mut mids, mut b3) = (Vec::new(), Vec::new());
    let edges = two_hop(&mut b1, &mut b2);
    assert_eq!(two_hop_batched(&mut b1, &mut mids, &mut b3), edges);
    let (t, cpu) = (std::time::Instant::now(), common::thread_cpu_secs());
    let mut visited = 0u64;
    while t.elapsed().as_secs_f64() < 3.0 {
        visited += two_hop(&mut b1, &mut b2);
    }
    println!(
        "two_hop: {n} nodes | edges/s {:.0} | edges per CPU-second {:.0}",
        visited as f64 / t.elapsed().as_secs_f64(),
        visited as f64 / (common::thread_cpu_secs() - cpu)
    );
    let (t, cpu) = (std::time::Instant::now(), common::thread_cpu_secs());
    let mut visited = 0u64;
    while t.elapsed().as_secs_f64() < 3.0 {
        visited += two_hop_batched(&mut b1, &mut mids, &mut b3);
    }
    println!(
        "two_hop batched: {n} nodes | edges/s {:.0} | edges per CPU-second {:.0}",
        visited as f64 / t.elapsed().as_secs_f64(),
        visited as f64 / (common::thread_cpu_secs() - cpu)
    );
    let mut group = c.benchmark_group("two_hop");
    group.throughput(Throughput::Elements(edges));
    group.bench_function(format!("{STARTS}_starts_{n}_nodes"), |b| {
        b.iter(|| two_hop(&mut b1, &mut b2));
    });
    group.bench_function(format!("{STARTS}_starts_{n}_nodes_batched"), |b| {
        b.iter(|| two_hop_batched(&mut b1, &mut mids, &mut b3));
    });
    group.finish();
}

criterion_group!(benches, bench);

criterion_main!(benches);
