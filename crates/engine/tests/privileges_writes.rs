//! Write privileges on some labels, relationship types and properties, as Neo4j 5 has them:
//! each narrowed write granted, denied or held by neither, checked at the element it writes
//! and failing the statement before anything of it is kept; `DENY` beating `GRANT`; `MERGE`
//! as the writes it is made of; the rows `SHOW PRIVILEGES` prints for them; and `DETACH
//! DELETE` refusing a node with relationships its user may not see.

use std::sync::Arc;

use quiver_engine::{Database, EngineConfig};

use quiver_status::Status;
use quiver_value::{Map, Value};

mod common;

use common::{ROOT, forbidden, ok, role, run_as, secured};

/// People `a`, `b` and the secret `s`, `a` knowing `b` and `b` hating `s`, a row and an
/// archived node (so every label and key the tests name exists), and a configured
/// administrator.
fn graph() -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig::default());
    db.execute(
        "CREATE (a:Person {name: 'a', salary: 1})-[:KNOWS {since: 2000}]->(b:Person {name: 'b'}), \
         (b)-[:HATES]->(:Person:Secret {name: 's'}), (:Row {age: 1}), (:Archived:Movie)",
        Map::new(),
    )
    .unwrap_or_else(|e| panic!("the graph: {e}"));
    secured(&db);
    db
}

/// The whole graph as the administrator sees it, one line per node and relationship, to
/// compare before and after a refused statement.
fn everything(db: &Database) -> Vec<String> {
    let nodes = ok(
        db,
        ROOT,
        "MATCH (n) WITH n ORDER BY id(n) \
         RETURN id(n), labels(n), properties(n)",
    );
    let rels = ok(
        db,
        ROOT,
        "MATCH (a)-[r]->(b) WITH a, r, b ORDER BY id(r) \
         RETURN id(a), type(r), id(b), properties(r)",
    );
    nodes
        .iter()
        .chain(&rels)
        .map(|row| format!("{row:?}"))
        .collect()
}

#[test]
fn creating_a_node_needs_create_on_every_label_of_it_and_set_property_on_each_key() {
    let db = graph();
    role(
        &db,
        "maker",
        Some("reader"),
        &[
            "GRANT CREATE ON GRAPH * NODES Person, Row TO {r}",
            "GRANT SET PROPERTY {name} ON GRAPH * NODES Person TO {r}",
        ],
    );
    role(&db, "idle", Some("reader"), &[]);
    let before = everything(&db);
    // Some label not granted, or none at all (which needs CREATE on every node), refuses.
    forbidden(
        &db,
        "maker",
        "CREATE (:Person:Movie)",
        "Create node with labels 'Person', 'Movie'",
    );
    forbidden(&db, "maker", "CREATE ()", "Create node with labels");
    // Properties of a new node are set as on any node: by key, on the labels it is given.
    forbidden(
        &db,
        "maker",
        "CREATE (:Row {name: 'r'})",
        "Set property for property 'name'",
    );
    forbidden(
        &db,
        "maker",
        "CREATE (:Person {name: 'c', salary: 3})",
        "Set property for property 'salary'",
    );
    forbidden(
        &db,
        "idle",
        "CREATE (:Person)",
        "Create node with labels 'Person'",
    );
    assert_eq!(everything(&db), before);
    ok(&db, "maker", "CREATE (:Person {name: 'c'}), (:Person:Row)");
    assert_eq!(
        ok(&db, ROOT, "MATCH (n:Person) RETURN count(n), count(n.name)"),
        [[Value::Int(5), Value::Int(4)]]
    );
}

#[test]
fn a_label_denied_beats_create_granted_on_every_node_and_fails_the_statement_whole() {
    let db = graph();
    role(
        &db,
        "careful",
        Some("editor"),
        &["DENY CREATE ON GRAPH * NODES Secret TO {r}"],
    );
    let before = everything(&db);
    forbidden(
        &db,
        "careful",
        "CREATE (:Person:Secret)",
        "Create node with labels 'Person', 'Secret'",
    );
    // The rows before the refused one created people: none of them is kept.
    forbidden(
        &db,
        "careful",
        "UNWIND ['x', 'y'] AS name CREATE (:Person {name: name}) \
         WITH name WHERE name = 'y' CREATE (:Secret)",
        "Create node with labels 'Secret'",
    );
    forbidden(
        &db,
        "careful",
        "CREATE (:$('Secret'))",
        "Create node with labels 'Secret'",
    );
    assert_eq!(everything(&db), before);
    // What is not denied is left as WRITE grants it, the other writes on secrets included.
    ok(&db, "careful", "CREATE (:Person {name: 'x'})-[:KNOWS]->()");
    ok(
        &db,
        "careful",
        "MATCH (n:Secret) SET n.name = 't' REMOVE n:Secret",
    );
}

