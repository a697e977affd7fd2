//! Queries and clauses.

use super::{Parser, Result};
use crate::ast::{
    CallProcedure, CallSubquery, Clause, ClauseKind, Create, Delete, Expr, ExprKind, Foreach, Hint,
    Ident, ImportScope, InTransactions, IndexKind, Literal, LoadCsv, Match, Merge, MergeAction,
    MergeOn, OnError, ProcedureYield, Projection, ProjectionItem, Query, Remove, RemoveItem,
    Return, SetClause, SetItem, SingleQuery, SortItem, Union, Unwind, UseGraph, With, YieldItem,
};
use crate::error::Detail;
use crate::token::TokenKind;

/// Keywords that start a clause.
const CLAUSE_KEYWORDS: &[&str] = &[
    "MATCH", "OPTIONAL", "UNWIND", "WITH", "RETURN", "CREATE", "MERGE", "SET", "REMOVE", "DELETE",
    "DETACH", "NODETACH", "FOREACH", "CALL", "FINISH", "LOAD", "USE", "LET", "FILTER", "ORDER",
    "SKIP", "OFFSET", "LIMIT",
];

impl Parser<'_> {
    pub(crate) fn peek_clause_start(&self) -> bool {
        CLAUSE_KEYWORDS.iter().any(|k| self.peek_keyword(k))
    }

    /// Single queries joined by `UNION [ALL]`.
    pub(crate) fn parse_query(&mut self) -> Result<Query> {
        self.nested_cost(super::cost::QUERY, |p| {
            let start = p.start();
            let first = p.parse_single_query()?;
            let mut unions = Vec::new();
            while p.peek_keyword("UNION") {
                let union_start = p.start();
                p.advance();
                let all = p.parse_keyword("ALL");
                if p.peek_keyword("DISTINCT") {
                    p.advance();
                }
                let query = p.parse_single_query()?;
                unions.push(Union {
                    all,
                    query,
                    span: p.span_from(union_start),
                });
            }
            Ok(Query {
                first,
                unions,
                span: p.span_from(start),
            })
        })
    }

    fn parse_single_query(&mut self) -> Result<SingleQuery> {
        let start = self.start();
        let mut clauses = Vec::new();
        loop {
            if self.peek_clause_start() {
                self.parse_clause_into(&mut clauses)?;
                continue;
            }
            let ends_here = matches!(
                self.peek_kind(),
                TokenKind::Eof | TokenKind::Semicolon | TokenKind::RBrace
            ) || self.peek_keyword("UNION");
            if ends_here && !clauses.is_empty() {
                break;
            }
            return Err(self.expected(
                "a clause (MATCH, OPTIONAL MATCH, WITH, RETURN, UNWIND, CREATE, MERGE, SET, \
                 REMOVE, DELETE, DETACH DELETE, FOREACH, CALL or FINISH)",
            ));
        }
        Ok(SingleQuery {
            clauses,
            span: self.span_from(start),
        })
    }

    /// Reads a clause onto `clauses`, after the clause it was read with when there is one
    /// (`MATCH ... SEARCH`, see `search`).
    fn parse_clause_into(&mut self, clauses: &mut Vec<Clause>) -> Result<()> {
        // One a speculative read left behind belongs to no clause.
        self.before_clause = None;
        let clause = self.parse_clause()?;
        if let Some(before) = self.before_clause.take() {
            clauses.push(before);
        }
        clauses.push(clause);
        Ok(())
    }

    /// Dispatches on the clause keyword. It is on the recursion path of nested subqueries,
    /// so each clause is parsed by its own function and this frame stays small.
    fn parse_clause(&mut self) -> Result<Clause> {
        let start = self.start();
        let keyword_span = self.advance();
        let word = self.text(keyword_span);
        let is = |keyword: &str| word.eq_ignore_ascii_case(keyword);
        let kind = if is("MATCH") {
            self.parse_match(false)
        } else if is("OPTIONAL") {
            self.expect_keyword("MATCH")?;
            self.parse_match(true)
        } else if is("UNWIND") {
            self.parse_unwind()
        } else if is("WITH") {
            self.parse_with()
        } else if is("RETURN") {
            self.parse_return()
        } else if is("CREATE") {
            self.parse_create()
        } else if is("MERGE") {
            self.parse_merge()
        } else if is("SET") {
            self.parse_set()
        } else if is("REMOVE") {
            self.parse_remove()
        } else if is("DELETE") {
            self.parse_delete(false)
        } else if is("DETACH") || is("NODETACH") {
            let detach = is("DETACH");
            self.expect_keyword("DELETE")?;
            self.parse_delete(detach)
        } else if is("FOREACH") {
            self.parse_foreach()
        } else if is("CALL") {
            self.parse_call()
        } else if is("FINISH") {
            Ok(ClauseKind::Finish)
        } else if is("LOAD") {
            self.parse_load_csv()
        } else if is("USE") {
            self.parse_use().map(ClauseKind::Use)
        } else if is("LET") {
            self.parse_let()
        } else if is("FILTER") {
            self.parse_filter()
        } else if is("ORDER") || is("SKIP") || is("OFFSET") || is("LIMIT") {
            self.index -= 1;
            self.parse_standalone_order_skip_limit()
        } else {
            self.index -= 1;
            Err(self.expected("a clause"))
        }?;
        Ok(Clause {
            kind,
            span: self.span_from(start),
        })
    }

    /// `USE name` or `USE a.b`, after `USE`; `USE graph.byName(...)` is named as unsupported.
    pub(super) fn parse_use(&mut self) -> Result<UseGraph> {
        if self.peek_keyword("graph")
            && self.peek_nth(1).kind == TokenKind::Dot
            && self.peek_nth(3).kind == TokenKind::LParen
        {
            return Err(self.unsupported("USE graph.byName(...)", self.peek().span));
        }
        let mut name = vec![self.parse_name("a graph name")?];
        while self.consume(&TokenKind::Dot) {
            name.push(self.parse_name("a graph name")?);
        }
        Ok(UseGraph { name })
    }

    /// `LOAD CSV [WITH HEADERS] FROM url AS row [FIELDTERMINATOR 'c']`, after `LOAD`.
    fn parse_load_csv(&mut self) -> Result<ClauseKind> {
        self.expect_keyword("CSV")?;
        let with_headers = self.parse_keywords(&["WITH", "HEADERS"]);
        self.expect_keyword("FROM")?;
        let url = self.parse_expr()?;
        self.expect_keyword("AS")?;
        let variable = self.parse_alias()?;
        let field_terminator = if self.parse_keyword("FIELDTERMINATOR") {
            match self.peek_kind().clone() {
                TokenKind::String(value) => {
                    self.advance();
                    Some(value)
                }
                _ => return Err(self.expected("a string literal")),
            }
        } else {
            None
        };
        Ok(ClauseKind::LoadCsv(LoadCsv {
            with_headers,
            url,
            variable,
            field_terminator,
        }))
    }

    /// GQL's `LET x = e, y = f`: `WITH *, e AS x, f AS y`.
    fn parse_let(&mut self) -> Result<ClauseKind> {
        let mut items = Vec::new();
        loop {
            let start = self.start();
            let variable = self.parse_variable()?;
            self.expect(&TokenKind::Eq)?;
            let expr = self.parse_expr()?;
            items.push(ProjectionItem {
                expr,
                alias: Some(variable),
                text: String::new(),
                span: self.span_from(start),
            });
            if !self.consume(&TokenKind::Comma) {
                break;
            }
        }
        Ok(ClauseKind::With(With {
            projection: star_projection(items),
            filter: None,
        }))
    }

    /// GQL's `FILTER [WHERE] predicate`: `WITH * WHERE predicate`.
    fn parse_filter(&mut self) -> Result<ClauseKind> {
        self.parse_keyword("WHERE");
        let filter = self.parse_expr()?;
        Ok(ClauseKind::With(With {
            projection: star_projection(Vec::new()),
            filter: Some(filter),
        }))
    }

    /// `ORDER BY`, `SKIP`/`OFFSET` and `LIMIT` as clauses of their own: `WITH *` carrying them.
    fn parse_standalone_order_skip_limit(&mut self) -> Result<ClauseKind> {
        let mut projection = star_projection(Vec::new());
        self.parse_order_skip_limit(&mut projection)?;
        if projection.order_by.is_empty() && projection.skip.is_none() && projection.limit.is_none()
        {
            return Err(self.expected("'ORDER BY', 'SKIP', 'OFFSET' or 'LIMIT'"));
        }
        Ok(ClauseKind::With(With {
            projection,
            filter: None,
        }))
    }

    fn parse_unwind(&mut self) -> Result<ClauseKind> {
        let expr = self.parse_expr()?;
        self.expect_keyword("AS")?;
        let variable = self.parse_alias()?;
        Ok(ClauseKind::Unwind(Unwind { expr, variable }))
    }

    fn parse_with(&mut self) -> Result<ClauseKind> {
        let projection = self.parse_projection()?;
        let filter = self.parse_where()?;
        Ok(ClauseKind::With(With { projection, filter }))
    }

    fn parse_return(&mut self) -> Result<ClauseKind> {
        Ok(ClauseKind::Return(Return {
            projection: self.parse_projection()?,
        }))
    }

    fn parse_create(&mut self) -> Result<ClauseKind> {
        let pattern = self.parse_pattern()?;
        Ok(ClauseKind::Create(Create { pattern }))
    }

    fn parse_set(&mut self) -> Result<ClauseKind> {
        Ok(ClauseKind::Set(SetClause {
            items: self.parse_set_items()?,
        }))
    }

    fn parse_remove(&mut self) -> Result<ClauseKind> {
        Ok(ClauseKind::Remove(Remove {
            items: self.parse_remove_items()?,
        }))
    }

    fn parse_match(&mut self, optional: bool) -> Result<ClauseKind> {
        // The match mode: DIFFERENT RELATIONSHIPS is the default, so it is read and dropped.
        if self.peek_keyword("REPEATABLE") && self.peek_nth_keyword(1, "ELEMENTS") {
            return Err(self.unsupported("The REPEATABLE ELEMENTS match mode", self.peek().span));
        }
        if !self.parse_keywords(&["DIFFERENT", "RELATIONSHIPS"]) {
            self.parse_keywords(&["DIFFERENT", "RELATIONSHIP"]);
        }
        let pattern = self.parse_pattern()?;
        let mut hints = Vec::new();
        while self.parse_keyword("USING") {
            hints.push(self.parse_hint()?);
        }
        let mut matched = Match {
            optional,
            pattern,
            hints,
            filter: None,
        };
        if self.peek_keyword("SEARCH") {
            self.before_clause = Some(self.parse_search(&matched)?);
        }
        matched.filter = self.parse_where()?;
        Ok(ClauseKind::Match(matched))
    }

    fn parse_hint(&mut self) -> Result<Hint> {
        if self.parse_keyword("SCAN") {
            let variable = self.parse_variable()?;
            self.expect(&TokenKind::Colon)?;
            let label = self.parse_name("a label name")?;
            return Ok(Hint::Scan { variable, label });
        }
        if self.parse_keyword("JOIN") {
            self.expect_keyword("ON")?;
            let mut variables = vec![self.parse_variable()?];
            while self.consume(&TokenKind::Comma) {
                variables.push(self.parse_variable()?);
            }
            return Ok(Hint::Join { variables });
        }
        let kind = if self.parse_keyword("RANGE") {
            Some(IndexKind::Range)
        } else if self.parse_keyword("TEXT") {
            Some(IndexKind::Text)
        } else if self.parse_keyword("POINT") {
            Some(IndexKind::Point)
        } else {
            None
        };
        self.expect_keyword("INDEX")?;
        let seek = self.parse_keyword("SEEK");
        let variable = self.parse_variable()?;
        self.expect(&TokenKind::Colon)?;
        let label = self.parse_name("a label name")?;
        self.expect(&TokenKind::LParen)?;
        let mut properties = vec![self.parse_name("a property key name")?];
        while self.consume(&TokenKind::Comma) {
            properties.push(self.parse_name("a property key name")?);
        }
        self.expect(&TokenKind::RParen)?;
        Ok(Hint::Index {
            kind,
            seek,
            variable,
            label,
            properties,
        })
    }

    /// The body of `WITH` and `RETURN`: `[DISTINCT] items [ORDER BY] [SKIP] [LIMIT]`.
    pub(crate) fn parse_projection(&mut self) -> Result<Projection> {
        // `RETURN distinct` returns a variable of that name, as in Neo4j 5.
        let distinct = self.peek_keyword("DISTINCT")
            && (self.operand_follows(1) || self.peek_nth(1).kind == TokenKind::Star);
        if distinct {
            self.advance();
        }
        let mut star = false;
        let mut items = Vec::new();
        if self.consume(&TokenKind::Star) {
            star = true;
            while self.consume(&TokenKind::Comma) {
                items.push(self.parse_projection_item()?);
            }
        } else {
            items.push(self.parse_projection_item()?);
            while self.consume(&TokenKind::Comma) {
                items.push(self.parse_projection_item()?);
            }
        }
        let mut projection = Projection {
            distinct,
            star,
            items,
            order_by: Vec::new(),
            skip: None,
            limit: None,
        };
        self.parse_order_skip_limit(&mut projection)?;
        Ok(projection)
    }

    pub(crate) fn parse_order_skip_limit(&mut self, projection: &mut Projection) -> Result<()> {
        if self.parse_keywords(&["ORDER", "BY"]) {
            loop {
                let expr = self.parse_expr()?;
                let descending = if self.parse_keyword("DESC") || self.parse_keyword("DESCENDING") {
                    true
                } else {
                    let _ = self.parse_keyword("ASC") || self.parse_keyword("ASCENDING");
                    false
                };
                projection.order_by.push(SortItem { expr, descending });
                if !self.consume(&TokenKind::Comma) {
                    break;
                }
            }
        }
        if self.parse_keyword("SKIP") || self.parse_keyword("OFFSET") {
            projection.skip = Some(self.parse_expr()?);
        }
        if self.parse_keyword("LIMIT") {
            projection.limit = Some(self.parse_expr()?);
        }
        Ok(())
    }

    fn parse_projection_item(&mut self) -> Result<ProjectionItem> {
        let expr = self.parse_expr()?;
        let alias = self.parse_after_keyword("AS", Self::parse_alias)?;
        let text = if alias.is_some() {
            String::new()
        } else {
            self.text(expr.span).to_string()
        };
        Ok(ProjectionItem {
            span: self.span_from(expr.span.start),
            expr,
            alias,
            text,
        })
    }

    fn parse_merge(&mut self) -> Result<ClauseKind> {
        let pattern = self.parse_pattern_part()?;
        let mut actions = Vec::new();
        while self.peek_keyword("ON") {
            let start = self.start();
            self.advance();
            let on = if self.parse_keyword("CREATE") {
                MergeOn::Create
            } else if self.parse_keyword("MATCH") {
                MergeOn::Match
            } else {
                return Err(self.expected("'CREATE' or 'MATCH'"));
            };
            self.expect_keyword("SET")?;
            let items = self.parse_set_items()?;
            actions.push(MergeAction {
                on,
                items,
                span: self.span_from(start),
            });
        }
        Ok(ClauseKind::Merge(Merge { pattern, actions }))
    }

    fn parse_set_items(&mut self) -> Result<Vec<SetItem>> {
        let mut items = vec![self.parse_set_item()?];
        while self.consume(&TokenKind::Comma) {
            items.push(self.parse_set_item()?);
        }
        Ok(items)
    }

    fn parse_set_item(&mut self) -> Result<SetItem> {
        if let Some((variable, labels)) = self.parse_label_item()? {
            return Ok(match labels {
                ItemLabels::Static(labels) => SetItem::Labels { variable, labels },
                ItemLabels::Dynamic(labels) => SetItem::DynamicLabels { variable, labels },
            });
        }
        let target = self.parse_expr_bp(crate::ast::prec::UNARY)?;
        match target.kind {
            ExprKind::Variable(variable) => {
                if self.consume(&TokenKind::Eq) {
                    Ok(SetItem::Replace {
                        variable,
                        value: self.parse_expr()?,
                    })
                } else if self.consume(&TokenKind::PlusEq) {
                    Ok(SetItem::Merge {
                        variable,
                        value: self.parse_expr()?,
                    })
                } else {
                    Err(self.expected("'=', '+=', ':' or '.'"))
                }
            }
            ExprKind::Property { base, key } => {
                self.expect(&TokenKind::Eq)?;
                Ok(SetItem::Property {
                    entity: *base,
                    key,
                    value: self.parse_expr()?,
                })
            }
            ExprKind::HasLabels { base, labels } => match base.kind {
                ExprKind::Variable(variable) => Ok(SetItem::Labels { variable, labels }),
                _ => Err(self.error(
                    Detail::UnexpectedSyntax,
                    "Labels can only be set on a variable",
                    base.span,
                )),
            },
            ExprKind::Index { base, index } => {
                self.expect(&TokenKind::Eq)?;
                Ok(SetItem::DynamicProperty {
                    entity: *base,
                    key: *index,
                    value: self.parse_expr()?,
                })
            }
            _ => Err(self.error(
                Detail::UnexpectedSyntax,
                format!(
                    "Invalid input '{}': expected a property, a variable or labels to set",
                    self.text(target.span)
                ),
                target.span,
            )),
        }
    }

    /// A SET or REMOVE item that names labels of a variable: `n:A:B`, `n IS A`, `n:$(expr)`,
    /// `n IS $(expr)`; `None` (nothing read) for any other item. A dynamic label anywhere makes
    /// every label of the item an expression, the static ones string literals.
    fn parse_label_item(&mut self) -> Result<Option<(Ident, ItemLabels)>> {
        let names_variable = matches!(self.peek_kind(), TokenKind::Word | TokenKind::QuotedName(_));
        let is = self.peek_nth_keyword(1, "IS");
        if !names_variable || !(is || self.peek_nth(1).kind == TokenKind::Colon) {
            return Ok(None);
        }
        let variable = self.parse_variable()?;
        let mut labels: Vec<Expr> = Vec::new();
        let mut dynamic = false;
        let mut first = true;
        loop {
            let opened = if first && is {
                self.parse_keyword("IS")
            } else {
                self.consume(&TokenKind::Colon)
            };
            if !opened {
                break;
            }
            first = false;
            if self.consume(&TokenKind::DollarLParen) {
                labels.push(self.parse_expr()?);
                self.expect(&TokenKind::RParen)?;
                dynamic = true;
            } else {
                let name = self.parse_name("a label name")?;
                labels.push(Expr::new(
                    ExprKind::Literal(Literal::String(name.name)),
                    name.span,
                ));
            }
        }
        let labels = if dynamic {
            ItemLabels::Dynamic(labels)
        } else {
            ItemLabels::Static(
                labels
                    .into_iter()
                    .filter_map(|e| match e.kind {
                        ExprKind::Literal(Literal::String(name)) => {
                            Some(Ident { name, span: e.span })
                        }
                        _ => None,
                    })
                    .collect(),
            )
        };
        Ok(Some((variable, labels)))
    }

    fn parse_remove_items(&mut self) -> Result<Vec<RemoveItem>> {
        let mut items = Vec::new();
        loop {
            if let Some((variable, labels)) = self.parse_label_item()? {
                items.push(match labels {
                    ItemLabels::Static(labels) => RemoveItem::Labels { variable, labels },
                    ItemLabels::Dynamic(labels) => RemoveItem::DynamicLabels { variable, labels },
                });
                if !self.consume(&TokenKind::Comma) {
                    return Ok(items);
                }
                continue;
            }
            let target = self.parse_expr_bp(crate::ast::prec::UNARY)?;
            let item = match target.kind {
                ExprKind::Property { base, key } => RemoveItem::Property { entity: *base, key },
                ExprKind::Index { base, index } => RemoveItem::DynamicProperty {
                    entity: *base,
                    key: *index,
                },
                ExprKind::HasLabels { base, labels } => match base.kind {
                    ExprKind::Variable(variable) => RemoveItem::Labels { variable, labels },
                    _ => {
                        return Err(self.error(
                            Detail::UnexpectedSyntax,
                            "Labels can only be removed from a variable",
                            base.span,
                        ));
                    }
                },
                _ => {
                    return Err(self.error(
                        Detail::UnexpectedSyntax,
                        format!(
                            "Invalid input '{}': expected a property or labels to remove",
                            self.text(target.span)
                        ),
                        target.span,
                    ));
                }
            };
            items.push(item);
            if !self.consume(&TokenKind::Comma) {
                return Ok(items);
            }
        }
    }

    fn parse_delete(&mut self, detach: bool) -> Result<ClauseKind> {
        let mut exprs = vec![self.parse_expr()?];
        while self.consume(&TokenKind::Comma) {
            exprs.push(self.parse_expr()?);
        }
        Ok(ClauseKind::Delete(Delete { detach, exprs }))
    }

    fn parse_foreach(&mut self) -> Result<ClauseKind> {
        self.expect(&TokenKind::LParen)?;
        let variable = self.parse_variable()?;
        self.expect_keyword("IN")?;
        let list = self.parse_expr_before_bar()?;
        self.expect(&TokenKind::Pipe)?;
        let clauses = self.nested_cost(super::cost::FOREACH, |p| {
            let mut clauses = Vec::new();
            while !p.peek_is(&TokenKind::RParen) {
                if !p.peek_clause_start() {
                    return Err(p.expected("an updating clause or ')'"));
                }
                p.parse_clause_into(&mut clauses)?;
            }
            Ok(clauses)
        })?;
        if clauses.is_empty() {
            return Err(self.expected("an updating clause"));
        }
        self.expect(&TokenKind::RParen)?;
        Ok(ClauseKind::Foreach(Foreach {
            variable,
            list,
            clauses,
        }))
    }

    fn parse_call(&mut self) -> Result<ClauseKind> {
        if self.peek_is(&TokenKind::LBrace) {
            return self.parse_call_subquery(None);
        }
        if self.peek_is(&TokenKind::LParen) {
            self.advance();
            let scope = if self.consume(&TokenKind::Star) {
                ImportScope::All
            } else {
                let mut variables = Vec::new();
                if !self.peek_is(&TokenKind::RParen) {
                    variables.push(self.parse_variable()?);
                    while self.consume(&TokenKind::Comma) {
                        variables.push(self.parse_variable()?);
                    }
                }
                ImportScope::Variables(variables)
            };
            self.expect(&TokenKind::RParen)?;
            return self.parse_call_subquery(Some(scope));
        }
        let name = self.parse_qualified_name("a procedure name")?;
        let args = if self.consume(&TokenKind::LParen) {
            Some(self.parse_args_until_rparen()?)
        } else {
            None
        };
        let yields = if self.parse_keyword("YIELD") {
            if self.consume(&TokenKind::Star) {
                Some(ProcedureYield::All)
            } else {
                let mut items = vec![self.parse_yield_item()?];
                while self.consume(&TokenKind::Comma) {
                    items.push(self.parse_yield_item()?);
                }
                let filter = self.parse_where()?;
                Some(ProcedureYield::Items { items, filter })
            }
        } else {
            None
        };
        Ok(ClauseKind::CallProcedure(CallProcedure {
            name,
            args,
            yields,
        }))
    }

    fn parse_yield_item(&mut self) -> Result<YieldItem> {
        let field = self.parse_name("a procedure output name")?;
        let alias = self.parse_after_keyword("AS", Self::parse_alias)?;
        Ok(YieldItem { field, alias })
    }

    fn parse_call_subquery(&mut self, scope: Option<ImportScope>) -> Result<ClauseKind> {
        self.expect(&TokenKind::LBrace)?;
        let query = self.parse_query()?;
        self.expect(&TokenKind::RBrace)?;
        let in_transactions = if self.peek_keyword("IN") {
            self.advance();
            let concurrency = if self.parse_keyword("CONCURRENT") {
                Some(None)
            } else if self.peek_keyword("TRANSACTIONS") {
                None
            } else {
                let n = self.parse_expr()?;
                self.expect_keyword("CONCURRENT")?;
                Some(Some(n))
            };
            self.expect_keyword("TRANSACTIONS")?;
            let mut tx = self.parse_in_transactions()?;
            tx.concurrency = concurrency;
            Some(tx)
        } else {
            None
        };
        Ok(ClauseKind::CallSubquery(CallSubquery {
            scope,
            query,
            in_transactions,
        }))
    }

    fn parse_in_transactions(&mut self) -> Result<InTransactions> {
        let mut tx = InTransactions {
            concurrency: None,
            batch_rows: None,
            on_error: None,
            retry: None,
            report_status: None,
        };
        if self.parse_keyword("OF") {
            tx.batch_rows = Some(self.parse_expr()?);
            if !(self.parse_keyword("ROWS") || self.parse_keyword("ROW")) {
                return Err(self.expected("'ROWS'"));
            }
        }
        if self.parse_keywords(&["ON", "ERROR"]) {
            if self.parse_keyword("RETRY") {
                let mut seconds = None;
                if self.parse_keyword("FOR") {
                    seconds = Some(self.parse_expr()?);
                    if !(self.parse_keyword("SECONDS") || self.parse_keyword("SECOND")) {
                        return Err(self.expected("'SECONDS'"));
                    }
                }
                tx.retry = Some(seconds);
                if self.parse_keyword("THEN") {
                    tx.on_error = Some(self.parse_on_error_action()?);
                }
            } else {
                tx.on_error = Some(self.parse_on_error_action()?);
            }
        }
        if self.parse_keywords(&["REPORT", "STATUS", "AS"]) {
            tx.report_status = Some(self.parse_alias()?);
        }
        Ok(tx)
    }
}

impl Parser<'_> {
    /// `CONTINUE`, `BREAK` or `FAIL`.
    fn parse_on_error_action(&mut self) -> Result<OnError> {
        if self.parse_keyword("CONTINUE") {
            Ok(OnError::Continue)
        } else if self.parse_keyword("BREAK") {
            Ok(OnError::Break)
        } else if self.parse_keyword("FAIL") {
            Ok(OnError::Fail)
        } else {
            Err(self.expected("'CONTINUE', 'BREAK', 'FAIL' or 'RETRY'"))
        }
    }
}

/// The labels of a SET or REMOVE item.
enum ItemLabels {
    Static(Vec<Ident>),
    Dynamic(Vec<Expr>),
}

/// `WITH *` plus `items`, with no ordering or paging yet.
fn star_projection(items: Vec<ProjectionItem>) -> Projection {
    Projection {
        distinct: false,
        star: true,
        items,
        order_by: Vec::new(),
        skip: None,
        limit: None,
    }
}
