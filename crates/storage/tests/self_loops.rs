//! A node's self-loops, counted without building its relationships: per type, and as each
//! snapshot sees them (a reader does not see a writer's new or deleted loop until it commits,
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
