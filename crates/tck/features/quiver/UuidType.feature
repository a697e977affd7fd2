#encoding: utf-8

# Quiver's own scenarios for the UUID type, written from Neo4j 2026.08's documentation of
# uuid() in its three forms, uuid.mostSignificantBits() and uuid.leastSignificantBits(), the
# text form, valueType, equality and a stored UUID property. The TCK's value syntax has no
# UUID, so results compare text.
Feature: UuidType - the UUID type and its functions

  Scenario: [1] uuid() reads the 8-4-4-4-12 text, in either case
    Given an empty graph
    When executing query:
      """
      WITH uuid('550E8400-e29b-41d4-a716-446655440000') AS u
      RETURN toString(u) AS text, valueType(u) AS type
      """
    Then the result should be, in any order:
      | text                                   | type            |
      | '550e8400-e29b-41d4-a716-446655440000' | 'UUID NOT NULL' |
    And no side effects

  Scenario: [2] uuid() from two integers, and the integers back
    Given an empty graph
    When executing query:
      """
      WITH uuid(42, -1) AS u
      RETURN toString(u) AS text, uuid.mostSignificantBits(u) AS most,
             uuid.leastSignificantBits(u) AS least
      """
    Then the result should be, in any order:
      | text                                   | most | least |
      | '00000000-0000-002a-ffff-ffffffffffff' | 42   | -1    |
    And no side effects

  Scenario: [3] uuid() without arguments is random, randomUUID() is text
    Given an empty graph
    When executing query:
      """
      WITH uuid() AS a, uuid() AS b
      RETURN valueType(a) AS type, a = b AS same, valueType(randomUUID()) AS text,
             substring(toString(a), 14, 1) AS version
      """
    Then the result should be, in any order:
      | type            | same  | text              | version |
      | 'UUID NOT NULL' | false | 'STRING NOT NULL' | '4'     |
    And no side effects

  Scenario: [4] A null argument gives null
    Given an empty graph
    When executing query:
      """
      RETURN uuid(null) IS NULL AS a, uuid(1, null) IS NULL AS b,
             uuid.mostSignificantBits(null) IS NULL AS c
      """
    Then the result should be, in any order:
      | a    | b    | c    |
      | true | true | true |
    And no side effects

  Scenario: [5] A UUID equals a UUID of the same bits, never its text
    Given an empty graph
    When executing query:
      """
      WITH uuid('550e8400-e29b-41d4-a716-446655440000') AS u
      RETURN u = uuid('550E8400-E29B-41D4-A716-446655440000') AS same,
             u = '550e8400-e29b-41d4-a716-446655440000' AS text,
             u < uuid('550e8400-e29b-41d4-a716-446655440001') AS less
      """
    Then the result should be, in any order:
      | same | text  | less |
      | true | false | true |
    And no side effects

  Scenario: [6] UUIDs order as unsigned numbers
    Given an empty graph
    When executing query:
      """
      UNWIND [uuid(-1, 0), uuid(1, 0), uuid(0, 5)] AS u
      RETURN toString(u) AS text
      ORDER BY u
      """
    Then the result should be, in order:
      | text                                   |
      | '00000000-0000-0000-0000-000000000005' |
      | '00000000-0000-0001-0000-000000000000' |
      | 'ffffffff-ffff-ffff-0000-000000000000' |
    And no side effects

  Scenario: [7] A UUID is stored as a property and found by equality
    Given an empty graph
    When executing query:
      """
      CREATE (:Thing {id: uuid(7, 7)}), (:Thing {id: uuid(8, 8)})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 2 |
    When executing query:
      """
      MATCH (t:Thing) WHERE t.id = uuid(8, 8)
      RETURN toString(t.id) AS text, valueType(t.id) AS type
      """
    Then the result should be, in any order:
      | text                                   | type            |
      | '00000000-0000-0008-0000-000000000008' | 'UUID NOT NULL' |
    And no side effects

  Scenario: [8] Malformed text fails
    Given an empty graph
    When executing query:
      """
      RETURN uuid('550e8400-e29b-41d4-a716') AS u
      """
    Then a ArgumentError should be raised at runtime: InvalidArgumentValue

  Scenario: [9] A number where text belongs fails
    Given an empty graph
    When executing query:
      """
      RETURN uuid(1) AS u
      """
    Then a TypeError should be raised at runtime: InvalidArgumentType

  Scenario: [10] IS :: UUID holds UUIDs and null, never their text
    Given an empty graph
    When executing query:
      """
      UNWIND [uuid(1, 2), '00000000-0000-0001-0000-000000000002', null, 1] AS x
      RETURN x IS :: UUID AS uuid, x IS :: UUID NOT NULL AS present
      """
    Then the result should be, in order:
      | uuid  | present |
      | true  | true    |
      | false | false   |
      | true  | false   |
      | false | false   |
    And no side effects

  Scenario: [11] UUID inside a closed union and a list type
    Given an empty graph
    When executing query:
      """
      WITH uuid(1, 2) AS u
      RETURN u IS :: UUID | STRING AS a, 'text' IS :: UUID | STRING AS b,
             1 IS :: UUID | STRING AS c, [u, u] IS :: LIST<UUID NOT NULL> AS d,
             u IS :: ANY<UUID | INTEGER> NOT NULL AS e, u IS :: PROPERTY VALUE AS f
      """
    Then the result should be, in any order:
      | a    | b    | c     | d    | e    | f    |
      | true | true | false | true | true | true |
    And no side effects

  Scenario: [12] valueType names a UUID as the type predicate spells it
    Given an empty graph
    When executing query:
      """
      WITH uuid(1, 2) AS u
      RETURN valueType(u) AS one, valueType([u, null]) AS list,
             valueType([u, 'a']) AS mixed, u IS :: UUID NOT NULL AS same
      """
    Then the result should be, in any order:
      | one             | list                  | mixed                                             | same |
      | 'UUID NOT NULL' | 'LIST<UUID> NOT NULL' | 'LIST<STRING NOT NULL \| UUID NOT NULL> NOT NULL' | true |
    And no side effects

  Scenario: [13] IS NOT :: UUID and a UUID property filtered by type
    Given an empty graph
    And having executed:
      """
      CREATE (:Thing {id: uuid(7, 7)}), (:Thing {id: 'seven'}), (:Thing)
      """
    When executing query:
      """
      MATCH (t:Thing)
      RETURN t.id IS :: UUID NOT NULL AS uuid, t.id IS NOT :: UUID AS other
      ORDER BY uuid DESC, other
      """
    Then the result should be, in order:
      | uuid  | other |
      | true  | false |
      | false | false |
      | false | true  |
    And no side effects

  Scenario: [14] A property type constraint on UUID accepts UUIDs and a missing property
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT thing_id FOR (t:Thing) REQUIRE t.id IS :: UUID
      """
    When executing query:
      """
      CREATE (:Thing {id: uuid('550e8400-e29b-41d4-a716-446655440000')}), (:Thing)
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 2 |
      | +labels     | 1 |
      | +properties | 1 |

  Scenario: [15] A property type constraint on UUID refuses the UUID's text
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT thing_id FOR (t:Thing) REQUIRE t.id IS :: UUID
      """
    When executing query:
      """
      CREATE (:Thing {id: '550e8400-e29b-41d4-a716-446655440000'})
      """
    Then a ConstraintValidationFailed should be raised at runtime: *
    And no side effects

  Scenario: [16] Creating a UUID constraint over data that breaks it fails
    Given an empty graph
    And having executed:
      """
      CREATE ()-[:LINK {id: uuid(1, 2)}]->(), ()-[:LINK {id: 12}]->()
      """
    When executing query:
      """
      CREATE CONSTRAINT link_id FOR ()-[r:LINK]-() REQUIRE r.id IS :: UUID
      """
    Then a ConstraintCreationFailed should be raised at runtime: *

  Scenario: [17] UUID in unions and lists of a type constraint, as SHOW CONSTRAINTS names it
    Given an empty graph
    And having executed:
      """
      CREATE CONSTRAINT thing_ref FOR (t:Thing) REQUIRE t.ref IS :: UUID | STRING
      """
    And having executed:
      """
      CREATE CONSTRAINT thing_ids FOR (t:Thing) REQUIRE t.ids IS :: LIST<UUID NOT NULL>
      """
    And having executed:
      """
      CREATE (:Thing {ref: uuid(1, 2), ids: [uuid(3, 4), uuid(5, 6)]}), (:Thing {ref: 'text'})
      """
    When executing query:
      """
      SHOW CONSTRAINTS YIELD name, propertyType RETURN name, propertyType ORDER BY name
      """
    Then the result should be, in order:
      | name        | propertyType             |
      | 'thing_ids' | 'LIST<UUID NOT NULL>'    |
      | 'thing_ref' | 'STRING \| UUID'         |
    And no side effects
