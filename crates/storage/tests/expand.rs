//! Batched expands read ahead of the node they expand (prefetching the next nodes' records
//! and blocks) and test relationship properties on their stored bytes when a node or
//! relationship has no change its reader must undo. The promise checked here: whatever path a
//! read takes, a reader sees exactly its snapshot. Relationships a concurrent writer adds,
//! deletes or changes are unseen by readers that began before its commit (committed or not,
//! before and after garbage collection), seen by the writer itself and by readers after,
//! and every answer equals a plain model's.

use std::collections::BTreeMap;
use std::sync::Arc;

use quiver_storage::*;
use quiver_value::Value;

/// Nodes in the graph: several batches' worth of the read-ahead distance.
const NODES: u64 = 300;

/// A plain model: relationship id to (start, end, since).
type Model = BTreeMap<u64, (u64, u64, Option<i64>)>;

struct Fixture {
    db: Arc<Storage>,
    nodes: Vec<NodeId>,
    knows: RelTypeId,
    likes: RelTypeId,
    since: PropKeyId,
}

fn setup() -> (Fixture, Model) {
    let db = Storage::new();
    let knows = db.get_or_create_rel_type("KNOWS").unwrap();
    let likes = db.get_or_create_rel_type("LIKES").unwrap();
    let since = db.get_or_create_property_key("since").unwrap();
    let w = db.begin_write();
    let nodes: Vec<NodeId> = (0..NODES)
        .map(|_| w.create_node(&[], &[]).unwrap())
        .collect();
    let mut model = Model::new();
    for i in 0..NODES {
        for k in 1..=3 {
            let j = (i + k) % NODES;
            let v = ((i + k) % 5) as i64;
            let r = w
                .create_relationship(
                    nodes[i as usize],
                    nodes[j as usize],
                    knows,
                    &[(since, Value::Int(v))],
                )
                .unwrap();
            model.insert(r.0, (i, j, Some(v)));
        }
        // A relationship of another type that a typed expand must pass over.
        w.create_relationship(
            nodes[i as usize],
            nodes[((i * 7) % NODES) as usize],
            likes,
            &[],
        )
        .unwrap();
    }
    w.commit().unwrap();
    db.gc();
    let f = Fixture {
        db,
        nodes,
        knows,
        likes,
        since,
    };
    (f, model)
}

/// What a typed out-expand of every node in order, filtered by `test` when given, must
/// return according to `model`.
fn expected(f: &Fixture, model: &Model, test: Option<&PropTest>) -> Vec<(u32, RelId, NodeId)> {
    let mut want = Vec::new();
    for i in 0..NODES {
        for (r, (s, e, v)) in model {
            if *s == i && test.is_none_or(|t| t.keeps(v.map(Value::Int).as_ref())) {
                want.push((i as u32, RelId(*r), f.nodes[*e as usize]));
            }
        }
    }
    want
}

/// Checks the batched expand, filtered and not, of `tx` against `model`.
fn check(f: &Fixture, tx: &Transaction, model: &Model, what: &str) {
    let test = PropTest {
        key: f.since,
        op: PropOp::Ge,
        value: Value::Int(3),
    };
    let mut got = Vec::new();
    tx.expand_batch(&f.nodes, Direction::Out, &[f.knows], &mut got)
        .unwrap();
    got.sort();
    assert_eq!(got, expected(f, model, None), "{what}: expand_batch");
    let mut kept = Vec::new();
    let tested = tx
        .expand_batch_where(&f.nodes, Direction::Out, &[f.knows], &test, &mut kept)
        .unwrap();
    assert_eq!(tested, got.len(), "{what}: tested");
    kept.sort();
    assert_eq!(
        kept,
        expected(f, model, Some(&test)),
        "{what}: expand_batch_where"
    );
    // The untyped expand sees the other type too; the filter drops it (no `since`).
    let mut all = Vec::new();
    tx.expand_batch_where(&f.nodes, Direction::Out, &[], &test, &mut all)
        .unwrap();
    all.sort();
    assert_eq!(all, kept, "{what}: untyped filter");
    let mut likes = Vec::new();
    tx.expand_batch(&f.nodes, Direction::Out, &[f.likes], &mut likes)
        .unwrap();
    assert_eq!(likes.len() as u64, NODES, "{what}: the other type");
}

#[test]
fn readers_see_exactly_their_snapshot_through_batched_expands() {
    let (f, before) = setup();
    let early = f.db.begin_read();
    check(&f, &early, &before, "settled graph");

    // A writer deletes, adds and changes relationships across the graph.
    let w = f.db.begin_write();
    let mut after = before.clone();
    let rels: Vec<(u64, (u64, u64, Option<i64>))> = before.iter().map(|(r, x)| (*r, *x)).collect();
    for (n, (r, (s, e, v))) in rels.iter().enumerate() {
        if n % 7 == 0 {
            w.delete_relationship(RelId(*r)).unwrap();
            after.remove(r);
        } else if n % 4 == 0 {
            let new = (v.unwrap_or(0) + 3) % 6;
            w.set_relationship_property(RelId(*r), f.since, Value::Int(new))
                .unwrap();
            after.insert(*r, (*s, *e, Some(new)));
        } else if n % 9 == 0 {
            // Absent: the filter drops it, the plain expand keeps it.
            w.remove_relationship_property(RelId(*r), f.since).unwrap();
            after.insert(*r, (*s, *e, None));
        }
    }
    for i in (0..NODES).step_by(5) {
        let j = (i + 10) % NODES;
        let r = w
            .create_relationship(
                f.nodes[i as usize],
                f.nodes[j as usize],
                f.knows,
                &[(f.since, Value::Int(4))],
            )
            .unwrap();
        after.insert(r.0, (i, j, Some(4)));
    }
    // Uncommitted: only the writer sees its changes (from its next command on).
    check(&f, &w, &before, "the writer, same command");
    w.advance_command().unwrap();
    let during = f.db.begin_read();
    check(&f, &early, &before, "reader before, writer open");
    check(&f, &during, &before, "reader during, writer open");
    check(&f, &w, &after, "the writer itself");
    w.commit().unwrap();
    let late = f.db.begin_read();
    check(&f, &early, &before, "reader before, after commit");
    check(&f, &during, &before, "reader during, after commit");
    check(&f, &late, &after, "reader after commit");
    // Garbage collection keeps what open readers need.
    f.db.gc();
    check(&f, &early, &before, "reader before, after gc");
    check(&f, &late, &after, "reader after commit, after gc");
    drop((early, during, late));
    // With no reader left, the chains are cut and every node reads settled.
    f.db.gc();
    let settled = f.db.begin_read();
    check(&f, &settled, &after, "settled again");
}
