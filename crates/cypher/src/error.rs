//! The front end's one error type, mapped to Neo4j status codes in one place.
//!
//! Every error carries two names: the Neo4j status family a driver sees
//! (`Neo.ClientError.Statement.SyntaxError`, ...) and a detail named like the openCypher TCK's
//! error details (`UndefinedVariable`, ...), because the TCK judges both.

use std::fmt;

use crate::span::{Position, Span};

/// The Neo4j status family of an error, named as the TCK names it; [`Error::status_code`] gives
/// the status a client sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    SyntaxError,
    SemanticError,
    TypeError,
    ArgumentError,
    ParameterMissing,
    ProcedureError,
    /// `USE` named a graph the server does not have.
    DatabaseNotFound,
}

/// What went wrong, named as the openCypher TCK names it where the TCK has a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Detail {
    UnexpectedSyntax,
    InvalidNumberLiteral,
    InvalidUnicodeLiteral,
    IntegerOverflow,
    FloatingPointOverflow,
    VariableAlreadyBound,
    UndefinedVariable,
    VariableTypeConflict,
    InvalidAggregation,
    NestedAggregation,
    AmbiguousAggregationExpression,
    NoSingleRelationshipType,
    RequiresDirectedRelationship,
    CreatingVarLength,
    InvalidDelete,
    DifferentColumnsInUnion,
    InvalidClauseComposition,
    InvalidParameterUse,
    NonConstantExpression,
    NegativeIntegerArgument,
    InvalidArgumentType,
    InvalidArgumentValue,
    InvalidNumberOfArguments,
    RelationshipUniquenessViolation,
    UnknownFunction,
    ColumnNameConflict,
    NoExpressionAlias,
    NoVariablesInScope,
    MissingParameter,
    ProcedureNotFound,
    /// `USE` named a graph the server does not have.
    GraphNotFound,
    /// A construct Quiver recognises but does not implement; the message names it.
    UnsupportedFeature,
    /// A `WHERE` inside `SEARCH` that the index cannot apply as it searches: not a conjunction
    /// of comparisons of the searched entity's properties with values, or one property
    /// bounded twice on one side.
    InvalidVectorSearchFilter,
    /// Nesting beyond `parse_depth_max`.
    NestingTooDeep,
    /// Text beyond `query_bytes_max`.
    QueryTooLarge,
}

impl Detail {
    /// The detail's name, as the TCK spells it.
    pub fn as_str(self) -> &'static str {
        use Detail::*;
        match self {
            UnexpectedSyntax => "UnexpectedSyntax",
            InvalidNumberLiteral => "InvalidNumberLiteral",
            InvalidUnicodeLiteral => "InvalidUnicodeLiteral",
            IntegerOverflow => "IntegerOverflow",
            FloatingPointOverflow => "FloatingPointOverflow",
            VariableAlreadyBound => "VariableAlreadyBound",
            UndefinedVariable => "UndefinedVariable",
            VariableTypeConflict => "VariableTypeConflict",
            InvalidAggregation => "InvalidAggregation",
            NestedAggregation => "NestedAggregation",
            AmbiguousAggregationExpression => "AmbiguousAggregationExpression",
            NoSingleRelationshipType => "NoSingleRelationshipType",
            RequiresDirectedRelationship => "RequiresDirectedRelationship",
            CreatingVarLength => "CreatingVarLength",
            InvalidDelete => "InvalidDelete",
            DifferentColumnsInUnion => "DifferentColumnsInUnion",
            InvalidClauseComposition => "InvalidClauseComposition",
            InvalidParameterUse => "InvalidParameterUse",
            NonConstantExpression => "NonConstantExpression",
            NegativeIntegerArgument => "NegativeIntegerArgument",
            InvalidArgumentType => "InvalidArgumentType",
            InvalidArgumentValue => "InvalidArgumentValue",
            InvalidNumberOfArguments => "InvalidNumberOfArguments",
            RelationshipUniquenessViolation => "RelationshipUniquenessViolation",
            UnknownFunction => "UnknownFunction",
            ColumnNameConflict => "ColumnNameConflict",
            NoExpressionAlias => "NoExpressionAlias",
            NoVariablesInScope => "NoVariablesInScope",
            MissingParameter => "MissingParameter",
            ProcedureNotFound => "ProcedureNotFound",
            GraphNotFound => "GraphNotFound",
            UnsupportedFeature => "UnsupportedFeature",
            InvalidVectorSearchFilter => "InvalidVectorSearchFilter",
            NestingTooDeep => "NestingTooDeep",
            QueryTooLarge => "QueryTooLarge",
        }
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The status family and the detail of an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ErrorKind {
    pub status: Status,
    pub detail: Detail,
}

impl ErrorKind {
    pub const fn syntax(detail: Detail) -> Self {
        Self {
            status: Status::SyntaxError,
            detail,
        }
    }

    pub const fn type_error(detail: Detail) -> Self {
        Self {
            status: Status::TypeError,
            detail,
        }
    }
}

/// A compile-time error: what, where (span, line/column) and the offending line with a caret.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message} ({position})\n{excerpt}")]
pub struct Error {
    pub kind: ErrorKind,
    /// The human-readable explanation, without position (Display adds it).
    pub message: String,
    pub span: Span,
    pub position: Position,
    /// The query line holding the error, quoted, then a caret under the error's column.
    pub excerpt: String,
}

/// How many characters of the offending line an excerpt shows at most, so that an error on a
/// megabyte-long single-line query stays readable.
const EXCERPT_CHARS_MAX: usize = 120;

impl Error {
    /// An error at `span` of `source`.
    pub fn new(kind: ErrorKind, message: impl Into<String>, span: Span, source: &str) -> Self {
        let position = Position::locate(source, span.start);
        Error {
            kind,
            message: message.into(),
            span,
            position,
            excerpt: excerpt(source, position),
        }
    }

    /// A syntax error with the given detail.
    pub fn syntax(detail: Detail, message: impl Into<String>, span: Span, source: &str) -> Self {
        Self::new(ErrorKind::syntax(detail), message, span, source)
    }

    /// The Neo4j status a client sees, e.g. `Neo.ClientError.Statement.SyntaxError`.
    pub fn status_code(&self) -> quiver_status::Status {
        use quiver_status::Status as Neo4j;
        match self.kind.status {
            Status::SyntaxError => Neo4j::SyntaxError,
            Status::SemanticError => Neo4j::SemanticError,
            Status::TypeError => Neo4j::TypeError,
            Status::ArgumentError => Neo4j::ArgumentError,
            Status::ParameterMissing => Neo4j::ParameterMissing,
            Status::ProcedureError => Neo4j::ProcedureNotFound,
            Status::DatabaseNotFound => Neo4j::DatabaseNotFound,
        }
    }

    /// The TCK's name for the detail (`UndefinedVariable`, ...).
    pub fn detail(&self) -> Option<&'static str> {
        Some(self.kind.detail.as_str())
    }

    /// The TCK's name for the status family (`SyntaxError`, `TypeError`, ...).
    pub fn status_name(&self) -> &'static str {
        match self.kind.status {
            Status::SyntaxError => "SyntaxError",
            Status::SemanticError => "SemanticError",
            Status::TypeError => "TypeError",
            Status::ArgumentError => "ArgumentError",
            Status::ParameterMissing => "ParameterMissing",
            Status::ProcedureError => "ProcedureError",
            Status::DatabaseNotFound => "DatabaseNotFound",
        }
    }
}

/// `"the line"` and a caret line under the error's column, as Neo4j shows them.
fn excerpt(source: &str, position: Position) -> String {
    let line = source
        .lines()
        .nth(position.line.saturating_sub(1) as usize)
        .unwrap_or("");
    let column = position.column.saturating_sub(1) as usize;
    let chars: Vec<char> = line.chars().collect();
    // Keep a window around the column when the line is long.
    let first = column.saturating_sub(EXCERPT_CHARS_MAX / 2);
    let first = first.min(chars.len().saturating_sub(EXCERPT_CHARS_MAX));
    let last = (first + EXCERPT_CHARS_MAX).min(chars.len());
    let shown: String = chars[first.min(last)..last].iter().collect();
    let caret_at = column - first.min(column);
    format!("\"{shown}\"\n{}^", " ".repeat(caret_at + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_position_and_caret() {
        let source = "MATCH (n)\nRETURN foo";
        let at = source.find("foo").unwrap() as u32;
        let error = Error::syntax(
            Detail::UndefinedVariable,
            "Variable `foo` not defined",
            Span::new(at, at + 3),
            source,
        );
        assert_eq!(
            error.to_string(),
            "Variable `foo` not defined (line 2, column 8 (offset: 17))\n\"RETURN foo\"\n        ^"
        );
        assert_eq!(error.status_code(), quiver_status::Status::SyntaxError);
        assert_eq!(error.detail(), Some("UndefinedVariable"));
    }

    #[test]
    fn excerpt_windows_long_lines() {
        let source = format!("RETURN {}x", "1 + ".repeat(500));
        let at = source.find('x').unwrap() as u32;
        let error = Error::syntax(Detail::UnexpectedSyntax, "bad", Span::new(at, at), &source);
        let mut lines = error.excerpt.lines();
        let text = lines.next().unwrap();
        let caret = lines.next().unwrap();
        assert!(text.chars().count() <= EXCERPT_CHARS_MAX + 2);
        assert_eq!(text.chars().nth(caret.len() - 1), Some('x'));
    }
}
