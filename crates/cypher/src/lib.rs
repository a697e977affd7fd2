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
//!
//! ```
//! use quiver_cypher::ast::{ClauseKind, StatementKind};
//!
//! let query = "MATCH (p:Person)-[:KNOWS]->(f) RETURN p.name, count(f) AS friends";
//! let statement = quiver_cypher::parse(query)?;
//! let analysis = quiver_cypher::analyze(&statement, query)?;
//! assert_eq!(analysis.columns, ["p.name", "friends"]);
//!
//! let StatementKind::Query(q) = &statement.kind else { unreachable!() };
//! let ret = &q.first.clauses[1];
//! assert!(matches!(ret.kind, ClauseKind::Return(_)));
//! let info = analysis.projection(ret).expect("RETURN is described");
//! assert!(info.aggregating);
//! assert_eq!(info.grouping_items().collect::<Vec<_>>(), [0]);
//!
//! // The tree prints as Cypher that parses back to the same tree.
//! assert_eq!(quiver_cypher::parse(&statement.to_string())?, statement);
//!
//! let error = quiver_cypher::parse("RETURN 1 +").unwrap_err();
//! assert_eq!(error.status_code(), quiver_status::Status::SyntaxError);
//! assert_eq!(error.detail(), Some("UnexpectedSyntax"));
//! # Ok::<(), quiver_cypher::Error>(())
//! ```

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
