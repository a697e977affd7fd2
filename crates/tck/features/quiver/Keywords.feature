#encoding: utf-8

# Quiver's own scenarios, from Neo4j 5's rule that a word is read as a keyword only where it can
# be one: any keyword names a variable in a pattern, after AS, in a comprehension or a map
# projection, and where an expression begins unless the keyword can begin one there; a label
# after IS is the one place some keywords (NOT, NULL, TYPED, NORMALIZED, NFC, ...) are refused.
Feature: Keywords - keywords as variable names where they cannot be keywords

  Scenario: [1] A keyword as a column alias
    Given any graph
    When executing query:
      """
      RETURN 1 AS end, 2 AS when, 3 AS order, 4 AS match
      """
    Then the result should be, in order:
      | end | when | order | match |
      | 1   | 2    | 3     | 4     |
    And no side effects

  Scenario: [2] A variable named end, read back
    Given any graph
    When executing query:
      """
      WITH 5 AS end
      RETURN end + 1 AS next
      """
    Then the result should be, in order:
      | next |
      | 6    |
    And no side effects

  Scenario: [3] UNWIND and CASE still read their keywords
    Given any graph
    When executing query:
      """
      UNWIND [1, 2] AS end
      RETURN CASE WHEN end = 1 THEN 'one' ELSE 'two' END AS word
      """
    Then the result should be, in order:
      | word  |
      | 'one' |
      | 'two' |
    And no side effects

  Scenario: [4] A keyword as the alias of a subquery column
    Given any graph
    When executing query:
      """
      UNWIND [1] AS x
      CALL (x) { RETURN x * 2 AS y }
      RETURN y AS return
      """
    Then the result should be, in order:
      | return |
      | 2      |
    And no side effects

  Scenario: [5] Nodes named start and end, created and matched
    Given an empty graph
    And having executed:
      """
      CREATE (start:A {id: 1})-[:R]->(end:B {id: 2})
      """
    When executing query:
      """
      MATCH (start)-[r]->(end)
      RETURN start.id, end.id, count(end) AS c
      """
    Then the result should be, in any order:
      | start.id | end.id | c |
      | 1        | 2      | 1 |
    And no side effects

  Scenario: [6] A knowledge-graph writer merges nodes named start and end
    Given an empty graph
    When executing query:
      """
      UNWIND [{s: 'a', e: 'b', type: 'KNOWS'}] AS row
      MERGE (start:__KGBuilder__ {id: row.s})
      MERGE (end:__KGBuilder__ {id: row.e})
      MERGE (start)-[rel:RELATED {type: row.type}]->(end)
      RETURN start.id AS start, rel.type AS type, end.id AS end
      """
    Then the result should be, in any order:
      | start | type    | end |
      | 'a'   | 'KNOWS' | 'b' |
    And the side effects should be:
      | +nodes         | 2 |
      | +relationships | 1 |
      | +labels        | 1 |
      | +properties    | 3 |

  Scenario: [7] Keywords as node, relationship and path variables
    Given an empty graph
    And having executed:
      """
      CREATE (:A {id: 1})-[:R {w: 5}]->(:B {id: 2})
      """
    When executing query:
      """
      MATCH order = (when:A)-[case:R]->(then)
      RETURN when.id AS when, case.w AS case, then.id AS then, length(order) AS hops
      """
    Then the result should be, in any order:
      | when | case | then | hops |
      | 1    | 5    | 2    | 1    |
    And no side effects

  Scenario: [8] Keywords as comprehension, predicate and reduce variables
    Given any graph
    When executing query:
      """
      WITH [1, 2, 3] AS list
      RETURN [end IN list WHERE end > 1 | end * 10] AS tens,
             all(when IN list WHERE when > 0) AS positive,
             reduce(case = 0, x IN list | x + case) AS total
      """
    Then the result should be, in any order:
      | tens     | positive | total |
      | [20, 30] | true     | 6     |
    And no side effects

  Scenario: [9] Keywords in a map projection and as FOREACH and UNWIND variables
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2] AS end
      FOREACH (where IN [end] | CREATE (:N {where: where}))
      WITH count(*) AS rows
      MATCH (not:N)
      RETURN not {.where, in: rows} AS m ORDER BY m.where
      """
    Then the result should be, in order:
      | m                   |
      | {where: 1, in: 2}   |
      | {where: 2, in: 2}   |
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [10] NOT as a label after IS must be quoted
    Given any graph
    When executing query:
      """
      MATCH (n IS NOT) RETURN n
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax
