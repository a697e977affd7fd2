#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented behaviour of property existence
# constraints (`REQUIRE x.p IS NOT NULL`) on nodes and relationships. As in Neo4j the check runs
# when the transaction commits; each query here is its own transaction, so it is the query that
# fails, whatever write path (CREATE, MERGE, SET, REMOVE, labels, LOAD CSV, APOC, CALL IN
# TRANSACTIONS batches) left the entity without the property.
Feature: ExistenceConstraints - properties every node of a label or relationship of a type has

  Scenario: [1] CREATE of a node without the required property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      CREATE (:Person {age: 3})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [2] CREATE of a node with the required property succeeds
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      CREATE (:Person {name: 'Ann'})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [3] A node without the label is not subject to the constraint
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      CREATE (:Robot)
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |

  Scenario: [4] A property set to null counts as missing
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      CREATE (:Person {name: null})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [5] REMOVE of the required property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    And having executed:
      """
      CREATE (:Person {name: 'Ann'})
      """
    When executing query:
      """
      MATCH (p:Person) REMOVE p.name
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [6] SET of the required property to null fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    And having executed:
      """
      CREATE (:Person {name: 'Ann'})
      """
    When executing query:
      """
      MATCH (p:Person) SET p.name = null
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [7] SET of a map without the required property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    And having executed:
      """
      CREATE (:Person {name: 'Ann'})
      """
    When executing query:
      """
      MATCH (p:Person) SET p = {age: 4}
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [8] Adding the label to a node without the property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    And having executed:
      """
      CREATE (:Robot)
      """
    When executing query:
      """
      MATCH (r:Robot) SET r:Person
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [9] Removing the label frees the node of the constraint
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    And having executed:
      """
      CREATE (:Person {name: 'Ann'})
      """
    When executing query:
      """
      MATCH (p:Person) REMOVE p:Person, p.name
      """
    Then the result should be empty
    And the side effects should be:
      | -labels     | 1 |
      | -properties | 1 |

  Scenario: [10] Removing the property and setting it again in one statement succeeds
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    And having executed:
      """
      CREATE (:Person {name: 'Ann'})
      """
    When executing query:
      """
      MATCH (p:Person) REMOVE p.name SET p.name = 'Bob'
      """
    Then the result should be empty
    And the side effects should be:
      | +properties | 1 |
      | -properties | 1 |

  Scenario: [11] Creating the node and then its property in one statement succeeds
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      CREATE (p:Person) SET p.name = 'Ann'
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [12] MERGE that creates a node without the property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      MERGE (:Person {age: 3})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [13] MERGE ON CREATE SET supplies the property
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      MERGE (p:Person {age: 3}) ON CREATE SET p.name = 'Ann'
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [14] Deleting a node is never a violation
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    And having executed:
      """
      CREATE (:Person {name: 'Ann'})
      """
    When executing query:
      """
      MATCH (p:Person) DELETE p
      """
    Then the result should be empty
    And the side effects should be:
      | -nodes      | 1 |
      | -labels     | 1 |
      | -properties | 1 |

  Scenario: [15] CREATE of a relationship without the required property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT knows_since FOR ()-[k:KNOWS]-() REQUIRE k.since IS NOT NULL
      """
    When executing query:
      """
      CREATE ()-[:KNOWS]->()
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [16] CREATE of a relationship with the required property succeeds
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT knows_since FOR ()-[k:KNOWS]-() REQUIRE k.since IS NOT NULL
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

  Scenario: [17] REMOVE of a relationship's required property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT knows_since FOR ()-[k:KNOWS]-() REQUIRE k.since IS NOT NULL
      """
    And having executed:
      """
      CREATE ()-[:KNOWS {since: 2020}]->()
      """
    When executing query:
      """
      MATCH ()-[k:KNOWS]->() REMOVE k.since
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [18] MERGE of a relationship without the property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT knows_since FOR ()-[k:KNOWS]-() REQUIRE k.since IS NOT NULL
      """
    And having executed:
      """
      CREATE (:A), (:B)
      """
    When executing query:
      """
      MATCH (a:A), (b:B) MERGE (a)-[:KNOWS]->(b)
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [19] A relationship of another type is not subject to the constraint
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT knows_since FOR ()-[k:KNOWS]-() REQUIRE k.since IS NOT NULL
      """
    When executing query:
      """
      CREATE ()-[:LIKES]->()
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2 |
      | +relationships | 1 |

  Scenario: [20] Creating the constraint over a node without the property fails
    Given an empty graph
    And having executed:
      """
      CREATE (:Person {age: 1})
      """
    When executing query:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    Then a ConstraintCreationFailed should be raised at runtime: *
    And no side effects

  Scenario: [21] Creating the constraint over a relationship without the property fails
    Given an empty graph
    And having executed:
      """
      CREATE ()-[:KNOWS]->()
      """
    When executing query:
      """
      CREATE CONSTRAINT knows_since FOR ()-[k:KNOWS]-() REQUIRE k.since IS NOT NULL
      """
    Then a ConstraintCreationFailed should be raised at runtime: *
    And no side effects

  Scenario: [22] Creating the constraint over satisfying data succeeds
    Given an empty graph
    And having executed:
      """
      CREATE (:Person {name: 'Ann'})
      """
    When executing query:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    Then the result should be empty
    And no side effects

  Scenario: [23] Creating the same constraint twice fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      CREATE CONSTRAINT other FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    Then a ConstraintAlreadyExists should be raised at runtime: *

  Scenario: [24] IF NOT EXISTS does nothing when an equivalent constraint exists
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      CREATE CONSTRAINT person_name IF NOT EXISTS FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    Then the result should be empty
    And no side effects

  Scenario: [25] DROP CONSTRAINT lifts the requirement
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    And having executed:
      """
      DROP CONSTRAINT person_name
      """
    When executing query:
      """
      CREATE (:Person)
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |

  Scenario: [26] SHOW CONSTRAINTS lists existence constraints
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    And having executed:
      """
      CREATE CONSTRAINT knows_since FOR ()-[k:KNOWS]-() REQUIRE k.since IS NOT NULL
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name, type, entityType, labelsOrTypes, properties, propertyType
      """
    Then the result should be, in any order:
      | name | type | entityType | labelsOrTypes | properties | propertyType |
      | 'person_name' | 'NODE_PROPERTY_EXISTENCE' | 'NODE' | ['Person'] | ['name'] | null |
      | 'knows_since' | 'RELATIONSHIP_PROPERTY_EXISTENCE' | 'RELATIONSHIP' | ['KNOWS'] | ['since'] | null |
    And no side effects

  Scenario: [27] SHOW CONSTRAINTS gives the create statement
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD createStatement
      """
    Then the result should be, in any order:
      | createStatement |
      | 'CREATE CONSTRAINT `person_name` FOR (n:`Person`) REQUIRE (n.`name`) IS NOT NULL' |
    And no side effects

  Scenario: [28] An unnamed constraint gets a generated name
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name
      """
    Then the result should be, in any order:
      | name |
      | 'constraint_node_property_existence_Person_name' |
    And no side effects

  Scenario: [29] LOAD CSV rows without the property fail the statement
    Given an empty graph
    And the import file "people.csv" contains:
      """
      id,name
      1,Ann
      2,
      """
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row CREATE (:Person {name: row.name})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [30] LOAD CSV rows with the property succeed
    Given an empty graph
    And the import file "people.csv" contains:
      """
      id,name
      1,Ann
      2,Bob
      """
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row CREATE (:Person {name: row.name})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [31] apoc.create.node without the property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      CALL apoc.create.node(['Person'], {age: 3}) YIELD node RETURN node
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [32] apoc.merge.node that creates without the property fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      CALL apoc.merge.node(['Person'], {age: 3}) YIELD node RETURN node
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [33] CALL IN TRANSACTIONS commits the batches before the violating one
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS NOT NULL
      """
    When executing query:
      """
      UNWIND [1, 2, 3, 4] AS i
      CALL { WITH i CREATE (:Person {name: CASE WHEN i < 3 THEN 'p' + toString(i) END}) } IN TRANSACTIONS OF 2 ROWS
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

