//! Property-based read privileges, `FOR (n:L) WHERE n.p = v`: each predicate form Neo4j 5
//! allows decides which nodes a user finds and whose properties they read, by the node's
//! value as the reading transaction sees it, through every kind of read; denials beat grants;
//! the rules are listed as Neo4j's rows and printed as commands that run again.

use std::sync::Arc;

use quiver_engine::{Database, EngineConfig, TxOptions};

use quiver_status::Status;
use quiver_value::{Map, Value};

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use common::{ROOT, ok, role, run_with, secured, text};

/// One column of rows, each value as text (`?` for null, numbers as digits).
fn column(rows: &[Vec<Value>]) -> Vec<String> {
    rows.iter()
        .map(|r| match &r[0] {
            Value::Null => "?".to_owned(),
            Value::Int(i) => i.to_string(),
            other => text(other),
        })
        .collect()
}

/// People `a` (level 1, not secret), `b` (level 3, secret) and `c` (neither property), `a`
/// knowing `b` knowing `c`, a robot at level 3; a range index on the level, a text index
/// and a full-text index on the name, a vector index on the embeddings of `a` and `b`; and
/// a configured administrator.
fn graph() -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig::default());
    quiver_procedures::register(&db);
    for query in [
        "CREATE INDEX person_level FOR (n:Person) ON (n.level)",
        "CREATE TEXT INDEX person_name FOR (n:Person) ON (n.name)",
        "CREATE FULLTEXT INDEX names FOR (n:Person) ON EACH [n.name]",
        "CREATE VECTOR INDEX embeddings FOR (n:Person) ON n.embedding \
         OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}",
        "CREATE (:Person {name: 'a', level: 1, secret: false, embedding: [1.0, 0.0]})\
         -[:KNOWS]->(:Person {name: 'b', level: 3, secret: true, embedding: [0.0, 1.0]})\
         -[:KNOWS]->(:Person {name: 'c'}), (:Robot {name: 'r', level: 3})",
    ] {
        db.execute(query, Map::new())
            .unwrap_or_else(|e| panic!("{query}: {e}"));
    }
    secured(&db);
    db
}

/// Reading every property and relationship: what the rules under test leave to decide is
/// which nodes are found.
const READ_ALL_BUT_NODES: [&str; 2] = [
    "GRANT READ {*} ON GRAPH * NODES * TO {r}",
    "GRANT MATCH {*} ON GRAPH * RELATIONSHIPS * TO {r}",
];

fn people(db: &Database, user: &str) -> Vec<String> {
    column(&ok(
        db,
        user,
        "MATCH (n:Person) RETURN n.name ORDER BY n.name",
    ))
}

#[test]
fn each_predicate_form_lets_a_user_find_the_nodes_it_holds_for() {
    let db = graph();
    for (i, (pattern, expected)) in [
        ("(n:Person) WHERE n.level = 1", &["a"][..]),
        ("(n:Person) WHERE n.level <> 1", &["b"]),
        ("(n:Person) WHERE n.level > 1", &["b"]),
        ("(n:Person) WHERE n.level >= 1", &["a", "b"]),
        ("(n:Person) WHERE n.level < 3", &["a"]),
        ("(n:Person) WHERE n.level <= 3", &["a", "b"]),
        ("(n:Person) WHERE n.level IS NULL", &["c"]),
        ("(n:Person) WHERE n.level IS NOT NULL", &["a", "b"]),
        ("(n:Person) WHERE n.level IN [1, 2]", &["a"]),
        ("(n:Person) WHERE NOT n.level = 1", &["b"]),
        ("(n:Person) WHERE NOT n.level IN [3]", &["a"]),
        ("(n:Person WHERE n.secret = true)", &["b"]),
        ("(:Person {secret: false})", &["a"]),
        ("(n:Robot|Person) WHERE n.level = 3", &["b"]),
        // On every node: the robot matches too, but is no person.
        ("(n) WHERE n.level = 3", &["b"]),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("form{i}");
        let grant = format!("GRANT TRAVERSE ON GRAPH * FOR {pattern} TO {{r}}");
        let mut commands = vec![grant.as_str()];
        commands.extend(READ_ALL_BUT_NODES);
        role(&db, &name, None, &commands);
        assert_eq!(people(&db, &name), expected, "{pattern}");
    }
    let robots = ok(&db, "form14", "MATCH (n:Robot) RETURN n.name");
    assert_eq!(column(&robots), ["r"]);
    let robots = ok(&db, "form13", "MATCH (n:Robot) RETURN n.name");
    assert_eq!(column(&robots), ["r"]);
}

#[test]
fn a_parameter_in_a_rule_is_stored_as_the_value_it_had_when_the_command_ran() {
    let db = graph();
    role(&db, "lee", None, &READ_ALL_BUT_NODES);
    run_with(
        &db,
        ROOT,
        "GRANT TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.level IN $levels TO lee",
        &[("levels", Value::from(vec![Value::Int(3), Value::Int(4)]))],
    )
    .expect("granted");
    assert_eq!(people(&db, "lee"), ["b"]);
    let segments = column(&ok(
        &db,
        ROOT,
        "SHOW ROLE lee PRIVILEGES YIELD action, segment WHERE action = 'traverse' \
         RETURN segment",
    ));
    assert_eq!(segments, ["FOR (n:Person) WHERE n.level IN [3, 4]"]);
    // A parameter that is no value a rule compares with is refused.
    let (status, message) = run_with(
        &db,
        ROOT,
        "GRANT TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.level = $level TO lee",
        &[("level", Value::from(vec![Value::Int(3)]))],
    )
    .expect_err("a list compared with =");
    assert_eq!(status, Status::SyntaxError, "{message}");
    assert!(message.contains("type List"), "{message}");
}

#[test]
fn a_function_in_a_rule_is_stored_as_its_value_and_temporal_values_compare_as_in_cypher() {
    let db = graph();
    ok(
        &db,
        ROOT,
        "MATCH (n:Person {name: 'a'}) SET n.since = date('2019-05-01') \
         WITH 1 AS x MATCH (n:Person {name: 'b'}) SET n.since = date('2024-10-25')",
    );
    let mut commands =
        vec!["GRANT TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.since < date({year: 2020}) TO {r}"];
    commands.extend(READ_ALL_BUT_NODES);
    role(&db, "mo", None, &commands);
    assert_eq!(people(&db, "mo"), ["a"]);
    let commands = column(&ok(&db, ROOT, "SHOW ROLE mo PRIVILEGES AS COMMANDS"));
    let rule = "GRANT TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.since < date('2020-01-01') \
                TO `mo`";
    assert!(commands.contains(&rule.to_owned()), "{commands:#?}");
    // Printed as the call that makes it, the value runs again as the same rule.
    ok(
        &db,
        ROOT,
        &rule
            .replace("GRANT", "REVOKE GRANT")
            .replace(" TO ", " FROM "),
    );
    assert!(people(&db, "mo").is_empty());
}

#[test]
fn the_nodes_a_denial_by_property_hides_are_hidden_from_every_kind_of_read() {
    let db = graph();
    ok(&db, ROOT, "CREATE ROLE careful AS COPY OF reader");
    ok(
        &db,
        ROOT,
        "DENY TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.secret = true TO careful",
    );
    ok(
        &db,
        ROOT,
        "CREATE USER cal SET PASSWORD 'password-1' CHANGE NOT REQUIRED",
    );
    ok(&db, ROOT, "GRANT ROLE careful TO cal");
    for (query, everyone, cal) in [
        ("MATCH (n:Person) RETURN count(n)", &["3"][..], &["2"][..]),
        ("MATCH (n) RETURN count(n)", &["4"], &["3"]),
        (
            "MATCH (n:Person) WHERE n.level = 3 RETURN n.name",
            &["b"],
            &[],
        ),
        (
            "MATCH (n:Person) WHERE n.level > 0 RETURN n.name ORDER BY n.name",
            &["a", "b"],
            &["a"],
        ),
        (
            "MATCH (n:Person) WHERE n.name STARTS WITH 'b' RETURN n.name",
            &["b"],
            &[],
        ),
        (
            "MATCH (:Person {name: 'a'})-[:KNOWS]->(m) RETURN m.name",
            &["b"],
            &[],
        ),
        (
            "MATCH (m)-[:KNOWS]->(:Person {name: 'c'}) RETURN m.name",
            &["b"],
            &[],
        ),
        (
            "MATCH p = shortestPath((a:Person {name: 'a'})-[*]-(c:Person {name: 'c'})) \
             RETURN length(p)",
            &["2"],
            &[],
        ),
        (
            "CALL db.index.fulltext.queryNodes('names', 'b') YIELD node RETURN node.name",
            &["b"],
            &[],
        ),
        (
            "CALL db.index.vector.queryNodes('embeddings', 2, [0.0, 1.0]) YIELD node \
             RETURN node.name ORDER BY node.name",
            &["a", "b"],
            &["a"],
        ),
        ("MATCH ()-[r:KNOWS]->() RETURN count(r)", &["2"], &["0"]),
    ] {
        assert_eq!(column(&ok(&db, ROOT, query)), everyone, "root: {query}");
        assert_eq!(column(&ok(&db, "cal", query)), cal, "cal: {query}");
    }
}

#[test]
fn a_denial_by_property_beats_a_grant_on_the_label() {
    let db = graph();
    let mut commands = vec![
        "GRANT TRAVERSE ON GRAPH * NODES Person TO {r}",
        "DENY TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.level >= 3 TO {r}",
    ];
    commands.extend(READ_ALL_BUT_NODES);
    role(&db, "dee", None, &commands);
    assert_eq!(people(&db, "dee"), ["a", "c"]);
    // A grant by property does not undo a denial on the label either.
    role(
        &db,
        "eve",
        None,
        &[
            "GRANT TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.level = 1 TO {r}",
            "DENY TRAVERSE ON GRAPH * NODES Person TO {r}",
            READ_ALL_BUT_NODES[0],
        ],
    );
    assert!(people(&db, "eve").is_empty());
}

#[test]
fn a_rule_on_a_property_the_node_lacks_does_not_apply() {
    let db = graph();
    // `c` has no level: `n.level <> 1` is null for it, so the denial leaves it found (Neo4j's
    // documented fail-open denial), and the grant of `n.level < 5` does not find it.
    let mut commands = vec![
        "GRANT TRAVERSE ON GRAPH * NODES Person TO {r}",
        "DENY TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.level <> 1 TO {r}",
    ];
    commands.extend(READ_ALL_BUT_NODES);
    role(&db, "fay", None, &commands);
    assert_eq!(people(&db, "fay"), ["a", "c"]);
    let mut commands = vec!["GRANT TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.level < 5 TO {r}"];
    commands.extend(READ_ALL_BUT_NODES);
    role(&db, "gus", None, &commands);
    assert_eq!(people(&db, "gus"), ["a", "b"]);
    // A rule on a property no node has yet applies to no node until one has it.
    let mut commands = vec!["GRANT TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.badge = 7 TO {r}"];
    commands.extend(READ_ALL_BUT_NODES);
    role(&db, "hal", None, &commands);
    assert!(people(&db, "hal").is_empty());
    ok(&db, ROOT, "MATCH (n:Person {name: 'c'}) SET n.badge = 7");
    assert_eq!(people(&db, "hal"), ["c"]);
}

#[test]
fn a_node_whose_property_changes_in_the_transaction_is_judged_by_its_current_value() {
    let db = graph();
    let mut commands = vec![
        "GRANT TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.secret = false TO {r}",
        "GRANT WRITE ON GRAPH * TO {r}",
    ];
    commands.extend(READ_ALL_BUT_NODES);
    role(&db, "ivy", None, &commands);
    assert_eq!(people(&db, "ivy"), ["a"]);
    let options = TxOptions {
        user: Some(Arc::from("ivy")),
        ..TxOptions::default()
    };
    let mut tx = db.begin(options).expect("begin");
    let mut pull = |query: &str| {
        let q = tx.run(query, Map::new()).expect(query);
        let mut rows = Vec::new();
        tx.pull(q, -1, &mut rows).expect(query);
        column(&rows)
    };
    pull("MATCH (n:Person {name: 'a'}) SET n.secret = true");
    assert!(pull("MATCH (n:Person) RETURN n.name").is_empty());
    assert_eq!(pull("MATCH (n:Person) RETURN count(n)"), ["0"]);
    tx.rollback().expect("rollback");
    // Another transaction's change counts once committed.
    ok(
        &db,
        ROOT,
        "MATCH (n:Person {name: 'b'}) SET n.secret = false",
    );
    assert_eq!(people(&db, "ivy"), ["a", "b"]);
}

#[test]
fn a_read_rule_decides_whose_properties_are_read_and_its_property_need_not_be_readable() {
    let db = graph();
    role(
        &db,
        "jo",
        None,
        &[
            "GRANT TRAVERSE ON GRAPH * NODES * TO {r}",
            "GRANT READ {name} ON GRAPH * NODES * TO {r}",
            "GRANT READ {level} ON GRAPH * FOR (n:Person) WHERE n.secret = false TO {r}",
        ],
    );
    let rows = ok(&db, "jo", "MATCH (n:Person) RETURN n.level ORDER BY n.name");
    assert_eq!(column(&rows), ["1", "?", "?"]);
    // The rule's own property is not readable to `jo`, yet it decided.
    let rows = ok(&db, "jo", "MATCH (n:Person {name: 'a'}) RETURN n.secret");
    assert_eq!(column(&rows), ["?"]);
    // A range seek on a property read by a rule finds what the rule lets be read only.
    let rows = ok(
        &db,
        "jo",
        "MATCH (n:Person) WHERE n.level >= 1 RETURN n.name",
    );
    assert_eq!(column(&rows), ["a"]);
    // Denying by property beats granting every property.
    role(
        &db,
        "kit",
        None,
        &[
            "GRANT MATCH {*} ON GRAPH * NODES * TO {r}",
            "DENY READ {name} ON GRAPH * FOR (n) WHERE n.secret = true TO {r}",
        ],
    );
    let rows = ok(
        &db,
        "kit",
        "MATCH (n:Person) RETURN n.name ORDER BY n.level",
    );
    assert_eq!(column(&rows), ["a", "?", "c"]);
}

#[test]
fn rules_are_listed_as_neo4j_rows_and_printed_as_commands_that_run_again() {
    let db = graph();
    ok(&db, ROOT, "CREATE ROLE auditor");
    for command in [
        "GRANT TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.secret = false TO auditor",
        "DENY READ {name, level} ON GRAPH * FOR (x:Robot|Person WHERE NOT x.level > 2) TO auditor",
        "GRANT MATCH {*} ON GRAPH neo4j FOR (:Person {name: 'it\\'s'}) TO auditor",
        "DENY MATCH {*} ON GRAPH * FOR (n) WHERE n.`odd key` IS NULL TO auditor",
    ] {
        ok(&db, ROOT, command);
    }
    let rows = ok(
        &db,
        ROOT,
        "SHOW ROLE auditor PRIVILEGES YIELD access, action, resource, segment \
         RETURN access + ' ' + action + ' ' + resource + ' ' + segment ORDER BY segment, resource",
    );
    assert_eq!(
        column(&rows),
        [
            "DENIED match all_properties FOR (n) WHERE n.`odd key` IS NULL",
            "GRANTED match all_properties FOR (n:Person) WHERE n.name = 'it\\'s'",
            "GRANTED traverse graph FOR (n:Person) WHERE n.secret = false",
            "DENIED read property(level) FOR (n:Person|Robot) WHERE NOT n.level > 2",
            "DENIED read property(name) FOR (n:Person|Robot) WHERE NOT n.level > 2",
        ]
    );
    let commands = column(&ok(&db, ROOT, "SHOW ROLE auditor PRIVILEGES AS COMMANDS"));
    assert!(
        commands.contains(
            &"GRANT TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.secret = false TO `auditor`"
                .to_owned()
        ),
        "{commands:#?}"
    );
    // Revoked one by one as printed, nothing is left; granted again as printed, all is back.
    for revoke in column(&ok(
        &db,
        ROOT,
        "SHOW ROLE auditor PRIVILEGES AS REVOKE COMMANDS",
    )) {
        ok(&db, ROOT, &revoke);
    }
    assert!(ok(&db, ROOT, "SHOW ROLE auditor PRIVILEGES").is_empty());
    for command in &commands {
        ok(&db, ROOT, command);
    }
    let again = column(&ok(&db, ROOT, "SHOW ROLE auditor PRIVILEGES AS COMMANDS"));
    assert_eq!(again, commands);
    // A revoke written in another form of the same rule revokes it.
    ok(
        &db,
        ROOT,
        "REVOKE GRANT TRAVERSE ON GRAPH * FOR (p:Person {secret: false}) FROM auditor",
    );
    assert_eq!(
        column(&ok(&db, ROOT, "SHOW ROLE auditor PRIVILEGES AS COMMANDS")).len(),
        commands.len() - 1
    );
}

#[test]
fn predicates_outside_the_allowed_forms_are_refused_and_name_the_form() {
    let db = graph();
    ok(&db, ROOT, "CREATE ROLE r");
    for (command, named) in [
        (
            "GRANT TRAVERSE ON GRAPH * FOR (n:Person) WHERE n.a = n.b TO r",
            "n.a = n.b",
        ),
        (
            "GRANT TRAVERSE ON GRAPH * FOR (n) WHERE n.a = 1 AND n.b = 2 TO r",
            "n.a = 1 AND n.b = 2",
        ),
        (
            "GRANT TRAVERSE ON GRAPH * FOR (n) WHERE n.a STARTS WITH 'x' TO r",
            "STARTS WITH",
        ),
        (
            "GRANT TRAVERSE ON GRAPH * FOR (n) WHERE n.a = null TO r",
            "IS NULL",
        ),
        (
            "DENY CREATE ON GRAPH * FOR (n) WHERE n.a = 1 TO r",
            "by property",
        ),
    ] {
        let (status, message) = run_with(&db, ROOT, command, &[]).expect_err(command);
        assert_eq!(status, Status::SyntaxError, "{command}: {message}");
        assert!(message.contains(named), "{command}: {message}");
    }
    assert!(ok(&db, ROOT, "SHOW ROLE r PRIVILEGES").is_empty());
}

#[test]
fn a_user_without_property_rules_reads_as_before_beside_one_with_them() {
    let db = graph();
    ok(&db, ROOT, "CREATE ROLE ruled AS COPY OF reader");
    ok(
        &db,
        ROOT,
        "DENY TRAVERSE ON GRAPH * FOR (n) WHERE n.level = 3 TO ruled",
    );
    ok(&db, ROOT, "CREATE ROLE labelled");
    for command in [
        "GRANT MATCH {*} ON GRAPH * NODES Person TO labelled",
        "GRANT MATCH {*} ON GRAPH * RELATIONSHIPS * TO labelled",
        "DENY READ {secret} ON GRAPH * NODES Person TO labelled",
    ] {
        ok(&db, ROOT, command);
    }
    for (user, role) in [("rae", "ruled"), ("lou", "labelled"), ("rob", "reader")] {
        ok(
            &db,
            ROOT,
            &format!("CREATE USER {user} SET PASSWORD 'password-1' CHANGE NOT REQUIRED"),
        );
        ok(&db, ROOT, &format!("GRANT ROLE {role} TO {user}"));
    }
    let query = "MATCH (n) RETURN coalesce(n.name, '') + ':' + coalesce(toString(n.secret), '') \
                 ORDER BY n.name";
    assert_eq!(
        column(&ok(&db, "rob", query)),
        column(&ok(&db, ROOT, query))
    );
    assert_eq!(column(&ok(&db, "lou", query)), ["a:", "b:", "c:"]);
    assert_eq!(column(&ok(&db, "rae", query)), ["a:false", "c:"]);
}
