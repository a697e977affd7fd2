//! APOC's core through the embedded API: the write procedures (counters, constraints and
//! indexes as CREATE and MERGE keep them), nested Cypher under the caller's limits, periodic
//! batches in their own transactions, path expansion, and the function library. Every
//! procedure has its happy path and a bad argument, which fails with
//! `Neo.ClientError.Procedure.ProcedureCallFailed` naming the argument.

use std::time::{Duration, Instant};

use quiver_engine::{AccessMode, Database, EngineConfig, TxOptions};
use quiver_value::{Map, Value};

mod support;

use support::{call_fails, db, fails, one, params, run};

fn s(v: &str) -> Value {
    Value::from(v)
}

fn list(items: Vec<Value>) -> Value {
    Value::from(items)
}

#[test]
fn merge_node_creates_then_matches_with_counters() {
    let db = db();
    let q = "CALL apoc.merge.node(['Person', 'Big Cat'], {name: 'Ann'}, {created: true}, {matched: true}) \
             YIELD node RETURN node.name AS name, node.created AS c, node.matched AS m, labels(node) AS l";
    let r = db.execute(q, Map::new()).unwrap();
    assert_eq!(
        r.rows,
        vec![vec![
            s("Ann"),
            Value::Bool(true),
            Value::Null,
            list(vec![s("Big Cat"), s("Person")])
        ]]
    );
    assert_eq!(r.summary.stats.nodes_created, 1);
    assert_eq!(r.summary.stats.labels_added, 2);
    assert_eq!(r.summary.stats.properties_set, 2);
    let r = db.execute(q, Map::new()).unwrap();
    assert_eq!(r.rows[0][1], Value::Bool(true));
    assert_eq!(r.rows[0][2], Value::Bool(true));
    assert_eq!(r.summary.stats.nodes_created, 0);
    assert_eq!(one(&db, "MATCH (n:Person) RETURN count(n)"), Value::Int(1));
    // Labels and keys of any spelling are escaped into the statement.
    run(
        &db,
        "CALL apoc.merge.node(['We`ird'], {`my key`: 1, `a``b`: 2}) YIELD node RETURN node",
    );
    assert_eq!(
        one(
            &db,
            "MATCH (n:`We``ird` {`my key`: 1, `a``b`: 2}) RETURN count(n)"
        ),
        Value::Int(1)
    );
    // Defaults: the last two maps may be left out.
    run(
        &db,
        "CALL apoc.merge.node(['Person'], {name: 'Bob'}) YIELD node RETURN node",
    );
    assert_eq!(one(&db, "MATCH (n:Person) RETURN count(n)"), Value::Int(2));
}

#[test]
fn merge_node_bad_arguments_name_the_argument() {
    let db = db();
    call_fails(
        &db,
        "CALL apoc.merge.node(['A'], {}) YIELD node RETURN node",
        "identProps",
    );
    call_fails(
        &db,
        "CALL apoc.merge.node(['A', ''], {k: 1}) YIELD node RETURN node",
        "labels",
    );
    call_fails(
        &db,
        "CALL apoc.merge.node(['A'], {k: null}) YIELD node RETURN node",
        "identProps",
    );
    let e = fails(
        &db,
        "CALL apoc.merge.node('A', {k: 1}) YIELD node RETURN node",
    );
    assert!(e.message().contains("labels"), "{e}");
}

#[test]
fn merge_node_keeps_uniqueness_constraints() {
    let db = db();
    run(
        &db,
        "CREATE CONSTRAINT person_id FOR (p:Person) REQUIRE p.id IS UNIQUE",
    );
    run(
        &db,
        "CALL apoc.merge.node(['Person'], {id: 1}) YIELD node RETURN node",
    );
    // A second node with the same id through CREATE is refused; MERGE finds the first.
    let e = fails(
        &db,
        "CALL apoc.create.node(['Person'], {id: 1}) YIELD node RETURN node",
    );
    assert_eq!(
        e.status_code().code(),
        "Neo.ClientError.Schema.ConstraintValidationFailed"
    );
    run(
        &db,
        "CALL apoc.merge.node(['Person'], {id: 1}, {}, {seen: true}) YIELD node RETURN node",
    );
    assert_eq!(
        one(&db, "MATCH (p:Person {id: 1}) RETURN p.seen"),
        Value::Bool(true)
    );
}

#[test]
fn merge_relationship_like_add_graph_documents() {
    let db = db();
    let rows = list(vec![
        Value::map(params(&[
            ("s", s("a")),
            ("t", s("b")),
            ("type", s("KNOWS")),
        ])),
        Value::map(params(&[
            ("s", s("a")),
            ("t", s("b")),
            ("type", s("KNOWS")),
        ])),
        Value::map(params(&[
            ("s", s("b")),
            ("t", s("c")),
            ("type", s("LIKES")),
        ])),
    ]);
    let q = "UNWIND $data AS row \
             CALL apoc.merge.node(['Entity'], {id: row.s}) YIELD node AS source \
             CALL apoc.merge.node(['Entity'], {id: row.t}) YIELD node AS target \
             CALL apoc.merge.relationship(source, row.type, {}, {created: 1}, target, {matched: 1}) YIELD rel \
             RETURN type(rel) AS t, rel.created AS c, rel.matched AS m";
    let r = db.execute(q, params(&[("data", rows)])).unwrap();
    assert_eq!(
        r.rows,
        vec![
            vec![s("KNOWS"), Value::Int(1), Value::Null],
            vec![s("KNOWS"), Value::Int(1), Value::Int(1)],
            vec![s("LIKES"), Value::Int(1), Value::Null],
        ]
    );
    assert_eq!(r.summary.stats.nodes_created, 3);
    assert_eq!(r.summary.stats.relationships_created, 2);
    assert_eq!(
        one(
            &db,
            "MATCH (:Entity {id: 'a'})-[r:KNOWS]->(:Entity {id: 'b'}) RETURN count(r)"
        ),
        Value::Int(1)
    );
    // Identifying properties split otherwise equal relationships.
    run(
        &db,
        "MATCH (a {id: 'a'}), (b {id: 'b'}) \
         CALL apoc.merge.relationship(a, 'KNOWS', {since: 2020}, {}, b) YIELD rel RETURN rel",
    );
    assert_eq!(
        one(&db, "MATCH ()-[r:KNOWS]->() RETURN count(r)"),
        Value::Int(2)
    );
}

