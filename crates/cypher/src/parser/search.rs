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
//! by name: a `WHERE` inside the search (filtering within the index), `OPTIONAL MATCH`, and a
//! pattern other than one node.

use super::{Parser, Result};
use crate::ast::{
    CallProcedure, Clause, ClauseKind, Expr, ExprKind, FunctionName, Ident, Literal, Match,
    ProcedureYield, YieldItem,
};
use crate::token::TokenKind;

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
        if self.peek_keyword("WHERE") {
            return Err(self.unsupported("A WHERE inside SEARCH", self.peek().span));
        }
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
                args: Some(vec![name, limit, vector]),
                yields: Some(ProcedureYield::Items {
                    items,
                    filter: None,
                }),
            }),
            span: self.span_from(start),
        })
    }
}

#[cfg(test)]
mod tests {
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
    fn the_forms_not_read_fail_by_name() {
        for text in [
            "OPTIONAL MATCH (n:Doc) SEARCH n IN (VECTOR INDEX v FOR $q LIMIT 3) RETURN n",
            "MATCH (n:Doc)-->(m) SEARCH n IN (VECTOR INDEX v FOR $q LIMIT 3) RETURN n",
            "MATCH (n:Doc) SEARCH m IN (VECTOR INDEX v FOR $q LIMIT 3) RETURN m",
            "MATCH (n:Doc) SEARCH n IN (VECTOR INDEX v FOR $q WHERE n.x = 1 LIMIT 3) RETURN n",
            "MATCH (n:Doc) SEARCH n IN (FULLTEXT INDEX v FOR $q LIMIT 3) RETURN n",
        ] {
            let error = crate::parse(text).unwrap_err();
            assert!(error.message.contains("not supported"), "{text}: {error}");
        }
    }
}
