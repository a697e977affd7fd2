//! Change data capture through Cypher: `db.cdc.earliest()`, `db.cdc.current()` and
//! `db.cdc.query()` over a durable database whose commits capture their changes.

use std::collections::BTreeSet;
use std::sync::Arc;

use quiver_engine::{Capture, Database, EngineConfig, Mode, TxOptions};
use quiver_status::Status;
use quiver_value::{Map, Value};

fn capturing(dir: &std::path::Path, capture: Capture) -> Arc<Database> {
    let db = Database::open_with(
        dir,
        Mode::Group,
        quiver_engine::DurabilityOptions::default(),
        EngineConfig::default(),
    )
    .expect("open");
    db.storage().set_capture(capture);
    db
}

fn params(entries: &[(&str, Value)]) -> Map {
    entries
        .iter()
        .map(|(k, v)| (Arc::from(*k), v.clone()))
        .collect()
}

fn id_of(db: &Database, procedure: &str) -> Value {
    let rows = db
        .execute(
            &format!("CALL {procedure}() YIELD id RETURN id"),
            Map::new(),
        )
        .expect("identifier")
        .rows;
    rows[0][0].clone()
}

/// One change as the tests read it.
#[derive(Debug)]
struct Change {
    id: Value,
    tx: i64,
    seq: i64,
    metadata: Arc<Map>,
    event: Arc<Map>,
}

fn query(db: &Database, from: &Value, selectors: Value) -> Vec<Change> {
    query_result(db, from, selectors).expect("query")
}

fn query_result(
    db: &Database,
    from: &Value,
    selectors: Value,
) -> quiver_engine::Result<Vec<Change>> {
    let rows = db
        .execute(
            "CALL db.cdc.query($from, $selectors) YIELD id, txId, seq, metadata, event \
             RETURN id, txId, seq, metadata, event",
            params(&[("from", from.clone()), ("selectors", selectors)]),
        )?
        .rows;
    Ok(rows
        .into_iter()
        .map(|row| {
            let int = |v: &Value| match v {
                Value::Int(i) => *i,
                other => panic!("not an integer: {other:?}"),
            };
            let map = |v: &Value| match v {
                Value::Map(m) => m.clone(),
                other => panic!("not a map: {other:?}"),
            };
            Change {
                id: row[0].clone(),
                tx: int(&row[1]),
                seq: int(&row[2]),
                metadata: map(&row[3]),
                event: map(&row[4]),
            }
        })
        .collect())
}

fn at<'a>(map: &'a Map, path: &[&str]) -> &'a Value {
    let mut here = map;
    for (i, key) in path.iter().enumerate() {
        let value = here.get(*key).unwrap_or(&Value::Null);
        if i + 1 == path.len() {
            return value;
        }
        match value {
            Value::Map(m) => here = m,
            _ => return &Value::Null,
        }
    }
    &Value::Null
}

fn selectors(list: &[&[(&str, Value)]]) -> Value {
    Value::List(
        list.iter()
            .map(|entries| Value::Map(Arc::new(params(entries))))
            .collect(),
    )
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        other => format!("{other:?}"),
    }
}

#[test]
fn every_committed_change_comes_back_once_in_commit_order_and_rolled_back_ones_never() {
    let dir = tempfile::tempdir().expect("dir");
    let db = capturing(dir.path(), Capture::Full);
    let earliest = id_of(&db, "db.cdc.earliest");
    const WRITERS: i64 = 4;
    const EACH: i64 = 40;
    std::thread::scope(|scope| {
        for t in 0..WRITERS {
            let db = &db;
            scope.spawn(move || {
                for n in 0..EACH {
                    db.execute(
                        "CREATE (:P {t: $t, n: $n})",
                        params(&[("t", Value::Int(t)), ("n", Value::Int(n))]),
                    )
                    .expect("create");
                    if n % 10 == 0 {
                        let mut tx = db.begin(TxOptions::default()).expect("begin");
                        let q = tx.run("CREATE (:Rolled)", Map::new()).expect("run");
                        tx.pull(q, -1, &mut Vec::new()).expect("pull");
                        tx.rollback().expect("rollback");
                    }
                }
            });
        }
    });
    let changes = query(&db, &earliest, selectors(&[]));
    assert_eq!(changes.len(), (WRITERS * EACH) as usize);
    let mut seen = BTreeSet::new();
    for pair in changes.windows(2) {
        assert!(
            (pair[0].tx, pair[0].seq) < (pair[1].tx, pair[1].seq),
            "out of order"
        );
    }
    for c in &changes {
        assert_eq!(text(at(&c.event, &["operation"])), "c");
        assert_eq!(
            at(&c.event, &["labels"]),
            &Value::from(vec![Value::from("P")])
        );
        let props = at(&c.event, &["state", "after", "properties"]);
        let Value::Map(p) = props else {
            panic!("no properties: {props:?}")
        };
        let int = |key: &str| match p.get(key) {
            Some(Value::Int(i)) => *i,
            other => panic!("`{key}` is not an integer: {other:?}"),
        };
        assert!(
            seen.insert((int("t"), int("n"))),
            "a change came back twice"
        );
    }
}

#[test]
fn a_query_resumes_right_after_the_change_whose_identifier_it_is_given() {
    let dir = tempfile::tempdir().expect("dir");
    let db = capturing(dir.path(), Capture::Full);
    let earliest = id_of(&db, "db.cdc.earliest");
    db.execute("CREATE (:A), (:B), (:C)", Map::new())
        .expect("one commit, three changes");
    db.execute("CREATE (:D)", Map::new()).expect("another");
    let all = query(&db, &earliest, selectors(&[]));
    assert_eq!(all.len(), 4);
    for k in 0..all.len() {
        let rest = query(&db, &all[k].id, selectors(&[]));
        let expected: Vec<_> = all[k + 1..].iter().map(|c| c.id.clone()).collect();
        let got: Vec<_> = rest.iter().map(|c| c.id.clone()).collect();
        assert_eq!(got, expected, "after change {k}");
    }
}

#[test]
fn current_points_after_the_newest_commit_and_survives_a_restart() {
    let dir = tempfile::tempdir().expect("dir");
    let db = capturing(dir.path(), Capture::Full);
    db.execute("CREATE (:Before)", Map::new()).expect("create");
    let current = id_of(&db, "db.cdc.current");
    assert!(query(&db, &current, selectors(&[])).is_empty());
    db.execute("CREATE (:After {x: 1})", Map::new())
        .expect("create");
    let changes = query(&db, &current, selectors(&[]));
    assert_eq!(changes.len(), 1);
    assert_eq!(
        at(&changes[0].event, &["labels"]),
        &Value::from(vec![Value::from("After")])
    );
    db.close().expect("close");
    drop(db);

    let db = capturing(dir.path(), Capture::Full);
    let again = query(&db, &current, selectors(&[]));
    assert_eq!(
        again.len(),
        1,
        "the cursor reads the same changes after a restart"
    );
    assert_eq!(again[0].id, changes[0].id);
}

#[test]
fn an_update_and_a_delete_carry_the_states_before_and_after() {
    let dir = tempfile::tempdir().expect("dir");
    let db = capturing(dir.path(), Capture::Full);
    db.execute("CREATE (:Person {name: 'Ann', age: 30})", Map::new())
        .expect("create");
    let current = id_of(&db, "db.cdc.current");
    db.execute("MATCH (p:Person) SET p.age = 31", Map::new())
        .expect("update");
    db.execute("MATCH (p:Person) DELETE p", Map::new())
        .expect("delete");
    let changes = query(&db, &current, selectors(&[]));
    assert_eq!(changes.len(), 2);
    let (update, delete) = (&changes[0].event, &changes[1].event);
    assert_eq!(text(at(update, &["operation"])), "u");
    assert_eq!(
        at(update, &["state", "before", "properties", "age"]),
        &Value::Int(30)
    );
    assert_eq!(
        at(update, &["state", "after", "properties", "age"]),
        &Value::Int(31)
    );
    assert_eq!(text(at(delete, &["operation"])), "d");
    assert_eq!(at(delete, &["state", "after"]), &Value::Null);
    assert_eq!(
        at(delete, &["state", "before", "properties", "name"]),
        &Value::from("Ann")
    );
    assert_eq!(at(update, &["elementId"]), at(delete, &["elementId"]));
    assert!(text(at(update, &["elementId"])).starts_with("4:"));
}

#[test]
fn selectors_pick_changes_by_entity_operation_label_property_type_and_metadata() {
    let dir = tempfile::tempdir().expect("dir");
    let db = capturing(dir.path(), Capture::Full);
    let from = id_of(&db, "db.cdc.current");
    db.execute(
        "CREATE (a:Person {name: 'Ann'})-[:WORKS_AT {since: 2020}]->(c:Company {name: 'Q'})",
        Map::new(),
    )
    .expect("create");
    let mut tx = db
        .begin(TxOptions {
            metadata: params(&[("app", Value::from("billing"))]),
            ..TxOptions::default()
        })
        .expect("begin");
    let q = tx
        .run("MATCH (p:Person) SET p.age = 31", Map::new())
        .expect("run");
    tx.pull(q, -1, &mut Vec::new()).expect("pull");
    tx.commit().expect("commit");
    db.execute("MATCH (c:Company) DETACH DELETE c", Map::new())
        .expect("delete");

    let count = |list: &[&[(&str, Value)]]| query(&db, &from, selectors(list)).len();
    assert_eq!(count(&[]), 6, "3 created, 1 updated, 2 deleted");
    assert_eq!(count(&[&[("select", Value::from("n"))]]), 4);
    assert_eq!(count(&[&[("select", Value::from("r"))]]), 2);
    assert_eq!(
        count(&[&[
            ("select", Value::from("e")),
            ("operation", Value::from("d"))
        ]]),
        2
    );
    assert_eq!(
        count(&[&[
            ("select", Value::from("n")),
            ("labels", Value::from(vec![Value::from("Person")]))
        ]]),
        2
    );
    assert_eq!(
        count(&[&[
            ("select", Value::from("e")),
            ("changesTo", Value::from(vec![Value::from("age")]))
        ]]),
        1
    );
    assert_eq!(
        count(&[&[
            ("select", Value::from("r")),
            ("type", Value::from("WORKS_AT")),
            (
                "start",
                Value::Map(Arc::new(params(&[(
                    "labels",
                    Value::from(vec![Value::from("Person")])
                )])))
            )
        ]]),
        2
    );
    assert_eq!(
        count(&[&[
            ("select", Value::from("e")),
            (
                "txMetadata",
                Value::Map(Arc::new(params(&[("app", Value::from("billing"))])))
            )
        ]]),
        1
    );
    // Any selector may match: the union, each change once.
    assert_eq!(
        count(&[
            &[("select", Value::from("r"))],
            &[
                ("select", Value::from("e")),
                ("operation", Value::from("d"))
            ],
        ]),
        3
    );
    let updated = query(
        &db,
        &from,
        selectors(&[&[
            ("select", Value::from("n")),
            ("operation", Value::from("u")),
        ]]),
    );
    assert_eq!(
        at(&updated[0].metadata, &["txMetadata", "app"]),
        &Value::from("billing")
    );
    assert_eq!(text(at(&updated[0].metadata, &["captureMode"])), "FULL");
    assert!(matches!(
        at(&updated[0].metadata, &["txCommitTime"]),
        Value::DateTime(_)
    ));
}

