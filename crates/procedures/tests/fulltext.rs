//! Full-text indexes through Cypher: the DDL, `SHOW INDEXES`, the `db.index.fulltext.*`
//! procedures, their bad arguments, snapshot isolation, rollback and a restart.

use quiver_engine::{AccessMode, Database, Mode, TxOptions};
use quiver_value::{Map, Value};

mod support;

use support::{db, run as rows};

fn strings(rows: &[Vec<Value>]) -> Vec<String> {
    rows.iter()
        .map(|r| match &r[0] {
            Value::String(s) => s.to_string(),
            other => panic!("not a string: {other:?}"),
        })
        .collect()
}

fn fail(db: &Database, query: &str) -> (String, String) {
    let e = db
        .execute(query, Map::new())
        .err()
        .unwrap_or_else(|| panic!("{query} succeeded"));
    (e.status_code().to_string(), e.message())
}

fn setup(db: &Database) {
    rows(
        db,
        "CREATE (:Movie {title: 'The Matrix', plot: 'A hacker learns the truth about reality'}),
                (:Movie {title: 'Matrix Reloaded', plot: 'Neo fights agents'}),
                (:Book {title: 'Reality Hunger', plot: 'An essay'}),
                (:Person {title: 'The Matrix'}),
                (a:Movie {title: 'Heat'})-[:REVIEWED {summary: 'a tense heist thriller'}]->(b:Book {title: 'Heat, the novel'}),
                (b)-[:RATED {summary: 'thriller classic'}]->(a)",
    );
    rows(
        db,
        "CREATE FULLTEXT INDEX titles FOR (n:Movie|Book) ON EACH [n.title, n.plot]
         OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}}",
    );
    rows(
        db,
        "CREATE FULLTEXT INDEX reviews IF NOT EXISTS FOR ()-[r:REVIEWED|RATED]-() ON EACH [r.summary]",
    );
}

#[test]
fn nodes_are_found_by_lucene_queries_best_first() {
    let db = db();
    setup(&db);
    let q = |text: &str| {
        strings(&rows(
            &db,
            &format!(
                "CALL db.index.fulltext.queryNodes('titles', '{text}') YIELD node, score \
                 RETURN node.title, score"
            ),
        ))
    };
    assert_eq!(q("matrix"), vec!["The Matrix", "Matrix Reloaded"]);
    assert_eq!(q("\"matrix reloaded\""), vec!["Matrix Reloaded"]);
    assert_eq!(q("realities"), vec!["Reality Hunger", "The Matrix"]);
    assert_eq!(q("title:reality"), vec!["Reality Hunger"]);
    assert_eq!(q("matrix AND NOT reloaded"), vec!["The Matrix"]);
    assert_eq!(q("+matrix -neo"), vec!["The Matrix"]);
    assert_eq!(q("matirx~"), vec!["The Matrix", "Matrix Reloaded"]);
    assert_eq!(q("reloa*"), vec!["Matrix Reloaded"]);
    let scores = rows(
        &db,
        "CALL db.index.fulltext.queryNodes('titles', 'matrix reality') YIELD score RETURN score",
    );
    let scores: Vec<f64> = scores
        .iter()
        .map(|r| match r[0] {
            Value::Float(f) => f,
            _ => panic!("score"),
        })
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    let limited = rows(
        &db,
        "CALL db.index.fulltext.queryNodes('titles', 'matrix', {skip: 1, limit: 1}) YIELD node \
         RETURN node.title",
    );
    assert_eq!(strings(&limited), vec!["Matrix Reloaded"]);
}

#[test]
fn relationships_are_found_and_analyzers_listed() {
    let db = db();
    setup(&db);
    let found = rows(
        &db,
        "CALL db.index.fulltext.queryRelationships('reviews', 'thriller') YIELD relationship, score \
         RETURN type(relationship) ORDER BY type(relationship)",
    );
    assert_eq!(strings(&found), vec!["RATED", "REVIEWED"]);
    let analyzers = rows(
        &db,
        "CALL db.index.fulltext.listAvailableAnalyzers() YIELD analyzer, description, stopwords \
         RETURN analyzer, size(stopwords)",
    );
    let names = strings(&analyzers);
    for a in [
        "standard-no-stop-words",
        "standard",
        "english",
        "simple",
        "whitespace",
        "keyword",
        "french",
        "german",
    ] {
        assert!(names.contains(&a.to_string()), "{a} missing from {names:?}");
    }
    let procedures = strings(&rows(
        &db,
        "SHOW PROCEDURES YIELD name WHERE name STARTS WITH 'db.index.fulltext' RETURN name",
    ));
    assert_eq!(procedures.len(), 3, "{procedures:?}");
}

#[test]
fn show_indexes_lists_full_text_indexes_with_their_options() {
    let db = db();
    setup(&db);
    rows(&db, "CREATE INDEX FOR (n:Person) ON (n.title)");
    let shown = rows(
        &db,
        "SHOW FULLTEXT INDEXES YIELD name, type, entityType, labelsOrTypes, properties, options \
         RETURN name, type, entityType, labelsOrTypes, properties, \
                options.indexConfig.`fulltext.analyzer` ORDER BY name",
    );
    assert_eq!(
        shown,
        vec![
            vec![
                Value::from("reviews"),
                Value::from("FULLTEXT"),
                Value::from("RELATIONSHIP"),
                Value::from(vec![Value::from("REVIEWED"), Value::from("RATED")]),
                Value::from(vec![Value::from("summary")]),
                Value::from("standard-no-stop-words"),
            ],
            vec![
                Value::from("titles"),
                Value::from("FULLTEXT"),
                Value::from("NODE"),
                Value::from(vec![Value::from("Movie"), Value::from("Book")]),
                Value::from(vec![Value::from("title"), Value::from("plot")]),
                Value::from("english"),
            ],
        ]
    );
    assert_eq!(rows(&db, "SHOW INDEXES").len(), 3);
    rows(&db, "DROP INDEX reviews");
    assert_eq!(rows(&db, "SHOW FULLTEXT INDEXES").len(), 1);
    let (code, _) = fail(
        &db,
        "CALL db.index.fulltext.queryRelationships('reviews', 'x') YIELD relationship RETURN 1",
    );
    assert_eq!(code, "Neo.ClientError.Procedure.ProcedureCallFailed");
}

#[test]
fn bad_arguments_fail_naming_the_argument() {
    let db = db();
    setup(&db);
    for (query, names) in [
        (
            "CALL db.index.fulltext.queryNodes('nope', 'x') YIELD node RETURN node",
            "indexName",
        ),
        (
            "CALL db.index.fulltext.queryNodes('reviews', 'x') YIELD node RETURN node",
            "indexName",
        ),
        (
            "CALL db.index.fulltext.queryRelationships('titles', 'x') YIELD relationship RETURN 1",
            "indexName",
        ),
        (
            "CALL db.index.fulltext.queryNodes('titles', 'title:(') YIELD node RETURN node",
            "queryString",
        ),
        (
            "CALL db.index.fulltext.queryNodes('titles', 'x', {limit: -1}) YIELD node RETURN node",
            "limit",
        ),
        (
            "CALL db.index.fulltext.queryNodes('titles', 'x', {colour: 1}) YIELD node RETURN node",
            "colour",
        ),
    ] {
        let (code, message) = fail(&db, query);
        assert_eq!(
            code, "Neo.ClientError.Procedure.ProcedureCallFailed",
            "{query}"
        );
        assert!(message.contains(names), "{query}: {message}");
    }
    let (_, message) = fail(
        &db,
        "CREATE FULLTEXT INDEX bad FOR (n:A) ON EACH [n.x] \
         OPTIONS {indexConfig: {`fulltext.analyzer`: 'klingon'}}",
    );
    assert!(message.contains("fulltext.analyzer"), "{message}");
    // Another index holds the name: Neo4j's IndexWithNameAlreadyExists (the same index again
    // is an equivalent rule).
    let (code, _) = fail(&db, "CREATE FULLTEXT INDEX titles FOR (n:A) ON EACH [n.x]");
    assert_eq!(code, "Neo.ClientError.Schema.IndexWithNameAlreadyExists");
    rows(
        &db,
        "CREATE FULLTEXT INDEX titles IF NOT EXISTS FOR (n:A) ON EACH [n.x]",
    );
}

#[test]
fn results_honour_the_snapshot_and_rollbacks_never_appear() {
    let db = db();
    setup(&db);
    let query =
        "CALL db.index.fulltext.queryNodes('titles', 'matrix') YIELD node RETURN node.title";
    let mut reader = db
        .begin(TxOptions {
            mode: AccessMode::Read,
            ..TxOptions::default()
        })
        .unwrap();
    let pull = |tx: &mut quiver_engine::Transaction| {
        let q = tx.run(query, Map::new()).unwrap();
        let mut out = Vec::new();
        tx.pull(q, -1, &mut out).unwrap();
        let mut titles = strings(&out);
        titles.sort();
        titles
    };
    assert_eq!(pull(&mut reader), vec!["Matrix Reloaded", "The Matrix"]);

    rows(&db, "CREATE (:Movie {title: 'Matrix Resurrections'})");
    rows(
        &db,
        "MATCH (m:Movie {title: 'The Matrix'}) SET m.title = 'Speed', m.plot = 'A bus'",
    );
    rows(
        &db,
        "MATCH (m:Movie {title: 'Matrix Reloaded'}) DETACH DELETE m",
    );

    // The reader's snapshot predates all three: the new node is not there, and the nodes
    // changed or deleted since are not returned with text they no longer have.
    let seen = pull(&mut reader);
    assert!(
        !seen.contains(&"Matrix Resurrections".to_string()),
        "{seen:?}"
    );
    reader.commit().unwrap();

    let now: Vec<String> = strings(&rows(&db, query));
    assert_eq!(now, vec!["Matrix Resurrections"]);

    let mut writer = db.begin(TxOptions::default()).unwrap();
    let q = writer
        .run("CREATE (:Movie {title: 'Matrix Revisited'})", Map::new())
        .unwrap();
    writer.pull(q, -1, &mut Vec::new()).unwrap();
    writer.rollback().unwrap();
    assert_eq!(strings(&rows(&db, query)), vec!["Matrix Resurrections"]);

    let many = rows(
        &db,
        "UNWIND range(1, 300) AS i CREATE (:Book {title: 'matrix ' + i})",
    );
    assert!(many.is_empty());
    rows(
        &db,
        "MATCH (b:Book) WHERE b.title STARTS WITH 'matrix ' AND b.title ENDS WITH '7' SET b.title = 'gone'",
    );
    let limited = rows(
        &db,
        "CALL db.index.fulltext.queryNodes('titles', 'matrix', {limit: 250}) YIELD node RETURN node",
    );
    assert_eq!(limited.len(), 250);
}

#[test]
fn the_index_is_rebuilt_after_a_restart() {
    let dir = tempfile::tempdir().expect("dir");
    let query =
        "CALL db.index.fulltext.queryNodes('titles', 'reality') YIELD node RETURN node.title";
    {
        let db = Database::open(dir.path(), Mode::Group).expect("open");
        quiver_procedures::register(&db);
        setup(&db);
        rows(&db, "CREATE (:Movie {title: 'Reality Bites'})");
        assert_eq!(strings(&rows(&db, query)).len(), 3);
        drop(db);
    }
    {
        // Replayed from the log.
        let db = Database::open(dir.path(), Mode::Group).expect("reopen");
        quiver_procedures::register(&db);
        assert_eq!(strings(&rows(&db, query)).len(), 3);
        rows(
            &db,
            "MATCH (m:Movie {title: 'Reality Bites'}) SET m.title = 'Bites'",
        );
        db.close().expect("close");
    }
    // Loaded from the snapshot the clean close wrote.
    let db = Database::open(dir.path(), Mode::Group).expect("reopen");
    quiver_procedures::register(&db);
    assert_eq!(strings(&rows(&db, query)).len(), 2);
    assert_eq!(rows(&db, "SHOW FULLTEXT INDEXES").len(), 2);
    db.close().expect("close");
}
