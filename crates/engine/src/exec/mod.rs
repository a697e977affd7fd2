//! The executor: pull-based cursors built from a plan.
//!
//! Every cursor of a pipeline writes into one shared row: an operator binds its own slots and
//! leaves its input's in place, so producing a row allocates nothing. Only operators that must
//! see all their input (sort, aggregation, distinct, eager) keep copies. A cursor is re-armed
//! with `reset` when an apply operator runs it again for the next outer row.
//!
//! [`build`] reads each plan node once: a cursor is handed its own handles on what it needs
//! (expressions, slots, specs), so running it never consults the plan tree again.

mod apply;
mod command;
mod expand;
mod relational;
mod scan;
mod shortest;
mod varexpand;
mod write;

pub(crate) use crate::eval::{BoxCursor, Cursor, Cx};
pub(crate) use command::read_only_error;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use quiver_storage::Transaction as StorageTx;
use quiver_value::{FunctionContext, Value};

use crate::database::DatabaseState;
use crate::error::Result;
use crate::ir::{Op, PlanNode, Row};
use crate::summary::Counters;

/// The executor creates the context, so that subquery expressions open their plans with
/// [`build`].
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
            open: build,
            ticks: 0,
        }
    }
}

/// Instantiates cursors for a plan.
pub(crate) fn build(plan: &Arc<PlanNode>, cx: &Cx) -> Result<BoxCursor> {
    let child = |n: &Arc<PlanNode>| build(n, cx);
    let cursor: BoxCursor = match &plan.op {
        Op::Once => Box::new(relational::Once::default()),
        Op::AllNodes { input, slot } => {
            Box::new(scan::Scan::new(*slot, scan::Source::All, child(input)?))
        }
        Op::LabelScan { input, slot, label } => Box::new(scan::Scan::new(
            *slot,
            scan::Source::Label(label.clone()),
            child(input)?,
        )),
        Op::IndexSeek {
            input,
            slot,
            label,
            key,
            seek,
        } => Box::new(scan::Scan::new(
            *slot,
            scan::Source::Index {
                label: label.clone(),
                key: key.clone(),
                seek: seek.clone(),
            },
            child(input)?,
        )),
        Op::NodeById {
            input,
            slot,
            ids,
            many,
        } => Box::new(scan::Scan::new(
            *slot,
            scan::Source::ById {
                ids: ids.clone(),
                many: *many,
            },
            child(input)?,
        )),
        Op::NodeCount { input, slot, label } => Box::new(scan::Count::new(
            *slot,
            scan::Counted::Nodes(label.clone()),
            child(input)?,
        )),
        Op::RelCount { input, slot, ty } => Box::new(scan::Count::new(
            *slot,
            scan::Counted::Rels(ty.clone()),
            child(input)?,
        )),
        Op::Expand { input, spec } => Box::new(expand::Expand::new(spec.clone(), child(input)?)),
        Op::VarExpand { input, spec } => {
            Box::new(varexpand::VarExpand::new(spec.clone(), child(input)?))
        }
        Op::ShortestPath { input, spec } => {
            Box::new(shortest::ShortestPath::new(spec.clone(), child(input)?))
        }
        Op::Filter { input, predicate } => {
            Box::new(relational::Filter::new(predicate.clone(), child(input)?))
        }
        Op::Project { input, items } => {
            Box::new(relational::Project::new(items.clone(), child(input)?))
        }
        Op::Aggregate { input, keys, aggs } => Box::new(relational::Aggregate::new(
            keys.clone(),
            aggs.clone(),
            child(input)?,
        )),
        Op::Distinct { input, slots } => {
            Box::new(relational::Distinct::new(slots.clone(), child(input)?))
        }
        Op::Sort { input, keys, keep } => Box::new(relational::Sort::new(
            relational::SortBy {
                keys: keys.clone(),
                keep: keep.clone(),
                skip: None,
                limit: None,
            },
            child(input)?,
        )),
        Op::Top {
            input,
            keys,
            keep,
            skip,
            limit,
        } => Box::new(relational::Sort::new(
            relational::SortBy {
                keys: keys.clone(),
                keep: keep.clone(),
                skip: skip.clone(),
                limit: Some(limit.clone()),
            },
            child(input)?,
        )),
        Op::Skip { input, count } => Box::new(relational::SkipLimit::new(
            count.clone(),
            None,
            child(input)?,
        )),
        Op::Limit {
            input,
            count,
            drain,
        } => Box::new(relational::SkipLimit::new(
            count.clone(),
            Some(*drain),
            child(input)?,
        )),
        Op::Unwind { input, list, slot } => {
            Box::new(relational::Unwind::new(list.clone(), *slot, child(input)?))
        }
        Op::Eager { input, keep } => Box::new(relational::Eager::new(keep.clone(), child(input)?)),
        Op::Optional {
            input,
            inner,
            null_slots,
        } => apply::ApplyCursor::boxed(
            apply::Mode::Optional(null_slots.clone()),
            child(input)?,
            child(inner)?,
        ),
        Op::SemiApply {
            input,
            inner,
            negated,
        } => apply::ApplyCursor::boxed(
            apply::Mode::Semi { negated: *negated },
            child(input)?,
            child(inner)?,
        ),
        Op::Apply { input, inner } => {
            apply::ApplyCursor::boxed(apply::Mode::Apply, child(input)?, child(inner)?)
        }
        Op::UnitApply { input, inner } => {
            apply::ApplyCursor::boxed(apply::Mode::Unit, child(input)?, child(inner)?)
        }
        Op::Foreach {
            input,
            slot,
            list,
            inner,
        } => apply::ApplyCursor::boxed(
            apply::Mode::Foreach {
                slot: *slot,
                list: list.clone(),
            },
            child(input)?,
            child(inner)?,
        ),
        Op::Union { branches } => {
            let mut cursors = Vec::with_capacity(branches.len());
            for b in branches {
                cursors.push(child(b)?);
            }
            Box::new(apply::Union::new(cursors))
        }
        Op::Create { input, steps } => Box::new(write::Write::new(
            write::Change::Create(steps.clone()),
            child(input)?,
        )),
        Op::Set { input, ops } => Box::new(write::Write::new(
            write::Change::Set(ops.clone()),
            child(input)?,
        )),
        Op::Delete {
            input,
            exprs,
            detach,
        } => Box::new(write::Write::new(
            write::Change::Delete {
                exprs: exprs.clone(),
                detach: *detach,
            },
            child(input)?,
        )),
        Op::Merge {
            input,
            matcher,
            spec,
        } => Box::new(write::Merge::new(
            spec.clone(),
            child(input)?,
            child(matcher)?,
        )),
        Op::ProcedureCall {
            input,
            procedure,
            args,
            yields,
        } => Box::new(command::ProcedureCall::new(
            procedure.clone(),
            args.clone(),
            yields.clone(),
            child(input)?,
        )),
        Op::Command { command, out } => {
            Box::new(command::CommandCursor::new(command.clone(), out.clone()))
        }
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
