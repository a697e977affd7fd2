"""Full-text indexes through the official Python driver: Neo4j 5's DDL, the query procedures
with Lucene syntax and scores, SHOW FULLTEXT INDEXES, a bad argument's error as the driver
sees it, and the hybrid search LangChain's Neo4jVector sends (a vector and a full-text index
queried in one statement, scores normalised per index)."""

import random

import pytest
from neo4j import GraphDatabase

from conftest import PASSWORD, USER, refused

DOCUMENTS = [
    ("Graph databases", "Nodes and relationships stored natively, queried with Cypher."),
    ("Search engines", "An inverted index answers term and phrase queries fast."),
    ("Vector search", "Nearest neighbours in an embedding space, found approximately."),
    ("Graph search", "Full-text search over the properties of a graph's nodes."),
]


def load(session):
    session.run(
        "CREATE FULLTEXT INDEX docs IF NOT EXISTS FOR (d:Doc) ON EACH [d.title, d.body] "
        "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}"
    ).consume()
    for title, body in DOCUMENTS:
        session.run("CREATE (:Doc {title: $title, body: $body})", title=title, body=body).consume()


def test_query_nodes_ranks_by_score_with_lucene_syntax(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            load(session)
            records = list(
                session.run(
                    "CALL db.index.fulltext.queryNodes('docs', 'graph') "
                    "YIELD node, score RETURN node.title AS title, score"
                )
            )
            titles = [r["title"] for r in records]
            assert sorted(titles) == ["Graph databases", "Graph search"]
            scores = [r["score"] for r in records]
            assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)

            # A phrase, a field, a negation and a fuzzy term, as Lucene writes them.
            def titles_of(query):
                return sorted(
                    r["title"]
                    for r in session.run(
                        "CALL db.index.fulltext.queryNodes('docs', $q) YIELD node "
                        "RETURN node.title AS title",
                        q=query,
                    )
                )

            assert titles_of('"inverted index"') == ["Search engines"]
            assert titles_of("title:search") == ["Graph search", "Search engines", "Vector search"]
            assert titles_of("search AND NOT graph") == ["Search engines", "Vector search"]
            assert titles_of("neighbors~") == ["Vector search"]

            # What a transaction commits is found by the next one; what it rolls back is not.
            session.run("CREATE (:Doc {title: 'Graph theory', body: 'Euler'})").consume()
            with session.begin_transaction() as tx:
                tx.run("CREATE (:Doc {title: 'Graph drawing', body: 'layouts'})").consume()
                tx.rollback()
            assert "Graph theory" in titles_of("graph")
            assert "Graph drawing" not in titles_of("graph")

            shown = session.run(
                "SHOW FULLTEXT INDEXES YIELD name, type, entityType, labelsOrTypes, properties"
            ).single()
            assert shown["name"] == "docs" and shown["type"] == "FULLTEXT"
            assert shown["entityType"] == "NODE" and shown["labelsOrTypes"] == ["Doc"]
            assert shown["properties"] == ["title", "body"]


def test_relationships_and_analyzers(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            session.run(
                "CREATE FULLTEXT INDEX reviews FOR ()-[r:REVIEWED]-() ON EACH [r.text]"
            ).consume()
            session.run(
                "CREATE (:User {n: 1})-[:REVIEWED {text: 'a wonderful quiet hotel'}]->(:Hotel), "
                "(:User {n: 2})-[:REVIEWED {text: 'noisy rooms and a loud bar'}]->(:Hotel)"
            ).consume()
            record = session.run(
                "CALL db.index.fulltext.queryRelationships('reviews', 'quiet') "
                "YIELD relationship, score RETURN startNode(relationship).n AS user, score"
            ).single()
            assert record["user"] == 1 and record["score"] > 0
            analyzers = {
                r["analyzer"]
                for r in session.run(
                    "CALL db.index.fulltext.listAvailableAnalyzers() YIELD analyzer RETURN analyzer"
                )
            }
            assert {"standard-no-stop-words", "english", "whitespace", "keyword"} <= analyzers


def test_a_bad_argument_names_itself(quiver):
    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            load(session)
            raised = refused(session, "CALL db.index.fulltext.queryNodes('nope', 'graph')")
            assert raised.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
            assert "nope" in raised.message
            # The connection and the data are intact after the failure.
            assert session.run("MATCH (d:Doc) RETURN count(d) AS c").single()["c"] == len(DOCUMENTS)


def test_hybrid_search_as_langchain_sends_it(quiver):
    dimensions = 4

    def embed(text):
        rng = random.Random(text)
        return [rng.uniform(-1.0, 1.0) for _ in range(dimensions)]

    with GraphDatabase.driver(quiver.uri(), auth=(USER, PASSWORD)) as driver:
        with driver.session() as session:
            load(session)
            session.run(
                "CREATE VECTOR INDEX doc_embedding FOR (d:Doc) ON (d.embedding) OPTIONS "
                "{indexConfig: {`vector.dimensions`: $d, `vector.similarity_function`: 'cosine'}}",
                d=dimensions,
            ).consume()
            session.run(
                "MATCH (d:Doc) CALL db.create.setNodeVectorProperty(d, 'embedding', $v)",
                v=embed("graph"),
            ).consume()
            records = list(
                session.run(
                    "CALL { "
                    "CALL db.index.vector.queryNodes('doc_embedding', $k, $embedding) "
                    "YIELD node, score "
                    "WITH collect({node: node, score: score}) AS nodes, max(score) AS max "
                    "UNWIND nodes AS n RETURN n.node AS node, (n.score / max) AS score "
                    "UNION "
                    "CALL db.index.fulltext.queryNodes('docs', $text, {limit: $k}) "
                    "YIELD node, score "
                    "WITH collect({node: node, score: score}) AS nodes, max(score) AS max "
                    "UNWIND nodes AS n RETURN n.node AS node, (n.score / max) AS score "
                    "} "
                    "WITH node, max(score) AS score ORDER BY score DESC LIMIT $k "
                    "RETURN node.title AS title, score",
                    k=3,
                    embedding=embed("graph"),
                    text="inverted",
                )
            )
            assert len(records) == 3
            # Each index's best hit is normalised to 1.
            assert records[0]["score"] == pytest.approx(1.0)
            assert all(0 < r["score"] <= 1.0 + 1e-9 for r in records)
