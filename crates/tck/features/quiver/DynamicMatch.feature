#encoding: utf-8

# Quiver's own scenarios, written from the dynamic MATCH and MERGE examples of Neo4j's Cypher manual
# (2025): labels named at run time with $(expr), $all(expr) and $any(expr). Dynamic relationship
# types have their own feature (DynamicTypes).
Feature: DynamicMatch - dynamic labels in MATCH and MERGE

  Scenario: [1] MATCH a node by a label named at run time
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      MATCH (n:$('Person'))
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Ann' |
      | 'Bob' |
    And no side effects

  Scenario: [2] MATCH a node by a label in a parameter
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    And parameters are:
      | label | 'Company' |
    When executing query:
      """
      MATCH (n:$($label))
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name   |
      | 'Acme' |
    And no side effects

  Scenario: [3] A list of labels must all be there
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      MATCH (n:$(['Person', 'Admin']))
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Ann' |
    And no side effects

  Scenario: [4] $all is the same as $()
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      MATCH (n:$all(['Person', 'Admin']))
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Ann' |
    And no side effects

  Scenario: [5] $any needs one of the labels
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      MATCH (n:$any(['Admin', 'Company']))
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name   |
      | 'Ann'  |
      | 'Acme' |
    And no side effects

  Scenario: [6] A label no node has matches nothing
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      MATCH (n:$('Nope'))
      RETURN n
      """
    Then the result should be empty
    And no side effects

  Scenario: [7] A label from an earlier row
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      UNWIND ['Person', 'Company'] AS l
      MATCH (n:$(l))
      RETURN l, count(n) AS nodes
      """
    Then the result should be, in any order:
      | l         | nodes |
      | 'Person'  | 2     |
      | 'Company' | 1     |
    And no side effects

  Scenario: [8] A dynamic label in a relationship pattern's node
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      MATCH (:Person {name: 'Ann'})-[:KNOWS]->(b:$('Person'))
      RETURN b.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Bob' |
    And no side effects

  Scenario: [9] A dynamic label inside a quantified path pattern
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      MATCH (:Admin) ((x)-[:KNOWS]->(y:$('Person'))){1,2} (b)
      RETURN b.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Bob' |
    And no side effects

  Scenario: [10] MATCH by a dynamic label then SET another
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    And parameters are:
      | label | 'Company' |
      | other | 'Customer' |
    When executing query:
      """
      MATCH (n:$($label))
      SET n:$($other)
      RETURN n.name AS name, labels(n) AS labels
      """
    Then the result should be, in any order:
      | name   | labels                  |
      | 'Acme' | ['Company', 'Customer'] |
    And the side effects should be:
      | +labels | 1 |

  Scenario: [11] MERGE finds a node by a dynamic label
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      MERGE (n:$('Person') {name: 'Ann'})
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Ann' |
    And no side effects

  Scenario: [12] MERGE creates a node with a dynamic label
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      MERGE (n:$('City') {name: 'Oslo'})
      RETURN labels(n) AS labels
      """
    Then the result should be, in any order:
      | labels   |
      | ['City'] |
    And the side effects should be:
      | +nodes | 1 |
      | +labels | 1 |
      | +properties | 1 |

  Scenario: [13] MERGE with a list of dynamic labels
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      MERGE (n:$(['Person', 'Admin']) {name: 'Cy'})
      RETURN size(labels(n)) AS labels
      """
    Then the result should be, in any order:
      | labels |
      | 2      |
    And the side effects should be:
      | +nodes | 1 |
      | +properties | 1 |

  Scenario: [14] A dynamic label that is not a string fails at run time
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      WITH {v: 1} AS m
      MATCH (n:$(m.v))
      RETURN n
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType

  Scenario: [15] $any in MERGE fails
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      MERGE (n:$any(['A', 'B']))
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [16] A dynamic relationship type
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person:Admin {name: 'Ann'}), (bob:Person {name: 'Bob'}), (:Company {name: 'Acme'}),
             (ann)-[:KNOWS]->(bob)
      """
    When executing query:
      """
      MATCH ()-[r:$('KNOWS')]->()
      RETURN type(r) AS t
      """
    Then the result should be, in any order:
      | t       |
      | 'KNOWS' |
    And no side effects
