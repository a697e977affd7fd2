#encoding: utf-8

# Quiver's own scenarios, written from the quantified path pattern pages of Neo4j 5's Cypher manual:
# quantifiers on relationships and parenthesised groups, group variables, juxtaposed nodes,
# relationship uniqueness per MATCH (DIFFERENT RELATIONSHIPS) and the errors for invalid forms.
Feature: QuantifiedPathPatterns - quantified path patterns and relationships

  Scenario: [1] A quantified relationship with {1,3}
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1})-[:T]->{1,3}(b)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 2 |
      | 3 |
      | 4 |
    And no side effects

  Scenario: [2] A quantified relationship with {2}
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1})-[:T]->{2}(b)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 3 |
    And no side effects

  Scenario: [3] A quantified relationship with {2,}
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1})-[:T]->{2,}(b)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 3 |
      | 4 |
    And no side effects

  Scenario: [4] A quantified relationship with {,2} includes the start
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1})-[:T]->{,2}(b)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 1 |
      | 2 |
      | 3 |
    And no side effects

  Scenario: [5] A quantified relationship with +
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1})-[:T]->+(b)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 2 |
      | 3 |
      | 4 |
    And no side effects

  Scenario: [6] A quantified relationship with *
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1})-[:T]->*(b)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 1 |
      | 2 |
      | 3 |
      | 4 |
    And no side effects

  Scenario: [7] A quantified relationship walked backwards
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 4})<-[:T]-{1,2}(a)
      RETURN a.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 3 |
      | 2 |
    And no side effects

  Scenario: [8] An undirected quantified relationship
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 2})-[:T]-{1}(a)
      RETURN a.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 1 |
      | 3 |
    And no side effects

  Scenario: [9] A quantified relationship's WHERE tests each relationship
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1})-[r:T WHERE r.w < 3]->{1,3}(b)
      RETURN b.n AS n, size(r) AS hops
      """
    Then the result should be, in any order:
      | n | hops |
      | 2 | 1    |
      | 3 | 2    |
    And no side effects

  Scenario: [10] A quantified relationship's property map tests each relationship
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1})-[:T {w: 1}]->+(b)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 2 |
    And no side effects

  Scenario: [11] Group variables are lists outside the group
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1}) ((x)-[r:T]->(y)){2} (b)
      RETURN [v IN x | v.n] AS xs, [v IN y | v.n] AS ys, [e IN r | e.w] AS ws, b.n AS n
      """
    Then the result should be, in any order:
      | xs     | ys     | ws     | n |
      | [1, 2] | [2, 3] | [1, 2] | 3 |
    And no side effects

  Scenario: [12] A group's WHERE sees one iteration's elements
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (a) ((x)-[r:T]->(y) WHERE r.w > 1)+ (b)
      RETURN a.n AS a, b.n AS b
      """
    Then the result should be, in any order:
      | a | b |
      | 2 | 3 |
      | 3 | 4 |
      | 2 | 4 |
    And no side effects

  Scenario: [13] A group's WHERE compares its nodes
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1}) ((x)-[:T]->(y) WHERE y.n = x.n + 1){3} (b)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 4 |
    And no side effects

  Scenario: [14] Labels and WHERE on the nodes inside a group
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 2}) ((x:S)-[:T]->(y:S WHERE y.n > 2)){1,2} (b)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 3 |
      | 4 |
    And no side effects

  Scenario: [15] The nodes beside a group are its first and last nodes
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (a:S {n: 1}) ((x)-[:T]->(y))+ (b:S {n: 4})
      RETURN head(x) = a AS first, last(y) = b AS last, size(x) AS iterations
      """
    Then the result should be, in any order:
      | first | last | iterations |
      | true  | true | 3          |
    And no side effects

  Scenario: [16] A path through a group
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH p = (:S {n: 1}) ((x)-[:T]->(y)){1,2} (b)
      RETURN length(p) AS length, b.n AS n
      """
    Then the result should be, in any order:
      | length | n |
      | 1      | 2 |
      | 2      | 3 |
    And no side effects

  Scenario: [17] The nodes of a path through a quantified relationship
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH p = (:S {n: 1})-[:T]->{3}(b)
      RETURN [v IN nodes(p) | v.n] AS ns
      """
    Then the result should be, in any order:
      | ns           |
      | [1, 2, 3, 4] |
    And no side effects

  Scenario: [18] Two juxtaposed groups
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1}) ((x)-[:T]->(y)){1} ((u)-[:T]->(v)){1} (b)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 3 |
    And no side effects

  Scenario: [19] Groups around a node pattern
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1}) (()-[:T]->()){1,2} (m:S WHERE m.n = 3) (()-[:T]->()){1} (b)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 4 |
    And no side effects

  Scenario: [20] A group and a fixed relationship in one path
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH p = (:S {n: 1})-[:T]->(m) ((x)-[:T]->(y)){1,2} (b)
      RETURN m.n AS m, b.n AS n, length(p) AS length
      """
    Then the result should be, in any order:
      | m | n | length |
      | 2 | 3 | 2      |
      | 2 | 4 | 3      |
    And no side effects

  Scenario: [21] A group with zero iterations binds empty lists
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 4}) ((x)-[:T]->(y)){0,1} (b)
      RETURN b.n AS n, size(x) AS xs
      """
    Then the result should be, in any order:
      | n | xs |
      | 4 | 0  |
    And no side effects

  Scenario: [22] Group variables in the MATCH's WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1}) ((x)-[r:T]->(y))+ (b)
      WHERE all(e IN r WHERE e.w <= 2)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 2 |
      | 3 |
    And no side effects

  Scenario: [23] A group variable's list after the MATCH
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 1}) ((x)-[r:T]->(y))+ (:S {n: 4})
      RETURN reduce(s = 0, e IN r | s + e.w) AS total
      """
    Then the result should be, in any order:
      | total |
      | 6     |
    And no side effects

  Scenario: [24] Quantified paths end at a bound node
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (a:S {n: 1}), (b:S {n: 3})
      MATCH (a)-[:T]->{1,5}(b)
      RETURN a.n AS a, b.n AS b
      """
    Then the result should be, in any order:
      | a | b |
      | 1 | 3 |
    And no side effects

  Scenario: [25] A group matched from its right end
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (b:S {n: 4})
      MATCH (a) ((x)-[r:T]->(y)){2} (b)
      RETURN a.n AS a, [v IN x | v.n] AS xs, [e IN r | e.w] AS ws
      """
    Then the result should be, in any order:
      | a | xs     | ws     |
      | 2 | [2, 3] | [2, 3] |
    And no side effects

  Scenario: [26] A relationship is not repeated on a quantified path
    Given an empty graph
    And having executed:
      """
      CREATE (a:C {n: 1})-[:R]->(b:C {n: 2})-[:R]->(a)
      """
    When executing query:
      """
      MATCH (:C {n: 1})-[:R]->{1,5}(b)
      RETURN b.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 2 |
      | 1 |
    And no side effects

  Scenario: [27] A relationship is not repeated across the parts of a MATCH
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (:S {n: 2})-[:T]-{1}(y), (y)-[:T]-(z)
      RETURN y.n AS y, z.n AS z
      """
    Then the result should be, in any order:
      | y | z |
      | 3 | 4 |
    And no side effects

  Scenario: [28] Counting quantified paths
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (a:S)-[:T]->+(b:S)
      RETURN count(*) AS paths
      """
    Then the result should be, in any order:
      | paths |
      | 6     |
    And no side effects

  Scenario: [29] A quantified path pattern inside EXISTS
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (a:S)
      WHERE EXISTS { (a)-[:T]->{3}() }
      RETURN a.n AS n
      """
    Then the result should be, in any order:
      | n |
      | 1 |
    And no side effects

  Scenario: [30] A quantified path pattern on its own with no lower bound fails
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH ((a)-[:T]->(b)){0,10}
      RETURN a
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [31] A lower bound above the upper bound fails
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (a)-[:T]->{3,1}(b)
      RETURN b
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentValue

  Scenario: [32] An upper bound of 0 fails
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (a) ((x)-[:T]->(y)){0} (b)
      RETURN b
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentValue

  Scenario: [33] Nested quantifiers fail
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (a) ((x)-[:T]->+(y)){2} (b)
      RETURN b
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [34] A group without a relationship fails
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (a) ((x)){2} (b)
      RETURN b
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [35] A variable-length relationship inside a group fails
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (a) ((x)-[:T*1..2]->(y)){2} (b)
      RETURN b
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [36] A group variable named again outside the group fails
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (x) ((x)-[:T]->(y)){2} (b)
      RETURN b
      """
    Then a SyntaxError should be raised at compile time: VariableAlreadyBound

  Scenario: [37] A group variable bound by an earlier clause fails
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (y)
      MATCH (a) ((x)-[:T]->(y)){2} (b)
      RETURN b
      """
    Then a SyntaxError should be raised at compile time: VariableAlreadyBound

  Scenario: [38] A quantified path pattern in CREATE fails
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      CREATE (a) ((x)-[:T]->(y)){2} (b)
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [39] A quantified relationship in MERGE fails
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MERGE (a)-[:T]->{2}(b)
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [40] Var-length and quantified relationships in one path fail
    Given an empty graph
    And having executed:
      """
      CREATE (:S {n: 1})-[:T {w: 1}]->(:S {n: 2})-[:T {w: 2}]->(:S {n: 3})-[:T {w: 3}]->(:S {n: 4})
      """
    When executing query:
      """
      MATCH (a)-[:T*]->(b)-[:T]->+(c)
      RETURN c
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [41] A group between fixed relationships, as the manual's stop-to-stop examples write it
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 1})-[:R]->(:B {n: 2})-[:S]->(:X {n: 3})-[:S]->(:X {n: 4})-[:S]->(:C {n: 5})-[:T]->(:D {n: 6})
      """
    When executing query:
      """
      MATCH p = (a:A)-[:R]->(b) ((x)-[:S]->(y)){1,3} (c:C)-[:T]->(d)
      RETURN b.n AS b, [n IN x | n.n] AS x, c.n AS c, d.n AS d, length(p) AS length
      """
    Then the result should be, in any order:
      | b | x         | c | d | length |
      | 2 | [2, 3, 4] | 5 | 6 | 5      |
    And no side effects

  Scenario: [42] A group first in a path, then a fixed relationship
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 1})-[:R]->(:B {n: 2})-[:S]->(:X {n: 3})-[:S]->(:X {n: 4})-[:S]->(:C {n: 5})-[:T]->(:D {n: 6})
      """
    When executing query:
      """
      MATCH ((x)-[:S]->(y)){2} (c:C)-[:T]->(d)
      RETURN x[0].n AS first, d.n AS d
      """
    Then the result should be, in any order:
      | first | d |
      | 3     | 6 |
    And no side effects

  Scenario: [43] A group last in a path, after a fixed relationship
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 1})-[:R]->(:B {n: 2})-[:S]->(:X {n: 3})-[:S]->(:X {n: 4})-[:S]->(:C {n: 5})-[:T]->(:D {n: 6})
      """
    When executing query:
      """
      MATCH (:A)-[:R]->(b) ((x)-[:S]->(y)){1,3}
      RETURN [n IN y | n.n] AS y
      """
    Then the result should be, in any order:
      | y         |
      | [3]       |
      | [3, 4]    |
      | [3, 4, 5] |
    And no side effects

  Scenario: [44] Groups and fixed relationships under a selector and in OPTIONAL MATCH
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 1})-[:R]->(:B {n: 2})-[:S]->(:X {n: 3})-[:S]->(:X {n: 4})-[:S]->(:C {n: 5})-[:T]->(:D {n: 6})
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (a:A)-[:R]->(b) ((x)-[:S]->(y))+ (c:C)-[:T]->(d)
      OPTIONAL MATCH (d)-[:R]->() ((u)-[:S]->(v)){1,2} (e)
      RETURN length(p) AS length, e AS e
      """
    Then the result should be, in any order:
      | length | e    |
      | 5      | null |
    And no side effects

  Scenario: [45] A group and fixed relationships inside EXISTS and COUNT
    Given an empty graph
    And having executed:
      """
      CREATE (:A {n: 1})-[:R]->(:B {n: 2})-[:S]->(:X {n: 3})-[:S]->(:X {n: 4})-[:S]->(:C {n: 5})-[:T]->(:D {n: 6})
      """
    When executing query:
      """
      MATCH (a:A)
      RETURN EXISTS { (a)-[:R]->(b) ((x)-[:S]->(y)){3} (:C)-[:T]->(:D) } AS three,
             COUNT { (a)-[:R]->(b) ((x)-[:S]->(y)){1,3} (c) } AS ends
      """
    Then the result should be, in any order:
      | three | ends |
      | true  | 3    |
    And no side effects

  Scenario: [46] A relationship straight before a group fails naming the missing node pattern
    Given an empty graph
    When executing query:
      """
      MATCH (a)-[:R]->((x)-[:S]->(y)){1,3} (c)
      RETURN c
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [47] A relationship straight after a group fails naming the missing node pattern
    Given an empty graph
    When executing query:
      """
      MATCH (a) ((x)-[:S]->(y)){1,3}-[:T]->(c)
      RETURN c
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [48] A path variable inside a group beside other elements fails naming it
    Given an empty graph
    When executing query:
      """
      MATCH (a) (p = (x)-[:S]->(y)){1,3} (c)
      RETURN c
      """
    Then a SyntaxError should be raised at compile time: UnsupportedFeature

  Scenario: [49] A parenthesised path pattern without a quantifier inside a path fails naming it
    Given an empty graph
    When executing query:
      """
      MATCH (a) ((x)-[:S]->(y) WHERE y.n > 1) (c)
      RETURN c
      """
    Then a SyntaxError should be raised at compile time: UnsupportedFeature
