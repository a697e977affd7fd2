//! The semantic pass: the errors it raises (status, detail, position) and what it tells the
//! planner.

use quiver_cypher::ast::{ClauseKind, Statement, StatementKind};
use quiver_cypher::semantic::{
    ProcedureCatalog, ProcedureInput, ProcedureSignature, ScopeVar, Type, VarKind,
};
use quiver_cypher::{Analysis, AnalyzeOptions, analyze, analyze_with, compile_front, parse};

fn detail(query: &str) -> &'static str {
    match compile_front(query) {
        Ok(_) => panic!("expected an error for {query}"),
        Err(error) => error.detail().unwrap_or("none"),
    }
}

fn ok(query: &str) -> (Statement, Analysis) {
    compile_front(query).unwrap_or_else(|e| panic!("{query}\n{e}"))
}

#[test]
fn scoping() {
    assert_eq!(detail("MATCH (a) RETURN b"), "UndefinedVariable");
    assert_eq!(
        detail("MATCH (a) WITH a AS b RETURN a"),
        "UndefinedVariable"
    );
    assert_eq!(
        detail("UNWIND [1] AS x UNWIND [2] AS x RETURN x"),
        "VariableAlreadyBound"
    );
    assert_eq!(
        detail("MATCH (a) WITH 1 AS x, 2 AS x RETURN x"),
        "ColumnNameConflict"
    );
    assert_eq!(detail("MATCH (a) WITH a.x RETURN 1"), "NoExpressionAlias");
    assert_eq!(detail("RETURN *"), "NoVariablesInScope");
    ok("MATCH (a) WITH a RETURN a");
    ok("MATCH (a) WITH * RETURN a");
    // ORDER BY sees dropped variables unless the projection is DISTINCT or aggregating.
    ok("MATCH (a) RETURN a.x AS x ORDER BY a.y");
    assert_eq!(
        detail("MATCH (a) RETURN DISTINCT a.x AS x ORDER BY a.y"),
        "UndefinedVariable"
    );
    ok("MATCH (a) RETURN DISTINCT a.x ORDER BY a.x");
    // Comprehension variables are local.
    assert_eq!(detail("RETURN [x IN [1] | x] AS l, x"), "UndefinedVariable");
}

#[test]
fn unions() {
    ok("RETURN 1 AS a UNION RETURN 2 AS a");
    assert_eq!(
        detail("RETURN 1 AS a UNION RETURN 2 AS b"),
        "DifferentColumnsInUnion"
    );
    assert_eq!(
        detail("RETURN 1 AS a UNION ALL RETURN 2 AS a UNION RETURN 3 AS a"),
        "InvalidClauseComposition"
    );
}

#[test]
fn subqueries() {
    ok("MATCH (a) CALL { WITH a MATCH (a)-->(b) RETURN b } RETURN a, b");
    ok("MATCH (a) CALL (a) { MATCH (a)-->(b) RETURN b } RETURN a, b");
    assert_eq!(
        detail("MATCH (a) CALL { MATCH (a)-->(b) RETURN a } RETURN a"),
        "VariableAlreadyBound",
        "without the importing WITH, the inner `a` is new and clashes on return"
    );
    ok("MATCH (a) CALL { MATCH (a)-->(b) RETURN b } RETURN a, b");
    assert_eq!(
        detail("MATCH (a) CALL () { RETURN a AS x } RETURN x"),
        "UndefinedVariable"
    );
    assert_eq!(
        detail("MATCH (a) CALL (b) { RETURN 1 AS x } RETURN x"),
        "UndefinedVariable"
    );
    assert_eq!(
        detail("WITH 1 AS x CALL { RETURN 2 AS x } RETURN x"),
        "VariableAlreadyBound"
    );
    ok("MATCH (a) CALL (a) { CREATE (:B)-[:R]->(a) } RETURN a");
    assert_eq!(
        detail("MATCH (a) CALL { RETURN 1 AS x }"),
        "InvalidClauseComposition"
    );
    ok("MATCH (a) WHERE EXISTS { MATCH (a)-->(b) WHERE b.x = 1 } RETURN a");
    ok("MATCH (a) RETURN COUNT { (a)-->(b) } AS c, COLLECT { MATCH (a)-->(b) RETURN b.x } AS xs");
    assert_eq!(
        detail("MATCH (a) RETURN COLLECT { MATCH (a)-->(b) RETURN b.x, b.y } AS xs"),
        "InvalidClauseComposition"
    );
    assert_eq!(
        detail("MATCH (a) WHERE EXISTS { CREATE (b) } RETURN a"),
        "InvalidClauseComposition"
    );
}

#[test]
fn query_endings() {
    assert_eq!(detail("MATCH (n)"), "InvalidClauseComposition");
    assert_eq!(detail("MATCH (n) WITH n"), "InvalidClauseComposition");
    assert_eq!(
        detail("RETURN 1 AS x RETURN 2 AS y"),
        "InvalidClauseComposition"
    );
    ok("MATCH (n) SET n.x = 1");
    ok("MATCH (n) FINISH");
    ok("CREATE (n)");
}

#[test]
fn aggregation() {
    assert_eq!(
        detail("MATCH (a) WHERE count(a) > 1 RETURN a"),
        "InvalidAggregation"
    );
    assert_eq!(detail("RETURN count(count(*))"), "NestedAggregation");
    assert_eq!(detail("RETURN count(rand())"), "NonConstantExpression");
    assert_eq!(
        detail("MATCH (a) RETURN a.x + count(*)"),
        "AmbiguousAggregationExpression"
    );
    assert_eq!(
        detail("MATCH (a) RETURN [x IN [1] | count(x)] AS c"),
        "InvalidAggregation"
    );
    assert_eq!(detail("MATCH (a) SET a.c = count(*)"), "InvalidAggregation");
    ok("MATCH (a) RETURN a.x, a.x + count(*)");
    ok("MATCH (a) RETURN a, a.x + count(*)");
    ok("MATCH (a) RETURN [x IN collect(a) | x.name] AS names");
    ok("MATCH (a) RETURN a.x AS k, count(*) AS c ORDER BY c DESC, k");
    assert_eq!(
        detail("MATCH (a) RETURN count(*) AS c ORDER BY a.x"),
        "UndefinedVariable"
    );
}

#[test]
fn projection_info_for_the_planner() {
    let (statement, analysis) =
        ok("MATCH (a)-->(b) WITH a, count(b) AS n ORDER BY n DESC RETURN a.name, n");
    let StatementKind::Query(query) = &statement.kind else {
        panic!("query")
    };
    let with = &query.first.clauses[1];
    assert!(matches!(with.kind, ClauseKind::With(_)));
    let info = analysis.projection(with).expect("WITH is described");
    assert!(info.aggregating);
    let names: Vec<&str> = info.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "n"]);
    assert_eq!(info.grouping_items().collect::<Vec<_>>(), [0]);
    assert_eq!(info.columns[0].ty, Type::Node);
    assert_eq!(info.columns[1].ty, Type::Integer);
    assert_eq!(info.order_by_columns, [Some(1)]);
    assert_eq!(analysis.columns, ["a.name", "n"]);
    assert!(!analysis.writes);

    let (statement, analysis) = ok("MATCH (a) WITH * RETURN *, 1 AS one");
    let StatementKind::Query(query) = &statement.kind else {
        panic!("query")
    };
    let info = analysis.projection(&query.first.clauses[2]).unwrap();
    assert_eq!(info.columns[0].item, None);
    assert_eq!(analysis.columns, ["a", "one"]);

    let (_, analysis) = ok("UNWIND $rows AS r CREATE (n {v: r})");
    assert!(analysis.writes);
    assert!(analysis.columns.is_empty());
}

/// `(name, kind, introduced)` of every variable visible after a clause, by name.
fn scope_after(
    analysis: &Analysis,
    clause: &quiver_cypher::ast::Clause,
) -> Vec<(String, VarKind, bool)> {
    analysis
        .scope_after(clause.span)
        .expect("the clause is recorded")
        .iter()
        .map(
            |ScopeVar {
                 name,
                 kind,
                 introduced,
             }| (name.clone(), *kind, *introduced),
        )
        .collect()
}

#[test]
fn scopes_after_each_clause_for_the_planner() {
    let (statement, analysis) = ok("MATCH p = (a)-[r]->(b) UNWIND [1, 2] AS x \
         WITH a, x, [r] AS rs, $q AS q FOREACH (y IN [1] | CREATE (a)-[:T]->(c)) \
         RETURN a, count(*) AS n");
    let StatementKind::Query(query) = &statement.kind else {
        panic!("query")
    };
    let clauses = &query.first.clauses;
    let owned = |v: &[(&str, VarKind, bool)]| -> Vec<(String, VarKind, bool)> {
        v.iter().map(|(n, k, i)| (n.to_string(), *k, *i)).collect()
    };
    assert_eq!(
        scope_after(&analysis, &clauses[0]),
        owned(&[
            ("a", VarKind::Node, true),
            ("b", VarKind::Node, true),
            ("p", VarKind::Path, true),
            ("r", VarKind::Relationship, true),
        ])
    );
    let unwound = scope_after(&analysis, &clauses[1]);
    assert_eq!(unwound[0], ("a".to_string(), VarKind::Node, false));
    assert_eq!(unwound[4], ("x".to_string(), VarKind::Value, true));
    assert_eq!(
        scope_after(&analysis, &clauses[2]),
        owned(&[
            ("a", VarKind::Node, false),
            ("q", VarKind::Any, true),
            ("rs", VarKind::Value, true),
            ("x", VarKind::Value, false),
        ])
    );
    // A FOREACH binds nothing outside; its body's clauses see its variable.
    assert_eq!(
        scope_after(&analysis, &clauses[3]),
        owned(&[
            ("a", VarKind::Node, false),
            ("q", VarKind::Any, false),
            ("rs", VarKind::Value, false),
            ("x", VarKind::Value, false),
        ])
    );
    let ClauseKind::Foreach(foreach) = &clauses[3].kind else {
        panic!("FOREACH")
    };
    let body = scope_after(&analysis, &foreach.clauses[0]);
    assert!(body.contains(&("c".to_string(), VarKind::Node, true)));
    assert!(body.contains(&("y".to_string(), VarKind::Value, false)));
    assert_eq!(
        scope_after(&analysis, &clauses[4]),
        owned(&[("a", VarKind::Node, false), ("n", VarKind::Value, true)])
    );
}

#[test]
fn order_by_reads_a_projected_expression_then_an_alias() {
    let info = |query: &str| {
        let (statement, analysis) = ok(query);
        let StatementKind::Query(q) = &statement.kind else {
            panic!("query")
        };
        let last = q.first.clauses.last().expect("a clause");
        analysis
            .projection(last)
            .expect("RETURN")
            .order_by_columns
            .clone()
    };
    assert_eq!(
        info("MATCH (a) RETURN a.x AS x, a ORDER BY a.x, x, a, a.y"),
        [Some(0), Some(0), Some(1), None]
    );
    // An alias renaming another projected variable: the expression wins.
    assert_eq!(
        info("WITH 1 AS a, 2 AS x RETURN a AS x, x AS a ORDER BY x, a"),
        [Some(1), Some(0)]
    );
    // A variable carried by `*` is its own expression.
    assert_eq!(
        info("WITH 1 AS a, 2 AS b RETURN *, a AS c ORDER BY a, c"),
        [Some(0), Some(2)]
    );
}

#[test]
fn patterns_in_match() {
    assert_eq!(
        detail("MATCH (a)-[r]->()-[r]->(a) RETURN r"),
        "RelationshipUniquenessViolation"
    );
    assert_eq!(detail("MATCH ()-[r]-(r) RETURN r"), "VariableTypeConflict");
    assert_eq!(
        detail("WITH 1 AS n MATCH (n) RETURN n"),
        "VariableTypeConflict"
    );
    assert_eq!(
        detail("MATCH (p) MATCH p = ()--() RETURN p"),
        "VariableAlreadyBound"
    );
    assert_eq!(detail("MATCH (n $props) RETURN n"), "InvalidParameterUse");
    assert_eq!(
        detail("MATCH (n) WHERE (n)-[r]->() RETURN n"),
        "UndefinedVariable"
    );
    assert_eq!(detail("MATCH (n) RETURN (n)-->()"), "UnexpectedSyntax");
    assert_eq!(detail("MATCH (n) WHERE n RETURN n"), "InvalidArgumentType");
    ok("MATCH (n) WHERE (n)-->() AND NOT (n)<--() RETURN n");
    ok("MATCH (a)-[r]->(b) MATCH (a)-[r]->(c) RETURN c");
    ok("MATCH (n) RETURN [(n)-->(m) | m.x] AS xs");
    ok("MATCH (n WHERE n.x > 1) RETURN n");
}

