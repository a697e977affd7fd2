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
//! ```

use std::sync::Arc;

use quiver_value::Value;

use crate::codec::{Reader, check_storable, put_value};
use crate::error::{Error, Result};

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
}

impl RedoOp {
    /// Whether the op changes the schema (a transaction changes the schema or the data,
    /// never both).
    pub fn is_schema(&self) -> bool {
        matches!(
            self,
            RedoOp::CreateIndex { .. }
                | RedoOp::CreateUniqueConstraint { .. }
                | RedoOp::DropIndex { .. }
                | RedoOp::DropConstraint { .. }
        )
    }
}

/// The changes of one transaction, stamped with its commit number.
#[derive(Clone, Debug, Default)]
pub struct RedoRecord {
    pub commit: u64,
    pub ops: Vec<RedoOp>,
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
        Ok((RedoRecord { commit, ops }, 4 + payload))
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
        RedoOp::DeleteNode { id } => {
            out.push(2);
            put_u64(out, *id);
        }
        RedoOp::SetNodeProperty { id, key, value } => {
            out.push(3);
            put_u64(out, *id);
            put_name(out, key);
            put_value(out, value);
        }
        RedoOp::RemoveNodeProperty { id, key } => {
            out.push(4);
            put_u64(out, *id);
            put_name(out, key);
        }
        RedoOp::AddLabel { id, label } => {
            out.push(5);
            put_u64(out, *id);
            put_name(out, label);
        }
        RedoOp::RemoveLabel { id, label } => {
            out.push(6);
            put_u64(out, *id);
            put_name(out, label);
        }
        RedoOp::CreateRelationship {
            id,
            start,
            end,
            rel_type,
            props,
        } => {
            out.push(7);
            put_u64(out, *id);
            put_u64(out, *start);
            put_u64(out, *end);
            put_name(out, rel_type);
            put_props(out, props);
        }
        RedoOp::DeleteRelationship { id } => {
            out.push(8);
            put_u64(out, *id);
        }
        RedoOp::SetRelationshipProperty { id, key, value } => {
            out.push(9);
            put_u64(out, *id);
            put_name(out, key);
            put_value(out, value);
        }
        RedoOp::RemoveRelationshipProperty { id, key } => {
            out.push(10);
            put_u64(out, *id);
            put_name(out, key);
        }
        RedoOp::CreateIndex { name, label, key } => {
            out.push(11);
            put_name(out, name);
            put_name(out, label);
            put_name(out, key);
        }
        RedoOp::CreateUniqueConstraint { name, label, key } => {
            out.push(12);
            put_name(out, name);
            put_name(out, label);
            put_name(out, key);
        }
        RedoOp::DropIndex { name } => {
            out.push(13);
            put_name(out, name);
        }
        RedoOp::DropConstraint { name } => {
            out.push(14);
            put_name(out, name);
        }
    }
}

struct Fields<'a> {
    r: Reader<'a>,
}

impl Fields<'_> {
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

    fn name(&mut self) -> Result<Arc<str>> {
        let n = self.u32()? as usize;
        let b = self.r.take(n)?;
        std::str::from_utf8(b)
            .map(Arc::from)
            .map_err(|_| self.r.corrupt("invalid UTF-8"))
    }

    fn value(&mut self) -> Result<Value> {
        let v = self.r.value()?;
        check_storable(&v).map_err(|_| self.r.corrupt("unstorable value"))?;
        Ok(v)
    }

    fn count(&mut self) -> Result<usize> {
        let n = self.u32()? as usize;
        if n > RECORD_BYTES_MAX / 4 {
            return Err(self.r.corrupt("count too large"));
        }
        Ok(n)
    }

    fn props(&mut self) -> Result<Vec<(Arc<str>, Value)>> {
        let n = self.count()?;
        let mut out = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            let k = self.name()?;
            out.push((k, self.value()?));
        }
        Ok(out)
    }

    fn op(&mut self) -> Result<RedoOp> {
        let kind = self.r.u8()?;
        Ok(match kind {
            1 => {
                let id = self.u64()?;
                let n = self.count()?;
                let mut labels = Vec::with_capacity(n.min(64));
                for _ in 0..n {
                    labels.push(self.name()?);
                }
                RedoOp::CreateNode {
                    id,
                    labels,
                    props: self.props()?,
                }
            }
            2 => RedoOp::DeleteNode { id: self.u64()? },
            3 => RedoOp::SetNodeProperty {
                id: self.u64()?,
                key: self.name()?,
                value: self.value()?,
            },
            4 => RedoOp::RemoveNodeProperty {
                id: self.u64()?,
                key: self.name()?,
            },
            5 => RedoOp::AddLabel {
                id: self.u64()?,
                label: self.name()?,
            },
            6 => RedoOp::RemoveLabel {
                id: self.u64()?,
                label: self.name()?,
            },
            7 => RedoOp::CreateRelationship {
                id: self.u64()?,
                start: self.u64()?,
                end: self.u64()?,
                rel_type: self.name()?,
                props: self.props()?,
            },
            8 => RedoOp::DeleteRelationship { id: self.u64()? },
            9 => RedoOp::SetRelationshipProperty {
                id: self.u64()?,
                key: self.name()?,
                value: self.value()?,
            },
            10 => RedoOp::RemoveRelationshipProperty {
                id: self.u64()?,
                key: self.name()?,
            },
            11 => RedoOp::CreateIndex {
                name: self.name()?.to_string(),
                label: self.name()?,
                key: self.name()?,
            },
            12 => RedoOp::CreateUniqueConstraint {
                name: self.name()?.to_string(),
                label: self.name()?,
                key: self.name()?,
            },
            13 => RedoOp::DropIndex {
                name: self.name()?.to_string(),
            },
            14 => RedoOp::DropConstraint {
                name: self.name()?.to_string(),
            },
            _ => return Err(self.r.corrupt("unknown op kind")),
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
                RedoOp::DeleteRelationship { id: 7 },
                RedoOp::DeleteNode { id: 1 },
            ],
        }
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
