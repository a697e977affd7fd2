#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented label expressions on relationship types.
Feature: TypeExpressions - label expressions on relationship types

  Scenario: [1] Type disjunction
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ()-[r:KNOWS|LIKES]->() RETURN r.w AS w
      """
    Then the result should be, in any order:
      | w |
      | 1 |
      | 2 |
      | 4 |
    And no side effects

  Scenario: [2] Legacy |: spelling of a type disjunction
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ()-[r:KNOWS|:HATES]->() RETURN r.w AS w
      """
    Then the result should be, in any order:
      | w |
      | 1 |
      | 3 |
      | 4 |
    And no side effects

  Scenario: [3] Type negation
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ()-[r:!KNOWS]->() RETURN r.w AS w
      """
    Then the result should be, in any order:
      | w |
      | 2 |
      | 3 |
    And no side effects

  Scenario: [4] Type wildcard matches every relationship
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ()-[r:%]->() RETURN r.w AS w
      """
    Then the result should be, in any order:
      | w |
      | 1 |
      | 2 |
      | 3 |
      | 4 |
    And no side effects

  Scenario: [5] Negated wildcard matches none
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ()-[r:!%]->() RETURN r.w AS w
      """
    Then the result should be empty
    And no side effects

  Scenario: [6] A type conjunction matches none
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ()-[r:KNOWS&LIKES]->() RETURN r.w AS w
      """
    Then the result should be empty
    And no side effects

  Scenario: [7] Negation of a disjunction
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ()-[r:!(KNOWS|LIKES)]->() RETURN r.w AS w
      """
    Then the result should be, in any order:
      | w |
      | 3 |
    And no side effects

  Scenario: [8] Conjunction of negations
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ()-[r:!KNOWS&!HATES]->() RETURN r.w AS w
      """
    Then the result should be, in any order:
      | w |
      | 2 |
    And no side effects

  Scenario: [9] IS with a type
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ()-[r IS LIKES]->() RETURN r.w AS w
      """
    Then the result should be, in any order:
      | w |
      | 2 |
    And no side effects

  Scenario: [10] IS with a type negation
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ()-[r IS !LIKES]->() RETURN r.w AS w
      """
    Then the result should be, in any order:
      | w |
      | 1 |
      | 3 |
      | 4 |
    And no side effects

  Scenario: [11] Type negation on an undirected pattern
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ({n: 'c'})-[r:!KNOWS]-() RETURN r.w AS w
      """
    Then the result should be, in any order:
      | w |
      | 2 |
      | 3 |
    And no side effects

  Scenario: [12] Type negation on an anonymous relationship
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ({n: 'a'})-[:!KNOWS]->(x) RETURN x.n AS w
      """
    Then the result should be, in any order:
      | w   |
      | 'c' |
    And no side effects

  Scenario: [13] Type negation on a variable-length relationship
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ({n: 'a'})-[:!KNOWS*1..2]->(x) RETURN x.n AS w
      """
    Then the result should be, in any order:
      | w   |
      | 'c' |
    And no side effects

  Scenario: [14] Type negation and a property map on a variable-length relationship
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ({n: 'a'})-[:!HATES*1..3 {w: 1}]->(x) RETURN x.n AS w
      """
    Then the result should be, in any order:
      | w   |
      | 'b' |
    And no side effects

  Scenario: [15] Type expression on a relationship in WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ()-[r]->() WHERE r:KNOWS|HATES RETURN r.w AS w
      """
    Then the result should be, in any order:
      | w |
      | 1 |
      | 3 |
      | 4 |
    And no side effects

  Scenario: [16] Negated type expression on a relationship in WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH ()-[r]->() WHERE r:!KNOWS RETURN r.w AS w
      """
    Then the result should be, in any order:
      | w |
      | 2 |
      | 3 |
    And no side effects

  Scenario: [17] Type expression in a pattern predicate
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH (x) WHERE (x)-[:!KNOWS]->() RETURN x.n AS w
      """
    Then the result should be, in any order:
      | w   |
      | 'a' |
      | 'b' |
    And no side effects

  Scenario: [18] Node and type expressions together
    Given an empty graph
    And having executed:
      """
      CREATE (a {n: 'a'}), (b {n: 'b'}), (c {n: 'c'})
      CREATE (a)-[:KNOWS {w: 1}]->(b), (a)-[:LIKES {w: 2}]->(c), (b)-[:HATES {w: 3}]->(c), (c)-[:KNOWS {w: 4}]->(a)
      """
    When executing query:
      """
      MATCH (x)-[:KNOWS|LIKES]->(y) WHERE y.n <> 'b' RETURN x.n + y.n AS w
      """
    Then the result should be, in any order:
      | w    |
      | 'ac' |
      | 'ca' |
    And no side effects

  Scenario: [19] A type disjunction in CREATE fails
    Given an empty graph
    When executing query:
      """
      CREATE ()-[:A|B]->()
      """
    Then a SyntaxError should be raised at compile time: NoSingleRelationshipType

  Scenario: [20] A type negation in CREATE fails
    Given an empty graph
    When executing query:
      """
      CREATE ()-[:!A]->()
      """
    Then a SyntaxError should be raised at compile time: NoSingleRelationshipType

  Scenario: [21] A type wildcard in MERGE fails
    Given an empty graph
    When executing query:
      """
      MERGE ()-[:%]->()
      """
    Then a SyntaxError should be raised at compile time: NoSingleRelationshipType
