//! Hostile nesting: every way to nest deeply must end in a clean `NestingTooDeep` error, never
//! a stack overflow, on a thread with an ordinary 2 MiB stack.

use std::fmt::Write;

use quiver_cypher::{Detail, ParseOptions, analyze, parse, parse_with};

const DEPTH: usize = 100_000;

/// Runs `f` on a fresh thread with a 2 MiB stack (what tokio and test threads get).
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("thread spawns")
        .join()
        .expect("no panic or overflow");
}

fn assert_too_deep(query: String) {
    on_small_stack(move || {
        let error = parse(&query).expect_err("deep nesting is refused");
        assert_eq!(
            error.kind.detail,
            Detail::NestingTooDeep,
            "{}",
            error.message
        );
        assert_eq!(error.status_code(), "Neo.ClientError.Statement.SyntaxError");
    });
}

fn nest(open: &str, middle: &str, close: &str, depth: usize) -> String {
    format!("{}{middle}{}", open.repeat(depth), close.repeat(depth))
}

#[test]
fn deep_parentheses() {
    assert_too_deep(format!("RETURN {}", nest("(", "1", ")", DEPTH)));
}

#[test]
fn deep_lists() {
    assert_too_deep(format!("RETURN {}", nest("[", "1", "]", DEPTH)));
}

#[test]
fn deep_maps() {
    assert_too_deep(format!("RETURN {}", nest("{a: ", "1", "}", DEPTH)));
}

#[test]
fn deep_prefix_operators() {
    assert_too_deep(format!("RETURN {}1", "NOT ".repeat(DEPTH)));
    assert_too_deep(format!("RETURN {}x", "- ".repeat(DEPTH)));
}

#[test]
fn long_postfix_chains() {
    // Each lookup wraps the expression before it: these nest.
    assert_too_deep(format!("RETURN a{}", ".b".repeat(DEPTH)));
    assert_too_deep(format!("RETURN a{}", "[0]".repeat(DEPTH)));
}

/// Parses, prints, parses again and analyses `query` on a small stack, and checks that the
/// printed form parses to the same tree.
fn assert_accepted_everywhere(query: String) {
    on_small_stack(move || {
        let statement = parse(&query).unwrap_or_else(|e| panic!("{e}"));
        let again = parse(&statement.to_string()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(statement, again);
        analyze(&statement, &query).unwrap_or_else(|e| panic!("{e}"));
    });
}

#[test]
fn long_operator_chains_are_flat_and_unlimited() {
    // A left-associative chain of one precedence level is a flat list, not a deep tree: its
    // length spends no nesting budget.
    assert_accepted_everywhere(format!("RETURN 1{} AS x", " + 1".repeat(DEPTH)));
    assert_accepted_everywhere(format!("RETURN 1{} AS x", " - 2 + 3".repeat(DEPTH / 2)));
    assert_accepted_everywhere(format!("RETURN 2{} AS x", " * 1 / 1 % 7".repeat(DEPTH / 3)));
    assert_accepted_everywhere(format!("RETURN true{} AS x", " AND true".repeat(DEPTH)));
    assert_accepted_everywhere(format!("RETURN false{} AS x", " OR false".repeat(DEPTH)));
    assert_accepted_everywhere(format!("RETURN true{} AS x", " XOR true".repeat(DEPTH)));
    assert_accepted_everywhere(format!("RETURN 1{} AS x", " < 2".repeat(DEPTH)));
    assert_accepted_everywhere(format!("RETURN 2{} AS x", " ^ 1".repeat(DEPTH)));
    assert_accepted_everywhere(format!(
        "RETURN 'a'{} AS x",
        " STARTS WITH 'a'".repeat(DEPTH)
    ));
    // Operators of several levels: every level is one chain; the right operands nest once.
    assert_accepted_everywhere(format!(
        "MATCH (n) WHERE n.a = 1{} RETURN n",
        " AND n.b + 2 * n.c - 1 > 3 OR n.d IS NULL".repeat(DEPTH / 10)
    ));
}

#[test]
fn nesting_inside_a_long_chain_still_counts() {
    // The chain itself is free; a deeply nested operand of it is not.
    assert_too_deep(format!(
        "RETURN 1{} + {}",
        " + 1".repeat(1000),
        nest("(", "1", ")", DEPTH)
    ));
    assert_too_deep(format!(
        "RETURN true AND {} AND true",
        "NOT ".repeat(DEPTH) + "true"
    ));
}

#[test]
fn deep_subqueries_and_foreach() {
    assert_too_deep(nest("CALL { ", "RETURN 1 AS x", " } RETURN x", 20_000));
    assert_too_deep(format!(
        "MATCH (n) WHERE {} RETURN n",
        nest("EXISTS { MATCH (m) WHERE ", "true", " }", 20_000)
    ));
    assert_too_deep(format!(
        "{}CREATE (){}",
        "FOREACH (x IN [1] | ".repeat(DEPTH),
        ")".repeat(DEPTH)
    ));
}

#[test]
fn deep_comprehensions_and_case() {
    assert_too_deep(format!("RETURN {}", nest("[x IN ", "[1]", " | x]", 20_000)));
    assert_too_deep(format!(
        "RETURN {}",
        nest("CASE WHEN ", "true", " THEN 1 END", DEPTH)
    ));
    assert_too_deep(format!("RETURN {}", nest("f(", "1", ")", DEPTH)));
    assert_too_deep(format!(
        "MATCH {} RETURN 1",
        nest("({a: ", "1", "})", 20_000)
    ));
}

/// The deepest query of each shape that the default limit still accepts.
fn deepest_accepted(shape: impl Fn(usize) -> String) -> String {
    let mut depth = 1;
    while parse(&shape(depth + 1)).is_ok() {
        depth += 1;
    }
    assert!(
        depth > 3,
        "the limit leaves room for real queries: {}",
        shape(depth)
    );
    shape(depth)
}

/// Queries as deep as the limit allows, for every kind of nesting.
fn deepest_queries() -> Vec<String> {
    vec![
        deepest_accepted(|n| format!("RETURN {} AS x", nest("(", "1", ")", n))),
        deepest_accepted(|n| format!("RETURN {} AS x", nest("[", "1", "]", n))),
        deepest_accepted(|n| format!("RETURN {} AS x", nest("{a: ", "1", "}", n))),
        deepest_accepted(|n| format!("RETURN {}true AS x", "NOT ".repeat(n))),
        deepest_accepted(|n| format!("RETURN {} AS x", nest("[x IN ", "[1]", " | x]", n))),
        deepest_accepted(|n| format!("RETURN {} AS x", nest("abs(", "1", ")", n))),
        deepest_accepted(|n| nest("CALL { ", "RETURN 1 AS x", " } RETURN x", n)),
        deepest_accepted(|n| {
            format!(
                "MATCH (n) WHERE {} RETURN n",
                nest("EXISTS { MATCH (m) WHERE ", "true", " }", n)
            )
        }),
        deepest_accepted(|n| {
            let open = (0..n).fold(String::new(), |mut s, i| {
                let _ = write!(s, "FOREACH (x{i} IN [1] | ");
                s
            });
            format!("{open}CREATE (){}", ")".repeat(n))
        }),
        deepest_accepted(|n| format!("MATCH {} RETURN 1", nest("({a: ", "1", "})", n))),
        deepest_accepted(|n| {
            format!(
                "RETURN {} AS x",
                nest("[(a)-->(b) WHERE ", "true", " | 1]", n)
            )
        }),
        deepest_accepted(|n| format!("CREATE DATABASE x OPTIONS {}", nest("{a: ", "1", "}", n))),
        deepest_accepted(|n| {
            format!(
                "ALTER DATABASE x SET OPTION k {} NOWAIT",
                nest("(", "1", ")", n)
            )
        }),
    ]
}

#[test]
fn nesting_up_to_the_limit_parses_prints_analyses_and_drops() {
    on_small_stack(|| {
        for query in deepest_queries() {
            let statement = parse(&query).unwrap_or_else(|e| panic!("{e}"));
            let printed = statement.to_string();
            let again = parse(&printed).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(statement, again);
            analyze(&statement, &query).unwrap_or_else(|e| panic!("{query}\n{e}"));
        }
    });
}

#[test]
fn pathological_backtracking_stays_fast() {
    // Nested parenthesised maps look like node patterns at every level; the parser must not
    // retry each level exponentially often.
    on_small_stack(|| {
        let query = format!("RETURN {} AS x", nest("({a: ", "1", "})", 45));
        parse(&query).expect("parses");
    });
}

#[test]
fn depth_limit_is_configurable() {
    let options = ParseOptions {
        parse_depth_max: 30,
        ..ParseOptions::default()
    };
    let error = parse_with(&format!("RETURN {}", nest("(", "1", ")", 40)), &options).unwrap_err();
    assert_eq!(error.kind.detail, Detail::NestingTooDeep);
    assert!(parse_with(&format!("RETURN {}", nest("(", "1", ")", 10)), &options).is_ok());
}

/// A construct tried first and abandoned on failure (a pattern comprehension, a pattern
/// predicate, a case expression read against a variable) must not turn the nesting limit into
/// another reading's syntax error.
#[test]
fn nesting_too_deep_inside_a_tried_construct_is_still_reported() {
    let options = ParseOptions {
        parse_depth_max: 30,
        ..ParseOptions::default()
    };
    let deep = nest("(", "1", ")", 40);
    for query in [
        format!("RETURN [(a)-->(b) WHERE {deep} = 1 | b]"),
        format!("MATCH (a) WHERE (a)-[:R {{p: {deep}}}]->() RETURN a"),
        format!("WITH 1 AS case RETURN case + CASE WHEN {deep} THEN 1 END"),
    ] {
        let error = parse_with(&query, &options).expect_err("deep nesting is refused");
        assert_eq!(
            error.kind.detail,
            Detail::NestingTooDeep,
            "{query}: {}",
            error.message
        );
        assert!(error.excerpt.contains("RETURN") || error.excerpt.contains("MATCH"));
    }
}

#[test]
fn database_command_options_nest_like_any_expression() {
    assert_too_deep(format!(
        "CREATE DATABASE x OPTIONS {}",
        nest("{a: ", "1", "}", DEPTH)
    ));
    assert_too_deep(format!(
        "ALTER DATABASE x SET OPTION k {} NOWAIT",
        nest("(", "1", ")", DEPTH)
    ));
    assert_too_deep(format!(
        "CREATE ALIAS a FOR DATABASE x PROPERTIES {}",
        nest("{a: [", "1", "]}", DEPTH)
    ));
}
