//! The recursive-descent parser: tokens to [`Statement`].
//!
//! The parser holds the tokens, an index into them and a depth counter. Every construct that
//! can nest (expressions, subqueries, `FOREACH`) goes through [`Parser::nested`], and operators
//! that wrap the expression before them (postfix lookups, a change of precedence level) count
//! towards the same budget, so no input can build a tree deeper than about
//! `2 * parse_depth_max` or overflow the stack while being parsed, printed, analysed or dropped.
//! A run of binary operators of one level (`a AND b AND ...`, `1 + 2 - 3 + ...`) is a flat
//! [`crate::ast::ExprKind::Chain`] and costs one level however long it is.

mod admin;
mod clause;
mod database;
mod expr;
mod fulltext;
mod labels;
mod pattern;
mod privilege;
mod schema;
mod search;

use std::collections::HashSet;

use crate::ast::{
    Clause, CypherPrefix, Expr, Ident, QueryMode, Statement, StatementKind, UseGraph,
};
use crate::error::{Detail, Error, ErrorKind, Status};
use crate::lexer;
use crate::span::Span;
use crate::token::{Token, TokenKind};

/// Limits on what the parser accepts.
#[derive(Clone, Debug)]
pub struct ParseOptions {
    /// Deepest nesting of expressions, patterns and subqueries; deeper input is a
    /// `SyntaxError` (`NestingTooDeep`), never a stack overflow. The default leaves room on a
    /// 2 MiB thread stack in an unoptimised build.
    pub parse_depth_max: usize,
    /// Longest query text accepted (`QueryTooLarge` beyond).
    pub query_bytes_max: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            parse_depth_max: 200,
            query_bytes_max: 4 << 20,
        }
    }
}

/// Parses one statement with the default limits.
pub fn parse(query: &str) -> std::result::Result<Statement, Error> {
    parse_with(query, &ParseOptions::default())
}

/// Parses one statement.
pub fn parse_with(query: &str, options: &ParseOptions) -> std::result::Result<Statement, Error> {
    if query.len() > options.query_bytes_max {
        return Err(Error::syntax(
            Detail::QueryTooLarge,
            format!(
                "Query text of {} bytes exceeds the limit of {} bytes",
                query.len(),
                options.query_bytes_max
            ),
            Span::default(),
            query,
        ));
    }
    let tokens = lexer::tokenize(query)?;
    let mut parser = Parser {
        source: query,
        tokens,
        index: 0,
        depth: 0,
        depth_max: options.parse_depth_max,
        not_a_pattern: HashSet::new(),
        speculating: 0,
        bar_ends_filter: 0,
        labels_after_is: false,
        before_clause: None,
        abandoned_too_deep: None,
    };
    parser.parse_statement().map_err(|error| {
        // A reading abandoned at the nesting limit explains the failure better than the
        // reading tried after it.
        match parser.abandoned_too_deep.take() {
            Some((message, span)) if error.kind.detail != Detail::NestingTooDeep => {
                Error::syntax(Detail::NestingTooDeep, message, span, query)
            }
            _ => error,
        }
    })
}

pub(crate) type Result<T> = std::result::Result<T, Error>;

/// The language versions `CYPHER <n>` may name: Neo4j 5's `5`, and `25`, whose additions
/// Quiver implements the parts of that it parses.
const CYPHER_VERSIONS: [u64; 2] = [5, 25];

