//! Recovery replays the log in runs of records, its work split among threads (storage's
//! `apply_redo_run_unobserved`). The promise checked here: the store it recovers is the one
//! the log's records build when each is replayed alone through the transactional path, in
//! order, up to the last intact record: the same nodes and relationships under the same ids,
//! labels, properties, adjacency, counts, index entries and constraints, and last commit.
//! The history mixes creations, property changes and removals, label changes, relationship
//! and node deletions, and an index and a uniqueness constraint created midway, over
//! enough commits that runs are split among threads; its last record is torn.

mod common;

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::sync::Arc;

use common::{frame_offsets, options, segments};
use quiver_durability::{Durability, FRAME_HEADER_BYTES, Mode};
use quiver_storage::{
    Direction, IndexQuery, LabelId, NodeId, PropKeyId, RedoRecord, RelId, Storage, Transaction,
};
use quiver_value::Value;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const LABELS: [&str; 3] = ["A", "B", "C"];
const KEYS: [&str; 3] = ["k", "name", "w"];
const TYPES: [&str; 2] = ["R", "S"];

/// Commits a random history of `commits` transactions (seeded), creating the index and the
/// constraint after a third and two thirds of it.
fn history(db: &Arc<Storage>, commits: usize, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let labels: Vec<LabelId> = LABELS
        .iter()
        .map(|l| db.get_or_create_label(l).unwrap())
        .collect();
    let keys: Vec<PropKeyId> = KEYS
        .iter()
        .map(|k| db.get_or_create_property_key(k).unwrap())
        .collect();
    let types: Vec<_> = TYPES
        .iter()
        .map(|t| db.get_or_create_rel_type(t).unwrap())
        .collect();
    let mut nodes: Vec<NodeId> = Vec::new();
    let mut rels: Vec<RelId> = Vec::new();
    for c in 0..commits {
        let tx = db.begin_write();
        if c == commits / 3 {
            tx.create_index(labels[0], keys[0], Some("a_k")).unwrap();
            tx.commit().unwrap();
            continue;
        }
        if c == 2 * commits / 3 {
            // Unique over values no node holds yet: `name` values below are never in 1000..
            tx.create_unique_constraint(labels[1], keys[2], Some("b_w"))
                .unwrap();
            tx.commit().unwrap();
            continue;
        }
        let mut ok = true;
        for _ in 0..rng.random_range(1..6) {
            let pick = |rng: &mut StdRng, v: &[NodeId]| v[rng.random_range(0..v.len())];
            let choice = if nodes.len() < 2 {
                0
            } else {
                rng.random_range(0..10)
            };
            let r = match choice {
                0 | 1 => {
                    let l = labels[rng.random_range(0..labels.len())];
                    let props = [(keys[1], Value::from(format!("n{c}")))];
                    tx.create_node(&[l], &props).map(|id| nodes.push(id))
                }
                0..=3 => {
                    let k = keys[rng.random_range(0..2)];
                    let v = if rng.random_bool(0.2) {
                        Value::Null
                    } else {
                        Value::Int(rng.random_range(0..8))
                    };
                    let n = pick(&mut rng, &nodes);
                    tx.set_node_property(n, k, v).map(|_| ())
                }
                4 => {
                    let n = pick(&mut rng, &nodes);
                    let l = labels[rng.random_range(0..labels.len())];
                    if rng.random_bool(0.5) {
                        tx.add_label(n, l).map(|_| ())
                    } else {
                        tx.remove_label(n, l).map(|_| ())
                    }
                }
                5..=7 => {
                    let (a, b) = (pick(&mut rng, &nodes), pick(&mut rng, &nodes));
                    let ty = types[rng.random_range(0..types.len())];
                    let props = [(keys[2], Value::Int(c as i64 + 1000))];
                    tx.create_relationship(a, b, ty, &props)
                        .map(|id| rels.push(id))
                }
                8 if !rels.is_empty() => {
                    let i = rng.random_range(0..rels.len());
                    if rng.random_bool(0.5) {
                        tx.delete_relationship(rels.swap_remove(i))
                    } else {
                        let v = Value::Int(rng.random_range(0..4));
                        tx.set_relationship_property(rels[i], keys[0], v)
                            .map(|_| ())
                    }
                }
                _ => {
                    let i = rng.random_range(0..nodes.len());
                    tx.detach_delete_node(nodes.swap_remove(i)).map(|_| ())
                }
            };
            if r.is_err() {
                ok = false;
                break;
            }
        }
        if ok && tx.commit().is_ok() {
            continue;
        }
        // A change the store refused (a deleted entity picked again): the transaction goes,
        // and the lists are rebuilt from what the store holds.
        let _ = tx.rollback();
        let r = db.begin_read();
        nodes = r.scan_nodes().unwrap().map(Result::unwrap).collect();
        rels = r.scan_rels(&[]).unwrap().map(Result::unwrap).collect();
    }
}

/// Labels and properties by name, and relationships (with their ends), for one node.
type NodeDump = (Vec<String>, Vec<(String, String)>, Vec<(u64, u64, bool)>);

#[derive(Debug, PartialEq)]
struct Dump {
    last_commit: u64,
    nodes: BTreeMap<u64, NodeDump>,
    rels: BTreeMap<u64, (u64, u64, String, Vec<(String, String)>)>,
    counts: Vec<(String, u64)>,
    seeks: Vec<(String, i64, Vec<u64>)>,
    indexes: Vec<String>,
}

