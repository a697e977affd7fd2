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

  Scenario: [16] vector_distance by each metric
    Given an empty graph
    When executing query:
      """
      WITH vector([1, 2, 3], 3, FLOAT32) AS a, vector([4, 6, 3], 3, FLOAT32) AS b
      RETURN vector_distance(a, b, EUCLIDEAN) AS euclidean,
             vector_distance(a, b, EUCLIDEAN_SQUARED) AS squared,
             vector_distance(a, b, MANHATTAN) AS manhattan,
             vector_distance(a, b, DOT) AS dot,
             vector_distance(a, b, HAMMING) AS hamming
      """
    Then the result should be, in any order:
      | euclidean | squared | manhattan | dot   | hamming |
      | 5.0       | 25.0    | 7.0       | -25.0 | 2.0     |
    And no side effects

  Scenario: [17] vector_distance by COSINE is one minus the cosine
    Given an empty graph
    When executing query:
      """
      WITH vector([1, 0], 2, FLOAT) AS east
      RETURN vector_distance(east, vector([2, 0], 2, FLOAT), COSINE) AS same,
             vector_distance(east, vector([0, 3], 2, FLOAT), COSINE) AS right,
             vector_distance(east, vector([-1, 0], 2, FLOAT), COSINE) AS opposite,
             vector_distance(east, vector([0, 0], 2, FLOAT), COSINE) AS zero
      """
    Then the result should be, in any order:
      | same | right | opposite | zero |
      | 0.0  | 1.0   | 2.0      | null |
    And no side effects

  Scenario: [18] The metric may be a string in any case, and the coordinate types may differ
    Given an empty graph
    When executing query:
      """
      RETURN vector_distance(vector([1, 1], 2, INTEGER8), vector([2.5, 3], 2, FLOAT64), 'manhattan') AS d
      """
    Then the result should be, in any order:
      | d   |
      | 3.5 |
    And no side effects

  Scenario: [19] A null vector or metric gives null
    Given an empty graph
    When executing query:
      """
      WITH vector([1], 1, FLOAT) AS v
      RETURN vector_distance(v, null, EUCLIDEAN) AS a, vector_distance(v, v, null) AS b,
             vector_norm(null, MANHATTAN) AS c
      """
    Then the result should be, in any order:
      | a    | b    | c    |
      | null | null | null |
    And no side effects

  Scenario: [20] vector_norm by EUCLIDEAN and MANHATTAN
    Given an empty graph
    When executing query:
      """
      WITH vector([3, -4], 2, INTEGER8) AS v
      RETURN vector_norm(v, EUCLIDEAN) AS euclidean, vector_norm(v, MANHATTAN) AS manhattan
      """
    Then the result should be, in any order:
      | euclidean | manhattan |
      | 5.0       | 7.0       |
    And no side effects

  Scenario: [21] vector_distance of vectors of different dimensions fails
    Given an empty graph
    When executing query:
      """
      RETURN vector_distance(vector([1, 2], 2, FLOAT), vector([1, 2, 3], 3, FLOAT), EUCLIDEAN) AS d
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [22] An unknown metric fails
    Given an empty graph
    When executing query:
      """
      RETURN vector_distance(vector([1], 1, FLOAT), vector([2], 1, FLOAT), 'CHEBYSHEV') AS d
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [23] vector_norm takes only the metrics that measure a length
    Given an empty graph
    When executing query:
      """
      RETURN vector_norm(vector([1, 2], 2, FLOAT), COSINE) AS n
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [24] vector_distance takes vectors, not lists
    Given an empty graph
    When executing query:
      """
      RETURN vector_distance([1.0, 2.0], vector([1, 2], 2, FLOAT), EUCLIDEAN) AS d
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType

  Scenario: [25] IS :: VECTOR holds every vector and no list
    Given an empty graph
    When executing query:
      """
      RETURN vector([1, 2], 2, INTEGER8) IS :: VECTOR AS vector,
             [1, 2] IS :: VECTOR AS list,
             null IS :: VECTOR AS nullable,
             null IS :: VECTOR NOT NULL AS notNull,
             vector([1], 1, FLOAT) :: VECTOR | STRING AS inUnion
      """
    Then the result should be, in any order:
      | vector | list  | nullable | notNull | inUnion |
      | true   | false | true     | false   | true    |
    And no side effects

  Scenario: [26] A vector type with a coordinate type and a dimension
    Given an empty graph
    When executing query:
      """
      WITH vector([1, 2, 3], 3, FLOAT32) AS v
      RETURN v IS :: VECTOR<FLOAT32>(3) AS exact,
             v IS :: VECTOR<FLOAT32> AS anyDimension,
             v IS :: VECTOR(3) AS anyCoordinates,
             v IS :: VECTOR<FLOAT>(3) AS float64,
             v IS :: VECTOR<FLOAT32>(4) AS otherDimension,
             vector([1], 1, INT8) IS :: VECTOR<INTEGER8>(1) NOT NULL AS alias,
             v IS NOT :: VECTOR<INT64> AS negated
      """
    Then the result should be, in any order:
      | exact | anyDimension | anyCoordinates | float64 | otherDimension | alias | negated |
      | true  | true         | true           | false   | false          | true  | true    |
    And no side effects

  Scenario: [27] A stored vector property answers its type predicate and valueType
    Given an empty graph
    And having executed:
      """
      CREATE (:Doc {i: 1, v: vector([1, 2], 2, FLOAT32)}), (:Doc {i: 2, v: [1.0, 2.0]})
      """
    When executing query:
      """
      MATCH (d:Doc) WHERE d.v IS :: VECTOR<FLOAT32>(2)
      RETURN d.i AS i, valueType(d.v) AS type
      """
    Then the result should be, in any order:
      | i | type                          |
      | 1 | 'VECTOR<FLOAT32>(2) NOT NULL' |
    And no side effects

  Scenario: [28] An unknown coordinate type in a vector type is a syntax error
    Given an empty graph
    When executing query:
      """
      RETURN [1] IS :: VECTOR<FLOAT16>(1) AS v
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [29] A vector type's dimension is a positive integer
    Given an empty graph
    When executing query:
      """
      RETURN [1] IS :: VECTOR<FLOAT>(0) AS v
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax
