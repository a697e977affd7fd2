//! What the procedure families' tests share: a database assembled as a server assembles one,
//! and statements run on it through the embedded API.

#![allow(dead_code)]

use std::sync::Arc;

use quiver_engine::{Database, EngineConfig, Error};
use quiver_value::{Map, Value};

/// A database with this crate's procedures, as a server assembles one.
pub fn db() -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig::default());
    quiver_procedures::register(&db);
    db
}

/// Parameters from name and value pairs.
pub fn params(entries: &[(&str, Value)]) -> Map {
    entries
        .iter()
        .map(|(k, v)| (Arc::from(*k), v.clone()))
        .collect()
}

/// The rows of `q`, which must succeed.
pub fn run(db: &Database, q: &str) -> Vec<Vec<Value>> {
    db.execute(q, Map::new())
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .rows
}

/// The rows of `q` with parameters `p`, which must succeed.
pub fn run_with(db: &Database, q: &str, p: &[(&str, Value)]) -> Vec<Vec<Value>> {
    db.execute(q, params(p))
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .rows
}

/// The first column of the first row of `q`.
pub fn one(db: &Database, q: &str) -> Value {
    run(db, q).remove(0).remove(0)
}

/// The error of `q`, which must fail.
pub fn fails(db: &Database, q: &str) -> Error {
    match db.execute(q, Map::new()) {
        Ok(r) => panic!("{q} succeeded with {:?}", r.rows),
        Err(e) => e,
    }
}

/// `q` fails with `ProcedureCallFailed`, and the message holds `text` (the argument or key
/// it names).
pub fn call_fails(db: &Database, q: &str, text: &str) {
    let e = fails(db, q);
    assert_eq!(
        e.status_code().code(),
        "Neo.ClientError.Procedure.ProcedureCallFailed",
        "{q}: {e}"
    );
    assert!(e.message().contains(text), "{q}: {e}");
}
