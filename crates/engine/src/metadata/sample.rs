//! A bounded sample of the graph's shape: which properties of which types the nodes of each
//! label (and each combination of labels) have, and which relationship types join which
//! labels, with which properties.
//!
//! Counts of nodes per label and relationships per type are the store's, exact. Everything
//! else is read from at most `nodes_per_label` nodes of each label, taken in runs from evenly
//! spaced points of the id range (so a label whose early nodes differ from its late ones is
//! still seen whole), and from at most `rels_per_node` outgoing relationships of each sampled
//! node. That is APOC's approach (`sample` and `maxRels` in `apoc.meta.data`'s config), and it
//! keeps a call's cost independent of the graph's size. What a sample cannot promise: a
//! property or a relationship pattern only a few unsampled entities have is missed, and
//! relationships between unlabelled nodes are not seen.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use quiver_storage::{Direction, LabelId, NodeId, PropKeyId, RelTypeId, Transaction};
use quiver_value::Value;

use crate::error::Result;

/// Nodes read per label unless the caller says otherwise (APOC's default `sample`).
pub(crate) const NODES_PER_LABEL_DEFAULT: usize = 1000;
/// Outgoing relationships read per sampled node unless the caller says otherwise (APOC's
/// default `maxRels`).
pub(crate) const RELS_PER_NODE_DEFAULT: usize = 100;
/// Runs a label's sample is split into, each from its own point of the id range.
const SAMPLE_RUNS: u64 = 10;

/// The type of a property value, without its list-ness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Kind {
    /// An empty list's elements, or a list of mixed types.
    Any,
    Boolean,
    Integer,
    Float,
    String,
    Bytes,
    Date,
    Time,
    LocalTime,
    DateTime,
    LocalDateTime,
    Duration,
    Point,
    Map,
}

/// A property value's type: a kind, or a list of a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct PropType {
    pub kind: Kind,
    pub list: bool,
}

fn kind(v: &Value) -> Kind {
    match v {
        Value::Bool(_) => Kind::Boolean,
        Value::Int(_) => Kind::Integer,
        Value::Float(_) => Kind::Float,
        Value::String(_) => Kind::String,
        Value::Bytes(_) => Kind::Bytes,
        Value::Date(_) => Kind::Date,
        Value::Time(_) => Kind::Time,
        Value::LocalTime(_) => Kind::LocalTime,
        Value::DateTime(_) => Kind::DateTime,
        Value::LocalDateTime(_) => Kind::LocalDateTime,
        Value::Duration(_) => Kind::Duration,
        Value::Point(_) => Kind::Point,
        Value::Map(_) => Kind::Map,
        _ => Kind::Any,
    }
}

impl PropType {
    pub fn of(v: &Value) -> PropType {
        match v {
            Value::List(items) => {
                let mut kinds = items.iter().map(kind);
                let first = kinds.next().unwrap_or(Kind::Any);
                let kind = if kinds.all(|k| k == first) {
                    first
                } else {
                    Kind::Any
                };
                PropType { kind, list: true }
            }
            other => PropType {
                kind: kind(other),
                list: false,
            },
        }
    }

    /// APOC's name (`apoc.meta.data`, `apoc.meta.schema`): a list is `LIST`.
    pub fn apoc_name(self) -> &'static str {
        if self.list {
            return "LIST";
        }
        match self.kind {
            Kind::Any => "ANY",
            Kind::Boolean => "BOOLEAN",
            Kind::Integer => "INTEGER",
            Kind::Float => "FLOAT",
            Kind::String => "STRING",
            Kind::Bytes => "LIST",
            Kind::Date => "DATE",
            Kind::Time => "TIME",
            Kind::LocalTime => "LOCAL_TIME",
            Kind::DateTime => "DATE_TIME",
            Kind::LocalDateTime => "LOCAL_DATE_TIME",
            Kind::Duration => "DURATION",
            Kind::Point => "POINT",
            Kind::Map => "MAP",
        }
    }

    /// Neo4j's name in `db.schema.nodeTypeProperties` (`String`, `Long`, `StringArray`).
    pub fn schema_name(self) -> String {
        let base = match self.kind {
            Kind::Any => "Value",
            Kind::Boolean => "Boolean",
            Kind::Integer => "Long",
            Kind::Float => "Double",
            Kind::String => "String",
            Kind::Bytes => return "ByteArray".to_owned(),
            Kind::Date => "Date",
            Kind::Time => "Time",
            Kind::LocalTime => "LocalTime",
            Kind::DateTime => "DateTime",
            Kind::LocalDateTime => "LocalDateTime",
            Kind::Duration => "Duration",
            Kind::Point => "Point",
            Kind::Map => "Map",
        };
        if self.list {
            format!("{base}Array")
        } else {
            base.to_owned()
        }
    }

    pub fn is_array(self) -> bool {
        self.list || self.kind == Kind::Bytes
    }
}

/// What the sample saw of one property.
#[derive(Clone, Debug, Default)]
pub(crate) struct PropStats {
    pub types: BTreeSet<PropType>,
    /// Sampled entities that have it.
    pub seen: u64,
}

impl PropStats {
    /// The type tools are told: the first seen in type order when several were.
    pub fn main_type(&self) -> PropType {
        self.types.iter().next().copied().unwrap_or(PropType {
            kind: Kind::Any,
            list: false,
        })
    }
}

/// Relationships of one type leaving or entering a label's sampled nodes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Neighbours {
    pub count: u64,
    /// The labels of the nodes at the other end.
    pub labels: BTreeSet<Arc<str>>,
}

#[derive(Clone, Debug)]
pub(crate) struct LabelSample {
    pub name: Arc<str>,
    pub id: LabelId,
    /// The store's count.
    pub count: u64,
    pub sampled: u64,
    pub properties: BTreeMap<Arc<str>, PropStats>,
    /// Other labels the sampled nodes also have.
    pub other_labels: BTreeSet<Arc<str>>,
    /// By relationship type: relationships leaving the sampled nodes.
    pub outgoing: BTreeMap<Arc<str>, Neighbours>,
    /// By relationship type: relationships entering the sampled nodes.
    pub incoming: BTreeMap<Arc<str>, Neighbours>,
}

#[derive(Clone, Debug)]
pub(crate) struct TypeSample {
    pub name: Arc<str>,
    /// The store's count.
    pub count: u64,
    pub sampled: u64,
    pub properties: BTreeMap<Arc<str>, PropStats>,
    /// (start label, end label) pairs seen, with how many sampled relationships joined them.
    pub patterns: BTreeMap<(Arc<str>, Arc<str>), u64>,
}

/// The nodes sampled with one exact set of labels.
#[derive(Clone, Debug, Default)]
pub(crate) struct ComboSample {
    pub sampled: u64,
    pub properties: BTreeMap<Arc<str>, PropStats>,
}

/// The graph's shape as a bounded sample saw it. Labels and types with no entities are left
/// out; both lists are in name order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sample {
    pub labels: Vec<LabelSample>,
    pub types: Vec<TypeSample>,
    /// By sorted label set.
    pub combos: BTreeMap<Vec<Arc<str>>, ComboSample>,
}

/// Interned names, looked up once per id.
struct Names<'a> {
    tx: &'a Transaction,
    labels: HashMap<u32, Arc<str>>,
    keys: HashMap<u32, Arc<str>>,
    types: HashMap<u32, Arc<str>>,
}

impl Names<'_> {
    fn label(&mut self, id: LabelId) -> Arc<str> {
        let storage = self.tx.storage();
        self.labels
            .entry(id.0)
            .or_insert_with(|| storage.label_name(id).unwrap_or_else(|| Arc::from("")))
            .clone()
    }

    fn key(&mut self, id: PropKeyId) -> Arc<str> {
        let storage = self.tx.storage();
        self.keys
            .entry(id.0)
            .or_insert_with(|| {
                storage
                    .property_key_name(id)
                    .unwrap_or_else(|| Arc::from(""))
            })
            .clone()
    }

    fn rel_type(&mut self, id: RelTypeId) -> Arc<str> {
        let storage = self.tx.storage();
        self.types
            .entry(id.0)
            .or_insert_with(|| storage.rel_type_name(id).unwrap_or_else(|| Arc::from("")))
            .clone()
    }

    fn labels_of(&mut self, node: NodeId) -> Result<Vec<Arc<str>>> {
        let mut out: Vec<Arc<str>> = self
            .tx
            .node_labels(node)?
            .into_iter()
            .map(|l| self.label(l))
            .collect();
        out.sort();
        Ok(out)
    }
}

fn note(props: &mut BTreeMap<Arc<str>, PropStats>, key: Arc<str>, value: &Value) {
    let stats = props.entry(key).or_default();
    stats.types.insert(PropType::of(value));
    stats.seen += 1;
}

/// Up to `max` nodes of `label`, in runs from evenly spaced points of the id range.
pub(crate) fn sample_label(
    tx: &Transaction,
    label: LabelId,
    count: u64,
    max: usize,
) -> Result<Vec<NodeId>> {
    let mut out = Vec::new();
    if count as usize <= max {
        let mut cursor = tx.scan_label(label)?;
        while cursor.next_batch(max - out.len(), &mut out)? > 0 && out.len() < max {}
        return Ok(out);
    }
    let (end, _) = tx.id_bounds();
    let per_run = (max as u64).div_ceil(SAMPLE_RUNS) as usize;
    let mut seen = BTreeSet::new();
    for run in 0..SAMPLE_RUNS {
        let start = end / SAMPLE_RUNS * run;
        let mut cursor = if start == 0 {
            tx.scan_label(label)?
        } else {
            tx.scan_label_after(label, NodeId(start - 1))?
        };
        let mut batch = Vec::new();
        while batch.len() < per_run && cursor.next_batch(per_run - batch.len(), &mut batch)? > 0 {}
        for n in batch {
            if out.len() < max && seen.insert(n.0) {
                out.push(n);
            }
        }
    }
    Ok(out)
}

/// Every relationship type with relationships, by name, with its exact count.
fn type_samples(tx: &Transaction) -> Result<BTreeMap<Arc<str>, TypeSample>> {
    let mut types = BTreeMap::new();
    for (id, name) in tx.storage().all_rel_types() {
        let count = tx.count_rels_of_type(id)?;
        if count > 0 {
            types.insert(
                name.clone(),
                TypeSample {
                    name,
                    count,
                    sampled: 0,
                    properties: BTreeMap::new(),
                    patterns: BTreeMap::new(),
                },
            );
        }
    }
    Ok(types)
}

/// Every label some node has, by name, with its exact count.
fn label_samples(tx: &Transaction) -> Result<BTreeMap<Arc<str>, LabelSample>> {
    let mut labels = BTreeMap::new();
    for (id, name) in tx.storage().all_labels() {
        let count = tx.count_label(id)?;
        if count > 0 {
            labels.insert(
                name.clone(),
                LabelSample {
                    name,
                    id,
                    count,
                    sampled: 0,
                    properties: BTreeMap::new(),
                    other_labels: BTreeSet::new(),
                    outgoing: BTreeMap::new(),
                    incoming: BTreeMap::new(),
                },
            );
        }
    }
    Ok(labels)
}

impl Sample {
    /// Reads the sample at the transaction's snapshot.
    pub fn take(tx: &Transaction, nodes_per_label: usize, rels_per_node: usize) -> Result<Sample> {
        let mut names = Names {
            tx,
            labels: HashMap::new(),
            keys: HashMap::new(),
            types: HashMap::new(),
        };
        let mut sample = Sample::default();
        let mut types = type_samples(tx)?;
        let mut labels = label_samples(tx)?;
        // Each node is read once however many of its labels sampled it; each relationship
        // once, from its start node.
        let mut nodes_done: BTreeSet<u64> = BTreeSet::new();
        let mut rels_done: BTreeSet<u64> = BTreeSet::new();
        let ids: Vec<(LabelId, u64)> = labels.values().map(|l| (l.id, l.count)).collect();
        for (label, count) in ids {
            for node in sample_label(tx, label, count, nodes_per_label)? {
                let node_labels = names.labels_of(node)?;
                let mut props = Vec::new();
                for (k, v) in tx.node_properties(node)? {
                    props.push((names.key(k), v));
                }
                let own = names.label(label);
                if let Some(l) = labels.get_mut(&own) {
                    l.sampled += 1;
                    for (k, v) in &props {
                        note(&mut l.properties, k.clone(), v);
                    }
                    l.other_labels
                        .extend(node_labels.iter().filter(|n| **n != own).cloned());
                }
                if !nodes_done.insert(node.0) {
                    continue;
                }
                let combo = sample.combos.entry(node_labels.clone()).or_default();
                combo.sampled += 1;
                for (k, v) in &props {
                    note(&mut combo.properties, k.clone(), v);
                }
                let mut out = tx.expand(node, Direction::Out, &[])?;
                out.truncate(rels_per_node);
                for (rel, end) in out {
                    if !rels_done.insert(rel.0) {
                        continue;
                    }
                    let ty = names.rel_type(tx.rel_type(rel)?);
                    let end_labels = names.labels_of(end)?;
                    if let Some(t) = types.get_mut(&ty) {
                        t.sampled += 1;
                        for (k, v) in tx.rel_properties(rel)? {
                            let k = names.key(k);
                            note(&mut t.properties, k, &v);
                        }
                        for s in &node_labels {
                            for e in &end_labels {
                                *t.patterns.entry((s.clone(), e.clone())).or_default() += 1;
                            }
                        }
                    }
                    for s in &node_labels {
                        if let Some(l) = labels.get_mut(s) {
                            let n = l.outgoing.entry(ty.clone()).or_default();
                            n.count += 1;
                            n.labels.extend(end_labels.iter().cloned());
                        }
                    }
                    for e in &end_labels {
                        if let Some(l) = labels.get_mut(e) {
                            let n = l.incoming.entry(ty.clone()).or_default();
                            n.count += 1;
                            n.labels.extend(node_labels.iter().cloned());
                        }
                    }
                }
            }
        }
        sample.labels = labels.into_values().collect();
        sample.types = types.into_values().collect();
        Ok(sample)
    }
}
