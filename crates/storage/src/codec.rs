//! The binary encoding of storable values, shared by in-memory property blobs and redo records.
//!
//! A value is one tag byte followed by its payload. Integers are LEB128 varints (signed ones
//! zig-zag encoded first), floats are 8 bytes little-endian. The tags are part of the redo
//! record format, so they never change meaning; new kinds get new tags.
//!
//! ```text
//! tag   kind            payload
//! 0x01  false           -
//! 0x02  true            -
//! 0x03  Integer         zigzag varint
//! 0x04  Float           f64 bits, 8 bytes LE
//! 0x05  String          varint byte length, UTF-8 bytes
//! 0x06  String (hex)    varint n, n bytes: 2n lowercase hex digits, high nibble first
//! 0x07  ByteArray       varint length, bytes
//! 0x08  Date            zigzag days since 1970-01-01
//! 0x09  LocalTime       zigzag nanoseconds since midnight
//! 0x0A  Time            zigzag nanoseconds, zigzag offset seconds
//! 0x0B  LocalDateTime   zigzag seconds, varint nanoseconds
//! 0x0C  DateTime        zigzag UTC seconds, varint nanoseconds, zigzag offset seconds
//! 0x0D  DateTime (zone) as 0x0C, then varint length and the IANA zone name
//! 0x0E  Duration        zigzag months, days, seconds, nanoseconds
//! 0x0F  Point 2D        varint srid, f64 x, f64 y
//! 0x10  Point 3D        varint srid, f64 x, f64 y, f64 z
//! 0x11  List            varint count, then count tagged values of one kind, none a list
//! 0x12  Vector          coordinate type code (0 i8, 1 i16, 2 i32, 3 i64, 4 f32, 5 f64),
//!                       varint count, the coordinates big-endian (as Bolt carries them)
//! 0x13  UUID            16 bytes, most significant first (as Bolt 6.1 carries them)
//! ```
//!
//! Tag 0x06 exists because ids made of hex digits are common property values (the 24-digit
//! ids of the social benchmark are one) and packing them halves their size.

use std::sync::Arc;

use quiver_value::temporal::{Date, DateTime, Duration, LocalDateTime, LocalTime, Time, TimeZone};
use quiver_value::{CoordinateType, Point, UUID_BYTES, Uuid, Value, Vector};

use crate::error::{Error, Result};

/// Largest string or byte array a property may hold.
pub const VALUE_BYTES_MAX: usize = 16 << 20;
/// Most items a list property may hold.
pub const LIST_ITEMS_MAX: usize = 1 << 20;

const TAG_FALSE: u8 = 0x01;
const TAG_TRUE: u8 = 0x02;
const TAG_INT: u8 = 0x03;
const TAG_FLOAT: u8 = 0x04;
const TAG_STRING: u8 = 0x05;
const TAG_HEX: u8 = 0x06;
const TAG_BYTES: u8 = 0x07;
const TAG_DATE: u8 = 0x08;
const TAG_LOCAL_TIME: u8 = 0x09;
const TAG_TIME: u8 = 0x0A;
const TAG_LOCAL_DATETIME: u8 = 0x0B;
const TAG_DATETIME: u8 = 0x0C;
const TAG_DATETIME_ZONE: u8 = 0x0D;
const TAG_DURATION: u8 = 0x0E;
const TAG_POINT2: u8 = 0x0F;
const TAG_POINT3: u8 = 0x10;
const TAG_LIST: u8 = 0x11;
const TAG_VECTOR: u8 = 0x12;
const TAG_UUID: u8 = 0x13;

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(crate) fn put_zigzag(out: &mut Vec<u8>, v: i64) {
    put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

fn put_f64(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(&v.to_bits().to_le_bytes());
}

pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn is_packable_hex(s: &str) -> bool {
    s.len() >= 2
        && s.len().is_multiple_of(2)
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn hex_nibble(b: u8) -> u8 {
    if b.is_ascii_digit() {
        b - b'0'
    } else {
        b - b'a' + 10
    }
}

/// Checks that `v` can be a property value. `Null` is not: callers treat it as removal.
pub fn check_storable(v: &Value) -> Result<()> {
    match v {
        Value::Null => Err(Error::UnstorableValue("null".into())),
        Value::Map(_) => Err(Error::UnstorableValue("maps".into())),
        Value::Node(_) => Err(Error::UnstorableValue("nodes".into())),
        Value::Relationship(_) => Err(Error::UnstorableValue("relationships".into())),
        Value::Path(_) => Err(Error::UnstorableValue("paths".into())),
        Value::String(s) if s.len() > VALUE_BYTES_MAX => Err(Error::ValueTooLarge {
            bytes: s.len(),
            limit: VALUE_BYTES_MAX,
        }),
        Value::Bytes(b) if b.len() > VALUE_BYTES_MAX => Err(Error::ValueTooLarge {
            bytes: b.len(),
            limit: VALUE_BYTES_MAX,
        }),
        Value::DateTime(dt) => match &dt.zone {
            TimeZone::Named(z) if z.len() > 255 => Err(Error::ValueTooLarge {
                bytes: z.len(),
                limit: 255,
            }),
            _ => Ok(()),
        },
        Value::List(items) => {
            if items.len() > LIST_ITEMS_MAX {
                return Err(Error::CapacityExceeded {
                    what: "list items",
                    limit: LIST_ITEMS_MAX as u64,
                });
            }
            let mut kind = None;
            for item in items.iter() {
                if matches!(item, Value::List(_)) {
                    return Err(Error::UnstorableValue("nested lists".into()));
                }
                if matches!(item, Value::Vector(_)) {
                    return Err(Error::UnstorableValue("lists of vectors".into()));
                }
                if item.is_null() {
                    return Err(Error::UnstorableValue("lists containing null".into()));
                }
                check_storable(item)?;
                let t = item.value_type();
                match kind {
                    None => kind = Some(t),
                    Some(k) if k != t => {
                        return Err(Error::UnstorableValue("lists of mixed types".into()));
                    }
                    Some(_) => {}
                }
            }
            Ok(())
        }
        Value::Vector(v) if v.heap_bytes() > VALUE_BYTES_MAX => Err(Error::ValueTooLarge {
            bytes: v.heap_bytes(),
            limit: VALUE_BYTES_MAX,
        }),
        _ => Ok(()),
    }
}

/// Appends the encoding of a storable value. Call [`check_storable`] first: values it rejects
/// encode as nothing useful.
pub(crate) fn put_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Bool(false) => out.push(TAG_FALSE),
        Value::Bool(true) => out.push(TAG_TRUE),
        Value::Int(i) => {
            out.push(TAG_INT);
            put_zigzag(out, *i);
        }
        Value::Float(f) => {
            out.push(TAG_FLOAT);
            put_f64(out, *f);
        }
        Value::String(s) if is_packable_hex(s) => {
            out.push(TAG_HEX);
            put_varint(out, (s.len() / 2) as u64);
            for pair in s.as_bytes().chunks_exact(2) {
                out.push((hex_nibble(pair[0]) << 4) | hex_nibble(pair[1]));
            }
        }
        Value::String(s) => {
            out.push(TAG_STRING);
            put_str(out, s);
        }
        Value::Bytes(b) => {
            out.push(TAG_BYTES);
            put_varint(out, b.len() as u64);
            out.extend_from_slice(b);
        }
        Value::Date(d) => {
            out.push(TAG_DATE);
            put_zigzag(out, d.days);
        }
        Value::LocalTime(t) => {
            out.push(TAG_LOCAL_TIME);
            put_zigzag(out, t.nanos);
        }
        Value::Time(t) => {
            out.push(TAG_TIME);
            put_zigzag(out, t.nanos);
            put_zigzag(out, i64::from(t.offset_seconds));
        }
        Value::LocalDateTime(t) => {
            out.push(TAG_LOCAL_DATETIME);
            put_zigzag(out, t.seconds);
            put_varint(out, u64::from(t.nanos));
        }
        Value::DateTime(t) => put_datetime(out, t),
        Value::Duration(d) => {
            out.push(TAG_DURATION);
            put_zigzag(out, d.months);
            put_zigzag(out, d.days);
            put_zigzag(out, d.seconds);
            put_zigzag(out, d.nanos);
        }
        Value::Point(p) => put_point(out, p),
        Value::List(items) => {
            out.push(TAG_LIST);
            put_varint(out, items.len() as u64);
            for item in items.iter() {
                put_value(out, item);
            }
        }
        Value::Vector(v) => {
            out.push(TAG_VECTOR);
            out.push(v.coordinate_type().code());
            put_varint(out, v.len() as u64);
            v.write_be_bytes(out);
        }
        Value::Uuid(u) => {
            out.push(TAG_UUID);
            out.extend_from_slice(u.as_bytes());
        }
        Value::Null | Value::Map(_) | Value::Node(_) | Value::Relationship(_) | Value::Path(_) => {}
    }
}

