//! Redo records: the logical changes of one committed transaction, in a stable binary form.
//!
//! The commit log writes [`RedoRecord::encode`]'s bytes as they are; recovery decodes them and
//! replays them with `Storage::apply_redo`. Names, not token ids, travel in the record, so a
//! record means the same thing in any store.
//!
//! ```text
//! offset  size  field
//! 0       4     payload length, u32 LE: bytes that follow this field
//! 4       1     format version (1)
//! 5       8     commit number, u64 LE
//! 13      4     op count, u32 LE
//! 17      ...   ops, each: kind u8, then its fields in order:
//!                 id / start / end   u64 LE
//!                 name               u32 LE byte length, UTF-8 bytes
//!                 names              u32 LE count, then names
//!                 value              a tagged value (see `codec`)
//!                 props              u32 LE count, then (name, value) pairs
//!
//! kind  op                        fields
//! 1     CreateNode                id, labels: names, props
//! 2     DeleteNode                id
//! 3     SetNodeProperty           id, key: name, value
//! 4     RemoveNodeProperty        id, key: name
//! 5     AddLabel                  id, label: name
//! 6     RemoveLabel               id, label: name
//! 7     CreateRelationship        id, start, end, type: name, props
//! 8     DeleteRelationship        id
//! 9     SetRelationshipProperty   id, key: name, value
//! 10    RemoveRelationshipProperty id, key: name
//! 11    CreateIndex               name, label: name, key: name
//! 12    CreateUniqueConstraint    name, label: name, key: name
//! 13    DropIndex                 name
//! 14    DropConstraint            name
//! 15    Security                  catalogue: u32 LE byte length, the catalogue's bytes
//!                                 (see `security`): it replaces the whole catalogue
//! 16    CommitTime                Unix microseconds, i64 LE: when the committing store (a
//!                                 cluster's leader) took the commit number, under the
//!                                 commit lock; never earlier than the previous commit's.
//!                                 At most one per record, neither schema nor data; records
//!                                 written before it existed have none (time unknown)
//! 30    CreateVectorIndex         name, relationship: u64 (0 or 1), label or type: name,
//!                                 key: name, dimensions: u64, similarity: name,
//!                                 quantization: u64 (0 or 1), hnsw m: u64,
//!                                 hnsw ef_construction: u64
//!                                 (dropped by DropIndex); written before the search list
//!                                 could be configured, read with its default
//! 31    CreateFulltextIndex       name, entity u8 (0 nodes, 1 relationships), tokens: names,
//!                                 keys: names, analyzer: name, eventually consistent u8
//! 32    CreateSchemaIndex         name, entity u8 (0 nodes, 1 relationships), label or type:
//!                                 name, keys: names, kind u8 (0 range, 1 text, 2 point,
//!                                 3 uniqueness constraint, 4 key constraint): every index or
//!                                 constraint 11 and 12 cannot say (relationships, composite
//!                                 keys, text and point indexes, keys); dropped by DropIndex
//!                                 or DropConstraint
//! 33    CreateVectorIndex         30's fields, then hnsw ef_search: u64 (dropped by DropIndex)
//! 34    CreateVectorIndex         33's fields, then the keys a search may filter on: names
//!                                 (Cypher 25's `WITH [n.a, n.b]`; written only when there are
//!                                 some, so an index without them is still 33)
//! 36    CreatePropertyConstraint  IS NOT NULL: name, entity u8 (0 nodes, 1 relationships),
//!                                 label or type: name, key: name (dropped by DropConstraint)
//! 37    CreatePropertyConstraint  IS :: type: the fields of 36, then the type: name, in
//!                                 `PropertyTypes`' printed form (`STRING | INTEGER`)
//!                                 (dropped by DropConstraint; 38 and 39 are kept for more
//!                                 constraint kinds)
//! 40    TxContext                 u32 LE byte length, a change document (see `change`):
//!                                 who committed the transaction and how its changes were
//!                                 captured; present only with change capture on, before
//!                                 the record's `Change` ops. Neither schema nor data
//! 41    Change                    u32 LE byte length, a change document: one entity's
//!                                 operation, labels or type and ends, keys, and states
//!                                 before and after. Neither schema nor data
//! ```

use std::sync::Arc;

use quiver_value::Value;

use crate::codec::{Reader, put_value};
use crate::error::{Error, Result};
use crate::security::Security;

pub const REDO_FORMAT_VERSION: u8 = 1;
/// A record larger than this is refused when decoding: no transaction legitimately writes it,
/// and a corrupt length must not make recovery allocate without bound.
pub const RECORD_BYTES_MAX: usize = 1 << 30;
const HEADER_BYTES: usize = 17;
// Length (4), format version (1), commit number (8), op count (4), as the diagram above says.
const _: () = assert!(HEADER_BYTES == 4 + 1 + 8 + 4);

/// One logical change.
#[derive(Clone, Debug)]
pub enum RedoOp {
    CreateNode {
        id: u64,
        labels: Vec<Arc<str>>,
        props: Vec<(Arc<str>, Value)>,
    },
    DeleteNode {
        id: u64,
    },
    SetNodeProperty {
        id: u64,
        key: Arc<str>,
        value: Value,
    },
    RemoveNodeProperty {
        id: u64,
        key: Arc<str>,
    },
    AddLabel {
        id: u64,
        label: Arc<str>,
    },
    RemoveLabel {
        id: u64,
        label: Arc<str>,
    },
    CreateRelationship {
        id: u64,
        start: u64,
        end: u64,
        rel_type: Arc<str>,
        props: Vec<(Arc<str>, Value)>,
    },
    DeleteRelationship {
        id: u64,
    },
    SetRelationshipProperty {
        id: u64,
        key: Arc<str>,
        value: Value,
    },
    RemoveRelationshipProperty {
        id: u64,
        key: Arc<str>,
    },
    CreateIndex {
        name: String,
        label: Arc<str>,
        key: Arc<str>,
    },
    CreateUniqueConstraint {
        name: String,
        label: Arc<str>,
        key: Arc<str>,
    },
    DropIndex {
        name: String,
    },
    DropConstraint {
        name: String,
    },
    /// The users and roles after the transaction, whole.
    Security {
        catalogue: Arc<Security>,
    },
    /// When the transaction committed, in Unix microseconds: a stamp on the record, not a
    /// change (see [`RedoRecord::commit_time`]).
    CommitTime {
        micros: i64,
    },
    /// Who committed the transaction, for its change events (see `change`): an annotation,
    /// not a change.
    TxContext {
        document: Value,
    },
    /// One entity's change as change data capture reports it: an annotation, not a change
    /// (the ops before it made the change).
    Change {
        document: Value,
    },
    CreateVectorIndex {
        name: String,
        relationship: bool,
        token: Arc<str>,
        key: Arc<str>,
        config: crate::spec::VectorConfig,
        /// The keys a search may filter on inside the index.
        with_properties: Vec<Arc<str>>,
    },
    /// Dropped by [`RedoOp::DropIndex`], like every index.
    CreateFulltextIndex(crate::spec::FulltextSpec),
    /// A property existence or type constraint; dropped by [`RedoOp::DropConstraint`].
    CreatePropertyConstraint(crate::spec::PropertyConstraintSpec),
    /// An index or constraint over relationships, composite keys, or of a kind
    /// `CreateIndex` and `CreateUniqueConstraint` cannot name.
    CreateSchemaIndex {
        name: String,
        relationship: bool,
        token: Arc<str>,
        keys: Vec<Arc<str>>,
        kind: crate::schema::IndexKind,
    },
}

impl RedoOp {
    /// Whether the op only annotates the record (its commit time, its captured changes):
    /// replaying it changes nothing.
    pub fn is_annotation(&self) -> bool {
        matches!(
            self,
            RedoOp::CommitTime { .. } | RedoOp::TxContext { .. } | RedoOp::Change { .. }
        )
    }

    /// Whether the op changes the schema (a transaction changes the schema or the data,
    /// never both).
    pub fn is_schema(&self) -> bool {
        matches!(
            self,
            RedoOp::CreateIndex { .. }
                | RedoOp::CreateUniqueConstraint { .. }
                | RedoOp::DropIndex { .. }
                | RedoOp::DropConstraint { .. }
                | RedoOp::Security { .. }
                | RedoOp::CreateVectorIndex { .. }
                | RedoOp::CreateFulltextIndex(_)
                | RedoOp::CreatePropertyConstraint(_)
                | RedoOp::CreateSchemaIndex { .. }
        )
    }
}

/// The changes of one transaction, stamped with its commit number (and, in its
/// [`RedoOp::CommitTime`] op, with its commit time).
#[derive(Clone, Debug, Default)]
pub struct RedoRecord {
    pub commit: u64,
    pub ops: Vec<RedoOp>,
}

impl RedoRecord {
    /// When the transaction committed, in Unix microseconds; `None` for a record written
    /// before commit times were logged.
    pub fn commit_time(&self) -> Option<i64> {
        self.ops.iter().find_map(|op| match op {
            RedoOp::CommitTime { micros } => Some(*micros),
            _ => None,
        })
    }

    /// Whether the record changes the schema only: it has a change, and every change is a
    /// schema op (the commit time stamp is no change).
    pub fn changes_schema_only(&self) -> bool {
        let mut changes = self.ops.iter().filter(|op| !op.is_annotation()).peekable();
        changes.peek().is_some() && changes.all(RedoOp::is_schema)
    }
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_name(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len() as u32);
    out.extend_from_slice(s.as_bytes());
}

fn put_props(out: &mut Vec<u8>, props: &[(Arc<str>, Value)]) {
    put_u32(out, props.len() as u32);
    for (k, v) in props {
        put_name(out, k);
        put_value(out, v);
    }
}

impl RedoRecord {
    /// The record's bytes, length prefix included.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.ops.len() * 32);
        put_u32(&mut out, 0);
        out.push(REDO_FORMAT_VERSION);
        put_u64(&mut out, self.commit);
        put_u32(&mut out, self.ops.len() as u32);
        for op in &self.ops {
            encode_op(&mut out, op);
        }
        let payload = (out.len() - 4) as u32;
        out[..4].copy_from_slice(&payload.to_le_bytes());
        out
    }

    /// Decodes one record from the front of `bytes`; returns it and the bytes it used.
    /// Truncated or malformed input is an error, never a panic.
    pub fn decode(bytes: &[u8]) -> Result<(RedoRecord, usize)> {
        let (record, used) = RedoRecordRef::decode(bytes)?;
        let ops = record
            .ops
            .iter()
            .map(RedoOpRef::to_op)
            .collect::<Result<Vec<_>>>()?;
        Ok((
            RedoRecord {
                commit: record.commit,
                ops,
            },
            used,
        ))
    }
}

/// A record decoded in place: every name and value borrowed from the record's bytes, which
/// [`RedoRecordRef::decode`] has checked as completely as [`RedoRecord::decode`] does (the
/// latter is built on it). Recovery replays records in this form, so decoding costs no
/// allocation per name or property.
#[derive(Clone, Debug, Default)]
pub struct RedoRecordRef<'a> {
    pub commit: u64,
    pub ops: Vec<RedoOpRef<'a>>,
}

/// One encoded property value of a record, checked when the record was decoded (as
/// `check_storable` checks a value), in the encoding property blobs use too.
#[derive(Clone, Copy, Debug)]
pub struct RawValue<'a>(&'a [u8]);

impl<'a> RawValue<'a> {
    /// The value, built (an allocation for strings and the like).
    pub fn value(self) -> Result<Value> {
        Reader::new(self.0).value()
    }

    /// The encoded bytes, tag included.
    pub(crate) fn bytes(self) -> &'a [u8] {
        self.0
    }
}

/// A change document in a decoded record (see `change`): kinds 40 and 41.
#[derive(Clone, Copy, Debug)]
pub struct RawDocument<'a>(&'a [u8]);

impl RawDocument<'_> {
    /// The document, checked as it is built: malformed bytes are an error.
    pub fn value(self) -> Result<Value> {
        crate::change::read_document(self.0)
    }
}

/// A list of names in a decoded record. Only [`RedoRecordRef::decode`] makes one, after
/// checking every name in it, so walking it cannot fail.
#[derive(Clone, Copy, Debug)]
pub struct NamesRef<'a> {
    bytes: &'a [u8],
    len: usize,
}

impl<'a> NamesRef<'a> {
    pub fn len(self) -> usize {
        self.len
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    pub fn iter(self) -> impl Iterator<Item = &'a str> {
        let mut r = Fields {
            r: Reader::new(self.bytes),
        };
        (0..self.len).map_while(move |_| r.name_ref().ok())
    }
}

/// A property list in a decoded record: (key name, value) pairs, checked like [`NamesRef`].
#[derive(Clone, Copy, Debug)]
pub struct PropsRef<'a> {
    bytes: &'a [u8],
    len: usize,
}

impl<'a> PropsRef<'a> {
    pub fn len(self) -> usize {
        self.len
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    pub fn iter(self) -> impl Iterator<Item = (&'a str, RawValue<'a>)> {
        let mut r = Fields {
            r: Reader::new(self.bytes),
        };
        (0..self.len).map_while(move |_| {
            let k = r.name_ref().ok()?;
            let at = r.r.pos();
            r.r.skip_value().ok()?;
            Some((k, RawValue(self.bytes.get(at..r.r.pos())?)))
        })
    }

    pub(crate) fn to_props(self) -> Result<Vec<(Arc<str>, Value)>> {
        self.iter()
            .map(|(k, v)| Ok((Arc::from(k), v.value()?)))
            .collect()
    }
}

/// [`RedoOp`] borrowing its names and values from the record's bytes.
#[derive(Clone, Copy, Debug)]
pub enum RedoOpRef<'a> {
    CreateNode {
        id: u64,
        labels: NamesRef<'a>,
        props: PropsRef<'a>,
    },
    DeleteNode {
        id: u64,
    },
    SetNodeProperty {
        id: u64,
        key: &'a str,
        value: RawValue<'a>,
    },
    RemoveNodeProperty {
        id: u64,
        key: &'a str,
    },
    AddLabel {
        id: u64,
        label: &'a str,
    },
    RemoveLabel {
        id: u64,
        label: &'a str,
    },
    CreateRelationship {
        id: u64,
        start: u64,
        end: u64,
        rel_type: &'a str,
        props: PropsRef<'a>,
    },
    DeleteRelationship {
        id: u64,
    },
    SetRelationshipProperty {
        id: u64,
        key: &'a str,
        value: RawValue<'a>,
    },
    RemoveRelationshipProperty {
        id: u64,
        key: &'a str,
    },
    CreateIndex {
        name: &'a str,
        label: &'a str,
        key: &'a str,
    },
    CreateUniqueConstraint {
        name: &'a str,
        label: &'a str,
        key: &'a str,
    },
    DropIndex {
        name: &'a str,
    },
    DropConstraint {
        name: &'a str,
    },
    /// The catalogue's bytes, checked when the record was decoded.
    Security {
        catalogue: &'a [u8],
    },
    CommitTime {
        micros: i64,
    },
    /// The document's bytes, read with [`RawDocument::value`].
    TxContext {
        document: RawDocument<'a>,
    },
    Change {
        document: RawDocument<'a>,
    },
    CreateVectorIndex {
        name: &'a str,
        relationship: bool,
        token: &'a str,
        key: &'a str,
        config: crate::spec::VectorConfig,
        with_properties: NamesRef<'a>,
    },
    CreateFulltextIndex {
        name: &'a str,
        relationships: bool,
        tokens: NamesRef<'a>,
        keys: NamesRef<'a>,
        analyzer: &'a str,
        eventually_consistent: bool,
    },
    CreatePropertyConstraint {
        name: &'a str,
        relationship: bool,
        token: &'a str,
        key: &'a str,
        /// Checked to parse when the record was decoded; `None` for `IS NOT NULL`.
        types: Option<&'a str>,
    },
    CreateSchemaIndex {
        name: &'a str,
        relationship: bool,
        token: &'a str,
        keys: NamesRef<'a>,
        kind: crate::schema::IndexKind,
    },
}

impl RedoOpRef<'_> {
    /// Whether the op only annotates the record (see [`RedoOp::is_annotation`]).
    pub fn is_annotation(&self) -> bool {
        matches!(
            self,
            RedoOpRef::CommitTime { .. } | RedoOpRef::TxContext { .. } | RedoOpRef::Change { .. }
        )
    }

    /// Whether the op changes the schema (see [`RedoOp::is_schema`]).
    pub fn is_schema(&self) -> bool {
        matches!(
            self,
            RedoOpRef::CreateIndex { .. }
                | RedoOpRef::CreateUniqueConstraint { .. }
                | RedoOpRef::DropIndex { .. }
                | RedoOpRef::DropConstraint { .. }
                | RedoOpRef::Security { .. }
                | RedoOpRef::CreateVectorIndex { .. }
                | RedoOpRef::CreateFulltextIndex { .. }
                | RedoOpRef::CreatePropertyConstraint { .. }
                | RedoOpRef::CreateSchemaIndex { .. }
        )
    }
}

impl<'a> RedoRecordRef<'a> {
    /// When the transaction committed (see [`RedoRecord::commit_time`]).
    pub fn commit_time(&self) -> Option<i64> {
        self.ops.iter().find_map(|op| match op {
            RedoOpRef::CommitTime { micros } => Some(*micros),
            _ => None,
        })
    }

    /// Whether the record changes the schema only (see [`RedoRecord::changes_schema_only`]).
    pub fn changes_schema_only(&self) -> bool {
        let mut changes = self.ops.iter().filter(|op| !op.is_annotation()).peekable();
        changes.peek().is_some() && changes.all(RedoOpRef::is_schema)
    }

    /// Decodes and checks one record from the front of `bytes`; returns it and the bytes it
    /// used. Truncated or malformed input is an error, never a panic.
    pub fn decode(bytes: &'a [u8]) -> Result<(RedoRecordRef<'a>, usize)> {
        let corrupt = |offset, reason| Error::Corrupt { offset, reason };
        let len_bytes = bytes.get(..4).ok_or(corrupt(0, "truncated length"))?;
        let mut a = [0u8; 4];
        a.copy_from_slice(len_bytes);
        let payload = u32::from_le_bytes(a) as usize;
        if payload > RECORD_BYTES_MAX {
            return Err(corrupt(0, "record too large"));
        }
        if payload + 4 < HEADER_BYTES {
            return Err(corrupt(0, "record too short"));
        }
        let body = bytes
            .get(4..4 + payload)
            .ok_or(corrupt(4, "truncated record"))?;
        let mut r = Fields {
            r: Reader::new(body),
        };
        if r.r.u8()? != REDO_FORMAT_VERSION {
            return Err(corrupt(4, "unknown format version"));
        }
        let commit = r.u64()?;
        let n = r.u32()? as usize;
        // Every op takes at least 9 bytes, so a count beyond that is corrupt.
        if n > payload / 9 + 1 {
            return Err(corrupt(13, "op count too large"));
        }
        let mut ops = Vec::with_capacity(n);
        for _ in 0..n {
            ops.push(r.op()?);
        }
        if !r.r.at_end() {
            return Err(corrupt(4 + r.r.pos(), "trailing bytes"));
        }
        let stamps = ops
            .iter()
            .filter(|op| matches!(op, RedoOpRef::CommitTime { .. }))
            .count();
        if stamps > 1 {
            return Err(corrupt(13, "more than one commit time"));
        }
        Ok((RedoRecordRef { commit, ops }, 4 + payload))
    }
}

fn encode_vector_index(
    out: &mut Vec<u8>,
    name: &str,
    relationship: bool,
    (token, key): (&str, &str),
    config: &crate::spec::VectorConfig,
    with_properties: &[Arc<str>],
) {
    out.push(if with_properties.is_empty() { 33 } else { 34 });
    put_name(out, name);
    put_u64(out, u64::from(relationship));
    put_name(out, token);
    put_name(out, key);
    put_u64(out, config.dimensions as u64);
    put_name(out, config.similarity.name());
    put_u64(out, u64::from(config.quantization));
    put_u64(out, config.hnsw_m as u64);
    put_u64(out, config.hnsw_ef_construction as u64);
    put_u64(out, config.hnsw_ef_search as u64);
    if !with_properties.is_empty() {
        put_u32(out, with_properties.len() as u32);
        for n in with_properties {
            put_name(out, n);
        }
    }
}

fn encode_op(out: &mut Vec<u8>, op: &RedoOp) {
    match op {
        RedoOp::CreateNode { id, labels, props } => {
            out.push(1);
            put_u64(out, *id);
            put_u32(out, labels.len() as u32);
            for l in labels {
                put_name(out, l);
            }
            put_props(out, props);
        }
        RedoOp::DeleteNode { id } => put_id(out, 2, *id),
        RedoOp::SetNodeProperty { id, key, value } => put_property(out, 3, *id, key, Some(value)),
        RedoOp::RemoveNodeProperty { id, key } => put_property(out, 4, *id, key, None),
        RedoOp::AddLabel { id, label } => put_property(out, 5, *id, label, None),
        RedoOp::RemoveLabel { id, label } => put_property(out, 6, *id, label, None),
        RedoOp::CreateRelationship {
            id,
            start,
            end,
            rel_type,
            props,
        } => {
            out.push(7);
            for n in [id, start, end] {
                put_u64(out, *n);
            }
            put_name(out, rel_type);
            put_props(out, props);
        }
        RedoOp::DeleteRelationship { id } => put_id(out, 8, *id),
        RedoOp::SetRelationshipProperty { id, key, value } => {
            put_property(out, 9, *id, key, Some(value));
        }
        RedoOp::RemoveRelationshipProperty { id, key } => put_property(out, 10, *id, key, None),
        RedoOp::CreateIndex { name, label, key } => put_names(out, 11, &[name, label, key]),
        RedoOp::CreateUniqueConstraint { name, label, key } => {
            put_names(out, 12, &[name, label, key]);
        }
        RedoOp::DropIndex { name } => put_names(out, 13, &[name]),
        RedoOp::DropConstraint { name } => put_names(out, 14, &[name]),
        RedoOp::CommitTime { micros } => {
            out.push(16);
            out.extend_from_slice(&micros.to_le_bytes());
        }
        RedoOp::TxContext { document } => put_document_op(out, 40, document),
        RedoOp::Change { document } => put_document_op(out, 41, document),
        RedoOp::Security { catalogue } => {
            out.push(15);
            let bytes = catalogue.encode();
            put_u32(out, bytes.len() as u32);
            out.extend_from_slice(&bytes);
        }
        RedoOp::CreateVectorIndex {
            name,
            relationship,
            token,
            key,
            config,
            with_properties,
        } => encode_vector_index(
            out,
            name,
            *relationship,
            (token, key),
            config,
            with_properties,
        ),
        RedoOp::CreateFulltextIndex(spec) => encode_fulltext_index(out, spec),
        RedoOp::CreateSchemaIndex {
            name,
            relationship,
            token,
            keys,
            kind,
        } => encode_schema_index(out, name, *relationship, (token, keys), *kind),
        RedoOp::CreatePropertyConstraint(spec) => encode_property_constraint(out, spec),
    }
}

/// Kinds 2 and 8: an op that names only an entity.
fn put_id(out: &mut Vec<u8>, kind: u8, id: u64) {
    out.push(kind);
    put_u64(out, id);
}

/// Kinds 3 to 6 and 9, 10: an entity, a name, and for a set its value.
fn put_property(out: &mut Vec<u8>, kind: u8, id: u64, name: &str, value: Option<&Value>) {
    put_id(out, kind, id);
    put_name(out, name);
    if let Some(value) = value {
        put_value(out, value);
    }
}

/// Kinds 40 and 41: a change document, its length first.
fn put_document_op(out: &mut Vec<u8>, kind: u8, document: &Value) {
    out.push(kind);
    // The length goes before the document: written in place once the document is.
    let at = out.len();
    put_u32(out, 0);
    crate::change::put_document(out, document);
    let len = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

/// Kinds 11 to 14: names only.
fn put_names(out: &mut Vec<u8>, kind: u8, names: &[&str]) {
    out.push(kind);
    for name in names {
        put_name(out, name);
    }
}

/// Kinds 36 (`IS NOT NULL`) and 37 (`IS :: type`), `CreatePropertyConstraint`.
fn encode_property_constraint(out: &mut Vec<u8>, spec: &crate::spec::PropertyConstraintSpec) {
    out.push(if spec.types.is_some() { 37 } else { 36 });
    put_name(out, &spec.name);
    out.push(u8::from(spec.relationship));
    put_name(out, &spec.token);
    put_name(out, &spec.key);
    if let Some(types) = &spec.types {
        put_name(out, &types.to_string());
    }
}

/// Kind 32, `CreateSchemaIndex`.
fn encode_schema_index(
    out: &mut Vec<u8>,
    name: &str,
    relationship: bool,
    (token, keys): (&str, &[Arc<str>]),
    kind: crate::schema::IndexKind,
) {
    out.push(32);
    put_name(out, name);
    out.push(u8::from(relationship));
    put_name(out, token);
    put_u32(out, keys.len() as u32);
    for k in keys {
        put_name(out, k);
    }
    out.push(kind.code());
}

/// Kind 31, `CreateFulltextIndex`.
fn encode_fulltext_index(out: &mut Vec<u8>, spec: &crate::spec::FulltextSpec) {
    out.push(31);
    put_name(out, &spec.name);
    out.push(u8::from(
        spec.entity == crate::spec::FulltextEntity::Relationship,
    ));
    for list in [&spec.tokens, &spec.keys] {
        put_u32(out, list.len() as u32);
        for n in list {
            put_name(out, n);
        }
    }
    put_name(out, &spec.analyzer);
    out.push(u8::from(spec.eventually_consistent));
}

struct Fields<'a> {
    r: Reader<'a>,
}

