#encoding: utf-8

# Quiver's own scenarios, written from the path modes and match modes pages of Neo4j's Cypher manual.
# Under the default match mode (DIFFERENT RELATIONSHIPS) no relationship repeats in a MATCH, so
# WALK matches what TRAIL does; REPEATABLE ELEMENTS is not supported and fails naming it.
Feature: PathModes - WALK, TRAIL, ACYCLIC and match modes

  Scenario: [1] The default keeps relationships apart (trails)
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH (:M {n: 'a'})-[:R]->+(y)
      RETURN y.n AS y
      """
    Then the result should be, in any order:
      | y   |
      | 'b' |
      | 'c' |
      | 'a' |
      | 'd' |
    And no side effects

  Scenario: [2] TRAIL is the default
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH TRAIL (:M {n: 'a'})-[:R]->+(y)
      RETURN y.n AS y
      """
    Then the result should be, in any order:
      | y   |
      | 'b' |
      | 'c' |
      | 'a' |
      | 'd' |
    And no side effects

  Scenario: [3] ACYCLIC repeats no node
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH ACYCLIC (:M {n: 'a'})-[:R]->+(y)
      RETURN y.n AS y
      """
    Then the result should be, in any order:
      | y   |
      | 'b' |
      | 'c' |
      | 'd' |
    And no side effects

  Scenario: [4] ACYCLIC over a group
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH ACYCLIC (:M {n: 'a'}) ((p)-[:R]->(q))+ (y)
      RETURN count(*) AS paths
      """
    Then the result should be, in any order:
      | paths |
      | 3     |
    And no side effects

  Scenario: [5] ACYCLIC does not return to the start
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH p = ACYCLIC (x:M {n: 'a'})-[:R]->+(x)
      RETURN p
      """
    Then the result should be empty
    And no side effects

  Scenario: [6] WALK under DIFFERENT RELATIONSHIPS still repeats no relationship
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH WALK (:M {n: 'a'})-[:R]->{1,6}(y)
      RETURN y.n AS y
      """
    Then the result should be, in any order:
      | y   |
      | 'b' |
      | 'c' |
      | 'a' |
      | 'd' |
    And no side effects

  Scenario: [7] TRAIL with an exact length
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH p = TRAIL (:M {n: 'a'})-[:R]->{3}(y)
      RETURN y.n AS y
      """
    Then the result should be, in any order:
      | y   |
      | 'a' |
      | 'd' |
    And no side effects

  Scenario: [8] A selector with a path mode and PATH
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH p = ANY SHORTEST TRAIL PATH (:M {n: 'a'})-[:R]->+(:M {n: 'd'})
      RETURN length(p) AS length
      """
    Then the result should be, in any order:
      | length |
      | 3      |
    And no side effects

  Scenario: [9] SHORTEST with ACYCLIC
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH p = SHORTEST 2 ACYCLIC (:M {n: 'b'})-[:R]-+(:M {n: 'a'})
      RETURN length(p) AS length
      """
    Then the result should be, in any order:
      | length |
      | 1      |
      | 2      |
    And no side effects

  Scenario: [10] ALL PATHS is every path
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH ALL PATHS (:M {n: 'a'})-[:R]->{1}(y)
      RETURN y.n AS y
      """
    Then the result should be, in any order:
      | y   |
      | 'b' |
    And no side effects

  Scenario: [11] DIFFERENT RELATIONSHIPS is the default match mode
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH DIFFERENT RELATIONSHIPS (:M {n: 'a'})-[:R]->+(y)
      RETURN count(*) AS paths
      """
    Then the result should be, in any order:
      | paths |
      | 4     |
    And no side effects

  Scenario: [12] REPEATABLE ELEMENTS fails naming it
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH REPEATABLE ELEMENTS (:M {n: 'a'})-[:R]->{1,3}(y)
      RETURN y
      """
    Then a SyntaxError should be raised at compile time: UnsupportedFeature

  Scenario: [13] The SIMPLE path mode fails naming it
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH SIMPLE (:M {n: 'a'})-[:R]->+(y)
      RETURN y
      """
    Then a SyntaxError should be raised at compile time: UnsupportedFeature

  Scenario: [14] A path mode in CREATE fails
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      CREATE ACYCLIC (:M)-[:R]->(:M)
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [15] A path mode on a lone node fails
    Given an empty graph
    And having executed:
      """
      CREATE (a:M {n: 'a'})-[:R]->(b:M {n: 'b'})-[:R]->(c:M {n: 'c'})-[:R]->(a),
             (c)-[:R]->(:M {n: 'd'})
      """
    When executing query:
      """
      MATCH ACYCLIC (a)
      RETURN a
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax
