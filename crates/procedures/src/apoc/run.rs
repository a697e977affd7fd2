//! Procedures that run Cypher given as text (`apoc.cypher.run`, `apoc.when`, `apoc.do.*`,
//! `apoc.periodic.*`) and the `apoc.util` procedures.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_value::{Map, Value};

use quiver_engine::Counters;
use quiver_engine::procedures::native::java_format;
use quiver_engine::procedures::native::{
    Native, arg, bad_arg, call_failed, config_bool, config_int, escape, list_of, map_arg,
    map_value, native, record, string_value,
};
use quiver_engine::procedures::nested::{Access, Outcome, Workers};
use quiver_engine::procedures::{Field, FieldType, ProcedureContext};
use quiver_engine::{Error, Result};

pub(super) fn procedures() -> Vec<Native> {
    use FieldType::{Any, Map as M, String as S};
    let value = &[("value", M)];
    vec![
        native(
            "apoc.cypher.run",
            vec![arg("statement", S), arg("params", M)],
            value,
            false,
            cypher_run,
        ),
        native(
            "apoc.cypher.doIt",
            vec![arg("statement", S), arg("params", M)],
            value,
            true,
            cypher_do_it,
        ),
        native("apoc.when", when_args(), value, false, when),
        native("apoc.do.when", when_args(), value, true, do_when),
        native(
            "apoc.do.case",
            vec![
                arg("conditionals", list_of(Any)),
                else_query(),
                map_arg("params"),
            ],
            value,
            true,
            do_case,
        ),
    ]
    .into_iter()
    .chain(periodic_and_util())
    .collect()
}

fn periodic_and_util() -> Vec<Native> {
    use FieldType::{Any, Boolean, Integer, Map as M, String as S};
    vec![
        native(
            "apoc.periodic.iterate",
            vec![
                arg("cypherIterate", S),
                arg("cypherAction", S),
                arg("config", M),
            ],
            &[
                ("batches", Integer),
                ("total", Integer),
                ("timeTaken", Integer),
                ("committedOperations", Integer),
                ("failedOperations", Integer),
                ("failedBatches", Integer),
                ("retries", Integer),
                ("errorMessages", M),
                ("batch", M),
                ("operations", M),
                ("wasTerminated", Boolean),
                ("failedParams", M),
                ("updateStatistics", M),
            ],
            true,
            periodic_iterate,
        ),
        native(
            "apoc.periodic.commit",
            vec![arg("statement", S), map_arg("params")],
            &[
                ("updates", Integer),
                ("executions", Integer),
                ("runtime", Integer),
                ("batches", Integer),
                ("failedBatches", Integer),
                ("batchErrors", M),
                ("failedCommits", Integer),
                ("commitErrors", M),
                ("wasTerminated", Boolean),
            ],
            true,
            periodic_commit,
        ),
        native(
            "apoc.util.sleep",
            vec![arg("duration", Integer)],
            &[],
            false,
            sleep,
        ),
        native(
            "apoc.util.validate",
            vec![
                arg("predicate", Boolean),
                arg("message", S),
                arg("params", list_of(Any)),
            ],
            &[],
            false,
            validate,
        ),
    ]
}

/// One row per result row, each as a map under `value`.
fn value_rows(out: &Outcome) -> Vec<Vec<Value>> {
    out.maps().into_iter().map(|m| vec![m]).collect()
}

fn cypher_run(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    cypher(ctx, args, "apoc.cypher.run", Access::Read)
}

fn cypher_do_it(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    cypher(ctx, args, "apoc.cypher.doIt", Access::Write)
}

/// `apoc.cypher.run` and `doIt`: the statement in the caller's transaction, a row per result
/// row under `value`.
fn cypher(
    ctx: &ProcedureContext<'_>,
    args: &[Value],
    name: &str,
    access: Access,
) -> Result<Vec<Vec<Value>>> {
    let statement = string_value(name, "statement", &args[0])?;
    let params = map_value(name, "params", &args[1])?;
    Ok(value_rows(&ctx.run(name, statement, &params, access)?))
}

/// Runs `query` (an empty one yields one empty map, as APOC's does).
fn branch(
    ctx: &ProcedureContext<'_>,
    name: &str,
    query: &str,
    params: &Map,
    access: Access,
) -> Result<Vec<Vec<Value>>> {
    if query.trim().is_empty() {
        return Ok(vec![vec![Value::map(Map::new())]]);
    }
    Ok(value_rows(&ctx.run(name, query, params, access)?))
}

fn conditional(
    ctx: &ProcedureContext<'_>,
    args: &[Value],
    name: &str,
    access: Access,
) -> Result<Vec<Vec<Value>>> {
    let condition = args[0].as_bool().unwrap_or(false);
    let if_query = string_value(name, "ifQuery", &args[1])?;
    let else_query = match &args[2] {
        Value::Null => "",
        v => string_value(name, "elseQuery", v)?,
    };
    let params = map_value(name, "params", &args[3])?;
    let query = if condition { if_query } else { else_query };
    branch(ctx, name, query, &params, access)
}

fn when(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    conditional(ctx, args, "apoc.when", Access::Read)
}

fn do_when(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    conditional(ctx, args, "apoc.do.when", Access::Write)
}

/// `conditionals` alternates conditions and queries; the first true condition's query runs,
/// else `elseQuery`.
fn do_case(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.do.case";
    let Value::List(items) = &args[0] else {
        return Err(bad_arg(NAME, "conditionals", "must be a list, got null"));
    };
    if items.len() % 2 != 0 {
        return Err(bad_arg(
            NAME,
            "conditionals",
            "must alternate conditions and queries: it has an odd number of elements",
        ));
    }
    let params = map_value(NAME, "params", &args[2])?;
    for pair in items.chunks(2) {
        let condition = match &pair[0] {
            Value::Bool(b) => *b,
            Value::Null => false,
            other => {
                return Err(bad_arg(
                    NAME,
                    "conditionals",
                    format!(
                        "must have booleans at even positions, got {}",
                        other.value_type().name()
                    ),
                ));
            }
        };
        if condition {
            let query = string_value(NAME, "conditionals", &pair[1])?;
            return branch(ctx, NAME, query, &params, Access::Write);
        }
    }
    let else_query = match &args[1] {
        Value::Null => "",
        v => string_value(NAME, "elseQuery", v)?,
    };
    branch(ctx, NAME, else_query, &params, Access::Write)
}

/// Errors that end the whole call rather than one batch: the caller's query was cancelled,
/// ran out of time or memory.
fn ends_the_call(e: &Error) -> bool {
    matches!(
        e,
        Error::Terminated(_)
            | Error::TimedOut { .. }
            | Error::MemoryLimit { .. }
            | Error::MemoryPool { .. }
    )
}

/// Whether a failed batch may succeed when tried again.
fn retryable(e: &Error) -> bool {
    e.is_retryable()
        || matches!(
            e,
            Error::Storage(quiver_storage::Error::WriteConflict { .. })
        )
}

/// How `apoc.periodic.iterate` hands the outer rows to the inner statement.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BatchMode {
    /// The inner statement runs once per batch, the rows unwound into variables named for
    /// the outer columns.
    Batch,
    /// The inner statement runs once per batch and reads the rows itself from `$_batch`.
    BatchSingle,
    /// The inner statement runs once per row, the row's columns as parameters.
    Single,
}

/// Counts kept across the batches of a periodic procedure.
#[derive(Default)]
struct Tally {
    batches: i64,
    failed_batches: i64,
    committed_ops: i64,
    failed_ops: i64,
    retries: i64,
    errors: BTreeMap<String, i64>,
    counters: Counters,
}

impl Tally {
    fn errors(&self) -> Value {
        Value::map(
            self.errors
                .iter()
                .map(|(k, v)| (Arc::from(k.as_str()), Value::Int(*v)))
                .collect(),
        )
    }
}

/// Runs one batch (the statement once per parameter map) in its own transaction, trying a
/// retryable failure again up to `retries` times (100 ms apart, as APOC does). The outcome on
/// success, `None` when it failed (its error counted in the tally); an error that ends the
/// call is returned as such.
fn batch(
    ctx: &ProcedureContext<'_>,
    name: &str,
    statement: &str,
    runs: &[Map],
    retries: i64,
    tally: &mut Tally,
) -> Result<Option<Outcome>> {
    let run = attempts(
        || ctx.run_committed(name, statement, runs),
        || ctx.pause(name, RETRY_PAUSE),
        retries,
    )?;
    Ok(tally.add(run))
}

/// How long a periodic procedure waits before trying a failed batch again, as APOC does.
const RETRY_PAUSE: Duration = Duration::from_millis(100);

/// What one batch of a periodic procedure did, before it is tallied.
struct BatchRun {
    /// `Ok` with the outcome when it committed, else the message of its last error.
    result: std::result::Result<Outcome, String>,
    retries: i64,
}

/// Runs a batch with `run` (a transaction of its own each time), trying a retryable failure
/// again up to `retries` times after `wait`. An error that ends the whole call is returned
/// as such.
fn attempts(
    run: impl Fn() -> Result<Outcome>,
    wait: impl Fn() -> Result<()>,
    retries: i64,
) -> Result<BatchRun> {
    let mut attempt = 0;
    loop {
        match run() {
            Ok(outcome) => {
                return Ok(BatchRun {
                    result: Ok(outcome),
                    retries: attempt,
                });
            }
            Err(e) if ends_the_call(&e) => return Err(e),
            Err(e) if attempt < retries && retryable(&e) => {
                attempt += 1;
                wait()?;
            }
            Err(e) => {
                return Ok(BatchRun {
                    result: Err(e.message()),
                    retries: attempt,
                });
            }
        }
    }
}

impl Tally {
    /// Counts a batch's retries, error or update counters; its outcome when it committed.
    fn add(&mut self, run: BatchRun) -> Option<Outcome> {
        self.retries += run.retries;
        match run.result {
            Ok(outcome) => {
                self.counters.add(&outcome.counters);
                Some(outcome)
            }
            Err(message) => {
                *self.errors.entry(message).or_insert(0) += 1;
                None
            }
        }
    }
}

/// `apoc.periodic.iterate(outer, inner, config)`: reads `outer` in the caller's transaction a
/// batch of `batchSize` rows at a time and runs `inner` over each batch in a transaction of
/// its own. A failed batch is rolled back and counted; the others stay committed. The caller's
/// transaction does not see the batches' writes (it began before them), as in Neo4j.
///
/// One after another by default, each batch committed before the next is read. With
/// `parallel: true`, up to `concurrency` batches (default: the machine's cores, at most 64)
/// are read, then run at once on worker threads, each in its own transaction, as
/// `CALL { } IN CONCURRENT TRANSACTIONS` runs its batches; the next group is read once the
/// whole group is done. Batches that touch the same nodes may then conflict: a conflict is
/// retryable, so `retries` tries such a batch again.
fn periodic_iterate(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.periodic.iterate";
    let started = Instant::now();
    let outer = string_value(NAME, "cypherIterate", &args[0])?;
    let inner = string_value(NAME, "cypherAction", &args[1])?;
    let config = map_value(NAME, "config", &args[2])?;
    let IterateConfig {
        batch_size,
        retries,
        params,
        mode,
        concurrency,
    } = IterateConfig::read(&config, inner)?;
    let mut rows = ctx.open(NAME, outer, &params)?;
    let statement = match mode {
        BatchMode::Batch if rows.columns().is_empty() => inner.to_owned(),
        BatchMode::Batch => {
            let columns: Vec<String> = rows
                .columns()
                .iter()
                .map(|c| format!("_batch.{0} AS {0}", escape(c)))
                .collect();
            format!(
                "UNWIND $_batch AS _batch WITH {} {inner}",
                columns.join(", ")
            )
        }
        BatchMode::BatchSingle | BatchMode::Single => inner.to_owned(),
    };
    let workers = match concurrency {
        Some(_) => Some(ctx.workers(NAME)?),
        None => None,
    };
    let mut tally = Tally::default();
    let mut total = 0i64;
    loop {
        // The next group of batches: one, or up to `concurrency` when parallel.
        let mut group: Vec<(Vec<Map>, i64)> = Vec::new();
        while group.len() < concurrency.unwrap_or(1) {
            let chunk = rows.next_maps(batch_size)?;
            if chunk.is_empty() {
                break;
            }
            let n = chunk.len() as i64;
            group.push((batch_runs(&params, mode, total, chunk), n));
            total += n;
        }
        if group.is_empty() {
            break;
        }
        let runs: Vec<BatchRun> = match &workers {
            Some(workers) if group.len() > 1 => parallel(workers, &statement, &group, retries)?,
            _ => {
                let mut done = Vec::with_capacity(group.len());
                for (runs, _) in &group {
                    done.push(attempts(
                        || ctx.run_committed(NAME, &statement, runs),
                        || ctx.pause(NAME, RETRY_PAUSE),
                        retries,
                    )?);
                }
                done
            }
        };
        for (run, (_, n)) in runs.into_iter().zip(&group) {
            tally.batches += 1;
            if tally.add(run).is_some() {
                tally.committed_ops += n;
            } else {
                tally.failed_batches += 1;
                tally.failed_ops += n;
            }
        }
    }
    Ok(vec![iterate_row(&tally, total, started)])
}

/// The parameter maps one batch runs its statement with: the batch whole under `$_batch`
/// (once), or each row's columns (once per row, `SINGLE`); `$_count` is the number of rows
/// before the batch.
fn batch_runs(params: &Map, mode: BatchMode, before: i64, chunk: Vec<Value>) -> Vec<Map> {
    let mut p = params.clone();
    p.insert(Arc::from("_count"), Value::Int(before));
    match mode {
        BatchMode::Batch | BatchMode::BatchSingle => {
            p.insert(Arc::from("_batch"), Value::from(chunk));
            vec![p]
        }
        // One transaction per batch, the statement run once per row inside it with the
        // row's columns as parameters.
        BatchMode::Single => chunk
            .iter()
            .map(|row| {
                let mut rp = p.clone();
                if let Value::Map(m) = row {
                    rp.extend(m.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                rp
            })
            .collect(),
    }
}

/// Runs a group of batches at once, each on a worker thread of its own in its own
/// transaction; their results in batch order. An error that ends the call (the query was
/// cancelled, timed out or ran out of memory) is returned once every worker is done.
fn parallel(
    workers: &Workers,
    statement: &str,
    group: &[(Vec<Map>, i64)],
    retries: i64,
) -> Result<Vec<BatchRun>> {
    const NAME: &str = "apoc.periodic.iterate";
    let wait = || -> Result<()> {
        let until = Instant::now() + RETRY_PAUSE;
        loop {
            workers.check()?;
            let now = Instant::now();
            if now >= until {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(10).min(until - now));
        }
    };
    let results: Vec<Result<BatchRun>> = std::thread::scope(|scope| {
        let handles: Vec<_> = group
            .iter()
            .map(|(runs, _)| {
                scope.spawn(move || {
                    attempts(
                        || workers.run_committed(NAME, statement, runs),
                        wait,
                        retries,
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Ok(BatchRun {
                        result: Err("a parallel batch of apoc.periodic.iterate panicked".to_owned()),
                        retries: 0,
                    })
                })
            })
            .collect()
    });
    results.into_iter().collect()
}

/// `apoc.periodic.iterate`'s configuration.
struct IterateConfig {
    batch_size: usize,
    retries: i64,
    params: Arc<Map>,
    mode: BatchMode,
    /// With `parallel: true`, how many batches run at once.
    concurrency: Option<usize>,
}

/// The most batches `apoc.periodic.iterate` runs at once, as for `IN CONCURRENT
/// TRANSACTIONS`: each holds a thread and a transaction.
const CONCURRENCY_MAX: usize = 64;

impl IterateConfig {
    fn read(config: &Map, inner: &str) -> Result<IterateConfig> {
        const NAME: &str = "apoc.periodic.iterate";
        let batch_size = config_int(NAME, config, "batchSize", 10_000)?;
        let batch_size = usize::try_from(batch_size)
            .ok()
            .filter(|b| *b >= 1)
            .ok_or_else(|| {
                bad_arg(
                    NAME,
                    "config",
                    format!("has batchSize {batch_size}: it must be at least 1"),
                )
            })?;
        let retries = config_int(NAME, config, "retries", 0)?.max(0);
        let parallel = config_bool(NAME, config, "parallel", false)?;
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let concurrency = config_int(NAME, config, "concurrency", cores as i64)?;
        if concurrency < 1 {
            return Err(bad_arg(
                NAME,
                "config",
                format!("has concurrency {concurrency}: it must be at least 1"),
            ));
        }
        let concurrency = parallel.then(|| {
            usize::try_from(concurrency).map_or(CONCURRENCY_MAX, |c| c.min(CONCURRENCY_MAX))
        });
        let iterate_list = config_bool(NAME, config, "iterateList", true)?;
        let params = map_value(
            NAME,
            "config.params",
            config.get("params").unwrap_or(&Value::Null),
        )?;
        let mode = match config.get("batchMode") {
            None | Some(Value::Null) if !iterate_list => BatchMode::Single,
            None | Some(Value::Null) => BatchMode::Batch,
            Some(Value::String(m)) if m.eq_ignore_ascii_case("BATCH") => BatchMode::Batch,
            Some(Value::String(m)) if m.eq_ignore_ascii_case("BATCH_SINGLE") => {
                BatchMode::BatchSingle
            }
            Some(Value::String(m)) if m.eq_ignore_ascii_case("SINGLE") => BatchMode::Single,
            Some(other) => {
                return Err(bad_arg(
                    NAME,
                    "config",
                    format!(
                        "has batchMode {}: expected 'BATCH', 'BATCH_SINGLE' or 'SINGLE'",
                        quiver_value::to_cypher_literal(other)
                    ),
                ));
            }
        };
        // A statement that reads `$_batch` itself gets the batch whole.
        let mode = if mode == BatchMode::Batch && inner.contains("$_batch") {
            BatchMode::BatchSingle
        } else {
            mode
        };
        Ok(IterateConfig {
            batch_size,
            retries,
            params,
            mode,
            concurrency,
        })
    }
}

/// `apoc.periodic.iterate`'s one result row.
fn iterate_row(tally: &Tally, total: i64, started: Instant) -> Vec<Value> {
    let errors = tally.errors();
    let c = &tally.counters;
    let stat = |v: u64| Value::Int(i64::try_from(v).unwrap_or(i64::MAX));
    vec![
        Value::Int(tally.batches),
        Value::Int(total),
        Value::Int(started.elapsed().as_secs() as i64),
        Value::Int(tally.committed_ops),
        Value::Int(tally.failed_ops),
        Value::Int(tally.failed_batches),
        Value::Int(tally.retries),
        errors.clone(),
        record(vec![
            ("total", Value::Int(tally.batches)),
            (
                "committed",
                Value::Int(tally.batches - tally.failed_batches),
            ),
            ("failed", Value::Int(tally.failed_batches)),
            ("errors", errors.clone()),
        ]),
        record(vec![
            ("total", Value::Int(total)),
            ("committed", Value::Int(tally.committed_ops)),
            ("failed", Value::Int(tally.failed_ops)),
            ("errors", errors),
        ]),
        Value::Bool(false),
        Value::map(Map::new()),
        record(vec![
            ("relationshipsDeleted", stat(c.relationships_deleted)),
            ("relationshipsCreated", stat(c.relationships_created)),
            ("nodesDeleted", stat(c.nodes_deleted)),
            ("nodesCreated", stat(c.nodes_created)),
            ("labelsRemoved", stat(c.labels_removed)),
            ("labelsAdded", stat(c.labels_added)),
            ("propertiesSet", stat(c.properties_set)),
        ]),
    ]
}

/// `apoc.periodic.commit(statement, params)`: runs `statement` (which must have a `LIMIT` and
/// return a count first) in a transaction of its own, again and again, until it returns 0.
/// It stops at the first failed run, which it reports.
fn periodic_commit(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.periodic.commit";
    let started = Instant::now();
    let statement = string_value(NAME, "statement", &args[0])?;
    if !statement.to_ascii_lowercase().contains("limit") {
        return Err(bad_arg(
            NAME,
            "statement",
            "must contain a LIMIT: it runs until the statement returns 0",
        ));
    }
    let params = map_value(NAME, "params", &args[1])?;
    let mut tally = Tally::default();
    let mut updates = 0i64;
    loop {
        tally.batches += 1;
        let runs = [(*params).clone()];
        let Some(out) = batch(ctx, NAME, statement, &runs, 0, &mut tally)? else {
            tally.failed_batches += 1;
            break;
        };
        let count = match out.rows.first().and_then(|r| r.first()) {
            Some(Value::Int(n)) => *n,
            Some(Value::Float(f)) => *f as i64,
            _ => 0,
        };
        updates += count;
        if count <= 0 {
            break;
        }
    }
    Ok(vec![vec![
        Value::Int(updates),
        Value::Int(tally.batches),
        Value::Int(i64::try_from(started.elapsed().as_nanos()).unwrap_or(i64::MAX)),
        Value::Int(tally.batches),
        Value::Int(tally.failed_batches),
        tally.errors(),
        Value::Int(0),
        Value::map(Map::new()),
        Value::Bool(false),
    ]])
}

fn sleep(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.util.sleep";
    let ms = match &args[0] {
        Value::Int(ms) if *ms >= 0 => *ms as u64,
        Value::Int(ms) => {
            return Err(bad_arg(
                NAME,
                "duration",
                format!("must not be negative, got {ms}"),
            ));
        }
        _ => {
            return Err(bad_arg(
                NAME,
                "duration",
                "must be a number of milliseconds, got null",
            ));
        }
    };
    ctx.pause(NAME, Duration::from_millis(ms))?;
    Ok(Vec::new())
}

/// `apoc.util.validate(predicate, message, params)`: fails with `message` (formatted with
/// `params` as Java's `String.format` does) when `predicate` is true.
fn validate(_: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.util.validate";
    if args[0].as_bool() != Some(true) {
        return Ok(Vec::new());
    }
    let message = match &args[1] {
        Value::Null => String::new(),
        v => string_value(NAME, "message", v)?.to_owned(),
    };
    let params: Vec<Value> = args[2].as_list().map(<[Value]>::to_vec).unwrap_or_default();
    let text = java_format(&message, &params).unwrap_or(message);
    Err(call_failed(NAME, text))
}

/// The arguments of `apoc.when` and `apoc.do.when`: the condition, the statement run when it
/// holds, the one run otherwise, and their parameters.
fn when_args() -> Vec<Field> {
    vec![
        arg("condition", FieldType::Boolean),
        arg("ifQuery", FieldType::String),
        else_query(),
        map_arg("params"),
    ]
}

/// The statement run when no condition holds: none by default.
fn else_query() -> Field {
    Field::optional("elseQuery", FieldType::String, Value::from(""))
}
