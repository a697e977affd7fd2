//! `db.schema.*`: the graph's shape as Neo4j Browser and schema tools read it, and
//! `db.awaitIndex(es)`.

use std::fmt::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_storage::{IndexInfo, IndexKind, IndexState};
use quiver_value::{Map, Node, NodeData, RelData, Relationship, Value};

use super::sample::{
    LabelSample, NODES_PER_LABEL_DEFAULT, RELS_PER_NODE_DEFAULT, Sample, TypeSample,
};
use super::values::{call_failed, entries, strings};
use crate::error::Result;
use crate::procedures::native::{Native, list_of};
use crate::procedures::{FieldType, ProcedureContext};

/// How often an index wait looks again.
const AWAIT_POLL: Duration = Duration::from_millis(5);
/// `db.awaitIndex(es)`'s default timeout, Neo4j's.
const AWAIT_SECONDS_DEFAULT: i64 = 300;

pub(super) fn procedures() -> Vec<Native> {
    vec![
        Native::new(
            "db.schema.visualization",
            "Visualizes the schema of the data: a virtual node per label and a virtual relationship per (start label, type, end label) seen.",
            visualization,
        )
        .output("nodes", list_of(FieldType::Node))
        .output("relationships", list_of(FieldType::Relationship)),
        Native::new(
            "db.schema.nodeTypeProperties",
            "Shows the properties of each combination of node labels, with their types and whether every node has them.",
            node_type_properties,
        )
        .output("nodeType", FieldType::String)
        .output("nodeLabels", list_of(FieldType::String))
        .output("propertyName", FieldType::String)
        .output("propertyTypes", list_of(FieldType::String))
        .output("mandatory", FieldType::Boolean),
        Native::new(
            "db.schema.relTypeProperties",
            "Shows the properties of each relationship type, with their types and whether every relationship has them.",
            rel_type_properties,
        )
        .output("relType", FieldType::String)
        .output("propertyName", FieldType::String)
        .output("propertyTypes", list_of(FieldType::String))
        .output("mandatory", FieldType::Boolean),
        Native::new(
            "db.awaitIndexes",
            "Waits for every index to come online, failing after the timeout.",
            await_indexes,
        )
        .input_or(
            "timeOutSeconds",
            FieldType::Integer,
            Value::Int(AWAIT_SECONDS_DEFAULT),
        ),
        Native::new(
            "db.awaitIndex",
            "Waits for the named index to come online, failing after the timeout.",
            await_index,
        )
        .input("indexName", FieldType::String)
        .input_or(
            "timeOutSeconds",
            FieldType::Integer,
            Value::Int(AWAIT_SECONDS_DEFAULT),
        ),
    ]
}

fn sample(ctx: &ProcedureContext<'_>) -> Result<Sample> {
    Sample::take(ctx.tx, NODES_PER_LABEL_DEFAULT, RELS_PER_NODE_DEFAULT)
}

/// Ids of virtual entities count down from the largest id the wire carries (`i64::MAX`):
/// stored ids are dense from 0 and never come near, so a virtual id never names a stored
/// entity, and each stays distinct on the wire (Bolt ids are signed).
fn virtual_id(i: usize) -> u64 {
    i64::MAX.unsigned_abs() - i as u64
}

/// One virtual node per label (`name`, `indexes`, `constraints` as Neo4j gives them) and one
/// virtual relationship per (start label, type, end label) the sample saw.
fn visualization(ctx: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
    let sample = sample(ctx)?;
    let indexes = ctx.storage.indexes();
    let constraints = ctx.storage.constraints();
    let (nodes, rels) = virtual_graph(
        &sample,
        |label| {
            let indexed: Vec<Arc<str>> = indexes
                .iter()
                .filter(|ix| {
                    !ix.relationship && ix.label == label.name && ix.kind == IndexKind::Range
                })
                .map(|ix| ix.key.clone())
                .collect();
            let constrained: Vec<String> = constraints
                .iter()
                .filter(|c| !c.relationship && c.label == label.name)
                .map(constraint_description)
                .collect();
            entries([
                ("name".to_owned(), Value::String(label.name.clone())),
                ("indexes".to_owned(), strings(indexed)),
                ("constraints".to_owned(), strings(constrained)),
            ])
        },
        |t, _| entries([("name".to_owned(), Value::String(t.name.clone()))]),
    );
    Ok(vec![vec![Value::from(nodes), Value::from(rels)]])
}

