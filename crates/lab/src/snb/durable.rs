//! The crash check: after `kill -9` and a restart, every update the server acknowledged is
//! there.
//!
//! Each acknowledged update is reduced to the one thing it made (a node by its id, or a
//! relationship between two nodes known by id) and looked for, many at a time.

use quiver_value::{Map, Value};
use serde::Serialize;

use super::ops::{Kind, Operation};
use crate::client::Connection;
use crate::error::LabError;

/// Things looked for per query.
const BATCH: usize = 1_000;

/// The one thing an update made.
enum Made {
    /// A node of this label with `id` = `a`.
    Node(&'static str),
    /// This pattern between a node with `id` = `a` and one with `id` = `b`.
    Link(&'static str),
}

impl Made {
    /// The query that finds such things: `$items` is a list of `{a, b}` maps, and it returns
    /// the ones it does not find as `missing`.
    fn query(&self) -> String {
        match self {
            Made::Node(label) => format!(
                "UNWIND $items AS i OPTIONAL MATCH (n:{label} {{id: i.a}}) \
                 WITH i, n WHERE n IS NULL RETURN i AS missing"
            ),
            Made::Link(pattern) => format!(
                "UNWIND $items AS i WITH i WHERE NOT EXISTS {{ MATCH {pattern} }} \
                 RETURN i AS missing"
            ),
        }
    }
}

/// What one update made, and the ids that find it.
fn made(op: &Operation) -> Option<(Made, Map)> {
    let ids = |a: i64, b: Option<i64>| -> Map {
        std::iter::once(("a", a))
            .chain(b.map(|b| ("b", b)))
            .map(|(k, v)| (k.into(), Value::Int(v)))
            .collect()
    };
    Some(match op {
        Operation::Iu1(p) => (Made::Node("Person"), ids(p.person_id, None)),
        Operation::Iu2 {
            person_id, post_id, ..
        } => (
            Made::Link("(:Person {id: i.a})-[:LIKES]->(:Post {id: i.b})"),
            ids(*person_id, Some(*post_id)),
        ),
        Operation::Iu3 {
            person_id,
            comment_id,
            ..
        } => (
            Made::Link("(:Person {id: i.a})-[:LIKES]->(:Comment {id: i.b})"),
            ids(*person_id, Some(*comment_id)),
        ),
        Operation::Iu4(f) => (Made::Node("Forum"), ids(f.forum_id, None)),
        Operation::Iu5 {
            forum_id,
            person_id,
            ..
        } => (
            Made::Link("(:Forum {id: i.a})-[:HAS_MEMBER]->(:Person {id: i.b})"),
            ids(*forum_id, Some(*person_id)),
        ),
        Operation::Iu6(p) => (Made::Node("Post"), ids(p.post_id, None)),
        Operation::Iu7(c) => (Made::Node("Comment"), ids(c.comment_id, None)),
        Operation::Iu8 {
            person1_id,
            person2_id,
            ..
        } => (
            Made::Link("(:Person {id: i.a})-[:KNOWS]-(:Person {id: i.b})"),
            ids(*person1_id, Some(*person2_id)),
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
    let mut by_kind: Vec<(Kind, String, Vec<Value>)> = Vec::new();
    for op in acknowledged {
        let Some((what, item)) = made(op) else {
            continue;
        };
        let kind = op.kind();
        match by_kind.iter_mut().find(|(k, _, _)| *k == kind) {
            Some((_, _, items)) => items.push(Value::Map(item.into())),
            None => by_kind.push((kind, what.query(), vec![Value::Map(item.into())])),
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
                .query(&query, params)
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
        let (what, item) = made(&Operation::Iu8 {
            person1_id: 3,
            person2_id: 4,
            creation_date: 0,
        })
        .expect("a friendship is looked for");
        assert!(what.query().contains("KNOWS"));
        assert_eq!(item.get("b"), Some(&Value::Int(4)));
    }
}
