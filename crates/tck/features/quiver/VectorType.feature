#encoding: utf-8

# Quiver's own scenarios for the VECTOR type, written from Neo4j 2025's documentation of
# vector(), the vector values' text and valueType, size, conversion to lists, equality and
# the similarity functions. The TCK's value syntax has no vector, so results compare text.
Feature: VectorType - the VECTOR type and its functions

  Scenario: [1] vector() builds a FLOAT32 vector from integers
    Given an empty graph
    When executing query:
      """
      WITH vector([1, 2, 3], 3, FLOAT32) AS v
      RETURN toString(v) AS text, valueType(v) AS type, size(v) AS size
      """
    Then the result should be, in any order:
      | text                                  | type                           | size |
      | 'vector([1.0, 2.0, 3.0], 3, FLOAT32)' | 'VECTOR<FLOAT32>(3) NOT NULL' | 3    |
    And no side effects

  Scenario: [2] The coordinate type names and their aliases
    Given an empty graph
    When executing query:
      """
      RETURN valueType(vector([1], 1, INTEGER8)) AS a,
             valueType(vector([1], 1, INT16)) AS b,
             valueType(vector([1], 1, INTEGER32)) AS c,
             valueType(vector([1], 1, INT64)) AS d,
             valueType(vector([1], 1, FLOAT64)) AS e,
             valueType(vector([1], 1, 'float')) AS f
      """
    Then the result should be, in any order:
      | a                              | b                               | c                               | d                             | e                           | f                           |
      | 'VECTOR<INTEGER8>(1) NOT NULL' | 'VECTOR<INTEGER16>(1) NOT NULL' | 'VECTOR<INTEGER32>(1) NOT NULL' | 'VECTOR<INTEGER>(1) NOT NULL' | 'VECTOR<FLOAT>(1) NOT NULL' | 'VECTOR<FLOAT>(1) NOT NULL' |
    And no side effects

  Scenario: [3] vector() reads a vector's text and coerces floats to integers
    Given an empty graph
    When executing query:
      """
      RETURN toString(vector('[1.5, -2, 3e2]', 3, INTEGER)) AS text
      """
    Then the result should be, in any order:
      | text                              |
      | 'vector([1, -2, 300], 3, INTEGER)' |
    And no side effects

  Scenario: [4] A null value or dimension gives null
    Given an empty graph
    When executing query:
      """
      RETURN vector(null, 3, FLOAT32) IS NULL AS a, vector([1, 2], null, FLOAT) IS NULL AS b
      """
    Then the result should be, in any order:
      | a    | b    |
      | true | true |
    And no side effects

  Scenario: [5] toFloatList and toIntegerList read a vector's coordinates
    Given an empty graph
    When executing query:
      """
      WITH vector([1, 2.5], 2, FLOAT64) AS v
      RETURN toFloatList(v) AS floats, toIntegerList(v) AS ints, vector_dimension_count(v) AS n
      """
    Then the result should be, in any order:
      | floats     | ints   | n |
      | [1.0, 2.5] | [1, 2] | 2 |
    And no side effects

  Scenario: [6] Equality needs the same coordinate type and coordinates
    Given an empty graph
    When executing query:
      """
      WITH vector([1, 2], 2, INTEGER) AS a
      RETURN a = vector([1.0, 2.0], 2, INTEGER) AS same,
             a = vector([1, 3], 2, INTEGER) AS other,
             a = vector([1, 2], 2, INTEGER8) AS narrower,
             a = [1, 2] AS list,
             a < vector([1, 3], 2, INTEGER) AS less
      """
    Then the result should be, in any order:
      | same | other | narrower | list  | less |
      | true | false | false    | false | null |
    And no side effects

  Scenario: [7] DISTINCT and ORDER BY take vectors
    Given an empty graph
    When executing query:
      """
      UNWIND [vector([2], 1, INTEGER), vector([1], 1, INTEGER), vector([2], 1, INTEGER)] AS v
      WITH DISTINCT v
      RETURN toString(v) AS text ORDER BY v
      """
    Then the result should be, in order:
      | text                          |
      | 'vector([1], 1, INTEGER)' |
      | 'vector([2], 1, INTEGER)' |
    And no side effects

  Scenario: [8] The similarity functions take vectors
    Given an empty graph
    When executing query:
      """
      WITH vector([1, 0], 2, FLOAT32) AS a, vector([1, 0], 2, FLOAT32) AS b
      RETURN vector.similarity.cosine(a, b) AS cosine,
             vector.similarity.euclidean(a, [0, 0]) AS euclidean
      """
    Then the result should be, in any order:
      | cosine | euclidean |
      | 1.0    | 0.5       |
    And no side effects

  Scenario: [9] A vector property is stored and read back
    Given an empty graph
    When executing query:
      """
      CREATE (n:Doc {embedding: vector([0.5, 1.5], 2, FLOAT32)})
      WITH n
      MATCH (d:Doc)
      RETURN toString(d.embedding) AS text, d.embedding = vector([0.5, 1.5], 2, FLOAT32) AS same
      """
    Then the result should be, in any order:
      | text                              | same |
      | 'vector([0.5, 1.5], 2, FLOAT32)' | true |
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [10] A dimension that does not match the coordinates fails
    Given an empty graph
    When executing query:
      """
      RETURN vector([1, 2], 3, FLOAT32) AS v
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [11] A dimension of 0 fails
    Given an empty graph
    When executing query:
      """
      RETURN vector([], 0, FLOAT32) AS v
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [12] A coordinate that does not fit INTEGER8 fails
    Given an empty graph
    When executing query:
      """
      RETURN vector([1, 300], 2, INTEGER8) AS v
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [13] A null coordinate fails
    Given an empty graph
    When executing query:
      """
      RETURN vector([1, null], 2, FLOAT) AS v
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [14] An unknown coordinate type fails
    Given an empty graph
    When executing query:
      """
      RETURN vector([1], 1, 'FLOAT16') AS v
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [15] A vector of something other than numbers or their text fails
    Given an empty graph
    When executing query:
      """
      RETURN vector(true, 1, FLOAT) AS v
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType
