//! Model-based test of seeks through text and point indexes: under random creates, property
//! writes and deletes of nodes and relationships, in transactions that commit or roll back,
//! with garbage collection between them, every `CONTAINS`, `ENDS WITH`, `STARTS WITH`,
//! string equality, distance and bounding-box seek returns exactly what scanning the label
//! (or type) and testing each entity's property returns, at the same snapshot: in a fresh
//! reader, in the writing transaction itself, and in a reader opened before the write.

use std::collections::BTreeSet;
use std::sync::Arc;

use proptest::prelude::*;
use quiver_storage::*;
use quiver_value::spatial::{self, SRID_CARTESIAN, SRID_CARTESIAN_3D, SRID_WGS84};
use quiver_value::{Point, Value};

/// A property value: strings of a small alphabet (one letter of two UTF-8 bytes), integers,
/// and points of three coordinate systems.
fn value() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        4 => "[abé]{0,4}".prop_map(|s| Some(Value::from(s.as_str()))),
        1 => (0..5i64).prop_map(|i| Some(Value::Int(i))),
        3 => point().prop_map(|p| Some(Value::Point(Box::new(p)))),
        1 => Just(None),
    ]
}

fn point() -> impl Strategy<Value = Point> {
    prop_oneof![
        (-5..5i32, -5..5i32).prop_map(|(x, y)| Point {
            srid: SRID_CARTESIAN,
            x: f64::from(x),
            y: f64::from(y),
            z: None,
        }),
        (-3..3i32, -3..3i32, -3..3i32).prop_map(|(x, y, z)| Point {
            srid: SRID_CARTESIAN_3D,
            x: f64::from(x),
            y: f64::from(y),
            z: Some(f64::from(z)),
        }),
        // Longitudes by 30 degrees (both antimeridians included), latitudes by 15.
        (-6..=6i32, -6..=6i32).prop_map(|(lon, lat)| Point {
            srid: SRID_WGS84,
            x: f64::from(lon * 30),
            y: f64::from(lat * 15),
            z: None,
        }),
    ]
}

fn query() -> impl Strategy<Value = IndexQuery> {
    prop_oneof![
        "[abé]{0,2}".prop_map(IndexQuery::Contains),
        "[abé]{0,2}".prop_map(IndexQuery::EndsWith),
        "[abé]{0,2}".prop_map(IndexQuery::Prefix),
        "[abé]{0,3}".prop_map(|s| IndexQuery::Equals(Value::from(s.as_str()))),
        (point(), 0..8u32, any::<bool>()).prop_map(|(center, r, inclusive)| {
            // Geographic radii in thousands of kilometres, others in units.
            let radius = if spatial::is_geographic(center.srid) {
                f64::from(r) * 1_500_000.0
            } else {
                f64::from(r)
            };
            IndexQuery::Distance {
                center,
                radius,
                inclusive,
            }
        }),
        (point(), point()).prop_map(|(lower, upper)| IndexQuery::BBox { lower, upper }),
    ]
}

/// What the scan tests for each entity: Cypher's predicate, written out here.
fn holds(q: &IndexQuery, v: &Value) -> bool {
    match (q, v) {
        (IndexQuery::Contains(p), Value::String(s)) => s.contains(p.as_str()),
        (IndexQuery::EndsWith(p), Value::String(s)) => s.ends_with(p.as_str()),
        (IndexQuery::Prefix(p), Value::String(s)) => s.starts_with(p.as_str()),
        (IndexQuery::Equals(Value::String(p)), Value::String(s)) => s == p,
        (
            IndexQuery::Distance {
                center,
                radius,
                inclusive,
            },
            Value::Point(p),
        ) => spatial::distance(p, center).is_some_and(|d| {
            if *inclusive {
                d <= *radius
            } else {
                d < *radius
            }
        }),
        (IndexQuery::BBox { lower, upper }, Value::Point(p)) => {
            spatial::within_bbox(p, lower, upper) == Some(true)
        }
        _ => false,
    }
}

#[derive(Clone, Debug)]
enum Write {
    /// A node of the label with the property, and a loop on it of the type with the same.
    Create(Option<Value>),
    /// Sets (or removes) the property of the `i`th entity pair.
    Set(usize, Option<Value>),
    /// Deletes the `i`th entity pair.
    Delete(usize),
}

fn write() -> impl Strategy<Value = Write> {
    prop_oneof![
        3 => value().prop_map(Write::Create),
        3 => (0..64usize, value()).prop_map(|(i, v)| Write::Set(i, v)),
        1 => (0..64usize).prop_map(Write::Delete),
    ]
}

#[derive(Clone, Debug)]
struct Step {
    writes: Vec<Write>,
    commit: bool,
    gc: bool,
    queries: Vec<IndexQuery>,
}

