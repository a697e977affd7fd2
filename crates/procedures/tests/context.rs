//! A procedure written outside the engine, against its public procedure API alone, as the
//! families of this crate are: it sees the caller's transaction and settings, runs a
//! statement of its own in the caller's transaction, and counts against the caller's limits.

use std::sync::Arc;

use quiver_engine::procedures::native::{Native, string_value};
use quiver_engine::procedures::nested::Access;
use quiver_engine::{Database, EngineConfig, FieldType, ProcedureContext, Result, TxOptions};
use quiver_value::{Map, Value};

const NAME: &str = "test.context";

/// `test.context(label)`: creates a node of `label` through a nested statement, then reports
/// how many transactions run, whether the caller's is among them, the number of settings,
/// and how many nodes of `label` the caller's transaction now sees.
fn context(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    let label = string_value(NAME, "label", &args[0])?;
    ctx.tick(NAME)?;
    ctx.reserve(NAME, 1024, "a test's buffer")?;
    let created = ctx.run(
        NAME,
        &format!("CREATE (:`{label}`) RETURN 1 AS one"),
        &Map::new(),
        Access::Write,
    )?;
    ctx.release(NAME, 1024)?;
    let seen = ctx.run(
        NAME,
        &format!("MATCH (n:`{label}`) RETURN count(n) AS n"),
        &Map::new(),
        Access::Read,
    )?;
    let running = ctx.transactions();
    Ok(vec![vec![
        Value::Int(created.counters.nodes_created as i64),
        Value::Int(running.len() as i64),
        Value::Int(ctx.settings().len() as i64),
        seen.rows[0][0].clone(),
    ]])
}

fn db() -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig::default());
    db.register_procedure(Arc::new(
        Native::new(NAME, "Exercises the procedure context.", context)
            .input("label", FieldType::String)
            .output("created", FieldType::Integer)
            .output("running", FieldType::Integer)
            .output("settings", FieldType::Integer)
            .output("seen", FieldType::Integer),
    ));
    db
}

#[test]
fn a_procedure_outside_the_engine_reads_and_writes_through_its_context() {
    let db = db();
    let mut tx = db.begin(TxOptions::default()).expect("begin");
    let q = tx
        .run(
            "CALL test.context('Made') YIELD created, running, settings, seen \
             RETURN created, running, settings > 0 AS some, seen",
            Map::new(),
        )
        .expect("run");
    let mut rows = Vec::new();
    tx.pull(q, -1, &mut rows).expect("pull");
    assert_eq!(
        rows,
        vec![vec![
            Value::Int(1),
            Value::Int(1),
            Value::Bool(true),
            Value::Int(1)
        ]],
        "one node made in the caller's transaction, which is the one running and sees it"
    );
    // The write is the caller's: rolled back with it.
    tx.rollback().expect("rollback");
    let after = db
        .execute("MATCH (n:Made) RETURN count(n)", Map::new())
        .expect("count");
    assert_eq!(after.rows, vec![vec![Value::Int(0)]]);
}

#[test]
fn a_procedure_called_with_a_bad_argument_fails_naming_it() {
    let db = db();
    let e = db
        .execute("CALL test.context(null)", Map::new())
        .expect_err("null label");
    assert!(
        e.message().contains(NAME) && e.message().contains("label"),
        "{}",
        e.message()
    );
}
