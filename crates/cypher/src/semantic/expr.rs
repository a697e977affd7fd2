//! Checking expressions: variables defined, aggregation where it may be, pattern predicates
//! only where a boolean is wanted, and the type errors the text makes certain. Each check
//! returns the expression's static type.
//!
//! The walk recurses once per tree level, which the parser bounds, and each kind of node is
//! checked by its own small function so that a level costs little stack.

use super::scope::Env;
use super::types::Type;
use super::{Analyzer, Result};
use crate::ast::{
    BinaryOp, CaseExpr, Expr, ExprKind, FunctionCall, ListComprehension, Literal, MapProjection,
    MapProjectionItem, PatternComprehension, Quantified, Reduce, SubqueryBody, SubqueryExpr,
    SubqueryKind, UnaryOp,
};
use crate::error::{Detail, ErrorKind};
use crate::span::Span;

/// Whether an aggregating function may appear where an expression is being checked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Agg {
    Allowed,
    Forbidden,
    /// Inside an aggregating function's arguments.
    Inside,
}

/// How the surroundings constrain an expression.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx {
    pub(crate) agg: Agg,
    /// A boolean is wanted here, so a pattern predicate may stand here.
    pub(crate) predicate: bool,
}

impl Ctx {
    /// A `WITH`/`RETURN` item.
    pub(crate) const PROJECTION: Ctx = Ctx {
        agg: Agg::Allowed,
        predicate: false,
    };
    /// Anywhere aggregation is not allowed and no boolean is required.
    pub(crate) const PLAIN: Ctx = Ctx {
        agg: Agg::Forbidden,
        predicate: false,
    };
    /// A `WHERE` or other filter.
    pub(crate) const PREDICATE: Ctx = Ctx {
        agg: Agg::Forbidden,
        predicate: true,
    };

    fn operand(self) -> Ctx {
        Ctx {
            predicate: false,
            ..self
        }
    }

    fn boolean_operand(self) -> Ctx {
        Ctx {
            predicate: true,
            ..self
        }
    }

    /// Inside a comprehension's body, which runs per element: aggregation makes no sense.
    fn per_element(self) -> Ctx {
        Ctx {
            agg: if self.agg == Agg::Inside {
                Agg::Inside
            } else {
                Agg::Forbidden
            },
            ..self
        }
    }
}

fn literal_type(literal: &Literal) -> Type {
    match literal {
        Literal::Null => Type::Null,
        Literal::Boolean(_) => Type::Boolean,
        Literal::Integer(_) => Type::Integer,
        Literal::Float(_) => Type::Float,
        Literal::String(_) => Type::String,
    }
}

/// Types no boolean operator accepts.
const NOT_BOOLEAN: Type = Type::Boolean;

impl Analyzer<'_> {
    /// Checks `expr` against `env` and returns its static type.
    pub(crate) fn expr(&mut self, expr: &Expr, env: &mut Env<'_>, ctx: Ctx) -> Result<Type> {
        match &expr.kind {
            ExprKind::Literal(literal) => Ok(literal_type(literal)),
            ExprKind::Parameter(name) => {
                self.note_parameter(name, expr.span);
                Ok(Type::Any)
            }
            ExprKind::Variable(variable) => env
                .lookup(&variable.name)
                .ok_or_else(|| self.undefined(&variable.name, variable.span)),
            ExprKind::Property { base, .. } => self.property(base, env, ctx),
            ExprKind::Index { base, index } => self.index(base, index, env, ctx),
            ExprKind::Slice { base, from, to } => {
                let ty = self.expr(base, env, ctx.operand())?;
                for bound in [from, to].into_iter().flatten() {
                    self.expr(bound, env, ctx.operand())?;
                }
                Ok(if matches!(ty, Type::List(_)) {
                    ty
                } else {
                    Type::Any
                })
            }
            ExprKind::HasLabels { base, .. } => {
                self.expr(base, env, ctx.operand())?;
                Ok(Type::Boolean)
            }
            ExprKind::LabelTest { base, expr } => {
                self.expr(base, env, ctx.operand())?;
                for label in expr.dynamic_exprs() {
                    let ty = self.expr(label, env, ctx.operand())?;
                    if ty.is_not(&Type::String) && ty.is_not(&Type::list_of(Type::String)) {
                        return Err(self.type_mismatch("String or List<String>", &ty, label.span));
                    }
                }
                Ok(Type::Boolean)
            }
            ExprKind::DynamicLabels { base, all, any } => {
                self.expr(base, env, ctx.operand())?;
                for label in all.iter().chain(any) {
                    let ty = self.expr(label, env, ctx.operand())?;
                    if ty.is_not(&Type::String) && ty.is_not(&Type::list_of(Type::String)) {
                        return Err(self.type_mismatch("String or List<String>", &ty, label.span));
                    }
                }
                Ok(Type::Boolean)
            }
            ExprKind::Unary { op, operand } => self.unary(*op, operand, env, ctx),
            ExprKind::Binary { op, left, right } => self.binary(*op, left, right, env, ctx),
            ExprKind::Chain { first, rest } => self.chain(first, rest, env, ctx),
            ExprKind::IsNull { operand, .. } | ExprKind::TypeTest { operand, .. } => {
                self.expr(operand, env, ctx.operand())?;
                Ok(Type::Boolean)
            }
            ExprKind::List(items) => self.list(items, env, ctx),
            ExprKind::Map(entries) => {
                for entry in entries {
                    self.expr(&entry.value, env, ctx.operand())?;
                }
                Ok(Type::Map)
            }
            ExprKind::FunctionCall(call) => self.function_call(expr.span, call, env, ctx),
            ExprKind::CountStar => {
                self.aggregate_here(ctx, "count(*)", expr.span)?;
                Ok(Type::Integer)
            }
            ExprKind::Case(case) => self.case(case, env, ctx),
            ExprKind::ListComprehension(c) => self.list_comprehension(c, env, ctx),
            ExprKind::PatternComprehension(c) => self.pattern_comprehension(c, env, ctx),
            ExprKind::Quantified(q) => self.quantified(q, env, ctx),
            ExprKind::Reduce(r) => self.reduce(r, env, ctx),
            ExprKind::MapProjection(p) => self.map_projection(p, expr.span, env, ctx),
            ExprKind::Pattern(chain) => {
                if !ctx.predicate {
                    return Err(self.syntax_error(
                        Detail::UnexpectedSyntax,
                        "A pattern expression should only be used in order to test the \
                         existence of a pattern. It should therefore only be used in contexts \
                         that evaluate to a boolean, e.g. inside the function exists() or in a \
                         WHERE-clause. No other uses are allowed, instead they should be \
                         replaced by a pattern comprehension or COUNT { }.",
                        expr.span,
                    ));
                }
                self.pattern_predicate(chain, env)?;
                Ok(Type::Boolean)
            }
            ExprKind::Subquery(subquery) => self.subquery_expr(subquery, env),
        }
    }

    /// Checks a filter: any boolean expression, not aggregating.
    pub(crate) fn predicate(&mut self, expr: &Expr, env: &mut Env<'_>) -> Result<()> {
        let ty = self.expr(expr, env, Ctx::PREDICATE)?;
        if ty.is_not(&NOT_BOOLEAN) {
            return Err(self.type_mismatch("Boolean", &ty, expr.span));
        }
        Ok(())
    }

    /// Records an aggregating call, or fails if none may stand here.
    fn aggregate_here(&mut self, ctx: Ctx, name: &str, span: Span) -> Result<()> {
        match ctx.agg {
            Agg::Allowed => {
                self.aggregates += 1;
                Ok(())
            }
            Agg::Forbidden => Err(self.syntax_error(
                Detail::InvalidAggregation,
                format!("Invalid use of aggregating function {name}(...) in this context"),
                span,
            )),
            Agg::Inside => Err(self.syntax_error(
                Detail::NestedAggregation,
                "Can't use aggregate functions inside of aggregate functions.",
                span,
            )),
        }
    }

    fn property(&mut self, base: &Expr, env: &mut Env<'_>, ctx: Ctx) -> Result<Type> {
        let ty = self.expr(base, env, ctx.operand())?;
        match ty {
            Type::Path => Err(self.type_mismatch(
                "Map, Node, Relationship, Point, Duration, Date, Time, LocalTime, LocalDateTime or \
                 DateTime",
                &ty,
                base.span,
            )),
            Type::Integer | Type::Float | Type::Boolean | Type::String | Type::List(_) => Err(self
                .error(
                    ErrorKind::type_error(Detail::InvalidArgumentType),
                    format!(
                        "Type mismatch: expected a map, node, relationship or temporal value \
                         but was {ty}"
                    ),
                    base.span,
                )),
            _ => Ok(Type::Any),
        }
    }

    fn index(&mut self, base: &Expr, index: &Expr, env: &mut Env<'_>, ctx: Ctx) -> Result<Type> {
        let base_ty = self.expr(base, env, ctx.operand())?;
        let index_ty = self.expr(index, env, ctx.operand())?;
        let type_error = |this: &Self, message: String, span| {
            this.error(
                ErrorKind::type_error(Detail::InvalidArgumentType),
                message,
                span,
            )
        };
        match &base_ty {
            Type::Boolean | Type::Integer | Type::Float | Type::String => Err(type_error(
                self,
                format!("Type mismatch: expected a list or a map but was {base_ty}"),
                base.span,
            )),
            Type::List(element) => {
                if index_ty.is_not(&Type::Integer) {
                    return Err(type_error(
                        self,
                        format!("Type mismatch: expected Integer but was {index_ty}"),
                        index.span,
                    ));
                }
                Ok((**element).clone())
            }
            _ => Ok(Type::Any),
        }
    }

    fn unary(&mut self, op: UnaryOp, operand: &Expr, env: &mut Env<'_>, ctx: Ctx) -> Result<Type> {
        match op {
            UnaryOp::Not => {
                let ty = self.expr(operand, env, ctx.boolean_operand())?;
                if ty.is_not(&Type::Boolean) {
                    return Err(self.type_mismatch("Boolean", &ty, operand.span));
                }
                Ok(Type::Boolean)
            }
            UnaryOp::Negate | UnaryOp::Plus => {
                let ty = self.expr(operand, env, ctx.operand())?;
                if non_arithmetic(&ty) {
                    return Err(self.type_mismatch("a number or a duration", &ty, operand.span));
                }
                Ok(if ty.is_number() { ty } else { Type::Any })
            }
        }
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        left: &Expr,
        right: &Expr,
        env: &mut Env<'_>,
        ctx: Ctx,
    ) -> Result<Type> {
        if op.is_boolean() {
            for side in [left, right] {
                let ty = self.expr(side, env, ctx.boolean_operand())?;
                if ty.is_not(&Type::Boolean) {
                    return Err(self.type_mismatch("Boolean", &ty, side.span));
                }
            }
            return Ok(Type::Boolean);
        }
        let l = self.expr(left, env, ctx.operand())?;
        let r = self.expr(right, env, ctx.operand())?;
        self.combine(op, &l, left.span, &r, right.span)
    }

    /// A chain `first op1 e1 op2 e2 ...`, checked as the left-nested binary operators it
    /// stands for, in a loop: the chain may be long.
    fn chain(
        &mut self,
        first: &Expr,
        rest: &[(BinaryOp, Expr)],
        env: &mut Env<'_>,
        ctx: Ctx,
    ) -> Result<Type> {
        if rest.first().is_some_and(|(op, _)| op.is_boolean()) {
            for side in std::iter::once(first).chain(rest.iter().map(|(_, e)| e)) {
                let ty = self.expr(side, env, ctx.boolean_operand())?;
                if ty.is_not(&Type::Boolean) {
                    return Err(self.type_mismatch("Boolean", &ty, side.span));
                }
            }
            return Ok(Type::Boolean);
        }
        let mut ty = self.expr(first, env, ctx.operand())?;
        let mut span = first.span;
        for (op, operand) in rest {
            let r = self.expr(operand, env, ctx.operand())?;
            ty = self.combine(*op, &ty, span, &r, operand.span)?;
            span = span.to(operand.span);
        }
        Ok(ty)
    }

    /// The type of `left op right` (not a boolean operator) from its operands' types.
    fn combine(&self, op: BinaryOp, l: &Type, left: Span, r: &Type, right: Span) -> Result<Type> {
        match op {
            BinaryOp::In => {
                if r.is_not(&Type::list_of(Type::Any)) {
                    return Err(self.type_mismatch("List<Any>", r, right));
                }
                Ok(Type::Boolean)
            }
            BinaryOp::Add => self.addition(l, r, left, right),
            op if op.is_arithmetic() => {
                for (ty, side) in [(l, left), (r, right)] {
                    if non_arithmetic(ty) {
                        return Err(self.type_mismatch(
                            "a number, a duration or a temporal value",
                            ty,
                            side,
                        ));
                    }
                }
                Ok(match (l, r, op) {
                    (_, _, BinaryOp::Power) if l.is_number() && r.is_number() => Type::Float,
                    (Type::Integer, Type::Integer, _) => Type::Integer,
                    _ if l.is_number() && r.is_number() => Type::Float,
                    _ => Type::Any,
                })
            }
            _ => Ok(Type::Boolean),
        }
    }

    /// `+` adds numbers and temporal values, concatenates strings and lists, and appends to
    /// lists.
    fn addition(&self, l: &Type, r: &Type, left: Span, right: Span) -> Result<Type> {
        if let (Type::List(a), Type::List(b)) = (l, r) {
            return Ok(Type::list_of(a.join(b)));
        }
        if let Type::List(a) = l {
            return Ok(Type::list_of(a.join(r)));
        }
        if let Type::List(b) = r {
            return Ok(Type::list_of(b.join(l)));
        }
        let unaddable = [
            Type::Boolean,
            Type::Map,
            Type::Node,
            Type::Relationship,
            Type::Path,
        ];
        for (ty, side) in [(l, left), (r, right)] {
            if unaddable.contains(ty) {
                return Err(self.type_mismatch(
                    "a number, a string, a list or a temporal value",
                    ty,
                    side,
                ));
            }
        }
        Ok(match (l, r) {
            (Type::Integer, Type::Integer) => Type::Integer,
            (a, b) if a.is_number() && b.is_number() => Type::Float,
            (Type::String, _) | (_, Type::String) => Type::String,
            _ => Type::Any,
        })
    }

    fn list(&mut self, items: &[Expr], env: &mut Env<'_>, ctx: Ctx) -> Result<Type> {
        let mut element: Option<Type> = None;
        for item in items {
            let ty = self.expr(item, env, ctx.operand())?;
            element = Some(match element {
                None => ty,
                Some(e) => e.join(&ty),
            });
        }
        Ok(Type::list_of(element.unwrap_or(Type::Any)))
    }

    fn case(&mut self, case: &CaseExpr, env: &mut Env<'_>, ctx: Ctx) -> Result<Type> {
        if let Some(operand) = &case.operand {
            self.expr(operand, env, ctx.operand())?;
        }
        let mut result: Option<Type> = None;
        for branch in &case.branches {
            let when_ctx = if case.operand.is_some() {
                ctx.operand()
            } else {
                ctx.boolean_operand()
            };
            self.expr(&branch.when, env, when_ctx)?;
            let ty = self.expr(&branch.then, env, ctx.operand())?;
            result = Some(result.map_or(ty.clone(), |r| r.join(&ty)));
        }
        if let Some(default) = &case.default {
            let ty = self.expr(default, env, ctx.operand())?;
            result = Some(result.map_or(ty.clone(), |r| r.join(&ty)));
        }
        Ok(result.unwrap_or(Type::Any))
    }

    fn list_comprehension(
        &mut self,
        c: &ListComprehension,
        env: &mut Env<'_>,
        ctx: Ctx,
    ) -> Result<Type> {
        let list = self.expr(&c.list, env, ctx.operand())?;
        env.push(&c.variable.name, list.element());
        let result = self.comprehension_body(c, env, ctx, list.element());
        env.pop(1);
        result
    }

    fn comprehension_body(
        &mut self,
        c: &ListComprehension,
        env: &mut Env<'_>,
        ctx: Ctx,
        element: Type,
    ) -> Result<Type> {
        if let Some(filter) = &c.filter {
            self.expr(filter, env, ctx.per_element().boolean_operand())?;
        }
        match &c.map {
            Some(map) => Ok(Type::list_of(self.expr(
                map,
                env,
                ctx.per_element().operand(),
            )?)),
            None => Ok(Type::list_of(element)),
        }
    }

    fn quantified(&mut self, q: &Quantified, env: &mut Env<'_>, ctx: Ctx) -> Result<Type> {
        let list = self.expr(&q.list, env, ctx.operand())?;
        if list.is_not(&Type::list_of(Type::Any)) {
            return Err(self.type_mismatch("List<Any>", &list, q.list.span));
        }
        env.push(&q.variable.name, list.element());
        let result = self.expr(&q.predicate, env, ctx.per_element().boolean_operand());
        env.pop(1);
        result?;
        Ok(Type::Boolean)
    }

    fn reduce(&mut self, r: &Reduce, env: &mut Env<'_>, ctx: Ctx) -> Result<Type> {
        let init = self.expr(&r.init, env, ctx.operand())?;
        let list = self.expr(&r.list, env, ctx.operand())?;
        env.push(&r.accumulator.name, init);
        env.push(&r.variable.name, list.element());
        let result = self.expr(&r.expr, env, ctx.per_element().operand());
        env.pop(2);
        result?;
        Ok(Type::Any)
    }

    fn map_projection(
        &mut self,
        p: &MapProjection,
        span: Span,
        env: &mut Env<'_>,
        ctx: Ctx,
    ) -> Result<Type> {
        let base = env
            .lookup(&p.base.name)
            .ok_or_else(|| self.undefined(&p.base.name, p.base.span))?;
        if base.is_none_of(&[Type::Node, Type::Relationship, Type::Map]) {
            return Err(self.type_mismatch("Map, Node or Relationship", &base, span));
        }
        for item in &p.items {
            match item {
                MapProjectionItem::Property(_) | MapProjectionItem::AllProperties => {}
                MapProjectionItem::Variable(variable) => {
                    if env.lookup(&variable.name).is_none() {
                        return Err(self.undefined(&variable.name, variable.span));
                    }
                }
                MapProjectionItem::Entry { value, .. } => {
                    self.expr(value, env, ctx.operand())?;
                }
            }
        }
        Ok(Type::Map)
    }

    fn pattern_comprehension(
        &mut self,
        c: &PatternComprehension,
        env: &mut Env<'_>,
        ctx: Ctx,
    ) -> Result<Type> {
        let pushed = self.declare_local_pattern(&c.pattern, c.path.as_ref(), env)?;
        let result = self.pattern_comprehension_body(c, env, ctx);
        env.pop(pushed);
        result
    }

    fn pattern_comprehension_body(
        &mut self,
        c: &PatternComprehension,
        env: &mut Env<'_>,
        ctx: Ctx,
    ) -> Result<Type> {
        self.pattern_expressions(&c.pattern, env)?;
        if let Some(filter) = &c.filter {
            self.expr(filter, env, ctx.per_element().boolean_operand())?;
        }
        let map = self.expr(&c.map, env, ctx.per_element().operand())?;
        Ok(Type::list_of(map))
    }

    fn subquery_expr(&mut self, subquery: &SubqueryExpr, env: &mut Env<'_>) -> Result<Type> {
        // Aggregates inside belong to the subquery's own projections.
        let aggregates = self.aggregates;
        let scope = env.flattened();
        let result = match &subquery.body {
            SubqueryBody::Pattern { pattern, filter } => {
                self.subquery_pattern(pattern, filter.as_ref(), scope)
            }
            SubqueryBody::Query(query) => self.subquery_query(query, subquery.kind, &scope),
        };
        self.aggregates = aggregates;
        result?;
        Ok(match subquery.kind {
            SubqueryKind::Exists => Type::Boolean,
            SubqueryKind::Count => Type::Integer,
            SubqueryKind::Collect => Type::list_of(Type::Any),
        })
    }

    fn function_call(
        &mut self,
        span: Span,
        call: &FunctionCall,
        env: &mut Env<'_>,
        ctx: Ctx,
    ) -> Result<Type> {
        let qualified = call.name.qualified();
        let Some(signature) = self.options.functions.function(&qualified) else {
            return Err(self.syntax_error(
                Detail::UnknownFunction,
                format!("Unknown function '{qualified}'"),
                call.name.name.span,
            ));
        };
        let count = call.args.len();
        if count < signature.min_args {
            return Err(self.syntax_error(
                Detail::InvalidNumberOfArguments,
                format!("Insufficient parameters for function '{}'", signature.name),
                span,
            ));
        }
        if signature.max_args.is_some_and(|max| count > max) {
            return Err(self.syntax_error(
                Detail::InvalidNumberOfArguments,
                format!("Too many parameters for function '{}'", signature.name),
                span,
            ));
        }
        let arg_ctx = if signature.aggregate {
            self.aggregate_here(ctx, signature.name, span)?;
            Ctx {
                agg: Agg::Inside,
                predicate: false,
            }
        } else {
            if !signature.deterministic && ctx.agg == Agg::Inside {
                return Err(self.syntax_error(
                    Detail::NonConstantExpression,
                    format!(
                        "Can't use non-deterministic (random) functions inside of aggregate \
                         functions: {}()",
                        signature.name
                    ),
                    span,
                ));
            }
            ctx.operand()
        };
        let is = |name: &str| signature.name.eq_ignore_ascii_case(name);
        let mut arg_types = Vec::with_capacity(count);
        for arg in &call.args {
            let this_ctx = if is("exists") {
                arg_ctx.boolean_operand()
            } else {
                arg_ctx
            };
            arg_types.push(self.expr(arg, env, this_ctx)?);
        }
        self.check_function_arguments(&signature.name.to_ascii_lowercase(), call, &arg_types)?;
        let first = arg_types.first().cloned().unwrap_or(Type::Any);
        Ok(match signature.name.to_ascii_lowercase().as_str() {
            "collect" => Type::list_of(first),
            "head" | "last" => first.element(),
            "tail" | "reverse" if matches!(first, Type::List(_)) => first,
            "abs" | "min" | "max" | "sum" if first.is_number() => first,
            "coalesce" => arg_types.iter().fold(Type::Null, |a, t| a.join(t)),
            _ => signature.returns.clone(),
        })
    }

    /// The argument types Neo4j rejects at compile time for the graph functions.
    fn check_function_arguments(
        &self,
        name: &str,
        call: &FunctionCall,
        types: &[Type],
    ) -> Result<()> {
        let Some(first) = types.first() else {
            return Ok(());
        };
        let span = call.args.first().map_or(call.name.name.span, |a| a.span);
        let (allowed, expected): (&[Type], &str) = match name {
            "labels" => (&[Type::Node], "Node"),
            "type" | "startnode" | "endnode" => (&[Type::Relationship], "Relationship"),
            "nodes" | "relationships" => (&[Type::Path], "Path"),
            "length" => (
                &[Type::Path, Type::String, Type::list_of(Type::Any)],
                "Path",
            ),
            "size" => (
                &[Type::String, Type::list_of(Type::Any)],
                "String or List<T>",
            ),
            "keys" | "properties" => (
                &[Type::Node, Type::Relationship, Type::Map],
                "Map, Node or Relationship",
            ),
            "id" | "elementid" => (&[Type::Node, Type::Relationship], "Node or Relationship"),
            _ => return Ok(()),
        };
        if first.is_none_of(allowed) {
            return Err(self.type_mismatch(expected, first, span));
        }
        Ok(())
    }
}

/// Types that arithmetic never accepts.
fn non_arithmetic(ty: &Type) -> bool {
    matches!(
        ty,
        Type::String
            | Type::Boolean
            | Type::List(_)
            | Type::Map
            | Type::Node
            | Type::Relationship
            | Type::Path
    )
}
