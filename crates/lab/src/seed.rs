//! The social graph every run measures, generated from `--seed` alone.
//!
//! Each `:Person` has a 24-hex-digit `id` and a `name`, and a random out-degree in
//! `[knows_min, knows_max]` to distinct other people through `:KNOWS {since: 'YYYY-MM-DD'}`.
//! Dates are drawn from the seeded generator and anchored to a fixed reference day, so the graph
//! — and the realised edge total `edges.knows` — is the same for the same seed on every machine.
//!
//! The data is generated once as plain vectors, then loaded either in process through the
//! storage engine's embedded API or over the wire (for a separate server or a peer); the
//! deterministic answers a run verifies (the count, a person's name, a two-hop count) are
//! computed from the same vectors, never read back from the server under test.
//!
//! `:Counter {slot, hits}` nodes serve the write shapes: a fixed number of them (1024 by default),
//! not one per connection, so the write statement's cost does not grow with the connection
//! count the ladder varies. Connection `i` owns slot `i mod write_slots`.

use std::sync::Arc;

use quiver_storage::{NodeId, Storage};
use quiver_value::Value;
use quiver_value::temporal::calendar::{Ymd, ymd_from_days};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::error::LabError;

/// Rows written per storage transaction while loading.
const LOAD_BATCH: usize = 10_000;
/// 2024-01-01 as days since 1970-01-01: the anchor of every `since` date.
const REFERENCE_DAY: i64 = 19_723;
/// `since` dates fall within this many days before the anchor.
const SINCE_SPAN_DAYS: i64 = 3_650;

const FIRST_NAMES: [&str; 16] = [
    "Ada", "Ben", "Cleo", "Dev", "Edda", "Femi", "Gus", "Hana", "Ivo", "Juno", "Kai", "Lena",
    "Milo", "Nia", "Otto", "Pia",
];
const LAST_NAMES: [&str; 16] = [
    "Archer", "Brook", "Castell", "Dunmore", "Ellery", "Fairlie", "Grange", "Holt", "Ingram",
    "Jessop", "Kestrel", "Lowry", "Marsh", "Norbury", "Oakes", "Pryce",
];

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SocialSpec {
    pub persons: usize,
    pub knows_min: usize,
    pub knows_max: usize,
    pub seed: u64,
    pub write_slots: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Person {
    pub id: String,
    pub name: String,
}

/// A `:KNOWS` edge between two person indexes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knows {
    pub from: u32,
    pub to: u32,
    pub since: String,
}

/// The generated graph.
#[derive(Clone, Debug)]
pub struct Social {
    pub spec: SocialSpec,
    pub people: Vec<Person>,
    pub knows: Vec<Knows>,
    /// Out-degree of each person, for the two-hop answers.
    out_degree: Vec<u32>,
    /// Offsets into `knows` per person (edges are generated grouped by source).
    first_edge: Vec<u32>,
}

impl SocialSpec {
    pub fn generate(&self) -> Social {
        let mut rng = StdRng::seed_from_u64(self.seed);
        let n = self.persons;
        let people: Vec<Person> = (0..n)
            .map(|i| Person {
                id: hex_id(&mut rng),
                name: format!(
                    "{} {} {i}",
                    FIRST_NAMES[i % FIRST_NAMES.len()],
                    LAST_NAMES[(i / FIRST_NAMES.len()) % LAST_NAMES.len()]
                ),
            })
            .collect();
        let degree_max = self.knows_max.max(self.knows_min).min(n.saturating_sub(1));
        let degree_min = self.knows_min.min(degree_max);
        let mut knows = Vec::with_capacity(n * (degree_min + degree_max) / 2);
        let mut out_degree = Vec::with_capacity(n);
        let mut first_edge = Vec::with_capacity(n + 1);
        let mut picked: Vec<u32> = Vec::with_capacity(degree_max);
        for from in 0..n {
            first_edge.push(knows.len() as u32);
            let k = rng.random_range(degree_min..=degree_max);
            picked.clear();
            while picked.len() < k {
                let to = rng.random_range(0..n) as u32;
                if to as usize != from && !picked.contains(&to) {
                    picked.push(to);
                }
            }
            out_degree.push(k as u32);
            for &to in &picked {
                knows.push(Knows {
                    from: from as u32,
                    to,
                    since: since_date(&mut rng),
                });
            }
        }
        first_edge.push(knows.len() as u32);
        Social {
            spec: *self,
            people,
            knows,
            out_degree,
            first_edge,
        }
    }
}

impl Social {
    /// People this person knows (indexes).
    pub fn out_neighbours(&self, person: usize) -> impl Iterator<Item = u32> + '_ {
        let start = self.first_edge.get(person).copied().unwrap_or(0) as usize;
        let end = self.first_edge.get(person + 1).copied().unwrap_or(0) as usize;
        self.knows
            .get(start..end)
            .unwrap_or_default()
            .iter()
            .map(|k| k.to)
    }

    /// Rows of `MATCH (p {id})-[:KNOWS]->()-[:KNOWS]->(f) RETURN count(f)`: every two-step walk
    /// (the two relationships always differ, since nobody knows themselves).
    pub fn two_hop_count(&self, person: usize) -> u64 {
        self.out_neighbours(person)
            .map(|a| u64::from(self.out_degree.get(a as usize).copied().unwrap_or(0)))
            .sum()
    }

    pub fn edge_count(&self) -> usize {
        self.knows.len()
    }
}

fn hex_id(rng: &mut StdRng) -> String {
    let (a, b): (u64, u32) = (rng.random(), rng.random());
    format!("{a:016x}{b:08x}")
}

fn since_date(rng: &mut StdRng) -> String {
    let days = REFERENCE_DAY - rng.random_range(0..SINCE_SPAN_DAYS);
    let Ymd {
        year: y,
        month: m,
        day: d,
    } = ymd_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Loads the graph, the `:Counter` slots and an index on `:Person(id)` into `storage`.
pub fn load_into(storage: &Arc<Storage>, social: &Social) -> Result<(), LabError> {
    let s = |e: quiver_storage::Error| LabError::Seed(e.to_string());
    let person = storage.get_or_create_label("Person").map_err(s)?;
    let counter = storage.get_or_create_label("Counter").map_err(s)?;
    let id = storage.get_or_create_property_key("id").map_err(s)?;
    let name = storage.get_or_create_property_key("name").map_err(s)?;
    let since = storage.get_or_create_property_key("since").map_err(s)?;
    let slot = storage.get_or_create_property_key("slot").map_err(s)?;
    let hits = storage.get_or_create_property_key("hits").map_err(s)?;
    let knows = storage.get_or_create_rel_type("KNOWS").map_err(s)?;

    let ddl = storage.begin_write();
    ddl.create_index(person, id, Some("person_id")).map_err(s)?;
    ddl.create_index(counter, slot, Some("counter_slot"))
        .map_err(s)?;
    ddl.commit().map_err(s)?;

    let mut nodes: Vec<NodeId> = Vec::with_capacity(social.people.len());
    for chunk in social.people.chunks(LOAD_BATCH) {
        let tx = storage.begin_write();
        for p in chunk {
            nodes.push(
                tx.create_node(
                    &[person],
                    &[
                        (id, Value::from(p.id.as_str())),
                        (name, Value::from(p.name.as_str())),
                    ],
                )
                .map_err(s)?,
            );
        }
        tx.commit().map_err(s)?;
    }
    for chunk in social.knows.chunks(LOAD_BATCH) {
        let tx = storage.begin_write();
        for k in chunk {
            let (Some(&a), Some(&b)) = (nodes.get(k.from as usize), nodes.get(k.to as usize))
            else {
                return Err(LabError::Seed(format!(
                    "edge {}->{} out of range",
                    k.from, k.to
                )));
            };
            tx.create_relationship(a, b, knows, &[(since, Value::from(k.since.as_str()))])
                .map_err(s)?;
        }
        tx.commit().map_err(s)?;
    }
    let tx = storage.begin_write();
    for i in 0..social.spec.write_slots {
        tx.create_node(
            &[counter],
            &[(slot, Value::Int(i as i64)), (hits, Value::Int(0))],
        )
        .map_err(s)?;
    }
    tx.commit().map_err(s)?;
    storage.gc();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(seed: u64) -> SocialSpec {
        SocialSpec {
            persons: 2000,
            knows_min: 5,
            knows_max: 8,
            seed,
            write_slots: 16,
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_graph() {
        let a = spec(42).generate();
        let b = spec(42).generate();
        assert_eq!(a.people, b.people);
        assert_eq!(a.knows, b.knows);
        let c = spec(43).generate();
        assert_ne!(a.knows, c.knows);
    }

    #[test]
    fn shape_follows_the_spec() {
        let g = spec(42).generate();
        assert_eq!(g.people.len(), 2000);
        assert!((2000 * 5..=2000 * 8).contains(&g.edge_count()));
        for p in &g.people {
            assert_eq!(p.id.len(), 24);
            assert!(p.id.bytes().all(|b| b.is_ascii_hexdigit()));
        }
        for person in 0..g.people.len() {
            let out: Vec<u32> = g.out_neighbours(person).collect();
            assert!((5..=8).contains(&out.len()));
            assert!(!out.contains(&(person as u32)), "nobody knows themselves");
            let mut dedup = out.clone();
            dedup.sort_unstable();
            dedup.dedup();
            assert_eq!(dedup.len(), out.len(), "distinct targets");
        }
        for k in &g.knows {
            assert_eq!(k.since.len(), 10);
            assert!(k.since.as_str() >= "2014-01-01" && k.since.as_str() <= "2024-01-01");
        }
    }

    #[test]
    fn the_reference_day_is_new_year_2024() {
        let day = |days| {
            let Ymd { year, month, day } = ymd_from_days(days);
            (year, month, day)
        };
        assert_eq!(day(REFERENCE_DAY), (2024, 1, 1));
        assert_eq!(day(REFERENCE_DAY - 1), (2023, 12, 31));
    }

    #[test]
    fn two_hop_counts_add_neighbour_degrees() {
        let g = spec(7).generate();
        let expected: u64 = g
            .out_neighbours(3)
            .map(|a| g.out_neighbours(a as usize).count() as u64)
            .sum();
        assert_eq!(g.two_hop_count(3), expected);
    }

    #[test]
    fn loads_into_storage() {
        let g = SocialSpec {
            persons: 50,
            ..spec(42)
        }
        .generate();
        let storage = Storage::new();
        load_into(&storage, &g).unwrap();
        let read = storage.begin_read();
        let person = storage.label_id("Person").unwrap();
        let counter = storage.label_id("Counter").unwrap();
        assert_eq!(read.count_label(person).unwrap(), 50);
        assert_eq!(read.count_label(counter).unwrap(), 16);
    }

    #[test]
    fn tiny_graphs_do_not_loop_forever() {
        let g = SocialSpec {
            persons: 3,
            ..spec(1)
        }
        .generate();
        assert_eq!(g.edge_count(), 6, "everyone knows the two others");
        let g = SocialSpec {
            persons: 1,
            ..spec(1)
        }
        .generate();
        assert_eq!(g.edge_count(), 0);
    }
}
