//! Relationship and composite indexes, and uniqueness and key constraints over them, through
//! Cypher: the seeks EXPLAIN shows, Neo4j's violation messages, statement-time checks in an
//! explicit transaction, and the schema surviving a restart from the log and from a snapshot.

use std::sync::Arc;

use quiver_engine::{Database, EngineConfig, Mode, TxOptions};
use quiver_value::{Map, Value};

mod common;

use common::{plan, rows, violation};

fn db() -> Arc<Database> {
    Database::open_in_memory(EngineConfig::default())
}

fn rated(db: &Database) {
    rows(
        db,
        "CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)",
    );
    rows(
        db,
        "UNWIND range(1, 200) AS i
         CREATE (:User {id: i})-[:RATED {score: i % 10}]->(:Movie {id: i})",
    );
}

#[test]
fn explain_names_the_relationship_index_seek() {
    let db = db();
    rated(&db);
    let ops = plan(&db, "MATCH (u)-[r:RATED {score: 3}]->(m) RETURN u.id");
    assert!(
        ops.iter()
            .any(|o| o.starts_with("DirectedRelationshipIndexSeek ()-[:RATED(score)]->() =")),
        "{ops:?}"
    );
    assert!(
        !ops.iter().any(|o| o.starts_with("AllNodesScan")),
        "{ops:?}"
    );
    let ops = plan(&db, "MATCH (u)-[r:RATED]-(m) WHERE r.score > 7 RETURN u.id");
    assert!(
        ops.iter()
            .any(|o| o.starts_with("UndirectedRelationshipIndexSeek ()-[:RATED(score)]-() range")),
        "{ops:?}"
    );
    let ops = plan(
        &db,
        "MATCH ()-[r:RATED]->() WHERE r.score IN [1, 2] RETURN r",
    );
    assert!(ops.iter().any(|o| o.ends_with("IN")), "{ops:?}");
    // Without a predicate on an indexed property there is no seek.
    let ops = plan(&db, "MATCH ()-[r:RATED]->() WHERE r.other = 1 RETURN r");
    assert!(!ops.iter().any(|o| o.contains("IndexSeek")), "{ops:?}");
    // The seek answers what a scan answers.
    let seek = rows(
        &db,
        "MATCH (u)-[r:RATED {score: 3}]->(m) RETURN u.id AS u ORDER BY u",
    );
    rows(&db, "DROP INDEX rated_score");
    let scan = rows(
        &db,
        "MATCH (u)-[r:RATED {score: 3}]->(m) RETURN u.id AS u ORDER BY u",
    );
    assert_eq!(seek.len(), 20);
    assert_eq!(seek, scan);
}

#[test]
fn explain_names_the_composite_node_index_seek() {
    let db = db();
    rows(&db, "CREATE INDEX FOR (p:Person) ON (p.country, p.age)");
    rows(
        &db,
        "UNWIND range(1, 300) AS i
         CREATE (:Person {id: i, country: ['SE', 'NO', 'DK'][i % 3], age: i % 50})",
    );
    let query =
        "MATCH (p:Person) WHERE p.country = 'SE' AND p.age = 30 RETURN p.id AS id ORDER BY id";
    let ops = plan(&db, query);
    assert!(
        ops.iter()
            .any(|o| o.starts_with("NodeIndexSeek :Person(country, age) =")),
        "{ops:?}"
    );
    let ops = plan(
        &db,
        "MATCH (p:Person {country: 'NO'}) WHERE p.age >= 40 RETURN p",
    );
    assert!(
        ops.iter()
            .any(|o| o.starts_with("NodeIndexSeek :Person(country, age) range")),
        "{ops:?}"
    );
    let seek = rows(&db, query);
    let scan = rows(
        &db,
        "MATCH (p:Person) WHERE p.country + '' = 'SE' AND p.age + 0 = 30 RETURN p.id AS id ORDER BY id",
    );
    assert!(!seek.is_empty());
    assert_eq!(seek, scan);
}

#[test]
fn violations_speak_neo4j() {
    let db = db();
    rows(
        &db,
        "CREATE CONSTRAINT FOR (p:Person) REQUIRE (p.first, p.last) IS UNIQUE",
    );
    rows(&db, "CREATE (:Person {first: 'Ann', last: 'Lee'})");
    let message = violation(&db, "CREATE (:Person {first: 'Ann', last: 'Lee'})");
    assert!(
        message.ends_with(
            "already exists with label `Person` and properties `first` = 'Ann', `last` = 'Lee'"
        ),
        "{message}"
    );
    rows(
        &db,
        "CREATE CONSTRAINT FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE",
    );
    rows(&db, "CREATE ()-[:ORDERED {id: 1}]->()");
    let message = violation(&db, "CREATE ()-[:ORDERED {id: 1}]->()");
    assert!(message.starts_with("Relationship("), "{message}");
    assert!(
        message.ends_with("already exists with type `ORDERED` and property `id` = 1"),
        "{message}"
    );
    rows(
        &db,
        "CREATE CONSTRAINT FOR (c:Company) REQUIRE c.vat IS NODE KEY",
    );
    let message = violation(&db, "CREATE (:Company {name: 'x'})");
    assert!(
        message.ends_with("with label `Company` must have the property `vat`"),
        "{message}"
    );
    rows(&db, "CREATE (:Tag {t: 1}), (:Tag {t: 1})");
    let e = db
        .execute(
            "CREATE CONSTRAINT tag_t FOR (t:Tag) REQUIRE t.t IS UNIQUE",
            Map::new(),
        )
        .unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.ClientError.Schema.ConstraintCreationFailed"
    );
    assert!(e.message().contains("tag_t"), "{e}");
}

/// In an explicit transaction the statement that breaks a relationship or key constraint
/// fails, not the commit, and the transaction's earlier work still commits.
#[test]
fn an_explicit_transaction_fails_the_statement() {
    let db = db();
    rows(
        &db,
        "CREATE CONSTRAINT FOR ()-[r:ORDERED]-() REQUIRE r.id IS RELATIONSHIP KEY",
    );
    let mut tx = db.begin(TxOptions::default()).expect("begin");
    let q = tx
        .run("CREATE ()-[:ORDERED {id: 1}]->()", Map::new())
        .expect("run");
    tx.pull(q, -1, &mut Vec::new()).expect("pull");
    let q = tx.run("CREATE ()-[:ORDERED {id: 1}]->()", Map::new());
    let failed = match q {
        Err(e) => e,
        Ok(q) => tx.pull(q, -1, &mut Vec::new()).expect_err("a duplicate"),
    };
    assert_eq!(
        failed.status_code(),
        "Neo.ClientError.Schema.ConstraintValidationFailed"
    );
}

#[test]
fn the_schema_survives_a_restart_from_the_log_and_from_a_snapshot() {
    let dir = tempfile::tempdir().expect("dir");
    let check = |db: &Database| {
        let names = rows(db, "SHOW INDEXES YIELD name, type, entityType, properties");
        assert!(
            names.contains(&vec![
                Value::from("rated_score"),
                Value::from("RANGE"),
                Value::from("RELATIONSHIP"),
                Value::from(vec![Value::from("score")]),
            ]),
            "{names:?}"
        );
        let constraints = rows(db, "SHOW CONSTRAINTS YIELD name, type, properties");
        assert!(
            constraints.contains(&vec![
                Value::from("person_key"),
                Value::from("NODE_KEY"),
                Value::from(vec![Value::from("first"), Value::from("last")]),
            ]),
            "{constraints:?}"
        );
        assert!(
            constraints.contains(&vec![
                Value::from("order_id"),
                Value::from("RELATIONSHIP_UNIQUENESS"),
                Value::from(vec![Value::from("id")]),
            ]),
            "{constraints:?}"
        );
        assert_eq!(
            rows(db, "MATCH ()-[r:RATED {score: 4}]->() RETURN count(r)"),
            vec![vec![Value::Int(1)]]
        );
        assert_eq!(
            rows(
                db,
                "MATCH (p:Person {first: 'a', last: 'b'}) RETURN count(p)"
            ),
            vec![vec![Value::Int(1)]]
        );
        assert!(
            db.execute("CREATE ()-[:ORDERED {id: 1}]->()", Map::new())
                .is_err()
        );
        assert!(
            db.execute("CREATE (:Person {first: 'x'})", Map::new())
                .is_err()
        );
    };
    {
        let db = Database::open(dir.path(), Mode::Sync).expect("open");
        rows(
            &db,
            "CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)",
        );
        rows(
            &db,
            "CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE (p.first, p.last) IS NODE KEY",
        );
        rows(
            &db,
            "CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE",
        );
        rows(
            &db,
            "CREATE ()-[:RATED {score: 4}]->(), ()-[:RATED {score: 5}]->(),
                    ()-[:ORDERED {id: 1}]->(), (:Person {first: 'a', last: 'b'})",
        );
        check(&db);
    }
    let db = Database::open(dir.path(), Mode::Sync).expect("reopen from the log");
    check(&db);
    db.durability()
        .expect("durable")
        .snapshot()
        .expect("snapshot");
    rows(&db, "MATCH ()-[r:RATED {score: 5}]->() SET r.score = 6");
    drop(db);
    let db = Database::open(dir.path(), Mode::Sync).expect("reopen from the snapshot");
    check(&db);
    assert_eq!(
        rows(&db, "MATCH ()-[r:RATED {score: 6}]->() RETURN count(r)"),
        vec![vec![Value::Int(1)]]
    );
}

fn params(pairs: &[(&str, Value)]) -> Map {
    pairs
        .iter()
        .map(|(k, v)| (Arc::from(*k), v.clone()))
        .collect()
}

fn run_with(db: &Database, query: &str, pairs: &[(&str, Value)]) -> Vec<Vec<Value>> {
    db.execute(query, params(pairs))
        .unwrap_or_else(|e| panic!("{query}: {e}"))
        .rows
}

fn fail_with(db: &Database, query: &str, pairs: &[(&str, Value)]) -> (String, String) {
    let e = db
        .execute(query, params(pairs))
        .err()
        .unwrap_or_else(|| panic!("{query} succeeded"));
    (e.status_code().to_string(), e.message())
}

/// LangChain's `Neo4jVector` (through neo4j-graphrag's `create_vector_index`) names its index
/// and sets its options by parameters; the statement's plan is cached without their values,
/// so the same text must build a different index for other values.
#[test]
fn a_vector_index_named_and_configured_by_parameters_serves_any_values() {
    let db = db();
    let create = "CREATE VECTOR INDEX $name IF NOT EXISTS FOR (n:Chunk) ON n.embedding \
                  OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), \
                  `vector.similarity_function`: $similarity_fn}}";
    let show = "SHOW VECTOR INDEXES YIELD name, labelsOrTypes, options \
                RETURN name, labelsOrTypes, options.indexConfig.`vector.dimensions`, \
                options.indexConfig.`vector.similarity_function` ORDER BY name";
    // A failing run leaves the schema as it was, so its plan stays cached; the next run of
    // the text is served by that plan and builds the index from its own values.
    let (code, _) = fail_with(
        &db,
        create,
        &[
            ("name", Value::from("chunks")),
            ("dimensions", Value::Int(0)),
            ("similarity_fn", Value::from("cosine")),
        ],
    );
    assert_eq!(code, "Neo.ClientError.Statement.ArgumentError");
    let (hits_before, _) = db.plan_cache_stats();
    run_with(
        &db,
        create,
        &[
            ("name", Value::from("wide")),
            ("dimensions", Value::from("5")),
            ("similarity_fn", Value::from("euclidean")),
        ],
    );
    let (hits_after, _) = db.plan_cache_stats();
    assert_eq!(
        hits_after,
        hits_before + 1,
        "the cached plan served new values"
    );
    // Again, under IF NOT EXISTS: nothing changes.
    run_with(
        &db,
        create,
        &[
            ("name", Value::from("wide")),
            ("dimensions", Value::Int(5)),
            ("similarity_fn", Value::from("euclidean")),
        ],
    );
    assert_eq!(
        rows(&db, show),
        vec![vec![
            Value::from("wide"),
            Value::from(vec![Value::from("Chunk")]),
            Value::Int(5),
            Value::from("EUCLIDEAN"),
        ]]
    );
}

#[test]
fn every_schema_command_takes_its_name_from_a_parameter() {
    let db = db();
    for (query, name) in [
        ("CREATE INDEX $n FOR (p:Person) ON (p.name)", "range_ix"),
        ("CREATE TEXT INDEX $n FOR (p:Person) ON (p.bio)", "text_ix"),
        (
            "CREATE POINT INDEX $n FOR (p:Person) ON (p.home)",
            "point_ix",
        ),
        (
            "CREATE FULLTEXT INDEX $n IF NOT EXISTS FOR (p:Person) ON EACH [p.bio] \
             OPTIONS {indexConfig: {`fulltext.analyzer`: $analyzer}}",
            "fulltext_ix",
        ),
        (
            "CREATE CONSTRAINT $n FOR (p:Person) REQUIRE p.id IS UNIQUE",
            "unique_c",
        ),
        (
            "CREATE CONSTRAINT $n FOR (p:Person) REQUIRE (p.a, p.b) IS NODE KEY",
            "key_c",
        ),
        (
            "CREATE CONSTRAINT $n FOR (p:Person) REQUIRE p.name IS NOT NULL",
            "exists_c",
        ),
        (
            "CREATE CONSTRAINT $n FOR (p:Person) REQUIRE p.born IS :: INTEGER",
            "typed_c",
        ),
    ] {
        run_with(
            &db,
            query,
            &[
                ("n", Value::from(name)),
                ("analyzer", Value::from("english")),
            ],
        );
    }
    let indexes = rows(
        &db,
        "SHOW INDEXES YIELD name, type, owningConstraint WHERE owningConstraint IS NULL \
         RETURN name, type ORDER BY name",
    );
    assert_eq!(
        indexes,
        [
            ("fulltext_ix", "FULLTEXT"),
            ("point_ix", "POINT"),
            ("range_ix", "RANGE"),
            ("text_ix", "TEXT"),
        ]
        .map(|(n, t)| vec![Value::from(n), Value::from(t)])
    );
    let analyzer = rows(
        &db,
        "SHOW FULLTEXT INDEXES YIELD options RETURN options.indexConfig.`fulltext.analyzer`",
    );
    assert_eq!(analyzer, vec![vec![Value::from("english")]]);
    let constraints = rows(&db, "SHOW CONSTRAINTS YIELD name RETURN name ORDER BY name");
    assert_eq!(
        constraints,
        ["exists_c", "key_c", "typed_c", "unique_c"].map(|n| vec![Value::from(n)])
    );
    for name in ["exists_c", "key_c", "typed_c", "unique_c"] {
        run_with(
            &db,
            "DROP CONSTRAINT $name IF EXISTS",
            &[("name", Value::from(name))],
        );
    }
    for name in ["fulltext_ix", "point_ix", "range_ix", "text_ix", "absent"] {
        run_with(
            &db,
            "DROP INDEX $name IF EXISTS",
            &[("name", Value::from(name))],
        );
    }
    assert!(rows(&db, "SHOW INDEXES").is_empty());
    assert!(rows(&db, "SHOW CONSTRAINTS").is_empty());
}

#[test]
fn a_parameterised_name_or_option_fails_as_neo4j_does() {
    let db = db();
    let create = "CREATE VECTOR INDEX $name FOR (n:Chunk) ON n.embedding \
                  OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions)}}";
    // A parameter left out, of the name or of the options.
    let (code, message) = fail_with(&db, create, &[("dimensions", Value::Int(3))]);
    assert_eq!(code, "Neo.ClientError.Statement.ParameterMissing");
    assert!(message.contains("$name"), "{message}");
    let (code, message) = fail_with(&db, create, &[("name", Value::from("v"))]);
    assert_eq!(code, "Neo.ClientError.Statement.ParameterMissing");
    assert!(message.contains("$dimensions"), "{message}");
    // A name that is not a String names the parameter.
    for bad in [
        Value::Int(7),
        Value::Null,
        Value::from(vec![Value::from("v")]),
    ] {
        let (code, message) = fail_with(
            &db,
            create,
            &[("name", bad.clone()), ("dimensions", Value::Int(3))],
        );
        assert_eq!(code, "Neo.ClientError.Statement.TypeError", "{bad:?}");
        assert!(message.contains("$name"), "{message}");
    }
    let (code, message) = fail_with(&db, "DROP INDEX $ix", &[("ix", Value::Int(1))]);
    assert_eq!(code, "Neo.ClientError.Statement.TypeError");
    assert!(message.contains("$ix"), "{message}");
    // Bad option values: the errors of the written forms.
    let written = fail_with(
        &db,
        "CREATE VECTOR INDEX v FOR (n:Chunk) ON n.embedding \
         OPTIONS {indexConfig: {`vector.dimensions`: 0}}",
        &[],
    );
    let given = fail_with(
        &db,
        create,
        &[("name", Value::from("v")), ("dimensions", Value::Int(0))],
    );
    assert_eq!(written.0, "Neo.ClientError.Statement.ArgumentError");
    assert_eq!(given, written);
    let written = fail_with(
        &db,
        "CREATE FULLTEXT INDEX f FOR (n:Chunk) ON EACH [n.text] \
         OPTIONS {indexConfig: {`fulltext.analyzer`: 'klingon'}}",
        &[],
    );
    let given = fail_with(
        &db,
        "CREATE FULLTEXT INDEX $name FOR (n:Chunk) ON EACH [n.text] \
         OPTIONS {indexConfig: {`fulltext.analyzer`: $analyzer}}",
        &[
            ("name", Value::from("f")),
            ("analyzer", Value::from("klingon")),
        ],
    );
    assert_eq!(written.0, "Neo.ClientError.Statement.ArgumentError");
    assert_eq!(given, written);
    assert!(given.1.contains("fulltext.analyzer"), "{}", given.1);
    // A name another rule holds: the same errors as a written name.
    rows(&db, "CREATE INDEX taken FOR (p:Person) ON (p.name)");
    let (code, _) = fail_with(
        &db,
        "CREATE TEXT INDEX $name FOR (p:Person) ON (p.bio)",
        &[("name", Value::from("taken"))],
    );
    assert_eq!(code, "Neo.ClientError.Schema.IndexWithNameAlreadyExists");
    // Nothing was made by the failures.
    assert_eq!(
        rows(&db, "SHOW INDEXES YIELD name RETURN name"),
        vec![vec![Value::from("taken")]]
    );
}

/// What a schema command does beside the rules made before it.
enum Then {
    /// It makes its rule.
    Made,
    /// `IF NOT EXISTS` takes an existing rule for it: nothing changes.
    Nothing,
    /// It fails with Neo4j's code and message.
    Fails(&'static str, &'static str),
}

const EQUIVALENT: &str = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists";
const INDEXED: &str = "Neo.ClientError.Schema.IndexAlreadyExists";
const CONSTRAINED: &str = "Neo.ClientError.Schema.ConstraintAlreadyExists";
const INDEX_NAME: &str = "Neo.ClientError.Schema.IndexWithNameAlreadyExists";
const CONSTRAINT_NAME: &str = "Neo.ClientError.Schema.ConstraintWithNameAlreadyExists";

/// Every index and constraint by name and type, sorted.
fn schema_rules(db: &Database) -> Vec<Vec<Value>> {
    let mut all = rows(db, "SHOW INDEXES YIELD name, type RETURN name, type");
    all.extend(rows(
        db,
        "SHOW CONSTRAINTS YIELD name, type RETURN name, type",
    ));
    all.sort_by_key(|r| format!("{r:?}"));
    all
}

/// Runs each case on a database of its own: `given` first, then `when`, which must do what
/// `then` says; a refusal leaves the schema as it was.
fn check_cases(cases: &[(&[&str], &str, Then)]) {
    for (given, when, then) in cases {
        let db = db();
        for statement in *given {
            rows(&db, statement);
        }
        let before = schema_rules(&db);
        match (db.execute(when, Map::new()), then) {
            (Ok(r), Then::Made) => {
                let stats = r.summary.stats;
                assert_eq!(stats.indexes_added + stats.constraints_added, 1, "{when}");
                // A uniqueness or key constraint shows its index too.
                assert!(schema_rules(&db).len() > before.len(), "{when}");
            }
            (Ok(r), Then::Nothing) => {
                let stats = r.summary.stats;
                assert_eq!(stats.indexes_added + stats.constraints_added, 0, "{when}");
                assert_eq!(schema_rules(&db), before, "{when}");
            }
            (Err(e), Then::Fails(code, message)) => {
                assert_eq!(
                    (e.status_code().to_string().as_str(), e.message().as_str()),
                    (*code, *message),
                    "{given:?} then {when}"
                );
                assert_eq!(schema_rules(&db), before, "{when}");
            }
            (Ok(_), _) => panic!("{given:?} then {when}: succeeded"),
            (Err(e), _) => panic!("{given:?} then {when}: {e}"),
        }
    }
}

/// Neo4j 5's answers for range, text and point indexes beside indexes and constraints: the
/// same rule again is an equivalent rule, another name over the same schema and type finds
/// the index there, the same name over another schema finds the name taken, and an index a
/// constraint owns blocks an index of its type. `IF NOT EXISTS` does nothing where an index of
/// the type covers the schema or an index (a constraint's too) holds the name.
#[test]
#[expect(clippy::too_many_lines, reason = "one row per case")]
fn property_indexes_meet_existing_rules_as_in_neo4j() {
    const RANGE: &str = "CREATE INDEX i FOR (n:L) ON (n.p)";
    const UNIQUE: &str = "CREATE CONSTRAINT c FOR (n:L) REQUIRE n.p IS UNIQUE";
    const EXISTS: &str = "CREATE CONSTRAINT e FOR (n:L) REQUIRE n.p IS NOT NULL";
    check_cases(&[
        (
            &[RANGE],
            RANGE,
            Then::Fails(
                EQUIVALENT,
                "An equivalent index already exists, 'Index( name='i', type='RANGE', \
                 schema=(:L {p}), indexProvider='range-1.0' )'.",
            ),
        ),
        (
            &[RANGE],
            "CREATE INDEX j FOR (n:L) ON (n.p)",
            Then::Fails(INDEXED, "There already exists an index (:L {p})."),
        ),
        (
            &[RANGE],
            "CREATE INDEX i FOR (n:L) ON (n.q)",
            Then::Fails(INDEX_NAME, "There already exists an index called 'i'."),
        ),
        (
            &[RANGE],
            "CREATE INDEX i IF NOT EXISTS FOR (n:L) ON (n.p)",
            Then::Nothing,
        ),
        (
            &[RANGE],
            "CREATE INDEX j IF NOT EXISTS FOR (n:L) ON (n.p)",
            Then::Nothing,
        ),
        (
            &[RANGE],
            "CREATE INDEX i IF NOT EXISTS FOR (n:L) ON (n.q)",
            Then::Nothing,
        ),
        // Key order is part of the schema.
        (
            &["CREATE INDEX i FOR (n:L) ON (n.p, n.q)"],
            "CREATE INDEX j FOR (n:L) ON (n.q, n.p)",
            Then::Made,
        ),
        (
            &["CREATE INDEX i FOR ()-[r:R]-() ON (r.p)"],
            "CREATE INDEX j FOR ()-[r:R]-() ON (r.p)",
            Then::Fails(INDEXED, "There already exists an index ()-[:R {p}]-()."),
        ),
        (
            &[RANGE],
            "CREATE INDEX j FOR ()-[r:L]-() ON (r.p)",
            Then::Made,
        ),
        // A uniqueness constraint owns a range index over its schema.
        (
            &[UNIQUE],
            "CREATE INDEX j FOR (n:L) ON (n.p)",
            Then::Fails(
                CONSTRAINED,
                "There is a uniqueness constraint on (:L {p}), so an index is already \
                 created that matches this.",
            ),
        ),
        (
            &[UNIQUE],
            "CREATE INDEX j IF NOT EXISTS FOR (n:L) ON (n.p)",
            Then::Nothing,
        ),
        (
            &[UNIQUE],
            "CREATE INDEX c FOR (n:L) ON (n.p)",
            Then::Fails(
                CONSTRAINT_NAME,
                "There already exists a constraint called 'c'.",
            ),
        ),
        // Its index bears its name, so IF NOT EXISTS finds an index called so...
        (
            &[UNIQUE],
            "CREATE INDEX c IF NOT EXISTS FOR (n:L) ON (n.q)",
            Then::Nothing,
        ),
        // ...but an existence constraint owns no index.
        (
            &[EXISTS],
            "CREATE INDEX e IF NOT EXISTS FOR (n:L) ON (n.p)",
            Then::Fails(
                CONSTRAINT_NAME,
                "There already exists a constraint called 'e'.",
            ),
        ),
        (&[EXISTS], "CREATE INDEX j FOR (n:L) ON (n.p)", Then::Made),
        // Text and point indexes are types of their own.
        (
            &[RANGE, "CREATE CONSTRAINT c FOR (n:L) REQUIRE n.q IS UNIQUE"],
            "CREATE TEXT INDEX t FOR (n:L) ON (n.p)",
            Then::Made,
        ),
        (
            &[UNIQUE],
            "CREATE TEXT INDEX t FOR (n:L) ON (n.p)",
            Then::Made,
        ),
        (
            &["CREATE TEXT INDEX t FOR (n:L) ON (n.p)"],
            "CREATE TEXT INDEX t FOR (n:L) ON (n.p)",
            Then::Fails(
                EQUIVALENT,
                "An equivalent index already exists, 'Index( name='t', type='TEXT', \
                 schema=(:L {p}), indexProvider='text-2.0' )'.",
            ),
        ),
        (
            &["CREATE TEXT INDEX t FOR (n:L) ON (n.p)"],
            "CREATE TEXT INDEX u FOR (n:L) ON (n.p)",
            Then::Fails(INDEXED, "There already exists an index (:L {p})."),
        ),
        (
            &["CREATE TEXT INDEX t FOR (n:L) ON (n.p)"],
            "CREATE TEXT INDEX u IF NOT EXISTS FOR (n:L) ON (n.p)",
            Then::Nothing,
        ),
        (
            &["CREATE POINT INDEX pt FOR (n:L) ON (n.p)"],
            "CREATE POINT INDEX pt FOR (n:L) ON (n.p)",
            Then::Fails(
                EQUIVALENT,
                "An equivalent index already exists, 'Index( name='pt', type='POINT', \
                 schema=(:L {p}), indexProvider='point-1.0' )'.",
            ),
        ),
        (
            &["CREATE POINT INDEX pt FOR (n:L) ON (n.p)"],
            "CREATE POINT INDEX other FOR (n:L) ON (n.p)",
            Then::Fails(INDEXED, "There already exists an index (:L {p})."),
        ),
        (
            &["CREATE POINT INDEX pt FOR (n:L) ON (n.p)"],
            "CREATE INDEX pt IF NOT EXISTS FOR (n:M) ON (n.x)",
            Then::Nothing,
        ),
    ]);
}

