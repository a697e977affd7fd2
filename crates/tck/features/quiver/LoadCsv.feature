#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented behaviour of LOAD CSV: rows as lists
# of strings or, with headers, maps from column name to string; file:/// URLs resolved under the
# import directory and nowhere else. Where Neo4j leaves a case unspecified, the scenario states
# Quiver's choice (an unquoted empty field is null, a quoted one the empty string; blank lines
# are skipped).
Feature: LoadCsv - reading CSV files under the import directory

  Scenario: [1] Without headers each row is a list of strings
    Given an empty graph
    And the import file "plain.csv" contains:
      """
      1,Alice,33
      2,Bob,44
      """
    When executing query:
      """
      LOAD CSV FROM 'file:///plain.csv' AS row
      RETURN row
      """
    Then the result should be, in order:
      | row                   |
      | ['1', 'Alice', '33']  |
      | ['2', 'Bob', '44']    |
    And no side effects

  Scenario: [2] With headers each row is a map by column name
    Given an empty graph
    And the import file "people.csv" contains:
      """
      id,name
      1,Alice
      2,Bob
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row
      RETURN row.id AS id, row.name AS name
      """
    Then the result should be, in order:
      | id  | name    |
      | '1' | 'Alice' |
      | '2' | 'Bob'   |
    And no side effects

  Scenario: [3] Creating nodes from a file
    Given an empty graph
    And the import file "people.csv" contains:
      """
      id,name
      1,Alice
      2,Bob
      3,Carol
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row
      CREATE (:Person {id: toInteger(row.id), name: row.name})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 3 |
      | +labels     | 1 |
      | +properties | 6 |

  Scenario: [4] An unquoted empty field is null, a quoted one the empty string
    Given an empty graph
    And the import file "empty.csv" contains:
      """
      a,,"",d
      """
    When executing query:
      """
      LOAD CSV FROM 'file:///empty.csv' AS row
      RETURN row
      """
    Then the result should be, in order:
      | row                   |
      | ['a', null, '', 'd']  |
    And no side effects

  Scenario: [5] With headers, an empty field and a missing one are null
    Given an empty graph
    And the import file "gaps.csv" contains:
      """
      a,b,c
      1,,3
      4
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///gaps.csv' AS row
      RETURN row.a AS a, row.b AS b, row.c AS c
      """
    Then the result should be, in order:
      | a   | b    | c    |
      | '1' | null | '3'  |
      | '4' | null | null |
    And no side effects

  Scenario: [6] Fields beyond the header are left out
    Given an empty graph
    And the import file "extra.csv" contains:
      """
      a
      1,2,3
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///extra.csv' AS row
      RETURN row
      """
    Then the result should be, in order:
      | row      |
      | {a: '1'} |
    And no side effects

  Scenario: [7] A quoted field may hold the field terminator
    Given an empty graph
    And the import file "quoted.csv" contains:
      """
      "Pires, Gerard",1942
      """
    When executing query:
      """
      LOAD CSV FROM 'file:///quoted.csv' AS row
      RETURN row[0] AS name, row[1] AS year
      """
    Then the result should be, in order:
      | name            | year   |
      | 'Pires, Gerard' | '1942' |
    And no side effects

  Scenario: [8] A doubled quote inside a quoted field is one quote
    Given an empty graph
    And the import file "doubled.csv" contains:
      ```
      "say ""hi""",x
      ```
    When executing query:
      """
      LOAD CSV FROM 'file:///doubled.csv' AS row
      RETURN row[0] AS said
      """
    Then the result should be, in order:
      | said         |
      | 'say "hi"'   |
    And no side effects

  Scenario: [9] A backslash before a quote escapes it, as in Neo4j
    Given an empty graph
    And the import file "escaped.csv" contains:
      """
      "a \"b\" c"
      """
    When executing query:
      """
      LOAD CSV FROM 'file:///escaped.csv' AS row
      RETURN row[0] AS v
      """
    Then the result should be, in order:
      | v           |
      | 'a "b" c'   |
    And no side effects

  Scenario: [10] A quoted field may span lines
    Given an empty graph
    And the import file "multi.csv" contains:
      """
      "one
      two",x
      y,z
      """
    When executing query:
      """
      LOAD CSV FROM 'file:///multi.csv' AS row
      RETURN size(row[0]) AS length, row[1] AS next
      """
    Then the result should be, in order:
      | length | next |
      | 7      | 'x'  |
      | 1      | 'z'  |
    And no side effects

  Scenario: [11] FIELDTERMINATOR names another separator
    Given an empty graph
    And the import file "semi.csv" contains:
      """
      a;b,c;d
      """
    When executing query:
      """
      LOAD CSV FROM 'file:///semi.csv' AS row FIELDTERMINATOR ';'
      RETURN row
      """
    Then the result should be, in order:
      | row                |
      | ['a', 'b,c', 'd']  |
    And no side effects

  Scenario: [12] A tab-separated file with FIELDTERMINATOR '\t'
    Given an empty graph
    And the import file "tabs.tsv" contains:
      """
      name	age
      Alice	33
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///tabs.tsv' AS row FIELDTERMINATOR '\t'
      RETURN row.name AS name, row.age AS age
      """
    Then the result should be, in order:
      | name    | age  |
      | 'Alice' | '33' |
    And no side effects

  Scenario: [13] A byte order mark opening the file is not part of the first header
    Given an empty graph
    And the import file "bom.csv" contains:
      """
      ﻿id,name
      7,Grace
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///bom.csv' AS row
      RETURN row.id AS id, keys(row) AS keys
      """
    Then the result should be, in order:
      | id  | keys           |
      | '7' | ['id', 'name'] |
    And no side effects

  Scenario: [14] linenumber() is the line each row begins on
    Given an empty graph
    And the import file "lines.csv" contains:
      """
      h
      a
      "b
      c"
      d
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///lines.csv' AS row
      RETURN linenumber() AS line
      """
    Then the result should be, in order:
      | line |
      | 2    |
      | 3    |
      | 5    |
    And no side effects

  Scenario: [15] file() names the file being read
    Given an empty graph
    And the import file "named.csv" contains:
      """
      x
      """
    When executing query:
      """
      LOAD CSV FROM 'file:///named.csv' AS row
      RETURN file() ENDS WITH 'named.csv' AS named
      """
    Then the result should be, in order:
      | named |
      | true  |
    And no side effects

  Scenario: [16] linenumber() and file() are null outside LOAD CSV
    Given any graph
    When executing query:
      """
      RETURN linenumber() AS line, file() AS file
      """
    Then the result should be, in order:
      | line | file |
      | null | null |
    And no side effects

  Scenario: [17] Blank lines are skipped
    Given an empty graph
    And the import file "blank.csv" contains:
      """
      a

      b

      """
    When executing query:
      """
      LOAD CSV FROM 'file:///blank.csv' AS row
      RETURN row[0] AS v
      """
    Then the result should be, in order:
      | v   |
      | 'a' |
      | 'b' |
    And no side effects

  Scenario: [18] The URL may be a parameter
    Given an empty graph
    And the import file "param.csv" contains:
      """
      p
      """
    And parameters are:
      | url | 'file:///param.csv' |
    When executing query:
      """
      LOAD CSV FROM $url AS row
      RETURN row
      """
    Then the result should be, in order:
      | row   |
      | ['p'] |
    And no side effects

  Scenario: [19] The URL is evaluated for each input row
    Given an empty graph
    And the import file "a.csv" contains:
      """
      1
      """
    And the import file "b.csv" contains:
      """
      2
      3
      """
    When executing query:
      """
      UNWIND ['a', 'b'] AS f
      LOAD CSV FROM 'file:///' + f + '.csv' AS row
      RETURN f, row[0] AS v
      """
    Then the result should be, in order:
      | f   | v   |
      | 'a' | '1' |
      | 'b' | '2' |
      | 'b' | '3' |
    And no side effects

  Scenario: [20] A file in a subdirectory, with a percent-encoded name
    Given an empty graph
    And the import file "sub/my file.csv" contains:
      """
      s
      """
    When executing query:
      """
      LOAD CSV FROM 'file:///sub/my%20file.csv' AS row
      RETURN row
      """
    Then the result should be, in order:
      | row   |
      | ['s'] |
    And no side effects

  Scenario: [21] A file that does not exist fails the query
    Given an empty graph
    And the import file "present.csv" contains:
      """
      x
      """
    When executing query:
      """
      LOAD CSV FROM 'file:///absent.csv' AS row
      RETURN row
      """
    Then a ExternalResourceFailed should be raised at runtime: *

  Scenario: [22] A path that leaves the import directory is refused
    Given an empty graph
    And the import file "inside.csv" contains:
      """
      x
      """
    When executing query:
      """
      LOAD CSV FROM 'file:///../inside.csv' AS row
      RETURN row
      """
    Then a ExternalResourceFailed should be raised at runtime: *

  Scenario: [23] An http URL is refused: the server makes no network requests
    Given any graph
    When executing query:
      """
      LOAD CSV FROM 'https://example.com/data.csv' AS row
      RETURN row
      """
    Then a ExternalResourceFailed should be raised at runtime: *

  Scenario: [24] An unterminated quote fails the query
    Given an empty graph
    And the import file "open.csv" contains:
      """
      a
      "never closed
      """
    When executing query:
      """
      LOAD CSV FROM 'file:///open.csv' AS row
      RETURN row
      """
    Then a ExternalResourceFailed should be raised at runtime: *

  Scenario: [25] Characters after a closing quote fail the query
    Given an empty graph
    And the import file "after.csv" contains:
      """
      "a"b,c
      """
    When executing query:
      """
      LOAD CSV FROM 'file:///after.csv' AS row
      RETURN row
      """
    Then a ExternalResourceFailed should be raised at runtime: *

  Scenario: [26] The URL must be a string
    Given any graph
    When executing query:
      """
      LOAD CSV FROM 42 AS row
      RETURN row
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentType

  Scenario: [27] FIELDTERMINATOR takes one character
    Given any graph
    When executing query:
      """
      LOAD CSV FROM 'file:///x.csv' AS row FIELDTERMINATOR ';;'
      RETURN row
      """
    Then a SyntaxError should be raised at compile time: InvalidArgumentValue

  Scenario: [28] The row variable must be new
    Given any graph
    When executing query:
      """
      WITH 1 AS row
      LOAD CSV FROM 'file:///x.csv' AS row
      RETURN row
      """
    Then a SyntaxError should be raised at compile time: VariableAlreadyBound

  Scenario: [29] A file with only a header has no rows
    Given an empty graph
    And the import file "header.csv" contains:
      """
      a,b
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///header.csv' AS row
      RETURN count(row) AS n
      """
    Then the result should be, in order:
      | n |
      | 0 |
    And no side effects

  Scenario: [30] Loading in batches with CALL { } IN TRANSACTIONS
    Given an empty graph
    And the import file "batch.csv" contains:
      """
      id
      1
      2
      3
      4
      5
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///batch.csv' AS row
      CALL (row) { CREATE (:Item {id: toInteger(row.id)}) } IN TRANSACTIONS OF 2 ROWS
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 5 |
      | +labels     | 1 |
      | +properties | 5 |

  Scenario: [31] Relationships between nodes loaded before
    Given an empty graph
    And having executed:
      """
      UNWIND [1, 2, 3] AS i CREATE (:P {id: i})
      """
    And the import file "knows.csv" contains:
      """
      from,to
      1,2
      2,3
      """
    When executing query:
      """
      LOAD CSV WITH HEADERS FROM 'file:///knows.csv' AS row
      MATCH (a:P {id: toInteger(row.from)}), (b:P {id: toInteger(row.to)})
      CREATE (a)-[:KNOWS]->(b)
      """
    Then the result should be empty
    And the side effects should be:
      | +relationships | 2 |
