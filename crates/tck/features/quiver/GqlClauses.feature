#encoding: utf-8

# Quiver's own scenarios, written from Neo4j's documented behaviour: the GQL clauses LET,
# FILTER and FINISH, OFFSET, and ORDER BY / SKIP / LIMIT as clauses of their own.
Feature: GqlClauses - LET, FILTER, FINISH, OFFSET and standalone paging

  Scenario: [1] LET binds a value
    Given an empty graph
    When executing query:
      """
      LET x = 1 RETURN x
      """
    Then the result should be, in any order:
      | x |
      | 1 |
    And no side effects

  Scenario: [2] LET binds several values, each seeing what came before the clause
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2] AS a
      LET b = a * 10, c = a + 1
      RETURN a, b, c
      """
    Then the result should be, in any order:
      | a | b  | c |
      | 1 | 10 | 2 |
      | 2 | 20 | 3 |
    And no side effects

  Scenario: [3] LET after MATCH keeps the matched variables
    Given an empty graph
    And having executed:
      """
      CREATE (:P {name: 'Ann', age: 30}), (:P {name: 'Bob', age: 40})
      """
    When executing query:
      """
      MATCH (p:P)
      LET older = p.age + 1
      RETURN p.name AS name, older
      """
    Then the result should be, in any order:
      | name  | older |
      | 'Ann' | 31    |
      | 'Bob' | 41    |
    And no side effects

  Scenario: [4] Chained LETs see each other
    Given an empty graph
    When executing query:
      """
      LET a = 2
      LET b = a * a
      RETURN b
      """
    Then the result should be, in any order:
      | b |
      | 4 |
    And no side effects

  Scenario: [5] LET may not rebind a variable
    Given an empty graph
    When executing query:
      """
      UNWIND [1] AS x LET x = 2 RETURN x
      """
    Then a SyntaxError should be raised at compile time: VariableAlreadyBound

  Scenario: [6] LET needs an expression
    Given an empty graph
    When executing query:
      """
      LET x RETURN x
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [7] FILTER keeps the rows its predicate holds for
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2, 3, 4] AS x
      FILTER x % 2 = 0
      RETURN x
      """
    Then the result should be, in any order:
      | x |
      | 2 |
      | 4 |
    And no side effects

  Scenario: [8] FILTER WHERE is the same
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2, 3, 4] AS x
      FILTER WHERE x > 2
      RETURN x
      """
    Then the result should be, in any order:
      | x |
      | 3 |
      | 4 |
    And no side effects

  Scenario: [9] FILTER drops rows where the predicate is null
    Given an empty graph
    When executing query:
      """
      UNWIND [1, null, 3] AS x
      FILTER x > 1
      RETURN x
      """
    Then the result should be, in any order:
      | x |
      | 3 |
    And no side effects

  Scenario: [10] FILTER after MATCH on a property
    Given an empty graph
    And having executed:
      """
      CREATE (:P {name: 'Ann', age: 30}), (:P {name: 'Bob', age: 40})
      """
    When executing query:
      """
      MATCH (p:P)
      FILTER p.age > 35
      RETURN p.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Bob' |
    And no side effects

  Scenario: [11] LET then FILTER
    Given an empty graph
    When executing query:
      """
      UNWIND range(1, 5) AS x
      LET sq = x * x
      FILTER sq > 10
      RETURN x, sq
      """
    Then the result should be, in any order:
      | x | sq |
      | 4 | 16 |
      | 5 | 25 |
    And no side effects

  Scenario: [12] FILTER with an undefined variable fails
    Given an empty graph
    When executing query:
      """
      UNWIND [1] AS x FILTER y > 1 RETURN x
      """
    Then a SyntaxError should be raised at compile time: UndefinedVariable

  Scenario: [13] FINISH ends a read query with no rows
    Given an empty graph
    And having executed:
      """
      CREATE (:A)
      """
    When executing query:
      """
      MATCH (n) FINISH
      """
    Then the result should be empty
    And no side effects

  Scenario: [14] FINISH after a write keeps the write
    Given an empty graph
    When executing query:
      """
      CREATE (:A {v: 1}) FINISH
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [15] FINISH must be last
    Given an empty graph
    When executing query:
      """
      MATCH (n) FINISH RETURN n
      """
    Then a SyntaxError should be raised at compile time: InvalidClauseComposition

  Scenario: [16] OFFSET is a synonym of SKIP
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2, 3, 4] AS x
      RETURN x ORDER BY x OFFSET 2
      """
    Then the result should be, in order:
      | x |
      | 3 |
      | 4 |
    And no side effects

  Scenario: [17] OFFSET with LIMIT in WITH
    Given an empty graph
    When executing query:
      """
      UNWIND [5, 4, 3, 2, 1] AS x
      WITH x ORDER BY x OFFSET 1 LIMIT 2
      RETURN x
      """
    Then the result should be, in order:
      | x |
      | 2 |
      | 3 |
    And no side effects

  Scenario: [18] A standalone ORDER BY sorts the rows
    Given an empty graph
    When executing query:
      """
      UNWIND [3, 1, 2] AS x
      ORDER BY x
      RETURN x
      """
    Then the result should be, in order:
      | x |
      | 1 |
      | 2 |
      | 3 |
    And no side effects

  Scenario: [19] A standalone ORDER BY DESC with LIMIT
    Given an empty graph
    When executing query:
      """
      UNWIND [3, 1, 2] AS x
      ORDER BY x DESC LIMIT 2
      RETURN x
      """
    Then the result should be, in order:
      | x |
      | 3 |
      | 2 |
    And no side effects

  Scenario: [20] A standalone LIMIT
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 1, 1, 1] AS x
      LIMIT 3
      RETURN count(*) AS c
      """
    Then the result should be, in any order:
      | c |
      | 3 |
    And no side effects

  Scenario: [21] A standalone SKIP
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2, 3] AS x
      ORDER BY x
      SKIP 1
      RETURN x
      """
    Then the result should be, in order:
      | x |
      | 2 |
      | 3 |
    And no side effects

  Scenario: [22] A standalone OFFSET
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2, 3] AS x
      ORDER BY x
      OFFSET 2
      RETURN x
      """
    Then the result should be, in order:
      | x |
      | 3 |
    And no side effects

  Scenario: [23] A standalone ORDER BY over matched nodes
    Given an empty graph
    And having executed:
      """
      CREATE (:P {name: 'Cy'}), (:P {name: 'Ann'}), (:P {name: 'Bob'})
      """
    When executing query:
      """
      MATCH (p:P)
      ORDER BY p.name
      LIMIT 2
      RETURN p.name AS name
      """
    Then the result should be, in order:
      | name  |
      | 'Ann' |
      | 'Bob' |
    And no side effects

  Scenario: [24] A negative standalone LIMIT fails
    Given an empty graph
    When executing query:
      """
      UNWIND [1] AS x LIMIT -1 RETURN x
      """
    Then a SyntaxError should be raised at compile time: NegativeIntegerArgument