#[test]
fn deleting_needs_delete_on_every_label_of_the_node_or_the_type_of_the_relationship() {
    let db = graph();
    role(
        &db,
        "cleaner",
        Some("reader"),
        &[
            "GRANT DELETE ON GRAPH * NODES Person TO {r}",
            "GRANT DELETE ON GRAPH * RELATIONSHIPS KNOWS TO {r}",
            "DENY DELETE ON GRAPH * NODES Secret TO {r}",
        ],
    );
    let before = everything(&db);
    forbidden(
        &db,
        "cleaner",
        "MATCH ()-[r:HATES]->() DELETE r",
        "Delete relationship with type 'HATES'",
    );
    forbidden(
        &db,
        "cleaner",
        "MATCH ()-[r:HATES]->(n:Secret) DELETE r, n",
        "Delete relationship with type 'HATES'",
    );
    forbidden(
        &db,
        "cleaner",
        "MATCH (n:Row) DELETE n",
        "Delete node with labels 'Row'",
    );
    // DETACH DELETE deletes each relationship it takes as DELETE would.
    forbidden(
        &db,
        "cleaner",
        "MATCH (n:Person {name: 'b'}) DETACH DELETE n",
        "Delete relationship with type 'HATES'",
    );
    assert_eq!(everything(&db), before);
    ok(
        &db,
        "cleaner",
        "MATCH (n:Person {name: 'a'}) DETACH DELETE n",
    );
    assert_eq!(
        ok(&db, ROOT, "MATCH (n:Person) RETURN count(n)"),
        [[Value::Int(2)]]
    );
    // A denied label of a node beats the grant on another of its labels.
    ok(&db, ROOT, "MATCH ()-[r:HATES]->() DELETE r");
    forbidden(
        &db,
        "cleaner",
        "MATCH (n:Secret) DELETE n",
        "Delete node with labels 'Person', 'Secret'",
    );
    ok(&db, "cleaner", "MATCH (n:Person {name: 'b'}) DELETE n");
}

#[test]
fn setting_and_removing_labels_is_granted_and_denied_label_by_label() {
    let db = graph();
    role(
        &db,
        "archivist",
        Some("reader"),
        &[
            "GRANT SET LABEL Archived ON GRAPH * TO {r}",
            "GRANT REMOVE LABEL Archived, Movie ON GRAPH * TO {r}",
        ],
    );
    role(
        &db,
        "careful",
        Some("editor"),
        &["DENY SET LABEL Secret ON GRAPH * TO {r}"],
    );
    let before = everything(&db);
    for user in ["archivist", "careful"] {
        forbidden(
            &db,
            user,
            "MATCH (n:Person {name: 'a'}) SET n:Archived:Secret",
            "Set label for label 'Secret'",
        );
        forbidden(
            &db,
            user,
            "MATCH (n:Person {name: 'a'}) SET n:$('Secret')",
            "Set label for label 'Secret'",
        );
    }
    forbidden(
        &db,
        "archivist",
        "MATCH (n:Person {name: 'a'}) REMOVE n:Person",
        "Remove label for label 'Person'",
    );
    assert_eq!(everything(&db), before);
    ok(
        &db,
        "archivist",
        "MATCH (n:Person {name: 'a'}) SET n:Archived",
    );
    ok(&db, "archivist", "MATCH (n:Movie) REMOVE n:Movie:Archived");
    ok(
        &db,
        "careful",
        "MATCH (n:Person {name: 'b'}) SET n:Archived REMOVE n:Person",
    );
    assert_eq!(
        ok(&db, ROOT, "MATCH (n:Archived) RETURN count(n)"),
        [[Value::Int(2)]]
    );
}

#[test]
fn setting_a_property_is_checked_by_key_against_the_labels_or_type_the_element_has() {
    let db = graph();
    role(
        &db,
        "namer",
        Some("reader"),
        &[
            "GRANT SET PROPERTY {name} ON GRAPH * NODES Person TO {r}",
            "GRANT SET PROPERTY {*} ON GRAPH * RELATIONSHIPS KNOWS TO {r}",
        ],
    );
    role(
        &db,
        "discreet",
        Some("editor"),
        &["DENY SET PROPERTY {salary} ON GRAPH * ELEMENTS * TO {r}"],
    );
    let before = everything(&db);
    for (user, query, key) in [
        (
            "namer",
            "MATCH (n:Person {name: 'a'}) SET n.salary = 2",
            "salary",
        ),
        ("namer", "MATCH (n:Row) SET n.name = 'r'", "name"),
        ("namer", "MATCH ()-[r:HATES]->() SET r.since = 1", "since"),
        // Replacing the properties removes the salary, which is setting it.
        (
            "namer",
            "MATCH (n:Person {name: 'a'}) SET n = {name: 'a'}",
            "salary",
        ),
        ("discreet", "MATCH (n:Row) SET n.salary = 2", "salary"),
        (
            "discreet",
            "MATCH ()-[r:KNOWS]->() SET r += {salary: 1}",
            "salary",
        ),
        (
            "discreet",
            "MATCH (n:Person {name: 'a'}) REMOVE n.salary",
            "salary",
        ),
    ] {
        forbidden(
            &db,
            user,
            query,
            &format!("Set property for property '{key}'"),
        );
    }
    assert_eq!(everything(&db), before);
    // The labels that count are those the node has when the property is set.
    role(
        &db,
        "tagger",
        Some("reader"),
        &[
            "GRANT SET LABEL Archived ON GRAPH * TO {r}",
            "GRANT SET PROPERTY {name} ON GRAPH * NODES Archived TO {r}",
        ],
    );
    forbidden(
        &db,
        "tagger",
        "MATCH (n:Row) SET n.name = 'r' SET n:Archived",
        "Set property for property 'name'",
    );
    assert_eq!(everything(&db), before);
    ok(
        &db,
        "tagger",
        "MATCH (n:Row) SET n:Archived SET n.name = 'row'",
    );
    ok(&db, ROOT, "MATCH (n:Row) REMOVE n:Archived, n.name");
    // What the grants cover is set, and what the denial leaves.
    ok(
        &db,
        "namer",
        "MATCH (n:Person {name: 'b'}) SET n.name = 'b2' \
         WITH 1 AS one MATCH ()-[r:KNOWS]->() SET r.since = 2020",
    );
    ok(&db, "discreet", "MATCH (n:Row) SET n.age = 2, n.name = 'r'");
    assert_eq!(
        ok(
            &db,
            ROOT,
            "MATCH (a)-[r:KNOWS]->(b) MATCH (n:Row) RETURN b.name, r.since, n.age"
        ),
        [[Value::from("b2"), Value::Int(2020), Value::Int(2)]]
    );
}

#[test]
fn merge_on_some_properties_matches_creates_and_sets_them_on_its_elements_only() {
    let db = graph();
    role(
        &db,
        "merger",
        None,
        &["GRANT MERGE {name} ON GRAPH * NODES Person TO {r}"],
    );
    assert_eq!(
        ok(
            &db,
            "merger",
            "MERGE (n:Person {name: 'a'}) RETURN n.name, n.salary"
        ),
        [[Value::from("a"), Value::Null]]
    );
    let before = everything(&db);
    forbidden(
        &db,
        "merger",
        "MERGE (n:Person {name: 'm', salary: 3})",
        "Set property for property 'salary'",
    );
    // Rows are not found, so MERGE creates one, which it may not.
    forbidden(
        &db,
        "merger",
        "MERGE (n:Row {name: 'r'})",
        "Create node with labels 'Row'",
    );
    forbidden(
        &db,
        "merger",
        "MATCH (n:Person {name: 'a'}) SET n.name = 'a2' REMOVE n:Person",
        "Remove label for label 'Person'",
    );
    assert_eq!(everything(&db), before);
    ok(&db, "merger", "MERGE (n:Person {name: 'm'})");
    assert_eq!(
        ok(&db, ROOT, "MATCH (n:Person {name: 'm'}) RETURN count(n)"),
        [[Value::Int(1)]]
    );
}

/// A role's privileges as `SHOW PRIVILEGES` rows without the role column, sorted.
fn rows_of(db: &Database, role: &str) -> Vec<String> {
    let mut rows: Vec<String> = ok(
        db,
        ROOT,
        &format!(
            "SHOW ROLE {role} PRIVILEGES YIELD access, action, resource, graph, segment \
             RETURN access, action, resource, graph, segment"
        ),
    )
    .iter()
    .map(|row| {
        row.iter()
            .map(|v| v.as_str().unwrap_or_else(|| panic!("{v:?}")).to_owned())
            .collect::<Vec<_>>()
            .join(" ")
    })
    .collect();
    rows.sort();
    rows
}

fn commands_of(db: &Database, role: &str, revoke: bool) -> Vec<String> {
    let how = if revoke {
        "REVOKE COMMANDS"
    } else {
        "COMMANDS"
    };
    ok(db, ROOT, &format!("SHOW ROLE {role} PRIVILEGES AS {how}"))
        .iter()
        .map(|row| {
            row[0]
                .as_str()
                .unwrap_or_else(|| panic!("{row:?}"))
                .to_owned()
        })
        .collect()
}

#[test]
fn narrowed_writes_are_shown_as_neo4j_rows_and_as_commands_that_make_them_again() {
    let db = graph();
    role(
        &db,
        "writer",
        None,
        &[
            "GRANT CREATE ON GRAPH * NODES Person TO {r}",
            "DENY DELETE ON GRAPH * RELATIONSHIPS KNOWS TO {r}",
            "GRANT SET LABEL Archived ON GRAPH * TO {r}",
            "DENY REMOVE LABEL Person, Secret ON GRAPH * TO {r}",
            "GRANT SET PROPERTY {name} ON GRAPH * NODES Person TO {r}",
            "DENY SET PROPERTY {salary} ON GRAPH neo4j ELEMENTS * TO {r}",
            "GRANT MERGE {name} ON GRAPH * NODES Person TO {r}",
        ],
    );
    let rows = rows_of(&db, "writer");
    for expected in [
        "GRANTED create_element graph * NODE(Person)",
        "DENIED delete_element graph * RELATIONSHIP(KNOWS)",
        "GRANTED set_label label(Archived) * NODE(*)",
        "DENIED remove_label label(Person) * NODE(*)",
        "DENIED remove_label label(Secret) * NODE(*)",
        "GRANTED set_property property(name) * NODE(Person)",
        "DENIED set_property property(salary) neo4j NODE(*)",
        "DENIED set_property property(salary) neo4j RELATIONSHIP(*)",
        "GRANTED merge property(name) * NODE(Person)",
    ] {
        assert!(rows.iter().any(|r| r == expected), "{expected}: {rows:#?}");
    }
    assert_eq!(rows.len(), 9, "{rows:#?}");
    let commands = commands_of(&db, "writer", false);
    for expected in [
        "GRANT CREATE ON GRAPH * NODE `Person` TO `writer`",
        "DENY DELETE ON GRAPH * RELATIONSHIP `KNOWS` TO `writer`",
        "GRANT SET LABEL `Archived` ON GRAPH * TO `writer`",
        "DENY REMOVE LABEL `Secret` ON GRAPH * TO `writer`",
        "DENY SET PROPERTY {`salary`} ON GRAPH `neo4j` RELATIONSHIP * TO `writer`",
        "GRANT MERGE {`name`} ON GRAPH * NODE `Person` TO `writer`",
    ] {
        assert!(
            commands.iter().any(|c| c == expected),
            "{expected}: {commands:#?}"
        );
    }
    // The printed commands, run for a fresh role, give it the same rows.
    ok(&db, ROOT, "CREATE ROLE again");
    for command in &commands {
        ok(&db, ROOT, &command.replace("TO `writer`", "TO `again`"));
    }
    assert_eq!(rows_of(&db, "again"), rows);
    // Revoked as printed, nothing is left.
    for revoke in commands_of(&db, "writer", true) {
        ok(&db, ROOT, &revoke);
    }
    assert!(rows_of(&db, "writer").is_empty());
    // A write by property is still refused rather than stored.
    let (status, message) = run_as(
        &db,
        ROOT,
        "GRANT CREATE ON GRAPH * FOR (n:Person) WHERE n.name = 'a' TO writer",
    )
    .expect_err("a write by property");
    assert_eq!(status, Status::SyntaxError, "{message}");
    assert!(rows_of(&db, "writer").is_empty());
}

#[test]
fn detach_delete_of_a_node_with_a_relationship_its_user_may_not_see_is_refused_whole() {
    let db = graph();
    role(
        &db,
        "blind_to_hate",
        Some("editor"),
        &["DENY TRAVERSE ON GRAPH * RELATIONSHIPS HATES TO {r}"],
    );
    role(
        &db,
        "blind_to_secrets",
        Some("editor"),
        &["DENY TRAVERSE ON GRAPH * NODES Secret TO {r}"],
    );
    let before = everything(&db);
    for user in ["blind_to_hate", "blind_to_secrets"] {
        // `b` knows `a` (seen) and hates `s` (a hidden type, or a hidden node at its end):
        // the hidden relationship is not deleted, so neither is `b`, nor what was seen.
        let (status, message) =
            run_as(&db, user, "MATCH (n:Person {name: 'b'}) DETACH DELETE n").expect_err(user);
        assert_eq!(
            status,
            Status::ConstraintValidationFailed,
            "{user}: {message}"
        );
        assert!(message.contains("still has relationships"), "{message}");
        assert_eq!(everything(&db), before, "{user}");
    }
    // A node whose relationships are all seen is detached and deleted.
    ok(
        &db,
        "blind_to_hate",
        "MATCH (n:Person {name: 'a'}) DETACH DELETE n",
    );
    assert_eq!(
        ok(
            &db,
            ROOT,
            "MATCH (n:Person) OPTIONAL MATCH (n)-[r]-() RETURN count(DISTINCT n), count(DISTINCT r)"
        ),
        [[Value::Int(2), Value::Int(1)]]
    );
}

#[test]
fn a_user_seeing_some_nodes_deletes_them_when_they_are_alone_as_neo4j_documents() {
    let db = graph();
    role(
        &db,
        "receptionist",
        None,
        &[
            "GRANT MATCH {*} ON GRAPH * NODES Person TO {r}",
            "GRANT CREATE ON GRAPH * NODES Person TO {r}",
            "GRANT DELETE ON GRAPH * NODES Person TO {r}",
            "GRANT SET PROPERTY {*} ON GRAPH * NODES Person TO {r}",
        ],
    );
    ok(&db, "receptionist", "CREATE (:Person {name: 'new'})");
    ok(
        &db,
        "receptionist",
        "MATCH (n:Person {name: 'new'}) SET n.name = 'newer' WITH n DETACH DELETE n",
    );
    let before = everything(&db);
    let (status, message) = run_as(
        &db,
        "receptionist",
        "MATCH (n:Person {name: 'a'}) DETACH DELETE n",
    )
    .expect_err("a is connected to what the receptionist may not see");
    assert_eq!(status, Status::ConstraintValidationFailed, "{message}");
    assert_eq!(everything(&db), before);
}

#[test]
fn a_user_holding_write_on_the_whole_graph_writes_everything_as_before() {
    let db = graph();
    role(&db, "writer", Some("editor"), &[]);
    for query in [
        "CREATE (:Person:Secret {name: 'z', salary: 5})-[:HATES {since: 1}]->(:Row)",
        "MATCH (n:Person {name: 'a'}) SET n:Archived, n.salary = 2, n += {name: 'a2'}",
        "MATCH (n:Movie) REMOVE n:Movie, n:Archived",
        "MATCH ()-[r:KNOWS]->() SET r.since = 3",
        "MERGE (n:Person {name: 'm'}) ON CREATE SET n.salary = 1",
        "MATCH (n:Secret) DETACH DELETE n",
        "MATCH (n:Person {name: 'b'}) DETACH DELETE n",
    ] {
        ok(&db, "writer", query);
    }
    assert_eq!(
        ok(
            &db,
            ROOT,
            "MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n), count(r)"
        ),
        // a2, m, two rows and the former movie; no relationship is left.
        [[Value::Int(5), Value::Int(0)]]
    );
}
