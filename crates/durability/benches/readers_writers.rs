//! The readers-vs-writers table at the storage level, with `group` durability: 32 writers
//! each committing one small write at a time (and waiting for it to be durable), against 0,
//! 4, 16 and 32 readers each doing an index seek then a two-hop count on a 100,000-node
//! graph. Readers start at the durable watermark and hold nothing while syncs run, so the
//! goal is writes/s with 32 readers ≥ 95% of writes/s with none, and reads/s not capped by
//! the disk.
//!
//! `cargo bench -p quiver-durability --bench readers_writers` (`QUIVER_BENCH_SECS`, `QUIVER_BENCH_REPS`,
//! `QUIVER_BENCH_DIR`, `QUIVER_RW_NODES`, `QUIVER_RW_DEGREE`, `QUIVER_RW_MODE`,
//! `QUIVER_RW_READERS`, `QUIVER_RW_READ_PAUSE_US`: a think time between one reader's reads).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::{bench_dir, env_u64, per_sec, round};
use quiver_durability::{Durability, Mode, Options};
use quiver_storage::{Direction, IndexQuery, LabelId, PropKeyId, RelTypeId, Storage};
use quiver_value::Value;
use rand::Rng;

const WRITERS: u64 = 32;
const BUILD_OPS_PER_COMMIT: u64 = 5_000;

#[derive(Clone, Copy)]
struct Tokens {
    person: LabelId,
    id: PropKeyId,
    score: PropKeyId,
    knows: RelTypeId,
}

fn build(db: &Arc<Storage>, d: &Durability, nodes: u64, degree: u64) -> Tokens {
    let t = Tokens {
        person: db.get_or_create_label("Person").expect("label"),
        id: db.get_or_create_property_key("id").expect("key"),
        score: db.get_or_create_property_key("score").expect("key"),
        knows: db.get_or_create_rel_type("KNOWS").expect("type"),
    };
    let tx = db.begin_write();
    tx.create_index(t.person, t.id, Some("person_id"))
        .expect("index");
    d.wait(&tx.commit().expect("commit")).expect("wait");
    let mut ids = Vec::with_capacity(nodes as usize);
    for chunk in (0..nodes)
        .collect::<Vec<_>>()
        .chunks(BUILD_OPS_PER_COMMIT as usize)
    {
        let tx = db.begin_write();
        for &i in chunk {
            ids.push(
                tx.create_node(&[t.person], &[(t.id, Value::Int(i as i64))])
                    .expect("node"),
            );
        }
        d.wait(&tx.commit().expect("commit")).expect("wait");
    }
    let mut rng = rand::rng();
    let rels: Vec<(usize, usize)> = (0..nodes as usize)
        .flat_map(|a| (0..degree).map(move |_| a))
        .map(|a| (a, rng.random_range(0..nodes as usize)))
        .collect();
    for chunk in rels.chunks(BUILD_OPS_PER_COMMIT as usize) {
        let tx = db.begin_write();
        for &(a, b) in chunk {
            tx.create_relationship(ids[a], ids[b], t.knows, &[])
                .expect("relationship");
        }
        d.wait(&tx.commit().expect("commit")).expect("wait");
    }
    t
}

/// An index seek for a random person, then the count of their friends' friends.
fn read_once(db: &Arc<Storage>, t: Tokens, nodes: u64, rng: &mut impl Rng) -> u64 {
    let tx = db.begin_read();
    let id = rng.random_range(0..nodes) as i64;
    let mut total = 0;
    for n in tx
        .index_seek(t.person, t.id, IndexQuery::Equals(Value::Int(id)))
        .expect("seek")
    {
        let n = n.expect("node");
        for (_, friend) in tx.expand(n, Direction::Out, &[t.knows]).expect("expand") {
            total += tx
                .degree(friend, Direction::Out, &[t.knows])
                .expect("degree") as u64;
        }
    }
    total
}

struct Row {
    readers: u64,
    writes: f64,
    reads: f64,
    mean_batch: f64,
}

