//! WITH and RETURN: projection, aggregation, DISTINCT, ORDER BY, SKIP, LIMIT and WITH's WHERE.

use std::sync::Arc;

use quiver_cypher::ast::{self, ExprKind, Literal};
use quiver_cypher::{Detail, Span, Status};

use super::clauses::{Planner, Result};
use super::expr::{Agg, AggCtx, contains_aggregate};
use super::scope::Scope;
use crate::ir::{AggKind, AggSpec, Expr, Op, PlanNode, SortKey};

/// `MATCH (n[:L]) RETURN count(n)` and `MATCH ()-[r[:T]]->() RETURN count(r)` answered from
/// the store's counts instead of a scan.
fn count_store(input: &Arc<PlanNode>, keys: &[(usize, Expr)], aggs: &[AggSpec]) -> Option<Op> {
    let [agg] = aggs else {
        return None;
    };
    if !keys.is_empty() || agg.distinct {
        return None;
    }
    let counted = match (agg.kind, &agg.arg) {
        (AggKind::CountStar, _) => None,
        (AggKind::Count, Some(Expr::Slot(s))) => Some(*s),
        _ => return None,
    };
    let once = |n: &Arc<PlanNode>| matches!(n.op, Op::Once);
    match &input.op {
        Op::LabelScan {
            input: i,
            slot,
            label,
        } if once(i) && counted.is_none_or(|c| c == *slot) => Some(Op::NodeCount {
            input: i.clone(),
            slot: agg.out,
            label: Some(label.clone()),
        }),
        Op::AllNodes { input: i, slot } if once(i) && counted.is_none_or(|c| c == *slot) => {
            Some(Op::NodeCount {
                input: i.clone(),
                slot: agg.out,
                label: None,
            })
        }
        Op::Expand { input: scan, spec }
            if !spec.into
                && spec.dir != quiver_storage::Direction::Both
                && spec.types.len() <= 1
                && counted.is_none_or(|c| c == spec.rel) =>
        {
            match &scan.op {
                Op::AllNodes { input: i, slot } if once(i) && *slot == spec.from => {
                    Some(Op::RelCount {
                        input: i.clone(),
                        slot: agg.out,
                        ty: spec.types.first().cloned(),
                    })
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// One projected column: its name, its expression, and whether it aggregates.
struct Item {
    name: Arc<str>,
    expr: ast::Expr,
    aggregate: bool,
}

/// One WITH or RETURN clause as the planner sees it.
pub(super) struct ProjectionClause<'c> {
    pub projection: &'c ast::Projection,
    /// WITH's WHERE.
    pub filter: Option<&'c ast::Expr>,
    /// Slots the columns must land in (the branches of a UNION share them).
    pub targets: Option<&'c [usize]>,
    /// The clause's span: the key of its analysis, and the position of its errors.
    pub span: Span,
}

/// What a projection's items became: the plan so far, the projected scope, the slot of
/// every item and the sort keys.
struct Projected {
    plan: Arc<PlanNode>,
    scope: Scope,
    out_slots: Vec<usize>,
    sort_keys: Vec<SortKey>,
    /// Items no sort key reads, computed after a top-n rather than for every row it ranks.
    deferred: Vec<(usize, Expr)>,
}

impl Planner<'_> {
    /// A SKIP or LIMIT expression: constant, and when literal, a non-negative integer.
    fn count_expr(&mut self, e: &ast::Expr, what: &str) -> Result<Expr> {
        let mut uses_variables = false;
        super::expr::visit(e, &mut |x| {
            if matches!(
                x.kind,
                ExprKind::Variable(_)
                    | ExprKind::Pattern(_)
                    | ExprKind::Subquery(_)
                    | ExprKind::PatternComprehension(_)
            ) {
                uses_variables = true;
            }
        });
        if uses_variables {
            return Err(self.err(
                Status::SyntaxError,
                Detail::NonConstantExpression,
                format!("It is not allowed to refer to variables in {what}"),
                e.span,
            ));
        }
        match &e.kind {
            ExprKind::Literal(Literal::Integer(i)) if *i < 0 => {
                return Err(self.err(
                    Status::SyntaxError,
                    Detail::NegativeIntegerArgument,
                    format!(
                        "Invalid input. '{i}' is not a valid value. Must be a non-negative integer."
                    ),
                    e.span,
                ));
            }
            ExprKind::Literal(Literal::Float(f)) => {
                return Err(self.err(
                    Status::SyntaxError,
                    Detail::InvalidArgumentType,
                    format!(
                        "Invalid input. '{f}' is not a valid value. Must be a non-negative integer."
                    ),
                    e.span,
                ));
            }
            _ => {}
        }
        self.expr(e, &Scope::default())
    }

    /// The items of a projection the analysis has not seen (`SHOW ... YIELD ... RETURN`),
    /// checked as the analysis would. Two of its checks cannot fail there: a command always
    /// has columns, so `*` always has variables, and `YIELD` names columns only, so it has no
    /// expression to alias.
    fn items(&self, p: &ast::Projection, pre: &Scope, span: Span) -> Result<Vec<Item>> {
        let mut items = Vec::new();
        if p.star {
            let mut names: Vec<Arc<str>> = pre.names();
            names.sort();
            for name in names {
                items.push(Item {
                    aggregate: false,
                    expr: ast::Expr::new(
                        ExprKind::Variable(ast::Ident::with_span(&*name, span)),
                        span,
                    ),
                    name,
                });
            }
        }
        for item in &p.items {
            let name: Arc<str> = Arc::from(item.name());
            if items.iter().any(|i: &Item| i.name == name) {
                return Err(self.err(
                    Status::SyntaxError,
                    Detail::ColumnNameConflict,
                    format!(
                        "Multiple result columns with the same name are not supported: `{name}`"
                    ),
                    item.span,
                ));
            }
            items.push(Item {
                name,
                aggregate: contains_aggregate(&item.expr),
                expr: item.expr.clone(),
            });
        }
        Ok(items)
    }

    /// The items of a projection, `*` expanded: from the analysis, which has checked and
    /// named them; `SHOW ... YIELD` is not analysed, so its items are derived (and checked)
    /// here.
    fn projection_items(&self, c: &ProjectionClause<'_>, pre: &Scope) -> Result<Vec<Item>> {
        let Some(info) = self.analysis.projection_at(c.span) else {
            return self.items(c.projection, pre, c.span);
        };
        Ok(info
            .columns
            .iter()
            .map(|col| {
                let expr = match col.item.and_then(|i| c.projection.items.get(i)) {
                    Some(item) => item.expr.clone(),
                    None => ast::Expr::new(
                        ExprKind::Variable(ast::Ident::with_span(col.name.as_str(), c.span)),
                        c.span,
                    ),
                };
                Item {
                    name: Arc::from(col.name.as_str()),
                    expr,
                    aggregate: col.aggregate,
                }
            })
            .collect())
    }

    /// Per ORDER BY item, the column it sorts by when it is exactly a projected one: the
    /// analysis's resolution (by expression, then by alias, as Neo4j allows), or for a
    /// projection it has not seen (`SHOW ... YIELD`) the item of the same expression. Any
    /// other sort key is evaluated, where a projected alias reads that column too.
    fn sorted_columns(&self, c: &ProjectionClause<'_>, items: &[Item]) -> Vec<Option<usize>> {
        match self.analysis.projection_at(c.span) {
            Some(info) => info.order_by_columns.clone(),
            None => c
                .projection
                .order_by
                .iter()
                .map(|s| items.iter().position(|it| it.expr == s.expr))
                .collect(),
        }
    }

    /// Plans a WITH or RETURN; replaces `scope` with the projected variables. Returns the plan,
    /// column names and their slots.
    pub(super) fn projection(
        &mut self,
        input: Arc<PlanNode>,
        scope: &mut Scope,
        c: &ProjectionClause<'_>,
    ) -> Result<(Arc<PlanNode>, Vec<Arc<str>>, Vec<usize>)> {
        let pre = scope.clone();
        let items = self.projection_items(c, &pre)?;
        let aggregating = items.iter().any(|i| i.aggregate);
        let projected = if aggregating {
            self.aggregating_items(input, &pre, &items, c)?
        } else {
            self.plain_items(input, &pre, &items, c)?
        };
        let Projected {
            plan,
            scope: new_scope,
            out_slots,
            sort_keys,
            deferred,
        } = projected;
        let predicate =
            self.projection_filter(c, &pre, &items, &out_slots, &new_scope, aggregating)?;
        let mut keep = new_scope.slots();
        let mut read = Vec::new();
        if let Some(p) = &predicate {
            p.slots(&mut read);
        }
        for (_, e) in &deferred {
            e.slots(&mut read);
        }
        for s in read {
            if !keep.contains(&s) {
                keep.push(s);
            }
        }
        let mut plan = self.order_and_page(plan, c.projection, sort_keys, keep, &new_scope)?;
        if !deferred.is_empty() {
            let est = plan.est_rows;
            plan = self.node(
                Op::Project {
                    input: plan,
                    items: deferred.into(),
                },
                est,
                &new_scope,
            );
        }
        if let Some(predicate) = predicate {
            let est = plan.est_rows * 0.5;
            plan = self.node(
                Op::Filter {
                    input: plan,
                    predicate: predicate.into(),
                },
                est,
                &new_scope,
            );
        }
        *scope = new_scope;
        let columns = items.into_iter().map(|i| i.name).collect();
        Ok((plan, columns, out_slots))
    }

    /// Grouping keys and aggregates (answered from the count store where it can), then the
    /// items computed from aggregates, DISTINCT, and the sort keys over the grouped rows.
    fn aggregating_items(
        &mut self,
        input: Arc<PlanNode>,
        pre: &Scope,
        items: &[Item],
        c: &ProjectionClause<'_>,
    ) -> Result<Projected> {
        let p = c.projection;
        let target = |i: usize| c.targets.and_then(|t| t.get(i).copied());
        let est_in = input.est_rows;
        let mut new_scope = Scope::default();
        let mut out_slots = vec![0usize; items.len()];
        let mut sort_keys: Vec<SortKey> = Vec::new();
        let mut ctx = AggCtx {
            pre: pre.clone(),
            keys: Vec::new(),
            aggs: Vec::new(),
        };
        let mut key_items: Vec<(usize, Expr)> = Vec::new();
        let mut post_items: Vec<(usize, Expr)> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            if item.aggregate {
                continue;
            }
            let compiled = self.expr(&item.expr, pre)?;
            let slot = target(i).unwrap_or_else(|| self.slot());
            ctx.keys.push((item.expr.clone(), slot));
            key_items.push((slot, compiled));
            out_slots[i] = slot;
        }
        let empty = Scope::default();
        for (i, item) in items.iter().enumerate() {
            if !item.aggregate {
                continue;
            }
            let compiled = self.expr_with(&item.expr, &empty, &mut Agg::Collect(&mut ctx))?;
            let slot = target(i).unwrap_or_else(|| self.slot());
            post_items.push((slot, compiled));
            out_slots[i] = slot;
        }
        for (i, item) in items.iter().enumerate() {
            new_scope.bind(&item.name, out_slots[i]);
        }
        for (s, column) in p.order_by.iter().zip(self.sorted_columns(c, items)) {
            let expr = match column {
                Some(i) => Expr::Slot(out_slots[i]),
                None => self.expr_with(&s.expr, &new_scope, &mut Agg::Collect(&mut ctx))?,
            };
            sort_keys.push(SortKey {
                expr,
                descending: s.descending,
            });
        }
        let groups = if key_items.is_empty() {
            1.0
        } else {
            (est_in / 2.0).max(1.0)
        };
        let aggregated = self.aggregation(input, key_items, ctx.aggs, groups, &new_scope);
        let plan = self.project_distinct(aggregated, post_items, p.distinct, groups, &new_scope);
        Ok(Projected {
            plan,
            scope: new_scope,
            out_slots,
            sort_keys,
            deferred: Vec::new(),
        })
    }

    /// `items` computed on `plan` (when there are any), then, when `distinct`, DISTINCT over
    /// the slots of `scope`: how every projection ends, `est` rows throughout.
    fn project_distinct(
        &mut self,
        mut plan: Arc<PlanNode>,
        items: Vec<(usize, Expr)>,
        distinct: bool,
        est: f64,
        scope: &Scope,
    ) -> Arc<PlanNode> {
        if !items.is_empty() {
            plan = self.node(
                Op::Project {
                    input: plan,
                    items: items.into(),
                },
                est,
                scope,
            );
        }
        if distinct {
            plan = self.node(
                Op::Distinct {
                    input: plan,
                    slots: scope.slots().into(),
                },
                est,
                scope,
            );
        }
        plan
    }

    /// The aggregation over `input`: from the count store, factorized over a chain of
    /// expansions (keeping the row-at-a-time plan for when fast counts are not allowed), or
    /// row by row.
    fn aggregation(
        &mut self,
        input: Arc<PlanNode>,
        keys: Vec<(usize, Expr)>,
        aggs: Vec<AggSpec>,
        groups: f64,
        scope: &Scope,
    ) -> Arc<PlanNode> {
        if let Some(op) = count_store(&input, &keys, &aggs) {
            return self.node(op, 1.0, scope);
        }
        let chain = super::factorize::chain_count(&input, &keys, &aggs);
        let aggregate = self.node(
            Op::Aggregate {
                input,
                keys: keys.into(),
                aggs: aggs.into(),
            },
            groups,
            scope,
        );
        match chain {
            Some((input, spec)) => self.node(
                Op::ChainCount {
                    input,
                    spec: spec.into(),
                    fallback: aggregate,
                },
                1.0,
                scope,
            ),
            None => aggregate,
        }
    }

    /// Items computed row by row (a variable passed on keeps its slot), DISTINCT, and the
    /// sort keys, which also see the variables before the projection unless it is DISTINCT.
    fn plain_items(
        &mut self,
        input: Arc<PlanNode>,
        pre: &Scope,
        items: &[Item],
        c: &ProjectionClause<'_>,
    ) -> Result<Projected> {
        let p = c.projection;
        let target = |i: usize| c.targets.and_then(|t| t.get(i).copied());
        let est_in = input.est_rows;
        let mut new_scope = Scope::default();
        let mut out_slots = vec![0usize; items.len()];
        let mut sort_keys: Vec<SortKey> = Vec::new();
        let mut proj: Vec<(usize, Expr)> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let compiled = self.expr(&item.expr, pre)?;
            let slot = match (target(i), &compiled) {
                (Some(t), _) => t,
                (None, Expr::Slot(s)) => *s,
                (None, _) => self.slot(),
            };
            if !matches!(&compiled, Expr::Slot(s) if *s == slot) {
                proj.push((slot, compiled));
            }
            out_slots[i] = slot;
            new_scope.bind(&item.name, slot);
        }
        let sort_scope = if p.distinct {
            new_scope.clone()
        } else {
            let mut s = pre.clone();
            for v in &new_scope.vars {
                s.vars.push(v.clone());
            }
            s
        };
        for (s, column) in p.order_by.iter().zip(self.sorted_columns(c, items)) {
            let expr = if let Some(i) = column {
                Expr::Slot(out_slots[i])
            } else {
                match self.expr(&s.expr, &sort_scope) {
                    Ok(e) => e,
                    Err(e) if p.distinct && e.kind.detail == Detail::UndefinedVariable => {
                        return Err(self.err(
                            Status::SyntaxError,
                            Detail::UndefinedVariable,
                            "In a WITH/RETURN with DISTINCT or an aggregation, it is not possible to access variables declared before the WITH/RETURN",
                            s.expr.span,
                        ));
                    }
                    Err(e) => return Err(e),
                }
            };
            sort_keys.push(SortKey {
                expr,
                descending: s.descending,
            });
        }
        // Under ORDER BY ... LIMIT, an item the sort does not read is computed for the rows
        // kept only: `RETURN m.id, m.content ... ORDER BY m.date LIMIT 20` reads 20 contents,
        // not one per row ranked. A WITH's WHERE may read any item, so it keeps them all.
        let defer = !p.distinct
            && p.limit.is_some()
            && !sort_keys.is_empty()
            && c.filter.is_none()
            && proj.len() > 1;
        let deferred = if defer {
            let mut read = Vec::new();
            for key in &sort_keys {
                key.expr.slots(&mut read);
            }
            let (early, late): (Vec<_>, Vec<_>) =
                proj.into_iter().partition(|(slot, _)| read.contains(slot));
            proj = early;
            late
        } else {
            Vec::new()
        };
        let plan = self.project_distinct(input, proj, p.distinct, est_in, &new_scope);
        Ok(Projected {
            plan,
            scope: new_scope,
            out_slots,
            sort_keys,
            deferred,
        })
    }

    /// WITH's WHERE: it sees the projected names and, when nothing was aggregated or made
    /// distinct, the variables before them too.
    fn projection_filter(
        &mut self,
        c: &ProjectionClause<'_>,
        pre: &Scope,
        items: &[Item],
        out_slots: &[usize],
        new_scope: &Scope,
        aggregating: bool,
    ) -> Result<Option<Expr>> {
        Ok(match c.filter {
            Some(f) if aggregating || c.projection.distinct => {
                // Expressions equal to projected items read the items' values.
                let mut ctx = AggCtx {
                    pre: pre.clone(),
                    keys: items
                        .iter()
                        .zip(out_slots)
                        .map(|(i, s)| (i.expr.clone(), *s))
                        .collect(),
                    aggs: Vec::new(),
                };
                let e = self.expr_with(f, new_scope, &mut Agg::Collect(&mut ctx))?;
                if !ctx.aggs.is_empty() {
                    return Err(self.err(
                        Status::SyntaxError,
                        Detail::InvalidAggregation,
                        "Aggregations are not allowed in WHERE",
                        f.span,
                    ));
                }
                Some(e)
            }
            Some(f) => {
                let mut where_scope = pre.clone();
                for v in &new_scope.vars {
                    where_scope.vars.push(v.clone());
                }
                Some(self.expr(f, &where_scope)?)
            }
            None => None,
        })
    }

    /// ORDER BY, SKIP and LIMIT: a top-n when sorting under a limit, a sort then a skip when
    /// sorting without one; a LIMIT over writes drains its input so every update happens.
    fn order_and_page(
        &mut self,
        mut plan: Arc<PlanNode>,
        p: &ast::Projection,
        sort_keys: Vec<SortKey>,
        keep: Vec<usize>,
        scope: &Scope,
    ) -> Result<Arc<PlanNode>> {
        let skip = match &p.skip {
            Some(e) => Some(self.count_expr(e, "SKIP")?),
            None => None,
        };
        let limit = match &p.limit {
            Some(e) => Some(self.count_expr(e, "LIMIT")?),
            None => None,
        };
        let est = plan.est_rows;
        if !sort_keys.is_empty() {
            return Ok(match limit {
                Some(limit) => self.node(
                    Op::Top {
                        input: plan,
                        keys: sort_keys.into(),
                        keep: keep.into(),
                        skip: skip.map(Arc::new),
                        limit: limit.into(),
                    },
                    est,
                    scope,
                ),
                None => {
                    let sorted = self.node(
                        Op::Sort {
                            input: plan,
                            keys: sort_keys.into(),
                            keep: keep.into(),
                        },
                        est,
                        scope,
                    );
                    match skip {
                        Some(count) => self.node(
                            Op::Skip {
                                input: sorted,
                                count: count.into(),
                            },
                            est,
                            scope,
                        ),
                        None => sorted,
                    }
                }
            });
        }
        if let Some(count) = skip {
            plan = self.node(
                Op::Skip {
                    input: plan,
                    count: count.into(),
                },
                est,
                scope,
            );
        }
        if let Some(count) = limit {
            let drain = plan.subtree_writes();
            plan = self.node(
                Op::Limit {
                    input: plan,
                    count: count.into(),
                    drain,
                },
                est,
                scope,
            );
        }
        Ok(plan)
    }
}
