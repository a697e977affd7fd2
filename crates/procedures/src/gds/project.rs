//! Projecting graphs into the catalog: `gds.graph.project` (native: labels, relationship
//! types, orientations, properties, aggregation) and `gds.graph.project.cypher` (the legacy
//! Cypher projection). Both read through the caller's transaction, so a projection is one
//! snapshot of the store; relationships are read a block of nodes at a time in parallel.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use quiver_algorithms::{Aggregation, Control, Graph, GraphBuilder, Interrupted};
use quiver_engine::Result;
use quiver_engine::procedures::ProcedureContext;
use quiver_storage::{Direction, NodeId, RelTypeId};
use quiver_value::{Map, Value};
use rayon::prelude::*;

use super::catalog::{
    Catalog, Column, Orientation, Projection, RelationshipProjection, already_exists, graph_name,
    now, record,
};
use super::config::{Config, failed, wrong_type};

/// A projected node property: the stored key and the value nodes without it take.
#[derive(Clone, Debug)]
struct PropertySpec {
    alias: String,
    key: String,
    default: Value,
}

/// `properties` of a projection entry: a key, a list of keys, or a map of alias to key or to
/// `{property, defaultValue}`.
fn property_specs(procedure: &str, value: Option<&Value>) -> Result<Vec<PropertySpec>> {
    let spec = |alias: &str, key: &str, default: Value| PropertySpec {
        alias: alias.to_owned(),
        key: key.to_owned(),
        default,
    };
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![spec(s, s, Value::Null)]),
        Some(Value::List(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(spec(s, s, Value::Null)),
                other => Err(wrong_type(
                    procedure,
                    "A property must be given by its name",
                    other,
                )),
            })
            .collect(),
        Some(Value::Map(m)) => m
            .iter()
            .map(|(alias, v)| match v {
                Value::String(s) => Ok(spec(alias, s, Value::Null)),
                Value::Map(p) => {
                    let key = match p.get("property") {
                        Some(Value::String(s)) => s.to_string(),
                        None | Some(Value::Null) => alias.to_string(),
                        Some(other) => {
                            return Err(wrong_type(
                                procedure,
                                &format!("The `property` of `{alias}` must be a string"),
                                other,
                            ));
                        }
                    };
                    Ok(spec(
                        alias,
                        &key,
                        p.get("defaultValue").cloned().unwrap_or(Value::Null),
                    ))
                }
                other => Err(wrong_type(
                    procedure,
                    &format!("Property `{alias}` must be given by a name or a map"),
                    other,
                )),
            })
            .collect(),
        Some(other) => Err(wrong_type(
            procedure,
            "Properties must be a string, list or map",
            other,
        )),
    }
}

/// A projection's entry that is not what it must be: `Invalid {kind} projection: {what}, got
/// {its type}`.
fn invalid_entry(procedure: &str, kind: &str, what: &str, got: &Value) -> quiver_engine::Error {
    let got = got.value_type().name();
    failed(
        procedure,
        format!("Invalid {kind} projection: {what}, got {got}"),
    )
}

/// The name a map entry of a projection gives under `key` (`label`, `type`): its alias when it
/// gives none.
fn entry_name(procedure: &str, kind: &str, entry: &Map, key: &str, alias: &str) -> Result<String> {
    match entry.get(key) {
        Some(Value::String(s)) => Ok(s.to_string()),
        None | Some(Value::Null) => Ok(alias.to_owned()),
        Some(other) => {
            let what = format!("the {key} of `{alias}` must be a string");
            Err(invalid_entry(procedure, kind, &what, other))
        }
    }
}

/// The labels a node projection names (`None` for every node) and its properties.
fn node_projection(
    procedure: &str,
    value: &Value,
) -> Result<(Option<Vec<String>>, Vec<PropertySpec>)> {
    let invalid = |what: &str, got: &Value| invalid_entry(procedure, "node", what, got);
    let mut labels = Vec::new();
    let mut properties = Vec::new();
    let add = |label: &str, labels: &mut Vec<String>| {
        if label == "*" {
            false
        } else {
            labels.push(label.to_owned());
            true
        }
    };
    match value {
        Value::String(s) => {
            if !add(s, &mut labels) {
                return Ok((None, properties));
            }
        }
        Value::List(items) => {
            for item in items.iter() {
                match item {
                    Value::String(s) => {
                        if !add(s, &mut labels) {
                            return Ok((None, properties));
                        }
                    }
                    other => return Err(invalid("a label must be a string", other)),
                }
            }
        }
        Value::Map(m) => {
            let mut all = false;
            for (alias, entry) in m.iter() {
                let label = match entry {
                    Value::String(s) => s.to_string(),
                    Value::Map(e) => {
                        properties.extend(property_specs(procedure, e.get("properties"))?);
                        entry_name(procedure, "node", e, "label", alias)?
                    }
                    other => {
                        return Err(invalid(
                            &format!("`{alias}` must be a label or a map"),
                            other,
                        ));
                    }
                };
                all |= !add(&label, &mut labels);
            }
            if all {
                return Ok((None, properties));
            }
        }
        other => return Err(invalid("expected a string, list or map", other)),
    }
    Ok((Some(labels), properties))
}

fn orientation_of(procedure: &str, value: Option<&Value>) -> Result<Orientation> {
    match value {
        None | Some(Value::Null) => Ok(Orientation::Natural),
        Some(Value::String(s)) => match s.to_ascii_uppercase().as_str() {
            "NATURAL" => Ok(Orientation::Natural),
            "REVERSE" => Ok(Orientation::Reverse),
            "UNDIRECTED" => Ok(Orientation::Undirected),
            _ => Err(failed(
                procedure,
                format!(
                    "Orientation `{s}` is not supported. Must be one of: ['NATURAL', 'REVERSE', 'UNDIRECTED']."
                ),
            )),
        },
        Some(other) => Err(wrong_type(
            procedure,
            "The orientation must be a string",
            other,
        )),
    }
}

fn aggregation_of(procedure: &str, value: Option<&Value>) -> Result<Aggregation> {
    match value {
        None | Some(Value::Null) => Ok(Aggregation::None),
        Some(Value::String(s)) => match s.to_ascii_uppercase().as_str() {
            "NONE" | "DEFAULT" => Ok(Aggregation::None),
            "SINGLE" => Ok(Aggregation::Single),
            "SUM" => Ok(Aggregation::Sum),
            "MIN" => Ok(Aggregation::Min),
            "MAX" => Ok(Aggregation::Max),
            "COUNT" => Ok(Aggregation::Count),
            _ => Err(failed(
                procedure,
                format!(
                    "Aggregation `{s}` is not supported. Must be one of: ['DEFAULT', 'NONE', 'SINGLE', 'SUM', 'MIN', 'MAX', 'COUNT']."
                ),
            )),
        },
        Some(other) => Err(wrong_type(
            procedure,
            "The aggregation must be a string",
            other,
        )),
    }
}

/// The relationship types a relationship projection names and their properties.
fn relationship_projection(
    procedure: &str,
    value: &Value,
) -> Result<(Vec<RelationshipProjection>, Vec<PropertySpec>)> {
    let invalid = |what: &str, got: &Value| invalid_entry(procedure, "relationship", what, got);
    let plain = |t: &str| RelationshipProjection {
        alias: if t == "*" {
            "__ALL__".to_owned()
        } else {
            t.to_owned()
        },
        rel_type: t.to_owned(),
        orientation: Orientation::Natural,
        aggregation: Aggregation::None,
    };
    let mut out = Vec::new();
    let mut properties = Vec::new();
    match value {
        Value::String(s) => out.push(plain(s)),
        Value::List(items) => {
            for item in items.iter() {
                match item {
                    Value::String(s) => out.push(plain(s)),
                    other => return Err(invalid("a type must be a string", other)),
                }
            }
        }
        Value::Map(m) => {
            for (alias, entry) in m.iter() {
                match entry {
                    Value::String(s) => out.push(RelationshipProjection {
                        alias: alias.to_string(),
                        ..plain(s)
                    }),
                    Value::Map(e) => {
                        properties.extend(property_specs(procedure, e.get("properties"))?);
                        let rel_type = entry_name(procedure, "relationship", e, "type", alias)?;
                        out.push(RelationshipProjection {
                            alias: alias.to_string(),
                            rel_type,
                            orientation: orientation_of(procedure, e.get("orientation"))?,
                            aggregation: aggregation_of(procedure, e.get("aggregation"))?,
                        });
                    }
                    other => {
                        return Err(invalid(
                            &format!("`{alias}` must be a type or a map"),
                            other,
                        ));
                    }
                }
            }
        }
        other => return Err(invalid("expected a string, list or map", other)),
    }
    if out.is_empty() {
        return Err(failed(
            procedure,
            "Invalid relationship projection: it names no relationship type",
        ));
    }
    Ok((out, properties))
}

