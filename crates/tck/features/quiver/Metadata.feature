#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's and APOC's documented behaviour: the SHOW
# commands and metadata procedures tools run on connect. Quiver serves one database, `neo4j`.
Feature: Metadata - SHOW commands and metadata procedures

  Scenario: [1] SHOW DATABASES lists neo4j in the default columns
    Given an empty graph
    When executing query:
      """
      SHOW DATABASES
      """
    Then the result should be, in any order:
      | name    | type       | aliases | access       | address          | role      | writer | requestedStatus | currentStatus | statusMessage | default | home | constituents |
      | 'neo4j' | 'standard' | []      | 'read-write' | 'localhost:7687' | 'primary' | true   | 'online'        | 'online'      | ''            | true    | true | []           |
    And no side effects

  Scenario: [2] SHOW DATABASES with YIELD and RETURN
    Given an empty graph
    When executing query:
      """
      SHOW DATABASES YIELD name, currentStatus, default, home WHERE default RETURN name, currentStatus, home
      """
    Then the result should be, in any order:
      | name    | currentStatus | home |
      | 'neo4j' | 'online'      | true |
    And no side effects

  Scenario: [3] SHOW DATABASE names one database
    Given an empty graph
    When executing query:
      """
      SHOW DATABASE neo4j YIELD name
      """
    Then the result should be, in any order:
      | name    |
      | 'neo4j' |
    And no side effects

  Scenario: [4] SHOW DATABASE of a database Quiver does not have is empty
    Given an empty graph
    When executing query:
      """
      SHOW DATABASE other
      """
    Then the result should be empty
    And no side effects

  Scenario: [5] SHOW DEFAULT DATABASE and SHOW HOME DATABASE
    Given an empty graph
    When executing query:
      """
      SHOW DEFAULT DATABASE YIELD name, writer
      """
    Then the result should be, in any order:
      | name    | writer |
      | 'neo4j' | true   |
    And no side effects

  Scenario: [6] SHOW PROCEDURES gives a procedure's signature
    Given an empty graph
    When executing query:
      """
      SHOW PROCEDURES YIELD name, signature, mode, worksOnSystem
      WHERE name IN ['db.labels', 'tx.setMetaData']
      RETURN name, signature, mode, worksOnSystem
      """
    Then the result should be, in any order:
      | name             | signature                           | mode   | worksOnSystem |
      | 'db.labels'      | 'db.labels() :: (label :: STRING)'  | 'READ' | false         |
      | 'tx.setMetaData' | 'tx.setMetaData(data :: MAP)'       | 'DBMS' | true          |
    And no side effects

  Scenario: [7] SHOW FUNCTIONS lists built-in and APOC functions
    Given an empty graph
    When executing query:
      """
      SHOW FUNCTIONS YIELD name, category, isBuiltIn, aggregating
      WHERE name IN ['toUpper', 'collect', 'apoc.version']
      RETURN name, category, isBuiltIn, aggregating
      """
    Then the result should be, in any order:
      | name           | category      | isBuiltIn | aggregating |
      | 'toUpper'      | 'String'      | true      | false       |
      | 'collect'      | 'Aggregating' | true      | true        |
      | 'apoc.version' | 'Other'       | false     | false       |
    And no side effects

  Scenario: [8] SHOW SETTINGS names a setting
    Given an empty graph
    When executing query:
      """
      SHOW SETTINGS 'db.lock.acquisition.timeout' YIELD name, value, isDynamic
      """
    Then the result should be, in any order:
      | name                          | value    | isDynamic |
      | 'db.lock.acquisition.timeout' | '1000ms' | false     |
    And no side effects

  Scenario: [9] The node type properties of a graph
    Given an empty graph
    And having executed:
      """
      CREATE (:Person {name: 'Ann', age: 42}), (:Person {name: 'Bob'})
      """
    When executing query:
      """
      CALL db.schema.nodeTypeProperties()
      """
    Then the result should be, in any order:
      | nodeType     | nodeLabels | propertyName | propertyTypes | mandatory |
      | ':`Person`'  | ['Person'] | 'name'       | ['String']    | true      |
      | ':`Person`'  | ['Person'] | 'age'        | ['Long']      | false     |
    And no side effects

  Scenario: [10] The relationship type properties of a graph
    Given an empty graph
    And having executed:
      """
      CREATE (:A)-[:R {w: 1.5}]->(:B)
      """
    When executing query:
      """
      CALL db.schema.relTypeProperties()
      """
    Then the result should be, in any order:
      | relType | propertyName | propertyTypes | mandatory |
      | ':`R`'  | 'w'          | ['Double']    | true      |
    And no side effects

  Scenario: [11] apoc.meta.data as LangChain reads node properties
    Given an empty graph
    And having executed:
      """
      CREATE (:Person {name: 'Ann', age: 42})-[:KNOWS {since: 2020}]->(:Person {name: 'Bob'})
      """
    When executing query:
      """
      CALL apoc.meta.data() YIELD label, other, elementType, type, property
      WHERE NOT type = 'RELATIONSHIP' AND elementType = 'node'
      RETURN label, property, type
      """
    Then the result should be, in any order:
      | label    | property | type      |
      | 'Person' | 'age'    | 'INTEGER' |
      | 'Person' | 'name'   | 'STRING'  |
    And no side effects

  Scenario: [12] apoc.meta.data as LangChain reads relationships
    Given an empty graph
    And having executed:
      """
      CREATE (:Person {name: 'Ann'})-[:KNOWS {since: 2020}]->(:Person {name: 'Bob'}),
             (:Person)-[:WORKS_AT]->(:Company)
      """
    When executing query:
      """
      CALL apoc.meta.data() YIELD label, other, elementType, type, property
      WHERE type = 'RELATIONSHIP' AND elementType = 'node'
      UNWIND other AS other_node
      RETURN {start: label, type: property, end: toString(other_node)} AS output
      """
    Then the result should be, in any order:
      | output                                            |
      | {start: 'Person', type: 'KNOWS', end: 'Person'}   |
      | {start: 'Person', type: 'WORKS_AT', end: 'Company'} |
    And no side effects

  Scenario: [13] apoc.meta.stats counts from the store
    Given an empty graph
    And having executed:
      """
      CREATE (:A)-[:R]->(:B), (:A)
      """
    When executing query:
      """
      CALL apoc.meta.stats() YIELD labelCount, relTypeCount, nodeCount, relCount, labels, relTypesCount
      """
    Then the result should be, in any order:
      | labelCount | relTypeCount | nodeCount | relCount | labels       | relTypesCount |
      | 2          | 1            | 3         | 1        | {A: 2, B: 1} | {R: 1}        |
    And no side effects

  Scenario: [14] apoc.version answers
    Given an empty graph
    When executing query:
      """
      RETURN apoc.version() STARTS WITH '2026.' AS v
      """
    Then the result should be, in any order:
      | v    |
      | true |
    And no side effects

  Scenario: [15] An argument left out takes its default
    Given an empty graph
    When executing query:
      """
      CALL dbms.listConfig() YIELD name WHERE name = 'db.memory.transaction.max' RETURN name
      """
    Then the result should be, in any order:
      | name                        |
      | 'db.memory.transaction.max' |
    And no side effects

  Scenario: [16] SHOW SERVERS lists this database's server
    Given an empty graph
    When executing query:
      """
      SHOW SERVERS YIELD address, state, health, hosting, modeConstraint RETURN address, state, health, hosting, modeConstraint
      """
    Then the result should be, in any order:
      | address          | state     | health      | hosting   | modeConstraint |
      | 'localhost:7687' | 'Enabled' | 'Available' | ['neo4j'] | 'NONE'         |
    And no side effects

  Scenario: [17] apoc.help finds a procedure by a part of its name, in any case
    Given an empty graph
    When executing query:
      """
      CALL apoc.help('META.STATS') YIELD type, name, writes, core, isDeprecated
      """
    Then the result should be, in any order:
      | type        | name              | writes | core | isDeprecated |
      | 'procedure' | 'apoc.meta.stats' | false  | true | false        |
    And no side effects

  Scenario: [18] dbms.queryJmx reads the node count bean Neo4j Browser's sysinfo reads
    Given an empty graph
    And having executed:
      """
      CREATE (:A), (:A), (:B)
      """
    When executing query:
      """
      CALL dbms.queryJmx('neo4j.metrics:name=neo4j.database.neo4j.ids_in_use.node') YIELD name, attributes
      RETURN name, attributes.Value.value AS nodes
      """
    Then the result should be, in any order:
      | name                                                       | nodes |
      | 'neo4j.metrics:name=neo4j.database.neo4j.ids_in_use.node' | 3     |
    And no side effects

  Scenario: [19] dbms.queryJmx matches none of the kernel beans Neo4j 4.0 removed
    Given an empty graph
    When executing query:
      """
      CALL dbms.queryJmx('org.neo4j:instance=kernel#0,name=Primitive count')
      """
    Then the result should be empty
    And no side effects

  Scenario: [20] dbms.showCurrentUser has no row without a user
    Given an empty graph
    When executing query:
      """
      CALL dbms.showCurrentUser()
      """
    Then the result should be empty
    And no side effects

  Scenario: [21] SHOW TRANSACTIONS shows the running query
    Given an empty graph
    When executing query:
      """
      SHOW TRANSACTIONS YIELD database, currentQuery, status WHERE currentQuery STARTS WITH 'SHOW' RETURN database, status
      """
    Then the result should be, in any order:
      | database | status    |
      | 'neo4j'  | 'Running' |
    And no side effects
