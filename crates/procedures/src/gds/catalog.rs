//! The graph catalog: named, immutable projections of one snapshot of the store (made by
//! [`super::project`]), and the `gds.graph.*` procedures that list, read and drop them.
//!
//! In a projection nodes are dense indices in id order (the index of a node is its rank among
//! the projected ids) and relationships a CSR adjacency, each relationship tagged with its
//! projected type. The adjacency never changes after; `mutate` adds node property columns
//! beside it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use quiver_algorithms::{Aggregation, Graph};
use quiver_engine::Result;
use quiver_engine::procedures::ProcedureContext;
use quiver_value::{DateTime, Map, TimeZone, Value};

use super::config::{Config, failed, wrong_type};

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
    pub(super) fn store(
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

pub(super) fn already_exists(procedure: &str, name: &str) -> quiver_engine::Error {
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
pub(super) struct RelationshipProjection {
    /// The name the projection knows it by.
    pub(super) alias: String,
    /// The stored type, `*` for every type.
    pub(super) rel_type: String,
    pub(super) orientation: Orientation,
    pub(super) aggregation: Aggregation,
}

/// How a projected relationship type follows the stored one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Orientation {
    Natural,
    Reverse,
    Undirected,
}

impl Orientation {
    pub(super) fn name(self) -> &'static str {
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
    pub(super) labels: Vec<String>,
    pub(super) relationships: Vec<RelationshipProjection>,
    pub(super) properties: RwLock<BTreeMap<String, Arc<Column>>>,
    pub(super) node_projection: Value,
    pub(super) relationship_projection: Value,
    pub(super) configuration: Value,
    pub(super) creation_time: Value,
    pub(super) modification_time: RwLock<Value>,
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

pub(super) fn record(entries: &[(&str, Value)]) -> Value {
    Value::map(
        entries
            .iter()
            .map(|(k, v)| (Arc::from(*k), v.clone()))
            .collect(),
    )
}

pub(super) fn now() -> Value {
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
        other => Err(wrong_type(procedure, "`graphName` must be a string", other)),
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
                other => Err(wrong_type(
                    procedure,
                    "A node property must be given by its name",
                    other,
                )),
            })
            .collect(),
        other => Err(wrong_type(
            procedure,
            "Node properties must be a string or a list of strings",
            other,
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
