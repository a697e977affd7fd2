#encoding: utf-8

# Quiver's own scenarios, written from the shortest paths page of Neo4j 5's Cypher manual: SHORTEST k,
# ALL SHORTEST, SHORTEST k GROUPS, ANY k and ANY SHORTEST, per pair of end nodes, over quantified
# relationships and groups with inner predicates. The MATCH's WHERE filters after the selector
# (a post-filter), as in Neo4j.
Feature: ShortestPaths - GQL path selectors

  Scenario: [1] SHORTEST 1 finds one shortest path
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (:N {n: 'a'})-[:R]->+(:N {n: 'd'})
      RETURN length(p) AS length
      """
    Then the result should be, in any order:
      | length |
      | 2      |
    And no side effects

  Scenario: [2] ALL SHORTEST finds every path of the shortest length
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = ALL SHORTEST (:N {n: 'a'})-[:R]->+(:N {n: 'd'})
      RETURN [x IN nodes(p) | x.n] AS ns
      """
    Then the result should be, in any order:
      | ns              |
      | ['a', 'b', 'd'] |
      | ['a', 'c', 'd'] |
    And no side effects

  Scenario: [3] SHORTEST 2 finds two shortest paths
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 2 (:N {n: 'a'})-[:R]->+(:N {n: 'd'})
      RETURN length(p) AS length
      """
    Then the result should be, in any order:
      | length |
      | 2      |
      | 2      |
    And no side effects

  Scenario: [4] SHORTEST 3 takes a longer path when the shortest run out
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 3 (:N {n: 'a'})-[:R]->+(:N {n: 'd'})
      RETURN length(p) AS length
      """
    Then the result should be, in any order:
      | length |
      | 2      |
      | 2      |
      | 3      |
    And no side effects

  Scenario: [5] SHORTEST 2 GROUPS keeps every path of the two shortest lengths
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 2 GROUPS (:N {n: 'a'})-[:R]->+(:N {n: 'd'})
      RETURN length(p) AS length
      """
    Then the result should be, in any order:
      | length |
      | 2      |
      | 2      |
      | 3      |
    And no side effects

  Scenario: [6] SHORTEST 1 GROUPS is ALL SHORTEST
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 GROUPS (:N {n: 'a'})-[:R]->+(:N {n: 'd'})
      RETURN count(p) AS paths
      """
    Then the result should be, in any order:
      | paths |
      | 2     |
    And no side effects

  Scenario: [7] ANY finds one path
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = ANY (:N {n: 'a'})-[:R]->+(:N {n: 'd'})
      RETURN count(p) AS paths
      """
    Then the result should be, in any order:
      | paths |
      | 1     |
    And no side effects

  Scenario: [8] ANY 2 finds two paths
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = ANY 2 (:N {n: 'a'})-[:R]->+(:N {n: 'd'})
      RETURN count(p) AS paths
      """
    Then the result should be, in any order:
      | paths |
      | 2     |
    And no side effects

  Scenario: [9] ANY SHORTEST is SHORTEST 1
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = ANY SHORTEST (:N {n: 'a'})-[:R]->+(:N {n: 'd'})
      RETURN length(p) AS length
      """
    Then the result should be, in any order:
      | length |
      | 2      |
    And no side effects

  Scenario: [10] A selector keeps paths per end node
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (:N {n: 'a'})-[:R]->+(x)
      RETURN x.n AS x, length(p) AS length
      """
    Then the result should be, in any order:
      | x   | length |
      | 'b' | 1      |
      | 'c' | 1      |
      | 'e' | 1      |
      | 'd' | 2      |
      | 'f' | 2      |
      | 'g' | 3      |
    And no side effects

  Scenario: [11] ALL SHORTEST per end node without a bound end
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = ALL SHORTEST (:N {n: 'a'})-[:R]->+(x:N {n: 'g'})
      RETURN count(p) AS paths
      """
    Then the result should be, in any order:
      | paths |
      | 2     |
    And no side effects

  Scenario: [12] A selector partitions by both end nodes
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (x:N)-[:R]->{2}(:N {n: 'd'})
      RETURN x.n AS x
      """
    Then the result should be, in any order:
      | x   |
      | 'a' |
      | 'e' |
    And no side effects

  Scenario: [13] SHORTEST over a group whose WHERE avoids nodes
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (:N {n: 'a'}) ((x)-[:R]->(y) WHERE NOT y.n IN ['b', 'c'])+ (:N {n: 'd'})
      RETURN [v IN nodes(p) | v.n] AS ns
      """
    Then the result should be, in any order:
      | ns                   |
      | ['a', 'e', 'f', 'd'] |
    And no side effects

  Scenario: [14] SHORTEST with a lower bound
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (:N {n: 'a'})-[:R]->{3,}(:N {n: 'd'})
      RETURN length(p) AS length
      """
    Then the result should be, in any order:
      | length |
      | 3      |
    And no side effects

  Scenario: [15] SHORTEST over an undirected quantified relationship
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (:N {n: 'g'})-[:R]-+(:N {n: 'a'})
      RETURN length(p) AS length
      """
    Then the result should be, in any order:
      | length |
      | 3      |
    And no side effects

  Scenario: [16] SHORTEST with no path returns nothing
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (:N {n: 'g'})-[:R]->+(:N {n: 'a'})
      RETURN p
      """
    Then the result should be empty
    And no side effects

  Scenario: [17] The MATCH's WHERE filters after the selector
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (:N {n: 'a'})-[:R]->+(:N {n: 'd'})
      WHERE length(p) > 2
      RETURN p
      """
    Then the result should be empty
    And no side effects

  Scenario: [18] SHORTEST binds group variables
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH SHORTEST 1 (:N {n: 'a'}) ((x)-[r:R]->(y))+ (:N {n: 'd'})
      RETURN size(r) AS hops, size(x) AS xs
      """
    Then the result should be, in any order:
      | hops | xs |
      | 2    | 2  |
    And no side effects

  Scenario: [19] SHORTEST through a fixed relationship and a node between
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (:N {n: 'a'})-[:R]->(m:N {n: 'e'})-[:R]->+(:N {n: 'g'})
      RETURN m.n AS m, length(p) AS length
      """
    Then the result should be, in any order:
      | m   | length |
      | 'e' | 4      |
    And no side effects

  Scenario: [20] SHORTEST agrees with shortestPath
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (a:N {n: 'a'})-[:R]->+(g:N {n: 'g'})
      MATCH q = shortestPath((a)-[:R*]->(g))
      RETURN length(p) = length(q) AS same
      """
    Then the result should be, in any order:
      | same |
      | true |
    And no side effects

  Scenario: [21] A selector's count of 0 fails
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH p = SHORTEST 0 (a)-[:R]->+(b)
      RETURN p
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentValue

  Scenario: [22] A selector on a lone node fails
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'}), (b:N {n: 'b'}), (c:N {n: 'c'}), (d:N {n: 'd'}),
             (e:N {n: 'e'}), (f:N {n: 'f'}), (g:N {n: 'g'}),
             (a)-[:R]->(b)-[:R]->(d), (a)-[:R]->(c)-[:R]->(d),
             (a)-[:R]->(e)-[:R]->(f)-[:R]->(d), (d)-[:R]->(g)
      """
    When executing query:
      """
      MATCH SHORTEST 1 (a)
      RETURN a
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax
