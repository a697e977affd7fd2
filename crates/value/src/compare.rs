//! Cypher's equality, comparability and ordering.
//!
//! Three relations, each with its own job:
//! - [`equals`] is the ternary `=`: `null` when either side is `null` or when the answer hangs
//!   on a `null` inside a list or map (`[1, null] = [1, 2]`), `false` across types, and
//!   `NaN = NaN` is `false`. Integers and floats compare by value: `1 = 1.0`.
//! - [`comparison`] backs `<`, `<=`, `>`, `>=`: numbers, strings, booleans, lists, UUIDs and
//!   temporals of one type are comparable; anything else (maps, graph entities, durations, points,
//!   vectors, mixed types) yields `null`, and a comparison involving `NaN` is false whichever way it is
//!   asked ([`Comparison::Unordered`]).
//! - [`order`] is the total order of `ORDER BY`:
//!   Map < Node < Relationship < List < Bytes < Path < Point < DateTime < LocalDateTime < Date <
//!   Time < LocalTime < Duration < String < Boolean < Number < Vector < UUID < Null, with `NaN`
//!   after every other number; vectors order by coordinate type, then dimension, then
//!   coordinates, and UUIDs as unsigned 128-bit numbers (the order of their texts). Neo4j
//!   does not document where UUIDs stand among other types; Quiver puts the newest type last.
//!   Within a type it agrees with [`comparison`] wherever that is defined.
//!   Two values are equal under [`order`] exactly when they are [`equivalent`]: the relation
//!   `DISTINCT` and grouping use, where `null` is equivalent to `null` and `NaN` to `NaN`.
//!
//! Numbers are compared exactly, never by converting an integer to a float: `2^53 + 1` and
//! `2^53` as a float are different values, which keeps the order transitive.

use std::cmp::Ordering;

use crate::graph::Path;
use crate::spatial::Point;
use crate::temporal::{DateTime, Duration, Time, TimeZone};
use crate::value::{Map, Value};
use crate::vector::Vector;

/// The outcome of comparing two values with `<`-style operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    Less,
    Equal,
    Greater,
    /// `NaN` was involved: every inequality is false.
    Unordered,
    /// The values are not comparable (or one is `null`): every inequality is `null`.
    Undefined,
}

impl Comparison {
    fn from_ordering(ordering: Ordering) -> Comparison {
        match ordering {
            Ordering::Less => Comparison::Less,
            Ordering::Equal => Comparison::Equal,
            Ordering::Greater => Comparison::Greater,
        }
    }

    /// The ordering, when the values are ordered.
    pub fn ordering(self) -> Option<Ordering> {
        match self {
            Comparison::Less => Some(Ordering::Less),
            Comparison::Equal => Some(Ordering::Equal),
            Comparison::Greater => Some(Ordering::Greater),
            Comparison::Unordered | Comparison::Undefined => None,
        }
    }

    /// Evaluates an inequality given which orderings satisfy it.
    fn test(self, accept: impl Fn(Ordering) -> bool) -> Option<bool> {
        match self {
            Comparison::Undefined => None,
            Comparison::Unordered => Some(false),
            other => other.ordering().map(accept),
        }
    }
}

/// Cypher's `=`: `None` stands for `null`.
pub fn equals(a: &Value, b: &Value) -> Option<bool> {
    use Value as V;
    match (a, b) {
        (V::Null, _) | (_, V::Null) => None,
        (V::Bool(x), V::Bool(y)) => Some(x == y),
        (V::Int(x), V::Int(y)) => Some(x == y),
        (V::Float(x), V::Float(y)) => Some(x == y),
        (V::Int(i), V::Float(f)) | (V::Float(f), V::Int(i)) => {
            Some(compare_int_float(*i, *f) == Some(Ordering::Equal))
        }
        (V::String(x), V::String(y)) => Some(x == y),
        (V::Bytes(x), V::Bytes(y)) => Some(x == y),
        (V::List(x), V::List(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            all_equal(x.iter().zip(y.iter()))
        }
        (V::Map(x), V::Map(y)) => {
            if x.len() != y.len() || !x.keys().eq(y.keys()) {
                return Some(false);
            }
            all_equal(x.values().zip(y.values()))
        }
        (V::Node(x), V::Node(y)) => Some(x.id == y.id),
        (V::Relationship(x), V::Relationship(y)) => Some(x.id == y.id),
        (V::Path(x), V::Path(y)) => Some(same_path(x, y)),
        (V::Date(x), V::Date(y)) => Some(x == y),
        (V::LocalTime(x), V::LocalTime(y)) => Some(x == y),
        (V::Time(x), V::Time(y)) => Some(x == y),
        (V::LocalDateTime(x), V::LocalDateTime(y)) => Some(x == y),
        (V::DateTime(x), V::DateTime(y)) => Some(x == y),
        (V::Duration(x), V::Duration(y)) => Some(x == y),
        (V::Point(x), V::Point(y)) => Some(points_equal(x, y)),
        (V::Uuid(x), V::Uuid(y)) => Some(x == y),
        // Vectors of different coordinate types are values of different types: never equal.
        (V::Vector(x), V::Vector(y)) => Some(
            x.coordinate_type() == y.coordinate_type()
                && x.len() == y.len()
                && x.values()
                    .zip(y.values())
                    .all(|(p, q)| equals(&p, &q) == Some(true)),
        ),
        _ => Some(false),
    }
}

/// Cypher's `<>`.
pub fn not_equals(a: &Value, b: &Value) -> Option<bool> {
    equals(a, b).map(|e| !e)
}

/// Ternary conjunction of element equalities: any `false` decides, otherwise any `null` does.
fn all_equal<'a>(pairs: impl Iterator<Item = (&'a Value, &'a Value)>) -> Option<bool> {
    let mut result = Some(true);
    for (x, y) in pairs {
        match equals(x, y) {
            Some(false) => return Some(false),
            None => result = None,
            Some(true) => {}
        }
    }
    result
}

fn same_path(x: &Path, y: &Path) -> bool {
    x.nodes.len() == y.nodes.len()
        && x.relationships.len() == y.relationships.len()
        && x.nodes.iter().zip(&y.nodes).all(|(a, b)| a.id == b.id)
        && x.relationships
            .iter()
            .zip(&y.relationships)
            .all(|(a, b)| a.id == b.id)
}

fn points_equal(x: &Point, y: &Point) -> bool {
    x.srid == y.srid && x.x == y.x && x.y == y.y && x.z == y.z
}

/// Compares an integer with a float exactly; `None` if the float is `NaN`.
pub fn compare_int_float(i: i64, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    // 2^63: every float at or beyond it is outside the integer range.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if f >= LIMIT {
        return Some(Ordering::Less);
    }
    if f < -LIMIT {
        return Some(Ordering::Greater);
    }
    let whole = f.trunc();
    // Exact: `whole` is integral and within range.
    let whole_int = whole as i64;
    Some(i.cmp(&whole_int).then_with(|| {
        let fraction = f - whole;
        if fraction > 0.0 {
            Ordering::Less
        } else if fraction < 0.0 {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    }))
}

/// Compares two numbers; `None` when either is `NaN` or either is not a number.
fn compare_numbers(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Int(i), Value::Float(f)) => compare_int_float(*i, *f),
        (Value::Float(f), Value::Int(i)) => compare_int_float(*i, *f).map(Ordering::reverse),
        _ => None,
    }
}

fn is_number(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Float(_))
}

/// Compares two values for `<`, `<=`, `>` and `>=`.
pub fn comparison(a: &Value, b: &Value) -> Comparison {
    use Value as V;
    match (a, b) {
        (V::Null, _) | (_, V::Null) => Comparison::Undefined,
        _ if is_number(a) && is_number(b) => {
            compare_numbers(a, b).map_or(Comparison::Unordered, Comparison::from_ordering)
        }
        (V::String(x), V::String(y)) => Comparison::from_ordering(x.cmp(y)),
        (V::Bool(x), V::Bool(y)) => Comparison::from_ordering(x.cmp(y)),
        (V::Bytes(x), V::Bytes(y)) => Comparison::from_ordering(x.cmp(y)),
        (V::Uuid(x), V::Uuid(y)) => Comparison::from_ordering(x.cmp(y)),
        (V::List(x), V::List(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                match comparison(p, q) {
                    Comparison::Equal => {}
                    other => return other,
                }
            }
            Comparison::from_ordering(x.len().cmp(&y.len()))
        }
        (V::Date(x), V::Date(y)) => Comparison::from_ordering(x.cmp(y)),
        (V::LocalTime(x), V::LocalTime(y)) => Comparison::from_ordering(x.cmp(y)),
        (V::Time(x), V::Time(y)) => Comparison::from_ordering(order_times(x, y)),
        (V::LocalDateTime(x), V::LocalDateTime(y)) => Comparison::from_ordering(x.cmp(y)),
        (V::DateTime(x), V::DateTime(y)) => Comparison::from_ordering(order_date_times(x, y)),
        _ => Comparison::Undefined,
    }
}

/// The ordering for `<`-style operators; `None` when the result would be `null` or when `NaN`
/// is involved (use [`less_than`] and friends to evaluate operators, which tell those apart).
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    comparison(a, b).ordering()
}

/// Cypher's `<`: `None` stands for `null`.
pub fn less_than(a: &Value, b: &Value) -> Option<bool> {
    comparison(a, b).test(Ordering::is_lt)
}

/// Cypher's `<=`.
pub fn less_equal(a: &Value, b: &Value) -> Option<bool> {
    comparison(a, b).test(Ordering::is_le)
}

/// Cypher's `>`.
pub fn greater_than(a: &Value, b: &Value) -> Option<bool> {
    comparison(a, b).test(Ordering::is_gt)
}

/// Cypher's `>=`.
pub fn greater_equal(a: &Value, b: &Value) -> Option<bool> {
    comparison(a, b).test(Ordering::is_ge)
}

/// Times order by the instant they denote (local time minus offset), then by offset.
fn order_times(x: &Time, y: &Time) -> Ordering {
    let utc = |t: &Time| i128::from(t.nanos) - i128::from(t.offset_seconds) * 1_000_000_000;
    utc(x)
        .cmp(&utc(y))
        .then(x.offset_seconds.cmp(&y.offset_seconds))
}

/// Date-times order by instant, then offset, then zone (offsets before named zones).
fn order_date_times(x: &DateTime, y: &DateTime) -> Ordering {
    (x.seconds, x.nanos, x.offset_seconds)
        .cmp(&(y.seconds, y.nanos, y.offset_seconds))
        .then_with(|| match (&x.zone, &y.zone) {
            (TimeZone::Offset(a), TimeZone::Offset(b)) => a.cmp(b),
            (TimeZone::Offset(_), TimeZone::Named(_)) => Ordering::Less,
            (TimeZone::Named(_), TimeZone::Offset(_)) => Ordering::Greater,
            (TimeZone::Named(a), TimeZone::Named(b)) => a.cmp(b),
        })
}

/// Durations order by average length, then component by component.
fn order_durations(x: &Duration, y: &Duration) -> Ordering {
    (x.average_seconds(), x.nanos, x.months, x.days, x.seconds).cmp(&(
        y.average_seconds(),
        y.nanos,
        y.months,
        y.days,
        y.seconds,
    ))
}

/// A total order on floats for ordering purposes: `NaN` last (and equal to itself), `-0.0`
/// equal to `0.0`.
fn order_floats(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

fn order_points(x: &Point, y: &Point) -> Ordering {
    x.srid
        .cmp(&y.srid)
        .then_with(|| order_floats(x.x, y.x))
        .then_with(|| order_floats(x.y, y.y))
        .then_with(|| match (x.z, y.z) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(a), Some(b)) => order_floats(a, b),
        })
}

fn order_vectors(x: &Vector, y: &Vector) -> Ordering {
    x.coordinate_type()
        .cmp(&y.coordinate_type())
        .then_with(|| x.len().cmp(&y.len()))
        .then_with(|| {
            for (p, q) in x.values().zip(y.values()) {
                match order(&p, &q) {
                    Ordering::Equal => {}
                    other => return other,
                }
            }
            Ordering::Equal
        })
}

fn order_maps(x: &Map, y: &Map) -> Ordering {
    x.len()
        .cmp(&y.len())
        .then_with(|| x.keys().cmp(y.keys()))
        .then_with(|| {
            for (p, q) in x.values().zip(y.values()) {
                match order(p, q) {
                    Ordering::Equal => {}
                    other => return other,
                }
            }
            Ordering::Equal
        })
}

fn order_paths(x: &Path, y: &Path) -> Ordering {
    // Alternate node, relationship, node, ... as the path is walked.
    let steps = |p: &Path| {
        let mut ids = Vec::with_capacity(p.nodes.len() + p.relationships.len());
        for (i, node) in p.nodes.iter().enumerate() {
            ids.push(node.id);
            if let Some(rel) = p.relationships.get(i) {
                ids.push(rel.id);
            }
        }
        ids
    };
    steps(x).cmp(&steps(y))
}

/// Rank of a value's type in the cross-type order of `ORDER BY`.
fn type_rank(v: &Value) -> u8 {
    match v {
        Value::Map(_) => 0,
        Value::Node(_) => 1,
        Value::Relationship(_) => 2,
        Value::List(_) => 3,
        Value::Bytes(_) => 4,
        Value::Path(_) => 5,
        Value::Point(_) => 6,
        Value::DateTime(_) => 7,
        Value::LocalDateTime(_) => 8,
        Value::Date(_) => 9,
        Value::Time(_) => 10,
        Value::LocalTime(_) => 11,
        Value::Duration(_) => 12,
        Value::String(_) => 13,
        Value::Bool(_) => 14,
        Value::Int(_) | Value::Float(_) => 15,
        Value::Vector(_) => 16,
        Value::Uuid(_) => 17,
        Value::Null => 18,
    }
}

/// The total order of `ORDER BY` (ascending).
pub fn order(a: &Value, b: &Value) -> Ordering {
    use Value as V;
    let rank = type_rank(a).cmp(&type_rank(b));
    if rank != Ordering::Equal {
        return rank;
    }
    match (a, b) {
        (V::Float(x), V::Float(y)) => order_floats(*x, *y),
        (V::Int(_) | V::Float(_), V::Int(_) | V::Float(_)) => {
            compare_numbers(a, b).unwrap_or_else(|| {
                // Exactly one side is NaN (two NaNs are floats, handled above).
                if matches!(a, V::Float(f) if f.is_nan()) {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            })
        }
        (V::String(x), V::String(y)) => x.cmp(y),
        (V::Bool(x), V::Bool(y)) => x.cmp(y),
        (V::Bytes(x), V::Bytes(y)) => x.cmp(y),
        (V::List(x), V::List(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                match order(p, q) {
                    Ordering::Equal => {}
                    other => return other,
                }
            }
            x.len().cmp(&y.len())
        }
        (V::Map(x), V::Map(y)) => order_maps(x, y),
        (V::Node(x), V::Node(y)) => x.id.cmp(&y.id),
        (V::Relationship(x), V::Relationship(y)) => x.id.cmp(&y.id),
        (V::Path(x), V::Path(y)) => order_paths(x, y),
        (V::Point(x), V::Point(y)) => order_points(x, y),
        (V::Vector(x), V::Vector(y)) => order_vectors(x, y),
        (V::Uuid(x), V::Uuid(y)) => x.cmp(y),
        (V::Date(x), V::Date(y)) => x.cmp(y),
        (V::LocalTime(x), V::LocalTime(y)) => x.cmp(y),
        (V::Time(x), V::Time(y)) => order_times(x, y),
        (V::LocalDateTime(x), V::LocalDateTime(y)) => x.cmp(y),
        (V::DateTime(x), V::DateTime(y)) => order_date_times(x, y),
        (V::Duration(x), V::Duration(y)) => order_durations(x, y),
        _ => Ordering::Equal,
    }
}

/// The equivalence of `DISTINCT`, grouping and `IN` on hash sets: equality where `null` is
/// equivalent to `null` and `NaN` to `NaN`. Holds exactly when [`order`] says `Equal`.
pub fn equivalent(a: &Value, b: &Value) -> bool {
    use Value as V;
    match (a, b) {
        (V::Null, V::Null) => true,
        (V::Float(x), V::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (V::List(x), V::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| equivalent(p, q))
        }
        (V::Map(x), V::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && equivalent(v1, v2))
        }
        (V::Point(x), V::Point(y)) => order_points(x, y) == Ordering::Equal,
        (V::Vector(x), V::Vector(y)) => order_vectors(x, y) == Ordering::Equal,
        _ => equals(a, b) == Some(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::temporal::parse::parse_date_time;

    fn list(items: Vec<Value>) -> Value {
        Value::from(items)
    }

    fn map(entries: &[(&str, Value)]) -> Value {
        Value::map(
            entries
                .iter()
                .map(|(k, v)| (std::sync::Arc::from(*k), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn list_equality_is_ternary() {
        // Comparison1 [6], List3.
        let i = Value::Int;
        let n = Value::Null;
        assert_eq!(
            equals(&list(vec![i(1), i(2)]), &list(vec![i(1)])),
            Some(false)
        );
        assert_eq!(equals(&list(vec![n.clone()]), &list(vec![i(1)])), None);
        assert_eq!(
            equals(&list(vec!["a".into()]), &list(vec![i(1)])),
            Some(false)
        );
        assert_eq!(
            equals(
                &list(vec![list(vec![i(1)])]),
                &list(vec![list(vec![i(1)]), list(vec![n.clone()])])
            ),
            Some(false)
        );
        assert_eq!(
            equals(
                &list(vec![list(vec![i(1)]), list(vec![i(2)])]),
                &list(vec![list(vec![i(1)]), list(vec![n.clone()])])
            ),
            None
        );
        assert_eq!(
            equals(
                &list(vec![list(vec![i(1)]), list(vec![i(2), i(3)])]),
                &list(vec![list(vec![i(1)]), list(vec![n.clone()])])
            ),
            Some(false)
        );
        assert_eq!(equals(&list(vec![i(1), i(2)]), &"foo".into()), Some(false));
        assert_eq!(
            equals(
                &list(vec![i(1), i(2)]),
                &list(vec![n.clone(), "foo".into()])
            ),
            Some(false)
        );
        assert_eq!(equals(&list(vec![i(1), i(2)]), &list(vec![n, i(2)])), None);
    }

    #[test]
    fn map_equality_is_ternary() {
        // Comparison1 [7].
        let i = Value::Int;
        let n = || Value::Null;
        assert_eq!(equals(&map(&[]), &map(&[])), Some(true));
        assert_eq!(
            equals(&map(&[("k", i(1))]), &map(&[("k", i(1))])),
            Some(true)
        );
        assert_eq!(
            equals(
                &map(&[("k", Value::Float(1.0))]),
                &map(&[("k", Value::Float(1.0))])
            ),
            Some(true)
        );
        assert_eq!(equals(&map(&[]), &map(&[("k", n())])), Some(false));
        assert_eq!(
            equals(&map(&[("k", i(1))]), &map(&[("k", i(1)), ("l", n())])),
            Some(false)
        );
        assert_eq!(
            equals(&map(&[("k", n()), ("l", i(1))]), &map(&[("l", i(1))])),
            Some(false)
        );
        assert_eq!(
            equals(&map(&[("k", n())]), &map(&[("k", n()), ("l", n())])),
            Some(false)
        );
        assert_eq!(equals(&map(&[("k", n())]), &map(&[("k", n())])), None);
        assert_eq!(equals(&map(&[("k", i(1))]), &map(&[("k", n())])), None);
        assert_eq!(
            equals(
                &map(&[("k", i(1)), ("l", n())]),
                &map(&[("k", n()), ("l", n())])
            ),
            None
        );
        assert_eq!(
            equals(
                &map(&[("k", i(1)), ("l", n())]),
                &map(&[("k", n()), ("l", i(1))])
            ),
            None
        );
        assert_eq!(
            equals(
                &map(&[("k", i(1)), ("l", n())]),
                &map(&[("k", i(1)), ("l", i(1))])
            ),
            None
        );
    }

    #[test]
    fn numbers_compare_by_value_and_nan_is_never_equal() {
        // Comparison1 [8], [9].
        let nan = Value::Float(f64::NAN);
        for other in [Value::Int(1), Value::Float(1.0), nan.clone(), "a".into()] {
            assert_eq!(equals(&nan, &other), Some(false));
            assert_eq!(not_equals(&nan, &other), Some(true));
        }
        assert_eq!(equals(&Value::Int(1), &Value::Float(1.0)), Some(true));
        assert_eq!(equals(&"1.0".into(), &Value::Float(1.0)), Some(false));
        assert_eq!(equals(&"1".into(), &Value::Int(1)), Some(false));
        assert_eq!(equals(&Value::Null, &Value::Null), None);
        // Large integers are not rounded through floats.
        let big = Value::Int(4_611_686_018_427_387_905);
        assert_eq!(
            equals(&big, &Value::Int(4_611_686_018_427_387_900)),
            Some(false)
        );
        assert_eq!(
            equals(
                &Value::Int((1 << 53) + 1),
                &Value::Float(9_007_199_254_740_992.0)
            ),
            Some(false)
        );
    }

    #[test]
    fn inequalities() {
        let i = Value::Int;
        let nan = Value::Float(f64::NAN);
        assert_eq!(less_than(&i(1), &Value::Float(2.5)), Some(true));
        assert_eq!(less_than(&i(1), &"a".into()), None);
        assert_eq!(less_than(&nan, &i(1)), Some(false));
        assert_eq!(greater_equal(&nan, &i(1)), Some(false));
        assert_eq!(less_equal(&i(1), &nan), Some(false));
        assert_eq!(less_than(&"a".into(), &"b".into()), Some(true));
        assert_eq!(
            less_than(&Value::Bool(false), &Value::Bool(true)),
            Some(true)
        );
        assert_eq!(
            less_than(&list(vec![i(1), i(2)]), &list(vec![i(1), i(3)])),
            Some(true)
        );
        assert_eq!(
            less_than(&list(vec![i(1)]), &list(vec![i(1), i(0)])),
            Some(true)
        );
        assert_eq!(
            less_than(&list(vec![i(1), "a".into()]), &list(vec![i(1), i(2)])),
            None
        );
        assert_eq!(less_than(&map(&[]), &map(&[])), None);
        assert_eq!(less_than(&Value::Null, &i(1)), None);
        let d = Value::Duration(Box::default());
        assert_eq!(less_than(&d, &d), None);
    }

    #[test]
    fn order_by_sorts_lists_elementwise() {
        // WithOrderBy1 [9], [10].
        let i = Value::Int;
        let n = || Value::Null;
        let mut lists = vec![
            list(vec![]),
            list(vec!["a".into()]),
            list(vec!["a".into(), i(1)]),
            list(vec![i(1)]),
            list(vec![i(1), "a".into()]),
            list(vec![i(1), n()]),
            list(vec![n(), i(1)]),
            list(vec![n(), i(2)]),
        ];
        let expected = lists.clone();
        lists.reverse();
        lists.sort_by(order);
        assert_eq!(lists, expected);
    }

    #[test]
    fn order_by_sorts_types_in_the_documented_order() {
        // ReturnOrderBy1 [11], [12].
        let node = Value::Node(crate::graph::Node::new(1));
        let rel = Value::Relationship(crate::graph::Relationship::new(2));
        let path = Value::Path(std::sync::Arc::new(Path {
            nodes: vec![crate::graph::Node::new(1), crate::graph::Node::new(3)],
            relationships: vec![crate::graph::Relationship::new(2)],
        }));
        let expected = vec![
            map(&[("a", "map".into())]),
            node,
            rel,
            list(vec!["list".into()]),
            path,
            "text".into(),
            Value::Bool(false),
            Value::Float(1.5),
            Value::Float(f64::NAN),
            Value::Null,
        ];
        let mut shuffled = expected.clone();
        shuffled.rotate_left(4);
        shuffled.swap(0, 7);
        shuffled.sort_by(order);
        assert_eq!(shuffled, expected);
    }

    #[test]
    fn times_order_by_instant() {
        // WithOrderBy1 [15]: 12:35:15+05:00 < 12:30:14.645876123+01:01 < 12:31:14.645876123+01:00.
        let t = |s: &str| Value::Time(crate::temporal::parse::parse_time(s, 0).unwrap());
        let mut times = [
            t("10:35-08:00"),
            t("12:31:14.645876123+01:00"),
            t("12:31:14.645876124+01:00"),
            t("12:35:15+05:00"),
            t("12:30:14.645876123+01:01"),
        ];
        times.sort_by(order);
        assert_eq!(times[0], t("12:35:15+05:00"));
        assert_eq!(times[1], t("12:30:14.645876123+01:01"));
        assert_eq!(times[2], t("12:31:14.645876123+01:00"));
        assert_eq!(times[4], t("10:35-08:00"));
    }

    #[test]
    fn date_times_equal_only_in_the_same_zone() {
        let utc = TimeZone::Offset(0);
        let a = Value::DateTime(Box::new(
            parse_date_time("2018-01-01T00:00+01:00", &utc).unwrap(),
        ));
        let b = Value::DateTime(Box::new(
            parse_date_time("2017-12-31T23:00Z", &utc).unwrap(),
        ));
        assert_eq!(equals(&a, &b), Some(false));
        assert_ne!(order(&a, &b), Ordering::Equal);
        assert_eq!(equals(&a, &a.clone()), Some(true));
    }

    #[test]
    fn equivalence_treats_null_and_nan_as_themselves() {
        assert!(equivalent(&Value::Null, &Value::Null));
        assert!(equivalent(&Value::Float(f64::NAN), &Value::Float(f64::NAN)));
        assert!(equivalent(&Value::Int(1), &Value::Float(1.0)));
        assert!(equivalent(
            &list(vec![Value::Null]),
            &list(vec![Value::Null])
        ));
        assert!(!equivalent(&Value::Int(1), &Value::from("1")));
        assert!(equivalent(&Value::Float(0.0), &Value::Float(-0.0)));
    }
}
