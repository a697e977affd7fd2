//! Filling node, relationship and path values with their labels, types and properties before
//! they leave the engine. Inside a query they are ids only.

use std::sync::Arc;

use quiver_storage::{NodeId, RelId, Transaction as StorageTx};
use quiver_value::graph::{NodeData, RelData};
use quiver_value::{Map, Node, Path, Relationship, Value};

fn node(n: &Node, tx: &StorageTx) -> Node {
    if n.data.is_some() {
        return n.clone();
    }
    // A node deleted by this transaction has no data left to show.
    tx.materialize_node(NodeId(n.id)).unwrap_or_else(|_| Node {
        id: n.id,
        data: Some(Arc::new(NodeData::default())),
    })
}

fn rel(r: &Relationship, tx: &StorageTx) -> Relationship {
    if r.data.is_some() {
        return r.clone();
    }
    tx.materialize_rel(RelId(r.id))
        .unwrap_or_else(|_| Relationship {
            id: r.id,
            data: Some(Arc::new(RelData {
                start: 0,
                end: 0,
                rel_type: Arc::from(""),
                properties: Map::new(),
                ends: None,
            })),
        })
}

/// Whether a value holds graph entities anywhere (only those need work).
fn has_entities(v: &Value) -> bool {
    match v {
        Value::Node(_) | Value::Relationship(_) | Value::Path(_) => true,
        Value::List(items) => items.iter().any(has_entities),
        Value::Map(m) => m.values().any(has_entities),
        _ => false,
    }
}

/// The value with every entity in it materialised.
pub(crate) fn materialize(v: Value, tx: &StorageTx) -> Value {
    if !has_entities(&v) {
        return v;
    }
    match v {
        Value::Node(n) => Value::Node(node(&n, tx)),
        Value::Relationship(r) => Value::Relationship(rel(&r, tx)),
        Value::Path(p) => Value::Path(Arc::new(Path {
            nodes: p.nodes.iter().map(|n| node(n, tx)).collect(),
            relationships: p.relationships.iter().map(|r| rel(r, tx)).collect(),
        })),
        Value::List(items) => Value::from(
            items
                .iter()
                .map(|i| materialize(i.clone(), tx))
                .collect::<Vec<_>>(),
        ),
        Value::Map(m) => Value::map(
            m.iter()
                .map(|(k, v)| (k.clone(), materialize(v.clone(), tx)))
                .collect(),
        ),
        other => other,
    }
}
