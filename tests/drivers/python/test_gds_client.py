"""Neo4j's Graph Data Science Python client (`graphdatascience`) against Quiver: it connects
(asking `gds.version()` and whether an Arrow server runs), projects, runs algorithms in each
mode and reads their results as DataFrames, and drops the graph, through its own API.

tests/drivers/run.sh installs the client (pinned, with the driver it pins) in a venv of its own
and runs this file there (QUIVER_EXPECT_GDS_CLIENT=1, where a missing package fails); the
other venvs skip it."""

import os

import pytest

from conftest import PASSWORD, USER

if os.environ.get("QUIVER_EXPECT_GDS_CLIENT") == "1":
    import graphdatascience
else:
    graphdatascience = pytest.importorskip("graphdatascience")


@pytest.fixture
def gds(quiver):
    client = graphdatascience.GraphDataScience(quiver.uri(), auth=(USER, PASSWORD))
    yield client
    client.close()


def test_the_client_connects_and_reads_the_version(gds):
    assert str(gds.server_version()) == "2.6.0"


def test_project_run_and_drop_through_the_client(gds):
    gds.run_cypher("UNWIND range(0, 9) AS i CREATE (:N {i: i})")
    gds.run_cypher(
        "MATCH (a:N), (b:N) WHERE b.i = (a.i + 1) % 10 OR (a.i < 5 AND b.i = a.i + 5) "
        "CREATE (a)-[:R {w: toFloat(a.i)}]->(b)"
    )
    G, result = gds.graph.project("g", "N", {"R": {"properties": "w"}})
    assert result["nodeCount"] == 10
    assert G.node_count() == 10 and G.relationship_count() == 15
    assert gds.graph.exists("g")["exists"]

    ranks = gds.pageRank.stream(G)
    assert list(ranks.columns) == ["nodeId", "score"]
    assert len(ranks) == 10 and (ranks["score"] >= 0.15).all()

    stats = gds.wcc.stats(G)
    assert stats["componentCount"] == 1
    mutated = gds.degree.mutate(G, mutateProperty="degree")
    assert mutated["nodePropertiesWritten"] == 10
    degrees = gds.graph.nodeProperty.stream(G, "degree")
    assert sorted(degrees["propertyValue"].tolist()) == [1.0] * 5 + [2.0] * 5

    written = gds.louvain.write(G, writeProperty="community")
    assert written["nodePropertiesWritten"] == 10
    counted = gds.run_cypher("MATCH (n:N) WHERE n.community IS NOT NULL RETURN count(n) AS c")
    assert counted["c"][0] == 10

    paths = gds.shortestPath.dijkstra.stream(
        G,
        sourceNode=gds.find_node_id(["N"], {"i": 0}),
        targetNode=gds.find_node_id(["N"], {"i": 7}),
        relationshipWeightProperty="w",
    )
    assert len(paths) == 1

    listed = gds.graph.list()
    assert listed["graphName"].tolist() == ["g"]
    G.drop()
    assert not gds.graph.exists("g")["exists"]


def test_a_bad_configuration_key_reaches_the_client_as_gds_words_it(gds):
    gds.run_cypher("CREATE (:N)-[:R]->(:N)")
    G, _ = gds.graph.project("g", "N", "R")
    with pytest.raises(Exception) as failure:
        gds.pageRank.stream(G, dampingFactr=0.5)
    assert "Unexpected configuration key: dampingFactr" in str(failure.value)
