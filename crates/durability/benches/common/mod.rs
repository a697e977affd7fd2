//! Shared by the durability bench binaries: where data goes, how long to run, and the small
//! write every committer makes.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use quiver_storage::{CommitInfo, NodeId, PropKeyId, RelTypeId, Storage};
use quiver_value::Value;
use rand::Rng;

/// A fresh directory on the disk being measured: `QUIVER_BENCH_DIR` if set, else the target
/// directory (not `/tmp`, which may be a memory file system where a sync costs nothing).
pub fn bench_dir(name: &str) -> tempfile::TempDir {
    let base = std::env::var_os("QUIVER_BENCH_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")), PathBuf::from);
    std::fs::create_dir_all(&base).expect("bench directory");
    tempfile::Builder::new()
        .prefix(name)
        .tempdir_in(base)
        .expect("bench directory")
}

pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// How long each measured round runs (`QUIVER_BENCH_SECS`, default 5).
pub fn round() -> Duration {
    Duration::from_secs(env_u64("QUIVER_BENCH_SECS", 5))
}

/// One small write: a node with two properties.
pub fn small_commit(db: &Arc<Storage>, writer: i64, n: i64) -> quiver_storage::Result<CommitInfo> {
    let label = db.get_or_create_label("Event")?;
    let w = db.get_or_create_property_key("w")?;
    let k = db.get_or_create_property_key("n")?;
    let tx = db.begin_write();
    tx.create_node(&[label], &[(w, Value::Int(writer)), (k, Value::Int(n))])?;
    tx.commit()
}

pub fn per_sec(n: u64, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

/// Operations per commit while a bench builds its graph.
pub const OPS_PER_COMMIT: usize = 10_000;
/// Relationships per node: the 6.5 of the target graph, as a ratio of integers.
pub const RELS_PER_TEN_NODES: u64 = 65;

/// The graph's tokens and its nodes, in creation order.
pub struct Graph {
    pub name: PropKeyId,
    pub knows: RelTypeId,
    pub ids: Vec<NodeId>,
}

/// `nodes` people with an indexed id and a name, and `rels` random KNOWS relationships between
/// them, committed `OPS_PER_COMMIT` at a time.
pub fn build_graph(db: &Arc<Storage>, nodes: u64, rels: u64) -> Graph {
    let person = db.get_or_create_label("Person").expect("label");
    let id = db.get_or_create_property_key("id").expect("key");
    let name = db.get_or_create_property_key("name").expect("key");
    let knows = db.get_or_create_rel_type("KNOWS").expect("type");
    let since = db.get_or_create_property_key("since").expect("key");
    let tx = db.begin_write();
    tx.create_index(person, id, Some("person_id"))
        .expect("index");
    tx.commit().expect("commit");
    let mut ids = Vec::with_capacity(nodes as usize);
    let mut i = 0u64;
    while i < nodes {
        let tx = db.begin_write();
        for _ in 0..OPS_PER_COMMIT.min((nodes - i) as usize) {
            ids.push(
                tx.create_node(
                    &[person],
                    &[
                        (id, Value::Int(i as i64)),
                        (name, Value::from(format!("person {i}"))),
                    ],
                )
                .expect("node"),
            );
            i += 1;
        }
        tx.commit().expect("commit");
    }
    let mut rng = rand::rng();
    let mut r = 0u64;
    while r < rels {
        let tx = db.begin_write();
        for _ in 0..OPS_PER_COMMIT.min((rels - r) as usize) {
            let a = ids[rng.random_range(0..ids.len())];
            let b = ids[rng.random_range(0..ids.len())];
            tx.create_relationship(a, b, knows, &[(since, Value::Int(2000 + (r % 25) as i64))])
                .expect("relationship");
            r += 1;
        }
        tx.commit().expect("commit");
    }
    Graph { name, knows, ids }
}
