//! What the engine's tests share: running a statement (as a user, or as the embedder) and
//! reading its plan's operators, and making users and roles.

#![allow(dead_code)]

pub mod recording_log;

use std::sync::Arc;

use quiver_engine::security::Level;
use quiver_engine::{Authentication, Database, PlanDescription, TxOptions};

use quiver_status::Status;
use quiver_value::{Map, Value};

/// The configured administrator.
pub const ROOT: &str = "root";

/// Turns authentication on with [`ROOT`] as the configured administrator.
pub fn secured(db: &Database) {
    db.set_authentication(Some(Authentication {
        configured: [(ROOT.to_owned(), Level::Admin)].into(),
    }));
}

/// Runs `query` as `user` with `params` in an auto-commit transaction: its rows, or the
/// error's status and message.
pub fn run_with(
    db: &Database,
    user: &str,
    query: &str,
    params: &[(&str, Value)],
) -> Result<Vec<Vec<Value>>, (Status, String)> {
    let options = TxOptions {
        user: Some(Arc::from(user)),
        ..TxOptions::auto_commit()
    };
    let fail = |e: quiver_engine::Error| (e.status_code(), e.message());
    let params: Map = params
        .iter()
        .map(|(k, v)| ((*k).into(), v.clone()))
        .collect();
    let mut tx = db.begin(options).map_err(fail)?;
    let q = tx.run(query, params).map_err(fail)?;
    let mut rows = Vec::new();
    tx.pull(q, -1, &mut rows).map_err(fail)?;
    tx.commit().map_err(fail)?;
    Ok(rows)
}

/// The message of the error `query` fails with, which must be a constraint's violation
/// (`ConstraintValidationFailed`).
pub fn violation(db: &Database, query: &str) -> String {
    let e = db
        .execute(query, Map::new())
        .err()
        .unwrap_or_else(|| panic!("{query} succeeded"));
    assert_eq!(
        e.status_code(),
        "Neo.ClientError.Schema.ConstraintValidationFailed",
        "{query}: {e}"
    );
    e.message()
}

/// [`run_with`] without parameters.
pub fn run_as(db: &Database, user: &str, query: &str) -> Result<Vec<Vec<Value>>, (Status, String)> {
    run_with(db, user, query, &[])
}

/// The rows of `query` run as `user`, which must succeed.
pub fn ok(db: &Database, user: &str, query: &str) -> Vec<Vec<Value>> {
    run_as(db, user, query).unwrap_or_else(|e| panic!("{user}: {query}: {e:?}"))
}

/// Makes user `name` (password `password-1`, no change required), granted `role` if given.
pub fn user(db: &Database, name: &str, role: Option<&str>) {
    ok(
        db,
        ROOT,
        &format!("CREATE USER {name} SET PASSWORD 'password-1' CHANGE NOT REQUIRED"),
    );
    if let Some(role) = role {
        ok(db, ROOT, &format!("GRANT ROLE {role} TO {name}"));
    }
}

/// Runs `query` as `user`, which must fail `Forbidden` naming `what`.
pub fn forbidden(db: &Database, user: &str, query: &str, what: &str) {
    let (status, message) = run_as(db, user, query).expect_err(query);
    assert_eq!(status, Status::Forbidden, "{user}: {query}: {message}");
    assert!(message.contains(what), "{user}: {query}: {message}");
}

/// A role made of `commands` (`{r}` stands for its name), copied from `base` when given, and
/// a user of the same name holding it.
pub fn role(db: &Database, name: &str, base: Option<&str>, commands: &[&str]) {
    let create = match base {
        Some(base) => format!("CREATE ROLE {name} AS COPY OF {base}"),
        None => format!("CREATE ROLE {name}"),
    };
    ok(db, ROOT, &create);
    for command in commands {
        ok(db, ROOT, &command.replace("{r}", name));
    }
    ok(
        db,
        ROOT,
        &format!("CREATE USER {name} SET PASSWORD 'password-1' CHANGE NOT REQUIRED"),
    );
    ok(db, ROOT, &format!("GRANT ROLE {name} TO {name}"));
}

/// A string value as text.
pub fn text(value: &Value) -> String {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value:?}"))
        .to_owned()
}

/// The rows of `query` run by the embedder, which must succeed.
pub fn rows(db: &Database, query: &str) -> Vec<Vec<Value>> {
    db.execute(query, Map::new())
        .unwrap_or_else(|e| panic!("{query}: {e}"))
        .rows
}

/// Each operator of `query`'s plan with its details, parents before children.
pub fn plan(db: &Database, query: &str) -> Vec<String> {
    fn operators(p: &PlanDescription, out: &mut Vec<String>) {
        out.push(format!("{} {}", p.operator, p.details));
        for c in &p.children {
            operators(c, out);
        }
    }
    let r = db
        .execute(&format!("EXPLAIN {query}"), Map::new())
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    let mut ops = Vec::new();
    operators(&r.summary.plan.expect("a plan"), &mut ops);
    ops
}