#[test]
fn an_identifier_past_the_logs_retention_is_a_scan_failure() {
    let dir = tempfile::tempdir().expect("dir");
    let db = capturing(dir.path(), Capture::Full);
    db.execute("CREATE (:Old)", Map::new()).expect("create");
    let old = id_of(&db, "db.cdc.earliest");
    db.execute("CREATE (:Old)", Map::new()).expect("create");
    let durability = db.durability().expect("durable");
    // The first snapshot closes the segment the old commits are in; the second, once a newer
    // commit went to a new segment, removes it (no retention is configured).
    durability.snapshot().expect("snapshot");
    db.execute("CREATE (:New)", Map::new()).expect("create");
    durability.snapshot().expect("snapshot");
    let e = query_result(&db, &old, selectors(&[])).expect_err("past the retention");
    assert_eq!(
        e.status_code(),
        Status::ChangeScanFailure,
        "{}",
        e.message()
    );
    // The earliest identifier now is past the snapshot, and reads what the log holds.
    let earliest = id_of(&db, "db.cdc.earliest");
    let held = query(&db, &earliest, selectors(&[]));
    assert_eq!(held.len(), 1);
    assert_eq!(
        at(&held[0].event, &["labels"]),
        &Value::from(vec![Value::from("New")])
    );
}

#[test]
fn an_identifier_of_another_database_or_none_at_all_is_invalid() {
    let (a_dir, b_dir) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    let a = capturing(a_dir.path(), Capture::Full);
    a.execute("CREATE ()", Map::new()).expect("create");
    let from_a = id_of(&a, "db.cdc.current");
    std::thread::sleep(std::time::Duration::from_millis(5));
    let b = capturing(b_dir.path(), Capture::Full);
    b.execute("CREATE ()", Map::new()).expect("create");
    b.execute("CREATE ()", Map::new()).expect("create");
    let e = query_result(&b, &from_a, selectors(&[])).expect_err("another database's");
    assert_eq!(
        e.status_code(),
        Status::ChangeIdentifierInvalid,
        "{}",
        e.message()
    );
    for bad in ["nonsense", "AAAA"] {
        let e = query_result(&b, &Value::from(bad), selectors(&[])).expect_err(bad);
        assert_eq!(e.status_code(), Status::ChangeIdentifierInvalid);
    }
    let e = query_result(
        &b,
        &id_of(&b, "db.cdc.current"),
        selectors(&[&[("select", Value::from("x"))]]),
    )
    .expect_err("a bad selector");
    assert_eq!(e.status_code(), Status::ProcedureCallFailed);
}

#[test]
fn without_capture_or_without_a_commit_log_the_procedures_say_capture_is_disabled() {
    let dir = tempfile::tempdir().expect("dir");
    let off = capturing(dir.path(), Capture::Off);
    let in_memory = Database::open_in_memory(EngineConfig::default());
    in_memory.storage().set_capture(Capture::Full);
    for db in [&off, &in_memory] {
        for call in [
            "CALL db.cdc.current()",
            "CALL db.cdc.earliest()",
            "CALL db.cdc.query('')",
        ] {
            let e = db.execute(call, Map::new()).expect_err(call);
            assert_eq!(e.status_code(), Status::ChangeCaptureDisabled, "{call}");
        }
    }
}

#[test]
fn after_restarts_that_wrote_closing_snapshots_current_and_earliest_still_read_on() {
    let dir = tempfile::tempdir().expect("dir");
    let mut db = capturing(dir.path(), Capture::Full);
    db.execute("CREATE (:Before)", Map::new()).expect("create");
    for _ in 0..2 {
        db.close().expect("close");
        drop(db);
        db = capturing(dir.path(), Capture::Full);
    }
    let current = id_of(&db, "db.cdc.current");
    let earliest = id_of(&db, "db.cdc.earliest");
    assert!(query(&db, &current, selectors(&[])).is_empty());
    db.execute("CREATE (:After)", Map::new()).expect("create");
    let after = Value::from(vec![Value::from("After")]);
    let since_current = query(&db, &current, selectors(&[]));
    assert_eq!(since_current.len(), 1);
    assert_eq!(at(&since_current[0].event, &["labels"]), &after);
    let since_earliest = query(&db, &earliest, selectors(&[]));
    let last = since_earliest.last().expect("the new change");
    assert_eq!(at(&last.event, &["labels"]), &after);
}
