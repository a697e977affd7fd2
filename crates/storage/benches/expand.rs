//! Typed expands at memory speed: two hops of `:KNOWS` out-edges from 1,000 random starts on
//! the social graph, both hops batched as the engine's Expand batches its input (64 rows at a
//! time, the second hop over all their neighbours at once), with no property read and with
//! one relationship-property filter (`r.since >= '2019-01-01'`, on both hops). Prints the
//! edges expanded (for the filter, expanded and tested) per CPU-second of the measuring
//! thread; criterion times the same work.

mod common;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quiver_storage::{Direction, NodeId, PropKeyId, PropOp, PropTest, RelId, Transaction};
use quiver_value::Value;

const STARTS: usize = 1000;
/// Rows the engine's Expand reads ahead into one batch.
const ROWS: usize = 64;
/// The filter's constant: about half of the dates (spread over 2014-2023) pass.
const SINCE_MIN: &str = "2019-01-01";

/// Edges expanded and edges kept.
type Count = (u64, u64);

/// How a hop is expanded: a batch of nodes in, the kept `(row, rel, neighbour)` out; returns
/// the edges expanded.
type Hop<'a> = dyn Fn(&[NodeId], &mut Vec<(u32, RelId, NodeId)>) -> u64 + 'a;

fn two_hop(starts: &[NodeId], hop: &Hop<'_>, bufs: &mut Bufs) -> Count {
    let (mut expanded, mut kept) = (0u64, 0u64);
    for rows in starts.chunks(ROWS) {
        bufs.first.clear();
        expanded += hop(rows, &mut bufs.first);
        kept += bufs.first.len() as u64;
        bufs.mids.clear();
        bufs.mids.extend(bufs.first.iter().map(|(_, _, m)| *m));
        bufs.second.clear();
        expanded += hop(&bufs.mids, &mut bufs.second);
        kept += bufs.second.len() as u64;
        black_box(&bufs.second);
    }
    (expanded, kept)
}

#[derive(Default)]
struct Bufs {
    first: Vec<(u32, RelId, NodeId)>,
    mids: Vec<NodeId>,
    second: Vec<(u32, RelId, NodeId)>,
}

/// Runs `f` for three seconds; prints its edges per wall- and per CPU-second.
fn measure(label: &str, n: usize, mut f: impl FnMut() -> Count) {
    let (t, cpu) = (std::time::Instant::now(), common::thread_cpu_secs());
    let (mut expanded, mut kept) = (0u64, 0u64);
    while t.elapsed().as_secs_f64() < 3.0 {
        let (e, k) = f();
        expanded += e;
        kept += k;
    }
    println!(
        "expand {label}: {n} nodes | edges/s {:.0} | edges per CPU-second {:.0} | kept {:.3}",
        expanded as f64 / t.elapsed().as_secs_f64(),
        expanded as f64 / (common::thread_cpu_secs() - cpu),
        kept as f64 / expanded as f64,
    );
}

fn bench(c: &mut Criterion) {
    let n = common::nodes_from_env(1_000_000);
    let (g, _) = common::build(n, 42);
    let starts = g.random_people(STARTS, 9);
    let tx = g.db.begin_read();
    let types = [g.knows];
    let test = PropTest {
        key: g.since,
        op: PropOp::Ge,
        value: Value::from(SINCE_MIN),
    };
    let plain = |nodes: &[NodeId], out: &mut Vec<(u32, RelId, NodeId)>| {
        tx.expand_batch(nodes, Direction::Out, &types, out).unwrap();
        out.len() as u64
    };
    // The filter as a caller without `expand_batch_where` writes it: each edge's property
    // read through the transaction.
    let per_edge = |nodes: &[NodeId], out: &mut Vec<(u32, RelId, NodeId)>| {
        tx.expand_batch(nodes, Direction::Out, &types, out).unwrap();
        let expanded = out.len() as u64;
        out.retain(|(_, r, _)| since_at_least(&tx, g.since, *r));
        expanded
    };
    let in_place = |nodes: &[NodeId], out: &mut Vec<(u32, RelId, NodeId)>| {
        let tested = tx
            .expand_batch_where(nodes, Direction::Out, &types, &test, out)
            .unwrap();
        tested as u64
    };
    let mut bufs = Bufs::default();
    let unfiltered = two_hop(&starts, &plain, &mut bufs);
    let filtered = two_hop(&starts, &per_edge, &mut bufs);
    assert_eq!(two_hop(&starts, &in_place, &mut bufs), filtered);
    assert!(filtered.1 < filtered.0 && filtered.1 > 0);
    measure("typed, batched", n, || two_hop(&starts, &plain, &mut bufs));
    measure("since filter, per-edge rel_property", n, || {
        two_hop(&starts, &per_edge, &mut bufs)
    });
    measure("since filter, expand_batch_where", n, || {
        two_hop(&starts, &in_place, &mut bufs)
    });
    let mut group = c.benchmark_group("expand");
    group.throughput(Throughput::Elements(unfiltered.0));
    group.bench_function(format!("{STARTS}_starts_{n}_nodes_typed"), |b| {
        b.iter(|| two_hop(&starts, &plain, &mut bufs));
    });
    group.throughput(Throughput::Elements(filtered.0));
    group.bench_function(format!("{STARTS}_starts_{n}_nodes_since_filter"), |b| {
        b.iter(|| two_hop(&starts, &in_place, &mut bufs));
    });
    group.finish();
}

fn since_at_least(tx: &Transaction, since: PropKeyId, rel: RelId) -> bool {
    let value = tx.rel_property(rel, since).unwrap();
    value
        .as_ref()
        .and_then(Value::as_str)
        .is_some_and(|s| s >= SINCE_MIN)
}

criterion_group!(benches, bench);

criterion_main!(benches);
