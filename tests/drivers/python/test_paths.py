"""Quantified path patterns and GQL path selectors through the official Python driver: the
paths and group variables come back as the driver's own Path, Node and Relationship values."""

import pytest
from neo4j import GraphDatabase
from neo4j.graph import Path

from conftest import PASSWORD, USER


@pytest.fixture
def driver(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        driver.execute_query(
            "CREATE (a:Stop {name: 'a'})-[:NEXT {d: 1}]->(b:Stop {name: 'b'})"
            "-[:NEXT {d: 2}]->(c:Stop {name: 'c'})-[:NEXT {d: 3}]->(d:Stop {name: 'd'}),"
            " (a)-[:NEXT {d: 9}]->(d)",
            database_="neo4j",
        )
        yield driver


def test_quantified_path_pattern_with_group_variables(driver):
    records, _, _ = driver.execute_query(
        "MATCH p = (:Stop {name: 'a'}) ((x)-[r:NEXT WHERE r.d < 5]->(y)){2,3} (e) "
        "RETURN p, [s IN y | s.name] AS ys, [q IN r | q.d] AS ds ORDER BY length(p)",
        database_="neo4j",
    )
    assert [r["ys"] for r in records] == [["b", "c"], ["b", "c", "d"]]
    assert [r["ds"] for r in records] == [[1, 2], [1, 2, 3]]
    path = records[1]["p"]
    assert isinstance(path, Path)
    assert [n["name"] for n in path.nodes] == ["a", "b", "c", "d"]
    assert [rel["d"] for rel in path.relationships] == [1, 2, 3]


def test_shortest_selector(driver):
    records, _, _ = driver.execute_query(
        "MATCH p = SHORTEST 2 (:Stop {name: 'a'})-[:NEXT]->+(:Stop {name: 'd'}) "
        "RETURN [n IN nodes(p) | n.name] AS names ORDER BY length(p)",
        database_="neo4j",
    )
    assert [r["names"] for r in records] == [["a", "d"], ["a", "b", "c", "d"]]
