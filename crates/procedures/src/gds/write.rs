//! Writing results back to the store (node properties, or relationships between similar
//! nodes): batches of [`WRITE_BATCH`] rows, each batch a write transaction of its own committed
//! before the procedure goes on, up to `concurrency` batches at once on threads of their own. Each batch is an ordinary statement, so the
//! caller's privileges, constraints and the commit log apply to it as to any write.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use quiver_engine::Result;
use quiver_engine::procedures::ProcedureContext;
use quiver_engine::procedures::native::escape;
use quiver_value::{Map, Value};

use super::config::failed;

/// The nodes one write transaction sets.
pub(crate) const WRITE_BATCH: usize = 10_000;

/// Sets property `key` of each node `ids[i]` to `value(i)`. A batch's rows are made when the
/// batch runs, so only the batches running at once are held.
pub(crate) fn node_property(
    ctx: &ProcedureContext<'_>,
    procedure: &str,
    concurrency: usize,
    ids: &[u64],
    key: &str,
    value: &(dyn Fn(usize) -> Value + Sync),
) -> Result<()> {
    let statement = format!(
        "UNWIND $rows AS row MATCH (n) WHERE id(n) = row[0] SET n.{} = row[1]",
        escape(key)
    );
    let rows = |range: std::ops::Range<usize>| -> Vec<Value> {
        range
            .map(|i| Value::from(vec![Value::Int(ids[i] as i64), value(i)]))
            .collect()
    };
    batches(ctx, procedure, concurrency, &statement, ids.len(), &rows)
}

/// Creates a relationship of type `rel_type` from each pair's first node to its second, with
/// property `key` set to the pair's value.
pub(crate) fn relationships(
    ctx: &ProcedureContext<'_>,
    procedure: &str,
    concurrency: usize,
    pairs: &[(u64, u64, f64)],
    rel_type: &str,
    key: &str,
) -> Result<()> {
    let statement = format!(
        "UNWIND $rows AS row MATCH (a) WHERE id(a) = row[0] MATCH (b) WHERE id(b) = row[1] \
         CREATE (a)-[:{} {{{}: row[2]}}]->(b)",
        escape(rel_type),
        escape(key)
    );
    let rows = |range: std::ops::Range<usize>| -> Vec<Value> {
        pairs[range]
            .iter()
            .map(|(a, b, v)| {
                Value::from(vec![
                    Value::Int(*a as i64),
                    Value::Int(*b as i64),
                    Value::Float(*v),
                ])
            })
            .collect()
    };
    batches(ctx, procedure, concurrency, &statement, pairs.len(), &rows)
}

/// Creates a relationship of type `rel_type` from each row's first node to its second, with
/// the row's properties.
pub(crate) fn relationships_with_properties(
    ctx: &ProcedureContext<'_>,
    procedure: &str,
    concurrency: usize,
    rows: &[(u64, u64, Map)],
    rel_type: &str,
) -> Result<()> {
    let statement = format!(
        "UNWIND $rows AS row MATCH (a) WHERE id(a) = row[0] MATCH (b) WHERE id(b) = row[1] \
         CREATE (a)-[r:{}]->(b) SET r = row[2]",
        escape(rel_type)
    );
    let make = |range: std::ops::Range<usize>| -> Vec<Value> {
        rows[range]
            .iter()
            .map(|(a, b, props)| {
                Value::from(vec![
                    Value::Int(*a as i64),
                    Value::Int(*b as i64),
                    Value::map(props.clone()),
                ])
            })
            .collect()
    };
    batches(ctx, procedure, concurrency, &statement, rows.len(), &make)
}

/// Runs `statement` over `count` rows in batches of [`WRITE_BATCH`] (`$rows` each batch's,
/// made by `rows` when the batch runs), each batch a committed transaction of its own, up to
/// `concurrency` at once.
fn batches(
    ctx: &ProcedureContext<'_>,
    procedure: &str,
    concurrency: usize,
    statement: &str,
    count: usize,
    rows: &(dyn Fn(std::ops::Range<usize>) -> Vec<Value> + Sync),
) -> Result<()> {
    let batches = count.div_ceil(WRITE_BATCH);
    let batch = |b: usize| -> Map {
        let range = b * WRITE_BATCH..((b + 1) * WRITE_BATCH).min(count);
        Map::from_iter([(Arc::from("rows"), Value::from(rows(range)))])
    };
    if concurrency <= 1 || batches <= 1 {
        for b in 0..batches {
            ctx.run_committed(procedure, statement, &[batch(b)])?;
        }
        return Ok(());
    }
    let workers = ctx.workers(procedure)?;
    let next = AtomicUsize::new(0);
    let results: Vec<Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..concurrency.min(batches))
            .map(|_| {
                scope.spawn(|| -> Result<()> {
                    loop {
                        let b = next.fetch_add(1, Ordering::Relaxed);
                        if b >= batches {
                            return Ok(());
                        }
                        workers.run_committed(procedure, statement, &[batch(b)])?;
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(failed(procedure, "a write batch panicked")))
            })
            .collect()
    });
    results.into_iter().collect()
}
