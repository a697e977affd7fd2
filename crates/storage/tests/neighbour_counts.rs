//! A node's self-loops and its neighbours a test keeps, counted without building its
//! relationships: per type, and as each snapshot sees them (a reader does not see a writer's new or deleted loop until it commits,
//! the writer does from its next command).

use quiver_storage::*;

#[test]
fn self_loops_are_counted_per_type_and_as_each_snapshot_sees_them() {
    let db = Storage::new();
    let t = db.get_or_create_rel_type("T").unwrap();
    let u = db.get_or_create_rel_type("U").unwrap();
    let w = db.begin_write();
    let a = w.create_node(&[], &[]).unwrap();
    let b = w.create_node(&[], &[]).unwrap();
    let kept = w.create_relationship(a, a, t, &[]).unwrap();
    w.create_relationship(a, a, u, &[]).unwrap();
    w.create_relationship(a, b, t, &[]).unwrap();
    w.create_relationship(b, a, t, &[]).unwrap();
    w.commit().unwrap();

    let before = db.begin_read();
    assert_eq!(before.self_loops(a, &[]).unwrap(), 2);
    assert_eq!(before.self_loops(a, &[t]).unwrap(), 1);
    assert_eq!(before.self_loops(a, &[t, u]).unwrap(), 2);
    assert_eq!(before.self_loops(b, &[]).unwrap(), 0);

    let w = db.begin_write();
    w.delete_relationship(kept).unwrap();
    w.create_relationship(a, a, u, &[]).unwrap();
    w.create_relationship(b, b, t, &[]).unwrap();
    // The writer's next command sees what the last one wrote.
    w.advance_command().unwrap();
    assert_eq!(
        w.expand(a, Direction::Out, &[t]).unwrap().len(),
        1,
        "the loop's deletion leaves the relationship to b"
    );
    assert_eq!(
        w.self_loops(a, &[t]).unwrap(),
        0,
        "the writer sees its deletion"
    );
    assert_eq!(w.self_loops(a, &[u]).unwrap(), 2, "and its new loop");
    assert_eq!(w.self_loops(b, &[]).unwrap(), 1);
    assert_eq!(
        before.self_loops(a, &[t]).unwrap(),
        1,
        "a reader does not yet"
    );
    assert_eq!(before.self_loops(b, &[]).unwrap(), 0);
    w.commit().unwrap();
    assert_eq!(
        before.self_loops(a, &[]).unwrap(),
        2,
        "nor after, at its snapshot"
    );
    let after = db.begin_read();
    assert_eq!(after.self_loops(a, &[]).unwrap(), 2);
    assert_eq!(after.self_loops(a, &[u]).unwrap(), 2);
    assert_eq!(after.self_loops(b, &[t]).unwrap(), 1);
}

#[test]
fn neighbours_a_test_keeps_are_counted_as_each_snapshot_sees_them() {
    let db = Storage::new();
    let t = db.get_or_create_rel_type("T").unwrap();
    let u = db.get_or_create_rel_type("U").unwrap();
    let w = db.begin_write();
    let hub = w.create_node(&[], &[]).unwrap();
    let spokes: Vec<NodeId> = (0..6).map(|_| w.create_node(&[], &[]).unwrap()).collect();
    for (i, s) in spokes.iter().enumerate() {
        let ty = if i % 3 == 0 { u } else { t };
        w.create_relationship(hub, *s, ty, &[]).unwrap();
    }
    w.create_relationship(spokes[1], hub, t, &[]).unwrap();
    w.commit().unwrap();
    let even = |n: NodeId| n.0.is_multiple_of(2);

    let before = db.begin_read();
    let count = |tx: &Transaction, dir, types: &[RelTypeId]| {
        let kept = tx.count_neighbours(hub, dir, types, even).unwrap();
        let built = tx.expand(hub, dir, types).unwrap();
        assert_eq!(kept, built.iter().filter(|(_, n)| even(*n)).count());
        kept
    };
    assert_eq!(count(&before, Direction::Out, &[]), 3);
    assert_eq!(count(&before, Direction::Out, &[t]), 2);
    assert_eq!(count(&before, Direction::In, &[t]), 1);
    assert_eq!(count(&before, Direction::Both, &[]), 4);

    let w = db.begin_write();
    w.create_relationship(hub, spokes[5], t, &[]).unwrap();
    w.advance_command().unwrap();
    assert_eq!(
        count(&w, Direction::Out, &[t]),
        3,
        "the writer sees its new neighbour"
    );
    assert_eq!(count(&before, Direction::Out, &[t]), 2, "a reader does not");
    w.commit().unwrap();
    assert_eq!(count(&db.begin_read(), Direction::Out, &[]), 4);
}