#[test]
fn patterns_in_create_and_merge() {
    assert_eq!(detail("MATCH (a) CREATE (a)"), "VariableAlreadyBound");
    assert_eq!(
        detail("MATCH (a) CREATE (a:L)-[:R]->()"),
        "VariableAlreadyBound"
    );
    assert_eq!(detail("CREATE (a)-[:R|S]->(b)"), "NoSingleRelationshipType");
    assert_eq!(detail("CREATE (a)-->(b)"), "NoSingleRelationshipType");
    assert_eq!(
        detail("CREATE (a)-[:R]-(b)"),
        "RequiresDirectedRelationship"
    );
    assert_eq!(detail("CREATE (a)-[:R*2]->(b)"), "CreatingVarLength");
    assert_eq!(detail("MERGE (a)-[:R*2]->(b)"), "CreatingVarLength");
    assert_eq!(detail("MERGE (n $p)"), "InvalidParameterUse");
    assert_eq!(
        detail("MATCH ()-[r]->() CREATE ()-[r:R]->()"),
        "VariableAlreadyBound"
    );
    ok("MATCH (a) CREATE (a)-[:R]->(b:B {x: a.x})");
    ok("CREATE (n $props)");
    ok("MERGE (a:A {id: 1}) MERGE (a)-[:R]-(b:B) ON CREATE SET b.new = true");
}

#[test]
fn updates() {
    assert_eq!(detail("MATCH (n) DELETE n:Person"), "InvalidDelete");
    assert_eq!(detail("MATCH (n) DELETE 1 + 1"), "InvalidArgumentType");
    assert_eq!(detail("MATCH (n) SET x.a = 1"), "UndefinedVariable");
    assert_eq!(detail("WITH 1 AS x SET x.a = 1"), "InvalidArgumentType");
    assert_eq!(detail("MATCH ()-[r]->() SET r:L"), "InvalidArgumentType");
    assert_eq!(
        detail("MATCH (n) FOREACH (x IN [1] | MATCH (m) CREATE (m))"),
        "InvalidClauseComposition"
    );
    ok("MATCH (n) FOREACH (x IN n.list | CREATE (:N {v: x}))");
    ok("MATCH p = (a)-->(b) DETACH DELETE p");
}

#[test]
fn skip_and_limit() {
    assert_eq!(
        detail("MATCH (n) RETURN n SKIP n.x"),
        "NonConstantExpression"
    );
    assert_eq!(detail("RETURN 1 AS x LIMIT -1"), "NegativeIntegerArgument");
    assert_eq!(detail("RETURN 1 AS x LIMIT 1.5"), "InvalidArgumentType");
    assert_eq!(detail("RETURN 1 AS x LIMIT 'a'"), "InvalidArgumentType");
    ok("RETURN 1 AS x SKIP $s LIMIT toInteger(2.5) + 1");
}

#[test]
fn functions_and_types() {
    assert_eq!(detail("RETURN nope(1)"), "UnknownFunction");
    assert_eq!(detail("RETURN abs()"), "InvalidNumberOfArguments");
    assert_eq!(detail("RETURN abs(1, 2)"), "InvalidNumberOfArguments");
    assert_eq!(
        detail("MATCH p = ()-->() RETURN labels(p)"),
        "InvalidArgumentType"
    );
    assert_eq!(detail("MATCH (n) RETURN length(n)"), "InvalidArgumentType");
    assert_eq!(detail("RETURN 1 AND true"), "InvalidArgumentType");
    assert_eq!(detail("RETURN 1 IN 'abc'"), "InvalidArgumentType");
    assert_eq!(detail("RETURN 'a' % 2"), "InvalidArgumentType");
    assert_eq!(
        detail("MATCH p = ()-->() RETURN p.x"),
        "InvalidArgumentType"
    );
    let error = compile_front("WITH 1 AS x RETURN x.y").unwrap_err();
    assert_eq!(error.status_code(), "Neo.ClientError.Statement.TypeError");
    ok("RETURN date.truncate('day', date()) AS d, COALESCE(null, 1) AS c, 'a' + 1 AS s");
    ok("UNWIND [1, 'a'] AS x RETURN x % 2");
}

struct Procedures;

impl ProcedureCatalog for Procedures {
    fn procedure(&self, name: &str) -> Option<ProcedureSignature> {
        (name == "db.labels").then(|| ProcedureSignature {
            inputs: vec![ProcedureInput {
                name: "limit".into(),
                has_default: true,
            }],
            outputs: vec!["label".into()],
        })
    }
}

fn with_procedures(query: &str) -> Result<Analysis, quiver_cypher::Error> {
    let statement = parse(query)?;
    let options = AnalyzeOptions {
        procedures: Some(&Procedures),
        ..AnalyzeOptions::default()
    };
    analyze_with(&statement, query, &options)
}

#[test]
fn procedures() {
    assert_eq!(
        with_procedures("CALL db.labels").unwrap().columns,
        ["label"]
    );
    assert_eq!(
        with_procedures("CALL db.labels() YIELD *").unwrap().columns,
        ["label"]
    );
    let analysis = with_procedures("CALL db.labels YIELD label AS l").unwrap();
    assert_eq!(analysis.columns, ["l"]);
    assert_eq!(analysis.parameters[0].name, "limit");
    let detail_of = |q: &str| with_procedures(q).unwrap_err().detail().unwrap_or("none");
    assert_eq!(detail_of("CALL db.nope()"), "ProcedureNotFound");
    assert_eq!(
        with_procedures("CALL db.nope()").unwrap_err().status_code(),
        "Neo.ClientError.Procedure.ProcedureNotFound"
    );
    assert_eq!(
        detail_of("CALL db.labels(1, 2)"),
        "InvalidNumberOfArguments"
    );
    assert_eq!(
        detail_of("MATCH (n) CALL db.labels() YIELD * RETURN 1"),
        "UnexpectedSyntax"
    );
    assert_eq!(
        detail_of("MATCH (n) CALL db.labels YIELD label RETURN label"),
        "UnexpectedSyntax"
    );
    assert_eq!(
        detail_of("WITH 1 AS label CALL db.labels() YIELD label RETURN label"),
        "VariableAlreadyBound"
    );
    assert_eq!(
        detail_of("CALL db.labels() YIELD nope"),
        "UndefinedVariable"
    );
    assert!(
        with_procedures(
            "MATCH (n) CALL db.labels() YIELD label WHERE label <> 'x' RETURN n, label"
        )
        .is_ok()
    );
    // Without a catalog, procedure calls are taken as written.
    let statement = parse("CALL anything.at.all(1) YIELD x RETURN x").unwrap();
    assert!(analyze(&statement, "CALL anything.at.all(1) YIELD x RETURN x").is_ok());
}

#[test]
fn errors_point_at_the_offending_text() {
    let query = "MATCH (a)\nWHERE a.x = 1\nRETURN b";
    let error = compile_front(query).unwrap_err();
    assert_eq!((error.position.line, error.position.column), (3, 8));
    assert_eq!(
        error.to_string(),
        "Variable `b` not defined (line 3, column 8 (offset: 31))\n\"RETURN b\"\n        ^"
    );
    assert_eq!(error.status_code(), "Neo.ClientError.Statement.SyntaxError");
}

#[test]
fn database_commands_read_constants_and_parameters_only() {
    // Options, properties and option values are checked like a password: no variable is in
    // scope, and the parameters they read are reported for the caller to supply.
    assert_eq!(
        detail("CREATE DATABASE d OPTIONS {seedURI: uri}"),
        "UndefinedVariable"
    );
    assert_eq!(
        detail("ALTER DATABASE d SET OPTION txLogEnrichment mode"),
        "UndefinedVariable"
    );
    assert_eq!(
        detail("CREATE ALIAS a FOR DATABASE d PROPERTIES {team: team}"),
        "UndefinedVariable"
    );
    let (_, analysis) =
        ok("CREATE OR REPLACE DATABASE d OPTIONS {seedURI: $uri, existingData: 'use'} WAIT");
    let names: Vec<&str> = analysis
        .parameters
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["uri"]);
    let (_, analysis) = ok("ALTER ALIAS a SET DATABASE TARGET d PROPERTIES $props");
    assert_eq!(analysis.parameters.len(), 1);
    assert!(analysis.columns.is_empty());
    ok("STOP DATABASE $name NOWAIT");
    ok("SHOW ALIASES FOR DATABASES YIELD name WHERE name STARTS WITH $prefix");
}
