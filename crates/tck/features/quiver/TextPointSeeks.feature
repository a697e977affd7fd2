#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented behaviour (Cypher manual, "Search
# performance indexes": text and point indexes, and SHOW INDEXES' readCount and lastRead). The
# planner seeks through a text index for CONTAINS, ENDS WITH and STARTS WITH, and through a
# point index for point.distance and point.withinBBox; which operator EXPLAIN names is tested
# through the engine. Here each seek must return exactly what the same query returns without
# the index, with nulls, values of other types and points of other coordinate systems beside
# the ones it finds.
Feature: TextPointSeeks - seeks through text and point indexes

  Background:
    Given an empty graph
    And having executed:
      """
      CREATE (:Doc {id: 1, title: 'graph databases'}),
             (:Doc {id: 2, title: 'Graphs'}),
             (:Doc {id: 3, title: 'a graph'}),
             (:Doc {id: 4, title: 42}),
             (:Doc {id: 5, title: ['graph']}),
             (:Doc {id: 6}),
             (:Doc {id: 7, title: ''}),
             (:Doc {id: 8, title: 'café au lait'})
      """

  Scenario: [1] CONTAINS through a text index finds the strings holding the part
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    When executing query:
      """
      MATCH (d:Doc) WHERE d.title CONTAINS 'graph' RETURN d.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 1  |
      | 3  |
    And no side effects

  Scenario: [2] ENDS WITH through a text index finds the strings with the suffix
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    When executing query:
      """
      MATCH (d:Doc) WHERE d.title ENDS WITH 'lait' OR d.title ENDS WITH 'é au lait' RETURN d.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 8  |
    And no side effects

  Scenario: [3] CONTAINS a multi-byte character through a text index
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    When executing query:
      """
      MATCH (d:Doc) WHERE d.title CONTAINS 'é' RETURN d.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 8  |
    And no side effects

  Scenario: [4] The empty string is contained in every string and in nothing else
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    When executing query:
      """
      MATCH (d:Doc) WHERE d.title CONTAINS '' RETURN d.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 1  |
      | 2  |
      | 3  |
      | 7  |
      | 8  |
    And no side effects

  Scenario: [5] CONTAINS null and ENDS WITH a non-string give no rows through a text index
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    When executing query:
      """
      MATCH (d:Doc) WHERE d.title CONTAINS null OR d.title ENDS WITH 4 RETURN d.id AS id
      """
    Then the result should be empty
    And no side effects

  Scenario: [6] STARTS WITH through a text index alone
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    When executing query:
      """
      MATCH (d:Doc) WHERE d.title STARTS WITH 'Graph' RETURN d.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 2  |
    And no side effects

  Scenario: [7] Equality on a string literal through a text index
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    When executing query:
      """
      MATCH (d:Doc) WHERE d.title = 'a graph' RETURN d.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 3  |
    And no side effects

  Scenario: [8] Equality on an integer still finds integers beside a text index
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    When executing query:
      """
      MATCH (d:Doc) WHERE d.title = 42 RETURN d.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 4  |
    And no side effects

  Scenario: [9] Equality on a parameter of another type still finds it beside a text index
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    And parameters are:
      | x | 42 |
    When executing query:
      """
      MATCH (d:Doc) WHERE d.title = $x RETURN d.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 4  |
    And no side effects

  Scenario: [10] IN a list of strings and a number beside a text index
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    When executing query:
      """
      MATCH (d:Doc) WHERE d.title IN ['Graphs', 42, 'nothing'] RETURN d.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 2  |
      | 4  |
    And no side effects

  Scenario: [11] A string parameter drives CONTAINS through a text index
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    And parameters are:
      | part | 'raph' |
    When executing query:
      """
      MATCH (d:Doc) WHERE d.title CONTAINS $part RETURN d.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 1  |
      | 2  |
      | 3  |
    And no side effects

  Scenario: [12] A text index finds a transaction's own writes and loses deleted entities
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    When executing query:
      """
      MATCH (d:Doc {id: 1}) DETACH DELETE d
      WITH count(*) AS gone
      CREATE (:Doc {id: 9, title: 'new graph'})
      WITH gone
      MATCH (d:Doc) WHERE d.title CONTAINS 'graph' RETURN d.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 3  |
      | 9  |
    And the side effects should be:
      | +nodes      | 1 |
      | -nodes      | 1 |
      | +labels     | 0 |
      | +properties | 2 |
      | -properties | 2 |

  Scenario: [13] A relationship text index serves CONTAINS over relationships
    Given having executed:
      """
      CREATE TEXT INDEX rated_note FOR ()-[r:RATED]-() ON (r.note)
      """
    And having executed:
      """
      CREATE (:U {id: 1})-[:RATED {note: 'a good film'}]->(:M {id: 10}),
             (:U {id: 2})-[:RATED {note: 'not good'}]->(:M {id: 20}),
             (:U {id: 3})-[:RATED {note: 5}]->(:M {id: 30})
      """
    When executing query:
      """
      MATCH (u)-[r:RATED]->(m) WHERE r.note CONTAINS 'good' RETURN u.id AS u, m.id AS m
      """
    Then the result should be, in any order:
      | u | m  |
      | 1 | 10 |
      | 2 | 20 |
    And no side effects

  Scenario: [14] A relationship text index serves ENDS WITH both ways
    Given having executed:
      """
      CREATE TEXT INDEX rated_note FOR ()-[r:RATED]-() ON (r.note)
      """
    And having executed:
      """
      CREATE (:U {id: 1})-[:RATED {note: 'a good film'}]->(:M {id: 10}),
             (:U {id: 2})-[:RATED {note: 'not good'}]->(:M {id: 20})
      """
    When executing query:
      """
      MATCH (a)-[r:RATED]-(b) WHERE r.note ENDS WITH 'good' RETURN a.id AS a, b.id AS b
      """
    Then the result should be, in any order:
      | a  | b  |
      | 2  | 20 |
      | 20 | 2  |
    And no side effects

  Scenario: [15] point.distance through a point index, either operand order
    Given having executed:
      """
      CREATE POINT INDEX place_loc FOR (p:Place) ON (p.loc)
      """
    And having executed:
      """
      CREATE (:Place {id: 1, loc: point({x: 0, y: 0})}),
             (:Place {id: 2, loc: point({x: 3, y: 4})}),
             (:Place {id: 3, loc: point({x: 10, y: 10})}),
             (:Place {id: 4, loc: point({x: 1, y: 1, z: 1})}),
             (:Place {id: 5, loc: point({longitude: 0.0, latitude: 0.0})}),
             (:Place {id: 6, loc: 'here'}),
             (:Place {id: 7})
      """
    When executing query:
      """
      MATCH (p:Place)
      WHERE point.distance(point({x: 0, y: 0}), p.loc) <= 5
      RETURN p.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 1  |
      | 2  |
    And no side effects

  Scenario: [16] A strict distance bound excludes the points on it
    Given having executed:
      """
      CREATE POINT INDEX place_loc FOR (p:Place) ON (p.loc)
      """
    And having executed:
      """
      CREATE (:Place {id: 1, loc: point({x: 0, y: 0})}),
             (:Place {id: 2, loc: point({x: 3, y: 4})})
      """
    When executing query:
      """
      MATCH (p:Place) WHERE 5 > point.distance(p.loc, point({x: 0, y: 0})) RETURN p.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 1  |
    And no side effects

  Scenario: [17] Geographic distances through a point index, across the antimeridian
    Given having executed:
      """
      CREATE POINT INDEX place_loc FOR (p:Place) ON (p.loc)
      """
    And having executed:
      """
      CREATE (:Place {id: 1, loc: point({longitude: 179.9, latitude: 0.0})}),
             (:Place {id: 2, loc: point({longitude: -179.9, latitude: 0.0})}),
             (:Place {id: 3, loc: point({longitude: 0.0, latitude: 0.0})}),
             (:Place {id: 4, loc: point({x: 180, y: 0})})
      """
    When executing query:
      """
      MATCH (p:Place)
      WHERE point.distance(p.loc, point({longitude: 180.0, latitude: 0.0})) < 50000
      RETURN p.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 1  |
      | 2  |
    And no side effects

  Scenario: [18] Geographic distances through a point index, near a pole
    Given having executed:
      """
      CREATE POINT INDEX place_loc FOR (p:Place) ON (p.loc)
      """
    And having executed:
      """
      CREATE (:Place {id: 1, loc: point({longitude: 0.0, latitude: 89.5})}),
             (:Place {id: 2, loc: point({longitude: 180.0, latitude: 89.5})}),
             (:Place {id: 3, loc: point({longitude: 90.0, latitude: 80.0})})
      """
    When executing query:
      """
      MATCH (p:Place)
      WHERE point.distance(p.loc, point({longitude: 0.0, latitude: 90.0})) < 100000
      RETURN p.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 1  |
      | 2  |
    And no side effects

  Scenario: [19] A distance to a point of another coordinate system gives no rows
    Given having executed:
      """
      CREATE POINT INDEX place_loc FOR (p:Place) ON (p.loc)
      """
    And having executed:
      """
      CREATE (:Place {id: 1, loc: point({x: 0, y: 0})}),
             (:Place {id: 2, loc: point({x: 0, y: 0, z: 0})})
      """
    When executing query:
      """
      MATCH (p:Place)
      WHERE point.distance(p.loc, point({longitude: 0.0, latitude: 0.0})) < 1000
      RETURN p.id AS id
      """
    Then the result should be empty
    And no side effects

  Scenario: [20] A null centre or radius gives no rows through a point index
    Given having executed:
      """
      CREATE POINT INDEX place_loc FOR (p:Place) ON (p.loc)
      """
    And having executed:
      """
      CREATE (:Place {id: 1, loc: point({x: 0, y: 0})})
      """
    When executing query:
      """
      MATCH (p:Place)
      WHERE point.distance(p.loc, null) < 10 OR point.distance(p.loc, point({x: 0, y: 0})) < null
      RETURN p.id AS id
      """
    Then the result should be empty
    And no side effects

  Scenario: [21] point.withinBBox through a point index
    Given having executed:
      """
      CREATE POINT INDEX place_loc FOR (p:Place) ON (p.loc)
      """
    And having executed:
      """
      CREATE (:Place {id: 1, loc: point({x: 1, y: 1})}),
             (:Place {id: 2, loc: point({x: 2, y: 5})}),
             (:Place {id: 3, loc: point({x: 5, y: 2})}),
             (:Place {id: 4, loc: point({x: 2, y: 2, z: 2})}),
             (:Place {id: 5, loc: point({x: 0, y: 0})})
      """
    When executing query:
      """
      MATCH (p:Place)
      WHERE point.withinBBox(p.loc, point({x: 0, y: 0}), point({x: 3, y: 3}))
      RETURN p.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 1  |
      | 5  |
    And no side effects

  Scenario: [22] A geographic box across the antimeridian through a point index
    Given having executed:
      """
      CREATE POINT INDEX place_loc FOR (p:Place) ON (p.loc)
      """
    And having executed:
      """
      CREATE (:Place {id: 1, loc: point({longitude: 175.0, latitude: 1.0})}),
             (:Place {id: 2, loc: point({longitude: -175.0, latitude: 1.0})}),
             (:Place {id: 3, loc: point({longitude: 0.0, latitude: 1.0})})
      """
    When executing query:
      """
      MATCH (p:Place)
      WHERE point.withinBBox(p.loc, point({longitude: 170.0, latitude: 0.0}), point({longitude: -170.0, latitude: 5.0}))
      RETURN p.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 1  |
      | 2  |
    And no side effects

  Scenario: [23] A box with corners of different coordinate systems gives no rows
    Given having executed:
      """
      CREATE POINT INDEX place_loc FOR (p:Place) ON (p.loc)
      """
    And having executed:
      """
      CREATE (:Place {id: 1, loc: point({x: 1, y: 1})})
      """
    When executing query:
      """
      MATCH (p:Place)
      WHERE point.withinBBox(p.loc, point({x: 0, y: 0}), point({longitude: 3.0, latitude: 3.0}))
      RETURN p.id AS id
      """
    Then the result should be empty
    And no side effects

  Scenario: [24] A relationship point index serves distances
    Given having executed:
      """
      CREATE POINT INDEX road_at FOR ()-[r:ROAD]-() ON (r.at)
      """
    And having executed:
      """
      CREATE (:Town {id: 1})-[:ROAD {at: point({x: 1, y: 1})}]->(:Town {id: 2}),
             (:Town {id: 3})-[:ROAD {at: point({x: 9, y: 9})}]->(:Town {id: 4})
      """
    When executing query:
      """
      MATCH (a)-[r:ROAD]->(b) WHERE point.distance(r.at, point({x: 0, y: 0})) < 2 RETURN a.id AS a, b.id AS b
      """
    Then the result should be, in any order:
      | a | b |
      | 1 | 2 |
    And no side effects

  Scenario: [25] readCount rises once per seek and lastRead is set
    Given having executed:
      """
      CREATE TEXT INDEX doc_title FOR (d:Doc) ON (d.title)
      """
    And having executed:
      """
      MATCH (d:Doc) WHERE d.title CONTAINS 'graph' RETURN d
      """
    When executing query:
      """
      SHOW INDEXES YIELD name, readCount, lastRead, trackedSince
      RETURN name, readCount, lastRead IS NOT NULL AS read, trackedSince IS NOT NULL AS tracked
      """
    Then the result should be, in any order:
      | name        | readCount | read | tracked |
      | 'doc_title' | 1         | true | true    |
    And no side effects

  Scenario: [26] An index not yet read has readCount 0 and no lastRead
    Given having executed:
      """
      CREATE POINT INDEX place_loc FOR (p:Place) ON (p.loc)
      """
    When executing query:
      """
      SHOW INDEXES YIELD name, readCount, lastRead, trackedSince
      RETURN name, readCount, lastRead, trackedSince IS NOT NULL AS tracked
      """
    Then the result should be, in any order:
      | name        | readCount | lastRead | tracked |
      | 'place_loc' | 0         | null     | true    |
    And no side effects

  Scenario: [27] A range index's seeks are counted too
    Given having executed:
      """
      CREATE INDEX doc_id FOR (d:Doc) ON (d.id)
      """
    And having executed:
      """
      UNWIND [1, 2, 3] AS i MATCH (d:Doc {id: i}) RETURN d
      """
    When executing query:
      """
      SHOW RANGE INDEXES YIELD name, readCount RETURN name, readCount
      """
    Then the result should be, in any order:
      | name     | readCount |
      | 'doc_id' | 3         |
    And no side effects

  Scenario: [28] A vector index's searches are counted
    Given having executed:
      """
      CREATE VECTOR INDEX doc_v FOR (d:Doc) ON (d.v)
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}
      """
    And having executed:
      """
      MATCH (d:Doc {id: 1}) SET d.v = [1.0, 0.0]
      """
    And having executed:
      """
      CALL db.index.vector.queryNodes('doc_v', 1, [1.0, 0.0]) YIELD node RETURN node
      """
    When executing query:
      """
      SHOW VECTOR INDEXES YIELD name, readCount, lastRead
      RETURN name, readCount, lastRead IS NOT NULL AS read
      """
    Then the result should be, in any order:
      | name    | readCount | read |
      | 'doc_v' | 1         | true |
    And no side effects

  Scenario: [29] A full-text index's searches are counted
    Given having executed:
      """
      CREATE FULLTEXT INDEX doc_ft FOR (d:Doc) ON EACH [d.title]
      """
    And having executed:
      """
      CALL db.index.fulltext.queryNodes('doc_ft', 'graph') YIELD node RETURN node
      """
    And having executed:
      """
      CALL db.index.fulltext.queryNodes('doc_ft', 'lait') YIELD node RETURN node
      """
    When executing query:
      """
      SHOW FULLTEXT INDEXES YIELD name, readCount, lastRead, trackedSince
      RETURN name, readCount, lastRead IS NOT NULL AS read, trackedSince IS NOT NULL AS tracked
      """
    Then the result should be, in any order:
      | name     | readCount | read | tracked |
      | 'doc_ft' | 2         | true | true    |
    And no side effects