impl<'a> Fields<'a> {
    fn u32(&mut self) -> Result<u32> {
        let b = self.r.take(4)?;
        let mut a = [0u8; 4];
        a.copy_from_slice(b);
        Ok(u32::from_le_bytes(a))
    }

    fn u64(&mut self) -> Result<u64> {
        let b = self.r.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A u64 that sizes something in memory: a corrupt one must not ask for an allocation.
    fn size(&mut self) -> Result<usize> {
        let n = self.u64()?;
        if n > u64::from(u32::MAX) {
            return Err(self.r.corrupt("size too large"));
        }
        Ok(n as usize)
    }
    fn flag(&mut self) -> Result<bool> {
        match self.r.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(self.r.corrupt("a flag that is neither 0 nor 1")),
        }
    }

    fn name_ref(&mut self) -> Result<&'a str> {
        let n = self.u32()? as usize;
        let b = self.r.take(n)?;
        std::str::from_utf8(b).map_err(|_| self.r.corrupt("invalid UTF-8"))
    }

    fn value(&mut self) -> Result<RawValue<'a>> {
        self.r.checked_value().map(RawValue)
    }

    /// A change document's span; its content is checked when it is read
    /// ([`RawDocument::value`]), since replay never reads it.
    fn document(&mut self) -> Result<RawDocument<'a>> {
        let n = self.count()?;
        self.r.take(n).map(RawDocument)
    }

    fn count(&mut self) -> Result<usize> {
        let n = self.u32()? as usize;
        if n > RECORD_BYTES_MAX / 4 {
            return Err(self.r.corrupt("count too large"));
        }
        Ok(n)
    }

    /// Checks `n` names and returns their span.
    fn names(&mut self) -> Result<NamesRef<'a>> {
        let len = self.count()?;
        let at = self.r.pos();
        for _ in 0..len {
            self.name_ref()?;
        }
        let bytes = self.r.spanned(at);
        Ok(NamesRef { bytes, len })
    }

    /// Checks a property list and returns its span.
    fn props(&mut self) -> Result<PropsRef<'a>> {
        let len = self.count()?;
        let at = self.r.pos();
        for _ in 0..len {
            self.name_ref()?;
            self.value()?;
        }
        let bytes = self.r.spanned(at);
        Ok(PropsRef { bytes, len })
    }

    /// The fields of kind 32, `CreateSchemaIndex`.
    fn schema_index(&mut self) -> Result<RedoOpRef<'a>> {
        Ok(RedoOpRef::CreateSchemaIndex {
            name: self.name_ref()?,
            relationship: self.flag()?,
            token: self.name_ref()?,
            keys: self.names()?,
            kind: crate::schema::IndexKind::from_code(self.r.u8()?)
                .ok_or_else(|| self.r.corrupt("unknown index kind"))?,
        })
    }

    fn op(&mut self) -> Result<RedoOpRef<'a>> {
        let kind = self.r.u8()?;
        Ok(match kind {
            1 => RedoOpRef::CreateNode {
                id: self.u64()?,
                labels: self.names()?,
                props: self.props()?,
            },
            2 => RedoOpRef::DeleteNode { id: self.u64()? },
            3 => RedoOpRef::SetNodeProperty {
                id: self.u64()?,
                key: self.name_ref()?,
                value: self.value()?,
            },
            4 => RedoOpRef::RemoveNodeProperty {
                id: self.u64()?,
                key: self.name_ref()?,
            },
            5 => RedoOpRef::AddLabel {
                id: self.u64()?,
                label: self.name_ref()?,
            },
            6 => RedoOpRef::RemoveLabel {
                id: self.u64()?,
                label: self.name_ref()?,
            },
            7 => RedoOpRef::CreateRelationship {
                id: self.u64()?,
                start: self.u64()?,
                end: self.u64()?,
                rel_type: self.name_ref()?,
                props: self.props()?,
            },
            8 => RedoOpRef::DeleteRelationship { id: self.u64()? },
            9 => RedoOpRef::SetRelationshipProperty {
                id: self.u64()?,
                key: self.name_ref()?,
                value: self.value()?,
            },
            10 => RedoOpRef::RemoveRelationshipProperty {
                id: self.u64()?,
                key: self.name_ref()?,
            },
            11 => RedoOpRef::CreateIndex {
                name: self.name_ref()?,
                label: self.name_ref()?,
                key: self.name_ref()?,
            },
            12 => RedoOpRef::CreateUniqueConstraint {
                name: self.name_ref()?,
                label: self.name_ref()?,
                key: self.name_ref()?,
            },
            13 => RedoOpRef::DropIndex {
                name: self.name_ref()?,
            },
            14 => RedoOpRef::DropConstraint {
                name: self.name_ref()?,
            },
            16 => RedoOpRef::CommitTime {
                micros: self.u64()? as i64,
            },
            40 => RedoOpRef::TxContext {
                document: self.document()?,
            },
            41 => RedoOpRef::Change {
                document: self.document()?,
            },
            15 => {
                let n = self.count()?;
                let catalogue = self.r.take(n)?;
                Security::decode(catalogue)?;
                RedoOpRef::Security { catalogue }
            }
            30 | 33 | 34 => self.vector_index(kind)?,
            31 => RedoOpRef::CreateFulltextIndex {
                name: self.name_ref()?,
                relationships: self.flag()?,
                tokens: self.names()?,
                keys: self.names()?,
                analyzer: self.name_ref()?,
                eventually_consistent: self.flag()?,
            },
            36 | 37 => self.property_constraint(kind)?,
            32 => self.schema_index()?,
            _ => return Err(self.r.corrupt("unknown op kind")),
        })
    }

    /// Kinds 30, 33 and 34, `CreateVectorIndex` without and with its search list, and with
    /// the keys a search may filter on.
    fn vector_index(&mut self, kind: u8) -> Result<RedoOpRef<'a>> {
        let name = self.name_ref()?;
        let relationship = self.u64()? != 0;
        let token = self.name_ref()?;
        let key = self.name_ref()?;
        let dimensions = self.size()?;
        let similarity = crate::spec::Similarity::parse(self.name_ref()?)
            .ok_or_else(|| self.r.corrupt("unknown similarity function"))?;
        let quantization = self.u64()? != 0;
        let hnsw_m = self.size()?;
        let hnsw_ef_construction = self.size()?;
        let hnsw_ef_search = if kind >= 33 {
            self.size()?
        } else {
            crate::spec::HNSW_EF_SEARCH_DEFAULT
        };
        let with_properties = if kind == 34 {
            self.names()?
        } else {
            NamesRef { bytes: &[], len: 0 }
        };
        Ok(RedoOpRef::CreateVectorIndex {
            name,
            relationship,
            token,
            key,
            config: crate::spec::VectorConfig {
                dimensions,
                similarity,
                quantization,
                hnsw_m,
                hnsw_ef_construction,
                hnsw_ef_search,
            },
            with_properties,
        })
    }

    /// Kinds 36 (`IS NOT NULL`) and 37 (`IS :: type`), `CreatePropertyConstraint`.
    fn property_constraint(&mut self, kind: u8) -> Result<RedoOpRef<'a>> {
        let name = self.name_ref()?;
        let relationship = self.flag()?;
        let token = self.name_ref()?;
        let key = self.name_ref()?;
        let types = if kind == 37 {
            let text = self.name_ref()?;
            if crate::spec::PropertyTypes::parse(text).is_none() {
                return Err(self.r.corrupt("unknown property type"));
            }
            Some(text)
        } else {
            None
        };
        Ok(RedoOpRef::CreatePropertyConstraint {
            name,
            relationship,
            token,
            key,
            types,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RedoRecord {
        RedoRecord {
            commit: 42,
            ops: vec![
                RedoOp::CreateNode {
                    id: 1,
                    labels: vec!["Person".into()],
                    props: vec![("name".into(), Value::from("Ann"))],
                },
                RedoOp::CreateRelationship {
                    id: 7,
                    start: 1,
                    end: 1,
                    rel_type: "KNOWS".into(),
                    props: vec![("since".into(), Value::from("2020-01-01"))],
                },
                RedoOp::SetNodeProperty {
                    id: 1,
                    key: "age".into(),
                    value: Value::Int(3),
                },
                RedoOp::RemoveLabel {
                    id: 1,
                    label: "Person".into(),
                },
                RedoOp::CreateIndex {
                    name: "i".into(),
                    label: "Person".into(),
                    key: "name".into(),
                },
                RedoOp::DropConstraint { name: "c".into() },
                RedoOp::Security {
                    catalogue: Arc::new(crate::security::tests::sample()),
                },
                RedoOp::Security {
                    catalogue: Arc::new(crate::security::tests::sample_with_privileges()),
                },
                RedoOp::CreateFulltextIndex(crate::spec::FulltextSpec {
                    name: "f".into(),
                    entity: crate::spec::FulltextEntity::Relationship,
                    tokens: vec!["T".into(), "U".into()],
                    keys: vec!["title".into()],
                    analyzer: "english".into(),
                    eventually_consistent: true,
                }),
                RedoOp::CreatePropertyConstraint(crate::spec::PropertyConstraintSpec {
                    name: "e".into(),
                    relationship: true,
                    token: "T".into(),
                    key: "since".into(),
                    types: None,
                }),
                RedoOp::CreatePropertyConstraint(crate::spec::PropertyConstraintSpec {
                    name: "t".into(),
                    relationship: false,
                    token: "Person".into(),
                    key: "age".into(),
                    types: crate::spec::PropertyTypes::parse("INTEGER | LIST<FLOAT NOT NULL>"),
                }),
                RedoOp::CreateSchemaIndex {
                    name: "k".into(),
                    relationship: true,
                    token: "T".into(),
                    keys: vec!["a".into(), "b".into()],
                    kind: crate::schema::IndexKind::Key,
                },
                vector_index(200),
                filtered_vector_index(),
                RedoOp::AddLabel {
                    id: 1,
                    label: "Admin".into(),
                },
                RedoOp::RemoveNodeProperty {
                    id: 1,
                    key: "age".into(),
                },
                RedoOp::SetRelationshipProperty {
                    id: 7,
                    key: "weight".into(),
                    value: Value::Float(0.5),
                },
                RedoOp::RemoveRelationshipProperty {
                    id: 7,
                    key: "since".into(),
                },
                RedoOp::CreateUniqueConstraint {
                    name: "u".into(),
                    label: "Person".into(),
                    key: "email".into(),
                },
                RedoOp::DropIndex { name: "i".into() },
                RedoOp::DeleteRelationship { id: 7 },
                RedoOp::DeleteNode { id: 1 },
                RedoOp::CommitTime {
                    micros: 1_767_225_600_123_456,
                },
            ],
        }
    }

    /// A record written before commit times were logged decodes as it did, its time unknown.
    #[test]
    fn a_record_without_a_commit_time_reads_with_the_time_unknown() {
        let mut rec = sample();
        rec.ops
            .retain(|op| !matches!(op, RedoOp::CommitTime { .. }));
        let (back, _) = RedoRecord::decode(&rec.encode()).unwrap();
        assert_eq!(back.commit_time(), None);
        assert_eq!(back.ops.len(), rec.ops.len());
        assert_eq!(
            RedoRecord::decode(&sample().encode())
                .unwrap()
                .0
                .commit_time(),
            Some(1_767_225_600_123_456)
        );
    }

    /// A record's time is one fact: two stamps are corruption, not a choice for the reader.
    #[test]
    fn a_record_with_two_commit_times_is_refused() {
        let mut rec = sample();
        rec.ops.push(RedoOp::CommitTime { micros: 1 });
        assert!(matches!(
            RedoRecord::decode(&rec.encode()),
            Err(Error::Corrupt {
                reason: "more than one commit time",
                ..
            })
        ));
    }

    /// The stamp is no change: a schema transaction with its time is still schema only.
    #[test]
    fn the_commit_time_is_neither_schema_nor_data() {
        let schema = RedoRecord {
            commit: 3,
            ops: vec![
                RedoOp::DropIndex { name: "i".into() },
                RedoOp::CommitTime { micros: 5 },
            ],
        };
        assert!(schema.changes_schema_only());
        let bytes = schema.encode();
        assert!(
            RedoRecordRef::decode(&bytes)
                .unwrap()
                .0
                .changes_schema_only()
        );
        let stamp_only = RedoRecord {
            commit: 4,
            ops: vec![RedoOp::CommitTime { micros: 5 }],
        };
        assert!(!stamp_only.changes_schema_only());
        assert!(!sample().changes_schema_only());
    }

    /// A relationship vector index with keys to filter on (kind 34).
    fn filtered_vector_index() -> RedoOp {
        RedoOp::CreateVectorIndex {
            name: "filtered".into(),
            relationship: true,
            token: "SIMILAR".into(),
            key: "e".into(),
            config: crate::spec::VectorConfig {
                dimensions: 2,
                similarity: crate::spec::Similarity::Cosine,
                quantization: true,
                hnsw_m: 512,
                hnsw_ef_construction: 100,
                hnsw_ef_search: 64,
            },
            with_properties: vec!["year".into(), "rating".into()],
        }
    }

    fn vector_index(hnsw_ef_search: usize) -> RedoOp {
        RedoOp::CreateVectorIndex {
            name: "v".into(),
            relationship: false,
            token: "Doc".into(),
            key: "embedding".into(),
            config: crate::spec::VectorConfig {
                dimensions: 3,
                similarity: crate::spec::Similarity::Euclidean,
                quantization: false,
                hnsw_m: 8,
                hnsw_ef_construction: 50,
                hnsw_ef_search,
            },
            with_properties: Vec::new(),
        }
    }

    /// A vector index logged before its search list could be set (kind 30, without the last
    /// field) still recovers, with the default list.
    #[test]
    fn a_vector_index_of_the_older_kind_reads_with_the_default_search_list() {
        let bytes = RedoRecord {
            commit: 9,
            ops: vec![vector_index(200)],
        }
        .encode();
        let kind = HEADER_BYTES;
        assert_eq!(bytes[kind], 33);
        let mut older = bytes[..bytes.len() - 8].to_vec();
        older[kind] = 30;
        let payload = (older.len() - 4) as u32;
        older[..4].copy_from_slice(&payload.to_le_bytes());
        let (back, used) = RedoRecord::decode(&older).unwrap();
        assert_eq!(used, older.len());
        let expected = vector_index(crate::spec::HNSW_EF_SEARCH_DEFAULT);
        assert_eq!(format!("{:?}", back.ops), format!("{:?}", vec![expected]));
    }

    #[test]
    fn records_roundtrip() {
        let rec = sample();
        let bytes = rec.encode();
        let (back, used) = RedoRecord::decode(&bytes).unwrap();
        assert_eq!(used, bytes.len());
        assert_eq!(back.commit, 42);
        assert_eq!(format!("{:?}", back.ops), format!("{:?}", rec.ops));
    }

    #[test]
    fn truncations_and_flips_are_errors_not_panics() {
        let bytes = sample().encode();
        for cut in 0..bytes.len() {
            assert!(RedoRecord::decode(&bytes[..cut]).is_err());
        }
        for i in 4..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0xff;
            let _ = RedoRecord::decode(&b);
        }
    }
}
