//! `CALL { } IN TRANSACTIONS`: the subquery runs for batches of input rows, each batch in a
//! write transaction of its own that commits (and is acknowledged by the commit log) before
//! the next begins, so a load of millions of rows never holds more than one batch's changes.
//!
//! A batch that fails is rolled back whole. `ON ERROR FAIL` (the default) then fails the
//! query, leaving the batches before it committed, as Neo4j does; `CONTINUE` goes on with the
//! next batch and `BREAK` runs no further one, both passing the rows on with the subquery's
//! columns null. Termination, the time limit and the memory limits end the query under any
//! `ON ERROR`: they are the query's failure, not the batch's.

use std::collections::VecDeque;
use std::sync::Arc;

use quiver_value::{Map, Value};

use super::{BoxCursor, Cursor, Cx};
use crate::apoc::nested::{begin_batch, commit_batch};
use crate::database::tx_name;
use crate::error::{Error, Result, code};
use crate::eval::row_bytes;
use crate::ir::{BatchFailure, Row, TransactionBatches};

/// Rows in a batch when `OF n ROWS` is not given (Neo4j's default).
const DEFAULT_BATCH_ROWS: usize = 1000;

/// What `REPORT STATUS` says of the batch a row belongs to.
struct BatchStatus {
    started: bool,
    committed: bool,
    transaction: Option<u64>,
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
                    .map_or(Value::Null, |id| Value::string(tx_name(id))),
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
    /// The rows of the last batch, with the bytes each is counted for, waiting to pass on.
    out: VecDeque<(Row, usize)>,
    /// `OF n ROWS`, once evaluated.
    size: Option<usize>,
    input_done: bool,
    /// A batch failed under `ON ERROR BREAK`: no further batch runs.
    broken: bool,
}

impl Transactions {
    pub fn boxed(batch: Arc<TransactionBatches>, input: BoxCursor, inner: BoxCursor) -> BoxCursor {
        Box::new(Transactions {
            batch,
            input,
            inner,
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
        let n = match self.batch.rows.eval(row, cx)? {
            Value::Null => DEFAULT_BATCH_ROWS,
            Value::Int(n) if n > 0 => usize::try_from(n).unwrap_or(usize::MAX),
            other => {
                return Err(Error::runtime(
                    code::ARGUMENT_ERROR,
                    Some("InvalidArgumentValue"),
                    format!(
                        "Invalid input. '{other}' is not a valid value for IN TRANSACTIONS OF ... ROWS. Must be a positive integer."
                    ),
                ));
            }
        };
        self.size = Some(n);
        Ok(n)
    }

    /// Reads the next batch of input rows and runs it; leaves its rows in `out`.
    fn fill(&mut self, cx: &mut Cx, row: &mut Row) -> Result<()> {
        let size = self.size(cx, row)?;
        let mut inputs = Vec::new();
        let mut held = 0;
        while inputs.len() < size {
            if !self.input.next(cx, row)? {
                self.input_done = true;
                break;
            }
            let bytes = row_bytes(row);
            cx.reserve(bytes, "a batch of CALL { } IN TRANSACTIONS")?;
            held += bytes;
            inputs.push(row.clone());
        }
        let result = if inputs.is_empty() {
            Ok(())
        } else if self.broken {
            let status = BatchStatus {
                started: false,
                committed: false,
                transaction: None,
                error: None,
            };
            self.pass_failed(cx, &inputs, &status)
        } else {
            self.batch(cx, &inputs)
        };
        cx.release(held);
        result
    }

    /// Runs one batch in a transaction of its own.
    fn batch(&mut self, cx: &mut Cx, inputs: &[Row]) -> Result<()> {
        let tx = begin_batch(&cx.shared)?;
        let id = cx.shared.unregistered_tx_id();
        let counters = cx.counters;
        let outer = std::mem::replace(&mut cx.tx, tx.clone());
        // The batch's writes are its own transaction's: counted in an account of their own,
        // given back once the batch has committed or rolled back.
        let outer_writes = std::mem::take(&mut cx.writes);
        let outer_pending = std::mem::take(&mut cx.write_pending_bytes);
        let result = self
            .run(cx, inputs)
            .and_then(|()| commit_batch(&cx.shared, &tx));
        cx.tx = outer;
        let batch_writes = std::mem::replace(&mut cx.writes, outer_writes);
        cx.write_pending_bytes = outer_pending;
        batch_writes.clear(&cx.shared.memory);
        let error = match result {
            Ok(()) => {
                let status = BatchStatus {
                    started: true,
                    committed: true,
                    transaction: Some(id),
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
        let fatal = matches!(
            error,
            Error::Terminated(_)
                | Error::TimedOut { .. }
                | Error::MemoryLimit { .. }
                | Error::MemoryPool { .. }
        );
        if fatal || self.batch.on_error == BatchFailure::Fail {
            return Err(error);
        }
        if self.batch.on_error == BatchFailure::Break {
            self.broken = true;
        }
        let status = BatchStatus {
            started: true,
            committed: false,
            transaction: Some(id),
            error: Some(error.message()),
        };
        self.pass_failed(cx, inputs, &status)
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
        self.input_done = false;
        self.broken = false;
        self.input.reset();
        self.inner.reset();
    }
}
