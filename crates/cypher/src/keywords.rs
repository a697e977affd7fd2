//! Which words may not be unquoted variable names.
//!
//! Cypher lets almost any word be a label, relationship type, property key or map key (after
//! `:` or `.`, or before `:` in a map, a name cannot be mistaken for anything else), and
//! Neo4j accepts even clause keywords as variables (`MATCH (order:Order) RETURN order`). Only
//! the words that would change how an expression reads are reserved: the operators, the
//! literals, and the words that delimit `CASE`, `WHERE`, `AS` and `DISTINCT` (quote them with
//! backticks to use them as variables).

/// Reserved as variable names (upper case, sorted for binary search).
const RESERVED: &[&str] = &[
    "AND", "AS", "CASE", "CONTAINS", "DISTINCT", "ELSE", "END", "ENDS", "FALSE", "IN", "IS", "NOT",
    "NULL", "OR", "STARTS", "THEN", "TRUE", "WHEN", "WHERE", "XOR",
];

/// Reserved words that still read as a variable where an expression begins, as in Neo4j 5
/// (which takes a word as a keyword only where it can be one): they only delimit a `CASE`,
/// and no expression begins with them, so `WITH 1 AS end RETURN end` is unambiguous.
const EXPRESSION_VARIABLES: &[&str] = &["ELSE", "END", "THEN", "WHEN"];

/// Words that are fine as variables but start special forms when followed by `(` or `{`
/// (`count(*)`, `COUNT { }`, `any(x IN ...)`); the printer quotes them as variables so a
/// printed query never depends on what follows them.
const SPECIAL: &[&str] = &[
    "ALL",
    "ALLSHORTESTPATHS",
    "ANY",
    "COLLECT",
    "COUNT",
    "EXISTS",
    "NONE",
    "REDUCE",
    "SHORTESTPATH",
    "SINGLE",
];

/// Binary search ignoring ASCII case, without allocating: this runs for most names the
/// parser reads.
fn contains(list: &[&str], word: &str) -> bool {
    if word.len() > 16 || !word.is_ascii() {
        return false;
    }
    list.binary_search_by(|probe| {
        probe
            .bytes()
            .cmp(word.bytes().map(|b| b.to_ascii_uppercase()))
    })
    .is_ok()
}

/// Whether `word` cannot be an unquoted variable name.
pub(crate) fn is_reserved(word: &str) -> bool {
    contains(RESERVED, word)
}

/// Whether `word`, though reserved, is a variable where an expression begins.
pub(crate) fn is_expression_variable(word: &str) -> bool {
    contains(EXPRESSION_VARIABLES, word)
}

/// Whether the printer should quote `word` when it is a variable.
pub(crate) fn quote_as_variable(word: &str) -> bool {
    contains(RESERVED, word) || contains(SPECIAL, word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_for_binary_search() {
        assert!(RESERVED.windows(2).all(|w| w[0] < w[1]));
        assert!(SPECIAL.windows(2).all(|w| w[0] < w[1]));
        assert!(EXPRESSION_VARIABLES.windows(2).all(|w| w[0] < w[1]));
        assert!(EXPRESSION_VARIABLES.iter().all(|w| is_reserved(w)));
    }

    #[test]
    fn lookups_ignore_case() {
        assert!(is_reserved("where"));
        assert!(is_reserved("Null"));
        assert!(!is_reserved("count"));
        assert!(!is_reserved("order"));
        assert!(quote_as_variable("count"));
        assert!(!quote_as_variable("n"));
    }
}
