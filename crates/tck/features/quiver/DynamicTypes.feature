#encoding: utf-8

# Quiver's own scenarios, written from the dynamic MATCH, CREATE, MERGE, SET and REMOVE examples of
# Neo4j's Cypher manual (5.26 and later): relationship types named at run time ($(expr), $all(expr),
# $any(expr)), dynamic labels after a static one and in label tests, and property keys named at
# run time on write (SET n[key] = value, REMOVE n[key]).
Feature: DynamicTypes - relationship types, labels in tests and property keys named at run time

  Scenario: [1] MATCH a relationship by a type named at run time
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (a)-[r:$('KNOWS')]->(b)
      RETURN a.name AS a, type(r) AS t, b.name AS b
      """
    Then the result should be, in any order:
      | a     | t       | b     |
      | 'Ann' | 'KNOWS' | 'Bob' |
    And no side effects

  Scenario: [2] MATCH a relationship by a type in a parameter
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    And parameters are:
      | type | 'WORKS_AT' |
    When executing query:
      """
      MATCH (a)-[:$($type)]->(b)
      RETURN a.name AS a, b.name AS b
      """
    Then the result should be, in any order:
      | a     | b      |
      | 'Ann' | 'Acme' |
    And no side effects

  Scenario: [3] $any matches one of the types
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH ()-[r:$any(['KNOWS', 'LIKES'])]->()
      RETURN type(r) AS t
      """
    Then the result should be, in any order:
      | t       |
      | 'KNOWS' |
      | 'LIKES' |
    And no side effects

  Scenario: [4] $all of two types matches nothing: a relationship has one type
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH ()-[r:$all(['KNOWS', 'LIKES'])]->()
      RETURN r
      """
    Then the result should be empty
    And no side effects

  Scenario: [5] A list of one type is that type
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH ()-[r:$(['LIKES'])]->()
      RETURN type(r) AS t
      """
    Then the result should be, in any order:
      | t       |
      | 'LIKES' |
    And no side effects

  Scenario: [6] A type from an earlier row, and one no relationship has
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      UNWIND ['KNOWS', 'LIKES', 'NOPE'] AS t
      OPTIONAL MATCH ()-[r:$(t)]->()
      RETURN t, count(r) AS rels
      """
    Then the result should be, in any order:
      | t       | rels |
      | 'KNOWS' | 1    |
      | 'LIKES' | 1    |
      | 'NOPE'  | 0    |
    And no side effects

  Scenario: [7] A dynamic type on an undirected relationship
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (:Company)-[r:$('LIKES')]-(p)
      RETURN p.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Bob' |
    And no side effects

  Scenario: [8] A dynamic type on a variable-length relationship tests every relationship
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (:Person {name: 'Ann'})-[:$any(['KNOWS', 'LIKES'])*1..2]->(x)
      RETURN x.name AS name
      """
    Then the result should be, in any order:
      | name   |
      | 'Bob'  |
      | 'Acme' |
    And no side effects

  Scenario: [9] A dynamic type on a quantified relationship
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (:Person {name: 'Ann'})-[:$any(['KNOWS', 'LIKES'])]->{2}(x)
      RETURN x.name AS name
      """
    Then the result should be, in any order:
      | name   |
      | 'Acme' |
    And no side effects

  Scenario: [10] A dynamic type inside a quantified path pattern
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (:Person {name: 'Ann'}) (()-[:$('KNOWS')]->()){1,3} (x)
      RETURN x.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Bob' |
    And no side effects

  Scenario: [11] A dynamic type with a property map
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (a)-[:$('KNOWS') {since: 2020}]->(b)
      RETURN b.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Bob' |
    And no side effects

  Scenario: [12] CREATE a relationship with a type named at run time
    Given an empty graph
    When executing query:
      """
      CREATE (:A)-[r:$('LINKS')]->(:B)
      RETURN type(r) AS t
      """
    Then the result should be, in any order:
      | t       |
      | 'LINKS' |
    And the side effects should be:
      | +nodes         | 2 |
      | +relationships | 1 |
      | +labels        | 2 |

  Scenario: [13] CREATE a type per row from a list
    Given an empty graph
    When executing query:
      """
      UNWIND ['X', 'Y'] AS t
      CREATE (:N)-[r:$([t])]->(:N)
      RETURN type(r) AS t
      """
    Then the result should be, in any order:
      | t   |
      | 'X' |
      | 'Y' |
    And the side effects should be:
      | +nodes         | 4 |
      | +relationships | 2 |
      | +labels        | 1 |

  Scenario: [14] CREATE a dynamic type from a parameter
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    And parameters are:
      | type | 'FOLLOWS' |
    When executing query:
      """
      MATCH (a:Person {name: 'Bob'}), (b:Person {name: 'Ann'})
      CREATE (a)-[:$($type)]->(b)
      WITH a
      MATCH (a)-[r:$($type)]->(x)
      RETURN x.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Ann' |
    And the side effects should be:
      | +relationships | 1 |

  Scenario: [15] MERGE with a dynamic type creates once, then matches
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      UNWIND [1, 2] AS i
      MATCH (a:Person {name: 'Ann'}), (b:Person {name: 'Bob'})
      MERGE (a)-[r:$('MET')]->(b)
      RETURN i, type(r) AS t
      """
    Then the result should be, in any order:
      | i | t     |
      | 1 | 'MET' |
      | 2 | 'MET' |
    And the side effects should be:
      | +relationships | 1 |

  Scenario: [16] MERGE with a dynamic type matches an existing relationship
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (a:Person {name: 'Ann'}), (b:Person {name: 'Bob'})
      MERGE (a)-[r:$('KNOWS')]->(b)
      RETURN r.since AS since
      """
    Then the result should be, in any order:
      | since |
      | 2020  |
    And no side effects

  Scenario: [17] CREATE with a null type fails
    Given an empty graph
    When executing query:
      """
      CREATE ()-[:$(null)]->()
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType

  Scenario: [18] CREATE with an empty type fails
    Given an empty graph
    When executing query:
      """
      WITH '' AS t CREATE ()-[:$(t)]->()
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType

  Scenario: [19] CREATE with two types in a list fails
    Given an empty graph
    When executing query:
      """
      WITH ['A', 'B'] AS t CREATE ()-[:$(t)]->()
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType

  Scenario: [20] A type that is not a string fails before running
    Given an empty graph
    When executing query:
      """
      CREATE ()-[:$(1)]->()
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentType

  Scenario: [21] $any in CREATE fails
    Given an empty graph
    When executing query:
      """
      CREATE ()-[:$any(['A'])]->()
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [22] Two types in CREATE fail
    Given an empty graph
    When executing query:
      """
      CREATE ()-[:$('A'):$('B')]->()
      """
    Then a SyntaxError should be raised at compile time: NoSingleRelationshipType

  Scenario: [23] A dynamic label after a static one in MATCH
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (n:Person:$('Person'))
      WHERE n.name = 'Ann'
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name  |
      | 'Ann' |
    And no side effects

  Scenario: [24] A dynamic label after a static one in CREATE
    Given an empty graph
    When executing query:
      """
      CREATE (n:Item:$('Sold'))
      RETURN n:Item AND n:Sold AS both
      """
    Then the result should be, in any order:
      | both |
      | true |
    And the side effects should be:
      | +nodes  | 1 |
      | +labels | 2 |

  Scenario: [25] A dynamic label in WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (n)
      WHERE n:$('Company')
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name   |
      | 'Acme' |
    And no side effects

  Scenario: [26] A dynamic $any label in WHERE from a parameter
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    And parameters are:
      | labels | ['Company', 'Person'] |
    When executing query:
      """
      MATCH (n)
      WHERE n:$any($labels)
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name   |
      | 'Ann'  |
      | 'Bob'  |
      | 'Acme' |
    And no side effects

  Scenario: [27] A static and a dynamic label in WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (n)
      WHERE n:Person:$('Company')
      RETURN n
      """
    Then the result should be empty
    And no side effects

  Scenario: [28] IS with a dynamic label
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (n)
      WHERE n IS $('Company')
      RETURN n.name AS name
      """
    Then the result should be, in any order:
      | name   |
      | 'Acme' |
    And no side effects

  Scenario: [29] A dynamic type tested in WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH ()-[r]->()
      WHERE r:$('LIKES')
      RETURN type(r) AS t
      """
    Then the result should be, in any order:
      | t       |
      | 'LIKES' |
    And no side effects

  Scenario: [30] A dynamic label test in RETURN is null on null
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      OPTIONAL MATCH (n:Nope)
      RETURN n:$('Nope') AS test
      """
    Then the result should be, in any order:
      | test |
      | null |
    And no side effects

  Scenario: [31] SET a property whose key is named at run time
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    And parameters are:
      | key | 'age' |
    When executing query:
      """
      MATCH (n:Person {name: 'Ann'})
      SET n[$key] = 42
      RETURN n.age AS age
      """
    Then the result should be, in any order:
      | age |
      | 42  |
    And the side effects should be:
      | +properties | 1 |

  Scenario: [32] SET a dynamic key computed per row
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (n:Person)
      SET n['nick_' + n.name] = toLower(n.name)
      RETURN n.nick_Ann AS ann, n.nick_Bob AS bob
      """
    Then the result should be, in any order:
      | ann   | bob   |
      | 'ann' | null  |
      | null  | 'bob' |
    And the side effects should be:
      | +properties | 2 |

  Scenario: [33] SET a dynamic key on a relationship
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH ()-[r:KNOWS]->()
      SET r['since'] = 2021
      RETURN r.since AS since
      """
    Then the result should be, in any order:
      | since |
      | 2021  |
    And the side effects should be:
      | +properties | 1 |
      | -properties | 1 |

  Scenario: [34] SET a dynamic key to null removes the property
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    And parameters are:
      | key | 'since' |
    When executing query:
      """
      MATCH ()-[r:KNOWS]->()
      SET r[$key] = null
      RETURN r.since AS since
      """
    Then the result should be, in any order:
      | since |
      | null  |
    And the side effects should be:
      | -properties | 1 |

  Scenario: [35] REMOVE a property whose key is named at run time
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    And parameters are:
      | key | 'since' |
    When executing query:
      """
      MATCH ()-[r:KNOWS]->()
      REMOVE r[$key]
      RETURN r.since AS since
      """
    Then the result should be, in any order:
      | since |
      | null  |
    And the side effects should be:
      | -properties | 1 |

  Scenario: [36] A null dynamic key fails
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (n:Person)
      SET n[null] = 1
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType

  Scenario: [37] A dynamic key that is not a string fails before running
    Given an empty graph
    And having executed:
      """
      CREATE (ann:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(bob:Person {name: 'Bob'}),
             (ann)-[:WORKS_AT]->(acme:Company {name: 'Acme'}), (bob)-[:LIKES]->(acme)
      """
    When executing query:
      """
      MATCH (n:Person)
      SET n[1] = 1
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentType
