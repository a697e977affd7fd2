"""Clients that offer only Bolt 4.x: Quiver negotiates 4.3 with them, as Neo4j 5 does."""

from neo4j import GraphDatabase

from conftest import PASSWORD, USER


def test_a_bolt_4_3_driver_runs_transactions(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            result = session.run("RETURN 1 AS one")
            assert result.single()["one"] == 1
            assert result.consume().server.protocol_version == (4, 3)
            summary = session.run("CREATE (:Old {v: 4})").consume()
            assert summary.counters.nodes_created == 1
            with session.begin_transaction() as tx:
                tx.run("CREATE (:Old {v: 3})").consume()
                tx.commit()
            values = session.run("MATCH (o:Old) RETURN o.v AS v ORDER BY v").value()
            assert values == [3, 4]


def test_a_bolt_4_3_driver_routes_with_route(quiver):
    with GraphDatabase.driver(quiver.uri("neo4j"), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            assert session.run("RETURN 2 AS two").single()["two"] == 2
