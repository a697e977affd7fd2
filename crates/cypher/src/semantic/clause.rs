//! Clauses: how each one changes the scope, and the rules particular to it.

use std::collections::HashSet;

use super::expr::Ctx;
use super::pattern::PatternUse;
use super::query::{Columns, Import, QueryKind};
use super::scope::{Env, Scope};
use super::types::Type;
use super::walk::{Node, Visit, first_non_constant, walk};
use super::{Analyzer, ColumnInfo, ProjectionInfo, Result};
use crate::ast::{
    CallProcedure, CallSubquery, Clause, ClauseKind, Delete, Expr, ExprKind, Foreach, Hint,
    ImportScope, Literal, LoadCsv, Match, Merge, OnError, ProcedureYield, Projection, RemoveItem,
    SetItem,
};
use crate::error::{Detail, ErrorKind, Status};
use crate::span::Span;

impl Analyzer<'_> {
    /// Checks one clause and applies it to `scope`, recording the scope after it for the
    /// planner; returns the columns of a `RETURN` or of a standalone procedure call.
    pub(crate) fn clause(
        &mut self,
        clause: &Clause,
        scope: &mut Scope,
        kind: QueryKind,
        standalone: bool,
    ) -> Result<Columns> {
        let before = scope.clone();
        let columns = self.clause_effect(clause, scope, kind, standalone)?;
        self.record_scope(clause.span, &before, scope);
        Ok(columns)
    }

    fn clause_effect(
        &mut self,
        clause: &Clause,
        scope: &mut Scope,
        kind: QueryKind,
        standalone: bool,
    ) -> Result<Columns> {
        if clause.kind.is_update() {
            self.analysis.writes = true;
        }
        match &clause.kind {
            ClauseKind::Match(m) => self.match_clause(m, scope)?,
            ClauseKind::Unwind(unwind) => {
                let ty = self.expr(&unwind.expr, &mut Env::new(scope), Ctx::PLAIN)?;
                let element = match ty {
                    Type::List(element) => *element,
                    Type::Null => Type::Any,
                    other => other,
                };
                self.bind_new(&unwind.variable, element, scope)?;
            }
            ClauseKind::With(with) => {
                let (next, _) = self.projection(clause.span, &with.projection, scope, true)?;
                if let Some(filter) = &with.filter {
                    // The filter also sees the variables the WITH drops, unless it grouped.
                    let aggregating = self
                        .analysis
                        .projections
                        .get(&clause.span.start)
                        .is_some_and(|p| p.aggregating);
                    let mut visible = if aggregating {
                        Scope::default()
                    } else {
                        scope.clone()
                    };
                    for (name, ty) in next.iter() {
                        visible.insert(name, ty.clone());
                    }
                    self.predicate(filter, &mut Env::new(&visible))?;
                }
                *scope = next;
            }
            ClauseKind::Return(ret) => {
                let (next, columns) =
                    self.projection(clause.span, &ret.projection, scope, false)?;
                *scope = next;
                return Ok(Some(columns));
            }
            ClauseKind::Create(create) => {
                self.create_pattern(&create.pattern, scope, PatternUse::Create)?;
            }
            ClauseKind::Merge(merge) => self.merge(merge, scope)?,
            ClauseKind::Set(set) => {
                for item in &set.items {
                    self.set_item(item, scope)?;
                }
            }
            ClauseKind::Remove(remove) => {
                for item in &remove.items {
                    self.remove_item(item, scope)?;
                }
            }
            ClauseKind::Delete(delete) => self.delete(delete, scope)?,
            ClauseKind::Foreach(foreach) => self.foreach(foreach, scope, kind)?,
            ClauseKind::CallSubquery(call) => return self.call_subquery(call, scope, kind),
            ClauseKind::CallProcedure(call) => {
                return self.call_procedure(clause.span, call, scope, standalone);
            }
            ClauseKind::Finish | ClauseKind::Use(_) => {}
            ClauseKind::LoadCsv(load) => self.load_csv(load, scope)?,
        }
        Ok(None)
    }

    /// `LOAD CSV`: the URL is a string, the field terminator one character, and the variable
    /// new: a list of strings per row, or a map of them with headers.
    fn load_csv(&mut self, load: &LoadCsv, scope: &mut Scope) -> Result<()> {
        let ty = self.expr(&load.url, &mut Env::new(scope), Ctx::PLAIN)?;
        if ty.is_not(&Type::String) {
            return Err(self.syntax_error(
                Detail::InvalidArgumentType,
                format!("Type mismatch: expected String but was {ty}"),
                load.url.span,
            ));
        }
        if let Some(t) = &load.field_terminator
            && t.chars().count() != 1
        {
            return Err(self.syntax_error(
                Detail::InvalidArgumentValue,
                format!("Invalid input: FIELDTERMINATOR must be a single character, got '{t}'"),
                load.url.span,
            ));
        }
        let row = if load.with_headers {
            Type::Map
        } else {
            Type::list_of(Type::String)
        };
        self.bind_new(&load.variable, row, scope)
    }

    fn match_clause(&mut self, m: &Match, scope: &mut Scope) -> Result<()> {
        self.match_pattern(&m.pattern, scope)?;
        for hint in &m.hints {
            let variables: Vec<_> = match hint {
                Hint::Index { variable, .. } | Hint::Scan { variable, .. } => vec![variable],
                Hint::Join { variables } => variables.iter().collect(),
            };
            for variable in variables {
                if !scope.contains(&variable.name) {
                    return Err(self.undefined(&variable.name, variable.span));
                }
            }
        }
        if let Some(filter) = &m.filter {
            self.predicate(filter, &mut Env::new(scope))?;
        }
        Ok(())
    }

    fn merge(&mut self, merge: &Merge, scope: &mut Scope) -> Result<()> {
        self.create_pattern(
            std::slice::from_ref(&merge.pattern),
            scope,
            PatternUse::Merge,
        )?;
        for action in &merge.actions {
            for item in &action.items {
                self.set_item(item, scope)?;
            }
        }
        Ok(())
    }

    /// The entity a `SET`/`REMOVE` changes must be able to hold properties or labels.
    fn settable(&mut self, entity: &Expr, scope: &Scope, labels: bool) -> Result<()> {
        let ty = self.expr(entity, &mut Env::new(scope), Ctx::PLAIN)?;
        let (allowed, expected): (&[Type], &str) = if labels {
            (&[Type::Node], "Node")
        } else {
            (&[Type::Node, Type::Relationship], "Node or Relationship")
        };
        if ty.is_none_of(allowed) {
            return Err(self.type_mismatch(expected, &ty, entity.span));
        }
        Ok(())
    }

    fn variable_expr(variable: &crate::ast::Ident) -> Expr {
        Expr::new(ExprKind::Variable(variable.clone()), variable.span)
    }

    fn set_item(&mut self, item: &SetItem, scope: &Scope) -> Result<()> {
        let value = match item {
            SetItem::Property { entity, value, .. } => {
                self.settable(entity, scope, false)?;
                value
            }
            SetItem::DynamicProperty { entity, key, value } => {
                self.settable(entity, scope, false)?;
                self.property_key(key, scope)?;
                value
            }
            SetItem::Replace { variable, value } | SetItem::Merge { variable, value } => {
                self.settable(&Self::variable_expr(variable), scope, false)?;
                value
            }
            SetItem::Labels { variable, .. } => {
                return self.settable(&Self::variable_expr(variable), scope, true);
            }
            SetItem::DynamicLabels { variable, labels } => {
                self.settable(&Self::variable_expr(variable), scope, true)?;
                return self.dynamic_labels(labels, scope);
            }
        };
        self.expr(value, &mut Env::new(scope), Ctx::PLAIN)?;
        Ok(())
    }

    fn remove_item(&mut self, item: &RemoveItem, scope: &Scope) -> Result<()> {
        match item {
            RemoveItem::Property { entity, .. } => self.settable(entity, scope, false),
            RemoveItem::DynamicProperty { entity, key } => {
                self.settable(entity, scope, false)?;
                self.property_key(key, scope)
            }
            RemoveItem::Labels { variable, .. } => {
                self.settable(&Self::variable_expr(variable), scope, true)
            }
            RemoveItem::DynamicLabels { variable, labels } => {
                self.settable(&Self::variable_expr(variable), scope, true)?;
                self.dynamic_labels(labels, scope)
            }
        }
    }

    /// The key of `n[key]` in SET or REMOVE: a String.
    fn property_key(&mut self, key: &Expr, scope: &Scope) -> Result<()> {
        let ty = self.expr(key, &mut Env::new(scope), Ctx::PLAIN)?;
        if ty.is_not(&Type::String) {
            return Err(self.type_mismatch("String", &ty, key.span));
        }
        Ok(())
    }

    /// The expressions of `$(expr)` labels: each a string or a list of strings.
    fn dynamic_labels(&mut self, labels: &[Expr], scope: &Scope) -> Result<()> {
        for label in labels {
            let ty = self.expr(label, &mut Env::new(scope), Ctx::PLAIN)?;
            if ty.is_not(&Type::String) && ty.is_not(&Type::list_of(Type::String)) {
                return Err(self.type_mismatch("String or List<String>", &ty, label.span));
            }
        }
        Ok(())
    }

    fn delete(&mut self, delete: &Delete, scope: &Scope) -> Result<()> {
        for expr in &delete.exprs {
            if matches!(expr.kind, ExprKind::HasLabels { .. }) {
                return Err(self.syntax_error(
                    Detail::InvalidDelete,
                    "DELETE doesn't support removing labels from a node. Try REMOVE.",
                    expr.span,
                ));
            }
            let ty = self.expr(expr, &mut Env::new(scope), Ctx::PLAIN)?;
            let deletable = [
                Type::Node,
                Type::Relationship,
                Type::Path,
                Type::list_of(Type::Any),
            ];
            if ty.is_none_of(&deletable) {
                return Err(self.type_mismatch("Node, Path or Relationship", &ty, expr.span));
            }
        }
        Ok(())
    }

    fn foreach(&mut self, foreach: &Foreach, scope: &Scope, kind: QueryKind) -> Result<()> {
        let list = self.expr(&foreach.list, &mut Env::new(scope), Ctx::PLAIN)?;
        if list.is_not(&Type::list_of(Type::Any)) {
            return Err(self.type_mismatch("List<T>", &list, foreach.list.span));
        }
        let mut inner = scope.clone();
        self.bind_new(&foreach.variable, list.element(), &mut inner)?;
        for clause in &foreach.clauses {
            if !clause.kind.is_update() {
                return Err(self.syntax_error(
                    Detail::InvalidClauseComposition,
                    format!("Invalid use of {} inside FOREACH", clause.kind.name()),
                    clause.span,
                ));
            }
            self.clause(clause, &mut inner, kind, false)?;
        }
        Ok(())
    }

    fn call_subquery(
        &mut self,
        call: &CallSubquery,
        scope: &mut Scope,
        kind: QueryKind,
    ) -> Result<Columns> {
        if let Some(tx) = &call.in_transactions {
            // Its batches commit on their own, so it cannot sit inside something that runs in
            // one transaction per row (another subquery).
            if kind != QueryKind::Top {
                return Err(self.syntax_error(
                    Detail::InvalidClauseComposition,
                    "Nested CALL { ... } IN TRANSACTIONS is not supported",
                    call.query.span,
                ));
            }
            // A status describes a batch that may have failed without failing the query.
            if tx.report_status.is_some()
                && !matches!(tx.on_error, Some(OnError::Continue | OnError::Break))
            {
                return Err(self.syntax_error(
                    Detail::InvalidClauseComposition,
                    "REPORT STATUS can only be used when specifying ON ERROR CONTINUE or ON ERROR BREAK",
                    call.query.span,
                ));
            }
        }
        let imported;
        let import = match &call.scope {
            None => Import::ImportingWith(scope),
            Some(ImportScope::All) => Import::Given(scope),
            Some(ImportScope::Variables(variables)) => {
                let mut chosen = Scope::default();
                for variable in variables {
                    let ty = scope
                        .get(&variable.name)
                        .ok_or_else(|| self.undefined(&variable.name, variable.span))?;
                    chosen.insert(&variable.name, ty.clone());
                }
                imported = chosen;
                Import::Given(&imported)
            }
        };
        let columns = self.query(&call.query, &import, QueryKind::CallSubquery)?;
        if let Some(tx) = &call.in_transactions {
            let options = [
                tx.batch_rows.as_ref(),
                tx.concurrency.as_ref().and_then(Option::as_ref),
                tx.retry.as_ref().and_then(Option::as_ref),
            ];
            for e in options.into_iter().flatten() {
                self.expr(e, &mut Env::new(scope), Ctx::PLAIN)?;
            }
        }
        let returned = columns.is_some();
        for (name, ty) in columns.into_iter().flatten() {
            if scope.contains(&name) {
                return Err(self.syntax_error(
                    Detail::VariableAlreadyBound,
                    format!("Variable `{name}` already declared in outer scope"),
                    call.query.span,
                ));
            }
            scope.insert(&name, ty);
        }
        if let Some(status) = call
            .in_transactions
            .as_ref()
            .and_then(|t| t.report_status.as_ref())
        {
            self.bind_new(status, Type::Map, scope)?;
        }
        // A returning subquery's columns join the outer scope; report "returns" to the caller
        // so that a query cannot end with it.
        Ok(returned.then(Vec::new))
    }

    fn call_procedure(
        &mut self,
        span: Span,
        call: &CallProcedure,
        scope: &mut Scope,
        standalone: bool,
    ) -> Result<Columns> {
        let name = call.name.qualified();
        let signature = match self.options.procedures {
            None => None,
            Some(catalog) => Some(catalog.procedure(&name).ok_or_else(|| {
                self.error(
                    ErrorKind {
                        status: Status::ProcedureError,
                        detail: Detail::ProcedureNotFound,
                    },
                    format!(
                        "There is no procedure with the name `{name}` registered for this \
                         database instance"
                    ),
                    call.name.name.span,
                )
            })?),
        };
        match &call.args {
            Some(args) => {
                for arg in args {
                    self.expr(arg, &mut Env::new(scope), Ctx::PLAIN)?;
                }
                if let Some(signature) = &signature {
                    let total = signature.inputs.len();
                    let required = signature.inputs.iter().filter(|i| !i.has_default).count();
                    if args.len() < required || args.len() > total {
                        return Err(self.syntax_error(
                            Detail::InvalidNumberOfArguments,
                            format!(
                                "Procedure call does not provide the required number of \
                                 arguments: got {} expected at least {required} (total: \
                                 {total}, {} of which have default values).",
                                args.len(),
                                total - required
                            ),
                            span,
                        ));
                    }
                }
            }
            None if !standalone => {
                return Err(self.syntax_error(
                    Detail::UnexpectedSyntax,
                    format!(
                        "Procedure call inside a query does not support passing arguments \
                         implicitly. Pass arguments explicitly in parentheses after procedure \
                         name for {name}"
                    ),
                    span,
                ));
            }
            None => {
                for input in signature.iter().flat_map(|s| &s.inputs) {
                    self.note_parameter(&input.name, span);
                }
            }
        }
        let outputs = || -> Vec<(String, Type)> {
            signature
                .iter()
                .flat_map(|s| &s.outputs)
                .map(|o| (o.clone(), Type::Any))
                .collect()
        };
        match &call.yields {
            None => Ok(standalone.then(outputs)),
            Some(ProcedureYield::All) => {
                if !standalone {
                    return Err(self.syntax_error(
                        Detail::UnexpectedSyntax,
                        "Procedure call inside a query does not support naming results \
                         implicitly (name explicitly using `YIELD` instead)",
                        span,
                    ));
                }
                Ok(Some(outputs()))
            }
            Some(ProcedureYield::Items { items, filter }) => {
                let mut columns = Vec::new();
                for item in items {
                    if let Some(signature) = &signature
                        && !signature.outputs.contains(&item.field.name)
                    {
                        return Err(self.syntax_error(
                            Detail::UndefinedVariable,
                            format!("Unknown procedure output: `{}`", item.field.name),
                            item.field.span,
                        ));
                    }
                    let variable = item.variable();
                    self.bind_new(variable, Type::Any, scope)?;
                    columns.push((variable.name.clone(), Type::Any));
                }
                if let Some(filter) = filter {
                    self.predicate(filter, &mut Env::new(scope))?;
                }
                Ok(standalone.then_some(columns))
            }
        }
    }

    /// `WITH`/`RETURN`: checks the items, grouping, `ORDER BY`, `SKIP` and `LIMIT`, records
    /// what the planner needs, and returns the scope after the clause and its columns.
    pub(crate) fn projection(
        &mut self,
        clause_span: Span,
        projection: &Projection,
        incoming: &Scope,
        is_with: bool,
    ) -> Result<(Scope, Vec<(String, Type)>)> {
        let keyword = if is_with { "WITH" } else { "RETURN" };
        if projection.star && !is_with && incoming.is_empty() {
            return Err(self.syntax_error(
                Detail::NoVariablesInScope,
                format!("{keyword} * is not allowed when there are no variables in scope"),
                clause_span,
            ));
        }
        let mut columns: Vec<ColumnInfo> = Vec::new();
        if projection.star {
            for (name, ty) in incoming.iter() {
                columns.push(ColumnInfo {
                    name: name.clone(),
                    item: None,
                    aggregate: false,
                    ty: ty.clone(),
                });
            }
        }
        let mut names = HashSet::new();
        for (index, item) in projection.items.iter().enumerate() {
            let before = self.aggregates;
            let ty = self.expr(&item.expr, &mut Env::new(incoming), Ctx::PROJECTION)?;
            let aggregate = self.aggregates > before;
            let is_variable = matches!(item.expr.kind, ExprKind::Variable(_));
            if is_with && item.alias.is_none() && !is_variable {
                return Err(self.syntax_error(
                    Detail::NoExpressionAlias,
                    "Expression in WITH must be aliased (use AS)",
                    item.expr.span,
                ));
            }
            // `WITH *, e AS x` (also GQL's `LET x = e`) may not rebind a variable `*`
            // carries; `WITH *, x` only names it again.
            let same_variable =
                matches!(&item.expr.kind, ExprKind::Variable(v) if v.name == item.name());
            if projection.star && !same_variable && incoming.contains(item.name()) {
                return Err(self.syntax_error(
                    Detail::VariableAlreadyBound,
                    format!("Variable `{}` already declared", item.name()),
                    item.span,
                ));
            }
            if !names.insert(item.name().to_string()) {
                return Err(self.syntax_error(
                    Detail::ColumnNameConflict,
                    "Multiple result columns with the same name are not supported",
                    item.span,
                ));
            }
            columns.push(ColumnInfo {
                name: item.name().to_string(),
                item: Some(index),
                aggregate,
                ty,
            });
        }
        let aggregating = columns.iter().any(|c| c.aggregate);
        let keys = Grouping::new(projection, &columns);
        if aggregating {
            for column in columns.iter().filter(|c| c.aggregate) {
                if let Some(index) = column.item {
                    self.implicit_grouping(&projection.items[index].expr, &keys, &HashSet::new())?;
                }
            }
        }
        let mut next = if projection.star {
            incoming.clone()
        } else {
            Scope::default()
        };
        for column in columns.iter().filter(|c| c.item.is_some()) {
            next.insert(&column.name, column.ty.clone());
        }
        let order_by_columns =
            self.order_by(projection, incoming, &next, &columns, aggregating, &keys)?;
        for (bound, name) in [(&projection.skip, "SKIP"), (&projection.limit, "LIMIT")] {
            if let Some(bound) = bound {
                self.skip_or_limit(bound, name)?;
            }
        }
        let result = columns
            .iter()
            .map(|c| (c.name.clone(), c.ty.clone()))
            .collect();
        self.record_projection(
            clause_span,
            ProjectionInfo {
                columns,
                aggregating,
                order_by_columns,
            },
        );
        Ok((next, result))
    }

    fn order_by(
        &mut self,
        projection: &Projection,
        incoming: &Scope,
        projected: &Scope,
        columns: &[ColumnInfo],
        aggregating: bool,
        keys: &Grouping<'_>,
    ) -> Result<Vec<Option<usize>>> {
        let restricted = aggregating || projection.distinct;
        // The expression check sees everything; what a restricted ORDER BY may read is
        // checked first, by shape.
        let mut visible = incoming.clone();
        for (name, ty) in projected.iter() {
            visible.insert(name, ty.clone());
        }
        let mut sorted_by = Vec::with_capacity(projection.order_by.len());
        for sort in &projection.order_by {
            if restricted {
                self.only_projected(&sort.expr, projection, projected)?;
            }
            let before = self.aggregates;
            let ctx = if aggregating {
                Ctx::PROJECTION
            } else {
                Ctx::PLAIN
            };
            self.expr(&sort.expr, &mut Env::new(&visible), ctx)?;
            if self.aggregates > before {
                let names: HashSet<&str> = projected.iter().map(|(n, _)| n.as_str()).collect();
                self.implicit_grouping(&sort.expr, keys, &names)?;
            }
            sorted_by.push(sorted_column(projection, columns, &sort.expr));
        }
        Ok(sorted_by)
    }

    /// After `DISTINCT` or aggregation, `ORDER BY` sees the projected columns and the
    /// projected expressions only.
    fn only_projected(
        &self,
        expr: &Expr,
        projection: &Projection,
        projected: &Scope,
    ) -> Result<()> {
        walk(expr, &mut Vec::new(), &mut |node| match node {
            Node::Expr(e) if projection.items.iter().any(|i| i.expr == *e) => Ok(Visit::Skip),
            // `ORDER BY a + b + count(*)` after `RETURN a + b, ...`: the projected `a + b`
            // is the start of the chain; the operands after it are checked on their own.
            Node::Expr(
                e @ Expr {
                    kind: ExprKind::Chain { rest, .. },
                    ..
                },
            ) => match projection
                .items
                .iter()
                .find_map(|i| e.chain_prefix_len(&i.expr))
            {
                Some(n) => {
                    for (_, operand) in &rest[n..] {
                        self.only_projected(operand, projection, projected)?;
                    }
                    Ok(Visit::Skip)
                }
                None => Ok(Visit::Descend),
            },
            Node::Variable(v) if !projected.contains(&v.name) => {
                Err(self.undefined(&v.name, v.span))
            }
            _ => Ok(Visit::Descend),
        })
    }

    /// In an aggregating expression, whatever is outside the aggregates must be a grouping
    /// key: a grouped variable, or a grouped property of one.
    fn implicit_grouping(
        &self,
        expr: &Expr,
        keys: &Grouping<'_>,
        projected: &HashSet<&str>,
    ) -> Result<()> {
        walk(expr, &mut Vec::new(), &mut |node| match node {
            Node::Expr(e) if is_aggregate_call(e, self) => Ok(Visit::Skip),
            Node::Expr(e) if keys.is_simple_key(e) => Ok(Visit::Skip),
            Node::Expr(e) => match &e.kind {
                ExprKind::Property { base, .. } => match &base.kind {
                    ExprKind::Variable(v)
                        if keys.variables.contains(&v.name)
                            || projected.contains(v.name.as_str()) =>
                    {
                        Ok(Visit::Skip)
                    }
                    _ => Ok(Visit::Descend),
                },
                _ => Ok(Visit::Descend),
            },
            Node::Variable(v)
                if keys.variables.contains(&v.name) || projected.contains(v.name.as_str()) =>
            {
                Ok(Visit::Descend)
            }
            Node::Variable(_) => Err(self.syntax_error(
                Detail::AmbiguousAggregationExpression,
                format!(
                    "Aggregation column contains implicit grouping expressions. For example, in \
                     'RETURN n.a, n.a + n.b + count(*)' the aggregation expression 'n.a + n.b + \
                     count(*)' includes the implicit grouping key 'n.b'. It may be possible to \
                     rewrite the query by extracting these grouping/aggregation expressions \
                     into a preceding WITH clause. Illegal expression(s): {}",
                    expr_text(expr, self.source)
                ),
                expr.span,
            )),
        })
    }

    fn skip_or_limit(&mut self, expr: &Expr, name: &str) -> Result<()> {
        if let Some((what, span)) = first_non_constant(expr) {
            return Err(self.syntax_error(
                Detail::NonConstantExpression,
                format!(
                    "It is not allowed to refer to variables in {name} (found {what}); it must \
                     be a constant"
                ),
                span,
            ));
        }
        let ty = self.expr(expr, &mut Env::new(&Scope::default()), Ctx::PLAIN)?;
        let text = expr_text(expr, self.source);
        match &expr.kind {
            ExprKind::Literal(Literal::Integer(v)) if *v < 0 => Err(self.syntax_error(
                Detail::NegativeIntegerArgument,
                format!(
                    "Invalid input. '{text}' is not a valid value. Must be a non-negative integer."
                ),
                expr.span,
            )),
            _ if ty.is_not(&Type::Integer) => Err(self.syntax_error(
                Detail::InvalidArgumentType,
                format!(
                    "Invalid input. '{text}' is not a valid value. Must be a non-negative integer."
                ),
                expr.span,
            )),
            _ => Ok(()),
        }
    }
}

/// What an aggregating projection groups by.
struct Grouping<'a> {
    /// The non-aggregating items' expressions.
    expressions: Vec<&'a Expr>,
    /// Variables that are grouping keys themselves (items, or carried over by `*`).
    variables: HashSet<String>,
}

impl<'a> Grouping<'a> {
    fn new(projection: &'a Projection, columns: &[ColumnInfo]) -> Self {
        let mut expressions = Vec::new();
        let mut variables = HashSet::new();
        for column in columns.iter().filter(|c| !c.aggregate) {
            match column.item {
                Some(index) => {
                    let expr = &projection.items[index].expr;
                    if let ExprKind::Variable(v) = &expr.kind {
                        variables.insert(v.name.clone());
                    }
                    expressions.push(expr);
                }
                None => {
                    variables.insert(column.name.clone());
                }
            }
        }
        Grouping {
            expressions,
            variables,
        }
    }

    /// A grouping key simple enough to stand inside an aggregating expression: a variable or
    /// a property of one, projected as an item.
    fn is_simple_key(&self, expr: &Expr) -> bool {
        let simple = match &expr.kind {
            ExprKind::Variable(_) => true,
            ExprKind::Property { base, .. } => matches!(base.kind, ExprKind::Variable(_)),
            _ => false,
        };
        simple && self.expressions.iter().any(|k| **k == *expr)
    }
}

fn is_aggregate_call(expr: &Expr, analyzer: &Analyzer<'_>) -> bool {
    match &expr.kind {
        ExprKind::CountStar => true,
        ExprKind::FunctionCall(call) => analyzer
            .options
            .functions
            .function(&call.name.qualified())
            .is_some_and(|f| f.aggregate),
        _ => false,
    }
}

fn expr_text(expr: &Expr, source: &str) -> String {
    let text = expr.span.text(source);
    if text.is_empty() {
        expr.to_string()
    } else {
        text.to_string()
    }
}

/// The column an `ORDER BY` expression sorts by when it is exactly a projected one, as Neo4j
/// allows: first the column whose expression it is (a variable carried by `*` is its own
/// expression), else the column of that name (an alias). The order matters only when an alias
/// renames another projected variable: `RETURN a AS x, x AS a ORDER BY x` sorts by `x AS a`.
fn sorted_column(projection: &Projection, columns: &[ColumnInfo], sort: &Expr) -> Option<usize> {
    let variable = match &sort.kind {
        ExprKind::Variable(v) => Some(v.name.as_str()),
        _ => None,
    };
    columns
        .iter()
        .position(|c| match c.item {
            Some(i) => projection.items[i].expr == *sort,
            None => variable == Some(c.name.as_str()),
        })
        .or_else(|| variable.and_then(|name| columns.iter().position(|c| c.name == name)))
}
