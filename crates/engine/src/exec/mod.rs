//! The executor: pull-based cursors built from a plan.
//!
//! Every cursor of a pipeline writes into one shared row: an operator binds its own slots and
//! leaves its input's in place, so producing a row allocates nothing. Only operators that must
//! see all their input (sort, aggregation, distinct, eager) keep copies. A cursor is re-armed
//! with `reset` when an apply operator runs it again for the next outer row.

mod apply;
mod command;
mod expand;
mod relational;
mod scan;
mod shortest;
mod varexpand;
mod write;

pub(crate) use command::{command_columns, read_only_error};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use quiver_storage::{Storage, Transaction as StorageTx};
use quiver_value::{FunctionContext, Value};

use crate::database::DatabaseState;
use crate::error::{Error, Result};
use crate::eval::Row;
use crate::plan::{Op, PlanNode};
use crate::summary::{Counters, OperatorProfile};

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
    ticks: u32,
}

impl Cx {
    pub fn new(
        tx: Arc<StorageTx>,
        params: Vec<Value>,
        fctx: FunctionContext,
        shared: Arc<DatabaseState>,
        cancel: Arc<AtomicBool>,
        deadline: Option<Instant>,
        time_limit_ms: u64,
    ) -> Cx {
        let storage = tx.storage().clone();
        let memory_bytes_max = shared.config.query_memory_bytes_max;
        let var_length_hops_max = shared.config.var_length_hops_max;
        Cx {
            tx,
            storage,
            params,
            fctx,
            counters: Counters::default(),
            shared,
            cancel,
            deadline,
            time_limit_ms,
            memory_bytes: 0,
            memory_bytes_max,
            var_length_hops_max,
            profile: None,
            pending_deletes: Vec::new(),
            ticks: 0,
        }
    }

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

/// Instantiates cursors for a plan.
pub(crate) fn build(plan: &Arc<PlanNode>, cx: &Cx) -> Result<BoxCursor> {
    let child = |n: &Arc<PlanNode>| build(n, cx);
    let at = plan.clone();
    let cursor: BoxCursor = match &plan.op {
        Op::Once => Box::new(relational::Once::default()),
        Op::AllNodes { input, .. }
        | Op::LabelScan { input, .. }
        | Op::IndexSeek { input, .. }
        | Op::NodeById { input, .. } => Box::new(scan::Scan::new(at, child(input)?)),
        Op::NodeCount { input, .. } | Op::RelCount { input, .. } => {
            Box::new(scan::Count::new(at, child(input)?))
        }
        Op::Expand { input, .. } => Box::new(expand::Expand::new(at, child(input)?)),
        Op::VarExpand { input, .. } => Box::new(varexpand::VarExpand::new(at, child(input)?)),
        Op::ShortestPath { input, .. } => Box::new(shortest::ShortestPath::new(at, child(input)?)),
        Op::Filter { input, .. } => Box::new(relational::Filter::new(at, child(input)?)),
        Op::Project { input, .. } => Box::new(relational::Project::new(at, child(input)?)),
        Op::Aggregate { input, .. } => Box::new(relational::Aggregate::new(at, child(input)?)),
        Op::Distinct { input, .. } => Box::new(relational::Distinct::new(at, child(input)?)),
        Op::Sort { input, .. } | Op::Top { input, .. } => {
            Box::new(relational::Sort::new(at, child(input)?))
        }
        Op::Skip { input, .. } | Op::Limit { input, .. } => {
            Box::new(relational::SkipLimit::new(at, child(input)?))
        }
        Op::Unwind { input, .. } => Box::new(relational::Unwind::new(at, child(input)?)),
        Op::Eager { input, .. } => Box::new(relational::Eager::new(at, child(input)?)),
        Op::Optional { input, inner, .. }
        | Op::SemiApply { input, inner, .. }
        | Op::Apply { input, inner }
        | Op::UnitApply { input, inner }
        | Op::Foreach { input, inner, .. } => {
            Box::new(apply::ApplyCursor::new(at, child(input)?, child(inner)?))
        }
        Op::Union { branches } => {
            let mut cursors = Vec::with_capacity(branches.len());
            for b in branches {
                cursors.push(child(b)?);
            }
            Box::new(apply::Union::new(cursors))
        }
        Op::Create { input, .. } | Op::Set { input, .. } | Op::Delete { input, .. } => {
            Box::new(write::Write::new(at, child(input)?))
        }
        Op::Merge { input, matcher, .. } => {
            Box::new(write::Merge::new(at, child(input)?, child(matcher)?))
        }
        Op::ProcedureCall { input, .. } => Box::new(command::ProcedureCall::new(at, child(input)?)),
        Op::Command { .. } => Box::new(command::CommandCursor::new(at)),
    };
    Ok(if cx.profile.is_some() {
        Box::new(Profiled {
            id: plan.id,
            inner: cursor,
        })
    } else {
        cursor
    })
}

/// The error for a cursor handed a plan node of another kind: a bug, reported rather than
/// panicking.
pub(crate) fn mismatch(what: &str) -> Error {
    Error::runtime(
        quiver_status::Status::UnknownError,
        None,
        format!("internal error: {what} cursor built for another operator"),
    )
}

/// Measures rows and time of the operator it wraps (PROFILE).
struct Profiled {
    id: usize,
    inner: BoxCursor,
}

impl Cursor for Profiled {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let start = Instant::now();
        let more = self.inner.next(cx, row)?;
        let elapsed = start.elapsed();
        if let Some(p) = cx.profile.as_mut().and_then(|p| p.get_mut(self.id)) {
            p.time += elapsed;
            if more {
                p.rows += 1;
            }
        }
        Ok(more)
    }

    fn reset(&mut self) {
        self.inner.reset();
    }
}
