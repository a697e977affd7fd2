//! Graph Data Science's functions: `gds.version()` and the `gds.util.*` helpers its
//! documentation and client use on the rows of a stream (`gds.util.asNode(nodeId)`).
//! The `gds.*` procedures are `quiver-procedures`'.

use quiver_value::{Node, Value};

use super::{bad, nth};
use crate::error::Result;
use crate::eval::Cx;

/// The version `gds.version()` reports: the Graph Data Science release whose procedure names,
/// configuration keys and result columns Quiver's `gds.*` procedures follow.
pub const GDS_VERSION: &str = "2.6.0";

pub(crate) fn version(_: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(Value::from(GDS_VERSION))
}

/// The node with id `v` if it exists in the caller's view, else `null`.
fn node_of(name: &str, argument: &str, v: &Value, cx: &mut Cx) -> Result<Value> {
    let id = match v {
        Value::Null => return Ok(Value::Null),
        Value::Int(i) if *i >= 0 => *i as u64,
        Value::Int(_) => return Ok(Value::Null),
        Value::Node(n) => n.id,
        other => {
            return Err(bad(
                name,
                argument,
                format!("must be a node id, got {}", other.value_type().name()),
            ));
        }
    };
    Ok(if cx.tx.node_exists(quiver_storage::NodeId(id))? {
        Value::Node(Node::new(id))
    } else {
        Value::Null
    })
}

/// `gds.util.asNode(nodeId)`: the node a stream's `nodeId` names.
pub(crate) fn as_node(args: &[Value], cx: &mut Cx) -> Result<Value> {
    node_of("gds.util.asNode", "nodeId", nth(args, 0), cx)
}

/// `gds.util.asNodes(nodeIds)`: the nodes a list of ids names, in order.
pub(crate) fn as_nodes(args: &[Value], cx: &mut Cx) -> Result<Value> {
    const NAME: &str = "gds.util.asNodes";
    match nth(args, 0) {
        Value::Null => Ok(Value::Null),
        Value::List(ids) => {
            let mut out = Vec::with_capacity(ids.len());
            for id in ids.iter() {
                cx.tick()?;
                out.push(node_of(NAME, "nodeIds", id, cx)?);
            }
            Ok(Value::from(out))
        }
        other => Err(bad(
            NAME,
            "nodeIds",
            format!(
                "must be a list of node ids, got {}",
                other.value_type().name()
            ),
        )),
    }
}

pub(crate) fn nan(_: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(Value::Float(f64::NAN))
}

pub(crate) fn infinity(_: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(Value::Float(f64::INFINITY))
}

fn number(name: &str, v: &Value) -> Result<Option<f64>> {
    match v {
        Value::Null => Ok(None),
        Value::Int(i) => Ok(Some(*i as f64)),
        Value::Float(f) => Ok(Some(*f)),
        other => Err(bad(
            name,
            "value",
            format!("must be a number, got {}", other.value_type().name()),
        )),
    }
}

pub(crate) fn is_finite(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(number("gds.util.isFinite", nth(args, 0))?
        .map_or(Value::Null, |f| Value::Bool(f.is_finite())))
}

pub(crate) fn is_infinite(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(number("gds.util.isInfinite", nth(args, 0))?
        .map_or(Value::Null, |f| Value::Bool(f.is_infinite())))
}
