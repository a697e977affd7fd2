//! Named paths (`p = (a)-[r*]->(b)`), assembled from the slots their pattern bound.

use std::sync::Arc;

use quiver_storage::RelId;
use quiver_value::{Node, Path, Relationship, Value};

use super::Cx;
use crate::error::{Error, Result};
use crate::ir::{PathPart, Row};

fn node_of(v: &Value) -> Result<Option<u64>> {
    match v {
        Value::Null => Ok(None),
        Value::Node(n) => Ok(Some(n.id)),
        other => Err(Error::type_error(format!(
            "A path element must be a Node, got {}",
            other.value_type()
        ))),
    }
}

/// Builds the path, or `null` when any element is `null` (an unmatched OPTIONAL MATCH).
pub(crate) fn build(parts: &[PathPart], row: &mut Row, cx: &mut Cx) -> Result<Value> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut rels: Vec<Relationship> = Vec::new();
    let slot = |s: usize, row: &Row| row.get(s).cloned().unwrap_or(Value::Null);
    for part in parts {
        match *part {
            PathPart::Node(s) => {
                let Some(id) = node_of(&slot(s, row))? else {
                    return Ok(Value::Null);
                };
                // After a variable-length step the walk already reached this node.
                if nodes.len() == rels.len() {
                    nodes.push(Node::new(id));
                }
            }
            PathPart::Rel(s) => match slot(s, row) {
                Value::Null => return Ok(Value::Null),
                Value::Relationship(r) => rels.push(r),
                other => {
                    return Err(Error::type_error(format!(
                        "A path element must be a Relationship, got {}",
                        other.value_type()
                    )));
                }
            },
            PathPart::RelList(s) => {
                let list = match slot(s, row) {
                    Value::Null => return Ok(Value::Null),
                    Value::List(l) => l,
                    other => {
                        return Err(Error::type_error(format!(
                            "A variable-length path element must be a List, got {}",
                            other.value_type()
                        )));
                    }
                };
                let Some(mut at) = nodes.last().map(|n| n.id) else {
                    return Ok(Value::Null);
                };
                for item in list.iter() {
                    let Value::Relationship(r) = item else {
                        return Err(Error::type_error("A path may hold only relationships"));
                    };
                    let (start, end, _) = cx.tx.rel_endpoints(RelId(r.id))?;
                    at = if start.0 == at { end.0 } else { start.0 };
                    rels.push(r.clone());
                    nodes.push(Node::new(at));
                }
            }
        }
    }
    cx.transient((nodes.len() + rels.len()) * 16, "a path")?;
    Ok(Value::Path(Arc::new(Path {
        nodes,
        relationships: rels,
    })))
}
