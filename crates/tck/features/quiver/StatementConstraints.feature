#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented behaviour: a uniqueness violation
# fails the statement that causes it, with Neo.ClientError.Schema.ConstraintValidationFailed,
# and the statement leaves nothing behind. (The explicit-transaction form, where the
# statement and not the commit fails, is tested through the engine and the Python driver.)
Feature: StatementConstraints - a uniqueness violation fails the statement

  Scenario: [1] CREATE of a duplicate fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_email FOR (p:Person) REQUIRE p.email IS UNIQUE
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

  Scenario: [2] Two equal values in one statement fail it
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_email FOR (p:Person) REQUIRE p.email IS UNIQUE
      """
    When executing query:
      """
      UNWIND ['a@x', 'b@x', 'a@x'] AS e
      CREATE (:Person {email: e})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [3] SET to a value another node holds fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_email FOR (p:Person) REQUIRE p.email IS UNIQUE
      """
    And having executed:
      """
      CREATE (:Person {email: 'a@x'}), (:Person {email: 'b@x'})
      """
    When executing query:
      """
      MATCH (p:Person {email: 'b@x'}) SET p.email = 'a@x'
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [4] Adding the label to a node with a taken value fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_email FOR (p:Person) REQUIRE p.email IS UNIQUE
      """
    And having executed:
      """
      CREATE (:Person {email: 'a@x'}), (:Robot {email: 'a@x'})
      """
    When executing query:
      """
      MATCH (r:Robot) SET r:Person
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [5] MERGE on another property that creates a duplicate fails
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_email FOR (p:Person) REQUIRE p.email IS UNIQUE
      """
    And having executed:
      """
      CREATE (:Person {name: 'Ann', email: 'a@x'})
      """
    When executing query:
      """
      MERGE (p:Person {name: 'Bob'}) ON CREATE SET p.email = 'a@x'
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [6] Freeing a value and taking it in one statement succeeds
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT person_email FOR (p:Person) REQUIRE p.email IS UNIQUE
      """
    And having executed:
      """
      CREATE (:Person {email: 'a@x'})
      """
    When executing query:
      """
      MATCH (p:Person {email: 'a@x'}) SET p.email = 'old@x'
      WITH count(*) AS done
      CREATE (:Person {email: 'a@x'})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +properties | 2 |
      | -properties | 1 |
