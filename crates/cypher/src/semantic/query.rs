//! Queries: clause sequences, `UNION`, and the scopes subqueries start from.

use std::collections::BTreeSet;

use super::scope::Scope;
use super::types::Type;
use super::{Analyzer, Result};
use crate::ast::{
    ClauseKind, ExprKind, Query, ShowCommand, ShowFilter, ShowKind, SingleQuery, SubqueryKind,
    TerminateTransactions,
};
use crate::error::Detail;

/// Where a query stands: the rules for how it may end differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum QueryKind {
    Top,
    CallSubquery,
    Subquery(SubqueryKind),
}

impl QueryKind {
    /// Inside `EXISTS`/`COUNT`/`COLLECT` nothing may be written.
    pub(crate) fn read_only(self) -> bool {
        matches!(self, QueryKind::Subquery(_))
    }
}

/// What each single query of a query starts with.
pub(crate) enum Import<'s> {
    /// Every part starts from this scope.
    Given(&'s Scope),
    /// `CALL { ... }` without a scope clause: a part sees the outer variables only through a
    /// leading `WITH` of plain variable references.
    ImportingWith(&'s Scope),
}

/// The columns a query returns, with their types; `None` when it returns nothing.
pub(crate) type Columns = Option<Vec<(String, Type)>>;

impl Analyzer<'_> {
    pub(crate) fn top_level_query(&mut self, query: &Query) -> Result<Vec<String>> {
        let empty = Scope::default();
        let columns = self.query(query, &Import::Given(&empty), QueryKind::Top)?;
        Ok(columns
            .unwrap_or_default()
            .into_iter()
            .map(|(name, _)| name)
            .collect())
    }

    pub(crate) fn query(
        &mut self,
        query: &Query,
        import: &Import<'_>,
        kind: QueryKind,
    ) -> Result<Columns> {
        if let Some(first) = query.unions.first()
            && let Some(mixed) = query.unions.iter().find(|u| u.all != first.all)
        {
            return Err(self.syntax_error(
                Detail::InvalidClauseComposition,
                "Invalid combination of UNION and UNION ALL",
                mixed.span,
            ));
        }
        let standalone = kind == QueryKind::Top
            && query.unions.is_empty()
            && query.first.clauses.len() == 1
            && matches!(query.first.clauses[0].kind, ClauseKind::CallProcedure(_));
        let first = self.single_query(&query.first, import, kind, standalone)?;
        for union in &query.unions {
            let columns = self.single_query(&union.query, import, kind, false)?;
            let names = |c: &Columns| -> Option<BTreeSet<String>> {
                c.as_ref()
                    .map(|c| c.iter().map(|(name, _)| name.clone()).collect())
            };
            let same_length = first.as_ref().map(Vec::len) == columns.as_ref().map(Vec::len);
            if !same_length || names(&first) != names(&columns) {
                return Err(self.syntax_error(
                    Detail::DifferentColumnsInUnion,
                    "All sub queries in an UNION must have the same return column names",
                    union.span,
                ));
            }
        }
        Ok(first)
    }

    fn single_query(
        &mut self,
        query: &SingleQuery,
        import: &Import<'_>,
        kind: QueryKind,
        standalone: bool,
    ) -> Result<Columns> {
        let mut scope = match import {
            Import::Given(scope) => (*scope).clone(),
            Import::ImportingWith(outer) => {
                if starts_with_importing_with(query) {
                    (*outer).clone()
                } else {
                    Scope::default()
                }
            }
        };
        let count = query.clauses.len();
        let mut columns = None;
        for (i, clause) in query.clauses.iter().enumerate() {
            let last = i + 1 == count;
            if !last && matches!(clause.kind, ClauseKind::Return(_) | ClauseKind::Finish) {
                return Err(self.syntax_error(
                    Detail::InvalidClauseComposition,
                    format!(
                        "{} can only be used at the end of the query",
                        clause.kind.name()
                    ),
                    clause.span,
                ));
            }
            if i > 0 && matches!(clause.kind, ClauseKind::Use(_)) {
                return Err(self.syntax_error(
                    Detail::InvalidClauseComposition,
                    "USE clause must be the first clause in a (sub-)query",
                    clause.span,
                ));
            }
            if kind.read_only() && clause.kind.is_update() {
                return Err(self.syntax_error(
                    Detail::InvalidClauseComposition,
                    "A subquery expression cannot contain updating clauses",
                    clause.span,
                ));
            }
            columns = self.clause(clause, &mut scope, kind, standalone)?;
        }
        let Some(last) = query.clauses.last() else {
            return Ok(None);
        };
        let ends_well = match &last.kind {
            ClauseKind::Return(_) | ClauseKind::Finish => true,
            kind if kind.is_update() => true,
            ClauseKind::CallSubquery(_) => columns.is_none(),
            ClauseKind::CallProcedure(call) => standalone || call.yields.is_none(),
            _ => false,
        };
        match kind {
            QueryKind::Top | QueryKind::CallSubquery if !ends_well => Err(self.syntax_error(
                Detail::InvalidClauseComposition,
                format!(
                    "Query cannot conclude with {} (must be a RETURN clause, a FINISH \
                         clause, an update clause, a unit subquery call, or a procedure call \
                         with no YIELD)",
                    last.kind.name()
                ),
                last.span,
            )),
            QueryKind::Subquery(SubqueryKind::Collect)
                if !matches!(last.kind, ClauseKind::Return(_))
                    || columns.as_ref().is_none_or(|c| c.len() != 1) =>
            {
                Err(self.syntax_error(
                    Detail::InvalidClauseComposition,
                    "A COLLECT subquery must end with a single return column",
                    last.span,
                ))
            }
            _ => Ok(match last.kind {
                ClauseKind::Return(_) => columns,
                ClauseKind::CallProcedure(_) if standalone => columns,
                _ => None,
            }),
        }
    }

    /// The full-query body of `EXISTS { }`, `COUNT { }` or `COLLECT { }`.
    pub(crate) fn subquery_query(
        &mut self,
        query: &Query,
        kind: SubqueryKind,
        scope: &Scope,
    ) -> Result<()> {
        self.query(query, &Import::Given(scope), QueryKind::Subquery(kind))?;
        Ok(())
    }

    /// `SHOW ...`: the columns are the engine's; only the expressions are checked here.
    pub(crate) fn show_command(&mut self, show: &ShowCommand) -> Result<()> {
        if let ShowKind::Transactions(exprs) | ShowKind::Settings(exprs) = &show.kind {
            self.constant_expressions(exprs)?;
        }
        if let Some(filter) = &show.filter {
            self.show_filter(filter);
        }
        Ok(())
    }

    pub(crate) fn terminate(&mut self, terminate: &TerminateTransactions) -> Result<()> {
        self.constant_expressions(&terminate.ids)?;
        if let Some(filter) = &terminate.filter {
            self.show_filter(filter);
        }
        Ok(())
    }

    /// The passwords of an administration command: constant expressions, like the ids of
    /// `TERMINATE TRANSACTIONS`.
    pub(crate) fn admin(&mut self, command: &crate::ast::AdminCommand) -> Result<()> {
        let exprs: Vec<crate::ast::Expr> = command.expressions().into_iter().cloned().collect();
        self.constant_expressions(&exprs)
    }

    /// The options and properties of a database command: constant expressions too.
    pub(crate) fn database(&mut self, command: &crate::ast::DatabaseCommand) -> Result<()> {
        let exprs: Vec<crate::ast::Expr> = command.expressions().into_iter().cloned().collect();
        self.constant_expressions(&exprs)
    }

    fn constant_expressions(&mut self, exprs: &[crate::ast::Expr]) -> Result<()> {
        let empty = Scope::default();
        for expr in exprs {
            self.expr(
                expr,
                &mut super::scope::Env::new(&empty),
                super::expr::Ctx::PLAIN,
            )?;
        }
        Ok(())
    }

    /// The columns a `SHOW` filter names, and the parameters it reads.
    fn show_filter(&mut self, filter: &ShowFilter) {
        let mut exprs = Vec::new();
        match filter {
            ShowFilter::Where(predicate) => exprs.push(predicate),
            ShowFilter::Yield {
                projection,
                filter,
                returns,
            } => {
                exprs.extend(filter.iter());
                exprs.extend(projection.skip.iter().chain(projection.limit.iter()));
                exprs.extend(projection.order_by.iter().map(|s| &s.expr));
                let shown = returns.as_ref().map_or(projection, |r| &r.projection);
                if !shown.star {
                    self.analysis.columns =
                        shown.items.iter().map(|i| i.name().to_string()).collect();
                }
                if let Some(returns) = returns {
                    exprs.extend(returns.projection.items.iter().map(|i| &i.expr));
                }
            }
        }
        for expr in exprs {
            let _ = super::walk::walk::<()>(expr, &mut Vec::new(), &mut |node| {
                if let super::walk::Node::Expr(e) = node
                    && let ExprKind::Parameter(name) = &e.kind
                {
                    self.note_parameter(name, e.span);
                }
                Ok(super::walk::Visit::Descend)
            });
        }
    }
}

/// Whether a subquery part starts with `WITH a, b` (or `WITH *`): plain references only.
fn starts_with_importing_with(query: &SingleQuery) -> bool {
    let Some(ClauseKind::With(with)) = query.clauses.first().map(|c| &c.kind) else {
        return false;
    };
    with.projection
        .items
        .iter()
        .all(|item| match &item.expr.kind {
            ExprKind::Variable(v) => item.alias.as_ref().is_none_or(|a| a.name == v.name),
            _ => false,
        })
}
