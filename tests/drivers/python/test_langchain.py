"""LangChain's `Neo4jGraph` against Quiver: construction reads the schema through
`apoc.meta.data` and `apoc.schema.nodes`, and `refresh_schema()` reads it again.

Installing LangChain takes minutes and hundreds of megabytes, so tests/drivers/run.sh installs
it (pinned) only when QUIVER_LANGCHAIN=1; without it these tests are skipped.
"""

import pytest

from conftest import PASSWORD, USER

langchain_neo4j = pytest.importorskip("langchain_neo4j")


def graph(quiver, **options):
    return langchain_neo4j.Neo4jGraph(
        url=quiver.uri(), username=USER, password=PASSWORD, **options
    )


def test_neo4j_graph_reads_the_schema(quiver):
    empty = graph(quiver)
    assert "Person" not in empty.get_schema
    empty.query(
        "CREATE (:Person {name: 'Ann', born: 1980})-[:ACTED_IN {roles: ['Eve']}]->"
        "(:Movie {title: 'Heat', released: 1995})"
    )
    empty.query("CREATE INDEX movie_title FOR (m:Movie) ON (m.title)")
    empty.refresh_schema()
    schema = empty.get_schema
    person = next(line for line in schema.splitlines() if line.startswith("Person {"))
    assert "name: STRING" in person and "born: INTEGER" in person, schema
    movie = next(line for line in schema.splitlines() if line.startswith("Movie {"))
    assert "title: STRING" in movie and "released: INTEGER" in movie, schema
    assert "ACTED_IN {roles: LIST}" in schema, schema
    assert "(:Person)-[:ACTED_IN]->(:Movie)" in schema, schema
    structured = empty.get_structured_schema
    assert [i["label"] for i in structured["metadata"]["index"]] == ["Movie"]
    empty.close()

    constructed = graph(quiver)
    assert "(:Person)-[:ACTED_IN]->(:Movie)" in constructed.get_schema
    constructed.close()

