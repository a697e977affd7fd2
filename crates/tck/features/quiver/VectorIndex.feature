#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented vector indexes: the DDL and its
# options, SHOW VECTOR INDEXES, the query procedures with Neo4j's scores (cosine (1 + cos)/2,
# euclidean 1 / (1 + d²)), the property procedures, and bad arguments as ProcedureErrors.
Feature: VectorIndex - vector indexes and db.index.vector procedures

  Background:
    Given an empty graph

  Scenario: [1] A cosine vector index answers the nearest nodes with Neo4j's scores
    Given having executed:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v)
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}
      """
    And having executed:
      """
      CREATE (:Doc {name: 'east', v: [1.0, 0.0]}), (:Doc {name: 'north', v: [0.0, 1.0]}),
             (:Doc {name: 'west', v: [-1.0, 0.0]}), (:Doc {name: 'none'})
      """
    When executing query:
      """
      CALL db.index.vector.queryNodes('doc', 3, [2.0, 0.0]) YIELD node, score
      RETURN node.name AS name, score
      """
    Then the result should be, in order:
      | name    | score |
      | 'east'  | 1.0   |
      | 'north' | 0.5   |
      | 'west'  | 0.0   |
    And no side effects

  Scenario: [2] A euclidean index scores 1 / (1 + d²)
    Given having executed:
      """
      CREATE VECTOR INDEX pts FOR (p:Pt) ON (p.v)
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean'}}
      """
    And having executed:
      """
      CREATE (:Pt {i: 1, v: [1, 0]}), (:Pt {i: 2, v: [2, 0]}), (:Pt {i: 3, v: [4, 0]})
      """
    When executing query:
      """
      CALL db.index.vector.queryNodes('pts', 2, [0, 0]) YIELD node, score
      RETURN node.i AS i, score
      """
    Then the result should be, in order:
      | i | score |
      | 1 | 0.5   |
      | 2 | 0.2   |
    And no side effects

  Scenario: [3] The index scores agree with the vector.similarity functions
    Given having executed:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v)
      OPTIONS {indexConfig: {`vector.dimensions`: 3}}
      """
    And having executed:
      """
      CREATE (:Doc {v: [0.1, 0.7, 0.2]}), (:Doc {v: [0.9, 0.1, 0.4]}), (:Doc {v: [0.3, 0.3, 0.3]})
      """
    When executing query:
      """
      CALL db.index.vector.queryNodes('doc', 3, [0.2, 0.5, 0.1]) YIELD node, score
      RETURN count(*) AS n, all(x IN collect(score = vector.similarity.cosine(node.v, [0.2, 0.5, 0.1])) WHERE x) AS same
      """
    Then the result should be, in any order:
      | n | same |
      | 3 | true |
    And no side effects

  Scenario: [4] A relationship vector index answers queryRelationships
    Given having executed:
      """
      CREATE VECTOR INDEX rel FOR ()-[r:SIMILAR]-() ON (r.e)
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean'}}
      """
    And having executed:
      """
      CREATE (a:A {n: 'a'})-[:SIMILAR {w: 'near', e: [1.0, 1.0]}]->(b:A {n: 'b'}),
             (a)-[:SIMILAR {w: 'far', e: [3.0, 1.0]}]->(b)
      """
    When executing query:
      """
      CALL db.index.vector.queryRelationships('rel', 1, [1.0, 0.0]) YIELD relationship, score
      RETURN relationship.w AS w, startNode(relationship).n AS s, score
      """
    Then the result should be, in any order:
      | w      | s   | score |
      | 'near' | 'a' | 0.5   |
    And no side effects

  Scenario: [5] SHOW VECTOR INDEXES lists the index with its options
    Given having executed:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v)
      OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.similarity_function`: 'euclidean', `vector.hnsw.m`: 8}}
      """
    And having executed:
      """
      CREATE INDEX FOR (p:Person) ON (p.name)
      """
    When executing query:
      """
      SHOW VECTOR INDEXES YIELD name, type, entityType, labelsOrTypes, properties, indexProvider, options
      RETURN name, type, entityType, labelsOrTypes, properties, indexProvider,
             options.indexConfig.`vector.dimensions` AS dims,
             options.indexConfig.`vector.similarity_function` AS sim,
             options.indexConfig.`vector.hnsw.m` AS m
      """
    Then the result should be, in any order:
      | name  | type     | entityType | labelsOrTypes | properties | indexProvider | dims | sim         | m |
      | 'doc' | 'VECTOR' | 'NODE'     | ['Doc']       | ['v']      | 'vector-2.0'  | 4    | 'EUCLIDEAN' | 8 |
    And no side effects

  Scenario: [6] IF NOT EXISTS leaves an existing index alone and DROP INDEX removes it
    Given having executed:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v) OPTIONS {indexConfig: {`vector.dimensions`: 2}}
      """
    And having executed:
      """
      CREATE VECTOR INDEX doc IF NOT EXISTS FOR (d:Doc) ON (d.v) OPTIONS {indexConfig: {`vector.dimensions`: 2}}
      """
    And having executed:
      """
      DROP INDEX doc
      """
    When executing query:
      """
      SHOW VECTOR INDEXES YIELD name RETURN count(*) AS n
      """
    Then the result should be, in any order:
      | n |
      | 0 |
    And no side effects

  Scenario: [7] An index without vector.dimensions is refused naming the setting
    When executing query:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v) OPTIONS {indexConfig: {`vector.similarity_function`: 'cosine'}}
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [8] db.create.setNodeVectorProperty stores floats the index finds
    Given having executed:
      """
      CALL db.index.vector.createNodeIndex('chunk', 'Chunk', 'embedding', 2, 'cosine')
      """
    And having executed:
      """
      CREATE (:Chunk {id: 1}), (:Chunk {id: 2, embedding: [0.0, 1.0]})
      """
    And having executed:
      """
      MATCH (c:Chunk {id: 1}) CALL db.create.setNodeVectorProperty(c, 'embedding', [1, 0])
      """
    When executing query:
      """
      CALL db.index.vector.queryNodes('chunk', 1, [1.0, 0.1]) YIELD node
      RETURN node.id AS id, node.embedding AS e
      """
    Then the result should be, in any order:
      | id | e          |
      | 1  | [1.0, 0.0] |
    And no side effects

  Scenario: [9] Deleted and changed nodes are never returned by their old vector
    Given having executed:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v) OPTIONS {indexConfig: {`vector.dimensions`: 2}}
      """
    And having executed:
      """
      CREATE (:Doc {name: 'a', v: [1.0, 0.0]}), (:Doc {name: 'b', v: [0.9, 0.1]}), (:Doc {name: 'c', v: [0.0, 1.0]})
      """
    And having executed:
      """
      MATCH (d:Doc {name: 'a'}) DELETE d
      """
    And having executed:
      """
      MATCH (d:Doc {name: 'b'}) SET d.v = [-1.0, 0.0]
      """
    When executing query:
      """
      CALL db.index.vector.queryNodes('doc', 2, [1.0, 0.0]) YIELD node, score
      RETURN node.name AS name, score
      """
    Then the result should be, in order:
      | name | score |
      | 'c'  | 0.5   |
      | 'b'  | 0.0   |
    And no side effects

  Scenario: [10] An unknown index is a ProcedureError
    When executing query:
      """
      CALL db.index.vector.queryNodes('missing', 1, [1.0])
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [11] A query vector of the wrong dimension is a ProcedureError
    Given having executed:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v) OPTIONS {indexConfig: {`vector.dimensions`: 2}}
      """
    When executing query:
      """
      CALL db.index.vector.queryNodes('doc', 1, [1.0, 0.0, 0.0])
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [12] A count below 1 or a vector that is not numbers is a ProcedureError
    Given having executed:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v) OPTIONS {indexConfig: {`vector.dimensions`: 2}}
      """
    When executing query:
      """
      CALL db.index.vector.queryNodes('doc', 0, ['a', 'b'])
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [13] Filtering after YIELD keeps the rows that pass
    Given having executed:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v) OPTIONS {indexConfig: {`vector.dimensions`: 2}}
      """
    And having executed:
      """
      UNWIND range(1, 8) AS i
      CREATE (:Doc {i: i, lang: CASE i % 2 WHEN 0 THEN 'en' ELSE 'de' END, v: [1.0, toFloat(i) / 10]})
      """
    When executing query:
      """
      CALL db.index.vector.queryNodes('doc', 8, [1.0, 0.0]) YIELD node, score
      WITH node WHERE node.lang = 'en'
      RETURN node.i AS i LIMIT 2
      """
    Then the result should be, in order:
      | i |
      | 2 |
      | 4 |
    And no side effects

  Scenario: [14] The property may be written without parentheses, as Neo4j's examples do
    Given having executed:
      """
      CREATE VECTOR INDEX `vector_index_Article_embedding` FOR (n:`Article`) ON n.`embedding`
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}
      """
    And having executed:
      """
      CREATE INDEX article_title FOR (n:Article) ON n.title
      """
    And having executed:
      """
      CREATE (:Article {title: 'a', embedding: [1.0, 0.0]}), (:Article {title: 'b', embedding: [0.0, 1.0]})
      """
    When executing query:
      """
      CALL db.index.vector.queryNodes('vector_index_Article_embedding', 1, [1.0, 0.1]) YIELD node
      WITH node
      MATCH (a:Article {title: node.title})
      RETURN a.title AS title
      """
    Then the result should be, in any order:
      | title |
      | 'a'   |
    And no side effects

  Scenario: [15] MATCH ... SEARCH binds the nearest nodes and their scores
    Given having executed:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v)
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}
      """
    And having executed:
      """
      CREATE (:Doc {name: 'east', v: [1.0, 0.0]}), (:Doc {name: 'north', v: [0.0, 1.0]}),
             (:Doc {name: 'west', v: [-1.0, 0.0]})
      """
    And parameters are:
      | k | 1 |
    When executing query:
      """
      CYPHER 25 MATCH (d:Doc) SEARCH d IN (VECTOR INDEX doc FOR [2.0, 0.0] LIMIT $k * 2) SCORE AS score
      RETURN d.name AS name, score ORDER BY score DESC
      """
    Then the result should be, in order:
      | name    | score |
      | 'east'  | 1.0   |
      | 'north' | 0.5   |
    And no side effects

  Scenario: [16] The MATCH pattern and WHERE filter what SEARCH found
    Given having executed:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v)
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}
      """
    And having executed:
      """
      CREATE (:Doc {name: 'east', v: [1.0, 0.0]}), (:Doc:Old {name: 'north', v: [0.0, 1.0]}),
             (:Doc {name: 'west', v: [-1.0, 0.0]})
      """
    When executing query:
      """
      MATCH (d:Doc {name: 'north'}) SEARCH d IN (VECTOR INDEX doc FOR [2.0, 0.0] LIMIT 3)
      WHERE d:Old
      RETURN d.name AS name
      """
    Then the result should be, in any order:
      | name    |
      | 'north' |
    And no side effects

  Scenario: [17] A WHERE inside SEARCH finds the nearest that pass, not those of the nearest that pass
    Given having executed:
      """
      CREATE VECTOR INDEX pts FOR (p:Pt) ON p.v WITH [p.lang, p.year]
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean'}}
      """
    And having executed:
      """
      UNWIND range(1, 60) AS i
      CREATE (:Pt {i: i, v: [toFloat(i), 0.0], year: 1990 + i % 30,
                   lang: CASE i % 10 WHEN 0 THEN 'en' ELSE 'de' END})
      """
    When executing query:
      """
      CYPHER 25 MATCH (p:Pt)
      SEARCH p IN (VECTOR INDEX pts FOR [0.0, 0.0] WHERE p.lang = 'en' AND 2000 <= p.year LIMIT 3)
      RETURN p.i AS i ORDER BY i
      """
    Then the result should be, in order:
      | i  |
      | 10 |
      | 20 |
      | 40 |
    And no side effects

  Scenario: [18] A WHERE inside SEARCH that the index cannot apply is a SyntaxError
    When executing query:
      """
      MATCH (d:Doc) SEARCH d IN (VECTOR INDEX doc FOR [1.0, 0.0] WHERE NOT d.x = 1 LIMIT 3) RETURN d
      """
    Then a SyntaxError should be raised at compile time: *

  Scenario: [19] A WHERE inside SEARCH on a property the index does not name is a ProcedureError
    Given having executed:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v) WITH [d.lang]
      OPTIONS {indexConfig: {`vector.dimensions`: 2}}
      """
    When executing query:
      """
      MATCH (d:Doc) SEARCH d IN (VECTOR INDEX doc FOR [1.0, 0.0] WHERE d.year = 1 LIMIT 3) RETURN d
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [20] SHOW VECTOR INDEXES lists the properties a search may filter on
    Given having executed:
      """
      CREATE VECTOR INDEX doc FOR (d:Doc) ON (d.v) WITH [d.lang, d.year]
      OPTIONS {indexConfig: {`vector.dimensions`: 2}}
      """
    When executing query:
      """
      SHOW VECTOR INDEXES YIELD properties, createStatement
      """
    Then the result should be, in any order:
      | properties              | createStatement                                                                       |
      | ['v', 'lang', 'year']   | 'CREATE VECTOR INDEX `doc` FOR (n:`Doc`) ON (n.`v`) WITH [n.`lang`, n.`year`]'          |
    And no side effects
