#encoding: utf-8

# Quiver's own scenarios for path patterns written from Neo4j's Cypher manual (5.x, "Shortest
# paths" and "Syntax and semantics"): a parenthesised path pattern without a quantifier and its
# WHERE, which under a selector filters before the selector chooses (a pre-filter) while the
# MATCH's WHERE filters after (a post-filter); a node named twice in one quantified path
# pattern; quantified path patterns in EXISTS, COUNT and COLLECT subqueries; and the selectors
# over one quantified relationship, which run on the visited-set search.
Feature: PathPatternWhere - parenthesised path patterns, pre- and post-filters, and selector searches

  Scenario: [1] A parenthesised path pattern with a WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH ((a)-[r:T]->(b) WHERE a.x < b.x)
      RETURN a.x AS a, b.x AS b
      """
    Then the result should be, in any order:
      | a | b |
      | 1 | 2 |
      | 0 | 1 |
    And no side effects

  Scenario: [2] A parenthesised path pattern without a WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH ((a:N)-[:T]->(b))
      RETURN count(*) AS paths
      """
    Then the result should be, in any order:
      | paths |
      | 3     |
    And no side effects

  Scenario: [3] A parenthesised path pattern's WHERE sees the path named inside it
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH (p = (a)-[:T]->+(b) WHERE length(p) = 2)
      WHERE a.x = 1
      RETURN b.x AS b
      """
    Then the result should be, in any order:
      | b |
      | 0 |
    And no side effects

  Scenario: [4] A parenthesised path pattern beside a MATCH WHERE
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH ((a)-[:T|U]->(b) WHERE b.x > a.x)
      WHERE b.x > 3
      RETURN a.x AS a, b.x AS b
      """
    Then the result should be, in any order:
      | a | b |
      | 0 | 5 |
    And no side effects

  Scenario: [5] The MATCH WHERE filters after the selector (a post-filter)
    Given an empty graph
    And having executed:
      """
      CREATE (asc:Station {name: 'Ashchurch'}), (bmv:Station {name: 'Bromsgrove'}),
             (cnm:Station {name: 'Cheltenham Spa'}), (dtw:Station {name: 'Droitwich Spa'}),
             (hby:Station {name: 'Hartlebury'}), (psh:Station {name: 'Pershore'}),
             (wop:Station {name: 'Worcestershire Parkway Ll'}),
             (wof:Station {name: 'Worcester Foregate Street'}),
             (wos:Station {name: 'Worcester Shrub Hill'})
      CREATE (asc)-[:LINK {distance: 7.25}]->(cnm), (asc)-[:LINK {distance: 11.29}]->(wop),
             (asc)-[:LINK {distance: 14.75}]->(wos), (bmv)-[:LINK {distance: 31.14}]->(cnm),
             (bmv)-[:LINK {distance: 6.16}]->(dtw), (bmv)-[:LINK {distance: 12.6}]->(wop),
             (dtw)-[:LINK {distance: 5.64}]->(hby), (dtw)-[:LINK {distance: 6.03}]->(wof),
             (dtw)-[:LINK {distance: 5.76}]->(wos), (psh)-[:LINK {distance: 4.16}]->(wop),
             (wop)-[:LINK {distance: 3.71}]->(wos), (wof)-[:LINK {distance: 0.65}]->(wos)
      """
    When executing query:
      """
      MATCH SHORTEST 1
        (:Station {name: 'Hartlebury'})
        (()--(n:Station))+
        (:Station {name: 'Cheltenham Spa'})
      WHERE none(stop IN n[..-1] WHERE stop.name = 'Bromsgrove')
      RETURN [stop IN n[..-1] | stop.name] AS stops
      """
    Then the result should be empty
    And no side effects

  Scenario: [6] Without the filter the shortest route goes through Bromsgrove
    Given an empty graph
    And having executed:
      """
      CREATE (asc:Station {name: 'Ashchurch'}), (bmv:Station {name: 'Bromsgrove'}),
             (cnm:Station {name: 'Cheltenham Spa'}), (dtw:Station {name: 'Droitwich Spa'}),
             (hby:Station {name: 'Hartlebury'}), (psh:Station {name: 'Pershore'}),
             (wop:Station {name: 'Worcestershire Parkway Ll'}),
             (wof:Station {name: 'Worcester Foregate Street'}),
             (wos:Station {name: 'Worcester Shrub Hill'})
      CREATE (asc)-[:LINK {distance: 7.25}]->(cnm), (asc)-[:LINK {distance: 11.29}]->(wop),
             (asc)-[:LINK {distance: 14.75}]->(wos), (bmv)-[:LINK {distance: 31.14}]->(cnm),
             (bmv)-[:LINK {distance: 6.16}]->(dtw), (bmv)-[:LINK {distance: 12.6}]->(wop),
             (dtw)-[:LINK {distance: 5.64}]->(hby), (dtw)-[:LINK {distance: 6.03}]->(wof),
             (dtw)-[:LINK {distance: 5.76}]->(wos), (psh)-[:LINK {distance: 4.16}]->(wop),
             (wop)-[:LINK {distance: 3.71}]->(wos), (wof)-[:LINK {distance: 0.65}]->(wos)
      """
    When executing query:
      """
      MATCH SHORTEST 1
        (:Station {name: 'Hartlebury'})
        (()--(n))+
        (:Station {name: 'Cheltenham Spa'})
      RETURN [stop IN n[..-1] | stop.name] AS stops
      """
    Then the result should be, in any order:
      | stops                           |
      | ['Droitwich Spa', 'Bromsgrove'] |
    And no side effects

  Scenario: [7] A predicate inside the pattern filters before the selector
    Given an empty graph
    And having executed:
      """
      CREATE (asc:Station {name: 'Ashchurch'}), (bmv:Station {name: 'Bromsgrove'}),
             (cnm:Station {name: 'Cheltenham Spa'}), (dtw:Station {name: 'Droitwich Spa'}),
             (hby:Station {name: 'Hartlebury'}), (psh:Station {name: 'Pershore'}),
             (wop:Station {name: 'Worcestershire Parkway Ll'}),
             (wof:Station {name: 'Worcester Foregate Street'}),
             (wos:Station {name: 'Worcester Shrub Hill'})
      CREATE (asc)-[:LINK {distance: 7.25}]->(cnm), (asc)-[:LINK {distance: 11.29}]->(wop),
             (asc)-[:LINK {distance: 14.75}]->(wos), (bmv)-[:LINK {distance: 31.14}]->(cnm),
             (bmv)-[:LINK {distance: 6.16}]->(dtw), (bmv)-[:LINK {distance: 12.6}]->(wop),
             (dtw)-[:LINK {distance: 5.64}]->(hby), (dtw)-[:LINK {distance: 6.03}]->(wof),
             (dtw)-[:LINK {distance: 5.76}]->(wos), (psh)-[:LINK {distance: 4.16}]->(wop),
             (wop)-[:LINK {distance: 3.71}]->(wos), (wof)-[:LINK {distance: 0.65}]->(wos)
      """
    When executing query:
      """
      MATCH SHORTEST 1
        (:Station {name: 'Hartlebury'})
        (()--(n:Station WHERE n.name <> 'Bromsgrove'))+
        (:Station {name: 'Cheltenham Spa'})
      RETURN [stop IN n[..-1] | stop.name] AS stops
      """
    Then the result should be, in any order:
      | stops                                                  |
      | ['Droitwich Spa', 'Worcester Shrub Hill', 'Ashchurch'] |
    And no side effects

  Scenario: [8] A parenthesised path pattern's WHERE filters before the selector (a pre-filter)
    Given an empty graph
    And having executed:
      """
      CREATE (asc:Station {name: 'Ashchurch'}), (bmv:Station {name: 'Bromsgrove'}),
             (cnm:Station {name: 'Cheltenham Spa'}), (dtw:Station {name: 'Droitwich Spa'}),
             (hby:Station {name: 'Hartlebury'}), (psh:Station {name: 'Pershore'}),
             (wop:Station {name: 'Worcestershire Parkway Ll'}),
             (wof:Station {name: 'Worcester Foregate Street'}),
             (wos:Station {name: 'Worcester Shrub Hill'})
      CREATE (asc)-[:LINK {distance: 7.25}]->(cnm), (asc)-[:LINK {distance: 11.29}]->(wop),
             (asc)-[:LINK {distance: 14.75}]->(wos), (bmv)-[:LINK {distance: 31.14}]->(cnm),
             (bmv)-[:LINK {distance: 6.16}]->(dtw), (bmv)-[:LINK {distance: 12.6}]->(wop),
             (dtw)-[:LINK {distance: 5.64}]->(hby), (dtw)-[:LINK {distance: 6.03}]->(wof),
             (dtw)-[:LINK {distance: 5.76}]->(wos), (psh)-[:LINK {distance: 4.16}]->(wop),
             (wop)-[:LINK {distance: 3.71}]->(wos), (wof)-[:LINK {distance: 0.65}]->(wos)
      """
    When executing query:
      """
      MATCH SHORTEST 1
        ( (:Station {name: 'Hartlebury'})
          (()--(n:Station))+
          (:Station {name: 'Cheltenham Spa'})
           WHERE none(stop IN n[..-1] WHERE stop.name = 'Bromsgrove') )
      RETURN [stop IN n[..-1] | stop.name] AS stops
      """
    Then the result should be, in any order:
      | stops                                                  |
      | ['Droitwich Spa', 'Worcester Shrub Hill', 'Ashchurch'] |
    And no side effects

  Scenario: [9] A path variable outside the parentheses filters after the selector
    Given an empty graph
    And having executed:
      """
      CREATE (asc:Station {name: 'Ashchurch'}), (bmv:Station {name: 'Bromsgrove'}),
             (cnm:Station {name: 'Cheltenham Spa'}), (dtw:Station {name: 'Droitwich Spa'}),
             (hby:Station {name: 'Hartlebury'}), (psh:Station {name: 'Pershore'}),
             (wop:Station {name: 'Worcestershire Parkway Ll'}),
             (wof:Station {name: 'Worcester Foregate Street'}),
             (wos:Station {name: 'Worcester Shrub Hill'})
      CREATE (asc)-[:LINK {distance: 7.25}]->(cnm), (asc)-[:LINK {distance: 11.29}]->(wop),
             (asc)-[:LINK {distance: 14.75}]->(wos), (bmv)-[:LINK {distance: 31.14}]->(cnm),
             (bmv)-[:LINK {distance: 6.16}]->(dtw), (bmv)-[:LINK {distance: 12.6}]->(wop),
             (dtw)-[:LINK {distance: 5.64}]->(hby), (dtw)-[:LINK {distance: 6.03}]->(wof),
             (dtw)-[:LINK {distance: 5.76}]->(wos), (psh)-[:LINK {distance: 4.16}]->(wop),
             (wop)-[:LINK {distance: 3.71}]->(wos), (wof)-[:LINK {distance: 0.65}]->(wos)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (:Station {name: 'Hartlebury'})--+(b:Station)
      WHERE length(p) % 2 = 0
      RETURN b.name AS destination, length(p) AS pathLength
      """
    Then the result should be, in any order:
      | destination                 | pathLength |
      | 'Bromsgrove'                | 2          |
      | 'Worcester Foregate Street' | 2          |
      | 'Worcester Shrub Hill'      | 2          |
      | 'Pershore'                  | 4          |
    And no side effects

  Scenario: [10] A path variable inside the parentheses filters before the selector
    Given an empty graph
    And having executed:
      """
      CREATE (asc:Station {name: 'Ashchurch'}), (bmv:Station {name: 'Bromsgrove'}),
             (cnm:Station {name: 'Cheltenham Spa'}), (dtw:Station {name: 'Droitwich Spa'}),
             (hby:Station {name: 'Hartlebury'}), (psh:Station {name: 'Pershore'}),
             (wop:Station {name: 'Worcestershire Parkway Ll'}),
             (wof:Station {name: 'Worcester Foregate Street'}),
             (wos:Station {name: 'Worcester Shrub Hill'})
      CREATE (asc)-[:LINK {distance: 7.25}]->(cnm), (asc)-[:LINK {distance: 11.29}]->(wop),
             (asc)-[:LINK {distance: 14.75}]->(wos), (bmv)-[:LINK {distance: 31.14}]->(cnm),
             (bmv)-[:LINK {distance: 6.16}]->(dtw), (bmv)-[:LINK {distance: 12.6}]->(wop),
             (dtw)-[:LINK {distance: 5.64}]->(hby), (dtw)-[:LINK {distance: 6.03}]->(wof),
             (dtw)-[:LINK {distance: 5.76}]->(wos), (psh)-[:LINK {distance: 4.16}]->(wop),
             (wop)-[:LINK {distance: 3.71}]->(wos), (wof)-[:LINK {distance: 0.65}]->(wos)
      """
    When executing query:
      """
      MATCH SHORTEST 1
        (p = (:Station {name: 'Hartlebury'})--+(b:Station)
          WHERE length(p) % 2 = 0 )
      RETURN b.name AS destination, length(p) AS pathLength
      """
    Then the result should be, in any order:
      | destination                 | pathLength |
      | 'Bromsgrove'                | 2          |
      | 'Worcester Foregate Street' | 2          |
      | 'Worcester Shrub Hill'      | 2          |
      | 'Ashchurch'                 | 4          |
      | 'Cheltenham Spa'            | 4          |
      | 'Droitwich Spa'             | 4          |
      | 'Pershore'                  | 4          |
      | 'Worcestershire Parkway Ll' | 4          |
    And no side effects

  Scenario: [11] A parenthesised path pattern cannot be used in CREATE
    Given an empty graph
    When executing query:
      """
      CREATE ((a)-[:T]->(b) WHERE true)
      """
    Then a SyntaxError should be raised at compile time: UnexpectedSyntax

  Scenario: [12] A parenthesised path pattern beside other elements fails naming it
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH ((a)-[:T]->(b) WHERE a.x < b.x)-[:T]->(c)
      RETURN c
      """
    Then a SyntaxError should be raised at compile time: UnsupportedFeature

  Scenario: [13] A path variable both outside and inside fails naming it
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH p = (q = (a)-[:T]->(b) WHERE a.x < b.x)
      RETURN p
      """
    Then a SyntaxError should be raised at compile time: UnsupportedFeature

  Scenario: [14] A node named twice in one quantified path pattern closes each iteration
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH (s:N {x: 1}) ((a)-[:T]->(b)-[:T]->(c)-[:T]->(a)){1} (e)
      RETURN [n IN b | n.x] AS bs, e.x AS e
      """
    Then the result should be, in any order:
      | bs  | e |
      | [2] | 1 |
    And no side effects

  Scenario: [15] A node named twice matches nothing when the iteration is not closed
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH ((a)-[:T]->(b)-[:U]->(a)){1,2}
      RETURN count(*) AS paths
      """
    Then the result should be, in any order:
      | paths |
      | 0     |
    And no side effects

  Scenario: [16] A node named twice in a quantified path pattern under a selector
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (s:N {x: 2}) ((a)-[:T]->()-[:T]->()-[:T]->(a))+ (e)
      RETURN length(p) AS length, [n IN a | n.x] AS starts
      """
    Then the result should be, in any order:
      | length | starts |
      | 3      | [2]    |
    And no side effects

  Scenario: [17] EXISTS with a quantified relationship
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH (a:N)
      WHERE EXISTS { (a)-[:T]->{2,3}(:N {x: 5}) } OR EXISTS { (a)-[:T]->{1,2}(b) WHERE b.x = 2 }
      RETURN a.x AS a
      """
    Then the result should be, in any order:
      | a |
      | 1 |
      | 0 |
    And no side effects

  Scenario: [18] EXISTS with a quantified path pattern
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH (a:N)
      WHERE EXISTS { (a) ((x)-[:T]->(y) WHERE y.x > x.x){2} (b) }
      RETURN a.x AS a
      """
    Then the result should be, in any order:
      | a |
      | 0 |
    And no side effects

  Scenario: [19] COUNT with a quantified relationship
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH (a:N {x: 1})
      RETURN COUNT { (a)-[:T]->{1,3}(b) } AS paths
      """
    Then the result should be, in any order:
      | paths |
      | 3     |
    And no side effects

  Scenario: [20] COLLECT with a quantified path pattern
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH (a:N {x: 1})
      RETURN COLLECT { MATCH (a) (()-[:T|U]->()){1,3} (b) RETURN b.x ORDER BY b.x } AS reached
      """
    Then the result should be, in any order:
      | reached      |
      | [0, 1, 2, 5] |
    And no side effects

  Scenario: [21] SHORTEST 1 over one quantified relationship to every node reached
    Given an empty graph
    And having executed:
      """
      CREATE (asc:Station {name: 'Ashchurch'}), (bmv:Station {name: 'Bromsgrove'}),
             (cnm:Station {name: 'Cheltenham Spa'}), (dtw:Station {name: 'Droitwich Spa'}),
             (hby:Station {name: 'Hartlebury'}), (psh:Station {name: 'Pershore'}),
             (wop:Station {name: 'Worcestershire Parkway Ll'}),
             (wof:Station {name: 'Worcester Foregate Street'}),
             (wos:Station {name: 'Worcester Shrub Hill'})
      CREATE (asc)-[:LINK {distance: 7.25}]->(cnm), (asc)-[:LINK {distance: 11.29}]->(wop),
             (asc)-[:LINK {distance: 14.75}]->(wos), (bmv)-[:LINK {distance: 31.14}]->(cnm),
             (bmv)-[:LINK {distance: 6.16}]->(dtw), (bmv)-[:LINK {distance: 12.6}]->(wop),
             (dtw)-[:LINK {distance: 5.64}]->(hby), (dtw)-[:LINK {distance: 6.03}]->(wof),
             (dtw)-[:LINK {distance: 5.76}]->(wos), (psh)-[:LINK {distance: 4.16}]->(wop),
             (wop)-[:LINK {distance: 3.71}]->(wos), (wof)-[:LINK {distance: 0.65}]->(wos)
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (:Station {name: 'Hartlebury'})-[:LINK]-+(b)
      RETURN b.name AS destination, length(p) AS pathLength
      """
    Then the result should be, in any order:
      | destination                 | pathLength |
      | 'Droitwich Spa'             | 1          |
      | 'Bromsgrove'                | 2          |
      | 'Worcester Foregate Street' | 2          |
      | 'Worcester Shrub Hill'      | 2          |
      | 'Ashchurch'                 | 3          |
      | 'Cheltenham Spa'            | 3          |
      | 'Worcestershire Parkway Ll' | 3          |
      | 'Pershore'                  | 4          |
    And no side effects

  Scenario: [22] ALL SHORTEST over one quantified relationship between bound ends
    Given an empty graph
    And having executed:
      """
      CREATE (asc:Station {name: 'Ashchurch'}), (bmv:Station {name: 'Bromsgrove'}),
             (cnm:Station {name: 'Cheltenham Spa'}), (dtw:Station {name: 'Droitwich Spa'}),
             (hby:Station {name: 'Hartlebury'}), (psh:Station {name: 'Pershore'}),
             (wop:Station {name: 'Worcestershire Parkway Ll'}),
             (wof:Station {name: 'Worcester Foregate Street'}),
             (wos:Station {name: 'Worcester Shrub Hill'})
      CREATE (asc)-[:LINK {distance: 7.25}]->(cnm), (asc)-[:LINK {distance: 11.29}]->(wop),
             (asc)-[:LINK {distance: 14.75}]->(wos), (bmv)-[:LINK {distance: 31.14}]->(cnm),
             (bmv)-[:LINK {distance: 6.16}]->(dtw), (bmv)-[:LINK {distance: 12.6}]->(wop),
             (dtw)-[:LINK {distance: 5.64}]->(hby), (dtw)-[:LINK {distance: 6.03}]->(wof),
             (dtw)-[:LINK {distance: 5.76}]->(wos), (psh)-[:LINK {distance: 4.16}]->(wop),
             (wop)-[:LINK {distance: 3.71}]->(wos), (wof)-[:LINK {distance: 0.65}]->(wos)
      """
    When executing query:
      """
      MATCH (wos:Station {name: 'Worcester Shrub Hill'}), (bmv:Station {name: 'Bromsgrove'})
      MATCH p = ALL SHORTEST (wos)-[:LINK]-+(bmv)
      RETURN [n IN nodes(p) | n.name] AS stops
      """
    Then the result should be, in any order:
      | stops                                                               |
      | ['Worcester Shrub Hill', 'Droitwich Spa', 'Bromsgrove']             |
      | ['Worcester Shrub Hill', 'Worcestershire Parkway Ll', 'Bromsgrove'] |
    And no side effects

  Scenario: [23] ANY with a test on each relationship
    Given an empty graph
    And having executed:
      """
      CREATE (asc:Station {name: 'Ashchurch'}), (bmv:Station {name: 'Bromsgrove'}),
             (cnm:Station {name: 'Cheltenham Spa'}), (dtw:Station {name: 'Droitwich Spa'}),
             (hby:Station {name: 'Hartlebury'}), (psh:Station {name: 'Pershore'}),
             (wop:Station {name: 'Worcestershire Parkway Ll'}),
             (wof:Station {name: 'Worcester Foregate Street'}),
             (wos:Station {name: 'Worcester Shrub Hill'})
      CREATE (asc)-[:LINK {distance: 7.25}]->(cnm), (asc)-[:LINK {distance: 11.29}]->(wop),
             (asc)-[:LINK {distance: 14.75}]->(wos), (bmv)-[:LINK {distance: 31.14}]->(cnm),
             (bmv)-[:LINK {distance: 6.16}]->(dtw), (bmv)-[:LINK {distance: 12.6}]->(wop),
             (dtw)-[:LINK {distance: 5.64}]->(hby), (dtw)-[:LINK {distance: 6.03}]->(wof),
             (dtw)-[:LINK {distance: 5.76}]->(wos), (psh)-[:LINK {distance: 4.16}]->(wop),
             (wop)-[:LINK {distance: 3.71}]->(wos), (wof)-[:LINK {distance: 0.65}]->(wos)
      """
    When executing query:
      """
      MATCH path = ANY
        (:Station {name: 'Pershore'})-[l:LINK WHERE l.distance < 10]-+(b:Station {name: 'Bromsgrove'})
      RETURN [r IN relationships(path) | r.distance] AS distances
      """
    Then the result should be, in any order:
      | distances                |
      | [4.16, 3.71, 5.76, 6.16] |
    And no side effects

  Scenario: [24] SHORTEST 1 from a node back to itself is a cycle
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (a:N {x: 1})-[:T]->+(a)
      RETURN length(p) AS length
      """
    Then the result should be, in any order:
      | length |
      | 3      |
    And no side effects

  Scenario: [25] SHORTEST 1 with a minimum of zero keeps the empty path to the start
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (a:N {x: 1})-[:T]->*(b)
      RETURN b.x AS b, length(p) AS length
      """
    Then the result should be, in any order:
      | b | length |
      | 1 | 0      |
      | 2 | 1      |
      | 0 | 2      |
    And no side effects

  Scenario: [26] SHORTEST 1 never goes back along the relationship it came by
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH p = SHORTEST 1 (a:N {x: 0})-[:U]-+(a)
      RETURN length(p) AS length
      """
    Then the result should be empty
    And no side effects

  Scenario: [27] SHORTEST 1 does not reuse a relationship bound elsewhere in the pattern
    Given an empty graph
    And having executed:
      """
      CREATE (a:N {x: 1})-[:T]->(b:N {x: 2})-[:T]->(c:N {x: 0})-[:T]->(a),
             (c)-[:U]->(d:N {x: 5})
      """
    When executing query:
      """
      MATCH (a:N {x: 1})-[r:T]->(b), p = SHORTEST 1 (a)-[:T]-+(b)
      RETURN length(p) AS length
      """
    Then the result should be, in any order:
      | length |
      | 2      |
    And no side effects
