//! Side effects: what a query changed, computed by diffing the graph before and after it.
//!
//! Diffing states rather than trusting the engine's own update counters keeps the check
//! independent: an engine that miscounts, or changes what it did not report, still fails. The
//! TCK's definitions: a node or relationship is its id; a property is an (entity, key, value)
//! triple, so changing a value is one removal plus one addition; labels count distinct label names
//! present anywhere in the graph.

use std::collections::BTreeSet;
use std::fmt;

use crate::matching::{Canon, ListOrder};
use crate::target::GraphState;

/// The eight counters a scenario can state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideEffects {
    pub nodes_created: u64,
    pub nodes_deleted: u64,
    pub relationships_created: u64,
    pub relationships_deleted: u64,
    pub properties_set: u64,
    pub properties_removed: u64,
    pub labels_added: u64,
    pub labels_removed: u64,
}

impl SideEffects {
    /// Names as feature files write them, in the order reports print them.
    pub const KEYS: [&'static str; 8] = [
        "+nodes",
        "-nodes",
        "+relationships",
        "-relationships",
        "+properties",
        "-properties",
        "+labels",
        "-labels",
    ];

    fn slot(&mut self, key: &str) -> Option<&mut u64> {
        Some(match key {
            "+nodes" => &mut self.nodes_created,
            "-nodes" => &mut self.nodes_deleted,
            "+relationships" => &mut self.relationships_created,
            "-relationships" => &mut self.relationships_deleted,
            "+properties" => &mut self.properties_set,
            "-properties" => &mut self.properties_removed,
            "+labels" => &mut self.labels_added,
            "-labels" => &mut self.labels_removed,
            _ => return None,
        })
    }

    fn values(&self) -> [u64; 8] {
        [
            self.nodes_created,
            self.nodes_deleted,
            self.relationships_created,
            self.relationships_deleted,
            self.properties_set,
            self.properties_removed,
            self.labels_added,
            self.labels_removed,
        ]
    }

    /// Reads a `| +nodes | 1 |` table; unlisted counters stay 0.
    pub fn from_table(rows: &[Vec<String>]) -> Result<SideEffects, String> {
        let mut effects = SideEffects::default();
        for row in rows {
            let [key, count] = row.as_slice() else {
                return Err(format!("a side-effect row needs two cells, got {row:?}"));
            };
            let count: u64 = count.parse().map_err(|_| {
                format!("side-effect count `{count}` is not a non-negative integer")
            })?;
            let slot = effects
                .slot(key)
                .ok_or_else(|| format!("unknown side effect `{key}`"))?;
            *slot = count;
        }
        Ok(effects)
    }

    /// What changed from `before` to `after`.
    pub fn between(before: &GraphState, after: &GraphState) -> SideEffects {
        let (nodes_created, nodes_deleted) =
            set_difference_sizes(&key_set(before.nodes.keys()), &key_set(after.nodes.keys()));
        let (relationships_created, relationships_deleted) = set_difference_sizes(
            &key_set(before.relationships.keys()),
            &key_set(after.relationships.keys()),
        );
        let (properties_set, properties_removed) =
            set_difference_sizes(&property_triples(before), &property_triples(after));
        let (labels_added, labels_removed) =
            set_difference_sizes(&label_names(before), &label_names(after));
        SideEffects {
            nodes_created,
            nodes_deleted,
            relationships_created,
            relationships_deleted,
            properties_set,
            properties_removed,
            labels_added,
            labels_removed,
        }
    }
}

impl fmt::Display for SideEffects {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut any = false;
        for (key, value) in Self::KEYS.iter().zip(self.values()) {
            if value != 0 {
                if any {
                    f.write_str(", ")?;
                }
                write!(f, "{key} {value}")?;
                any = true;
            }
        }
        if !any {
            f.write_str("none")?;
        }
        Ok(())
    }
}

fn key_set<'a>(keys: impl Iterator<Item = &'a u64>) -> BTreeSet<u64> {
    keys.copied().collect()
}

