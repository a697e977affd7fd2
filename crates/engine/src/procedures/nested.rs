//! Statements a procedure runs: inside the calling query's transaction (`apoc.cypher.run`,
//! `apoc.merge.node`, ...) or in a transaction of their own that commits before the next
//! begins (each batch of `apoc.periodic.iterate` and `apoc.periodic.commit`).
//!
//! A nested statement is compiled and planned like a client's (and shares the plan cache), and
//! runs under the caller's limits: the caller's cancel flag and deadline, and the caller's
//! memory: the nested statement counts against the room the caller's query holds and the
//! query memory limit, so it cannot take more than the query could itself. Its update
//! counters are the caller's when it runs in the caller's transaction.

use std::cell::RefMut;
use std::sync::Arc;

use quiver_storage::Transaction as StorageTx;
use quiver_value::{Map, Value};

use crate::error::{Error, Result};
use crate::eval::{BoxCursor, Cx, Row, row_bytes};
use crate::exec;
use crate::exec::transactions::{begin_batch, commit_batch};
use crate::ir::Compiled;
use crate::state::DatabaseState;
use crate::summary::Counters;
use crate::transaction;

use super::ProcedureContext;
use super::native::call_failed;

/// Whether a nested statement may change the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// What a nested statement produced.
#[derive(Debug, Default)]
pub struct Outcome {
    pub columns: Vec<Arc<str>>,
    /// Values in `columns` order; nodes and relationships as ids, as inside any query.
    pub rows: Vec<Vec<Value>>,
    pub counters: Counters,
}

impl Outcome {
    /// Each row as a map of column to value (`apoc.cypher.run`'s `value`).
    pub fn maps(&self) -> Vec<Value> {
        self.rows
            .iter()
            .map(|row| {
                Value::map(
                    self.columns
                        .iter()
                        .cloned()
                        .zip(row.iter().cloned())
                        .collect::<Map>(),
                )
            })
            .collect()
    }
}

impl<'a> ProcedureContext<'a> {
    /// The calling query; fails for a procedure called outside one.
    pub(crate) fn caller(&self, name: &str) -> Result<RefMut<'_, &'a mut Cx>> {
        self.query
            .as_ref()
            .map(std::cell::RefCell::borrow_mut)
            .ok_or_else(|| call_failed(name, "it runs only inside a query"))
    }

    /// Runs `statement` with `params` in the caller's transaction. `name` is the procedure's,
    /// for errors. Writes are counted in the caller's update counters and made visible to
    /// what the caller reads next.
    pub fn run(
        &self,
        name: &str,
        statement: &str,
        params: &Map,
        access: Access,
    ) -> Result<Outcome> {
        let mut caller = self.caller(name)?;
        let tx = caller.tx.clone();
        let outcome = run_in(&mut caller, tx, name, statement, params, access)?;
        caller.counters.add(&outcome.counters);
        if outcome.counters.contains_updates() {
            caller.advance()?;
        }
        Ok(outcome)
    }

    /// Runs `statement` once per parameter map, in order, in one write transaction of its
    /// own, and commits it (waiting for the commit log to acknowledge it, as an embedding
    /// program's commit does). On failure the transaction is rolled back and the error
    /// returned; the caller's transaction is not touched either way. The outcome holds the
    /// last run's rows and every run's counters.
    pub fn run_committed(&self, name: &str, statement: &str, runs: &[Map]) -> Result<Outcome> {
        let mut caller = self.caller(name)?;
        committed(&mut caller, name, statement, runs)
    }

    /// Counts one step of a long-running procedure and fails if the calling query was
    /// cancelled or ran out of time; `name` is the procedure's, for errors.
    pub fn tick(&self, name: &str) -> Result<()> {
        self.caller(name)?.tick()
    }

    /// Takes `bytes` of the calling query's memory for what the procedure holds (`what`
    /// names it in the error when the query's limit is reached); give them back with
    /// [`ProcedureContext::release`].
    pub fn reserve(&self, name: &str, bytes: usize, what: &'static str) -> Result<()> {
        self.caller(name)?.reserve(bytes, what)
    }

    /// Gives back `bytes` taken with [`ProcedureContext::reserve`].
    pub fn release(&self, name: &str, bytes: usize) -> Result<()> {
        self.caller(name)?.release(bytes);
        Ok(())
    }

    /// Sleeps `duration`, waking every few milliseconds to honour the calling query's cancel
    /// flag and deadline, through the embedder's blocking hook ([`crate::set_blocking_hook`]),
    /// so a runtime worker's other connections go on.
    pub fn pause(&self, name: &str, duration: std::time::Duration) -> Result<()> {
        const SLICE: std::time::Duration = std::time::Duration::from_millis(10);
        let caller = self.caller(name)?;
        let until = std::time::Instant::now() + duration;
        let wait = || -> Result<()> {
            loop {
                caller.check()?;
                let now = std::time::Instant::now();
                if now >= until {
                    return Ok(());
                }
                std::thread::sleep(SLICE.min(until - now));
            }
        };
        crate::blocking::blocking(wait)
    }

    /// What batches on worker threads start from (`apoc.periodic.iterate` with `parallel:
    /// true`); fails for a procedure called outside a query.
    pub fn workers(&self, name: &str) -> Result<Workers> {
        let caller = self.caller(name)?;
        Ok(Workers {
            shared: caller.shared.clone(),
            fctx: caller.fctx.clone(),
            cancel: caller.cancel.clone(),
            deadline: caller.deadline,
            time_limit_ms: caller.time_limit_ms,
            subject: caller.subject.clone(),
        })
    }
}

/// The body of [`ProcedureContext::run_committed`], for `caller` (the calling query's
/// context, or a worker's own).
fn committed(caller: &mut Cx, name: &str, statement: &str, runs: &[Map]) -> Result<Outcome> {
    let shared = caller.shared.clone();
    let tx = begin_batch(&shared)?;
    let mut outcome = Outcome::default();
    for params in runs {
        let run =
            run_in(caller, tx.clone(), name, statement, params, Access::Write).and_then(|out| {
                // The next run sees what this one wrote.
                if out.counters.contains_updates() {
                    tx.advance_command()?;
                }
                Ok(out)
            });
        match run {
            Ok(out) => {
                let mut counters = outcome.counters;
                counters.add(&out.counters);
                outcome = Outcome { counters, ..out };
            }
            Err(e) => {
                let _ = tx.rollback();
                return Err(e);
            }
        }
    }
    commit_batch(&shared, &tx, caller.tx_id)?;
    Ok(outcome)
}

/// What a batch run on a worker thread starts from: the calling query's database, clocks,
/// cancel flag, deadline and user. Each batch runs in a write transaction of its own under a
/// context of its own, so its memory counts against the query limit on its own (as a batch
/// of `CALL { } IN CONCURRENT TRANSACTIONS` does) and its writes are its own account.
pub struct Workers {
    shared: Arc<DatabaseState>,
    fctx: quiver_value::FunctionContext,
    cancel: Arc<std::sync::atomic::AtomicBool>,
    deadline: Option<std::time::Instant>,
    time_limit_ms: u64,
    subject: Arc<crate::security::Subject>,
}

impl Workers {
    /// [`ProcedureContext::run_committed`] on the calling thread, which need not be the
    /// query's: `statement` once per parameter map in one transaction of its own, committed.
    pub fn run_committed(&self, name: &str, statement: &str, runs: &[Map]) -> Result<Outcome> {
        // A context to stand for the caller: it reads nothing itself (each run gets the
        // batch's transaction), it only lends its limits.
        let mut base = Cx::new(
            Arc::new(self.shared.storage().begin_read()),
            Vec::new(),
            self.fctx.clone(),
            self.shared.clone(),
            self.cancel.clone(),
            self.deadline,
            self.time_limit_ms,
        );
        base.set_subject(self.subject.clone());
        committed(&mut base, name, statement, runs)
    }

    /// Fails if the calling query was cancelled or ran out of time.
    pub fn check(&self) -> Result<()> {
        if self.cancel.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(Error::Terminated(
                "the transaction was terminated".to_owned(),
            ));
        }
        if self
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
        {
            return Err(Error::TimedOut {
                limit_ms: self.time_limit_ms,
            });
        }
        Ok(())
    }
}

/// Compiles `statement` over `tx` and binds its parameters: the statement and a context for
/// it with the caller's clocks, cancel flag and deadline.
fn prepare(
    caller: &Cx,
    tx: Arc<StorageTx>,
    name: &str,
    statement: &str,
    params: &Map,
    access: Access,
) -> Result<(Arc<Compiled>, Cx)> {
    caller.check()?;
    let compiled = transaction::compile(&caller.shared, &tx, statement)
        .map_err(|e| nested_failure(name, e))?;
    if compiled.explain || compiled.profile {
        return Err(call_failed(
            name,
            "the statement may not be EXPLAIN or PROFILE",
        ));
    }
    if compiled.writes && access == Access::Read {
        return Err(call_failed(
            name,
            "the statement writes, and this procedure runs read-only statements (apoc.cypher.doIt and the apoc.do.* forms write)",
        ));
    }
    // The nested statement runs as the caller's user: what it needs is checked as a statement
    // of the caller's would be, and names it creates are checked against the same roles.
    caller.subject.check_statement(compiled.required)?;
    let mut values = Vec::with_capacity(compiled.params.len());
    let mut missing = Vec::new();
    for p in &compiled.params {
        match params.get(p) {
            Some(v) => values.push(v.clone()),
            None => missing.push(format!("${p}")),
        }
    }
    if !missing.is_empty() {
        return Err(Error::ParameterMissing(missing.join(", ")));
    }
    let in_callers_tx = tx.is_same_transaction(&caller.tx);
    let mut cx = Cx::new(
        tx,
        values,
        caller.fctx.clone(),
        caller.shared.clone(),
        caller.cancel.clone(),
        caller.deadline,
        caller.time_limit_ms,
    );
    // A statement in the caller's transaction adds to that transaction's writes; one in a
    // batch transaction of its own counts them in an account of its own.
    if in_callers_tx {
        cx.writes = caller.writes.clone();
    }
    cx.set_subject(caller.subject.clone());
    Ok((compiled, cx))
}

/// Runs `statement` over `tx` under the caller's limits, to its end.
fn run_in(
    caller: &mut Cx,
    tx: Arc<StorageTx>,
    name: &str,
    statement: &str,
    params: &Map,
    access: Access,
) -> Result<Outcome> {
    let (compiled, mut cx) = prepare(caller, tx, name, statement, params, access)?;
    // The nested statement holds memory on top of what the caller holds, out of the caller's
    // room; the room (grown or not) goes back to the caller when the statement is done, and
    // what the statement held is let go with its cursors.
    cx.memory_bytes = caller.memory_bytes;
    cx.memory_bytes_max = caller.memory_bytes_max;
    cx.memory_reserved_bytes = std::mem::take(&mut caller.memory_reserved_bytes);
    let result = drive(&compiled, &mut cx);
    caller.memory_reserved_bytes = std::mem::take(&mut cx.memory_reserved_bytes);
    let rows = result?;
    Ok(Outcome {
        columns: compiled.columns.clone(),
        rows,
        counters: cx.counters,
    })
}

/// A read-only statement open in the caller's transaction, read a batch of rows at a time
/// (`apoc.periodic.iterate`'s outer statement), so its rows are never all held at once while
/// the procedure runs other statements between batches.
pub struct Stream {
    compiled: Arc<Compiled>,
    cursor: BoxCursor,
    cx: Cx,
    row: Row,
    done: bool,
}

impl ProcedureContext<'_> {
    /// Opens `statement` (read-only) in the caller's transaction. It takes memory room of
    /// its own from the server's pool, up to what the caller's limit leaves, and gives it back
    /// when dropped.
    pub fn open(&self, name: &str, statement: &str, params: &Map) -> Result<Stream> {
        let caller = self.caller(name)?;
        let (compiled, mut cx) = prepare(
            &caller,
            caller.tx.clone(),
            name,
            statement,
            params,
            Access::Read,
        )?;
        cx.memory_bytes_max = caller.memory_bytes_max.saturating_sub(caller.memory_bytes);
        let cursor = exec::build(&compiled.root, &cx)?;
        let row = vec![Value::Null; compiled.slots];
        Ok(Stream {
            compiled,
            cursor,
            cx,
            row,
            done: false,
        })
    }
}

impl Stream {
    pub fn columns(&self) -> &[Arc<str>] {
        &self.compiled.columns
    }

    /// Up to `n` more rows, each a map of column to value; empty once the statement is done.
    pub fn next_maps(&mut self, n: usize) -> Result<Vec<Value>> {
        let mut out = Vec::new();
        while !self.done && out.len() < n {
            self.cx.tick()?;
            if !self.cursor.next(&mut self.cx, &mut self.row)? {
                self.done = true;
                break;
            }
            let map: Map = self
                .compiled
                .columns
                .iter()
                .cloned()
                .zip(
                    self.compiled
                        .out_slots
                        .iter()
                        .map(|s| self.row.get(*s).cloned().unwrap_or(Value::Null)),
                )
                .collect();
            out.push(Value::map(map));
        }
        Ok(out)
    }
}

/// Pulls every row of a compiled statement.
fn drive(compiled: &Compiled, cx: &mut Cx) -> Result<Vec<Vec<Value>>> {
    let mut cursor = exec::build(&compiled.root, cx)?;
    let mut row: Row = vec![Value::Null; compiled.slots];
    let mut rows = Vec::new();
    loop {
        cx.tick()?;
        if !cursor.next(cx, &mut row)? {
            break;
        }
        if compiled.columns.is_empty() {
            continue;
        }
        let values: Vec<Value> = compiled
            .out_slots
            .iter()
            .map(|s| row.get(*s).cloned().unwrap_or(Value::Null))
            .collect();
        cx.reserve(row_bytes(&values), "a nested statement's rows")?;
        rows.push(values);
    }
    Ok(rows)
}

/// A nested statement's compile-time errors are the procedure's failure, named for it (its
/// text came from the procedure's argument); anything else (a timeout, a conflict, a
/// constraint) keeps its own status, so drivers still retry what is retryable.
fn nested_failure(name: &str, e: Error) -> Error {
    match e {
        Error::Compile(c) => call_failed(name, format!("the statement failed: {c}")),
        other => other,
    }
}
