//! Index and constraint definitions.
//!
//! An index is over the nodes of one label or the relationships of one type, keyed by one or
//! more property keys (a composite index holds an entity only when it has every key, as in
//! Neo4j). A uniqueness or key constraint owns such an index of its own.
//!
//! The schema is copy-on-write behind an `Arc`: writers load it once per operation, under the
//! entity's lock, so an index published before it is populated is maintained by every write
//! that follows (see `Storage::populate`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use quiver_value::Value;

use crate::error::Result;
use crate::graph::prop_get;
use crate::ids::{LabelId, PropKeyId};
use crate::index::{IndexData, IndexQuery, composite_key, prefix_key};
use crate::mvcc::{self, Chain, Undo};

/// What a schema rule is: an index of one type, or a constraint and the index it owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexKind {
    /// A property index for equality, range, IN and prefix seeks.
    Range,
    /// A `TEXT` index: holds string values only.
    Text,
    /// A `POINT` index: holds point values only.
    Point,
    /// The index backing a uniqueness constraint; seekable like a range index.
    Unique,
    /// The index backing a node or relationship key constraint: unique, and every key
    /// property present on every entity of the label or type.
    Key,
}

impl IndexKind {
    /// Whether the rule is a constraint (its index is dropped with it).
    pub fn is_constraint(self) -> bool {
        matches!(self, IndexKind::Unique | IndexKind::Key)
    }

    /// Whether seeks for equality, ranges, IN and prefixes may use the index.
    pub fn is_range(self) -> bool {
        matches!(self, IndexKind::Range | IndexKind::Unique | IndexKind::Key)
    }

    /// The code of the kind in the commit log's `CreateSchemaIndex` op.
    pub(crate) fn code(self) -> u8 {
        match self {
            IndexKind::Range => 0,
            IndexKind::Text => 1,
            IndexKind::Point => 2,
            IndexKind::Unique => 3,
            IndexKind::Key => 4,
        }
    }

    pub(crate) fn from_code(code: u8) -> Option<IndexKind> {
        Some(match code {
            0 => IndexKind::Range,
            1 => IndexKind::Text,
            2 => IndexKind::Point,
            3 => IndexKind::Unique,
            4 => IndexKind::Key,
            _ => return None,
        })
    }

    /// Whether a seek for `query` through an index of this kind finds every match. A range
    /// index holds every value; a text index holds only strings, so it serves the string
    /// predicates and equality or IN on strings alone (`n.p = 5` through it would miss the
    /// integers); a point index holds only points, so it serves the spatial predicates.
    pub fn serves(self, query: &IndexQuery) -> bool {
        let string = |v: &Value| matches!(v, Value::String(_));
        match self {
            IndexKind::Range | IndexKind::Unique | IndexKind::Key => true,
            IndexKind::Text => match query {
                IndexQuery::Equals(v) => string(v),
                IndexQuery::In(vs) => vs.iter().all(string),
                IndexQuery::Prefix(_) | IndexQuery::Contains(_) | IndexQuery::EndsWith(_) => true,
                _ => false,
            },
            IndexKind::Point => {
                matches!(query, IndexQuery::Distance { .. } | IndexQuery::BBox { .. })
            }
        }
    }

    /// The order in which kinds are preferred for `query` (lower first): a range index for
    /// what it was made for, a text index for substrings and suffixes, a point index for
    /// the spatial predicates.
    fn preference(self, query: &IndexQuery) -> u8 {
        match (self, query) {
            (IndexKind::Text, IndexQuery::Contains(_) | IndexQuery::EndsWith(_)) => 0,
            (IndexKind::Point, IndexQuery::Distance { .. } | IndexQuery::BBox { .. }) => 0,
            (IndexKind::Text | IndexKind::Point, _) => 2,
            _ => 1,
        }
    }

    /// Whether the index holds a value of this kind (a text index strings only, a point
    /// index points only).
    fn holds(self, v: &Value) -> bool {
        match self {
            IndexKind::Text => matches!(v, Value::String(_)),
            IndexKind::Point => matches!(v, Value::Point(_)),
            _ => true,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexState {
    Populating,
    Online,
}

/// One row of `SHOW INDEXES` / `SHOW CONSTRAINTS`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexInfo {
    pub name: String,
    /// Whether the rule is over relationships (of type `label`) rather than nodes.
    pub relationship: bool,
    /// The label, or the relationship type.
    pub label: Arc<str>,
    /// The first property key (the only one unless the index is composite).
    pub key: Arc<str>,
    /// Every property key, in index order.
    pub keys: Vec<Arc<str>>,
    pub kind: IndexKind,
    pub state: IndexState,
    /// Entries currently held (including ones kept for older snapshots).
    pub entries: usize,
    /// Seeks through the index since `tracked_since_ms`.
    pub read_count: u64,
    /// When the last of them began, in milliseconds since the Unix epoch.
    pub last_read_ms: Option<i64>,
    /// When counting began: the index's creation or the store's opening, whichever is later.
    pub tracked_since_ms: i64,
}

/// Milliseconds since the Unix epoch, now (0 on a clock set before it).
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// How often and when an index was last read by a seek, since a moment. Kept in memory
/// only: as in Neo4j, the figures start again when the server does.
pub(crate) struct ReadStats {
    count: AtomicU64,
    /// `NO_READ_MS` until the first read.
    last_ms: AtomicI64,
    since_ms: i64,
}

/// `ReadStats::last_ms` before any read.
const NO_READ_MS: i64 = i64::MIN;

impl ReadStats {
    pub(crate) fn new() -> Self {
        ReadStats {
            count: AtomicU64::new(0),
            last_ms: AtomicI64::new(NO_READ_MS),
            since_ms: now_ms(),
        }
    }

    /// Counts one seek, begun now.
    pub(crate) fn record(&self) {
        self.count.fetch_add(1, Ordering::Relaxed);
        self.last_ms.fetch_max(now_ms(), Ordering::Relaxed);
    }

    /// (reads, last read, tracked since).
    pub(crate) fn snapshot(&self) -> (u64, Option<i64>, i64) {
        let last = self.last_ms.load(Ordering::Relaxed);
        (
            self.count.load(Ordering::Relaxed),
            (last != NO_READ_MS).then_some(last),
            self.since_ms,
        )
    }
}

/// A schema rule to create, by token ids: what a transaction records and a bulk load takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexSpec {
    pub relationship: bool,
    /// The label, or the relationship type.
    pub token: u32,
    /// One or more property keys, in index order, none twice.
    pub keys: Vec<u32>,
    pub kind: IndexKind,
}

impl IndexSpec {
    /// An index of `kind` on one property `key` of nodes labelled `label`.
    pub(crate) fn on_label_key(label: LabelId, key: PropKeyId, kind: IndexKind) -> IndexSpec {
        IndexSpec {
            relationship: false,
            token: label.0,
            keys: vec![key.0],
            kind,
        }
    }
}

/// A seek over a (possibly composite) index: equality on every key before the last, and
/// `last` on the last one.
#[derive(Clone, Debug)]
pub struct CompositeQuery {
    pub prefix: Vec<Value>,
    pub last: IndexQuery,
}

impl CompositeQuery {
    /// Whether an entry keyed `key` may satisfy the seek, judged from the key's bytes alone
    /// (see [`IndexQuery::key_may_match`]); only single-key seeks are judged.
    pub(crate) fn key_may_match(&self, key: &[u8]) -> bool {
        !self.prefix.is_empty() || self.last.key_may_match(key)
    }

    /// Whether an entity holding `values` (one per key) satisfies the seek exactly.
    pub(crate) fn matches(&self, values: &[Value]) -> bool {
        values.len() == self.prefix.len() + 1
            && self
                .prefix
                .iter()
                .zip(values)
                .all(|(q, v)| crate::index::equal(v, q))
            && values.last().is_some_and(|v| self.last.matches(v))
    }

    /// Key intervals that hold every candidate (see [`IndexQuery::key_ranges`]).
    pub(crate) fn key_ranges(&self) -> Vec<(Box<[u8]>, Option<Box<[u8]>>)> {
        if self.prefix.is_empty() {
            return self.last.key_ranges();
        }
        if self
            .prefix
            .iter()
            .any(|v| crate::codec::check_storable(v).is_err())
        {
            return Vec::new();
        }
        let prefix = prefix_key(&self.prefix);
        self.last
            .key_ranges()
            .into_iter()
            .map(|(start, end)| {
                let mut s = prefix.clone();
                s.extend_from_slice(&start);
                let e = match end {
                    Some(e) => {
                        let mut x = prefix.clone();
                        x.extend_from_slice(&e);
                        x
                    }
                    None => {
                        let mut x = prefix.clone();
                        x.extend_from_slice(&[0xff; 8]);
                        x
                    }
                };
                (s.into_boxed_slice(), Some(e.into_boxed_slice()))
            })
            .collect()
    }
}

pub(crate) struct IndexDef {
    pub name: String,
    pub relationship: bool,
    pub token: u32,
    pub keys: Vec<u32>,
    pub kind: IndexKind,
    pub online: AtomicBool,
    pub data: IndexData,
    pub reads: ReadStats,
}

impl IndexDef {
    pub(crate) fn new(name: String, spec: &IndexSpec) -> Self {
        IndexDef {
            name,
            relationship: spec.relationship,
            token: spec.token,
            keys: spec.keys.clone(),
            kind: spec.kind,
            online: AtomicBool::new(false),
            data: IndexData::default(),
            reads: ReadStats::new(),
        }
    }

    pub(crate) fn is_online(&self) -> bool {
        self.online.load(Ordering::Acquire)
    }

    pub(crate) fn unique(&self) -> bool {
        self.kind.is_constraint()
    }

    /// The index key of values, one per key of the index; `None` when one is missing or of a
    /// kind the index does not hold.
    pub(crate) fn key_of_values(&self, values: &[Option<Value>]) -> Option<Box<[u8]>> {
        let mut vs: Vec<&Value> = Vec::with_capacity(values.len());
        for v in values {
            let v = v.as_ref()?;
            if !self.kind.holds(v) {
                return None;
            }
            vs.push(v);
        }
        Some(composite_key(&vs))
    }

    /// The values of the index's keys in an encoded property blob.
    pub(crate) fn values_in(&self, props: &[u8]) -> Result<Vec<Option<Value>>> {
        self.keys.iter().map(|k| prop_get(props, *k)).collect()
    }

    /// The index key of an entity whose properties are `props`, when it holds every key.
    pub(crate) fn key_in(&self, props: &[u8]) -> Result<Option<Box<[u8]>>> {
        Ok(self.key_of_values(&self.values_in(props)?))
    }

    /// The keys of every version of an entity still on its chain: the physical state
    /// (`has_token`, properties `props`) and each older one its undos give back. Population
    /// adds them all, and garbage collection keeps an entry while one of them needs it.
    pub(crate) fn version_keys(
        &self,
        has_token: bool,
        props: &[u8],
        chain: &Chain,
    ) -> Result<Vec<Box<[u8]>>> {
        let mut has = has_token;
        let mut values = self.values_in(props)?;
        let mut out = Vec::new();
        let push = |has: bool, values: &[Option<Value>], out: &mut Vec<Box<[u8]>>| {
            if has
                && let Some(k) = self.key_of_values(values)
                && !out.contains(&k)
            {
                out.push(k);
            }
        };
        push(has, &values, &mut out);
        for u in mvcc::all(chain) {
            match u {
                Undo::Property { key, old } => {
                    let Some(i) = self.keys.iter().position(|k| k == key) else {
                        continue;
                    };
                    values[i].clone_from(old);
                }
                Undo::LabelAdded(l) if !self.relationship && *l == self.token => has = false,
                Undo::LabelRemoved(l) if !self.relationship && *l == self.token => has = true,
                _ => continue,
            }
            push(has, &values, &mut out);
        }
        Ok(out)
    }
}

#[derive(Default, Clone)]
pub(crate) struct Schema {
    pub defs: Vec<Arc<IndexDef>>,
}

impl Schema {
    /// The constraints `node` falls under, with the values it holds under each (`None` for a
    /// missing key): what a commit or a bulk load checks against the constraint's index.
    pub(crate) fn node_constraints(
        &self,
        node: &crate::graph::NodeRec,
    ) -> Result<Vec<(&Arc<IndexDef>, Vec<Option<Value>>)>> {
        if !self.defs.iter().any(|d| d.unique() && !d.relationship) {
            return Ok(Vec::new());
        }
        let labels = node.labels()?;
        let mut out = Vec::new();
        for def in self
            .defs
            .iter()
            .filter(|d| d.unique() && !d.relationship && labels.contains(&d.token))
        {
            out.push((def, def.values_in(node.props()?)?));
        }
        Ok(out)
    }

    /// The constraints a relationship of type `ty` with properties `props` falls under.
    pub(crate) fn rel_constraints(
        &self,
        ty: u32,
        props: &[u8],
    ) -> Result<Vec<(&Arc<IndexDef>, Vec<Option<Value>>)>> {
        let mut out = Vec::new();
        for def in self
            .defs
            .iter()
            .filter(|d| d.unique() && d.relationship && d.token == ty)
        {
            out.push((def, def.values_in(props)?));
        }
        Ok(out)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    pub(crate) fn has_constraints(&self) -> bool {
        self.defs.iter().any(|d| d.unique())
    }

    /// The node indexes on `label`.
    pub(crate) fn on_label(&self, label: u32) -> impl Iterator<Item = &Arc<IndexDef>> {
        self.defs
            .iter()
            .filter(move |d| !d.relationship && d.token == label)
    }

    /// The relationship indexes on type `ty`.
    pub(crate) fn on_type(&self, ty: u32) -> impl Iterator<Item = &Arc<IndexDef>> {
        self.defs
            .iter()
            .filter(move |d| d.relationship && d.token == ty)
    }

    /// The online range index to seek for `keys` of `token`; a constraint's index serves as
    /// well as a plain one.
    pub(crate) fn find(
        &self,
        relationship: bool,
        token: u32,
        keys: &[u32],
    ) -> Option<&Arc<IndexDef>> {
        self.defs.iter().find(|d| {
            d.relationship == relationship
                && d.token == token
                && d.keys == keys
                && d.kind.is_range()
                && d.is_online()
        })
    }

    /// The online index to seek for `query` over `keys` of `token`: of the kinds that serve
    /// the query (see [`IndexKind::serves`]), the one it suits best.
    pub(crate) fn find_for(
        &self,
        relationship: bool,
        token: u32,
        keys: &[u32],
        query: &CompositeQuery,
    ) -> Option<&Arc<IndexDef>> {
        self.defs
            .iter()
            .filter(|d| {
                d.relationship == relationship
                    && d.token == token
                    && d.keys == keys
                    && d.kind.serves(&query.last)
                    && (d.kind.is_range() || query.prefix.iter().all(|v| d.kind.holds(v)))
                    && d.is_online()
            })
            .min_by_key(|d| d.kind.preference(&query.last))
    }

    pub(crate) fn by_name(&self, name: &str) -> Option<&Arc<IndexDef>> {
        self.defs.iter().find(|d| d.name == name)
    }
}
