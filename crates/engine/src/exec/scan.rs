//! Leaf reads: all-nodes and label scans, index seeks, lookups by id, and counts answered by
//! the store. Each runs once per input row (a nested loop when the input has many rows).

use std::ops::Bound;
use std::sync::Arc;

use quiver_storage::{
    CompositeQuery, Direction, IndexQuery, NodeCursor, NodeId, PropKeyId, RelId, RelTypeId,
};
use quiver_value::Value;

use super::{BoxCursor, Cursor, Cx};
use crate::error::{Error, Result};
use crate::eval::graph_fns::{node_value, rel_value};
use crate::ir::{Expr, IndexSeekSpec, Row, Seek, SeekTarget};
use crate::tokens::Token;

/// Where a scan finds its nodes.
pub(crate) enum Source {
    All,
    Label(Arc<Token>),
    Index {
        label: Arc<Token>,
        key: Arc<Token>,
        seek: Arc<Seek>,
    },
    /// An id or (`many`) a list of ids.
    ById {
        ids: Arc<Expr>,
        many: bool,
    },
}

/// The nodes a scan is walking for the current input row.
enum Open {
    Cursor(NodeCursor),
    Ids(std::vec::IntoIter<u64>),
}

pub(crate) struct Scan {
    slot: usize,
    source: Source,
    input: BoxCursor,
    open: Option<Open>,
}

impl Scan {
    pub fn new(slot: usize, source: Source, input: BoxCursor) -> Self {
        Scan {
            slot,
            source,
            input,
            open: None,
        }
    }
}

/// An id from `id(n) = x`: integers, and floats with an integral value.
fn as_id(v: &Value) -> Option<u64> {
    match v {
        Value::Int(i) => u64::try_from(*i).ok(),
        Value::Float(f) if f.fract() == 0.0 && *f >= 0.0 && *f < 1.8e19 => Some(*f as u64),
        _ => None,
    }
}

fn open(source: &Source, cx: &mut Cx, row: &mut Row) -> Result<Option<Open>> {
    Ok(Some(match source {
        Source::All => Open::Cursor(cx.tx.scan_nodes()?),
        Source::Label(label) => match label.label(&cx.storage) {
            Some(l) => Open::Cursor(cx.tx.scan_label(l)?),
            None => return Ok(None),
        },
        Source::Index { label, key, seek } => {
            let (Some(l), Some(k)) = (label.label(&cx.storage), key.key(&cx.storage)) else {
                return Ok(None);
            };
            let Some(query) = index_query(seek, row, cx)? else {
                return Ok(None);
            };
            if cx.tx.has_index(l, k) {
                Open::Cursor(cx.tx.index_seek(l, k, query)?)
            } else {
                // The index went away after planning: scan the label and test each node.
                let mut ids = Vec::new();
                for id in cx.tx.scan_label(l)? {
                    let id = id?;
                    cx.tick()?;
                    if let Some(v) = cx.tx.node_property(id, k)?
                        && query.matches(&v)
                    {
                        ids.push(id.0);
                    }
                }
                Open::Ids(ids.into_iter())
            }
        }
        Source::ById { ids, many } => {
            let v = ids.eval(row, cx)?;
            let candidates: Vec<u64> = if *many {
                match &v {
                    Value::List(items) => items.iter().filter_map(as_id).collect(),
                    _ => Vec::new(),
                }
            } else {
                as_id(&v).into_iter().collect()
            };
            let mut found = Vec::with_capacity(candidates.len());
            for id in candidates {
                if cx.tx.node_exists(NodeId(id))? && !found.contains(&id) {
                    found.push(id);
                }
            }
            Open::Ids(found.into_iter())
        }
    }))
}

/// A string argument of a seek; `None` (no rows) for anything else, as `CONTAINS`, `ENDS
/// WITH` and `STARTS WITH` give `null` for it.
fn string_arg(e: &Expr, row: &mut Row, cx: &mut Cx) -> Result<Option<String>> {
    Ok(match e.eval(row, cx)? {
        Value::String(s) => Some(s.to_string()),
        _ => None,
    })
}

/// A point argument of a spatial seek; `None` (no rows) for `null` or anything else.
fn point_arg(e: &Expr, row: &mut Row, cx: &mut Cx) -> Result<Option<quiver_value::Point>> {
    Ok(match e.eval(row, cx)? {
        Value::Point(p) => Some(*p),
        _ => None,
    })
}

