//! Vector indexes: the DDL, `SHOW INDEXES`, the `db.index.vector.*` and
//! `db.create.set*VectorProperty` procedures, their bad arguments, results confirmed against
//! the reader's snapshot, the rebuild after a restart, and recall against exact search.

use quiver_engine::{Database, Mode, TxOptions};
use quiver_status::Status;
use quiver_value::{Map, Value};

mod support;

use support::{db, run, run_with};

fn vector(items: &[f64]) -> Value {
    Value::from(items.iter().map(|x| Value::Float(*x)).collect::<Vec<_>>())
}

/// The names and scores of a query's `name, score` rows.
fn named_scores(rows: &[Vec<Value>]) -> Vec<(String, f64)> {
    rows.iter()
        .map(|r| match (&r[0], &r[1]) {
            (Value::String(n), Value::Float(s)) => (n.to_string(), *s),
            other => panic!("unexpected row {other:?}"),
        })
        .collect()
}

fn query_names(db: &Database, index: &str, k: i64, v: &[f64]) -> Vec<(String, f64)> {
    named_scores(&run_with(
        db,
        "CALL db.index.vector.queryNodes($i, $k, $v) YIELD node, score \
         RETURN node.name AS name, score",
        &[
            ("i", Value::from(index)),
            ("k", Value::Int(k)),
            ("v", vector(v)),
        ],
    ))
}

const CREATE_2D: &str = "CREATE VECTOR INDEX doc_vec FOR (d:Doc) ON (d.v) \
     OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}";

fn docs(db: &Database) {
    run(db, CREATE_2D);
    run(
        db,
        "CREATE (:Doc {name: 'east', v: [1.0, 0.0], lang: 'en'}), \
                (:Doc {name: 'north', v: [0.0, 1.0], lang: 'de'}), \
                (:Doc {name: 'northeast', v: [1, 1], lang: 'en'}), \
                (:Doc {name: 'west', v: [-1.0, 0.0], lang: 'en'}), \
                (:Doc {name: 'no vector'}), \
                (:Other {name: 'other', v: [1.0, 0.0]})",
    );
}

#[test]
fn create_show_and_drop_a_vector_index() {
    let db = db();
    let r = db.execute(CREATE_2D, Map::new()).expect("create");
    assert_eq!(r.summary.stats.indexes_added, 1);
    // Again: an equivalent index exists; with IF NOT EXISTS, nothing happens.
    let e = db.execute(CREATE_2D, Map::new()).expect_err("exists");
    assert!(e.message().contains("doc_vec"), "{}", e.message());
    let r = db
        .execute(
            "CREATE VECTOR INDEX doc_vec IF NOT EXISTS FOR (d:Doc) ON (d.v) \
             OPTIONS {indexConfig: {`vector.dimensions`: 2}}",
            Map::new(),
        )
        .expect("if not exists");
    assert_eq!(r.summary.stats.indexes_added, 0);
    run(
        &db,
        "CREATE VECTOR INDEX rel_vec FOR ()-[r:SIMILAR]-() ON (r.e) \
         OPTIONS {indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: 'EUCLIDEAN', \
         `vector.quantization.enabled`: false, `vector.hnsw.m`: 8, \
         `vector.hnsw.ef_construction`: 50, `vector.hnsw.ef_search`: 200}, \
         indexProvider: 'vector-2.0'}",
    );
    run(&db, "CREATE INDEX FOR (p:Person) ON (p.name)");
    let rows = run(
        &db,
        "SHOW VECTOR INDEXES YIELD name, type, entityType, labelsOrTypes, properties, options \
         RETURN name, type, entityType, labelsOrTypes, properties, \
         options.indexConfig AS config ORDER BY name",
    );
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0][0], Value::from("doc_vec"));
    assert_eq!(rows[0][1], Value::from("VECTOR"));
    assert_eq!(rows[0][2], Value::from("NODE"));
    assert_eq!(rows[0][3], Value::from(vec![Value::from("Doc")]));
    assert_eq!(rows[0][4], Value::from(vec![Value::from("v")]));
    let Value::Map(config) = &rows[0][5] else {
        panic!("{rows:?}")
    };
    assert_eq!(config.get("vector.dimensions"), Some(&Value::Int(2)));
    assert_eq!(
        config.get("vector.similarity_function"),
        Some(&Value::from("COSINE"))
    );
    assert_eq!(config.get("vector.hnsw.m"), Some(&Value::Int(16)));
    assert_eq!(config.get("vector.hnsw.ef_search"), Some(&Value::Int(64)));
    assert_eq!(rows[1][0], Value::from("rel_vec"));
    assert_eq!(rows[1][2], Value::from("RELATIONSHIP"));
    let Value::Map(config) = &rows[1][5] else {
        panic!("{rows:?}")
    };
    assert_eq!(
        config.get("vector.similarity_function"),
        Some(&Value::from("EUCLIDEAN"))
    );
    assert_eq!(config.get("vector.hnsw.m"), Some(&Value::Int(8)));
    assert_eq!(config.get("vector.hnsw.ef_search"), Some(&Value::Int(200)));
    assert_eq!(
        config.get("vector.quantization.enabled"),
        Some(&Value::Bool(false))
    );
    let all = run(
        &db,
        "SHOW INDEXES YIELD name, type RETURN type ORDER BY type",
    );
    assert_eq!(
        all,
        vec![
            vec![Value::from("RANGE")],
            vec![Value::from("VECTOR")],
            vec![Value::from("VECTOR")]
        ]
    );
    // SHOW only reads: tools send it in read transactions (neo4j-graphrag does).
    let mut read = db.begin(TxOptions::read()).expect("begin read");
    let q = read
        .run(
            "SHOW VECTOR INDEXES YIELD name WHERE name = 'doc_vec' RETURN name",
            Map::new(),
        )
        .expect("SHOW in a read transaction");
    let mut rows = Vec::new();
    read.pull(q, -1, &mut rows).expect("pull");
    assert_eq!(rows, vec![vec![Value::from("doc_vec")]]);
    read.rollback().expect("end");
    let r = db.execute("DROP INDEX doc_vec", Map::new()).expect("drop");
    assert_eq!(r.summary.stats.indexes_removed, 1);
    let e = db
        .execute(
            "CALL db.index.vector.queryNodes('doc_vec', 1, [1.0, 0.0])",
            Map::new(),
        )
        .expect_err("dropped");
    assert_eq!(e.status_code(), Status::ProcedureCallFailed);
    run(&db, "DROP INDEX doc_vec IF EXISTS");
    assert_eq!(run(&db, "SHOW VECTOR INDEXES").len(), 1);
}

#[test]
fn bad_options_name_the_setting() {
    let db = db();
    for (options, expected) in [
        ("{indexConfig: {}}", "vector.dimensions"),
        (
            "{indexConfig: {`vector.dimensions`: 0}}",
            "vector.dimensions",
        ),
        (
            "{indexConfig: {`vector.dimensions`: 5000}}",
            "vector.dimensions",
        ),
        (
            "{indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'dot'}}",
            "vector.similarity_function",
        ),
        (
            "{indexConfig: {`vector.dimensions`: 2, `vector.hnsw.m`: 0}}",
            "vector.hnsw.m",
        ),
        (
            "{indexConfig: {`vector.dimensions`: 2, `vector.hnsw.m`: 513}}",
            "vector.hnsw.m",
        ),
        (
            "{indexConfig: {`vector.dimensions`: 2, `vector.hnsw.ef_search`: 10001}}",
            "vector.hnsw.ef_search",
        ),
        (
            "{indexConfig: {`vector.dimensions`: 2, `vector.size`: 3}}",
            "vector.size",
        ),
        ("{colour: 'red'}", "colour"),
    ] {
        let q = format!("CREATE VECTOR INDEX FOR (d:Doc) ON (d.v) OPTIONS {options}");
        let e = db.execute(&q, Map::new()).expect_err(&q);
        assert_eq!(e.status_code(), Status::ArgumentError, "{q}");
        assert!(e.message().contains(expected), "{q}: {}", e.message());
    }
    assert!(run(&db, "SHOW VECTOR INDEXES").is_empty());
}

#[test]
fn the_largest_link_count_neo4j_allows_builds_and_searches() {
    let db = db();
    run(
        &db,
        "CREATE VECTOR INDEX wide FOR (p:Pt) ON (p.v) OPTIONS {indexConfig: \
         {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean', `vector.hnsw.m`: 512}}",
    );
    run(
        &db,
        "UNWIND range(1, 2000) AS i CREATE (:Pt {name: toString(i), v: [toFloat(i), 0.0]})",
    );
    // Points on a line are the worst case of a graph search (each keeps its two neighbours):
    // approximate, it promises k answers; asked for every point, it compares them all.
    let nearest = |k: i64| {
        named_scores(&run_with(
            &db,
            "CALL db.index.vector.queryNodes('wide', $k, [1000.2, 0.0]) YIELD node, score \
             RETURN node.name AS name, score",
            &[("k", Value::Int(k))],
        ))
    };
    assert_eq!(nearest(3).len(), 3);
    let all = nearest(2000);
    let names: Vec<&str> = all.iter().take(3).map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["1000", "1001", "999"]);
}

#[test]
fn query_nodes_returns_neo4j_scores_best_first() {
    let db = db();
    docs(&db);
    let got = query_names(&db, "doc_vec", 3, &[1.0, 0.0]);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["east", "northeast", "north"]);
    assert_eq!(got[0].1, 1.0);
    assert!((got[1].1 - f64::midpoint(1.0, 0.5f64.sqrt())).abs() < 1e-12);
    assert_eq!(got[2].1, 0.5);
    // The scores are the vector.similarity functions' own.
    let rows = run(
        &db,
        "CALL db.index.vector.queryNodes('doc_vec', 4, [0.3, 0.9]) YIELD node, score \
         RETURN score = vector.similarity.cosine(node.v, [0.3, 0.9]) AS same",
    );
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r[0] == Value::Bool(true)), "{rows:?}");
    // k beyond what is indexed returns what there is.
    assert_eq!(query_names(&db, "doc_vec", 100, &[1.0, 0.0]).len(), 4);
}

#[test]
fn query_relationships_with_euclidean_scores() {
    let db = db();
    run(
        &db,
        "CREATE VECTOR INDEX sim FOR ()-[r:SIMILAR]-() ON (r.e) \
         OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean'}}",
    );
    run(
        &db,
        "CREATE (a:P {name: 'a'}), (b:P {name: 'b'}), \
         (a)-[:SIMILAR {name: 'near', e: [1.0, 1.0]}]->(b), \
         (a)-[:SIMILAR {name: 'far', e: [3.0, 1.0]}]->(b), \
         (a)-[:OTHER {name: 'other', e: [1.0, 1.0]}]->(b)",
    );
    let rows = named_scores(&run(
        &db,
        "CALL db.index.vector.queryRelationships('sim', 5, [1.0, 0.0]) \
         YIELD relationship, score RETURN relationship.name AS name, score",
    ));
    assert_eq!(
        rows,
        vec![("near".to_string(), 0.5), ("far".to_string(), 1.0 / 6.0)]
    );
    let rows = run(
        &db,
        "CALL db.index.vector.queryRelationships('sim', 1, [1.0, 0.0]) \
         YIELD relationship, score \
         RETURN score = vector.similarity.euclidean(relationship.e, [1.0, 0.0]) AS same, \
         type(relationship) AS t, startNode(relationship).name AS s",
    );
    assert_eq!(
        rows,
        vec![vec![
            Value::Bool(true),
            Value::from("SIMILAR"),
            Value::from("a")
        ]]
    );
}

#[test]
fn bad_arguments_fail_naming_the_argument() {
    let db = db();
    docs(&db);
    run(
        &db,
        "CREATE VECTOR INDEX sim FOR ()-[r:SIMILAR]-() ON (r.e) \
         OPTIONS {indexConfig: {`vector.dimensions`: 2}}",
    );
    for (q, argument) in [
        (
            "CALL db.index.vector.queryNodes('missing', 1, [1.0, 0.0])",
            "indexName",
        ),
        (
            "CALL db.index.vector.queryNodes(null, 1, [1.0, 0.0])",
            "indexName",
        ),
        (
            "CALL db.index.vector.queryNodes('sim', 1, [1.0, 0.0])",
            "indexName",
        ),
        (
            "CALL db.index.vector.queryRelationships('doc_vec', 1, [1.0, 0.0])",
            "indexName",
        ),
        (
            "CALL db.index.vector.queryNodes('doc_vec', 1, [1.0, 0.0, 2.0])",
            "query",
        ),
        (
            "CALL db.index.vector.queryNodes('doc_vec', 0, [1.0, 0.0])",
            "numberOfNearestNeighbours",
        ),
        (
            "CALL db.index.vector.queryNodes('doc_vec', -3, [1.0, 0.0])",
            "numberOfNearestNeighbours",
        ),
        (
            "CALL db.index.vector.queryNodes('doc_vec', null, [1.0, 0.0])",
            "numberOfNearestNeighbours",
        ),
        (
            "CALL db.index.vector.queryNodes('doc_vec', 1, ['a', 'b'])",
            "query",
        ),
        ("CALL db.index.vector.queryNodes('doc_vec', 1, [])", "query"),
        (
            "CALL db.index.vector.queryNodes('doc_vec', 1, 'x')",
            "query",
        ),
        (
            "CALL db.index.vector.queryNodes('doc_vec', 1, null)",
            "query",
        ),
        (
            "MATCH (d:Doc {name: 'east'}) CALL db.create.setNodeVectorProperty(d, 'v', ['x'])",
            "vector",
        ),
        (
            "MATCH (d:Doc {name: 'east'}) CALL db.create.setNodeVectorProperty(d, 'v', null)",
            "vector",
        ),
        (
            "MATCH (d:Doc {name: 'east'}) CALL db.create.setNodeVectorProperty(d, null, [1.0])",
            "key",
        ),
        (
            "CALL db.create.setNodeVectorProperty(null, 'v', [1.0])",
            "node",
        ),
        (
            "CALL db.index.vector.createNodeIndex('x', 'Doc', 'w', 0, 'cosine')",
            "vector.dimensions",
        ),
        (
            "CALL db.index.vector.createNodeIndex('x', 'Doc', 'w', 2, 'manhattan')",
            "vector.similarity_function",
        ),
        (
            "CALL db.index.vector.createNodeIndex('x', 'Doc', 'w', null, 'cosine')",
            "vectorDimension",
        ),
    ] {
        let e = db.execute(q, Map::new()).expect_err(q);
        assert_eq!(e.status_code(), Status::ProcedureCallFailed, "{q}: {e:?}");
        assert!(e.message().contains(argument), "{q}: {}", e.message());
    }
}

#[test]
fn set_vector_property_and_create_node_index_procedures() {
    let db = db();
    run(
        &db,
        "CALL db.index.vector.createNodeIndex('chunks', 'Chunk', 'embedding', 3, 'euclidean')",
    );
    let rows = run(
        &db,
        "SHOW VECTOR INDEXES YIELD name, options RETURN name, options.indexConfig AS c",
    );
    assert_eq!(rows[0][0], Value::from("chunks"));
    run(&db, "CREATE (:Chunk {id: 1}), (:Chunk {id: 2})");
    run(
        &db,
        "MATCH (c:Chunk {id: 1}) CALL db.create.setNodeVectorProperty(c, 'embedding', [1, 2, 3])",
    );
    run(
        &db,
        "MATCH (c:Chunk {id: 2}) \
         CALL db.create.setNodeVectorProperty(c, 'embedding', [1.0, 2.0, 4.0])",
    );
    let rows = run(&db, "MATCH (c:Chunk) RETURN c.embedding AS e ORDER BY c.id");
    assert_eq!(rows[0][0], vector(&[1.0, 2.0, 3.0]), "stored as floats");
    let rows = run(
        &db,
        "CALL db.index.vector.queryNodes('chunks', 2, [1, 2, 3]) YIELD node, score \
         RETURN node.id AS id, score",
    );
    assert_eq!(
        rows,
        vec![
            vec![Value::Int(1), Value::Float(1.0)],
            vec![Value::Int(2), Value::Float(0.5)]
        ]
    );
}

#[test]
fn set_relationship_vector_property() {
    let db = db();
    run(
        &db,
        "CREATE VECTOR INDEX rv FOR ()-[r:R]-() ON (r.e) \
         OPTIONS {indexConfig: {`vector.dimensions`: 2}}",
    );
    run(&db, "CREATE (:A)-[:R {n: 1}]->(:A)");
    run(
        &db,
        "MATCH ()-[r:R]->() CALL db.create.setRelationshipVectorProperty(r, 'e', [0.0, 2.0])",
    );
    let rows = run(
        &db,
        "CALL db.index.vector.queryRelationships('rv', 1, [0.0, 1.0]) YIELD relationship, score \
         RETURN relationship.n AS n, score",
    );
    assert_eq!(rows, vec![vec![Value::Int(1), Value::Float(1.0)]]);
}

