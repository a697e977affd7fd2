//! Quiver's Cypher front end: text in, checked syntax tree (or a Neo4j-style error) out.
//!
//! - [`parse`] turns one statement into an [`ast::Statement`]: a hand-written tokenizer with
//!   spans, then a recursive-descent parser with Pratt precedence and a depth limit.
//! - The tree prints back as Cypher (`Display`), and parsing what it prints gives an equal
//!   tree.
//! - [`analyze`] runs the semantic pass over a parsed statement: scoping, aggregation rules,
//!   the pattern rules of `CREATE`/`MERGE`, function arity and the type errors the text makes
//!   certain, each failing with Neo4j's status code and the openCypher TCK's detail name. It
//!   returns the [`Analysis`] the planner needs (columns, grouping keys, parameters).
//!   [`compile_front`] does both steps.
//!
//! Nothing here does I/O or knows about storage, so the whole crate is property-tested and
//! fuzzed on its own.

pub mod ast;
pub mod error;
mod keywords;
pub mod lexer;
mod parser;
pub mod semantic;
pub mod span;
pub mod token;

pub use error::{Detail, Error, ErrorKind, Status};
pub use parser::{ParseOptions, parse, parse_with};
pub use semantic::{
    Analysis, AnalyzeOptions, ColumnInfo, ProjectionInfo, analyze, analyze_with, compile_front,
};
pub use span::{Position, Span};
