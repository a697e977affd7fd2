//! The crash check: after `kill -9` and a restart, every update the server acknowledged is
//! there.
//!
//! Each acknowledged update is reduced to the one thing it made (a node by its id, or a
//! relationship between two nodes known by id) and looked for, many at a time.

use quiver_bolt::message::{Request, TxExtra};
use quiver_value::{Map, Value};
use serde::Serialize;

use super::ops::{Kind, Operation};
use crate::client::Connection;
use crate::error::LabError;

/// Things looked for per query.
const BATCH: usize = 1_000;

/// What one update made, and the query that finds such things: `$items` is a list of maps,
/// and the query returns the ones it does not find as `missing`.
fn made(op: &Operation) -> Option<(&'static str, Map)> {
    let map = |pairs: &[(&str, i64)]| -> Map {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), Value::Int(*v)))
            .collect()
    };
    Some(match op {
        Operation::Iu1(p) => (
            "UNWIND $items AS i OPTIONAL MATCH (n:Person {id: i.a}) \
             WITH i, n WHERE n IS NULL RETURN i AS missing",
            map(&[("a", p.person_id)]),
        ),
        Operation::Iu2 {
            person_id, post_id, ..
        } => (
            "UNWIND $items AS i WITH i WHERE NOT EXISTS { \
             MATCH (:Person {id: i.a})-[:LIKES]->(:Post {id: i.b}) } RETURN i AS missing",
            map(&[("a", *person_id), ("b", *post_id)]),
        ),
        Operation::Iu3 {
            person_id,
            comment_id,
            ..
        } => (
            "UNWIND $items AS i WITH i WHERE NOT EXISTS { \
             MATCH (:Person {id: i.a})-[:LIKES]->(:Comment {id: i.b}) } RETURN i AS missing",
            map(&[("a", *person_id), ("b", *comment_id)]),
        ),
        Operation::Iu4(f) => (
            "UNWIND $items AS i OPTIONAL MATCH (n:Forum {id: i.a}) \
             WITH i, n WHERE n IS NULL RETURN i AS missing",
            map(&[("a", f.forum_id)]),
        ),
        Operation::Iu5 {
            forum_id,
            person_id,
            ..
        } => (
            "UNWIND $items AS i WITH i WHERE NOT EXISTS { \
             MATCH (:Forum {id: i.a})-[:HAS_MEMBER]->(:Person {id: i.b}) } RETURN i AS missing",
            map(&[("a", *forum_id), ("b", *person_id)]),
        ),
        Operation::Iu6(p) => (
            "UNWIND $items AS i OPTIONAL MATCH (n:Post {id: i.a}) \
             WITH i, n WHERE n IS NULL RETURN i AS missing",
            map(&[("a", p.post_id)]),
        ),
        Operation::Iu7(c) => (
            "UNWIND $items AS i OPTIONAL MATCH (n:Comment {id: i.a}) \
             WITH i, n WHERE n IS NULL RETURN i AS missing",
            map(&[("a", c.comment_id)]),
        ),
        Operation::Iu8 {
            person1_id,
            person2_id,
            ..
        } => (
            "UNWIND $items AS i WITH i WHERE NOT EXISTS { \
             MATCH (:Person {id: i.a})-[:KNOWS]-(:Person {id: i.b}) } RETURN i AS missing",
            map(&[("a", *person1_id), ("b", *person2_id)]),
        ),
        _ => return None,
    })
}

/// What the check found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Found {
    /// Acknowledged updates looked for.
    pub checked: u64,
    /// Of those, not found, by kind name.
    pub missing: Vec<(String, u64)>,
    /// A few of the missing ones, as the check's query saw them.
    pub examples: Vec<String>,
}

impl Found {
    pub fn lost(&self) -> u64 {
        self.missing.iter().map(|(_, n)| n).sum()
    }
}

/// Looks for every update of `acknowledged` through `conn`.
pub async fn check(conn: &mut Connection, acknowledged: &[Operation]) -> Result<Found, LabError> {
    let mut by_kind: Vec<(Kind, &'static str, Vec<Value>)> = Vec::new();
    for op in acknowledged {
        let Some((query, item)) = made(op) else {
            continue;
        };
        let kind = op.kind();
        match by_kind.iter_mut().find(|(k, _, _)| *k == kind) {
            Some((_, _, items)) => items.push(Value::Map(item.into())),
            None => by_kind.push((kind, query, vec![Value::Map(item.into())])),
        }
    }
    let mut found = Found::default();
    for (kind, query, items) in by_kind {
        let mut missing = 0;
        for batch in items.chunks(BATCH) {
            found.checked += batch.len() as u64;
            let mut params = Map::new();
            params.insert("items".into(), Value::List(batch.into()));
            let exchanged = conn
                .exchange(&[
                    Request::Run {
                        query: query.to_owned(),
                        params,
                        extra: TxExtra::default(),
                    },
                    Request::Pull { n: -1, qid: -1 },
                ])
                .await
                .map_err(|e| LabError::Server(e.to_string()))?;
            if let Some(Err(error)) = exchanged.summaries.iter().find(|s| s.is_err()) {
                return Err(LabError::Server(format!("{}: {error}", kind.name())));
            }
            missing += exchanged.records.len() as u64;
            for record in exchanged
                .records
                .iter()
                .take(5 - found.examples.len().min(5))
            {
                found.examples.push(format!("{} {:?}", kind.name(), record));
            }
        }
        if missing > 0 {
            found.missing.push((kind.name().to_owned(), missing));
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_update_names_what_it_made_and_reads_name_nothing() {
        let updates = Kind::ALL
            .iter()
            .filter(|k| k.class() == super::super::ops::Class::Update)
            .count();
        assert_eq!(updates, 8);
        assert!(made(&Operation::Is1 { person_id: 1 }).is_none());
        let (query, item) = made(&Operation::Iu8 {
            person1_id: 3,
            person2_id: 4,
            creation_date: 0,
        })
        .expect("a friendship is looked for");
        assert!(query.contains("KNOWS"));
        assert_eq!(item.get("b"), Some(&Value::Int(4)));
    }
}