fn run_row(db: &Arc<Storage>, d: &Arc<Durability>, t: Tokens, nodes: u64, readers: u64) -> Row {
    let secs = round();
    let stop = Arc::new(AtomicBool::new(false));
    let writes = Arc::new(AtomicU64::new(0));
    let reads = Arc::new(AtomicU64::new(0));
    let before = d.stats().commits_per_fsync;
    let start = Instant::now();
    let mut threads = Vec::new();
    for w in 0..WRITERS {
        let (db, d, stop, writes) = (db.clone(), d.clone(), stop.clone(), writes.clone());
        threads.push(std::thread::spawn(move || {
            // Writer `w` owns the people whose id is `w` modulo the writer count, so writers
            // never conflict with each other.
            let mut k = 0u64;
            let mut n = 0i64;
            while !stop.load(Ordering::Relaxed) {
                let id = (w + WRITERS * k) % nodes;
                k += 1;
                n += 1;
                let tx = db.begin_write();
                let person = tx
                    .index_seek(t.person, t.id, IndexQuery::Equals(Value::Int(id as i64)))
                    .expect("seek")
                    .next();
                let Some(Ok(person)) = person else { continue };
                tx.set_node_property(person, t.score, Value::Int(n))
                    .expect("set");
                let info = tx.commit().expect("commit");
                d.wait(&info).expect("wait");
                writes.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let pause = Duration::from_micros(env_u64("QUIVER_RW_READ_PAUSE_US", 0));
    for _ in 0..readers {
        let (db, stop, reads) = (db.clone(), stop.clone(), reads.clone());
        threads.push(std::thread::spawn(move || {
            let mut rng = rand::rng();
            let mut sink = 0u64;
            while !stop.load(Ordering::Relaxed) {
                sink = sink.wrapping_add(read_once(&db, t, nodes, &mut rng));
                reads.fetch_add(1, Ordering::Relaxed);
                if !pause.is_zero() {
                    std::thread::sleep(pause);
                }
            }
            std::hint::black_box(sink);
        }));
    }
    std::thread::sleep(secs);
    stop.store(true, Ordering::Relaxed);
    for th in threads {
        th.join().expect("thread");
    }
    let elapsed = start.elapsed();
    let after = d.stats().commits_per_fsync;
    let batches = after.count - before.count;
    Row {
        readers,
        writes: per_sec(writes.load(Ordering::Relaxed), elapsed),
        reads: per_sec(reads.load(Ordering::Relaxed), elapsed),
        mean_batch: if batches == 0 {
            0.0
        } else {
            (after.sum - before.sum) as f64 / batches as f64
        },
    }
}

fn main() {
    let nodes = env_u64("QUIVER_RW_NODES", 100_000);
    let degree = env_u64("QUIVER_RW_DEGREE", 5);
    let dir = bench_dir("rw");
    let opts = Options {
        snapshot_background: false,
        snapshot_on_close: false,
        ..Options::default()
    };
    // `QUIVER_RW_MODE=buffered` is the control: the same CPU and lock traffic, no disk waits.
    let mode: Mode = std::env::var("QUIVER_RW_MODE")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(Mode::Group);
    let (db, d) = Durability::open(dir.path(), mode, opts).expect("open");
    let built = Instant::now();
    let t = build(&db, &d, nodes, degree);
    println!(
        "graph: {nodes} nodes, {} relationships, built in {:.1} s; {WRITERS} writers, {mode} durability, {} s rounds",
        nodes * degree,
        built.elapsed().as_secs_f64(),
        round().as_secs()
    );
    let d = Arc::new(d);
    // Warm-up round, not reported.
    let _ = run_row(&db, &d, t, nodes, 4);
    // `QUIVER_RW_READERS=0,32` runs only those rows.
    let counts: Vec<u64> = std::env::var("QUIVER_RW_READERS").ok().map_or_else(
        || vec![0, 4, 16, 32],
        |v| v.split(',').filter_map(|c| c.trim().parse().ok()).collect(),
    );
    // Rows interleave round by round: a shared machine drifts, and each row should see the
    // same mix of its moods.
    let reps = env_u64("QUIVER_BENCH_REPS", 3).max(1);
    let mut rows: Vec<Row> = counts
        .iter()
        .map(|&readers| Row {
            readers,
            writes: 0.0,
            reads: 0.0,
            mean_batch: 0.0,
        })
        .collect();
    for _ in 0..reps {
        for row in &mut rows {
            let r = run_row(&db, &d, t, nodes, row.readers);
            row.writes += r.writes / reps as f64;
            row.reads += r.reads / reps as f64;
            row.mean_batch += r.mean_batch / reps as f64;
        }
    }
    let base = rows.first().map_or(1.0, |r| r.writes);
    println!("| readers | writes/s | vs. no readers | reads/s | commits per fsync |");
    println!("|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {:.0} | {:.1}% | {:.0} | {:.1} |",
            r.readers,
            r.writes,
            100.0 * r.writes / base,
            r.reads,
            r.mean_batch
        );
    }
}
