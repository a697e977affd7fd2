#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented label expressions.
Feature: LabelExpressions - label expressions on nodes

  Scenario: [1] Disjunction in a node pattern
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:A|B) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'a'  |
      | 'b'  |
      | 'ab' |
    And no side effects

  Scenario: [2] Conjunction with & in a node pattern
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:A&B) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'ab' |
    And no side effects

  Scenario: [3] Conjunction with colons in a node pattern
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:A:B) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'ab' |
    And no side effects

  Scenario: [4] Negation in a node pattern
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:!A) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n      |
      | 'b'    |
      | 'c'    |
      | 'none' |
    And no side effects

  Scenario: [5] Wildcard matches any labelled node
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:%) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'a'  |
      | 'b'  |
      | 'ab' |
      | 'c'  |
    And no side effects

  Scenario: [6] Negated wildcard matches unlabelled nodes
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:!%) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n      |
      | 'none' |
    And no side effects

  Scenario: [7] Conjunction with a negation
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:A&!B) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n   |
      | 'a' |
    And no side effects

  Scenario: [8] Parentheses group a disjunction
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:(A|C)&!B) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n   |
      | 'a' |
      | 'c' |
    And no side effects

  Scenario: [9] Negation of a group
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:!(A|B)) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n      |
      | 'c'    |
      | 'none' |
    And no side effects

  Scenario: [10] & binds tighter than |
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:C|A&B) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'ab' |
      | 'c'  |
    And no side effects

  Scenario: [11] Double negation
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:!!C) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n   |
      | 'c' |
    And no side effects

  Scenario: [12] Disjunction of three labels
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:A|B|C) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'a'  |
      | 'b'  |
      | 'ab' |
      | 'c'  |
    And no side effects

  Scenario: [13] Label disjunction with an unknown label
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:C|Nope) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n   |
      | 'c' |
    And no side effects

  Scenario: [14] Negation of an unknown label matches every node
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:!Nope) RETURN count(x) AS n
      """
    Then the result should be, in any order:
      | n |
      | 5 |
    And no side effects

  Scenario: [15] Anonymous node with a label expression
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (:A|C) RETURN count(*) AS n
      """
    Then the result should be, in any order:
      | n |
      | 3 |
    And no side effects

  Scenario: [16] Label expression with a property map
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:A|B {n: 'b'}) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n   |
      | 'b' |
    And no side effects

  Scenario: [17] Label expression with an inline WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x:A|C WHERE x.n <> 'a') RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'ab' |
      | 'c'  |
    And no side effects

  Scenario: [18] IS with one label
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x IS A) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'a'  |
      | 'ab' |
    And no side effects

  Scenario: [19] IS with a disjunction
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x IS B|C) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'b'  |
      | 'ab' |
      | 'c'  |
    And no side effects

  Scenario: [20] IS with a conjunction
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x IS A&B) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'ab' |
    And no side effects

  Scenario: [21] IS with a negation
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x IS !A) RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n      |
      | 'b'    |
      | 'c'    |
      | 'none' |
    And no side effects

  Scenario: [22] Disjunction in WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x) WHERE x:A|C RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'a'  |
      | 'ab' |
      | 'c'  |
    And no side effects

  Scenario: [23] Negation in WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x) WHERE x:!A RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n      |
      | 'b'    |
      | 'c'    |
      | 'none' |
    And no side effects

  Scenario: [24] Conjunction and negation in WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x) WHERE x:B&!A RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n   |
      | 'b' |
    And no side effects

  Scenario: [25] Wildcard in WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x) WHERE x:% RETURN count(x) AS n
      """
    Then the result should be, in any order:
      | n |
      | 4 |
    And no side effects

  Scenario: [26] NOT around a label test in WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x) WHERE NOT x:A|B RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n      |
      | 'c'    |
      | 'none' |
    And no side effects

  Scenario: [27] IS label predicate in WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x) WHERE x IS C RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n   |
      | 'c' |
    And no side effects

  Scenario: [28] IS label disjunction in WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x) WHERE x IS A|C RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'a'  |
      | 'ab' |
      | 'c'  |
    And no side effects

  Scenario: [29] Label expression combined with AND
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x) WHERE x:A|B AND x.n STARTS WITH 'a' RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'a'  |
      | 'ab' |
    And no side effects

  Scenario: [30] Label expression as a projected value
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x {n: 'c'}) RETURN x:A|C AS n
      """
    Then the result should be, in any order:
      | n    |
      | true |
    And no side effects

  Scenario: [31] Negated label expression as a projected value
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x {n: 'ab'}) RETURN x:!B AS n
      """
    Then the result should be, in any order:
      | n     |
      | false |
    And no side effects

  Scenario: [32] Label test on null is null
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      OPTIONAL MATCH (x:Nope) RETURN x:A|B AS n
      """
    Then the result should be, in any order:
      | n    |
      | null |
    And no side effects

  Scenario: [33] Label expression in a list comprehension filter
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x) WITH collect(x) AS xs RETURN size([y IN xs WHERE y:A | y.n]) AS n
      """
    Then the result should be, in any order:
      | n |
      | 2 |
    And no side effects

  Scenario: [34] Parenthesised disjunction in a comprehension filter
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x) WITH collect(x) AS xs RETURN size([y IN xs WHERE y:(A|C) | y.n]) AS n
      """
    Then the result should be, in any order:
      | n |
      | 3 |
    And no side effects

  Scenario: [35] Label expression in CASE
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x) RETURN x.n AS n, CASE WHEN x:A|B THEN 1 ELSE 0 END AS v ORDER BY n
      """
    Then the result should be, in order:
      | n      | v |
      | 'a'    | 1 |
      | 'ab'   | 1 |
      | 'b'    | 1 |
      | 'c'    | 0 |
      | 'none' | 0 |
    And no side effects

  Scenario: [36] Label expression in an EXISTS subquery
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      MATCH (x) WHERE EXISTS { MATCH (x:A&B) } RETURN x.n AS n
      """
    Then the result should be, in any order:
      | n    |
      | 'ab' |
    And no side effects

  Scenario: [37] Label expression in COUNT subquery
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 'a'}), (:B {n: 'b'}), (:A:B {n: 'ab'}), (:C {n: 'c'}), ({n: 'none'})
      """
    When executing query:
      """
      RETURN COUNT { MATCH (y:!%) } AS n
      """
    Then the result should be, in any order:
      | n |
      | 1 |
    And no side effects

  Scenario: [38] A disjunction in CREATE fails
    Given an empty graph
    When executing query:
      """
      CREATE (:A|B)
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [39] A negation in CREATE fails
    Given an empty graph
    When executing query:
      """
      CREATE (:!A)
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [40] A wildcard in MERGE fails
    Given an empty graph
    When executing query:
      """
      MERGE (:%)
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [41] An unclosed group fails
    Given an empty graph
    When executing query:
      """
      MATCH (x:(A|B) RETURN x
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [42] A dangling | fails
    Given an empty graph
    When executing query:
      """
      MATCH (x:A|) RETURN x
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [43] A conjunction with & in CREATE sets both labels
    Given an empty graph
    When executing query:
      """
      CREATE (x:A&B) RETURN labels(x) AS l
      """
    Then the result should be (ignoring element order for lists):
      | l          |
      | ['A', 'B'] |
    And the side effects should be:
      | +nodes  | 1 |
      | +labels | 2 |
