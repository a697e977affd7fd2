//! Compiling AST expressions: names to slots, parameters to indexes, function names to
//! handles, and aggregate calls to the slots an aggregation fills.

use std::sync::Arc;

use quiver_cypher::ast::{self, BinaryOp, ExprKind, Literal, UnaryOp};
use quiver_cypher::{Detail, Span, Status};
use quiver_value::Value;

use super::clauses::Planner;
use super::scope::Scope;
use crate::ir::{
    AggKind, AggSpec, BinOp, ChainOp, Expr, GraphFn, LabelPred, MapProjItem, Quantifier, ScalarFn,
    SubKind,
};

/// Where aggregates may appear while compiling an expression.
pub(super) enum Agg<'x> {
    /// Not here (WHERE, SET, ...): an aggregate is an error.
    Forbidden,
    /// Inside an aggregate's argument: another aggregate is a nesting error.
    Nested,
    /// A projection item of an aggregating WITH/RETURN: aggregates become slots.
    Collect(&'x mut AggCtx),
}

/// What compiling an aggregating projection item needs.
pub(super) struct AggCtx {
    /// The scope before the projection: aggregate arguments are evaluated in it.
    pub pre: Scope,
    /// Grouping expressions and the slots holding their values after aggregation.
    pub keys: Vec<(ast::Expr, usize)>,
    pub aggs: Vec<AggSpec>,
}

fn reborrow<'a>(agg: &'a mut Agg<'_>) -> Agg<'a> {
    match agg {
        Agg::Forbidden => Agg::Forbidden,
        Agg::Nested => Agg::Nested,
        Agg::Collect(ctx) => Agg::Collect(ctx),
    }
}

/// Whether an expression contains an aggregate call (not looking into subqueries).
pub(super) fn contains_aggregate(e: &ast::Expr) -> bool {
    let mut found = false;
    visit(e, &mut |x| match &x.kind {
        ExprKind::CountStar => found = true,
        ExprKind::FunctionCall(call)
            if call.name.namespace.is_empty()
                && AggKind::lookup(&call.name.name.name).is_some() =>
        {
            found = true;
        }
        _ => {}
    });
    found
}

/// Visits an expression and its sub-expressions, not entering patterns or subqueries.
pub(super) fn visit(e: &ast::Expr, f: &mut dyn FnMut(&ast::Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Literal(_)
        | ExprKind::Parameter(_)
        | ExprKind::Variable(_)
        | ExprKind::CountStar
        | ExprKind::Pattern(_)
        | ExprKind::Subquery(_)
        | ExprKind::PatternComprehension(_) => {}
        ExprKind::Property { base, .. } | ExprKind::HasLabels { base, .. } => visit(base, f),
        ExprKind::LabelTest { base, expr } => {
            visit(base, f);
            for label in expr.dynamic_exprs() {
                visit(label, f);
            }
        }
        ExprKind::DynamicLabels { base, all, any } => {
            visit(base, f);
            for label in all.iter().chain(any) {
                visit(label, f);
            }
        }
        ExprKind::TypeTest { operand, .. } => visit(operand, f),
        ExprKind::Index { base, index } => {
            visit(base, f);
            visit(index, f);
        }
        ExprKind::Slice { base, from, to } => {
            visit(base, f);
            if let Some(x) = from {
                visit(x, f);
            }
            if let Some(x) = to {
                visit(x, f);
            }
        }
        ExprKind::Unary { operand, .. } | ExprKind::IsNull { operand, .. } => visit(operand, f),
        ExprKind::Binary { left, right, .. } => {
            visit(left, f);
            visit(right, f);
        }
        ExprKind::Chain { first, rest } => {
            visit(first, f);
            for (_, e) in rest {
                visit(e, f);
            }
        }
        ExprKind::List(items) => {
            for i in items {
                visit(i, f);
            }
        }
        ExprKind::Map(entries) => {
            for m in entries {
                visit(&m.value, f);
            }
        }
        ExprKind::FunctionCall(call) => {
            for a in &call.args {
                visit(a, f);
            }
        }
        ExprKind::Case(c) => {
            if let Some(o) = &c.operand {
                visit(o, f);
            }
            for b in &c.branches {
                visit(&b.when, f);
                visit(&b.then, f);
            }
            if let Some(d) = &c.default {
                visit(d, f);
            }
        }
        ExprKind::ListComprehension(c) => {
            visit(&c.list, f);
            if let Some(x) = &c.filter {
                visit(x, f);
            }
            if let Some(x) = &c.map {
                visit(x, f);
            }
        }
        ExprKind::Quantified(q) => {
            visit(&q.list, f);
            visit(&q.predicate, f);
        }
        ExprKind::Reduce(r) => {
            visit(&r.init, f);
            visit(&r.list, f);
            visit(&r.expr, f);
        }
        ExprKind::MapProjection(p) => {
            for item in &p.items {
                if let ast::MapProjectionItem::Entry { value, .. } = item {
                    visit(value, f);
                }
            }
        }
    }
}

fn binop(op: BinaryOp) -> BinOp {
    match op {
        BinaryOp::Eq => BinOp::Eq,
        BinaryOp::NotEq => BinOp::Ne,
        BinaryOp::Lt => BinOp::Lt,
        BinaryOp::Le => BinOp::Le,
        BinaryOp::Gt => BinOp::Gt,
        BinaryOp::Ge => BinOp::Ge,
        BinaryOp::RegexMatch => BinOp::Regex,
        BinaryOp::StartsWith => BinOp::StartsWith,
        BinaryOp::EndsWith => BinOp::EndsWith,
        BinaryOp::Contains => BinOp::Contains,
        BinaryOp::In => BinOp::In,
        BinaryOp::Add => BinOp::Add,
        BinaryOp::Subtract => BinOp::Sub,
        BinaryOp::Multiply => BinOp::Mul,
        BinaryOp::Divide => BinOp::Div,
        BinaryOp::Modulo => BinOp::Mod,
        BinaryOp::Power => BinOp::Pow,
        BinaryOp::Xor => BinOp::Xor,
        // And/Or are compiled to short-circuiting forms before this is reached.
        BinaryOp::And | BinaryOp::Or => BinOp::Eq,
    }
}

pub(super) fn literal(l: &Literal) -> Value {
    match l {
        Literal::Null => Value::Null,
        Literal::Boolean(b) => Value::Bool(*b),
        Literal::Integer(i) => Value::Int(*i),
        Literal::Float(f) => Value::Float(*f),
        Literal::String(s) => Value::from(s.as_str()),
    }
}

/// A binary operator over compiled operands; a regular expression given as a constant is
/// compiled once, here; one that does not compile is left to evaluation.
fn binary(op: BinaryOp, l: Expr, r: Expr) -> Expr {
    match op {
        BinaryOp::And => Expr::And(Box::new(l), Box::new(r)),
        BinaryOp::Or => Expr::Or(Box::new(l), Box::new(r)),
        BinaryOp::RegexMatch => match &r {
            Expr::Const(Value::String(p)) => match quiver_value::ops::compile_regex(p) {
                Ok(re) => Expr::RegexConst(Box::new(l), Arc::new(re)),
                Err(_) => Expr::Binary(BinOp::Regex, Box::new(l), Box::new(r)),
            },
            _ => Expr::Binary(BinOp::Regex, Box::new(l), Box::new(r)),
        },
        op => Expr::Binary(binop(op), Box::new(l), Box::new(r)),
    }
}

impl Planner<'_> {
    /// Compiles an expression where aggregates are not allowed.
    pub fn expr(&mut self, e: &ast::Expr, scope: &Scope) -> super::clauses::Result<Expr> {
        self.expr_with(e, scope, &mut Agg::Forbidden)
    }

    /// A variable: its slot. In an aggregating projection, a variable of the input that is
    /// not a grouping key is ambiguous; anywhere else an unknown name is undefined (only
    /// where the analysis has not checked the expression: `SHOW` filters and projections).
    fn variable_ref(
        &self,
        id: &ast::Ident,
        span: Span,
        scope: &Scope,
        agg: &Agg<'_>,
    ) -> super::clauses::Result<Expr> {
        if let Some(v) = scope.get(&id.name) {
            return Ok(Expr::Slot(v.slot));
        }
        if let Agg::Collect(ctx) = agg
            && ctx.pre.contains(&id.name)
        {
            return Err(self.err(
                Status::SyntaxError,
                Detail::AmbiguousAggregationExpression,
                format!(
                    "Variable `{}` must be part of the grouping keys to be used next to an aggregate",
                    id.name
                ),
                span,
            ));
        }
        Err(self.undefined(&id.name, span))
    }

    /// `base:$(a):$any(b)`: each `$(...)` a test of its own, all of them required.
    fn dynamic_label_test(
        &mut self,
        base: &ast::Expr,
        (all, any): (&[ast::Expr], &[ast::Expr]),
        scope: &Scope,
        agg: &mut Agg<'_>,
    ) -> super::clauses::Result<Expr> {
        let b = self.expr_with(base, scope, agg)?;
        let mut test: Option<Expr> = None;
        for (exprs, is_any) in [(all, false), (any, true)] {
            for e in exprs {
                let names = self.expr_with(e, scope, agg)?;
                let one = Expr::DynamicLabels(Box::new(b.clone()), Box::new(names), is_any);
                test = Some(match test {
                    Some(t) => Expr::And(Box::new(t), Box::new(one)),
                    None => one,
                });
            }
        }
        Ok(test.unwrap_or(Expr::Const(quiver_value::Value::Bool(true))))
    }

    pub fn expr_with(
        &mut self,
        e: &ast::Expr,
        scope: &Scope,
        agg: &mut Agg<'_>,
    ) -> super::clauses::Result<Expr> {
        if let Agg::Collect(ctx) = agg
            && let Some((_, slot)) = ctx.keys.iter().find(|(k, _)| k == e)
        {
            return Ok(Expr::Slot(*slot));
        }
        Ok(match &e.kind {
            ExprKind::Literal(l) => Expr::Const(literal(l)),
            ExprKind::Parameter(name) => Expr::Param(self.param(name)),
            ExprKind::Variable(id) => self.variable_ref(id, e.span, scope, agg)?,
            ExprKind::Property { base, key } => {
                let b = self.expr_with(base, scope, agg)?;
                Expr::Property(Box::new(b), self.tokens.key(&key.name))
            }
            ExprKind::Index { base, index } => {
                let b = self.expr_with(base, scope, agg)?;
                let i = self.expr_with(index, scope, agg)?;
                Expr::Index(Box::new(b), Box::new(i))
            }
            ExprKind::Slice { base, from, to } => {
                let b = self.expr_with(base, scope, agg)?;
                let f = match from {
                    Some(x) => Some(Box::new(self.expr_with(x, scope, agg)?)),
                    None => None,
                };
                let t = match to {
                    Some(x) => Some(Box::new(self.expr_with(x, scope, agg)?)),
                    None => None,
                };
                Expr::Slice(Box::new(b), f, t)
            }
            ExprKind::HasLabels { base, labels } => {
                let b = self.expr_with(base, scope, agg)?;
                let tokens = labels.iter().map(|l| self.tokens.label(&l.name)).collect();
                Expr::HasLabels(Box::new(b), tokens)
            }
            ExprKind::DynamicLabels { base, all, any } => {
                self.dynamic_label_test(base, (all.as_slice(), any.as_slice()), scope, agg)?
            }
            ExprKind::LabelTest { base, expr } => {
                let b = self.expr_with(base, scope, agg)?;
                // Whether the base is a node or a relationship is known only from the value;
                // the evaluator compares a relationship's type with these names by name.
                self.label_expr_test(b, expr, false, scope, agg)?
            }
            ExprKind::TypeTest {
                operand,
                ty,
                negated,
            } => {
                let x = self.expr_with(operand, scope, agg)?;
                Expr::TypeTest(Box::new(x), Arc::new(ty.clone()), *negated)
            }
            ExprKind::Unary { op, operand } => {
                let x = Box::new(self.expr_with(operand, scope, agg)?);
                match op {
                    UnaryOp::Not => Expr::Not(x),
                    UnaryOp::Negate => Expr::Neg(x),
                    UnaryOp::Plus => Expr::Plus(x),
                }
            }
            ExprKind::Binary { op, left, right } => {
                let l = self.expr_with(left, scope, agg)?;
                let r = self.expr_with(right, scope, agg)?;
                binary(*op, l, r)
            }
            ExprKind::Chain { first, rest } => self.chain_expr(e, first, rest, scope, agg)?,
            ExprKind::IsNull { operand, negated } => {
                Expr::IsNull(Box::new(self.expr_with(operand, scope, agg)?), *negated)
            }
            ExprKind::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for i in items {
                    out.push(self.expr_with(i, scope, agg)?);
                }
                Expr::List(out)
            }
            ExprKind::Map(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                for m in entries {
                    let v = self.expr_with(&m.value, scope, agg)?;
                    out.retain(|(k, _): &(Arc<str>, Expr)| **k != *m.key.name);
                    out.push((Arc::from(m.key.name.as_str()), v));
                }
                Expr::Map(out)
            }
            ExprKind::CountStar => self.aggregate(AggKind::CountStar, false, &[], e, agg)?,
            ExprKind::FunctionCall(call) => self.function(call, e, scope, agg)?,
            ExprKind::Case(c) => self.case_expr(c, scope, agg)?,
            ExprKind::ListComprehension(c) => self.list_comprehension(c, scope, agg)?,
            ExprKind::Quantified(q) => self.quantified(q, scope, agg)?,
            ExprKind::Reduce(r) => self.reduce(r, scope, agg)?,
            ExprKind::MapProjection(p) => self.map_projection(p, e, scope, agg)?,
            ExprKind::Pattern(chain) => self.pattern_predicate(chain, e, scope)?,
            ExprKind::PatternComprehension(c) => self.pattern_comprehension(c, e, scope)?,
            ExprKind::Subquery(s) => self.subquery_expr(s, scope)?,
        })
    }

    /// An operator chain; under aggregation a grouping key may be its start.
    fn chain_expr(
        &mut self,
        e: &ast::Expr,
        first: &ast::Expr,
        rest: &[(BinaryOp, ast::Expr)],
        scope: &Scope,
        agg: &mut Agg<'_>,
    ) -> super::clauses::Result<Expr> {
        // A grouping key may be the start of the chain (`n.a + n.b` in
        // `n.a + n.b + count(*)`): it is read from its slot.
        let key = match agg {
            Agg::Collect(ctx) => ctx
                .keys
                .iter()
                .filter_map(|(k, slot)| Some((e.chain_prefix_len(k)?, *slot)))
                .max_by_key(|(n, _)| *n),
            _ => None,
        };
        let (first, rest) = match key {
            Some((n, slot)) => (Box::new(Expr::Slot(slot)), &rest[n..]),
            None => (Box::new(self.expr_with(first, scope, agg)?), rest),
        };
        let mut links = Vec::with_capacity(rest.len());
        for (op, operand) in rest {
            let op = match op {
                BinaryOp::And => ChainOp::And,
                BinaryOp::Or => ChainOp::Or,
                op => ChainOp::Binary(binop(*op)),
            };
            links.push((op, self.expr_with(operand, scope, agg)?));
        }
        Ok(Expr::Chain(first, links))
    }

    /// `CASE`, simple or generic.
    fn case_expr(
        &mut self,
        c: &ast::CaseExpr,
        scope: &Scope,
        agg: &mut Agg<'_>,
    ) -> super::clauses::Result<Expr> {
        let operand = match &c.operand {
            Some(o) => Some(Box::new(self.expr_with(o, scope, agg)?)),
            None => None,
        };
        let mut branches = Vec::with_capacity(c.branches.len());
        for b in &c.branches {
            let w = self.expr_with(&b.when, scope, agg)?;
            let t = self.expr_with(&b.then, scope, agg)?;
            branches.push((w, t));
        }
        let default = match &c.default {
            Some(d) => Some(Box::new(self.expr_with(d, scope, agg)?)),
            None => None,
        };
        Ok(Expr::Case {
            operand,
            branches,
            default,
        })
    }

    /// `[x IN list WHERE filter | map]`: the variable gets a slot of its own.
    fn list_comprehension(
        &mut self,
        c: &ast::ListComprehension,
        scope: &Scope,
        agg: &mut Agg<'_>,
    ) -> super::clauses::Result<Expr> {
        let list = self.expr_with(&c.list, scope, agg)?;
        let slot = self.slot();
        let mut inner = scope.clone();
        inner.bind(&c.variable.name, slot);
        let filter = match &c.filter {
            Some(x) => Some(Box::new(self.expr_with(x, &inner, &mut reborrow(agg))?)),
            None => None,
        };
        let map = match &c.map {
            Some(x) => Some(Box::new(self.expr_with(x, &inner, &mut reborrow(agg))?)),
            None => None,
        };
        Ok(Expr::ListComp {
            slot,
            list: Box::new(list),
            filter,
            map,
        })
    }

    /// `all/any/none/single(x IN list WHERE predicate)`.
    fn quantified(
        &mut self,
        q: &ast::Quantified,
        scope: &Scope,
        agg: &mut Agg<'_>,
    ) -> super::clauses::Result<Expr> {
        let list = self.expr_with(&q.list, scope, agg)?;
        let slot = self.slot();
        let mut inner = scope.clone();
        inner.bind(&q.variable.name, slot);
        let predicate = self.expr_with(&q.predicate, &inner, agg)?;
        Ok(Expr::Quantified {
            quantifier: match q.quantifier {
                ast::Quantifier::All => Quantifier::All,
                ast::Quantifier::Any => Quantifier::Any,
                ast::Quantifier::None => Quantifier::None,
                ast::Quantifier::Single => Quantifier::Single,
            },
            slot,
            list: Box::new(list),
            predicate: Box::new(predicate),
        })
    }

    /// `reduce(acc = init, x IN list | expr)`.
    fn reduce(
        &mut self,
        r: &ast::Reduce,
        scope: &Scope,
        agg: &mut Agg<'_>,
    ) -> super::clauses::Result<Expr> {
        let init = self.expr_with(&r.init, scope, agg)?;
        let list = self.expr_with(&r.list, scope, agg)?;
        let acc = self.slot();
        let slot = self.slot();
        let mut inner = scope.clone();
        inner.bind(&r.accumulator.name, acc);
        inner.bind(&r.variable.name, slot);
        let expr = self.expr_with(&r.expr, &inner, agg)?;
        Ok(Expr::Reduce {
            acc,
            init: Box::new(init),
            slot,
            list: Box::new(list),
            expr: Box::new(expr),
        })
    }

    /// `base {.key, .*, variable, key: value}`.
    fn map_projection(
        &mut self,
        p: &ast::MapProjection,
        e: &ast::Expr,
        scope: &Scope,
        agg: &mut Agg<'_>,
    ) -> super::clauses::Result<Expr> {
        let base = match scope.get(&p.base.name) {
            Some(v) => Expr::Slot(v.slot),
            None => {
                let as_expr = ast::Expr::new(ExprKind::Variable(p.base.clone()), e.span);
                self.expr_with(&as_expr, scope, agg)?
            }
        };
        let mut items = Vec::with_capacity(p.items.len());
        for item in &p.items {
            items.push(match item {
                ast::MapProjectionItem::Property(k) => {
                    MapProjItem::Property(Arc::from(k.name.as_str()), self.tokens.key(&k.name))
                }
                ast::MapProjectionItem::AllProperties => MapProjItem::All,
                ast::MapProjectionItem::Variable(v) => {
                    let as_expr = ast::Expr::new(ExprKind::Variable(v.clone()), v.span);
                    let x = self.expr_with(&as_expr, scope, agg)?;
                    MapProjItem::Entry(Arc::from(v.name.as_str()), x)
                }
                ast::MapProjectionItem::Entry { key, value } => {
                    let x = self.expr_with(value, scope, agg)?;
                    MapProjItem::Entry(Arc::from(key.name.as_str()), x)
                }
            });
        }
        Ok(Expr::MapProjection(Box::new(base), items))
    }

    /// A pattern used as a predicate: whether it has a match (the semantic analysis has
    /// checked that it introduces no variables).
    fn pattern_predicate(
        &mut self,
        chain: &ast::PatternChain,
        e: &ast::Expr,
        scope: &Scope,
    ) -> super::clauses::Result<Expr> {
        let part = ast::PatternPart {
            path: None,
            selector: ast::PathSelector::All,
            mode: None,
            chain: chain.clone(),
            predicate: None,
            span: e.span,
        };
        let (plan, _) = self.pattern_subquery(std::slice::from_ref(&part), None, scope)?;
        Ok(Expr::Subquery(plan, Box::new(SubKind::Exists)))
    }

    /// `[pattern WHERE filter | map]`: a subquery collecting one value per match.
    fn pattern_comprehension(
        &mut self,
        c: &ast::PatternComprehension,
        e: &ast::Expr,
        scope: &Scope,
    ) -> super::clauses::Result<Expr> {
        let part = ast::PatternPart {
            path: c.path.clone(),
            selector: ast::PathSelector::All,
            mode: None,
            chain: c.pattern.clone(),
            predicate: None,
            span: e.span,
        };
        let (plan, inner) =
            self.pattern_subquery(std::slice::from_ref(&part), c.filter.as_ref(), scope)?;
        let map = self.expr(&c.map, &inner)?;
        Ok(Expr::Subquery(plan, Box::new(SubKind::Collect(map))))
    }

    fn aggregate(
        &mut self,
        kind: AggKind,
        distinct: bool,
        args: &[ast::Expr],
        e: &ast::Expr,
        agg: &mut Agg<'_>,
    ) -> super::clauses::Result<Expr> {
        match agg {
            Agg::Forbidden => Err(self.err(
                Status::SyntaxError,
                Detail::InvalidAggregation,
                format!(
                    "Invalid use of aggregating function {}(...) in this context",
                    kind.name()
                ),
                e.span,
            )),
            Agg::Nested => Err(self.err(
                Status::SyntaxError,
                Detail::NestedAggregation,
                "Can't use aggregate functions inside of aggregate functions.",
                e.span,
            )),
            Agg::Collect(ctx) => {
                if args.len() != kind.arity() {
                    return Err(self.err(
                        Status::SyntaxError,
                        Detail::InvalidNumberOfArguments,
                        format!(
                            "Function '{}' expects {} argument(s)",
                            kind.name(),
                            kind.arity()
                        ),
                        e.span,
                    ));
                }
                let pre = ctx.pre.clone();
                let mut compiled = Vec::with_capacity(args.len());
                for a in args {
                    compiled.push(self.expr_with(a, &pre, &mut Agg::Nested)?);
                }
                let mut it = compiled.into_iter();
                let arg = it.next();
                let param = it.next();
                let out = self.slot();
                ctx.aggs.push(AggSpec {
                    kind,
                    distinct,
                    arg,
                    param,
                    out,
                });
                Ok(Expr::Slot(out))
            }
        }
    }

    /// `base` tested against a label expression. Without run-time names it is one
    /// [`Expr::LabelTest`]; with them (`:$(x)|Person`, `:!$(x)`) the operators become boolean
    /// ones over tests of each operand, so `null` propagates as it does for `n:A` (a static
    /// operand keeps its label test, a run-time one is [`Expr::DynamicLabels`]).
    pub(super) fn label_expr_test(
        &mut self,
        base: Expr,
        expr: &ast::LabelExpr,
        types: bool,
        scope: &Scope,
        agg: &mut Agg<'_>,
    ) -> super::clauses::Result<Expr> {
        if !expr.has_dynamic() {
            return Ok(Expr::LabelTest(
                Box::new(base),
                Arc::new(self.label_pred(expr, types)),
            ));
        }
        Ok(match expr {
            ast::LabelExpr::Dynamic { expr: names, any } => {
                let names = self.expr_with(names, scope, agg)?;
                Expr::DynamicLabels(Box::new(base), Box::new(names), *any)
            }
            ast::LabelExpr::Not(inner) => Expr::Not(Box::new(
                self.label_expr_test(base, inner, types, scope, agg)?,
            )),
            ast::LabelExpr::And(items) | ast::LabelExpr::Or(items) => {
                let and = matches!(expr, ast::LabelExpr::And(_));
                let mut out: Option<Expr> = None;
                for item in items {
                    let test = self.label_expr_test(base.clone(), item, types, scope, agg)?;
                    out = Some(match out {
                        None => test,
                        Some(prev) if and => Expr::And(Box::new(prev), Box::new(test)),
                        Some(prev) => Expr::Or(Box::new(prev), Box::new(test)),
                    });
                }
                out.unwrap_or(Expr::Const(quiver_value::Value::Bool(and)))
            }
            // Names and `%` hold no run-time names (handled above).
            ast::LabelExpr::Name(_) | ast::LabelExpr::Any => {
                Expr::LabelTest(Box::new(base), Arc::new(self.label_pred(expr, types)))
            }
        })
    }

    /// [`Planner::label_expr_test`] where no aggregate may appear (patterns).
    pub(super) fn pattern_label_test(
        &mut self,
        base: Expr,
        expr: &ast::LabelExpr,
        types: bool,
        scope: &Scope,
    ) -> super::clauses::Result<Expr> {
        self.label_expr_test(base, expr, types, scope, &mut Agg::Forbidden)
    }

    /// A label expression with its names interned, as relationship types when `types`.
    /// Run-time names have no place here ([`Planner::label_expr_test`] keeps them out); one
    /// reached anyway matches nothing.
    pub(super) fn label_pred(&mut self, expr: &ast::LabelExpr, types: bool) -> LabelPred {
        match expr {
            ast::LabelExpr::Name(name) => LabelPred::Name(if types {
                self.tokens.rel_type(&name.name)
            } else {
                self.tokens.label(&name.name)
            }),
            ast::LabelExpr::Any => LabelPred::Any,
            ast::LabelExpr::Not(inner) => LabelPred::Not(Box::new(self.label_pred(inner, types))),
            ast::LabelExpr::And(items) => {
                LabelPred::And(items.iter().map(|i| self.label_pred(i, types)).collect())
            }
            ast::LabelExpr::Or(items) => {
                LabelPred::Or(items.iter().map(|i| self.label_pred(i, types)).collect())
            }
            ast::LabelExpr::Dynamic { .. } => LabelPred::Or(Vec::new()),
        }
    }

    fn function(
        &mut self,
        call: &ast::FunctionCall,
        e: &ast::Expr,
        scope: &Scope,
        agg: &mut Agg<'_>,
    ) -> super::clauses::Result<Expr> {
        let qualified = call.name.qualified();
        if call.name.namespace.is_empty()
            && let Some(kind) = AggKind::lookup(&call.name.name.name)
        {
            return self.aggregate(kind, call.distinct, &call.args, e, agg);
        }
        if call.distinct {
            return Err(self.err(
                Status::SyntaxError,
                Detail::InvalidAggregation,
                format!("DISTINCT is only allowed in aggregate functions, not in {qualified}()"),
                e.span,
            ));
        }
        if call.name.namespace.is_empty()
            && let Some(g) = GraphFn::lookup(&call.name.name.name)
        {
            if call.args.len() != 1 {
                return Err(self.err(
                    Status::SyntaxError,
                    Detail::InvalidNumberOfArguments,
                    format!(
                        "Function '{}' expects 1 argument, got {}",
                        g.name(),
                        call.args.len()
                    ),
                    e.span,
                ));
            }
            if g == GraphFn::Exists {
                return match &call.args[0].kind {
                    ExprKind::Property { .. } => {
                        let x = self.expr_with(&call.args[0], scope, agg)?;
                        Ok(Expr::IsNull(Box::new(x), true))
                    }
                    ExprKind::Pattern(_) => self.expr_with(&call.args[0], scope, agg),
                    _ => Err(self.err(
                        Status::SyntaxError,
                        Detail::InvalidArgumentType,
                        "Argument to exists(...) is not a property or pattern",
                        e.span,
                    )),
                };
            }
            let x = self.expr_with(&call.args[0], scope, agg)?;
            return Ok(Expr::Graph(g, vec![x]));
        }
        if let Some(f) = ScalarFn::lookup(&qualified) {
            let (min, max) = f.arity();
            if !(min..=max).contains(&call.args.len()) {
                return Err(self.err(
                    Status::SyntaxError,
                    Detail::InvalidNumberOfArguments,
                    format!(
                        "Function '{}' called with the wrong number of arguments ({})",
                        f.name(),
                        call.args.len()
                    ),
                    e.span,
                ));
            }
            let mut args = Vec::with_capacity(call.args.len());
            for a in &call.args {
                args.push(self.expr_with(a, scope, agg)?);
            }
            return Ok(Expr::Scalar(f, args));
        }
        if let Some(f) = crate::apoc::functions::lookup(&qualified) {
            // The analysis has checked the count against the same table.
            let mut args = Vec::with_capacity(call.args.len());
            for a in &call.args {
                args.push(self.expr_with(a, scope, agg)?);
            }
            return Ok(Expr::Library(f, args));
        }
        let Some(f) = quiver_value::lookup(&qualified) else {
            return Err(self.err(
                Status::SyntaxError,
                Detail::UnknownFunction,
                format!("Unknown function '{qualified}'"),
                call.name.name.span,
            ));
        };
        if f.check_arity(call.args.len()).is_err() {
            return Err(self.err(
                Status::SyntaxError,
                Detail::InvalidNumberOfArguments,
                format!(
                    "Function '{qualified}' called with the wrong number of arguments ({})",
                    call.args.len()
                ),
                e.span,
            ));
        }
        let mut args = Vec::with_capacity(call.args.len());
        for a in &call.args {
            args.push(self.expr_with(a, scope, agg)?);
        }
        Ok(Expr::Call(f, args))
    }
}
