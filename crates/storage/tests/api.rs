//! The embedded API's behaviour: visibility, conflicts, rollback, commands, schema, errors.

use std::ops::Bound;
use std::sync::{Arc, Mutex};

use quiver_storage::*;
use quiver_value::Value;

struct Tokens {
    person: LabelId,
    admin: LabelId,
    name: PropKeyId,
    age: PropKeyId,
    knows: RelTypeId,
    likes: RelTypeId,
}

fn setup() -> (Arc<Storage>, Tokens) {
    let db = Storage::new();
    let t = Tokens {
        person: db.get_or_create_label("Person").unwrap(),
        admin: db.get_or_create_label("Admin").unwrap(),
        name: db.get_or_create_property_key("name").unwrap(),
        age: db.get_or_create_property_key("age").unwrap(),
        knows: db.get_or_create_rel_type("KNOWS").unwrap(),
        likes: db.get_or_create_rel_type("LIKES").unwrap(),
    };
    (db, t)
}

fn ids(c: NodeCursor) -> Vec<u64> {
    c.map(|r| r.unwrap().0).collect()
}

#[test]
fn snapshot_isolation_for_readers() {
    let (db, t) = setup();
    let w = db.begin_write();
    let n = w.create_node(&[t.person], &[(t.name, "a".into())]).unwrap();
    w.commit().unwrap();

    let before = db.begin_read();
    let w = db.begin_write();
    w.set_node_property(n, t.name, "b".into()).unwrap();
    w.add_label(n, t.admin).unwrap();
    let m = w.create_node(&[t.person], &[]).unwrap();
    // Uncommitted changes are invisible to others.
    assert_eq!(before.node_property(n, t.name).unwrap(), Some("a".into()));
    assert!(!before.node_exists(m).unwrap());
    w.commit().unwrap();
    // Still invisible to the old snapshot, visible to a new one.
    assert_eq!(before.node_property(n, t.name).unwrap(), Some("a".into()));
    assert!(!before.node_has_label(n, t.admin).unwrap());
    assert_eq!(before.count_label(t.person).unwrap(), 1);
    assert_eq!(ids(before.scan_label(t.person).unwrap()), vec![n.0]);
    let after = db.begin_read();
    assert_eq!(after.node_property(n, t.name).unwrap(), Some("b".into()));
    assert!(after.node_has_label(n, t.admin).unwrap());
    assert_eq!(after.count_label(t.person).unwrap(), 2);
    assert_eq!(ids(after.scan_label(t.person).unwrap()), vec![n.0, m.0]);
}

#[test]
fn commands_hide_own_later_writes() {
    let (db, t) = setup();
    let tx = db.begin_write();
    let a = tx.create_node(&[t.person], &[]).unwrap();
    // Same command: the creation is not visible yet.
    assert!(!tx.node_exists(a).unwrap());
    let scan = tx.scan_label(t.person).unwrap();
    tx.advance_command().unwrap();
    assert!(tx.node_exists(a).unwrap());
    assert_eq!(tx.count_label(t.person).unwrap(), 1);
    // A cursor opened before keeps its view even after more writes.
    tx.create_node(&[t.person], &[]).unwrap();
    assert_eq!(ids(scan), Vec::<u64>::new());
    tx.advance_command().unwrap();
    assert_eq!(ids(tx.scan_label(t.person).unwrap()).len(), 2);
}

#[test]
fn write_conflicts_fail_the_later_writer() {
    let (db, t) = setup();
    let w = db.begin_write();
    let n = w.create_node(&[], &[]).unwrap();
    w.commit().unwrap();

    let a = db.begin_write();
    let b = db.begin_write();
    a.set_node_property(n, t.age, Value::Int(1)).unwrap();
    let e = b.set_node_property(n, t.age, Value::Int(2)).unwrap_err();
    assert!(matches!(e, Error::WriteConflict { .. }) && e.is_retryable());
    a.commit().unwrap();
    // Committed after b's snapshot: still a conflict.
    assert!(matches!(
        b.set_node_property(n, t.age, Value::Int(2)),
        Err(Error::WriteConflict { .. })
    ));
    b.rollback().unwrap();
    let c = db.begin_write();
    c.set_node_property(n, t.age, Value::Int(3)).unwrap();
    c.commit().unwrap();
}

/// A writer that met another's uncommitted change can wait for that transaction's end, commit
/// or rollback, and a transaction begun after the wake writes the entity.
#[test]
fn a_conflicting_writer_can_be_waited_for() {
    use std::time::{Duration, Instant};
    let (db, t) = setup();
    let w = db.begin_write();
    let n = w.create_node(&[], &[]).unwrap();
    w.commit().unwrap();
    assert!(
        db.begin_write()
            .conflicting_writer(EntityKind::Node, n.0)
            .is_none()
    );

    for commit in [true, false] {
        let holder = db.begin_write();
        holder.set_node_property(n, t.age, Value::Int(1)).unwrap();
        let waiter = db.begin_write();
        assert!(matches!(
            waiter.set_node_property(n, t.age, Value::Int(2)),
            Err(Error::WriteConflict { .. })
        ));
        let wait = waiter.conflicting_writer(EntityKind::Node, n.0).unwrap();
        // The holder itself sees no other writer.
        assert!(holder.conflicting_writer(EntityKind::Node, n.0).is_none());
        waiter.rollback().unwrap();
        assert!(!wait.wait_until(Instant::now() + Duration::from_millis(20)));
        let ender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            if commit {
                holder.commit().map(|_| ())
            } else {
                holder.rollback()
            }
        });
        assert!(wait.wait_until(Instant::now() + Duration::from_secs(30)));
        assert!(wait.has_ended());
        ender.join().unwrap().unwrap();
        let again = db.begin_write();
        again.set_node_property(n, t.age, Value::Int(3)).unwrap();
        again.commit().unwrap();
    }
    // A conflict with a commit newer than the snapshot names no writer to wait for.
    let old = db.begin_write();
    let newer = db.begin_write();
    newer.set_node_property(n, t.age, Value::Int(4)).unwrap();
    newer.commit().unwrap();
    assert!(old.set_node_property(n, t.age, Value::Int(5)).is_err());
    assert!(old.conflicting_writer(EntityKind::Node, n.0).is_none());
}

#[test]
fn relationships_conflict_on_endpoints() {
    let (db, t) = setup();
    let w = db.begin_write();
    let a = w.create_node(&[], &[]).unwrap();
    let b = w.create_node(&[], &[]).unwrap();
    w.commit().unwrap();
    let x = db.begin_write();
    let y = db.begin_write();
    x.create_relationship(a, b, t.knows, &[]).unwrap();
    assert!(matches!(y.delete_node(b), Err(Error::WriteConflict { .. })));
    x.commit().unwrap();
    let z = db.begin_write();
    assert!(matches!(
        z.delete_node(b),
        Err(Error::DeleteConnectedNode { .. })
    ));
    assert_eq!(z.detach_delete_node(b).unwrap(), 1);
    z.commit().unwrap();
    let r = db.begin_read();
    assert!(r.expand(a, Direction::Both, &[]).unwrap().is_empty());
    assert!(matches!(
        r.node_labels(b),
        Err(Error::EntityNotFound { .. })
    ));
}

#[test]
fn rollback_restores_exactly() {
    let (db, t) = setup();
    let w = db.begin_write();
    let a = w
        .create_node(&[t.person], &[(t.name, "a".into()), (t.age, Value::Int(5))])
        .unwrap();
    let b = w.create_node(&[], &[]).unwrap();
    let r = w
        .create_relationship(a, b, t.knows, &[(t.age, Value::Int(1))])
        .unwrap();
    w.commit().unwrap();

    let w = db.begin_write();
    w.set_node_property(a, t.name, "z".into()).unwrap();
    w.remove_node_property(a, t.age).unwrap();
    w.remove_label(a, t.person).unwrap();
    w.add_label(a, t.admin).unwrap();
    w.delete_relationship(r).unwrap();
    w.create_relationship(b, a, t.likes, &[]).unwrap();
    w.create_node(&[t.person], &[]).unwrap();
    w.detach_delete_node(b).unwrap();
    w.rollback().unwrap();
    assert!(matches!(w.commit(), Err(Error::TransactionClosed)));

    let rd = db.begin_read();
    assert_eq!(rd.node_labels(a).unwrap().to_vec(), vec![t.person]);
    assert_eq!(
        rd.node_properties(a).unwrap(),
        vec![(t.name, "a".into()), (t.age, Value::Int(5))]
    );
    assert_eq!(rd.expand(a, Direction::Out, &[]).unwrap(), vec![(r, b)]);
    assert_eq!(rd.expand(b, Direction::In, &[]).unwrap(), vec![(r, a)]);
    assert_eq!(rd.rel_property(r, t.age).unwrap(), Some(Value::Int(1)));
    assert_eq!(rd.count_nodes().unwrap(), 2);
    assert_eq!(rd.count_rels().unwrap(), 1);
    drop(rd);
    db.gc();
    assert_eq!(db.stats().live_deltas, 0);
}

#[test]
fn expand_by_direction_and_type() {
    let (db, t) = setup();
    let w = db.begin_write();
    let a = w.create_node(&[], &[]).unwrap();
    let b = w.create_node(&[], &[]).unwrap();
    let r1 = w.create_relationship(a, b, t.knows, &[]).unwrap();
    let r2 = w.create_relationship(a, b, t.likes, &[]).unwrap();
    let r3 = w.create_relationship(b, a, t.knows, &[]).unwrap();
    let r4 = w.create_relationship(a, a, t.knows, &[]).unwrap();
    w.commit().unwrap();
    let r = db.begin_read();
    let mut out = r.expand(a, Direction::Out, &[t.knows]).unwrap();
    out.sort();
    assert_eq!(out, vec![(r1, b), (r4, a)]);
    assert_eq!(
        r.expand(a, Direction::Out, &[t.likes]).unwrap(),
        vec![(r2, b)]
    );
    let mut inc = r.expand(a, Direction::In, &[]).unwrap();
    inc.sort();
    assert_eq!(inc, vec![(r3, b), (r4, a)]);
    // Both reports the self-loop once.
    assert_eq!(r.expand(a, Direction::Both, &[]).unwrap().len(), 4);
    let mut batch = Vec::new();
    r.expand_batch(&[b, a], Direction::Out, &[t.knows], &mut batch)
        .unwrap();
    batch.sort();
    assert_eq!(batch, vec![(0, r3, a), (1, r1, b), (1, r4, a)]);
    assert!(matches!(
        r.expand_batch(&[a, NodeId(77)], Direction::Out, &[], &mut batch),
        Err(Error::EntityNotFound { .. })
    ));
    assert_eq!(r.degree(a, Direction::Out, &[t.knows]).unwrap(), 2);
    assert_eq!(r.degree(a, Direction::Both, &[]).unwrap(), 4);
    assert_eq!(r.count_rels_of_type(t.knows).unwrap(), 3);
    assert_eq!(r.rel_endpoints(r3).unwrap(), (b, a, t.knows));
    let rels: Vec<u64> = r
        .scan_rels(&[t.likes])
        .unwrap()
        .map(|x| x.unwrap().0)
        .collect();
    assert_eq!(rels, vec![r2.0]);
}

#[test]
fn bad_input_gets_typed_errors() {
    let (db, t) = setup();
    let r = db.begin_read();
    assert!(matches!(
        r.create_node(&[], &[]),
        Err(Error::ReadOnlyTransaction)
    ));
    assert!(matches!(
        r.node_labels(NodeId(99)),
        Err(Error::EntityNotFound { .. })
    ));
    assert!(matches!(
        r.node_labels(NodeId(u64::MAX)),
        Err(Error::EntityNotFound { .. })
    ));
    let w = db.begin_write();
    let n = w.create_node(&[], &[]).unwrap();
    assert!(matches!(
        w.set_node_property(n, t.name, Value::map(Default::default())),
        Err(Error::UnstorableValue(_))
    ));
    assert!(matches!(
        w.set_node_property(
            n,
            t.name,
            Value::from(vec![Value::Int(1), Value::from("x")])
        ),
        Err(Error::UnstorableValue(_))
    ));
    assert!(matches!(
        w.create_node(&[LabelId(12345)], &[]),
        Err(Error::UnknownToken { .. })
    ));
    assert!(matches!(
        w.create_relationship(n, NodeId(1 << 40), t.knows, &[]),
        Err(Error::EntityNotFound { .. })
    ));
    assert!(matches!(
        w.delete_relationship(RelId(3)),
        Err(Error::EntityNotFound { .. })
    ));
    // Setting null removes.
    w.set_node_property(n, t.name, "x".into()).unwrap();
    assert_eq!(
        w.set_node_property(n, t.name, Value::Null).unwrap(),
        Some("x".into())
    );
    w.commit().unwrap();
    assert!(matches!(w.node_exists(n), Err(Error::TransactionClosed)));
    assert!(matches!(
        w.create_node(&[], &[]),
        Err(Error::TransactionClosed)
    ));
    assert!(matches!(w.rollback(), Err(Error::TransactionClosed)));
}

