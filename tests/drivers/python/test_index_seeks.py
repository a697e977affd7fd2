"""Seeks through text and point indexes through the official Python driver and `quiver serve`:
the plan a driver reads from EXPLAIN's summary names the seek, the rows are those a scan gives,
and SHOW INDEXES counts the reads."""

from neo4j import GraphDatabase
from neo4j.spatial import CartesianPoint

from conftest import PASSWORD, USER


def operators(plan):
    yield plan["operatorType"]
    for child in plan.get("children", []):
        yield from operators(child)


def test_contains_and_ends_with_seek_a_text_index(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            session.run(
                "UNWIND range(1, 200) AS i CREATE (:Place {name: 'place-' + i, i: i})"
            ).consume()
            # A non-string value is never in the text index and never matches CONTAINS.
            session.run("CREATE (:Place {name: 42})").consume()
            scanned = sorted(
                r["i"] for r in session.run(
                    "MATCH (p:Place) WHERE p.name CONTAINS $s RETURN p.i AS i", s="-1")
            )
            session.run("CREATE TEXT INDEX place_name FOR (p:Place) ON (p.name)").consume()
            session.run("CALL db.awaitIndexes()").consume()
            plan = session.run(
                "EXPLAIN MATCH (p:Place) WHERE p.name CONTAINS $s RETURN p.i AS i", s="-1"
            ).consume().plan
            assert any(op.startswith("NodeIndexContainsScan") for op in operators(plan)), plan
            sought = sorted(
                r["i"] for r in session.run(
                    "MATCH (p:Place) WHERE p.name CONTAINS $s RETURN p.i AS i", s="-1")
            )
            assert sought == scanned
            assert len(sought) == 111  # 1, 10-19, 100-199
            ends = sorted(
                r["i"] for r in session.run(
                    "MATCH (p:Place) WHERE p.name ENDS WITH '99' RETURN p.i AS i")
            )
            assert ends == [99, 199]
            reads = session.run(
                "SHOW INDEXES YIELD name, readCount, lastRead WHERE name = 'place_name' "
                "RETURN readCount, lastRead"
            ).single()
            assert reads["readCount"] >= 2
            assert reads["lastRead"] is not None


def test_distance_seeks_a_point_index(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            session.run("CREATE POINT INDEX site_at FOR (s:Site) ON (s.at)").consume()
            session.run(
                "UNWIND range(0, 19) AS x UNWIND range(0, 19) AS y "
                "CREATE (:Site {at: point({x: x, y: y}), x: x, y: y})"
            ).consume()
            query = (
                "MATCH (s:Site) WHERE point.distance(s.at, $centre) <= 2.0 "
                "RETURN s.x AS x, s.y AS y ORDER BY x, y"
            )
            plan = session.run("EXPLAIN " + query, centre=CartesianPoint((5, 5))).consume().plan
            assert any(op.startswith("NodeIndexSeekByRange") for op in operators(plan)), plan
            rows = [(r["x"], r["y"]) for r in session.run(query, centre=CartesianPoint((5, 5)))]
            expected = sorted(
                (x, y) for x in range(20) for y in range(20) if (x - 5) ** 2 + (y - 5) ** 2 <= 4
            )
            assert rows == expected
            boxed = session.run(
                "MATCH (s:Site) WHERE point.withinBBox(s.at, $low, $high) RETURN count(s) AS n",
                low=CartesianPoint((2, 3)), high=CartesianPoint((4, 4)),
            ).single()["n"]
            assert boxed == 6
