//! Vector index figures for docs/PERFORMANCE.md, in process: N generated vectors (clustered,
//! as embeddings are) loaded through Cypher into a cosine vector index, then the build time,
//! the resident memory per vector, recall@10 against exact search and queries per second at 1
//! and 8 threads.
//!
//!   cargo run --release -p quiver-engine --example vector_bench -- [vectors] [dimensions]

use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_engine::{Database, EngineConfig};
use quiver_value::{Map, Value};

/// Vectors a load transaction writes.
const BATCH: usize = 1000;
const QUERIES: usize = 200;
const CLUSTERS: usize = 100;
const RUN_FOR: Duration = Duration::from_secs(5);

struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f64 = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (na * nb)
}

fn as_value(v: &[f64]) -> Value {
    Value::from(v.iter().map(|x| Value::Float(*x)).collect::<Vec<_>>())
}

fn query(db: &Database, q: &[f64]) -> Vec<i64> {
    let params: Map = [(Arc::from("q"), as_value(q))].into_iter().collect();
    db.execute(
        "CALL db.index.vector.queryNodes('emb', 10, $q) YIELD node RETURN node.i AS i",
        params,
    )
    .expect("query")
    .rows
    .into_iter()
    .map(|r| match r[0] {
        Value::Int(i) => i,
        _ => -1,
    })
    .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let dimensions: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(128);
    let mut rng = Rng(0x5eed_0000_0000_0042);
    let centres: Vec<Vec<f64>> = (0..CLUSTERS)
        .map(|_| (0..dimensions).map(|_| rng.unit() * 4.0).collect())
        .collect();
    let point = |rng: &mut Rng, i: usize| -> Vec<f64> {
        centres[i % CLUSTERS]
            .iter()
            .map(|x| x + rng.unit())
            .collect()
    };
    let data: Vec<Vec<f64>> = (0..n).map(|i| point(&mut rng, i)).collect();
    let queries: Vec<Vec<f64>> = (0..QUERIES).map(|i| point(&mut rng, i * 7 + 3)).collect();

    let db = Database::open_in_memory(EngineConfig::default());
    db.execute(
        &format!(
            "CREATE VECTOR INDEX emb FOR (e:E) ON (e.v) OPTIONS {{indexConfig: \
             {{`vector.dimensions`: {dimensions}, `vector.similarity_function`: 'cosine'}}}}"
        ),
        Map::new(),
    )
    .expect("index");
    let before = rss_bytes();
    let started = Instant::now();
    for (b, chunk) in data.chunks(BATCH).enumerate() {
        let rows: Vec<Value> = chunk.iter().map(|v| as_value(v)).collect();
        let params: Map = [
            (Arc::from("vs"), Value::from(rows)),
            (Arc::from("base"), Value::Int((b * BATCH) as i64)),
        ]
        .into_iter()
        .collect();
        db.execute(
            "UNWIND range(0, size($vs) - 1) AS k CREATE (:E {i: $base + k, v: $vs[k]})",
            params,
        )
        .expect("load");
    }
    let load = started.elapsed();
    let loaded = rss_bytes();
    // The first query builds nothing (the graph filled at each commit); time it anyway.
    let first = Instant::now();
    query(&db, &queries[0]);
    let first = first.elapsed();
    println!(
        "vectors {n} dimensions {dimensions}: load+index {:.1} s ({:.0} vectors/s), first query {:.1} ms",
        load.as_secs_f64(),
        n as f64 / load.as_secs_f64(),
        first.as_secs_f64() * 1e3
    );
    println!(
        "resident memory per vector (store + graph): {:.0} bytes (raw f64 list {} bytes)",
        (loaded.saturating_sub(before)) as f64 / n as f64,
        dimensions * 8
    );

    let mut found = 0;
    for q in &queries {
        let mut exact: Vec<(f64, usize)> = data
            .iter()
            .enumerate()
            .map(|(i, v)| (cosine(q, v), i))
            .collect();
        exact.sort_by(|a, b| b.0.total_cmp(&a.0));
        let truth: Vec<i64> = exact[..10].iter().map(|(_, i)| *i as i64).collect();
        found += query(&db, q).iter().filter(|i| truth.contains(i)).count();
    }
    println!(
        "recall@10 against exact search: {:.3} ({QUERIES} queries)",
        found as f64 / (10 * QUERIES) as f64
    );

    for threads in [1, 8] {
        let done = std::sync::atomic::AtomicUsize::new(0);
        let started = Instant::now();
        std::thread::scope(|s| {
            for t in 0..threads {
                let (db, queries, done) = (&db, &queries, &done);
                s.spawn(move || {
                    let mut i = t;
                    while started.elapsed() < RUN_FOR {
                        query(db, &queries[i % queries.len()]);
                        done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        i += threads;
                    }
                });
            }
        });
        let count = done.into_inner();
        println!(
            "{threads} thread(s): {:.0} queries/s (k = 10)",
            count as f64 / started.elapsed().as_secs_f64()
        );
    }
}
