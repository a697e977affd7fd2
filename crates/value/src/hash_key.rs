//! Hashable keys under Cypher's equivalence, for `DISTINCT`, grouping and hashed `IN`.
//!
//! [`HashKey`] wraps a value so that it can sit in a `HashMap` or `HashSet`: two keys are equal
//! exactly when their values are [`equivalent`] (`null` with
//! `null`, `NaN` with `NaN`, `1` with `1.0`), and equal keys hash alike. To make the last
//! hold, numbers hash by value: a float with an integral value in the integer range hashes as
//! that integer. A group key of several columns is a `Vec<HashKey>`.

use std::hash::{Hash, Hasher};

use crate::compare::equivalent;
use crate::temporal::TimeZone;
use crate::value::Value;

/// A value compared and hashed under Cypher's equivalence.
#[derive(Clone, Debug)]
pub struct HashKey(pub Value);

impl HashKey {
    pub fn new(value: Value) -> Self {
        HashKey(value)
    }

    pub fn value(&self) -> &Value {
        &self.0
    }

    pub fn into_value(self) -> Value {
        self.0
    }
}

impl From<Value> for HashKey {
    fn from(value: Value) -> Self {
        HashKey(value)
    }
}

impl PartialEq for HashKey {
    fn eq(&self, other: &Self) -> bool {
        equivalent(&self.0, &other.0)
    }
}

impl Eq for HashKey {}

impl Hash for HashKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_value(&self.0, state);
    }
}

/// Tags keep values of different kinds from colliding by construction.
mod tag {
    pub const NULL: u8 = 0;
    pub const BOOL: u8 = 1;
    pub const INTEGRAL: u8 = 2;
    pub const FLOAT: u8 = 3;
    pub const NAN: u8 = 4;
    pub const STRING: u8 = 5;
    pub const BYTES: u8 = 6;
    pub const LIST: u8 = 7;
    pub const MAP: u8 = 8;
    pub const NODE: u8 = 9;
    pub const RELATIONSHIP: u8 = 10;
    pub const PATH: u8 = 11;
    pub const DATE: u8 = 12;
    pub const LOCAL_TIME: u8 = 13;
    pub const TIME: u8 = 14;
    pub const LOCAL_DATE_TIME: u8 = 15;
    pub const DATE_TIME: u8 = 16;
    pub const DURATION: u8 = 17;
    pub const POINT: u8 = 18;
    pub const VECTOR: u8 = 19;
    pub const UUID: u8 = 20;
}

/// Hashes a float so that values equivalent to it hash alike.
fn hash_float<H: Hasher>(f: f64, state: &mut H) {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() {
        state.write_u8(tag::NAN);
    } else if f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f) {
        // Integral and in range: hash as the integer it equals (`-0.0` becomes `0`).
        state.write_u8(tag::INTEGRAL);
        state.write_i64(f as i64);
    } else {
        state.write_u8(tag::FLOAT);
        state.write_u64(f.to_bits());
    }
}

/// Equivalent vectors share a coordinate type, so integers hash as integers and floats
/// through `hash_float` (which folds `-0.0` into `0` and every NaN together).
fn hash_vector<H: Hasher>(v: &crate::vector::Vector, state: &mut H) {
    state.write_u8(tag::VECTOR);
    state.write_u8(v.coordinate_type().code());
    state.write_usize(v.len());
    for c in v.values() {
        match c {
            Value::Int(x) => state.write_i64(x),
            Value::Float(x) => hash_float(x, state),
            _ => {}
        }
    }
}

/// Feeds a value to a hasher consistently with [`equivalent`].
pub fn hash_value<H: Hasher>(value: &Value, state: &mut H) {
    match value {
        Value::Null => state.write_u8(tag::NULL),
        Value::Bool(b) => {
            state.write_u8(tag::BOOL);
            state.write_u8(u8::from(*b));
        }
        Value::Int(i) => {
            state.write_u8(tag::INTEGRAL);
            state.write_i64(*i);
        }
        Value::Float(f) => hash_float(*f, state),
        Value::String(s) => {
            state.write_u8(tag::STRING);
            s.hash(state);
        }
        Value::Bytes(b) => {
            state.write_u8(tag::BYTES);
            b.hash(state);
        }
        Value::List(items) => {
            state.write_u8(tag::LIST);
            state.write_usize(items.len());
            for item in items.iter() {
                hash_value(item, state);
            }
        }
        Value::Map(map) => {
            state.write_u8(tag::MAP);
            state.write_usize(map.len());
            for (k, v) in map.iter() {
                k.hash(state);
                hash_value(v, state);
            }
        }
        Value::Node(n) => {
            state.write_u8(tag::NODE);
            state.write_u64(n.id);
        }
        Value::Relationship(r) => {
            state.write_u8(tag::RELATIONSHIP);
            state.write_u64(r.id);
        }
        Value::Path(p) => {
            state.write_u8(tag::PATH);
            state.write_usize(p.nodes.len());
            for n in &p.nodes {
                state.write_u64(n.id);
            }
            for r in &p.relationships {
                state.write_u64(r.id);
            }
        }
        Value::Date(d) => {
            state.write_u8(tag::DATE);
            d.hash(state);
        }
        Value::LocalTime(t) => {
            state.write_u8(tag::LOCAL_TIME);
            t.hash(state);
        }
        Value::Time(t) => {
            state.write_u8(tag::TIME);
            t.hash(state);
        }
        Value::LocalDateTime(t) => {
            state.write_u8(tag::LOCAL_DATE_TIME);
            t.hash(state);
        }
        Value::DateTime(t) => {
            state.write_u8(tag::DATE_TIME);
            state.write_i64(t.seconds);
            state.write_u32(t.nanos);
            state.write_i32(t.offset_seconds);
            match &t.zone {
                TimeZone::Offset(o) => state.write_i32(*o),
                TimeZone::Named(name) => name.hash(state),
            }
        }
        Value::Duration(d) => {
            state.write_u8(tag::DURATION);
            d.hash(state);
        }
        Value::Point(p) => {
            state.write_u8(tag::POINT);
            state.write_u32(p.srid);
            hash_float(p.x, state);
            hash_float(p.y, state);
            match p.z {
                Some(z) => hash_float(z, state),
                None => state.write_u8(tag::NULL),
            }
        }
        Value::Vector(v) => hash_vector(v, state),
        Value::Uuid(u) => {
            state.write_u8(tag::UUID);
            state.write(u.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn distinct_collapses_equivalent_values() {
        let values = [
            Value::Int(1),
            Value::Float(1.0),
            Value::Null,
            Value::Null,
            Value::Float(f64::NAN),
            Value::Float(f64::NAN),
            Value::Float(-0.0),
            Value::Int(0),
            Value::from(vec![Value::Int(1), Value::Null]),
            Value::from(vec![Value::Float(1.0), Value::Null]),
            Value::from("1"),
        ];
        let set: HashSet<HashKey> = values.into_iter().map(HashKey).collect();
        assert_eq!(set.len(), 6);
    }

    #[test]
    fn group_keys_of_several_columns() {
        let a = vec![HashKey(Value::Int(1)), HashKey(Value::from("x"))];
        let b = vec![HashKey(Value::Float(1.0)), HashKey(Value::from("x"))];
        let mut set = HashSet::new();
        set.insert(a);
        assert!(set.contains(&b));
    }
}
