//! The graph catalog: named, immutable projections of one snapshot of the store, and the
//! `gds.graph.*` procedures that make, list, read and drop them.
//!
//! A projection is read through the caller's storage transaction, so it is exactly one MVCC
//! version of the graph. Nodes become dense indices in id order (the index of a node is its
//! rank among the projected ids), relationships a CSR adjacency built in parallel
//! ([`quiver_algorithms::GraphBuilder`]). The adjacency never changes after; `mutate` adds node
//! property columns beside it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use quiver_algorithms::{Aggregation, Control, Graph, GraphBuilder, Interrupted};
use quiver_engine::Result;
use quiver_engine::procedures::ProcedureContext;
use quiver_storage::{Direction, NodeId, RelTypeId};
use quiver_value::{DateTime, Map, TimeZone, Value};
use rayon::prelude::*;

use super::config::{Config, failed};

/// Every projection of one database, by its owner (the user who projected it) and name: as in
/// Graph Data Science, each user sees and drops their own graphs only.
#[derive(Default)]
pub(crate) struct Catalog {
    graphs: Mutex<BTreeMap<(String, String), Arc<Projection>>>,
}

/// The user a call's graphs belong to (empty when authentication is off).
fn owner(ctx: &ProcedureContext<'_>) -> String {
    ctx.who_calls().0
}

impl Catalog {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<(String, String), Arc<Projection>>> {
        self.graphs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The caller's projection called `name`; fails as GDS does when there is none.
    pub(crate) fn get(
        &self,
        ctx: &ProcedureContext<'_>,
        procedure: &str,
        name: &str,
    ) -> Result<Arc<Projection>> {
        self.lock()
            .get(&(owner(ctx), name.to_owned()))
            .cloned()
            .ok_or_else(|| {
                failed(
                    procedure,
                    format!(
                        "Graph with name `{name}` does not exist on database `{DATABASE}`. It might exist on another database."
                    ),
                )
            })
    }

    pub(crate) fn exists(&self, ctx: &ProcedureContext<'_>, name: &str) -> bool {
        self.lock().contains_key(&(owner(ctx), name.to_owned()))
    }

    /// Adds a projection built by `procedure`. Its memory is the caller's while it is built: a
    /// graph too large for the query's memory limit fails here rather than filling the server.
    fn store(
        &self,
        ctx: &ProcedureContext<'_>,
        procedure: &str,
        projection: Projection,
    ) -> Result<Arc<Projection>> {
        let bytes = projection.size_in_bytes();
        ctx.reserve(procedure, bytes, "a graph projection")?;
        ctx.release(procedure, bytes)?;
        let mut graphs = self.lock();
        let key = (owner(ctx), projection.name.clone());
        if graphs.contains_key(&key) {
            return Err(already_exists(procedure, &projection.name));
        }
        let projection = Arc::new(projection);
        graphs.insert(key, projection.clone());
        Ok(projection)
    }

    fn remove(&self, ctx: &ProcedureContext<'_>, name: &str) -> Option<Arc<Projection>> {
        self.lock().remove(&(owner(ctx), name.to_owned()))
    }

    /// The caller's projections, by name.
    fn all(&self, ctx: &ProcedureContext<'_>) -> Vec<Arc<Projection>> {
        let user = owner(ctx);
        self.lock()
            .iter()
            .filter(|((o, _), _)| *o == user)
            .map(|(_, p)| p.clone())
            .collect()
    }
}

/// The database name the catalog reports: each database has a catalog of its own.
const DATABASE: &str = "neo4j";

fn already_exists(procedure: &str, name: &str) -> quiver_engine::Error {
    failed(
        procedure,
        format!("A graph with name '{name}' already exists."),
    )
}

/// A node property column of a projection.
#[derive(Debug)]
pub(crate) enum Column {
    Int(Vec<i64>),
    Float(Vec<f64>),
    /// Lists of numbers, as stored.
    Lists(Vec<Value>),
}

impl Column {
    pub(crate) fn get(&self, i: usize) -> Value {
        match self {
            Column::Int(v) => Value::Int(v[i]),
            Column::Float(v) => Value::Float(v[i]),
            Column::Lists(v) => v[i].clone(),
        }
    }

    fn type_name(&self) -> &'static str {
        match self {
            Column::Int(_) => "Integer",
            Column::Float(_) => "Float",
            Column::Lists(_) => "List",
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Column::Int(v) => v.len() * 8,
            Column::Float(v) => v.len() * 8,
            Column::Lists(v) => v.len() * size_of::<Value>(),
        }
    }
}

/// One projected relationship type.
#[derive(Clone, Debug)]
struct RelationshipProjection {
    /// The name the projection knows it by.
    alias: String,
    /// The stored type, `*` for every type.
    rel_type: String,
    orientation: Orientation,
    aggregation: Aggregation,
}

/// How a projected relationship type follows the stored one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Orientation {
    Natural,
    Reverse,
    Undirected,
}

impl Orientation {
    fn name(self) -> &'static str {
        match self {
            Orientation::Natural => "NATURAL",
            Orientation::Reverse => "REVERSE",
            Orientation::Undirected => "UNDIRECTED",
        }
    }
}

/// A named projection in the catalog.
pub(crate) struct Projection {
    pub(crate) name: String,
    /// The adjacency, weighted with the projected relationship property when there is one.
    pub(crate) graph: Graph,
    /// Node ids by index, ascending.
    pub(crate) ids: Vec<u64>,
    /// The relationship property weighting `graph`, if one was projected.
    pub(crate) weight_property: Option<String>,
    labels: Vec<String>,
    relationships: Vec<RelationshipProjection>,
    properties: RwLock<BTreeMap<String, Arc<Column>>>,
    node_projection: Value,
    relationship_projection: Value,
    configuration: Value,
    creation_time: Value,
    modification_time: RwLock<Value>,
}

impl Projection {
    /// The index of the node with `id`, if projected.
    pub(crate) fn index_of(&self, id: u64) -> Option<u32> {
        self.ids.binary_search(&id).ok().map(|i| i as u32)
    }

    /// Whether every projected relationship type is undirected.
    pub(crate) fn undirected(&self) -> bool {
        self.graph.is_undirected()
    }

    /// The projected relationship types, as GDS's messages list them.
    pub(crate) fn type_names(&self) -> String {
        let names: Vec<&str> = self
            .relationships
            .iter()
            .map(|r| r.alias.as_str())
            .collect();
        format!("[{}]", names.join(", "))
    }

    /// The graph a call runs on, as its configuration asks: the relationship types named in
    /// `relationshipTypes` (every one for `'*'`), weighted with the projection's relationship
    /// property when `relationshipWeightProperty` names it. `nodeLabels` must name every
    /// projected label: a call runs on all of a projection's nodes.
    pub(crate) fn graph_for(&self, procedure: &str, config: &Config<'_>) -> Result<Graph> {
        let labels = config.names("nodeLabels")?;
        if labels != ["*"] && !self.labels.iter().all(|l| labels.contains(l)) {
            return Err(failed(
                procedure,
                format!(
                    "Running on some of a projection's labels is not supported: `nodeLabels` must be ['*'] or name every projected label ({:?}), got {labels:?}; project those nodes as a graph of their own",
                    self.labels
                ),
            ));
        }
        let types = config.names("relationshipTypes")?;
        let mut graph = self.graph.clone();
        if types != ["*"] {
            let unknown: Vec<&String> = types
                .iter()
                .filter(|t| !self.relationships.iter().any(|r| r.alias == **t))
                .collect();
            if !unknown.is_empty() {
                let names: Vec<String> = unknown.iter().map(|t| format!("'{t}'")).collect();
                return Err(failed(
                    procedure,
                    format!(
                        "Could not find the specified `relationshipTypes` of [{}]. Available relationship types are {}.",
                        names.join(", "),
                        self.type_names()
                    ),
                ));
            }
            let keep: Vec<bool> = self
                .relationships
                .iter()
                .map(|r| types.contains(&r.alias))
                .collect();
            if keep.iter().any(|k| !k) {
                graph = graph.with_types(&keep);
            }
        }
        match config.text("relationshipWeightProperty")? {
            None => Ok(graph.unweighted()),
            Some(p) if self.weight_property.as_deref() == Some(p.as_str()) => Ok(graph),
            Some(p) => Err(failed(
                procedure,
                format!(
                    "Relationship weight property `{p}` not found in relationship types {}. Properties existing on all relationship types: [{}]",
                    self.type_names(),
                    self.weight_property.clone().unwrap_or_default()
                ),
            )),
        }
    }

    pub(crate) fn property(&self, name: &str) -> Option<Arc<Column>> {
        self.read_properties().get(name).cloned()
    }

    fn read_properties(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<String, Arc<Column>>> {
        self.properties
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Adds a node property column (the `mutate` mode); fails if the name is taken.
    pub(crate) fn add_property(&self, procedure: &str, name: &str, column: Column) -> Result<()> {
        let mut properties = self
            .properties
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if properties.contains_key(name) {
            return Err(failed(
                procedure,
                format!("Node property `{name}` already exists in the in-memory graph."),
            ));
        }
        properties.insert(name.to_owned(), Arc::new(column));
        *self
            .modification_time
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = now();
        Ok(())
    }

    /// The bytes the projection holds: adjacency, ids and property columns.
    pub(crate) fn size_in_bytes(&self) -> usize {
        self.graph.size_in_bytes()
            + self.ids.len() * 8
            + self
                .read_properties()
                .values()
                .map(|c| c.bytes())
                .sum::<usize>()
    }

    fn schema(&self, with_orientation: bool) -> Value {
        let properties: Map = self
            .read_properties()
            .iter()
            .map(|(k, c)| (Arc::from(k.as_str()), Value::from(c.type_name())))
            .collect();
        let nodes: Map = self
            .labels
            .iter()
            .map(|l| (Arc::from(l.as_str()), Value::map(properties.clone())))
            .collect();
        let relationships: Map = self
            .relationships
            .iter()
            .map(|r| {
                let props: Map = self
                    .weight_property
                    .iter()
                    .map(|p| (Arc::from(p.as_str()), Value::from("Float")))
                    .collect();
                let value = if with_orientation {
                    Value::map(Map::from_iter([
                        (
                            Arc::from("direction"),
                            Value::from(if r.orientation == Orientation::Undirected {
                                "UNDIRECTED"
                            } else {
                                "DIRECTED"
                            }),
                        ),
                        (Arc::from("properties"), Value::map(props)),
                    ]))
                } else {
                    Value::map(props)
                };
                (Arc::from(r.alias.as_str()), value)
            })
            .collect();
        record(&[
            ("nodes", Value::map(nodes)),
            ("relationships", Value::map(relationships)),
            ("graphProperties", Value::map(Map::new())),
        ])
    }

    fn density(&self) -> f64 {
        let n = self.graph.node_count() as f64;
        if n < 2.0 {
            0.0
        } else {
            self.graph.relationship_count() as f64 / (n * (n - 1.0))
        }
    }

    fn degree_distribution(&self) -> Value {
        let mut degrees: Vec<f64> = (0..self.graph.node_count() as u32)
            .map(|v| self.graph.out_degree(v) as f64)
            .collect();
        super::distribution(&mut degrees)
    }

    /// The columns `gds.graph.list` and `gds.graph.drop` share.
    fn info(&self, columns: &[&str]) -> Vec<Value> {
        let size = self.size_in_bytes();
        columns
            .iter()
            .map(|c| match *c {
                "graphName" => Value::from(self.name.as_str()),
                "database" => Value::from(DATABASE),
                "databaseLocation" => Value::from("local"),
                "configuration" => self.configuration.clone(),
                "nodeCount" => Value::Int(self.graph.node_count() as i64),
                "relationshipCount" => Value::Int(self.graph.relationship_count() as i64),
                "schema" => self.schema(false),
                "schemaWithOrientation" => self.schema(true),
                "degreeDistribution" => self.degree_distribution(),
                "density" => Value::Float(self.density()),
                "creationTime" => self.creation_time.clone(),
                "modificationTime" => self
                    .modification_time
                    .read()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clone(),
                "sizeInBytes" => Value::Int(size as i64),
                "memoryUsage" => Value::from(human_bytes(size)),
                _ => Value::Null,
            })
            .collect()
    }
}

/// `gds.graph.list`'s columns, in order.
pub(crate) const LIST_COLUMNS: &[&str] = &[
    "graphName",
    "database",
    "databaseLocation",
    "configuration",
    "nodeCount",
    "relationshipCount",
    "schema",
    "schemaWithOrientation",
    "degreeDistribution",
    "density",
    "creationTime",
    "modificationTime",
    "sizeInBytes",
    "memoryUsage",
];

/// `gds.graph.drop`'s columns, in order.
pub(crate) const DROP_COLUMNS: &[&str] = &[
    "graphName",
    "database",
    "databaseLocation",
    "memoryUsage",
    "sizeInBytes",
    "nodeCount",
    "relationshipCount",
    "configuration",
    "density",
    "creationTime",
    "modificationTime",
    "schema",
    "schemaWithOrientation",
];

fn record(entries: &[(&str, Value)]) -> Value {
    Value::map(
        entries
            .iter()
            .map(|(k, v)| (Arc::from(*k), v.clone()))
            .collect(),
    )
}

fn now() -> Value {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Value::DateTime(Box::new(DateTime {
        seconds: since.as_secs() as i64,
        nanos: since.subsec_nanos(),
        offset_seconds: 0,
        zone: TimeZone::Offset(0),
    }))
}

/// Bytes as GDS shows them: `"1234 Bytes"`, `"12 KiB"`, `"3 MiB"`.
fn human_bytes(bytes: usize) -> String {
    const UNITS: [&str; 5] = ["Bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} Bytes")
    } else {
        format!("{value:.0} {}", UNITS[unit])
    }
}

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
                other => Err(failed(
                    procedure,
                    format!(
                        "A property must be given by its name, got {}",
                        other.value_type().name()
                    ),
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
                            return Err(failed(
                                procedure,
                                format!(
                                    "The `property` of `{alias}` must be a string, got {}",
                                    other.value_type().name()
                                ),
                            ));
                        }
                    };
                    Ok(spec(
                        alias,
                        &key,
                        p.get("defaultValue").cloned().unwrap_or(Value::Null),
                    ))
                }
                other => Err(failed(
                    procedure,
                    format!(
                        "Property `{alias}` must be given by a name or a map, got {}",
                        other.value_type().name()
                    ),
                )),
            })
            .collect(),
        Some(other) => Err(failed(
            procedure,
            format!(
                "Properties must be a string, list or map, got {}",
                other.value_type().name()
            ),
        )),
    }
}

/// The labels a node projection names (`None` for every node) and its properties.
fn node_projection(
    procedure: &str,
    value: &Value,
) -> Result<(Option<Vec<String>>, Vec<PropertySpec>)> {
    let invalid = |what: &str| failed(procedure, format!("Invalid node projection: {what}"));
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
                    other => {
                        return Err(invalid(&format!(
                            "a label must be a string, got {}",
                            other.value_type().name()
                        )));
                    }
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
                        match e.get("label") {
                            Some(Value::String(s)) => s.to_string(),
                            None | Some(Value::Null) => alias.to_string(),
                            Some(other) => {
                                return Err(invalid(&format!(
                                    "the label of `{alias}` must be a string, got {}",
                                    other.value_type().name()
                                )));
                            }
                        }
                    }
                    other => {
                        return Err(invalid(&format!(
                            "`{alias}` must be a label or a map, got {}",
                            other.value_type().name()
                        )));
                    }
                };
                all |= !add(&label, &mut labels);
            }
            if all {
                return Ok((None, properties));
            }
        }
        other => {
            return Err(invalid(&format!(
                "expected a string, list or map, got {}",
                other.value_type().name()
            )));
        }
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
        Some(other) => Err(failed(
            procedure,
            format!(
                "The orientation must be a string, got {}",
                other.value_type().name()
            ),
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
        Some(other) => Err(failed(
            procedure,
            format!(
                "The aggregation must be a string, got {}",
                other.value_type().name()
            ),
        )),
    }
}

/// The relationship types a relationship projection names and their properties.
fn relationship_projection(
    procedure: &str,
    value: &Value,
) -> Result<(Vec<RelationshipProjection>, Vec<PropertySpec>)> {
    let invalid = |what: &str| {
        failed(
            procedure,
            format!("Invalid relationship projection: {what}"),
        )
    };
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
                    other => {
                        return Err(invalid(&format!(
                            "a type must be a string, got {}",
                            other.value_type().name()
                        )));
                    }
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
                        let rel_type = match e.get("type") {
                            Some(Value::String(s)) => s.to_string(),
                            None | Some(Value::Null) => alias.to_string(),
                            Some(other) => {
                                return Err(invalid(&format!(
                                    "the type of `{alias}` must be a string, got {}",
                                    other.value_type().name()
                                )));
                            }
                        };
                        out.push(RelationshipProjection {
                            alias: alias.to_string(),
                            rel_type,
                            orientation: orientation_of(procedure, e.get("orientation"))?,
                            aggregation: aggregation_of(procedure, e.get("aggregation"))?,
                        });
                    }
                    other => {
                        return Err(invalid(&format!(
                            "`{alias}` must be a type or a map, got {}",
                            other.value_type().name()
                        )));
                    }
                }
            }
        }
        other => {
            return Err(invalid(&format!(
                "expected a string, list or map, got {}",
                other.value_type().name()
            )));
        }
    }
    if out.is_empty() {
        return Err(invalid("it names no relationship type"));
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
                let props: Map = rel_properties
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
                    .collect();
                (
                    Arc::from(r.alias.as_str()),
                    record(&[
                        ("type", Value::from(r.rel_type.as_str())),
                        ("orientation", Value::from(r.orientation.name())),
                        ("aggregation", Value::from(aggregation_name(r.aggregation))),
                        ("indexInverse", Value::Bool(false)),
                        ("properties", Value::map(props)),
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
                return Err(failed(
                    procedure,
                    format!(
                        "The default value of a relationship property must be a number, got {}",
                        other.value_type().name()
                    ),
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
    let props: Map = properties
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
        .collect();
    record(&[
        ("label", Value::from(label)),
        ("properties", Value::map(props)),
    ])
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

/// `gds.graph.list(graphName = '__NO_VALUE')`.
pub(crate) fn list(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
) -> Vec<Vec<Value>> {
    let only = match &args[0] {
        Value::String(s) if &**s != "__NO_VALUE" => Some(s.to_string()),
        _ => None,
    };
    catalog
        .all(ctx)
        .into_iter()
        .filter(|p| only.as_ref().is_none_or(|o| *o == p.name))
        .map(|p| p.info(LIST_COLUMNS))
        .collect()
}

/// `gds.graph.exists(graphName)`.
pub(crate) fn exists(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
) -> Result<Vec<Vec<Value>>> {
    let name = graph_name("gds.graph.exists", &args[0])?;
    Ok(vec![vec![
        Value::from(name),
        Value::Bool(catalog.exists(ctx, name)),
    ]])
}

/// `gds.graph.drop(graphName, failIfMissing = true, dbName = '', username = '')`: one name or
/// a list; every name is checked before any is dropped.
pub(crate) fn drop(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "gds.graph.drop";
    let names: Vec<String> = match &args[0] {
        Value::List(items) => items
            .iter()
            .map(|v| graph_name(NAME, v).map(str::to_owned))
            .collect::<Result<_>>()?,
        v => vec![graph_name(NAME, v)?.to_owned()],
    };
    let fail_if_missing = match &args[1] {
        Value::Bool(b) => *b,
        _ => true,
    };
    if fail_if_missing {
        for n in &names {
            catalog.get(ctx, NAME, n)?;
        }
    }
    Ok(names
        .iter()
        .filter_map(|n| catalog.remove(ctx, n))
        .map(|p| p.info(DROP_COLUMNS))
        .collect())
}

pub(crate) fn graph_name<'v>(procedure: &str, v: &'v Value) -> Result<&'v str> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Ok(s),
        Value::String(_) | Value::Null => {
            Err(failed(procedure, "`graphName` can not be null or blank"))
        }
        other => Err(failed(
            procedure,
            format!(
                "`graphName` must be a string, got {}",
                other.value_type().name()
            ),
        )),
    }
}

/// Property names given as one string or a list.
fn property_names(procedure: &str, v: &Value) -> Result<Vec<String>> {
    match v {
        Value::String(s) => Ok(vec![s.to_string()]),
        Value::List(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(s.to_string()),
                other => Err(failed(
                    procedure,
                    format!(
                        "A node property must be given by its name, got {}",
                        other.value_type().name()
                    ),
                )),
            })
            .collect(),
        other => Err(failed(
            procedure,
            format!(
                "Node properties must be a string or a list of strings, got {}",
                other.value_type().name()
            ),
        )),
    }
}

/// `gds.graph.nodeProperty.stream` (one column: `nodeId, propertyValue`) and
/// `gds.graph.nodeProperties.stream` (`nodeId, nodeProperty, propertyValue`).
pub(crate) fn stream_properties(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    procedure: &str,
    args: &[Value],
    named: bool,
) -> Result<Vec<Vec<Value>>> {
    let graph = catalog.get(ctx, procedure, graph_name(procedure, &args[0])?)?;
    let names = property_names(procedure, &args[1])?;
    // The labels to stream for: every node's, checked as a run's `nodeLabels` are.
    let mut labels = Map::new();
    labels.insert(Arc::from("nodeLabels"), args[2].clone());
    let config = Config::new(procedure, &Value::map(labels), &[&["nodeLabels"]])?;
    let _ = graph.graph_for(procedure, &config)?;
    let _ = Config::new(
        procedure,
        &args[3],
        &[&["concurrency", "jobId", "logProgress", "sudo"]],
    )?;
    let mut columns = Vec::new();
    for name in &names {
        let column = graph
            .property(name)
            .ok_or_else(|| missing_property(procedure, &graph, name))?;
        columns.push((name, column));
    }
    let mut rows = Vec::with_capacity(graph.ids.len() * columns.len());
    for (i, id) in graph.ids.iter().enumerate() {
        for (name, column) in &columns {
            let mut row = vec![Value::Int(*id as i64)];
            if named {
                row.push(Value::from(name.as_str()));
            }
            row.push(column.get(i));
            rows.push(row);
        }
    }
    Ok(rows)
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
            return Err(failed(
                NAME,
                format!(
                    "`parameters` must be a map, got {}",
                    other.value_type().name()
                ),
            ));
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
        other => Err(failed(
            procedure,
            format!(
                "`{argument}` must be a string, got {}",
                other.value_type().name()
            ),
        )),
    }
}

/// A node id from a Cypher projection's row: an integer or a node.
fn entity_id(procedure: &str, column: &str, v: Option<&Value>) -> Result<u64> {
    match v {
        Some(Value::Int(i)) if *i >= 0 => Ok(*i as u64),
        Some(Value::Node(n)) => Ok(n.id),
        Some(other) => Err(failed(
            procedure,
            format!(
                "The `{column}` column must hold node ids, got {}",
                other.value_type().name()
            ),
        )),
        None => Err(failed(
            procedure,
            format!("The `{column}` column is missing"),
        )),
    }
}

/// `gds.graph.nodeProperties.write(graphName, nodeProperties, nodeLabels, configuration)`:
/// writes property columns of the projection (projected or added by `mutate`) to the store.
pub(crate) fn write_properties(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "gds.graph.nodeProperties.write";
    let started = Instant::now();
    let graph = catalog.get(ctx, NAME, graph_name(NAME, &args[0])?)?;
    let names = property_names(NAME, &args[1])?;
    let config = Config::new(
        NAME,
        &args[3],
        &[&[
            "writeConcurrency",
            "concurrency",
            "jobId",
            "logProgress",
            "sudo",
        ]],
    )?;
    let concurrency = config.concurrency("writeConcurrency")?;
    let columns = names
        .iter()
        .map(|name| {
            graph
                .property(name)
                .ok_or_else(|| missing_property(NAME, &graph, name))
        })
        .collect::<Result<Vec<_>>>()?;
    for (name, column) in names.iter().zip(&columns) {
        super::write::node_property(ctx, NAME, concurrency, &graph.ids, name, &|i| column.get(i))?;
    }
    Ok(vec![vec![
        Value::Int(started.elapsed().as_millis() as i64),
        Value::from(graph.name.as_str()),
        Value::from(
            names
                .iter()
                .map(|n| Value::from(n.as_str()))
                .collect::<Vec<_>>(),
        ),
        Value::Int((graph.ids.len() * names.len()) as i64),
    ]])
}

/// `gds.graph.nodeProperties.drop(graphName, nodeProperties, configuration)`: removes
/// property columns from the projection.
pub(crate) fn drop_properties(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "gds.graph.nodeProperties.drop";
    let graph = catalog.get(ctx, NAME, graph_name(NAME, &args[0])?)?;
    let names = property_names(NAME, &args[1])?;
    let config = Config::new(NAME, &args[2], &[&["failIfMissing", "concurrency", "sudo"]])?;
    let fail_if_missing = config.bool("failIfMissing", true)?;
    let mut properties = graph
        .properties
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if fail_if_missing && let Some(missing) = names.iter().find(|n| !properties.contains_key(*n)) {
        let known: Vec<String> = properties.keys().cloned().collect();
        return Err(failed(
            NAME,
            format!(
                "Could not find property key(s) ['{missing}']. Defined keys: [{}].",
                known.join(", ")
            ),
        ));
    }
    let mut removed = 0usize;
    for name in &names {
        if properties.remove(name).is_some() {
            removed += graph.ids.len();
        }
    }
    std::mem::drop(properties);
    *graph
        .modification_time
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = now();
    Ok(vec![vec![
        Value::from(graph.name.as_str()),
        Value::from(
            names
                .iter()
                .map(|n| Value::from(n.as_str()))
                .collect::<Vec<_>>(),
        ),
        Value::Int(removed as i64),
    ]])
}

/// The failure for a node property the projection does not hold.
fn missing_property(procedure: &str, graph: &Projection, name: &str) -> quiver_engine::Error {
    let known: Vec<String> = graph.read_properties().keys().cloned().collect();
    failed(
        procedure,
        format!(
            "Expecting at least one node projection to contain property key(s) ['{name}']. Available properties: [{}]",
            known.join(", ")
        ),
    )
}

/// `gds.graph.relationships.stream(graphName, relationshipTypes, configuration)`: every
/// projected relationship of the types named (`'*'` for all), as stored in the projection (an
/// undirected relationship from both ends).
pub(crate) fn stream_relationships(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "gds.graph.relationships.stream";
    let projection = catalog.get(ctx, NAME, graph_name(NAME, &args[0])?)?;
    let mut settings = match &args[2] {
        Value::Map(m) => (**m).clone(),
        _ => Map::new(),
    };
    settings.insert(Arc::from("relationshipTypes"), args[1].clone());
    let config = Config::new(
        NAME,
        &Value::map(settings),
        &[&[
            "relationshipTypes",
            "concurrency",
            "jobId",
            "logProgress",
            "sudo",
        ]],
    )?;
    let graph = projection.graph_for(NAME, &config)?;
    let names: Vec<Value> = projection
        .relationships
        .iter()
        .map(|r| Value::from(r.alias.as_str()))
        .collect();
    let ids = &projection.ids;
    let mut rows = Vec::with_capacity(graph.relationship_count());
    for source in 0..graph.node_count() as u32 {
        if source.is_multiple_of(4096) {
            ctx.tick(NAME)?;
        }
        let types = graph.out_types(source);
        for (i, target) in graph.out(source).iter().enumerate() {
            let ty = types.map_or(0, |t| t[i] as usize);
            rows.push(vec![
                Value::Int(ids[source as usize] as i64),
                Value::Int(ids[*target as usize] as i64),
                names.get(ty).cloned().unwrap_or(Value::Null),
            ]);
        }
    }
    Ok(rows)
}