#[test]
fn scans_by_id_range_split_a_scan_without_losing_or_repeating_a_node() {
    let (db, t) = setup();
    let w = db.begin_write();
    for i in 0..3000 {
        let labels = if i % 3 == 0 { vec![t.person] } else { vec![] };
        w.create_node(&labels, &[]).unwrap();
    }
    w.commit().unwrap();
    let r = db.begin_read();
    let bound = r.node_id_bound();
    assert_eq!(bound, 3000);
    let ranges = [
        0..1,
        1..700,
        700..2048,
        2048..2049,
        2049..bound,
        bound..u64::MAX,
    ];
    let mut labelled = Vec::new();
    let mut all = 0;
    for range in ranges {
        let morsel: Vec<u64> = r
            .scan_label_in(t.person, range.clone())
            .unwrap()
            .map(|n| n.unwrap().0)
            .collect();
        assert!(morsel.iter().all(|id| range.contains(id)));
        labelled.extend(morsel);
        all += r.scan_nodes_in(range).unwrap().count();
    }
    assert_eq!(labelled, (0..3000).step_by(3).collect::<Vec<_>>());
    assert_eq!(all, 3000);
    assert_eq!(r.scan_label_in(t.person, 5..5).unwrap().count(), 0);
}

/// A label scan locks each group of records once for all the candidates in it, and a
/// group's lock is let go before the next is taken: a scan sees exactly the nodes its
/// snapshot holds with the label, whatever a writer changed meanwhile (a node it labels or
/// unlabels in a group the scan crosses, before and after it commits), and touching records
/// reads nothing and changes nothing.
#[test]
fn a_label_scan_reads_each_group_once_and_sees_its_snapshot_beside_a_writer() {
    let (db, t) = setup();
    let w = db.begin_write();
    let ids: Vec<NodeId> = (0..100)
        .map(|i| {
            let labels = if i % 2 == 0 { vec![t.person] } else { vec![] };
            w.create_node(&labels, &[]).unwrap()
        })
        .collect();
    w.commit().unwrap();
    let before = db.begin_read();
    let writer = db.begin_write();
    writer.add_label(ids[3], t.person).unwrap();
    writer.remove_label(ids[10], t.person).unwrap();
    let scanned = |r: &quiver_storage::Transaction| -> Vec<u64> {
        r.scan_label(t.person)
            .unwrap()
            .map(|n| n.unwrap().0)
            .collect()
    };
    let evens: Vec<u64> = (0..100).step_by(2).collect();
    assert_eq!(scanned(&before), evens);
    // Unsorted, repeated, beyond the last node: nothing to see, nothing changed.
    let mut touched = vec![NodeId(99), NodeId(3), NodeId(3), NodeId(5000)];
    touched.extend(ids.iter().rev().copied());
    before.touch_nodes(&touched);
    writer.touch_nodes(&touched);
    assert_eq!(scanned(&before), evens);
    assert!(before.node_has_label(ids[10], t.person).unwrap());
    let mut written: Vec<u64> = evens.iter().copied().filter(|n| *n != 10).collect();
    written.push(3);
    written.sort_unstable();
    writer.commit().unwrap();
    assert_eq!(scanned(&before), evens);
    before.commit().unwrap();
    assert_eq!(scanned(&db.begin_read()), written);
}

#[test]
fn cursors_fail_after_their_transaction_ends() {
    let (db, t) = setup();
    let w = db.begin_write();
    for _ in 0..2000 {
        w.create_node(&[t.person], &[]).unwrap();
    }
    w.commit().unwrap();
    let r = db.begin_read();
    let after: Vec<u64> = r
        .scan_label_after(t.person, NodeId(1990))
        .unwrap()
        .map(|n| n.unwrap().0)
        .collect();
    assert_eq!(after, (1991..2000).collect::<Vec<_>>());
    assert_eq!(r.scan_nodes_after(NodeId(1997)).unwrap().count(), 2);
    assert_eq!(r.scan_nodes_after(NodeId(u64::MAX)).unwrap().count(), 0);
    let mut c = r.scan_nodes().unwrap();
    let mut first = Vec::new();
    assert_eq!(c.next_batch(10, &mut first).unwrap(), 10);
    r.commit().unwrap();
    let rest: Vec<_> = c.collect();
    assert!(
        rest.iter()
            .any(|x| matches!(x, Err(Error::TransactionClosed)))
    );
}

#[test]
fn index_seeks_are_mvcc_correct() {
    let (db, t) = setup();
    let w = db.begin_write();
    let mut nodes = Vec::new();
    for i in 0..100i64 {
        let name = format!("n{i:03}");
        nodes.push(
            w.create_node(
                &[t.person],
                &[(t.age, Value::Int(i)), (t.name, name.into())],
            )
            .unwrap(),
        );
    }
    w.commit().unwrap();
    let s = db.begin_write();
    s.create_index(t.person, t.age, None).unwrap();
    s.create_index(t.person, t.name, Some("by_name")).unwrap();
    assert!(matches!(
        s.create_node(&[], &[]),
        Err(Error::MixedSchemaAndData)
    ));
    s.commit().unwrap();
    assert_eq!(db.indexes().len(), 2);

    let old = db.begin_read();
    let w = db.begin_write();
    w.set_node_property(nodes[5], t.age, Value::Int(500))
        .unwrap();
    w.remove_label(nodes[6], t.person).unwrap();
    w.commit().unwrap();
    let new = db.begin_read();

    let eq = |tx: &Transaction, v: Value| {
        ids(tx
            .index_seek(t.person, t.age, IndexQuery::Equals(v))
            .unwrap())
    };
    assert_eq!(eq(&old, Value::Int(5)), vec![nodes[5].0]);
    assert_eq!(eq(&old, Value::Float(5.0)), vec![nodes[5].0]);
    assert_eq!(eq(&new, Value::Int(5)), Vec::<u64>::new());
    assert_eq!(eq(&new, Value::Int(500)), vec![nodes[5].0]);
    assert_eq!(eq(&old, Value::Int(500)), Vec::<u64>::new());
    assert_eq!(eq(&old, Value::Int(6)), vec![nodes[6].0]);
    assert_eq!(eq(&new, Value::Int(6)), Vec::<u64>::new());

    let range = |tx: &Transaction| {
        ids(tx
            .index_seek(
                t.person,
                t.age,
                IndexQuery::Range {
                    lower: Bound::Excluded(Value::Int(3)),
                    upper: Bound::Included(Value::Float(8.0)),
                },
            )
            .unwrap())
    };
    assert_eq!(range(&old).len(), 5);
    assert_eq!(range(&new).len(), 3);
    let inq = ids(new
        .index_seek(
            t.person,
            t.age,
            IndexQuery::In(vec![Value::Int(1), Value::Float(1.0), Value::Int(2)]),
        )
        .unwrap());
    assert_eq!(inq.len(), 2);
    let pre = ids(new
        .index_seek(t.person, t.name, IndexQuery::Prefix("n01".into()))
        .unwrap());
    assert_eq!(pre.len(), 10);
    assert!(matches!(
        new.index_seek(t.admin, t.age, IndexQuery::Exists),
        Err(Error::IndexNotFound { .. })
    ));
    drop((old, new));
    let s = db.begin_write();
    s.drop_index("by_name").unwrap();
    s.commit().unwrap();
    assert_eq!(db.indexes().len(), 1);
}

#[test]
fn uniqueness_is_enforced_at_commit() {
    let (db, t) = setup();
    let w = db.begin_write();
    let a = w.create_node(&[t.person], &[(t.name, "x".into())]).unwrap();
    w.create_node(&[t.person], &[(t.name, "x".into())]).unwrap();
    w.commit().unwrap();
    let s = db.begin_write();
    s.create_unique_constraint(t.person, t.name, Some("uniq"))
        .unwrap();
    assert!(matches!(
        s.commit(),
        Err(Error::ConstraintCreationFailed { .. })
    ));
    assert!(db.constraints().is_empty());

    let w = db.begin_write();
    w.set_node_property(a, t.name, "y".into()).unwrap();
    w.commit().unwrap();
    let s = db.begin_write();
    s.create_unique_constraint(t.person, t.name, Some("uniq"))
        .unwrap();
    s.commit().unwrap();
    assert_eq!(db.constraints().len(), 1);

    // Two concurrent creators of one key: the second commit fails.
    let p = db.begin_write();
    let q = db.begin_write();
    p.create_node(&[t.person], &[(t.name, "z".into())]).unwrap();
    q.create_node(&[t.person], &[(t.name, "z".into())]).unwrap();
    p.commit().unwrap();
    assert!(matches!(q.commit(), Err(Error::ConstraintViolation { .. })));
    // A duplicate by adding the label also fails.
    let w = db.begin_write();
    let n = w.create_node(&[], &[(t.name, "z".into())]).unwrap();
    w.add_label(n, t.person).unwrap();
    assert!(w.commit().is_err());
    // Freeing a value lets another take it.
    let w = db.begin_write();
    w.set_node_property(a, t.name, "free".into()).unwrap();
    w.create_node(&[t.person], &[(t.name, "y".into())]).unwrap();
    w.commit().unwrap();
}

