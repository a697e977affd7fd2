//! Privileges granted, denied and revoked in Cypher, and what they allow: a matrix of each
//! enforced privilege against each kind of statement, for a user holding it, a user denied it
//! (on top of everything `admin` has) and a user holding neither; then `SHOW PRIVILEGES`, the
//! forms still refused as unsupported, and privileges surviving a restart.

use std::sync::Arc;

use quiver_engine::{Database, EngineConfig, Mode, TxOptions};

use quiver_status::Status;
use quiver_value::{Map, Value};

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use common::{ROOT, ok, run_as, run_with, secured, text, user};

/// The statement kinds of the matrix, by name, in the order the expectations list them.
const STATEMENTS: &[(&str, &str)] = &[
    ("match", "MATCH (n:Person) RETURN n.name"),
    ("count", "MATCH (n) RETURN count(n)"),
    ("index seek", "MATCH (n:Person {name: 'a'}) RETURN n.age"),
    (
        "shortestPath",
        "MATCH p = shortestPath((a:Person {name: 'a'})-[*]-(b:Person {name: 'b'})) \
         RETURN length(p)",
    ),
    (
        "apoc",
        "CALL apoc.meta.data() YIELD label RETURN count(label)",
    ),
    (
        "full-text",
        "CALL db.index.fulltext.queryNodes('names', 'a') YIELD node RETURN node.name",
    ),
    (
        "vector",
        "CALL db.index.vector.queryNodes('embeddings', 1, [1.0, 0.0]) YIELD node \
         RETURN node.name",
    ),
    ("CALL {}", "CALL { MATCH (n) RETURN n } RETURN count(n)"),
    ("write", "CREATE (:Person {name: 'z'})"),
    (
        "read and write",
        "MATCH (n:Person {name: 'a'}) SET n.age = 2",
    ),
    (
        "LOAD CSV",
        "LOAD CSV FROM 'file:///rows.csv' AS row CREATE (:Row {v: row[0]})",
    ),
    ("no graph", "RETURN 1"),
];

/// One privilege of the matrix: the command's privilege part, and for the holder, the denied
/// user and the user with neither what each statement gives, one character per statement in
/// [`STATEMENTS`]' order: `y` it runs, `n` it fails with `Forbidden`.
struct Case {
    privilege: &'static str,
    holder: &'static str,
    denied: &'static str,
}

/// A user with `PUBLIC` alone reads an empty graph (what they may not traverse is invisible,
/// not refused, as in Neo4j) and may write nothing.
const NEITHER: &str = "yyyyyyyynyny";

/// Everything runs: reads (of what may be seen) and writes.
const ALL: &str = "yyyyyyyyyyyy";

const CASES: &[Case] = &[
    Case {
        privilege: "MATCH {*} ON GRAPH *",
        holder: "yyyyyyyynnny",
        // Denied reading, the writes that match nothing write nothing.
        denied: ALL,
    },
    Case {
        privilege: "ALL GRAPH PRIVILEGES ON GRAPH *",
        holder: ALL,
        denied: NEITHER,
    },
    Case {
        // Holding WRITE alone, the MATCH of `read and write` finds nothing to set.
        privilege: "WRITE ON GRAPH *",
        holder: ALL,
        denied: "yyyyyyyynnny",
    },
    Case {
        // Creating a node with properties needs SET PROPERTY as well.
        privilege: "CREATE ON GRAPH *",
        holder: NEITHER,
        denied: NEITHER,
    },
    Case {
        privilege: "SET PROPERTY {*} ON GRAPH *",
        holder: NEITHER,
        denied: "yyyyyyyynnny",
    },
    Case {
        // Nothing in the matrix deletes.
        privilege: "DELETE ON GRAPH *",
        holder: NEITHER,
        denied: ALL,
    },
    Case {
        // MERGE is MATCH, CREATE and SET PROPERTY together.
        privilege: "MERGE {*} ON GRAPH *",
        holder: ALL,
        denied: NEITHER,
    },
    Case {
        // Traversing finds the people but reads no name, so `{name: 'a'}` matches none.
        privilege: "TRAVERSE ON GRAPH *",
        holder: NEITHER,
        denied: ALL,
    },
    Case {
        privilege: "READ {*} ON GRAPH * NODES *",
        holder: NEITHER,
        denied: ALL,
    },
    Case {
        privilege: "EXECUTE PROCEDURE apoc.* ON DBMS",
        holder: NEITHER,
        denied: "yyyynyyyyyyy",
    },
    Case {
        privilege: "ACCESS ON DATABASE *",
        holder: NEITHER,
        denied: "nnnnnnnnnnnn",
    },
];

/// A database with people, a relationship, a range, full-text and vector index, a CSV file
/// to load, and a configured administrator.
fn graph() -> (Arc<Database>, tempfile::TempDir) {
    let import = tempfile::tempdir().expect("import directory");
    std::fs::write(import.path().join("rows.csv"), "1\n2\n").expect("csv");
    let db = Database::open_in_memory(EngineConfig {
        import_dir: Some(import.path().to_path_buf()),
        ..EngineConfig::default()
    });
    quiver_procedures::register(&db);
    for query in [
        "CREATE INDEX person_name FOR (n:Person) ON (n.name)",
        "CREATE FULLTEXT INDEX names FOR (n:Person) ON EACH [n.name]",
        "CREATE VECTOR INDEX embeddings FOR (n:Person) ON n.embedding \
         OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}",
        "CREATE (:Person {name: 'a', age: 1, embedding: [1.0, 0.0]})\
         -[:KNOWS]->(:Person {name: 'b', age: 2, embedding: [0.0, 1.0]})",
        "CREATE (:Row)",
    ] {
        db.execute(query, Map::new())
            .unwrap_or_else(|e| panic!("{query}: {e}"));
    }
    secured(&db);
    (db, import)
}

fn outcome(db: &Database, user: &str, query: &str) -> char {
    match run_as(db, user, query) {
        Ok(_) => 'y',
        Err((Status::Forbidden, _)) => 'n',
        Err(other) => panic!("{user}: {query}: {other:?}"),
    }
}

#[test]
fn each_privilege_allows_and_denies_each_kind_of_statement_as_documented() {
    let (db, _import) = graph();
    user(&db, "nobody", None);
    assert_eq!(
        STATEMENTS
            .iter()
            .map(|(_, q)| outcome(&db, "nobody", q))
            .collect::<String>(),
        NEITHER
    );
    for (i, case) in CASES.iter().enumerate() {
        let (holder, denied) = (format!("holder{i}"), format!("denied{i}"));
        ok(&db, ROOT, &format!("CREATE ROLE {holder}"));
        ok(&db, ROOT, &format!("GRANT {} TO {holder}", case.privilege));
        ok(&db, ROOT, &format!("CREATE ROLE {denied} AS COPY OF admin"));
        ok(&db, ROOT, &format!("DENY {} TO {denied}", case.privilege));
        user(&db, &holder, Some(&holder));
        user(&db, &denied, Some(&denied));
        for (who, expected) in [(&holder, case.holder), (&denied, case.denied)] {
            let got: String = STATEMENTS
                .iter()
                .map(|(_, query)| outcome(&db, who, query))
                .collect();
            let named: Vec<String> = STATEMENTS
                .iter()
                .zip(got.chars().zip(expected.chars()))
                .filter(|(_, (g, e))| g != e)
                .map(|((name, _), (g, _))| format!("{name}: {g}"))
                .collect();
            assert!(named.is_empty(), "{who} ({}): {named:?}", case.privilege);
        }
    }
}

#[test]
fn a_denied_write_fails_before_anything_is_written_and_names_it() {
    let (db, _import) = graph();
    ok(&db, ROOT, "CREATE ROLE careful AS COPY OF editor");
    ok(
        &db,
        ROOT,
        "DENY WRITE ON GRAPH * RELATIONSHIPS * TO careful",
    );
    user(&db, "cat", Some("careful"));
    let (status, message) = run_as(
        &db,
        "cat",
        "CREATE (:Person {name: 'c'})-[:KNOWS]->(:Person)",
    )
    .expect_err("writing relationships is denied");
    assert_eq!(status, Status::Forbidden);
    // WRITE is on every element whatever elements are named, as in Neo4j 5.
    assert!(
        message.contains("Create node with labels 'Person'"),
        "{message}"
    );
    let count = ok(&db, ROOT, "MATCH (n:Person {name: 'c'}) RETURN count(n)");
    assert_eq!(count, [[Value::Int(0)]]);
    // Revoking the denial gives the editor's writes back.
    ok(
        &db,
        ROOT,
        "REVOKE DENY WRITE ON GRAPH * RELATIONSHIPS * FROM careful",
    );
    ok(
        &db,
        "cat",
        "CREATE (:Person {name: 'c'})-[:KNOWS]->(:Person)",
    );
}

#[test]
fn database_and_dbms_privileges_replace_the_built_in_levels() {
    let (db, _import) = graph();
    ok(&db, ROOT, "CREATE ROLE indexer");
    ok(&db, ROOT, "GRANT INDEX MANAGEMENT ON DATABASE * TO indexer");
    ok(&db, ROOT, "CREATE ROLE usher");
    ok(&db, ROOT, "GRANT USER MANAGEMENT ON DBMS TO usher");
    ok(&db, ROOT, "CREATE ROLE namer AS COPY OF editor");
    ok(
        &db,
        ROOT,
        "GRANT NAME MANAGEMENT ON DATABASE neo4j TO namer",
    );
    ok(&db, ROOT, "CREATE ROLE boss AS COPY OF admin");
    ok(
        &db,
        ROOT,
        "DENY TRANSACTION MANAGEMENT (*) ON DATABASE * TO boss",
    );
    ok(&db, ROOT, "DENY ROLE MANAGEMENT ON DBMS TO boss");
    for (name, role) in [
        ("ivy", "indexer"),
        ("uma", "usher"),
        ("nat", "namer"),
        ("bo", "boss"),
    ] {
        user(&db, name, Some(role));
    }
    ok(&db, "ivy", "CREATE INDEX age FOR (n:Person) ON (n.age)");
    ok(&db, "ivy", "SHOW INDEXES");
    let forbidden = |user: &str, query: &str| {
        let (status, message) = run_as(&db, user, query).expect_err(query);
        assert_eq!(status, Status::Forbidden, "{user}: {query}: {message}");
        message
    };
    forbidden(
        "ivy",
        "CREATE CONSTRAINT c FOR (n:Person) REQUIRE n.name IS UNIQUE",
    );
    forbidden("ivy", "SHOW CONSTRAINTS");
    ok(&db, "uma", "CREATE USER eve SET PASSWORD 'password-2'");
    ok(&db, "uma", "SHOW USERS");
    forbidden("uma", "CREATE ROLE other");
    ok(&db, "nat", "CREATE (:Brand_New_Label)");
    ok(&db, "bo", "CREATE USER fay SET PASSWORD 'password-3'");
    ok(&db, "bo", "SHOW PRIVILEGES");
    let message = forbidden("bo", "GRANT ROLE reader TO fay");
    assert!(message.contains("Role management"), "{message}");
    let mine = ok(
        &db,
        "bo",
        "SHOW TRANSACTIONS YIELD username RETURN username",
    );
    assert!(mine.iter().all(|r| r[0] == Value::from("bo")), "{mine:?}");
    // Taking ACCESS away from PUBLIC takes the database from everyone holding nothing else.
    ok(
        &db,
        ROOT,
        "REVOKE GRANT ACCESS ON DEFAULT DATABASE FROM PUBLIC",
    );
    let message = forbidden("uma", "RETURN 1");
    assert!(message.contains("Database access"), "{message}");
    ok(&db, "ivy", "SHOW USER PRIVILEGES");
}

#[test]
fn show_privileges_lists_grants_and_denials_as_rows_and_commands() {
    let (db, _import) = graph();
    ok(&db, ROOT, "CREATE ROLE auditor AS COPY OF reader");
    ok(
        &db,
        ROOT,
        "DENY EXECUTE PROCEDURE apoc.* ON DBMS TO auditor",
    );
    ok(&db, ROOT, "GRANT ROLE MANAGEMENT ON DBMS TO auditor");
    user(&db, "ann", Some("auditor"));
    let rows = ok(
        &db,
        ROOT,
        "SHOW ROLE auditor PRIVILEGES YIELD access, action, segment \
         WHERE action IN ['execute', 'role_management'] RETURN access, action, segment",
    );
    assert!(rows.contains(&vec![
        Value::from("DENIED"),
        Value::from("execute"),
        Value::from("PROCEDURE(apoc.*)")
    ]));
    assert!(rows.contains(&vec![
        Value::from("GRANTED"),
        Value::from("role_management"),
        Value::from("database")
    ]));
    let commands: Vec<Value> = ok(&db, ROOT, "SHOW ROLE auditor PRIVILEGES AS COMMANDS")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    for expected in [
        "DENY EXECUTE PROCEDURE apoc.* ON DBMS TO `auditor`",
        "GRANT ROLE MANAGEMENT ON DBMS TO `auditor`",
        "GRANT MATCH {*} ON GRAPH * NODE * TO `auditor`",
    ] {
        assert!(
            commands.contains(&Value::from(expected)),
            "{expected}: {commands:?}"
        );
    }
    // Every command printed runs, and its REVOKE form takes the privilege away again.
    let revokes = ok(&db, ROOT, "SHOW ROLE auditor PRIVILEGES AS REVOKE COMMANDS");
    assert!(revokes.contains(&vec![Value::from(
        "REVOKE DENY EXECUTE PROCEDURE apoc.* ON DBMS FROM `auditor`"
    )]));
    for revoke in &revokes {
        ok(&db, ROOT, &text(&revoke[0]));
    }
    assert!(ok(&db, ROOT, "SHOW ROLE auditor PRIVILEGES").is_empty());
    for command in &commands {
        ok(&db, ROOT, &text(command));
    }
    assert_eq!(
        ok(&db, ROOT, "SHOW ROLE auditor PRIVILEGES AS COMMANDS").len(),
        commands.len()
    );
    // Populated roles: those some user has (PUBLIC, the administrator's, ann's).
    let populated: Vec<Value> = ok(&db, ROOT, "SHOW POPULATED ROLES")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(
        populated,
        [
            Value::from("PUBLIC"),
            Value::from("admin"),
            Value::from("auditor")
        ]
    );
}

#[test]
fn privileges_the_server_does_not_enforce_are_refused_not_stored() {
    let (db, _import) = graph();
    ok(&db, ROOT, "CREATE ROLE r");
    for (command, named) in [
        (
            "DENY READ {*} ON GRAPH * FOR (n:Person) WHERE n.secret = n.shown TO r",
            "property rule",
        ),
        (
            "DENY TRANSACTION MANAGEMENT (ann) ON DATABASE * TO r",
            "some users",
        ),
        ("GRANT CREATE INDEX ON DATABASE * TO r", "CREATE INDEX"),
        ("GRANT SERVER MANAGEMENT ON DBMS TO r", "SERVER MANAGEMENT"),
        ("DENY SHOW SERVERS ON DBMS TO r", "SHOW SERVERS"),
    ] {
        let (status, message) = run_as(&db, ROOT, command).expect_err(command);
        assert_eq!(status, Status::SyntaxError, "{command}: {message}");
        assert!(message.contains(named), "{command}: {message}");
    }
    assert!(ok(&db, ROOT, "SHOW ROLE r PRIVILEGES").is_empty());
}

#[test]
fn show_servers_needs_the_dbms_privileges_an_administrator_holds() {
    let (db, _import) = graph();
    user(&db, "rita", Some("reader"));
    let (status, message) = run_as(&db, "rita", "SHOW SERVERS").expect_err("a reader");
    assert_eq!(status, Status::Forbidden, "{message}");
    assert!(message.contains("SHOW SERVERS"), "{message}");
    let servers = ok(&db, ROOT, "SHOW SERVERS YIELD address RETURN address");
    assert_eq!(servers, [[Value::from("localhost:7687")]]);
    // Denying the DBMS privileges takes it from an administrator's copy.
    ok(&db, ROOT, "CREATE ROLE steward AS COPY OF admin");
    ok(&db, ROOT, "DENY ALL DBMS PRIVILEGES ON DBMS TO steward");
    user(&db, "stu", Some("steward"));
    let (status, _) = run_as(&db, "stu", "SHOW SERVERS").expect_err("denied");
    assert_eq!(status, Status::Forbidden);
}

#[test]
fn privilege_commands_need_an_existing_role_and_privilege_management() {
    let (db, _import) = graph();
    let (_, message) =
        run_as(&db, ROOT, "GRANT WRITE ON GRAPH * TO ghost").expect_err("no such role");
    assert!(message.contains("ghost"), "{message}");
    user(&db, "ed", Some("editor"));
    let (status, _) = run_as(&db, "ed", "GRANT WRITE ON GRAPH * TO reader").expect_err("not admin");
    assert_eq!(status, Status::Forbidden);
}

#[test]
fn privileges_survive_a_restart_from_the_log_and_from_a_snapshot() {
    let dir = tempfile::tempdir().expect("dir");
    let setup = |db: &Arc<Database>| {
        secured(db);
        ok(db, ROOT, "CREATE ROLE careful AS COPY OF editor");
        ok(db, ROOT, "DENY WRITE ON GRAPH * TO careful");
        ok(db, ROOT, "DENY EXECUTE PROCEDURE apoc.* ON DBMS TO reader");
        user(db, "cat", Some("careful"));
    };
    let check = |db: &Arc<Database>| {
        secured(db);
        let denied = ok(
            db,
            ROOT,
            "SHOW PRIVILEGES YIELD access, role WHERE access = 'DENIED' RETURN role ORDER BY role",
        );
        assert_eq!(
            denied,
            [
                [Value::from("careful")],
                [Value::from("careful")],
                [Value::from("reader")]
            ]
        );
        assert_eq!(
            run_as(db, "cat", "CREATE ()").expect_err("denied").0,
            Status::Forbidden
        );
        ok(db, "cat", "MATCH (n) RETURN count(n)");
    };
    {
        let db = Database::open(dir.path(), Mode::Sync).expect("open");
        quiver_procedures::register(&db);
        setup(&db);
    }
    {
        let db = Database::open(dir.path(), Mode::Sync).expect("reopen from the log");
        quiver_procedures::register(&db);
        check(&db);
        db.durability()
            .expect("durable")
            .snapshot()
            .expect("snapshot");
    }
    let db = Database::open(dir.path(), Mode::Sync).expect("reopen from the snapshot");
    quiver_procedures::register(&db);
    check(&db);
}

#[test]
fn user_and_role_names_may_be_given_as_parameters() {
    let (db, _import) = graph();
    let s = |v: &str| Value::String(v.into());
    let create_user = "CREATE USER $name SET PASSWORD $password CHANGE NOT REQUIRED";
    // One statement text, so one plan, serves each name it is given.
    for name in ["ann", "bob"] {
        run_with(
            &db,
            ROOT,
            create_user,
            &[("name", s(name)), ("password", s("password-1"))],
        )
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
    let role = [("role", s("people")), ("user", s("ann"))];
    for query in [
        "CREATE ROLE $role",
        "GRANT ACCESS ON DATABASE * TO $role",
        "GRANT MATCH {*} ON GRAPH * TO $role",
        "GRANT ROLE $role TO $user",
    ] {
        run_with(&db, ROOT, query, &role).unwrap_or_else(|e| panic!("{query}: {e:?}"));
    }
    assert_eq!(
        ok(&db, "ann", "MATCH (n:Person) RETURN count(n)"),
        [[Value::Int(2)]]
    );
    // Without a read privilege the graph looks empty, as in Neo4j.
    assert_eq!(
        ok(&db, "bob", "MATCH (n:Person) RETURN count(n)"),
        [[Value::Int(0)]]
    );
    let roles = ok(
        &db,
        ROOT,
        "SHOW USERS YIELD user, roles WHERE user = 'ann' RETURN roles",
    );
    assert_eq!(
        roles,
        [[Value::List(vec![s("PUBLIC"), s("people")].into())]]
    );
    run_with(&db, ROOT, "REVOKE ROLE $role FROM $user", &role).expect("revoked");
    assert_eq!(
        ok(&db, "ann", "MATCH (n:Person) RETURN count(n)"),
        [[Value::Int(0)]]
    );
    run_with(
        &db,
        ROOT,
        "ALTER USER $name SET STATUS SUSPENDED",
        &[("name", s("bob"))],
    )
    .expect("altered");
    run_with(&db, ROOT, "DROP USER $name", &[("name", s("bob"))]).expect("dropped");
    run_with(&db, ROOT, "DROP ROLE $role", &role).expect("dropped");
    let users = ok(
        &db,
        ROOT,
        "SHOW USERS YIELD user WHERE user IN ['ann', 'bob'] RETURN collect(user)",
    );
    assert_eq!(users, [[Value::List(vec![s("ann")].into())]]);
    // A name must be a given String; nothing is created otherwise.
    for (params, expected) in [
        (vec![("name", Value::Int(7))], Status::TypeError),
        (vec![], Status::ParameterMissing),
    ] {
        let (status, message) = run_with(&db, ROOT, "CREATE ROLE $name", &params)
            .expect_err("a role name that is not a String");
        assert_eq!(status, expected, "{message}");
        assert!(message.contains("$name"), "{message}");
    }
    assert_eq!(
        ok(
            &db,
            ROOT,
            "SHOW ROLES YIELD role WHERE role = '7' RETURN count(*)"
        ),
        [[Value::Int(0)]]
    );
}

#[test]
fn each_finer_write_is_checked_at_the_element_it_writes_and_named_when_denied() {
    let (db, _import) = graph();
    ok(&db, ROOT, "CREATE ROLE careful AS COPY OF editor");
    for denial in [
        "DENY DELETE ON GRAPH * NODES *",
        "DENY SET LABEL * ON GRAPH *",
        "DENY CREATE ON GRAPH * RELATIONSHIPS *",
        "DENY SET PROPERTY {*} ON GRAPH * RELATIONSHIPS *",
    ] {
        ok(&db, ROOT, &format!("{denial} TO careful"));
    }
    user(&db, "cat", Some("careful"));
    for (query, named) in [
        (
            "MATCH (n:Person {name: 'a'}) DETACH DELETE n",
            "Delete node",
        ),
        (
            "MATCH (n:Person {name: 'a'}) SET n:Tagged",
            "Set label for label 'Tagged'",
        ),
        (
            "MATCH (a:Person {name: 'a'}), (b:Person {name: 'b'}) CREATE (a)-[:LIKES]->(b)",
            "Create relationship with type 'LIKES'",
        ),
        (
            "MATCH ()-[r:KNOWS]->() SET r.since = 2020",
            "Set property for property 'since'",
        ),
    ] {
        let (status, message) = run_as(&db, "cat", query).expect_err(query);
        assert_eq!(status, Status::Forbidden, "{query}: {message}");
        assert!(message.contains(named), "{query}: {message}");
        assert!(message.contains("'cat'"), "{message}");
    }
    // Nothing the refused statements meant to write was written.
    let rows = ok(
        &db,
        ROOT,
        "MATCH (n:Person) OPTIONAL MATCH (n)-[r]->() \
         RETURN count(DISTINCT n), count(r), count(r.since), sum(size(labels(n)))",
    );
    assert_eq!(
        rows,
        [[Value::Int(2), Value::Int(1), Value::Int(0), Value::Int(2)]]
    );
    // What the denials leave is allowed: node properties, removing labels, deleting
    // relationships, creating nodes.
    for query in [
        "MATCH (n:Person {name: 'a'}) SET n.age = 5 REMOVE n.embedding",
        "MATCH (n:Person {name: 'b'}) REMOVE n:Person",
        "MATCH ()-[r:KNOWS]->() DELETE r",
        "CREATE (:Person {name: 'n'})",
    ] {
        ok(&db, "cat", query);
    }
    let commands: Vec<String> = ok(&db, ROOT, "SHOW ROLE careful PRIVILEGES AS COMMANDS")
        .iter()
        .map(|row| text(&row[0]))
        .collect();
    for expected in [
        "DENY DELETE ON GRAPH * NODE * TO `careful`",
        "DENY SET LABEL * ON GRAPH * TO `careful`",
        "DENY CREATE ON GRAPH * RELATIONSHIP * TO `careful`",
        "DENY SET PROPERTY {*} ON GRAPH * RELATIONSHIP * TO `careful`",
    ] {
        assert!(
            commands.iter().any(|c| c == expected),
            "{expected}: {commands:?}"
        );
    }
    let rows = ok(
        &db,
        ROOT,
        "SHOW ROLE careful PRIVILEGES YIELD access, action, resource, segment \
         WHERE action = 'set_label' RETURN access, resource, segment",
    );
    assert_eq!(
        rows.iter()
            .map(|r| r.iter().map(text).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
        [["DENIED", "all_labels", "NODE(*)"]]
    );
}

/// The statements of the read matrix, by name: each answers one value (or no row).
const READS: &[(&str, &str)] = &[
    (
        "names",
        "MATCH (n:Person) WITH n.name AS name ORDER BY name \
         RETURN collect(coalesce(name, '?'))",
    ),
    ("count", "MATCH (n) RETURN count(n)"),
    ("label count", "MATCH (n:Person) RETURN count(n)"),
    ("relationship count", "MATCH ()-[r]->() RETURN count(r)"),
    ("two hops", "MATCH (x)-->()-->(y) RETURN count(*)"),
    ("index seek", "MATCH (n:Person {name: 's'}) RETURN count(n)"),
    (
        "ages",
        "MATCH (n:Person) WITH n.age AS age ORDER BY age RETURN collect(coalesce(age, 0))",
    ),
    (
        "shortestPath",
        "MATCH p = shortestPath((x:Person {name: 'a'})-[*]-(y:Person {name: 's'})) \
         RETURN length(p)",
    ),
    (
        "expand",
        "MATCH (:Person {name: 'b'})-[r]-() WITH type(r) AS t ORDER BY t RETURN collect(t)",
    ),
    (
        "apoc",
        "CALL apoc.meta.stats() YIELD nodeCount RETURN nodeCount",
    ),
    (
        "full-text",
        "CALL db.index.fulltext.queryNodes('names', 's') YIELD node RETURN count(node)",
    ),
    (
        "vector",
        "CALL db.index.vector.queryNodes('embeddings', 3, [1.0, 0.0]) YIELD node \
         RETURN count(node)",
    ),
    (
        "CALL {}",
        "CALL { MATCH (:Person)-[:KNOWS]->(m) RETURN m } RETURN count(m)",
    ),
    (
        "keys",
        "MATCH (n:Person {name: 'a'}) UNWIND keys(n) AS k WITH k ORDER BY k RETURN collect(k)",
    ),
    (
        "labels",
        "MATCH (n) UNWIND labels(n) AS l WITH DISTINCT l ORDER BY l RETURN collect(l)",
    ),
    ("write", "MATCH (n:Person) SET n.age = 9 RETURN count(n)"),
    (
        "relationship property",
        "MATCH ()-[r:KNOWS]->() WITH r.since AS s ORDER BY s RETURN collect(coalesce(s, 0))",
    ),
];

/// One read case: the role's privilege commands (`{r}` stands for the role), a base role to
/// copy (`None`: a new role, with `PUBLIC`'s access only), and what each of [`READS`] answers,
/// as [`answer`] writes it.
struct ReadCase {
    base: Option<&'static str>,
    commands: &'static [&'static str],
    expected: [&'static str; 17],
}

/// What everything of the read graph answers.
const FULL: [&str; 17] = [
    "[a,b,s]",
    "5",
    "3",
    "3",
    "2",
    "1",
    "[1,2,3]",
    "2",
    "[HATES,KNOWS,KNOWS]",
    "5",
    "1",
    "3",
    "2",
    "[age,embedding,name]",
    "[Person,Row,Secret]",
    "3",
    "[5,0]",
];

/// What the matrix reads when the nodes labelled `Secret` cannot be traversed: the node and its
/// relationships are gone from every answer.
const SECRET_HIDDEN: [&str; 17] = [
    "[a,b]",
    "4",
    "2",
    "2",
    "0",
    "0",
    "[1,2]",
    "-",
    "[HATES,KNOWS]",
    "4",
    "0",
    "2",
    "1",
    "[age,embedding,name]",
    "[Person,Row]",
    "2",
    "[0]",
];

/// What an empty graph answers.
const EMPTY: [&str; 17] = [
    "[]", "0", "0", "0", "0", "0", "[]", "-", "[]", "0", "0", "0", "0", "[]", "[]", "0", "[]",
];

/// `FULL` with some answers changed, by statement name.
const fn but(
    mut answers: [&'static str; 17],
    changes: &[(usize, &'static str)],
) -> [&'static str; 17] {
    let mut i = 0;
    while i < changes.len() {
        answers[changes[i].0] = changes[i].1;
        i += 1;
    }
    answers
}

const READ_CASES: &[ReadCase] = &[
    ReadCase {
        base: Some("editor"),
        commands: &[],
        expected: FULL,
    },
    ReadCase {
        base: None,
        commands: &[],
        expected: EMPTY,
    },
    ReadCase {
        // Reading without traversing finds nothing to read.
        base: None,
        commands: &["GRANT READ {*} ON GRAPH * TO {r}"],
        expected: EMPTY,
    },
    ReadCase {
        // People are found, nothing of them read, no relationship found; setting a property
        // on what is found is a write the role does not hold.
        base: None,
        commands: &["GRANT TRAVERSE ON GRAPH * NODES Person TO {r}"],
        expected: [
            "[?,?,?]",
            "3",
            "3",
            "0",
            "0",
            "0",
            "[0,0,0]",
            "-",
            "[]",
            "3",
            "0",
            "0",
            "0",
            "[]",
            "[Person,Secret]",
            "Forbidden",
            "[]",
        ],
    },
    ReadCase {
        base: None,
        commands: &[
            "GRANT MATCH {*} ON GRAPH * NODES Person TO {r}",
            "GRANT TRAVERSE ON GRAPH * RELATIONSHIPS KNOWS TO {r}",
        ],
        expected: [
            "[a,b,s]",
            "3",
            "3",
            "2",
            "1",
            "1",
            "[1,2,3]",
            "2",
            "[KNOWS,KNOWS]",
            "3",
            "1",
            "3",
            "2",
            "[age,embedding,name]",
            "[Person,Secret]",
            "Forbidden",
            "[0,0]",
        ],
    },
    ReadCase {
        // A node with a denied label is invisible, and so are its relationships.
        base: Some("editor"),
        commands: &["DENY TRAVERSE ON GRAPH * NODES Secret TO {r}"],
        expected: SECRET_HIDDEN,
    },
    ReadCase {
        // A denied property reads as null: no seek, search or pattern finds by it.
        base: Some("editor"),
        commands: &["DENY READ {name} ON GRAPH * NODES Secret TO {r}"],
        expected: but(FULL, &[(0, "[a,b,?]"), (5, "0"), (7, "-"), (10, "0")]),
    },
    ReadCase {
        // Denying MATCH of a property denies reading it, not finding its holders.
        base: Some("editor"),
        commands: &["DENY MATCH {age} ON GRAPH * NODES * TO {r}"],
        expected: but(FULL, &[(6, "[0,0,0]"), (13, "[embedding,name]")]),
    },
    ReadCase {
        base: Some("editor"),
        commands: &["DENY TRAVERSE ON GRAPH * RELATIONSHIPS HATES TO {r}"],
        expected: but(FULL, &[(3, "2"), (4, "1"), (8, "[KNOWS,KNOWS]")]),
    },
    ReadCase {
        // Denying MATCH {*} of a type denies finding its relationships.
        base: Some("editor"),
        commands: &["DENY MATCH {*} ON GRAPH * RELATIONSHIPS KNOWS TO {r}"],
        expected: but(
            FULL,
            &[
                (3, "1"),
                (4, "0"),
                (7, "-"),
                (8, "[HATES]"),
                (12, "0"),
                (16, "[]"),
            ],
        ),
    },
    ReadCase {
        // Everything found, only names read.
        base: None,
        commands: &["GRANT MATCH {name} ON GRAPH * ELEMENTS * TO {r}"],
        expected: but(
            FULL,
            &[
                (6, "[0,0,0]"),
                (11, "0"),
                (13, "[name]"),
                (15, "Forbidden"),
                (16, "[0,0]"),
            ],
        ),
    },
    ReadCase {
        // A denial beats a grant, whichever role holds it.
        base: Some("editor"),
        commands: &[
            "GRANT TRAVERSE ON GRAPH * NODES Secret TO {r}",
            "DENY TRAVERSE ON GRAPH * NODES Secret TO {r}",
        ],
        expected: SECRET_HIDDEN,
    },
];

/// A value as the read matrix writes it: lists in brackets, null as `?`.
fn render(value: &Value) -> String {
    match value {
        Value::Null => "?".to_owned(),
        Value::Int(i) => i.to_string(),
        Value::String(s) => s.to_string(),
        Value::List(items) => format!(
            "[{}]",
            items.iter().map(render).collect::<Vec<_>>().join(",")
        ),
        other => format!("{other:?}"),
    }
}

/// What `query` answers `user`, in a transaction rolled back after: its one value, `-` for
/// no row, or the error's status.
fn answer(db: &Database, user: &str, query: &str) -> String {
    let options = TxOptions {
        user: Some(Arc::from(user)),
        ..TxOptions::default()
    };
    let result = (|| {
        let mut tx = db.begin(options)?;
        let q = tx.run(query, Map::new())?;
        let mut rows = Vec::new();
        tx.pull(q, -1, &mut rows)?;
        tx.rollback()?;
        Ok::<_, quiver_engine::Error>(rows)
    })();
    match result {
        Ok(rows) => match rows.first() {
            Some(row) => render(&row[0]),
            None => "-".to_owned(),
        },
        Err(e) => format!("{:?}", e.status_code()),
    }
}

/// The matrix graph: people `a` and `b` and a secret person `s`, `a` and `b` knowing and
/// `a` hating `b`, `b` knowing `s`, a row and a node without labels.
fn read_graph() -> (Arc<Database>, tempfile::TempDir) {
    let (db, import) = graph();
    ok(
        &db,
        ROOT,
        "MATCH (a:Person {name: 'a'}), (b:Person {name: 'b'}) \
         CREATE (a)-[:HATES]->(b)-[:KNOWS {since: 5}]->\
         (:Person:Secret {name: 's', age: 3, embedding: [0.9, 0.1]}), ()",
    );
    (db, import)
}

#[test]
fn what_a_user_may_not_traverse_or_read_is_invisible_to_every_kind_of_read() {
    let (db, _import) = read_graph();
    for (i, case) in READ_CASES.iter().enumerate() {
        let role = format!("reads{i}");
        match case.base {
            Some(base) => ok(&db, ROOT, &format!("CREATE ROLE {role} AS COPY OF {base}")),
            None => ok(&db, ROOT, &format!("CREATE ROLE {role}")),
        };
        for command in case.commands {
            ok(&db, ROOT, &command.replace("{r}", &role));
        }
        user(&db, &role, Some(&role));
        let wrong: Vec<String> = READS
            .iter()
            .zip(case.expected)
            .filter_map(|((name, query), expected)| {
                let got = answer(&db, &role, query);
                (got != expected).then(|| format!("{name}: {got}, not {expected}"))
            })
            .collect();
        assert!(wrong.is_empty(), "{:?}: {wrong:#?}", case.commands);
    }
    // The administrator still sees everything, through the fast paths.
    let full: Vec<String> = READS.iter().map(|(_, q)| answer(&db, ROOT, q)).collect();
    assert_eq!(full, FULL);
}

#[test]
fn fine_grained_read_privileges_are_shown_as_commands_that_run_again() {
    let (db, _import) = graph();
    ok(&db, ROOT, "CREATE ROLE analyst");
    for command in [
        "GRANT TRAVERSE ON GRAPH * NODES Person, Row TO analyst",
        "GRANT READ {name, age} ON GRAPH * NODES Person TO analyst",
        "DENY READ {salary} ON GRAPH * NODES * TO analyst",
        "GRANT MATCH {*} ON GRAPH * RELATIONSHIPS KNOWS TO analyst",
        "DENY MATCH {since} ON GRAPH neo4j ELEMENTS KNOWS TO analyst",
    ] {
        ok(&db, ROOT, command);
    }
    let commands: Vec<String> = ok(&db, ROOT, "SHOW ROLE analyst PRIVILEGES AS COMMANDS")
        .iter()
        .map(|r| text(&r[0]))
        .collect();
    for expected in [
        "GRANT TRAVERSE ON GRAPH * NODE `Person` TO `analyst`",
        "GRANT TRAVERSE ON GRAPH * NODE `Row` TO `analyst`",
        "GRANT READ {`age`} ON GRAPH * NODE `Person` TO `analyst`",
        "DENY READ {`salary`} ON GRAPH * NODE * TO `analyst`",
        "GRANT MATCH {*} ON GRAPH * RELATIONSHIP `KNOWS` TO `analyst`",
        "DENY MATCH {`since`} ON GRAPH `neo4j` RELATIONSHIP `KNOWS` TO `analyst`",
        "DENY MATCH {`since`} ON GRAPH `neo4j` NODE `KNOWS` TO `analyst`",
    ] {
        assert!(
            commands.iter().any(|c| c == expected),
            "{expected}: {commands:#?}"
        );
    }
    assert_eq!(commands.len(), 8, "{commands:#?}");
    // Revoked one by one as printed, nothing is left; granted again as printed, all is back.
    for revoke in ok(&db, ROOT, "SHOW ROLE analyst PRIVILEGES AS REVOKE COMMANDS") {
        ok(&db, ROOT, &text(&revoke[0]));
    }
    assert!(ok(&db, ROOT, "SHOW ROLE analyst PRIVILEGES").is_empty());
    for command in &commands {
        ok(&db, ROOT, command);
    }
    let again = ok(&db, ROOT, "SHOW ROLE analyst PRIVILEGES AS COMMANDS");
    assert_eq!(again.len(), commands.len());
}

#[test]
fn a_filtered_vector_search_finds_nothing_through_a_property_its_reader_may_not_read() {
    let (db, _import) = read_graph();
    ok(&db, ROOT, "DROP INDEX embeddings");
    ok(
        &db,
        ROOT,
        "CREATE VECTOR INDEX by_age FOR (n:Person) ON n.embedding WITH [n.age] \
         OPTIONS {indexConfig: {`vector.dimensions`: 2}}",
    );
    ok(&db, ROOT, "CREATE ROLE ageless AS COPY OF reader");
    ok(
        &db,
        ROOT,
        "DENY READ {age} ON GRAPH * NODES Person TO ageless",
    );
    user(&db, "ada", Some("ageless"));
    let search = "MATCH (n:Person) SEARCH n IN (VECTOR INDEX by_age FOR [1.0, 0.0] \
                  WHERE n.age >= 0 LIMIT 10) RETURN count(n)";
    let all = ok(&db, ROOT, search);
    assert!(matches!(all[0][0], Value::Int(n) if n > 0), "{all:?}");
    // Whatever the ages, a reader who may not read them learns nothing of them.
    assert_eq!(ok(&db, "ada", search), [[Value::Int(0)]]);
}

#[test]
fn a_hidden_property_leaves_returned_nodes_maps_and_lookups_and_a_hidden_node_every_listing() {
    let (db, _import) = read_graph();
    ok(&db, ROOT, "CREATE ROLE careful AS COPY OF reader");
    ok(
        &db,
        ROOT,
        "DENY READ {age} ON GRAPH * NODES Person TO careful",
    );
    ok(
        &db,
        ROOT,
        "DENY TRAVERSE ON GRAPH * NODES Secret TO careful",
    );
    user(&db, "cal", Some("careful"));
    let rows = ok(&db, "cal", "MATCH (n:Person {name: 'a'}) RETURN n");
    let Value::Node(node) = &rows[0][0] else {
        panic!("not a node: {rows:?}");
    };
    let data = node.data.as_ref().expect("a returned node is filled in");
    assert!(data.properties.contains_key("name"), "{data:?}");
    assert!(!data.properties.contains_key("age"), "{data:?}");
    for query in [
        "MATCH (n:Person {name: 'a'}) RETURN size(keys(properties(n)))",
        "MATCH (n:Person {name: 'a'}) RETURN size(keys(n {.*}))",
    ] {
        // name and embedding: not age.
        assert_eq!(ok(&db, "cal", query), [[Value::Int(2)]], "{query}");
    }
    // The secret person is not found by id either, nor listed by its label.
    let id = ok(&db, ROOT, "MATCH (n:Secret) RETURN id(n)");
    let by_id = format!(
        "MATCH (n) WHERE id(n) = {} RETURN count(n)",
        text_or_int(&id[0][0])
    );
    assert_eq!(ok(&db, ROOT, &by_id), [[Value::Int(1)]]);
    assert_eq!(ok(&db, "cal", &by_id), [[Value::Int(0)]]);
    let labels: Vec<Value> = ok(&db, "cal", "CALL db.labels() YIELD label RETURN label")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(labels, [Value::from("Person"), Value::from("Row")]);
}

#[test]
fn property_keys_are_listed_to_a_reader_where_some_grant_lets_them_be_read() {
    let (db, _import) = read_graph();
    ok(&db, ROOT, "CREATE ROLE narrow AS COPY OF reader");
    // Denied on Person nodes only: still readable on other nodes, so still listed.
    ok(
        &db,
        ROOT,
        "DENY READ {age} ON GRAPH * NODES Person TO narrow",
    );
    // Denied on every node and relationship: listed nowhere.
    ok(
        &db,
        ROOT,
        "DENY READ {since} ON GRAPH * ELEMENTS * TO narrow",
    );
    user(&db, "nat", Some("narrow"));
    let keys = |who: &str| -> Vec<String> {
        ok(
            &db,
            who,
            "CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey",
        )
        .into_iter()
        .map(|r| text(&r[0]))
        .collect()
    };
    let all = keys(ROOT);
    assert!(all.contains(&"since".to_owned()) && all.contains(&"age".to_owned()));
    let seen = keys("nat");
    assert!(seen.contains(&"age".to_owned()), "{seen:?}");
    assert!(!seen.contains(&"since".to_owned()), "{seen:?}");
    assert_eq!(seen.len() + 1, all.len(), "{seen:?} of {all:?}");
}

#[test]
fn execute_function_globs_decide_which_library_functions_a_user_calls() {
    let (db, _import) = graph();
    ok(&db, ROOT, "CREATE ROLE no_text AS COPY OF reader");
    ok(
        &db,
        ROOT,
        "DENY EXECUTE FUNCTION apoc.text.* ON DBMS TO no_text",
    );
    user(&db, "fay", Some("no_text"));
    let join = "RETURN apoc.text.join(['a', 'b'], '-')";
    let (status, message) = run_as(&db, "fay", join).expect_err("a denied function");
    assert_eq!(status, Status::Forbidden, "{message}");
    assert!(message.contains("apoc.text.join"), "{message}");
    // Other library functions and Cypher's built-ins need no more than PUBLIC's grant.
    assert_eq!(
        ok(&db, "fay", "RETURN apoc.coll.sum([1, 2]), toUpper('a')"),
        [[Value::Float(3.0), Value::from("A")]]
    );
    assert_eq!(
        ok(&db, ROOT, "SHOW ROLE no_text PRIVILEGES AS COMMANDS")
            .iter()
            .filter(|r| text(&r[0]).contains("FUNCTION"))
            .map(|r| text(&r[0]))
            .collect::<Vec<_>>(),
        ["DENY EXECUTE FUNCTION apoc.text.* ON DBMS TO `no_text`"]
    );
    ok(
        &db,
        ROOT,
        "REVOKE DENY EXECUTE FUNCTION apoc.text.* ON DBMS FROM no_text",
    );
    assert_eq!(ok(&db, "fay", join), [[Value::from("a-b")]]);
    // Without PUBLIC's `EXECUTE FUNCTION *`, only what a role grants may be called.
    ok(&db, ROOT, "REVOKE EXECUTE FUNCTION * ON DBMS FROM PUBLIC");
    ok(
        &db,
        ROOT,
        "GRANT EXECUTE FUNCTION apoc.coll.* ON DBMS TO no_text",
    );
    assert_eq!(
        run_as(&db, "fay", join).map_err(|e| e.0),
        Err(Status::Forbidden)
    );
    assert_eq!(
        ok(&db, "fay", "RETURN apoc.coll.sum([1])"),
        [[Value::Float(1.0)]]
    );
}

fn text_or_int(value: &Value) -> String {
    match value {
        Value::Int(i) => i.to_string(),
        other => text(other),
    }
}

/// Statements a procedure or a batch runs on the caller's behalf are the caller's: an editor
/// creates no new name through `apoc.cypher.doIt`, `apoc.periodic.iterate` or a concurrent
/// batch, and a reader writes nothing through them.
#[test]
fn nested_statements_run_with_the_callers_roles() {
    let db = Database::open_in_memory(EngineConfig::default());
    quiver_procedures::register(&db);
    secured(&db);
    ok(&db, ROOT, "CREATE (:Existing {x: 0})");
    user(&db, "ed", Some("editor"));
    user(&db, "rita", Some("reader"));
    let forbidden = |user: &str, query: &str| {
        let (status, message) = run_as(&db, user, query).expect_err(query);
        assert_eq!(status, Status::Forbidden, "{user}: {query}: {message}");
    };
    forbidden(
        "ed",
        "CALL apoc.cypher.doIt('CREATE (:Brand)', {}) YIELD value RETURN value",
    );
    // APOC reports a failed batch in its row rather than failing the call.
    assert_eq!(
        ok(
            &db,
            "ed",
            "CALL apoc.periodic.iterate('UNWIND [1, 2] AS i RETURN i', 'CREATE (:Brand {i: i})', {batchSize: 1}) YIELD failedBatches RETURN failedBatches",
        ),
        vec![vec![Value::Int(2)]]
    );
    forbidden(
        "ed",
        "UNWIND [1, 2, 3] AS i CALL { WITH i CREATE (:Brand {i: i}) } IN 2 CONCURRENT TRANSACTIONS OF 1 ROW",
    );
    forbidden(
        "rita",
        "CALL apoc.cypher.doIt('MATCH (n:Existing) SET n.x = 1', {}) YIELD value RETURN value",
    );
    // What the editor may do directly, it may do nested.
    ok(
        &db,
        "ed",
        "CALL apoc.cypher.doIt('MATCH (n:Existing) SET n.x = 2', {}) YIELD value RETURN value",
    );
    ok(
        &db,
        "ed",
        "UNWIND [1, 2, 3] AS i CALL { WITH i CREATE (:Existing {x: i}) } IN 2 CONCURRENT TRANSACTIONS OF 1 ROW",
    );
    assert_eq!(
        ok(&db, ROOT, "MATCH (n:Brand) RETURN count(n)"),
        vec![vec![Value::Int(0)]]
    );
}
