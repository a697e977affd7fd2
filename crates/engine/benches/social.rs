//! The seed social graph for the engine's benchmarks, generated from a seed alone: `:Person`
//! nodes with a 24-hex-digit `id` and a `name`, each with 5–8 `:KNOWS {since}` out-edges to
//! distinct others (the shape of the load laboratory's graph), an index on `:Person(id)`, and
//! the queries the benchmarks time.
//!
//! Shared by `benches/queries.rs` and `examples/cypher_qps.rs` (which also exports the graph as
//! CSV for the Kùzu comparison in `bench/kuzu/`).

#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use quiver_engine::{Database, EngineConfig};
use quiver_storage::NodeId;
use quiver_value::{Map, Value};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub const SEED: u64 = 42;
pub const KNOWS_MIN: usize = 5;
pub const KNOWS_MAX: usize = 8;
/// Writes per storage transaction while loading.
const LOAD_BATCH: usize = 10_000;

pub struct Social {
    /// (id, name) per person, in node order.
    pub people: Vec<(String, String)>,
    /// (from, to, since) as person indexes.
    pub knows: Vec<(u32, u32, String)>,
}

fn since(rng: &mut StdRng) -> String {
    let year = rng.random_range(2010..2024);
    let month = rng.random_range(1..=12);
    let day = rng.random_range(1..=28);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Generates the graph of `persons` people.
pub fn generate(persons: usize) -> Social {
    let mut rng = StdRng::seed_from_u64(SEED);
    let people: Vec<(String, String)> = (0..persons)
        .map(|i| {
            let (a, b): (u64, u32) = (rng.random(), rng.random());
            (format!("{a:016x}{b:08x}"), format!("Person {i}"))
        })
        .collect();
    let mut knows = Vec::with_capacity(persons * (KNOWS_MIN + KNOWS_MAX) / 2);
    let mut picked: Vec<u32> = Vec::with_capacity(KNOWS_MAX);
    let max = KNOWS_MAX.min(persons.saturating_sub(1));
    let min = KNOWS_MIN.min(max);
    for from in 0..persons {
        let k = rng.random_range(min..=max);
        picked.clear();
        while picked.len() < k {
            let to = rng.random_range(0..persons) as u32;
            if to as usize != from && !picked.contains(&to) {
                picked.push(to);
            }
        }
        for &to in &picked {
            knows.push((from as u32, to, since(&mut rng)));
        }
    }
    Social { people, knows }
}

/// Loads the graph into a fresh database through the storage API, and indexes `:Person(id)`
/// through Cypher.
pub fn load(social: &Social) -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig::default());
    let storage = db.storage().clone();
    let person = storage.get_or_create_label("Person").unwrap();
    let id = storage.get_or_create_property_key("id").unwrap();
    let name = storage.get_or_create_property_key("name").unwrap();
    let since = storage.get_or_create_property_key("since").unwrap();
    let knows = storage.get_or_create_rel_type("KNOWS").unwrap();
    db.execute(
        "CREATE INDEX person_id FOR (p:Person) ON (p.id)",
        Map::new(),
    )
    .unwrap();
    let mut nodes: Vec<NodeId> = Vec::with_capacity(social.people.len());
    for chunk in social.people.chunks(LOAD_BATCH) {
        let tx = storage.begin_write();
        for (pid, pname) in chunk {
            nodes.push(
                tx.create_node(
                    &[person],
                    &[
                        (id, Value::from(pid.as_str())),
                        (name, Value::from(pname.as_str())),
                    ],
                )
                .unwrap(),
            );
        }
        tx.commit().unwrap();
    }
    for chunk in social.knows.chunks(LOAD_BATCH) {
        let tx = storage.begin_write();
        for (from, to, s) in chunk {
            tx.create_relationship(
                nodes[*from as usize],
                nodes[*to as usize],
                knows,
                &[(since, Value::from(s.as_str()))],
            )
            .unwrap();
        }
        tx.commit().unwrap();
    }
    db
}

/// Writes `persons.csv` and `knows.csv` (headerless) for other engines to load.
pub fn export_csv(social: &Social, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut p = std::io::BufWriter::new(std::fs::File::create(dir.join("persons.csv"))?);
    for (id, name) in &social.people {
        writeln!(p, "{id},{name}")?;
    }
    p.flush()?;
    let mut k = std::io::BufWriter::new(std::fs::File::create(dir.join("knows.csv"))?);
    for (from, to, s) in &social.knows {
        writeln!(
            k,
            "{},{},{s}",
            social.people[*from as usize].0, social.people[*to as usize].0
        )?;
    }
    k.flush()
}

/// How a query picks its parameter for iteration `i`.
#[derive(Clone, Copy)]
pub enum Param {
    None,
    /// `$id`: a person's `id` property.
    PersonId,
    /// `$node`: a person's node id (insertion order, so person index).
    NodeId,
}

pub struct Query {
    pub name: &'static str,
    pub cypher: &'static str,
    pub param: Param,
}

/// The benchmarked queries (also what `bench/kuzu/` runs, adapted where Kùzu's dialect differs).
pub const QUERIES: &[Query] = &[
    Query {
        name: "count",
        cypher: "MATCH (n:Person) RETURN count(n) AS c",
        param: Param::None,
    },
    Query {
        name: "lookup_by_property",
        cypher: "MATCH (n:Person {id: $id}) RETURN n.name AS name",
        param: Param::PersonId,
    },
    Query {
        name: "lookup_by_id",
        cypher: "MATCH (n) WHERE id(n) = $node RETURN n.name AS name",
        param: Param::NodeId,
    },
    Query {
        name: "expand_aggregate",
        cypher: "MATCH (p:Person {id: $id})-[:KNOWS]->(f) RETURN p.name AS name, count(f) AS friends, collect(f.name) AS names",
        param: Param::PersonId,
    },
    Query {
        name: "friend_of_friend",
        cypher: "MATCH (me:Person {id: $id})-[:KNOWS]-(p)-[:KNOWS]-(fof) WHERE me <> fof AND NOT (me)-[:KNOWS]-(fof) RETURN fof.name AS name, count(*) AS freq ORDER BY freq DESC, name LIMIT 10",
        param: Param::PersonId,
    },
    Query {
        name: "two_hop_count",
        cypher: "MATCH (me:Person {id: $id})-[:KNOWS]->()-[:KNOWS]->(x) RETURN count(x) AS c",
        param: Param::PersonId,
    },
];

/// The parameters of iteration `i` (cycling over the people with a large stride).
pub fn params(q: &Query, social: &Social, i: usize) -> Map {
    let n = social.people.len().max(1);
    let person = (i.wrapping_mul(7919)) % n;
    let mut m = Map::new();
    match q.param {
        Param::None => {}
        Param::PersonId => {
            m.insert(
                Arc::from("id"),
                Value::from(social.people[person].0.as_str()),
            );
        }
        Param::NodeId => {
            m.insert(Arc::from("node"), Value::Int(person as i64));
        }
    }
    m
}

/// Runs one query to completion and returns its row count.
pub fn run(db: &Database, q: &Query, params: Map) -> usize {
    db.execute(q.cypher, params).map_or(0, |r| r.rows.len())
}
