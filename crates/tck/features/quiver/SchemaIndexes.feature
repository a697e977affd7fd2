#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented behaviour (Cypher manual, "Indexes"
# and "SHOW INDEXES"): range indexes over relationship properties and over several properties
# at once (composite), text and point indexes, and the columns SHOW INDEXES returns. Which
# plan a query gets is tested through the engine (EXPLAIN names the seek); here the seeks must
# return exactly what a scan would.
Feature: SchemaIndexes - relationship, composite, text and point indexes

  Scenario: [1] A relationship index is listed with its type and property
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    When executing query:
      """
      SHOW INDEXES YIELD name, state, type, entityType, labelsOrTypes, properties, owningConstraint
      """
    Then the result should be, in any order:
      | name          | state    | type    | entityType     | labelsOrTypes | properties | owningConstraint |
      | 'rated_score' | 'ONLINE' | 'RANGE' | 'RELATIONSHIP' | ['RATED']     | ['score']  | null             |
    And no side effects

  Scenario: [2] A relationship index without a name gets one from its type and property
    Given an empty graph
    And having executed:
      """
      CREATE INDEX FOR ()-[r:RATED]-() ON (r.score)
      """
    When executing query:
      """
      SHOW INDEXES YIELD name
      """
    Then the result should be, in any order:
      | name                |
      | 'index_RATED_score' |
    And no side effects

  Scenario: [3] An equality in a relationship's property map is answered
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    When executing query:
      """
      MATCH (u)-[r:RATED {score: 5}]->(m) RETURN u.name AS u, m.name AS m
      """
    Then the result should be, in any order:
      | u    | m    |
      | 'u1' | 'm1' |
      | 'u2' | 'm2' |
    And no side effects

  Scenario: [4] An equality in WHERE with a parameter is answered
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    And parameters are:
      | s | 3 |
    When executing query:
      """
      MATCH ()-[r:RATED]->() WHERE r.score = $s RETURN r.note AS note
      """
    Then the result should be, in any order:
      | note   |
      | 'good' |
    And no side effects

  Scenario: [5] A range is answered
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    When executing query:
      """
      MATCH ()-[r:RATED]->() WHERE r.score > 2 RETURN r.score AS s
      """
    Then the result should be, in any order:
      | s |
      | 5 |
      | 3 |
      | 5 |
    And no side effects

  Scenario: [6] A range with both bounds is answered
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    When executing query:
      """
      MATCH ()-[r:RATED]->() WHERE 1 < r.score <= 3 RETURN r.score AS s
      """
    Then the result should be, in any order:
      | s |
      | 3 |
    And no side effects

  Scenario: [7] IN is answered
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    When executing query:
      """
      MATCH ()-[r:RATED]->() WHERE r.score IN [1, 3] RETURN r.score AS s
      """
    Then the result should be, in any order:
      | s |
      | 3 |
      | 1 |
    And no side effects

  Scenario: [8] A prefix is answered
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_note FOR ()-[r:RATED]-() ON (r.note)
      """
    And having executed:
      """
      CREATE (a)-[:RATED {note: 'great'}]->(b), (a)-[:RATED {note: 'good'}]->(b),
             (a)-[:RATED {note: 'grand'}]->(b), (a)-[:RATED {note: 5}]->(b)
      """
    When executing query:
      """
      MATCH ()-[r:RATED]->() WHERE r.note STARTS WITH 'gr' RETURN r.note AS note
      """
    Then the result should be, in any order:
      | note    |
      | 'great' |
      | 'grand' |
    And no side effects

  Scenario: [9] An undirected pattern binds each relationship both ways
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    When executing query:
      """
      MATCH (a)-[r:RATED {score: 3}]-(b) RETURN a.name AS a, b.name AS b
      """
    Then the result should be, in any order:
      | a    | b    |
      | 'u1' | 'm2' |
      | 'm2' | 'u1' |
    And no side effects

  Scenario: [10] An incoming pattern binds the ends the other way
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    When executing query:
      """
      MATCH (m)<-[r:RATED {score: 1}]-(u) RETURN m.name AS m, u.name AS u
      """
    Then the result should be, in any order:
      | m    | u    |
      | 'm1' | 'u2' |
    And no side effects

  Scenario: [11] A label on an end of the pattern still filters
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (:User {name: 'u'})-[:RATED {score: 5}]->(:Movie),
             (:Bot {name: 'b'})-[:RATED {score: 5}]->(:Movie)
      """
    When executing query:
      """
      MATCH (u:User)-[r:RATED {score: 5}]->(m) RETURN u.name AS name
      """
    Then the result should be, in any order:
      | name |
      | 'u'  |
    And no side effects

  Scenario: [12] An index created over existing relationships finds them
    Given an empty graph
    And having executed:
      """
      CREATE ()-[:RATED {score: 4}]->(), ()-[:RATED {score: 2}]->()
      """
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    When executing query:
      """
      MATCH ()-[r:RATED]->() WHERE r.score = 4 RETURN r.score AS s
      """
    Then the result should be, in any order:
      | s |
      | 4 |
    And no side effects

  Scenario: [13] A changed property is found under its new value only
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    And having executed:
      """
      MATCH ()-[r:RATED {score: 1}]->() SET r.score = 2
      """
    When executing query:
      """
      MATCH ()-[r:RATED]->() WHERE r.score IN [1, 2] RETURN r.score AS s
      """
    Then the result should be, in any order:
      | s |
      | 2 |
    And no side effects

  Scenario: [14] A removed property is no longer found
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    And having executed:
      """
      MATCH ()-[r:RATED {score: 3}]->() REMOVE r.score
      """
    When executing query:
      """
      MATCH ()-[r:RATED]->() WHERE r.score = 3 RETURN count(r) AS n
      """
    Then the result should be, in any order:
      | n |
      | 0 |
    And no side effects

  Scenario: [15] A deleted relationship is no longer found
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    And having executed:
      """
      MATCH ()-[r:RATED {score: 5}]->() DELETE r
      """
    When executing query:
      """
      MATCH ()-[r:RATED]->() WHERE r.score >= 3 RETURN r.score AS s
      """
    Then the result should be, in any order:
      | s |
      | 3 |
    And no side effects

  Scenario: [16] A relationship of another type with the value is not returned
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    When executing query:
      """
      MATCH ()-[r:RATED]->() WHERE r.score = 5 RETURN type(r) AS t, count(*) AS n
      """
    Then the result should be, in any order:
      | t       | n |
      | 'RATED' | 2 |
    And no side effects

  Scenario: [17] An integer and an equal float find each other, a string does not
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE ()-[:RATED {score: 5}]->(), ()-[:RATED {score: '5'}]->(), ()-[:RATED {score: 5.5}]->()
      """
    When executing query:
      """
      MATCH ()-[r:RATED]->() WHERE r.score = 5.0 RETURN r.score AS s
      """
    Then the result should be, in any order:
      | s |
      | 5 |
    And no side effects

  Scenario: [18] A null value finds nothing
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    When executing query:
      """
      MATCH ()-[r:RATED]->() WHERE r.score = null RETURN r
      """
    Then the result should be empty
    And no side effects

  Scenario: [19] A self-loop is bound once by an undirected pattern
    Given an empty graph
    And having executed:
      """
      CREATE INDEX t_p FOR ()-[r:T]-() ON (r.p)
      """
    And having executed:
      """
      CREATE (a {name: 'a'})-[:T {p: 1}]->(a)
      """
    When executing query:
      """
      MATCH (x)-[r:T {p: 1}]-(y) RETURN x.name AS x, y.name AS y
      """
    Then the result should be, in any order:
      | x   | y   |
      | 'a' | 'a' |
    And no side effects

  Scenario: [20] Changes of the statement's own transaction are seen
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    When executing query:
      """
      CREATE ()-[:RATED {score: 9}]->()
      WITH 1 AS one
      MATCH ()-[r:RATED {score: 9}]->() RETURN r.score AS s
      """
    Then the result should be, in any order:
      | s |
      | 9 |
    And the side effects should be:
      | +nodes         | 2 |
      | +relationships | 1 |
      | +properties    | 1 |

  Scenario: [21] A composite index lists its properties in order
    Given an empty graph
    And having executed:
      """
      CREATE INDEX person_age_country FOR (p:Person) ON (p.age, p.country)
      """
    And having executed:
      """
      CREATE (:Person {name: 'a', age: 30, country: 'SE'}), (:Person {name: 'b', age: 30, country: 'NO'}),
             (:Person {name: 'c', age: 40, country: 'SE'}), (:Person {name: 'd', age: 30}),
             (:Robot {name: 'e', age: 30, country: 'SE'})
      """
    When executing query:
      """
      SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties
      """
    Then the result should be, in any order:
      | name                 | type    | entityType | labelsOrTypes | properties         |
      | 'person_age_country' | 'RANGE' | 'NODE'     | ['Person']    | ['age', 'country'] |
    And no side effects

  Scenario: [22] A composite index answers equalities on every key
    Given an empty graph
    And having executed:
      """
      CREATE INDEX person_age_country FOR (p:Person) ON (p.age, p.country)
      """
    And having executed:
      """
      CREATE (:Person {name: 'a', age: 30, country: 'SE'}), (:Person {name: 'b', age: 30, country: 'NO'}),
             (:Person {name: 'c', age: 40, country: 'SE'}), (:Person {name: 'd', age: 30}),
             (:Robot {name: 'e', age: 30, country: 'SE'})
      """
    When executing query:
      """
      MATCH (p:Person) WHERE p.age = 30 AND p.country = 'SE' RETURN p.name AS name
      """
    Then the result should be, in any order:
      | name |
      | 'a'  |
    And no side effects

  Scenario: [23] A composite index answers a property map
    Given an empty graph
    And having executed:
      """
      CREATE INDEX person_age_country FOR (p:Person) ON (p.age, p.country)
      """
    And having executed:
      """
      CREATE (:Person {name: 'a', age: 30, country: 'SE'}), (:Person {name: 'b', age: 30, country: 'NO'}),
             (:Person {name: 'c', age: 40, country: 'SE'}), (:Person {name: 'd', age: 30}),
             (:Robot {name: 'e', age: 30, country: 'SE'})
      """
    When executing query:
      """
      MATCH (p:Person {country: 'SE', age: 40}) RETURN p.name AS name
      """
    Then the result should be, in any order:
      | name |
      | 'c'  |
    And no side effects

  Scenario: [24] A composite index answers a range on the last key
    Given an empty graph
    And having executed:
      """
      CREATE INDEX person_country_age FOR (p:Person) ON (p.country, p.age)
      """
    And having executed:
      """
      CREATE (:Person {name: 'a', age: 30, country: 'SE'}), (:Person {name: 'b', age: 35, country: 'SE'}),
             (:Person {name: 'c', age: 40, country: 'SE'}), (:Person {name: 'd', age: 35, country: 'NO'})
      """
    When executing query:
      """
      MATCH (p:Person) WHERE p.country = 'SE' AND p.age >= 35 RETURN p.name AS name
      """
    Then the result should be, in any order:
      | name |
      | 'b'  |
      | 'c'  |
    And no side effects

  Scenario: [25] A predicate on one key of a composite index still finds every match
    Given an empty graph
    And having executed:
      """
      CREATE INDEX person_age_country FOR (p:Person) ON (p.age, p.country)
      """
    And having executed:
      """
      CREATE (:Person {name: 'a', age: 30, country: 'SE'}), (:Person {name: 'b', age: 30, country: 'NO'}),
             (:Person {name: 'c', age: 40, country: 'SE'}), (:Person {name: 'd', age: 30}),
             (:Robot {name: 'e', age: 30, country: 'SE'})
      """
    When executing query:
      """
      MATCH (p:Person) WHERE p.age = 30 RETURN p.name AS name
      """
    Then the result should be, in any order:
      | name |
      | 'a'  |
      | 'b'  |
      | 'd'  |
    And no side effects

  Scenario: [26] A composite index follows a change of one key
    Given an empty graph
    And having executed:
      """
      CREATE INDEX person_age_country FOR (p:Person) ON (p.age, p.country)
      """
    And having executed:
      """
      CREATE (:Person {name: 'a', age: 30, country: 'SE'}), (:Person {name: 'b', age: 30, country: 'NO'}),
             (:Person {name: 'c', age: 40, country: 'SE'}), (:Person {name: 'd', age: 30}),
             (:Robot {name: 'e', age: 30, country: 'SE'})
      """
    And having executed:
      """
      MATCH (p:Person {name: 'b'}) SET p.country = 'SE'
      """
    When executing query:
      """
      MATCH (p:Person) WHERE p.age = 30 AND p.country = 'SE' RETURN p.name AS name
      """
    Then the result should be, in any order:
      | name |
      | 'a'  |
      | 'b'  |
    And no side effects

  Scenario: [27] A node gains an entry when it gets its last key
    Given an empty graph
    And having executed:
      """
      CREATE INDEX person_age_country FOR (p:Person) ON (p.age, p.country)
      """
    And having executed:
      """
      CREATE (:Person {name: 'a', age: 30, country: 'SE'}), (:Person {name: 'b', age: 30, country: 'NO'}),
             (:Person {name: 'c', age: 40, country: 'SE'}), (:Person {name: 'd', age: 30}),
             (:Robot {name: 'e', age: 30, country: 'SE'})
      """
    And having executed:
      """
      MATCH (p:Person {name: 'd'}) SET p.country = 'NO'
      """
    When executing query:
      """
      MATCH (p:Person) WHERE p.age = 30 AND p.country = 'NO' RETURN p.name AS name
      """
    Then the result should be, in any order:
      | name |
      | 'b'  |
      | 'd'  |
    And no side effects

  Scenario: [28] A composite relationship index answers equalities on both keys
    Given an empty graph
    And having executed:
      """
      CREATE INDEX purchased_date_amount FOR ()-[r:PURCHASED]-() ON (r.date, r.amount)
      """
    And having executed:
      """
      CREATE ()-[:PURCHASED {date: 1, amount: 10, id: 'x'}]->(), ()-[:PURCHASED {date: 1, amount: 20, id: 'y'}]->(),
             ()-[:PURCHASED {date: 2, amount: 10, id: 'z'}]->()
      """
    When executing query:
      """
      MATCH ()-[r:PURCHASED {date: 1, amount: 10}]->() RETURN r.id AS id
      """
    Then the result should be, in any order:
      | id  |
      | 'x' |
    And no side effects

  Scenario: [29] A text index is listed as TEXT with its provider
    Given an empty graph
    And having executed:
      """
      CREATE TEXT INDEX rated_note FOR ()-[r:RATED]-() ON (r.note)
      """
    When executing query:
      """
      SHOW INDEXES YIELD name, type, entityType, indexProvider
      """
    Then the result should be, in any order:
      | name         | type   | entityType     | indexProvider |
      | 'rated_note' | 'TEXT' | 'RELATIONSHIP' | 'text-2.0'    |
    And no side effects

  Scenario: [30] A point index is listed as POINT with its provider
    Given an empty graph
    And having executed:
      """
      CREATE POINT INDEX place_location FOR (p:Place) ON (p.location)
      """
    When executing query:
      """
      SHOW POINT INDEXES YIELD name, type, indexProvider
      """
    Then the result should be, in any order:
      | name             | type    | indexProvider |
      | 'place_location' | 'POINT' | 'point-1.0'   |
    And no side effects

  Scenario: [31] SHOW RANGE INDEXES leaves a text index out
    Given an empty graph
    And having executed:
      """
      CREATE TEXT INDEX rated_note FOR ()-[r:RATED]-() ON (r.note)
      """
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    When executing query:
      """
      SHOW RANGE INDEXES YIELD name
      """
    Then the result should be, in any order:
      | name          |
      | 'rated_score' |
    And no side effects

  Scenario: [32] A text index over two properties is refused by name
    Given an empty graph
    When executing query:
      """
      CREATE TEXT INDEX FOR (n:Doc) ON (n.title, n.body)
      """
    Then a SyntaxError should be raised at compile time: UnsupportedFeature

  Scenario: [33] A property named twice is refused
    Given an empty graph
    When executing query:
      """
      CREATE INDEX FOR (n:Person) ON (n.age, n.age)
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentValue

  Scenario: [34] The same relationship index twice fails
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    When executing query:
      """
      CREATE INDEX other_name FOR ()-[r:RATED]-() ON (r.score)
      """
    Then an IndexAlreadyExists should be raised at runtime: *

  Scenario: [35] IF NOT EXISTS makes the same index twice a no-op
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE INDEX rated_score IF NOT EXISTS FOR ()-[r:RATED]-() ON (r.score)
      """
    When executing query:
      """
      SHOW INDEXES YIELD name
      """
    Then the result should be, in any order:
      | name          |
      | 'rated_score' |
    And no side effects

  Scenario: [36] A composite index and an index on its first key are different indexes
    Given an empty graph
    And having executed:
      """
      CREATE INDEX FOR (p:Person) ON (p.age, p.country)
      """
    And having executed:
      """
      CREATE INDEX FOR (p:Person) ON (p.age)
      """
    When executing query:
      """
      SHOW INDEXES YIELD name, properties
      """
    Then the result should be, in any order:
      | name                      | properties         |
      | 'index_Person_age_country' | ['age', 'country'] |
      | 'index_Person_age'         | ['age']            |
    And no side effects

  Scenario: [37] A dropped relationship index is gone and queries still answer
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    And having executed:
      """
      CREATE (u1:User {name: 'u1'}), (u2:User {name: 'u2'}), (m1:Movie {name: 'm1'}), (m2:Movie {name: 'm2'}),
             (u1)-[:RATED {score: 5, note: 'great'}]->(m1),
             (u1)-[:RATED {score: 3, note: 'good'}]->(m2),
             (u2)-[:RATED {score: 5, note: 'grand'}]->(m2),
             (u2)-[:RATED {score: 1}]->(m1),
             (u2)-[:LIKED {score: 5}]->(m1)
      """
    And having executed:
      """
      DROP INDEX rated_score
      """
    When executing query:
      """
      MATCH ()-[r:RATED {score: 3}]->() RETURN r.note AS note
      """
    Then the result should be, in any order:
      | note   |
      | 'good' |
    And no side effects

  Scenario: [38] SHOW INDEXES returns Neo4j's default columns
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    When executing query:
      """
      SHOW INDEXES
      """
    Then the result should be, in any order:
      | id | name          | state    | populationPercent | type    | entityType     | labelsOrTypes | properties | indexProvider | owningConstraint | lastRead | readCount |
      | 1  | 'rated_score' | 'ONLINE' | 100.0             | 'RANGE' | 'RELATIONSHIP' | ['RATED']     | ['score']  | 'range-1.0'   | null             | null     | 0         |
    And no side effects

  Scenario: [39] SHOW INDEXES YIELD * names the other columns
    Given an empty graph
    And having executed:
      """
      CREATE INDEX person_age_country FOR (p:Person) ON (p.age, p.country)
      """
    When executing query:
      """
      SHOW INDEXES YIELD * RETURN trackedSince IS :: ZONED DATETIME NOT NULL AS tracked, options, failureMessage, createStatement
      """
    Then the result should be, in any order:
      | tracked | options                                          | failureMessage | createStatement                                                                |
      | true    | {indexProvider: 'range-1.0', indexConfig: {}} | ''             | 'CREATE RANGE INDEX `person_age_country` FOR (n:`Person`) ON (n.`age`, n.`country`)' |
    And no side effects

  Scenario: [40] A relationship index's create statement names the relationship
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    When executing query:
      """
      SHOW INDEXES YIELD createStatement
      """
    Then the result should be, in any order:
      | createStatement                                                  |
      | 'CREATE RANGE INDEX `rated_score` FOR ()-[r:`RATED`]-() ON (r.`score`)' |
    And no side effects

  Scenario: [41] db.awaitIndexes returns once every index is online
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    When executing query:
      """
      CALL db.awaitIndexes(10)
      """
    Then the result should be empty
    And no side effects

  Scenario: [42] db.awaitIndex waits for a relationship index by name
    Given an empty graph
    And having executed:
      """
      CREATE INDEX rated_score FOR ()-[r:RATED]-() ON (r.score)
      """
    When executing query:
      """
      CALL db.awaitIndex('rated_score', 10)
      """
    Then the result should be empty
    And no side effects
