//! Users and roles through `quiver serve` over Bolt: made in Cypher by the configured
//! administrator, enforced for the users who log in with them (their roles and privileges),
//! and still there after `kill -9` and a restart on the same directory; the audit log records
//! the logins and the changes.

#![cfg(unix)]

use std::net::SocketAddr;
use std::path::Path;
use std::process::Child;

use quiver_lab::client::{ClientError, Connection};
use quiver_value::{Map, Value};

mod common;
use common::login;

const ROOT: (&str, &str) = ("root", "root-password");

/// `quiver serve --auth root/... --data-dir dir --durability sync --audit-log audit`.
fn serve(dir: &Path, audit: &Path) -> (Child, SocketAddr) {
    let (child, bolt, _) = common::spawn(
        common::serve()
            .args([
                "--durability",
                "sync",
                "--auth",
                &format!("{}/{}", ROOT.0, ROOT.1),
            ])
            .arg("--data-dir")
            .arg(dir)
            .arg("--audit-log")
            .arg(audit),
    );
    (child, bolt)
}

/// A connection logged in as the configured administrator, after it has run `statements`,
/// each expected to succeed.
async fn as_root(bolt: SocketAddr, statements: &[&str]) -> Connection {
    let mut root = login(bolt, ROOT.0, ROOT.1).await.expect("root logs in");
    for statement in statements {
        run(&mut root, statement).await.expect(statement);
    }
    root
}

/// Kills the server with SIGKILL, without a chance to flush or snapshot (what it keeps is in
/// its log only), and starts it again on the same directory.
fn kill_and_restart(mut server: Child, dir: &Path, audit: &Path) -> (Child, SocketAddr) {
    server.kill().expect("kill -9");
    server.wait().expect("reaped");
    serve(dir, audit)
}

async fn run(conn: &mut Connection, query: &str) -> Result<Option<Value>, String> {
    conn.query_scalar(query, Map::new())
        .await
        .map_err(|e| match e {
            ClientError::Failure { code, .. } => code,
            other => other.to_string(),
        })
}

#[tokio::test]
async fn users_and_roles_are_enforced_over_bolt_and_survive_kill_9() {
    let dir = tempfile::tempdir().expect("dir");
    let (data, audit) = (dir.path().join("data"), dir.path().join("audit.log"));
    let (server, bolt) = serve(&data, &audit);
    let _root = as_root(
        bolt,
        &[
            "CREATE (:Existing {x: 0})",
            "CREATE ROLE auditor AS COPY OF editor",
            "CREATE USER ann SET PASSWORD 'ann-password' CHANGE NOT REQUIRED",
            "GRANT ROLE auditor TO ann",
            "CREATE USER bob SET PASSWORD 'bob-password' CHANGE NOT REQUIRED",
            "GRANT ROLE reader TO bob",
        ],
    )
    .await;
    let check = |bolt| async move {
        let mut ann = login(bolt, "ann", "ann-password")
            .await
            .expect("ann logs in");
        run(&mut ann, "MATCH (n:Existing) SET n.x = n.x + 1 RETURN n.x")
            .await
            .expect("an editor's copy writes");
        assert_eq!(
            run(&mut ann, "CREATE (:Brand_New)").await,
            Err("Neo.ClientError.Security.Forbidden".to_owned()),
            "but makes no new label"
        );
        let mut bob = login(bolt, "bob", "bob-password")
            .await
            .expect("bob logs in");
        assert_eq!(
            run(&mut bob, "MATCH (n:Existing) RETURN n.x")
                .await
                .map(|_| ()),
            Ok(())
        );
        assert_eq!(
            run(&mut bob, "MATCH (n:Existing) SET n.x = 0").await,
            Err("Neo.ClientError.Security.Forbidden".to_owned()),
            "a reader does not write"
        );
        assert!(login(bolt, "ann", "wrong-password").await.is_err());
    };
    check(bolt).await;
    let (mut server, bolt) = kill_and_restart(server, &data, &audit);
    check(bolt).await;
    let mut root = as_root(bolt, &[]).await;
    let users = run(
        &mut root,
        "SHOW USERS YIELD user RETURN collect(user) AS users",
    )
    .await
    .expect("show users");
    assert_eq!(
        users,
        Some(Value::list(vec![
            Value::from("root"),
            Value::from("ann"),
            Value::from("bob")
        ]))
    );
    // A dropped user's open connection loses access at its next statement.
    let mut bob = login(bolt, "bob", "bob-password")
        .await
        .expect("bob logs in");
    run(&mut root, "DROP USER bob").await.expect("drop");
    assert_eq!(
        run(&mut bob, "RETURN 1").await,
        Err("Neo.ClientError.Security.Unauthorized".to_owned())
    );
    server.kill().expect("kill");
    server.wait().expect("reaped");
    audit_records_logins_and_changes_with_the_client(&audit);
}

/// The audit log has the logins and the changes, each naming the client, and no password.
fn audit_records_logins_and_changes_with_the_client(audit: &Path) {
    let text = std::fs::read_to_string(audit).expect("audit log");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let events: Vec<&str> = lines.iter().filter_map(|l| l["event"].as_str()).collect();
    for event in [
        "login",
        "login_failed",
        "create_role",
        "create_user",
        "grant_role",
        "drop_user",
    ] {
        assert!(events.contains(&event), "{event} in {events:?}");
    }
    let failed = lines
        .iter()
        .find(|l| l["event"] == "login_failed")
        .expect("a failed login");
    assert_eq!(failed["user"], "ann");
    assert_eq!(failed["client"], "127.0.0.1");
    // A change to users and roles names the client whose transaction made it.
    for line in lines.iter().filter(|l| {
        ["create_role", "create_user", "grant_role", "drop_user"]
            .contains(&l["event"].as_str().unwrap_or(""))
    }) {
        assert_eq!(line["client"], "127.0.0.1", "{line}");
    }
    assert!(
        !text.contains("password") && !text.contains("argon2"),
        "{text}"
    );
}

/// Privileges granted and denied in Cypher are kept with the users: after `kill -9` and a
/// restart a denied write, a denied procedure and a granted management privilege still hold.
#[tokio::test]
async fn privileges_are_enforced_over_bolt_and_survive_kill_9() {
    let dir = tempfile::tempdir().expect("dir");
    let (data, audit) = (dir.path().join("data"), dir.path().join("audit.log"));
    let (server, bolt) = serve(&data, &audit);
    let _root = as_root(
        bolt,
        &[
            "CREATE (:Existing {x: 0})-[:LINK]->(:Existing {x: 1})",
            "CREATE ROLE careful AS COPY OF editor",
            "DENY WRITE ON GRAPH * TO careful",
            "DENY EXECUTE PROCEDURE db.labels ON DBMS TO careful",
            "GRANT INDEX MANAGEMENT ON DATABASE * TO careful",
            "CREATE USER cat SET PASSWORD 'cat-password' CHANGE NOT REQUIRED",
            "GRANT ROLE careful TO cat",
        ],
    )
    .await;
    let forbidden = Err("Neo.ClientError.Security.Forbidden".to_owned());
    let check = |bolt| {
        let forbidden = forbidden.clone();
        async move {
            let mut cat = login(bolt, "cat", "cat-password")
                .await
                .expect("cat logs in");
            run(&mut cat, "MATCH (n:Existing) RETURN count(n)")
                .await
                .expect("the graph is still read");
            assert_eq!(
                run(&mut cat, "CREATE (:Existing {x: 2})").await,
                forbidden,
                "but not written"
            );
            assert_eq!(run(&mut cat, "CALL db.labels()").await, forbidden);
            run(
                &mut cat,
                "CREATE INDEX existing_x IF NOT EXISTS FOR (n:Existing) ON (n.x)",
            )
            .await
            .expect("indexes are managed");
        }
    };
    check(bolt).await;
    let (mut server, bolt) = kill_and_restart(server, &data, &audit);
    check(bolt).await;
    let mut root = as_root(bolt, &[]).await;
    let denied = run(
        &mut root,
        "SHOW ROLE careful PRIVILEGES YIELD access WHERE access = 'DENIED' RETURN count(*)",
    )
    .await
    .expect("show privileges");
    // `WRITE` on nodes and on relationships, and the procedure.
    assert_eq!(denied, Some(Value::Int(3)));
    server.kill().expect("kill");
    server.wait().expect("reaped");
    let text = std::fs::read_to_string(&audit).expect("audit log");
    assert!(text.contains("deny_privilege") && text.contains("grant_privilege"));
}
