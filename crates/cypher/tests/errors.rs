//! Syntax errors: the detail the TCK expects, and a position and message like Neo4j's.

use quiver_cypher::{Detail, Error, parse};

fn error(query: &str) -> Error {
    parse(query).expect_err(query)
}

fn detail(query: &str) -> Detail {
    error(query).kind.detail
}

#[test]
fn position_line_column_and_caret() {
    let e = error("MATCH (n)\nRETURN n +");
    assert_eq!(e.status_code(), "Neo.ClientError.Statement.SyntaxError");
    assert_eq!(e.detail(), Some("UnexpectedSyntax"));
    assert_eq!(
        (e.position.line, e.position.column, e.position.offset),
        (2, 11, 20)
    );
    assert_eq!(
        e.to_string(),
        "Invalid input '': expected an expression (line 2, column 11 (offset: 20))\n\"RETURN n +\"\n           ^"
    );

    let e = error("MATCH (n RETURN n");
    assert_eq!(e.position.column, 10);
    assert!(
        e.message.starts_with("Invalid input 'RETURN': expected"),
        "{}",
        e.message
    );
}

#[test]
fn literal_errors() {
    assert_eq!(detail("RETURN 0x AS literal"), Detail::InvalidNumberLiteral);
    assert_eq!(
        detail("RETURN 0x1A2b3j4D5E6f7 AS literal"),
        Detail::InvalidNumberLiteral
    );
    assert_eq!(
        detail("RETURN 0x8000000000000000 AS literal"),
        Detail::IntegerOverflow
    );
    assert_eq!(
        detail("RETURN -0x8000000000000001 AS literal"),
        Detail::IntegerOverflow
    );
    assert_eq!(
        detail("RETURN 9223372036854775808 AS literal"),
        Detail::IntegerOverflow
    );
    assert!(parse("RETURN -9223372036854775808 AS literal").is_ok());
    assert_eq!(detail("RETURN 1.34E999"), Detail::FloatingPointOverflow);
    assert_eq!(detail(r"RETURN '\uH'"), Detail::InvalidUnicodeLiteral);
    assert_eq!(detail("RETURN 'open"), Detail::UnexpectedSyntax);
}

#[test]
fn malformed_maps_and_lists() {
    for query in [
        "RETURN {1B2c3e67:1} AS literal",
        "RETURN {k1#k: 1} AS literal",
        "RETURN {k1.k: 1} AS literal",
        "RETURN {, } AS literal",
        "RETURN {1} AS literal",
        "RETURN {[]} AS literal",
        "RETURN {{}} AS literal",
        "RETURN {k: {k: {}} AS literal",
        "RETURN [1, 2",
        "RETURN [1 2]",
    ] {
        assert_eq!(detail(query), Detail::UnexpectedSyntax, "{query}");
    }
}

#[test]
fn malformed_clauses() {
    for query in [
        "",
        "MATCH",
        "MATCH (n) RETURN",
        "MATCH (n) WHERE RETURN n",
        "RETURN 1 AS",
        "UNWIND [1] x RETURN x",
        "MERGE (a) ON DELETE SET a.x = 1",
        "CREATE (a)-[:R]->",
        "MATCH (a)-[r:]->(b) RETURN a",
        "MATCH (a) RETURN a ORDER a",
        "RETURN a != b",
        "RETURN CASE END",
        "RETURN all(x IN [1])",
        "FOREACH (x IN [1] | )",
        "SHOW",
    ] {
        let e = error(query);
        assert_eq!(
            e.status_code(),
            "Neo.ClientError.Statement.SyntaxError",
            "{query}"
        );
    }
}

#[test]
fn malformed_database_commands() {
    for query in [
        "CREATE DATABASE",
        "CREATE DATABASE main.",
        "CREATE DATABASE x TOPOLOGY",
        "CREATE DATABASE x TOPOLOGY 1",
        "CREATE DATABASE x TOPOLOGY 1 PRIMARY 2 PRIMARIES",
        "CREATE DATABASE x TOPOLOGY 4294967296 PRIMARIES",
        "CREATE DATABASE x OPTIONS",
        "CREATE DATABASE x OPTIONS 'a'",
        "CREATE DATABASE x WAIT 5 MINUTES",
        "CREATE DATABASE x NOWAIT WAIT",
        "CREATE DATABASE x OPTIONS {} TOPOLOGY 1 PRIMARY",
        "DROP DATABASE",
        "DROP DATABASE x DUMP",
        "DROP DATABASE x DUMP DATA DESTROY DATA",
        "DROP COMPOSITE DATABASE x",
        "ALTER DATABASE x",
        "ALTER DATABASE x WAIT",
        "ALTER DATABASE x SET ACCESS READ",
        "ALTER DATABASE x SET ACCESS WRITE",
        "ALTER DATABASE x SET OPTION k",
        "ALTER DATABASE x REMOVE OPTION",
        "ALTER DATABASE x SET NAME y",
        "START DATABASE",
        "STOP DATABASE x y",
        "CREATE ALIAS a",
        "CREATE ALIAS a FOR DATABASE",
        "CREATE ALIAS a FOR b",
        "CREATE ALIAS a FOR DATABASE b PROPERTIES",
        "ALTER ALIAS a",
        "ALTER ALIAS a SET DATABASE",
        "ALTER ALIAS a SET DATABASE TARGET b TARGET c",
        "DROP ALIAS a",
        "DROP ALIAS a FOR DATABASES",
        "SHOW ALIASES",
        "SHOW ALIAS a",
        "SHOW ALIASES FOR",
    ] {
        let e = error(query);
        assert_eq!(
            e.status_code(),
            "Neo.ClientError.Statement.SyntaxError",
            "{query}"
        );
    }
}

#[test]
fn a_database_command_settles_each_choice_once() {
    // Neo4j refuses replacing what may not exist, as for users and roles.
    for (query, what) in [
        ("CREATE OR REPLACE DATABASE x IF NOT EXISTS", "database"),
        (
            "CREATE OR REPLACE ALIAS a IF NOT EXISTS FOR DATABASE x",
            "database alias",
        ),
    ] {
        let e = error(query);
        assert_eq!(e.kind.detail, Detail::UnexpectedSyntax, "{query}");
        assert!(
            e.message.contains("OR REPLACE")
                && e.message.contains("IF NOT EXISTS")
                && e.message.contains(what),
            "{query}: {}",
            e.message
        );
    }
    // A setting given twice, even with the same value, is refused, naming it; options may
    // repeat with other keys only.
    for (query, named) in [
        (
            "ALTER DATABASE x SET ACCESS READ ONLY SET ACCESS READ WRITE",
            "ACCESS",
        ),
        (
            "ALTER DATABASE x SET TOPOLOGY 1 PRIMARY SET TOPOLOGY 1 PRIMARY",
            "TOPOLOGY",
        ),
        (
            "ALTER DATABASE x SET OPTION k 1 REMOVE OPTION k",
            "OPTION k",
        ),
    ] {
        let e = error(query);
        assert_eq!(e.kind.detail, Detail::UnexpectedSyntax, "{query}");
        assert!(e.message.contains(named), "{query}: {}", e.message);
    }
    assert!(parse("ALTER DATABASE x SET OPTION a 1 SET OPTION b 2").is_ok());
    // Nothing to set is a syntax error pointing past the name.
    let e = error("ALTER DATABASE x");
    assert!(e.message.contains("'SET' or 'REMOVE'"), "{}", e.message);
    assert_eq!(e.position.offset, 16);
}

#[test]
fn unsupported_constructs_are_named() {
    for (query, name) in [
        (
            "USE graph.byName('db') MATCH (n) RETURN n",
            "USE graph.byName",
        ),
        (
            "MATCH REPEATABLE ELEMENTS (a)-->{1,3}(b) RETURN a",
            "REPEATABLE ELEMENTS",
        ),
        ("MATCH p = SIMPLE (a)-->+(b) RETURN p", "SIMPLE path mode"),
        ("RETURN shortestPath((a)-[*]-(b))", "shortestPath()"),
    ] {
        let e = error(query);
        assert_eq!(e.kind.detail, Detail::UnsupportedFeature, "{query}: {e}");
        assert!(e.message.contains(name), "{query}: {}", e.message);
        assert!(
            e.message.contains("not supported"),
            "{query}: {}",
            e.message
        );
    }
}

/// Constructs that used to fail as unsupported and now parse (USE of a named graph, label
/// expressions, type predicates): the names they failed under are no longer reported.
#[test]
fn formerly_unsupported_constructs_parse() {
    for query in [
        "USE db MATCH (n) RETURN n",
        "MATCH (n:A|B) RETURN n",
        "MATCH (n) WHERE n.x IS :: INTEGER RETURN n",
        "CYPHER 5 MATCH (n) RETURN n",
        "MATCH ()-[r:$('R')]->() RETURN r",
        "CREATE ()-[:$('R')]->()",
        "MATCH (n) WHERE n:$('A') RETURN n",
        "MATCH (n:A:$('B')) RETURN n",
        "MATCH SHORTEST 1 ((a)-->+(b) WHERE a.x < b.x) RETURN a",
        "MATCH ((a)-->(b)-->(a)){1,2} RETURN a",
        "MATCH (n) SET n[$key] = 1",
    ] {
        assert!(quiver_cypher::parse(query).is_ok(), "{query}");
    }
}
