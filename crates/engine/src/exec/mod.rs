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
mod factorized;
mod load_csv;
pub(crate) mod parallel;
mod pathsearch;
mod relational;
mod scan;
mod shortest;
pub(crate) mod transactions;
mod varexpand;
mod write;

pub(crate) use crate::eval::{BoxCursor, Cursor, Cx};
pub(crate) use command::read_only_error;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use quiver_storage::Transaction as StorageTx;
use quiver_value::{FunctionContext, Value};

use crate::error::Result;
use crate::ir::{Expr, Op, PlanNode, Row, SortKey};
use crate::state::DatabaseState;
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
            tx_id: 0,
            cancel,
            deadline,
            time_limit_ms,
            memory_bytes: 0,
            memory_peak_bytes: 0,
            memory_bytes_max,
            memory_reserved_bytes: 0,
            writes: Arc::default(),
            write_pending_bytes: 0,
            var_length_hops_max,
            profile: None,
            db_hits: 0,
            pending_deletes: Vec::new(),
            load_csv: None,
            open: build,
            ticks: 0,
            subject: Arc::new(crate::security::Subject::Unrestricted),
            visibility: None,
            audit: Arc::default(),
            morsels: None,
        }
    }
}

/// Instantiates cursors for a plan.
pub(crate) fn build(plan: &Arc<PlanNode>, cx: &Cx) -> Result<BoxCursor> {
    if let Some((morsels, worker)) = &cx.morsels
        && morsels.replaces(plan)
    {
        return Ok(morsels.cursor(*worker));
    }
    if let Op::ChainCount { fallback, .. } = &plan.op
        && !(cx.shared.config.factorized_counts && crate::plan::fast_counts_allowed(&cx.subject))
    {
        return build(fallback, cx);
    }
    let cursor = cursor(&plan.op, &|n| build(n, cx))?;
    Ok(if cx.profile.is_some() {
        Box::new(Profiled {
            id: plan.id,
            inner: cursor,
        })
    } else {
        cursor
    })
}

/// How a cursor gets the cursors of the plans under it.
type Child<'a> = dyn Fn(&Arc<PlanNode>) -> Result<BoxCursor> + 'a;

/// The cursor of one operator, over the cursors `child` builds for its inputs. The match names
/// every operator and builds each one's cursor from its fields, once: a new operator cannot be
/// left without a cursor, and no cursor ever looks at a plan node again.
#[expect(
    clippy::too_many_lines,
    reason = "one arm per operator: the match is what proves every operator has a cursor"
)]
fn cursor(op: &Op, child: &Child<'_>) -> Result<BoxCursor> {
    use relational::{Aggregate, Distinct, Eager, Filter, Project, SkipLimit, Unwind};
    use scan::{Count, Counted, Scan, Source};
    Ok(match op {
        Op::Once => Box::new(relational::Once::default()),
        Op::AllNodes { input, slot } => Box::new(Scan::new(*slot, Source::All, child(input)?)),
        Op::LabelScan { input, slot, label } => Box::new(Scan::new(
            *slot,
            Source::Label(label.clone()),
            child(input)?,
        )),
        Op::IndexSeek {
            input,
            slot,
            label,
            key,
            seek,
        } => {
            let (label, key, seek) = (label.clone(), key.clone(), seek.clone());
            Box::new(Scan::new(
                *slot,
                Source::Index { label, key, seek },
                child(input)?,
            ))
        }
        Op::SchemaIndexSeek { input, spec } => {
            Box::new(scan::SchemaSeek::new(spec.clone(), child(input)?))
        }
        Op::NodeById {
            input,
            slot,
            ids,
            many,
        } => {
            let source = Source::ById {
                ids: ids.clone(),
                many: *many,
            };
            Box::new(Scan::new(*slot, source, child(input)?))
        }
        Op::NodeCount { input, slot, label } => Box::new(Count::new(
            *slot,
            Counted::Nodes(label.clone()),
            child(input)?,
        )),
        Op::RelCount { input, slot, ty } => {
            Box::new(Count::new(*slot, Counted::Rels(ty.clone()), child(input)?))
        }
        Op::ChainCount {
            input,
            spec,
            fallback,
        } => Box::new(factorized::FactorizedCount::new(
            spec.clone(),
            child(input)?,
            fallback.clone(),
        )),
        Op::Expand { input, spec } => Box::new(expand::Expand::new(spec.clone(), child(input)?)),
        Op::VarExpand { input, spec } => {
            Box::new(varexpand::VarExpand::new(spec.clone(), child(input)?))
        }
        Op::PathSearch { input, spec } => {
            Box::new(pathsearch::PathSearch::new(spec.clone(), child(input)?))
        }
        Op::ShortestPath { input, spec } => {
            Box::new(shortest::ShortestPath::new(spec.clone(), child(input)?))
        }
        Op::Filter { input, predicate } => Box::new(Filter::new(predicate.clone(), child(input)?)),
        Op::Project { input, items } => Box::new(Project::new(items.clone(), child(input)?)),
        Op::Aggregate { input, keys, aggs } => Box::new(Aggregate::new(
            keys.clone(),
            aggs.clone(),
            child(input)?,
            input,
        )),
        Op::Distinct { input, slots } => Box::new(Distinct::new(slots.clone(), child(input)?)),
        Op::Sort { input, keys, keep } => sort(keys, keep, None, None, child(input)?),
        Op::Top {
            input,
            keys,
            keep,
            skip,
            limit,
        } => sort(keys, keep, skip.clone(), Some(limit.clone()), child(input)?),
        Op::Skip { input, count } => Box::new(SkipLimit::new(count.clone(), None, child(input)?)),
        Op::Limit {
            input,
            count,
            drain,
        } => Box::new(SkipLimit::new(count.clone(), Some(*drain), child(input)?)),
        Op::Unwind { input, list, slot } => {
            Box::new(Unwind::new(list.clone(), *slot, child(input)?))
        }
        Op::LoadCsv { input, spec } => load_csv::LoadCsv::boxed(spec.clone(), child(input)?),
        Op::Eager { input, keep } => Box::new(Eager::new(keep.clone(), child(input)?)),
        Op::Optional {
            input,
            inner,
            null_slots,
        } => nested(
            apply::Mode::Optional(null_slots.clone()),
            input,
            inner,
            child,
        )?,
        Op::SemiApply {
            input,
            inner,
            negated,
        } => nested(apply::Mode::Semi { negated: *negated }, input, inner, child)?,
        Op::Apply { input, inner } => nested(apply::Mode::Apply, input, inner, child)?,
        Op::UnitApply { input, inner } => nested(apply::Mode::Unit, input, inner, child)?,
        Op::Transactions {
            input,
            inner,
            batch,
        } => transactions::Transactions::boxed(
            batch.clone(),
            child(input)?,
            child(inner)?,
            inner.clone(),
        ),
        Op::Foreach {
            input,
            slot,
            list,
            inner,
        } => {
            let (slot, list) = (*slot, list.clone());
            nested(apply::Mode::Foreach { slot, list }, input, inner, child)?
        }
        Op::Union { branches } => {
            let cursors = branches.iter().map(child).collect::<Result<Vec<_>>>()?;
            Box::new(apply::Union::new(cursors))
        }
        Op::Create { input, steps } => write(write::Change::Create(steps.clone()), input, child)?,
        Op::Set { input, ops } => write(write::Change::Set(ops.clone()), input, child)?,
        Op::Delete {
            input,
            exprs,
            detach,
        } => {
            let (exprs, detach) = (exprs.clone(), *detach);
            write(write::Change::Delete { exprs, detach }, input, child)?
        }
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
        } => {
            let (procedure, args, yields) = (procedure.clone(), args.clone(), yields.clone());
            Box::new(command::ProcedureCall::new(
                procedure,
                args,
                yields,
                child(input)?,
            ))
        }
        Op::Command { command, out } => {
            Box::new(command::CommandCursor::new(command.clone(), out.clone()))
        }
    })
}

/// Sort (no `limit`) or Top.
fn sort(
    keys: &Arc<[SortKey]>,
    keep: &Arc<[usize]>,
    skip: Option<Arc<Expr>>,
    limit: Option<Arc<Expr>>,
    input: BoxCursor,
) -> BoxCursor {
    let by = relational::SortBy {
        keys: keys.clone(),
        keep: keep.clone(),
        skip,
        limit,
    };
    Box::new(relational::Sort::new(by, input))
}

/// An operator that runs an inner plan per input row.
fn nested(
    mode: apply::Mode,
    input: &Arc<PlanNode>,
    inner: &Arc<PlanNode>,
    child: &Child<'_>,
) -> Result<BoxCursor> {
    Ok(apply::ApplyCursor::boxed(
        mode,
        child(input)?,
        child(inner)?,
    ))
}

/// An operator that changes the graph once per input row.
fn write(change: write::Change, input: &Arc<PlanNode>, child: &Child<'_>) -> Result<BoxCursor> {
    Ok(Box::new(write::Write::new(change, child(input)?)))
}

/// Measures rows, db hits and time of the operator it wraps (PROFILE). Hits and time include
/// the operators below, whose own wrappers measured them: the description subtracts theirs.
struct Profiled {
    id: usize,
    inner: BoxCursor,
}

impl Cursor for Profiled {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let start = Instant::now();
        let hits = cx.db_hits;
        let more = self.inner.next(cx, row)?;
        let elapsed = start.elapsed();
        let hits = cx.db_hits - hits;
        if let Some(p) = cx.profile.as_mut().and_then(|p| p.get_mut(self.id)) {
            p.time += elapsed;
            p.db_hits += hits;
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
