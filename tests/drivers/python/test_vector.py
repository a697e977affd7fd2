"""Vector indexes through the official Python driver, as GraphRAG code uses them: the DDL with
parameters for the vectors, db.create.setNodeVectorProperty, db.index.vector.queryNodes with
Neo4j's scores, SHOW VECTOR INDEXES, and a bad argument's error as the driver sees it.
neo4j-graphrag's retrievers (vector, and hybrid over a vector and a full-text index it creates
with parameters) and its schema reading (what text2cypher gives a model) run where that package
is installed: tests/drivers/run.sh installs it (pinned) in a venv of its own and runs this file
there with QUIVER_EXPECT_LIBRARIES=1, where a missing package fails."""

import math
import os
import random

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError

from conftest import PASSWORD, USER

DIMENSIONS = 8


def embed(text):
    """A deterministic stand-in for an embedding model: the same text, the same vector."""
    rng = random.Random(text)
    return [rng.uniform(-1.0, 1.0) for _ in range(DIMENSIONS)]


def cosine_score(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return (1 + dot / norms) / 2


TEXTS = ["graphs", "vectors", "indexes", "drivers", "servers", "queries"]


def load(session):
    session.run(
        "CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS FOR (c:Chunk) ON (c.embedding) "
        "OPTIONS {indexConfig: {`vector.dimensions`: $d, `vector.similarity_function`: 'cosine'}}",
        d=DIMENSIONS,
    ).consume()
    for text in TEXTS:
        session.run(
            "CREATE (c:Chunk {text: $text}) "
            "WITH c CALL db.create.setNodeVectorProperty(c, 'embedding', $v)",
            text=text,
            v=embed(text),
        ).consume()


def test_query_nodes_returns_the_nearest_with_neo4j_scores(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            load(session)
            query = embed("vectors")
            records = list(
                session.run(
                    "CALL db.index.vector.queryNodes('chunk_embedding', 3, $q) "
                    "YIELD node, score RETURN node.text AS text, score",
                    q=query,
                )
            )
            assert len(records) == 3
            assert records[0]["text"] == "vectors"
            assert records[0]["score"] == pytest.approx(1.0)
            expected = sorted(
                ((cosine_score(embed(t), query), t) for t in TEXTS), reverse=True
            )[:3]
            assert [r["text"] for r in records] == [t for _, t in expected]
            for record, (score, _) in zip(records, expected):
                assert record["score"] == pytest.approx(score, abs=1e-6)
            shown = session.run(
                "SHOW VECTOR INDEXES YIELD name, type, options "
                "RETURN name, type, options.indexConfig AS config"
            ).single()
            assert shown["name"] == "chunk_embedding"
            assert shown["type"] == "VECTOR"
            assert shown["config"]["vector.dimensions"] == DIMENSIONS
            assert shown["config"]["vector.similarity_function"] == "COSINE"


def test_a_bad_argument_names_it(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            load(session)
            with pytest.raises(ClientError) as wrong_dimension:
                session.run(
                    "CALL db.index.vector.queryNodes('chunk_embedding', 3, [1.0, 2.0])"
                ).consume()
            assert wrong_dimension.value.code == (
                "Neo.ClientError.Procedure.ProcedureCallFailed"
            )
            assert "query" in wrong_dimension.value.message
            with pytest.raises(ClientError) as unknown:
                session.run(
                    "CALL db.index.vector.queryNodes('nothing', 3, $q)", q=embed("x")
                ).consume()
            assert "indexName" in unknown.value.message


graphrag = None
try:  # neo4j-graphrag is in the libraries' venv only (tests/drivers/run.sh).
    import neo4j_graphrag as graphrag  # noqa: F401
except ImportError:
    if os.environ.get("QUIVER_EXPECT_LIBRARIES") == "1":
        raise

needs_graphrag = pytest.mark.skipif(graphrag is None, reason="neo4j-graphrag is not installed")


def fake_embedder():
    """neo4j-graphrag's embedder interface over `embed`: no model, no network."""
    from neo4j_graphrag.embeddings.base import Embedder

    class FakeEmbedder(Embedder):
        def embed_query(self, text):
            return embed(text)

    return FakeEmbedder()


@needs_graphrag
def test_neo4j_graphrag_vector_retriever(quiver):
    from neo4j_graphrag.retrievers import VectorRetriever

    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            load(session)
        retriever = VectorRetriever(
            driver,
            index_name="chunk_embedding",
            embedder=fake_embedder(),
            return_properties=["text"],
        )
        result = retriever.search(query_text="indexes", top_k=2)
        assert len(result.items) == 2
        assert "indexes" in result.items[0].content


@needs_graphrag
def test_neo4j_graphrag_hybrid_retriever_over_indexes_it_created(quiver):
    """`create_vector_index` and `create_fulltext_index` send `CREATE ... INDEX $name` with the
    vector index's dimensions and similarity as parameters (`toInteger($dimensions)`); the
    hybrid retriever then asks both indexes and merges their hits, each half normalized by its
    best score, so the text both find first scores 1."""
    from neo4j_graphrag.indexes import (
        create_fulltext_index,
        create_vector_index,
        drop_index_if_exists,
        upsert_vectors,
    )
    from neo4j_graphrag.retrievers import HybridRetriever
    from neo4j_graphrag.types import EntityType

    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        # Both twice: the second time IF NOT EXISTS, so nothing changes.
        for _ in range(2):
            create_vector_index(
                driver,
                "doc_vectors",
                label="Doc",
                embedding_property="embedding",
                dimensions=DIMENSIONS,
                similarity_fn="cosine",
            )
            create_fulltext_index(driver, "doc_words", label="Doc", node_properties=["text"])
        texts = ["graph databases store relationships", "vector search finds neighbours",
                 "quivers hold arrows"]
        records, _, _ = driver.execute_query(
            "UNWIND $texts AS text CREATE (d:Doc {text: text}) RETURN elementId(d) AS id",
            texts=texts,
        )
        ids = [r["id"] for r in records]
        upsert_vectors(
            driver,
            ids=ids,
            embedding_property="embedding",
            embeddings=[embed(t) for t in texts],
            entity_type=EntityType.NODE,
        )
        shown, _, _ = driver.execute_query(
            "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options "
            "WHERE name STARTS WITH 'doc_' RETURN name, type, labelsOrTypes, properties, "
            "options.indexConfig AS config ORDER BY name"
        )
        assert [(r["name"], r["type"], r["labelsOrTypes"], r["properties"]) for r in shown] == [
            ("doc_vectors", "VECTOR", ["Doc"], ["embedding"]),
            ("doc_words", "FULLTEXT", ["Doc"], ["text"]),
        ]
        assert shown[0]["config"]["vector.dimensions"] == DIMENSIONS
        assert shown[0]["config"]["vector.similarity_function"] == "COSINE"

        retriever = HybridRetriever(
            driver,
            vector_index_name="doc_vectors",
            fulltext_index_name="doc_words",
            embedder=fake_embedder(),
            return_properties=["text"],
        )
        # The text itself: its own vector (cosine 1) and its words (the best full-text hit).
        found = retriever.search(query_text="quivers hold arrows", top_k=2)
        assert "quivers hold arrows" in found.items[0].content
        assert found.items[0].metadata["score"] == pytest.approx(1.0)
        # A word only the full-text half can match still brings its text back.
        words = retriever.search(query_text="neighbours", top_k=3)
        assert any("vector search finds neighbours" in i.content for i in words.items)

        drop_index_if_exists(driver, "doc_words")
        drop_index_if_exists(driver, "doc_words")
        left, _, _ = driver.execute_query("SHOW INDEXES YIELD name RETURN name ORDER BY name")
        assert [r["name"] for r in left] == ["doc_vectors"]


@needs_graphrag
def test_neo4j_graphrag_schema_for_text2cypher(quiver):
    """What text2cypher puts before a model: `get_structured_schema` reads labels and property
    types through `apoc.meta.data`, relationship patterns, constraints and indexes, and
    `get_schema` formats them. No model is asked."""
    from neo4j_graphrag.schema import get_schema, get_structured_schema

    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        driver.execute_query(
            "CREATE (a:Person {name: 'Ann', born: 1980})-[:ACTED_IN {roles: ['Eve']}]->"
            "(m:Movie {title: 'Heat', released: 1995}), "
            "(b:Person {name: 'Bob', born: 1970})-[:DIRECTED]->(m), "
            "(a)-[:KNOWS {since: 2001}]->(b)"
        )
        driver.execute_query(
            "CREATE CONSTRAINT person_name FOR (p:Person) REQUIRE p.name IS UNIQUE"
        )
        driver.execute_query("CREATE INDEX movie_title FOR (m:Movie) ON (m.title)")

        structured = get_structured_schema(driver)
        node_props = {
            label: {p["property"]: p["type"] for p in props}
            for label, props in structured["node_props"].items()
        }
        assert node_props["Person"] == {"name": "STRING", "born": "INTEGER"}
        assert node_props["Movie"] == {"title": "STRING", "released": "INTEGER"}
        rel_props = {
            t: {p["property"]: p["type"] for p in props}
            for t, props in structured["rel_props"].items()
        }
        assert rel_props["ACTED_IN"] == {"roles": "LIST"}
        assert rel_props["KNOWS"] == {"since": "INTEGER"}
        patterns = {(r["start"], r["type"], r["end"]) for r in structured["relationships"]}
        assert patterns == {
            ("Person", "ACTED_IN", "Movie"),
            ("Person", "DIRECTED", "Movie"),
            ("Person", "KNOWS", "Person"),
        }
        constraints = structured["metadata"]["constraint"]
        assert [(c["name"], c["labelsOrTypes"], c["properties"]) for c in constraints] == [
            ("person_name", ["Person"], ["name"])
        ]
        # The range indexes, the uniqueness constraint's own among them (as APOC lists it).
        indexes = {(i["label"], tuple(i["properties"])) for i in structured["metadata"]["index"]}
        assert ("Movie", ("title",)) in indexes, indexes

        text = get_schema(driver)
        assert "Person {" in text and "name: STRING" in text and "born: INTEGER" in text, text
        assert "(:Person)-[:ACTED_IN]->(:Movie)" in text, text
        assert "(:Person)-[:KNOWS]->(:Person)" in text, text
        assert "KNOWS {since: INTEGER}" in text, text
