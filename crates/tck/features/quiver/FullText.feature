#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented full-text indexes: the DDL and its
# options, SHOW FULLTEXT INDEXES, db.index.fulltext.queryNodes and queryRelationships with
# Lucene's query syntax, the analyzers, and bad arguments as ProcedureErrors. Scores depend on
# the index's statistics, so results are compared as sets, in order only where one hit is
# certain to score above the others.
Feature: FullText - full-text indexes and db.index.fulltext procedures

  Background:
    Given an empty graph
    And having executed:
      """
      CREATE FULLTEXT INDEX titles FOR (n:Movie|Book) ON EACH [n.title, n.plot]
      """
    And having executed:
      """
      CREATE (:Movie {title: 'The Matrix', plot: 'A hacker learns the truth about reality'}),
             (:Movie {title: 'Matrix Reloaded', plot: 'Neo fights on'}),
             (:Book {title: 'Reality Hunger', plot: 'An essay on fiction and reality'}),
             (:Book {title: 'Running Wild', plot: 'A heist thriller'}),
             (:Person {title: 'Matrix fan'})
      """

  Scenario: [1] queryNodes finds the nodes whose text matches a term
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'matrix') YIELD node
      RETURN node.title AS title
      """
    Then the result should be, in any order:
      | title             |
      | 'The Matrix'      |
      | 'Matrix Reloaded' |
    And no side effects

  Scenario: [2] One index covers several labels and properties
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'reality') YIELD node
      RETURN labels(node)[0] AS label, node.title AS title
      """
    Then the result should be, in any order:
      | label   | title            |
      | 'Movie' | 'The Matrix'     |
      | 'Book'  | 'Reality Hunger' |
    And no side effects

  Scenario: [3] Matching ignores case
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'MATRIX reLOADed') YIELD node
      RETURN count(node) AS n
      """
    Then the result should be, in any order:
      | n |
      | 2 |
    And no side effects

  Scenario: [4] Scores are positive and come best first
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'matrix OR reality OR heist') YIELD score
      WITH collect(score) AS s
      RETURN size(s) AS n, all(x IN s WHERE x > 0) AS positive,
             all(i IN range(0, size(s) - 2) WHERE s[i] >= s[i + 1]) AS descending
      """
    Then the result should be, in any order:
      | n | positive | descending |
      | 4 | true     | true       |
    And no side effects

  Scenario: [5] A phrase matches its words in order
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', '"matrix reloaded"') YIELD node
      RETURN node.title AS title
      """
    Then the result should be, in any order:
      | title             |
      | 'Matrix Reloaded' |
    And no side effects

  Scenario: [6] A phrase with a slop allows words between
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', '"hacker truth"~3') YIELD node
      RETURN node.title AS title
      """
    Then the result should be, in any order:
      | title        |
      | 'The Matrix' |
    And no side effects

  Scenario: [7] AND and NOT
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'matrix AND NOT reloaded') YIELD node
      RETURN node.title AS title
      """
    Then the result should be, in any order:
      | title        |
      | 'The Matrix' |
    And no side effects

  Scenario: [8] Required and excluded terms with + and -
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', '+reality -hacker') YIELD node
      RETURN node.title AS title
      """
    Then the result should be, in any order:
      | title            |
      | 'Reality Hunger' |
    And no side effects

  Scenario: [9] A field names the property searched
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'title:reality') YIELD node
      RETURN node.title AS title
      """
    Then the result should be, in any order:
      | title            |
      | 'Reality Hunger' |
    And no side effects

  Scenario: [10] Trailing and inner wildcards
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'reloa*') YIELD node
      WITH collect(node.title) AS star
      CALL db.index.fulltext.queryNodes('titles', 'he?st') YIELD node
      RETURN star, collect(node.title) AS one
      """
    Then the result should be, in any order:
      | star                | one              |
      | ['Matrix Reloaded'] | ['Running Wild'] |
    And no side effects

  Scenario: [11] A fuzzy term finds words one edit away
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'matirx~') YIELD node
      RETURN node.title AS title
      """
    Then the result should be, in any order:
      | title             |
      | 'The Matrix'      |
      | 'Matrix Reloaded' |
    And no side effects

  Scenario: [12] Grouping and a boost
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', '(heist OR essay)^2 AND NOT fiction') YIELD node
      RETURN node.title AS title
      """
    Then the result should be, in any order:
      | title          |
      | 'Running Wild' |
    And no side effects

  Scenario: [13] skip and limit page through the hits, best first
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'matrix OR reality', {limit: 2}) YIELD node
      WITH collect(node) AS firstTwo
      CALL db.index.fulltext.queryNodes('titles', 'matrix OR reality', {skip: 2}) YIELD node
      WITH firstTwo, collect(node) AS rest
      CALL db.index.fulltext.queryNodes('titles', 'matrix OR reality') YIELD node
      WITH firstTwo, rest, collect(node) AS all
      RETURN size(firstTwo) AS a, size(rest) AS b, firstTwo + rest = all AS same
      """
    Then the result should be, in any order:
      | a | b | same |
      | 2 | 1 | true |
    And no side effects

  Scenario: [14] Only String values are indexed, and changes show at once
    Given having executed:
      """
      CREATE (:Movie {title: 42, plot: 'Matrix sequel'})
      WITH count(*) AS created
      MATCH (m:Movie {title: 'Matrix Reloaded'}) SET m.title = 'Revolutions'
      WITH count(*) AS changed
      MATCH (b:Book {title: 'Reality Hunger'}) DETACH DELETE b
      """
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'matrix OR reality OR sequel') YIELD node
      RETURN node.title AS title
      """
    Then the result should be, in any order:
      | title        |
      | 'The Matrix' |
      | 42           |
    And no side effects

  Scenario: [15] A relationship index answers queryRelationships
    Given having executed:
      """
      CREATE FULLTEXT INDEX reviews FOR ()-[r:REVIEWED|RATED]-() ON EACH [r.summary]
      """
    And having executed:
      """
      CREATE (a:User)-[:REVIEWED {summary: 'A tense heist thriller'}]->(b:Film),
             (a)-[:RATED {summary: 'thriller, slow start'}]->(b),
             (a)-[:LIKED {summary: 'thriller'}]->(b)
      """
    When executing query:
      """
      CALL db.index.fulltext.queryRelationships('reviews', 'thriller') YIELD relationship, score
      RETURN type(relationship) AS type, score > 0 AS scored
      """
    Then the result should be, in any order:
      | type       | scored |
      | 'REVIEWED' | true   |
      | 'RATED'    | true   |
    And no side effects

  Scenario: [16] SHOW FULLTEXT INDEXES lists the index with its options
    Given having executed:
      """
      CREATE FULLTEXT INDEX notes FOR ()-[r:NOTED]-() ON EACH [r.text]
      OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: true}}
      """
    When executing query:
      """
      SHOW FULLTEXT INDEXES YIELD name, type, entityType, labelsOrTypes, properties, options
      RETURN name, type, entityType, labelsOrTypes, properties,
             options.indexConfig.`fulltext.analyzer` AS analyzer,
             options.indexConfig.`fulltext.eventually_consistent` AS eventual
      ORDER BY name
      """
    Then the result should be, in order:
      | name     | type       | entityType     | labelsOrTypes     | properties        | analyzer                 | eventual |
      | 'notes'  | 'FULLTEXT' | 'RELATIONSHIP' | ['NOTED']         | ['text']          | 'english'                | true     |
      | 'titles' | 'FULLTEXT' | 'NODE'         | ['Movie', 'Book'] | ['title', 'plot'] | 'standard-no-stop-words' | false    |
    And no side effects

  Scenario: [17] IF NOT EXISTS leaves an existing index alone and DROP INDEX removes it
    Given having executed:
      """
      CREATE FULLTEXT INDEX titles IF NOT EXISTS FOR (n:Other) ON EACH [n.x]
      """
    And having executed:
      """
      DROP INDEX titles
      """
    And having executed:
      """
      DROP INDEX titles IF EXISTS
      """
    When executing query:
      """
      SHOW FULLTEXT INDEXES YIELD name RETURN count(*) AS n
      """
    Then the result should be, in any order:
      | n |
      | 0 |
    And no side effects

  Scenario: [18] The english analyzer stems words and drops stop words
    Given having executed:
      """
      CREATE FULLTEXT INDEX plots FOR (n:Movie|Book) ON EACH [n.plot]
      OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
      """
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('plots', 'learning') YIELD node
      WITH collect(node.title) AS stemmed
      CALL {
        CALL db.index.fulltext.queryNodes('plots', 'the') YIELD node
        RETURN count(node) AS stopWords
      }
      RETURN stemmed, stopWords
      """
    Then the result should be, in any order:
      | stemmed        | stopWords |
      | ['The Matrix'] | 0         |
    And no side effects

  Scenario: [19] The default analyzer keeps stop words
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'title:the') YIELD node
      RETURN node.title AS title
      """
    Then the result should be, in any order:
      | title        |
      | 'The Matrix' |
    And no side effects

  Scenario: [20] The folding analyzer matches accented letters
    Given having executed:
      """
      CREATE FULLTEXT INDEX places FOR (n:Place) ON EACH [n.name]
      OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-folding'}}
      """
    And having executed:
      """
      CREATE (:Place {name: 'Café Noir'}), (:Place {name: 'Cafeteria'})
      """
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('places', 'cafe') YIELD node
      RETURN node.name AS name
      """
    Then the result should be, in any order:
      | name        |
      | 'Café Noir' |
    And no side effects

  Scenario: [21] listAvailableAnalyzers names the analyzers
    When executing query:
      """
      CALL db.index.fulltext.listAvailableAnalyzers() YIELD analyzer
      WITH collect(analyzer) AS names
      RETURN all(a IN ['standard-no-stop-words', 'standard', 'standard-folding', 'simple',
                       'whitespace', 'keyword', 'english', 'german'] WHERE a IN names) AS known
      """
    Then the result should be, in any order:
      | known |
      | true  |
    And no side effects

  Scenario: [22] An unknown index is a ProcedureError
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('nope', 'matrix') YIELD node RETURN node
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [23] A node index is not a relationship index
    When executing query:
      """
      CALL db.index.fulltext.queryRelationships('titles', 'matrix') YIELD relationship
      RETURN relationship
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [24] A query that does not parse is a ProcedureError
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'title:(') YIELD node RETURN node
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [25] A query that only excludes is a ProcedureError
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'NOT matrix') YIELD node RETURN node
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [26] A negative limit is a ProcedureError
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'matrix', {limit: -1}) YIELD node RETURN node
      """
    Then a ProcedureError should be raised at runtime: *

  Scenario: [27] An unknown option is a ProcedureError
    When executing query:
      """
      CALL db.index.fulltext.queryNodes('titles', 'matrix', {colour: 'red'}) YIELD node
      RETURN node
      """
    Then a ProcedureError should be raised at runtime: *