/// The query options Neo4j 5 accepts after `CYPHER`, lower case, with their valid values (an
/// empty list takes any value). Quiver has one planner and one runtime, so every valid
/// choice is accepted and ignored.
const CYPHER_OPTIONS: &[(&str, &[&str])] = &[
    ("planner", &["default", "cost", "idp", "dp"]),
    ("runtime", &["default", "slotted", "pipelined", "parallel"]),
    ("expressionengine", &["default", "interpreted", "compiled"]),
    ("operatorengine", &["default", "interpreted", "compiled"]),
    (
        "interpretedpipesfallback",
        &["default", "disabled", "whitelisted_plans_only", "all"],
    ),
    ("replan", &["default", "force", "skip"]),
    ("connectcomponentsplanner", &["default", "greedy", "idp"]),
    ("updatestrategy", &["default", "eager"]),
    ("eageranalyzer", &["default", "ir", "lp"]),
    (
        "inferschemaparts",
        &["default", "off", "most_selective_label"],
    ),
    (
        "statefulshortestplanningmode",
        &[
            "default",
            "into_only",
            "all_if_possible",
            "cardinality_heuristic",
        ],
    ),
    ("debug", &[]),
];

/// How much of `parse_depth_max` each kind of nesting spends, relative to one expression
/// level. Measured: in an unoptimised build a nested subquery takes about eight times the
/// stack of a parenthesised expression (through parse, print, analysis and drop).
pub(crate) mod cost {
    pub const QUERY: usize = 8;
    pub const FOREACH: usize = 6;
    pub const PATTERN: usize = 2;
}

pub(crate) struct Parser<'a> {
    source: &'a str,
    /// Always ends with `Eof`, and `index` never moves past it.
    tokens: Vec<Token>,
    index: usize,
    depth: usize,
    depth_max: usize,
    /// Token positions where reading a pattern (predicate or comprehension) failed, so that
    /// backtracking over nested parentheses stays polynomial.
    not_a_pattern: HashSet<(usize, u8)>,
    /// Above zero while a speculative parse runs: its errors are thrown away, so they skip
    /// the position and excerpt work (which scans the query text).
    speculating: usize,
    /// Above zero while a comprehension's filter is read: a `|` at the top level of a label
    /// expression or type there ends the filter (see `labels`).
    bar_ends_filter: usize,
    /// Whether the label expression being read follows `IS` (see `labels`).
    labels_after_is: bool,
    /// The clause a `MATCH ... SEARCH` is read into, to run before the `MATCH` just read
    /// (see `search`).
    before_clause: Option<Clause>,
    /// The nesting-limit error of a speculative reading [`Parser::maybe`] abandoned, if any:
    /// a reading tried instead may fail for another reason, but the query is refused for its
    /// depth, so that is the error reported when the statement fails.
    abandoned_too_deep: Option<(String, Span)>,
}

impl Parser<'_> {
    // ----- tokens -----

    fn peek(&self) -> &Token {
        let last = self.tokens.len() - 1;
        &self.tokens[self.index.min(last)]
    }

    fn peek_kind(&self) -> &TokenKind {
        &self.peek().kind
    }

    fn peek_nth(&self, n: usize) -> &Token {
        let last = self.tokens.len() - 1;
        &self.tokens[(self.index + n).min(last)]
    }

    fn at_eof(&self) -> bool {
        matches!(self.peek_kind(), TokenKind::Eof)
    }

    /// Consumes the current token (never the final `Eof`) and returns its span.
    fn advance(&mut self) -> Span {
        let span = self.peek().span;
        if self.index < self.tokens.len() - 1 {
            self.index += 1;
        }
        span
    }

    /// Where the current token starts.
    fn start(&self) -> u32 {
        self.peek().span.start
    }

    /// The end of the last consumed token.
    fn prev_end(&self) -> u32 {
        match self.index.checked_sub(1) {
            Some(i) => self.tokens[i].span.end,
            None => 0,
        }
    }

    /// From `start` to the end of the last consumed token.
    fn span_from(&self, start: u32) -> Span {
        Span::new(start, self.prev_end().max(start))
    }

    /// What `parse` reads after `keyword`, or `None` when `keyword` does not come next.
    fn parse_after_keyword<T>(
        &mut self,
        keyword: &str,
        parse: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<Option<T>> {
        if self.parse_keyword(keyword) {
            parse(self).map(Some)
        } else {
            Ok(None)
        }
    }

    /// An optional `WHERE predicate`.
    fn parse_where(&mut self) -> Result<Option<Expr>> {
        self.parse_after_keyword("WHERE", Self::parse_expr)
    }

    fn text(&self, span: Span) -> &str {
        span.text(self.source)
    }

    fn is_word(&self, token: &Token, keyword: &str) -> bool {
        token.kind == TokenKind::Word && self.text(token.span).eq_ignore_ascii_case(keyword)
    }

    fn peek_keyword(&self, keyword: &str) -> bool {
        self.is_word(self.peek(), keyword)
    }

    fn peek_nth_keyword(&self, n: usize, keyword: &str) -> bool {
        self.is_word(self.peek_nth(n), keyword)
    }

    /// Consumes `keyword` if it is next.
    fn parse_keyword(&mut self, keyword: &str) -> bool {
        if self.peek_keyword(keyword) {
            self.advance();
            true
        } else {
            false
        }
    }

    /// Consumes all of `keywords` if they are all next, else nothing.
    fn parse_keywords(&mut self, keywords: &[&str]) -> bool {
        let all = keywords
            .iter()
            .enumerate()
            .all(|(i, k)| self.peek_nth_keyword(i, k));
        if all {
            for _ in keywords {
                self.advance();
            }
        }
        all
    }

    fn expect_keyword(&mut self, keyword: &str) -> Result<Span> {
        if self.peek_keyword(keyword) {
            Ok(self.advance())
        } else {
            Err(self.expected(&format!("'{keyword}'")))
        }
    }

    fn peek_is(&self, kind: &TokenKind) -> bool {
        self.peek_kind() == kind
    }

    /// Consumes a punctuation token of `kind` if it is next.
    fn consume(&mut self, kind: &TokenKind) -> bool {
        if self.peek_is(kind) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, kind: &TokenKind) -> Result<Span> {
        if self.peek_is(kind) {
            Ok(self.advance())
        } else {
            Err(self.expected(&format!("'{kind}'")))
        }
    }

    // ----- errors -----

    /// `Invalid input 'X': expected Y` at the current token.
    fn expected(&self, what: &str) -> Error {
        let token = self.peek();
        if self.speculating > 0 {
            // Thrown away by `maybe`: skip the formatting.
            return Error::syntax(Detail::UnexpectedSyntax, String::new(), token.span, "");
        }
        let found = match token.kind {
            TokenKind::Eof => String::new(),
            _ => self.text(token.span).chars().take(40).collect(),
        };
        self.error(
            Detail::UnexpectedSyntax,
            format!("Invalid input '{found}': expected {what}"),
            token.span,
        )
    }

    fn error(&self, detail: Detail, message: impl Into<String>, span: Span) -> Error {
        let source = if self.speculating > 0 {
            ""
        } else {
            self.source
        };
        Error::syntax(detail, message, span, source)
    }

    /// A construct Quiver recognises but does not implement.
    fn unsupported(&self, what: &str, span: Span) -> Error {
        self.error(
            Detail::UnsupportedFeature,
            format!("{what} is not supported"),
            span,
        )
    }

    // ----- nesting and backtracking -----

    /// Runs `f` one level deeper, failing cleanly past `parse_depth_max`.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.nested_cost(1, f)
    }

    /// Runs `f` `cost` levels deeper. Constructs whose parsing (and later analysis) takes
    /// much more stack per level than an expression, such as subqueries, spend more of the
    /// budget, so that the limit bounds stack use rather than a count.
    fn nested_cost<T>(&mut self, cost: usize, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.check_depth(cost)?;
        self.depth += cost;
        let result = f(self);
        self.depth -= cost;
        result
    }

    /// Fails when `extra` more levels would exceed the limit.
    fn check_depth(&self, extra: usize) -> Result<()> {
        if self.depth + extra > self.depth_max {
            return Err(self.error(
                Detail::NestingTooDeep,
                format!(
                    "Query is nested too deeply: more than {} levels",
                    self.depth_max
                ),
                self.peek().span,
            ));
        }
        Ok(())
    }

    /// Runs `f`; on failure rewinds to where it started and returns `None`. A failure at the
    /// nesting limit is remembered (see `abandoned_too_deep`), so a statement that then fails
    /// anyway reports its depth.
    fn maybe<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Option<T> {
        let index = self.index;
        let depth = self.depth;
        self.speculating += 1;
        let result = f(self);
        self.speculating -= 1;
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                if error.kind.detail == Detail::NestingTooDeep && self.abandoned_too_deep.is_none()
                {
                    self.abandoned_too_deep = Some((error.message, error.span));
                }
                self.index = index;
                self.depth = depth;
                None
            }
        }
    }

    // ----- names -----

    /// Any name: labels, types, keys and function names may be keywords.
    fn parse_name(&mut self, what: &str) -> Result<Ident> {
        let token = self.peek().clone();
        match token.kind {
            TokenKind::Word => {
                self.advance();
                Ok(Ident::with_span(self.text(token.span), token.span))
            }
            TokenKind::QuotedName(name) => {
                self.advance();
                Ok(Ident::with_span(name, token.span))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Whether a name is next. Any word may name a variable, as in Neo4j 5 (see
    /// [`crate::keywords`]); the callers decide by what follows where a keyword could stand too.
    fn peek_variable(&self) -> bool {
        matches!(self.peek_kind(), TokenKind::Word | TokenKind::QuotedName(_))
    }

    /// A name after `AS` (an alias, an UNWIND or LOAD CSV variable): any word, since nothing
    /// else can stand there (`RETURN x AS end`).
    fn parse_alias(&mut self) -> Result<Ident> {
        self.parse_name("a variable name")
    }

    /// A variable name where only a name can stand: any word, or a quoted name.
    fn parse_variable(&mut self) -> Result<Ident> {
        self.parse_name("a variable name")
    }

    // ----- statements -----

    fn parse_statement(&mut self) -> Result<Statement> {
        let start = self.start();
        let mut prefix = CypherPrefix::default();
        let mut mode = QueryMode::Normal;
        // `CYPHER ...` and `EXPLAIN`/`PROFILE` may come in either order, as in Neo4j.
        loop {
            if self.peek_keyword("CYPHER") {
                self.advance();
                self.parse_cypher_prefix(&mut prefix)?;
                continue;
            }
            let next = if self.peek_keyword("EXPLAIN") {
                QueryMode::Explain
            } else if self.peek_keyword("PROFILE") {
                QueryMode::Profile
            } else {
                break;
            };
            if mode != QueryMode::Normal {
                return Err(self.error(
                    Detail::UnexpectedSyntax,
                    "Can't mix PROFILE and EXPLAIN, or give either twice",
                    self.peek().span,
                ));
            }
            self.advance();
            mode = next;
        }
        let graph = self.parse_command_use()?;
        let kind = if self.peek_privilege() {
            StatementKind::Admin(self.parse_privilege_command()?)
        } else if self.peek_admin() {
            StatementKind::Admin(self.parse_admin()?)
        } else if self.peek_database() {
            StatementKind::Database(self.parse_database_command()?)
        } else if self.peek_keyword("CREATE") && self.peek_schema_after_create() {
            StatementKind::Schema(self.parse_create_schema()?)
        } else if self.peek_keyword("DROP") {
            StatementKind::Schema(self.parse_drop_schema()?)
        } else if self.peek_keyword("SHOW") {
            StatementKind::Show(self.parse_show()?)
        } else if self.peek_keyword("TERMINATE") {
            StatementKind::TerminateTransactions(self.parse_terminate()?)
        } else {
            self.reject_unsupported_statement()?;
            StatementKind::Query(self.parse_query()?)
        };
        let span = self.span_from(start);
        self.consume(&TokenKind::Semicolon);
        if !self.at_eof() {
            if self.peek_variable() || self.peek_is(&TokenKind::Word) {
                return Err(self.error(
                    Detail::UnexpectedSyntax,
                    "Expected exactly one statement per query, but got more",
                    self.peek().span,
                ));
            }
            return Err(self.expected("end of input"));
        }
        Ok(Statement {
            prefix,
            mode,
            graph,
            kind,
            span,
        })
    }

    /// `USE name` before a command, which it then names (`USE system SHOW USERS`, `USE movies
    /// SHOW INDEXES`); `None`, with nothing consumed, before a query, whose `USE` is a clause.
    fn parse_command_use(&mut self) -> Result<Option<UseGraph>> {
        if !self.peek_keyword("USE") {
            return Ok(None);
        }
        let at = self.index;
        self.advance();
        let graph = self.parse_use()?;
        if self.peek_command() {
            Ok(Some(graph))
        } else {
            self.index = at;
            Ok(None)
        }
    }

    /// Whether a command (not a query) starts here.
    fn peek_command(&mut self) -> bool {
        self.peek_privilege()
            || self.peek_admin()
            || self.peek_database()
            || (self.peek_keyword("CREATE") && self.peek_schema_after_create())
            || self.peek_keyword("DROP")
            || self.peek_keyword("SHOW")
            || self.peek_keyword("TERMINATE")
    }

    /// After `CYPHER`: an optional version (`5`, `25`) and `option=value` pairs. A version
    /// other than those fails as a syntax error; an option Neo4j does not know, or a value it
    /// does not accept for that option, fails as an argument error naming it, as Neo4j's
    /// pre-parser does. Valid options are kept and change nothing.
    fn parse_cypher_prefix(&mut self, prefix: &mut CypherPrefix) -> Result<()> {
        let token = self.peek().clone();
        match token.kind {
            TokenKind::Integer(version) => {
                self.advance();
                if !CYPHER_VERSIONS.contains(&version) {
                    return Err(self.error(
                        Detail::InvalidArgumentValue,
                        format!(
                            "Unsupported Cypher version '{version}': Quiver speaks Cypher 5 \
                             (also accepted as 25)"
                        ),
                        token.span,
                    ));
                }
                self.set_version(prefix, version as u32, token.span)?;
            }
            TokenKind::Float(_) => {
                self.advance();
                return Err(self.error(
                    Detail::InvalidArgumentValue,
                    format!(
                        "Unsupported Cypher version '{}': Quiver speaks Cypher 5 (also accepted \
                         as 25)",
                        self.text(token.span)
                    ),
                    token.span,
                ));
            }
            _ => {}
        }
        while self.peek_is(&TokenKind::Word) && self.peek_nth(1).kind == TokenKind::Eq {
            let name_span = self.advance();
            let name = self.text(name_span).to_ascii_lowercase();
            self.advance();
            let value_token = self.peek().clone();
            let value = match value_token.kind {
                TokenKind::Word => self.text(value_token.span).to_ascii_lowercase(),
                TokenKind::Integer(v) => v.to_string(),
                _ => return Err(self.expected("an option value")),
            };
            self.advance();
            let Some((_, valid)) = CYPHER_OPTIONS.iter().find(|(n, _)| *n == name) else {
                return Err(self.argument_error(
                    format!("Unsupported options: {}", self.text(name_span)),
                    name_span,
                ));
            };
            if !valid.is_empty() && !valid.contains(&value.as_str()) {
                return Err(self.argument_error(
                    format!(
                        "{} is not a valid option for {}. Valid options are: {}",
                        self.text(value_token.span),
                        self.text(name_span),
                        valid.join(", ")
                    ),
                    value_token.span,
                ));
            }
            if let Some((_, old)) = prefix.options.iter().find(|(n, _)| *n == name) {
                if *old != value {
                    return Err(self.argument_error(
                        format!(
                            "Can't specify multiple conflicting values for {}",
                            self.text(name_span)
                        ),
                        name_span,
                    ));
                }
                continue;
            }
            prefix.options.push((name, value));
        }
        Ok(())
    }

    fn set_version(&self, prefix: &mut CypherPrefix, version: u32, span: Span) -> Result<()> {
        match prefix.version {
            Some(old) if old != version => {
                Err(self.argument_error("Can't specify multiple conflicting Cypher versions", span))
            }
            _ => {
                prefix.version = Some(version);
                Ok(())
            }
        }
    }

    fn argument_error(&self, message: impl Into<String>, span: Span) -> Error {
        let kind = ErrorKind {
            status: Status::ArgumentError,
            detail: Detail::InvalidArgumentValue,
        };
        Error::new(kind, message, span, self.source)
    }

    /// Administration statements Quiver does not implement fail here, by name.
    fn reject_unsupported_statement(&self) -> Result<()> {
        let token = self.peek();
        for (keywords, what) in [
            (
                &["CREATE", "COMPOSITE", "DATABASE"][..],
                "CREATE COMPOSITE DATABASE",
            ),
            (&["CREATE", "OR", "REPLACE"][..], "CREATE OR REPLACE"),
            (&["ALTER"][..], "ALTER"),
        ] {
            let matches = keywords
                .iter()
                .enumerate()
                .all(|(i, k)| self.peek_nth_keyword(i, k));
            if matches {
                return Err(self.unsupported(what, token.span));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_ends_at_one_semicolon() {
        assert!(parse("RETURN 1;").is_ok());
        let error = parse("RETURN 1; RETURN 2").unwrap_err();
        assert_eq!(error.kind.detail, Detail::UnexpectedSyntax);
        assert!(error.message.contains("exactly one statement"));
    }

    #[test]
    fn explain_and_profile_prefix() {
        assert_eq!(parse("EXPLAIN RETURN 1").unwrap().mode, QueryMode::Explain);
        assert_eq!(parse("profile RETURN 1").unwrap().mode, QueryMode::Profile);
    }

    #[test]
    fn cypher_prefix_versions_and_options() {
        let statement = parse("CYPHER 5 MATCH (n) RETURN n").unwrap();
        assert_eq!(statement.prefix.version, Some(5));
        let statement = parse("cypher runtime=slotted planner=cost EXPLAIN RETURN 1").unwrap();
        assert_eq!(statement.mode, QueryMode::Explain);
        assert_eq!(statement.prefix.options.len(), 2);
        assert_eq!(
            parse("PROFILE CYPHER 25 RETURN 1").unwrap().mode,
            QueryMode::Profile
        );
        let error = parse("CYPHER 4.4 RETURN 1").unwrap_err();
        assert_eq!(error.kind.status, Status::SyntaxError);
        let error = parse("CYPHER foo=bar RETURN 1").unwrap_err();
        assert_eq!(error.kind.status, Status::ArgumentError);
        assert!(error.message.contains("foo"));
        let error = parse("CYPHER runtime=quick RETURN 1").unwrap_err();
        assert_eq!(error.kind.status, Status::ArgumentError);
        assert!(error.message.contains("quick"));
    }

    #[test]
    fn query_bytes_max_is_enforced() {
        let options = ParseOptions {
            query_bytes_max: 8,
            ..ParseOptions::default()
        };
        let error = parse_with("RETURN 12345", &options).unwrap_err();
        assert_eq!(error.kind.detail, Detail::QueryTooLarge);
    }

    #[test]
    fn unsupported_administration_is_named() {
        let error = parse("CREATE COMPOSITE DATABASE foo").unwrap_err();
        assert_eq!(error.kind.detail, Detail::UnsupportedFeature);
        assert!(error.message.contains("CREATE COMPOSITE DATABASE"));
        let error = parse("ALTER SERVER 'x' SET OPTIONS {}").unwrap_err();
        assert_eq!(error.kind.detail, Detail::UnsupportedFeature);
    }
}
