#encoding: utf-8

# Quiver's own scenarios, from Neo4j 5's rule that a word is read as a keyword only where it can
# be one: after AS any word names a variable, and the words that only close a CASE read as
# variables where an expression begins.
Feature: Keywords - keywords as variable names where they cannot be keywords

  Scenario: [1] A keyword as a column alias
    Given any graph
    When executing query:
      """
      RETURN 1 AS end, 2 AS when, 3 AS order, 4 AS match
      """
    Then the result should be, in order:
      | end | when | order | match |
      | 1   | 2    | 3     | 4     |
    And no side effects

  Scenario: [2] A variable named end, read back
    Given any graph
    When executing query:
      """
      WITH 5 AS end
      RETURN end + 1 AS next
      """
    Then the result should be, in order:
      | next |
      | 6    |
    And no side effects

  Scenario: [3] UNWIND and CASE still read their keywords
    Given any graph
    When executing query:
      """
      UNWIND [1, 2] AS end
      RETURN CASE WHEN end = 1 THEN 'one' ELSE 'two' END AS word
      """
    Then the result should be, in order:
      | word  |
      | 'one' |
      | 'two' |
    And no side effects

  Scenario: [4] A keyword as the alias of a subquery column
    Given any graph
    When executing query:
      """
      UNWIND [1] AS x
      CALL (x) { RETURN x * 2 AS y }
      RETURN y AS return
      """
    Then the result should be, in order:
      | return |
      | 2      |
    And no side effects
