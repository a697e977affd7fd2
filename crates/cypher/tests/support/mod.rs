//! Shared test helpers: round-trip checks and a reader for the openCypher TCK feature files.

#![allow(dead_code)]

pub mod tck;

use quiver_cypher::ast::Statement;

/// Parses `query`, prints it, parses the print and checks both trees are equal and the print
/// is a fixed point. Returns the first tree.
pub fn verified(query: &str) -> Statement {
    let first = quiver_cypher::parse(query).unwrap_or_else(|e| panic!("{query}\n{e}"));
    let printed = first.to_string();
    let second = quiver_cypher::parse(&printed)
        .unwrap_or_else(|e| panic!("printed form does not parse:\n{printed}\n{e}"));
    assert_eq!(
        first, second,
        "round trip changed the tree:\n{query}\n{printed}"
    );
    assert_eq!(printed, second.to_string(), "printing is not a fixed point");
    first
}

/// Like [`verified`], and the print must equal `canonical`.
pub fn verified_as(query: &str, canonical: &str) -> Statement {
    let statement = verified(query);
    assert_eq!(statement.to_string(), canonical, "for {query}");
    statement
}
