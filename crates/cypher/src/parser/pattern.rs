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
        let chain = if selector == PathSelector::Shortest || selector == PathSelector::AllShortest {
            self.advance();
            self.expect(&TokenKind::LParen)?;
            let chain = self.parse_pattern_chain()?;
            self.expect(&TokenKind::RParen)?;
            chain
        } else {
            self.parse_pattern_chain()?
        };
        Ok(PatternPart {
            path,
            selector,
            mode,
            chain,
            span: self.span_from(start),
        })
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

    /// Whether a parenthesised path pattern starts here: `((`.
    fn peek_group(&self) -> bool {
        self.peek_is(&TokenKind::LParen) && self.peek_nth(1).kind == TokenKind::LParen
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
        let predicate = if self.parse_keyword("WHERE") {
            Some(self.parse_expr()?)
        } else {
            None
        };
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

    fn parse_node_pattern(&mut self) -> Result<NodePattern> {
        let start = self.start();
        if !self.peek_is(&TokenKind::LParen) {
            return Err(self.expected("'(' to start a node pattern"));
        }
        self.advance();
        let variable = if self.peek_variable() {
            Some(self.parse_variable()?)
        } else {
            None
        };
        let (dynamic_labels, dynamic_any) =
            if self.peek_is(&TokenKind::Colon) && self.peek_dynamic_label(1).is_some() {
                self.parse_dynamic_node_labels()?
            } else {
                (Vec::new(), Vec::new())
            };
        let (labels, label_expr) = if dynamic_labels.is_empty() && dynamic_any.is_empty() {
            self.parse_node_labels()?
        } else {
            (Vec::new(), None)
        };
        let properties = self.parse_pattern_properties()?;
        let predicate = if self.parse_keyword("WHERE") {
            Some(self.parse_expr()?)
        } else {
            None
        };
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
    fn peek_dynamic_label(&self, n: usize) -> Option<bool> {
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

    /// `:$(expr):$any(expr):Name...`: every label as an expression (the static ones as string
    /// literals), those the node must all have, then those of which it needs one.
    fn parse_dynamic_node_labels(&mut self) -> Result<(Vec<Expr>, Vec<Expr>)> {
        let mut labels = Vec::new();
        let mut any = Vec::new();
        while self.consume(&TokenKind::Colon) {
            match self.peek_dynamic_label(0) {
                Some(is_any) => {
                    if !self.consume(&TokenKind::DollarLParen) {
                        self.advance();
                        self.expect(&TokenKind::LParen)?;
                    }
                    let expr = self.parse_expr()?;
                    self.expect(&TokenKind::RParen)?;
                    if is_any {
                        any.push(expr);
                    } else {
                        labels.push(expr);
                    }
                }
                None => {
                    let name = self.parse_name("a label name")?;
                    labels.push(Expr::new(
                        ExprKind::Literal(Literal::String(name.name)),
                        name.span,
                    ));
                }
            }
        }
        Ok((labels, any))
    }

    /// `:A:B` or `:A&B` (both mean all of them) as plain labels; any other label expression
    /// (`:A|B`, `:!A`, `:%`, also after `IS`) as the second element.
    fn parse_node_labels(&mut self) -> Result<(Vec<Ident>, Option<LabelExpr>)> {
        let is_form = self.peek_keyword("IS") && !self.peek_nth_keyword(1, "NULL");
        if !is_form && !self.consume(&TokenKind::Colon) {
            return Ok((Vec::new(), None));
        }
        if is_form {
            self.advance();
        }
        let expr = self.parse_label_expr(false)?;
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
        let mut relationship = RelationshipPattern {
            variable: None,
            direction: Direction::Both,
            types: Vec::new(),
            type_expr: None,
            length: None,
            quantifier: None,
            properties: None,
            predicate: None,
            span: self.span_from(start),
        };
        if self.consume(&TokenKind::LBracket) {
            if self.peek_variable() {
                relationship.variable = Some(self.parse_variable()?);
            }
            let is_form = self.peek_keyword("IS");
            if is_form || self.consume(&TokenKind::Colon) {
                if is_form {
                    self.advance();
                }
                let expr = self.parse_label_expr(true)?;
                match expr.disjunction() {
                    Some(types) => relationship.types = types,
                    None => relationship.type_expr = Some(expr),
                }
            }
            if self.consume(&TokenKind::Star) {
                relationship.length = Some(self.parse_length_range());
            }
            relationship.properties = self.parse_pattern_properties()?;
            if self.parse_keyword("WHERE") {
                relationship.predicate = Some(self.parse_expr()?);
            }
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
