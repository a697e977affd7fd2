#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented behaviour of CALL { } IN
# CONCURRENT TRANSACTIONS and ON ERROR RETRY: batches run on several workers, each committed in
# a transaction of its own; a batch that fails with a transient error is retried. Neo4j does
# not promise an order for the rows of concurrent batches; Quiver keeps the input's order.
# Also here: the outer query reads what the batches committed.
Feature: ConcurrentTransactions - concurrent and retried batches

  Scenario: [1] Batches run concurrently, every row once
    Given an empty graph
    When executing query:
      """
      UNWIND range(1, 10) AS i
      CALL (i) { CREATE (:T {i: i}) } IN 3 CONCURRENT TRANSACTIONS OF 2 ROWS
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 10 |
      | +labels     | 1  |
      | +properties | 10 |

  Scenario: [2] Without a number, as many workers as the machine has cores
    Given an empty graph
    When executing query:
      """
      UNWIND range(1, 7) AS i
      CALL (i) { CREATE (:T {i: i}) } IN CONCURRENT TRANSACTIONS OF 1 ROW
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 7 |
      | +labels     | 1 |
      | +properties | 7 |

  Scenario: [3] A returning subquery's rows keep the input's order
    Given an empty graph
    When executing query:
      """
      UNWIND range(1, 6) AS i
      CALL (i) { CREATE (n:T {v: i * 10}) RETURN n.v AS v } IN 2 CONCURRENT TRANSACTIONS OF 2 ROWS
      RETURN i, v
      """
    Then the result should be, in order:
      | i | v  |
      | 1 | 10 |
      | 2 | 20 |
      | 3 | 30 |
      | 4 | 40 |
      | 5 | 50 |
      | 6 | 60 |
    And the side effects should be:
      | +nodes      | 6 |
      | +labels     | 1 |
      | +properties | 6 |

  Scenario: [4] ON ERROR CONTINUE with concurrent batches: only the failed batch is lost
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2, 0, 4] AS i
      CALL (i) { CREATE (:T {v: 10 / i}) } IN 2 CONCURRENT TRANSACTIONS OF 1 ROW
        ON ERROR CONTINUE REPORT STATUS AS s
      RETURN i, s.committed AS committed
      """
    Then the result should be, in order:
      | i | committed |
      | 1 | true      |
      | 2 | true      |
      | 0 | false     |
      | 4 | true      |
    And the side effects should be:
      | +nodes      | 3 |
      | +labels     | 1 |
      | +properties | 3 |

  Scenario: [5] The number of workers must be positive
    Given any graph
    When executing query:
      """
      UNWIND [1] AS i
      CALL (i) { CREATE (:T) } IN 0 CONCURRENT TRANSACTIONS
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [6] ON ERROR RETRY commits batches that succeed at once
    Given an empty graph
    When executing query:
      """
      UNWIND range(1, 4) AS i
      CALL (i) { CREATE (:T {i: i}) } IN TRANSACTIONS OF 2 ROWS ON ERROR RETRY
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 4 |
      | +labels     | 1 |
      | +properties | 4 |

  Scenario: [7] An error that is not transient is not retried; THEN CONTINUE goes on
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 0, 2] AS i
      CALL (i) { CREATE (:T {v: 10 / i}) } IN TRANSACTIONS OF 1 ROW
        ON ERROR RETRY FOR 3 SECONDS THEN CONTINUE REPORT STATUS AS s
      RETURN i, s.committed AS committed
      """
    Then the result should be, in order:
      | i | committed |
      | 1 | true      |
      | 0 | false     |
      | 2 | true      |
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [8] After retrying, the default is to fail the query
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 0] AS i
      CALL (i) { CREATE (:T {v: 10 / i}) } IN TRANSACTIONS OF 1 ROW ON ERROR RETRY FOR 1 SECOND
      """
    Then a ArithmeticError should be raised at runtime: *

  Scenario: [9] THEN BREAK stops batching after a failed batch
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 0, 2] AS i
      CALL (i) { CREATE (:T {v: 10 / i}) } IN TRANSACTIONS OF 1 ROW
        ON ERROR RETRY FOR 1 SECOND THEN BREAK REPORT STATUS AS s
      RETURN i, s.started AS started, s.committed AS committed
      """
    Then the result should be, in order:
      | i | started | committed |
      | 1 | true    | true      |
      | 0 | true    | false     |
      | 2 | false   | false     |
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [10] REPORT STATUS with RETRY needs THEN CONTINUE or THEN BREAK
    Given any graph
    When executing query:
      """
      UNWIND [1] AS i
      CALL (i) { CREATE (:T) } IN TRANSACTIONS ON ERROR RETRY REPORT STATUS AS s
      RETURN s
      """
    Then a SyntaxError should be raised at compile time: InvalidClauseComposition

  Scenario: [11] A MATCH after the subquery reads what the batches committed
    Given an empty graph
    When executing query:
      """
      UNWIND range(1, 5) AS i
      CALL (i) { CREATE (:T {i: i}) } IN TRANSACTIONS OF 2 ROWS
      WITH count(*) AS rows
      MATCH (t:T)
      RETURN rows, count(t) AS found
      """
    Then the result should be, in order:
      | rows | found |
      | 5    | 5     |
    And the side effects should be:
      | +nodes      | 5 |
      | +labels     | 1 |
      | +properties | 5 |

  Scenario: [12] The nodes a batch returns can be read after it committed
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2] AS i
      CALL (i) { CREATE (n:T {v: i}) RETURN n } IN TRANSACTIONS OF 1 ROW
      RETURN n.v AS v, labels(n) AS labels
      """
    Then the result should be, in order:
      | v | labels |
      | 1 | ['T']  |
      | 2 | ['T']  |
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [13] Concurrent batches then a MATCH over what they wrote
    Given an empty graph
    When executing query:
      """
      UNWIND range(1, 9) AS i
      CALL (i) { CREATE (:T {i: i}) } IN 3 CONCURRENT TRANSACTIONS OF 2 ROWS
      WITH count(*) AS rows
      MATCH (t:T)
      RETURN rows, sum(t.i) AS total
      """
    Then the result should be, in order:
      | rows | total |
      | 9    | 45    |
    And the side effects should be:
      | +nodes      | 9 |
      | +labels     | 1 |
      | +properties | 9 |
