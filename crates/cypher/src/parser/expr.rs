//! Expressions: a Pratt loop over the precedence levels in [`prec`].

use super::{Parser, Result};
use crate::ast::{
    BinaryOp, CaseBranch, CaseExpr, Expr, ExprKind, FunctionCall, FunctionName, Ident,
    ListComprehension, Literal, MapEntry, MapProjection, MapProjectionItem, PatternComprehension,
    Quantified, Quantifier, Reduce, Span, SubqueryBody, SubqueryExpr, SubqueryKind, UnaryOp, prec,
};
use crate::error::Detail;
use crate::token::TokenKind;

/// What may follow a complete operand.
#[derive(Clone, Copy)]
enum Infix {
    Binary(BinaryOp, usize),
    Comparison(BinaryOp),
    IsNull,
    Property,
    Index,
    Labels,
    /// `x :: TYPE`, short for `x IS :: TYPE`.
    TypeTest,
    BangEq,
}

impl Infix {
    fn precedence(self) -> u8 {
        match self {
            Infix::Binary(op, _) => op.precedence(),
            Infix::Comparison(_) | Infix::BangEq => prec::COMPARISON,
            Infix::IsNull | Infix::TypeTest => prec::PREDICATE,
            Infix::Property | Infix::Index | Infix::Labels => prec::POSTFIX,
        }
    }
}

/// Memo keys for speculative parses (see `Parser::not_a_pattern`).
const PATTERN_PREDICATE: u8 = 0;
const PATTERN_COMPREHENSION: u8 = 1;
const LIST_COMPREHENSION: u8 = 2;
const CASE_EXPRESSION: u8 = 3;

/// The metrics `vector_distance()` and `vector_norm()` take as a bare word.
const VECTOR_METRICS: [&str; 6] = [
    "EUCLIDEAN",
    "EUCLIDEAN_SQUARED",
    "MANHATTAN",
    "COSINE",
    "DOT",
    "HAMMING",
];

/// The coordinate type names (and aliases) `vector()` takes as a bare word.
const VECTOR_COORDINATE_TYPES: [&str; 13] = [
    "INTEGER",
    "INT",
    "INTEGER64",
    "INT64",
    "INTEGER32",
    "INT32",
    "INTEGER16",
    "INT16",
    "INTEGER8",
    "INT8",
    "FLOAT",
    "FLOAT64",
    "FLOAT32",
];

impl Parser<'_> {
    pub(crate) fn parse_expr(&mut self) -> Result<Expr> {
        self.parse_expr_bp(0)
    }

    /// An expression whose operators all bind tighter than `min_bp`.
    pub(crate) fn parse_expr_bp(&mut self, min_bp: u8) -> Result<Expr> {
        self.check_depth(1)?;
        self.depth += 1;
        let result = self.parse_operand_and_operators(min_bp);
        self.depth -= 1;
        result
    }

    fn parse_operand_and_operators(&mut self, min_bp: u8) -> Result<Expr> {
        let mut lhs = self.parse_prefix()?;
        // Each operator that wraps `lhs` in a new node deepens the tree by one, so those
        // spend the same budget as nesting. A binary operator of the same level as the one
        // `lhs` ends with extends a flat `Chain` instead, in this loop: `a AND b AND ...` and
        // `1 + 1 + ...` of any length cost one level. Along this loop precedence never rises
        // (a tighter operator is taken by the right operand's parse), so at most one level is
        // spent per precedence level, plus one per postfix operator.
        let mut links = 0;
        // Whether `lhs` is an operator node this loop built; one that came from
        // parentheses, `(a + b) + c`, is nested, not extended, so that it prints back as it
        // was written.
        let mut built_here = false;
        while let Some(infix) = self.peek_infix() {
            if infix.precedence() <= min_bp {
                break;
            }
            if let Infix::Binary(op, tokens) = infix
                && built_here
                && ends_with_level(&lhs, op)
            {
                for _ in 0..tokens {
                    self.advance();
                }
                let rhs = self.parse_expr_bp(op.precedence())?;
                lhs = extend(lhs, op, rhs);
                continue;
            }
            links += 1;
            self.check_depth(links)?;
            lhs = self.parse_infix(lhs, infix, &mut links)?;
            built_here = matches!(infix, Infix::Binary(..) | Infix::Comparison(_));
        }
        Ok(lhs)
    }

    fn peek_infix(&self) -> Option<Infix> {
        use BinaryOp::*;
        let token = self.peek();
        Some(match &token.kind {
            TokenKind::Eq => Infix::Comparison(Eq),
            TokenKind::Neq => Infix::Comparison(NotEq),
            TokenKind::Lt => Infix::Comparison(Lt),
            TokenKind::Le => Infix::Comparison(Le),
            TokenKind::Gt => Infix::Comparison(Gt),
            TokenKind::Ge => Infix::Comparison(Ge),
            TokenKind::BangEq => Infix::BangEq,
            TokenKind::RegexMatch => Infix::Binary(RegexMatch, 1),
            TokenKind::Plus => Infix::Binary(Add, 1),
            TokenKind::Minus => Infix::Binary(Subtract, 1),
            TokenKind::Star => Infix::Binary(Multiply, 1),
            TokenKind::Slash => Infix::Binary(Divide, 1),
            TokenKind::Percent => Infix::Binary(Modulo, 1),
            TokenKind::Caret => Infix::Binary(Power, 1),
            TokenKind::Dot => Infix::Property,
            TokenKind::LBracket => Infix::Index,
            TokenKind::Colon => Infix::Labels,
            TokenKind::DoubleColon => Infix::TypeTest,
            TokenKind::Word => {
                if self.peek_keyword("OR") {
                    Infix::Binary(Or, 1)
                } else if self.peek_keyword("XOR") {
                    Infix::Binary(Xor, 1)
                } else if self.peek_keyword("AND") {
                    Infix::Binary(And, 1)
                } else if self.peek_keyword("IN") {
                    Infix::Binary(In, 1)
                } else if self.peek_keyword("CONTAINS") {
                    Infix::Binary(Contains, 1)
                } else if self.peek_keyword("STARTS") && self.peek_nth_keyword(1, "WITH") {
                    Infix::Binary(StartsWith, 2)
                } else if self.peek_keyword("ENDS") && self.peek_nth_keyword(1, "WITH") {
                    Infix::Binary(EndsWith, 2)
                } else if self.peek_keyword("IS") {
                    Infix::IsNull
                } else {
                    return None;
                }
            }
            _ => return None,
        })
    }

    /// Dispatches to one small function per operator kind: this sits on the recursion path of
    /// every nested expression, so its stack frame must stay small.
    fn parse_infix(&mut self, lhs: Expr, infix: Infix, links: &mut usize) -> Result<Expr> {
        match infix {
            Infix::Binary(op, tokens) => self.parse_binary_rhs(lhs, op, tokens),
            Infix::Comparison(op) => self.parse_comparison_chain(lhs, op, links),
            Infix::BangEq => Err(self.error(
                Detail::UnexpectedSyntax,
                "Invalid input '!=': Cypher writes 'not equal' as '<>'",
                self.peek().span,
            )),
            Infix::IsNull => self.parse_is_null(lhs),
            Infix::Property => self.parse_property_lookup(lhs),
            Infix::Index => self.parse_index_or_slice(lhs),
            Infix::Labels => self.parse_has_labels(lhs),
            Infix::TypeTest => {
                self.advance();
                self.finish_type_test(lhs, false)
            }
        }
    }

    fn parse_binary_rhs(&mut self, lhs: Expr, op: BinaryOp, tokens: usize) -> Result<Expr> {
        for _ in 0..tokens {
            self.advance();
        }
        let rhs = self.parse_expr_bp(op.precedence())?;
        Ok(binary(op, lhs, rhs))
    }

    fn parse_property_lookup(&mut self, lhs: Expr) -> Result<Expr> {
        self.advance();
        let key = self.parse_name("a property key name")?;
        let span = lhs.span.to(key.span);
        Ok(Expr::new(
            ExprKind::Property {
                base: Box::new(lhs),
                key,
            },
            span,
        ))
    }

    fn parse_has_labels(&mut self, lhs: Expr) -> Result<Expr> {
        if self.peek_dynamic_labels() {
            let (names, mut all, any) = self.parse_dynamic_labels()?;
            all.splice(
                0..0,
                names
                    .into_iter()
                    .map(|n| literal(Literal::String(n.name), n.span)),
            );
            let span = self.span_from(lhs.span.start);
            return Ok(Expr::new(
                ExprKind::DynamicLabels {
                    base: Box::new(lhs),
                    all,
                    any,
                },
                span,
            ));
        }
        self.advance();
        let expr = self.parse_label_expr(false, false)?;
        Ok(label_test(lhs, expr, self.prev_end()))
    }

    /// After `IS [NOT] ::` (or `TYPED`, or a bare `::`): the type, then the test.
    fn finish_type_test(&mut self, lhs: Expr, negated: bool) -> Result<Expr> {
        let ty = self.parse_cypher_type()?;
        let span = self.span_from(lhs.span.start);
        Ok(Expr::new(
            ExprKind::TypeTest {
                operand: Box::new(lhs),
                ty,
                negated,
            },
            span,
        ))
    }

    /// `a < b <= c` means `a < b AND b <= c`.
    fn parse_comparison_chain(
        &mut self,
        lhs: Expr,
        op: BinaryOp,
        links: &mut usize,
    ) -> Result<Expr> {
        self.advance();
        let rhs = self.parse_expr_bp(prec::COMPARISON)?;
        let mut last = rhs.clone();
        let mut result = binary(op, lhs, rhs);
        let mut chained = false;
        while let Some(Infix::Comparison(next_op)) = self.peek_infix() {
            if !chained {
                // The `AND` node wrapping the first comparison: one level, however long
                // the chain grows.
                *links += 1;
                self.check_depth(*links)?;
            }
            self.advance();
            let next = self.parse_expr_bp(prec::COMPARISON)?;
            let comparison = binary(next_op, last, next.clone());
            result = if chained {
                extend(result, BinaryOp::And, comparison)
            } else {
                binary(BinaryOp::And, result, comparison)
            };
            chained = true;
            last = next;
        }
        Ok(result)
    }

    /// After an operand: `IS [NOT] NULL`, `IS [NOT] :: TYPE` (`TYPED` for `::`), or the
    /// label predicate `IS LabelExpression`.
    fn parse_is_null(&mut self, lhs: Expr) -> Result<Expr> {
        self.advance();
        let negated = self.parse_keyword("NOT");
        if self.parse_keyword("NULL") {
            let span = self.span_from(lhs.span.start);
            return Ok(Expr::new(
                ExprKind::IsNull {
                    operand: Box::new(lhs),
                    negated,
                },
                span,
            ));
        }
        if self.consume(&TokenKind::DoubleColon) || self.parse_keyword("TYPED") {
            return self.finish_type_test(lhs, negated);
        }
        if self.peek_keyword("NORMALIZED") || self.peek_nth_keyword(1, "NORMALIZED") {
            return self.finish_normalized(lhs, negated);
        }
        if !negated && self.peek_is_label_expr() {
            let expr = self.parse_label_expr(false, true)?;
            let span = self.span_from(lhs.span.start);
            return Ok(label_test(lhs, expr, span.end));
        }
        Err(self.expected("'NULL', 'NOT NULL', ':: <type>' or a label expression"))
    }

    /// `s IS [NOT] [NFC|NFD|NFKC|NFKD] NORMALIZED`, after `IS [NOT]`: read as
    /// `normalize(s, form) = s` (under `NOT` when negated), which is what Neo4j defines it
    /// as: null for a null string, NFC when no form is named.
    fn finish_normalized(&mut self, lhs: Expr, negated: bool) -> Result<Expr> {
        let form_span = self.peek().span;
        let form = if self.parse_keyword("NORMALIZED") {
            "NFC".to_owned()
        } else {
            let word = self.parse_name("a normal form")?;
            let form = word.name.to_ascii_uppercase();
            if !["NFC", "NFD", "NFKC", "NFKD"].contains(&form.as_str()) {
                return Err(self.expected("'NFC', 'NFD', 'NFKC' or 'NFKD'"));
            }
            if !self.parse_keyword("NORMALIZED") {
                return Err(self.expected("'NORMALIZED'"));
            }
            form
        };
        let span = self.span_from(lhs.span.start);
        let call = Expr::new(
            ExprKind::FunctionCall(Box::new(FunctionCall {
                name: FunctionName {
                    namespace: Vec::new(),
                    name: Ident {
                        name: "normalize".to_owned(),
                        span: form_span,
                    },
                },
                distinct: false,
                args: vec![
                    lhs.clone(),
                    Expr::new(ExprKind::Literal(Literal::String(form)), form_span),
                ],
            })),
            span,
        );
        let test = Expr::new(
            ExprKind::Binary {
                op: BinaryOp::Eq,
                left: Box::new(call),
                right: Box::new(lhs),
            },
            span,
        );
        Ok(if negated {
            Expr::new(
                ExprKind::Unary {
                    op: UnaryOp::Not,
                    operand: Box::new(test),
                },
                span,
            )
        } else {
            test
        })
    }

    fn parse_index_or_slice(&mut self, lhs: Expr) -> Result<Expr> {
        self.advance();
        let start = lhs.span.start;
        let from = if self.peek_is(&TokenKind::DotDot) {
            None
        } else {
            Some(self.parse_expr()?)
        };
        // Without a first expression the `..` is next, so only `[index]` is not a slice.
        let kind = match (from, self.consume(&TokenKind::DotDot)) {
            (Some(index), false) => ExprKind::Index {
                base: Box::new(lhs),
                index: Box::new(index),
            },
            (from, _) => {
                let to = if self.peek_is(&TokenKind::RBracket) {
                    None
                } else {
                    Some(Box::new(self.parse_expr()?))
                };
                ExprKind::Slice {
                    base: Box::new(lhs),
                    from: from.map(Box::new),
                    to,
                }
            }
        };
        self.expect(&TokenKind::RBracket)?;
        Ok(Expr::new(kind, self.span_from(start)))
    }

    // ----- prefix forms -----

    /// Dispatches on the first token; like `parse_infix`, it is on every recursion path and
    /// holds no large temporaries itself.
    fn parse_prefix(&mut self) -> Result<Expr> {
        match self.peek_kind() {
            TokenKind::Integer(_)
            | TokenKind::Float(_)
            | TokenKind::String(_)
            | TokenKind::Parameter(_) => self.parse_literal_token(),
            TokenKind::Minus => self.parse_minus(),
            TokenKind::Plus => {
                let start = self.start();
                self.advance();
                self.parse_unary(UnaryOp::Plus, start)
            }
            TokenKind::LParen => self.parse_paren_or_pattern(),
            TokenKind::LBracket => self.parse_bracket(),
            TokenKind::LBrace => self.parse_map_literal(),
            TokenKind::Word => self.parse_word_prefix(),
            TokenKind::QuotedName(_) => {
                if self.function_call_ahead() {
                    self.parse_function_call()
                } else {
                    self.parse_variable_or_projection()
                }
            }
            _ => Err(self.expected("an expression")),
        }
    }

    fn parse_literal_token(&mut self) -> Result<Expr> {
        let token = self.peek().clone();
        self.advance();
        let value = match token.kind {
            TokenKind::Integer(magnitude) => {
                Literal::Integer(self.integer_value(magnitude, false, token.span)?)
            }
            TokenKind::Float(value) => Literal::Float(value),
            TokenKind::String(value) => Literal::String(value),
            TokenKind::Parameter(name) => {
                return Ok(Expr::new(ExprKind::Parameter(name), token.span));
            }
            _ => return Err(self.expected("a literal")),
        };
        Ok(literal(value, token.span))
    }

    fn parse_minus(&mut self) -> Result<Expr> {
        let start = self.start();
        self.advance();
        // A minus directly before a number is part of the literal, so that
        // -9223372036854775808 is in range; not when a postfix operator follows, since
        // `-5.x` negates `5.x`.
        let postfix_follows = matches!(
            self.peek_nth(1).kind,
            TokenKind::Dot | TokenKind::LBracket | TokenKind::Colon
        );
        if postfix_follows {
            return self.parse_unary(UnaryOp::Negate, start);
        }
        match *self.peek_kind() {
            TokenKind::Integer(magnitude) => {
                self.advance();
                let span = self.span_from(start);
                let value = self.integer_value(magnitude, true, span)?;
                Ok(literal(Literal::Integer(value), span))
            }
            TokenKind::Float(value) => {
                self.advance();
                Ok(literal(Literal::Float(-value), self.span_from(start)))
            }
            _ => self.parse_unary(UnaryOp::Negate, start),
        }
    }

    fn parse_map_literal(&mut self) -> Result<Expr> {
        let start = self.start();
        let entries = self.parse_map_entries()?;
        Ok(Expr::new(ExprKind::Map(entries), self.span_from(start)))
    }

    fn parse_unary(&mut self, op: UnaryOp, start: u32) -> Result<Expr> {
        let operand = self.parse_expr_bp(prec::POWER)?;
        Ok(Expr::new(
            ExprKind::Unary {
                op,
                operand: Box::new(operand),
            },
            self.span_from(start),
        ))
    }

    /// An integer literal's value; `magnitude` may be 2^63 only when negated.
    pub(crate) fn integer_value(&self, magnitude: u64, negated: bool, span: Span) -> Result<i64> {
        let limit = if negated { 1u64 << 63 } else { i64::MAX as u64 };
        if magnitude > limit {
            return Err(self.error(
                Detail::IntegerOverflow,
                format!("integer, {}, is too large", self.text(span)),
                span,
            ));
        }
        Ok(if negated {
            (magnitude as i64).wrapping_neg()
        } else {
            magnitude as i64
        })
    }

    fn parse_word_prefix(&mut self) -> Result<Expr> {
        let span = self.peek().span;
        let word = self.text(span);
        let next = self.peek_nth(1).kind.clone();
        let is = |keyword: &str| word.eq_ignore_ascii_case(keyword);
        if is("NOT") && self.operand_follows(1) {
            self.parse_not()
        } else if crate::keywords::is_literal(word) && !self.projection_body_follows(1) {
            let value = if is("NULL") {
                Literal::Null
            } else {
                Literal::Boolean(is("TRUE"))
            };
            self.advance();
            Ok(literal(value, span))
        } else if is("CASE")
            && matches!(
                next,
                TokenKind::Plus | TokenKind::Minus | TokenKind::LBracket
            )
        {
            // `case + x` and `case[0]` read a variable unless a whole case expression follows
            // (`CASE -x WHEN ...`): both readings begin alike, so the case one is tried first,
            // once per position (a failure is remembered, so nesting cannot make it costly).
            let key = (self.index, CASE_EXPRESSION);
            if !self.not_a_pattern.contains(&key) {
                if let Some(case) = self.maybe(Parser::parse_case) {
                    return Ok(case);
                }
                self.not_a_pattern.insert(key);
            }
            self.parse_variable_or_projection()
        } else if is("CASE") && (self.peek_nth_keyword(1, "WHEN") || self.operand_follows(1)) {
            self.parse_case()
        } else if next == TokenKind::LBrace
            && (is("COUNT") || is("EXISTS") || is("COLLECT"))
            && !self.projection_body_follows(1)
        {
            let kind = if is("COUNT") {
                SubqueryKind::Count
            } else if is("EXISTS") {
                SubqueryKind::Exists
            } else {
                SubqueryKind::Collect
            };
            self.parse_subquery(kind)
        } else if is("COUNT")
            && next == TokenKind::LParen
            && self.peek_nth(2).kind == TokenKind::Star
            && self.peek_nth(3).kind == TokenKind::RParen
        {
            for _ in 0..4 {
                self.advance();
            }
            Ok(Expr::new(ExprKind::CountStar, self.span_from(span.start)))
        } else if next == TokenKind::LParen
            && self.peek_nth_keyword(3, "IN")
            && quantifier(word).is_some()
        {
            let quantifier = quantifier(word).unwrap_or(Quantifier::All);
            self.parse_quantified(quantifier)
        } else if is("REDUCE")
            && next == TokenKind::LParen
            && self.peek_nth(3).kind == TokenKind::Eq
        {
            self.parse_reduce()
        } else if next == TokenKind::LParen && (is("shortestPath") || is("allShortestPaths")) {
            Err(self.unsupported(
                "shortestPath() and allShortestPaths() outside a MATCH pattern",
                span,
            ))
        } else if self.function_call_ahead() {
            self.parse_function_call()
        } else {
            self.parse_variable_or_projection()
        }
    }

    fn parse_not(&mut self) -> Result<Expr> {
        let start = self.start();
        self.advance();
        let operand = self.parse_expr_bp(prec::AND)?;
        Ok(Expr::new(
            ExprKind::Unary {
                op: UnaryOp::Not,
                operand: Box::new(operand),
            },
            self.span_from(start),
        ))
    }

    /// `name(` or `a.b.name(` ahead.
    fn function_call_ahead(&self) -> bool {
        let mut n = 0;
        loop {
            match self.peek_nth(n).kind {
                TokenKind::Word | TokenKind::QuotedName(_) => {}
                _ => return false,
            }
            match self.peek_nth(n + 1).kind {
                TokenKind::LParen => return true,
                TokenKind::Dot => n += 2,
                _ => return false,
            }
        }
    }

    /// A dotted name: `a.b.c`.
    pub(crate) fn parse_qualified_name(&mut self, what: &str) -> Result<FunctionName> {
        let mut parts = vec![self.parse_name(what)?];
        while self.peek_is(&TokenKind::Dot) {
            self.advance();
            parts.push(self.parse_name(what)?);
        }
        let name = parts.pop().unwrap_or_else(|| Ident::new(""));
        Ok(FunctionName {
            namespace: parts,
            name,
        })
    }

    fn parse_function_call(&mut self) -> Result<Expr> {
        let start = self.start();
        let name = self.parse_qualified_name("a function name")?;
        self.expect(&TokenKind::LParen)?;
        // Where both readings fit, `f(DISTINCT)`, the keyword wins, as in Neo4j's grammar;
        // `f(distinct.x)` and `f(distinct = 1)` read a variable.
        let distinct = self.peek_keyword("DISTINCT")
            && (self.operand_follows(1) || self.peek_nth(1).kind == TokenKind::RParen);
        if distinct {
            self.advance();
        }
        let mut args = self.parse_args_until_rparen()?;
        // `normalize(s, NFKC)` names the normal form with a bare word; it is read as the
        // string `'NFKC'`.
        if name.namespace.is_empty()
            && name.name.name.eq_ignore_ascii_case("normalize")
            && let Some(form) = args.get_mut(1)
            && let ExprKind::Variable(word) = &form.kind
            && ["NFC", "NFD", "NFKC", "NFKD"]
                .iter()
                .any(|f| f.eq_ignore_ascii_case(&word.name))
        {
            let text = word.name.to_ascii_uppercase();
            form.kind = ExprKind::Literal(Literal::String(text));
        }
        // `vector(v, 3, FLOAT32)` names the coordinate type with a bare word the same way.
        if name.namespace.is_empty()
            && name.name.name.eq_ignore_ascii_case("vector")
            && let Some(coordinate_type) = args.get_mut(2)
            && let ExprKind::Variable(word) = &coordinate_type.kind
            && VECTOR_COORDINATE_TYPES
                .iter()
                .any(|t| t.eq_ignore_ascii_case(&word.name))
        {
            let text = word.name.to_ascii_uppercase();
            coordinate_type.kind = ExprKind::Literal(Literal::String(text));
        }
        // `vector_distance(a, b, EUCLIDEAN)` and `vector_norm(v, MANHATTAN)` name the metric
        // with a bare word too.
        let metric_at = if name.namespace.is_empty() {
            if name.name.name.eq_ignore_ascii_case("vector_distance") {
                Some(2)
            } else if name.name.name.eq_ignore_ascii_case("vector_norm") {
                Some(1)
            } else {
                None
            }
        } else {
            None
        };
        if let Some(metric) = metric_at.and_then(|i| args.get_mut(i))
            && let ExprKind::Variable(word) = &metric.kind
            && VECTOR_METRICS
                .iter()
                .any(|m| m.eq_ignore_ascii_case(&word.name))
        {
            let text = word.name.to_ascii_uppercase();
            metric.kind = ExprKind::Literal(Literal::String(text));
        }
        Ok(Expr::new(
            ExprKind::FunctionCall(Box::new(FunctionCall {
                name,
                distinct,
                args,
            })),
            self.span_from(start),
        ))
    }

    /// Comma-separated expressions up to and including `)`.
    pub(crate) fn parse_args_until_rparen(&mut self) -> Result<Vec<Expr>> {
        let saved = std::mem::take(&mut self.bar_ends_filter);
        let args = self.parse_args_inner();
        self.bar_ends_filter = saved;
        args
    }

    fn parse_args_inner(&mut self) -> Result<Vec<Expr>> {
        let mut args = Vec::new();
        if !self.consume(&TokenKind::RParen) {
            loop {
                args.push(self.parse_expr()?);
                if self.consume(&TokenKind::RParen) {
                    break;
                }
                if !self.consume(&TokenKind::Comma) {
                    return Err(self.expected("',' or ')'"));
                }
            }
        }
        Ok(args)
    }

    /// Whether the token `n` ahead may begin an operand, so that a keyword before it that
    /// takes one (`NOT`, `CASE`, `DISTINCT`) is read as that keyword rather than a variable.
    pub(crate) fn operand_follows(&self, n: usize) -> bool {
        let token = self.peek_nth(n);
        match &token.kind {
            // `NOT end.x` reads a property of `end`: no continuation is followed by `.`.
            TokenKind::Word => {
                crate::keywords::starts_operand(self.text(token.span))
                    || self.peek_nth(n + 1).kind == TokenKind::Dot
            }
            TokenKind::Integer(_)
            | TokenKind::Float(_)
            | TokenKind::String(_)
            | TokenKind::Parameter(_)
            | TokenKind::QuotedName(_)
            | TokenKind::LParen
            | TokenKind::LBracket
            | TokenKind::Minus
            | TokenKind::Plus => true,
            // A map literal, not a projection's body (`not {.x}` projects a variable).
            TokenKind::LBrace => {
                self.peek_nth(n + 1).kind == TokenKind::RBrace
                    || self.peek_nth(n + 2).kind == TokenKind::Colon
            }
            _ => false,
        }
    }

    /// Whether the token `n` ahead opens a map projection's body, `{.key`, `{name,` or
    /// `{name}`, which neither a map literal nor a subquery can begin with: it makes the word
    /// before it a variable (`count {.id}`, `null {.id}`).
    fn projection_body_follows(&self, n: usize) -> bool {
        self.peek_nth(n).kind == TokenKind::LBrace
            && match self.peek_nth(n + 1).kind {
                TokenKind::Dot => true,
                TokenKind::Word | TokenKind::QuotedName(_) => matches!(
                    self.peek_nth(n + 2).kind,
                    TokenKind::Comma | TokenKind::RBrace
                ),
                _ => false,
            }
    }

    fn parse_variable_or_projection(&mut self) -> Result<Expr> {
        let variable = self
            .parse_variable()
            .map_err(|_| self.expected("an expression"))?;
        if self.peek_is(&TokenKind::LBrace) {
            return self.parse_map_projection(variable);
        }
        let span = variable.span;
        Ok(Expr::new(ExprKind::Variable(variable), span))
    }

    fn parse_map_projection(&mut self, base: Ident) -> Result<Expr> {
        let start = base.span.start;
        self.expect(&TokenKind::LBrace)?;
        let mut items = Vec::new();
        if !self.consume(&TokenKind::RBrace) {
            loop {
                if self.consume(&TokenKind::Dot) {
                    if self.consume(&TokenKind::Star) {
                        items.push(MapProjectionItem::AllProperties);
                    } else {
                        items.push(MapProjectionItem::Property(
                            self.parse_name("a property key name")?,
                        ));
                    }
                } else if self.peek_nth(1).kind == TokenKind::Colon {
                    let key = self.parse_name("a property key name")?;
                    self.advance();
                    let value = self.parse_expr()?;
                    items.push(MapProjectionItem::Entry { key, value });
                } else {
                    items.push(MapProjectionItem::Variable(self.parse_variable()?));
                }
                if self.consume(&TokenKind::RBrace) {
                    break;
                }
                if !self.consume(&TokenKind::Comma) {
                    return Err(self.expected("',' or '}'"));
                }
            }
        }
        Ok(Expr::new(
            ExprKind::MapProjection(Box::new(MapProjection { base, items })),
            self.span_from(start),
        ))
    }

    /// `{key: value, ...}`, braces included.
    pub(crate) fn parse_map_entries(&mut self) -> Result<Vec<MapEntry>> {
        self.expect(&TokenKind::LBrace)?;
        let mut entries = Vec::new();
        if self.consume(&TokenKind::RBrace) {
            return Ok(entries);
        }
        loop {
            let key = self.parse_name("a property key name")?;
            self.expect(&TokenKind::Colon)?;
            let value = self.parse_expr()?;
            entries.push(MapEntry { key, value });
            if self.consume(&TokenKind::RBrace) {
                return Ok(entries);
            }
            if !self.consume(&TokenKind::Comma) {
                return Err(self.expected("',' or '}'"));
            }
        }
    }

    fn parse_case(&mut self) -> Result<Expr> {
        let start = self.start();
        self.expect_keyword("CASE")?;
        let operand = if self.peek_keyword("WHEN") {
            None
        } else {
            Some(self.parse_expr()?)
        };
        let mut branches = Vec::new();
        while self.parse_keyword("WHEN") {
            let when = self.parse_expr()?;
            self.expect_keyword("THEN")?;
            let then = self.parse_expr()?;
            branches.push(CaseBranch { when, then });
        }
        if branches.is_empty() {
            return Err(self.expected("'WHEN'"));
        }
        let default = self.parse_after_keyword("ELSE", Self::parse_expr)?;
        self.expect_keyword("END")?;
        Ok(Expr::new(
            ExprKind::Case(Box::new(CaseExpr {
                operand,
                branches,
                default,
            })),
            self.span_from(start),
        ))
    }

    /// Reads the keyword at the cursor and the bracket `open` after it; returns where the
    /// keyword starts.
    fn open_after_keyword(&mut self, open: &TokenKind) -> Result<u32> {
        let start = self.start();
        self.advance();
        self.expect(open)?;
        Ok(start)
    }

    fn parse_quantified(&mut self, quantifier: Quantifier) -> Result<Expr> {
        let start = self.open_after_keyword(&TokenKind::LParen)?;
        let variable = self.parse_variable()?;
        self.expect_keyword("IN")?;
        let list = self.parse_expr()?;
        if !self.parse_keyword("WHERE") {
            return Err(self.expected(&format!(
                "'WHERE' ({}() needs a predicate)",
                quantifier.name()
            )));
        }
        let predicate = self.parse_expr()?;
        self.expect(&TokenKind::RParen)?;
        Ok(Expr::new(
            ExprKind::Quantified(Box::new(Quantified {
                quantifier,
                variable,
                list,
                predicate,
            })),
            self.span_from(start),
        ))
    }

    fn parse_reduce(&mut self) -> Result<Expr> {
        let start = self.open_after_keyword(&TokenKind::LParen)?;
        let accumulator = self.parse_variable()?;
        self.expect(&TokenKind::Eq)?;
        let init = self.parse_expr()?;
        self.expect(&TokenKind::Comma)?;
        let variable = self.parse_variable()?;
        self.expect_keyword("IN")?;
        let list = self.parse_expr_before_bar()?;
        self.expect(&TokenKind::Pipe)?;
        let expr = self.parse_expr()?;
        self.expect(&TokenKind::RParen)?;
        Ok(Expr::new(
            ExprKind::Reduce(Box::new(Reduce {
                accumulator,
                init,
                variable,
                list,
                expr,
            })),
            self.span_from(start),
        ))
    }

    /// An expression a top-level `|` ends: a comprehension's list or filter, `reduce`'s and
    /// `FOREACH`'s list.
    pub(crate) fn parse_expr_before_bar(&mut self) -> Result<Expr> {
        self.bar_ends_filter += 1;
        let filter = self.parse_expr();
        self.bar_ends_filter -= 1;
        filter
    }

    /// `(` starts either a pattern predicate `(a)-->(b)` or a parenthesised expression; the
    /// pattern reading is tried first, as Neo4j does.
    fn parse_paren_or_pattern(&mut self) -> Result<Expr> {
        if let Some(pattern) = self.try_pattern_predicate() {
            return Ok(pattern);
        }
        let start = self.start();
        self.expect(&TokenKind::LParen)?;
        let saved = std::mem::take(&mut self.bar_ends_filter);
        let inner = self.parse_expr();
        self.bar_ends_filter = saved;
        let mut inner = inner?;
        self.expect(&TokenKind::RParen)?;
        inner.span = self.span_from(start);
        Ok(inner)
    }

    fn try_pattern_predicate(&mut self) -> Option<Expr> {
        let key = (self.index, PATTERN_PREDICATE);
        if !self.could_start_node_pattern() || self.not_a_pattern.contains(&key) {
            return None;
        }
        let chain = self.maybe(|p| {
            let chain = p.parse_pattern_chain()?;
            if chain.steps.is_empty() {
                return Err(p.expected("a relationship pattern"));
            }
            Ok(chain)
        });
        match chain {
            Some(chain) => {
                let span = chain.span;
                Some(Expr::new(ExprKind::Pattern(Box::new(chain)), span))
            }
            None => {
                self.not_a_pattern.insert(key);
                None
            }
        }
    }

    /// Whether the `(` ahead may open a node pattern (a cheap filter before backtracking).
    fn could_start_node_pattern(&self) -> bool {
        match &self.peek_nth(1).kind {
            TokenKind::RParen
            | TokenKind::Colon
            | TokenKind::LBrace
            | TokenKind::Parameter(_)
            | TokenKind::QuotedName(_) => true,
            TokenKind::Word if self.peek_nth_keyword(1, "WHERE") => true,
            TokenKind::Word => matches!(
                self.peek_nth(2).kind,
                TokenKind::RParen
                    | TokenKind::Colon
                    | TokenKind::LBrace
                    | TokenKind::Parameter(_)
                    | TokenKind::Word
            ),
            _ => false,
        }
    }

    /// `[` starts a list literal, a list comprehension or a pattern comprehension; a `|`
    /// inside belongs to it, not to a comprehension around it.
    fn parse_bracket(&mut self) -> Result<Expr> {
        let saved = std::mem::take(&mut self.bar_ends_filter);
        let result = self.parse_bracket_inner();
        self.bar_ends_filter = saved;
        result
    }

    fn parse_bracket_inner(&mut self) -> Result<Expr> {
        let start = self.start();
        // Any word may name the variable, `[end IN list | end]`, as in Neo4j 5, whose grammar
        // tries the comprehension before the list literal.
        let variable_next = matches!(
            self.peek_nth(1).kind,
            TokenKind::Word | TokenKind::QuotedName(_)
        );
        if variable_next && self.peek_nth_keyword(2, "IN") {
            let key = (self.index, LIST_COMPREHENSION);
            if !self.not_a_pattern.contains(&key) {
                // A comprehension level takes about twice the stack of a plain expression.
                let comprehension = self.maybe(|p| p.nested(|p| p.parse_list_comprehension(start)));
                if let Some(expr) = comprehension {
                    return Ok(expr);
                }
                self.not_a_pattern.insert(key);
            }
        }
        let pattern_next = self.peek_nth(1).kind == TokenKind::LParen
            || (variable_next
                && self.peek_nth(2).kind == TokenKind::Eq
                && self.peek_nth(3).kind == TokenKind::LParen);
        if pattern_next {
            let key = (self.index, PATTERN_COMPREHENSION);
            if !self.not_a_pattern.contains(&key) {
                if let Some(expr) = self.maybe(|p| p.parse_pattern_comprehension(start)) {
                    return Ok(expr);
                }
                self.not_a_pattern.insert(key);
            }
        }
        self.expect(&TokenKind::LBracket)?;
        let mut items = Vec::new();
        if !self.consume(&TokenKind::RBracket) {
            loop {
                items.push(self.parse_expr()?);
                if self.consume(&TokenKind::RBracket) {
                    break;
                }
                if !self.consume(&TokenKind::Comma) {
                    return Err(self.expected("',' or ']'"));
                }
            }
        }
        Ok(Expr::new(ExprKind::List(items), self.span_from(start)))
    }

    fn parse_list_comprehension(&mut self, start: u32) -> Result<Expr> {
        self.expect(&TokenKind::LBracket)?;
        let variable = self.parse_variable()?;
        self.expect_keyword("IN")?;
        let list = self.parse_expr_before_bar()?;
        let filter = self.parse_after_keyword("WHERE", Self::parse_expr_before_bar)?;
        let map = if self.consume(&TokenKind::Pipe) {
            Some(self.parse_expr()?)
        } else {
            None
        };
        self.expect(&TokenKind::RBracket)?;
        Ok(Expr::new(
            ExprKind::ListComprehension(Box::new(ListComprehension {
                variable,
                list,
                filter,
                map,
            })),
            self.span_from(start),
        ))
    }

    fn parse_pattern_comprehension(&mut self, start: u32) -> Result<Expr> {
        self.expect(&TokenKind::LBracket)?;
        let path = if self.peek_is(&TokenKind::LParen) {
            None
        } else {
            let path = self.parse_variable()?;
            self.expect(&TokenKind::Eq)?;
            Some(path)
        };
        let pattern = self.parse_pattern_chain()?;
        if pattern.steps.is_empty() {
            return Err(self.expected("a relationship pattern"));
        }
        let filter = self.parse_after_keyword("WHERE", Self::parse_expr_before_bar)?;
        self.expect(&TokenKind::Pipe)?;
        let map = self.parse_expr()?;
        self.expect(&TokenKind::RBracket)?;
        Ok(Expr::new(
            ExprKind::PatternComprehension(Box::new(PatternComprehension {
                path,
                pattern,
                filter,
                map,
            })),
            self.span_from(start),
        ))
    }

    /// `EXISTS { ... }`, `COUNT { ... }`, `COLLECT { ... }`.
    fn parse_subquery(&mut self, kind: SubqueryKind) -> Result<Expr> {
        let start = self.open_after_keyword(&TokenKind::LBrace)?;
        let saved = std::mem::take(&mut self.bar_ends_filter);
        let body = self.nested(|p| {
            if p.peek_clause_start() {
                Ok(SubqueryBody::Query(p.parse_query()?))
            } else {
                let pattern = p.parse_pattern()?;
                let filter = p.parse_where()?;
                Ok(SubqueryBody::Pattern { pattern, filter })
            }
        });
        self.bar_ends_filter = saved;
        let body = body?;
        self.expect(&TokenKind::RBrace)?;
        Ok(Expr::new(
            ExprKind::Subquery(Box::new(SubqueryExpr { kind, body })),
            self.span_from(start),
        ))
    }
}

fn quantifier(word: &str) -> Option<Quantifier> {
    [
        ("ALL", Quantifier::All),
        ("ANY", Quantifier::Any),
        ("NONE", Quantifier::None),
        ("SINGLE", Quantifier::Single),
    ]
    .into_iter()
    .find(|(name, _)| word.eq_ignore_ascii_case(name))
    .map(|(_, q)| q)
}

/// `lhs:expr`: a [`ExprKind::HasLabels`] for a plain conjunction, else a
/// [`ExprKind::LabelTest`]; the span runs from `lhs` to `end`.
fn label_test(lhs: Expr, expr: crate::ast::LabelExpr, end: u32) -> Expr {
    let span = Span::new(lhs.span.start, end.max(lhs.span.start));
    if expr.has_dynamic()
        && let Some((names, mut all, any)) = expr.dynamic_conjunction()
    {
        // `n:A&$(x)` is the run `n:A:$(x)`: every name required, static ones as strings.
        all.splice(
            0..0,
            names
                .into_iter()
                .map(|n| literal(Literal::String(n.name), n.span)),
        );
        return Expr::new(
            ExprKind::DynamicLabels {
                base: Box::new(lhs),
                all,
                any,
            },
            span,
        );
    }
    let kind = match expr.conjunction() {
        Some(labels) => ExprKind::HasLabels {
            base: Box::new(lhs),
            labels,
        },
        None => ExprKind::LabelTest {
            base: Box::new(lhs),
            expr,
        },
    };
    Expr::new(kind, span)
}

fn literal(value: Literal, span: Span) -> Expr {
    Expr::new(ExprKind::Literal(value), span)
}

/// Whether `lhs` is an operator node of `op`'s precedence level, so that `lhs op rhs` extends
/// it into (or along) a [`ExprKind::Chain`].
fn ends_with_level(lhs: &Expr, op: BinaryOp) -> bool {
    let level = match &lhs.kind {
        ExprKind::Binary { op, .. } => op.precedence(),
        ExprKind::Chain { rest, .. } => match rest.first() {
            Some((op, _)) => op.precedence(),
            None => return false,
        },
        _ => return false,
    };
    level == op.precedence() && !op.is_comparison()
}

/// `lhs op rhs` where `lhs` is a `Binary` or `Chain` of `op`'s level (see
/// [`ends_with_level`]): the chain grows by one link instead of one level.
fn extend(lhs: Expr, op: BinaryOp, rhs: Expr) -> Expr {
    let span = lhs.span.to(rhs.span);
    let kind = match lhs.kind {
        ExprKind::Binary {
            op: first_op,
            left,
            right,
        } => ExprKind::Chain {
            first: left,
            rest: vec![(first_op, *right), (op, rhs)],
        },
        ExprKind::Chain { first, mut rest } => {
            rest.push((op, rhs));
            ExprKind::Chain { first, rest }
        }
        kind => return binary(op, Expr::new(kind, lhs.span), rhs),
    };
    Expr::new(kind, span)
}

fn binary(op: BinaryOp, left: Expr, right: Expr) -> Expr {
    let span = left.span.to(right.span);
    Expr::new(
        ExprKind::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
        },
        span,
    )
}
