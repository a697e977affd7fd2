//! The readers-vs-writers table with `group` durability, through Cypher: 32 writers each
//! committing one small Cypher write at a time (and waiting for it to be durable), against 0,
//! 4, 16 and 32 readers each running an index seek then a two-hop count in a read transaction
//! on a 100,000-node graph. Readers start at the durable watermark and hold nothing while
//! syncs run, so the goal is writes/s with 32 readers ≥ 95% of writes/s with none, and reads/s
//! not capped by the disk. The same work through the storage API alone (no parsing, planning
//! or row building) is kept as a variant, to tell the engine's cost from the store's.
//!
//! `cargo bench -p quiver-engine --bench readers_writers` (`QUIVER_BENCH_SECS`, `QUIVER_BENCH_REPS`,
//! `QUIVER_BENCH_DIR`, `QUIVER_RW_NODES`, `QUIVER_RW_DEGREE`, `QUIVER_RW_MODE`,
//! `QUIVER_RW_READERS`, `QUIVER_RW_READ_PAUSE_US`: a think time between one reader's reads,
//! `QUIVER_RW_API=storage`: the storage-API variant instead of Cypher).

#[path = "../../durability/benches/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::{bench_dir, env_u64, per_sec, round};
use quiver_durability::{Durability, Mode, Options};
use quiver_engine::{Database, EngineConfig, PullState, TxOptions};
use quiver_storage::{Direction, IndexQuery, LabelId, PropKeyId, RelTypeId, Storage};
use quiver_value::{Map, Value};
use rand::Rng;

const WRITERS: u64 = 32;
const BUILD_OPS_PER_COMMIT: u64 = 5_000;

/// The writers' statement: one property set on a person found through the index.
const WRITE: &str = "MATCH (p:Person {id: $id}) SET p.score = $v";
/// The readers' statement: an index seek, then the count of the person's friends' friends.
const READ: &str = "MATCH (p:Person {id: $id})-[:KNOWS]->()-[:KNOWS]->(f) RETURN count(f) AS c";

/// Which layer the writers and readers go through.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Api {
    /// Parsed, planned and executed Cypher in engine transactions (the table).
    Cypher,
    /// Storage transactions called directly (the floor the engine adds its cost to).
    Storage,
}

impl Api {
    fn name(self) -> &'static str {
        match self {
            Api::Cypher => "Cypher",
            Api::Storage => "storage API",
        }
    }
}

#[derive(Clone, Copy)]
struct Tokens {
    person: LabelId,
    id: PropKeyId,
    score: PropKeyId,
    knows: RelTypeId,
}

/// Everything a writer or reader thread needs.
#[derive(Clone)]
struct Bench {
    api: Api,
    store: Arc<Storage>,
    engine: Arc<Database>,
    durability: Arc<Durability>,
    tokens: Tokens,
    nodes: u64,
}

/// Creates the index (through Cypher when the bench runs through Cypher, so the planner sees
/// the index it would in a server), then loads people and relationships in large storage
/// commits: the load is set-up, not what is measured.
fn build(
    store: &Arc<Storage>,
    engine: &Database,
    d: &Durability,
    api: Api,
    nodes: u64,
    degree: u64,
) -> Tokens {
    match api {
        Api::Cypher => {
            let r = engine
                .execute(
                    "CREATE INDEX person_id FOR (p:Person) ON (p.id)",
                    Map::new(),
                )
                .expect("index");
            let commit = r.summary.commit.expect("the index commits").commit;
            d.wait_for(commit).expect("wait");
        }
        Api::Storage => {
            let person = store.get_or_create_label("Person").expect("label");
            let id = store.get_or_create_property_key("id").expect("key");
            let tx = store.begin_write();
            tx.create_index(person, id, Some("person_id"))
                .expect("index");
            d.wait(&tx.commit().expect("commit")).expect("wait");
        }
    }
    let t = Tokens {
        person: store.get_or_create_label("Person").expect("label"),
        id: store.get_or_create_property_key("id").expect("key"),
        score: store.get_or_create_property_key("score").expect("key"),
        knows: store.get_or_create_rel_type("KNOWS").expect("type"),
    };
    let mut ids = Vec::with_capacity(nodes as usize);
    for chunk in (0..nodes)
        .collect::<Vec<_>>()
        .chunks(BUILD_OPS_PER_COMMIT as usize)
    {
        let tx = store.begin_write();
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
        let tx = store.begin_write();
        for &(a, b) in chunk {
            tx.create_relationship(ids[a], ids[b], t.knows, &[])
                .expect("relationship");
        }
        d.wait(&tx.commit().expect("commit")).expect("wait");
    }
    t
}

fn params(pairs: &[(&str, i64)]) -> Map {
    pairs
        .iter()
        .map(|&(k, v)| (Arc::from(k), Value::Int(v)))
        .collect()
}

