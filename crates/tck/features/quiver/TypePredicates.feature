#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented type predicate expressions.
Feature: TypePredicates - IS :: TYPE

  Scenario: [1] An integer is an INTEGER
    Given an empty graph
    When executing query:
      """
      RETURN 1 IS :: INTEGER AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [2] INT is a synonym of INTEGER
    Given an empty graph
    When executing query:
      """
      RETURN 1 IS :: INT AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [3] A float is not an INTEGER
    Given an empty graph
    When executing query:
      """
      RETURN 1.5 IS :: INTEGER AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [4] A float is a FLOAT
    Given an empty graph
    When executing query:
      """
      RETURN 1.5 IS :: FLOAT AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [5] A string is a STRING
    Given an empty graph
    When executing query:
      """
      RETURN 'a' IS :: STRING AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [6] VARCHAR is a synonym of STRING
    Given an empty graph
    When executing query:
      """
      RETURN 'a' IS :: VARCHAR AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [7] A boolean is a BOOLEAN
    Given an empty graph
    When executing query:
      """
      RETURN true IS :: BOOLEAN AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [8] BOOL is a synonym of BOOLEAN
    Given an empty graph
    When executing query:
      """
      RETURN false IS :: BOOL AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [9] null belongs to every nullable type
    Given an empty graph
    When executing query:
      """
      RETURN null IS :: INTEGER AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [10] null does not belong to a NOT NULL type
    Given an empty graph
    When executing query:
      """
      RETURN null IS :: INTEGER NOT NULL AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [11] A value belongs to its NOT NULL type
    Given an empty graph
    When executing query:
      """
      RETURN 1 IS :: INTEGER NOT NULL AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [12] IS NOT :: negates
    Given an empty graph
    When executing query:
      """
      RETURN 1 IS NOT :: STRING AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [13] IS NOT :: of null on a nullable type is false
    Given an empty graph
    When executing query:
      """
      RETURN null IS NOT :: STRING AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [14] IS TYPED is a synonym of IS ::
    Given an empty graph
    When executing query:
      """
      RETURN 1 IS TYPED INTEGER AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [15] IS NOT TYPED
    Given an empty graph
    When executing query:
      """
      RETURN 1 IS NOT TYPED INTEGER AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [16] Bare :: is a type predicate
    Given an empty graph
    When executing query:
      """
      RETURN 'x' :: STRING AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [17] Everything is ANY
    Given an empty graph
    When executing query:
      """
      RETURN [1, 'a'] IS :: ANY AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [18] null is ANY
    Given an empty graph
    When executing query:
      """
      RETURN null IS :: ANY AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [19] null is not ANY NOT NULL
    Given an empty graph
    When executing query:
      """
      RETURN null IS :: ANY NOT NULL AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [20] Nothing is NOTHING
    Given an empty graph
    When executing query:
      """
      RETURN 1 IS :: NOTHING AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [21] null is not NOTHING
    Given an empty graph
    When executing query:
      """
      RETURN null IS :: NOTHING AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [22] Only null is NULL
    Given an empty graph
    When executing query:
      """
      RETURN null IS :: NULL AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [23] An integer is not NULL
    Given an empty graph
    When executing query:
      """
      RETURN 1 IS :: NULL AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [24] A closed union accepts each member
    Given an empty graph
    When executing query:
      """
      RETURN 1.5 IS :: INTEGER | FLOAT AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [25] A closed union rejects others
    Given an empty graph
    When executing query:
      """
      RETURN '1' IS :: INTEGER | FLOAT AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [26] ANY<...> spells a union
    Given an empty graph
    When executing query:
      """
      RETURN 1 IS :: ANY<STRING | INTEGER> AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [27] A homogeneous list is a LIST<INTEGER>
    Given an empty graph
    When executing query:
      """
      RETURN [1, 2] IS :: LIST<INTEGER> AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [28] A mixed list is not a LIST<INTEGER>
    Given an empty graph
    When executing query:
      """
      RETURN [1, 'a'] IS :: LIST<INTEGER> AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [29] The empty list is a LIST<STRING>
    Given an empty graph
    When executing query:
      """
      RETURN [] IS :: LIST<STRING> AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [30] A list with null is a LIST<INTEGER>
    Given an empty graph
    When executing query:
      """
      RETURN [1, null] IS :: LIST<INTEGER> AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [31] A list with null is not a LIST<INTEGER NOT NULL>
    Given an empty graph
    When executing query:
      """
      RETURN [1, null] IS :: LIST<INTEGER NOT NULL> AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [32] A mixed list is a LIST of a union
    Given an empty graph
    When executing query:
      """
      RETURN [1, 2.5] IS :: LIST<INTEGER | FLOAT> AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [33] A nested list
    Given an empty graph
    When executing query:
      """
      RETURN [[1], [2, 3]] IS :: LIST<LIST<INTEGER>> AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [34] ARRAY is a synonym of LIST
    Given an empty graph
    When executing query:
      """
      RETURN ['a'] IS :: ARRAY<STRING> AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [35] A list is not a STRING
    Given an empty graph
    When executing query:
      """
      RETURN ['a'] IS :: STRING AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [36] A map is a MAP
    Given an empty graph
    When executing query:
      """
      RETURN {a: 1} IS :: MAP AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [37] A map is not a LIST
    Given an empty graph
    When executing query:
      """
      RETURN {a: 1} IS :: LIST<ANY> AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [38] A date is a DATE
    Given an empty graph
    When executing query:
      """
      RETURN date('2024-01-02') IS :: DATE AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [39] A local datetime is a LOCAL DATETIME
    Given an empty graph
    When executing query:
      """
      RETURN localdatetime('2024-01-02T03:04') IS :: LOCAL DATETIME AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [40] TIMESTAMP WITHOUT TIME ZONE is LOCAL DATETIME
    Given an empty graph
    When executing query:
      """
      RETURN localdatetime('2024-01-02T03:04') IS :: TIMESTAMP WITHOUT TIME ZONE AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [41] A datetime is a ZONED DATETIME
    Given an empty graph
    When executing query:
      """
      RETURN datetime('2024-01-02T03:04Z') IS :: ZONED DATETIME AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [42] A datetime is not a LOCAL DATETIME
    Given an empty graph
    When executing query:
      """
      RETURN datetime('2024-01-02T03:04Z') IS :: LOCAL DATETIME AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [43] A local time is a LOCAL TIME
    Given an empty graph
    When executing query:
      """
      RETURN localtime('12:00') IS :: TIME WITHOUT TIME ZONE AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [44] A time is a ZONED TIME
    Given an empty graph
    When executing query:
      """
      RETURN time('12:00Z') IS :: ZONED TIME AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [45] A duration is a DURATION
    Given an empty graph
    When executing query:
      """
      RETURN duration('P1D') IS :: DURATION AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [46] A point is a POINT
    Given an empty graph
    When executing query:
      """
      RETURN point({x: 1, y: 2}) IS :: POINT AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [47] An integer is a PROPERTY VALUE
    Given an empty graph
    When executing query:
      """
      RETURN 1 IS :: PROPERTY VALUE AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [48] A homogeneous list is a PROPERTY VALUE
    Given an empty graph
    When executing query:
      """
      RETURN [1, 2] IS :: PROPERTY VALUE AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [49] A mixed list is not a PROPERTY VALUE
    Given an empty graph
    When executing query:
      """
      RETURN [1, 'a'] IS :: PROPERTY VALUE AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [50] A map is not a PROPERTY VALUE
    Given an empty graph
    When executing query:
      """
      RETURN {a: 1} IS :: PROPERTY VALUE AS r
      """
    Then the result should be, in any order:
      | r     |
      | false |
    And no side effects

  Scenario: [51] A node is a NODE
    Given an empty graph
    And having executed:
      """
      CREATE ()
      """
    When executing query:
      """
      MATCH (n) RETURN n IS :: NODE AS r, n IS :: ANY NODE AS s, n IS :: RELATIONSHIP AS t
      """
    Then the result should be, in any order:
      | r    | s    | t     |
      | true | true | false |
    And no side effects

  Scenario: [52] A relationship is a RELATIONSHIP
    Given an empty graph
    And having executed:
      """
      CREATE ()-[:T]->()
      """
    When executing query:
      """
      MATCH ()-[r]->() RETURN r IS :: RELATIONSHIP AS r1, r IS :: EDGE AS r2
      """
    Then the result should be, in any order:
      | r1   | r2   |
      | true | true |
    And no side effects

  Scenario: [53] A path is a PATH
    Given an empty graph
    And having executed:
      """
      CREATE ()-[:T]->()
      """
    When executing query:
      """
      MATCH p = ()-->() RETURN p IS :: PATH AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [54] Filtering rows by a property's type
    Given an empty graph
    And having executed:
      """
      CREATE ({v: 1}), ({v: 'one'}), ({v: 2.0}), ()
      """
    When executing query:
      """
      MATCH (n) WHERE n.v IS :: INTEGER NOT NULL RETURN n.v AS v
      """
    Then the result should be, in any order:
      | v |
      | 1 |
    And no side effects

  Scenario: [55] Filtering rows by a property not of a type
    Given an empty graph
    And having executed:
      """
      CREATE ({v: 1}), ({v: 'one'}), ({v: 2.0})
      """
    When executing query:
      """
      MATCH (n) WHERE n.v IS NOT :: STRING RETURN n.v AS v
      """
    Then the result should be, in any order:
      | v   |
      | 1   |
      | 2.0 |
    And no side effects

  Scenario: [56] A type predicate over a parameter
    Given an empty graph
    And parameters are:
      | p | ['a', 'b'] |
    When executing query:
      """
      RETURN $p IS :: LIST<STRING> AS r
      """
    Then the result should be, in any order:
      | r    |
      | true |
    And no side effects

  Scenario: [57] A type predicate in a list comprehension filter
    Given an empty graph
    When executing query:
      """
      RETURN [x IN [1, 'a', 2.5, null] WHERE (x IS :: INTEGER | FLOAT) | x] AS r
      """
    Then the result should be, in any order:
      | r              |
      | [1, 2.5, null] |
    And no side effects

  Scenario: [58] A type predicate combined with AND
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 'a', 3] AS x WITH x WHERE x IS :: INTEGER AND x > 1 RETURN x
      """
    Then the result should be, in any order:
      | x |
      | 3 |
    And no side effects

  Scenario: [59] A type predicate in CASE
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 'a'] AS x RETURN CASE WHEN x IS :: STRING THEN 'text' ELSE 'other' END AS k ORDER BY k
      """
    Then the result should be, in order:
      | k       |
      | 'other' |
      | 'text'  |
    And no side effects

  Scenario: [60] An unknown type name fails
    Given an empty graph
    When executing query:
      """
      RETURN 1 IS :: NUMBER AS r
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [61] A list type needs its element type
    Given an empty graph
    When executing query:
      """
      RETURN [1] IS :: LIST AS r
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [62] TIME needs WITH or WITHOUT TIME ZONE
    Given an empty graph
    When executing query:
      """
      RETURN 1 IS :: TIME AS r
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax
