//! `CALL { } IN TRANSACTIONS`: the subquery runs for batches of input rows, each batch in a
//! write transaction of its own that commits (and is acknowledged by the commit log) before
//! the next begins, so a load of millions of rows never holds more than one batch's changes.
//!
//! A batch that fails is rolled back whole. `ON ERROR FAIL` (the default) then fails the
//! query, leaving the batches before it committed, as Neo4j does; `CONTINUE` goes on with the
//! next batch and `BREAK` runs no further one, both passing the rows on with the subquery's
//! columns null. Termination, the time limit and the memory limits end the query under any
//! `ON ERROR`: they are the query's failure, not the batch's.
//!
//! `ON ERROR RETRY [FOR s SECONDS]` first tries a batch that failed with a retryable error (a
//! write conflict, a lock wait that ran out) again, rolled back and begun anew, with a growing
//! pause between tries, until it succeeds or `s` seconds (30 by default) have passed since its
//! first try; only then does its `THEN` action (`FAIL` by default) apply.
//!
//! `IN [n] CONCURRENT TRANSACTIONS` runs up to `n` batches at once (as many as the machine has
//! cores when `n` is not given), each on a thread of its own with its own transaction, cursor
//! tree and memory account (each against the query's limit). The input is read `n` batches at
//! a time; the rows of a group pass on in the order of its batches, so the output keeps the
//! input's order. Under `BREAK`, the batches of the failed one's group that were already
//! running keep what they committed; no later group starts.
//!
//! After each committed batch the operators above read at a snapshot that includes it, as in
//! Neo4j (a `MATCH` after the subquery sees what the batches wrote): the query's transaction,
//! when it has written nothing of its own, is replaced by a fresh one (the engine's transaction
//! commits whichever the query ends with). The operators below keep reading at the snapshot
//! they began at. A query that wrote before the subquery keeps its one snapshot throughout.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_storage::Transaction as StorageTx;
use quiver_value::{Map, Value};

use super::{BoxCursor, Cursor, Cx};
use crate::error::{Error, Result, code};
use crate::eval::row_bytes;
use crate::ir::{BatchFailure, PlanNode, Row, TransactionBatches};
use crate::state::DatabaseState;
use crate::summary::Counters;

/// Rows in a batch when `OF n ROWS` is not given (Neo4j's default).
const DEFAULT_BATCH_ROWS: usize = 1000;

/// How long `ON ERROR RETRY` retries a batch when no duration is given (Neo4j's default).
const DEFAULT_RETRY: Duration = Duration::from_secs(30);

/// The first pause between two tries of a batch; each later one doubles, up to
/// [`RETRY_PAUSE_MAX`].
const RETRY_PAUSE_FIRST: Duration = Duration::from_millis(10);
const RETRY_PAUSE_MAX: Duration = Duration::from_secs(1);

/// Most batches `IN n CONCURRENT TRANSACTIONS` runs at once, whatever `n` says: each is a
/// thread with its own transaction.
const CONCURRENCY_MAX: usize = 64;

/// What `REPORT STATUS` says of the batch a row belongs to.
struct BatchStatus {
    started: bool,
    committed: bool,
    /// The batch's transaction's name (`<database>-transaction-N`).
    transaction: Option<String>,
    error: Option<String>,
}

impl BatchStatus {
    fn value(&self) -> Value {
        let entries: [(&str, Value); 4] = [
            ("started", Value::Bool(self.started)),
            ("committed", Value::Bool(self.committed)),
            (
                "transactionId",
                self.transaction
                    .as_deref()
                    .map_or(Value::Null, Value::string),
            ),
            (
                "errorMessage",
                self.error.as_deref().map_or(Value::Null, Value::string),
            ),
        ];
        Value::map(
            entries
                .into_iter()
                .map(|(k, v)| (Arc::<str>::from(k), v))
                .collect::<Map>(),
        )
    }
}

pub(crate) struct Transactions {
    batch: Arc<TransactionBatches>,
    input: BoxCursor,
    inner: BoxCursor,
    /// The subquery's plan: concurrent batches each build a cursor tree of their own.
    inner_plan: Arc<PlanNode>,
    /// The transaction the operators below read with, once the operators above read with a
    /// fresher one (after the first committed batch).
    below: Option<Arc<StorageTx>>,
    /// `IN n CONCURRENT TRANSACTIONS`, once evaluated; 1 when serial.
    concurrency: Option<usize>,
    /// `ON ERROR RETRY FOR s SECONDS`, once evaluated (`retry_known`).
    retry: Option<Duration>,
    retry_known: bool,
    /// The rows of the last batch, with the bytes each is counted for, waiting to pass on.
    out: VecDeque<(Row, usize)>,
    /// `OF n ROWS`, once evaluated.
    size: Option<usize>,
    input_done: bool,
    /// A batch failed under `ON ERROR BREAK`: no further batch runs.
    broken: bool,
}

impl Transactions {
    pub fn boxed(
        batch: Arc<TransactionBatches>,
        input: BoxCursor,
        inner: BoxCursor,
        inner_plan: Arc<PlanNode>,
    ) -> BoxCursor {
        Box::new(Transactions {
            batch,
            input,
            inner,
            inner_plan,
            below: None,
            concurrency: None,
            retry: None,
            retry_known: false,
            out: VecDeque::new(),
            size: None,
            input_done: false,
            broken: false,
        })
    }

    /// `OF n ROWS`: a positive integer.
    fn size(&mut self, cx: &mut Cx, row: &mut Row) -> Result<usize> {
        if let Some(n) = self.size {
            return Ok(n);
        }
        let n = positive(
            self.batch.rows.eval(row, cx)?,
            || DEFAULT_BATCH_ROWS,
            "IN TRANSACTIONS OF ... ROWS",
        )?;
        self.size = Some(n);
        Ok(n)
    }

    /// `IN n CONCURRENT TRANSACTIONS`: a positive integer (1 when serial).
    fn concurrency(&mut self, cx: &mut Cx, row: &mut Row) -> Result<usize> {
        if let Some(n) = self.concurrency {
            return Ok(n);
        }
        let n = match &self.batch.concurrency {
            None => 1,
            Some(e) => positive(
                e.eval(row, cx)?,
                || std::thread::available_parallelism().map_or(1, usize::from),
                "IN ... CONCURRENT TRANSACTIONS",
            )?,
        }
        .min(CONCURRENCY_MAX);
        self.concurrency = Some(n);
        Ok(n)
    }

    /// `ON ERROR RETRY FOR s SECONDS`: a non-negative number of seconds.
    fn retry(&mut self, cx: &mut Cx, row: &mut Row) -> Result<Option<Duration>> {
        if self.retry_known {
            return Ok(self.retry);
        }
        let r = match &self.batch.retry {
            None => None,
            Some(e) => {
                let seconds = match e.eval(row, cx)? {
                    Value::Null => Some(DEFAULT_RETRY.as_secs_f64()),
                    Value::Int(n) if n >= 0 => Some(n as f64),
                    Value::Float(f) if f >= 0.0 && f.is_finite() => Some(f),
                    _ => None,
                };
                let Some(seconds) = seconds.and_then(|s| Duration::try_from_secs_f64(s).ok())
                else {
                    return Err(Error::runtime(
                        code::ARGUMENT_ERROR,
                        Some("InvalidArgumentValue"),
                        "Invalid input. ON ERROR RETRY FOR ... SECONDS takes a non-negative number of seconds.",
                    ));
                };
                Some(seconds)
            }
        };
        self.retry = r;
        self.retry_known = true;
        Ok(r)
    }

    /// Reads the next batch (or group of concurrent batches) of input rows and runs it;
    /// leaves its rows in `out`.
    fn fill(&mut self, cx: &mut Cx, row: &mut Row) -> Result<()> {
        let size = self.size(cx, row)?;
        let workers = self.concurrency(cx, row)?;
        self.retry(cx, row)?;
        let mut inputs = Vec::new();
        let mut held = 0;
        // The operators below read at their own snapshot, not the one those above read at.
        let above = self
            .below
            .as_ref()
            .map(|below| std::mem::replace(&mut cx.tx, below.clone()));
        let read = (|| {
            while inputs.len() < size.saturating_mul(workers) {
                if !self.input.next(cx, row)? {
                    self.input_done = true;
                    break;
                }
                let bytes = row_bytes(row);
                cx.reserve(bytes, "a batch of CALL { } IN TRANSACTIONS")?;
                held += bytes;
                inputs.push(row.clone());
            }
            Ok(())
        })();
        if let Some(above) = above {
            cx.tx = above;
        }
        let result = read.and_then(|()| {
            if inputs.is_empty() {
                Ok(())
            } else if self.broken {
                let status = BatchStatus {
                    started: false,
                    committed: false,
                    transaction: None,
                    error: None,
                };
                self.pass_failed(cx, &inputs, &status)
            } else if workers > 1 {
                self.concurrent(cx, &inputs, size)
            } else {
                self.batch(cx, &inputs)
            }
        });
        cx.release(held);
        result?;
        self.refresh(cx);
        Ok(())
    }

    /// After committed batches, lets the operators above read what they committed: the
    /// query's transaction, when it has written nothing, is replaced by one begun now.
    fn refresh(&mut self, cx: &mut Cx) {
        if cx.tx.has_changes() {
            return;
        }
        let fresh = Arc::new(cx.shared.storage().begin_write());
        let old = cx.replace_tx(fresh);
        match &self.below {
            // The query's own transaction stays open for the operators below (and is
            // replaced by the engine when the query ends).
            None => self.below = Some(old),
            Some(_) => {
                let _ = old.rollback();
            }
        }
    }

    /// Runs one batch in a transaction of its own (again, while it fails retryably within
    /// the retry window).
    fn batch(&mut self, cx: &mut Cx, inputs: &[Row]) -> Result<()> {
        let retry = self.retry;
        let first = Instant::now();
        let mut pause = RETRY_PAUSE_FIRST;
        loop {
            let tx = begin_batch(&cx.shared)?;
            let id = cx.shared.unregistered_tx_id();
            let counters = cx.counters;
            let outer = cx.replace_tx(tx.clone());
            // The batch's writes are its own transaction's: counted in an account of their
            // own, given back once the batch has committed or rolled back.
            let outer_writes = std::mem::take(&mut cx.writes);
            let outer_pending = std::mem::take(&mut cx.write_pending_bytes);
            let result = self
                .run(cx, inputs)
                .and_then(|()| commit_batch(&cx.shared, &tx, cx.tx_id));
            cx.tx = outer;
            let batch_writes = std::mem::replace(&mut cx.writes, outer_writes);
            cx.write_pending_bytes = outer_pending;
            batch_writes.clear(&cx.shared.memory);
            let error = match result {
                Ok(()) => {
                    let status = BatchStatus {
                        started: true,
                        committed: true,
                        transaction: Some(cx.shared.tx_name(id)),
                        error: None,
                    };
                    self.set_status(&status);
                    return Ok(());
                }
                Err(e) => e,
            };
            let _ = tx.rollback();
            // What the failed batch counted did not happen.
            cx.counters = counters;
            for (_, bytes) in self.out.drain(..) {
                cx.release(bytes);
            }
            if let Some(window) = retry
                && retries(&error)
                && first.elapsed() + pause <= window
            {
                cx.check()?;
                std::thread::sleep(pause);
                pause = (pause * 2).min(RETRY_PAUSE_MAX);
                continue;
            }
            return self.failed(cx, inputs, id, error);
        }
    }

    /// What batch transaction `id`'s failure makes of the query: the error itself when it is
    /// fatal or `ON ERROR FAIL`, otherwise the status its rows report (and, for
    /// `ON ERROR BREAK`, no batch after it).
    fn failure(&mut self, transaction: String, error: Error) -> Result<BatchStatus> {
        if fatal(&error) || self.batch.on_error == BatchFailure::Fail {
            return Err(error);
        }
        if self.batch.on_error == BatchFailure::Break {
            self.broken = true;
        }
        Ok(BatchStatus {
            started: true,
            committed: false,
            transaction: Some(transaction),
            error: Some(error.message()),
        })
    }

    /// A batch that failed for good: the query fails, or its rows pass on as `ON ERROR` says.
    fn failed(&mut self, cx: &mut Cx, inputs: &[Row], id: u64, error: Error) -> Result<()> {
        let status = self.failure(cx.shared.tx_name(id), error)?;
        self.pass_failed(cx, inputs, &status)
    }

    /// Runs `inputs` as batches of `size` rows, each on a worker thread of its own, and
    /// passes their rows on in batch order.
    fn concurrent(&mut self, cx: &mut Cx, inputs: &[Row], size: usize) -> Result<()> {
        let plan = &self.inner_plan;
        let returned = self.batch.returned.is_some();
        let retry = self.retry;
        let base = Worker::base(cx);
        let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
            let handles: Vec<_> = inputs
                .chunks(size)
                .map(|chunk| {
                    let base = &base;
                    scope.spawn(move || base.run(plan, chunk, returned, retry))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| Outcome {
                        rows: Vec::new(),
                        counters: Counters::default(),
                        db_hits: 0,
                        id: 0,
                        error: Some(Error::runtime(
                            code::TX_FAILED,
                            None,
                            "a concurrent batch of CALL { } IN TRANSACTIONS panicked",
                        )),
                    })
                })
                .collect()
        });
        for (outcome, chunk) in outcomes.into_iter().zip(inputs.chunks(size)) {
            cx.db_hits += outcome.db_hits;
            match outcome.error {
                None => {
                    cx.counters.add(&outcome.counters);
                    let first = self.out.len();
                    for r in outcome.rows {
                        self.push(cx, r)?;
                    }
                    if let Some(slot) = self.batch.status {
                        let value = BatchStatus {
                            started: true,
                            committed: true,
                            transaction: Some(cx.shared.tx_name(outcome.id)),
                            error: None,
                        }
                        .value();
                        for (r, _) in self.out.iter_mut().skip(first) {
                            r[slot] = value.clone();
                        }
                    }
                }
                Some(error) if self.broken => {
                    // A batch after the one that broke the loop: it ran alongside, and failed.
                    let status = BatchStatus {
                        started: true,
                        committed: false,
                        transaction: Some(cx.shared.tx_name(outcome.id)),
                        error: Some(error.message()),
                    };
                    self.pass_group_failed(cx, chunk, &status)?;
                }
                Some(error) => {
                    let status = self.failure(cx.shared.tx_name(outcome.id), error)?;
                    self.pass_group_failed(cx, chunk, &status)?;
                }
            }
        }
        Ok(())
    }

    /// [`Self::pass_failed`] for one batch of a concurrent group: its status goes only on
    /// its own rows.
    fn pass_group_failed(
        &mut self,
        cx: &mut Cx,
        inputs: &[Row],
        status: &BatchStatus,
    ) -> Result<()> {
        let first = self.out.len();
        for input in inputs {
            let mut r = input.clone();
            for s in self.batch.returned.iter().flat_map(|s| s.iter()) {
                r[*s] = Value::Null;
            }
            self.push(cx, r)?;
        }
        if let Some(slot) = self.batch.status {
            let value = status.value();
            for (r, _) in self.out.iter_mut().skip(first) {
                r[slot] = value.clone();
            }
        }
        Ok(())
    }

    /// Runs the subquery for every input row of the batch, in the batch's transaction.
    fn run(&mut self, cx: &mut Cx, inputs: &[Row]) -> Result<()> {
        for input in inputs {
            cx.tick()?;
            self.inner.reset();
            let mut scratch = input.clone();
            if self.batch.returned.is_some() {
                while self.inner.next(cx, &mut scratch)? {
                    self.push(cx, scratch.clone())?;
                }
            } else {
                while self.inner.next(cx, &mut scratch)? {
                    cx.tick()?;
                }
                self.push(cx, input.clone())?;
            }
        }
        Ok(())
    }

    /// The rows of a batch that failed or did not start: each input row once, with the
    /// subquery's columns null.
    fn pass_failed(&mut self, cx: &mut Cx, inputs: &[Row], status: &BatchStatus) -> Result<()> {
        for input in inputs {
            let mut r = input.clone();
            for s in self.batch.returned.iter().flat_map(|s| s.iter()) {
                r[*s] = Value::Null;
            }
            self.push(cx, r)?;
        }
        self.set_status(status);
        Ok(())
    }

    fn push(&mut self, cx: &mut Cx, r: Row) -> Result<()> {
        let bytes = row_bytes(&r);
        cx.reserve(bytes, "a batch of CALL { } IN TRANSACTIONS")?;
        self.out.push_back((r, bytes));
        Ok(())
    }

    /// Puts `status` in every waiting row (`REPORT STATUS AS s`).
    fn set_status(&mut self, status: &BatchStatus) {
        if let Some(slot) = self.batch.status {
            let value = status.value();
            for (r, _) in &mut self.out {
                r[slot] = value.clone();
            }
        }
    }
}

/// Whether an error ends the query under any `ON ERROR`: it is the query's, not the batch's.
fn fatal(error: &Error) -> bool {
    matches!(
        error,
        Error::Terminated(_)
            | Error::TimedOut { .. }
            | Error::MemoryLimit { .. }
            | Error::MemoryPool { .. }
    )
}

/// Whether `ON ERROR RETRY` tries a batch that failed with `error` again: a retryable
/// failure of the batch itself (a write conflict, a lock wait that ran out).
fn retries(error: &Error) -> bool {
    error.is_retryable() && !fatal(error)
}

/// What a concurrent batch's worker starts from: the query's parameters, clocks and limits.
struct Worker {
    shared: Arc<DatabaseState>,
    params: Vec<Value>,
    fctx: quiver_value::FunctionContext,
    cancel: Arc<std::sync::atomic::AtomicBool>,
    deadline: Option<Instant>,
    time_limit_ms: u64,
    open: crate::eval::OpenPlan,
    /// The query's user: each batch's statement runs with their roles.
    subject: Arc<crate::security::Subject>,
    /// The query's transaction, whose user and client its batches' changes name.
    caller: u64,
}

/// What a concurrent batch did.
struct Outcome {
    rows: Vec<Row>,
    counters: Counters,
    db_hits: u64,
    /// The batch transaction's id (`REPORT STATUS`).
    id: u64,
    error: Option<Error>,
}

impl Worker {
    fn base(cx: &Cx) -> Worker {
        Worker {
            shared: cx.shared.clone(),
            params: cx.params.clone(),
            fctx: cx.fctx.clone(),
            cancel: cx.cancel.clone(),
            deadline: cx.deadline,
            time_limit_ms: cx.time_limit_ms,
            open: cx.open,
            subject: cx.subject.clone(),
            caller: cx.tx_id,
        }
    }

    /// Runs one batch on this thread, in a transaction of its own, retrying as told.
    fn run(
        &self,
        plan: &Arc<PlanNode>,
        inputs: &[Row],
        returned: bool,
        retry: Option<Duration>,
    ) -> Outcome {
        let first = Instant::now();
        let mut pause = RETRY_PAUSE_FIRST;
        loop {
            let outcome = self.once(plan, inputs, returned);
            match &outcome.error {
                Some(e)
                    if retry.is_some_and(|w| first.elapsed() + pause <= w)
                        && retries(e)
                        && !self.cancel.load(std::sync::atomic::Ordering::Relaxed) =>
                {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(RETRY_PAUSE_MAX);
                }
                _ => return outcome,
            }
        }
    }

    fn once(&self, plan: &Arc<PlanNode>, inputs: &[Row], returned: bool) -> Outcome {
        let id = self.shared.unregistered_tx_id();
        let mut rows = Vec::new();
        let tx = match begin_batch(&self.shared) {
            Ok(tx) => tx,
            Err(e) => {
                return Outcome {
                    rows,
                    counters: Counters::default(),
                    db_hits: 0,
                    id,
                    error: Some(e),
                };
            }
        };
        let mut cx = Cx::new(
            tx.clone(),
            self.params.clone(),
            self.fctx.clone(),
            self.shared.clone(),
            self.cancel.clone(),
            self.deadline,
            self.time_limit_ms,
        );
        cx.open = self.open;
        cx.set_subject(self.subject.clone());
        let result = (|| {
            let mut cursor = (cx.open)(plan, &cx)?;
            for input in inputs {
                cx.tick()?;
                cursor.reset();
                let mut scratch = input.clone();
                if returned {
                    while cursor.next(&mut cx, &mut scratch)? {
                        let bytes = row_bytes(&scratch);
                        cx.reserve(bytes, "a batch of CALL { } IN CONCURRENT TRANSACTIONS")?;
                        rows.push(scratch.clone());
                    }
                } else {
                    while cursor.next(&mut cx, &mut scratch)? {
                        cx.tick()?;
                    }
                    rows.push(input.clone());
                }
            }
            commit_batch(&self.shared, &tx, self.caller)
        })();
        cx.writes.clear(&self.shared.memory);
        match result {
            Ok(()) => Outcome {
                rows,
                counters: cx.counters,
                db_hits: cx.db_hits,
                id,
                error: None,
            },
            Err(e) => {
                let _ = tx.rollback();
                Outcome {
                    rows: Vec::new(),
                    counters: Counters::default(),
                    db_hits: cx.db_hits,
                    id,
                    error: Some(e),
                }
            }
        }
    }
}

impl Cursor for Transactions {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        loop {
            if let Some((r, bytes)) = self.out.pop_front() {
                cx.release(bytes);
                *row = r;
                return Ok(true);
            }
            if self.input_done {
                return Ok(false);
            }
            self.fill(cx, row)?;
        }
    }

    fn reset(&mut self) {
        self.out.clear();
        self.size = None;
        self.concurrency = None;
        self.retry = None;
        self.retry_known = false;
        self.input_done = false;
        self.broken = false;
        self.input.reset();
        self.inner.reset();
    }
}

/// Begins a write transaction of its own for one batch of a nested statement (a batch of
/// `apoc.periodic.*` or of `CALL { } IN TRANSACTIONS`); fails on a cluster member that does
/// not take writes, before anything runs.
pub(crate) fn begin_batch(shared: &DatabaseState) -> Result<Arc<StorageTx>> {
    if let Some(reason) = shared.not_leader() {
        return Err(Error::request(quiver_status::Status::NotALeader, reason));
    }
    Ok(Arc::new(shared.storage().begin_write()))
}

/// Commits a batch's transaction and waits for the commit log to acknowledge it (as an
/// embedding program's commit does), so a batch reported committed survives a crash.
pub(crate) fn commit_batch(shared: &DatabaseState, tx: &StorageTx, caller: u64) -> Result<()> {
    if shared.storage().capture() != quiver_storage::Capture::Off {
        tx.set_change_context(shared.change_context(caller));
    }
    let info = tx.commit()?;
    if let (Some(log), Some(ticket)) = (&shared.log, info.ticket) {
        acknowledged(log.as_ref(), ticket)?;
    }
    Ok(())
}

/// Waits until the commit log acknowledges `ticket`, through the embedder's blocking hook
/// ([`crate::blocking`]), so a runtime worker's other connections go on.
fn acknowledged(
    log: &dyn quiver_storage::CommitLog,
    ticket: quiver_storage::DurabilityTicket,
) -> Result<()> {
    let wait = || log.wait(ticket);
    crate::blocking::blocking(wait).map_err(Error::not_acknowledged)
}

/// A batch setting's value: `null` takes `default`, a positive integer is itself, anything
/// else fails as Neo4j's does, naming `clause`.
fn positive(value: Value, default: impl FnOnce() -> usize, clause: &str) -> Result<usize> {
    match value {
        Value::Null => Ok(default()),
        Value::Int(n) if n > 0 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        other => Err(Error::runtime(
            code::ARGUMENT_ERROR,
            Some("InvalidArgumentValue"),
            format!(
                "Invalid input. '{other}' is not a valid value for {clause}. Must be a positive integer."
            ),
        )),
    }
}