/// A zoned datetime: the zone's name follows when it has one.
fn put_datetime(out: &mut Vec<u8>, t: &quiver_value::DateTime) {
    let named = match &t.zone {
        TimeZone::Named(z) => Some(z),
        TimeZone::Offset(_) => None,
    };
    out.push(if named.is_some() {
        TAG_DATETIME_ZONE
    } else {
        TAG_DATETIME
    });
    put_zigzag(out, t.seconds);
    put_varint(out, u64::from(t.nanos));
    put_zigzag(out, i64::from(t.offset_seconds));
    if let Some(z) = named {
        put_str(out, z);
    }
}

/// A point: its tag says whether `z` follows.
fn put_point(out: &mut Vec<u8>, p: &quiver_value::Point) {
    out.push(if p.z.is_some() {
        TAG_POINT3
    } else {
        TAG_POINT2
    });
    put_varint(out, u64::from(p.srid));
    put_f64(out, p.x);
    put_f64(out, p.y);
    if let Some(z) = p.z {
        put_f64(out, z);
    }
}

/// A cursor over encoded bytes that never panics: every read checks what is left.
/// A stored value read for a comparison (see [`Reader::value_ref`]): the common kinds
/// without an allocation.
pub(crate) enum ValueRef<'a> {
    Str(&'a str),
    Int(i64),
    Built(Value),
}

pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.buf.len()
    }

    pub(crate) fn corrupt(&self, reason: &'static str) -> Error {
        Error::Corrupt {
            offset: self.pos,
            reason,
        }
    }

    /// The bytes from `start` to the current position.
    pub(crate) fn spanned(&self, start: usize) -> &'a [u8] {
        self.buf.get(start..self.pos).unwrap_or_default()
    }

    pub(crate) fn u8(&mut self) -> Result<u8> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or_else(|| self.corrupt("unexpected end"))?;
        self.pos += 1;
        Ok(b)
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| self.corrupt("length past end"))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    pub(crate) fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            let bits = u64::from(b & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(self.corrupt("varint overflow"));
            }
            v |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.corrupt("varint too long"))
    }

    pub(crate) fn varint_u32(&mut self) -> Result<u32> {
        u32::try_from(self.varint()?).map_err(|_| self.corrupt("u32 out of range"))
    }

    pub(crate) fn len(&mut self) -> Result<usize> {
        let n = self.varint()?;
        let n = usize::try_from(n).map_err(|_| self.corrupt("length out of range"))?;
        if n > self.buf.len() - self.pos.min(self.buf.len()) {
            return Err(self.corrupt("length past end"));
        }
        Ok(n)
    }

    pub(crate) fn zigzag(&mut self) -> Result<i64> {
        let u = self.varint()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }

    fn i32(&mut self) -> Result<i32> {
        i32::try_from(self.zigzag()?).map_err(|_| self.corrupt("i32 out of range"))
    }

    fn f64(&mut self) -> Result<f64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_bits(u64::from_le_bytes(a)))
    }

    pub(crate) fn str(&mut self) -> Result<&'a str> {
        let n = self.len()?;
        let b = self.take(n)?;
        std::str::from_utf8(b).map_err(|_| self.corrupt("invalid UTF-8"))
    }

    pub(crate) fn value(&mut self) -> Result<Value> {
        let tag = self.u8()?;
        self.value_with_tag(tag, true)
    }

    fn value_with_tag(&mut self, tag: u8, list_allowed: bool) -> Result<Value> {
        Ok(match tag {
            TAG_FALSE => Value::Bool(false),
            TAG_TRUE => Value::Bool(true),
            TAG_INT => Value::Int(self.zigzag()?),
            TAG_FLOAT => Value::Float(self.f64()?),
            TAG_STRING => Value::String(self.str()?.into()),
            TAG_HEX => {
                let n = self.len()?;
                let packed = self.take(n)?;
                const DIGITS: &[u8; 16] = b"0123456789abcdef";
                let mut s = String::with_capacity(n * 2);
                for b in packed {
                    s.push(char::from(DIGITS[usize::from(b >> 4)]));
                    s.push(char::from(DIGITS[usize::from(b & 0xf)]));
                }
                Value::String(s.into())
            }
            TAG_BYTES => {
                let n = self.len()?;
                Value::Bytes(Arc::from(self.take(n)?))
            }
            TAG_DATE => Value::Date(Date {
                days: self.zigzag()?,
            }),
            TAG_LOCAL_TIME => Value::LocalTime(LocalTime {
                nanos: self.zigzag()?,
            }),
            TAG_TIME => Value::Time(Time {
                nanos: self.zigzag()?,
                offset_seconds: self.i32()?,
            }),
            TAG_LOCAL_DATETIME => Value::LocalDateTime(LocalDateTime {
                seconds: self.zigzag()?,
                nanos: self.varint_u32()?,
            }),
            TAG_DATETIME | TAG_DATETIME_ZONE => {
                let seconds = self.zigzag()?;
                let nanos = self.varint_u32()?;
                let offset_seconds = self.i32()?;
                let zone = if tag == TAG_DATETIME_ZONE {
                    TimeZone::Named(self.str()?.into())
                } else {
                    TimeZone::Offset(offset_seconds)
                };
                Value::DateTime(Box::new(DateTime {
                    seconds,
                    nanos,
                    offset_seconds,
                    zone,
                }))
            }
            TAG_DURATION => Value::Duration(Box::new(Duration {
                months: self.zigzag()?,
                days: self.zigzag()?,
                seconds: self.zigzag()?,
                nanos: self.zigzag()?,
            })),
            TAG_POINT2 | TAG_POINT3 => {
                let srid = self.varint_u32()?;
                let x = self.f64()?;
                let y = self.f64()?;
                let z = if tag == TAG_POINT3 {
                    Some(self.f64()?)
                } else {
                    None
                };
                Value::Point(Box::new(Point { srid, x, y, z }))
            }
            TAG_LIST if list_allowed => {
                let n = self.len()?;
                if n > LIST_ITEMS_MAX {
                    return Err(self.corrupt("list too long"));
                }
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    let tag = self.u8()?;
                    items.push(self.value_with_tag(tag, false)?);
                }
                Value::List(items.into())
            }
            TAG_UUID => {
                let bytes = self.take(UUID_BYTES)?;
                Value::Uuid(Uuid::from_slice(bytes).map_err(|_| self.corrupt("short UUID"))?)
            }
            TAG_VECTOR if list_allowed => {
                let (coordinate_type, bytes) = self.vector_bytes()?;
                let v = Vector::from_be_bytes(coordinate_type, bytes)
                    .map_err(|_| self.corrupt("ragged vector"))?;
                Value::vector(v)
            }
            _ => return Err(self.corrupt("unknown value tag")),
        })
    }

    /// One value as a filter compares it: strings and integers borrowed or read on the stack,
    /// every other kind built as [`Reader::value`] builds it.
    pub(crate) fn value_ref(&mut self) -> Result<ValueRef<'a>> {
        let tag = self.u8()?;
        Ok(match tag {
            TAG_STRING => ValueRef::Str(self.str()?),
            TAG_INT => ValueRef::Int(self.zigzag()?),
            _ => ValueRef::Built(self.value_with_tag(tag, true)?),
        })
    }

    /// Steps over one value, checking it exactly as [`Reader::value`] followed by
    /// [`check_storable`] would, and returns its bytes (tag included). Strings and byte arrays,
    /// the common values that own memory, are checked in place; scalars are decoded on the
    /// stack; the rare boxed kinds and lists are built and dropped. Bulk paths copy the bytes
    /// into a blob as they are, since a blob holds values in this same encoding.
    pub(crate) fn checked_value(&mut self) -> Result<&'a [u8]> {
        let start = self.pos;
        let tag = self.u8()?;
        let unstorable = |r: &Self| r.corrupt("unstorable value");
        match tag {
            TAG_STRING => {
                if self.str()?.len() > VALUE_BYTES_MAX {
                    return Err(unstorable(self));
                }
            }
            TAG_HEX => {
                let n = self.len()?;
                self.take(n)?;
                if n.saturating_mul(2) > VALUE_BYTES_MAX {
                    return Err(unstorable(self));
                }
            }
            TAG_BYTES => {
                let n = self.len()?;
                self.take(n)?;
                if n > VALUE_BYTES_MAX {
                    return Err(unstorable(self));
                }
            }
            TAG_FALSE | TAG_TRUE | TAG_INT | TAG_FLOAT | TAG_DATE | TAG_LOCAL_TIME | TAG_TIME
            | TAG_LOCAL_DATETIME | TAG_UUID => {
                self.value_with_tag(tag, false)?;
            }
            _ => {
                let v = self.value_with_tag(tag, true)?;
                check_storable(&v).map_err(|_| unstorable(self))?;
            }
        }
        self.buf
            .get(start..self.pos)
            .ok_or_else(|| self.corrupt("length past end"))
    }

    /// A vector's coordinate type and its coordinates' bytes (after the tag).
    fn vector_bytes(&mut self) -> Result<(CoordinateType, &'a [u8])> {
        let coordinate_type = CoordinateType::from_code(self.u8()?)
            .ok_or_else(|| self.corrupt("unknown vector coordinate type"))?;
        let n = self.len()?;
        let bytes = n
            .checked_mul(coordinate_type.width_bytes())
            .ok_or_else(|| self.corrupt("length out of range"))?;
        Ok((coordinate_type, self.take(bytes)?))
    }

    /// Steps over one value without building it: property lookups skip the values they pass.
    pub(crate) fn skip_value(&mut self) -> Result<()> {
        let tag = self.u8()?;
        self.skip_with_tag(tag)
    }

    fn skip_with_tag(&mut self, tag: u8) -> Result<()> {
        match tag {
            TAG_FALSE | TAG_TRUE => {}
            TAG_INT | TAG_DATE | TAG_LOCAL_TIME => {
                self.varint()?;
            }
            TAG_FLOAT => {
                self.take(8)?;
            }
            TAG_UUID => {
                self.take(UUID_BYTES)?;
            }
            TAG_STRING | TAG_HEX | TAG_BYTES => {
                let n = self.len()?;
                self.take(n)?;
            }
            TAG_TIME | TAG_LOCAL_DATETIME => {
                self.varint()?;
                self.varint()?;
            }
            TAG_DATETIME | TAG_DATETIME_ZONE => {
                self.varint()?;
                self.varint()?;
                self.varint()?;
                if tag == TAG_DATETIME_ZONE {
                    let n = self.len()?;
                    self.take(n)?;
                }
            }
            TAG_DURATION => {
                for _ in 0..4 {
                    self.varint()?;
                }
            }
            TAG_POINT2 | TAG_POINT3 => {
                self.varint()?;
                self.take(if tag == TAG_POINT3 { 24 } else { 16 })?;
            }
            TAG_VECTOR => {
                self.vector_bytes()?;
            }
            TAG_LIST => {
                let n = self.len()?;
                for _ in 0..n {
                    let t = self.u8()?;
                    if t == TAG_LIST || t == TAG_VECTOR {
                        return Err(self.corrupt("nested list"));
                    }
                    self.skip_with_tag(t)?;
                }
            }
            _ => return Err(self.corrupt("unknown value tag")),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(v: &Value) -> Value {
        check_storable(v).unwrap();
        let mut buf = Vec::new();
        put_value(&mut buf, v);
        let mut r = Reader::new(&buf);
        let back = r.value().unwrap();
        assert!(r.at_end());
        let mut r = Reader::new(&buf);
        r.skip_value().unwrap();
        assert!(r.at_end());
        back
    }

    #[test]
    fn vectors_roundtrip_and_checked_copies_keep_them() {
        for t in CoordinateType::ALL {
            for len in [0usize, 3, 5000] {
                let values: Vec<Value> = (0..len).map(|i| Value::Int(i as i64 % 90)).collect();
                let v = Value::vector(Vector::from_values(&values, t).unwrap());
                assert_eq!(roundtrip(&v), v, "{t} x {len}");
                let mut buf = Vec::new();
                put_value(&mut buf, &v);
                let mut r = Reader::new(&buf);
                assert_eq!(r.checked_value().unwrap(), &buf[..]);
            }
        }
        // A list may not hold a vector, and the decoder refuses one inside a list.
        let one = Value::vector(Vector::Int8(vec![1].into()));
        assert!(check_storable(&Value::from(vec![one])).is_err());
        let bytes = [TAG_LIST, 1, TAG_VECTOR, 0, 1, 7];
        assert!(Reader::new(&bytes).value().is_err());
        assert!(Reader::new(&bytes).skip_value().is_err());
        // An unknown coordinate type and a truncated body are corrupt.
        assert!(Reader::new(&[TAG_VECTOR, 9, 0]).value().is_err());
        assert!(
            Reader::new(&[TAG_VECTOR, 2, 2, 0, 0, 0, 1])
                .value()
                .is_err()
        );
    }

    #[test]
    fn uuids_roundtrip_with_their_own_tag() {
        let u = Uuid::parse("550e8400-e29b-41d4-a716-446655440000").unwrap();
        let v = Value::Uuid(u);
        assert_eq!(roundtrip(&v), v);
        let mut buf = Vec::new();
        put_value(&mut buf, &v);
        let mut golden = vec![0x13];
        golden.extend_from_slice(u.as_bytes());
        assert_eq!(buf, golden);
        assert_eq!(Reader::new(&buf).checked_value().unwrap(), &buf[..]);
        // A list of UUIDs is a property like a list of strings; a mixed one is not.
        let list = Value::from(vec![v.clone(), Value::Uuid(Uuid::from_halves(1, 2))]);
        assert_eq!(roundtrip(&list), list);
        assert!(check_storable(&Value::from(vec![v, Value::from("x")])).is_err());
        // Fewer than 16 bytes are corrupt, whichever way they are read.
        assert!(Reader::new(&golden[..10]).value().is_err());
        assert!(Reader::new(&golden[..10]).skip_value().is_err());
        assert!(Reader::new(&golden[..10]).checked_value().is_err());
    }

    #[test]
    fn values_roundtrip() {
        let cases = vec![
            Value::Bool(true),
            Value::Bool(false),
            Value::Int(0),
            Value::Int(i64::MIN),
            Value::Int(i64::MAX),
            Value::Float(-1.5),
            Value::from("héllo"),
            Value::from("0123456789abcdef01234567"),
            Value::from("ABCD"),
            Value::from("abc"),
            Value::Bytes(Arc::from(&b"\x00\xff"[..])),
            Value::Date(Date { days: -5 }),
            Value::LocalTime(LocalTime { nanos: 77 }),
            Value::Time(Time {
                nanos: 5,
                offset_seconds: -3600,
            }),
            Value::LocalDateTime(LocalDateTime {
                seconds: -10,
                nanos: 999,
            }),
            Value::DateTime(Box::new(DateTime {
                seconds: 1,
                nanos: 2,
                offset_seconds: 3600,
                zone: TimeZone::Named("Europe/Paris".into()),
            })),
            Value::DateTime(Box::new(DateTime {
                seconds: 1,
                nanos: 2,
                offset_seconds: 3600,
                zone: TimeZone::Offset(3600),
            })),
            Value::Duration(Box::new(Duration {
                months: 1,
                days: -2,
                seconds: 3,
                nanos: 4,
            })),
            Value::Point(Box::new(Point {
                srid: 7203,
                x: 1.0,
                y: 2.0,
                z: None,
            })),
            Value::Point(Box::new(Point {
                srid: 9157,
                x: 1.0,
                y: 2.0,
                z: Some(3.0),
            })),
            Value::from(vec![Value::Int(1), Value::Int(2)]),
            Value::from(Vec::<Value>::new()),
        ];
        for v in cases {
            let back = roundtrip(&v);
            assert_eq!(format!("{v:?}"), format!("{back:?}"));
        }
    }

    #[test]
    fn hex_strings_pack() {
        let mut buf = Vec::new();
        put_value(&mut buf, &Value::from("0123456789abcdef01234567"));
        assert_eq!(buf.len(), 14);
    }

    #[test]
    fn unstorable_values_are_refused() {
        assert!(check_storable(&Value::Null).is_err());
        assert!(check_storable(&Value::map(Default::default())).is_err());
        assert!(check_storable(&Value::from(vec![Value::Int(1), Value::from("a")])).is_err());
        assert!(check_storable(&Value::from(vec![Value::Null])).is_err());
        assert!(check_storable(&Value::from(vec![Value::from(vec![Value::Int(1)])])).is_err());
    }

    #[test]
    fn garbage_never_panics() {
        let inputs: [&[u8]; 6] = [
            &[],
            &[0xff],
            &[
                TAG_STRING, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
            ],
            &[TAG_LIST, 2, TAG_LIST, 0],
            &[TAG_STRING, 2, 0xc3, 0x28],
            &[TAG_INT, 0x80, 0x80],
        ];
        for input in inputs {
            assert!(Reader::new(input).value().is_err());
        }
    }
}