fn props(db: &Storage, ps: Vec<(PropKeyId, Value)>) -> Vec<(String, String)> {
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

fn adjacency(r: &Transaction, n: NodeId) -> Vec<(u64, u64, bool)> {
    let mut out: Vec<(u64, u64, bool)> = [(Direction::Out, true), (Direction::In, false)]
        .into_iter()
        .flat_map(|(dir, out)| {
            r.expand(n, dir, &[])
                .unwrap()
                .into_iter()
                .map(move |(rel, other)| (rel.0, other.0, out))
        })
        .collect();
    out.sort_unstable();
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
        let p = props(db, r.node_properties(n).unwrap());
        nodes.insert(n.0, (labels, p, adjacency(&r, n)));
    }
    let mut rels = BTreeMap::new();
    for rel in r.scan_rels(&[]).unwrap() {
        let rel = rel.unwrap();
        let (s, e, t) = r.rel_endpoints(rel).unwrap();
        let ty = db.rel_type_name(t).unwrap().to_string();
        rels.insert(
            rel.0,
            (s.0, e.0, ty, props(db, r.rel_properties(rel).unwrap())),
        );
    }
    let mut counts = vec![
        ("*".to_string(), r.count_nodes().unwrap()),
        ("-*-".to_string(), r.count_rels().unwrap()),
    ];
    for name in LABELS {
        let l = db.label_id(name).unwrap();
        counts.push((name.to_string(), r.count_label(l).unwrap()));
        for ty in TYPES {
            let t = db.rel_type_id(ty).unwrap();
            for dir in [Direction::Out, Direction::In] {
                let n = r.count_rels_by_label(l, t, dir).unwrap();
                counts.push((format!("{name}-{ty}-{dir:?}"), n));
            }
        }
    }
    for ty in TYPES {
        let t = db.rel_type_id(ty).unwrap();
        counts.push((format!("-{ty}-"), r.count_rels_of_type(t).unwrap()));
        counts.push((format!("({ty})"), r.count_self_loops(t).unwrap()));
    }
    let mut seeks = Vec::new();
    for (label, key, values) in [("A", "k", 0..8), ("B", "w", 1000..1010)] {
        let (l, k) = (
            db.label_id(label).unwrap(),
            db.property_key_id(key).unwrap(),
        );
        for v in values {
            let mut found: Vec<u64> = r
                .index_seek(l, k, IndexQuery::Equals(Value::Int(v)))
                .unwrap()
                .map(|n| n.unwrap().0)
                .collect();
            found.sort_unstable();
            seeks.push((format!("{label}.{key}"), v, found));
        }
    }
    let mut indexes: Vec<String> = db
        .indexes()
        .into_iter()
        .map(|i| {
            format!(
                "{} {} {} {:?} {:?}",
                i.name, i.label, i.key, i.kind, i.state
            )
        })
        .collect();
    indexes.sort();
    Dump {
        last_commit: db.last_committed(),
        nodes,
        rels,
        counts,
        seeks,
        indexes,
    }
}

/// The records of every intact frame in `dir`'s log, oldest first.
fn logged_records(dir: &std::path::Path) -> Vec<RedoRecord> {
    let mut out = Vec::new();
    for seg in segments(dir) {
        let bytes = std::fs::read(&seg).unwrap();
        for at in frame_offsets(&seg) {
            let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
            let Some(body) = bytes.get(at + FRAME_HEADER_BYTES..at + FRAME_HEADER_BYTES + len)
            else {
                break;
            };
            out.push(RedoRecord::decode(body).unwrap().0);
        }
    }
    out
}

#[test]
fn recovery_in_runs_on_threads_builds_what_replaying_each_record_alone_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let (db, d) = Durability::open(tmp.path(), Mode::Buffered, options()).unwrap();
    history(&db, 3000, 7);
    d.sync().unwrap();
    d.close().unwrap();
    let written = dump(&db);
    drop(db);
    // Each record replayed alone, through the transactional path: the oracle.
    let records = logged_records(tmp.path());
    assert_eq!(records.last().unwrap().commit, written.last_commit);
    let alone = Storage::new();
    for r in &records {
        alone.apply_redo(r).unwrap();
    }
    alone.gc();
    assert_eq!(dump(&alone), written);

    let (recovered, d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    assert_eq!(d.recovery().records_replayed, records.len() as u64);
    assert_eq!(dump(&recovered), written);
    assert_eq!(recovered.stats().live_deltas, 0);
    assert_eq!(recovered.stats().index_entries, alone.stats().index_entries);
    d.close().unwrap();
    drop(recovered);

    // A torn last record: recovery keeps everything before it, as the oracle without it.
    let seg = segments(tmp.path()).pop().unwrap();
    let last = *frame_offsets(&seg).last().unwrap();
    OpenOptions::new()
        .write(true)
        .open(&seg)
        .unwrap()
        .set_len(last as u64 + FRAME_HEADER_BYTES as u64 + 3)
        .unwrap();
    let records = logged_records(tmp.path());
    let alone = Storage::new();
    for r in &records {
        alone.apply_redo(r).unwrap();
    }
    alone.gc();
    let (recovered, d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    assert!(d.recovery().torn_tail.is_some());
    assert_eq!(dump(&recovered), dump(&alone));
    assert_eq!(recovered.last_committed() + 1, written.last_commit);
}