/// neomodel's `install_labels` meets a full-text or vector index made under another name
/// over its schema (and with other options) and expects Neo4j's "There already exists an
/// index" with `IndexAlreadyExists`: options never make two indexes over one schema differ.
#[test]
#[expect(clippy::too_many_lines, reason = "one row per case")]
fn fulltext_and_vector_indexes_meet_existing_rules_as_in_neo4j() {
    const FULLTEXT: &str = "CREATE FULLTEXT INDEX f FOR (n:L) ON EACH [n.p]";
    const VECTOR: &str = "CREATE VECTOR INDEX v FOR (n:L) ON n.e \
        OPTIONS {indexConfig: {`vector.dimensions`: 1536, `vector.similarity_function`: 'cosine'}}";
    check_cases(&[
        (
            &[FULLTEXT],
            FULLTEXT,
            Then::Fails(
                EQUIVALENT,
                "An equivalent index already exists, 'Index( name='f', type='FULLTEXT', \
                 schema=(:L {p}), indexProvider='fulltext-1.0' )'.",
            ),
        ),
        (
            &[FULLTEXT],
            "CREATE FULLTEXT INDEX fulltext_index_L_p FOR (n:L) ON EACH [n.p] \
             OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words', \
             `fulltext.eventually_consistent`: false}}",
            Then::Fails(INDEXED, "There already exists an index (:L {p})."),
        ),
        (
            &[FULLTEXT],
            "CREATE FULLTEXT INDEX f FOR (n:L) ON EACH [n.p] \
             OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}",
            Then::Fails(
                EQUIVALENT,
                "An equivalent index already exists, 'Index( name='f', type='FULLTEXT', \
                 schema=(:L {p}), indexProvider='fulltext-1.0' )'.",
            ),
        ),
        (
            &[FULLTEXT],
            "CREATE FULLTEXT INDEX f FOR (n:L) ON EACH [n.q]",
            Then::Fails(INDEX_NAME, "There already exists an index called 'f'."),
        ),
        (
            &["CREATE FULLTEXT INDEX f FOR (n:A|B) ON EACH [n.x, n.y]"],
            "CREATE FULLTEXT INDEX g FOR (n:A|B) ON EACH [n.x, n.y]",
            Then::Fails(INDEXED, "There already exists an index (:A:B {x, y})."),
        ),
        (
            &["CREATE FULLTEXT INDEX f FOR ()-[r:R]-() ON EACH [r.p]"],
            "CREATE FULLTEXT INDEX g FOR ()-[r:R]-() ON EACH [r.p]",
            Then::Fails(INDEXED, "There already exists an index ()-[:R {p}]-()."),
        ),
        (
            &[FULLTEXT],
            "CREATE FULLTEXT INDEX g IF NOT EXISTS FOR (n:L) ON EACH [n.p]",
            Then::Nothing,
        ),
        (
            &[FULLTEXT],
            "CREATE FULLTEXT INDEX f IF NOT EXISTS FOR (n:L) ON EACH [n.q]",
            Then::Nothing,
        ),
        (
            &[FULLTEXT],
            "CREATE FULLTEXT INDEX g FOR (n:L) ON EACH [n.q]",
            Then::Made,
        ),
        (&[FULLTEXT], "CREATE INDEX i FOR (n:L) ON (n.p)", Then::Made),
        (
            &[VECTOR],
            VECTOR,
            Then::Fails(
                EQUIVALENT,
                "An equivalent index already exists, 'Index( name='v', type='VECTOR', \
                 schema=(:L {e}), indexProvider='vector-2.0' )'.",
            ),
        ),
        (
            &[VECTOR],
            "CREATE VECTOR INDEX vector_index_L_e FOR (n:L) ON n.e \
             OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.similarity_function`: 'euclidean'}}",
            Then::Fails(INDEXED, "There already exists an index (:L {e})."),
        ),
        (
            &[VECTOR],
            "CREATE VECTOR INDEX v FOR (n:L) ON n.e \
             OPTIONS {indexConfig: {`vector.dimensions`: 4}}",
            Then::Fails(
                EQUIVALENT,
                "An equivalent index already exists, 'Index( name='v', type='VECTOR', \
                 schema=(:L {e}), indexProvider='vector-2.0' )'.",
            ),
        ),
        (
            &["CREATE VECTOR INDEX v FOR ()-[r:R]-() ON r.e \
               OPTIONS {indexConfig: {`vector.dimensions`: 2}}"],
            "CREATE VECTOR INDEX w FOR ()-[r:R]-() ON r.e \
             OPTIONS {indexConfig: {`vector.dimensions`: 3}}",
            Then::Fails(INDEXED, "There already exists an index ()-[:R {e}]-()."),
        ),
        (
            &[VECTOR],
            "CREATE VECTOR INDEX w IF NOT EXISTS FOR (n:L) ON n.e \
             OPTIONS {indexConfig: {`vector.dimensions`: 4}}",
            Then::Nothing,
        ),
        (
            &[VECTOR],
            "CREATE FULLTEXT INDEX f FOR (n:L) ON EACH [n.e]",
            Then::Made,
        ),
        (
            &[VECTOR],
            "CREATE FULLTEXT INDEX v FOR (n:L) ON EACH [n.e]",
            Then::Fails(INDEX_NAME, "There already exists an index called 'v'."),
        ),
        (
            &[VECTOR],
            "CREATE FULLTEXT INDEX v IF NOT EXISTS FOR (n:L) ON EACH [n.e]",
            Then::Nothing,
        ),
    ]);
}

/// Neo4j 5's answers for uniqueness, key, existence and property type constraints: an equal
/// constraint with the same name is an equivalent rule, one of the same kind under another
/// name is there already, a type constraint of other types conflicts, and a plain index of the
/// type a new constraint would own blocks it. `IF NOT EXISTS` does nothing where a constraint
/// of the kind (and types) covers the schema or a constraint holds the name, and fails where
/// an index is what blocks.
#[test]
#[expect(clippy::too_many_lines, reason = "one row per case")]
fn constraints_meet_existing_rules_as_in_neo4j() {
    const UNIQUE: &str = "CREATE CONSTRAINT c FOR (n:L) REQUIRE n.p IS UNIQUE";
    const EXISTS: &str = "CREATE CONSTRAINT e FOR (n:L) REQUIRE n.p IS NOT NULL";
    const TYPED: &str = "CREATE CONSTRAINT t FOR (n:L) REQUIRE n.p IS :: INTEGER";
    check_cases(&[
        (
            &[UNIQUE],
            UNIQUE,
            Then::Fails(
                EQUIVALENT,
                "An equivalent constraint already exists, 'Constraint( name='c', \
                 type='UNIQUENESS', schema=(:L {p}) )'.",
            ),
        ),
        (
            &[UNIQUE],
            "CREATE CONSTRAINT d FOR (n:L) REQUIRE n.p IS UNIQUE",
            Then::Fails(
                CONSTRAINED,
                "Constraint already exists: Constraint( name='c', type='UNIQUENESS', \
                 schema=(:L {p}) )",
            ),
        ),
        (
            &[UNIQUE],
            "CREATE CONSTRAINT c FOR (n:L) REQUIRE n.q IS UNIQUE",
            Then::Fails(
                CONSTRAINT_NAME,
                "There already exists a constraint called 'c'.",
            ),
        ),
        (
            &[UNIQUE],
            "CREATE CONSTRAINT d IF NOT EXISTS FOR (n:L) REQUIRE n.p IS UNIQUE",
            Then::Nothing,
        ),
        (
            &[UNIQUE],
            "CREATE CONSTRAINT c IF NOT EXISTS FOR (n:L) REQUIRE n.q IS NOT NULL",
            Then::Nothing,
        ),
        // A key and a uniqueness constraint own the same type of index.
        (
            &[UNIQUE],
            "CREATE CONSTRAINT k FOR (n:L) REQUIRE n.p IS NODE KEY",
            Then::Fails(
                CONSTRAINED,
                "Constraint already exists: Constraint( name='c', type='UNIQUENESS', \
                 schema=(:L {p}) )",
            ),
        ),
        (
            &[UNIQUE],
            "CREATE CONSTRAINT k IF NOT EXISTS FOR (n:L) REQUIRE n.p IS NODE KEY",
            Then::Fails(
                CONSTRAINED,
                "Constraint already exists: Constraint( name='c', type='UNIQUENESS', \
                 schema=(:L {p}) )",
            ),
        ),
        (
            &["CREATE CONSTRAINT k FOR (n:L) REQUIRE (n.p, n.q) IS NODE KEY"],
            "CREATE CONSTRAINT k FOR (n:L) REQUIRE (n.p, n.q) IS NODE KEY",
            Then::Fails(
                EQUIVALENT,
                "An equivalent constraint already exists, 'Constraint( name='k', \
                 type='NODE KEY', schema=(:L {p, q}) )'.",
            ),
        ),
        (
            &["CREATE CONSTRAINT r FOR ()-[r:R]-() REQUIRE r.p IS UNIQUE"],
            "CREATE CONSTRAINT s FOR ()-[r:R]-() REQUIRE r.p IS UNIQUE",
            Then::Fails(
                CONSTRAINED,
                "Constraint already exists: Constraint( name='r', \
                 type='RELATIONSHIP UNIQUENESS', schema=()-[:R {p}]-() )",
            ),
        ),
        // A plain range index over the schema blocks the index a constraint would own.
        (
            &["CREATE INDEX i FOR (n:L) ON (n.p)"],
            UNIQUE,
            Then::Fails(
                INDEXED,
                "There already exists an index (:L {p}). A constraint cannot be created \
                 until the index has been dropped.",
            ),
        ),
        (
            &["CREATE INDEX i FOR (n:L) ON (n.p)"],
            "CREATE CONSTRAINT c IF NOT EXISTS FOR (n:L) REQUIRE n.p IS UNIQUE",
            Then::Fails(
                INDEXED,
                "There already exists an index (:L {p}). A constraint cannot be created \
                 until the index has been dropped.",
            ),
        ),
        (
            &["CREATE TEXT INDEX i FOR (n:L) ON (n.p)"],
            UNIQUE,
            Then::Made,
        ),
        (
            &["CREATE INDEX i FOR (n:L) ON (n.p)"],
            "CREATE CONSTRAINT i IF NOT EXISTS FOR (n:L) REQUIRE n.q IS UNIQUE",
            Then::Fails(INDEX_NAME, "There already exists an index called 'i'."),
        ),
        // Existence and type constraints.
        (
            &[EXISTS],
            EXISTS,
            Then::Fails(
                EQUIVALENT,
                "An equivalent constraint already exists, 'Constraint( name='e', \
                 type='NODE PROPERTY EXISTENCE', schema=(:L {p}) )'.",
            ),
        ),
        (
            &[EXISTS],
            "CREATE CONSTRAINT f FOR (n:L) REQUIRE n.p IS NOT NULL",
            Then::Fails(
                CONSTRAINED,
                "Constraint already exists: Constraint( name='e', \
                 type='NODE PROPERTY EXISTENCE', schema=(:L {p}) )",
            ),
        ),
        (
            &[EXISTS],
            "CREATE CONSTRAINT f IF NOT EXISTS FOR (n:L) REQUIRE n.p IS NOT NULL",
            Then::Nothing,
        ),
        (&[EXISTS, UNIQUE], TYPED, Then::Made),
        (
            &[TYPED],
            TYPED,
            Then::Fails(
                EQUIVALENT,
                "An equivalent constraint already exists, 'Constraint( name='t', \
                 type='NODE PROPERTY TYPE', schema=(:L {p}), propertyType=INTEGER )'.",
            ),
        ),
        (
            &[TYPED],
            "CREATE CONSTRAINT u FOR (n:L) REQUIRE n.p IS :: INTEGER",
            Then::Fails(
                CONSTRAINED,
                "Constraint already exists: Constraint( name='t', type='NODE PROPERTY TYPE', \
                 schema=(:L {p}), propertyType=INTEGER )",
            ),
        ),
        (
            &[TYPED],
            "CREATE CONSTRAINT u FOR (n:L) REQUIRE n.p IS :: STRING",
            Then::Fails(
                CONSTRAINED,
                "Conflicting constraint already exists: Constraint( name='t', \
                 type='NODE PROPERTY TYPE', schema=(:L {p}), propertyType=INTEGER )",
            ),
        ),
        (
            &[TYPED],
            "CREATE CONSTRAINT u IF NOT EXISTS FOR (n:L) REQUIRE n.p IS :: STRING",
            Then::Fails(
                CONSTRAINED,
                "Conflicting constraint already exists: Constraint( name='t', \
                 type='NODE PROPERTY TYPE', schema=(:L {p}), propertyType=INTEGER )",
            ),
        ),
        (
            &[TYPED],
            "CREATE CONSTRAINT u IF NOT EXISTS FOR (n:L) REQUIRE n.p IS :: INTEGER",
            Then::Nothing,
        ),
        (
            &[TYPED],
            "CREATE CONSTRAINT t FOR (n:L) REQUIRE n.p IS :: STRING",
            Then::Fails(
                CONSTRAINT_NAME,
                "There already exists a constraint called 't'.",
            ),
        ),
        (
            &[TYPED],
            "CREATE CONSTRAINT t IF NOT EXISTS FOR (n:L) REQUIRE n.p IS :: STRING",
            Then::Nothing,
        ),
        (
            &[
                "CREATE VECTOR INDEX v FOR (n:L) ON n.p OPTIONS {indexConfig: {`vector.dimensions`: 2}}",
            ],
            "CREATE CONSTRAINT v IF NOT EXISTS FOR (n:L) REQUIRE n.p IS NOT NULL",
            Then::Fails(INDEX_NAME, "There already exists an index called 'v'."),
        ),
    ]);
}

/// A transaction's own earlier schema commands count: the second of two indexes over one
/// schema fails at its statement, as the first would had it committed.
#[test]
fn a_transaction_sees_its_own_schema_commands() {
    let db = db();
    let mut tx = db.begin(TxOptions::default()).expect("begin");
    let q = tx
        .run(
            "CREATE FULLTEXT INDEX a FOR (n:L) ON EACH [n.p]",
            Map::new(),
        )
        .expect("run");
    tx.pull(q, -1, &mut Vec::new()).expect("pull");
    let failed = match tx.run(
        "CREATE FULLTEXT INDEX b FOR (n:L) ON EACH [n.p]",
        Map::new(),
    ) {
        Err(e) => e,
        Ok(q) => tx
            .pull(q, -1, &mut Vec::new())
            .expect_err("the same schema"),
    };
    assert_eq!(failed.status_code(), INDEXED);
    assert_eq!(failed.message(), "There already exists an index (:L {p}).");
}
