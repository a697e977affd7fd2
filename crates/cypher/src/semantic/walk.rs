//! A pre-order walk over an expression that knows which names the expression binds itself
//! (comprehension and quantifier variables, `reduce` accumulators), for the checks that look
//! at shape rather than types: constant `SKIP`/`LIMIT`, what `ORDER BY` may see after an
//! aggregation, implicit grouping keys.

use crate::ast::{Expr, ExprKind, Ident, MapProjectionItem};
use crate::span::Span;

/// What the walk shows the visitor.
pub(crate) enum Node<'a> {
    Expr(&'a Expr),
    /// A variable reference that no enclosing comprehension binds (from `ExprKind::Variable`
    /// or a map projection).
    Variable(&'a Ident),
}

/// Whether to look inside the expression just visited.
#[derive(PartialEq, Eq)]
pub(crate) enum Visit {
    Descend,
    Skip,
}

/// [`walk`] over each of `exprs` in turn.
fn walk_each<'a, E>(
    exprs: impl IntoIterator<Item = &'a Expr>,
    locals: &mut Vec<&'a str>,
    visit: &mut dyn FnMut(Node<'a>) -> Result<Visit, E>,
) -> Result<(), E> {
    exprs.into_iter().try_for_each(|e| walk(e, locals, visit))
}

/// Visits `expr` and its sub-expressions in pre-order. Pattern predicates, pattern
/// comprehensions and subqueries are visited but not entered: their variables follow
/// pattern rules, which the visitors here do not need.
pub(crate) fn walk<'a, E>(
    expr: &'a Expr,
    locals: &mut Vec<&'a str>,
    visit: &mut dyn FnMut(Node<'a>) -> Result<Visit, E>,
) -> Result<(), E> {
    if visit(Node::Expr(expr))? == Visit::Skip {
        return Ok(());
    }
    match &expr.kind {
        ExprKind::Literal(_)
        | ExprKind::Parameter(_)
        | ExprKind::CountStar
        | ExprKind::Pattern(_)
        | ExprKind::PatternComprehension(_)
        | ExprKind::Subquery(_) => Ok(()),
        ExprKind::Variable(variable) => variable_reference(variable, locals, visit),
        ExprKind::Property { base, .. } | ExprKind::HasLabels { base, .. } => {
            walk(base, locals, visit)
        }
        ExprKind::LabelTest { base, expr } => {
            let labels = expr.dynamic_exprs();
            walk_each(std::iter::once(&**base).chain(labels), locals, visit)
        }
        ExprKind::DynamicLabels { base, all, any } => walk_each(
            std::iter::once(&**base).chain(all).chain(any),
            locals,
            visit,
        ),
        ExprKind::Index { base, index } => {
            walk(base, locals, visit)?;
            walk(index, locals, visit)
        }
        ExprKind::Slice { base, from, to } => {
            let bounds = [from, to].into_iter().flatten().map(|b| &**b);
            walk_each(std::iter::once(&**base).chain(bounds), locals, visit)
        }
        ExprKind::Unary { operand, .. }
        | ExprKind::IsNull { operand, .. }
        | ExprKind::TypeTest { operand, .. } => walk(operand, locals, visit),
        ExprKind::Binary { left, right, .. } => {
            walk(left, locals, visit)?;
            walk(right, locals, visit)
        }
        ExprKind::Chain { first, rest } => {
            walk(first, locals, visit)?;
            rest.iter().try_for_each(|(_, e)| walk(e, locals, visit))
        }
        ExprKind::List(items) => items.iter().try_for_each(|e| walk(e, locals, visit)),
        ExprKind::Map(entries) => entries
            .iter()
            .try_for_each(|e| walk(&e.value, locals, visit)),
        ExprKind::FunctionCall(call) => call.args.iter().try_for_each(|e| walk(e, locals, visit)),
        ExprKind::Case(case) => {
            if let Some(operand) = &case.operand {
                walk(operand, locals, visit)?;
            }
            for branch in &case.branches {
                walk(&branch.when, locals, visit)?;
                walk(&branch.then, locals, visit)?;
            }
            if let Some(default) = &case.default {
                walk(default, locals, visit)?;
            }
            Ok(())
        }
        ExprKind::ListComprehension(c) => {
            walk(&c.list, locals, visit)?;
            locals.push(&c.variable.name);
            let result = c
                .filter
                .iter()
                .chain(c.map.iter())
                .try_for_each(|e| walk(e, locals, visit));
            locals.pop();
            result
        }
        ExprKind::Quantified(q) => {
            walk(&q.list, locals, visit)?;
            locals.push(&q.variable.name);
            let result = walk(&q.predicate, locals, visit);
            locals.pop();
            result
        }
        ExprKind::Reduce(r) => {
            walk(&r.init, locals, visit)?;
            walk(&r.list, locals, visit)?;
            locals.push(&r.accumulator.name);
            locals.push(&r.variable.name);
            let result = walk(&r.expr, locals, visit);
            locals.truncate(locals.len().saturating_sub(2));
            result
        }
        ExprKind::MapProjection(p) => {
            variable_reference(&p.base, locals, visit)?;
            for item in &p.items {
                match item {
                    MapProjectionItem::Variable(v) => variable_reference(v, locals, visit)?,
                    MapProjectionItem::Entry { value, .. } => walk(value, locals, visit)?,
                    MapProjectionItem::Property(_) | MapProjectionItem::AllProperties => {}
                }
            }
            Ok(())
        }
    }
}

fn variable_reference<'a, E>(
    variable: &'a Ident,
    locals: &[&'a str],
    visit: &mut dyn FnMut(Node<'a>) -> Result<Visit, E>,
) -> Result<(), E> {
    if !locals.contains(&variable.name.as_str()) {
        visit(Node::Variable(variable))?;
    }
    Ok(())
}

/// The first part of `expr` that is not constant: a variable it does not bind itself, a
/// pattern or a subquery. Returns what to call it and where it is.
pub(crate) fn first_non_constant(expr: &Expr) -> Option<(String, Span)> {
    let mut found = None;
    let _ = walk::<()>(expr, &mut Vec::new(), &mut |node| {
        match node {
            Node::Variable(v) => {
                found = Some((format!("variable `{}`", v.name), v.span));
                return Err(());
            }
            Node::Expr(e)
                if matches!(
                    e.kind,
                    ExprKind::Pattern(_)
                        | ExprKind::PatternComprehension(_)
                        | ExprKind::Subquery(_)
                ) =>
            {
                found = Some(("a pattern".to_string(), e.span));
                return Err(());
            }
            Node::Expr(_) => {}
        }
        Ok(Visit::Descend)
    });
    found
}
