//! `apoc.merge.*` and `apoc.create.*`: each builds the Cypher statement that does the same
//! (`MERGE`, `CREATE`, `SET`) with the labels, type and keys escaped into its text and every
//! value passed as a parameter, and runs it in the caller's transaction. Constraint checks,
//! index maintenance and update counters are therefore exactly those of the clauses.

use std::fmt::Write as _;

use quiver_storage::NodeId;
use quiver_value::{Map, Node, Value};

use quiver_engine::Result;
use quiver_engine::procedures::native::{
    Native, arg, bad_arg, escape, list_of, map_arg, map_value, native, string_value,
};
use quiver_engine::procedures::nested::Access;
use quiver_engine::procedures::{FieldType, ProcedureContext};

pub(super) fn procedures() -> Vec<Native> {
    use FieldType::{Any, Map as M, Node as N, String as S};
    vec![
        native(
            "apoc.merge.node",
            vec![
                arg("labels", list_of(S)),
                arg("identProps", M),
                map_arg("onCreateProps"),
                map_arg("onMatchProps"),
            ],
            &[("node", N)],
            true,
            merge_node,
        ),
        native(
            "apoc.merge.relationship",
            vec![
                arg("startNode", N),
                arg("relType", S),
                arg("identProps", M),
                arg("onCreateProps", M),
                arg("endNode", N),
                map_arg("onMatchProps"),
            ],
            &[("rel", FieldType::Relationship)],
            true,
            merge_relationship,
        ),
        native(
            "apoc.create.node",
            vec![arg("labels", list_of(S)), arg("properties", M)],
            &[("node", N)],
            true,
            create_node,
        ),
        native(
            "apoc.create.relationship",
            vec![
                arg("from", N),
                arg("relType", S),
                arg("properties", M),
                arg("to", N),
            ],
            &[("rel", FieldType::Relationship)],
            true,
            create_relationship,
        ),
        native(
            "apoc.create.addLabels",
            vec![arg("nodes", Any), arg("labels", list_of(S))],
            &[("node", N)],
            true,
            add_labels,
        ),
        native(
            "apoc.create.setProperty",
            vec![arg("nodes", Any), arg("key", S), arg("value", Any)],
            &[("node", N)],
            true,
            set_property,
        ),
    ]
}

/// Labels as `:`A`:`B``; each must be a non-empty string.
fn labels(name: &str, argument: &str, v: &Value) -> Result<String> {
    let mut out = String::new();
    let items = match v {
        Value::Null => return Ok(out),
        Value::List(items) => items,
        other => {
            return Err(bad_arg(
                name,
                argument,
                format!(
                    "must be a list of strings, got {}",
                    other.value_type().name()
                ),
            ));
        }
    };
    for item in items.iter() {
        match item {
            Value::String(s) if !s.is_empty() => {
                out.push(':');
                out.push_str(&escape(s));
            }
            _ => {
                return Err(bad_arg(
                    name,
                    argument,
                    "may not contain null or empty strings",
                ));
            }
        }
    }
    Ok(out)
}

/// The identifying properties as a pattern map reading parameter `param`:
/// `{`k`: $param.`k`, ...}`. At least one is required, as APOC requires.
fn ident_pattern(name: &str, argument: &str, props: &Map, param: &str) -> Result<String> {
    if props.is_empty() {
        return Err(bad_arg(
            name,
            argument,
            "must hold at least one identifying property for a merge",
        ));
    }
    let mut out = String::from(" {");
    for (i, (k, v)) in props.iter().enumerate() {
        if v.is_null() {
            return Err(bad_arg(
                name,
                argument,
                format!("may not hold a null value (key '{k}'): MERGE cannot match on null"),
            ));
        }
        if i > 0 {
            out.push_str(", ");
        }
        let key = escape(k);
        let _ = write!(out, "{key}: ${param}.{key}");
    }
    out.push('}');
    Ok(out)
}

/// A node argument that must be present.
fn node_arg(name: &str, argument: &str, v: &Value) -> Result<Value> {
    match v {
        Value::Node(_) => Ok(v.clone()),
        Value::Null => Err(bad_arg(name, argument, "must be a node, got null")),
        other => Err(bad_arg(
            name,
            argument,
            format!("must be a node, got {}", other.value_type().name()),
        )),
    }
}

/// A relationship type that must be a non-empty string.
fn rel_type(name: &str, argument: &str, v: &Value) -> Result<String> {
    let t = string_value(name, argument, v)?;
    if t.is_empty() {
        return Err(bad_arg(name, argument, "may not be empty"));
    }
    Ok(escape(t))
}

fn params(entries: Vec<(&str, Value)>) -> Map {
    entries
        .into_iter()
        .map(|(k, v)| (std::sync::Arc::from(k), v))
        .collect()
}

/// The first column of every row.
fn first_column(
    ctx: &ProcedureContext<'_>,
    name: &str,
    statement: &str,
    p: &Map,
) -> Result<Vec<Vec<Value>>> {
    let out = ctx.run(name, statement, p, Access::Write)?;
    Ok(out
        .rows
        .into_iter()
        .map(|mut row| {
            row.truncate(1);
            row
        })
        .collect())
}

