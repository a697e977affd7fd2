//! Neo4j 2026's `SEARCH` subclause of `MATCH`, over vector indexes:
//!
//! ```text
//! MATCH (n:Label) SEARCH n IN (VECTOR INDEX name FOR vector LIMIT k) [SCORE AS score]
//! ```
//!
//! It binds `n` to the k entities of the index nearest `vector` that the pattern matches, and
//! `score` to their scores. That is what `db.index.vector.queryNodes(name, k, vector)` answers,
//! so it is read into that call followed by the `MATCH`, which then only tests the bound node
//! against its pattern (labels, properties) and its `WHERE`: the engine runs the forms it
//! already has, with the procedure's scores and errors. Tools that find a Neo4j of 2026.01 or
//! later send it (neo4j-graphrag's vector and hybrid retrievers). The forms not read here fail
//! by name: `OPTIONAL MATCH`, and a pattern other than one node.
//!
//! A `WHERE` inside the search filters within the index, so the k nearest entities that pass
//! come back (not the k nearest, then those of them that pass). As in Neo4j it is a
//! conjunction of comparisons of the searched entity's properties (among those the index
//! names in its `WITH [...]`) with values: per property one `=`, or at most one lower and one
//! upper bound. It is handed to the call as its `filter` argument, one
//! `{property, operator, value}` map per comparison, the entity's property always on the left.

use super::{Parser, Result};
use crate::ast::{
    BinaryOp, CallProcedure, Clause, ClauseKind, Expr, ExprKind, FunctionName, Ident, Literal,
    MapEntry, Match, ProcedureYield, YieldItem,
};
use crate::error::Detail;
use crate::token::TokenKind;

/// One comparison of a search filter: the property, the operator with the property on its
/// left, the value.
struct Comparison {
    property: Ident,
    op: BinaryOp,
    value: Expr,
}

impl Parser<'_> {
    /// After a `MATCH` pattern: `SEARCH var IN (VECTOR INDEX name FOR vector LIMIT k)
    /// [SCORE AS score]`, read into the procedure call that runs before the `MATCH`.
    pub(super) fn parse_search(&mut self, matched: &Match) -> Result<Clause> {
        let start = self.start();
        let search_span = self.expect_keyword("SEARCH")?;
        let variable = self.parse_variable()?;
        let single_node = matches!(
            matched.pattern.as_slice(),
            [part] if part.chain.steps.is_empty()
                && part.path.is_none()
                && part.chain.start.variable.as_ref().is_some_and(|v| v.name == variable.name)
        );
        if matched.optional {
            return Err(self.unsupported("SEARCH in an OPTIONAL MATCH", search_span));
        }
        if !single_node {
            return Err(self.unsupported(
                "SEARCH over a pattern other than the one node it binds",
                search_span.to(variable.span),
            ));
        }
        self.expect_keyword("IN")?;
        self.expect(&TokenKind::LParen)?;
        let kind_span = self.peek().span;
        if !self.parse_keyword("VECTOR") {
            return Err(self.unsupported("SEARCH in an index other than a vector index", kind_span));
        }
        self.expect_keyword("INDEX")?;
        let index = self.parse_name("a vector index name")?;
        self.expect_keyword("FOR")?;
        let vector = self.parse_expr()?;
        let filter = if self.parse_keyword("WHERE") {
            let predicate = self.parse_expr()?;
            Some(self.search_filter(&variable, &predicate)?)
        } else {
            None
        };
        self.expect_keyword("LIMIT")?;
        let limit = self.parse_expr()?;
        self.expect(&TokenKind::RParen)?;
        let mut items = vec![YieldItem {
            field: Ident::with_span("node", variable.span),
            alias: Some(variable),
        }];
        if self.parse_keyword("SCORE") {
            self.expect_keyword("AS")?;
            let score = self.parse_variable()?;
            items.push(YieldItem {
                field: Ident::with_span("score", score.span),
                alias: Some(score),
            });
        }
        let procedure = |name: &str| Ident::with_span(name, search_span);
        let name = Expr::new(ExprKind::Literal(Literal::String(index.name)), index.span);
        Ok(Clause {
            kind: ClauseKind::CallProcedure(CallProcedure {
                name: FunctionName {
                    namespace: vec![procedure("db"), procedure("index"), procedure("vector")],
                    name: procedure("queryNodes"),
                },
                args: Some([name, limit, vector].into_iter().chain(filter).collect()),
                yields: Some(ProcedureYield::Items {
                    items,
                    filter: None,
                }),
            }),
            span: self.span_from(start),
        })
    }

    /// The `filter` argument a search's `WHERE` becomes: a list of `{property, operator,
    /// value}` maps, after checking that the index can apply it as it searches.
    fn search_filter(&self, variable: &Ident, predicate: &Expr) -> Result<Expr> {
        let invalid = || {
            self.error(
                Detail::InvalidVectorSearchFilter,
                format!(
                    "A vector search filter must be property comparisons of `{}` joined by \
                     AND, each property given one exact value (`{0}.p = 1`), or a range \
                     bounded below, above or both (`{0}.p >= 1`, `{0}.p > 1 AND {0}.p < 100`): \
                     `{predicate}` is not",
                    variable.name
                ),
                predicate.span,
            )
        };
        let conjuncts = predicate.conjuncts();
        let mut comparisons: Vec<Comparison> = Vec::with_capacity(conjuncts.len());
        for conjunct in conjuncts {
            let comparison = comparison_of(variable, conjunct).ok_or_else(invalid)?;
            let same = comparisons
                .iter()
                .filter(|c| c.property.name == comparison.property.name);
            let clashes = same.clone().any(|c| {
                c.op == BinaryOp::Eq
                    || comparison.op == BinaryOp::Eq
                    || lower_bound(c.op) == lower_bound(comparison.op)
            });
            if clashes {
                return Err(invalid());
            }
            comparisons.push(comparison);
        }
        let span = predicate.span;
        let text = |s: &str| Expr::new(ExprKind::Literal(Literal::String(s.to_string())), span);
        let entry = |key: &str, value: Expr| MapEntry {
            key: Ident::with_span(key, span),
            value,
        };
        let maps = comparisons
            .into_iter()
            .map(|c| {
                let entries = vec![
                    entry("property", text(&c.property.name)),
                    entry("operator", text(c.op.symbol())),
                    entry("value", c.value),
                ];
                Expr::new(ExprKind::Map(entries), span)
            })
            .collect();
        Ok(Expr::new(ExprKind::List(maps), span))
    }
}

/// `variable.p op value` or `value op variable.p`, read with the property on the left.
fn comparison_of(variable: &Ident, e: &Expr) -> Option<Comparison> {
    let ExprKind::Binary { op, left, right } = &e.kind else {
        return None;
    };
    let property_of = |e: &Expr| match &e.kind {
        ExprKind::Property { base, key } => match &base.kind {
            ExprKind::Variable(v) if v.name == variable.name => Some(key.clone()),
            _ => None,
        },
        _ => None,
    };
    let mirrored = match op {
        BinaryOp::Eq => BinaryOp::Eq,
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        _ => return None,
    };
    match (property_of(left), property_of(right)) {
        (Some(property), None) => Some(Comparison {
            property,
            op: *op,
            value: (**right).clone(),
        }),
        (None, Some(property)) => Some(Comparison {
            property,
            op: mirrored,
            value: (**left).clone(),
        }),
        _ => None,
    }
}

/// Whether a range operator bounds its property from below (`>`, `>=`) rather than above.
fn lower_bound(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Gt | BinaryOp::Ge)
}

#[cfg(test)]
mod tests {
    use crate::error::Detail;

