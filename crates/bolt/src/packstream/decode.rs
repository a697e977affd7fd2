//! Reading values from a complete message.
//!
//! The decoder borrows the message bytes; strings used only to steer decoding (dictionary
//! keys of message extras) are borrowed, never copied. Declared lengths are checked against
//! both the [`Limits`] and the bytes actually left before anything is allocated.

use std::sync::Arc;

use quiver_value::{
    CoordinateType, Date, DateTime, Duration, LocalDateTime, LocalTime, Map, Node, NodeData, Path,
    Point, RelData, Relationship, Time, TimeZone, Uuid, Value, Vector,
};

use super::{Dialect, Limits, Side, marker::*};
use crate::error::Error;
use crate::zone::ZoneResolver;

/// Offsets beyond ±18 hours exist in no zone and break formatting.
const OFFSET_SECONDS_MAX: i64 = 18 * 3600;
const NANOS_PER_SECOND: i64 = 1_000_000_000;
const NANOS_PER_DAY: i64 = 86_400 * NANOS_PER_SECOND;

pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
    limits: Limits,
    dialect: Dialect,
    side: Side,
    zones: &'a dyn ZoneResolver,
}

/// A structure's header: how many fields follow, and its tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StructHeader {
    pub fields: usize,
    pub tag: u8,
}

impl<'a> Decoder<'a> {
    pub fn new(
        buf: &'a [u8],
        limits: Limits,
        dialect: Dialect,
        side: Side,
        zones: &'a dyn ZoneResolver,
    ) -> Self {
        Decoder {
            buf,
            pos: 0,
            limits,
            dialect,
            side,
            zones,
        }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Fails unless every byte was consumed: a message is exactly one structure.
    pub fn finish(&self) -> Result<(), Error> {
        match self.remaining() {
            0 => Ok(()),
            trailing => Err(Error::TrailingBytes { trailing }),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let remaining = self.remaining();
        if n > remaining {
            return Err(Error::Truncated {
                offset: self.pos,
                needed: n - remaining,
            });
        }
        let bytes = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    fn take_array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let bytes = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    fn byte(&mut self) -> Result<u8, Error> {
        Ok(self.take_array::<1>()?[0])
    }

    pub fn peek(&self) -> Result<u8, Error> {
        self.buf.get(self.pos).copied().ok_or(Error::Truncated {
            offset: self.pos,
            needed: 1,
        })
    }

    /// Consumes a null if one is next.
    pub fn take_null(&mut self) -> Result<bool, Error> {
        if self.peek()? == NULL {
            self.pos += 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn size(
        &mut self,
        marker: u8,
        tiny_base: u8,
        markers: [u8; 3],
    ) -> Option<Result<usize, Error>> {
        if marker & 0xF0 == tiny_base {
            return Some(Ok(usize::from(marker & 0x0F)));
        }
        let r = if marker == markers[0] {
            self.take_array::<1>().map(|b| usize::from(b[0]))
        } else if marker == markers[1] {
            self.take_array::<2>()
                .map(|b| usize::from(u16::from_be_bytes(b)))
        } else if marker == markers[2] {
            self.take_array::<4>()
                .map(|b| u32::from_be_bytes(b) as usize)
        } else {
            return None;
        };
        Some(r)
    }

    fn check_string_len(&self, len: usize) -> Result<(), Error> {
        if len > self.limits.string_bytes_max {
            return Err(Error::StringTooLong {
                bytes: len,
                bytes_max: self.limits.string_bytes_max,
            });
        }
        Ok(())
    }

    fn check_collection_len(&self, len: usize) -> Result<(), Error> {
        if len > self.limits.collection_len_max {
            return Err(Error::CollectionTooLong {
                len,
                len_max: self.limits.collection_len_max,
            });
        }
        Ok(())
    }

    fn expected(offset: usize, what: &'static str, marker: u8) -> Error {
        if is_reserved(marker) {
            Error::ReservedMarker { marker, offset }
        } else {
            Error::InvalidValue {
                what,
                detail: format!("unexpected marker 0x{marker:02X} at offset {offset}"),
            }
        }
    }

    fn str_body(&mut self, len: usize) -> Result<&'a str, Error> {
        self.check_string_len(len)?;
        let offset = self.pos;
        let bytes = self.take(len)?;
        std::str::from_utf8(bytes).map_err(|_| Error::InvalidUtf8 { offset })
    }

    /// A borrowed string.
    pub fn string(&mut self) -> Result<&'a str, Error> {
        let offset = self.pos;
        let marker = self.byte()?;
        match self.size(marker, TINY_STRING, [STRING_8, STRING_16, STRING_32]) {
            Some(len) => self.str_body(len?),
            None => Err(Self::expected(offset, "string", marker)),
        }
    }

    pub fn int(&mut self) -> Result<i64, Error> {
        let offset = self.pos;
        let marker = self.byte()?;
        self.int_body(marker)
            .ok_or_else(|| Self::expected(offset, "integer", marker))?
    }

    fn int_body(&mut self, marker: u8) -> Option<Result<i64, Error>> {
        Some(match marker {
            0x00..=0x7F => Ok(i64::from(marker)),
            0xF0..=0xFF => Ok(i64::from(marker as i8)),
            INT_8 => self.take_array::<1>().map(|b| i64::from(b[0] as i8)),
            INT_16 => self
                .take_array::<2>()
                .map(|b| i64::from(i16::from_be_bytes(b))),
            INT_32 => self
                .take_array::<4>()
                .map(|b| i64::from(i32::from_be_bytes(b))),
            INT_64 => self.take_array::<8>().map(i64::from_be_bytes),
            _ => return None,
        })
    }

    pub fn float(&mut self) -> Result<f64, Error> {
        let offset = self.pos;
        match self.byte()? {
            FLOAT_64 => Ok(f64::from_be_bytes(self.take_array::<8>()?)),
            marker => Err(Self::expected(offset, "float", marker)),
        }
    }

    pub fn bool(&mut self) -> Result<bool, Error> {
        let offset = self.pos;
        match self.byte()? {
            TRUE => Ok(true),
            FALSE => Ok(false),
            marker => Err(Self::expected(offset, "boolean", marker)),
        }
    }

    /// A list header: the number of entries that follow.
    pub fn list_len(&mut self) -> Result<usize, Error> {
        let offset = self.pos;
        let marker = self.byte()?;
        match self.size(marker, TINY_LIST, [LIST_8, LIST_16, LIST_32]) {
            Some(len) => {
                let len = len?;
                self.check_collection_len(len)?;
                Ok(len)
            }
            None => Err(Self::expected(offset, "list", marker)),
        }
    }

    /// A dictionary header: the number of entries that follow.
    pub fn map_len(&mut self) -> Result<usize, Error> {
        let offset = self.pos;
        let marker = self.byte()?;
        match self.size(marker, TINY_MAP, [MAP_8, MAP_16, MAP_32]) {
            Some(len) => {
                let len = len?;
                self.check_collection_len(len)?;
                Ok(len)
            }
            None => Err(Self::expected(offset, "dictionary", marker)),
        }
    }

    pub fn struct_header(&mut self) -> Result<StructHeader, Error> {
        let offset = self.pos;
        let marker = self.byte()?;
        if marker & 0xF0 != TINY_STRUCT {
            return Err(Self::expected(offset, "structure", marker));
        }
        let tag = self.byte()?;
        Ok(StructHeader {
            fields: usize::from(marker & 0x0F),
            tag,
        })
    }

    /// A dictionary key: always a string.
    pub fn key(&mut self) -> Result<&'a str, Error> {
        let offset = self.pos;
        self.string().map_err(|e| match e {
            Error::InvalidValue { .. } => Error::NonStringKey { offset },
            other => other,
        })
    }

    /// Any value, at nesting depth 0.
    pub fn value(&mut self) -> Result<Value, Error> {
        self.value_at(0)
    }

    /// A dictionary as a [`Map`]; a repeated key keeps its last value.
    pub fn map(&mut self) -> Result<Map, Error> {
        let len = self.map_len()?;
        self.map_body(len, 1)
    }

    /// Skips one value of any kind, checking it as thoroughly as decoding would.
    pub fn skip(&mut self) -> Result<(), Error> {
        self.value_at(0).map(drop)
    }

    fn map_body(&mut self, len: usize, depth: usize) -> Result<Map, Error> {
        let mut map = Map::new();
        for _ in 0..len {
            let key: Arc<str> = Arc::from(self.key()?);
            let value = self.value_at(depth)?;
            map.insert(key, value);
        }
        Ok(map)
    }

    fn enter(&self, depth: usize) -> Result<usize, Error> {
        let next = depth + 1;
        if next > self.limits.depth_max {
            return Err(Error::TooDeep {
                depth_max: self.limits.depth_max,
            });
        }
        Ok(next)
    }

    fn value_at(&mut self, depth: usize) -> Result<Value, Error> {
        let offset = self.pos;
        let marker = self.byte()?;
        if let Some(i) = self.int_body(marker) {
            return Ok(Value::Int(i?));
        }
        match marker {
            NULL => return Ok(Value::Null),
            TRUE => return Ok(Value::Bool(true)),
            FALSE => return Ok(Value::Bool(false)),
            FLOAT_64 => return Ok(Value::Float(f64::from_be_bytes(self.take_array::<8>()?))),
            // A short body is `Truncated`, like any other fixed-width value.
            UUID if self.dialect.uuids => {
                return Ok(Value::Uuid(Uuid::from_bytes(self.take_array::<16>()?)));
            }
            _ => {}
        }
        if let Some(len) = self.size(marker, TINY_STRING, [STRING_8, STRING_16, STRING_32]) {
            return Ok(Value::String(Arc::from(self.str_body(len?)?)));
        }
        if let Some(len) = self.size(marker, 0xFF, [BYTES_8, BYTES_16, BYTES_32]) {
            let len = len?;
            self.check_string_len(len)?;
            return Ok(Value::Bytes(Arc::from(self.take(len)?)));
        }
        if let Some(len) = self.size(marker, TINY_LIST, [LIST_8, LIST_16, LIST_32]) {
            let len = len?;
            self.check_collection_len(len)?;
            let depth = self.enter(depth)?;
            // Each entry takes at least one byte, so the bytes left bound the allocation.
            let mut items = Vec::with_capacity(len.min(self.remaining()));
            for _ in 0..len {
                items.push(self.value_at(depth)?);
            }
            return Ok(Value::List(items.into()));
        }
        if let Some(len) = self.size(marker, TINY_MAP, [MAP_8, MAP_16, MAP_32]) {
            let len = len?;
            self.check_collection_len(len)?;
            let depth = self.enter(depth)?;
            return Ok(Value::Map(Arc::new(self.map_body(len, depth)?)));
        }
        if marker & 0xF0 == TINY_STRUCT {
            let fields = usize::from(marker & 0x0F);
            let tag = self.byte()?;
            let depth = self.enter(depth)?;
            return self.structure(StructHeader { fields, tag }, depth);
        }
        Err(if is_reserved(marker) {
            Error::ReservedMarker { marker, offset }
        } else {
            Error::InvalidValue {
                what: "value",
                detail: format!("unexpected marker 0x{marker:02X} at offset {offset}"),
            }
        })
    }

    fn fields(h: StructHeader, expected: usize) -> Result<(), Error> {
        if h.fields != expected {
            return Err(Error::StructFields {
                tag: h.tag,
                expected,
                found: h.fields,
            });
        }
        Ok(())
    }

    fn structure(&mut self, h: StructHeader, depth: usize) -> Result<Value, Error> {
        match h.tag {
            tag::DATE => {
                Self::fields(h, 1)?;
                Ok(Value::Date(Date { days: self.int()? }))
            }
            tag::LOCAL_TIME => {
                Self::fields(h, 1)?;
                Ok(Value::LocalTime(LocalTime {
                    nanos: nanos_of_day(self.int()?)?,
                }))
            }
            tag::TIME => {
                Self::fields(h, 2)?;
                let nanos = nanos_of_day(self.int()?)?;
                let offset_seconds = offset(self.int()?)?;
                Ok(Value::Time(Time {
                    nanos,
                    offset_seconds,
                }))
            }
            tag::LOCAL_DATE_TIME => {
                Self::fields(h, 2)?;
                let seconds = self.int()?;
                let nanos = nanos_of_second(self.int()?)?;
                Ok(Value::LocalDateTime(LocalDateTime { seconds, nanos }))
            }
            tag::DURATION => {
                Self::fields(h, 4)?;
                Ok(Value::Duration(Box::new(Duration {
                    months: self.int()?,
                    days: self.int()?,
                    seconds: self.int()?,
                    nanos: self.int()?,
                })))
            }
            tag::POINT_2D | tag::POINT_3D => {
                let three_d = h.tag == tag::POINT_3D;
                Self::fields(h, if three_d { 4 } else { 3 })?;
                let srid = u32::try_from(self.int()?).map_err(|_| Error::InvalidValue {
                    what: "point",
                    detail: "SRID out of range".into(),
                })?;
                let x = self.float()?;
                let y = self.float()?;
                let z = if three_d { Some(self.float()?) } else { None };
                Ok(Value::Point(Box::new(Point { srid, x, y, z })))
            }
            tag::DATE_TIME | tag::DATE_TIME_ZONE_ID if self.dialect.utc_datetime => {
                self.datetime(h, true)
            }
            tag::LEGACY_DATE_TIME | tag::LEGACY_DATE_TIME_ZONE_ID if !self.dialect.utc_datetime => {
                self.datetime(h, false)
            }
            tag::NODE | tag::RELATIONSHIP | tag::UNBOUND_RELATIONSHIP | tag::PATH
                if self.side == Side::Server =>
            {
                Err(Error::StructNotAccepted { tag: h.tag })
            }
            tag::NODE => Ok(Value::Node(self.node(h, depth)?)),
            tag::RELATIONSHIP => Ok(Value::Relationship(self.relationship(h, depth)?)),
            tag::UNBOUND_RELATIONSHIP => {
                let (rel, _) = self.unbound(h, depth)?;
                Ok(Value::Relationship(rel))
            }
            tag::PATH => self.path(h, depth),
            tag::VECTOR if self.dialect.vectors => self.vector(h),
            tag => Err(Error::UnknownStruct { tag }),
        }
    }

    /// Bolt 6's Vector: a one-byte byte array naming the coordinate type by its marker, then
    /// the coordinates big-endian in one byte array (its length checked like any other).
    fn vector(&mut self, h: StructHeader) -> Result<Value, Error> {
        Self::fields(h, 2)?;
        let type_field = self.byte_array()?;
        let coordinate_type = match type_field {
            [INT_8] => CoordinateType::Int8,
            [INT_16] => CoordinateType::Int16,
            [INT_32] => CoordinateType::Int32,
            [INT_64] => CoordinateType::Int64,
            [FLOAT_32] => CoordinateType::Float32,
            [FLOAT_64] => CoordinateType::Float64,
            other => {
                return Err(Error::InvalidValue {
                    what: "vector",
                    detail: format!("unknown coordinate type {other:02X?}"),
                });
            }
        };
        let data = self.byte_array()?;
        let v = Vector::from_be_bytes(coordinate_type, data).map_err(|e| Error::InvalidValue {
            what: "vector",
            detail: e.to_string(),
        })?;
        Ok(Value::Vector(Arc::new(v)))
    }

    /// A byte array, borrowed.
    fn byte_array(&mut self) -> Result<&'a [u8], Error> {
        let offset = self.pos;
        let marker = self.byte()?;
        match self.size(marker, 0xFF, [BYTES_8, BYTES_16, BYTES_32]) {
            Some(len) => {
                let len = len?;
                self.check_string_len(len)?;
                self.take(len)
            }
            None => Err(Self::expected(offset, "byte array", marker)),
        }
    }

    fn datetime(&mut self, h: StructHeader, utc: bool) -> Result<Value, Error> {
        Self::fields(h, 3)?;
        let seconds = self.int()?;
        let nanos = nanos_of_second(self.int()?)?;
        let named = matches!(
            h.tag,
            tag::DATE_TIME_ZONE_ID | tag::LEGACY_DATE_TIME_ZONE_ID
        );
        let (offset_seconds, zone) = if named {
            let name = self.string()?;
            let found = if utc {
                self.zones.offset_at_utc(name, seconds)
            } else {
                self.zones.offset_at_local(name, seconds)
            };
            let offset_seconds = found.ok_or_else(|| Error::UnknownZone(name.to_owned()))?;
            (offset_seconds, TimeZone::Named(Arc::from(name)))
        } else {
            let o = offset(self.int()?)?;
            (o, TimeZone::Offset(o))
        };
        let seconds = if utc {
            seconds
        } else {
            seconds
                .checked_sub(i64::from(offset_seconds))
                .ok_or_else(|| Error::InvalidValue {
                    what: "date-time",
                    detail: "seconds out of range".into(),
                })?
        };
        Ok(Value::DateTime(Box::new(DateTime {
            seconds,
            nanos,
            offset_seconds,
            zone,
        })))
    }

    fn id(&mut self) -> Result<u64, Error> {
        let id = self.int()?;
        u64::try_from(id).map_err(|_| Error::InvalidValue {
            what: "entity id",
            detail: format!("{id} is negative"),
        })
    }

    fn labels(&mut self) -> Result<Vec<Arc<str>>, Error> {
        let len = self.list_len()?;
        let mut labels = Vec::with_capacity(len.min(self.remaining()));
        for _ in 0..len {
            labels.push(Arc::from(self.string()?));
        }
        Ok(labels)
    }

    fn properties(&mut self, depth: usize) -> Result<Map, Error> {
        let len = self.map_len()?;
        let depth = self.enter(depth)?;
        self.map_body(len, depth)
    }

    fn node(&mut self, h: StructHeader, depth: usize) -> Result<Node, Error> {
        Self::fields(h, if self.dialect.element_ids { 4 } else { 3 })?;
        let id = self.id()?;
        let labels = self.labels()?;
        let properties = self.properties(depth)?;
        if self.dialect.element_ids {
            // Quiver derives element ids from ids; a peer's own element id is not kept.
            self.string()?;
        }
        Ok(Node {
            id,
            data: Some(Arc::new(NodeData { labels, properties })),
        })
    }

    fn relationship(&mut self, h: StructHeader, depth: usize) -> Result<Relationship, Error> {
        Self::fields(h, if self.dialect.element_ids { 8 } else { 5 })?;
        let id = self.id()?;
        let start = self.id()?;
        let end = self.id()?;
        let rel_type = Arc::from(self.string()?);
        let properties = self.properties(depth)?;
        if self.dialect.element_ids {
            self.string()?;
            self.string()?;
            self.string()?;
        }
        Ok(Relationship {
            id,
            data: Some(Arc::new(RelData {
                start,
                end,
                rel_type,
                properties,
                ends: None,
            })),
        })
    }

    /// An unbound relationship, with its end points still unknown (zero until a path fixes them).
    fn unbound(&mut self, h: StructHeader, depth: usize) -> Result<(Relationship, RelData), Error> {
        Self::fields(h, if self.dialect.element_ids { 4 } else { 3 })?;
        let id = self.id()?;
        let rel_type: Arc<str> = Arc::from(self.string()?);
        let properties = self.properties(depth)?;
        if self.dialect.element_ids {
            self.string()?;
        }
        let data = RelData {
            start: 0,
            end: 0,
            rel_type,
            properties,
            ends: None,
        };
        Ok((
            Relationship {
                id,
                data: Some(Arc::new(data.clone())),
            },
            data,
        ))
    }

    fn path(&mut self, h: StructHeader, depth: usize) -> Result<Value, Error> {
        Self::fields(h, 3)?;
        let invalid = |detail: &str| Error::InvalidValue {
            what: "path",
            detail: detail.to_owned(),
        };
        let node_count = self.list_len()?;
        let mut nodes = Vec::with_capacity(node_count.min(self.remaining()));
        for _ in 0..node_count {
            let inner = self.struct_header()?;
            if inner.tag != tag::NODE {
                return Err(invalid("nodes list holds a non-node"));
            }
            nodes.push(self.node(inner, depth)?);
        }
        let rel_count = self.list_len()?;
        let mut rels = Vec::with_capacity(rel_count.min(self.remaining()));
        for _ in 0..rel_count {
            let inner = self.struct_header()?;
            if inner.tag != tag::UNBOUND_RELATIONSHIP {
                return Err(invalid("relationships list holds a non-relationship"));
            }
            rels.push(self.unbound(inner, depth)?);
        }
        let index_count = self.list_len()?;
        if index_count % 2 != 0 {
            return Err(invalid("odd number of indices"));
        }
        let first = nodes.first().cloned().ok_or_else(|| invalid("no nodes"))?;
        let mut path_nodes = Vec::with_capacity(index_count / 2 + 1);
        let mut path_rels = Vec::with_capacity(index_count / 2);
        path_nodes.push(first);
        for _ in 0..index_count / 2 {
            let rel_index = self.int()?;
            let node_index = self.int()?;
            let to = usize::try_from(node_index)
                .ok()
                .and_then(|i| nodes.get(i))
                .ok_or_else(|| invalid("node index out of range"))?;
            let slot = usize::try_from(rel_index.unsigned_abs())
                .ok()
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| rels.get(i))
                .ok_or_else(|| invalid("relationship index out of range"))?;
            let from_id = path_nodes.last().map_or(0, |n: &Node| n.id);
            let (start, end) = if rel_index > 0 {
                (from_id, to.id)
            } else {
                (to.id, from_id)
            };
            let (rel, data) = slot;
            let data = RelData {
                start,
                end,
                rel_type: data.rel_type.clone(),
                properties: data.properties.clone(),
                ends: None,
            };
            path_rels.push(Relationship {
                id: rel.id,
                data: Some(Arc::new(data)),
            });
            path_nodes.push(to.clone());
        }
        Ok(Value::Path(Arc::new(Path {
            nodes: path_nodes,
            relationships: path_rels,
        })))
    }
}

fn nanos_of_day(n: i64) -> Result<i64, Error> {
    if (0..NANOS_PER_DAY).contains(&n) {
        Ok(n)
    } else {
        Err(Error::InvalidValue {
            what: "time",
            detail: format!("{n} nanoseconds is not a time of day"),
        })
    }
}

fn nanos_of_second(n: i64) -> Result<u32, Error> {
    if (0..NANOS_PER_SECOND).contains(&n) {
        Ok(n as u32)
    } else {
        Err(Error::InvalidValue {
            what: "nanoseconds",
            detail: format!("{n} is not within a second"),
        })
    }
}

fn offset(o: i64) -> Result<i32, Error> {
    if (-OFFSET_SECONDS_MAX..=OFFSET_SECONDS_MAX).contains(&o) {
        Ok(o as i32)
    } else {
        Err(Error::InvalidValue {
            what: "UTC offset",
            detail: format!("{o} seconds"),
        })
    }
}