impl Bench {
    /// Sets person `id`'s score to `v` in one commit and returns once that commit is durable.
    fn write_once(&self, id: i64, v: i64) {
        match self.api {
            Api::Cypher => {
                let r = self
                    .engine
                    .execute(WRITE, params(&[("id", id), ("v", v)]))
                    .expect("write");
                assert_eq!(r.summary.stats.properties_set, 1, "person {id} not found");
                let commit = r.summary.commit.expect("an auto-commit write commits");
                self.durability.wait_for(commit.commit).expect("wait");
            }
            Api::Storage => {
                let t = self.tokens;
                let tx = self.store.begin_write();
                let person = tx
                    .index_seek(t.person, t.id, IndexQuery::Equals(Value::Int(id)))
                    .expect("seek")
                    .next();
                let Some(Ok(person)) = person else {
                    panic!("person {id} not found")
                };
                tx.set_node_property(person, t.score, Value::Int(v))
                    .expect("set");
                let info = tx.commit().expect("commit");
                self.durability.wait(&info).expect("wait");
            }
        }
    }

    /// An index seek for person `id`, then the count of their friends' friends.
    fn read_once(&self, id: i64) -> u64 {
        match self.api {
            Api::Cypher => {
                let mut tx = self.engine.begin(TxOptions::read()).expect("begin");
                let q = tx.run(READ, params(&[("id", id)])).expect("run");
                let mut rows = Vec::with_capacity(1);
                let state = tx.pull(q, -1, &mut rows).expect("pull");
                assert!(matches!(state, PullState::Done(_)), "the count is one row");
                tx.commit().expect("commit");
                match rows.first().and_then(|r| r.first()) {
                    Some(Value::Int(c)) => u64::try_from(*c).expect("a count"),
                    other => panic!("the count came back as {other:?}"),
                }
            }
            Api::Storage => {
                let t = self.tokens;
                let tx = self.store.begin_read();
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
        }
    }
}

struct Row {
    readers: u64,
    writes: f64,
    reads: f64,
    mean_batch: f64,
}

fn run_row(b: &Arc<Bench>, readers: u64) -> Row {
    let secs = round();
    let stop = Arc::new(AtomicBool::new(false));
    let writes = Arc::new(AtomicU64::new(0));
    let reads = Arc::new(AtomicU64::new(0));
    let before = b.durability.stats().commits_per_fsync;
    let start = Instant::now();
    let mut threads = Vec::new();
    for w in 0..WRITERS {
        let (b, stop, writes) = (b.clone(), stop.clone(), writes.clone());
        threads.push(std::thread::spawn(move || {
            // Writer `w` owns the people whose id is `w` modulo the writer count, so writers
            // never conflict with each other.
            let mut k = 0u64;
            let mut n = 0i64;
            while !stop.load(Ordering::Relaxed) {
                let id = (w + WRITERS * k) % b.nodes;
                k += 1;
                n += 1;
                b.write_once(id as i64, n);
                writes.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let pause = Duration::from_micros(env_u64("QUIVER_RW_READ_PAUSE_US", 0));
    for _ in 0..readers {
        let (b, stop, reads) = (b.clone(), stop.clone(), reads.clone());
        threads.push(std::thread::spawn(move || {
            let mut rng = rand::rng();
            let mut sink = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let id = rng.random_range(0..b.nodes) as i64;
                sink = sink.wrapping_add(b.read_once(id));
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
    let after = b.durability.stats().commits_per_fsync;
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

/// Both paths must agree on the answer, and the Cypher read must start from the index.
fn check(b: &Bench) {
    let cypher = Bench {
        api: Api::Cypher,
        ..b.clone()
    };
    let storage = Bench {
        api: Api::Storage,
        ..b.clone()
    };
    for id in [0, b.nodes as i64 / 2, b.nodes as i64 - 1] {
        assert_eq!(cypher.read_once(id), storage.read_once(id), "person {id}");
    }
    let plan = b
        .engine
        .execute(&format!("EXPLAIN {READ}"), params(&[("id", 0)]))
        .expect("explain")
        .summary
        .plan
        .expect("a plan")
        .render();
    assert!(plan.contains("NodeIndexSeek"), "{plan}");
}

fn main() {
    let nodes = env_u64("QUIVER_RW_NODES", 100_000);
    let degree = env_u64("QUIVER_RW_DEGREE", 5);
    let api = match std::env::var("QUIVER_RW_API").as_deref() {
        Ok("storage") => Api::Storage,
        Ok("cypher") | Err(_) => Api::Cypher,
        Ok(other) => panic!("QUIVER_RW_API is `cypher` or `storage`, not `{other}`"),
    };
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
    let (store, d) = Durability::open(dir.path(), mode, opts).expect("open");
    let engine = Database::with_storage(store.clone(), EngineConfig::default());
    let built = Instant::now();
    let tokens = build(&store, &engine, &d, api, nodes, degree);
    println!(
        "graph: {nodes} nodes, {} relationships, built in {:.1} s; {WRITERS} writers through {}, {mode} durability, {} s rounds",
        nodes * degree,
        built.elapsed().as_secs_f64(),
        api.name(),
        round().as_secs()
    );
    let b = Arc::new(Bench {
        api,
        store,
        engine,
        durability: Arc::new(d),
        tokens,
        nodes,
    });
    check(&b);
    // Warm-up round, not reported.
    let _ = run_row(&b, 4);
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
            let r = run_row(&b, row.readers);
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
