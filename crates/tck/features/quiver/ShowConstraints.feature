#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented syntax for listing constraints
# (Cypher manual, "Constraints" > "Syntax" > "SHOW CONSTRAINTS"): the kind named before
# CONSTRAINTS (UNIQUE[NESS], KEY, [PROPERTY] EXIST[ENCE], PROPERTY TYPE), each for nodes,
# relationships or both, keeps the constraints of that kind alone; an entity without a kind is
# refused.
Feature: ShowConstraints - listing constraints by kind

  Background:
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT u_node FOR (p:P) REQUIRE p.u IS UNIQUE
      """
    And having executed:
      """
      CREATE CONSTRAINT u_rel FOR ()-[r:R]-() REQUIRE r.u IS UNIQUE
      """
    And having executed:
      """
      CREATE CONSTRAINT k_node FOR (p:P) REQUIRE p.k IS NODE KEY
      """
    And having executed:
      """
      CREATE CONSTRAINT k_rel FOR ()-[r:R]-() REQUIRE r.k IS RELATIONSHIP KEY
      """
    And having executed:
      """
      CREATE CONSTRAINT e_node FOR (p:P) REQUIRE p.e IS NOT NULL
      """
    And having executed:
      """
      CREATE CONSTRAINT e_rel FOR ()-[r:R]-() REQUIRE r.e IS NOT NULL
      """
    And having executed:
      """
      CREATE CONSTRAINT t_node FOR (p:P) REQUIRE p.t IS :: INTEGER
      """
    And having executed:
      """
      CREATE CONSTRAINT t_rel FOR ()-[r:R]-() REQUIRE r.t IS :: STRING
      """

  Scenario Outline: [1] SHOW <kind> CONSTRAINTS keeps the constraints of that kind
    When executing query:
      """
      SHOW <kind> CONSTRAINTS YIELD name ORDER BY name RETURN collect(name) AS names
      """
    Then the result should be, in any order:
      | names   |
      | <names> |
    And no side effects

    Examples:
      | kind                       | names                                                                          |
      | ALL                        | ['e_node', 'e_rel', 'k_node', 'k_rel', 't_node', 't_rel', 'u_node', 'u_rel'] |
      | UNIQUE                     | ['u_node', 'u_rel']                                                            |
      | UNIQUENESS                 | ['u_node', 'u_rel']                                                            |
      | NODE UNIQUE                | ['u_node']                                                                     |
      | NODE UNIQUENESS            | ['u_node']                                                                     |
      | RELATIONSHIP UNIQUENESS    | ['u_rel']                                                                      |
      | REL UNIQUE                 | ['u_rel']                                                                      |
      | KEY                        | ['k_node', 'k_rel']                                                            |
      | NODE KEY                   | ['k_node']                                                                     |
      | RELATIONSHIP KEY           | ['k_rel']                                                                      |
      | EXISTENCE                  | ['e_node', 'e_rel']                                                            |
      | EXIST                      | ['e_node', 'e_rel']                                                            |
      | PROPERTY EXISTENCE         | ['e_node', 'e_rel']                                                            |
      | NODE EXISTENCE             | ['e_node']                                                                     |
      | NODE PROPERTY EXISTENCE    | ['e_node']                                                                     |
      | RELATIONSHIP EXISTENCE     | ['e_rel']                                                                      |
      | REL PROPERTY EXIST         | ['e_rel']                                                                      |
      | PROPERTY TYPE              | ['t_node', 't_rel']                                                            |
      | NODE PROPERTY TYPE         | ['t_node']                                                                     |
      | RELATIONSHIP PROPERTY TYPE | ['t_rel']                                                                      |

  Scenario: [2] Without a kind every constraint is listed
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name, type WHERE name ENDS WITH '_rel' RETURN name, type
      """
    Then the result should be, in any order:
      | name    | type                              |
      | 'u_rel' | 'RELATIONSHIP_UNIQUENESS'         |
      | 'k_rel' | 'RELATIONSHIP_KEY'                |
      | 'e_rel' | 'RELATIONSHIP_PROPERTY_EXISTENCE' |
      | 't_rel' | 'RELATIONSHIP_PROPERTY_TYPE'      |
    And no side effects

  Scenario: [3] A kind's filter and a WHERE both apply
    When executing query:
      """
      SHOW EXISTENCE CONSTRAINTS WHERE entityType = 'RELATIONSHIP'
      """
    Then the result should be, in any order:
      | id | name    | type                              | entityType     | labelsOrTypes | properties | ownedIndex | propertyType |
      | 6  | 'e_rel' | 'RELATIONSHIP_PROPERTY_EXISTENCE' | 'RELATIONSHIP' | ['R']         | ['e']      | null       | null         |
    And no side effects

  Scenario: [4] An entity without a kind is refused
    When executing query:
      """
      SHOW NODE CONSTRAINTS
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [5] PROPERTY needs EXISTENCE or TYPE after it
    When executing query:
      """
      SHOW RELATIONSHIP PROPERTY CONSTRAINTS
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax
