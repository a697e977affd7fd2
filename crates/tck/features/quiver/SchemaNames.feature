#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented rule that an index or constraint
# name "must be unique among both indexes and constraints" (Cypher manual, "Indexes" and
# "Constraints" > "Syntax"): range, vector and full-text indexes and every kind of constraint
# share one name space. A name held by a rule the new one is not equivalent to fails with
# IndexWithNameAlreadyExists or ConstraintWithNameAlreadyExists (whichever holds it), the same
# rule again with EquivalentSchemaRuleAlreadyExists. IF NOT EXISTS does nothing when a rule of
# its own kind holds the name (for an index, a uniqueness or key constraint too: its index bears
# its name), and still fails when the other kind does (SchemaRules.feature has the rest).
Feature: SchemaNames - one name space for indexes and constraints

  Background:
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    And having executed:
      """
      CREATE VECTOR INDEX doc_v FOR (d:Doc) ON (d.v)
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}
      """
    And having executed:
      """
      CREATE FULLTEXT INDEX doc_text FOR (d:Doc) ON EACH [d.text]
      """

  Scenario: [1] A vector index may not take a property constraint's name
    When executing query:
      """
      CREATE VECTOR INDEX person_name FOR (p:Person) ON (p.v)
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}
      """
    Then a ConstraintWithNameAlreadyExists should be raised at runtime: *

  Scenario: [2] A full-text index may not take a property constraint's name
    When executing query:
      """
      CREATE FULLTEXT INDEX person_name FOR (p:Person) ON EACH [p.bio]
      """
    Then a ConstraintWithNameAlreadyExists should be raised at runtime: *

  Scenario: [3] An existence constraint may not take a vector index's name
    When executing query:
      """
      CREATE CONSTRAINT doc_v FOR (d:Doc) REQUIRE d.v IS NOT NULL
      """
    Then a IndexWithNameAlreadyExists should be raised at runtime: *

  Scenario: [4] A type constraint may not take a full-text index's name
    When executing query:
      """
      CREATE CONSTRAINT doc_text FOR (d:Doc) REQUIRE d.text IS :: STRING
      """
    Then a IndexWithNameAlreadyExists should be raised at runtime: *

  Scenario: [5] A uniqueness constraint may not take a property constraint's name
    When executing query:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.id IS UNIQUE
      """
    Then a ConstraintWithNameAlreadyExists should be raised at runtime: *

  Scenario: [6] A range index may not take a vector index's name
    When executing query:
      """
      CREATE INDEX doc_v FOR (d:Doc) ON (d.title)
      """
    Then a IndexWithNameAlreadyExists should be raised at runtime: *

  Scenario: [7] A vector index may not take a full-text index's name
    When executing query:
      """
      CREATE VECTOR INDEX doc_text FOR (d:Doc) ON (d.w)
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}
      """
    Then a IndexWithNameAlreadyExists should be raised at runtime: *

  Scenario: [8] The same full-text index again is an equivalent rule
    When executing query:
      """
      CREATE FULLTEXT INDEX doc_text FOR (d:Doc) ON EACH [d.text]
      """
    Then a EquivalentSchemaRuleAlreadyExists should be raised at runtime: *

  Scenario: [9] The same vector index again is an equivalent rule
    When executing query:
      """
      CREATE VECTOR INDEX doc_v FOR (d:Doc) ON (d.v)
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}
      """
    Then a EquivalentSchemaRuleAlreadyExists should be raised at runtime: *

  Scenario: [10] The same existence constraint again is an equivalent rule
    When executing query:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    Then a EquivalentSchemaRuleAlreadyExists should be raised at runtime: *

  Scenario: [11] IF NOT EXISTS does nothing when an index of its kind holds the name
    Given having executed:
      """
      CREATE VECTOR INDEX doc_text IF NOT EXISTS FOR (d:Doc) ON (d.w)
      OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'cosine'}}
      """
    And having executed:
      """
      CREATE INDEX doc_v IF NOT EXISTS FOR (d:Doc) ON (d.title)
      """
    When executing query:
      """
      SHOW INDEXES YIELD name, type WHERE name STARTS WITH 'doc' RETURN name, type
      """
    Then the result should be, in any order:
      | name       | type       |
      | 'doc_v'    | 'VECTOR'   |
      | 'doc_text' | 'FULLTEXT' |
    And no side effects

  Scenario: [12] IF NOT EXISTS does nothing when a constraint holds a new constraint's name
    Given having executed:
      """
      CREATE CONSTRAINT person_name IF NOT EXISTS FOR (p:Person) REQUIRE p.id IS UNIQUE
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name, type
      """
    Then the result should be, in any order:
      | name          | type                      |
      | 'person_name' | 'NODE_PROPERTY_EXISTENCE' |
    And no side effects

  Scenario: [13] IF NOT EXISTS still fails when a constraint holds a new index's name
    When executing query:
      """
      CREATE FULLTEXT INDEX person_name IF NOT EXISTS FOR (p:Person) ON EACH [p.bio]
      """
    Then a ConstraintWithNameAlreadyExists should be raised at runtime: *

  Scenario: [14] IF NOT EXISTS still fails when an index holds a new constraint's name
    When executing query:
      """
      CREATE CONSTRAINT doc_v IF NOT EXISTS FOR (d:Doc) REQUIRE d.v IS :: LIST<FLOAT NOT NULL>
      """
    Then a IndexWithNameAlreadyExists should be raised at runtime: *

  Scenario: [15] A dropped rule's name is free again, for the other kind too
    Given having executed:
      """
      DROP CONSTRAINT person_name
      """
    And having executed:
      """
      CREATE FULLTEXT INDEX person_name FOR (p:Person) ON EACH [p.bio]
      """
    When executing query:
      """
      SHOW FULLTEXT INDEXES YIELD name, labelsOrTypes RETURN name, labelsOrTypes ORDER BY name
      """
    Then the result should be, in order:
      | name          | labelsOrTypes |
      | 'doc_text'    | ['Doc']       |
      | 'person_name' | ['Person']    |
    And no side effects
