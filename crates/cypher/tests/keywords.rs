//! Keywords as names, over the whole keyword list and every place a name can stand.
//!
//! neo4j-graphrag's knowledge-graph writer sends `MERGE (start)-[...]->(end:__KGBuilder__ ...)`
//! and Quiver used to refuse it with `Invalid input 'end'`: words such as `end`, `when` or
//! `case` were reserved as variables. Neo4j 5 reserves no word: its grammar takes every keyword
//! as a name and reads a word as a keyword only where the keyword can stand. The one place it
//! refuses keywords is a label after `IS`, where `NOT`, `NULL`, `TYPED`, `NORMALIZED`, `NFC`,
//! `NFD`, `NFKC` and `NFKD` begin predicates. This file checks the same holds in Quiver: for
//! each keyword and each template, the query parses, passes the semantic pass and prints back
//! to the same tree, or fails with a syntax error naming the keyword exactly where Neo4j does.

use quiver_cypher::{Status, compile_front, parse};

/// Every keyword of Neo4j 5's Cypher grammar (its lexer's keyword tokens, spelt as queries
/// write them), with the words Quiver adds (`LET`, `FILTER`, `SEARCH`, `SCORE`).
#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "ACCESS", "ACTIVE", "ADMIN", "ADMINISTRATOR", "ALIAS", "ALIASES", "allShortestPaths", "ALL",
    "ALTER", "AND", "ANY", "ARRAY", "AS", "ASC", "ASCENDING", "ASSERT", "ASSIGN", "AT", "AUTH",
    "BINDINGS", "BOOL", "BOOLEAN", "BOOSTED", "BOTH", "BREAK", "BRIEF", "BTREE", "BUILT", "BY",
    "CALL", "CASCADE", "CASE", "CHANGE", "CIDR", "COLLECT", "COMMAND", "COMMANDS", "COMMIT",
    "COMPOSITE", "CONCURRENT", "CONSTRAINT", "CONSTRAINTS", "CONTAINS", "CONTINUE", "COPY",
    "COUNT", "CREATE", "CSV", "CURRENT", "CYPHER", "DATA", "DATABASE", "DATABASES", "DATE",
    "DATETIME", "DBMS", "DEALLOCATE", "DEFAULT", "DEFINED", "DELETE", "DENY", "DESC",
    "DESCENDING", "DESTROY", "DETACH", "DIFFERENT", "DISTINCT", "DRIVER", "DROP", "DRYRUN",
    "DUMP", "DURATION", "EACH", "EDGE", "ELEMENT", "ELEMENTS", "ELSE", "ENABLE", "ENCRYPTED",
    "END", "ENDS", "ERROR", "EXECUTABLE", "EXECUTE", "EXIST", "EXISTENCE", "EXISTS", "EXPAND",
    "FAIL", "FALSE", "FIELDTERMINATOR", "FILTER", "FINISH", "FLOAT", "FOREACH", "FOR", "FROM",
    "FULLTEXT", "FUNCTION", "FUNCTIONS", "GRANT", "GRAPH", "GRAPHS", "GROUP", "GROUPS",
    "HEADERS", "HOME", "ID", "IF", "IMMUTABLE", "IMPERSONATE", "IN", "INDEX", "INDEXES", "INF",
    "INFINITY", "INSERT", "INT", "INTEGER", "INTO", "IS", "JOIN", "KEY", "LABEL", "LABELS",
    "LANGUAGE", "LEADING", "LET", "LIMIT", "LIST", "LOAD", "LOCAL", "LOOKUP", "MATCH",
    "MANAGEMENT", "MAP", "MERGE", "NAME", "NAMES", "NAN", "NEW", "NFC", "NFD", "NFKC", "NFKD",
    "NODE", "NODETACH", "NODES", "NONE", "NORMALIZE", "NORMALIZED", "NOT", "NOTHING", "NOWAIT",
    "NULL", "OF", "OFFSET", "ON", "ONLY", "OPTIONAL", "OPTIONS", "OPTION", "OR", "ORDER",
    "OUTPUT", "PASSWORD", "PASSWORDS", "PATH", "PATHS", "PERIODIC", "PLAINTEXT", "POINT",
    "POPULATED", "PRIMARY", "PRIMARIES", "PRIVILEGE", "PRIVILEGES", "PROCEDURE", "PROCEDURES",
    "PROPERTIES", "PROPERTY", "PROVIDER", "PROVIDERS", "RANGE", "READ", "REALLOCATE", "REDUCE",
    "REL", "RELATIONSHIP", "RELATIONSHIPS", "REMOVE", "RENAME", "REPEATABLE", "REPLACE",
    "REPORT", "REQUIRE", "REQUIRED", "RESTRICT", "RETRY", "RETURN", "REVOKE", "ROLE", "ROLES",
    "ROW", "ROWS", "SCAN", "SCORE", "SEARCH", "SECONDARY", "SECONDARIES", "SEC", "SECOND",
    "SECONDS", "SEEK", "SERVER", "SERVERS", "SET", "SETTING", "SETTINGS", "SHORTEST",
    "shortestPath", "SHOW", "SIGNED", "SINGLE", "SKIP", "START", "STARTS", "STATUS", "STOP",
    "VARCHAR", "STRING", "SUPPORTED", "SUSPENDED", "TARGET", "TERMINATE", "TEXT", "THEN",
    "TIME", "TIMESTAMP", "TIMEZONE", "TO", "TOPOLOGY", "TRAILING", "TRANSACTION",
    "TRANSACTIONS", "TRAVERSE", "TRIM", "TRUE", "TYPE", "TYPED", "TYPES", "UNION", "UNIQUE",
    "UNIQUENESS", "UNWIND", "URL", "USE", "USER", "USERS", "USING", "VALUE", "VECTOR",
    "VERBOSE", "VERTEX", "VIA", "WAIT", "WHEN", "WHERE", "WITH", "WITHOUT", "WRITE", "XOR",
    "YIELD", "ZONE", "ZONED",
];

/// The keywords Neo4j 5 refuses as a label after `IS` (its `symbolicLabelNameString`).
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

/// Where a name stands. `@` is replaced by the keyword (as the list spells it, and in lower
/// case) where it names something, `#` where an expression reads the name back: there the
/// literals `NULL`, `TRUE` and `FALSE` are quoted, since an expression reads them as literals
/// (in Neo4j too: where both readings fit, the keyword wins).
const TEMPLATES: &[(&str, &str)] = &[
    ("node variable", "MATCH (@) RETURN # AS x"),
    (
        "node variable with a label",
        "MATCH (@:Label) RETURN count(#.id) AS x",
    ),
    (
        "node variable with properties and a predicate",
        "MATCH (@:L {id: 1} WHERE #.id > 0) RETURN # AS x ORDER BY #",
    ),
    (
        "created node variables",
        "CREATE (a:A {id: 1})-[:R]->(@:B {id: 2}) RETURN a.id, #.id",
    ),
    (
        "merged node variable",
        "MERGE (@:__KGBuilder__ {id: 'e1'}) ON CREATE SET #.name = 'x' RETURN # AS x",
    ),
    ("relationship variable", "MATCH ()-[@:R]->() RETURN # AS x"),
    (
        "relationship variable alone",
        "MATCH ()-[@]-() RETURN count(#.id) AS x",
    ),
    (
        "variable-length relationship variable",
        "MATCH ()-[@*1..2]->() RETURN # AS x",
    ),
    ("path variable", "MATCH @ = (a)-->(b) RETURN # AS x"),
    ("label", "MATCH (n:@) WHERE n:@ RETURN n"),
    ("label in a label expression", "MATCH (n:A&@|!B) RETURN n"),
    ("created label", "CREATE (n:@) SET n:@ REMOVE n:@"),
    ("label after IS", "MATCH (n IS @) RETURN n"),
    ("type after IS", "MATCH ()-[r IS @]->() RETURN r"),
    ("relationship type", "MATCH ()-[r:@|R]->() RETURN r"),
    ("created relationship type", "CREATE ()-[:@]->()"),
    (
        "property key",
        "MATCH (n {@: 1}) WHERE n.@ = 1 SET n.@ = 2 REMOVE n.@ RETURN n.@ AS x",
    ),
    ("map key", "RETURN {@: 1}.@ AS x"),
    (
        "parameter",
        "MATCH (n {id: $@}) WHERE n.id = $@ RETURN $@ AS x",
    ),
    ("alias after AS", "WITH 1 AS @ RETURN # AS x"),
    ("returned alias", "RETURN 1 AS @"),
    (
        "YIELD alias",
        "CALL db.labels() YIELD label AS @ RETURN # AS x",
    ),
    ("map projection key", "MATCH (n) RETURN n {.@, @: 1} AS x"),
    (
        "map projection variable",
        "MATCH (n), (@) RETURN n {#, .id} AS x",
    ),
    ("map projection base", "MATCH (@) RETURN # {.id} AS x"),
    (
        "quantified group variable",
        "MATCH (a)((@)-[r]->(m))+(b) RETURN # AS x",
    ),
    (
        "list comprehension variable",
        "RETURN [@ IN [1, 2] WHERE # IS NOT NULL | #] AS x",
    ),
    (
        "list predicate variable",
        "RETURN all(@ IN [1, 2] WHERE # IS NOT NULL) AS x",
    ),
    (
        "reduce variables",
        "RETURN reduce(@ = 0, y IN [1, 2] | #) AS x",
    ),
    ("UNWIND alias", "UNWIND [1, 2] AS @ RETURN # AS x"),
    ("FOREACH variable", "FOREACH (@ IN [1] | CREATE ({v: #}))"),
    (
        "imported variable",
        "WITH 1 AS @ CALL (@) { RETURN # AS y } RETURN y",
    ),
    (
        "imported WITH variable",
        "WITH 1 AS @, 2 AS w CALL { WITH #, w RETURN # AS y } RETURN y",
    ),
    ("deleted variable", "MATCH (@) DETACH DELETE #"),
    ("database name", "CREATE DATABASE @ IF NOT EXISTS WAIT"),
    (
        "dotted database name and option key",
        "ALTER DATABASE @.@ SET OPTION @ 1 REMOVE OPTION x",
    ),
    ("started database", "START DATABASE @ NOWAIT"),
    ("alias and target", "CREATE ALIAS @ FOR DATABASE @"),
    ("dropped alias", "DROP ALIAS @ IF EXISTS FOR DATABASE"),
    ("shown alias", "SHOW ALIAS @ FOR DATABASE"),
];

/// The literal keywords.
const LITERALS: &[&str] = &["FALSE", "NULL", "TRUE"];

/// The template names where Neo4j 5 refuses the keywords in [`REFUSED_AFTER_IS`].
const AFTER_IS: &[&str] = &["label after IS", "type after IS"];

fn refused(template: &str, keyword: &str) -> bool {
    AFTER_IS.contains(&template)
        && REFUSED_AFTER_IS
            .iter()
            .any(|k| k.eq_ignore_ascii_case(keyword))
}

#[test]
fn the_keyword_list_has_no_duplicates() {
    let mut upper: Vec<String> = KEYWORDS.iter().map(|k| k.to_ascii_uppercase()).collect();
    upper.sort();
    let before = upper.len();
    upper.dedup();
    assert_eq!(upper.len(), before);
    for word in REFUSED_AFTER_IS {
        assert!(KEYWORDS.contains(word), "{word}");
    }
}

#[test]
fn every_keyword_is_a_name_in_every_position_but_labels_after_is() {
    let mut failures = Vec::new();
    for &(position, template) in TEMPLATES {
        for &keyword in KEYWORDS {
            for spelling in [keyword.to_owned(), keyword.to_ascii_lowercase()] {
                let read_back = if LITERALS.contains(&keyword) {
                    format!("`{spelling}`")
                } else {
                    spelling.clone()
                };
                let query = template.replace('@', &spelling).replace('#', &read_back);
                let outcome = compile_front(&query);
                if refused(position, keyword) {
                    match outcome {
                        Err(error)
                            if error.kind.status == Status::SyntaxError
                                && error.message.contains(&format!("'{spelling}'")) => {}
                        Err(error) => failures.push(format!(
                            "{position}: {query}\n    fails without naming {spelling}: {error}"
                        )),
                        Ok(_) => failures.push(format!(
                            "{position}: {query}\n    is accepted, Neo4j 5 refuses it"
                        )),
                    }
                    continue;
                }
                match outcome {
                    Ok((statement, _)) => {
                        let printed = statement.to_string();
                        match parse(&printed) {
                            Ok(again) if again == statement => {}
                            Ok(_) => failures.push(format!(
                                "{position}: {query}\n    prints as {printed}, another tree"
                            )),
                            Err(error) => failures.push(format!(
                                "{position}: {query}\n    prints as {printed}, which fails: {error}"
                            )),
                        }
                    }
                    Err(error) => failures.push(format!("{position}: {query}\n    {error}")),
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn quoted_keywords_are_labels_after_is() {
    for keyword in REFUSED_AFTER_IS {
        let query = format!("MATCH (n IS `{keyword}`) RETURN n");
        compile_front(&query).unwrap_or_else(|e| panic!("{query}\n{e}"));
    }
}

#[test]
fn keywords_keep_their_meaning_where_they_can_stand() {
    use quiver_cypher::ast::{ClauseKind, ExprKind, StatementKind};
    let first_item = |query: &str| {
        let (statement, _) = compile_front(query).unwrap_or_else(|e| panic!("{query}\n{e}"));
        let StatementKind::Query(q) = statement.kind else {
            panic!("{query}")
        };
        let ClauseKind::Return(r) = &q.first.clauses.last().expect("a clause").kind else {
            panic!("{query}")
        };
        (
            r.projection.distinct,
            r.projection.items[0].expr.kind.clone(),
        )
    };
    let negated = first_item("WITH true AS x RETURN NOT x AS y").1;
    assert!(matches!(negated, ExprKind::Unary { .. }), "{negated:?}");
    let variable = first_item("WITH true AS not RETURN not AS y").1;
    assert!(matches!(variable, ExprKind::Variable(_)), "{variable:?}");
    let case = first_item("WITH 1 AS end RETURN CASE WHEN end > 0 THEN end ELSE 0 END AS y").1;
    assert!(matches!(case, ExprKind::Case(_)), "{case:?}");
    assert!(first_item("WITH 1 AS x RETURN DISTINCT x").0);
    assert!(!first_item("WITH 1 AS distinct RETURN distinct").0);
    let literal = first_item("WITH 123 AS true RETURN true AS x").1;
    assert!(matches!(literal, ExprKind::Literal(_)), "{literal:?}");
    let quoted = first_item("WITH 123 AS true RETURN `true` AS x").1;
    assert!(matches!(quoted, ExprKind::Variable(_)), "{quoted:?}");
    let sum = first_item("WITH [1] AS case RETURN case[0] + case[0] AS y").1;
    assert!(matches!(sum, ExprKind::Binary { .. }), "{sum:?}");
    let negated_operand = first_item("WITH 1 AS x RETURN CASE -x WHEN -1 THEN 'one' END AS y").1;
    assert!(
        matches!(negated_operand, ExprKind::Case(_)),
        "{negated_operand:?}"
    );
    // In a node pattern `WHERE` before an expression is the predicate, not a variable.
    compile_front("MATCH (WHERE true) RETURN 1").expect("a node with a predicate");
}

#[test]
fn knowledge_graph_writer_queries_parse() {
    // The shape of neo4j-graphrag's writer: `start` and `end` bind nodes.
    for query in [
        "UNWIND $rows AS row MATCH (start:__KGBuilder__ {__tmp_internal_id: row.start_node_id}) \
         MATCH (end:__KGBuilder__ {__tmp_internal_id: row.end_node_id}) \
         WITH start, end, row CALL apoc.merge.relationship(start, row.type, {}, row.properties, \
         end, row.properties) YIELD rel WITH rel, row SET rel += row.properties",
        "MATCH (end) RETURN count(end)",
        "CREATE (start:A), (end:B)",
        "MATCH (start)-[r]->(end) RETURN start.id, end.id",
    ] {
        parse(query).unwrap_or_else(|e| panic!("{query}\n{e}"));
    }
}

#[test]
fn nested_case_words_are_tried_once_per_position() {
    // Each `case -` may begin a case expression or subtract from a variable: without memoising
    // the failed case reading, this would take 2^150 attempts instead of a few hundred.
    let query = format!("WITH 1 AS case RETURN {}1 AS x", "case - ".repeat(150));
    compile_front(&query).unwrap_or_else(|e| panic!("{e}"));
    let broken = format!("RETURN {}", "CASE -".repeat(150));
    assert!(parse(&broken).is_err());
}
