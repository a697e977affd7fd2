//! Index and constraint commands, `SHOW ...` and `TERMINATE TRANSACTIONS`.

use super::{Parser, Result};
use crate::ast::{
    ConstraintKind, CreateConstraint, CreateIndex, Expr, ExprKind, Ident, IndexKind, IndexTarget,
    Projection, ProjectionItem, Return, SchemaCommand, SchemaEntity, SchemaName, ShowCommand,
    ShowConstraintType, ShowDatabases, ShowFilter, ShowIndexType, ShowKind, TerminateTransactions,
};
use crate::error::Detail;
use crate::token::TokenKind;

impl Parser<'_> {
    /// Whether `CREATE` starts an index or constraint command rather than a query.
    pub(crate) fn peek_schema_after_create(&self) -> bool {
        [
            "INDEX",
            "RANGE",
            "TEXT",
            "POINT",
            "LOOKUP",
            "FULLTEXT",
            "VECTOR",
            "BTREE",
            "CONSTRAINT",
        ]
        .iter()
        .any(|k| self.peek_nth_keyword(1, k))
    }

    pub(crate) fn parse_create_schema(&mut self) -> Result<SchemaCommand> {
        self.expect_keyword("CREATE")?;
        if self.parse_keyword("CONSTRAINT") {
            return self.parse_create_constraint();
        }
        if self.peek_keyword("FULLTEXT") {
            return self.parse_create_fulltext();
        }
        let kind_span = self.peek().span;
        let kind = if self.parse_keyword("RANGE") {
            IndexKind::Range
        } else if self.parse_keyword("TEXT") {
            IndexKind::Text
        } else if self.parse_keyword("POINT") {
            IndexKind::Point
        } else if self.parse_keyword("LOOKUP") {
            IndexKind::Lookup
        } else if self.parse_keyword("VECTOR") {
            IndexKind::Vector
        } else if ["FULLTEXT", "BTREE"].iter().any(|k| self.peek_keyword(k)) {
            let what = format!("{} indexes", self.text(kind_span).to_ascii_uppercase());
            return Err(self.unsupported(&what, kind_span));
        } else {
            IndexKind::Range
        };
        self.expect_keyword("INDEX")?;
        if self.peek_keyword("ON") {
            return Err(self.unsupported(
                "The removed index syntax CREATE INDEX ON :Label(property) (use CREATE INDEX \
                 FOR (n:Label) ON (n.property))",
                self.peek().span,
            ));
        }
        let (name, if_not_exists) = self.parse_schema_name_and_guard()?;
        self.expect_keyword("FOR")?;
        let target = if kind == IndexKind::Lookup {
            self.parse_lookup_target()?
        } else {
            let entity = self.parse_schema_entity()?;
            self.expect_keyword("ON")?;
            // Neo4j's vector index examples (and the OGMs that follow them) write the property
            // without parentheses: `ON n.embedding`. Both forms are read for every kind.
            let parenthesised = self.consume(&TokenKind::LParen);
            let mut properties = vec![self.parse_entity_property(&entity.variable)?];
            while self.consume(&TokenKind::Comma) {
                properties.push(self.parse_entity_property(&entity.variable)?);
            }
            if parenthesised {
                self.expect(&TokenKind::RParen)?;
            }
            IndexTarget::Properties { entity, properties }
        };
        let mut with_properties = Vec::new();
        if let (IndexKind::Vector, IndexTarget::Properties { entity, .. }) = (kind, &target) {
            // Cypher 25's filterable properties: `WITH [n.a, n.b]`.
            if self.parse_keyword("WITH") {
                self.expect(&TokenKind::LBracket)?;
                loop {
                    with_properties.push(self.parse_entity_property(&entity.variable)?);
                    if !self.consume(&TokenKind::Comma) {
                        break;
                    }
                }
                self.expect(&TokenKind::RBracket)?;
            }
        }
        let options = self.parse_options()?;
        Ok(SchemaCommand::CreateIndex(CreateIndex {
            kind,
            name,
            if_not_exists,
            target,
            with_properties,
            options,
        }))
    }

    /// `[name | $param] [IF NOT EXISTS]`
    pub(super) fn parse_schema_name_and_guard(&mut self) -> Result<(Option<SchemaName>, bool)> {
        let name = if self.peek_keyword("IF") || self.peek_keyword("FOR") {
            None
        } else {
            Some(self.parse_schema_name("a name, a parameter, 'IF NOT EXISTS' or 'FOR'")?)
        };
        let if_not_exists = self.parse_keywords(&["IF", "NOT", "EXISTS"]);
        Ok((name, if_not_exists))
    }

    /// An index or constraint name, or a parameter holding one (`$name`).
    fn parse_schema_name(&mut self, what: &str) -> Result<SchemaName> {
        let token = self.peek().clone();
        if let TokenKind::Parameter(name) = token.kind {
            self.advance();
            return Ok(SchemaName::Parameter(Ident::with_span(name, token.span)));
        }
        Ok(SchemaName::Literal(self.parse_name(what)?))
    }

    /// `(n:Label)` or `()-[r:TYPE]-()` (any direction).
    fn parse_schema_entity(&mut self) -> Result<SchemaEntity> {
        self.expect(&TokenKind::LParen)?;
        if self.consume(&TokenKind::RParen) {
            self.consume(&TokenKind::Lt);
            self.expect(&TokenKind::Minus)?;
            self.expect(&TokenKind::LBracket)?;
            let variable = self.parse_variable()?;
            self.expect(&TokenKind::Colon)?;
            let label = self.parse_name("a relationship type name")?;
            self.expect(&TokenKind::RBracket)?;
            self.expect(&TokenKind::Minus)?;
            self.consume(&TokenKind::Gt);
            self.expect(&TokenKind::LParen)?;
            self.expect(&TokenKind::RParen)?;
            return Ok(SchemaEntity {
                variable,
                relationship: true,
                label,
            });
        }
        let variable = self.parse_variable()?;
        self.expect(&TokenKind::Colon)?;
        let label = self.parse_name("a label name")?;
        self.expect(&TokenKind::RParen)?;
        Ok(SchemaEntity {
            variable,
            relationship: false,
            label,
        })
    }

    /// `FOR (n) ON EACH labels(n)` or `FOR ()-[r]-() ON EACH type(r)`.
    fn parse_lookup_target(&mut self) -> Result<IndexTarget> {
        self.expect(&TokenKind::LParen)?;
        let (variable, relationship) = if self.consume(&TokenKind::RParen) {
            self.consume(&TokenKind::Lt);
            self.expect(&TokenKind::Minus)?;
            self.expect(&TokenKind::LBracket)?;
            let variable = self.parse_variable()?;
            self.expect(&TokenKind::RBracket)?;
            self.expect(&TokenKind::Minus)?;
            self.consume(&TokenKind::Gt);
            self.expect(&TokenKind::LParen)?;
            self.expect(&TokenKind::RParen)?;
            (variable, true)
        } else {
            let variable = self.parse_variable()?;
            self.expect(&TokenKind::RParen)?;
            (variable, false)
        };
        self.expect_keyword("ON")?;
        self.expect_keyword("EACH")?;
        let function = if relationship { "type" } else { "labels" };
        self.expect_keyword(function)?;
        self.expect(&TokenKind::LParen)?;
        let argument = self.parse_variable()?;
        self.check_same_variable(&variable, &argument)?;
        self.expect(&TokenKind::RParen)?;
        Ok(IndexTarget::Lookup {
            variable,
            relationship,
        })
    }

    /// `n.property` where `n` must be the command's entity variable.
    pub(super) fn parse_entity_property(&mut self, variable: &Ident) -> Result<Ident> {
        let used = self.parse_variable()?;
        self.check_same_variable(variable, &used)?;
        self.expect(&TokenKind::Dot)?;
        self.parse_name("a property key name")
    }

    fn check_same_variable(&self, expected: &Ident, used: &Ident) -> Result<()> {
        if expected.name == used.name {
            return Ok(());
        }
        Err(self.error(
            Detail::UndefinedVariable,
            format!("Variable `{}` not defined", used.name),
            used.span,
        ))
    }

    pub(super) fn parse_options(&mut self) -> Result<Option<Expr>> {
        if !self.parse_keyword("OPTIONS") {
            return Ok(None);
        }
        let start = self.start();
        let entries = self.parse_map_entries()?;
        Ok(Some(Expr::new(
            ExprKind::Map(entries),
            self.span_from(start),
        )))
    }

    fn parse_create_constraint(&mut self) -> Result<SchemaCommand> {
        if self.peek_keyword("ON") {
            return Err(self.unsupported(
                "The removed constraint syntax ON ... ASSERT (use FOR ... REQUIRE)",
                self.peek().span,
            ));
        }
        let (name, if_not_exists) = self.parse_schema_name_and_guard()?;
        self.expect_keyword("FOR")?;
        let entity = self.parse_schema_entity()?;
        self.expect_keyword("REQUIRE")?;
        let mut properties = Vec::new();
        if self.consume(&TokenKind::LParen) {
            properties.push(self.parse_entity_property(&entity.variable)?);
            while self.consume(&TokenKind::Comma) {
                properties.push(self.parse_entity_property(&entity.variable)?);
            }
            self.expect(&TokenKind::RParen)?;
        } else {
            properties.push(self.parse_entity_property(&entity.variable)?);
        }
        self.expect_keyword("IS")?;
        let mut property_type = None;
        let kind = if self.consume(&TokenKind::DoubleColon) || self.parse_keyword("TYPED") {
            property_type = Some(self.parse_cypher_type()?);
            ConstraintKind::Typed
        } else if self.parse_keyword("UNIQUE") {
            ConstraintKind::Unique
        } else if self.parse_keywords(&["NOT", "NULL"]) {
            ConstraintKind::NotNull
        } else if self.parse_keyword("KEY") {
            ConstraintKind::Key
        } else if self.parse_keyword("NODE")
            || self.parse_keyword("RELATIONSHIP")
            || self.parse_keyword("REL")
        {
            if self.parse_keyword("KEY") {
                ConstraintKind::Key
            } else if self.parse_keyword("UNIQUE") {
                ConstraintKind::Unique
            } else {
                return Err(self.expected("'KEY' or 'UNIQUE'"));
            }
        } else {
            return Err(self.expected(
                "'UNIQUE', 'NOT NULL', 'NODE KEY', 'RELATIONSHIP KEY', '::' or 'TYPED'",
            ));
        };
        let options = self.parse_options()?;
        Ok(SchemaCommand::CreateConstraint(CreateConstraint {
            name,
            if_not_exists,
            entity,
            properties,
            kind,
            property_type,
            options,
        }))
    }

    pub(crate) fn parse_drop_schema(&mut self) -> Result<SchemaCommand> {
        let drop_span = self.expect_keyword("DROP")?;
        let index = if self.parse_keyword("INDEX") {
            true
        } else if self.parse_keyword("CONSTRAINT") {
            false
        } else {
            let what = format!("DROP {}", self.text(self.peek().span).to_ascii_uppercase());
            return Err(self.unsupported(what.trim(), drop_span.to(self.peek().span)));
        };
        if self.peek_keyword("ON") {
            return Err(self.unsupported(
                "Dropping an index or constraint by its schema (drop it by name)",
                self.peek().span,
            ));
        }
        let name = self.parse_schema_name("an index or constraint name or a parameter")?;
        let if_exists = self.parse_keywords(&["IF", "EXISTS"]);
        Ok(if index {
            SchemaCommand::DropIndex { name, if_exists }
        } else {
            SchemaCommand::DropConstraint { name, if_exists }
        })
    }

    pub(crate) fn parse_show(&mut self) -> Result<ShowCommand> {
        self.expect_keyword("SHOW")?;
        let span = self.peek().span;
        let kind = if let Some(kind) = self.parse_show_admin()? {
            kind
        } else if let Some(kind) = self.parse_show_index_type() {
            if !(self.parse_keyword("INDEXES") || self.parse_keyword("INDEX")) {
                return Err(self.expected("'INDEXES'"));
            }
            ShowKind::Indexes(kind)
        } else if self.parse_keyword("INDEXES") || self.parse_keyword("INDEX") {
            ShowKind::Indexes(ShowIndexType::All)
        } else if self.parse_keyword("TRANSACTIONS") || self.parse_keyword("TRANSACTION") {
            ShowKind::Transactions(self.parse_transaction_ids()?)
        } else if self.parse_keyword("PROCEDURES") || self.parse_keyword("PROCEDURE") {
            ShowKind::Procedures
        } else if self.parse_keyword("FUNCTIONS") || self.parse_keyword("FUNCTION") {
            ShowKind::Functions
        } else if self.parse_keyword("DATABASES") || self.parse_keyword("DATABASE") {
            let named = !(matches!(self.peek_kind(), TokenKind::Eof | TokenKind::Semicolon)
                || self.peek_keyword("YIELD")
                || self.peek_keyword("WHERE"));
            if named {
                ShowKind::Databases(ShowDatabases::Named(
                    self.parse_dotted_name("a database name")?,
                ))
            } else {
                ShowKind::Databases(ShowDatabases::All)
            }
        } else if self.parse_keyword("ALIASES") || self.parse_keyword("ALIAS") {
            ShowKind::Aliases(self.parse_show_aliases()?)
        } else if self.peek_keyword("DEFAULT") || self.peek_keyword("HOME") {
            let which = if self.parse_keyword("DEFAULT") {
                ShowDatabases::Default
            } else {
                self.expect_keyword("HOME")?;
                ShowDatabases::Home
            };
            if !self.parse_keyword("DATABASE") {
                return Err(self.expected("'DATABASE'"));
            }
            ShowKind::Databases(which)
        } else if self.parse_keyword("SETTINGS") || self.parse_keyword("SETTING") {
            ShowKind::Settings(self.parse_transaction_ids()?)
        } else if self.peek_keyword("CURRENT") && self.peek_nth_keyword(1, "USER") {
            self.expect_keyword("CURRENT")?;
            self.expect_keyword("USER")?;
            ShowKind::CurrentUser
        } else if self.parse_keyword("SERVERS") || self.parse_keyword("SERVER") {
            ShowKind::Servers
        } else {
            let kind = self.parse_show_constraint_type()?;
            if !(self.parse_keyword("CONSTRAINTS") || self.parse_keyword("CONSTRAINT")) {
                let what = format!("SHOW {}", self.text(span).to_ascii_uppercase());
                return Err(self.unsupported(what.trim(), span));
            }
            ShowKind::Constraints(kind)
        };
        let filter = self.parse_show_filter()?;
        Ok(ShowCommand { kind, filter })
    }

    fn parse_show_index_type(&mut self) -> Option<ShowIndexType> {
        let kinds = [
            ("ALL", ShowIndexType::All),
            ("RANGE", ShowIndexType::Range),
            ("TEXT", ShowIndexType::Text),
            ("POINT", ShowIndexType::Point),
            ("LOOKUP", ShowIndexType::Lookup),
            ("FULLTEXT", ShowIndexType::Fulltext),
            ("VECTOR", ShowIndexType::Vector),
        ];
        for (keyword, kind) in kinds {
            let index_next =
                self.peek_nth_keyword(1, "INDEXES") || self.peek_nth_keyword(1, "INDEX");
            if index_next && self.parse_keyword(keyword) {
                return Some(kind);
            }
        }
        None
    }

    /// Neo4j's constraint kinds before `CONSTRAINTS`: `ALL`, or `[NODE | REL[ATIONSHIP]]`
    /// then `UNIQUE[NESS]`, `KEY`, `[PROPERTY] EXIST[ENCE]` or `PROPERTY TYPE`. An entity
    /// alone (`SHOW NODE CONSTRAINTS`) names no kind, and Neo4j refuses it.
    fn parse_show_constraint_type(&mut self) -> Result<ShowConstraintType> {
        let mut kind = ShowConstraintType::default();
        if self.parse_keyword("ALL") {
            return Ok(kind);
        }
        if self.parse_keyword("NODE") {
            kind.relationship = Some(false);
        } else if self.parse_keyword("RELATIONSHIP") || self.parse_keyword("REL") {
            kind.relationship = Some(true);
        }
        if self.parse_keyword("UNIQUE") || self.parse_keyword("UNIQUENESS") {
            kind.kind = Some(ConstraintKind::Unique);
        } else if self.parse_keyword("KEY") {
            kind.kind = Some(ConstraintKind::Key);
        } else {
            let property = self.parse_keyword("PROPERTY");
            if self.parse_keyword("EXISTENCE") || self.parse_keyword("EXIST") {
                kind.kind = Some(ConstraintKind::NotNull);
            } else if (property || self.peek_nth_keyword(1, "CONSTRAINTS"))
                && self.parse_keyword("TYPE")
            {
                kind.kind = Some(ConstraintKind::Typed);
            } else if property || kind.relationship.is_some() {
                return Err(self.expected("UNIQUE, KEY, EXISTENCE or PROPERTY TYPE"));
            }
        }
        Ok(kind)
    }

    /// Transaction ids: nothing, or comma-separated expressions (usually strings or a
    /// parameter holding a list).
    /// Comma-separated expressions up to `YIELD`, `WHERE` or the end: the ids of
    /// `SHOW`/`TERMINATE TRANSACTIONS`, the names of `SHOW SETTINGS`.
    fn parse_transaction_ids(&mut self) -> Result<Vec<Expr>> {
        let mut ids = Vec::new();
        let ends = |p: &Self| {
            matches!(p.peek_kind(), TokenKind::Eof | TokenKind::Semicolon)
                || p.peek_keyword("YIELD")
                || p.peek_keyword("WHERE")
        };
        if ends(self) {
            return Ok(ids);
        }
        ids.push(self.parse_expr()?);
        while self.consume(&TokenKind::Comma) {
            ids.push(self.parse_expr()?);
        }
        Ok(ids)
    }

    fn parse_show_filter(&mut self) -> Result<Option<ShowFilter>> {
        if self.parse_keyword("WHERE") {
            return Ok(Some(ShowFilter::Where(self.parse_expr()?)));
        }
        if !self.parse_keyword("YIELD") {
            return Ok(None);
        }
        let mut projection = Projection {
            distinct: false,
            star: false,
            items: Vec::new(),
            order_by: Vec::new(),
            skip: None,
            limit: None,
        };
        if self.consume(&TokenKind::Star) {
            projection.star = true;
        } else {
            loop {
                let variable = self.parse_variable()?;
                let alias = if self.parse_keyword("AS") {
                    Some(self.parse_variable()?)
                } else {
                    None
                };
                let span = variable.span;
                let text = if alias.is_some() {
                    String::new()
                } else {
                    self.text(span).to_string()
                };
                projection.items.push(ProjectionItem {
                    expr: Expr::new(ExprKind::Variable(variable), span),
                    alias,
                    text,
                    span: self.span_from(span.start),
                });
                if !self.consume(&TokenKind::Comma) {
                    break;
                }
            }
        }
        self.parse_order_skip_limit(&mut projection)?;
        let filter = if self.parse_keyword("WHERE") {
            Some(self.parse_expr()?)
        } else {
            None
        };
        let returns = if self.parse_keyword("RETURN") {
            Some(Return {
                projection: self.parse_projection()?,
            })
        } else {
            None
        };
        Ok(Some(ShowFilter::Yield {
            projection,
            filter,
            returns,
        }))
    }

    pub(crate) fn parse_terminate(&mut self) -> Result<TerminateTransactions> {
        self.expect_keyword("TERMINATE")?;
        if !(self.parse_keyword("TRANSACTIONS") || self.parse_keyword("TRANSACTION")) {
            return Err(self.expected("'TRANSACTIONS'"));
        }
        let ids = self.parse_transaction_ids()?;
        if ids.is_empty() {
            return Err(self.expected("a transaction id"));
        }
        let filter = self.parse_show_filter()?;
        Ok(TerminateTransactions { ids, filter })
    }
}
