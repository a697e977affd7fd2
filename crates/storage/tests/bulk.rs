//! The bulk paths against the transactional one: the same graph built through transactions
//! and through a bulk load, and the same redo records replayed transactionally and
//! unobserved, must read identically (entities, counts, indexes and what they find).

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::Mutex;
use proptest::prelude::*;
use quiver_storage::*;
use quiver_value::Value;

const LABELS: [&str; 3] = ["A", "B", "C"];
const KEYS: [&str; 3] = ["k", "name", "w"];
const TYPES: [&str; 2] = ["R", "S"];

#[derive(Clone, Debug)]
struct NodeSpec {
    labels: Vec<usize>,
    props: Vec<(usize, i64)>,
}

#[derive(Clone, Debug)]
struct RelSpec {
    start: usize,
    end: usize,
    ty: usize,
    props: Vec<(usize, i64)>,
}

fn value(key: usize, v: i64) -> Value {
    // One key holds strings, so index keys of more than one class are exercised.
    if key == 1 {
        Value::from(format!("n{v}"))
    } else {
        Value::Int(v)
    }
}

fn node_spec() -> impl Strategy<Value = NodeSpec> {
    (
        prop::collection::vec(0..LABELS.len(), 0..3),
        prop::collection::vec((0..KEYS.len(), 0..6i64), 0..3),
    )
        .prop_map(|(labels, props)| NodeSpec { labels, props })
}

fn graph_spec() -> impl Strategy<Value = (Vec<NodeSpec>, Vec<RelSpec>, Vec<(usize, usize)>)> {
    prop::collection::vec(node_spec(), 1..24).prop_flat_map(|nodes| {
        let n = nodes.len();
        let rel = (
            0..n,
            0..n,
            0..TYPES.len(),
            prop::collection::vec((0..KEYS.len(), 0..6i64), 0..2),
        )
            .prop_map(|(start, end, ty, props)| RelSpec {
                start,
                end,
                ty,
                props,
            });
        (
            Just(nodes),
            prop::collection::vec(rel, 0..40),
            prop::collection::vec((0..LABELS.len(), 0..KEYS.len()), 0..3),
        )
    })
}

struct Tokens {
    labels: Vec<LabelId>,
    keys: Vec<PropKeyId>,
    types: Vec<RelTypeId>,
}

fn tokens(db: &Storage) -> Tokens {
    Tokens {
        labels: LABELS
            .iter()
            .map(|l| db.get_or_create_label(l).unwrap())
            .collect(),
        keys: KEYS
            .iter()
            .map(|k| db.get_or_create_property_key(k).unwrap())
            .collect(),
        types: TYPES
            .iter()
            .map(|t| db.get_or_create_rel_type(t).unwrap())
            .collect(),
    }
}

fn props(t: &Tokens, ps: &[(usize, i64)]) -> Vec<(PropKeyId, Value)> {
    ps.iter()
        .map(|(k, v)| (t.keys[*k], value(*k, *v)))
        .collect()
}

/// Everything a reader can observe of a store, by name.
type NodeDump = (Vec<String>, Vec<(String, String)>, Vec<(u64, u64, bool)>);

#[derive(Debug, PartialEq)]
struct Dump {
    last_commit: u64,
    /// Labels, properties, and adjacency entries (relationship, other end, outgoing) in order.
    nodes: BTreeMap<u64, NodeDump>,
    rels: BTreeMap<u64, (u64, u64, String, Vec<(String, String)>)>,
    counts: Vec<(String, u64)>,
    indexes: Vec<(String, String, String, String)>,
    seeks: Vec<(String, String, Vec<u64>)>,
}

fn named_props(db: &Storage, ps: Vec<(PropKeyId, Value)>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = ps
        .into_iter()
        .map(|(k, v)| {
            (
                db.property_key_name(k).unwrap().to_string(),
                format!("{v:?}"),
            )
        })
        .collect();
    out.sort();
    out
}

fn dump(db: &Arc<Storage>) -> Dump {
    let r = db.begin_read();
    let mut nodes = BTreeMap::new();
    for n in r.scan_nodes().unwrap() {
        let n = n.unwrap();
        let mut labels: Vec<String> = r
            .node_labels(n)
            .unwrap()
            .iter()
            .map(|l| db.label_name(*l).unwrap().to_string())
            .collect();
        labels.sort();
        // Each node's entries, both directions (sorted: their order follows the type ids,
        // which differ between a store and its replay; `adjacency_order` compares it).
        let mut adjacency = adjacency_order(&r, n);
        adjacency.sort_unstable();
        nodes.insert(
            n.0,
            (
                labels,
                named_props(db, r.node_properties(n).unwrap()),
                adjacency,
            ),
        );
    }
    let mut rels = BTreeMap::new();
    for rel in r.scan_rels(&[]).unwrap() {
        let rel = rel.unwrap();
        let (s, e, t) = r.rel_endpoints(rel).unwrap();
        rels.insert(
            rel.0,
            (
                s.0,
                e.0,
                db.rel_type_name(t).unwrap().to_string(),
                named_props(db, r.rel_properties(rel).unwrap()),
            ),
        );
        // Both directions of the adjacency agree with the relationship.
        assert!(
            r.expand(s, Direction::Out, &[t])
                .unwrap()
                .contains(&(rel, e))
        );
        assert!(
            r.expand(e, Direction::In, &[t])
                .unwrap()
                .contains(&(rel, s))
        );
    }
    let counts = counts(db, &r);
    let mut indexes: Vec<_> = db
        .indexes()
        .into_iter()
        .map(|i| {
            (
                i.name,
                i.label.to_string(),
                i.key.to_string(),
                format!("{:?}/{:?}", i.kind, i.state),
            )
        })
        .collect();
    indexes.sort();
    let mut seeks = Vec::new();
    for i in db.indexes() {
        let l = db.label_id(&i.label).unwrap();
        let k = db.property_key_id(&i.key).unwrap();
        let key = KEYS.iter().position(|x| **x == *i.key).unwrap();
        for v in 0..6 {
            let mut found: Vec<u64> = r
                .index_seek(l, k, IndexQuery::Equals(value(key, v)))
                .unwrap()
                .map(|n| n.unwrap().0)
                .collect();
            found.sort_unstable();
            seeks.push((i.name.clone(), format!("{v}"), found));
        }
    }
    Dump {
        last_commit: db.last_committed(),
        nodes,
        rels,
        counts,
        indexes,
        seeks,
    }
}

/// A node's adjacency entries (relationship, other end, outgoing) in the order expand reads
/// them, outgoing first.
fn adjacency_order(r: &Transaction, n: NodeId) -> Vec<(u64, u64, bool)> {
    [(Direction::Out, true), (Direction::In, false)]
        .into_iter()
        .flat_map(|(dir, out)| {
            r.expand(n, dir, &[])
                .unwrap()
                .into_iter()
                .map(move |(rel, other)| (rel.0, other.0, out))
        })
        .collect()
}

/// Every node's adjacency in the order expand reads it (see `adjacency_order`).
fn adjacency_orders(db: &Arc<Storage>) -> Vec<Vec<(u64, u64, bool)>> {
    let r = db.begin_read();
    r.scan_nodes()
        .unwrap()
        .map(|n| adjacency_order(&r, n.unwrap()))
        .collect()
}

/// The store's counts, by name (a replayed store knows only the tokens its records name, so
/// the label and type counts are listed only where there is something to count).
fn counts(db: &Arc<Storage>, r: &Transaction) -> Vec<(String, u64)> {
    let mut counts = vec![
        ("*".to_string(), r.count_nodes().unwrap()),
        ("-*-".to_string(), r.count_rels().unwrap()),
    ];
    // By name, since a replayed store knows only the tokens its records name.
    for name in LABELS {
        let n = db.label_id(name).map_or(0, |l| r.count_label(l).unwrap());
        counts.push((name.to_string(), n));
    }
    for name in TYPES {
        let n = db
            .rel_type_id(name)
            .map_or(0, |t| r.count_rels_of_type(t).unwrap());
        counts.push((format!("-{name}-"), n));
        let Some(t) = db.rel_type_id(name) else {
            continue;
        };
        // Only what is there: a replayed store knows only the tokens its records name.
        let loops = r.count_self_loops(t).unwrap();
        if loops > 0 {
            counts.push((format!("({name})"), loops));
        }
        for label in LABELS {
            let Some(l) = db.label_id(label) else {
                continue;
            };
            for dir in [Direction::Out, Direction::In] {
                let n = r.count_rels_by_label(l, t, dir).unwrap();
                if n > 0 {
                    counts.push((format!("{label}-{name}-{dir:?}"), n));
                }
            }
        }
    }
    counts.sort();
    counts
}

/// The graph through transactions: the indexes first, then one transaction per entity kind.
fn built(nodes: &[NodeSpec], rels: &[RelSpec], indexes: &[(usize, usize)]) -> Arc<Storage> {
    let db = Storage::new();
    let t = tokens(&db);
    let tx = db.begin_write();
    for (l, k) in indexes {
        tx.create_index(t.labels[*l], t.keys[*k], None).unwrap();
    }
    tx.commit().unwrap();
    let tx = db.begin_write();
    for n in nodes {
        let ls: Vec<LabelId> = n.labels.iter().map(|l| t.labels[*l]).collect();
        tx.create_node(&ls, &props(&t, &n.props)).unwrap();
    }
    tx.commit().unwrap();
    let tx = db.begin_write();
    for r in rels {
        tx.create_relationship(
            NodeId(r.start as u64),
            NodeId(r.end as u64),
            t.types[r.ty],
            &props(&t, &r.props),
        )
        .unwrap();
    }
    tx.commit().unwrap();
    db.gc();
    db
}

fn loaded(
    nodes: &[NodeSpec],
    rels: &[RelSpec],
    indexes: &[(usize, usize)],
    commit: u64,
) -> Arc<Storage> {
    let db = Storage::new();
    let t = tokens(&db);
    let mut load = db.bulk_load().unwrap();
    for (l, k) in indexes {
        load.create_index(t.labels[*l], t.keys[*k], None).unwrap();
    }
    // Nodes from two threads, in halves, to exercise sections.
    let half = nodes.len() / 2;
    std::thread::scope(|scope| {
        for (from, part) in [(0, &nodes[..half]), (half, &nodes[half..])] {
            let mut section = load.section();
            let t = &t;
            scope.spawn(move || {
                for (i, n) in part.iter().enumerate() {
                    let ls: Vec<LabelId> = n.labels.iter().map(|l| t.labels[*l]).collect();
                    section
                        .node(NodeId((from + i) as u64), &ls, &props(t, &n.props))
                        .unwrap();
                }
            });
        }
    });
    assert_eq!(load.next_node_id(), NodeId(nodes.len() as u64));
    for (i, r) in rels.iter().enumerate() {
        load.relationship(
            RelId(i as u64),
            NodeId(r.start as u64),
            NodeId(r.end as u64),
            t.types[r.ty],
            &props(&t, &r.props),
        )
        .unwrap();
    }
    load.finish(commit).unwrap();
    db
}

/// A commit log that keeps every record.
#[derive(Default)]
struct Capture(Mutex<Vec<RedoRecord>>);

impl CommitLog for Capture {
    fn append(&self, record: &RedoRecord) -> Result<DurabilityTicket, quiver_storage::AppendError> {
        self.0.lock().push(record.clone());
        Ok(DurabilityTicket(record.commit))
    }
}

#[derive(Clone, Debug)]
enum Change {
    Create(NodeSpec),
    SetProp(usize, usize, Option<i64>),
    Label(usize, usize, bool),
    Connect(usize, usize, usize),
    DeleteRel(usize),
    DetachDelete(usize),
    Index(usize, usize, bool),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        3 => node_spec().prop_map(Change::Create),
        3 => (any::<usize>(), 0..KEYS.len(), prop::option::of(0..6i64))
            .prop_map(|(n, k, v)| Change::SetProp(n, k, v)),
        2 => (any::<usize>(), 0..LABELS.len(), any::<bool>())
            .prop_map(|(n, l, add)| Change::Label(n, l, add)),
        3 => (any::<usize>(), any::<usize>(), 0..TYPES.len())
            .prop_map(|(a, b, t)| Change::Connect(a, b, t)),
        1 => any::<usize>().prop_map(Change::DeleteRel),
        1 => any::<usize>().prop_map(Change::DetachDelete),
        1 => (0..LABELS.len(), 0..KEYS.len(), any::<bool>())
            .prop_map(|(l, k, u)| Change::Index(l, k, u)),
    ]
}

/// Runs the changes, a few per transaction, on a store whose log keeps the records; returns
/// the records. Changes the store refuses (a constraint, a vanished entity) are skipped.
fn records(changes: &[Change]) -> (Arc<Storage>, Vec<RedoRecord>) {
    let db = Storage::new();
    let log = Arc::new(Capture::default());
    db.set_commit_log(Some(log.clone()));
    let t = tokens(&db);
    let mut nodes: Vec<NodeId> = Vec::new();
    let mut rels: Vec<RelId> = Vec::new();
    for chunk in changes.chunks(3) {
        let schema = matches!(chunk[0], Change::Index(..));
        let tx = db.begin_write();
        let mut made_nodes = Vec::new();
        let mut made_rels = Vec::new();
        let ok = chunk.iter().all(|c| {
            let pick = |v: &[NodeId], i: usize| (!v.is_empty()).then(|| v[i % v.len()]);
            let r = match (c, schema) {
                (Change::Index(l, k, unique), true) => {
                    if *unique {
                        tx.create_unique_constraint(t.labels[*l], t.keys[*k], None)
                    } else {
                        tx.create_index(t.labels[*l], t.keys[*k], None)
                    }
                }
                (Change::Index(..), false) | (_, true) => return true,
                (Change::Create(n), false) => {
                    let ls: Vec<LabelId> = n.labels.iter().map(|l| t.labels[*l]).collect();
                    tx.create_node(&ls, &props(&t, &n.props))
                        .map(|id| made_nodes.push(id))
                }
                (Change::SetProp(n, k, v), false) => match pick(&nodes, *n) {
                    Some(id) => tx
                        .set_node_property(id, t.keys[*k], v.map_or(Value::Null, |v| value(*k, v)))
                        .map(|_| ()),
                    None => Ok(()),
                },
                (Change::Label(n, l, add), false) => match pick(&nodes, *n) {
                    Some(id) if *add => tx.add_label(id, t.labels[*l]).map(|_| ()),
                    Some(id) => tx.remove_label(id, t.labels[*l]).map(|_| ()),
                    None => Ok(()),
                },
                (Change::Connect(a, b, ty), false) => match (pick(&nodes, *a), pick(&nodes, *b)) {
                    (Some(a), Some(b)) => tx
                        .create_relationship(a, b, t.types[*ty], &[(t.keys[2], Value::Int(1))])
                        .map(|id| made_rels.push(id)),
                    _ => Ok(()),
                },
                (Change::DeleteRel(i), false) if !rels.is_empty() => {
                    tx.delete_relationship(rels[i % rels.len()])
                }
                (Change::DetachDelete(i), false) => match pick(&nodes, *i) {
                    Some(id) => tx.detach_delete_node(id).map(|_| ()),
                    None => Ok(()),
                },
                (Change::DeleteRel(_), false) => Ok(()),
            };
            r.is_ok()
        });
        if ok && tx.commit().is_ok() {
            nodes.extend(made_nodes);
            rels.extend(made_rels);
            // Deleted entities stay in the pick lists: a later change naming one fails and
            // its transaction is rolled back, which the replays never see.
        } else {
            let _ = tx.rollback();
        }
    }
    db.gc();
    let records = std::mem::take(&mut *log.0.lock());
    (db, records)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_bulk_load_reads_like_the_same_graph_built_by_transactions(
        (nodes, rels, mut indexes) in graph_spec()
    ) {
        indexes.sort_unstable();
        indexes.dedup();
        let a = built(&nodes, &rels, &indexes);
        let b = loaded(&nodes, &rels, &indexes, a.last_committed());
        prop_assert_eq!(dump(&a), dump(&b));
        prop_assert_eq!(b.stats().live_deltas, 0);
    }

    #[test]
    fn an_unobserved_replay_reads_like_a_transactional_one(
        changes in prop::collection::vec(change(), 1..60)
    ) {
        let (original, records) = records(&changes);
        let replayed = Storage::new();
        let unobserved = Storage::new();
        for r in &records {
            replayed.apply_redo(r).unwrap();
            unobserved.apply_redo_unobserved(r).unwrap();
        }
        replayed.gc();
        let want = dump(&original);
        prop_assert_eq!(&dump(&replayed), &want);
        prop_assert_eq!(&dump(&unobserved), &want);
        prop_assert_eq!(unobserved.stats().live_deltas, 0);
        prop_assert_eq!(unobserved.stats().index_entries, original.stats().index_entries);
    }
}

