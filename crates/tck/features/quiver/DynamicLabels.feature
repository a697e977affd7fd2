#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented behaviour of labels named at run
# time (`$(expr)`, Neo4j 5.26) and of the `IS` label syntax in SET and REMOVE.
Feature: DynamicLabels - labels named by expressions, and IS in SET and REMOVE

  Scenario: [1] SET a label named by a parameter
    Given an empty graph
    And having executed:
      """
      CREATE (:P {name: 'Ann'})
      """
    And parameters are:
      | label | 'Admin' |
    When executing query:
      """
      MATCH (n:P) SET n:$($label) RETURN labels(n) AS l
      """
    Then the result should be (ignoring element order for lists):
      | l                 |
      | ['P', 'Admin']    |
    And the side effects should be:
      | +labels | 1 |

  Scenario: [2] SET labels named by a list and by a property
    Given an empty graph
    And having executed:
      """
      CREATE (:P {kind: 'Customer'})
      """
    When executing query:
      """
      MATCH (n:P) SET n:$(n.kind), n:$(['A', 'B']) RETURN size(labels(n)) AS c
      """
    Then the result should be, in any order:
      | c |
      | 4 |
    And the side effects should be:
      | +labels | 3 |

  Scenario: [3] Static and dynamic labels in one item
    Given an empty graph
    And having executed:
      """
      CREATE (:P)
      """
    When executing query:
      """
      MATCH (n:P) SET n:Q:$('R') RETURN n:Q AND n:R AS both
      """
    Then the result should be, in any order:
      | both |
      | true |
    And the side effects should be:
      | +labels | 2 |

  Scenario: [4] REMOVE a label named by an expression
    Given an empty graph
    And having executed:
      """
      CREATE (:P:Old:Gone {drop: 'Old'})
      """
    When executing query:
      """
      MATCH (n:P) REMOVE n:$(n.drop), n:$(['Gone', 'Missing']) RETURN labels(n) AS l
      """
    Then the result should be, in any order:
      | l     |
      | ['P'] |
    And the side effects should be:
      | -labels | 2 |

  Scenario: [5] SET n IS Label
    Given an empty graph
    And having executed:
      """
      CREATE (:P)
      """
    When executing query:
      """
      MATCH (n:P) SET n IS Q RETURN n:Q AS q
      """
    Then the result should be, in any order:
      | q    |
      | true |
    And the side effects should be:
      | +labels | 1 |

  Scenario: [6] SET n IS $(expr) and REMOVE n IS Label
    Given an empty graph
    And having executed:
      """
      CREATE (:P:Old)
      """
    When executing query:
      """
      MATCH (n:P) SET n IS $('New') REMOVE n IS Old RETURN labels(n) AS l
      """
    Then the result should be (ignoring element order for lists):
      | l              |
      | ['P', 'New']   |
    And the side effects should be:
      | +labels | 1 |
      | -labels | 1 |

  Scenario: [7] A dynamic label on a null node does nothing
    Given an empty graph
    When executing query:
      """
      OPTIONAL MATCH (n:Missing) SET n:$('X') RETURN n
      """
    Then the result should be, in any order:
      | n    |
      | null |
    And no side effects

  Scenario: [8] A dynamic label must be a string or a list of strings
    Given an empty graph
    When executing query:
      """
      CREATE (n) SET n:$(1)
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentType

  Scenario: [9] A null dynamic label fails at run time
    Given an empty graph
    And having executed:
      """
      CREATE (:P)
      """
    When executing query:
      """
      MATCH (n:P) SET n:$(null)
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType

  Scenario: [10] Labels are set on nodes only
    Given an empty graph
    And having executed:
      """
      CREATE ()-[:R]->()
      """
    When executing query:
      """
      MATCH ()-[r]->() SET r:$('X')
      """
    Then a SyntaxError should be raised at compile time: *

  Scenario: [11] A dynamic label names any label, spaces and all
    Given an empty graph
    And having executed:
      """
      CREATE (:P)
      """
    When executing query:
      """
      MATCH (n:P) SET n:$('Two words') RETURN n:`Two words` AS yes
      """
    Then the result should be, in any order:
      | yes  |
      | true |
    And the side effects should be:
      | +labels | 1 |

  Scenario: [12] CREATE a node with labels named at run time
    Given an empty graph
    And parameters are:
      | labels | ['Person', 'Admin'] |
    When executing query:
      """
      CREATE (n:$($labels)) RETURN n:Person AND n:Admin AS both
      """
    Then the result should be, in any order:
      | both |
      | true |
    And the side effects should be:
      | +nodes  | 1 |
      | +labels | 2 |

  Scenario: [13] CREATE with static and dynamic labels and properties, per row
    Given an empty graph
    When executing query:
      """
      UNWIND ['A', 'B'] AS kind
      CREATE (n:$(kind):Item {kind: kind})
      RETURN n.kind AS kind, n:Item AS item
      """
    Then the result should be, in any order:
      | kind | item |
      | 'A'  | true |
      | 'B'  | true |
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 3 |
      | +properties | 2 |

  Scenario: [14] CREATE of a path with a dynamic label at each end
    Given an empty graph
    When executing query:
      """
      CREATE (:$('From'))-[:R]->(:$('To'))
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes         | 2 |
      | +relationships | 1 |
      | +labels        | 2 |

  Scenario: [15] A dynamic relationship type in MATCH
    Given an empty graph
    And having executed:
      """
      CREATE ()-[:A]->(), ()-[:B]->()
      """
    When executing query:
      """
      MATCH ()-[r:$('A')]->() RETURN type(r) AS t
      """
    Then the result should be, in any order:
      | t   |
      | 'A' |
    And no side effects

  Scenario: [16] A bound node in CREATE cannot take dynamic labels
    Given an empty graph
    When executing query:
      """
      CREATE (a) CREATE (a:$('X'))
      """
    Then a SyntaxError should be raised at compile time: VariableAlreadyBound
