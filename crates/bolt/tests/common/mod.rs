//! Helpers shared by the integration tests: structural equality for values (the value
//! crate's own equality is Cypher's, and graph entities compare by id alone there) and
//! proptest strategies for every kind of value Bolt carries.
#![allow(dead_code)]

use std::sync::Arc;

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use quiver_value::{
    Date, DateTime, Duration, LocalDateTime, LocalTime, Map, Node, NodeData, Path, Point, RelData,
    Relationship, Time, TimeZone, Value,
};

/// Every field equal, floats by bit pattern (so NaN equals itself).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q))
        }
        (Value::Map(x), Value::Map(y)) => same_map(x, y),
        (Value::Node(x), Value::Node(y)) => same_node(x, y),
        (Value::Relationship(x), Value::Relationship(y)) => same_rel(x, y),
        (Value::Path(x), Value::Path(y)) => {
            x.nodes.len() == y.nodes.len()
                && x.relationships.len() == y.relationships.len()
                && x.nodes.iter().zip(&y.nodes).all(|(p, q)| same_node(p, q))
                && x.relationships
                    .iter()
                    .zip(&y.relationships)
                    .all(|(p, q)| same_rel(p, q))
        }
        (Value::Date(x), Value::Date(y)) => x == y,
        (Value::LocalTime(x), Value::LocalTime(y)) => x == y,
        (Value::Time(x), Value::Time(y)) => x == y,
        (Value::LocalDateTime(x), Value::LocalDateTime(y)) => x == y,
        (Value::DateTime(x), Value::DateTime(y)) => x == y,
        (Value::Duration(x), Value::Duration(y)) => x == y,
        (Value::Point(x), Value::Point(y)) => {
            x.srid == y.srid
                && x.x.to_bits() == y.x.to_bits()
                && x.y.to_bits() == y.y.to_bits()
                && x.z.map(f64::to_bits) == y.z.map(f64::to_bits)
        }
        (Value::Vector(x), Value::Vector(y)) => {
            x.coordinate_type() == y.coordinate_type() && x.to_be_bytes() == y.to_be_bytes()
        }
        (Value::Uuid(x), Value::Uuid(y)) => x == y,
        _ => false,
    }
}

pub fn same_map(x: &Map, y: &Map) -> bool {
    x.len() == y.len()
        && x.iter()
            .zip(y.iter())
            .all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2))
}

fn same_node(x: &Node, y: &Node) -> bool {
    x.id == y.id
        && match (&x.data, &y.data) {
            (Some(a), Some(b)) => a.labels == b.labels && same_map(&a.properties, &b.properties),
            (None, None) => true,
            _ => false,
        }
}

fn same_rel(x: &Relationship, y: &Relationship) -> bool {
    x.id == y.id
        && match (&x.data, &y.data) {
            (Some(a), Some(b)) => {
                a.start == b.start
                    && a.end == b.end
                    && a.rel_type == b.rel_type
                    && same_map(&a.properties, &b.properties)
            }
            (None, None) => true,
            _ => false,
        }
}

pub fn int() -> impl Strategy<Value = i64> {
    prop_oneof![
        any::<i64>(),
        -20i64..130,
        prop::sample::select(vec![
            -129i64,
            -128,
            -17,
            -16,
            127,
            128,
            32767,
            32768,
            -32768,
            -32769,
            2_147_483_647,
            2_147_483_648,
            -2_147_483_648,
            -2_147_483_649,
            i64::MAX,
            i64::MIN,
        ]),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![".{0,20}", "[a-z]{0,300}", Just("ü".repeat(40_000))]
}

fn offset() -> impl Strategy<Value = i32> {
    -64_800i32..=64_800
}

/// Scalars, temporal and spatial values: everything a client may send.
pub fn parameter_scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        int().prop_map(Value::Int),
        any::<f64>().prop_map(Value::Float),
        text().prop_map(Value::from),
        vec(any::<u8>(), 0..300).prop_map(|b| Value::Bytes(b.into())),
        any::<i32>().prop_map(|d| Value::Date(Date { days: i64::from(d) })),
        (0i64..86_400_000_000_000).prop_map(|nanos| Value::LocalTime(LocalTime { nanos })),
        ((0i64..86_400_000_000_000), offset()).prop_map(|(nanos, offset_seconds)| Value::Time(
            Time {
                nanos,
                offset_seconds
            }
        )),
        ((-100_000_000_000i64..100_000_000_000), 0u32..1_000_000_000)
            .prop_map(|(seconds, nanos)| Value::LocalDateTime(LocalDateTime { seconds, nanos })),
        (
            (-100_000_000_000i64..100_000_000_000),
            0u32..1_000_000_000,
            offset()
        )
            .prop_map(|(seconds, nanos, o)| {
                Value::DateTime(Box::new(DateTime {
                    seconds,
                    nanos,
                    offset_seconds: o,
                    zone: TimeZone::Offset(o),
                }))
            }),
        ((-100_000_000_000i64..100_000_000_000), 0u32..1_000_000_000).prop_map(
            |(seconds, nanos)| {
                Value::DateTime(Box::new(DateTime {
                    seconds,
                    nanos,
                    offset_seconds: 0,
                    zone: TimeZone::Named("UTC".into()),
                }))
            }
        ),
        (int(), int(), int(), int()).prop_map(|(months, days, seconds, nanos)| Value::Duration(
            Box::new(Duration {
                months,
                days,
                seconds,
                nanos
            })
        )),
        (
            any::<u32>(),
            any::<f64>(),
            any::<f64>(),
            proptest::option::of(any::<f64>())
        )
            .prop_map(|(srid, x, y, z)| Value::Point(Box::new(Point { srid, x, y, z }))),
    ]
}

