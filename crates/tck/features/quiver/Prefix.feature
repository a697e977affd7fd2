#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented behaviour: query prefixes.
Feature: Prefix - CYPHER version and query options

  Scenario: [1] CYPHER 5 before a read query
    Given an empty graph
    And having executed:
      """
      CREATE (:Person {name: 'Ann'})
      """
    When executing query:
      """
      CYPHER 5 MATCH (n:Person) RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Ann' |
    And no side effects

  Scenario: [2] CYPHER 25 before a query
    Given an empty graph
    When executing query:
      """
      CYPHER 25 RETURN 1 AS x
      """
    Then the result should be, in any order:
      | x |
      | 1 |
    And no side effects

  Scenario: [3] CYPHER 5 before a write
    Given an empty graph
    When executing query:
      """
      CYPHER 5 CREATE (n:Thing {v: 1}) RETURN n.v AS v
      """
    Then the result should be, in any order:
      | v |
      | 1 |
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [4] Runtime and planner options are accepted and ignored
    Given an empty graph
    When executing query:
      """
      CYPHER runtime=slotted planner=cost RETURN 2 AS x
      """
    Then the result should be, in any order:
      | x |
      | 2 |
    And no side effects

  Scenario: [5] Version and options together
    Given an empty graph
    When executing query:
      """
      CYPHER 5 runtime=pipelined expressionEngine=interpreted RETURN 3 AS x
      """
    Then the result should be, in any order:
      | x |
      | 3 |
    And no side effects

  Scenario: [6] Option names and values ignore case
    Given an empty graph
    When executing query:
      """
      cypher RUNTIME=Slotted operatorEngine=COMPILED RETURN 4 AS x
      """
    Then the result should be, in any order:
      | x |
      | 4 |
    And no side effects

  Scenario: [7] Every option Neo4j 5 documents is accepted
    Given an empty graph
    When executing query:
      """
      CYPHER planner=idp runtime=parallel expressionEngine=compiled operatorEngine=interpreted interpretedPipesFallback=all replan=force updateStrategy=eager RETURN 5 AS x
      """
    Then the result should be, in any order:
      | x |
      | 5 |
    And no side effects

  Scenario: [8] The same option given twice with one value
    Given an empty graph
    When executing query:
      """
      CYPHER runtime=slotted runtime=slotted RETURN 6 AS x
      """
    Then the result should be, in any order:
      | x |
      | 6 |
    And no side effects

  Scenario: [9] EXPLAIN after the prefix returns no rows
    Given an empty graph
    When executing query:
      """
      CYPHER 5 EXPLAIN MATCH (n) RETURN n
      """
    Then the result should be empty
    And no side effects

  Scenario: [10] PROFILE after the prefix still runs the query
    Given an empty graph
    When executing query:
      """
      CYPHER 5 PROFILE RETURN 7 AS x
      """
    Then the result should be, in any order:
      | x |
      | 7 |
    And no side effects

  Scenario: [11] The prefix may follow EXPLAIN
    Given an empty graph
    When executing query:
      """
      EXPLAIN CYPHER 5 RETURN 1 AS x
      """
    Then the result should be empty
    And no side effects

  Scenario: [12] The prefix before a UNION
    Given an empty graph
    When executing query:
      """
      CYPHER 5 RETURN 1 AS x UNION RETURN 2 AS x
      """
    Then the result should be, in any order:
      | x |
      | 1 |
      | 2 |
    And no side effects

  Scenario: [13] The prefix before a query with parameters
    Given an empty graph
    And parameters are:
      | p | 41 |
    When executing query:
      """
      CYPHER 5 RETURN $p + 1 AS x
      """
    Then the result should be, in any order:
      | x  |
      | 42 |
    And no side effects

  Scenario: [14] An unknown option fails by name
    Given an empty graph
    When executing query:
      """
      CYPHER frobnicate=yes RETURN 1
      """
    Then a ArgumentError should be raised at compile time: InvalidArgumentValue

  Scenario: [15] An invalid runtime fails by name
    Given an empty graph
    When executing query:
      """
      CYPHER runtime=turbo RETURN 1
      """
    Then a ArgumentError should be raised at compile time: InvalidArgumentValue

  Scenario: [16] An invalid planner fails by name
    Given an empty graph
    When executing query:
      """
      CYPHER planner=rule RETURN 1
      """
    Then a ArgumentError should be raised at compile time: InvalidArgumentValue

  Scenario: [17] Conflicting values of one option fail
    Given an empty graph
    When executing query:
      """
      CYPHER runtime=slotted runtime=pipelined RETURN 1
      """
    Then a ArgumentError should be raised at compile time: InvalidArgumentValue

  Scenario: [18] A version Quiver does not speak fails
    Given an empty graph
    When executing query:
      """
      CYPHER 4.4 RETURN 1
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentValue

  Scenario: [19] An unknown integer version fails
    Given an empty graph
    When executing query:
      """
      CYPHER 3 RETURN 1
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentValue

  Scenario: [20] EXPLAIN and PROFILE together fail
    Given an empty graph
    When executing query:
      """
      EXPLAIN PROFILE RETURN 1
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax
