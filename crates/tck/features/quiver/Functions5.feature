#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented functions: valueType, the string
# functions added in 5.x and the vector similarity functions.
Feature: Functions5 - functions added in Neo4j 5

  Scenario: [1] valueType of 1
    Given an empty graph
    When executing query:
      """
      RETURN valueType(1) AS t
      """
    Then the result should be, in any order:
      | t                  |
      | 'INTEGER NOT NULL' |
    And no side effects

  Scenario: [2] valueType of 1.5
    Given an empty graph
    When executing query:
      """
      RETURN valueType(1.5) AS t
      """
    Then the result should be, in any order:
      | t                |
      | 'FLOAT NOT NULL' |
    And no side effects

  Scenario: [3] valueType of 'a'
    Given an empty graph
    When executing query:
      """
      RETURN valueType('a') AS t
      """
    Then the result should be, in any order:
      | t                 |
      | 'STRING NOT NULL' |
    And no side effects

  Scenario: [4] valueType of true
    Given an empty graph
    When executing query:
      """
      RETURN valueType(true) AS t
      """
    Then the result should be, in any order:
      | t                  |
      | 'BOOLEAN NOT NULL' |
    And no side effects

  Scenario: [5] valueType of null
    Given an empty graph
    When executing query:
      """
      RETURN valueType(null) AS t
      """
    Then the result should be, in any order:
      | t      |
      | 'NULL' |
    And no side effects

  Scenario: [6] valueType of [1, 2]
    Given an empty graph
    When executing query:
      """
      RETURN valueType([1, 2]) AS t
      """
    Then the result should be, in any order:
      | t                                 |
      | 'LIST<INTEGER NOT NULL> NOT NULL' |
    And no side effects

  Scenario: [7] valueType of []
    Given an empty graph
    When executing query:
      """
      RETURN valueType([]) AS t
      """
    Then the result should be, in any order:
      | t                        |
      | 'LIST<NOTHING> NOT NULL' |
    And no side effects

  Scenario: [8] valueType of [1, 'a']
    Given an empty graph
    When executing query:
      """
      RETURN valueType([1, 'a']) AS t
      """
    Then the result should be, in any order:
      | t                                                   |
      | 'LIST<STRING NOT NULL \| INTEGER NOT NULL> NOT NULL' |
    And no side effects

  Scenario: [9] valueType of [null]
    Given an empty graph
    When executing query:
      """
      RETURN valueType([null]) AS t
      """
    Then the result should be, in any order:
      | t                     |
      | 'LIST<NULL> NOT NULL' |
    And no side effects

  Scenario: [10] valueType of {a: 1}
    Given an empty graph
    When executing query:
      """
      RETURN valueType({a: 1}) AS t
      """
    Then the result should be, in any order:
      | t              |
      | 'MAP NOT NULL' |
    And no side effects

  Scenario: [11] valueType of date('2024-01-01')
    Given an empty graph
    When executing query:
      """
      RETURN valueType(date('2024-01-01')) AS t
      """
    Then the result should be, in any order:
      | t               |
      | 'DATE NOT NULL' |
    And no side effects

  Scenario: [12] valueType of duration('PT1S')
    Given an empty graph
    When executing query:
      """
      RETURN valueType(duration('PT1S')) AS t
      """
    Then the result should be, in any order:
      | t                   |
      | 'DURATION NOT NULL' |
    And no side effects

  Scenario: [13] valueType of localtime('10:00')
    Given an empty graph
    When executing query:
      """
      RETURN valueType(localtime('10:00')) AS t
      """
    Then the result should be, in any order:
      | t                     |
      | 'LOCAL TIME NOT NULL' |
    And no side effects

  Scenario: [14] valueType of time('10:00Z')
    Given an empty graph
    When executing query:
      """
      RETURN valueType(time('10:00Z')) AS t
      """
    Then the result should be, in any order:
      | t                     |
      | 'ZONED TIME NOT NULL' |
    And no side effects

  Scenario: [15] valueType of localdatetime('2024-01-01T10:00')
    Given an empty graph
    When executing query:
      """
      RETURN valueType(localdatetime('2024-01-01T10:00')) AS t
      """
    Then the result should be, in any order:
      | t                         |
      | 'LOCAL DATETIME NOT NULL' |
    And no side effects

  Scenario: [16] valueType of datetime('2024-01-01T10:00Z')
    Given an empty graph
    When executing query:
      """
      RETURN valueType(datetime('2024-01-01T10:00Z')) AS t
      """
    Then the result should be, in any order:
      | t                         |
      | 'ZONED DATETIME NOT NULL' |
    And no side effects

  Scenario: [17] valueType of point({x: 0, y: 0})
    Given an empty graph
    When executing query:
      """
      RETURN valueType(point({x: 0, y: 0})) AS t
      """
    Then the result should be, in any order:
      | t                |
      | 'POINT NOT NULL' |
    And no side effects

  Scenario: [18] valueType of [[1]]
    Given an empty graph
    When executing query:
      """
      RETURN valueType([[1]]) AS t
      """
    Then the result should be, in any order:
      | t                                                |
      | 'LIST<LIST<INTEGER NOT NULL> NOT NULL> NOT NULL' |
    And no side effects

  Scenario: [19] valueType of a node
    Given an empty graph
    And having executed:
      """
      CREATE ()
      """
    When executing query:
      """
      MATCH (n) RETURN valueType(n) AS t
      """
    Then the result should be, in any order:
      | t               |
      | 'NODE NOT NULL' |
    And no side effects

  Scenario: [20] valueType of a relationship
    Given an empty graph
    And having executed:
      """
      CREATE ()-[:T]->()
      """
    When executing query:
      """
      MATCH ()-[r]->() RETURN valueType(r) AS t
      """
    Then the result should be, in any order:
      | t                       |
      | 'RELATIONSHIP NOT NULL' |
    And no side effects

  Scenario: [21] valueType agrees with the type predicate
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 'a', 2.5] AS x RETURN valueType(x) AS t, x IS :: INTEGER NOT NULL AS i ORDER BY t
      """
    Then the result should be, in order:
      | t                  | i     |
      | 'FLOAT NOT NULL'   | false |
      | 'INTEGER NOT NULL' | true  |
      | 'STRING NOT NULL'  | false |
    And no side effects

  Scenario: [22] normalize composes to NFC by default
    Given an empty graph
    When executing query:
      """
      RETURN normalize('e\u0301') = '\u00e9' AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [23] normalize to NFD decomposes
    Given an empty graph
    When executing query:
      """
      RETURN size(normalize('\u00e9', NFD)) AS r
      """
    Then the result should be, in any order:
      | r |
      | 2 |
    And no side effects

  Scenario: [24] normalize to NFKC folds compatibility characters
    Given an empty graph
    When executing query:
      """
      RETURN normalize('\ufb01', NFKC) AS r
      """
    Then the result should be, in any order:
      | r    |
      | 'fi' |
    And no side effects

  Scenario: [25] normalize to NFKD
    Given an empty graph
    When executing query:
      """
      RETURN size(normalize('\u00bd', NFKD)) AS r
      """
    Then the result should be, in any order:
      | r |
      | 3 |
    And no side effects

  Scenario: [26] normalize of null is null
    Given an empty graph
    When executing query:
      """
      RETURN normalize(null) AS r
      """
    Then the result should be, in any order:
      | r    |
      | null |
    And no side effects

  Scenario: [27] btrim trims both ends
    Given an empty graph
    When executing query:
      """
      RETURN btrim('  hello  ') AS r
      """
    Then the result should be, in any order:
      | r       |
      | 'hello' |
    And no side effects

  Scenario: [28] btrim with a trim character
    Given an empty graph
    When executing query:
      """
      RETURN btrim('xxhixx', 'x') AS r
      """
    Then the result should be, in any order:
      | r    |
      | 'hi' |
    And no side effects

  Scenario: [29] ltrim with a trim character
    Given an empty graph
    When executing query:
      """
      RETURN ltrim('xxhixx', 'x') AS r
      """
    Then the result should be, in any order:
      | r      |
      | 'hixx' |
    And no side effects

  Scenario: [30] rtrim with a trim character
    Given an empty graph
    When executing query:
      """
      RETURN rtrim('xxhixx', 'x') AS r
      """
    Then the result should be, in any order:
      | r      |
      | 'xxhi' |
    And no side effects

  Scenario: [31] ltrim without a trim character
    Given an empty graph
    When executing query:
      """
      RETURN ltrim('  hi ') AS r
      """
    Then the result should be, in any order:
      | r     |
      | 'hi ' |
    And no side effects

  Scenario: [32] rtrim without a trim character
    Given an empty graph
    When executing query:
      """
      RETURN rtrim(' hi  ') AS r
      """
    Then the result should be, in any order:
      | r     |
      | ' hi' |
    And no side effects

  Scenario: [33] lower is toLower
    Given an empty graph
    When executing query:
      """
      RETURN lower('HeLLo') AS r
      """
    Then the result should be, in any order:
      | r       |
      | 'hello' |
    And no side effects

  Scenario: [34] upper is toUpper
    Given an empty graph
    When executing query:
      """
      RETURN upper('HeLLo') AS r
      """
    Then the result should be, in any order:
      | r       |
      | 'HELLO' |
    And no side effects

  Scenario: [35] lower of null is null
    Given an empty graph
    When executing query:
      """
      RETURN lower(null) AS r
      """
    Then the result should be, in any order:
      | r    |
      | null |
    And no side effects

  Scenario: [36] Euclidean similarity of equal vectors is 1
    Given an empty graph
    When executing query:
      """
      RETURN vector.similarity.euclidean([1, 2, 3], [1, 2, 3]) AS r
      """
    Then the result should be, in any order:
      | r   |
      | 1.0 |
    And no side effects

  Scenario: [37] Euclidean similarity at distance 1
    Given an empty graph
    When executing query:
      """
      RETURN vector.similarity.euclidean([0.0, 0.0], [1.0, 0.0]) AS r
      """
    Then the result should be, in any order:
      | r   |
      | 0.5 |
    And no side effects

  Scenario: [38] Euclidean similarity at squared distance 3
    Given an empty graph
    When executing query:
      """
      RETURN vector.similarity.euclidean([0, 0, 0], [1, 1, 1]) AS r
      """
    Then the result should be, in any order:
      | r    |
      | 0.25 |
    And no side effects

  Scenario: [39] Cosine similarity of parallel vectors is 1
    Given an empty graph
    When executing query:
      """
      RETURN vector.similarity.cosine([1, 0], [2, 0]) AS r
      """
    Then the result should be, in any order:
      | r   |
      | 1.0 |
    And no side effects

  Scenario: [40] Cosine similarity of orthogonal vectors is 0.5
    Given an empty graph
    When executing query:
      """
      RETURN vector.similarity.cosine([1, 0], [0, 1]) AS r
      """
    Then the result should be, in any order:
      | r   |
      | 0.5 |
    And no side effects

  Scenario: [41] Cosine similarity of opposite vectors is 0
    Given an empty graph
    When executing query:
      """
      RETURN vector.similarity.cosine([1, 0], [-1, 0]) AS r
      """
    Then the result should be, in any order:
      | r   |
      | 0.0 |
    And no side effects

  Scenario: [42] Vector similarity of null is null
    Given an empty graph
    When executing query:
      """
      RETURN vector.similarity.cosine(null, [1, 0]) AS r
      """
    Then the result should be, in any order:
      | r    |
      | null |
    And no side effects

  Scenario: [43] Function names ignore case
    Given an empty graph
    When executing query:
      """
      RETURN VECTOR.SIMILARITY.EUCLIDEAN([1], [1]) AS r
      """
    Then the result should be, in any order:
      | r   |
      | 1.0 |
    And no side effects

  Scenario: [44] Vectors of different dimensions fail
    Given an empty graph
    When executing query:
      """
      RETURN vector.similarity.cosine([1, 2], [1, 2, 3]) AS r
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [45] A vector of strings fails
    Given an empty graph
    When executing query:
      """
      RETURN vector.similarity.euclidean(['a'], ['b']) AS r
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType

  Scenario: [46] valueType takes one argument
    Given an empty graph
    When executing query:
      """
      RETURN valueType(1, 2) AS r
      """
    Then a SyntaxError should be raised at compile time: InvalidNumberOfArguments

  Scenario: [47] normalize with an unknown form fails
    Given an empty graph
    When executing query:
      """
      RETURN normalize('a', 'NFX') AS r
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [48] IS NORMALIZED tests for NFC
    Given an empty graph
    When executing query:
      """
      RETURN 'café' IS NORMALIZED AS composed, normalize('café', NFD) IS NORMALIZED AS decomposed
      """
    Then the result should be, in any order:
      | composed | decomposed |
      | true     | false      |
    And no side effects

  Scenario: [49] IS NOT NORMALIZED and a named normal form
    Given an empty graph
    When executing query:
      """
      WITH normalize('café', NFD) AS s
      RETURN s IS NFD NORMALIZED AS nfd, s IS NOT NFD NORMALIZED AS notNfd,
             s IS NOT NORMALIZED AS notNfc, '①' IS NFKC NORMALIZED AS nfkc
      """
    Then the result should be, in any order:
      | nfd  | notNfd | notNfc | nfkc  |
      | true | false  | true   | false |
    And no side effects

  Scenario: [50] IS NORMALIZED of null is null
    Given an empty graph
    When executing query:
      """
      RETURN null IS NORMALIZED AS a, null IS NOT NFKD NORMALIZED AS b
      """
    Then the result should be, in any order:
      | a    | b    |
      | null | null |
    And no side effects

  Scenario: [51] An unknown normal form is a syntax error
    Given an empty graph
    When executing query:
      """
      RETURN 'a' IS NFX NORMALIZED AS x
      """
    Then a SyntaxError should be raised at compile time: *
