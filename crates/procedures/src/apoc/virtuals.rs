//! `apoc.create.vNode` and `apoc.create.vRelationship`: nodes and relationships that exist
//! only in the query's results. They carry their labels, type and properties, which `.`,
//! `labels()`, `type()`, `keys()` and `properties()` read from them, and are never stored.
//! A virtual relationship keeps the nodes it was made from, so `startNode` and `endNode` give
//! them back (a virtual node with its data, a stored one by its id).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use quiver_value::{Node, NodeData, RelData, Relationship, Value};

use quiver_engine::Result;
use quiver_engine::procedures::native::{
    Native, arg, bad_arg, list_of, map_value, native, string_value,
};
use quiver_engine::procedures::{FieldType, ProcedureContext};

pub(super) fn procedures() -> Vec<Native> {
    use FieldType::{Map as M, Node as N, String as S};
    vec![
        native(
            "apoc.create.vNode",
            vec![arg("labels", list_of(S)), arg("props", M)],
            &[("node", N)],
            false,
            v_node,
        ),
        native(
            "apoc.create.vRelationship",
            vec![
                arg("from", N),
                arg("relType", S),
                arg("props", M),
                arg("to", N),
            ],
            &[("rel", FieldType::Relationship)],
            false,
            v_relationship,
        ),
    ]
}

/// Virtual ids count down from far below the largest id the wire carries (the schema
/// procedures' virtual entities count down from the top): stored ids are dense from 0 and
/// never come near, so a virtual id names no stored entity, and each call gets a new one.
const VIRTUAL_ID_TOP: u64 = (1 << 62) - 1;

static VIRTUAL_IDS: AtomicU64 = AtomicU64::new(0);

fn virtual_id() -> u64 {
    VIRTUAL_ID_TOP - (VIRTUAL_IDS.fetch_add(1, Ordering::Relaxed) % (1 << 61))
}

fn v_node(_: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.create.vNode";
    let labels = match &args[0] {
        Value::Null => Vec::new(),
        Value::List(items) => items
            .iter()
            .map(|l| match l {
                Value::String(s) if !s.is_empty() => Ok(s.clone()),
                other => Err(bad_arg(
                    NAME,
                    "labels",
                    format!(
                        "must hold non-empty strings, got {}",
                        quiver_value::to_cypher_literal(other)
                    ),
                )),
            })
            .collect::<Result<_>>()?,
        other => {
            return Err(bad_arg(
                NAME,
                "labels",
                format!(
                    "must be a list of strings, got {}",
                    other.value_type().name()
                ),
            ));
        }
    };
    let properties = (*map_value(NAME, "props", &args[1])?).clone();
    Ok(vec![vec![Value::Node(Node {
        id: virtual_id(),
        data: Some(Arc::new(NodeData { labels, properties })),
    })]])
}

fn v_relationship(_: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.create.vRelationship";
    let end = |argument: &str, v: &Value| match v {
        Value::Node(n) => Ok(n.clone()),
        other => Err(bad_arg(
            NAME,
            argument,
            format!("must be a node, got {}", other.value_type().name()),
        )),
    };
    let start = end("from", &args[0])?;
    let rel_type = string_value(NAME, "relType", &args[1])?;
    if rel_type.is_empty() {
        return Err(bad_arg(NAME, "relType", "may not be empty"));
    }
    let properties = (*map_value(NAME, "props", &args[2])?).clone();
    let end = end("to", &args[3])?;
    Ok(vec![vec![Value::Relationship(Relationship {
        id: virtual_id(),
        data: Some(Arc::new(RelData {
            start: start.id,
            end: end.id,
            rel_type: Arc::from(rel_type),
            properties,
            ends: Some(Arc::new([start, end])),
        })),
    })]])
}