/// (added, removed): elements only in `after`, and only in `before`.
fn set_difference_sizes<T: Ord>(before: &BTreeSet<T>, after: &BTreeSet<T>) -> (u64, u64) {
    (
        after.difference(before).count() as u64,
        before.difference(after).count() as u64,
    )
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Entity {
    Node(u64),
    Relationship(u64),
}

fn property_triples(state: &GraphState) -> BTreeSet<(Entity, String, Canon)> {
    let nodes = state.nodes.iter().flat_map(|(id, data)| {
        data.properties.iter().map(move |(k, v)| {
            (
                Entity::Node(*id),
                k.to_string(),
                Canon::of_value(v, ListOrder::Exact),
            )
        })
    });
    let relationships = state.relationships.iter().flat_map(|(id, data)| {
        data.properties.iter().map(move |(k, v)| {
            (
                Entity::Relationship(*id),
                k.to_string(),
                Canon::of_value(v, ListOrder::Exact),
            )
        })
    });
    nodes.chain(relationships).collect()
}

fn label_names(state: &GraphState) -> BTreeSet<String> {
    state
        .nodes
        .values()
        .flat_map(|data| data.labels.iter().map(ToString::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use quiver_value::{NodeData, RelData, Value};

    use super::*;

    fn node(labels: &[&str], props: &[(&str, Value)]) -> NodeData {
        NodeData {
            labels: labels.iter().map(|l| Arc::from(*l)).collect(),
            properties: props
                .iter()
                .map(|(k, v)| (Arc::from(*k), v.clone()))
                .collect(),
        }
    }

    fn rel(start: u64, end: u64, props: &[(&str, Value)]) -> RelData {
        RelData {
            start,
            end,
            rel_type: "R".into(),
            properties: props
                .iter()
                .map(|(k, v)| (Arc::from(*k), v.clone()))
                .collect(),
            ends: None,
        }
    }

    fn table(rows: &[(&str, &str)]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|(k, v)| vec![(*k).to_owned(), (*v).to_owned()])
            .collect()
    }

    #[test]
    fn nothing_changed() {
        let mut state = GraphState::default();
        state.nodes.insert(1, node(&["A"], &[("k", Value::Int(1))]));
        assert_eq!(
            SideEffects::between(&state, &state.clone()),
            SideEffects::default()
        );
    }

    #[test]
    fn creates_and_deletes() {
        let mut before = GraphState::default();
        before.nodes.insert(1, node(&["X"], &[]));
        before.nodes.insert(2, node(&[], &[]));
        before
            .relationships
            .insert(5, rel(1, 2, &[("w", Value::Int(1))]));
        let mut after = GraphState::default();
        after.nodes.insert(2, node(&[], &[]));
        after
            .nodes
            .insert(3, node(&["A", "B"], &[("name", Value::string("n"))]));
        after.nodes.insert(4, node(&["A"], &[]));
        let effects = SideEffects::between(&before, &after);
        let expected = SideEffects {
            nodes_created: 2,
            nodes_deleted: 1,
            relationships_deleted: 1,
            properties_set: 1,
            properties_removed: 1,
            labels_added: 2,
            labels_removed: 1,
            ..SideEffects::default()
        };
        assert_eq!(effects, expected);
        assert_eq!(
            effects.to_string(),
            "+nodes 2, -nodes 1, -relationships 1, +properties 1, -properties 1, +labels 2, -labels 1"
        );
    }

    #[test]
    fn changing_a_value_is_a_removal_and_an_addition() {
        let mut before = GraphState::default();
        before.nodes.insert(
            1,
            node(&[], &[("k", Value::Int(1)), ("same", Value::Int(2))]),
        );
        let mut after = GraphState::default();
        after.nodes.insert(
            1,
            node(&[], &[("k", Value::Float(1.0)), ("same", Value::Int(2))]),
        );
        let effects = SideEffects::between(&before, &after);
        assert_eq!((effects.properties_set, effects.properties_removed), (1, 1));
    }

    #[test]
    fn labels_count_distinct_names_in_the_graph() {
        let mut before = GraphState::default();
        before.nodes.insert(1, node(&["A"], &[]));
        let mut after = before.clone();
        // A second node with a label already present adds no label.
        after.nodes.insert(2, node(&["A"], &[]));
        assert_eq!(SideEffects::between(&before, &after).labels_added, 0);
        after.nodes.insert(3, node(&["B", "C"], &[]));
        assert_eq!(SideEffects::between(&before, &after).labels_added, 2);
    }

    #[test]
    fn tables_parse_and_reject_nonsense() {
        let effects =
            SideEffects::from_table(&table(&[("+nodes", "1"), ("-labels", "2")])).unwrap();
        assert_eq!(
            effects,
            SideEffects {
                nodes_created: 1,
                labels_removed: 2,
                ..SideEffects::default()
            }
        );
        assert!(SideEffects::from_table(&table(&[("+edges", "1")])).is_err());
        assert!(SideEffects::from_table(&table(&[("+nodes", "-1")])).is_err());
        assert!(SideEffects::from_table(&[vec!["+nodes".to_owned()]]).is_err());
        assert_eq!(
            SideEffects::from_table(&[]).unwrap(),
            SideEffects::default()
        );
    }
}
