#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented behaviour (Cypher manual,
# "Constraints"): uniqueness over several properties, over relationships, node and relationship
# keys (unique, and every key present), violations failing the statement that causes them
# (Neo.ClientError.Schema.ConstraintValidationFailed, nothing left behind), a constraint over
# data that breaks it refused by name, and SHOW CONSTRAINTS's columns.
Feature: SchemaConstraints - composite, relationship and key constraints

  Scenario: [1] A composite uniqueness constraint is listed with its properties
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name_born FOR (p:Person) REQUIRE (p.name, p.born) IS UNIQUE
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name, type, entityType, labelsOrTypes, properties, ownedIndex
      """
    Then the result should be, in any order:
      | name               | type         | entityType | labelsOrTypes | properties        | ownedIndex         |
      | 'person_name_born' | 'UNIQUENESS' | 'NODE'     | ['Person']    | ['name', 'born'] | 'person_name_born' |
    And no side effects

  Scenario: [2] A duplicate of both properties fails the statement
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name_born FOR (p:Person) REQUIRE (p.name, p.born) IS UNIQUE
      """
    And having executed:
      """
      CREATE (:Person {name: 'a', born: 1970})
      """
    When executing query:
      """
      CREATE (:Person {name: 'a', born: 1970})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [3] Sharing one of the properties is allowed
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name_born FOR (p:Person) REQUIRE (p.name, p.born) IS UNIQUE
      """
    And having executed:
      """
      CREATE (:Person {name: 'a', born: 1970})
      """
    When executing query:
      """
      CREATE (:Person {name: 'a', born: 1971}), (:Person {name: 'b', born: 1970})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2 |
      | +properties | 4 |

  Scenario: [4] A node without every property is not held to a composite uniqueness constraint
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name_born FOR (p:Person) REQUIRE (p.name, p.born) IS UNIQUE
      """
    And having executed:
      """
      CREATE (:Person {name: 'a'})
      """
    When executing query:
      """
      CREATE (:Person {name: 'a'})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +properties | 1 |

  Scenario: [5] An integer and an equal float are duplicates
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name_born FOR (p:Person) REQUIRE (p.name, p.born) IS UNIQUE
      """
    And having executed:
      """
      CREATE (:Person {name: 'a', born: 1970})
      """
    When executing query:
      """
      CREATE (:Person {name: 'a', born: 1970.0})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [6] SET making a composite duplicate fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name_born FOR (p:Person) REQUIRE (p.name, p.born) IS UNIQUE
      """
    And having executed:
      """
      CREATE (:Person {name: 'a', born: 1970}), (:Person {name: 'a', born: 1971})
      """
    When executing query:
      """
      MATCH (p:Person {born: 1971}) SET p.born = 1970
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [7] The composite index backs seeks
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name_born FOR (p:Person) REQUIRE (p.name, p.born) IS UNIQUE
      """
    And having executed:
      """
      CREATE (:Person {name: 'a', born: 1970}), (:Person {name: 'a', born: 1971})
      """
    When executing query:
      """
      MATCH (p:Person {name: 'a', born: 1971}) RETURN p.born AS born
      """
    Then the result should be, in any order:
      | born |
      | 1971 |
    And no side effects

  Scenario: [8] A relationship uniqueness constraint is listed
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name, type, entityType, labelsOrTypes, properties
      """
    Then the result should be, in any order:
      | name       | type                      | entityType     | labelsOrTypes | properties |
      | 'order_id' | 'RELATIONSHIP_UNIQUENESS' | 'RELATIONSHIP' | ['ORDERED']   | ['id']     |
    And no side effects

  Scenario: [9] A duplicate relationship fails the statement
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    And having executed:
      """
      CREATE ()-[:ORDERED {id: 1}]->()
      """
    When executing query:
      """
      CREATE ()-[:ORDERED {id: 1}]->()
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [10] Two equal relationships in one statement fail it
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    When executing query:
      """
      UNWIND [1, 2, 1] AS i CREATE ()-[:ORDERED {id: i}]->()
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [11] SET on a relationship to a taken value fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    And having executed:
      """
      CREATE ()-[:ORDERED {id: 1}]->(), ()-[:ORDERED {id: 2}]->()
      """
    When executing query:
      """
      MATCH ()-[r:ORDERED {id: 2}]->() SET r.id = 1
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [12] A relationship of another type may hold the value
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    And having executed:
      """
      CREATE ()-[:ORDERED {id: 1}]->()
      """
    When executing query:
      """
      CREATE ()-[:RETURNED {id: 1}]->()
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes         | 2 |
      | +relationships | 1 |
      | +properties    | 1 |

  Scenario: [13] A deleted relationship frees its value
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    And having executed:
      """
      CREATE ()-[:ORDERED {id: 1}]->()
      """
    When executing query:
      """
      MATCH ()-[r:ORDERED]->() DELETE r CREATE ()-[:ORDERED {id: 1}]->()
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes         | 2 |
      | +relationships | 1 |
      | -relationships | 1 |
      | +properties    | 1 |
      | -properties    | 1 |

  Scenario: [14] MERGE finds the constrained relationship instead of creating one
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    And having executed:
      """
      CREATE (:A)-[:ORDERED {id: 1}]->(:B)
      """
    When executing query:
      """
      MATCH (a:A), (b:B) MERGE (a)-[r:ORDERED {id: 1}]->(b) RETURN r.id AS id
      """
    Then the result should be, in any order:
      | id |
      | 1  |
    And no side effects

  Scenario: [15] A node key is listed as NODE_KEY
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE p.email IS NODE KEY
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name, type, properties
      """
    Then the result should be, in any order:
      | name         | type       | properties |
      | 'person_key' | 'NODE_KEY' | ['email']  |
    And no side effects

  Scenario: [16] A node without the key property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE p.email IS NODE KEY
      """
    When executing query:
      """
      CREATE (:Person {name: 'x'})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [17] Removing the key property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE p.email IS NODE KEY
      """
    And having executed:
      """
      CREATE (:Person {email: 'a@x'})
      """
    When executing query:
      """
      MATCH (p:Person) REMOVE p.email
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [18] Adding the label to a node without the key fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE p.email IS NODE KEY
      """
    And having executed:
      """
      CREATE (:Robot {name: 'r'})
      """
    When executing query:
      """
      MATCH (r:Robot) SET r:Person
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [19] A duplicate key fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE p.email IS NODE KEY
      """
    And having executed:
      """
      CREATE (:Person {email: 'a@x'})
      """
    When executing query:
      """
      CREATE (:Person {email: 'a@x'})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [20] A node of another label needs no key
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE p.email IS NODE KEY
      """
    When executing query:
      """
      CREATE (:Robot {name: 'r'})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [21] IS KEY on a node pattern is a node key
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT k FOR (p:Person) REQUIRE p.email IS KEY
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name, type
      """
    Then the result should be, in any order:
      | name | type       |
      | 'k'  | 'NODE_KEY' |
    And no side effects

  Scenario: [22] A composite node key needs every property
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE (p.first, p.last) IS NODE KEY
      """
    When executing query:
      """
      CREATE (:Person {first: 'a'})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [23] A composite node key allows sharing one property
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE (p.first, p.last) IS NODE KEY
      """
    And having executed:
      """
      CREATE (:Person {first: 'a', last: 'b'})
      """
    When executing query:
      """
      CREATE (:Person {first: 'a', last: 'c'})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +properties | 2 |

  Scenario: [24] A relationship key is listed as RELATIONSHIP_KEY
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_key FOR ()-[r:ORDERED]-() REQUIRE r.id IS RELATIONSHIP KEY
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name, type, entityType
      """
    Then the result should be, in any order:
      | name        | type               | entityType     |
      | 'order_key' | 'RELATIONSHIP_KEY' | 'RELATIONSHIP' |
    And no side effects

  Scenario: [25] A relationship without the key property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_key FOR ()-[r:ORDERED]-() REQUIRE r.id IS RELATIONSHIP KEY
      """
    When executing query:
      """
      CREATE ()-[:ORDERED {qty: 1}]->()
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [26] A duplicate relationship key fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_key FOR ()-[r:ORDERED]-() REQUIRE r.id IS RELATIONSHIP KEY
      """
    And having executed:
      """
      CREATE ()-[:ORDERED {id: 7}]->()
      """
    When executing query:
      """
      CREATE ()-[:ORDERED {id: 7}]->()
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [27] Removing a relationship's key property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_key FOR ()-[r:ORDERED]-() REQUIRE r.id IS RELATIONSHIP KEY
      """
    And having executed:
      """
      CREATE ()-[:ORDERED {id: 7}]->()
      """
    When executing query:
      """
      MATCH ()-[r:ORDERED]->() REMOVE r.id
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [28] A uniqueness constraint over duplicates is refused
    Given an empty graph
    And having executed:
      """
      CREATE (:Person {email: 'a@x'}), (:Person {email: 'a@x'})
      """
    When executing query:
      """
      CREATE CONSTRAINT FOR (p:Person) REQUIRE p.email IS UNIQUE
      """
    Then a ConstraintCreationFailed should be raised at runtime: *

  Scenario: [29] A composite uniqueness constraint over duplicates is refused
    Given an empty graph
    And having executed:
      """
      CREATE (:Person {name: 'a', born: 1}), (:Person {name: 'a', born: 1})
      """
    When executing query:
      """
      CREATE CONSTRAINT person_name_born FOR (p:Person) REQUIRE (p.name, p.born) IS UNIQUE
      """
    Then a ConstraintCreationFailed should be raised at runtime: *

  Scenario: [30] A relationship uniqueness constraint over duplicates is refused
    Given an empty graph
    And having executed:
      """
      CREATE ()-[:ORDERED {id: 1}]->(), ()-[:ORDERED {id: 1}]->()
      """
    When executing query:
      """
      CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    Then a ConstraintCreationFailed should be raised at runtime: *

  Scenario: [31] A node key over a node lacking the property is refused
    Given an empty graph
    And having executed:
      """
      CREATE (:Person {email: 'a@x'}), (:Person {name: 'b'})
      """
    When executing query:
      """
      CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE p.email IS NODE KEY
      """
    Then a ConstraintCreationFailed should be raised at runtime: *

  Scenario: [32] A relationship key over a relationship lacking the property is refused
    Given an empty graph
    And having executed:
      """
      CREATE ()-[:ORDERED {id: 1}]->(), ()-[:ORDERED]->()
      """
    When executing query:
      """
      CREATE CONSTRAINT order_key FOR ()-[r:ORDERED]-() REQUIRE r.id IS RELATIONSHIP KEY
      """
    Then a ConstraintCreationFailed should be raised at runtime: *

  Scenario: [33] A constraint over data that keeps it is created
    Given an empty graph
    And having executed:
      """
      CREATE ()-[:ORDERED {id: 1}]->(), ()-[:ORDERED {id: 2}]->()
      """
    When executing query:
      """
      CREATE CONSTRAINT order_key FOR ()-[r:ORDERED]-() REQUIRE r.id IS RELATIONSHIP KEY
      """
    Then the result should be empty
    And no side effects

  Scenario: [34] Dropping a constraint drops its index
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    And having executed:
      """
      DROP CONSTRAINT order_id
      """
    When executing query:
      """
      SHOW INDEXES YIELD name
      """
    Then the result should be empty
    And no side effects

  Scenario: [35] A constraint's index names the constraint that owns it
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_key FOR ()-[r:ORDERED]-() REQUIRE r.id IS RELATIONSHIP KEY
      """
    When executing query:
      """
      SHOW INDEXES YIELD name, type, owningConstraint
      """
    Then the result should be, in any order:
      | name        | type    | owningConstraint |
      | 'order_key' | 'RANGE' | 'order_key'      |
    And no side effects

  Scenario: [36] After a constraint is dropped its values may repeat
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    And having executed:
      """
      CREATE ()-[:ORDERED {id: 1}]->()
      """
    And having executed:
      """
      DROP CONSTRAINT order_id
      """
    When executing query:
      """
      CREATE ()-[:ORDERED {id: 1}]->()
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes         | 2 |
      | +relationships | 1 |
      | +properties    | 1 |

  Scenario: [37] SHOW CONSTRAINTS returns Neo4j's default columns
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    When executing query:
      """
      SHOW CONSTRAINTS
      """
    Then the result should be, in any order:
      | id | name       | type                      | entityType     | labelsOrTypes | properties | ownedIndex | propertyType |
      | 1  | 'order_id' | 'RELATIONSHIP_UNIQUENESS' | 'RELATIONSHIP' | ['ORDERED']   | ['id']     | 'order_id' | null         |
    And no side effects

  Scenario: [38] SHOW CONSTRAINTS YIELD names the create statement
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE (p.first, p.last) IS NODE KEY
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD createStatement, options
      """
    Then the result should be, in any order:
      | createStatement                                                                              | options                                          |
      | 'CREATE CONSTRAINT `person_key` FOR (n:`Person`) REQUIRE (n.`first`, n.`last`) IS NODE KEY' | {indexProvider: 'range-1.0', indexConfig: {}} |
    And no side effects

  Scenario: [39] The same constraint twice fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT order_id FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    When executing query:
      """
      CREATE CONSTRAINT another FOR ()-[r:ORDERED]-() REQUIRE r.id IS UNIQUE
      """
    Then a ConstraintAlreadyExists should be raised at runtime: *

  Scenario: [40] A node key's index backs seeks
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE p.email IS NODE KEY
      """
    And having executed:
      """
      CREATE (:Person {email: 'a@x', name: 'a'}), (:Person {email: 'b@x', name: 'b'})
      """
    When executing query:
      """
      MATCH (p:Person {email: 'b@x'}) RETURN p.name AS name
      """
    Then the result should be, in any order:
      | name |
      | 'b'  |
    And no side effects