#[test]
fn gc_returns_memory_to_baseline_after_a_burst() {
    let (db, t) = setup();
    let s = db.begin_write();
    s.create_index(t.person, t.age, None).unwrap();
    s.commit().unwrap();
    let w = db.begin_write();
    let nodes: Vec<NodeId> = (0..50)
        .map(|i| {
            w.create_node(&[t.person], &[(t.age, Value::Int(i))])
                .unwrap()
        })
        .collect();
    w.commit().unwrap();
    db.gc();
    let baseline = db.stats();
    assert_eq!(baseline.live_deltas, 0);
    assert_eq!(baseline.index_entries, 50);
    assert_eq!(baseline.label_bits, 50);

    // A reader pins old versions during the burst.
    let pinned = db.begin_read();
    for round in 0..20i64 {
        let w = db.begin_write();
        for (i, n) in nodes.iter().enumerate() {
            w.set_node_property(*n, t.age, Value::Int(1000 * round + i as i64))
                .unwrap();
        }
        let extra = w
            .create_node(&[t.person], &[(t.age, Value::Int(-1))])
            .unwrap();
        let other = w.create_node(&[t.admin], &[]).unwrap();
        w.create_relationship(extra, other, t.knows, &[]).unwrap();
        w.remove_label(nodes[0], t.person).unwrap();
        w.add_label(nodes[0], t.person).unwrap();
        w.commit().unwrap();
        let w = db.begin_write();
        w.detach_delete_node(extra).unwrap();
        w.delete_node(other).unwrap();
        w.commit().unwrap();
        let rb = db.begin_write();
        rb.create_node(&[t.person], &[(t.age, Value::Int(7))])
            .unwrap();
        rb.set_node_property(nodes[1], t.age, Value::Int(-5))
            .unwrap();
        rb.rollback().unwrap();
    }
    assert!(db.stats().live_deltas > 0);
    assert_eq!(
        pinned.node_property(nodes[3], t.age).unwrap(),
        Some(Value::Int(3))
    );
    drop(pinned);
    db.gc();
    let after = db.stats();
    assert_eq!(after.live_deltas, 0);
    assert_eq!(after.index_entries, baseline.index_entries);
    assert_eq!(after.label_bits, baseline.label_bits);
    assert_eq!(after.gc_pending_batches, 0);
    assert_eq!(after.count_history, 0);
    assert_eq!(after.live_snapshots, 0);
}

struct Capture(Mutex<Vec<Vec<u8>>>);

impl CommitLog for Capture {
    fn append(&self, record: &RedoRecord) -> Result<DurabilityTicket, quiver_storage::AppendError> {
        self.0.lock().unwrap().push(record.encode());
        Ok(DurabilityTicket(record.commit))
    }
}

#[test]
fn redo_records_replay_into_an_equal_store() {
    let (db, t) = setup();
    let log = Arc::new(Capture(Mutex::new(Vec::new())));
    db.set_commit_log(Some(log.clone()));
    let s = db.begin_write();
    s.create_unique_constraint(t.person, t.name, None).unwrap();
    s.commit().unwrap();
    let w = db.begin_write();
    let a = w
        .create_node(&[t.person], &[(t.name, "a".into()), (t.age, Value::Int(1))])
        .unwrap();
    let b = w.create_node(&[t.admin], &[]).unwrap();
    let r = w
        .create_relationship(a, b, t.knows, &[(t.age, Value::Float(0.5))])
        .unwrap();
    let info = w.commit().unwrap();
    assert_eq!(info.ticket, Some(DurabilityTicket(info.commit)));
    let w = db.begin_write();
    w.set_node_property(a, t.age, Value::Int(2)).unwrap();
    w.add_label(b, t.person).unwrap();
    w.set_node_property(b, t.name, "b".into()).unwrap();
    w.set_relationship_property(r, t.name, "rel".into())
        .unwrap();
    w.remove_relationship_property(r, t.age).unwrap();
    let c = w.create_node(&[], &[]).unwrap();
    w.create_relationship(c, a, t.likes, &[]).unwrap();
    w.commit().unwrap();
    let w = db.begin_write();
    w.detach_delete_node(c).unwrap();
    w.remove_label(a, t.person).unwrap();
    w.commit().unwrap();

    let replica = Storage::new();
    for bytes in log.0.lock().unwrap().iter() {
        let (rec, used) = RedoRecord::decode(bytes).unwrap();
        assert_eq!(used, bytes.len());
        replica.apply_redo(&rec).unwrap();
    }
    assert_eq!(replica.last_committed(), db.last_committed());
    let dump = |s: &Arc<Storage>| {
        let tx = s.begin_read();
        tx.export()
            .unwrap()
            .map(|op| format!("{:?}", op.unwrap()))
            .collect::<Vec<_>>()
    };
    assert_eq!(dump(&replica), dump(&db));
    assert_eq!(replica.constraints().len(), 1);
    // Ids out of range in a record are refused, not wrapped.
    let bad = RedoRecord {
        commit: replica.last_committed() + 1,
        ops: vec![RedoOp::CreateNode {
            id: u64::MAX,
            labels: vec![],
            props: vec![],
        }],
    };
    assert!(matches!(
        replica.apply_redo(&bad),
        Err(Error::CapacityExceeded { .. })
    ));
    // Replaying an old record again is refused.
    let first = log.0.lock().unwrap()[0].clone();
    let (rec, _) = RedoRecord::decode(&first).unwrap();
    assert!(matches!(replica.apply_redo(&rec), Err(Error::Replay(_))));
}