/// `gds.graph.project(graphName, nodeProjection, relationshipProjection, configuration)`.
pub(crate) fn project(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "gds.graph.project";
    let started = Instant::now();
    let name = match &args[0] {
        Value::String(s) if !s.trim().is_empty() => s.to_string(),
        _ => {
            return Err(failed(
                NAME,
                "`graphName` can not be null or blank, but it was `null`",
            ));
        }
    };
    let config = Config::new(
        NAME,
        &args[3],
        &[&[
            "nodeProperties",
            "relationshipProperties",
            "readConcurrency",
            "concurrency",
            "validateRelationships",
            "jobId",
            "logProgress",
            "sudo",
        ]],
    )?;
    if catalog.exists(ctx, &name) {
        return Err(already_exists(NAME, &name));
    }
    let (labels, mut node_properties) = node_projection(NAME, &args[1])?;
    let (relationships, mut rel_properties) = relationship_projection(NAME, &args[2])?;
    let extra_node = config_properties(NAME, &config, "nodeProperties")?;
    node_properties.extend(extra_node);
    rel_properties.extend(config_properties(NAME, &config, "relationshipProperties")?);
    node_properties.dedup_by(|a, b| a.alias == b.alias);
    rel_properties.dedup_by(|a, b| a.alias == b.alias);
    if rel_properties.len() > 1 {
        return Err(failed(
            NAME,
            "A projection holds at most one relationship property, the one algorithms weigh relationships with",
        ));
    }
    let concurrency = config.concurrency("readConcurrency")?;
    let validate = config.bool("validateRelationships", false)?;
    let workers = ctx.workers(NAME)?;
    let check = || workers.check().map_err(|_| Interrupted);
    let control = Control::new(concurrency, &check);
    let stopped = |_: Interrupted| match workers.check() {
        Err(e) => e,
        Ok(()) => failed(NAME, "the projection was interrupted"),
    };

    let ids = read_node_ids(ctx, NAME, labels.as_deref())?;
    ctx.tick(NAME)?;
    let weight = rel_properties.first().cloned();
    let plan = RelationshipPlan::new(ctx.storage, NAME, &relationships, weight.as_ref())?;
    let graph = plan
        .read(ctx.tx, &ids, &control, validate)
        .map_err(|e| e.into_error(NAME, weight.as_ref(), &stopped))?;
    ctx.tick(NAME)?;
    let columns = read_node_properties(ctx, NAME, &ids, &node_properties, &control)?;

    let node_projection_echo = node_projection_echo(labels.as_deref(), &node_properties);
    let relationship_projection_echo =
        relationship_projection_echo(&relationships, &rel_properties);
    let mut configuration = config.echo_map();
    configuration.insert(Arc::from("nodeProjection"), node_projection_echo.clone());
    configuration.insert(
        Arc::from("relationshipProjection"),
        relationship_projection_echo.clone(),
    );
    let created = now();
    let projection = Projection {
        name: name.clone(),
        graph,
        ids,
        weight_property: weight.map(|w| w.alias),
        labels: labels.unwrap_or_else(|| vec!["__ALL__".to_owned()]),
        relationships,
        properties: RwLock::new(columns),
        node_projection: node_projection_echo.clone(),
        relationship_projection: relationship_projection_echo.clone(),
        configuration: Value::map(configuration),
        creation_time: created.clone(),
        modification_time: RwLock::new(created),
    };
    let projection = catalog.store(ctx, NAME, projection)?;
    Ok(vec![vec![
        projection.node_projection.clone(),
        projection.relationship_projection.clone(),
        Value::from(name.as_str()),
        Value::Int(projection.graph.node_count() as i64),
        Value::Int(projection.graph.relationship_count() as i64),
        Value::Int(started.elapsed().as_millis() as i64),
    ]])
}

/// `nodeProjection` as GDS echoes it: each label with its properties.
fn node_projection_echo(labels: Option<&[String]>, node_properties: &[PropertySpec]) -> Value {
    Value::map(match labels {
        None => Map::from_iter([(Arc::from("__ALL__"), node_entry("*", node_properties))]),
        Some(ls) => ls
            .iter()
            .map(|l| (Arc::from(l.as_str()), node_entry(l, node_properties)))
            .collect(),
    })
}

/// `relationshipProjection` as GDS echoes it: each type with its orientation, aggregation and
/// properties.
fn relationship_projection_echo(
    relationships: &[RelationshipProjection],
    rel_properties: &[PropertySpec],
) -> Value {
    Value::map(
        relationships
            .iter()
            .map(|r| {
                (
                    Arc::from(r.alias.as_str()),
                    record(&[
                        ("type", Value::from(r.rel_type.as_str())),
                        ("orientation", Value::from(r.orientation.name())),
                        ("aggregation", Value::from(aggregation_name(r.aggregation))),
                        ("indexInverse", Value::Bool(false)),
                        ("properties", properties_echo(rel_properties)),
                    ]),
                )
            })
            .collect(),
    )
}

/// The projected nodes' ids in ascending order: every node, or each label's nodes merged.
fn read_node_ids(
    ctx: &ProcedureContext<'_>,
    procedure: &str,
    labels: Option<&[String]>,
) -> Result<Vec<u64>> {
    let storage = ctx.storage;
    let mut ids: Vec<u64> = Vec::new();
    match labels {
        None => {
            for n in ctx.tx.scan_nodes()? {
                ids.push(n?.0);
            }
        }
        Some(labels) => {
            let missing: Vec<&str> = labels
                .iter()
                .filter(|l| storage.label_id(l).is_none())
                .map(String::as_str)
                .collect();
            if !missing.is_empty() {
                return Err(failed(
                    procedure,
                    format!(
                        "Invalid node projection, one or more labels not found: '{}'",
                        missing.join("', '")
                    ),
                ));
            }
            for label in labels {
                if let Some(id) = storage.label_id(label) {
                    for n in ctx.tx.scan_label(id)? {
                        ids.push(n?.0);
                    }
                }
            }
            ids.sort_unstable();
            ids.dedup();
        }
    }
    if ids.len() >= u32::MAX as usize {
        return Err(failed(
            procedure,
            format!("A projection holds at most {} nodes", u32::MAX - 1),
        ));
    }
    Ok(ids)
}

/// One projected relationship type's expansion: from each node in `direction` along stored
/// `types` (empty for all), stored both ways for an undirected type in a mixed projection,
/// tagged with the type's position in the projection.
struct Expansion {
    direction: Direction,
    types: Vec<RelTypeId>,
    both_ways: bool,
    tag: u16,
}

/// How a projection's relationships are read: the expansions to run (direction, types,
/// whether each found relationship is stored both ways), the weight property and the value
/// relationships without it take, and how parallel relationships are aggregated.
struct RelationshipPlan {
    groups: Vec<Expansion>,
    weight_key: Option<quiver_storage::PropKeyId>,
    weight_default: f64,
    undirected: bool,
    aggregation: Aggregation,
}

impl RelationshipPlan {
    fn new(
        storage: &quiver_storage::Storage,
        procedure: &str,
        relationships: &[RelationshipProjection],
        weight: Option<&PropertySpec>,
    ) -> Result<RelationshipPlan> {
        if relationships.len() > usize::from(u16::MAX) {
            return Err(failed(
                procedure,
                "A projection holds at most 65535 relationship types",
            ));
        }
        // One expansion per projected type, tagged with its position.
        let mut expansions = Vec::with_capacity(relationships.len());
        for r in relationships {
            let types = if r.rel_type == "*" {
                Vec::new()
            } else {
                vec![storage.rel_type_id(&r.rel_type).ok_or_else(|| {
                    failed(
                        procedure,
                        format!(
                            "Invalid relationship projection, one or more relationship types not found: '{}'",
                            r.rel_type
                        ),
                    )
                })?]
            };
            expansions.push((r.orientation, types));
        }
        let aggregation = relationships[0].aggregation;
        if relationships.iter().any(|r| r.aggregation != aggregation) {
            return Err(failed(
                procedure,
                "Every relationship type of a projection must use the same aggregation",
            ));
        }
        let weight_key = match weight {
            Some(p) => Some(storage.property_key_id(&p.key).ok_or_else(|| {
                failed(procedure, format!("Invalid relationship projection, one or more relationship properties not found: '{}'", p.key))
            })?),
            None => None,
        };
        let weight_default = match weight.map(|w| &w.default) {
            None | Some(Value::Null) => f64::NAN,
            Some(Value::Int(i)) => *i as f64,
            Some(Value::Float(f)) => *f,
            Some(other) => {
                return Err(wrong_type(
                    procedure,
                    "The default value of a relationship property must be a number",
                    other,
                ));
            }
        };
        // All undirected: the builder stores each relationship both ways; mixed: the
        // undirected types' relationships are added both ways here.
        let all_undirected = relationships
            .iter()
            .all(|r| r.orientation == Orientation::Undirected);
        let groups = expansions
            .into_iter()
            .enumerate()
            .map(|(tag, (orientation, types))| Expansion {
                direction: if orientation == Orientation::Reverse {
                    Direction::In
                } else {
                    Direction::Out
                },
                types,
                both_ways: orientation == Orientation::Undirected && !all_undirected,
                tag: tag as u16,
            })
            .collect();
        Ok(RelationshipPlan {
            groups,
            weight_key,
            weight_default,
            undirected: all_undirected,
            aggregation,
        })
    }

    /// Reads every projected node's relationships through `tx`, blocks of nodes in parallel,
    /// and builds the adjacency.
    fn read(
        &self,
        tx: &quiver_storage::Transaction,
        ids: &[u64],
        control: &Control<'_>,
        validate: bool,
    ) -> std::result::Result<Graph, ReadError> {
        const BLOCK: usize = 4096;
        let chunks: Vec<&[u64]> = ids.chunks(BLOCK).collect();
        let edges: Vec<Vec<(u32, u32, f64, u16)>> = control.install(|| {
            chunks
                .par_iter()
                .enumerate()
                .map(|(c, chunk)| {
                    self.read_block(tx, ids, (c * BLOCK) as u32, chunk, control, validate)
                })
                .collect::<std::result::Result<Vec<_>, ReadError>>()
        })?;
        let count: usize = edges.iter().map(Vec::len).sum();
        let mut builder = GraphBuilder::new(ids.len(), self.weight_key.is_some(), self.undirected)
            .aggregation(self.aggregation)
            .typed();
        builder.reserve(count);
        for (s, t, w, tag) in edges.into_iter().flatten() {
            builder.add_typed(s, t, w, tag);
        }
        Ok(control.install(|| builder.build()))
    }

    /// The relationships of one block of nodes, the first of which has index `base`.
    fn read_block(
        &self,
        tx: &quiver_storage::Transaction,
        ids: &[u64],
        base: u32,
        chunk: &[u64],
        control: &Control<'_>,
        validate: bool,
    ) -> std::result::Result<Vec<(u32, u32, f64, u16)>, ReadError> {
        control.check().map_err(ReadError::Stopped)?;
        let nodes: Vec<NodeId> = chunk.iter().map(|i| NodeId(*i)).collect();
        let mut found = Vec::new();
        let mut out = Vec::new();
        for group in &self.groups {
            found.clear();
            tx.expand_batch(&nodes, group.direction, &group.types, &mut found)
                .map_err(ReadError::Store)?;
            for (i, rel, neighbour) in &found {
                let Ok(target) = ids.binary_search(&neighbour.0) else {
                    if validate {
                        return Err(ReadError::Invalid(neighbour.0));
                    }
                    continue;
                };
                let w = match self.weight_key {
                    None => 1.0,
                    Some(key) => match tx.rel_property(*rel, key).map_err(ReadError::Store)? {
                        None | Some(Value::Null) => self.weight_default,
                        Some(Value::Int(v)) => v as f64,
                        Some(Value::Float(v)) => v,
                        Some(other) => return Err(ReadError::NotNumber(other.value_type().name())),
                    },
                };
                let source = base + *i;
                out.push((source, target as u32, w, group.tag));
                if group.both_ways {
                    out.push((target as u32, source, w, group.tag));
                }
            }
        }
        Ok(out)
    }
}

/// The projected node property columns, each read in parallel.
fn read_node_properties(
    ctx: &ProcedureContext<'_>,
    procedure: &str,
    ids: &[u64],
    specs: &[PropertySpec],
    control: &Control<'_>,
) -> Result<BTreeMap<String, Arc<Column>>> {
    let tx = ctx.tx;
    let mut columns = BTreeMap::new();
    for spec in specs {
        let key = ctx.storage.property_key_id(&spec.key);
        let values: Vec<Value> = control.install(|| {
            ids.par_iter()
                .map(|id| match key {
                    Some(k) => tx
                        .node_property(NodeId(*id), k)
                        .map(|v| v.unwrap_or(Value::Null)),
                    None => Ok(Value::Null),
                })
                .collect::<std::result::Result<Vec<_>, _>>()
        })?;
        columns.insert(
            spec.alias.clone(),
            Arc::new(column_of(procedure, spec, values)?),
        );
    }
    Ok(columns)
}

/// Why reading relationships stopped.
enum ReadError {
    Stopped(Interrupted),
    Store(quiver_storage::Error),
    Invalid(u64),
    NotNumber(&'static str),
}

impl ReadError {
    /// The error the projection fails with; an interruption is reported by `stopped`.
    fn into_error(
        self,
        procedure: &str,
        weight: Option<&PropertySpec>,
        stopped: &dyn Fn(Interrupted) -> quiver_engine::Error,
    ) -> quiver_engine::Error {
        match self {
            ReadError::Stopped(i) => stopped(i),
            ReadError::Store(e) => e.into(),
            ReadError::Invalid(id) => failed(
                procedure,
                format!(
                    "Failed to load a relationship because its target-node with id {id} is not part of the node query or projection. \
                     To ignore the relationship, set the configuration parameter `validateRelationships` to false."
                ),
            ),
            ReadError::NotNumber(t) => failed(
                procedure,
                format!(
                    "Unsupported type [{t}] of value for relationship property `{}`. Please use a numeric property.",
                    weight.map_or("", |w| w.alias.as_str())
                ),
            ),
        }
    }
}

fn aggregation_name(a: Aggregation) -> &'static str {
    match a {
        Aggregation::None => "DEFAULT",
        Aggregation::Single => "SINGLE",
        Aggregation::Sum => "SUM",
        Aggregation::Min => "MIN",
        Aggregation::Max => "MAX",
        Aggregation::Count => "COUNT",
    }
}

fn node_entry(label: &str, properties: &[PropertySpec]) -> Value {
    record(&[
        ("label", Value::from(label)),
        ("properties", properties_echo(properties)),
    ])
}

/// A projection's properties as GDS echoes them: each alias with its key and default value.
fn properties_echo(properties: &[PropertySpec]) -> Value {
    Value::map(
        properties
            .iter()
            .map(|p| {
                (
                    Arc::from(p.alias.as_str()),
                    record(&[
                        ("property", Value::from(p.key.as_str())),
                        ("defaultValue", p.default.clone()),
                    ]),
                )
            })
            .collect::<Map>(),
    )
}

/// `nodeProperties` / `relationshipProperties` of the configuration map.
fn config_properties(procedure: &str, config: &Config<'_>, key: &str) -> Result<Vec<PropertySpec>> {
    property_specs(procedure, config.value(key).as_ref())
}

/// A column from stored values: integers stay integers, numbers become floats (a missing
/// value takes the default, or NaN), lists of numbers are kept; anything else fails.
fn column_of(procedure: &str, spec: &PropertySpec, values: Vec<Value>) -> Result<Column> {
    let unsupported = |v: &Value| {
        failed(
            procedure,
            format!(
                "Unsupported GDS node property of type `{}` for property `{}`.",
                v.value_type().name(),
                spec.key
            ),
        )
    };
    if let Some(bad) = values.iter().find(|v| {
        !matches!(
            v,
            Value::Null | Value::Int(_) | Value::Float(_) | Value::List(_)
        )
    }) {
        return Err(unsupported(bad));
    }
    if values.iter().any(|v| matches!(v, Value::List(_))) {
        return Ok(Column::Lists(
            values
                .into_iter()
                .map(|v| if v.is_null() { spec.default.clone() } else { v })
                .collect(),
        ));
    }
    let default = &spec.default;
    if values.iter().all(|v| matches!(v, Value::Int(_)))
        || (values
            .iter()
            .all(|v| matches!(v, Value::Int(_) | Value::Null))
            && matches!(default, Value::Int(_)))
    {
        let d = if let Value::Int(i) = default {
            *i
        } else {
            i64::MIN
        };
        return Ok(Column::Int(
            values
                .into_iter()
                .map(|v| if let Value::Int(i) = v { i } else { d })
                .collect(),
        ));
    }
    let d = match default {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    };
    Ok(Column::Float(
        values
            .into_iter()
            .map(|v| match v {
                Value::Int(i) => i as f64,
                Value::Float(f) => f,
                _ => d,
            })
            .collect(),
    ))
}

/// The rows a nested read statement of the projection is pulled in.
const CYPHER_BATCH: usize = 10_000;

/// `gds.graph.project.cypher(graphName, nodeQuery, relationshipQuery, configuration)`: the
/// legacy Cypher projection. The node query returns `id` (and optionally `labels` and numeric
/// properties); the relationship query returns `source`, `target` (and optionally `type` and
/// one numeric property, which weighs the relationships). Both run read-only in the caller's
/// transaction, so they read the same snapshot.
pub(crate) fn project_cypher(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "gds.graph.project.cypher";
    let started = Instant::now();
    let name = graph_name(NAME, &args[0])?.to_owned();
    let node_query = text_arg(NAME, "nodeQuery", &args[1])?;
    let relationship_query = text_arg(NAME, "relationshipQuery", &args[2])?;
    let config = Config::new(
        NAME,
        &args[3],
        &[&[
            "parameters",
            "readConcurrency",
            "concurrency",
            "validateRelationships",
            "jobId",
            "logProgress",
            "sudo",
        ]],
    )?;
    let params: Map = match config.value("parameters") {
        None => Map::new(),
        Some(Value::Map(m)) => (*m).clone(),
        Some(other) => {
            return Err(wrong_type(NAME, "`parameters` must be a map", &other));
        }
    };
    let validate = config.bool("validateRelationships", true)?;
    let concurrency = config.concurrency("readConcurrency")?;
    if catalog.exists(ctx, &name) {
        return Err(already_exists(NAME, &name));
    }

    let CypherNodes {
        ids,
        labels,
        columns,
    } = cypher_nodes(ctx, NAME, node_query, &params)?;
    let CypherRelationships {
        builder,
        types,
        weight,
    } = cypher_relationships(ctx, NAME, relationship_query, &params, &ids, validate)?;
    let workers = ctx.workers(NAME)?;
    let check = || workers.check().map_err(|_| Interrupted);
    let control = Control::new(concurrency, &check);
    let graph = control.install(|| builder.build());

    let relationships = if types.is_empty() {
        vec!["__ALL__".to_owned()]
    } else {
        types
    };
    let mut configuration = config.echo_map();
    configuration.insert(Arc::from("nodeQuery"), Value::from(node_query));
    configuration.insert(
        Arc::from("relationshipQuery"),
        Value::from(relationship_query),
    );
    let created = now();
    let projection = Projection {
        name: name.clone(),
        graph,
        ids,
        weight_property: weight,
        labels: if labels.is_empty() {
            vec!["__ALL__".to_owned()]
        } else {
            labels
        },
        relationships: relationships
            .into_iter()
            .map(|t| RelationshipProjection {
                alias: t.clone(),
                rel_type: t,
                orientation: Orientation::Natural,
                aggregation: Aggregation::None,
            })
            .collect(),
        properties: RwLock::new(columns),
        node_projection: Value::from(node_query),
        relationship_projection: Value::from(relationship_query),
        configuration: Value::map(configuration),
        creation_time: created.clone(),
        modification_time: RwLock::new(created),
    };
    let projection = catalog.store(ctx, NAME, projection)?;
    Ok(vec![vec![
        Value::from(name.as_str()),
        Value::from(node_query),
        Value::Int(projection.graph.node_count() as i64),
        Value::from(relationship_query),
        Value::Int(projection.graph.relationship_count() as i64),
        Value::Int(started.elapsed().as_millis() as i64),
    ]])
}

/// What a Cypher projection's node query gave: ids ascending, labels, property columns.
struct CypherNodes {
    ids: Vec<u64>,
    labels: Vec<String>,
    columns: BTreeMap<String, Arc<Column>>,
}

/// Runs the node query of a Cypher projection.
fn cypher_nodes(
    ctx: &ProcedureContext<'_>,
    procedure: &str,
    node_query: &str,
    params: &Map,
) -> Result<CypherNodes> {
    // Nodes: ids, labels and numeric columns as properties.
    let mut nodes: Vec<(u64, Map)> = Vec::new();
    let mut stream = ctx.open(procedure, node_query, params)?;
    if !stream.columns().iter().any(|c| &**c == "id") {
        return Err(failed(
            procedure,
            "Invalid node query, required column(s) not found: 'id'",
        ));
    }
    loop {
        let batch = stream.next_maps(CYPHER_BATCH)?;
        if batch.is_empty() {
            break;
        }
        for row in batch {
            let Value::Map(row) = row else { continue };
            let id = entity_id(procedure, "id", row.get("id"))?;
            nodes.push((id, (*row).clone()));
        }
        ctx.tick(procedure)?;
    }
    std::mem::drop(stream);
    nodes.sort_by_key(|(id, _)| *id);
    nodes.dedup_by_key(|(id, _)| *id);
    let ids: Vec<u64> = nodes.iter().map(|(id, _)| *id).collect();
    let mut labels: Vec<String> = Vec::new();
    for (_, row) in &nodes {
        if let Some(Value::List(ls)) = row.get("labels") {
            for l in ls.iter() {
                if let Value::String(l) = l
                    && !labels.iter().any(|x| **x == **l)
                {
                    labels.push(l.to_string());
                }
            }
        }
    }
    labels.sort();
    let property_names: Vec<Arc<str>> = nodes
        .first()
        .map(|(_, row)| {
            row.keys()
                .filter(|k| !matches!(&***k, "id" | "labels"))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let mut columns = BTreeMap::new();
    for key in &property_names {
        let spec = PropertySpec {
            alias: key.to_string(),
            key: key.to_string(),
            default: Value::Null,
        };
        let values = nodes
            .iter()
            .map(|(_, row)| row.get(key).cloned().unwrap_or(Value::Null))
            .collect();
        columns.insert(
            key.to_string(),
            Arc::new(column_of(procedure, &spec, values)?),
        );
    }

    Ok(CypherNodes {
        ids,
        labels,
        columns,
    })
}

/// What a Cypher projection's relationship query gave: the adjacency's builder, the types
/// seen, the weight column.
struct CypherRelationships {
    builder: GraphBuilder,
    types: Vec<String>,
    weight: Option<String>,
}

/// Runs the relationship query of a Cypher projection over the nodes `ids`.
fn cypher_relationships(
    ctx: &ProcedureContext<'_>,
    procedure: &str,
    relationship_query: &str,
    params: &Map,
    ids: &[u64],
    validate: bool,
) -> Result<CypherRelationships> {
    // Relationships: source, target, type, and at most one numeric property.
    let mut stream = ctx.open(procedure, relationship_query, params)?;
    let rel_columns: Vec<Arc<str>> = stream.columns().to_vec();
    for required in ["source", "target"] {
        if !rel_columns.iter().any(|c| &**c == required) {
            return Err(failed(
                procedure,
                format!("Invalid relationship query, required column(s) not found: '{required}'"),
            ));
        }
    }
    let weights: Vec<&Arc<str>> = rel_columns
        .iter()
        .filter(|c| !matches!(&***c, "source" | "target" | "type"))
        .collect();
    if weights.len() > 1 {
        return Err(failed(
            procedure,
            "A projection holds at most one relationship property, the one algorithms weigh relationships with",
        ));
    }
    let weight = weights.first().map(ToString::to_string);
    let mut types: Vec<String> = Vec::new();
    let mut edges: Vec<(u32, u32, f64, u16)> = Vec::new();
    let index = |id: u64| ids.binary_search(&id).ok().map(|i| i as u32);
    loop {
        let batch = stream.next_maps(CYPHER_BATCH)?;
        if batch.is_empty() {
            break;
        }
        for row in batch {
            let Value::Map(row) = row else { continue };
            let source = entity_id(procedure, "source", row.get("source"))?;
            let target = entity_id(procedure, "target", row.get("target"))?;
            let (Some(s), Some(t)) = (index(source), index(target)) else {
                if validate {
                    let missing = if index(source).is_none() {
                        ("source", source)
                    } else {
                        ("target", target)
                    };
                    return Err(failed(
                        procedure,
                        format!(
                            "Failed to load a relationship because its {}-node with id {} is not part of the node query or projection. \
                             To ignore the relationship, set the configuration parameter `validateRelationships` to false.",
                            missing.0, missing.1
                        ),
                    ));
                }
                continue;
            };
            // Types are tagged in the order they first appear.
            let tag = match row.get("type") {
                Some(Value::String(ty)) => match types.iter().position(|x| **x == **ty) {
                    Some(at) => at,
                    None => {
                        if types.len() == usize::from(u16::MAX) {
                            return Err(failed(
                                procedure,
                                "A projection holds at most 65535 relationship types",
                            ));
                        }
                        types.push(ty.to_string());
                        types.len() - 1
                    }
                },
                _ => 0,
            } as u16;
            let w = match weight.as_deref().map(|w| row.get(w)) {
                None => 1.0,
                Some(None | Some(Value::Null)) => f64::NAN,
                Some(Some(Value::Int(i))) => *i as f64,
                Some(Some(Value::Float(f))) => *f,
                Some(Some(other)) => {
                    return Err(failed(
                        procedure,
                        format!(
                            "Unsupported type [{}] of value for relationship property `{}`. Please use a numeric property.",
                            other.value_type().name(),
                            weight.as_deref().unwrap_or("")
                        ),
                    ));
                }
            };
            edges.push((s, t, w, tag));
        }
        ctx.tick(procedure)?;
    }
    std::mem::drop(stream);
    let mut builder = GraphBuilder::new(ids.len(), weight.is_some(), false).typed();
    builder.reserve(edges.len());
    for (s, t, w, tag) in edges {
        builder.add_typed(s, t, w, tag);
    }
    Ok(CypherRelationships {
        builder,
        types,
        weight,
    })
}

/// A string argument that must be present.
pub(crate) fn text_arg<'v>(procedure: &str, argument: &str, v: &'v Value) -> Result<&'v str> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(wrong_type(
            procedure,
            &format!("`{argument}` must be a string"),
            other,
        )),
    }
}

/// A node id from a Cypher projection's row: an integer or a node.
fn entity_id(procedure: &str, column: &str, v: Option<&Value>) -> Result<u64> {
    match v {
        Some(Value::Int(i)) if *i >= 0 => Ok(*i as u64),
        Some(Value::Node(n)) => Ok(n.id),
        Some(other) => Err(wrong_type(
            procedure,
            &format!("The `{column}` column must hold node ids"),
            other,
        )),
        None => Err(failed(
            procedure,
            format!("The `{column}` column is missing"),
        )),
    }
}