#[test]
fn results_follow_the_readers_snapshot() {
    let db = db();
    docs(&db);
    // A reader that began before the changes keeps seeing its snapshot.
    let mut old = db.begin(TxOptions::read()).expect("begin");
    run(&db, "MATCH (d:Doc {name: 'east'}) DETACH DELETE d");
    run(&db, "MATCH (d:Doc {name: 'north'}) SET d.v = [-1.0, 0.1]");
    run(&db, "MATCH (d:Doc {name: 'west'}) REMOVE d:Doc");
    run(&db, "CREATE (:Doc {name: 'late', v: [1.0, 0.01]})");
    let q = old
        .run(
            "CALL db.index.vector.queryNodes('doc_vec', 3, [1.0, 0.0]) YIELD node, score \
             RETURN node.name AS name, score",
            Map::new(),
        )
        .expect("run");
    let mut rows = Vec::new();
    old.pull(q, -1, &mut rows).expect("pull");
    let names: Vec<String> = named_scores(&rows).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["east", "northeast", "north"]);
    old.rollback().expect("end");
    // A new reader sees the changes: deleted, unlabelled and moved entities are confirmed
    // away or scored by their visible vector, and the new one is found.
    let got = query_names(&db, "doc_vec", 10, &[1.0, 0.0]);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["late", "northeast", "north"]);
    let north = got[2].1;
    assert!(north < 0.01, "north is scored by its new vector: {north}");

    // Uncommitted vectors are nobody else's, and a rollback leaves nothing behind.
    let mut writer = db.begin(TxOptions::default()).expect("begin");
    let q = writer
        .run(
            "CREATE (:Doc {name: 'uncommitted', v: [1.0, 0.0]})",
            Map::new(),
        )
        .expect("run");
    writer.pull(q, -1, &mut Vec::new()).expect("pull");
    assert_eq!(query_names(&db, "doc_vec", 1, &[1.0, 0.0])[0].0, "late");
    writer.rollback().expect("rollback");
    assert_eq!(query_names(&db, "doc_vec", 1, &[1.0, 0.0])[0].0, "late");
}

/// The names and scores `tx` finds nearest `v` through `doc_vec`.
fn query_names_in(tx: &mut quiver_engine::Transaction, k: i64, v: &[f64]) -> Vec<(String, f64)> {
    named_scores(&rows_in(
        tx,
        "CALL db.index.vector.queryNodes('doc_vec', $k, $v) YIELD node, score \
         RETURN node.name AS name, score",
        &[("k", Value::Int(k)), ("v", vector(v))],
    ))
}

/// Every row of `query` run in `tx` with `params`.
fn rows_in(
    tx: &mut quiver_engine::Transaction,
    query: &str,
    params: &[(&str, Value)],
) -> Vec<Vec<Value>> {
    let params: Map = params
        .iter()
        .map(|(k, v)| ((*k).into(), v.clone()))
        .collect();
    let q = tx.run(query, params).expect("run");
    let mut rows = Vec::new();
    tx.pull(q, -1, &mut rows).expect("pull");
    rows
}

#[test]
fn a_transaction_finds_its_own_uncommitted_vectors() {
    let db = db();
    docs(&db);
    let mut writer = db.begin(TxOptions::default()).expect("begin");
    for change in [
        "CREATE (:Doc {name: 'mine', v: [1.0, 0.02]})",
        "MATCH (d:Doc {name: 'north'}) SET d.v = [1.0, 0.05]",
        "MATCH (d:Doc {name: 'east'}) DETACH DELETE d",
        "MATCH (d:Doc {name: 'no vector'}) SET d.v = [0.9, 0.6]",
        "MATCH (d:Other) SET d:Doc",
    ] {
        rows_in(&mut writer, change, &[]);
    }
    // Its own new, moved, newly vectored and newly labelled entities, each once and scored
    // by the vector it wrote; its deletion gone.
    let got = query_names_in(&mut writer, 5, &[1.0, 0.0]);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["other", "mine", "north", "no vector", "northeast"]);
    assert!(
        got[2].1 > 0.99,
        "north is scored by its new vector: {}",
        got[2].1
    );
    // Nobody else sees them before the commit; everyone after.
    let before = query_names(&db, "doc_vec", 2, &[1.0, 0.0]);
    assert_eq!(before[0].0, "east");
    writer.commit().expect("commit");
    let after = query_names(&db, "doc_vec", 5, &[1.0, 0.0]);
    assert_eq!(after, got);
}

#[test]
fn over_fetch_returns_k_rows_past_deleted_neighbours_and_filters() {
    let db = db();
    run(
        &db,
        "CREATE VECTOR INDEX pts FOR (p:Pt) ON (p.v) \
         OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean'}}",
    );
    run(
        &db,
        "UNWIND range(1, 400) AS i \
         CREATE (:Pt {name: toString(i), i: i, v: [toFloat(i), 0.0], lang: CASE i % 4 WHEN 0 THEN 'en' ELSE 'de' END})",
    );
    // The 300 nearest to the origin go: the next 10 must still come back.
    run(&db, "MATCH (p:Pt) WHERE p.i <= 300 DELETE p");
    let got = query_names(&db, "pts", 10, &[0.0, 0.0]);
    let names: Vec<String> = got.into_iter().map(|(n, _)| n).collect();
    let expected: Vec<String> = (301..=310).map(|i| i.to_string()).collect();
    assert_eq!(names, expected);
    // Filtering after YIELD: ask for more, cut after the filter (the documented rule).
    let rows = run(
        &db,
        "CALL db.index.vector.queryNodes('pts', 40, [0.0, 0.0]) YIELD node, score \
         WITH node, score WHERE node.lang = 'en' RETURN node.i AS i LIMIT 5",
    );
    let got: Vec<Value> = rows.into_iter().map(|mut r| r.remove(0)).collect();
    let expected: Vec<Value> = [304, 308, 312, 316, 320].map(Value::Int).to_vec();
    assert_eq!(got, expected);
}

#[test]
fn the_index_is_rebuilt_after_a_restart() {
    let dir = tempfile::tempdir().expect("dir");
    {
        let db = Database::open(dir.path(), Mode::Group).expect("open");
        quiver_procedures::register(&db);
        docs(&db);
        run(
            &db,
            "CREATE VECTOR INDEX sim FOR ()-[r:SIMILAR]-() ON (r.e) WITH [r.w] \
             OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean', `vector.hnsw.m`: 12}}",
        );
        run(&db, "CREATE (:X)-[:SIMILAR {e: [2.0, 0.0]}]->(:X)");
        assert_eq!(query_names(&db, "doc_vec", 1, &[1.0, 0.0])[0].0, "east");
        // Dropped without closing: the next open replays the log.
    }
    {
        let db = Database::open(dir.path(), Mode::Group).expect("reopen from the log");
        quiver_procedures::register(&db);
        assert_eq!(query_names(&db, "doc_vec", 1, &[1.0, 0.0])[0].0, "east");
        run(&db, "CREATE (:Doc {name: 'after', v: [1.0, 0.001]})");
        db.close().expect("close writes a snapshot");
    }
    let db = Database::open(dir.path(), Mode::Group).expect("reopen from the snapshot");
    quiver_procedures::register(&db);
    let got = query_names(&db, "doc_vec", 2, &[1.0, 0.0]);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["east", "after"]);
    let rows = run(
        &db,
        "CALL db.index.vector.queryRelationships('sim', 1, [2.0, 0.0]) YIELD score RETURN score",
    );
    assert_eq!(rows, vec![vec![Value::Float(1.0)]]);
    let rows = run(
        &db,
        "SHOW VECTOR INDEXES YIELD name, options, properties \
         RETURN name, options.indexConfig.`vector.hnsw.m` AS m, properties ORDER BY name",
    );
    let keys = |ks: &[&str]| Value::from(ks.iter().map(|&k| Value::from(k)).collect::<Vec<_>>());
    assert_eq!(
        rows,
        vec![
            vec![Value::from("doc_vec"), Value::Int(16), keys(&["v"])],
            vec![Value::from("sim"), Value::Int(12), keys(&["e", "w"])]
        ]
    );
    db.close().expect("close");
}

/// A small deterministic generator (xorshift), so the recall test sees the same set every run.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