fn merge_node(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.merge.node";
    let labels = labels(NAME, "labels", &args[0])?;
    let ident = map_value(NAME, "identProps", &args[1])?;
    let on_create = map_value(NAME, "onCreateProps", &args[2])?;
    let on_match = map_value(NAME, "onMatchProps", &args[3])?;
    let pattern = ident_pattern(NAME, "identProps", &ident, "identProps")?;
    let statement = format!(
        "MERGE (n{labels}{pattern}) ON CREATE SET n += $onCreateProps \
         ON MATCH SET n += $onMatchProps RETURN n"
    );
    let p = params(vec![
        ("identProps", Value::Map(ident)),
        ("onCreateProps", Value::Map(on_create)),
        ("onMatchProps", Value::Map(on_match)),
    ]);
    first_column(ctx, NAME, &statement, &p)
}

fn merge_relationship(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.merge.relationship";
    let start = node_arg(NAME, "startNode", &args[0])?;
    let rel_type = rel_type(NAME, "relType", &args[1])?;
    let ident = map_value(NAME, "identProps", &args[2])?;
    let on_create = map_value(NAME, "onCreateProps", &args[3])?;
    let end = node_arg(NAME, "endNode", &args[4])?;
    let on_match = map_value(NAME, "onMatchProps", &args[5])?;
    // Unlike a node, a relationship may be merged on its type and ends alone.
    let pattern = if ident.is_empty() {
        String::new()
    } else {
        ident_pattern(NAME, "identProps", &ident, "identProps")?
    };
    let statement = format!(
        "WITH $startNode AS a, $endNode AS b \
         MERGE (a)-[r:{rel_type}{pattern}]->(b) ON CREATE SET r += $onCreateProps \
         ON MATCH SET r += $onMatchProps RETURN r"
    );
    let p = params(vec![
        ("startNode", start),
        ("endNode", end),
        ("identProps", Value::Map(ident)),
        ("onCreateProps", Value::Map(on_create)),
        ("onMatchProps", Value::Map(on_match)),
    ]);
    first_column(ctx, NAME, &statement, &p)
}

fn create_node(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.create.node";
    let labels = labels(NAME, "labels", &args[0])?;
    let props = map_value(NAME, "properties", &args[1])?;
    let statement = format!("CREATE (n{labels}) SET n += $properties RETURN n");
    first_column(
        ctx,
        NAME,
        &statement,
        &params(vec![("properties", Value::Map(props))]),
    )
}

fn create_relationship(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.create.relationship";
    let from = node_arg(NAME, "from", &args[0])?;
    let rel_type = rel_type(NAME, "relType", &args[1])?;
    let props = map_value(NAME, "properties", &args[2])?;
    let to = node_arg(NAME, "to", &args[3])?;
    let statement = format!(
        "WITH $from AS a, $to AS b CREATE (a)-[r:{rel_type}]->(b) SET r += $properties RETURN r"
    );
    let p = params(vec![
        ("from", from),
        ("to", to),
        ("properties", Value::Map(props)),
    ]);
    first_column(ctx, NAME, &statement, &p)
}

/// APOC's `nodes` argument: a node, a node id, or a list of either (nulls skipped). Ids must
/// name nodes the transaction sees.
pub(super) fn nodes_arg(
    ctx: &ProcedureContext<'_>,
    name: &str,
    argument: &str,
    v: &Value,
) -> Result<Vec<Value>> {
    let one = |item: &Value| -> Result<Option<Value>> {
        match item {
            Value::Null => Ok(None),
            Value::Node(_) => Ok(Some(item.clone())),
            Value::Int(id) => {
                let exists = u64::try_from(*id)
                    .ok()
                    .is_some_and(|id| ctx.tx.node_exists(NodeId(id)).unwrap_or(false));
                if !exists {
                    return Err(bad_arg(
                        name,
                        argument,
                        format!("names no node with id {id}"),
                    ));
                }
                Ok(Some(Value::Node(Node::new(*id as u64))))
            }
            Value::String(s) => {
                let id = s
                    .rsplit(':')
                    .next()
                    .and_then(|n| n.parse::<u64>().ok())
                    .filter(|id| ctx.tx.node_exists(NodeId(*id)).unwrap_or(false))
                    .ok_or_else(|| {
                        bad_arg(
                            name,
                            argument,
                            format!("names no node with element id '{s}'"),
                        )
                    })?;
                Ok(Some(Value::Node(Node::new(id))))
            }
            other => Err(bad_arg(
                name,
                argument,
                format!(
                    "must be a node, a node id or a list of them, got {}",
                    other.value_type().name()
                ),
            )),
        }
    };
    match v {
        Value::List(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items.iter() {
                out.extend(one(item)?);
            }
            Ok(out)
        }
        other => Ok(one(other)?.into_iter().collect()),
    }
}

fn add_labels(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.create.addLabels";
    let nodes = nodes_arg(ctx, NAME, "nodes", &args[0])?;
    let labels = labels(NAME, "labels", &args[1])?;
    if labels.is_empty() {
        return Ok(nodes.into_iter().map(|n| vec![n]).collect());
    }
    let statement = format!("UNWIND $nodes AS n SET n{labels} RETURN n");
    first_column(
        ctx,
        NAME,
        &statement,
        &params(vec![("nodes", Value::from(nodes))]),
    )
}

fn set_property(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.create.setProperty";
    let nodes = nodes_arg(ctx, NAME, "nodes", &args[0])?;
    let key = string_value(NAME, "key", &args[1])?;
    if key.is_empty() {
        return Err(bad_arg(NAME, "key", "may not be empty"));
    }
    let props: Map = std::iter::once((std::sync::Arc::from(key), args[2].clone())).collect();
    let statement = "UNWIND $nodes AS n SET n += $props RETURN n";
    let p = params(vec![
        ("nodes", Value::from(nodes)),
        ("props", Value::map(props)),
    ]);
    first_column(ctx, NAME, statement, &p)
}
