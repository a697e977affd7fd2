//! APOC's metadata procedures, answered natively with APOC's names and output columns:
//! `apoc.meta.data`, `apoc.meta.schema`, `apoc.meta.stats`, `apoc.schema.nodes` and
//! `apoc.schema.relationships`, `apoc.schema.properties.distinct`. LangChain's `Neo4jGraph` builds its schema text from
//! `apoc.meta.data` (node properties from the rows whose `elementType` is `node` and whose
//! `type` is not `RELATIONSHIP`, relationship properties from those whose `elementType` is
//! `relationship`, and the patterns from the `RELATIONSHIP` rows' `label`, `property` and
//! `other`), and its index listing from `apoc.schema.nodes`.
//!
//! Shapes come from [`Sample`]: `sample` (nodes read per label, default 1000; -1 for all) and
//! `maxRels` (outgoing relationships read per sampled node, default 100) in the config map
//! bound it as APOC's do. Counts are the store's, exact. `left` and `right` are 0 and `sample`
//! is null on every row: Quiver does not compute them.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use quiver_storage::{IndexState, NodeId};
use quiver_value::{Map, Value};

use super::sample::{NODES_PER_LABEL_DEFAULT, PropStats, RELS_PER_NODE_DEFAULT, Sample};
use super::show::{functions, procedure_rows};
use super::values::{call_failed, field, map, strings};
use crate::error::Result;
use crate::procedures::native::{Native, list_of};
use crate::procedures::nested::Access;
use crate::procedures::{FieldType, ProcedureContext};

pub(super) fn procedures() -> Vec<Native> {
    let mut out = vec![help_procedure()];
    out.extend(meta_and_schema_procedures());
    out
}

/// `apoc.help`, in APOC 5's columns.
fn help_procedure() -> Native {
    Native::new(
        "apoc.help",
        "Returns descriptions of the available APOC procedures and functions: with a keyword, \
         those whose name contains it, or (a keyword ending in +) whose description does.",
        help,
    )
    .input("proc", FieldType::String)
    .output("type", FieldType::String)
    .output("name", FieldType::String)
    .output("text", FieldType::String)
    .output("signature", FieldType::String)
    .output("roles", list_of(FieldType::String))
    .output("writes", FieldType::Boolean)
    .output("core", FieldType::Boolean)
    .output("isDeprecated", FieldType::Boolean)
}

fn meta_and_schema_procedures() -> Vec<Native> {
    let config = || Value::map(Map::new());
    vec![
        Native::new(
            "apoc.meta.data",
            "Examines a sample of the graph and returns a table of its labels, relationship types and properties.",
            meta_data,
        )
        .input_or("config", FieldType::Map, config())
        .output("label", FieldType::String)
        .output("property", FieldType::String)
        .output("count", FieldType::Integer)
        .output("unique", FieldType::Boolean)
        .output("index", FieldType::Boolean)
        .output("existence", FieldType::Boolean)
        .output("type", FieldType::String)
        .output("array", FieldType::Boolean)
        .output("sample", list_of(FieldType::Any))
        .output("left", FieldType::Integer)
        .output("right", FieldType::Integer)
        .output("other", list_of(FieldType::String))
        .output("otherLabels", list_of(FieldType::String))
        .output("elementType", FieldType::String),
        Native::new(
            "apoc.meta.schema",
            "Examines a sample of the graph and returns its schema as a map of labels and relationship types.",
            meta_schema,
        )
        .input_or("config", FieldType::Map, config())
        .output("value", FieldType::Map),
        Native::new(
            "apoc.meta.graph",
            "Examines a sample of the graph and returns it as virtual nodes (one per label, with its count) and virtual relationships (one per pattern, with its sampled count).",
            meta_graph,
        )
        .input_or("config", FieldType::Map, config())
        .output("nodes", list_of(FieldType::Node))
        .output("relationships", list_of(FieldType::Relationship)),
        Native::new(
            "apoc.meta.stats",
            "Returns the counts of labels, relationship types, property keys, nodes and relationships.",
            meta_stats,
        )
        .output("labelCount", FieldType::Integer)
        .output("relTypeCount", FieldType::Integer)
        .output("propertyKeyCount", FieldType::Integer)
        .output("nodeCount", FieldType::Integer)
        .output("relCount", FieldType::Integer)
        .output("labels", FieldType::Map)
        .output("relTypes", FieldType::Map)
        .output("relTypesCount", FieldType::Map)
        .output("stats", FieldType::Map),
        Native::new(
            "apoc.schema.nodes",
            "Lists the indexes and constraints on nodes.",
            schema_nodes,
        )
        .input_or("config", FieldType::Map, config())
        .output("name", FieldType::String)
        .output("label", FieldType::Any)
        .output("properties", list_of(FieldType::String))
        .output("status", FieldType::String)
        .output("type", FieldType::String)
        .output("failure", FieldType::String)
        .output("populationProgress", FieldType::Float)
        .output("size", FieldType::Integer)
        .output("valuesSelectivity", FieldType::Float)
        .output("userDescription", FieldType::String),
        Native::new(
            "apoc.schema.relationships",
            "Lists the indexes and constraints on relationships (Quiver has none).",
            schema_relationships,
        )
        .input_or("config", FieldType::Map, config())
        .output("name", FieldType::String)
        .output("type", FieldType::String)
        .output("properties", list_of(FieldType::String))
        .output("status", FieldType::String),
        Native::new(
            "apoc.schema.properties.distinct",
            "Returns the distinct values of a property over the nodes of a label.",
            schema_properties_distinct,
        )
        .input("label", FieldType::String)
        .input("key", FieldType::String)
        .output("value", list_of(FieldType::Any)),
    ]
}

/// The options of `apoc.meta.*` that Quiver honours; others are ignored, as APOC ignores
/// what it does not know.
struct Config {
    nodes_per_label: usize,
    rels_per_node: usize,
    include_labels: Option<BTreeSet<String>>,
    exclude_labels: BTreeSet<String>,
    include_rels: Option<BTreeSet<String>>,
    exclude_rels: BTreeSet<String>,
}

impl Config {
    fn read(procedure: &str, arg: Option<&Value>) -> Result<Config> {
        let map = match arg {
            Some(Value::Map(m)) => (**m).clone(),
            Some(Value::Null) | None => Map::new(),
            Some(other) => {
                return Err(call_failed(format!(
                    "{procedure} needs config, a MAP; got {}",
                    quiver_value::to_string_cypher(other)
                )));
            }
        };
        let bound = |key: &str, default: usize| -> Result<usize> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(default),
                Some(Value::Int(n)) if *n < 0 => Ok(usize::MAX),
                Some(Value::Int(n)) => Ok(usize::try_from(*n).unwrap_or(usize::MAX)),
                Some(other) => Err(call_failed(format!(
                    "{procedure}: config.{key} must be an INTEGER, got {}",
                    quiver_value::to_string_cypher(other)
                ))),
            }
        };
        let names = |key: &str| -> Result<Option<BTreeSet<String>>> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::List(items)) => {
                    let mut out = BTreeSet::new();
                    for item in items.iter() {
                        let Value::String(s) = item else {
                            return Err(call_failed(format!(
                                "{procedure}: config.{key} must be a LIST<STRING>"
                            )));
                        };
                        out.insert(s.to_string());
                    }
                    // An empty list means no restriction, as in APOC.
                    Ok((!out.is_empty()).then_some(out))
                }
                Some(_) => Err(call_failed(format!(
                    "{procedure}: config.{key} must be a LIST<STRING>"
                ))),
            }
        };
        Ok(Config {
            nodes_per_label: bound("sample", NODES_PER_LABEL_DEFAULT)?,
            rels_per_node: bound("maxRels", RELS_PER_NODE_DEFAULT)?,
            include_labels: names("includeLabels")?,
            exclude_labels: names("excludeLabels")?.unwrap_or_default(),
            include_rels: names("includeRels")?,
            exclude_rels: names("excludeRels")?.unwrap_or_default(),
        })
    }

    fn label(&self, name: &str) -> bool {
        self.include_labels
            .as_ref()
            .is_none_or(|s| s.contains(name))
            && !self.exclude_labels.contains(name)
    }

    fn rel(&self, name: &str) -> bool {
        self.include_rels.as_ref().is_none_or(|s| s.contains(name))
            && !self.exclude_rels.contains(name)
    }

    fn sample(&self, ctx: &ProcedureContext<'_>) -> Result<Sample> {
        Sample::take(ctx.tx, self.nodes_per_label, self.rels_per_node)
    }
}

/// (label, key) pairs with an index, and those with a uniqueness constraint.
fn schema_keys(
    ctx: &ProcedureContext<'_>,
) -> (BTreeSet<(String, String)>, BTreeSet<(String, String)>) {
    let indexed = ctx
        .storage
        .indexes()
        .into_iter()
        .filter(|ix| !ix.relationship && ix.keys.len() == 1)
        .map(|ix| (ix.label.to_string(), ix.key.to_string()))
        .collect();
    let unique = ctx
        .storage
        .constraints()
        .into_iter()
        .filter(|c| !c.relationship && c.keys.len() == 1)
        .map(|c| (c.label.to_string(), c.key.to_string()))
        .collect();
    (indexed, unique)
}

fn names(set: &BTreeSet<Arc<str>>) -> Value {
    strings(set.iter())
}

fn meta_data(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let config = Config::read("apoc.meta.data", args.first())?;
    let sample = config.sample(ctx)?;
    let (indexed, unique) = schema_keys(ctx);
    let empty = Value::from(Vec::<Value>::new());
    let mut out = Vec::new();
    for label in sample.labels.iter().filter(|l| config.label(&l.name)) {
        let other_labels = names(&label.other_labels);
        for (key, stats) in &label.properties {
            let pair = (label.name.to_string(), key.to_string());
            let ty = stats.main_type();
            out.push(
                MetaRow {
                    label: &label.name,
                    property: key,
                    count: label.count,
                    unique: unique.contains(&pair),
                    index: indexed.contains(&pair),
                    ty: ty.apoc_name(),
                    array: ty.is_array(),
                    other: empty.clone(),
                    other_labels: other_labels.clone(),
                    element_type: "node",
                }
                .values(),
            );
        }
        for (ty, n) in label.outgoing.iter().filter(|(t, _)| config.rel(t)) {
            out.push(
                MetaRow {
                    label: &label.name,
                    property: ty,
                    count: n.count,
                    unique: false,
                    index: false,
                    ty: "RELATIONSHIP",
                    array: true,
                    other: names(&n.labels),
                    other_labels: empty.clone(),
                    element_type: "node",
                }
                .values(),
            );
        }
    }
    for t in sample.types.iter().filter(|t| config.rel(&t.name)) {
        for (key, stats) in &t.properties {
            let ty = stats.main_type();
            out.push(
                MetaRow {
                    label: &t.name,
                    property: key,
                    count: t.count,
                    unique: false,
                    index: false,
                    ty: ty.apoc_name(),
                    array: ty.is_array(),
                    other: empty.clone(),
                    other_labels: empty.clone(),
                    element_type: "relationship",
                }
                .values(),
            );
        }
    }
    Ok(out)
}

/// What one row of `apoc.meta.data` says; `existence` is false, `sample` null and `left` and
/// `right` 0 on every row.
struct MetaRow<'a> {
    label: &'a Arc<str>,
    property: &'a Arc<str>,
    count: u64,
    unique: bool,
    index: bool,
    ty: &'static str,
    array: bool,
    other: Value,
    other_labels: Value,
    element_type: &'static str,
}

impl MetaRow<'_> {
    /// The row in `apoc.meta.data`'s columns.
    fn values(self) -> Vec<Value> {
        vec![
            Value::String(self.label.clone()),
            Value::String(self.property.clone()),
            count(self.count),
            Value::Bool(self.unique),
            Value::Bool(self.index),
            Value::Bool(false),
            Value::from(self.ty),
            Value::Bool(self.array),
            Value::Null,
            Value::Int(0),
            Value::Int(0),
            self.other,
            self.other_labels,
            Value::from(self.element_type),
        ]
    }
}

/// `{key: {type, array, existence, indexed, unique}}` for `apoc.meta.schema`.
fn property_map(
    properties: &BTreeMap<Arc<str>, PropStats>,
    label: Option<&str>,
    indexed: &BTreeSet<(String, String)>,
    unique: &BTreeSet<(String, String)>,
) -> Value {
    map(properties.iter().map(|(key, stats)| {
        let ty = stats.main_type();
        let pair = (label.unwrap_or_default().to_owned(), key.to_string());
        let on_label = label.is_some();
        (
            key.to_string(),
            map([
                ("type".to_owned(), Value::from(ty.apoc_name())),
                ("array".to_owned(), Value::Bool(ty.is_array())),
                ("existence".to_owned(), Value::Bool(false)),
                (
                    "indexed".to_owned(),
                    Value::Bool(on_label && indexed.contains(&pair)),
                ),
                (
                    "unique".to_owned(),
                    Value::Bool(on_label && unique.contains(&pair)),
                ),
            ]),
        )
    }))
}

fn meta_schema(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let config = Config::read("apoc.meta.schema", args.first())?;
    let sample = config.sample(ctx)?;
    let (indexed, unique) = schema_keys(ctx);
    let types: BTreeMap<&str, &super::sample::TypeSample> =
        sample.types.iter().map(|t| (&*t.name, t)).collect();
    let mut schema = Vec::new();
    for label in sample.labels.iter().filter(|l| config.label(&l.name)) {
        let mut rels = Vec::new();
        for (direction, by_type) in [("out", &label.outgoing), ("in", &label.incoming)] {
            for (ty, n) in by_type.iter().filter(|(t, _)| config.rel(t)) {
                let properties = types.get(&**ty).map_or_else(
                    || Value::map(Map::new()),
                    |t| property_map(&t.properties, None, &indexed, &unique),
                );
                rels.push((
                    ty.to_string(),
                    map([
                        ("direction".to_owned(), Value::from(direction)),
                        ("count".to_owned(), count(n.count)),
                        ("labels".to_owned(), names(&n.labels)),
                        ("properties".to_owned(), properties),
                    ]),
                ));
            }
        }
        schema.push((
            label.name.to_string(),
            map([
                ("type".to_owned(), Value::from("node")),
                ("count".to_owned(), count(label.count)),
                ("labels".to_owned(), names(&label.other_labels)),
                (
                    "properties".to_owned(),
                    property_map(&label.properties, Some(&label.name), &indexed, &unique),
                ),
                ("relationships".to_owned(), map(rels)),
            ]),
        ));
    }
    for t in sample.types.iter().filter(|t| config.rel(&t.name)) {
        schema.push((
            t.name.to_string(),
            map([
                ("type".to_owned(), Value::from("relationship")),
                ("count".to_owned(), count(t.count)),
                (
                    "properties".to_owned(),
                    property_map(&t.properties, None, &indexed, &unique),
                ),
            ]),
        ));
    }
    Ok(vec![vec![map(schema)]])
}

/// Virtual nodes carry `name` and the label's exact `count`; virtual relationships `type` and
/// the number of sampled relationships of the pattern.
fn meta_graph(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let config = Config::read("apoc.meta.graph", args.first())?;
    let mut sample = config.sample(ctx)?;
    sample.labels.retain(|l| config.label(&l.name));
    sample.types.retain(|t| config.rel(&t.name));
    let (nodes, rels) = super::schema::virtual_graph(
        &sample,
        |label| {
            super::values::entries([
                ("name".to_owned(), Value::String(label.name.clone())),
                ("count".to_owned(), count(label.count)),
            ])
        },
        |t, n| {
            super::values::entries([
                ("type".to_owned(), Value::String(t.name.clone())),
                ("count".to_owned(), count(n)),
            ])
        },
    );
    Ok(vec![vec![Value::from(nodes), Value::from(rels)]])
}

fn count(n: u64) -> Value {
    Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

/// Exact, from the store's counts. `relTypes` holds the `()-[:T]->()` entries only: the
/// counts per (label, type) APOC adds would be estimates here.
fn meta_stats(ctx: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
    let mut labels = Vec::new();
    for (id, name) in ctx.storage.all_labels() {
        let n = ctx.tx.count_label(id)?;
        if n > 0 {
            labels.push((name.to_string(), count(n)));
        }
    }
    let mut rel_types = Vec::new();
    let mut rel_types_count = Vec::new();
    for (id, name) in ctx.storage.all_rel_types() {
        let n = ctx.tx.count_rels_of_type(id)?;
        if n > 0 {
            rel_types.push((format!("()-[:{name}]->()"), count(n)));
            rel_types_count.push((name.to_string(), count(n)));
        }
    }
    let label_count = count(labels.len() as u64);
    let rel_type_count = count(rel_types_count.len() as u64);
    let property_key_count = count(ctx.storage.all_property_keys().len() as u64);
    let node_count = count(ctx.tx.count_nodes()?);
    let rel_count = count(ctx.tx.count_rels()?);
    let labels = map(labels);
    let rel_types = map(rel_types);
    let stats = map([
        ("labelCount".to_owned(), label_count.clone()),
        ("relTypeCount".to_owned(), rel_type_count.clone()),
        ("propertyKeyCount".to_owned(), property_key_count.clone()),
        ("nodeCount".to_owned(), node_count.clone()),
        ("relCount".to_owned(), rel_count.clone()),
        ("labels".to_owned(), labels.clone()),
        ("relTypes".to_owned(), rel_types.clone()),
    ]);
    Ok(vec![vec![
        label_count,
        rel_type_count,
        property_key_count,
        node_count,
        rel_count,
        labels,
        rel_types,
        map(rel_types_count),
        stats,
    ]])
}

/// Of a bounded sample of the label's nodes: the estimated number holding `key` and the share
/// of those values that are distinct.
fn selectivity(ctx: &ProcedureContext<'_>, label: &str, key: &str) -> Result<(i64, f64)> {
    let (Some(l), Some(k)) = (
        ctx.storage.label_id(label),
        ctx.storage.property_key_id(key),
    ) else {
        return Ok((0, 1.0));
    };
    let total = ctx.tx.count_label(l)?;
    let nodes: Vec<NodeId> =
        super::sample::sample_label(ctx.tx, l, total, NODES_PER_LABEL_DEFAULT)?;
    let mut values = Vec::new();
    for n in &nodes {
        if let Some(v) = ctx.tx.node_property(*n, k)? {
            values.push(quiver_value::HashKey::from(v));
        }
    }
    if nodes.is_empty() || values.is_empty() {
        return Ok((0, 1.0));
    }
    let holding = values.len();
    let distinct = values
        .into_iter()
        .collect::<std::collections::HashSet<_>>()
        .len();
    let size = (total as f64 * holding as f64 / nodes.len() as f64).round() as i64;
    Ok((size, distinct as f64 / holding as f64))
}

fn schema_nodes(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let config = Config::read("apoc.schema.nodes", args.first())?;
    let mut out = Vec::new();
    // The node indexes over one property: what `apoc.schema.nodes` describes.
    for ix in ctx.storage.indexes() {
        if ix.relationship || ix.keys.len() != 1 || !config.label(&ix.label) {
            continue;
        }
        let (size, selectivity) = if ix.kind.is_constraint() {
            let (size, _) = selectivity(ctx, &ix.label, &ix.key)?;
            (size, 1.0)
        } else {
            selectivity(ctx, &ix.label, &ix.key)?
        };
        let (status, progress) = match ix.state {
            IndexState::Online => ("ONLINE", 100.0),
            IndexState::Populating => ("POPULATING", 0.0),
        };
        out.push(vec![
            Value::from(ix.name.as_str()),
            Value::String(ix.label.clone()),
            strings([&*ix.key]),
            Value::from(status),
            Value::from("RANGE"),
            Value::from("NO FAILURE"),
            Value::Float(progress),
            Value::Int(size),
            Value::Float(selectivity),
            Value::from(format!(
                "name='{}', type='RANGE', schema=(:{} {{{}}}), indexProvider='range-1.0'",
                ix.name,
                crate::procedures::native::escape(&ix.label),
                crate::procedures::native::escape(&ix.key)
            )),
        ]);
    }
    for c in ctx.storage.constraints() {
        if c.relationship || c.keys.len() != 1 || !config.label(&c.label) {
            continue;
        }
        out.push(vec![
            Value::from(c.name.as_str()),
            Value::String(c.label.clone()),
            strings([&*c.key]),
            Value::from(""),
            Value::from("UNIQUENESS"),
            Value::from("NO FAILURE"),
            Value::Float(0.0),
            Value::Int(0),
            Value::Float(0.0),
            Value::from(format!(
                "name='{}', type='UNIQUENESS', schema=(:{} {{{}}}), ownedIndex={}",
                c.name,
                crate::procedures::native::escape(&c.label),
                crate::procedures::native::escape(&c.key),
                c.name
            )),
        ]);
    }
    Ok(out)
}

/// Quiver indexes and constrains node properties only, so there is nothing to list; the
/// config is still checked.
fn schema_relationships(_: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    Config::read("apoc.schema.relationships", args.first())?;
    Ok(Vec::new())
}

/// Every distinct value `key` has on a node labelled `label`, read by the statement that
/// says so (`MATCH (n:label) ... collect(DISTINCT n.key)`) in the caller's transaction: the
/// scan honours the caller's time limit and cancellation, and the values read and collected
/// count against its memory limit, as the same clauses typed by a client would. An unknown
/// label or key gives the empty list.
fn schema_properties_distinct(
    ctx: &ProcedureContext<'_>,
    args: &[Value],
) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.schema.properties.distinct";
    let label = crate::procedures::native::string_value(
        NAME,
        "label",
        args.first().unwrap_or(&Value::Null),
    )?;
    let key =
        crate::procedures::native::string_value(NAME, "key", args.get(1).unwrap_or(&Value::Null))?;
    let key = crate::procedures::native::escape(key);
    let statement = format!(
        "MATCH (n:{}) WHERE n.{key} IS NOT NULL RETURN collect(DISTINCT n.{key}) AS value",
        crate::procedures::native::escape(label)
    );
    let mut outcome = ctx.run(NAME, &statement, &Map::new(), Access::Read)?;
    let value = outcome
        .rows
        .pop()
        .and_then(|mut row| row.pop())
        .unwrap_or_else(|| Value::from(Vec::<Value>::new()));
    Ok(vec![vec![value]])
}

/// `apoc.help(proc)`: APOC's procedures, then its functions, as `SHOW PROCEDURES` and
/// `SHOW FUNCTIONS` describe them, kept where the name contains `proc` ignoring case (or,
/// when `proc` ends with `+`, the description does too); a null `proc` keeps them all.
/// Every one is APOC Core's (Quiver implements no APOC Extended item), none is restricted to
/// roles, and a procedure writes when its mode is `WRITE`.
fn help(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let (keyword, in_text) = match args.first() {
        Some(Value::String(s)) => match s.trim().strip_suffix('+') {
            Some(k) => (Some(k.trim().to_lowercase()), true),
            None => (Some(s.trim().to_lowercase()), false),
        },
        Some(Value::Null) | None => (None, false),
        Some(other) => {
            return Err(call_failed(format!(
                "apoc.help needs proc, a STRING; got {}",
                quiver_value::to_string_cypher(other)
            )));
        }
    };
    let text = |row: &super::values::Named, column: &str| match field(row, column) {
        Some(Value::String(s)) => s.to_string(),
        _ => String::new(),
    };
    let procedures = procedure_rows(&ctx.shared.procedures())
        .into_iter()
        .map(|row| ("procedure", row));
    let functions = functions().into_iter().map(|row| ("function", row));
    Ok(procedures
        .chain(functions)
        .filter_map(|(kind, row)| {
            let name = text(&row, "name");
            let description = text(&row, "description");
            let wanted = name.starts_with("apoc.")
                && keyword.as_ref().is_none_or(|k| {
                    name.to_lowercase().contains(k)
                        || (in_text && description.to_lowercase().contains(k))
                });
            wanted.then(|| {
                let writes = kind == "procedure" && text(&row, "mode") == "WRITE";
                vec![
                    Value::from(kind),
                    Value::from(name),
                    Value::from(description),
                    Value::from(text(&row, "signature")),
                    Value::Null,
                    Value::Bool(writes),
                    Value::Bool(true),
                    Value::Bool(false),
                ]
            })
        })
        .collect())
}
