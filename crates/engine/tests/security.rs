//! Users, roles and privileges through the embedded API: the built-in roles' privilege
//! matrix, the password-change flow, a dropped user's open transaction, the audit events,
//! and users and roles surviving a restart.

use std::sync::Arc;

use parking_lot::Mutex;
use quiver_engine::security::Level;
use quiver_engine::{AuditEvent, Authentication, Database, EngineConfig, TxOptions};
use quiver_status::Status;
use quiver_value::{Map, Value};

mod common;

use common::user;

const ROOT: &str = "root";

fn secured(db: &Arc<Database>) {
    db.set_authentication(Some(Authentication {
        configured: [(ROOT.to_owned(), Level::Admin)].into(),
    }));
}

fn as_user(user: &str) -> TxOptions {
    TxOptions {
        user: Some(Arc::from(user)),
        ..TxOptions::auto_commit()
    }
}

/// An explicit write transaction as `user`.
fn explicit_as(user: &str) -> TxOptions {
    TxOptions {
        user: Some(Arc::from(user)),
        ..TxOptions::default()
    }
}

/// Runs `query` in an auto-commit transaction as `user`; the rows or the error's status.
fn run_as(db: &Database, user: &str, query: &str) -> Result<Vec<Vec<Value>>, (Status, String)> {
    let mut tx = db
        .begin(as_user(user))
        .map_err(|e| (e.status_code(), e.message()))?;
    let q = tx
        .run(query, Map::new())
        .map_err(|e| (e.status_code(), e.message()))?;
    let mut rows = Vec::new();
    tx.pull(q, -1, &mut rows)
        .map_err(|e| (e.status_code(), e.message()))?;
    tx.commit().map_err(|e| (e.status_code(), e.message()))?;
    Ok(rows)
}

/// Runs `query` in `tx` and pulls its rows; the error of either step.
fn run_in(tx: &mut quiver_engine::Transaction, query: &str) -> Result<(), quiver_engine::Error> {
    let q = tx.run(query, Map::new())?;
    tx.pull(q, -1, &mut Vec::new())?;
    Ok(())
}

fn ok(db: &Database, user: &str, query: &str) -> Vec<Vec<Value>> {
    run_as(db, user, query).unwrap_or_else(|e| panic!("{user}: {query}: {e:?}"))
}

#[test]
fn every_built_in_role_is_allowed_exactly_what_neo4j_allows() {
    let db = Database::open_in_memory(EngineConfig::default());
    secured(&db);
    ok(&db, ROOT, "CREATE (:Existing {x: 0})");
    // (role, reads, writes, creates names, schema, manages users, sees and ends others'
    // transactions)
    let matrix = [
        ("PUBLIC", [false, false, false, false, false, false]),
        ("reader", [true, false, false, false, false, false]),
        ("editor", [true, true, false, false, false, false]),
        ("publisher", [true, true, true, false, false, false]),
        ("architect", [true, true, true, true, false, false]),
        ("admin", [true, true, true, true, true, true]),
    ];
    for (role, allowed) in matrix {
        let user = format!("u_{}", role.to_lowercase());
        common::user(&db, &user, (role != "PUBLIC").then_some(role));
        let actions = [
            "MATCH (n:Existing) RETURN count(n)".to_owned(),
            "MATCH (n:Existing) SET n.x = 1".to_owned(),
            format!("CREATE (:New_{user})"),
            format!("CREATE INDEX idx_{user} FOR (n:Existing) ON (n.k_{user})"),
            format!("CREATE USER made_by_{user} SET PASSWORD 'password-2'"),
        ];
        for (i, (action, allowed)) in actions.iter().zip(allowed).enumerate() {
            if role == "PUBLIC" && i < 2 {
                // Without a read privilege the graph looks empty (as in Neo4j): the count is
                // 0, and the SET finds nothing to write.
                let rows = run_as(&db, &user, action).unwrap_or_else(|e| panic!("{e:?}"));
                assert!(rows.is_empty() || rows == [[Value::Int(0)]], "{rows:?}");
                continue;
            }
            match run_as(&db, &user, action) {
                Ok(_) => assert!(allowed, "{role} may not: {action}"),
                Err((status, message)) => {
                    assert!(!allowed, "{role} may: {action}: {message}");
                    assert_eq!(status, Status::Forbidden, "{role}: {action}: {message}");
                    assert!(message.contains(&user), "{message}");
                }
            }
        }
        // Another user's open transaction: seen and ended only by an administrator.
        let other = db.begin(as_user(ROOT)).expect("begin");
        let other_id = other.id();
        let shown = ok(&db, &user, "SHOW TRANSACTIONS YIELD transactionId");
        let sees = shown.iter().any(|r| r[0] == Value::from(other_id.as_str()));
        assert_eq!(sees, allowed[5], "{role} sees another's transaction");
        let ended = ok(
            &db,
            &user,
            &format!("TERMINATE TRANSACTIONS '{other_id}' YIELD message"),
        );
        let terminated = ended[0][0] == Value::from("Transaction terminated.");
        assert_eq!(terminated, allowed[5], "{role} ends another's transaction");
        // Their own transactions they always see.
        let own = ok(&db, &user, "SHOW TRANSACTIONS YIELD transactionId");
        assert!(!own.is_empty(), "{role} sees their own transaction");
        drop(other);
    }
    // Nothing a refused user tried was written.
    assert_eq!(
        ok(&db, ROOT, "MATCH (n:Existing) RETURN n.x"),
        [[Value::Int(1)]],
        "only the editor and above set x"
    );
}

#[test]
fn a_password_that_must_change_allows_only_changing_it() {
    let db = Database::open_in_memory(EngineConfig::default());
    secured(&db);
    ok(&db, ROOT, "CREATE USER ann SET PASSWORD 'initial-pw'");
    ok(&db, ROOT, "GRANT ROLE reader TO ann");
    let error = run_as(&db, "ann", "MATCH (n) RETURN n").expect_err("expired");
    assert_eq!(error.0, Status::CredentialsExpired);
    let error = run_as(&db, "ann", "SHOW CURRENT USER").expect_err("expired");
    assert_eq!(error.0, Status::CredentialsExpired);
    let error = run_as(
        &db,
        "ann",
        "ALTER CURRENT USER SET PASSWORD FROM 'initial-pw' TO 'short'",
    )
    .expect_err("too short");
    assert!(error.1.contains("at least 8"), "{}", error.1);
    let error = run_as(
        &db,
        "ann",
        "ALTER CURRENT USER SET PASSWORD FROM 'wrong-one' TO 'changed-pw'",
    )
    .expect_err("wrong old password");
    assert!(error.1.contains("Invalid"), "{}", error.1);
    ok(
        &db,
        "ann",
        "ALTER CURRENT USER SET PASSWORD FROM 'initial-pw' TO 'changed-pw'",
    );
    ok(&db, "ann", "MATCH (n) RETURN n");
    let me = ok(&db, "ann", "SHOW CURRENT USER");
    assert_eq!(me[0][0], Value::from("ann"));
    assert_eq!(
        me[0][1],
        Value::list(vec![Value::from("PUBLIC"), Value::from("reader")])
    );
    assert_eq!(me[0][2], Value::Bool(false));
    // The hash changed, and is no password.
    let stored = db.stored_user("ann").expect("stored");
    assert!(stored.password_hash.starts_with("$argon2id$"));
    assert!(!stored.change_required);
}

#[test]
fn a_dropped_or_suspended_user_loses_access_at_once() {
    let db = Database::open_in_memory(EngineConfig::default());
    secured(&db);
    user(&db, "bob", Some("editor"));
    user(&db, "cat", Some("editor"));
    let mut open = db.begin(explicit_as("bob")).expect("begin");
    // Creating the label needs publisher: bob is an editor.
    let error = run_in(&mut open, "CREATE (:Existing)").expect_err("new label");
    assert_eq!(error.status_code(), Status::Forbidden);
    assert!(
        error.message().contains("label 'Existing'"),
        "{}",
        error.message()
    );
    drop(open);
    ok(&db, ROOT, "CREATE (:Existing)");
    let mut open = db.begin(explicit_as("bob")).expect("begin");
    let q = open.run("CREATE (:Existing)", Map::new()).expect("write");
    let mut rows = Vec::new();
    open.pull(q, -1, &mut rows).expect("pull");
    ok(&db, ROOT, "DROP USER bob");
    let error = open.commit().expect_err("dropped before commit");
    assert_eq!(error.status_code(), Status::Unauthorized);
    assert_eq!(
        ok(&db, ROOT, "MATCH (n:Existing) RETURN count(n)"),
        [[Value::Int(1)]]
    );
    let error = run_as(&db, "bob", "RETURN 1").expect_err("dropped");
    assert_eq!(error.0, Status::Unauthorized);
    // Suspended: the next statement fails; active again, it runs.
    ok(&db, ROOT, "ALTER USER cat SET STATUS SUSPENDED");
    assert_eq!(
        run_as(&db, "cat", "RETURN 1").expect_err("suspended").0,
        Status::Unauthorized
    );
    ok(&db, ROOT, "ALTER USER cat SET STATUS ACTIVE");
    ok(&db, "cat", "MATCH (n) RETURN count(n)");
    // A revoked role counts from the next statement.
    ok(&db, ROOT, "REVOKE ROLE editor FROM cat");
    assert_eq!(
        ok(&db, "cat", "MATCH (n) RETURN count(n)"),
        [[Value::Int(0)]],
        "no role left: nothing to see"
    );
}

#[test]
fn show_users_roles_and_privileges_in_neo4j_columns() {
    let db = Database::open_in_memory(EngineConfig::default());
    secured(&db);
    user(&db, "ann", Some("reader"));
    ok(&db, ROOT, "CREATE ROLE auditor AS COPY OF reader");
    ok(&db, ROOT, "GRANT ROLE auditor TO ann");
    let users = db.execute("SHOW USERS", Map::new()).expect("show users");
    let columns: Vec<&str> = users.columns.iter().map(|c| &**c).collect();
    assert_eq!(
        columns,
        [
            "user",
            "roles",
            "passwordChangeRequired",
            "suspended",
            "home"
        ]
    );
    assert_eq!(users.rows.len(), 2);
    let rows = ok(&db, ROOT, "SHOW USERS YIELD user, roles WHERE user = 'ann'");
    assert_eq!(
        rows,
        [[
            Value::from("ann"),
            Value::list(vec![
                Value::from("PUBLIC"),
                Value::from("auditor"),
                Value::from("reader")
            ])
        ]]
    );
    let roles = ok(&db, ROOT, "SHOW ROLES");
    let names: Vec<Value> = roles.into_iter().map(|r| r[0].clone()).collect();
    for role in [
        "PUBLIC",
        "reader",
        "editor",
        "publisher",
        "architect",
        "admin",
        "auditor",
    ] {
        assert!(names.contains(&Value::from(role)), "{role}");
    }
    let members = ok(
        &db,
        ROOT,
        "SHOW ROLES WITH USERS YIELD role, member WHERE role = 'auditor'",
    );
    assert_eq!(members, [[Value::from("auditor"), Value::from("ann")]]);
    let commands = ok(&db, ROOT, "SHOW ROLE auditor PRIVILEGES AS COMMANDS");
    assert!(commands.contains(&vec![Value::from(
        "GRANT MATCH {*} ON GRAPH * NODE * TO `auditor`"
    )]));
    assert!(!commands.iter().any(|r| r[0].to_string().contains("WRITE")));
    let all = db
        .execute("SHOW PRIVILEGES", Map::new())
        .expect("show privileges");
    let columns: Vec<&str> = all.columns.iter().map(|c| &**c).collect();
    assert_eq!(
        columns,
        [
            "access",
            "action",
            "resource",
            "graph",
            "segment",
            "role",
            "immutable"
        ]
    );
    // A user's own privileges need no admin role; others' do.
    let mine = ok(&db, "ann", "SHOW USER PRIVILEGES YIELD user, action");
    assert!(mine.iter().all(|r| r[0] == Value::from("ann")));
    assert!(mine.iter().any(|r| r[1] == Value::from("match")));
    assert_eq!(
        run_as(&db, "ann", "SHOW USERS").expect_err("not admin").0,
        Status::Forbidden
    );
    // Built-in roles stay; a created one goes, and with it its grants.
    assert!(run_as(&db, ROOT, "DROP ROLE reader").is_err());
    ok(&db, ROOT, "DROP ROLE auditor");
    let rows = ok(&db, ROOT, "SHOW USERS YIELD user, roles WHERE user = 'ann'");
    assert_eq!(
        rows[0][1],
        Value::list(vec![Value::from("PUBLIC"), Value::from("reader")])
    );
    // Configured users are not Cypher's to change.
    assert!(run_as(&db, ROOT, "DROP USER root").is_err());
    assert!(run_as(&db, ROOT, "CREATE USER root SET PASSWORD 'password-9'").is_err());
}

#[test]
fn admin_commands_refuse_data_writes_beside_them_and_hide_passwords() {
    let db = Database::open_in_memory(EngineConfig::default());
    secured(&db);
    let mut tx = db.begin(explicit_as(ROOT)).expect("begin");
    run_in(&mut tx, "CREATE (:Thing)").expect("write");
    let error = run_in(&mut tx, "CREATE USER eve SET PASSWORD 'password-1'").expect_err("mixed");
    assert_eq!(error.status_code(), Status::ForbiddenDueToTransactionType);
    drop(tx);
    // Two administration commands in one transaction commit together.
    let mut tx = db.begin(explicit_as(ROOT)).expect("begin");
    for q in [
        "CREATE USER eve SET PASSWORD 'password-1'",
        "GRANT ROLE reader TO eve",
    ] {
        run_in(&mut tx, q).expect(q);
    }
    let shown = db.transactions();
    assert!(
        shown
            .iter()
            .all(|t| !t.query.as_deref().unwrap_or("").contains("password-1")),
        "{shown:?}"
    );
    tx.commit().expect("commit");
    assert!(db.stored_user("eve").expect("eve").roles.contains("reader"));
}

/// The audit events `db` records from now on.
fn audit_events(db: &Database) -> Arc<Mutex<Vec<AuditEvent>>> {
    let events: Arc<Mutex<Vec<AuditEvent>>> = Arc::default();
    db.set_audit_sink({
        let events = Arc::clone(&events);
        Arc::new(move |e| events.lock().push(e))
    });
    events
}

#[test]
fn committed_changes_reach_the_audit_sink_and_nothing_else_does() {
    let db = Database::open_in_memory(EngineConfig::default());
    secured(&db);
    let events = audit_events(&db);
    ok(&db, ROOT, "CREATE USER ann SET PASSWORD 'password-1'");
    let mut tx = db.begin(explicit_as(ROOT)).expect("begin");
    let id = tx.run("DROP USER ann", Map::new()).expect("drop");
    tx.pull(id, -1, &mut Vec::new()).expect("pull");
    tx.rollback().expect("rollback");
    ok(&db, ROOT, "GRANT ROLE editor TO ann");
    let events = events.lock();
    let actions: Vec<&str> = events.iter().map(|e| e.action).collect();
    assert_eq!(actions, ["create_user", "grant_role"]);
    assert!(events.iter().all(|e| e.user == ROOT && e.target == "ann"));
    assert!(!format!("{events:?}").contains("password-1"));
}

#[test]
fn an_audited_change_names_the_client_whose_transaction_made_it() {
    let db = Database::open_in_memory(EngineConfig::default());
    secured(&db);
    let events = audit_events(&db);
    let client: std::net::SocketAddr = "192.0.2.7:50123".parse().expect("address");
    let mut tx = db
        .begin(TxOptions {
            client: Some(client),
            ..as_user(ROOT)
        })
        .expect("begin");
    let id = tx
        .run("CREATE ROLE auditor", Map::new())
        .expect("create role");
    tx.pull(id, -1, &mut Vec::new()).expect("pull");
    // An embedder that names no client leaves it out.
    ok(&db, ROOT, "DROP ROLE auditor");
    let events = events.lock();
    let seen: Vec<_> = events.iter().map(|e| (e.action, e.client)).collect();
    assert_eq!(seen, [("create_role", Some(client)), ("drop_role", None)]);
}

#[test]
fn users_and_roles_survive_a_restart_from_the_log_and_from_a_snapshot() {
    let dir = tempfile::tempdir().expect("dir");
    {
        let db = Database::open(dir.path(), quiver_engine::Mode::Sync).expect("open");
        secured(&db);
        ok(&db, ROOT, "CREATE ROLE auditor AS COPY OF reader");
        user(&db, "ann", Some("auditor"));
        ok(
            &db,
            ROOT,
            "CREATE USER bob SET PASSWORD 'password-1' SET STATUS SUSPENDED",
        );
    }
    let db = Database::open(dir.path(), quiver_engine::Mode::Sync).expect("reopen");
    let ann = db.stored_user("ann").expect("ann");
    assert!(ann.roles.contains("auditor"));
    assert!(db.stored_user("bob").expect("bob").suspended);
    secured(&db);
    ok(&db, "ann", "MATCH (n) RETURN count(n)");
    db.durability()
        .expect("durable")
        .snapshot()
        .expect("snapshot");
    ok(&db, ROOT, "DROP USER bob");
    drop(db);
    let db = Database::open(dir.path(), quiver_engine::Mode::Sync).expect("reopen");
    assert!(
        db.stored_user("ann")
            .expect("ann")
            .roles
            .contains("auditor")
    );
    assert!(db.stored_user("bob").is_none());
}
