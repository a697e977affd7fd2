#encoding: utf-8

# Quiver's own scenarios, written from APOC's documented procedures and functions: the write
# procedures tools call, nested Cypher, periodic batches, path expansion and the function
# library. A bad argument is a ProcedureError naming it.
Feature: Apoc - APOC core procedures and functions

  Scenario: [1] apoc.merge.node creates once, then matches
    Given an empty graph
    And having executed:
      """
      CALL apoc.merge.node(['Person'], {name: 'Ann'}, {n: 1}, {n: 2}) YIELD node RETURN node
      """
    When executing query:
      """
      CALL apoc.merge.node(['Person'], {name: 'Ann'}, {n: 1}, {n: 2}) YIELD node
      RETURN node
      """
    Then the result should be, in any order:
      | node                         |
      | (:Person {name: 'Ann', n: 2}) |
    And the side effects should be:
      | +properties | 1 |
      | -properties | 1 |

  Scenario: [2] apoc.merge.node with no identifying property fails naming it
    Given an empty graph
    When executing query:
      """
      CALL apoc.merge.node(['Person'], {}) YIELD node RETURN node
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [3] apoc.merge.relationship between merged nodes, as graph loaders call it
    Given an empty graph
    When executing query:
      """
      UNWIND [{s: 'a', t: 'b'}, {s: 'a', t: 'b'}] AS row
      CALL apoc.merge.node(['Entity'], {id: row.s}) YIELD node AS s
      CALL apoc.merge.node(['Entity'], {id: row.t}) YIELD node AS t
      CALL apoc.merge.relationship(s, 'MENTIONS', {}, {w: 1}, t) YIELD rel
      RETURN type(rel) AS type, rel.w AS w
      """
    Then the result should be, in any order:
      | type       | w |
      | 'MENTIONS' | 1 |
      | 'MENTIONS' | 1 |
    And the side effects should be:
      | +nodes         | 2 |
      | +relationships | 1 |
      | +labels        | 1 |
      | +properties    | 3 |

  Scenario: [4] apoc.merge.relationship without an end node fails naming it
    Given an empty graph
    And having executed:
      """
      CREATE (:A)
      """
    When executing query:
      """
      MATCH (a:A) CALL apoc.merge.relationship(a, 'R', {}, {}, null) YIELD rel RETURN rel
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [5] apoc.create.node and apoc.create.relationship
    Given an empty graph
    When executing query:
      """
      CALL apoc.create.node(['A'], {x: 1}) YIELD node AS a
      CALL apoc.create.node(['B'], {}) YIELD node AS b
      CALL apoc.create.relationship(a, 'TO', {w: 2}, b) YIELD rel
      RETURN a, rel, b
      """
    Then the result should be, in any order:
      | a           | rel          | b    |
      | (:A {x: 1}) | [:TO {w: 2}] | (:B) |
    And the side effects should be:
      | +nodes         | 2 |
      | +relationships | 1 |
      | +labels        | 2 |
      | +properties    | 2 |

  Scenario: [6] apoc.create.addLabels and apoc.create.setProperty
    Given an empty graph
    And having executed:
      """
      CREATE (:A), (:A)
      """
    When executing query:
      """
      MATCH (a:A) WITH collect(a) AS nodes
      CALL apoc.create.addLabels(nodes, ['Tagged']) YIELD node
      CALL apoc.create.setProperty(node, 'seen', true) YIELD node AS n
      RETURN n
      """
    Then the result should be, in any order:
      | n                           |
      | (:A:Tagged {seen: true})    |
      | (:A:Tagged {seen: true})    |
    And the side effects should be:
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [7] apoc.create.node refuses a null label
    Given an empty graph
    When executing query:
      """
      CALL apoc.create.node([null], {}) YIELD node RETURN node
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [8] apoc.cypher.run returns each row as a map
    Given an empty graph
    When executing query:
      """
      CALL apoc.cypher.run('UNWIND range(1, $n) AS i RETURN i, i * i AS sq', {n: 2}) YIELD value
      RETURN value
      """
    Then the result should be, in any order:
      | value           |
      | {i: 1, sq: 1}   |
      | {i: 2, sq: 4}   |
    And no side effects

  Scenario: [9] apoc.cypher.run refuses a writing statement
    Given an empty graph
    When executing query:
      """
      CALL apoc.cypher.run('CREATE (:X)', {}) YIELD value RETURN value
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [10] apoc.when picks a branch
    Given an empty graph
    When executing query:
      """
      UNWIND [true, false] AS c
      CALL apoc.when(c, 'RETURN "yes" AS a', 'RETURN "no" AS a') YIELD value
      RETURN c, value.a AS a
      """
    Then the result should be, in any order:
      | c     | a     |
      | true  | 'yes' |
      | false | 'no'  |
    And no side effects

  Scenario: [11] apoc.do.when and apoc.do.case write
    Given an empty graph
    When executing query:
      """
      CALL apoc.do.when(true, 'CREATE (n:W) RETURN n') YIELD value AS w
      CALL apoc.do.case([false, 'CREATE (:No) RETURN 1 AS x', true, 'CREATE (:Yes) RETURN 2 AS x']) YIELD value
      RETURN value.x AS x
      """
    Then the result should be, in any order:
      | x |
      | 2 |
    And the side effects should be:
      | +nodes  | 2 |
      | +labels | 2 |

  Scenario: [12] apoc.periodic.iterate runs the batches and reports them
    Given an empty graph
    When executing query:
      """
      CALL apoc.periodic.iterate('UNWIND range(1, 5) AS i RETURN i', 'CREATE (:I {i: i})', {batchSize: 2})
      YIELD batches, total, committedOperations, failedOperations, failedBatches, errorMessages
      RETURN batches, total, committedOperations, failedOperations, failedBatches, errorMessages
      """
    Then the result should be, in any order:
      | batches | total | committedOperations | failedOperations | failedBatches | errorMessages |
      | 3       | 5     | 5                   | 0                | 0             | {}            |
    And the side effects should be:
      | +nodes      | 5 |
      | +labels     | 1 |
      | +properties | 5 |

  Scenario: [13] apoc.periodic.iterate with a batch size of 0 fails naming it
    Given an empty graph
    When executing query:
      """
      CALL apoc.periodic.iterate('RETURN 1 AS x', 'RETURN x', {batchSize: 0}) YIELD batches RETURN batches
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [14] apoc.periodic.commit runs until the statement returns 0
    Given an empty graph
    And having executed:
      """
      UNWIND range(1, 5) AS i CREATE (:T {i: i})
      """
    When executing query:
      """
      CALL apoc.periodic.commit('MATCH (t:T) WITH t LIMIT 2 DELETE t RETURN count(*)', {})
      YIELD updates, executions
      RETURN updates, executions
      """
    Then the result should be, in any order:
      | updates | executions |
      | 5       | 4          |
    And the side effects should be:
      | -nodes      | 5 |
      | -labels     | 1 |
      | -properties | 5 |

  Scenario: [15] apoc.util.validate fails with its message
    Given an empty graph
    When executing query:
      """
      CALL apoc.util.validate(true, 'bad %s', ['input']) RETURN 1
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [16] apoc.util.validate passes when the predicate is false
    Given an empty graph
    When executing query:
      """
      CALL apoc.util.validate(false, 'bad', []) CALL apoc.util.sleep(1) RETURN 1 AS x
      """
    Then the result should be, in any order:
      | x |
      | 1 |
    And no side effects

  Scenario: [17] apoc.path.subgraphNodes follows the relationship filter
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {n: 'a'})-[:R]->(:N {n: 'b'})-[:R]->(:N {n: 'c'}), (a)<-[:R]-(:N {n: 'z'})
      """
    When executing query:
      """
      MATCH (a:N {n: 'a'})
      CALL apoc.path.subgraphNodes(a, {relationshipFilter: 'R>'}) YIELD node
      RETURN node.n AS n
      """
    Then the result should be, in any order:
      | n   |
      | 'a' |
      | 'b' |
      | 'c' |
    And no side effects

  Scenario: [18] apoc.path.expandConfig with level bounds
    Given an empty graph
    And having executed:
      """
      CREATE (:N {n: 'a'})-[:R]->(:N {n: 'b'})-[:R]->(:N {n: 'c'})
      """
    When executing query:
      """
      MATCH (a:N {n: 'a'})
      CALL apoc.path.expandConfig(a, {relationshipFilter: 'R>', minLevel: 1, maxLevel: 2}) YIELD path
      RETURN length(path) AS l
      """
    Then the result should be, in any order:
      | l |
      | 1 |
      | 2 |
    And no side effects

  Scenario: [19] apoc.path.expandConfig refuses an unknown uniqueness
    Given an empty graph
    And having executed:
      """
      CREATE (:N)
      """
    When executing query:
      """
      MATCH (a:N) CALL apoc.path.expandConfig(a, {uniqueness: 'SOMETIMES'}) YIELD path RETURN path
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [20] apoc.coll functions
    Given an empty graph
    When executing query:
      """
      RETURN apoc.coll.sum([1, 2, 3]) AS sum, apoc.coll.toSet([1, 1, 2]) AS set,
             apoc.coll.flatten([[1], [2, 3]]) AS flat, apoc.coll.union([1, 2], [2, 3]) AS u,
             apoc.coll.intersection([1, 2], [2, 3]) AS i, apoc.coll.subtract([1, 2], [2]) AS s,
             apoc.coll.zip([1, 2], ['a', 'b']) AS z, apoc.coll.partition([1, 2, 3], 2) AS p
      """
    Then the result should be, in any order:
      | sum | set    | flat      | u         | i   | s   | z                    | p              |
      | 6.0 | [1, 2] | [1, 2, 3] | [1, 2, 3] | [2] | [1] | [[1, 'a'], [2, 'b']] | [[1, 2], [3]]  |
    And no side effects

  Scenario: [21] apoc.map functions
    Given an empty graph
    When executing query:
      """
      RETURN apoc.map.fromPairs([['a', 1]]) AS p, apoc.map.merge({a: 1}, {b: 2}) AS m,
             apoc.map.removeKeys({a: 1, b: 2}, ['a']) AS r, apoc.map.flatten({a: {b: 1}}) AS f,
             apoc.map.submap({a: 1, b: 2}, ['b']) AS s
      """
    Then the result should be, in any order:
      | p        | m            | r        | f          | s        |
      | {a: 1}   | {a: 1, b: 2} | {b: 2}   | {`a.b`: 1} | {b: 2}   |
    And no side effects

  Scenario: [22] apoc.text functions
    Given an empty graph
    When executing query:
      """
      RETURN apoc.text.join(['a', 'b'], ',') AS j, apoc.text.camelCase('hello big world') AS c,
             apoc.text.snakeCase('helloBigWorld') AS s, apoc.text.lpad('5', 3, '0') AS l,
             apoc.text.levenshteinDistance('abc', 'abd') AS d, apoc.text.format('%s=%d', ['x', 1]) AS f
      """
    Then the result should be, in any order:
      | j     | c               | s                 | l     | d | f     |
      | 'a,b' | 'helloBigWorld' | 'hello_big_world' | '005' | 1 | 'x=1' |
    And no side effects

  Scenario: [23] apoc.convert functions
    Given an empty graph
    When executing query:
      """
      RETURN apoc.convert.toJson([1, 'a']) AS j, apoc.convert.fromJsonMap('{"a": [1]}') AS m,
             apoc.convert.toInteger('7') AS i, apoc.convert.toBoolean('no') AS b
      """
    Then the result should be, in any order:
      | j         | m        | i | b     |
      | '[1,"a"]' | {a: [1]} | 7 | false |
    And no side effects

  Scenario: [24] A bad function argument is a ProcedureError
    Given an empty graph
    When executing query:
      """
      RETURN apoc.convert.fromJsonMap('{oops') AS m
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [25] apoc.version answers
    Given an empty graph
    When executing query:
      """
      RETURN apoc.version() STARTS WITH '2026.' AS ok
      """
    Then the result should be, in any order:
      | ok   |
      | true |
    And no side effects

  Scenario: [26] startNode and endNode of a virtual relationship are the virtual nodes it joins
    Given an empty graph
    When executing query:
      """
      CALL apoc.create.vNode(['Person'], {name: 'Ann'}) YIELD node AS a
      CALL apoc.create.vNode(['Person', 'Virtual'], {name: 'Bob'}) YIELD node AS b
      CALL apoc.create.vRelationship(a, 'KNOWS', {since: 2020}, b) YIELD rel
      RETURN rel, startNode(rel) AS s, endNode(rel) AS e, startNode(rel) = a AS same,
             endNode(rel).name AS name, labels(endNode(rel)) AS labels,
             endNode(rel):Virtual AS virtual, startNode(rel):Person&!Virtual AS plain
      """
    Then the result should be, in any order:
      | rel                      | s                       | e                                | same | name  | labels                | virtual | plain |
      | [:KNOWS {since: 2020}]   | (:Person {name: 'Ann'}) | (:Person:Virtual {name: 'Bob'})  | true | 'Bob' | ['Person', 'Virtual'] | true    | true  |
    And no side effects

  Scenario: [27] A virtual relationship between stored nodes ends at the stored nodes
    Given an empty graph
    And having executed:
      """
      CREATE (:City {name: 'Oslo'}), (:City {name: 'Bergen'})
      """
    When executing query:
      """
      MATCH (a:City {name: 'Oslo'}), (b:City {name: 'Bergen'})
      CALL apoc.create.vRelationship(a, 'ROAD', {km: 463}, b) YIELD rel
      RETURN startNode(rel) AS s, endNode(rel) AS e, endNode(rel) = b AS same,
             type(rel) AS type, rel.km AS km
      """
    Then the result should be, in any order:
      | s                       | e                         | same | type   | km  |
      | (:City {name: 'Oslo'})  | (:City {name: 'Bergen'})  | true | 'ROAD' | 463 |
    And no side effects

  Scenario: [28] A virtual relationship between a stored and a virtual node
    Given an empty graph
    And having executed:
      """
      CREATE (:City {name: 'Oslo'})
      """
    When executing query:
      """
      MATCH (a:City)
      CALL apoc.create.vNode(['Country'], {name: 'Norway'}) YIELD node AS c
      CALL apoc.create.vRelationship(a, 'IN', {}, c) YIELD rel
      RETURN [n IN [startNode(rel), endNode(rel)] | labels(n)[0] + ':' + n.name] AS ends
      """
    Then the result should be, in any order:
      | ends                            |
      | ['City:Oslo', 'Country:Norway'] |
    And no side effects

  Scenario: [29] The schema's virtual relationships end at its virtual nodes
    Given an empty graph
    And having executed:
      """
      CREATE (:Movie {title: 'Heat'})<-[:ACTED_IN]-(:Actor {name: 'Al'})
      """
    When executing query:
      """
      CALL db.schema.visualization() YIELD relationships
      UNWIND relationships AS r
      RETURN startNode(r).name AS s, type(r) AS t, endNode(r).name AS e, labels(endNode(r)) AS l
      """
    Then the result should be, in any order:
      | s       | t          | e       | l         |
      | 'Actor' | 'ACTED_IN' | 'Movie' | ['Movie'] |
    And no side effects