#[test]
fn merge_relationship_bad_arguments() {
    let db = db();
    run(&db, "CREATE (:A {id: 1}), (:A {id: 2})");
    call_fails(
        &db,
        "MATCH (a {id: 1}) CALL apoc.merge.relationship(a, 'R', {}, {}, null) YIELD rel RETURN rel",
        "endNode",
    );
    call_fails(
        &db,
        "MATCH (a {id: 1}), (b {id: 2}) CALL apoc.merge.relationship(a, '', {}, {}, b) YIELD rel RETURN rel",
        "relType",
    );
    call_fails(
        &db,
        "MATCH (a {id: 1}), (b {id: 2}) CALL apoc.merge.relationship(a, 'R', {k: null}, {}, b) YIELD rel RETURN rel",
        "identProps",
    );
}

#[test]
fn create_procedures() {
    let db = db();
    let r = db
        .execute(
            "CALL apoc.create.node(['A', 'B'], {x: 1, y: 'two'}) YIELD node RETURN node.x, node.y",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(1), s("two")]]);
    assert_eq!(r.summary.stats.nodes_created, 1);
    assert_eq!(r.summary.stats.labels_added, 2);
    let r = db
        .execute(
            "MATCH (a:A) CREATE (b:C) WITH a, b \
             CALL apoc.create.relationship(a, 'LINKS', {w: 0.5}, b) YIELD rel RETURN type(rel), rel.w",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![s("LINKS"), Value::Float(0.5)]]);
    assert_eq!(r.summary.stats.relationships_created, 1);
    let r = db
        .execute(
            "MATCH (n) WITH collect(n) AS ns CALL apoc.create.addLabels(ns, ['Tagged']) YIELD node RETURN count(node)",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows[0][0], Value::Int(2));
    assert_eq!(r.summary.stats.labels_added, 2);
    assert_eq!(one(&db, "MATCH (n:Tagged) RETURN count(n)"), Value::Int(2));
    // Ids work as nodes.
    let id = one(&db, "MATCH (a:A) RETURN id(a)");
    let r = db
        .execute(
            "CALL apoc.create.setProperty($id, 'score', 7) YIELD node RETURN node.score",
            params(&[("id", id)]),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(7)]]);
    run(
        &db,
        "MATCH (a:A) CALL apoc.create.setProperty(a, 'score', null) YIELD node RETURN node",
    );
    assert_eq!(one(&db, "MATCH (a:A) RETURN a.score"), Value::Null);
}

#[test]
fn create_procedures_bad_arguments() {
    let db = db();
    run(&db, "CREATE (:A)");
    call_fails(
        &db,
        "CALL apoc.create.node([null], {}) YIELD node RETURN node",
        "labels",
    );
    call_fails(
        &db,
        "MATCH (a:A) CALL apoc.create.relationship(a, 'R', {}, null) YIELD rel RETURN rel",
        "to",
    );
    call_fails(
        &db,
        "CALL apoc.create.addLabels(123456, ['X']) YIELD node RETURN node",
        "nodes",
    );
    call_fails(
        &db,
        "CALL apoc.create.addLabels('x', ['X']) YIELD node RETURN node",
        "nodes",
    );
    call_fails(
        &db,
        "MATCH (a:A) CALL apoc.create.setProperty(a, '', 1) YIELD node RETURN node",
        "key",
    );
}

#[test]
fn cypher_run_and_do_it() {
    let db = db();
    run(&db, "UNWIND range(1, 3) AS i CREATE (:N {i: i})");
    let rows = run(
        &db,
        "CALL apoc.cypher.run('MATCH (n:N) WHERE n.i >= $min RETURN n.i AS i ORDER BY i', {min: 2}) \
         YIELD value RETURN value.i",
    );
    assert_eq!(rows, vec![vec![Value::Int(2)], vec![Value::Int(3)]]);
    // Nodes from a nested statement are nodes of the caller.
    assert_eq!(
        one(
            &db,
            "CALL apoc.cypher.run('MATCH (n:N {i: 1}) RETURN n', {}) YIELD value RETURN value.n.i"
        ),
        Value::Int(1)
    );
    call_fails(
        &db,
        "CALL apoc.cypher.run('CREATE (:X)', {}) YIELD value RETURN value",
        "read-only",
    );
    call_fails(
        &db,
        "CALL apoc.cypher.run('MATCH (n RETURN n', {}) YIELD value RETURN value",
        "apoc.cypher.run",
    );
    call_fails(
        &db,
        "CALL apoc.cypher.run(null, {}) YIELD value RETURN value",
        "statement",
    );
    let r = db
        .execute(
            "CALL apoc.cypher.doIt('CREATE (n:Done {i: $i}) RETURN n.i AS i', {i: 4}) YIELD value RETURN value.i",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(4)]]);
    assert_eq!(r.summary.stats.nodes_created, 1);
    call_fails(
        &db,
        "CALL apoc.cypher.doIt(null, {}) YIELD value RETURN value",
        "statement",
    );
    let e = fails(
        &db,
        "CALL apoc.cypher.run('RETURN $x AS x', {}) YIELD value RETURN value",
    );
    assert_eq!(
        e.status_code().code(),
        "Neo.ClientError.Statement.ParameterMissing"
    );
}

#[test]
fn conditionals() {
    let db = db();
    assert_eq!(
        one(
            &db,
            "CALL apoc.when(true, 'RETURN $a AS x', 'RETURN 0 AS x', {a: 5}) YIELD value RETURN value.x"
        ),
        Value::Int(5)
    );
    assert_eq!(
        one(
            &db,
            "CALL apoc.when(false, 'RETURN 1 AS x') YIELD value RETURN value"
        ),
        Value::map(Map::new())
    );
    let r = db
        .execute(
            "CALL apoc.do.when(true, 'CREATE (n:W {v: $v}) RETURN n.v AS v', '', {v: 9}) YIELD value RETURN value.v",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(9)]]);
    assert_eq!(r.summary.stats.nodes_created, 1);
    call_fails(
        &db,
        "CALL apoc.when(true, 'CREATE (:W)') YIELD value RETURN value",
        "read-only",
    );
    call_fails(
        &db,
        "CALL apoc.do.when(true, null) YIELD value RETURN value",
        "ifQuery",
    );

    let r = db
        .execute(
            "CALL apoc.do.case([false, 'RETURN 1 AS x', true, 'CREATE (:Case) RETURN 2 AS x'], 'RETURN 3 AS x') \
             YIELD value RETURN value.x",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(2)]]);
    assert_eq!(r.summary.stats.nodes_created, 1);
    assert_eq!(
        one(
            &db,
            "CALL apoc.do.case([false, 'RETURN 1 AS x'], 'RETURN 3 AS x') YIELD value RETURN value.x"
        ),
        Value::Int(3)
    );
    call_fails(
        &db,
        "CALL apoc.do.case([true], '') YIELD value RETURN value",
        "conditionals",
    );
    call_fails(
        &db,
        "CALL apoc.do.case(['x', 'RETURN 1'], '') YIELD value RETURN value",
        "conditionals",
    );
}

#[test]
fn write_procedures_need_a_write_transaction() {
    let db = db();
    let mut tx = db
        .begin(TxOptions {
            mode: AccessMode::Read,
            ..TxOptions::default()
        })
        .unwrap();
    let e = tx
        .run(
            "CALL apoc.create.node(['A'], {}) YIELD node RETURN node",
            Map::new(),
        )
        .unwrap_err();
    assert_eq!(
        e.status_code().code(),
        "Neo.ClientError.Statement.AccessMode"
    );
}

#[test]
fn periodic_iterate_commits_each_batch() {
    let db = db();
    let r = db
        .execute(
            "CALL apoc.periodic.iterate('UNWIND range(1, 10) AS i RETURN i', \
             'CREATE (:Item {i: i, tag: $tag})', {batchSize: 3, parallel: false, params: {tag: 'x'}}) \
             YIELD batches, total, committedOperations, failedOperations, failedBatches, errorMessages, \
             batch, operations, wasTerminated, updateStatistics \
             RETURN batches, total, committedOperations, failedOperations, failedBatches, errorMessages, \
             batch.committed, operations.total, wasTerminated, updateStatistics.nodesCreated",
            Map::new(),
        )
        .unwrap();
    assert_eq!(
        r.rows,
        vec![vec![
            Value::Int(4),
            Value::Int(10),
            Value::Int(10),
            Value::Int(0),
            Value::Int(0),
            Value::map(Map::new()),
            Value::Int(4),
            Value::Int(10),
            Value::Bool(false),
            Value::Int(10),
        ]]
    );
    assert_eq!(
        one(&db, "MATCH (n:Item {tag: 'x'}) RETURN count(n)"),
        Value::Int(10)
    );
    // A batch that fails is rolled back alone and reported; the others stay.
    let r = run(
        &db,
        "CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n ORDER BY n.i', \
         'SET n.inv = 10 / (n.i - 5)', {batchSize: 5}) \
         YIELD batches, committedOperations, failedOperations, failedBatches, errorMessages \
         RETURN batches, committedOperations, failedOperations, failedBatches, size(keys(errorMessages))",
    );
    assert_eq!(
        r,
        vec![vec![
            Value::Int(2),
            Value::Int(5),
            Value::Int(5),
            Value::Int(1),
            Value::Int(1)
        ]]
    );
    assert_eq!(
        one(
            &db,
            "MATCH (n:Item) WHERE n.inv IS NOT NULL RETURN count(n)"
        ),
        Value::Int(5)
    );
    // A statement reading $_batch gets the whole batch.
    run(
        &db,
        "CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n', \
         'UNWIND $_batch AS row WITH row.n AS n SET n.batched = true', {batchSize: 4}) YIELD batches RETURN batches",
    );
    assert_eq!(
        one(&db, "MATCH (n:Item) WHERE n.batched RETURN count(n)"),
        Value::Int(10)
    );
    // SINGLE: the statement runs once per row, the row's columns as parameters.
    let r = run(
        &db,
        "CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n.i AS i', \
         'MATCH (m:Item {i: $i}) SET m.single = $i', {batchMode: 'SINGLE', batchSize: 3}) \
         YIELD batches, committedOperations, updateStatistics RETURN batches, committedOperations, updateStatistics.propertiesSet",
    );
    assert_eq!(r, vec![vec![Value::Int(4), Value::Int(10), Value::Int(10)]]);
    assert_eq!(
        one(&db, "MATCH (n:Item) WHERE n.single = n.i RETURN count(n)"),
        Value::Int(10)
    );
    call_fails(
        &db,
        "CALL apoc.periodic.iterate('RETURN 1 AS x', 'RETURN x', {batchSize: 0}) YIELD batches RETURN batches",
        "batchSize",
    );
    call_fails(
        &db,
        "CALL apoc.periodic.iterate(null, 'RETURN 1', {}) YIELD batches RETURN batches",
        "cypherIterate",
    );
    call_fails(
        &db,
        "CALL apoc.periodic.iterate('RETURN 1 AS x', 'RETURN x', {batchMode: 'NOPE'}) YIELD batches RETURN batches",
        "batchMode",
    );
}

#[test]
fn periodic_iterate_in_parallel_runs_the_batches_on_workers() {
    let db = db();
    let r = run(
        &db,
        "CALL apoc.periodic.iterate('UNWIND range(1, 100) AS i RETURN i', \
         'CREATE (:Par {i: i, tag: $tag})', \
         {batchSize: 7, parallel: true, concurrency: 4, params: {tag: 'p'}}) \
         YIELD batches, total, committedOperations, failedOperations, failedBatches, \
               errorMessages, batch, operations, wasTerminated, updateStatistics \
         RETURN batches, total, committedOperations, failedOperations, failedBatches, \
                errorMessages, batch.total, batch.committed, operations.committed, \
                wasTerminated, updateStatistics.nodesCreated, updateStatistics.propertiesSet",
    );
    assert_eq!(
        r,
        vec![vec![
            Value::Int(15),
            Value::Int(100),
            Value::Int(100),
            Value::Int(0),
            Value::Int(0),
            Value::map(Map::new()),
            Value::Int(15),
            Value::Int(15),
            Value::Int(100),
            Value::Bool(false),
            Value::Int(100),
            Value::Int(200),
        ]]
    );
    assert_eq!(
        run(
            &db,
            "MATCH (n:Par {tag: 'p'}) RETURN count(n), count(DISTINCT n.i), min(n.i), max(n.i)"
        ),
        vec![vec![
            Value::Int(100),
            Value::Int(100),
            Value::Int(1),
            Value::Int(100)
        ]]
    );
    // A failing batch is rolled back alone, its error counted; the batches beside it commit.
    let r = run(
        &db,
        "CALL apoc.periodic.iterate('MATCH (n:Par) RETURN n ORDER BY n.i', \
         'SET n.inv = 10 / (n.i - 50)', {batchSize: 10, parallel: true}) \
         YIELD batches, committedOperations, failedOperations, failedBatches, errorMessages \
         RETURN batches, committedOperations, failedOperations, failedBatches, \
                [k IN keys(errorMessages) | errorMessages[k]]",
    );
    assert_eq!(
        r,
        vec![vec![
            Value::Int(10),
            Value::Int(90),
            Value::Int(10),
            Value::Int(1),
            list(vec![Value::Int(1)]),
        ]]
    );
    assert_eq!(
        one(&db, "MATCH (n:Par) WHERE n.inv IS NOT NULL RETURN count(n)"),
        Value::Int(90)
    );
    // Batches that write the same node conflict; retries take them again until each commits.
    run(&db, "CREATE (:Counter {n: 0})");
    let r = run(
        &db,
        "CALL apoc.periodic.iterate('UNWIND range(1, 40) AS i RETURN i', \
         'MATCH (c:Counter) SET c.n = c.n + 1', \
         {batchSize: 1, parallel: true, concurrency: 8, retries: 100}) \
         YIELD committedOperations, failedBatches RETURN committedOperations, failedBatches",
    );
    assert_eq!(r, vec![vec![Value::Int(40), Value::Int(0)]]);
    assert_eq!(one(&db, "MATCH (c:Counter) RETURN c.n"), Value::Int(40));
    call_fails(
        &db,
        "CALL apoc.periodic.iterate('RETURN 1 AS x', 'RETURN x', {parallel: true, concurrency: 0}) \
         YIELD batches RETURN batches",
        "concurrency",
    );
}

#[test]
fn virtual_nodes_and_relationships_are_read_like_stored_ones() {
    let db = db();
    let r = run(
        &db,
        "CALL apoc.create.vNode(['Person', 'Virtual'], {name: 'Ann', age: 42}) YIELD node AS a \
         CALL apoc.create.vNode(['Person'], {name: 'Bob'}) YIELD node AS b \
         CALL apoc.create.vRelationship(a, 'KNOWS', {since: 2020}, b) YIELD rel \
         RETURN a.name, a.age, a.missing, labels(a), keys(b), properties(b), \
                rel.since, type(rel), a = b, a {.name}",
    );
    assert_eq!(
        r,
        vec![vec![
            s("Ann"),
            Value::Int(42),
            Value::Null,
            list(vec![s("Person"), s("Virtual")]),
            list(vec![s("name")]),
            Value::map(params(&[("name", s("Bob"))])),
            Value::Int(2020),
            s("KNOWS"),
            Value::Bool(false),
            Value::map(params(&[("name", s("Ann"))])),
        ]]
    );
    // Nothing is stored.
    assert_eq!(one(&db, "MATCH (n) RETURN count(n)"), Value::Int(0));
    // The schema's virtual nodes are read the same way.
    run(&db, "CREATE (:Movie {title: 'Heat'})");
    assert_eq!(
        one(
            &db,
            "CALL db.schema.visualization() YIELD nodes UNWIND nodes AS n RETURN n.name"
        ),
        s("Movie")
    );
    call_fails(
        &db,
        "CALL apoc.create.vNode([''], {}) YIELD node RETURN node",
        "labels",
    );
    call_fails(
        &db,
        "CALL apoc.create.vNode(['A'], {}) YIELD node \
         CALL apoc.create.vRelationship(node, '', {}, node) YIELD rel RETURN rel",
        "relType",
    );
    call_fails(
        &db,
        "CALL apoc.create.vNode(['A'], {}) YIELD node \
         CALL apoc.create.vRelationship(node, 'R', {}, null) YIELD rel RETURN rel",
        "to",
    );
}

#[test]
fn periodic_batches_are_their_own_transactions() {
    let db = db();
    // The caller rolls back; the batches committed on their own stay.
    let mut tx = db.begin(TxOptions::default()).unwrap();
    let q = tx
        .run(
            "CALL apoc.periodic.iterate('UNWIND range(1, 4) AS i RETURN i', 'CREATE (:Own {i: i})', {batchSize: 2}) \
             YIELD batches RETURN batches",
            Map::new(),
        )
        .unwrap();
    let mut out = Vec::new();
    tx.pull(q, -1, &mut out).unwrap();
    assert_eq!(out, vec![vec![Value::Int(2)]]);
    tx.rollback().unwrap();
    assert_eq!(one(&db, "MATCH (n:Own) RETURN count(n)"), Value::Int(4));
}

#[test]
fn periodic_commit_runs_until_zero() {
    let db = db();
    run(&db, "UNWIND range(1, 25) AS i CREATE (:Todo {i: i})");
    let r = run(
        &db,
        "CALL apoc.periodic.commit('MATCH (n:Todo) WITH n LIMIT $limit SET n:Done REMOVE n:Todo RETURN count(*)', {limit: 10}) \
         YIELD updates, executions, batches, failedBatches, wasTerminated \
         RETURN updates, executions, batches, failedBatches, wasTerminated",
    );
    assert_eq!(
        r,
        vec![vec![
            Value::Int(25),
            Value::Int(4),
            Value::Int(4),
            Value::Int(0),
            Value::Bool(false)
        ]]
    );
    assert_eq!(one(&db, "MATCH (n:Done) RETURN count(n)"), Value::Int(25));
    call_fails(
        &db,
        "CALL apoc.periodic.commit('MATCH (n) RETURN count(n)') YIELD updates RETURN updates",
        "statement",
    );
}

#[test]
fn util_sleep_honours_cancel_and_deadline() {
    let db = db();
    let started = Instant::now();
    run(&db, "CALL apoc.util.sleep(30)");
    assert!(started.elapsed() >= Duration::from_millis(30));
    // A transaction timeout ends a long sleep.
    let mut tx = db
        .begin(TxOptions {
            timeout: Some(Duration::from_millis(100)),
            ..TxOptions::default()
        })
        .unwrap();
    let started = Instant::now();
    let e = tx
        .run("CALL apoc.util.sleep(60000) RETURN 1", Map::new())
        .and_then(|q| {
            let mut out = Vec::new();
            tx.pull(q, -1, &mut out)
        })
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        e.is_retryable() || e.status_code().code().contains("Timed"),
        "{e}"
    );
    drop(tx);
    // Cancelling ends it too.
    let mut tx = db.begin(TxOptions::default()).unwrap();
    let cancel = tx.cancel_handle();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        cancel.cancel();
    });
    let started = Instant::now();
    let q = tx.run("CALL apoc.util.sleep(60000) RETURN 1", Map::new());
    let e = q
        .and_then(|q| {
            let mut out = Vec::new();
            tx.pull(q, -1, &mut out)
        })
        .unwrap_err();
    t.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        e.status_code().code(),
        "Neo.ClientError.Transaction.Terminated"
    );
    call_fails(&db, "CALL apoc.util.sleep(-1)", "duration");
}

#[test]
fn util_validate_fails_with_the_formatted_message() {
    let db = db();
    assert_eq!(
        one(&db, "CALL apoc.util.validate(false, 'never', []) RETURN 1"),
        Value::Int(1)
    );
    let e = fails(
        &db,
        "CALL apoc.util.validate(1 > 0, 'value %s is over %d', ['x', 3]) RETURN 1",
    );
    assert_eq!(
        e.status_code().code(),
        "Neo.ClientError.Procedure.ProcedureCallFailed"
    );
    assert!(e.message().contains("value x is over 3"), "{e}");
    // A value of the wrong declared type is refused before the call, naming the argument.
    let e = fails(&db, "CALL apoc.util.validate(true, 5, [])");
    assert_eq!(
        e.status_code().code(),
        "Neo.ClientError.Statement.TypeError"
    );
    assert!(e.message().contains("'message'"), "{e}");
}

#[test]
fn path_expansion() {
    let db = db();
    run(
        &db,
        "CREATE (a:P {n: 'a'})-[:KNOWS]->(b:P {n: 'b'})-[:KNOWS]->(c:P {n: 'c'}), \
         (b)-[:LIKES]->(d:Q {n: 'd'}), (c)-[:KNOWS]->(e:Stop {n: 'e'})-[:KNOWS]->(f:P {n: 'f'})",
    );
    let names =
        |q: &str| -> Vec<Value> { run(&db, q).into_iter().map(|mut r| r.remove(0)).collect() };
    assert_eq!(
        names(
            "MATCH (a {n: 'a'}) CALL apoc.path.subgraphNodes(a, {relationshipFilter: 'KNOWS>'}) YIELD node \
             RETURN node.n ORDER BY node.n"
        ),
        vec![s("a"), s("b"), s("c"), s("e"), s("f")]
    );
    assert_eq!(
        names(
            "MATCH (a {n: 'a'}) CALL apoc.path.subgraphNodes(a, {maxLevel: 1}) YIELD node RETURN node.n ORDER BY node.n"
        ),
        vec![s("a"), s("b")]
    );
    assert_eq!(
        names(
            "MATCH (a {n: 'a'}) CALL apoc.path.expandConfig(a, {relationshipFilter: 'KNOWS>|LIKES>', minLevel: 2, maxLevel: 2}) \
             YIELD path RETURN last(nodes(path)).n AS n ORDER BY n"
        ),
        vec![s("c"), s("d")]
    );
    // Termination label: paths end at the first Stop node.
    assert_eq!(
        names(
            "MATCH (a {n: 'a'}) CALL apoc.path.expandConfig(a, {labelFilter: '/Stop'}) \
             YIELD path RETURN length(path)"
        ),
        vec![Value::Int(3)]
    );
    // Blacklist: nothing through a Q.
    assert_eq!(
        names(
            "MATCH (a {n: 'a'}) CALL apoc.path.subgraphNodes(a, {labelFilter: '-Q|-Stop'}) YIELD node RETURN node.n ORDER BY node.n"
        ),
        vec![s("a"), s("b"), s("c")]
    );
    assert_eq!(
        one(
            &db,
            "MATCH (f {n: 'f'}) CALL apoc.path.expandConfig(f, {relationshipFilter: '<KNOWS', limit: 2}) YIELD path RETURN count(path)"
        ),
        Value::Int(2)
    );
    call_fails(
        &db,
        "MATCH (a {n: 'a'}) CALL apoc.path.expandConfig(a, {uniqueness: 'NODE_LEVEL'}) YIELD path RETURN path",
        "uniqueness",
    );
    call_fails(
        &db,
        "MATCH (a {n: 'a'}) CALL apoc.path.expandConfig(a, {maxLevel: 'x'}) YIELD path RETURN path",
        "maxLevel",
    );
    call_fails(
        &db,
        "CALL apoc.path.subgraphNodes('nope', {}) YIELD node RETURN node",
        "startNode",
    );
}

#[test]
fn nested_statements_count_against_the_callers_memory() {
    let db = Database::open_in_memory(EngineConfig {
        query_memory_bytes_max: 4 << 20,
        ..EngineConfig::default()
    });
    quiver_procedures::register(&db);
    let e = fails(
        &db,
        "CALL apoc.cypher.run('UNWIND range(1, 1000000) AS i RETURN i ORDER BY i DESC', {}) YIELD value RETURN count(*)",
    );
    assert_eq!(
        e.status_code().code(),
        "Neo.TransientError.General.TransactionMemoryLimit",
        "{e}"
    );
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn apoc_version_answers() {
    let db = db();
    let v = one(&db, "RETURN apoc.version()");
    assert!(v.as_str().is_some_and(|v| v.starts_with("2026.")), "{v:?}");
}

fn eq(db: &Database, expr: &str, expected: Value) {
    let got = one(db, &format!("RETURN {expr} AS v"));
    assert!(
        quiver_value::equivalent(&got, &expected),
        "{expr}: got {got:?}, expected {expected:?}"
    );
}

fn ints(v: &[i64]) -> Value {
    list(v.iter().map(|i| Value::Int(*i)).collect())
}

#[test]
fn coll_functions() {
    let db = db();
    eq(&db, "apoc.coll.sum([1, 2, 3.5])", Value::Float(6.5));
    eq(&db, "apoc.coll.avg([1, 2, 3])", Value::Float(2.0));
    eq(&db, "apoc.coll.min([3, 1, 2])", Value::Int(1));
    eq(&db, "apoc.coll.max(['a', 'c', 'b'])", s("c"));
    eq(&db, "apoc.coll.toSet([1, 2, 1, 3, 2])", ints(&[1, 2, 3]));
    eq(&db, "apoc.coll.sort([3, 1, 2])", ints(&[1, 2, 3]));
    eq(
        &db,
        "apoc.coll.flatten([[1, 2], [3], 4])",
        ints(&[1, 2, 3, 4]),
    );
    eq(
        &db,
        "apoc.coll.flatten([[1, [2]], [3]], true)",
        ints(&[1, 2, 3]),
    );
    eq(&db, "apoc.coll.contains([1, 2], 2)", Value::Bool(true));
    eq(
        &db,
        "apoc.coll.containsAll([1, 2, 3], [3, 1])",
        Value::Bool(true),
    );
    eq(&db, "apoc.coll.union([1, 2], [2, 3])", ints(&[1, 2, 3]));
    eq(
        &db,
        "apoc.coll.intersection([1, 2, 3], [2, 3, 4])",
        ints(&[2, 3]),
    );
    eq(&db, "apoc.coll.subtract([1, 2, 3, 2], [3])", ints(&[1, 2]));
    eq(
        &db,
        "apoc.coll.zip([1, 2], ['a'])",
        list(vec![
            list(vec![Value::Int(1), s("a")]),
            list(vec![Value::Int(2), Value::Null]),
        ]),
    );
    eq(
        &db,
        "apoc.coll.pairs([1, 2, 3])",
        list(vec![
            ints(&[1, 2]),
            ints(&[2, 3]),
            list(vec![Value::Int(3), Value::Null]),
        ]),
    );
    eq(
        &db,
        "apoc.coll.partition([1, 2, 3, 4, 5], 2)",
        list(vec![ints(&[1, 2]), ints(&[3, 4]), ints(&[5])]),
    );
    eq(&db, "apoc.coll.indexOf([1, 2, 3], 3)", Value::Int(2));
    eq(&db, "apoc.coll.remove([1, 2, 3, 4], 1, 2)", ints(&[1, 4]));
    eq(&db, "apoc.coll.insert([1, 3], 1, 2)", ints(&[1, 2, 3]));
    eq(
        &db,
        "apoc.coll.frequencies(['a', 'b', 'a'])",
        list(vec![
            Value::map(params(&[("item", s("a")), ("count", Value::Int(2))])),
            Value::map(params(&[("item", s("b")), ("count", Value::Int(1))])),
        ]),
    );
    eq(&db, "apoc.coll.sum(null)", Value::Null);
    run(&db, "CREATE (:S {v: 2}), (:S {v: 3}), (:S {v: 1})");
    assert_eq!(
        one(
            &db,
            "MATCH (n:S) WITH collect(n) AS ns RETURN [n IN apoc.coll.sortNodes(ns, 'v') | n.v]"
        ),
        ints(&[3, 2, 1])
    );
    assert_eq!(
        one(
            &db,
            "MATCH (n:S) WITH collect(n) AS ns RETURN [n IN apoc.coll.sortNodes(ns, '^v') | n.v]"
        ),
        ints(&[1, 2, 3])
    );
    call_fails(&db, "RETURN apoc.coll.partition([1], 0)", "batchSize");
    call_fails(&db, "RETURN apoc.coll.insert([1], 5, 0)", "index");
    call_fails(&db, "RETURN apoc.coll.sum('x')", "coll");
    let e = fails(&db, "RETURN apoc.coll.sum()");
    assert_eq!(
        e.status_code().code(),
        "Neo.ClientError.Statement.SyntaxError"
    );
    let e = fails(&db, "RETURN apoc.coll.nothing([1])");
    assert_eq!(
        e.status_code().code(),
        "Neo.ClientError.Statement.SyntaxError"
    );
}

#[test]
fn map_functions() {
    let db = db();
    eq(
        &db,
        "apoc.map.fromPairs([['a', 1], ['b', 2]])",
        Value::map(params(&[("a", Value::Int(1)), ("b", Value::Int(2))])),
    );
    eq(
        &db,
        "apoc.map.fromLists(['a', 'b'], [1, 2])",
        Value::map(params(&[("a", Value::Int(1)), ("b", Value::Int(2))])),
    );
    eq(
        &db,
        "apoc.map.merge({a: 1, b: 1}, {b: 2})",
        Value::map(params(&[("a", Value::Int(1)), ("b", Value::Int(2))])),
    );
    eq(
        &db,
        "apoc.map.mergeList([{a: 1}, {b: 2}, {a: 3}])",
        Value::map(params(&[("a", Value::Int(3)), ("b", Value::Int(2))])),
    );
    eq(
        &db,
        "apoc.map.setKey({a: 1}, 'b', 2)",
        Value::map(params(&[("a", Value::Int(1)), ("b", Value::Int(2))])),
    );
    eq(
        &db,
        "apoc.map.removeKey({a: 1, b: 2}, 'a')",
        Value::map(params(&[("b", Value::Int(2))])),
    );
    eq(
        &db,
        "apoc.map.removeKeys({a: 1, b: 2, c: 3}, ['a', 'c'])",
        Value::map(params(&[("b", Value::Int(2))])),
    );
    eq(
        &db,
        "apoc.map.removeKey({a: 1, b: {a: 2, c: 3}}, 'a', {recursive: true})",
        Value::map(params(&[(
            "b",
            Value::map(params(&[("c", Value::Int(3))])),
        )])),
    );
    eq(
        &db,
        "apoc.map.clean({a: 1, b: null, c: '', d: 4}, ['d'], [''])",
        Value::map(params(&[("a", Value::Int(1))])),
    );
    eq(
        &db,
        "apoc.map.flatten({a: {b: 1, c: {d: 2}}})",
        Value::map(params(&[("a.b", Value::Int(1)), ("a.c.d", Value::Int(2))])),
    );
    eq(
        &db,
        "apoc.map.values({a: 1, b: 2}, ['b', 'a', 'x'])",
        ints(&[2, 1]),
    );
    eq(&db, "apoc.map.get({a: 1}, 'b', 0)", Value::Int(0));
    eq(
        &db,
        "apoc.map.submap({a: 1, b: 2, c: 3}, ['a', 'c'])",
        Value::map(params(&[("a", Value::Int(1)), ("c", Value::Int(3))])),
    );
    call_fails(&db, "RETURN apoc.map.get({a: 1}, 'b')", "key");
    call_fails(&db, "RETURN apoc.map.fromLists(['a'], [1, 2])", "values");
    call_fails(&db, "RETURN apoc.map.merge(1, {})", "map1");
}

#[test]
fn text_functions() {
    let db = db();
    eq(&db, "apoc.text.join(['a', 'b', 'c'], '-')", s("a-b-c"));
    eq(
        &db,
        "apoc.text.split('a1b22c', '[0-9]+')",
        list(vec![s("a"), s("b"), s("c")]),
    );
    eq(
        &db,
        "apoc.text.replace('Hello World', '[aeiou]', '_')",
        s("H_ll_ W_rld"),
    );
    eq(
        &db,
        "apoc.text.regexGroups('k1=v1 k2=v2', '(\\\\w+)=(\\\\w+)')",
        list(vec![
            list(vec![s("k1=v1"), s("k1"), s("v1")]),
            list(vec![s("k2=v2"), s("k2"), s("v2")]),
        ]),
    );
    eq(&db, "apoc.text.capitalize('hello world')", s("Hello world"));
    eq(
        &db,
        "apoc.text.capitalizeAll('hello world')",
        s("Hello World"),
    );
    eq(&db, "apoc.text.decapitalize('Hello')", s("hello"));
    eq(&db, "apoc.text.camelCase('FOO_BAR baz')", s("fooBarBaz"));
    eq(&db, "apoc.text.upperCamelCase('foo bar')", s("FooBar"));
    eq(&db, "apoc.text.snakeCase('fooBar Baz')", s("foo_bar_baz"));
    eq(&db, "apoc.text.clean('Café-Bar 1!')", s("cafebar1"));
    eq(
        &db,
        "apoc.text.distance('kitten', 'sitting')",
        Value::Int(3),
    );
    eq(
        &db,
        "apoc.text.levenshteinDistance('kitten', 'sitting')",
        Value::Int(3),
    );
    eq(
        &db,
        "apoc.text.fuzzyMatch('Neo4j', 'Neo5j')",
        Value::Bool(true),
    );
    eq(
        &db,
        "apoc.text.fuzzyMatch('Neo4j', 'Memgraph')",
        Value::Bool(false),
    );
    eq(&db, "apoc.text.lpad('7', 3, '0')", s("007"));
    eq(&db, "apoc.text.rpad('ab', 4)", s("ab  "));
    eq(
        &db,
        "apoc.text.format('%s has %d items (%.2f)', ['cart', 3, 1.5])",
        s("cart has 3 items (1.50)"),
    );
    eq(&db, "size(apoc.text.random(12, 'a-c'))", Value::Int(12));
    eq(&db, "apoc.text.urlencode('a b&c')", s("a+b%26c"));
    eq(&db, "apoc.text.urldecode('a+b%26c')", s("a b&c"));
    eq(&db, "apoc.text.join(null, ',')", Value::Null);
    call_fails(&db, "RETURN apoc.text.replace('a', '(', 'b')", "regex");
    call_fails(&db, "RETURN apoc.text.format('%d', ['x'])", "text");
    call_fails(&db, "RETURN apoc.text.lpad('a', 'x')", "count");
}

#[test]
fn convert_functions() {
    let db = db();
    eq(
        &db,
        "apoc.convert.toJson({a: [1, 2.5, 'x', null, true]})",
        s(r#"{"a":[1,2.5,"x",null,true]}"#),
    );
    eq(
        &db,
        "apoc.convert.fromJsonMap('{\"a\": {\"b\": [1, 2]}}')",
        Value::map(params(&[(
            "a",
            Value::map(params(&[("b", ints(&[1, 2]))])),
        )])),
    );
    eq(
        &db,
        "apoc.convert.fromJsonMap('{\"a\": {\"b\": {\"c\": 1}}}', '$.a.b')",
        Value::map(params(&[("c", Value::Int(1))])),
    );
    eq(
        &db,
        "apoc.convert.fromJsonList('[1, \"x\"]')",
        list(vec![Value::Int(1), s("x")]),
    );
    eq(&db, "apoc.convert.toBoolean('yes')", Value::Bool(true));
    eq(&db, "apoc.convert.toBoolean(0)", Value::Bool(false));
    eq(&db, "apoc.convert.toInteger('12')", Value::Int(12));
    eq(&db, "apoc.convert.toInteger('1.9')", Value::Int(1));
    eq(&db, "apoc.convert.toInteger('x')", Value::Null);
    eq(&db, "apoc.convert.toFloat('1.5')", Value::Float(1.5));
    eq(&db, "apoc.convert.toString(12)", s("12"));
    eq(&db, "apoc.convert.toList(1)", ints(&[1]));
    eq(&db, "apoc.convert.toSet([1, 1, 2])", ints(&[1, 2]));
    eq(&db, "apoc.convert.toMap(null)", Value::Null);
    run(&db, "CREATE (:J {name: 'Ann'})");
    assert_eq!(
        one(&db, "MATCH (n:J) RETURN apoc.convert.toMap(n)"),
        Value::map(params(&[("name", s("Ann"))]))
    );
    let json = one(&db, "MATCH (n:J) RETURN apoc.convert.toJson(n)");
    let json = json.as_str().unwrap();
    assert!(
        json.contains(r#""type":"node""#) && json.contains(r#""labels":["J"]"#),
        "{json}"
    );
    assert!(json.contains(r#""properties":{"name":"Ann"}"#), "{json}");
    call_fails(&db, "RETURN apoc.convert.fromJsonMap('{nope')", "json");
    call_fails(&db, "RETURN apoc.convert.fromJsonMap('[1]')", "json");
    call_fails(&db, "RETURN apoc.convert.fromJsonList(5)", "json");
}

#[test]
fn periodic_iterate_reads_the_outer_rows_a_batch_at_a_time() {
    // Held whole, the outer rows would be over the query's limit; read a batch at a time they
    // are not.
    let db = Database::open_in_memory(EngineConfig {
        query_memory_bytes_max: 4 << 20,
        ..EngineConfig::default()
    });
    quiver_procedures::register(&db);
    let r = run(
        &db,
        "CALL apoc.periodic.iterate('UNWIND range(1, 200000) AS i RETURN i', \
         'WITH i WHERE i % 50000 = 0 CREATE (:Mark {i: i})', {batchSize: 5000}) \
         YIELD batches, total, failedBatches RETURN batches, total, failedBatches",
    );
    assert_eq!(
        r,
        vec![vec![Value::Int(40), Value::Int(200_000), Value::Int(0)]]
    );
    assert_eq!(one(&db, "MATCH (n:Mark) RETURN count(n)"), Value::Int(4));
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn any_property_and_properties_read_nodes_relationships_and_maps() {
    let db = db();
    run(
        &db,
        "CREATE (:P {name: 'Ann', age: 40})-[:KNOWS {since: 2001}]->(:P {name: 'Bob'})",
    );
    assert_eq!(
        run(
            &db,
            "MATCH (a:P {name: 'Ann'})-[r]->(b) RETURN apoc.any.property(a, 'age'), \
             apoc.any.property(r, 'since'), apoc.any.property(b, 'age'), \
             apoc.any.property({k: 1}, 'k'), apoc.any.property(a, 'unknownKey'), \
             apoc.any.property(null, 'age'), apoc.any.property(a, null), \
             apoc.any.property(5, 'age')"
        ),
        vec![vec![
            Value::Int(40),
            Value::Int(2001),
            Value::Null,
            Value::Int(1),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
        ]]
    );
    assert_eq!(
        run(
            &db,
            "MATCH (a:P {name: 'Ann'})-[r]->() RETURN apoc.any.properties(a), \
             apoc.any.properties(a, ['name', 'unknownKey']), apoc.any.properties(r), \
             apoc.any.properties({k: 1, j: 2}, ['j']), apoc.any.properties(null), \
             apoc.any.properties(a, null)"
        ),
        vec![vec![
            Value::map(params(&[("age", Value::Int(40)), ("name", s("Ann"))])),
            Value::map(params(&[("name", s("Ann"))])),
            Value::map(params(&[("since", Value::Int(2001))])),
            Value::map(params(&[("j", Value::Int(2))])),
            Value::Null,
            Value::map(params(&[("age", Value::Int(40)), ("name", s("Ann"))])),
        ]]
    );
    // A virtual node answers from the properties it carries.
    assert_eq!(
        one(
            &db,
            "CALL apoc.meta.graph() YIELD nodes UNWIND nodes AS n \
             RETURN apoc.any.property(n, 'name')"
        ),
        s("P")
    );
    call_fails(&db, "MATCH (a:P) RETURN apoc.any.property(a, 1)", "key");
    call_fails(
        &db,
        "MATCH (a:P) RETURN apoc.any.properties(a, 'name')",
        "keys",
    );
    call_fails(
        &db,
        "MATCH (a:P) RETURN apoc.any.properties(a, [1])",
        "keys",
    );
}

#[test]
fn any_property_reads_a_stored_value_against_the_query_memory_limit() {
    let db = Database::open_in_memory(EngineConfig {
        query_memory_bytes_max: 1 << 20,
        ..EngineConfig::default()
    });
    quiver_procedures::register(&db);
    run(&db, "CREATE (:Big {text: apoc.text.repeat('x', 600000)})");
    let e = fails(
        &db,
        "MATCH (n:Big) UNWIND range(1, 4) AS i \
         WITH collect(apoc.any.property(n, 'text')) AS texts RETURN size(texts)",
    );
    assert!(e.message().contains("memory"), "{e}");
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn schema_properties_distinct_lists_the_values_of_a_label_key() {
    let db = db();
    run(
        &db,
        "UNWIND [1, 2, 2, 3, null] AS v CREATE (:D {v: v}) CREATE (:Other {v: 9})",
    );
    let r = one(
        &db,
        "CALL apoc.schema.properties.distinct('D', 'v') YIELD value RETURN value",
    );
    let mut values = r.as_list().expect("a list").to_vec();
    values.sort_by(quiver_value::order);
    assert_eq!(values, vec![Value::Int(1), Value::Int(2), Value::Int(3)]);
    assert_eq!(
        one(
            &db,
            "CALL apoc.schema.properties.distinct('Nope', 'v') YIELD value RETURN value"
        ),
        list(vec![])
    );
    // Names are quoted, so any label or key is read as a name.
    run(&db, "CREATE (:`odd label` {`a key`: 'x'})");
    assert_eq!(
        one(
            &db,
            "CALL apoc.schema.properties.distinct('odd label', 'a key') YIELD value RETURN value"
        ),
        list(vec![s("x")])
    );
    call_fails(
        &db,
        "CALL apoc.schema.properties.distinct(null, 'v') YIELD value RETURN value",
        "label",
    );
    call_fails(
        &db,
        "CALL apoc.schema.properties.distinct('D', null) YIELD value RETURN value",
        "key",
    );
}

#[test]
fn merge_nodes_folds_duplicates_into_the_first_with_their_relationships() {
    let db = db();
    run(
        &db,
        "CREATE (a1:Person:__Entity__ {name: 'Alice', age: 30}), \
                (a2:Person:__Entity__:Employee {name: 'Alice', age: 31, city: 'Paris'}), \
                (acme:Company {name: 'Acme'}), (bob:Person {name: 'Bob'}), \
                (a1)-[:WORKS_AT {since: 1999}]->(acme), \
                (a2)-[:WORKS_AT {since: 2001, role: 'cto'}]->(acme), \
                (bob)-[:KNOWS]->(a2), (a2)-[:SELF]->(a2)",
    );
    let merged = run(
        &db,
        "MATCH (e:Person {name: 'Alice'}) WITH e ORDER BY e.age \
         WITH collect(e) AS entities \
         CALL apoc.refactor.mergeNodes(entities, {properties: 'discard', mergeRels: true}) \
         YIELD node RETURN node.age, node.city, labels(node)",
    );
    assert_eq!(merged.len(), 1);
    assert_eq!(
        merged[0][0],
        Value::Int(30),
        "discard keeps the first node's value"
    );
    assert_eq!(merged[0][1], s("Paris"), "a missing property is taken");
    let Value::List(labels) = &merged[0][2] else {
        panic!("{merged:?}")
    };
    assert!(labels.contains(&s("Employee")), "{labels:?}");
    assert_eq!(
        one(&db, "MATCH (p:Person {name: 'Alice'}) RETURN count(p)"),
        Value::Int(1)
    );
    // The two WORKS_AT relationships to Acme are folded into one, keeping the first's since.
    assert_eq!(
        run(
            &db,
            "MATCH (:Person {name: 'Alice'})-[r:WORKS_AT]->(:Company) RETURN r.since, r.role"
        ),
        vec![vec![Value::Int(1999), s("cto")]]
    );
    assert_eq!(
        one(
            &db,
            "MATCH (:Person {name: 'Bob'})-[:KNOWS]->(a) RETURN a.age"
        ),
        Value::Int(30)
    );
    assert_eq!(
        one(
            &db,
            "MATCH (a {name: 'Alice'})-[:SELF]->(a) RETURN count(*)"
        ),
        Value::Int(1)
    );
}

#[test]
fn merge_nodes_overwrites_by_default_and_refuses_an_unknown_strategy() {
    let db = db();
    run(&db, "CREATE (:N {k: 1, a: 'x'}), (:N {k: 2, b: 'y'})");
    let merged = one(
        &db,
        "MATCH (n:N) WITH n ORDER BY n.k WITH collect(n) AS ns \
         CALL apoc.refactor.mergeNodes(ns) YIELD node RETURN node {.k, .a, .b}",
    );
    let Value::Map(m) = merged else { panic!() };
    assert_eq!(m.get("k"), Some(&Value::Int(2)));
    assert_eq!(m.get("a"), Some(&s("x")));
    assert_eq!(m.get("b"), Some(&s("y")));
    call_fails(
        &db,
        "MATCH (n:N) WITH collect(n) AS ns \
         CALL apoc.refactor.mergeNodes(ns, {properties: 'combine'}) YIELD node RETURN node",
        "config",
    );
}

/// `apoc.periodic.iterate`'s batches commit in transactions of their own: a load three times
/// the query memory limit commits batch by batch, each batch counting only its own writes,
/// and gives all its room back.
#[test]
fn periodic_batches_count_only_their_own_writes_against_the_memory_limit() {
    const MIB: usize = 1 << 20;
    let db = Database::open_in_memory(EngineConfig {
        query_memory_bytes_max: 4 * MIB,
        query_memory_total_bytes_max: 1 << 30,
        ..EngineConfig::default()
    });
    quiver_procedures::register(&db);
    // About 12 MiB of writes in all; 1000 rows a batch (about 1.2 MiB) fit the limit.
    db.execute(
        "CALL apoc.periodic.iterate('UNWIND range(1, 10000) AS i RETURN i', \
         'CREATE (:P {s: reduce(s = \"\", j IN range(1, 100) | s + \"0123456789\"), i: i})', \
         {batchSize: 1000}) YIELD committedOperations RETURN committedOperations",
        Map::new(),
    )
    .unwrap();
    let r = db
        .execute("MATCH (n:P) RETURN count(n) AS n", Map::new())
        .unwrap();
    assert_eq!(r.rows[0][0], Value::Int(10000));
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}