/// Recall@10 of `queryNodes` against exact search over clustered vectors, for an index with
/// the given similarity function and quantization.
fn recall_at_10(similarity: &str, quantization: bool) -> f64 {
    const N: usize = 3000;
    // Enough for a quantized index to hold its points in fewer bits.
    const DIMENSIONS: usize = 64;
    const QUERIES: usize = 30;
    let db = db();
    run(
        &db,
        &format!(
            "CREATE VECTOR INDEX emb FOR (e:E) ON (e.v) \
             OPTIONS {{indexConfig: {{`vector.dimensions`: 64, `vector.similarity_function`: '{similarity}', \
             `vector.quantization.enabled`: {quantization}}}}}"
        ),
    );
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    // Clustered, as embeddings are: 40 centres, each point near one.
    let centres: Vec<Vec<f64>> = (0..40)
        .map(|_| (0..DIMENSIONS).map(|_| rng.unit() * 4.0).collect())
        .collect();
    let points: Vec<Value> = (0..N)
        .map(|i| {
            let c = &centres[i % centres.len()];
            vector(&c.iter().map(|x| x + rng.unit()).collect::<Vec<_>>())
        })
        .collect();
    run_with(
        &db,
        "UNWIND range(0, size($vs) - 1) AS i CREATE (:E {i: i, v: $vs[i]})",
        &[("vs", Value::from(points))],
    );
    let mut found = 0;
    for _ in 0..QUERIES {
        // Queries resemble the data, as a question's embedding resembles its answers'.
        let c = &centres[rng.0 as usize % centres.len()];
        let q: Vec<f64> = c.iter().map(|x| x + rng.unit()).collect();
        let p = [("q", vector(&q))];
        let exact = run_with(
            &db,
            &format!(
                "MATCH (e:E) RETURN e.i AS i \
                 ORDER BY vector.similarity.{similarity}(e.v, $q) DESC, e.i LIMIT 10"
            ),
            &p,
        );
        let approx = run_with(
            &db,
            "CALL db.index.vector.queryNodes('emb', 10, $q) YIELD node RETURN node.i AS i",
            &p,
        );
        assert_eq!(approx.len(), 10);
        found += approx.iter().filter(|r| exact.contains(r)).count();
    }
    found as f64 / (10 * QUERIES) as f64
}

#[test]
fn recall_at_10_against_exact_search_is_at_least_0_95() {
    for similarity in ["cosine", "euclidean"] {
        for quantization in [false, true] {
            let recall = recall_at_10(similarity, quantization);
            assert!(
                recall >= 0.95,
                "{similarity}, quantization {quantization}: recall@10 {recall}"
            );
        }
    }
}

/// The ids `SEARCH ... WHERE` returns for `q`, nearest first.
fn filtered(db: &Database, filter: &str, k: i64, q: &[f64]) -> Vec<i64> {
    run_with(
        db,
        &format!(
            "MATCH (p:P) SEARCH p IN (VECTOR INDEX pv FOR $q WHERE {filter} LIMIT $k) SCORE AS s \
             RETURN p.i AS i ORDER BY s DESC, i"
        ),
        &[("q", vector(q)), ("k", Value::Int(k))],
    )
    .into_iter()
    .map(|r| match r[0] {
        Value::Int(i) => i,
        ref other => panic!("unexpected {other:?}"),
    })
    .collect()
}

#[test]
fn a_filtered_search_finds_the_nearest_that_pass_as_exact_search_does() {
    const N: usize = 3000;
    const QUERIES: usize = 20;
    for quantization in [false, true] {
        let db = db();
        run(
            &db,
            &format!(
                "CREATE VECTOR INDEX pv FOR (p:P) ON p.v WITH [p.band, p.year] \
                 OPTIONS {{indexConfig: {{`vector.dimensions`: 64, \
                 `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: {quantization}}}}}"
            ),
        );
        let mut rng = Rng(0x0f11_7e2e_d5ea_2c40);
        let centres: Vec<Vec<f64>> = (0..20)
            .map(|_| (0..64).map(|_| rng.unit() * 4.0).collect())
            .collect();
        let points: Vec<Value> = (0..N)
            .map(|i| {
                vector(
                    &centres[i % 20]
                        .iter()
                        .map(|x| x + rng.unit())
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        // A band keeps one vector in ten; years spread over 30.
        run_with(
            &db,
            "UNWIND range(0, size($vs) - 1) AS i \
             CREATE (:P {i: i, v: $vs[i], band: i % 10, year: 1990 + (i * 7) % 30})",
            &[("vs", Value::from(points))],
        );
        let mut found = 0;
        let mut asked = 0;
        for n in 0..QUERIES {
            let q: Vec<f64> = centres[n % 20].iter().map(|x| x + rng.unit()).collect();
            let (filter, exact_filter) = if n % 2 == 0 {
                ("p.band = 3", "p.band = 3")
            } else {
                (
                    "p.year >= 2000 AND p.year < 2003",
                    "p.year >= 2000 AND p.year < 2003",
                )
            };
            let exact: Vec<i64> = run_with(
                &db,
                &format!(
                    "MATCH (p:P) WHERE {exact_filter} RETURN p.i AS i \
                     ORDER BY vector.similarity.cosine(p.v, $q) DESC, i LIMIT 10"
                ),
                &[("q", vector(&q))],
            )
            .into_iter()
            .map(|r| match r[0] {
                Value::Int(i) => i,
                ref other => panic!("unexpected {other:?}"),
            })
            .collect();
            let got = filtered(&db, filter, 10, &q);
            // Always k rows, every one passing: the filter is applied inside the search.
            assert_eq!(got.len(), 10, "{filter}");
            for i in &got {
                let passes = if n % 2 == 0 {
                    i % 10 == 3
                } else {
                    (10..13).contains(&((i * 7) % 30))
                };
                assert!(passes, "{i} fails {filter}");
            }
            found += got.iter().filter(|i| exact.contains(i)).count();
            asked += exact.len();
        }
        let recall = found as f64 / asked as f64;
        assert!(
            recall >= 0.95,
            "quantization {quantization}: filtered recall@10 {recall}"
        );
    }
}

#[test]
fn a_filtered_search_reads_the_filter_at_the_reader_s_snapshot() {
    let db = db();
    run(
        &db,
        "CREATE VECTOR INDEX pv FOR (p:P) ON p.v WITH [p.band] \
         OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean'}}",
    );
    run(
        &db,
        "UNWIND range(1, 50) AS i CREATE (:P {i: i, v: [toFloat(i), 0.0], band: i % 5})",
    );
    assert_eq!(filtered(&db, "p.band = 0", 2, &[0.0, 0.0]), [5, 10]);
    let mut old = db.begin(TxOptions::read()).expect("begin");
    // A node that leaves the band is no longer found, one that joins is, though neither
    // vector moved; a deleted one is gone.
    run(&db, "MATCH (p:P {i: 5}) SET p.band = 1");
    run(&db, "MATCH (p:P {i: 3}) SET p.band = 0");
    run(&db, "MATCH (p:P {i: 10}) DETACH DELETE p");
    assert_eq!(filtered(&db, "p.band = 0", 2, &[0.0, 0.0]), [3, 15]);
    // A reader that began before the changes still finds what its snapshot holds.
    let band_zero = "MATCH (p:P) SEARCH p IN (VECTOR INDEX pv FOR $q WHERE p.band = 0 LIMIT 2) \
                     RETURN p.i AS i";
    let origin = [("q", vector(&[0.0, 0.0]))];
    let rows = rows_in(&mut old, band_zero, &origin);
    assert_eq!(rows, vec![vec![Value::Int(5)], vec![Value::Int(10)]]);
    old.rollback().expect("end");
    // A transaction's own writes count, its new nodes among them.
    let mut tx = db.begin(TxOptions::default()).expect("begin");
    for change in [
        "CREATE (:P {i: 100, v: [1.0, 0.0], band: 0})",
        "MATCH (p:P {i: 3}) SET p.band = 4",
    ] {
        rows_in(&mut tx, change, &[]);
    }
    let rows = rows_in(&mut tx, band_zero, &origin);
    assert_eq!(rows, vec![vec![Value::Int(100)], vec![Value::Int(15)]]);
    tx.rollback().expect("rollback");
    // Ranges, a value that does not compare, and a property the index does not name.
    assert_eq!(
        filtered(&db, "p.band > 3 AND p.band < 4", 3, &[0.0, 0.0]).len(),
        0
    );
    let e = db
        .execute(
            "MATCH (p:P) SEARCH p IN (VECTOR INDEX pv FOR [0.0, 0.0] WHERE p.i = 1 LIMIT 2) RETURN p",
            Map::new(),
        )
        .expect_err("p.i is not among the index's WITH properties");
    assert_eq!(
        e.status_code(),
        Status::ProcedureCallFailed,
        "{}",
        e.message()
    );
    assert!(e.message().contains("`i`"), "{}", e.message());
    assert_eq!(
        filtered(&db, "p.band >= 'a'", 3, &[0.0, 0.0]),
        Vec::<i64>::new()
    );
    assert_eq!(filtered(&db, "p.band > 3", 2, &[0.0, 0.0]), [4, 9]);
}
