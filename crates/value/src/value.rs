use std::collections::BTreeMap;
use std::sync::Arc;

use crate::graph::{Node, Path, Relationship};
use crate::spatial::Point;
use crate::temporal::{Date, DateTime, Duration, LocalDateTime, LocalTime, Time};
use crate::uuid::Uuid;
use crate::vector::Vector;

/// A map of string keys to values. Ordered so that output and hashing are deterministic.
pub type Map = BTreeMap<Arc<str>, Value>;

/// A Cypher value.
///
/// Kept at 24 bytes: strings, lists and maps are reference counted so that the executor can copy
/// rows cheaply, and the rare wide variants (zoned date-times, durations, points) are boxed.
#[derive(Clone, Debug, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(Arc<str>),
    Bytes(Arc<[u8]>),
    List(Arc<[Value]>),
    Map(Arc<Map>),
    Node(Node),
    Relationship(Relationship),
    Path(Arc<Path>),
    Date(Date),
    LocalTime(LocalTime),
    Time(Time),
    LocalDateTime(LocalDateTime),
    DateTime(Box<DateTime>),
    Duration(Box<Duration>),
    Point(Box<Point>),
    /// A `VECTOR`: coordinates of one numeric type, shared like lists.
    Vector(Arc<Vector>),
    /// A `UUID`: its 16 bytes, held inline (they fit beside the tag).
    Uuid(Uuid),
}

/// The type of a value, as Cypher names it in errors and in `valueType()`-style output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    Null,
    Boolean,
    Integer,
    Float,
    String,
    Bytes,
    List,
    Map,
    Node,
    Relationship,
    Path,
    Date,
    LocalTime,
    Time,
    LocalDateTime,
    DateTime,
    Duration,
    Point,
    Vector,
    Uuid,
}

impl ValueType {
    /// The name Cypher uses in type errors (`Integer`, `String`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ValueType::Null => "Null",
            ValueType::Boolean => "Boolean",
            ValueType::Integer => "Integer",
            ValueType::Float => "Float",
            ValueType::String => "String",
            ValueType::Bytes => "ByteArray",
            ValueType::List => "List",
            ValueType::Map => "Map",
            ValueType::Node => "Node",
            ValueType::Relationship => "Relationship",
            ValueType::Path => "Path",
            ValueType::Date => "Date",
            ValueType::LocalTime => "LocalTime",
            ValueType::Time => "Time",
            ValueType::LocalDateTime => "LocalDateTime",
            ValueType::DateTime => "DateTime",
            ValueType::Duration => "Duration",
            ValueType::Point => "Point",
            ValueType::Vector => "Vector",
            ValueType::Uuid => "UUID",
        }
    }
}

impl std::fmt::Display for ValueType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Value {
    pub fn value_type(&self) -> ValueType {
        match self {
            Value::Null => ValueType::Null,
            Value::Bool(_) => ValueType::Boolean,
            Value::Int(_) => ValueType::Integer,
            Value::Float(_) => ValueType::Float,
            Value::String(_) => ValueType::String,
            Value::Bytes(_) => ValueType::Bytes,
            Value::List(_) => ValueType::List,
            Value::Map(_) => ValueType::Map,
            Value::Node(_) => ValueType::Node,
            Value::Relationship(_) => ValueType::Relationship,
            Value::Path(_) => ValueType::Path,
            Value::Date(_) => ValueType::Date,
            Value::LocalTime(_) => ValueType::LocalTime,
            Value::Time(_) => ValueType::Time,
            Value::LocalDateTime(_) => ValueType::LocalDateTime,
            Value::DateTime(_) => ValueType::DateTime,
            Value::Duration(_) => ValueType::Duration,
            Value::Point(_) => ValueType::Point,
            Value::Vector(_) => ValueType::Vector,
            Value::Uuid(_) => ValueType::Uuid,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn string(s: impl Into<Arc<str>>) -> Value {
        Value::String(s.into())
    }

    pub fn list(items: impl Into<Arc<[Value]>>) -> Value {
        Value::List(items.into())
    }

    pub fn map(entries: Map) -> Value {
        Value::Map(Arc::new(entries))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::String(v.into())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::String(v.into())
    }
}
impl From<Uuid> for Value {
    fn from(v: Uuid) -> Self {
        Value::Uuid(v)
    }
}
impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Self {
        Value::List(v.into())
    }
}

/// Structural equality, for tests and assertions: same variant and same contents, with `NaN`
/// equal to itself and `1` different from `1.0`. Cypher's `=` is [`crate::compare::equals`].
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value as V;
        match (self, other) {
            (V::Null, V::Null) => true,
            (V::Bool(a), V::Bool(b)) => a == b,
            (V::Int(a), V::Int(b)) => a == b,
            (V::Float(a), V::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            (V::String(a), V::String(b)) => a == b,
            (V::Bytes(a), V::Bytes(b)) => a == b,
            (V::List(a), V::List(b)) => a == b,
            (V::Map(a), V::Map(b)) => a == b,
            (V::Node(a), V::Node(b)) => a == b,
            (V::Relationship(a), V::Relationship(b)) => a == b,
            (V::Path(a), V::Path(b)) => a.nodes == b.nodes && a.relationships == b.relationships,
            (V::Date(a), V::Date(b)) => a == b,
            (V::LocalTime(a), V::LocalTime(b)) => a == b,
            (V::Time(a), V::Time(b)) => a == b,
            (V::LocalDateTime(a), V::LocalDateTime(b)) => a == b,
            (V::DateTime(a), V::DateTime(b)) => a == b,
            (V::Duration(a), V::Duration(b)) => a == b,
            (V::Point(a), V::Point(b)) => a == b,
            (V::Vector(a), V::Vector(b)) => a.same(b),
            (V::Uuid(a), V::Uuid(b)) => a == b,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_stays_small() {
        assert!(
            std::mem::size_of::<Value>() <= 24,
            "{}",
            std::mem::size_of::<Value>()
        );
    }
}
