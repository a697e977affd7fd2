//! The abstract syntax tree of a Cypher statement.
//!
//! The tree is explicit: every operator, clause and option is an enum variant, never a string.
//! Every expression, pattern element and clause carries the [`Span`] of the text it came from.
//! Every type implements `Display`, printing canonical Cypher that parses back to an equal tree
//! (spans never take part in equality); the one exception to "canonical" is an unaliased
//! projection item, which prints the text as written because that text is its column name.
//!
//! Desugaring done by the parser, so consumers meet one form only:
//! - a chained comparison `a < b <= c` becomes `a < b AND b <= c`;
//! - a minus sign directly before a number literal folds into the literal (`-5` is
//!   `Literal::Integer(-5)`, which is how `-9223372036854775808` fits);
//! - `<-->` is an undirected relationship, like `--`;
//! - `*2..2` and `*2` are the same length range, as are `*` and `*..`;
//! - `OFFSET` is `SKIP`;
//! - GQL's `LET x = e` is `WITH *, e AS x`, `FILTER [WHERE] p` is `WITH * WHERE p`, and a
//!   standalone `ORDER BY`/`SKIP`/`LIMIT` is `WITH *` carrying them.

mod admin;
mod clause;
mod database;
mod expr;
mod pattern;
mod schema;
mod types;

use std::fmt;

pub use admin::*;
pub use clause::*;
pub use database::*;
pub use expr::*;
pub use pattern::*;
pub use schema::*;
pub use types::*;

use crate::keywords;
use crate::lexer::{is_ident_continue, is_ident_start};
pub use crate::span::Span;

/// A name as written: a variable, label, relationship type, property key, map key, function or
/// procedure name part. `name` is unquoted (backticks removed, doubled backticks undone).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

impl Ident {
    pub fn new(name: impl Into<String>) -> Self {
        Ident {
            name: name.into(),
            span: Span::default(),
        }
    }

    pub fn with_span(name: impl Into<String>, span: Span) -> Self {
        Ident {
            name: name.into(),
            span,
        }
    }

    /// Prints the name as a variable: quoted when it is not a plain name or is a reserved
    /// word. (`Display` prints it as a label or key, which only needs quoting for odd
    /// characters.)
    pub fn as_variable(&self) -> AsVariable<'_> {
        AsVariable(&self.name)
    }
}

impl fmt::Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_name(f, &self.name, false)
    }
}

/// Display adapter printing a name in variable position.
pub struct AsVariable<'a>(pub &'a str);

impl fmt::Display for AsVariable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_name(f, self.0, true)
    }
}

fn is_plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(is_ident_start) && chars.all(is_ident_continue)
}

fn write_name(f: &mut fmt::Formatter<'_>, name: &str, variable: bool) -> fmt::Result {
    if is_plain_name(name) && !(variable && keywords::quote_as_variable(name)) {
        f.write_str(name)
    } else {
        write!(f, "`{}`", name.replace('`', "``"))
    }
}

/// Writes `items` separated by `, `.
pub(crate) fn write_comma_separated<T: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    items: &[T],
) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

/// A whole statement: what a client sends in one request.
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    /// The `CYPHER ...` prefix: a language version and planner options.
    pub prefix: CypherPrefix,
    pub mode: QueryMode,
    /// `USE name` before a command (`USE system SHOW USERS`); a query keeps its `USE` as its
    /// first clause instead.
    pub graph: Option<UseGraph>,
    pub kind: StatementKind,
    pub span: Span,
}

/// `EXPLAIN` and `PROFILE` prefixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum QueryMode {
    #[default]
    Normal,
    Explain,
    Profile,
}

/// `CYPHER [5|25] [option=value ...]` before a statement. Quiver has one planner and one
/// runtime, so the options change nothing; they are kept (validated, lower-cased) so that a
/// query prints back as it was asked and EXPLAIN could report them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CypherPrefix {
    /// `5` or `25`, when given.
    pub version: Option<u32>,
    /// `(option, value)` in the order written, both lower case.
    pub options: Vec<(String, String)>,
}

impl CypherPrefix {
    pub fn is_empty(&self) -> bool {
        self.version.is_none() && self.options.is_empty()
    }
}

impl fmt::Display for CypherPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return Ok(());
        }
        f.write_str("CYPHER")?;
        if let Some(version) = self.version {
            write!(f, " {version}")?;
        }
        for (name, value) in &self.options {
            write!(f, " {name}={value}")?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum StatementKind {
    Query(Query),
    Schema(SchemaCommand),
    Show(ShowCommand),
    TerminateTransactions(TerminateTransactions),
    /// User and role administration (`CREATE USER`, `GRANT ROLE`, ...).
    Admin(AdminCommand),
    /// Database management (`CREATE DATABASE`, `STOP DATABASE`, `CREATE ALIAS`, ...).
    Database(DatabaseCommand),
}

/// A query: one or more single queries joined by `UNION` / `UNION ALL`.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub first: SingleQuery,
    pub unions: Vec<Union>,
    pub span: Span,
}

/// `UNION [ALL]` and the single query after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Union {
    pub all: bool,
    pub query: SingleQuery,
    pub span: Span,
}

/// A sequence of clauses.
#[derive(Clone, Debug, PartialEq)]
pub struct SingleQuery {
    pub clauses: Vec<Clause>,
    pub span: Span,
}

impl Query {
    /// The single queries in order, the first one included.
    pub fn parts(&self) -> impl Iterator<Item = &SingleQuery> {
        std::iter::once(&self.first).chain(self.unions.iter().map(|u| &u.query))
    }
}

impl fmt::Display for Statement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.prefix.is_empty() {
            write!(f, "{} ", self.prefix)?;
        }
        match self.mode {
            QueryMode::Normal => {}
            QueryMode::Explain => f.write_str("EXPLAIN ")?,
            QueryMode::Profile => f.write_str("PROFILE ")?,
        }
        if let Some(graph) = &self.graph {
            write!(f, "{graph} ")?;
        }
        match &self.kind {
            StatementKind::Query(query) => write!(f, "{query}"),
            StatementKind::Schema(command) => write!(f, "{command}"),
            StatementKind::Show(command) => write!(f, "{command}"),
            StatementKind::TerminateTransactions(command) => write!(f, "{command}"),
            StatementKind::Admin(command) => write!(f, "{command}"),
            StatementKind::Database(command) => write!(f, "{command}"),
        }
    }
}

impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.first)?;
        for union in &self.unions {
            f.write_str(if union.all { " UNION ALL " } else { " UNION " })?;
            write!(f, "{}", union.query)?;
        }
        Ok(())
    }
}

impl fmt::Display for SingleQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, clause) in self.clauses.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{clause}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_only_when_needed() {
        assert_eq!(Ident::new("abc").to_string(), "abc");
        assert_eq!(Ident::new("a b").to_string(), "`a b`");
        assert_eq!(Ident::new("a`b").to_string(), "`a``b`");
        assert_eq!(Ident::new("1a").to_string(), "`1a`");
        assert_eq!(Ident::new("").to_string(), "``");
        assert_eq!(Ident::new("MATCH").to_string(), "MATCH");
        assert_eq!(Ident::new("MATCH").as_variable().to_string(), "MATCH");
        assert_eq!(Ident::new("type").as_variable().to_string(), "type");
        assert_eq!(Ident::new("where").as_variable().to_string(), "`where`");
        assert_eq!(Ident::new("count").as_variable().to_string(), "`count`");
        assert_eq!(Ident::new("é").as_variable().to_string(), "é");
    }
}