fn step() -> impl Strategy<Value = Step> {
    (
        prop::collection::vec(write(), 1..6),
        prop::bool::weighted(0.7),
        prop::bool::weighted(0.3),
        prop::collection::vec(query(), 1..4),
    )
        .prop_map(|(writes, commit, gc, queries)| Step {
            writes,
            commit,
            gc,
            queries,
        })
}

struct Fixture {
    db: Arc<Storage>,
    label: LabelId,
    ty: RelTypeId,
    key: PropKeyId,
    /// Node and loop of every pair created, deleted ones too (their writes then fail).
    pairs: Vec<(NodeId, RelId)>,
}

impl Fixture {
    fn new() -> Self {
        let db = Storage::new();
        let label = db.get_or_create_label("Place").unwrap();
        let ty = db.get_or_create_rel_type("ROAD").unwrap();
        let key = db.get_or_create_property_key("p").unwrap();
        let s = db.begin_write();
        for (relationship, token) in [(false, label.0), (true, ty.0)] {
            for kind in [IndexKind::Text, IndexKind::Point] {
                s.create_schema_index(
                    IndexSpec {
                        relationship,
                        token,
                        keys: vec![key.0],
                        kind,
                    },
                    None,
                )
                .unwrap();
            }
        }
        s.commit().unwrap();
        Fixture {
            db,
            label,
            ty,
            key,
            pairs: Vec::new(),
        }
    }

    fn apply(&mut self, tx: &Transaction, w: &Write) {
        match w {
            Write::Create(v) => {
                let props: Vec<(PropKeyId, Value)> =
                    v.iter().map(|v| (self.key, v.clone())).collect();
                let n = tx.create_node(&[self.label], &props).unwrap();
                let r = tx.create_relationship(n, n, self.ty, &props).unwrap();
                self.pairs.push((n, r));
            }
            Write::Set(i, v) => {
                let Some(&(n, r)) = self.pairs.get(i % self.pairs.len().max(1)) else {
                    return;
                };
                let v = v.clone().unwrap_or(Value::Null);
                // A pair deleted (or rolled back) earlier is left alone.
                if tx.node_exists(n).unwrap() {
                    tx.set_node_property(n, self.key, v.clone()).unwrap();
                }
                if tx.rel_exists(r).unwrap() {
                    tx.set_relationship_property(r, self.key, v).unwrap();
                }
            }
            Write::Delete(i) => {
                let Some(&(n, r)) = self.pairs.get(i % self.pairs.len().max(1)) else {
                    return;
                };
                // The loop goes with its node.
                if tx.node_exists(n).unwrap() {
                    tx.detach_delete_node(n).unwrap();
                } else if tx.rel_exists(r).unwrap() {
                    tx.delete_relationship(r).unwrap();
                }
            }
        }
    }

    /// Checks every query's seeks against the scans at `tx`'s snapshot.
    fn check(&self, tx: &Transaction, queries: &[IndexQuery]) {
        for q in queries {
            let query = CompositeQuery {
                prefix: Vec::new(),
                last: q.clone(),
            };
            let mut scanned = BTreeSet::new();
            for n in tx.scan_label(self.label).unwrap() {
                let n = n.unwrap();
                if tx
                    .node_property(n, self.key)
                    .unwrap()
                    .is_some_and(|v| holds(q, &v))
                {
                    scanned.insert(n.0);
                }
            }
            let sought: BTreeSet<u64> = tx
                .node_index_seek(self.label.0, &[self.key.0], query.clone())
                .unwrap()
                .map(|n| n.unwrap().0)
                .collect();
            assert_eq!(sought, scanned, "nodes, {q:?}");
            let mut scanned = BTreeSet::new();
            for r in tx.scan_rels(&[self.ty]).unwrap() {
                let r = r.unwrap();
                if tx
                    .rel_property(r, self.key)
                    .unwrap()
                    .is_some_and(|v| holds(q, &v))
                {
                    scanned.insert(r.0);
                }
            }
            let sought: BTreeSet<u64> = tx
                .rel_index_seek(self.ty.0, &[self.key.0], query)
                .unwrap()
                .map(|r| r.unwrap().0)
                .collect();
            assert_eq!(sought, scanned, "relationships, {q:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn text_and_point_seeks_return_what_a_scan_returns(
        steps in prop::collection::vec(step(), 1..12)
    ) {
        let mut f = Fixture::new();
        for step in &steps {
            let before = f.db.begin_read();
            let tx = f.db.begin_write();
            // Each write a command of its own, so the next sees it.
            for w in &step.writes {
                f.apply(&tx, w);
                tx.advance_command().unwrap();
            }
            f.check(&tx, &step.queries);
            if step.commit {
                tx.commit().unwrap();
            } else {
                tx.rollback().unwrap();
            }
            f.check(&before, &step.queries);
            before.rollback().unwrap();
            if step.gc {
                f.db.gc();
            }
            let after = f.db.begin_read();
            f.check(&after, &step.queries);
            after.rollback().unwrap();
        }
    }
}
