//! How keywords and names share words.
//!
//! Neo4j 5 reserves no word outright: its grammar lets every keyword name a variable, a label,
//! a relationship type, a property or map key, a parameter or a procedure output, and reads a
//! word as a keyword only where the keyword can stand; where both readings fit, the keyword
//! wins (the Cypher manual's example: `WITH 123 AS true RETURN true` returns `true`). Quiver
//! decides the same way, from the next token or two:
//!
//! - where an expression begins, `NULL`, `TRUE` and `FALSE` are the literals; `NOT`, `CASE`
//!   and `DISTINCT` are keywords when an operand can follow them ([`starts_operand`]), and
//!   any other word is a variable (`RETURN end`, `count(not)`, `[when IN list | when]`);
//! - in a node or relationship pattern, `WHERE` and `IS` name the variable only where no
//!   predicate or label can follow (`(where)`, `(is:Label)`, but `(WHERE n.x > 1)`);
//! - after `IS`, a label may not be [`is_refused_after_is`] (`NOT`, `NULL`, `TYPED`,
//!   `NORMALIZED`, `NFC`, `NFD`, `NFKC`, `NFKD`) unquoted, since `n IS NOT NULL` and
//!   `n IS NORMALIZED` read them as predicates: the one place Neo4j 5 refuses a keyword, and
//!   so does Quiver, by name.
//!
//! Quote any of these with backticks to make it a name everywhere.

/// Literal words: where an expression begins they are always the literal.
const LITERALS: &[&str] = &["FALSE", "NULL", "TRUE"];

/// Words that continue an expression and cannot begin an operand where a keyword would take
/// one: after `NOT`, `CASE` or `DISTINCT` they make that word a variable (`RETURN not AS x`,
/// `count(distinct IN list)`). Any other word, clause words included, is taken as the
/// operand there: where both readings fit, the keyword wins, so `WITH distinct RETURN ...`
/// needs the name quoted (or an alias: `WITH distinct AS d RETURN ...`).
const CONTINUATIONS: &[&str] = &[
    "AND", "AS", "CONTAINS", "ELSE", "END", "ENDS", "IN", "IS", "OR", "STARTS", "THEN", "WHEN",
    "WHERE", "XOR",
];

/// Keywords that take an operand where an expression begins.
const OPERAND_KEYWORDS: &[&str] = &["CASE", "DISTINCT", "NOT"];

/// Labels that must be quoted after `IS` (Neo4j 5's `symbolicLabelNameString` leaves them
/// out): each begins a predicate there.
const REFUSED_AFTER_IS: &[&str] = &[
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "NORMALIZED",
    "NOT",
    "NULL",
    "TYPED",
];

/// Words that start special forms before `(` or `{` (`count(*)`, `COUNT { }`,
/// `any(x IN ...)`).
const SPECIAL_FORMS: &[&str] = &[
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

/// Whether `word` is `NULL`, `TRUE` or `FALSE`, which are literals where an expression
/// begins.
pub(crate) fn is_literal(word: &str) -> bool {
    contains(LITERALS, word)
}

/// Whether `word` may begin an operand after a keyword that takes one (`NOT`, `CASE`,
/// `DISTINCT`): every word but those that only continue an expression.
pub(crate) fn starts_operand(word: &str) -> bool {
    !contains(CONTINUATIONS, word)
}

/// Whether `word` cannot be an unquoted label after `IS`.
pub(crate) fn is_refused_after_is(word: &str) -> bool {
    contains(REFUSED_AFTER_IS, word)
}

/// Whether the printer should quote `word` when it is a variable: every word whose reading
/// as a variable depends on what follows it, so that a printed query never does.
pub(crate) fn quote_as_variable(word: &str) -> bool {
    [LITERALS, CONTINUATIONS, OPERAND_KEYWORDS, SPECIAL_FORMS]
        .iter()
        .any(|list| contains(list, word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_for_binary_search() {
        for list in [
            LITERALS,
            CONTINUATIONS,
            OPERAND_KEYWORDS,
            REFUSED_AFTER_IS,
            SPECIAL_FORMS,
        ] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }

    #[test]
    fn lookups_ignore_case() {
        assert!(is_literal("Null"));
        assert!(!starts_operand("where"));
        assert!(starts_operand("Match"));
        assert!(starts_operand("order_id"));
        assert!(is_refused_after_is("not"));
        assert!(!is_refused_after_is("end"));
        assert!(quote_as_variable("count"));
        assert!(quote_as_variable("case"));
        assert!(!quote_as_variable("n"));
    }
}
