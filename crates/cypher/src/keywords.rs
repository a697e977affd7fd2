//! Which words may not be unquoted variable names.
//!
//! Cypher lets almost any word be a label, relationship type, property key or map key (after
//! `:` or `.`, or before `:` in a map, a name cannot be mistaken for anything else). Variables
//! are different: they stand where expressions start, so the words that start or continue
//! expressions and clauses are reserved there (quote them with backticks to use them).

/// Reserved as variable names (upper case, sorted for binary search).
const RESERVED: &[&str] = &[
    "ALL",
    "AND",
    "AS",
    "ASC",
    "ASCENDING",
    "BY",
    "CALL",
    "CASE",
    "CONTAINS",
    "CREATE",
    "DELETE",
    "DESC",
    "DESCENDING",
    "DETACH",
    "DISTINCT",
    "ELSE",
    "END",
    "ENDS",
    "EXISTS",
    "FALSE",
    "FOREACH",
    "IN",
    "IS",
    "LIMIT",
    "MATCH",
    "MERGE",
    "NOT",
    "NULL",
    "ON",
    "OPTIONAL",
    "OR",
    "ORDER",
    "REMOVE",
    "RETURN",
    "SET",
    "SKIP",
    "STARTS",
    "THEN",
    "TRUE",
    "UNION",
    "UNWIND",
    "WHEN",
    "WHERE",
    "WITH",
    "XOR",
    "YIELD",
];

/// Words that are fine as variables but start special forms when followed by `(` or `{`
/// (`count(*)`, `COUNT { }`, `any(x IN ...)`); the printer quotes them as variables so a
/// printed query never depends on what follows them.
const SPECIAL: &[&str] = &[
    "ALLSHORTESTPATHS",
    "ANY",
    "COLLECT",
    "COUNT",
    "NONE",
    "REDUCE",
    "SHORTESTPATH",
    "SINGLE",
];

fn contains(list: &[&str], word: &str) -> bool {
    if word.len() > 16 || !word.is_ascii() {
        return false;
    }
    let upper = word.to_ascii_uppercase();
    list.binary_search(&upper.as_str()).is_ok()
}

/// Whether `word` cannot be an unquoted variable name.
pub(crate) fn is_reserved(word: &str) -> bool {
    contains(RESERVED, word)
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
    }

    #[test]
    fn lookups_ignore_case() {
        assert!(is_reserved("match"));
        assert!(is_reserved("Return"));
        assert!(!is_reserved("count"));
        assert!(quote_as_variable("count"));
        assert!(!quote_as_variable("n"));
    }
}
