//! Parse → print → parse for every construct the parser knows, and the canonical print of
//! each.

mod support;

use quiver_cypher::ast::{
    BinaryOp, ClauseKind, Direction, ExprKind, LengthRange, Literal, ProjectionItem, StatementKind,
};
use support::{verified, verified_as};

fn first_return_expr(query: &str) -> ExprKind {
    let statement = verified(query);
    let StatementKind::Query(q) = statement.kind else {
        panic!("not a query")
    };
    let clause = q.first.clauses.last().unwrap().clone();
    let ClauseKind::Return(r) = clause.kind else {
        panic!("not RETURN")
    };
    r.projection.items[0].expr.kind.clone()
}

#[test]
fn reading_clauses() {
    verified_as(
        "match (a:Person:Admin {name: 'x'})-[r:KNOWS|:LIKES*1..3]->(b) where a.age > 3 return a",
        "MATCH (a:Person:Admin {name: 'x'})-[r:KNOWS|LIKES*1..3]->(b) WHERE a.age > 3 RETURN a",
    );
    verified_as(
        "OPTIONAL MATCH (a)<--(b), p = (c)--(d) RETURN *",
        "OPTIONAL MATCH (a)<--(b), p = (c)--(d) RETURN *",
    );
    verified_as(
        "MATCH p = shortestPath((a)-[*..5]-(b)) RETURN p",
        "MATCH p = shortestPath((a)-[*..5]-(b)) RETURN p",
    );
    verified("MATCH p = allShortestPaths((a)-[:R*]->(b)) RETURN p");
    verified_as("MATCH (a)<-->(b) RETURN a", "MATCH (a)--(b) RETURN a");
    verified("MATCH (a WHERE a.x > 1)-[r:T WHERE r.w < 2]->(b) RETURN b");
    verified("MATCH (a:A&B) RETURN a");
    verified_as(
        "MATCH (n) USING INDEX n:L(p) USING SCAN m:M USING JOIN ON n WHERE n.p = 1 RETURN n",
        "MATCH (n) USING INDEX n:L(p) USING SCAN m:M USING JOIN ON n WHERE n.p = 1 RETURN n",
    );
    verified("MATCH (n) USING TEXT INDEX SEEK n:L(p, q) RETURN n");
    verified_as("UNWIND [1, 2] AS x RETURN x", "UNWIND [1, 2] AS x RETURN x");
    verified_as(
        "WITH DISTINCT a, b AS c ORDER BY a DESC, c ASC SKIP 1 LIMIT 2 WHERE a > 1 RETURN a",
        "WITH DISTINCT a, b AS c ORDER BY a DESC, c SKIP 1 LIMIT 2 WHERE a > 1 RETURN a",
    );
    verified_as("RETURN 1 AS x OFFSET 3", "RETURN 1 AS x SKIP 3");
    verified("WITH *, 1 AS x RETURN *");
}

#[test]
fn updating_clauses() {
    verified("CREATE (a:A {x: 1})-[:R {y: $p}]->(b), (c)");
    verified("CREATE (n $props)");
    verified_as(
        "merge (a:A {id: 1}) on create set a.x = 1, a += $m on match set a:B:C, a = {}",
        "MERGE (a:A {id: 1}) ON CREATE SET a.x = 1, a += $m ON MATCH SET a:B:C, a = {}",
    );
    verified("MATCH (n) SET n.a.b = 1, (n).c = 2");
    verified("MATCH (n) REMOVE n.x, n:A:B");
    verified("MATCH (n) SET n:$($label):$(['A', n.k]) REMOVE n:$(n.old), n:B");
    verified_as("MATCH (n) SET n:A:$('B')", "MATCH (n) SET n:$('A'):$('B')");
    verified_as(
        "MATCH (n) SET n IS A REMOVE n IS B",
        "MATCH (n) SET n:A REMOVE n:B",
    );
    verified("MATCH (n) DETACH DELETE n, m");
    verified_as("MATCH (n) NODETACH DELETE n", "MATCH (n) DELETE n");
    verified("FOREACH (x IN [1, 2] | CREATE (:N {v: x}) FOREACH (y IN [x] | CREATE ()))");
    verified("MATCH (n) FINISH");
}

#[test]
fn calls_and_unions() {
    verified("CALL db.labels() YIELD label AS l WHERE l <> 'x' RETURN l");
    verified("CALL db.labels");
    verified("CALL `weird name`.proc(1, 'a') YIELD *");
    verified("CALL { MATCH (n) RETURN n UNION ALL MATCH (m) RETURN m AS n } RETURN n");
    verified("MATCH (a) CALL (a) { MATCH (a)-->(b) RETURN b } RETURN b");
    verified("MATCH (a) CALL (*) { CREATE (:X) } RETURN a");
    verified("MATCH (a) CALL () { CREATE (:X) } RETURN a");
    verified(
        "UNWIND $rows AS r CALL (r) { CREATE (:N {v: r}) } IN TRANSACTIONS OF 100 ROWS \
         ON ERROR CONTINUE REPORT STATUS AS s RETURN s",
    );
    verified_as(
        "RETURN 1 AS a UNION RETURN 2 AS a UNION ALL RETURN 3 AS a",
        "RETURN 1 AS a UNION RETURN 2 AS a UNION ALL RETURN 3 AS a",
    );
}

#[test]
fn expressions() {
    verified("RETURN 1 + 2 * 3 - 4 / 5 % 6 ^ 7 AS x");
    verified_as("RETURN (1 + 2) * 3 AS x", "RETURN (1 + 2) * 3 AS x");
    verified_as("RETURN 1 - (2 - 3) AS x", "RETURN 1 - (2 - 3) AS x");
    // Unparenthesised, a run of one level is a flat chain; written parentheses keep a
    // nested operator, and print back.
    verified_as("RETURN 1 - 2 - 3 AS x", "RETURN 1 - 2 - 3 AS x");
    verified_as("RETURN (1 - 2) - 3 AS x", "RETURN (1 - 2) - 3 AS x");
    verified_as("RETURN (1 - 2 + 4) - 3 AS x", "RETURN (1 - 2 + 4) - 3 AS x");
    verified_as(
        "RETURN a AND (b AND c) AND d AS x",
        "RETURN a AND (b AND c) AND d AS x",
    );
    verified_as("RETURN 2 ^ 3 ^ 2 AS x", "RETURN 2 ^ 3 ^ 2 AS x");
    verified_as("RETURN 2 ^ (3 ^ 2) AS x", "RETURN 2 ^ (3 ^ 2) AS x");
    verified_as("RETURN -2 ^ 2 AS x", "RETURN -2 ^ 2 AS x");
    verified_as("RETURN -(2 ^ 2) AS x", "RETURN -(2 ^ 2) AS x");
    verified_as(
        "RETURN - -1 AS x, -(1) AS y, - - a AS z",
        "RETURN - -1 AS x, -(1) AS y, - -a AS z",
    );
    verified_as("RETURN NOT a = b AS x", "RETURN NOT a = b AS x");
    verified_as("RETURN (NOT a) = b AS x", "RETURN (NOT a) = b AS x");
    verified_as(
        "RETURN a OR b XOR c AND NOT d AS x",
        "RETURN a OR b XOR c AND NOT d AS x",
    );
    verified_as("RETURN (a OR b) AND c AS x", "RETURN (a OR b) AND c AS x");
    verified_as(
        "RETURN a STARTS WITH 'x' OR a ENDS WITH 'y' OR a CONTAINS 'z' OR a =~ 'r' AS x",
        "RETURN a STARTS WITH 'x' OR a ENDS WITH 'y' OR a CONTAINS 'z' OR a =~ 'r' AS x",
    );
    verified_as(
        "RETURN a IS NULL, b IS NOT NULL",
        "RETURN a IS NULL, b IS NOT NULL",
    );
    verified_as(
        "RETURN false = true IS NULL AS a",
        "RETURN false = true IS NULL AS a",
    );
    verified_as(
        "RETURN (false = true) IS NULL AS a",
        "RETURN (false = true) IS NULL AS a",
    );
    verified_as("RETURN a <> b", "RETURN a <> b");
    verified("RETURN [1, 2, 3][0] AS a, [1, 2][1..] AS b, x[..2] AS c, x[1..2] AS d");
    verified("RETURN n.a.b AS a, n['k'] AS b, (n).c AS c, n:A:B AS d");
    verified_as(
        "RETURN {a: 1, `b c`: 'x', d: {}} AS m",
        "RETURN {a: 1, `b c`: 'x', d: {}} AS m",
    );
    verified("RETURN count(*) AS a, count(DISTINCT x) AS b, date.truncate('day', d) AS c");
    verified(
        "RETURN CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END AS x, CASE a WHEN 1 THEN 'one' END AS y",
    );
    verified(
        "RETURN [x IN l WHERE x > 1 | x * 2] AS a, [x IN l WHERE x > 1] AS b, [x IN l | x] AS c, [x IN l] AS d",
    );
    verified("RETURN [(a)-[:R]->(b) WHERE b.x | b.y] AS a, [p = (a)-->() | p] AS b");
    verified(
        "RETURN all(x IN l WHERE x > 1) AS a, any(x IN l WHERE x) AS b, none(x IN l WHERE x) AS c, single(x IN l WHERE x) AS d",
    );
    verified("RETURN reduce(acc = 0, x IN l | acc + x) AS s");
    verified("RETURN n {.a, .*, b: 1, c} AS m");
    verified("MATCH (a) WHERE (a)-[:R]->(:B) AND NOT (a)<--() RETURN a");
    verified("MATCH (a) WHERE EXISTS { (a)-->(b) WHERE b.x = 1 } RETURN a");
    verified("MATCH (a) WHERE EXISTS { MATCH (a)-->(b) RETURN b } RETURN a");
    verified(
        "MATCH (a) RETURN COUNT { (a)-->() } AS c, COLLECT { MATCH (a)-->(b) RETURN b.x } AS xs",
    );
    verified("RETURN $p AS a, $0 AS b, $`odd name` AS c");
    verified("RETURN exists(n.prop) AS e");
}

#[test]
fn comparison_chains_desugar_to_and() {
    let ExprKind::Binary { op, left, right } = first_return_expr("RETURN 1 < x <= 3 AS b") else {
        panic!("not binary")
    };
    assert_eq!(op, BinaryOp::And);
    assert!(matches!(
        left.kind,
        ExprKind::Binary {
            op: BinaryOp::Lt,
            ..
        }
    ));
    assert!(matches!(
        right.kind,
        ExprKind::Binary {
            op: BinaryOp::Le,
            ..
        }
    ));
    verified_as("RETURN 1 < x <= 3 AS b", "RETURN 1 < x AND x <= 3 AS b");
    verified_as("RETURN (a < b) = c AS x", "RETURN (a < b) = c AS x");
}

#[test]
fn runs_of_one_level_are_flat_chains() {
    let ExprKind::Chain { first, rest } = first_return_expr("RETURN 1 + 2 - x * 3 + 4 AS s") else {
        panic!("not a chain")
    };
    assert_eq!(first.kind, ExprKind::Literal(Literal::Integer(1)));
    let ops: Vec<BinaryOp> = rest.iter().map(|(op, _)| *op).collect();
    assert_eq!(ops, [BinaryOp::Add, BinaryOp::Subtract, BinaryOp::Add]);
    assert!(matches!(
        rest[1].1.kind,
        ExprKind::Binary {
            op: BinaryOp::Multiply,
            ..
        }
    ));
    // A comparison chain of three is one AND chain of three comparisons.
    let ExprKind::Chain { rest, .. } = first_return_expr("RETURN 1 < x <= 3 < y AS b") else {
        panic!("not a chain")
    };
    assert!(rest.iter().all(|(op, _)| *op == BinaryOp::And));
    assert_eq!(rest.len(), 2);
    verified_as(
        "RETURN 1 < x <= 3 < y AS b",
        "RETURN 1 < x AND x <= 3 AND 3 < y AS b",
    );
    // One operator is a plain binary node.
    assert!(matches!(
        first_return_expr("RETURN a OR b AS x"),
        ExprKind::Binary {
            op: BinaryOp::Or,
            ..
        }
    ));
}

#[test]
fn a_type_test_before_less_than_keeps_its_parentheses() {
    // Bare, `ANY <` would read as the start of a parameterised type (`ANY<...>`).
    verified("RETURN (null IS :: ANY) < null AS r");
    verified("RETURN (x IS NOT :: INTEGER) <= 1 AS r");
    verified("RETURN (x IS :: LIST<ANY>) <> y AS r");
    verified_as(
        "RETURN (x IS :: ANY) > 1 AS r",
        "RETURN x IS :: ANY > 1 AS r",
    );
}

#[test]
fn literals() {
    assert_eq!(
        first_return_expr("RETURN -9223372036854775808 AS x"),
        ExprKind::Literal(Literal::Integer(i64::MIN))
    );
    assert_eq!(
        first_return_expr("RETURN -0x8000000000000000 AS x"),
        ExprKind::Literal(Literal::Integer(i64::MIN))
    );
    assert_eq!(
        first_return_expr("RETURN 0o17 AS x"),
        ExprKind::Literal(Literal::Integer(15))
    );
    verified_as(
        "RETURN 0x1F AS a, 1e3 AS b, .5 AS c, -.1e-5 AS d",
        "RETURN 31 AS a, 1000.0 AS b, 0.5 AS c, -1e-6 AS d",
    );
    verified_as("RETURN 1e20 AS a, -0.0 AS b", "RETURN 1e20 AS a, -0.0 AS b");
    verified_as(
        r#"RETURN "it's" AS a, 'tab\there' AS b, '\u00e9' AS c"#,
        r"RETURN 'it\'s' AS a, 'tab\there' AS b, 'é' AS c",
    );
    verified_as("RETURN TRUE AS a, Null AS b", "RETURN true AS a, null AS b");
}

#[test]
fn names_and_keywords() {
    verified_as(
        "MATCH (`my var`:`My Label`) RETURN `my var`.`a key`",
        "MATCH (`my var`:`My Label`) RETURN `my var`.`a key`",
    );
    verified("MATCH (n:MATCH {return: 1}) RETURN n.where AS where_");
    verified_as(
        "WITH 1 AS `count` RETURN `count`",
        "WITH 1 AS `count` RETURN `count`",
    );
    verified("MATCH (n) RETURN n.count AS count2, n.exists AS e");
    // Clause keywords are fine as variables, as in Neo4j.
    verified_as(
        "MATCH (order:Order)-[return:RETURN]->(limit) WITH order AS match RETURN match LIMIT 1",
        "MATCH (order:Order)-[return:RETURN]->(limit) WITH order AS match RETURN match LIMIT 1",
    );
    verified_as(
        "UNWIND [1] AS desc RETURN desc ORDER BY desc DESC",
        "UNWIND [1] AS desc RETURN desc ORDER BY desc DESC",
    );
    verified_as(
        "WITH 1 AS `where` RETURN `where`",
        "WITH 1 AS `where` RETURN `where`",
    );
}

#[test]
fn unaliased_items_keep_their_text() {
    let statement = verified("RETURN count( * ), x=d");
    let StatementKind::Query(q) = &statement.kind else {
        panic!()
    };
    let ClauseKind::Return(r) = &q.first.clauses[0].kind else {
        panic!()
    };
    let names: Vec<&str> = r
        .projection
        .items
        .iter()
        .map(ProjectionItem::name)
        .collect();
    assert_eq!(names, ["count( * )", "x=d"]);
    assert_eq!(statement.to_string(), "RETURN count( * ), x=d");
}

#[test]
fn patterns() {
    let statement = verified("MATCH (a)-[*]->(b)<-[:T*2]-(c)-[*1..]-(d) RETURN a");
    let StatementKind::Query(q) = statement.kind else {
        panic!()
    };
    let ClauseKind::Match(m) = &q.first.clauses[0].kind else {
        panic!()
    };
    let rels: Vec<_> = m.pattern[0].chain.relationships().collect();
    assert_eq!(
        rels[0].length,
        Some(LengthRange {
            min: None,
            max: None
        })
    );
    assert_eq!(rels[0].direction, Direction::Outgoing);
    assert_eq!(
        rels[1].length,
        Some(LengthRange {
            min: Some(2),
            max: Some(2)
        })
    );
    assert_eq!(rels[1].direction, Direction::Incoming);
    assert_eq!(
        rels[2].length,
        Some(LengthRange {
            min: Some(1),
            max: None
        })
    );
    assert_eq!(rels[2].direction, Direction::Both);
    verified_as(
        "MATCH (a)-[:T*2..2]->(b) RETURN a",
        "MATCH (a)-[:T*2]->(b) RETURN a",
    );
    verified_as("MATCH ()-[*..]->() RETURN 1", "MATCH ()-[*]->() RETURN 1");
}

#[test]
fn schema_and_admin() {
    verified(
        "CREATE RANGE INDEX person_name IF NOT EXISTS FOR (n:Person) ON (n.name, n.age) OPTIONS {indexProvider: 'range-1.0'}",
    );
    verified_as(
        "CREATE INDEX FOR ()-[r:KNOWS]->() ON (r.since)",
        "CREATE RANGE INDEX FOR ()-[r:KNOWS]-() ON (r.since)",
    );
    verified("CREATE TEXT INDEX t FOR (n:Doc) ON (n.body)");
    verified(
        "CREATE VECTOR INDEX v IF NOT EXISTS FOR (n:Doc) ON (n.embedding) OPTIONS {indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: 'cosine'}}",
    );
    verified("CREATE VECTOR INDEX FOR ()-[r:SIMILAR]-() ON (r.e)");
    verified_as(
        "CREATE VECTOR INDEX plots FOR (m:Movie) ON m.embedding WITH [m.year, m.rating] OPTIONS {}",
        "CREATE VECTOR INDEX plots FOR (m:Movie) ON (m.embedding) WITH [m.year, m.rating] OPTIONS {}",
    );
    verified("CREATE LOOKUP INDEX FOR (n) ON EACH labels(n)");
    verified("CREATE LOOKUP INDEX FOR ()-[r]-() ON EACH type(r)");
    verified("DROP INDEX person_name IF EXISTS");
    verified("CREATE CONSTRAINT c IF NOT EXISTS FOR (n:Person) REQUIRE n.id IS UNIQUE");
    verified_as(
        "CREATE CONSTRAINT FOR (n:P) REQUIRE (n.a, n.b) IS KEY",
        "CREATE CONSTRAINT FOR (n:P) REQUIRE (n.a, n.b) IS NODE KEY",
    );
    verified("CREATE CONSTRAINT FOR ()-[r:R]-() REQUIRE r.x IS NOT NULL");
    verified_as(
        "CREATE CONSTRAINT c FOR (n:L) REQUIRE n.x IS :: INTEGER | STRING",
        "CREATE CONSTRAINT c FOR (n:L) REQUIRE n.x IS :: ANY<INTEGER | STRING>",
    );
    verified_as(
        "CREATE CONSTRAINT FOR ()-[r:R]-() REQUIRE r.x IS TYPED LIST<FLOAT NOT NULL>",
        "CREATE CONSTRAINT FOR ()-[r:R]-() REQUIRE r.x IS :: LIST<FLOAT NOT NULL>",
    );
    verified("DROP CONSTRAINT c");
    // Names given by parameters, and options computed from them, in every command.
    verified(
        "CREATE VECTOR INDEX $name IF NOT EXISTS FOR (n:Chunk) ON (n.embedding) OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: $similarity_fn}}",
    );
    verified("CREATE FULLTEXT INDEX $name IF NOT EXISTS FOR (n:Chunk) ON EACH [n.text]");
    verified("CREATE TEXT INDEX $`the name` FOR (n:Doc) ON (n.body)");
    verified("CREATE CONSTRAINT $c FOR (n:Person) REQUIRE n.id IS UNIQUE");
    verified("CREATE CONSTRAINT $c FOR (n:Person) REQUIRE n.id IS :: STRING");
    verified("DROP INDEX $name IF EXISTS");
    verified("DROP CONSTRAINT $name");
    verified_as("SHOW INDEXES", "SHOW INDEXES");
    verified_as(
        "SHOW RANGE INDEX WHERE name = 'x'",
        "SHOW RANGE INDEXES WHERE name = 'x'",
    );
    verified(
        "SHOW CONSTRAINTS YIELD name, type AS t ORDER BY name SKIP 1 LIMIT 5 WHERE t = 'x' RETURN name",
    );
    verified("SHOW UNIQUE CONSTRAINTS");
    verified("SHOW TRANSACTIONS");
    verified("SHOW TRANSACTIONS 'neo4j-transaction-1', 'neo4j-transaction-2' YIELD *");
    verified("TERMINATE TRANSACTIONS $ids");
    verified("SHOW PROCEDURES");
    verified("SHOW FUNCTIONS");
    verified("SHOW DATABASES");
    verified_as("SHOW DATABASE neo4j", "SHOW DATABASE neo4j");
    verified_as(
        "SHOW DATABASES `my-db` YIELD *",
        "SHOW DATABASE `my-db` YIELD *",
    );
    verified("SHOW DEFAULT DATABASE");
    verified("SHOW HOME DATABASE WHERE name = 'neo4j'");
    verified("SHOW SETTINGS");
    verified_as(
        "SHOW SETTING 'a', $b YIELD name",
        "SHOW SETTINGS 'a', $b YIELD name",
    );
    verified("SHOW CURRENT USER YIELD user RETURN user");
    verified("SHOW SERVERS");
    verified_as(
        "SHOW SERVER YIELD name, address WHERE address <> '' RETURN name",
        "SHOW SERVERS YIELD name, address WHERE address <> '' RETURN name",
    );
    verified("EXPLAIN MATCH (n) RETURN n");
    verified("PROFILE MATCH (n) RETURN n");
}

#[test]
fn database_management() {
    // CREATE: every part in its one order; the counts of a topology print singular for one.
    verified("CREATE DATABASE sales");
    verified(
        "CREATE DATABASE sales IF NOT EXISTS TOPOLOGY 1 PRIMARY 2 SECONDARIES OPTIONS {existingData: 'use', seedURI: $uri} WAIT 30 SECONDS",
    );
    verified("CREATE OR REPLACE DATABASE sales TOPOLOGY 3 PRIMARIES OPTIONS $options NOWAIT");
    verified("CREATE DATABASE $name WAIT");
    verified_as(
        "create database sales topology 1 secondaries 3 primary wait 5 sec",
        "CREATE DATABASE sales TOPOLOGY 3 PRIMARIES 1 SECONDARY WAIT 5 SECONDS",
    );
    verified_as(
        "CREATE DATABASE sales TOPOLOGY 2 SECONDARY WAIT 1 SECOND",
        "CREATE DATABASE sales TOPOLOGY 2 SECONDARIES WAIT 1 SECONDS",
    );
    verified_as(
        "CREATE DATABASE sales WAIT 10",
        "CREATE DATABASE sales WAIT 10 SECONDS",
    );
    // Unquoted dots join the parts into one name, printed quoted; quotes keep any name.
    verified_as("CREATE DATABASE main.db", "CREATE DATABASE `main.db`");
    verified_as(
        "DROP DATABASE a.b.c IF EXISTS",
        "DROP DATABASE `a.b.c` IF EXISTS",
    );
    verified_as("CREATE DATABASE `a_b`", "CREATE DATABASE a_b");
    verified("CREATE DATABASE `my-db`");
    // Keywords name databases: the engine refuses `system`, the parser does not.
    verified("CREATE DATABASE data");
    verified("DROP DATABASE system");
    verified("CREATE DATABASE if IF NOT EXISTS");
    verified("START DATABASE wait WAIT");
    // DROP: `DESTROY DATA` is what happens when neither is written.
    verified("DROP DATABASE sales IF EXISTS DUMP DATA NOWAIT");
    verified_as(
        "DROP DATABASE sales DESTROY DATA WAIT",
        "DROP DATABASE sales WAIT",
    );
    verified("DROP DATABASE $name");
    // ALTER: access, then topology, then the options in the order written.
    verified("ALTER DATABASE sales SET ACCESS READ ONLY");
    verified("ALTER DATABASE sales IF EXISTS SET ACCESS READ WRITE WAIT 5 SECONDS");
    verified("ALTER DATABASE sales SET TOPOLOGY 1 PRIMARY 0 SECONDARIES");
    verified("ALTER DATABASE sales SET OPTION txLogEnrichment 'FULL' REMOVE OPTION other NOWAIT");
    verified("ALTER DATABASE $db SET OPTION txLogEnrichment $value");
    verified_as(
        "ALTER DATABASE sales REMOVE OPTION b SET TOPOLOGY 2 SECONDARIES SET OPTION a 1 SET ACCESS READ ONLY",
        "ALTER DATABASE sales SET ACCESS READ ONLY SET TOPOLOGY 2 SECONDARIES REMOVE OPTION b SET OPTION a 1",
    );
    // START and STOP.
    verified("START DATABASE sales");
    verified("STOP DATABASE `main.db` WAIT 3 SECONDS");
    verified_as(
        "stop database main.db nowait",
        "STOP DATABASE `main.db` NOWAIT",
    );
    verified("START DATABASE $db WAIT");
    // Prefixes apply as to any statement.
    verified("EXPLAIN CREATE DATABASE sales");
    // The commands these share their first words with still read as before.
    verified("CREATE (database:Database)");
    verified("CREATE database = (n)-[:R]->(m)");
    verified("MATCH (data) RETURN data");
    verified("USE neo4j MATCH (n) RETURN n");
    verified("CREATE USER ann SET PASSWORD $p SET HOME DATABASE `main.db`");
    verified_as(
        "ALTER USER ann SET HOME DATABASE main.db",
        "ALTER USER ann SET HOME DATABASE `main.db`",
    );
    verified("DROP INDEX i");
    verified_as("SHOW DATABASE main.db", "SHOW DATABASE `main.db`");
}

#[test]
fn database_aliases() {
    verified("CREATE ALIAS reports FOR DATABASE sales");
    verified(
        "CREATE ALIAS `main.reports` IF NOT EXISTS FOR DATABASE sales PROPERTIES {team: 'bi', n: 1}",
    );
    verified("CREATE OR REPLACE ALIAS reports FOR DATABASE $db PROPERTIES $props");
    verified("CREATE ALIAS $alias FOR DATABASE $db");
    verified_as(
        "create alias a.b for database c.d",
        "CREATE ALIAS `a.b` FOR DATABASE `c.d`",
    );
    verified("ALTER ALIAS reports SET DATABASE TARGET sales");
    verified("ALTER ALIAS reports IF EXISTS SET DATABASE PROPERTIES {team: 'bi'}");
    verified("ALTER ALIAS reports SET DATABASE TARGET sales PROPERTIES $props");
    verified_as(
        "ALTER ALIAS reports SET DATABASE PROPERTIES {} TARGET sales",
        "ALTER ALIAS reports SET DATABASE TARGET sales PROPERTIES {}",
    );
    verified("DROP ALIAS reports FOR DATABASE");
    verified("DROP ALIAS $alias IF EXISTS FOR DATABASE");
    // SHOW: singular and plural read alike, and print by whether a name is given.
    verified("SHOW ALIASES FOR DATABASES");
    verified_as("SHOW ALIAS FOR DATABASE", "SHOW ALIASES FOR DATABASES");
    verified("SHOW ALIAS reports FOR DATABASE");
    verified_as(
        "SHOW ALIASES reports FOR DATABASES WHERE name = 'reports'",
        "SHOW ALIAS reports FOR DATABASE WHERE name = 'reports'",
    );
    verified("SHOW ALIAS $alias FOR DATABASE YIELD name, database AS db ORDER BY name RETURN db");
    verified("SHOW ALIASES FOR DATABASES YIELD * WHERE database = 'sales'");
    verified_as(
        "SHOW ALIAS a.b FOR DATABASE",
        "SHOW ALIAS `a.b` FOR DATABASE",
    );
    // An alias named `for` is read as a name: only `FOR DATABASE` ends the name.
    verified("SHOW ALIAS for FOR DATABASE");
}

#[test]
fn list_literals_that_look_like_comprehensions_stay_lists() {
    verified_as("RETURN [(x IN y)] AS l", "RETURN [(x IN y)] AS l");
    verified_as(
        "RETURN [(x IN y) AND z, 1] AS l",
        "RETURN [(x IN y AND z), 1] AS l",
    );
    verified_as("RETURN [(a)-->(b)] AS l", "RETURN [(a)-->(b)] AS l");
    verified_as("RETURN [(1 + 2)] AS l", "RETURN [1 + 2] AS l");
    // Any word names a comprehension's variable, literals too: `[null IN x]` is one.
    verified_as("RETURN [(null IN y)] AS l", "RETURN [(null IN y)] AS l");
    verified_as(
        "RETURN [(true IN y), 1] AS l",
        "RETURN [(true IN y), 1] AS l",
    );
}

#[test]
fn neo4j_5_dialect() {
    verified_as(
        "cypher 5 runtime=Slotted explain match (n) return n",
        "CYPHER 5 runtime=slotted EXPLAIN MATCH (n) RETURN n",
    );
    verified_as(
        "USE neo4j MATCH (n) RETURN n",
        "USE neo4j MATCH (n) RETURN n",
    );
    verified_as(
        "MATCH (n:A|B&!C)-[r:!T]->(m IS %) WHERE n:(A|B) AND m IS X RETURN n",
        "MATCH (n:A|B&!C)-[r:!T]->(m:%) WHERE n:(A|B) AND m:X RETURN n",
    );
    verified_as(
        "RETURN 1 IS NOT TYPED INT NOT NULL AS a, [] :: LIST<INTEGER | FLOAT> AS b",
        "RETURN 1 IS NOT :: INTEGER NOT NULL AS a, [] IS :: LIST<ANY<INTEGER | FLOAT>> AS b",
    );
    verified_as(
        "UNWIND [1] AS x LET y = x FILTER WHERE y > 0 ORDER BY y LIMIT 1 RETURN y",
        "UNWIND [1] AS x WITH *, x AS y WITH * WHERE y > 0 WITH * ORDER BY y LIMIT 1 RETURN y",
    );
}

#[test]
fn quantified_path_patterns_selectors_and_dynamic_labels_print_back() {
    verified("MATCH (a)-[r:T]->{1,3}(b) RETURN b");
    verified("MATCH p = (a) ((x)-[r:T WHERE r.w > 1]->(y) WHERE x.n < y.n){2,} (b) RETURN p");
    verified("MATCH () ((x)-->(y)){1,2} () ((u)-->(v)){0,1} (b) RETURN b");
    verified("MATCH p = SHORTEST 2 GROUPS ACYCLIC (a)-[:R]-{1,}(b) RETURN p");
    verified("MATCH p = ANY 3 TRAIL (a)-->{0,}(b), q = ALL SHORTEST (c)-->{1,}(d) RETURN p");
    verified("MATCH (n:$($label):$any(['A', 'B'])) MERGE (m:$(n.kind)) RETURN n");
    verified_as(
        "MATCH (a)-->+(b)-->*(c) RETURN c",
        "MATCH (a)-->{1,}(b)-->{0,}(c) RETURN c",
    );
    verified_as(
        "MATCH p = ANY SHORTEST WALK PATH (a)-->{2}(b) RETURN p",
        "MATCH p = SHORTEST 1 WALK (a)-->{2,2}(b) RETURN p",
    );
    verified_as(
        "MATCH ((x)-->(y)){1,2} RETURN x",
        "MATCH () ((x)-->(y)){1,2} () RETURN x",
    );
    verified_as("MATCH (n:$all('A')) RETURN n", "MATCH (n:$('A')) RETURN n");
}

#[test]
fn use_before_a_command_names_its_database_and_prints_back() {
    let statement = verified_as("use system show users", "USE system SHOW USERS");
    assert_eq!(
        statement.graph.map(|g| g.qualified()),
        Some("system".to_owned())
    );
    verified_as(
        "USE `my-db` SHOW INDEXES YIELD name",
        "USE `my-db` SHOW INDEXES YIELD name",
    );
    // Before a query, `USE` stays its first clause.
    let query = verified("USE movies MATCH (n) RETURN n");
    assert!(query.graph.is_none());
}
