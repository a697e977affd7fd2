"""Vector indexes through the official Python driver, as GraphRAG code uses them: the DDL with
parameters for the vectors, db.create.setNodeVectorProperty, db.index.vector.queryNodes with
Neo4j's scores, SHOW VECTOR INDEXES, and a bad argument's error as the driver sees it.
neo4j-graphrag's VectorRetriever runs too when that package is installed (QUIVER_GRAPHRAG=1)."""

import math
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
try:  # neo4j-graphrag is installed by tests/drivers/run.sh only with QUIVER_GRAPHRAG=1.
    import neo4j_graphrag as graphrag  # noqa: F401
except ImportError:
    pass


@pytest.mark.skipif(graphrag is None, reason="neo4j-graphrag is not installed")
def test_neo4j_graphrag_vector_retriever(quiver):
    from neo4j_graphrag.embeddings.base import Embedder
    from neo4j_graphrag.retrievers import VectorRetriever

    class FakeEmbedder(Embedder):
        def embed_query(self, text):
            return embed(text)

    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            load(session)
        retriever = VectorRetriever(
            driver,
            index_name="chunk_embedding",
            embedder=FakeEmbedder(),
            return_properties=["text"],
        )
        result = retriever.search(query_text="indexes", top_k=2)
        assert len(result.items) == 2
        assert "indexes" in result.items[0].content
