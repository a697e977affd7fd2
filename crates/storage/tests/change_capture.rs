//! Change capture: what a commit logs of its changes for change data capture, and what it
//! leaves alone (replay, commits with capture off).

use std::sync::{Arc, Mutex};

use quiver_storage::{
    Capture, ChangeContext, CommitLog, DurabilityTicket, IndexKind, IndexSpec, RedoOp, RedoRecord,
    Storage,
};
use quiver_value::{Map, Value};

/// A commit log that keeps every record it is handed.
#[derive(Default)]
struct Records(Mutex<Vec<Vec<u8>>>);

impl CommitLog for Records {
    fn append(&self, record: &RedoRecord) -> Result<DurabilityTicket, quiver_storage::AppendError> {
        self.0.lock().expect("records").push(record.encode());
        Ok(DurabilityTicket(record.commit))
    }
}

impl Records {
    fn last(&self) -> RedoRecord {
        let all = self.0.lock().expect("records");
        RedoRecord::decode(all.last().expect("a record"))
            .expect("decodes")
            .0
    }
}

fn logged(capture: Capture) -> (Arc<Storage>, Arc<Records>) {
    let db = Storage::new();
    let records = Arc::new(Records::default());
    db.set_commit_log(Some(records.clone()));
    db.set_capture(capture);
    (db, records)
}

/// The change documents of a record, in order.
fn changes(record: &RedoRecord) -> Vec<Arc<Map>> {
    record
        .ops
        .iter()
        .filter_map(|op| match op {
            RedoOp::Change {
                document: Value::Map(m),
            } => Some(m.clone()),
            _ => None,
        })
        .collect()
}

fn field<'a>(map: &'a Map, path: &[&str]) -> &'a Value {
    let mut at = map;
    for (i, key) in path.iter().enumerate() {
        let value = at.get(*key).unwrap_or(&Value::Null);
        if i + 1 == path.len() {
            return value;
        }
        match value {
            Value::Map(m) => at = m,
            _ => return &Value::Null,
        }
    }
    &Value::Null
}

fn props(entries: &[(&str, Value)]) -> Value {
    Value::Map(Arc::new(
        entries
            .iter()
            .map(|(k, v)| (Arc::from(*k), v.clone()))
            .collect(),
    ))
}

#[test]
fn with_capture_off_a_record_holds_its_redo_only() {
    let (db, records) = logged(Capture::Off);
    let person = db.get_or_create_label("Person").expect("label");
    let tx = db.begin_write();
    tx.create_node(&[person], &[]).expect("node");
    tx.commit().expect("commit");
    let record = records.last();
    assert!(
        record
            .ops
            .iter()
            .all(|op| !matches!(op, RedoOp::Change { .. } | RedoOp::TxContext { .. }))
    );
}

#[test]
fn a_created_node_has_no_before_state_and_its_whole_state_after() {
    let (db, records) = logged(Capture::Full);
    let person = db.get_or_create_label("Person").expect("label");
    let name = db.get_or_create_property_key("name").expect("key");
    let tx = db.begin_write();
    tx.set_change_context(ChangeContext {
        executing_user: Some("alice".into()),
        start_micros: 5,
        ..ChangeContext::default()
    });
    tx.create_node(&[person], &[(name, Value::from("Ann"))])
        .expect("node");
    tx.commit().expect("commit");
    let record = records.last();
    let context = record
        .ops
        .iter()
        .find_map(|op| match op {
            RedoOp::TxContext {
                document: Value::Map(m),
            } => Some(m.clone()),
            _ => None,
        })
        .expect("the transaction's context is logged");
    assert_eq!(field(&context, &["executingUser"]), &Value::from("alice"));
    assert_eq!(field(&context, &["captureMode"]), &Value::from("FULL"));
    let changes = changes(&record);
    assert_eq!(changes.len(), 1);
    let node = &changes[0];
    assert_eq!(field(node, &["eventType"]), &Value::from("n"));
    assert_eq!(field(node, &["operation"]), &Value::from("c"));
    assert_eq!(field(node, &["state", "before"]), &Value::Null);
    assert_eq!(
        field(node, &["state", "after", "properties"]),
        &props(&[("name", Value::from("Ann"))])
    );
    assert_eq!(
        field(node, &["state", "after", "labels"]),
        &Value::from(vec![Value::from("Person")])
    );
}

#[test]
fn an_update_shows_whole_states_in_full_mode_and_only_what_changed_in_diff_mode() {
    for (capture, before, after) in [
        (
            Capture::Full,
            props(&[("age", Value::Int(30)), ("name", Value::from("Ann"))]),
            props(&[("age", Value::Int(31)), ("name", Value::from("Ann"))]),
        ),
        (
            Capture::Diff,
            props(&[("age", Value::Int(30))]),
            props(&[("age", Value::Int(31))]),
        ),
    ] {
        let (db, records) = logged(capture);
        let name = db.get_or_create_property_key("name").expect("key");
        let age = db.get_or_create_property_key("age").expect("key");
        let tx = db.begin_write();
        let ann = tx
            .create_node(&[], &[(name, Value::from("Ann")), (age, Value::Int(30))])
            .expect("node");
        tx.commit().expect("commit");
        let tx = db.begin_write();
        tx.set_node_property(ann, age, Value::Int(31)).expect("set");
        tx.commit().expect("commit");
        let changes = changes(&records.last());
        assert_eq!(changes.len(), 1, "{capture}");
        assert_eq!(field(&changes[0], &["operation"]), &Value::from("u"));
        assert_eq!(
            field(&changes[0], &["state", "before", "properties"]),
            &before,
            "{capture}"
        );
        assert_eq!(
            field(&changes[0], &["state", "after", "properties"]),
            &after,
            "{capture}"
        );
    }
}

#[test]
fn a_deleted_relationship_names_its_type_its_ends_and_its_last_properties() {
    let (db, records) = logged(Capture::Full);
    let knows = db.get_or_create_rel_type("KNOWS").expect("type");
    let since = db.get_or_create_property_key("since").expect("key");
    let person = db.get_or_create_label("Person").expect("label");
    let tx = db.begin_write();
    let a = tx.create_node(&[person], &[]).expect("a");
    let b = tx.create_node(&[], &[]).expect("b");
    let r = tx
        .create_relationship(a, b, knows, &[(since, Value::Int(2020))])
        .expect("rel");
    tx.commit().expect("commit");
    let tx = db.begin_write();
    tx.delete_relationship(r).expect("delete");
    tx.commit().expect("commit");
    let changes = changes(&records.last());
    // The deletion touched both ends' adjacency, which is no change of theirs.
    assert_eq!(changes.len(), 1);
    let rel = &changes[0];
    assert_eq!(field(rel, &["eventType"]), &Value::from("r"));
    assert_eq!(field(rel, &["operation"]), &Value::from("d"));
    assert_eq!(field(rel, &["type"]), &Value::from("KNOWS"));
    assert_eq!(field(rel, &["start", "id"]), &Value::Int(a.0 as i64));
    assert_eq!(
        field(rel, &["start", "labels"]),
        &Value::from(vec![Value::from("Person")])
    );
    assert_eq!(field(rel, &["end", "id"]), &Value::Int(b.0 as i64));
    assert_eq!(
        field(rel, &["state", "before", "properties"]),
        &props(&[("since", Value::Int(2020))])
    );
    assert_eq!(field(rel, &["state", "after"]), &Value::Null);
}

#[test]
fn nodes_created_come_before_relationships_and_nodes_deleted_come_last() {
    let (db, records) = logged(Capture::Full);
    let knows = db.get_or_create_rel_type("KNOWS").expect("type");
    let tx = db.begin_write();
    let old = tx.create_node(&[], &[]).expect("old");
    tx.commit().expect("commit");
    let tx = db.begin_write();
    tx.detach_delete_node(old).expect("delete");
    let a = tx.create_node(&[], &[]).expect("a");
    let b = tx.create_node(&[], &[]).expect("b");
    tx.create_relationship(a, b, knows, &[]).expect("rel");
    tx.commit().expect("commit");
    let order: Vec<(String, String)> = changes(&records.last())
        .iter()
        .map(|c| {
            let text = |v: &Value| match v {
                Value::String(s) => s.to_string(),
                _ => String::new(),
            };
            (
                text(field(c, &["eventType"])),
                text(field(c, &["operation"])),
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = order
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(pairs, [("n", "c"), ("n", "c"), ("r", "c"), ("n", "d")]);
}

#[test]
fn a_node_key_constraint_names_the_keys_of_a_change() {
    let (db, records) = logged(Capture::Full);
    let person = db.get_or_create_label("Person").expect("label");
    let ssn = db.get_or_create_property_key("ssn").expect("key");
    let schema = db.begin_write();
    schema
        .create_schema_index(
            IndexSpec {
                relationship: false,
                token: person.0,
                keys: vec![ssn.0],
                kind: IndexKind::Key,
            },
            Some("person_ssn"),
        )
        .expect("constraint");
    schema.commit().expect("commit");
    let tx = db.begin_write();
    tx.create_node(&[person], &[(ssn, Value::from("123"))])
        .expect("node");
    tx.commit().expect("commit");
    let changes = changes(&records.last());
    let keys = field(&changes[0], &["keys", "Person"]);
    assert_eq!(
        keys,
        &Value::from(vec![props(&[("ssn", Value::from("123"))])])
    );
}

/// A capturing store with one committed node whose `name` is `Ann`.
fn with_ann() -> (
    Arc<Storage>,
    Arc<Records>,
    quiver_storage::NodeId,
    quiver_storage::PropKeyId,
) {
    let (db, records) = logged(Capture::Full);
    let name = db.get_or_create_property_key("name").expect("key");
    let tx = db.begin_write();
    let ann = tx
        .create_node(&[], &[(name, Value::from("Ann"))])
        .expect("node");
    tx.commit().expect("commit");
    (db, records, ann, name)
}

#[test]
fn a_captured_record_replays_into_the_same_store_as_its_redo_alone() {
    let (_db, records, n, _) = with_ann();
    let record = records.last();
    assert!(!changes(&record).is_empty());
    let replica = Storage::new();
    replica.apply_redo(&record).expect("replays");
    let read = replica.begin_read();
    let key = replica.property_key_id("name").expect("key");
    assert_eq!(
        read.node_property(n, key).expect("reads"),
        Some(Value::from("Ann"))
    );
    assert!(!record.changes_schema_only());
}

#[test]
fn a_transaction_that_changes_no_state_captures_nothing() {
    let (db, records, n, name) = with_ann();
    let tx = db.begin_write();
    tx.set_node_property(n, name, Value::from("Ann"))
        .expect("same value");
    tx.commit().expect("commit");
    let record = records.last();
    assert!(changes(&record).is_empty());
    assert!(
        record
            .ops
            .iter()
            .all(|op| !matches!(op, RedoOp::TxContext { .. }))
    );
}
