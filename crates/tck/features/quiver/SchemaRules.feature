#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's rules for a new index or constraint beside
# existing ones (Cypher manual, "Create, show, and delete indexes" > "Creating an index when a
# conflicting index or constraint exists", and "Constraints" > "Handling existing
# constraints"): the same rule under its own name is an equivalent rule; an index of the same
# type over the same schema under another name is IndexAlreadyExists whatever its options (a
# full-text index's analyzer, a vector index's dimensions); a constraint of the same kind is
# ConstraintAlreadyExists; a constraint's index blocks an index of its type, and a plain index
# blocks the index a constraint would own. IF NOT EXISTS does nothing where an index of the
# type covers the schema or an index (a uniqueness constraint's too) holds the name, and for a
# constraint where one of its kind covers the schema or a constraint holds the name.
Feature: SchemaRules - equivalent and conflicting indexes and constraints

  Scenario: [1] A full-text index over another's schema fails, whatever its options
    Given an empty graph
    And having executed:
      """
      CREATE FULLTEXT INDEX FOR (n:Article) ON EACH [n.title]
      """
    When executing query:
      """
      CREATE FULLTEXT INDEX fulltext_index_Article_title FOR (n:Article) ON EACH [n.title]
      OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words', `fulltext.eventually_consistent`: false}}
      """
    Then an IndexAlreadyExists should be raised at runtime: *

  Scenario: [2] A vector index over another's schema fails, whatever its dimensions
    Given an empty graph
    And having executed:
      """
      CREATE VECTOR INDEX FOR (n:Chunk) ON n.embedding
      OPTIONS {indexConfig: {`vector.similarity_function`: 'cosine', `vector.dimensions`: 1536}}
      """
    When executing query:
      """
      CREATE VECTOR INDEX vector_index_Chunk_embedding FOR (n:Chunk) ON n.embedding
      OPTIONS {indexConfig: {`vector.dimensions`: 4, `vector.similarity_function`: 'euclidean'}}
      """
    Then an IndexAlreadyExists should be raised at runtime: *

  Scenario: [3] A full-text index under its own name with other options is an equivalent rule
    Given an empty graph
    And having executed:
      """
      CREATE FULLTEXT INDEX titles FOR (n:Article) ON EACH [n.title]
      """
    When executing query:
      """
      CREATE FULLTEXT INDEX titles FOR (n:Article) ON EACH [n.title]
      OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
      """
    Then an EquivalentSchemaRuleAlreadyExists should be raised at runtime: *

  Scenario: [4] IF NOT EXISTS does nothing beside a full-text index over the schema
    Given an empty graph
    And having executed:
      """
      CREATE FULLTEXT INDEX titles FOR ()-[r:CITES]-() ON EACH [r.title]
      """
    And having executed:
      """
      CREATE FULLTEXT INDEX other IF NOT EXISTS FOR ()-[r:CITES]-() ON EACH [r.title]
      """
    When executing query:
      """
      SHOW FULLTEXT INDEXES YIELD name RETURN name
      """
    Then the result should be, in any order:
      | name     |
      | 'titles' |
    And no side effects

  Scenario: [5] A range index over a uniqueness constraint's schema fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT isbn FOR (b:Book) REQUIRE b.isbn IS UNIQUE
      """
    When executing query:
      """
      CREATE INDEX book_isbn FOR (b:Book) ON (b.isbn)
      """
    Then a ConstraintAlreadyExists should be raised at runtime: *

  Scenario: [6] IF NOT EXISTS takes a uniqueness constraint's index for the index
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT isbn FOR (b:Book) REQUIRE b.isbn IS UNIQUE
      """
    And having executed:
      """
      CREATE INDEX book_isbn IF NOT EXISTS FOR (b:Book) ON (b.isbn)
      """
    And having executed:
      """
      CREATE INDEX isbn IF NOT EXISTS FOR (b:Book) ON (b.title)
      """
    When executing query:
      """
      SHOW INDEXES YIELD name, owningConstraint RETURN name, owningConstraint
      """
    Then the result should be, in any order:
      | name   | owningConstraint |
      | 'isbn' | 'isbn'           |
    And no side effects

  Scenario: [7] A text index may share a uniqueness constraint's schema
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT isbn FOR (b:Book) REQUIRE b.isbn IS UNIQUE
      """
    And having executed:
      """
      CREATE TEXT INDEX isbn_text FOR (b:Book) ON (b.isbn)
      """
    When executing query:
      """
      SHOW INDEXES YIELD name, type RETURN name, type
      """
    Then the result should be, in any order:
      | name        | type    |
      | 'isbn'      | 'RANGE' |
      | 'isbn_text' | 'TEXT'  |
    And no side effects

  Scenario: [8] A uniqueness constraint over a range index's schema fails, IF NOT EXISTS too
    Given an empty graph
    And having executed:
      """
      CREATE INDEX book_isbn FOR (b:Book) ON (b.isbn)
      """
    When executing query:
      """
      CREATE CONSTRAINT isbn IF NOT EXISTS FOR (b:Book) REQUIRE b.isbn IS UNIQUE
      """
    Then an IndexAlreadyExists should be raised at runtime: *

  Scenario: [9] A key over a uniqueness constraint's schema fails, IF NOT EXISTS too
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT isbn FOR (b:Book) REQUIRE b.isbn IS UNIQUE
      """
    When executing query:
      """
      CREATE CONSTRAINT isbn_key IF NOT EXISTS FOR (b:Book) REQUIRE b.isbn IS NODE KEY
      """
    Then a ConstraintAlreadyExists should be raised at runtime: *

  Scenario: [10] A type constraint of other types conflicts, IF NOT EXISTS too
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT age_int FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    When executing query:
      """
      CREATE CONSTRAINT age_str IF NOT EXISTS FOR (p:Person) REQUIRE p.age IS :: STRING
      """
    Then a ConstraintAlreadyExists should be raised at runtime: *

  Scenario: [11] IF NOT EXISTS does nothing beside a type constraint of the same types
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT age_int FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    And having executed:
      """
      CREATE CONSTRAINT other IF NOT EXISTS FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name RETURN name
      """
    Then the result should be, in any order:
      | name      |
      | 'age_int' |
    And no side effects

  Scenario: [12] The same uniqueness constraint under its own name is an equivalent rule
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT isbn FOR (b:Book) REQUIRE b.isbn IS UNIQUE
      """
    When executing query:
      """
      CREATE CONSTRAINT isbn FOR (b:Book) REQUIRE b.isbn IS UNIQUE
      """
    Then an EquivalentSchemaRuleAlreadyExists should be raised at runtime: *

  Scenario: [13] A text index over a text index's schema fails
    Given an empty graph
    And having executed:
      """
      CREATE TEXT INDEX bio FOR (p:Person) ON (p.bio)
      """
    When executing query:
      """
      CREATE TEXT INDEX other FOR (p:Person) ON (p.bio)
      """
    Then an IndexAlreadyExists should be raised at runtime: *

  Scenario: [14] A point index over a point index's schema fails
    Given an empty graph
    And having executed:
      """
      CREATE POINT INDEX place FOR (p:Person) ON (p.place)
      """
    When executing query:
      """
      CREATE POINT INDEX other FOR (p:Person) ON (p.place)
      """
    Then an IndexAlreadyExists should be raised at runtime: *