/// The storage query for a seek, or `None` when it can match nothing (a `null` bound).
fn index_query(seek: &Seek, row: &mut Row, cx: &mut Cx) -> Result<Option<IndexQuery>> {
    Ok(match seek {
        Seek::Eq(e) => match e.eval(row, cx)? {
            Value::Null => None,
            v => Some(IndexQuery::Equals(v)),
        },
        Seek::In(e) => match e.eval(row, cx)? {
            Value::List(items) => Some(IndexQuery::In(
                items.iter().filter(|v| !v.is_null()).cloned().collect(),
            )),
            Value::Null => None,
            other => {
                return Err(Error::type_error(format!(
                    "'IN' expects a List on the right, got {}",
                    other.value_type()
                )));
            }
        },
        Seek::Range { lower, upper } => {
            let mut bound = |b: &Option<(Expr, bool)>| -> Result<Option<Bound<Value>>> {
                Ok(match b {
                    None => Some(Bound::Unbounded),
                    Some((e, inclusive)) => match e.eval(row, cx)? {
                        Value::Null => None,
                        v if *inclusive => Some(Bound::Included(v)),
                        v => Some(Bound::Excluded(v)),
                    },
                })
            };
            let (Some(lower), Some(upper)) = (bound(lower)?, bound(upper)?) else {
                return Ok(None);
            };
            Some(IndexQuery::Range { lower, upper })
        }
        Seek::Prefix(e) => string_arg(e, row, cx)?.map(IndexQuery::Prefix),
        Seek::Contains(e) => string_arg(e, row, cx)?.map(IndexQuery::Contains),
        Seek::EndsWith(e) => string_arg(e, row, cx)?.map(IndexQuery::EndsWith),
        Seek::Distance {
            center,
            radius,
            inclusive,
        } => {
            let center = point_arg(center, row, cx)?;
            let radius = match radius.eval(row, cx)? {
                Value::Int(i) => Some(i as f64),
                Value::Float(f) => Some(f),
                _ => None,
            };
            match (center, radius) {
                (Some(center), Some(radius)) => Some(IndexQuery::Distance {
                    center,
                    radius,
                    inclusive: *inclusive,
                }),
                _ => None,
            }
        }
        Seek::BBox { lower, upper } => {
            match (point_arg(lower, row, cx)?, point_arg(upper, row, cx)?) {
                (Some(lower), Some(upper)) => Some(IndexQuery::BBox { lower, upper }),
                _ => None,
            }
        }
    })
}

impl Cursor for Scan {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        loop {
            cx.tick()?;
            let next = match &mut self.open {
                Some(Open::Cursor(c)) => c.next().transpose()?.map(|n| n.0),
                Some(Open::Ids(ids)) => ids.next(),
                None => None,
            };
            if let Some(id) = next {
                cx.db_hits += 1;
                row[self.slot] = node_value(NodeId(id));
                return Ok(true);
            }
            self.open = None;
            if !self.input.next(cx, row)? {
                return Ok(false);
            }
            self.open = open(&self.source, cx, row)?;
        }
    }

    fn reset(&mut self) {
        self.open = None;
        self.input.reset();
    }
}

/// What a count reads from the store: nodes (of a label) or relationships (of a type).
pub(crate) enum Counted {
    Nodes(Option<Arc<Token>>),
    Rels(Option<Arc<Token>>),
}

/// Counts from the store, one row per input row.
pub(crate) struct Count {
    slot: usize,
    counted: Counted,
    input: BoxCursor,
}

impl Count {
    pub fn new(slot: usize, counted: Counted, input: BoxCursor) -> Self {
        Count {
            slot,
            counted,
            input,
        }
    }
}

impl Cursor for Count {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        if !self.input.next(cx, row)? {
            return Ok(false);
        }
        let n = match &self.counted {
            Counted::Nodes(label) => match label {
                None => cx.tx.count_nodes()?,
                Some(l) => match l.label(&cx.storage) {
                    Some(id) => cx.tx.count_label(id)?,
                    None => 0,
                },
            },
            Counted::Rels(ty) => match ty {
                None => cx.tx.count_rels()?,
                Some(t) => match t.get(&cx.storage) {
                    Some(id) => cx.tx.count_rels_of_type(RelTypeId(id))?,
                    None => 0,
                },
            },
        };
        cx.db_hits += 1;
        row[self.slot] = Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
        Ok(true)
    }

    fn reset(&mut self) {
        self.input.reset();
    }
}

/// A seek through a relationship index or a composite node index (`SchemaIndexSeek`): for
/// each input row, the entities whose keys match, bound as the spec's target says.
pub(crate) struct SchemaSeek {
    spec: Arc<IndexSeekSpec>,
    input: BoxCursor,
    /// The rows still to bind for the current input row: (node or relationship, from, to).
    found: std::vec::IntoIter<(u64, u64, u64)>,
}

impl SchemaSeek {
    pub fn new(spec: Arc<IndexSeekSpec>, input: BoxCursor) -> Self {
        SchemaSeek {
            spec,
            input,
            found: Vec::new().into_iter(),
        }
    }

    /// The query for the current row; `None` when it can match nothing (a `null` value).
    fn query(&self, row: &mut Row, cx: &mut Cx) -> Result<Option<CompositeQuery>> {
        let mut prefix = Vec::with_capacity(self.spec.prefix.len());
        for e in &self.spec.prefix {
            match e.eval(row, cx)? {
                Value::Null => return Ok(None),
                v => prefix.push(v),
            }
        }
        Ok(index_query(&self.spec.seek, row, cx)?.map(|last| CompositeQuery { prefix, last }))
    }

    /// Everything the seek binds for the current input row.
    fn open(&self, row: &mut Row, cx: &mut Cx) -> Result<Vec<(u64, u64, u64)>> {
        let spec = &*self.spec;
        let Some(keys) = spec
            .keys
            .iter()
            .map(|k| k.key(&cx.storage).map(|k| k.0))
            .collect::<Option<Vec<u32>>>()
        else {
            return Ok(Vec::new());
        };
        let Some(query) = self.query(row, cx)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        match &spec.target {
            SeekTarget::Node { .. } => {
                let Some(label) = spec.token.label(&cx.storage) else {
                    return Ok(out);
                };
                if cx.tx.has_index_for(false, label.0, &keys, &query) {
                    for id in cx.tx.node_index_seek(label.0, &keys, query)? {
                        cx.tick()?;
                        let id = id?.0;
                        out.push((id, id, id));
                    }
                } else {
                    // The index went away after planning: scan the label and test each node.
                    for id in cx.tx.scan_label(label)? {
                        let id = id?;
                        cx.tick()?;
                        let mut values = Vec::with_capacity(keys.len());
                        for k in &keys {
                            values.push(cx.tx.node_property(id, PropKeyId(*k))?);
                        }
                        if composite_matches(&query, &values) {
                            out.push((id.0, id.0, id.0));
                        }
                    }
                }
            }
            SeekTarget::Rel { dir, .. } => {
                let Some(ty) = spec.token.rel_type(&cx.storage) else {
                    return Ok(out);
                };
                let mut rels = Vec::new();
                if cx.tx.has_index_for(true, ty.0, &keys, &query) {
                    for rel in cx.tx.rel_index_seek(ty.0, &keys, query)? {
                        cx.tick()?;
                        rels.push(rel?);
                    }
                } else {
                    for rel in cx.tx.scan_rels(&[ty])? {
                        let rel = rel?;
                        cx.tick()?;
                        let mut values = Vec::with_capacity(keys.len());
                        for k in &keys {
                            values.push(cx.tx.rel_property(rel, PropKeyId(*k))?);
                        }
                        if composite_matches(&query, &values) {
                            rels.push(rel);
                        }
                    }
                }
                for rel in rels {
                    let (start, end, _) = cx.tx.rel_endpoints(rel)?;
                    match dir {
                        Direction::Out => out.push((rel.0, start.0, end.0)),
                        Direction::In => out.push((rel.0, end.0, start.0)),
                        Direction::Both => {
                            out.push((rel.0, start.0, end.0));
                            if start != end {
                                out.push((rel.0, end.0, start.0));
                            }
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

/// Whether values (one per key, `None` when missing) satisfy a composite query, for the
/// fallback path without an index.
fn composite_matches(query: &CompositeQuery, values: &[Option<Value>]) -> bool {
    let Some((last, leading)) = values.split_last() else {
        return false;
    };
    leading.len() == query.prefix.len()
        && leading.iter().zip(&query.prefix).all(|(v, q)| {
            v.as_ref()
                .is_some_and(|v| quiver_value::equals(v, q) == Some(true))
        })
        && last.as_ref().is_some_and(|v| query.last.matches(v))
}

impl Cursor for SchemaSeek {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        loop {
            cx.tick()?;
            if let Some((id, from, to)) = self.found.next() {
                cx.db_hits += 1;
                match &self.spec.target {
                    SeekTarget::Node { slot } => row[*slot] = node_value(NodeId(id)),
                    SeekTarget::Rel {
                        rel,
                        from: f,
                        to: t,
                        exclude,
                        exclude_lists,
                        ..
                    } => {
                        if super::expand::excluded(id, row, exclude, exclude_lists) {
                            continue;
                        }
                        row[*f] = node_value(NodeId(from));
                        row[*t] = node_value(NodeId(to));
                        row[*rel] = rel_value(RelId(id));
                    }
                }
                return Ok(true);
            }
            if !self.input.next(cx, row)? {
                return Ok(false);
            }
            self.found = self.open(row, cx)?.into_iter();
        }
    }

    fn reset(&mut self) {
        self.found = Vec::new().into_iter();
        self.input.reset();
    }
}