    #[test]
    fn search_reads_as_the_vector_query_before_the_match() {
        let statement = crate::parse(
            "CYPHER 25 MATCH (node:`Doc`) SEARCH node IN (VECTOR INDEX `doc_vectors` \
             FOR $query_vector LIMIT $top_k * $ratio) SCORE AS score \
             WITH node, score ORDER BY score DESC LIMIT $top_k RETURN node.text, score",
        )
        .unwrap();
        let printed = statement.to_string();
        assert!(
            printed.contains(
                "CALL db.index.vector.queryNodes('doc_vectors', $top_k * $ratio, $query_vector) \
                 YIELD node AS node, score AS score MATCH (node:Doc)"
            ),
            "{printed}"
        );
        let without_score =
            crate::parse("MATCH (n:Doc) SEARCH n IN (VECTOR INDEX v FOR [1, 2] LIMIT 3) RETURN n")
                .unwrap();
        assert!(
            without_score
                .to_string()
                .contains("YIELD node AS n MATCH (n:Doc)"),
            "{without_score}"
        );
    }

    #[test]
    fn a_filter_becomes_the_call_s_filter_argument_with_the_property_on_the_left() {
        let statement = crate::parse(
            "MATCH (m:Movie) SEARCH m IN (VECTOR INDEX plots FOR $q \
             WHERE m.year > 2000 AND 9 >= m.rating AND m.lang = $lang LIMIT 10) SCORE AS s \
             RETURN m, s",
        )
        .unwrap();
        let printed = statement.to_string();
        assert!(
            printed.contains(
                "CALL db.index.vector.queryNodes('plots', 10, $q, \
                 [{property: 'year', operator: '>', value: 2000}, \
                 {property: 'rating', operator: '<=', value: 9}, \
                 {property: 'lang', operator: '=', value: $lang}]) \
                 YIELD node AS m, score AS s MATCH (m:Movie)"
            ),
            "{printed}"
        );
        // A bounded range on one property, written either way round.
        crate::parse(
            "MATCH (m:Movie) SEARCH m IN (VECTOR INDEX plots FOR $q \
             WHERE 1 < m.rating AND m.rating <= 5 LIMIT 10) RETURN m",
        )
        .unwrap();
    }

    #[test]
    fn a_filter_the_index_cannot_apply_as_it_searches_is_refused() {
        for filter in [
            "NOT m.rating = 8",
            "m.rating = 8 OR m.year = 2000",
            "m.rating > 6 AND m.rating > 8",
            "m.rating <= 6 AND 8 > m.rating",
            "m.rating = 6 AND m.rating < 8",
            "m.rating <> 6",
            "m.title STARTS WITH 'A'",
            "other.rating = 6",
            "m.rating = m.year",
            "m:Movie",
            "true",
        ] {
            let text = format!(
                "MATCH (m:Movie) SEARCH m IN (VECTOR INDEX plots FOR $q WHERE {filter} LIMIT 3) \
                 RETURN m"
            );
            let error = crate::parse(&text).unwrap_err();
            assert_eq!(
                error.kind.detail,
                Detail::InvalidVectorSearchFilter,
                "{filter}: {error}"
            );
        }
    }

    #[test]
    fn the_forms_not_read_fail_by_name() {
        for text in [
            "OPTIONAL MATCH (n:Doc) SEARCH n IN (VECTOR INDEX v FOR $q LIMIT 3) RETURN n",
            "MATCH (n:Doc)-->(m) SEARCH n IN (VECTOR INDEX v FOR $q LIMIT 3) RETURN n",
            "MATCH (n:Doc) SEARCH m IN (VECTOR INDEX v FOR $q LIMIT 3) RETURN m",
            "MATCH (n:Doc) SEARCH n IN (FULLTEXT INDEX v FOR $q LIMIT 3) RETURN n",
        ] {
            let error = crate::parse(text).unwrap_err();
            assert!(error.message.contains("not supported"), "{text}: {error}");
        }
    }
}
