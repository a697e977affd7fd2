#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented behaviour of property type
# constraints (`REQUIRE x.p IS :: type`): the types allowed are the property types, lists of one
# of them without nulls, and closed unions of those; a missing property satisfies the constraint.
# Vector types (`VECTOR<FLOAT32>(3)`, Neo4j 2025.10) need both a coordinate type and a dimension,
# and hold vectors only: a list of numbers is not one.
Feature: TypeConstraints - the type a property of a label or relationship type must have

  Scenario: [1] A value of the required type is accepted
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    When executing query:
      """
      CREATE (:Person {age: 3})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [2] A value of another type fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    When executing query:
      """
      CREATE (:Person {age: '3'})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [3] A missing property satisfies a type constraint
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    When executing query:
      """
      CREATE (:Person)
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |

  Scenario: [4] A FLOAT is not an INTEGER
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    When executing query:
      """
      CREATE (:Person {age: 3.0})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [5] SET to another type fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    And having executed:
      """
      CREATE (:Person {age: 3})
      """
    When executing query:
      """
      MATCH (p:Person) SET p.age = true
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [6] SET += with another type fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    And having executed:
      """
      CREATE (:Person {age: 3})
      """
    When executing query:
      """
      MATCH (p:Person) SET p += {age: [1, 2]}
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [7] Adding the label to a node with a value of another type fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    And having executed:
      """
      CREATE (:Robot {age: 'old'})
      """
    When executing query:
      """
      MATCH (r:Robot) SET r:Person
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [8] IS TYPED is the same constraint
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS TYPED INTEGER
      """
    When executing query:
      """
      CREATE (:Person {age: 'x'})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [9] A closed union accepts each of its members
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER | STRING
      """
    When executing query:
      """
      CREATE (:Person {age: 3}), (:Person {age: 'three'})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [10] A closed union refuses other types
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER | STRING
      """
    When executing query:
      """
      CREATE (:Person {age: 3.5})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [11] A list type accepts a list of its element type
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_scores FOR (p:Person) REQUIRE p.scores IS :: LIST<INTEGER NOT NULL>
      """
    When executing query:
      """
      CREATE (:Person {scores: [1, 2, 3]}), (:Person {scores: []})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [12] A list type refuses a list of another element type
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_scores FOR (p:Person) REQUIRE p.scores IS :: LIST<INTEGER NOT NULL>
      """
    When executing query:
      """
      CREATE (:Person {scores: ['a']})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [13] A list type refuses a scalar
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_scores FOR (p:Person) REQUIRE p.scores IS :: LIST<INTEGER NOT NULL>
      """
    When executing query:
      """
      CREATE (:Person {scores: 1})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [14] Temporal types are told apart
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT e_at FOR (e:Event) REQUIRE e.at IS :: DATE
      """
    When executing query:
      """
      CREATE (:Event {at: date('2024-01-01')}), (:Event {at: localdatetime('2024-01-01T10:00')})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [15] A relationship type constraint fails a value of another type
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT knows_since FOR ()-[k:KNOWS]-() REQUIRE k.since IS :: INTEGER
      """
    When executing query:
      """
      CREATE ()-[:KNOWS {since: '2020'}]->()
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [16] A relationship type constraint accepts the type
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT knows_since FOR ()-[k:KNOWS]-() REQUIRE k.since IS :: INTEGER
      """
    When executing query:
      """
      CREATE ()-[:KNOWS {since: 2020}]->()
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2 |
      | +relationships | 1 |
      | +properties | 1 |

  Scenario: [17] MERGE that stores another type fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    When executing query:
      """
      MERGE (:Person {age: 'x'})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [18] Creating the constraint over a value of another type fails
    Given an empty graph
    And having executed:
      """
      CREATE (:Person {age: 'x'})
      """
    When executing query:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    Then a ConstraintCreationFailed should be raised at runtime: *
    And no side effects

  Scenario: [19] Creating the constraint over a relationship with another type fails
    Given an empty graph
    And having executed:
      """
      CREATE ()-[:KNOWS {since: 'x'}]->()
      """
    When executing query:
      """
      CREATE CONSTRAINT knows_since FOR ()-[k:KNOWS]-() REQUIRE k.since IS :: INTEGER
      """
    Then a ConstraintCreationFailed should be raised at runtime: *
    And no side effects

  Scenario: [20] MAP is not a property type
    Given an empty graph
    When executing query:
      """
      CREATE CONSTRAINT c FOR (p:Person) REQUIRE p.m IS :: MAP
      """
    Then a SyntaxError should be raised at compile time: *

  Scenario: [21] A list with nullable elements is not allowed
    Given an empty graph
    When executing query:
      """
      CREATE CONSTRAINT c FOR (p:Person) REQUIRE p.l IS :: LIST<INTEGER>
      """
    Then a SyntaxError should be raised at compile time: *

  Scenario: [22] NOT NULL is not allowed in a type constraint
    Given an empty graph
    When executing query:
      """
      CREATE CONSTRAINT c FOR (p:Person) REQUIRE p.a IS :: INTEGER NOT NULL
      """
    Then a SyntaxError should be raised at compile time: *

  Scenario: [23] ANY is not allowed
    Given an empty graph
    When executing query:
      """
      CREATE CONSTRAINT c FOR (p:Person) REQUIRE p.a IS :: ANY
      """
    Then a SyntaxError should be raised at compile time: *

  Scenario: [24] NODE is not allowed
    Given an empty graph
    When executing query:
      """
      CREATE CONSTRAINT c FOR (p:Person) REQUIRE p.a IS :: NODE
      """
    Then a SyntaxError should be raised at compile time: *

  Scenario: [25] A second type constraint on the same property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    When executing query:
      """
      CREATE CONSTRAINT other FOR (p:Person) REQUIRE p.age IS :: STRING
      """
    Then a ConstraintAlreadyExists should be raised at runtime: *

  Scenario: [26] Type and existence constraints combine
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    And having executed:
      """
      CREATE CONSTRAINT person_age_exists FOR (p:Person) REQUIRE p.age IS NOT NULL
      """
    When executing query:
      """
      CREATE (:Person)
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [27] SHOW CONSTRAINTS lists type constraints with their type
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    And having executed:
      """
      CREATE CONSTRAINT knows_since FOR ()-[k:KNOWS]-() REQUIRE k.since IS :: STRING | INTEGER
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name, type, entityType, propertyType
      """
    Then the result should be, in any order:
      | name | type | entityType | propertyType |
      | 'person_age' | 'NODE_PROPERTY_TYPE' | 'NODE' | 'INTEGER' |
      | 'knows_since' | 'RELATIONSHIP_PROPERTY_TYPE' | 'RELATIONSHIP' | 'STRING \| INTEGER' |
    And no side effects

  Scenario: [28] SHOW CONSTRAINTS gives a type constraint's create statement
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER | STRING
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD createStatement
      """
    Then the result should be, in any order:
      | createStatement |
      | 'CREATE CONSTRAINT `person_age` FOR (n:`Person`) REQUIRE (n.`age`) IS :: STRING \| INTEGER' |
    And no side effects

  Scenario: [29] DROP CONSTRAINT lifts the type requirement
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    And having executed:
      """
      DROP CONSTRAINT person_age
      """
    When executing query:
      """
      CREATE (:Person {age: 'x'})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [30] LOAD CSV strings into an INTEGER constraint fail
    Given an empty graph
    And the import file "ages.csv" contains:
      """
      age
      3
      """
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///ages.csv' AS row CREATE (:Person {age: row.age})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [31] LOAD CSV converted values satisfy the constraint
    Given an empty graph
    And the import file "ages.csv" contains:
      """
      age
      3
      """
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///ages.csv' AS row CREATE (:Person {age: toInteger(row.age)})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [32] apoc.create.setProperty with another type fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_age FOR (p:Person) REQUIRE p.age IS :: INTEGER
      """
    And having executed:
      """
      CREATE (:Person {age: 3})
      """
    When executing query:
      """
      MATCH (p:Person) CALL apoc.create.setProperty(p, 'age', 'x') YIELD node RETURN node
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects


  Scenario: [33] A vector of the required coordinate type and dimension is accepted
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT doc_embedding FOR (d:Doc) REQUIRE d.embedding IS :: VECTOR<FLOAT32>(3)
      """
    When executing query:
      """
      CREATE (:Doc {embedding: vector([1, 2, 3], 3, FLOAT32)}), (:Doc)
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [34] A vector of another dimension is refused
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT doc_embedding FOR (d:Doc) REQUIRE d.embedding IS :: VECTOR<FLOAT32>(3)
      """
    When executing query:
      """
      CREATE (:Doc {embedding: vector([1, 2], 2, FLOAT32)})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [35] A vector of another coordinate type is refused
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT doc_embedding FOR (d:Doc) REQUIRE d.embedding IS :: VECTOR<FLOAT32>(3)
      """
    When executing query:
      """
      CREATE (:Doc {embedding: vector([1, 2, 3], 3, FLOAT64)})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [36] A list of numbers is not a vector
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT doc_embedding FOR (d:Doc) REQUIRE d.embedding IS :: VECTOR<FLOAT32>(3)
      """
    When executing query:
      """
      CREATE (:Doc {embedding: [1.0, 2.0, 3.0]})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [37] A relationship vector type constraint refuses another vector
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT contains_embedding FOR ()-[r:CONTAINS]->() REQUIRE r.embedding IS :: VECTOR<INT8>(2)
      """
    And having executed:
      """
      CREATE ()-[:CONTAINS {embedding: vector([1, 2], 2, INTEGER8)}]->()
      """
    When executing query:
      """
      MATCH ()-[r:CONTAINS]->() SET r.embedding = vector([1, 2], 2, INTEGER16)
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [38] Creating a vector type constraint over a vector of another dimension fails
    Given an empty graph
    And having executed:
      """
      CREATE (:Doc {embedding: vector([1, 2], 2, FLOAT32)})
      """
    When executing query:
      """
      CREATE CONSTRAINT doc_embedding FOR (d:Doc) REQUIRE d.embedding IS :: VECTOR<FLOAT32>(3)
      """
    Then a ConstraintCreationFailed should be raised at runtime: *
    And no side effects

  Scenario: [39] A vector type joins a closed union
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT doc_embedding FOR (d:Doc) REQUIRE d.embedding IS :: STRING | VECTOR<INT8>(2)
      """
    When executing query:
      """
      CREATE (:Doc {embedding: '[1, 2]'}), (:Doc {embedding: vector([1, 2], 2, INT8)})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [40] SHOW CONSTRAINTS prints a vector type as Neo4j does
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT node_vector_constraint FOR (n:Movie) REQUIRE n.embedding IS :: VECTOR<INT32>(42)
      """
    And having executed:
      """
      CREATE CONSTRAINT rel_vector_constraint FOR ()-[r:CONTAINS]->() REQUIRE r.embedding IS :: VECTOR<FLOAT32>(1536)
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name, type, propertyType, createStatement
      """
    Then the result should be, in any order:
      | name | type | propertyType | createStatement |
      | 'node_vector_constraint' | 'NODE_PROPERTY_TYPE' | 'VECTOR<INTEGER32 NOT NULL>(42)' | 'CREATE CONSTRAINT `node_vector_constraint` FOR (n:`Movie`) REQUIRE (n.`embedding`) IS :: VECTOR<INTEGER32 NOT NULL>(42)' |
      | 'rel_vector_constraint' | 'RELATIONSHIP_PROPERTY_TYPE' | 'VECTOR<FLOAT32 NOT NULL>(1536)' | 'CREATE CONSTRAINT `rel_vector_constraint` FOR ()-[r:`CONTAINS`]-() REQUIRE (r.`embedding`) IS :: VECTOR<FLOAT32 NOT NULL>(1536)' |
    And no side effects

  Scenario: [41] A vector type constraint without a dimension is refused
    Given an empty graph
    When executing query:
      """
      CREATE CONSTRAINT c FOR (n:Doc) REQUIRE n.embedding IS :: VECTOR<INTEGER>
      """
    Then a SyntaxError should be raised at compile time: *

  Scenario: [42] A vector type constraint without a coordinate type is refused
    Given an empty graph
    When executing query:
      """
      CREATE CONSTRAINT c FOR (n:Doc) REQUIRE n.embedding IS :: VECTOR(3)
      """
    Then a SyntaxError should be raised at compile time: *

  Scenario: [43] A vector dimension past 4096 is refused
    Given an empty graph
    When executing query:
      """
      CREATE CONSTRAINT c FOR (n:Doc) REQUIRE n.embedding IS :: VECTOR<FLOAT32>(4097)
      """
    Then a SyntaxError should be raised at compile time: *

  Scenario: [44] A list of vectors is not a property type
    Given an empty graph
    When executing query:
      """
      CREATE CONSTRAINT c FOR (n:Doc) REQUIRE n.embedding IS :: LIST<VECTOR<FLOAT32>(3) NOT NULL>
      """
    Then a SyntaxError should be raised at compile time: *

  Scenario: [45] A vector type constraint of another dimension on the same property conflicts
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT doc_embedding FOR (d:Doc) REQUIRE d.embedding IS :: VECTOR<FLOAT32>(3)
      """
    When executing query:
      """
      CREATE CONSTRAINT other FOR (d:Doc) REQUIRE d.embedding IS :: VECTOR<FLOAT32>(4)
      """
    Then a ConstraintAlreadyExists should be raised at runtime: *
