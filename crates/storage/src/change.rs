//! Change capture: what a committed transaction changed, as a reader outside the store needs
//! it (change data capture, `db.cdc.*`).
//!
//! A redo record says how to redo a transaction, not what it did: a property set carries the
//! new value only, a deletion the id only. With capture on ([`Capture`], Neo4j's
//! `txLogEnrichment`), each commit that changes data also logs, in its own record:
//!
//! - one [`RedoOp::TxContext`]: who committed it and from where (the [`ChangeContext`] its
//!   engine gave the transaction), and the capture mode;
//! - one [`RedoOp::Change`] per node or relationship whose state differs from before the
//!   transaction: its operation (`c`, `u`, `d`), its labels or type and ends, the properties
//!   of its key constraints, and its state before and after (whole in `FULL`, the changed
//!   properties only in `DIFF`).
//!
//! Both are *documents*: trees of maps, lists and property values, encoded here. The record is
//! then the change stream itself, in commit order, the same on every member of a cluster
//! (which replicates records), and as long-lived as the log's retention keeps it. Replay and
//! snapshots skip them: they change nothing in the store.
//!
//! The before state is read under the transaction's own write locks: no other transaction can
//! change an entity this one changed, so the newest committed state is the state before it.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use quiver_value::{Map, Value};

use crate::codec::{Reader, check_storable, put_value};
use crate::error::{Error, Result};
use crate::mvcc::View;
use crate::read;
use crate::redo::RedoOp;
use crate::schema::IndexKind;
use crate::storage::Storage;
use crate::txn::{Transaction, TxState};

/// How much of each change the log records: Neo4j's `txLogEnrichment` modes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Capture {
    /// No change is captured (the default): the log holds redo only.
    #[default]
    Off,
    /// An update's states hold the properties it changed (old and new values) only.
    Diff,
    /// Every state holds all of the entity's properties.
    Full,
}

impl Capture {
    const ALL: [Capture; 3] = [Capture::Off, Capture::Diff, Capture::Full];

    /// The mode as Neo4j spells it (`OFF`, `DIFF`, `FULL`).
    pub fn as_str(self) -> &'static str {
        match self {
            Capture::Off => "OFF",
            Capture::Diff => "DIFF",
            Capture::Full => "FULL",
        }
    }

    pub(crate) fn code(self) -> u8 {
        match self {
            Capture::Off => 0,
            Capture::Diff => 1,
            Capture::Full => 2,
        }
    }

    pub(crate) fn from_code(code: u8) -> Capture {
        Capture::ALL
            .into_iter()
            .find(|c| c.code() == code)
            .unwrap_or_default()
    }
}

impl std::str::FromStr for Capture {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Self, Self::Err> {
        Capture::ALL
            .into_iter()
            .find(|c| c.as_str().eq_ignore_ascii_case(text))
            .ok_or_else(|| format!("unknown capture mode `{text}`: expected OFF, DIFF or FULL"))
    }
}

impl std::fmt::Display for Capture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who runs a transaction and from where, as its change events name it. The engine gives it
/// to each write transaction while capture is on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChangeContext {
    pub executing_user: Option<Arc<str>>,
    pub authenticated_user: Option<Arc<str>>,
    /// `bolt`, `http` or `embedded`.
    pub connection_type: Option<Arc<str>>,
    /// The client's address.
    pub client: Option<Arc<str>>,
    /// When the transaction began, in Unix microseconds.
    pub start_micros: i64,
    /// The client's transaction metadata.
    pub metadata: Map,
}

impl ChangeContext {
    fn document(&self, capture: Capture) -> Value {
        let text = |v: &Option<Arc<str>>| v.clone().map_or(Value::Null, Value::String);
        let mut doc = Map::new();
        doc.insert("captureMode".into(), Value::from(capture.as_str()));
        doc.insert("executingUser".into(), text(&self.executing_user));
        doc.insert("authenticatedUser".into(), text(&self.authenticated_user));
        doc.insert("connectionType".into(), text(&self.connection_type));
        doc.insert("connectionClient".into(), text(&self.client));
        doc.insert("txStartTime".into(), Value::Int(self.start_micros));
        doc.insert(
            "txMetadata".into(),
            Value::Map(Arc::new(self.metadata.clone())),
        );
        Value::Map(Arc::new(doc))
    }
}

const DOC_NULL: u8 = 0;
const DOC_MAP: u8 = 1;
const DOC_LIST: u8 = 2;
const DOC_VALUE: u8 = 3;
/// Documents nest maps and lists no deeper than this; deeper input is corrupt.
const DOC_DEPTH_MAX: usize = 32;

/// Appends `value` as a document: null, maps and lists at any depth, property values as the
/// store encodes them. A value no property can hold (a node, a path) is written as null.
pub(crate) fn put_document(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Map(map) => {
            out.push(DOC_MAP);
            crate::codec::put_varint(out, map.len() as u64);
            for (key, item) in map.iter() {
                crate::codec::put_str(out, key);
                put_document(out, item);
            }
        }
        Value::List(items) => {
            out.push(DOC_LIST);
            crate::codec::put_varint(out, items.len() as u64);
            for item in items.iter() {
                put_document(out, item);
            }
        }
        Value::Null | Value::Node(_) | Value::Relationship(_) | Value::Path(_) => {
            out.push(DOC_NULL);
        }
        scalar if check_storable(scalar).is_ok() => {
            out.push(DOC_VALUE);
            put_value(out, scalar);
        }
        _ => out.push(DOC_NULL),
    }
}

/// Reads a document [`put_document`] wrote; malformed bytes are an error, never a panic.
pub(crate) fn read_document(bytes: &[u8]) -> Result<Value> {
    let mut r = Reader::new(bytes);
    let value = document(&mut r, 0)?;
    if !r.at_end() {
        return Err(r.corrupt("trailing bytes after a change document"));
    }
    Ok(value)
}

fn document(r: &mut Reader<'_>, depth: usize) -> Result<Value> {
    if depth > DOC_DEPTH_MAX {
        return Err(r.corrupt("change document nested too deeply"));
    }
    Ok(match r.u8()? {
        DOC_NULL => Value::Null,
        DOC_MAP => {
            let n = r.len()?;
            let mut map = Map::new();
            for _ in 0..n {
                let key: Arc<str> = r.str()?.into();
                map.insert(key, document(r, depth + 1)?);
            }
            Value::Map(Arc::new(map))
        }
        DOC_LIST => {
            let n = r.len()?;
            let mut items = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                items.push(document(r, depth + 1)?);
            }
            Value::List(items.into())
        }
        DOC_VALUE => r.value()?,
        _ => return Err(r.corrupt("unknown change document tag")),
    })
}

/// An entity's labels (nodes only; by name, with their ids) and properties, by name.
struct State {
    labels: Vec<(Arc<str>, u32)>,
    props: Map,
}

impl State {
    fn label_names(&self) -> Value {
        Value::List(
            self.labels
                .iter()
                .map(|(name, _)| Value::String(name.clone()))
                .collect(),
        )
    }
}

fn operation(before: Option<&State>, after: Option<&State>) -> Option<&'static str> {
    match (before, after) {
        (None, Some(_)) => Some("c"),
        (Some(_), None) => Some("d"),
        (Some(b), Some(a)) if b.labels != a.labels || b.props != a.props => Some("u"),
        _ => None,
    }
}

fn map(entries: impl IntoIterator<Item = (&'static str, Value)>) -> Value {
    Value::Map(Arc::new(
        entries.into_iter().map(|(k, v)| (k.into(), v)).collect(),
    ))
}

/// The properties a state shows: all of them, or in `DIFF` those that differ from `other`.
fn shown(state: &State, other: Option<&State>, capture: Capture) -> Value {
    let props = match (capture, other) {
        (Capture::Diff, Some(other)) => state
            .props
            .iter()
            .filter(|(k, v)| other.props.get(*k) != Some(*v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => state.props.clone(),
    };
    Value::Map(Arc::new(props))
}

impl Storage {
    /// The capture mode commits log changes with (see [`Capture`]).
    pub fn capture(&self) -> Capture {
        Capture::from_code(self.capture.load(Ordering::Relaxed))
    }

    /// Sets the capture mode for the commits from now on; earlier ones keep what they logged.
    pub fn set_capture(&self, capture: Capture) {
        self.capture.store(capture.code(), Ordering::Relaxed);
    }

    fn state_of(&self, labels: Option<&[u32]>, props: Vec<(u32, Value)>) -> Result<State> {
        let mut named = labels
            .unwrap_or_default()
            .iter()
            .map(|&l| Ok((self.labels.name_or_err(l)?, l)))
            .collect::<Result<Vec<_>>>()?;
        named.sort();
        let mut map = Map::new();
        for (k, v) in props {
            map.insert(self.keys.name_or_err(k)?, v);
        }
        Ok(State {
            labels: named,
            props: map,
        })
    }

    /// A node's key constraint properties (`{Label: [{key: value, ...}, ...]}`), read from
    /// `state`: one map per key constraint on each of its labels.
    fn node_keys(&self, schema: &crate::schema::Schema, state: &State) -> Result<Value> {
        let mut keys = Map::new();
        for (label, id) in &state.labels {
            let found = self.key_maps(schema.on_label(*id), state)?;
            if !found.is_empty() {
                keys.insert(label.clone(), Value::List(found.into()));
            }
        }
        Ok(Value::Map(Arc::new(keys)))
    }

    fn key_maps<'a>(
        &self,
        defs: impl Iterator<Item = &'a Arc<crate::schema::IndexDef>>,
        state: &State,
    ) -> Result<Vec<Value>> {
        let mut found = Vec::new();
        for def in defs.filter(|d| d.kind == IndexKind::Key) {
            let mut key = Map::new();
            for &k in &def.keys {
                let name = self.keys.name_or_err(k)?;
                let value = state.props.get(&name).cloned().unwrap_or(Value::Null);
                key.insert(name, value);
            }
            found.push(Value::Map(Arc::new(key)));
        }
        Ok(found)
    }
}

impl Transaction {
    /// Gives the transaction the context its change events name (see [`ChangeContext`]).
    pub fn set_change_context(&self, context: ChangeContext) {
        self.inner.state.lock().context = Some(Box::new(context));
    }

    /// The change ops of the transaction's commit under `capture` (none when it changed no
    /// entity's state): its context, then its nodes created or changed, its relationships,
    /// and last its nodes deleted, the order a reader replaying them can follow.
    pub(crate) fn capture_changes(&self, st: &TxState, capture: Capture) -> Result<Vec<RedoOp>> {
        let tx = &*self.inner;
        let storage = &*tx.storage;
        let reading = Reading {
            storage,
            schema: storage.schema.read().clone(),
            before: View {
                snapshot: storage.last_committed(),
                txid: 0,
                command: 0,
            },
            after: View {
                command: u32::MAX,
                ..tx.view()
            },
            capture,
        };
        let mut created_or_updated = Vec::new();
        let mut deleted = Vec::new();
        for &id in &st.touched_nodes {
            if let Some((op, document)) = reading.node_change(id)? {
                let to = if op == "d" {
                    &mut deleted
                } else {
                    &mut created_or_updated
                };
                to.push(RedoOp::Change { document });
            }
        }
        let mut rels = Vec::new();
        for &id in &st.touched_rels {
            if let Some(document) = reading.rel_change(id)? {
                rels.push(RedoOp::Change { document });
            }
        }
        if created_or_updated.is_empty() && rels.is_empty() && deleted.is_empty() {
            return Ok(Vec::new());
        }
        let context = st.context.as_deref().cloned().unwrap_or_default();
        let mut ops = Vec::with_capacity(1 + created_or_updated.len() + rels.len() + deleted.len());
        ops.push(RedoOp::TxContext {
            document: context.document(capture),
        });
        ops.extend(created_or_updated);
        ops.extend(rels);
        ops.extend(deleted);
        Ok(ops)
    }
}

/// What a commit's capture reads with: the store and its schema, the views before and after
/// the transaction, and the mode.
struct Reading<'a> {
    storage: &'a Storage,
    schema: Arc<crate::schema::Schema>,
    before: View,
    after: View,
    capture: Capture,
}

fn corrupt(reason: &'static str) -> Error {
    Error::Corrupt { offset: 0, reason }
}

impl Reading<'_> {
    /// A node's labels and properties at `view`; `None` where it does not exist.
    fn node_state(
        &self,
        g: &crate::arena::Locked<'_, crate::graph::NodeRec>,
        view: &View,
    ) -> Result<Option<State>> {
        let Some(labels) = read::node_labels(g, view)? else {
            return Ok(None);
        };
        let props = read::node_props(g, view)?.unwrap_or_default();
        self.storage.state_of(Some(&labels), props).map(Some)
    }

    /// A state as an event shows it: labels (for nodes) and properties, whole or in `DIFF`
    /// the ones that differ from `other`.
    fn state_document(&self, state: Option<&State>, other: Option<&State>, node: bool) -> Value {
        let Some(state) = state else {
            return Value::Null;
        };
        let properties = ("properties", shown(state, other, self.capture));
        if node {
            map([("labels", state.label_names()), properties])
        } else {
            map([properties])
        }
    }

    fn states(&self, old: Option<&State>, new: Option<&State>, node: bool) -> Value {
        map([
            ("before", self.state_document(old, new, node)),
            ("after", self.state_document(new, old, node)),
        ])
    }

    /// A relationship's end as its change event names it: id, labels and keys after the
    /// transaction (or, for a node it deleted, before).
    fn end_document(&self, id: u64) -> Result<Value> {
        let Some(slot) = self.storage.nodes.get(id) else {
            return Ok(Value::Null);
        };
        let state = {
            let g = slot.lock();
            match self.node_state(&g, &self.after)? {
                Some(state) => Some(state),
                None => self.node_state(&g, &self.before)?,
            }
        };
        let Some(state) = state else {
            return Ok(Value::Null);
        };
        Ok(map([
            ("id", Value::Int(id as i64)),
            ("labels", state.label_names()),
            ("keys", self.storage.node_keys(&self.schema, &state)?),
        ]))
    }

    /// A node's change (its operation and event), or `None` when its state did not change
    /// (a relationship added to it changes its adjacency, not its state).
    fn node_change(&self, id: u64) -> Result<Option<(&'static str, Value)>> {
        let Some(slot) = self.storage.nodes.get(id) else {
            return Ok(None);
        };
        let (old, new) = {
            let g = slot.lock();
            (
                self.node_state(&g, &self.before)?,
                self.node_state(&g, &self.after)?,
            )
        };
        let Some(op) = operation(old.as_ref(), new.as_ref()) else {
            return Ok(None);
        };
        let keyed = new
            .as_ref()
            .or(old.as_ref())
            .ok_or_else(|| corrupt("a changed node with no state"))?;
        let document = map([
            ("eventType", Value::from("n")),
            ("id", Value::Int(id as i64)),
            ("operation", Value::from(op)),
            ("labels", keyed.label_names()),
            ("keys", self.storage.node_keys(&self.schema, keyed)?),
            ("state", self.states(old.as_ref(), new.as_ref(), true)),
        ]);
        Ok(Some((op, document)))
    }

    /// A relationship's event, or `None` when its state did not change.
    fn rel_change(&self, id: u64) -> Result<Option<Value>> {
        let storage = self.storage;
        let Some(slot) = storage.rels.get(id) else {
            return Ok(None);
        };
        let (start, ty, old, new) = {
            let g = slot.lock();
            (
                g.start(),
                g.ty(),
                read::rel_props(&g, &self.before)?,
                read::rel_props(&g, &self.after)?,
            )
        };
        let old = old.map(|p| storage.state_of(None, p)).transpose()?;
        let new = new.map(|p| storage.state_of(None, p)).transpose()?;
        let Some(op) = operation(old.as_ref(), new.as_ref()) else {
            return Ok(None);
        };
        let keyed = new
            .as_ref()
            .or(old.as_ref())
            .ok_or_else(|| corrupt("a changed relationship with no state"))?;
        let end = storage
            .nodes
            .get(start)
            .and_then(|s| read::rel_end(&s.lock(), id, ty))
            .ok_or_else(|| corrupt("a changed relationship with no end"))?;
        Ok(Some(map([
            ("eventType", Value::from("r")),
            ("id", Value::Int(id as i64)),
            ("operation", Value::from(op)),
            ("type", Value::String(storage.types.name_or_err(ty)?)),
            ("start", self.end_document(start)?),
            ("end", self.end_document(end)?),
            (
                "keys",
                Value::List(storage.key_maps(self.schema.on_type(ty), keyed)?.into()),
            ),
            ("state", self.states(old.as_ref(), new.as_ref(), false)),
        ])))
    }
}

/// The commit log read back: what change data capture reads changes from. The durability
/// layer installs it on the store ([`Storage::set_history`]); a store without one keeps no
/// history.
pub trait History: Send + Sync {
    /// The commits whose records can be read now: from the oldest the log still holds to the
    /// newest durable one. `None` when the log holds none.
    fn span(&self) -> std::result::Result<Option<(u64, u64)>, String>;

    /// Hands `each` the records of the commits after `after`, in commit order, until it
    /// returns `false` or the newest durable commit was handed over. Fails when the log no
    /// longer holds the commit after `after`.
    fn read_after(
        &self,
        after: u64,
        each: &mut dyn FnMut(u64, &[u8]) -> bool,
    ) -> std::result::Result<(), String>;
}

impl Storage {
    /// Installs the history change data capture reads (see [`History`]).
    pub fn set_history(&self, history: std::sync::Weak<dyn History>) {
        *self.history.write() = Some(history);
    }

    /// The installed history, while its owner lives.
    pub fn history(&self) -> Option<Arc<dyn History>> {
        self.history
            .read()
            .as_ref()
            .and_then(std::sync::Weak::upgrade)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_round_trips_maps_lists_nulls_and_property_values() {
        let inner = map([
            ("n", Value::Null),
            (
                "xs",
                Value::List(vec![Value::Int(1), Value::from("a")].into()),
            ),
        ]);
        let doc = map([
            ("a", Value::Int(-3)),
            ("b", inner),
            ("c", Value::Float(0.5)),
        ]);
        let mut out = Vec::new();
        put_document(&mut out, &doc);
        let back = read_document(&out).expect("decodes");
        assert_eq!(format!("{back:?}"), format!("{doc:?}"));
    }

    #[test]
    fn a_truncated_or_too_deep_document_is_an_error_not_a_panic() {
        let doc = map([("a", Value::List(vec![Value::from("x")].into()))]);
        let mut out = Vec::new();
        put_document(&mut out, &doc);
        for cut in 0..out.len() {
            assert!(read_document(&out[..cut]).is_err(), "cut at {cut}");
        }
        let deep = [DOC_LIST, 1].repeat(100_000);
        assert!(read_document(&deep).is_err());
    }

    #[test]
    fn capture_modes_read_as_neo4j_spells_them() {
        assert_eq!("full".parse::<Capture>(), Ok(Capture::Full));
        assert_eq!("DIFF".parse::<Capture>(), Ok(Capture::Diff));
        assert_eq!("Off".parse::<Capture>(), Ok(Capture::Off));
        assert!("everything".parse::<Capture>().is_err());
        for c in Capture::ALL {
            assert_eq!(Capture::from_code(c.code()), c);
        }
    }
}