/// A virtual node per sampled label and a virtual relationship per (start label, type, end
/// label) pattern, with the properties the callers give (the pattern's sampled count beside
/// its type).
pub(super) fn virtual_graph(
    sample: &Sample,
    node_properties: impl Fn(&LabelSample) -> Map,
    rel_properties: impl Fn(&TypeSample, u64) -> Map,
) -> (Vec<Value>, Vec<Value>) {
    let mut nodes = Vec::new();
    let mut ids = std::collections::HashMap::new();
    for (i, label) in sample.labels.iter().enumerate() {
        let node = Node {
            id: virtual_id(i),
            data: Some(Arc::new(NodeData {
                labels: vec![label.name.clone()],
                properties: node_properties(label),
            })),
        };
        ids.insert(label.name.clone(), node.clone());
        nodes.push(Value::Node(node));
    }
    let mut rels = Vec::new();
    for t in &sample.types {
        for ((start, end), count) in &t.patterns {
            let (Some(s), Some(e)) = (ids.get(start), ids.get(end)) else {
                continue;
            };
            rels.push(Value::Relationship(Relationship {
                id: virtual_id(rels.len()),
                data: Some(Arc::new(RelData {
                    start: s.id,
                    end: e.id,
                    rel_type: t.name.clone(),
                    properties: rel_properties(t, *count),
                    ends: Some(Arc::new([s.clone(), e.clone()])),
                })),
            }));
        }
    }
    (nodes, rels)
}

/// How Neo4j describes a constraint in `db.schema.visualization`.
fn constraint_description(c: &IndexInfo) -> String {
    format!(
        "Constraint( name='{}', type='UNIQUENESS', schema=(:{} {{{}}}), ownedIndex={} )",
        c.name,
        crate::procedures::native::escape(&c.label),
        crate::procedures::native::escape(&c.key),
        c.name
    )
}

/// The type names a property had, Neo4j's spelling (`String`, `LongArray`).
fn type_names(stats: &super::sample::PropStats) -> Value {
    strings(stats.types.iter().map(|t| t.schema_name()))
}

fn node_type_properties(ctx: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
    let sample = sample(ctx)?;
    let mut out = Vec::new();
    for (labels, combo) in &sample.combos {
        if labels.is_empty() {
            continue;
        }
        let node_type = labels.iter().fold(String::new(), |mut t, l| {
            let _ = write!(t, ":{}", crate::procedures::native::escape(l));
            t
        });
        let label_list = strings(labels.iter());
        if combo.properties.is_empty() {
            out.push(vec![
                Value::from(node_type.as_str()),
                label_list.clone(),
                Value::Null,
                Value::Null,
                Value::Bool(false),
            ]);
        }
        for (key, stats) in &combo.properties {
            out.push(vec![
                Value::from(node_type.as_str()),
                label_list.clone(),
                Value::String(key.clone()),
                type_names(stats),
                Value::Bool(stats.seen == combo.sampled),
            ]);
        }
    }
    Ok(out)
}

fn rel_type_properties(ctx: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
    let sample = sample(ctx)?;
    let mut out = Vec::new();
    for t in &sample.types {
        let rel_type = Value::from(format!(":{}", crate::procedures::native::escape(&t.name)));
        if t.properties.is_empty() {
            out.push(vec![
                rel_type.clone(),
                Value::Null,
                Value::Null,
                Value::Bool(false),
            ]);
        }
        for (key, stats) in &t.properties {
            out.push(vec![
                rel_type.clone(),
                Value::String(key.clone()),
                type_names(stats),
                Value::Bool(stats.seen == t.sampled),
            ]);
        }
    }
    Ok(out)
}

/// The timeout argument as a deadline; a negative one fails by name.
fn deadline(seconds: &Value) -> Result<Instant> {
    let seconds = match seconds {
        Value::Int(s) if *s >= 0 => *s,
        Value::Null => AWAIT_SECONDS_DEFAULT,
        other => {
            return Err(call_failed(format!(
                "timeOutSeconds must be a non-negative INTEGER, got {}",
                quiver_value::to_string_cypher(other)
            )));
        }
    };
    let wait = Duration::from_secs(u64::try_from(seconds).unwrap_or(0));
    Ok(Instant::now() + wait)
}

/// Waits until `pending` finds nothing still populating, or the deadline passes.
fn await_online(
    ctx: &ProcedureContext<'_>,
    deadline: Instant,
    what: &str,
    pending: impl Fn(&[IndexInfo]) -> bool,
) -> Result<Vec<Vec<Value>>> {
    loop {
        if !pending(&ctx.storage.indexes()) {
            return Ok(Vec::new());
        }
        if Instant::now() >= deadline {
            return Err(call_failed(format!(
                "Timed out waiting for {what} to come online."
            )));
        }
        std::thread::sleep(AWAIT_POLL);
    }
}

fn await_indexes(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let deadline = deadline(args.first().unwrap_or(&Value::Null))?;
    await_online(ctx, deadline, "the indexes", |all| {
        all.iter().any(|ix| ix.state == IndexState::Populating)
    })
}

fn await_index(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let Some(Value::String(name)) = args.first() else {
        return Err(call_failed(
            "db.awaitIndex needs indexName, the name of an index",
        ));
    };
    if !ctx.storage.indexes().iter().any(|ix| ix.name == **name) {
        return Err(call_failed(format!("There is no index named '{name}'.")));
    }
    let deadline = deadline(args.get(1).unwrap_or(&Value::Null))?;
    await_online(ctx, deadline, &format!("index '{name}'"), |all| {
        all.iter()
            .any(|ix| ix.name == **name && ix.state == IndexState::Populating)
    })
}
