#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented index and constraint commands
# (Cypher manual, "Indexes" and "Constraints" > "Syntax"): the name of every CREATE and DROP
# command may be a parameter (`CREATE INDEX $name ...`, `DROP CONSTRAINT $name`), and OPTIONS'
# map may hold any expression, evaluated when the command runs. Tools send them that way
# (LangChain's Neo4jVector through neo4j-graphrag's create_vector_index:
# `CREATE VECTOR INDEX $name IF NOT EXISTS ... OPTIONS {indexConfig: {`vector.dimensions`:
# toInteger($dimensions), `vector.similarity_function`: $similarity_fn}}`). A missing parameter
# is ParameterMissing; a name that is not a String is a TypeError naming the parameter; bad
# option values fail as the written forms do.
Feature: SchemaParameters - index and constraint names and options given by parameters

  Background:
    Given an empty graph

  Scenario: [1] A vector index named and configured by parameters, as LangChain creates it
    Given parameters are:
      | name          | 'chunk_vector' |
      | dimensions    | '3'            |
      | similarity_fn | 'euclidean'    |
    And having executed:
      """
      CREATE VECTOR INDEX $name IF NOT EXISTS FOR (n:Chunk) ON n.embedding
      OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions), `vector.similarity_function`: $similarity_fn}}
      """
    When executing query:
      """
      SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, options
      RETURN name, labelsOrTypes, properties,
             options.indexConfig.`vector.dimensions` AS dimensions,
             options.indexConfig.`vector.similarity_function` AS similarity
      """
    Then the result should be, in any order:
      | name           | labelsOrTypes | properties    | dimensions | similarity  |
      | 'chunk_vector' | ['Chunk']     | ['embedding'] | 3          | 'EUCLIDEAN' |
    And no side effects

  Scenario: [2] The same statement again with IF NOT EXISTS does nothing
    Given parameters are:
      | name       | 'chunk_vector' |
      | dimensions | 3              |
    And having executed:
      """
      CREATE VECTOR INDEX $name IF NOT EXISTS FOR (n:Chunk) ON n.embedding
      OPTIONS {indexConfig: {`vector.dimensions`: $dimensions}}
      """
    And having executed:
      """
      CREATE VECTOR INDEX $name IF NOT EXISTS FOR (n:Chunk) ON n.embedding
      OPTIONS {indexConfig: {`vector.dimensions`: $dimensions}}
      """
    When executing query:
      """
      SHOW INDEXES YIELD name, type RETURN name, type
      """
    Then the result should be, in any order:
      | name           | type     |
      | 'chunk_vector' | 'VECTOR' |
    And no side effects

  Scenario: [3] One statement text serves other parameter values
    Given parameters are:
      | name | 'first' |
    And having executed:
      """
      CREATE INDEX $name FOR (n:Person) ON (n.name)
      """
    And having executed:
      """
      DROP INDEX first
      """
    And parameters are:
      | name | 'second' |
    And having executed:
      """
      CREATE INDEX $name FOR (n:Person) ON (n.name)
      """
    When executing query:
      """
      SHOW INDEXES YIELD name RETURN name
      """
    Then the result should be, in any order:
      | name     |
      | 'second' |
    And no side effects

  Scenario: [4] One vector statement text builds indexes of other names and configurations
    Given parameters are:
      | name | 'small' |
      | dims | 2       |
    And having executed:
      """
      CREATE VECTOR INDEX $name FOR (n:Doc) ON (n.v) OPTIONS {indexConfig: {`vector.dimensions`: $dims}}
      """
    And parameters are:
      | name | 'large' |
      | dims | 4       |
    And having executed:
      """
      DROP INDEX small
      """
    And having executed:
      """
      CREATE VECTOR INDEX $name FOR (n:Doc) ON (n.v) OPTIONS {indexConfig: {`vector.dimensions`: $dims}}
      """
    When executing query:
      """
      SHOW VECTOR INDEXES YIELD name, options
      RETURN name, options.indexConfig.`vector.dimensions` AS dimensions
      """
    Then the result should be, in any order:
      | name    | dimensions |
      | 'large' | 4          |
    And no side effects

  Scenario: [5] A full-text index named and configured by parameters, as neo4j-graphrag creates it
    Given parameters are:
      | name     | 'chunk_text' |
      | analyzer | 'english'    |
    And having executed:
      """
      CREATE FULLTEXT INDEX $name IF NOT EXISTS FOR (n:Chunk) ON EACH [n.text]
      OPTIONS {indexConfig: {`fulltext.analyzer`: $analyzer}}
      """
    And having executed:
      """
      CREATE (:Chunk {text: 'quivers hold arrows'}), (:Chunk {text: 'graphs hold relationships'})
      """
    When executing query:
      """
      SHOW FULLTEXT INDEXES YIELD name, labelsOrTypes, properties, options
      RETURN name, labelsOrTypes, properties, options.indexConfig.`fulltext.analyzer` AS analyzer
      """
    Then the result should be, in any order:
      | name         | labelsOrTypes | properties | analyzer  |
      | 'chunk_text' | ['Chunk']     | ['text']   | 'english' |
    And no side effects

  Scenario: [6] A full-text index named by a parameter is queried by that name
    Given parameters are:
      | name | 'chunk_text' |
    And having executed:
      """
      CREATE FULLTEXT INDEX $name FOR (n:Chunk) ON EACH [n.text]
      """
    And having executed:
      """
      CREATE (:Chunk {text: 'quivers hold arrows'}), (:Chunk {text: 'graphs hold relationships'})
      """
    When executing query:
      """
      CALL db.index.fulltext.queryNodes($name, 'arrows') YIELD node RETURN node.text AS text
      """
    Then the result should be, in any order:
      | text                  |
      | 'quivers hold arrows' |
    And no side effects

  Scenario: [7] Text, point and range indexes named by parameters
    Given parameters are:
      | text  | 'doc_body'  |
      | point | 'doc_place' |
      | range | 'doc_year'  |
    And having executed:
      """
      CREATE TEXT INDEX $text FOR (n:Doc) ON (n.body)
      """
    And having executed:
      """
      CREATE POINT INDEX $point IF NOT EXISTS FOR (n:Doc) ON (n.place)
      """
    And having executed:
      """
      CREATE RANGE INDEX $range FOR ()-[r:CITES]-() ON (r.year) OPTIONS {indexProvider: 'range-1.0'}
      """
    When executing query:
      """
      SHOW INDEXES YIELD name, type, entityType RETURN name, type, entityType
      """
    Then the result should be, in any order:
      | name        | type    | entityType     |
      | 'doc_body'  | 'TEXT'  | 'NODE'         |
      | 'doc_place' | 'POINT' | 'NODE'         |
      | 'doc_year'  | 'RANGE' | 'RELATIONSHIP' |
    And no side effects

  Scenario: [8] Constraints of every kind named by parameters
    Given parameters are:
      | unique | 'person_id'    |
      | key    | 'person_key'   |
      | exists | 'person_name'  |
      | typed  | 'person_born'  |
    And having executed:
      """
      CREATE CONSTRAINT $unique FOR (p:Person) REQUIRE p.id IS UNIQUE
      """
    And having executed:
      """
      CREATE CONSTRAINT $key IF NOT EXISTS FOR (p:Person) REQUIRE (p.a, p.b) IS NODE KEY
      """
    And having executed:
      """
      CREATE CONSTRAINT $exists FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    And having executed:
      """
      CREATE CONSTRAINT $typed FOR (p:Person) REQUIRE p.born IS :: INTEGER
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name, type RETURN name, type
      """
    Then the result should be, in any order:
      | name          | type                       |
      | 'person_id'   | 'UNIQUENESS'               |
      | 'person_key'  | 'NODE_KEY'                 |
      | 'person_name' | 'NODE_PROPERTY_EXISTENCE'  |
      | 'person_born' | 'NODE_PROPERTY_TYPE'       |
    And no side effects

  Scenario: [9] DROP INDEX and DROP CONSTRAINT take the name from a parameter
    Given parameters are:
      | index      | 'doc_year'  |
      | constraint | 'person_id' |
      | absent     | 'nothing'   |
    And having executed:
      """
      CREATE INDEX doc_year FOR (n:Doc) ON (n.year)
      """
    And having executed:
      """
      CREATE CONSTRAINT person_id FOR (p:Person) REQUIRE p.id IS UNIQUE
      """
    And having executed:
      """
      DROP INDEX $index
      """
    And having executed:
      """
      DROP CONSTRAINT $constraint IF EXISTS
      """
    And having executed:
      """
      DROP INDEX $absent IF EXISTS
      """
    When executing query:
      """
      SHOW INDEXES YIELD name RETURN count(*) AS n
      """
    Then the result should be, in any order:
      | n |
      | 0 |
    And no side effects

  Scenario: [10] A missing name parameter is ParameterMissing
    When executing query:
      """
      CREATE VECTOR INDEX $name IF NOT EXISTS FOR (n:Chunk) ON n.embedding
      OPTIONS {indexConfig: {`vector.dimensions`: 3}}
      """
    Then a ParameterMissing should be raised at compile time: MissingParameter

  Scenario: [11] A missing option parameter is ParameterMissing
    Given parameters are:
      | name | 'chunk_vector' |
    When executing query:
      """
      CREATE VECTOR INDEX $name FOR (n:Chunk) ON n.embedding
      OPTIONS {indexConfig: {`vector.dimensions`: toInteger($dimensions)}}
      """
    Then a ParameterMissing should be raised at compile time: MissingParameter

  Scenario: [12] A name that is not a String is a TypeError
    Given parameters are:
      | name | 42 |
    When executing query:
      """
      CREATE INDEX $name FOR (n:Person) ON (n.name)
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType

  Scenario: [13] A null name is a TypeError
    Given parameters are:
      | name | null |
    When executing query:
      """
      DROP CONSTRAINT $name
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType

  Scenario: [14] A bad vector option from a parameter fails as the written one does
    Given parameters are:
      | name          | 'chunk_vector' |
      | similarity_fn | 'manhattan'    |
    When executing query:
      """
      CREATE VECTOR INDEX $name FOR (n:Chunk) ON n.embedding
      OPTIONS {indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: $similarity_fn}}
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [15] A bad full-text option from a parameter fails as the written one does
    Given parameters are:
      | analyzer | 'klingon' |
    When executing query:
      """
      CREATE FULLTEXT INDEX chunk_text FOR (n:Chunk) ON EACH [n.text]
      OPTIONS {indexConfig: {`fulltext.analyzer`: $analyzer}}
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [16] A bad written full-text option fails when the command runs
    When executing query:
      """
      CREATE FULLTEXT INDEX chunk_text FOR (n:Chunk) ON EACH [n.text]
      OPTIONS {indexConfig: {`fulltext.analyzer`: 'klingon'}}
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [17] A name taken by another index fails by the parameter's value
    Given parameters are:
      | name | 'taken' |
    And having executed:
      """
      CREATE INDEX taken FOR (n:Person) ON (n.name)
      """
    When executing query:
      """
      CREATE TEXT INDEX $name FOR (n:Person) ON (n.bio)
      """
    Then a IndexWithNameAlreadyExists should be raised at runtime: *
