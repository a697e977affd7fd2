#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented behaviour: USE.
# Quiver serves one database, `neo4j`; any other name (`system` included) is not found.
Feature: Use - selecting the graph

  Scenario: [1] USE neo4j before a read
    Given an empty graph
    And having executed:
      """
      CREATE (:A), (:A)
      """
    When executing query:
      """
      USE neo4j MATCH (n) RETURN count(n) AS c
      """
    Then the result should be, in any order:
      | c |
      | 2 |
    And no side effects

  Scenario: [2] The database name ignores case
    Given an empty graph
    When executing query:
      """
      USE Neo4j RETURN 1 AS x
      """
    Then the result should be, in any order:
      | x |
      | 1 |
    And no side effects

  Scenario: [3] USE neo4j before a write
    Given an empty graph
    When executing query:
      """
      USE neo4j CREATE (:B)
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes  | 1 |
      | +labels | 1 |

  Scenario: [4] USE after the CYPHER prefix
    Given an empty graph
    When executing query:
      """
      CYPHER 5 USE neo4j RETURN 1 AS x
      """
    Then the result should be, in any order:
      | x |
      | 1 |
    And no side effects

  Scenario: [5] USE in every part of a UNION
    Given an empty graph
    When executing query:
      """
      USE neo4j RETURN 1 AS x UNION USE neo4j RETURN 2 AS x
      """
    Then the result should be, in any order:
      | x |
      | 1 |
      | 2 |
    And no side effects

  Scenario: [6] USE of the same graph in a CALL subquery
    Given an empty graph
    When executing query:
      """
      CALL { USE neo4j RETURN 1 AS x } RETURN x
      """
    Then the result should be, in any order:
      | x |
      | 1 |
    And no side effects

  Scenario: [7] A backquoted database name
    Given an empty graph
    When executing query:
      """
      USE `neo4j` RETURN 1 AS x
      """
    Then the result should be, in any order:
      | x |
      | 1 |
    And no side effects

  Scenario: [8] Another database is not found
    Given an empty graph
    When executing query:
      """
      USE movies MATCH (n) RETURN n
      """
    Then a DatabaseNotFound should be raised at compile time: GraphNotFound

  Scenario: [9] The system database is not served
    Given an empty graph
    When executing query:
      """
      USE system RETURN 1
      """
    Then a DatabaseNotFound should be raised at compile time: GraphNotFound

  Scenario: [10] A composite constituent is not found
    Given an empty graph
    When executing query:
      """
      USE composite.part RETURN 1
      """
    Then a DatabaseNotFound should be raised at compile time: GraphNotFound

  Scenario: [11] An unknown graph in a subquery is not found
    Given an empty graph
    When executing query:
      """
      CALL { USE other RETURN 1 AS x } RETURN x
      """
    Then a DatabaseNotFound should be raised at compile time: GraphNotFound

  Scenario: [12] USE after another clause fails
    Given an empty graph
    When executing query:
      """
      MATCH (n) USE neo4j RETURN n
      """
    Then a SyntaxError should be raised at compile time: InvalidClauseComposition

  Scenario: [13] USE graph.byName is named as unsupported
    Given an empty graph
    When executing query:
      """
      USE graph.byName('neo4j') RETURN 1
      """
    Then a SyntaxError should be raised at compile time: UnsupportedFeature
