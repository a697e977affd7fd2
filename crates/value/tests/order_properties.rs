//! Property tests of Cypher's order: `ORDER BY`'s order is a total order, it agrees with the
//! `<`-style comparison wherever that is defined, and its equal values are exactly the ones
//! `DISTINCT` treats as equivalent (and hash alike).

use std::cmp::Ordering;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use proptest::prelude::*;
use quiver_value::compare::{Comparison, comparison, equals, equivalent, order};
use quiver_value::hash_key::HashKey;
use quiver_value::temporal::{Date, DateTime, Duration, LocalDateTime, LocalTime, Time, TimeZone};
use quiver_value::{Map, Node, Point, Relationship, Value, Vector};

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(0.0),
        Just(-0.0),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        (-3_i32..3).prop_map(f64::from),
        (-3_i32..3).prop_map(|i| f64::from(i) + 0.5),
        Just(9_007_199_254_740_992.0),
        Just(9_223_372_036_854_775_808.0),
        any::<f64>(),
    ]
}

fn int() -> impl Strategy<Value = i64> {
    prop_oneof![
        -3_i64..3,
        Just(9_007_199_254_740_993),
        Just(9_007_199_254_740_992),
        Just(i64::MAX),
        Just(i64::MIN),
        any::<i64>(),
    ]
}

fn zone() -> impl Strategy<Value = TimeZone> {
    prop_oneof![
        (-2_i32..=2).prop_map(|h| TimeZone::Offset(h * 3600)),
        Just(TimeZone::Named(Arc::from("Europe/Stockholm"))),
        Just(TimeZone::Named(Arc::from("UTC"))),
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        int().prop_map(Value::Int),
        float().prop_map(Value::Float),
        "[ab]{0,3}".prop_map(Value::from),
        prop::collection::vec(0_u8..3, 0..3).prop_map(|b| Value::Bytes(b.into())),
        (0_u64..3).prop_map(|id| Value::Node(Node::new(id))),
        (0_u64..3).prop_map(|id| Value::Relationship(Relationship::new(id))),
        (-3_i64..3).prop_map(|days| Value::Date(Date { days })),
        (0_i64..3).prop_map(|n| Value::LocalTime(LocalTime {
            nanos: n * 1_800_000_000_000
        })),
        ((0_i64..3), (-1_i32..=1)).prop_map(|(n, o)| Value::Time(Time {
            nanos: n * 3_600_000_000_000,
            offset_seconds: o * 3600
        })),
        ((-2_i64..2), (0_u32..2)).prop_map(|(s, n)| Value::LocalDateTime(LocalDateTime {
            seconds: s * 3600,
            nanos: n
        })),
        ((-2_i64..2), zone()).prop_map(|(s, zone)| {
            let offset_seconds = match zone {
                TimeZone::Offset(o) => o,
                TimeZone::Named(ref name) if &**name == "UTC" => 0,
                TimeZone::Named(_) => 3600,
            };
            Value::DateTime(Box::new(DateTime {
                seconds: s * 3600,
                nanos: 0,
                offset_seconds,
                zone,
            }))
        }),
        ((-1_i64..2), (-31_i64..32), (-86_400_i64..86_400)).prop_map(|(months, days, seconds)| {
            Value::Duration(Box::new(Duration {
                months,
                days,
                seconds: seconds * 30,
                nanos: 0,
            }))
        }),
        ((0_u32..2), float(), float()).prop_map(|(srid, x, y)| Value::Point(Box::new(Point {
            srid: if srid == 0 { 7203 } else { 4326 },
            x,
            y,
            z: None
        }))),
        prop::collection::vec(-2_i8..2, 0..3).prop_map(|c| Value::vector(Vector::Int8(c.into()))),
        prop::collection::vec(-2_i64..2, 0..3).prop_map(|c| Value::vector(Vector::Int64(c.into()))),
        prop::collection::vec(float(), 0..3).prop_map(|c| {
            Value::vector(Vector::Float32(c.into_iter().map(|x| x as f32).collect()))
        }),
        prop::collection::vec(float(), 0..3).prop_map(|c| Value::vector(Vector::Float64(c.into()))),
        // Few distinct UUIDs, so that equal ones meet.
        (0_i64..3, 0_i64..3)
            .prop_map(|(m, l)| Value::Uuid(quiver_value::Uuid::from_halves(m - 1, l))),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[ab]", inner, 0..3).prop_map(|m| {
                let map: Map = m
                    .into_iter()
                    .map(|(k, v)| (Arc::from(k.as_str()), v))
                    .collect();
                Value::map(map)
            }),
        ]
    })
}

fn hash_of(v: &Value) -> u64 {
    let mut h = DefaultHasher::new();
    HashKey(v.clone()).hash(&mut h);
    h.finish()
}

fn has_null_or_nan(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Float(f) => f.is_nan(),
        Value::List(items) => items.iter().any(has_null_or_nan),
        Value::Map(m) => m.values().any(has_null_or_nan),
        Value::Point(p) => p.x.is_nan() || p.y.is_nan(),
        Value::Vector(v) => v.to_f64_vec().iter().any(|x| x.is_nan()),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn order_is_antisymmetric_and_reflexive(a in value(), b in value()) {
        prop_assert_eq!(order(&a, &a), Ordering::Equal);
        prop_assert_eq!(order(&a, &b), order(&b, &a).reverse());
    }

    #[test]
    fn order_is_transitive(mut values in prop::collection::vec(value(), 0..12)) {
        values.sort_by(order);
        for i in 0..values.len() {
            for j in i + 1..values.len() {
                prop_assert_ne!(order(&values[i], &values[j]), Ordering::Greater,
                    "{:?} after {:?}", values[i], values[j]);
            }
        }
    }

    #[test]
    fn order_equality_is_equivalence_and_hashes_agree(a in value(), b in value()) {
        let same = order(&a, &b) == Ordering::Equal;
        prop_assert_eq!(same, equivalent(&a, &b));
        prop_assert_eq!(same, HashKey(a.clone()) == HashKey(b.clone()));
        if same {
            prop_assert_eq!(hash_of(&a), hash_of(&b));
        }
    }

    #[test]
    fn comparison_agrees_with_order_where_defined(a in value(), b in value()) {
        let expected = match comparison(&a, &b) {
            Comparison::Less => Some(Ordering::Less),
            Comparison::Equal => Some(Ordering::Equal),
            Comparison::Greater => Some(Ordering::Greater),
            Comparison::Unordered | Comparison::Undefined => None,
        };
        if let Some(expected) = expected {
            prop_assert_eq!(order(&a, &b), expected);
        }
        // The comparison is antisymmetric too.
        let flipped = match comparison(&b, &a) {
            Comparison::Less => Comparison::Greater,
            Comparison::Greater => Comparison::Less,
            other => other,
        };
        prop_assert_eq!(comparison(&a, &b), flipped);
    }

    #[test]
    fn equality_agrees_with_equivalence(a in value(), b in value()) {
        match equals(&a, &b) {
            Some(true) => prop_assert!(equivalent(&a, &b)),
            Some(false) if !has_null_or_nan(&a) && !has_null_or_nan(&b) => prop_assert!(!equivalent(&a, &b)),
            None => prop_assert!(has_null_or_nan(&a) || has_null_or_nan(&b)),
            Some(false) => {}
        }
        prop_assert_eq!(equals(&a, &b), equals(&b, &a));
    }
}
