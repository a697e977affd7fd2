//! The social graph of the load laboratory, built through the embedded API: :Person nodes with
//! a 24-hex-digit `id` and a `name`, each with 5–8 :KNOWS out-edges to distinct others carrying
//! a `since` date string.

#![allow(dead_code)]

use std::sync::Arc;

use quiver_storage::{
    FulltextEntity, FulltextSpec, LabelId, NodeId, PropKeyId, RelTypeId, Storage,
};
use quiver_value::Value;
use quiver_value::temporal::calendar::{Ymd, ymd_from_days};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A consistent full-text index `docs` over property `text` of nodes labelled `D`, with the
/// default analyzer: what the full-text benches index.
pub fn docs_index() -> FulltextSpec {
    FulltextSpec {
        name: "docs".to_string(),
        entity: FulltextEntity::Node,
        tokens: vec!["D".into()],
        keys: vec!["text".into()],
        analyzer: quiver_storage::DEFAULT_ANALYZER.to_string(),
        eventually_consistent: false,
    }
}

/// Nodes in the graph: `QUIVER_BENCH_NODES`, or `default`.
pub fn nodes_from_env(default: usize) -> usize {
    std::env::var("QUIVER_BENCH_NODES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Resident set size of this process, from /proc/self/statm (0 where unavailable).
pub fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// CPU time of the whole process, its other threads included, from /proc/self/stat (utime
/// and stime, in clock ticks of 1/100 s; 0 where unavailable).
pub fn process_cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // After the command's closing parenthesis: utime is field 12, stime 13 (0-based).
    (ticks(11) + ticks(12)) / 100.0
}

/// CPU time this thread has run, from /proc/thread-self/schedstat (0 where unavailable). On a
/// shared machine, work per CPU-second is steadier than work per wall-second.
pub fn thread_cpu_secs() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0.0, |ns| ns as f64 / 1e9)
}

pub struct Social {
    pub db: Arc<Storage>,
    pub person: LabelId,
    pub id: PropKeyId,
    pub name: PropKeyId,
    pub since: PropKeyId,
    pub knows: RelTypeId,
    pub nodes: Vec<NodeId>,
    pub rels: usize,
}

impl Social {
    /// `count` people drawn at random (with repeats) by `seed`: where the expansion benches
    /// start.
    pub fn random_people(&self, count: usize, seed: u64) -> Vec<NodeId> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..count)
            .map(|_| self.nodes[rng.random_range(0..self.nodes.len())])
            .collect()
    }
}

/// Writes per transaction while building: large enough to amortise commits, small enough to
/// keep the undo deltas of one batch cheap.
const BATCH: usize = 10_000;

fn hex_id(rng: &mut StdRng) -> String {
    let (a, b): (u64, u32) = (rng.random(), rng.random());
    format!("{a:016x}{b:08x}")
}

fn date(rng: &mut StdRng) -> String {
    // Days before 2024-01-01.
    let days = 19_723 - rng.random_range(0..3650i64);
    let Ymd { year, month, day } = ymd_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}

pub struct BuildFigures {
    pub node_secs: f64,
    pub rel_secs: f64,
    pub node_cpu_secs: f64,
    pub rel_cpu_secs: f64,
    pub node_rss: u64,
    pub rel_rss: u64,
}

pub fn build(n: usize, seed: u64) -> (Social, BuildFigures) {
    let db = Storage::new();
    let person = db.get_or_create_label("Person").unwrap();
    let id = db.get_or_create_property_key("id").unwrap();
    let name = db.get_or_create_property_key("name").unwrap();
    let since = db.get_or_create_property_key("since").unwrap();
    let knows = db.get_or_create_rel_type("KNOWS").unwrap();
    let mut rng = StdRng::seed_from_u64(seed);

    // Generate inputs up front so that only storage work is timed and measured.
    let people: Vec<(Value, Value)> = (0..n)
        .map(|i| {
            (
                Value::from(hex_id(&mut rng)),
                Value::from(format!("person-{i}")),
            )
        })
        .collect();
    let mut edges: Vec<(u32, u32, Value)> = Vec::with_capacity(n * 7);
    for a in 0..n {
        let k = rng.random_range(5..=8usize).min(n.saturating_sub(1));
        let mut picked: Vec<u32> = Vec::with_capacity(k);
        while picked.len() < k {
            let b = rng.random_range(0..n) as u32;
            if b as usize != a && !picked.contains(&b) {
                picked.push(b);
            }
        }
        for b in picked {
            edges.push((a as u32, b, Value::from(date(&mut rng))));
        }
    }

    // Every buffer the build writes is allocated and touched before the first RSS reading,
    // and inputs stay alive until the last, so that freed input memory cannot be reused by
    // the store and hide its cost.
    let mut nodes = vec![NodeId(0); n];
    db.gc();
    let rss0 = rss_bytes();
    let t0 = std::time::Instant::now();
    let c0 = thread_cpu_secs();
    for (c, chunk) in people.chunks(BATCH).enumerate() {
        let tx = db.begin_write();
        for (i, (pid, pname)) in chunk.iter().enumerate() {
            nodes[c * BATCH + i] = tx
                .create_node(&[person], &[(id, pid.clone()), (name, pname.clone())])
                .unwrap();
        }
        tx.commit().unwrap();
    }
    db.gc();
    let node_secs = t0.elapsed().as_secs_f64();
    let node_cpu_secs = thread_cpu_secs() - c0;
    let rss1 = rss_bytes();
    let t1 = std::time::Instant::now();
    let c1 = thread_cpu_secs();
    for chunk in edges.chunks(BATCH) {
        let tx = db.begin_write();
        for (a, b, d) in chunk {
            tx.create_relationship(
                nodes[*a as usize],
                nodes[*b as usize],
                knows,
                &[(since, d.clone())],
            )
            .unwrap();
        }
        tx.commit().unwrap();
    }
    db.gc();
    let rel_secs = t1.elapsed().as_secs_f64();
    let rel_cpu_secs = thread_cpu_secs() - c1;
    let rss2 = rss_bytes();
    drop(people);
    let rels = edges.len();
    (
        Social {
            db,
            person,
            id,
            name,
            since,
            knows,
            nodes,
            rels,
        },
        BuildFigures {
            node_secs,
            rel_secs,
            node_cpu_secs,
            rel_cpu_secs,
            node_rss: rss1.saturating_sub(rss0),
            rel_rss: rss2.saturating_sub(rss1),
        },
    )
}
