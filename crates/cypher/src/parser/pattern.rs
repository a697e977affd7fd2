//! Patterns: parts, chains, node and relationship patterns.

use super::{Parser, Result};
use crate::ast::{
    Direction, Expr, ExprKind, Ident, LabelExpr, LengthRange, Literal, NodePattern, PathMode,
    PathQuantifier, PathSelector, PatternChain, PatternPart, PatternStep, QuantifiedGroup,
    RelationshipPattern,
};
use crate::token::TokenKind;

impl Parser<'_> {
    /// Comma-separated pattern parts.
    pub(crate) fn parse_pattern(&mut self) -> Result<Vec<PatternPart>> {
        let mut parts = vec![self.parse_pattern_part()?];
        while self.consume(&TokenKind::Comma) {
            parts.push(self.parse_pattern_part()?);
        }
        Ok(parts)
    }

    /// `[p =] [shortestPath(] chain [)]`
    pub(crate) fn parse_pattern_part(&mut self) -> Result<PatternPart> {
        let start = self.start();
        let path = if self.peek_variable() && self.peek_nth(1).kind == TokenKind::Eq {
            let path = self.parse_variable()?;
            self.advance();
            Some(path)
        } else {
            None
        };
        let selector =
            if self.peek_nth(1).kind == TokenKind::LParen && self.peek_keyword("shortestPath") {
                PathSelector::Shortest
            } else if self.peek_nth(1).kind == TokenKind::LParen
                && self.peek_keyword("allShortestPaths")
            {
                PathSelector::AllShortest
            } else {
                self.parse_gql_selector()?
            };
        let mode = if selector == PathSelector::Shortest || selector == PathSelector::AllShortest {
            None
        } else {
            self.parse_path_mode()?
        };
        let mut predicate = None;
        let mut path = path;
        let chain = if selector == PathSelector::Shortest || selector == PathSelector::AllShortest {
            self.advance();
            self.expect(&TokenKind::LParen)?;
            let chain = self.parse_pattern_chain()?;
            self.expect(&TokenKind::RParen)?;
            chain
        } else if self.peek_parenthesised_path() {
            let (inner_path, chain, where_) = self.parse_parenthesised_path()?;
            if let Some(inner) = inner_path {
                if path.is_some() {
                    return Err(self.unsupported(
                        "A path variable both outside and inside a parenthesised path pattern",
                        inner.span,
                    ));
                }
                path = Some(inner);
            }
            predicate = Some(where_.unwrap_or_else(|| {
                Expr::new(ExprKind::Literal(Literal::Boolean(true)), chain.span)
            }));
            chain
        } else {
            self.parse_pattern_chain()?
        };
        Ok(PatternPart {
            path,
            selector,
            mode,
            chain,
            predicate,
            span: self.span_from(start),
        })
    }

    /// Whether a part is one parenthesised path pattern without a quantifier:
    /// `((a)-->(b) WHERE ...)` or `(p = (a)-->+(b) WHERE ...)`, not `((a)-->(b)){2}`.
    fn peek_parenthesised_path(&self) -> bool {
        if !self.peek_is(&TokenKind::LParen) {
            return false;
        }
        let named = self.peek_nth(2).kind == TokenKind::Eq
            && matches!(
                self.peek_nth(1).kind,
                TokenKind::Word | TokenKind::QuotedName(_)
            );
        if !named && self.peek_nth(1).kind != TokenKind::LParen {
            return false;
        }
        // Find the closing parenthesis, then look for a quantifier after it.
        let mut depth = 0usize;
        let mut n = 0;
        loop {
            match self.peek_nth(n).kind {
                TokenKind::LParen | TokenKind::DollarLParen => depth += 1,
                TokenKind::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                TokenKind::Eof => return false,
                _ => {}
            }
            n += 1;
        }
        let after = &self.peek_nth(n + 1).kind;
        let quantified = match after {
            TokenKind::Plus | TokenKind::Star => true,
            TokenKind::LBrace => matches!(
                self.peek_nth(n + 2).kind,
                TokenKind::Integer(_) | TokenKind::Comma
            ),
            _ => false,
        };
        !quantified
    }

    /// `( [p =] chain [WHERE predicate] )`, the whole of a pattern part.
    fn parse_parenthesised_path(&mut self) -> Result<(Option<Ident>, PatternChain, Option<Expr>)> {
        self.expect(&TokenKind::LParen)?;
        let path = if self.peek_nth(1).kind == TokenKind::Eq {
            let path = self.parse_variable()?;
            self.advance();
            Some(path)
        } else {
            None
        };
        let chain = self.parse_pattern_chain()?;
        let predicate = self.parse_where()?;
        self.expect(&TokenKind::RParen)?;
        if matches!(
            self.peek_kind(),
            TokenKind::LParen | TokenKind::Minus | TokenKind::Lt
        ) {
            return Err(self.unsupported(
                "A parenthesised path pattern without a quantifier beside other elements of \
                 its path (write it as the whole of a pattern part)",
                self.peek().span,
            ));
        }
        Ok((path, chain, predicate))
    }

    /// `ANY [k]`, `ANY SHORTEST`, `ALL SHORTEST`, `ALL`, `SHORTEST k [GROUPS]`, each with an
    /// optional `PATH`/`PATHS` (read after the path mode); `All` when none is written.
    fn parse_gql_selector(&mut self) -> Result<PathSelector> {
        let selector = if self.parse_keyword("ANY") {
            if self.parse_keyword("SHORTEST") {
                PathSelector::ShortestK(1)
            } else {
                PathSelector::Any(self.parse_selector_count()?.unwrap_or(1))
            }
        } else if self.parse_keyword("ALL") {
            if self.parse_keyword("SHORTEST") {
                PathSelector::AllShortestGql
            } else {
                PathSelector::All
            }
        } else if self.parse_keyword("SHORTEST") {
            let Some(k) = self.parse_selector_count()? else {
                return Err(self.expected("the number of paths after SHORTEST"));
            };
            if self.parse_keyword("GROUPS") || self.parse_keyword("GROUP") {
                PathSelector::ShortestGroups(k)
            } else {
                PathSelector::ShortestK(k)
            }
        } else {
            return Ok(PathSelector::All);
        };
        Ok(selector)
    }

    fn parse_selector_count(&mut self) -> Result<Option<u64>> {
        match *self.peek_kind() {
            TokenKind::Integer(k) => {
                self.advance();
                Ok(Some(k))
            }
            TokenKind::Parameter(_) => Err(self.unsupported(
                "A parameter as the number of paths of a path selector",
                self.peek().span,
            )),
            _ => Ok(None),
        }
    }

    /// `WALK`, `TRAIL`, `ACYCLIC` (`SIMPLE` is named and refused), then `PATH`/`PATHS`.
    fn parse_path_mode(&mut self) -> Result<Option<PathMode>> {
        let mode = if self.parse_keyword("WALK") {
            Some(PathMode::Walk)
        } else if self.parse_keyword("TRAIL") {
            Some(PathMode::Trail)
        } else if self.parse_keyword("ACYCLIC") {
            Some(PathMode::Acyclic)
        } else if self.peek_keyword("SIMPLE") && self.peek_nth(1).kind != TokenKind::Eq {
            return Err(self.unsupported("The SIMPLE path mode", self.peek().span));
        } else {
            None
        };
        if !self.parse_keyword("PATHS") {
            self.parse_keyword("PATH");
        }
        Ok(mode)
    }

    /// `(a)-[r]->(b)<--(c)...`
    pub(crate) fn parse_pattern_chain(&mut self) -> Result<PatternChain> {
        // Node and relationship patterns are bracketed: a `|` inside them is theirs.
        let saved = std::mem::take(&mut self.bar_ends_filter);
        let chain = self.parse_pattern_chain_inner();
        self.bar_ends_filter = saved;
        chain
    }

    fn parse_pattern_chain_inner(&mut self) -> Result<PatternChain> {
        self.nested_cost(super::cost::PATTERN, |p| {
            let start = p.start();
            let first = if p.peek_group() {
                NodePattern::anonymous(p.peek().span)
            } else {
                p.parse_node_pattern()?
            };
            let mut steps = Vec::new();
            loop {
                if p.peek_group() {
                    let group = p.parse_quantified_group()?;
                    let node = if p.peek_is(&TokenKind::LParen) && !p.peek_group() {
                        p.parse_node_pattern()?
                    } else if p.peek_is(&TokenKind::Minus) || p.peek_is(&TokenKind::Lt) {
                        return Err(p.expected(
                            "a node pattern after a quantified path pattern, before a relationship",
                        ));
                    } else {
                        NodePattern::anonymous(p.peek().span)
                    };
                    steps.push(PatternStep {
                        relationship: RelationshipPattern::empty(group.span),
                        group: Some(Box::new(group)),
                        node,
                    });
                } else if let Some(relationship) = p.parse_relationship_pattern()? {
                    if p.peek_group() {
                        // Neo4j's grammar puts a node pattern after every relationship; a
                        // parenthesised path pattern starts with its own, which is not one.
                        return Err(p.expected(
                            "a node pattern after a relationship, before a parenthesised path \
                             pattern",
                        ));
                    }
                    let node = p.parse_node_pattern()?;
                    steps.push(PatternStep {
                        relationship,
                        group: None,
                        node,
                    });
                } else {
                    break;
                }
            }
            Ok(PatternChain {
                start: first,
                steps,
                span: p.span_from(start),
            })
        })
    }

    /// Whether a parenthesised path pattern starts here: `((`, or `(p =` (a path variable
    /// inside, which [`Parser::parse_quantified_group`] names and refuses).
    fn peek_group(&self) -> bool {
        self.peek_is(&TokenKind::LParen)
            && (self.peek_nth(1).kind == TokenKind::LParen
                || (self.peek_nth(2).kind == TokenKind::Eq
                    && matches!(
                        self.peek_nth(1).kind,
                        TokenKind::Word | TokenKind::QuotedName(_)
                    )))
    }

    /// `((a)-[r]->(b) WHERE ...){m,n}`
    fn parse_quantified_group(&mut self) -> Result<QuantifiedGroup> {
        let start = self.start();
        self.expect(&TokenKind::LParen)?;
        if self.peek_variable() && self.peek_nth(1).kind == TokenKind::Eq {
            return Err(self.unsupported(
                "A path variable inside a parenthesised path pattern",
                self.peek().span,
            ));
        }
        let chain = self.parse_pattern_chain()?;
        let predicate = self.parse_where()?;
        self.expect(&TokenKind::RParen)?;
        let Some(quantifier) = self.parse_quantifier()? else {
            return Err(self.unsupported(
                "A parenthesised path pattern without a quantifier",
                self.span_from(start),
            ));
        };
        Ok(QuantifiedGroup {
            chain,
            predicate,
            quantifier,
            span: self.span_from(start),
        })
    }

    /// `{m,n}`, `{m,}`, `{,n}`, `{n}`, `+` or `*`, if one is next.
    fn parse_quantifier(&mut self) -> Result<Option<PathQuantifier>> {
        match self.peek_kind() {
            TokenKind::Plus => {
                self.advance();
                Ok(Some(PathQuantifier { min: 1, max: None }))
            }
            TokenKind::Star => {
                self.advance();
                Ok(Some(PathQuantifier { min: 0, max: None }))
            }
            TokenKind::LBrace
                if matches!(
                    self.peek_nth(1).kind,
                    TokenKind::Integer(_) | TokenKind::Comma
                ) =>
            {
                self.advance();
                let min = self.parse_length_bound();
                let quantifier = if self.consume(&TokenKind::Comma) {
                    PathQuantifier {
                        min: min.unwrap_or(0),
                        max: self.parse_length_bound(),
                    }
                } else {
                    let Some(n) = min else {
                        return Err(self.expected("a number in the quantifier"));
                    };
                    PathQuantifier {
                        min: n,
                        max: Some(n),
                    }
                };
                self.expect(&TokenKind::RBrace)?;
                Ok(Some(quantifier))
            }
            _ => Ok(None),
        }
    }

    /// Whether a node's or relationship's variable is next, just inside its bracket. Any word
    /// may be one (`(end:B)`, `[type]`), except that `WHERE` and `IS` are the keywords when
    /// a predicate or label can follow them: `(where)`, `(where:A)` and `(is {id: 1})` name
    /// variables, `(WHERE n.x > 1)`, `(WHERE $p)` and `(IS A)` do not.
    fn peek_element_variable(&self) -> bool {
        if !self.peek_variable() {
            return false;
        }
        let where_ = self.peek_keyword("WHERE");
        if !where_ && !self.peek_keyword("IS") {
            return true;
        }
        match self.peek_nth(1).kind {
            TokenKind::RParen | TokenKind::RBracket | TokenKind::Colon | TokenKind::Star => true,
            // A map or parameter is a predicate after `WHERE`, properties after a variable.
            TokenKind::LBrace | TokenKind::Parameter(_) => !where_,
            _ => self.peek_nth_keyword(1, "WHERE") || self.peek_nth_keyword(1, "IS"),
        }
    }

    fn parse_node_pattern(&mut self) -> Result<NodePattern> {
        let start = self.start();
        if !self.peek_is(&TokenKind::LParen) {
            return Err(self.expected("'(' to start a node pattern"));
        }
        self.advance();
        let variable = if self.peek_element_variable() {
            Some(self.parse_variable()?)
        } else {
            None
        };
        let (labels, label_expr, dynamic_labels, dynamic_any) = if self.peek_dynamic_labels() {
            let (labels, dynamic, any) = self.parse_dynamic_labels()?;
            (labels, None, dynamic, any)
        } else {
            let (labels, label_expr) = self.parse_node_labels()?;
            // `(n:A&$(x))` is the run `(n:A:$(x))`.
            match label_expr
                .as_ref()
                .filter(|e| e.has_dynamic())
                .and_then(LabelExpr::dynamic_conjunction)
            {
                Some((names, all, any)) => (names, None, all, any),
                None => (labels, label_expr, Vec::new(), Vec::new()),
            }
        };
        let properties = self.parse_pattern_properties()?;
        let predicate = self.parse_where()?;
        self.expect(&TokenKind::RParen)?;
        Ok(NodePattern {
            variable,
            labels,
            label_expr,
            dynamic_labels,
            dynamic_any,
            properties,
            predicate,
            span: self.span_from(start),
        })
    }

    /// Whether a dynamic label starts `n` tokens ahead: `$(` or `$all(` (`Some(false)`),
    /// `$any(` (`Some(true)`).
    pub(crate) fn peek_dynamic_label(&self, n: usize) -> Option<bool> {
        match &self.peek_nth(n).kind {
            TokenKind::DollarLParen => Some(false),
            TokenKind::Parameter(name) if self.peek_nth(n + 1).kind == TokenKind::LParen => {
                if name.eq_ignore_ascii_case("all") {
                    Some(false)
                } else if name.eq_ignore_ascii_case("any") {
                    Some(true)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// Whether a `:`-separated run of names holds a dynamic one: `:$(x)`, `:A:$all(x)`,
    /// `:A:B:$any(x)`. Such a run is read by [`Parser::parse_dynamic_labels`]; any other
    /// label expression by the label expression parser.
    ///
    /// A run that an operator continues (`:$(x)|Person`, `:$(a)&$(b)`) is a label expression
    /// with run-time names in it, read by the label expression parser.
    pub(crate) fn peek_dynamic_labels(&self) -> bool {
        let mut i = 0;
        let mut dynamic = false;
        while self.peek_nth(i).kind == TokenKind::Colon {
            if self.peek_dynamic_label(i + 1).is_some() {
                dynamic = true;
                i += 1 + self.dynamic_label_len(i + 1);
                continue;
            }
            match self.peek_nth(i + 1).kind {
                TokenKind::Word | TokenKind::QuotedName(_) => i += 2,
                _ => return false,
            }
        }
        let operator = match self.peek_nth(i).kind {
            TokenKind::Ampersand => true,
            TokenKind::Pipe => self.bar_ends_filter == 0,
            _ => false,
        };
        dynamic && !operator
    }

    /// The tokens of the dynamic label starting `n` tokens ahead, through its closing
    /// parenthesis (nested parentheses counted); to the end of input when it is not closed.
    fn dynamic_label_len(&self, n: usize) -> usize {
        let mut i = n;
        let mut depth = 0usize;
        loop {
            match self.peek_nth(i).kind {
                TokenKind::DollarLParen | TokenKind::LParen => depth += 1,
                TokenKind::RParen => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return i + 1 - n;
                    }
                }
                TokenKind::Eof => return i - n,
                _ => {}
            }
            i += 1;
        }
    }

    /// `:A:$(expr):$any(expr):B...`: the static names, the expressions whose names are all
    /// required, and those of which one is needed.
    pub(crate) fn parse_dynamic_labels(&mut self) -> Result<(Vec<Ident>, Vec<Expr>, Vec<Expr>)> {
        let mut names = Vec::new();
        let mut labels = Vec::new();
        let mut any = Vec::new();
        while self.consume(&TokenKind::Colon) {
            match self.peek_dynamic_label(0) {
                Some(_) => {
                    let (expr, is_any) = self.parse_one_dynamic_label()?;
                    if is_any {
                        any.push(expr);
                    } else {
                        labels.push(expr);
                    }
                }
                None => names.push(self.parse_name("a label name")?),
            }
        }
        Ok((names, labels, any))
    }

    /// `$(expr)`, `$all(expr)` or `$any(expr)` (then `true`), where
    /// [`Parser::peek_dynamic_label`] found one.
    pub(crate) fn parse_one_dynamic_label(&mut self) -> Result<(Expr, bool)> {
        let is_any = self.peek_dynamic_label(0) == Some(true);
        if !self.consume(&TokenKind::DollarLParen) {
            self.advance();
            self.expect(&TokenKind::LParen)?;
        }
        let saved = std::mem::take(&mut self.bar_ends_filter);
        let expr = self.parse_expr();
        self.bar_ends_filter = saved;
        let expr = expr?;
        self.expect(&TokenKind::RParen)?;
        Ok((expr, is_any))
    }

    /// `:A:B` or `:A&B` (both mean all of them) as plain labels; any other label expression
    /// (`:A|B`, `:!A`, `:%`, also after `IS`) as the second element.
    fn parse_node_labels(&mut self) -> Result<(Vec<Ident>, Option<LabelExpr>)> {
        let is_form = self.peek_keyword("IS");
        if !is_form && !self.consume(&TokenKind::Colon) {
            return Ok((Vec::new(), None));
        }
        if is_form {
            self.advance();
        }
        let expr = self.parse_label_expr(false, is_form)?;
        Ok(match expr.conjunction() {
            Some(labels) => (labels, None),
            None => (Vec::new(), Some(expr)),
        })
    }

    /// `{map}` or `$param` after a node or relationship's labels.
    fn parse_pattern_properties(&mut self) -> Result<Option<Expr>> {
        let start = self.start();
        match self.peek_kind().clone() {
            TokenKind::LBrace => {
                let entries = self.nested(Parser::parse_map_entries)?;
                Ok(Some(Expr::new(
                    ExprKind::Map(entries),
                    self.span_from(start),
                )))
            }
            TokenKind::Parameter(name) => {
                let span = self.advance();
                Ok(Some(Expr::new(ExprKind::Parameter(name), span)))
            }
            _ => Ok(None),
        }
    }

    /// A relationship pattern, or `None` when the chain ends here.
    fn parse_relationship_pattern(&mut self) -> Result<Option<RelationshipPattern>> {
        let start = self.start();
        let left = match self.peek_kind() {
            TokenKind::Lt if self.peek_nth(1).kind == TokenKind::Minus => {
                self.advance();
                true
            }
            TokenKind::Minus => false,
            _ => return Ok(None),
        };
        self.expect(&TokenKind::Minus)?;
        let mut relationship = RelationshipPattern::empty(self.span_from(start));
        if self.consume(&TokenKind::LBracket) {
            if self.peek_element_variable() {
                relationship.variable = Some(self.parse_variable()?);
            }
            let is_form = self.peek_keyword("IS");
            if !is_form && self.peek_dynamic_labels() {
                let (names, dynamic, any) = self.parse_dynamic_labels()?;
                relationship.dynamic_types = names
                    .into_iter()
                    .map(|n| Expr::new(ExprKind::Literal(Literal::String(n.name)), n.span))
                    .chain(dynamic)
                    .collect();
                relationship.dynamic_any = any;
            } else if is_form || self.consume(&TokenKind::Colon) {
                if is_form {
                    self.advance();
                }
                let expr = self.parse_label_expr(true, is_form)?;
                match expr.disjunction() {
                    Some(types) => relationship.types = types,
                    None => relationship.type_expr = Some(expr),
                }
            }
            if self.consume(&TokenKind::Star) {
                relationship.length = Some(self.parse_length_range());
            }
            relationship.properties = self.parse_pattern_properties()?;
            relationship.predicate = self.parse_where()?;
            self.expect(&TokenKind::RBracket)?;
        }
        self.expect(&TokenKind::Minus)?;
        let right = self.consume(&TokenKind::Gt);
        relationship.direction = match (left, right) {
            (true, false) => Direction::Incoming,
            (false, true) => Direction::Outgoing,
            _ => Direction::Both,
        };
        relationship.quantifier = self.parse_quantifier()?;
        relationship.span = self.span_from(start);
        Ok(Some(relationship))
    }

    /// After `*`: `[min][..[max]]`.
    fn parse_length_range(&mut self) -> LengthRange {
        let min = self.parse_length_bound();
        if self.consume(&TokenKind::DotDot) {
            let max = self.parse_length_bound();
            LengthRange { min, max }
        } else {
            LengthRange { min, max: min }
        }
    }

    fn parse_length_bound(&mut self) -> Option<u64> {
        if let TokenKind::Integer(value) = *self.peek_kind() {
            self.advance();
            Some(value)
        } else {
            None
        }
    }
}
