#encoding: utf-8

# Quiver's own scenarios for labels and relationship types named at run time inside label
# expressions, written from Neo4j 5's grammar, where $(expr), $all(expr) and $any(expr) are
# operands of a label expression like a name (Cypher manual, "Label expressions" and "MATCH >
# dynamic labels"): combined with |, & and ! in a pattern and in WHERE, null propagating as for
# n:A. A write still takes only ':' and '&' between its labels.
Feature: DynamicLabelExpressions - run-time names inside label expressions

  Background:
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}),
             (acme:Company {name: 'Acme'}), (:Robot {name: 'R2'}),
             (ann)-[:KNOWS]->(bob), (bob)-[:WORKS_AT]->(acme), (ann)-[:LIKES]->(acme)
      """

  Scenario: [1] A run-time label or a static one in a node pattern
    When executing query:
      """
      WITH 'Company' AS x
      MATCH (n:$(x)|Robot)
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name   |
      | 'Acme' |
      | 'R2'   |
    And no side effects

  Scenario: [2] A parameter's label beside a static one
    Given parameters are:
      | label | 'Admin' |
    When executing query:
      """
      MATCH (n:$($label)|Company)
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name   |
      | 'Ann'  |
      | 'Acme' |
    And no side effects

  Scenario: [3] Two run-time labels, both required, in WHERE
    When executing query:
      """
      WITH 'Person' AS a, 'Admin' AS b
      MATCH (n) WHERE n:$(a)&$(b)
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Ann' |
    And no side effects

  Scenario: [4] A negated run-time label
    When executing query:
      """
      WITH 'Person' AS x
      MATCH (n:!$(x))
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name   |
      | 'Acme' |
      | 'R2'   |
    And no side effects

  Scenario: [5] A negated run-time label beside a static one in WHERE
    When executing query:
      """
      WITH ['Admin'] AS x
      MATCH (n:Person) WHERE n:!$(x)&Person
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Bob' |
    And no side effects

  Scenario: [6] $any and $all as operands
    When executing query:
      """
      MATCH (n)
      WHERE n:$any(['Robot', 'Company'])|$all(['Person', 'Admin'])
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name   |
      | 'Ann'  |
      | 'Acme' |
      | 'R2'   |
    And no side effects

  Scenario: [7] A run-time type or a static one in a relationship pattern
    When executing query:
      """
      WITH 'KNOWS' AS t
      MATCH (a)-[r:$(t)|LIKES]->(b)
      RETURN a.name AS a, type(r) AS type, b.name AS b
      """
    Then the result should be, in any order:
      | a     | type    | b      |
      | 'Ann' | 'KNOWS' | 'Bob'  |
      | 'Ann' | 'LIKES' | 'Acme' |
    And no side effects

  Scenario: [8] A negated run-time type
    When executing query:
      """
      WITH 'KNOWS' AS t
      MATCH ()-[r:!$(t)]->()
      RETURN type(r) AS type
      """
    Then the result should be, in any order:
      | type       |
      | 'WORKS_AT' |
      | 'LIKES'    |
    And no side effects

  Scenario: [9] A null run-time label gives null, which a static operand may still outweigh
    When executing query:
      """
      WITH null AS x
      MATCH (n)
      RETURN n.name AS name, n:$(x)|Robot AS test
      """
    Then the result should be, in any order:
      | name   | test |
      | 'Ann'  | null |
      | 'Bob'  | null |
      | 'Acme' | null |
      | 'R2'   | true |
    And no side effects

  Scenario: [10] The run-time name may read a variable bound earlier in the pattern
    When executing query:
      """
      MATCH (c:Company), (n:$(c.name)|Person)
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Ann' |
      | 'Bob' |
    And no side effects

  Scenario: [11] In a comprehension's filter a top-level | still ends the filter
    When executing query:
      """
      MATCH (n) WITH collect(n) AS all
      RETURN [x IN all WHERE x:$('Person') | x.name] AS names
      """
    Then the result should be (ignoring element order for lists):
      | names          |
      | ['Ann', 'Bob'] |
    And no side effects

  Scenario: [12] A write takes no | between labels, run-time or not
    When executing query:
      """
      WITH 'A' AS x
      CREATE (n:$(x)|B)
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [13] A run-time name that is not a string fails before running
    When executing query:
      """
      MATCH (n) WHERE n:$(1)|Person
      RETURN n
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentType
