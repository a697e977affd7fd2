//! The whole-graph social graph of the Kùzu comparison, generated from a seed alone: `:Person
//! {id, name, gender, age}` following one another (`:FOLLOWS`, about 24 out-edges each, the
//! followed drawn with a skew so that a few people have thousands of followers), each living
//! in a `:City {id, city, state, country}` (`:LIVES_IN`, big cities skewed the same way) that
//! lies in a `:State {id, state, country}` (`:CITY_IN`) of a `:Country {id, country}`
//! (`:STATE_IN`), with one to five `:Interest {id, interest}` each (`:HAS_INTEREST`); and the
//! study's nine queries over it.
//!
//! Used by `examples/whole_graph.rs`, which also exports the graph as CSV for
//! `bench/kuzu/whole_graph.py`.

#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use quiver_engine::{Database, EngineConfig};
use quiver_storage::{NodeId, PropKeyId};
use quiver_value::Value;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub const SEED: u64 = 28;
/// Out-edges of `:FOLLOWS` per person: uniform in this range (mean 24).
pub const FOLLOWS_MIN: usize = 10;
pub const FOLLOWS_MAX: usize = 38;
pub const COUNTRIES: usize = 25;
pub const STATES_PER_COUNTRY: usize = 8;
pub const CITIES_PER_STATE: usize = 25;
pub const INTERESTS: usize = 40;
/// Writes per storage transaction while loading.
const LOAD_BATCH: usize = 20_000;

pub struct Person {
    pub name: String,
    pub gender: &'static str,
    pub age: i64,
    pub city: u32,
}

pub struct Follows {
    pub people: Vec<Person>,
    /// (follower, followed) as person indexes.
    pub follows: Vec<(u32, u32)>,
    /// (person, interest) as indexes.
    pub interests: Vec<(u32, u32)>,
}

pub fn cities() -> usize {
    COUNTRIES * STATES_PER_COUNTRY * CITIES_PER_STATE
}

fn states() -> usize {
    COUNTRIES * STATES_PER_COUNTRY
}

pub fn city_name(c: usize) -> String {
    format!("City {c}")
}

pub fn state_name(s: usize) -> String {
    format!("State {s}")
}

pub fn country_name(k: usize) -> String {
    format!("Country {k}")
}

pub fn interest_name(i: usize) -> String {
    format!("Interest {i}")
}

/// An index below `n` drawn with a skew towards small ones (index `n·u³`), so that a few
/// people are followed by thousands and a few cities are large.
fn skewed(rng: &mut StdRng, n: usize) -> usize {
    let u: f64 = rng.random();
    ((u * u * u) * n as f64) as usize % n.max(1)
}

/// Generates the graph of `persons` people.
pub fn generate(persons: usize) -> Follows {
    let mut rng = StdRng::seed_from_u64(SEED);
    let people: Vec<Person> = (0..persons)
        .map(|i| Person {
            name: format!("Person {i}"),
            gender: if rng.random_bool(0.5) {
                "male"
            } else {
                "female"
            },
            age: rng.random_range(18..=80),
            city: skewed(&mut rng, cities()) as u32,
        })
        .collect();
    let mut follows = Vec::with_capacity(persons * (FOLLOWS_MIN + FOLLOWS_MAX) / 2);
    let mut picked: Vec<u32> = Vec::with_capacity(FOLLOWS_MAX);
    let max = FOLLOWS_MAX.min(persons.saturating_sub(1));
    let min = FOLLOWS_MIN.min(max);
    for from in 0..persons {
        let k = rng.random_range(min..=max);
        picked.clear();
        while picked.len() < k {
            // Half the follows go to the skewed popular people, half anywhere.
            let to = if rng.random_bool(0.5) {
                skewed(&mut rng, persons)
            } else {
                rng.random_range(0..persons)
            } as u32;
            if to as usize != from && !picked.contains(&to) {
                picked.push(to);
            }
        }
        follows.extend(picked.iter().map(|&to| (from as u32, to)));
    }
    let mut interests = Vec::with_capacity(persons * 3);
    for person in 0..persons {
        let k = rng.random_range(1..=5);
        picked.clear();
        while picked.len() < k {
            let i = rng.random_range(0..INTERESTS) as u32;
            if !picked.contains(&i) {
                picked.push(i);
            }
        }
        interests.extend(picked.iter().map(|&i| (person as u32, i)));
    }
    Follows {
        people,
        follows,
        interests,
    }
}

/// Property key ids by name.
fn key(db: &Database, name: &str) -> PropKeyId {
    db.storage().get_or_create_property_key(name).unwrap()
}

/// Creates `n` nodes of `label`, each with the properties `props(i)` gives, in batches.
fn nodes(
    db: &Database,
    label: &str,
    n: usize,
    props: impl Fn(usize) -> Vec<(&'static str, Value)>,
) -> Vec<NodeId> {
    let storage = db.storage();
    let label = storage.get_or_create_label(label).unwrap();
    let mut ids = Vec::with_capacity(n);
    let mut start = 0;
    while start < n {
        let end = (start + LOAD_BATCH).min(n);
        let tx = storage.begin_write();
        for i in start..end {
            let p: Vec<_> = props(i).into_iter().map(|(k, v)| (key(db, k), v)).collect();
            ids.push(tx.create_node(&[label], &p).unwrap());
        }
        tx.commit().unwrap();
        start = end;
    }
    ids
}

/// Creates a relationship of `ty` for each pair, in batches.
fn rels(db: &Database, ty: &str, pairs: impl Iterator<Item = (NodeId, NodeId)>) {
    let storage = db.storage();
    let ty = storage.get_or_create_rel_type(ty).unwrap();
    let pairs: Vec<_> = pairs.collect();
    for chunk in pairs.chunks(LOAD_BATCH) {
        let tx = storage.begin_write();
        for (from, to) in chunk {
            tx.create_relationship(*from, *to, ty, &[]).unwrap();
        }
        tx.commit().unwrap();
    }
}

/// Loads the graph into a fresh database of `config` through the storage API.
pub fn load_with(g: &Follows, config: EngineConfig) -> Arc<Database> {
    let db = Database::open_in_memory(config);
    let countries = nodes(&db, "Country", COUNTRIES, |k| {
        vec![
            ("id", Value::Int(k as i64)),
            ("country", Value::from(country_name(k).as_str())),
        ]
    });
    let states = nodes(&db, "State", states(), |s| {
        vec![
            ("id", Value::Int(s as i64)),
            ("state", Value::from(state_name(s).as_str())),
            (
                "country",
                Value::from(country_name(s / STATES_PER_COUNTRY).as_str()),
            ),
        ]
    });
    let cities = nodes(&db, "City", cities(), |c| {
        let s = c / CITIES_PER_STATE;
        vec![
            ("id", Value::Int(c as i64)),
            ("city", Value::from(city_name(c).as_str())),
            ("state", Value::from(state_name(s).as_str())),
            (
                "country",
                Value::from(country_name(s / STATES_PER_COUNTRY).as_str()),
            ),
        ]
    });
    let interests = nodes(&db, "Interest", INTERESTS, |i| {
        vec![
            ("id", Value::Int(i as i64)),
            ("interest", Value::from(interest_name(i).as_str())),
        ]
    });
    let people = nodes(&db, "Person", g.people.len(), |i| {
        let p = &g.people[i];
        vec![
            ("id", Value::Int(i as i64)),
            ("name", Value::from(p.name.as_str())),
            ("gender", Value::from(p.gender)),
            ("age", Value::Int(p.age)),
        ]
    });
    rels(
        &db,
        "STATE_IN",
        (0..states.len()).map(|s| (states[s], countries[s / STATES_PER_COUNTRY])),
    );
    rels(
        &db,
        "CITY_IN",
        (0..cities.len()).map(|c| (cities[c], states[c / CITIES_PER_STATE])),
    );
    rels(
        &db,
        "LIVES_IN",
        g.people
            .iter()
            .enumerate()
            .map(|(i, p)| (people[i], cities[p.city as usize])),
    );
    rels(
        &db,
        "HAS_INTEREST",
        g.interests
            .iter()
            .map(|(p, i)| (people[*p as usize], interests[*i as usize])),
    );
    rels(
        &db,
        "FOLLOWS",
        g.follows
            .iter()
            .map(|(a, b)| (people[*a as usize], people[*b as usize])),
    );
    db
}

fn write_lines(dir: &Path, file: &str, lines: impl Iterator<Item = String>) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(dir.join(file))?);
    for line in lines {
        writeln!(w, "{line}")?;
    }
    w.flush()
}

/// Writes one headerless CSV per node label and relationship type, keyed by the `id`
/// property, for other engines to load.
pub fn export_csv(g: &Follows, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    write_lines(
        dir,
        "country.csv",
        (0..COUNTRIES).map(|k| format!("{k},{}", country_name(k))),
    )?;
    write_lines(
        dir,
        "state.csv",
        (0..states()).map(|s| {
            format!(
                "{s},{},{}",
                state_name(s),
                country_name(s / STATES_PER_COUNTRY)
            )
        }),
    )?;
    write_lines(
        dir,
        "city.csv",
        (0..cities()).map(|c| {
            let s = c / CITIES_PER_STATE;
            format!(
                "{c},{},{},{}",
                city_name(c),
                state_name(s),
                country_name(s / STATES_PER_COUNTRY)
            )
        }),
    )?;
    write_lines(
        dir,
        "interest.csv",
        (0..INTERESTS).map(|i| format!("{i},{}", interest_name(i))),
    )?;
    write_lines(
        dir,
        "person.csv",
        g.people
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{i},{},{},{}", p.name, p.gender, p.age)),
    )?;
    write_lines(
        dir,
        "state_in.csv",
        (0..states()).map(|s| format!("{s},{}", s / STATES_PER_COUNTRY)),
    )?;
    write_lines(
        dir,
        "city_in.csv",
        (0..cities()).map(|c| format!("{c},{}", c / CITIES_PER_STATE)),
    )?;
    write_lines(
        dir,
        "lives_in.csv",
        g.people
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{i},{}", p.city)),
    )?;
    write_lines(
        dir,
        "has_interest.csv",
        g.interests.iter().map(|(p, i)| format!("{p},{i}")),
    )?;
    write_lines(
        dir,
        "follows.csv",
        g.follows.iter().map(|(a, b)| format!("{a},{b}")),
    )
}

pub struct Query {
    pub name: &'static str,
    pub cypher: &'static str,
}

/// The study's queries, as Quiver runs them (`bench/kuzu/whole_graph.py` holds Kùzu's
/// spelling: `lower` for `toLower`). Every `ORDER BY` ends in a unique key, so the two
/// engines' rows can be compared as they come.
pub const QUERIES: &[Query] = &[
    Query {
        name: "two_hop_paths",
        cypher: "MATCH (a:Person)-[:FOLLOWS]->(b:Person)-[:FOLLOWS]->(c:Person) RETURN count(*) AS numPaths",
    },
    Query {
        name: "two_hop_age_filter",
        cypher: "MATCH (a:Person)-[:FOLLOWS]->(b:Person)-[:FOLLOWS]->(c:Person) WHERE b.age < 50 AND c.age > 25 RETURN count(*) AS numPaths",
    },
    Query {
        name: "top3_followed",
        cypher: "MATCH (follower:Person)-[:FOLLOWS]->(person:Person) RETURN person.id AS id, person.name AS name, count(follower.id) AS numFollowers ORDER BY numFollowers DESC, id LIMIT 3",
    },
    Query {
        name: "most_followed_city",
        cypher: "MATCH (follower:Person)-[:FOLLOWS]->(person:Person) WITH person, count(follower.id) AS numFollowers ORDER BY numFollowers DESC, person.id LIMIT 1 MATCH (person)-[:LIVES_IN]->(city:City) RETURN person.name AS name, numFollowers, city.city AS city, city.state AS state, city.country AS country",
    },
    Query {
        name: "age_band_per_country",
        cypher: "MATCH (p:Person)-[:LIVES_IN]->(ci:City)-[*1..2]->(country:Country) WHERE p.age >= 30 AND p.age <= 40 RETURN country.country AS countries, count(country) AS personCounts ORDER BY personCounts DESC, countries LIMIT 3",
    },
    Query {
        name: "youngest_cities_in_country",
        cypher: "MATCH (p:Person)-[:LIVES_IN]->(c:City)-[*1..2]->(co:Country) WHERE co.country = 'Country 3' RETURN c.city AS city, avg(p.age) AS averageAge ORDER BY averageAge, city LIMIT 5",
    },
    Query {
        name: "interest_gender_city",
        cypher: "MATCH (p:Person)-[:HAS_INTEREST]->(i:Interest) WHERE toLower(i.interest) = toLower('INTEREST 7') AND toLower(p.gender) = toLower('Male') WITH p, i MATCH (p)-[:LIVES_IN]->(c:City) WHERE c.city = 'City 12' AND c.country = 'Country 0' RETURN count(p) AS numPersons",
    },
    Query {
        name: "interest_gender_top_cities",
        cypher: "MATCH (p:Person)-[:HAS_INTEREST]->(i:Interest) WHERE toLower(i.interest) = toLower('INTEREST 11') AND toLower(p.gender) = toLower('Female') WITH p, i MATCH (p)-[:LIVES_IN]->(c:City) RETURN count(p.id) AS numPersons, c.city AS city, c.country AS country ORDER BY numPersons DESC, city LIMIT 5",
    },
    Query {
        name: "state_age_interest",
        cypher: "MATCH (p:Person)-[:LIVES_IN]->(:City)-[:CITY_IN]->(s:State) WHERE p.age >= 23 AND p.age <= 30 AND s.country = 'Country 1' WITH p, s MATCH (p)-[:HAS_INTEREST]->(i:Interest) WHERE toLower(i.interest) = toLower('Interest 5') RETURN count(p.id) AS numPersons, s.state AS state, s.country AS country ORDER BY numPersons DESC, state LIMIT 1",
    },
];

/// A result as both sides print it: rows separated by `;`, values by `,`, floats to three
/// decimals.
pub fn canonical(rows: &[Vec<Value>]) -> String {
    rows.iter()
        .map(|row| {
            row.iter()
                .map(|v| match v {
                    Value::Float(f) => format!("{f:.3}"),
                    Value::Int(i) => i.to_string(),
                    Value::String(s) => s.to_string(),
                    Value::Null => "null".to_string(),
                    other => format!("{other:?}"),
                })
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join(";")
}