/// Every logged commit carries its time, taken under the commit lock: times follow commit
/// numbers, fall within the commit's call, and a replica that replays them stamps its own
/// next commit no earlier than the last one it replayed.
#[test]
fn every_logged_commit_carries_a_time_that_never_runs_backwards() {
    let (db, t) = setup();
    let log = Arc::new(Capture(Mutex::new(Vec::new())));
    db.set_commit_log(Some(log.clone()));
    let micros = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_micros() as i64
    };
    let before = micros();
    for _ in 0..20 {
        let w = db.begin_write();
        w.create_node(&[t.person], &[]).unwrap();
        w.commit().unwrap();
    }
    let after = micros();
    let records: Vec<RedoRecord> = log
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|bytes| RedoRecord::decode(bytes).unwrap().0)
        .collect();
    let times: Vec<i64> = records.iter().map(|r| r.commit_time().unwrap()).collect();
    assert_eq!(times.len(), 20);
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    assert!(before <= times[0] && times[19] <= after, "{times:?}");
    assert_eq!(db.last_commit_time(), Some(times[19]));

    // A replica replays a time from its future: its own next commit is stamped no earlier.
    let replica = Storage::new();
    let future = RedoRecord {
        commit: 1,
        ops: vec![
            RedoOp::CreateNode {
                id: 0,
                labels: vec![],
                props: vec![],
            },
            RedoOp::CommitTime {
                micros: after + 3_600_000_000,
            },
        ],
    };
    replica.apply_redo(&future).unwrap();
    assert_eq!(replica.last_commit_time(), Some(after + 3_600_000_000));
    let replica_log = Arc::new(Capture(Mutex::new(Vec::new())));
    replica.set_commit_log(Some(replica_log.clone()));
    let w = replica.begin_write();
    w.create_node(&[], &[]).unwrap();
    w.commit().unwrap();
    let bytes = replica_log.0.lock().unwrap()[0].clone();
    let stamped = RedoRecord::decode(&bytes).unwrap().0.commit_time();
    assert_eq!(stamped, Some(after + 3_600_000_000));
}

struct Refuse;

impl CommitLog for Refuse {
    fn append(&self, _: &RedoRecord) -> Result<DurabilityTicket, quiver_storage::AppendError> {
        Err(quiver_storage::AppendError::Refused("disk full".into()))
    }
}

#[test]
fn a_failed_log_append_rolls_back() {
    let (db, t) = setup();
    db.set_commit_log(Some(Arc::new(Refuse)));
    let w = db.begin_write();
    w.create_node(&[t.person], &[]).unwrap();
    assert!(matches!(
        w.commit(),
        Err(Error::CommitLog(quiver_storage::AppendError::Refused(_)))
    ));
    db.set_commit_log(None);
    assert_eq!(db.begin_read().count_nodes().unwrap(), 0);
    assert_eq!(db.last_committed(), 0);
}

/// The names of every index and constraint the store publishes, of every kind, sorted.
fn schema_names(db: &Storage) -> Vec<String> {
    let mut names: Vec<String> = db.indexes().into_iter().map(|i| i.name).collect();
    names.extend(db.fulltext_indexes().into_iter().map(|i| i.spec.name));
    names.extend(db.vector_indexes().into_iter().map(|i| i.name));
    names.sort();
    names
}

#[test]
fn a_commit_the_log_refuses_leaves_the_schema_as_it_was() {
    let (db, t) = setup();
    let w = db.begin_write();
    w.create_index(t.person, t.age, Some("ages")).unwrap();
    w.create_fulltext_index(FulltextSpec {
        name: "names".into(),
        entity: FulltextEntity::Node,
        tokens: vec!["Person".into()],
        keys: vec!["name".into()],
        analyzer: "standard-no-stop-words".into(),
        eventually_consistent: false,
    })
    .unwrap();
    let config = VectorConfig {
        dimensions: 2,
        similarity: Similarity::Cosine,
        quantization: false,
        hnsw_m: 16,
        hnsw_ef_construction: 100,
        hnsw_ef_search: 100,
    };
    w.create_vector_index(Some("embeddings"), false, t.person.0, (t.age, &[]), config)
        .unwrap();
    w.commit().unwrap();
    let before = schema_names(&db);
    assert_eq!(before, ["ages", "embeddings", "names"]);

    // One commit drops every kind of index and creates one of each again under new names:
    // the log refuses it, and each drop is undone as each creation is.
    db.set_commit_log(Some(Arc::new(Refuse)));
    let w = db.begin_write();
    for name in ["ages", "names", "embeddings"] {
        w.drop_index(name).unwrap();
    }
    w.create_index(t.person, t.name, Some("names2")).unwrap();
    w.create_vector_index(Some("embeddings2"), false, t.admin.0, (t.age, &[]), config)
        .unwrap();
    assert!(matches!(w.commit(), Err(Error::CommitLog(_))));
    db.set_commit_log(None);
    assert_eq!(schema_names(&db), before);

    // The indexes put back are the live ones: a later commit still reaches them.
    let w = db.begin_write();
    let n = w
        .create_node(&[t.person], &[(t.name, "ada".into())])
        .unwrap();
    w.commit().unwrap();
    let r = db.begin_read();
    let hits = r
        .fulltext_search("names", FulltextEntity::Node, "ada", 0, 10)
        .unwrap();
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [n.0]);
}

#[test]
fn readers_can_lag_behind_commits() {
    let (db, t) = setup();
    db.set_readers_follow_commits(false);
    let w = db.begin_write();
    w.create_node(&[t.person], &[]).unwrap();
    let c = w.commit().unwrap().commit;
    assert_eq!(db.begin_read().count_nodes().unwrap(), 0);
    assert_eq!(db.begin_write().count_nodes().unwrap(), 1);
    db.advance_visible(c);
    assert_eq!(db.begin_read().count_nodes().unwrap(), 1);
}

#[test]
fn materialized_values_carry_names() {
    let (db, t) = setup();
    let w = db.begin_write();
    let a = w.create_node(&[t.person], &[(t.name, "a".into())]).unwrap();
    let r = w.create_relationship(a, a, t.knows, &[]).unwrap();
    w.commit().unwrap();
    let tx = db.begin_read();
    let n = tx.materialize_node(a).unwrap();
    let data = n.data.unwrap();
    assert_eq!(&*data.labels[0], "Person");
    assert_eq!(
        data.properties.get("name").and_then(Value::as_str),
        Some("a")
    );
    let rel = tx.materialize_rel(r).unwrap();
    assert_eq!(&*rel.data.unwrap().rel_type, "KNOWS");
    assert_eq!(a.element_id(), "4:quiver:0");
}

#[test]
fn oversized_entities_are_refused() {
    let (db, t) = setup();
    let big = Value::from("x".repeat(14 << 20));
    let keys: Vec<PropKeyId> = (0..5)
        .map(|i| db.get_or_create_property_key(&format!("k{i}")).unwrap())
        .collect();
    let w = db.begin_write();
    let props: Vec<(PropKeyId, Value)> = keys.iter().map(|k| (*k, big.clone())).collect();
    assert!(matches!(
        w.create_node(&[], &props),
        Err(Error::ValueTooLarge { .. })
    ));
    let n = w.create_node(&[t.person], &props[..4]).unwrap();
    assert!(matches!(
        w.set_node_property(n, keys[4], big.clone()),
        Err(Error::ValueTooLarge { .. })
    ));
    assert!(matches!(
        w.set_node_property(n, t.name, Value::from("y".repeat((16 << 20) + 1))),
        Err(Error::ValueTooLarge { .. })
    ));
    w.commit().unwrap();
}
