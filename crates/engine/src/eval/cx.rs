//! The context a running query evaluates in: its transaction, parameters, limits and
//! counters, and the cursor interface every operator (and every subquery expression) runs
//! through.
//!
//! It lives beside the evaluator rather than in the executor because expressions need it too:
//! a subquery expression opens a cursor tree through [`Cx::open`], which the executor supplies
//! when it creates the context, so evaluation never names the executor.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use quiver_storage::{Storage, Transaction as StorageTx};
use quiver_value::{FunctionContext, Value};

use crate::database::DatabaseState;
use crate::error::{Error, Result};
use crate::ir::{PlanNode, Row};
use crate::summary::{Counters, OperatorProfile};

/// Builds the cursor tree of a plan (the executor's `build`).
pub(crate) type OpenPlan = fn(&Arc<PlanNode>, &Cx) -> Result<BoxCursor>;

/// Loop iterations between checks of the deadline and the cancel flag.
const TICKS_PER_CHECK: u32 = 1024;

/// Everything a running query needs besides its row.
pub(crate) struct Cx {
    pub tx: Arc<StorageTx>,
    pub storage: Arc<Storage>,
    pub params: Vec<Value>,
    pub fctx: FunctionContext,
    pub counters: Counters,
    pub shared: Arc<DatabaseState>,
    pub cancel: Arc<AtomicBool>,
    pub deadline: Option<Instant>,
    pub time_limit_ms: u64,
    pub memory_bytes: usize,
    pub memory_bytes_max: usize,
    pub var_length_hops_max: u32,
    /// Per operator id when profiling.
    pub profile: Option<Vec<OperatorProfile>>,
    /// Nodes whose deletion waits for their relationships to go (checked when the DELETE
    /// clause has seen all its rows).
    pub pending_deletes: Vec<u64>,
    /// Builds cursors for a subquery expression's plan.
    pub open: OpenPlan,
    /// Units of work since the last cancellation and deadline check.
    pub ticks: u32,
}

impl Cx {
    /// Counts one unit of work; every so often checks for cancellation and the deadline.
    #[inline]
    pub fn tick(&mut self) -> Result<()> {
        self.ticks += 1;
        if self.ticks >= TICKS_PER_CHECK {
            self.ticks = 0;
            self.check()?;
        }
        Ok(())
    }

    /// Fails if the query was cancelled or ran out of time.
    pub fn check(&self) -> Result<()> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(Error::Terminated(
                "the transaction was terminated".to_owned(),
            ));
        }
        if let Some(d) = self.deadline
            && Instant::now() >= d
        {
            return Err(Error::TimedOut {
                limit_ms: self.time_limit_ms,
            });
        }
        Ok(())
    }

    /// Accounts memory a buffering operator takes; fails past the query's limit.
    pub fn reserve(&mut self, bytes: usize) -> Result<()> {
        self.memory_bytes = self.memory_bytes.saturating_add(bytes);
        if self.memory_bytes > self.memory_bytes_max {
            return Err(Error::MemoryLimit {
                limit_bytes: self.memory_bytes_max,
            });
        }
        Ok(())
    }

    pub fn release(&mut self, bytes: usize) {
        self.memory_bytes = self.memory_bytes.saturating_sub(bytes);
    }

    /// Makes the transaction's writes so far visible to its later reads.
    pub fn advance(&self) -> Result<()> {
        self.tx.advance_command()?;
        Ok(())
    }
}

/// An approximation of the heap a value holds, for memory limits.
pub(crate) fn value_bytes(v: &Value) -> usize {
    const BASE: usize = std::mem::size_of::<Value>();
    match v {
        Value::String(s) => BASE + s.len(),
        Value::Bytes(b) => BASE + b.len(),
        Value::List(items) => BASE + items.iter().map(value_bytes).sum::<usize>(),
        Value::Map(m) => {
            BASE + m
                .iter()
                .map(|(k, v)| k.len() + value_bytes(v))
                .sum::<usize>()
        }
        Value::Path(p) => BASE + (p.nodes.len() + p.relationships.len()) * 16,
        _ => BASE,
    }
}

/// The bytes a stored row copy holds.
pub(crate) fn row_bytes(values: &[Value]) -> usize {
    values.iter().map(value_bytes).sum::<usize>() + 24
}

/// A running operator.
pub(crate) trait Cursor: Send {
    /// Produces the next row into `row`; `false` when exhausted.
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool>;
    /// Re-arms the cursor to run again (for the next outer row of an apply).
    fn reset(&mut self);
}

pub(crate) type BoxCursor = Box<dyn Cursor>;
