#encoding: utf-8

# Quiver's own scenarios, written from Neo4j 5's documented behaviour of CALL { } IN
# TRANSACTIONS: each batch of rows runs in a transaction of its own that commits before the
# next begins. A failed batch is rolled back whole; ON ERROR says what the query does then.
Feature: CallInTransactions - subqueries committed a batch at a time

  Scenario: [1] A unit subquery runs for every row in batches
    Given an empty graph
    When executing query:
      """
      UNWIND range(1, 5) AS i
      CALL (i) { CREATE (:T {i: i}) } IN TRANSACTIONS OF 2 ROWS
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 5 |
      | +labels     | 1 |
      | +properties | 5 |

  Scenario: [2] Without OF n ROWS, the batch is 1000 rows
    Given an empty graph
    When executing query:
      """
      UNWIND range(1, 2500) AS i
      CALL (i) { CREATE (:T {i: i}) } IN TRANSACTIONS
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2500 |
      | +labels     | 1    |
      | +properties | 2500 |

  Scenario: [3] A returning subquery's columns join each row
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2, 3] AS i
      CALL (i) { CREATE (n:T {v: i * 10}) RETURN n.v AS v } IN TRANSACTIONS OF 2 ROWS
      RETURN i, v
      """
    Then the result should be, in any order:
      | i | v  |
      | 1 | 10 |
      | 2 | 20 |
      | 3 | 30 |
    And the side effects should be:
      | +nodes      | 3 |
      | +labels     | 1 |
      | +properties | 3 |

  Scenario: [4] The batch size may be a parameter
    Given an empty graph
    And parameters are:
      | size | 2 |
    When executing query:
      """
      UNWIND range(1, 3) AS i
      CALL (i) { CREATE (:T {i: i}) } IN TRANSACTIONS OF $size ROWS
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 3 |
      | +labels     | 1 |
      | +properties | 3 |

  Scenario: [5] Deleting in batches
    Given an empty graph
    And having executed:
      """
      UNWIND range(1, 7) AS i CREATE (:D {i: i})-[:R]->(:E)
      """
    When executing query:
      """
      MATCH (d:D)
      CALL (d) { DETACH DELETE d } IN TRANSACTIONS OF 3 ROWS
      """
    Then the result should be empty
    And the side effects should be:
      | -nodes         | 7 |
      | -relationships | 7 |
      | -labels        | 1 |
      | -properties    | 7 |

  Scenario: [6] A failed batch fails the query and the batches before it stay committed
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2, 0, 4] AS i
      CALL (i) { CREATE (:F {v: 10 / i}) } IN TRANSACTIONS OF 1 ROW
      """
    Then a ArithmeticError should be raised at runtime: *
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [7] ON ERROR FAIL is the default
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 0, 2] AS i
      CALL (i) { CREATE (:F {v: 10 / i}) } IN TRANSACTIONS OF 1 ROW ON ERROR FAIL
      """
    Then a ArithmeticError should be raised at runtime: *
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [8] A failed batch is rolled back whole
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2, 0, 4] AS i
      CALL (i) { CREATE (:F {v: 10 / i}) } IN TRANSACTIONS OF 2 ROWS ON ERROR CONTINUE
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [9] ON ERROR CONTINUE goes on with the next batch, the failed rows' columns null
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 0, 2] AS i
      CALL (i) { CREATE (n:F {v: 10 / i}) RETURN n.v AS v } IN TRANSACTIONS OF 1 ROW ON ERROR CONTINUE
      RETURN i, v
      """
    Then the result should be, in order:
      | i | v    |
      | 1 | 10   |
      | 0 | null |
      | 2 | 5    |
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [10] REPORT STATUS describes each row's batch
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 0, 2] AS i
      CALL (i) { CREATE (:F {v: 10 / i}) } IN TRANSACTIONS OF 1 ROW
        ON ERROR CONTINUE REPORT STATUS AS s
      RETURN i, s.started AS started, s.committed AS committed, s.errorMessage IS NULL AS ok
      """
    Then the result should be, in order:
      | i | started | committed | ok    |
      | 1 | true    | true      | true  |
      | 0 | true    | false     | false |
      | 2 | true    | true      | true  |
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |

  Scenario: [11] The status names the batch's transaction
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 2, 3] AS i
      CALL (i) { CREATE (:T) } IN TRANSACTIONS OF 2 ROWS ON ERROR CONTINUE REPORT STATUS AS s
      RETURN count(DISTINCT s.transactionId) AS batches, all(t IN collect(s.transactionId) WHERE t STARTS WITH 'neo4j-transaction-') AS named
      """
    Then the result should be, in any order:
      | batches | named |
      | 2       | true  |
    And the side effects should be:
      | +nodes  | 3 |
      | +labels | 1 |

  Scenario: [12] ON ERROR BREAK runs no batch after a failed one
    Given an empty graph
    When executing query:
      """
      UNWIND [1, 0, 2, 4] AS i
      CALL (i) { CREATE (n:F {v: 10 / i}) RETURN n.v AS v } IN TRANSACTIONS OF 1 ROW
        ON ERROR BREAK REPORT STATUS AS s
      RETURN i, v, s.started AS started, s.committed AS committed
      """
    Then the result should be, in order:
      | i | v    | started | committed |
      | 1 | 10   | true    | true      |
      | 0 | null | true    | false     |
      | 2 | null | false   | false     |
      | 4 | null | false   | false     |
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [13] The old importing WITH form runs in batches too
    Given an empty graph
    When executing query:
      """
      UNWIND range(1, 4) AS i
      CALL { WITH i CREATE (:T {i: i}) } IN TRANSACTIONS OF 3 ROWS
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 4 |
      | +labels     | 1 |
      | +properties | 4 |

  Scenario: [14] A batch reads what the batches before it committed
    Given an empty graph
    And having executed:
      """
      CREATE (:Counter {n: 0})
      """
    When executing query:
      """
      UNWIND range(1, 4) AS i
      CALL (i) { MATCH (c:Counter) SET c.n = c.n + i } IN TRANSACTIONS OF 1 ROW
      """
    Then the result should be empty
    When executing control query:
      """
      MATCH (c:Counter) RETURN c.n AS n
      """
    Then the result should be, in any order:
      | n  |
      | 10 |

  Scenario: [15] REPORT STATUS needs ON ERROR CONTINUE or BREAK
    Given an empty graph
    When executing query:
      """
      UNWIND [1] AS i CALL (i) { CREATE (:T) } IN TRANSACTIONS REPORT STATUS AS s RETURN s
      """
    Then a SyntaxError should be raised at compile time: InvalidClauseComposition

  Scenario: [16] IN TRANSACTIONS cannot be nested in another subquery
    Given an empty graph
    When executing query:
      """
      CALL { CALL { CREATE (:T) } IN TRANSACTIONS } IN TRANSACTIONS
      """
    Then a SyntaxError should be raised at compile time: InvalidClauseComposition

  Scenario: [17] The batch size must be a positive integer
    Given an empty graph
    When executing query:
      """
      UNWIND [1] AS i CALL (i) { CREATE (:T) } IN TRANSACTIONS OF 0 ROWS
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [18] The status variable may not shadow a variable in scope
    Given an empty graph
    When executing query:
      """
      UNWIND [1] AS s CALL (s) { CREATE (:T) } IN TRANSACTIONS ON ERROR CONTINUE REPORT STATUS AS s RETURN s
      """
    Then a SyntaxError should be raised at compile time: VariableAlreadyBound
