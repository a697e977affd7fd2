//! Label expressions (`A|B`, `A&!B`, `%`, `(...)`) and the types of type predicates
//! (`INTEGER NOT NULL`, `LIST<STRING>`, `INTEGER | FLOAT`).
//!
//! Both use `|`, which also ends the filter of a list or pattern comprehension
//! (`[x IN l WHERE x:A | x.name]`). While such a filter is read (`Parser::bar_ends_filter`), a
//! `|` at the top level of a label expression or type is left for the comprehension, as in
//! Neo4j; inside parentheses (`x:(A|B)`) or angle brackets (`ANY<INTEGER | FLOAT>`) it is
//! always the operator.

use super::{Parser, Result};
use crate::ast::{CypherType, Ident, LabelExpr, TypeKind, vector_coordinate_name};
use crate::error::Detail;
use crate::keywords;
use crate::token::TokenKind;

impl Parser<'_> {
    /// After `:` or `IS`: a label expression. `legacy_bar_colon` accepts relationship types'
    /// old `[:A|:B]` spelling; `after_is` refuses the names that begin predicates after `IS`.
    pub(crate) fn parse_label_expr(
        &mut self,
        legacy_bar_colon: bool,
        after_is: bool,
    ) -> Result<LabelExpr> {
        let saved = std::mem::replace(&mut self.labels_after_is, after_is);
        let expr = self.nested(|p| p.parse_label_or(legacy_bar_colon));
        self.labels_after_is = saved;
        expr
    }

    /// A label or type name; after `IS`, not one of the words that make `IS` a predicate
    /// there (`n IS NOT NULL`, `n IS TYPED INTEGER`), which must be quoted, as in Neo4j 5.
    pub(crate) fn parse_label_name(&mut self) -> Result<Ident> {
        let token = self.peek();
        if self.labels_after_is
            && token.kind == TokenKind::Word
            && keywords::is_refused_after_is(self.text(token.span))
        {
            let word = self.text(token.span);
            return Err(self.error(
                Detail::UnexpectedSyntax,
                format!(
                    "Invalid input '{word}': '{word}' cannot be a label or type name after 'IS' \
                     unless quoted with backticks (`{word}`)"
                ),
                token.span,
            ));
        }
        self.parse_name("a label name")
    }

    fn parse_label_or(&mut self, legacy_bar_colon: bool) -> Result<LabelExpr> {
        let first = self.parse_label_and(legacy_bar_colon)?;
        let mut items = vec![first];
        while self.peek_is(&TokenKind::Pipe) && self.bar_ends_filter == 0 {
            self.advance();
            if legacy_bar_colon {
                self.consume(&TokenKind::Colon);
            }
            items.push(self.parse_label_and(legacy_bar_colon)?);
        }
        Ok(joined(items, LabelExpr::Or))
    }

    fn parse_label_and(&mut self, legacy_bar_colon: bool) -> Result<LabelExpr> {
        let mut items = vec![self.parse_label_not(legacy_bar_colon)?];
        // `:A:B` is the conjunction's older spelling.
        while self.consume(&TokenKind::Ampersand) || self.consume(&TokenKind::Colon) {
            items.push(self.parse_label_not(legacy_bar_colon)?);
        }
        Ok(joined(items, LabelExpr::And))
    }

    fn parse_label_not(&mut self, legacy_bar_colon: bool) -> Result<LabelExpr> {
        match self.peek_kind() {
            TokenKind::Bang => {
                self.advance();
                let inner = self.nested(|p| p.parse_label_not(legacy_bar_colon))?;
                Ok(LabelExpr::Not(Box::new(inner)))
            }
            TokenKind::Percent => {
                self.advance();
                Ok(LabelExpr::Any)
            }
            TokenKind::LParen => {
                self.advance();
                let saved = std::mem::take(&mut self.bar_ends_filter);
                let inner = self.nested(|p| p.parse_label_or(legacy_bar_colon));
                self.bar_ends_filter = saved;
                let inner = inner?;
                self.expect(&TokenKind::RParen)?;
                Ok(inner)
            }
            _ if self.peek_dynamic_label(0).is_some() => {
                let (expr, any) = self.parse_one_dynamic_label()?;
                Ok(LabelExpr::Dynamic {
                    expr: Box::new(expr),
                    any,
                })
            }
            _ => Ok(LabelExpr::Name(self.parse_label_name()?)),
        }
    }

    /// Whether what follows `IS` reads as a label expression (`n IS Person`), not as
    /// `IS [NOT] NULL`, a type predicate or `IS NORMALIZED`.
    pub(crate) fn peek_is_label_expr(&self) -> bool {
        match self.peek_kind() {
            TokenKind::Bang | TokenKind::Percent | TokenKind::LParen => true,
            _ if self.peek_dynamic_label(0).is_some() => true,
            TokenKind::QuotedName(_) => true,
            TokenKind::Word => ![
                "NULL",
                "NOT",
                "TYPED",
                "NORMALIZED",
                "NFC",
                "NFD",
                "NFKC",
                "NFKD",
            ]
            .iter()
            .any(|k| self.peek_keyword(k)),
            _ => false,
        }
    }

    /// A type: members of a closed dynamic union separated by `|`.
    pub(crate) fn parse_cypher_type(&mut self) -> Result<CypherType> {
        self.nested(|p| {
            let first = p.parse_cypher_type_member()?;
            let mut members = vec![first];
            while p.peek_is(&TokenKind::Pipe) && p.bar_ends_filter == 0 {
                p.advance();
                members.push(p.parse_cypher_type_member()?);
            }
            Ok(CypherType::union(members))
        })
    }

    /// One type with its `NOT NULL` and any postfix `LIST`/`ARRAY`.
    fn parse_cypher_type_member(&mut self) -> Result<CypherType> {
        let mut ty = self.parse_cypher_type_base()?;
        loop {
            if self.parse_keywords(&["NOT", "NULL"]) {
                ty = ty.not_null(true);
            } else if self.parse_keyword("LIST") || self.parse_keyword("ARRAY") {
                ty = CypherType::nullable(TypeKind::List(Box::new(ty)));
            } else {
                return Ok(ty);
            }
        }
    }

    fn parse_cypher_type_base(&mut self) -> Result<CypherType> {
        let kind = if self.parse_keyword("ANY") {
            if self.consume(&TokenKind::Lt) {
                return self.parse_type_in_brackets();
            }
            if let Some(kind) = self.parse_structural_type() {
                kind
            } else {
                self.parse_keyword("VALUE");
                TypeKind::Any
            }
        } else if self.parse_keyword("NOTHING") {
            TypeKind::Nothing
        } else if self.parse_keyword("NULL") {
            TypeKind::Null
        } else if self.parse_keyword("BOOLEAN") || self.parse_keyword("BOOL") {
            TypeKind::Boolean
        } else if self.parse_keyword("STRING") || self.parse_keyword("VARCHAR") {
            TypeKind::String
        } else if self.parse_keyword("INTEGER")
            || self.parse_keyword("INT")
            || self.parse_keyword("INTEGER64")
            || self.parse_keyword("INT64")
            || self.parse_keywords(&["SIGNED", "INTEGER"])
        {
            TypeKind::Integer
        } else if self.parse_keyword("FLOAT") || self.parse_keyword("FLOAT64") {
            TypeKind::Float
        } else if self.parse_keyword("DATE") {
            TypeKind::Date
        } else if self.parse_keywords(&["LOCAL", "TIME"]) {
            TypeKind::LocalTime
        } else if self.parse_keywords(&["ZONED", "TIME"]) {
            TypeKind::ZonedTime
        } else if self.parse_keywords(&["LOCAL", "DATETIME"]) {
            TypeKind::LocalDateTime
        } else if self.parse_keywords(&["ZONED", "DATETIME"]) {
            TypeKind::ZonedDateTime
        } else if self.peek_keyword("TIME") || self.peek_keyword("TIMESTAMP") {
            let time = self.peek_keyword("TIME");
            self.advance();
            let zoned = if self.parse_keywords(&["WITH", "TIME", "ZONE"]) {
                true
            } else if self.parse_keywords(&["WITHOUT", "TIME", "ZONE"]) {
                false
            } else {
                return Err(self.expected("'WITH TIME ZONE' or 'WITHOUT TIME ZONE'"));
            };
            match (time, zoned) {
                (true, true) => TypeKind::ZonedTime,
                (true, false) => TypeKind::LocalTime,
                (false, true) => TypeKind::ZonedDateTime,
                (false, false) => TypeKind::LocalDateTime,
            }
        } else if self.parse_keyword("DURATION") {
            TypeKind::Duration
        } else if self.parse_keyword("POINT") {
            TypeKind::Point
        } else if self.parse_keyword("UUID") {
            TypeKind::Uuid
        } else if let Some(kind) = self.parse_structural_type() {
            kind
        } else if self.parse_keyword("VECTOR") {
            self.parse_vector_type()?
        } else if self.parse_keyword("LIST") || self.parse_keyword("ARRAY") {
            self.expect(&TokenKind::Lt)?;
            let inner = self.parse_type_in_brackets()?;
            TypeKind::List(Box::new(inner))
        } else {
            return Err(self.expected("a type (INTEGER, STRING, LIST<...>, ...)"));
        };
        Ok(CypherType::nullable(kind))
    }

    /// `NODE`, `RELATIONSHIP`, `MAP`, `PATH` or `PROPERTY VALUE` (and their synonyms), alone or
    /// after `ANY`; `None`, reading nothing, for any other word.
    fn parse_structural_type(&mut self) -> Option<TypeKind> {
        if self.parse_keyword("NODE") || self.parse_keyword("VERTEX") {
            Some(TypeKind::Node)
        } else if self.parse_keyword("RELATIONSHIP") || self.parse_keyword("EDGE") {
            Some(TypeKind::Relationship)
        } else if self.parse_keyword("MAP") {
            Some(TypeKind::Map)
        } else if self.parse_keyword("PATH") {
            Some(TypeKind::Path)
        } else if self.parse_keywords(&["PROPERTY", "VALUE"]) {
            Some(TypeKind::PropertyValue)
        } else {
            None
        }
    }

    /// After `VECTOR`: an optional `<coordinate type>` (a name or alias, `INT8`, `FLOAT32`,
    /// `SIGNED INTEGER`, then `NOT NULL` if written: a coordinate is never null, and
    /// `SHOW CONSTRAINTS` prints `VECTOR<INTEGER32 NOT NULL>(42)`), then an optional
    /// `(dimension)`, a positive integer.
    fn parse_vector_type(&mut self) -> Result<TypeKind> {
        let mut coordinate = None;
        if self.consume(&TokenKind::Lt) {
            let name = if self.parse_keywords(&["SIGNED", "INTEGER"]) {
                vector_coordinate_name("INTEGER")
            } else {
                let token = self.peek();
                let name = if token.kind == TokenKind::Word {
                    vector_coordinate_name(self.text(token.span))
                } else {
                    None
                };
                if name.is_some() {
                    self.advance();
                }
                name
            };
            let Some(name) = name else {
                return Err(self.expected(
                    "a vector coordinate type (INTEGER8, INTEGER16, INTEGER32, INTEGER, FLOAT32, FLOAT)",
                ));
            };
            if self.parse_keyword("NOT") {
                self.expect_keyword("NULL")?;
            }
            self.expect(&TokenKind::Gt)?;
            coordinate = Some(name);
        }
        let mut dimension = None;
        if self.consume(&TokenKind::LParen) {
            let value = match *self.peek_kind() {
                TokenKind::Integer(n) => u32::try_from(n).ok().filter(|n| *n > 0),
                _ => None,
            };
            let Some(value) = value else {
                return Err(self.expected("a vector dimension (a positive integer)"));
            };
            self.advance();
            self.expect(&TokenKind::RParen)?;
            dimension = Some(value);
        }
        Ok(TypeKind::Vector {
            coordinate,
            dimension,
        })
    }

    /// After `<`: a type, then `>`; `|` is the union operator here whatever surrounds it.
    fn parse_type_in_brackets(&mut self) -> Result<CypherType> {
        let saved = std::mem::take(&mut self.bar_ends_filter);
        let inner = self.parse_cypher_type();
        self.bar_ends_filter = saved;
        let inner = inner?;
        self.expect(&TokenKind::Gt)?;
        Ok(inner)
    }
}

/// The only item of `items`, or all of them joined by `join` (`LabelExpr::And` or
/// `LabelExpr::Or`).
fn joined(mut items: Vec<LabelExpr>, join: fn(Vec<LabelExpr>) -> LabelExpr) -> LabelExpr {
    if items.len() == 1 {
        items.remove(0)
    } else {
        join(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{ExprKind, Ident, StatementKind};

    fn name(s: &str) -> LabelExpr {
        LabelExpr::Name(Ident::new(s))
    }

    fn where_expr(query: &str) -> crate::ast::Expr {
        let statement = crate::parse(query).unwrap();
        let StatementKind::Query(q) = statement.kind else {
            panic!()
        };
        let crate::ast::ClauseKind::Return(r) = &q.first.clauses[0].kind else {
            panic!()
        };
        r.projection.items[0].expr.clone()
    }

    #[test]
    fn label_expressions_bind_not_and_or() {
        let e = where_expr("RETURN n:A|B&!C AS x");
        let ExprKind::LabelTest { expr, .. } = e.kind else {
            panic!("{e:?}")
        };
        assert_eq!(
            expr,
            LabelExpr::Or(vec![
                name("A"),
                LabelExpr::And(vec![name("B"), LabelExpr::Not(Box::new(name("C")))])
            ])
        );
    }

    #[test]
    fn bar_ends_a_comprehension_filter() {
        let e = where_expr("RETURN [x IN l WHERE x:A | x] AS x");
        assert!(matches!(e.kind, ExprKind::ListComprehension(_)));
        let e = where_expr("RETURN [x IN l WHERE x:(A|B) | x] AS x");
        assert!(matches!(e.kind, ExprKind::ListComprehension(_)));
    }

    #[test]
    fn dynamic_labels_are_operands_of_label_expressions() {
        let e = where_expr("RETURN n:$(a)|Person AS x");
        let ExprKind::LabelTest { expr, .. } = &e.kind else {
            panic!("{e:?}")
        };
        let LabelExpr::Or(items) = expr else {
            panic!("{expr:?}")
        };
        assert!(matches!(&items[0], LabelExpr::Dynamic { any: false, .. }));
        assert_eq!(items[1], name("Person"));
        assert_eq!(e.to_string(), "n:($(a)|Person)");
        let e = where_expr("RETURN n:!$any(b) AS x");
        assert_eq!(e.to_string(), "n:(!$any(b))");
        // A conjunction of names and run-time names is the run it stands for.
        let e = where_expr("RETURN n:A&$(b) AS x");
        assert!(matches!(e.kind, ExprKind::DynamicLabels { .. }), "{e:?}");
        assert_eq!(e.to_string(), "n:$('A'):$(b)");
        // In a comprehension's filter a top-level `|` still ends the filter.
        let e = where_expr("RETURN [x IN l WHERE x:$(a) | x] AS x");
        assert!(matches!(e.kind, ExprKind::ListComprehension(_)));
    }

    #[test]
    fn types_parse_with_synonyms() {
        let e = where_expr("RETURN x IS :: INT NOT NULL AS x");
        let ExprKind::TypeTest { ty, .. } = e.kind else {
            panic!()
        };
        assert_eq!(ty.to_string(), "INTEGER NOT NULL");
        let e = where_expr("RETURN x :: LIST<INTEGER | FLOAT> AS x");
        let ExprKind::TypeTest { ty, .. } = e.kind else {
            panic!()
        };
        assert_eq!(ty.to_string(), "LIST<ANY<INTEGER | FLOAT>>");
    }

    #[test]
    fn vector_types_read_their_coordinate_type_and_dimension() {
        for (query, printed) in [
            ("RETURN x IS :: VECTOR AS x", "VECTOR"),
            (
                "RETURN x IS :: VECTOR<INT8>(3) NOT NULL AS x",
                "VECTOR<INTEGER8>(3) NOT NULL",
            ),
            ("RETURN x :: VECTOR<FLOAT64> AS x", "VECTOR<FLOAT>"),
            (
                "RETURN x :: VECTOR(128) | STRING AS x",
                "ANY<VECTOR(128) | STRING>",
            ),
            // `SHOW CONSTRAINTS` prints the coordinate type `NOT NULL`; it reads back.
            (
                "RETURN x IS :: VECTOR<INTEGER32 NOT NULL>(42) AS x",
                "VECTOR<INTEGER32>(42)",
            ),
            (
                "RETURN x IS :: VECTOR<SIGNED INTEGER>(2) AS x",
                "VECTOR<INTEGER>(2)",
            ),
        ] {
            let e = where_expr(query);
            let ExprKind::TypeTest { ty, .. } = e.kind else {
                panic!("{query}: {e:?}")
            };
            assert_eq!(ty.to_string(), printed, "{query}");
        }
        for bad in [
            "RETURN x IS :: VECTOR<FLOAT16> AS x",
            "RETURN x IS :: VECTOR(0) AS x",
            "RETURN x IS :: VECTOR<FLOAT32>(x) AS x",
            "RETURN x IS :: VECTOR<FLOAT32 NOT>(3) AS x",
            "RETURN x IS :: VECTOR<FLOAT32 NULL>(3) AS x",
            "RETURN x IS :: VECTOR<SIGNED>(3) AS x",
        ] {
            assert!(crate::parse(bad).is_err(), "{bad}");
        }
    }
}