fn key() -> impl Strategy<Value = Arc<str>> {
    "[a-z_]{0,12}".prop_map(Arc::from)
}

pub fn props() -> impl Strategy<Value = Map> {
    btree_map(key(), parameter_scalar(), 0..4)
}

/// Any value a client may send, nested.
pub fn parameter() -> impl Strategy<Value = Value> {
    parameter_scalar().prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..10).prop_map(Value::from),
            btree_map(key(), inner, 0..8).prop_map(Value::map),
        ]
    })
}

fn labels() -> impl Strategy<Value = Vec<Arc<str>>> {
    vec("[A-Z][a-z]{0,6}".prop_map(Arc::from), 0..3)
}

pub fn node() -> impl Strategy<Value = Node> {
    (0u64..1 << 40, labels(), props()).prop_map(|(id, labels, properties)| Node {
        id,
        data: Some(Arc::new(NodeData { labels, properties })),
    })
}

pub fn relationship() -> impl Strategy<Value = Relationship> {
    (
        0u64..1 << 40,
        0u64..1 << 40,
        0u64..1 << 40,
        "[A-Z_]{1,8}",
        props(),
    )
        .prop_map(|(id, start, end, t, properties)| Relationship {
            id,
            data: Some(Arc::new(RelData {
                start,
                end,
                rel_type: t.into(),
                properties,
                ends: None,
            })),
        })
}

/// A path over a small pool of nodes and relationship ids, so entities repeat (exercising
/// the encoder's de-duplication) and steps go both ways.
pub fn path() -> impl Strategy<Value = Path> {
    (
        vec(node(), 1..4),
        vec((0usize..4, 0u64..3, any::<bool>()), 0..6),
    )
        .prop_map(|(pool, steps)| {
            let mut nodes = vec![pool[0].clone()];
            let mut relationships = Vec::new();
            for (to, rel_id, forward) in steps {
                let from = nodes.last().map_or(0, |n: &Node| n.id);
                let to = pool[to % pool.len()].clone();
                // A repeated relationship id must be the same relationship: derive the id from
                // its type and ends so repeats agree.
                let (start, end) = if forward {
                    (from, to.id)
                } else {
                    (to.id, from)
                };
                let rel_type: Arc<str> = Arc::from(format!("T{rel_id}").as_str());
                let id =
                    rel_id.wrapping_mul(1 << 50) ^ start.wrapping_mul(7) ^ end.wrapping_mul(13);
                relationships.push(Relationship {
                    id,
                    data: Some(Arc::new(RelData {
                        start,
                        end,
                        rel_type,
                        properties: Map::new(),
                        ends: None,
                    })),
                });
                nodes.push(to);
            }
            Path {
                nodes,
                relationships,
            }
        })
}

/// Any value a server may send, graph entities included.
pub fn result_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        4 => parameter_scalar(),
        1 => node().prop_map(Value::Node),
        1 => relationship().prop_map(Value::Relationship),
        1 => path().prop_map(|p| Value::Path(Arc::new(p))),
    ];
    leaf.prop_recursive(3, 48, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..8).prop_map(Value::from),
            btree_map(key(), inner, 0..6).prop_map(Value::map),
        ]
    })
}