/// Every token's name by id: label, relationship type and property key tables.
fn token_tables(db: &Storage) -> [Vec<String>; 3] {
    let names =
        |name: &dyn Fn(u32) -> Option<String>| -> Vec<String> { (0..).map_while(name).collect() };
    [
        names(&|i| db.label_name(LabelId(i)).map(|n| n.to_string())),
        names(&|i| db.rel_type_name(RelTypeId(i)).map(|n| n.to_string())),
        names(&|i| db.property_key_name(PropKeyId(i)).map(|n| n.to_string())),
    ]
}

/// A history's records cut into runs at `cuts` (sizes, cycled) and split as given.
fn split_runs() -> impl Strategy<Value = (Vec<usize>, ReplaySplit)> {
    (
        prop::collection::vec(1..12usize, 1..6),
        1..4usize,
        0..3u32,
        prop_oneof![Just(1usize), Just(1 << 20)],
    )
        .prop_map(|(cuts, threads, bucket_bits, parallel_work_min)| {
            let split = ReplaySplit {
                threads,
                bucket_bits,
                parallel_work_min,
            };
            (cuts, split)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// The promise of `Storage::apply_redo_run_unobserved`: a history replayed in runs, its
    /// work split among owners, each owner's work sorted by entity and done on threads of
    /// its own, leaves the store the original transactions built and the one one-by-one
    /// replay builds: the same entities under the same ids, the same adjacency in the same
    /// order, counts, index entries and seeks, token ids and last commit. Histories hold
    /// deletions, label changes, and indexes and uniqueness constraints created midway.
    #[test]
    fn a_replay_in_runs_split_among_threads_reads_like_one_by_one_replay(
        changes in prop::collection::vec(change(), 1..80),
        (cuts, split) in split_runs(),
    ) {
        let (original, records) = records(&changes);
        let one_by_one = Storage::new();
        for r in &records {
            one_by_one.apply_redo_unobserved(r).unwrap();
        }
        let encoded: Vec<Vec<u8>> = records.iter().map(RedoRecord::encode).collect();
        let decoded: Vec<RedoRecordRef<'_>> = encoded
            .iter()
            .map(|b| RedoRecordRef::decode(b).unwrap().0)
            .collect();
        let in_runs = Storage::new();
        let mut from = 0;
        for cut in cuts.iter().cycle() {
            if from >= decoded.len() {
                break;
            }
            let to = (from + cut).min(decoded.len());
            in_runs.apply_redo_run_unobserved(&decoded[from..to], split).unwrap();
            from = to;
        }
        let want = dump(&original);
        prop_assert_eq!(&dump(&one_by_one), &want);
        prop_assert_eq!(&dump(&in_runs), &want);
        prop_assert_eq!(token_tables(&in_runs), token_tables(&one_by_one));
        prop_assert_eq!(adjacency_orders(&in_runs), adjacency_orders(&one_by_one));
        prop_assert_eq!(in_runs.stats().live_deltas, 0);
        prop_assert_eq!(in_runs.stats().index_entries, original.stats().index_entries);
    }
}

/// A run that would break a uniqueness constraint fails, as the record that breaks it fails
/// when replayed alone, and names a record of the run.
#[test]
fn a_run_that_breaks_a_uniqueness_constraint_is_refused() {
    let db = Storage::new();
    let log = Arc::new(Capture::default());
    db.set_commit_log(Some(log.clone()));
    let t = tokens(&db);
    let tx = db.begin_write();
    tx.create_unique_constraint(t.labels[0], t.keys[0], None)
        .unwrap();
    tx.commit().unwrap();
    for v in 0..2 {
        let tx = db.begin_write();
        tx.create_node(&[t.labels[0]], &[(t.keys[0], Value::Int(v))])
            .unwrap();
        tx.commit().unwrap();
    }
    let mut records = std::mem::take(&mut *log.0.lock());
    // The second node's record, rewritten to take the first one's key.
    let created = records[2]
        .ops
        .iter_mut()
        .find_map(|op| match op {
            RedoOp::CreateNode { props, .. } => Some(props),
            _ => None,
        })
        .expect("a node's creation");
    created[0].1 = Value::Int(0);
    let encoded: Vec<Vec<u8>> = records.iter().map(RedoRecord::encode).collect();
    let decoded: Vec<RedoRecordRef<'_>> = encoded
        .iter()
        .map(|b| RedoRecordRef::decode(b).unwrap().0)
        .collect();
    let alone = Storage::new();
    alone.apply_redo_unobserved(&records[0]).unwrap();
    alone.apply_redo_unobserved(&records[1]).unwrap();
    assert!(alone.apply_redo_unobserved(&records[2]).is_err());
    let split = ReplaySplit {
        threads: 2,
        bucket_bits: 0,
        parallel_work_min: 1,
    };
    let in_runs = Storage::new();
    let stopped = in_runs
        .apply_redo_run_unobserved(&decoded, split)
        .unwrap_err();
    assert!(
        matches!(stopped.error, Error::ConstraintViolation { .. }),
        "{:?}",
        stopped.error
    );
    assert!(stopped.record < decoded.len());
}

/// A load whose nodes span several buckets of gathered adjacency entries (65,536 node ids
/// each) and whose relationships come from two threads reads like the graph built by
/// transactions: every node's entries, from either thread, in order, counted once.
#[test]
fn relationships_from_several_sections_across_node_buckets_read_as_built() {
    const NODES: usize = 140_000;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let nodes: Vec<NodeSpec> = (0..NODES)
        .map(|i| NodeSpec {
            labels: vec![i % LABELS.len()],
            props: Vec::new(),
        })
        .collect();
    let mut rels: Vec<RelSpec> = (0..3_000)
        .map(|i| RelSpec {
            start: next(NODES),
            end: next(NODES),
            ty: i % TYPES.len(),
            props: vec![(0, i as i64)],
        })
        .collect();
    // Hubs at both sides of the first bucket boundary, and self-loops.
    for (i, hub) in [65_535usize, 65_536, 0, NODES - 1].into_iter().enumerate() {
        for j in 0..50 {
            let other = next(NODES);
            let (start, end) = if j % 2 == 0 {
                (hub, other)
            } else {
                (other, hub)
            };
            rels.push(RelSpec {
                start,
                end,
                ty: (i + j) % TYPES.len(),
                props: Vec::new(),
            });
        }
        rels.push(RelSpec {
            start: hub,
            end: hub,
            ty: i % TYPES.len(),
            props: Vec::new(),
        });
    }
    let a = built(&nodes, &rels, &[]);
    let b = Storage::new();
    let t = tokens(&b);
    let mut load = b.bulk_load().unwrap();
    for (i, n) in nodes.iter().enumerate() {
        let ls: Vec<LabelId> = n.labels.iter().map(|l| t.labels[*l]).collect();
        load.node(NodeId(i as u64), &ls, &[]).unwrap();
    }
    // Relationships from two sections, interleaved by id, and a few from the load itself.
    std::thread::scope(|scope| {
        for part in 0..2 {
            let mut section = load.section();
            let (t, rels) = (&t, &rels);
            scope.spawn(move || {
                for (i, r) in rels.iter().enumerate().skip(part).step_by(3) {
                    section
                        .relationship(
                            RelId(i as u64),
                            NodeId(r.start as u64),
                            NodeId(r.end as u64),
                            t.types[r.ty],
                            &props(t, &r.props),
                        )
                        .unwrap();
                }
            });
        }
    });
    for (i, r) in rels.iter().enumerate().skip(2).step_by(3) {
        load.relationship(
            RelId(i as u64),
            NodeId(r.start as u64),
            NodeId(r.end as u64),
            t.types[r.ty],
            &props(&t, &r.props),
        )
        .unwrap();
    }
    load.finish(a.last_committed()).unwrap();
    assert_eq!(dump(&a), dump(&b));
    assert_eq!(b.stats().live_deltas, 0);
}

/// A relationship naming a node the load does not hold is refused at once.
#[test]
fn a_relationship_to_a_node_not_loaded_is_refused() {
    let db = Storage::new();
    let t = tokens(&db);
    let mut load = db.bulk_load().unwrap();
    load.node(NodeId(0), &[], &[]).unwrap();
    load.node(NodeId(70_000), &[], &[]).unwrap();
    for (start, end) in [(0, 1), (69_999, 70_000), (70_001, 0)] {
        assert!(matches!(
            load.relationship(RelId(start), NodeId(start), NodeId(end), t.types[0], &[]),
            Err(Error::EntityNotFound { .. })
        ));
    }
    load.relationship(RelId(0), NodeId(70_000), NodeId(0), t.types[0], &[])
        .unwrap();
    load.finish(1).unwrap();
    let r = db.begin_read();
    assert_eq!(r.count_rels().unwrap(), 1);
    assert_eq!(r.degree(NodeId(0), Direction::In, &[]).unwrap(), 1);
}
